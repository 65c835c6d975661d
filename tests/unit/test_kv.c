/*
 * test_kv.c — common/kv on its own: point reads and writes per column family, a
 * transaction's puts, deletes and range deletes landing together, reads through pending
 * writes, rollback, group commit under concurrent writers (nothing lost, commits
 * grouped), a write the disk refuses (nothing of it survives), reopening, tenants, the
 * key order callers iterate in; iterators (bounds, seek and seek_prev, prefixes, empty
 * ranges, deletes, pending writes unseen) and the batched point read; and the errors of a
 * bad path, a bad column family list and a directory locked by another process. The log positions
 * (kv.h): logged commits numbered 1, 2, 3 … and kept with the data across a reopen; a leader's
 * records handed to the log in order before the store is written; a failed append failing its group
 * and every logged commit after it until eg_kv_recover, with nothing of them in the store; a
 * follower refusing logged commits and applying positions only forward; a settled
 * transaction not starved by a stream of commits.
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/keybuf.h"
#include "common/kv.h"
#include "common/time.h"
#include "tests/testlib.h"

enum { CF_DEF = 0, CF_ONE = 1, CF_TWO = 2, N_CFS = 3 };
static const char *const cf_names[N_CFS] = {"default", "one", "two"};

static eg_kv *open_store(const char *dir, eg_metrics *m) {
  eg_kv *kv = NULL;
  eg_err e;
  eg_code rc = eg_kv_open(dir, cf_names, N_CFS, 1000, "kvtest", m, &kv, &e);
  if (rc) fprintf(stderr, "  open %s: %s\n", dir, e.msg);
  return rc ? NULL : kv;
}

/* One transaction holding one put (or a delete when val is NULL). */
static eg_code write1(eg_kv *kv, int cf, const char *key, const char *val) {
  eg_kvtxn *t = eg_kv_begin(kv);
  if (val)
    eg_kvtxn_put(t, cf, key, strlen(key), val, strlen(val), false);
  else
    eg_kvtxn_delete(t, cf, key, strlen(key));
  eg_err e;
  return eg_kvtxn_commit(t, &e);
}

/* The durable value as a string (caller frees), NULL when absent. */
static char *read1(eg_kv *kv, int cf, const char *key) {
  char *v = NULL;
  size_t vl = 0;
  eg_err e;
  if (eg_kv_get(kv, cf, key, strlen(key), &v, &vl, &e) != EG_OK) return NULL;
  char *s = malloc(vl + 1);
  memcpy(s, v, vl);
  s[vl] = '\0';
  free(v);
  return s;
}

/* The same through a transaction (pending writes first). */
static char *txn_read1(eg_kvtxn *t, int cf, const char *key) {
  char *v = NULL;
  size_t vl = 0;
  eg_err e;
  if (eg_kvtxn_get(t, cf, key, strlen(key), &v, &vl, &e) != EG_OK) return NULL;
  char *s = malloc(vl + 1);
  memcpy(s, v, vl);
  s[vl] = '\0';
  free(v);
  return s;
}

/* got (freed here) equals want; want NULL: absent. */
static void check_value_at(const char *file, int line, char *got, const char *want,
                           const char *what) {
  if (want && (!got || strcmp(got, want) != 0))
    eg_test_fail(file, line, "%s: \"%s\", want \"%s\"", what, got ? got : "(absent)", want);
  else if (!want && got)
    eg_test_fail(file, line, "%s: \"%s\", want absent", what, got);
  else
    eg_test_check(true, file, line, what);
  free(got);
}
#define CHECK_VALUE(got, want, what) check_value_at(__FILE__, __LINE__, (got), (want), (what))

/* A counter of the store's registry, read from the exposition text. */
static double metric_value(eg_metrics *m, const char *name) {
  eg_buf out = EG_BUF_INIT;
  eg_metrics_render(m, &out);
  double v = -1;
  char want[128];
  snprintf(want, sizeof want, "\n%s ", name);
  const char *p = out.data ? strstr(out.data, want) : NULL;
  if (p) v = strtod(p + strlen(want), NULL);
  eg_buf_free(&out);
  return v;
}

/* ---- errors ------------------------------------------------------------------------ */

/* Another process holds the directory: the error says so (not a disk error). Runs first,
 * before this process has started any RocksDB thread, so the child may fork safely. */
static void test_locked_by_other_process(void) {
  char *dir = eg_test_tempdir("kvlock");
  EG_REQUIRE(dir != NULL);
  int ready[2], done[2];
  EG_REQUIRE(pipe(ready) == 0 && pipe(done) == 0);
  pid_t pid = fork();
  EG_REQUIRE(pid >= 0);
  if (pid == 0) {
    eg_kv *kv = open_store(dir, NULL);
    char b = kv ? '1' : '0';
    if (write(ready[1], &b, 1) != 1) _exit(1);
    if (read(done[0], &b, 1) < 0) _exit(1); /* until the parent has tried */
    eg_kv_close(kv);
    _exit(0);
  }
  char b = 0;
  EG_CHECK(read(ready[0], &b, 1) == 1 && b == '1');
  eg_kv *kv = NULL;
  eg_err e;
  eg_err_clear(&e);
  EG_CHECK_INT(eg_kv_open(dir, cf_names, N_CFS, 0, "kvtest", NULL, &kv, &e), EG_EPRECOND);
  EG_CHECK(strstr(e.msg, "locked by another running instance") != NULL);
  EG_CHECK(kv == NULL);
  EG_CHECK(write(done[1], "x", 1) == 1);
  int st = 0;
  waitpid(pid, &st, 0);
  EG_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  /* the child has let go: now it opens */
  kv = open_store(dir, NULL);
  EG_CHECK(kv != NULL);
  eg_kv_close(kv);
  for (int i = 0; i < 2; i++) close(ready[i]), close(done[i]);
  eg_test_rmtree(dir);
  free(dir);
}

