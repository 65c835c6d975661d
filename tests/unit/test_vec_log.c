/*
 * test_vec_log.c — vectord's log records in-process (deploy/REPLICATION.md): a writer
 * engine whose store hands its records to this test instead of PostgreSQL, and a follower
 * engine that applies them (eg_vec_apply).
 *
 *   records      one record per write, of the kind the write is; an upsert's carries its
 *                vectors (the follower never embeds) and words;
 *   same state   after applying, the follower's positions, Search answers (ids, order,
 *                scores), chunks and retention equal the writer's, over upserts (texts
 *                embedded on the writer), a replacement, staging and Publish, Delete,
 *                accesses, a policy, sweeps into the cold tier and an eviction, a user's
 *                erasure, a tenant's erasure;
 *   refusals     a position applied again, a record that is not one, a follower whose
 *                embedder differs from the writer's;
 *   watermarks   a position reached is visible at once, one not reached times out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/time.h"
#include "lang/embed.h"
#include "proto/engram/v1/vector_log.pb-c.h"
#include "services/vectord/vec.h"
#include "tests/graph_helpers.h"
#include "tests/replicas.h"
#include "tests/testlib.h"

#define DAY_US 86400000000LL

static char *dir;
static eg_embedder *emb;

/* The log: the records the writer's store handed over, in position order. */
typedef struct log {
  eg_replog_record r[256];
  size_t n;
} log_t;
static log_t lg;

static eg_code capture(void *ctx, uint64_t first, const eg_kv_record *recs, size_t n, eg_err *err) {
  log_t *l = ctx;
  if (first != l->n + 1 || l->n + n > 256)
    return eg_err_set(err, EG_EABORTED, "not at the log's end");
  for (size_t i = 0; i < n; i++) {
    uint8_t *p = malloc(recs[i].len ? recs[i].len : 1);
    memcpy(p, recs[i].data, recs[i].len);
    l->r[l->n] = (eg_replog_record){first + i, p, recs[i].len, eg_time_now_us()};
    l->n++;
  }
  return EG_OK;
}

static eg_vec *open_in(const char *name, eg_embedder *e) {
  char d[600];
  snprintf(d, sizeof d, "%s/%s", dir, name);
  eg_vec_opts o = {.dir = d,
                   .embedder = e,
                   .bm25_k1 = 1.2,
                   .bm25_b = 0.75,
                   .x = 0.4f,
                   .y = 0.4f,
                   .alpha = 0.4f,
                   .hnsw_threshold = 100000,
                   .hnsw_ef_search = 64,
                   .max_chunks = 1000,
                   .max_text_bytes = 65536,
                   .max_k = 100,
                   .max_queries = 8};
  eg_vec *v = NULL;
  eg_err err;
  if (eg_vec_open(&o, NULL, &v, &err)) fprintf(stderr, "open: %s\n", err.msg);
  return v;
}

static const char *texts[] = {
    "I adopted a golden retriever puppy named Max last weekend.",
    "Golden retrievers are wonderful family dogs and love to swim.",
    "My sister Emma is getting married in Lisbon next June.",
    "A wedding in Portugal sounds lovely; June is a great month there.",
    "I switched from Python to Rust for my backend services this year.",
    "The ferry to the islands leaves the harbour at seven every morning.",
};
#define N_TEXTS (sizeof texts / sizeof *texts)

/* Upsert texts[from, to) as ids id0 … of user (every other one staged when asked). */
static eg_code upsert(eg_vec *v, const char *tenant, const char *user, size_t from, size_t to,
                      uint64_t id0, bool staged) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = gc_scope(tenant, user);
  Engram__V1__Chunk **cs = eg_arena_alloc(a, (to - from) * sizeof *cs);
  for (size_t i = from; i < to; i++) {
    Engram__V1__Chunk *c = cs[i - from] = eg_arena_calloc(a, 1, sizeof *c);
    engram__v1__chunk__init(c);
    c->id = id0 + i;
    c->content = (char *)texts[i];
    c->session_id = "s1";
    c->turn_index = (int32_t)i;
    c->staged = staged && i % 2;
  }
  Engram__V1__UpsertRequest req = ENGRAM__V1__UPSERT_REQUEST__INIT;
  req.scope = &scope;
  req.chunks = cs;
  req.n_chunks = to - from;
  Engram__V1__UpsertResponse resp = ENGRAM__V1__UPSERT_RESPONSE__INIT;
  eg_err e;
  eg_code rc = eg_vec_upsert(v, &req, a, &resp, &e);
  if (rc) fprintf(stderr, "upsert: %s\n", e.msg);
  eg_arena_free(a);
  return rc;
}

