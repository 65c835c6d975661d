/*
 * rpc_client.c — unary calls and fan-out over the gRPC C core.
 *
 * One code path: eg_rpc_unary is a fan-out of one. All requests of a fan-out share one
 * completion queue; each attempt is one batch of six ops. Requests that fail with
 * UNAVAILABLE (peer down or restarting) are retried together after a backoff that
 * doubles each round, as long as attempts and the overall deadline allow. Other
 * statuses are final: retrying INVALID_ARGUMENT or DEADLINE_EXCEEDED cannot help.
 *
 * With metrics, a request is counted once however many attempts it took (as an
 * interceptor above gRPC's own retries counts it): started and its message sent when
 * its first attempt starts, handled with its final status and the time until then.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/rpc_int.h"
#include "common/time.h"

#define MAX_WRITERS 8 /* writer channels kept per client (a writer moves on failover) */

struct eg_rpc_client {
  grpc_channel *ch;
  char *target;
  char *auth; /* "Bearer <token>" or NULL */
  eg_rpc_client_opts o;
  eg_rpc_client *base; /* set when the channel is base's (eg_rpc_client_with_token) */
  /* follow_writer: the channels to writers named by refusals, newest last (kept until
   * close: calls in flight may hold them); the TLS roots to open them with */
  pthread_mutex_t mu;
  grpc_channel *writer_ch[MAX_WRITERS];
  char *writer_target[MAX_WRITERS];
  int n_writers;
  char *ca_pem;
};

/* "Bearer <token>" in a new string; NULL for no token (or out of memory). */
static char *auth_value(const char *token) {
  if (!token || !*token) return NULL;
  size_t n = strlen(token) + 8;
  char *v = malloc(n);
  if (v) snprintf(v, n, "Bearer %s", token);
  return v;
}

/* A channel to target with o's limits and TLS (ca_pem: the roots; NULL = plaintext). */
static grpc_channel *make_channel(const char *target, const eg_rpc_client_opts *o,
                                  const char *ca_pem) {
  grpc_arg args[7];
  memset(args, 0, sizeof args);
  const char *ikeys[] = {GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,   GRPC_ARG_MAX_SEND_MESSAGE_LENGTH,
                         GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, GRPC_ARG_MIN_RECONNECT_BACKOFF_MS,
                         GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,     GRPC_ARG_ENABLE_RETRIES};
  /* Short reconnect backoff so a restarted peer is reached by our own retries. Despite
   * its name, gRPC core reads MIN_RECONNECT_BACKOFF_MS as the least time one connection
   * attempt gets to finish (TCP connect, then the server's HTTP/2 SETTINGS frame: the
   * MIN_CONNECT_TIMEOUT of gRPC's connection-backoff.md). At 100 ms a server that was
   * not scheduled for 100 ms (a loaded machine) lost the attempt, and the call failed
   * UNAVAILABLE at once; so it keeps gRPC's 20 s, and each call's deadline bounds the wait. */
  int ivals[] = {o->max_message_bytes, o->max_message_bytes, 100, 20000, 1000, 0};
  for (int i = 0; i < 6; i++) {
    args[i].type = GRPC_ARG_INTEGER;
    args[i].key = (char *)ikeys[i];
    args[i].value.integer = ivals[i];
  }
  grpc_channel_args chargs = {6, args};
  if (o->tls_server_name && *o->tls_server_name) {
    args[6].type = GRPC_ARG_STRING;
    args[6].key = GRPC_SSL_TARGET_NAME_OVERRIDE_ARG;
    args[6].value.string = (char *)o->tls_server_name;
    chargs.num_args = 7;
  }
  grpc_channel_credentials *creds = ca_pem ? grpc_ssl_credentials_create(ca_pem, NULL, NULL, NULL)
                                           : grpc_insecure_credentials_create();
  grpc_channel *ch = grpc_channel_create(target, creds, &chargs);
  grpc_channel_credentials_release(creds);
  return ch;
}

/* The channel to the writer a refusal names ("… writer=<host:port>"), opened once per
 * address; NULL when the message names none (or "unknown") or names this client's own. */
