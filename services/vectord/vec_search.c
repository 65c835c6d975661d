/*
 * vec_search.c — hybrid search and chunk retrieval.
 *
 * Per query: candidates come from both dense indexes and BM25 (a few times k each);
 * every candidate then gets all three signals — cosine with the content vector, cosine
 * with the latent vector, raw BM25 — so the fused score compares like with like:
 *   weighted:  S = x·content + y·latent + α·BM25 / max BM25 among the candidates
 *   RRF:       S = Σ over the three rankings of 1 / (rrf_k + rank)
 * With feedback_weight, each query vector then moves toward the mean content vector of its
 * best candidates and the search runs again with it (Rocchio pseudo-relevance feedback).
 * Filters (time, sessions, documents, roles, entities, user) apply to candidates; when
 * they leave few documents, those are scored exhaustively instead, so a narrow filter
 * never returns fewer hits than exist.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/scope.h"
#include "common/time.h"
#include "services/vectord/faiss_filter.h"
#include "services/vectord/qcache.h"
#include "services/vectord/vec_int.h"

/* Filtered documents always scored exhaustively up to this many. */
#define EXACT_MIN 4096
/* Past how many passing documents a filter is better served by walking the HNSW graph
 * with the filter than by scoring every passing document. A filter keeping a share s of a
 * graph of N chunks makes the walk visit about ef/s nodes, each comparing the query with
 * its 2·M level-0 neighbours: ~2·M·ef·N/passing distances, against `passing` documents
 * scored exhaustively (two dot products, BM25, fusion each). The two meet at
 * passing² = c·2·M·ef·N; EXACT_COST (c) is the cost of a graph distance relative to
 * scoring a document: about a twentieth, measured by bench_filter (the two met near 11k
 * passing chunks in a 300k tenant; bench/RESULTS.md). A flat index scans all its chunks
 * anyway: scoring only the passing ones never costs more. */
#define HNSW_M 32 /* "HNSW32" in vec.c */
#define EXACT_COST 0.05
static size_t exact_limit(const eg_vec *v, const vtenant *t) {
  if (v->o.filter_exact_max) return v->o.filter_exact_max;
  if (!t->hnsw) return t->n_slots > EXACT_MIN ? t->n_slots : EXACT_MIN;
  size_t total = t->dense[FIELD_CONTENT] ? (size_t)faiss_Index_ntotal(t->dense[FIELD_CONTENT]) : 0;
  double meet = sqrt(EXACT_COST * 2 * HNSW_M * v->o.hnsw_ef_search * (double)total);
  return meet > EXACT_MIN ? (size_t)meet : EXACT_MIN;
}

typedef struct vfilter {
  int64_t from, to;
  int64_t valid_before; /* valid_at's day ends here: chunks dated before it (0 = none) */
  int64_t known_at;     /* stored at or before it (0 = none) */
  uint64_t *sessions, *documents, *roles, *entities;
  size_t n_sessions, n_documents, n_roles, n_entities;
  uint64_t user_h;  /* the reader's user: its own chunks and the shared ones */
  uint64_t agent_h; /* the reader's agent: its private chunks */
  bool active;
} vfilter;

static bool in_list(const uint64_t *v, size_t n, uint64_t x) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

/* Is the chunk in the reader's view (common/scope.h) and inside the time bounds? */
static bool visible(const vfilter *f, const vdoc *d) {
  if (!eg_scope_visible(f->user_h != 0, d->user_h != 0, d->user_h == f->user_h, d->private_,
                        d->agent_h == f->agent_h))
    return false;
  if (f->valid_before && d->time >= f->valid_before) return false;
  return !(f->known_at && d->stored_at > f->known_at);
}

static bool passes(const vtenant *t, const vfilter *f, uint32_t slot) {
  if (slot >= t->n_slots || !t->docs[slot].live || t->docs[slot].staged) return false;
  if (!f->active) return true;
  const vdoc *d = &t->docs[slot];
  if (!visible(f, d)) return false;
  if (f->from && d->time < f->from) return false;
  if (f->to && d->time >= f->to) return false;
  if (f->n_sessions && !in_list(f->sessions, f->n_sessions, d->session_h)) return false;
  if (f->n_documents && !in_list(f->documents, f->n_documents, d->document_h)) return false;
  if (f->n_roles && !in_list(f->roles, f->n_roles, d->role_h)) return false;
  if (f->n_entities) {
    bool any = false;
    for (uint32_t i = 0; i < d->n_entities && !any; i++)
      any = in_list(f->entities, f->n_entities, d->entities[i]);
    if (!any) return false;
  }
  return true;
}

static int keep_cb(void *ctx, uint32_t slot) {
  void **c = ctx;
  return passes(c[0], c[1], slot);
}

typedef struct user_of {
  const vtenant *t;
  uint64_t user_h;
} user_of;

static int of_user(void *ctx, uint32_t slot) {
  const user_of *u = ctx;
  return slot < u->t->n_slots && u->t->docs[slot].user_h == u->user_h;
}

static uint64_t *hash_list(eg_arena *a, char **v, size_t n) {
  uint64_t *h = eg_arena_alloc(a, (n ? n : 1) * sizeof *h);
  for (size_t i = 0; h && i < n; i++) h[i] = eg_str_hash(v[i]);
  return h;
}

/* The reader's view: its scope's user (or the filter's, which must then agree) and
 * agent, and the tenant's own counts: a filter is needed only when the tenant holds
 * private chunks or the reader names a user. */
static eg_code build_view(const Engram__V1__Scope *scope, const Engram__V1__SearchFilter *sf,
                          vfilter *f, eg_err *err) {
  const char *su = scope && scope->user && *scope->user ? scope->user : NULL;
  const char *fu = sf && sf->user && *sf->user ? sf->user : NULL;
  if (su && fu && strcmp(su, fu) != 0)
    return eg_err_set(err, EG_EPERM,
                      "filter.user must be the scope's user (a user reads only their own memory)");
  f->user_h = eg_str_hash(su ? su : fu);
  f->agent_h = eg_str_hash(scope ? scope->agent : NULL);
  return EG_OK;
}

