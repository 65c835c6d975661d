/*
 * test_replog.c — the replicated log against a real PostgreSQL: one writer per shard
 * (the advisory lock), fenced appends (no lock, a gap, a taken position, a session that
 * ended), tail order and batching, notifications, the writer's address, shards kept
 * apart, and commits whose wait for the synchronous standbys was cancelled.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/replog.h"
#include "tests/pg.h"
#include "tests/testlib.h"

static eg_pg pg;

static eg_code append_strs(eg_replog *l, uint64_t first, const char *const *s, size_t n,
                           eg_err *err) {
  eg_replog_payload p[8];
  for (size_t i = 0; i < n; i++) p[i] = (eg_replog_payload){s[i], strlen(s[i])};
  return eg_replog_append(l, first, p, n, err);
}

static bool record_is(const eg_replog_record *r, uint64_t seq, const char *payload) {
  return r->seq == seq && r->len == strlen(payload) && memcmp(r->payload, payload, r->len) == 0 &&
         r->at_us > 0;
}

static void test_one_writer_and_tail_order(void) {
  eg_err e;
  eg_replog *a = NULL, *b = NULL;
  EG_REQUIRE(eg_replog_open(pg.dsn, "graph-0", &a, &e) == EG_OK);
  EG_REQUIRE(eg_replog_open(pg.dsn, "graph-0", &b, &e) == EG_OK);
  bool lead = false;
  EG_CHECK(eg_replog_try_lead(a, "127.0.0.1:1111", &lead, &e) == EG_OK && lead);
  EG_CHECK(eg_replog_try_lead(b, "127.0.0.1:2222", &lead, &e) == EG_OK && !lead);
  char addr[64];
  EG_CHECK(eg_replog_writer(b, addr, sizeof addr, &e) == EG_OK);
  EG_CHECK_STR(addr, "127.0.0.1:1111");

  uint64_t end = 99;
  EG_CHECK(eg_replog_end(b, &end, NULL, &e) == EG_OK);
  EG_CHECK_INT(end, 0);
  const char *first[] = {"one", "two", "three"};
  EG_CHECK(append_strs(a, 1, first, 3, &e) == EG_OK);
  const char *bin = "\x00\x01\xff payload with a NUL";
  eg_replog_payload p = {bin, 22};
  EG_CHECK(eg_replog_append(a, 4, &p, 1, &e) == EG_OK);

  /* the writer does not tail: its own appends queue no notification in its session
   * (they would pile up in libpq for as long as it leads) */
  uint64_t own = 0;
  EG_CHECK(eg_replog_wait(a, 200, &own, &e) == EG_OK);
  EG_CHECK_INT(own, 0);

  /* the follower is woken, and reads everything in order, in batches */
  uint64_t notified = 0;
  for (int i = 0; i < 20 && notified < 4; i++)
    EG_CHECK(eg_replog_wait(b, 100, &notified, &e) == EG_OK);
  EG_CHECK_INT(notified, 4);
  eg_replog_batch batch;
  EG_REQUIRE(eg_replog_read(b, 0, 2, &batch, &e) == EG_OK);
  EG_CHECK_INT(batch.n, 2);
  EG_CHECK(batch.n == 2 && record_is(&batch.records[0], 1, "one") &&
           record_is(&batch.records[1], 2, "two"));
  eg_replog_batch_free(&batch);
  EG_REQUIRE(eg_replog_read(b, 2, 100, &batch, &e) == EG_OK);
  EG_CHECK_INT(batch.n, 2);
  EG_CHECK(batch.n == 2 && record_is(&batch.records[0], 3, "three") && batch.records[1].seq == 4 &&
           batch.records[1].len == 22 && memcmp(batch.records[1].payload, bin, 22) == 0);
  eg_replog_batch_free(&batch);
  EG_REQUIRE(eg_replog_read(b, 4, 100, &batch, &e) == EG_OK);
  EG_CHECK_INT(batch.n, 0);
  eg_replog_batch_free(&batch);
  int64_t at = 0;
  EG_CHECK(eg_replog_end(b, &end, &at, &e) == EG_OK);
  EG_CHECK_INT(end, 4);
  EG_CHECK(at > 0);

  /* fencing: no lock; a gap; a taken position — none of them writes */
  const char *x[] = {"intruder"};
  EG_CHECK_INT(append_strs(b, 5, x, 1, &e), EG_EABORTED);
  EG_CHECK_INT(append_strs(a, 6, x, 1, &e), EG_EABORTED);
  EG_CHECK_INT(append_strs(a, 4, x, 1, &e), EG_EABORTED);
  EG_CHECK_INT(append_strs(a, 3, x, 1, &e), EG_EABORTED);
  EG_CHECK(eg_replog_end(b, &end, NULL, &e) == EG_OK);
  EG_CHECK_INT(end, 4);

  /* the writer's session ends: the follower takes over, appends after the end, and the
   * old writer, back with a new session, can neither lead nor append */
  eg_replog_close(a);
  a = NULL;
  lead = false;
  for (int i = 0; i < 50 && !lead; i++) {
    EG_CHECK(eg_replog_try_lead(b, "127.0.0.1:2222", &lead, &e) == EG_OK);
    if (!lead) usleep(20000);
  }
  EG_REQUIRE(lead);
  const char *next[] = {"five", "six"};
  EG_CHECK(append_strs(b, 5, next, 2, &e) == EG_OK);
  eg_replog *stale = NULL;
  EG_REQUIRE(eg_replog_open(pg.dsn, "graph-0", &stale, &e) == EG_OK);
  EG_CHECK(eg_replog_try_lead(stale, "127.0.0.1:1111", &lead, &e) == EG_OK && !lead);
  EG_CHECK_INT(append_strs(stale, 7, x, 1, &e), EG_EABORTED);
  EG_CHECK(eg_replog_writer(stale, addr, sizeof addr, &e) == EG_OK);
  EG_CHECK_STR(addr, "127.0.0.1:2222");
  EG_REQUIRE(eg_replog_read(stale, 4, 100, &batch, &e) == EG_OK);
  EG_CHECK(batch.n == 2 && record_is(&batch.records[0], 5, "five") &&
           record_is(&batch.records[1], 6, "six"));
  eg_replog_batch_free(&batch);
  eg_replog_close(stale);
  eg_replog_close(b);
}

