/*
 * test_shards.c — tenants sharded over two graphd and two vectord on loopback: ingestd and
 * recalld route each tenant by jump consistent hash, recall works for every tenant, a
 * request sent to the wrong shard is refused clearly, and each tenant's data lives on
 * exactly one shard (checked by restarting each shard unsharded and looking).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/graph_client.h"
#include "common/shard.h"
#include "common/time.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

enum { N_TENANTS = 8 };

static char *dir, sub[4][600];
static eg_proc g[2], v[2], ing, rec;
static eg_rpc_client *ci, *cr;

static const char *tenant(int i) {
  static char t[N_TENANTS][16];
  snprintf(t[i], sizeof t[i], "tenant-%d", i);
  return t[i];
}

/* A one-word query's top hit count in vectord shard s for tenant t (-1: refused). */
static int search(eg_proc *p, const char *t, const char *word, eg_code *code) {
  eg_rpc_client *c = NULL;
  eg_err e;
  if (eg_rpc_client_open(p->addr, NULL, &c, &e)) return -1;
  Engram__V1__SearchResponse *s = NULL;
  *code = ic_search(c, t, "u", word, 5, &s, &e);
  int n = -1;
  if (*code == EG_OK) {
    n = s->n_results ? (int)s->results[0]->n_hits : 0;
    protobuf_c_message_free_unpacked(&s->base, NULL);
  } else if (*code == EG_EPRECOND) {
    EG_CHECK(strstr(e.msg, "lives on shard") != NULL);
  }
  eg_rpc_client_close(c);
  return n;
}

/* Entities named `name` in graphd p for tenant t (-1: refused). */
static int entities(eg_proc *p, const char *t, const char *name, eg_code *code) {
  eg_rpc_client *c = NULL;
  eg_err e;
  if (eg_rpc_client_open(p->addr, NULL, &c, &e)) return -1;
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)t;
  Engram__V1__EntityRef ref = ENGRAM__V1__ENTITY_REF__INIT, *refs[1] = {&ref};
  ref.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  ref.name = (char *)name;
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  Engram__V1__StateQuery sq = ENGRAM__V1__STATE_QUERY__INIT, *sqs[1] = {&sq};
  sq.subject = refs[0];
  req.scope = &scope;
  req.queries = sqs;
  req.n_queries = 1;
  Engram__V1__StateResponse *s = NULL;
  *code = eg_graphd_state(c, &req, &s, &e);
  int n = -1;
  if (*code == EG_OK) {
    n = 0;
    for (size_t i = 0; i < s->n_results; i++) n += (int)s->results[i]->n_values;
    protobuf_c_message_free_unpacked(&s->base, NULL);
  }
  eg_rpc_client_close(c);
  return n;
}

