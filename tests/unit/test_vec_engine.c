/*
 * test_vec_engine.c — vectord's engine in-process, with client-provided vectors so that
 * the expected answers can be computed here: exact search equals brute force, HNSW
 * recall@10 ≥ 0.95, filters, delete, per-user erasure leaves no trace, a restart
 * (snapshot + replay) keeps every chunk, a different embedding model is refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/retention.h"
#include "common/time.h"
#include "lang/embed.h"
#include "services/vectord/vec.h"
#include "tests/testlib.h"

#define DIM 100

static char *dir;
static eg_embedder *emb;
static eg_metrics *engine_metrics; /* the metrics the next engine opened reports to (NULL: none) */
static uint32_t exact_max;         /* eg_vec_opts.filter_exact_max of the next engine opened */

static eg_vec *open_engine_bm25(uint32_t hnsw_threshold, bool bm25_per_user) {
  eg_vec_opts o = {.dir = dir,
                   .embedder = emb,
                   .bm25_k1 = 1.2,
                   .bm25_b = 0.75,
                   .bm25_per_user = bm25_per_user,
                   .x = 1,
                   .y = 0,
                   .alpha = 0,
                   .hnsw_threshold = hnsw_threshold,
                   .hnsw_ef_search = 128,
                   .filter_exact_max = exact_max,
                   .max_chunks = 10000,
                   .max_text_bytes = 65536,
                   .max_k = 1000,
                   .max_queries = 64};
  eg_vec *v = NULL;
  eg_err e;
  if (eg_vec_open(&o, engine_metrics, &v, &e)) fprintf(stderr, "open: %s\n", e.msg);
  return v;
}

static eg_vec *open_engine(uint32_t hnsw_threshold) {
  return open_engine_bm25(hnsw_threshold, false);
}

