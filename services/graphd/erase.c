/*
 * erase.c — Erase(scope): remove every key of a tenant, or of one user inside it, in
 * one atomic transaction, and record an audit entry that holds counts only (no names,
 * no content).
 *
 * A user's erasure removes the edges that user wrote (with every index entry pointing
 * at them), the outcomes recorded on them or by that user, their access histories
 * (retention.c), and the entities that user created which no remaining edge still uses.
 * A tenant's erasure also removes its retention policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/text.h"
#include "common/time.h"
#include "services/graphd/graph_int.h"

typedef eg_erase_counts erase_counts;

static uint64_t count_prefix(eg_graph *g, int cf, const uint8_t *prefix, size_t plen) {
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, cf, prefix, plen);
  uint64_t n = 0;
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) n++;
  eg_kv_iter_close(it);
  return n;
}

/* Delete [prefix, prefix+1) in cf, counting the keys first. */
static void drop_prefix(eg_graph *g, eg_kvtxn *txn, int cf, const uint8_t *prefix, size_t plen,
                        erase_counts *c) {
  uint8_t upper[32];
  memcpy(upper, prefix, plen);
  size_t ul = plen;
  while (ul > 0 && upper[ul - 1] == 0xFF) ul--;
  if (!ul) return;
  upper[ul - 1]++;
  c->keys += count_prefix(g, cf, prefix, plen);
  eg_kvtxn_delete_range(txn, cf, prefix, plen, upper, ul);
}

static eg_code erase_tenant(eg_graph *g, eg_kvtxn *txn, const char *name, uint64_t t,
                            erase_counts *c) {
  uint8_t p[9];
  key_put64(p, t);
  c->edges = count_prefix(g, CF_EDGES_BY_ID, p, 8);
  c->entities = count_prefix(g, CF_ENTITIES, p, 8);
  for (int cf = CF_ENTITIES; cf < CF_COUNT; cf++) drop_prefix(g, txn, cf, p, 8, c);
  uint8_t xp[9] = {'X'};
  key_put64(xp + 1, t);
  c->accesses = count_prefix(g, CF_DEFAULT, xp, sizeof xp);
  static const char meta[] = {'C', 'H', 'R', 'M', 'I', 'O', 'X', 'P'};
  for (size_t i = 0; i < sizeof meta; i++) {
    p[0] = (uint8_t)meta[i];
    key_put64(p + 1, t);
    drop_prefix(g, txn, CF_DEFAULT, p, 9, c);
  }
  eg_kvtxn_forget_tenant(txn, name);
  c->keys++;
  c->tenant_gone = true;
  return EG_OK;
}

static bool in_set(const uint64_t *v, size_t n, uint64_t x) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

/* Does any edge not in `gone` use entity e (as subject or object)? */
static bool entity_in_use(eg_graph *g, uint64_t t, uint64_t e, const uint64_t *gone, size_t ngone) {
  uint8_t p[16];
  KEY2(p, t, e);
  bool used = false;
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_EDGES, p, 16);
  for (; eg_kv_iter_valid(it) && !used; eg_kv_iter_next(it)) {
    size_t kl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    used = kl == EDGE_KEY_LEN && !in_set(gone, ngone, key_get64(k + 40));
  }
  eg_kv_iter_close(it);
  it = eg_kv_iter_prefix(g->store, CF_EDGES_BY_OBJECT, p, 16);
  for (; eg_kv_iter_valid(it) && !used; eg_kv_iter_next(it)) {
    size_t kl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    used = kl == 40 && !in_set(gone, ngone, key_get64(k + 32));
  }
  eg_kv_iter_close(it);
  return used;
}