static void test_open_errors(void) {
  char *dir = eg_test_tempdir("kverr");
  EG_REQUIRE(dir != NULL);
  char file[600], below[700];
  snprintf(file, sizeof file, "%s/plain-file", dir);
  FILE *f = fopen(file, "w");
  EG_REQUIRE(f != NULL);
  fclose(f);
  /* a path through a regular file cannot hold a database */
  snprintf(below, sizeof below, "%s/db", file);
  eg_kv *kv = NULL;
  eg_err e;
  eg_err_clear(&e);
  EG_CHECK_INT(eg_kv_open(below, cf_names, N_CFS, 0, "kvtest", NULL, &kv, &e), EG_EIO);
  EG_CHECK_STR(e.msg, "cannot open the store (see log)");
  EG_CHECK(kv == NULL);
  /* the column family list must start with "default" and fit */
  static const char *const no_default[] = {"one", "default"};
  EG_CHECK_INT(eg_kv_open(dir, no_default, 2, 0, "kvtest", NULL, &kv, &e), EG_EINTERNAL);
  EG_CHECK_STR(e.msg, "bad column family list");
  EG_CHECK_INT(eg_kv_open(dir, cf_names, 0, 0, "kvtest", NULL, &kv, &e), EG_EINTERNAL);
  EG_CHECK(kv == NULL);
  eg_kv_close(NULL); /* accepts NULL */
  eg_test_rmtree(dir);
  free(dir);
}

/* ---- reads and writes -------------------------------------------------------------- */

