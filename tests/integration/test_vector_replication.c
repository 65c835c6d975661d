/*
 * test_vector_replication.c — vectord replicas of one shard over a real PostgreSQL log
 * (deploy/REPLICATION.md): three replicas, one writer.
 *
 *   roles          the writer takes writes; a follower answers UNAVAILABLE naming the
 *                  writer; Search with a write's watermark finds it on every replica;
 *                  DEADLINE_EXCEEDED for a watermark not reached; followers embed nothing
 *                  (the log carries the vectors); the metrics.
 *   failover (a)   kill -9 of the writer under continuous upserts from a client: a
 *                  follower writes within 10 s, and every acknowledged upsert is on the
 *                  new writer, once (none lost, none duplicated).
 *   same answers (c) after catch-up every follower — the killed writer too, restarted —
 *                  answers Search (ids, order, scores), GetChunks and GetRetention as the
 *                  writer does, over every kind of write (upserts of several users,
 *                  staged chunks published, a delete, accesses, policies, sweeps with
 *                  demotions and evictions, a user's erasure) — one follower started from an
 *                  empty store after the erasure, replaying the whole log; the erased
 *                  user's own text is nowhere in the log.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/replica.h"
#include "common/time.h"
#include "common/vector_client.h"
#include "tests/graph_helpers.h"
#include "tests/replicas.h"
#include "tests/testlib.h"

#define TENANT "vrep"
#define LOAD_TENANT "vload"
#define RET_TENANT "vret"
#define LOAD_ID0 1000000
#define DAY_US (86400LL * EG_US_PER_SEC)
#define GONE_PHRASE "A quiet violet lighthouse 5521 only the erased user wrote."

static eg_replicas rs;
static eg_rpc_client *cl[EG_MAX_REPLICAS]; /* one per replica, no retries */
static char watermark[64];                 /* of the last write */

/* ---- calls ------------------------------------------------------------------------------- */

/* Run a call prepared by a typed client (eg_vectord_*_call); *resp (NULL: freed) gets the
 * response. */
static eg_code run(eg_rpc_request r, ProtobufCMessage **resp, eg_err *e) {
  eg_code rc = eg_rpc_run(&r, 0, e);
  if (resp)
    *resp = r.resp;
  else if (r.resp)
    protobuf_c_message_free_unpacked(r.resp, NULL);
  return rc;
}

/* A write that must succeed; keeps its watermark. */
static bool write_ok(eg_rpc_request r) {
  ProtobufCMessage *resp = NULL;
  eg_err e;
  if (run(r, &resp, &e)) {
    fprintf(stderr, "%s failed: %s\n", r.method, e.msg);
    return false;
  }
  char **w = eg_watermark_field(resp);
  if (w && *w) snprintf(watermark, sizeof watermark, "%s", *w);
  protobuf_c_message_free_unpacked(resp, NULL);
  return true;
}

typedef struct chunk_spec {
  uint64_t id;
  const char *text, *user, *session;
  int turn;
  bool staged;
} chunk_spec;

/* An UpsertRequest of n chunks (caller frees with free_upsert). */
static Engram__V1__UpsertRequest *upsert_req(const char *tenant, const chunk_spec *cs, size_t n) {
  Engram__V1__UpsertRequest *req = calloc(1, sizeof *req);
  engram__v1__upsert_request__init(req);
  req->scope = calloc(1 + n, sizeof *req->scope);
  engram__v1__scope__init(req->scope);
  req->scope->tenant = (char *)tenant;
  req->chunks = calloc(n, sizeof *req->chunks);
  req->n_chunks = n;
  for (size_t i = 0; i < n; i++) {
    Engram__V1__Chunk *c = req->chunks[i] = calloc(1, sizeof *c);
    engram__v1__chunk__init(c);
    Engram__V1__Scope *s = &req->scope[1 + i];
    engram__v1__scope__init(s);
    s->tenant = (char *)tenant;
    s->user = (char *)(cs[i].user ? cs[i].user : "");
    c->scope = s;
    c->id = cs[i].id;
    c->content = (char *)cs[i].text;
    c->session_id = (char *)(cs[i].session ? cs[i].session : "s1");
    c->role = "user";
    c->turn_index = cs[i].turn;
    c->time = T("2025-03-01T10:00:00Z") + cs[i].turn * EG_US_PER_SEC;
    c->staged = cs[i].staged;
  }
  return req;
}

