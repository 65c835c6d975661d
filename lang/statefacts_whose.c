/*
 * statefacts_whose.c — whose a value is, told by the words around it: someone else's ("my
 * sister lives in X", "my neighbour's dog X"), or the user's by a possessive ("my dog X", "my
 * Honda Civic") or by a noun of theirs placed at it ("my team at X"), which also says what the
 * clause does not ("I'm taking my boyfriend X to Rome" is a plan; the boyfriend is not);
 * and the words standing for a value named before ("here", "it"), and who "we" pairs the
 * speaker with.
 */
#include <stdio.h>
#include <string.h>

#include "lang/statefacts_int.h"

/* Does w open with one of the stems in list ("begging" with "beg")? */
static bool opens_with_any(const char *w, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strncmp(w, list[i], strlen(list[i]))) return true;
  return false;
}

/* The noun for a person at t[i] ("sister", "neighbour's", "parents", "ex-colleague"), or
 * false. */
bool eg_sf_person_noun(const eg_statefacts *sf, const token *t, size_t i) {
  char noun[32];
  const char *w = strncmp(t[i].w, "ex-", 3) == 0 && t[i].w[3] ? t[i].w + 3 : t[i].w;
  size_t l = eg_sf_unpossessed(w, noun, sizeof noun);
  if (!eg_sf_bits_of(sf->people, noun) && l > 3 && noun[l - 1] == 's')
    noun[l - 1] = '\0'; /* "my parents" */
  return eg_sf_bits_of(sf->people, noun) != 0;
}

static const char *const own[] = {"my", "our"}; /* the words the user owns by */

bool eg_sf_others_change(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  static const char *const with_me[] = {"i", "me", "we", "us"};
  if (from + 2 >= to || !eg_sf_ours(t[from].w) || !eg_sf_person_noun(sf, t, from + 1)) return false;
  char noun[32];
  eg_sf_unpossessed(t[from + 1].w, noun, sizeof noun);
  /* "my gf dumped me": the speaker's partner; "my cat X died", "my company X": a kind */
  if ((eg_sf_bits_of(sf->cue, noun) & sf->person_bit) ||
      (eg_sf_kind_bits(sf, noun) & ~sf->person_bit))
    return false;
  for (size_t k = from + 2; k < to; k++)
    if (eg_sf_in_list(t[k].w, with_me, sizeof with_me / sizeof *with_me)) return false;
  return true;
}

/* Is the name at token i given by a verb of naming to a kind word the user owns ("named our
 * new kitten X", "called my puppy X"; not "named her kitten X", nor "the dog")? */
static bool kind_named(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  if (i < from + 3 || t[i - 1].comma || !eg_sf_kind_bits(sf, t[i - 1].w)) return false;
  size_t k = i - 1;
  while (k > from && k + 3 > i - 1 && !t[k - 1].comma &&
         (eg_sf_determiner(t[k - 1].w) ||
          eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, t[k - 1].w)))
    k--;
  return k < i - 1 && k > from && eg_sf_ours(t[k].w) && eg_sf_naming_verb(sf, t[k - 1].w);
}

/* Does "as a" and a noun for a person open at i, no verb between it and slot s ("As a resident
 * of X, am I …?", "as a nurse at X I …"; not "as a friend of mine lives in X, …")? The speaker
 * is that person. */
static bool as_one(const eg_statefacts *sf, const token *t, size_t i, const slot *s) {
  static const char *const indef[] = {"a", "an"};
  if (i + 3 > s->ts || strcmp(t[i].w, "as") != 0 || !eg_sf_in_list(t[i + 1].w, indef, 2) ||
      !eg_sf_person_noun(sf, t, i + 2))
    return false;
  for (size_t k = i + 3; k < s->ts; k++)
    if (t[k - 1].comma || eg_wordnet_is_verb(&sf->wn.verbs, t[k].w)) return false;
  return true;
}

/* Does the clause [from, to) open with someone else as the subject of slot s: a noun for a
 * person, bare or after my/our and at most one modifier, no I or we after it, the slot not
 * what the noun names or is (eg_sf_about_someone_else)? */
