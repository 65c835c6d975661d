/*
 * test_shred.c — a user's records in graphd's replicated log are sealed with a key of
 * theirs, and an erasure shreds it (deploy/REPLICATION.md, "Encryption"): two graphd
 * replicas over a real PostgreSQL.
 *
 *   sealed        no user's text is in the log in the clear; each user has a live key of
 *                 the shard; the tenant's shared knowledge (no user) is in the clear.
 *   shredded (a)  after Admin.Erase of a user, the user's key is gone from the key table,
 *                 the user's records still name it, and nothing in the log holds the
 *                 user's text; another user's key is live; the user's next write gets a
 *                 new key.
 *   replay (b)    a replica started afterwards from an empty store replays the whole log
 *                 (skipping the erased user's records) and answers as the writer does:
 *                 nothing of the erased user, the other user and the tenant intact — an
 *                 entity the erased user made that the other user's fact uses too; once
 *                 writer, it gives no id an erased edge had.
 *   tampered (c)  a sealed record altered in the log stops a replica replaying it, with
 *                 an error naming the position; a record naming a key that never existed
 *                 too.
 */
#include <libpq-fe.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/time.h"
#include "proto/engram/v1/graph_log.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/replicas.h"
#include "tests/testlib.h"

#define TENANT "shred"
#define SHARD "graph-0"
#define ERASED "alice"
#define KEPT "bob"
/* Text only the erased user wrote; a phrase of the other user's; one of the tenant's. */
#define ERASED_PHRASE "zanzibar cobalt 7731"
#define KEPT_PHRASE "rowing heron 4410"
#define SHARED_PHRASE "porto harbour office"

static eg_replicas rs;
static eg_rpc_client *cl[EG_MAX_REPLICAS];

/* ---- the log, read directly ------------------------------------------------------------- */

static PGconn *db(void) {
  PGconn *c = PQconnectdb(rs.pg.dsn);
  if (PQstatus(c) != CONNECTION_OK) fprintf(stderr, "cannot connect: %s", PQerrorMessage(c));
  return c;
}

/* The result of the statement fmt says (text); NULL (said) on failure. */
static PGresult *query(PGconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static PGresult *query(PGconn *c, const char *fmt, ...) {
  char sql[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sql, sizeof sql, fmt, ap);
  va_end(ap);
  PGresult *r = PQexec(c, sql);
  if (PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_COMMAND_OK) {
    fprintf(stderr, "%s: %s", sql, PQresultErrorMessage(r));
    PQclear(r);
    return NULL;
  }
  return r;
}

typedef struct log_scan {
  int records, of_erased, of_kept, clear_of_users;
  int sealed_erased, sealed_kept; /* format 2 with a key */
  uint64_t erased_kid, kept_kid;  /* the keys the users' records name */
  uint64_t kept_seq;              /* the first record of the kept user's */
} log_scan;

/* Every record of the shard: who wrote it, whether it is sealed, which text shows. */
static log_scan scan_log(void) {
  log_scan s = {0};
  PGconn *c = db();
  PGresult *r =
      PQexecParams(c, "SELECT seq, payload FROM engram_replog WHERE shard = $1 ORDER BY seq", 1,
                   NULL, (const char *const[]){SHARD}, NULL, NULL, 1);
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    EG_CHECK(!"the log can be read");
    PQclear(r);
    PQfinish(c);
    return s;
  }
  for (int i = 0; i < PQntuples(r); i++) {
    const uint8_t *p = (const uint8_t *)PQgetvalue(r, i, 1);
    size_t n = (size_t)PQgetlength(r, i, 1);
    s.records++;
    Engram__V1__GraphLogRecord *rec = engram__v1__graph_log_record__unpack(NULL, n, p);
    EG_CHECK(rec != NULL);
    if (!rec) continue;
    bool sealed = rec->format == 2 && rec->key_id && rec->nonce.len == 24;
    if (!strcmp(rec->user, ERASED)) {
      s.of_erased++;
      s.sealed_erased += sealed;
      s.erased_kid = rec->key_id;
    } else if (!strcmp(rec->user, KEPT)) {
      s.of_kept++;
      s.sealed_kept += sealed;
      s.kept_kid = rec->key_id;
      const uint8_t *seq = (const uint8_t *)PQgetvalue(r, i, 0);
      for (int b = 0; b < 8 && s.of_kept == 1; b++) s.kept_seq = s.kept_seq << 8 | seq[b];
    }
    if (*rec->user && rec->format == 1) s.clear_of_users++;
    engram__v1__graph_log_record__free_unpacked(rec, NULL);
  }
  PQclear(r);
  PQfinish(c);
  return s;
}

