/*
 * engine.h — Engram as a system under test in engram-bench: a group's sessions ingested
 * through ingestd as a user would send them (in order, with their times, sync mode), then
 * each question asked through recalld, the returned items read as a ranking of units.
 */
#ifndef EG_BENCH_ENGINE_H
#define EG_BENCH_ENGINE_H

#include "bench/dataset.h"
#include "bench/metrics.h"
#include "common/rpc.h"

typedef struct eg_bengine {
  eg_rpc_client *ingestd, *recalld; /* borrowed; shared by the workers */
  const char *tenant;
  uint32_t k;       /* items per Recall */
  float weights[7]; /* RecallWeights content…graph, sentence; all 0 = server defaults */
  int expansion;    /* ExpansionMode; 0 = server default */
  int enricher;     /* Enricher of the ingests; 0 = server default (the rules) */
} eg_bengine;

/* Ingest one session of g (sync, retrying overload and outages as eg_ingest_send does;
 * *retries counts them, may be NULL); its words are added to *tokens (may be NULL). */
eg_code eg_bengine_ingest_session(const eg_bengine *e, const eg_bgroup *g, const eg_bsession *s,
                                  uint64_t *tokens, uint64_t *retries, eg_err *err);
/* Ingest g's sessions; a session refused as invalid (e.g. a message over the size limit)
 * is counted in *refused and reported on stderr; tokens ingested are added to *tokens. */
eg_code eg_bengine_ingest(const eg_bengine *e, const eg_bgroup *g, uint64_t *refused,
                          uint64_t *tokens, eg_err *err);

/* Recall q; the items' units are appended to out in order (facts and chunks by their
 * source session and turn). *context (malloc'd; may be NULL) gets the context block. */
eg_code eg_bengine_recall(const eg_bengine *e, const eg_bgroup *g, const eg_bquestion *q,
                          eg_brank *out, char **context, eg_err *err);

#endif