static bool someone_subject(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                            const slot *s) {
  /* "my sister …", "our neighbours …", and "a friend of mine …", "one colleague …"; bare,
   * the words a family calls its own by ("dad's selling …", "mum says …") and one "of mine"
   * with the article chat drops ("friend of mine just relocated to X") */
  static const char *const whose[] = {"my", "our", "a", "an", "one", "some"};
  static const char *const kin[] = {"mum",     "mum's",     "mom",     "mom's",     "dad",
                                    "dad's",   "mama",      "mama's",  "papa",      "papa's",
                                    "grandma", "grandma's", "grandpa", "grandpa's", "nan",
                                    "nan's",   "gran",      "gran's"};
  static const char *const mine[] = {"mine", "ours"};
  size_t noun;
  /* past interjections, the words that add a sentence to the last and adverbs: "lol my friend
   * …", "also my sister's husky X is visiting", "so basically my sister moved to X" */
  static const char *const adding[] = {"also", "plus", "and", "btw", "oh", "anyway", "anyways"};
  while (from + 1 < to && !as_one(sf, t, from, s) && /* "as a resident of X": the speaker's */
         (eg_sf_interjection(t[from].w) ||
          eg_sf_in_list(t[from].w, adding, sizeof adding / sizeof *adding) ||
          eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, t[from].w)))
    from++;
  size_t own_at;
  if (eg_sf_in_list(t[from].w, whose, sizeof whose / sizeof *whose))
    noun = from + 1 < to && (eg_sf_person_noun(sf, t, from + 1) ||
                             (eg_sf_has_marker(sf, MK_FORMER, t, from + 1, from + 2) &&
                              eg_sf_held_through(sf, t, from, s, &own_at)))
               ? from + 1 /* "my old colleagues at X": the user's former place, read so; not
                           * "our old neighbours moved to X", theirs */
               : from + 2;
  else if (eg_sf_in_list(t[from].w, kin, sizeof kin / sizeof *kin) ||
           (from + 2 < to && !strcmp(t[from + 1].w, "of") && eg_sf_in_list(t[from + 2].w, mine, 2)))
    noun = from;
  else if (!strcmp(t[from].w, "the") && from + 1 < to &&
           (strstr(t[from + 1].w, "'s") || t[from + 1].theirs))
    noun = from + 1; /* "the neighbour's dog X": not "the kids …" */
  else if (!strcmp(t[from].w, "the") && from + 2 < to && !strcmp(t[from + 2].w, "of") &&
           eg_sf_person_noun(sf, t, from + 1))
    noun = from + 1; /* "the CEO of X spoke …", "the founder of X": their firm */
  else
    return false;
  if (noun + 1 >= to || noun >= s->ts || !eg_sf_person_noun(sf, t, noun)) return false;
  /* the group "our" names that the speaker is one of: "our family moved to X" is "we" */
  static const char *const us[] = {"family", "household"};
  if (noun == from + 1 && !strcmp(t[from].w, "our") && eg_sf_in_list(t[noun].w, us, 2))
    return false;
  /* right after the noun: the one it names ("my wife X"), or their thing when the noun is a
   * possessive ("my sister's Tesla Model 3 is so quiet") */
  bool possessive = eg_sf_possessive(t[noun].w) || t[noun].theirs;
  if (s->ts == noun + 1) return possessive;
  /* … or past how long it has lasted, set off: "my husband of 20 years, X" */
  if (s->ts == noun + 4 && eg_sf_lasted(sf, t, from, s->ts)) return false;
  /* "an elderly cat", "a cat from the shelter": a kind of value, not a person ("my
   * neighbour's dog" is the neighbour's, and "my brother, Tom, lives in X" or "my ex-colleague
   * Tom moved to X" names him: a capitalised word after the noun is no kind, whatever WordNet
   * holds for "tom") */
  bool named = t[noun + 1].cap && !t[noun + 1].start;
  unsigned kind = eg_sf_kind_bits(sf, t[noun].w) |
                  (possessive || named ? 0 : eg_sf_kind_bits(sf, t[noun + 1].w));
  if (kind & ~sf->person_bit) return false;
  /* … nor the noun qualifying a kind word of a type ("my company car is X", "my family car") */
  if (!possessive && !named && eg_sf_bits_of(sf->generic, t[noun + 1].w)) return false;
  /* "my employer is X", "my daily driver is a Tesla X": the noun is a role the named value
   * fills, the user's ("my dad is paleo" says what the dad is) */
  size_t v = noun + 2;
  while (v < s->ts && eg_sf_determiner(t[v].w)) v++;
  if (s->proper && eg_sf_copula(t[noun + 1].w) && v == s->ts) return false;
  /* "my boyfriend is called X": a cue word's name given is the user's one of that kind ("my
   * sister is called X" is the sister's) */
  if (s->proper && eg_sf_copula(t[noun + 1].w) && v + 1 == s->ts &&
      eg_sf_bits_of(sf->cue, t[noun].w) && eg_sf_naming_verb(sf, t[v].w))
    return false;
  /* "my dog's name is X", "my partner's name is X": the name of the user's one of a cue
   * word's kind ("my sister's name is X" is the sister's own); the possessive may be dropped,
   * as learners do ("my girlfriend name is X") */
  char kind_word[32];
  eg_sf_unpossessed(t[noun].w, kind_word, sizeof kind_word);
  if (s->proper && noun + 3 == s->ts && !strcmp(t[noun + 1].w, "name") &&
      eg_sf_copula(t[noun + 2].w) && eg_sf_bits_of(sf->cue, kind_word))
    return false;
  /* "my sister and I moved to X", "… moved in with me", "my doctor steered me onto X": the
   * user is a subject too, or the one the state came to. Only before the slot: in "my dad is
   * X now and keeps lecturing me" the "me" after it is no subject of X. But what someone begs
   * or asks of the user is not yet the user's state: "my mum keeps begging me to move to X". */

  static const char *const ask[] = {"beg", "ask", "want", "urg", "nag", "pester", "tell", "told"};
  for (size_t i = noun + 1; i < s->ts && i < to; i++) {
    bool object = !strcmp(t[i].w, "me") || !strcmp(t[i].w, "us");
    if (!object && !eg_sf_subject_pronoun(t[i].w)) continue;
    bool asked_of = object && i + 1 < s->ts && !strcmp(t[i + 1].w, "to") &&
                    opens_with_any(t[i - 1].w, ask, sizeof ask / sizeof *ask);
    if (!asked_of) return false;
  }
  return true;
}

