/*
 * statefacts_clause.c — whose a clause is and what it asserts of its slot: whether a sentence
 * speaks of the speaker, whether a slot stands in the speaker's own predicate, what a question
 * asks, a predicate dated later than it was said, and the sentences chat writes with no verb.
 */
#include <stdint.h>
#include <string.h>

#include "lang/dates.h"
#include "lang/statefacts_int.h"
#include "lang/wordnet.h"

/* Does [from, to) open with "new" or "first", "the" before it or not, and a kind of thing or
 * animal one keeps or a word for one (@generic: "the new pup is called X", "New car is a X", "the
 * new car's a X", "New job is at X", "first car is a X")? Chat's word for the speaker's newly got
 * one (not "the new manager", a person, nor "the new office", the firm's). */
static bool the_new_kind(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  size_t i = from < to && !strcmp(t[from].w, "the") ? from + 1 : from;
  if (i + 1 >= to || (strcmp(t[i].w, "new") != 0 && strcmp(t[i].w, "first") != 0) || t[i].comma)
    return false;
  char w[32];
  eg_sf_unpossessed(t[i + 1].w, w, sizeof w); /* "car's": "car is" */
  /* a first one said to be, now ("first car is a X"; not "the first car was a X", long gone) */
  if (!strcmp(t[i].w, "first") && strcmp(w, t[i + 1].w) == 0 &&
      !(i + 2 < to && !strcmp(t[i + 2].w, "is")))
    return false;
  return (eg_sf_kind_bits(sf, w) & ~sf->person_bit) || eg_sf_bits_of(sf->generic, w);
}

/* Does [from, to) open with "the" and a kind word of a thing or animal one keeps, whose name it
 * gives ("the dog is called X", "the kitten's name is X", "the kitten has a name now - X")?
 * Chat names the household's own so (not "the guy is called X", "the company is called X", "the
 * town is called X"). */
static bool the_kind_named(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  if (from + 3 >= to || strcmp(t[from].w, "the") != 0 || t[from + 1].comma) return false;
  char w[32];
  eg_sf_unpossessed(t[from + 1].w, w, sizeof w);
  if (!(eg_sf_kind_bits(sf, w) & ~(sf->person_bit | sf->org_bit | sf->place_bit))) return false;
  for (size_t k = from + 2; k < to && k < from + 6; k++) {
    if (eg_sf_naming_verb(sf, t[k].w) || !strcmp(t[k].w, "name")) return true;
    if (t[k].comma) break;
  }
  return false;
}

/* Does [from, to) open with the bare word "home", words of time only, and a copula ("Home these
 * days is a studio in X", "home is now X", "Home for the time being is X"; not "Home office is in
 * X")? The speaker's home, as chat says it: the copula's index, 0 when it does not. */
static size_t bare_home(const token *t, size_t from, size_t to) {
  static const char *const be[] = {"is", "has"};
  static const char *const time[] = {"these", "days",      "for",      "now",   "right",
                                     "at",    "the",       "moment",   "time",  "being",
                                     "then",  "currently", "nowadays", "though"};
  if (from + 2 >= to || strcmp(t[from].w, "home") != 0 || t[from].comma) return 0;
  for (size_t k = from + 1; k < to && k < from + 6; k++) {
    if (eg_sf_in_list(t[k].w, be, sizeof be / sizeof *be)) return k;
    if (t[k].comma || !eg_sf_in_list(t[k].w, time, sizeof time / sizeof *time)) break;
  }
  return 0;
}

/* Is the slot said to be home, the speaker's by the bare word ("X is home now", "X has been
 * home since May", "X feels like home", "home is X")? Not "home to" (what a place holds). */
bool eg_sf_home_of_speaker(const token *t, size_t from, size_t to, const slot *s) {
  static const char *const be[] = {"is", "'s", "feels", "became", "becomes"};
  size_t k = s->te;
  if (k + 1 < to && !strcmp(t[k].w, "has") && !strcmp(t[k + 1].w, "been"))
    k++;
  else if (k < to && !strcmp(t[k].w, "been") && eg_sf_possessive(t[k - 1].w))
    ; /* "X's been home since May": "has" in the clitic */
  else if (!(k < to && eg_sf_in_list(t[k].w, be, sizeof be / sizeof *be)))
    k = to;
  if (++k < to && !strcmp(t[k].w, "like")) k++;
  if (k < to && !strcmp(t[k].w, "home") && !(k + 1 < to && !strcmp(t[k + 1].w, "to"))) return true;
  if (s->ts >= from + 2 && !strcmp(t[s->ts - 2].w, "home") && eg_sf_in_list(t[s->ts - 1].w, be, 2))
    return true;
  size_t cop = bare_home(t, from, to); /* "home is now X", "Home these days is a flat in X" */
  return cop && s->ts > cop;
}

