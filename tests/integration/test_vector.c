/*
 * test_vector.c — vectord over real gRPC: upsert and hybrid search, validation errors
 * (nothing written), GetChunks with neighbours, kill -9 after acknowledged upserts and
 * restart (every chunk searchable), Delete, the CLI, WordNet concepts in BM25, a Search's
 * hits sharing their chunks (shared_chunks), 260 tenants all loaded after a restart.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/rpc.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

static char *dir;
static eg_proc vd;
static eg_rpc_client *cl;

static eg_code upsert_texts(const char *tenant, uint64_t first_id, const char *const *texts,
                            size_t n, const char *session, eg_err *e) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  Engram__V1__Chunk *cs = calloc(n, sizeof *cs), **ps = calloc(n, sizeof *ps);
  for (size_t i = 0; i < n; i++) {
    engram__v1__chunk__init(&cs[i]);
    cs[i].id = first_id + i;
    cs[i].content = (char *)texts[i];
    cs[i].session_id = (char *)session;
    cs[i].role = i % 2 ? "assistant" : "user";
    cs[i].turn_index = (int32_t)i;
    ps[i] = &cs[i];
  }
  Engram__V1__UpsertRequest req = ENGRAM__V1__UPSERT_REQUEST__INIT;
  req.scope = &scope;
  req.chunks = ps;
  req.n_chunks = n;
  eg_code rc = eg_vectord_upsert(cl, &req, NULL, e);
  free(cs);
  free(ps);
  return rc;
}

/* Top hit id for a text query (0 when none). */
static uint64_t top(const char *tenant, const char *text) {
  Engram__V1__SearchResponse *r = NULL;
  eg_err e;
  uint64_t id = 0;
  if (ic_search(cl, tenant, NULL, text, 3, &r, &e) == EG_OK) {
    if (r->n_results && r->results[0]->n_hits) id = r->results[0]->hits[0]->chunk->id;
    protobuf_c_message_free_unpacked(&r->base, NULL);
  } else {
    fprintf(stderr, "search: %s\n", e.msg);
  }
  return id;
}

static const char *texts[] = {
    "I adopted a golden retriever puppy named Max last weekend.",
    "Congratulations! Golden retrievers are wonderful family dogs.",
    "My sister Emma is getting married in Lisbon next June.",
    "A wedding in Portugal sounds lovely; June is a great month there.",
    "I switched from Python to Rust for my backend services this year.",
    "Rust's ownership model prevents many memory bugs at compile time.",
};

static void test_start(void) {
  dir = eg_test_tempdir("vector");
  setenv("ENGRAM_BM25_CONCEPTS", "0.4", 0); /* test_concepts reads them at this weight */
  eg_err e;
  EG_REQUIRE(eg_harness_start("vectord", dir, NULL, &vd, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(vd.addr, NULL, &cl, &e) == EG_OK);
}

static void test_upsert_search(void) {
  eg_err e;
  EG_REQUIRE(upsert_texts("acme", 1, texts, 6, "s1", &e) == EG_OK);
  EG_CHECK_INT(top("acme", "puppy dog retriever"), 1);
  EG_CHECK_INT(top("acme", "Emma married in Lisbon"), 3);
  EG_CHECK_INT(top("acme", "Rust programming language"), 5);
  EG_CHECK_INT(top("other-tenant", "puppy dog retriever"), 0); /* isolation */
}

/* Three queries finding mostly the same chunks, asked with and without shared_chunks: the
 * same hits in the same order with the same scores; shared, each distinct chunk comes once
 * and every hit names its own by chunk_index. */
static Engram__V1__SearchResponse *search3(bool shared) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "acme";
  Engram__V1__SearchQuery q[3], *qp[3];
  const char *words[] = {"golden retriever puppy", "retriever dogs family", "wedding Lisbon June"};
  for (int i = 0; i < 3; i++) {
    engram__v1__search_query__init(&q[i]);
    q[i].text = (char *)words[i];
    qp[i] = &q[i];
  }
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qp;
  req.n_queries = 3;
  req.k = 6;
  req.include_content = true;
  req.shared_chunks = shared;
  Engram__V1__SearchResponse *r = NULL;
  eg_err e;
  if (eg_vectord_search(cl, &req, &r, &e) != EG_OK) fprintf(stderr, "search: %s\n", e.msg);
  return r;
}

