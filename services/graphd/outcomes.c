/*
 * outcomes.c — outcome signals: what came of an edge (acted on, ignored, succeeded,
 * failed, reversed), recorded as append-only annotations of the edge.
 *
 * An outcome is its own record under 'O' T edge_id recorded_at in the default column
 * family (keys.h): recording one never rewrites the edge, and the edge's outcomes are
 * one prefix, in the order they were learned. recorded_at is a transaction time taken
 * from the tenant's clock (after every commit so far), so known_at bounds outcomes
 * exactly as it bounds edges. An outcome is seen by a reader who sees both the edge and
 * the scope that recorded it (common/scope.h); it leaves with the edge, or with its
 * recorder's data, on erasure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/scope.h"
#include "common/time.h"
#include "services/graphd/graph_int.h"

#define OUTCOME_KEY_LEN 25

static size_t outcome_prefix(uint8_t *k, uint64_t t, uint64_t edge_id) {
  k[0] = 'O';
  return 1 + KEY2(k + 1, t, edge_id);
}

static Engram__V1__Outcome *outcome_decode(eg_arena *a, const void *v, size_t vl) {
  ProtobufCAllocator al = eg_rpc_arena_allocator(a);
  return engram__v1__outcome__unpack(&al, vl, v);
}

static bool outcome_visible(const Engram__V1__Scope *view, const Engram__V1__Outcome *o) {
  return eg_scope_sees(view, o->user, o->agent, o->private_);
}

/* outcome_tenants: 1 when tenant t holds outcomes, 2 when it holds none (most tenants:
 * then no edge needs its own look-up); looked up once, set by every outcome committed
 * (eg_outcome_recorded), forgotten at an erasure. A look-up's answer is kept only when
 * absent, so that an outcome committed meanwhile is not forgotten. */
static bool any_outcomes(eg_graph *g, uint64_t t) {
  pthread_mutex_lock(&g->rmu);
  intptr_t known = (intptr_t)eg_map_get(g->outcome_tenants, &t, sizeof t);
  pthread_mutex_unlock(&g->rmu);
  if (known) return known == 1;
  uint8_t prefix[9];
  prefix[0] = 'O';
  key_put64(prefix + 1, t);
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_DEFAULT, prefix, sizeof prefix);
  bool any = eg_kv_iter_valid(it);
  eg_kv_iter_close(it);
  pthread_mutex_lock(&g->rmu);
  if (!eg_map_get(g->outcome_tenants, &t, sizeof t))
    eg_map_put(g->outcome_tenants, &t, sizeof t, (void *)(intptr_t)(any ? 1 : 2));
  pthread_mutex_unlock(&g->rmu);
  return any;
}

void eg_outcome_recorded(eg_graph *g, uint64_t t) {
  pthread_mutex_lock(&g->rmu);
  eg_map_put(g->outcome_tenants, &t, sizeof t, (void *)1);
  pthread_mutex_unlock(&g->rmu);
}

eg_code eg_outcomes_of(eg_graph *g, uint64_t t, uint64_t edge_id, int64_t known_at,
                       const Engram__V1__Scope *view, eg_arena *a, eg_ptrvec *out, eg_err *err) {
  if (!any_outcomes(g, t)) return EG_OK;
  uint8_t prefix[17];
  size_t pl = outcome_prefix(prefix, t, edge_id);
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_DEFAULT, prefix, pl);
  eg_code rc = EG_OK;
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl, vl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    if (kl != OUTCOME_KEY_LEN) continue;
    if (key_untime(key_get64(k + 17)) > known_at) break; /* keys are in recorded_at order */
    const char *v = eg_kv_iter_value(it, &vl);
    Engram__V1__Outcome *o = outcome_decode(a, v, vl);
    if (!o) {
      rc = eg_err_set(err, EG_ECORRUPT, "stored outcome is corrupt");
      break;
    }
    if (outcome_visible(view, o) && eg_ptrvec_push(out, a, o)) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
  }
  eg_kv_iter_close(it);
  return rc;
}

eg_code eg_edge_annotate(eg_graph *g, uint64_t t, eg_belief_cache *cache, Engram__V1__Edge *e,
                         int64_t known_at, int64_t belief_known_at, const Engram__V1__Scope *view,
                         eg_arena *a, eg_err *err) {
  eg_ptrvec outs = {0};
  eg_code rc = eg_outcomes_of(g, t, e->id, known_at, view, a, &outs, err);
  if (rc) return rc;
  e->outcomes = (Engram__V1__Outcome **)outs.v;
  e->n_outcomes = outs.n;
  if (e->op != ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT) return EG_OK;
  return eg_belief_of(g, t, cache, e->subject, e->relation, e->object, belief_known_at, view, a,
                      &e->belief, err);
}

static bool kind_valid(Engram__V1__OutcomeKind k) {
  return k >= ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_ACTED_ON &&
         k <= ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_REVERSED;
}

