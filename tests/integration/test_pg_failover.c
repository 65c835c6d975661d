/*
 * test_pg_failover.c — the log's PostgreSQL as a primary and two streaming standbys with a
 * synchronous quorum (synchronous_standby_names = 'ANY 1 (s1, s2)'), two graphd replicas
 * of one shard over a multi-host DSN with target_session_attrs=read-write
 * (deploy/REPLICATION.md, "Quorum commit and failover of PostgreSQL").
 *
 *   quorum unmet   both standbys stopped: a commit is not acknowledged — the call ends
 *                  with DEADLINE_EXCEEDED within its 2 s deadline while the primary's
 *                  backend waits for the standbys — and the follower does not apply the
 *                  record the primary already shows; with the standbys back, writes go on.
 *   failover (b)   kill -9 of the primary's postmaster under continuous commits; the standby
 *                  with the most WAL is promoted (pg_ctl promote) and the other one follows
 *                  it; the writer reconnects and acknowledges writes again within 20 s; every
 *                  acknowledged commit is in graphd exactly once and in the new primary's
 *                  log; the follower catches up with the writer. A vectord writer over the
 *                  same log comes through the same failover: its upserts before and after
 *                  it are there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/time.h"
#include "common/vector_client.h"
#include "tests/graph_helpers.h"
#include "tests/pg.h"
#include "tests/replicas.h"
#include "tests/testlib.h"

#define TENANT "pgf"
#define SHARD "graph-0"

static eg_pg_cluster pgc;
static eg_replicas rs;
static eg_rpc_client *cl[EG_MAX_REPLICAS]; /* one per replica, 10 s deadline, no retries */
static eg_replicas vrs;                    /* one vectord writer over the same log */

/* ---- vectord: one chunk upserted, read back --------------------------------------------- */

static eg_rpc_request upsert_at(eg_rpc_client *c, const void *req) {
  return eg_vectord_upsert_call(c, req, NULL);
}

/* Upsert chunk id (its text names it), following vectord's writer until give_up_us. */
static eg_code upsert_chunk(uint64_t id, int64_t give_up_us, eg_err *err) {
  char text[96];
  snprintf(text, sizeof text, "note %llu on the ferry timetable", (unsigned long long)id);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = TENANT;
  Engram__V1__Chunk c = ENGRAM__V1__CHUNK__INIT, *cp = &c;
  c.scope = &scope;
  c.id = id;
  c.content = text;
  c.session_id = "s1";
  c.role = "user";
  c.time = eg_time_now_us();
  Engram__V1__UpsertRequest req = ENGRAM__V1__UPSERT_REQUEST__INIT;
  req.scope = &scope;
  req.chunks = &cp;
  req.n_chunks = 1;
  eg_writer_client wc;
  eg_code rc = eg_writer_client_open(&wc, &vrs, 2 * EG_US_PER_SEC, err);
  if (!rc) rc = eg_writer_call(&wc, upsert_at, &req, give_up_us, err);
  eg_writer_client_close(&wc);
  return rc;
}

/* How many of ids vectord's replica 0 holds. */
static int chunks_found(uint64_t *ids, size_t n) {
  eg_rpc_client *c = NULL;
  eg_rpc_client_opts o = {.timeout_us = 10 * EG_US_PER_SEC, .max_attempts = 1};
  eg_err e;
  if (eg_rpc_client_open(vrs.r[0].addr, &o, &c, &e)) return -1;
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = TENANT;
  Engram__V1__GetChunksRequest g = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  g.scope = &scope;
  g.ids = ids;
  g.n_ids = n;
  Engram__V1__GetChunksResponse *r = NULL;
  int found = eg_vectord_get_chunks(c, &g, &r, &e) == EG_OK ? (int)r->n_chunks : -1;
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  eg_rpc_client_close(c);
  return found;
}

static double metric(int replica, const char *what) {
  char series[128];
  snprintf(series, sizeof series, "engram_graphd_replication_%s", what);
  return eg_metric_value(rs.r[replica].metrics_port, series);
}

/* The log's last position on the primary now (0: none, or it cannot be read). */
static unsigned long long log_end(void) {
  char v[32];
  eg_err e;
  if (eg_pg_query(pgc.node[pgc.primary].dsn,
                  "SELECT coalesce(max(seq), 0) FROM engram_replog WHERE shard = '" SHARD "'", v,
                  sizeof v, &e) != EG_OK)
    return 0;
  return strtoull(v, NULL, 10);
}

static bool caught_up(int f, int w, int64_t timeout_us) {
  return eg_replicas_caught_up(&rs, f, w, timeout_us);
}