/* Remove entity id from the names list of one name. */
static void unname(eg_kvtxn *txn, uint64_t t, const char *name, uint64_t id, eg_arena *a,
                   erase_counts *c) {
  char *norm = eg_text_normalize(a, name, strlen(name));
  if (!norm || !*norm || strlen(norm) > 1000) return;
  uint8_t k[1100];
  key_put64(k, t);
  size_t kl = 8 + strlen(norm);
  memcpy(k + 8, norm, kl - 8);
  char *v;
  size_t vl;
  if (eg_kvtxn_get(txn, CF_NAMES, k, kl, &v, &vl, NULL) != EG_OK) return;
  size_t o = 0;
  for (size_t i = 0; i + 9 <= vl; i += 9)
    if (key_get64((uint8_t *)v + i) != id) memmove(v + o, v + i, 9), o += 9;
  if (o)
    eg_kvtxn_put(txn, CF_NAMES, k, kl, v, o, true);
  else
    eg_kvtxn_delete(txn, CF_NAMES, k, kl);
  c->keys++;
  free(v);
}

static eg_code erase_user(eg_graph *g, eg_kvtxn *txn, uint64_t t, const char *user, eg_arena *a,
                          erase_counts *c, eg_err *err) {
  uint8_t p[8];
  key_put64(p, t);
  eg_ptrvec gone_edges = {0}, touched = {0};
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_EDGES_BY_ID, p, 8);
  eg_code rc = EG_OK;
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl, ekl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    const char *ek = eg_kv_iter_value(it, &ekl);
    char *v;
    size_t vl;
    if (kl != 16 || eg_kv_get(g->store, CF_EDGES, ek, ekl, &v, &vl, NULL) != EG_OK) continue;
    Engram__V1__Edge *e = eg_edge_decode(a, v, vl);
    free(v);
    if (!e || strcmp(e->user ? e->user : "", user) != 0) continue;
    uint8_t key[48];
    uint64_t r = eg_rel_hash(e->relation);
    eg_kvtxn_delete(txn, CF_EDGES, ek, ekl);
    eg_kvtxn_delete(txn, CF_EDGES_BY_ID, k, kl);
    eg_kvtxn_delete(txn, CF_TXLOG, key, KEY3(key, t, key_time(e->t_commit), e->id));
    c->keys += 3;
    bool obj_ent = e->object && e->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID;
    if (obj_ent) {
      eg_kvtxn_delete(txn, CF_EDGES_BY_OBJECT, key,
                      KEY5(key, t, e->object->entity_id, r, e->subject, e->id));
      c->keys++;
    }
    for (size_t j = 0; j < e->n_derived_from; j++, c->keys++)
      eg_kvtxn_delete(txn, CF_DERIVATIONS, key, KEY3(key, t, e->derived_from[j], e->id));
    uint8_t dp[16];
    KEY2(dp, t, e->id);
    drop_prefix(g, txn, CF_DERIVATIONS, dp, 16, c); /* where it was a premise */
    if (e->meta && e->meta->source_chunk_id) {
      uint8_t cp[16];
      KEY2(cp, t, e->meta->source_chunk_id);
      drop_prefix(g, txn, CF_CHUNK_ENTITIES, cp, 16, c);
    }
    uint8_t hk[25];
    hk[0] = 'H';
    KEY3(hk + 1, t, e->subject, r);
    char *hv;
    size_t hvl;
    if (eg_kvtxn_get(txn, CF_DEFAULT, hk, 25, &hv, &hvl, NULL) == EG_OK) {
      if (hvl == 8 && key_get64((uint8_t *)hv) == e->id) eg_kvtxn_delete(txn, CF_DEFAULT, hk, 25);
      free(hv);
    }
    uint8_t ik[EG_IDENTITY_KEY_LEN];
    if (eg_edge_identity(t, e, a, ik) &&
        eg_kvtxn_get(txn, CF_DEFAULT, ik, sizeof ik, &hv, &hvl, NULL) == EG_OK) {
      if (hvl == 8 && key_get64((uint8_t *)hv) == e->id)
        eg_kvtxn_delete(txn, CF_DEFAULT, ik, sizeof ik);
      free(hv);
      c->keys++;
    }
    eg_ptrvec_push(&gone_edges, a, (void *)(uintptr_t)e->id);
    eg_ptrvec_push(&touched, a, (void *)(uintptr_t)e->subject);
    if (obj_ent) eg_ptrvec_push(&touched, a, (void *)(uintptr_t)e->object->entity_id);
    c->edges++;
  }
  eg_kv_iter_close(it);
  uint64_t *gone = eg_arena_alloc(a, (gone_edges.n ? gone_edges.n : 1) * sizeof *gone);
  if (!gone) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < gone_edges.n; i++) gone[i] = (uint64_t)(uintptr_t)gone_edges.v[i];
  /* Outcomes the user recorded, and every outcome on the user's edges. */
  c->keys += eg_outcomes_erase_user(g, txn, t, user, gone, gone_edges.n, a);
  c->accesses = eg_retention_erase_edges(txn, t, gone, gone_edges.n);
  c->keys += c->accesses;
  /* The user's chunks' links to entities (their value names the writer). */
  it = eg_kv_iter_prefix(g->store, CF_CHUNK_ENTITIES, p, 8);
  size_t ul = strlen(user);
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl, vl;
    const char *k = eg_kv_iter_key(it, &kl);
    const char *v = eg_kv_iter_value(it, &vl);
    if (vl == ul && memcmp(v, user, ul) == 0) {
      eg_kvtxn_delete(txn, CF_CHUNK_ENTITIES, k, kl);
      c->keys++;
    }
  }
  eg_kv_iter_close(it);
  /* Entities the user created that nothing else uses any more. Also the user's own
   * entities that no edge touched. */
  it = eg_kv_iter_prefix(g->store, CF_ENTITIES, p, 8);
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl, vl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    const char *v = eg_kv_iter_value(it, &vl);
    ProtobufCAllocator al = eg_rpc_arena_allocator(a);
    Engram__V1__Entity *e = engram__v1__entity__unpack(&al, vl, (const uint8_t *)v);
    if (!e || kl != 16 || strcmp(e->created_by ? e->created_by : "", user) != 0) continue;
    if (entity_in_use(g, t, e->id, gone, gone_edges.n)) {
      eg_ptrvec_push(&c->kept, a, e);
      continue;
    }
    eg_kvtxn_delete(txn, CF_ENTITIES, k, kl);
    c->keys++;
    unname(txn, t, e->name, e->id, a, c);
    for (size_t j = 0; j < e->n_aliases; j++) unname(txn, t, e->aliases[j], e->id, a, c);
    uint8_t cp[16];
    KEY2(cp, t, e->id);
    c->entities++;
  }
  eg_kv_iter_close(it);
  return rc;
}