static void test_shared_chunks(void) {
  Engram__V1__SearchResponse *each = search3(false), *shared = search3(true);
  EG_REQUIRE(each && shared);
  EG_CHECK_INT(each->n_chunks, 0);
  EG_CHECK_INT(shared->n_results, 3);
  size_t hits = 0;
  for (size_t q = 0; q < each->n_results && q < shared->n_results; q++) {
    const Engram__V1__QueryHits *a = each->results[q], *b = shared->results[q];
    EG_CHECK_INT(b->n_hits, a->n_hits);
    for (size_t i = 0; i < a->n_hits && i < b->n_hits; i++, hits++) {
      const Engram__V1__SearchHit *x = a->hits[i], *y = b->hits[i];
      EG_CHECK(y->chunk == NULL);
      EG_CHECK(y->chunk_index < shared->n_chunks);
      if (y->chunk_index >= shared->n_chunks) continue;
      const Engram__V1__Chunk *c = shared->chunks[y->chunk_index];
      EG_CHECK_INT(c->id, x->chunk->id);
      EG_CHECK_STR(c->content, x->chunk->content);
      EG_CHECK(x->score == y->score && x->content_sim == y->content_sim && x->bm25 == y->bm25);
    }
  }
  /* the queries overlap: fewer chunks than hits, none twice */
  EG_CHECK(shared->n_chunks > 0 && shared->n_chunks < hits);
  for (size_t i = 0; i < shared->n_chunks; i++)
    for (size_t j = i + 1; j < shared->n_chunks; j++)
      EG_CHECK(shared->chunks[i]->id != shared->chunks[j]->id);
  protobuf_c_message_free_unpacked(&each->base, NULL);
  protobuf_c_message_free_unpacked(&shared->base, NULL);
}

/* Chunk id's raw BM25 for one query (text) of tenant, or with by_bm25 its fused score when BM25
 * alone is weighed (normalized by the best match); 0 when it is not among the first 20 hits,
 * -1 when the search failed. */
static float hit_of(const char *tenant, const char *text, uint64_t id, bool by_bm25) {
  Engram__V1__SearchWeights w = ENGRAM__V1__SEARCH_WEIGHTS__INIT;
  w.alpha = 1; /* x = y = 0: the dense similarities weigh nothing */
  Engram__V1__SearchResponse *r = NULL;
  eg_err e;
  float s = 0;
  if (ic_search_weighted(cl, tenant, NULL, text, 20, by_bm25 ? &w : NULL, &r, &e) != EG_OK)
    return -1;
  for (size_t i = 0; r->n_results && i < r->results[0]->n_hits; i++)
    if (r->results[0]->hits[i]->chunk->id == id)
      s = by_bm25 ? r->results[0]->hits[i]->score : r->results[0]->hits[i]->bm25;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return s;
}

static float bm25_of(const char *tenant, const char *text, uint64_t id) {
  return hit_of(tenant, text, id, false);
}

/* A chunk's nouns carry their WordNet synonyms and hypernyms: "siblings" meets "sisters",
 * "instrument" meets "violin", "martial art" meets "karate" — below a chunk saying the word. */
static void test_concepts(void) {
  eg_err e;
  const char *t[] = {"My two sisters flew in for the holidays.",
                     "I have played the violin since I was eight.",
                     "Tuesdays I practise karate at the community centre.",
                     "I need a new case for my instrument before the tour.",
                     "The weather was mild and we walked a lot."};
  EG_REQUIRE(upsert_texts("wn", 1, t, 5, "s1", &e) == EG_OK);
  EG_CHECK(bm25_of("wn", "siblings", 1) > 0);
  EG_CHECK(bm25_of("wn", "musical instrument", 2) > 0);
  EG_CHECK(bm25_of("wn", "martial arts", 3) > 0);
  EG_CHECK(bm25_of("wn", "instrument", 4) > bm25_of("wn", "instrument", 2)); /* said > concept */
  EG_CHECK(bm25_of("wn", "instrument", 2) > 0);
  EG_CHECK_INT(bm25_of("wn", "instrument", 5), 0); /* nothing bridges to the weather */
  /* normalized by the best match: a word said is a full match; where no chunk says a word of
   * the query, the best concept match counts at the concepts' weight (0.4 here; + the
   * retention prior, at most 0.02) */
  EG_CHECK(hit_of("wn", "instrument", 4, true) >= 0.99f);
  float only = hit_of("wn", "siblings", 1, true);
  EG_CHECK(only > 0.3f && only <= 0.4f + 0.021f);
  /* … and where weaker chunks say a common word of the query, the best concept match still
   * counts at the weight (it is no full match, whatever the others say) */
  const char *u[] = {"My two sisters flew in for the holidays.",
                     "A long week of meetings.",
                     "Karate twice this week.",
                     "The week ended with rain.",
                     "Violin lessons all week.",
                     "My brother and his wife moved into a house with a garden by the river."};
  EG_REQUIRE(upsert_texts("wn2", 1, u, 5, "s1", &e) == EG_OK);
  EG_CHECK(bm25_of("wn2", "siblings week", 1) > bm25_of("wn2", "siblings week", 2));
  only = hit_of("wn2", "siblings week", 1, true);
  EG_CHECK(only > 0.3f && only <= 0.4f + 0.021f);
  EG_CHECK(hit_of("wn2", "siblings week", 2, true) > 0);
  /* … and weaker concept matches count in proportion below it, not all at the weight */
  EG_REQUIRE(upsert_texts("wn3", 1, u, 6, "s1", &e) == EG_OK);
  float sisters = hit_of("wn3", "siblings week", 1, true),
        brother = hit_of("wn3", "siblings week", 6, true);
  EG_CHECK(sisters > 0.3f && sisters <= 0.4f + 0.021f);
  EG_CHECK(brother > 0 && brother < sisters - 0.05f);
}