/* "My sister lives in X", "my neighbour's dog X", "my uni mate is moving to X", "dad's
 * selling his X": a clause, or the slot's own predicate or sub-clause in it ("I got a flat in
 * Y, my sister lives in X"), whose subject is someone else (a noun for a person, bare or after
 * my/our and at most one modifier; no I or we after it) is about them, unless the slot is
 * that person's name ("my wife X …", "my new boyfriend X") or what the noun is ("my current
 * employer is X", "my daily driver is a X": the user's); so is a value that is his or theirs
 * ("showing off his X") in a clause with no first-person subject ("I bought his X" is the
 * user's). */
/* Is the slot in a relative clause that tells of someone or something the speaker is not ("my
 * sister who is gluten-free", "dating someone who lives in X", "Marco who plays the drums"):
 * no comma between it and the slot ("I gave X to my nephew, who adores him, and adopted Y"),
 * no I, me or my ("the guy who sold me my X", "I'm the one who plays X", "I, who …"), and
 * what it tells of no noun a copula says of a subject ("I'm a nurse who lives in X", "Priya
 * is a physio who …": of that subject, whoever it is)? */
static bool told_of_another(const eg_statefacts *sf, const token *t, size_t from, const slot *s) {
  static const char *const rel[] = {"who", "whose"}, *const be[] = {"am", "are", "were", "i'm"};
  for (size_t k = s->ts; k > from + 1 && !t[k - 1].comma; k--) {
    if (!eg_sf_in_list(t[k - 1].w, rel, 2)) continue;
    const char *ante = t[k - 2].w; /* what the clause tells of */
    if (eg_sf_first_person(t, k - 1, s->ts) || !strcmp(ante, "one") ||
        eg_sf_subject_pronoun(ante) || !strcmp(ante, "me"))
      return false;
    size_t j = k - 2; /* past its determiner and adjectives */
    while (j > from && (eg_sf_determiner(t[j - 1].w) ||
                        eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, t[j - 1].w)))
      j--;
    return !(j > from && (eg_sf_copula(t[j - 1].w) || eg_sf_in_list(t[j - 1].w, be, 4)));
  }
  return false;
}

bool eg_sf_of_a_possessor(const eg_statefacts *sf, const token *t, size_t from, const slot *s) {
  /* "looking after my friend's dog X", "borrowed my dad's X": a value right after a person's
   * possessive, or a name right after a kind word one owns, is theirs wherever it stands;
   * not one the speaker acquires ("I took dad's X", "got grandpa's X restored"), nor after a
   * name's "'s" ("his name's X": "is") */
  for (size_t j = s->ts; j > from && s->ts - j < 3 && !t[j - 1].comma; j--) {
    if (!eg_sf_possessive(t[j - 1].w) || !strcmp(t[j - 1].w, "name's") ||
        !eg_sf_person_noun(sf, t, j - 1) || (j < s->ts && !eg_sf_kind_bits(sf, t[s->ts - 1].w)))
      continue;
    size_t v = j - 1; /* the verb before the possessor, past "my", "the" */
    while (v > from && eg_sf_determiner(t[v - 1].w)) v--;
    static const char *const take[] = {"take", "takes", "took", "taken", "taking"};
    if (!(v > from && (eg_sf_verb_at(sf->acquires, t, v - 1, j - 1) ||
                       eg_sf_in_list(t[v - 1].w, take, sizeof take / sizeof *take))))
      return true;
  }
  return false;
}

/* Past "the" and a kind word in apposition right after a name ending at te ("X the cat …"): where
 * what follows the name starts. */
static size_t past_kind_apposition(const eg_statefacts *sf, const token *t, size_t te, size_t to) {
  return te + 1 < to && !strcmp(t[te].w, "the") && eg_sf_kind_bits(sf, t[te + 1].w) ? te + 2 : te;
}

/* Does the predicate of a name opening its clause give it to someone else: "X the cat belongs to
 * my flatmate", "X is my daughter's", "X was grandma's pride and joy", "X belongs to Sam" (not
 * "belongs to me", "X is mine")? A kind word after "the" in apposition may come between ("X the
 * hamster is …"). */
