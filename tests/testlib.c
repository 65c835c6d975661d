/*
 * testlib.c — counters and helpers behind testlib.h.
 */
#include "tests/testlib.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/time.h"

static int checks_failed_in_test;
static int tests_passed, tests_failed;

void eg_test_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "  FAIL %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  checks_failed_in_test++;
}

bool eg_test_check(bool ok, const char *file, int line, const char *expr) {
  if (!ok) eg_test_fail(file, line, "%s", expr);
  return ok;
}

bool eg_test_failed(void) { return checks_failed_in_test > 0; }

void eg_test_run(const char *name, void (*fn)(void)) {
  checks_failed_in_test = 0;
  int64_t t0 = eg_time_mono_us();
  fn();
  double ms = (double)(eg_time_mono_us() - t0) / 1000.0;
  if (checks_failed_in_test) {
    tests_failed++;
    fprintf(stderr, "not ok  %s (%.1f ms)\n", name, ms);
  } else {
    tests_passed++;
    fprintf(stderr, "ok      %s (%.1f ms)\n", name, ms);
  }
}

int eg_test_finish(void) {
  printf("%d passed, %d failed\n", tests_passed, tests_failed);
  return tests_failed ? 1 : 0;
}

char *eg_test_tempdir(const char *prefix) {
  const char *base = getenv("TMPDIR");
  char tmpl[512];
  snprintf(tmpl, sizeof tmpl, "%s/engram-%s-XXXXXX", base && *base ? base : "/tmp", prefix);
  char *d = mkdtemp(tmpl);
  return d ? strdup(d) : NULL;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

void eg_test_rmtree(const char *path) {
  if (path) nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int eg_test_system(const char *fmt, ...) {
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int st = system(cmd);
  if (st == -1 || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

char *eg_test_slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return strdup("");
  eg_buf b = EG_BUF_INIT;
  char chunk[8192];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) eg_buf_append(&b, chunk, n);
  fclose(f);
  char *s = strndup(b.data ? b.data : "", b.len);
  eg_buf_free(&b);
  return s;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

void eg_sort_i64(int64_t *v, size_t n) { qsort(v, n, sizeof *v, cmp_i64); }
