/*
 * statefacts.c — the prototype extractor (see statefacts.h).
 *
 *  1. load (statefacts_load.c): the prototypes file names the slot types (WordNet roots or
 *     word lists), the tense and negation markers, and per relation its prototypes; the
 *     WordNet closures are walked once into our own maps, the prototypes embedded once;
 *  2. clauses: a user segment is cut at sentence and clause punctuation (and "but"); only
 *     first-person clauses are considered;
 *  3. slots (statefacts_slots.c): capitalised spans (typed by WordNet's instances — Lisbon
 *     is a city — by a cue word before them — "my wife X", "a dog named X" — else any type a
 *     name may have) and common nouns of a type (cello, vegan, minivan), kind words like
 *     "car" excepted;
 *  4. status: a slot right after "from"/"left"/"sold" or a verb that ends a state (any form
 *     of WordNet's, @ends) is a former value, a clause with a past, future or negation marker
 *     before its slot asserts nothing, a question neither (the markers and the verbs of
 *     ending are found by statefacts_markers.c);
 *  5. relation: the clause with its slot masked as X is embedded (one batch per call) and
 *     compared with the prototypes; the best type-compatible relation must reach the floor
 *     and beat the others and NONE by the margin (a value given up whose type one relation
 *     alone takes need only beat NONE); a clause that says nothing so is read again by the
 *     words near its slot. A noun of the user's placed at a name ("my team at X"), a name
 *     the user owns ("my X") or a kind word whose type one relation alone takes, the words
 *     reading it only below the bar, are placed readings: weaker evidence that yields to a
 *     value held, told before or said outright;
 *  6. output: a current assertion is a fact; a matched clause that asserts nothing (or a
 *     first-person clause with a change marker close to a relation's "ended" prototypes)
 *     is a STATE_UNCERTAIN doubt on that relation, unless the segment also gave a fact of it;
 *     a name spoken of outside the user's words of themselves ("X forgot valentines") and
 *     read as a value still held is a fact while the user holds no value of its relation;
 *     a value a word of ending of its own ends ("Sold the X", "since leaving X in October")
 *     and not held is also a former fact, valid until then from a start the caller finds
 *     (eg_fact.since_first_mention; statefacts_said.c reads a first mention).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/time.h"
#include "lang/dates.h"
#include "lang/statefacts_int.h"
#include "lang/wordnet.h"

#define MAX_ITEMS 4096 /* embedded clauses per call; beyond, the rest is left to the rules */
#define CLAUSE_BYTES 300

/* ---- scoring ------------------------------------------------------------------------------ */

typedef struct item {
  size_t seg;      /* the segment */
  size_t from, to; /* the embedded token range (in the segment's tokens) */
  slot s;          /* the slot; s.te == 0: a change clause without one */
  char *text;      /* masked clause (arena) */
  bool near;       /* the words near the slot, read only when its whole span said nothing */
  bool third;      /* a held value spoken of, not by the user of themselves: [=REL] or [-REL] */
  bool modifier;   /* a kind word before a noun it qualifies ("a wind quintet") */
  bool passing;    /* third, of a name the user holds no value by: [=REL] against [=NONE] */
  int holds;       /* 1 + the relation a noun of the user's placed at the slot says (@holds) */
  int owned;       /* 1 + the relation the type of a name the user owns says (owned_as) */
  bool begun;      /* holds by a stretch begun at the slot ("First week at X"): a start, which
                    * does not yield as a placed noun does */
  int64_t taken;   /* an offer from the slot taken: the start told (eg_sf_offer_taken); 0 */
  bool acquired;   /* owned, acquired by a verb of acquiring ("got my own X"): said, not placed */
  bool of_held;    /* no slot, of the one the user has of a kind ("my car needs a service"): a
                    * word on the state only where it reads as its end ("my car got stolen") */
  bool pending;    /* no slot and no change marker: embedded for a value in prospect only, */
  int won;         /* … of this relation ("[+]" reads it; see session_names.won) */
  bool in;         /* right after "in", named by no cue: read as a place where it may be one
                    * ("living with my sister in X": no partner) */
  unsigned backed; /* the relations (bit r) of the speaker's nouns its sentence names ("my
                    * manager"; eg_sf_speakers_nouns) and of its words of a state's own
                    * ("date": @domain) */
} item;

typedef struct verdict {
  int rel;    /* -1: nothing */
  bool ended; /* a doubt rather than a fact */
  float cosine, margin;
  bool weak;   /* a current value read as rel below the bar, over NONE: a fact only in place of
                * a value the same message ends ("Sold the piano and rented a X") */
  bool placed; /* read from a noun or an owner, not from the words: it yields (emit) */
  bool fresh;  /* no slot, read as a value begun that it does not name ([+REL]: "I got the job"):
                * a doubt, and a name that follows it may be the new value (emit) */
} verdict;

/* Relation r as a noun or an owner says it, the prototypes telling how close the words come. */
static verdict placed(const eg_statefacts *sf, int r, const float *best_assert, float none,
                      bool ended) {
  float c = best_assert[r] > sf->floor ? best_assert[r] : sf->floor;
  return (verdict){.rel = r, .ended = ended, .cosine = c, .margin = c - none, .placed = true};
}

/* The types the item's slot is read as: a place right after "in" where it may be one. */
static unsigned in_types(const eg_statefacts *sf, const item *it) {
  return it->in && (it->s.bits & sf->place_bit) ? sf->place_bit : it->s.bits;
}

/* Ranks the reading c among the best two so far (*first above *second): true when it is the
 * new first. */
static bool ranks_first(float c, float *first, float *second) {
  if (c > *first) {
    if (*first > *second) *second = *first;
    *first = c;
    return true;
  }
  if (c > *second) *second = c;
  return false;
}

/* The reading of the item's words by the best cosines per relation and of NONE. */
static verdict read_words(const eg_statefacts *sf, const item *it, const float *best_assert,
                          const float *best_ended, float none) {
  verdict out = {.rel = -1};
  if (it->passing) {
    /* still held by the user, by the floor and the margin over every other reading: over the
     * other relations its type allows, that relation's "gone", and a name of someone else's */
    float first = -1, second = none;
    int arg = -1;
    for (int r = 0; r < sf->n_rels; r++) {
      if (!(sf->rels[r].types & in_types(sf, it))) continue;
      if (best_ended[r] > second) second = best_ended[r];
      if (ranks_first(best_assert[r], &first, &second)) arg = r;
    }
    if (arg >= 0 && first >= sf->floor && first - second >= sf->margin)
      out = (verdict){.rel = arg, .cosine = first, .margin = first - second};
    return out;
  }
  if (it->third) {
    /* gone, by the floor and the margin over still held, or by any margin where a word of
     * ending governs it ("we lost X"): a word on the state */
    for (int r = 0; r < sf->n_rels; r++) {
      float gone = best_ended[r], margin = gone - best_assert[r];
      bool by = margin >= sf->margin || (it->s.status == ST_FORMER && margin > 0);
      if ((sf->rels[r].types & it->s.bits) && gone > out.cosine && gone >= sf->floor && by)
        out = (verdict){.rel = r, .ended = true, .cosine = gone, .margin = margin};
    }
    return out;
  }
  /* A former value (sold my X, moved from X) is a weaker claim than a fact: it only marks
   * the state for checking, so it needs the margin over the other relations but only to
   * beat NONE. (Tense markers are weaker evidence: they keep the full bar.) */
  bool doubt = it->s.te && it->s.status == ST_FORMER;
  float first = -1, second = doubt ? -1 : none;
  int arg = -1;
  bool arg_ended = false;
  for (int r = 0; r < sf->n_rels; r++) {
    /* with a slot: the relations its type allows; without: only the "ended" prototypes */
    /* a former or unasserted value may read like a state that ended ("I resigned from X") */
    float as_state = it->s.status != ST_CURRENT && best_ended[r] > best_assert[r] ? best_ended[r]
                                                                                  : best_assert[r];
    /* without a slot, a clause that says a state ended or says one without a value we
     * can read ("I live somewhere new now") is a word on the state: a doubt either way */
    float said = best_assert[r] > best_ended[r] ? best_assert[r] : best_ended[r];
    if (it->of_held && best_ended[r] < best_assert[r] + sf->margin) said = -1;
    float c = it->s.te ? ((sf->rels[r].types & in_types(sf, it)) ? as_state : -1) : said;
    if (ranks_first(c, &first, &second)) arg = r, arg_ended = !it->s.te;
  }
  /* numbers only: the clause is the user's text */
  EG_DEBUG("statefacts", "clause judged", "relation=%s cosine=%.3f second=%.3f none=%.3f status=%d",
           arg >= 0 ? sf->rels[arg].name : "-", first, second, none, (int)it->s.status);
  /* a name of no known type competes as a place, but is read as one only where a word
   * places it ("lived in X since 2019"; not "our X DAGs keep timing out", "we lost X") */
  unsigned other = it->s.bits & ~sf->place_bit; /* its types but a place */
  if (arg >= 0 && it->s.te && it->s.proper && it->s.bits == sf->name_types && !it->s.where &&
      !(sf->rels[arg].types & other)) {
    /* … though the next reading its other types allow may be one in place of a value the
     * message ends ("My old job was at Lidl, now I am at X"): a weak reading (taking_place) */
    int alt = -1;
    for (int r = 0; r < sf->n_rels; r++)
      if ((sf->rels[r].types & other) && (alt < 0 || best_assert[r] > best_assert[alt])) alt = r;
    if (alt >= 0 && best_assert[alt] > none && it->s.status == ST_CURRENT)
      return (verdict){
          .rel = alt, .cosine = best_assert[alt], .margin = best_assert[alt] - first, .weak = true};
    /* … and a value left ("I'm no longer at X", "we lost X, the house is so quiet"): the doubt
     * its other types allow, where that reading clears the bar and the margin over the others
     * and NONE */
    float gone = -1, next = none;
    int left = -1;
    for (int r = 0; doubt && r < sf->n_rels; r++)
      if ((sf->rels[r].types & other) &&
          ranks_first(best_ended[r] > best_assert[r] ? best_ended[r] : best_assert[r], &gone,
                      &next))
        left = r;
    if (left >= 0 && gone >= sf->floor && gone - next >= sf->margin)
      return (verdict){.rel = left, .ended = true, .cosine = gone, .margin = gone - next};
    return out;
  }
  if (arg >= 0 && (first > none || it->s.bits != sf->name_types) && it->s.te &&
      it->s.status == ST_CURRENT && (first < sf->floor || first - second < sf->margin))
    return (verdict){.rel = arg, .cosine = first, .margin = first - second, .weak = true};
  /* a value given up whose type one relation alone takes ("Sold the X", X an instrument):
   * a word on that state over NONE, whatever the bar — its type says which */
  bool typed_end = doubt && eg_sf_only_taker(sf, it->s.bits) >= 0 && arg >= 0 && first > none;
  if (!typed_end && (arg < 0 || first < sf->floor || first - second < sf->margin || first <= none))
    return out;
  out.rel = arg;
  /* words that read as the state's end by the margin, where no marker said so ("Our old dog X
   * died last week"): a word on the state, no value held */
  out.ended = arg_ended || it->s.status != ST_CURRENT ||
              (it->s.te && best_ended[arg] - best_assert[arg] >= sf->margin);
  out.cosine = first;
  out.margin = first - second;
  return out;
}

