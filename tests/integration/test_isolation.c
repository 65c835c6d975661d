/*
 * test_isolation.c — authentication and tenant isolation through the four real daemons
 * started with bearer tokens.
 *
 * Tenants alpha and beta each have a user token and an admin token; the daemons share a
 * service token. Beta's memory holds a unique word and a fact. Then, adversarially, as
 * alpha: every RPC of every service aimed at beta's scope is PERMISSION_DENIED; with
 * alpha's own scope and beta's chunk ids, entity ids, edge ids, job id and watermark,
 * nothing of beta's comes back and nothing of beta's changes. Missing, malformed and
 * unknown tokens are UNAUTHENTICATED; erasing needs an admin token (header forms and the
 * token table itself: tests/unit/test_auth.c). A Python grpcio client sends its token as
 * call metadata. Tokens reload on
 * SIGHUP (a broken file keeps the old ones); a daemon without tokens, or with a token
 * stored in clear, refuses to start.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/buf.h"
#include "common/pbjson.h"
#include "common/rpc.h"
#include "common/scope.h"
#include "common/time.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

#define SECRET "zanzibarquux"

enum { ALPHA, ALPHA_ADMIN, BETA, BETA_ADMIN, SERVICE, NONE, WRONG, N_TOKENS };
static const char *const tokens[N_TOKENS] = {"alpha-user-token",  "alpha-admin-token",
                                             "beta-user-token",   "beta-admin-token",
                                             "the-service-token", NULL,
                                             "not-a-token"};

static eg_cluster cl;
static eg_rpc_client *clients[EG_N_DAEMONS][N_TOKENS];

static eg_rpc_client *cli(int daemon, int token) {
  if (!clients[daemon][token]) {
    eg_rpc_client_opts o = {.token = tokens[token], .max_attempts = 1};
    eg_err e;
    if (!EG_CHECK(eg_rpc_client_open(cl.d[daemon].addr, &o, &clients[daemon][token], &e) == EG_OK))
      abort();
  }
  return clients[daemon][token];
}

/* Does the JSON form of m mention any of beta's words? */
static bool leaks(const ProtobufCMessage *m) {
  if (!m) return false;
  eg_buf b = EG_BUF_INIT;
  if (!EG_CHECK(eg_pbjson_write(m, 0, &b) == EG_OK && eg_buf_append(&b, "", 1) == EG_OK)) abort();
  bool bad = strstr(b.data, SECRET) || strstr(b.data, "Reykjavik") || strstr(b.data, "beta");
  if (bad) fprintf(stderr, "leak: %s\n", b.data);
  eg_buf_free(&b);
  return bad;
}

/* rpc (from a typed client, its client NULL) sent to daemon with token; its response is
 * where rpc.out points (NULL on failure), freed by the caller. */
static eg_code call(int daemon, int token, eg_rpc_request rpc) {
  eg_err e;
  rpc.client = cli(daemon, token);
  return eg_rpc_run(&rpc, 0, &e);
}

/* beta's facts, found with beta's own token */
static uint64_t beta_chunk, beta_user_entity, beta_city_entity, beta_edge;
static char beta_job[64], beta_watermark[64];