static eg_code build_filter(const Engram__V1__Scope *scope, const Engram__V1__SearchFilter *sf,
                            eg_arena *a, vfilter *f, eg_err *err) {
  memset(f, 0, sizeof *f);
  eg_code rc = build_view(scope, sf, f, err);
  if (rc || !sf) {
    f->active = f->user_h;
    return rc;
  }
  if (sf->valid_at < 0 || sf->known_at < 0)
    return eg_err_set(err, EG_EINVAL, "filter.valid_at and filter.known_at must not be negative");
  /* A chunk is dated by its session's or document's day: a session of the same day as
   * valid_at, even later that day, is not "after" it (sources stamp the hour loosely). */
  if (sf->valid_at) f->valid_before = (sf->valid_at / EG_US_PER_DAY + 1) * EG_US_PER_DAY;
  f->known_at = sf->known_at;
  if (sf->n_session_ids > 1000 || sf->n_document_ids > 1000 || sf->n_roles > 16 ||
      sf->n_entity_ids > 1000)
    return eg_err_set(err, EG_EINVAL, "filter lists are limited to 1000 entries (16 roles)");
  if (sf->time) {
    f->from = sf->time->from;
    f->to = sf->time->to;
    if (f->from && f->to && f->to <= f->from)
      return eg_err_set(err, EG_EINVAL, "filter.time.to must be after from");
  }
  f->sessions = hash_list(a, sf->session_ids, f->n_sessions = sf->n_session_ids);
  f->documents = hash_list(a, sf->document_ids, f->n_documents = sf->n_document_ids);
  f->roles = hash_list(a, sf->roles, f->n_roles = sf->n_roles);
  f->entities = sf->entity_ids;
  f->n_entities = sf->n_entity_ids;
  f->active = f->from || f->to || f->valid_before || f->known_at || f->n_sessions ||
              f->n_documents || f->n_roles || f->n_entities || f->user_h;
  return EG_OK;
}

typedef struct cand {
  uint32_t slot;
  uint64_t chunk_id; /* captured under the lock, for loading the record after it */
  float cs, ls;      /* similarities with the query the score uses (after feedback, q') */
  float cs0, ls0;    /* with feedback: the similarities with the query as given */
  double bm;
  double bm_words; /* bm's share from the words said (without concepts); -1: not yet known */
  double bn;       /* bm normalized as fused (the hits' bm25_norm) */
  float score;
} cand;

/* Candidate index by slot: open addressing over slot+1 (0 = empty), grown at half load. */
typedef struct slotset {
  uint32_t *key, *val; /* val: index into the candidate array */
  size_t cap, n;
} slotset;

static size_t slot_hash(uint32_t s, size_t cap) { return ((size_t)s * 2654435761u) & (cap - 1); }

static uint32_t *slotset_find(slotset *ss, uint32_t slot) {
  if (!ss->cap) return NULL;
  for (size_t i = slot_hash(slot, ss->cap);; i = (i + 1) & (ss->cap - 1)) {
    if (!ss->key[i]) return NULL;
    if (ss->key[i] == slot + 1) return &ss->val[i];
  }
}

static bool slotset_put(slotset *ss, uint32_t slot, uint32_t val) {
  if ((ss->n + 1) * 2 > ss->cap) {
    size_t nc = ss->cap ? ss->cap * 2 : 512;
    uint32_t *nk = calloc(nc, sizeof *nk), *nv = malloc(nc * sizeof *nv);
    if (!nk || !nv) {
      free(nk), free(nv);
      return false;
    }
    for (size_t i = 0; i < ss->cap; i++) {
      if (!ss->key[i]) continue;
      size_t j = slot_hash(ss->key[i] - 1, nc);
      while (nk[j]) j = (j + 1) & (nc - 1);
      nk[j] = ss->key[i];
      nv[j] = ss->val[i];
    }
    free(ss->key), free(ss->val);
    ss->key = nk;
    ss->val = nv;
    ss->cap = nc;
  }
  size_t i = slot_hash(slot, ss->cap);
  while (ss->key[i]) i = (i + 1) & (ss->cap - 1);
  ss->key[i] = slot + 1;
  ss->val[i] = val;
  ss->n++;
  return true;
}

typedef struct qctx {
  vtenant *t;
  const vfilter *f;
  const float *qv; /* NULL: no dense signal */
  const char *const *terms;
  size_t n_terms;
  eg_bm25_query bq;
  eg_bm25_query bqc; /* the same terms under the cold tier's statistics (cold_query) */
  bool bqc_ready;
  cand *c;
  size_t n, cap;
  slotset seen;       /* slot → index into c */
  uint32_t ef_search; /* HNSW search breadth */
  double concepts;    /* bm25_concepts: what a WordNet concept weighs beside a word (0: none) */
} qctx;

/* The query under the cold tier's statistics, prepared when a cold chunk first needs it: a
 * search that meets no cold chunk spends nothing on the cold tier. */
static const eg_bm25_query *cold_query(qctx *q) {
  if (!q->bqc_ready) eg_bm25_prepare(q->t->bm25_cold, q->terms, q->n_terms, &q->bqc);
  q->bqc_ready = true;
  return &q->bqc;
}

static float dot(const float *a, const float *b, int d) {
  float s = 0;
  for (int i = 0; i < d; i++) s += a[i] * b[i];
  return s;
}

static cand *cand_of(qctx *q, uint32_t slot) {
  uint32_t *at = slotset_find(&q->seen, slot);
  return at ? &q->c[*at] : NULL;
}