/* Whether key kid holds a key ("live"), none ("shredded"), or is not there ("absent"). */
static const char *key_state(uint64_t kid) {
  static char out[16];
  PGconn *c = db();
  PGresult *r = query(c,
                      "SELECT key IS NOT NULL AND length(key) = 32, shredded_at IS NOT NULL FROM "
                      "engram_replog_keys WHERE kid = %llu AND shard = '" SHARD "'",
                      (unsigned long long)kid);
  snprintf(out, sizeof out, "%s",
           !r || PQntuples(r) != 1         ? "absent"
           : PQgetvalue(r, 0, 0)[0] == 't' ? "live"
           : PQgetvalue(r, 0, 1)[0] == 't' ? "shredded"
                                           : "?");
  PQclear(r);
  PQfinish(c);
  return out;
}

/* ---- the replicas ------------------------------------------------------------------------- */

static double applied(int i) {
  return eg_metric_value(rs.r[i].metrics_port, "engram_graphd_replication_applied_seq");
}

/* Replica i again from an empty store: it replays the whole log. */
static void start_empty(int i) {
  eg_err e;
  if (eg_replicas_restart_empty(&rs, i, &e) != EG_OK) fprintf(stderr, "restart: %s\n", e.msg);
  EG_REQUIRE(rs.r[i].pid > 0);
}

/* Wait until replica f has applied what w has (true), or until 20 s have passed. */
static bool caught_up(int f, int w) {
  int64_t until = eg_time_mono_us() + 20 * EG_US_PER_SEC;
  while (eg_time_mono_us() < until) {
    double a = applied(f), b = applied(w);
    if (a > 0 && a == b) return true;
    usleep(50000);
  }
  return false;
}

/* The replica's log says msg (waiting up to 15 s). */
static bool log_says(int i, const char *msg) {
  int64_t until = eg_time_mono_us() + 15 * EG_US_PER_SEC;
  do {
    char *log = eg_test_slurp(rs.r[i].log);
    bool found = strstr(log, msg) != NULL;
    free(log);
    if (found) return true;
    usleep(100000);
  } while (eg_time_mono_us() < until);
  return false;
}

/* ---- the writes ------------------------------------------------------------------------------ */

static uint64_t last_id; /* the highest edge id given before the erasure */

static void commit(int w, const char *user, eg_edge_spec s) {
  uint64_t id = gc_commit_said(cl[w], TENANT, user, &s);
  EG_CHECK(id > 0);
  if (id > last_id) last_id = id;
}

static const char *const subjects[] = {"Alice", "Alice's boat", "Bob", "Bob's club", "Office"};

static void write_all(int w) {
  commit(w, ERASED,
         (eg_edge_spec){.subject = "Alice", .relation = "SECRET_PHRASE", .literal = ERASED_PHRASE});
  commit(w, ERASED,
         (eg_edge_spec){.subject = "Alice", .relation = "OWNS", .object = "Alice's boat"});
  commit(w, KEPT,
         (eg_edge_spec){.subject = "Bob", .relation = "SECRET_PHRASE", .literal = KEPT_PHRASE});
  commit(w, KEPT,
         (eg_edge_spec){.subject = "Bob", .relation = "MEMBER_OF", .object = "Bob's club"});
  /* an entity the erased user made that another user's fact uses: it outlives the erasure */
  commit(w, KEPT,
         (eg_edge_spec){.subject = "Bob", .relation = "ADMIRES", .object = "Alice's boat"});
  commit(w, NULL,
         (eg_edge_spec){.subject = "Office", .relation = "DESCRIBED_AS", .literal = SHARED_PHRASE});
  commit(
      w, ERASED,
      (eg_edge_spec){.subject = "Alice", .relation = "MOTTO", .literal = ERASED_PHRASE " again"});
}

/* ---- the tests
 * ----------------------------------------------------------------------------------- */