static void test_round_trip(void) {
  char *dir = eg_test_tempdir("kvrt");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  CHECK_VALUE(read1(kv, CF_ONE, "k"), NULL, "absent before any write");
  EG_CHECK_INT(write1(kv, CF_ONE, "k", "v1"), EG_OK);
  CHECK_VALUE(read1(kv, CF_ONE, "k"), "v1", "put then get");
  CHECK_VALUE(read1(kv, CF_TWO, "k"), NULL, "another column family does not see it");
  CHECK_VALUE(read1(kv, CF_DEF, "k"), NULL, "nor does default");
  EG_CHECK_INT(write1(kv, CF_ONE, "k", "v2"), EG_OK);
  CHECK_VALUE(read1(kv, CF_ONE, "k"), "v2", "overwritten");
  EG_CHECK_INT(write1(kv, CF_ONE, "k", ""), EG_OK);
  CHECK_VALUE(read1(kv, CF_ONE, "k"), "", "an empty value is a value");
  EG_CHECK_INT(write1(kv, CF_ONE, "k", NULL), EG_OK);
  CHECK_VALUE(read1(kv, CF_ONE, "k"), NULL, "deleted");
  /* binary keys and values, NULs included */
  const char key[] = {'b', 0, 'k'}, val[] = {0, 1, 2, 0};
  eg_kvtxn *t = eg_kv_begin(kv);
  eg_kvtxn_put(t, CF_TWO, key, sizeof key, val, sizeof val, false);
  eg_err e;
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  char *v = NULL;
  size_t vl = 0;
  EG_REQUIRE(eg_kv_get(kv, CF_TWO, key, sizeof key, &v, &vl, &e) == EG_OK);
  EG_CHECK(vl == sizeof val && memcmp(v, val, vl) == 0);
  free(v);
  EG_CHECK_INT(eg_kv_get(kv, CF_TWO, key, 1, &v, &vl, &e), EG_ENOTFOUND); /* "b" alone */
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* A transaction reads its own visible writes; plain reads see only committed ones. */
static void test_reads_through_pending(void) {
  char *dir = eg_test_tempdir("kvpend");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  EG_REQUIRE(write1(kv, CF_ONE, "name", "old") == EG_OK);
  eg_kvtxn *t = eg_kv_begin(kv);
  eg_kvtxn_put(t, CF_ONE, "name", 4, "new", 3, true);
  eg_kvtxn_put(t, CF_ONE, "log", 3, "entry", 5, false);
  CHECK_VALUE(txn_read1(t, CF_ONE, "name"), "new", "own visible put");
  CHECK_VALUE(read1(kv, CF_ONE, "name"), "old", "plain read before commit");
  CHECK_VALUE(txn_read1(t, CF_ONE, "log"), NULL, "a write-only put is not read back");
  CHECK_VALUE(txn_read1(t, CF_TWO, "name"), NULL, "the other family");
  eg_kvtxn_delete(t, CF_ONE, "name", 4);
  CHECK_VALUE(txn_read1(t, CF_ONE, "name"), NULL, "own delete");
  eg_err e;
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  CHECK_VALUE(read1(kv, CF_ONE, "name"), NULL, "deleted at commit");
  CHECK_VALUE(read1(kv, CF_ONE, "log"), "entry", "write-only put committed");
  /* the next transaction reads what is durable (from its warm cache or the disk) */
  t = eg_kv_begin(kv);
  CHECK_VALUE(txn_read1(t, CF_ONE, "name"), NULL, "next txn: deleted");
  CHECK_VALUE(txn_read1(t, CF_ONE, "log"), "entry", "next txn: committed value");
  /* read, changed, written back write-only (a record updated in place): the next
   * transaction reads the new value, not the copy the first read kept warm */
  eg_kvtxn_put(t, CF_ONE, "log", 3, "entry 2", 7, false);
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  t = eg_kv_begin(kv);
  CHECK_VALUE(txn_read1(t, CF_ONE, "log"), "entry 2", "rewritten write-only");
  eg_kvtxn_abort(t);
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* Many puts, deletes and a range delete in one transaction land together. */
static void test_write_batch(void) {
  char *dir = eg_test_tempdir("kvbatch");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  enum { N = 1000 };
  uint8_t k[8];
  char val[32];
  eg_kvtxn *t = eg_kv_begin(kv);
  for (uint64_t i = 0; i < N; i++) {
    key_put64(k, i);
    int n = snprintf(val, sizeof val, "value %llu", (unsigned long long)i);
    eg_kvtxn_put(t, (i & 1) ? CF_TWO : CF_ONE, k, 8, val, (size_t)n, false);
  }
  CHECK_VALUE(read1(kv, CF_ONE, "x"), NULL, "nothing durable before commit");
  eg_err e;
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  int found = 0;
  for (uint64_t i = 0; i < N; i++) {
    key_put64(k, i);
    char *v = NULL;
    size_t vl = 0;
    if (eg_kv_get(kv, (i & 1) ? CF_TWO : CF_ONE, k, 8, &v, &vl, &e) != EG_OK) continue;
    snprintf(val, sizeof val, "value %llu", (unsigned long long)i);
    found += vl == strlen(val) && memcmp(v, val, vl) == 0;
    free(v);
  }
  EG_CHECK_INT(found, N);
  /* a reader warms keys 100..109 of CF_ONE, then [100, 200) is range-deleted: the warm
   * copies must not outlive the range */
  t = eg_kv_begin(kv);
  for (uint64_t i = 100; i < 110; i++) {
    char *v = NULL;
    size_t vl = 0;
    key_put64(k, i);
    if (eg_kvtxn_get(t, CF_ONE, k, 8, &v, &vl, &e) == EG_OK) free(v);
  }
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  uint8_t from[8], to[8];
  key_put64(from, 100);
  key_put64(to, 200);
  t = eg_kv_begin(kv);
  eg_kvtxn_delete_range(t, CF_ONE, from, 8, to, 8);
  key_put64(k, 7); /* and a point delete in the other family, same transaction */
  eg_kvtxn_delete(t, CF_TWO, k, 8);
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  int left_one = 0, left_two = 0, warm_left = 0;
  t = eg_kv_begin(kv);
  for (uint64_t i = 0; i < N; i++) {
    char *v = NULL;
    size_t vl = 0;
    key_put64(k, i);
    if (eg_kv_get(kv, CF_ONE, k, 8, &v, &vl, &e) == EG_OK) left_one++, free(v);
    if (eg_kv_get(kv, CF_TWO, k, 8, &v, &vl, &e) == EG_OK) left_two++, free(v);
    if (i >= 100 && i < 110 && eg_kvtxn_get(t, CF_ONE, k, 8, &v, &vl, &e) == EG_OK)
      warm_left++, free(v);
  }
  eg_kvtxn_abort(t);
  EG_CHECK_INT(left_one, N / 2 - 50); /* the even keys of [100, 200) are gone */
  EG_CHECK_INT(left_two, N / 2 - 1);  /* key 7 */
  EG_CHECK_INT(warm_left, 0);
  key_put64(k, 99);
  char *v = NULL;
  size_t vl = 0;
  EG_CHECK_INT(eg_kv_get(kv, CF_TWO, k, 8, &v, &vl, &e), EG_OK); /* odd keys: other family */
  free(v);
  key_put64(k, 200);
  EG_CHECK_INT(eg_kv_get(kv, CF_ONE, k, 8, &v, &vl, &e), EG_OK); /* the end is exclusive */
  free(v);
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* An aborted transaction leaves nothing: puts, deletes, overwrites, a new tenant. */
static void test_rollback(void) {
  char *dir = eg_test_tempdir("kvabort");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  EG_REQUIRE(write1(kv, CF_ONE, "keep", "1") == EG_OK);
  eg_tenant *ten = NULL;
  eg_err e;
  eg_kvtxn *t = eg_kv_begin(kv);
  EG_REQUIRE(eg_kvtxn_tenant(t, "alpha", &ten, &e) == EG_OK);
  uint64_t alpha_id = ten->id;
  eg_kvtxn_put(t, CF_ONE, "a", 1, "x", 1, true);
  eg_kvtxn_put(t, CF_ONE, "a", 1, "y", 1, true); /* overwritten within the transaction */
  eg_kvtxn_put(t, CF_TWO, "b", 1, "z", 1, false);
  eg_kvtxn_put(t, CF_ONE, "keep", 4, "2", 1, true);
  eg_kvtxn_delete(t, CF_ONE, "keep", 4);
  CHECK_VALUE(txn_read1(t, CF_ONE, "a"), "y", "visible inside before abort");
  eg_kvtxn_abort(t);
  CHECK_VALUE(read1(kv, CF_ONE, "a"), NULL, "aborted put");
  CHECK_VALUE(read1(kv, CF_TWO, "b"), NULL, "aborted write-only put");
  CHECK_VALUE(read1(kv, CF_ONE, "keep"), "1", "aborted overwrite and delete");
  uint64_t id = 0;
  EG_CHECK_INT(eg_kv_tenant_id(kv, "alpha", &id), EG_ENOTFOUND);
  /* the rollback reached the pending overlay and the tenant counter too */
  t = eg_kv_begin(kv);
  CHECK_VALUE(txn_read1(t, CF_ONE, "a"), NULL, "next txn does not see the aborted put");
  CHECK_VALUE(txn_read1(t, CF_ONE, "keep"), "1", "next txn sees the committed value");
  EG_REQUIRE(eg_kvtxn_tenant(t, "beta", &ten, &e) == EG_OK);
  EG_CHECK_INT(ten->id, alpha_id); /* the aborted tenant's number is free again */
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  /* and a commit after the abort writes only its own */
  CHECK_VALUE(read1(kv, CF_ONE, "a"), NULL, "still absent after a later commit");
  CHECK_VALUE(read1(kv, CF_TWO, "b"), NULL, "still absent after a later commit");
  EG_CHECK_INT(eg_kv_tenant_id(kv, "beta", &id), EG_OK);
  EG_CHECK_INT(id, alpha_id);
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* ---- group commit ------------------------------------------------------------------ */

enum { WRITERS = 8, TXNS = 150 };

typedef struct writer {
  eg_kv *kv;
  int no;
  int failed; /* commits that did not return EG_OK */
} writer;

/* Each writer commits TXNS transactions of its own tenant (a counter bump and one key),
 * and between them aborts one that writes a key that must never appear. */
static void *writer_main(void *arg) {
  writer *w = arg;
  char name[16], key[32], val[32];
  snprintf(name, sizeof name, "w%d", w->no);
  for (int i = 0; i < TXNS; i++) {
    eg_err e;
    eg_tenant *ten = NULL;
    eg_kvtxn *t = eg_kv_begin(w->kv);
    if (eg_kvtxn_tenant(t, name, &ten, &e) != EG_OK) {
      eg_kvtxn_abort(t);
      w->failed++;
      continue;
    }
    ten->counter[0]++;
    eg_kvtxn_save_tenant(t, ten);
    snprintf(key, sizeof key, "g%d:%03d", w->no, i);
    snprintf(val, sizeof val, "%d*%d", w->no, i);
    eg_kvtxn_put(t, CF_ONE, key, strlen(key), val, strlen(val), i % 2 == 0);
    if (eg_kvtxn_commit(t, &e) != EG_OK) w->failed++;
    if (i % 3 == 0) {
      t = eg_kv_begin(w->kv);
      snprintf(key, sizeof key, "x%d:%03d", w->no, i);
      eg_kvtxn_put(t, CF_ONE, key, strlen(key), "aborted", 7, true);
      eg_kvtxn_abort(t);
    }
  }
  return NULL;
}

static void test_group_commit(void) {
  char *dir = eg_test_tempdir("kvgroup");
  eg_metrics *m = eg_metrics_new();
  eg_kv *kv = open_store(dir, m);
  EG_REQUIRE(kv != NULL);
  writer w[WRITERS];
  pthread_t th[WRITERS];
  for (int i = 0; i < WRITERS; i++) {
    w[i] = (writer){kv, i, 0};
    EG_REQUIRE(pthread_create(&th[i], NULL, writer_main, &w[i]) == 0);
  }
  int failed = 0;
  for (int i = 0; i < WRITERS; i++) {
    pthread_join(th[i], NULL);
    failed += w[i].failed;
  }
  EG_CHECK_INT(failed, 0);
  /* every acknowledged write is there, with its value, and nothing aborted is */
  int ok = 0;
  for (int n = 0; n < WRITERS; n++)
    for (int i = 0; i < TXNS; i++) {
      char key[32], val[32];
      snprintf(key, sizeof key, "g%d:%03d", n, i);
      snprintf(val, sizeof val, "%d*%d", n, i);
      char *v = read1(kv, CF_ONE, key);
      ok += v && strcmp(v, val) == 0;
      free(v);
    }
  EG_CHECK_INT(ok, WRITERS * TXNS);
  int keys = 0, aborted = 0;
  eg_kv_iter *it = eg_kv_iter_open(kv, CF_ONE, "", 0, NULL, 0);
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl;
    const char *k = eg_kv_iter_key(it, &kl);
    keys++;
    aborted += k[0] == 'x';
  }
  eg_kv_iter_close(it);
  EG_CHECK_INT(keys, WRITERS * TXNS);
  EG_CHECK_INT(aborted, 0);
  /* every tenant got its own number and every counter bump */
  uint64_t seen = 0;
  for (int n = 0; n < WRITERS; n++) {
    char name[16];
    snprintf(name, sizeof name, "w%d", n);
    uint64_t id = 0;
    EG_CHECK_INT(eg_kv_tenant_id(kv, name, &id), EG_OK);
    EG_CHECK(id >= 1 && id <= WRITERS && !(seen & (1ull << id)));
    seen |= 1ull << id;
  }
  /* commits were grouped: fewer synced writes than transactions, every one counted */
  double writes = metric_value(m, "kvtest_group_commits_total");
  double txns = metric_value(m, "kvtest_group_commit_txns_total");
  EG_CHECK_INT((long long)txns, WRITERS * TXNS);
  EG_CHECK(writes >= 1 && writes < txns);
  fprintf(stderr, "  %d transactions in %.0f synced writes\n", WRITERS * TXNS, writes);
  eg_kv_close(kv);
  /* the tenants' counters were saved with their transactions */
  kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  eg_kvtxn *t = eg_kv_begin(kv);
  int counters_ok = 0;
  for (int n = 0; n < WRITERS; n++) {
    char name[16];
    snprintf(name, sizeof name, "w%d", n);
    eg_tenant *ten = NULL;
    eg_err e;
    if (eg_kvtxn_tenant(t, name, &ten, &e) == EG_OK) counters_ok += ten->counter[0] == 1 + TXNS;
  }
  eg_kvtxn_abort(t);
  EG_CHECK_INT(counters_ok, WRITERS);
  eg_kv_close(kv);
  eg_metrics_free(m);
  eg_test_rmtree(dir);
  free(dir);
}

/* ---- a write the disk refuses -------------------------------------------------------- */

/* The size of the newest write-ahead log in dir (RocksDB's NNNNNN.log). */
static off_t newest_wal_size(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  struct dirent *de;
  char best[300] = "";
  while ((de = readdir(d))) {
    size_t n = strlen(de->d_name);
    if (n > 4 && strcmp(de->d_name + n - 4, ".log") == 0 && strcmp(de->d_name, best) > 0)
      snprintf(best, sizeof best, "%s", de->d_name);
  }
  closedir(d);
  if (!best[0]) return -1;
  char path[900];
  snprintf(path, sizeof path, "%s/%s", dir, best);
  struct stat st;
  return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The write-ahead log cannot grow (a file size limit, as a full disk would): the commit
 * reports EG_EIO, and neither the store nor a reopened one holds any of it. */
static void test_failed_write(void) {
  char *dir = eg_test_tempdir("kvfail");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  EG_REQUIRE(write1(kv, CF_ONE, "before", "1") == EG_OK);
  /* A megabyte committed first makes the log longer than RocksDB's info LOG, so that the
   * limit below stops the log alone (a failed LOG write trips RocksDB's own assertions). */
  size_t big = 1 << 20;
  char *blob = malloc(big);
  EG_REQUIRE(blob != NULL);
  memset(blob, 'q', big);
  eg_kvtxn *t = eg_kv_begin(kv);
  eg_kvtxn_put(t, CF_TWO, "ballast", 7, blob, big, false);
  eg_err e;
  EG_REQUIRE(eg_kvtxn_commit(t, &e) == EG_OK);
  off_t wal = newest_wal_size(dir);
  EG_REQUIRE(wal > (off_t)big);
  struct rlimit old;
  EG_REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN); /* EFBIG, not a killed process */
  struct rlimit lim = {(rlim_t)wal + 1024, old.rlim_max};
  EG_REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
  t = eg_kv_begin(kv);
  eg_kvtxn_put(t, CF_ONE, "lost", 4, blob, 64 * 1024, true);
  eg_kvtxn_put(t, CF_TWO, "lost-too", 8, "1", 1, false);
  eg_err_clear(&e);
  eg_code rc = eg_kvtxn_commit(t, &e); /* the store logs the failure (expected here) */
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);
  free(blob);
  EG_CHECK_INT(rc, EG_EIO);
  EG_CHECK_STR(e.msg, "the store could not write (disk error?)");
  CHECK_VALUE(read1(kv, CF_ONE, "lost"), NULL, "failed put, plain read");
  CHECK_VALUE(read1(kv, CF_TWO, "lost-too"), NULL, "failed write-only put");
  t = eg_kv_begin(kv);
  CHECK_VALUE(txn_read1(t, CF_ONE, "lost"), NULL, "failed put, read by the next transaction");
  eg_kvtxn_abort(t);
  eg_kv_close(kv);
  kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  CHECK_VALUE(read1(kv, CF_ONE, "before"), "1", "reopened: the earlier commit");
  CHECK_VALUE(read1(kv, CF_ONE, "lost"), NULL, "reopened: the failed one");
  CHECK_VALUE(read1(kv, CF_TWO, "lost-too"), NULL, "reopened: the failed one");
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* ---- reopening, tenants, order ------------------------------------------------------ */

static void test_reopen(void) {
  char *dir = eg_test_tempdir("kvreopen");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  eg_tenant *ten = NULL;
  eg_err e;
  eg_kvtxn *t = eg_kv_begin(kv);
  EG_REQUIRE(eg_kvtxn_tenant(t, "acme", &ten, &e) == EG_OK);
  uint64_t acme = ten->id;
  ten->counter[1] = 42;
  ten->last_tc = -12345; /* negative times keep their order and sign */
  eg_kvtxn_save_tenant(t, ten);
  eg_kvtxn_put(t, CF_TWO, "durable", 7, "yes", 3, true);
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  EG_CHECK_INT(write1(kv, CF_ONE, "gone", "soon"), EG_OK);
  EG_CHECK_INT(write1(kv, CF_ONE, "gone", NULL), EG_OK);
  eg_kv_flush(kv); /* part on disk in SST files, part only in the log below */
  EG_CHECK_INT(write1(kv, CF_ONE, "late", "wal"), EG_OK);
  eg_kv_close(kv);

  kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  CHECK_VALUE(read1(kv, CF_TWO, "durable"), "yes", "flushed value");
  CHECK_VALUE(read1(kv, CF_ONE, "late"), "wal", "value only in the write-ahead log");
  CHECK_VALUE(read1(kv, CF_ONE, "gone"), NULL, "deleted value");
  uint64_t id = 0;
  EG_CHECK_INT(eg_kv_tenant_id(kv, "acme", &id), EG_OK);
  EG_CHECK_INT(id, acme);
  EG_CHECK_INT(eg_kv_tenant_id(kv, "nobody", &id), EG_ENOTFOUND);
  t = eg_kv_begin(kv);
  EG_REQUIRE(eg_kvtxn_tenant(t, "acme", &ten, &e) == EG_OK);
  EG_CHECK_INT(ten->id, acme);
  EG_CHECK_INT(ten->counter[1], 42);
  EG_CHECK_INT(ten->counter[0], 1);
  EG_CHECK_INT(ten->last_tc, -12345);
  EG_REQUIRE(eg_kvtxn_tenant(t, "second", &ten, &e) == EG_OK);
  EG_CHECK(ten->id != acme); /* numbers are not reused after a restart */
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* An unbounded iterator walks a family over keys that start with the tenant's 8 big-endian
 * bytes: keys come back in numeric order within the tenant, and a scan that checks the
 * prefix stops at its end. */
static void test_scan_order(void) {
  char *dir = eg_test_tempdir("kvscan");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  static const uint64_t ids[] = {300, 7, 65536, 1, 256, 42, 1ull << 40, 8};
  enum { N = sizeof ids / sizeof *ids };
  uint8_t k[16];
  eg_kvtxn *t = eg_kv_begin(kv);
  for (int i = 0; i < N; i++) {
    for (uint64_t T = 1; T <= 3; T++) { /* tenants 1 and 3 around the one scanned */
      KEY2(k, T, ids[i]);
      eg_kvtxn_put(t, CF_ONE, k, 16, "v", 1, false);
    }
  }
  eg_err e;
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  uint8_t prefix[8];
  key_put64(prefix, 2);
  eg_kv_iter *it = eg_kv_iter_open(kv, CF_ONE, prefix, 8, NULL, 0);
  uint64_t got[N + 8];
  int n = 0;
  for (; eg_kv_iter_valid(it) && n < N + 8; eg_kv_iter_next(it)) {
    size_t kl;
    const uint8_t *key = eg_kv_iter_key(it, &kl);
    if (kl != 16 || memcmp(key, prefix, 8) != 0) break;
    got[n++] = key_get64(key + 8);
  }
  eg_kv_iter_close(it);
  EG_CHECK_INT(n, N);
  static const uint64_t want[] = {1, 7, 8, 42, 256, 300, 65536, 1ull << 40};
  for (int i = 0; i < n && i < N; i++) EG_CHECK_INT(got[i], want[i]);
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* ---- iterators -------------------------------------------------------------------- */

/* The current key as text (other bytes as \xHH) into buf; "(end)" when not valid. */
static const char *key_at(const eg_kv_iter *it, char *buf, size_t cap) {
  if (!eg_kv_iter_valid(it)) return snprintf(buf, cap, "(end)"), buf;
  size_t kl, o = 0;
  const unsigned char *k = eg_kv_iter_key(it, &kl);
  for (size_t i = 0; i < kl && o + 5 < cap; i++)
    o += (size_t)snprintf(buf + o, cap - o, k[i] >= 0x21 && k[i] < 0x7F ? "%c" : "\\x%02X", k[i]);
  buf[o] = '\0';
  return buf;
}

/* The keys from the iterator's position to its end, comma-separated, into buf (at most
 * 64); closes the iterator. */
static const char *walk(eg_kv_iter *it, char *buf, size_t cap) {
  size_t o = 0;
  buf[0] = '\0';
  for (int n = 0; eg_kv_iter_valid(it) && n < 64; eg_kv_iter_next(it), n++) {
    char k[128];
    o += (size_t)snprintf(buf + o, cap - o, "%s%s", o ? "," : "", key_at(it, k, sizeof k));
    if (o >= cap) break;
  }
  eg_kv_iter_close(it);
  return buf;
}

/* Several keys of cf in one transaction. */
static void put_keys(eg_kv *kv, int cf, const char *const *keys, size_t n) {
  eg_kvtxn *t = eg_kv_begin(kv);
  for (size_t i = 0; i < n; i++) eg_kvtxn_put(t, cf, keys[i], strlen(keys[i]), "v", 1, false);
  eg_err e;
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
}

/* A range [lo, hi): the upper bound is exclusive, lo is inclusive, an unbounded iterator
 * runs to the family's end, other families are not seen; values come with their keys. */
static void test_iter_range(void) {
  char *dir = eg_test_tempdir("kvitr");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  static const char *const keys[] = {"a", "b", "b1", "c", "d", "e"};
  put_keys(kv, CF_ONE, keys, 6);
  EG_REQUIRE(write1(kv, CF_ONE, "c", "value of c") == EG_OK);
  EG_REQUIRE(write1(kv, CF_TWO, "b2", "other family") == EG_OK);
  char buf[512];
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "b", 1, "d", 1), buf, sizeof buf), "b,b1,c");
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "b0", 2, "d0", 2), buf, sizeof buf), "b1,c,d");
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "c", 1, NULL, 0), buf, sizeof buf), "c,d,e");
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "", 0, NULL, 0), buf, sizeof buf), "a,b,b1,c,d,e");
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_TWO, "", 0, NULL, 0), buf, sizeof buf), "b2");
  eg_kv_iter *it = eg_kv_iter_open(kv, CF_ONE, "c", 1, "d", 1);
  EG_REQUIRE(eg_kv_iter_valid(it));
  size_t kl, vl;
  const char *k = eg_kv_iter_key(it, &kl), *v = eg_kv_iter_value(it, &vl);
  EG_CHECK(kl == 1 && k[0] == 'c');
  EG_CHECK(vl == 10 && memcmp(v, "value of c", 10) == 0);
  eg_kv_iter_next(it);
  EG_CHECK(!eg_kv_iter_valid(it)); /* "d" is the bound */
  eg_kv_iter_close(it);
  eg_kv_iter_close(NULL);
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* Empty ranges: lo = hi, a gap between keys, a bound below the start, a prefix nothing
 * has, an empty family; an iterator opened without a start is not valid until it seeks. */
