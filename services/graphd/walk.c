/*
 * walk.c — Traverse (bounded paths from seed entities, valid- and known-time filtered
 * at every hop) and Walk, the premise walk that gives a claim its epistemic status.
 *
 * The premise walk follows derived_from from a claim (cycle-safe, depth and fan-out
 * capped, skipped links counted) and compares every premise with Φ under the same
 * bounds. A premise that was superseded or retracted inside the bounds makes the claim
 * POTENTIALLY_STALE; a supersession valid after valid_at, or committed after known_at,
 * is outside the bounds and changes nothing (the near-miss case).
 */
#include <stdlib.h>
#include <string.h>

#include "services/graphd/graph_int.h"

#define ONE ENGRAM__V1__CARDINALITY__CARDINALITY_ONE
#define INV ENGRAM__V1__CARDINALITY__CARDINALITY_ONE_INVERSE
#define ASSERT ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT
#define RETRACT ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT

static uint32_t cap(uint32_t asked, uint32_t dflt, uint32_t max) {
  uint32_t v = asked ? asked : dflt;
  return v > max ? max : v;
}

/* A small set of 64-bit ids (linear; traversals and walks are capped). */
typedef struct idset {
  uint64_t *v;
  size_t n, cap;
} idset;

static bool idset_has(const idset *s, uint64_t id) {
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i] == id) return true;
  return false;
}

static eg_code idset_add(idset *s, eg_arena *a, uint64_t id) {
  if (s->n == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 32;
    uint64_t *nv = eg_arena_alloc(a, nc * sizeof *nv);
    if (!nv) return EG_ENOMEM;
    if (s->n) memcpy(nv, s->v, s->n * sizeof *nv);
    s->v = nv;
    s->cap = nc;
  }
  s->v[s->n++] = id;
  return EG_OK;
}

static bool relation_allowed(const void *reqp, const char *rel) {
  const Engram__V1__TraverseRequest *req = reqp;
  if (!req->n_relations) return true;
  for (size_t i = 0; i < req->n_relations; i++)
    if (strcmp(req->relations[i], rel) == 0) return true;
  return false;
}

static bool keep_relation(void *ctx, const char *rel) { return relation_allowed(ctx, rel); }

