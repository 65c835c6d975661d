/*
 * rpc_metrics.c — the standard gRPC metrics of a server or a client.
 *
 * Names, help texts, labels and buckets are those of grpc-ecosystem/go-grpc-prometheus
 * (and its Java twin), so dashboards and alerts written for any gRPC service read ours:
 *
 *   grpc_<side>_started_total{grpc_type,grpc_service,grpc_method}
 *   grpc_<side>_handled_total{grpc_type,grpc_service,grpc_method,grpc_code}
 *   grpc_<side>_handling_seconds{grpc_type,grpc_service,grpc_method}  (histogram)
 *   grpc_<side>_msg_received_total / grpc_<side>_msg_sent_total
 *
 * grpc_code is the status as grpc-go spells it (OK, InvalidArgument, NotFound …). Which
 * daemon a series comes from is the scrape's job/instance, not the name.
 *
 * Series of one method are looked up once and kept in a small list; the handled series
 * of each status code are created on first use (17 per method up front would mostly be
 * zeros in every scrape).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/rpc_int.h"

#define N_STATUS 17 /* gRPC status codes 0 … 16 */

/* Prometheus client libraries' default buckets (DefBuckets), which go-grpc-prometheus
 * uses for both handling-time histograms. */
static const double standard_buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

struct eg_rpc_method_metrics {
  eg_rpc_method_metrics *next;
  char *path; /* /engram.v1.Graph/Commit (the lookup key) */
  char *service, *method;
  eg_series *started, *handling, *msg_received, *msg_sent;
  _Atomic(eg_series *) handled[N_STATUS]; /* by status; set on first use */
};

struct eg_rpc_metrics {
  eg_metric *started, *handled, *handling, *msg_received, *msg_sent;
  pthread_mutex_t mu; /* guards methods */
  eg_rpc_method_metrics *methods;
};

const char *eg_rpc_status_name(int status) {
  static const char *const names[N_STATUS] = {
      "OK",       "Canceled",       "Unknown",          "InvalidArgument",   "DeadlineExceeded",
      "NotFound", "AlreadyExists",  "PermissionDenied", "ResourceExhausted", "FailedPrecondition",
      "Aborted",  "OutOfRange",     "Unimplemented",    "Internal",          "Unavailable",
      "DataLoss", "Unauthenticated"};
  return status >= 0 && status < N_STATUS ? names[status] : "Unknown";
}

eg_rpc_metrics *eg_rpc_metrics_new(eg_metrics *m, const char *side) {
  if (!m) return NULL;
  eg_rpc_metrics *rm = calloc(1, sizeof *rm);
  if (!rm) return NULL;
  pthread_mutex_init(&rm->mu, NULL);
  bool server = strcmp(side, "server") == 0;
  char name[64];
  static const char labels[] = "grpc_type,grpc_service,grpc_method";
  snprintf(name, sizeof name, "grpc_%s_started_total", side);
  rm->started = eg_metrics_counter(m, name,
                                   server ? "Total number of RPCs started on the server."
                                          : "Total number of RPCs started on the client.",
                                   labels);
  snprintf(name, sizeof name, "grpc_%s_handled_total", side);
  rm->handled = eg_metrics_counter(
      m, name,
      server ? "Total number of RPCs completed on the server, regardless of success or failure."
             : "Total number of RPCs completed by the client, regardless of success or failure.",
      "grpc_type,grpc_service,grpc_method,grpc_code");
  snprintf(name, sizeof name, "grpc_%s_msg_received_total", side);
  rm->msg_received =
      eg_metrics_counter(m, name,
                         server ? "Total number of RPC stream messages received on the server."
                                : "Total number of RPC stream messages received by the client.",
                         labels);
  snprintf(name, sizeof name, "grpc_%s_msg_sent_total", side);
  rm->msg_sent =
      eg_metrics_counter(m, name,
                         server ? "Total number of gRPC stream messages sent by the server."
                                : "Total number of gRPC stream messages sent by the client.",
                         labels);
  snprintf(name, sizeof name, "grpc_%s_handling_seconds", side);
  rm->handling = eg_metrics_histogram(
      m, name,
      server ? "Histogram of response latency (seconds) of gRPC that had been application-level "
               "handled by the server."
             : "Histogram of response latency (seconds) of the gRPC until it is finished by the "
               "application.",
      labels, standard_buckets, sizeof standard_buckets / sizeof *standard_buckets);
  if (!rm->started || !rm->handled || !rm->msg_received || !rm->msg_sent || !rm->handling) {
    /* names taken: a second set in one registry would count every call twice */
    EG_ERROR("rpc", "gRPC metrics already registered in this registry", "side=%s", side);
    eg_rpc_metrics_free(rm);
    return NULL;
  }
  return rm;
}

