/*
 * rpc_server.c — the server framework over the gRPC C core.
 *
 * Life of a call. Each CQ thread owns one completion queue and keeps a few
 * request_registered_call "slots" armed per method (plus generic slots that catch
 * unknown methods). When a slot fires, the thread re-arms one for the same method and
 * hands the call to the worker pool (health checks are answered inline: they touch no
 * storage and must keep working under load). A worker unpacks the request into the
 * call's arena, runs the handler, packs the response and starts one batch
 * (initial metadata, message, status, close). The batch completes on the call's CQ,
 * where the thread records metrics and frees the call.
 *
 * Shutdown follows the documented order: shutdown_and_notify (in-flight calls go on),
 * wait for the tag up to the grace period, cancel_all_calls, drain the pool, shut the
 * CQs down, drain them to GRPC_QUEUE_SHUTDOWN, destroy.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/pool.h"
#include "common/rpc_int.h"
#include "common/time.h"
#include "proto/grpc/health/v1/health.pb-c.h"

#define SLOTS_PER_METHOD 4
#define GENERIC_SLOTS 2
#define MAX_CQS 16

typedef struct method_info {
  char path[192];    /* /engram.v1.Graph/Commit */
  const char *label; /* path + 1: "engram.v1.Graph/Commit" */
  const ProtobufCMethodDescriptor *md;
  eg_rpc_handler fn; /* NULL: UNIMPLEMENTED */
  void *svc;
  void *handle;              /* grpc registered-method handle */
  bool inline_ok;            /* answered on the CQ thread (health) */
  eg_rpc_method_metrics *mx; /* its grpc_server_… series (NULL without metrics) */
} method_info;

typedef enum { PHASE_NEW, PHASE_SENDING } call_phase;

struct eg_rpc_call {
  eg_rpc_server *srv;
  int cq;
  method_info *m; /* NULL for a generic (unknown-method) slot */
  call_phase phase;
  grpc_call *call;
  gpr_timespec deadline;
  grpc_metadata_array md;
  grpc_call_details details; /* generic slots only */
  grpc_byte_buffer *payload;
  grpc_byte_buffer *resp;
  grpc_slice status_msg;
  int cancelled;
  eg_code code;
  int64_t t_start;
  eg_arena *arena;
  char mdval[512]; /* eg_rpc_metadata's copy of one value */
};

typedef struct health_entry {
  char name[128];
  bool serving;
} health_entry;

struct eg_rpc_server {
  eg_rpc_server_opts opts;
  char daemon[32];
  grpc_server *server;
  grpc_completion_queue *cqs[MAX_CQS];
  pthread_t threads[MAX_CQS];
  int n_cqs;
  int port;
  eg_pool *pool;
  method_info *methods;
  size_t n_methods;
  atomic_int shutting_down;
  bool shut_down; /* shutdown sequence finished */
  int shutdown_tag;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool shutdown_notified;
  health_entry *health;
  size_t n_health;
  /* metrics */
  eg_rpc_metrics *grpc_mx;           /* grpc_server_… */
  eg_rpc_method_metrics *unknown_mx; /* calls of methods no service has */
  eg_series *s_inflight;
  eg_series *s_rejected;
};

/* ---- shared helpers (also used by the client) ------------------------------------- */

grpc_byte_buffer *eg_rpc_pack(const ProtobufCMessage *m) {
  size_t n = protobuf_c_message_get_packed_size(m);
  grpc_slice s = grpc_slice_malloc(n);
  protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
  grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
  grpc_slice_unref(s);
  return bb;
}

eg_code eg_rpc_unpack(grpc_byte_buffer *bb, const ProtobufCMessageDescriptor *desc,
                      ProtobufCAllocator *alloc, ProtobufCMessage **out, eg_err *err) {
  grpc_byte_buffer_reader r;
  if (!bb) {
    /* An empty message may arrive as no buffer at all. */
    *out = protobuf_c_message_unpack(desc, alloc, 0, (const uint8_t *)"");
  } else {
    if (!grpc_byte_buffer_reader_init(&r, bb))
      return eg_err_set(err, EG_EINVAL, "cannot read %s (bad compression?)", desc->name);
    grpc_slice s = grpc_byte_buffer_reader_readall(&r);
    grpc_byte_buffer_reader_destroy(&r);
    *out = protobuf_c_message_unpack(desc, alloc, GRPC_SLICE_LENGTH(s), GRPC_SLICE_START_PTR(s));
    grpc_slice_unref(s);
  }
  if (!*out) return eg_err_set(err, EG_EINVAL, "malformed %s message", desc->name);
  return EG_OK;
}

