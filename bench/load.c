/*
 * load.c — `engram-bench load`: many clients, mixed ingest and Recall, through all four
 * daemons with authentication on, for a fixed time; errors, latency and each daemon's
 * resident memory over the run.
 *
 * LongMemEval-S haystacks are the data: each question's sessions belong to its user, the
 * users spread over four tenants with a token each (the daemons call each other with a
 * service token). A preload ingests the first groups; then every client, for `seconds`,
 * either ingests the next session of a group (ingest_pct of its calls) or asks a Recall
 * of a group that has data — its question, or the opening of one of its user messages —
 * as that group's user, with its tenant's token. A sampler reads VmRSS of the four
 * daemons every second: the report gives the peak, and the RSS at a quarter, half and
 * the end of the run, so growth shows.
 *
 *   build/engram-bench load [seconds=60] [clients=64] [embedder=use-lite] [groups=24]
 *                           [ingest_pct=30] [data=…]
 */
#include "bench/load.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/dataset.h"
#include "bench/engine.h"
#include "bench/lme.h"
#include "common/auth.h"
#include "common/cfg.h"
#include "common/log.h"
#include "common/time.h"
#include "tests/harness.h"
#include "tests/testlib.h"

enum { TENANTS = 4, PRELOAD = 8, MAX_SAMPLES = 4096 };

typedef struct op_stats {
  int64_t *lat; /* µs per call, in order of completion */
  long n, cap;
  long errors;
  uint64_t retries;
  pthread_mutex_t mu;
} op_stats;

typedef struct load {
  eg_bdata d;
  eg_cluster cl;
  eg_rpc_client *ingestd[TENANTS], *recalld[TENANTS];
  char tenant[TENANTS][16];
  atomic_size_t *next_session; /* per group: the next session to ingest */
  atomic_size_t preload_next;  /* the next group a preload thread takes */
  int64_t until;
  int ingest_pct;
  op_stats ingest, recall;
  atomic_bool done;
  int64_t rss[EG_N_DAEMONS][MAX_SAMPLES]; /* kB, one per second */
  int n_samples;
  char first_error[300];
  pthread_mutex_t mu;
} load;

static void record(load *L, op_stats *s, int64_t us, eg_code rc, uint64_t retries,
                   const eg_err *e) {
  pthread_mutex_lock(&s->mu);
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 4096;
    s->lat = realloc(s->lat, (size_t)s->cap * sizeof *s->lat);
  }
  s->lat[s->n++] = us;
  s->retries += retries;
  if (rc) {
    s->errors++;
    pthread_mutex_lock(&L->mu);
    if (!L->first_error[0])
      snprintf(L->first_error, sizeof L->first_error, "%s: %s", eg_code_name(rc), e->msg);
    pthread_mutex_unlock(&L->mu);
  }
  pthread_mutex_unlock(&s->mu);
}

static eg_bengine engine_of(load *L, size_t group) {
  int t = (int)(group % TENANTS);
  return (eg_bengine){
      .ingestd = L->ingestd[t], .recalld = L->recalld[t], .tenant = L->tenant[t], .k = 10};
}

/* The next session of group g, ingested and timed; false when the group is complete. */
static bool ingest_next(load *L, size_t g) {
  size_t s = atomic_fetch_add(&L->next_session[g], 1);
  if (s >= L->d.g[g].ns) return false;
  eg_bengine e = engine_of(L, g);
  uint64_t retries = 0;
  eg_err err;
  int64_t t0 = eg_time_mono_us();
  eg_code rc = eg_bengine_ingest_session(&e, &L->d.g[g], &L->d.g[g].s[s], NULL, &retries, &err);
  if (rc == EG_EINVAL)
    rc = EG_OK; /* a message over the size limit: the refusal is the right answer */
  record(L, &L->ingest, eg_time_mono_us() - t0, rc, retries, &err);
  return true;
}

static void *preload(void *arg) {
  load *L = arg;
  for (size_t g; (g = atomic_fetch_add(&L->preload_next, 1)) < PRELOAD;)
    while (ingest_next(L, g)) {
    }
  return NULL;
}

/* Half the Recalls ask with the opening of a user message from one of the group's
 * ingested sessions (up to ~300 bytes, cut at a space), so queries vary as real traffic
 * does and vectord's query cache does not answer them all. */
static void ask_about_a_session(load *L, size_t g, unsigned *seed, char *buf, size_t len,
                                eg_bquestion *q) {
  const eg_bgroup *grp = &L->d.g[g];
  size_t done = atomic_load(&L->next_session[g]);
  if (done > grp->ns) done = grp->ns;
  if (!done) return;
  const eg_bsession *s = &grp->s[(size_t)rand_r(seed) % done];
  for (size_t i = 0; i < s->n; i++) {
    if (strcmp(s->m[i].role, "user") != 0) continue;
    snprintf(buf, len, "%s", s->m[i].content);
    char *cut = strlen(buf) == len - 1 ? strrchr(buf, ' ') : NULL;
    if (cut) *cut = 0;
    q->query = buf;
    q->at = s->time + 86400LL * EG_US_PER_SEC;
    return;
  }
}

