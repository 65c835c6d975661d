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
 *  6. output (statefacts_emit.c): a current assertion is a fact; a matched clause that
 *     asserts nothing (or a first-person clause with a change marker close to a relation's
 *     "ended" prototypes) is a STATE_UNCERTAIN doubt on that relation, unless the segment also
 *     gave a fact of it;
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
#include "lang/statefacts_pick.h"
#include "lang/wordnet.h"

#define MAX_ITEMS 4096 /* embedded clauses per call; beyond, the rest is left to the rules */
#define CLAUSE_BYTES 300

/* ---- scoring ------------------------------------------------------------------------------ */

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
 * type; an adjective may follow "someone" ("someone new — X"). */
static void said_by_indefinite(const eg_statefacts *sf, const token *t, size_t from, slot *s) {
  if (!s->proper || s->ve || s->ts < from + 2 || !t[s->ts - 1].comma) return;
  size_t w = s->ts - 1; /* … or "someone new — X" (not "somewhere new, X": a firm, or a wish) */
  if (w > from && !t[w - 1].comma &&
      eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, t[w].w) &&
      eg_sf_indefinite(t[w - 1].w) == EG_SF_SOMEONE)
    w--;
  unsigned kind = eg_sf_indefinite(t[w].w);
  unsigned bits = s->bits & (kind == EG_SF_SOMEONE     ? sf->person_bit
                             : kind == EG_SF_SOMEWHERE ? sf->place_bit
                                                       : 0);
  if (!bits) return;
  s->vs = s->ts, s->ve = s->te;
  s->te = s->ts, s->ts = w;
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

void eg_sf_clause_of(const token *t, size_t nt, size_t i, size_t *from, size_t *to) {
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
  eg_sf_clause_of(t, nt, k - 1, cf, ct);
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
    if (np && (rc = eg_sf_emit(sf, ctx, &segs[seg], picks, np, &told, a, &out[seg], st, err)))
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
