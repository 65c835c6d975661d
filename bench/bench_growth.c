/*
 * bench_growth.c — a tenant grown to a million chunks under a skewed access pattern, with
 * retention tiers bounded by policy and without them (retention off), in one run:
 *   - per 100k-chunk step: chunks stored (LongMemEval-S turn texts, read from ../shared/data,
 *     each with its GloVe vector plus a little noise, so that no two are the same), then a
 *     day of use — searches whose queries favour recent material (a geometric choice of
 *     step, newest likeliest), the top hits reported as accesses — then a retention sweep;
 *   - at 100k and at the end: Search latency (hybrid: both dense fields + BM25 + fusion,
 *     k = 10, tenant-wide) over held-out queries (a turn's first 12 words and its vector):
 *     the median of three rounds' p50, chunks per tier, resident memory, and the mean time
 *     of each stage of Search.
 * vectord's engine runs in-process: Search is the only stage of a Recall whose cost
 * depends on how many chunks a tenant holds.
 *
 *   build/bench_growth [total=1000000] [hot_max=100000] [warm_max=50000] [data=…]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lme.h"
#include "bench/turns.h"
#include "common/log.h"
#include "common/retention.h"
#include "common/time.h"
#include "lang/embed.h"
#include "services/vectord/vec.h"
#include "tests/testlib.h"

#define STEP 100000
#define DAY 86400000000LL
#define NQ 500
#define ROUNDS 3

typedef eg_bcorpus corpus;

static const Engram__V1__Scope *scope(void) {
  static Engram__V1__Scope s = ENGRAM__V1__SCOPE__INIT;
  s.tenant = "growth";
  return &s;
}

/* Chunks [from, to) in blocks of 1000. */
static void grow(eg_vec *v, const corpus *c, size_t from, size_t to) {
  for (size_t b = from; b < to; b += 1000) eg_bcorpus_store(v, c, scope()->tenant, NULL, b, 1000);
}

/* Time per stage of the searches timed (embed, dense, bm25, fuse, load:
 * SearchResponse.timings), then the whole call. */
#define N_STAGES 6
static int64_t stage_us[N_STAGES];

/* One search of query turn q; the ids of its top hits into ids (up to 10). */
static size_t search(eg_vec *v, const corpus *c, size_t q, uint64_t *ids) {
  return eg_bcorpus_search(v, c, scope()->tenant, NULL, q, ids, stage_us, N_STAGES - 1);
}

/* A day of use after step s (chunks [0, upto)): 1000 searches, a query's step drawn
 * geometrically from the newest, its top 3 hits reported as accessed at `when`. */
static void use(eg_vec *v, const corpus *c, size_t upto, int64_t when) {
  size_t steps = upto / STEP;
  uint64_t ids[10], acc[3000];
  size_t na = 0;
  for (int i = 0; i < 1000; i++) {
    size_t back = 0;
    while (back + 1 < steps && eg_brand() < 0.5) back++;
    size_t step = steps - 1 - back;
    size_t id = step * STEP + (size_t)(eg_brand() * STEP);
    size_t n = search(v, c, id % c->n, ids);
    for (size_t j = 0; j < n && j < 3; j++) acc[na++] = ids[j];
  }
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__RecordAccessRequest req = ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)scope();
  req.ids = acc;
  req.n_ids = na;
  req.time = when;
  Engram__V1__RecordAccessResponse resp = ENGRAM__V1__RECORD_ACCESS_RESPONSE__INIT;
  eg_err e;
  if (eg_vec_record_access(v, &req, a, &resp, &e)) fprintf(stderr, "access: %s\n", e.msg), exit(1);
  eg_arena_free(a);
}

static void sweep(eg_vec *v, int64_t at, uint64_t tiers[5]) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__SweepRetentionRequest req = ENGRAM__V1__SWEEP_RETENTION_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)scope();
  req.at = at;
  Engram__V1__SweepRetentionResponse resp = ENGRAM__V1__SWEEP_RETENTION_RESPONSE__INIT;
  eg_err e;
  if (eg_vec_sweep(v, &req, a, &resp, &e)) fprintf(stderr, "sweep: %s\n", e.msg), exit(1);
  for (size_t i = 0; i < resp.n_tiers; i++) tiers[resp.tiers[i]->tier] = resp.tiers[i]->count;
  eg_arena_free(a);
}

static void policy(eg_vec *v, bool on, uint64_t hot_max, uint64_t warm_max) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__RetentionPolicy p = ENGRAM__V1__RETENTION_POLICY__INIT;
  p.disabled = !on;
  p.hot_max = hot_max;
  p.warm_max = warm_max;
  Engram__V1__SetRetentionPolicyRequest req = ENGRAM__V1__SET_RETENTION_POLICY_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)scope();
  req.policy = &p;
  Engram__V1__SetRetentionPolicyResponse resp = ENGRAM__V1__SET_RETENTION_POLICY_RESPONSE__INIT;
  eg_err e;
  if (eg_vec_set_retention(v, &req, a, &resp, &e)) fprintf(stderr, "policy: %s\n", e.msg), exit(1);
  eg_arena_free(a);
}

/* BENCH_PERF_CTL=ctl,ack: the control and acknowledgement FIFOs of a `perf record
 * --control fifo:ctl,ack -D -1` around this process, so that only the timed searches at
 * the end are recorded. */
