/*
 * ingest.c — ingestd's entry points: validate a request, then run it at once or queue it
 * durably (jobs.c); watermarks, the erasure cascade, lifecycle; the helpers the other
 * parts share (ingest_int.h). Segmentation is in segment.c, the write path in write.c,
 * the idempotency receipt in receipt.c, client facts in facts.c.
 */
#include "services/ingestd/ingest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "common/graph_client.h"
#include "common/log.h"
#include "common/map.h"
#include "common/scope.h"
#include "common/stage.h"
#include "common/text.h"
#include "common/time.h"
#include "common/vector_client.h"
#include "services/ingestd/ingest_int.h"

/* ---- helpers (ingest_int.h) ------------------------------------------------------------ */

uint64_t eg_ig_chunk_id(const Engram__V1__Scope *s, const char *kind, const char *id,
                        size_t index) {
  char buf[1200];
  int n = snprintf(buf, sizeof buf, "%s\x1f%s\x1f%s\x1f%s\x1f%zu", s->tenant,
                   s->user ? s->user : "", kind, id, index);
  return eg_hash64(buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1),
                   0x494e47455354ULL) &
         ((UINT64_C(1) << 62) - 1);
}

void eg_ig_format_watermark(uint64_t last_chunk_id, char *buf, size_t len) {
  snprintf(buf, len, "v1:%016llx", (unsigned long long)last_chunk_id);
}

void eg_ig_format_watermark2(uint64_t last_chunk_id, const char *graph, char *buf, size_t len) {
  snprintf(buf, len, "v1:%016llx;%s", (unsigned long long)last_chunk_id, graph);
}

void eg_ig_stage(eg_ingest *g, Engram__V1__IngestReport *r, eg_arena *a, const char *name,
                 int64_t t0) {
  eg_stage_done(a, &r->stages, &r->n_stages, name, t0, g->m_stage);
}

eg_code eg_ig_check_text(const char *s, size_t max, const char *what, eg_err *err) {
  size_t n = s ? strlen(s) : 0;
  if (n > max) return eg_err_set(err, EG_EINVAL, "%s longer than %zu bytes", what, max);
  if (n && !eg_utf8_valid(s, n)) return eg_err_set(err, EG_EINVAL, "%s is not valid UTF-8", what);
  return EG_OK;
}

bool eg_ig_time_ok(int64_t t) {
  /* 1900-01-01 .. 2200-01-01 */
  return t == 0 || (t >= INT64_C(-2208988800000000) && t <= INT64_C(7258118400000000));
}

eg_rpc_client *eg_ig_vectord(const eg_ingest *g, const Engram__V1__Scope *scope) {
  return eg_peers_vectord(g->o.peers, scope->tenant);
}
eg_rpc_client *eg_ig_graphd(const eg_ingest *g, const Engram__V1__Scope *scope) {
  return eg_peers_graphd(g->o.peers, scope->tenant);
}

/* ---- async jobs (jobs.c keeps them) ------------------------------------------------- */

/* Run one durable job: the same path as a sync request, from the packed request. */
static eg_code run_job(void *ctx, eg_job *job, eg_job_kind kind, const uint8_t *req, size_t len,
                       eg_arena *a, Engram__V1__IngestReport *rep, eg_err *err) {
  eg_ingest *g = ctx;
  char wm[WATERMARK_LEN] = "";
  eg_code rc;
  if (kind == EG_JOB_SESSION) {
    Engram__V1__IngestSessionRequest *r =
        engram__v1__ingest_session_request__unpack(NULL, len, req);
    rc = r ? eg_ig_do_session(g, r, job, a, rep, wm, sizeof wm, err)
           : eg_err_set(err, EG_EINTERNAL, "bad job");
    if (r) engram__v1__ingest_session_request__free_unpacked(r, NULL);
    eg_job_set_watermark(job, rc ? NULL : wm);
  } else if (kind == EG_JOB_DOCUMENT) {
    Engram__V1__IngestDocumentRequest *r =
        engram__v1__ingest_document_request__unpack(NULL, len, req);
    rc = r ? eg_ig_do_document(g, r, job, a, rep, wm, sizeof wm, err)
           : eg_err_set(err, EG_EINTERNAL, "bad job");
    if (r) engram__v1__ingest_document_request__free_unpacked(r, NULL);
    eg_job_set_watermark(job, rc ? NULL : wm);
  } else {
    Engram__V1__AssertFactsRequest *r = engram__v1__assert_facts_request__unpack(NULL, len, req);
    uint64_t *ids;
    size_t nid;
    rc = r ? eg_ig_do_facts(g, r, a, rep, &ids, &nid, err)
           : eg_err_set(err, EG_EINTERNAL, "bad job");
    if (r) engram__v1__assert_facts_request__free_unpacked(r, NULL);
  }
  return rc;
}