static void test_start(void) {
  char lines[1024];
  size_t n = 0;
  static const char *const owner[] = {"alpha", "alpha", "beta", "beta"};
  for (int i = ALPHA; i <= BETA_ADMIN; i++) {
    char d[72];
    eg_auth_digest_line(tokens[i], d);
    n += (size_t)snprintf(lines + n, sizeof lines - n, "%s %s %s;", owner[i], d,
                          i % 2 ? "admin" : "user");
  }
  char flag_tokens[1100], flag_service[128];
  snprintf(flag_tokens, sizeof flag_tokens, "--auth-tokens=%s", lines);
  snprintf(flag_service, sizeof flag_service, "--service-token=%s", tokens[SERVICE]);
  const char *extra[] = {flag_tokens, flag_service, NULL};
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, extra, &e) == EG_OK);

  const char *const msgs[] = {"user", "I live in Reykjavik and my secret codename is " SECRET ".",
                              "assistant", "Noted, I will keep the codename " SECRET " to myself."};
  EG_REQUIRE(ic_session(cli(EG_INGESTD, BETA), "beta", "u1", "b1", T("2024-03-01T10:00:00Z"), msgs,
                        2, false, NULL, &e) == EG_OK);
  const char *const mine[] = {"user", "I live in Lisbon and I collect stamps.", "assistant",
                              "Lovely city."};
  EG_REQUIRE(ic_session(cli(EG_INGESTD, ALPHA), "alpha", "u1", "a1", T("2024-03-01T10:00:00Z"),
                        mine, 2, false, NULL, &e) == EG_OK);
  Engram__V1__IngestResponse *ir = NULL;
  const char *const later[] = {"user", "The " SECRET " project starts in May.", "assistant",
                               "Good luck."};
  EG_REQUIRE(ic_session(cli(EG_INGESTD, BETA), "beta", "u1", "b2", T("2024-03-02T10:00:00Z"), later,
                        2, true, &ir, &e) == EG_OK);
  snprintf(beta_job, sizeof beta_job, "%s", ir->job_id);
  snprintf(beta_watermark, sizeof beta_watermark, "%s", ir->watermark);
  protobuf_c_message_free_unpacked(&ir->base, NULL);

  Engram__V1__SearchResponse *sr = NULL;
  EG_REQUIRE(ic_search(cli(EG_VECTORD, BETA), "beta", "u1", SECRET, 5, &sr, &e) == EG_OK);
  EG_REQUIRE(sr->n_results == 1 && sr->results[0]->n_hits >= 1);
  beta_chunk = sr->results[0]->hits[0]->chunk->id;
  protobuf_c_message_free_unpacked(&sr->base, NULL);
  Engram__V1__StateResponse *st = NULL;
  EG_REQUIRE(gc_state(cli(EG_GRAPHD, BETA), "beta", "user:u1", "LIVES_IN", 0, 0, &st, &e) == EG_OK);
  EG_REQUIRE(st->n_results == 1 && st->results[0]->n_values == 1);
  const Engram__V1__Edge *edge = st->results[0]->values[0];
  beta_edge = edge->id;
  beta_user_entity = edge->subject;
  beta_city_entity = edge->object ? edge->object->entity_id : 0;
  EG_CHECK_STR(edge->object_name, "Reykjavik");
  protobuf_c_message_free_unpacked(&st->base, NULL);
  EG_CHECK(beta_chunk && beta_user_entity && beta_city_entity && beta_edge);
}

/* Each method of each service: an empty request for beta's scope. */
typedef struct svc_at {
  const ProtobufCServiceDescriptor *desc;
  int daemon;
} svc_at;
static const svc_at services[] = {
    {&engram__v1__graph__descriptor, EG_GRAPHD},   {&engram__v1__vector__descriptor, EG_VECTORD},
    {&engram__v1__ingest__descriptor, EG_INGESTD}, {&engram__v1__admin__descriptor, EG_INGESTD},
    {&engram__v1__recall__descriptor, EG_RECALLD},
};

static eg_code sweep_one(const svc_at *s, unsigned m, int token, const char *tenant) {
  const ProtobufCMethodDescriptor *md = &s->desc->methods[m];
  ProtobufCMessage *req = calloc(1, md->input->sizeof_message);
  protobuf_c_message_init(md->input, req);
  Engram__V1__Scope sc = gc_scope(tenant, "u1");
  eg_scope_default(req, &sc);
  char path[128]; /* every method of the contract, named by its descriptor */
  snprintf(path, sizeof path, "/%s/%s", s->desc->name, md->name);
  ProtobufCMessage *resp = NULL;
  eg_code rc =
      call(s->daemon, token,
           (eg_rpc_request){.method = path, .req = req, .resp_desc = md->output, .out = &resp});
  EG_CHECK(!leaks(resp));
  if (resp) protobuf_c_message_free_unpacked(resp, NULL);
  free(req);
  return rc;
}