static void *client(void *arg) {
  load *L = arg;
  unsigned seed = (unsigned)(uintptr_t)pthread_self() ^ (unsigned)eg_time_mono_us();
  while (eg_time_mono_us() < L->until) {
    if ((int)(rand_r(&seed) % 100) < L->ingest_pct) {
      ingest_next(L, PRELOAD + (size_t)rand_r(&seed) % (L->d.n - PRELOAD));
      continue;
    }
    /* a group with data: any preloaded one, or one the load has started */
    size_t g = (size_t)rand_r(&seed) % L->d.n;
    if (atomic_load(&L->next_session[g]) == 0) g %= PRELOAD;
    const eg_bgroup *grp = &L->d.g[g];
    if (!grp->nq) continue;
    eg_bengine e = engine_of(L, g);
    eg_bquestion asked = grp->q[rand_r(&seed) % grp->nq];
    char query[320];
    if (rand_r(&seed) % 2) ask_about_a_session(L, g, &seed, query, sizeof query, &asked);
    eg_brank rank;
    memset(&rank, 0, sizeof rank);
    eg_err err;
    int64_t t0 = eg_time_mono_us();
    eg_code rc = eg_bengine_recall(&e, grp, &asked, &rank, NULL, &err);
    record(L, &L->recall, eg_time_mono_us() - t0, rc, 0, &err);
    eg_brank_free(&rank);
  }
  return NULL;
}

static int64_t rss_kb(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  int64_t kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmRSS:", 6)) kb = atoll(line + 6);
  if (f) fclose(f);
  return kb;
}

static void *sampler(void *arg) {
  load *L = arg;
  while (!atomic_load(&L->done) && L->n_samples < MAX_SAMPLES) {
    for (int d = 0; d < EG_N_DAEMONS; d++) L->rss[d][L->n_samples] = rss_kb(L->cl.d[d].pid);
    L->n_samples++;
    usleep(1000000);
  }
  return NULL;
}

static void report_op(const char *what, op_stats *s, double secs) {
  eg_sort_i64(s->lat, (size_t)s->n);
  double p50 = s->n ? (double)s->lat[s->n / 2] / 1000 : 0,
         p99 = s->n ? (double)s->lat[s->n * 99 / 100] / 1000 : 0;
  printf("| %-7s | %7ld | %6.1f | %8.1f | %8.1f | %6ld | %7llu |\n", what, s->n,
         (double)s->n / secs, p50, p99, s->errors, (unsigned long long)s->retries);
}

/* Start the daemons with four tenants' tokens and a service token; clients per tenant. */
static int start(load *L, const char *embedder) {
  char lines[2048] = "", service[80], flag_tokens[2200], flag_service[100];
  size_t n = 0;
  char tokens[TENANTS][40];
  for (int t = 0; t < TENANTS; t++) {
    snprintf(L->tenant[t], sizeof L->tenant[t], "load%d", t);
    snprintf(tokens[t], sizeof tokens[t], "load-token-%d-%lld", t, (long long)eg_time_now_us());
    char digest[72];
    eg_auth_digest_line(tokens[t], digest);
    n += (size_t)snprintf(lines + n, sizeof lines - n, "%s %s;", L->tenant[t], digest);
  }
  snprintf(service, sizeof service, "load-service-%lld", (long long)eg_time_now_us());
  snprintf(flag_tokens, sizeof flag_tokens, "--auth-tokens=%s", lines);
  snprintf(flag_service, sizeof flag_service, "--service-token=%s", service);
  const char *extra[] = {flag_tokens, flag_service, NULL};
  eg_err e;
  /* only vectord has the embedder option and extra goes to every daemon: by environment */
  setenv("ENGRAM_EMBEDDER", embedder, 1);
  if (eg_cluster_start(&L->cl, extra, &e)) {
    fprintf(stderr, "cannot start the daemons: %s\n", e.msg);
    return -1;
  }
  eg_rpc_client_opts o = {.timeout_us = 120 * EG_US_PER_SEC};
  for (int t = 0; t < TENANTS; t++) {
    o.token = tokens[t];
    if (eg_rpc_client_open(L->cl.d[EG_INGESTD].addr, &o, &L->ingestd[t], &e) ||
        eg_rpc_client_open(L->cl.d[EG_RECALLD].addr, &o, &L->recalld[t], &e)) {
      fprintf(stderr, "%s\n", e.msg);
      return -1;
    }
  }
  return 0;
}

