/*
 * statefacts_slots.c — where a clause may hold a value (see statefacts.c, step 3): the
 * capitalised spans and lower-case names, typed by WordNet's instances, by the kind word they
 * are bound to ("my wife X", "a dog named X", "X, my hamster") or by the speaker's company
 * ("X and I"); the makes and models chat writes in lower case; common nouns of a type; the
 * user's held values, named in full or in part; and the names a session uses mid-sentence.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lang/dates.h"
#include "lang/statefacts_int.h"
#include "lang/wordnet.h"

/* A capitalised span [i, j): its lower-case text. */
void eg_sf_span_key(const token *t, size_t i, size_t j, char *out, size_t len) {
  size_t at = 0;
  out[0] = '\0';
  for (size_t k = i; k < j && at < len; k++) {
    char w[32]; /* the last word's clitic "'s" aside: "York's" is York */
    if (k + 1 == j)
      eg_sf_unpossessed(t[k].w, w, sizeof w);
    else
      snprintf(w, sizeof w, "%s", t[k].w);
    at += (size_t)snprintf(out + at, len - at, "%s%s", k > i ? " " : "", w);
  }
}

/* The held values of ctx of a relation with types (an entity's name or a word), into sn->held. */
void eg_sf_learn_held(const eg_statefacts *sf, const eg_enrich_ctx *ctx, session_names *sn) {
  sn->held.n = 0;
  sn->pending = ctx && ctx->n_prospects;
  sn->won = -1;
  for (size_t i = 0; sn->pending && i < ctx->n_prospects; i++) {
    int r = eg_sf_relation(sf, ctx->prospects[i].relation);
    if (r < 0 || (i && r != sn->won)) {
      sn->won = -1;
      break;
    }
    sn->won = r;
  }
  for (size_t i = 0; ctx && i < ctx->n_held && sn->held.n < EG_STATEFACTS_KNOWN; i++) {
    unsigned bits = eg_statefacts_relation_types(sf, ctx->held[i].relation);
    if (!bits || !ctx->held[i].value || !*ctx->held[i].value) continue;
    sn->held_word[sn->held.n] = ctx->held[i].literal;
    sn->held_ix[sn->held.n] = i;
    eg_sf_known_add(&sn->held, ctx->held[i].value, bits);
  }
}

void eg_sf_known_add(eg_statefacts_known *k, const char *value, unsigned bits) {
  if (k->n >= EG_STATEFACTS_KNOWN) return;
  char *w = k->words[k->n];
  size_t at = 0;
  for (const char *c = value; *c && at + 1 < sizeof k->words[0]; c++)
    if (*c != ' ' || (at && w[at - 1] != ' ')) w[at++] = (char)tolower((unsigned char)*c);
  while (at && w[at - 1] == ' ') at--;
  w[at] = '\0';
  k->bits[k->n] = bits;
  k->n += at > 0;
}

/* Does word w (of a token) match v's next word, its clitic "'s" aside? Sets *rest past it. */
static bool held_word(const char *v, const char *w, const char **rest) {
  size_t l = strlen(w);
  if (eg_sf_possessive(w) && strncmp(v, w, l) != 0) l -= 2; /* "hamish's" */
  if (strncmp(v, w, l) != 0 || (v[l] != ' ' && v[l] != '\0')) return false;
  *rest = v[l] ? v + l + 1 : v + l;
  return true;
}

/* Are word w (its clitic "'s" aside) and the first word of a person's name v one name, the
 * one cut short as a nickname is ("rafa" and "rafael", "samuel" and "sam smith"): at least
 * three letters of the other? */
static bool nickname(const char *w, const char *v) {
  size_t l = strlen(w), lv = strcspn(v, " ");
  if (eg_sf_possessive(w)) l -= 2;
  size_t shorter = l < lv ? l : lv;
  return shorter >= 3 && l != lv && !strncmp(v, w, shorter);
}

/* 1 + the index of the user's held value that tokens [i, …) of the clause [i, to) name in
 * full (a person's by a nickname too), the longest (0 for none; *end: where it ends). Lower case
 * too ("rufus keeps pulling"), but a lone word in lower case that is a word of its own is that word
 * ("biscuit" is food) … */
static size_t held_at(const eg_statefacts *sf, const session_names *sn, const token *t, size_t i,
                      size_t to, size_t *end) {
  size_t best = 0;
  for (size_t k = 0; sn && k < sn->held.n; k++) {
    const char *v = sn->held.words[k];
    size_t j = i;
    while (j < to && *v && held_word(v, t[j].w, &v)) j++;
    if (*v || j == i) {
      if (j != i || !(sn->held.bits[k] & sf->person_bit) || !nickname(t[i].w, v)) continue;
      j = i + 1; /* "rafa" of "Rafael" */
    }
    /* … unless it opens the sentence before a verb that ends a state: "tofu passed away" */
    bool word = j == i + 1 && !t[i].cap &&
                eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, t[i].w) &&
                !(t[i].start && eg_sf_ends_at(sf, t, j, to));
    if (!word && (!best || j > *end)) best = k + 1, *end = j;
  }
  return best;
}

/* The type of a value named in full elsewhere that the span [i, j) names in part: its last
 * words ("Leaf" of "Nissan Leaf") or, alone, its first ("Brightwater"); 0 for none. */
static size_t part_of(const eg_statefacts_known *kn, const char *key, size_t words) {
  for (size_t k = 0; kn && k < kn->n; k++) {
    const char *v = kn->words[k];
    size_t lv = strlen(v), lk = strlen(key);
    if (lk >= lv) continue;
    if ((v[lv - lk - 1] == ' ' && !strcmp(v + lv - lk, key)) ||
        (words == 1 && !strncmp(v, key, lk) && v[lk] == ' '))
      return k + 1;
  }
  return 0;
}

/* 1 + the index of the user's held value that the lower-case word w names in full ("sold the
 * golf"), or 0: the name of a thing (not a person's nor a pet's, named with no article; not a
 * word held, "banjo", which the word's own kind reads) */
static size_t whole_held(const eg_statefacts *sf, const session_names *sn, const char *w) {
  for (size_t k = 0; sn && k < sn->held.n; k++)
    if ((sn->held.bits[k] & ~sf->cue_types) && !sn->held_word[k] && !strcmp(sn->held.words[k], w))
      return k + 1;
  return 0;
}

/* 1 + the index of the user's held value (sn->held) that the common word key is another word
 * for, of a type in bits ("uke" while "ukulele" is held): that value named again; 0 for none. */
static size_t synonym_held(const eg_statefacts *sf, const session_names *sn, const char *key,
                           unsigned bits) {
  for (size_t k = 0; sn && k < sn->held.n; k++)
    if ((sn->held.bits[k] & bits) && eg_sf_synonyms(sf, key, sn->held.words[k], bits)) return k + 1;
  return 0;
}

/* 1 + the index of a value named in full elsewhere that the lower-case words from i spell out
 * whole (up to `to`), their end in *end ("a test rig at siemens", "siemens" known); 0 for
 * none. One word that is also a common word names it only where a name is placed ("at
 * siemens", a unit's name too; not "we play golf") */
static size_t lower_known(const eg_statefacts *sf, const session_names *sn, const token *t,
                          size_t from, size_t i, size_t to, size_t *end) {
  static const char *const placed[] = {"at", "for", "in", "from", "near", "with"};
  bool named = i > from && eg_sf_in_list(t[i - 1].w, placed, sizeof placed / sizeof *placed);
  for (size_t k = 0; sn && sn->known && k < sn->known->n; k++) {
    const char *v = sn->known->words[k];
    size_t first = strcspn(v, " "), words = 1; /* its first word opens the token, or no match */
    if (strncmp(v, t[i].w, first) != 0) continue;
    for (const char *p = v + first; *p; p++) words += *p == ' ';
    if (i + words > to) continue;
    char key[64];
    eg_sf_span_key(t, i, i + words, key, sizeof key);
    bool plain = true; /* no comma inside it, no capitalised word but the first */
    for (size_t w = i; w + 1 < i + words; w++) plain &= !t[w].comma && !t[w + 1].cap;
    if (plain && !strcmp(key, v) &&
        (words > 1 || named || !eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, key))) {
      *end = i + words;
      return k + 1;
    }
  }
  return 0;
}

/* Is the word at i, a value's word WordNet also has as an adjective, right before the plural of
 * a kind word (@generic: "cars", "dogs", "instruments")? It then names a class ("the range of
 * electric cars"), no one's value. */
static bool class_qualifier(const eg_statefacts *sf, const token *t, size_t i, size_t to) {
  if (i + 1 >= to || t[i].comma || !eg_sf_bits_of(sf->generic, t[i + 1].w)) return false;
  size_t l = strlen(t[i + 1].w);
  return l > 3 && t[i + 1].w[l - 1] == 's' &&
         eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, t[i].w);
}

static unsigned known_part(const session_names *sn, const char *key, size_t words) {
  size_t k = sn ? part_of(sn->known, key, words) : 0;
  return k ? sn->known->bits[k - 1] : 0;
}

static bool is_session_name(const session_names *sn, const char *w) {
  for (size_t i = 0; sn && i < sn->n; i++)
    if (!strcmp(sn->w[i], w)) return true;
  return false;
}

/* A capital that may start a name: not a word in capitals for emphasis ("escaped AGAIN"; it
 * may go on one: "World War II", "Apple TV"). */
static bool name_cap(const eg_statefacts *sf, const token *w) {
  return w->cap && !(w->shout && eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, w->w));
}

bool eg_sf_plain_noun(const eg_statefacts *sf, const token *w) {
  size_t l = strlen(w->w);
  return !w->cap && !w->digit && !eg_sf_not_a_name(w->w) && !eg_sf_joint(w->w, true) &&
         !eg_sf_determiner(w->w) && eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, w->w) &&
         !eg_wordnet_is_past(&sf->wn.verbs, w->w) && !eg_wordnet_is_present3(&sf->wn.verbs, w->w) &&
         !(l > 4 && (!strcmp(w->w + l - 3, "ing") || !strcmp(w->w + l - 2, "ly")));
}

bool eg_sf_qualifier(const eg_statefacts *sf, const token *t, size_t q, size_t to) {
  static const char *const cross[] = {"mix",    "cross", "mutt", "crossbreed",
                                      "rescue", "boy",   "girl", "baby"};
  if (q + 1 >= to || t[q].comma || t[q].cut) return false;
  const token *n = &t[q + 1];
  return eg_sf_plain_noun(sf, n) && !eg_sf_function_word(n->w) &&
         !eg_sf_number_word(n->w) && /* "a kitten two weeks ago" */
         !eg_sf_copula(n->w) && strcmp(n->w, "has") != 0 && strcmp(n->w, "had") != 0 &&
         !eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, n->w) && /* "a beagle so …" */
         !eg_sf_kind_bits(sf, n->w) && !eg_sf_in_list(n->w, cross, sizeof cross / sizeof *cross);
}