static unsigned rng = 12345;
static float frand(void) {
  rng = rng * 1103515245u + 12345u;
  return (float)((rng >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

static float vecs[6000][DIM];

static void make_vectors(size_t n) {
  for (size_t i = 0; i < n; i++) {
    for (int d = 0; d < DIM; d++) vecs[i][d] = frand();
    eg_l2_normalize(vecs[i], DIM);
  }
}

/* Upserts stage their chunks (test_staged_publish sets it). */
static bool upsert_staged;

/* Upsert chunks [from, to) of tenant with vectors vecs[i], ids i+1. */
static eg_code upsert(eg_vec *v, const char *tenant, const char *user, size_t from, size_t to) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  scope.user = (char *)user;
  size_t n = to - from;
  Engram__V1__Chunk **cs = eg_arena_alloc(a, n * sizeof *cs);
  for (size_t i = 0; i < n; i++) {
    Engram__V1__Chunk *c = eg_arena_calloc(a, 1, sizeof *c);
    engram__v1__chunk__init(c);
    c->id = from + i + 1;
    c->content =
        eg_arena_sprintf(a, "chunk number %zu %s", from + i, (from + i) % 7 == 0 ? "zyxwvut" : "");
    c->session_id = eg_arena_sprintf(a, "s%zu", (from + i) % 10);
    c->role = (from + i) % 2 ? "assistant" : "user";
    c->time = (int64_t)(from + i) * 1000000;
    c->content_vector = vecs[from + i];
    c->n_content_vector = DIM;
    c->latent_vector = vecs[from + i];
    c->n_latent_vector = DIM;
    uint64_t *ent = eg_arena_alloc(a, sizeof *ent);
    *ent = 100 + (from + i) % 3;
    c->entity_ids = ent;
    c->n_entity_ids = 1;
    c->staged = upsert_staged;
    cs[i] = c;
  }
  Engram__V1__UpsertRequest req = ENGRAM__V1__UPSERT_REQUEST__INIT;
  req.scope = &scope;
  req.chunks = cs;
  req.n_chunks = n;
  Engram__V1__UpsertResponse resp = ENGRAM__V1__UPSERT_RESPONSE__INIT;
  eg_err e;
  eg_code rc = eg_vec_upsert(v, &req, a, &resp, &e);
  if (rc) fprintf(stderr, "upsert: %s\n", e.msg);
  eg_arena_free(a);
  return rc;
}

/* Pseudo-relevance feedback search() asks for (test_feedback sets them), and the code of
 * its last call. */
static float fb_weight;
static uint32_t fb_docs;
static bool with_cold; /* SearchRequest.include_cold */
static eg_code last_rc;

/* Search one vector (or text); writes up to k ids. */
static size_t search(eg_vec *v, const char *tenant, const float *q, const char *text, size_t k,
                     const Engram__V1__SearchFilter *f, uint64_t *ids) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  Engram__V1__SearchQuery sq = ENGRAM__V1__SEARCH_QUERY__INIT, *qs[1] = {&sq};
  sq.vector = (float *)q;
  sq.n_vector = q ? DIM : 0;
  sq.text = (char *)(text ? text : "");
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qs;
  req.n_queries = 1;
  req.k = (uint32_t)k;
  req.filter = (Engram__V1__SearchFilter *)f;
  req.feedback_weight = fb_weight;
  req.feedback_docs = fb_docs;
  req.include_cold = with_cold;
  Engram__V1__SearchWeights w = ENGRAM__V1__SEARCH_WEIGHTS__INIT;
  if (!q) { /* text only: BM25 decides */
    w.alpha = 1;
    req.weights = &w;
  }
  Engram__V1__SearchResponse resp = ENGRAM__V1__SEARCH_RESPONSE__INIT;
  eg_err e;
  size_t n = 0;
  if ((last_rc = eg_vec_search(v, &req, a, &resp, &e)) == EG_OK && resp.n_results)
    for (size_t i = 0; i < resp.results[0]->n_hits; i++)
      ids[n++] = resp.results[0]->hits[i]->chunk->id;
  eg_arena_free(a);
  return n;
}

typedef struct idsc {
  uint64_t id;
  float s;
} idsc;
static int by_s(const void *a, const void *b) {
  float x = ((const idsc *)a)->s, y = ((const idsc *)b)->s;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Brute-force top k ids among chunks [from, to). */
static void brute_range(const float *q, size_t from, size_t to, size_t k, uint64_t *out) {
  idsc *all = malloc((to - from) * sizeof *all);
  for (size_t i = from; i < to; i++) {
    float s = 0;
    for (int d = 0; d < DIM; d++) s += q[d] * vecs[i][d];
    all[i - from] = (idsc){i + 1, s};
  }
  qsort(all, to - from, sizeof *all, by_s);
  for (size_t i = 0; i < k; i++) out[i] = all[i].id;
  free(all);
}

static void brute(const float *q, size_t n, size_t k, uint64_t *out) {
  brute_range(q, 0, n, k, out);
}

static void test_exact_equals_brute_force(void) {
  eg_vec *v = open_engine(1000000);
  EG_REQUIRE(v != NULL);
  EG_REQUIRE(upsert(v, "exact", "u", 0, 2000) == EG_OK);
  for (int t = 0; t < 20; t++) {
    float q[DIM];
    for (int d = 0; d < DIM; d++) q[d] = frand();
    eg_l2_normalize(q, DIM);
    uint64_t got[10], want[10];
    EG_REQUIRE(search(v, "exact", q, NULL, 10, NULL, got) == 10);
    brute(q, 2000, 10, want);
    for (int i = 0; i < 10; i++) EG_CHECK_INT(got[i], want[i]);
  }
  eg_vec_close(v);
}

static void test_filters(void) {
  eg_vec *v = open_engine(1000000); /* reopens the store: the "exact" tenant is replayed */
  EG_REQUIRE(v != NULL);
  uint64_t got[50];
  char *sess[] = {"s3"};
  Engram__V1__SearchFilter f = ENGRAM__V1__SEARCH_FILTER__INIT;
  f.session_ids = sess;
  f.n_session_ids = 1;
  size_t n = search(v, "exact", vecs[0], NULL, 50, &f, got);
  EG_CHECK_INT(n, 50);
  for (size_t i = 0; i < n; i++) EG_CHECK_INT((got[i] - 1) % 10, 3);
  Engram__V1__TimeRange tr = ENGRAM__V1__TIME_RANGE__INIT;
  tr.from = 100 * 1000000;
  tr.to = 110 * 1000000;
  Engram__V1__SearchFilter ft = ENGRAM__V1__SEARCH_FILTER__INIT;
  ft.time = &tr;
  char *roles[] = {"user"};
  ft.roles = roles;
  ft.n_roles = 1;
  n = search(v, "exact", vecs[0], NULL, 50, &ft, got);
  EG_CHECK_INT(n, 5); /* chunks 100, 102 … 108: even = user */
  for (size_t i = 0; i < n; i++)
    EG_CHECK((got[i] - 1) >= 100 && (got[i] - 1) < 110 && (got[i] - 1) % 2 == 0);
  uint64_t ent = 101;
  Engram__V1__SearchFilter fe = ENGRAM__V1__SEARCH_FILTER__INIT;
  fe.entity_ids = &ent;
  fe.n_entity_ids = 1;
  n = search(v, "exact", vecs[0], NULL, 20, &fe, got);
  EG_CHECK_INT(n, 20);
  for (size_t i = 0; i < n; i++) EG_CHECK_INT((got[i] - 1) % 3, 1);
  /* exact retrieval of the query's own chunk after the restart */
  EG_CHECK(search(v, "exact", vecs[1234], NULL, 1, NULL, got) == 1 && got[0] == 1235);
  eg_vec_close(v);
}

/* Queries with their own filter and k in one Search answer as the same queries searched one
 * by one; a query without one takes the request's. */
static void test_query_filters(void) {
  eg_vec *v = open_engine(1000000);
  EG_REQUIRE(v != NULL);
  char *sess[] = {"s3"}, *roles[] = {"user"};
  Engram__V1__SearchFilter f_sess = ENGRAM__V1__SEARCH_FILTER__INIT;
  f_sess.session_ids = sess;
  f_sess.n_session_ids = 1;
  Engram__V1__TimeRange tr = ENGRAM__V1__TIME_RANGE__INIT;
  tr.from = 100 * 1000000;
  tr.to = 110 * 1000000;
  Engram__V1__SearchFilter f_time = ENGRAM__V1__SEARCH_FILTER__INIT;
  f_time.time = &tr;
  f_time.roles = roles;
  f_time.n_roles = 1;
  uint64_t ent = 101;
  Engram__V1__SearchFilter f_ent = ENGRAM__V1__SEARCH_FILTER__INIT;
  f_ent.entity_ids = &ent;
  f_ent.n_entity_ids = 1;
  /* one by one */
  uint64_t want[3][20];
  size_t nwant[3] = {search(v, "exact", vecs[0], NULL, 20, &f_sess, want[0]),
                     search(v, "exact", vecs[1], NULL, 20, &f_time, want[1]),
                     search(v, "exact", vecs[2], NULL, 7, &f_ent, want[2])};
  EG_CHECK(nwant[0] == 20 && nwant[1] == 5 && nwant[2] == 7);
  /* together: the first with the request's filter, the others with their own */
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "exact";
  Engram__V1__SearchQuery sq[3], *qs[3];
  for (int i = 0; i < 3; i++) {
    engram__v1__search_query__init(&sq[i]);
    sq[i].vector = vecs[i];
    sq[i].n_vector = DIM;
    sq[i].text = "";
    qs[i] = &sq[i];
  }
  sq[1].filter = &f_time;
  sq[2].filter = &f_ent;
  sq[2].k = 7;
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qs;
  req.n_queries = 3;
  req.k = 20;
  req.filter = &f_sess;
  Engram__V1__SearchResponse resp = ENGRAM__V1__SEARCH_RESPONSE__INIT;
  eg_err e;
  EG_REQUIRE(eg_vec_search(v, &req, a, &resp, &e) == EG_OK && resp.n_results == 3);
  for (size_t i = 0; i < 3; i++) {
    EG_CHECK_INT(resp.results[i]->n_hits, nwant[i]);
    for (size_t j = 0; j < resp.results[i]->n_hits && j < nwant[i]; j++)
      EG_CHECK_INT(resp.results[i]->hits[j]->chunk->id, want[i][j]);
  }
  /* a query's k is bounded like the request's, and its filter checked like it */
  sq[2].k = 100000;
  EG_CHECK_INT(eg_vec_search(v, &req, a, &resp, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "queries[2].k") != NULL);
  sq[2].k = 7;
  tr.to = tr.from;
  EG_CHECK_INT(eg_vec_search(v, &req, a, &resp, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "queries[1].") != NULL);
  eg_arena_free(a);
  eg_vec_close(v);
}

static void test_hnsw_recall_and_restart(void) {
  eg_vec *v = open_engine(1000);
  EG_REQUIRE(v != NULL);
  EG_REQUIRE(upsert(v, "big", "u", 0, 5000) == EG_OK);
  eg_vec_quiesce(v); /* the background HNSW build */
  int hits = 0, total = 0;
  for (int t = 0; t < 100; t++) {
    float q[DIM];
    for (int d = 0; d < DIM; d++) q[d] = frand();
    eg_l2_normalize(q, DIM);
    uint64_t got[10], want[10];
    size_t n = search(v, "big", q, NULL, 10, NULL, got);
    brute(q, 5000, 10, want);
    for (size_t i = 0; i < 10; i++) {
      total++;
      for (size_t j = 0; j < n; j++) hits += got[j] == want[i];
    }
  }
  double recall = (double)hits / total;
  fprintf(stderr, "  HNSW recall@10 = %.3f\n", recall);
  EG_CHECK(recall >= 0.95);
  /* writes after the snapshot, and a delete, then a restart: snapshot + replay */
  EG_REQUIRE(upsert(v, "big", "u", 5000, 5200) == EG_OK);
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "big";
  uint64_t del = 4001;
  Engram__V1__DeleteRequest dr = ENGRAM__V1__DELETE_REQUEST__INIT;
  dr.scope = &scope;
  dr.ids = &del;
  dr.n_ids = 1;
  Engram__V1__DeleteResponse dresp = ENGRAM__V1__DELETE_RESPONSE__INIT;
  eg_err e;
  EG_CHECK_INT(eg_vec_delete(v, &dr, a, &dresp, &e), EG_OK);
  EG_CHECK_INT(dresp.deleted, 1);
  eg_arena_free(a);
  eg_vec_close(v);
  v = open_engine(1000);
  EG_REQUIRE(v != NULL);
  uint64_t got[3];
  int found = 0;
  for (size_t i = 0; i < 5200; i += 13)
    found += search(v, "big", vecs[i], NULL, 1, NULL, got) == 1 && got[0] == i + 1;
  EG_CHECK_INT(found, (5200 + 12) / 13);
  EG_CHECK(search(v, "big", vecs[4000], NULL, 3, NULL, got) >= 1 && got[0] != 4001);
  for (int i = 0; i < 3; i++) EG_CHECK(got[i] != 4001);
  eg_vec_close(v);
}

/* A user holding a tenth of an HNSW tenant, searched past the exhaustive limit: the graph
 * walk keeps only that user's chunks, so every search returns k of them, nearly the exact
 * top k (searching the whole graph and filtering after would leave about a tenth of k).
 * Below the limit the same search scores the user's chunks exhaustively: exactly the top k. */
static void test_hnsw_filtered(void) {
  for (int mode = 0; mode < 2; mode++) {
    exact_max = mode == 0 ? 1 : 100000; /* 1: always the graph walk; 100000: always exhaustive */
    eg_vec *v = open_engine(1000);
    EG_REQUIRE(v != NULL);
    if (mode == 0) {
      EG_REQUIRE(upsert(v, "hf", "many", 0, 4500) == EG_OK);
      EG_REQUIRE(upsert(v, "hf", "few", 4500, 5000) == EG_OK);
    }
    eg_vec_quiesce(v);
    Engram__V1__SearchFilter f = ENGRAM__V1__SEARCH_FILTER__INIT;
    f.user = "few";
    int hits = 0, total = 0, full = 0, own = 0;
    for (int t = 0; t < 50; t++) {
      float q[DIM];
      for (int d = 0; d < DIM; d++) q[d] = frand();
      eg_l2_normalize(q, DIM);
      uint64_t got[10], want[10];
      size_t n = search(v, "hf", q, NULL, 10, &f, got);
      brute_range(q, 4500, 5000, 10, want);
      full += n == 10;
      for (size_t j = 0; j < n; j++) own += got[j] > 4500 && got[j] <= 5000;
      for (size_t i = 0; i < 10; i++, total++)
        for (size_t j = 0; j < n; j++) hits += got[j] == want[i];
    }
    fprintf(stderr, "  %s: recall@10 within the user %.3f\n", mode ? "exhaustive" : "filtered HNSW",
            (double)hits / total);
    EG_CHECK_INT(full, 50);
    EG_CHECK_INT(own, 500);
    EG_CHECK(mode == 0 ? hits >= 0.95 * total : hits == total);
    eg_vec_close(v);
  }
  exact_max = 0;
}

/* Erase one user's chunks; returns how many went (-1 on failure). */
static long erase_user(eg_vec *v, const char *tenant, const char *user) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  scope.user = (char *)user;
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &scope;
  Engram__V1__EraseResponse resp = ENGRAM__V1__ERASE_RESPONSE__INIT;
  eg_err e;
  long n = eg_vec_erase(v, &er, a, &resp, &e) == EG_OK ? (long)resp.counts[0]->count : -1;
  eg_arena_free(a);
  return n;
}

static void test_erase_user_leaves_no_trace(void) {
  eg_vec *v = open_engine(1000000);
  EG_REQUIRE(v != NULL);
  EG_REQUIRE(upsert(v, "mix", "alice", 0, 30) == EG_OK);
  EG_REQUIRE(upsert(v, "mix", "bob", 30, 60) == EG_OK);
  uint64_t got[60];
  size_t before = search(v, "mix", NULL, "zyxwvut", 60, NULL, got);
  EG_CHECK_INT(before, 9); /* ids 1, 8, 15, 22, 29 (alice) and 36, 43, 50, 57 (bob) */
  /* a filter narrowed to one user sees exactly that user's chunks */
  Engram__V1__SearchFilter fu = ENGRAM__V1__SEARCH_FILTER__INIT;
  fu.user = "bob";
  EG_CHECK_INT(search(v, "mix", vecs[7], NULL, 60, &fu, got), 30);
  for (size_t i = 0; i < 30; i++) EG_CHECK(got[i] > 30 && got[i] <= 60);
  fu.user = "alice";
  EG_CHECK_INT(search(v, "mix", vecs[7], NULL, 60, &fu, got), 30);
  EG_CHECK_INT(got[0], 8); /* alice's own chunk 7 first */
  EG_CHECK_INT(erase_user(v, "mix", "alice"), 30);
  size_t after = search(v, "mix", NULL, "zyxwvut", 60, NULL, got);
  EG_CHECK_INT(after, 4);
  for (size_t i = 0; i < after; i++) EG_CHECK(got[i] > 30);
  fu.user = "alice";
  EG_CHECK_INT(search(v, "mix", vecs[7], NULL, 60, &fu, got), 0);
  /* alice's exact vector now finds only bob's chunks */
  size_t n = search(v, "mix", vecs[7], NULL, 60, NULL, got);
  EG_CHECK_INT(n, 30);
  for (size_t i = 0; i < n; i++) EG_CHECK(got[i] > 30);
  eg_vec_close(v);
  /* and after a restart too (the store forgot them) */
  v = open_engine(1000000);
  EG_CHECK_INT(search(v, "mix", NULL, "zyxwvut", 60, NULL, got), 4);
  fu.user = "alice";
  EG_CHECK_INT(search(v, "mix", vecs[7], NULL, 60, &fu, got), 0);
  fu.user = "bob";
  EG_CHECK_INT(search(v, "mix", vecs[7], NULL, 60, &fu, got), 30);
  eg_vec_close(v);
}

/* Index files under <dir>/faiss (the HNSW snapshots). */
static int snapshot_files(void) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "ls %s/faiss/*.index 2>/dev/null | wc -l", dir);
  FILE *p = popen(cmd, "r");
  int n = -1;
  if (p && fscanf(p, "%d", &n) != 1) n = -1;
  if (p) pclose(p);
  return n;
}

