/*
 * statefacts_status.c — what the words around a value say of its state: a value the speaker
 * holds now, one left behind ("moved from X", "my old X", "sold the X", "X passed away"), or
 * one not asserted (a plan, a visit, a negation, an offer not taken, a topic).
 */
#include <string.h>

#include "lang/statefacts_int.h"
#include "lang/wordnet.h"

/* Do the words [q, ts) before a value, from its predicate's start, leave it the predicate's
 * subject: nothing but determiners, kind words and nouns for people ("my dog X", "our budgie
 * X", "our X")? */
bool eg_sf_opens_predicate(const eg_statefacts *sf, const token *t, size_t q, size_t ts) {
  for (size_t k = q; k < ts; k++)
    if (!eg_sf_determiner(t[k].w) && !eg_sf_bits_of(sf->cue, t[k].w) &&
        !eg_sf_kind_bits(sf, t[k].w) && !eg_sf_bits_of(sf->people, t[k].w))
      return false;
  return true;
}

/* Is the predicate opening at p (after a joint, not before a) governed by a past marker that
 * ends in that joint ("back when I had X")? */
bool eg_sf_past_clause(const eg_statefacts *sf, const token *t, size_t a, size_t p) {
  return p > a && eg_sf_ends_marker(sf, MK_PAST, t, a, p);
}

/* Does "from" at t[f] complete a verb ("moved from X", "I'm from X", "came over from X",
 * "From X to Y"), X a value left behind, or qualify the noun before it ("the offer from X",
 * "first payslip from X", "a recruiter from X"), X where that came from? Particles and
 * adverbs in -ly between are passed over; a verb's lemma after a determiner is a noun. */
static bool from_completes_verb(const eg_statefacts *sf, const token *t, size_t from, size_t f) {
  static const char *const over[] = {"away", "back", "over",  "down", "up",   "out",
                                     "off",  "here", "there", "all",  "just", "straight"};
  static const char *const be[] = {"am",   "is",    "are",  "was",   "were",   "be",
                                   "been", "i'm",   "im",   "we're", "you're", "they're",
                                   "he's", "she's", "it's", "'m",    "'re"};
  size_t h = f;
  while (h > from && !t[h - 1].comma) {
    const char *w = t[h - 1].w;
    if (!eg_sf_ly_adverb(sf, w) && !eg_sf_in_list(w, over, sizeof over / sizeof *over)) break;
    h--;
  }
  if (h == from || t[h - 1].comma) return true;
  const char *w = t[h - 1].w;
  if (eg_sf_in_list(w, be, sizeof be / sizeof *be)) return true;
  if (!eg_wordnet_is_verb(&sf->wn.verbs, w)) return false;
  return !(h - 1 > from && (eg_sf_determiner(t[h - 2].w) || t[h - 2].digit));
}

bool eg_sf_age_old(const eg_statefacts *sf, const token *t, size_t i) {
  return i > 0 && !strcmp(t[i].w, "old") &&
         (t[i - 1].digit || eg_sf_noun_bits(sf->periods, t[i - 1].w));
}

/* Is the slot where the noun before "from" came from ("the offer from X", "a postcard from
 * X"): named as a source, neither left behind nor named as it stands? */
bool eg_sf_source_of_noun(const eg_statefacts *sf, const token *t, size_t from, const slot *s) {
  size_t p = s->ts;
  while (p > from && eg_sf_determiner(t[p - 1].w)) p--;
  return p > from && !strcmp(t[p - 1].w, "from") && !from_completes_verb(sf, t, from, p - 1);
}

/* Is the slot's state said to end by a word of ending of its own: "quit my job at X", "sold
 * the X", "put X to sleep", "X and I split up", "our X died"? The state ended when it was
 * said (or at the date the clause gives), unlike one only named as former ("my old X", "from
 * X", "back in my X days"), whose end is not told. */