/* A writer whose session PostgreSQL ended (a network cut, an administrator) learns it at
 * its next append, and another replica leads. */
static void test_lost_session(void) {
  eg_err e;
  eg_replog *w = NULL, *admin = NULL, *next = NULL;
  EG_REQUIRE(eg_replog_open(pg.dsn, "graph-1", &w, &e) == EG_OK);
  EG_REQUIRE(eg_replog_open(pg.dsn, "graph-1", &next, &e) == EG_OK);
  bool lead = false;
  EG_REQUIRE(eg_replog_try_lead(w, "w", &lead, &e) == EG_OK && lead);
  const char *one[] = {"a"};
  EG_CHECK(append_strs(w, 1, one, 1, &e) == EG_OK);
  /* end every session that holds the lock of graph-1 (only w's) */
  EG_REQUIRE(
      eg_test_system("psql '%s' -qAtc \"SELECT pg_terminate_backend(pid) FROM pg_locks WHERE "
                     "locktype = 'advisory' AND granted AND objid::bigint = "
                     "(hashtextextended('engram_replog:graph-1', 0) & 4294967295)\" >/dev/null",
                     pg.dsn) == 0);
  const char *two[] = {"b"};
  EG_CHECK_INT(append_strs(w, 2, two, 1, &e), EG_EUNAVAIL);
  EG_CHECK_INT(eg_replog_ping(w, &e), EG_EUNAVAIL);
  EG_CHECK(eg_replog_try_lead(next, "n", &lead, &e) == EG_OK && lead);
  EG_CHECK(append_strs(next, 2, two, 1, &e) == EG_OK);
  /* shards are separate logs: graph-0's records are not graph-1's */
  uint64_t end = 0;
  EG_CHECK(eg_replog_end(next, &end, NULL, &e) == EG_OK);
  EG_CHECK_INT(end, 2);
  eg_replog_close(w);
  eg_replog_close(next);
  eg_replog_close(admin);
}

/* ---- a commit the standbys never confirmed ---- */

