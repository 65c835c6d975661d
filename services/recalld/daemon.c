/*
 * recalld — the recall orchestrator (engram.v1.Recall): query expansion, parallel
 * hybrid + graph search, fusion, premise walk, context assembly.
 *
 * daemon.c wires configuration, peers and the engine into the shared daemon lifecycle
 * (common/daemon.c); rpc.c is the service table.
 */
#include "common/daemon.h"

#include <stdlib.h>

#include "common/llm.h"
#include "common/peers.h"
#include "common/rpc.h"
#include "services/daemons.h"
#include "services/recalld/recall.h"
#include "services/recalld/rpc.h"

static const eg_cfg_opt recalld_opts[] = {
    EG_PEER_OPTS,
    {"max_k", EG_CFG_INT, "100", "largest k, k1 and k2 of a Recall", 0, 1, 10000},
    {"vectord_max_k", EG_CFG_INT, "1000",
     "most candidates asked of vectord per search (at most vectord's max_k)", 0, 1, 100000},
    {"max_query_bytes", EG_CFG_INT, "4096", "largest query", 0, 16, 1 << 20},
    {"max_token_budget", EG_CFG_INT, "32000", "largest token budget of the context block", 0, 16,
     1 << 20},
    {"min_relevance", EG_CFG_DOUBLE, "0.3",
     "dense similarity under which a chunk is not context (tune per embedder)", 0, 0, 1},
    {"min_word_match", EG_CFG_DOUBLE, "0.5",
     "BM25 relative to the query's best match from which a chunk is context whatever its "
     "similarity",
     0, 0, 1},
    {"decompose", EG_CFG_BOOL, "false",
     "cut a question relating two events (a span, a choice of order) into one variant per event, "
     "each event's best hit given a place in the first half of k1",
     0, 0, 0},
    {"neighbour_weight", EG_CFG_DOUBLE, "0.3",
     "share of its better neighbour's score (the adjacent turn of the same session) a chunk "
     "gains: the turns of the first hits' sessions are searched too (0 = off)",
     0, 0, 1},
    {"speaker_weight", EG_CFG_DOUBLE, "0.05",
     "added to the score of a turn whose speaker (\"Name: \" opening it) the question names", 0, 0,
     1},
    {"llm_url", EG_CFG_STR, "",
     "OpenAI-compatible base URL for EXPANSION_MODE_LLM (key: ENGRAM_LLM_API_KEY)", 0, 0, 0},
    {"llm_model", EG_CFG_STR, "gpt-4o-mini", "model of the query reformulations", 0, 0, 0},
    {"llm_timeout_ms", EG_CFG_INT, "10000", "deadline of one LLM call", 0, 100, 600000},
    {"rerank_url", EG_CFG_STR, "",
     "TEI-compatible cross-encoder endpoint (…/rerank; key: ENGRAM_RERANK_API_KEY)", 0, 0, 0},
    {"rerank_timeout_ms", EG_CFG_INT, "2000", "deadline of one rerank call", 0, 50, 600000},
    {"feedback_weight", EG_CFG_DOUBLE, "0",
     "pseudo-relevance feedback of the searches: how far each query vector moves toward its first "
     "ranking's best chunks (0 = off, at most 10; 0.5 is a good start)",
     0, 0, 0},
    {"feedback_docs", EG_CFG_INT, "3", "how many of the best chunks feedback averages", 0, 1, 100},
    {"current_first", EG_CFG_BOOL, "true",
     "for a fact the question is about, the excerpt naming its current value before one naming "
     "only an earlier value",
     0, 0, 0},
    {"state_prototypes", EG_CFG_STR, "./lang/state_prototypes.txt",
     "the state types and markers (the prototypes file ingestd reads too) by which the latest "
     "statement of a "
     "state the question "
     "asks about goes first (\"\": off; a missing file: off, with a warning)",
     0, 0, 0},
    {"record_access", EG_CFG_BOOL, "true",
     "record the chunks and facts each Recall returns as accesses (their retention); off for "
     "benchmarks that must not "
     "feed back",
     0, 0, 0},
    {"access_flush_ms", EG_CFG_INT, "250",
     "how often recorded accesses are sent to vectord and graphd", 0, 10, 60000},
    {"access_batch", EG_CFG_INT, "512", "accesses waiting that send a batch at once", 0, 1,
     1000000},
    {"access_queue_max", EG_CFG_INT, "65536",
     "accesses waiting beyond which a Recall's are dropped (counted)", 0, 1, 100000000},
};

