/*
 * bench_replog.c — graphd with the replicated log vs the single-node default
 * (deploy/REPLICATION.md), and writer failover time.
 *
 *   bench_replog [seconds per phase] [client threads] [kills]
 *
 * 1. single node: one graphd, no log; `threads` clients commit one new edge each per call
 *    for `seconds`: commits/s, commit latency p50/p99.
 * 2. replicated: the same against the writer of two replicas over a PostgreSQL log
 *    (fsync on, synchronous_commit on), on the same machine.
 *    Meanwhile the follower's lag (records, seconds) is sampled every 100 ms and its apply
 *    rate taken from its applied position.
 * 2b. quorum: the same over a PostgreSQL primary with two streaming standbys under
 *    synchronous_standby_names = 'ANY 1 (s1, s2)' (fsync off on those nodes: loopback).
 * 3. failover: three replicas, one client committing continuously; the writer is killed
 *    (SIGKILL) `kills` times: time from the kill to the first commit acknowledged by the
 *    new writer, p50 and max. The killed replica is restarted as a follower each time.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/time.h"
#include "tests/graph_helpers.h"
#include "tests/replicas.h"
#include "tests/testlib.h"

#define MAX_SAMPLES 2000000

typedef struct phase {
  const char *addr;
  int seconds;
  _Atomic long next; /* the next edge number */
  int64_t *lat;      /* µs per acknowledged commit */
  _Atomic long n_lat;
  _Atomic long errors;
} phase;

static void *client_main(void *arg) {
  phase *p = arg;
  eg_rpc_client *c = NULL;
  eg_err e;
  eg_rpc_client_opts o = {.timeout_us = 5 * EG_US_PER_SEC, .max_attempts = 1};
  if (eg_rpc_client_open(p->addr, &o, &c, &e)) return NULL;
  int64_t until = eg_time_mono_us() + (int64_t)p->seconds * EG_US_PER_SEC;
  while (eg_time_mono_us() < until) {
    long i = atomic_fetch_add(&p->next, 1);
    char subj[32], lit[32];
    snprintf(subj, sizeof subj, "person %ld", i % 5000);
    snprintf(lit, sizeof lit, "value %ld", i);
    eg_edge_spec s = {.subject = subj, .relation = "LIKES", .literal = lit};
    int64_t t0 = eg_time_mono_us();
    if (gc_commit(c, "bench", NULL, &s, &e)) {
      long k = atomic_fetch_add(&p->n_lat, 1);
      if (k < MAX_SAMPLES) p->lat[k] = eg_time_mono_us() - t0;
    } else {
      atomic_fetch_add(&p->errors, 1);
    }
  }
  eg_rpc_client_close(c);
  return NULL;
}

static void run_phase(const char *name, const char *addr, int seconds, int threads) {
  phase p = {.addr = addr, .seconds = seconds};
  p.lat = malloc(MAX_SAMPLES * sizeof *p.lat);
  pthread_t th[64];
  int64_t t0 = eg_time_mono_us();
  for (int i = 0; i < threads; i++) pthread_create(&th[i], NULL, client_main, &p);
  for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
  double secs = (double)(eg_time_mono_us() - t0) / 1e6;
  long n = atomic_load(&p.n_lat);
  if (n > MAX_SAMPLES) n = MAX_SAMPLES;
  eg_sort_i64(p.lat, (size_t)n);
  printf("%-12s %d clients %5.1f s: %8.0f commits/s  p50 %6.2f ms  p99 %6.2f ms  errors %ld\n",
         name, threads, secs, (double)n / secs, n ? (double)p.lat[n / 2] / 1000 : 0,
         n ? (double)p.lat[(size_t)((double)n * 0.99)] / 1000 : 0, atomic_load(&p.errors));
  fflush(stdout);
  free(p.lat);
}

/* ---- the follower under the load ----------------------------------------------------------- */

typedef struct lag_probe {
  eg_replicas *rs;
  int follower;
  _Atomic bool stop;
  double rec[4096], sec[4096];
  int n;
} lag_probe;

