/* test_arena.c — alignment, large blocks, cap, reset. */
#include <stdint.h>

#include "common/arena.h"
#include "tests/testlib.h"

static void test_alloc(void) {
  eg_arena *a = eg_arena_new(256, 0);
  EG_REQUIRE(a != NULL);
  for (int i = 1; i < 200; i++) {
    unsigned char *p = eg_arena_alloc(a, (size_t)i);
    EG_REQUIRE(p != NULL);
    EG_CHECK(((uintptr_t)p & 15) == 0);
    memset(p, 0xab, (size_t)i);
  }
  char *big = eg_arena_alloc(a, 100000); /* its own block */
  EG_REQUIRE(big != NULL);
  memset(big, 1, 100000);
  EG_CHECK_STR(eg_arena_strdup(a, "hello"), "hello");
  EG_CHECK_STR(eg_arena_strndup(a, "hello", 3), "hel");
  EG_CHECK_STR(eg_arena_sprintf(a, "%d-%s", 42, "x"), "42-x");
  int *z = eg_arena_calloc(a, 100, sizeof(int));
  int sum = 0;
  for (int i = 0; i < 100; i++) sum += z[i];
  EG_CHECK_INT(sum, 0);
  EG_CHECK(eg_arena_calloc(a, SIZE_MAX / 2, 4) == NULL);
  eg_arena_reset(a);
  EG_CHECK_INT(eg_arena_used(a), 0);
  EG_CHECK(eg_arena_alloc(a, 10) != NULL);
  eg_arena_free(a);
  eg_arena_free(NULL);
}

static void test_cap(void) {
  eg_arena *a = eg_arena_new(1024, 4096);
  EG_REQUIRE(a != NULL);
  EG_CHECK(eg_arena_alloc(a, 3000) != NULL);
  EG_CHECK(eg_arena_alloc(a, 2000) == NULL); /* would pass the cap */
  EG_CHECK(eg_arena_alloc(a, 1000) != NULL);
  EG_CHECK(eg_arena_used(a) <= 4096);
  eg_arena_free(a);
}

int main(void) {
  EG_RUN(test_alloc);
  EG_RUN(test_cap);
  return eg_test_finish();
}