/* Current edges leaving `node` (OUT: node is subject) under the bounds. */
static eg_code out_edges(eg_graph *g, uint64_t t, uint64_t node,
                         const Engram__V1__TraverseRequest *req, int64_t va, int64_t ka,
                         eg_arena *a, eg_ptrvec *out, eg_err *err) {
  eg_ptrvec rels = {0};
  eg_code rc = eg_subject_relations(g, t, node, keep_relation, (void *)req, a, &rels, err);
  for (size_t i = 0; i < rels.n && !rc; i++) {
    eg_state st;
    if ((rc = eg_state_of(g, t, node, rels.v[i], va, ka, req->scope, a, &st, err))) break;
    for (size_t j = 0; j < st.n; j++)
      if (eg_ptrvec_push(out, a, st.values[j])) rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  return rc;
}

static bool in_state(const eg_state *st, uint64_t edge) {
  for (size_t j = 0; j < st->n; j++)
    if (st->values[j]->id == edge) return true;
  return false;
}

/* Current edges arriving at `node` (IN: node is the object) under the bounds. The keys come
 * grouped by (relation, subject): that state is read once per group, and an edge of the group
 * that is not part of it is passed over without loading it. */
static eg_code in_edges(eg_graph *g, uint64_t t, uint64_t node,
                        const Engram__V1__TraverseRequest *req, int64_t va, int64_t ka, eg_arena *a,
                        eg_ptrvec *out, eg_err *err) {
  uint8_t prefix[16];
  KEY2(prefix, t, node);
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_EDGES_BY_OBJECT, prefix, 16);
  eg_code rc = EG_OK;
  eg_state st;             /* the state of the current group … */
  bool have_state = false; /* … once read */
  uint64_t group[2] = {0}; /* its relation hash and subject, from the key */
  for (size_t seen = 0; eg_kv_iter_valid(it) && seen < 4096; eg_kv_iter_next(it), seen++) {
    size_t kl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    if (kl != 40) continue;
    uint64_t rel = key_get64(k + 16), subject = key_get64(k + 24), id = key_get64(k + 32);
    if (rel != group[0] || subject != group[1]) have_state = false;
    if (have_state && !in_state(&st, id)) continue; /* not part of its subject's current state */
    Engram__V1__Edge *e;
    if ((rc = eg_edge_load(g, t, id, a, &e, err))) break;
    if (e->op != ASSERT || e->t_commit > ka || e->valid_from > va ||
        !relation_allowed(req, e->relation) || !eg_edge_visible(req->scope, e))
      continue; /* a shared entity is no bridge into another user's edges */
    /* Keep it only when it is part of its subject's current state. */
    if (!have_state) {
      if ((rc = eg_state_of(g, t, e->subject, e->relation, va, ka, req->scope, a, &st, err))) break;
      have_state = true;
      group[0] = rel;
      group[1] = subject;
    }
    if (in_state(&st, e->id) && eg_ptrvec_push(out, a, e))
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  eg_kv_iter_close(it);
  return rc;
}

typedef struct frontier_node {
  uint64_t entity;
  Engram__V1__Edge **path;
  size_t depth;
} frontier_node;

eg_code eg_graph_traverse(eg_graph *g, const Engram__V1__TraverseRequest *req, eg_arena *a,
                          Engram__V1__TraverseResponse *resp, eg_err *err) {
  if (req->n_seeds > 256) return eg_err_set(err, EG_EINVAL, "more than 256 seeds");
  if (req->max_depth > g->limits.max_depth)
    return eg_err_set(err, EG_EINVAL, "max_depth above the limit of %u", g->limits.max_depth);
  if (req->max_fanout > g->limits.max_fanout)
    return eg_err_set(err, EG_EINVAL, "max_fanout above the limit of %u", g->limits.max_fanout);
  for (size_t i = 0; i < req->n_relations; i++)
    if (!eg_relation_name_valid(req->relations[i]))
      return eg_err_set(err, EG_EINVAL, "relations[%zu] must be UPPER_SNAKE", i);
  uint32_t depth = cap(req->max_depth, 2, g->limits.max_depth);
  uint32_t fanout = cap(req->max_fanout, 16, g->limits.max_fanout);
  uint32_t max_paths = cap(req->max_paths, 64, g->limits.max_paths);
  int64_t va = eg_bound_or_now(req->valid_at), ka = eg_bound_or_now(req->known_at);
  Engram__V1__Direction dir =
      req->direction ? req->direction : ENGRAM__V1__DIRECTION__DIRECTION_OUT;
  uint64_t t;
  if (eg_kv_tenant_id(g->store, req->scope->tenant, &t) != EG_OK) return EG_OK;

  idset visited = {0}, on_paths = {0};
  eg_ptrvec frontier = {0}, paths = {0};
  eg_code rc = EG_OK;
  for (size_t i = 0; i < req->n_seeds; i++) {
    uint64_t id;
    rc = eg_entity_ref(g, NULL, t, req->seeds[i], NULL, false, a, &id, NULL, err);
    if (rc == EG_ENOTFOUND || (!rc && !id)) {
      rc = EG_OK;
      continue;
    }
    if (rc) return rc;
    if (idset_has(&visited, id)) continue;
    frontier_node *fn = eg_arena_calloc(a, 1, sizeof *fn);
    if (!fn || idset_add(&visited, a, id) || eg_ptrvec_push(&frontier, a, fn) ||
        idset_add(&on_paths, a, id))
      return eg_err_set(err, EG_ENOMEM, "out of memory");
    fn->entity = id;
  }
  for (uint32_t d = 0; d < depth && frontier.n && !resp->truncated; d++) {
    eg_ptrvec next = {0};
    for (size_t f = 0; f < frontier.n && !resp->truncated; f++) {
      frontier_node *node = frontier.v[f];
      eg_ptrvec edges = {0};
      if (dir != ENGRAM__V1__DIRECTION__DIRECTION_IN &&
          (rc = out_edges(g, t, node->entity, req, va, ka, a, &edges, err)))
        return rc;
      if (dir != ENGRAM__V1__DIRECTION__DIRECTION_OUT &&
          (rc = in_edges(g, t, node->entity, req, va, ka, a, &edges, err)))
        return rc;
      if (edges.n > fanout) {
        resp->skipped_by_fanout += (uint32_t)(edges.n - fanout);
        edges.n = fanout;
      }
      for (size_t i = 0; i < edges.n; i++) {
        Engram__V1__Edge *e = edges.v[i];
        uint64_t other =
            e->subject == node->entity && e->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID
                ? e->object->entity_id
            : e->subject == node->entity ? 0
                                         : e->subject;
        if (other && idset_has(&visited, other) && other != node->entity) {
          /* Already reached by a path at most this long: a path to it exists. */
          continue;
        }
        if (paths.n == max_paths) {
          resp->truncated = true;
          break;
        }
        Engram__V1__Path *p = eg_arena_calloc(a, 1, sizeof *p);
        Engram__V1__Edge **pe = eg_arena_alloc(a, (node->depth + 1) * sizeof *pe);
        if (!p || !pe) return eg_err_set(err, EG_ENOMEM, "out of memory");
        engram__v1__path__init(p);
        if (node->depth) memcpy(pe, node->path, node->depth * sizeof *pe);
        pe[node->depth] = e;
        p->edges = pe;
        p->n_edges = node->depth + 1;
        eg_edge_names(g, t, e, a);
        if (eg_ptrvec_push(&paths, a, p)) return eg_err_set(err, EG_ENOMEM, "out of memory");
        if (!other) continue; /* a literal: a leaf */
        if (!idset_has(&on_paths, other) && idset_add(&on_paths, a, other))
          return eg_err_set(err, EG_ENOMEM, "out of memory");
        if (idset_has(&visited, other)) continue;
        frontier_node *fn = eg_arena_calloc(a, 1, sizeof *fn);
        if (!fn || idset_add(&visited, a, other) || eg_ptrvec_push(&next, a, fn))
          return eg_err_set(err, EG_ENOMEM, "out of memory");
        fn->entity = other;
        fn->path = pe;
        fn->depth = node->depth + 1;
      }
    }
    frontier = next;
  }
  resp->paths = (Engram__V1__Path **)paths.v;
  resp->n_paths = paths.n;
  resp->entities = eg_arena_calloc(a, on_paths.n ? on_paths.n : 1, sizeof *resp->entities);
  if (!resp->entities) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < on_paths.n; i++) {
    Engram__V1__Entity *e;
    if (eg_entity_load(g, NULL, t, on_paths.v[i], a, &e, NULL) == EG_OK)
      resp->entities[resp->n_entities++] = e;
  }
  return EG_OK;
}

