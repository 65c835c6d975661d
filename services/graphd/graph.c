/*
 * graph.c — graphd engine lifecycle and the helpers the engine files share: edge and
 * entity loading, merged-entity sets, prefix iteration.
 */
#include <stdlib.h>
#include <string.h>

#include "common/map.h"
#include "common/scope.h"
#include "common/time.h"
#include "services/graphd/graph_int.h"

eg_code eg_graph_open(const char *dir, const eg_graph_limits *limits, eg_metrics *metrics,
                      eg_graph **out, eg_err *err) {
  eg_graph *g = calloc(1, sizeof *g);
  if (!g) return eg_err_set(err, EG_ENOMEM, "out of memory");
  g->limits = *limits;
  if (!g->limits.derive_max_matches) g->limits.derive_max_matches = 1000;
  static const char *const cfs[CF_COUNT] = {"default", "entities",        "names",
                                            "edges",   "edges_by_object", "edges_by_id",
                                            "txlog",   "derivations",     "chunk_entities"};
  eg_code rc = eg_kv_open(dir, cfs, CF_COUNT, limits->warm_cache_entries, "engram_graphd", metrics,
                          &g->store, err);
  if (rc) {
    free(g);
    return rc;
  }
  if (limits->derive_rules && *limits->derive_rules &&
      (rc = eg_drules_load(limits->derive_rules, &g->rules, err))) {
    eg_kv_close(g->store);
    free(g);
    return rc;
  }
  pthread_mutex_init(&g->rmu, NULL);
  g->rel_cache = eg_map_new();
  g->outcome_tenants = eg_map_new();
  g->names = eg_map_new();
  if (metrics) {
    g->m_commits = eg_metric_solo(eg_metrics_counter(metrics, "engram_graphd_commits_total",
                                                     "Commit batches written.", NULL));
    g->m_edges = eg_metric_solo(
        eg_metrics_counter(metrics, "engram_graphd_edges_total", "Edge commits written.", NULL));
    g->m_entities = eg_metric_solo(
        eg_metrics_counter(metrics, "engram_graphd_entities_total", "Entities created.", NULL));
    g->m_walks = eg_metric_solo(eg_metrics_counter(metrics, "engram_graphd_walk_claims_total",
                                                   "Claims checked by the premise walk.", NULL));
    g->m_stale = eg_metric_solo(eg_metrics_counter(metrics, "engram_graphd_walk_stale_total",
                                                   "Claims found POTENTIALLY_STALE.", NULL));
    g->m_outcomes = eg_metric_solo(eg_metrics_counter(metrics, "engram_graphd_outcomes_total",
                                                      "Outcomes recorded on edges.", NULL));
    g->m_derived =
        eg_metric_solo(eg_metrics_counter(metrics, "engram_graphd_derived_total",
                                          "Conclusions asserted by the derivation rules.", NULL));
    g->m_derive_retracted = eg_metric_solo(
        eg_metrics_counter(metrics, "engram_graphd_derive_retracted_total",
                           "Conclusions retracted when their premises no longer held.", NULL));
    g->m_derive_failures = eg_metric_solo(
        eg_metrics_counter(metrics, "engram_graphd_derive_failures_total",
                           "Rule evaluations that failed (logged; the commit stands).", NULL));
    g->m_derive_capped = eg_metric_solo(
        eg_metrics_counter(metrics, "engram_graphd_derive_capped_total",
                           "Commits whose rule evaluation hit derive_max_matches.", NULL));
  }
  *out = g;
  return EG_OK;
}

void eg_graph_close(eg_graph *g) {
  if (!g) return;
  eg_kv_close(g->store);
  eg_drules_free(g->rules);
  eg_map_free(g->rel_cache);
  eg_map_free(g->outcome_tenants);
  eg_names_forget(g);
  eg_map_free(g->names);
  pthread_mutex_destroy(&g->rmu);
  free(g);
}

eg_kv *eg_graph_store(eg_graph *g) { return g->store; }

uint64_t eg_rel_hash(const char *relation) {
  return eg_hash64(relation, strlen(relation), 0x52454c4154494f4eULL);
}

