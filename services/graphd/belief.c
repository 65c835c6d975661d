/*
 * belief.c — the preference subgraph: how much Engram believes a stated preference.
 *
 * Nothing here is stored. The confidence of (subject, relation, object) is computed when
 * it is read, from the edge commits that state it or its opposite and the outcomes
 * recorded on them, so every number comes with the evidence that made it and changes
 * only by new, append-only commits. The rule (docs/preferences.md):
 *
 *   w(edge)    = meta.confidence, or 0.6 when the writer gave none;
 *   w(outcome) = ACTED_ON 0.3 and SUCCEEDED 0.6 for, FAILED 0.6 and REVERSED 0.8 against,
 *                IGNORED 0 (shown, not counted);
 *   per independent source (a session, a document, else the edge itself; each outcome)
 *   only its strongest weight on each side counts;
 *   support    = 1 − Π(1 − w) over the evidence for,
 *   against    = 1 − Π(1 − w) over the evidence against,
 *   confidence = support · (1 − against).
 *
 * Noisy-OR is bounded in [0, 1], grows with every independent confirmation and never
 * depends on the order the evidence arrived in. A RETRACT of (relation, object) ends
 * the evidence of that relation committed before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "services/graphd/graph_int.h"

#define ASSERT ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT
#define RETRACT ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT

enum { MAX_EVIDENCE = 256 }; /* evidence listed and counted per belief */

static const float default_edge_weight = 0.6f;

static const struct {
  const char *relation;
  eg_pref_side side;
} pref_relations[] = {
    {"PREFERS", EG_PREF_FOR},        {"LIKES", EG_PREF_FOR},        {"ACCEPTED", EG_PREF_FOR},
    {"AVOIDS", EG_PREF_AGAINST},     {"DISLIKES", EG_PREF_AGAINST}, {"REJECTED", EG_PREF_AGAINST},
    {"OPTIMIZES_FOR", EG_PREF_GOAL},
};
#define N_PREF (sizeof pref_relations / sizeof *pref_relations)

eg_pref_side eg_pref_side_of(const char *relation) {
  for (size_t i = 0; relation && i < N_PREF; i++)
    if (strcmp(pref_relations[i].relation, relation) == 0) return pref_relations[i].side;
  return EG_PREF_NONE;
}

float eg_belief_edge_weight(const Engram__V1__Edge *e) {
  float w = e->meta ? e->meta->confidence : 0;
  return w > 0 && w <= 1 ? w : default_edge_weight;
}

float eg_belief_outcome_weight(Engram__V1__OutcomeKind kind, bool *contrary) {
  *contrary = false;
  switch (kind) {
    case ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_ACTED_ON:
      return 0.3f;
    case ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_SUCCEEDED:
      return 0.6f;
    case ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_FAILED:
      *contrary = true;
      return 0.6f;
    case ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_REVERSED:
      *contrary = true;
      return 0.8f;
    default:
      return 0; /* IGNORED: not taking a suggestion says little about the preference */
  }
}

