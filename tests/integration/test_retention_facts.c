/*
 * test_retention_facts.c — the retention of facts over the real daemons
 * (docs/retention.md): salience from the lexicon or the client, R and its tier label as
 * time passes, accesses recorded by recalld's flusher after a Recall returned the fact
 * (and its chunk, on vectord), privacy between users, the policy's validation,
 * confirmation and audit through Admin.SetRetentionPolicy, Admin.GetRetention's chunks
 * first from vectord with its tier sizes, and the access records leaving with the erased
 * user's edges and the erased tenant.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/rpc.h"
#include "common/time.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

#define TEN "rt"
#define DAY_US (86400LL * 1000000LL)

static eg_cluster cl;
static eg_rpc_client *ing, *gra, *rec;
static uint64_t peanuts, jazz, salient, shared, chunk;

static Engram__V1__Scope scope_of(const char *user) {
  Engram__V1__Scope s = ENGRAM__V1__SCOPE__INIT;
  s.tenant = TEN;
  s.user = (char *)(user ? user : "");
  return s;
}

/* Admin.GetRetention of edge ids (and chunk ids) as user at `at`. */
static eg_code get_ret(const char *user, uint64_t *edges, size_t n, uint64_t *chunks, size_t nc,
                       int64_t at, Engram__V1__GetRetentionResponse **out, eg_err *e) {
  Engram__V1__Scope s = scope_of(user);
  Engram__V1__GetRetentionRequest req = ENGRAM__V1__GET_RETENTION_REQUEST__INIT;
  req.scope = &s;
  req.edge_ids = edges;
  req.n_edge_ids = n;
  req.chunk_ids = chunks;
  req.n_chunk_ids = nc;
  req.at = at;
  return eg_ingestd_get_retention(ing, &req, out, e);
}

/* The item of id in r, NULL when absent. */
static const Engram__V1__RetentionInfo *item(const Engram__V1__GetRetentionResponse *r,
                                             uint64_t id) {
  for (size_t i = 0; r && i < r->n_items; i++)
    if (r->items[i]->id == id) return r->items[i];
  return NULL;
}

/* Graph.RecordAccess as user: recorded, or -1 when the call failed. */
static int record(const char *user, uint64_t *ids, size_t n) {
  Engram__V1__Scope s = scope_of(user);
  Engram__V1__RecordAccessRequest req = ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT;
  req.scope = &s;
  req.ids = ids;
  req.n_ids = n;
  Engram__V1__RecordAccessResponse *r = NULL;
  eg_err e;
  if (eg_graphd_record_access(gra, &req, &r, &e)) {
    fprintf(stderr, "RecordAccess: %s\n", e.msg);
    return -1;
  }
  int got = (int)r->recorded;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return got;
}

static eg_code set_policy(Engram__V1__RetentionPolicy *p, const char *confirm,
                          Engram__V1__SetRetentionPolicyResponse **out, eg_err *e) {
  Engram__V1__Scope s = scope_of(NULL);
  Engram__V1__SetRetentionPolicyRequest req = ENGRAM__V1__SET_RETENTION_POLICY_REQUEST__INIT;
  req.scope = &s;
  req.policy = p;
  req.confirm_tenant = (char *)(confirm ? confirm : "");
  return eg_ingestd_set_retention_policy(ing, &req, out, e);
}

static uint64_t erase_count(const Engram__V1__EraseResponse *x, const char *store,
                            const char *kind) {
  for (size_t i = 0; i < x->n_counts; i++)
    if (!strcmp(x->counts[i]->store, store) && !strcmp(x->counts[i]->kind, kind))
      return x->counts[i]->count;
  return UINT64_MAX;
}

