/*
 * vec_apply.c — vectord's write path: every change of the store is one VectorWrite
 * (proto/engram/v1/vector_log.proto), applied here and nowhere else — its store half in a
 * transaction committed as one log position, then its memory half (dense indexes, BM25,
 * the doc table). The writer records what it resolved and applies it (eg_vw_commit); a
 * follower applies the log's records through the same functions (eg_vec_apply). See
 * deploy/REPLICATION.md.
 *
 * Determinism is the point: a record carries what the writer resolved (vectors, words,
 * ids, slots, times, the chunks a delete touches), so applying it reads nothing but the
 * state the earlier records left, and no follower embeds a chunk again.
 *
 * Visibility: a write's memory half comes after its position is durable, so a read that
 * waits for a watermark also waits for the memory halves of every position up to it
 * (eg_vec_wait_visible): each write holds a token, from before its commit until its memory
 * half is done, carrying a lower bound of its position and then the position itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/time.h"
#include "services/vectord/qcache.h"
#include "services/vectord/vec_int.h"

/* ---- visibility ------------------------------------------------------------------------- */

static void vis_begin(eg_vec *v, vis_token *tk, uint64_t lower) {
  pthread_mutex_lock(&v->vmu);
  tk->pos = lower;
  tk->prev = NULL;
  tk->next = v->vis;
  if (v->vis) v->vis->prev = tk;
  v->vis = tk;
  pthread_mutex_unlock(&v->vmu);
}

static void vis_at(eg_vec *v, vis_token *tk, uint64_t pos) {
  pthread_mutex_lock(&v->vmu);
  tk->pos = pos;
  pthread_mutex_unlock(&v->vmu);
}

static void vis_end(eg_vec *v, vis_token *tk) {
  pthread_mutex_lock(&v->vmu);
  if (tk->prev)
    tk->prev->next = tk->next;
  else
    v->vis = tk->next;
  if (tk->next) tk->next->prev = tk->prev;
  pthread_cond_broadcast(&v->vcv);
  pthread_mutex_unlock(&v->vmu);
}

/* Positions up to pos are durable and no write at or below it is still changing memory.
 * Caller holds vmu. */
static bool visible(eg_vec *v, uint64_t pos) {
  if (eg_kv_position(v->kv) < pos) return false;
  for (const vis_token *tk = v->vis; tk; tk = tk->next)
    if (tk->pos <= pos) return false;
  return true;
}

uint64_t eg_vec_position(eg_vec *v) { return eg_kv_position(v->kv); }

eg_code eg_vec_wait_visible(eg_vec *v, uint64_t pos, int64_t deadline_us, eg_err *err) {
  struct timespec ts = {(time_t)(deadline_us / EG_US_PER_SEC),
                        (long)(deadline_us % EG_US_PER_SEC) * 1000};
  pthread_mutex_lock(&v->vmu);
  int w = 0; /* every commit ends a token (vis_end), which wakes the waiters */
  while (!visible(v, pos) && w == 0) w = pthread_cond_timedwait(&v->vcv, &v->vmu, &ts);
  bool ok = visible(v, pos);
  pthread_mutex_unlock(&v->vmu);
  if (ok) return EG_OK;
  return eg_err_set(err, EG_ETIMEOUT,
                    "this replica has applied the log up to position %llu, not yet %llu",
                    (unsigned long long)eg_kv_position(v->kv), (unsigned long long)pos);
}

/* ---- encodings ------------------------------------------------------------------------ */

void eg_vaccess_msg(eg_arena *a, const eg_access *acc, Engram__V1__AccessHistory *m) {
  engram__v1__access_history__init(m);
  size_t n = 0;
  while (n < EG_RET_RECENT && acc->recent[n]) n++;
  m->recent = n ? eg_arena_alloc(a, n * sizeof *m->recent) : NULL;
  if (m->recent) memcpy(m->recent, acc->recent, n * sizeof *m->recent);
  m->n_recent = m->recent ? n : 0;
  m->n_old = acc->n_old;
  m->old_mean = acc->old_mean;
}