bool eg_sf_ended_by_word(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                         const slot *s) {
  /* "stop my cat X from scratching the sofa": what ends is what X does */
  if (s->te + 1 < to && !strcmp(t[s->te].w, "from") &&
      eg_wordnet_is_ing(&sf->wn.verbs, t[s->te + 1].w))
    return false;
  size_t p = s->ts;
  while (p > from && eg_sf_determiner(t[p - 1].w)) p--;
  size_t a, b;
  eg_sf_sub_clause(t, from, to, s->ts, &a, &b);
  /* "moved back to Y after two years in X", "after 6 years at X I quit", "after six years in
   * X I moved to Y", "after being vegan for 2 years I'm eating meat again", "after ten years as
   * a vegetarian, I've started eating fish" (not "after two years in X, I love it here": the
   * time spent so may go on) */
  if (eg_sf_after_duration(t, from, s->ts)) {
    static const char *const anew[] = {"back", "again", "started", "split", "switched"};
    for (size_t k = from; k < to; k++)
      if (eg_sf_in_list(t[k].w, anew, sizeof anew / sizeof *anew)) return true;
    if (eg_sf_has_marker(sf, MK_CHANGE, t, from, to) || eg_sf_has_marker(sf, MK_ENDED, t, from, to))
      return true;
    for (size_t k = from; k < to; k++)
      if (eg_sf_verb_at(sf->relocates, t, k, to)) return true;
  }
  /* a verb that ends the state a few words before it; not one that gives it to the user ("my
   * aunt left me her X", "he sold us his X") */
  static const char *const to_user[] = {"me", "us"};
  size_t ended_from = eg_sf_predicate_start(sf, t, a, b, s, true);
  /* … or one whose last word is the preposition the predicate starts after ("said goodbye to
   * our cat X", "bid farewell to X") */
  if (s->ts - ended_from < 6 && eg_sf_ends_marker(sf, MK_ENDED, t, a, ended_from)) return true;
  for (size_t q = s->ts, k = 0; q > ended_from && k < 6; q--, k++) {
    if (eg_sf_in_list(t[q].w, to_user, 2)) continue;
    /* a participle between a determiner and its noun qualifies the noun, it ends nothing of
     * the user's: "adopted a retired greyhound called X" */
    if (q - 1 > a && q < s->ts && eg_sf_determiner(t[q - 2].w) &&
        eg_wordnet_is_past(&sf->wn.verbs, t[q - 1].w))
      continue;
    /* … nor one after "get" with a place after it, a state of the subject ("still getting lost
     * in X"), not the slot's end ("got dumped by X", "got laid off from X", "got fired at X") */
    static const char *const get[] = {"get", "gets", "got", "getting", "gotten"};
    static const char *const around[] = {"in", "around", "near"};
    if (q >= a + 2 && q < s->ts && eg_sf_in_list(t[q - 2].w, get, sizeof get / sizeof *get) &&
        eg_sf_in_list(t[q].w, around, sizeof around / sizeof *around))
      continue;
    if (eg_sf_ends_at(sf, t, q - 1, s->ts)) return true;
  }
  /* the slot as the object between a verb and its particles; its determiner may stand a word
   * or two before it ("handed the rental X back") */
  size_t v = p;
  for (size_t m = p; m > a && m + 2 >= p && !t[m - 1].comma; m--) {
    if (m < p && eg_sf_determiner(t[m - 1].w)) {
      v = m;
      break;
    }
    if (eg_sf_function_word(t[m - 1].w)) break;
  }
  while (v > a && (eg_sf_determiner(t[v - 1].w) || eg_sf_bits_of(sf->cue, t[v - 1].w))) v--;
  if (v > a && eg_sf_verb_around(sf->ends, t, v - 1, s->te, b)) return true;
  /* … or handed on (@gives): "gave my X to my daughter", "handed the X over"; not "gave my X a
   * bath", where X is who is given to */
  static const char *const on[] = {"to", "away", "over", "back"};
  if (v > a && s->te < b && eg_sf_in_list(t[s->te].w, on, sizeof on / sizeof *on) &&
      eg_sf_verb_at(sf->gives, t, v - 1, s->ts))
    return true;
  /* the slot as its predicate's subject, the word of ending in that predicate ("our X died",
   * "X and I split up", "me and X broke up"; not "a report for X and losing the will …") */
  size_t q = eg_sf_predicate_start(sf, t, a, b, s, false), r = s->te;
  bool with_me = eg_sf_with_me(t, from, to, s->ts, s->te);
  if (r + 2 <= b && with_me) r += 2;
  while (r < b && !eg_sf_joint(t[r].w, false)) r++;
  size_t subj = p; /* "our budgie X": the kind word is of the subject */
  while (subj > a && (eg_sf_determiner(t[subj - 1].w) || eg_sf_kind_bits(sf, t[subj - 1].w)))
    subj--;
  if ((with_me || (!eg_sf_first_person(t, a, subj) && eg_sf_opens_predicate(sf, t, q, s->ts))) &&
      eg_sf_has_ending(sf, t, s->te, r))
    return true;
  if (eg_sf_resumed_ending(sf, t, b, to)) return true;
  /* a name set off by commas after its kind word is the subject of the predicate after it ("Our
   * elderly spaniel, X, died in the autumn") */
  if (s->ts > from && t[s->ts - 1].comma && t[s->te - 1].comma && s->te < to &&
      (eg_sf_kind_bits(sf, t[s->ts - 1].w) & ~sf->person_bit)) {
    size_t a2, b2;
    eg_sf_sub_clause(t, from, to, s->te, &a2, &b2);
    if (!eg_sf_first_person(t, a2, b2) && eg_sf_has_ending(sf, t, s->te, b2)) return true;
  }
  /* … and so is one with its kind word set off after it, the speaker's ("X, our beagle, died in
   * his sleep") */
  size_t kind = eg_sf_apposed_kind(sf, t, s->te, to, s->bits & ~sf->person_bit);
  if (kind && kind + 1 < to) {
    size_t a2, b2;
    eg_sf_sub_clause(t, from, to, kind + 1, &a2, &b2);
    if (!eg_sf_first_person(t, a2, b2) && eg_sf_has_ending(sf, t, kind + 1, b2)) return true;
  }
  /* a negation before the slot in its predicate and "anymore" after it: it held until now
   * ("Not X anymore", "I don't live in X any more"; not "I won't drive X anymore") */
  for (size_t k = s->te; k < r; k++)
    if (!strcmp(t[k].w, "anymore") ||
        (k + 1 < r && !strcmp(t[k].w, "any") &&
         (!strcmp(t[k + 1].w, "more") || !strcmp(t[k + 1].w, "longer"))))
      return eg_sf_has_marker(sf, MK_NEGATION, t, q, s->ts) &&
             !eg_sf_has_marker(sf, MK_FUTURE, t, q, s->ts);
  return false;
}