static void test_iter_empty(void) {
  char *dir = eg_test_tempdir("kvite");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  static const char *const keys[] = {"a", "b", "c"};
  put_keys(kv, CF_ONE, keys, 3);
  char buf[512];
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "b", 1, "b", 1), buf, sizeof buf), "");
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "b0", 2, "b9", 2), buf, sizeof buf), "");
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "c", 1, "a", 1), buf, sizeof buf), "");
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "d", 1, NULL, 0), buf, sizeof buf), "");
  EG_CHECK_STR(walk(eg_kv_iter_prefix(kv, CF_ONE, "bb", 2), buf, sizeof buf), "");
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_TWO, "", 0, NULL, 0), buf, sizeof buf), "");
  eg_kv_iter *it = eg_kv_iter_open(kv, CF_ONE, NULL, 0, "c", 1);
  EG_CHECK(!eg_kv_iter_valid(it));
  eg_kv_iter_seek(it, "a", 1);
  EG_CHECK_STR(walk(it, buf, sizeof buf), "a,b");
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* seek and seek_prev: to the first key >= / the last key <= the target, inside the bound;
 * prev walks back; past either end the iterator is not valid. */
static void test_iter_seek(void) {
  char *dir = eg_test_tempdir("kvits");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  static const char *const keys[] = {"a", "b", "b1", "c", "d", "e"};
  put_keys(kv, CF_ONE, keys, 6);
  char k[128];
  eg_kv_iter *it = eg_kv_iter_open(kv, CF_ONE, "b", 1, "d", 1);
  eg_kv_iter_seek(it, "b0", 2);
  EG_CHECK_STR(key_at(it, k, sizeof k), "b1");
  eg_kv_iter_seek(it, "c", 1);
  EG_CHECK_STR(key_at(it, k, sizeof k), "c");
  eg_kv_iter_seek(it, "c0", 2);
  EG_CHECK_STR(key_at(it, k, sizeof k), "(end)"); /* "d" is past the bound */
  eg_kv_iter_seek_prev(it, "c0", 2);
  EG_CHECK_STR(key_at(it, k, sizeof k), "c");
  eg_kv_iter_seek_prev(it, "b1", 2);
  EG_CHECK_STR(key_at(it, k, sizeof k), "b1"); /* an exact key is its own */
  eg_kv_iter_prev(it);
  EG_CHECK_STR(key_at(it, k, sizeof k), "b");
  eg_kv_iter_next(it);
  EG_CHECK_STR(key_at(it, k, sizeof k), "b1");
  eg_kv_iter_seek_prev(it, "z", 1);
  EG_CHECK_STR(key_at(it, k, sizeof k), "c"); /* the last key below the bound */
  eg_kv_iter_close(it);
  /* unbounded, unpositioned, backwards to the start (the chain walk's way) */
  it = eg_kv_iter_open(kv, CF_ONE, NULL, 0, NULL, 0);
  eg_kv_iter_seek_prev(it, "b9", 2);
  EG_CHECK_STR(key_at(it, k, sizeof k), "b1");
  eg_kv_iter_prev(it);
  eg_kv_iter_prev(it);
  EG_CHECK_STR(key_at(it, k, sizeof k), "a");
  eg_kv_iter_prev(it);
  EG_CHECK_STR(key_at(it, k, sizeof k), "(end)");
  eg_kv_iter_seek_prev(it, "0", 1); /* before the first key */
  EG_CHECK_STR(key_at(it, k, sizeof k), "(end)");
  eg_kv_iter_seek(it, "e0", 2); /* after the last */
  EG_CHECK_STR(key_at(it, k, sizeof k), "(end)");
  eg_kv_iter_close(it);
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* A prefix scan is bounded by the prefix's successor, carrying over 0xFF bytes; a prefix
 * of 0xFF bytes only runs to the family's end. */
static void test_iter_prefix(void) {
  char *dir = eg_test_tempdir("kvitp");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  static const char *const keys[] = {"a", "a\xFF", "a\xFF\x01", "b",           "bc",
                                     "c", "\xFF",  "\xFF\xFF",  "\xFF\xFF\x01"};
  put_keys(kv, CF_ONE, keys, 9);
  const char zero_key[] = {'b', 0}; /* "b\0": between "b" and "bc" */
  eg_kvtxn *t = eg_kv_begin(kv);
  eg_kvtxn_put(t, CF_ONE, zero_key, 2, "v", 1, false);
  eg_err e;
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  char buf[512];
  EG_CHECK_STR(walk(eg_kv_iter_prefix(kv, CF_ONE, "b", 1), buf, sizeof buf), "b,b\\x00,bc");
  EG_CHECK_STR(walk(eg_kv_iter_prefix(kv, CF_ONE, "a\xFF", 2), buf, sizeof buf),
               "a\\xFF,a\\xFF\\x01");
  EG_CHECK_STR(walk(eg_kv_iter_prefix(kv, CF_ONE, "\xFF\xFF", 2), buf, sizeof buf),
               "\\xFF\\xFF,\\xFF\\xFF\\x01");
  EG_CHECK_STR(walk(eg_kv_iter_prefix(kv, CF_ONE, "", 0), buf, sizeof buf),
               "a,a\\xFF,a\\xFF\\x01,b,b\\x00,bc,c,\\xFF,\\xFF\\xFF,\\xFF\\xFF\\x01");
  /* a seek inside a prefix scan stays inside it */
  eg_kv_iter *it = eg_kv_iter_prefix(kv, CF_ONE, "a", 1);
  eg_kv_iter_seek(it, "a\xFF\x00", 3);
  EG_CHECK_STR(walk(it, buf, sizeof buf), "a\\xFF\\x01");
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* Deleted keys (one by one and by range) are not seen once durable; an iterator reads the
 * store as of its opening. */
static void test_iter_after_deletes(void) {
  char *dir = eg_test_tempdir("kvitd");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  static const char *const keys[] = {"a", "b", "b1", "c", "c1", "c2", "d"};
  put_keys(kv, CF_ONE, keys, 7);
  eg_kv_iter *before = eg_kv_iter_open(kv, CF_ONE, "", 0, "z", 1);
  eg_kvtxn *t = eg_kv_begin(kv);
  eg_kvtxn_delete(t, CF_ONE, "b1", 2);
  eg_kvtxn_delete_range(t, CF_ONE, "c", 1, "d", 1);
  eg_err e;
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  char buf[512];
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "", 0, NULL, 0), buf, sizeof buf), "a,b,d");
  EG_CHECK_STR(walk(eg_kv_iter_prefix(kv, CF_ONE, "c", 1), buf, sizeof buf), "");
  EG_CHECK_STR(walk(before, buf, sizeof buf), "a,b,b1,c,c1,c2,d");
  eg_kv_flush(kv); /* the same from the files */
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "b", 1, "d", 1), buf, sizeof buf), "b");
  char k[128];
  eg_kv_iter *it = eg_kv_iter_open(kv, CF_ONE, NULL, 0, NULL, 0);
  eg_kv_iter_seek_prev(it, "c9", 2);
  EG_CHECK_STR(key_at(it, k, sizeof k), "b");
  eg_kv_iter_close(it);
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* Iterators read what is durable: a transaction's pending writes are not seen (visible
 * or not) until it commits; in a settled transaction they see every earlier commit.
 * The batched point read does the same. */