static void test_every_rpc_refused(void) {
  int methods = 0;
  for (size_t i = 0; i < sizeof services / sizeof *services; i++) {
    const svc_at *s = &services[i];
    for (unsigned m = 0; m < s->desc->n_methods; m++, methods++) {
      char name[128];
      snprintf(name, sizeof name, "%s/%s", s->desc->name, s->desc->methods[m].name);
      bool admin =
          eg_auth_admin_method(name); /* the erasures, the retention policy's changes, Admin */
      /* alpha's tokens, user and admin, against beta's scope */
      EG_CHECK_INT(sweep_one(s, m, ALPHA, "beta"), EG_EPERM);
      EG_CHECK_INT(sweep_one(s, m, ALPHA_ADMIN, "beta"), EG_EPERM);
      /* no token, an unknown token */
      EG_CHECK_INT(sweep_one(s, m, NONE, "beta"), EG_EUNAUTH);
      EG_CHECK_INT(sweep_one(s, m, WRONG, "beta"), EG_EUNAUTH);
      EG_CHECK_INT(sweep_one(s, m, NONE, "alpha"), EG_EUNAUTH);
      /* beta's user token may not erase even its own tenant, nor change its retention */
      if (admin) EG_CHECK_INT(sweep_one(s, m, BETA, "beta"), EG_EPERM);
    }
  }
  EG_CHECK_INT(methods, 18 + 10 + 5 + 4 + 1);
  /* health needs no token (probes) */
  int status = 0;
  eg_err e;
  EG_CHECK(eg_health_at(cl.d[EG_GRAPHD].addr, "", &status, &e) == EG_OK && status == 1);
}

/* As alpha: the call answers (OK, or NOT_FOUND) with nothing of beta's. */
static void as_alpha_nothing(int daemon, eg_rpc_request rpc) {
  ProtobufCMessage *r = NULL;
  rpc.out = &r; /* whatever its type: only its JSON form is read */
  eg_code rc = call(daemon, ALPHA, rpc);
  if (!EG_CHECK(rc == EG_OK || rc == EG_ENOTFOUND))
    fprintf(stderr, "  %s: %s\n", rpc.method, eg_code_name(rc));
  EG_CHECK(!leaks(r));
  if (r) protobuf_c_message_free_unpacked(r, NULL);
}

