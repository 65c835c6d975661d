/*
 * haystack.h — the set-up the end-to-end benchmarks share: LongMemEval-S haystacks written
 * as JSONL, the four daemons started on loopback with a given embedder, and the sessions
 * ingested through ingestd by the bulk runner of `engram ingest bulk`.
 */
#ifndef EG_BENCH_HAYSTACK_H
#define EG_BENCH_HAYSTACK_H

#include "bench/lme.h"
#include "cli/bulk.h"
#include "tests/harness.h"

typedef struct eg_haystack {
  eg_cluster cl;           /* running daemons; eg_cluster_stop when done */
  eg_lme_sessions written; /* what the JSONL holds */
  eg_bulk_stats ingest;    /* what the ingest did */
} eg_haystack;

/* The first `questions` haystacks of data, embedder "glove" or "use-lite", `parallel`
 * ingests in flight. Up to max_failed_pct percent of the sessions may be refused (too large);
 * more is a failure. 0 on success; -1 with a message on stderr (daemons stopped). */
int eg_haystack_load(const char *data, long questions, const char *embedder, int parallel,
                     double max_failed_pct, eg_haystack *h);

#endif
