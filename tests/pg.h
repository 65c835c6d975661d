/*
 * pg.h — a real PostgreSQL server for tests and benchmarks of the replicated log.
 *
 * initdb and pg_ctl (Debian postgresql-15; ENGRAM_PG_BINDIR overrides where they are) in
 * a temp dir, listening on a free loopback port only (no Unix socket), trust auth for
 * the role "engram". PostgreSQL refuses to run as root: as root the server runs as the
 * unprivileged "postgres" account the Debian package creates (runuser), which owns the
 * cluster's directory.
 */
#ifndef EG_TESTS_PG_H
#define EG_TESTS_PG_H

#include <stdbool.h>

#include "common/err.h"

typedef struct eg_pg {
  char *dir;      /* temp dir holding the cluster and its log (owned) */
  char data[600]; /* the cluster's data directory */
  char log[600];  /* the server's log */
  int port;
  char dsn[160]; /* "host=127.0.0.1 port=… user=engram dbname=postgres" */
  bool running;
} eg_pg;

/* initdb and start (waits until it accepts connections). durable = false turns fsync off
 * (tests: faster, nothing survives a machine crash anyway); benchmarks keep it on. */
eg_code eg_pg_start(eg_pg *pg, bool durable, eg_err *err);
/* Stop at once (pg_ctl -m immediate) and remove the dir unless keep (then say where the
 * log is). Accepts a pg that never started. */
void eg_pg_stop(eg_pg *pg, bool keep);

#endif
