/*
 * ingest.h — ingestd's pipeline: validate, segment, enrich in a sliding window, resolve
 * entities, commit facts to graphd, upsert chunks to vectord; sync or async.
 *
 * Idempotency without state: chunk ids derive from (tenant, user, session or document,
 * segment index); the last chunk carries the content hash. Re-sending identical content
 * finds that receipt and writes nothing; changed content replaces the chunks (and adds
 * new commits — the graph never forgets what it was told). Graph facts are committed
 * before the chunks are upserted, so a visible receipt means the whole ingest is done:
 * the watermark of an ingest is its receipt chunk, and Wait polls vectord for it.
 *
 * Whole or nothing: chunks go to vectord in batches; an ingest of more than one batch
 * stages them (invisible) and publishes them at once at the end, and deletes them when it
 * fails. Texts longer than a chunk takes are cut into consecutive parts.
 *
 * Async ingests go through a durable, bounded queue (jobs.h): accepted only once on disk,
 * resumed after a restart; when it is full the request is refused with RESOURCE_EXHAUSTED,
 * never dropped.
 */
#ifndef EG_INGESTD_INGEST_H
#define EG_INGESTD_INGEST_H

#include "common/arena.h"
#include "common/err.h"
#include "common/metrics.h"
#include "common/peers.h"
#include "proto/engram/v1/common.pb-c.h"
#include "proto/engram/v1/ingest.pb-c.h"

typedef struct eg_ingest eg_ingest;

typedef struct eg_ingest_opts {
  eg_peers *peers; /* borrowed */
  unsigned window_prev, window_next;
  uint32_t max_messages;      /* per session */
  uint32_t max_message_bytes; /* per message */
  uint32_t max_document_bytes;
  uint32_t max_facts;       /* per AssertFacts */
  uint32_t doc_chunk_words; /* target words per document chunk */
  int async_workers, queue_max;
  const char *jobs_dir; /* RocksDB directory of the async queue (borrowed) */
  const char *llm_url;  /* OpenAI-compatible base URL for the LLM enricher ("" = none) */
  const char *llm_model;
  long llm_timeout_ms;
  /* The prototype extractor (statefacts.h) beside the rules: both empty = off. A missing
   * model or file only logs a warning and leaves the rules alone. */
  const char *state_embedder;   /* embedder spec ("use:<path>") */
  const char *state_prototypes; /* the prototypes file */
  double state_floor, state_margin;
} eg_ingest_opts;

eg_code eg_ingest_open(const eg_ingest_opts *opts, eg_metrics *metrics, eg_ingest **out,
                       eg_err *err);
/* Lets running jobs finish (waiting ones stay queued on disk), then frees. */
void eg_ingest_close(eg_ingest *g);

eg_code eg_ingest_session(eg_ingest *g, const Engram__V1__IngestSessionRequest *req, eg_arena *a,
                          Engram__V1__IngestResponse *resp, eg_err *err);
eg_code eg_ingest_document(eg_ingest *g, const Engram__V1__IngestDocumentRequest *req, eg_arena *a,
                           Engram__V1__IngestResponse *resp, eg_err *err);
eg_code eg_ingest_facts(eg_ingest *g, const Engram__V1__AssertFactsRequest *req, eg_arena *a,
                        Engram__V1__IngestResponse *resp, eg_err *err);
eg_code eg_ingest_get_job(eg_ingest *g, const Engram__V1__GetJobRequest *req, eg_arena *a,
                          Engram__V1__Job *resp, eg_err *err);
eg_code eg_ingest_wait(eg_ingest *g, const Engram__V1__WaitRequest *req, eg_arena *a,
                       Engram__V1__WaitResponse *resp, eg_err *err);
eg_code eg_ingest_erase(eg_ingest *g, const Engram__V1__EraseRequest *req, eg_arena *a,
                        Engram__V1__EraseResponse *resp, eg_err *err);
/* The peers the pipeline writes to (borrowed). */
eg_peers *eg_ingest_peers(const eg_ingest *g);

/* ---- Admin retention (retention.c, docs/retention.md) ---- */

/* Chunks from vectord, then facts from graphd; the policy and tier sizes from vectord
 * (the policy from graphd when vectord keeps none and no chunk was asked). */
eg_code eg_ingest_get_retention(eg_ingest *g, const Engram__V1__GetRetentionRequest *req,
                                eg_arena *a, Engram__V1__GetRetentionResponse *resp, eg_err *err);
/* Validated here (a policy that evicts needs confirm_tenant), then set on vectord and
 * graphd; audited with the policy's values. */
eg_code eg_ingest_set_retention_policy(eg_ingest *g,
                                       const Engram__V1__SetRetentionPolicyRequest *req,
                                       eg_arena *a, Engram__V1__SetRetentionPolicyResponse *resp,
                                       eg_err *err);
/* vectord's sweep; audited with its counts. */
eg_code eg_ingest_sweep_retention(eg_ingest *g, const Engram__V1__SweepRetentionRequest *req,
                                  eg_arena *a, Engram__V1__SweepRetentionResponse *resp,
                                  eg_err *err);

#endif
