/* test_pool.c — every job runs once, the queue bound refuses, free drains. */
#include <stdatomic.h>
#include <unistd.h>

#include "common/pool.h"
#include "tests/testlib.h"

static atomic_int ran;
static atomic_int gate;

static void job(void *arg) {
  (void)arg;
  atomic_fetch_add(&ran, 1);
}

static void blocking_job(void *arg) {
  (void)arg;
  while (!atomic_load(&gate)) usleep(1000);
  atomic_fetch_add(&ran, 1);
}

static void test_runs_all(void) {
  eg_pool *p;
  eg_err e;
  EG_REQUIRE(eg_pool_new(3, 10000, &p, &e) == EG_OK);
  atomic_store(&ran, 0);
  for (int i = 0; i < 5000; i++) EG_CHECK_INT(eg_pool_submit(p, job, NULL), EG_OK);
  eg_pool_free(p); /* drains */
  EG_CHECK_INT(atomic_load(&ran), 5000);
}

static void test_bounded(void) {
  eg_pool *p;
  eg_err e;
  EG_REQUIRE(eg_pool_new(1, 2, &p, &e) == EG_OK);
  atomic_store(&ran, 0);
  atomic_store(&gate, 0);
  EG_CHECK_INT(eg_pool_submit(p, blocking_job, NULL), EG_OK);
  while (eg_pool_running(p) == 0) usleep(100); /* the worker took it */
  EG_CHECK_INT(eg_pool_submit(p, blocking_job, NULL), EG_OK);
  EG_CHECK_INT(eg_pool_submit(p, blocking_job, NULL), EG_OK);
  EG_CHECK_INT(eg_pool_queued(p), 2);
  EG_CHECK_INT(eg_pool_submit(p, blocking_job, NULL), EG_EFULL);
  atomic_store(&gate, 1);
  eg_pool_free(p);
  EG_CHECK_INT(atomic_load(&ran), 3);
  EG_CHECK_INT(eg_pool_new(0, 1, &p, &e), EG_EINVAL);
}

int main(void) {
  EG_RUN(test_runs_all);
  EG_RUN(test_bounded);
  return eg_test_finish();
}
