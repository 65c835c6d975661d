/*
 * test_replication.c — graphd replicas of one shard over a real PostgreSQL log
 * (deploy/REPLICATION.md): three replicas, one writer.
 *
 *   roles          the writer takes writes; a follower answers UNAVAILABLE naming the
 *                  writer; read-your-writes on a follower with the write's watermark, and
 *                  DEADLINE_EXCEEDED for a watermark it cannot reach; the metrics.
 *   failover (a)   kill -9 of the writer under continuous commits from a client: a
 *                  follower writes within 10 s, and every acknowledged commit is on the new
 *                  writer exactly once (none lost, none duplicated).
 *   same answers (c) after catch-up every follower — the killed writer too, restarted —
 *                  answers State, History and GetEntities exactly as the writer does, over
 *                  every kind of write (relations, merges, outcomes, accesses, policy,
 *                  an erasure, derived edges).
 *   new replica (d) a replica started from an empty store under load replays the whole log
 *                  and converges: every acknowledged commit once.
 *   stale writer (e) the writer stopped (SIGSTOP) while its log session is ended: another
 *                  takes over; resumed, the old one cannot append — it steps down, refuses
 *                  writes naming the writer; nothing lost, nothing twice, all in the log.
 */
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

#define TENANT "rep"

static eg_replicas rs;
static eg_rpc_client *cl[EG_MAX_REPLICAS]; /* one per replica, no retries */

static eg_load ld = {.write = eg_load_commit_city, .ctx = TENANT};

/* ---- reads ------------------------------------------------------------------------------ */

static eg_code state_of(int replica, const char *user, char **subjects, size_t n, int64_t at,
                        const char *watermark, Engram__V1__StateResponse **out, eg_err *err) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = TENANT;
  scope.user = (char *)(user ? user : "");
  Engram__V1__StateQuery *qs = calloc(n, sizeof *qs);
  Engram__V1__StateQuery **qp = calloc(n, sizeof *qp);
  Engram__V1__EntityRef *refs = calloc(n, sizeof *refs);
  for (size_t i = 0; i < n; i++) {
    engram__v1__entity_ref__init(&refs[i]);
    refs[i].ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
    refs[i].name = subjects[i];
    engram__v1__state_query__init(&qs[i]);
    qs[i].subject = &refs[i];
    qp[i] = &qs[i];
  }
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qp;
  req.n_queries = n;
  req.valid_at = req.known_at = at;
  req.watermark = (char *)(watermark ? watermark : "");
  eg_code rc = eg_graphd_state(cl[replica], &req, out, err);
  free(qs);
  free(qp);
  free(refs);
  return rc;
}

/* ---- the varied writes ----------------------------------------------------------------------- */

static char watermark[64]; /* of the last write */

static uint64_t commit(int w, const char *user, eg_edge_spec s) {
  Engram__V1__CommitResponse *r = NULL;
  eg_err e;
  if (gc_commit_resp(cl[w], TENANT, user, &s, &r, &e)) {
    fprintf(stderr, "commit failed: %s\n", e.msg);
    return 0;
  }
  uint64_t id = r->edge_ids[0];
  snprintf(watermark, sizeof watermark, "%s", r->watermark);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return id;
}

/* A call (from a typed client) whose answer does not matter, only its status. */
static eg_code call(eg_rpc_request rpc) {
  eg_err e;
  eg_code rc = eg_rpc_run(&rpc, 0, &e);
  if (rc) fprintf(stderr, "%s failed: %s\n", rpc.method, e.msg);
  protobuf_c_message_free_unpacked(rpc.resp, NULL);
  return rc;
}