int eg_bload_main(int argc, char **argv) {
  int64_t seconds = 60, clients = 64, groups = 24, ingest_pct = 30;
  const char *embedder = argc > 3 ? argv[3] : "use-lite";
  const char *data = argc > 6 ? argv[6] : EG_LME_DEFAULT;
  if ((argc > 1 && !eg_cfg_int_in(argv[1], 5, 86400, &seconds)) ||
      (argc > 2 && !eg_cfg_int_in(argv[2], 1, 1024, &clients)) ||
      (argc > 4 && !eg_cfg_int_in(argv[4], PRELOAD + 1, 100000, &groups)) ||
      (argc > 5 && !eg_cfg_int_in(argv[5], 0, 100, &ingest_pct))) {
    fprintf(stderr,
            "usage: engram-bench load [seconds 5..86400] [clients 1..1024] [embedder] [groups "
            "%d..100000] "
            "[ingest_pct 0..100] [data]\n",
            PRELOAD + 1);
    return 2;
  }
  eg_log_init("bench", EG_LOG_WARN);
  static load L;
  pthread_mutex_init(&L.mu, NULL);
  pthread_mutex_init(&L.ingest.mu, NULL);
  pthread_mutex_init(&L.recall.mu, NULL);
  L.ingest_pct = ingest_pct;
  if (eg_bdata_load_lme(data, groups, NULL, &L.d)) return 1;
  L.next_session = calloc(L.d.n, sizeof *L.next_session);
  if (start(&L, embedder)) return 1;

  int64_t t0 = eg_time_mono_us();
  pthread_t pre[PRELOAD];
  for (int i = 0; i < PRELOAD; i++) pthread_create(&pre[i], NULL, preload, &L);
  for (int i = 0; i < PRELOAD; i++) pthread_join(pre[i], NULL);
  long preloaded = L.ingest.n;
  double pre_s = (double)(eg_time_mono_us() - t0) / 1e6;
  printf(
      "load: %d clients for %d s, %d%% ingest / %d%% Recall, embedder %s, %d tenants with tokens; "
      "preload: %ld sessions of %d groups in %.0f s (%ld errors)\n",
      (int)clients, (int)seconds, (int)ingest_pct, 100 - (int)ingest_pct, embedder, TENANTS,
      preloaded, PRELOAD, pre_s, L.ingest.errors);
  free(L.ingest.lat); /* the measured run starts afresh */
  L.ingest.lat = NULL;
  L.ingest.n = L.ingest.cap = L.ingest.errors = 0;
  L.ingest.retries = 0;

  pthread_t samp, *th = calloc((size_t)clients, sizeof *th);
  pthread_create(&samp, NULL, sampler, &L);
  int64_t start_us = eg_time_mono_us();
  L.until = start_us + (int64_t)seconds * EG_US_PER_SEC;
  for (int i = 0; i < clients; i++) pthread_create(&th[i], NULL, client, &L);
  for (int i = 0; i < clients; i++) pthread_join(th[i], NULL);
  double secs = (double)(eg_time_mono_us() - start_us) / 1e6;
  atomic_store(&L.done, true);
  pthread_join(samp, NULL);

  printf(
      "\n| call    |   calls |  per s | p50 (ms) | p99 (ms) | errors | retries "
      "|\n|---|---:|---:|---:|---:|---:|---:|\n");
  report_op("ingest", &L.ingest, secs);
  report_op("Recall", &L.recall, secs);
  if (L.first_error[0]) printf("\nfirst error: %s\n", L.first_error);
  printf(
      "\n| daemon  | peak RSS (MiB) | at 25%% | at 50%% | at 75%% | at end | end − 50%% "
      "|\n|---|---:|---:|---:|---:|---:|---:|\n");
  int n = L.n_samples;
  for (int d = 0; d < EG_N_DAEMONS; d++) {
    int64_t peak = 0;
    for (int i = 0; i < n; i++) peak = L.rss[d][i] > peak ? L.rss[d][i] : peak;
    double q1 = (double)L.rss[d][n / 4] / 1024, q2 = (double)L.rss[d][n / 2] / 1024,
           q3 = (double)L.rss[d][3 * n / 4] / 1024, end = (double)L.rss[d][n - 1] / 1024;
    printf("| %-7s | %14.0f | %6.0f | %6.0f | %6.0f | %6.0f | %+9.0f |\n", eg_daemon_names[d],
           (double)peak / 1024, q1, q2, q3, end, end - q2);
  }
  size_t ingested = 0;
  for (size_t g = 0; g < L.d.n; g++) {
    size_t k = atomic_load(&L.next_session[g]);
    ingested += k < L.d.g[g].ns ? k : L.d.g[g].ns;
  }
  printf("\nsessions ingested in all: %zu of %zu groups' haystacks\n", ingested, L.d.n);
  for (int t = 0; t < TENANTS; t++) {
    eg_rpc_client_close(L.ingestd[t]);
    eg_rpc_client_close(L.recalld[t]);
  }
  eg_cluster_stop(&L.cl, false);
  eg_bdata_free(&L.d);
  free(th);
  return L.ingest.errors + L.recall.errors ? 1 : 0;
}