/* Is w "I" or "we" as a subject, chat's "im" and "ive" too? */
static bool speaker_subject(const char *w) {
  return eg_sf_subject_pronoun(w) || !strcmp(w, "im") || !strcmp(w, "ive");
}

/* Is the sub-clause [a, b) the speaker's with its subject dropped, or said by "I" or "we":
 * one opening with a verb ("finally did it"), with "I" or "we" ("I'm knackered"), or with no
 * verb, no one else's word, no name and no person at its head ("crazy week", "quick q", "need
 * help with a council tax query"; not "my sister", "Jake", "mum")? */
static bool speakers_sub_clause(const eg_statefacts *sf, const token *t, size_t a, size_t b) {
  size_t i = eg_sf_past_adverbs(sf, t, a, b);
  if (i < b && speaker_subject(t[i].w)) return true;
  if (eg_sf_verb_first(sf, t, a, b)) return true;
  if (!eg_sf_verbless(sf, t, a, b)) return false;
  for (size_t k = a; k < b; k++)
    if ((t[k].cap &&
         !(t[k].start && (eg_sf_function_word(t[k].w) ||
                          eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, t[k].w)))) ||
        t[k].theirs || eg_sf_theirs(t[k].w) || eg_sf_possessive(t[k].w))
      return false;
  return !eg_sf_person_noun(sf, t, b - 1); /* its head no one ("my sister", "mum") */
}

bool eg_sf_subject_carried(const eg_statefacts *sf, const token *t, size_t from, size_t a,
                           size_t b) {
  if (a <= from || !t[a - 1].comma || !eg_sf_verb_first(sf, t, a, b)) return false;
  size_t open = a - 1;
  while (open > from && !t[open].start) open--;
  for (size_t k = open; k < a;) { /* every sub-clause before it */
    size_t e = k;
    while (e + 1 < a && !t[e].comma) e++;
    if (!speakers_sub_clause(sf, t, k, e + 1)) return false;
    k = e + 1;
  }
  return true;
}

/* Does a sub-clause of the sentence [from, to) after its first carry the speaker as its
 * dropped subject (eg_sf_subject_carried)? */
static bool carries_subject(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  for (size_t k = from + 1; k < to; k++) {
    if (!t[k - 1].comma) continue;
    size_t e = k;
    while (e + 1 < to && !t[e].comma) e++;
    if (eg_sf_subject_carried(sf, t, from, k, e + 1)) return true;
  }
  return false;
}

/* Does the sentence [from, to) speak of the speaker? */
bool eg_sf_speaks_of_self(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                          bool fragments) {
  /* a pictograph parts sentences as a stop does: "ok it's happening 😅 signed a lease …" */
  for (size_t k = from + 1; k < to; k++)
    if (t[k - 1].pict && eg_sf_opens_with_verb(sf, t, k, to)) return true;
  /* in a question, a sub-clause before the one that asks says something of its own ("Not
   * vegan anymore, what are some good high protein meals?"): a fragment there is the speaker's */
  size_t fa, fb;
  eg_sf_sub_clause(t, from, to, from, &fa, &fb);
  bool before_asking = t[to - 1].ask && fb < to;
  return the_new_kind(sf, t, from, to) || the_kind_named(sf, t, from, to) ||
         bare_home(t, from, to) || eg_sf_first_person(t, from, to) ||
         eg_sf_opens_with_verb(sf, t, from, to) || eg_sf_its_been(t, from, to) ||
         (fragments && (eg_sf_verbless(sf, t, from, to) ||
                        (before_asking && eg_sf_verbless(sf, t, from, fb)))) ||
         eg_sf_arrives(sf, t, from, to) || carries_subject(sf, t, from, to);
}

