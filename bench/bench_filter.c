/*
 * bench_filter.c — a user's search in a large HNSW tenant, on both sides of the switch
 * between scoring the user's chunks exhaustively and walking the HNSW graph with the
 * user as a filter (vec_search.c, exact_limit):
 *   - a tenant of `total` chunks (LongMemEval-S turn texts with their GloVe vectors, a
 *     little noise on each) in blocks of 1000 chunks, each block one user's; the users
 *     hold 1k, 2k, 5k … chunks and the rest belongs to one more user;
 *   - for each user: NQ held-out queries (a turn's first 12 words and its vector), k = 10,
 *     hybrid (both dense fields, BM25, fusion), with the user's filter, searched three
 *     ways: always exhaustive, always the filtered graph walk, and as the engine chooses;
 *     p50 latency of each and the overlap@10 of the graph walk's and the engine's answers
 *     with the exhaustive one (the exact answer).
 * vectord's engine runs in-process, so only Search itself is timed.
 *
 *   build/bench_filter [total=300000] [data=…]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lme.h"
#include "bench/turns.h"
#include "common/log.h"
#include "common/time.h"
#include "services/vectord/vec_int.h"
#include "tests/testlib.h"

#define BLOCK 1000
#define NQ 200

static unsigned long long rng = 88172645463325252ULL;
static double urand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* The users' sizes in blocks, as many of them as leave ten blocks or more to one more user,
 * who takes the blocks left over. */
static const size_t user_blocks[] = {1, 2, 5, 10, 20, 40, 80, 160, 320};
#define MAX_USERS (sizeof user_blocks / sizeof *user_blocks + 1)

static const char *user_name(size_t u) {
  static char names[MAX_USERS][16];
  snprintf(names[u], sizeof names[u], "u%zu", u);
  return names[u];
}

/* Block b of chunks (ids b·1000 + 1 …) for user u: text of turn i mod n, vector moved a
 * little off (noise 0.15), as in bench_growth. */
static void store_block(eg_vec *v, const eg_bcorpus *c, size_t b, size_t u, float *buf) {
  eg_arena *a = eg_arena_new(1 << 20, 0);
  Engram__V1__Chunk *cs = eg_arena_calloc(a, BLOCK, sizeof *cs),
                    **ps = eg_arena_alloc(a, BLOCK * sizeof *ps);
  for (size_t i = 0; i < BLOCK; i++) {
    size_t id = b * BLOCK + i, src = id % c->n;
    float *x = buf + i * c->dim;
    for (int d = 0; d < c->dim; d++)
      x[d] = c->vecs[src * c->dim + d] + 0.15f * (float)(urand() - 0.5) / sqrtf((float)c->dim);
    eg_l2_normalize(x, c->dim);
    engram__v1__chunk__init(&cs[i]);
    cs[i].id = id + 1;
    cs[i].content = c->texts[src];
    cs[i].session_id = eg_arena_sprintf(a, "s%zu", id / 20);
    cs[i].role = i % 2 ? "assistant" : "user";
    cs[i].turn_index = (int32_t)(id % 20);
    cs[i].content_vector = x;
    cs[i].n_content_vector = (size_t)c->dim;
    ps[i] = &cs[i];
  }
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "filter";
  scope.user = (char *)user_name(u);
  Engram__V1__UpsertRequest req = ENGRAM__V1__UPSERT_REQUEST__INIT;
  req.scope = &scope;
  req.chunks = ps;
  req.n_chunks = BLOCK;
  Engram__V1__UpsertResponse resp = ENGRAM__V1__UPSERT_RESPONSE__INIT;
  eg_err e;
  if (eg_vec_upsert(v, &req, a, &resp, &e)) fprintf(stderr, "upsert: %s\n", e.msg), exit(1);
  eg_arena_free(a);
}

/* One search of held-out query q as user u; its top ids into ids (up to 10). */
static size_t search(eg_vec *v, const eg_bcorpus *c, size_t q, size_t u, uint64_t *ids) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__SearchQuery sq = ENGRAM__V1__SEARCH_QUERY__INIT, *qs[1] = {&sq};
  sq.vector = c->vecs + q * c->dim;
  sq.n_vector = (size_t)c->dim;
  sq.text = c->queries[q];
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "filter";
  scope.user = (char *)user_name(u);
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qs;
  req.n_queries = 1;
  req.k = 10;
  Engram__V1__SearchResponse resp = ENGRAM__V1__SEARCH_RESPONSE__INIT;
  eg_err e;
  size_t n = 0;
  if (eg_vec_search(v, &req, a, &resp, &e)) fprintf(stderr, "search: %s\n", e.msg), exit(1);
  for (size_t i = 0; i < resp.results[0]->n_hits && n < 10; i++)
    ids[n++] = resp.results[0]->hits[i]->chunk->id;
  eg_arena_free(a);
  return n;
}