/* Alpha, in its own scope, names beta's ids: nothing of beta's comes back. */
static void test_guessed_ids(void) {
  Engram__V1__Scope a = gc_scope("alpha", "u1");
  eg_code rc;

  uint64_t chunk_ids[] = {beta_chunk, beta_chunk + 1, beta_chunk - 1};
  Engram__V1__GetChunksRequest gc = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  gc.scope = &a;
  gc.ids = chunk_ids;
  gc.n_ids = 3;
  gc.neighbours = 2;
  as_alpha_nothing(EG_VECTORD, eg_vectord_get_chunks_call(NULL, &gc, NULL));

  Engram__V1__ChunkEntitiesRequest ce = ENGRAM__V1__CHUNK_ENTITIES_REQUEST__INIT;
  ce.scope = &a;
  ce.chunk_ids = chunk_ids;
  ce.n_chunk_ids = 3;
  as_alpha_nothing(EG_GRAPHD, eg_graphd_chunk_entities_call(NULL, &ce, NULL));

  uint64_t ent_ids[] = {beta_user_entity, beta_city_entity};
  Engram__V1__GetEntitiesRequest ge = ENGRAM__V1__GET_ENTITIES_REQUEST__INIT;
  ge.scope = &a;
  ge.ids = ent_ids;
  ge.n_ids = 2;
  as_alpha_nothing(EG_GRAPHD, eg_graphd_get_entities_call(NULL, &ge, NULL));

  Engram__V1__EntityRef ref = ENGRAM__V1__ENTITY_REF__INIT;
  ref.ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
  ref.id = beta_user_entity;
  Engram__V1__HistoryRequest hr = ENGRAM__V1__HISTORY_REQUEST__INIT;
  hr.scope = &a;
  hr.subject = &ref;
  hr.relation = "LIVES_IN";
  as_alpha_nothing(EG_GRAPHD, eg_graphd_history_call(NULL, &hr, NULL));

  Engram__V1__StateQuery sq = ENGRAM__V1__STATE_QUERY__INIT, *sqs[] = {&sq};
  sq.subject = &ref;
  sq.relation = "LIVES_IN";
  Engram__V1__StateRequest st = ENGRAM__V1__STATE_REQUEST__INIT;
  st.scope = &a;
  st.queries = sqs;
  st.n_queries = 1;
  as_alpha_nothing(EG_GRAPHD, eg_graphd_state_call(NULL, &st, NULL));

  Engram__V1__EntityRef *seeds[] = {&ref};
  Engram__V1__TraverseRequest tr = ENGRAM__V1__TRAVERSE_REQUEST__INIT;
  tr.scope = &a;
  tr.seeds = seeds;
  tr.n_seeds = 1;
  tr.max_depth = 3;
  as_alpha_nothing(EG_GRAPHD, eg_graphd_traverse_call(NULL, &tr, NULL));

  uint64_t claims[] = {beta_edge};
  Engram__V1__WalkRequest wr = ENGRAM__V1__WALK_REQUEST__INIT;
  wr.scope = &a;
  wr.claims = claims;
  wr.n_claims = 1;
  as_alpha_nothing(EG_GRAPHD, eg_graphd_walk_call(NULL, &wr, NULL));

  Engram__V1__ChangesRequest ch = ENGRAM__V1__CHANGES_REQUEST__INIT;
  ch.scope = &a;
  as_alpha_nothing(EG_GRAPHD, eg_graphd_changes_call(NULL, &ch, NULL));

  /* words: vectord search and recall */
  Engram__V1__SearchResponse *sr = NULL;
  eg_err e;
  EG_CHECK(ic_search(cli(EG_VECTORD, ALPHA), "alpha", NULL, SECRET " Reykjavik codename", 10, &sr,
                     &e) == EG_OK);
  EG_CHECK(!leaks(&sr->base));
  protobuf_c_message_free_unpacked(&sr->base, NULL);
  Engram__V1__RecallRequest rq = ENGRAM__V1__RECALL_REQUEST__INIT;
  rq.scope = &a;
  rq.query = "What is my secret codename " SECRET "? Do I live in Reykjavik?";
  Engram__V1__RecallResponse *rr = NULL; /* its context and variants echo the question */
  rc = call(EG_RECALLD, ALPHA, eg_recalld_recall_call(NULL, &rq, &rr));
  EG_CHECK_INT(rc, EG_OK);
  for (size_t i = 0; rr && i < rr->n_items; i++) EG_CHECK(!leaks(&rr->items[i]->base));
  if (rr) protobuf_c_message_free_unpacked(&rr->base, NULL);

  /* beta's async job and watermark */
  Engram__V1__GetJobRequest gj = ENGRAM__V1__GET_JOB_REQUEST__INIT;
  gj.scope = &a;
  gj.job_id = beta_job;
  EG_CHECK_INT(call(EG_INGESTD, ALPHA, eg_ingestd_get_job_call(NULL, &gj, NULL)), EG_ENOTFOUND);
  Engram__V1__Scope b = gc_scope("beta", "u1");
  gj.scope = &b;
  Engram__V1__Job *job = NULL;
  EG_CHECK_INT(call(EG_INGESTD, BETA, eg_ingestd_get_job_call(NULL, &gj, &job)), EG_OK);
  if (job) protobuf_c_message_free_unpacked(&job->base, NULL);
  Engram__V1__WaitRequest wt = ENGRAM__V1__WAIT_REQUEST__INIT;
  wt.scope = &a;
  wt.watermark = beta_watermark;
  wt.timeout_us = 300000;
  Engram__V1__WaitResponse *waited = NULL;
  EG_CHECK_INT(call(EG_INGESTD, ALPHA, eg_ingestd_wait_call(NULL, &wt, &waited)), EG_OK);
  EG_CHECK(waited && !waited->reached);
  if (waited) protobuf_c_message_free_unpacked(&waited->base, NULL);
}