Engram__V1__Edge *eg_edge_decode(eg_arena *a, const void *v, size_t vl) {
  ProtobufCAllocator al = eg_rpc_arena_allocator(a);
  return engram__v1__edge__unpack(&al, vl, v);
}

int64_t eg_bound_or_now(int64_t t) { return t ? t : eg_time_now_us(); }

eg_code eg_ptrvec_push(eg_ptrvec *pv, eg_arena *a, void *p) {
  if (pv->n == pv->cap) {
    size_t nc = pv->cap ? pv->cap * 2 : 8;
    void **nv = eg_arena_alloc(a, nc * sizeof *nv);
    if (!nv) return EG_ENOMEM;
    if (pv->n) memcpy(nv, pv->v, pv->n * sizeof *nv);
    pv->v = nv;
    pv->cap = nc;
  }
  pv->v[pv->n++] = p;
  return EG_OK;
}

eg_code eg_edge_load(eg_graph *g, uint64_t tenant, uint64_t id, eg_arena *a, Engram__V1__Edge **out,
                     eg_err *err) {
  uint8_t k[16];
  KEY2(k, tenant, id);
  char *ek;
  size_t ekl;
  eg_code rc = eg_kv_get(g->store, CF_EDGES_BY_ID, k, 16, &ek, &ekl, err);
  if (rc) return rc;
  char *v;
  size_t vl;
  rc = eg_kv_get(g->store, CF_EDGES, ek, ekl, &v, &vl, err);
  free(ek);
  if (rc) return rc == EG_ENOTFOUND ? eg_err_set(err, EG_ECORRUPT, "edge index is dangling") : rc;
  *out = eg_edge_decode(a, v, vl);
  free(v);
  return *out ? EG_OK : eg_err_set(err, EG_ECORRUPT, "stored edge is corrupt");
}

eg_code eg_entity_load(eg_graph *g, eg_kvtxn *txn, uint64_t tenant, uint64_t id, eg_arena *a,
                       Engram__V1__Entity **out, eg_err *err) {
  uint8_t k[16];
  KEY2(k, tenant, id);
  char *v;
  size_t vl;
  eg_code rc = txn ? eg_kvtxn_get(txn, CF_ENTITIES, k, 16, &v, &vl, err)
                   : eg_kv_get(g->store, CF_ENTITIES, k, 16, &v, &vl, err);
  if (rc) return rc;
  ProtobufCAllocator al = eg_rpc_arena_allocator(a);
  *out = engram__v1__entity__unpack(&al, vl, (const uint8_t *)v);
  free(v);
  return *out ? EG_OK : eg_err_set(err, EG_ECORRUPT, "stored entity is corrupt");
}

eg_code eg_entity_survivor(eg_graph *g, uint64_t tenant, uint64_t id, eg_arena *a,
                           Engram__V1__Entity **out, eg_err *err) {
  for (int hop = 0; hop < 16; hop++) {
    eg_code rc = eg_entity_load(g, NULL, tenant, id, a, out, err);
    if (rc || !(*out)->merged_into) return rc;
    id = (*out)->merged_into;
  }
  return eg_err_set(err, EG_ECORRUPT, "entity merge chain too long");
}

size_t eg_subject_set(eg_graph *g, uint64_t tenant, uint64_t id, eg_arena *a, uint64_t **out) {
  /* Breadth-first over merged_from, bounded. */
  uint64_t *set = eg_arena_alloc(a, 64 * sizeof *set);
  size_t n = 0;
  if (!set) return 0;
  set[n++] = id;
  for (size_t i = 0; i < n && n < 64; i++) {
    Engram__V1__Entity *e;
    if (eg_entity_load(g, NULL, tenant, set[i], a, &e, NULL)) continue;
    for (size_t j = 0; j < e->n_merged_from && n < 64; j++) set[n++] = e->merged_from[j];
  }
  *out = set;
  return n;
}

/* An entity's name is set when it is created and never changed: once read it is kept in
 * g->names (up to NAMES_MAX of them, then they are all forgotten and read again); an
 * erasure forgets them all. The caller gets its own copy in a (NULL when unknown). */
#define NAMES_MAX 65536

