/*
 * statefacts_markers.c — where the prototypes file's words of tense, negation and ending
 * (@past, @future, @negation, @ended, @ends …) stand in a clause's tokens: the markers of a
 * kind in a span or right before a token, a verb that ends a state (any of its forms, its
 * particles after an object), a past that a present perfect does not make current, and
 * what looks ahead: a future, a progressive arranging a state, a date read forward.
 */
#include <stdio.h>
#include <string.h>

#include "common/map.h"
#include "common/time.h"
#include "lang/statefacts_int.h"

/* How many tokens marker m covers from token i (bounded by to); 0 when it does not match. With
 * sf, an adverb in -ly may stand between its words ("thinking seriously about", "used
 * mostly to"), as English puts one into a verb phrase. */
static size_t marker_at(const eg_statefacts *sf, const marker *m, const token *t, size_t i,
                        size_t to) {
  size_t j = i;
  for (int k = 0; k < m->n; k++, j++) {
    const char *p = m->w[k];
    while (k > 0 && sf && j + 1 < to && strcmp(t[j].w, p) != 0 && eg_sf_ly_adverb(sf, t[j].w)) j++;
    if (j >= to) return 0;
    const char *w = t[j].w;
    size_t pl = strlen(p), wl = strlen(w);
    if (pl > 1 && p[pl - 1] == '-') { /* "ex-": a prefix */
      if (strncmp(w, p, pl - 1) != 0 || wl < pl) return 0;
    } else if (p[0] == 'n' && p[1] == '\'') { /* "n't": a suffix */
      if (wl < pl || strcmp(w + wl - pl, p) != 0) return 0;
    } else if (strcmp(w, p) != 0) {
      return 0;
    }
  }
  return j - i;
}

/* … as a marker of kind k: "used to" after a form of "be" or "get" is no past but being
 * accustomed ("still getting used to X", "I'm used to X"); a negation of "believe" or an
 * inability to stop is none, nor "old" after "same" a former one. */
static size_t kind_at(const eg_statefacts *sf, marker_kind k, const marker *m, const token *t,
                      size_t i, size_t to) {
  static const char *const be_get[] = {"be",  "being",   "been",   "am",    "'m",    "i'm",
                                       "is",  "are",     "was",    "were",  "get",   "gets",
                                       "got", "getting", "gotten", "we're", "you're"};
  if (k == MK_PAST && !strcmp(t[i].w, "used") && i > 0 &&
      eg_sf_in_list(t[i - 1].w, be_get, sizeof be_get / sizeof *be_get))
    return 0;
  /* "the same old X" is no former one */
  if (k == MK_FORMER && i > 0 && !strcmp(t[i - 1].w, "same") && !strcmp(t[i].w, "old")) return 0;
  size_t n = marker_at(sf, m, t, i, to);
  /* disbelief is no negation of what follows: "can't believe I've been in X 3 years" */
  if (k == MK_NEGATION && n && i + n < to && !strcmp(t[i + n].w, "believe")) return 0;
  /* … nor an inability to stop, of what goes on now: "can't stop playing my X" (not "never
   * quit playing X", nor "couldn't stop playing X as a kid") */
  static const char *const cannot[] = {"can't", "cannot", "cant"}, *const stop[] = {"stop", "quit"};
  if (k == MK_NEGATION && n == 1 && eg_sf_in_list(t[i].w, cannot, 3) && i + 2 < to &&
      eg_sf_in_list(t[i + 1].w, stop, 2) && eg_wordnet_is_ing(&sf->wn.verbs, t[i + 2].w))
    return 0;
  /* a modal before a verb of saying plans nothing of what is said: "I should mention I work at
   * X", "I'd say X is home" */
  static const char *const say[] = {"mention", "say",     "add",     "note",   "admit",
                                    "point",   "explain", "confess", "clarify"};
  if (k == MK_FUTURE && n && i + n < to && eg_sf_in_list(t[i + n].w, say, sizeof say / sizeof *say))
    return 0;
  return n;
}

bool eg_sf_has_marker(const eg_statefacts *sf, marker_kind k, const token *t, size_t from,
                      size_t to) {
  for (size_t i = from; i < to; i++)
    if (eg_sf_marker_starts(sf, k, t, i, to)) return true;
  return false;
}

bool eg_sf_has_any_marker(const eg_statefacts *sf, const marker_kind *kinds, size_t n,
                          const token *t, size_t from, size_t to) {
  for (size_t m = 0; m < n; m++)
    if (eg_sf_has_marker(sf, kinds[m], t, from, to)) return true;
  return false;
}

size_t eg_sf_marker_starts(const eg_statefacts *sf, marker_kind k, const token *t, size_t i,
                           size_t to) {
  for (int m = 0; m < sf->n_markers[k]; m++) {
    size_t n = kind_at(sf, k, &sf->markers[k][m], t, i, to);
    if (n) return n;
  }
  return 0;
}