static bool given_to_another(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                             const slot *s) {
  static const char *const belong[] = {"belongs", "belonged", "belong"};
  if (s->ts != from || t[s->te - 1].comma) return false;
  size_t q = past_kind_apposition(sf, t, s->te, to);
  bool to_whom = q + 2 < to && eg_sf_in_list(t[q].w, belong, 3) && !strcmp(t[q + 1].w, "to");
  if (!to_whom && !(q + 1 < to && (eg_sf_copula(t[q].w) || !strcmp(t[q].w, "'s")))) return false;
  size_t o = q + 1 + to_whom;
  if (o + 1 < to && eg_sf_determiner(t[o].w)) o++;
  return (to_whom || eg_sf_possessive(t[o].w)) && (eg_sf_person_noun(sf, t, o) || t[o].cap);
}

/* Is the name followed by where its neighbours keep it ("X the beagle from next door", "the cat
 * across the road", "X upstairs"), a kind word after "the" in apposition between? */
static bool of_the_neighbours(const eg_statefacts *sf, const token *t, size_t to, const slot *s) {
  static const char *const ways[] = {"road", "street", "hall", "corridor", "landing", "way"};
  size_t q = past_kind_apposition(sf, t, s->te, to);
  if (q < to && !strcmp(t[q].w, "from")) q++;
  if (q < to && (!strcmp(t[q].w, "upstairs") || !strcmp(t[q].w, "downstairs"))) return true;
  if (q + 1 < to && !strcmp(t[q].w, "next") && !strcmp(t[q + 1].w, "door")) return true;
  return q + 2 < to && (!strcmp(t[q].w, "across") || !strcmp(t[q].w, "down")) &&
         !strcmp(t[q + 1].w, "the") && eg_sf_in_list(t[q + 2].w, ways, sizeof ways / sizeof *ways);
}

/* Is the slot another's by the words around it: his or their kind word before a name ("Tom and
 * his wife X"; not "her", as often the object: "we got her a sister, X"), the one it is got or
 * given to before it ("bought my son a X", "got her a X"), or the home it stands at after it
 * ("the X at my gran's")? */
static bool kept_for_another(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                             const slot *s) {
  static const char *const his[] = {"his", "their"};
  static const char *const them[] = {"him", "her", "them"};
  static const char *const det[] = {"a", "an", "the"};
  size_t i = s->ts;
  if (s->proper && i >= from + 2 && eg_sf_kind_bits(sf, t[i - 1].w) && !t[i - 2].comma &&
      eg_sf_in_list(t[i - 2].w, his, 2))
    return true;
  size_t q = i; /* past a determiner and up to one word qualifying it */
  if (q > from && !eg_sf_in_list(t[q - 1].w, det, 3) && !t[q - 1].comma) q--;
  if (q >= from + 3 && eg_sf_in_list(t[q - 1].w, det, 3) && !t[q - 2].comma &&
      (eg_sf_in_list(t[q - 2].w, them, 3) ||
       (eg_sf_person_noun(sf, t, q - 2) && !eg_sf_possessive(t[q - 2].w))) &&
      (eg_wordnet_is_past(&sf->wn.verbs, t[q - 3].w) ||
       (q >= from + 4 && eg_sf_determiner(t[q - 3].w) &&
        eg_wordnet_is_past(&sf->wn.verbs, t[q - 4].w))))
    return true;
  if (s->te + 2 >= to || t[s->te - 1].comma || strcmp(t[s->te].w, "at") != 0) return false;
  size_t o = s->te + 1 + eg_sf_determiner(t[s->te + 1].w); /* the owner, past "my" */
  return (eg_sf_possessive(t[o].w) || t[o].theirs) && eg_sf_person_noun(sf, t, o);
}

/* Is the place's name a person's by what it does or is called: the subject opening its clause of
 * a verb of speaking (@speaks: "X called me", "X texted us") or of a move of home (@relocates:
 * "X moved in with me"), or with a noun for a person in apposition ("X, my flatmate, is moving
 * out")? A town does none of these. */
static bool persons_name(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                         const slot *s) {
  if (!s->proper || s->cued || !(s->bits & sf->place_bit) || (s->bits & sf->person_bit) ||
      s->te >= to)
    return false;
  size_t q = s->te;
  if (!t[q - 1].comma)
    return s->ts == from &&
           (eg_sf_verb_at(sf->speaks, t, q, to) || eg_sf_verb_at(sf->relocates, t, q, to));
  if (eg_sf_determiner(t[q].w) && q + 1 < to) q++;
  return eg_sf_person_noun(sf, t, q) && (t[q].comma || q + 1 == to);
}

/* Is the slot said to be one of the speaker's people other than a partner ("X is my neighbour",
 * "X is our biggest client"; not a cue, kind or asked kind's word: "X is my boyfriend", "X is my
 * dog", "X is my main instrument")? Then it is that person. */
static bool one_of_my_people(const eg_statefacts *sf, const token *t, size_t to, const slot *s) {
  size_t q = s->te;
  if (q + 2 >= to || t[q - 1].comma || strcmp(t[q].w, "is") != 0 || !eg_sf_ours(t[q + 1].w))
    return false;
  for (q += 2; q < to && q <= s->te + 4; q++) {
    if (eg_sf_bits_of(sf->cue, t[q].w) || eg_sf_kind_bits(sf, t[q].w) ||
        eg_sf_bits_of(sf->ask, t[q].w))
      return false;
    if (eg_sf_person_noun(sf, t, q)) return true;
    if (t[q].comma) break;
  }
  return false;
}

