/*
 * bench_graph.c — graphd figures for bench/RESULTS.md, in one run:
 *   1. batched commit throughput, in-process (the engine) — N edges in batches of B;
 *   2. State p50/p99 in-process with those N edges in the store;
 *   3. the same store served by a real graphd: State p50/p99 over gRPC;
 *   4. batched commit throughput over gRPC, and concurrent single-edge commits (group commit);
 *   5. Walk latency at depth 3 over gRPC.
 *
 *   build/bench_graph [edges=1000000] [batch=1000]
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/time.h"
#include "services/graphd/graph.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/testlib.h"

static const char *rels[] = {"LIVES_IN", "WORKS_AT", "DIET", "LIKES", "VISITED"};
#define N_RELS 5

static void report(const char *what, int64_t *lat, size_t n) {
  eg_sort_i64(lat, n);
  printf("%-58s p50 %6.1f us  p99 %6.1f us  (n=%zu)\n", what, (double)lat[n / 2],
         (double)lat[n * 99 / 100], n);
}

/* Build batch number b: edges k = b*B … b*B+B-1 over P people, chains growing in valid time. */
typedef struct batch_buf {
  Engram__V1__Scope scope;
  Engram__V1__EntityRef *subj;
  Engram__V1__EdgeInput *edges, **ptrs;
  char (*names)[32], (*lits)[32];
  Engram__V1__CommitRequest req;
} batch_buf;

static void batch_init(batch_buf *bb, size_t B) {
  engram__v1__scope__init(&bb->scope);
  bb->scope.tenant = "bench";
  bb->subj = calloc(B, sizeof *bb->subj);
  bb->edges = calloc(B, sizeof *bb->edges);
  bb->ptrs = calloc(B, sizeof *bb->ptrs);
  bb->names = calloc(B, 32);
  bb->lits = calloc(B, 32);
  engram__v1__commit_request__init(&bb->req);
  bb->req.scope = &bb->scope;
  bb->req.edges = bb->ptrs;
}

static void batch_fill(batch_buf *bb, size_t b, size_t B, size_t P, int64_t base) {
  for (size_t i = 0; i < B; i++) {
    size_t k = b * B + i;
    size_t person = k % P, round = k / P;
    engram__v1__entity_ref__init(&bb->subj[i]);
    bb->subj[i].ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
    snprintf(bb->names[i], 32, "person %zu", person);
    bb->subj[i].name = bb->names[i];
    engram__v1__edge_input__init(&bb->edges[i]);
    bb->edges[i].subject = &bb->subj[i];
    bb->edges[i].relation = (char *)rels[round % N_RELS];
    snprintf(bb->lits[i], 32, "value %zu", k % 997);
    bb->edges[i].object_literal = bb->lits[i];
    bb->edges[i].valid_from = base + (int64_t)(round / N_RELS) * EG_US_PER_DAY;
    bb->ptrs[i] = &bb->edges[i];
  }
  bb->req.n_edges = B;
}

static void batch_free(batch_buf *bb) {
  free(bb->subj);
  free(bb->edges);
  free(bb->ptrs);
  free(bb->names);
  free(bb->lits);
}

typedef struct commit_job {
  eg_graph *g;
  size_t first, end, step, B, P;
  int64_t base;
  int failed;
} commit_job;

static void *commit_batches(void *arg) {
  commit_job *j = arg;
  batch_buf bb;
  batch_init(&bb, j->B);
  eg_err e;
  for (size_t b = j->first; b < j->end; b += j->step) {
    batch_fill(&bb, b, j->B, j->P, j->base);
    eg_arena *a = eg_arena_new(1 << 20, 0);
    Engram__V1__CommitResponse resp = ENGRAM__V1__COMMIT_RESPONSE__INIT;
    if (eg_graph_commit(j->g, &bb.req, a, &resp, &e)) {
      fprintf(stderr, "commit: %s\n", e.msg);
      j->failed = 1;
    }
    eg_arena_free(a);
  }
  batch_free(&bb);
  return NULL;
}

static Engram__V1__StateRequest *state_req(eg_arena *a, size_t person, const char *rel,
                                           char *name) {
  Engram__V1__Scope *s = eg_arena_calloc(a, 1, sizeof *s);
  engram__v1__scope__init(s);
  s->tenant = "bench";
  Engram__V1__EntityRef *r = eg_arena_calloc(a, 1, sizeof *r);
  engram__v1__entity_ref__init(r);
  r->ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  snprintf(name, 32, "person %zu", person);
  r->name = name;
  Engram__V1__StateQuery *q = eg_arena_calloc(a, 1, sizeof *q);
  engram__v1__state_query__init(q);
  q->subject = r;
  q->relation = (char *)rel;
  Engram__V1__StateQuery **qs = eg_arena_alloc(a, sizeof *qs);
  qs[0] = q;
  Engram__V1__StateRequest *req = eg_arena_calloc(a, 1, sizeof *req);
  engram__v1__state_request__init(req);
  req->scope = s;
  req->queries = qs;
  req->n_queries = 1;
  return req;
}