/* The length of a marker of kind k that ends right before token `end`; 0 for none. */
size_t eg_sf_ends_marker(const eg_statefacts *sf, marker_kind k, const token *t, size_t from,
                         size_t end) {
  for (int m = 0; m < sf->n_markers[k]; m++) {
    size_t n = (size_t)sf->markers[k][m].n;
    if (end >= from + n && kind_at(NULL, k, &sf->markers[k][m], t, end - n, end) == n) return n;
  }
  return 0;
}

/* Does a form of a verb of the table forms (@ends, @takes) start at token i, its words (up to
 * four) before `to`? A base form only after the speaker as subject ("I stop the X"). */
bool eg_sf_verb_at(const eg_map *forms, const token *t, size_t i, size_t to) {
  static const char *const speaker[] = {"i", "we"};
  bool after_i = i > 0 && !t[i - 1].comma && eg_sf_in_list(t[i - 1].w, speaker, 2);
  char key[128];
  size_t kl = 0;
  for (size_t k = i; k < to && k < i + 4; k++) {
    int w = snprintf(key + kl, sizeof key - kl, "%s%s", k > i ? " " : "", t[k].w);
    if (w < 0 || (size_t)w >= sizeof key - kl) return false;
    kl += (size_t)w;
    unsigned bits = eg_sf_bits_of(forms, key);
    if ((bits & EG_SF_ANY_FORM) || ((bits & EG_SF_AFTER_I) && after_i)) return true;
  }
  return false;
}

/* Is the verb at t[v] with the words from t[after] (up to three, before `to`) a form of a verb
 * of the table forms (@ends, @declines), its object between them: "called it off", "put X to
 * sleep", "turned it down"? */
bool eg_sf_verb_around(const eg_map *forms, const token *t, size_t v, size_t after, size_t to) {
  char key[128];
  int kl = snprintf(key, sizeof key, "%s", t[v].w);
  for (size_t k = after; k < to && k < after + 3 && kl > 0 && (size_t)kl < sizeof key; k++) {
    kl += snprintf(key + kl, sizeof key - (size_t)kl, " %s", t[k].w);
    if ((size_t)kl < sizeof key && eg_map_get(forms, key, (size_t)kl)) return true;
  }
  return false;
}

/* Does a form of a verb of the table forms start at token i, its words before `to`? A particle
 * may follow an object pronoun: "called it off", "gave them up", "turned it down". */
static bool verb_or_split_at(const eg_map *forms, const token *t, size_t i, size_t to) {
  static const char *const object[] = {"it", "them", "him", "her", "that", "this"};
  if (eg_sf_verb_at(forms, t, i, to)) return true;
  return i + 2 < to && eg_sf_in_list(t[i + 1].w, object, sizeof object / sizeof *object) &&
         eg_sf_verb_around(forms, t, i, i + 2, to);
}

/* Does an @ends verb or an @ended marker start at token i, its words before `to`? */
bool eg_sf_ends_at(const eg_statefacts *sf, const token *t, size_t i, size_t to) {
  if (verb_or_split_at(sf->ends, t, i, to)) return true;
  for (int m = 0; m < sf->n_markers[MK_ENDED]; m++)
    if (marker_at(sf, &sf->markers[MK_ENDED][m], t, i, to)) return true;
  return false;
}

/* Is token i "passed" as a death is told, with no object and no particle of another sense ("X
 * passed last winter", "our dog passed in May"; not "passed my test", "passed out", "passed
 * us on the road")? */
static bool passed_on(const token *t, size_t i, size_t to) {
  static const char *const other[] = {
      "me",   "us",   "him", "her",  "it",    "them",  "you",    "by",  "out",  "over",  "up",
      "down", "into", "its", "your", "along", "round", "around", "all", "each", "every", "through"};
  return !strcmp(t[i].w, "passed") &&
         (t[i].comma || i + 1 >= to ||
          (!eg_sf_determiner(t[i + 1].w) &&
           !eg_sf_in_list(t[i + 1].w, other, sizeof other / sizeof *other)));
}

/* Does a pronoun at t[b] open a sub-clause, resuming a value before it ("X, she …")? */
static bool resumes(const token *t, size_t b) {
  static const char *const resumed[] = {"he", "she", "it"};
  return b > 0 && t[b - 1].comma && eg_sf_in_list(t[b].w, resumed, 3);
}

/* An @ended marker or an @ends verb in [from, to) before any other verb of the predicate: not
 * one in a habit, which goes on ("my bf X keeps leaving dishes in the sink"), nor the object
 * of another verb ("my dog X hates leaving the house"), nor one past another subject that
 * gives to the user ("the X my gran left me"; "X left me" is X's). Auxiliaries and modals
 * come before it: "X was put down", "X has sadly passed away". */