eg_code eg_graph_record_outcome(eg_graph *g, const Engram__V1__RecordOutcomeRequest *req,
                                eg_arena *a, Engram__V1__RecordOutcomeResponse *resp, eg_err *err) {
  if (!req->edge_id) return eg_err_set(err, EG_EINVAL, "edge_id is missing");
  if (!kind_valid(req->kind))
    return eg_err_set(err, EG_EINVAL,
                      "kind must be ACTED_ON, IGNORED, SUCCEEDED, FAILED or REVERSED");
  eg_code rc;
  if ((rc = eg_graph_check_text(g, req->note, "note", err)) ||
      (rc = eg_graph_check_text(g, req->source, "source", err)))
    return rc;
  if (req->source && strlen(req->source) > EG_SCOPE_FIELD_MAX)
    return eg_err_set(err, EG_EINVAL, "source longer than %d bytes", EG_SCOPE_FIELD_MAX);
  /* The edge must exist and be the reader's to see; an invisible one is reported exactly
   * as a missing one, so that its existence is not revealed. */
  uint64_t t;
  Engram__V1__Edge *e = NULL;
  rc = eg_kv_tenant_id(g->store, req->scope->tenant, &t) == EG_OK
           ? eg_edge_load(g, t, req->edge_id, a, &e, err)
           : EG_ENOTFOUND;
  if (rc == EG_ENOTFOUND || (!rc && !eg_edge_visible(req->scope, e)))
    return eg_err_set(err, EG_ENOTFOUND, "edge %llu not found", (unsigned long long)req->edge_id);
  if (rc) return rc;

  Engram__V1__Outcome *o = eg_arena_calloc(a, 1, sizeof *o);
  if (!o) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__outcome__init(o);
  o->edge_id = req->edge_id;
  o->kind = req->kind;
  o->note = req->note ? req->note : "";
  o->source = req->source && *req->source ? req->source : "client";
  o->user = req->scope->user ? req->scope->user : "";
  o->agent = req->scope->agent ? req->scope->agent : "";
  o->private_ = req->scope->private_;
  Engram__V1__GraphStep *st = eg_step_new(a, ENGRAM__V1__GRAPH_STEP__STEP_OUTCOME);
  if (!st) return eg_err_set(err, EG_ENOMEM, "out of memory");
  st->outcome = o;
  eg_gwrite w;
  if ((rc = eg_gwrite_begin(g, req->scope->tenant, req->scope->user, false, a, &w, err))) return rc;
  int64_t now = eg_time_now_us();
  o->recorded_at = now > w.ten->last_tc ? now : w.ten->last_tc + 1;
  o->time = req->time ? req->time : o->recorded_at;
  eg_outcome_recorded(g, t); /* before the commit too: no read after it may skip the look-up */
  if ((rc = eg_gwrite_last(&w, st, err))) return rc;
  eg_series_add(g->m_outcomes, 1);
  resp->outcome = o;
  /* The outcome is durable: a belief that cannot be computed now is left out. */
  eg_err belief_err;
  if (e->op == ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT)
    (void)eg_belief_of(g, t, NULL, e->subject, e->relation, e->object, o->recorded_at, req->scope,
                       a, &resp->belief, &belief_err);
  return EG_OK;
}

/* The outcome under 'O' T edge_id recorded_at; the tenant's clock moves past it. */
eg_code eg_apply_outcome(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__Outcome *o, eg_arena *a,
                         eg_err *err) {
  size_t n = engram__v1__outcome__get_packed_size(o);
  uint8_t *buf = eg_arena_alloc(a, n ? n : 1), k[OUTCOME_KEY_LEN];
  if (!buf) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__outcome__pack(o, buf);
  outcome_prefix(k, ten->id, o->edge_id);
  key_put64(k + 17, key_time(o->recorded_at));
  if (eg_kvtxn_put(txn, CF_DEFAULT, k, sizeof k, buf, n, false))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  if (o->recorded_at > ten->last_tc) ten->last_tc = o->recorded_at;
  return EG_OK;
}

static bool in_set(const uint64_t *v, size_t n, uint64_t x) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

uint64_t eg_outcomes_erase_user(eg_graph *g, eg_kvtxn *txn, uint64_t t, const char *user,
                                const uint64_t *gone, size_t n_gone, eg_arena *a) {
  uint8_t prefix[9];
  prefix[0] = 'O';
  key_put64(prefix + 1, t);
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_DEFAULT, prefix, sizeof prefix);
  uint64_t keys = 0;
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl, vl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    if (kl != OUTCOME_KEY_LEN) continue;
    const char *v = eg_kv_iter_value(it, &vl);
    Engram__V1__Outcome *o = outcome_decode(a, v, vl);
    bool mine = o && strcmp(o->user ? o->user : "", user) == 0;
    if (!mine && !in_set(gone, n_gone, key_get64(k + 9))) continue;
    eg_kvtxn_delete(txn, CF_DEFAULT, k, kl);
    keys++;
  }
  eg_kv_iter_close(it);
  return keys;
}
