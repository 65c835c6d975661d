/*
 * test_pg_autofailover.c — a failover of the log's PostgreSQL by pg_auto_failover itself
 * (deploy/REPLICATION.md, "Quorum commit and failover of PostgreSQL"): a monitor and three
 * nodes (pg_autoctl; the primary's synchronous_standby_names 'ANY 1 (…)' over the two
 * standbys), two graphd replicas over the three-host DSN. Under continuous commits the
 * primary's node is lost (its keeper and server killed with SIGKILL); the monitor promotes a
 * standby, the writer reconnects and acknowledges writes again within 20 s; every
 * acknowledged commit is in graphd exactly once and in the new primary's log, and the
 * follower catches up. Skipped (77) when pg_autoctl is not installed.
 */
#include <stdio.h>
#include <string.h>

#include "common/time.h"
#include "tests/pg.h"
#include "tests/pg_auto.h"
#include "tests/replicas.h"
#include "tests/testlib.h"

#define TENANT "paf"

static eg_pgaf af;
static eg_replicas rs;
static eg_rpc_client *cl[EG_MAX_REPLICAS];
static eg_load ld = {.write = eg_load_commit_city, .ctx = TENANT};
static int killed = -1;

static eg_code lose_primary(eg_replicas *r, void *ctx, eg_failover *out, eg_err *err) {
  (void)r, (void)ctx, (void)out;
  return eg_pgaf_kill(&af, killed, err);
}

static void test_failover_by_pg_auto_failover(void) {
  int w = eg_replicas_writer(&rs, 0);
  EG_REQUIRE(w >= 0);
  int p = killed = eg_pgaf_primary(&af, 0);
  EG_REQUIRE(p >= 0);
  char names[200];
  eg_err e;
  EG_REQUIRE(eg_pg_query(af.node[p].dsn, "SHOW synchronous_standby_names", names, sizeof names,
                         &e) == EG_OK);
  fprintf(stderr, "  primary %s, synchronous_standby_names = '%s'\n", af.node[p].name, names);
  EG_CHECK(strncmp(names, "ANY 1 (", 7) == 0);

  eg_failover fo;
  EG_CHECK(eg_failover_under_load_by(&rs, &ld, 1500000, lose_primary, NULL, &fo, &e) == EG_OK);
  int np = eg_pgaf_primary(&af, 20 * EG_US_PER_SEC),
      nw = eg_replicas_writer(&rs, 10 * EG_US_PER_SEC);
  fprintf(stderr, "  node %s lost; the monitor's primary now: %s\n",
          killed >= 0 ? af.node[killed].name : "?", np >= 0 ? af.node[np].name : "none");
  EG_REQUIRE(np >= 0 && np != killed && nw >= 0);
  EG_CHECK(fo.outage > 0 && fo.outage <= 20.0);
  EG_CHECK(fo.seconds > 0 && fo.seconds <= 20.0);
  /* writes go on (while the other standby rejoins the new primary, commits may wait a
   * moment for it: pg_auto_failover turns the quorum off and on again around it) */
  eg_writer_client wc;
  EG_REQUIRE(eg_writer_client_open(&wc, &rs, 2 * EG_US_PER_SEC, &e) == EG_OK);
  int64_t t0 = eg_time_mono_us(), give_up = t0 + 20 * EG_US_PER_SEC;
  int more = 0;
  for (int i = 0; i < 20; i++)
    more += eg_load_commit_city(&wc, fo.sent + i, TENANT, give_up, &e) == EG_OK;
  eg_writer_client_close(&wc);
  fprintf(stderr, "  %d more commits in %.2f s\n", more, (double)(eg_time_mono_us() - t0) / 1e6);
  EG_CHECK_INT(more, 20);

  eg_load_verdict v;
  EG_REQUIRE(eg_load_verdict_of(&ld, fo.sent, cl[nw], TENANT, af.node[np].dsn, "graph-0", &v, &e) ==
             EG_OK);
  EG_CHECK(v.acked > 0);
  EG_CHECK_INT(v.lost, 0);
  EG_CHECK_INT(v.dup, 0);
  EG_CHECK_INT(v.unlogged, 0);
  for (int f = 0; f < rs.n; f++)
    if (f != nw) EG_CHECK(eg_replicas_caught_up(&rs, f, nw, 10 * EG_US_PER_SEC));
}

int main(void) {
  if (!eg_pgaf_available()) {
    fprintf(stderr, "skipped: pg_autoctl is not installed (postgresql-15-auto-failover)\n");
    return 77;
  }
  eg_rpc_global_init();
  eg_err e;
  int64_t t0 = eg_time_mono_us();
  if (eg_pgaf_start(&af, 3, &e) != EG_OK ||
      eg_replicas_start_on(&rs, "graphd", 2, af.dsn, &e) != EG_OK) {
    fprintf(stderr, "cannot start pg_auto_failover and the replicas: %s\n", e.msg);
    eg_replicas_stop(&rs, true);
    eg_pgaf_stop(&af, true);
    return 1;
  }
  fprintf(stderr, "  formation and replicas up in %.1f s; log DSN: %s\n",
          (double)(eg_time_mono_us() - t0) / 1e6, af.dsn);
  eg_rpc_client_opts o = {.timeout_us = 10 * EG_US_PER_SEC, .max_attempts = 1};
  for (int i = 0; i < rs.n; i++) eg_rpc_client_open(rs.r[i].addr, &o, &cl[i], &e);
  EG_RUN(test_failover_by_pg_auto_failover);
  for (int i = 0; i < rs.n; i++) eg_rpc_client_close(cl[i]);
  int rc = eg_test_finish();
  eg_replicas_stop(&rs, rc != 0);
  eg_pgaf_stop(&af, rc != 0);
  eg_rpc_global_shutdown();
  return rc;
}