static verdict judge(const eg_statefacts *sf, const float *v, const item *it) {
  float best_assert[MAX_RELS], best_ended[MAX_RELS], best_begun[MAX_RELS], none = -1;
  for (int r = 0; r < sf->n_rels; r++) best_assert[r] = best_ended[r] = best_begun[r] = -1;
  for (size_t p = 0; p < sf->n_protos; p++) {
    const float *q = sf->pvec + p * (size_t)sf->dim;
    float c = 0;
    for (int d = 0; d < sf->dim; d++) c += v[d] * q[d];
    const proto *pr = &sf->protos[p];
    /* a held value spoken of is read by the prototypes of one, and only by them; a name
     * spoken of in passing by them and by those of a name that is no one's value of the user */
    bool of_third = pr->kind == PK_HELD || pr->kind == PK_GONE || pr->kind == PK_PASSING;
    if (of_third != it->third || (pr->kind == PK_PASSING && !it->passing)) continue;
    /* a NONE prototype competes with slots of its types (a change clause: with all) */
    bool no_rel = pr->kind == PK_NONE || pr->kind == PK_PASSING;
    if (no_rel && it->s.te && !(pr->types & it->s.bits)) continue;
    /* … one of no type ("Got it, thanks"), with a clause read for a value in prospect only */
    if (pr->kind == PK_NONE && !pr->types && !it->pending) continue;
    /* a value begun unnamed ("I got the job") reads a clause without a slot only; one of the
     * value in prospect ("I got it!"), one read for it only, as begun of its relation */
    if ((pr->kind == PK_BEGUN || pr->kind == PK_WON) && it->s.te) continue;
    if (pr->kind == PK_WON && (!it->pending || it->won < 0)) continue;
    float *slotp = pr->kind == PK_WON                            ? &best_begun[it->won]
                   : no_rel                                      ? &none
                   : pr->kind == PK_ENDED || pr->kind == PK_GONE ? &best_ended[pr->rel]
                   : pr->kind == PK_BEGUN                        ? &best_begun[pr->rel]
                                                                 : &best_assert[pr->rel];
    if (c > *slotp) *slotp = c;
  }
  /* … as a word on the state, as one that ended is */
  bool begun[MAX_RELS];
  for (int r = 0; r < sf->n_rels; r++)
    if ((begun[r] = best_begun[r] > best_ended[r])) best_ended[r] = best_begun[r];
  verdict out = {.rel = -1};
  /* "my team at X": the noun says the relation */
  if (it->holds) {
    if (it->s.status == ST_NOT_ASSERTED) return out;
    out = placed(sf, it->holds - 1, best_assert, none, it->s.status == ST_FORMER);
    out.placed = !it->begun;
    return out;
  }
  out = read_words(sf, it, best_assert, best_ended, none);
  out.fresh = out.rel >= 0 && out.ended && !it->s.te && begun[out.rel] &&
              best_ended[out.rel] >= best_assert[out.rel];
  /* "my X hates the snow", X a car: the owner says it where the words do not */
  if ((out.rel < 0 || out.weak) && it->owned) {
    out = placed(sf, it->owned - 1, best_assert, none, false);
    out.placed = !it->acquired;
  }
  /* "I'm staying at X for now, my manager promised me a review": a name the words read as a
   * relation only below the bar, beside a noun the speaker has by holding that relation's value
   * in the same sentence */
  else if (out.weak && it->s.proper && (it->backed >> out.rel & 1u))
    out = placed(sf, out.rel, best_assert, none, false);
  /* "Practising clarinet in lockdown is annoying the neighbours": a kind word (not a name's
   * type, qualifying no noun) whose type one relation alone takes, read as it over NONE but
   * below the bar: its type says which, as a given-up one's does (read_words) */
  else if (out.weak && !it->s.proper && !it->modifier && !(it->s.bits & sf->name_types) &&
           eg_sf_only_taker(sf, it->s.bits) >= 0)
    out = placed(sf, out.rel, best_assert, none, false);
  return out;
}

/* ---- extraction ---------------------------------------------------------------------------- */

static bool has_relation(const eg_enriched *o, const char *rel) {
  for (size_t f = 0; f < o->n_facts; f++)
    if (!strcmp(o->facts[f].relation, rel)) return true;
  return false;
}

size_t eg_sf_value_end(const char *text, const token *t, size_t te) {
  size_t s = t[te - 1].s, e = t[te - 1].e;
  if (e >= s + 3 && text[e - 2] == '\'' && text[e - 1] == 's') return e - 2;
  if (e >= s + 5 && !memcmp(text + e - 4, "\xe2\x80\x99s", 4)) return e - 4; /* ’ */
  return e;
}

/* The subject "we" as the speaker and the one named before it, its verb kept ("we've been
 * together" → "X and I have been together"). */
static const char *const we_forms[][2] = {{"we", "X and I"},         {"we're", "X and I are"},
                                          {"we've", "X and I have"}, {"weve", "X and I have"},
                                          {"we'd", "X and I had"},   {"we'll", "X and I will"}};

const char *eg_sf_we_form(const char *w) {
  for (size_t i = 0; i < sizeof we_forms / sizeof *we_forms; i++)
    if (!strcmp(w, we_forms[i][0])) return we_forms[i][1];
  return NULL;
}

/* The first token of the phrase that names the person at slot s, a word that says no more
 * than that it is one before the naming verb ("a guy named X", "someone called X"), or the
 * firm or place at s by its noun ("a company called X"): the phrase is X, its verb left to
 * say the rest ("seeing a guy named X" is "seeing X"; the words of naming would pull it to a
 * pet's prototypes). s->ts when there is none. */
static size_t named_anyone(const eg_statefacts *sf, const token *t, size_t from, const slot *s) {
  static const char *const anyone[] = {"guy",   "man",    "woman",   "girl",    "boy",  "lady",
                                       "bloke", "chap",   "lad",     "lass",    "dude", "fella",
                                       "gal",   "person", "someone", "somebody"};
  size_t i = s->ts;
  if (i < from + 2 || !eg_sf_naming_verb(sf, t[i - 1].w) || t[i - 2].comma) return i;
  bool det = i >= from + 3 && eg_sf_determiner(t[i - 3].w);
  if ((s->bits & sf->person_bit) &&
      eg_sf_in_list(t[i - 2].w, anyone, sizeof anyone / sizeof *anyone))
    return det ? i - 3 : i - 2;
  /* … and so the phrase naming a firm or a place by its common noun ("joined a company called
   * X" is "joined X"), no pet's or person's */
  bool thing = (s->bits & (sf->org_bit | sf->place_bit)) &&
               !(s->bits & (sf->person_bit | sf->kind_types)) &&
               eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, t[i - 2].w);
  return det && thing ? i - 3 : i;
}

/* The masked clause: the slot's bytes replaced by "X" (by "X and I" for a "we" standing for
 * the speaker and a value named before it; the whole phrase naming a person by a word that
 * says only that, or a firm or place by its noun: named_anyone); a subject and verb the user's
 * sentence dropped are said ("I'm officially a X person": the prototypes say who is). */
static char *masked(const eg_statefacts *sf, eg_arena *a, const char *text, const token *t,
                    const item *it) {
  size_t cs = t[it->from].s, ce = t[it->to - 1].e;
  if (ce - cs > CLAUSE_BYTES) ce = cs + CLAUSE_BYTES;
  if (!it->s.te)
    return eg_sf_unshorten(sf, a, eg_sf_plain_marks(eg_arena_strndup(a, text + cs, ce - cs)));
  size_t ss = t[named_anyone(sf, t, it->from, &it->s)].s, se = eg_sf_value_end(text, t, it->s.te);
  if (se > ce) return NULL;
  const char *we = it->s.ve ? eg_sf_we_form(t[it->s.ts].w) : NULL;
  const char *who = !it->third && eg_sf_copula_dropped(sf, t, it->from) ? "I'm " : "";
  return eg_sf_unshorten(
      sf, a,
      eg_sf_plain_marks(eg_arena_sprintf(a, "%s%.*s%s%.*s", who, (int)(ss - cs), text + cs,
                                         we ? we : "X", (int)(ce - se), text + se)));
}

/* What is embedded for a slot: its sub-clause when that says who ("I'm dating X now" of
 * "…, we met at a concert": the rest would pull it elsewhere), widened by short appositions
 * ("I take X, my dog, to …"); the whole sentence when the sub-clause has no I or we
 * ("Bruno, our new beagle, is settling in"). */
static void embedded_span(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                          const slot *s, size_t *a, size_t *b) {
  size_t where = eg_sf_where_clause(t, s->te, to); /* "X, where I live" */
  if (where) {
    *a = s->ts, *b = where;
    return;
  }
  eg_sf_sub_clause(t, from, to, s->ts, a, b);
  /* a value corrected at once is read without its correction ("the new flat in X sorry I
   * meant Glasgow") */
  if (s->ve && s->vs > s->te && *b > s->te && eg_sf_correcting(t, s->te, s->vs)) *b = s->te;
  if (!eg_sf_first_person(t, *a, *b) && !eg_sf_subject_carried(sf, t, from, *a, *b)) {
    *a = from, *b = to;
    return;
  }
  /* within it, the slot's own predicate: "I drive a X" of "I drive a X and the AC is
   * blowing warm air", "picked up X" of "I quit the orchestra and picked up X" (the rest
   * is about something else) */
  size_t pa, pb, end = *b;
  eg_sf_predicate_span(t, *a, *b, s, false, &pa, &pb);
  /* … but the predicate the slot shares with the speaker is all of it: "X and I are divorced"
   * of "Now that X and I are divorced" */
  if (pb - pa > s->te - s->ts && !eg_sf_with_me(t, *a, *b, s->ts, s->te)) *a = pa, *b = pb;
  while (*b == end && *b < to) { /* an apposition: at most four words opening with a determiner */
    size_t e = *b;
    while (e + 1 < to && !t[e].comma) e++;
    if (e + 1 - *b > 4 || !eg_sf_determiner(t[*b].w)) break;
    *b = end = e + 1;
  }
}

/* The words near a slot, within its embedded span [a, b): from the start of its predicate,
 * at most six words before it, to at most three after it, short of a word that joins another
 * predicate. A long clause says other things too, and they pull its vector away from every
 * prototype ("first week at X and the coffee is awful", "starting on the cardiac floor at X
 * in feb, same place as my sister lol"). False when the window is the span itself or holds
 * fewer than two words besides the slot. */
