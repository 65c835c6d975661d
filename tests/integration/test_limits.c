/*
 * test_limits.c — input limits are configuration: each daemon started with small limits
 * answers a request over any of them with INVALID_ARGUMENT (RESOURCE_EXHAUSTED for the
 * gRPC message size) and a message naming the limit, and writes nothing of a refused
 * request — also when only its last item is over, or is not UTF-8.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rpc.h"
#include "common/time.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

static eg_cluster cl;
static eg_rpc_client *ing, *gra, *vec, *rec;
static eg_err e;

static void test_start(void) {
  cl.dir = eg_test_tempdir("engram-limits");
  EG_REQUIRE(cl.dir != NULL);
  const char *g[] = {"--max-edges-per-commit=3", "--max-string-bytes=64",   "--max-depth=2",
                     "--max-fanout=4",           "--max-message-bytes=64k", NULL};
  const char *v[] = {"--max-chunks=2", "--max-text-bytes=300", "--max-k=12", "--max-queries=2",
                     NULL};
  EG_REQUIRE(eg_harness_start("graphd", cl.dir, g, &cl.d[EG_GRAPHD], &e) == EG_OK);
  EG_REQUIRE(eg_harness_start("vectord", cl.dir, v, &cl.d[EG_VECTORD], &e) == EG_OK);
  char ga[80], va[80];
  snprintf(ga, sizeof ga, "--graphd-addr=%s", cl.d[EG_GRAPHD].addr);
  snprintf(va, sizeof va, "--vectord-addr=%s", cl.d[EG_VECTORD].addr);
  const char *i[] = {ga,
                     va,
                     "--max-messages=3",
                     "--max-text-bytes=300",
                     "--max-document-bytes=1k",
                     "--max-facts=2",
                     NULL};
  /* vectord takes at most 12 results per query: recalld, which asks for 20 candidates, is told */
  const char *r[] = {
      ga,  va, "--max-k=5", "--vectord-max-k=12", "--max-query-bytes=100", "--max-token-budget=500",
      NULL};
  EG_REQUIRE(eg_harness_start("ingestd", cl.dir, i, &cl.d[EG_INGESTD], &e) == EG_OK);
  EG_REQUIRE(eg_harness_start("recalld", cl.dir, r, &cl.d[EG_RECALLD], &e) == EG_OK);
  eg_rpc_client_opts o = {.max_attempts = 1};
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, &o, &ing, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, &o, &gra, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_VECTORD].addr, &o, &vec, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_RECALLD].addr, &o, &rec, &e) == EG_OK);
}

/* rc is INVALID_ARGUMENT and the message holds `words`. */
static void refused(eg_code rc, const char *words) {
  EG_CHECK_INT(rc, EG_EINVAL);
  if (!EG_CHECK(strstr(e.msg, words) != NULL))
    fprintf(stderr, "  message: %s (want \"%s\")\n", e.msg, words);
}

static Engram__V1__Scope scope(void) {
  Engram__V1__Scope s = ENGRAM__V1__SCOPE__INIT;
  s.tenant = "lim";
  s.user = "u1";
  return s;
}