/* The kind bits of a kind word at q, no person's, where it heads its noun phrase
 * (eg_sf_qualifier); 0. */
static unsigned head_kind(const eg_statefacts *sf, const token *t, size_t q, size_t to) {
  return eg_sf_qualifier(sf, t, q, to) ? 0 : eg_sf_kind_bits(sf, t[q].w) & ~sf->person_bit;
}

/* How many words at p, before `to`, say "he is" or "she is": 1 for "he's", "shes"; 2 for "he
 * is", "she was"; 0 for none. */
static size_t he_is_at(const token *t, size_t p, size_t to) {
  static const char *const he_is[] = {"he's", "she's", "hes", "shes"}, *const he[] = {"he", "she"};
  static const char *const be[] = {"is", "was", "'s"};
  if (p >= to) return 0;
  if (eg_sf_in_list(t[p].w, he_is, 4)) return 1;
  return p + 1 < to && eg_sf_in_list(t[p].w, he, 2) && eg_sf_in_list(t[p + 1].w, be, 3) ? 2 : 0;
}

/* The kind a "he" or "she" at p is said to be ("he's a beagle", "she is a ginger tabby", "hes
 * a 12 week old dachshund mix"): a kind word heading its phrase up to five words on, before
 * any word for a person or preposition, and no word for a person itself; 0. */
static unsigned pronoun_kind(const eg_statefacts *sf, const token *t, size_t p, size_t nt) {
  static const char *const a[] = {"a", "an"};
  size_t q = p + he_is_at(t, p, nt);
  if (q == p || q >= nt || t[q - 1].comma || t[q - 1].cut || !eg_sf_in_list(t[q].w, a, 2)) return 0;
  for (size_t k = q + 1; k < nt && k < q + 6; k++) {
    char pair[72]; /* "a german shepherd", "a guinea pig" */
    snprintf(pair, sizeof pair, "%s %s", t[k].w, k + 1 < nt ? t[k + 1].w : "");
    unsigned two = !t[k].comma && k + 1 < nt ? eg_sf_bits_of(sf->common, pair) : 0;
    if ((two &= sf->kind_types & ~sf->person_bit)) return two;
    unsigned b = eg_sf_kind_bits(sf, t[k].w);
    if (b && eg_sf_bits_of(sf->people, t[k].w)) return 0; /* "he's a boxer": a fighter too */
    if (b) return head_kind(sf, t, k, nt);
    /* "he's a vet with a dog", "he's a bit of a snake": no kind said of him */
    if (t[k].comma || t[k].cut || eg_sf_bits_of(sf->people, t[k].w) || eg_sf_function_word(t[k].w))
      break;
  }
  return 0;
}

static bool bare_subject(const eg_statefacts *sf, const token *t, size_t i, size_t to);

/* May the capital at k be a name a "he" or "she" stands for: none that a word opening its
 * sentence is ("Walked X …", "Rain all day …"; but "Biscuit keeps …", bare_subject), nor a place
 * or a role after its preposition ("took Max to Cornwall", "going as Ghostbusters", "looks
 * like X"; "a walk with X" may be)? Returns 1 for one, 0 for a word to pass over, -1 for a
 * word opening its sentence that is no name: what is said before it is another sentence's. */
static int may_name(const eg_statefacts *sf, const token *t, size_t k, size_t nt) {
  static const char *const placing[] = {"to",     "in",  "at", "from", "near", "into", "around",
                                        "across", "for", "as", "like", "of",   "via"};
  const token *w = &t[k];
  if (!name_cap(sf, w) || w->digit || eg_sf_not_a_name(w->w)) return 0;
  if (w->start && (eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, w->w) ||
                   eg_wordnet_is_verb(&sf->wn.verbs, w->w)))
    return bare_subject(sf, t, k, nt) ? 1 : -1;
  if (k > 0 && !w->start &&
      ((t[k - 1].cap && !t[k - 1].start) ||
       eg_sf_in_list(t[k - 1].w, placing, sizeof placing / sizeof *placing)))
    return 0;
  return 1;
}

/* Does the "he" or "she" at p stand for the name [i, j) before it: no other name, kind word
 * nor word for a person between them ("got a puppy, he's a spaniel"; "my sister came, she's a
 * vet"; a person a preposition governs aside: "took X to the vet, she's a tabby"), and no word
 * for a person right before the name ("my son Leo")? */
static bool stands_for(const eg_statefacts *sf, const token *t, size_t i, size_t j, size_t p) {
  static const char *const prep[] = {"to", "with", "at", "from", "for", "by"};
  if (p - j > 40 || (i > 0 && eg_sf_bits_of(sf->people, t[i - 1].w))) return false;
  for (size_t k = j; k < p; k++) {
    bool governed = (k >= 1 && eg_sf_in_list(t[k - 1].w, prep, 6)) ||
                    (k >= 2 && eg_sf_in_list(t[k - 2].w, prep, 6));
    if ((eg_sf_kind_bits(sf, t[k].w) & ~sf->person_bit) ||
        (eg_sf_bits_of(sf->people, t[k].w) && !governed) || may_name(sf, t, k, p) > 0)
      return false;
  }
  return true;
}

/* The one-word name a "he" or "she" at p stands for (stands_for): the nearest before it in the
 * message that may be one (may_name); nt for none. */
static size_t antecedent(const eg_statefacts *sf, const token *t, size_t p, size_t nt) {
  for (size_t k = p; k > 0 && p - k < 40; k--) {
    int m = may_name(sf, t, k - 1, nt);
    if (m < 0) return nt;
    if (m > 0) return stands_for(sf, t, k - 1, k, p) ? k - 1 : nt;
  }
  return nt;
}

unsigned eg_sf_kinded(const session_names *sn, const char *w) {
  for (size_t i = 0; sn && i < sn->n_kinded; i++)
    if (!strcmp(sn->kinded[i], w)) return sn->kinded_bits[i];
  return 0;
}

void eg_sf_learn_names(const eg_statefacts *sf, const char *text, session_names *sn) {
  static __thread token t[MAX_TOKENS];
  size_t nt = eg_sf_tokenize(text, t, MAX_TOKENS);
  for (size_t i = 0; i < nt && sn->n < SESSION_NAMES; i++)
    if (name_cap(sf, &t[i]) && !t[i].start && !t[i].digit && !eg_sf_not_a_name(t[i].w) &&
        !is_session_name(sn, t[i].w))
      snprintf(sn->w[sn->n++], sizeof sn->w[0], "%s", t[i].w);
  for (size_t p = 0; p < nt && sn->n_kinded < SESSION_KINDED; p++) {
    unsigned bits = pronoun_kind(sf, t, p, nt);
    size_t k = bits ? antecedent(sf, t, p, nt) : nt;
    if (k == nt) continue;
    eg_sf_span_key(t, k, k + 1, sn->kinded[sn->n_kinded], sizeof *sn->kinded); /* "X's" */
    if (!eg_sf_kinded(sn, sn->kinded[sn->n_kinded])) sn->kinded_bits[sn->n_kinded++] = bits;
  }
}

/* A verb of naming is a cue word in the past or in -ing ("named", "called", "calling"); a word
 * for the kind of thing a name may name ("hamster", "tabby", "kitten", "girlfriend") is a cue
 * word that is no such verb, or a common noun of a type a cue gives (eg_sf_kind_bits). */
bool eg_sf_naming_verb(const eg_statefacts *sf, const char *w) {
  size_t l = strlen(w);
  return eg_sf_bits_of(sf->cue, w) &&
         (eg_wordnet_is_past(&sf->wn.verbs, w) || (l > 4 && !strcmp(w + l - 3, "ing")));
}

static const char *const named_obj[] = {"him", "her", "it", "them"}; /* "called him X" */

/* Is the name at token i given by a verb of naming and its object ("called him X")? */
bool eg_sf_named_by_verb(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  return i >= from + 2 &&
         eg_sf_in_list(t[i - 1].w, named_obj, sizeof named_obj / sizeof *named_obj) &&
         eg_sf_naming_verb(sf, t[i - 2].w);
}

unsigned eg_sf_kind_bits(const eg_statefacts *sf, const char *w) {
  if (eg_sf_naming_verb(sf, w)) return 0;
  return eg_sf_bits_of(sf->cue, w) | (eg_sf_lookup_common(sf, w) & sf->cue_types);
}

/* The kind of a name given right after a noun ("a startup called X", "a guy named X", "a
 * town called X"): the noun's, as a kind word, a word for a person or what WordNet types it,
 * and none when it has no type we know — a naming word alone does not make a startup's name a
 * pet's. Returns false where no noun stands right before the naming word ("named her X",
 * "a puppy, named X"): the naming word's own cue stands there. */
/* How many words before the name at i a passive of naming opens with "he" or "she" ("he's
 * called X", "she is named X", "hes called X"); 0 for none. Whom it names is said before. */
static size_t named_of_him(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  if (i < from + 2 || !eg_sf_naming_verb(sf, t[i - 1].w)) return 0;
  if (he_is_at(t, i - 2, i - 1) == 1) return 2;
  return i >= from + 3 && he_is_at(t, i - 3, i - 1) == 2 ? 3 : 0;
}

static bool head_named(const eg_statefacts *sf, const token *t, size_t from, size_t i,
                       unsigned *bits) {
  if (i < from + 2 || !eg_sf_naming_verb(sf, t[i - 1].w) || t[i - 2].comma ||
      named_of_him(sf, t, from, i))
    return false;
  const char *h = t[i - 2].w;
  if (i >= from + 3 && eg_sf_copula(h) && !t[i - 3].comma) h = t[i - 3].w; /* "… is called X" */
  if ((*bits = eg_sf_noun_bits(sf->suffix, h)) != 0) return true; /* "a company called X" */
  if (eg_sf_bits_of(sf->people, h)) { /* "a guy called X", "someone named X" */
    *bits = eg_sf_kind_bits(sf, h) | sf->person_bit;
    return true;
  }
  if (eg_sf_function_word(h) || eg_sf_in_list(h, named_obj, sizeof named_obj / sizeof *named_obj))
    return false;
  *bits = eg_sf_kind_bits(sf, h);
  if (!*bits) *bits = eg_sf_lookup_common(sf, h) & sf->name_types;
  return true;
}

/* Is w words of WordNet's joined by hyphens ("work-wise", "long-term")? */
static bool compound_word(const eg_statefacts *sf, const char *w) {
  char part[64];
  if (!strchr(w, '-') || strlen(w) >= sizeof part) return false;
  for (const char *p = w; *p;) {
    size_t l = strcspn(p, "-");
    memcpy(part, p, l);
    part[l] = '\0';
    if (!l || !eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, part)) return false;
    p += l + (p[l] == '-');
  }
  return true;
}