static bool near_slot(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                      const slot *s, size_t a, size_t b, size_t *na, size_t *nb) {
  size_t sa, sb;
  eg_sf_sub_clause(t, from, to, s->ts, &sa, &sb);
  size_t x = eg_sf_predicate_start(sf, t, sa, sb, s, false), y = s->te;
  if (s->ts > x + 6) x = s->ts - 6;
  while (y < sb && y - s->te < 3 && !eg_sf_joint(t[y].w, false)) y++;
  if (x < a) x = a;
  if (y > b) y = b;
  *na = x, *nb = y;
  return (x > a || y < b) && y - x >= s->te - s->ts + 2;
}

/* "we" opening a predicate ("… and we've been together a month", "When we met …") after a
 * person named before it (who, pairable): the speaker and that person, a slot standing for
 * them (masked as "X and I"), from token at on in the clause [from, to). 1 with *out set,
 * else 0. */
static size_t we_pair(const eg_statefacts *sf, const token *t, size_t from, size_t at, size_t to,
                      const slot *who, slot *out) {
  static const char *const opens[] = {"and", "so", "but", "now", "then", "since", "when", "until"};
  size_t vs = eg_sf_value_from(who), ve = eg_sf_value_to(who);
  if (!eg_sf_pairable(sf, t, from, to, who)) return 0;
  for (size_t k = at; k < to; k++) {
    /* not one said to act on "us": no one of "we" ("X has been good to us since we arrived") */
    if (!strcmp(t[k].w, "us")) return 0;
    if (!eg_sf_we_form(t[k].w) || !(k == from || t[k - 1].comma ||
                                    eg_sf_in_list(t[k - 1].w, opens, sizeof opens / sizeof *opens)))
      continue;
    *out = (slot){k, k + 1, vs, ve, sf->person_bit, true, false, ST_CURRENT, who->held, false};
    return 1;
  }
  return 0;
}

/* Is the noun of the user's placed at s (own_at: its owner's distance) called new ("my new
 * team at X", "our new landlord here in X")? */
static bool new_held(const token *t, size_t from, const slot *s, size_t own_at) {
  size_t m = eg_sf_held_modifier(t, from, s, own_at);
  return m && !strcmp(t[m].w, "new");
}

void eg_sf_forget_value(slot *last, const slot *s) {
  size_t vs = eg_sf_value_from(s);
  if (last->te && last->ts == vs) last->te = 0;
}

void eg_sf_forget_former(slot *last, const slot *s) {
  if (s->status != ST_CURRENT) eg_sf_forget_value(last, s);
}

/* A name in apposition to "someone" or "somewhere" before it ("I've been seeing someone:
 * X, we met at …", "found somewhere, X, near the park") is who or where that is: the
 * indefinite becomes the slot (masked as X), the name its value, of a person's or a place's
 * type. */
static void said_by_indefinite(const eg_statefacts *sf, const token *t, size_t from, slot *s) {
  if (!s->proper || s->ve || s->ts < from + 2 || !t[s->ts - 1].comma) return;
  unsigned kind = eg_sf_indefinite(t[s->ts - 1].w);
  unsigned bits = s->bits & (kind == EG_SF_SOMEONE     ? sf->person_bit
                             : kind == EG_SF_SOMEWHERE ? sf->place_bit
                                                       : 0);
  if (!bits) return;
  s->vs = s->ts, s->ve = s->te;
  s->te = s->ts--;
  s->bits = bits;
  s->where = kind == EG_SF_SOMEWHERE;
}

size_t eg_sf_clause_slots(const eg_statefacts *sf, const session_names *sn, const token *t,
                          size_t from, size_t to, bool said, slot *last, slot *out) {
  size_t ns = said ? eg_sf_find_slots(sf, sn, t, from, to, out, MAX_CANDS) : 0;
  for (size_t k = 0; k < ns; k++) said_by_indefinite(sf, t, from, &out[k]);
  ns = eg_sf_renamed(sf, t, out, ns);
  if (ns) {
    slot before = *last, there;
    *last = out[ns - 1];
    for (size_t k = ns; k-- > 0;) /* "Met X at a trivia night and we've been together since" */
      if (eg_sf_pairable(sf, t, from, to, &out[k])) {
        if (ns < MAX_CANDS) ns += we_pair(sf, t, from, out[k].te, to, &out[k], &out[ns]);
        break;
      }
    /* beside the clause's own values, a word standing for a place named before ("Can you find
     * me a flat in Y? I'm moving there in May for a job at X"), not one that says what there is
     * ("there is a X near me") */
    static const char *const be[] = {"is", "are", "was", "were", "will", "has", "have", "seems"};
    /* … or one named before it in this clause, however it was named, as where a move of home
     * goes ("I visited X in 2019 and moved there a year later", "moved back there"; not
     * "drive up there", nor "here", the speaker's place now) */
    static const char *const back[] = {"back", "over", "out"};
    size_t p = from, at = from;
    while (p < to && strcmp(t[p].w, "there")) p++;
    size_t v = p > from && eg_sf_in_list(t[p - 1].w, back, 3) ? p - 1 : p;
    if (v == from || !eg_sf_verb_at(sf->relocates, t, v - 1, p)) p = to;
    for (size_t k = 0; p < to && k < ns; k++)
      if (out[k].te <= p && (out[k].bits & sf->place_bit)) before = out[k], at = p;
    if (said && !t[to - 1].ask && ns < MAX_CANDS && eg_sf_proform(sf, t, at, to, &before, &there) &&
        there.where && !(there.te < to && eg_sf_in_list(t[there.te].w, be, sizeof be / sizeof *be)))
      out[ns++] = there;
  } else if (said && !t[to - 1].ask) {
    ns = eg_sf_proform(sf, t, from, to, last, out);
    if (!ns) ns = we_pair(sf, t, from, from, to, last, out);
  }
  return ns;
}

/* A held value spoken of ("X keeps scratching the sofa", "X has moved in with my parents", "my
 * sister took X"), by the user of themselves or not: an item read by the prototypes of a held
 * value only, for a word that it is gone. */
static void add_held(const eg_statefacts *sf, const token *t, const char *text, size_t seg,
                     size_t from, size_t to, const slot *s, eg_arena *a, item *items, size_t *n) {
  /* not another's of the same name ("my neighbour's X got stolen") */
  if (!s->held || *n >= MAX_ITEMS || eg_sf_of_a_possessor(sf, t, from, s)) return;
  item *it = &items[*n];
  *it = (item){.seg = seg, .s = *s, .third = true};
  it->s.status = eg_sf_status_of(sf, t, from, to, s);
  embedded_span(sf, t, from, to, s, &it->from, &it->to);
  if ((it->text = masked(sf, a, text, t, it))) (*n)++;
}

/* The relations (bit r) the sentence [from, to) may back a weak reading of a name by
 * (item.backed): those of the people the speaker has by a value (eg_sf_speakers_nouns) and of
 * its words of a state's own (@domain). A name takes them where the word before it places it
 * as such a value does (backing): a person's not after a word that places a place or a firm
 * ("our anniversary at X"), another's after "at" or "for" ("staying at X for now, my manager
 * …"; not "lunch with X, my manager …"). */
static unsigned backers(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  unsigned rels = eg_sf_speakers_nouns(sf, t, from, to);
  for (size_t q = from; q < to; q++) rels |= eg_sf_bits_of(sf->domain, t[q].w);
  return rels;
}

/* … of them (rels: backers), those slot s takes, where the word before the name places it as
 * such a value does. */
static unsigned backing(const eg_statefacts *sf, const token *t, size_t from, unsigned rels,
                        const slot *s) {
  static const char *const placing[] = {"at", "in", "to", "from", "near", "for", "into"};
  unsigned ok = 0;
  const char *prev = s->ts > from ? t[s->ts - 1].w : "";
  bool placed = eg_sf_in_list(prev, placing, sizeof placing / sizeof *placing);
  for (int r = 0; r < sf->n_rels; r++)
    if ((rels >> r & 1u) &&
        ((sf->rels[r].types & sf->person_bit) ? !placed
                                              : !strcmp(prev, "at") || !strcmp(prev, "for")))
      ok |= 1u << r;
  return ok;
}

/* Is the slot right after "in", named by no cue (not "In X we …", a frame)? */
static bool right_after_in(const token *t, size_t from, const slot *s) {
  return !s->cued && s->ts > from && !strcmp(t[s->ts - 1].w, "in") && !t[s->ts - 1].start;
}

/* A name the user holds no value by, spoken of in the user's words but not of themselves
 * ("X keeps scratching the sofa", "X forgot valentines"): read by the prototypes of a held
 * value spoken of against those of anyone else's, a value of the user's only while the user
 * holds none of its relation (emit). Not someone else's ("my sister's dog X"), nor one said to
 * be gone or not to be. */
static void add_passing(const eg_statefacts *sf, const token *t, const char *text, size_t seg,
                        size_t from, size_t to, const slot *s, eg_arena *a, item *items,
                        size_t *n) {
  if (s->held || !s->proper || *n >= MAX_ITEMS || eg_sf_about_someone_else(sf, t, from, to, s))
    return;
  item *it = &items[*n];
  *it =
      (item){.seg = seg, .s = *s, .third = true, .passing = true, .in = right_after_in(t, from, s)};
  it->s.status = eg_sf_status_of(sf, t, from, to, s);
  if (it->s.status != ST_CURRENT) return;
  embedded_span(sf, t, from, to, s, &it->from, &it->to);
  if ((it->text = masked(sf, a, text, t, it))) (*n)++;
}

/* Is the kind word a name is bound to in the clause [from, to) ("X the ferret"), not only
 * before it ("… a cat. Her name is X")? */
static bool kind_within(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                        const slot *s) {
  for (size_t i = from; i < to; i++)
    if ((i < s->ts || i >= s->te) && (eg_sf_kind_bits(sf, t[i].w) & s->bits)) return true;
  return false;
}

/* Does a noun the slot qualifies follow it ("harp concert", "my Lyon flat")? The next word,
 * before the clause ends (to), is a plain noun (eg_sf_plain_noun) and no word for the slot's
 * own kind ("a Mediterranean diet"). */
static bool noun_after(const eg_statefacts *sf, const slot *s, const token *t, size_t to) {
  if (s->te >= to || t[s->te - 1].comma) return false;
  const token *w = &t[s->te];
  return eg_sf_plain_noun(sf, w) && !(eg_sf_bits_of(sf->ask, w->w) & s->bits);
}

/* Does the kind word in slot s qualify the noun after it ("a wind quintet")? */
static bool qualifies(const eg_statefacts *sf, const slot *s, const token *t, size_t to) {
  return !s->proper && noun_after(sf, s, t, to);
}

/* "my Fiat Panda hates the snow", "our new Prius": a name the user owns, of a type one
 * relation alone takes and qualifying no noun ("my Lyon flat" is a flat), says that relation
 * where the words around it say none: 1 + the relation; 0 when not. */
static int owned_as(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                    const slot *s) {
  if (s->status != ST_CURRENT || !eg_sf_owned_name(sf, t, from, s) || noun_after(sf, s, t, to))
    return 0;
  return eg_sf_only_taker(sf, s->bits) + 1;
}

/* The types a label opening its sentence before a colon says the clause at `from` is of:
 * "Employer: X", "Pets: two cats, X and Y" (an @ask word of a type); 0 for none. */
