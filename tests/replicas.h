/*
 * replicas.h — graphd or vectord replicas of one shard over a real PostgreSQL log, for
 * the replication tests and benchmark: the cluster (tests/pg.h + tests/harness.h), which one
 * is the writer (its /metrics), and a client that follows the writer the way a real one
 * would — on UNAVAILABLE it reads "writer=<addr>" from the message, else tries the next.
 */
#ifndef EG_TESTS_REPLICAS_H
#define EG_TESTS_REPLICAS_H

#include "common/rpc.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/pg.h"

#define EG_MAX_REPLICAS 4

typedef struct eg_replicas {
  char daemon[16]; /* "graphd" or "vectord" */
  char *dir;       /* temp dir: r0/, r1/ … (owned) */
  eg_pg pg;
  int n;
  eg_proc r[EG_MAX_REPLICAS];
  char dsn_flag[200]; /* "--replog-dsn=…" */
} eg_replicas;

/* PostgreSQL (durable: fsync on) and n replicas of daemon's shard 0 ("graphd": graph-0,
 * "vectord": vector-0); waits until one of them is the writer. */
eg_code eg_replicas_start_of(eg_replicas *rs, const char *daemon, int n, bool durable,
                             eg_err *err);
/* eg_replicas_start_of graphd. */
eg_code eg_replicas_start(eg_replicas *rs, int n, bool durable, eg_err *err);
/* Start replica i again (same data dir and ports) after it was stopped or killed. */
eg_code eg_replicas_restart(eg_replicas *rs, int i, eg_err *err);
/* Stop everything; remove the temp dirs unless keep. */
void eg_replicas_stop(eg_replicas *rs, bool keep);
/* The index of the replica that says it is the writer, waiting up to timeout_us; -1. */
int eg_replicas_writer(eg_replicas *rs, int64_t timeout_us);

/* A client of every replica that sends writes to the writer. */
typedef struct eg_writer_client {
  eg_replicas *rs;
  eg_rpc_client *c[EG_MAX_REPLICAS];
  int target;    /* the replica writes go to now */
  int redirects; /* UNAVAILABLE answers that named the writer */
} eg_writer_client;

eg_code eg_writer_client_open(eg_writer_client *wc, eg_replicas *rs, int64_t timeout_us,
                              eg_err *err);
void eg_writer_client_close(eg_writer_client *wc);
/* Call path ("/engram.v1.Vector/Upsert") with req, following the writer on UNAVAILABLE
 * (and past a replica that does not answer), retrying until give_up_us (monotonic); the
 * write must be safe to send again. */
eg_code eg_writer_call(eg_writer_client *wc, const char *path, const ProtobufCMessage *req,
                       const ProtobufCMessageDescriptor *resp_desc, int64_t give_up_us,
                       ProtobufCMessage **resp, eg_err *err);
/* Commit s (an identical retry is the same edge: graphd's identity), following the writer
 * on UNAVAILABLE, retrying until give_up_us (monotonic). *resp as gc_commit_resp. */
eg_code eg_writer_commit(eg_writer_client *wc, const char *tenant, const char *user,
                         const eg_edge_spec *s, int64_t give_up_us,
                         Engram__V1__CommitResponse **resp, eg_err *err);

#endif