/* The kind of record i of the log (0 when it does not decode). */
static int kind_of(size_t i, size_t *vectors) {
  Engram__V1__VectorLogRecord *r =
      engram__v1__vector_log_record__unpack(NULL, lg.r[i].len, lg.r[i].payload);
  if (!r) return 0;
  Engram__V1__VectorWrite *w = engram__v1__vector_write__unpack(NULL, r->body.len, r->body.data);
  int k = w ? (int)w->write_case : 0;
  if (w && vectors && k == ENGRAM__V1__VECTOR_WRITE__WRITE_UPSERT)
    for (size_t c = 0; c < w->upsert->n_chunks; c++) *vectors += w->upsert->chunks[c]->n_vectors;
  if (w) engram__v1__vector_write__free_unpacked(w, NULL);
  engram__v1__vector_log_record__free_unpacked(r, NULL);
  return k;
}

/* Every kind of write on the writer w; checks the records each one adds. */
static void writes(eg_vec *w) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_err e;
  EG_REQUIRE(upsert(w, "t1", NULL, 0, 4, 1, false) == EG_OK);
  /* a new tenant is registered first, then the upsert */
  EG_CHECK_INT((int)lg.n, 2);
  size_t vectors = 0;
  EG_CHECK_INT(kind_of(0, NULL), ENGRAM__V1__VECTOR_WRITE__WRITE_TENANT);
  EG_CHECK_INT(kind_of(1, &vectors), ENGRAM__V1__VECTOR_WRITE__WRITE_UPSERT);
  EG_CHECK_INT((int)vectors, 4 * 2 * emb->dim);
  EG_REQUIRE(upsert(w, "t1", "u1", 4, N_TEXTS, 1, true) == EG_OK);
  EG_REQUIRE(upsert(w, "t1", "u2", 0, 2, 101, false) == EG_OK);
  EG_REQUIRE(upsert(w, "t1", NULL, 1, 2, 1, false) == EG_OK); /* replaces chunk 2 */
  Engram__V1__Scope s = gc_scope("t1", NULL), u2 = gc_scope("t1", "u2");
  uint64_t staged[1] = {6}, gone[1] = {3}, used[2] = {1, 5};
  Engram__V1__PublishRequest pr = ENGRAM__V1__PUBLISH_REQUEST__INIT;
  pr.scope = &s;
  pr.ids = staged;
  pr.n_ids = 1;
  Engram__V1__PublishResponse pres = ENGRAM__V1__PUBLISH_RESPONSE__INIT;
  EG_CHECK(eg_vec_publish(w, &pr, a, &pres, &e) == EG_OK && pres.published == 1);
  Engram__V1__DeleteRequest dr = ENGRAM__V1__DELETE_REQUEST__INIT;
  dr.scope = &s;
  dr.ids = gone;
  dr.n_ids = 1;
  Engram__V1__DeleteResponse dres = ENGRAM__V1__DELETE_RESPONSE__INIT;
  EG_CHECK(eg_vec_delete(w, &dr, a, &dres, &e) == EG_OK && dres.deleted == 1);
  EG_CHECK_INT(kind_of(lg.n - 1, NULL), ENGRAM__V1__VECTOR_WRITE__WRITE_DELETION);
  size_t before = lg.n;
  dres.deleted = 9; /* nothing to delete: nothing recorded */
  EG_CHECK(eg_vec_delete(w, &dr, a, &dres, &e) == EG_OK && dres.deleted == 0);
  EG_CHECK_INT((int)lg.n, (int)before);
  Engram__V1__RecordAccessRequest ar = ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT;
  ar.scope = &s;
  ar.ids = used;
  ar.n_ids = 2;
  Engram__V1__RecordAccessResponse ares = ENGRAM__V1__RECORD_ACCESS_RESPONSE__INIT;
  EG_CHECK(eg_vec_record_access(w, &ar, a, &ares, &e) == EG_OK && ares.recorded == 2);
  EG_CHECK_INT(kind_of(lg.n - 1, NULL), ENGRAM__V1__VECTOR_WRITE__WRITE_MOVES);
  Engram__V1__RetentionPolicy pol = ENGRAM__V1__RETENTION_POLICY__INIT;
  pol.half_life_days = 4;
  pol.evict_cold_after_days = 50;
  Engram__V1__SetRetentionPolicyRequest sp = ENGRAM__V1__SET_RETENTION_POLICY_REQUEST__INIT;
  sp.scope = &s;
  sp.policy = &pol;
  sp.confirm_tenant = "t1";
  Engram__V1__SetRetentionPolicyResponse spr = ENGRAM__V1__SET_RETENTION_POLICY_RESPONSE__INIT;
  EG_CHECK(eg_vec_set_retention(w, &sp, a, &spr, &e) == EG_OK);
  EG_CHECK_INT(kind_of(lg.n - 1, NULL), ENGRAM__V1__VECTOR_WRITE__WRITE_POLICY);
  int64_t now = eg_time_now_us();
  Engram__V1__SweepRetentionRequest sw = ENGRAM__V1__SWEEP_RETENTION_REQUEST__INIT;
  sw.scope = &s;
  sw.at = now + 30 * DAY_US; /* every chunk cold */
  Engram__V1__SweepRetentionResponse swr = ENGRAM__V1__SWEEP_RETENTION_RESPONSE__INIT;
  EG_CHECK(eg_vec_sweep(w, &sw, a, &swr, &e) == EG_OK && swr.demoted > 0);
  ar.n_ids = 1;
  ar.time = now + 99 * DAY_US; /* chunk 1 used the day before the next sweep */
  EG_CHECK(eg_vec_record_access(w, &ar, a, &ares, &e) == EG_OK);
  sw.at = now + 100 * DAY_US; /* the others evicted */
  EG_CHECK(eg_vec_sweep(w, &sw, a, &swr, &e) == EG_OK && swr.evicted > 0);
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &u2;
  Engram__V1__EraseResponse eres = ENGRAM__V1__ERASE_RESPONSE__INIT;
  EG_CHECK(eg_vec_erase(w, &er, a, &eres, &e) == EG_OK);
  /* a tenant written, then erased whole */
  EG_REQUIRE(upsert(w, "t2", NULL, 0, 3, 1, false) == EG_OK);
  Engram__V1__Scope t2 = gc_scope("t2", NULL);
  er.scope = &t2;
  er.confirm_tenant = "t2";
  EG_CHECK(eg_vec_erase(w, &er, a, &eres, &e) == EG_OK);
  EG_CHECK_INT(kind_of(lg.n - 1, NULL), ENGRAM__V1__VECTOR_WRITE__WRITE_ERASURE);
  EG_REQUIRE(upsert(w, "t1", NULL, 5, 6, 1, false) == EG_OK);
  eg_arena_free(a);
}