static void free_upsert(Engram__V1__UpsertRequest *req) {
  for (size_t i = 0; i < req->n_chunks; i++) free(req->chunks[i]);
  free(req->chunks);
  free(req->scope);
  free(req);
}

static bool upsert(int r, const char *tenant, const chunk_spec *cs, size_t n) {
  Engram__V1__UpsertRequest *req = upsert_req(tenant, cs, n);
  bool ok = write_ok(eg_vectord_upsert_call(cl[r], req, NULL));
  free_upsert(req);
  return ok;
}

static eg_code search(int r, const char *tenant, const char *user, const char *text, bool cold,
                      const char *wm, Engram__V1__SearchResponse **out, eg_err *e) {
  Engram__V1__Scope scope = gc_scope(tenant, user);
  Engram__V1__SearchQuery q = ENGRAM__V1__SEARCH_QUERY__INIT, *qp = &q;
  q.text = (char *)text;
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = &scope;
  req.queries = &qp;
  req.n_queries = 1;
  req.k = 20;
  req.include_cold = cold;
  req.watermark = (char *)(wm ? wm : "");
  return run(eg_vectord_search_call(cl[r], &req, NULL), (ProtobufCMessage **)out, e);
}

/* ---- the client under failover ----------------------------------------------------------- */

static eg_rpc_request upsert_at(eg_rpc_client *c, const void *req) {
  return eg_vectord_upsert_call(c, req, NULL);
}

/* Upsert number i, with a client id (as ingestd's content hashes): a retry of an upsert
 * that landed replaces it. */
static eg_code load_upsert(eg_writer_client *wc, int i, void *ctx, int64_t give_up_us, eg_err *e) {
  (void)ctx;
  char text[96];
  snprintf(text, sizeof text, "load note %d about the harbour ferry schedule", i);
  chunk_spec cs = {.id = LOAD_ID0 + (uint64_t)i, .text = text, .turn = i};
  Engram__V1__UpsertRequest *req = upsert_req(LOAD_TENANT, &cs, 1);
  eg_code rc = eg_writer_call(wc, upsert_at, req, give_up_us, e);
  free_upsert(req);
  return rc;
}

static eg_load ld = {.write = load_upsert};

/* ---- the varied writes ------------------------------------------------------------------- */

static const char *texts[] = {
    "I adopted a golden retriever puppy named Max last weekend.",
    "Golden retrievers are wonderful family dogs and love to swim.",
    "My sister Emma is getting married in Lisbon next June.",
    "A wedding in Portugal sounds lovely; June is a great month there.",
    "I switched from Python to Rust for my backend services this year.",
    "Rust's ownership model prevents many memory bugs at compile time.",
    "The ferry to the islands leaves the harbour at seven every morning.",
    "We booked a table at the seafood place near the old harbour.",
};
#define N_TEXTS (sizeof texts / sizeof *texts)

static const char *queries[] = {"puppy dog retriever",     "Emma wedding in Lisbon",
                                "Rust programming memory", "harbour ferry morning",
                                "seafood dinner",          "family"};
#define N_QUERIES (sizeof queries / sizeof *queries)

/* Delete, Publish or RecordAccess (at `when`, 0 = now) of ids. */
static bool ids_call(int w, const char *method, const char *tenant, uint64_t *ids, size_t n,
                     int64_t when) {
  Engram__V1__Scope scope = gc_scope(tenant, NULL);
  if (!strcmp(method, "Delete")) {
    Engram__V1__DeleteRequest r = ENGRAM__V1__DELETE_REQUEST__INIT;
    r.scope = &scope;
    r.ids = ids;
    r.n_ids = n;
    return write_ok(eg_vectord_delete_call(cl[w], &r, NULL));
  }
  if (!strcmp(method, "Publish")) {
    Engram__V1__PublishRequest r = ENGRAM__V1__PUBLISH_REQUEST__INIT;
    r.scope = &scope;
    r.ids = ids;
    r.n_ids = n;
    return write_ok(eg_vectord_publish_call(cl[w], &r, NULL));
  }
  Engram__V1__RecordAccessRequest r = ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT;
  r.scope = &scope;
  r.ids = ids;
  r.n_ids = n;
  r.time = when;
  return write_ok(eg_vectord_record_access_call(cl[w], &r, NULL));
}

