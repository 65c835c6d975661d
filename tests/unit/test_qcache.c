/* test_qcache.c — the query-vector cache: hits return the stored vector, a colliding text
 * replaces the entry and never returns another text's vector, long texts are not kept,
 * concurrent use is safe. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "services/vectord/qcache.h"
#include "tests/testlib.h"

static void test_get_put(void) {
  eg_qcache *c = eg_qcache_new(4, 3);
  EG_REQUIRE(c != NULL);
  float v[3] = {1, 2, 3}, out[3] = {0};
  EG_CHECK(!eg_qcache_get(c, "where do I live", out));
  eg_qcache_put(c, "where do I live", v);
  EG_CHECK(eg_qcache_get(c, "where do I live", out));
  EG_CHECK(out[0] == 1 && out[1] == 2 && out[2] == 3);
  EG_CHECK(!eg_qcache_get(c, "where do I work", out));
  /* 4 slots, 40 texts: many collide; each lookup is either its own vector or a miss */
  char t[32];
  for (int i = 0; i < 40; i++) {
    float w[3] = {(float)i, 0, 0};
    snprintf(t, sizeof t, "text %d", i);
    eg_qcache_put(c, t, w);
  }
  int hits = 0;
  for (int i = 0; i < 40; i++) {
    snprintf(t, sizeof t, "text %d", i);
    if (eg_qcache_get(c, t, out)) {
      hits++;
      EG_CHECK(out[0] == (float)i);
    }
  }
  EG_CHECK(hits >= 1 && hits <= 4);
  char longtext[2000];
  memset(longtext, 'a', sizeof longtext - 1);
  longtext[sizeof longtext - 1] = 0;
  eg_qcache_put(c, longtext, v);
  EG_CHECK(!eg_qcache_get(c, longtext, out));
  eg_qcache_free(c);
  EG_CHECK(eg_qcache_new(0, 3) == NULL); /* off */
  EG_CHECK(!eg_qcache_get(NULL, "x", out));
}

static eg_qcache *shared;

static void *hammer(void *arg) {
  int id = (int)(long)arg;
  char t[32];
  float v[3], out[3];
  for (int i = 0; i < 20000; i++) {
    snprintf(t, sizeof t, "q%d", (i * 7 + id) % 100);
    v[0] = v[1] = v[2] = (float)((i * 7 + id) % 100);
    if (i % 3 == 0)
      eg_qcache_put(shared, t, v);
    else if (eg_qcache_get(shared, t, out) && (out[0] != v[0] || out[2] != v[0]))
      return (void *)1;
  }
  return NULL;
}

static void test_concurrent(void) {
  shared = eg_qcache_new(32, 3);
  EG_REQUIRE(shared != NULL);
  pthread_t th[4];
  for (long i = 0; i < 4; i++) pthread_create(&th[i], NULL, hammer, (void *)i);
  int bad = 0;
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(th[i], &r);
    bad += r != NULL;
  }
  EG_CHECK_INT(bad, 0);
  eg_qcache_free(shared);
}

int main(void) {
  EG_RUN(test_get_put);
  EG_RUN(test_concurrent);
  return eg_test_finish();
}