static void test_graph(void) {
  const char *likes[4] = {"tea", "jazz", "rain", "chess"};
  Engram__V1__Scope sc = scope();
  Engram__V1__EntityRef me = ENGRAM__V1__ENTITY_REF__INIT;
  me.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  me.name = "user:u1";
  Engram__V1__EdgeInput in[4], *inp[4];
  for (int i = 0; i < 4; i++) {
    engram__v1__edge_input__init(&in[i]);
    in[i].subject = &me;
    in[i].relation = "LIKES";
    in[i].object_literal = (char *)likes[i];
    inp[i] = &in[i];
  }
  Engram__V1__CommitRequest c = ENGRAM__V1__COMMIT_REQUEST__INIT;
  c.scope = &sc;
  c.edges = inp;
  c.n_edges = 4;
  refused(eg_graphd_commit(gra, &c, NULL, &e), "edges");
  /* three edges, the last one's literal over max_string_bytes: none written */
  char big[80];
  memset(big, 'x', 70);
  big[70] = 0;
  in[2].object_literal = big;
  c.n_edges = 3;
  refused(eg_graphd_commit(gra, &c, NULL, &e), "64");
  /* and the last one not UTF-8 */
  in[2].object_literal = "caf\xc3";
  EG_CHECK_INT(eg_graphd_commit(gra, &c, NULL, &e), EG_EINVAL);
  EG_CHECK_STR(gc_value(gra, "lim", "user:u1", "LIKES", 0, 0), "");
  Engram__V1__TraverseRequest t = ENGRAM__V1__TRAVERSE_REQUEST__INIT;
  Engram__V1__EntityRef *seed[] = {&me};
  t.scope = &sc;
  t.seeds = seed;
  t.n_seeds = 1;
  t.max_depth = 3;
  refused(eg_graphd_traverse(gra, &t, NULL, &e), "max_depth");
  t.max_depth = 2;
  t.max_fanout = 5;
  refused(eg_graphd_traverse(gra, &t, NULL, &e), "max_fanout");
  /* the premise walk has the same depth limit */
  uint64_t claim = 1;
  Engram__V1__WalkRequest w = ENGRAM__V1__WALK_REQUEST__INIT;
  w.scope = &sc;
  w.claims = &claim;
  w.n_claims = 1;
  w.max_depth = 3;
  refused(eg_graphd_walk(gra, &w, NULL, &e), "max_depth");
  w.max_depth = 2; /* accepted: what is left to say is that no edge 1 exists */
  EG_CHECK_INT(eg_graphd_walk(gra, &w, NULL, &e), EG_ENOTFOUND);
  /* the whole message over max_message_bytes (64 KiB) */
  char *huge = malloc(70000);
  memset(huge, 'y', 69999);
  huge[69999] = 0;
  in[0].object_literal = huge;
  c.n_edges = 1;
  EG_CHECK_INT(eg_graphd_commit(gra, &c, NULL, &e), EG_EFULL);
  free(huge);
}

static int search_count(const char *text) {
  Engram__V1__SearchResponse *r = NULL;
  if (ic_search(vec, "lim", NULL, text, 5, &r, &e) != EG_OK) return -1;
  int n = (int)r->results[0]->n_hits;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return n;
}

static void test_vector(void) {
  Engram__V1__Scope sc = scope();
  Engram__V1__Chunk ch[3], *chp[3];
  const char *texts[3] = {"The heron stood in the shallow pond.", "A second chunk about herons.",
                          "A third."};
  for (int i = 0; i < 3; i++) {
    engram__v1__chunk__init(&ch[i]);
    ch[i].id = 100 + (uint64_t)i;
    ch[i].content = (char *)texts[i];
    ch[i].latent = (char *)texts[i];
    chp[i] = &ch[i];
  }
  Engram__V1__UpsertRequest u = ENGRAM__V1__UPSERT_REQUEST__INIT;
  u.scope = &sc;
  u.chunks = chp;
  u.n_chunks = 3;
  refused(eg_vectord_upsert(vec, &u, NULL, &e), "chunks");
  char big[320];
  memset(big, 'h', 310);
  big[310] = 0;
  ch[1].content = big;
  u.n_chunks = 2;
  refused(eg_vectord_upsert(vec, &u, NULL, &e), "300");
  ch[1].content = "bad \xff byte";
  EG_CHECK_INT(eg_vectord_upsert(vec, &u, NULL, &e), EG_EINVAL);
  EG_CHECK_INT(search_count("heron"), 0); /* the first, valid chunk was not written either */
  Engram__V1__SearchQuery q = ENGRAM__V1__SEARCH_QUERY__INIT, *qs[3] = {&q, &q, &q};
  q.text = "heron";
  Engram__V1__SearchRequest s = ENGRAM__V1__SEARCH_REQUEST__INIT;
  s.scope = &sc;
  s.queries = qs;
  s.n_queries = 3;
  refused(eg_vectord_search(vec, &s, NULL, &e), "queries");
  s.n_queries = 1;
  s.k = 13;
  refused(eg_vectord_search(vec, &s, NULL, &e), "k above");
}