typedef struct blocked_call {
  eg_replog *l;
  bool barrier; /* eg_replog_durable, else an append at 2 */
  eg_code rc;
  eg_err e;
} blocked_call;

static void *call_main(void *arg) {
  blocked_call *c = arg;
  const char *two[] = {"b"};
  c->rc = c->barrier ? eg_replog_durable(c->l, &c->e) : append_strs(c->l, 2, two, 1, &c->e);
  return NULL;
}

static void set_sync_names(const char *names) {
  char sql[200], out[8];
  eg_err e;
  snprintf(sql, sizeof sql, "ALTER SYSTEM SET synchronous_standby_names = '%s'", names);
  EG_CHECK(eg_pg_query(pg.dsn, sql, out, sizeof out, &e) == EG_OK);
  EG_CHECK(eg_pg_query(pg.dsn, "SELECT pg_reload_conf()", out, sizeof out, &e) == EG_OK);
  usleep(300000); /* the sessions read the configuration again */
}

/* Run c on a thread of its own, wait until its commit waits for a standby, cancel that
 * wait (PostgreSQL then answers success, with a WARNING), and join. */
static void cancel_wait_of(blocked_call *c) {
  pthread_t th;
  EG_REQUIRE(pthread_create(&th, NULL, call_main, c) == 0);
  int cancelled = 0;
  for (int i = 0; i < 100 && !cancelled; i++) {
    usleep(50000);
    char v[16];
    eg_err e;
    if (eg_pg_query(pg.dsn,
                    "SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity"
                    " WHERE wait_event = 'SyncRep'",
                    v, sizeof v, &e) == EG_OK)
      cancelled = atoi(v);
  }
  EG_CHECK(cancelled == 1);
  pthread_join(th, NULL);
}

/* A commit whose wait for the synchronous standbys was cancelled is committed on the
 * primary alone: not an acknowledged append, nor a barrier passed. */
static void test_unconfirmed_commit(void) {
  eg_err e;
  eg_replog *w = NULL;
  EG_REQUIRE(eg_replog_open(pg.dsn, "graph-2", &w, &e) == EG_OK);
  bool lead = false;
  EG_REQUIRE(eg_replog_try_lead(w, "w", &lead, &e) == EG_OK && lead);
  const char *one[] = {"a"};
  EG_CHECK(append_strs(w, 1, one, 1, &e) == EG_OK);
  EG_CHECK(eg_replog_durable(w, &e) == EG_OK); /* no standby named: nothing to wait for */
  set_sync_names("ANY 1 (nobody)");
  blocked_call append = {.l = w}, barrier = {.l = w, .barrier = true};
  cancel_wait_of(&append);
  EG_CHECK_INT(append.rc, EG_EUNAVAIL);
  EG_CHECK(strstr(append.e.msg, "not confirmed by its standbys") != NULL);
  uint64_t end = 0;
  EG_CHECK(eg_replog_end(w, &end, NULL, &e) == EG_OK);
  EG_CHECK_INT(end, 2); /* it is in the log, on this server only */
  cancel_wait_of(&barrier);
  EG_CHECK_INT(barrier.rc, EG_EUNAVAIL);
  set_sync_names("");
  EG_CHECK(eg_replog_durable(w, &e) == EG_OK);
  eg_replog_close(w);
}

static void test_bad_input(void) {
  eg_err e;
  eg_replog *l = NULL;
  EG_CHECK_INT(eg_replog_open(pg.dsn, "", &l, &e), EG_EINVAL);
  EG_CHECK_INT(
      eg_replog_open("host=127.0.0.1 port=1 user=engram connect_timeout=2", "graph-0", &l, &e),
      EG_EUNAVAIL);
}

int main(void) {
  eg_err e;
  if (eg_pg_start(&pg, false, &e) != EG_OK) {
    fprintf(stderr, "cannot start PostgreSQL: %s\n", e.msg);
    return 1;
  }
  EG_RUN(test_one_writer_and_tail_order);
  EG_RUN(test_lost_session);
  EG_RUN(test_unconfirmed_commit);
  EG_RUN(test_bad_input);
  int rc = eg_test_finish();
  eg_pg_stop(&pg, rc != 0);
  return rc;
}