void eg_vaccess_of(const Engram__V1__AccessHistory *m, eg_access *acc) {
  memset(acc, 0, sizeof *acc);
  if (!m) return;
  for (size_t i = 0; i < m->n_recent && i < EG_RET_RECENT; i++) acc->recent[i] = m->recent[i];
  acc->n_old = m->n_old;
  acc->old_mean = m->old_mean;
}

/* The stored term list of a chunk: u32 doclen | (u8 len, bytes, u16 tf)* (eg_terms_decode). */
static char *encode_terms(eg_arena *a, const Engram__V1__StoredChunk *c, size_t *len) {
  size_t n = 4;
  for (size_t i = 0; i < c->n_terms; i++) n += 3 + strlen(c->terms[i]->term);
  char *buf = eg_arena_alloc(a, n);
  if (!buf) return NULL;
  memcpy(buf, &c->doclen, 4);
  size_t o = 4;
  for (size_t i = 0; i < c->n_terms; i++) {
    size_t l = strlen(c->terms[i]->term);
    if (l > 255) l = 255;
    buf[o++] = (char)l;
    memcpy(buf + o, c->terms[i]->term, l);
    o += l;
    uint16_t tf = (uint16_t)(c->terms[i]->tf < UINT16_MAX ? c->terms[i]->tf : UINT16_MAX);
    memcpy(buf + o, &tf, 2);
    o += 2;
  }
  *len = o;
  return buf;
}

/* ---- the store half of each write ------------------------------------------------------- */

static eg_code store_upsert(vwrite *w, const Engram__V1__VectorUpsert *u, eg_err *err) {
  eg_vec *v = w->v;
  if ((int)u->dim != v->emb->dim || strcmp(u->model_id ? u->model_id : "", v->emb->model_id) != 0)
    return eg_err_set(err, EG_EPRECOND,
                      "the log's chunks were embedded with '%u %s', this replica embeds with "
                      "'%d %s': configure the writer's embedder",
                      u->dim, u->model_id ? u->model_id : "", v->emb->dim, v->emb->model_id);
  eg_code rc = eg_vt_check_model(v, w->txn, w->ten, (int)u->dim, err);
  if (rc) return rc;
  size_t row = (size_t)N_FIELDS * u->dim;
  for (size_t i = 0; i < u->n_chunks; i++) {
    const Engram__V1__StoredChunk *sc = u->chunks[i];
    const Engram__V1__Chunk *c = sc->chunk;
    if (!c || sc->n_vectors != row || sc->slot >= UINT32_MAX)
      return eg_err_set(err, EG_ECORRUPT, "an upserted chunk is malformed");
    size_t bl, tl;
    uint8_t *buf = eg_chunk_encode(w->a, c, sc->slot, &bl);
    char *tbuf = encode_terms(w->a, sc, &tl);
    if (!buf || !tbuf) return eg_err_set(err, EG_ENOMEM, "out of memory");
    uint8_t k[16];
    KEY2(k, w->ten->id, c->id);
    eg_kvtxn_put(w->txn, VCF_CHUNKS, k, 16, buf, bl, false);
    eg_kvtxn_put(w->txn, VCF_VECTORS, k, 16, sc->vectors, row * sizeof(float), false);
    eg_kvtxn_put(w->txn, VCF_TERMS, k, 16, tbuf, tl, false);
    if (sc->replaced) { /* a replaced chunk keeps its access history; it comes back hot */
      vdoc d = eg_vdoc_of(c);
      eg_vaccess_of(sc->access, &d.acc);
      uint8_t rec[VRET_LEN];
      eg_vret_encode(&d, rec);
      eg_kvtxn_put(w->txn, VCF_RETAIN, k, 16, rec, VRET_LEN, false);
    } else {
      eg_kvtxn_delete(w->txn, VCF_RETAIN, k, 16); /* an evicted chunk's record, if the id is back */
    }
    if (sc->slot + 1 > w->ten->counter[VCTR_SLOT]) w->ten->counter[VCTR_SLOT] = sc->slot + 1;
  }
  eg_kvtxn_save_tenant(w->txn, w->ten);
  return EG_OK;
}