/* ---- the premise walk ---------------------------------------------------------------- */

static int commit_after(const Engram__V1__Edge *a, const Engram__V1__Edge *b) {
  if (a->valid_from != b->valid_from) return a->valid_from > b->valid_from;
  return a->t_commit > b->t_commit;
}

/*
 * Does premise p still hold under the bounds? When not, *superseding is the commit
 * that changed it (NULL when it simply ended by its own valid_to).
 */
static eg_code premise_changed(eg_graph *g, uint64_t t, const Engram__V1__Edge *p, int64_t va,
                               int64_t ka, const Engram__V1__Scope *view, eg_arena *a,
                               bool *changed, Engram__V1__Edge **superseding, eg_err *err) {
  *changed = false;
  *superseding = NULL;
  if (p->valid_from > va || p->op != ASSERT) return EG_OK; /* not in force at valid_at anyway */
  eg_state st;
  eg_code rc = eg_state_of(g, t, p->subject, p->relation, va, ka, view, a, &st, err);
  if (rc) return rc;
  for (size_t i = 0; i < st.n; i++)
    if (st.values[i]->id == p->id || eg_value_equal(st.values[i]->object, p->object)) return EG_OK;
  *changed = true;
  Engram__V1__Cardinality card = eg_graph_cardinality(g, t, p->relation);
  if (card == ONE) {
    *superseding = st.n ? st.values[0] : st.retracted_by;
  } else if (card == INV && p->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID) {
    rc = eg_inverse_holder(g, t, p->object->entity_id, p->relation, va, ka, view, a, superseding,
                           err);
  }
  if (!*superseding && !rc) {
    /* MANY (or an ended ONE_INVERSE): the newest commit on the chain touching this
     * object, or a wildcard retract, inside the bounds. */
    eg_chain ch;
    eg_chain_open(&ch, g, t, p->subject, p->relation, va, ka, view, false, a);
    Engram__V1__Edge *e;
    while (!(rc = eg_chain_next(&ch, &e, err)) && e) {
      if (e->id == p->id || !commit_after(e, p)) continue;
      bool wildcard = !e->object || e->object->kind_case == ENGRAM__V1__VALUE__KIND__NOT_SET;
      if (wildcard || eg_value_equal(e->object, p->object)) *superseding = e;
    }
    eg_chain_close(&ch);
  }
  return rc;
}

