/*
 * engine.c — Engram under test (see engine.h).
 */
#include "bench/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bulk.h"
#include "common/recall_client.h"

eg_code eg_bengine_ingest_session(const eg_bengine *e, const eg_bgroup *g, const eg_bsession *bs,
                                  uint64_t *tokens, uint64_t *retries, eg_err *err) {
  if (!bs->n) return EG_OK;
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)e->tenant;
  scope.user = g->user;
  Engram__V1__Message *m = calloc(bs->n, sizeof *m), **mp = calloc(bs->n, sizeof *mp);
  if (!m || !mp) {
    free(m), free(mp);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < bs->n; i++) {
    engram__v1__message__init(&m[i]);
    m[i].role = bs->m[i].role;
    m[i].name = bs->m[i].name;
    m[i].content = bs->m[i].content;
    mp[i] = &m[i];
  }
  Engram__V1__IngestSessionRequest req = ENGRAM__V1__INGEST_SESSION_REQUEST__INIT;
  req.scope = &scope;
  req.session_id = bs->id;
  req.session_time = bs->time;
  req.messages = mp;
  req.n_messages = bs->n;
  req.mode = ENGRAM__V1__INGEST_MODE__INGEST_MODE_SYNC;
  req.enricher = (Engram__V1__Enricher)e->enricher;
  Engram__V1__IngestResponse *resp = NULL;
  eg_code rc = eg_ingest_send(e->ingestd, &req.base, &resp, retries, err);
  free(m), free(mp);
  if (rc) return rc;
  if (resp->report && tokens) *tokens += resp->report->tokens;
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  return EG_OK;
}

eg_code eg_bengine_ingest(const eg_bengine *e, const eg_bgroup *g, uint64_t *refused,
                          uint64_t *tokens, eg_err *err) {
  for (size_t s = 0; s < g->ns; s++) {
    eg_code rc = eg_bengine_ingest_session(e, g, &g->s[s], tokens, NULL, err);
    if (rc == EG_EINVAL) {
      fprintf(stderr, "\r\033[K%s/%s: refused: %s\n", g->user, g->s[s].id, err->msg);
      (*refused)++;
      continue;
    }
    if (rc) return rc;
  }
  return EG_OK;
}

eg_code eg_bengine_recall(const eg_bengine *e, const eg_bgroup *g, const eg_bquestion *q,
                          eg_brank *out, char **context, eg_err *err) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)e->tenant;
  scope.user = g->user;
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.scope = &scope;
  req.query = q->query;
  req.query_time = q->at;
  req.k = e->k;
  req.expansion = (Engram__V1__ExpansionMode)e->expansion;
  Engram__V1__RecallWeights w = ENGRAM__V1__RECALL_WEIGHTS__INIT;
  const float *x = e->weights;
  if (x[0] || x[1] || x[2] || x[3] || x[4] || x[5] || x[6]) {
    w.content = x[0], w.latent = x[1], w.bm25 = x[2], w.temporal = x[3], w.recency = x[4],
    w.graph = x[5];
    w.sentence = x[6];
    req.weights = &w;
  }
  Engram__V1__RecallResponse *m = NULL;
  eg_code rc = eg_recalld_recall(e->recalld, &req, &m, err);
  if (rc) return rc;
  const Engram__V1__RecallResponse *r = m;
  for (size_t i = 0; i < r->n_items; i++)
    if (r->items[i]->session_id && *r->items[i]->session_id)
      eg_brank_add(out, g, r->items[i]->session_id, r->items[i]->turn_index);
  if (context) *context = strdup(r->context ? r->context : "");
  protobuf_c_message_free_unpacked(&m->base, NULL);
  return EG_OK;
}
