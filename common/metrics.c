/*
 * metrics.c — registry, exposition and the /metrics endpoint (served by common/httpd.c).
 *
 * Each family has its own mutex guarding its series list and values; scrapes lock one
 * family at a time, so an update never waits for a whole scrape.
 */
#include "common/metrics.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/httpd.h"
#include "common/log.h"

#define MAX_LABELS 6

typedef enum { M_COUNTER, M_GAUGE, M_HISTOGRAM, M_GAUGE_FN } metric_type;

struct eg_series {
  eg_series *next;
  eg_metric *family;
  char *values[MAX_LABELS];
  double value;    /* counter/gauge */
  double sum;      /* histogram */
  double *buckets; /* histogram: per-bucket (non-cumulative) counts, n_bounds + 1 */
  double count;    /* histogram observations */
};

struct eg_metric {
  eg_metric *next;
  metric_type type;
  char *name, *help;
  char *labels[MAX_LABELS];
  size_t n_labels;
  double *bounds;
  size_t n_bounds;
  double (*fn)(void *);
  void *fn_arg;
  pthread_mutex_t mu;
  eg_series *series, **tail;
};

typedef struct collector {
  struct collector *next;
  void (*fn)(void *, eg_buf *);
  void *arg;
} collector;

struct eg_metrics {
  pthread_mutex_t mu; /* guards the family and collector lists */
  eg_metric *families, **tail;
  collector *collectors;
};

static const double default_bounds[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                        0.005,   0.01,   0.025,   0.05,   0.1,   0.25,
                                        0.5,     1,      2.5,     5,      10};

eg_metrics *eg_metrics_new(void) {
  eg_metrics *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  pthread_mutex_init(&m->mu, NULL);
  m->tail = &m->families;
  return m;
}

static void series_free(eg_series *s, size_t n_labels) {
  for (size_t i = 0; i < n_labels; i++) free(s->values[i]);
  free(s->buckets);
  free(s);
}

void eg_metrics_free(eg_metrics *m) {
  if (!m) return;
  eg_metric *f = m->families;
  while (f) {
    eg_metric *nf = f->next;
    eg_series *s = f->series;
    while (s) {
      eg_series *ns = s->next;
      series_free(s, f->n_labels);
      s = ns;
    }
    for (size_t i = 0; i < f->n_labels; i++) free(f->labels[i]);
    free(f->name);
    free(f->help);
    free(f->bounds);
    pthread_mutex_destroy(&f->mu);
    free(f);
    f = nf;
  }
  collector *c = m->collectors;
  while (c) {
    collector *nc = c->next;
    free(c);
    c = nc;
  }
  pthread_mutex_destroy(&m->mu);
  free(m);
}

static int valid_name(const char *s) {
  if (!s || !*s || !(isalpha((unsigned char)*s) || *s == '_' || *s == ':')) return 0;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == ':')) return 0;
  return 1;
}

static eg_metric *family_new(eg_metrics *m, metric_type type, const char *name, const char *help,
                             const char *labels) {
  if (!valid_name(name)) {
    EG_ERROR("metrics", "invalid metric name", "name=%s", name ? name : "(null)");
    return NULL;
  }
  eg_metric *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->type = type;
  f->name = strdup(name);
  f->help = strdup(help ? help : "");
  f->tail = &f->series;
  pthread_mutex_init(&f->mu, NULL);
  if (labels && *labels) {
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", labels);
    char *save = NULL;
    for (char *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      if (f->n_labels == MAX_LABELS || !valid_name(t)) {
        EG_ERROR("metrics", "invalid labels", "name=%s", name);
        goto fail;
      }
      f->labels[f->n_labels++] = strdup(t);
    }
  }
  pthread_mutex_lock(&m->mu);
  for (eg_metric *o = m->families; o; o = o->next) {
    if (strcmp(o->name, name) == 0) {
      pthread_mutex_unlock(&m->mu);
      EG_ERROR("metrics", "duplicate metric name", "name=%s", name);
      goto fail;
    }
  }
  *m->tail = f;
  m->tail = &f->next;
  pthread_mutex_unlock(&m->mu);
  return f;
fail:
  for (size_t i = 0; i < f->n_labels; i++) free(f->labels[i]);
  free(f->name);
  free(f->help);
  pthread_mutex_destroy(&f->mu);
  free(f);
  return NULL;
}

