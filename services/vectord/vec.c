/*
 * vec.c — vectord engine lifecycle, per-tenant in-memory indexes and how they are
 * (re)built: loaded from the chunk store on first use, switched to HNSW in the
 * background past a size, snapshotted, and replayed from the store on start.
 */
#include <faiss/c_api/AutoTune_c.h>
#include <faiss/c_api/error_c.h>
#include <faiss/c_api/impl/AuxIndexStructures_c.h>
#include <faiss/c_api/index_factory_c.h>
#include <faiss/c_api/index_io_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/rpc.h"
#include "common/time.h"
#include "lang/concepts.h"
#include "services/vectord/qcache.h"
#include "services/vectord/vec_int.h"

#define LOAD_BATCH 4096
#define CONCEPT_DEPTH 3 /* hypernym levels above a noun ("violin" … "musical instrument") */

vdoc eg_vdoc_of(const Engram__V1__Chunk *c) {
  const Engram__V1__Scope *s = c->scope;
  return (vdoc){.chunk_id = c->id,
                .time = c->time,
                .stored_at = c->stored_at,
                .session_h = eg_str_hash(c->session_id),
                .document_h = eg_str_hash(c->document_id),
                .role_h = eg_str_hash(c->role),
                .user_h = eg_str_hash(s ? s->user : NULL),
                .agent_h = eg_str_hash(s ? s->agent : NULL),
                .entities = c->entity_ids,
                .n_entities = (uint32_t)c->n_entity_ids,
                .turn = c->turn_index,
                .private_ = s && s->private_,
                .live = true,
                .staged = c->staged,
                .tier = EG_TIER_HOT,
                .salience = c->salience > 0 ? c->salience : 0.5f,
                .tier_since = c->stored_at};
}

uint64_t eg_str_hash(const char *s) {
  if (!s || !*s) return 0;
  uint64_t h = eg_hash64(s, strlen(s), 0x5345534953ULL);
  return h ? h : 1;
}

static const char *faiss_err(void) {
  const char *e = faiss_get_last_error();
  return e ? e : "unknown FAISS error";
}

/* ---- tokenizers ---------------------------------------------------------------------- */

const struct eg_concepts *eg_vt_concepts(eg_vec *v) {
  if (v->o.bm25_concepts <= 0) return NULL;
  pthread_mutex_lock(&v->cmu);
  if (!v->concepts_tried) {
    v->concepts_tried = true;
    eg_err err = {0};
    if (eg_concepts_open(v->o.wordnet_dir, CONCEPT_DEPTH, &v->concepts, &err))
      EG_WARN("vec", "no WordNet concepts in BM25", "error=\"%s\"", err.msg);
  }
  pthread_mutex_unlock(&v->cmu);
  return v->concepts;
}

eg_tokenizer *eg_vt_tokenizer(eg_vec *v) {
  pthread_mutex_lock(&v->tokmu);
  eg_tokenizer *t = v->n_tok_free ? v->tok_free[--v->n_tok_free] : NULL;
  pthread_mutex_unlock(&v->tokmu);
  return t ? t : eg_tokenizer_new(EG_TOK_STEM);
}

void eg_vt_tokenizer_put(eg_vec *v, eg_tokenizer *t) {
  if (!t) return;
  pthread_mutex_lock(&v->tokmu);
  if (v->n_tok_free < 16) {
    v->tok_free[v->n_tok_free++] = t;
    t = NULL;
  }
  pthread_mutex_unlock(&v->tokmu);
  eg_tokenizer_free(t);
}

/* ---- stored encodings ------------------------------------------------------------------ */

size_t eg_terms_decode(const char *v, size_t vl, eg_arena *a, eg_bm25_term **out,
                       uint32_t *doclen) {
  if (vl < 4) return 0;
  memcpy(doclen, v, 4);
  size_t n = 0, cap = 64;
  eg_bm25_term *terms = eg_arena_alloc(a, cap * sizeof *terms);
  for (size_t o = 4; terms && o < vl;) {
    uint8_t len = (uint8_t)v[o++];
    if (o + len + 2 > vl) break;
    if (n == cap) {
      eg_bm25_term *nt = eg_arena_alloc(a, cap * 2 * sizeof *nt);
      if (!nt) break;
      memcpy(nt, terms, n * sizeof *nt);
      terms = nt;
      cap *= 2;
    }
    terms[n].term = eg_arena_strndup(a, v + o, len);
    uint16_t tf;
    memcpy(&tf, v + o + len, 2);
    terms[n++].tf = tf;
    o += len + 2u;
  }
  *out = terms;
  return n;
}

uint8_t *eg_chunk_encode(eg_arena *a, const Engram__V1__Chunk *c, uint64_t slot, size_t *len) {
  size_t pl = engram__v1__chunk__get_packed_size(c);
  uint8_t *buf = eg_arena_alloc(a, 8 + pl);
  if (!buf) return NULL;
  key_put64(buf, slot);
  engram__v1__chunk__pack(c, buf + 8);
  *len = 8 + pl;
  return buf;
}

Engram__V1__Chunk *eg_chunk_decode(eg_arena *a, const char *v, size_t vl, uint64_t *slot) {
  if (vl < 8) return NULL;
  *slot = key_get64((const uint8_t *)v);
  ProtobufCAllocator al = eg_rpc_arena_allocator(a);
  return engram__v1__chunk__unpack(&al, vl - 8, (const uint8_t *)v + 8);
}

/* ---- dense indexes ------------------------------------------------------------------- */