static void test_iter_in_transaction(void) {
  char *dir = eg_test_tempdir("kvitt");
  eg_kv *kv = open_store(dir, NULL);
  EG_REQUIRE(kv != NULL);
  static const char *const keys[] = {"a", "c"};
  put_keys(kv, CF_ONE, keys, 2);
  eg_kvtxn *t = eg_kv_begin(kv);
  eg_kvtxn_put(t, CF_ONE, "b", 1, "1", 1, true);
  eg_kvtxn_put(t, CF_ONE, "b1", 2, "2", 1, false);
  eg_kvtxn_delete(t, CF_ONE, "c", 1);
  char buf[512];
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "", 0, NULL, 0), buf, sizeof buf), "a,c");
  CHECK_VALUE(txn_read1(t, CF_ONE, "b"), "1", "the transaction reads its own put");
  eg_err e;
  EG_CHECK_INT(eg_kvtxn_commit(t, &e), EG_OK);
  EG_CHECK_STR(walk(eg_kv_iter_open(kv, CF_ONE, "", 0, NULL, 0), buf, sizeof buf), "a,b,b1");
  t = eg_kv_begin_settled(kv);
  EG_CHECK_STR(walk(eg_kv_iter_prefix(kv, CF_ONE, "b", 1), buf, sizeof buf), "b,b1");
  eg_kvtxn_put(t, CF_ONE, "b2", 2, "3", 1, true);
  EG_CHECK_STR(walk(eg_kv_iter_prefix(kv, CF_ONE, "b", 1), buf, sizeof buf), "b,b1");
  /* batched point reads: present, absent, pending */
  const char *const mk[] = {"b1", "zz", "b2", "a"};
  const size_t mkl[] = {2, 2, 2, 1};
  char *vals[4];
  size_t vls[4];
  EG_CHECK_INT(eg_kv_multi_get(kv, CF_ONE, 4, mk, mkl, vals, vls, &e), EG_OK);
  EG_CHECK(vals[0] && vls[0] == 1 && vals[0][0] == '2');
  EG_CHECK(vals[1] == NULL && vals[2] == NULL);
  EG_CHECK(vals[3] && vls[3] == 1 && vals[3][0] == 'v');
  for (int i = 0; i < 4; i++) free(vals[i]);
  eg_kvtxn_abort(t);
  EG_CHECK_STR(walk(eg_kv_iter_prefix(kv, CF_ONE, "b", 1), buf, sizeof buf), "b,b1");
  eg_kv_close(kv);
  eg_test_rmtree(dir);
  free(dir);
}

