/*
 * test_shard.c — jump consistent hash: in range, balanced, minimal movement when a shard
 * is added; this process's shard and the refusal of other tenants.
 */
#include <stdio.h>

#include "common/shard.h"
#include "tests/testlib.h"

static void test_jump_hash(void) {
  enum { KEYS = 20000 };
  unsigned count[5] = {0}, moved = 0, wrong_move = 0;
  for (uint64_t k = 0; k < KEYS; k++) {
    uint64_t key = k * 0x9E3779B97F4A7C15ULL;
    EG_CHECK_INT(eg_jump_hash(key, 1), 0);
    uint32_t a = eg_jump_hash(key, 4), b = eg_jump_hash(key, 5);
    EG_REQUIRE(a < 4 && b < 5);
    count[b]++;
    if (a != b) moved++, wrong_move += b != 4; /* a key only ever moves to the new shard */
  }
  for (int i = 0; i < 5; i++)
    EG_CHECK(count[i] > KEYS / 5 * 9 / 10 && count[i] < KEYS / 5 * 11 / 10);
  EG_CHECK(moved > KEYS / 5 * 9 / 10 && moved < KEYS / 5 * 11 / 10); /* about 1/5 moves */
  EG_CHECK_INT(wrong_move, 0);
  EG_CHECK_INT(eg_shard_of("acme", 1), 0);
  EG_CHECK(eg_shard_of("acme", 7) == eg_shard_of("acme", 7));
}

static void test_this_shard(void) {
  eg_err e;
  eg_shard all = {0, 1}, sh;
  EG_CHECK_INT(eg_shard_check(&all, "anyone", &e), EG_OK); /* unsharded: every tenant */
  EG_CHECK_INT(eg_shard_make(3, 3, &sh, &e), EG_EINVAL);
  EG_CHECK_INT(eg_shard_make(0, 0, &sh, &e), EG_EINVAL);
  EG_REQUIRE(eg_shard_make(1, 2, &sh, &e) == EG_OK);
  int mine = 0, refused = 0;
  for (int i = 0; i < 50; i++) {
    char t[16];
    snprintf(t, sizeof t, "t%d", i);
    eg_code rc = eg_shard_check(&sh, t, &e);
    if (eg_shard_of(t, 2) == 1)
      mine += rc == EG_OK;
    else
      refused +=
          rc == EG_EPRECOND && strstr(e.msg, "lives on shard 0 of 2; this is shard 1") != NULL;
  }
  EG_CHECK_INT(mine + refused, 50);
  EG_CHECK(mine > 0 && refused > 0);
}

int main(void) {
  EG_RUN(test_jump_hash);
  EG_RUN(test_this_shard);
  return eg_test_finish();
}