unsigned eg_sf_noun_bits(const eg_map *m, const char *w) {
  unsigned b = eg_sf_bits_of(m, w);
  size_t l = strlen(w);
  if (b || l < 4 || l > 30 || w[l - 1] != 's') return b;
  char one[32];
  snprintf(one, sizeof one, "%.*s", (int)(l - 1), w); /* "games" */
  if ((b = eg_sf_bits_of(m, one)) != 0) return b;
  if (w[l - 2] != 'e') return 0;
  one[l - 2] = '\0'; /* "boxes" */
  if ((b = eg_sf_bits_of(m, one)) != 0 || w[l - 3] != 'i') return b;
  one[l - 3] = 'y', one[l - 2] = '\0'; /* "bakeries" */
  return eg_sf_bits_of(m, one);
}

/* The cue word's types right before the name at t[i], or before a stretch of time it has lasted,
 * set off ("my husband of 20 years, X"); 0 for none. */
static unsigned cue_before(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  if (i == from) return 0;
  unsigned b = eg_sf_bits_of(sf->cue, t[i - 1].w);
  if (b || !eg_sf_lasted(sf, t, from, i)) return b;
  return eg_sf_bits_of(sf->cue, t[i - 4].w);
}

/* Is the capitalised span [i, j), with the capitalised words before it, a day the date grammar
 * reads ("on Christmas Eve", "New Year's Eve": no one called Eve)? */
static bool dated_name(const token *t, size_t from, size_t i, size_t j) {
  size_t p = i;
  while (p > from && t[p - 1].cap && !t[p - 1].comma) p--;
  if (p == i) return false;
  char said[160];
  size_t n = (size_t)snprintf(said, sizeof said, "on");
  for (size_t k = p; k < j && n < sizeof said; k++)
    n += (size_t)snprintf(said + n, sizeof said - n, " %s", t[k].w);
  eg_date d;
  return n < sizeof said && eg_dates_find(said, 0, &d, 1) == 1 && d.start <= 3 && d.end == n;
}

/* Does a number at token i count stretches of time ("3 years", "1 week"; not "Ioniq 5 today")?
 * Then it is no part of a name before it ("lived in Osaka 3 years now"). */
static bool length_of_time(const eg_statefacts *sf, const token *t, size_t i, size_t to) {
  if (i + 1 >= to || t[i].comma) return false;
  const char *w = t[i + 1].w;
  size_t l = strlen(w);
  return !strcmp(t[i].w, "1") ? eg_sf_bits_of(sf->periods, w) != 0
                              : l > 1 && w[l - 1] == 's' && eg_sf_noun_bits(sf->periods, w);
}

/* The types of the kind that the capitalised span [i, j) and the lower-case word after it
 * name together ("a German shepherd", "an African grey": a kind of a type WordNet writes
 * with a capital), 0 when they name none: then the capital opens no name. */
static unsigned kind_named(const eg_statefacts *sf, const token *t, size_t i, size_t j, size_t to) {
  if (j >= to || t[j - 1].comma || t[j].cap || t[j].digit) return 0;
  char key[160];
  eg_sf_span_key(t, i, j + 1, key, sizeof key);
  return eg_sf_noun_bits(sf->proper, key) | eg_sf_noun_bits(sf->common, key);
}

#define NAMING_REACH 16 /* tokens back from a name given to the kind word it is given to */

/* Does the one-word name at i, no place WordNet knows, open its sentence set off by a comma or
 * alone, right after a statement ending in "someone" or "someone new" ("met someone! X, he's a
 * paramedic", "I've met someone new. X. we met at work")? It says who that is: 1 + the index of
 * "someone", else 0. */
static size_t after_someone(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  if (i != from || i < 2 || !t[i].start || !t[i - 1].cut || t[i - 1].ask ||
      !(t[i].comma || t[i].cut) || t[i].ask)
    return 0;
  size_t k = strcmp(t[i - 1].w, "new") != 0 ? i - 1 : i - 2;
  if (eg_sf_indefinite(t[k].w) != EG_SF_SOMEONE || t[k].start) return 0;
  char key[128];
  eg_sf_span_key(t, i, i + 1, key, sizeof key);
  return eg_sf_bits_of(sf->proper, key) & sf->place_bit ? 0 : k + 1;
}

size_t eg_sf_given_to(const eg_statefacts *sf, const token *t, size_t from, size_t i,
                      unsigned *bits, size_t *phrase) {
  static const char *const be[] = {"is", "was"}, *const whose[] = {"his", "her", "their", "its"};
  const char *p1 = i > from ? t[i - 1].w : "", *p2 = i > from + 1 ? t[i - 2].w : "";
  bool verb = eg_sf_named_by_verb(sf, t, from, i);
  size_t passive = verb ? 0 : named_of_him(sf, t, from, i), k; /* "he's called X" */
  *bits = verb ? eg_sf_bits_of(sf->cue, p2) : passive ? eg_sf_bits_of(sf->cue, p1) : 0;
  if (verb)
    *phrase = i - 2; /* "called him X" */
  else if (passive)
    *phrase = i - passive;
  else if (!strcmp(p1, "name's") || !strcmp(p1, "name"))
    *phrase = i - 1;
  else if (eg_sf_in_list(p1, be, sizeof be / sizeof *be) && !strcmp(p2, "name"))
    *phrase = i - 2;
  else if ((k = after_someone(sf, t, from, i)) != 0)
    return *bits = sf->person_bit, *phrase = i, k; /* "met someone! X, he's a paramedic" */
  else
    return 0;
  if (!verb && !passive && *phrase > from && eg_sf_in_list(t[*phrase - 1].w, whose, 4)) --*phrase;
  unsigned b;
  for (k = i; k > 0 && i - k < NAMING_REACH; k--) {
    char w[32]; /* a kind word's possessive: "my dog's name is X" */
    eg_sf_unpossessed(t[k - 1].w, w, sizeof w);
    if ((b = eg_sf_kind_bits(sf, w))) return *bits = b, k;
    if (k >= from + 2 && (b = kind_named(sf, t, k - 2, k - 1, k) & sf->cue_types))
      return *bits = b, k;
  }
  /* no kind word: a word for a person ("seeing someone, her name is X") */
  for (k = i; !verb && k > 0 && i - k < NAMING_REACH; k--)
    if (eg_sf_bits_of(sf->people, t[k - 1].w)) return *bits = sf->person_bit, k;
  return i + 1; /* given, to no word: the naming verb's own type */
}

/* The kind a "he" or "she" after the name [i, j), in its clause [j, to), is said to be ("X is
 * settling in, he's a 12 week old dachshund mix"; not "X got a puppy, he's a spaniel"): the
 * pronoun's kind (pronoun_kind) where it stands for the name (stands_for); 0. */
static unsigned said_to_be(const eg_statefacts *sf, const token *t, size_t i, size_t j, size_t to) {
  for (size_t k = j; k < to; k++) {
    unsigned bits = pronoun_kind(sf, t, k, to);
    if (bits) return stands_for(sf, t, i, j, k) ? bits : 0;
  }
  return 0;
}

/* The kind of the speaker's own a name [i, j) is said to be: "X is our hamster", "X's my new
 * cat" (a kind word up to three words after "my" or "our"); 0. Not a name beside it with no
 * verb ("X our cockapoo ate …"): a sentence's opener may stand so ("PS my dog says hi"). */
static unsigned owned_kind(const eg_statefacts *sf, const token *t, size_t to, size_t i, size_t j) {
  size_t k = j;
  if (k < to && !t[k - 1].comma && !strcmp(t[k].w, "is"))
    k++;
  else if (!(eg_sf_possessive(t[j - 1].w) && j == i + 1)) /* "Luna's our cat" */
    return 0;
  if (k >= to || !eg_sf_ours(t[k].w) || t[k].comma) return 0;
  for (size_t q = k + 1; q < to && q < k + 4; q++) {
    if (eg_sf_kind_bits(sf, t[q].w) & ~sf->person_bit) return head_kind(sf, t, q, to);
    if (t[q].comma || t[q].cut) break;
  }
  return 0;
}

/* The type of the name [i, j) (in the clause [from, to)) from the kind word it is bound to,
 * 0 when none is:
 *  - a name given, by a verb of naming and its object ("the kids named her X", "called him
 *    X") or a phrase ("her name is X", "name's X", "came with the name X"), names the
 *    nearest kind word before it in the speaker's words ("Adopted a kitten! Named her X");
 *    with none, a naming verb's own cue type stands, or a person where a word for one was
 *    said ("I'm seeing someone, her name is X");
 *  - a name right after a kind word, as after a cue word: "our beagle X";
 *  - a name in apposition with a kind word: "X the ferret", "a rescue pup, X", and "X, my
 *    hamster, …" (the apposition closed by a comma or the clause's end within a word of
 *    the kind word: not "X, my dog stayed with mum");
 *  - a name whose "he" or "she" is then said to be a kind (said_to_be);
 *  - a name said to be the speaker's kind: "X is our hamster", "X's my cat" (owned_kind). */
static unsigned bound_kind(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                           size_t i, size_t j) {
  unsigned b = 0;
  size_t phrase;
  if (eg_sf_given_to(sf, t, from, i, &b, &phrase)) return b;
  if ((b = i > from ? eg_sf_kind_bits(sf, t[i - 1].w) : 0)) return b; /* "our beagle X" */
  /* "X the ferret"; not a verb opening the sentence ("Walked the dog", "Took the dog out"), nor
   * a place WordNet knows after a word that places it, a sentence run on ("since we moved to
   * Rotterdam the cat is bored"; not "Sydney the cat loves boxes") */
  static const char *const placing[] = {"to", "in", "from", "near"};
  bool verb =
      j == i + 1 && t[i].start &&
      (eg_wordnet_is_past(&sf->wn.verbs, t[i].w) || eg_wordnet_is_ing(&sf->wn.verbs, t[i].w));
  char key[128];
  eg_sf_span_key(t, i, j, key, sizeof key);
  bool placed = i > from && eg_sf_in_list(t[i - 1].w, placing, 4) &&
                (eg_sf_bits_of(sf->proper, key) & sf->place_bit);
  if (j + 1 < to && !verb && !placed && !strcmp(t[j].w, "the") &&
      (b = eg_sf_kind_bits(sf, t[j + 1].w)))
    return b;
  if (i > from && t[i - 1].comma && (b = eg_sf_kind_bits(sf, t[i - 1].w))) return b;
  if ((b = said_to_be(sf, t, i, j, to))) return b;
  if ((b = owned_kind(sf, t, to, i, j))) return b;
  if (!t[j - 1].comma) return 0;
  for (size_t k = j; k < to && k < j + 4; k++) {
    bool closed = t[k].comma || k + 1 == to || (k + 2 <= to && (t[k + 1].comma || k + 2 == to));
    if ((b = eg_sf_kind_bits(sf, t[k].w))) return closed ? b : 0;
    if (t[k].comma) break;
  }
  return 0;
}