/* Every kind of write, on the writer w. */
static void varied_writes(int w) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT, u1 = ENGRAM__V1__SCOPE__INIT,
                    gone = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = u1.tenant = gone.tenant = TENANT;
  u1.user = "u1";
  gone.user = "gone";
  Engram__V1__DeclareRelationRequest dr = ENGRAM__V1__DECLARE_RELATION_REQUEST__INIT;
  dr.scope = &scope;
  dr.relation = "FAVORITE_TEA";
  dr.cardinality = ENGRAM__V1__CARDINALITY__CARDINALITY_ONE;
  dr.description = "the tea one drinks";
  EG_CHECK(call(eg_graphd_declare_relation_call(cl[w], &dr, NULL)) == EG_OK);
  uint64_t lives = commit(
      w, NULL, (eg_edge_spec){.subject = "Maya", .relation = "LIVES_IN", .object = "Lisbon"});
  uint64_t works = commit(w, NULL,
                          (eg_edge_spec){.subject = "Maya",
                                         .relation = "WORKS_AT",
                                         .object = "Acme",
                                         .valid_from = T("2024-01-01T00:00:00Z")});
  EG_CHECK(commit(w, NULL,
                  (eg_edge_spec){
                      .subject = "Maya", .relation = "FAVORITE_TEA", .literal = "green"}) > 0);
  EG_CHECK(commit(w, NULL,
                  (eg_edge_spec){
                      .subject = "Maya", .relation = "FAVORITE_TEA", .literal = "black"}) > 0);
  uint64_t prem[2] = {lives, works};
  EG_CHECK(commit(w, NULL,
                  (eg_edge_spec){.subject = "Maya",
                                 .relation = "HAS_AUTHORITY",
                                 .literal = "signing",
                                 .premises = prem,
                                 .n_premises = 2,
                                 .reason = "chief of staff"}) > 0);
  uint64_t pref = commit(
      w, "u1",
      (eg_edge_spec){
          .subject = "Maya", .relation = "PREFERS", .literal = "quiet tables", .confidence = 0.7f});
  EG_CHECK(commit(w, "u1",
                  (eg_edge_spec){.subject = "Maya", .relation = "LIKES", .literal = "jazz"}) > 0);
  EG_CHECK(commit(w, "u1",
                  (eg_edge_spec){
                      .subject = "Maya", .relation = "LIKES", .literal = "jazz", .retract = true}) >
           0);
  EG_CHECK(commit(w, "gone",
                  (eg_edge_spec){.subject = "Maya", .relation = "LIKES", .literal = "opera"}) > 0);
  EG_CHECK(commit(w, "gone",
                  (eg_edge_spec){
                      .subject = "Gone's friend", .relation = "KNOWS", .object = "Maya"}) > 0);
  /* an entity created with an alias, then merged into another */
  Engram__V1__EntityMention m = ENGRAM__V1__ENTITY_MENTION__INIT, *mp = &m;
  m.name = "Lisboa";
  m.create = true;
  char *aliases[1] = {"Lisbon city"};
  m.aliases = aliases;
  m.n_aliases = 1;
  Engram__V1__ResolveEntitiesRequest rr = ENGRAM__V1__RESOLVE_ENTITIES_REQUEST__INIT;
  rr.scope = &scope;
  rr.mentions = &mp;
  rr.n_mentions = 1;
  Engram__V1__ResolveEntitiesResponse *resp = NULL;
  eg_err e;
  EG_REQUIRE(eg_graphd_resolve_entities(cl[w], &rr, &resp, &e) == EG_OK);
  uint64_t lisboa = resp->entities[0]->entity->id;
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  Engram__V1__StateResponse *st = NULL;
  char *maya[1] = {"Maya"};
  EG_REQUIRE(state_of(w, NULL, maya, 1, 0, NULL, &st, &e) == EG_OK);
  uint64_t lisbon = 0;
  for (size_t i = 0; i < st->n_results; i++)
    if (!strcmp(st->results[i]->relation, "LIVES_IN") && st->results[i]->n_values)
      lisbon = st->results[i]->values[0]->object->entity_id;
  protobuf_c_message_free_unpacked(&st->base, NULL);
  Engram__V1__MergeEntitiesRequest mr = ENGRAM__V1__MERGE_ENTITIES_REQUEST__INIT;
  mr.scope = &scope;
  mr.into = lisbon;
  mr.from = lisboa;
  mr.reason = "same city";
  EG_CHECK(lisbon && call(eg_graphd_merge_entities_call(cl[w], &mr, NULL)) == EG_OK);
  /* an outcome, accesses, a policy */
  EG_CHECK(gc_outcome(cl[w], TENANT, "u1", pref, ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_SUCCEEDED,
                      "liked it", NULL, &e) == EG_OK);
  uint64_t ids[3] = {lives, works, lives};
  Engram__V1__RecordAccessRequest ar = ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT;
  ar.scope = &scope;
  ar.ids = ids;
  ar.n_ids = 3;
  EG_CHECK(call(eg_graphd_record_access_call(cl[w], &ar, NULL)) == EG_OK);
  Engram__V1__RetentionPolicy pol = ENGRAM__V1__RETENTION_POLICY__INIT;
  pol.half_life_days = 12;
  Engram__V1__SetRetentionPolicyRequest pr = ENGRAM__V1__SET_RETENTION_POLICY_REQUEST__INIT;
  pr.scope = &scope;
  pr.policy = &pol;
  EG_CHECK(call(eg_graphd_set_retention_policy_call(cl[w], &pr, NULL)) == EG_OK);
  /* a user's erasure */
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &gone;
  EG_CHECK(call(eg_graphd_erase_call(cl[w], &er, NULL)) == EG_OK);
}

