/*
 * pool.c — mutex + two condition variables around a ring buffer of jobs.
 */
#include "common/pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct job {
  eg_pool_fn fn;
  void *arg;
} job;

struct eg_pool {
  pthread_mutex_t mu;
  pthread_cond_t has_work;
  job *ring;
  int cap, head, count, running;
  bool stopping;
  int n_threads;
  pthread_t *threads;
};

static void *worker(void *arg) {
  eg_pool *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->count == 0 && !p->stopping) pthread_cond_wait(&p->has_work, &p->mu);
    if (p->count == 0) break; /* stopping and drained */
    job j = p->ring[p->head];
    p->head = (p->head + 1) % p->cap;
    p->count--;
    p->running++;
    pthread_mutex_unlock(&p->mu);
    j.fn(j.arg);
    pthread_mutex_lock(&p->mu);
    p->running--;
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

eg_code eg_pool_new(int threads, int queue_max, eg_pool **out, eg_err *err) {
  if (threads < 1 || queue_max < 1)
    return eg_err_set(err, EG_EINVAL, "pool needs at least one thread and one queue slot");
  eg_pool *p = calloc(1, sizeof *p);
  if (!p) return eg_err_set(err, EG_ENOMEM, "out of memory");
  p->ring = calloc((size_t)queue_max, sizeof *p->ring);
  p->threads = calloc((size_t)threads, sizeof *p->threads);
  if (!p->ring || !p->threads) {
    free(p->ring);
    free(p->threads);
    free(p);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  p->cap = queue_max;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->has_work, NULL);
  for (int i = 0; i < threads; i++) {
    if (pthread_create(&p->threads[i], NULL, worker, p) != 0) {
      p->n_threads = i;
      eg_pool_free(p);
      return eg_err_set(err, EG_EINTERNAL, "cannot start worker thread");
    }
    p->n_threads = i + 1;
  }
  *out = p;
  return EG_OK;
}

eg_code eg_pool_submit(eg_pool *p, eg_pool_fn fn, void *arg) {
  pthread_mutex_lock(&p->mu);
  eg_code rc = EG_OK;
  if (p->stopping) {
    rc = EG_ECANCELLED;
  } else if (p->count == p->cap) {
    rc = EG_EFULL;
  } else {
    p->ring[(p->head + p->count) % p->cap] = (job){fn, arg};
    p->count++;
    pthread_cond_signal(&p->has_work);
  }
  pthread_mutex_unlock(&p->mu);
  return rc;
}

int eg_pool_queued(eg_pool *p) {
  pthread_mutex_lock(&p->mu);
  int n = p->count;
  pthread_mutex_unlock(&p->mu);
  return n;
}

int eg_pool_running(eg_pool *p) {
  pthread_mutex_lock(&p->mu);
  int n = p->running;
  pthread_mutex_unlock(&p->mu);
  return n;
}

void eg_pool_free(eg_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stopping = true;
  pthread_cond_broadcast(&p->has_work);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->n_threads; i++) pthread_join(p->threads[i], NULL);
  pthread_cond_destroy(&p->has_work);
  pthread_mutex_destroy(&p->mu);
  free(p->ring);
  free(p->threads);
  free(p);
}
