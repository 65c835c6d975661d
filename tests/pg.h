/*
 * pg.h — a real PostgreSQL server for tests and benchmarks of the replicated log.
 *
 * initdb and pg_ctl (Debian postgresql-15; ENGRAM_PG_BINDIR overrides where they are) in
 * a temp dir, listening on a free loopback port only (no Unix socket), trust auth for
 * the role "engram". PostgreSQL refuses to run as root: as root the server runs as the
 * unprivileged "postgres" account the Debian package creates (runuser), which owns the
 * cluster's directory. A cluster of a primary and streaming standbys (eg_pg_cluster) tests
 * the log's quorum commit and a failover of PostgreSQL itself.
 */
#ifndef EG_TESTS_PG_H
#define EG_TESTS_PG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

typedef struct eg_pg {
  char *dir;      /* temp dir holding the cluster and its log (owned) */
  char data[600]; /* the cluster's data directory */
  char log[600];  /* the server's log */
  int port;
  char dsn[160]; /* "host=127.0.0.1 port=… user=engram dbname=postgres" */
  bool running;
  bool durable;
  char name[16]; /* a standby's application_name ("s1" …); "" for a cluster's first primary */
} eg_pg;

/* initdb and start (waits until it accepts connections). durable = false turns fsync off
 * (tests: faster, nothing survives a machine crash anyway); benchmarks keep it on. */
eg_code eg_pg_start(eg_pg *pg, bool durable, eg_err *err);
/* Stop at once (pg_ctl -m immediate) and remove the dir unless keep (then say where the
 * log is). Accepts a pg that never started. */
void eg_pg_stop(eg_pg *pg, bool keep);
/* Stop at once (pg_ctl -m immediate), keeping the cluster to start again. */
void eg_pg_halt(eg_pg *pg);
/* SIGKILL of the postmaster (its backends end as they notice); the cluster is kept. */
eg_code eg_pg_kill(eg_pg *pg, eg_err *err);
/* A killed server's System V segment (56 bytes, which nothing else removes), removed
 * once no process is attached. */
void eg_pg_release(const char *data);
/* Start a stopped or killed cluster again, on its port. */
eg_code eg_pg_restart(eg_pg *pg, eg_err *err);
/* The first value of the first row sql answers on dsn, as text, into out (len ≥ 1); a
 * statement without rows leaves "". EG_EIO with the server's message. */
eg_code eg_pg_query(const char *dsn, const char *sql, char *out, size_t len, eg_err *err);

/* For tests/pg_auto.c: a loopback port nobody listens on now (-1); the directory of
 * PostgreSQL's programs; "runuser -u postgres -- " when we are root, else "". */
int eg_pg_free_port(void);
/* The DSN of n nodes on loopback at ports[] as user, the primary chosen by libpq
 * (target_session_attrs=read-write), into out. */
void eg_pg_multi_dsn(const int *ports, int n, const char *user, char *out, size_t len);
const char *eg_pg_bindir(void);
const char *eg_pg_as_server_user(void);
/* A temp dir (*dir, owned: free it) with a directory "pg" in it (owned, len bytes) that the
 * server's user owns. */
eg_code eg_pg_make_dir(const char *prefix, char **dir, char *owned, size_t len, eg_err *err);

/* ---- a primary and its streaming standbys: synchronous quorum commit ---- */

#define EG_PG_CLUSTER_MAX 3

typedef struct eg_pg_cluster {
  eg_pg node[EG_PG_CLUSTER_MAX]; /* node 0 the first primary; standbys s1, s2 … */
  int n;
  int primary;         /* the node that is the primary now */
  char dsn[400];       /* every node, target_session_attrs=read-write: reaches the primary */
  char sync_names[64]; /* synchronous_standby_names: "ANY 1 (s1, s2)" */
} eg_pg_cluster;

/*
 * A primary and `standbys` (1 or 2) standbys of it (pg_basebackup -R, streaming, each
 * named by its application_name s1, s2 …), fsync off. Every node has synchronous_commit =
 * on and synchronous_standby_names = 'ANY 1 (s1, s2 …)': a commit returns once one
 * standby has flushed it. Waits until every standby streams.
 */
eg_code eg_pg_cluster_start(eg_pg_cluster *c, int standbys, eg_err *err);
/*
 * The primary is gone: promote the running standby with the most WAL (received or
 * replayed — everything a commit was acknowledged for is there: the quorum is any one of
 * them) with pg_ctl promote, point the other running standbys at it, and make it
 * c->primary. *promoted (may be NULL): its index.
 */
eg_code eg_pg_cluster_promote(eg_pg_cluster *c, int *promoted, eg_err *err);
/* The standbys of the primary now that stream from it (pg_stat_replication); -1. */
int eg_pg_cluster_streaming(eg_pg_cluster *c);
void eg_pg_cluster_stop(eg_pg_cluster *c, bool keep);

#endif