static bool free_name(void *ctx, const void *key, size_t klen, void *value) {
  (void)ctx, (void)key, (void)klen;
  free(value);
  return true;
}

static void forget_names_locked(eg_graph *g) {
  eg_map_each(g->names, free_name, NULL);
  eg_map_clear(g->names);
  g->names_gen++;
}

void eg_names_forget(eg_graph *g) {
  pthread_mutex_lock(&g->rmu);
  forget_names_locked(g);
  pthread_mutex_unlock(&g->rmu);
}

static char *entity_name(eg_graph *g, uint64_t tenant, uint64_t id, eg_arena *a) {
  uint8_t k[16];
  KEY2(k, tenant, id);
  pthread_mutex_lock(&g->rmu);
  const char *known = eg_map_get(g->names, k, sizeof k);
  char *name = known ? eg_arena_strdup(a, known) : NULL;
  uint64_t gen = g->names_gen;
  pthread_mutex_unlock(&g->rmu);
  if (known) return name;
  Engram__V1__Entity *ent;
  if (eg_entity_load(g, NULL, tenant, id, a, &ent, NULL) != EG_OK) return NULL;
  char *copy = strdup(ent->name ? ent->name : "");
  /* not kept when the names were forgotten meanwhile: an erasure may have taken it */
  pthread_mutex_lock(&g->rmu);
  if (eg_map_count(g->names) >= NAMES_MAX) forget_names_locked(g);
  if (!copy || gen != g->names_gen || eg_map_get(g->names, k, sizeof k) ||
      eg_map_put(g->names, k, sizeof k, copy))
    free(copy);
  pthread_mutex_unlock(&g->rmu);
  return ent->name;
}

void eg_edge_names(eg_graph *g, uint64_t tenant, Engram__V1__Edge *e, eg_arena *a) {
  char *name;
  if ((!e->subject_name || !*e->subject_name) && (name = entity_name(g, tenant, e->subject, a)))
    e->subject_name = name;
  if (e->object && e->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID &&
      (!e->object_name || !*e->object_name) &&
      (name = entity_name(g, tenant, e->object->entity_id, a)))
    e->object_name = name;
}

bool eg_edge_identity(uint64_t tenant, const Engram__V1__Edge *e, eg_arena *a,
                      uint8_t out[EG_IDENTITY_KEY_LEN]) {
  Engram__V1__Edge id = ENGRAM__V1__EDGE__INIT;
  id.subject = e->subject;
  id.relation = e->relation;
  id.object = e->object;
  id.op = e->op;
  /* A valid_from left to default took the commit's time: as sent, it was unset. */
  id.valid_from = e->valid_from == e->t_commit ? 0 : e->valid_from;
  id.valid_to = e->valid_to;
  id.t_commit = e->imported ? e->t_commit : 0;
  id.imported = e->imported;
  id.derived_from = e->derived_from;
  id.n_derived_from = e->n_derived_from;
  id.meta = e->meta;
  id.user = e->user && *e->user ? e->user : NULL;
  id.agent = e->agent && *e->agent ? e->agent : NULL;
  id.private_ = e->private_;
  size_t n = engram__v1__edge__get_packed_size(&id);
  uint8_t *buf = eg_arena_alloc(a, n ? n : 1);
  if (!buf) return false;
  engram__v1__edge__pack(&id, buf);
  out[0] = 'I';
  KEY3(out + 1, tenant, eg_hash64(buf, n, 0x49444e54u), eg_hash64(buf, n, 0x9e3779b97f4a7c15ULL));
  return true;
}

bool eg_edge_visible(const Engram__V1__Scope *view, const Engram__V1__Edge *e) {
  return eg_scope_sees(view, e->user, e->agent, e->private_);
}

bool eg_value_equal(const Engram__V1__Value *a, const Engram__V1__Value *b) {
  if (!a || !b) return a == b;
  if (a->kind_case != b->kind_case) return false;
  if (a->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID) return a->entity_id == b->entity_id;
  if (a->kind_case == ENGRAM__V1__VALUE__KIND_LITERAL)
    return strcmp(a->literal ? a->literal : "", b->literal ? b->literal : "") == 0;
  return true;
}
