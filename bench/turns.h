/*
 * turns.h — what the in-process vectord benchmarks share: LongMemEval-S turn texts as a
 * corpus (read from ../shared/data, never copied), latency percentiles, resident memory.
 */
#ifndef EG_BENCH_TURNS_H
#define EG_BENCH_TURNS_H

#include <stddef.h>
#include <stdint.h>

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

/* Print "what  p50 … p99 …" of n latencies in µs (sorts them). */
void eg_breport(const char *what, int64_t *lat, size_t n);
/* The process's resident memory in KiB. */
long eg_brss_kb(void);

#endif