/* slot, known to pass the filter, as a candidate (once) */
static void add_passing(qctx *q, uint32_t slot) {
  if (slotset_find(&q->seen, slot)) return;
  if (q->n == q->cap) {
    size_t nc = q->cap ? q->cap * 2 : 256;
    cand *nn = realloc(q->c, nc * sizeof *nn);
    if (!nn) return;
    q->c = nn;
    q->cap = nc;
  }
  if (!slotset_put(&q->seen, slot, (uint32_t)q->n)) return;
  q->c[q->n] = (cand){slot, q->t->docs[slot].chunk_id, NAN, NAN, NAN, NAN, -1, -1, 0, 0};
  q->n++;
}

static void add_cand(qctx *q, uint32_t slot) {
  if (!slotset_find(&q->seen, slot) && passes(q->t, q->f, slot)) add_passing(q, slot);
}

/* Does the filtered HNSW search keep this slot: it passes the filter and is still in the
 * dense indexes (not a tombstone)? */
static int keep_indexed(void *ctx, idx_t id) {
  const qctx *q = ctx;
  return id >= 0 && passes(q->t, q->f, (uint32_t)id) && eg_vt_indexed(q->t->docs[id].tier);
}

/* The candidates a dense search found: l[i] < 0 or a cold slot is skipped. */
static void add_dense(qctx *q, int field, const float *d, const idx_t *l, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (l[i] < 0 || (size_t)l[i] >= q->t->n_slots || !eg_vt_indexed(q->t->docs[l[i]].tier))
      continue;
    add_cand(q, (uint32_t)l[i]);
    cand *c = cand_of(q, (uint32_t)l[i]);
    if (c) {
      if (field == FIELD_CONTENT)
        c->cs = d[i];
      else
        c->ls = d[i];
    }
  }
}

/* Candidates from the dense index of a field: its k best hot and warm chunks. Under a
 * filter too wide to score exhaustively, HNSW walks its graph keeping only the chunks the
 * filter passes (FAISS's ID selector), so a user holding a small share of a large tenant
 * still gets k of their own. Otherwise an HNSW
 * index keeps the vectors of chunks gone cold or dead (tombstones) until its next rebuild:
 * the search asks for as many more as their share of the index suggests, and again for
 * twice as many while fewer than k of the answers are live (at most 4096). */
static void dense_candidates(qctx *q, int field, size_t k) {
  vtenant *t = q->t;
  FaissIndex *ix = t->dense[field];
  if (!q->qv || !ix) return;
  size_t total = (size_t)faiss_Index_ntotal(ix);
  if (!total) return;
  size_t kk = t->tombstones ? k + k * t->tombstones / total + 16 : k, n = 0;
  float *d = NULL;
  idx_t *l = NULL;
  /* One query: FAISS's parallel region would wake threads with nothing to do (each then
   * clearing a visited table the size of the index, and spinning after it). */
  int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  if (q->f->active && t->hnsw) {
    n = k < total ? k : total;
    d = malloc(n * sizeof *d);
    l = malloc(n * sizeof *l);
    if (d && l &&
        !eg_faiss_search_filtered(ix, q->qv, (idx_t)n, (int)q->ef_search, keep_indexed, q, d, l))
      kk = 0; /* found: no unfiltered search */
    else
      EG_WARN("vec", "filtered HNSW search failed", "error=\"%s\"",
              d && l ? eg_faiss_filter_error() : "out of memory");
  }
  for (; kk;) {
    if (kk > total) kk = total;
    if (kk > 4096) kk = 4096;
    free(d);
    free(l);
    d = malloc(kk * sizeof *d);
    l = malloc(kk * sizeof *l);
    n = 0;
    if (!d || !l || faiss_Index_search(ix, 1, q->qv, (idx_t)kk, d, l) != 0) break;
    size_t live = 0;
    for (size_t i = 0; i < kk; i++)
      live += l[i] >= 0 && (size_t)l[i] < t->n_slots && t->docs[l[i]].live &&
              eg_vt_indexed(t->docs[l[i]].tier);
    n = kk;
    if (live >= k || kk == total || kk == 4096) break;
    kk *= 2;
  }
  omp_set_num_threads(threads);
  if (n) add_dense(q, field, d, l, n);
  free(d);
  free(l);
}

/* Fill the signals a candidate lacks: vectors one by one, BM25 for all of them at once
 * per index (one walk of each query term's postings). */
static void complete(qctx *q, float *buf) {
  vtenant *t = q->t;
  for (size_t i = 0; i < q->n; i++) {
    cand *c = &q->c[i];
    if (isnan(c->cs))
      c->cs = q->qv && eg_vt_vector(t, FIELD_CONTENT, c->slot, buf) ? dot(q->qv, buf, t->dim) : 0;
    if (isnan(c->ls))
      c->ls = q->qv && eg_vt_vector(t, FIELD_LATENT, c->slot, buf) ? dot(q->qv, buf, t->dim) : 0;
  }
  size_t cap = q->n ? q->n : 1;
  uint32_t *slots = malloc(cap * sizeof *slots), *at = malloc(cap * sizeof *at);
  double *bm = malloc(cap * sizeof *bm), *bw = malloc(cap * sizeof *bw);
  for (int cold = 0; cold < 2; cold++) {
    size_t m = 0;
    for (size_t i = 0; i < q->n; i++) {
      cand *c = &q->c[i];
      if (c->bm >= 0 || (t->docs[c->slot].tier == EG_TIER_COLD) != cold) continue;
      if (!slots || !at || !bm || !bw) /* out of memory: one by one */
        c->bm = eg_bm25_score(eg_vt_bm25(t, t->docs[c->slot].tier), cold ? cold_query(q) : &q->bq,
                              c->slot);
      else
        slots[m] = c->slot, at[m++] = (uint32_t)i;
    }
    if (!m) continue;
    eg_bm25_score_many(cold ? t->bm25_cold : t->bm25, cold ? cold_query(q) : &q->bq, slots, m, bm,
                       bw);
    for (size_t j = 0; j < m; j++) q->c[at[j]].bm = bm[j], q->c[at[j]].bm_words = bw[j];
  }
  free(slots);
  free(at);
  free(bm);
  free(bw);
}