/* Queue a request durably; fills resp with the job id (and the watermark when known). */
static eg_code enqueue(eg_ingest *g, eg_job_kind kind, const ProtobufCMessage *req,
                       const char *watermark, eg_arena *a, Engram__V1__IngestResponse *resp,
                       eg_err *err) {
  char id[48];
  eg_code rc = eg_jobs_submit(g->jobs, kind, eg_scope_tenant_of(req), req, watermark, id, err);
  if (rc) return rc;
  resp->job_id = eg_arena_strdup(a, id);
  resp->watermark = eg_arena_strdup(a, watermark);
  return EG_OK;
}

/* ---- RPC entry points --------------------------------------------------------------------- */

static Engram__V1__IngestReport *new_report(eg_arena *a) {
  Engram__V1__IngestReport *r = eg_arena_calloc(a, 1, sizeof *r);
  if (r) engram__v1__ingest_report__init(r);
  return r;
}

eg_code eg_ingest_session(eg_ingest *g, const Engram__V1__IngestSessionRequest *req, eg_arena *a,
                          Engram__V1__IngestResponse *resp, eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  eg_code rc = eg_ig_validate_session(g, req, err);
  if (rc) return rc;
  Engram__V1__IngestReport *rep = new_report(a);
  if (!rep) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_ig_stage(g, rep, a, "validate", t0);
  if (req->mode == ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC) {
    /* The watermark is known now: the receipt chunk's id. */
    unit *u;
    size_t n = eg_ig_session_units(req, 0, a, &u);
    if (!u) return eg_err_set(err, EG_ENOMEM, "out of memory");
    char wm[WATERMARK_LEN];
    eg_ig_format_watermark(eg_ig_chunk_id(req->scope, "session", req->session_id, n - 1), wm,
                           sizeof wm);
    return enqueue(g, EG_JOB_SESSION, &req->base, wm, a, resp, err);
  }
  char wm[WATERMARK_LEN];
  if ((rc = eg_ig_do_session(g, req, NULL, a, rep, wm, sizeof wm, err))) return rc;
  resp->report = rep;
  resp->watermark = eg_arena_strdup(a, wm);
  return EG_OK;
}

eg_code eg_ingest_document(eg_ingest *g, const Engram__V1__IngestDocumentRequest *req, eg_arena *a,
                           Engram__V1__IngestResponse *resp, eg_err *err) {
  eg_code rc = eg_ig_validate_document(g, req, err);
  if (rc) return rc;
  Engram__V1__IngestReport *rep = new_report(a);
  if (!rep) return eg_err_set(err, EG_ENOMEM, "out of memory");
  if (req->mode == ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC) {
    unit *u;
    size_t n = eg_ig_document_units(req, g->o.doc_chunk_words, a, &u);
    char wm[WATERMARK_LEN];
    eg_ig_format_watermark(eg_ig_chunk_id(req->scope, "document", req->document_id, n ? n - 1 : 0),
                           wm, sizeof wm);
    return enqueue(g, EG_JOB_DOCUMENT, &req->base, wm, a, resp, err);
  }
  char wm[WATERMARK_LEN];
  if ((rc = eg_ig_do_document(g, req, NULL, a, rep, wm, sizeof wm, err))) return rc;
  resp->report = rep;
  resp->watermark = eg_arena_strdup(a, wm);
  return EG_OK;
}

eg_code eg_ingest_facts(eg_ingest *g, const Engram__V1__AssertFactsRequest *req, eg_arena *a,
                        Engram__V1__IngestResponse *resp, eg_err *err) {
  eg_code rc = eg_ig_validate_facts(g, req, err);
  if (rc) return rc;
  if (req->mode == ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC)
    return enqueue(g, EG_JOB_FACTS, &req->base, "", a, resp, err);
  Engram__V1__IngestReport *rep = new_report(a);
  if (!rep) return eg_err_set(err, EG_ENOMEM, "out of memory");
  uint64_t *ids = NULL;
  size_t n = 0;
  if ((rc = eg_ig_do_facts(g, req, a, rep, &ids, &n, err))) return rc;
  resp->report = rep;
  resp->edge_ids = ids;
  resp->n_edge_ids = n;
  resp->watermark = ""; /* graph commits are visible when acknowledged */
  return EG_OK;
}