/* Search text in tenant (with cold chunks), into a (caller's arena). */
static Engram__V1__SearchResponse *search(eg_vec *v, const char *tenant, const char *user,
                                          const char *text, eg_arena *a) {
  Engram__V1__Scope scope = gc_scope(tenant, user);
  Engram__V1__SearchQuery q = ENGRAM__V1__SEARCH_QUERY__INIT, *qp = &q;
  q.text = (char *)text;
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = &scope;
  req.queries = &qp;
  req.n_queries = 1;
  req.k = 20;
  req.include_cold = true;
  Engram__V1__SearchResponse *r = eg_arena_alloc(a, sizeof *r);
  engram__v1__search_response__init(r);
  eg_err e;
  return eg_vec_search(v, &req, a, r, &e) == EG_OK ? r : NULL;
}

static int64_t ret_at; /* when retention is evaluated (the same on both) */

/* GetRetention of ids 1 … 8 and 101, 102 at a fixed time, into a. */
static ProtobufCMessage *retention(eg_vec *v, eg_arena *a) {
  uint64_t ids[] = {1, 2, 3, 4, 5, 6, 7, 8, 101, 102};
  Engram__V1__Scope s = gc_scope("t1", NULL);
  Engram__V1__GetRetentionRequest req = ENGRAM__V1__GET_RETENTION_REQUEST__INIT;
  req.scope = &s;
  req.chunk_ids = ids;
  req.n_chunk_ids = sizeof ids / sizeof *ids;
  req.at = ret_at;
  Engram__V1__GetRetentionResponse *r = eg_arena_alloc(a, sizeof *r);
  engram__v1__get_retention_response__init(r);
  eg_err e;
  return eg_vec_get_retention(v, &req, a, r, &e) == EG_OK ? &r->base : NULL;
}

