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
/* Print "what  p50 … p99 …" of n latencies in µs (sorts them). */
void eg_breport(const char *what, int64_t *lat, size_t n);
/* The process's resident memory in KiB. */
long eg_brss_kb(void);

#endif
