/*
 * vec_retention.c — retention of chunks (docs/retention.md): accesses, tiers, the sweeper
 * and eviction.
 *
 * A chunk is hot or warm (in the dense indexes: one per field for both tiers, so that a
 * search walks one graph whatever the split, and a move between the two changes no index)
 * or cold (in none: BM25, the graph and GetChunks still find it). Its tier follows R
 * (common/retention.h) at each sweep, within the policy's bounds on tier sizes; an access
 * promotes a warm or cold chunk to hot at once. Under an evicting policy a sweep removes
 * the content, vectors and terms of cold chunks not used for the policy's number of days;
 * the retention record stays (the id answers GetRetention as evicted), the chunk's facts
 * in the graph stay, and the eviction is written to the audit log. Every move is written
 * to the store before memory changes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/scope.h"
#include "common/time.h"
#include "services/vectord/vec_int.h"

#define US_PER_DAY 86400000000LL

/* ---- records -----------------------------------------------------------------------------------
 */

void eg_vret_encode(const vdoc *d, uint8_t o[VRET_LEN]) {
  o[0] = d->tier;
  o[1] = d->private_;
  key_put64(o + 2, (uint64_t)d->tier_since);
  key_put64(o + 10, d->user_h);
  key_put64(o + 18, d->agent_h);
  key_put64(o + 26, (uint64_t)d->stored_at);
  memcpy(o + 34, &d->salience, 4);
  eg_access_encode(&d->acc, o + 38);
}

bool eg_vret_decode(const void *in, size_t len, vdoc *d) {
  const uint8_t *i = in;
  if (len != VRET_LEN || i[0] < EG_TIER_HOT || i[0] > EG_TIER_EVICTED) return false;
  d->tier = i[0];
  d->private_ = i[1] != 0;
  d->tier_since = (int64_t)key_get64(i + 2);
  d->user_h = key_get64(i + 10);
  d->agent_h = key_get64(i + 18);
  d->stored_at = (int64_t)key_get64(i + 26);
  memcpy(&d->salience, i + 34, 4);
  return eg_access_decode(i + 38, EG_RET_ENCODED, &d->acc);
}

static void policy_key(uint8_t k[9], uint64_t T) {
  k[0] = 'P';
  key_put64(k + 1, T);
}

void eg_vret_load_policy(eg_vec *v, vtenant *t) {
  eg_ret_policy_of(NULL, &t->pol, NULL);
  t->pol.disabled = v->o.retention_off;
  uint8_t k[9];
  policy_key(k, t->T);
  char *val = NULL;
  size_t vl = 0;
  if (eg_kv_get(v->kv, VCF_DEFAULT, k, 9, &val, &vl, NULL) == EG_OK &&
      !eg_ret_policy_decode(val, vl, &t->pol))
    EG_WARN("vec", "stored retention policy unreadable: defaults used", "tenant_key=%llx",
            (unsigned long long)t->T);
  free(val);
}

double eg_vret_r(const vtenant *t, const vdoc *d, int64_t now) {
  return eg_ret_score_at(&t->pol, d->salience, d->stored_at, &d->acc, now).r;
}

/* The stored vectors of a chunk (content then latent), malloc'd; NULL when absent. */
static float *stored_vectors(eg_vec *v, const vtenant *t, uint64_t chunk_id) {
  uint8_t k[16];
  KEY2(k, t->T, chunk_id);
  char *val = NULL;
  size_t vl = 0;
  if (eg_kv_get(v->kv, VCF_VECTORS, k, 16, &val, &vl, NULL) != EG_OK) return NULL;
  if (vl != (size_t)t->dim * N_FIELDS * sizeof(float)) {
    free(val);
    return NULL;
  }
  return (float *)val;
}

/* A live slot's new tier in memory, its words moved when they change BM25 index; its
 * vectors are the caller's (taken out and added in batches). */