FaissIndex *eg_vt_new_index(eg_vec *v, int dim, bool hnsw) {
  FaissIndex *ix = NULL;
  const char *spec = hnsw ? "IDMap2,HNSW32,Flat" : "IDMap2,Flat";
  if (faiss_index_factory(&ix, dim, spec, METRIC_INNER_PRODUCT) != 0) {
    EG_ERROR("vec", "faiss index_factory failed", "error=\"%s\"", faiss_err());
    return NULL;
  }
  if (hnsw) {
    FaissParameterSpace *ps = NULL;
    if (faiss_ParameterSpace_new(&ps) == 0) {
      if (faiss_ParameterSpace_set_index_parameter(ps, ix, "efSearch", v->o.hnsw_ef_search) != 0)
        EG_WARN("vec", "cannot set efSearch", "error=\"%s\"", faiss_err());
      faiss_ParameterSpace_free(ps);
    }
  }
  return ix;
}

bool eg_vt_vector(vtenant *t, int field, uint32_t slot, float *out) {
  uint8_t tier = slot < t->n_slots ? t->docs[slot].tier : EG_TIER_HOT;
  FaissIndex *ix = eg_vt_indexed(tier) ? t->dense[field] : NULL;
  return ix && faiss_Index_reconstruct(ix, (idx_t)slot, out) == 0;
}

static eg_code ensure_slots(vtenant *t, uint32_t slot) {
  if (slot < t->cap_slots) return EG_OK;
  size_t nc = t->cap_slots ? t->cap_slots : 1024;
  while (nc <= slot) nc *= 2;
  vdoc *nd = realloc(t->docs, nc * sizeof *nd);
  if (!nd) return EG_ENOMEM;
  memset(nd + t->cap_slots, 0, (nc - t->cap_slots) * sizeof *nd);
  t->docs = nd;
  t->cap_slots = nc;
  return EG_OK;
}

eg_code eg_vt_add_vectors(eg_vec *v, vtenant *t, const uint32_t *slots, const float *vecs, size_t n,
                          eg_err *err) {
  if (!n) return EG_OK;
  FaissIndex **pair = t->dense;
  size_t d = (size_t)t->dim;
  float *field = malloc(n * d * sizeof *field);
  idx_t *ids = malloc(n * sizeof *ids);
  eg_code rc = field && ids ? EG_OK : eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < n; i++) ids[i] = slots[i];
  for (int f = 0; !rc && f < N_FIELDS; f++) {
    if (!pair[f] && !(pair[f] = eg_vt_new_index(v, t->dim, t->hnsw))) {
      rc = eg_err_set(err, EG_EINTERNAL, "cannot create a dense index");
      break;
    }
    for (size_t i = 0; i < n; i++)
      memcpy(field + i * d, vecs + (i * N_FIELDS + (size_t)f) * d, d * sizeof *field);
    if (faiss_Index_add_with_ids(pair[f], (idx_t)n, field, ids) != 0)
      rc = eg_err_set(err, EG_EINTERNAL, "dense index add failed");
  }
  free(field);
  free(ids);
  return rc;
}

eg_code eg_vt_add(eg_vec *v, vtenant *t, uint32_t slot, const vdoc *doc, const float *vecs,
                  const eg_bm25_term *terms, size_t n_terms, uint32_t doclen, eg_err *err) {
  if (ensure_slots(t, slot)) return eg_err_set(err, EG_ENOMEM, "out of memory");
  if (vecs) {
    eg_code rc = eg_vt_add_vectors(v, t, &slot, vecs, 1, err);
    if (rc) return rc;
  }
  if (eg_bm25_add(eg_vt_bm25(t, doc->tier), slot, terms, n_terms, doclen) != EG_OK)
    return eg_err_set(err, EG_ENOMEM, "BM25 add failed");
  vdoc *d = &t->docs[slot];
  *d = *doc;
  d->entities = NULL;
  if (doc->n_entities) {
    d->entities = malloc(doc->n_entities * sizeof *d->entities);
    if (d->entities)
      memcpy(d->entities, doc->entities, doc->n_entities * sizeof *d->entities);
    else
      d->n_entities = 0;
  }
  d->live = true;
  t->n_tier[d->tier]++;
  t->shared += !d->user_h;
  t->private_ += d->private_;
  if (d->user_h) { /* the user's slot list */
    vslots *us = eg_map_get(t->by_user, &d->user_h, 8);
    if (!us && (us = calloc(1, sizeof *us)) && eg_map_put(t->by_user, &d->user_h, 8, us)) {
      free(us);
      us = NULL;
    }
    if (us && us->n == us->cap) {
      size_t nc = us->cap ? us->cap * 2 : 16;
      uint32_t *nv = realloc(us->v, nc * sizeof *nv);
      if (nv) us->v = nv, us->cap = nc;
    }
    if (us && us->n < us->cap) us->v[us->n++] = slot;
  }
  uint64_t v1 = (uint64_t)slot + 1;
  eg_map_put(t->by_chunk, &doc->chunk_id, 8, (void *)(uintptr_t)v1);
  if (slot >= t->n_slots) t->n_slots = slot + 1;
  t->live++;
  return EG_OK;
}