/* ---- the tests ------------------------------------------------------------------------------ */

static void test_roles(void) {
  int w = eg_replicas_writer(&rs, 0), f = (w + 1) % rs.n;
  EG_REQUIRE(w >= 0);
  /* a write reaching a follower is refused, naming the writer */
  eg_err e;
  eg_edge_spec s = {.subject = "Ana", .relation = "LIVES_IN", .literal = "Porto"};
  EG_CHECK_INT(gc_commit(cl[f], TENANT, NULL, &s, &e), 0);
  EG_CHECK_INT(e.code, EG_EUNAVAIL);
  char want[96];
  snprintf(want, sizeof want, "writer=%s", rs.r[w].addr);
  EG_CHECK(strstr(e.msg, want) != NULL);
  /* a client that follows the writer (ingestd's, recalld's peers) gets the same write
   * through the follower's address: sent on to the writer it names */
  eg_rpc_client *via = NULL;
  eg_rpc_client_opts fo = {.follow_writer = true};
  EG_REQUIRE(eg_rpc_client_open(rs.r[f].addr, &fo, &via, &e) == EG_OK);
  eg_edge_spec lisbon = {.subject = "Rui", .relation = "LIVES_IN", .literal = "Lisbon"};
  EG_CHECK(gc_commit(via, TENANT, NULL, &lisbon, &e) > 0);
  eg_rpc_client_close(via);
  /* read-your-writes on a follower, with the write's watermark */
  EG_REQUIRE(commit(w, NULL, s) > 0);
  EG_CHECK(strncmp(watermark, "g1:", 3) == 0);
  for (int i = 0; i < rs.n; i++) {
    char *ana[1] = {"Ana"};
    Engram__V1__StateResponse *st = NULL;
    EG_REQUIRE(state_of(i, NULL, ana, 1, 0, watermark, &st, &e) == EG_OK);
    EG_CHECK(st->n_results == 1 && st->results[0]->n_values == 1 &&
             !strcmp(st->results[0]->values[0]->object->literal, "Porto"));
    protobuf_c_message_free_unpacked(&st->base, NULL);
  }
  /* a watermark no replica has reached: DEADLINE_EXCEEDED by the call's deadline */
  eg_rpc_client *quick = NULL;
  eg_rpc_client_opts o = {.timeout_us = EG_US_PER_SEC, .max_attempts = 1};
  EG_REQUIRE(eg_rpc_client_open(rs.r[f].addr, &o, &quick, &e) == EG_OK);
  char *ana[1] = {"Ana"};
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = TENANT;
  Engram__V1__EntityRef ref = ENGRAM__V1__ENTITY_REF__INIT;
  ref.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  ref.name = ana[0];
  Engram__V1__HistoryRequest hr = ENGRAM__V1__HISTORY_REQUEST__INIT;
  hr.scope = &scope;
  hr.subject = &ref;
  hr.watermark = "g1:ffffffff";
  int64_t t0 = eg_time_mono_us();
  EG_CHECK_INT(eg_graphd_history(quick, &hr, NULL, &e), EG_ETIMEOUT);
  EG_CHECK(eg_time_mono_us() - t0 < 3 * EG_US_PER_SEC);
  hr.watermark = "v1:12";
  EG_CHECK_INT(eg_graphd_history(quick, &hr, NULL, &e), EG_EINVAL);
  eg_rpc_client_close(quick);
  /* the metrics of each role */
  EG_CHECK(eg_metric_value(rs.r[w].metrics_port,
                           "engram_graphd_replication_role{role=\"writer\"}") == 1);
  EG_CHECK(eg_metric_value(rs.r[f].metrics_port,
                           "engram_graphd_replication_role{role=\"follower\"}") == 1);
  EG_CHECK(eg_metric_value(rs.r[f].metrics_port, "engram_graphd_replication_applied_seq") ==
           eg_metric_value(rs.r[w].metrics_port, "engram_graphd_replication_applied_seq"));
  EG_CHECK(eg_metric_value(rs.r[f].metrics_port, "engram_graphd_replication_lag_records") == 0);
  EG_CHECK(eg_metric_value(rs.r[f].metrics_port, "engram_graphd_replication_lag_seconds") == 0);
  EG_CHECK(eg_promtool_scrape(rs.r[f].metrics_port, rs.dir, "graphd-follower", NULL) == 0);
}