/* Do the words [a, i) only lead into a clause, at most three: a joint, a closed-class word or a
 * word of when ("Last week X and I …", "Now that X and I …", "So X and I …")? */
static bool lead_in(const token *t, size_t a, size_t i) {
  static const char *const when[] = {"that",    "last",    "this",    "yesterday", "today",
                                     "tonight", "finally", "week",    "weekend",   "month",
                                     "year",    "night",   "morning", "anyway",    "once"};
  if (i == a || i - a > 3) return false;
  for (size_t k = a; k < i; k++)
    if (t[k].comma || !(eg_sf_joint(t[k].w, false) || eg_sf_function_word(t[k].w) ||
                        eg_sf_in_list(t[k].w, when, sizeof when / sizeof *when)))
      return false;
  return true;
}

/* Is [i, j) coordinated with the speaker as the subject that opens a (sub-)clause: "X and I
 * are …", "my husband X and I are separating", "me and X hit 2 years"? A name that keeps the
 * speaker such company is someone's: no place, firm or pet ("Lukas and I just got a puppy");
 * in lower case it is still a name when it is no word ("tobias and I"). */
bool eg_sf_with_me(const token *t, size_t from, size_t to, size_t i, size_t j) {
  static const char *const me[] = {"i", "me"};
  size_t n = sizeof me / sizeof *me;
  /* the name opens it, after words that lead into it or not, or a noun of the speaker's before
   * it does ("my husband X") */
  size_t o = i, start = i;
  while (start > from && !t[start - 1].comma) start--;
  while (o > from && i - o < 3 && !t[o - 1].comma && !eg_sf_ours(t[o - 1].w)) o--;
  bool opens = i == from || t[i - 1].comma || lead_in(t, start, i) ||
               (o > from && o < i && eg_sf_ours(t[o - 1].w) && (o - 1 == from || t[o - 2].comma));
  if (opens && j + 1 < to && !t[j - 1].comma && !strcmp(t[j].w, "and") &&
      eg_sf_in_list(t[j + 1].w, me, n))
    return true;
  return i >= from + 2 && !strcmp(t[i - 1].w, "and") && eg_sf_in_list(t[i - 2].w, me, n) &&
         !t[i - 2].comma && (i - 2 == from || t[i - 3].comma);
}

/* May the lower-case word w be a name: no word of WordNet's or the lists', its clitic "'s"
 * aside ("chloe's")? */
static bool lower_name(const eg_statefacts *sf, const token *w) {
  char base[32];
  size_t l = strlen(w->w);
  if (w->cap || w->digit || l < 2 || eg_sf_not_a_name(w->w)) return false;
  if (eg_sf_possessive(w->w)) l -= 2;
  snprintf(base, sizeof base, "%.*s", (int)l, w->w);
  return strspn(base, "abcdefghijklmnopqrstuvwxyz-") == l && !eg_sf_joint(base, true) &&
         !eg_sf_function_word(base) &&
         !eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, base) &&
         !eg_sf_lookup_common(sf, base);
}

/* Does the word t[i] stand where a name of a value goes: after a noun the user has by holding
 * a value, where that value goes ("my old team at siemens", "my boss at bramble"; @holds), or
 * after a verb of working and "at" ("just started at google", "i work at Amazon now"), a
 * firm's there, or, in capitals, after a word for a person and "at" ("a nurse at Amazon")? Not
 * an adverb ("at least", "at first"). Its types: a name's, or a firm's after a verb of working;
 * 0 when it stands in no such frame. */
static unsigned name_frame(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  static const char *const working[] = {"work",     "works",    "working",  "worked", "start",
                                        "starts",   "starting", "started",  "intern", "interning",
                                        "interned", "job",      "employed", "hired"};
  size_t own_at;
  slot s = {i, i + 1, 0, 0, sf->name_types, true, false, ST_CURRENT, 0, false};
  bool at = i >= from + 2 && !strcmp(t[i - 1].w, "at") && !t[i - 2].comma;
  if (at && eg_sf_in_list(t[i - 2].w, working, sizeof working / sizeof *working) &&
      !eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, t[i].w))
    return sf->org_bit;
  if (at && t[i].cap && eg_sf_bits_of(sf->people, t[i - 2].w)) return sf->name_types;
  return eg_sf_held_through(sf, t, from, &s, &own_at) ? sf->name_types : 0;
}

/* Is the word t[i] given as a name, whatever noun it is: "her name is pepper", "his name's
 * teddy", "a cat named biscuit", "called him biscuit", "she's called bean"? Not an adjective, which
 * qualifies what is named ("named her new kitten X") or makes an idiom ("called it quits"). */
static bool given_name(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  static const char *const be[] = {"is", "was"};
  if (i < from + 2 || t[i - 1].comma ||
      eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, t[i].w))
    return false;
  if (!strcmp(t[i - 1].w, "name's") ||
      (!strcmp(t[i - 2].w, "name") && eg_sf_in_list(t[i - 1].w, be, 2)))
    return true;
  return eg_sf_named_by_verb(sf, t, from, i) || named_of_him(sf, t, from, i) ||
         (eg_sf_naming_verb(sf, t[i - 1].w) && (eg_sf_kind_bits(sf, t[i - 2].w) & ~sf->person_bit));
}

/* The type of the name [i, j) by what it has, with its clitic "'s" right before a noun only a
 * value of that type has ("Clover's hutch", "Rex's paws": @belongs); 0 for none. */
static unsigned belonging_after(const eg_statefacts *sf, const token *t, size_t to, size_t i,
                                size_t j) {
  return j == i + 1 && j < to && !t[i].comma && eg_sf_possessive(t[i].w)
             ? eg_sf_bits_of(sf->belongs, t[j].w)
             : 0;
}

/* … and so is a word of a thing pets are named after in lower case ("kiwi's cage"). */
static unsigned namesake_belonging(const eg_statefacts *sf, const token *t, size_t to, size_t i) {
  char base[32];
  if (t[i].cap || !eg_sf_possessive(t[i].w) ||
      eg_sf_unpossessed(t[i].w, base, sizeof base) + 2 != strlen(t[i].w))
    return 0;
  return eg_sf_bits_of(sf->namesakes, base) && !eg_sf_kind_bits(sf, base)
             ? belonging_after(sf, t, to, i, i + 1)
             : 0;
}

/* The types of the lower-case word t[i] as a name right after the speaker's kind word of a kind
 * that keeps names ("my budgie kiwi", "our old dog pepper"): a word of a thing pets are named
 * after (@namesake), no word for a person ("my dog mum"), the subject of the verb after it or
 * ending its phrase ("my cat tofu hates …", "…, and"; not "my dog treat jar"). Another word
 * there heads a compound ("my dog bed", "my dog walker"), and so does one WordNet joins to the
 * kind ("dog biscuit", "dog rose"). 0 for none. */
static unsigned namesake_after_kind(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                                    size_t i) {
  const char *w = t[i].w;
  if (i < from + 2 || t[i - 1].comma || !eg_sf_bits_of(sf->namesakes, w) ||
      eg_sf_bits_of(sf->people, w) || eg_sf_kind_bits(sf, w))
    return 0;
  unsigned keeps = eg_sf_kind_bits(sf, t[i - 1].w) & sf->kind_types & ~sf->person_bit;
  bool owned = false; /* "my", "our" before the kind word, two words between at most */
  for (size_t q = i - 1; keeps && q > from && q + 3 > i - 1 && !t[q - 1].comma && !owned; q--)
    owned = eg_sf_ours(t[q - 1].w);
  char two[64];
  snprintf(two, sizeof two, "%s %s", t[i - 1].w, w);
  bool ends = i + 1 >= to || t[i].comma || t[i].cut || !strcmp(t[i + 1].w, "and") ||
              !eg_sf_verbless(sf, t, i + 1, i + 2);
  return owned && ends && !eg_sf_bits_of(sf->namesakes, two) ? keeps : 0;
}

/* May the lower-case word t[i], a word of WordNet's too, be a name by where it stands (a
 * partner's word before it, given as a name, or name_frame)? Not a word whose first sense is a
 * plain one such a noun or verb is at ("my boss at work", "working at night", "at lunch";
 * @plain). Its types; 0 when it is no name. */
static unsigned framed_name(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                            size_t i) {
  const char *w = t[i].w;
  if (t[i].cap || t[i].digit || strlen(w) < 2 ||
      strspn(w, "abcdefghijklmnopqrstuvwxyz") != strlen(w) || eg_sf_not_a_name(w) ||
      eg_sf_function_word(w) || eg_sf_bits_of(sf->generic, w))
    return 0;
  /* right after a word for a partner ("my gf anna", "my hubby tom", "my wife maria"), a noun
   * only: no verb ("my wife cooks"), adjective or adverb ("my husband too"), nor a plural ("my
   * boyfriend jeans are …") */
  static const char *const plural[] = {"are", "were"};
  if (i > from && !t[i - 1].comma && (eg_sf_bits_of(sf->cue, t[i - 1].w) & sf->person_bit) &&
      !(i + 1 < to && eg_sf_in_list(t[i + 1].w, plural, 2)) &&
      !eg_wordnet_is_verb(&sf->wn.verbs, w) && !eg_wordnet_is_past(&sf->wn.verbs, w) &&
      !eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, w) &&
      !eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, w))
    return sf->person_bit;
  if (given_name(sf, t, from, i)) return sf->name_types;
  unsigned named = namesake_after_kind(sf, t, from, to, i);
  if (named) return named;
  /* set off by commas right after a kind word of a thing or animal one keeps ("our rescue
   * lurcher, dot, is terrified of the hoover"): no adjective ("a kitten, ginger, named him X"),
   * adverb ("my dog, honestly, …"), kind or word for a person ("my dog, cat and rabbit") */
  unsigned kind = i > from ? eg_sf_kind_bits(sf, t[i - 1].w) & ~sf->person_bit : 0;
  if (kind && t[i - 1].comma && t[i].comma && i + 1 < to && !eg_sf_kind_bits(sf, w) &&
      !eg_sf_bits_of(sf->people, w) &&
      !eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, w) &&
      !eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, w))
    return kind;
  return eg_sf_noun_bits(sf->plain, w) ? 0 : name_frame(sf, t, from, i);
}

/* Is the lower-case word t[i], a word of WordNet's too, a person's name by where it stands:
 * right after a word of ending and "with" ("broke up with maya", "ended things with rose")? */
