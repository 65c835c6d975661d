/*
 * pg_auto.c — a pg_auto_failover formation on loopback for tests (see pg_auto.h).
 */
#include "tests/pg_auto.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/time.h"
#include "tests/harness.h"
#include "tests/pg.h"
#include "tests/testlib.h"

#define PG_AUTOCTL "/usr/bin/pg_autoctl"

bool eg_pgaf_available(void) { return access(PG_AUTOCTL, X_OK) == 0; }

/* The monitor's health checks, shortened (pg_auto_failover's defaults: 5 s checks, a node
 * unhealthy after 20 s, a lost primary given 30 s to demote). */
static const char *const monitor_settings[] = {
    "pgautofailover.health_check_period = 1000",
    "pgautofailover.health_check_timeout = 1000",
    "pgautofailover.health_check_max_retries = 1",
    "pgautofailover.health_check_retry_delay = 500",
    "pgautofailover.node_considered_unhealthy_timeout = 2000",
    "pgautofailover.primary_demote_timeout = 2000",
};

/* `pg_autoctl <args>` as the server's user, in a process group of its own, its output in
 * <work>/<name>.log. */
static eg_code spawn(eg_pgaf *a, eg_pgaf_proc *p, const char *args, eg_err *err) {
  char cmd[5000], log[700];
  snprintf(log, sizeof log, "%s/%s.log", a->work, p->name);
  snprintf(cmd, sizeof cmd,
           "exec %senv PATH=%s:/usr/sbin:/usr/bin:/bin HOME=%s XDG_CONFIG_HOME=%s/config "
           "XDG_DATA_HOME=%s/share XDG_RUNTIME_DIR=%s/run " PG_AUTOCTL " %s",
           eg_pg_as_server_user(), eg_pg_bindir(), a->work, a->work, a->work, a->work, args);
  pid_t pid = fork();
  if (pid < 0) return eg_err_set(err, EG_EIO, "fork failed");
  if (pid == 0) {
    setsid();
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  p->pid = pid;
  return EG_OK;
}

/* The first value sql answers on the monitor's database ("" when it cannot). */
static void monitor_query(eg_pgaf *a, const char *sql, char *out, size_t len) {
  eg_err e;
  char dsn[200];
  snprintf(dsn, sizeof dsn, "host=127.0.0.1 port=%d user=postgres dbname=pg_auto_failover",
           a->monitor.port);
  if (eg_pg_query(dsn, sql, out, len, &e) != EG_OK) out[0] = '\0';
}

/* Wait until sql answers at least want on the monitor. */
static eg_code monitor_wait(eg_pgaf *a, const char *sql, int want, int64_t timeout_us,
                            const char *what, eg_err *err) {
  int64_t until = eg_time_mono_us() + timeout_us;
  char v[32];
  do {
    monitor_query(a, sql, v, sizeof v);
    if (v[0] && atoi(v) >= want) return EG_OK;
    usleep(100000);
  } while (eg_time_mono_us() < until);
  return eg_err_set(err, EG_ETIMEOUT, "pg_auto_failover: %s not within %lld s", what,
                    (long long)(timeout_us / EG_US_PER_SEC));
}

static eg_code start_node(eg_pgaf *a, int i, eg_err *err) {
  eg_pgaf_proc *p = &a->node[i];
  snprintf(p->name, sizeof p->name, "s%d", i + 1);
  p->port = eg_pg_free_port();
  snprintf(p->dsn, sizeof p->dsn, "host=127.0.0.1 port=%d user=postgres dbname=postgres", p->port);
  char args[1400];
  snprintf(args, sizeof args,
           "create postgres --pgdata %s/%s --pgport %d --hostname 127.0.0.1 --listen 127.0.0.1 "
           "--auth trust --no-ssl --name %s --monitor "
           "postgres://autoctl_node@127.0.0.1:%d/pg_auto_failover?sslmode=disable --run",
           a->work, p->name, p->port, p->name, a->monitor.port);
  return spawn(a, p, args, err);
}

eg_code eg_pgaf_start(eg_pgaf *a, int n, eg_err *err) {
  memset(a, 0, sizeof *a);
  if (n < 2 || n > EG_PGAF_MAX_NODES)
    return eg_err_set(err, EG_EINVAL, "2 to %d nodes", EG_PGAF_MAX_NODES);
  if (!eg_pgaf_available())
    return eg_err_set(err, EG_EPRECOND, PG_AUTOCTL " is missing (postgresql-15-auto-failover)");
  eg_code rc = eg_pg_make_dir("pgaf", &a->dir, a->work, sizeof a->work, err);
  if (rc) return rc;
  /* the monitor, its health checks shortened */
  eg_pgaf_proc *m = &a->monitor;
  snprintf(m->name, sizeof m->name, "monitor");
  m->port = eg_pg_free_port();
  char args[800];
  snprintf(args, sizeof args,
           "create monitor --pgdata %s/monitor --pgport %d --hostname 127.0.0.1 --listen "
           "127.0.0.1 --auth trust --no-ssl --run",
           a->work, m->port);
  if ((rc = spawn(a, m, args, err))) return rc;
  if ((rc = monitor_wait(a, "SELECT count(*) FROM pgautofailover.formation", 1, 30 * EG_US_PER_SEC,
                         "the monitor", err)))
    return rc;
  char v[32];
  for (size_t i = 0; i < sizeof monitor_settings / sizeof *monitor_settings; i++) {
    char sql[200];
    snprintf(sql, sizeof sql, "ALTER SYSTEM SET %s", monitor_settings[i]);
    monitor_query(a, sql, v, sizeof v);
  }
  monitor_query(a, "SELECT pg_reload_conf()", v, sizeof v);
  /* the first node becomes the primary ("single" while alone), then the standbys join */
  a->n = n;
  if ((rc = start_node(a, 0, err))) return rc;
  if ((rc = monitor_wait(a,
                         "SELECT count(*) FROM pgautofailover.node WHERE reportedstate = 'single'"
                         " AND goalstate = 'single'",
                         1, 30 * EG_US_PER_SEC, "the first node", err)))
    return rc;
  for (int i = 1; i < n; i++)
    if ((rc = start_node(a, i, err))) return rc;
  if ((rc = monitor_wait(a,
                         "SELECT count(*) FROM pgautofailover.node WHERE reportedstate = goalstate"
                         " AND reportedstate IN ('primary', 'secondary')",
                         n, 60 * EG_US_PER_SEC, "the standbys", err)))
    return rc;
  int ports[EG_PGAF_MAX_NODES];
  for (int i = 0; i < n; i++) ports[i] = a->node[i].port;
  eg_pg_multi_dsn(ports, n, "postgres", a->dsn, sizeof a->dsn);
  return EG_OK;
}

int eg_pgaf_primary(eg_pgaf *a, int64_t timeout_us) {
  int64_t until = eg_time_mono_us() + timeout_us;
  do {
    char v[32];
    monitor_query(a,
                  "SELECT nodeport FROM pgautofailover.node WHERE goalstate = reportedstate"
                  " AND reportedstate IN ('primary', 'wait_primary')",
                  v, sizeof v);
    int port = atoi(v);
    for (int i = 0; i < a->n; i++)
      if (port && a->node[i].port == port && a->node[i].pid) return i;
    if (timeout_us) usleep(100000);
  } while (eg_time_mono_us() < until);
  return -1;
}

static void end_group(eg_pgaf_proc *p, int sig) {
  if (!p->pid) return;
  kill(-p->pid, sig);
  int64_t until = eg_time_mono_us() + 10 * EG_US_PER_SEC;
  int status;
  while (waitpid(p->pid, &status, WNOHANG) == 0) {
    if (eg_time_mono_us() > until) {
      kill(-p->pid, SIGKILL);
      waitpid(p->pid, &status, 0);
      break;
    }
    usleep(20000);
  }
  kill(-p->pid, SIGKILL); /* whatever of the group outlived its leader */
  p->pid = 0;
}

eg_code eg_pgaf_kill(eg_pgaf *a, int i, eg_err *err) {
  if (i < 0 || i >= a->n || !a->node[i].pid)
    return eg_err_set(err, EG_EINVAL, "no node %d to kill", i);
  end_group(&a->node[i], SIGKILL);
  return EG_OK;
}

void eg_pgaf_stop(eg_pgaf *a, bool keep) {
  for (int i = 0; i < a->n; i++) end_group(&a->node[i], SIGTERM);
  end_group(&a->monitor, SIGTERM);
  if (!a->dir) return;
  char data[700];
  for (int i = 0; i < a->n; i++) {
    snprintf(data, sizeof data, "%s/%s", a->work, a->node[i].name);
    eg_pg_release(data);
  }
  if (keep)
    fprintf(stderr, "pg_auto_failover's logs kept in %s\n", a->work);
  else
    eg_test_rmtree(a->dir);
  free(a->dir);
  a->dir = NULL;
}