/* A read the log refuses (here: cancelled while it waited for a lock) is not a broken
 * log: the followers read again, and still answer a later write's watermark. */
static void test_followers_survive_a_refused_read(void) {
  int w = eg_replicas_writer(&rs, 0);
  EG_REQUIRE(w >= 0);
  /* hold the log's table while the followers come to read it, then cancel the reads
   * waiting for it: fails unless both followers were caught waiting */
  EG_CHECK(
      eg_test_system(
          "psql '%s' -qAtc \"BEGIN; LOCK TABLE engram_replog IN ACCESS EXCLUSIVE MODE;"
          " SELECT pg_sleep(1); DO \\$\\$ BEGIN IF (SELECT count(pg_cancel_backend(pid))"
          " FROM pg_stat_activity WHERE application_name = 'engram' AND wait_event_type = 'Lock')"
          " < %d THEN RAISE EXCEPTION 'followers not waiting'; END IF; END \\$\\$; COMMIT;\""
          " >/dev/null",
          rs.pg.dsn, rs.n - 1) == 0);
  EG_REQUIRE(commit(w, NULL,
                    (eg_edge_spec){.subject = "Ines", .relation = "LIVES_IN", .literal = "Braga"}) >
             0);
  for (int f = 0; f < rs.n; f++) {
    char *ines[1] = {"Ines"};
    Engram__V1__StateResponse *st = NULL;
    eg_err e;
    EG_CHECK(state_of(f, NULL, ines, 1, 0, watermark, &st, &e) == EG_OK && st->n_results == 1 &&
             st->results[0]->n_values == 1 &&
             !strcmp(st->results[0]->values[0]->object->literal, "Braga"));
    if (st) protobuf_c_message_free_unpacked(&st->base, NULL);
  }
}

static void test_failover_under_load(void) {
  int w = eg_replicas_writer(&rs, 0);
  EG_REQUIRE(w >= 0);
  varied_writes(w);
  eg_failover fo;
  eg_err fe;
  EG_CHECK(eg_failover_under_load(&rs, &ld, 1500000, &fo, &fe) == EG_OK);
  int nw = fo.writer, sent = fo.sent;
  EG_REQUIRE(nw >= 0 && nw != w);
  EG_CHECK(fo.seconds >= 0 && fo.seconds <= 10.0);
  EG_CHECK(fo.acked > fo.before); /* writes went on after the failover */

  /* every acknowledged commit is on the new writer, exactly once; nothing twice at all */
  eg_load_verdict v;
  eg_err ve;
  EG_REQUIRE(eg_load_verdict_of(&ld, sent, cl[nw], TENANT, NULL, NULL, &v, &ve) == EG_OK);
  EG_CHECK_INT(v.lost, 0);
  EG_CHECK_INT(v.dup, 0);

  /* the killed writer comes back as a follower and catches up */
  eg_err e;
  EG_REQUIRE(eg_replicas_restart(&rs, w, &e) == EG_OK);
  EG_CHECK_INT(eg_replicas_writer(&rs, 0), nw);
}