void eg_vt_remove_doc(eg_vec *v, vtenant *t, uint32_t slot, bool keep_vectors) {
  (void)v;
  if (slot >= t->n_slots || !t->docs[slot].live) return;
  vdoc *d = &t->docs[slot];
  d->live = false;
  t->shared -= !d->user_h;
  t->private_ -= d->private_;
  vslots *us = d->user_h ? eg_map_get(t->by_user, &d->user_h, 8) : NULL;
  for (size_t i = 0; us && i < us->n; i++)
    if (us->v[i] == slot) {
      us->v[i] = us->v[--us->n];
      break;
    }
  free(d->entities);
  d->entities = NULL;
  d->n_entities = 0;
  eg_map_del(t->by_chunk, &d->chunk_id, 8);
  eg_bm25_remove(eg_vt_bm25(t, d->tier), slot);
  t->live--;
  t->n_tier[d->tier]--;
  if (!keep_vectors && eg_vt_indexed(d->tier)) eg_vt_unindex(t, &slot, 1);
}

void eg_vt_remove(eg_vec *v, vtenant *t, uint32_t slot) { eg_vt_remove_doc(v, t, slot, false); }

void eg_vt_unindex(vtenant *t, const uint32_t *slots, size_t n) {
  if (!n) return;
  if (t->hnsw) { /* HNSW cannot remove: tombstones, skipped at search, dropped at rebuild */
    t->tombstones += n;
    return;
  }
  FaissIndex **pair = t->dense;
  idx_t *ids = malloc(n * sizeof *ids);
  for (size_t i = 0; ids && i < n; i++) ids[i] = slots[i];
  /* one pass over the index for all of them (a removal compacts the whole index) */
  for (int f = 0; ids && f < N_FIELDS; f++) {
    if (!pair[f]) continue;
    FaissIDSelectorBatch *sel = NULL;
    if (faiss_IDSelectorBatch_new(&sel, n, ids) == 0) {
      size_t nr = 0;
      faiss_Index_remove_ids(pair[f], (FaissIDSelector *)sel, &nr);
      faiss_IDSelector_free((FaissIDSelector *)sel);
    }
  }
  free(ids);
}

/* ---- model check ---------------------------------------------------------------------- */

eg_code eg_vt_check_model(eg_vec *v, eg_kvtxn *txn, eg_tenant *ten, int dim, eg_err *err) {
  uint8_t k[9];
  k[0] = 'M';
  key_put64(k + 1, ten->id);
  char *val;
  size_t vl;
  char want[160];
  int wl = snprintf(want, sizeof want, "%d %s", dim, v->emb->model_id);
  eg_code rc = eg_kvtxn_get(txn, VCF_DEFAULT, k, 9, &val, &vl, err);
  if (rc == EG_ENOTFOUND) {
    return eg_kvtxn_put(txn, VCF_DEFAULT, k, 9, want, (size_t)wl, true)
               ? eg_err_set(err, EG_ENOMEM, "out of memory")
               : EG_OK;
  }
  if (rc) return rc;
  bool same = vl == (size_t)wl && memcmp(val, want, vl) == 0;
  char have[160];
  snprintf(have, sizeof have, "%.*s", (int)(vl < 150 ? vl : 150), val);
  free(val);
  if (!same)
    return eg_err_set(err, EG_EPRECOND,
                      "this tenant's index was built with dimension and model \"%s\"; vectord now "
                      "embeds with \"%s\": re-index the tenant or configure the original model",
                      have, want);
  return EG_OK;
}

/* ---- HNSW: background build and snapshots ---------------------------------------------- */

static void snapshot_paths(eg_vec *v, uint64_t T, char *f0, char *f1, char *meta, size_t len) {
  snprintf(f0, len, "%s/faiss/%016llx-content.index", v->o.dir, (unsigned long long)T);
  snprintf(f1, len, "%s/faiss/%016llx-latent.index", v->o.dir, (unsigned long long)T);
  snprintf(meta, len, "%s/faiss/%016llx.meta", v->o.dir, (unsigned long long)T);
}

/* Write the HNSW indexes of t (caller holds t->lock for reading). */
static void snapshot_write(eg_vec *v, vtenant *t) {
  char f[2][1200], meta[1200], tmp[1300];
  _Static_assert(sizeof tmp > sizeof meta, "tmp holds a path + .tmp");
  snapshot_paths(v, t->T, f[0], f[1], meta, sizeof meta);
  for (int i = 0; i < N_FIELDS; i++) {
    snprintf(tmp, sizeof tmp, "%.1200s.tmp", f[i]);
    if (faiss_write_index_fname(t->dense[i], tmp) != 0 || rename(tmp, f[i]) != 0) {
      EG_WARN("vec", "snapshot write failed", "tenant_key=%llx", (unsigned long long)t->T);
      return;
    }
  }
  snprintf(tmp, sizeof tmp, "%.1200s.tmp", meta);
  FILE *m = fopen(tmp, "w");
  if (!m) return;
  fprintf(m, "%zu %d %s\n", t->n_slots, t->dim, v->emb->model_id);
  if (fclose(m) == 0 && rename(tmp, meta) == 0) t->snapshot_slot = (int64_t)t->n_slots;
}

typedef struct build_job {
  eg_vec *v;
  vtenant *t;
} build_job;