static int by_score(const void *a, const void *b) {
  float x = ((const cand *)a)->score, y = ((const cand *)b)->score;
  if (x != y) return x < y ? 1 : -1;
  return ((const cand *)a)->slot > ((const cand *)b)->slot ? 1 : -1;
}

typedef struct rank_item {
  size_t i;
  double v;
} rank_item;

static int by_v(const void *a, const void *b) {
  double x = ((const rank_item *)a)->v, y = ((const rank_item *)b)->v;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* A candidate's BM25 from the words it says, not from WordNet concepts (its tier's index):
 * scored with its BM25 when it was completed, else now, once. */
static double words_bm(qctx *q, cand *c) {
  if (q->concepts <= 0) return c->bm;
  if (c->bm <= 0) return 0;
  if (c->bm_words >= 0) return c->bm_words;
  int tier = q->t->docs[c->slot].tier;
  c->bm_words = eg_bm25_score_words(eg_vt_bm25(q->t, tier),
                                    tier == EG_TIER_COLD ? cold_query(q) : &q->bq, c->slot);
  return c->bm_words;
}

/* BM25 is normalized by the best match, m. A match by WordNet concepts alone is no full
 * match: those are normalized by the larger of m and their own best divided by the concepts'
 * weight, so the best of them counts at most at the weight and the others in proportion (else
 * a chunk that says "bakery" would be the best BM25 match there is for "workplace", whether or
 * not a weaker chunk says another word of the query). */
static void normalize_bm25(qctx *q) {
  double w = q->concepts, m = 0, co = 0;
  for (size_t i = 0; i < q->n; i++)
    if (q->c[i].bm > m) m = q->c[i].bm;
  for (size_t i = 0; w > 0 && i < q->n; i++) /* below w·m a best would not move the scale */
    if (q->c[i].bm > w * m && q->c[i].bm > co && words_bm(q, &q->c[i]) <= 0) co = q->c[i].bm;
  double nco = w > 0 && co / w > m ? co / w : m;
  for (size_t i = 0; i < q->n; i++) {
    cand *c = &q->c[i];
    bool alone = nco > m && c->bm > 0 && words_bm(q, c) <= 0; /* by concepts alone */
    c->bn = c->bm <= 0 ? 0 : c->bm / (alone ? nco : m);
  }
}

static void fuse(qctx *q, const Engram__V1__SearchRequest *req, float x, float y, float al) {
  normalize_bm25(q);
  if (req->fusion == ENGRAM__V1__FUSION_MODE__FUSION_MODE_RRF) {
    double rk = req->rrf_k ? req->rrf_k : 60;
    rank_item *r = malloc((q->n ? q->n : 1) * sizeof *r);
    for (int s = 0; r && s < 3; s++) {
      for (size_t i = 0; i < q->n; i++)
        r[i] = (rank_item){i, s == 0 ? q->c[i].cs : s == 1 ? q->c[i].ls : q->c[i].bm};
      if (q->n > 1) qsort(r, q->n, sizeof *r, by_v);
      for (size_t j = 0; j < q->n; j++)
        if (s < 2 || r[j].v > 0) q->c[r[j].i].score += (float)(1.0 / (rk + (double)j + 1));
    }
    free(r);
  } else {
    for (size_t i = 0; i < q->n; i++)
      q->c[i].score = x * q->c[i].cs + y * q->c[i].ls + al * (float)q->c[i].bn;
  }
  /* Retention: a small prior by R in weighted fusion (docs/retention.md) */
  const eg_ret_policy *p = &q->t->pol;
  if (req->fusion != ENGRAM__V1__FUSION_MODE__FUSION_MODE_RRF && !p->disabled &&
      p->prior_weight > 0) {
    int64_t now = eg_time_now_us();
    for (size_t i = 0; i < q->n; i++)
      q->c[i].score += (float)eg_ret_prior(p, eg_vret_r(q->t, &q->t->docs[q->c[i].slot], now));
  }
  if (q->n > 1) qsort(q->c, q->n, sizeof *q->c, by_score);
}

/* Pseudo-relevance feedback: the query vector moved toward the mean content vector of the
 * first ranking's best candidates (q->c is sorted), then candidates found again with it
 * unless the filter put every document among them already, and all of them scored again. */
static bool feedback(qctx *q, const Engram__V1__SearchRequest *req, bool exhaustive, size_t kk,
                     float *qbuf, float *buf, float x, float y, float al) {
  vtenant *t = q->t;
  size_t m = req->feedback_docs ? req->feedback_docs : 3, used = 0;
  memset(qbuf, 0, (size_t)t->dim * sizeof *qbuf);
  for (size_t j = 0; j < m && j < q->n; j++) {
    if (!eg_vt_vector(t, FIELD_CONTENT, q->c[j].slot, buf)) continue;
    for (int d = 0; d < t->dim; d++) qbuf[d] += buf[d];
    used++;
  }
  if (!used) return false;
  float w = req->feedback_weight / (float)used;
  const float *q0 = q->qv;
  for (int d = 0; d < t->dim; d++) qbuf[d] = q0[d] + w * qbuf[d];
  eg_l2_normalize(qbuf, t->dim);
  q->qv = qbuf;
  size_t n0 = q->n;
  for (size_t j = 0; j < n0; j++) {
    cand *c = &q->c[j];
    c->cs0 = c->cs;
    c->ls0 = c->ls;
    c->cs = c->ls = NAN;
    c->score = 0;
  }
  if (!exhaustive) {
    dense_candidates(q, FIELD_CONTENT, kk);
    dense_candidates(q, FIELD_LATENT, kk);
  }
  complete(q, buf);
  for (size_t j = n0; j < q->n; j++) { /* found with q' only */
    cand *c = &q->c[j];
    c->cs0 = eg_vt_vector(t, FIELD_CONTENT, c->slot, buf) ? dot(q0, buf, t->dim) : 0;
    c->ls0 = eg_vt_vector(t, FIELD_LATENT, c->slot, buf) ? dot(q0, buf, t->dim) : 0;
  }
  fuse(q, req, x, y, al);
  return true;
}