eg_metric *eg_metrics_counter(eg_metrics *m, const char *name, const char *help,
                              const char *labels) {
  return family_new(m, M_COUNTER, name, help, labels);
}

eg_metric *eg_metrics_gauge(eg_metrics *m, const char *name, const char *help, const char *labels) {
  return family_new(m, M_GAUGE, name, help, labels);
}

eg_metric *eg_metrics_histogram(eg_metrics *m, const char *name, const char *help,
                                const char *labels, const double *bounds, size_t n_bounds) {
  if (!bounds) {
    bounds = default_bounds;
    n_bounds = sizeof default_bounds / sizeof *default_bounds;
  }
  for (size_t i = 1; i < n_bounds; i++) {
    if (!(bounds[i] > bounds[i - 1])) {
      EG_ERROR("metrics", "histogram bounds not ascending", "name=%s", name);
      return NULL;
    }
  }
  eg_metric *f = family_new(m, M_HISTOGRAM, name, help, labels);
  if (!f) return NULL;
  f->bounds = malloc(n_bounds * sizeof *bounds);
  if (f->bounds) memcpy(f->bounds, bounds, n_bounds * sizeof *bounds);
  f->n_bounds = n_bounds;
  return f;
}

void eg_metrics_gauge_fn(eg_metrics *m, const char *name, const char *help, double (*fn)(void *),
                         void *arg) {
  eg_metric *f = family_new(m, M_GAUGE_FN, name, help, NULL);
  if (!f) return;
  f->fn = fn;
  f->fn_arg = arg;
}

void eg_metrics_collector(eg_metrics *m, void (*fn)(void *, eg_buf *), void *arg) {
  collector *c = calloc(1, sizeof *c);
  if (!c) return;
  c->fn = fn;
  c->arg = arg;
  pthread_mutex_lock(&m->mu);
  c->next = m->collectors;
  m->collectors = c;
  pthread_mutex_unlock(&m->mu);
}

eg_series *eg_metric_series(eg_metric *f, const char *const *values, size_t n_values) {
  if (!f || n_values != f->n_labels) return NULL;
  pthread_mutex_lock(&f->mu);
  eg_series *s;
  for (s = f->series; s; s = s->next) {
    size_t i = 0;
    while (i < n_values && strcmp(s->values[i], values[i]) == 0) i++;
    if (i == n_values) goto done;
  }
  s = calloc(1, sizeof *s);
  if (!s) goto done;
  s->family = f;
  for (size_t i = 0; i < n_values; i++) s->values[i] = strdup(values[i] ? values[i] : "");
  if (f->type == M_HISTOGRAM) s->buckets = calloc(f->n_bounds + 1, sizeof *s->buckets);
  *f->tail = s;
  f->tail = &s->next;
done:
  pthread_mutex_unlock(&f->mu);
  return s;
}

eg_series *eg_metric_solo(eg_metric *f) { return eg_metric_series(f, NULL, 0); }

void eg_series_add(eg_series *s, double v) {
  if (!s) return;
  pthread_mutex_lock(&s->family->mu);
  s->value += v;
  pthread_mutex_unlock(&s->family->mu);
}

void eg_series_set(eg_series *s, double v) {
  if (!s) return;
  pthread_mutex_lock(&s->family->mu);
  s->value = v;
  pthread_mutex_unlock(&s->family->mu);
}

void eg_series_observe(eg_series *s, double v) {
  if (!s || !s->buckets) return;
  eg_metric *f = s->family;
  size_t i = 0;
  while (i < f->n_bounds && v > f->bounds[i]) i++;
  pthread_mutex_lock(&f->mu);
  s->buckets[i] += 1;
  s->sum += v;
  s->count += 1;
  pthread_mutex_unlock(&f->mu);
}

double eg_series_value(eg_series *s) {
  if (!s) return 0;
  pthread_mutex_lock(&s->family->mu);
  double v = s->family->type == M_HISTOGRAM ? s->count : s->value;
  pthread_mutex_unlock(&s->family->mu);
  return v;
}