static bool same_source(const Engram__V1__Edge *a, const Engram__V1__Edge *b) {
  const Engram__V1__EdgeMeta *ma = a->meta, *mb = b->meta;
  const char *sa = ma && ma->source_session_id && *ma->source_session_id ? ma->source_session_id
                   : ma && ma->source_document_id                        ? ma->source_document_id
                                                                         : "";
  const char *sb = mb && mb->source_session_id && *mb->source_session_id ? mb->source_session_id
                   : mb && mb->source_document_id                        ? mb->source_document_id
                                                                         : "";
  if (*sa || *sb) return strcmp(sa, sb) == 0;
  return strcmp(a->agent ? a->agent : "", b->agent ? b->agent : "") == 0 &&
         strcmp(a->user ? a->user : "", b->user ? b->user : "") == 0;
}

/* Other current asserts of the same (subject, relation, object) from other sources. */
static eg_code corroborations(eg_graph *g, uint64_t t, const Engram__V1__Edge *c, int64_t va,
                              int64_t ka, const Engram__V1__Scope *view, eg_arena *a,
                              Engram__V1__ClaimStatus *cs, eg_err *err) {
  eg_chain ch;
  eg_chain_open(&ch, g, t, c->subject, c->relation, va, ka, view, false, a);
  eg_ptrvec found = {0};
  Engram__V1__Edge *e;
  eg_code rc = EG_OK;
  while (found.n < 16 && !(rc = eg_chain_next(&ch, &e, err)) && e) {
    if (e->id == c->id || e->op != ASSERT || !eg_value_equal(e->object, c->object)) continue;
    if (e->valid_to && e->valid_to <= va) continue;
    if (!same_source(e, c)) eg_ptrvec_push(&found, a, e);
  }
  eg_chain_close(&ch);
  if (rc) return rc;
  if (!found.n) return EG_OK;
  cs->corroborating = eg_arena_alloc(a, found.n * sizeof(uint64_t));
  if (!cs->corroborating) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < found.n; i++)
    cs->corroborating[cs->n_corroborating++] = ((Engram__V1__Edge *)found.v[i])->id;
  cs->status = ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_CORROBORATED;
  return EG_OK;
}

typedef struct walk_item {
  Engram__V1__Edge *edge;
  uint64_t *chain; /* edge ids from the claim to this edge */
  size_t depth;
} walk_item;