eg_rpc_metrics *eg_rpc_client_metrics_new(eg_metrics *m) { return eg_rpc_metrics_new(m, "client"); }

void eg_rpc_metrics_free(eg_rpc_metrics *rm) {
  if (!rm) return;
  eg_rpc_method_metrics *mm = rm->methods;
  while (mm) {
    eg_rpc_method_metrics *next = mm->next;
    free(mm->path);
    free(mm->service);
    free(mm->method);
    free(mm);
    mm = next;
  }
  pthread_mutex_destroy(&rm->mu);
  free(rm);
}

/* "/pkg.Service/Method" → service "pkg.Service", method "Method"; a path of another shape
 * is all method, service "unknown". */
static eg_rpc_method_metrics *method_new(eg_rpc_metrics *rm, const char *path) {
  eg_rpc_method_metrics *mm = calloc(1, sizeof *mm);
  if (!mm) return NULL;
  const char *p = path[0] == '/' ? path + 1 : path;
  const char *slash = strchr(p, '/');
  mm->path = strdup(path);
  mm->service = slash ? strndup(p, (size_t)(slash - p)) : strdup("unknown");
  mm->method = strdup(slash ? slash + 1 : p);
  if (!mm->path || !mm->service || !mm->method) {
    free(mm->path);
    free(mm->service);
    free(mm->method);
    free(mm);
    return NULL;
  }
  const char *v[3] = {"unary", mm->service, mm->method};
  mm->started = eg_metric_series(rm->started, v, 3);
  mm->handling = eg_metric_series(rm->handling, v, 3);
  mm->msg_received = eg_metric_series(rm->msg_received, v, 3);
  mm->msg_sent = eg_metric_series(rm->msg_sent, v, 3);
  return mm;
}

eg_rpc_method_metrics *eg_rpc_metrics_method(eg_rpc_metrics *rm, const char *path) {
  if (!rm) return NULL;
  pthread_mutex_lock(&rm->mu);
  eg_rpc_method_metrics *mm;
  for (mm = rm->methods; mm; mm = mm->next)
    if (strcmp(mm->path, path) == 0) break;
  if (!mm && (mm = method_new(rm, path))) {
    mm->next = rm->methods;
    rm->methods = mm;
  }
  pthread_mutex_unlock(&rm->mu);
  return mm;
}

void eg_rpc_metrics_started(eg_rpc_method_metrics *mm) {
  if (mm) eg_series_add(mm->started, 1);
}

void eg_rpc_metrics_received(eg_rpc_method_metrics *mm) {
  if (mm) eg_series_add(mm->msg_received, 1);
}

void eg_rpc_metrics_sent(eg_rpc_method_metrics *mm) {
  if (mm) eg_series_add(mm->msg_sent, 1);
}

void eg_rpc_metrics_handled(eg_rpc_metrics *rm, eg_rpc_method_metrics *mm, int status,
                            double seconds) {
  if (!rm || !mm) return;
  if (status < 0 || status >= N_STATUS) status = 2; /* UNKNOWN */
  eg_series *s = atomic_load(&mm->handled[status]);
  if (!s) {
    /* eg_metric_series finds or creates under the family's lock: racing threads get the
     * same series, so storing it twice is harmless */
    const char *v[4] = {"unary", mm->service, mm->method, eg_rpc_status_name(status)};
    s = eg_metric_series(rm->handled, v, 4);
    atomic_store(&mm->handled[status], s);
  }
  eg_series_add(s, 1);
  eg_series_observe(mm->handling, seconds);
}