/* Remove what the erasure names, as decided from the durable state (the transaction is
 * settled), and write its audit entry: when, what kind, counts — no tenant or user name,
 * no content. */
eg_code eg_apply_erasure(eg_graph *g, eg_kvtxn *txn, const char *tenant, eg_tenant *ten,
                         const Engram__V1__Erasure *er, eg_arena *a, erase_counts *c, eg_err *err) {
  uint64_t t = ten->id;
  bool whole = !er->user || !*er->user;
  memset(c, 0, sizeof *c);
  eg_code rc =
      whole ? erase_tenant(g, txn, tenant, t, c) : erase_user(g, txn, t, er->user, a, c, err);
  if (rc) return rc;
  for (size_t i = 0; !whole && i < er->n_counters && i < EG_KV_COUNTERS; i++)
    if (er->counters[i] > ten->counter[i]) ten->counter[i] = er->counters[i];
  uint8_t ak[17];
  ak[0] = 'A';
  key_put64(ak + 1, key_time(er->at));
  key_put64(ak + 9, t);
  char av[200];
  int al = snprintf(av, sizeof av, "kind=%s edges=%llu entities=%llu access_records=%llu keys=%llu",
                    whole ? "tenant" : "user", (unsigned long long)c->edges,
                    (unsigned long long)c->entities, (unsigned long long)c->accesses,
                    (unsigned long long)c->keys);
  eg_kvtxn_put(txn, CF_DEFAULT, ak, 17, av, (size_t)al, false);
  return EG_OK;
}