static void test_quorum_unmet(void) {
  int w = eg_replicas_writer(&rs, 0), f = (w + 1) % rs.n;
  EG_REQUIRE(w >= 0);
  eg_err e;
  EG_REQUIRE(
      gc_commit(cl[w], TENANT, NULL,
                &(eg_edge_spec){.subject = "Quorum", .relation = "LIVES_IN", .literal = "before"},
                &e) > 0);
  EG_REQUIRE(caught_up(f, w, 10 * EG_US_PER_SEC));
  double applied = metric(f, "applied_seq");
  unsigned long long end = log_end();
  EG_CHECK(end > 0 && applied == (double)end);

  /* no standby: a commit waits for one, past the call's deadline */
  for (int i = 1; i < pgc.n; i++) eg_pg_halt(&pgc.node[i]);
  eg_rpc_client *quick = NULL;
  eg_rpc_client_opts o = {.timeout_us = 2 * EG_US_PER_SEC, .max_attempts = 1};
  EG_REQUIRE(eg_rpc_client_open(rs.r[w].addr, &o, &quick, &e) == EG_OK);
  int64_t t0 = eg_time_mono_us();
  uint64_t id = gc_commit(
      quick, TENANT, NULL,
      &(eg_edge_spec){.subject = "Quorum", .relation = "WORKS_AT", .literal = "unacknowledged"},
      &e);
  int64_t took = eg_time_mono_us() - t0;
  fprintf(stderr, "  with no standby: %s after %.2f s (%s)\n", id ? "acknowledged" : "refused",
          (double)took / 1e6, id ? "" : e.msg);
  EG_CHECK(id == 0);
  EG_CHECK(e.code == EG_ETIMEOUT || e.code == EG_EUNAVAIL);
  EG_CHECK(took < 4 * EG_US_PER_SEC);
  eg_rpc_client_close(quick);
  /* the primary's backend waits for a standby to confirm the record, which no other
   * session sees meanwhile */
  char waiting[16];
  EG_CHECK(eg_pg_query(pgc.node[pgc.primary].dsn,
                       "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'",
                       waiting, sizeof waiting, &e) == EG_OK &&
           atoi(waiting) >= 1);
  EG_CHECK(log_end() == end);
  /* that backend terminated: the record, committed locally only, becomes visible on the
   * primary — and still no replica applies it before a standby has it (a failover now
   * would lose it) */
  EG_CHECK(eg_pg_query(pgc.node[pgc.primary].dsn,
                       "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                       " WHERE wait_event = 'SyncRep'",
                       waiting, sizeof waiting, &e) == EG_OK &&
           atoi(waiting) >= 1);
  usleep(1000000);
  unsigned long long pending = log_end();
  fprintf(stderr, "  the log on the primary ends at %llu (was %llu); applied: %.0f and %.0f\n",
          pending, end, metric(w, "applied_seq"), metric(f, "applied_seq"));
  EG_CHECK(pending == end + 1);
  EG_CHECK(metric(f, "applied_seq") == applied);
  EG_CHECK(metric(w, "applied_seq") == applied);
  EG_CHECK(eg_replicas_writer(&rs, 0) < 0); /* the writer lost its session: none leads */

  /* the standbys back: the record is confirmed and applied, writes are acknowledged again */
  for (int i = 1; i < pgc.n; i++) EG_REQUIRE(eg_pg_restart(&pgc.node[i], &e) == EG_OK);
  int64_t until = eg_time_mono_us() + 20 * EG_US_PER_SEC;
  while (eg_pg_cluster_streaming(&pgc) < pgc.n - 1 && eg_time_mono_us() < until) usleep(50000);
  EG_CHECK_INT(eg_pg_cluster_streaming(&pgc), pgc.n - 1);
  eg_writer_client wc;
  EG_REQUIRE(eg_writer_client_open(&wc, &rs, 2 * EG_US_PER_SEC, &e) == EG_OK);
  EG_CHECK(eg_writer_commit(
               &wc, TENANT, NULL,
               &(eg_edge_spec){.subject = "Quorum", .relation = "LIVES_IN", .literal = "after"},
               eg_time_mono_us() + 20 * EG_US_PER_SEC, NULL, &e) == EG_OK);
  eg_writer_client_close(&wc);
  w = eg_replicas_writer(&rs, 5 * EG_US_PER_SEC);
  EG_REQUIRE(w >= 0);
  f = (w + 1) % rs.n;
  EG_CHECK(caught_up(f, w, 10 * EG_US_PER_SEC));
  EG_CHECK(metric(f, "applied_seq") == (double)end + 2);
  for (int i = 0; i < rs.n; i++) {
    EG_CHECK_STR(gc_value(cl[i], TENANT, "Quorum", "LIVES_IN", 0, 0), "after");
    /* the write never acknowledged is there now: it reached the log */
    EG_CHECK_STR(gc_value(cl[i], TENANT, "Quorum", "WORKS_AT", 0, 0), "unacknowledged");
  }
}

static eg_load ld = {.write = eg_load_commit_city, .ctx = TENANT};