bool eg_sf_has_ending(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  static const char *const aux[] = {"is",   "was",   "are",   "were", "'s",    "has",
                                    "had",  "have",  "got",   "gets", "been",  "be",
                                    "will", "would", "might", "may",  "could", "should"};
  static const char *const to_user[] = {"me", "us"};
  for (size_t i = from; i < to; i++) {
    if (resumes(t, i)) return eg_sf_resumed_ending(sf, t, i, to);
    /* "X let me go", "X laid us off": the user's relation ended, the user its object */
    if (i + 1 < to && eg_sf_in_list(t[i + 1].w, to_user, 2) &&
        eg_sf_marker_starts(sf, MK_ENDED, t, i, to) > 2)
      return true;
    if (!(i > from && i + 1 < to && eg_sf_in_list(t[i + 1].w, to_user, 2)) &&
        (eg_sf_ends_at(sf, t, i, to) || passed_on(t, i, to)))
      return true;
    if (!eg_sf_in_list(t[i].w, aux, sizeof aux / sizeof *aux) &&
        (eg_wordnet_is_past(&sf->wn.verbs, t[i].w) ||
         eg_wordnet_is_present3(&sf->wn.verbs, t[i].w)))
      return false;
  }
  return false;
}

bool eg_sf_resumed_ending(const eg_statefacts *sf, const token *t, size_t b, size_t to) {
  static const char *const place[] = {"in", "at", "on", "of", "from", "after", "before", "during"};
  if (b >= to || !resumes(t, b)) return false;
  size_t r = b + 1;
  while (r < to && !t[r - 1].comma && !eg_sf_joint(t[r].w, false)) {
    if (eg_sf_determiner(t[r].w) && !eg_sf_in_list(t[r - 1].w, place, sizeof place / sizeof *place))
      return false; /* an object: the ending is of something of theirs */
    r++;
  }
  return eg_sf_has_ending(sf, t, b + 1, r);
}

bool eg_sf_declined(const eg_statefacts *sf, const token *t, size_t from, size_t ts) {
  for (size_t k = from; k < ts; k++)
    if (verb_or_split_at(sf->declines, t, k, ts)) return true;
  return false;
}

/* A past marker, unless a present perfect makes it current ("I have lived in X since …"). */
bool eg_sf_has_past(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  static const char *const perfect[] = {"have", "has", "i've", "we've", "'ve"};
  /* a verb of a past state moving somewhere tells an event, not the state: "drove home a X" */
  static const char *const away[] = {"home", "off", "away"};
  /* "back in my …" after a present "be" is a return, not a time gone: "I'm back in my hometown" */
  static const char *const be_now[] = {"i'm", "im", "we're", "am", "are", "is"};
  for (size_t i = from; i < to; i++)
    for (int m = 0; m < sf->n_markers[MK_PAST]; m++) {
      const marker *k = &sf->markers[MK_PAST][m];
      size_t n = kind_at(sf, MK_PAST, k, t, i, to), after = i + n;
      if (n && i > 0 && !strcmp(t[i].w, "back") &&
          eg_sf_in_list(t[i - 1].w, be_now, sizeof be_now / sizeof *be_now))
        continue;
      if (n && !(i > 0 && eg_sf_in_list(t[i - 1].w, perfect, sizeof perfect / sizeof *perfect)) &&
          !(k->n == 1 && after < to && eg_sf_in_list(t[after].w, away, sizeof away / sizeof *away)))
        return true;
    }
  return false;
}

/* Is the value at ts the complement of the speaker's past copula or past progressive, only
 * adverbs, articles, a preposition of place and the progressive's verb between them ("I was
 * vegan until last year", "I was a vegetarian at uni", "I was at X for six years", "we were
 * renting in X", "I was driving a X back then")? A past state, as "used to" says; not a
 * passive, whose participle comes between ("I was hired at X", "we were moved to X"). */
bool eg_sf_past_copula(const eg_statefacts *sf, const token *t, size_t from, size_t ts) {
  static const char *const subject[] = {"i", "we"};
  static const char *const was[] = {"was", "were"};
  static const char *const place[] = {"in", "at", "with", "on"};
  bool verb = false;
  for (size_t k = ts; k > from + 1 && ts - k < 5 && !t[k - 1].comma; k--) {
    const char *w = t[k - 1].w;
    if (eg_sf_in_list(w, was, 2)) return eg_sf_in_list(t[k - 2].w, subject, 2);
    bool ing = !verb && eg_wordnet_is_ing(&sf->wn.verbs, w);
    verb |= ing;
    if (!ing && !eg_sf_determiner(w) && !eg_sf_in_list(w, place, 4) &&
        !eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, w))
      return false;
  }
  return false;
}

