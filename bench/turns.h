/*
 * turns.h — what the in-process vectord benchmarks share: LongMemEval-S turn texts as a
 * corpus (read from ../shared/data, never copied), latency percentiles, resident memory.
 */
#ifndef EG_BENCH_TURNS_H
#define EG_BENCH_TURNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/embed.h"
#include "services/vectord/vec.h"

/* Up to max turn texts (non-empty, 11–7999 bytes) from a LongMemEval file; *n gets the
 * count. NULL when the file cannot be read. */
char **eg_bturns_load(const char *path, size_t max, size_t *n);
/* Turn texts with their GloVe vectors, the last nq of them held out as queries (a turn's
 * first 12 words, and its vector): texts[0 … n) are stored, texts[n …] asked. */
typedef struct eg_bcorpus {
  char **texts;
  char **queries; /* the first 12 words of each text: a question's length, not a turn's */
  float *vecs;
  size_t n;
  int dim;
} eg_bcorpus;
/* Up to max turns of a LongMemEval file embedded with var/models/glove-100d.bin; exits
 * the process when the file or the model cannot be read, or fewer than min + nq turns. */
void eg_bcorpus_load(const char *path, size_t max, size_t min, size_t nq, eg_bcorpus *c);

/* The benchmarks' pseudo-random numbers in [0, 1) (xorshift, one fixed seed: runs repeat). */
double eg_brand(void);
/* Store chunks [first, first + n) of the corpus in tenant (as user, NULL = none) with one
 * Upsert: chunk i (id i + 1) has the text of turn i mod c->n, its vector moved a little off
 * (noise 0.15, so that no two are the same), session "s<i/20>", alternating roles. Exits
 * the process when the Upsert fails. */
void eg_bcorpus_store(eg_vec *v, const eg_bcorpus *c, const char *tenant, const char *user,
                      size_t first, size_t n);
/* The in-process engine as the benchmarks run it (fusion weights 0.4 each, HNSW past
 * hnsw_threshold chunks with efSearch 128, the daemon's default limits), over emb (NULL:
 * GloVe-100d); exits when it cannot open. */
eg_vec *eg_bvec_open(const char *dir, eg_embedder *emb, bool retention_off,
                     uint32_t hnsw_threshold);

/* One hybrid Search (k = 10) of held-out query q of the corpus in tenant as user (NULL =
 * none); its top ids into ids; each stage's time (SearchResponse.timings) added to
 * stage_us[0 … n_stages) when stage_us is not NULL. Exits when the Search fails. */
size_t eg_bcorpus_search(eg_vec *v, const eg_bcorpus *c, const char *tenant, const char *user,
                         size_t q, uint64_t ids[10], int64_t *stage_us, size_t n_stages);

/* Print "what  p50 … p99 …" of n latencies in µs (sorts them). */
void eg_breport(const char *what, int64_t *lat, size_t n);
/* The process's resident memory in KiB. */
long eg_brss_kb(void);

#endif