/* NQ searches of user u with filter_exact_max = mode; p50 in µs; the answers into ids. */
static double timed(eg_vec *v, const eg_bcorpus *c, size_t u, uint32_t mode, uint64_t ids[NQ][10],
                    size_t got[NQ]) {
  int64_t lat[NQ];
  v->o.filter_exact_max = mode;
  for (size_t i = 0; i < NQ; i++) {
    int64_t s = eg_time_mono_us();
    got[i] = search(v, c, c->n + i, u, ids[i]);
    lat[i] = eg_time_mono_us() - s;
  }
  eg_sort_i64(lat, NQ);
  return (double)lat[NQ / 2];
}

static double overlap(uint64_t a[NQ][10], size_t na[NQ], uint64_t b[NQ][10], size_t nb[NQ]) {
  size_t same = 0, all = 0;
  for (size_t q = 0; q < NQ; q++) {
    all += nb[q];
    for (size_t i = 0; i < na[q]; i++)
      for (size_t j = 0; j < nb[q]; j++) same += a[q][i] == b[q][j];
  }
  return all ? (double)same / (double)all : 1;
}

int main(int argc, char **argv) {
  size_t total = argc > 1 ? (size_t)atoll(argv[1]) : 300000;
  const char *data = argc > 2 ? argv[2] : EG_LME_DEFAULT;
  eg_log_init("bench", EG_LOG_WARN);
  size_t blocks = total / BLOCK, named = 0, n_users = 0;
  if (blocks < 20) fprintf(stderr, "total must be at least %d\n", 20 * BLOCK), exit(2);
  while (n_users + 1 < MAX_USERS && named + user_blocks[n_users] + 10 <= blocks)
    named += user_blocks[n_users++];
  n_users++; /* the rest */
  eg_bcorpus c;
  eg_bcorpus_load(data, 150000 + NQ, 10000, NQ, &c);
  /* each block's user, in a shuffled order */
  size_t *owner = malloc(blocks * sizeof *owner), at = 0;
  for (size_t u = 0; u + 1 < n_users; u++)
    for (size_t i = 0; i < user_blocks[u]; i++) owner[at++] = u;
  while (at < blocks) owner[at++] = n_users - 1;
  for (size_t i = blocks - 1; i > 0; i--) {
    size_t j = (size_t)(urand() * (double)(i + 1)), t = owner[i];
    owner[i] = owner[j], owner[j] = t;
  }
  char *dir = eg_test_tempdir("bench-filter");
  eg_err e;
  eg_embedder *emb;
  if (eg_embedder_open("glove:" EG_SOURCE_DIR "/var/models/glove-100d.bin", &emb, &e))
    fprintf(stderr, "%s\n", e.msg), exit(1);
  eg_vec_opts o = {.dir = dir,
                   .embedder = emb,
                   .bm25_k1 = 1.2,
                   .bm25_b = 0.75,
                   .x = 0.4f,
                   .y = 0.4f,
                   .alpha = 0.4f,
                   .hnsw_threshold = 50000,
                   .hnsw_ef_search = 128,
                   .max_chunks = BLOCK,
                   .max_text_bytes = 65536,
                   .max_k = 1000,
                   .max_queries = 64,
                   .retention_off = true};
  eg_vec *v;
  if (eg_vec_open(&o, NULL, &v, &e)) fprintf(stderr, "%s\n", e.msg), exit(1);
  int64_t b0 = eg_time_mono_us();
  float *buf = malloc(BLOCK * (size_t)c.dim * sizeof *buf);
  for (size_t b = 0; b < blocks; b++) store_block(v, &c, b, owner[b], buf);
  eg_vec_quiesce(v);
  printf("filter benchmark: %zu chunks (HNSW, ef_search 128), stored in %.0f s\n", blocks * BLOCK,
         (double)(eg_time_mono_us() - b0) / 1e6);
  printf("%-8s %9s %14s %14s %14s %12s %12s\n", "user", "chunks", "exhaustive", "graph walk",
         "engine", "walk ov@10", "engine ov@10");
  static uint64_t ex[NQ][10], gw[NQ][10], en[NQ][10];
  static size_t nex[NQ], ngw[NQ], nen[NQ];
  for (size_t u = 0; u < n_users; u++) {
    size_t held = u + 1 < n_users ? user_blocks[u] * BLOCK : (blocks - named) * BLOCK;
    timed(v, &c, u, UINT32_MAX, ex, nex); /* warm-up: the user's records into the cache */
    double p_ex = timed(v, &c, u, UINT32_MAX, ex, nex);
    double p_gw = timed(v, &c, u, 1, gw, ngw);
    double p_en = timed(v, &c, u, 0, en, nen);
    printf("%-8s %9zu %11.0f us %11.0f us %11.0f us %12.3f %12.3f\n", user_name(u), held, p_ex,
           p_gw, p_en, overlap(gw, ngw, ex, nex), overlap(en, nen, ex, nex));
  }
  eg_vec_close(v);
  eg_embedder_close(emb);
  return 0;
}