/* Does a word that takes what follows as given open a clause of the speaker's after what the
 * question asks, between a and token i, with no question of its own between it and i ("… now
 * that I've moved to X?", "… since I went X last month?", "… because we live in X?"; not "…
 * if I move to X?", nor "since I'm retired would it make sense to move to X?", where the
 * granted clause opens the question and the asking follows)? */
static bool granted(const token *t, size_t a, size_t i) {
  static const char *const given[] = {"since", "because", "cause", "cos", "coz", "as"};
  static const char *const inverted[] = {"should", "would", "could", "can", "shall", "will",
                                         "do",     "does",  "did",   "is",  "are",   "am",
                                         "was",    "were",  "have",  "has", "may",   "might"};
  for (size_t k = a + 1; k + 1 < i; k++) {
    size_t subj = !strcmp(t[k].w, "now") && !strcmp(t[k + 1].w, "that")        ? k + 2
                  : eg_sf_in_list(t[k].w, given, sizeof given / sizeof *given) ? k + 1
                                                                               : i;
    if (subj >= i || !speaker_subject(t[subj].w)) continue;
    for (size_t q = subj + 1; q + 1 < i; q++) /* "… should I …", "… is it …" */
      if (eg_sf_in_list(t[q].w, inverted, sizeof inverted / sizeof *inverted) &&
          (eg_sf_subject_pronoun(t[q + 1].w) || !strcmp(t[q + 1].w, "it") ||
           !strcmp(t[q + 1].w, "you")))
        return false;
    return true;
  }
  return false;
}

/* Is token i of the clause [from, to) in what a question asks? In a question, a sub-clause
 * before the one that asks, and no question itself, says something: "I've gone pescatarian,
 * any easy recipes?", "Now that I'm based in X, what …?" (not "If I move to X, should I …?",
 * "When we get to X, what …?"). */
bool eg_sf_asked(const token *t, size_t from, size_t to, size_t i) {
  static const char *const asking[] = {
      "what", "where",   "when",   "which", "who",    "whom",   "whose", "why",  "how",
      "if",   "whether", "should", "would", "could",  "can",    "do",    "does", "did",
      "is",   "are",     "am",     "was",   "were",   "will",   "shall", "may",  "might",
      "have", "has",     "or",     "any",   "anyone", "anybody"};
  if (!t[to - 1].ask) return false;
  size_t a, b;
  eg_sf_sub_clause(t, from, to, i, &a, &b);
  return (b >= to || eg_sf_in_list(t[a].w, asking, sizeof asking / sizeof *asking)) &&
         !granted(t, a, i);
}

/* When the predicate of the slot [ts, te) (within the clause [from, to)) names a day after the
 * day `said` (UTC date; 0 = unknown: none): that day's start, else 0. A value dated later is a plan
 * ("got an interview at X next week", "I pick up the X this weekend"), not a state. Its own
 * predicate only: from the word that joins it to what comes before, within its sub-clause, up to
 * the next such word — not "I work at X and my review is next week", "I live in X until next
 * month", "X, our new beagle, is settling in, the vet visit is next Tuesday". */
int64_t eg_sf_dated_later(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                          size_t ts, size_t te, const eg_date *dates, size_t nd, int64_t said) {
  if (!said || !nd) return 0;
  size_t a, b, q = ts;
  eg_sf_sub_clause(t, from, to, ts, &a, &b);
  int64_t day_end = eg_sf_day_end(said);
  /* an apposition, no verb of its own ("we're getting a pup next week, a lurcher"): dated as
   * what it renames, by the sub-clause before it */
  bool verb = false;
  for (size_t k = a; k < b && !verb; k++)
    verb = (k < ts || k >= te) && !eg_sf_determiner(t[k].w) &&
           eg_wordnet_is_verb(&sf->wn.verbs, t[k].w);
  if (!verb && a > from && t[a - 1].comma) {
    size_t pa, pb;
    eg_sf_sub_clause(t, from, to, a - 1, &pa, &pb);
    return eg_sf_dated_in(dates, nd, t[pa].s, t[b - 1].e, day_end, eg_sf_looks_ahead(sf, t, pa, b));
  }
  while (q > a && !eg_sf_joint(t[q - 1].w, false)) q--;
  /* the value as the predicate's subject ("X's moving in with me next month", "my dog X goes
   * to the vet tomorrow"), or a place the speaker is visited at ("mum is coming to visit us in X
   * this weekend"): what is dated is what is done, not that it is the user's */
  if (eg_sf_opens_predicate(sf, t, q, ts) || eg_sf_visited_at(sf, t, a, ts, te, b)) return 0;
  size_t r = te;
  while (r < b && !eg_sf_joint(t[r].w, false)) r++;
  return eg_sf_dated_in(dates, nd, t[q].s, t[r - 1].e, day_end, eg_sf_looks_ahead(sf, t, q, r));
}