gpr_timespec eg_rpc_deadline_in(int64_t us) {
  if (us == INT64_MAX) return gpr_inf_future(GPR_CLOCK_MONOTONIC);
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_micros(us, GPR_TIMESPAN));
}

int64_t eg_rpc_timespec_to_us(gpr_timespec t) {
  if (gpr_time_cmp(t, gpr_inf_future(t.clock_type)) == 0) return INT64_MAX;
  gpr_timespec rt = gpr_convert_clock_type(t, GPR_CLOCK_REALTIME);
  if (rt.tv_sec > INT64_MAX / 1000000 - 1) return INT64_MAX;
  return rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
}

/* ---- handler accessors ------------------------------------------------------------- */

static void *arena_pb_alloc(void *data, size_t size) { return eg_arena_alloc(data, size); }
static void arena_pb_free(void *data, void *p) { (void)data, (void)p; }

ProtobufCAllocator eg_rpc_arena_allocator(eg_arena *a) {
  ProtobufCAllocator al = {arena_pb_alloc, arena_pb_free, a};
  return al;
}

ProtobufCMessage *eg_rpc_clone(eg_arena *a, const ProtobufCMessage *m) {
  if (!m) return NULL;
  size_t n = protobuf_c_message_get_packed_size(m);
  uint8_t *buf = eg_arena_alloc(a, n ? n : 1);
  if (!buf) return NULL;
  protobuf_c_message_pack(m, buf);
  ProtobufCAllocator al = eg_rpc_arena_allocator(a);
  return protobuf_c_message_unpack(m->descriptor, &al, n, buf);
}

void *eg_rpc_alloc(eg_rpc_call *c, size_t n) { return eg_arena_calloc(c->arena, 1, n); }
eg_arena *eg_rpc_arena(eg_rpc_call *c) { return c->arena; }

const char *eg_rpc_metadata(eg_rpc_call *c, const char *key) {
  size_t kl = strlen(key);
  for (size_t i = 0; i < c->md.count; i++) {
    grpc_slice k = c->md.metadata[i].key, v = c->md.metadata[i].value;
    if (GRPC_SLICE_LENGTH(k) == kl && memcmp(GRPC_SLICE_START_PTR(k), key, kl) == 0) {
      size_t vl = GRPC_SLICE_LENGTH(v);
      if (vl >= sizeof c->mdval) vl = sizeof c->mdval - 1;
      memcpy(c->mdval, GRPC_SLICE_START_PTR(v), vl);
      c->mdval[vl] = '\0';
      return c->mdval;
    }
  }
  return NULL;
}

int64_t eg_rpc_deadline_us(const eg_rpc_call *c) { return eg_rpc_timespec_to_us(c->deadline); }

bool eg_rpc_expired(const eg_rpc_call *c) {
  int64_t d = eg_rpc_deadline_us(c);
  return d != INT64_MAX && eg_time_now_us() >= d;
}

const char *eg_rpc_method_path(const eg_rpc_call *c) { return c->m ? c->m->path : "unknown"; }

eg_code eg_rpc_invoke(const eg_rpc_service *svc, const char *method, const ProtobufCMessage *req,
                      eg_arena *a, ProtobufCMessage **resp, eg_err *err) {
  *resp = NULL;
  for (size_t i = 0; i < svc->n_handlers; i++) {
    if (strcmp(svc->handlers[i].method, method) != 0) continue;
    eg_rpc_call c;
    memset(&c, 0, sizeof c);
    c.arena = a;
    c.deadline = gpr_inf_future(GPR_CLOCK_REALTIME);
    grpc_metadata_array_init(&c.md);
    eg_code rc = svc->handlers[i].fn(svc->svc, &c, req, resp, err);
    const ProtobufCMethodDescriptor *md =
        protobuf_c_service_descriptor_get_method_by_name(svc->desc, method);
    if (rc == EG_OK && (!*resp || !md || (*resp)->descriptor != md->output))
      rc = eg_err_set(err, EG_EINTERNAL, "%s returned no or a wrongly typed response", method);
    return rc;
  }
  return eg_err_set(err, EG_EUNIMPL, "%s/%s has no handler", svc->desc->name, method);
}