bool eg_vt_copy_indexed(vtenant *t, size_t from, size_t to, idx_t **ids, float *vecs[N_FIELDS],
                        size_t *n) {
  size_t dim = (size_t)t->dim, cap = to > from ? to - from : 1, k = 0, indexed = eg_vt_n_indexed(t);
  if (cap > indexed) cap = indexed ? indexed : 1; /* no more can be in it */
  *ids = malloc(cap * sizeof **ids);
  vecs[0] = malloc(cap * dim * sizeof(float));
  vecs[1] = malloc(cap * dim * sizeof(float));
  if (!*ids || !vecs[0] || !vecs[1]) return false;
  for (size_t s = from; s < to && k < cap; s++) {
    if (!t->docs[s].live || !eg_vt_indexed(t->docs[s].tier)) continue;
    if (!eg_vt_vector(t, FIELD_CONTENT, (uint32_t)s, vecs[0] + k * dim) ||
        !eg_vt_vector(t, FIELD_LATENT, (uint32_t)s, vecs[1] + k * dim))
      continue;
    (*ids)[k++] = (idx_t)s;
  }
  *n = k;
  return true;
}

bool eg_vt_add_copied(FaissIndex *nx[N_FIELDS], idx_t *ids, float *vecs[N_FIELDS], size_t n,
                      bool ok) {
  for (int f = 0; ok && n && f < N_FIELDS; f++)
    ok = faiss_Index_add_with_ids(nx[f], (idx_t)n, vecs[f], ids) == 0;
  free(ids);
  free(vecs[0]);
  free(vecs[1]);
  return ok;
}

static void *build_thread(void *arg) {
  build_job *j = arg;
  eg_vec *v = j->v;
  vtenant *t = j->t;
  free(j);
  int64_t t0 = eg_time_mono_us();
  FaissIndex *nx[N_FIELDS] = {NULL, NULL};
  bool ok = true;
  for (int f = 0; ok && f < N_FIELDS; f++) ok = (nx[f] = eg_vt_new_index(v, t->dim, true)) != NULL;
  /* Copy under the read lock, build outside any lock, and repeat for what was written
   * meanwhile until little is left: searches and writes go on against the old index. */
  size_t done = 0, total = 0;
  for (int round = 0; ok && round < 8; round++) {
    pthread_rwlock_rdlock(&t->lock);
    size_t upto = t->n_slots, n = 0;
    idx_t *ids = NULL;
    float *vecs[N_FIELDS] = {NULL, NULL};
    ok = eg_vt_copy_indexed(t, done, upto, &ids, vecs, &n);
    pthread_rwlock_unlock(&t->lock);
    ok = eg_vt_add_copied(nx, ids, vecs, n, ok);
    total += n;
    done = upto;
    pthread_rwlock_rdlock(&t->lock);
    size_t behind = t->n_slots - done;
    pthread_rwlock_unlock(&t->lock);
    if (behind < 1000) break;
  }
  /* The short tail and the swap, under the write lock. */
  pthread_rwlock_wrlock(&t->lock);
  if (ok) {
    size_t n = 0;
    idx_t *ids = NULL;
    float *vecs[N_FIELDS] = {NULL, NULL};
    ok = eg_vt_copy_indexed(t, done, t->n_slots, &ids, vecs, &n);
    ok = eg_vt_add_copied(nx, ids, vecs, n, ok);
    total += n;
  }
  if (ok) {
    for (int f = 0; f < N_FIELDS; f++) {
      faiss_Index_free(t->dense[f]);
      t->dense[f] = nx[f];
    }
    t->hnsw = true;
    t->holds_erased = false; /* built from the live slots only */
    idx_t nt = faiss_Index_ntotal(t->dense[0]);
    size_t indexed = eg_vt_n_indexed(t);
    t->tombstones = (size_t)nt > indexed ? (size_t)nt - indexed : 0;
    snapshot_write(v, t);
  } else {
    EG_ERROR("vec", "HNSW build failed", "error=\"%s\"", faiss_err());
    for (int f = 0; f < N_FIELDS; f++) faiss_Index_free(nx[f]);
  }
  t->building = false;
  pthread_rwlock_unlock(&t->lock);
  EG_INFO("vec", "HNSW build done", "vectors=%zu ok=%d took_ms=%lld", total, ok,
          (long long)((eg_time_mono_us() - t0) / 1000));
  pthread_mutex_lock(&v->bmu);
  v->builds_running--;
  pthread_cond_broadcast(&v->bcv);
  pthread_mutex_unlock(&v->bmu);
  return NULL;
}

void eg_vt_maybe_rebuild(eg_vec *v, vtenant *t) {
  if (t->building || !t->dim) return;
  size_t indexed = eg_vt_n_indexed(t);
  bool want = (!t->hnsw && indexed > v->o.hnsw_threshold) ||
              (t->hnsw && t->tombstones > 1024 && t->tombstones * 5 > indexed);
  if (!want) return;
  build_job *j = malloc(sizeof *j);
  if (!j) return;
  *j = (build_job){v, t};
  pthread_t th;
  pthread_mutex_lock(&v->bmu);
  v->builds_running++;
  pthread_mutex_unlock(&v->bmu);
  t->building = true;
  if (pthread_create(&th, NULL, build_thread, j) != 0) {
    free(j);
    t->building = false;
    pthread_mutex_lock(&v->bmu);
    v->builds_running--;
    pthread_mutex_unlock(&v->bmu);
    return;
  }
  pthread_detach(th);
}

eg_kv *eg_vec_store(eg_vec *v) { return v->kv; }

void eg_vec_set_replica(eg_vec *v, eg_replica *r) {
  if (!r) eg_vret_stop(v); /* the sweeper may be passing the gate of the one going away */
  v->replica = r;
}

void eg_vec_quiesce(eg_vec *v) {
  pthread_mutex_lock(&v->bmu);
  while (v->builds_running) pthread_cond_wait(&v->bcv, &v->bmu);
  pthread_mutex_unlock(&v->bmu);
}

