/*
 * statefacts_foods.c — a diet told by the foods one eats or leaves out: "I don't eat meat but
 * fish is fine" is pescatarian, "so no meat or fish" vegetarian, "started eating meat again"
 * omnivore, and "cut out dairy and eggs" vegan for a user held vegetarian. The prototypes
 * file names the food groups (@food: WordNet's meats, fish, dairy products, eggs …) and the
 * values the groups tell (@describe diet pescatarian -meat +fish); this file reads, in the
 * speaker's own clauses, which groups they say they leave out and which they eat, and picks
 * the value that the most of what is known fits.
 *
 * Left out: "no X" ("no meat", "no more fish"), "off X", a verb that gives a thing up or cuts
 * it out before it ("stopped eating X", "gave up X", "cut out X"), a negation before a verb
 * of eating ("I don't eat X", "haven't eaten X in years"). Eaten: a verb of eating with no
 * negation before it ("started eating X again", "I still eat X"), or "X is fine"; every group
 * by "I eat everything" or "there's nothing I won't eat". Foods joined by "and", "or", "nor"
 * or commas share their first one's side ("no meat or fish"). A clause of someone else's, a
 * question, a past ("used to"), a plan before the food ("thinking about") or a hedge
 * ("mostly", "less") tells nothing.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "lang/dates.h"
#include "lang/statefacts_int.h"

enum { SIDE_NONE, SIDE_OUT, SIDE_IN };

static bool eating(const char *w) {
  /* and "touch", as "I won't touch X" eats none of it */
  static const char *const eat[] = {"eat",   "eats",    "eating",   "ate",    "eaten",
                                    "touch", "touches", "touching", "touched"};
  return eg_sf_in_list(w, eat, sizeof eat / sizeof *eat);
}

/* Is t[k], right before a food at i, a word that narrows it to a kind of it ("red meat", "oily
 * fish"): an adjective of WordNet's that no quantity, particle or word of ending is ("no meat",
 * "any fish", "gave up meat", "stopped meat")? */
static bool qualifier(const eg_statefacts *sf, const token *t, size_t k, size_t i) {
  static const char *const other[] = {"no",    "any", "more", "much", "all",  "enough",
                                      "other", "up",  "out",  "off",  "down", "away"};
  return !t[k].comma && eg_wordnet_is_common(sf->wn.adjectives, sf->wn.n_adjectives, t[k].w) &&
         !eg_sf_in_list(t[k].w, other, sizeof other / sizeof *other) && !eating(t[k].w) &&
         !eg_sf_ends_at(sf, t, k, i);
}

/* The groups of the food at t[i] (its plural too: "prawns"), 0 for none; none for a word of
 * an animal one keeps ("we lost our old dog": no hot dog, WordNet's fifth sense). In *whole the
 * groups it names whole, unqualified ("meat"; not "pork", "red meat"): only those are left out
 * by leaving it out ("I don't eat pork" is no vegetarian), where eating any of one eats of it. */
static unsigned food_at(const eg_statefacts *sf, const token *t, size_t from, size_t i,
                        unsigned *whole) {
  unsigned g = eg_sf_bits_of(sf->foods, t[i].w);
  size_t l = strlen(t[i].w);
  if (!g && l > 3 && t[i].w[l - 1] == 's') {
    char one[32];
    snprintf(one, sizeof one, "%.*s", (int)(l - 1), t[i].w);
    g = eg_sf_bits_of(sf->foods, one);
  }
  if (!g || (eg_sf_kind_bits(sf, t[i].w) & ~sf->person_bit)) return *whole = 0;
  *whole = g >> WHOLE;
  if (i > from && qualifier(sf, t, i - 1, i)) *whole = 0; /* "red meat", "farmed fish" */
  return g & ((1u << WHOLE) - 1);
}

/* Does someone other than the speaker open the clause [from, i): "my housemate doesn't eat
 * meat", "she's off dairy", "everyone there eats fish"? */
