/* test_metrics.c — exposition text, histogram buckets, escaping, promtool, HTTP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/metrics.h"
#include "tests/harness.h"
#include "tests/testlib.h"

static double seven(void *arg) {
  (void)arg;
  return 7;
}

static eg_metrics *sample(void) {
  eg_metrics *m = eg_metrics_new();
  eg_metric *c = eg_metrics_counter(m, "engram_test_requests_total", "Requests.", "method,code");
  const char *v1[2] = {"Graph/State", "OK"};
  const char *v2[2] = {"Graph/State", "INVALID_ARGUMENT"};
  eg_series_add(eg_metric_series(c, v1, 2), 3);
  eg_series_add(eg_metric_series(c, v1, 2), 2);
  eg_series_add(eg_metric_series(c, v2, 2), 1);
  const char *v3[2] = {"line\none", "\\"};
  eg_series_add(eg_metric_series(c, v3, 2), 0.1 + 0.2);
  eg_metric *g = eg_metrics_gauge(m, "engram_test_queue_depth", "Queue \"depth\"\nnow.", NULL);
  eg_series_set(eg_metric_solo(g), 12);
  eg_series_add(eg_metric_solo(g), -2);
  static const double bounds[] = {0.001, 0.01, 0.1};
  eg_metric *h =
      eg_metrics_histogram(m, "engram_test_duration_seconds", "Latency.", "method", bounds, 3);
  const char *hv[1] = {"a\"b\\c"};
  eg_series *hs = eg_metric_series(h, hv, 1);
  eg_series_observe(hs, 0.0005);
  eg_series_observe(hs, 0.001); /* le is inclusive */
  eg_series_observe(hs, 0.05);
  eg_series_observe(hs, 3);
  eg_metrics_gauge_fn(m, "engram_test_seven", "Seven.", seven, NULL);
  return m;
}

static void test_render(void) {
  eg_metrics *m = sample();
  eg_buf b = EG_BUF_INIT;
  eg_metrics_render(m, &b);
  const char *t = b.data;
  EG_REQUIRE(t != NULL);
  EG_CHECK(strstr(t, "# TYPE engram_test_requests_total counter\n") != NULL);
  EG_CHECK(strstr(t, "engram_test_requests_total{method=\"Graph/State\",code=\"OK\"} 5\n"));
  EG_CHECK(strstr(
      t, "engram_test_requests_total{method=\"Graph/State\",code=\"INVALID_ARGUMENT\"} 1\n"));
  EG_CHECK(strstr(t, "# HELP engram_test_queue_depth Queue \"depth\"\\nnow.\n") != NULL);
  EG_CHECK(strstr(t, "engram_test_queue_depth 10\n") != NULL);
  EG_CHECK(
      strstr(t, "engram_test_duration_seconds_bucket{method=\"a\\\"b\\\\c\",le=\"0.001\"} 2\n"));
  EG_CHECK(
      strstr(t, "engram_test_duration_seconds_bucket{method=\"a\\\"b\\\\c\",le=\"0.01\"} 2\n"));
  EG_CHECK(strstr(t, "engram_test_duration_seconds_bucket{method=\"a\\\"b\\\\c\",le=\"0.1\"} 3\n"));
  EG_CHECK(
      strstr(t, "engram_test_duration_seconds_bucket{method=\"a\\\"b\\\\c\",le=\"+Inf\"} 4\n"));
  EG_CHECK(strstr(t, "engram_test_duration_seconds_count{method=\"a\\\"b\\\\c\"} 4\n"));
  EG_CHECK(strstr(t, "engram_test_duration_seconds_sum{method=\"a\\\"b\\\\c\"} 3.0515\n"));
  EG_CHECK(strstr(t, "engram_test_seven 7\n") != NULL);
  /* a newline and a backslash in a label value are escaped; a sum keeps every digit */
  EG_CHECK(strstr(
      t, "engram_test_requests_total{method=\"line\\none\",code=\"\\\\\"} 0.30000000000000004\n"));
  eg_buf_free(&b);
  eg_metrics_free(m);
}

