/*
 * ingest_helpers.c — see ingest_helpers.h.
 */
#include "tests/ingest_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/time.h"
#include "tests/graph_helpers.h"

eg_code ic_session(eg_rpc_client *c, const char *tenant, const char *user, const char *sid,
                   int64_t session_time, const char *const *msgs, size_t n, bool async,
                   Engram__V1__IngestResponse **resp, eg_err *e) {
  return ic_session_with(c, tenant, user, sid, session_time, msgs, n,
                         ENGRAM__V1__ENRICHER__ENRICHER_UNSPECIFIED, async, resp, e);
}

float ic_salience;

eg_code ic_session_with(eg_rpc_client *c, const char *tenant, const char *user, const char *sid,
                        int64_t session_time, const char *const *msgs, size_t n,
                        Engram__V1__Enricher enricher, bool async,
                        Engram__V1__IngestResponse **resp, eg_err *e) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  scope.user = (char *)user;
  Engram__V1__Message *m = calloc(n ? n : 1, sizeof *m), **mp = calloc(n ? n : 1, sizeof *mp);
  char(*roles)[32] = calloc(n ? n : 1, sizeof *roles);
  for (size_t i = 0; m && mp && roles && i < n; i++) {
    engram__v1__message__init(&m[i]);
    const char *role = msgs[2 * i], *colon = strchr(role, ':');
    m[i].role = (char *)role;
    if (colon) { /* "user:Maya": a named speaker */
      snprintf(roles[i], sizeof roles[i], "%.*s", (int)(colon - role), role);
      m[i].role = roles[i];
      m[i].name = (char *)colon + 1;
    }
    m[i].content = (char *)msgs[2 * i + 1];
    mp[i] = &m[i];
  }
  Engram__V1__IngestSessionRequest req = ENGRAM__V1__INGEST_SESSION_REQUEST__INIT;
  req.scope = &scope;
  req.session_id = (char *)sid;
  req.session_time = session_time;
  req.messages = mp;
  req.n_messages = n;
  req.mode = async ? ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC
                   : ENGRAM__V1__INGEST_MODE__INGEST_MODE_SYNC;
  req.enricher = enricher;
  req.salience = ic_salience;
  eg_code rc = eg_ingestd_ingest_session(c, &req, resp, e);
  free(m);
  free(mp);
  free(roles);
  return rc;
}

eg_code ic_search(eg_rpc_client *vectord, const char *tenant, const char *user, const char *text,
                  uint32_t k, Engram__V1__SearchResponse **resp, eg_err *e) {
  return ic_search_weighted(vectord, tenant, user, text, k, NULL, resp, e);
}

eg_code ic_search_weighted(eg_rpc_client *vectord, const char *tenant, const char *user,
                           const char *text, uint32_t k, Engram__V1__SearchWeights *w,
                           Engram__V1__SearchResponse **resp, eg_err *e) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  scope.user = (char *)user;
  Engram__V1__SearchQuery q = ENGRAM__V1__SEARCH_QUERY__INIT, *qs[1] = {&q};
  q.text = (char *)text;
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qs;
  req.n_queries = 1;
  req.k = k;
  req.include_content = true;
  req.weights = w;
  return eg_vectord_search(vectord, &req, resp, e);
}

Engram__V1__Job *ic_get_job(eg_rpc_client *c, const char *tenant, const char *user, const char *id,
                            eg_code *rc) {
  Engram__V1__Scope scope = gc_scope(tenant, user);
  Engram__V1__GetJobRequest req = ENGRAM__V1__GET_JOB_REQUEST__INIT;
  req.scope = &scope;
  req.job_id = (char *)id;
  Engram__V1__Job *j = NULL;
  eg_err e;
  eg_code code = eg_ingestd_get_job(c, &req, &j, &e);
  if (rc) *rc = code;
  return code == EG_OK ? j : NULL;
}

Engram__V1__Job *ic_job_ended(eg_rpc_client *c, const char *tenant, const char *user,
                              const char *id, int64_t timeout_us) {
  int64_t until = eg_time_mono_us() + timeout_us;
  for (;;) {
    Engram__V1__Job *j = ic_get_job(c, tenant, user, id, NULL);
    if (!j) return NULL;
    if (j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_DONE ||
        j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED || eg_time_mono_us() >= until)
      return j;
    protobuf_c_message_free_unpacked(&j->base, NULL);
    usleep(20000);
  }
}

eg_rpc_client *ic_second_ingestd(const eg_cluster *cl, const char *sub, const char *const *flags,
                                 eg_proc *p) {
  char ga[80], va[80], dir[600];
  snprintf(ga, sizeof ga, "%s", cl->d[EG_GRAPHD].addr);
  snprintf(va, sizeof va, "%s", cl->d[EG_VECTORD].addr);
  const char *extra[16] = {"--graphd-addr", ga, "--vectord-addr", va};
  size_t n = 4;
  for (size_t i = 0; flags[i] && n < 15; i++) extra[n++] = flags[i];
  extra[n] = NULL;
  snprintf(dir, sizeof dir, "%s/%s", cl->dir, sub);
  eg_err e;
  eg_rpc_client *c = NULL;
  if (mkdir(dir, 0755) != 0 || eg_harness_start("ingestd", dir, extra, p, &e) != EG_OK) return NULL;
  if (eg_rpc_client_open(p->addr, NULL, &c, &e) != EG_OK) c = NULL;
  return c;
}