bool eg_sf_about_someone_else(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                              const slot *s) {
  if (one_of_my_people(sf, t, to, s) || kept_for_another(sf, t, from, to, s) ||
      eg_sf_of_a_possessor(sf, t, from, s) || given_to_another(sf, t, from, to, s) ||
      persons_name(sf, t, from, to, s) ||
      (s->proper && !(s->bits & sf->place_bit) && of_the_neighbours(sf, t, to, s)))
    return true;
  /* a word for a kind of person qualifying a person of the user's: "my vegan friend is
   * coming", "the vegetarian guests" — theirs ("my piano teacher", "my Acme colleagues" say
   * the user's own: the value is no person) */
  static const char *const indef[] = {"a", "an"};
  /* … and so is a name in apposition with a kind word a person owns: "Luna, my parents'
   * spaniel, is staying with us" ("Rufus, my old lab, …" is the user's) */
  size_t q = s->te;
  if (t[q - 1].comma && q < to && eg_sf_determiner(t[q].w)) q++;
  if (t[s->te - 1].comma && q + 1 < to && !t[q].comma &&
      (eg_sf_possessive(t[q].w) || t[q].theirs) && eg_sf_person_noun(sf, t, q) &&
      eg_sf_kind_bits(sf, t[q + 1].w))
    return true;
  /* … or after it: "looking after my neighbour's cat, X, this week" */
  size_t k = s->ts; /* the kind word before the comma, at most one word between it and the owner */
  if (k >= from + 2 && t[k - 1].comma && eg_sf_kind_bits(sf, t[k - 1].w)) {
    size_t o = k - 2;
    if (o > from && !eg_sf_possessive(t[o].w) && !t[o - 1].comma) o--;
    if ((eg_sf_possessive(t[o].w) || t[o].theirs) && eg_sf_person_noun(sf, t, o)) return true;
  }
  if (s->ts > from && s->te == s->ts + 1 && s->te < to && !t[s->ts].comma &&
      eg_sf_determiner(t[s->ts - 1].w) &&
      !eg_sf_in_list(t[s->ts - 1].w, indef, sizeof indef / sizeof *indef) &&
      eg_sf_person_noun(sf, t, s->ts) && eg_sf_person_noun(sf, t, s->te))
    return true;
  if (s->ts > from && (!strcmp(t[s->ts - 1].w, "his") || !strcmp(t[s->ts - 1].w, "their"))) {
    for (size_t i = from; i < s->ts; i++)
      if (eg_sf_subject_pronoun(t[i].w)) return false;
    return true;
  }
  /* "the kids named him X", "my kids named our new kitten X": who gives the name says nothing
   * of whose it is */
  if (eg_sf_named_by_verb(sf, t, from, s->ts) || kind_named(sf, t, from, s->ts)) return false;
  /* "they live in X now", "she moved to X": a predicate whose subject is a third person's
   * pronoun before a verb is theirs, with no I or we before the value ("she's a tabby" and
   * "he is in X" say what or where the one spoken of is, and a name given to a pet, "she came
   * with the name X", is the pet's: they stay as they were) */
  static const char *const third[] = {"he", "she", "they"};
  static const char *const be[] = {"is", "are", "was", "were", "'s", "'re"};
  size_t pa, pb;
  eg_sf_predicate_span(t, from, to, s, false, &pa, &pb);
  if (!s->cued && pa + 1 < s->ts && eg_sf_in_list(t[pa].w, third, 3) &&
      !eg_sf_in_list(t[pa + 1].w, be, 6) && !eg_sf_first_person(t, pa, s->ts))
    return true;
  /* … and where one spoken of is from: "he is from X", "she's from X" (no home the user
   * left) */
  static const char *const third_be[] = {"he's", "she's", "they're"};
  size_t f = s->ts;
  if (f >= from + 2 && !strcmp(t[f - 1].w, "from") &&
      (eg_sf_in_list(t[f - 2].w, third_be, 3) ||
       (f >= from + 3 && eg_sf_in_list(t[f - 2].w, be, 6) && eg_sf_in_list(t[f - 3].w, third, 3))))
    return true;
  /* … and so is one in the progressive of the last subject before the value, a third
   * person's: "had dinner with Rosie, she's moving to X", "he is starting at X" */
  size_t subj = s->ts;
  for (size_t k = s->ts; k > pa && subj == s->ts; k--)
    if (eg_sf_subject_pronoun(t[k - 1].w) || eg_sf_in_list(t[k - 1].w, third, 3) ||
        eg_sf_in_list(t[k - 1].w, third_be, 3))
      subj = k - 1;
  size_t ing = s->ts;
  if (subj < s->ts && eg_sf_in_list(t[subj].w, third_be, 3))
    ing = subj + 1;
  else if (subj + 1 < s->ts && eg_sf_in_list(t[subj].w, third, 3) &&
           eg_sf_in_list(t[subj + 1].w, be, 6))
    ing = subj + 2;
  if (!s->cued && ing < s->ts && eg_wordnet_is_ing(&sf->wn.verbs, t[ing].w) &&
      !eg_sf_first_person(t, subj, s->ts))
    return true;
  /* … and "my sister …" opening the clause, or the slot's own predicate or sub-clause ("we
   * live in X and my parents are in Y", "I got a flat in X, my sister lives in Y") */
  size_t fa, fb;
  eg_sf_sub_clause(t, from, to, s->ts, &fa, &fb);
  size_t sub = pa > fa ? pa : fa;
  return someone_subject(sf, t, from, to, s) ||
         (sub > from && someone_subject(sf, t, sub, to, s)) || told_of_another(sf, t, from, s);
}