/* kill -9 of the primary's postmaster; a moment later (a monitor noticing), promote. */
static eg_code kill_primary(eg_replicas *r, void *ctx, eg_failover *out, eg_err *err) {
  (void)r, (void)ctx, (void)out;
  int old = pgc.primary, promoted = -1;
  eg_code rc = eg_pg_kill(&pgc.node[old], err);
  if (rc) return rc;
  usleep(500000);
  int64_t t0 = eg_time_mono_us();
  if ((rc = eg_pg_cluster_promote(&pgc, &promoted, err))) return rc;
  fprintf(stderr, "  primary node %d killed; %s promoted in %.2f s\n", old, pgc.node[promoted].name,
          (double)(eg_time_mono_us() - t0) / 1e6);
  return EG_OK;
}

static void test_failover_of_the_primary(void) {
  int w = eg_replicas_writer(&rs, 0);
  EG_REQUIRE(w >= 0);
  uint64_t chunk_ids[2] = {7001, 7002};
  eg_err ve;
  EG_REQUIRE(upsert_chunk(chunk_ids[0], eg_time_mono_us() + 10 * EG_US_PER_SEC, &ve) == EG_OK);
  double reconnects = metric(w, "log_reconnects_total");
  eg_failover fo;
  eg_err e;
  EG_CHECK(eg_failover_under_load_by(&rs, &ld, 1500000, kill_primary, NULL, &fo, &e) == EG_OK);
  EG_REQUIRE(pgc.primary != 0);
  int sent = fo.sent, nw = eg_replicas_writer(&rs, 10 * EG_US_PER_SEC);
  EG_REQUIRE(nw >= 0);
  /* no primary for 0.5 s at least (the kill, then the promotion): the writes stopped, and
   * went on within 20 s */
  EG_CHECK(fo.outage >= 0.5 && fo.outage <= 20.0);
  EG_CHECK(fo.seconds > 0 && fo.seconds <= 20.0);
  EG_CHECK(fo.acked >= fo.before + 10); /* writes went on after the failover */
  EG_CHECK(metric(nw, "log_connected") == 1);
  EG_CHECK(metric(w, "log_reconnects_total") >= reconnects + 1);
  /* the other standby follows the new primary: the quorum is whole again */
  EG_CHECK_INT(eg_pg_cluster_streaming(&pgc), 1);

  /* every acknowledged commit in graphd exactly once, and in the new primary's log */
  eg_load_verdict v;
  EG_REQUIRE(eg_load_verdict_of(&ld, sent, cl[nw], TENANT, pgc.node[pgc.primary].dsn, SHARD, &v,
                                &e) == EG_OK);
  EG_CHECK(v.acked > 0);
  EG_CHECK_INT(v.lost, 0);
  EG_CHECK_INT(v.dup, 0);
  EG_CHECK_INT(v.unlogged, 0);
  /* the follower has applied the same log */
  for (int f = 0; f < rs.n; f++)
    if (f != nw) EG_CHECK(caught_up(f, nw, 10 * EG_US_PER_SEC));
  /* vectord's writer came through the same failover: it reconnected, writes, lost nothing */
  EG_CHECK(upsert_chunk(chunk_ids[1], eg_time_mono_us() + 20 * EG_US_PER_SEC, &ve) == EG_OK);
  EG_CHECK_INT(chunks_found(chunk_ids, 2), 2);
  EG_CHECK(eg_metric_value(vrs.r[0].metrics_port,
                           "engram_vectord_replication_log_reconnects_total") >= 1);
}

int main(void) {
  eg_rpc_global_init();
  eg_err e;
  int rc = 1;
  if (eg_pg_cluster_start(&pgc, 2, &e) != EG_OK ||
      eg_replicas_start_on(&rs, "graphd", 2, pgc.dsn, &e) != EG_OK ||
      eg_replicas_start_on(&vrs, "vectord", 1, pgc.dsn, &e) != EG_OK) {
    fprintf(stderr, "cannot start PostgreSQL and the replicas: %s\n", e.msg);
    eg_replicas_stop(&rs, true);
    eg_replicas_stop(&vrs, true);
    eg_pg_cluster_stop(&pgc, true);
    return 1;
  }
  fprintf(stderr, "  log DSN: %s\n", pgc.dsn);
  eg_rpc_client_opts o = {.timeout_us = 10 * EG_US_PER_SEC, .max_attempts = 1};
  for (int i = 0; i < rs.n; i++) eg_rpc_client_open(rs.r[i].addr, &o, &cl[i], &e);
  EG_RUN(test_quorum_unmet);
  EG_RUN(test_failover_of_the_primary);
  for (int i = 0; i < rs.n; i++) eg_rpc_client_close(cl[i]);
  rc = eg_test_finish();
  eg_replicas_stop(&rs, rc != 0);
  eg_replicas_stop(&vrs, rc != 0);
  eg_pg_cluster_stop(&pgc, rc != 0);
  eg_rpc_global_shutdown();
  return rc;
}
