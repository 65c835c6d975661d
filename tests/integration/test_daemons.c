/*
 * test_daemons.c — all four real daemons on loopback: health from the C client and from
 * Python grpcio stubs generated from proto/, /metrics scraped and checked by promtool,
 * UNIMPLEMENTED, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED above the message limit, the CLI,
 * and a clean exit on SIGTERM.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/graph_client.h"
#include "common/health_client.h"
#include "common/recall_client.h"
#include "common/time.h"
#include "tests/harness.h"
#include "tests/testlib.h"

static eg_cluster cluster;
static bool started;
static const char *service_of[EG_N_DAEMONS] = {"engram.v1.Ingest", "engram.v1.Graph",
                                               "engram.v1.Vector", "engram.v1.Recall"};

static void test_start(void) {
  static const char *extra[] = {"--max-message-bytes", "1m", NULL};
  eg_err e;
  eg_code rc = eg_cluster_start(&cluster, extra, &e);
  if (rc) fprintf(stderr, "cluster start: %s\n", e.msg);
  EG_REQUIRE(rc == EG_OK);
  started = true;
}

static void test_health_c_client(void) {
  EG_REQUIRE(started);
  for (int i = 0; i < EG_N_DAEMONS; i++) {
    int st = 0;
    eg_err e;
    EG_CHECK_INT(eg_health_at(cluster.d[i].addr, "", &st, &e), EG_OK);
    EG_CHECK_INT(st, 1);
    EG_CHECK_INT(eg_health_at(cluster.d[i].addr, service_of[i], &st, &e), EG_OK);
    EG_CHECK_INT(st, 1);
    EG_CHECK_INT(eg_health_at(cluster.d[i].addr, "engram.v1.Nope", &st, &e), EG_ENOTFOUND);
  }
  int st = 0;
  eg_err e;
  EG_CHECK_INT(eg_health_at(cluster.d[EG_INGESTD].addr, "engram.v1.Admin", &st, &e), EG_OK);
}

static void *resume_after_300ms(void *pid) {
  usleep(300 * 1000);
  kill(*(pid_t *)pid, SIGCONT);
  return NULL;
}

/* A server that is slow to answer a new connection (stopped for 300 ms here; on a loaded
 * machine, not scheduled) still answers within the call's deadline. Our clients gave a
 * connection attempt only 100 ms to receive the server's HTTP/2 SETTINGS, so such a call
 * failed UNAVAILABLE at once: the health check of an unknown service answered UNAVAILABLE
 * instead of NOT_FOUND. */
static void test_health_slow_server(void) {
  EG_REQUIRE(started);
  pid_t pid = cluster.d[EG_GRAPHD].pid;
  EG_REQUIRE(kill(pid, SIGSTOP) == 0);
  pthread_t t;
  EG_REQUIRE(pthread_create(&t, NULL, resume_after_300ms, &pid) == 0);
  int st = 0;
  eg_err e;
  eg_code rc = eg_health_at(cluster.d[EG_GRAPHD].addr, "engram.v1.Nope", &st, &e);
  pthread_join(t, NULL);
  if (!EG_CHECK(rc == EG_ENOTFOUND)) fprintf(stderr, "  %s: %s\n", eg_code_name(rc), e.msg);
}

static void test_health_python_interop(void) {
  EG_REQUIRE(started);
  int rc = eg_test_system(
      "/usr/bin/python3 %s/tests/integration/interop.py --proto %s/proto "
      "--out %s/pystubs %s %s %s %s",
      EG_SOURCE_DIR, EG_SOURCE_DIR, cluster.dir, cluster.d[0].addr, cluster.d[1].addr,
      cluster.d[2].addr, cluster.d[3].addr);
  EG_CHECK_INT(rc, 0);
}

static void test_unimplemented(void) {
  EG_REQUIRE(started);
  eg_rpc_client *c = NULL;
  eg_err e;
  EG_REQUIRE(eg_rpc_client_open(cluster.d[EG_GRAPHD].addr, NULL, &c, &e) == EG_OK);
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  ProtobufCMessage *resp = NULL;
  /* a method of no contract (no typed client has it: the path is written out) */
  EG_CHECK_INT(eg_rpc_unary(c, "/engram.v1.Graph/NoSuchMethod", &req.base,
                            &engram__v1__state_response__descriptor, 0, &resp, &e),
               EG_EUNIMPL);
  Engram__V1__RecallRequest rreq = ENGRAM__V1__RECALL_REQUEST__INIT;
  EG_CHECK_INT(eg_recalld_recall(c, &rreq, NULL, &e),
               EG_EUNIMPL); /* graphd does not serve Recall */
  eg_rpc_client_close(c);
}

