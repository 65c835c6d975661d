/*
 * test_rpc.c — the RPC framework over real gRPC on loopback.
 *
 * A test server serves engram.v1.Recall with a handler whose behaviour the query picks:
 * "echo:<text>" echoes (and the authorization header), "sleep:<ms>" sleeps, "fail"
 * returns INVALID_ARGUMENT. engram.v1.Vector is served with no handlers. Both ends count
 * their calls under the standard gRPC metric names, checked here call by call.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/health_client.h"
#include "common/recall_client.h"
#include "common/rpc.h"
#include "common/time.h"
#include "common/vector_client.h"
#include "tests/testlib.h"

static eg_code recall_handler(void *svc, eg_rpc_call *call, const ProtobufCMessage *reqm,
                              ProtobufCMessage **resp, eg_err *err) {
  (void)svc;
  const Engram__V1__RecallRequest *req = (const void *)reqm;
  Engram__V1__RecallResponse *r =
      EG_RPC_NEW(call, Engram__V1__RecallResponse, engram__v1__recall_response__init);
  const char *q = req->query ? req->query : "";
  if (strncmp(q, "sleep:", 6) == 0) {
    usleep((useconds_t)atoi(q + 6) * 1000);
    r->context = "slept";
  } else if (strcmp(q, "fail") == 0) {
    return eg_err_set(err, EG_EINVAL, "query 'fail' is refused");
  } else {
    const char *auth = eg_rpc_metadata(call, "authorization");
    r->context = eg_arena_sprintf(eg_rpc_arena(call), "%s|%s", q, auth ? auth : "-");
  }
  *resp = &r->base;
  return EG_OK;
}

static const eg_rpc_handler_entry recall_handlers[] = {{"Recall", recall_handler}};
static const eg_rpc_service services[] = {
    {&engram__v1__recall__descriptor, recall_handlers, 1, NULL},
    {&engram__v1__vector__descriptor, NULL, 0, NULL},
};

static eg_rpc_server *start_server(const char *addr, int workers, int queue_max, int max_msg,
                                   eg_metrics *m) {
  eg_rpc_server_opts o = {.addr = addr,
                          .daemon = "test",
                          .cq_threads = 2,
                          .workers = workers,
                          .queue_max = queue_max,
                          .max_message_bytes = max_msg,
                          .metrics = m};
  eg_rpc_server *s = NULL;
  eg_err e;
  if (eg_rpc_server_start(&o, services, 2, &s, &e) != EG_OK) {
    fprintf(stderr, "server start: %s\n", e.msg);
    return NULL;
  }
  return s;
}

/* A client whose calls are counted in rm (NULL = not counted). */
static eg_rpc_client *connect_counted(int port, const char *token, int attempts,
                                      eg_rpc_metrics *rm) {
  char addr[64];
  snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
  eg_rpc_client_opts o = {.timeout_us = 5 * EG_US_PER_SEC,
                          .token = token,
                          .max_attempts = attempts,
                          .backoff_us = 50000,
                          .metrics = rm};
  eg_rpc_client *c = NULL;
  eg_err e;
  eg_rpc_client_open(addr, &o, &c, &e);
  return c;
}

static eg_rpc_client *connect_to(int port, const char *token, int attempts) {
  return connect_counted(port, token, attempts, NULL);
}

/* The value of one series of m ("name{labels}" exactly as rendered); -1 when absent. */
static double sample(eg_metrics *m, const char *series) {
  eg_buf b = EG_BUF_INIT;
  eg_metrics_render(m, &b);
  double v = -1;
  size_t n = strlen(series);
  for (const char *p = b.data; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (strncmp(p, series, n) == 0 && p[n] == ' ') {
      v = atof(p + n + 1);
      break;
    }
  }
  eg_buf_free(&b);
  return v;
}