static void test_ingest(void) {
  char big[320];
  memset(big, 'w', 310);
  big[310] = 0;
  const char *const four[] = {"user", "one",   "assistant", "two",
                              "user", "three", "assistant", "four"};
  refused(ic_session(ing, "lim", "u1", "s1", T("2024-01-01"), four, 4, false, NULL, &e),
          "messages");
  const char *const last_big[] = {"user", "The kestrel nests on the tower.", "assistant", big};
  refused(ic_session(ing, "lim", "u1", "s2", T("2024-01-01"), last_big, 2, false, NULL, &e), "300");
  const char *const last_bad[] = {"user", "The kestrel nests on the tower.", "assistant",
                                  "bad \xc0\x80 bytes"};
  EG_CHECK_INT(ic_session(ing, "lim", "u1", "s3", T("2024-01-01"), last_bad, 2, false, NULL, &e),
               EG_EINVAL);
  EG_CHECK_INT(search_count("kestrel tower"), 0);
  EG_CHECK_STR(gc_value(gra, "lim", "user:u1", "LIVES_IN", 0, 0), "");
  Engram__V1__Scope sc = scope();
  char doc[1100];
  memset(doc, 'd', 1030);
  doc[1030] = 0;
  Engram__V1__IngestDocumentRequest d = ENGRAM__V1__INGEST_DOCUMENT_REQUEST__INIT;
  d.scope = &sc;
  d.document_id = "d1";
  d.text = doc;
  refused(eg_ingestd_ingest_document(ing, &d, NULL, &e), "1024");
  Engram__V1__FactInput f = ENGRAM__V1__FACT_INPUT__INIT, *fs[3] = {&f, &f, &f};
  Engram__V1__EntityRef subj = ENGRAM__V1__ENTITY_REF__INIT;
  subj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  subj.name = "user:u1";
  f.subject = &subj;
  f.relation = "OWNS";
  f.object_literal = "a boat";
  Engram__V1__AssertFactsRequest af = ENGRAM__V1__ASSERT_FACTS_REQUEST__INIT;
  af.scope = &sc;
  af.facts = fs;
  af.n_facts = 3;
  refused(eg_ingestd_assert_facts(ing, &af, NULL, &e), "facts");
  EG_CHECK_STR(gc_value(gra, "lim", "user:u1", "OWNS", 0, 0), "");
}

static void test_recall(void) {
  Engram__V1__Scope sc = scope();
  Engram__V1__RecallRequest q = ENGRAM__V1__RECALL_REQUEST__INIT;
  q.scope = &sc;
  q.query = "Where do herons nest?";
  q.k = 6;
  refused(eg_recalld_recall(rec, &q, NULL, &e), "at most 5");
  q.k = 5;
  q.token_budget = 501;
  refused(eg_recalld_recall(rec, &q, NULL, &e), "token_budget");
  q.token_budget = 0;
  char longq[120];
  memset(longq, 'q', 110);
  longq[110] = 0;
  q.query = longq;
  refused(eg_recalld_recall(rec, &q, NULL, &e), "at most 100");
  q.query = "where \xed\xa0\x80 now"; /* a UTF-16 surrogate */
  EG_CHECK_INT(eg_recalld_recall(rec, &q, NULL, &e), EG_EINVAL);
  q.query = "Where did I move last weekend?";
  q.query_time = INT64_MAX - 1000000; /* "last weekend" of the year 292277 */
  refused(eg_recalld_recall(rec, &q, NULL, &e), "year 10000");
  q.query_time = 0;
  q.valid_at = eg_days_from_civil(10000, 1, 1) * 86400 * EG_US_PER_SEC;
  refused(eg_recalld_recall(rec, &q, NULL, &e), "year 10000");
  q.valid_at = q.valid_at - 1;
  q.query = "Where do herons nest?";
  if (!EG_CHECK(eg_recalld_recall(rec, &q, NULL, &e) == EG_OK)) fprintf(stderr, "  %s\n", e.msg);
  q.valid_at = 0;
  if (!EG_CHECK(eg_recalld_recall(rec, &q, NULL, &e) == EG_OK)) fprintf(stderr, "  %s\n", e.msg);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_graph);
  EG_RUN(test_vector);
  EG_RUN(test_ingest);
  EG_RUN(test_recall);
  eg_rpc_client_close(ing);
  eg_rpc_client_close(gra);
  eg_rpc_client_close(vec);
  eg_rpc_client_close(rec);
  eg_cluster_stop(&cl, eg_test_failed());
  eg_rpc_global_shutdown();
  return eg_test_finish();
}