static unsigned labelled(const eg_statefacts *sf, const char *text, const token *t, size_t from) {
  if (from == 0 || !t[from - 1].start) return 0;
  const char *c = text + t[from - 1].e;
  while (c < text + t[from].s && *c == ' ') c++;
  return *c == ':' ? eg_sf_bits_of(sf->ask, t[from - 1].w) : 0;
}

/* The clause [*from, *to) of the segment's tokens t[0, nt) that holds token i. */
static void clause_of(const token *t, size_t nt, size_t i, size_t *from, size_t *to) {
  size_t a = 0, b = nt;
  while (a < nt && (b = eg_sf_clause_end(t, nt, a)) <= i) a = b;
  *from = a, *to = b;
}

/* The word a name given at slot s names before its naming words (eg_sf_given_to) as a slot
 * *g with the name its value, in that word's clause [*cf, *ct) up to the naming words ("been
 * seeing someone since november 🥰 his name's X", "we adopted a bunny. We called her X");
 * false when it names none. */
static bool given_word(const eg_statefacts *sf, const token *t, size_t nt, size_t from,
                       const slot *s, slot *g, size_t *cf, size_t *ct) {
  unsigned bits;
  size_t phrase, k = eg_sf_given_to(sf, t, from, s->ts, &bits, &phrase);
  if (!k || k > phrase) return false;
  clause_of(t, nt, k - 1, cf, ct);
  if (*ct > phrase) *ct = phrase;
  *g = *s;
  g->ts = k - 1, g->te = k, g->vs = eg_sf_value_from(s), g->ve = eg_sf_value_to(s);
  return true;
}

/* That clause, the word standing for the name, says the state the name is in: an item beside
 * the naming clause's own, when it is the speaker's own statement. */
static void add_given(const eg_statefacts *sf, const token *t, size_t nt, const char *text,
                      size_t seg, size_t from, size_t said_from, const slot *s, eg_arena *a,
                      item *items, size_t *n) {
  size_t cf, ct, sa, sb;
  slot g;
  if (*n >= MAX_ITEMS || !given_word(sf, t, nt, from, s, &g, &cf, &ct) || t[cf].s < said_from ||
      t[ct - 1].ask || !eg_sf_speaks_of_self(sf, t, cf, ct, true))
    return;
  g.status = eg_sf_status_of(sf, t, cf, ct, &g);
  if (s->status == ST_FORMER) g.status = ST_FORMER; /* "my cat's name was X, she died in 2019" */
  embedded_span(sf, t, cf, ct, &g, &sa, &sb);
  item *it = &items[*n];
  *it = (item){.seg = seg, .from = sa, .to = sb, .s = g};
  if ((it->text = masked(sf, a, text, t, it))) (*n)++;
}

/* Does the clause [from, to) speak only of the one the user has of a kind, owned by a bare
 * "my" or "our" ("My car needs a service", "my husband cooked dinner", "our dog is snoring"),
 * with no word of a change, an end, a past, a plan, a negation or a former or new one ("my new
 * car", "my ex", "my old dog")? Then it says nothing of a change. */
static bool of_the_one_held(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  static const char *const fresh[] = {"new", "another", "different"};
  static const marker_kind off[] = {MK_CHANGE,   MK_PAST,  MK_FUTURE,
                                    MK_NEGATION, MK_ENDED, MK_FORMER};
  bool owned = false;
  for (size_t k = from; k + 1 < to; k++)
    owned |= eg_sf_ours(t[k].w) && !t[k].comma &&
             (eg_sf_kind_bits(sf, t[k + 1].w) || eg_sf_bits_of(sf->common, t[k + 1].w));
  for (size_t k = from; owned && k < to; k++)
    owned = !eg_sf_in_list(t[k].w, fresh, 3) && !eg_sf_ends_at(sf, t, k, to);
  return owned && !eg_sf_has_any_marker(sf, off, sizeof off / sizeof *off, t, from, to);
}

/* The clauses of one segment worth embedding, appended to items. */
static eg_code collect(const eg_statefacts *sf, const session_names *sn, size_t seg,
                       const eg_segment *sg, const eg_segment *next, eg_arena *a, item *items,
                       size_t *n, eg_statefacts_stats *st, eg_err *err) {
  static __thread token t[MAX_TOKENS]; /* per thread: one segment at a time */
  const char *text = sg->text;
  size_t nt = eg_sf_tokenize(text, t, MAX_TOKENS);
  /* the speaker's own words only: the reply in the same round is context */
  size_t said_from = sg->said_to ? sg->said_from : 0,
         said_to = sg->said_to ? sg->said_to : (size_t)-1;
  slot last = {0}; /* the last value named in the speaker's clauses: what "here" stands for */
  bool prev_self = false;
  for (size_t from = 0; from < nt;) {
    size_t to = eg_sf_clause_end(t, nt, from);
    bool question = t[to - 1].ask;
    bool said = t[from].s >= said_from && t[from].s < said_to;
    slot slots[MAX_CANDS];
    size_t ns = eg_sf_clause_slots(sf, sn, t, from, to, said, &last, slots);
    /* a name given right after the speaker's own sentence is theirs too ("we got a rabbit;
     * her name is X", "Adopted a kitten. The kids named him X"; not after "my friend got a
     * cat"), and so is one that opens its sentence bound to its kind ("X the ferret joined
     * the household"; not "Jared adopted a kitten called X"), and one a start opening the
     * sentence places ("Onboarding at X is …"), as one a first stretch or thing had by
     * holding a value places ("First paycheck from X came in", "First week at X done") */
    bool given = false;
    size_t own_at;
    unsigned label = labelled(sf, text, t, from); /* "Employer: X" */
    for (size_t k = 0; k < ns; k++)
      given |= (slots[k].bits & label) ||
               (slots[k].cued &&
                (prev_self || (slots[k].ts == from && kind_within(sf, t, from, to, &slots[k])))) ||
               eg_sf_home_of_speaker(t, from, to, &slots[k]) ||
               (slots[k].ts == from + 2 && eg_sf_begins_at(sf, t, from, &slots[k])) ||
               (slots[k].ts == from + 3 && eg_sf_ordinal(t[from].w) &&
                eg_sf_held_through(sf, t, from, &slots[k], &own_at));
    /* … and one a route of the speaker's move ends ("the move is booked, Leeds to X"): read
     * once per slot, with whether that move is only weighed */
    unsigned route[MAX_CANDS] = {0};
    bool route_weighed[MAX_CANDS] = {false};
    for (size_t k = 0; said && k < ns; k++)
      given |= (route[k] = eg_sf_route_moved(sf, t, nt, from, to, said_from, said_to, slots, ns, k,
                                             &route_weighed[k])) != 0;
    bool self = said && (eg_sf_speaks_of_self(sf, t, from, to, true) || given),
         arrival = self && eg_sf_arrives(sf, t, from, to); /* the subject is the speaker's */
    slot end = {to - 1, to, 0, 0, 0, false, false, ST_CURRENT, 0, false}; /* its subject's */
    prev_self = self && !eg_sf_about_someone_else(sf, t, from, to, &end);
    if (self) {
      st->clauses++;
      size_t before = *n;
      unsigned backs = ns ? backers(sf, t, from, to) : 0; /* item.backed, per slot: backing */
      for (size_t k = 0; k < ns && *n < MAX_ITEMS; k++) {
        add_held(sf, t, text, seg, from, to, &slots[k], a, items, n);
        /* a name given ("the kids named him X") is the user's when the sentence is; so is
         * one a noun of the user's is placed at ("my coworkers at X") */
        size_t own_at;
        unsigned rels = eg_sf_held_through(sf, t, from, &slots[k], &own_at);
        int labelled_as = eg_sf_only_taker(sf, slots[k].bits & label);
        if (!rels && labelled_as >= 0) rels = 1u << labelled_as, slots[k].bits &= label;
        /* … or whose start the speaker arranges ("starting on the cardiac floor at X Hospital in
         * feb": the verb of starting says the relation), where a noun had only at a start
         * places it ("Passed probation at X", "Onboarding at X is …"), or that ends a change
         * from a value of its kind ("switched from piano to X"): each where the slot is no one
         * else's (not "my sister is moving to X") */
        unsigned begins = eg_sf_begins_at(sf, t, from, &slots[k]), told = 0;
        if (!rels) {
          int only = eg_sf_arranged_taker(sf, t, from, to, slots[k].bits, slots[k].ts);
          told = only >= 0 ? 1u << only : begins & eg_sf_takers(sf, slots[k].bits);
          if (!told && (told = eg_sf_changed_over(sf, t, from, slots, k)) != 0 &&
              !(slots[k].bits & sf->rels[__builtin_ctz(told)].types))
            slots[k].bits = slots[k - 1].bits;                   /* of the kind it changes from */
          if (!told) told = eg_sf_newly_named(sf, t, &slots[k]); /* "new city (X)" */
        }
        bool starts = told && !eg_sf_about_someone_else(sf, t, from, to, &slots[k]);
        if (starts) rels = told;
        /* … or the institution the speaker has been at for a while ("I've been at X for a
         * year and a half"): the one relation an org takes */
        int org = eg_sf_only_taker(sf, sf->org_bit);
        bool tenure = !rels && org >= 0 && (slots[k].bits & sf->org_bit) &&
                      eg_sf_tenure(text, t, from, to, &slots[k], sg->time);
        if (tenure) rels = 1u << org;
        /* … or the end of a route the speaker moves along: the relation the move names */
        unsigned moved = rels ? 0 : route[k];
        bool weighed = !rels && route_weighed[k]; /* "thinking about a move, Leeds to X maybe" */
        if (moved) rels = moved;
        /* … and a name given to someone else's ("my friend got a puppy, she called him X") */
        slot g;
        size_t gf, gt;
        if (!rels && !arrival &&
            (eg_sf_about_someone_else(sf, t, from, to, &slots[k]) ||
             (given_word(sf, t, nt, from, &slots[k], &g, &gf, &gt) &&
              eg_sf_about_someone_else(sf, t, gf, gt, &g)))) {
          eg_sf_forget_value(&last, &slots[k]);
          continue;
        }
        /* a place gone to, not moved to, is no home: "the train into X" (not "moved to X"); nor
         * is where a thing had by another value is ("the Amazon office in X", "my job in X") */
        bool held_in = !moved &&
                       (slots[k].bits == sf->place_bit || slots[k].bits == sf->name_types) &&
                       eg_sf_held_thing_in(sf, t, from, slots[k].ts);
        if (!moved && slots[k].bits == sf->place_bit &&
            (held_in || eg_sf_destination(sf, t, nt, from, to, &slots[k])))
          continue;
        /* … and a name of no known type there is neither, where no noun of the user's places a
         * value at it ("coming from work in X"; "my manager in X" is the firm, @holds) */
        if (held_in && slots[k].bits == sf->name_types) {
          size_t own_at;
          if (!eg_sf_held_through(sf, t, from, &slots[k], &own_at)) continue;
          slots[k].bits &= ~sf->place_bit;
        }
        if (!eg_sf_player_of_speaker(sf, t, from, &slots[k])) continue; /* "hired a pianist" */
        if (eg_sf_topic_of(t, from, &slots[k]))
          continue; /* "an essay about the history of the X" */
        /* "X, where I live": a place the speaker tells, even in a question (or a firm's:
         * "where I work"), no one's name */
        bool where = eg_sf_where_clause(t, slots[k].te, to) != 0;
        unsigned sited = slots[k].bits & (sf->place_bit | sf->org_bit);
        if (where && sited) slots[k].bits = sited, slots[k].where = true;
        if ((eg_sf_asked(t, from, to, slots[k].ts) && !where &&
             !eg_sf_presupposed(sf, t, from, &slots[k])) ||
            (!slots[k].cued && !rels && !arrival &&
             !eg_sf_users_predicate(sf, t, from, to, &slots[k], true)))
          continue;
        slots[k].status = eg_sf_status_of(sf, t, from, to, &slots[k]);
        /* "got an offer from X. countered, got 20%. start aug 6.": taken; one accepted starts
         * at the start told ("accepted an offer from X, starting in May") */
        int64_t taken = slots[k].status != ST_FORMER
                            ? eg_sf_offer_taken(sf, t, nt, from, &slots[k], sg, next)
                            : 0;
        if (taken) slots[k].status = ST_CURRENT;
        if (eg_sf_route_origin(sf, t, slots, ns, k) &&
            eg_sf_status_of(sf, t, from, to, &slots[k + 1]) == ST_CURRENT)
          slots[k].status = ST_FORMER; /* not "drove Leeds to Bristol last weekend" */
        /* only visited for a while: no word on the state ("in X for a long weekend") */
        if (eg_sf_stay_after(sf, t, slots[k].te, to, slots[k].bits & sf->place_bit)) continue;
        if (weighed || eg_sf_alternative(t, slots, ns, k))
          slots[k].status = ST_NOT_ASSERTED; /* weighed */
        size_t span_from, span_to;
        embedded_span(sf, t, from, to, &slots[k], &span_from, &span_to);
        eg_sf_possessed(sf, t, from, to, &slots[k], &span_from, &span_to);
        if (moved) span_from = from, span_to = to; /* "booked for Saturday, Leeds to X" */
        eg_sf_forget_former(&last, &slots[k]);
        /* a stretch begun at the value, a noun placed there called new ("my new team at X") or
         * one had only at a start ("my probation at X"): a start */
        bool begun = starts || tenure || moved || taken ||
                     (rels && slots[k].ts >= from + 3 &&
                      (eg_sf_ordinal(t[slots[k].ts - 3].w) ||
                       new_held(t, from, &slots[k], own_at) || begins));
        /* a noun placed at it in more than one relation ("our first winter in X"): the one a
         * place takes where it is a place WordNet or the gazetteer knows */
        unsigned in_place =
            rels & (rels - 1)
                ? eg_sf_takers(sf, eg_sf_place_bits(sf, t, slots[k].ts, slots[k].te)) & rels
                : 0;
        if (in_place) rels = in_place;
        item *it = &items[*n];
        *it = (item){.seg = seg,
                     .from = span_from,
                     .to = span_to,
                     .s = slots[k],
                     .modifier = qualifies(sf, &slots[k], t, to),
                     .holds = rels ? __builtin_ctz(rels) + 1 : 0,
                     .owned = rels ? 0 : owned_as(sf, t, from, to, &slots[k]),
                     .begun = begun,
                     .taken = taken};
        it->acquired = it->owned && eg_sf_acquired(sf, t, from, &slots[k]); /* "got my own X" */
        it->backed = backing(sf, t, from, backs, &slots[k]);
        it->in = right_after_in(t, from, &slots[k]);
        if (!(it->text = masked(sf, a, text, t, it))) continue;
        (*n)++;
        size_t near_from, near_to;
        if (*n < MAX_ITEMS && !rels &&
            near_slot(sf, t, from, to, &it->s, span_from, span_to, &near_from, &near_to)) {
          item *near = &items[*n];
          *near = (item){.seg = seg,
                         .from = near_from,
                         .to = near_to,
                         .s = it->s,
                         .near = true,
                         .modifier = it->modifier,
                         .taken = it->taken,
                         .in = it->in,
                         .backed = it->backed};
          if ((near->text = masked(sf, a, text, t, near))) (*n)++;
        }
        add_given(sf, t, nt, text, seg, from, said_from, &slots[k], a, items, n);
      }
      /* a clause without a slot says a change of a state, or of the value the user is after
       * ("got it!! start feb 1st") */
      if (!ns && !question && *n < MAX_ITEMS && !eg_sf_others_change(sf, t, from, to) &&
          (sn->pending || eg_sf_has_marker(sf, MK_CHANGE, t, from, to) ||
           eg_sf_has_marker(sf, MK_TOPIC, t, from, to))) {
        item *it = &items[*n];
        *it = (item){.seg = seg, .from = from, .to = to, .s = {.status = ST_NOT_ASSERTED}};
        it->pending = !eg_sf_has_marker(sf, MK_CHANGE, t, from, to) &&
                      !eg_sf_has_marker(sf, MK_TOPIC, t, from, to);
        it->won = sn->won;
        it->of_held = of_the_one_held(sf, t, from, to);
        if ((it->text = masked(sf, a, text, t, it))) (*n)++;
      }
      if (*n > before) st->embedded++;
    } else if (said && !question) {
      size_t before = *n;
      for (size_t k = 0; k < ns; k++) {
        add_held(sf, t, text, seg, from, to, &slots[k], a, items, n);
        add_passing(sf, t, text, seg, from, to, &slots[k], a, items, n);
      }
      if (*n > before) st->embedded++;
    }
    from = to;
  }
  (void)err;
  return EG_OK;
}