static bool someone_else(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  static const char *const third[] = {
      "he",       "she",       "they",    "he's",     "she's",  "their",  "they're", "his",   "her",
      "everyone", "everybody", "someone", "somebody", "nobody", "anyone", "anybody", "people"};
  /* the last sub-clause first ("we're off to the coast, everyone there eats fish"), then the
   * whole clause ("my partner, bless her, eats fish") */
  size_t sub = from;
  for (size_t k = from + 1; k < i; k++)
    if (t[k - 1].comma) sub = k;
  for (size_t start = sub;; start = from) {
    /* the speaker as a subject ("my son" is someone else: "My son eats anything") */
    for (size_t k = start; k < i; k++)
      if (eg_sf_subject_pronoun(t[k].w) || !strcmp(t[k].w, "me")) return false;
    for (size_t k = start; k < i; k++) {
      /* a word for a person that is an adverb too needs its determiner to be one: "my back"
       * is no one, nor "Back on meat" */
      bool bare = k == start || !(eg_sf_determiner(t[k - 1].w) || eg_sf_possessive(t[k - 1].w));
      bool person = eg_sf_person_noun(sf, t, k) &&
                    !(bare && eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, t[k].w));
      if (eg_sf_in_list(t[k].w, third, sizeof third / sizeof *third) || person ||
          (t[k].cap && !t[k].start))
        return true;
    }
    if (start == from) return false;
  }
}

/* Is w a verb's form ("cook", "went", "living")? */
static bool verb(const eg_statefacts *sf, const char *w) {
  return eg_wordnet_is_verb(&sf->wn.verbs, w) || eg_wordnet_is_past(&sf->wn.verbs, w) ||
         eg_wordnet_is_ing(&sf->wn.verbs, w);
}

/* The side the words [from, i) before a food put it on. */
static int side_before(const eg_statefacts *sf, const token *t, size_t from, size_t i) {
  static const char *const cut[] = {"dropped", "ditched",   "avoid",    "avoiding",
                                    "exclude", "excluding", "excluded", "excludes"};
  static const char *const past[] = {"didn't", "didnt", "wasn't", "weren't", "ate"};
  /* from the last comma or "but": "I'm not fussy, I eat …", "I eat fish but not meat" */
  bool but = false;
  for (size_t k = from + 1; k < i; k++)
    if (t[k - 1].comma || !strcmp(t[k - 1].w, "but")) from = k, but = !strcmp(t[k - 1].w, "but");
  /* "I didn't eat meat that week", "ate no meat": a past, no diet now */
  for (size_t k = from; k < i; k++)
    if (eg_sf_in_list(t[k].w, past, sizeof past / sizeof *past)) return SIDE_NONE;
  if (i > from && (!strcmp(t[i - 1].w, "no") || !strcmp(t[i - 1].w, "off"))) return SIDE_OUT;
  /* "no other meat"; "… but not meat", "… but never fish"; "no meat, just fish" */
  if (i > from + 1 && !strcmp(t[i - 1].w, "other") && !strcmp(t[i - 2].w, "no")) return SIDE_OUT;
  if (but && i == from + 1 && (!strcmp(t[from].w, "not") || !strcmp(t[from].w, "never")))
    return SIDE_OUT;
  if (i == from + 1 && (!strcmp(t[from].w, "just") || !strcmp(t[from].w, "only"))) return SIDE_IN;
  /* "I'm back on meat", "Back on meat": eaten again, as "off meat" is not eaten (not "cutting
   * back on meat", less) */
  if (i > from + 1 && !strcmp(t[i - 1].w, "on") && !strcmp(t[i - 2].w, "back") &&
      (i == from + 2 || eg_sf_copula(t[i - 3].w) || eg_sf_subject_pronoun(t[i - 3].w)))
    return eg_sf_has_marker(sf, MK_NEGATION, t, from, i - 2) ? SIDE_OUT : SIDE_IN;
  /* "three months without meat", "I cook without dairy"; not "I can't live without meat" (eaten),
   * "a curry without meat" (a dish, no diet) */
  if (i > from + 1 && !strcmp(t[i - 1].w, "without") &&
      (eg_sf_noun_bits(sf->periods, t[i - 2].w) ||
       (verb(sf, t[i - 2].w) && !(i >= from + 3 && eg_sf_determiner(t[i - 3].w)))))
    return eg_sf_has_marker(sf, MK_NEGATION, t, from, i - 1) ? SIDE_IN : SIDE_OUT;
  if (i > from + 1 && !strcmp(t[i - 1].w, "more") && !strcmp(t[i - 2].w, "no")) return SIDE_OUT;
  bool negated = false;
  for (size_t k = from; k < i; k++) {
    /* "cut out X"; not "cut back on X", "cutting down on X": less is not none */
    bool cut_out = (!strcmp(t[k].w, "cut") || !strcmp(t[k].w, "cutting")) && k + 1 < i &&
                   !strcmp(t[k + 1].w, "out");
    if (cut_out || eg_sf_ends_at(sf, t, k, i) ||
        eg_sf_in_list(t[k].w, cut, sizeof cut / sizeof *cut))
      return negated ? SIDE_IN : SIDE_OUT; /* "I'm not giving up meat": still eaten */
    negated |= eg_sf_marker_starts(sf, MK_NEGATION, t, k, i) > 0;
    if (eating(t[k].w)) return negated ? SIDE_OUT : SIDE_IN;
  }
  return SIDE_NONE;
}