bool eg_sf_lasted(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  return i >= from + 4 && !strcmp(t[i - 3].w, "of") && !t[i - 3].comma && !t[i - 2].comma &&
         t[i - 1].comma && eg_sf_noun_bits(sf->periods, t[i - 1].w);
}

/* "my dog X", "our cat X", "my girlfriend X": the possessive and the cue word say the
 * state whatever the clause does with it ("I'm taking my boyfriend X to Rome next week" is
 * a plan; the boyfriend is not): the phrase alone is embedded, current unless a verb that
 * ends the state follows it ("my dog X passed away"). */
/* How many words before the slot "my" or "our" owns it: two before a cued name ("my dog
 * X"), one before a name when `named` ("my X"); 0 when none does. */
static size_t owner_at(const eg_statefacts *sf, const token *t, size_t from, const slot *s,
                       bool named) {
  size_t k = s->cued ? 2 : named ? 1 : 0;
  /* … five past how long it has lasted, set off ("my husband of 20 years, X") */
  if (s->cued && s->ts >= from + 5 && eg_sf_lasted(sf, t, from, s->ts)) k = 5;
  return k && s->ts >= from + k && eg_sf_ours(t[s->ts - k].w) ? k : 0;
}

/* Is the word t[i] between an owner and what is owned no one's own ("my new X", "my old boss
 * at X"; not "my sister's X", "my mum X")? */
static bool between_owned(const eg_statefacts *sf, const token *t, size_t i) {
  return !strchr(t[i].w, '\'') && !eg_sf_person_noun(sf, t, i);
}

bool eg_sf_ours(const char *w) { return eg_sf_in_list(w, own, sizeof own / sizeof *own); }

/* The possessives of others than the speaker ("her first week at X", "his probation"). */
bool eg_sf_theirs(const char *w) {
  static const char *const theirs[] = {"his", "her", "their", "your", "its"};
  return eg_sf_in_list(w, theirs, sizeof theirs / sizeof *theirs);
}

size_t eg_sf_held_noun(const token *t, size_t from, size_t ts) {
  /* "here" between the noun and its preposition places it where the speaker is */
  bool here =
      ts >= from + 4 && !strcmp(t[ts - 2].w, "here") && !t[ts - 2].comma && !t[ts - 3].comma;
  return ts - 2 - here;
}

size_t eg_sf_held_modifier(const token *t, size_t from, const slot *s, size_t own_at) {
  size_t noun = eg_sf_held_noun(t, from, s->ts), owner = s->ts - own_at;
  return noun == owner + 2 ? owner + 1 : 0;
}

/* The relations (bit r) the noun has by, before preposition prep (@holds: "at team"), or as
 * its singular ("my colleagues at X"). */
static unsigned holds_bits(const eg_statefacts *sf, const char *prep, const char *noun) {
  char key[72];
  snprintf(key, sizeof key, "%s %s", prep, noun);
  unsigned rels = eg_sf_bits_of(sf->holds, key);
  size_t l = strlen(key);
  if (!rels && l > 4 && key[l - 1] == 's') {
    key[l - 1] = '\0';
    rels = eg_sf_bits_of(sf->holds, key);
  }
  return rels;
}

/* "my team at X", "our office at X", "my old boss at X": a noun the user has by holding a
 * value (@holds), owned by "my" or "our" with at most one word between that is no one else's
 * ("my sister's team at X"), its preposition right before the name; and a stretch of time
 * (@period) or such a noun after an ordinal, begun at the place that preposition places a
 * value at ("First week in X", "first shift at X", "second week at X"). The relations that take
 * the name's type the phrase says (bit r; 0: none), and in *own_at how many words before the
 * name the owner stands. */