/* A deadline shorter than the work: a 10,000-edge commit cannot finish in 2 ms. */
static void test_deadline(void) {
  EG_REQUIRE(started);
  eg_rpc_client *c = NULL;
  eg_err e;
  EG_REQUIRE(eg_rpc_client_open(cluster.d[EG_GRAPHD].addr, NULL, &c, &e) == EG_OK);
  enum { N = 10000 };
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "deadline";
  Engram__V1__EntityRef subj = ENGRAM__V1__ENTITY_REF__INIT;
  subj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  subj.name = "Someone";
  Engram__V1__EdgeInput *edges = calloc(N, sizeof *edges);
  Engram__V1__EdgeInput **ptrs = calloc(N, sizeof *ptrs);
  char(*lits)[16] = calloc(N, 16);
  for (int i = 0; i < N; i++) {
    engram__v1__edge_input__init(&edges[i]);
    edges[i].subject = &subj;
    edges[i].relation = "LIKES";
    snprintf(lits[i], 16, "thing %d", i);
    edges[i].object_literal = lits[i];
    ptrs[i] = &edges[i];
  }
  Engram__V1__CommitRequest req = ENGRAM__V1__COMMIT_REQUEST__INIT;
  req.scope = &scope;
  req.edges = ptrs;
  req.n_edges = N;
  Engram__V1__CommitResponse *resp = NULL;
  eg_rpc_request commit = eg_graphd_commit_call(c, &req, &resp);
  int64_t t0 = eg_time_mono_us();
  EG_CHECK_INT(eg_rpc_run(&commit, 2000, &e), EG_ETIMEOUT);
  EG_CHECK(eg_time_mono_us() - t0 < 1000000); /* the client was not kept waiting */
  /* and a normal deadline still works on the same channel */
  Grpc__Health__V1__HealthCheckRequest hreq = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
  EG_CHECK_INT(eg_health_check(c, &hreq, NULL, &e), EG_OK);
  free(edges);
  free(ptrs);
  free(lits);
  eg_rpc_client_close(c);
}

static void test_message_limit(void) {
  EG_REQUIRE(started);
  eg_rpc_client *c = NULL;
  eg_err e;
  EG_REQUIRE(eg_rpc_client_open(cluster.d[EG_GRAPHD].addr, NULL, &c, &e) == EG_OK);
  Engram__V1__CommitRequest req = ENGRAM__V1__COMMIT_REQUEST__INIT;
  Engram__V1__EdgeInput edge = ENGRAM__V1__EDGE_INPUT__INIT;
  Engram__V1__EdgeInput *edges[1] = {&edge};
  size_t n = 2 * 1024 * 1024;
  char *big = malloc(n + 1);
  memset(big, 'x', n);
  big[n] = '\0';
  edge.relation = "LIKES";
  edge.object_literal = big;
  req.n_edges = 1;
  req.edges = edges;
  EG_CHECK_INT(eg_graphd_commit(c, &req, NULL, &e), EG_EFULL);
  /* just under the limit passes the transport and reaches the handler, which refuses the
   * request for its own reasons (no scope) */
  big[512 * 1024] = '\0';
  EG_CHECK_INT(eg_graphd_commit(c, &req, NULL, &e), EG_EINVAL);
  EG_CHECK_STR(e.msg, "scope is required");
  free(big);
  eg_rpc_client_close(c);
}