static void set_tier(vtenant *t, uint32_t slot, uint8_t to, int64_t since, const char *terms,
                     size_t terms_len) {
  vdoc *d = &t->docs[slot];
  if (eg_vt_bm25(t, d->tier) != eg_vt_bm25(t, (uint8_t)to)) { /* its words change index too */
    eg_bm25_remove(eg_vt_bm25(t, d->tier), slot);
    eg_arena *a = eg_arena_new(4096, 0);
    eg_bm25_term *tv = NULL;
    uint32_t doclen = 0;
    size_t nt = terms && a ? eg_terms_decode(terms, terms_len, a, &tv, &doclen) : 0;
    if (a && eg_bm25_add(eg_vt_bm25(t, (uint8_t)to), slot, tv, nt, doclen) != EG_OK)
      EG_WARN("vec", "tier move: BM25 add failed", "slot=%u", slot);
    eg_arena_free(a);
  }
  t->n_tier[d->tier]--;
  t->n_tier[to]++;
  d->tier = to;
  d->tier_since = since;
}

/* Slots (and their vectors) on their way into or out of an index. */
typedef struct slot_batch {
  uint32_t *slots;
  float *vecs; /* row by row, when entering */
  size_t n;
} slot_batch;

/* ---- moves: store first, then memory
 * ------------------------------------------------------------- */

/* A move as the writer resolves it. */
typedef struct vmove {
  uint32_t slot;
  uint64_t chunk_id;
  vdoc after; /* the doc as it will be (tier, acc) */
} vmove;

/* A move's record applies to the live chunk it names (nothing else can have moved it:
 * the tenant's writer is held). */
static vdoc *moved_doc(vtenant *t, const Engram__V1__TierMove *m) {
  if (m->slot >= t->n_slots) return NULL;
  vdoc *d = &t->docs[m->slot];
  return d->live && d->chunk_id == m->chunk_id ? d : NULL;
}

static uint8_t tier_of(const Engram__V1__TierMove *m) {
  return m->tier >= EG_TIER_HOT && m->tier <= EG_TIER_EVICTED ? (uint8_t)m->tier : EG_TIER_HOT;
}

eg_code eg_vret_moves_store(eg_vec *v, vtenant *t, eg_kvtxn *txn, const Engram__V1__VectorMoves *mv,
                            eg_err *err) {
  (void)v;
  pthread_rwlock_rdlock(&t->lock);
  for (size_t i = 0; i < mv->n_moves; i++) {
    const Engram__V1__TierMove *m = mv->moves[i];
    vdoc *d = moved_doc(t, m);
    if (!d) continue;
    vdoc after = *d;
    after.tier = tier_of(m);
    after.tier_since = m->tier_since;
    eg_vaccess_of(m->access, &after.acc);
    uint8_t k[16], rec[VRET_LEN];
    KEY2(k, t->T, m->chunk_id);
    eg_vret_encode(&after, rec);
    eg_kvtxn_put(txn, VCF_RETAIN, k, 16, rec, VRET_LEN, false);
    if (after.tier == EG_TIER_EVICTED) { /* the retention record stays */
      eg_kvtxn_delete(txn, VCF_CHUNKS, k, 16);
      eg_kvtxn_delete(txn, VCF_VECTORS, k, 16);
      eg_kvtxn_delete(txn, VCF_TERMS, k, 16);
    }
  }
  pthread_rwlock_unlock(&t->lock);
  (void)err;
  return EG_OK;
}

/* What a move needs from the store: the vectors when the chunk enters the dense indexes,
 * its terms when it enters or leaves the cold tier. */
typedef struct move_load {
  float *vecs;
  char *terms;
  size_t terms_len;
} move_load;

static void load_for_move(eg_vec *v, const vtenant *t, uint64_t chunk_id, uint8_t from, uint8_t to,
                          move_load *l) {
  memset(l, 0, sizeof *l);
  if (to == from || to == EG_TIER_EVICTED) return;
  if (eg_vt_indexed(to) && !eg_vt_indexed(from)) l->vecs = stored_vectors(v, t, chunk_id);
  if ((to == EG_TIER_COLD) != (from == EG_TIER_COLD)) {
    uint8_t k[16];
    KEY2(k, t->T, chunk_id);
    if (eg_kv_get(v->kv, VCF_TERMS, k, 16, &l->terms, &l->terms_len, NULL) != EG_OK)
      l->terms = NULL;
  }
}

