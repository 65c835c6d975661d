/*
 * retention.c — the retention of facts (docs/retention.md): the access history of each
 * edge, the tenant's policy, and R, tier and why for edges on demand.
 *
 * Keys (default column family, keys.h):
 *   'X' T edge_id → the edge's access history (common/retention.h, 48 bytes)
 *   'P' T         → the tenant's retention policy (80 bytes)
 * An access history leaves with its edge (or the tenant) on erasure. It holds times only,
 * never who recalled the edge.
 *
 * Facts are never evicted nor bounded: their tier is a label computed from R when asked,
 * saying how much the fact is in use.
 */
#include "common/retention.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/edge.h"
#include "common/time.h"
#include "services/graphd/graph_int.h"

#define ACCESS_KEY_LEN 17
#define POLICY_KEY_LEN 9
#define MAX_IDS 4096 /* ids in one RecordAccess or GetRetention */

static void access_key(uint8_t k[ACCESS_KEY_LEN], uint64_t t, uint64_t edge_id) {
  k[0] = 'X';
  KEY2(k + 1, t, edge_id);
}

static void policy_key(uint8_t k[POLICY_KEY_LEN], uint64_t t) {
  k[0] = 'P';
  key_put64(k + 1, t);
}

/* The tenant's policy; the defaults when it set none (or the record is unreadable). */
static void policy_load(eg_graph *g, uint64_t t, eg_ret_policy *p) {
  uint8_t k[POLICY_KEY_LEN];
  policy_key(k, t);
  char *v;
  size_t vl;
  bool found = eg_kv_get(g->store, CF_DEFAULT, k, sizeof k, &v, &vl, NULL) == EG_OK;
  if (found) {
    found = eg_ret_policy_decode(v, vl, p);
    free(v);
  }
  if (!found) (void)eg_ret_policy_of(NULL, p, NULL);
}

/* An edge of tenant t the scope may see, or NULL (unknown, erased or another user's). */
static Engram__V1__Edge *visible_edge(eg_graph *g, uint64_t t, uint64_t id,
                                      const Engram__V1__Scope *view, eg_arena *a) {
  Engram__V1__Edge *e = NULL;
  eg_err ignored;
  if (!id || eg_edge_load(g, t, id, a, &e, &ignored) != EG_OK) return NULL;
  return eg_edge_visible(view, e) ? e : NULL;
}

static eg_code check_ids(size_t n, const char *what, eg_err *err) {
  if (n > MAX_IDS)
    return eg_err_set(err, EG_EINVAL, "%s: at most %d ids in one call", what, MAX_IDS);
  return EG_OK;
}