static bool parted_with(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  const char *w = t[i].w;
  return i >= from + 3 && !t[i].cap && !t[i].digit && !strcmp(t[i - 1].w, "with") &&
         strspn(w, "abcdefghijklmnopqrstuvwxyz") == strlen(w) && strlen(w) > 1 &&
         !eg_sf_not_a_name(w) && !eg_sf_function_word(w) && !eg_sf_bits_of(sf->generic, w) &&
         !eg_sf_noun_bits(sf->plain, w) && eg_sf_ends_at(sf, t, i - 3, i - 1);
}

/* Is token i where only a name goes, where a word would need an article ("lukas cheated",
 * "been seeing adebayo"): opening a (sub-)clause right before a verb or with "'s", or right
 * after a verb (not a modal's: "might rehome X")? Not after a preposition: a place so named may
 * be a district for the city, and "at X" or "in X" in lower case are as often words. */
static bool name_position(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                          size_t i) {
  static const char *const aux[] = {"is",    "was", "has",   "had",  "will",
                                    "would", "can", "could", "says", "said"};
  if (strchr(t[i].w, '-')) return false; /* "mutual-ish" */
  /* a name is singular: a plural verb after the word makes it a plural noun ("dating apps
   * are …") */
  static const char *const plural[] = {"are", "were", "aren't", "weren't"};
  if (i + 1 < to && eg_sf_in_list(t[i + 1].w, plural, sizeof plural / sizeof *plural)) return false;
  if (i == from || t[i - 1].comma) {
    if (eg_sf_possessive(t[i].w)) return true;
    if (i + 1 >= to || t[i].comma) return false;
    const char *v = t[i + 1].w;
    return eg_sf_in_list(v, aux, sizeof aux / sizeof *aux) ||
           eg_wordnet_is_past(&sf->wn.verbs, v) || eg_wordnet_is_present3(&sf->wn.verbs, v);
  }
  const char *p = t[i - 1].w;
  size_t lp = strlen(p);
  static const char *const modal[] = {"might", "could", "would", "should", "must"};
  if (eg_sf_in_list(p, modal, sizeof modal / sizeof *modal)) return false; /* "might rehome X" */
  /* the firm or place one is at ("crunch at quillon", "3 weeks in at tidewell"): not "in X",
   * "to X", a district as often as a city */
  if (!strcmp(p, "at")) return true;
  /* a word in -ing after a determiner qualifies the noun it comes before: "a dating app" */
  return eg_wordnet_is_past(&sf->wn.verbs, p) ||
         (lp > 4 && !strcmp(p + lp - 3, "ing") &&
          eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, p) &&
          !(i - 1 > from && eg_sf_determiner(t[i - 2].w)));
}

/* Does a model year stand right before token i, after "a" or the user's "my" ("a 2016 prius",
 * "my 2012 Civic")? */
static bool after_year(const token *t, size_t from, size_t i) {
  static const char *const det[] = {"a", "an", "my", "our"}; /* not "the 2019 Ashes" */
  if (i < from + 2 || t[i - 1].comma || t[i - 2].comma || !eg_sf_in_list(t[i - 2].w, det, 4))
    return false;
  const char *y = t[i - 1].w;
  return strlen(y) == 4 && strspn(y, "0123456789") == 4 &&
         (!strncmp(y, "19", 2) || !strncmp(y, "20", 2));
}

/* Can the lower-case word w name a model after its make ("civic", "f-150", "500", "model")?
 * Not a function word nor a verb's past or present in -s ("my honda makes a noise"). */
static bool model_word(const eg_statefacts *sf, const token *w) {
  return !w->cap && !eg_sf_not_a_name(w->w) && !eg_sf_joint(w->w, true) &&
         !eg_sf_bits_of(sf->generic, w->w) && !eg_wordnet_is_past(&sf->wn.verbs, w->w) &&
         !eg_wordnet_is_present3(&sf->wn.verbs, w->w);
}

/* The type of a model's name alone (@model) that [i, j) is, or is with a number after it
 * ("Ioniq 5", of "ioniq"); 0 for none. */
static unsigned model_bits(const eg_statefacts *sf, const token *t, size_t i, size_t j) {
  char key[128];
  eg_sf_span_key(t, i, j, key, sizeof key);
  unsigned bits = eg_sf_bits_of(sf->models, key);
  if (!bits && j - i == 2 && t[i + 1].digit) bits = eg_sf_bits_of(sf->models, t[i].w);
  return bits;
}

/* A place WordNet knows only by its name, written in lower case as chat writes them ("moved
 * to lisbon", "a flat in new york"): the end of the longest such span of up to three words
 * from i, its type bits in *bits; 0 when none. A single word must be no common word
 * ("reading", "bath", "nice" are words first); a longer span is a name as a whole. Places
 * only: WordNet's proper nouns of the other types are kinds ("Chihuahua", a breed). A town of
 * the gazetteer WordNet lacks is one only right after a word that places ("my landlord in
 * pune"; placed true): its many small towns' names are a chat's words as often ("imo"). */
static unsigned town_bits(const eg_statefacts *sf, const char *key, size_t n);

static size_t lower_proper(const eg_statefacts *sf, const token *t, size_t i, size_t to,
                           bool placed, unsigned *bits) {
  for (size_t j = i + 3 < to ? i + 3 : to; j > i; j--) {
    bool clean = true;
    for (size_t k = i; k < j && clean; k++)
      clean = !t[k].cap && !t[k].digit && (k == i || !t[k - 1].comma);
    /* a word of one of our types may be a place's name where a word places it: "i live in
     * berlin now" (not the limousine WordNet also knows) */
    if (!clean ||
        (j == i + 1 && !lower_name(sf, &t[i]) && !(placed && eg_sf_lookup_common(sf, t[i].w))))
      continue;
    char key[128];
    eg_sf_span_key(t, i, j, key, sizeof key);
    if ((*bits = eg_sf_bits_of(sf->proper, key) & sf->place_bit) != 0) return j;
    if (placed && j == i + 1 && (*bits = town_bits(sf, key, 1) & sf->place_bit) != 0) return j;
  }
  return 0;
}

/* The types of a town of the gazetteer named key (n words), 0 when it is none; a single word
 * must be no common word of WordNet ("Bay", "Buy" are towns too). */
static unsigned town_bits(const eg_statefacts *sf, const char *key, size_t n) {
  char k[128];
  eg_sf_fold(key, k, sizeof k);
  if (n == 1 && (eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, k) || eg_sf_function_word(k)))
    return 0;
  return eg_sf_bits_of(sf->towns, k);
}

/* The place types of the capitalised span [i, j) as WordNet ("Kraków" as its "Krakow") or the
 * gazetteer knows it; 0 for none. */
unsigned eg_sf_place_bits(const eg_statefacts *sf, const token *t, size_t i, size_t j) {
  char key[128], plain[128];
  eg_sf_span_key(t, i, j, key, sizeof key);
  unsigned bits = eg_sf_bits_of(sf->proper, key);
  if (!bits && eg_sf_fold(key, plain, sizeof plain)) bits = eg_sf_bits_of(sf->proper, plain);
  if (!bits) bits = town_bits(sf, key, j - i);
  return bits & sf->place_bit;
}

/* A firm's name in lower case joined by an ampersand ("bramble & co bakery", "marks & spencer"):
 * the word before it and up to two after, none a word of function, manner or time, nor a
 * verb's form; its end, 0 when there is none at i. */
static size_t ampersand_name(const eg_statefacts *sf, const token *t, size_t i, size_t to) {
  if (!t[i].amp || t[i].cap || t[i].comma || t[i].digit || eg_sf_function_word(t[i].w)) return 0;
  size_t j = i + 1;
  while (j < to && j < i + 3 && !t[j].cap && !eg_sf_function_word(t[j].w) &&
         !eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, t[j].w) &&
         !eg_wordnet_is_present3(&sf->wn.verbs, t[j].w) &&
         !eg_wordnet_is_past(&sf->wn.verbs, t[j].w) && !eg_wordnet_is_ing(&sf->wn.verbs, t[j].w)) {
    j++;
    if (t[j - 1].comma) break;
  }
  return j > i + 1 ? j : 0;
}

/* A word opening its sentence bare, a kind word in apposition after it ("bramble (cocker
 * spaniel, 12 wks) bites my sleeves"): a name, even a word's spelling, where a word would need
 * its article; the kind word's type bits, 0 when not so. The apposition is closed by a comma
 * or a bracket with the sentence going on after it (not "sorry, the dog."). */
static unsigned opening_apposition(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                                   size_t i) {
  if (i != from || t[i].cap || t[i].digit || !t[i].comma || eg_sf_function_word(t[i].w) ||
      eg_sf_not_a_name(t[i].w) || eg_sf_lookup_common(sf, t[i].w) ||
      eg_sf_bits_of(sf->people, t[i].w) || eg_sf_kind_bits(sf, t[i].w))
    return 0;
  for (size_t k = i + 1; k < to && k < i + 4; k++) {
    unsigned b = eg_sf_kind_bits(sf, t[k].w);
    if (b) return (t[k].comma || (k + 1 < to && t[k + 1].comma)) && k + 2 < to ? b : 0;
    if (t[k].comma) break;
  }
  return 0;
}

/* A capitalised word opening its sentence bare before a verb of action in the present or the
 * past ("Biscuit keeps scratching the sofa", "Clementine rolled in fox poo"): a count noun
 * would need its article there, so it is a name even where it is also a word. Not a plural,
 * a word for a person or a kind, nor before a copula, an auxiliary or a verb of seeming or
 * happening, where mass nouns go bare too ("Work is crazy", "Dinner was great", "Life has been
 * hard", "School starts at 8"), nor in a sentence of the speaker's own, where they act on the
 * speaker ("Work keeps me busy", "Coffee keeps me going"): one spoken of in the third person;
 * nor a verb in the past itself, whose subject chat dropped ("Got laid off from X"). */
static bool bare_subject(const eg_statefacts *sf, const token *t, size_t i, size_t to) {
  static const char *const linking[] = {
      "is",      "was",    "are",     "were",    "has",    "had",    "have",  "does",
      "did",     "seems",  "seemed",  "looks",   "looked", "feels",  "felt",  "sounds",
      "sounded", "gets",   "got",     "goes",    "went",   "comes",  "came",  "makes",
      "made",    "starts", "started", "ends",    "ended",  "begins", "began", "happened",
      "happens", "helps",  "helped",  "matters", "means",  "meant",  "says",  "said"};
  const char *w = t[i].w;
  size_t l = strlen(w);
  /* an adverb opening a sentence says how, not who ("Still loved every minute of it") */
  if (t[i].comma || i + 1 >= to || l < 3 || w[l - 1] == 's' || eg_sf_first_person(t, i, to) ||
      eg_sf_bits_of(sf->people, w) || eg_sf_kind_bits(sf, w) || eg_sf_bits_of(sf->generic, w) ||
      eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, w) ||
      eg_wordnet_is_past(&sf->wn.verbs, w)) /* "Got laid off …": the subject dropped */
    return false;
  const char *v = t[i + 1].w;
  return !eg_sf_in_list(v, linking, sizeof linking / sizeof *linking) &&
         (eg_wordnet_is_present3(&sf->wn.verbs, v) || eg_wordnet_is_past(&sf->wn.verbs, v));
}