static void *lag_main(void *arg) {
  lag_probe *lp = arg;
  int port = lp->rs->r[lp->follower].metrics_port;
  while (!atomic_load(&lp->stop) && lp->n < 4096) {
    lp->rec[lp->n] = eg_metric_value(port, "engram_graphd_replication_lag_records");
    lp->sec[lp->n] = eg_metric_value(port, "engram_graphd_replication_lag_seconds");
    lp->n++;
    usleep(100000);
  }
  return NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The load phase against the writer of rs, the follower's lag sampled meanwhile. */
static void run_replicated(const char *name, eg_replicas *rs, int seconds, int threads) {
  int w = eg_replicas_writer(rs, 0), f = (w + 1) % rs->n;
  lag_probe *lp = calloc(1, sizeof *lp);
  lp->rs = rs;
  lp->follower = f;
  const char *seq = "engram_graphd_replication_applied_seq";
  double a0 = eg_metric_value(rs->r[f].metrics_port, seq);
  int64_t t0 = eg_time_mono_us();
  pthread_t th;
  pthread_create(&th, NULL, lag_main, lp);
  run_phase(name, rs->r[w].addr, seconds, threads);
  atomic_store(&lp->stop, true);
  pthread_join(th, NULL);
  double applied = eg_metric_value(rs->r[f].metrics_port, seq) - a0;
  double secs = (double)(eg_time_mono_us() - t0) / 1e6;
  qsort(lp->rec, (size_t)lp->n, sizeof *lp->rec, cmp_double);
  qsort(lp->sec, (size_t)lp->n, sizeof *lp->sec, cmp_double);
  if (lp->n)
    printf(
        "%-12s follower: applies %8.0f records/s; lag p50 %.0f / max %.0f records, "
        "p50 %.3f / max %.3f s (%d samples)\n",
        name, applied / secs, lp->rec[lp->n / 2], lp->rec[lp->n - 1], lp->sec[lp->n / 2],
        lp->sec[lp->n - 1], lp->n);
  fflush(stdout);
  free(lp);
}

/* ---- failover ---------------------------------------------------------------------------- */

static eg_replicas rs;
static _Atomic bool load_stop;
static _Atomic int64_t last_ack; /* monotonic µs of the latest acknowledged commit */

static void *load_main(void *arg) {
  (void)arg;
  eg_writer_client wc;
  eg_err e;
  if (eg_writer_client_open(&wc, &rs, 2 * EG_US_PER_SEC, &e)) return NULL;
  for (long i = 0; !atomic_load(&load_stop); i++) {
    char lit[32];
    snprintf(lit, sizeof lit, "value %ld", i);
    eg_edge_spec s = {.subject = "failover", .relation = "LIKES", .literal = lit};
    Engram__V1__CommitResponse *r = NULL;
    if (eg_writer_commit(&wc, "bench", NULL, &s, eg_time_mono_us() + 30 * EG_US_PER_SEC, &r, &e) ==
        EG_OK) {
      atomic_store(&last_ack, eg_time_mono_us());
      protobuf_c_message_free_unpacked(&r->base, NULL);
    }
  }
  eg_writer_client_close(&wc);
  return NULL;
}

static void run_failover(int kills) {
  eg_err e;
  if (eg_replicas_start(&rs, 3, true, &e)) {
    fprintf(stderr, "replicas: %s\n", e.msg);
    eg_replicas_stop(&rs, true);
    return;
  }
  pthread_t th;
  pthread_create(&th, NULL, load_main, NULL);
  int64_t *times = calloc((size_t)kills, sizeof *times);
  int done = 0;
  for (int k = 0; k < kills; k++) {
    usleep(1000000);
    int w = eg_replicas_writer(&rs, 10 * EG_US_PER_SEC);
    if (w < 0) break;
    int64_t killed = eg_time_mono_us();
    eg_harness_stop(&rs.r[w], SIGKILL);
    while (atomic_load(&last_ack) <= killed && eg_time_mono_us() - killed < 30 * EG_US_PER_SEC)
      usleep(1000);
    if (atomic_load(&last_ack) <= killed) break;
    times[done++] = atomic_load(&last_ack) - killed;
    printf("failover %d: %.3f s\n", k + 1, (double)times[done - 1] / 1e6);
    fflush(stdout);
    if (eg_replicas_restart(&rs, w, &e)) break;
  }
  atomic_store(&load_stop, true);
  pthread_join(th, NULL);
  eg_sort_i64(times, (size_t)done);
  if (done)
    printf("failover     %d kills: p50 %.3f s  max %.3f s\n", done, (double)times[done / 2] / 1e6,
           (double)times[done - 1] / 1e6);
  free(times);
  eg_replicas_stop(&rs, false);
}

int main(int argc, char **argv) {
  int seconds = argc > 1 ? atoi(argv[1]) : 10, threads = argc > 2 ? atoi(argv[2]) : 4;
  int kills = argc > 3 ? atoi(argv[3]) : 5;
  if (seconds < 1 || threads < 1 || threads > 64 || kills < 0) {
    fprintf(stderr, "usage: bench_replog [seconds] [threads 1..64] [kills]\n");
    return 2;
  }
  eg_rpc_global_init();
  eg_err e;
  char *dir = eg_test_tempdir("bench-single");
  eg_proc single;
  if (eg_harness_start("graphd", dir, NULL, &single, &e) == EG_OK) {
    run_phase("single node", single.addr, seconds, threads);
    eg_harness_stop(&single, SIGTERM);
  }
  eg_test_rmtree(dir);
  free(dir);
  eg_replicas reps;
  if (eg_replicas_start(&reps, 2, true, &e) == EG_OK)
    run_replicated("replicated", &reps, seconds, threads);
  else
    fprintf(stderr, "replicas: %s\n", e.msg);
  eg_replicas_stop(&reps, false);
  eg_pg_cluster pc;
  if (eg_pg_cluster_start(&pc, 2, &e) == EG_OK &&
      eg_replicas_start_on(&reps, "graphd", 2, pc.dsn, &e) == EG_OK) {
    run_replicated("quorum", &reps, seconds, threads);
    eg_replicas_stop(&reps, false);
  } else {
    fprintf(stderr, "quorum: %s\n", e.msg);
  }
  eg_pg_cluster_stop(&pc, false);
  if (kills) run_failover(kills);
  eg_rpc_global_shutdown();
  return 0;
}