static bool policy(int w, const char *tenant, double half_life, double evict_days) {
  Engram__V1__Scope scope = gc_scope(tenant, NULL);
  Engram__V1__RetentionPolicy p = ENGRAM__V1__RETENTION_POLICY__INIT;
  p.half_life_days = half_life;
  p.evict_cold_after_days = evict_days;
  Engram__V1__SetRetentionPolicyRequest r = ENGRAM__V1__SET_RETENTION_POLICY_REQUEST__INIT;
  r.scope = &scope;
  r.policy = &p;
  r.confirm_tenant = (char *)tenant;
  return write_ok(eg_vectord_set_retention_policy_call(cl[w], &r, NULL));
}

static bool sweep(int w, const char *tenant, int64_t at) {
  Engram__V1__Scope scope = gc_scope(tenant, NULL);
  Engram__V1__SweepRetentionRequest r = ENGRAM__V1__SWEEP_RETENTION_REQUEST__INIT;
  r.scope = &scope;
  r.at = at;
  return write_ok(eg_vectord_sweep_retention_call(cl[w], &r, NULL));
}

/* Every kind of write, on the writer w. */
static void varied_writes(int w) {
  chunk_spec cs[N_TEXTS];
  const char *users[] = {NULL, "u1", "u2", "gone"};
  for (size_t i = 0; i < N_TEXTS; i++)
    cs[i] = (chunk_spec){.id = 10 + i, .text = texts[i], .user = users[i % 4], .turn = (int)i};
  EG_CHECK(upsert(w, TENANT, cs, N_TEXTS));
  /* a replaced chunk, a chunk with an id vectord assigns, staged chunks then published */
  chunk_spec re = {.id = 11, .text = "Golden retrievers shed a lot in spring.", .user = "u1"};
  EG_CHECK(upsert(w, TENANT, &re, 1));
  chunk_spec auto_id = {.text = "The harbour market sells fresh bread on Sundays."};
  EG_CHECK(upsert(w, TENANT, &auto_id, 1));
  chunk_spec st[2] = {
      {.id = 30,
       .text = "Chapter one: the lighthouse keeper's dog.",
       .session = "doc",
       .staged = 1},
      {.id = 31, .text = "Chapter two: a storm over the harbour.", .session = "doc", .staged = 1}};
  EG_CHECK(upsert(w, TENANT, st, 2));
  uint64_t pub[2] = {30, 31}, del[1] = {15}, acc[3] = {10, 12, 12};
  EG_CHECK(ids_call(w, "Publish", TENANT, pub, 2, 0));
  EG_CHECK(ids_call(w, "Delete", TENANT, del, 1, 0));
  EG_CHECK(ids_call(w, "RecordAccess", TENANT, acc, 3, 0));
  /* a user's own upsert: its record is sealed with the user's key (one that mixes users'
   * chunks, like the first, is no one user's: in the clear) */
  chunk_spec own = {.id = 20, .text = GONE_PHRASE, .user = "gone", .turn = 1};
  EG_CHECK(upsert(w, TENANT, &own, 1));
  EG_CHECK_INT(eg_replicas_log_holds(&rs, "vector-0", GONE_PHRASE), 0);
  /* a user's erasure (chunks 13, 17 and 20 of "gone"), which shreds their key */
  Engram__V1__Scope gone = gc_scope(TENANT, "gone");
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &gone;
  EG_CHECK(write_ok(eg_vectord_erase_call(cl[w], &er, NULL)));
  /* retention: a tenant whose chunks age into the cold tier, two accessed; then a policy
   * that evicts, and a sweep far ahead evicts the cold ones not used for 60 days (one is
   * used the day before) */
  for (size_t i = 0; i < N_TEXTS; i++)
    cs[i] = (chunk_spec){.id = 100 + i, .text = texts[i], .turn = (int)i};
  EG_CHECK(upsert(w, RET_TENANT, cs, N_TEXTS));
  EG_CHECK(policy(w, RET_TENANT, 5, 0));
  uint64_t used[2] = {101, 106};
  EG_CHECK(ids_call(w, "RecordAccess", RET_TENANT, used, 2, 0));
  int64_t now = eg_time_now_us();
  EG_CHECK(sweep(w, RET_TENANT, now + 40 * DAY_US));
  EG_CHECK(ids_call(w, "RecordAccess", RET_TENANT, used, 1, 0)); /* back to hot */
  EG_CHECK(policy(w, RET_TENANT, 5, 60));
  EG_CHECK(ids_call(w, "RecordAccess", RET_TENANT, used + 1, 1, now + 199 * DAY_US));
  EG_CHECK(sweep(w, RET_TENANT, now + 200 * DAY_US));
}