/* Numbers as Prometheus's own clients write them: the shortest text that reads back. */
static void test_number_format(void) {
  static const struct {
    double v;
    const char *text;
  } cases[] = {{0, "0"},
               {1, "1"},
               {10, "10"},
               {2.5, "2.5"},
               {0.005, "0.005"},
               {0.1, "0.1"},
               {0.025, "0.025"},
               {-3, "-3"},
               {5e-05, "5e-05"},
               {0.0001, "0.0001"},
               {123456789, "123456789"},
               {1e21, "1e+21"},
               {0.1 + 0.2, "0.30000000000000004"},
               {1.0 / 3, "0.3333333333333333"},
               {4503599627370497, "4503599627370497"}};
  char text[32];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    eg_metrics_format_number(cases[i].v, text, sizeof text);
    EG_CHECK_STR(text, cases[i].text);
    EG_CHECK(strtod(text, NULL) == cases[i].v);
  }
  eg_metrics_format_number(INFINITY, text, sizeof text);
  EG_CHECK_STR(text, "+Inf");
  eg_metrics_format_number(-INFINITY, text, sizeof text);
  EG_CHECK_STR(text, "-Inf");
  eg_metrics_format_number(NAN, text, sizeof text);
  EG_CHECK_STR(text, "NaN");
  eg_metrics_format_number(-1.7976931348623157e308, text, sizeof text); /* the longest */
  EG_CHECK_STR(text, "-1.7976931348623157e+308");
}

/* A histogram with the Prometheus default buckets renders each bound as written. */
static void test_standard_buckets(void) {
  static const double def[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  static const char *const le[] = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
                                   "0.5",   "1",    "2.5",   "5",    "10",  "+Inf"};
  eg_metrics *m = eg_metrics_new();
  eg_metric *h = eg_metrics_histogram(m, "x_seconds", "X.", NULL, def, 11);
  eg_series *s = eg_metric_solo(h);
  eg_series_observe(s, 0.004); /* first bucket */
  eg_series_observe(s, 0.1);   /* exactly on a bound: in it */
  eg_series_observe(s, 11);    /* only +Inf */
  eg_buf b = EG_BUF_INIT;
  eg_metrics_render(m, &b);
  for (size_t i = 0; i < 12; i++) {
    char want[64];
    snprintf(want, sizeof want, "x_seconds_bucket{le=\"%s\"} %d\n", le[i],
             i < 4    ? 1
             : i < 11 ? 2
                      : 3);
    EG_CHECK(strstr(b.data, want) != NULL);
  }
  EG_CHECK(strstr(b.data, "x_seconds_sum 11.104\n") != NULL);
  EG_CHECK(strstr(b.data, "x_seconds_count 3\n") != NULL);
  eg_buf_free(&b);
  eg_metrics_free(m);
}

static void test_invalid(void) {
  eg_metrics *m = eg_metrics_new();
  EG_CHECK(eg_metrics_counter(m, "bad-name", "x", NULL) == NULL);
  EG_CHECK(eg_metrics_counter(m, "ok_total", "x", "bad-label") == NULL);
  EG_CHECK(eg_metrics_counter(m, "ok_total", "x", NULL) != NULL);
  EG_CHECK(eg_metrics_counter(m, "ok_total", "x", NULL) == NULL); /* duplicate */
  eg_metric *c = eg_metrics_counter(m, "two_total", "x", "a,b");
  const char *one[1] = {"x"};
  EG_CHECK(eg_metric_series(c, one, 1) == NULL); /* wrong count */
  static const double desc[] = {1, 0.5};
  EG_CHECK(eg_metrics_histogram(m, "h_seconds", "x", NULL, desc, 2) == NULL);
  eg_metrics_free(m);
}

/* The exposition must pass `promtool check metrics` (Prometheus's own linter). */
static void test_promtool(void) {
  eg_metrics *m = sample();
  eg_buf b = EG_BUF_INIT;
  eg_metrics_render(m, &b);
  char path[] = "/tmp/engram-metrics-XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  fwrite(b.data, 1, b.len, f);
  fclose(f);
  int rc = eg_test_system("promtool check metrics < %s", path);
  EG_CHECK_INT(rc, 0);
  remove(path);
  eg_buf_free(&b);
  eg_metrics_free(m);
}

static void test_http(void) {
  eg_metrics *m = sample();
  eg_metrics_http *h;
  eg_err e;
  EG_REQUIRE(eg_metrics_http_start(m, "127.0.0.1:0", &h, &e) == EG_OK);
  int port = eg_metrics_http_port(h);
  EG_CHECK(port > 0);
  eg_buf body = EG_BUF_INIT;
  EG_CHECK_INT(eg_http_get(port, "/metrics", &body), 200);
  EG_CHECK(body.data && strstr(body.data, "engram_test_seven 7") != NULL);
  eg_buf_reset(&body);
  EG_CHECK_INT(eg_http_get(port, "/other", &body), 404);
  eg_buf_free(&body);
  eg_metrics_http_stop(h);
  EG_CHECK_INT(eg_metrics_http_start(m, "nonsense", &h, &e), EG_EINVAL);
  eg_metrics_free(m);
}

int main(void) {
  EG_RUN(test_render);
  EG_RUN(test_number_format);
  EG_RUN(test_standard_buckets);
  EG_RUN(test_invalid);
  EG_RUN(test_promtool);
  EG_RUN(test_http);
  return eg_test_finish();
}
