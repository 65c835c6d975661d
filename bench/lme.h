/*
 * lme.h — read LongMemEval records (one JSON object per line of a .jsonl.gz file) for the
 * benchmarks. The data stays in ../shared/data; nothing is copied.
 */
#ifndef EG_BENCH_LME_H
#define EG_BENCH_LME_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EG_LME_DEFAULT EG_SOURCE_DIR "/../shared/data/longmemeval/lme_s_dev.jsonl.gz"

/* Call fn for each record, in file order, until it returns false or the file ends.
 * Returns the number of records read, or -1 when the file cannot be opened. */
long eg_lme_each(const char *path, bool (*fn)(const cJSON *record, void *ctx), void *ctx);

/* What eg_lme_write_sessions wrote. */
typedef struct eg_lme_sessions {
  long questions, sessions;
  size_t words;
} eg_lme_sessions;

/* Write the haystack sessions of the first max_questions questions as JSONL
 * IngestSessionRequests (tenant "bench", user = the question id, session_time from the
 * haystack date) to out_path. 0 on success, -1 when data or out_path cannot be used. */
int eg_lme_write_sessions(const char *data, long max_questions, const char *out_path,
                          eg_lme_sessions *st);

/* "2023/05/20 (Sat) 15:08" → µs (0 when malformed). */
int64_t eg_lme_time(const char *d);

#endif