static void perf_ctl(const char *cmd) {
  const char *env = getenv("BENCH_PERF_CTL");
  const char *comma = env ? strchr(env, ',') : NULL;
  if (!comma) return;
  char ctl[512], ack[8];
  snprintf(ctl, sizeof ctl, "%.*s", (int)(comma - env), env);
  FILE *f = fopen(ctl, "w"), *g = NULL;
  if (f) fprintf(f, "%s\n", cmd), fclose(f);
  if (f && (g = fopen(comma + 1, "r"))) {
    if (!fgets(ack, sizeof ack, g)) ack[0] = 0;
    fclose(g);
  }
}

/* p50 of NQ searches of held-out turns (the last NQ of the corpus, never stored as such),
 * in ROUNDS rounds: each round's p50 into round[], the median of those returned (the box
 * is shared: one round slowed by other work moves the figure less); the mean time per
 * stage over all of them into mean[]; profile: the searches perf records. */
static double p50_us(eg_vec *v, const corpus *c, bool profile, double round[ROUNDS],
                     double mean[N_STAGES]) {
  int64_t lat[NQ];
  uint64_t ids[10];
  memset(stage_us, 0, sizeof stage_us);
  if (profile) perf_ctl("enable");
  for (int r = 0; r < ROUNDS; r++) {
    for (int i = 0; i < NQ; i++) {
      int64_t s = eg_time_mono_us();
      search(v, c, c->n + (size_t)i, ids);
      lat[i] = eg_time_mono_us() - s;
      stage_us[N_STAGES - 1] += lat[i];
    }
    eg_sort_i64(lat, NQ);
    round[r] = (double)lat[NQ / 2];
  }
  if (profile) perf_ctl("disable");
  for (int i = 0; i < N_STAGES; i++) mean[i] = (double)stage_us[i] / (NQ * ROUNDS);
  int64_t med[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) med[r] = (int64_t)round[r];
  eg_sort_i64(med, ROUNDS);
  return (double)med[ROUNDS / 2];
}

static void run(const corpus *c, bool on, size_t total, uint64_t hot_max, uint64_t warm_max) {
  char *dir = eg_test_tempdir("bench-growth");
  eg_vec *v = eg_bvec_open(dir, NULL, !on, 50000);
  long rss0 = eg_brss_kb();
  int64_t t0 = eg_time_now_us(), b0 = eg_time_mono_us();
  double p50_first = 0;
  uint64_t tiers[5] = {0};
  for (size_t upto = STEP; upto <= total; upto += STEP) {
    if (upto == STEP) policy(v, on, hot_max, warm_max);
    grow(v, c, upto - STEP, upto);
    int64_t day = t0 + (int64_t)(upto / STEP) * DAY;
    use(v, c, upto, day);
    sweep(v, day, tiers);
    eg_vec_quiesce(v);
    if (upto == STEP || upto == total) {
      double st[N_STAGES], rounds[ROUNDS];
      double p = p50_us(v, c, upto == total, rounds, st);
      if (upto == STEP) p50_first = p;
      printf(
          "retention %-3s %8zu chunks: Search p50 %7.1f us  hot %llu warm %llu cold %llu  RSS "
          "+%.0f MB  (%.0f s)\n",
          on ? "on" : "off", upto, p, (unsigned long long)tiers[1], (unsigned long long)tiers[2],
          (unsigned long long)tiers[3], (double)(eg_brss_kb() - rss0) / 1024.0,
          (double)(eg_time_mono_us() - b0) / 1e6);
      printf("    p50 per round:");
      for (int r = 0; r < ROUNDS; r++) printf(" %.0f us", rounds[r]);
      printf(
          "; mean: embed %.0f us, dense %.0f us, bm25 %.0f us, fuse %.0f us, load %.0f us, whole "
          "Search %.0f us\n",
          st[0], st[1], st[2], st[3], st[4], st[5]);
      if (upto == total)
        printf("retention %-3s p50 ratio %zu / %d: %.2fx\n", on ? "on" : "off", total, STEP,
               p / p50_first);
    } else if (getenv("BENCH_PROGRESS")) {
      fprintf(stderr, "  %zu chunks: hot %llu (%.0f s)\n", upto, (unsigned long long)tiers[1],
              (double)(eg_time_mono_us() - b0) / 1e6);
    }
    fflush(stdout);
  }
  eg_vec_close(v);
  eg_test_rmtree(dir);
  free(dir);
}

int main(int argc, char **argv) {
  size_t total = argc > 1 ? (size_t)atoll(argv[1]) : 1000000;
  uint64_t hot_max = argc > 2 ? (uint64_t)atoll(argv[2]) : 100000;
  uint64_t warm_max = argc > 3 ? (uint64_t)atoll(argv[3]) : 50000;
  const char *data = argc > 4 ? argv[4] : EG_LME_DEFAULT;
  const char *modes = getenv("BENCH_MODES") ? getenv("BENCH_MODES") : "on,off";
  eg_log_init("bench", EG_LOG_WARN);
  if (total < STEP || total % STEP)
    fprintf(stderr, "total must be a multiple of %d\n", STEP), exit(2);
  corpus c;
  eg_bcorpus_load(data, 150000 + NQ, 10000, NQ, &c);
  printf(
      "growth benchmark: %zu chunks in steps of %d (%zu distinct turns), policy hot_max %llu "
      "warm_max %llu\n",
      total, STEP, c.n, (unsigned long long)hot_max, (unsigned long long)warm_max);
  if (strstr(modes, "on")) run(&c, true, total, hot_max, warm_max);
  if (strstr(modes, "off")) run(&c, false, total, 0, 0);
  return 0;
}