/* ---- health ------------------------------------------------------------------------ */

static health_entry *health_find(eg_rpc_server *s, const char *name) {
  for (size_t i = 0; i < s->n_health; i++)
    if (strcmp(s->health[i].name, name) == 0) return &s->health[i];
  return NULL;
}

void eg_rpc_server_set_serving(eg_rpc_server *s, const char *service, bool serving) {
  pthread_mutex_lock(&s->mu);
  health_entry *h = health_find(s, service ? service : "");
  if (h) h->serving = serving;
  pthread_mutex_unlock(&s->mu);
}

static eg_code health_check(void *svc, eg_rpc_call *call, const ProtobufCMessage *reqm,
                            ProtobufCMessage **resp, eg_err *err) {
  eg_rpc_server *s = svc;
  const Grpc__Health__V1__HealthCheckRequest *req = (const void *)reqm;
  Grpc__Health__V1__HealthCheckResponse *r = EG_RPC_NEW(
      call, Grpc__Health__V1__HealthCheckResponse, grpc__health__v1__health_check_response__init);
  if (!r) return eg_err_set(err, EG_ENOMEM, "out of memory");
  pthread_mutex_lock(&s->mu);
  health_entry *h = health_find(s, req->service ? req->service : "");
  bool known = h != NULL, serving = h && h->serving;
  pthread_mutex_unlock(&s->mu);
  if (!known) return eg_err_set(err, EG_ENOTFOUND, "unknown service");
  r->status = serving ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING
                      : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING;
  *resp = &r->base;
  return EG_OK;
}

static const eg_rpc_handler_entry health_handlers[] = {{"Check", health_check}};

/* ---- call lifecycle ---------------------------------------------------------------- */

static void call_free(eg_rpc_call *c) {
  if (!c) return;
  if (c->call) grpc_call_unref(c->call);
  grpc_metadata_array_destroy(&c->md);
  if (!c->m) grpc_call_details_destroy(&c->details);
  if (c->payload) grpc_byte_buffer_destroy(c->payload);
  if (c->resp) grpc_byte_buffer_destroy(c->resp);
  grpc_slice_unref(c->status_msg);
  eg_arena_free(c->arena);
  free(c);
}

/* Post one slot for method m (NULL = generic) on CQ cq. */
static void arm(eg_rpc_server *s, int cq, method_info *m) {
  if (atomic_load(&s->shutting_down)) return;
  eg_rpc_call *c = calloc(1, sizeof *c);
  if (!c) {
    EG_ERROR("rpc", "out of memory arming a call slot", NULL);
    return;
  }
  c->srv = s;
  c->cq = cq;
  c->m = m;
  c->phase = PHASE_NEW;
  c->status_msg = grpc_empty_slice();
  grpc_metadata_array_init(&c->md);
  grpc_call_error e;
  if (m) {
    e = grpc_server_request_registered_call(s->server, m->handle, &c->call, &c->deadline, &c->md,
                                            &c->payload, s->cqs[cq], s->cqs[cq], c);
  } else {
    grpc_call_details_init(&c->details);
    e = grpc_server_request_call(s->server, &c->call, &c->details, &c->md, s->cqs[cq], s->cqs[cq],
                                 c);
  }
  if (e != GRPC_CALL_OK) {
    EG_ERROR("rpc", "cannot arm call slot", "grpc_call_error=%d", (int)e);
    call_free(c);
  }
}

/* Send the response (if code == EG_OK) and status; completion frees the call. */
static void finish(eg_rpc_call *c, eg_code code, const char *msg) {
  c->code = code;
  c->phase = PHASE_SENDING;
  grpc_op ops[4];
  memset(ops, 0, sizeof ops);
  size_t n = 0;
  ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
  n++;
  if (code == EG_OK && c->resp) {
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n].data.send_message.send_message = c->resp;
    n++;
  }
  grpc_slice_unref(c->status_msg);
  c->status_msg = grpc_slice_from_copied_string(msg && code ? msg : "");
  ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
  ops[n].data.send_status_from_server.status = (grpc_status_code)eg_code_to_grpc(code);
  ops[n].data.send_status_from_server.status_details = &c->status_msg;
  n++;
  ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
  ops[n].data.recv_close_on_server.cancelled = &c->cancelled;
  n++;
  grpc_call_error e = grpc_call_start_batch(c->call, ops, n, c, NULL);
  if (e != GRPC_CALL_OK) {
    /* Cannot happen for a well-formed batch; never leak the call if it does. */
    EG_ERROR("rpc", "start_batch failed", "grpc_call_error=%d", (int)e);
    call_free(c);
  }
}