/* A user's erasure in a tenant big enough for HNSW: the snapshot files, which hold that
 * user's vectors, are removed; after a restart (rebuilt from the store) the erased vectors
 * find nothing of the user's and the other user's are all there. */
static void test_erase_drops_snapshot(void) {
  eg_vec *v = open_engine(1000);
  EG_REQUIRE(v != NULL);
  EG_REQUIRE(upsert(v, "snap", "ann", 0, 1100) == EG_OK);
  EG_REQUIRE(upsert(v, "snap", "ben", 1100, 1200) == EG_OK);
  eg_vec_quiesce(v);
  int before = snapshot_files();
  EG_CHECK(before >= 2);
  EG_CHECK_INT(erase_user(v, "snap", "ann"), 1100);
  EG_CHECK_INT(snapshot_files(), before - 2); /* the big tenant's two */
  eg_vec_close(v);
  v = open_engine(1000);
  EG_REQUIRE(v != NULL);
  uint64_t got[5];
  int ann = 0, ben = 0, bens = 0;
  for (size_t i = 0; i < 1200; i += 7) {
    size_t n = search(v, "snap", vecs[i], NULL, 5, NULL, got);
    for (size_t k = 0; k < n; k++) ann += got[k] <= 1100;
    bens += i >= 1100;
    ben += i >= 1100 && n >= 1 && got[0] == i + 1;
  }
  EG_CHECK_INT(ann, 0);
  EG_CHECK_INT(ben, bens);
  /* an erasure too small to rebuild the index leaves its vectors there as tombstones:
   * closing must not write them back into a snapshot */
  EG_REQUIRE(upsert(v, "snap", "cat", 1200, 2400) == EG_OK);
  eg_vec_quiesce(v); /* rebuilt and snapshotted */
  before = snapshot_files();
  EG_CHECK_INT(erase_user(v, "snap", "ben"), 100);
  EG_CHECK_INT(snapshot_files(), before - 2);
  eg_vec_close(v);
  EG_CHECK_INT(snapshot_files(), before - 2);
  v = open_engine(1000);
  EG_CHECK_INT(search(v, "snap", vecs[1150], NULL, 5, NULL, got), 5);
  EG_CHECK(got[0] != 1151);
  eg_vec_close(v);
}