static void test_follower_equals_writer(void) {
  eg_vec *w = open_in("writer", emb), *f = open_in("follower", emb);
  EG_REQUIRE(w && f);
  eg_kv_set_mode(eg_vec_store(w), EG_KV_LEADER, capture, &lg);
  eg_kv_set_mode(eg_vec_store(f), EG_KV_FOLLOWER, NULL, NULL);
  writes(w);
  EG_CHECK_INT((int)eg_vec_position(w), (int)lg.n);
  /* a follower takes no write of its own */
  EG_CHECK_INT(upsert(f, "t1", NULL, 0, 1, 1, false), EG_EUNAVAIL);
  eg_err e;
  size_t half = lg.n / 2;
  EG_REQUIRE(eg_vec_apply(f, lg.r, half, &e) == EG_OK);
  EG_REQUIRE(eg_vec_apply(f, lg.r + half, lg.n - half, &e) == EG_OK);
  EG_CHECK_INT((int)eg_vec_position(f), (int)lg.n);
  EG_CHECK(eg_vec_wait_visible(f, lg.n, eg_time_now_us(), &e) == EG_OK);
  const char *qs[] = {"puppy retriever", "wedding Lisbon", "Rust backend", "ferry harbour",
                      "family dogs swim"};
  const char *users[] = {NULL, "u1", "u2"};
  int compared = 0, differ = 0;
  for (size_t q = 0; q < sizeof qs / sizeof *qs; q++)
    for (int u = 0; u < 3; u++)
      for (int t = 0; t < 2; t++) {
        eg_arena *a = eg_arena_new(0, 0);
        const char *tenant = t ? "t2" : "t1";
        Engram__V1__SearchResponse *x = search(w, tenant, users[u], qs[q], a),
                                   *y = search(f, tenant, users[u], qs[q], a);
        EG_REQUIRE(x && y && x->n_results == 1 && y->n_results == 1);
        const Engram__V1__QueryHits *hx = x->results[0], *hy = y->results[0];
        bool same = hx->n_hits == hy->n_hits;
        for (size_t i = 0; same && i < hx->n_hits; i++)
          same = hx->hits[i]->chunk->id == hy->hits[i]->chunk->id &&
                 fabsf(hx->hits[i]->score - hy->hits[i]->score) < 1e-5f;
        compared++;
        differ += !same;
        eg_arena_free(a);
      }
  EG_CHECK_INT(differ, 0);
  EG_CHECK(compared == 30);
  ret_at = eg_time_now_us() + 120 * DAY_US;
  eg_arena *ra = eg_arena_new(0, 0);
  ProtobufCMessage *xa = retention(w, ra), *xb = retention(f, ra);
  EG_CHECK(xa && xb && eg_same_message(xa, xb));
  eg_arena_free(ra);
  /* refusals: a position applied again, a record that is not one */
  EG_CHECK_INT(eg_vec_apply(f, lg.r, 1, &e), EG_EPRECOND);
  eg_replog_record junk = {lg.n + 1, (const uint8_t *)"\x0a\xff", 2, 0};
  EG_CHECK_INT(eg_vec_apply(f, &junk, 1, &e), EG_ECORRUPT);
  EG_CHECK(strstr(e.msg, "log position") != NULL);
  EG_CHECK_INT((int)eg_vec_position(f), (int)lg.n);
  eg_vec_close(w);
  eg_vec_close(f);
}

static void test_other_embedder_refused(void) {
  eg_embedder *other;
  eg_err e;
  EG_REQUIRE(eg_embed_http_open("http://127.0.0.1:1", "other", emb->dim, NULL, 100, &other, &e) ==
             EG_OK);
  eg_vec *f = open_in("other", other);
  EG_REQUIRE(f);
  eg_kv_set_mode(eg_vec_store(f), EG_KV_FOLLOWER, NULL, NULL);
  EG_CHECK_INT(eg_vec_apply(f, lg.r, 2, &e), EG_EPRECOND); /* registration, then the upsert */
  EG_CHECK(strstr(e.msg, "embedder") != NULL);
  EG_CHECK_INT((int)eg_vec_position(f), 1);
  eg_vec_close(f);
  eg_embedder_close(other);
}

static void test_single_node_positions(void) {
  eg_vec *v = open_in("alone", emb);
  EG_REQUIRE(v);
  uint64_t p0 = eg_vec_position(v);
  EG_REQUIRE(upsert(v, "t1", NULL, 0, 2, 1, false) == EG_OK);
  EG_CHECK(eg_vec_position(v) == p0 + 2); /* the tenant's registration, the upsert */
  eg_err e;
  EG_CHECK(eg_vec_wait_visible(v, p0 + 2, eg_time_now_us(), &e) == EG_OK);
  int64_t t0 = eg_time_mono_us();
  EG_CHECK_INT(eg_vec_wait_visible(v, p0 + 3, eg_time_now_us() + 200000, &e), EG_ETIMEOUT);
  EG_CHECK(eg_time_mono_us() - t0 >= 150000);
  EG_CHECK(strstr(e.msg, "not yet") != NULL);
  eg_vec_close(v);
}

int main(void) {
  dir = eg_test_tempdir("veclog");
  eg_err e;
  if (eg_embedder_open("glove:" EG_SOURCE_DIR "/var/models/glove-100d.bin", &emb, &e)) {
    fprintf(stderr, "embedder: %s\n", e.msg);
    return 1;
  }
  EG_RUN(test_follower_equals_writer);
  EG_RUN(test_other_embedder_refused);
  EG_RUN(test_single_node_positions);
  for (size_t i = 0; i < lg.n; i++) free((void *)lg.r[i].payload);
  eg_embedder_close(emb);
  int rc = eg_test_finish();
  if (!rc) eg_test_rmtree(dir);
  free(dir);
  return rc;
}