/* Is the slot in a predicate of the user's? The predicate is the stretch of the sentence
 * between the words that start predicates ("and", "but", "since" …) around the slot: in
 * "I drive a Mazda 3 and the X is blowing warm air" the X is the subject of another
 * predicate, one that says nothing of the user. */
static bool opens_clause(const char *w) { /* "and", "but" … not adverbs ("now", "then") */
  return eg_sf_joint(w, false) && strcmp(w, "now") != 0 && strcmp(w, "then") != 0;
}

/* Does a predicate opening with w name its own subject (a pronoun, a determiner and its
 * noun, a name)? One that opens with a verb shares the one before it: "… and picked up
 * X", "before joining X". */
static bool own_subject(const token *w) {
  static const char *const subj[] = {
      "he",  "she",   "it",   "they",  "you",   "there",   "this", "that",  "the",    "a",
      "an",  "his",   "her",  "their", "its",   "your",    "i",    "we",    "my",     "our",
      "i'm", "we're", "it's", "i've",  "we've", "they're", "he's", "she's", "there's"};
  return w->cap || eg_sf_in_list(w->w, subj, sizeof subj / sizeof *subj);
}

/* The slot's predicate: [a, b) between the words that open clauses; with `shared`, a
 * predicate without its own subject reaches back to the one whose subject it shares. */
void eg_sf_predicate_span(const token *t, size_t from, size_t to, const slot *s, bool shared,
                          size_t *a, size_t *b) {
  *a = s->ts;
  for (;;) {
    while (*a > from && !opens_clause(t[*a - 1].w)) (*a)--;
    if (!shared || *a <= from + 1 || *a == s->ts || own_subject(&t[*a])) break;
    (*a)--; /* past the joint, into the predicate whose subject this one shares */
  }
  *b = s->te;
  while (*b < to && !opens_clause(t[*b].w)) (*b)++;
}

/* A sentence with no verb of its own up to its first joint ("Three months into X and down
 * eight kilos", "First week in X", "Not X anymore"): a note about the speaker, the subject
 * dropped with the verb, as chat does. A verb is a past form, an auxiliary or a modal, a word
 * with an apostrophe ("it's", "she'll", and possessives with them), or a word that may be a
 * present in -s ("lives"; "plans" too: in doubt, a verb). */
bool eg_sf_verbless(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  static const char *const aux[] = {
      "is",   "are", "am",   "was",   "were", "be",    "been",   "has",   "have", "had",   "do",
      "does", "did", "will", "would", "can",  "could", "should", "shall", "may",  "might", "must"};
  /* participles that are no past tense: without an auxiliary, no verb of a clause ("First
   * week at X done!", "keys to the X flat taken") */
  static const char *const participle[] = {
      "done",   "gone",   "seen",   "taken",     "given",  "eaten",  "written", "begun",
      "known",  "driven", "flown",  "grown",     "shown",  "chosen", "broken",  "spoken",
      "stolen", "gotten", "ridden", "sworn",     "torn",   "worn",   "woken",   "sung",
      "rung",   "drunk",  "swum",   "forgotten", "hidden", "bitten", "frozen",  "shaken"};
  for (size_t i = from; i < to && !opens_clause(t[i].w); i++) {
    const char *w = t[i].w, *dash = strrchr(w, '-');
    if (dash && dash[1]) w = dash + 1; /* "test-drove": its head */
    if (eg_sf_in_list(w, aux, sizeof aux / sizeof *aux) || strchr(w, '\'') ||
        (eg_wordnet_is_past(&sf->wn.verbs, w) &&
         !eg_sf_in_list(w, participle, sizeof participle / sizeof *participle)) ||
        eg_wordnet_is_present3(&sf->wn.verbs, w))
      return false;
  }
  return true;
}