static eg_code walk_claim(eg_graph *g, uint64_t t, Engram__V1__Edge *claim, int64_t va, int64_t ka,
                          const Engram__V1__Scope *view, uint32_t max_depth, uint32_t fanout,
                          eg_arena *a, Engram__V1__ClaimStatus *cs, eg_err *err) {
  cs->status = ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNVERIFIED;
  /* The claim itself replaced inside the bounds? */
  bool changed;
  Engram__V1__Edge *sup;
  eg_code rc = premise_changed(g, t, claim, va, ka, view, a, &changed, &sup, err);
  if (rc) return rc;
  if (changed) {
    cs->status = ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_SUPERSEDED;
    if (sup) eg_edge_names(g, t, sup, a);
    cs->superseding = sup;
    return EG_OK;
  }
  idset visited = {0};
  eg_ptrvec stack = {0};
  if (idset_add(&visited, a, claim->id)) return eg_err_set(err, EG_ENOMEM, "out of memory");
  walk_item *root = eg_arena_calloc(a, 1, sizeof *root);
  if (!root || eg_ptrvec_push(&stack, a, root)) return eg_err_set(err, EG_ENOMEM, "out of memory");
  root->edge = claim;
  while (stack.n) {
    walk_item *it = stack.v[--stack.n];
    Engram__V1__Edge *e = it->edge;
    size_t np = e->n_derived_from;
    if (np > fanout) {
      cs->skipped_links += (uint32_t)(np - fanout);
      np = fanout;
    }
    for (size_t i = 0; i < np; i++) {
      uint64_t pid = e->derived_from[i];
      if (idset_has(&visited, pid)) { /* a cycle or a shared premise */
        cs->skipped_links++;
        continue;
      }
      if (idset_add(&visited, a, pid)) return eg_err_set(err, EG_ENOMEM, "out of memory");
      Engram__V1__Edge *p;
      rc = eg_edge_load(g, t, pid, a, &p, err);
      if (rc == EG_ENOTFOUND ||
          (!rc && !eg_edge_visible(view, p))) { /* erased, or not the reader's */
        cs->skipped_links++;
        continue;
      }
      if (rc) return rc;
      uint64_t *chain = eg_arena_alloc(a, (it->depth + 2) * sizeof *chain);
      if (!chain) return eg_err_set(err, EG_ENOMEM, "out of memory");
      if (it->depth) memcpy(chain, it->chain, it->depth * sizeof *chain);
      chain[it->depth] = pid;
      if (p->t_commit > ka) { /* not known at known_at */
        cs->skipped_links++;
        continue;
      }
      cs->premises_checked++;
      if ((rc = premise_changed(g, t, p, va, ka, view, a, &changed, &sup, err))) return rc;
      if (changed) {
        cs->status = ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE;
        if (sup) eg_edge_names(g, t, sup, a);
        cs->superseding = sup;
        cs->chain = chain;
        cs->n_chain = it->depth + 1;
        return EG_OK;
      }
      if (!p->n_derived_from) continue;
      if (it->depth + 1 >= max_depth) {
        cs->skipped_links += (uint32_t)p->n_derived_from;
        continue;
      }
      walk_item *ni = eg_arena_calloc(a, 1, sizeof *ni);
      if (!ni || eg_ptrvec_push(&stack, a, ni)) return eg_err_set(err, EG_ENOMEM, "out of memory");
      ni->edge = p;
      ni->chain = chain;
      ni->depth = it->depth + 1;
    }
  }
  return corroborations(g, t, claim, va, ka, view, a, cs, err);
}

/* WalkRequest.history_limit: the history of claims[i]'s subject and relation into its
 * status: History's answer, shared with an earlier claim of the same subject and relation. */