static float clamp01(float x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

void eg_belief_score(Engram__V1__Belief *b) {
  double keep_for = 1, keep_against = 1; /* Π(1 − w) on each side */
  for (size_t i = 0; i < b->n_evidence; i++) {
    const Engram__V1__Evidence *x = b->evidence[i];
    float w = clamp01(x->weight);
    /* One weight per (source, side): the strongest, the first of equals. */
    bool outweighed = false;
    for (size_t j = 0; j < b->n_evidence && !outweighed; j++) {
      const Engram__V1__Evidence *y = b->evidence[j];
      if (j == i || y->contrary != x->contrary || strcmp(y->source, x->source) != 0) continue;
      float wy = clamp01(y->weight);
      outweighed = wy > w || (wy == w && j < i);
    }
    if (outweighed) continue;
    if (x->contrary)
      keep_against *= 1.0 - w;
    else
      keep_for *= 1.0 - w;
  }
  b->support = clamp01((float)(1.0 - keep_for));
  b->against = clamp01((float)(1.0 - keep_against));
  b->confidence = clamp01(b->support * (1.0f - b->against));
}

/* ---- gathering the evidence ------------------------------------------------------------ */

static int by_commit(const void *x, const void *y) {
  const Engram__V1__Edge *a = *(Engram__V1__Edge *const *)x, *b = *(Engram__V1__Edge *const *)y;
  if (a->t_commit != b->t_commit) return a->t_commit < b->t_commit ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

static int by_recorded(const void *x, const void *y) {
  const Engram__V1__Evidence *a = *(Engram__V1__Evidence *const *)x,
                             *b = *(Engram__V1__Evidence *const *)y;
  if (a->recorded_at != b->recorded_at) return a->recorded_at < b->recorded_at ? -1 : 1;
  return a->edge_id < b->edge_id ? -1 : a->edge_id > b->edge_id;
}

/* One chain's commits in the reader's view, kept for the rest of the request. */
typedef struct chain_commits {
  uint64_t subject;
  const char *relation;
  eg_ptrvec commits; /* Engram__V1__Edge *, every object and transaction time */
} chain_commits;

struct eg_belief_cache {
  eg_ptrvec chains;   /* chain_commits * */
  uint64_t subject;   /* the last subject asked about … */
  uint64_t *subjects; /* … its survivor's subject set (NULL: none yet) */
  size_t n_subjects;
};

eg_belief_cache *eg_belief_cache_new(eg_arena *a) {
  return eg_arena_calloc(a, 1, sizeof(eg_belief_cache));
}

/* Every commit of (subject, relation) visible to view, read once per request. */
static eg_code chain_of(eg_graph *g, uint64_t t, eg_belief_cache *cache, uint64_t subject,
                        const char *relation, const Engram__V1__Scope *view, eg_arena *a,
                        const eg_ptrvec **out, eg_err *err) {
  for (size_t i = 0; cache && i < cache->chains.n; i++) {
    const chain_commits *c = cache->chains.v[i];
    if (c->subject == subject && strcmp(c->relation, relation) == 0) {
      *out = &c->commits;
      return EG_OK;
    }
  }
  chain_commits *c = eg_arena_calloc(a, 1, sizeof *c);
  if (!c || (cache && eg_ptrvec_push(&cache->chains, a, c)))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  c->subject = subject;
  c->relation = relation;
  uint8_t prefix[24];
  KEY3(prefix, t, subject, eg_rel_hash(relation));
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_EDGES, prefix, sizeof prefix);
  eg_code rc = EG_OK;
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl, vl;
    eg_kv_iter_key(it, &kl);
    if (kl != EDGE_KEY_LEN) continue;
    const char *v = eg_kv_iter_value(it, &vl);
    Engram__V1__Edge *e = eg_edge_decode(a, v, vl);
    if (!e) {
      rc = eg_err_set(err, EG_ECORRUPT, "stored edge is corrupt");
      break;
    }
    if (strcmp(e->relation, relation) != 0 || !eg_edge_visible(view, e)) continue;
    if (eg_ptrvec_push(&c->commits, a, e)) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
  }
  eg_kv_iter_close(it);
  *out = &c->commits;
  return rc;
}

/* The commits of (subject set, relation, object) known by known_at in view, by t_commit. */
static eg_code commits_on(eg_graph *g, uint64_t t, eg_belief_cache *cache, const uint64_t *subjects,
                          size_t ns, const char *relation, const Engram__V1__Value *object,
                          int64_t known_at, const Engram__V1__Scope *view, eg_arena *a,
                          eg_ptrvec *out, eg_err *err) {
  for (size_t si = 0; si < ns; si++) {
    const eg_ptrvec *chain = NULL;
    eg_code rc = chain_of(g, t, cache, subjects[si], relation, view, a, &chain, err);
    if (rc) return rc;
    for (size_t i = 0; i < chain->n; i++) {
      Engram__V1__Edge *e = chain->v[i];
      if (e->t_commit > known_at) continue;
      /* A RETRACT without an object ends every value of the chain; one with an object ends that
       * value. */
      bool about_object =
          eg_value_equal(e->object, object) ||
          (e->op == RETRACT &&
           (!e->object || e->object->kind_case == ENGRAM__V1__VALUE__KIND__NOT_SET));
      if (about_object && eg_ptrvec_push(out, a, e))
        return eg_err_set(err, EG_ENOMEM, "out of memory");
    }
  }
  if (out->n > 1) qsort(out->v, out->n, sizeof *out->v, by_commit);
  return EG_OK;
}

static Engram__V1__Evidence *evidence_new(eg_arena *a, uint64_t edge_id, const char *relation,
                                          float weight, bool contrary, int64_t recorded_at) {
  Engram__V1__Evidence *x = eg_arena_calloc(a, 1, sizeof *x);
  if (!x) return NULL;
  engram__v1__evidence__init(x);
  x->edge_id = edge_id;
  x->relation = (char *)relation;
  x->weight = weight;
  x->contrary = contrary;
  x->recorded_at = recorded_at;
  return x;
}

/* The independent source an edge counts as. */
static char *edge_source(eg_arena *a, const Engram__V1__Edge *e) {
  const Engram__V1__EdgeMeta *m = e->meta;
  if (m && m->source_session_id && *m->source_session_id)
    return eg_arena_sprintf(a, "session:%s", m->source_session_id);
  if (m && m->source_document_id && *m->source_document_id)
    return eg_arena_sprintf(a, "document:%s", m->source_document_id);
  return eg_arena_sprintf(a, "edge:%llu", (unsigned long long)e->id);
}