/* Read a snapshot made with the same model; returns true when both fields loaded. */
static bool snapshot_read(eg_vec *v, vtenant *t) {
  char f[2][1200], meta[1200];
  snapshot_paths(v, t->T, f[0], f[1], meta, sizeof meta);
  FILE *m = fopen(meta, "r");
  if (!m) return false;
  size_t slots = 0;
  int dim = 0;
  char model[100] = "";
  int got = fscanf(m, "%zu %d %99s", &slots, &dim, model);
  fclose(m);
  if (got != 3 || dim != v->emb->dim || strcmp(model, v->emb->model_id) != 0) return false;
  FaissIndex *ix[N_FIELDS] = {NULL, NULL};
  for (int i = 0; i < N_FIELDS; i++) {
    if (faiss_read_index_fname(f[i], 0, &ix[i]) != 0) {
      faiss_Index_free(ix[0]);
      return false;
    }
  }
  t->dense[0] = ix[0];
  t->dense[1] = ix[1];
  t->hnsw = true;
  t->dim = dim;
  t->snapshot_slot = (int64_t)slots;
  FaissParameterSpace *ps = NULL;
  if (faiss_ParameterSpace_new(&ps) == 0) {
    for (int i = 0; i < N_FIELDS; i++)
      faiss_ParameterSpace_set_index_parameter(ps, ix[i], "efSearch", v->o.hnsw_ef_search);
    faiss_ParameterSpace_free(ps);
  }
  return true;
}

/* ---- tenants ---------------------------------------------------------------------------- */

static vtenant *vt_new(uint64_t T, const char *name, const eg_vec_opts *o) {
  vtenant *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->T = T;
  t->name = strdup(name);
  t->bm25 = eg_bm25_new(o->bm25_k1, o->bm25_b);
  t->bm25_cold = eg_bm25_new(o->bm25_k1, o->bm25_b);
  t->by_chunk = eg_map_new();
  t->by_user = eg_map_new();
  t->snapshot_slot = -1;
  pthread_rwlock_init(&t->lock, NULL);
  pthread_mutex_init(&t->writer, NULL);
  if (!t->name || !t->bm25 || !t->bm25_cold || !t->by_chunk || !t->by_user) {
    eg_bm25_free(t->bm25);
    eg_bm25_free(t->bm25_cold);
    eg_map_free(t->by_chunk);
    eg_map_free(t->by_user);
    free(t->name);
    free(t);
    return NULL;
  }
  eg_bm25_prefix_weight(t->bm25, EG_CONCEPT_PREFIX, o->bm25_concepts);
  eg_bm25_prefix_weight(t->bm25_cold, EG_CONCEPT_PREFIX, o->bm25_concepts);
  return t;
}

static bool free_slots(void *ctx, const void *k, size_t kl, void *v) {
  (void)ctx, (void)k, (void)kl;
  free(((vslots *)v)->v);
  free(v);
  return true;
}

static void vt_free(vtenant *t) {
  if (!t) return;
  for (int f = 0; f < N_FIELDS; f++) faiss_Index_free(t->dense[f]);
  eg_bm25_free(t->bm25);
  eg_bm25_free(t->bm25_cold);
  for (size_t s = 0; s < t->n_slots; s++) free(t->docs[s].entities);
  free(t->docs);
  eg_map_free(t->by_chunk);
  eg_map_each(t->by_user, free_slots, NULL);
  eg_map_free(t->by_user);
  pthread_rwlock_destroy(&t->lock);
  pthread_mutex_destroy(&t->writer);
  free(t->name);
  free(t);
}

/* Move `it` (over a family sharing the chunk family's keys) up to key k; the value when it
 * has a record at k (NULL otherwise). *skipped counts the records passed over. */
static const char *in_step(eg_kv_iter *it, const char *k, size_t kl, size_t *vl, size_t *skipped) {
  while (eg_kv_iter_valid(it)) {
    size_t ikl;
    const char *ik = eg_kv_iter_key(it, &ikl);
    int cmp = memcmp(ik, k, ikl < kl ? ikl : kl);
    if (cmp > 0 || (cmp == 0 && ikl >= kl)) break;
    if (skipped) ++*skipped;
    eg_kv_iter_next(it);
  }
  if (!eg_kv_iter_valid(it)) return NULL;
  size_t ikl;
  const char *ik = eg_kv_iter_key(it, &ikl);
  if (ikl != kl || memcmp(ik, k, kl) != 0) return NULL;
  return eg_kv_iter_value(it, vl);
}

/* Vectors of slots waiting to be added to the dense indexes, in batches. */
typedef struct load_batch {
  float *vecs;
  uint32_t *slots;
  size_t n;
} load_batch;

static eg_code batch_add(eg_vec *v, vtenant *t, load_batch *b, uint32_t slot, const float *vec,
                         size_t row, eg_err *err) {
  if (!b->vecs && (!(b->vecs = malloc(LOAD_BATCH * row * sizeof(float))) ||
                   !(b->slots = malloc(LOAD_BATCH * sizeof *b->slots))))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  memcpy(b->vecs + b->n * row, vec, row * sizeof(float));
  b->slots[b->n++] = slot;
  if (b->n < LOAD_BATCH) return EG_OK;
  b->n = 0;
  return eg_vt_add_vectors(v, t, b->slots, b->vecs, LOAD_BATCH, err);
}

static eg_code batch_flush(eg_vec *v, vtenant *t, load_batch *b, eg_code rc, eg_err *err) {
  if (!rc && b->n) rc = eg_vt_add_vectors(v, t, b->slots, b->vecs, b->n, err);
  free(b->vecs);
  free(b->slots);
  return rc;
}

