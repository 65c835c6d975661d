/*
 * ingestd — the write path (engram.v1.Ingest, engram.v1.Admin): segmentation,
 * sliding-window enrichment, fan-out to graphd and vectord.
 *
 * daemon.c wires configuration, peers, the pipeline and the service table into the shared
 * daemon lifecycle (common/daemon.c).
 */
#include "common/daemon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/peers.h"
#include "lang/embed.h"
#include "services/daemons.h"
#include "services/ingestd/ingest.h"
#include "services/ingestd/rpc.h"

static const eg_cfg_opt ingestd_opts[] = {
    EG_PEER_OPTS,
    {"window_prev", EG_CFG_INT, "3", "segments before each segment in its enrichment window", 0, 0,
     64},
    {"window_next", EG_CFG_INT, "1", "segments after each segment in its enrichment window", 0, 0,
     64},
    {"max_messages", EG_CFG_INT, "10000", "messages in one session", 0, 1, 1000000},
    {"max_text_bytes", EG_CFG_INT, "65536", "bytes of one message text", 0, 16, 1 << 24},
    {"max_document_bytes", EG_CFG_INT, "4m", "bytes of one document", 0, 16, 1 << 30},
    {"max_facts", EG_CFG_INT, "10000", "facts in one AssertFacts", 0, 1, 1000000},
    {"doc_chunk_words", EG_CFG_INT, "120", "target words per document chunk", 0, 10, 10000},
    {"async_workers", EG_CFG_INT, "2", "threads running async ingests", 0, 1, 256},
    {"ingest_queue_max", EG_CFG_INT, "256",
     "async ingests waiting (persisted, not yet running) before RESOURCE_EXHAUSTED", 0, 1, 1000000},
    {"llm_url", EG_CFG_STR, "",
     "OpenAI-compatible base URL for ENRICHER_LLM (key: ENGRAM_LLM_API_KEY)", 0, 0, 0},
    {"llm_model", EG_CFG_STR, "gpt-4o-mini", "model name for the LLM enricher", 0, 0, 0},
    {"llm_timeout_ms", EG_CFG_INT, "30000", "deadline of one LLM call", 0, 100, 600000},
    {"models_dir", EG_CFG_STR, "./var/models", "where scripts/install-deps.sh put the models", 0, 0,
     0},
    {"state_extractor", EG_CFG_STR, "none",
     "model of the prototype extractor beside the rules: none (off), use-lite or glove", 0, 0, 0},
    {"state_prototypes", EG_CFG_STR, "./lang/state_prototypes.txt",
     "the prototype extractor's relations, prototypes and slot types", 0, 0, 0},
    {"state_floor", EG_CFG_DOUBLE, "0",
     "cosine a relation's prototypes must reach (0: the built-in default)", 0, 0, 0},
    {"state_margin", EG_CFG_DOUBLE, "-1",
     "over the next relation or NONE (< 0: the built-in default)", 0, 0, 0},
};

typedef struct ingestd {
  eg_peers *peers;
  eg_ingest *ingest;
  eg_rpc_service services[2];
  char jobs_dir[1100];   /* <data_dir>/jobs: the durable async queue */
  char state_spec[1100]; /* the extractor's embedder spec, "" = off */
} ingestd;

static eg_code ingestd_open(eg_daemon *d, void **state, eg_err *err) {
  const eg_cfg *c = eg_daemon_cfg(d);
  ingestd *s = calloc(1, sizeof *s);
  if (!s) return eg_err_set(err, EG_ENOMEM, "out of memory");
  snprintf(s->jobs_dir, sizeof s->jobs_dir, "%s/jobs", eg_cfg_str(c, "data_dir"));
  const char *model = eg_cfg_str(c, "state_extractor"); /* "none": off ("" spec) */
  /* USE-lite on its float path: the facts read from a conversation are the same on every CPU
   * (bfloat16's rounding moves cosines near the extractor's floor and margin) */
  if (!strcmp(model, "use-lite") || !strcmp(model, "glove"))
    eg_embedder_spec(strcmp(model, "use-lite") ? model : "use-lite32", eg_cfg_str(c, "models_dir"),
                     s->state_spec, sizeof s->state_spec);
  eg_code rc = eg_peers_open(c, eg_daemon_metrics(d), &s->peers, err);
  eg_ingest_opts o = {
      .peers = s->peers,
      .window_prev = (unsigned)eg_cfg_int(c, "window_prev"),
      .window_next = (unsigned)eg_cfg_int(c, "window_next"),
      .max_messages = (uint32_t)eg_cfg_int(c, "max_messages"),
      .max_message_bytes = (uint32_t)eg_cfg_int(c, "max_text_bytes"),
      .max_document_bytes = (uint32_t)eg_cfg_int(c, "max_document_bytes"),
      .max_facts = (uint32_t)eg_cfg_int(c, "max_facts"),
      .doc_chunk_words = (uint32_t)eg_cfg_int(c, "doc_chunk_words"),
      .async_workers = (int)eg_cfg_int(c, "async_workers"),
      .queue_max = (int)eg_cfg_int(c, "ingest_queue_max"),
      .jobs_dir = s->jobs_dir,
      .llm_url = eg_cfg_str(c, "llm_url"),
      .llm_model = eg_cfg_str(c, "llm_model"),
      .llm_timeout_ms = eg_cfg_int(c, "llm_timeout_ms"),
      .state_embedder = s->state_spec,
      .state_prototypes = eg_cfg_str(c, "state_prototypes"),
      .state_floor = eg_cfg_double(c, "state_floor"),
      .state_margin = eg_cfg_double(c, "state_margin"),
  };
  if (!rc) rc = eg_ingest_open(&o, eg_daemon_metrics(d), &s->ingest, err);
  if (rc) {
    eg_peers_close(s->peers);
    free(s);
    return rc;
  }
  eg_ingestd_services(s->ingest, s->services);
  *state = s;
  return EG_OK;
}

static size_t ingestd_services(void *state, const eg_rpc_service **out) {
  *out = ((ingestd *)state)->services;
  return 2;
}

static void ingestd_close(void *state) {
  ingestd *s = state;
  eg_ingest_close(s->ingest);
  eg_peers_close(s->peers);
  free(s);
}

const eg_daemon_spec eg_ingestd_daemon = {
    .name = "ingestd",
    .summary = "Engram ingestion: enrichment and fan-out (engram.v1.Ingest, engram.v1.Admin)",
    .grpc_port = 7101,
    .metrics_port = 9101,
    .opts = ingestd_opts,
    .n_opts = sizeof ingestd_opts / sizeof *ingestd_opts,
    .open = ingestd_open,
    .services = ingestd_services,
    .close = ingestd_close,
};