/* ---- comparisons --------------------------------------------------------------------------- */

static bool near(double a, double b) { return fabs(a - b) <= 1e-4 * (1 + fabs(a)); }

/* The same hits in the same order with the same scores (float tolerance). */
static bool same_hits(const Engram__V1__SearchResponse *a, const Engram__V1__SearchResponse *b) {
  if (a->n_results != 1 || b->n_results != 1) return false;
  const Engram__V1__QueryHits *x = a->results[0], *y = b->results[0];
  if (x->n_hits != y->n_hits) return false;
  for (size_t i = 0; i < x->n_hits; i++) {
    const Engram__V1__SearchHit *p = x->hits[i], *q = y->hits[i];
    if (p->chunk->id != q->chunk->id || !near(p->score, q->score) ||
        !near(p->content_sim, q->content_sim) || !near(p->latent_sim, q->latent_sim) ||
        !near(p->bm25, q->bm25))
      return false;
  }
  return true;
}

/* GetChunks (with content) and GetRetention (at a fixed time) of ids, on replica r. */
static void by_id(int r, const char *tenant, uint64_t *ids, size_t n, int64_t at,
                  ProtobufCMessage **chunks, ProtobufCMessage **ret) {
  Engram__V1__Scope scope = gc_scope(tenant, NULL);
  Engram__V1__GetChunksRequest g = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  g.scope = &scope;
  g.ids = ids;
  g.n_ids = n;
  g.include_staged = true;
  g.watermark = watermark;
  eg_err e;
  *chunks = *ret = NULL;
  EG_CHECK(run(eg_vectord_get_chunks_call(cl[r], &g, NULL), chunks, &e) == EG_OK);
  Engram__V1__GetRetentionRequest q = ENGRAM__V1__GET_RETENTION_REQUEST__INIT;
  q.scope = &scope;
  q.chunk_ids = ids;
  q.n_chunk_ids = n;
  q.at = at;
  q.watermark = watermark;
  EG_CHECK(run(eg_vectord_get_retention_call(cl[r], &q, NULL), ret, &e) == EG_OK);
}

/* ---- the tests ------------------------------------------------------------------------------ */