/* Fill the in-memory index of tenant T from the store (and a snapshot when there is one). */
static eg_code vt_load(eg_vec *v, vtenant *t, eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  bool snap = snapshot_read(v, t);
  uint8_t prefix[8];
  key_put64(prefix, t->T);
  eg_code rc = EG_OK;
  size_t loaded = 0;
  /* Pass 1: chunks → doc table and slots; vectors and terms by chunk id. The bound is
   * T + 1 with its carry (tenant 0xFF's is 0x100, not 0x00). */
  eg_kv_iter *it = eg_kv_iter_prefix(v->kv, VCF_CHUNKS, prefix, 8);
  eg_kv_iter *vit = eg_kv_iter_prefix(v->kv, VCF_VECTORS, prefix, 8);
  eg_kv_iter *tit = eg_kv_iter_prefix(v->kv, VCF_TERMS, prefix, 8);
  eg_kv_iter *rit = eg_kv_iter_prefix(v->kv, VCF_RETAIN, prefix, 8);
  load_batch batch = {NULL, NULL, 0};
  size_t evicted = 0;
  eg_vret_load_policy(v, t);
  /* The families share keys (T | chunk id) and are written together, so their iterators
   * move in step; retention records without a chunk are evicted chunks'. */
  for (; !rc && eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    eg_arena *a = eg_arena_new(8192, 0);
    size_t kl, vl, vvl = 0, tvl = 0, rvl = 0;
    const char *k = eg_kv_iter_key(it, &kl);
    const char *val = eg_kv_iter_value(it, &vl);
    uint64_t slot;
    Engram__V1__Chunk *c = eg_chunk_decode(a, val, vl, &slot);
    const float *vec = (const float *)in_step(vit, k, kl, &vvl, NULL);
    const char *tv = in_step(tit, k, kl, &tvl, NULL);
    const char *rv = in_step(rit, k, kl, &rvl, &evicted);
    eg_bm25_term *terms = NULL;
    size_t nt = 0;
    uint32_t doclen = 0;
    if (tv) nt = eg_terms_decode(tv, tvl, a, &terms, &doclen);
    if (!c || slot > UINT32_MAX) {
      eg_arena_free(a);
      rc = eg_err_set(err, EG_ECORRUPT, "stored chunk is corrupt");
      break;
    }
    if (vec && !t->dim) t->dim = (int)(vvl / sizeof(float) / N_FIELDS);
    vdoc d = eg_vdoc_of(c);
    if (rv && !eg_vret_decode(rv, rvl, &d))
      EG_WARN("vec", "retention record unreadable: chunk kept hot", "slot=%llu",
              (unsigned long long)slot);
    if (rv) eg_kv_iter_next(rit); /* past it: what the next chunk skips is evicted chunks' */
    if (t->pol.disabled) d.tier = EG_TIER_HOT;
    /* A snapshot already holds the vectors of the hot and warm slots below its watermark
     * (unless the slot came back from the cold tier after it was written); the others are
     * added in batches (one FAISS call per field per batch). */
    size_t row = (size_t)t->dim * N_FIELDS;
    bool in_snapshot = snap && (int64_t)slot < t->snapshot_slot && eg_vt_indexed(d.tier);
    if (in_snapshot) {
      float *probe = eg_arena_alloc(a, (size_t)t->dim * sizeof *probe);
      in_snapshot = probe && faiss_Index_reconstruct(t->dense[0], (idx_t)slot, probe) == 0;
    }
    if ((rc = eg_vt_add(v, t, (uint32_t)slot, &d, NULL, terms, nt, doclen, err))) {
      eg_arena_free(a);
      break;
    }
    if (vec && t->dim && vvl == row * sizeof(float) && eg_vt_indexed(d.tier) && !in_snapshot)
      rc = batch_add(v, t, &batch, (uint32_t)slot, vec, row, err);
    loaded++;
    eg_arena_free(a);
  }
  while (eg_kv_iter_valid(rit)) { /* evicted chunks after the last live one */
    evicted++;
    eg_kv_iter_next(rit);
  }
  t->n_tier[EG_TIER_EVICTED] = evicted;
  rc = batch_flush(v, t, &batch, rc, err);
  eg_kv_iter_close(it);
  eg_kv_iter_close(vit);
  eg_kv_iter_close(tit);
  eg_kv_iter_close(rit);
  if (snap && t->dense[0]) {
    idx_t total = faiss_Index_ntotal(t->dense[0]);
    size_t indexed = eg_vt_n_indexed(t);
    t->tombstones = (size_t)total > indexed ? (size_t)total - indexed : 0;
  }
  EG_INFO("vec", "tenant index loaded", "tenant_key=%llx chunks=%zu snapshot=%d took_ms=%lld",
          (unsigned long long)t->T, loaded, snap, (long long)((eg_time_mono_us() - t0) / 1000));
  return rc;
}