/* Does "nearly" or "almost" stand before a past verb in [from, to), an event that did not come
 * about ("I nearly took a job at X", "we almost moved to X"; not "for almost 3 years")? */
static bool near_miss(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  static const char *const near[] = {"nearly", "almost"};
  for (size_t k = from; k + 1 < to; k++)
    if (eg_sf_in_list(t[k].w, near, 2) && eg_wordnet_is_past(&sf->wn.verbs, t[k + 1].w))
      return true;
  return false;
}

/* Does the speaker's own present verb govern the slot from its predicate's start (scope): "I
 * drive the old X", "we still have X" — "I" or "we", adverbs, a verb's base form, no past,
 * plan or negation before the slot? */
static bool holds_now(const eg_statefacts *sf, const token *t, size_t scope, const slot *s) {
  static const char *const speaker[] = {"i", "we"};
  static const char *const aux[] = {"do",    "can",    "will",  "would",
                                    "could", "should", "might", "must"};
  if (eg_sf_has_past(sf, t, scope, s->ts) || eg_sf_has_marker(sf, MK_FUTURE, t, scope, s->ts) ||
      eg_sf_has_marker(sf, MK_NEGATION, t, scope, s->ts))
    return false;
  for (size_t k = scope; k + 1 < s->ts; k++) {
    if (!eg_sf_in_list(t[k].w, speaker, 2) || t[k].comma) continue;
    size_t v = eg_sf_past_adverbs(sf, t, k + 1, s->ts);
    const char *w = t[v].w;
    return v < s->ts && eg_wordnet_is_verb(&sf->wn.verbs, w) &&
           !eg_wordnet_is_past(&sf->wn.verbs, w) && !eg_wordnet_is_ing(&sf->wn.verbs, w) &&
           !eg_sf_in_list(w, aux, sizeof aux / sizeof *aux);
  }
  return false;
}