/* Alpha's writes naming beta's ids change nothing of beta's. */
static void test_guessed_ids_writes(void) {
  Engram__V1__Scope a = gc_scope("alpha", "u1");
  uint64_t ids[] = {beta_chunk};
  Engram__V1__DeleteRequest del = ENGRAM__V1__DELETE_REQUEST__INIT;
  del.scope = &a;
  del.ids = ids;
  del.n_ids = 1;
  Engram__V1__DeleteResponse *deleted = NULL;
  eg_code rc = call(EG_VECTORD, ALPHA, eg_vectord_delete_call(NULL, &del, &deleted));
  EG_CHECK(rc == EG_OK || rc == EG_ENOTFOUND);
  if (deleted) protobuf_c_message_free_unpacked(&deleted->base, NULL);
  Engram__V1__PublishRequest pub =
      ENGRAM__V1__PUBLISH_REQUEST__INIT; /* beta's id, alpha's tenant: a no-op */
  pub.scope = &a;
  pub.ids = ids;
  pub.n_ids = 1;
  Engram__V1__PublishResponse *published = NULL;
  rc = call(EG_VECTORD, ALPHA, eg_vectord_publish_call(NULL, &pub, &published));
  EG_CHECK(rc == EG_OK || rc == EG_ENOTFOUND);
  EG_CHECK(!published || published->published == 0);
  if (published) protobuf_c_message_free_unpacked(&published->base, NULL);

  Engram__V1__MergeEntitiesRequest mg = ENGRAM__V1__MERGE_ENTITIES_REQUEST__INIT;
  mg.scope = &a;
  mg.into = beta_city_entity;
  mg.from = beta_user_entity;
  mg.reason = "hostile";
  Engram__V1__MergeEntitiesResponse *merged = NULL;
  rc = call(EG_GRAPHD, ALPHA, eg_graphd_merge_entities_call(NULL, &mg, &merged));
  if (merged) protobuf_c_message_free_unpacked(&merged->base, NULL);

  /* alpha's admin erases alpha's user u1: beta's u1 is untouched */
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &a;
  Engram__V1__EraseResponse *erased = NULL;
  EG_CHECK_INT(call(EG_INGESTD, ALPHA_ADMIN, eg_ingestd_erase_call(NULL, &er, &erased)), EG_OK);
  if (erased) protobuf_c_message_free_unpacked(&erased->base, NULL);

  Engram__V1__SearchResponse *sr = NULL;
  eg_err e;
  EG_REQUIRE(ic_search(cli(EG_VECTORD, BETA), "beta", "u1", SECRET, 5, &sr, &e) == EG_OK);
  bool still = false;
  for (size_t i = 0; i < sr->results[0]->n_hits; i++)
    still |= sr->results[0]->hits[i]->chunk->id == beta_chunk;
  EG_CHECK(still);
  protobuf_c_message_free_unpacked(&sr->base, NULL);
  EG_CHECK_STR(gc_value(cli(EG_GRAPHD, BETA), "beta", "user:u1", "LIVES_IN", 0, 0), "Reykjavik");
  /* the service token reaches any tenant (what ingestd and recalld send) */
  EG_CHECK_STR(gc_value(cli(EG_GRAPHD, SERVICE), "beta", "user:u1", "LIVES_IN", 0, 0), "Reykjavik");
  /* and beta's own recall still finds it, through recalld → graphd/vectord */
  Engram__V1__Scope b = gc_scope("beta", "u1");
  Engram__V1__RecallRequest rq = ENGRAM__V1__RECALL_REQUEST__INIT;
  rq.scope = &b;
  rq.query = "What is my secret codename?";
  Engram__V1__RecallResponse *rr = NULL;
  EG_CHECK_INT(call(EG_RECALLD, BETA, eg_recalld_recall_call(NULL, &rq, &rr)), EG_OK);
  EG_CHECK(rr && strstr(rr->context, SECRET));
  if (rr) protobuf_c_message_free_unpacked(&rr->base, NULL);
}

/* A Python grpcio client built from proto/ sends the token as call metadata. */
static void test_python_client(void) {
  int rc = eg_test_system(
      "/usr/bin/python3 %s/tests/integration/interop.py --proto %s/proto --out %s/pystubs "
      "--token %s --tenant alpha %s %s %s %s",
      EG_SOURCE_DIR, EG_SOURCE_DIR, cl.dir, tokens[ALPHA], cl.d[0].addr, cl.d[1].addr, cl.d[2].addr,
      cl.d[3].addr);
  EG_CHECK_INT(rc, 0);
}

static char *write_file(const char *dir, const char *name, const char *text) {
  char *path = malloc(600);
  snprintf(path, 600, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!EG_CHECK(f != NULL)) abort();
  fputs(text, f);
  fclose(f);
  return path;
}

static eg_code state_as(eg_rpc_client *c, const char *tenant) {
  Engram__V1__StateResponse *st = NULL;
  eg_err e;
  eg_code rc = gc_state(c, tenant, "user:u1", "LIVES_IN", 0, 0, &st, &e);
  if (st) protobuf_c_message_free_unpacked(&st->base, NULL);
  return rc;
}

static eg_code state_with(const char *addr, const char *token, const char *tenant) {
  eg_rpc_client_opts o = {.token = token, .max_attempts = 1};
  eg_rpc_client *c = NULL;
  eg_err e;
  if (!EG_CHECK(eg_rpc_client_open(addr, &o, &c, &e) == EG_OK)) abort();
  eg_code rc = state_as(c, tenant);
  eg_rpc_client_close(c);
  return rc;
}