static void put_escaped(eg_buf *out, const char *s, int is_help) {
  for (; *s; s++) {
    if (*s == '\\')
      eg_buf_puts(out, "\\\\");
    else if (*s == '\n')
      eg_buf_puts(out, "\\n");
    else if (*s == '"' && !is_help)
      eg_buf_puts(out, "\\\"");
    else
      eg_buf_append(out, s, 1);
  }
}

/* The shortest text that reads back as v, as Prometheus's own clients write numbers:
 * bucket bounds must be le="0.1", not le="0.10000000000000001", for a query matching
 * le="0.1" to find them. Plain decimals from 1e-4 up to 1e21, exponent form beyond. */
void eg_metrics_format_number(double v, char *out, size_t len) {
  if (isinf(v)) {
    snprintf(out, len, "%s", v > 0 ? "+Inf" : "-Inf");
    return;
  }
  if (isnan(v)) {
    snprintf(out, len, "NaN");
    return;
  }
  if (v == 0) {
    snprintf(out, len, "0");
    return;
  }
  char e[40];
  int digits = 1;
  for (; digits < 17; digits++) {
    snprintf(e, sizeof e, "%.*e", digits - 1, v);
    if (strtod(e, NULL) == v) break;
  }
  snprintf(e, sizeof e, "%.*e", digits - 1, v);
  int exp = atoi(strchr(e, 'e') + 1);
  if (exp < -4 || exp >= 21) {
    snprintf(out, len, "%s", e);
    return;
  }
  int decimals = digits - 1 - exp;
  snprintf(out, len, "%.*f", decimals > 0 ? decimals : 0, v);
}

static void put_number(eg_buf *out, double v) {
  char text[48];
  eg_metrics_format_number(v, text, sizeof text);
  eg_buf_puts(out, text);
}

/* name{l1="v1",…,extra_name="extra"} */
static void put_labels(eg_buf *out, const eg_metric *f, const eg_series *s, const char *extra_name,
                       const char *extra) {
  if (!f->n_labels && !extra_name) return;
  eg_buf_puts(out, "{");
  for (size_t i = 0; i < f->n_labels; i++) {
    eg_buf_printf(out, "%s%s=\"", i ? "," : "", f->labels[i]);
    put_escaped(out, s->values[i], 0);
    eg_buf_puts(out, "\"");
  }
  if (extra_name) eg_buf_printf(out, "%s%s=\"%s\"", f->n_labels ? "," : "", extra_name, extra);
  eg_buf_puts(out, "}");
}

static void render_family(eg_metric *f, eg_buf *out) {
  static const char *type_names[] = {"counter", "gauge", "histogram", "gauge"};
  double fn_value = 0;
  if (f->type == M_GAUGE_FN) fn_value = f->fn(f->fn_arg);
  eg_buf_printf(out, "# HELP %s ", f->name);
  put_escaped(out, f->help, 1);
  eg_buf_printf(out, "\n# TYPE %s %s\n", f->name, type_names[f->type]);
  if (f->type == M_GAUGE_FN) {
    eg_buf_printf(out, "%s ", f->name);
    put_number(out, fn_value);
    eg_buf_puts(out, "\n");
    return;
  }
  pthread_mutex_lock(&f->mu);
  for (eg_series *s = f->series; s; s = s->next) {
    if (f->type != M_HISTOGRAM) {
      eg_buf_puts(out, f->name);
      put_labels(out, f, s, NULL, NULL);
      eg_buf_puts(out, " ");
      put_number(out, s->value);
      eg_buf_puts(out, "\n");
      continue;
    }
    double cum = 0;
    for (size_t i = 0; i <= f->n_bounds; i++) {
      char le[48];
      cum += s->buckets[i];
      eg_metrics_format_number(i < f->n_bounds ? f->bounds[i] : INFINITY, le, sizeof le);
      eg_buf_printf(out, "%s_bucket", f->name);
      put_labels(out, f, s, "le", le);
      eg_buf_puts(out, " ");
      put_number(out, cum);
      eg_buf_puts(out, "\n");
    }
    eg_buf_printf(out, "%s_sum", f->name);
    put_labels(out, f, s, NULL, NULL);
    eg_buf_puts(out, " ");
    put_number(out, s->sum);
    eg_buf_printf(out, "\n%s_count", f->name);
    put_labels(out, f, s, NULL, NULL);
    eg_buf_puts(out, " ");
    put_number(out, s->count);
    eg_buf_puts(out, "\n");
  }
  pthread_mutex_unlock(&f->mu);
}