/* How many tokens from k count a stretch: up to three words of count (a digit or one of
 * count[0..nc)) and a unit of unit[0..nu); 0 for none. */
static size_t stretch(const token *t, size_t k, size_t to, const char *const *count, size_t nc,
                      const char *const *unit, size_t nu) {
  size_t q = k;
  while (q < to && q < k + 4 && (t[q].digit || eg_sf_in_list(t[q].w, count, nc))) q++;
  return q > k && q < to && eg_sf_in_list(t[q].w, unit, nu) ? q + 1 - k : 0;
}

/* How many tokens from k count a stretch shorter than a month ("two weeks", "a few days", "the
 * weekend", "10 days"); 0 for none. */
static size_t stay_length(const token *t, size_t k, size_t to) {
  static const char *const count[] = {"a",   "an",  "one",    "two", "three", "four", "five",
                                      "six", "few", "couple", "of",  "the",   "long"};
  static const char *const unit[] = {"day",   "days",      "night",   "nights",  "week",
                                     "weeks", "fortnight", "weekend", "weekends"};
  return stretch(t, k, to, count, sizeof count / sizeof *count, unit, sizeof unit / sizeof *unit);
}

/* … said by "for" ("for two weeks", "for 10 days", "for a couple of nights"). */
static size_t short_stay(const token *t, size_t k, size_t to) {
  if (strcmp(t[k].w, "for") != 0 || k + 1 >= to) return 0;
  size_t n = stay_length(t, k + 1, to);
  return n ? n + 1 : 0;
}

bool eg_sf_spent_stay(const token *t, size_t from, size_t ts) {
  static const char *const spend[] = {"spend", "spends", "spent", "spending"};
  for (size_t k = from; k + 1 < ts; k++)
    if (eg_sf_in_list(t[k].w, spend, 4) && stay_length(t, k + 1, ts)) return true;
  return false;
}

bool eg_sf_spent_years(const token *t, size_t from, size_t ts) {
  static const char *const count[] = {"a",   "an",  "one",    "two", "three",   "four", "five",
                                      "six", "few", "couple", "of",  "several", "many", "ten"};
  static const char *const unit[] = {"month", "months", "year", "years", "decade", "decades"};
  static const char *const have[] = {"have", "has", "had", "i've", "we've", "ive", "weve"};
  for (size_t k = from; k + 2 < ts; k++)
    if (!strcmp(t[k].w, "spent") && !(k > from && eg_sf_in_list(t[k - 1].w, have, 7)) &&
        stretch(t, k + 1, ts, count, sizeof count / sizeof *count, unit,
                sizeof unit / sizeof *unit))
      return true;
  return false;
}

/* … or by "for" and an occasion gone to (@occasions), up to three words before it ("for a
 * conference", "for my cousin's wedding", "for the work summit"). */
static size_t for_occasion(const eg_statefacts *sf, const token *t, size_t k, size_t to) {
  if (strcmp(t[k].w, "for") != 0) return 0;
  for (size_t q = k + 1; q < to && q < k + 5; q++) {
    if (eg_sf_bits_of(sf->occasions, t[q].w)) return q + 1 - k;
    if (t[q].comma || eg_sf_joint(t[q].w, false)) break;
  }
  return 0;
}

/* Does a stay of a set length (@stay, or a count of days or weeks) follow the value ending at
 * te in its own predicate, up to a comma or the word joining the next ("went to X for a long
 * weekend"; not "I live in X and go to Y for a weekend")? Then the value is only visited; a
 * place is too for an occasion ("in X for a conference"; a cello is not: "practising the X for a
 * concert"). Not a stretch up to now: "for a week now", "for a week already". */
bool eg_sf_stay_after(const eg_statefacts *sf, const token *t, size_t te, size_t to, bool place) {
  static const char *const upto[] = {"now", "already", "so"};
  for (size_t k = te; k < to; k++) {
    if (t[k - 1].comma || eg_sf_joint(t[k].w, false)) break;
    size_t n = eg_sf_marker_starts(sf, MK_STAY, t, k, to);
    if (!n) n = short_stay(t, k, to);
    if (!n && place) n = for_occasion(sf, t, k, to);
    if (n) return !(k + n < to && !t[k + n - 1].comma && eg_sf_in_list(t[k + n].w, upto, 3));
  }
  return false;
}

bool eg_sf_sited(const eg_statefacts *sf, const token *t, size_t from, size_t p) {
  static const char *const sited[] = {"based", "located", "headquartered", "situated"};
  if (p < from + 3 || strcmp(t[p - 1].w, "in") != 0 || t[p - 3].comma ||
      !eg_sf_in_list(t[p - 2].w, sited, sizeof sited / sizeof *sited))
    return false;
  const char *n = t[p - 3].w;
  return eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, n) && !eg_sf_function_word(n) &&
         !eg_sf_joint(n, false) && !eg_sf_copula(n) && !eg_sf_ly_adverb(sf, n) &&
         !eg_wordnet_is_past(&sf->wn.verbs, n) && !eg_wordnet_is_present3(&sf->wn.verbs, n);
}