vtenant *eg_vt_get(eg_vec *v, const char *tenant, bool create, eg_code *out_rc, eg_err *err) {
  *out_rc = EG_OK;
  pthread_mutex_lock(&v->tmu);
  vtenant *t = eg_map_get(v->tenants, tenant, strlen(tenant));
  if (t) {
    pthread_mutex_unlock(&v->tmu);
    return t;
  }
  uint64_t T = 0;
  bool known = eg_kv_tenant_id(v->kv, tenant, &T) == EG_OK;
  if (!known && !create) {
    pthread_mutex_unlock(&v->tmu);
    return NULL;
  }
  if (!known) { /* register the tenant now so its number is stable: a write of its own */
    eg_arena *a = eg_arena_new(4096, 0);
    vwrite w;
    eg_code rc = a ? eg_vw_begin(v, tenant, "", true, a, &w, err)
                   : eg_err_set(err, EG_ENOMEM, "out of memory");
    if (!rc) {
      T = w.ten_id;
      w.body.write_case = ENGRAM__V1__VECTOR_WRITE__WRITE_TENANT;
      w.body.tenant = &(Engram__V1__VectorTenant)ENGRAM__V1__VECTOR_TENANT__INIT;
      rc = eg_vw_commit(&w, NULL, 0, NULL, err);
    }
    eg_arena_free(a);
    if (rc) {
      pthread_mutex_unlock(&v->tmu);
      *out_rc = rc;
      return NULL;
    }
  }
  t = vt_new(T, tenant, &v->o);
  eg_code rc = t ? vt_load(v, t, err) : eg_err_set(err, EG_ENOMEM, "out of memory");
  if (rc) {
    vt_free(t);
    pthread_mutex_unlock(&v->tmu);
    *out_rc = rc;
    return NULL;
  }
  eg_map_put(v->tenants, tenant, strlen(tenant), t);
  pthread_rwlock_wrlock(&t->lock);
  eg_vt_maybe_rebuild(v, t);
  pthread_rwlock_unlock(&t->lock);
  pthread_mutex_unlock(&v->tmu);
  return t;
}

static void snapshot_unlink(eg_vec *v, uint64_t T) {
  char f0[1200], f1[1200], meta[1200];
  snapshot_paths(v, T, f0, f1, meta, sizeof meta);
  unlink(meta);
  unlink(f0);
  unlink(f1);
}

void eg_vt_drop_snapshot(eg_vec *v, vtenant *t) {
  eg_vec_quiesce(v); /* a build running now would write the old vectors again */
  pthread_rwlock_wrlock(&t->lock);
  snapshot_unlink(v, t->T);
  t->snapshot_slot = -1;
  t->holds_erased = t->hnsw;
  pthread_rwlock_unlock(&t->lock);
}

void eg_vt_forget(eg_vec *v, const char *tenant) {
  eg_vec_quiesce(v); /* no build may still hold the tenant */
  pthread_mutex_lock(&v->tmu);
  vtenant *t = eg_map_del(v->tenants, tenant, strlen(tenant));
  pthread_mutex_unlock(&v->tmu);
  if (!t) return;
  pthread_mutex_lock(&t->writer); /* a sweep that found it before it left the map ends first */
  pthread_mutex_unlock(&t->writer);
  snapshot_unlink(v, t->T);
  vt_free(t);
}

/* ---- engine ------------------------------------------------------------------------------ */

typedef struct size_sum {
  double chunks, vectors, terms, tenants, tiers[5];
} size_sum;

static bool sum_tenant(void *ctx, const void *k, size_t kl, void *val) {
  (void)k, (void)kl;
  size_sum *s = ctx;
  vtenant *t = val;
  pthread_rwlock_rdlock(&t->lock);
  s->chunks += (double)t->live;
  for (int f = 0; f < N_FIELDS; f++)
    s->vectors += t->dense[f] ? (double)faiss_Index_ntotal(t->dense[f]) : 0;
  for (int i = EG_TIER_HOT; i <= EG_TIER_EVICTED; i++) s->tiers[i] += (double)t->n_tier[i];
  s->terms += (double)eg_bm25_terms(t->bm25) + (double)eg_bm25_terms(t->bm25_cold);
  s->tenants += 1;
  pthread_rwlock_unlock(&t->lock);
  return true;
}

/* Index sizes at scrape time, over the tenants loaded in memory. */
static void size_collector(void *arg, eg_buf *out) {
  eg_vec *v = arg;
  size_sum s = {0, 0, 0, 0, {0}};
  pthread_mutex_lock(&v->tmu);
  eg_map_each(v->tenants, sum_tenant, &s);
  pthread_mutex_unlock(&v->tmu);
  eg_buf_printf(
      out,
      "# HELP engram_vectord_chunks Live chunks in the loaded tenants' indexes.\n"
      "# TYPE engram_vectord_chunks gauge\nengram_vectord_chunks %.0f\n"
      "# HELP engram_vectord_index_vectors Vectors in the dense indexes (both fields, tombstones "
      "included).\n"
      "# TYPE engram_vectord_index_vectors gauge\nengram_vectord_index_vectors %.0f\n"
      "# HELP engram_vectord_bm25_terms Distinct BM25 terms in the loaded tenants' indexes.\n"
      "# TYPE engram_vectord_bm25_terms gauge\nengram_vectord_bm25_terms %.0f\n"
      "# HELP engram_vectord_tenants_loaded Tenants whose indexes are in memory.\n"
      "# TYPE engram_vectord_tenants_loaded gauge\nengram_vectord_tenants_loaded %.0f\n",
      s.chunks, s.vectors, s.terms, s.tenants);
  eg_buf_printf(out,
                "# HELP engram_vectord_tier_chunks Chunks per retention tier in the loaded tenants "
                "(evicted: content removed under an eviction policy).\n"
                "# TYPE engram_vectord_tier_chunks gauge\n");
  for (int i = EG_TIER_HOT; i <= EG_TIER_EVICTED; i++)
    eg_buf_printf(out, "engram_vectord_tier_chunks{tier=\"%s\"} %.0f\n",
                  eg_ret_tier_name((eg_tier)i), s.tiers[i]);
}

