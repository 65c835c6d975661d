/*
 * recall.h — recalld's engine: one Recall is
 *
 *   wait      the request's watermark is visible (read-your-writes)
 *   expand    Φ(q): the query, its keywords, its dated rewrite (relative dates made
 *             absolute against query_time, the form the stored latent texts have), the
 *             entities it names resolved through graphd with their aliases; with
 *             ExpansionMode LLM also reformulations from a chat model (remote.c)
 *   search    in parallel: vectord hybrid search over every variant (and once more inside
 *             the question's time range when it has one); graphd state of the named
 *             entities and bounded traversal from them
 *   expand2   chunk-level expansion: entities of the top chunks → more chunks about them
 *   fuse      chunks scored by content, latent, BM25, temporal fit and recency; facts by how
 *             well relation and value match the question; TopK1(chunks) ∪ TopK2(graph)
 *   rerank    optional: a remote cross-encoder reorders the best chunks (remote.c)
 *   walk      premise walk and history of every returned fact, and of the user's
 *             preferences picked for the question (values.c)
 *   assemble  items plus one dated context block within the token budget, and the
 *             nothing-relevant flag
 *
 * Every stage's time is in the response and in engram_recalld_stage_seconds.
 */
#ifndef EG_RECALLD_RECALL_H
#define EG_RECALLD_RECALL_H

#include "common/arena.h"
#include "common/err.h"
#include "common/metrics.h"
#include "common/peers.h"
#include "proto/engram/v1/recall.pb-c.h"

typedef struct eg_recall_opts {
  eg_peers *peers;        /* borrowed */
  uint32_t max_k;         /* largest k, k1, k2 */
  uint32_t vectord_max_k; /* most candidates asked of vectord per search (0 = no cap) */
  uint32_t max_query_bytes;
  uint32_t max_token_budget;
  float min_relevance;    /* dense similarity under which a chunk is not relevant … */
  float min_word_match;   /* … unless its BM25 / the query's best is at least this */
  bool decompose;         /* a question relating two events searched as one variant per event */
  float neighbour_weight; /* a turn's score gains this share of its better neighbour's (the
                             adjacent turn of the same session): an answer follows its
                             question; 0 = off (and no search of the first hits' sessions) */
  float speaker_weight;   /* added to a turn spoken by a person the question names */
  struct eg_llm *llm;     /* reformulations for ExpansionMode LLM; NULL = none */
  const char *rerank_url; /* TEI-compatible ".../rerank"; NULL or "" = none */
  const char *rerank_key; /* bearer token of the reranker, may be NULL */
  long rerank_timeout_ms;
  float feedback_weight;  /* vectord's pseudo-relevance feedback for every search (0 = off) */
  uint32_t feedback_docs; /* … over this many best candidates (0 = vectord's default) */
  bool current_first;     /* a fact's current value's excerpt before an earlier value's */
  /* For a question about a state of the user's ("where do I live"), the latest excerpt in
   * which the user states a value of it goes first (latest_first, read lexically with the
   * prototypes file's types and markers; NULL or "": off). */
  const char *state_prototypes;
  /* Access recording (access.c): the ids a Recall returned go, batched, to vectord's and
   * graphd's RecordAccess. Off (false) for benchmarks that must not feed back. */
  bool record_access;
  uint32_t access_flush_ms;  /* flush at least this often (0 = 250) */
  uint32_t access_batch;     /* … or as soon as this many ids wait (0 = 512) */
  uint32_t access_queue_max; /* ids waiting beyond which a Recall's are dropped (0 = 65536) */
} eg_recall_opts;

typedef struct eg_recall eg_recall;

eg_code eg_recall_open(const eg_recall_opts *o, eg_metrics *metrics, eg_recall **out, eg_err *err);
void eg_recall_close(eg_recall *r); /* accepts NULL */

eg_code eg_recall_run(eg_recall *r, const Engram__V1__RecallRequest *req, eg_arena *a,
                      Engram__V1__RecallResponse *resp, eg_err *err);

#endif