bool eg_sf_verb_of_subject(const eg_statefacts *sf, const token *t, size_t from, size_t n) {
  static const char *const verbal[] = {"i", "we", "you", "they", "he", "she", "and", "to"};
  return n > from && eg_sf_in_list(t[n - 1].w, verbal, sizeof verbal / sizeof *verbal) &&
         eg_wordnet_is_verb(&sf->wn.verbs, t[n].w);
}

bool eg_sf_held_thing_in(const eg_statefacts *sf, const token *t, size_t from, size_t p) {
  if (p < from + 2 || strcmp(t[p - 1].w, "in") != 0 || t[p - 2].comma) return false;
  size_t n = p - 2; /* the noun, before "is" where one stands ("our office is in X") */
  if (eg_sf_copula(t[n].w) && n > from && !t[n - 1].comma) n--;
  /* a noun that is a verb too is the verb after a subject or a joint ("I live and work in X",
   * "we work in X"; not "from work in X", "my new job in X") */
  if (eg_sf_verb_of_subject(sf, t, from, n)) return false;
  char key[48];
  snprintf(key, sizeof key, "at %s", t[n].w);
  unsigned rels = eg_sf_bits_of(sf->holds, key);
  snprintf(key, sizeof key, "in %s", t[n].w);
  rels |= eg_sf_bits_of(sf->holds, key);
  return (rels & ~eg_sf_takers(sf, sf->place_bit)) != 0;
}

bool eg_sf_destination(const eg_statefacts *sf, const token *t, size_t nt, size_t from, size_t to,
                       const slot *s) {
  static const char *const toward[] = {"to", "into", "towards", "toward"};
  static const char *const back[] = {"back", "home"};
  size_t p = s->ts, a, b;
  /* right after "to": after a determiner the name qualifies a noun ("into my X flat") */
  if (p == from || !eg_sf_in_list(t[p - 1].w, toward, sizeof toward / sizeof *toward)) return false;
  /* going back or home is a return, where the home may be: "flew back to X", "home to X" */
  if (p >= from + 2 && eg_sf_in_list(t[p - 2].w, back, 2)) return false;
  eg_sf_sub_clause(t, from, to, s->ts, &a, &b);
  bool going = false;
  for (size_t v = a; v + 1 < p; v++) {
    if (eg_sf_ends_at(sf, t, v, p - 1)) return false; /* a home left for it */
    going |= eg_sf_bits_of(sf->journeys, t[v].w) != 0;
  }
  /* a move told anywhere in the message, its sub-clause too, makes the way there the move's:
   * "drove to X yesterday. the movers come on Friday" */
  for (size_t v = 0; going && v < nt; v++)
    if (eg_sf_bits_of(sf->routes, t[v].w) || eg_sf_verb_at(sf->relocates, t, v, nt)) return false;
  return going;
}

size_t eg_sf_progressive(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  static const char *const be[] = {"am", "'m", "i'm",  "im",    "are",     "'re", "we're",
                                   "is", "'s", "he's", "she's", "they're", "it's"};
  for (size_t k = from; k + 1 < to; k++)
    if (eg_sf_in_list(t[k].w, be, sizeof be / sizeof *be) &&
        eg_wordnet_is_ing(&sf->wn.verbs, t[k + 1].w))
      return k + 1;
  return SIZE_MAX;
}

/* The stems the regular rules may detach a verb's form to ("moving": "mov", "move";
 * "getting": "get"; "moved": "mov", "move"), the word itself first; how many, into out. */
static size_t stems(const char *w, char out[4][32]) {
  size_t n = 0, l = strlen(w);
  if (l >= sizeof out[0]) return 0;
  snprintf(out[n++], sizeof out[0], "%s", w);
  size_t cut = l > 5 && !strcmp(w + l - 3, "ing") ? 3 : l > 4 && !strcmp(w + l - 2, "ed") ? 2 : 0;
  if (!cut) return n;
  size_t b = l - cut;
  snprintf(out[n++], sizeof out[0], "%.*se", (int)b, w); /* "mov" + "e" */
  snprintf(out[n++], sizeof out[0], "%.*s", (int)b, w);  /* "start" */
  if (b >= 2 && w[b - 1] == w[b - 2])                    /* "gett" → "get" */
    snprintf(out[n++], sizeof out[0], "%.*s", (int)b - 1, w);
  return n;
}

static bool same_stem(const char *a, const char *b) {
  char sa[4][32], sb[4][32];
  size_t na = stems(a, sa), nb = stems(b, sb);
  for (size_t i = 0; i < na; i++)
    for (size_t j = 0; j < nb; j++)
      if (!strcmp(sa[i], sb[j])) return true;
  return false;
}