static void store_delete(vwrite *w, const uint64_t *ids, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t k[16];
    KEY2(k, w->ten->id, ids[i]);
    eg_kvtxn_delete(w->txn, VCF_CHUNKS, k, 16);
    eg_kvtxn_delete(w->txn, VCF_VECTORS, k, 16);
    eg_kvtxn_delete(w->txn, VCF_TERMS, k, 16);
    eg_kvtxn_delete(w->txn, VCF_RETAIN, k, 16);
  }
}

/* Each chunk's record rewritten without the staged flag. */
static eg_code store_publish(vwrite *w, const Engram__V1__VectorIds *p, eg_err *err) {
  for (size_t i = 0; i < p->n_ids; i++) {
    uint8_t k[16];
    KEY2(k, w->ten->id, p->ids[i]);
    char *val = NULL;
    size_t vl;
    uint64_t slot;
    eg_code rc = eg_kvtxn_get(w->txn, VCF_CHUNKS, k, 16, &val, &vl, err);
    if (rc == EG_ENOTFOUND) continue;
    if (rc) return rc;
    Engram__V1__Chunk *c = eg_chunk_decode(w->a, val, vl, &slot);
    free(val);
    if (!c) return eg_err_set(err, EG_ECORRUPT, "stored chunk is corrupt");
    c->staged = false;
    size_t bl;
    uint8_t *buf = eg_chunk_encode(w->a, c, slot, &bl);
    if (!buf) return eg_err_set(err, EG_ENOMEM, "out of memory");
    eg_kvtxn_put(w->txn, VCF_CHUNKS, k, 16, buf, bl, false);
  }
  return EG_OK;
}

static eg_code store_policy(vwrite *w, const Engram__V1__RetentionPolicy *m, eg_err *err) {
  eg_ret_policy p;
  eg_code rc = eg_ret_policy_of(m, &p, err);
  if (rc) return rc;
  uint8_t k[9], val[EG_RET_POLICY_ENCODED];
  k[0] = 'P';
  key_put64(k + 1, w->ten->id);
  eg_ret_policy_encode(&p, val);
  if (eg_kvtxn_put(w->txn, VCF_DEFAULT, k, 9, val, sizeof val, false))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  return EG_OK;
}

/* The live chunk ids of a user in t (caller frees). */
static uint64_t *user_chunks(vtenant *t, uint64_t user_h, size_t *n) {
  pthread_rwlock_rdlock(&t->lock);
  uint64_t *ids = malloc((t->live ? t->live : 1) * sizeof *ids);
  *n = 0;
  for (size_t s = 0; ids && s < t->n_slots; s++) {
    const vdoc *d = &t->docs[s];
    if (d->live && d->user_h == user_h) ids[(*n)++] = d->chunk_id;
  }
  pthread_rwlock_unlock(&t->lock);
  return ids;
}