typedef struct tok_list {
  eg_arena *a;
  char **v;
  size_t n, cap;
} tok_list;

static void push_tok(void *ctx, const char *tok, size_t len) {
  tok_list *l = ctx;
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 16;
    char **nv = eg_arena_alloc(l->a, nc * sizeof *nv);
    if (!nv) return;
    if (l->n) memcpy(nv, l->v, l->n * sizeof *nv);
    l->v = nv;
    l->cap = nc;
  }
  l->v[l->n++] = eg_arena_strndup(l->a, tok, len);
}

Engram__V1__Chunk *eg_vt_load_chunk(eg_vec *v, uint64_t T, uint64_t id, bool content, eg_arena *a) {
  uint8_t k[16];
  KEY2(k, T, id);
  char *val;
  size_t vl;
  if (eg_kv_get(v->kv, VCF_CHUNKS, k, 16, &val, &vl, NULL) != EG_OK) return NULL;
  uint64_t slot;
  Engram__V1__Chunk *c = eg_chunk_decode(a, val, vl, &slot);
  free(val);
  if (c && !content) c->content = c->latent = "";
  return c;
}

static void add_timing(eg_arena *a, eg_vec *v, Engram__V1__StageTiming **t, const char *stage,
                       int64_t us) {
  Engram__V1__StageTiming *st = eg_arena_calloc(a, 1, sizeof *st);
  if (!st) return;
  engram__v1__stage_timing__init(st);
  st->stage = (char *)stage;
  st->micros = us;
  *t = st;
  const char *l[1] = {stage};
  eg_series_observe(eg_metric_series(v->m_stage_secs, l, 1), (double)us / 1e6);
}

/* Are two filters the same (the same bytes on the wire)? */
static bool same_filter(eg_arena *a, const Engram__V1__SearchFilter *x,
                        const Engram__V1__SearchFilter *y) {
  size_t n = engram__v1__search_filter__get_packed_size(x);
  if (n != engram__v1__search_filter__get_packed_size(y)) return false;
  uint8_t *bx = eg_arena_alloc(a, n ? n : 1), *by = eg_arena_alloc(a, n ? n : 1);
  if (!bx || !by) return false;
  engram__v1__search_filter__pack(x, bx);
  engram__v1__search_filter__pack(y, by);
  return memcmp(bx, by, n) == 0;
}

/* The slots a filter passes, listed while they are at most limit; passing > limit means
 * "more" (and so does a failed allocation). f->active gains the tenant's private chunks:
 * another agent's are never seen. */
typedef struct fpass {
  size_t passing;
  uint32_t *slots; /* malloc'ed */
} fpass;

static void find_passing(const vtenant *t, vfilter *f, size_t limit, fpass *p) {
  const vslots *us = f->user_h ? eg_map_get(t->by_user, &f->user_h, 8) : NULL;
  p->passing = 0;
  p->slots = NULL;
  f->active |= t->private_ > 0;
  if (!f->active) return;
  size_t cap = t->n_slots < limit ? t->n_slots : limit;
  p->slots = malloc((cap ? cap : 1) * sizeof *p->slots);
  /* a user's view of a tenant without shared chunks: only that user's slots can pass */
  bool own_only = f->user_h && !t->shared;
  size_t n = own_only ? (us ? us->n : 0) : t->n_slots;
  for (size_t i = 0; p->slots && i < n && p->passing <= limit; i++) {
    uint32_t s = own_only ? us->v[i] : (uint32_t)i;
    if (passes(t, f, s)) {
      if (p->passing < cap) p->slots[p->passing] = s;
      p->passing++;
    }
  }
  if (!p->slots) p->passing = limit + 1;
}