bool eg_sf_visited_at(const eg_statefacts *sf, const token *t, size_t from, size_t ts, size_t te,
                      size_t to) {
  static const char *const speaker[] = {"me", "us"}, *const at[] = {"in", "at"};
  if (ts < from + 3 || !eg_sf_in_list(t[ts - 1].w, at, 2) ||
      !eg_sf_in_list(t[ts - 2].w, speaker, 2) || t[ts - 2].comma ||
      !eg_sf_has_marker(sf, MK_VISIT, t, ts - 3, ts - 2) ||
      eg_wordnet_is_past(&sf->wn.verbs, t[ts - 3].w) || eg_sf_has_past(sf, t, from, ts))
    return false;
  /* not where the speaker is away themselves: "… visit us in X while we're on holiday",
   * "… visited me in X on my year abroad" */
  static const char *const away[] = {"while", "when", "during", "on", "for"};
  for (size_t k = te; k < to && !t[k - 1].comma; k++)
    if (eg_sf_in_list(t[k].w, away, sizeof away / sizeof *away) ||
        eg_sf_marker_starts(sf, MK_VISIT, t, k, to))
      return false;
  return !eg_sf_has_marker(sf, MK_STAY, t, from, to); /* "I'm on holiday, they're visiting …" */
}

/* Does a marker of a plan or of a visit govern the slot from its predicate's start (scope)? Not
 * of the visit where the speaker is visited there (eg_sf_visited_at, in the clause [from, to)). */
static bool planned_or_visited(const eg_statefacts *sf, const token *t, size_t from, size_t scope,
                               size_t to, const slot *s) {
  if (eg_sf_spent_stay(t, scope, s->ts)) return true;
  return !eg_sf_visited_at(sf, t, from, s->ts, s->te, to) &&
         (eg_sf_has_marker(sf, MK_FUTURE, t, scope, s->ts) ||
          eg_sf_has_marker(sf, MK_VISIT, t, scope, s->ts));
}

/* Does the speaker take the offer after the slot, later in its sentence [te, to) ("they offered
 * me a role at X and I accepted", "… and I said yes", "… and took it")? */
static bool taken_after(const eg_statefacts *sf, const token *t, size_t te, size_t to) {
  static const char *const who[] = {"i", "we", "and"};
  for (size_t k = te; k + 1 < to; k++) {
    if (!eg_sf_in_list(t[k].w, who, 3) || t[k].comma) continue;
    size_t v =
        k + 1 < to && !strcmp(t[k].w, "and") && eg_sf_in_list(t[k + 1].w, who, 2) ? k + 2 : k + 1;
    if (v >= to) return false;
    if (eg_sf_verb_at(sf->takes, t, v, to)) return true;
    if (v + 1 < to && ((!strcmp(t[v].w, "said") && !strcmp(t[v + 1].w, "yes")) ||
                       (!strcmp(t[v].w, "took") && !strcmp(t[v + 1].w, "it"))))
      return true;
  }
  return false;
}

size_t eg_sf_apposed_kind(const eg_statefacts *sf, const token *t, size_t te, size_t to,
                          unsigned bits) {
  if (!t[te - 1].comma || te + 1 >= to || !eg_sf_ours(t[te].w)) return 0;
  for (size_t k = te + 1; k < to && k <= te + 4; k++) {
    if ((eg_sf_kind_bits(sf, t[k].w) & bits) && t[k].comma) return k;
    if (t[k].comma) break;
  }
  return 0;
}