/* The verb that arranges the value at ts in its sub-clause of [from, to): a present
 * progressive's, or SIZE_MAX. */
static size_t arranging_verb(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                             size_t ts) {
  size_t a, b;
  eg_sf_sub_clause(t, from, to, ts, &a, &b);
  size_t v = eg_sf_progressive(sf, t, a, ts);
  /* chat drops the speaker and the auxiliary: "Starting at X in February!", "handed in my
   * notice, starting at X on the 1st" */
  if (v == SIZE_MAX && a < ts && (t[a].start || (a > from && t[a - 1].comma)) &&
      eg_wordnet_is_ing(&sf->wn.verbs, t[a].w))
    v = a;
  /* … and a plan is told in the simple present: "I start at X on Monday", "we move in May",
   * the speaker dropped as chat does ("start at X on the 3rd!!"); the verb nearest the value
   * ("I cook and I buy the flowers in X": "buy") */
  for (size_t k = ts; v == SIZE_MAX && k-- > a;)
    if ((k > a ? !strcmp(t[k - 1].w, "i") || !strcmp(t[k - 1].w, "we") : t[k].start) &&
        eg_wordnet_is_verb(&sf->wn.verbs, t[k].w) && !eg_wordnet_is_past(&sf->wn.verbs, t[k].w) &&
        !eg_wordnet_is_ing(&sf->wn.verbs, t[k].w))
      v = k;
  return v;
}

/* Is verb w, in the past, a verb of relation r's prototypes ("moving": "I moved to X")? */
static bool starts_by(const eg_statefacts *sf, int r, const char *w) {
  for (size_t p = 0; p < sf->n_protos; p++) {
    if (sf->protos[p].kind != PK_ASSERT || sf->protos[p].rel != r) continue;
    char words[256];
    snprintf(words, sizeof words, "%s", sf->ptexts[p]);
    eg_sf_lower(words);
    char *save = NULL;
    for (char *pw = strtok_r(words, " ,.!?", &save); pw; pw = strtok_r(NULL, " ,.!?", &save))
      if (eg_wordnet_is_past(&sf->wn.verbs, pw) && same_stem(pw, w)) return true;
  }
  return false;
}

bool eg_sf_arranged(const eg_statefacts *sf, const token *t, size_t from, size_t to, size_t ts,
                    int r) {
  size_t v = arranging_verb(sf, t, from, to, ts);
  return v != SIZE_MAX && starts_by(sf, r, t[v].w);
}

int eg_sf_arranged_taker(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                         unsigned bits, size_t ts) {
  unsigned takers = eg_sf_takers(sf, bits);
  size_t v = takers ? arranging_verb(sf, t, from, to, ts) : SIZE_MAX;
  if (v == SIZE_MAX) return -1;
  int only = -1;
  for (unsigned m = takers; m; m &= m - 1)
    if (starts_by(sf, __builtin_ctz(m), t[v].w)) {
      if (only >= 0) return -1;
      only = __builtin_ctz(m);
    }
  return only;
}

int64_t eg_sf_date_in(const eg_date *dates, size_t nd, size_t cs, size_t ce, eg_sf_date_kind want) {
  for (size_t d = 0; d < nd; d++) {
    bool upto = dates[d].kind == EG_DATE_SINCE || dates[d].kind == EG_DATE_SPAN;
    if (dates[d].start >= cs && dates[d].start < ce &&
        (want == EG_SF_ANY_DATE || (want == EG_SF_START_DATE) == upto))
      return dates[d].from;
  }
  return 0;
}

int64_t eg_sf_dated_in(const eg_date *dates, size_t nd, size_t cs, size_t ce, int64_t day_end,
                       bool ahead) {
  for (size_t d = 0; d < nd; d++) {
    const eg_date *x = &dates[d];
    int64_t from = ahead ? eg_date_ahead(x, day_end - EG_US_PER_DAY) : x->from;
    if (x->start >= cs && x->start < ce && from >= day_end) return from;
  }
  return 0;
}

bool eg_sf_looks_ahead(const eg_statefacts *sf, const token *t, size_t a, size_t b) {
  return eg_sf_has_marker(sf, MK_FUTURE, t, a, b) || eg_sf_progressive(sf, t, a, b) != SIZE_MAX;
}