static void test_sealed(void) {
  int w = eg_replicas_writer(&rs, 5 * EG_US_PER_SEC);
  EG_REQUIRE(w >= 0);
  write_all(w);
  log_scan s = scan_log();
  fprintf(stderr, "  %d records: %d of %s's (%d sealed), %d of %s's (%d sealed)\n", s.records,
          s.of_erased, ERASED, s.sealed_erased, s.of_kept, KEPT, s.sealed_kept);
  EG_CHECK_INT(s.of_erased, 3);
  EG_CHECK_INT(s.sealed_erased, 3);
  EG_CHECK_INT(s.of_kept, 3);
  EG_CHECK_INT(s.sealed_kept, 3);
  EG_CHECK_INT(s.clear_of_users, 0);
  EG_CHECK_INT(eg_replicas_log_holds(&rs, SHARD, ERASED_PHRASE), 0);
  EG_CHECK_INT(eg_replicas_log_holds(&rs, SHARD, KEPT_PHRASE), 0);
  /* the tenant's shared knowledge: in the clear (deploy/REPLICATION.md) */
  EG_CHECK_INT(eg_replicas_log_holds(&rs, SHARD, SHARED_PHRASE), 1);
  EG_CHECK(s.erased_kid && s.kept_kid && s.erased_kid != s.kept_kid);
  EG_CHECK_STR(key_state(s.erased_kid), "live");
  EG_CHECK_STR(key_state(s.kept_kid), "live");
  /* the follower opened them */
  int f = (w + 1) % rs.n;
  EG_REQUIRE(caught_up(f, w));
  EG_CHECK_STR(gc_value(cl[f], TENANT, "Bob", "SECRET_PHRASE", 0, 0), KEPT_PHRASE);
  EG_CHECK_STR(gc_value(cl[f], TENANT, "Alice", "MOTTO", 0, 0), ERASED_PHRASE " again");
}

static void test_erasure_shreds_the_key(void) {
  int w = eg_replicas_writer(&rs, 5 * EG_US_PER_SEC);
  EG_REQUIRE(w >= 0);
  uint64_t before = scan_log().erased_kid;
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = TENANT;
  scope.user = ERASED;
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &scope;
  Engram__V1__EraseResponse *resp = NULL;
  eg_err e;
  EG_REQUIRE(eg_graphd_erase(cl[w], &er, &resp, &e) == EG_OK);
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  log_scan s = scan_log();
  EG_CHECK_INT(s.of_erased, 3); /* the erasure itself is no user's */
  EG_CHECK_INT(s.sealed_erased, 3);
  EG_CHECK_INT((long long)s.erased_kid, (long long)before);
  EG_CHECK_STR(key_state(s.erased_kid), "shredded");
  EG_CHECK_STR(key_state(s.kept_kid), "live");
  EG_CHECK_INT(eg_replicas_log_holds(&rs, SHARD, ERASED_PHRASE), 0);
  EG_CHECK_INT(eg_replicas_log_holds(&rs, SHARD, KEPT_PHRASE), 0);
  /* no key of the erased user's is left to open them with */
  PGconn *c = db();
  PGresult *r = query(c, "SELECT count(*) FROM engram_replog_keys WHERE \"user\" = '" ERASED
                         "' AND key IS NOT NULL");
  EG_CHECK(r && !strcmp(PQgetvalue(r, 0, 0), "0"));
  PQclear(r);
  PQfinish(c);
}

static void test_replay_skips_the_shredded(void) {
  int w = eg_replicas_writer(&rs, 5 * EG_US_PER_SEC), f = (w + 1) % rs.n;
  EG_REQUIRE(w >= 0);
  start_empty(f);
  EG_REQUIRE(caught_up(f, w));
  int64_t at = eg_time_now_us();
  int differ = 0;
  for (size_t i = 0; i < sizeof subjects / sizeof *subjects; i++) {
    for (const char *user = NULL;; user = KEPT) {
      Engram__V1__HistoryResponse *a = NULL, *b = NULL;
      eg_err e;
      EG_REQUIRE(gc_history(cl[w], TENANT, user, subjects[i], NULL, at, &a, &e) == EG_OK);
      EG_REQUIRE(gc_history(cl[f], TENANT, user, subjects[i], NULL, at, &b, &e) == EG_OK);
      if (!eg_same_message(&a->base, &b->base)) {
        differ++;
        fprintf(stderr, "  History of %s differs on the replayed replica\n", subjects[i]);
      }
      protobuf_c_message_free_unpacked(&a->base, NULL);
      protobuf_c_message_free_unpacked(&b->base, NULL);
      if (user) break;
    }
  }
  EG_CHECK_INT(differ, 0);
  /* nothing of the erased user's before the erasure; the rest intact */
  EG_CHECK_INT(gc_history_len(cl[f], TENANT, "Alice", "SECRET_PHRASE"), 0);
  EG_CHECK_INT(gc_history_len(cl[f], TENANT, "Alice", "OWNS"), 0);
  EG_CHECK_INT(gc_history_len(cl[f], TENANT, "Alice", "MOTTO"), 0);
  EG_CHECK_STR(gc_value(cl[f], TENANT, "Bob", "SECRET_PHRASE", 0, 0), KEPT_PHRASE);
  EG_CHECK_STR(gc_value(cl[f], TENANT, "Bob", "MEMBER_OF", 0, 0), "Bob's club");
  /* stated again by the erasure's record, as the writer kept it */
  EG_CHECK_STR(gc_value(cl[f], TENANT, "Bob", "ADMIRES", 0, 0), "Alice's boat");
  EG_CHECK_STR(gc_value(cl[w], TENANT, "Bob", "ADMIRES", 0, 0), "Alice's boat");
  /* the replayed replica, once writer, gives no id an erased edge had: the erasure's record
   * carried the counters the skipped records moved */
  eg_err e;
  eg_harness_stop(&rs.r[w], SIGTERM);
  EG_REQUIRE(eg_replicas_writer(&rs, 15 * EG_US_PER_SEC) == f);
  uint64_t id = gc_commit_said(
      cl[f], TENANT, KEPT, &(eg_edge_spec){.subject = "Bob", .relation = "AFTER", .literal = "x"});
  EG_CHECK(id > last_id);
  EG_REQUIRE(eg_replicas_restart(&rs, w, &e) == EG_OK);
  EG_REQUIRE(caught_up(w, f));
  EG_CHECK_STR(gc_value(cl[f], TENANT, "Office", "DESCRIBED_AS", 0, 0), SHARED_PHRASE);
}