/* ---- log positions ------------------------------------------------------------------ */

/* The log as the leader's append hook sees it. */
typedef struct fake_log {
  pthread_mutex_t mu;
  uint64_t end;      /* the last position appended */
  char recs[64][16]; /* record at position i + 1 */
  bool refuse;       /* the next append fails */
  int appends, bad_order;
} fake_log;

static eg_code fake_append(void *ctx, uint64_t first, const eg_kv_record *recs, size_t n,
                           eg_err *err) {
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
      snprintf(l->recs[first + i - 1], sizeof l->recs[0], "%.*s", (int)recs[i].len,
               (const char *)recs[i].data);
    l->end = first + n - 1;
  }
  pthread_mutex_unlock(&l->mu);
  return rc;
}

/* One logged commit putting key=val; the record is "rec:<key>". */
static eg_code put_logged(eg_kv *s, const char *key, const char *val, uint64_t *pos, eg_err *err) {
  eg_kvtxn *t = eg_kv_begin(s);
  eg_kvtxn_put(t, CF_DEF, key, strlen(key), val, strlen(val), true);
  char rec[16];
  snprintf(rec, sizeof rec, "rec:%s", key);
  return eg_kvtxn_commit_logged(t, rec, strlen(rec), pos, err);
}

static bool stored(eg_kv *s, const char *key) {
  char *v = read1(s, CF_DEF, key);
  bool found = v != NULL;
  free(v);
  return found;
}

