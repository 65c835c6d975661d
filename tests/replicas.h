/*
 * replicas.h — graphd or vectord replicas of one shard over a real PostgreSQL log, for
 * the replication tests and benchmark: the cluster (tests/pg.h + tests/harness.h), which one
 * is the writer (its /metrics), and a client that follows the writer the way a real one
 * would — on UNAVAILABLE it reads "writer=<addr>" from the message, else tries the next.
 */
#ifndef EG_TESTS_REPLICAS_H
#define EG_TESTS_REPLICAS_H

#include <stdatomic.h>
#include <stdbool.h>

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
  char dsn[400];      /* the log's DSN */
  char dsn_flag[420]; /* "--replog-dsn=…" */
} eg_replicas;

/* PostgreSQL (durable: fsync on) and n replicas of daemon's shard 0 ("graphd": graph-0,
 * "vectord": vector-0); waits until one of them is the writer. */
eg_code eg_replicas_start_of(eg_replicas *rs, const char *daemon, int n, bool durable, eg_err *err);
/* n replicas of daemon's shard 0 over the log at dsn (a PostgreSQL the caller runs, e.g.
 * an eg_pg_cluster's); waits until one of them is the writer. */
eg_code eg_replicas_start_on(eg_replicas *rs, const char *daemon, int n, const char *dsn,
                             eg_err *err);
/* eg_replicas_start_of graphd. */
eg_code eg_replicas_start(eg_replicas *rs, int n, bool durable, eg_err *err);
/* Start replica i again (same data dir and ports) after it was stopped or killed. */
eg_code eg_replicas_restart(eg_replicas *rs, int i, eg_err *err);
/* Start replica i again from an empty data dir (stopping it first): it replays the whole
 * log. */
eg_code eg_replicas_restart_empty(eg_replicas *rs, int i, eg_err *err);
/* How many records of the log of shard hold text in their bytes (-1: the log cannot be
 * read). */
int eg_replicas_log_holds(eg_replicas *rs, const char *shard, const char *text);
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
/* A write of req to replica c, prepared by a typed client (eg_vectord_upsert_call). */
typedef eg_rpc_request (*eg_write_at_fn)(eg_rpc_client *c, const void *req);
/* Send the write at(…, req), following the writer on UNAVAILABLE (and past a replica that
 * does not answer), retrying until give_up_us (monotonic); the write must be safe to send
 * again. The response is dropped. */
eg_code eg_writer_call(eg_writer_client *wc, eg_write_at_fn at, const void *req, int64_t give_up_us,
                       eg_err *err);
/* Commit s (an identical retry is the same edge: graphd's identity), following the writer
 * on UNAVAILABLE, retrying until give_up_us (monotonic). *resp as gc_commit_resp. */
eg_code eg_writer_commit(eg_writer_client *wc, const char *tenant, const char *user,
                         const eg_edge_spec *s, int64_t give_up_us,
                         Engram__V1__CommitResponse **resp, eg_err *err);

/* A test of a replication test program. */
typedef struct eg_replicas_test {
  const char *name;
  void (*fn)(void);
} eg_replicas_test;

/* A replication test program: PostgreSQL and n replicas of daemon (fsync off), one client
 * per replica in cl (10 s deadline, no retries), the tests, then everything stopped (kept
 * for a look when one failed). Returns the program's exit status. */
int eg_replicas_run(eg_replicas *rs, const char *daemon, int n, eg_rpc_client **cl,
                    const eg_replicas_test *tests, size_t n_tests);

/* The same message, byte for byte once packed (replicas answering alike). */
bool eg_same_message(const ProtobufCMessage *a, const ProtobufCMessage *b);

/* ---- a writer killed under load ---- */

/* Write number i of a load (safe to send again), following the writer until give_up_us. */
typedef eg_code (*eg_load_write_fn)(eg_writer_client *wc, int i, void *ctx, int64_t give_up_us,
                                    eg_err *err);

#define EG_LOAD_MAX 20000

/* A client writing continuously from a thread of its own: writes 0, 1, 2 …, each until
 * acknowledged or 30 s have passed. */
typedef struct eg_load {
  eg_load_write_fn write;
  void *ctx;
  _Atomic bool stop;
  _Atomic int sent; /* writes tried */
  bool acked[EG_LOAD_MAX];
  int64_t acked_at[EG_LOAD_MAX]; /* monotonic µs */
  int failures;                  /* writes that failed once and were sent again */
  int redirects;
} eg_load;

typedef struct eg_failover {
  int killed, writer;      /* the replica killed; the writer after it (-1: none) */
  int before, sent, acked; /* writes tried before the kill, tried, acknowledged */
  double seconds;          /* from the kill to the first write sent and acknowledged after it; -1 */
  double outage;           /* the longest time without an acknowledged write after the kill */
} eg_failover;

/* Run ld against rs for run_us, kill the writer with SIGKILL, wait (up to 20 s) for a
 * write sent and acknowledged after the kill, run run_us more, stop; say what happened on
 * stderr. */
eg_code eg_failover_under_load(eg_replicas *rs, eg_load *ld, int64_t run_us, eg_failover *out,
                               eg_err *err);

/* What a failover kills (and does to recover, e.g. promote a standby); out->killed may
 * name the replica killed. */
typedef eg_code (*eg_kill_fn)(eg_replicas *rs, void *ctx, eg_failover *out, eg_err *err);
/* eg_failover_under_load, the kill being kill(rs, ctx, …) at run_us. */
eg_code eg_failover_under_load_by(eg_replicas *rs, eg_load *ld, int64_t run_us, eg_kill_fn kill,
                                  void *ctx, eg_failover *out, eg_err *err);

/* ---- the graphd load: commit i is "person i" LIVES_IN "city-i" ---- */

void eg_load_subject(int i, char *buf, size_t n); /* "person i" */
/* An eg_load_write_fn: commit i for the tenant ctx (a const char *); an identical retry is
 * the same edge (graphd's identity). */
eg_code eg_load_commit_city(eg_writer_client *wc, int i, void *ctx, int64_t give_up_us,
                            eg_err *err);
/* count[i] (i < sent): the edges of commit i graphd c holds for tenant (Changes);
 * *other: edges that are no load's. */
eg_code eg_load_count_edges(eg_rpc_client *c, const char *tenant, int sent, int *count, int *other,
                            eg_err *err);
/* count[i] (i < sent): the records of shard's log (at dsn) that hold commit i; -1: the
 * log cannot be read. */
int eg_load_count_records(const char *dsn, const char *shard, int sent, int *count);

/* What became of the load's first `sent` commits. */
typedef struct eg_load_verdict {
  int acked;    /* acknowledged to the client */
  int lost;     /* acknowledged, not in graphd */
  int dup;      /* in graphd more than once (acknowledged or not) */
  int unlogged; /* acknowledged, in no record of the log (0 when the log was not read) */
  int other;    /* graphd's edges of the tenant that are no load's */
} eg_load_verdict;
/* The verdict from graphd replica c (Changes of tenant) and, when dsn is not NULL, the log
 * of shard at dsn; said on stderr. */
eg_code eg_load_verdict_of(const eg_load *ld, int sent, eg_rpc_client *c, const char *tenant,
                           const char *dsn, const char *shard, eg_load_verdict *v, eg_err *err);
/* Wait (up to timeout_us) until replica f has applied what replica w has (their
 * engram_<daemon>_replication_applied_seq). */
bool eg_replicas_caught_up(eg_replicas *rs, int f, int w, int64_t timeout_us);

#endif
