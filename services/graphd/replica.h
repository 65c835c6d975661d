/*
 * replica.h — graphd as one replica of a shard whose source of truth is a log in
 * PostgreSQL (common/replog.h, deploy/REPLICATION.md).
 *
 * A replica is the writer or a follower. The writer holds the shard's lock, appends every
 * write to the log before applying it (common/kv.h EG_KV_LEADER) and is the only replica
 * that accepts writes. A follower tails the log — woken by LISTEN/NOTIFY, reading in
 * batches — and applies it in order (eg_graph_apply), persisting its position with each
 * applied batch; it serves reads, and answers writes UNAVAILABLE with the writer's
 * address. When the writer's session ends, a follower that has caught up takes the lock,
 * applies the log to its end, and only then accepts writes. A writer whose append is
 * refused (fenced) or whose session is lost steps down: it stops taking writes, forgets
 * what it had not made durable, and follows.
 *
 * Thread rules: one thread of its own runs the role; write handlers bracket each write
 * with eg_replica_write_begin/_end (a shared lock the role changes take exclusively).
 */
#ifndef EG_GRAPHD_REPLICA_H
#define EG_GRAPHD_REPLICA_H

#include "common/err.h"
#include "common/metrics.h"
#include "services/graphd/graph.h"

typedef struct eg_replica eg_replica;

typedef struct eg_replica_opts {
  const char *dsn;   /* libpq connection string of the log (copied) */
  const char *shard; /* the log's name for this shard, e.g. "graph-0" (copied) */
  int batch;         /* records read and applied at a time (0 = 512) */
} eg_replica_opts;

/*
 * A replica of g (borrowed; must outlive it), a follower that applies nothing yet: the
 * store refuses writes from now on. Metrics (may be NULL):
 * engram_graphd_replication_{role{role},applied_seq,lag_records,lag_seconds}.
 */
eg_code eg_replica_new(eg_graph *g, const eg_replica_opts *o, eg_metrics *m, eg_replica **out,
                       eg_err *err);
/* Start following (and leading when the lock is free); advertise: the address clients
 * send writes to when this replica is the writer (copied). */
eg_code eg_replica_start(eg_replica *r, const char *advertise, eg_err *err);
/* Stop the thread, end the log session (and the lock). Accepts NULL. */
void eg_replica_free(eg_replica *r);

/*
 * A write may go ahead: EG_OK with the write gate held (release it with
 * eg_replica_write_end whatever the write's outcome), or EG_EUNAVAIL with the message
 * "not the writer of shard <s>; writer=<host:port>" ("writer=unknown" when none is known).
 * r NULL (no log: a single node) always goes ahead.
 */
eg_code eg_replica_write_begin(eg_replica *r, eg_err *err);
void eg_replica_write_end(eg_replica *r);

#endif
