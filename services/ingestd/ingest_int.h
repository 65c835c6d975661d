/*
 * ingest_int.h — ingestd's pipeline internals shared by ingest.c (entry points, jobs,
 * erasure, lifecycle), segment.c (sessions and documents → units), write.c (units →
 * graph facts and chunks), receipt.c (the idempotency receipt) and facts.c (client facts).
 */
#ifndef EG_INGESTD_INGEST_INT_H
#define EG_INGESTD_INGEST_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/rpc.h"
#include "lang/enrich.h"
#include "lang/statefacts.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "services/ingestd/enrich_llm.h"
#include "services/ingestd/ingest.h"
#include "services/ingestd/jobs.h"

/* Chunks per Upsert: vectord embeds them well inside one peer deadline (use-lite: about
 * 2.5 s for 64 full document chunks on a 2-core box, against 10 s by default). */
#define UPSERT_BATCH 64
#define COMMIT_BATCH 5000
/* Longest chunk text: a longer message, round or passage is cut into consecutive parts
 * (vectord's max_text_bytes bounds content and latent, and the latent adds to it). */
#define PART_BYTES 12288
/* A fact's source utterance is cut to this (graphd bounds every string it stores). */
#define UTTERANCE_BYTES 2048
/* A watermark "v1:<16 hex digits>" and its NUL. */
#define WATERMARK_LEN 64 /* "v1:<hex>" or "v1:<hex>;g1:<hex>" */

struct eg_ingest {
  eg_ingest_opts o;
  eg_jobs *jobs;               /* the durable async queue */
  eg_llm *llm;                 /* NULL when not configured */
  eg_embedder *state_embedder; /* the prototype extractor's model; NULL when off */
  eg_statefacts *states;       /* NULL when off */
  eg_series *m_tokens, *m_chunks, *m_facts, *m_entities, *m_duplicates, *m_llm_fallbacks,
      *m_outcomes;
  eg_series *m_state_clauses, *m_state_embedded, *m_state_doubts;
  eg_metric *m_stage;
};

/* One chunk to be: a round of a session or a passage of a document (or a part of one). */
typedef struct unit {
  eg_segment seg;
  const char *content;
  int32_t turn_index, turn_end;
} unit;

/* What the write path needs of a session or document ingest (all borrowed). */
typedef struct writer_in {
  const Engram__V1__Scope *scope;
  const char *kind;      /* "session" or "document" */
  const char *source_id; /* session or document id */
  uint64_t content_hash;
  unit *units;
  size_t n;
  Engram__V1__Enricher enricher;
  const Engram__V1__WindowOptions *window;
  Engram__V1__KeyValue **metadata; /* documents */
  size_t n_metadata;
  eg_job *job;    /* the async job, for progress (NULL when sync) */
  float salience; /* the client's, for every chunk (0: vectord's lexicon) */
} writer_in;

/* ---- ingest.c: shared helpers ---- */

/* The id of chunk `index` of a source: stable across retries, so a retry overwrites. */
uint64_t eg_ig_chunk_id(const Engram__V1__Scope *s, const char *kind, const char *id, size_t index);
/* The watermark of an ingest: "v1:<hex id>" of the last chunk it stores (eg_watermark_wait). */
void eg_ig_format_watermark(uint64_t last_chunk_id, char *buf, size_t len);
/* … and graphd's position of the facts it wrote: "v1:<hex>;g1:<hex>". */
void eg_ig_format_watermark2(uint64_t last_chunk_id, const char *graph, char *buf, size_t len);
/* Append a stage that began at t0 (eg_time_mono_us) to the report and the histogram. */
void eg_ig_stage(eg_ingest *g, Engram__V1__IngestReport *r, eg_arena *a, const char *name,
                 int64_t t0);
/* EG_EINVAL when s is longer than max bytes or not UTF-8; what names it in the message. */
eg_code eg_ig_check_text(const char *s, size_t max, const char *what, eg_err *err);
/* 0 (none) or 1900-01-01 .. 2200-01-01. */
bool eg_ig_time_ok(int64_t t);
/* The tenant's vectord and graphd (borrowed from the peers). */
eg_rpc_client *eg_ig_vectord(const eg_ingest *g, const Engram__V1__Scope *scope);
eg_rpc_client *eg_ig_graphd(const eg_ingest *g, const Engram__V1__Scope *scope);