static void test_start(void) {
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, NULL, &ing, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_RECALLD].addr, NULL, &rec, &e) == EG_OK);
  peanuts = gc_commit_said(
      gra, TEN, "u1",
      &(eg_edge_spec){.subject = "user:u1", .relation = "ALLERGIC_TO", .literal = "peanuts"});
  jazz = gc_commit_said(
      gra, TEN, "u1", &(eg_edge_spec){.subject = "user:u1", .relation = "LIKES", .object = "jazz"});
  salient = gc_commit_said(
      gra, TEN, "u1",
      &(eg_edge_spec){
          .subject = "user:u1", .relation = "OWNS", .literal = "a bicycle", .salience = 0.95f});
  shared = gc_commit_said(
      gra, TEN, NULL,
      &(eg_edge_spec){.subject = "Oslo office", .relation = "LOCATED_IN", .object = "Oslo"});
  EG_REQUIRE(peanuts && jazz && salient && shared);
  /* a chunk of u1's on the same subject (vectord's side of retention) */
  const char *const msgs[] = {"user",
                              "I have a severe peanut allergy, so I always carry an EpiPen.",
                              "assistant", "Good to know, I will keep that in mind."};
  EG_REQUIRE(ic_session(ing, TEN, "u1", "s1", T("2026-01-05T10:00:00Z"), msgs, 2, false, NULL,
                        &e) == EG_OK);
  Engram__V1__SearchResponse *sr = NULL;
  eg_rpc_client *vec = NULL;
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_VECTORD].addr, NULL, &vec, &e) == EG_OK);
  EG_CHECK(ic_search(vec, TEN, "u1", "EpiPen peanut allergy", 1, &sr, &e) == EG_OK);
  if (sr && sr->n_results == 1 && sr->results[0]->n_hits >= 1)
    chunk = sr->results[0]->hits[0]->chunk->id;
  if (sr) protobuf_c_message_free_unpacked(&sr->base, NULL);
  eg_rpc_client_close(vec);
  EG_REQUIRE(chunk != 0);
  /* a client's salience for a whole conversation; out of [0, 1] refused */
  const char *const chat[] = {"user", "We talked about the weather on the ferry to Lindau."};
  ic_salience = 1.5f;
  EG_CHECK(ic_session(ing, TEN, "u1", "s-sal", T("2026-01-06T10:00:00Z"), chat, 1, false, NULL,
                      &e) == EG_EINVAL &&
           strstr(e.msg, "salience"));
  ic_salience = 0.35f;
  EG_CHECK(ic_session(ing, TEN, "u1", "s-sal", T("2026-01-06T10:00:00Z"), chat, 1, false, NULL,
                      &e) == EG_OK);
  ic_salience = 0;
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_VECTORD].addr, NULL, &vec, &e) == EG_OK);
  sr = NULL;
  uint64_t ferry = 0;
  if (ic_search(vec, TEN, "u1", "weather ferry Lindau", 1, &sr, &e) == EG_OK &&
      sr->n_results == 1 && sr->results[0]->n_hits >= 1)
    ferry = sr->results[0]->hits[0]->chunk->id;
  if (sr) protobuf_c_message_free_unpacked(&sr->base, NULL);
  eg_rpc_client_close(vec);
  Engram__V1__GetRetentionResponse *gr = NULL;
  EG_REQUIRE(ferry && get_ret("u1", NULL, 0, &ferry, 1, 0, &gr, &e) == EG_OK);
  EG_CHECK(gr->n_items == 1 && fabs(gr->items[0]->salience - 0.35) < 1e-6 &&
           !strcmp(gr->items[0]->salience_source, "client"));
  protobuf_c_message_free_unpacked(&gr->base, NULL);
  /* a salience out of [0, 1] is refused, named */
  EG_CHECK(
      gc_commit(gra, TEN, "u1",
                &(eg_edge_spec){
                    .subject = "user:u1", .relation = "OWNS", .literal = "a car", .salience = 1.5f},
                &e) == 0);
  EG_CHECK(strstr(e.msg, "meta.salience") != NULL);
}

