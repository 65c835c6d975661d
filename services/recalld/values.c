/*
 * values.c — what the user values: the user's preferences (docs/preferences.md) that bear
 * on the question, for the "what the user values" part of the answer.
 *
 * Their current values come with the searches (one State request of the user's preference
 * relations, each value with its belief and outcomes). A preference is picked when its
 * object shares a word with the question, or when the statement it was read from is among
 * the candidate excerpts, among the closest few to the question and about as close as the
 * closest (the closeness the excerpts were found by: "a place for dinner?" finds "I love
 * Thai food").
 * Its relation's words ("prefers") only add to the score: a question that says "prefer"
 * is not about every preference. At most RC_VALUES_MAX, best first; none when nothing
 * bears on the question. The picked ones then go through the premise walk (a conclusion
 * whose premise changed is POTENTIALLY_STALE) and their chains are read from History, so
 * that a question about a change can be answered step by step. Nothing here moves a chunk.
 */
#include <string.h>

#include "common/text.h"
#include "services/recalld/recall_int.h"

static const char *const pref_relations[] = {"PREFERS",  "LIKES",    "ACCEPTED",     "AVOIDS",
                                             "DISLIKES", "REJECTED", "OPTIMIZES_FOR"};
enum { N_PREF = sizeof pref_relations / sizeof *pref_relations };

/* Closeness alone picks a preference when the statement it was read from is among the
 * VALUES_TOP closest candidates and at least VALUES_NEAR of the closest one's closeness. */
#define VALUES_NEAR 0.8f
enum { VALUES_TOP = 3 };

bool rc_is_preference(const char *relation) {
  for (size_t i = 0; i < N_PREF; i++)
    if (!strcmp(relation, pref_relations[i])) return true;
  return false;
}

const char *rc_relation_words(const char *relation) {
  static const char *const words[][2] = {{"PREFERS", "prefers"},
                                         {"LIKES", "likes"},
                                         {"ACCEPTED", "accepted"},
                                         {"AVOIDS", "avoids"},
                                         {"DISLIKES", "dislikes"},
                                         {"REJECTED", "rejected"},
                                         {"OPTIMIZES_FOR", "optimizes for"}};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (!strcmp(relation, words[i][0])) return words[i][1];
  return relation;
}

Engram__V1__StateRequest *rc_values_request(rc_ctx *c) {
  Engram__V1__StateRequest *st = eg_arena_calloc(c->a, 1, sizeof *st);
  Engram__V1__StateQuery *q = eg_arena_calloc(c->a, N_PREF, sizeof *q);
  Engram__V1__StateQuery **qp = eg_arena_calloc(c->a, N_PREF, sizeof *qp);
  Engram__V1__EntityRef *user = eg_arena_calloc(c->a, 1, sizeof *user);
  if (!st || !q || !qp || !user) return NULL;
  engram__v1__state_request__init(st);
  engram__v1__entity_ref__init(user);
  user->ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  user->name = c->user_entity;
  for (size_t i = 0; i < N_PREF; i++) {
    engram__v1__state_query__init(&q[i]);
    q[i].subject = user;
    q[i].relation = (char *)pref_relations[i];
    qp[i] = &q[i];
  }
  st->scope = &c->scope;
  st->queries = qp;
  st->n_queries = N_PREF;
  st->valid_at = c->valid_at;
  st->known_at = c->known_at;
  return st;
}