eg_code eg_vec_search(eg_vec *v, const Engram__V1__SearchRequest *req, eg_arena *a,
                      Engram__V1__SearchResponse *resp, eg_err *err) {
  size_t nq = req->n_queries;
  if (!nq) return eg_err_set(err, EG_EINVAL, "no queries");
  if (nq > v->o.max_queries)
    return eg_err_set(err, EG_EINVAL, "more than %u queries", v->o.max_queries);
  uint32_t k = req->k ? req->k : 10;
  if (k > v->o.max_k) return eg_err_set(err, EG_EINVAL, "k above the limit of %u", v->o.max_k);
  if (!(req->feedback_weight >= 0 && req->feedback_weight <= 10))
    return eg_err_set(err, EG_EINVAL, "feedback_weight must be in [0, 10]");
  if (req->feedback_docs > 100) return eg_err_set(err, EG_EINVAL, "feedback_docs above 100");
  int dim = v->emb->dim;
  for (size_t i = 0; i < nq; i++) {
    const Engram__V1__SearchQuery *q = req->queries[i];
    size_t tl = q->text ? strlen(q->text) : 0;
    if (tl > v->o.max_text_bytes)
      return eg_err_set(err, EG_EINVAL, "queries[%zu].text too long", i);
    if (q->n_vector && (int)q->n_vector != dim)
      return eg_err_set(err, EG_EINVAL, "queries[%zu].vector must have %d dimensions", i, dim);
    if (!tl && !q->n_vector)
      return eg_err_set(err, EG_EINVAL, "queries[%zu] has neither text nor vector", i);
    if (q->k > v->o.max_k)
      return eg_err_set(err, EG_EINVAL, "queries[%zu].k above the limit of %u", i, v->o.max_k);
  }
  /* The filters: fs[0] the request's, then each distinct one the queries carry (the
   * variants of a question share theirs), built once; query i uses fs[fof[i]]. */
  vfilter *fs = eg_arena_calloc(a, nq + 1, sizeof *fs);
  const Engram__V1__SearchFilter **src = eg_arena_calloc(a, nq + 1, sizeof *src);
  size_t *fof = eg_arena_calloc(a, nq, sizeof *fof), nf = 1;
  if (!fs || !src || !fof) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_code rc = build_filter(req->scope, req->filter, a, &fs[0], err);
  if (rc) return rc;
  vfilter *const f = &fs[0];
  for (size_t i = 0; i < nq; i++) {
    const Engram__V1__SearchFilter *own = req->queries[i]->filter;
    size_t j = 1;
    while (own && j < nf && !same_filter(a, src[j], own)) j++;
    fof[i] = own ? j : 0;
    if (!own || j < nf) continue;
    if ((rc = build_filter(req->scope, own, a, &fs[nf], err))) {
      char at[32];
      snprintf(at, sizeof at, "queries[%zu].", i);
      eg_err_prefix(err, at);
      return rc;
    }
    src[nf++] = own;
  }
  float x = v->o.x, y = v->o.y, al = v->o.alpha;
  if (req->weights && (req->weights->x || req->weights->y || req->weights->alpha)) {
    x = req->weights->x;
    y = req->weights->y;
    al = req->weights->alpha;
  }
  resp->results = eg_arena_calloc(a, nq, sizeof *resp->results);
  resp->timings = eg_arena_calloc(a, 5, sizeof *resp->timings);
  if (!resp->results || !resp->timings) return eg_err_set(err, EG_ENOMEM, "out of memory");
  resp->bm25_concepts = (float)v->o.bm25_concepts;
  for (size_t i = 0; i < nq; i++) {
    resp->results[i] = eg_arena_calloc(a, 1, sizeof **resp->results);
    if (!resp->results[i]) return eg_err_set(err, EG_ENOMEM, "out of memory");
    engram__v1__query_hits__init(resp->results[i]);
  }
  resp->n_results = nq;
  /* Embed the texts of queries that came without a vector, in one batch. */
  int64_t t0 = eg_time_mono_us();
  float *qv = eg_arena_alloc(a, nq * (size_t)dim * sizeof(float));
  const char **texts = eg_arena_alloc(a, nq * sizeof *texts);
  size_t *at = eg_arena_alloc(a, nq * sizeof *at), ne = 0;
  if (!qv || !texts || !at) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < nq; i++) {
    const Engram__V1__SearchQuery *q = req->queries[i];
    if (q->n_vector) {
      memcpy(qv + i * dim, q->vector, (size_t)dim * sizeof(float));
      eg_l2_normalize(qv + i * dim, dim);
    } else if (eg_qcache_get(v->qcache, q->text, qv + i * dim)) {
      eg_series_add(v->m_qcache_hits, 1);
    } else {
      texts[ne] = q->text;
      at[ne++] = i;
    }
  }
  if (ne) {
    float *tmp = eg_arena_alloc(a, ne * (size_t)dim * sizeof(float));
    if (!tmp) return eg_err_set(err, EG_ENOMEM, "out of memory");
    if ((rc = eg_embed(v->emb, texts, ne, tmp, err))) {
      eg_err_prefix(err, "embedding: ");
      return rc == EG_EINVAL ? rc : EG_EUNAVAIL;
    }
    for (size_t j = 0; j < ne; j++) {
      memcpy(qv + at[j] * dim, tmp + j * dim, (size_t)dim * sizeof(float));
      eg_qcache_put(v->qcache, texts[j], tmp + j * dim);
    }
  }
  int64_t t_embed = eg_time_mono_us() - t0, t_dense = 0, t_bm25 = 0, t_fuse = 0;
  /* Query terms. */
  tok_list *tl = eg_arena_calloc(a, nq, sizeof *tl);
  eg_tokenizer *tk = eg_vt_tokenizer(v);
  if (!tl || !tk) {
    eg_vt_tokenizer_put(v, tk);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < nq; i++) {
    tl[i].a = a;
    const char *s = req->queries[i]->text ? req->queries[i]->text : "";
    if (eg_tokenize(tk, s, strlen(s), push_tok, &tl[i]) != EG_OK) {
      eg_vt_tokenizer_put(v, tk);
      return eg_err_set(err, EG_EINVAL, "queries[%zu].text is not valid UTF-8", i);
    }
    /* each word also meets the chunks that hold it as a concept, not a word (at the
     * weight eg_bm25_prefix_weight gives them) */
    for (size_t j = 0, said = tl[i].n; v->o.bm25_concepts > 0 && j < said; j++) {
      char term[EG_TOKEN_MAX + 1];
      int m = snprintf(term, sizeof term, "%c%s", EG_CONCEPT_PREFIX, tl[i].v[j]);
      if (m > 0 && (size_t)m < sizeof term) push_tok(&tl[i], term, (size_t)m);
    }
  }
  eg_vt_tokenizer_put(v, tk);
  vtenant *t = eg_vt_get(v, req->scope->tenant, false, &rc, err);
  if (!t) return rc; /* unknown tenant: empty results */
  uint32_t kmax = k;
  for (size_t i = 0; i < nq; i++)
    if (req->queries[i]->k > kmax) kmax = req->queries[i]->k;
  size_t kk = kmax * 5 < 64 ? 64 : kmax * 5; /* candidates per query and signal, at most */
  float *buf = malloc((size_t)dim * sizeof(float)), *fbuf = malloc((size_t)dim * sizeof(float));
  uint32_t *bslots = malloc(kk * sizeof *bslots);
  double *bscores = malloc(kk * sizeof *bscores);
  cand **tops = eg_arena_calloc(a, nq, sizeof *tops);
  size_t *ntops = eg_arena_calloc(a, nq, sizeof *ntops);
  pthread_rwlock_rdlock(&t->lock);
  bool dims_ok = !t->dim || t->dim == dim;
  /* A narrow filter: the few matching documents are scored exhaustively. Found once per
   * filter: the request's for all the queries without their own. */
  size_t limit = exact_limit(v, t);
  const vslots *us =
      f->user_h ? eg_map_get(t->by_user, &f->user_h, 8) : NULL; /* the user's live slots */
  fpass *fp = eg_arena_calloc(a, nf, sizeof *fp);
  for (size_t j = 0; fp && j < nf; j++) {
    bool used = j > 0;
    for (size_t i = 0; i < nq && !used; i++) used = fof[i] == 0;
    if (used) find_passing(t, &fs[j], limit, &fp[j]);
  }
  /* bm25_stats user: the user's documents, summed once for all the queries */
  user_of uo = {t, f->user_h};
  eg_bm25_subset user_docs;
  bool by_user = us && v->o.bm25_per_user;
  if (by_user) eg_bm25_subset_init(t->bm25, us->v, us->n, of_user, &uo, &user_docs);
  for (size_t i = 0; dims_ok && fp && buf && fbuf && bslots && bscores && tops && i < nq; i++) {
    const vfilter *fi = &fs[fof[i]];
    const fpass *pi = &fp[fof[i]];
    bool narrow = fi->active && pi->passing <= limit; /* scored exhaustively */
    uint32_t ki = req->queries[i]->k ? req->queries[i]->k : k;
    size_t kki = ki * 5 < 64 ? 64 : ki * 5;
    /* A zero query vector (no known word, no vector) carries no dense signal. */
    const float *qvi = qv + i * dim;
    bool zero = true;
    for (int d = 0; d < dim && zero; d++) zero = qvi[d] == 0;
    const char *const *terms = (const char *const *)tl[i].v;
    qctx q = {t,
              fi,
              t->dim && !zero ? qvi : NULL,
              terms,
              tl[i].n,
              {0},
              {0},
              false,
              NULL,
              0,
              0,
              {NULL, NULL, 0, 0},
              v->o.hnsw_ef_search,
              v->o.bm25_concepts};
    /* bm25_stats user: the statistics of the user's own chunks (bm25_user_prior blends the
     * tenant's in), so that a user's ranking does not hang on what else the tenant holds */
    if (by_user) {
      eg_bm25_prepare_within(t->bm25, terms, tl[i].n, &user_docs, v->o.bm25_user_prior, &q.bq);
    } else {
      eg_bm25_prepare(t->bm25, terms, tl[i].n, &q.bq);
    }
    int64_t s0 = eg_time_mono_us();
    if (narrow && q.qv) {
      for (size_t j = 0; j < pi->passing; j++) add_passing(&q, pi->slots[j]); /* passed above */
    } else {
      dense_candidates(&q, FIELD_CONTENT, kki);
      dense_candidates(&q, FIELD_LATENT, kki);
    }
    int64_t s1 = eg_time_mono_us();
    if (!narrow || !q.qv) {
      void *kc[2] = {t, (void *)fi};
      /* cold words: on request, or when a filter narrows the search to few chunks */
      bool with_cold = req->include_cold || narrow;
      for (int cold = 0; cold < 1 + with_cold; cold++) {
        size_t nb = eg_bm25_search(cold ? t->bm25_cold : t->bm25, cold ? cold_query(&q) : &q.bq,
                                   kki, fi->active ? keep_cb : NULL, kc, bslots, bscores);
        for (size_t j = 0; j < nb; j++) {
          add_cand(&q, bslots[j]);
          cand *c = cand_of(&q, bslots[j]);
          if (c) c->bm = bscores[j];
        }
      }
    }
    int64_t s2 = eg_time_mono_us();
    complete(&q, buf);
    fuse(&q, req, x, y, al);
    if (req->feedback_weight > 0 && q.qv && q.n)
      resp->results[i]->feedback = feedback(&q, req, narrow, kki, fbuf, buf, x, y, al);
    int64_t s3 = eg_time_mono_us();
    t_dense += s1 - s0;
    t_bm25 += s2 - s1;
    t_fuse += s3 - s2;
    size_t keep = q.n < ki ? q.n : ki;
    tops[i] = eg_arena_alloc(a, (keep ? keep : 1) * sizeof(cand));
    if (tops[i] && keep) memcpy(tops[i], q.c, keep * sizeof(cand));
    for (size_t j = 0; tops[i] && j < keep; j++) /* the hits' share of words said */
      tops[i][j].bm_words = words_bm(&q, &tops[i][j]);
    ntops[i] = tops[i] ? keep : 0;
    free(q.c);
    free(q.seen.key);
    free(q.seen.val);
  }
  uint64_t T = t->T;
  pthread_rwlock_unlock(&t->lock);
  free(buf);
  free(fbuf);
  free(bslots);
  free(bscores);
  for (size_t j = 0; fp && j < nf; j++) free(fp[j].slots);
  if (!dims_ok)
    return eg_err_set(err, EG_EPRECOND,
                      "this tenant's index has another dimension than the embedder (%s)",
                      v->emb->model_id);
  /* Hits with their chunk records: the distinct chunks of all the queries (the variants of
   * a question mostly find the same ones) read with one multi-get and decoded once, each
   * shared by the hits that name it. */
  int64_t l0 = eg_time_mono_us();
  size_t total = 0, m = 0;
  for (size_t i = 0; i < nq; i++) total += ntops[i];
  uint32_t *of = eg_arena_alloc(a, (total ? total : 1) * sizeof *of); /* hit → distinct chunk */
  uint64_t *ids = eg_arena_alloc(a, (total ? total : 1) * sizeof *ids);
  if (!of || !ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
  slotset distinct = {0};
  for (size_t i = 0, h = 0; i < nq; i++)
    for (size_t j = 0; j < ntops[i]; j++, h++) {
      const uint32_t *got = slotset_find(&distinct, tops[i][j].slot);
      if (!got && !slotset_put(&distinct, tops[i][j].slot, (uint32_t)m)) {
        free(distinct.key), free(distinct.val);
        return eg_err_set(err, EG_ENOMEM, "out of memory");
      }
      of[h] = got ? *got : (uint32_t)m;
      if (!got) ids[m++] = tops[i][j].chunk_id;
    }
  free(distinct.key), free(distinct.val);
  Engram__V1__Chunk **chunks = eg_arena_calloc(a, m ? m : 1, sizeof *chunks);
  uint8_t *keys = eg_arena_alloc(a, (m ? m : 1) * 16);
  const char **kp = eg_arena_alloc(a, (m ? m : 1) * sizeof *kp);
  size_t *kl = eg_arena_alloc(a, (m ? m : 1) * sizeof *kl),
         *vl = eg_arena_alloc(a, (m ? m : 1) * sizeof *vl);
  char **vals = eg_arena_alloc(a, (m ? m : 1) * sizeof *vals);
  uint32_t *index = eg_arena_alloc(a, (m ? m : 1) * sizeof *index); /* in resp->chunks */
  resp->chunks = req->shared_chunks ? eg_arena_alloc(a, (m ? m : 1) * sizeof *resp->chunks) : NULL;
  if (!chunks || !keys || !kp || !kl || !vl || !vals || !index ||
      (req->shared_chunks && !resp->chunks))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t j = 0; j < m; j++) {
    KEY2(keys + 16 * j, T, ids[j]);
    kp[j] = (const char *)keys + 16 * j;
    kl[j] = 16;
  }
  if ((rc = eg_kv_multi_get(v->kv, VCF_CHUNKS, m, kp, kl, vals, vl, err))) return rc;
  for (size_t j = 0; j < m; j++) {
    uint64_t slot;
    chunks[j] = vals[j] ? eg_chunk_decode(a, vals[j], vl[j], &slot) : NULL; /* NULL: deleted */
    if (chunks[j] && !req->include_content) chunks[j]->content = chunks[j]->latent = "";
    free(vals[j]);
    if (!chunks[j] || !req->shared_chunks) continue;
    index[j] = (uint32_t)resp->n_chunks;
    resp->chunks[resp->n_chunks++] = chunks[j];
  }
  for (size_t i = 0, h = 0; i < nq; i++) {
    Engram__V1__QueryHits *qh = resp->results[i];
    qh->hits = eg_arena_calloc(a, ntops[i] ? ntops[i] : 1, sizeof *qh->hits);
    if (!qh->hits) return eg_err_set(err, EG_ENOMEM, "out of memory");
    for (size_t j = 0; j < ntops[i]; j++, h++) {
      cand *c = &tops[i][j];
      Engram__V1__Chunk *ch = chunks[of[h]];
      if (!ch) continue; /* deleted meanwhile */
      Engram__V1__SearchHit *sh = eg_arena_calloc(a, 1, sizeof *sh);
      if (!sh) return eg_err_set(err, EG_ENOMEM, "out of memory");
      engram__v1__search_hit__init(sh);
      if (req->shared_chunks)
        sh->chunk_index = index[of[h]];
      else
        sh->chunk = ch;
      sh->score = c->score;
      sh->content_sim = qh->feedback ? c->cs0 : c->cs;
      sh->latent_sim = qh->feedback ? c->ls0 : c->ls;
      if (qh->feedback) {
        sh->feedback_content_sim = c->cs;
        sh->feedback_latent_sim = c->ls;
      }
      sh->bm25 = (float)c->bm;
      sh->bm25_words = (float)c->bm_words;
      sh->bm25_norm = (float)c->bn;
      qh->hits[qh->n_hits++] = sh;
    }
  }
  eg_series_add(v->m_searches, (double)nq);
  add_timing(a, v, &resp->timings[0], "embed", t_embed);
  add_timing(a, v, &resp->timings[1], "dense", t_dense);
  add_timing(a, v, &resp->timings[2], "bm25", t_bm25);
  add_timing(a, v, &resp->timings[3], "fuse", t_fuse);
  add_timing(a, v, &resp->timings[4], "load", eg_time_mono_us() - l0);
  resp->n_timings = 5;
  return EG_OK;
}