typedef struct log_writer {
  eg_kv *s;
  int id, ok;
} log_writer;

static void *write_many(void *arg) {
  log_writer *w = arg;
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
  char *dir = eg_test_tempdir("kvpos");
  eg_kv *s = open_store(dir, NULL);
  EG_REQUIRE(s != NULL);
  eg_err e;
  EG_CHECK_INT(eg_kv_position(s), 0);

  /* alone: positions of its own, kept with the data */
  uint64_t pos = 0;
  EG_CHECK(put_logged(s, "a", "1", &pos, &e) == EG_OK && pos == 1);
  EG_CHECK(put_logged(s, "b", "2", &pos, &e) == EG_OK && pos == 2);
  EG_CHECK_INT(eg_kv_position(s), 2);
  eg_kv_close(s);
  s = open_store(dir, NULL);
  EG_REQUIRE(s != NULL);
  EG_CHECK_INT(eg_kv_position(s), 2);

  /* leading: concurrent commits reach the log in position order, then the store */
  fake_log log = {.mu = PTHREAD_MUTEX_INITIALIZER, .end = 2};
  eg_kv_set_mode(s, EG_KV_LEADER, fake_append, &log);
  EG_CHECK(eg_kv_wants_records(s));
  log_writer ws[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    ws[i] = (log_writer){s, i, 0};
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
  eg_kvtxn_put(t, CF_DEF, "g", 1, "7", 1, true);
  EG_CHECK_INT(eg_kvtxn_commit_applied(t, 23, &e), EG_EPRECOND);
  t = eg_kv_begin(s);
  eg_kvtxn_put(t, CF_DEF, "g", 1, "7", 1, true);
  EG_CHECK_INT(eg_kvtxn_commit_applied(t, 25, &e), EG_OK);
  EG_CHECK(!stored(s, "f") && stored(s, "g"));
  eg_kv_close(s);
  s = open_store(dir, NULL);
  EG_REQUIRE(s != NULL);
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
    eg_kvtxn_put(t, CF_DEF, key, strlen(key), "v", 1, true);
    eg_err e;
    (void)eg_kvtxn_commit(t, &e);
  }
  return NULL;
}