eg_code eg_vec_open(const eg_vec_opts *opts, eg_metrics *metrics, eg_vec **out, eg_err *err) {
  eg_vec *v = calloc(1, sizeof *v);
  if (!v) return eg_err_set(err, EG_ENOMEM, "out of memory");
  v->o = *opts;
  /* the caller's strings may not outlive this call: vectord keeps its own */
  v->own_dir = strdup(opts->dir);
  v->own_wordnet = opts->wordnet_dir ? strdup(opts->wordnet_dir) : NULL;
  if (!v->own_dir || (opts->wordnet_dir && !v->own_wordnet)) {
    free(v->own_dir);
    free(v);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  v->o.dir = v->own_dir;
  v->o.wordnet_dir = v->own_wordnet;
  v->emb = opts->embedder;
  char dir[1100];
  snprintf(dir, sizeof dir, "%s/faiss", opts->dir);
  mkdir(opts->dir, 0750);
  mkdir(dir, 0750);
  snprintf(dir, sizeof dir, "%s/chunks", opts->dir);
  static const char *const cfs[VCF_COUNT] = {"default", "chunks", "vectors", "terms", "retention"};
  eg_code rc = eg_kv_open(dir, cfs, VCF_COUNT, 65536, "engram_vectord", metrics, &v->kv, err);
  if (rc) {
    free(v->own_dir);
    free(v->own_wordnet);
    free(v);
    return rc;
  }
  pthread_mutex_init(&v->tmu, NULL);
  pthread_mutex_init(&v->tokmu, NULL);
  pthread_mutex_init(&v->cmu, NULL);
  pthread_mutex_init(&v->bmu, NULL);
  pthread_cond_init(&v->bcv, NULL);
  pthread_mutex_init(&v->smu, NULL);
  pthread_cond_init(&v->scv, NULL);
  pthread_mutex_init(&v->vmu, NULL);
  pthread_cond_init(&v->vcv, NULL);
  v->tenants = eg_map_new();
  v->qcache = eg_qcache_new(opts->query_cache, v->emb ? v->emb->dim : 0);
  if (metrics) {
    v->m_qcache_hits =
        eg_metric_solo(eg_metrics_counter(metrics, "engram_vectord_query_cache_hits_total",
                                          "Query texts whose vector came from the cache.", NULL));
    eg_metrics_collector(metrics, size_collector, v);
    v->m_upserts = eg_metric_solo(eg_metrics_counter(
        metrics, "engram_vectord_upserted_chunks_total", "Chunks stored and indexed.", NULL));
    v->m_embed_tokens = eg_metric_solo(eg_metrics_counter(
        metrics, "engram_vectord_embedded_tokens_total", "Tokens of text embedded.", NULL));
    v->m_searches = eg_metric_solo(
        eg_metrics_counter(metrics, "engram_vectord_searches_total", "Queries searched.", NULL));
    v->m_embed_secs = eg_metrics_histogram(metrics, "engram_vectord_embed_seconds",
                                           "Time to embed one batch of texts.", "model", NULL, 0);
    v->m_stage_secs = eg_metrics_histogram(metrics, "engram_vectord_search_stage_seconds",
                                           "Time per search stage.", "stage", NULL, 0);
    v->m_promoted =
        eg_metric_solo(eg_metrics_counter(metrics, "engram_vectord_tier_promotions_total",
                                          "Chunks moved to a higher retention tier.", NULL));
    v->m_demoted =
        eg_metric_solo(eg_metrics_counter(metrics, "engram_vectord_tier_demotions_total",
                                          "Chunks moved to a lower retention tier.", NULL));
    v->m_evicted = eg_metric_solo(
        eg_metrics_counter(metrics, "engram_vectord_evicted_chunks_total",
                           "Chunks evicted under a tenant's eviction policy.", NULL));
  }
  eg_vret_start(v);
  *out = v;
  return EG_OK;
}

static bool close_tenant(void *ctx, const void *k, size_t kl, void *val) {
  (void)k, (void)kl;
  eg_vec *v = ctx;
  vtenant *t = val;
  /* Save what the snapshot lacks, so the next start replays less (never erased vectors:
   * the next start rebuilds from the store instead). */
  if (t->hnsw && !t->holds_erased && t->snapshot_slot < (int64_t)t->n_slots) snapshot_write(v, t);
  vt_free(t);
  return true;
}

void eg_vec_close(eg_vec *v) {
  if (!v) return;
  eg_vret_stop(v);
  eg_vec_quiesce(v);
  eg_map_each(v->tenants, close_tenant, v);
  eg_map_free(v->tenants);
  for (int i = 0; i < v->n_tok_free; i++) eg_tokenizer_free(v->tok_free[i]);
  eg_qcache_free(v->qcache);
  eg_kv_close(v->kv);
  pthread_mutex_destroy(&v->tmu);
  pthread_mutex_destroy(&v->tokmu);
  pthread_mutex_destroy(&v->cmu);
  eg_concepts_free(v->concepts);
  pthread_mutex_destroy(&v->bmu);
  pthread_cond_destroy(&v->bcv);
  pthread_mutex_destroy(&v->smu);
  pthread_cond_destroy(&v->scv);
  pthread_mutex_destroy(&v->vmu);
  pthread_cond_destroy(&v->vcv);
  free(v->own_dir);
  free(v->own_wordnet);
  free(v);
}