eg_code eg_vec_get(eg_vec *v, const Engram__V1__GetChunksRequest *req, eg_arena *a,
                   Engram__V1__GetChunksResponse *resp, eg_err *err) {
  if (req->n_ids > 10000) return eg_err_set(err, EG_EINVAL, "more than 10000 ids");
  if (req->neighbours > 50) return eg_err_set(err, EG_EINVAL, "neighbours above 50");
  eg_code rc;
  vtenant *t = eg_vt_get(v, req->scope->tenant, false, &rc, err);
  if (!t) return rc;
  /* The ids, then their session neighbours within ±neighbours turns. */
  size_t cap = req->n_ids * (1 + 2 * (size_t)req->neighbours) + 1, n = 0;
  uint64_t *ids = eg_arena_alloc(a, cap * sizeof *ids);
  if (!ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
  vfilter view = {0};
  if ((rc = build_view(req->scope, NULL, &view, err))) return rc;
  pthread_rwlock_rdlock(&t->lock);
  for (size_t i = 0; i < req->n_ids; i++) {
    uintptr_t s = (uintptr_t)eg_map_get(t->by_chunk, &req->ids[i], 8);
    if (!s || (t->docs[s - 1].staged && !req->include_staged)) continue;
    if (!visible(&view, &t->docs[s - 1])) continue; /* another user's: as if absent */
    if (!in_list(ids, n, req->ids[i])) ids[n++] = req->ids[i];
    if (!req->neighbours) continue;
    const vdoc *d = &t->docs[s - 1];
    if (!d->session_h) continue;
    for (size_t o = 0; o < t->n_slots && n < cap; o++) {
      const vdoc *e = &t->docs[o];
      if (!e->live || e->staged || e->session_h != d->session_h || !visible(&view, e)) continue;
      int diff = e->turn - d->turn;
      if (diff < 0) diff = -diff;
      if ((uint32_t)diff <= req->neighbours && !in_list(ids, n, e->chunk_id))
        ids[n++] = e->chunk_id;
    }
  }
  uint64_t T = t->T;
  pthread_rwlock_unlock(&t->lock);
  resp->chunks = eg_arena_calloc(a, n ? n : 1, sizeof *resp->chunks);
  if (!resp->chunks) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    Engram__V1__Chunk *c = eg_vt_load_chunk(v, T, ids[i], true, a);
    if (c) resp->chunks[resp->n_chunks++] = c;
  }
  return EG_OK;
}
