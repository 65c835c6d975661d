/*
 * bench_vector.c — vectord figures for bench/RESULTS.md, in one run, on real text
 * (LongMemEval-S turns from ../shared/data, read here, never copied):
 *   1. embedding throughput of the GloVe+SIF embedder (tokens/s);
 *   2. index build time for N chunks (store + flat indexes + BM25), then the background
 *      HNSW build, and resident memory per 100k chunks;
 *   3. search latency: vectord's dense search (both fields, k=10) against raw FAISS
 *      calls on the very same two HNSW indexes and queries; and hybrid (dense + BM25).
 *
 *   build/bench_vector [chunks=100000] [embedder=use|glove] [data=…/lme_s_dev.jsonl.gz]
 */
#include <cjson/cJSON.h>
#include <faiss/c_api/Index_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lme.h"
#include "bench/turns.h"
#include "common/log.h"
#include "common/text.h"
#include "common/time.h"
#include "lang/embed.h"
#include "services/vectord/vec_int.h"
#include "tests/testlib.h"

int main(int argc, char **argv) {
  size_t N = argc > 1 ? (size_t)atoll(argv[1]) : 100000;
  const char *which = argc > 2 ? argv[2] : "use";
  const char *data = argc > 3 ? argv[3] : EG_LME_DEFAULT;
  eg_log_init("bench", EG_LOG_WARN);
  size_t n = 0;
  char **texts = eg_bturns_load(data, N + 1000, &n);
  if (!texts || n < N + 1000) {
    fprintf(stderr, "need %zu texts from %s, got %zu\n", N + 1000, data, n);
    return 1;
  }
  eg_embedder *emb;
  eg_err e;
  const char *spec = strcmp(which, "glove") == 0 ? "glove:" EG_SOURCE_DIR
                                                   "/var/models/glove-100d.bin"
                                                 : "use:" EG_SOURCE_DIR "/var/models/use-lite.bin";
  if (eg_embedder_open(spec, &emb, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  int dim = emb->dim;
  printf("vectord benchmark: %zu chunks of LongMemEval-S turns, embedder %s\n", N, emb->model_id);

  /* 1. embedding throughput */
  float *vecs = malloc((N + 1000) * (size_t)dim * sizeof(float));
  size_t tokens = 0;
  for (size_t i = 0; i < N + 1000; i++) tokens += eg_text_words(texts[i]);
  int64_t t0 = eg_time_mono_us();
  for (size_t i = 0; i < N + 1000; i += 256) {
    size_t m = N + 1000 - i < 256 ? N + 1000 - i : 256;
    eg_embed(emb, (const char *const *)texts + i, m, vecs + i * dim, &e);
  }
  double secs = (double)(eg_time_mono_us() - t0) / 1e6;
  char what[160];
  snprintf(what, sizeof what, "embed, %s, 1 thread, batches of 256", emb->model_id);
  printf("%-56s %10.0f words/s (%zu texts, %.1f s)\n", what, tokens / secs, N + 1000, secs);

  /* 2. build */
  char *dir = eg_test_tempdir("bench-vec");
  eg_vec *v = eg_bvec_open(dir, emb, false, N / 2 < 50000 ? (uint32_t)(N / 2) : 50000);
  long rss0 = eg_brss_kb();
  t0 = eg_time_mono_us();
  for (size_t b = 0; b < N; b += 1000) {
    eg_arena *a = eg_arena_new(1 << 20, 0);
    Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
    scope.tenant = "bench";
    Engram__V1__Chunk *cs = eg_arena_calloc(a, 1000, sizeof *cs),
                      **ps = eg_arena_alloc(a, 1000 * sizeof *ps);
    for (size_t i = 0; i < 1000; i++) {
      engram__v1__chunk__init(&cs[i]);
      cs[i].id = b + i + 1;
      cs[i].content = texts[b + i];
      cs[i].session_id = eg_arena_sprintf(a, "s%zu", (b + i) / 20);
      cs[i].role = i % 2 ? "assistant" : "user";
      cs[i].turn_index = (int32_t)(i % 20);
      cs[i].content_vector = vecs + (b + i) * dim; /* embedded above: this measures indexing */
      cs[i].n_content_vector = (size_t)dim;
      ps[i] = &cs[i];
    }
    Engram__V1__UpsertRequest req = ENGRAM__V1__UPSERT_REQUEST__INIT;
    req.scope = &scope;
    req.chunks = ps;
    req.n_chunks = 1000;
    Engram__V1__UpsertResponse resp = ENGRAM__V1__UPSERT_RESPONSE__INIT;
    if (eg_vec_upsert(v, &req, a, &resp, &e)) {
      fprintf(stderr, "upsert: %s\n", e.msg);
      return 1;
    }
    eg_arena_free(a);
    if (getenv("BENCH_PROGRESS") && (b + 1000) % 10000 == 0)
      fprintf(stderr, "  %zu chunks: %.1f s\n", b + 1000, (double)(eg_time_mono_us() - t0) / 1e6);
  }
  secs = (double)(eg_time_mono_us() - t0) / 1e6;
  printf("%-56s %10.1f s  (%.0f chunks/s)\n",
         "index build: store + exact dense + BM25, batches of 1000", secs, N / secs);
  t0 = eg_time_mono_us();
  eg_vec_quiesce(v);
  printf("%-56s %10.1f s\n", "background HNSW32 build, both fields (after the above)",
         (double)(eg_time_mono_us() - t0) / 1e6);
  long rss1 = eg_brss_kb();
  printf("%-56s %10.0f MB\n", "resident memory per 100k chunks (engine, in-process)",
         (double)(rss1 - rss0) / 1024.0 * 100000.0 / (double)N);

  /* 3. search */
  enum { Q = 1000 };
  int64_t *lat = calloc(Q, sizeof *lat);
  eg_code rc;
  vtenant *t = eg_vt_get(v, "bench", false, &rc, &e);
  if (!t || !t->hnsw) {
    fprintf(stderr, "tenant not on HNSW\n");
    return 1;
  }
  size_t kk = 64; /* what vectord asks FAISS for at k = 10 */
  float *d = malloc(kk * sizeof *d);
  idx_t *l = malloc(kk * sizeof *l);
  for (int i = 0; i < Q; i++) { /* raw FAISS: the two searches vectord makes */
    const float *q = vecs + (N + (size_t)i) * dim;
    int64_t s = eg_time_mono_us();
    faiss_Index_search(t->dense[0], 1, q, (idx_t)kk, d, l);
    faiss_Index_search(t->dense[1], 1, q, (idx_t)kk, d, l);
    lat[i] = eg_time_mono_us() - s;
  }
  eg_breport("raw FAISS, HNSW32 x 2 fields, k=64, same indexes", lat, Q);
  int64_t raw_p50 = lat[Q / 2];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < Q; i++) {
      eg_arena *a = eg_arena_new(0, 0);
      Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
      scope.tenant = "bench";
      Engram__V1__SearchQuery sq = ENGRAM__V1__SEARCH_QUERY__INIT, *qs[1] = {&sq};
      sq.vector = vecs + (N + (size_t)i) * dim;
      sq.n_vector = (size_t)dim;
      sq.text = pass ? texts[N + (size_t)i] : "";
      Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
      req.scope = &scope;
      req.queries = qs;
      req.n_queries = 1;
      req.k = 10;
      Engram__V1__SearchResponse resp = ENGRAM__V1__SEARCH_RESPONSE__INIT;
      int64_t s = eg_time_mono_us();
      if (eg_vec_search(v, &req, a, &resp, &e)) {
        fprintf(stderr, "search: %s\n", e.msg);
        return 1;
      }
      lat[i] = eg_time_mono_us() - s;
      eg_arena_free(a);
    }
    eg_breport(pass ? "vectord Search, hybrid (dense x2 + BM25 + fusion), k=10"
                    : "vectord Search, dense only (both fields + fusion), k=10",
               lat, Q);
    if (!pass)
      printf("  ratio vectord/raw FAISS (p50, dense only): %.2fx\n",
             (double)lat[Q / 2] / (double)raw_p50);
  }
  eg_vec_close(v);
  eg_embedder_close(emb);
  eg_test_rmtree(dir);
  free(dir);
  return 0;
}