typedef struct pick {
  const item *it;
  verdict v;
} pick;

/* The start of a day after the day it was said (day = UTC date) the item's clause names, or 0. */
static int64_t said_later(const eg_statefacts *sf, const token *t, const item *it,
                          const eg_date *dates, size_t nd, int64_t said) {
  return it->s.te ? eg_sf_dated_later(sf, t, it->from, it->to, it->s.ts, it->s.te, dates, nd, said)
                  : 0;
}

/* Did the user's own words about the slot of pick q say something (p[0..np))? A held value's
 * reading as spoken of yields to it ("I have been at X for a year now": still held), not to a
 * noun placed at it that says it still is ("My job at X ended in May"), nor to a reading the
 * margin below it ("X let me go on Friday": a prototype of a held value's end, word for word) */
static bool read_as_own(const eg_statefacts *sf, const pick *p, size_t np, const pick *q) {
  for (size_t i = 0; i < np; i++)
    if (!p[i].it->third && !(p[i].v.placed && !p[i].v.ended) && p[i].it->s.te &&
        p[i].it->s.ts == q->it->s.ts && p[i].v.cosine + sf->margin > q->v.cosine)
      return true;
  return false;
}

/* Is pick q a better reading of a relation than cur (NULL: none yet)? The user's own words
 * over a name spoken of in passing, and a value said of the user over one a noun of theirs is
 * placed at ("I got the job at X. How do I tell my boss at Y?"); a name is more specific than a
 * kind word ("a Nissan Leaf" over "electric"), a kind word than one that qualifies a noun ("I play
 * flute in a wind quintet"); then the closer reading. */
static bool better(const pick *q, const pick *cur) {
  if (cur && q->it->passing != cur->it->passing) return !q->it->passing; /* the user's own */
  if (cur && !q->it->taken != !cur->it->taken) return !q->it->taken;     /* said, not an offer */
  if (cur && q->v.placed != cur->v.placed) return !q->v.placed;          /* said, not placed */
  if (!cur || q->it->s.proper != cur->it->s.proper) return !cur || q->it->s.proper;
  /* a name whose kind is known over one that may be of several ("moved to Lisbon, renting a
   * room in Graça": a city over a name only a preposition types) */
  int qk = __builtin_popcount(q->it->s.bits), ck = __builtin_popcount(cur->it->s.bits);
  if (q->it->s.proper && qk != ck) return qk < ck;
  if (q->it->modifier != cur->it->modifier) return !q->it->modifier; /* "flute" of "a wind X" */
  return q->v.cosine > cur->v.cosine;
}

/* Do items a and b name the same value (case aside)? */
static bool same_value(const char *text, const token *t, const item *a, const item *b) {
  size_t as = eg_sf_value_from(&a->s), ae = eg_sf_value_to(&a->s);
  size_t bs = eg_sf_value_from(&b->s), be = eg_sf_value_to(&b->s);
  size_t al = eg_sf_value_end(text, t, ae) - t[as].s, bl = eg_sf_value_end(text, t, be) - t[bs].s;
  return al == bl && !strncasecmp(text + t[as].s, text + t[bs].s, al);
}

/* A value of the user's own that the message names beside one it says ended (a word of ending
 * governs it, or a word of change is in its clause), read as the same relation if below the
 * bar or placed only (a kind word one relation takes, which would yield to the value held —
 * the one ended here): the one that took its place ("Sold the piano to make space and rented
 * a X", "I'm not in Lisbon anymore, I moved north to X", "swapped the sax for a X"), or NULL.
 * Not the ended value named again ("lived in X in 2015 and loved it there"). */
static const pick *taking_place(const char *text, const token *t, const pick *p, size_t np,
                                const pick *ended) {
  const pick *best = NULL;
  for (size_t i = 0; i < np; i++)
    if ((p[i].v.weak || p[i].v.placed) && p[i].v.rel == ended->v.rel && !p[i].it->s.held &&
        p[i].it->s.ts != ended->it->s.ts && !same_value(text, t, p[i].it, ended->it) &&
        better(&p[i], best))
      best = &p[i];
  return best;
}

/* A value begun that its clause does not name, named right after it ("I got the job!!! X,
 * customer team", "I accepted the offer. X, …"): the name opening the words that follow, read
 * as the same relation below the bar or placed only, or NULL. */
static const pick *named_next(const pick *p, size_t np, const pick *begun) {
  const pick *best = NULL;
  for (size_t i = 0; i < np; i++)
    if ((p[i].v.weak || p[i].v.placed) && p[i].v.rel == begun->v.rel && !p[i].it->s.held &&
        p[i].it->s.proper && p[i].it->s.ts == begun->it->to && better(&p[i], best))
      best = &p[i];
  return best;
}

/* Does the clause [from, to) say its state is now ("now I'm at X", "currently …")? */
static bool said_now(const token *t, size_t from, size_t to) {
  static const char *const now[] = {"now", "currently", "nowadays", "presently"};
  for (size_t k = from; k < to; k++)
    if (eg_sf_in_list(t[k].w, now, sizeof now / sizeof *now)) return true;
  return false;
}

/* Do the bytes [from, to) of text end no sentence? */
static bool one_sentence(const char *text, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (text[i] == '.' || text[i] == '!' || text[i] == '?' || text[i] == '\n') return false;
  return true;
}