/* Does w say what a topic is ("about", "regarding")? */
static bool topic_word(const char *w) {
  static const char *const topic[] = {"about", "regarding"};
  return eg_sf_in_list(w, topic, sizeof topic / sizeof *topic);
}

bool eg_sf_topic_of(const token *t, size_t from, const slot *s) {
  size_t p = s->ts;
  while (p > from && eg_sf_determiner(t[p - 1].w) && !eg_sf_ours(t[p - 1].w)) p--;
  size_t of = p >= from + 3 && !strcmp(t[p - 1].w, "of") && !t[p - 2].comma ? p - 2 : p;
  while (of < p && of > from && eg_sf_determiner(t[of - 1].w)) of--;
  return of < p && of > from && topic_word(t[of - 1].w);
}

/* Does a verb's -ing form come at i (before end), after "not" if one is there: "be" before it
 * makes a progressive ("X isn't eating"), no copula saying what X is? */
static bool progressive(const eg_statefacts *sf, const token *t, size_t i, size_t end) {
  if (i < end && !strcmp(t[i].w, "not")) i++;
  return i < end && eg_wordnet_is_ing(&sf->wn.verbs, t[i].w);
}

/* Does w open an item of a list: a determiner, a number or "both" (or a name: cap)? */
static bool item_word(const token *w) {
  return eg_sf_determiner(w->w) || w->digit || eg_sf_number_word(w->w) || !strcmp(w->w, "both");
}

/* The first token of the slot's item: past the item words before it. */
static size_t item_start(const token *t, size_t a, const slot *s) {
  size_t p = s->ts;
  while (p > a && item_word(&t[p - 1])) p--;
  return p;
}

/* Is w "and" or "or"? */
static bool conjunction(const char *w) { return !strcmp(w, "and") || !strcmp(w, "or"); }

/* Is the slot an item of a list after its first, one predicate before the first serving them
 * all ("I miss X, the Y, the Z and the small cafes", "we sold the house, the X and both
 * bikes")? Its sub-clause follows a comma and opens with an item (a determiner's, a number's or
 * a name's); the slot opens one; an "and" or "or" brings in the last; and no word from the
 * comma to the last item's end may be a verb, in any form (but a noun after an item's
 * determiner: "both bikes"), or is a subject ("the Tesla and the e-bike do everything now",
 * "the Golf and the van need a garage", "I play the cello and the piano now": a clause of its
 * own). The item before ends at the comma. Not "moved out of X, new flat in Y": no list. */
static bool listed(const eg_statefacts *sf, const token *t, size_t from, size_t a, size_t to,
                   const slot *s) {
  if (a <= from + 1 || !t[a - 1].comma ||
      (!item_word(&t[a]) && !(t[a].cap && strcmp(t[a].w, "i") != 0)))
    return false;
  size_t p = item_start(t, a, s);
  if (p != a && !(p > a && conjunction(t[p - 1].w))) return false;
  bool last = false;
  for (size_t k = a; k < to && !(last && t[k - 1].comma); k++) {
    if (last && eg_sf_joint(t[k].w, false) && !conjunction(t[k].w)) break; /* "… before moving" */
    if (eg_sf_subject_pronoun(t[k].w) ||
        (!item_word(&t[k - 1]) && !conjunction(t[k].w) &&
         (!eg_sf_verbless(sf, t, k, k + 1) || eg_wordnet_is_verb(&sf->wn.verbs, t[k].w))))
      return false;
    last |= k > a && k + 1 < to && conjunction(t[k].w) && !t[k].comma &&
            (item_word(&t[k + 1]) || t[k + 1].cap);
  }
  return last;
}