/* The series of the standard families for one unary method of a service. */
#define RPC_LABELS(svc, method) \
  "{grpc_type=\"unary\",grpc_service=\"" svc "\",grpc_method=\"" method "\""
#define RECALL RPC_LABELS("engram.v1.Recall", "Recall")

/* Wait until the server has counted n handled calls of a series: a call is counted when
 * its final batch completes on the server, which may be just after the client has its
 * answer. */
static void wait_count(eg_metrics *m, const char *series, double n) {
  for (int i = 0; i < 200 && sample(m, series) < n; i++) usleep(10000);
}

/* Call Recall with query q; returns the code, *ctx gets a malloc'd copy of context. */
static eg_code recall(eg_rpc_client *c, const char *q, int64_t timeout_us, char **ctx, eg_err *e) {
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.query = (char *)q;
  Engram__V1__RecallResponse *resp = NULL;
  eg_rpc_request call = eg_recalld_recall_call(c, &req, &resp);
  eg_code rc = eg_rpc_run(&call, timeout_us, e);
  if (ctx) *ctx = NULL;
  if (rc == EG_OK) {
    if (ctx) *ctx = strdup(resp->context);
    protobuf_c_message_free_unpacked(&resp->base, NULL);
  }
  return rc;
}

static int health(eg_rpc_client *c, const char *service, eg_code *rc_out) {
  eg_err e;
  int st = -1;
  *rc_out = eg_health_status(c, service, &st, &e);
  return st;
}

