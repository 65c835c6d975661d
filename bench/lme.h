/*
 * lme.h — read LongMemEval records (one JSON object per line of a .jsonl.gz file) for the
 * benchmarks. The data stays in ../shared/data; nothing is copied.
 */
#ifndef EG_BENCH_LME_H
#define EG_BENCH_LME_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#define EG_LME_DEFAULT EG_SOURCE_DIR "/../shared/data/longmemeval/lme_s_dev.jsonl.gz"

/* Call fn for each record, in file order, until it returns false or the file ends.
 * Returns the number of records read, or -1 when the file cannot be opened. */
long eg_lme_each(const char *path, bool (*fn)(const cJSON *record, void *ctx), void *ctx);

/* Whitespace-separated words of s (the token count the benchmarks quote). */
size_t eg_lme_words(const char *s);

#endif