/* Decode, handle, encode. Runs on a worker (or inline for health). */
static void run_call(eg_rpc_call *c) {
  eg_rpc_server *s = c->srv;
  method_info *m = c->m;
  eg_err err;
  eg_err_clear(&err);
  eg_code rc;
  if (!m->fn) {
    rc = eg_err_set(&err, EG_EUNIMPL, "%s is not implemented yet", m->label);
    goto done;
  }
  if (eg_rpc_expired(c)) {
    rc = eg_err_set(&err, EG_ETIMEOUT, "deadline exceeded before the call was handled");
    goto done;
  }
  c->arena = eg_arena_new(m->inline_ok ? 1024 : 16384, s->opts.arena_cap);
  if (!c->arena) {
    rc = eg_err_set(&err, EG_ENOMEM, "out of memory");
    goto done;
  }
  ProtobufCAllocator alloc = eg_rpc_arena_allocator(c->arena);
  ProtobufCMessage *req = NULL, *resp = NULL;
  if ((rc = eg_rpc_unpack(c->payload, m->md->input, &alloc, &req, &err))) goto done;
  if (s->opts.authorize && !m->inline_ok &&
      (rc = s->opts.authorize(s->opts.authorize_ctx, c, req, &err)))
    goto done;
  rc = m->fn(m->svc, c, req, &resp, &err);
  if (rc == EG_OK) {
    if (!resp || resp->descriptor != m->md->output) {
      rc = eg_err_set(&err, EG_EINTERNAL, "handler returned no or a wrongly typed response");
      goto done;
    }
    size_t size = protobuf_c_message_get_packed_size(resp);
    if (size > (size_t)s->opts.max_message_bytes) {
      rc = eg_err_set(&err, EG_EFULL, "response of %zu bytes exceeds the %d-byte message limit",
                      size, s->opts.max_message_bytes);
      goto done;
    }
    c->resp = eg_rpc_pack(resp);
  } else if (!err.msg[0]) {
    eg_err_set(&err, rc, "%s failed", m->label);
  }
done:
  finish(c, rc, err.msg);
}

static void run_job(void *arg) { run_call(arg); }

static void on_new_call(eg_rpc_server *s, eg_rpc_call *c) {
  c->t_start = eg_time_mono_us();
  arm(s, c->cq, c->m);
  eg_series_add(s->s_inflight, 1);
  eg_rpc_metrics_started(c->m ? c->m->mx : s->unknown_mx);
  if (!c->m) {
    finish(c, EG_EUNIMPL, "unknown method");
    return;
  }
  eg_rpc_metrics_received(c->m->mx); /* a unary call arrives with its request */
  if (c->m->inline_ok || !c->m->fn) {
    run_call(c);
    return;
  }
  eg_code rc = eg_pool_submit(s->pool, run_job, c);
  if (rc) {
    eg_series_add(s->s_rejected, 1);
    finish(c, rc == EG_EFULL ? EG_EFULL : EG_EUNAVAIL,
           rc == EG_EFULL ? "server busy: request queue is full, retry with backoff"
                          : "server is shutting down");
  }
}

static void on_call_done(eg_rpc_server *s, eg_rpc_call *c) {
  double secs = (double)(eg_time_mono_us() - c->t_start) / 1e6;
  eg_rpc_method_metrics *mx = c->m ? c->m->mx : s->unknown_mx;
  if (c->code == EG_OK && c->resp) eg_rpc_metrics_sent(mx); /* the response went out */
  eg_rpc_metrics_handled(s->grpc_mx, mx, eg_code_to_grpc(c->code), secs);
  eg_series_add(s->s_inflight, -1);
  call_free(c);
}