static void test_validation_writes_nothing(void) {
  eg_err e;
  const char *bad[] = {"fine text", "\xff\xfe not utf-8"};
  EG_CHECK_INT(upsert_texts("acme", 100, bad, 2, "s9", &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "chunks[1].content is not valid UTF-8") != NULL);
  EG_CHECK(top("acme", "fine text") != 100); /* the valid one was not written either */
  const char *empty[] = {""};
  EG_CHECK_INT(upsert_texts("acme", 101, empty, 1, "s9", &e), EG_EINVAL);
  EG_CHECK_INT(upsert_texts("", 101, texts, 1, "s9", &e), EG_EINVAL);
}

static void test_get_neighbours(void) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "acme";
  uint64_t id = 3;
  Engram__V1__GetChunksRequest req = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  req.scope = &scope;
  req.ids = &id;
  req.n_ids = 1;
  req.neighbours = 1;
  Engram__V1__GetChunksResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(eg_vectord_get_chunks(cl, &req, &r, &e) == EG_OK);
  EG_CHECK_INT(r->n_chunks, 3); /* turns 1, 2, 3 of session s1 */
  bool has_text = false;
  for (size_t i = 0; i < r->n_chunks; i++)
    has_text |= strstr(r->chunks[i]->content, "Emma") != NULL;
  EG_CHECK(has_text);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