static void test_roles(void) {
  int w = eg_replicas_writer(&rs, 0), f = (w + 1) % rs.n;
  EG_REQUIRE(w >= 0);
  /* a write reaching a follower is refused, naming the writer */
  chunk_spec c = {.id = 1, .text = "Ana moved to Porto to open a bakery.", .user = "u1"};
  Engram__V1__UpsertRequest *req = upsert_req(TENANT, &c, 1);
  eg_err e;
  EG_CHECK_INT(eg_vectord_upsert(cl[f], req, NULL, &e), EG_EUNAVAIL);
  char want[96];
  snprintf(want, sizeof want, "writer=%s", rs.r[w].addr);
  EG_CHECK(strstr(e.msg, want) != NULL);
  free_upsert(req);
  /* read-your-writes on every replica with the write's watermark */
  EG_REQUIRE(upsert(w, TENANT, &c, 1));
  EG_CHECK(strncmp(watermark, "v1:", 3) == 0);
  for (int i = 0; i < rs.n; i++) {
    Engram__V1__SearchResponse *r = NULL;
    EG_REQUIRE(search(i, TENANT, "u1", "bakery in Porto", false, watermark, &r, &e) == EG_OK);
    EG_CHECK(r->n_results == 1 && r->results[0]->n_hits >= 1 &&
             r->results[0]->hits[0]->chunk->id == 1);
    protobuf_c_message_free_unpacked(&r->base, NULL);
  }
  /* a watermark no replica has reached: DEADLINE_EXCEEDED by the call's deadline; another
   * service's is refused */
  eg_rpc_client *quick = NULL;
  eg_rpc_client_opts o = {.timeout_us = EG_US_PER_SEC, .max_attempts = 1};
  EG_REQUIRE(eg_rpc_client_open(rs.r[f].addr, &o, &quick, &e) == EG_OK);
  eg_rpc_client *keep = cl[f];
  cl[f] = quick;
  Engram__V1__SearchResponse *r = NULL;
  int64_t t0 = eg_time_mono_us();
  EG_CHECK_INT(search(f, TENANT, NULL, "bakery", false, "v1:ffffffff", &r, &e), EG_ETIMEOUT);
  EG_CHECK(eg_time_mono_us() - t0 < 3 * EG_US_PER_SEC);
  EG_CHECK_INT(search(f, TENANT, NULL, "bakery", false, "g1:12", &r, &e), EG_EINVAL);
  cl[f] = keep;
  eg_rpc_client_close(quick);
  /* the metrics of each role; the followers embedded nothing: the log carries vectors */
  EG_CHECK(eg_metric_value(rs.r[w].metrics_port,
                           "engram_vectord_replication_role{role=\"writer\"}") == 1);
  EG_CHECK(eg_metric_value(rs.r[w].metrics_port, "engram_vectord_embedded_tokens_total") > 0);
  for (int i = 0; i < rs.n; i++) {
    if (i == w) continue;
    int port = rs.r[i].metrics_port;
    EG_CHECK(eg_metric_value(port, "engram_vectord_replication_role{role=\"follower\"}") == 1);
    EG_CHECK(eg_metric_value(port, "engram_vectord_replication_applied_seq") ==
             eg_metric_value(rs.r[w].metrics_port, "engram_vectord_replication_applied_seq"));
    EG_CHECK(eg_metric_value(port, "engram_vectord_replication_lag_records") == 0);
    EG_CHECK(eg_metric_value(port, "engram_vectord_replication_lag_seconds") == 0);
    EG_CHECK(eg_metric_value(port, "engram_vectord_embedded_tokens_total") <= 0);
  }
  EG_CHECK(eg_promtool_scrape(rs.r[f].metrics_port, rs.dir, "vectord-follower", NULL) == 0);
}