/* Feedback moves the query toward its best hit: with q = e1, A (cos 0.9 with q, leaning
 * to e2), C (0.8, leaning to e3) and B (0.7, leaning to e2 more) rank A, C, B; with q
 * moved toward A (weight 1, one document) B, close to A, passes C: cos 0.84 against 0.78.
 * The same whether the filter leaves every document to score (one user) or not. */
static void test_feedback(void) {
  eg_vec *v = open_engine(1000000);
  EG_REQUIRE(v != NULL);
  const float rows[3][3] = {
      {0.9f, 0.43589f, 0}, {0.7f, 0.71414f, 0}, {0.8f, 0, 0.6f}}; /* A, B, C */
  for (int i = 0; i < 3; i++) {
    memset(vecs[5990 + i], 0, sizeof vecs[0]);
    memcpy(vecs[5990 + i], rows[i], sizeof rows[i]);
    eg_l2_normalize(vecs[5990 + i], DIM);
  }
  EG_REQUIRE(upsert(v, "fb", "fbuser", 5990, 5993) == EG_OK);
  const uint64_t A = 5991, B = 5992, C = 5993;
  float q[DIM] = {1};
  Engram__V1__SearchFilter fu = ENGRAM__V1__SEARCH_FILTER__INIT;
  fu.user = "fbuser";
  const Engram__V1__SearchFilter *filters[2] = {NULL, &fu};
  uint64_t got[3];
  for (int narrow = 0; narrow < 2; narrow++) {
    fb_weight = 0;
    EG_CHECK_INT(search(v, "fb", q, NULL, 3, filters[narrow], got), 3);
    EG_CHECK(got[0] == A && got[1] == C && got[2] == B);
    fb_weight = 1;
    fb_docs = 1;
    EG_CHECK_INT(search(v, "fb", q, NULL, 3, filters[narrow], got), 3);
    EG_CHECK(got[0] == A && got[1] == B && got[2] == C);
  }
  /* out of range: refused, nothing searched */
  float bad_w[] = {-0.5f, 10.5f, NAN};
  fb_docs = 0;
  for (int i = 0; i < 3; i++) {
    fb_weight = bad_w[i];
    EG_CHECK_INT(search(v, "fb", q, NULL, 3, NULL, got), 0);
    EG_CHECK_INT(last_rc, EG_EINVAL);
  }
  fb_weight = 1;
  fb_docs = 101;
  search(v, "fb", q, NULL, 3, NULL, got);
  EG_CHECK_INT(last_rc, EG_EINVAL);
  fb_weight = 0;
  fb_docs = 0;
  eg_vec_close(v);
}