/* Salience from the lexicon or the client; R decays to a lower tier label over 90 days. */
static void test_salience_and_decay(void) {
  uint64_t ids[] = {peanuts, jazz, salient};
  Engram__V1__GetRetentionResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(get_ret("u1", ids, 3, NULL, 0, 0, &r, &e) == EG_OK);
  EG_CHECK_INT(r->n_items, 3);
  const Engram__V1__RetentionInfo *p = item(r, peanuts), *j = item(r, jazz), *s = item(r, salient);
  EG_REQUIRE(p && j && s);
  EG_CHECK_STR(p->kind, "fact");
  EG_CHECK(fabs(p->salience - 0.9) < 1e-6);
  EG_CHECK_STR(p->salience_source, "lexicon: health");
  EG_CHECK(fabs(j->salience - 0.5) < 1e-6);
  EG_CHECK_STR(j->salience_source, "default");
  EG_CHECK(fabs(s->salience - 0.95) < 1e-6);
  EG_CHECK_STR(s->salience_source, "client");
  EG_CHECK(p->created_at > 0 && p->evaluated_at >= p->created_at);
  EG_CHECK_INT(p->access_count, 0);
  EG_CHECK(p->access_term == 0 && fabs(p->r - 0.9) < 0.01);
  EG_CHECK_INT(p->tier, ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_HOT);
  EG_CHECK_INT(j->tier, ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_HOT);
  EG_CHECK(strstr(p->why, ">= hot_min") != NULL);
  EG_REQUIRE(r->policy != NULL);
  EG_CHECK(r->policy->half_life_days == 30 && r->policy->sigma == 0.25);
  int64_t later = p->created_at + 90 * DAY_US; /* three half-lives */
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_REQUIRE(get_ret("u1", ids, 2, NULL, 0, later, &r, &e) == EG_OK);
  p = item(r, peanuts);
  j = item(r, jazz);
  EG_REQUIRE(p && j);
  EG_CHECK(fabs(p->r - 0.9 / 8) < 0.002 && fabs(j->r - 0.5 / 8) < 0.002);
  EG_CHECK_INT(p->tier, ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_WARM);
  EG_CHECK_INT(j->tier, ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_COLD); /* the low one */
  EG_CHECK(strstr(j->why, "< warm_min") != NULL);
  EG_CHECK_INT(j->evaluated_at, later);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A Recall that returns the fact feeds its access term (recalld's flusher). */
static void test_recall_records_access(void) {
  Engram__V1__Scope s = scope_of("u1");
  Engram__V1__RecallRequest rq = ENGRAM__V1__RECALL_REQUEST__INIT;
  rq.scope = &s;
  rq.query = "What am I allergic to?";
  Engram__V1__RecallResponse *rr = NULL;
  eg_err e;
  EG_REQUIRE(eg_recalld_recall(rec, &rq, &rr, &e) == EG_OK);
  bool returned = false, chunk_returned = false;
  for (size_t i = 0; i < rr->n_items; i++) {
    returned |= rr->items[i]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT && rr->items[i]->fact &&
                rr->items[i]->fact->id == peanuts;
    chunk_returned |= rr->items[i]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK &&
                      rr->items[i]->chunk_id == chunk;
  }
  protobuf_c_message_free_unpacked(&rr->base, NULL);
  EG_REQUIRE(returned);
  EG_CHECK(chunk_returned); /* its access goes to vectord in the same flush */
  /* the flusher sends within its interval (250 ms); wait up to 5 s */
  Engram__V1__GetRetentionResponse *r = NULL;
  const Engram__V1__RetentionInfo *p = NULL;
  for (int i = 0; i < 50; i++) {
    if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
    r = NULL;
    EG_REQUIRE(get_ret("u1", &peanuts, 1, NULL, 0, 0, &r, &e) == EG_OK);
    p = item(r, peanuts);
    if (p && p->access_count >= 1) break;
    usleep(100000);
  }
  EG_REQUIRE(p != NULL);
  EG_CHECK(p->access_count >= 1);
  EG_CHECK(p->last_access > p->created_at);
  EG_CHECK(p->access_term > 1 && p->r > 0.9 + 1); /* σ / (1 h) = 6 for an access this recent */
  uint64_t before = p->access_count;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  eg_buf b = EG_BUF_INIT;
  EG_CHECK(eg_http_get(cl.d[EG_RECALLD].metrics_port, "/metrics", &b) == 200);
  EG_CHECK(eg_buf_append(&b, "", 1) == EG_OK &&
           strstr(b.data, "engram_recalld_access_flushed_total{store=\"graph\"}") &&
           strstr(b.data, "engram_recalld_access_flushed_total{store=\"vector\"}") &&
           strstr(b.data, "engram_recalld_access_dropped_total{reason=\"send_failed\"} 0"));
  eg_buf_free(&b);

  /* another user neither sees nor records the edge; unknown ids are ignored */
  uint64_t mixed[] = {peanuts, 987654321};
  EG_CHECK_INT(record("u2", &peanuts, 1), 0);
  EG_REQUIRE(get_ret("u2", &peanuts, 1, NULL, 0, 0, &r, &e) == EG_OK);
  EG_CHECK_INT(r->n_items, 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_INT(record("u1", mixed, 2), 1);
  EG_REQUIRE(get_ret("u1", &peanuts, 1, NULL, 0, 0, &r, &e) == EG_OK);
  EG_CHECK(item(r, peanuts) && item(r, peanuts)->access_count == before + 1);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* the tenant's shared fact: any of its users records it */
  EG_CHECK_INT(record("u2", &shared, 1), 1);
}

/* Chunks go to vectord and come first; the Recall's chunk was recorded there too; the
 * policy and tier sizes are vectord's. */
static void test_chunks_forwarded(void) {
  uint64_t chunks[] = {chunk, 987654321};
  Engram__V1__GetRetentionResponse *r = NULL;
  eg_err e;
  for (int i = 0; i < 20; i++) { /* vectord's half of the flush may land after graphd's */
    EG_REQUIRE(get_ret("u1", &peanuts, 1, chunks, 2, 0, &r, &e) == EG_OK);
    if (r->n_items == 2 && r->items[0]->access_count >= 1) break;
    protobuf_c_message_free_unpacked(&r->base, NULL);
    r = NULL;
    usleep(100000);
  }
  EG_REQUIRE(r && r->n_items == 2);
  EG_CHECK_STR(r->items[0]->kind, "chunk");
  EG_CHECK_INT(r->items[0]->id, chunk);
  EG_CHECK_STR(r->items[1]->kind, "fact");
  EG_CHECK(fabs(r->items[0]->salience - 0.9) < 1e-6 &&
           strstr(r->items[0]->salience_source, "health"));
  EG_CHECK(r->items[0]->access_count >= 1); /* the Recall returned it */
  EG_CHECK(r->n_tiers >= 1 && r->policy != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* another user does not see the chunk */
  EG_REQUIRE(get_ret("u2", NULL, 0, &chunk, 1, 0, &r, &e) == EG_OK);
  EG_CHECK_INT(r->n_items, 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  Engram__V1__Scope s = scope_of(NULL);
  Engram__V1__SweepRetentionRequest sw = ENGRAM__V1__SWEEP_RETENTION_REQUEST__INIT;
  sw.scope = &s;
  Engram__V1__SweepRetentionResponse *swept = NULL;
  EG_CHECK(eg_ingestd_sweep_retention(ing, &sw, &swept, &e) == EG_OK);
  if (swept) {
    EG_CHECK(swept->n_tiers >= 1);
    protobuf_c_message_free_unpacked(&swept->base, NULL);
  }
  /* both ways: a sweep as of 400 days on leaves the chunk cold (off the vector indexes);
   * a Recall still finds it among the user's own chunks, and that access brings it back hot */
  sw.at = eg_time_now_us() + 400 * DAY_US;
  EG_CHECK(eg_ingestd_sweep_retention(ing, &sw, NULL, &e) == EG_OK);
  EG_REQUIRE(get_ret("u1", NULL, 0, &chunk, 1, 0, &r, &e) == EG_OK);
  EG_CHECK(r->n_items == 1 && r->items[0]->tier == ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_COLD);
  uint64_t seen = r->n_items ? r->items[0]->access_count : 0;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  Engram__V1__Scope u1 = scope_of("u1");
  Engram__V1__RecallRequest rq = ENGRAM__V1__RECALL_REQUEST__INIT;
  rq.scope = &u1;
  rq.query = "Do I need to carry an EpiPen?";
  Engram__V1__RecallResponse *rr = NULL;
  EG_REQUIRE(eg_recalld_recall(rec, &rq, &rr, &e) == EG_OK);
  bool found = false;
  for (size_t i = 0; i < rr->n_items; i++) found |= rr->items[i]->chunk_id == chunk;
  protobuf_c_message_free_unpacked(&rr->base, NULL);
  EG_CHECK(found);
  int tier = 0;
  for (int i = 0; i < 50 && tier != ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_HOT; i++) {
    usleep(100000);
    EG_REQUIRE(get_ret("u1", NULL, 0, &chunk, 1, 0, &r, &e) == EG_OK);
    tier = r->n_items ? (int)r->items[0]->tier : 0;
    if (r->n_items) EG_CHECK(r->items[0]->access_count >= seen);
    protobuf_c_message_free_unpacked(&r->base, NULL);
  }
  EG_CHECK_INT(tier, ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_HOT);
}

/* Bad values are refused naming the field; a policy that evicts needs the tenant's
 * confirmation and is audited with its values. */
static void test_policy(void) {
  eg_err e;
  struct {
    Engram__V1__RetentionPolicy p;
    const char *field;
  } bad[] = {
      {.p = ENGRAM__V1__RETENTION_POLICY__INIT, .field = "policy.sigma"},
      {.p = ENGRAM__V1__RETENTION_POLICY__INIT, .field = "policy.half_life_days"},
      {.p = ENGRAM__V1__RETENTION_POLICY__INIT, .field = "warm_min"},
      {.p = ENGRAM__V1__RETENTION_POLICY__INIT, .field = "policy.prior_weight"},
  };
  bad[0].p.sigma = -1;
  bad[1].p.half_life_days = 1e9;
  bad[2].p.warm_min = 0.5; /* above the default hot_min 0.25 */
  bad[3].p.prior_weight = 2;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    EG_CHECK_INT(set_policy(&bad[i].p, NULL, NULL, &e), EG_EINVAL);
    if (!EG_CHECK(strstr(e.msg, bad[i].field) != NULL)) fprintf(stderr, "  message: %s\n", e.msg);
  }
  EG_CHECK_INT(set_policy(NULL, NULL, NULL, &e), EG_EINVAL);
  Engram__V1__RetentionPolicy ev = ENGRAM__V1__RETENTION_POLICY__INIT;
  ev.evict_cold_after_days = 45;
  ev.half_life_days = 10;
  EG_CHECK_INT(set_policy(&ev, NULL, NULL, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "confirm_tenant") != NULL);
  EG_CHECK_INT(set_policy(&ev, "another", NULL, &e), EG_EINVAL);
  Engram__V1__SetRetentionPolicyResponse *r = NULL;
  EG_REQUIRE(set_policy(&ev, TEN, &r, &e) == EG_OK);
  EG_REQUIRE(r->policy != NULL);
  EG_CHECK(r->policy->evict_cold_after_days == 45 && r->policy->half_life_days == 10);
  EG_CHECK(r->policy->sigma == 0.25 && r->policy->hot_min == 0.25); /* defaults filled */
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* graphd keeps it: R decays with the new half-life */
  Engram__V1__GetRetentionResponse *g = NULL;
  EG_REQUIRE(get_ret("u1", &jazz, 1, NULL, 0, 0, &g, &e) == EG_OK);
  EG_CHECK(g->policy && g->policy->half_life_days == 10 && g->policy->evict_cold_after_days == 45);
  const Engram__V1__RetentionInfo *j = item(g, jazz);
  int64_t at = j ? j->created_at + 10 * DAY_US : 0;
  protobuf_c_message_free_unpacked(&g->base, NULL);
  EG_REQUIRE(get_ret("u1", &jazz, 1, NULL, 0, at, &g, &e) == EG_OK);
  EG_CHECK(item(g, jazz) && fabs(item(g, jazz)->decay_term - 0.25) < 0.002);
  protobuf_c_message_free_unpacked(&g->base, NULL);
  /* the audit line: the tenant, the values, the outcome; both the refusal and the change */
  char *log = eg_test_slurp(cl.d[EG_INGESTD].log);
  const char *ok =
      log ? strstr(log, "msg=\"retention_policy\" tenant=\"" TEN "\" outcome=OK") : NULL;
  EG_CHECK(ok != NULL);
  if (ok) {
    const char *end = strchr(ok, '\n');
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(end ? end - ok : (long)strlen(ok)), ok);
    EG_CHECK(strstr(line, "evict_cold_after_days=45") && strstr(line, "half_life_days=10") &&
             strstr(line, "confirmed=true") && strstr(line, "stores=vectord,graphd"));
  }
  EG_CHECK(log && strstr(log, "outcome=INVALID_ARGUMENT half_life_days=10") != NULL);
  free(log);
}

/* Erasing a user removes the access records of the user's edges; erasing the tenant the
 * rest, and its policy. */
static void test_erasure(void) {
  eg_err e;
  EG_CHECK_INT(record("u1", &jazz, 1), 1);
  uint64_t mine[] = {peanuts, jazz, salient}, with_access = 0;
  Engram__V1__GetRetentionResponse *r = NULL;
  EG_REQUIRE(get_ret("u1", mine, 3, NULL, 0, 0, &r, &e) == EG_OK);
  for (size_t i = 0; i < r->n_items; i++) with_access += r->items[i]->access_count > 0;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK(with_access >= 2); /* peanuts, jazz (and what else the Recall returned) */
  Engram__V1__Scope s = scope_of("u1");
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &s;
  Engram__V1__EraseResponse *x = NULL;
  EG_REQUIRE(eg_ingestd_erase(ing, &er, &x, &e) == EG_OK);
  /* at least those (the session's facts may have been returned too); not the shared fact's */
  EG_CHECK(erase_count(x, "graph", "access_records") >= with_access);
  protobuf_c_message_free_unpacked(&x->base, NULL);
  EG_CHECK_INT(record("u1", &peanuts, 1), 0);
  EG_REQUIRE(get_ret(NULL, &peanuts, 1, NULL, 0, 0, &r, &e) == EG_OK);
  EG_CHECK_INT(r->n_items, 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);

  Engram__V1__Scope t = scope_of(NULL);
  er.scope = &t;
  er.confirm_tenant = TEN;
  EG_REQUIRE(eg_ingestd_erase(ing, &er, &x, &e) == EG_OK);
  EG_CHECK_INT(erase_count(x, "graph", "access_records"), 1); /* the shared fact's only */
  protobuf_c_message_free_unpacked(&x->base, NULL);
  Engram__V1__GetRetentionRequest gq = ENGRAM__V1__GET_RETENTION_REQUEST__INIT;
  gq.scope = &t;
  EG_REQUIRE(eg_graphd_get_retention(gra, &gq, &r, &e) == EG_OK);
  EG_CHECK(r->policy && r->policy->half_life_days == 30 && r->policy->evict_cold_after_days == 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_salience_and_decay);
  EG_RUN(test_recall_records_access);
  EG_RUN(test_chunks_forwarded);
  EG_RUN(test_policy);
  EG_RUN(test_erasure);
  eg_rpc_client_close(ing);
  eg_rpc_client_close(gra);
  eg_rpc_client_close(rec);
  eg_cluster_stop(&cl, eg_test_failed());
  eg_rpc_global_shutdown();
  return eg_test_finish();
}
