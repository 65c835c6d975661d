/*
 * test_kv.c — the store's log positions (common/kv.h): logged commits numbered 1, 2, 3 …
 * and kept with the data across a reopen; a leader's records handed to the log in order
 * before the store is written; a failed append failing its group and every logged
 * commit after it until eg_kv_recover, with nothing of them in the store; a follower
 * refusing logged commits and applying positions only forward; a settled transaction
 * not starved by a stream of commits.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/kv.h"
#include "common/time.h"
#include "tests/testlib.h"

static const char *const cfs[] = {"default"};

/* The log as the leader's append hook sees it. */
typedef struct fake_log {
  pthread_mutex_t mu;
  uint64_t end;       /* the last position appended */
  char recs[64][16];  /* record at position i + 1 */
  bool refuse;        /* the next append fails */
  int appends, bad_order;
} fake_log;

static eg_code fake_append(void *ctx, uint64_t first, const eg_kv_record *recs, size_t n, eg_err *err) {
  fake_log *l = ctx;
  pthread_mutex_lock(&l->mu);
  eg_code rc = EG_OK;
  if (l->refuse) {
    l->refuse = false;
    rc = eg_err_set(err, EG_EABORTED, "fenced");
  } else {
    l->appends++;
    l->bad_order += first != l->end + 1;
    for (size_t i = 0; i < n && first + i <= 64; i++)
      snprintf(l->recs[first + i - 1], sizeof l->recs[0], "%.*s", (int)recs[i].len, (const char *)recs[i].data);
    l->end = first + n - 1;
  }
  pthread_mutex_unlock(&l->mu);
  return rc;
}

/* One logged commit putting key=val; the record is "rec:<key>". */
static eg_code put_logged(eg_kv *s, const char *key, const char *val, uint64_t *pos, eg_err *err) {
  eg_kvtxn *t = eg_kv_begin(s);
  eg_kvtxn_put(t, 0, key, strlen(key), val, strlen(val), true);
  char rec[16];
  snprintf(rec, sizeof rec, "rec:%s", key);
  return eg_kvtxn_commit_logged(t, rec, strlen(rec), pos, err);
}

static bool stored(eg_kv *s, const char *key) {
  char *v;
  size_t vl;
  if (eg_kv_get(s, 0, key, strlen(key), &v, &vl, NULL) != EG_OK) return false;
  free(v);
  return true;
}

typedef struct writer {
  eg_kv *s;
  int id, ok;
} writer;

static void *write_many(void *arg) {
  writer *w = arg;
  for (int i = 0; i < 5; i++) {
    char key[16];
    snprintf(key, sizeof key, "w%d-%d", w->id, i);
    eg_err e;
    uint64_t pos;
    w->ok += put_logged(w->s, key, "v", &pos, &e) == EG_OK;
  }
  return NULL;
}