/* The raw BM25 of chunk `id` for a text search narrowed to `user` (-1: not among the hits). */
static float bm25_for(eg_vec *v, const char *tenant, const char *user, const char *text,
                      uint64_t id) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  Engram__V1__SearchQuery sq = ENGRAM__V1__SEARCH_QUERY__INIT, *qs[1] = {&sq};
  sq.text = (char *)text;
  Engram__V1__SearchFilter f = ENGRAM__V1__SEARCH_FILTER__INIT;
  f.user = (char *)user;
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qs;
  req.n_queries = 1;
  req.k = 100;
  req.filter = &f;
  Engram__V1__SearchResponse resp = ENGRAM__V1__SEARCH_RESPONSE__INIT;
  eg_err e;
  float s = -1;
  if (eg_vec_search(v, &req, a, &resp, &e) == EG_OK && resp.n_results)
    for (size_t i = 0; i < resp.results[0]->n_hits; i++)
      if (resp.results[0]->hits[i]->chunk->id == id) s = resp.results[0]->hits[i]->bm25;
  eg_arena_free(a);
  return s;
}

/* bm25_stats user: a user's BM25 does not move when another user's chunks arrive (with
 * the tenant's statistics it does), and it equals BM25 over the user's chunks alone. */
static void test_bm25_per_user(void) {
  eg_vec *v = open_engine_bm25(1000000, true);
  EG_REQUIRE(v != NULL);
  EG_REQUIRE(upsert(v, "iso", "a", 0, 70) == EG_OK);
  float alone = bm25_for(v, "iso", "a", "zyxwvut number", 1);
  EG_REQUIRE(alone > 0);
  EG_REQUIRE(upsert(v, "iso", "b", 70, 75) == EG_OK); /* few chunks: "zyxwvut" rarer than in a's */
  EG_CHECK(bm25_for(v, "iso", "a", "zyxwvut number", 1) == alone);
  /* the tenant's statistics on the same data: b's chunks changed a's score */
  eg_vec_close(v);
  eg_vec *w = open_engine_bm25(1000000, false);
  EG_REQUIRE(w != NULL);
  float tenant = bm25_for(w, "iso", "a", "zyxwvut number", 1);
  EG_CHECK(tenant > 0 && fabsf(tenant - alone) > 1e-4f);
  eg_vec_close(w);
}

/* How many of the chunks with ids [1, n] GetChunks returns. */
static size_t get_count(eg_vec *v, const char *tenant, size_t n, bool include_staged) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  uint64_t ids[64];
  for (size_t i = 0; i < n; i++) ids[i] = i + 1;
  Engram__V1__GetChunksRequest req = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  req.scope = &scope;
  req.ids = ids;
  req.n_ids = n;
  req.neighbours = 2; /* staged chunks are no one's neighbours either */
  req.include_staged = include_staged;
  Engram__V1__GetChunksResponse resp = ENGRAM__V1__GET_CHUNKS_RESPONSE__INIT;
  eg_err e;
  size_t got = eg_vec_get(v, &req, a, &resp, &e) == EG_OK ? resp.n_chunks : 0;
  eg_arena_free(a);
  return got;
}

static bool found_by(eg_vec *v, const char *tenant, size_t i) {
  uint64_t ids[10];
  size_t n = search(v, tenant, vecs[i], NULL, 10, NULL, ids);
  for (size_t k = 0; k < n; k++)
    if (ids[k] == i + 1) return true;
  return false;
}

/* Staged chunks are invisible to search and get until published, all at once; staged
 * and published both survive a restart (the flag is in the stored chunk). */
static void test_staged_publish(void) {
  eg_vec *v = open_engine(1000000);
  EG_REQUIRE(v != NULL);
  EG_CHECK_INT(upsert(v, "staged", "u", 0, 4), EG_OK); /* visible: ids 1..4 */
  upsert_staged = true;
  EG_CHECK_INT(upsert(v, "staged", "u", 4, 20), EG_OK); /* staged: ids 5..20 */
  upsert_staged = false;
  EG_CHECK(found_by(v, "staged", 1));
  EG_CHECK(!found_by(v, "staged", 6));
  EG_CHECK_INT(get_count(v, "staged", 20, false), 4);
  EG_CHECK_INT(get_count(v, "staged", 20, true), 20);
  eg_vec_close(v);
  v = open_engine(1000000); /* a restart: still staged */
  EG_REQUIRE(v != NULL);
  EG_CHECK(!found_by(v, "staged", 6));
  EG_CHECK_INT(get_count(v, "staged", 20, false), 4);
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "staged";
  uint64_t ids[12];
  for (int i = 0; i < 12; i++)
    ids[i] = (uint64_t)i + 1; /* 1..4 visible already: left as they are */
  Engram__V1__PublishRequest req = ENGRAM__V1__PUBLISH_REQUEST__INIT;
  req.scope = &scope;
  req.ids = ids;
  req.n_ids = 12;
  Engram__V1__PublishResponse resp = ENGRAM__V1__PUBLISH_RESPONSE__INIT;
  eg_err e;
  EG_CHECK_INT(eg_vec_publish(v, &req, a, &resp, &e), EG_OK);
  EG_CHECK_INT(resp.published, 8);
  eg_arena_free(a);
  EG_CHECK(found_by(v, "staged", 6));
  EG_CHECK(!found_by(v, "staged", 15));
  EG_CHECK_INT(get_count(v, "staged", 20, false), 12);
  eg_vec_close(v);
  v = open_engine(1000000); /* a restart: published stays published */
  EG_REQUIRE(v != NULL);
  EG_CHECK(found_by(v, "staged", 6));
  EG_CHECK(!found_by(v, "staged", 15));
  EG_CHECK_INT(get_count(v, "staged", 20, false), 12);
  EG_CHECK_INT(get_count(v, "staged", 20, true), 20);
  eg_vec_close(v);
}

