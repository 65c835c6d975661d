/*
 * perf.c — `engram-bench perf`: ingest throughput and Recall latency through all four daemons on
 * loopback, for bench/RESULTS.md: the haystack sessions of the first N LongMemEval-S questions are
 * ingested into one tenant (one user per question) through ingestd, then `clients`
 * threads ask the questions (each as its user, at its question date) for `calls` Recalls
 * in all. Prints p50/p99 of the whole call and of each stage, and — as a sanity figure, not
 * the quality benchmark — how often a session holding the answer is among the items.
 * calls defaults to one pass over the questions: a second pass would find every query
 * vector in vectord's cache, which real traffic does not. The CPU each daemon spent during
 * the Recalls (user + system, from /proc/<pid>/stat) is printed per Recall.
 *
 *   build/engram-bench perf [questions=301] [embedder=glove] [clients=16] [calls=questions]
 * [data=…]
 */
#include "bench/perf.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/haystack.h"
#include "common/buf.h"
#include "common/cfg.h"
#include "common/log.h"
#include "common/recall_client.h"
#include "common/time.h"
#include "tests/testlib.h"

enum { MAX_STAGES = 8 };

typedef struct question {
  char *id, *text;
  int64_t at;
  char **answers; /* answer session ids */
  size_t n_answers;
} question;

typedef struct run {
  question *q;
  size_t n_q, max_q;
  eg_rpc_client *c;
  atomic_long next;
  long calls;
  int64_t *lat;                   /* per call, µs */
  int64_t *stage_lat[MAX_STAGES]; /* per call and stage */
  char stage_names[MAX_STAGES][24];
  atomic_int n_stages;
  atomic_long hits, failed, nothing, tokens;
  pthread_mutex_t mu;
} run;

static bool take_question(const cJSON *rec, void *ctx) {
  run *r = ctx;
  question *q = &r->q[r->n_q];
  q->id = strdup(cJSON_GetObjectItem(rec, "question_id")->valuestring);
  q->text = strdup(cJSON_GetObjectItem(rec, "question")->valuestring);
  q->at = eg_lme_time(cJSON_GetObjectItem(rec, "question_date")->valuestring);
  const cJSON *ans = cJSON_GetObjectItem(rec, "answer_session_ids");
  q->n_answers = (size_t)cJSON_GetArraySize(ans);
  q->answers = calloc(q->n_answers ? q->n_answers : 1, sizeof *q->answers);
  size_t i = 0;
  for (const cJSON *a = ans ? ans->child : NULL; a; a = a->next)
    q->answers[i++] = strdup(a->valuestring);
  return ++r->n_q < r->max_q;
}

static int stage_index(run *r, const char *name) {
  pthread_mutex_lock(&r->mu);
  int n = atomic_load(&r->n_stages), i = 0;
  while (i < n && strcmp(r->stage_names[i], name) != 0) i++;
  if (i == n && n < MAX_STAGES) {
    snprintf(r->stage_names[i], sizeof r->stage_names[i], "%s", name);
    atomic_store(&r->n_stages, n + 1);
  }
  pthread_mutex_unlock(&r->mu);
  return i < MAX_STAGES ? i : -1;
}

static void *client(void *arg) {
  run *r = arg;
  for (long i; (i = atomic_fetch_add(&r->next, 1)) < r->calls;) {
    const question *q = &r->q[(size_t)i % r->n_q];
    Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
    scope.tenant = "bench";
    scope.user = q->id;
    Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
    req.scope = &scope;
    req.query = q->text;
    req.query_time = q->at;
    req.k = 10;
    Engram__V1__RecallResponse *m = NULL;
    eg_err e;
    int64_t t0 = eg_time_mono_us();
    eg_code rc = eg_recalld_recall(r->c, &req, &m, &e);
    r->lat[i] = eg_time_mono_us() - t0;
    if (rc) {
      if (atomic_fetch_add(&r->failed, 1) == 0)
        fprintf(stderr, "recall: %s: %s\n", eg_code_name(rc), e.msg);
      continue;
    }
    Engram__V1__RecallResponse *resp = m;
    for (size_t s = 0; s < resp->n_timings; s++) {
      int k = stage_index(r, resp->timings[s]->stage);
      if (k >= 0) r->stage_lat[k][i] = resp->timings[s]->micros;
    }
    bool hit = false;
    for (size_t it = 0; it < resp->n_items && !hit; it++)
      for (size_t a = 0; a < q->n_answers && !hit; a++)
        hit =
            resp->items[it]->session_id && strcmp(resp->items[it]->session_id, q->answers[a]) == 0;
    atomic_fetch_add(&r->hits, hit);
    atomic_fetch_add(&r->nothing, resp->nothing_relevant);
    atomic_fetch_add(&r->tokens, resp->context_tokens);
    protobuf_c_message_free_unpacked(&m->base, NULL);
  }
  return NULL;
}