slot_status eg_sf_status_of(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                            const slot *s) {
  /* not "for": in "traded my old X for Y" the old one is X */
  static const char *const prep[] = {"at", "in", "of", "with", "from"};
  size_t p = s->ts;
  while (p > from && eg_sf_determiner(t[p - 1].w)) p--;
  size_t a, b;
  eg_sf_sub_clause(t, from, to, s->ts, &a, &b);
  /* … which stands as the first item does, where that one is not held ("miss", "sold") */
  if (listed(sf, t, from, a, to, s)) {
    slot first = *s; /* the first item's last word, as a slot of its own */
    first.ts = a - 1, first.te = a, first.vs = first.ve = 0;
    first.proper = t[a - 1].cap, first.where = first.cued = false, first.held = 0;
    slot_status st = eg_sf_status_of(sf, t, from, to, &first);
    /* … by the clause's word ("miss", "sold"), not by one of its own ("our old X, a Y and …") */
    if (st == ST_NOT_ASSERTED || (st == ST_FORMER && eg_sf_ended_by_word(sf, t, from, to, &first)))
      return st;
  }
  size_t scope = eg_sf_predicate_start(sf, t, a, b, s, false);
  /* a clause that says something exists tells of it, not of the speaker's state: "there's a
   * job going at X", "there's a kitten called X at the rescue", "there's a guy at work called
   * X" (a place there may still be where the speaker is: "there's so much snow in X, love it
   * here") */
  static const char *const there[] = {"there's", "theres", "there're"};
  static const char *const is[] = {"is", "are", "was", "were"};
  if (!s->where && s->bits != sf->place_bit &&
      (eg_sf_in_list(t[a].w, there, sizeof there / sizeof *there) ||
       (!strcmp(t[a].w, "there") && a + 1 < s->ts && eg_sf_in_list(t[a + 1].w, is, 4))))
    return ST_NOT_ASSERTED;
  /* a relative clause of the speaker's after the slot says the state in its own tense: "X,
   * where I live, …" (not "X, where I grew up", "X, where we'll move") */
  size_t where = eg_sf_where_clause(t, s->te, to);
  if (where)
    return eg_sf_has_past(sf, t, s->te, where) ||
                   eg_sf_has_marker(sf, MK_FUTURE, t, s->te, where) ||
                   eg_sf_has_marker(sf, MK_NEGATION, t, s->te, where)
               ? ST_NOT_ASSERTED
               : ST_CURRENT;
  /* a relative clause of the speaker's right after the slot that only visits it: "the Tesla I
   * test drove", "the flat we viewed", "the cello that I tried out" */
  size_t rel = s->te;
  static const char *const that[] = {"that", "which"}, *const we[] = {"i", "we"};
  if (rel < to && !t[rel - 1].comma && eg_sf_in_list(t[rel].w, that, 2)) rel++;
  if (rel + 1 < to && !t[rel - 1].comma && eg_sf_in_list(t[rel].w, we, 2) &&
      eg_sf_has_marker(sf, MK_VISIT, t, rel + 1, rel + 4 < to ? rel + 4 : to))
    return ST_NOT_ASSERTED;
  /* … and another's relative clause there tells theirs, unless the speaker's words before the
   * slot place it: "X, where my sister lives, is lovely" (not "I moved to X, where my sister
   * lives") */
  if (s->te < to && t[s->te - 1].comma && !t[s->te - 1].pict && !strcmp(t[s->te].w, "where") &&
      !eg_sf_first_person(t, from, s->ts))
    return ST_NOT_ASSERTED;
  /* right before the slot: "from X", "instead of X", "my old X", "my ex X" (no former
   * marker is a determiner: for "my old X" p is the slot) */
  bool from_marker = eg_sf_ends_marker(sf, MK_FROM, t, from, p) != 0;
  bool source = from_marker && eg_sf_source_of_noun(sf, t, from, s);
  /* someone else's old one is no former value of the user's ("mum's giving me her old X") */
  static const char *const others[] = {"his", "her", "their", "your"};
  size_t former = eg_sf_ends_marker(sf, MK_FORMER, t, from, p);
  bool others_former = former && p > from + former && eg_sf_in_list(t[p - former - 1].w, others, 4);
  bool left = from_marker && !source && !(p > from && eg_sf_thing_from(sf, t, from, p - 1));
  /* … not where the leaving is a trip's end or only weighed ("got back from X", "is it worth
   * switching from my X") */
  if (left && planned_or_visited(sf, t, from, scope, to, s)) return ST_NOT_ASSERTED;
  /* "old" there may be the value's age where the speaker says they hold it now: "I drive the
   * old Honda Jazz", "we still have our old Golf" (not "I miss my old X": a past marker) */
  bool aged = former == 1 && !strcmp(t[p - 1].w, "old") && holds_now(sf, t, scope, s);
  /* … and its age, told by the time it has lived: "he's a 12 week old X" */
  for (size_t k = p; former && k-- > from && k + 4 >= p && !t[k].comma;)
    if (eg_sf_age_old(sf, t, k)) former = 0;
  if (left || (former && !others_former && !aged)) return ST_FORMER;
  /* … or before the kind word naming it, after the speaker's possessive: "my late wife X", "my
   * ex husband X" (not "old": "my old dog X" may be an aged one still kept) */
  size_t kinds = p; /* the kind words before the slot start here */
  while (kinds > from && eg_sf_kind_bits(sf, t[kinds - 1].w)) kinds--;
  if (kinds < p && kinds >= from + 2 && strcmp(t[kinds - 1].w, "old") != 0 &&
      eg_sf_ends_marker(sf, MK_FORMER, t, from, kinds) == 1 && eg_sf_ours(t[kinds - 2].w))
    return ST_FORMER;
  /* … or in an apposition after it, closed by a comma: "X, my late dog, …", "X, our previous
   * car, …" ("old" as before), "X, my ex, …" (the kind word a former one itself) */
  size_t apposed = eg_sf_apposed_kind(sf, t, s->te, to, ~0u);
  if (apposed && apposed <= s->te + 3 &&
      (apposed == s->te + 1
           ? eg_sf_has_marker(sf, MK_FORMER, t, apposed, apposed + 1)
           : strcmp(t[apposed - 1].w, "old") != 0 &&
                 eg_sf_ends_marker(sf, MK_FORMER, t, s->te + 1, apposed) == apposed - s->te - 1))
    return ST_FORMER;
  /* a value named as a topic is not held: "a documentary about the X explosion", "an article
   * about X" */
  if ((p > from && topic_word(t[p - 1].w)) ||
      eg_sf_sited(sf, t, from, p)) /* "a company based in X" */
    return ST_NOT_ASSERTED;
  /* a time of the user's life named by the value is over: "back in my X days", "I miss the X
   * days", "my X years" */
  static const char *const days[] = {"days", "years", "era"}; /* "my X years were the best" */
  if (s->te < to && !t[s->te - 1].comma && eg_sf_in_list(t[s->te].w, days, 3) && p < s->ts)
    return ST_FORMER;
  /* the noun the slot qualifies is former: "my old colleagues at X", "my previous boss at X" */
  if (p > from && eg_sf_in_list(t[p - 1].w, prep, sizeof prep / sizeof *prep))
    for (size_t q = p - 1;
         q > from && p - q < 4 && !t[q - 1].comma && !eg_sf_joint(t[q - 1].w, false); q--)
      if (eg_sf_has_marker(sf, MK_FORMER, t, q - 1, q)) return ST_FORMER;
  /* the source of a thing, neither left behind nor held, and what an offer is of: "an offer
   * from X", "they offered me the job at X" are no job there, unless the user took it
   * ("accepted the offer from X", "accepted X's offer"; eg_sf_offer_taken: a start told) */
  size_t offer = eg_sf_offer_of(sf, t, from, to, s), head = offer > s->ts   ? p
                                                            : offer         ? offer - 1
                                                            : p >= from + 2 ? p - 2
                                                                            : from;
  if ((source || offer) && !eg_sf_offer_accepted(sf, t, from, head) &&
      !(offer && taken_after(sf, t, s->te, to)))
    return ST_NOT_ASSERTED;
  /* an end only planned, weighed or nearly come about leaves the value held: "thinking of
   * selling my X", "I almost sold my X" */
  bool near = near_miss(sf, t, scope, s->ts);
  if (eg_sf_ended_by_word(sf, t, from, to, s))
    return near || eg_sf_has_marker(sf, MK_FUTURE, t, scope, s->ts) ? ST_NOT_ASSERTED : ST_FORMER;
  if (near || eg_sf_past_clause(sf, t, a, scope) || eg_sf_past_copula(sf, t, a, s->ts) ||
      eg_sf_spent_years(t, scope, s->ts) || /* "I spent a year in X after uni" */
      eg_sf_declined(sf, t, scope, s->ts))  /* "I turned down X" */
    return ST_NOT_ASSERTED;
  /* a negation in the slot's own predicate, up to the word that joins the next ("I work at X
   * and I don't love it" still works there); "without" after the slot negates its own object,
   * not the slot's predicate: "my X did 300 km without a complaint"; a relative clause after
   * it is of the slot or the noun it qualifies: "a X dessert that doesn't scream healthy",
   * "a city which never sleeps" */
  static const char *const relative[] = {"without", "that", "which", "who"};
  size_t neg_to = s->te; /* past "X and I": the predicate is theirs together */
  bool with_me = s->te + 2 <= b && eg_sf_with_me(t, from, to, s->ts, s->te);
  if (with_me) neg_to += 2;
  /* a name that opens its sub-clause or its predicate is the subject: a negation after it is
   * of what it does ("my Fiat Panda does not like the snow", "X doesn't pay enough", "it's our
   * anniversary and X says she doesn't want a fuss"), unless the state changed ("X doesn't
   * feel like home anymore") or it says what the name is ("X is not home"; not "X isn't eating") */
  static const char *const be[] = {"is",     "isn't", "was",     "wasn't", "are",
                                   "aren't", "were",  "weren't", "'s"};
  /* … so does one after "my" and its kind words opening a clause after "that", "because" …:
   * "is it normal that my dog X doesn't eat?" */
  static const char *const opens[] = {"that", "if", "whether", "because", "since", "so"};
  size_t kw = s->ts; /* the kind words before the slot start here */
  while (kw > a && s->ts - kw < 2 && eg_sf_kind_bits(sf, t[kw - 1].w)) kw--;
  bool opener = kw > a + 1 && kw < s->ts && eg_sf_determiner(t[kw - 1].w) && !t[kw - 2].comma &&
                eg_sf_in_list(t[kw - 2].w, opens, sizeof opens / sizeof *opens);
  if (!with_me && s->proper && !(s->ve && eg_sf_we_form(t[s->ts].w)) && /* "we" is the speaker's */
      (a == s->ts || scope == s->ts || (eg_sf_determiner(t[a].w) && s->ts - a <= 2) || opener) &&
      !(s->te < b && eg_sf_in_list(t[s->te].w, be, sizeof be / sizeof *be) &&
        !progressive(sf, t, s->te + 1, b)) &&
      !eg_sf_has_marker(sf, MK_CHANGE, t, s->te, b))
    b = s->te; /* its own predicate is no word on the user's state */
  while (neg_to < b && !eg_sf_in_list(t[neg_to].w, relative, sizeof relative / sizeof *relative) &&
         !eg_sf_joint(t[neg_to].w, false))
    neg_to++;
  /* the speaker's new one is held now, whatever past event it is told in ("Drove my new X home
   * today", "we walked our new puppy X") */
  bool new_one = kinds >= from + 2 && !strcmp(t[kinds - 1].w, "new") && eg_sf_ours(t[kinds - 2].w);
  if ((!new_one && eg_sf_has_past(sf, t, scope, s->ts)) ||
      planned_or_visited(sf, t, from, scope, to, s) ||
      eg_sf_has_marker(sf, MK_NEGATION, t, scope, neg_to))
    return ST_NOT_ASSERTED;
  return ST_CURRENT;
}