static void test_kill9_recovery(void) {
  /* 40 acknowledged upserts of 5 chunks each, then kill -9 at once. */
  char buf[200][64];
  const char *t[5];
  eg_err e;
  int acked = 0;
  for (int b = 0; b < 40; b++) {
    for (int i = 0; i < 5; i++) {
      snprintf(buf[b * 5 + i], 64, "durable note %d about token%dx", b * 5 + i, b * 5 + i);
      t[i] = buf[b * 5 + i];
    }
    if (upsert_texts("durable", 1000 + (uint64_t)b * 5, t, 5, "sd", &e) == EG_OK) acked += 5;
  }
  EG_CHECK_INT(acked, 200);
  EG_CHECK_INT(eg_harness_stop(&vd, SIGKILL), 128 + SIGKILL);
  eg_rpc_client_close(cl);
  EG_REQUIRE(eg_harness_restart(&vd, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(vd.addr, NULL, &cl, &e) == EG_OK);
  int found = 0;
  for (int i = 0; i < 200; i++) {
    char q[32];
    snprintf(q, sizeof q, "token%dx", i);
    found += top("durable", q) == 1000 + (uint64_t)i;
  }
  EG_CHECK_INT(found, 200);
  EG_CHECK_INT(top("acme", "Emma married in Lisbon"), 3);
}

/* Every tenant's chunks come back after a restart, whatever its number: tenants are
 * numbered 1, 2, 3 … in the order they first write, and the load of tenant T reads the
 * keys between T and T + 1 (T = 255 = 0x…00FF included: its bound carries). */
static void test_many_tenants_restart(void) {
  enum { TENANTS = 260 };
  eg_err e;
  int acked = 0;
  for (int i = 0; i < TENANTS; i++) {
    char tenant[16], text[64];
    snprintf(tenant, sizeof tenant, "n%03d", i);
    snprintf(text, sizeof text, "the note of tenant word%dq", i);
    const char *t[1] = {text};
    acked += upsert_texts(tenant, 7, t, 1, "sn", &e) == EG_OK;
  }
  EG_CHECK_INT(acked, TENANTS);
  eg_rpc_client_close(cl);
  EG_CHECK_INT(eg_harness_stop(&vd, SIGTERM), 0);
  EG_REQUIRE(eg_harness_restart(&vd, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(vd.addr, NULL, &cl, &e) == EG_OK);
  int found = 0;
  for (int i = 0; i < TENANTS; i++) {
    char tenant[16], q[32];
    snprintf(tenant, sizeof tenant, "n%03d", i);
    snprintf(q, sizeof q, "word%dq", i);
    if (top(tenant, q) == 7)
      found++;
    else
      fprintf(stderr, "  tenant %s: its chunk is not found after the restart\n", tenant);
  }
  EG_CHECK_INT(found, TENANTS);
}

static void test_delete(void) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "acme";
  uint64_t ids[2] = {3, 424242};
  Engram__V1__DeleteRequest req = ENGRAM__V1__DELETE_REQUEST__INIT;
  req.scope = &scope;
  req.ids = ids;
  req.n_ids = 2;
  Engram__V1__DeleteResponse *resp = NULL;
  eg_err e;
  EG_REQUIRE(eg_vectord_delete(cl, &req, &resp, &e) == EG_OK);
  EG_CHECK_INT(resp->deleted, 1);
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  EG_CHECK(top("acme", "Emma married in Lisbon") != 3);
}

static void test_cli(void) {
  char out[600];
  snprintf(out, sizeof out, "%s/cli.out", dir);
  char base[300];
  snprintf(base, sizeof base, "%s/engram --vectord-addr %s --tenant clitenant", EG_BINARY_DIR,
           vd.addr);
  EG_CHECK_INT(
      eg_test_system("%s vector upsert - > %s <<'EOF'\n{\"chunks\":[{\"id\":7,\"content\":\"the "
                     "quarterly budget review is on friday\"}]}\nEOF",
                     base, out),
      0);
  EG_CHECK_INT(eg_test_system("%s vector search 'budget review' >> %s", base, out), 0);
  EG_CHECK_INT(eg_test_system("%s vector delete 7 >> %s", base, out), 0);
  EG_CHECK_INT(eg_test_system("%s vector search 'budget review' >> %s", base, out), 0);
  char *text = eg_test_slurp(out);
  EG_CHECK(strstr(text, "upserted 1 chunks (use-lite-512, 512 dims)") != NULL);
  EG_CHECK(strstr(text, "#7") != NULL && strstr(text, "quarterly budget review") != NULL);
  EG_CHECK(strstr(text, "deleted 1") != NULL);
  EG_CHECK(strstr(text, "(no hits)") != NULL);
  free(text);
}

static void test_metrics(void) {
  eg_buf body = EG_BUF_INIT;
  EG_CHECK_INT(eg_promtool_scrape(vd.metrics_port, dir, "vectord", &body), 0);
  EG_REQUIRE(body.data != NULL);
  const char *c = strstr(body.data, "\nengram_vectord_chunks ");
  EG_CHECK(c && atof(c + strlen("\nengram_vectord_chunks ")) >= 200);
  EG_CHECK(strstr(body.data, "engram_vectord_upserted_chunks_total") != NULL);
  EG_CHECK(strstr(body.data, "engram_vectord_search_stage_seconds_count{stage=\"dense\"}") != NULL);
  EG_CHECK(strstr(body.data, "engram_vectord_rocksdb_sst_bytes{cf=\"chunks\"}") != NULL);
  eg_buf_free(&body);
}

static void test_clean_exit(void) {
  eg_rpc_client_close(cl);
  cl = NULL;
  EG_CHECK_INT(eg_harness_stop(&vd, SIGTERM), 0);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_upsert_search);
  EG_RUN(test_shared_chunks);
  EG_RUN(test_concepts);
  EG_RUN(test_validation_writes_nothing);
  EG_RUN(test_get_neighbours);
  EG_RUN(test_kill9_recovery);
  EG_RUN(test_many_tenants_restart);
  EG_RUN(test_delete);
  EG_RUN(test_cli);
  EG_RUN(test_metrics);
  EG_RUN(test_clean_exit);
  int rc = eg_test_finish();
  eg_rpc_client_close(cl);
  if (vd.pid) eg_harness_stop(&vd, SIGTERM);
  if (rc) {
    eg_dump_file(vd.log, 4000);
    fprintf(stderr, "logs kept in %s\n", dir);
  } else {
    eg_test_rmtree(dir);
  }
  free(dir);
  eg_rpc_global_shutdown();
  return rc;
}