/* ---- segment.c: sessions and documents → units ---- */

eg_code eg_ig_validate_session(const eg_ingest *g, const Engram__V1__IngestSessionRequest *r,
                               eg_err *err);
eg_code eg_ig_validate_document(const eg_ingest *g, const Engram__V1__IngestDocumentRequest *r,
                                eg_err *err);
/* One unit per round, in parts when long; *out (arena) NULL when out of memory. */
size_t eg_ig_session_units(const Engram__V1__IngestSessionRequest *r, int64_t session_time,
                           eg_arena *a, unit **out);
/* Sentence-bounded passages of about `words` words; *out NULL when out of memory. */
size_t eg_ig_document_units(const Engram__V1__IngestDocumentRequest *r, uint32_t words, eg_arena *a,
                            unit **out);
/* Segment and write (write.c); wm receives the watermark. job NULL when sync. */
eg_code eg_ig_do_session(eg_ingest *g, const Engram__V1__IngestSessionRequest *r, eg_job *job,
                         eg_arena *a, Engram__V1__IngestReport *rep, char *wm, size_t wml,
                         eg_err *err);
eg_code eg_ig_do_document(eg_ingest *g, const Engram__V1__IngestDocumentRequest *r, eg_job *job,
                          eg_arena *a, Engram__V1__IngestReport *rep, char *wm, size_t wml,
                          eg_err *err);

/* ---- write.c: units → receipt check, enrichment, graph facts, chunks ---- */

eg_code eg_ig_write_units(eg_ingest *g, const writer_in *in, eg_arena *a,
                          Engram__V1__IngestReport *rep, char *watermark, size_t wm_len,
                          eg_err *err);
/* Delete the chunks of segments [from, to) of this source (absent ones are no-ops). */
/* former.c: the start of each former value the extractor read (eg_fact.since_first_mention),
 * the user's first mention of it as theirs in their earlier chunks; one with none is dropped
 * from en. Fails only out of memory (vectord unreachable: the former values are dropped). */
eg_code eg_ig_former_starts(eg_ingest *g, const writer_in *in, eg_enriched *en, eg_arena *a,
                            eg_err *err);
/* … and, where the batch states the first value of a state relation the graph holds none of
 * before it, the value the user's earlier chunks name most often as theirs (a place before the
 * first home said), held from its first mention until then (extractor "earlier-mentions",
 * confidence 0.5). Fails only out of memory. */
eg_code eg_ig_earlier_values(eg_ingest *g, const writer_in *in, eg_enriched *en, eg_arena *a,
                             eg_err *err);
eg_code eg_ig_delete_segments(eg_ingest *g, const writer_in *in, size_t from, size_t to,
                              eg_arena *a, eg_err *err);

/* ---- receipt.c: the idempotency receipt ---- */

/* Look for the receipt of in at its last chunk (last_id) and chunk 0: *dup when identical
 * content was ingested already (and published), *old_n the number of chunks of a
 * previous, different version or of an interrupted attempt (0 when none). */
eg_code eg_ig_receipt_check(eg_ingest *g, const writer_in *in, uint64_t last_id, bool *dup,
                            size_t *old_n, eg_err *err);
/* Set the receipt of chunk i of the n chunks of in; old_n as eg_ig_receipt_check found
 * it. EG_ENOMEM when the arena is exhausted. */
eg_code eg_ig_receipt_stamp(Engram__V1__Chunk *c, const writer_in *in, size_t i, size_t old_n,
                            eg_arena *a, eg_err *err);

/* ---- facts.c: facts the client asserts ---- */

eg_code eg_ig_validate_facts(const eg_ingest *g, const Engram__V1__AssertFactsRequest *r,
                             eg_err *err);
/* Commit them to graphd; *edge_ids (arena) the ids graphd gave them. */
eg_code eg_ig_do_facts(eg_ingest *g, const Engram__V1__AssertFactsRequest *r, eg_arena *a,
                       Engram__V1__IngestReport *rep, uint64_t **edge_ids, size_t *n_edge_ids,
                       eg_err *err);

#endif