void eg_vret_moves_memory(eg_vec *v, vtenant *t, const Engram__V1__VectorMoves *mv, vresult *out) {
  size_t n = mv->n_moves;
  if (!t || !n) return;
  /* What the moves need from the store first (no lock: the store is durable, and only
   * this writer moves the tenant's chunks). */
  move_load *ld = calloc(n, sizeof *ld);
  bool *act = calloc(n, sizeof *act);
  size_t row = (size_t)t->dim * N_FIELDS;
  slot_batch out_b = {malloc(n * sizeof(uint32_t)), NULL, 0};
  slot_batch in = {malloc(n * sizeof(uint32_t)), malloc(n * (row ? row : 1) * sizeof(float)), 0};
  if (!ld || !act || !out_b.slots || !in.slots || !in.vecs) {
    EG_ERROR("vec", "tier moves stored but not applied in memory (a restart applies them)",
             "error=\"out of memory\"");
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    const Engram__V1__TierMove *m = mv->moves[i];
    pthread_rwlock_rdlock(&t->lock);
    const vdoc *d = moved_doc(t, m);
    uint8_t from = d ? d->tier : 0;
    pthread_rwlock_unlock(&t->lock);
    if (d) load_for_move(v, t, m->chunk_id, from, tier_of(m), &ld[i]);
  }
  /* Memory: out of the dense indexes for those that leave them (one pass: a removal
   * compacts the whole index), the docs and words, then into them for those that enter
   * (one call per field). A move between hot and warm changes no index. */
  pthread_rwlock_wrlock(&t->lock);
  for (size_t i = 0; i < n; i++) {
    const Engram__V1__TierMove *m = mv->moves[i];
    vdoc *d = moved_doc(t, m);
    if (!d) continue;
    eg_vaccess_of(m->access, &d->acc);
    uint8_t from = d->tier, to = tier_of(m);
    if ((act[i] = to != from) && eg_vt_indexed(from) && !eg_vt_indexed(to))
      out_b.slots[out_b.n++] = (uint32_t)m->slot;
  }
  eg_vt_unindex(t, out_b.slots, out_b.n);
  for (size_t i = 0; i < n; i++) {
    if (!act[i]) continue;
    const Engram__V1__TierMove *m = mv->moves[i];
    uint32_t slot = (uint32_t)m->slot;
    uint8_t from = t->docs[slot].tier, to = tier_of(m);
    if (to == EG_TIER_EVICTED) {
      eg_vt_remove_doc(v, t, slot, true);
      t->n_tier[EG_TIER_EVICTED]++;
      out->evicted++;
      continue;
    }
    set_tier(t, slot, to, m->tier_since, ld[i].terms, ld[i].terms_len);
    ++*(to < from ? &out->promoted : &out->demoted);
    if (eg_vt_indexed(to) && !eg_vt_indexed(from) && ld[i].vecs && row) {
      memcpy(in.vecs + in.n * row, ld[i].vecs, row * sizeof(float));
      in.slots[in.n++] = slot;
    }
  }
  eg_err err = {0};
  if (eg_vt_add_vectors(v, t, in.slots, in.vecs, in.n, &err))
    EG_WARN("vec", "tier move: index add failed", "error=\"%s\"", err.msg);
  eg_vt_maybe_rebuild(v, t);
  pthread_rwlock_unlock(&t->lock);
done:
  for (size_t i = 0; ld && i < n; i++) free(ld[i].vecs), free(ld[i].terms);
  free(ld);
  free(out_b.slots), free(in.slots), free(in.vecs);
  free(act);
}

/* Record the moves (a tier_since of now for those that change tier) as one write of t
 * and apply it. Caller holds t->writer. */