eg_code eg_metrics_render(eg_metrics *m, eg_buf *out) {
  /* Families are only ever appended, so the list can be walked after reading its head. */
  pthread_mutex_lock(&m->mu);
  eg_metric *first = m->families;
  collector *cs = m->collectors;
  pthread_mutex_unlock(&m->mu);
  for (eg_metric *f = first; f; f = f->next) render_family(f, out);
  for (collector *c = cs; c; c = c->next) c->fn(c->arg, out);
  return EG_OK;
}

/* ---- HTTP endpoint ---------------------------------------------------------------- */

struct eg_metrics_http {
  eg_httpd *httpd;
  eg_metrics *m;
};

static void on_request(void *ctx, const eg_http_req *req, eg_http_resp *resp) {
  eg_metrics_http *h = ctx;
  if (strcmp(eg_http_req_path(req), "/metrics") != 0) {
    static const char msg[] = "not found: try /metrics\n";
    resp->status = 404;
    resp->static_body = msg;
    resp->static_len = sizeof msg - 1;
    return;
  }
  eg_metrics_render(h->m, &resp->body);
  resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
}

eg_code eg_split_hostport(const char *addr, char *host, size_t host_len, int *port, eg_err *err) {
  const char *colon;
  const char *h = addr;
  size_t hl;
  if (!addr || !*addr) return eg_err_set(err, EG_EINVAL, "empty address");
  if (addr[0] == '[') {
    const char *rb = strchr(addr, ']');
    if (!rb || rb[1] != ':') return eg_err_set(err, EG_EINVAL, "bad address '%.64s'", addr);
    h = addr + 1;
    hl = (size_t)(rb - h);
    colon = rb + 1;
  } else {
    colon = strrchr(addr, ':');
    if (!colon) return eg_err_set(err, EG_EINVAL, "address '%.64s' has no port", addr);
    hl = (size_t)(colon - addr);
  }
  char *end;
  long p = strtol(colon + 1, &end, 10);
  if (end == colon + 1 || *end || p < 0 || p > 65535)
    return eg_err_set(err, EG_EINVAL, "bad port in address '%.64s'", addr);
  if (hl >= host_len) return eg_err_set(err, EG_EINVAL, "host too long in '%.64s'", addr);
  memcpy(host, h, hl);
  host[hl] = '\0';
  *port = (int)p;
  return EG_OK;
}

eg_code eg_metrics_http_start(eg_metrics *m, const char *addr, eg_metrics_http **out, eg_err *err) {
  return eg_metrics_https_start(m, addr, NULL, NULL, out, err);
}

eg_code eg_metrics_https_start(eg_metrics *m, const char *addr, const char *cert_pem,
                               const char *key_pem, eg_metrics_http **out, eg_err *err) {
  eg_metrics_http *h = calloc(1, sizeof *h);
  if (!h) return eg_err_set(err, EG_ENOMEM, "out of memory");
  h->m = m;
  eg_httpd_opts o = {.name = "metrics",
                     .addr = addr,
                     .cert_pem = cert_pem,
                     .key_pem = key_pem,
                     .handler = on_request,
                     .ctx = h};
  eg_code rc = eg_httpd_start(&o, &h->httpd, err);
  if (rc) {
    free(h);
    return rc;
  }
  *out = h;
  return EG_OK;
}

int eg_metrics_http_port(const eg_metrics_http *h) { return eg_httpd_port(h->httpd); }

void eg_metrics_http_stop(eg_metrics_http *h) {
  if (!h) return;
  eg_httpd_stop(h->httpd);
  free(h);
}