int64_t eg_sf_start_beside(const token *t, size_t nt, size_t vs, size_t ve, const eg_date *dates,
                           size_t nd, int64_t day_end) {
  static const char *const start[] = {"start", "starts", "starting",
                                      "begin", "begins", "beginning"};
  static const char *const speaker[] = {"i", "we", "i'm", "we're", "i'll", "we'll"};
  static const char *const aux[] = {"will", "shall", "am", "are"}; /* after "I" or "we" */
  static const char *const on[] = {"on", "in", "from"};
  for (size_t from = 0, to; from < nt; from = to) {
    to = eg_sf_clause_end(t, nt, from); /* > from while from < nt */
    if (from < ve && vs < to) continue; /* the value's own sentence: its words date it */
    for (size_t k = from; k < to; k++) {
      if (!eg_sf_in_list(t[k].w, start, sizeof start / sizeof *start)) continue;
      size_t subj = k > from + 1 && eg_sf_in_list(t[k - 1].w, aux, sizeof aux / sizeof *aux)
                        ? k - 2
                        : k - 1;         /* "I will start …", not "Training will start …" */
      if (k > from && !t[k - 1].comma && /* "…, starting in May": the clause's subject's */
          !eg_sf_in_list(t[subj].w, speaker, sizeof speaker / sizeof *speaker))
        continue;
      /* the date right after the verb, a preposition at most between: no object that starts
       * instead ("Starting puppy classes next week") */
      size_t at =
          k + 1 < to && eg_sf_in_list(t[k + 1].w, on, sizeof on / sizeof *on) ? k + 2 : k + 1;
      int64_t d = at < to ? eg_sf_dated_in(dates, nd, t[k + 1].s, t[at].e, day_end, true) : 0;
      if (d) return d;
    }
  }
  return 0;
}

bool eg_sf_tenure(const char *text, const token *t, size_t from, size_t to, const slot *s,
                  int64_t said) {
  static const char *const perfect[] = {"i've", "we've", "ive"}; /* not "had been", "she's" */
  static const char *const speaker[] = {"i", "we"};
  size_t b = s->ts - 2; /* "been" */
  if (s->ve || s->ts < from + 2 || s->te >= to || strcmp(t[s->ts - 1].w, "at") ||
      strcmp(t[b].w, "been"))
    return false;
  /* the speaker's present perfect, or "been" opening the clause, its subject dropped */
  if (b > from && !eg_sf_in_list(t[b - 1].w, perfect, 3) &&
      !(b > from + 1 && !strcmp(t[b - 1].w, "have") && eg_sf_in_list(t[b - 2].w, speaker, 2)))
    return false;
  eg_date d; /* right after the name: "for about a year" (the date from "about"), "since 2019" */
  /* a month or more: belonging, not a stay ("at the Hilton for three days") */
  return eg_dates_find(text + t[s->te].s, said, &d, 1) == 1 && d.start <= 4 &&
         (d.kind == EG_DATE_SPAN || d.kind == EG_DATE_SINCE) && said - d.from >= 28 * EG_US_PER_DAY;
}

/* Is the word of moving at k the speaker's: a noun after the speaker's or no one's determiner
 * (an adjective may stand between: "our big move"), or a verb in a sentence [a, b) of the first
 * person that is not about someone else? */
static bool speakers_move(const eg_statefacts *sf, const token *t, size_t a, size_t b, size_t k) {
  static const char *const det[] = {"the", "our", "my", "this", "a", "an"};
  for (size_t q = k; q > a && q + 2 >= k && !t[q - 1].comma; q--) {
    const char *w = t[q - 1].w;
    if (eg_sf_person_noun(sf, t, q - 1)) return false; /* "helping my brother move" */
    if (eg_sf_in_list(w, det, sizeof det / sizeof *det)) return true;
    if (eg_sf_determiner(w) || eg_sf_possessive(w) || t[q - 1].theirs) return false; /* "her" */
  }
  slot s = {k, k + 1, 0, 0, 0, false, false, ST_CURRENT, 0, false};
  return eg_sf_first_person(t, a, b) && !eg_sf_about_someone_else(sf, t, a, b, &s);
}