eg_code eg_ingest_get_job(eg_ingest *g, const Engram__V1__GetJobRequest *req, eg_arena *a,
                          Engram__V1__Job *resp, eg_err *err) {
  if (!req->job_id || !*req->job_id) return eg_err_set(err, EG_EINVAL, "job_id is required");
  return eg_jobs_get(g->jobs, req->scope->tenant, req->job_id, a, resp, err);
}

eg_code eg_ingest_wait(eg_ingest *g, const Engram__V1__WaitRequest *req, eg_arena *a,
                       Engram__V1__WaitResponse *resp, eg_err *err) {
  (void)a;
  if (req->timeout_us < 0 || req->timeout_us > 60 * EG_US_PER_SEC)
    return eg_err_set(err, EG_EINVAL, "timeout_us must be within 0..60 s");
  bool reached = false;
  eg_code rc = eg_watermark_wait(g->o.peers, req->scope->tenant, req->watermark, req->timeout_us,
                                 &reached, err);
  resp->reached = reached;
  return rc;
}

eg_peers *eg_ingest_peers(const eg_ingest *g) { return g->o.peers; }

/* The audit line of an erasure: who was erased as a digest (never the user id itself),
 * the outcome and the counts per store; no content. */
static void audit_erase(const Engram__V1__EraseRequest *req, const Engram__V1__EraseResponse *resp,
                        eg_code rc) {
  const char *user = req->scope->user ? req->scope->user : "";
  char subject[600], digest[72], counts[512] = "";
  snprintf(subject, sizeof subject, "%s\x1f%s", req->scope->tenant, user);
  eg_auth_digest_line(subject, digest);
  size_t n = 0;
  for (size_t i = 0; i < resp->n_counts && n < sizeof counts; i++)
    n += (size_t)snprintf(counts + n, sizeof counts - n, "%s%s.%s=%llu", i ? " " : "",
                          resp->counts[i]->store, resp->counts[i]->kind,
                          (unsigned long long)resp->counts[i]->count);
  EG_INFO("audit", "erase", "kind=%s tenant=\"%s\" subject=%.23s outcome=%s erased_at=%lld %s",
          *user ? "user" : "tenant", req->scope->tenant, digest, eg_code_name(rc),
          (long long)resp->erased_at, counts);
}

eg_code eg_ingest_erase(eg_ingest *g, const Engram__V1__EraseRequest *req, eg_arena *a,
                        Engram__V1__EraseResponse *resp, eg_err *err) {
  enum { GRAPHD, VECTORD }; /* the stores, each answering for its own data */
  Engram__V1__EraseResponse *erased[2] = {NULL, NULL};
  eg_rpc_request rs[2] = {
      [GRAPHD] = eg_graphd_erase_call(eg_ig_graphd(g, req->scope), req, &erased[GRAPHD]),
      [VECTORD] = eg_vectord_erase_call(eg_ig_vectord(g, req->scope), req, &erased[VECTORD])};
  eg_code rc = eg_rpc_fanout(rs, 2, 0);
  size_t total = 0;
  for (int i = 0; i < 2; i++)
    if (erased[i]) total += erased[i]->n_counts;
  resp->counts = eg_arena_calloc(a, total ? total : 1, sizeof *resp->counts);
  for (int i = 0; i < 2; i++) {
    const Engram__V1__EraseResponse *r = erased[i];
    for (size_t k = 0; r && resp->counts && k < r->n_counts; k++) {
      Engram__V1__EraseCount *c = eg_arena_calloc(a, 1, sizeof *c);
      if (!c) break;
      engram__v1__erase_count__init(c);
      c->store = eg_arena_strdup(a, r->counts[k]->store);
      c->kind = eg_arena_strdup(a, r->counts[k]->kind);
      c->count = r->counts[k]->count;
      resp->counts[resp->n_counts++] = c;
    }
    if (r && r->erased_at > resp->erased_at) resp->erased_at = r->erased_at;
    if (erased[i]) protobuf_c_message_free_unpacked(&erased[i]->base, NULL);
  }
  if (rc) {
    *err = rs[GRAPHD].err.code ? rs[GRAPHD].err : rs[VECTORD].err;
    eg_err_prefix(err, rs[GRAPHD].err.code ? "graphd: " : "vectord: ");
  }
  audit_erase(req, resp, rc);
  return rc;
}