static void test_start(void) {
  dir = eg_test_tempdir("shards");
  eg_err e;
  for (int s = 0; s < 2; s++) {
    char idx[4];
    snprintf(idx, sizeof idx, "%d", s);
    snprintf(sub[s], sizeof sub[s], "%s/s%d", dir, s);
    EG_REQUIRE(eg_test_system("mkdir -p %s", sub[s]) == 0);
    const char *extra[] = {"--shard-index", idx, "--shard-count", "2", NULL};
    EG_REQUIRE(eg_harness_start("graphd", sub[s], extra, &g[s], &e) == EG_OK);
    EG_REQUIRE(eg_harness_start("vectord", sub[s], extra, &v[s], &e) == EG_OK);
  }
  char ga[200], va[200];
  snprintf(ga, sizeof ga, "%s,%s", g[0].addr, g[1].addr);
  snprintf(va, sizeof va, "%s, %s", v[0].addr, v[1].addr);
  const char *front[] = {"--graphd-addr", ga, "--vectord-addr", va, NULL};
  EG_REQUIRE(eg_harness_start("ingestd", dir, front, &ing, &e) == EG_OK);
  EG_REQUIRE(eg_harness_start("recalld", dir, front, &rec, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(ing.addr, NULL, &ci, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(rec.addr, NULL, &cr, &e) == EG_OK);
}

static void test_every_tenant_recalls_its_own(void) {
  int on[2] = {0, 0};
  for (int i = 0; i < N_TENANTS; i++) {
    char text[160];
    snprintf(text, sizeof text,
             "My favourite colour is the shade called Zorblax%d and I live in Paris.", i);
    const char *msgs[] = {"user", text, "assistant", "Noted."};
    eg_err e;
    EG_CHECK(ic_session(ci, tenant(i), "u", "s1", 1700000000000000LL, msgs, 2, false, NULL, &e) ==
             EG_OK);
    on[eg_shard_of(tenant(i), 2)]++;
  }
  EG_CHECK(on[0] > 0 && on[1] > 0); /* both shards hold tenants */
  for (int i = 0; i < N_TENANTS; i++) {
    Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
    scope.tenant = (char *)tenant(i);
    scope.user = "u";
    Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
    req.scope = &scope;
    req.query = "What is my favourite colour?";
    Engram__V1__RecallResponse *resp = NULL;
    eg_err e;
    EG_REQUIRE(eg_recalld_recall(cr, &req, &resp, &e) == EG_OK);
    char mine[32];
    snprintf(mine, sizeof mine, "Zorblax%d ", i);
    EG_CHECK(strstr(resp->context, mine) != NULL);
    for (int j = 0; j < N_TENANTS; j++) { /* nothing of another tenant */
      char other[32];
      snprintf(other, sizeof other, "Zorblax%d ", j);
      if (j != i) EG_CHECK(strstr(resp->context, other) == NULL);
    }
    protobuf_c_message_free_unpacked(&resp->base, NULL);
  }
}

static void test_wrong_shard_refused(void) {
  for (int i = 0; i < N_TENANTS; i++) {
    uint32_t s = eg_shard_of(tenant(i), 2);
    eg_code code;
    EG_CHECK(search(&v[s], tenant(i), "Zorblax", &code) > 0);
    EG_CHECK(search(&v[1 - s], tenant(i), "Zorblax", &code) == -1 && code == EG_EPRECOND);
    EG_CHECK(entities(&g[s], tenant(i), "Paris", &code) >= 0 && code == EG_OK);
    EG_CHECK(entities(&g[1 - s], tenant(i), "Paris", &code) == -1 && code == EG_EPRECOND);
  }
}

/* Restart every shard unsharded: a tenant's words and entities are found only on its own. */
static void test_data_on_one_shard_only(void) {
  eg_err e;
  const char *one[] = {"--shard-count", "1", NULL};
  for (int s = 0; s < 2; s++) {
    EG_REQUIRE(eg_harness_restart(&g[s], one, &e) == EG_OK);
    EG_REQUIRE(eg_harness_restart(&v[s], one, &e) == EG_OK);
  }
  for (int i = 0; i < N_TENANTS; i++) {
    uint32_t s = eg_shard_of(tenant(i), 2);
    eg_code code;
    char word[32];
    snprintf(word, sizeof word, "Zorblax%d", i);
    EG_CHECK(search(&v[s], tenant(i), word, &code) > 0);
    EG_CHECK(search(&v[1 - s], tenant(i), word, &code) == 0 && code == EG_OK);
    EG_CHECK(entities(&g[1 - s], tenant(i), "Paris", &code) == 0 && code == EG_OK);
  }
}

static void test_bad_shard_config(void) {
  eg_proc p;
  eg_err e;
  const char *bad[] = {"--shard-index", "2", "--shard-count", "2", NULL};
  EG_CHECK(eg_harness_start("graphd", sub[0], bad, &p, &e) != EG_OK);
  const char *host[] = {"--shard-index", "-1", "--shard-count", "2",
                        NULL}; /* host name has no -<n> here */
  char hn[256] = "";
  gethostname(hn, sizeof hn);
  const char *dash = strrchr(hn, '-');
  if (!dash || !dash[1] || strspn(dash + 1, "0123456789") != strlen(dash + 1))
    EG_CHECK(eg_harness_start("vectord", sub[1], host, &p, &e) != EG_OK);
}

int main(void) {
  EG_RUN(test_start);
  EG_RUN(test_every_tenant_recalls_its_own);
  EG_RUN(test_wrong_shard_refused);
  EG_RUN(test_data_on_one_shard_only);
  EG_RUN(test_bad_shard_config);
  eg_proc *all[] = {&ing, &rec, &g[0], &g[1], &v[0], &v[1]};
  for (size_t i = 0; i < 6; i++) eg_harness_stop(all[i], 15);
  eg_rpc_client_close(ci);
  eg_rpc_client_close(cr);
  int rc = eg_test_finish();
  if (rc)
    fprintf(stderr, "logs kept in %s\n", dir);
  else
    eg_test_rmtree(dir);
  free(dir);
  return rc;
}