typedef struct par_commit {
  const char *addr;
  int n;
  int tid;
  int ok;
} par_commit;

static void *single_commits(void *arg) {
  par_commit *pc = arg;
  eg_rpc_client *c;
  eg_err e;
  eg_rpc_client_open(pc->addr, NULL, &c, &e);
  char subj[32];
  for (int i = 0; i < pc->n; i++) {
    snprintf(subj, sizeof subj, "solo %d-%d", pc->tid, i);
    if (gc_commit(c, "bench-solo", NULL,
                  &(eg_edge_spec){.subject = subj, .relation = "LIKES", .literal = "x"}, &e))
      pc->ok++;
  }
  eg_rpc_client_close(c);
  return NULL;
}

int main(int argc, char **argv) {
  size_t N = argc > 1 ? (size_t)atoll(argv[1]) : 1000000;
  size_t B = argc > 2 ? (size_t)atoll(argv[2]) : 1000;
  size_t P = N / 10 > 0 ? N / 10 : 1;
  eg_rpc_global_init();
  eg_log_init("bench", EG_LOG_WARN);
  char *dir = eg_test_tempdir("bench-graph");
  char dbdir[600];
  snprintf(dbdir, sizeof dbdir, "%s/graphd/graph", dir);
  eg_test_system("mkdir -p %s/graphd", dir);
  eg_graph_limits lim = {10000, 16384, 8, 64, 1000, 1000, 1000000, NULL, 0};
  eg_graph *g;
  eg_err e;
  eg_metrics *mx = eg_metrics_new();
  if (eg_graph_open(dbdir, &lim, mx, &g, &e)) {
    fprintf(stderr, "open: %s\n", e.msg);
    return 1;
  }
  int64_t base = T("2020-01-01");
  printf("graphd benchmark: %zu edges over %zu subjects, batches of %zu\n", N, P, B);

  /* 1. batched commits, in-process: one writer, then two (the write lock is released
   * during the synced write, so a second writer builds its batch meanwhile) */
  size_t nb = N / B;
  int64_t t0;
  double secs = 0;
  batch_buf bb;
  batch_init(&bb, B);
  for (int writers = 1; writers <= 2; writers++) {
    size_t from = writers == 1 ? 0 : nb / 2, to = writers == 1 ? nb / 2 : nb;
    commit_job jobs[2];
    pthread_t th[2];
    int64_t ts = eg_time_mono_us();
    for (int w = 0; w < writers; w++) {
      jobs[w] = (commit_job){g, from + (size_t)w, to, (size_t)writers, B, P, base, 0};
      pthread_create(&th[w], NULL, commit_batches, &jobs[w]);
    }
    int bad = 0;
    for (int w = 0; w < writers; w++) {
      pthread_join(th[w], NULL);
      bad |= jobs[w].failed;
    }
    if (bad) return 1;
    double s = (double)(eg_time_mono_us() - ts) / 1e6;
    char what[80];
    snprintf(what, sizeof what, "commit, in-process, batched, %d writer%s", writers,
             writers > 1 ? "s" : "");
    printf("%-58s %8.0f edges/s (%.1f s)\n", what, (double)((to - from) * B) / s, s);
    secs += s;
  }
  /* 2. State in-process */
  enum { Q = 20000 };
  int64_t *lat = calloc(Q, sizeof *lat);
  srand(42);
  for (int i = 0; i < Q; i++) {
    eg_arena *a = eg_arena_new(0, 0);
    char name[32];
    Engram__V1__StateRequest *req = state_req(a, (size_t)rand() % P, rels[i % 3], name);
    Engram__V1__StateResponse resp = ENGRAM__V1__STATE_RESPONSE__INIT;
    int64_t s = eg_time_mono_us();
    if (eg_graph_state(g, req, a, &resp, &e) || !resp.n_results || !resp.results[0]->n_values) {
      fprintf(stderr, "state failed or empty: %s\n", e.msg);
      return 1;
    }
    lat[i] = eg_time_mono_us() - s;
    eg_arena_free(a);
  }
  report("State (ONE, by name), in-process", lat, Q);
  eg_graph_close(g);
  eg_metrics_free(mx);

  /* 3. the same store behind a real graphd */
  eg_proc p;
  if (eg_harness_start("graphd", dir, NULL, &p, &e)) {
    fprintf(stderr, "start graphd: %s\n", e.msg);
    return 1;
  }
  eg_rpc_client *c;
  eg_rpc_client_open(p.addr, NULL, &c, &e);
  for (int i = 0; i < Q; i++) {
    eg_arena *a = eg_arena_new(0, 0);
    char name[32];
    Engram__V1__StateRequest *req = state_req(a, (size_t)rand() % P, rels[i % 3], name);
    Engram__V1__StateResponse *resp;
    int64_t s = eg_time_mono_us();
    if (eg_graphd_state(c, req, &resp, &e)) {
      fprintf(stderr, "state rpc: %s\n", e.msg);
      return 1;
    }
    lat[i] = eg_time_mono_us() - s;
    protobuf_c_message_free_unpacked(&resp->base, NULL);
    eg_arena_free(a);
  }
  report("State (ONE, by name), over gRPC, 1 client", lat, Q);

  /* 4a. batched commits over gRPC */
  size_t NG = N / 5 > B ? N / 5 : B;
  t0 = eg_time_mono_us();
  for (size_t b = 0; b < NG / B; b++) {
    batch_fill(&bb, N / B + b, B, P, base);
    Engram__V1__CommitResponse *resp;
    if (eg_graphd_commit(c, &bb.req, &resp, &e)) {
      fprintf(stderr, "commit rpc: %s\n", e.msg);
      return 1;
    }
    protobuf_c_message_free_unpacked(&resp->base, NULL);
  }
  secs = (double)(eg_time_mono_us() - t0) / 1e6;
  printf("%-58s %8.0f edges/s (%zu edges)\n", "commit, over gRPC, batched", (double)NG / secs, NG);

  /* 4b. concurrent single-edge commits: group commit at work */
  enum { TH = 8, PER = 500 };
  par_commit pcs[TH];
  pthread_t th[TH];
  t0 = eg_time_mono_us();
  for (int i = 0; i < TH; i++) {
    pcs[i] = (par_commit){p.addr, PER, i, 0};
    pthread_create(&th[i], NULL, single_commits, &pcs[i]);
  }
  int ok = 0;
  for (int i = 0; i < TH; i++) {
    pthread_join(th[i], NULL);
    ok += pcs[i].ok;
  }
  secs = (double)(eg_time_mono_us() - t0) / 1e6;
  eg_buf mb = EG_BUF_INIT;
  eg_http_get(p.metrics_port, "/metrics", &mb);
  double groups = 0, txns = 0;
  const char *gp = strstr(mb.data, "\nengram_graphd_group_commits_total ");
  const char *tp = strstr(mb.data, "\nengram_graphd_group_commit_txns_total ");
  if (gp) groups = atof(gp + strlen("\nengram_graphd_group_commits_total "));
  if (tp) txns = atof(tp + strlen("\nengram_graphd_group_commit_txns_total "));
  eg_buf_free(&mb);
  printf("%-58s %8.0f commits/s (%d ok; %.2f txns per fsync overall)\n",
         "commit, over gRPC, 8 clients x single-edge", ok / secs, ok,
         groups > 0 ? txns / groups : 0);

  /* 5. Walk at depth 3: base ← a ← b ← claim; every other base superseded */
  enum { W = 1000 };
  uint64_t claims[W];
  for (int i = 0; i < W; i++) {
    char s0[32], s1[32], s2[32], s3[32];
    snprintf(s0, sizeof s0, "org %d", i);
    snprintf(s1, sizeof s1, "lead %d", i);
    snprintf(s2, sizeof s2, "deputy %d", i);
    snprintf(s3, sizeof s3, "signer %d", i);
    uint64_t e0 =
        gc_commit(c, "bench-walk", NULL,
                  &(eg_edge_spec){.subject = s0, .relation = "STATUS", .literal = "open"}, &e);
    uint64_t e1 = gc_commit(c, "bench-walk", NULL,
                            &(eg_edge_spec){.subject = s1,
                                            .relation = "JOB_TITLE",
                                            .literal = "lead",
                                            .premises = &e0,
                                            .n_premises = 1},
                            &e);
    uint64_t e2 = gc_commit(c, "bench-walk", NULL,
                            &(eg_edge_spec){.subject = s2,
                                            .relation = "JOB_TITLE",
                                            .literal = "deputy",
                                            .premises = &e1,
                                            .n_premises = 1},
                            &e);
    claims[i] = gc_commit(c, "bench-walk", NULL,
                          &(eg_edge_spec){.subject = s3,
                                          .relation = "HAS_AUTHORITY",
                                          .literal = "sign",
                                          .premises = &e2,
                                          .n_premises = 1},
                          &e);
    if (i % 2)
      gc_commit(c, "bench-walk", NULL,
                &(eg_edge_spec){.subject = s0, .relation = "STATUS", .literal = "closed"}, &e);
  }
  int stale = 0;
  for (int i = 0; i < W; i++) {
    int64_t s = eg_time_mono_us();
    int st = gc_walk(c, "bench-walk", claims[i], 0, 0, 0, NULL, NULL, NULL);
    lat[i] = eg_time_mono_us() - s;
    stale += st == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE;
  }
  report("Walk, depth 3, over gRPC", lat, W);
  printf("  (stale claims found: %d of %d, expected %d)\n", stale, W, W / 2);

  eg_rpc_client_close(c);
  eg_harness_stop(&p, SIGTERM);
  eg_test_system("du -sh %s/graphd/graph | cut -f1 | sed 's/^/  store size on disk: /'", dir);
  eg_test_rmtree(dir);
  free(dir);
  free(lat);
  batch_free(&bb);
  eg_rpc_global_shutdown();
  return stale == W / 2 ? 0 : 1;
}