/* A word later in the sentence that ends the state fact reads (p[0..np)): the latest word on
 * a state stands ("X and I tried long distance, but we broke up"; "I'm at X — well, I quit X
 * on Friday"). An ending of another value does not ("I quit X and joined Y"), nor one in a
 * sentence of its own, which may be of something else ("I'm X now. Meat just stopped
 * appealing to me"). The ending pick, or NULL. */
static const pick *ended_after(const char *text, const token *t, const pick *p, size_t np,
                               const pick *fact) {
  size_t after = eg_sf_value_to(&fact->it->s);
  for (size_t i = 0; i < np; i++) {
    const item *it = p[i].it;
    size_t at = it->s.te ? it->s.ts : it->from;
    if (p[i].v.rel != fact->v.rel || !p[i].v.ended || p[i].v.weak || at < after) continue;
    /* by the text between them: "but" cuts a clause, not a sentence */
    if (one_sentence(text, t[after - 1].e, t[at].s) &&
        (!it->s.te || same_value(text, t, it, fact->it)))
      return &p[i];
  }
  return NULL;
}

/* Does the user hold a value of the relation (ctx's held values): an entity, or (words) a
 * word too? */
static bool holds(const eg_enrich_ctx *ctx, const char *rel, bool words) {
  for (size_t i = 0; ctx && i < ctx->n_held; i++)
    if ((words || !ctx->held[i].literal) && ctx->held[i].relation &&
        !strcmp(ctx->held[i].relation, rel))
      return true;
  return false;
}

/* Is the slot called superseded by a word a few words before it in its sub-clause ("my old
 * team at X", "my ex X", "our previous car, X")? Not by a value left ("from X": where one
 * comes from may be long ago), one dead ("late") or a childhood's: those may have ended long
 * before the value held began. */
static bool superseded(const eg_statefacts *sf, const token *t, const slot *s) {
  static const char *const before[] = {"old", "former", "previous", "ex", "ex-"};
  for (size_t q = s->ts, k = 0; q > 0 && k < 4 && !t[q - 1].comma; q--, k++) {
    /* not an age: "a 12 week old X", "our two-year-old X" */
    if (!eg_sf_age_old(sf, t, q - 1) &&
        eg_sf_in_list(t[q - 1].w, before, sizeof before / sizeof *before))
      return true;
  }
  return false;
}

/* The user's own value of relation r the message names as superseded ("my old team at X", "my
 * ex X"), not a held one nor in passing (the best such pick, or NULL). */
static const pick *former_value(const eg_statefacts *sf, const token *t, const pick *p, size_t np,
                                int r) {
  const pick *best = NULL;
  for (size_t i = 0; i < np; i++) {
    const item *it = p[i].it;
    if (p[i].v.rel == r && !p[i].v.weak && it->s.te && it->s.status == ST_FORMER && !it->s.held &&
        !it->third && !it->passing && superseded(sf, t, &it->s) && better(&p[i], best))
      best = &p[i];
  }
  return best;
}

/* A value of relation r the message says ended by a word of ending of its own ("Sold the X",
 * "since leaving X in October", "X and I split up") that the user holds no fact of, nor gives
 * as the new one: it was theirs until then (the best such pick, or NULL). */
static const pick *ended_value(const eg_statefacts *sf, const token *t, size_t nt, const pick *p,
                               size_t np, int r, const pick *fact) {
  const pick *best = NULL;
  for (size_t i = 0; i < np; i++) {
    const item *it = p[i].it;
    if (p[i].v.rel != r || !p[i].v.ended || p[i].v.weak || !it->s.te || it->s.held || it->third ||
        it->s.status != ST_FORMER || (fact && fact->it->s.ts == it->s.ts))
      continue;
    size_t from, to;
    clause_of(t, nt, it->s.ts, &from, &to);
    if (eg_sf_ended_by_word(sf, t, from, to, &it->s) && better(&p[i], best)) best = &p[i];
  }
  return best;
}

/* The years a value of the past lasted, told in its item's words ("I worked at X from 2015 to
 * 2019"): a range through years over by the segment's day, in a clause said of the user's past
 * (not negated, not looking ahead, no one else's value). NULL for none. */
static const eg_date *years_lasted(const eg_statefacts *sf, const token *t, const item *it,
                                   const eg_date *dates, size_t nd, int64_t said) {
  if (!it->s.te || it->third || it->passing || it->s.status == ST_CURRENT ||
      eg_sf_has_marker(sf, MK_NEGATION, t, it->from, it->to) ||
      eg_sf_looks_ahead(sf, t, it->from, it->to))
    return NULL;
  for (size_t d = 0; d < nd; d++)
    if (dates[d].through && dates[d].start >= t[it->from].s && dates[d].start < t[it->to - 1].e &&
        (!said || dates[d].to <= said))
      return &dates[d];
  return NULL;
}

/* When the item's value began: a date in its words read, else a start or a stretch up to now
 * in its slot's sub-clause ("vegetarian since 2015") or a verbless one right after ("gone
 * vegan, like 3 weeks in"; not "my wife X's 50th is next month"); 0 for none. */
static int64_t began(const eg_statefacts *sf, const token *t, size_t nt, const item *it,
                     const eg_date *dates, size_t nd) {
  int64_t d = eg_sf_date_in(dates, nd, t[it->from].s, t[it->to - 1].e, EG_SF_ANY_DATE);
  if (d || !it->s.te) return d;
  size_t from = it->s.ts, a, b, a2 = 0, b2 = 0;
  while (from > 0 && !t[from - 1].cut) from--;
  size_t to = eg_sf_clause_end(t, nt, from);
  eg_sf_sub_clause(t, from, to, it->s.ts, &a, &b);
  if (b < to) eg_sf_sub_clause(t, from, to, b, &a2, &b2);
  if (b < to && eg_sf_verbless(sf, t, a2, b2)) b = b2;
  return eg_sf_date_in(dates, nd, t[a].s, t[b - 1].e, EG_SF_START_DATE);
}

/* f's object: the value of item it as written (a name) or lower-cased (a word), typed for
 * relation r. */
static eg_code set_value(const eg_statefacts *sf, const char *text, const token *t, const item *it,
                         int r, eg_arena *a, eg_fact *f, eg_err *err) {
  size_t vs = eg_sf_value_from(&it->s), ve = eg_sf_value_to(&it->s);
  size_t ss = t[vs].s, se = eg_sf_value_end(text, t, ve);
  f->object = eg_arena_strndup(a, text + ss, se - ss);
  if (!f->object) return eg_err_set(err, EG_ENOMEM, "out of memory");
  f->object_entity = it->s.proper;
  f->object_type = (char *)eg_sf_type_name(sf, it->s.bits & sf->rels[r].types);
  if (f->object_entity) return EG_OK;
  eg_sf_lower(f->object);
  const char *name = eg_map_get(sf->same, f->object, strlen(f->object)); /* "drum kit": drums */
  if (name && !(f->object = eg_arena_strdup(a, name)))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  /* a name the word comes from is an entity: "Londoner" names London */
  char key[128];
  snprintf(key, sizeof key, "%s", name ? name : "");
  eg_sf_lower(key);
  f->object_entity = name && strcmp(key, name) != 0 && eg_sf_bits_of(sf->proper, key);
  return EG_OK;
}

/* The key of q's value ("bergen"), into out[n]; "" for a change clause without one. */
static void value_key(const token *t, const pick *q, char *out, size_t n) {
  out[0] = '\0';
  if (q->it->s.te)
    eg_sf_span_key(t, eg_sf_value_from(&q->it->s), eg_sf_value_to(&q->it->s), out, n);
}

/* Is whole a place that holds a value of relation r the user has ("Oslo" held, "back in
 * Norway" said)? It says no more than that value: no change of it. */
static bool whole_of_held(const eg_statefacts *sf, const eg_enrich_ctx *ctx, const char *whole,
                          int r) {
  for (size_t i = 0; *whole && ctx && i < ctx->n_held; i++)
    if (!ctx->held[i].literal && !strcmp(ctx->held[i].relation, sf->rels[r].name) &&
        eg_sf_within(sf, ctx->held[i].value, whole))
      return true;
  return false;
}

/* The rules' facts (o->facts[0, n)) of relation r whose value holds the user's, taken out:
 * they read no containment either. How many were. */
static size_t drop_wholes(const eg_statefacts *sf, const eg_enrich_ctx *ctx, int r, size_t n,
                          eg_enriched *o) {
  size_t kept = 0, dropped = 0;
  for (size_t k = 0; k < o->n_facts; k++) {
    const eg_fact *x = &o->facts[k];
    if (k < n && !strcmp(x->relation, sf->rels[r].name) && whole_of_held(sf, ctx, x->object, r))
      dropped++;
    else
      o->facts[kept++] = *x;
  }
  o->n_facts = kept;
  return dropped;
}

/* The reading of relation r in the same message whose value is a place in q's ("I moved to
 * Bergen in Norway": Bergen, however weakly read), or q: the most precise place said. */
static const pick *part_read(const eg_statefacts *sf, const token *t, const pick *p, size_t np,
                             const pick *q, int r) {
  char whole[128], part[128];
  value_key(t, q, whole, sizeof whole);
  for (size_t j = 0; *whole && j < np; j++) {
    if (&p[j] == q || p[j].v.rel != r || p[j].v.ended) continue;
    value_key(t, &p[j], part, sizeof part);
    if (*part && eg_sf_within(sf, part, whole)) return &p[j];
  }
  return q;
}

/* The place the message names as the speaker's surroundings besides the value [vs, ve): a
 * capitalised span WordNet or the gazetteer knows as a place, said "here in" or before a noun
 * it qualifies ("My flat in Kilimani has no water again, Nairobi rationing is the worst"), in a
 * clause that tells of it no past, plan, end, visit, former value or negation, and no other
 * place so told ("my sister lives in Hamburg", "the Berlin and Munich offices"). Its tokens
 * into [*ps, *pe); false when there is none. */
static bool place_said(const eg_statefacts *sf, const token *t, size_t nt, size_t vs, size_t ve,
                       size_t *ps, size_t *pe) {
  static const marker_kind off[] = {MK_PAST, MK_FUTURE, MK_NEGATION, MK_ENDED, MK_VISIT, MK_FORMER};
  char one[128] = "", key[128];
  bool found = false;
  for (size_t i = 0, j; i < nt; i = j) {
    j = i + 1;
    if (!t[i].cap || t[i].digit) continue;
    while (j < nt && t[j].cap && !t[j].digit && !t[j - 1].comma && !t[j - 1].cut) j++;
    size_t a = i;
    if ((i < ve && j > vs) || (!eg_sf_place_bits(sf, t, a, j) &&
                               !(t[i].start && ++a < j && eg_sf_place_bits(sf, t, a, j))))
      continue;
    size_t cf, ct;
    clause_of(t, nt, a, &cf, &ct);
    if ((a > 0 && eg_sf_has_marker(sf, MK_FROM, t, a - 1, a)) ||
        eg_sf_has_any_marker(sf, off, sizeof off / sizeof *off, t, cf, ct) ||
        eg_sf_held_thing_in(sf, t, cf, a)) /* "the Amazon office in X" */
      continue;
    eg_sf_span_key(t, a, j, key, sizeof key);
    if (*one && strcmp(one, key) != 0) return false;
    snprintf(one, sizeof one, "%s", key);
    bool here = a >= 2 && !strcmp(t[a - 1].w, "in") && !strcmp(t[a - 2].w, "here");
    bool qualifies = j < nt && !t[j - 1].comma && !t[j - 1].cut && !t[j].cap && !t[j].digit &&
                     strlen(t[j].w) > 2 &&
                     eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, t[j].w) &&
                     !eg_sf_function_word(t[j].w);
    if ((here || qualifies) && !found) *ps = a, *pe = j, found = true;
  }
  return found;
}