eg_code eg_graph_record_access(eg_graph *g, const Engram__V1__RecordAccessRequest *req, eg_arena *a,
                               Engram__V1__RecordAccessResponse *resp, eg_err *err) {
  eg_code rc = check_ids(req->n_ids, "ids", err);
  if (rc) return rc;
  if (req->time < 0) return eg_err_set(err, EG_EINVAL, "time must not be negative");
  uint64_t t;
  if (!req->n_ids || eg_kv_tenant_id(g->store, req->scope->tenant, &t) != EG_OK) return EG_OK;
  int64_t when = req->time ? req->time : eg_time_now_us();
  /* Visibility is read outside the write lock; the writes are one batch. */
  bool *keep = eg_arena_calloc(a, req->n_ids, sizeof *keep);
  if (!keep) return eg_err_set(err, EG_ENOMEM, "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < req->n_ids; i++)
    n += keep[i] = visible_edge(g, t, req->ids[i], req->scope, a) != NULL;
  if (!n) return EG_OK;
  Engram__V1__GraphStep *st = eg_step_new(a, ENGRAM__V1__GRAPH_STEP__STEP_ACCESS);
  Engram__V1__AccessRecord *ar = eg_arena_calloc(a, 1, sizeof *ar);
  uint64_t *ids = eg_arena_alloc(a, n * sizeof *ids);
  if (!st || !ar || !ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__access_record__init(ar);
  for (size_t i = 0; i < req->n_ids; i++)
    if (keep[i]) ids[ar->n_edge_ids++] = req->ids[i];
  ar->edge_ids = ids;
  ar->time = when;
  st->access = ar;
  eg_gwrite w;
  if ((rc = eg_gwrite_begin(g, req->scope->tenant, req->scope->user, false, a, &w, err)) ||
      (rc = eg_gwrite_last(&w, st, err)))
    return rc;
  resp->recorded = (uint32_t)n;
  return EG_OK;
}

/* Each edge's access history gains one access (a repeated id, one per time it is named). */
eg_code eg_apply_access(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__AccessRecord *r,
                        eg_err *err) {
  for (size_t i = 0; i < r->n_edge_ids; i++) {
    uint8_t k[ACCESS_KEY_LEN], v[EG_RET_ENCODED];
    access_key(k, ten->id, r->edge_ids[i]);
    eg_access acc;
    char *old;
    size_t ol;
    memset(&acc, 0, sizeof acc);
    if (eg_kvtxn_get(txn, CF_DEFAULT, k, sizeof k, &old, &ol, NULL) == EG_OK) {
      if (!eg_access_decode(old, ol, &acc))
        memset(&acc, 0, sizeof acc); /* unreadable: start again */
      free(old);
    }
    eg_access_add(&acc, r->time);
    eg_access_encode(&acc, v);
    /* visible: a repeated id in this batch, or the next batch, reads it back */
    if (eg_kvtxn_put(txn, CF_DEFAULT, k, sizeof k, v, sizeof v, true))
      return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  return EG_OK;
}

eg_code eg_apply_retention_policy(eg_kvtxn *txn, eg_tenant *ten,
                                  const Engram__V1__RetentionPolicy *p, eg_err *err) {
  eg_ret_policy pol;
  eg_code rc = eg_ret_policy_of(p, &pol, err);
  if (rc) return rc;
  uint8_t k[POLICY_KEY_LEN], v[EG_RET_POLICY_ENCODED];
  eg_ret_policy_encode(&pol, v);
  policy_key(k, ten->id);
  return eg_kvtxn_put(txn, CF_DEFAULT, k, sizeof k, v, sizeof v, true)
             ? eg_err_set(err, EG_ENOMEM, "out of memory")
             : EG_OK;
}

/* The words the salience lexicon reads for a fact: the relation with spaces, and the
 * object ("ALLERGIC_TO" peanuts → "ALLERGIC TO peanuts"). */
static char *fact_words(eg_graph *g, uint64_t t, Engram__V1__Edge *e, eg_arena *a) {
  eg_edge_names(g, t, e, a);
  char *s = eg_arena_sprintf(a, "%s %s", e->relation ? e->relation : "", eg_edge_object(e));
  for (char *p = s; p && *p; p++)
    if (*p == '_') *p = ' ';
  return s;
}

static Engram__V1__RetentionInfo *fact_info(eg_graph *g, uint64_t t, Engram__V1__Edge *e,
                                            const eg_ret_policy *p, int64_t at, eg_arena *a) {
  Engram__V1__RetentionInfo *ri = eg_arena_calloc(a, 1, sizeof *ri);
  char *why = eg_arena_alloc(a, 256);
  if (!ri || !why) return NULL;
  engram__v1__retention_info__init(ri);
  ri->id = e->id;
  ri->kind = "fact";
  double salience = 0;
  if (e->meta && e->meta->salience > 0) {
    salience = e->meta->salience;
    ri->salience_source = "client";
  } else {
    const char *src;
    char *words = fact_words(g, t, e, a);
    if (!words) return NULL;
    salience = eg_salience_of(words, &src);
    ri->salience_source = (char *)src;
  }
  uint8_t k[ACCESS_KEY_LEN];
  access_key(k, t, e->id);
  eg_access acc;
  memset(&acc, 0, sizeof acc);
  char *v;
  size_t vl;
  if (eg_kv_get(g->store, CF_DEFAULT, k, sizeof k, &v, &vl, NULL) == EG_OK) {
    if (!eg_access_decode(v, vl, &acc)) memset(&acc, 0, sizeof acc);
    free(v);
  }
  eg_ret_info_fill(ri, p, salience, e->t_commit, &acc, at, 0, false, why,
                   256); /* facts: the tier R asks for */
  return ri;
}

static eg_code policy_out(const eg_ret_policy *p, eg_arena *a, Engram__V1__RetentionPolicy **out,
                          eg_err *err) {
  *out = eg_arena_calloc(a, 1, sizeof **out);
  if (!*out) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_ret_policy_msg(p, *out);
  return EG_OK;
}

eg_code eg_graph_get_retention(eg_graph *g, const Engram__V1__GetRetentionRequest *req, eg_arena *a,
                               Engram__V1__GetRetentionResponse *resp, eg_err *err) {
  eg_code rc = check_ids(req->n_edge_ids, "edge_ids", err);
  if (rc) return rc;
  if (req->at < 0) return eg_err_set(err, EG_EINVAL, "at must not be negative");
  int64_t at = req->at ? req->at : eg_time_now_us();
  eg_ret_policy p;
  uint64_t t;
  bool known = eg_kv_tenant_id(g->store, req->scope->tenant, &t) == EG_OK;
  if (known)
    policy_load(g, t, &p);
  else
    (void)eg_ret_policy_of(NULL, &p, NULL);
  if ((rc = policy_out(&p, a, &resp->policy, err))) return rc;
  if (!known || !req->n_edge_ids) return EG_OK;
  resp->items = eg_arena_calloc(a, req->n_edge_ids, sizeof *resp->items);
  if (!resp->items) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < req->n_edge_ids; i++) {
    Engram__V1__Edge *e = visible_edge(g, t, req->edge_ids[i], req->scope, a);
    if (!e) continue; /* unknown or not the scope's to see: absent */
    Engram__V1__RetentionInfo *ri = fact_info(g, t, e, &p, at, a);
    if (!ri) return eg_err_set(err, EG_ENOMEM, "out of memory");
    resp->items[resp->n_items++] = ri;
  }
  return EG_OK;
}

eg_code eg_graph_set_retention_policy(eg_graph *g, const Engram__V1__SetRetentionPolicyRequest *req,
                                      eg_arena *a, Engram__V1__SetRetentionPolicyResponse *resp,
                                      eg_err *err) {
  if (!req->policy) return eg_err_set(err, EG_EINVAL, "policy is missing");
  eg_ret_policy p;
  eg_code rc = eg_ret_policy_of(req->policy, &p, err);
  if (rc) return rc;
  /* recorded with its defaults filled, so that a later change of a default does not
   * change what a replica applies */
  Engram__V1__GraphStep *st = eg_step_new(a, ENGRAM__V1__GRAPH_STEP__STEP_RETENTION_POLICY);
  if (!st) return eg_err_set(err, EG_ENOMEM, "out of memory");
  if ((rc = policy_out(&p, a, &st->retention_policy, err))) return rc;
  eg_gwrite w;
  if ((rc = eg_gwrite_begin(g, req->scope->tenant, req->scope->user, false, a, &w, err)) ||
      (rc = eg_gwrite_last(&w, st, err)))
    return rc;
  return policy_out(&p, a, &resp->policy, err);
}

uint64_t eg_retention_erase_edges(eg_kvtxn *txn, uint64_t t, const uint64_t *gone, size_t n_gone) {
  uint64_t n = 0;
  for (size_t i = 0; i < n_gone; i++) {
    uint8_t k[ACCESS_KEY_LEN];
    access_key(k, t, gone[i]);
    char *v;
    size_t vl;
    if (eg_kvtxn_get(txn, CF_DEFAULT, k, sizeof k, &v, &vl, NULL) != EG_OK) continue;
    free(v);
    eg_kvtxn_delete(txn, CF_DEFAULT, k, sizeof k);
    n++;
  }
  return n;
}