/* The evidence one relation brings: its asserts since its last retract, and for the
 * belief's own side the outcomes on them. */
static eg_code relation_evidence(eg_graph *g, uint64_t t, const eg_ptrvec *commits, bool contrary,
                                 int64_t known_at, const Engram__V1__Scope *view, eg_arena *a,
                                 eg_ptrvec *ev, eg_err *err) {
  size_t from = 0;
  for (size_t i = 0; i < commits->n; i++)
    if (((Engram__V1__Edge *)commits->v[i])->op == RETRACT) from = i + 1;
  for (size_t i = from; i < commits->n && ev->n < MAX_EVIDENCE; i++) {
    Engram__V1__Edge *e = commits->v[i];
    Engram__V1__Evidence *x =
        evidence_new(a, e->id, e->relation, eg_belief_edge_weight(e), contrary, e->t_commit);
    if (!x || !(x->source = edge_source(a, e)) || eg_ptrvec_push(ev, a, x))
      return eg_err_set(err, EG_ENOMEM, "out of memory");
    if (contrary) continue; /* an outcome speaks for or against the edge it is recorded on */
    eg_ptrvec outs = {0};
    eg_code rc = eg_outcomes_of(g, t, e->id, known_at, view, a, &outs, err);
    if (rc) return rc;
    for (size_t j = 0; j < outs.n && ev->n < MAX_EVIDENCE; j++) {
      const Engram__V1__Outcome *o = outs.v[j];
      bool against;
      float w = eg_belief_outcome_weight(o->kind, &against);
      Engram__V1__Evidence *y = evidence_new(a, e->id, e->relation, w, against, o->recorded_at);
      if (!y) return eg_err_set(err, EG_ENOMEM, "out of memory");
      y->outcome = o->kind;
      y->source = eg_arena_sprintf(a, "outcome:%llu:%lld", (unsigned long long)e->id,
                                   (long long)o->recorded_at);
      if (!y->source || eg_ptrvec_push(ev, a, y))
        return eg_err_set(err, EG_ENOMEM, "out of memory");
    }
  }
  return EG_OK;
}

eg_code eg_belief_of(eg_graph *g, uint64_t t, eg_belief_cache *cache, uint64_t subject,
                     const char *relation, const Engram__V1__Value *object, int64_t known_at,
                     const Engram__V1__Scope *view, eg_arena *a, Engram__V1__Belief **out,
                     eg_err *err) {
  *out = NULL;
  eg_pref_side side = eg_pref_side_of(relation);
  if (side == EG_PREF_NONE || !object || object->kind_case == ENGRAM__V1__VALUE__KIND__NOT_SET)
    return EG_OK;
  eg_pref_side opposite = side == EG_PREF_FOR       ? EG_PREF_AGAINST
                          : side == EG_PREF_AGAINST ? EG_PREF_FOR
                                                    : EG_PREF_NONE;
  /* The subject as it stands now: a merged entity's evidence counts with its survivor's. */
  uint64_t *subjects = NULL;
  size_t ns;
  if (cache && cache->subjects && cache->subject == subject) { /* a State's values share one */
    subjects = cache->subjects;
    ns = cache->n_subjects;
  } else {
    Engram__V1__Entity *survivor;
    uint64_t asked = subject;
    if (eg_entity_survivor(g, t, subject, a, &survivor, NULL) == EG_OK) subject = survivor->id;
    ns = eg_subject_set(g, t, subject, a, &subjects);
    if (cache) *cache = (eg_belief_cache){cache->chains, asked, subjects, ns};
  }
  eg_ptrvec ev = {0};
  for (size_t r = 0; r < N_PREF; r++) {
    eg_pref_side s = pref_relations[r].side;
    if (s != side && s != opposite) continue;
    eg_ptrvec commits = {0};
    eg_code rc = commits_on(g, t, cache, subjects, ns, pref_relations[r].relation, object, known_at,
                            view, a, &commits, err);
    if (!rc) rc = relation_evidence(g, t, &commits, s != side, known_at, view, a, &ev, err);
    if (rc) return rc;
  }
  if (ev.n > 1) qsort(ev.v, ev.n, sizeof *ev.v, by_recorded);
  Engram__V1__Belief *b = eg_arena_calloc(a, 1, sizeof *b);
  if (!b) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__belief__init(b);
  b->evidence = (Engram__V1__Evidence **)ev.v;
  b->n_evidence = ev.n;
  eg_belief_score(b);
  *out = b;
  return EG_OK;
}