/* CPU time (user + system) a process has used so far, in ms; -1 when unreadable. */
static double cpu_ms(pid_t pid) {
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *got = fgets(line, sizeof line, f);
  fclose(f);
  /* fields after the command's closing parenthesis: 3 state … 14 utime 15 stime */
  const char *p = got ? strrchr(line, ')') : NULL;
  unsigned long long ut, st;
  if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
    return -1;
  return (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

/* The RPCs a daemon has served so far, per method (grpc_server_handled_total summed over
 * the status codes). */
enum { MAX_METHODS = 24 };
typedef struct rpc_counts {
  char method[MAX_METHODS][32];
  double n[MAX_METHODS];
  int count;
} rpc_counts;

static void served(int metrics_port, rpc_counts *rc) {
  static const char name[] = "grpc_server_handled_total{";
  eg_buf b = EG_BUF_INIT;
  memset(rc, 0, sizeof *rc);
  if (eg_http_get(metrics_port, "/metrics", &b) != 200 || eg_buf_append(&b, "", 1)) {
    eg_buf_free(&b);
    return;
  }
  for (const char *p = b.data; (p = strstr(p, name)) != NULL; p++) {
    const char *m = strstr(p, "grpc_method=\""), *end = strchr(p, '}');
    if (!m || !end || m > end) continue;
    m += strlen("grpc_method=\"");
    size_t len = strcspn(m, "\"");
    int i = 0;
    while (i < rc->count && (strlen(rc->method[i]) != len || strncmp(rc->method[i], m, len))) i++;
    if (i == MAX_METHODS || len >= sizeof rc->method[i]) continue;
    if (i == rc->count)
      snprintf(rc->method[rc->count++], sizeof rc->method[i], "%.*s", (int)len, m);
    rc->n[i] += strtod(end + 1, NULL);
  }
  eg_buf_free(&b);
}

/* "daemon: Method n.nn, …" of the calls served between before and after, per Recall. */
static void print_served(const char *daemon, const rpc_counts *before, const rpc_counts *after,
                         long calls) {
  bool any = false;
  for (int i = 0; i < after->count; i++) {
    double n = after->n[i];
    for (int j = 0; j < before->count; j++)
      if (!strcmp(before->method[j], after->method[i])) n -= before->n[j];
    if (n <= 0 || !strcmp(after->method[i], "Check")) continue;
    printf("%s%s %.2f", any ? ", " : daemon, after->method[i], n / (double)calls);
    any = true;
  }
  if (any) printf("; ");
}

static void pct(const char *what, int64_t *v, long n) {
  eg_sort_i64(v, (size_t)n);
  printf("%-44s p50 %8.2f ms  p99 %8.2f ms\n", what, (double)v[n / 2] / 1000.0,
         (double)v[n * 99 / 100] / 1000.0);
}

int eg_bperf_main(int argc, char **argv) {
  int64_t questions = 301, clients = 16, calls = 0;
  const char *embedder = argc > 2 ? argv[2] : "glove";
  const char *data = argc > 5 ? argv[5] : EG_LME_DEFAULT;
  if ((argc > 1 && !eg_cfg_int_in(argv[1], 1, 100000, &questions)) ||
      (argc > 3 && !eg_cfg_int_in(argv[3], 1, 256, &clients)) ||
      (argc > 4 && !eg_cfg_int_in(argv[4], 1, 10000000, &calls))) {
    fprintf(stderr,
            "usage: engram-bench perf [questions 1..100000] [embedder] [clients 1..256] [calls "
            "1..10000000] [data]\n");
    return 2;
  }
  if (!calls) calls = questions;
  eg_log_init("bench", EG_LOG_WARN);
  run r = {.max_q = (size_t)questions, .calls = calls};
  r.q = calloc((size_t)questions, sizeof *r.q);
  if (eg_lme_each(data, take_question, &r) < 0) {
    fprintf(stderr, "cannot read %s\n", data);
    return 1;
  }
  /* a few haystack messages exceed max_text_bytes (64 KiB) and are refused: counted */
  eg_haystack h;
  if (eg_haystack_load(data, questions, embedder, 4, 1.0, &h)) return 1;
  eg_err e;
  eg_rpc_client_opts co = {.timeout_us = 60 * 1000000LL};
  if (eg_rpc_client_open(h.cl.d[EG_RECALLD].addr, &co, &r.c, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  printf(
      "recall benchmark: tenant of %llu chunks (%zu questions' haystacks, %ld sessions, one user "
      "each), "
      "embedder %s, ingested in %.1f s (%llu sessions refused as too large); %d clients, %ld "
      "Recalls (k=10)\n",
      (unsigned long long)h.ingest.chunks, r.n_q, h.written.sessions, embedder, h.ingest.seconds,
      (unsigned long long)h.ingest.failed, (int)clients, (long)calls);
  printf("%-44s %.2fM tokens/min (%llu tokens, 4 in flight)\n", "ingest through ingestd",
         h.ingest.seconds > 0 ? (double)h.ingest.tokens / h.ingest.seconds * 60 / 1e6 : 0,
         (unsigned long long)h.ingest.tokens);
  r.lat = calloc((size_t)calls, sizeof *r.lat);
  for (int s = 0; s < MAX_STAGES; s++) r.stage_lat[s] = calloc((size_t)calls, sizeof(int64_t));
  pthread_mutex_init(&r.mu, NULL);
  pthread_t th[256];
  double cpu0[EG_N_DAEMONS];
  static rpc_counts rpc0[EG_N_DAEMONS], rpc1[EG_N_DAEMONS];
  for (int d = 0; d < EG_N_DAEMONS; d++) served(h.cl.d[d].metrics_port, &rpc0[d]);
  for (int d = 0; d < EG_N_DAEMONS; d++) cpu0[d] = cpu_ms(h.cl.d[d].pid);
  int64_t t0 = eg_time_mono_us();
  for (int i = 0; i < clients; i++) pthread_create(&th[i], NULL, client, &r);
  for (int i = 0; i < clients; i++) pthread_join(th[i], NULL);
  double secs = (double)(eg_time_mono_us() - t0) / 1e6;
  double cpu[EG_N_DAEMONS], cpu_all = 0;
  for (int d = 0; d < EG_N_DAEMONS; d++) {
    cpu[d] = cpu_ms(h.cl.d[d].pid) - cpu0[d];
    cpu_all += cpu[d];
  }
  for (int d = 0; d < EG_N_DAEMONS; d++) served(h.cl.d[d].metrics_port, &rpc1[d]);
  printf("%-44s %.0f Recalls/s, %ld failed\n", "throughput", (double)calls / secs,
         atomic_load(&r.failed));
  pct("Recall, end to end (client-side)", r.lat, calls);
  for (int s = 0; s < atomic_load(&r.n_stages); s++) {
    char what[64];
    snprintf(what, sizeof what, "  stage %s (server-side)", r.stage_names[s]);
    pct(what, r.stage_lat[s], calls);
  }
  printf("%-44s %.2f ms (", "CPU per Recall, the four daemons", cpu_all / (double)calls);
  for (int d = 0; d < EG_N_DAEMONS; d++)
    printf("%s%s %.2f", d ? ", " : "", eg_daemon_names[d], cpu[d] / (double)calls);
  printf("; clock tick %ld/s)\n", sysconf(_SC_CLK_TCK));
  printf("%-44s ", "RPCs served per Recall");
  for (int d = 0; d < EG_N_DAEMONS; d++) {
    char who[32];
    snprintf(who, sizeof who, "%s: ", eg_daemon_names[d]);
    print_served(who, &rpc0[d], &rpc1[d], calls);
  }
  printf("\n");
  printf("%-44s %.1f%%\n", "an answer session among the items",
         100.0 * (double)atomic_load(&r.hits) / (double)calls);
  printf("%-44s %.1f%%\n", "nothing relevant flagged",
         100.0 * (double)atomic_load(&r.nothing) / (double)calls);
  printf("%-44s %.0f\n", "context tokens per Recall (mean)",
         (double)atomic_load(&r.tokens) / (double)calls);
  eg_rpc_client_close(r.c);
  eg_cluster_stop(&h.cl, false);
  return 0;
}