static void test_metrics_scrape(void) {
  EG_REQUIRE(started);
  for (int i = 0; i < EG_N_DAEMONS; i++) {
    eg_buf body = EG_BUF_INIT;
    EG_CHECK_INT(
        eg_promtool_scrape(cluster.d[i].metrics_port, cluster.dir, cluster.d[i].name, &body), 0);
    EG_REQUIRE(body.data != NULL);
    char want[160];
    snprintf(want, sizeof want, "engram_build_info{daemon=\"%s\"", cluster.d[i].name);
    EG_CHECK(strstr(body.data, want) != NULL);
    /* the standard gRPC names, the same in every daemon: the scrape's job tells them apart */
    EG_CHECK(
        strstr(
            body.data,
            "grpc_server_handled_total{grpc_type=\"unary\",grpc_service=\"grpc.health.v1.Health\","
            "grpc_method=\"Check\",grpc_code=\"OK\"}") != NULL);
    EG_CHECK(strstr(body.data, "# TYPE grpc_server_handling_seconds histogram\n") != NULL);
    EG_CHECK(strstr(body.data, "_rpc_requests_total") ==
             NULL); /* no second set under the old names */
    snprintf(want, sizeof want, "engram_%s_process_resident_memory_bytes ", cluster.d[i].name);
    EG_CHECK(strstr(body.data, want) != NULL);
    eg_buf_free(&body);
  }
}

static void test_cli_health(void) {
  EG_REQUIRE(started);
  char out[600];
  snprintf(out, sizeof out, "%s/cli.json", cluster.dir);
  int rc = eg_test_system(
      "%s/engram --json --ingestd-addr %s --graphd-addr %s --vectord-addr %s "
      "--recalld-addr %s health > %s",
      EG_BINARY_DIR, cluster.d[0].addr, cluster.d[1].addr, cluster.d[2].addr, cluster.d[3].addr,
      out);
  EG_CHECK_INT(rc, 0);
  char *text = eg_test_slurp(out);
  int serving = 0;
  for (char *p = text; (p = strstr(p, "\"SERVING\"")); p++) serving++;
  EG_CHECK_INT(serving, 4);
  free(text);
  /* a dead address makes the command fail */
  rc = eg_test_system("%s/engram --addr 127.0.0.1:1 --timeout-ms 500 health > /dev/null",
                      EG_BINARY_DIR);
  EG_CHECK_INT(rc, 1);
}

/* A daemon stops promptly while a client of ours stays connected and idle: the idle
 * channel reads the server's GOAWAY and lets go (gRPC polled idle channels only every 5 s,
 * so every shutdown waited that long, or the whole grace period). */
static void test_shutdown_with_idle_client(void) {
  EG_REQUIRE(started);
  eg_proc *g = &cluster.d[EG_GRAPHD];
  eg_err e;
  const char *grace[] = {"--shutdown-grace-ms=30000", NULL};
  EG_CHECK_INT(eg_harness_stop(g, SIGTERM), 0);
  EG_REQUIRE(eg_harness_restart(g, grace, &e) == EG_OK);
  eg_rpc_client *c = NULL;
  EG_REQUIRE(eg_rpc_client_open(g->addr, NULL, &c, &e) == EG_OK);
  Grpc__Health__V1__HealthCheckRequest req = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
  EG_CHECK_INT(eg_health_check(c, &req, NULL, &e), EG_OK);
  int64_t t0 = eg_time_mono_us();
  EG_CHECK_INT(eg_harness_stop(g, SIGTERM), 0);
  int64_t took = eg_time_mono_us() - t0;
  if (!EG_CHECK(took < 3 * EG_US_PER_SEC))
    fprintf(stderr, "  stop took %.1f s\n", (double)took / 1e6);
  eg_rpc_client_close(c);
  EG_REQUIRE(eg_harness_restart(g, NULL, &e) == EG_OK);
}

static void test_sigterm_clean_exit(void) {
  EG_REQUIRE(started);
  for (int i = 0; i < EG_N_DAEMONS; i++) {
    int st = eg_harness_stop(&cluster.d[i], SIGTERM);
    EG_CHECK_INT(st, 0);
  }
  FILE *f = fopen(cluster.d[EG_GRAPHD].log, "r");
  char line[1024];
  bool stopped = false;
  while (f && fgets(line, sizeof line, f))
    if (strstr(line, "msg=\"stopped\"")) stopped = true;
  if (f) fclose(f);
  EG_CHECK(stopped);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_health_c_client);
  EG_RUN(test_health_slow_server);
  EG_RUN(test_health_python_interop);
  EG_RUN(test_unimplemented);
  EG_RUN(test_deadline);
  EG_RUN(test_message_limit);
  EG_RUN(test_metrics_scrape);
  EG_RUN(test_cli_health);
  EG_RUN(test_shutdown_with_idle_client);
  EG_RUN(test_sigterm_clean_exit);
  int rc = eg_test_finish();
  eg_cluster_stop(&cluster, rc != 0);
  eg_rpc_global_shutdown();
  return rc;
}