static void *cq_thread(void *arg) {
  eg_rpc_call *dummy = NULL;
  (void)dummy;
  eg_rpc_server *s = ((void **)arg)[0];
  int idx = (int)(intptr_t)((void **)arg)[1];
  free(arg);
  grpc_completion_queue *cq = s->cqs[idx];
  for (;;) {
    grpc_event ev = grpc_completion_queue_next(cq, eg_rpc_deadline_in(200000), NULL);
    if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
    if (ev.type == GRPC_QUEUE_TIMEOUT) continue;
    if (ev.tag == &s->shutdown_tag) {
      pthread_mutex_lock(&s->mu);
      s->shutdown_notified = true;
      pthread_cond_broadcast(&s->cv);
      pthread_mutex_unlock(&s->mu);
      continue;
    }
    eg_rpc_call *c = ev.tag;
    if (c->phase == PHASE_NEW) {
      if (!ev.success) { /* slot cancelled by shutdown */
        call_free(c);
        continue;
      }
      on_new_call(s, c);
    } else {
      on_call_done(s, c);
    }
  }
  return NULL;
}

/* ---- start / stop ------------------------------------------------------------------ */

static double queue_depth(void *arg) { return eg_pool_queued(((eg_rpc_server *)arg)->pool); }

static eg_code add_service(eg_rpc_server *s, const eg_rpc_service *svc, size_t *at, eg_err *err) {
  const ProtobufCServiceDescriptor *d = svc->desc;
  for (size_t h = 0; h < svc->n_handlers; h++) {
    bool found = false;
    for (unsigned i = 0; i < d->n_methods; i++)
      if (strcmp(d->methods[i].name, svc->handlers[h].method) == 0) found = true;
    if (!found)
      return eg_err_set(err, EG_EINTERNAL, "handler for unknown method %s/%s", d->name,
                        svc->handlers[h].method);
  }
  for (unsigned i = 0; i < d->n_methods; i++) {
    method_info *m = &s->methods[(*at)++];
    snprintf(m->path, sizeof m->path, "/%s/%s", d->name, d->methods[i].name);
    m->label = m->path + 1;
    m->md = &d->methods[i];
    m->svc = svc->svc;
    for (size_t h = 0; h < svc->n_handlers; h++)
      if (strcmp(svc->handlers[h].method, d->methods[i].name) == 0) m->fn = svc->handlers[h].fn;
    m->handle = grpc_server_register_method(s->server, m->path, NULL,
                                            GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
    if (!m->handle) return eg_err_set(err, EG_EINTERNAL, "cannot register %s", m->path);
    m->mx = eg_rpc_metrics_method(s->grpc_mx, m->path);
  }
  health_entry *he = &s->health[s->n_health++];
  snprintf(he->name, sizeof he->name, "%s", d->name);
  he->serving = true;
  return EG_OK;
}

eg_code eg_rpc_server_start(const eg_rpc_server_opts *opts, const eg_rpc_service *services,
                            size_t n_services, eg_rpc_server **out, eg_err *err) {
  eg_code rc = EG_OK;
  eg_rpc_server *s = calloc(1, sizeof *s);
  if (!s) return eg_err_set(err, EG_ENOMEM, "out of memory");
  s->opts = *opts;
  if (s->opts.cq_threads <= 0) s->opts.cq_threads = 2;
  if (s->opts.cq_threads > MAX_CQS) s->opts.cq_threads = MAX_CQS;
  if (s->opts.workers <= 0) s->opts.workers = 4;
  if (s->opts.queue_max <= 0) s->opts.queue_max = 1024;
  if (s->opts.max_message_bytes <= 0) s->opts.max_message_bytes = 4 << 20;
  snprintf(s->daemon, sizeof s->daemon, "%s", opts->daemon ? opts->daemon : "engram");
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  eg_rpc_global_init();

  /* Metrics: the standard per-RPC families, and the framework's own (queue, in flight,
   * refused), which keep the daemon's prefix. Without a registry every update is a no-op. */
  eg_metrics *mx = opts->metrics;
  char name[128];
  s->grpc_mx = eg_rpc_metrics_new(mx, "server");
  s->unknown_mx = eg_rpc_metrics_method(s->grpc_mx, "/unknown/unknown");
  if (mx) {
    snprintf(name, sizeof name, "engram_%s_rpc_inflight", s->daemon);
    s->s_inflight = eg_metric_solo(eg_metrics_gauge(mx, name, "RPCs in progress.", NULL));
    snprintf(name, sizeof name, "engram_%s_rpc_rejected_total", s->daemon);
    s->s_rejected = eg_metric_solo(
        eg_metrics_counter(mx, name, "RPCs refused because the worker queue was full.", NULL));
  }

  if ((rc = eg_pool_new(s->opts.workers, s->opts.queue_max, &s->pool, err))) goto fail;
  if (mx) {
    snprintf(name, sizeof name, "engram_%s_rpc_queue_depth", s->daemon);
    eg_metrics_gauge_fn(mx, name, "RPCs waiting for a worker thread.", queue_depth, s);
  }

  grpc_arg args[3];
  memset(args, 0, sizeof args);
  args[0].type = GRPC_ARG_INTEGER;
  args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
  args[0].value.integer = s->opts.max_message_bytes;
  args[1].type = GRPC_ARG_INTEGER;
  args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
  args[1].value.integer = s->opts.max_message_bytes;
  /* No SO_REUSEPORT: a second daemon on a taken port must fail, not share it. */
  args[2].type = GRPC_ARG_INTEGER;
  args[2].key = GRPC_ARG_ALLOW_REUSEPORT;
  args[2].value.integer = 0;
  grpc_channel_args chargs = {3, args};
  s->server = grpc_server_create(&chargs, NULL);

  size_t total = 1;
  for (size_t i = 0; i < n_services; i++) total += services[i].desc->n_methods;
  s->methods = calloc(total, sizeof *s->methods);
  s->health = calloc(n_services + 2, sizeof *s->health);
  if (!s->methods || !s->health) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto fail;
  }
  s->health[s->n_health++] = (health_entry){"", true};
  eg_rpc_service hs = {&grpc__health__v1__health__descriptor, health_handlers, 1, s};
  if ((rc = add_service(s, &hs, &s->n_methods, err))) goto fail;
  s->methods[0].inline_ok = true;
  for (size_t i = 0; i < n_services; i++)
    if ((rc = add_service(s, &services[i], &s->n_methods, err))) goto fail;

  s->n_cqs = s->opts.cq_threads;
  for (int i = 0; i < s->n_cqs; i++) {
    s->cqs[i] = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(s->server, s->cqs[i], NULL);
  }
  grpc_server_credentials *creds;
  if (opts->tls_cert_pem && opts->tls_key_pem) {
    grpc_ssl_pem_key_cert_pair pair = {opts->tls_key_pem, opts->tls_cert_pem};
    creds = grpc_ssl_server_credentials_create_ex(NULL, &pair, 1,
                                                  GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE, NULL);
  } else {
    creds = grpc_insecure_server_credentials_create();
  }
  s->port = grpc_server_add_http2_port(s->server, opts->addr, creds);
  grpc_server_credentials_release(creds);
  s->opts.tls_cert_pem = s->opts.tls_key_pem = NULL; /* copied by gRPC; the caller's may go */
  if (s->port <= 0) {
    rc = eg_err_set(err, EG_EUNAVAIL, "cannot listen on '%.64s' (in use or bad address)",
                    opts->addr);
    goto fail;
  }
  grpc_server_start(s->server);
  for (int i = 0; i < s->n_cqs; i++) {
    for (size_t m = 0; m < s->n_methods; m++)
      for (int k = 0; k < SLOTS_PER_METHOD; k++) arm(s, i, &s->methods[m]);
    for (int k = 0; k < GENERIC_SLOTS; k++) arm(s, i, NULL);
    void **targ = malloc(2 * sizeof *targ);
    targ[0] = s;
    targ[1] = (void *)(intptr_t)i;
    pthread_create(&s->threads[i], NULL, cq_thread, targ);
  }
  EG_INFO("rpc", "grpc server started",
          "port=%d tls=%s cq_threads=%d workers=%d queue_max=%d "
          "max_message_bytes=%d methods=%zu",
          s->port, opts->tls_cert_pem ? "on" : "off", s->n_cqs, s->opts.workers, s->opts.queue_max,
          s->opts.max_message_bytes, s->n_methods);
  *out = s;
  return EG_OK;

fail:
  if (s->server) {
    /* grpc wants a shutdown (and its tag received) before destroy, started or not. */
    if (!s->cqs[0]) {
      s->cqs[0] = grpc_completion_queue_create_for_next(NULL);
      grpc_server_register_completion_queue(s->server, s->cqs[0], NULL);
      s->n_cqs = 1;
    }
    grpc_server_shutdown_and_notify(s->server, s->cqs[0], &s->shutdown_tag);
    while (grpc_completion_queue_next(s->cqs[0], gpr_inf_future(GPR_CLOCK_REALTIME), NULL).tag !=
           &s->shutdown_tag) {
    }
  }
  for (int i = 0; i < s->n_cqs; i++) {
    grpc_completion_queue_shutdown(s->cqs[i]);
    while (grpc_completion_queue_next(s->cqs[i], gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
  }
  if (s->server) grpc_server_destroy(s->server);
  for (int i = 0; i < s->n_cqs; i++) grpc_completion_queue_destroy(s->cqs[i]);
  eg_pool_free(s->pool);
  eg_rpc_metrics_free(s->grpc_mx);
  free(s->methods);
  free(s->health);
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  free(s);
  eg_rpc_global_shutdown();
  return rc;
}

int eg_rpc_server_port(const eg_rpc_server *s) { return s->port; }

static bool wait_notified(eg_rpc_server *s, int64_t timeout_us) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t until = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 + timeout_us;
  ts.tv_sec = until / 1000000;
  ts.tv_nsec = (until % 1000000) * 1000;
  pthread_mutex_lock(&s->mu);
  while (!s->shutdown_notified) {
    if (timeout_us < 0) {
      pthread_cond_wait(&s->cv, &s->mu);
    } else if (pthread_cond_timedwait(&s->cv, &s->mu, &ts) != 0) {
      break;
    }
  }
  bool done = s->shutdown_notified;
  pthread_mutex_unlock(&s->mu);
  return done;
}

void eg_rpc_server_shutdown(eg_rpc_server *s, int64_t grace_us) {
  if (!s || s->shut_down) return;
  pthread_mutex_lock(&s->mu);
  for (size_t i = 0; i < s->n_health; i++) s->health[i].serving = false;
  pthread_mutex_unlock(&s->mu);
  atomic_store(&s->shutting_down, 1);
  int64_t t0 = eg_time_mono_us();
  grpc_server_shutdown_and_notify(s->server, s->cqs[0], &s->shutdown_tag);
  if (!wait_notified(s, grace_us)) {
    if (grace_us > 0)
      EG_WARN("rpc", "grace period over, cancelling calls", "grace_ms=%lld",
              (long long)(grace_us / 1000));
    grpc_server_cancel_all_calls(s->server);
    wait_notified(s, -1);
  }
  eg_pool_free(s->pool);
  s->pool = NULL;
  for (int i = 0; i < s->n_cqs; i++) grpc_completion_queue_shutdown(s->cqs[i]);
  for (int i = 0; i < s->n_cqs; i++) pthread_join(s->threads[i], NULL);
  grpc_server_destroy(s->server);
  for (int i = 0; i < s->n_cqs; i++) grpc_completion_queue_destroy(s->cqs[i]);
  s->shut_down = true;
  EG_INFO("rpc", "grpc server stopped", "took_ms=%lld",
          (long long)((eg_time_mono_us() - t0) / 1000));
}

void eg_rpc_server_free(eg_rpc_server *s) {
  if (!s) return;
  eg_rpc_server_shutdown(s, 0);
  eg_rpc_metrics_free(s->grpc_mx);
  free(s->methods);
  free(s->health);
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  free(s);
  eg_rpc_global_shutdown();
}

/* ---- process-wide init ------------------------------------------------------------- */

static pthread_mutex_t global_mu = PTHREAD_MUTEX_INITIALIZER;
static int global_refs;

void eg_rpc_global_init(void) {
  pthread_mutex_lock(&global_mu);
  if (global_refs++ == 0) {
    /* An idle client channel reads its server's GOAWAY only when polled; gRPC polls idle
     * channels every 5 s by default, so a server shutting down waited that long (or its
     * whole grace period) for our idle peer connections to close. Poll them every 200 ms
     * (a cheap wake-up of one thread), unless the environment says otherwise. */
    setenv("GRPC_CLIENT_CHANNEL_BACKUP_POLL_INTERVAL_MS", "200", 0);
    grpc_init();
  }
  pthread_mutex_unlock(&global_mu);
}

void eg_rpc_global_shutdown(void) {
  pthread_mutex_lock(&global_mu);
  if (--global_refs == 0) grpc_shutdown();
  pthread_mutex_unlock(&global_mu);
}