void eg_erasure_done(eg_graph *g, uint64_t tenant) {
  pthread_mutex_lock(&g->rmu);
  eg_map_clear(g->rel_cache);
  eg_map_clear(g->outcome_tenants);
  pthread_mutex_unlock(&g->rmu);
  eg_names_forget(g);
  eg_kv_purge_tenant(g->store, tenant); /* the values leave the files, not only the index */
}

eg_code eg_graph_erase(eg_graph *g, const Engram__V1__EraseRequest *req, eg_arena *a,
                       Engram__V1__EraseResponse *resp, eg_err *err) {
  const char *tenant = req->scope->tenant, *user = req->scope->user;
  bool whole = !user || !*user;
  if (whole && (!req->confirm_tenant || strcmp(req->confirm_tenant, tenant) != 0))
    return eg_err_set(err, EG_EINVAL,
                      "erasing a whole tenant needs confirm_tenant equal to scope.tenant");
  erase_counts c = {0};
  uint64_t t;
  eg_code rc = EG_OK;
  int64_t now = eg_time_now_us();
  if (eg_kv_tenant_id(g->store, tenant, &t) == EG_OK) {
    Engram__V1__GraphStep *st = eg_step_new(a, ENGRAM__V1__GRAPH_STEP__STEP_ERASURE);
    Engram__V1__Erasure *er = eg_arena_calloc(a, 1, sizeof *er);
    if (!st || !er) return eg_err_set(err, EG_ENOMEM, "out of memory");
    engram__v1__erasure__init(er);
    er->user = (char *)(whole ? "" : user);
    er->at = now;
    st->erasure = er;
    /* settled: the erasure decides what to remove from everything written before it */
    eg_gwrite w;
    if ((rc = eg_gwrite_begin(g, tenant, user, true, a, &w, err))) return rc;
    rc = eg_gwrite_step(&w, st, err);
    /* The entities the user made that others use stay: the record states them, since the
     * user's own records that made them cannot be read once the user's key is shredded. */
    for (size_t i = 0; i < w.erased.kept.n && !rc; i++)
      rc = eg_gwrite_restate_entity(&w, w.erased.kept.v[i], err);
    if (rc) {
      eg_gwrite_abort(&w);
      return rc;
    }
    if (!whole) { /* the counters the user's skipped records moved */
      er->counters = w.ten->counter;
      er->n_counters = EG_KV_COUNTERS;
    }
    if ((rc = eg_gwrite_commit(&w, err))) return rc;
    c = w.erased;
  }
  EG_INFO("erase", "erased", "kind=%s edges=%llu entities=%llu access_records=%llu keys=%llu",
          whole ? "tenant" : "user", (unsigned long long)c.edges, (unsigned long long)c.entities,
          (unsigned long long)c.accesses, (unsigned long long)c.keys);
  static const char *kinds[4] = {"edges", "entities", "access_records", "keys"};
  uint64_t vals[4] = {c.edges, c.entities, c.accesses, c.keys};
  resp->counts = eg_arena_calloc(a, 4, sizeof *resp->counts);
  if (!resp->counts) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (int i = 0; i < 4; i++) {
    Engram__V1__EraseCount *ec = eg_arena_calloc(a, 1, sizeof *ec);
    if (!ec) return eg_err_set(err, EG_ENOMEM, "out of memory");
    engram__v1__erase_count__init(ec);
    ec->store = "graph";
    ec->kind = (char *)kinds[i];
    ec->count = vals[i];
    resp->counts[resp->n_counts++] = ec;
  }
  resp->erased_at = now;
  return EG_OK;
}