unsigned eg_sf_held_through(const eg_statefacts *sf, const token *t, size_t from, const slot *s,
                            size_t *own_at) {
  size_t ts = s->ts, k = 0;
  if (!s->proper || s->ve || ts < from + 3) return 0;
  size_t n = eg_sf_held_noun(t, from, ts) + 2; /* where the name would be without "here" */
  /* "first week in X", "my second shift at X": a stretch begun there is the user's where no one
   * else's word owns it ("her first week at X") */
  bool ordinal = eg_sf_ordinal(t[n - 3].w);
  if (eg_sf_ours(t[n - 3].w))
    k = 3;
  else if (n >= from + 4 && eg_sf_ours(t[n - 4].w) && between_owned(sf, t, n - 3))
    k = 4;
  else if (ordinal &&
           (n == from + 3 || (!eg_sf_theirs(t[n - 4].w) && !eg_sf_possessive(t[n - 4].w))))
    k = 3;
  for (size_t i = n - k; k && i < ts; i++)
    if (t[i].comma || t[i].cut) return 0;
  if (!k) return 0;
  unsigned rels = holds_bits(sf, t[ts - 1].w, t[n - 2].w);
  if (!rels && ordinal && eg_sf_bits_of(sf->periods, t[n - 2].w)) /* "first week at X" */
    rels = eg_sf_bits_of(sf->holds, t[ts - 1].w);
  unsigned ok = rels & eg_sf_takers(sf, s->bits);
  if (ok) *own_at = k + ts - n;
  return ok;
}

unsigned eg_sf_speakers_nouns(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  static const char *const preps[] = {"at", "in", "from"};
  unsigned rels = 0;
  for (size_t i = from; i + 1 < to; i++) {
    if (!eg_sf_ours(t[i].w) || t[i].comma) continue;
    /* the person, right after the owner or one word that is no one else's ("my new manager") */
    size_t n = i + 1 +
               (i + 2 < to && !t[i + 1].comma && between_owned(sf, t, i + 1) &&
                !eg_sf_person_noun(sf, t, i + 1));
    if (!eg_sf_person_noun(sf, t, n)) continue;
    for (size_t p = 0; p < sizeof preps / sizeof *preps; p++)
      rels |= holds_bits(sf, preps[p], t[n].w);
  }
  return rels;
}

unsigned eg_sf_newly_named(const eg_statefacts *sf, const token *t, const slot *s) {
  size_t i = s->ts;
  if (i < 2 || strcmp(t[i - 2].w, "new") != 0 || t[i - 2].comma) return 0;
  unsigned bits = eg_sf_bits_of(sf->ask, t[i - 1].w) & s->bits;
  int only = bits ? eg_sf_only_taker(sf, bits) : -1;
  return only >= 0 ? 1u << only : 0;
}

unsigned eg_sf_begins_at(const eg_statefacts *sf, const token *t, size_t from, const slot *s) {
  if (!s->proper || s->ts < from + 2) return 0;
  size_t o = s->ts - 2; /* the noun; the word before it, no one else's ("her probation") */
  if (o > from && (eg_sf_theirs(t[o - 1].w) || eg_sf_possessive(t[o - 1].w) || t[o - 1].theirs ||
                   eg_sf_person_noun(sf, t, o - 1)))
    return 0;
  char key[72];
  snprintf(key, sizeof key, "%s %s", t[s->ts - 1].w, t[s->ts - 2].w);
  return eg_sf_bits_of(sf->begins, key);
}

bool eg_sf_owned_name(const eg_statefacts *sf, const token *t, size_t from, const slot *s) {
  if (!s->proper || s->cued || s->bits == sf->name_types) return false;
  if (owner_at(sf, t, from, s, true)) return true;
  size_t ts = s->ts; /* one word between, lower-case */
  return ts >= from + 2 && eg_sf_ours(t[ts - 2].w) && !t[ts - 2].comma && !t[ts - 1].cap &&
         between_owned(sf, t, ts - 1);
}

bool eg_sf_acquired(const eg_statefacts *sf, const token *t, size_t from, const slot *s) {
  if (!eg_sf_owned_name(sf, t, from, s)) return false;
  size_t o = eg_sf_ours(t[s->ts - 1].w) ? s->ts - 1 : s->ts - 2; /* the owner */
  for (size_t v = o; v > from && o - v < 2 && !t[v - 1].comma; v--)
    if (eg_sf_verb_at(sf->acquires, t, v - 1, o)) return true;
  return false;
}

void eg_sf_possessed(const eg_statefacts *sf, const token *t, size_t from, size_t to, slot *s,
                     size_t *a, size_t *b) {
  /* "my dog X", or "my X" of a name whose type is known ("my Honda Civic"), or "my team at X" */
  size_t own_at = owner_at(sf, t, from, s, s->proper && s->bits != sf->name_types);
  if (!own_at && !eg_sf_held_through(sf, t, from, s, &own_at)) return;
  size_t pa, pb;
  eg_sf_predicate_span(t, from, to, s, false, &pa, &pb);
  /* "my old boss at X", "my last job at X"; an ending or a negation after a person's noun is
   * the person's ("my lead at X is leaving", "my landlord in X won't fix the boiler") */
  bool placed = own_at >= 3;
  bool person = placed && eg_sf_person_noun(sf, t, eg_sf_held_noun(t, from, s->ts));
  size_t m = placed ? eg_sf_held_modifier(t, from, s, own_at) : 0;
  if (m && (eg_sf_has_marker(sf, MK_FORMER, t, m, m + 1) || !strcmp(t[m].w, "last")))
    s->status = ST_FORMER;
  else if (!person && eg_sf_has_ending(sf, t, s->te, pb))
    s->status = ST_FORMER;
  /* a placed noun's past may be the user's ("my manager at X used to say …"): not a word on
   * the state now */
  else if (placed && eg_sf_has_past(sf, t, s->te, pb))
    s->status = ST_NOT_ASSERTED;
  /* a plan is not about the dog; "I used to walk my dog X", "I never had my dog X" are,
   * and so is a verb that ended it before ("I sold my X") */
  else if (s->status != ST_FORMER && !eg_sf_has_past(sf, t, pa, s->ts) &&
           !eg_sf_past_clause(sf, t, from, pa) &&
           !eg_sf_has_marker(sf, MK_NEGATION, t, pa, person ? s->ts : pb))
    s->status = ST_CURRENT;
  *a = s->ts - own_at;
  *b = s->te;
}