/* eg_kv_begin_settled (an erasure) waits for the groups in flight, not for a moment with
 * no commit pending, which a steady stream of writers may never leave it. */
static void test_settled_under_load(void) {
  enum { TRIES = 5 }; /* under WRITERS writers */
  char *dir = eg_test_tempdir("kvsettle");
  eg_kv *s = open_store(dir, NULL);
  EG_REQUIRE(s != NULL);
  eg_err e;
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
    eg_kvtxn_put(t, CF_DEF, "settled", 7, "x", 1, true);
    EG_CHECK(eg_kvtxn_commit(t, &e) == EG_OK);
    usleep(50000);
  }
  atomic_store(&stop, true);
  for (int i = 0; i < WRITERS; i++) pthread_join(th[i], NULL);
  fprintf(stderr, "  %d settled transactions waited %.1f ms in all\n", TRIES,
          (double)waited / 1000);
  EG_CHECK(waited < 2 * EG_US_PER_SEC);
  eg_kv_close(s);
  eg_test_rmtree(dir);
  free(dir);
}

int main(void) {
  EG_RUN(test_locked_by_other_process); /* first: it forks */
  EG_RUN(test_open_errors);
  EG_RUN(test_round_trip);
  EG_RUN(test_reads_through_pending);
  EG_RUN(test_write_batch);
  EG_RUN(test_rollback);
  EG_RUN(test_group_commit);
  EG_RUN(test_failed_write);
  EG_RUN(test_reopen);
  EG_RUN(test_scan_order);
  EG_RUN(test_iter_range);
  EG_RUN(test_iter_empty);
  EG_RUN(test_iter_seek);
  EG_RUN(test_iter_prefix);
  EG_RUN(test_iter_after_deletes);
  EG_RUN(test_iter_in_transaction);
  EG_RUN(test_positions);
  EG_RUN(test_settled_under_load);
  return eg_test_finish();
}
