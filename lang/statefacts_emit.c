/*
 * statefacts_emit.c — the prototype extractor's output (see statefacts.c, step 6): among one
 * segment's judged items, per relation, the fact it says (the user's own words over a name in
 * passing, a value said over one placed, a name over a kind word), the doubt, a value ended
 * beside its successor, a value of the past told with its years, a superseded one, the value
 * in prospect begun unnamed, and the time each holds from.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/time.h"
#include "lang/dates.h"
#include "lang/statefacts_pick.h"
#include "lang/wordnet.h"

static bool has_relation(const eg_enriched *o, const char *rel) {
  for (size_t f = 0; f < o->n_facts; f++)
    if (!strcmp(o->facts[f].relation, rel)) return true;
  return false;
}

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
    eg_sf_clause_of(t, nt, it->s.ts, &from, &to);
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
    eg_sf_clause_of(t, nt, a, &cf, &ct);
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

eg_code eg_sf_emit(const eg_statefacts *sf, const eg_enrich_ctx *ctx, const eg_segment *sg,
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