/* "X is fine", "X's ok", "X is still ok": eaten, by the words after the food at i (the clause
 * ends at to). */
static bool allowed_after(const eg_statefacts *sf, const token *t, size_t i, size_t to) {
  static const char *const be[] = {"is", "are", "'s"};
  static const char *const fine[] = {"fine", "ok", "okay", "allowed"};
  if (i + 2 >= to || !eg_sf_in_list(t[i + 1].w, be, sizeof be / sizeof *be)) return false;
  size_t k = i + 2;
  if (k + 1 < to && !eg_sf_in_list(t[k].w, fine, sizeof fine / sizeof *fine) && !t[k].comma &&
      eg_wordnet_is_common(sf->wn.adverbs, sf->wn.n_adverbs, t[k].w) &&
      !eg_sf_marker_starts(sf, MK_NEGATION, t, k, to)) /* "X is not ok" */
    k++;
  return eg_sf_in_list(t[k].w, fine, sizeof fine / sizeof *fine);
}

/* Does "nothing" at i have a negated eating after it: "there's nothing I won't eat"? */
static bool nothing_not_eaten(const eg_statefacts *sf, const token *t, size_t i, size_t to) {
  if (strcmp(t[i].w, "nothing") != 0) return false;
  for (size_t k = i + 1; k < to && k < i + 6; k++)
    if (eg_sf_marker_starts(sf, MK_NEGATION, t, k, to) && k + 1 < to &&
        (eating(t[k + 1].w) || (k + 2 < to && eating(t[k + 2].w))))
      return true;
  return false;
}

/* Is the clause [from, to) hedged: only some of the time, or less ("mostly no meat", "no meat
 * on weekdays", "eating less meat")? A part is no diet. */
static bool hedged(const token *t, size_t from, size_t to) {
  static const char *const some[] = {"mostly",       "usually", "sometimes", "rarely",
                                     "occasionally", "less",    "fewer",     "most",
                                     "weekdays",     "weekday", "except",    "apart"};
  for (size_t k = from; k < to; k++)
    if (eg_sf_in_list(t[k].w, some, sizeof some / sizeof *some)) return true;
  return false;
}

/* The groups the speaker's clauses of t[0, nt) leave out (*out) and eat (*in); the byte span
 * of the first clause that told any in [*cs, *ce). */
