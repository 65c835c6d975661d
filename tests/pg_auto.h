/*
 * pg_auto.h — PostgreSQL under pg_auto_failover for tests of the replicated log: a monitor
 * and a primary with standbys, each a `pg_autoctl create … --run` (Debian
 * postgresql-15-auto-failover) in a temp dir on free loopback ports, trust auth, no TLS.
 * pg_autoctl sets synchronous_standby_names = 'ANY 1 (…)' over the standbys itself, and
 * promotes one when the primary is lost. Each node (keeper and server) runs in a process
 * group of its own, so that killing the group loses the node as a dead machine would.
 * The monitor's health checks are shortened (a node is unhealthy after 2 s, a lost primary
 * is given 2 s to demote) so that a failover takes seconds, not a minute.
 */
#ifndef EG_TESTS_PG_AUTO_H
#define EG_TESTS_PG_AUTO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

#define EG_PGAF_MAX_NODES 3

typedef struct eg_pgaf_proc {
  pid_t pid; /* the process group's leader; 0 once killed or stopped */
  int port;
  char name[16];
  char dsn[160]; /* this server alone */
} eg_pgaf_proc;

typedef struct eg_pgaf {
  char *dir;      /* temp dir (owned) */
  char work[600]; /* the directory pg_autoctl works in (its PGDATAs, config, logs) */
  eg_pgaf_proc monitor;
  eg_pgaf_proc node[EG_PGAF_MAX_NODES];
  int n;
  char dsn[400]; /* every node, target_session_attrs=read-write */
} eg_pgaf;

/* Whether pg_autoctl is installed. */
bool eg_pgaf_available(void);
/* A monitor and n (2 or 3) nodes; returns once one is primary and the others secondaries
 * (within 60 s). */
eg_code eg_pgaf_start(eg_pgaf *a, int n, eg_err *err);
/* The running node the monitor has as primary (reported and assigned: primary, or
 * wait_primary while no standby is in sync), waiting up to timeout_us; -1 when none. */
int eg_pgaf_primary(eg_pgaf *a, int64_t timeout_us);
/* Lose node i: SIGKILL of its whole process group (keeper and server). */
eg_code eg_pgaf_kill(eg_pgaf *a, int i, eg_err *err);
/* Kill what is left; remove the dir unless keep (then say where the logs are). */
void eg_pgaf_stop(eg_pgaf *a, bool keep);

#endif