static void test_failover_under_load(void) {
  int w = eg_replicas_writer(&rs, 0);
  EG_REQUIRE(w >= 0);
  varied_writes(w);
  eg_failover fo;
  eg_err e;
  EG_CHECK(eg_failover_under_load(&rs, &ld, 1500000, &fo, &e) == EG_OK);
  int nw = fo.writer, sent = fo.sent;
  EG_REQUIRE(nw >= 0 && nw != w);
  EG_CHECK(fo.seconds >= 0 && fo.seconds <= 10.0);
  EG_CHECK(fo.acked > fo.before); /* writes went on after the failover */

  /* every acknowledged upsert is on the new writer; its chunks are exactly those found */
  uint64_t *ids = calloc((size_t)sent, sizeof *ids);
  for (int i = 0; i < sent; i++) ids[i] = LOAD_ID0 + (uint64_t)i;
  Engram__V1__Scope scope = gc_scope(LOAD_TENANT, NULL);
  Engram__V1__GetChunksRequest g = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  g.scope = &scope;
  g.ids = ids;
  g.n_ids = (size_t)sent;
  ProtobufCMessage *resp = NULL;
  EG_REQUIRE(run(eg_vectord_get_chunks_call(cl[nw], &g, NULL), &resp, &e) == EG_OK);
  Engram__V1__GetChunksResponse *gc = (Engram__V1__GetChunksResponse *)resp;
  int *count = calloc((size_t)sent, sizeof *count);
  for (size_t k = 0; k < gc->n_chunks; k++) {
    uint64_t id = gc->chunks[k]->id;
    if (id >= LOAD_ID0 && id < LOAD_ID0 + (uint64_t)sent) count[id - LOAD_ID0]++;
  }
  size_t found = gc->n_chunks;
  protobuf_c_message_free_unpacked(resp, NULL);
  int lost = 0, dup = 0;
  for (int i = 0; i < sent; i++) {
    lost += ld.acked[i] && count[i] == 0;
    dup += count[i] > 1;
  }
  /* no chunk twice in the index either: its live chunks are the ids found */
  Engram__V1__GetRetentionRequest q = ENGRAM__V1__GET_RETENTION_REQUEST__INIT;
  q.scope = &scope;
  EG_REQUIRE(run(eg_vectord_get_retention_call(cl[nw], &q, NULL), &resp, &e) == EG_OK);
  Engram__V1__GetRetentionResponse *gr = (Engram__V1__GetRetentionResponse *)resp;
  uint64_t live = 0;
  for (size_t k = 0; k < gr->n_tiers; k++)
    if (gr->tiers[k]->tier != ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_EVICTED)
      live += gr->tiers[k]->count;
  protobuf_c_message_free_unpacked(resp, NULL);
  fprintf(stderr, "  on the new writer: %d lost, %d duplicated; %zu found, %llu live\n", lost, dup,
          found, (unsigned long long)live);
  EG_CHECK_INT(lost, 0);
  EG_CHECK_INT(dup, 0);
  EG_CHECK_INT((int)live, (int)found);
  free(count);
  free(ids);

  /* the killed writer comes back as a follower and catches up */
  EG_REQUIRE(eg_replicas_restart(&rs, w, &e) == EG_OK);
  EG_CHECK_INT(eg_replicas_writer(&rs, 0), nw);
}