static eg_code store_erasure(vwrite *w, vtenant *t, const Engram__V1__VectorErasure *e,
                             vresult *out, eg_err *err) {
  uint64_t T = w->ten->id;
  if (!e->user || !*e->user) { /* everything of the tenant, then forget it */
    uint8_t from[8], to[8];
    key_put64(from, T);
    key_put64(to, T + 1);
    for (int cf = VCF_CHUNKS; cf < VCF_COUNT; cf++)
      eg_kvtxn_delete_range(w->txn, cf, from, 8, to, 8);
    uint8_t mk[9];
    mk[0] = 'M';
    key_put64(mk + 1, T);
    eg_kvtxn_delete(w->txn, VCF_DEFAULT, mk, 9);
    mk[0] = 'P'; /* the retention policy */
    eg_kvtxn_delete(w->txn, VCF_DEFAULT, mk, 9);
    eg_kvtxn_forget_tenant(w->txn, w->tenant);
    return EG_OK;
  }
  if (!t) return eg_err_set(err, EG_EINTERNAL, "the tenant's index is not loaded");
  bool moved = false; /* the counters the user's skipped records moved */
  for (size_t i = 0; i < e->n_counters && i < EG_KV_COUNTERS; i++)
    if (e->counters[i] > w->ten->counter[i]) {
      w->ten->counter[i] = e->counters[i];
      moved = true;
    }
  if (moved) eg_kvtxn_save_tenant(w->txn, w->ten);
  size_t n = 0;
  uint64_t *ids = user_chunks(t, eg_str_hash(e->user), &n);
  if (!ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
  store_delete(w, ids, n);
  free(ids);
  out->count = (uint32_t)n;
  /* what eviction left of the user's: retention records without a chunk (durable, as
   * every earlier write of the tenant is: its writer is held) */
  out->evicted = eg_vret_erase_evicted(w->v, w->txn, T, eg_str_hash(e->user));
  return EG_OK;
}

static eg_code store_half(vwrite *w, vtenant *t, vresult *out, eg_err *err) {
  const Engram__V1__VectorWrite *b = &w->body;
  if (!w->ten && b->write_case != ENGRAM__V1__VECTOR_WRITE__WRITE_ERASURE)
    return eg_err_set(err, EG_ECORRUPT, "a write without a tenant");
  switch (b->write_case) {
    case ENGRAM__V1__VECTOR_WRITE__WRITE_TENANT:
      return EG_OK; /* the tenant was created by eg_vw_begin */
    case ENGRAM__V1__VECTOR_WRITE__WRITE_UPSERT:
      return store_upsert(w, b->upsert, err);
    case ENGRAM__V1__VECTOR_WRITE__WRITE_PUBLISH:
      return store_publish(w, b->publish, err);
    case ENGRAM__V1__VECTOR_WRITE__WRITE_DELETION:
      store_delete(w, b->deletion->ids, b->deletion->n_ids);
      return EG_OK;
    case ENGRAM__V1__VECTOR_WRITE__WRITE_MOVES:
      if (!t) return eg_err_set(err, EG_EINTERNAL, "the tenant's index is not loaded");
      return eg_vret_moves_store(w->v, t, w->txn, b->moves, err);
    case ENGRAM__V1__VECTOR_WRITE__WRITE_POLICY:
      return store_policy(w, b->policy, err);
    case ENGRAM__V1__VECTOR_WRITE__WRITE_ERASURE:
      return w->ten ? store_erasure(w, t, b->erasure, out, err) : EG_OK;
    default:
      return eg_err_set(err, EG_ECORRUPT, "a write of unknown kind %d", (int)b->write_case);
  }
}

/* ---- the memory half --------------------------------------------------------------------- */

static eg_code memory_upsert(eg_vec *v, vtenant *t, const Engram__V1__VectorUpsert *u, eg_arena *a,
                             eg_err *err) {
  size_t n = u->n_chunks, row = (size_t)N_FIELDS * u->dim;
  uint32_t *slots = eg_arena_alloc(a, (n ? n : 1) * sizeof *slots);
  float *vecs = eg_arena_alloc(a, (n ? n : 1) * row * sizeof *vecs);
  if (!slots || !vecs) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_code rc = EG_OK;
  pthread_rwlock_wrlock(&t->lock);
  if (!t->dim) t->dim = (int)u->dim;
  for (size_t i = 0; i < n && !rc; i++) {
    const Engram__V1__StoredChunk *sc = u->chunks[i];
    uintptr_t old = (uintptr_t)eg_map_get(t->by_chunk, &sc->chunk->id, 8);
    if (old) eg_vt_remove(v, t, (uint32_t)(old - 1)); /* the replaced chunk's slot goes */
    vdoc d = eg_vdoc_of(sc->chunk);
    if (sc->replaced) eg_vaccess_of(sc->access, &d.acc);
    eg_bm25_term *terms = eg_arena_alloc(a, (sc->n_terms ? sc->n_terms : 1) * sizeof *terms);
    if (!terms) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
    for (size_t j = 0; j < sc->n_terms; j++)
      terms[j] = (eg_bm25_term){sc->terms[j]->term, sc->terms[j]->tf};
    slots[i] = (uint32_t)sc->slot;
    memcpy(vecs + i * row, sc->vectors, row * sizeof *vecs);
    rc = eg_vt_add(v, t, slots[i], &d, NULL, terms, sc->n_terms, sc->doclen, err);
  }
  if (!rc) rc = eg_vt_add_vectors(v, t, slots, vecs, n, err);
  eg_vt_maybe_rebuild(v, t);
  pthread_rwlock_unlock(&t->lock);
  return rc;
}

static void memory_ids(eg_vec *v, vtenant *t, const uint64_t *ids, size_t n, bool publish) {
  pthread_rwlock_wrlock(&t->lock);
  for (size_t i = 0; i < n; i++) {
    uintptr_t s = (uintptr_t)eg_map_get(t->by_chunk, &ids[i], 8);
    if (!s) continue;
    if (publish)
      t->docs[s - 1].staged = false;
    else
      eg_vt_remove(v, t, (uint32_t)(s - 1));
  }
  if (!publish) eg_vt_maybe_rebuild(v, t);
  pthread_rwlock_unlock(&t->lock);
}

/* The user's chunks left memory with the store; the index and its snapshot no longer
 * hold them (HNSW: tombstones until a rebuild). */
static void memory_user_erasure(eg_vec *v, vtenant *t, const char *user, const vresult *out) {
  size_t n = 0;
  uint64_t *ids = user_chunks(t, eg_str_hash(user), &n);
  if (ids) memory_ids(v, t, ids, n, false);
  free(ids);
  pthread_rwlock_wrlock(&t->lock);
  size_t ev = t->n_tier[EG_TIER_EVICTED];
  t->n_tier[EG_TIER_EVICTED] -= out->evicted < ev ? out->evicted : ev;
  pthread_rwlock_unlock(&t->lock);
  if (n) eg_vt_drop_snapshot(v, t);
}

static eg_code memory_half(vwrite *w, vtenant *t, vresult *out, eg_err *err) {
  const Engram__V1__VectorWrite *b = &w->body;
  eg_vec *v = w->v;
  switch (b->write_case) {
    case ENGRAM__V1__VECTOR_WRITE__WRITE_UPSERT:
      return t ? memory_upsert(v, t, b->upsert, w->a, err) : EG_OK;
    case ENGRAM__V1__VECTOR_WRITE__WRITE_PUBLISH:
    case ENGRAM__V1__VECTOR_WRITE__WRITE_DELETION: {
      bool publish = b->write_case == ENGRAM__V1__VECTOR_WRITE__WRITE_PUBLISH;
      const Engram__V1__VectorIds *ids = publish ? b->publish : b->deletion;
      if (t) memory_ids(v, t, ids->ids, ids->n_ids, publish);
      out->count = (uint32_t)ids->n_ids;
      return EG_OK;
    }
    case ENGRAM__V1__VECTOR_WRITE__WRITE_MOVES:
      eg_vret_moves_memory(v, t, b->moves, out);
      return EG_OK;
    case ENGRAM__V1__VECTOR_WRITE__WRITE_POLICY:
      if (t) { /* the store half read it already: it is valid */
        eg_ret_policy p;
        eg_code rc = eg_ret_policy_of(b->policy, &p, err);
        if (rc) return rc;
        pthread_rwlock_wrlock(&t->lock);
        t->pol = p;
        pthread_rwlock_unlock(&t->lock);
      }
      return EG_OK;
    case ENGRAM__V1__VECTOR_WRITE__WRITE_ERASURE:
      if (w->ten && b->erasure->user && *b->erasure->user)
        memory_user_erasure(v, t, b->erasure->user, out);
      else if (w->ten)
        eg_vt_forget(v, w->tenant);
      if (w->ten) eg_kv_purge_tenant(v->kv, w->ten_id); /* the texts leave the files too */
      /* Query texts are user content too; the cache is keyed by text alone: all of it goes. */
      out->cached = eg_qcache_clear(v->qcache);
      return EG_OK;
    default:
      return EG_OK;
  }
}

/* ---- a write ------------------------------------------------------------------------------ */

eg_code eg_vw_begin(eg_vec *v, const char *tenant, const char *user, bool with_tenant, eg_arena *a,
                    vwrite *w, eg_err *err) {
  memset(w, 0, sizeof *w);
  w->v = v;
  w->a = a;
  w->tenant = tenant;
  w->user = user ? user : "";
  engram__v1__vector_write__init(&w->body);
  w->txn = eg_kv_begin(v->kv);
  if (!w->txn) return eg_err_set(err, EG_ENOMEM, "out of memory");
  if (!with_tenant) return EG_OK;
  eg_code rc = eg_kvtxn_tenant(w->txn, tenant, &w->ten, err);
  if (rc) {
    eg_kvtxn_abort(w->txn);
    w->txn = NULL;
    return rc;
  }
  w->ten_id = w->ten->id;
  return EG_OK;
}

void eg_vw_abort(vwrite *w) {
  if (w->txn) eg_kvtxn_abort(w->txn);
  w->txn = NULL;
}

/* Whose record the write is: an upsert's whose chunks are all one user's is that user's
 * (their erasure removes them all, so a replica that cannot open it once the user's key is
 * shredded loses nothing the erasure keeps); any other write is no one's (""), in the
 * clear — ids, tiers, policies, or chunks of several users or of none. */
static const char *record_owner(const vwrite *w) {
  if (w->body.write_case != ENGRAM__V1__VECTOR_WRITE__WRITE_UPSERT) return "";
  const Engram__V1__VectorUpsert *u = w->body.upsert;
  const char *owner = NULL;
  for (size_t i = 0; i < u->n_chunks; i++) {
    const Engram__V1__Chunk *c = u->chunks[i]->chunk;
    const char *cu = c && c->scope && c->scope->user ? c->scope->user : "";
    if (!*cu || (owner && strcmp(owner, cu) != 0)) return "";
    owner = cu;
  }
  return owner ? owner : "";
}

eg_code eg_vw_commit(vwrite *w, vtenant *t, uint64_t applied, vresult *out, eg_err *err) {
  vresult scratch;
  if (!out) out = &scratch;
  memset(out, 0, sizeof *out);
  eg_vec *v = w->v;
  eg_code rc = store_half(w, t, out, err);
  uint8_t *rec = NULL;
  size_t len = 0;
  /* Only a leader's log needs the bytes; alone, a replica applies without them. */
  if (!rc && !applied && eg_kv_wants_records(v->kv))
    rc = eg_record_pack(
        w->a, &engram__v1__vector_log_record__descriptor, w->tenant, w->ten_id, record_owner(w),
        w->body.write_case == ENGRAM__V1__VECTOR_WRITE__WRITE_ERASURE ? w->body.erasure->user
                                                                      : NULL,
        &w->body.base, &rec, &len, err);
  if (rc) {
    eg_vw_abort(w);
    return rc;
  }
  vis_token tk;
  /* the position will be above every one durable now (a follower's: the one it applies) */
  vis_begin(v, &tk, applied ? applied : eg_kv_position(v->kv) + 1);
  eg_kvtxn *txn = w->txn;
  w->txn = NULL;
  rc = applied ? eg_kvtxn_commit_applied(txn, applied, err)
               : eg_kvtxn_commit_logged(txn, rec, len, &out->pos, err);
  if (applied) out->pos = applied;
  if (!rc) {
    vis_at(v, &tk, out->pos);
    rc = memory_half(w, t, out, err);
    if (rc) eg_err_prefix(err, "stored, not indexed (a restart indexes it): ");
  }
  vis_end(v, &tk);
  return rc;
}

/* ---- a follower ---------------------------------------------------------------------------- */

/* Apply one record of the log at its position. */
static eg_code apply_one(eg_vec *v, const eg_replog_record *r, eg_arena *a, eg_err *err) {
  Engram__V1__VectorLogRecord *rec;
  Engram__V1__VectorWrite *body;
  eg_code rc = eg_record_open(a, &engram__v1__vector_log_record__descriptor,
                              &engram__v1__vector_write__descriptor, r, "vector",
                              (ProtobufCMessage **)&rec, (ProtobufCMessage **)&body, err);
  if (rc) return rc;
  Engram__V1__VectorWrite none = ENGRAM__V1__VECTOR_WRITE__INIT;
  Engram__V1__VectorTenant none_tenant = ENGRAM__V1__VECTOR_TENANT__INIT;
  if (!body) { /* its key was shredded: only the tenant is left (the erasure after it
                * removes what it wrote) */
    none.write_case = ENGRAM__V1__VECTOR_WRITE__WRITE_TENANT;
    none.tenant = &none_tenant;
    body = &none;
  }
  bool whole = body->write_case == ENGRAM__V1__VECTOR_WRITE__WRITE_ERASURE &&
               (!body->erasure->user || !*body->erasure->user);
  vtenant *t = NULL;
  /* the tenant's index, loaded before the record changes the store (the same order as
   * the writer's); an erasure of the whole tenant needs none */
  if (rec->tenant_id && !whole && !(t = eg_vt_get(v, rec->tenant, false, &rc, err)) && rc)
    return rc;
  if (t) pthread_mutex_lock(&t->writer);
  vwrite w;
  rc = eg_vw_begin(v, rec->tenant, rec->user, rec->tenant_id != 0, a, &w, err);
  if (!rc && w.ten && w.ten_id != rec->tenant_id) {
    rc = eg_err_set(err, EG_ECORRUPT,
                    "tenant number %llu here, %llu on the writer — this replica's store did not "
                    "come from this log",
                    (unsigned long long)w.ten_id, (unsigned long long)rec->tenant_id);
    eg_vw_abort(&w);
  }
  if (!rc) {
    w.body = *body;
    rc = eg_vw_commit(&w, t, r->seq, NULL, err);
  }
  if (t) pthread_mutex_unlock(&t->writer);
  if (rc && err && strncmp(err->msg, "log position", 12) != 0) {
    char p[48];
    snprintf(p, sizeof p, "log position %llu: ", (unsigned long long)r->seq);
    eg_err_prefix(err, p);
  }
  return rc;
}

eg_code eg_vec_apply(eg_vec *v, const eg_replog_record *recs, size_t n, eg_err *err) {
  eg_code rc = EG_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    if (recs[i].seq <= eg_kv_position(v->kv)) {
      rc = eg_err_set(err, EG_EPRECOND, "log position %llu is already applied",
                      (unsigned long long)recs[i].seq);
      break;
    }
    eg_arena *a = eg_arena_new(1 << 16, (size_t)1 << 30);
    if (!a) return eg_err_set(err, EG_ENOMEM, "out of memory");
    rc = apply_one(v, &recs[i], a, err);
    eg_arena_free(a);
  }
  if (rc)
    EG_ERROR("apply", "cannot apply the log", "applied=%llu error=\"%s\"",
             (unsigned long long)eg_kv_position(v->kv), err ? err->msg : "");
  return rc;
}