unsigned eg_sf_route_moved(const eg_statefacts *sf, const token *t, size_t nt, size_t from,
                           size_t to, size_t said_from, size_t said_to, const slot *slots,
                           size_t ns, size_t k, bool *weighed) {
  static const marker_kind held_back[] = {MK_PAST, MK_FUTURE, MK_NEGATION};
  unsigned takers = eg_sf_takers(sf, slots[k].bits);
  /* the speaker's move named as a noun right before "to" and the value: "the move to X is
   * done", "our big move to X went fine" ("thinking about a move to X": weighed) */
  static const char *const det[] = {"the", "our", "my"};
  size_t v = slots[k].ts, sa, sb;
  unsigned r = v >= from + 3 && !strcmp(t[v - 1].w, "to") && !t[to - 1].ask &&
                       t[from].s >= said_from && t[from].s < said_to &&
                       (eg_sf_in_list(t[v - 3].w, det, 3) ||
                        (v >= from + 4 && eg_sf_in_list(t[v - 4].w, det, 3)))
                   ? eg_sf_bits_of(sf->routes, t[v - 2].w) & takers
                   : 0;
  if (r && speakers_move(sf, t, from, to, v - 2)) {
    eg_sf_sub_clause(t, from, to, v - 2, &sa, &sb);
    *weighed = eg_sf_has_any_marker(sf, held_back, 3, t, sa, v - 2);
    return r;
  }
  if (!k || !takers || !eg_sf_route_origin(sf, t, slots, ns, k - 1)) return 0;
  size_t a = from, b = to < nt ? eg_sf_clause_end(t, nt, to) : to;
  if (a > 0)
    for (a--; a > 0 && !t[a - 1].cut;) a--;
  for (size_t ca = a, cb; ca < b; ca = cb) {
    cb = eg_sf_clause_end(t, nt, ca);
    if (t[cb - 1].ask || t[ca].s < said_from || t[ca].s >= said_to) continue;
    for (size_t m = ca; m < cb; m++) {
      r = eg_sf_bits_of(sf->routes, t[m].w) & takers;
      if (!r || !speakers_move(sf, t, ca, cb, m)) continue;
      eg_sf_sub_clause(t, ca, cb, m, &sa, &sb);
      if (!eg_sf_has_any_marker(sf, held_back, 3, t, sa, m)) {
        *weighed = false;
        return r;
      }
      *weighed = true;
    }
  }
  return 0;
}

/* The token range [*a, *b) of t[0, nt) within the bytes [from, to). */
void eg_sf_said_tokens(const token *t, size_t nt, const eg_segment *sg, size_t *a, size_t *b) {
  size_t from = sg->said_to ? sg->said_from : 0, to = sg->said_to ? sg->said_to : (size_t)-1;
  for (*a = 0; *a < nt && t[*a].s < from;) ++*a;
  for (*b = *a; *b < nt && t[*b].s < to;) ++*b;
}

/* The start told in the speaker's own words of segment sg, outside the tokens [vs, ve) of its
 * tokens t[0, nt) (eg_sf_start_beside); 0: none. */
static int64_t start_told(const token *t, size_t nt, size_t vs, size_t ve, const eg_segment *sg) {
  eg_date dates[16];
  size_t nd = eg_dates_find(sg->text, sg->time, dates, 16), a, b;
  eg_sf_said_tokens(t, nt, sg, &a, &b);
  if (!nd || a == b) return 0;
  return eg_sf_start_beside(t + a, b - a, vs > a ? vs - a : 0, ve > a ? ve - a : 0, dates, nd,
                            eg_sf_day_end(sg->time));
}

static const char *const offer[] = {"offer",    "offers",       "offered",
                                    "offering", "counteroffer", "counter-offer"};

size_t eg_sf_offer_of(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                      const slot *s) {
  size_t n = sizeof offer / sizeof *offer, p = s->ts;
  if (!(s->bits & sf->org_bit)) return 0; /* "got the job offer in X": where the job is */
  if (s->te < to && !t[s->te - 1].comma && eg_sf_in_list(t[s->te].w, offer, n)) return s->te + 1;
  while (p > from && eg_sf_determiner(t[p - 1].w)) p--;
  for (size_t q = p, k = 0; q > from && k < 7 && !t[q - 1].comma && !eg_sf_joint(t[q - 1].w, false);
       q--, k++)
    if (eg_sf_in_list(t[q - 1].w, offer, n)) return q;
  return 0;
}

bool eg_sf_offer_accepted(const eg_statefacts *sf, const token *t, size_t from, size_t head) {
  for (size_t v = head; v > from && head - v < 4 && !t[v - 1].comma; v--)
    if (eg_sf_verb_at(sf->takes, t, v - 1, head)) return true;
  return false;
}

int64_t eg_sf_offer_taken(const eg_statefacts *sf, const token *t, size_t nt, size_t from,
                          const slot *s, const eg_segment *sg, const eg_segment *next) {
  size_t to = eg_sf_clause_end(t, nt, from), o = eg_sf_offer_of(sf, t, from, to, s), a, b;
  if (!o || !sg->time) return 0;
  /* turned down in the rest of the message, up to another offer: "… but I turned it down" */
  for (size_t v = from;
       v < nt && (v < to || !eg_sf_in_list(t[v].w, offer, sizeof offer / sizeof *offer)); v++)
    if (verb_or_split_at(sf->declines, t, v, nt)) return 0;
  eg_sf_sub_clause(t, from, to, o - 1, &a, &b);
  if (eg_sf_has_marker(sf, MK_NEGATION, t, a, o - 1)) return 0;
  int64_t d = start_told(t, nt, 0, 0, sg); /* its own sentence too: "…, starting in May" */
  if (d || !next || !next->text || !next->role || strcmp(next->role, "user") != 0) return d;
  static __thread token u[MAX_TOKENS];
  return start_told(u, eg_sf_tokenize(next->text, u, MAX_TOKENS), 0, 0, next);
}