static grpc_channel *writer_channel(eg_rpc_client *c, const char *msg) {
  eg_rpc_client *root = c->base ? c->base : c;
  const char *w = strstr(msg, "writer=");
  if (!root->o.follow_writer || !w) return NULL;
  w += 7;
  size_t n = strcspn(w, " ;,)\n");
  if (!n || n > 255 || !strncmp(w, "unknown", n) ||
      (strlen(root->target) == n && !strncmp(w, root->target, n)))
    return NULL;
  grpc_channel *ch = NULL;
  pthread_mutex_lock(&root->mu);
  for (int i = 0; i < root->n_writers && !ch; i++)
    if (strlen(root->writer_target[i]) == n && !strncmp(root->writer_target[i], w, n))
      ch = root->writer_ch[i];
  if (!ch && root->n_writers < MAX_WRITERS) {
    char *t = strndup(w, n);
    if (t && (ch = make_channel(t, &root->o, root->ca_pem))) {
      root->writer_target[root->n_writers] = t;
      root->writer_ch[root->n_writers++] = ch;
    } else {
      free(t);
    }
  }
  pthread_mutex_unlock(&root->mu);
  return ch;
}

eg_code eg_rpc_client_open(const char *target, const eg_rpc_client_opts *opts, eg_rpc_client **out,
                           eg_err *err) {
  if (!target || !*target) return eg_err_set(err, EG_EINVAL, "empty target address");
  /* TLS roots: read once here, handed to gRPC (which copies them), not kept */
  eg_buf ca = EG_BUF_INIT;
  if (opts && opts->tls_ca_file && *opts->tls_ca_file) {
    eg_code rc = eg_buf_read_file(&ca, opts->tls_ca_file, err);
    if (!rc && !ca.len)
      rc = eg_err_set(err, EG_EINVAL, "tls_ca_file %.200s is empty", opts->tls_ca_file);
    if (rc) {
      eg_buf_free(&ca);
      return rc;
    }
  }
  eg_rpc_client *c = calloc(1, sizeof *c);
  if (!c) {
    eg_buf_free(&ca);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  if (opts) c->o = *opts;
  if (c->o.timeout_us <= 0) c->o.timeout_us = 10 * EG_US_PER_SEC;
  if (c->o.max_attempts <= 0) c->o.max_attempts = 4;
  if (c->o.backoff_us <= 0) c->o.backoff_us = 50000;
  if (c->o.max_message_bytes <= 0) c->o.max_message_bytes = 64 << 20;
  c->target = strdup(target);
  c->auth = auth_value(c->o.token);
  c->o.token = NULL; /* not kept: only the header value is */
  c->o.tls_ca_file = NULL;
  eg_rpc_global_init();
  c->ch = make_channel(target, &c->o, ca.data);
  pthread_mutex_init(&c->mu, NULL);
  if (c->o.follow_writer) { /* a writer's channel is made like this one */
    c->ca_pem = ca.data ? strdup(ca.data) : NULL;
    c->o.tls_server_name = c->o.tls_server_name ? strdup(c->o.tls_server_name) : NULL;
  } else {
    c->o.tls_server_name = NULL;
  }
  eg_buf_free(&ca);
  if (!c->ch) {
    eg_rpc_client_close(c);
    return eg_err_set(err, EG_EINVAL, "cannot create channel to '%.64s'", target);
  }
  *out = c;
  return EG_OK;
}

eg_code eg_rpc_client_with_token(eg_rpc_client *base, const char *token, eg_rpc_client **out,
                                 eg_err *err) {
  eg_rpc_client *c = calloc(1, sizeof *c);
  if (c) {
    c->o = base->o;
    c->ch = base->ch;
    c->base = base;
    c->target = strdup(base->target);
    c->auth = auth_value(token);
  }
  if (!c || !c->target || (token && *token && !c->auth)) {
    if (c) free(c->target);
    free(c);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  eg_rpc_global_init();
  *out = c;
  return EG_OK;
}

void eg_rpc_client_close(eg_rpc_client *c) {
  if (!c) return;
  if (c->ch && !c->base) grpc_channel_destroy(c->ch);
  if (!c->base) {
    for (int i = 0; i < c->n_writers; i++) {
      grpc_channel_destroy(c->writer_ch[i]);
      free(c->writer_target[i]);
    }
    if (c->o.follow_writer) free((char *)c->o.tls_server_name);
    free(c->ca_pem);
    pthread_mutex_destroy(&c->mu);
  }
  free(c->target);
  free(c->auth);
  free(c);
  eg_rpc_global_shutdown();
}

const char *eg_rpc_client_target(const eg_rpc_client *c) { return c->target; }

/* One attempt of one request. */
typedef struct attempt {
  grpc_call *call;
  grpc_metadata auth_md;
  grpc_metadata_array init_md, trailing_md;
  grpc_byte_buffer *send, *recv;
  grpc_status_code status;
  grpc_slice details;
  const char *error_string;
  bool started;
} attempt;

/* One attempt of r on channel ch (NULL: its client's). */
static eg_code attempt_start(eg_rpc_request *r, grpc_channel *ch, attempt *a,
                             grpc_completion_queue *cq, gpr_timespec deadline, void *tag) {
  eg_rpc_client *c = r->client;
  memset(a, 0, sizeof *a);
  grpc_metadata_array_init(&a->init_md);
  grpc_metadata_array_init(&a->trailing_md);
  a->details = grpc_empty_slice();
  if (!r->method) return eg_err_set(&r->err, EG_EINVAL, "a request without a method");
  /* Copied, refcounted slices: gRPC's HPACK index may keep them past this call, so they
   * must not point into the caller's (possibly stack) memory. */
  grpc_slice method = grpc_slice_from_copied_string(r->method);
  a->call = grpc_channel_create_call(ch ? ch : c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, method,
                                     NULL, deadline, NULL);
  grpc_slice_unref(method);
  if (!a->call) return eg_err_set(&r->err, EG_EINTERNAL, "cannot create call %s", r->method);
  a->send = eg_rpc_pack(r->req);
  grpc_op ops[6];
  memset(ops, 0, sizeof ops);
  ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
  if (c->auth) {
    a->auth_md.key = grpc_slice_from_static_string("authorization");
    a->auth_md.value = grpc_slice_from_copied_string(c->auth);
    ops[0].data.send_initial_metadata.count = 1;
    ops[0].data.send_initial_metadata.metadata = &a->auth_md;
  }
  ops[1].op = GRPC_OP_SEND_MESSAGE;
  ops[1].data.send_message.send_message = a->send;
  ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
  ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
  ops[3].data.recv_initial_metadata.recv_initial_metadata = &a->init_md;
  ops[4].op = GRPC_OP_RECV_MESSAGE;
  ops[4].data.recv_message.recv_message = &a->recv;
  ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
  ops[5].data.recv_status_on_client.trailing_metadata = &a->trailing_md;
  ops[5].data.recv_status_on_client.status = &a->status;
  ops[5].data.recv_status_on_client.status_details = &a->details;
  ops[5].data.recv_status_on_client.error_string = &a->error_string;
  if (grpc_call_start_batch(a->call, ops, 6, tag, NULL) != GRPC_CALL_OK)
    return eg_err_set(&r->err, EG_EINTERNAL, "cannot start call %s", r->method);
  a->started = true;
  return EG_OK;
}

static void attempt_cleanup(attempt *a) {
  if (a->call) grpc_call_unref(a->call);
  grpc_slice_unref(a->auth_md.value);
  if (a->send) grpc_byte_buffer_destroy(a->send);
  if (a->recv) grpc_byte_buffer_destroy(a->recv);
  grpc_slice_unref(a->details);
  if (a->error_string) gpr_free((void *)a->error_string);
  grpc_metadata_array_destroy(&a->init_md);
  grpc_metadata_array_destroy(&a->trailing_md);
  memset(a, 0, sizeof *a);
}

/* Turn a finished attempt into r->resp / r->err; frees the attempt's resources. */
static void attempt_finish(eg_rpc_request *r, attempt *a) {
  if (a->status == GRPC_STATUS_OK) {
    eg_err_clear(&r->err);
    ProtobufCAllocator al = r->arena ? eg_rpc_arena_allocator(r->arena) : (ProtobufCAllocator){0};
    if (eg_rpc_unpack(a->recv, r->resp_desc, r->arena ? &al : NULL, &r->resp, &r->err) != EG_OK)
      eg_err_prefix(&r->err, "response: ");
  } else {
    size_t n = GRPC_SLICE_LENGTH(a->details);
    eg_err_set(&r->err, eg_code_from_grpc((int)a->status), "%.*s", (int)(n > 200 ? 200 : n),
               (const char *)GRPC_SLICE_START_PTR(a->details));
    if (!n) eg_err_set(&r->err, r->err.code, "%s from %s", eg_code_name(r->err.code), r->method);
  }
  attempt_cleanup(a);
}

/* The typed name of the response (eg_rpc_request.out), as the caller's pointer type: all
 * pointers to structures share one representation, and memcpy writes it without an
 * lvalue of the wrong type. */
static void set_out(eg_rpc_request *r) {
  if (r->out) memcpy(r->out, &r->resp, sizeof r->resp);
}

static void sleep_us(int64_t us) {
  if (us <= 0) return;
  struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

eg_code eg_rpc_fanout(eg_rpc_request *reqs, size_t n, int64_t timeout_us) {
  if (n == 0) return EG_OK;
  const eg_rpc_client_opts *o = &reqs[0].client->o;
  if (timeout_us <= 0) timeout_us = o->timeout_us;
  int64_t t_start = eg_time_mono_us(), end = t_start + timeout_us;
  attempt *as = calloc(n, sizeof *as);
  bool *pending = calloc(n, sizeof *pending);
  int64_t *done_us = calloc(n, sizeof *done_us);
  grpc_channel **via = calloc(n, sizeof *via); /* a writer a refusal named, else NULL */
  if (!as || !pending || !done_us || !via) {
    free(as);
    free(pending);
    free(done_us);
    free(via);
    for (size_t i = 0; i < n; i++) {
      eg_err_set(&reqs[i].err, EG_ENOMEM, "out of memory");
      reqs[i].resp = NULL;
      set_out(&reqs[i]);
    }
    return EG_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    reqs[i].resp = NULL;
    eg_err_clear(&reqs[i].err);
    pending[i] = true;
    done_us[i] = t_start;
    eg_rpc_method_metrics *mx =
        reqs[i].method ? eg_rpc_metrics_method(reqs[i].client->o.metrics, reqs[i].method) : NULL;
    eg_rpc_metrics_started(mx);
    eg_rpc_metrics_sent(mx);
  }
  int64_t backoff = o->backoff_us;
  for (int attempt_no = 1;; attempt_no++) {
    int64_t left = end - eg_time_mono_us();
    if (left <= 0) left = 1;
    gpr_timespec deadline = eg_rpc_deadline_in(left);
    /* A pluck queue: each started call's tag is plucked in turn. All calls proceed
     * concurrently, so the round takes as long as the slowest; plucking is measurably
     * cheaper than a `next` queue for the common single-call case. */
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    for (size_t i = 0; i < n; i++) {
      if (!pending[i]) continue;
      if (attempt_start(&reqs[i], via[i], &as[i], cq, deadline, &as[i]) != EG_OK) {
        attempt_cleanup(&as[i]);
        pending[i] = false;
        done_us[i] = eg_time_mono_us();
      }
    }
    for (size_t i = 0; i < n; i++) {
      if (!pending[i] || !as[i].started) continue;
      grpc_completion_queue_pluck(cq, &as[i], gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
      attempt_finish(&reqs[i], &as[i]);
      done_us[i] = eg_time_mono_us();
    }
    grpc_completion_queue_shutdown(cq);
    grpc_completion_queue_destroy(cq);
    /* Which ones to retry? */
    size_t retry = 0;
    for (size_t i = 0; i < n; i++) {
      pending[i] = pending[i] && reqs[i].err.code == EG_EUNAVAIL;
      retry += pending[i];
      grpc_channel *w = pending[i] ? writer_channel(reqs[i].client, reqs[i].err.msg) : NULL;
      if (w) via[i] = w; /* not the writer: the next attempt goes to the one it named */
    }
    if (!retry || attempt_no >= o->max_attempts || eg_time_mono_us() + backoff >= end) break;
    sleep_us(backoff);
    backoff *= 2;
    for (size_t i = 0; i < n; i++) {
      if (pending[i]) eg_err_clear(&reqs[i].err);
    }
  }
  for (size_t i = 0; i < n; i++) {
    eg_rpc_metrics *rm = reqs[i].client->o.metrics;
    if (!rm || !reqs[i].method) continue;
    eg_rpc_method_metrics *mx = eg_rpc_metrics_method(rm, reqs[i].method);
    if (reqs[i].err.code == EG_OK) eg_rpc_metrics_received(mx);
    eg_rpc_metrics_handled(rm, mx, eg_code_to_grpc(reqs[i].err.code),
                           (double)(done_us[i] - t_start) / 1e6);
  }
  free(as);
  free(pending);
  free(done_us);
  free(via);
  for (size_t i = 0; i < n; i++) set_out(&reqs[i]);
  for (size_t i = 0; i < n; i++)
    if (reqs[i].err.code) return reqs[i].err.code;
  return EG_OK;
}

eg_code eg_rpc_run(eg_rpc_request *r, int64_t timeout_us, eg_err *err) {
  eg_code rc = eg_rpc_fanout(r, 1, timeout_us);
  if (err) *err = r->err;
  return rc;
}

eg_code eg_rpc_unary(eg_rpc_client *c, const char *method, const ProtobufCMessage *req,
                     const ProtobufCMessageDescriptor *resp_desc, int64_t timeout_us,
                     ProtobufCMessage **resp, eg_err *err) {
  eg_rpc_request r = {
      .client = c, .method = method, .req = req, .resp_desc = resp_desc, .out = resp};
  return eg_rpc_run(&r, timeout_us, err);
}