static void test_positions(void) {
  char *dir = eg_test_tempdir("kv");
  eg_kv *s = NULL;
  eg_err e;
  EG_REQUIRE(eg_kv_open(dir, cfs, 1, 100, "test", NULL, &s, &e) == EG_OK);
  EG_CHECK_INT(eg_kv_position(s), 0);

  /* alone: positions of its own, kept with the data */
  uint64_t pos = 0;
  EG_CHECK(put_logged(s, "a", "1", &pos, &e) == EG_OK && pos == 1);
  EG_CHECK(put_logged(s, "b", "2", &pos, &e) == EG_OK && pos == 2);
  EG_CHECK_INT(eg_kv_position(s), 2);
  eg_kv_close(s);
  EG_REQUIRE(eg_kv_open(dir, cfs, 1, 100, "test", NULL, &s, &e) == EG_OK);
  EG_CHECK_INT(eg_kv_position(s), 2);

  /* leading: concurrent commits reach the log in position order, then the store */
  fake_log log = {.mu = PTHREAD_MUTEX_INITIALIZER, .end = 2};
  eg_kv_set_mode(s, EG_KV_LEADER, fake_append, &log);
  EG_CHECK(eg_kv_wants_records(s));
  writer ws[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    ws[i] = (writer){s, i, 0};
    pthread_create(&th[i], NULL, write_many, &ws[i]);
  }
  int ok = 0;
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    ok += ws[i].ok;
  }
  EG_CHECK_INT(ok, 20);
  EG_CHECK_INT(log.end, 22);
  EG_CHECK_INT(log.bad_order, 0);
  EG_CHECK_INT(eg_kv_position(s), 22);
  int in_log = 0;
  for (int i = 2; i < 22; i++) in_log += stored(s, log.recs[i] + 4);
  EG_CHECK_INT(in_log, 20);

  /* a refused append: its commit fails, so does the next, nothing reaches the store, and
   * the store says it failed until recovered */
  log.refuse = true;
  EG_CHECK_INT(put_logged(s, "c", "3", &pos, &e), EG_EABORTED);
  EG_CHECK(eg_kv_failed(s));
  EG_CHECK_INT(put_logged(s, "d", "4", &pos, &e), EG_EABORTED);
  EG_CHECK(!stored(s, "c") && !stored(s, "d"));
  EG_CHECK_INT(eg_kv_position(s), 22);
  eg_kv_recover(s);
  EG_CHECK(!eg_kv_failed(s));
  EG_CHECK(put_logged(s, "e", "5", &pos, &e) == EG_OK && pos == 23);
  EG_CHECK_STR(log.recs[22], "rec:e");

  /* following: logged commits refused, applied positions only forward */
  eg_kv_set_mode(s, EG_KV_FOLLOWER, NULL, NULL);
  EG_CHECK(!eg_kv_wants_records(s));
  EG_CHECK_INT(put_logged(s, "f", "6", &pos, &e), EG_EUNAVAIL);
  eg_kvtxn *t = eg_kv_begin(s);
  eg_kvtxn_put(t, 0, "g", 1, "7", 1, true);
  EG_CHECK_INT(eg_kvtxn_commit_applied(t, 23, &e), EG_EPRECOND);
  t = eg_kv_begin(s);
  eg_kvtxn_put(t, 0, "g", 1, "7", 1, true);
  EG_CHECK_INT(eg_kvtxn_commit_applied(t, 25, &e), EG_OK);
  EG_CHECK(!stored(s, "f") && stored(s, "g"));
  eg_kv_close(s);
  EG_REQUIRE(eg_kv_open(dir, cfs, 1, 100, "test", NULL, &s, &e) == EG_OK);
  EG_CHECK_INT(eg_kv_position(s), 25);
  eg_kv_close(s);
  eg_test_rmtree(dir);
  free(dir);
}

/* ---- a settled transaction under a steady stream of commits ---- */

typedef struct stream {
  eg_kv *s;
  int id;
  _Atomic bool *stop;
} stream;

static void *commit_stream(void *arg) {
  stream *st = arg;
  for (int i = 0; !atomic_load(st->stop); i++) {
    char key[32];
    snprintf(key, sizeof key, "s%d-%d", st->id, i);
    eg_kvtxn *t = eg_kv_begin(st->s);
    eg_kvtxn_put(t, 0, key, strlen(key), "v", 1, true);
    eg_err e;
    (void)eg_kvtxn_commit(t, &e);
  }
  return NULL;
}

/* eg_kv_begin_settled (an erasure) waits for the groups in flight, not for a moment with
 * no commit pending, which a steady stream of writers may never leave it. */
static void test_settled_under_load(void) {
  enum { WRITERS = 8, TRIES = 5 };
  char *dir = eg_test_tempdir("kv");
  eg_kv *s = NULL;
  eg_err e;
  EG_REQUIRE(eg_kv_open(dir, cfs, 1, 100, "test", NULL, &s, &e) == EG_OK);
  _Atomic bool stop = false;
  stream sts[WRITERS];
  pthread_t th[WRITERS];
  for (int i = 0; i < WRITERS; i++) {
    sts[i] = (stream){s, i, &stop};
    pthread_create(&th[i], NULL, commit_stream, &sts[i]);
  }
  usleep(200000);
  int64_t waited = 0;
  for (int i = 0; i < TRIES; i++) {
    int64_t t0 = eg_time_mono_us();
    eg_kvtxn *t = eg_kv_begin_settled(s);
    waited += eg_time_mono_us() - t0;
    eg_kvtxn_put(t, 0, "settled", 7, "x", 1, true);
    EG_CHECK(eg_kvtxn_commit(t, &e) == EG_OK);
    usleep(50000);
  }
  atomic_store(&stop, true);
  for (int i = 0; i < WRITERS; i++) pthread_join(th[i], NULL);
  fprintf(stderr, "  %d settled transactions waited %.1f ms in all\n", TRIES, (double)waited / 1000);
  EG_CHECK(waited < 2 * EG_US_PER_SEC);
  eg_kv_close(s);
  eg_test_rmtree(dir);
  free(dir);
}

int main(void) {
  EG_RUN(test_positions);
  EG_RUN(test_settled_under_load);
  return eg_test_finish();
}
