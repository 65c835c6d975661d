/*
 * retention.c — Admin.GetRetention, Admin.SetRetentionPolicy and Admin.SweepRetention
 * (docs/retention.md): ingestd serves them for the whole system and cascades to vectord
 * (chunks, tiers, the sweeper) and graphd (facts), as Admin.Erase does.
 *
 * A store that answers UNIMPLEMENTED (one that predates retention) is left out where the
 * answer does not need it: facts alone are answered by graphd, and a policy is set on
 * the stores that keep one; the audit line names them.
 */
#include "common/retention.h"

#include <stdio.h>
#include <string.h>

#include "common/graph_client.h"
#include "common/log.h"
#include "common/vector_client.h"
#include "services/ingestd/ingest_int.h"

enum { VEC = 0, GRA = 1 };
static const char *const store_names[2] = {"vectord", "graphd"};

static void release(eg_rpc_request *rs, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (rs[i].resp) protobuf_c_message_free_unpacked(rs[i].resp, NULL);
}

/* The error of store i, named. */
static eg_code store_err(const eg_rpc_request *rs, int i, eg_err *err) {
  *err = rs[i].err;
  char prefix[16];
  snprintf(prefix, sizeof prefix, "%s: ", store_names[i]);
  eg_err_prefix(err, prefix);
  return err->code;
}

/* Append the items of r (cloned into a) to resp. */
static eg_code take_items(Engram__V1__GetRetentionResponse *resp,
                          const Engram__V1__GetRetentionResponse *r, eg_arena *a, eg_err *err) {
  for (size_t i = 0; r && i < r->n_items; i++) {
    Engram__V1__RetentionInfo *ri = (void *)eg_rpc_clone(a, &r->items[i]->base);
    if (!ri) return eg_err_set(err, EG_ENOMEM, "out of memory");
    resp->items[resp->n_items++] = ri;
  }
  return EG_OK;
}

eg_code eg_ingest_get_retention(eg_ingest *g, const Engram__V1__GetRetentionRequest *req,
                                eg_arena *a, Engram__V1__GetRetentionResponse *resp, eg_err *err) {
  Engram__V1__GetRetentionResponse *got[2] = {NULL, NULL};
  eg_rpc_request rs[2] = {
      [VEC] = eg_vectord_get_retention_call(eg_ig_vectord(g, req->scope), req, &got[VEC]),
      [GRA] = eg_graphd_get_retention_call(eg_ig_graphd(g, req->scope), req, &got[GRA])};
  size_t n = 2;
  (void)eg_rpc_fanout(rs, n, 0);
  eg_code rc = EG_OK;
  /* vectord answers for chunks, the policy and the tiers, graphd for facts (and the policy
   * it keeps, answered when vectord has none: a tenant it has not seen); without chunks
   * asked, a vectord without retention leaves the tiers out */
  bool vec_missing = rs[VEC].err.code == EG_EUNIMPL && !req->n_chunk_ids;
  if (rs[VEC].err.code && !vec_missing)
    rc = store_err(rs, VEC, err);
  else if (rs[GRA].err.code)
    rc = store_err(rs, GRA, err);
  const Engram__V1__GetRetentionResponse *v = got[VEC], *gr = got[GRA];
  if (!rc) {
    size_t total = (v ? v->n_items : 0) + (gr ? gr->n_items : 0);
    resp->items = eg_arena_calloc(a, total ? total : 1, sizeof *resp->items);
    const Engram__V1__GetRetentionResponse *pol =
        v && v->policy ? v : gr; /* vectord's, else graphd's */
    if (!resp->items)
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    else if (!(rc = take_items(resp, v, a, err)) && !(rc = take_items(resp, gr, a, err)) && pol &&
             pol->policy && !(resp->policy = (void *)eg_rpc_clone(a, &pol->policy->base)))
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && v && i < v->n_tiers; i++) {
      if (!resp->tiers && !(resp->tiers = eg_arena_calloc(a, v->n_tiers, sizeof *resp->tiers)))
        break;
      if (!(resp->tiers[resp->n_tiers] = (void *)eg_rpc_clone(a, &v->tiers[i]->base))) break;
      resp->n_tiers++;
    }
    if (!rc && v && resp->n_tiers < v->n_tiers) rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  release(rs, n);
  return rc;
}

/* The audit line of a policy change: the tenant, the values asked (numbers only, never
 * content), the outcome and the stores that keep it. */