typedef struct recalld {
  eg_peers *peers;
  eg_llm *llm;
  eg_recall *recall;
  eg_rpc_service service;
} recalld;

static eg_code recalld_open(eg_daemon *d, void **state, eg_err *err) {
  const eg_cfg *c = eg_daemon_cfg(d);
  recalld *s = calloc(1, sizeof *s);
  if (!s) return eg_err_set(err, EG_ENOMEM, "out of memory");
  double fw = eg_cfg_double(c, "feedback_weight");
  if (!(fw >= 0 && fw <= 10)) {
    free(s);
    return eg_err_set(err, EG_EINVAL, "option 'feedback_weight' must be in [0, 10]");
  }
  eg_code rc = eg_peers_open(c, eg_daemon_metrics(d), &s->peers, err);
  if (!rc && *eg_cfg_str(c, "llm_url"))
    rc = eg_llm_open(eg_cfg_str(c, "llm_url"), eg_cfg_str(c, "llm_model"),
                     getenv("ENGRAM_LLM_API_KEY"), eg_cfg_int(c, "llm_timeout_ms"),
                     eg_daemon_metrics(d), "engram_recalld", &s->llm, err);
  eg_recall_opts o = {
      .peers = s->peers,
      .max_k = (uint32_t)eg_cfg_int(c, "max_k"),
      .vectord_max_k = (uint32_t)eg_cfg_int(c, "vectord_max_k"),
      .max_query_bytes = (uint32_t)eg_cfg_int(c, "max_query_bytes"),
      .max_token_budget = (uint32_t)eg_cfg_int(c, "max_token_budget"),
      .min_relevance = (float)eg_cfg_double(c, "min_relevance"),
      .min_word_match = (float)eg_cfg_double(c, "min_word_match"),
      .decompose = eg_cfg_bool(c, "decompose"),
      .neighbour_weight = (float)eg_cfg_double(c, "neighbour_weight"),
      .speaker_weight = (float)eg_cfg_double(c, "speaker_weight"),
      .llm = s->llm,
      .rerank_url = eg_cfg_str(c, "rerank_url"),
      .rerank_key = getenv("ENGRAM_RERANK_API_KEY"),
      .rerank_timeout_ms = eg_cfg_int(c, "rerank_timeout_ms"),
      .feedback_weight = (float)fw,
      .feedback_docs = (uint32_t)eg_cfg_int(c, "feedback_docs"),
      .current_first = eg_cfg_bool(c, "current_first"),
      .state_prototypes = eg_cfg_str(c, "state_prototypes"),
      .record_access = eg_cfg_bool(c, "record_access"),
      .access_flush_ms = (uint32_t)eg_cfg_int(c, "access_flush_ms"),
      .access_batch = (uint32_t)eg_cfg_int(c, "access_batch"),
      .access_queue_max = (uint32_t)eg_cfg_int(c, "access_queue_max"),
  };
  if (!rc) rc = eg_recall_open(&o, eg_daemon_metrics(d), &s->recall, err);
  if (rc) {
    eg_llm_close(s->llm);
    eg_peers_close(s->peers);
    free(s);
    return rc;
  }
  s->service = eg_recalld_service(s->recall);
  *state = s;
  return EG_OK;
}

static size_t recalld_services(void *state, const eg_rpc_service **out) {
  *out = &((recalld *)state)->service;
  return 1;
}

static void recalld_close(void *state) {
  recalld *s = state;
  eg_recall_close(s->recall);
  eg_llm_close(s->llm);
  eg_peers_close(s->peers);
  free(s);
}

const eg_daemon_spec eg_recalld_daemon = {
    .name = "recalld",
    .summary = "Engram recall orchestrator (engram.v1.Recall)",
    .grpc_port = 7104,
    .metrics_port = 9104,
    .opts = recalld_opts,
    .n_opts = sizeof recalld_opts / sizeof *recalld_opts,
    .open = recalld_open,
    .services = recalld_services,
    .close = recalld_close,
};