static void test_followers_answer_as_the_writer(void) {
  int w = eg_replicas_writer(&rs, 5 * EG_US_PER_SEC);
  EG_REQUIRE(w >= 0);
  EG_REQUIRE(commit(w, NULL,
                    (eg_edge_spec){
                        .subject = "Maya", .relation = "FAVORITE_TEA", .literal = "oolong"}) > 0);
  int sent = atomic_load(&ld.sent);
  size_t n = (size_t)sent + 3;
  char **subjects = calloc(n, sizeof *subjects);
  for (int i = 0; i < sent; i++) {
    subjects[i] = malloc(32);
    eg_load_subject(i, subjects[i], 32);
  }
  subjects[sent] = strdup("Maya");
  subjects[sent + 1] = strdup("Lisbon");
  subjects[sent + 2] = strdup("Gone's friend");
  int64_t at = eg_time_now_us();
  int compared = 0, differ = 0;
  for (int f = 0; f < rs.n; f++) {
    if (f == w) continue;
    for (const char *user = NULL;; user = "u1") {
      for (size_t from = 0; from < n; from += 500) {
        size_t k = n - from < 500 ? n - from : 500;
        Engram__V1__StateResponse *a = NULL, *b = NULL;
        eg_err e;
        /* the follower answers once it has applied the writer's last write */
        EG_REQUIRE(state_of(f, user, subjects + from, k, at, watermark, &b, &e) == EG_OK);
        EG_REQUIRE(state_of(w, user, subjects + from, k, at, NULL, &a, &e) == EG_OK);
        compared++;
        differ += !eg_same_message(&a->base, &b->base);
        protobuf_c_message_free_unpacked(&a->base, NULL);
        protobuf_c_message_free_unpacked(&b->base, NULL);
      }
      for (size_t i = 0; i < n; i++) {
        Engram__V1__HistoryResponse *a = NULL, *b = NULL;
        eg_err e;
        EG_REQUIRE(gc_history(cl[w], TENANT, user, subjects[i], NULL, at, &a, &e) == EG_OK);
        EG_REQUIRE(gc_history(cl[f], TENANT, user, subjects[i], NULL, at, &b, &e) == EG_OK);
        compared++;
        if (!eg_same_message(&a->base, &b->base)) {
          differ++;
          fprintf(stderr, "  History of %s differs on replica %d\n", subjects[i], f);
        }
        protobuf_c_message_free_unpacked(&a->base, NULL);
        protobuf_c_message_free_unpacked(&b->base, NULL);
      }
      if (user) break;
    }
    EG_CHECK(eg_metric_value(rs.r[f].metrics_port, "engram_graphd_replication_applied_seq") ==
             eg_metric_value(rs.r[w].metrics_port, "engram_graphd_replication_applied_seq"));
  }
  fprintf(stderr, "  %d State/History answers compared with the writer's, %d differ\n", compared,
          differ);
  EG_CHECK(compared > 2 * sent);
  EG_CHECK_INT(differ, 0);
  /* the erased user's facts are gone everywhere; Maya's current tea is the last one */
  for (int f = 0; f < rs.n; f++) {
    EG_CHECK_INT(gc_history_len(cl[f], TENANT, "Gone's friend", NULL), 0);
    EG_CHECK_STR(gc_value(cl[f], TENANT, "Maya", "FAVORITE_TEA", 0, 0), "oolong");
  }
  for (size_t i = 0; i < n; i++) free(subjects[i]);
  free(subjects);
}

/* (d) A replica started from an empty data dir while the writer is under load replays the
 * whole log and converges: every acknowledged commit, once, and the writer's position. */
static eg_load fresh_ld = {.write = eg_load_commit_city, .ctx = "fresh"};

static eg_code restart_a_follower_empty(eg_replicas *r, void *ctx, eg_failover *out, eg_err *err) {
  (void)ctx;
  int w = eg_replicas_writer(r, 0);
  out->killed = (w + 1) % r->n; /* not killed: its store is thrown away */
  return eg_replicas_restart_empty(r, out->killed, err);
}

static void test_new_replica_mid_load(void) {
  eg_failover fo;
  eg_err e;
  EG_REQUIRE(eg_failover_under_load_by(&rs, &fresh_ld, 1000000, restart_a_follower_empty, NULL, &fo,
                                       &e) == EG_OK);
  int f = fo.killed, w = eg_replicas_writer(&rs, 5 * EG_US_PER_SEC);
  EG_REQUIRE(w >= 0 && f != w);
  EG_CHECK(fo.acked > fo.before); /* the load went on while it bootstrapped */
  EG_REQUIRE(eg_replicas_caught_up(&rs, f, w, 20 * EG_US_PER_SEC));
  eg_load_verdict v;
  EG_REQUIRE(eg_load_verdict_of(&fresh_ld, fo.sent, cl[f], "fresh", NULL, NULL, &v, &e) == EG_OK);
  EG_CHECK_INT(v.lost, 0);
  EG_CHECK_INT(v.dup, 0);
  EG_CHECK(v.acked > 0);
}