static eg_code claim_history(eg_graph *g, const Engram__V1__WalkRequest *req,
                             Engram__V1__WalkResponse *resp, Engram__V1__Edge **claims, size_t i,
                             eg_arena *a, eg_err *err) {
  Engram__V1__ClaimStatus *cs = resp->statuses[i];
  const Engram__V1__Edge *c = claims[i];
  for (size_t j = 0; j < i; j++)
    if (claims[j] && claims[j]->subject == c->subject &&
        !strcmp(claims[j]->relation, c->relation)) {
      const Engram__V1__ClaimStatus *prev = resp->statuses[j];
      cs->history = prev->history;
      cs->n_history = prev->n_history;
      return EG_OK;
    }
  Engram__V1__EntityRef ref = ENGRAM__V1__ENTITY_REF__INIT;
  ref.ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
  ref.id = c->subject;
  Engram__V1__HistoryRequest hr = ENGRAM__V1__HISTORY_REQUEST__INIT;
  hr.scope = req->scope;
  hr.subject = &ref;
  hr.relation = c->relation;
  hr.known_at = req->known_at;
  hr.limit = req->history_limit;
  Engram__V1__HistoryResponse h = ENGRAM__V1__HISTORY_RESPONSE__INIT;
  eg_code rc = eg_graph_history(g, &hr, a, &h, err);
  cs->history = h.entries;
  cs->n_history = h.n_entries;
  return rc;
}

eg_code eg_graph_walk(eg_graph *g, const Engram__V1__WalkRequest *req, eg_arena *a,
                      Engram__V1__WalkResponse *resp, eg_err *err) {
  if (req->n_claims > 1000) return eg_err_set(err, EG_EINVAL, "more than 1000 claims");
  if (req->max_depth > g->limits.max_depth)
    return eg_err_set(err, EG_EINVAL, "max_depth above the limit of %u", g->limits.max_depth);
  if (req->max_fanout > g->limits.max_fanout)
    return eg_err_set(err, EG_EINVAL, "max_fanout above the limit of %u", g->limits.max_fanout);
  uint32_t depth = cap(req->max_depth, 8, g->limits.max_depth);
  uint32_t fanout = cap(req->max_fanout, 16, g->limits.max_fanout);
  int64_t va = eg_bound_or_now(req->valid_at), ka = eg_bound_or_now(req->known_at);
  uint64_t t = 0;
  bool tenant_known = eg_kv_tenant_id(g->store, req->scope->tenant, &t) == EG_OK;
  resp->statuses = eg_arena_calloc(a, req->n_claims ? req->n_claims : 1, sizeof *resp->statuses);
  Engram__V1__Edge **claims = eg_arena_calloc(a, req->n_claims ? req->n_claims : 1, sizeof *claims);
  if (!resp->statuses || !claims) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < req->n_claims; i++) {
    Engram__V1__ClaimStatus *cs = eg_arena_calloc(a, 1, sizeof *cs);
    if (!cs) return eg_err_set(err, EG_ENOMEM, "out of memory");
    engram__v1__claim_status__init(cs);
    cs->claim = req->claims[i];
    resp->statuses[resp->n_statuses++] = cs;
    Engram__V1__Edge *claim = NULL;
    eg_code rc = tenant_known ? eg_edge_load(g, t, req->claims[i], a, &claim, err) : EG_ENOTFOUND;
    /* Unknown, another tenant's or another user's: the same answer, so that an id tells
     * nothing of what exists outside the reader's view. */
    if (rc == EG_ENOTFOUND || (!rc && !eg_edge_visible(req->scope, claim)))
      return eg_err_set(err, EG_ENOTFOUND, "claims[%zu]: edge %llu not found", i,
                        (unsigned long long)req->claims[i]);
    if (rc) return rc;
    if (claim->t_commit > ka) continue; /* not known at known_at: no status (UNSPECIFIED) */
    if ((rc = walk_claim(g, t, claim, va, ka, req->scope, depth, fanout, a, cs, err))) return rc;
    claims[i] = claim;
    if (req->history_limit && (rc = claim_history(g, req, resp, claims, i, a, err))) return rc;
    eg_series_add(g->m_walks, 1);
    if (cs->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE)
      eg_series_add(g->m_stale, 1);
  }
  return EG_OK;
}
