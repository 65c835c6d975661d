/*
 * pool.h — a fixed set of worker threads fed by a bounded FIFO queue.
 *
 * Blocking work (storage, models, outgoing RPCs) runs here, never on gRPC polling
 * threads. A full queue refuses new work (EG_EFULL) instead of growing: the caller
 * answers RESOURCE_EXHAUSTED and the client backs off.
 */
#ifndef EG_POOL_H
#define EG_POOL_H

#include <stddef.h>

#include "common/err.h"

typedef struct eg_pool eg_pool;
typedef void (*eg_pool_fn)(void *arg);

/* threads >= 1; queue_max >= 1 jobs waiting (running jobs do not count). */
eg_code eg_pool_new(int threads, int queue_max, eg_pool **out, eg_err *err);
/* Queue fn(arg). EG_EFULL when the queue is full, EG_ECANCELLED after eg_pool_free began. */
eg_code eg_pool_submit(eg_pool *p, eg_pool_fn fn, void *arg);
/* Jobs waiting (not yet running). */
int eg_pool_queued(eg_pool *p);
/* Jobs running now. */
int eg_pool_running(eg_pool *p);
/* Finish every queued job, then join the threads and free. Accepts NULL. */
void eg_pool_free(eg_pool *p);

#endif