static void test_round_trip_and_errors(void) {
  eg_metrics *m = eg_metrics_new(), *cm = eg_metrics_new();
  eg_rpc_server *s = start_server("127.0.0.1:0", 2, 16, 64 * 1024, m);
  EG_REQUIRE(s != NULL);
  eg_rpc_metrics *rm = eg_rpc_client_metrics_new(cm);
  EG_REQUIRE(rm != NULL);
  eg_rpc_client *c = connect_counted(eg_rpc_server_port(s), "tok-1", 1, rm);
  char *ctx = NULL;
  eg_err e;
  EG_CHECK_INT(recall(c, "echo:hi", 0, &ctx, &e), EG_OK);
  EG_CHECK_STR(ctx, "echo:hi|Bearer tok-1");
  free(ctx);
  /* handler error → status and message reach the client */
  EG_CHECK_INT(recall(c, "fail", 0, NULL, &e), EG_EINVAL);
  EG_CHECK_STR(e.msg, "query 'fail' is refused");
  /* a method of the contract without a handler */
  Engram__V1__SearchRequest sreq = ENGRAM__V1__SEARCH_REQUEST__INIT;
  EG_CHECK_INT(eg_vectord_search(c, &sreq, NULL, &e), EG_EUNIMPL);
  EG_CHECK(strstr(e.msg, "not implemented yet") != NULL);
  /* a method nobody knows (no typed client has one: the path is written out) */
  ProtobufCMessage *resp = NULL;
  EG_CHECK_INT(eg_rpc_unary(c, "/engram.v1.Nope/Nothing", &sreq.base,
                            &engram__v1__search_response__descriptor, 0, &resp, &e),
               EG_EUNIMPL);
  /* a request above the message limit */
  char *big = malloc(100 * 1024);
  memset(big, 'a', 100 * 1024 - 1);
  big[100 * 1024 - 1] = '\0';
  EG_CHECK_INT(recall(c, big, 0, NULL, &e), EG_EFULL);
  free(big);
  /* still fine afterwards */
  EG_CHECK_INT(recall(c, "echo:again", 0, &ctx, &e), EG_OK);
  free(ctx);
  /* The server saw it all, under the standard names, codes spelt as grpc-go does. The
   * request over the message limit is refused by gRPC before it is a call of ours. */
  wait_count(m, "grpc_server_handling_seconds_count" RECALL "}", 3);
  EG_CHECK(sample(m, "grpc_server_started_total" RECALL "}") == 3);
  EG_CHECK(sample(m, "grpc_server_handled_total" RECALL ",grpc_code=\"OK\"}") == 2);
  EG_CHECK(sample(m, "grpc_server_handled_total" RECALL ",grpc_code=\"InvalidArgument\"}") == 1);
  EG_CHECK(sample(m, "grpc_server_msg_received_total" RECALL "}") == 3);
  EG_CHECK(sample(m, "grpc_server_msg_sent_total" RECALL "}") == 2); /* no response to "fail" */
  EG_CHECK(sample(m, "grpc_server_handling_seconds_count" RECALL "}") == 3);
  EG_CHECK(sample(m, "grpc_server_handling_seconds_bucket" RECALL ",le=\"0.005\"}") >= 0);
  EG_CHECK(sample(m, "grpc_server_handling_seconds_bucket" RECALL ",le=\"10\"}") == 3);
  EG_CHECK(sample(m, "grpc_server_handling_seconds_bucket" RECALL ",le=\"+Inf\"}") == 3);
  EG_CHECK(sample(m, "grpc_server_handled_total" RPC_LABELS(
                         "engram.v1.Vector", "Search") ",grpc_code=\"Unimplemented\"}") == 1);
  /* a method no service has: one series for all of them, whatever path a client sends */
  EG_CHECK(sample(m, "grpc_server_handled_total" RPC_LABELS(
                         "unknown", "unknown") ",grpc_code=\"Unimplemented\"}") == 1);
  EG_CHECK(sample(m, "grpc_server_started_total" RPC_LABELS("engram.v1.Vector", "Upsert") "}") ==
           0);
  /* The client counted its side, the refused big request included. */
  EG_CHECK(sample(cm, "grpc_client_started_total" RECALL "}") == 4);
  EG_CHECK(sample(cm, "grpc_client_msg_sent_total" RECALL "}") == 4);
  EG_CHECK(sample(cm, "grpc_client_msg_received_total" RECALL "}") == 2);
  EG_CHECK(sample(cm, "grpc_client_handled_total" RECALL ",grpc_code=\"OK\"}") == 2);
  EG_CHECK(sample(cm, "grpc_client_handled_total" RECALL ",grpc_code=\"InvalidArgument\"}") == 1);
  EG_CHECK(sample(cm, "grpc_client_handled_total" RECALL ",grpc_code=\"ResourceExhausted\"}") == 1);
  EG_CHECK(sample(cm, "grpc_client_handled_total" RPC_LABELS(
                          "engram.v1.Nope", "Nothing") ",grpc_code=\"Unimplemented\"}") == 1);
  EG_CHECK(sample(cm, "grpc_client_handling_seconds_count" RECALL "}") == 4);
  EG_CHECK(sample(cm, "grpc_server_started_total" RECALL "}") == -1); /* each side its own */
  /* one set of client families per registry */
  EG_CHECK(eg_rpc_client_metrics_new(cm) == NULL);
  eg_rpc_client_close(c);
  eg_rpc_metrics_free(rm);
  eg_rpc_server_free(s);
  eg_metrics_free(m);
  eg_metrics_free(cm);
}