/* The kind the message says f's named value (read from item it of relation r) is of: a fact of
 * its own, the name IS_A the kind ("GOT A FERRET!!! her name is noodle"), from f's start. */
static eg_code add_kind(const eg_statefacts *sf, const eg_segment *sg, const token *t, size_t nt,
                        const item *it, int r, const eg_fact *f, eg_arena *a, eg_enriched *o,
                        eg_err *err) {
  size_t from, to;
  char kind[80];
  if (!f->object_entity || !it->s.te) return EG_OK;
  eg_sf_said_tokens(t, nt, sg, &from, &to);
  if (!eg_sf_kind_of_name(sf, t, from, to, eg_sf_value_from(&it->s), eg_sf_value_to(&it->s),
                          it->s.bits & sf->rels[r].types, kind, sizeof kind))
    return EG_OK;
  eg_fact k = *f;
  k.subject = f->object;
  k.subject_type = f->object_type;
  k.relation = EG_KIND_OF;
  k.object = eg_arena_strdup(a, kind);
  k.object_type = "";
  k.object_entity = false;
  k.reason = "";
  k.extractor = "prototypes";
  if (!k.object) return eg_err_set(err, EG_ENOMEM, "out of memory");
  return eg_enriched_add_fact(a, o, &k, err);
}

/* Is prospect p only the kind of a value of a relation whose values are names ("a lurcher")? */
static bool awaited_kind(const eg_statefacts *sf, const eg_prospect *p) {
  int r = eg_sf_relation(sf, p->relation);
  return p->literal && r >= 0 && (sf->rels[r].types & sf->name_types);
}

/* Does item it name a value of relation r by the kind the user was after, said in its words
 * ("getting a rescue pup next week, a lurcher" … "juniper (the lurcher) won't stop counter
 * surfing"): the one awaited, however weakly its words read? */
static bool of_awaited_kind(const eg_statefacts *sf, const eg_enrich_ctx *ctx, const token *t,
                            const item *it, int r) {
  if (!it->s.proper || it->third || !(it->s.bits & sf->rels[r].types)) return false;
  for (size_t i = 0; ctx && i < ctx->n_prospects; i++) {
    const eg_prospect *p = &ctx->prospects[i];
    if (strcmp(p->relation, sf->rels[r].name) != 0 || !awaited_kind(sf, p)) continue;
    /* the kind word set beside the name as the one known: "X (the lurcher)", "X, our
     * lurcher", "our lurcher X" (not "saw a lurcher called X") */
    size_t ts = it->s.ts, te = it->s.te;
    for (size_t k = ts > it->from ? ts - 1 : ts; k <= te + 1 && k < it->to; k++) {
      if ((k >= ts && k < te) || strcasecmp(t[k].w, p->value) != 0) continue;
      /* right after the name, or after the word that sets it off */
      if (k == te || (k > it->from && (!strcmp(t[k - 1].w, "the") || eg_sf_ours(t[k - 1].w))))
        return true;
    }
  }
  return false;
}

/* The value of relation r the user was after (eg_prospect), or NULL; NULL too where they were
 * after two ("applied to X" and "to Y": which came through is not said), or the message names
 * another of its type, in words not read ("I got the job!! the bank called"): the value begun
 * may be that one. */
static const eg_prospect *prospect_of(const eg_statefacts *sf, const eg_enrich_ctx *ctx,
                                      const eg_segment *sg, int r) {
  const eg_prospect *won = NULL;
  for (size_t i = 0; ctx && i < ctx->n_prospects; i++) {
    const eg_prospect *p = &ctx->prospects[i];
    if (strcmp(p->relation, sf->rels[r].name) != 0 || awaited_kind(sf, p)) continue;
    if (won && !eg_statefacts_same_value(p->value, strlen(p->value), won->value)) return NULL;
    won = won ? won : p;
  }
  static __thread eg_stated_value v[64];
  const char *text = sg->text ? sg->text : "";
  size_t n = won ? eg_statefacts_values(sf, text, sg->said_to ? sg->said_from : 0,
                                        sg->said_to ? sg->said_to : strlen(text), sg->time,
                                        sf->rels[r].types, NULL, v, 64)
                 : 0;
  for (size_t i = 0; i < n; i++)
    if (v[i].named && !eg_statefacts_same_value(text + v[i].from, v[i].to - v[i].from, won->value))
      return NULL;
  return won;
}

/* The fact that the value won began, read from item it of relation r: from the start the
 * message tells beside it, else when it was said. */
static eg_code add_won(const eg_statefacts *sf, const eg_enrich_ctx *ctx, const eg_segment *sg,
                       const token *t, size_t nt, const pick *p, int r, const eg_prospect *won,
                       const eg_date *dates, size_t nd, eg_arena *a, eg_enriched *o, eg_err *err) {
  const char *text = sg->text ? sg->text : "";
  const item *it = p->it;
  size_t cs = t[it->from].s, ce = t[it->to - 1].e;
  eg_fact f = {.subject = (char *)ctx->user_entity,
               .subject_type = "user",
               .relation = (char *)sf->rels[r].name,
               .object = eg_arena_strdup(a, won->value),
               .object_type = (char *)eg_sf_type_name(sf, sf->rels[r].types),
               .object_entity = !won->literal,
               .confidence = p->v.cosine > 1 ? 1 : p->v.cosine,
               .reason = "a value the user said before they were after, now said to have begun",
               .utterance = eg_arena_strndup(a, text + cs, ce - cs),
               .extractor = EG_STATE_INFERRED};
  if (!f.object || !f.utterance) return eg_err_set(err, EG_ENOMEM, "out of memory");
  f.valid_from =
      sg->time ? eg_sf_start_beside(t, nt, it->from, it->to, dates, nd, eg_sf_day_end(sg->time))
               : 0;
  return eg_enriched_add_fact(a, o, &f, err);
}

/* Facts and doubts of one segment from its judged items; *told: the relations (bit r) the
 * segments before it in the same call gave a value of, with this one's added. */
