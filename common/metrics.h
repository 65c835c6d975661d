/*
 * metrics.h — Prometheus metrics: a registry of counters, gauges and histograms with
 * low-cardinality labels, the text exposition format, and a /metrics HTTP endpoint.
 *
 * Names follow engram_<daemon>_<what>_<unit>; counters end in _total, durations are
 * _seconds. The exception is the per-RPC families of common/rpc (grpc_server_…,
 * grpc_client_…), which keep the names every gRPC dashboard knows. A family is created once (at
 * start-up) and lives as long as the registry; series are looked up by label values and are stable
 * pointers, so hot paths can keep them. All update functions are thread-safe.
 */
#ifndef EG_METRICS_H
#define EG_METRICS_H

#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"

typedef struct eg_metrics eg_metrics;
typedef struct eg_metric eg_metric; /* a family: one name, one type, fixed label names */
typedef struct eg_series eg_series; /* one label-value combination of a family */
typedef struct eg_metrics_http eg_metrics_http;

eg_metrics *eg_metrics_new(void);
void eg_metrics_free(eg_metrics *m); /* accepts NULL; stop the HTTP server first */

/* labels: comma-separated label names ("method,code"), or NULL for none. Returns NULL
 * (and logs) when the name or labels are invalid or the name is taken: a programmer
 * error caught by the unit tests. Families are owned by the registry. */
eg_metric *eg_metrics_counter(eg_metrics *m, const char *name, const char *help,
                              const char *labels);
eg_metric *eg_metrics_gauge(eg_metrics *m, const char *name, const char *help, const char *labels);
/* bounds: ascending bucket upper bounds (seconds for latency); NULL = latency defaults
 * from 50 µs to 10 s. The +Inf bucket is implicit. */
eg_metric *eg_metrics_histogram(eg_metrics *m, const char *name, const char *help,
                                const char *labels, const double *bounds, size_t n_bounds);

/* A gauge read at scrape time: fn(arg) is called under no registry lock. */
void eg_metrics_gauge_fn(eg_metrics *m, const char *name, const char *help, double (*fn)(void *),
                         void *arg);
/* A collector appends complete exposition text (with # HELP / # TYPE) at scrape time,
 * for families whose series are only known then (e.g. per column family). */
void eg_metrics_collector(eg_metrics *m, void (*fn)(void *arg, eg_buf *out), void *arg);

/* The series for these label values (exactly as many as the family has labels), created
 * on first use. Values are copied. Returns NULL only on out-of-memory or count mismatch. */
eg_series *eg_metric_series(eg_metric *f, const char *const *values, size_t n_values);
/* Shorthand for a family without labels. */
eg_series *eg_metric_solo(eg_metric *f);

void eg_series_add(eg_series *s, double v);     /* counter (v >= 0) or gauge */
void eg_series_set(eg_series *s, double v);     /* gauge */
void eg_series_observe(eg_series *s, double v); /* histogram */
double eg_series_value(eg_series *s);           /* counter/gauge value; histogram count */

/* v as exposition text ("0.1", "2.5", "1e-05", "+Inf", "NaN"): the shortest decimal that
 * reads back as v, which is what Prometheus clients write (so label values such as
 * le="0.1" match). out is always NUL-terminated; 32 bytes always suffice. */
void eg_metrics_format_number(double v, char *out, size_t len);

/* Append the whole registry in text exposition format 0.0.4. */
eg_code eg_metrics_render(eg_metrics *m, eg_buf *out);

/* Serve GET /metrics on addr ("host:port"; port 0 = any free port) from a thread of its
 * own. The registry must outlive the server. */
eg_code eg_metrics_http_start(eg_metrics *m, const char *addr, eg_metrics_http **out, eg_err *err);
/* The same over HTTPS with a PEM certificate (chain) and key (copied); plain HTTP when
 * either is NULL. */
eg_code eg_metrics_https_start(eg_metrics *m, const char *addr, const char *cert_pem,
                               const char *key_pem, eg_metrics_http **out, eg_err *err);
int eg_metrics_http_port(const eg_metrics_http *h);
void eg_metrics_http_stop(eg_metrics_http *h); /* accepts NULL */

/* Split "host:port" (IPv4 or [IPv6]) into parts; host is written NUL-terminated. */
eg_code eg_split_hostport(const char *addr, char *host, size_t host_len, int *port, eg_err *err);

#endif