static void test_reload_and_refusals(void) {
  char *dir = eg_test_tempdir("engram-auth");
  char dx[72], dy[72], line[400];
  eg_auth_digest_line("token-x", dx);
  eg_auth_digest_line("token-y", dy);
  snprintf(line, sizeof line, "# tenants\nt1 %s\n", dx);
  char *file = write_file(dir, "tokens", line);
  char flag[700];
  snprintf(flag, sizeof flag, "--auth-tokens-file=%s", file);
  const char *extra[] = {flag, NULL};
  eg_proc p;
  eg_err e;
  EG_REQUIRE(eg_harness_start("graphd", dir, extra, &p, &e) == EG_OK);
  EG_CHECK_INT(state_with(p.addr, "token-x", "t1"), EG_OK);
  EG_CHECK_INT(state_with(p.addr, "token-y", "t1"), EG_EUNAUTH);
  EG_CHECK_INT(state_with(p.addr, "token-x", "t2"), EG_EPERM);

  snprintf(line, sizeof line, "t1 %s admin\n", dy);
  free(write_file(dir, "tokens", line));
  kill(p.pid, SIGHUP);
  eg_code rc = EG_OK;
  for (int i = 0; i < 100 && rc == EG_OK; i++) {
    usleep(20000);
    rc = state_with(p.addr, "token-x", "t1");
  }
  EG_CHECK_INT(rc, EG_EUNAUTH);
  EG_CHECK_INT(state_with(p.addr, "token-y", "t1"), EG_OK);

  /* `engram token hash` writes a line for a tenant with a space and a '#' (escaped), and
   * the reloaded table grants exactly that tenant (and keeps the other line) */
  EG_CHECK_INT(eg_test_system("echo token-w | %s/engram token hash --tenant 'acme corp #2' >> %s",
                              EG_BINARY_DIR, file),
               0);
  char *written = eg_test_slurp(file);
  EG_CHECK(written && strstr(written, "\nacme%20corp%20%232 sha256:"));
  free(written);
  kill(p.pid, SIGHUP);
  rc = EG_EUNAUTH;
  for (int i = 0; i < 100 && rc == EG_EUNAUTH; i++) {
    usleep(20000);
    rc = state_with(p.addr, "token-w", "acme corp #2");
  }
  EG_CHECK_INT(rc, EG_OK);
  EG_CHECK_INT(state_with(p.addr, "token-w", "acme corp"), EG_EPERM);
  EG_CHECK_INT(state_with(p.addr, "token-y", "t1"), EG_OK);

  /* a broken file (a token in clear) keeps the table in force */
  free(write_file(dir, "tokens", "t1 token-z\n"));
  kill(p.pid, SIGHUP);
  usleep(300000);
  EG_CHECK_INT(state_with(p.addr, "token-y", "t1"), EG_OK);
  EG_CHECK_INT(state_with(p.addr, "token-z", "t1"), EG_EUNAUTH);
  EG_CHECK_INT(eg_harness_stop(&p, SIGTERM), 0);
  char *log = eg_test_slurp(p.log);
  EG_CHECK(log && strstr(log, "reload failed"));
  free(log);

  /* refusals at start: the clear-text file, no tokens at all, both auth and no auth */
  char sub[700];
  EG_CHECK_INT(eg_test_system("mkdir -p %s/r1 %s/r2 %s/r3", dir, dir, dir), 0);
  snprintf(sub, sizeof sub, "%s/r1", dir);
  EG_CHECK(eg_harness_start("graphd", sub, extra, &p, &e) != EG_OK);
  const char *none[] = {"--auth-tokens=", NULL};
  snprintf(sub, sizeof sub, "%s/r2", dir);
  EG_CHECK(eg_harness_start("graphd", sub, none, &p, &e) != EG_OK);
  log = eg_test_slurp(p.log);
  EG_CHECK(log && strstr(log, "no tokens configured"));
  free(log);
  const char *both[] = {flag, "--insecure-no-auth", NULL};
  snprintf(sub, sizeof sub, "%s/r3", dir);
  EG_CHECK(eg_harness_start("graphd", sub, both, &p, &e) != EG_OK);
  free(file);
  eg_test_rmtree(dir);
  free(dir);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_every_rpc_refused);
  EG_RUN(test_guessed_ids);
  EG_RUN(test_guessed_ids_writes);
  EG_RUN(test_python_client);
  EG_RUN(test_reload_and_refusals);
  for (int d = 0; d < EG_N_DAEMONS; d++)
    for (int t = 0; t < N_TOKENS; t++) eg_rpc_client_close(clients[d][t]);
  eg_cluster_stop(&cl, eg_test_failed());
  eg_rpc_global_shutdown();
  return eg_test_finish();
}
