/*
 * testlib.h — a small assertion library for Engram's C tests.
 *
 * Checks record the failure (file:line and the expression) and go on, so one run shows
 * every broken expectation; EG_REQUIRE stops the current test. eg_test_finish prints
 * "N passed, N failed" and returns the exit code.
 */
#ifndef EG_TESTLIB_H
#define EG_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void eg_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool eg_test_check(bool ok, const char *file, int line, const char *expr);
void eg_test_run(const char *name, void (*fn)(void));
int eg_test_finish(void);
/* True when the current test has failed (e.g. to keep logs). */
bool eg_test_failed(void);

#define EG_CHECK(cond) eg_test_check((cond), __FILE__, __LINE__, #cond)
#define EG_REQUIRE(cond)                                           \
  do {                                                             \
    if (!eg_test_check((cond), __FILE__, __LINE__, #cond)) return; \
  } while (0)
#define EG_CHECK_INT(a, b)                                                              \
  do {                                                                                  \
    long long eg__a = (long long)(a), eg__b = (long long)(b);                           \
    if (eg__a != eg__b)                                                                 \
      eg_test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, eg__a, eg__b); \
    else                                                                                \
      eg_test_check(true, __FILE__, __LINE__, #a);                                      \
  } while (0)
#define EG_CHECK_STR(a, b)                                                   \
  do {                                                                       \
    const char *eg__a = (a), *eg__b = (b);                                   \
    if (!eg__a || !eg__b || strcmp(eg__a, eg__b) != 0)                       \
      eg_test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, \
                   eg__a ? eg__a : "(null)", eg__b ? eg__b : "(null)");      \
    else                                                                     \
      eg_test_check(true, __FILE__, __LINE__, #a);                           \
  } while (0)
#define EG_RUN(fn) eg_test_run(#fn, fn)

/* A fresh temporary directory (mkdtemp under $TMPDIR or /tmp); caller frees. */
char *eg_test_tempdir(const char *prefix);
/* rm -rf */
void eg_test_rmtree(const char *path);
/* Run a shell command, return its exit status (-1 if it could not run). */
int eg_test_system(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The whole file as a string ("" when it cannot be read); caller frees. */
char *eg_test_slurp(const char *path);
/* Sort n int64 values ascending (latencies, before reading p50/p99 off them). */
void eg_sort_i64(int64_t *v, size_t n);

#endif