static void test_model_mismatch_refused(void) {
  eg_embedder *other;
  eg_err e;
  EG_REQUIRE(eg_embed_http_open("http://127.0.0.1:1", "other", DIM, NULL, 100, &other, &e) ==
             EG_OK);
  eg_embedder *saved = emb;
  emb = other;
  eg_vec *v = open_engine(1000000);
  EG_REQUIRE(v != NULL);
  eg_code rc = upsert(v, "exact", "u", 0, 1);
  EG_CHECK_INT(rc, EG_EPRECOND);
  eg_vec_close(v);
  emb = saved;
  eg_embedder_close(other);
}

/* ---- retention: tiers both ways, bounds, eviction and its erasure, restart ---- */

#define DAY_US 86400000000LL

static Engram__V1__Scope ret_scope(const char *tenant, const char *user) {
  Engram__V1__Scope s = ENGRAM__V1__SCOPE__INIT;
  s.tenant = (char *)tenant;
  s.user = (char *)user;
  return s;
}

/* The tier of chunk id (0 = absent) and its access count; tiers[] gets the tenant's counts. */
static int ret_tier(eg_vec *v, const char *user, uint64_t id, int64_t at, uint64_t *accesses,
                    uint64_t tiers[5], char *why, size_t why_len) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ret_scope("ret", user);
  Engram__V1__GetRetentionRequest req = ENGRAM__V1__GET_RETENTION_REQUEST__INIT;
  req.scope = &scope;
  req.chunk_ids = &id;
  req.n_chunk_ids = 1;
  req.at = at;
  Engram__V1__GetRetentionResponse resp = ENGRAM__V1__GET_RETENTION_RESPONSE__INIT;
  eg_err e;
  int tier = -1;
  if (eg_vec_get_retention(v, &req, a, &resp, &e) == EG_OK) {
    tier = resp.n_items ? (int)resp.items[0]->tier : 0;
    if (accesses && resp.n_items) *accesses = resp.items[0]->access_count;
    if (why && resp.n_items) snprintf(why, why_len, "%s", resp.items[0]->why);
    for (size_t i = 0; tiers && i < resp.n_tiers; i++)
      tiers[resp.tiers[i]->tier] = resp.tiers[i]->count;
  }
  eg_arena_free(a);
  return tier;
}

static uint64_t sweep_at(eg_vec *v, int64_t at, uint64_t *evicted) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ret_scope("ret", NULL);
  Engram__V1__SweepRetentionRequest req = ENGRAM__V1__SWEEP_RETENTION_REQUEST__INIT;
  req.scope = &scope;
  req.at = at;
  Engram__V1__SweepRetentionResponse resp = ENGRAM__V1__SWEEP_RETENTION_RESPONSE__INIT;
  eg_err e;
  uint64_t moved =
      eg_vec_sweep(v, &req, a, &resp, &e) == EG_OK ? resp.promoted + resp.demoted : UINT64_MAX;
  if (evicted) *evicted = resp.evicted;
  eg_arena_free(a);
  return moved;
}

static eg_code set_policy(eg_vec *v, const Engram__V1__RetentionPolicy *p, const char *confirm) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ret_scope("ret", NULL);
  Engram__V1__SetRetentionPolicyRequest req = ENGRAM__V1__SET_RETENTION_POLICY_REQUEST__INIT;
  req.scope = &scope;
  req.policy = (Engram__V1__RetentionPolicy *)p;
  req.confirm_tenant = (char *)confirm;
  Engram__V1__SetRetentionPolicyResponse resp = ENGRAM__V1__SET_RETENTION_POLICY_RESPONSE__INIT;
  eg_err e;
  eg_code rc = eg_vec_set_retention(v, &req, a, &resp, &e);
  eg_arena_free(a);
  return rc;
}

static uint32_t access_at(eg_vec *v, const char *user, uint64_t id, int64_t at) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ret_scope("ret", user);
  Engram__V1__RecordAccessRequest req = ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT;
  req.scope = &scope;
  req.ids = &id;
  req.n_ids = 1;
  req.time = at;
  Engram__V1__RecordAccessResponse resp = ENGRAM__V1__RECORD_ACCESS_RESPONSE__INIT;
  eg_err e;
  uint32_t promoted = eg_vec_record_access(v, &req, a, &resp, &e) == EG_OK
                          ? resp.promoted + 100 * resp.recorded
                          : 0;
  eg_arena_free(a);
  return promoted;
}

static bool top_is(eg_vec *v, size_t i) {
  uint64_t ids[5];
  return search(v, "ret", vecs[i], NULL, 5, NULL, ids) > 0 && ids[0] == i + 1;
}