/* Is one of the capitalised words from j on (up to a comma or a possessive) a word for an
 * institution ("St Mary's Hospital", "King's College London")? */
static bool institution_after(const eg_statefacts *sf, const token *t, size_t j, size_t to) {
  for (size_t k = j; k < to && t[k].cap && !eg_sf_possessive(t[k].w); k++) {
    if (eg_sf_noun_bits(sf->suffix, t[k].w)) return true;
    if (t[k].comma) break;
  }
  return false;
}

/* Slot k of out[0, n) becomes the value of slot k - 1, and no slot of its own; the count after. */
static size_t value_of_previous(slot *out, size_t n, size_t k) {
  slot *w = &out[k - 1], *c = &out[k];
  w->vs = c->ts, w->ve = c->te;
  w->bits &= c->bits;
  memmove(c, c + 1, (n - k - 1) * sizeof *c);
  return n - 1;
}

bool eg_sf_correcting(const token *t, size_t a, size_t b) {
  static const char *const fill[] = {"sorry",  "i",   "mean", "meant", "oops", "correction",
                                     "er",     "erm", "um",   "uh",    "no",   "wait",
                                     "rather", "a",   "an",   "the"};
  static const char *const say[] = {"sorry", "mean", "meant", "oops", "correction", "wait"};
  bool says = false;
  for (size_t q = a; q < b; q++) {
    if (!eg_sf_in_list(t[q].w, fill, sizeof fill / sizeof *fill)) return false;
    says |= eg_sf_in_list(t[q].w, say, sizeof say / sizeof *say);
  }
  return says;
}

/* A value corrected at once ("named him Rocket - sorry, Rocco", "Ines, I mean Inès", "the
 * viola, sorry, the cello") is the correction: the first stays the slot, read in its place,
 * the second becomes its value and no slot of its own. Both are names or both kind words, and
 * only words of correcting stand between them (eg_sf_correcting). The slots' count after it. */
static size_t corrected(const token *t, slot *out, size_t n) {
  for (size_t k = 1; k < n; k++) {
    slot *w = &out[k - 1], *c = &out[k];
    if (w->proper != c->proper || w->ve || w->held || !(w->bits & c->bits) || c->ts <= w->te)
      continue;
    /* a kind word ends its sub-clause as a correction does ("the viola, sorry, the cello, for
     * two years"; not "the guitar, sorry, the piano is my second instrument") */
    if (!c->proper && !t[c->te - 1].comma && !t[c->te - 1].cut) continue;
    if (eg_sf_correcting(t, w->te, c->ts)) n = value_of_previous(out, n, k);
  }
  return n;
}

size_t eg_sf_renamed(const eg_statefacts *sf, const token *t, slot *out, size_t n) {
  for (size_t k = 1; k < n; k++) {
    slot *w = &out[k - 1], *name = &out[k];
    size_t q = w->te; /* after a comma, or "with a" ("we've gone electric with a Renault Zoe") */
    if (!t[w->te - 1].comma && q + 1 < name->ts && !strcmp(t[q].w, "with") &&
        (!strcmp(t[q + 1].w, "a") || !strcmp(t[q + 1].w, "an")))
      q++;
    /* … or right before it, a word that is an adjective too ("a small electric Renault") */
    bool before = q == w->te && name->ts == w->te && !t[w->te - 1].comma && w->te == w->ts + 1 &&
                  eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, t[w->ts].w);
    if (w->proper || w->ve || w->held || !name->proper || name->held || !(w->bits & name->bits) ||
        (q == w->te && !t[w->te - 1].comma && !before))
      continue;
    while (q < name->ts && eg_sf_determiner(t[q].w)) q++;
    if (q != name->ts) continue;
    w->proper = true;
    n = value_of_previous(out, n, k);
  }
  /* … and a kind word set off after a name as the speaker's is its kind, no value of its own
   * ("X, our beagle, died in his sleep") */
  for (size_t k = 1; k < n; k++) {
    const slot *name = &out[k - 1], *w = &out[k];
    if (!name->proper || w->proper || w->ve || w->te != w->ts + 1 ||
        eg_sf_apposed_kind(sf, t, name->te, w->te, w->bits & name->bits) != w->ts)
      continue;
    memmove(&out[k], &out[k + 1], (n - k - 1) * sizeof *out);
    n--;
  }
  return n;
}

/* Is w a noun of WordNet's and no verb, adjective or adverb? */
static bool noun_only(const eg_statefacts *sf, const char *w) {
  return eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, w) &&
         !eg_wordnet_is_verb(&sf->wn.verbs, w) &&
         !eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, w) &&
         !eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, w);
}

/* Does a word that places a value stand right before token i ("in X", "to X", "near X")? Not
 * the "to" a marker of an end closes ("said goodbye to X", "bid farewell to X"). */
static bool placed_at(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  static const char *const where[] = {"in", "to", "from", "near", "outside", "around"};
  return i > from && eg_sf_in_list(t[i - 1].w, where, sizeof where / sizeof *where) &&
         !(!strcmp(t[i - 1].w, "to") && eg_sf_ends_marker(sf, MK_ENDED, t, from, i));
}