/* A client on another's channel sends its own token (or none), and the channel outlives it. */
static void test_client_with_token(void) {
  eg_rpc_server *s = start_server("127.0.0.1:0", 2, 16, 64 * 1024, NULL);
  EG_REQUIRE(s != NULL);
  eg_rpc_client *base = connect_to(eg_rpc_server_port(s), "base-token", 1);
  eg_rpc_client *alice = NULL, *nobody = NULL;
  eg_err e;
  EG_REQUIRE(eg_rpc_client_with_token(base, "alice-token", &alice, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_with_token(base, NULL, &nobody, &e) == EG_OK);
  EG_CHECK_STR(eg_rpc_client_target(alice), eg_rpc_client_target(base));
  char *ctx = NULL;
  EG_CHECK_INT(recall(alice, "who", 0, &ctx, &e), EG_OK);
  EG_CHECK_STR(ctx, "who|Bearer alice-token");
  free(ctx);
  EG_CHECK_INT(recall(nobody, "who", 0, &ctx, &e), EG_OK);
  EG_CHECK_STR(ctx, "who|-");
  free(ctx);
  eg_rpc_client_close(alice);
  eg_rpc_client_close(nobody);
  EG_CHECK_INT(recall(base, "who", 0, &ctx, &e), EG_OK);
  EG_CHECK_STR(ctx, "who|Bearer base-token");
  free(ctx);
  eg_rpc_client_close(base);
  eg_rpc_server_free(s);
}

static void test_deadline(void) {
  eg_rpc_server *s = start_server("127.0.0.1:0", 2, 16, 0, NULL);
  EG_REQUIRE(s != NULL);
  eg_rpc_client *c = connect_to(eg_rpc_server_port(s), NULL, 1);
  eg_err e;
  int64_t t0 = eg_time_mono_us();
  EG_CHECK_INT(recall(c, "sleep:800", 100000, NULL, &e), EG_ETIMEOUT);
  int64_t took = eg_time_mono_us() - t0;
  EG_CHECK(took >= 90000 && took < 600000);
  eg_rpc_client_close(c);
  eg_rpc_server_free(s);
}

static void test_health(void) {
  eg_rpc_server *s = start_server("127.0.0.1:0", 1, 4, 0, NULL);
  EG_REQUIRE(s != NULL);
  eg_rpc_client *c = connect_to(eg_rpc_server_port(s), NULL, 1);
  eg_code rc;
  EG_CHECK_INT(health(c, "", &rc), 1);
  EG_CHECK_INT(health(c, "engram.v1.Recall", &rc), 1);
  EG_CHECK_INT(health(c, "engram.v1.Vector", &rc), 1);
  EG_CHECK_INT(health(c, "no.such.Service", &rc), -1);
  EG_CHECK_INT(rc, EG_ENOTFOUND);
  eg_rpc_server_set_serving(s, "engram.v1.Vector", false);
  EG_CHECK_INT(health(c, "engram.v1.Vector", &rc), 2);
  EG_CHECK_INT(health(c, "", &rc), 1);
  eg_rpc_client_close(c);
  eg_rpc_server_free(s);
}

static void test_queue_full(void) {
  eg_metrics *m = eg_metrics_new();
  eg_rpc_server *s = start_server("127.0.0.1:0", 1, 1, 0, m);
  EG_REQUIRE(s != NULL);
  eg_rpc_client *c = connect_to(eg_rpc_server_port(s), NULL, 1);
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.query = "sleep:300";
  eg_rpc_request rs[6];
  for (int i = 0; i < 6; i++) rs[i] = eg_recalld_recall_call(c, &req, NULL);
  eg_rpc_fanout(rs, 6, 5 * EG_US_PER_SEC);
  int ok = 0, full = 0;
  for (int i = 0; i < 6; i++) {
    if (rs[i].err.code == EG_OK) ok++;
    if (rs[i].err.code == EG_EFULL) full++;
    if (rs[i].resp) protobuf_c_message_free_unpacked(rs[i].resp, NULL);
  }
  /* At least the running call succeeds (all six may arrive before the worker dequeues
   * the first, so only one is sure); the rest are refused, none is lost silently. */
  EG_CHECK(ok >= 1);
  EG_CHECK(full >= 1);
  EG_CHECK_INT(ok + full, 6);
  /* a refused call is started and handled with RESOURCE_EXHAUSTED, never sent a response */
  wait_count(m, "grpc_server_handling_seconds_count" RECALL "}", 6);
  EG_CHECK(sample(m, "grpc_server_started_total" RECALL "}") == 6);
  EG_CHECK(sample(m, "grpc_server_handled_total" RECALL ",grpc_code=\"OK\"}") == ok);
  EG_CHECK(sample(m, "grpc_server_handled_total" RECALL ",grpc_code=\"ResourceExhausted\"}") ==
           full);
  EG_CHECK(sample(m, "grpc_server_msg_sent_total" RECALL "}") == ok);
  EG_CHECK(sample(m, "engram_test_rpc_rejected_total") == full);
  eg_rpc_client_close(c);
  eg_rpc_server_free(s);
  eg_metrics_free(m);
}

static void test_fanout_parallel(void) {
  eg_rpc_server *s = start_server("127.0.0.1:0", 4, 64, 0, NULL);
  EG_REQUIRE(s != NULL);
  eg_rpc_client *c = connect_to(eg_rpc_server_port(s), NULL, 1);
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.query = "sleep:150";
  eg_rpc_request rs[8];
  Engram__V1__RecallResponse *answers[8];
  for (int i = 0; i < 8; i++) rs[i] = eg_recalld_recall_call(c, &req, &answers[i]);
  int64_t t0 = eg_time_mono_us();
  EG_CHECK_INT(eg_rpc_fanout(rs, 8, 5 * EG_US_PER_SEC), EG_OK);
  int64_t took = eg_time_mono_us() - t0;
  /* 8 × 150 ms on 4 workers: ~300 ms in parallel, 1.2 s if serial */
  EG_CHECK(took >= 290000 && took < 900000);
  for (int i = 0; i < 8; i++) {
    EG_CHECK(answers[i] != NULL && &answers[i]->base == rs[i].resp); /* each its own answer */
    if (answers[i]) {
      EG_CHECK_STR(answers[i]->context, "slept");
      protobuf_c_message_free_unpacked(&answers[i]->base, NULL);
    }
  }
  eg_rpc_client_close(c);
  eg_rpc_server_free(s);
}

static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {0};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EG_CHECK(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
  socklen_t len = sizeof sa;
  getsockname(fd, (struct sockaddr *)&sa, &len);
  close(fd);
  return ntohs(sa.sin_port);
}

typedef struct late_start {
  int port;
  eg_rpc_server *s;
} late_start;

static void *start_late(void *arg) {
  late_start *ls = arg;
  usleep(200000);
  char addr[64];
  snprintf(addr, sizeof addr, "127.0.0.1:%d", ls->port);
  ls->s = start_server(addr, 1, 4, 0, NULL);
  return NULL;
}

static void test_retry_unavailable(void) {
  int port = free_port();
  eg_metrics *cm = eg_metrics_new();
  eg_rpc_metrics *rm = eg_rpc_client_metrics_new(cm);
  eg_rpc_client *c = connect_counted(port, NULL, 3, rm);
  eg_err e;
  int64_t t0 = eg_time_mono_us();
  EG_CHECK_INT(recall(c, "echo:x", 0, NULL, &e), EG_EUNAVAIL);
  EG_CHECK(eg_time_mono_us() - t0 >= 150000); /* backoff 50 + 100 ms */
  eg_rpc_client_close(c);
  /* three attempts are one call, handled once with its final status, after the backoffs */
  EG_CHECK(sample(cm, "grpc_client_started_total" RECALL "}") == 1);
  EG_CHECK(sample(cm, "grpc_client_handled_total" RECALL ",grpc_code=\"Unavailable\"}") == 1);
  EG_CHECK(sample(cm, "grpc_client_handling_seconds_bucket" RECALL ",le=\"0.1\"}") == 0);
  EG_CHECK(sample(cm, "grpc_client_handling_seconds_count" RECALL "}") == 1);
  eg_rpc_metrics_free(rm);
  eg_metrics_free(cm);
  /* The peer comes up while the client is retrying: the call goes through. */
  late_start ls = {port, NULL};
  pthread_t th;
  pthread_create(&th, NULL, start_late, &ls);
  c = connect_to(port, NULL, 8);
  char *ctx = NULL;
  EG_CHECK_INT(recall(c, "echo:late", 0, &ctx, &e), EG_OK);
  EG_CHECK_STR(ctx, "echo:late|-");
  free(ctx);
  pthread_join(th, NULL);
  eg_rpc_client_close(c);
  eg_rpc_server_free(ls.s);
}

typedef struct bg_call {
  int port;
  const char *query;
  eg_code rc;
  char *ctx;
  int64_t took;
} bg_call;

static void *run_bg(void *arg) {
  bg_call *b = arg;
  eg_rpc_client *c = connect_to(b->port, NULL, 1);
  eg_err e;
  int64_t t0 = eg_time_mono_us();
  b->rc = recall(c, b->query, 0, &b->ctx, &e);
  b->took = eg_time_mono_us() - t0;
  eg_rpc_client_close(c);
  return NULL;
}

static void test_graceful_shutdown(void) {
  eg_rpc_server *s = start_server("127.0.0.1:0", 2, 8, 0, NULL);
  EG_REQUIRE(s != NULL);
  bg_call b = {eg_rpc_server_port(s), "sleep:400", EG_EINTERNAL, NULL, 0};
  pthread_t th;
  pthread_create(&th, NULL, run_bg, &b);
  usleep(100000); /* the call is in flight */
  eg_rpc_server_shutdown(s, 5 * EG_US_PER_SEC);
  pthread_join(th, NULL);
  EG_CHECK_INT(b.rc, EG_OK); /* finished, not cut off */
  EG_CHECK_STR(b.ctx, "slept");
  free(b.ctx);
  /* Nothing is accepted after shutdown. */
  eg_rpc_client *c = connect_to(b.port, NULL, 1);
  eg_err e;
  EG_CHECK_INT(recall(c, "echo:x", 1000000, NULL, &e), EG_EUNAVAIL);
  eg_rpc_client_close(c);
  eg_rpc_server_free(s);
}

static void test_shutdown_grace_expires(void) {
  eg_rpc_server *s = start_server("127.0.0.1:0", 2, 8, 0, NULL);
  EG_REQUIRE(s != NULL);
  bg_call b = {eg_rpc_server_port(s), "sleep:1500", EG_OK, NULL, 0};
  pthread_t th;
  pthread_create(&th, NULL, run_bg, &b);
  usleep(100000);
  eg_rpc_server_shutdown(s, 100000);
  pthread_join(th, NULL);
  EG_CHECK(b.rc != EG_OK); /* cancelled once the grace period ran out */
  EG_CHECK(b.took < 1000000);
  free(b.ctx);
  eg_rpc_server_free(s);
}

static void test_bind_conflict(void) {
  eg_rpc_server *s = start_server("127.0.0.1:0", 1, 4, 0, NULL);
  EG_REQUIRE(s != NULL);
  char addr[64];
  snprintf(addr, sizeof addr, "127.0.0.1:%d", eg_rpc_server_port(s));
  eg_rpc_server_opts o = {.addr = addr, .daemon = "test2"};
  eg_rpc_server *s2 = NULL;
  eg_err e;
  EG_CHECK_INT(eg_rpc_server_start(&o, services, 2, &s2, &e), EG_EUNAVAIL);
  EG_CHECK(strstr(e.msg, "cannot listen") != NULL);
  eg_rpc_server_free(s);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_round_trip_and_errors);
  EG_RUN(test_client_with_token);
  EG_RUN(test_deadline);
  EG_RUN(test_health);
  EG_RUN(test_queue_full);
  EG_RUN(test_fanout_parallel);
  EG_RUN(test_retry_unavailable);
  EG_RUN(test_graceful_shutdown);
  EG_RUN(test_shutdown_grace_expires);
  EG_RUN(test_bind_conflict);
  eg_rpc_global_shutdown();
  return eg_test_finish();
}