static void test_retention_tiers(void) {
  eg_vec *v = open_engine(50); /* 200 chunks: HNSW, so moves leave tombstones */
  EG_REQUIRE(v && upsert(v, "ret", "u1", 0, 200) == EG_OK);
  eg_vec_quiesce(v);
  int64_t now = eg_time_now_us();
  uint64_t tiers[5] = {0}, acc = 0;
  char why[320];
  EG_CHECK_INT(ret_tier(v, "u1", 6, 0, &acc, tiers, why, sizeof why), EG_TIER_HOT);
  EG_CHECK(tiers[EG_TIER_HOT] == 200 && acc == 0 && strstr(why, ">= hot_min"));
  EG_CHECK_INT(ret_tier(v, "u2", 6, 0, NULL, NULL, NULL, 0), 0); /* another user's chunk: absent */
  /* 40 days on: R = 0.5·2^(−4/3) ≈ 0.20 → warm; still found by its vector */
  EG_CHECK_INT(sweep_at(v, now + 40 * DAY_US, NULL), 200);
  EG_CHECK_INT(ret_tier(v, "u1", 6, now + 40 * DAY_US, NULL, tiers, NULL, 0), EG_TIER_WARM);
  EG_CHECK(tiers[EG_TIER_WARM] == 200 && tiers[EG_TIER_HOT] == 0);
  EG_CHECK(top_is(v, 5) && top_is(v, 150));
  /* 90 days: cold — off the vector indexes, still found by its words */
  EG_CHECK_INT(sweep_at(v, now + 90 * DAY_US, NULL), 200);
  uint64_t ids[10];
  EG_CHECK_INT(search(v, "ret", vecs[5], NULL, 5, NULL, ids), 0);
  EG_CHECK_INT(search(v, "ret", NULL, "zyxwvut", 10, NULL, ids),
               0); /* cold words: not in the default traversal */
  Engram__V1__SearchFilter mine = ENGRAM__V1__SEARCH_FILTER__INIT;
  mine.user = "u1"; /* a narrow filter reaches them */
  EG_CHECK_INT(search(v, "ret", NULL, "zyxwvut", 10, &mine, ids), 10);
  with_cold = true; /* and so does asking for them */
  EG_CHECK_INT(search(v, "ret", NULL, "zyxwvut", 10, NULL, ids), 10);
  with_cold = false;
  /* an access brings it back hot at once */
  EG_CHECK_INT(access_at(v, "u2", 6, 0), 0); /* not another user's to touch */
  EG_CHECK_INT(access_at(v, "u1", 6, 0), 101);
  EG_CHECK_INT(ret_tier(v, "u1", 6, 0, &acc, tiers, NULL, 0), EG_TIER_HOT);
  EG_CHECK(acc == 1 && tiers[EG_TIER_HOT] == 1 && tiers[EG_TIER_COLD] == 199);
  EG_CHECK(top_is(v, 5));
  /* a bounded hot tier: the 50 of highest R stay hot (the accessed one among them) */
  Engram__V1__RetentionPolicy p = ENGRAM__V1__RETENTION_POLICY__INIT;
  p.hot_max = 50;
  EG_CHECK(set_policy(v, &p, NULL) == EG_OK);
  EG_CHECK_INT(sweep_at(v, 0, NULL), 199);
  EG_CHECK_INT(ret_tier(v, "u1", 6, 0, NULL, tiers, NULL, 0), EG_TIER_HOT);
  EG_CHECK(tiers[EG_TIER_HOT] == 50 && tiers[EG_TIER_WARM] == 150);
  int bounded = 0;
  for (uint64_t id = 1; id <= 200 && !bounded; id++)
    if (ret_tier(v, "u1", id, 0, NULL, NULL, why, sizeof why) == EG_TIER_WARM)
      bounded = strstr(why, "tier is full") != NULL;
  EG_CHECK(bounded);
  for (size_t i = 0; i < 200; i += 37)
    EG_CHECK(top_is(v, i)); /* hot or warm, every chunk is found */
  /* a restart keeps the tiers */
  eg_vec_close(v);
  v = open_engine(50);
  EG_CHECK_INT(ret_tier(v, "u1", 6, 0, &acc, tiers, NULL, 0), EG_TIER_HOT);
  EG_CHECK(acc == 1 && tiers[EG_TIER_HOT] == 50 && tiers[EG_TIER_WARM] == 150);
  for (size_t i = 0; i < 200; i += 37) EG_CHECK(top_is(v, i));
  /* eviction: only under a confirmed policy; what was used lately stays */
  p.hot_max = 0;
  p.evict_cold_after_days = 80;
  EG_CHECK(set_policy(v, &p, NULL) == EG_EINVAL);
  EG_CHECK(set_policy(v, &p, "other") == EG_EINVAL);
  EG_CHECK(set_policy(v, &p, "ret") == EG_OK);
  EG_CHECK_INT(access_at(v, "u1", 6, now + 95 * DAY_US), 100);
  uint64_t evicted = 0;
  sweep_at(v, now + 100 * DAY_US, &evicted);
  EG_CHECK_INT(evicted, 199);
  EG_CHECK_INT(ret_tier(v, "u1", 6, now + 100 * DAY_US, NULL, tiers, NULL, 0), EG_TIER_WARM);
  EG_CHECK_INT(ret_tier(v, "u1", 7, 0, NULL, NULL, why, sizeof why), EG_TIER_EVICTED);
  EG_CHECK(strstr(why, "evicted") != NULL && tiers[EG_TIER_EVICTED] == 199);
  EG_CHECK_INT(get_count(v, "ret", 64, false), 1);
  eg_vec_close(v);
  v = open_engine(50);
  EG_CHECK_INT(ret_tier(v, "u1", 7, 0, NULL, tiers, NULL, 0), EG_TIER_EVICTED);
  EG_CHECK(tiers[EG_TIER_EVICTED] == 199 && tiers[EG_TIER_WARM] == 1);
  EG_CHECK_INT(ret_tier(v, "u2", 7, 0, NULL, NULL, NULL, 0), 0);
  /* retention off: everything live is hot again at once */
  Engram__V1__RetentionPolicy off = ENGRAM__V1__RETENTION_POLICY__INIT;
  off.disabled = true;
  EG_CHECK(set_policy(v, &off, NULL) == EG_OK);
  EG_CHECK_INT(ret_tier(v, "u1", 6, 0, NULL, NULL, NULL, 0), EG_TIER_HOT);
  EG_CHECK(top_is(v, 5));
  /* erasing the user removes what eviction left too */
  EG_CHECK_INT(erase_user(v, "ret", "u1"), 200);
  EG_CHECK_INT(ret_tier(v, NULL, 7, 0, NULL, tiers, NULL, 0), 0);
  EG_CHECK_INT(tiers[EG_TIER_EVICTED], 0);
  eg_vec_close(v);
}

/* engram_vectord_index_vectors: the vectors in the tenants' dense indexes (both fields,
 * tombstones included). */
static double index_vectors(eg_metrics *m) {
  eg_buf b = {0};
  eg_metrics_render(m, &b);
  const char *name = "\nengram_vectord_index_vectors ", *at = b.data ? strstr(b.data, name) : NULL;
  double n = at ? atof(at + strlen(name)) : -1;
  eg_buf_free(&b);
  return n;
}