static void read_sides(const eg_statefacts *sf, const token *t, size_t nt, unsigned *out,
                       unsigned *in, size_t *cs, size_t *ce) {
  *out = *in = 0;
  for (size_t from = 0; from < nt;) {
    size_t to = eg_sf_clause_end(t, nt, from);
    bool told = t[to - 1].ask || eg_sf_has_marker(sf, MK_PAST, t, from, to) || hedged(t, from, to);
    int side = SIDE_NONE;
    /* a plan or a condition before the words on a food: "thinking about going without meat";
     * not one after them ("nothing I won't eat if it's been near a grill") */
    for (size_t i = from; i < to && !told && !eg_sf_has_marker(sf, MK_FUTURE, t, from, i); i++) {
      unsigned whole, g = food_at(sf, t, from, i, &whole);
      /* "I eat everything", "I eat anything": every group eaten (not left out: "won't eat
       * anything after 8" is no diet) */
      static const char *const all[] = {"everything", "anything"};
      if (!g &&
          ((eg_sf_in_list(t[i].w, all, 2) && side_before(sf, t, from, i) == SIDE_IN) ||
           nothing_not_eaten(sf, t, i, to)) &&
          !someone_else(sf, t, from, i)) {
        for (int k = 0; k < sf->n_described; k++) *in |= sf->described[k].out | sf->described[k].in;
        if (*ce == 0) *cs = t[from].s, *ce = t[to - 1].e;
        continue;
      }
      if (!g) {
        /* a list goes on over "and", "or", "nor" and commas; any other word ends it */
        if (strcmp(t[i].w, "and") && strcmp(t[i].w, "or") && strcmp(t[i].w, "nor"))
          side = SIDE_NONE;
        continue;
      }
      if (side == SIDE_NONE) side = side_before(sf, t, from, i);
      if (side == SIDE_NONE && allowed_after(sf, t, i, to)) side = SIDE_IN;
      if (side == SIDE_NONE || (side == SIDE_OUT && !whole) || someone_else(sf, t, from, i))
        continue;
      *(side == SIDE_OUT ? out : in) |= side == SIDE_OUT ? whole : g;
      if (*ce == 0) *cs = t[from].s, *ce = t[to - 1].e;
    }
    from = to;
  }
}

/* The value of type bits `type` that the most of what is known fits: every group it leaves
 * out left out and every one it eats eaten, with at least one of them told now (`told`); the
 * first listed of the best. NULL for none. */
static const described *best_fit(const eg_statefacts *sf, unsigned out, unsigned in, unsigned told,
                                 unsigned type) {
  const described *best = NULL;
  for (int k = 0; k < sf->n_described; k++) {
    const described *d = &sf->described[k];
    if (!(d->type & type) || (d->out & ~out) || (d->in & ~in) || !((d->out | d->in) & told))
      continue;
    if (!best || __builtin_popcount(d->out | d->in) > __builtin_popcount(best->out | best->in))
      best = d;
  }
  return best;
}

/* The value the user holds of relation `rel` (NULL: none): the last one the segments before
 * (before[0, nb)) told, else the graph's. */
static const char *held_value(const eg_enrich_ctx *ctx, const eg_enriched *before, size_t nb,
                              const char *rel) {
  for (size_t j = nb; j-- > 0;)
    for (size_t k = before[j].n_facts; k-- > 0;)
      if (!strcmp(before[j].facts[k].relation, rel) && !before[j].facts[k].valid_to)
        return before[j].facts[k].object;
  for (size_t i = 0; ctx && i < ctx->n_held; i++)
    if (ctx->held[i].relation && !strcmp(ctx->held[i].relation, rel)) return ctx->held[i].value;
  return NULL;
}

/* The index in o of a current value of rel said outright before the foods' clause (whose
 * bytes end at ce) that the groups told (out, in) undo: one it eats left out, or one it leaves
 * out eaten; o->n_facts when none. */
static size_t said_undone(const eg_statefacts *sf, const char *text, const eg_enriched *o,
                          const char *rel, unsigned out, unsigned in, size_t ce) {
  for (size_t k = 0; k < o->n_facts; k++) {
    const eg_fact *f = &o->facts[k];
    const char *at = f->utterance && *f->utterance ? strstr(text, f->utterance) : NULL;
    if (strcmp(f->relation, rel) != 0 || f->valid_to || !at || (size_t)(at - text) >= ce) continue;
    for (int d = 0; d < sf->n_described; d++) {
      const described *x = &sf->described[d];
      if (!strcasecmp(x->value, f->object) && ((x->in & out) || (x->out & in))) return k;
    }
  }
  return o->n_facts;
}

bool eg_sf_foods_named(const eg_statefacts *sf, const token *t, size_t nt) {
  unsigned whole;
  for (size_t i = 0; sf->n_described && i < nt; i++)
    if (food_at(sf, t, 0, i, &whole)) return true;
  return false;
}