size_t eg_sf_find_slots(const eg_statefacts *sf, const session_names *sn, const token *t,
                        size_t from, size_t to, slot *out, size_t max) {
  static const char *const before_object[] = {"at", "in", "to", "from", "with", "for", "by", "on"};
  size_t n = 0;
  for (size_t i = from; i < to && n < max; i++) {
    size_t hj = 0, h = held_at(sf, sn, t, i, to, &hj);
    if (h) { /* a value the user holds: of its relation's type ("we lost Biscuit") */
      unsigned bits = sn->held.bits[h - 1], cue = i > from ? eg_sf_bits_of(sf->cue, t[i - 1].w) : 0;
      out[n++] = (slot){
          i, hj, 0, 0, bits, true, (cue & bits) != 0, ST_CURRENT, sn->held_ix[h - 1] + 1, false};
      i = hj - 1;
      continue;
    }
    if (name_cap(sf, &t[i]) && !eg_sf_not_a_name(t[i].w) && !eg_sf_function_word(t[i].w)) {
      size_t j = i + 1;
      /* a name does not run past a comma ("Olive, 3 years old"), a length of time ("Osaka 3
       * years"), a word shouted after it shouted ("ALEX PROPOSED") nor its possessive
       * ("Fiona's 50th"), unless the capitalised words after it hold a word for an institution
       * ("St Mary's Hospital", "King's College") */
      while (j < to && !t[j - 1].comma &&
             (!eg_sf_possessive(t[j - 1].w) || institution_after(sf, t, j, to)) &&
             (t[j].cap || (t[j].digit && !length_of_time(sf, t, j, to))) &&
             !eg_sf_not_a_name(t[j].w) && !(t[i].shout && t[j].cap && !name_cap(sf, &t[j])))
        j++;
      /* a stretch of time and its number is no name: "teaching Year 3s", "Week 2 of the
       * course"; nor is a day ("on Christmas Eve"), nor a letter alone where no cue, company
       * of the speaker's or word of a state's own names it ("I know C, Am, F and G"; not "my
       * boyfriend J", "J and I", "dating J") */
      if ((j - i > 1 && t[i + 1].digit && eg_sf_bits_of(sf->periods, t[i].w)) ||
          dated_name(t, from, i, j) ||
          (j - i == 1 && !t[i].w[1] && isalpha((unsigned char)t[i].w[0]) &&
           !cue_before(sf, t, from, i) && !eg_sf_with_me(t, from, to, i, j) &&
           !(i > from && eg_sf_bits_of(sf->domain, t[i - 1].w)))) {
        i = j - 1;
        continue;
      }
      char key[128];
      eg_sf_span_key(t, i, j, key, sizeof key);
      unsigned known = eg_sf_bits_of(sf->proper, key);
      char plain[128]; /* "Kraków": WordNet's Krakow */
      if (!known && eg_sf_fold(key, plain, sizeof plain)) known = eg_sf_bits_of(sf->proper, plain);
      /* "Meet Kiwi, …": a capitalised opener that is a word is not part of the name, unless
       * it is a title ("Sir Reginald has escaped the garden again", "Captain Fluff"), the
       * name's last word says what it is ("Lumen Dental Group shut its clinics") or it is a
       * noun and nothing else, which opens no sentence before a name but as part of it
       * ("Octopus Energy, customer team", "Aurora Cruise Lines") */
      static const char *const titles[] = {"sir",       "lady",     "lord",  "dame",    "captain",
                                           "prince",    "princess", "duke",  "duchess", "baron",
                                           "professor", "doctor",   "uncle", "aunt",    "auntie",
                                           "mister",    "miss",     "saint"};
      if (!known && t[i].start && j - i > 1 && !eg_sf_bits_of(sf->suffix, t[j - 1].w) &&
          eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, t[i].w) &&
          !eg_sf_in_list(t[i].w, titles, sizeof titles / sizeof *titles) &&
          !noun_only(sf, t[i].w)) {
        i++;
        eg_sf_span_key(t, i, j, key, sizeof key);
        known = eg_sf_bits_of(sf->proper, key);
      }
      /* "my Dalmatian Pongo": a pet's kind word, capitalised before a name, is not part of it
       * but says its kind */
      unsigned breed = 0;
      if (!known && j - i > 1 && !eg_sf_bits_of(sf->suffix, t[j - 1].w) &&
          (breed = eg_sf_kind_bits(sf, t[i].w) & ~sf->person_bit)) {
        i++;
        eg_sf_span_key(t, i, j, key, sizeof key);
        known = eg_sf_bits_of(sf->proper, key);
      }
      /* a capitalised adjective before a common noun qualifies it: "a Dutch company called X",
       * "an Italian restaurant" (not "moved to Nice last week": "last" is an adjective too; nor
       * one of a type: "a Mediterranean diet") */
      if (!known && j - i == 1 && !t[i].start && j < to && !t[j].cap && !t[i].comma &&
          !eg_sf_lookup_common(sf, t[i].w) &&
          eg_wordnet_is_common(sf->wn.proper_adjectives, sf->wn.n_proper_adjectives, t[i].w) &&
          eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, t[j].w) &&
          !eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, t[j].w)) {
        i = j - 1;
        continue;
      }
      /* a word for a person in capitals among words that are not is its acronym, no name ("our
       * CEO at X just resigned", "my GP says …"; not after a cue: "my girlfriend JO") */
      if (!known && j - i == 1 && t[i].shout && !(i > from && t[i - 1].shout) &&
          !(j < to && t[j].shout) && eg_sf_bits_of(sf->people, t[i].w) &&
          !(i > from && eg_sf_bits_of(sf->cue, t[i - 1].w))) {
        i = j - 1;
        continue;
      }
      unsigned kind = kind_named(sf, t, i, j, to);
      if (kind) {
        out[n++] = (slot){i, j + 1, 0, 0, kind, false, false, ST_CURRENT, 0, false};
        i = j;
        continue;
      }
      if (!known && j - i > 1)
        known = eg_sf_noun_bits(sf->suffix, t[j - 1].w); /* "Merrow Clinics", "Fenwick & Co" */
      if (!known && j - i > 1) known = eg_sf_bits_of(sf->proper, t[j - 1].w);
      if (!known && j - i > 1) known = eg_sf_bits_of(sf->prefix, t[i].w); /* "Honda Civic" */
      /* a make alone, mid-sentence, is the car or its maker ("I drive a Tesla now", "the
       * Tesla's been great": its clitic aside) */
      if (!known && j - i == 1 && !t[i].start && (known = eg_sf_bits_of(sf->prefix, key)))
        known |= sf->org_bit;
      /* "Cobalt Freight"; not "Yamaha Piano", a kind of a type's own */
      if (!known && j - i > 1 && !eg_sf_lookup_common(sf, t[j - 1].w))
        known = eg_sf_noun_bits(sf->trade, t[j - 1].w);
      if (!known) known = known_part(sn, key, j - i); /* "the Leaf", once "Nissan Leaf" */
      if (!known && after_year(t, from, i)) known = sf->year_types; /* "a 2016 Prius" */
      /* a part of a held value is that value ("Corvid" of "Corvid Analytics") */
      size_t hp = known ? 0 : part_of(&sn->held, key, j - i);
      if (hp) known = sn->held.bits[hp - 1];
      if (!known && !(t[i].start && j - i == 1 &&
                      eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, t[i].w)))
        known = model_bits(sf, t, i, j); /* "the Duster is here", not "Golf tomorrow?" */
      /* a lone capitalised sentence opener is a name when WordNet knows it as one, does not
       * know it as a word ("Jonas …"), it is bound to a kind word ("Nugget, my hamster, …") or
       * keeps the speaker company and is no word for a person ("Ines and I", not "Mum and
       * I"); else it is a word ("Harp practice …") */
      unsigned bound = bound_kind(sf, t, from, to, i, j);      /* "X, my hamster, …" */
      if (!bound && j - i == 1) bound = eg_sf_kinded(sn, key); /* "X … he's a beagle" */
      bool opener = t[i].start && j - i == 1 && !known && !bound && !is_session_name(sn, t[i].w) &&
                    !(eg_sf_with_me(t, from, to, i, j) && !eg_sf_bits_of(sf->people, t[i].w));
      bool word = eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, t[i].w) ||
                  eg_sf_lookup_common(sf, t[i].w) || compound_word(sf, t[i].w);
      /* a word named so is a pet's or a thing's name, not a person's ("Marmalade keeps …") */
      bool word_name = opener && word && bare_subject(sf, t, i, to);
      if (!opener || !word || word_name) {
        slot s = {i,
                  j,
                  0,
                  0,
                  known       ? known
                  : word_name ? sf->name_types & ~sf->person_bit
                              : sf->name_types,
                  true,
                  false,
                  ST_CURRENT,
                  hp ? sn->held_ix[hp - 1] + 1 : 0,
                  placed_at(sf, t, from, i) || (!known && town_bits(sf, key, j - i))};
        /* a language's name is no value of the user's ("check my English"; @unlike) */
        if (!known) s.bits &= ~eg_sf_bits_of(sf->unlike, key);
        /* nor is an adjective WordNet spells capitalised, alone ("all in Dutch"; not "Christian
         * and I") */
        if (!known && j - i == 1 && !eg_sf_with_me(t, from, to, i, j) &&
            eg_wordnet_is_common(sf->wn.proper_adjectives, sf->wn.n_proper_adjectives, t[i].w))
          s.bits = 0;
        /* a capital does not take a word's common sense away: "a Mediterranean diet" */
        unsigned common = j - i == 1 && !known ? eg_sf_lookup_common(sf, t[i].w) : 0;
        if (common) s.bits = common, s.proper = false;
        const char *prev = i > from ? t[i - 1].w : "";
        unsigned cue = cue_before(sf, t, from, i) | breed;
        if (!cue && !known) cue = belonging_after(sf, t, to, i, j); /* "Clover's hutch" */
        /* what it is bound to says more than what WordNet lists */
        if (!head_named(sf, t, from, i, &cue) && (!cue || (bound && named_of_him(sf, t, from, i))))
          cue = bound; /* … as what "he" or "she" stands for does ("he's called X") */
        if (cue && !(cue & s.bits)) s.held = 0; /* "my dog Kia": not the held Kia Sportage */
        if (cue) /* and a name, whatever else the word is: "my boyfriend Tom", "my cat Tom" */
          s.bits = cue, s.cued = true, s.proper = true;
        else if (!known && ((s.bits & sf->person_bit) || common) &&
                 eg_sf_with_me(t, from, to, i, j)) /* "Tom and I": no male cat */
          s.bits = sf->person_bit, s.proper = true;
        /* one who speaks or holds a view (@speaks: "X thinks we should get a dog", "X says
         * hi") is a person, no pet; not a preposition's object ("my boss at X says …") */
        else if (!known && (s.bits & sf->person_bit) && !t[j - 1].comma && j < to &&
                 !(i > from && (eg_sf_function_word(prev) ||
                                eg_sf_in_list(prev, before_object,
                                              sizeof before_object / sizeof *before_object))) &&
                 (eg_sf_verb_at(sf->speaks, t, j, to) ||
                  (eg_sf_bits_of(sf->speaks, t[j].w) &&
                   eg_wordnet_is_present3(&sf->wn.verbs, t[j].w))))
          s.bits = sf->person_bit;
        /* a place's name beside the speaker as a subject may be a person's ("Helena and I got
         * engaged", "Florence and I split up"): the words say which */
        else if ((known & sf->place_bit) && j - i == 1 && eg_sf_with_me(t, from, to, i, j))
          s.bits |= sf->person_bit;
        /* "my cousin X", "our neighbour X", "my boss X": a name after a noun for a person that
         * is no cue of a relation names that person, no value of the user's (not "someone:
         * X", which says who that someone is, nor a verb's past that WordNet also lists as
         * one: "I married X") */
        else if (!known && sf->person_bit && eg_sf_bits_of(sf->people, prev) &&
                 !(t[i - 1].comma && eg_sf_indefinite(prev)) &&
                 !eg_wordnet_is_past(&sf->wn.verbs, prev)) {
          /* … unless it is the verb after its subject, a word of a state's own (@domain), of
           * the name alone: "I date X" (not "I model X", "I date X matches", "I date X's
           * brother") */
          if (!eg_sf_verb_of_subject(sf, t, from, i - 1) || !eg_sf_bits_of(sf->domain, prev) ||
              eg_sf_possessive(t[j - 1].w) ||
              (j < to && !t[j - 1].comma && !t[j].cap && !eg_sf_function_word(t[j].w) &&
               eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, t[j].w) &&
               !eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, t[j].w))) {
            i = j - 1;
            continue;
          }
          s.bits &= sf->person_bit;
        }
        /* a kind of thing one names, in capitals mid-sentence with no determiner, is the name
         * of something else: "married to Tom" keeps no tomcat; when WordNet names an individual
         * so, of no type of ours, that one: "getting used to Python after years of C" keeps no
         * snake, nor a dragon; unless it stands where a value's name goes: "I work at Amazon",
         * a parrot's kind and a river */
        else if (common && (common & sf->cue_types) == common && !t[i].start &&
                 !(i > from && (eg_sf_determiner(prev) || t[i - 1].digit))) {
          s.bits = sf->name_types & ~common, s.proper = true;
          unsigned frame = s.bits ? name_frame(sf, t, from, i) : 0;
          if (frame) s.bits &= frame;
          if (!s.bits ||
              (!frame && eg_wordnet_is_common(sf->wn.instances, sf->wn.n_instances, t[i].w))) {
            i = j - 1;
            continue;
          }
        }
        out[n++] = s;
        i = j - 1;
        continue;
      }
    }
    /* a make and its model in lower case, as chat writes them ("my honda civic", "a used
     * toyota tacoma", "a tesla model 3"): a make's word (@prefix) and the next word, and a
     * number after it, are a name of the make's type */
    unsigned make = eg_sf_bits_of(sf->prefix, t[i].w);
    if (make && !t[i].cap && !t[i].comma && i + 1 < to && model_word(sf, &t[i + 1])) {
      size_t j = i + 2;
      if (j < to && t[j].digit && !t[j - 1].comma) j++;
      out[n++] = (slot){i, j, 0, 0, make, true, false, ST_CURRENT, 0, false};
      i = j - 1;
      continue;
    }
    if (t[i].cap && !t[i].start && !t[i].shout) continue; /* "GOT A FERRET": the word */
    size_t kj = 0, kk = lower_known(sf, sn, t, from, i, to, &kj);
    if (kk) {
      out[n++] = (slot){i, kj, 0, 0, sn->known->bits[kk - 1], true, false, ST_CURRENT, 0, false};
      i = kj - 1;
      continue;
    }
    /* a held value named in lower case by a word of it after a determiner ("sold the focus",
     * "left the clinic"), or by its one word ("sold the golf") */
    static const char *const det[] = {"the", "my", "our"};
    size_t hw = 0;
    if (!t[i].cap && i > from && eg_sf_in_list(t[i - 1].w, det, 3) &&
        !eg_sf_function_word(t[i].w)) {
      hw = sn ? part_of(&sn->held, t[i].w, 1) : 0;
      if (!hw) hw = whole_held(sf, sn, t[i].w);
    }
    if (hw) {
      out[n++] = (slot){i,
                        i + 1,
                        0,
                        0,
                        sn->held.bits[hw - 1],
                        true,
                        false,
                        ST_CURRENT,
                        sn->held_ix[hw - 1] + 1,
                        false};
      continue;
    }
    /* a model's name alone, shouted ("THE DUSTER IS HERE") or in lower case after a
     * determiner and up to two adjectives when it is no word ("my prius", "the rav4", "a
     * second-hand yaris", "my trusty old prius"; not "my golf") */
    static const char *const owner[] = {"the", "my", "our", "a", "an", "new", "used"};
    unsigned lone = !t[i].cap || t[i].shout ? model_bits(sf, t, i, i + 1) : 0;
    size_t d = i;
    while (d > from && d + 2 > i && !t[d - 1].comma &&
           (eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, t[d - 1].w) ||
            compound_word(sf, t[d - 1].w)) &&
           !eg_sf_in_list(t[d - 1].w, owner, sizeof owner / sizeof *owner))
      d--;
    if (lone && !t[i].shout &&
        (d == from || !eg_sf_in_list(t[d - 1].w, owner, sizeof owner / sizeof *owner) ||
         eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, t[i].w)))
      lone = 0;
    if (lone) {
      size_t j = i + 1 < to && t[i + 1].digit && !t[i].comma ? i + 2 : i + 1; /* "ioniq 5" */
      out[n++] = (slot){i, j, 0, 0, lone, true, false, ST_CURRENT, 0, false};
      i = j - 1;
      continue;
    }
    unsigned ak = opening_apposition(sf, t, from, to, i);
    if (ak) {
      out[n++] = (slot){i, i + 1, 0, 0, ak, true, true, ST_CURRENT, 0, false};
      continue;
    }
    size_t fj = ampersand_name(sf, t, i, to);
    if (fj) {
      out[n++] = (slot){i, fj, 0, 0, sf->org_bit, true, false, ST_CURRENT, 0, false};
      i = fj - 1;
      continue;
    }
    /* a namesake in lower case typed by what it has ("kiwi's cage") */
    unsigned had = namesake_belonging(sf, t, to, i);
    if (had) {
      out[n++] = (slot){i, i + 1, 0, 0, had, true, true, ST_CURRENT, 0, false};
      continue;
    }
    /* a name in lower case, as chat writes them, where only a name goes: keeping the speaker
     * company ("tobias and I") or right after a kind word ("gf chloe's bday", "my hamster
     * fidget"), a person or of that kind; where a word would need its article, the subject
     * opening a (sub-)clause before its verb ("lukas cheated", "joanna's moving in") or a
     * verb's object ("been seeing adebayo"), of any type a name may have; not a word ("my dog
     * walker") */
    bool parted = parted_with(sf, t, from, i), unknown = lower_name(sf, &t[i]);
    unsigned framed = parted ? 0 : framed_name(sf, t, from, to, i);
    if (unknown || framed || parted) {
      unsigned kind = parted                        ? sf->person_bit
                      : framed == sf->org_bit       ? framed
                      : i > from && !t[i - 1].comma ? eg_sf_kind_bits(sf, t[i - 1].w)
                      : i > from && t[i - 1].comma && framed && !unknown
                          ? framed /* "lurcher, dot," */
                          : 0;
      /* "called him kevin"; and a word no list knows given as a name or bound to a kind word
       * ("her name is zoe", "meet nala, our new kitten") */
      if (!kind && (unknown || given_name(sf, t, from, i)))
        kind = bound_kind(sf, t, from, to, i, i + 1);
      unsigned bits = kind                                   ? kind
                      : after_year(t, from, i)               ? sf->year_types
                      : eg_sf_with_me(t, from, to, i, i + 1) ? sf->person_bit
                      : name_position(sf, t, from, to, i)    ? sf->name_types
                                                             : 0;
      /* a place WordNet knows by that name is that place ("leaving london for good") */
      if (bits == sf->name_types && unknown && (eg_sf_bits_of(sf->proper, t[i].w) & sf->place_bit))
        bits = sf->place_bit;
      if (bits) {
        bool placed = bits == sf->name_types && placed_at(sf, t, from, i);
        /* a saint's title is no name alone: the word after it is the name's ("st marys") */
        size_t e = i + 1;
        if ((!strcmp(t[i].w, "st") || !strcmp(t[i].w, "saint")) && e < to && !t[i].comma &&
            !t[e].cap && !eg_sf_function_word(t[e].w))
          e++;
        /* a firm's word after it is part of the name ("fennick labs", "quillon games") */
        unsigned firm = (!kind || kind == framed) && e < to && !t[e - 1].comma && !t[e].cap
                            ? eg_sf_noun_bits(sf->suffix, t[e].w)
                            : 0;
        out[n++] =
            (slot){i, e + !!firm, 0, 0, firm ? firm : bits, true, kind != 0, ST_CURRENT, 0, placed};
        i = e + !!firm - 1;
        continue;
      }
    }
    /* elsewhere, a place WordNet knows by its name ("moved to lisbon") */
    unsigned place = 0;
    bool placed = placed_at(sf, t, from, i);
    size_t pj = t[i].cap ? 0 : lower_proper(sf, t, i, to, placed, &place);
    if (pj) {
      out[n++] = (slot){i, pj, 0, 0, place, true, false, ST_CURRENT, 0, placed};
      i = pj - 1;
      continue;
    }
    unsigned b = 0;
    size_t j = i + 1;
    if (i + 1 < to) { /* two-word lemmas first: "electric guitar", "guinea pig" */
      char two[80];
      snprintf(two, sizeof two, "%s %s", t[i].w, t[i + 1].w);
      if (!eg_sf_bits_of(sf->generic, two) && (b = eg_sf_bits_of(sf->common, two))) j = i + 2;
    }
    if (!b) b = eg_sf_lookup_common(sf, t[i].w);
    /* an adjective too, before a plural kind word, qualifies a class: "electric cars" */
    if (b && j == i + 1 && class_qualifier(sf, t, i, to)) b = 0;
    if (b) {
      char key[80];
      eg_sf_span_key(t, i, j, key, sizeof key);
      size_t h = synonym_held(sf, sn, key, b);
      out[n++] =
          (slot){i, j, 0, 0, b, false, false, ST_CURRENT, h ? sn->held_ix[h - 1] + 1 : 0, false};
      i = j - 1;
    }
  }
  /* a name of no known type right before a known place ("the Plateau in X", "Hackney, X")
   * is a part of it: the known place is the one a place is asked by */
  for (size_t k = 0; k + 1 < n; k++) {
    const slot *y = &out[k + 1];
    bool part = out[k].proper && out[k].bits == sf->name_types && y->proper &&
                (y->bits & sf->place_bit) && y->bits != sf->name_types &&
                ((y->ts == out[k].te && t[out[k].te - 1].comma) ||
                 (y->ts == out[k].te + 1 && !strcmp(t[out[k].te].w, "in")));
    if (part) out[k].bits &= ~sf->place_bit;
  }
  n = corrected(t, out, n);
  /* a named pet or partner makes the kind word beside it ("a dog named X") no value */
  bool named_cue = false;
  for (size_t k = 0; k < n; k++) named_cue |= out[k].cued;
  if (named_cue) {
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
      if (out[k].proper || !(out[k].bits & eg_sf_kind_bits(sf, t[out[k].ts].w))) out[m++] = out[k];
    n = m;
  }
  return n;
}

