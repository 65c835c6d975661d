/*
 * test_graph_engine.c — graphd's engine in-process, for what the API cannot reach:
 * write-transaction rollback, concurrent group commit, and a derived_from cycle in
 * stored data (which the API refuses to create) that the premise walk must survive.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "services/graphd/graph_int.h"
#include "tests/testlib.h"

static char *dir;
static eg_graph *g;

static eg_graph_limits limits = {10000, 16384, 8, 64, 1000, 1000, 1000, NULL, 0};

static void test_open(void) {
  dir = eg_test_tempdir("engine");
  eg_err e;
  EG_REQUIRE(eg_graph_open(dir, &limits, NULL, &g, &e) == EG_OK);
}

static void test_txn_rollback(void) {
  eg_kv *s = eg_graph_store(g);
  eg_kvtxn *t = eg_kv_begin(s);
  eg_kvtxn_put(t, CF_DEFAULT, "zz-a", 4, "1", 1, true);
  char *v;
  size_t vl;
  EG_CHECK_INT(eg_kvtxn_get(t, CF_DEFAULT, "zz-a", 4, &v, &vl, NULL), EG_OK); /* read own write */
  free(v);
  eg_kvtxn_abort(t);
  t = eg_kv_begin(s);
  EG_CHECK_INT(eg_kvtxn_get(t, CF_DEFAULT, "zz-a", 4, &v, &vl, NULL), EG_ENOTFOUND);
  eg_kvtxn_put(t, CF_DEFAULT, "zz-b", 4, "2", 1, true);
  eg_err e;
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  EG_CHECK_INT(eg_kv_get(s, CF_DEFAULT, "zz-a", 4, &v, &vl, NULL), EG_ENOTFOUND);
  EG_REQUIRE(eg_kv_get(s, CF_DEFAULT, "zz-b", 4, &v, &vl, NULL) == EG_OK);
  EG_CHECK(vl == 1 && v[0] == '2');
  free(v);
  /* A value overwritten then rolled back returns to the committed one. */
  t = eg_kv_begin(s);
  eg_kvtxn_put(t, CF_DEFAULT, "zz-b", 4, "3", 1, true);
  eg_kvtxn_abort(t);
  t = eg_kv_begin(s);
  EG_REQUIRE(eg_kvtxn_get(t, CF_DEFAULT, "zz-b", 4, &v, &vl, NULL) == EG_OK);
  EG_CHECK(vl == 1 && v[0] == '2');
  free(v);
  eg_kvtxn_abort(t);
}

static uint64_t commit1(const char *subject, const char *rel, const char *lit, uint64_t premise) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "t";
  Engram__V1__EntityRef subj = ENGRAM__V1__ENTITY_REF__INIT;
  subj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  subj.name = (char *)subject;
  Engram__V1__EdgeInput in = ENGRAM__V1__EDGE_INPUT__INIT, *ins[1] = {&in};
  in.subject = &subj;
  in.relation = (char *)rel;
  in.object_literal = (char *)lit;
  in.derived_from = &premise;
  in.n_derived_from = premise ? 1 : 0;
  Engram__V1__CommitRequest req = ENGRAM__V1__COMMIT_REQUEST__INIT;
  req.scope = &scope;
  req.edges = ins;
  req.n_edges = 1;
  Engram__V1__CommitResponse resp = ENGRAM__V1__COMMIT_RESPONSE__INIT;
  eg_err e;
  uint64_t id = eg_graph_commit(g, &req, a, &resp, &e) == EG_OK ? resp.edge_ids[0] : 0;
  eg_arena_free(a);
  return id;
}

typedef struct worker {
  int n, tid;
  uint64_t ids[200];
} worker;

static void *commit_many(void *arg) {
  worker *w = arg;
  char subj[32];
  for (int i = 0; i < w->n; i++) {
    snprintf(subj, sizeof subj, "w%d-%d", w->tid, i);
    w->ids[i] = commit1(subj, "LIKES", "x", 0);
  }
  return NULL;
}