static void audit_policy(const Engram__V1__SetRetentionPolicyRequest *req, const char *stores,
                         eg_code rc) {
  const Engram__V1__RetentionPolicy *p = req->policy;
  Engram__V1__RetentionPolicy none = ENGRAM__V1__RETENTION_POLICY__INIT;
  if (!p) p = &none;
  EG_INFO("audit", "retention_policy",
          "tenant=\"%s\" outcome=%s half_life_days=%g sigma=%g hot_min=%g warm_min=%g hot_max=%llu "
          "warm_max=%llu "
          "evict_cold_after_days=%g prior_weight=%g disabled=%s confirmed=%s stores=%s",
          req->scope->tenant, eg_code_name(rc), p->half_life_days, p->sigma, p->hot_min,
          p->warm_min, (unsigned long long)p->hot_max, (unsigned long long)p->warm_max,
          p->evict_cold_after_days, p->prior_weight, p->disabled ? "true" : "false",
          req->confirm_tenant && *req->confirm_tenant ? "true" : "false",
          *stores ? stores : "none");
}

static eg_code check_policy(const Engram__V1__SetRetentionPolicyRequest *req, eg_err *err) {
  if (!req->policy) return eg_err_set(err, EG_EINVAL, "policy is missing");
  eg_ret_policy p;
  eg_code rc = eg_ret_policy_of(req->policy, &p, err);
  if (rc) return rc;
  if (p.evict_days > 0 &&
      (!req->confirm_tenant || strcmp(req->confirm_tenant, req->scope->tenant) != 0))
    return eg_err_set(
        err, EG_EINVAL,
        "a policy that evicts (policy.evict_cold_after_days > 0) needs confirm_tenant equal to "
        "scope.tenant");
  return EG_OK;
}

eg_code eg_ingest_set_retention_policy(eg_ingest *g,
                                       const Engram__V1__SetRetentionPolicyRequest *req,
                                       eg_arena *a, Engram__V1__SetRetentionPolicyResponse *resp,
                                       eg_err *err) {
  eg_code rc = check_policy(req, err);
  if (rc) {
    audit_policy(req, "", rc);
    return rc;
  }
  Engram__V1__SetRetentionPolicyResponse *set[2] = {NULL, NULL};
  eg_rpc_request rs[2] = {
      [VEC] = eg_vectord_set_retention_policy_call(eg_ig_vectord(g, req->scope), req, &set[VEC]),
      [GRA] = eg_graphd_set_retention_policy_call(eg_ig_graphd(g, req->scope), req, &set[GRA])};
  size_t n = 2;
  (void)eg_rpc_fanout(rs, n, 0);
  char stores[32] = "";
  int kept = -1;
  for (int i = 0; i < 2; i++) {
    if (rs[i].err.code == EG_OK) {
      snprintf(stores + strlen(stores), sizeof stores - strlen(stores), "%s%s", *stores ? "," : "",
               store_names[i]);
      if (kept < 0) kept = i;
    } else if (rs[i].err.code != EG_EUNIMPL && !rc) {
      rc = store_err(rs, i, err);
    }
  }
  if (!rc && kept < 0)
    rc = eg_err_set(err, EG_EUNIMPL, "neither vectord nor graphd keeps a retention policy");
  if (!rc) {
    const Engram__V1__SetRetentionPolicyResponse *r = set[kept];
    if (r->policy && !(resp->policy = (void *)eg_rpc_clone(a, &r->policy->base)))
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  audit_policy(req, stores, rc);
  release(rs, n);
  return rc;
}

eg_code eg_ingest_sweep_retention(eg_ingest *g, const Engram__V1__SweepRetentionRequest *req,
                                  eg_arena *a, Engram__V1__SweepRetentionResponse *resp,
                                  eg_err *err) {
  Engram__V1__SweepRetentionResponse *swept = NULL; /* the sweep is vectord's alone */
  eg_rpc_request rs[1] = {
      [VEC] = eg_vectord_sweep_retention_call(eg_ig_vectord(g, req->scope), req, &swept)};
  size_t n = 1;
  eg_code rc = eg_rpc_fanout(rs, n, 0);
  if (rc)
    rc = store_err(rs, VEC, err);
  else {
    Engram__V1__SweepRetentionResponse *r = (void *)eg_rpc_clone(a, &swept->base);
    if (!r)
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    else
      *resp = *r;
  }
  EG_INFO("audit", "retention_sweep",
          "tenant=\"%s\" outcome=%s at=%lld promoted=%llu demoted=%llu evicted=%llu",
          req->scope->tenant, eg_code_name(rc), (long long)req->at,
          (unsigned long long)resp->promoted, (unsigned long long)resp->demoted,
          (unsigned long long)resp->evicted);
  release(rs, n);
  return rc;
}