/* Is slots[k] a place a route starts from, the place after "to" right after it its end ("Leeds
 * to Bristol", "osaka -> vancouver": chat's arrow reads as "to"), as after "from"? (A route
 * the user only travelled leaves both places as they were: the caller asks that its end be
 * current.) */
bool eg_sf_route_origin(const eg_statefacts *sf, const token *t, const slot *slots, size_t ns,
                        size_t k) {
  unsigned place = sf->place_bit;
  return k + 1 < ns && (slots[k].bits & place) && (slots[k + 1].bits & place) &&
         !t[slots[k].te - 1].comma && slots[k + 1].ts == slots[k].te + 1 &&
         !strcmp(t[slots[k].te].w, "to");
}

/* The determiners a value of the speaker's may stand after in a change or a list ("from the
 * Golf to a Zoe", "a Golf, a Polo or a Clio"). */
static const char *const values_det[] = {"a", "an", "the", "my", "our"};

unsigned eg_sf_changed_over(const eg_statefacts *sf, const token *t, size_t from, const slot *slots,
                            size_t k) {
  static const char *const swap[] = {"swap",      "swaps",    "swapped", "swapping",
                                     "traded",    "trade",    "trading", "in",
                                     "exchanged", "exchange", "switch",  "switched"};
  if (k == 0) return 0;
  const slot *a = &slots[k - 1], *b = &slots[k];
  /* a name of no known type is of the kind it changes from ("swapped the Fiesta for a Zoe") */
  unsigned bb = b->proper && b->bits == sf->name_types ? a->bits : b->bits;
  int r = eg_sf_only_taker(sf, a->bits & bb & ~sf->place_bit);
  if (r < 0 || t[a->te - 1].comma || a->te >= b->ts) return 0;
  size_t q = a->te + 1, v = a->ts;
  while (q < b->ts && eg_sf_in_list(t[q].w, values_det, sizeof values_det / sizeof *values_det))
    q++;
  while (v > from && eg_sf_in_list(t[v - 1].w, values_det, sizeof values_det / sizeof *values_det))
    v--;
  if (q != b->ts || v == from) return 0;
  /* "from piano to violin", "from the Golf to a Zoe"; "swapped the sax for a X", "traded in the
   * Golf for a X" */
  bool over = !strcmp(t[a->te].w, "to") && !strcmp(t[v - 1].w, "from");
  bool swapped = !strcmp(t[a->te].w, "for") &&
                 eg_sf_in_list(t[v - 1].w, swap, sizeof swap / sizeof *swap) &&
                 (strcmp(t[v - 1].w, "in") || (v - 1 > from && !strcmp(t[v - 2].w, "traded")));
  return over || swapped ? 1u << r : 0;
}

/* How slots a and b (b after a) are joined in a list: 'o' by "or" ("violin or gayageum", "or
 * a Clio"), 'c' by a comma ("a Golf, a Polo"), 0 otherwise; determiners aside. */
static char joined(const token *t, const slot *a, const slot *b) {
  if (!(a->bits & b->bits) || b->ts < a->te) return 0;
  size_t q = a->te;
  char how = t[a->te - 1].comma ? 'c' : 0;
  if (q < b->ts && !strcmp(t[q].w, "or")) how = 'o', q++;
  while (q < b->ts && eg_sf_in_list(t[q].w, values_det, sizeof values_det / sizeof *values_det))
    q++;
  return q == b->ts ? how : 0;
}

/* Is slots[k] one of values offered as alternatives, "or" between the last two of a list of
 * its type ("which is harder, violin or gayageum", "vancouver or toronto?", "a Golf, a Polo
 * or a Clio")? Such a value is weighed, not held. */
bool eg_sf_alternative(const token *t, const slot *slots, size_t ns, size_t k) {
  size_t a = k, b = k;
  while (a > 0 && joined(t, &slots[a - 1], &slots[a])) a--;
  while (b + 1 < ns && joined(t, &slots[b], &slots[b + 1])) b++;
  return b > a && joined(t, &slots[b - 1], &slots[b]) == 'o';
}