eg_code eg_sf_foods_read(const eg_statefacts *sf, const eg_enrich_ctx *ctx, const eg_segment *sg,
                         const eg_enriched *before, size_t nb, eg_arena *a, eg_enriched *o,
                         eg_err *err) {
  static __thread token t[MAX_TOKENS];
  if (!sf->n_described || !sg->text) return EG_OK;
  size_t nt = eg_sf_tokenize(sg->text, t, MAX_TOKENS), cs = 0, ce = 0;
  unsigned out, in;
  read_sides(sf, t, nt, &out, &in, &cs, &ce);
  if (!(out | in)) return EG_OK;
  unsigned type = sf->described[0].type;
  int r = -1;
  for (int k = 0; k < sf->n_rels && r < 0; k++)
    if (sf->rels[k].types & type) r = k;
  if (r < 0) return EG_OK;
  const char *rel = sf->rels[r].name, *held = held_value(ctx, before, nb, rel);
  /* a value said outright in the message that the foods told after it undo is the one they
   * change ("I am a vegetarian of long standing, although I have recently begun to eat fish
   * again": pescatarian) */
  size_t said = said_undone(sf, sg->text, o, rel, out, in, ce);
  if (said < o->n_facts) held = o->facts[said].object;
  /* what the held value leaves out and eats still stands where nothing said now undoes it
   * (held vegetarian, "I've started eating fish again": meat still left out, pescatarian);
   * a held value the foods do not tell ("keto": "no carbs" may be part of it) cannot be
   * weighed against them, nor one the foods said now do not concern ("pescatarian" and "no
   * carbs": a word on another side of the diet) */
  const described *h = NULL; /* the held value's fullest line */
  for (int k = 0; held && k < sf->n_described; k++) {
    const described *x = &sf->described[k];
    if (!strcasecmp(x->value, held) &&
        (!h || __builtin_popcount(x->out | x->in) > __builtin_popcount(h->out | h->in)))
      h = x;
  }
  if (held && !h) return EG_OK;
  unsigned all_out = out, all_in = in;
  if (h) all_out |= h->out & ~in, all_in |= h->in & ~out;
  const described *d = best_fit(sf, all_out, all_in, out | in, type);
  /* … but one that leaves nothing out ("omnivore") yields to any food left out now */
  if (!d || (h && (h->out || !d->out) && !((d->out | d->in) & (h->out | h->in)))) return EG_OK;
  /* a value said outright stands (but the one the foods undo); a doubt the words raised yields
   * to the value they tell, and so does a former one's end ("stopped being pescatarian, I eat
   * everything now") */
  for (size_t k = 0; k < o->n_facts; k++)
    if (k != said && !strcmp(o->facts[k].relation, rel) && !o->facts[k].valid_to) return EG_OK;
  size_t kept = 0;
  for (size_t k = 0; k < o->n_facts; k++)
    if (k != said &&
        (strcmp(o->facts[k].relation, EG_STATE_UNCERTAIN) || strcmp(o->facts[k].object, rel)))
      o->facts[kept++] = o->facts[k];
  o->n_facts = kept;
  if (held && !strcasecmp(held, d->value)) return EG_OK; /* no news */
  eg_date dates[8];
  size_t nd = eg_dates_find(sg->text, sg->time, dates, 8);
  eg_fact f = {.subject = (char *)ctx->user_entity,
               .subject_type = "user",
               .relation = (char *)rel,
               .object = eg_arena_strdup(a, d->value),
               .object_type = (char *)eg_sf_type_name(sf, type),
               .confidence = 0.6f,
               .reason = "the foods the user says they eat or leave out",
               .extractor = "foods",
               .utterance = eg_arena_strndup(a, sg->text + cs, ce - cs)};
  f.valid_from = eg_sf_date_in(dates, nd, cs, ce, EG_SF_ANY_DATE);
  if (!f.object || !f.utterance) return eg_err_set(err, EG_ENOMEM, "out of memory");
  EG_DEBUG("statefacts", "diet told by foods", "out=%u in=%u", all_out, all_in);
  return eg_enriched_add_fact(a, o, &f, err);
}