static void test_followers_answer_as_the_writer(void) {
  int w = eg_replicas_writer(&rs, 5 * EG_US_PER_SEC);
  EG_REQUIRE(w >= 0);
  chunk_spec last = {.id = 40, .text = "The new writer's own note about harbour dogs.", .turn = 9};
  EG_REQUIRE(upsert(w, TENANT, &last, 1));
  /* a follower started afresh replays the whole log, skipping the erased user's own record,
   * whose key was shredded: it must answer as the others do */
  eg_err re;
  int fresh = (w + 1) % rs.n;
  EG_REQUIRE(eg_replicas_restart_empty(&rs, fresh, &re) == EG_OK);
  int64_t at = eg_time_now_us() + 250 * DAY_US;
  uint64_t ids[64];
  size_t n = 0;
  for (uint64_t i = 1; i <= 40; i++) ids[n++] = i;
  for (uint64_t i = 100; i < 100 + N_TEXTS; i++) ids[n++] = i;
  int compared = 0, differ = 0;
  for (int f = 0; f < rs.n; f++) {
    if (f == w) continue;
    for (size_t qi = 0; qi < N_QUERIES; qi++) {
      for (int k = 0; k < 4; k++) {
        const char *tenant = k < 3 ? TENANT : RET_TENANT;
        const char *user = k == 1 ? "u1" : k == 2 ? "gone" : NULL;
        Engram__V1__SearchResponse *a = NULL, *b = NULL;
        eg_err e;
        /* the follower answers once it has applied the writer's last write */
        EG_REQUIRE(search(f, tenant, user, queries[qi], k == 3, watermark, &b, &e) == EG_OK);
        EG_REQUIRE(search(w, tenant, user, queries[qi], k == 3, NULL, &a, &e) == EG_OK);
        compared++;
        if (!same_hits(a, b)) {
          differ++;
          fprintf(stderr, "  Search \"%s\" (%s, user %s) differs on replica %d\n", queries[qi],
                  tenant, user ? user : "-", f);
        }
        protobuf_c_message_free_unpacked(&a->base, NULL);
        protobuf_c_message_free_unpacked(&b->base, NULL);
      }
    }
    for (int k = 0; k < 2; k++) {
      ProtobufCMessage *ca, *ra, *cb, *rb;
      by_id(w, k ? RET_TENANT : TENANT, ids, n, at, &ca, &ra);
      by_id(f, k ? RET_TENANT : TENANT, ids, n, at, &cb, &rb);
      EG_REQUIRE(ca && ra && cb && rb);
      compared += 2;
      differ += !eg_same_message(ca, cb) + !eg_same_message(ra, rb);
      if (!eg_same_message(ra, rb)) fprintf(stderr, "  GetRetention differs on replica %d\n", f);
      protobuf_c_message_free_unpacked(ca, NULL);
      protobuf_c_message_free_unpacked(ra, NULL);
      protobuf_c_message_free_unpacked(cb, NULL);
      protobuf_c_message_free_unpacked(rb, NULL);
    }
    EG_CHECK(eg_metric_value(rs.r[f].metrics_port, "engram_vectord_replication_applied_seq") ==
             eg_metric_value(rs.r[w].metrics_port, "engram_vectord_replication_applied_seq"));
  }
  fprintf(stderr,
          "  %d Search/GetChunks/GetRetention answers compared with the writer's, %d "
          "differ\n",
          compared, differ);
  EG_CHECK(compared >= 2 * (int)N_QUERIES * 4);
  EG_CHECK_INT(differ, 0);
  /* what the writes did is there on every replica: the erased user's chunks are gone, the
   * published ones visible, the deleted one gone, evictions happened */
  for (int r = 0; r < rs.n; r++) {
    Engram__V1__SearchResponse *s = NULL;
    eg_err e;
    EG_REQUIRE(search(r, TENANT, "gone", "the ferry to the islands", false, watermark, &s, &e) ==
               EG_OK);
    bool gone = false, published = false;
    for (size_t i = 0; i < s->results[0]->n_hits; i++) {
      uint64_t id = s->results[0]->hits[i]->chunk->id;
      gone |= id == 13 || id == 17 || id == 20; /* user "gone"'s chunks */
      published |= id == 31;
    }
    protobuf_c_message_free_unpacked(&s->base, NULL);
    EG_CHECK(!gone);
    EG_REQUIRE(search(r, TENANT, NULL, "storm over the harbour", false, watermark, &s, &e) ==
               EG_OK);
    for (size_t i = 0; i < s->results[0]->n_hits; i++)
      published |= s->results[0]->hits[i]->chunk->id == 31;
    protobuf_c_message_free_unpacked(&s->base, NULL);
    EG_CHECK(published);
    ProtobufCMessage *c, *ret;
    by_id(r, RET_TENANT, ids, n, at, &c, &ret);
    Engram__V1__GetRetentionResponse *gr = (Engram__V1__GetRetentionResponse *)ret;
    uint64_t evicted = 0;
    for (size_t k = 0; gr && k < gr->n_tiers; k++)
      if (gr->tiers[k]->tier == ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_EVICTED)
        evicted = gr->tiers[k]->count;
    EG_CHECK(evicted > 0 && evicted < N_TEXTS);
    if (c) protobuf_c_message_free_unpacked(c, NULL);
    if (ret) protobuf_c_message_free_unpacked(ret, NULL);
  }
}

int main(void) {
  static const eg_replicas_test tests[] = {
      {"test_roles", test_roles},
      {"test_failover_under_load", test_failover_under_load},
      {"test_followers_answer_as_the_writer", test_followers_answer_as_the_writer},
  };
  return eg_replicas_run(&rs, "vectord", 3, cl, tests, sizeof tests / sizeof *tests);
}