/* A value a question takes for granted: "… for my girlfriend X?", "… the oil on my X?", "…
 * tyres for my new X?" (an adjective between, no former one), "As a X, what …?", "As a
 * resident of X, am I …?" — the user's own, asked about or not. */
bool eg_sf_presupposed(const eg_statefacts *sf, const token *t, size_t from, const slot *s) {
  static const char *const indef[] = {"a", "an"};
  size_t i = s->ts, own_at;
  if (owner_at(sf, t, from, s, s->proper) || eg_sf_held_through(sf, t, from, s, &own_at))
    return true;
  if (s->proper && !s->cued && i >= from + 2 && eg_sf_ours(t[i - 2].w) &&
      between_owned(sf, t, i - 1) &&
      eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, t[i - 1].w) &&
      !eg_sf_has_marker(sf, MK_FORMER, t, i - 1, i))
    return true;
  return !s->cued &&
         ((i >= from + 2 && !strcmp(t[i - 2].w, "as") && eg_sf_in_list(t[i - 1].w, indef, 2)) ||
          (i >= from + 4 && as_one(sf, t, i - 4, s)));
}

/* Does the clause [from, to) tell of a thing come to the speaker: "the harp arrived
 * yesterday", "THE DUSTER IS HERE" — a determiner, up to four words that are no one's (no word
 * for a person, no possessive) and an @arrival marker? */
bool eg_sf_arrives(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  static const char *const det[] = {"the", "a", "an"};
  if (!eg_sf_in_list(t[from].w, det, sizeof det / sizeof *det)) return false;
  for (size_t k = from + 2; k < to && k <= from + 5; k++) {
    const char *w = t[k - 1].w;
    if (t[k - 1].comma || eg_sf_possessive(w) || eg_sf_bits_of(sf->people, w)) return false;
    if (eg_sf_marker_starts(sf, MK_ARRIVAL, t, k, to)) return true;
  }
  return false;
}

size_t eg_sf_proform(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                     const slot *last, slot *out) {
  if (!last->te) return 0;
  unsigned place = sf->place_bit, thing = ~(place | sf->person_bit | sf->org_bit);
  for (size_t k = from; k < to; k++) {
    bool there = !strcmp(t[k].w, "here") || !strcmp(t[k].w, "there");
    /* … and "that's where" opening the clause for a place or a firm ("Leith? That's where we
     * live", "Monzo? that's where I work"), "that's what" for a thing ("a 2015 Skoda Octavia?
     * that's what I drive now") */
    bool that = k == from && k + 1 < to && (!strcmp(t[k].w, "that's") || !strcmp(t[k].w, "thats"));
    unsigned those = !that || eg_sf_looks_ahead(sf, t, k, to) ? 0 /* not a plan */
                     : !strcmp(t[k + 1].w, "where")           ? place | sf->org_bit
                     : !strcmp(t[k + 1].w, "what")            ? thing
                                                              : 0;
    unsigned bits = there                   ? last->bits & place
                    : that                  ? last->bits & those
                    : !strcmp(t[k].w, "it") ? last->bits & thing
                                            : 0;
    if (!bits) continue;
    *out = (slot){k,     k + 1,      last->ts,   last->te, bits, last->proper,
                  false, ST_CURRENT, last->held, there};
    return 1;
  }
  return 0;
}

bool eg_sf_pairable(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                    const slot *who) {
  /* … nor after an article: a thing's name ("on the X payments team and we ship on fridays") */
  static const char *const placing[] = {"at",     "in",      "on",  "from", "near",
                                        "around", "outside", "the", "a",    "an"};
  size_t vs = eg_sf_value_from(who);
  if (!who->te || !who->proper || !(who->bits & sf->person_bit)) return false;
  for (size_t i = from; i < to; i++)
    if (eg_sf_kind_bits(sf, t[i].w) & who->bits & ~sf->person_bit) return false;
  if (!vs || t[vs - 1].cut) return true;
  const char *prev = t[vs - 1].w;
  return !eg_sf_in_list(prev, placing, sizeof placing / sizeof *placing) &&
         !(eg_sf_bits_of(sf->people, prev) && !(eg_sf_bits_of(sf->cue, prev) & sf->person_bit) &&
           !eg_sf_indefinite(prev));
}