bool eg_sf_users_predicate(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                           const slot *s, bool fragments) {
  size_t a, b;
  eg_sf_predicate_span(t, from, to, s, true, &a, &b);
  if (eg_sf_where_clause(t, s->te, to) || eg_sf_home_of_speaker(t, from, to, s))
    return true; /* "X, where I live, …", "X is home now" */
  /* a second object after "and", ending its predicate, is the first one's verb's ("we sold the
   * house and the X"; not "X and Y hardly overlap", "and X in January doesn't help") */
  size_t verb_from = eg_sf_predicate_start(sf, t, from, to, s, false);
  if (verb_from < a && s->te == b) a = verb_from;
  if (eg_sf_its_been(t, a, b)) return true;
  /* "X and I split up", "me and X hit 2 years": the slot and the user share the predicate */
  bool shared =
      eg_sf_with_me(t, from, to, s->ts, s->te) ||
      (s->te + 1 < to && !strcmp(t[s->te].w, "and") &&
       eg_sf_first_person(t, s->te + 1, s->te + 2) &&
       eg_sf_verbless(sf, t, a, s->ts)); /* the slot a subject: not "Tom moved to X and I …" */
  /* a sentence opening with a joint ("So X from October!", "And now X") opens the predicate
   * after it */
  bool joint = a == from + 1 && opens_clause(t[from].w);
  for (size_t k = a + 1; k <= s->ts; k++) /* "… 😅 signed a lease in X" */
    if (t[k - 1].pict && eg_sf_opens_with_verb(sf, t, k, b)) return true;
  /* in a question, a fragment before the sub-clause that asks ends there (speaks_of_self) */
  size_t sa, sb;
  eg_sf_sub_clause(t, from, to, s->ts, &sa, &sb);
  size_t vb = t[to - 1].ask && sb < to && sb < b ? sb : b;
  if (shared || eg_sf_first_person(t, a, b) || (a == from && the_new_kind(sf, t, from, b)) ||
      (a <= sa && eg_sf_subject_carried(sf, t, from, sa, sb)) ||
      ((a == from || joint) &&
       (eg_sf_opens_with_verb(sf, t, from, b) || (fragments && eg_sf_verbless(sf, t, a, vb)))))
    return true;
  /* a past verb right after the joint shares the subject that opens the sentence, the
   * speaker's ("I'm a Londoner born and bred but moved to X"; not "my sister … but moved") */
  size_t open = from;
  while (open > 0 && !t[open].start) open--;
  if (joint && open < from && eg_wordnet_is_past(&sf->wn.verbs, t[a].w) &&
      (eg_sf_subject_pronoun(t[open].w) ||
       (open + 1 < from && eg_sf_subject_pronoun(t[open + 1].w) && !t[open].comma &&
        eg_sf_ly_adverb(sf, t[open].w))))
    return true;
  /* so does a joint after a comma opening a predicate with no verb ("the dietitian said fish
   * matters, so technically X now"): its subject dropped, as chat drops the speaker */
  size_t oa, ob;
  eg_sf_predicate_span(t, from, to, s, false, &oa, &ob);
  return fragments && oa > from + 1 && t[oa - 2].comma && opens_clause(t[oa - 1].w) &&
         eg_sf_verbless(sf, t, oa, ob);
}

/* Does the sentence opening at `from` say what the speaker is with the subject and "am"
 * dropped, as chat does: no verb in its first sub-clause, and "a" or "an" the first word past
 * its adverbs ("officially a X person", "now a proud X resident"; not "A X friend of mine is
 * visiting")? */
bool eg_sf_copula_dropped(const eg_statefacts *sf, const token *t, size_t from) {
  if (!t[from].start) return false;
  size_t to = from + 1; /* to the end of its first sub-clause ("Finally a X resident, the …") */
  while (!t[to - 1].cut && !t[to - 1].comma) to++; /* the last token ends a sentence */
  size_t i = eg_sf_past_adverbs(sf, t, from, to);
  return (!strcmp(t[i].w, "a") || !strcmp(t[i].w, "an")) && eg_sf_verbless(sf, t, from, to);
}