/* ---- lifecycle --------------------------------------------------------------------------- */

/* The prototype extractor is an improvement, not a dependency: without its model, its
 * file or WordNet the daemon runs on the rules alone and says so once. */
static eg_code open_states(eg_ingest *g, eg_err *err) {
  const eg_ingest_opts *o = &g->o;
  if (!o->state_embedder || !*o->state_embedder || !o->state_prototypes || !*o->state_prototypes)
    return EG_OK;
  eg_err e;
  eg_code rc = eg_embedder_open(o->state_embedder, &g->state_embedder, &e);
  if (!rc) {
    eg_statefacts_opts so = {o->state_prototypes, g->state_embedder, NULL, (float)o->state_floor,
                             (float)o->state_margin};
    rc = eg_statefacts_open(&so, &g->states, &e);
  }
  if (rc == EG_ENOMEM) return eg_err_set(err, rc, "%s", e.msg);
  if (rc) {
    EG_WARN("ingest", "prototype extractor off: facts come from the rules only", "reason=\"%s\"",
            e.msg);
    eg_embedder_close(g->state_embedder);
    g->state_embedder = NULL;
  }
  return EG_OK;
}

/* What eg_ingest_open opened before the queue (each accepts NULL), and g. */
static void release(eg_ingest *g) {
  eg_statefacts_close(g->states);
  eg_embedder_close(g->state_embedder);
  eg_llm_close(g->llm);
  free(g);
}

eg_code eg_ingest_open(const eg_ingest_opts *opts, eg_metrics *mx, eg_ingest **out, eg_err *err) {
  eg_ingest *g = calloc(1, sizeof *g);
  if (!g) return eg_err_set(err, EG_ENOMEM, "out of memory");
  g->o = *opts;
  eg_code rc = EG_OK;
  if (opts->llm_url && *opts->llm_url)
    rc = eg_llm_open(opts->llm_url, opts->llm_model, getenv("ENGRAM_LLM_API_KEY"),
                     opts->llm_timeout_ms, mx, "engram_ingestd", &g->llm, err);
  if (!rc) rc = open_states(g, err);
  if (rc) {
    release(g);
    return rc;
  }
  if (mx) {
    g->m_tokens = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_tokens_total", "Words of text ingested.", NULL));
    g->m_chunks = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_chunks_total", "Chunks written.", NULL));
    g->m_facts = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_facts_total", "Facts committed.", NULL));
    g->m_entities = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_entities_total", "Entities resolved.", NULL));
    g->m_duplicates = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_duplicates_total",
                           "Ingests skipped as identical to one already written.", NULL));
    g->m_llm_fallbacks = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_llm_fallbacks_total",
                           "LLM enrichments that failed and fell back to the rules.", NULL));
    g->m_outcomes = eg_metric_solo(eg_metrics_counter(
        mx, "engram_ingestd_outcomes_total",
        "Outcomes read from chat and recorded on the edge they refer to.", NULL));
    g->m_state_clauses = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_state_clauses_total",
                           "First-person user clauses the prototype extractor read.", NULL));
    g->m_state_embedded = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_state_clauses_embedded_total",
                           "Of those, clauses embedded (a typed slot or a change).", NULL));
    g->m_state_doubts =
        eg_metric_solo(eg_metrics_counter(mx, "engram_ingestd_state_doubts_total",
                                          "Doubts on a state committed (STATE_UNCERTAIN).", NULL));
    g->m_stage = eg_metrics_histogram(mx, "engram_ingestd_stage_seconds", "Time per ingest stage.",
                                      "stage", NULL, 0);
  }
  /* Last: opening the queue resumes the jobs of an earlier run, which need the rest. */
  eg_jobs_opts jo = {opts->jobs_dir, opts->async_workers, opts->queue_max, run_job, g};
  if ((rc = eg_jobs_open(&jo, mx, &g->jobs, err))) {
    release(g);
    return rc;
  }
  *out = g;
  return EG_OK;
}

void eg_ingest_close(eg_ingest *g) {
  if (!g) return;
  eg_jobs_close(g->jobs); /* running jobs finish; waiting ones resume at the next start */
  release(g);
}