static eg_code emit(const eg_statefacts *sf, const eg_enrich_ctx *ctx, const eg_segment *sg,
                    const pick *p, size_t np, unsigned *told, eg_arena *a, eg_enriched *o,
                    eg_statefacts_stats *st, eg_err *err) {
  static __thread token t[MAX_TOKENS];
  const char *text = sg->text ? sg->text : "";
  size_t nt = eg_sf_tokenize(text, t, MAX_TOKENS);
  eg_date dates[16];
  size_t nd = eg_dates_find(text, sg->time, dates, 16);
  size_t rules_facts = o->n_facts;
  const pick *gone[MAX_RELS] = {0};
  unsigned until_held = 0; /* bit r: gone[r] has no end of its own (eg_fact.until_held) */
  const eg_date *lasted[MAX_RELS] = {0}; /* gone[r]'s years, told ("from 2015 to 2019") */
  for (int r = 0; r < sf->n_rels; r++) {
    const pick *fact = NULL, *doubt = NULL;
    /* held in the graph, or told earlier in these messages */
    bool held = holds(ctx, sf->rels[r].name, false) || (*told >> r & 1u);
    /* the value in prospect, read once, where a pick of r tells one begun unnamed */
    bool fresh = false;
    for (size_t i = 0; i < np; i++) fresh |= p[i].v.rel == r && p[i].v.fresh;
    const eg_prospect *prospect = fresh ? prospect_of(sf, ctx, sg, r) : NULL;
    for (size_t i = 0; i < np; i++) {
      /* a name in passing, or one a noun of the user's is placed at ("my colleagues at X"),
       * only while none is held; a noun placed so at the held value that is said to end is
       * news of it ("I quit my job at X"; not "my old colleagues at Y", a value before) */
      if ((p[i].it->passing || (p[i].v.placed && !(p[i].v.ended && p[i].it->s.held))) && held)
        continue;
      /* a clause read for a value in prospect only: of that relation, begun */
      if (p[i].it->pending && (p[i].v.rel != r || !p[i].v.fresh || !prospect)) continue;
      /* a held value said again is no news: the graph has it, and a later start would put it
       * after a value that took its place unread */
      if (p[i].v.rel != r || (p[i].v.weak && !of_awaited_kind(sf, ctx, t, p[i].it, r)) ||
          (p[i].it->s.held && !p[i].v.ended) || (p[i].it->third && read_as_own(sf, p, np, &p[i])))
        continue;
      /* a place said with its country is that place; a country the user's place is in, no
       * news */
      const pick *q = p[i].v.ended ? &p[i] : part_read(sf, t, p, np, &p[i], r);
      char key[128];
      value_key(t, q, key, sizeof key);
      if (q == &p[i] && !q->v.ended && whole_of_held(sf, ctx, key, r)) continue;
      const pick **slotp = p[i].v.ended ? &doubt : &fact;
      if (better(q, *slotp)) *slotp = q;
    }
    /* a value ended beside one read below the bar: the one that took its place; so is one
     * said to be now beside one told in the past ("I used to work at Y, now I'm at X"; not
     * "we drove to Y and had lunch there") */
    if (!fact && doubt && doubt->it->s.te) {
      const item *d = doubt->it;
      bool ended = d->s.status == ST_FORMER || eg_sf_has_marker(sf, MK_CHANGE, t, d->from, d->to);
      bool past = !ended && eg_sf_has_marker(sf, MK_PAST, t, d->from, d->to);
      if (ended || past) fact = taking_place(text, t, p, np, doubt);
      if (past && fact && !said_now(t, fact->it->from, fact->it->to)) fact = NULL;
    }
    if (!fact && doubt && !doubt->it->s.te && doubt->v.fresh) fact = named_next(p, np, doubt);
    const char *rel = sf->rels[r].name;
    const pick *over = fact ? ended_after(text, t, p, np, fact) : NULL;
    if (over) doubt = over, fact = NULL;
    /* a value with a date after the conversation's day is a plan ("I pick up the X this
     * weekend", "got an interview at X next week"), not a state: at most a word on it; one
     * arranged ("I'm moving to X in January") is the state from that day, a fact of the
     * future the graph holds as such */
    int64_t planned = fact ? said_later(sf, t, fact->it, dates, nd, sg->time) : 0;
    /* a start's date is read forward: "starting at X in feb", said in January */
    if (!planned && fact && fact->it->begun && sg->time)
      planned = eg_sf_dated_in(dates, nd, t[fact->it->from].s, t[fact->it->to - 1].e,
                               eg_sf_day_end(sg->time), true);
    if (!planned && fact) planned = fact->it->taken; /* an offer taken: the start told */
    if (planned && !fact->it->begun &&
        !eg_sf_arranged(sf, t, fact->it->from, fact->it->to, fact->it->s.ts, r)) {
      if (!doubt) doubt = fact;
      fact = NULL, planned = 0;
    }
    gone[r] = ended_value(sf, t, nt, p, np, r, fact);
    /* a value of the past told with the years it lasted ("I worked at X from 2015 to 2019"):
     * the user's then, and since */
    if (!gone[r] && doubt && (!fact || fact->it->s.ts != doubt->it->s.ts) &&
        (lasted[r] = years_lasted(sf, t, doubt->it, dates, nd, sg->time)) != NULL)
      gone[r] = doubt;
    /* a superseded value of the user's own the message gives no end of ("my old team at X")
     * while the graph holds another: theirs until that one began */
    if (!gone[r] && !fact && holds(ctx, sf->rels[r].name, true) &&
        (gone[r] = former_value(sf, t, p, np, r)) != NULL) {
      until_held |= 1u << r;
      /* … and no doubt of the held one: the message speaks of one before it */
      if (doubt && doubt->it->s.ts == gone[r]->it->s.ts) doubt = NULL;
    }
    rules_facts -= drop_wholes(sf, ctx, r, rules_facts, o);
    if (!fact && !doubt) continue;
    /* a value begun unnamed, that the user said before they were after: that one ("applied
     * for a post at X" … "I got the job!") */
    const eg_prospect *won = !fact && doubt->v.fresh ? prospect : NULL;
    if (won) {
      eg_code rc = add_won(sf, ctx, sg, t, nt, doubt, r, won, dates, nd, a, o, err);
      if (rc) return rc;
      *told |= 1u << r;
      st->facts++;
      continue;
    }
    /* the rules read one, said of the user: a name in passing or a placed one yields */
    if (fact && (fact->it->passing || fact->v.placed) && has_relation(o, rel)) continue;
    const pick *use = fact ? fact : doubt;
    const item *it = use->it;
    size_t cs = t[it->from].s, ce = t[it->to - 1].e;
    /* The rules read surface patterns without tense ("I worked at X before joining Y" is a
     * WORKS_AT X to them): where they read the value this extractor reads as former or
     * not asserted, or a value other than the current one it reads, this reading wins. */
    char slot_text[160] = "";
    size_t vs = eg_sf_value_from(&it->s), ve = eg_sf_value_to(&it->s);
    if (it->s.te)
      snprintf(slot_text, sizeof slot_text, "%.*s", (int)(eg_sf_value_end(text, t, ve) - t[vs].s),
               text + t[vs].s);
    bool mine_is_fact = fact != NULL, said_by_rules = false;
    size_t kept = 0, removed = 0, said = 0;
    for (size_t k = 0; k < o->n_facts; k++) {
      const eg_fact *x = &o->facts[k];
      bool rule_of_rel = k < rules_facts && !strcmp(x->relation, rel);
      /* the rules' capture runs on ("violin my left hand" of "when I played violin my left
       * hand …"): one that starts with the slot's words speaks of the same value */
      size_t sl = strlen(slot_text);
      bool same = rule_of_rel && sl && !strncasecmp(x->object, slot_text, sl) &&
                  (x->object[sl] == '\0' || x->object[sl] == ' ');
      if (rule_of_rel && (mine_is_fact ? !same || planned : same)) {
        removed++;
        continue;
      }
      if (mine_is_fact && same && !planned) said_by_rules = true, said = kept;
      o->facts[kept++] = *x;
    }
    o->n_facts = kept;
    rules_facts -= removed;
    if (said_by_rules) { /* the rules said it already; the kind said with it is read here */
      eg_fact x = o->facts[said];
      eg_code rc = add_kind(sf, sg, t, nt, it, r, &x, a, o, err);
      if (rc) return rc;
      continue;
    }
    eg_fact f = {.subject = (char *)ctx->user_entity,
                 .subject_type = "user",
                 .confidence = use->v.cosine > 1 ? 1 : use->v.cosine, /* a float sum may pass 1 */
                 .reason = "",
                 .extractor = "prototypes"};
    f.utterance = eg_arena_strndup(a, text + cs, ce - cs);
    if (fact) {
      f.relation = (char *)rel;
      eg_code rc = set_value(sf, text, t, it, r, a, &f, err);
      if (rc) return rc;
      /* a part of a town that no one knows by its name is the town the message names beside
       * it ("a room in Kralingen … the Rotterdam housing market"): the place asked for */
      size_t ps = 0, pe = 0;
      if (it->s.te && it->s.proper && (sf->rels[r].types & it->s.bits & sf->place_bit) &&
          !eg_sf_place_bits(sf, t, vs, ve) && place_said(sf, t, nt, vs, ve, &ps, &pe)) {
        size_t end = eg_sf_value_end(text, t, pe);
        f.object = eg_arena_strndup(a, text + t[ps].s, end - t[ps].s);
        if (!f.object) return eg_err_set(err, EG_ENOMEM, "out of memory");
        f.object_type = (char *)eg_sf_type_name(sf, sf->place_bit);
      }
      if (it->passing) f.reason = "a name the user speaks of as theirs, not said of themselves";
      /* a date said with it: when it began (or begins) */
      /* … or a start the message tells beside it ("I signed with X yesterday. I begin the
       * first of October"): it dates the state, where a date in its clause dates the deal */
      int64_t beside = planned || !sg->time ? 0
                                            : eg_sf_start_beside(t, nt, it->from, it->to, dates, nd,
                                                                 eg_sf_day_end(sg->time));
      f.valid_from = planned ? planned : beside ? beside : began(sf, t, nt, it, dates, nd);
      st->facts++;
      *told |= 1u << r;
    } else {
      if (has_relation(o, rel)) continue; /* a value of the segment stands */
      f.relation = EG_STATE_UNCERTAIN;
      f.object = (char *)rel;
      f.object_type = "";
      f.reason = "a statement about this state from which no current value could be read";
      st->doubts++;
    }
    eg_code rc = eg_enriched_add_fact(a, o, &f, err);
    if (!rc && fact) rc = add_kind(sf, sg, t, nt, it, r, &f, a, o, err);
    if (rc) return rc;
  }
  /* a value said to end was the user's until then, from a start the message does not tell:
   * the caller looks for it in what the user said before (eg_fact.since_first_mention) */
  for (int r = 0; r < sf->n_rels; r++) {
    if (!gone[r]) continue;
    const item *it = gone[r]->it;
    size_t cs = t[it->from].s, ce = t[it->to - 1].e;
    eg_fact f = {.subject = (char *)ctx->user_entity,
                 .subject_type = "user",
                 .relation = (char *)sf->rels[r].name,
                 .confidence = gone[r]->v.cosine > 1 ? 1 : gone[r]->v.cosine,
                 .reason =
                     "a former value: the user's from their first mention of it until this "
                     "message said it ended",
                 .extractor = "prototypes",
                 .since_first_mention = true,
                 .until_held = until_held >> r & 1u};
    if (lasted[r]) {
      f.reason = "a former value, told with the years it lasted";
      f.since_first_mention = false;
      f.valid_from = lasted[r]->from;
      f.valid_to = lasted[r]->to;
    } else if (f.until_held) {
      f.reason =
          "a former value: the user's from their first mention of it until the value "
          "they hold now began";
    } else {
      f.valid_to = eg_sf_date_in(dates, nd, cs, ce, EG_SF_END_DATE); /* not "for 5 years" */
    }
    if (!f.valid_to) f.valid_to = sg->time;
    f.utterance = eg_arena_strndup(a, text + cs, ce - cs);
    eg_code rc = set_value(sf, text, t, it, r, a, &f, err);
    if (!rc) rc = eg_enriched_add_fact(a, o, &f, err);
    if (rc) return rc;
  }
  return EG_OK;
}

/* The user segment after segs[i] of the n, or NULL. */
static const eg_segment *next_user(const eg_segment *segs, size_t n, size_t i) {
  while (++i < n)
    if (segs[i].role && !strcmp(segs[i].role, "user")) return &segs[i];
  return NULL;
}

eg_code eg_statefacts_extract(eg_statefacts *sf, const eg_enrich_ctx *ctx, const eg_segment *segs,
                              size_t n, eg_arena *a, eg_enriched *out, eg_statefacts_stats *stats,
                              eg_err *err) {
  if (!sf->emb)
    return eg_err_set(err, EG_EINVAL, "the prototype extractor was opened without an embedder");
  eg_statefacts_stats local = {0};
  eg_statefacts_stats *st = stats ? stats : &local;
  item *items = NULL;
  float *vecs = NULL;
  const char **texts = NULL;
  pick *picks = NULL;
  size_t ni = 0;
  unsigned told = 0;
  eg_code rc = EG_OK;
  items = malloc(MAX_ITEMS * sizeof *items);
  if (!items) return eg_err_set(err, EG_ENOMEM, "out of memory");
  session_names *names = calloc(1, sizeof *names); /* with the held values: 2 KiB and more */
  if (!names) {
    free(items);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  eg_sf_learn_held(sf, ctx, names);
  for (size_t i = 0; i < n; i++)
    if (segs[i].text) eg_sf_learn_names(sf, segs[i].text, names);
  for (size_t i = 0; i < n && !rc; i++)
    if (segs[i].role && !strcmp(segs[i].role, "user") && segs[i].text)
      rc = collect(sf, names, i, &segs[i], next_user(segs, n, i), a, items, &ni, st, err);
  if (rc || !ni) goto cleanup;
  vecs = malloc(ni * (size_t)sf->dim * sizeof *vecs);
  texts = malloc(ni * sizeof *texts);
  picks = malloc(ni * sizeof *picks);
  if (!vecs || !texts || !picks) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto cleanup;
  }
  for (size_t i = 0; i < ni; i++) texts[i] = items[i].text;
  if ((rc = eg_embed(sf->emb, texts, ni, vecs, err))) goto cleanup;
  for (size_t i = 0; i < ni;) {
    size_t seg = items[i].seg, np = 0;
    for (; i < ni && items[i].seg == seg; i++) {
      picks[np] = (pick){&items[i], judge(sf, vecs + i * (size_t)sf->dim, &items[i])};
      /* the words near a slot follow its whole span: a second look when that said nothing */
      bool read = items[i].near && np && picks[np - 1].it == &items[i - 1] && !picks[np - 1].v.weak;
      if (picks[np].v.rel >= 0 && !read) np++;
    }
    if (np && (rc = emit(sf, ctx, &segs[seg], picks, np, &told, a, &out[seg], st, err)))
      goto cleanup;
  }
cleanup:
  free(names);
  free(items);
  free(vecs);
  free(texts);
  free(picks);
  for (size_t i = 0; i < n && !rc; i++) /* a diet told by the foods */
    if (segs[i].role && !strcmp(segs[i].role, "user"))
      rc = eg_sf_foods_read(sf, ctx, &segs[i], out, i, a, &out[i], err);
  return rc;
}