static void test_concurrent_group_commit(void) {
  enum { W = 8, N = 200 };
  worker ws[W];
  pthread_t th[W];
  for (int i = 0; i < W; i++) {
    ws[i].n = N;
    ws[i].tid = i;
    pthread_create(&th[i], NULL, commit_many, &ws[i]);
  }
  for (int i = 0; i < W; i++) pthread_join(th[i], NULL);
  /* every commit got a distinct id, and each is stored */
  uint64_t t;
  EG_REQUIRE(eg_kv_tenant_id(eg_graph_store(g), "t", &t) == EG_OK);
  eg_arena *a = eg_arena_new(0, 0);
  int found = 0, zero = 0;
  for (int i = 0; i < W; i++) {
    for (int j = 0; j < N; j++) {
      Engram__V1__Edge *e;
      zero += ws[i].ids[j] == 0;
      found += eg_edge_load(g, t, ws[i].ids[j], a, &e, NULL) == EG_OK;
      for (int k = 0; k < j; k++) EG_REQUIRE(ws[i].ids[k] != ws[i].ids[j]);
    }
  }
  EG_CHECK_INT(zero, 0);
  EG_CHECK_INT(found, W * N);
  eg_arena_free(a);
}

/* Rewrite a stored edge so that A ← B ← A: the walk must stop and count the loop. */
static void test_walk_survives_cycle(void) {
  uint64_t a_id = commit1("Cycle A", "STATUS", "a", 0);
  uint64_t b_id = commit1("Cycle B", "STATUS", "b", a_id);
  EG_REQUIRE(a_id && b_id);
  uint64_t t;
  EG_REQUIRE(eg_kv_tenant_id(eg_graph_store(g), "t", &t) == EG_OK);
  eg_arena *ar = eg_arena_new(0, 0);
  Engram__V1__Edge *a;
  EG_REQUIRE(eg_edge_load(g, t, a_id, ar, &a, NULL) == EG_OK);
  a->derived_from = &b_id; /* corrupt it into a cycle */
  a->n_derived_from = 1;
  uint8_t k[16];
  KEY2(k, t, a_id);
  char *ek;
  size_t ekl;
  EG_REQUIRE(eg_kv_get(eg_graph_store(g), CF_EDGES_BY_ID, k, 16, &ek, &ekl, NULL) == EG_OK);
  size_t n = engram__v1__edge__get_packed_size(a);
  uint8_t *buf = malloc(n);
  engram__v1__edge__pack(a, buf);
  eg_kvtxn *tx = eg_kv_begin(eg_graph_store(g));
  eg_kvtxn_put(tx, CF_EDGES, ek, ekl, buf, n, false);
  eg_err e;
  EG_REQUIRE(eg_kvtxn_commit(tx, &e) == EG_OK);
  free(ek);
  free(buf);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "t";
  Engram__V1__WalkRequest req = ENGRAM__V1__WALK_REQUEST__INIT;
  req.scope = &scope;
  req.claims = &b_id;
  req.n_claims = 1;
  Engram__V1__WalkResponse resp = ENGRAM__V1__WALK_RESPONSE__INIT;
  EG_REQUIRE(eg_graph_walk(g, &req, ar, &resp, &e) == EG_OK);
  EG_CHECK_INT(resp.statuses[0]->status, ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNVERIFIED);
  EG_CHECK_INT(resp.statuses[0]->premises_checked, 1);
  EG_CHECK(resp.statuses[0]->skipped_links >= 1); /* the link back to B */
  eg_arena_free(ar);
}

int main(void) {
  EG_RUN(test_open);
  EG_RUN(test_txn_rollback);
  EG_RUN(test_concurrent_group_commit);
  EG_RUN(test_walk_survives_cycle);
  eg_graph_close(g);
  eg_test_rmtree(dir);
  free(dir);
  return eg_test_finish();
}