/* Warm chunks stay in the dense (HNSW) indexes beside the hot ones: a sweep that makes
 * them warm, or an access that makes one hot again, changes no index, and a restart finds
 * them in the snapshot; only the cold tier leaves the indexes. */
static void test_warm_shares_index(void) {
  eg_metrics *m = engine_metrics = eg_metrics_new();
  eg_vec *v = open_engine(1000);
  Engram__V1__RetentionPolicy defaults =
      ENGRAM__V1__RETENTION_POLICY__INIT; /* test_retention_tiers left it off */
  EG_REQUIRE(v && set_policy(v, &defaults, NULL) == EG_OK);
  EG_REQUIRE(upsert(v, "ret", "u1", 0, 5000) == EG_OK);
  eg_vec_quiesce(v); /* HNSW past 1000 */
  EG_CHECK_INT(index_vectors(m), 10000);
  int64_t now = eg_time_now_us();
  uint64_t tiers[5] = {0};
  EG_CHECK_INT(sweep_at(v, now + 40 * DAY_US, NULL), 5000);
  eg_vec_quiesce(v);
  EG_CHECK_INT(ret_tier(v, "u1", 1, now + 40 * DAY_US, NULL, tiers, NULL, 0), EG_TIER_WARM);
  EG_CHECK_INT(tiers[EG_TIER_WARM], 5000);
  EG_CHECK_INT(index_vectors(m),
               10000); /* the same vectors: no second index, no tombstones, no rebuild */
  int found = 0;
  for (size_t i = 0; i < 5000; i += 250) found += top_is(v, i);
  EG_CHECK(found >= 19);                         /* HNSW recall on 20 exact-match queries */
  EG_CHECK_INT(access_at(v, "u1", 251, 0), 101); /* chunk 250 back to hot: nothing added */
  EG_CHECK_INT(index_vectors(m), 10000);
  EG_CHECK(top_is(v, 250) && top_is(v, 500));
  eg_vec_close(v);
  eg_metrics_free(m);
  m = engine_metrics = eg_metrics_new();
  v = open_engine(1000); /* a restart: the snapshot holds the warm vectors too, none added twice */
  EG_CHECK(top_is(v, 250) && top_is(v, 500) && top_is(v, 4750));
  EG_CHECK_INT(index_vectors(m), 10000);
  /* 90 days: all cold, out of the indexes (tombstones, then a rebuild drops them) */
  EG_CHECK_INT(sweep_at(v, now + 90 * DAY_US, NULL), 5000);
  uint64_t ids[5];
  EG_CHECK_INT(search(v, "ret", vecs[250], NULL, 5, NULL, ids), 0);
  eg_vec_quiesce(v);
  EG_CHECK_INT(index_vectors(m), 0);
  eg_vec_close(v);
  eg_metrics_free(m);
  engine_metrics = NULL;
}

/* Nearly all of an HNSW index gone cold, too few to rebuild it (1000 tombstones): a search
 * still answers k live chunks, the nearest of them (the index is asked again for more). */
static void test_tombstones_skipped(void) {
  eg_vec *v = open_engine(1000);
  EG_REQUIRE(v && erase_user(v, "ret", "u1") >= 0); /* what the tests before left */
  EG_REQUIRE(upsert(v, "ret", "u1", 0, 1050) == EG_OK);
  eg_vec_quiesce(v); /* HNSW */
  int64_t later = eg_time_now_us() + 90 * DAY_US;
  for (uint64_t id = 1; id <= 1050; id += 21)
    access_at(v, "u1", id, later);              /* 50 used, the rest not */
  EG_CHECK_INT(sweep_at(v, later, NULL), 1000); /* under the rebuild threshold (1024 tombstones) */
  int full = 0, hot_only = 0, overlap = 0;
  for (size_t i = 1; i < 1050;
       i += 52) { /* the vectors of cold chunks: their own is the nearest tombstone */
    uint64_t ids[10];
    size_t n = search(v, "ret", vecs[i], NULL, 10, NULL, ids);
    full += n == 10;
    bool hot = true;
    for (size_t j = 0; j < n; j++) hot = hot && (ids[j] - 1) % 21 == 0;
    hot_only += hot;
    idsc used[50]; /* the 10 nearest among the used chunks */
    for (size_t c = 0; c < 50; c++) {
      float sc = 0;
      for (int d = 0; d < DIM; d++) sc += vecs[i][d] * vecs[21 * c][d];
      used[c] = (idsc){21 * c + 1, sc};
    }
    qsort(used, 50, sizeof *used, by_s);
    for (size_t j = 0; j < n; j++)
      for (size_t w = 0; w < 10; w++) overlap += ids[j] == used[w].id;
  }
  EG_CHECK_INT(full, 21);
  EG_CHECK_INT(hot_only, 21);
  EG_CHECK(overlap >= 200); /* recall@10 ≥ 0.95 */
  eg_vec_close(v);
}

int main(void) {
  dir = eg_test_tempdir("vec");
  eg_err e;
  if (eg_embedder_open("glove:" EG_SOURCE_DIR "/var/models/glove-100d.bin", &emb, &e)) {
    fprintf(stderr, "embedder: %s\n", e.msg);
    return 1;
  }
  make_vectors(6000);
  EG_RUN(test_exact_equals_brute_force);
  EG_RUN(test_filters);
  EG_RUN(test_query_filters);
  EG_RUN(test_hnsw_recall_and_restart);
  EG_RUN(test_hnsw_filtered);
  EG_RUN(test_erase_user_leaves_no_trace);
  EG_RUN(test_erase_drops_snapshot);
  EG_RUN(test_model_mismatch_refused);
  EG_RUN(test_bm25_per_user);
  EG_RUN(test_feedback);
  EG_RUN(test_staged_publish);
  EG_RUN(test_retention_tiers);
  EG_RUN(test_warm_shares_index);
  EG_RUN(test_tombstones_skipped);
  eg_embedder_close(emb);
  int rc = eg_test_finish();
  if (!rc) eg_test_rmtree(dir);
  free(dir);
  return rc;
}