/* Words that make a question about how something changed. */
static bool has_change_cue(const char *q) {
  static const char *cues[] = {"switch",      "chang",     "evolv",     "used to",   "instead",
                               "anymore",     "no longer", "stopped",   "over time", "why did i",
                               "why do i no", "went from", "moved from"};
  for (size_t i = 0; i < sizeof cues / sizeof *cues; i++)
    for (const char *p = q; (p = strcasestr(p, cues[i])) != NULL; p++)
      if (p == q || !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z')))
        return true;
  return false;
}

/* How well preference e bears on the question; 0 when it does not. */
static float relevance(rc_ctx *c, const Engram__V1__Edge *e, float best) {
  float words = rc_keyword_match(c, eg_edge_object(e));
  float near = 0;
  uint64_t src = e->meta ? e->meta->source_chunk_id : 0;
  for (size_t i = 0; src && i < c->n_chunks; i++)
    if (c->chunks[i].chunk->id == src) near = c->chunks[i].relevance;
  size_t closer = 0;
  for (size_t i = 0; near > 0 && i < c->n_chunks; i++) closer += c->chunks[i].relevance > near;
  bool close = near >= c->r->o.min_relevance && near >= VALUES_NEAR * best && closer < VALUES_TOP;
  if (words <= 0 && !close) return 0;
  return words + (close ? near : 0) + 0.25f * rc_keyword_match(c, rc_relation_words(e->relation));
}

void rc_values_pick(rc_ctx *c, const Engram__V1__StateResponse *st) {
  c->change_cue = has_change_cue(c->req->query);
  if (!st) return;
  float best = 0;
  for (size_t i = 0; i < c->n_chunks; i++)
    if (c->chunks[i].relevance > best) best = c->chunks[i].relevance;
  c->values = eg_arena_calloc(c->a, RC_VALUES_MAX, sizeof *c->values);
  if (!c->values) return;
  for (size_t r = 0; r < st->n_results; r++)
    for (size_t v = 0; v < st->results[r]->n_values; v++) {
      const Engram__V1__Edge *e = st->results[r]->values[v];
      float s = e->op == ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT ? relevance(c, e, best) : 0;
      if (s <= 0) continue;
      /* insertion into the best RC_VALUES_MAX; on a tie the more believed first */
      float conf = e->belief ? e->belief->confidence : 0;
      size_t at = c->n_values;
      while (at > 0) {
        const rc_value *p = &c->values[at - 1];
        float pc = p->edge->belief ? p->edge->belief->confidence : 0;
        if (p->score > s || (p->score == s && pc >= conf)) break;
        at--;
      }
      if (at >= RC_VALUES_MAX) continue;
      size_t n = c->n_values < RC_VALUES_MAX ? c->n_values : RC_VALUES_MAX - 1;
      memmove(&c->values[at + 1], &c->values[at], (n - at) * sizeof *c->values);
      c->values[at] = (rc_value){.edge = e, .score = s};
      if (c->n_values < RC_VALUES_MAX) c->n_values++;
    }
}

static bool same_object(const Engram__V1__Edge *a, const Engram__V1__Edge *b) {
  return strcasecmp(eg_edge_object(a), eg_edge_object(b)) == 0;
}

static bool picked(const rc_ctx *c, const Engram__V1__Edge *e) {
  for (size_t i = 0; i < c->n_values; i++)
    if (!strcmp(c->values[i].edge->relation, e->relation) && same_object(c->values[i].edge, e))
      return true;
  return false;
}

/* The steps of value v in a History of its relation: its own earlier commits (and the
 * retraction that ended one); for a question about a change also the values of the
 * relation the question names that are no longer held ("from X to Y": X). */
static void take_steps(rc_ctx *c, rc_value *v, const Engram__V1__HistoryResponse *h, bool *lent) {
  v->steps = eg_arena_calloc(c->a, h && h->n_entries ? h->n_entries : 1, sizeof *v->steps);
  for (size_t i = 0; h && v->steps && i < h->n_entries; i++) {
    Engram__V1__Edge *e = h->entries[i]->edge;
    if (e->id == v->edge->id || strcmp(e->relation, v->edge->relation) != 0) continue;
    bool own = same_object(e, v->edge);
    bool other = !own && c->change_cue && !lent[i] && !picked(c, e) &&
                 rc_keyword_match(c, eg_edge_object(e)) > 0;
    if (!own && !other) continue;
    lent[i] |= other; /* another value's step once only */
    v->steps[v->n_steps++] = e;
  }
}

eg_code rc_values_walked(rc_ctx *c, Engram__V1__ClaimStatus *const *st, size_t n, eg_err *err) {
  for (size_t i = 0; i < c->n_values; i++) {
    rc_value *v = &c->values[i];
    const Engram__V1__ClaimStatus *cs = i < n ? st[i] : NULL;
    if (cs) {
      v->status = cs->status;
      v->superseding = cs->superseding;
    }
    Engram__V1__HistoryResponse h = ENGRAM__V1__HISTORY_RESPONSE__INIT;
    if (cs) {
      h.entries = cs->history;
      h.n_entries = cs->n_history;
    }
    bool *lent = eg_arena_calloc(c->a, h.n_entries ? h.n_entries : 1, sizeof *lent);
    if (!lent) return eg_err_set(err, EG_ENOMEM, "out of memory");
    /* values of one relation share its history: what one lent stays lent */
    for (size_t j = 0; j < i; j++)
      if (!strcmp(c->values[j].edge->relation, v->edge->relation))
        for (size_t s = 0; s < c->values[j].n_steps; s++)
          for (size_t x = 0; x < h.n_entries; x++)
            lent[x] |= h.entries[x]->edge->id == c->values[j].steps[s]->id;
    take_steps(c, v, cs ? &h : NULL, lent);
  }
  return EG_OK;
}