static void test_next_write_gets_a_new_key(void) {
  int w = eg_replicas_writer(&rs, 5 * EG_US_PER_SEC);
  EG_REQUIRE(w >= 0);
  uint64_t before = scan_log().erased_kid;
  EG_CHECK(gc_commit_said(
               cl[w], TENANT, ERASED,
               &(eg_edge_spec){.subject = "Alice", .relation = "BACK", .literal = "yes"}) > 0);
  log_scan s = scan_log();
  EG_CHECK(s.erased_kid != before);
  EG_CHECK_STR(key_state(s.erased_kid), "live");
  EG_CHECK_STR(key_state(before), "shredded");
  int f = (w + 1) % rs.n;
  EG_REQUIRE(caught_up(f, w));
  EG_CHECK_STR(gc_value(cl[f], TENANT, "Alice", "BACK", 0, 0), "yes");
}

/* One bit of the last byte (the nonce) of the record at a position flipped. */
#define FLIP_LAST_BIT                                                         \
  "UPDATE engram_replog SET payload = set_byte(payload, length(payload) - 1," \
  " get_byte(payload, length(payload) - 1) # 1) WHERE shard = '" SHARD "' AND seq = %llu"

static void test_tampered_record_stops_a_replica(void) {
  int w = eg_replicas_writer(&rs, 5 * EG_US_PER_SEC), f = (w + 1) % rs.n;
  EG_REQUIRE(w >= 0);
  uint64_t seq = scan_log().kept_seq;
  EG_REQUIRE(seq > 0);
  /* one bit of the record's last byte (its nonce) flipped */
  PGconn *c = db();
  PGresult *r = query(c, FLIP_LAST_BIT, (unsigned long long)seq);
  EG_CHECK(r && !strcmp(PQcmdTuples(r), "1"));
  PQclear(r);
  start_empty(f);
  char says[96];
  snprintf(says, sizeof says, "log position %llu of shard " SHARD ": it does not open with its key",
           (unsigned long long)seq);
  EG_CHECK(log_says(f, says));
  EG_CHECK(log_says(f, "cannot apply the log: stalled"));
  EG_CHECK(applied(f) < (double)seq);
  /* the writer still answers from its own store */
  EG_CHECK_STR(gc_value(cl[w], TENANT, "Bob", "SECRET_PHRASE", 0, 0), KEPT_PHRASE);
  /* the record restored, but the key it names renumbered: a key that never existed stops
   * a replica the same way */
  r = query(c,
            FLIP_LAST_BIT
            ";UPDATE engram_replog_keys SET kid = kid + 1000000 WHERE \"user\" = '" KEPT "'",
            (unsigned long long)seq);
  EG_CHECK(r != NULL);
  PQclear(r);
  PQfinish(c);
  start_empty(f);
  snprintf(says, sizeof says, "log position %llu of shard " SHARD ": key ",
           (unsigned long long)seq);
  EG_CHECK(log_says(f, says));
  EG_CHECK(log_says(f, "is not in the key table"));
}

int main(void) {
  static const eg_replicas_test tests[] = {
      {"test_sealed", test_sealed},
      {"test_erasure_shreds_the_key", test_erasure_shreds_the_key},
      {"test_replay_skips_the_shredded", test_replay_skips_the_shredded},
      {"test_next_write_gets_a_new_key", test_next_write_gets_a_new_key},
      {"test_tampered_record_stops_a_replica", test_tampered_record_stops_a_replica},
  };
  return eg_replicas_run(&rs, "graphd", 2, cl, tests, sizeof tests / sizeof *tests);
}