static eg_code commit_moves(eg_vec *v, vtenant *t, const Engram__V1__Scope *scope, const vmove *mv,
                            size_t n, vresult *out, eg_err *err) {
  memset(out, 0, sizeof *out);
  if (!n) return EG_OK;
  eg_arena *a = eg_arena_new(1 << 14, 0);
  Engram__V1__VectorMoves *vm = a ? eg_arena_alloc(a, sizeof *vm) : NULL;
  Engram__V1__TierMove *ms = a ? eg_arena_alloc(a, n * sizeof *ms) : NULL;
  Engram__V1__TierMove **mp = a ? eg_arena_alloc(a, n * sizeof *mp) : NULL;
  Engram__V1__AccessHistory *ah = a ? eg_arena_alloc(a, n * sizeof *ah) : NULL;
  if (!vm || !ms || !mp || !ah) {
    eg_arena_free(a);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  engram__v1__vector_moves__init(vm);
  int64_t now = eg_time_now_us();
  pthread_rwlock_rdlock(&t->lock);
  for (size_t i = 0; i < n; i++) {
    engram__v1__tier_move__init(&ms[i]);
    ms[i].chunk_id = mv[i].chunk_id;
    ms[i].slot = mv[i].slot;
    ms[i].tier = (Engram__V1__RetentionTier)mv[i].after.tier;
    ms[i].tier_since = mv[i].after.tier != t->docs[mv[i].slot].tier ? now : mv[i].after.tier_since;
    eg_vaccess_msg(a, &mv[i].after.acc, &ah[i]);
    ms[i].access = &ah[i];
    mp[i] = &ms[i];
  }
  pthread_rwlock_unlock(&t->lock);
  vm->moves = mp;
  vm->n_moves = n;
  vwrite w;
  eg_code rc = eg_vw_begin(v, t->name, scope ? scope->user : "", true, a, &w, err);
  if (!rc) {
    w.body.write_case = ENGRAM__V1__VECTOR_WRITE__WRITE_MOVES;
    w.body.moves = vm;
    rc = eg_vw_commit(&w, t, 0, out, err);
  }
  eg_arena_free(a);
  return rc;
}

static void count_moves(eg_vec *v, uint64_t promoted, uint64_t demoted, uint64_t evicted) {
  eg_series_add(v->m_promoted, (double)promoted);
  eg_series_add(v->m_demoted, (double)demoted);
  eg_series_add(v->m_evicted, (double)evicted);
}

/* ---- sweeps
 * -------------------------------------------------------------------------------------- */

typedef struct rank {
  uint32_t i; /* index into the sweep's arrays */
  double r;
} rank;

static int by_r_desc(const void *a, const void *b) {
  double x = ((const rank *)a)->r, y = ((const rank *)b)->r;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Tier `from` may hold at most `max` (0 = no bound): the lowest R beyond it go to `to`. */
static void bound_tier(uint8_t *want, const double *r, size_t n, eg_tier from, eg_tier to,
                       uint64_t max) {
  if (!max) return;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += want[i] == from;
  if (k <= max) return;
  rank *rk = malloc(k * sizeof *rk);
  if (!rk) return;
  k = 0;
  for (size_t i = 0; i < n; i++)
    if (want[i] == from) rk[k++] = (rank){(uint32_t)i, r[i]};
  qsort(rk, k, sizeof *rk, by_r_desc);
  for (size_t j = max; j < k; j++) want[rk[j].i] = (uint8_t)to;
  free(rk);
}

/* Evaluate every live chunk of t at `at` and move those whose tier changes. Caller holds
 * t->writer. */
static eg_code sweep_tenant(eg_vec *v, vtenant *t, int64_t at, vresult *out, eg_err *err) {
  memset(out, 0, sizeof *out);
  pthread_rwlock_rdlock(&t->lock);
  size_t n = t->n_slots, m = 0;
  uint32_t *slot = malloc((n ? n : 1) * sizeof *slot);
  double *r = malloc((n ? n : 1) * sizeof *r);
  uint8_t *want = malloc(n ? n : 1);
  const eg_ret_policy *p = &t->pol;
  for (size_t s = 0; slot && r && want && s < n; s++) {
    const vdoc *d = &t->docs[s];
    if (!d->live) continue;
    slot[m] = (uint32_t)s;
    r[m] = eg_vret_r(t, d, at);
    want[m] = (uint8_t)eg_ret_tier_of(p, r[m]);
    m++;
  }
  pthread_rwlock_unlock(&t->lock);
  if (!slot || !r || !want) {
    free(slot), free(r), free(want);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  if (!p->disabled) {
    bound_tier(want, r, m, EG_TIER_HOT, EG_TIER_WARM, p->hot_max);
    bound_tier(want, r, m, EG_TIER_WARM, EG_TIER_COLD, p->warm_max);
  }
  /* The moves (docs read under the lock again: only this writer changes tiers). */
  vmove *mv = calloc(m ? m : 1, sizeof *mv);
  size_t nm = 0;
  eg_code rc = mv ? EG_OK : eg_err_set(err, EG_ENOMEM, "out of memory");
  pthread_rwlock_rdlock(&t->lock);
  for (size_t i = 0; !rc && i < m; i++) {
    const vdoc *d = &t->docs[slot[i]];
    uint8_t to = want[i];
    if (to == EG_TIER_COLD && p->evict_days > 0 && !p->disabled && !d->staged) {
      int64_t used =
          eg_access_last(&d->acc) > d->stored_at ? eg_access_last(&d->acc) : d->stored_at;
      if ((double)(at - used) > p->evict_days * (double)US_PER_DAY) to = EG_TIER_EVICTED;
    }
    if (to == d->tier) continue;
    mv[nm] = (vmove){slot[i], d->chunk_id, *d};
    mv[nm].after.tier = to;
    mv[nm].after.entities = NULL;
    nm++;
  }
  pthread_rwlock_unlock(&t->lock);
  if (!rc) rc = commit_moves(v, t, NULL, mv, nm, out, err);
  free(mv);
  free(slot), free(r), free(want);
  if (!rc && out->evicted)
    EG_INFO("audit", "evict", "tenant=\"%s\" chunks=%llu policy_evict_cold_after_days=%g at=%lld",
            t->name, (unsigned long long)out->evicted, p->evict_days, (long long)at);
  return rc;
}

static void tier_counts(eg_arena *a, const vtenant *t, Engram__V1__TierCount ***out, size_t *n) {
  *out = eg_arena_calloc(a, 4, sizeof **out);
  *n = 0;
  for (int i = EG_TIER_HOT; *out && i <= EG_TIER_EVICTED; i++) {
    Engram__V1__TierCount *c = eg_arena_calloc(a, 1, sizeof *c);
    if (!c) return;
    engram__v1__tier_count__init(c);
    c->tier = (eg_tier)i;
    c->count = t->n_tier[i];
    (*out)[(*n)++] = c;
  }
}

eg_code eg_vec_sweep(eg_vec *v, const Engram__V1__SweepRetentionRequest *req, eg_arena *a,
                     Engram__V1__SweepRetentionResponse *resp, eg_err *err) {
  if (req->at < 0) return eg_err_set(err, EG_EINVAL, "at must not be negative");
  eg_code rc;
  vtenant *t = eg_vt_get(v, req->scope->tenant, false, &rc, err);
  if (!t) return rc;
  vresult o;
  pthread_mutex_lock(&t->writer);
  rc = sweep_tenant(v, t, req->at ? req->at : eg_time_now_us(), &o, err);
  pthread_mutex_unlock(&t->writer);
  if (rc) return rc;
  count_moves(v, o.promoted, o.demoted, o.evicted);
  resp->promoted = o.promoted;
  resp->demoted = o.demoted;
  resp->evicted = o.evicted;
  if (o.evicted) resp->evicted_at = eg_time_now_us();
  pthread_rwlock_rdlock(&t->lock);
  tier_counts(a, t, &resp->tiers, &resp->n_tiers);
  pthread_rwlock_unlock(&t->lock);
  return EG_OK;
}

typedef struct name_list {
  char **v;
  size_t n;
} name_list;

static bool add_name(void *ctx, const void *k, size_t kl, void *val) {
  (void)val;
  name_list *l = ctx;
  l->v[l->n++] = strndup(k, kl);
  return true;
}

/* The background sweeper: every sweep_secs, each loaded tenant whose writer is free. */
static void *sweeper_main(void *arg) {
  eg_vec *v = arg;
  for (;;) {
    pthread_mutex_lock(&v->smu);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += v->o.sweep_secs;
    while (!v->stopping && pthread_cond_timedwait(&v->scv, &v->smu, &until) == 0) {
    }
    bool stop = v->stopping;
    pthread_mutex_unlock(&v->smu);
    if (stop) return NULL;
    pthread_mutex_lock(&v->tmu);
    name_list nl = {calloc(eg_map_count(v->tenants) + 1, sizeof(char *)), 0};
    if (nl.v) eg_map_each(v->tenants, add_name, &nl);
    pthread_mutex_unlock(&v->tmu);
    char **names = nl.v;
    for (size_t i = 0; i < nl.n; i++) {
      /* A sweep writes: only the writer of a replicated shard sweeps, and its moves go to
       * the log like any write's. The gate first, as a write handler takes it (a role
       * change waiting for the gate must not wait behind a writer waiting for it). */
      eg_err err = {0};
      if (eg_replica_write_begin(v->replica, &err)) {
        free(names[i]);
        continue;
      }
      /* The tenant is looked up and its writer taken under tmu, so an erasure that drops it
       * (eg_vt_forget) waits for this sweep; a busy writer is left for the next round. */
      pthread_mutex_lock(&v->tmu);
      vtenant *t = names[i] ? eg_map_get(v->tenants, names[i], strlen(names[i])) : NULL;
      bool got = t && pthread_mutex_trylock(&t->writer) == 0;
      pthread_mutex_unlock(&v->tmu);
      free(names[i]);
      vresult o = {0};
      if (got && !t->pol.disabled && sweep_tenant(v, t, eg_time_now_us(), &o, &err))
        EG_WARN("vec", "retention sweep failed", "error=\"%s\"", err.msg);
      if (got) pthread_mutex_unlock(&t->writer);
      eg_replica_write_end(v->replica);
      count_moves(v, o.promoted, o.demoted, o.evicted);
    }
    free(names);
  }
}

void eg_vret_start(eg_vec *v) {
  if (!v->o.sweep_secs) return;
  v->sweeper_on = pthread_create(&v->sweeper, NULL, sweeper_main, v) == 0;
}

void eg_vret_stop(eg_vec *v) {
  if (!v->sweeper_on) return;
  pthread_mutex_lock(&v->smu);
  v->stopping = true;
  pthread_cond_broadcast(&v->scv);
  pthread_mutex_unlock(&v->smu);
  pthread_join(v->sweeper, NULL);
  v->sweeper_on = false;
}

/* ---- accesses
 * -------------------------------------------------------------------------------------- */

/* A request's reader: its user's and agent's hashes, taken once. */
typedef struct reader {
  uint64_t user_h, agent_h;
} reader;

static reader reader_of(const Engram__V1__Scope *scope) {
  return (reader){eg_str_hash(scope->user), eg_str_hash(scope->agent)};
}

/* Can the reader see a chunk of this user/agent? (common/scope.h) */
static bool sees(reader r, const vdoc *d) {
  return eg_scope_visible(r.user_h != 0, d->user_h != 0, d->user_h == r.user_h, d->private_,
                          d->agent_h == r.agent_h);
}

eg_code eg_vec_record_access(eg_vec *v, const Engram__V1__RecordAccessRequest *req, eg_arena *a,
                             Engram__V1__RecordAccessResponse *resp, eg_err *err) {
  (void)a;
  if (req->n_ids > 10000) return eg_err_set(err, EG_EINVAL, "more than 10000 ids");
  if (req->time < 0) return eg_err_set(err, EG_EINVAL, "time must not be negative");
  eg_code rc;
  vtenant *t = eg_vt_get(v, req->scope->tenant, false, &rc, err);
  if (!t) return rc;
  int64_t when = req->time ? req->time : eg_time_now_us();
  reader who = reader_of(req->scope);
  vmove *mv = calloc(req->n_ids ? req->n_ids : 1, sizeof *mv);
  if (!mv) return eg_err_set(err, EG_ENOMEM, "out of memory");
  pthread_mutex_lock(&t->writer);
  size_t n = 0;
  pthread_rwlock_rdlock(&t->lock);
  for (size_t i = 0; i < req->n_ids; i++) {
    uintptr_t s = (uintptr_t)eg_map_get(t->by_chunk, &req->ids[i], 8);
    if (!s || !sees(who, &t->docs[s - 1])) continue;
    bool dup = false;
    for (size_t j = 0; j < n && !dup; j++) dup = mv[j].slot == s - 1;
    if (dup) continue;
    mv[n] = (vmove){(uint32_t)(s - 1), req->ids[i], t->docs[s - 1]};
    mv[n].after.entities = NULL;
    eg_access_add(&mv[n].after.acc, when);
    if (!t->pol.disabled) mv[n].after.tier = EG_TIER_HOT; /* used again: back to the hot tier */
    n++;
  }
  pthread_rwlock_unlock(&t->lock);
  vresult o;
  rc = commit_moves(v, t, req->scope, mv, n, &o, err);
  pthread_mutex_unlock(&t->writer);
  free(mv);
  if (rc) return rc;
  count_moves(v, o.promoted, 0, 0);
  resp->recorded = (uint32_t)n;
  resp->promoted = (uint32_t)o.promoted;
  return EG_OK;
}

/* ---- reading
 * -------------------------------------------------------------------------------------- */

static Engram__V1__RetentionInfo *info_of(eg_arena *a, const vtenant *t, const vdoc *d, uint64_t id,
                                          const char *source, bool bounded, int64_t at) {
  Engram__V1__RetentionInfo *o = eg_arena_calloc(a, 1, sizeof *o);
  char *why = eg_arena_alloc(a, 320);
  if (!o || !why) return NULL;
  engram__v1__retention_info__init(o);
  o->id = id;
  o->kind = "chunk";
  o->salience_source = (char *)source;
  o->tier_since = d->tier_since;
  eg_ret_info_fill(o, &t->pol, d->salience, d->stored_at, &d->acc, at, (eg_tier)d->tier, bounded,
                   why, 320);
  if (d->tier == EG_TIER_EVICTED) o->r = 0;
  return o;
}

/* Where a live chunk's salience came from: the lexicon when it gives the stored value. */
static const char *salience_source(eg_vec *v, const vtenant *t, const vdoc *d, eg_arena *a) {
  Engram__V1__Chunk *c = eg_vt_load_chunk(v, t->T, d->chunk_id, true, a);
  if (!c) return "unknown";
  const char *src;
  double lex = eg_salience_of(c->content && *c->content ? c->content : c->latent, &src);
  return fabs(lex - d->salience) < 1e-6 ? src : "client";
}

eg_code eg_vec_get_retention(eg_vec *v, const Engram__V1__GetRetentionRequest *req, eg_arena *a,
                             Engram__V1__GetRetentionResponse *resp, eg_err *err) {
  if (req->n_chunk_ids > 1000) return eg_err_set(err, EG_EINVAL, "more than 1000 chunk ids");
  if (req->at < 0) return eg_err_set(err, EG_EINVAL, "at must not be negative");
  eg_code rc;
  vtenant *t = eg_vt_get(v, req->scope->tenant, false, &rc, err);
  if (!t) return rc; /* unknown tenant: nothing */
  int64_t at = req->at ? req->at : eg_time_now_us();
  reader who = reader_of(req->scope);
  resp->items = eg_arena_calloc(a, req->n_chunk_ids ? req->n_chunk_ids : 1, sizeof *resp->items);
  resp->policy = eg_arena_calloc(a, 1, sizeof *resp->policy);
  if (!resp->items || !resp->policy) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < req->n_chunk_ids; i++) {
    uint64_t id = req->chunk_ids[i];
    vdoc d;
    bool found = false, bounded = false;
    pthread_rwlock_rdlock(&t->lock);
    uintptr_t s = (uintptr_t)eg_map_get(t->by_chunk, &id, 8);
    if (s && sees(who, &t->docs[s - 1])) {
      d = t->docs[s - 1];
      found = true;
      bounded = !t->pol.disabled && eg_ret_tier_of(&t->pol, eg_vret_r(t, &d, at)) < d.tier;
    }
    pthread_rwlock_unlock(&t->lock);
    const char *source = found ? salience_source(v, t, &d, a) : "evicted: content removed";
    if (!found) { /* an evicted chunk: its retention record is all that is left */
      uint8_t k[16];
      KEY2(k, t->T, id);
      char *val = NULL;
      size_t vl = 0;
      memset(&d, 0, sizeof d);
      found = eg_kv_get(v->kv, VCF_RETAIN, k, 16, &val, &vl, NULL) == EG_OK &&
              eg_vret_decode(val, vl, &d) && d.tier == EG_TIER_EVICTED && sees(who, &d);
      free(val);
    }
    if (!found) continue;
    Engram__V1__RetentionInfo *o = info_of(a, t, &d, id, source, bounded, at);
    if (!o) return eg_err_set(err, EG_ENOMEM, "out of memory");
    resp->items[resp->n_items++] = o;
  }
  pthread_rwlock_rdlock(&t->lock);
  eg_ret_policy_msg(&t->pol, resp->policy);
  tier_counts(a, t, &resp->tiers, &resp->n_tiers);
  pthread_rwlock_unlock(&t->lock);
  return EG_OK;
}

eg_code eg_vec_set_retention(eg_vec *v, const Engram__V1__SetRetentionPolicyRequest *req,
                             eg_arena *a, Engram__V1__SetRetentionPolicyResponse *resp,
                             eg_err *err) {
  eg_ret_policy p;
  eg_code rc = eg_ret_policy_of(req->policy, &p, err);
  if (rc) return rc;
  if (p.evict_days > 0 &&
      (!req->confirm_tenant || strcmp(req->confirm_tenant, req->scope->tenant) != 0))
    return eg_err_set(err, EG_EINVAL,
                      "a policy that evicts needs confirm_tenant equal to scope.tenant");
  vtenant *t = eg_vt_get(v, req->scope->tenant, true, &rc, err);
  if (!t) return rc;
  Engram__V1__RetentionPolicy *pm = eg_arena_alloc(a, sizeof *pm);
  if (!pm) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_ret_policy_msg(&p, pm);
  pthread_mutex_lock(&t->writer);
  vwrite w;
  if (!(rc = eg_vw_begin(v, req->scope->tenant, req->scope->user, true, a, &w, err))) {
    w.body.write_case = ENGRAM__V1__VECTOR_WRITE__WRITE_POLICY;
    w.body.policy = pm;
    rc = eg_vw_commit(&w, t, 0, NULL, err);
  }
  /* Retention turned off: every chunk back to the hot tier now, not at the next sweep. */
  vresult o = {0};
  if (!rc && p.disabled) rc = sweep_tenant(v, t, eg_time_now_us(), &o, err);
  pthread_mutex_unlock(&t->writer);
  if (rc) return rc;
  count_moves(v, o.promoted, o.demoted, o.evicted);
  resp->policy = eg_arena_calloc(a, 1, sizeof *resp->policy);
  if (!resp->policy) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_ret_policy_msg(&p, resp->policy);
  EG_INFO("audit", "retention_policy",
          "tenant=\"%s\" half_life_days=%g sigma=%g hot_min=%g warm_min=%g hot_max=%llu "
          "warm_max=%llu evict_cold_after_days=%g disabled=%d",
          req->scope->tenant, p.half_life_days, p.sigma, p.hot_min, p.warm_min,
          (unsigned long long)p.hot_max, (unsigned long long)p.warm_max, p.evict_days, p.disabled);
  return EG_OK;
}

uint64_t eg_vret_erase_evicted(eg_vec *v, eg_kvtxn *txn, uint64_t T, uint64_t user_h) {
  uint8_t from[16], to[16];
  KEY2(from, T, 0);
  KEY2(to, T + 1, 0);
  eg_kv_iter *it = eg_kv_iter_open(v->kv, VCF_RETAIN, from, 16, to, 16);
  uint64_t n = 0;
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl, vl;
    const char *k = eg_kv_iter_key(it, &kl);
    const char *val = eg_kv_iter_value(it, &vl);
    vdoc d;
    memset(&d, 0, sizeof d);
    if (!eg_vret_decode(val, vl, &d) || d.tier != EG_TIER_EVICTED || d.user_h != user_h) continue;
    eg_kvtxn_delete(txn, VCF_RETAIN, k, kl);
    n++;
  }
  eg_kv_iter_close(it);
  return n;
}