/* (e) A stale writer: stopped (SIGSTOP) while its log session is ended — as a partition or
 * keepalive timeout ends it — so another replica takes the lock and writes; resumed, it
 * must not append: it steps down, and nothing is lost or written twice. */
static eg_load stale_ld = {.write = eg_load_commit_city, .ctx = "stale"};

static eg_code stop_writer_lose_lock(eg_replicas *r, void *ctx, eg_failover *out, eg_err *err) {
  (void)ctx;
  int w = out->killed = eg_replicas_writer(r, 0);
  if (w < 0) return eg_err_set(err, EG_EPRECOND, "no writer");
  kill(r->r[w].pid, SIGSTOP);
  char got[64];
  eg_code rc = eg_pg_query(r->dsn,
                           "SELECT count(pg_terminate_backend(pid)) FROM pg_locks "
                           "WHERE locktype = 'advisory' AND granted",
                           got, sizeof got, err);
  /* another replica takes the lock while the old writer sleeps (its /metrics would not
   * answer: only the others are asked) */
  int64_t until = eg_time_mono_us() + 15 * EG_US_PER_SEC;
  int nw = -1;
  while (!rc && eg_time_mono_us() < until && nw < 0) {
    usleep(100000);
    for (int i = 0; i < r->n && nw < 0; i++)
      if (i != w && eg_metric_value(r->r[i].metrics_port,
                                    "engram_graphd_replication_role{role=\"writer\"}") == 1)
        nw = i;
  }
  kill(r->r[w].pid, SIGCONT);
  if (!rc && nw < 0) rc = eg_err_set(err, EG_ETIMEOUT, "no other replica took over");
  return rc;
}

static void test_stale_writer_cannot_append(void) {
  eg_failover fo;
  eg_err e;
  EG_REQUIRE(eg_failover_under_load_by(&rs, &stale_ld, 1000000, stop_writer_lose_lock, NULL, &fo,
                                       &e) == EG_OK);
  int old = fo.killed, w = eg_replicas_writer(&rs, 5 * EG_US_PER_SEC);
  EG_REQUIRE(old >= 0 && w >= 0);
  EG_CHECK(w != old);
  EG_CHECK(fo.acked > fo.before);
  /* the old writer, resumed, is a follower: it refuses a write, naming the writer */
  int64_t until = eg_time_mono_us() + 10 * EG_US_PER_SEC;
  while (eg_time_mono_us() < until &&
         eg_metric_value(rs.r[old].metrics_port,
                         "engram_graphd_replication_role{role=\"follower\"}") != 1)
    usleep(100000);
  EG_CHECK(eg_metric_value(rs.r[old].metrics_port,
                           "engram_graphd_replication_role{role=\"follower\"}") == 1);
  eg_edge_spec s = {.subject = "Stale", .relation = "LIVES_IN", .literal = "Nowhere"};
  EG_CHECK_INT(gc_commit(cl[old], "stale", NULL, &s, &e), 0);
  EG_CHECK_INT(e.code, EG_EUNAVAIL);
  /* every acknowledged commit once, in graphd and in the log; none twice */
  eg_load_verdict v;
  EG_REQUIRE(eg_load_verdict_of(&stale_ld, fo.sent, cl[w], "stale", rs.dsn, "graph-0", &v, &e) ==
             EG_OK);
  EG_CHECK_INT(v.lost, 0);
  EG_CHECK_INT(v.dup, 0);
  EG_CHECK_INT(v.unlogged, 0);
}

int main(void) {
  static const eg_replicas_test tests[] = {
      {"test_roles", test_roles},
      {"test_followers_survive_a_refused_read", test_followers_survive_a_refused_read},
      {"test_failover_under_load", test_failover_under_load},
      {"test_followers_answer_as_the_writer", test_followers_answer_as_the_writer},
      {"test_new_replica_mid_load", test_new_replica_mid_load},
      {"test_stale_writer_cannot_append", test_stale_writer_cannot_append},
  };
  return eg_replicas_run(&rs, "graphd", 3, cl, tests, sizeof tests / sizeof *tests);
}
