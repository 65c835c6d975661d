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

/* The users' sizes in blocks, as many of them as leave ten blocks or more to one more user,
 * who takes the blocks left over. */
static const size_t user_blocks[] = {1, 2, 5, 10, 20, 40, 80, 160, 320};
#define MAX_USERS (sizeof user_blocks / sizeof *user_blocks + 1)

static const char *user_name(size_t u) {
  static char names[MAX_USERS][16];
  snprintf(names[u], sizeof names[u], "u%zu", u);
  return names[u];
}

/* NQ searches of user u with filter_exact_max = mode; p50 in µs; the answers into ids. */
static double timed(eg_vec *v, const eg_bcorpus *c, size_t u, uint32_t mode, uint64_t ids[NQ][10],
                    size_t got[NQ]) {
  int64_t lat[NQ];
  v->o.filter_exact_max = mode;
  for (size_t i = 0; i < NQ; i++) {
    int64_t s = eg_time_mono_us();
    got[i] = eg_bcorpus_search(v, c, "filter", user_name(u), c->n + i, ids[i], NULL, 0);
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
    size_t j = (size_t)(eg_brand() * (double)(i + 1)), t = owner[i];
    owner[i] = owner[j], owner[j] = t;
  }
  char *dir = eg_test_tempdir("bench-filter");
  eg_vec *v = eg_bvec_open(dir, NULL, true, 50000);
  int64_t b0 = eg_time_mono_us();
  for (size_t b = 0; b < blocks; b++)
    eg_bcorpus_store(v, &c, "filter", user_name(owner[b]), b * BLOCK, BLOCK);
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
  return 0;
}
