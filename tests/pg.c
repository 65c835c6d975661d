/*
 * pg.c — a throwaway PostgreSQL cluster on loopback (see pg.h).
 */
#include "tests/pg.h"

#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/time.h"
#include "tests/harness.h"
#include "tests/testlib.h"

static const char *bindir(void) {
  const char *env = getenv("ENGRAM_PG_BINDIR");
  if (env && *env) return env;
  return access("/usr/lib/postgresql/15/bin/initdb", X_OK) == 0 ? "/usr/lib/postgresql/15/bin"
                                                                : "/usr/bin";
}

/* Bind a socket on loopback at port (0: one the kernel picks) and let it go: the port it was
 * bound to, -1 when it could not be (taken). */
static int try_bind(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                          .sin_port = htons((uint16_t)port)};
  socklen_t l = sizeof a;
  int got = -1;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
      getsockname(fd, (struct sockaddr *)&a, &l) == 0)
    got = ntohs(a.sin_port);
  close(fd);
  return got;
}

/* A port nobody listens on now, below the kernel's ephemeral range: a server is stopped and
 * started again on its port (a standby back after an outage), and in between an ephemeral
 * port — another test's listener bound to port 0, any outgoing connection's own end — could
 * take it (it did: "could not bind … Address already in use" on a restart under a parallel
 * ctest). Below that range only a port chosen at random the same way can (this, or
 * test_run.py's ranges), one chance in thousands. The server binds it right after; a clash
 * fails start, which picks again. */
static int free_port(void) {
  int low = 32768;
  FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
  if (f) {
    if (fscanf(f, "%d", &low) != 1) low = 32768;
    fclose(f);
  }
  int from = low - 16384 > 1024 ? low - 16384 : 1024;
  static unsigned seed;
  if (!seed) seed = (unsigned)getpid() ^ (unsigned)eg_time_mono_us();
  for (int i = 0; low - from > 0 && i < 64; i++) {
    int port = from + (int)(rand_r(&seed) % (unsigned)(low - from));
    if (try_bind(port) == port) return port;
  }
  return try_bind(0); /* no room below the range: an ephemeral one */
}

/* "runuser -u postgres -- " when we are root, else "". */
static const char *as_server_user(void) { return geteuid() == 0 ? "runuser -u postgres -- " : ""; }

int eg_pg_free_port(void) { return free_port(); }
const char *eg_pg_bindir(void) { return bindir(); }
const char *eg_pg_as_server_user(void) { return as_server_user(); }

eg_code eg_pg_make_dir(const char *prefix, char **dir, char *owned, size_t len, eg_err *err) {
  *dir = eg_test_tempdir(prefix);
  if (!*dir) return eg_err_set(err, EG_EIO, "cannot make a temp dir");
  snprintf(owned, len, "%s/pg", *dir);
  if (mkdir(owned, 0700) != 0) return eg_err_set(err, EG_EIO, "cannot make %s", owned);
  if (geteuid() == 0) {
    struct passwd *pw = getpwnam("postgres");
    if (!pw)
      return eg_err_set(err, EG_EPRECOND,
                        "running as root needs the 'postgres' account (postgresql-15)");
    chmod(*dir, 0711); /* the server's user must reach its own directory below */
    if (chown(owned, pw->pw_uid, pw->pw_gid) != 0)
      return eg_err_set(err, EG_EIO, "cannot chown %s", owned);
  }
  return EG_OK;
}

/* The temp dir and the cluster's directory in it. */
static eg_code make_dirs(eg_pg *pg, eg_err *err) {
  char owned[560];
  eg_code rc = eg_pg_make_dir("pg", &pg->dir, owned, sizeof owned, err);
  snprintf(pg->data, sizeof pg->data, "%s/data", owned);
  snprintf(pg->log, sizeof pg->log, "%s/server.log", owned);
  return rc;
}

/* pg_ctl start on pg->port (a free one, tried up to 5 times, when it is 0). */
static eg_code start_server(eg_pg *pg, eg_err *err) {
  bool pick = pg->port <= 0;
  for (int attempt = 0; attempt < (pick ? 5 : 1); attempt++) {
    if (pick) pg->port = free_port();
    if (pg->port <= 0) continue;
    int rc = eg_test_system(
        "%s%s/pg_ctl -D '%s' -l '%s' -w -t 30 -o \"-p %d -c listen_addresses=127.0.0.1 "
        "-c unix_socket_directories= -c fsync=%s -c max_connections=64 "
        "-c shared_buffers=32MB\" start >/dev/null 2>&1",
        as_server_user(), bindir(), pg->data, pg->log, pg->port, pg->durable ? "on" : "off");
    if (rc == 0) {
      pg->running = true;
      snprintf(pg->dsn, sizeof pg->dsn, "host=127.0.0.1 port=%d user=engram dbname=postgres",
               pg->port);
      return EG_OK;
    }
  }
  eg_dump_file(pg->log, 4000);
  return eg_err_set(err, EG_EIO, "PostgreSQL did not start (see its log above)");
}

eg_code eg_pg_start(eg_pg *pg, bool durable, eg_err *err) {
  memset(pg, 0, sizeof *pg);
  pg->durable = durable;
  eg_code rc = make_dirs(pg, err);
  if (rc) return rc;
  if (eg_test_system(
          "%s%s/initdb -D '%s' -A trust -U engram -E UTF8 --no-sync >'%s/initdb.log' 2>&1",
          as_server_user(), bindir(), pg->data, pg->dir) != 0) {
    char p[700];
    snprintf(p, sizeof p, "%s/initdb.log", pg->dir);
    eg_dump_file(p, 4000);
    return eg_err_set(err, EG_EIO, "initdb failed");
  }
  return start_server(pg, err);
}

void eg_pg_halt(eg_pg *pg) {
  if (pg->running)
    eg_test_system("%s%s/pg_ctl -D '%s' -m immediate -w stop >/dev/null 2>&1", as_server_user(),
                   bindir(), pg->data);
  pg->running = false;
}

eg_code eg_pg_kill(eg_pg *pg, eg_err *err) {
  char path[700];
  snprintf(path, sizeof path, "%s/postmaster.pid", pg->data);
  FILE *f = fopen(path, "r");
  long pid = 0;
  if (!f || fscanf(f, "%ld", &pid) != 1 || pid <= 1) {
    if (f) fclose(f);
    return eg_err_set(err, EG_EIO, "no postmaster pid in %s", path);
  }
  fclose(f);
  if (kill((pid_t)pid, SIGKILL) != 0)
    return eg_err_set(err, EG_EIO, "cannot kill the postmaster %ld", pid);
  pg->running = false;
  return EG_OK;
}

eg_code eg_pg_restart(eg_pg *pg, eg_err *err) {
  if (pg->running) return EG_OK;
  return start_server(pg, err);
}

void eg_pg_release(const char *data) {
  char path[700], line[128];
  snprintf(path, sizeof path, "%s/postmaster.pid", data);
  FILE *f = fopen(path, "r");
  if (!f) return; /* stopped cleanly: nothing left */
  unsigned long key = 0, id = 0;
  /* line 7: the key and id of the server's System V segment */
  for (int i = 1; i <= 7 && fgets(line, sizeof line, f); i++)
    if (i == 7 && sscanf(line, "%lu %lu", &key, &id) != 2) key = id = 0;
  fclose(f);
  struct shmid_ds ds;
  if (key && shmctl((int)id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 0)
    shmctl((int)id, IPC_RMID, NULL);
}

void eg_pg_stop(eg_pg *pg, bool keep) {
  eg_pg_halt(pg);
  if (!pg->dir) return;
  eg_pg_release(pg->data);
  if (keep)
    fprintf(stderr, "PostgreSQL's log kept in %s\n", pg->log);
  else
    eg_test_rmtree(pg->dir);
  free(pg->dir);
  pg->dir = NULL;
}

eg_code eg_pg_query(const char *dsn, const char *sql, char *out, size_t len, eg_err *err) {
  out[0] = '\0';
  PGconn *c = PQconnectdb(dsn);
  PGresult *r = PQexec(c, sql);
  eg_code rc = EG_OK;
  ExecStatusType st = PQresultStatus(r);
  if (st == PGRES_TUPLES_OK && PQntuples(r) > 0 && PQnfields(r) > 0)
    snprintf(out, len, "%s", PQgetvalue(r, 0, 0));
  else if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
    rc = eg_err_set(err, EG_EIO, "%s: %s", sql, PQerrorMessage(c));
  PQclear(r);
  PQfinish(c);
  return rc;
}

/* ---- a primary and its standbys --------------------------------------------------------- */

/* primary_conninfo of standby s, streaming from the server on port. */
static void conninfo(const eg_pg *s, int port, char *buf, size_t len) {
  snprintf(buf, len, "host=127.0.0.1 port=%d user=engram application_name=%s", port, s->name);
}

/* Standby number i (1 …) of c's primary: a base backup of it that streams from it. */
static eg_code start_standby(eg_pg_cluster *c, int i, eg_err *err) {
  eg_pg *s = &c->node[i], *p = &c->node[c->primary];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "s%d", i);
  eg_code rc = make_dirs(s, err);
  if (rc) return rc;
  char ci[200];
  conninfo(s, p->port, ci, sizeof ci);
  /* -R writes primary_conninfo (with our application_name) and standby.signal; the
   * configuration, synchronous_standby_names included, comes with the backup */
  if (eg_test_system("%s%s/pg_basebackup -D '%s' -R -X stream -c fast -d '%s' >'%s/backup.log' "
                     "2>&1",
                     as_server_user(), bindir(), s->data, ci, s->dir) != 0) {
    char path[700];
    snprintf(path, sizeof path, "%s/backup.log", s->dir);
    eg_dump_file(path, 4000);
    return eg_err_set(err, EG_EIO, "pg_basebackup of standby %s failed", s->name);
  }
  return start_server(s, err);
}

int eg_pg_cluster_streaming(eg_pg_cluster *c) {
  char v[32];
  eg_err e;
  if (eg_pg_query(c->node[c->primary].dsn,
                  "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'", v, sizeof v,
                  &e) != EG_OK)
    return -1;
  return atoi(v);
}

eg_code eg_pg_cluster_start(eg_pg_cluster *c, int standbys, eg_err *err) {
  memset(c, 0, sizeof *c);
  if (standbys < 1 || standbys >= EG_PG_CLUSTER_MAX)
    return eg_err_set(err, EG_EINVAL, "1 to %d standbys", EG_PG_CLUSTER_MAX - 1);
  c->n = standbys + 1;
  eg_code rc = eg_pg_start(&c->node[0], false, err);
  if (rc) return rc;
  /* every node's configuration (the standbys copy it): a commit waits for any one standby */
  char names[48] = "";
  for (int i = 1; i < c->n; i++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%ss%d", i > 1 ? ", " : "", i);
  snprintf(c->sync_names, sizeof c->sync_names, "ANY 1 (%s)", names);
  char conf[700];
  snprintf(conf, sizeof conf, "%s/postgresql.conf", c->node[0].data);
  FILE *f = fopen(conf, "a");
  if (!f) return eg_err_set(err, EG_EIO, "cannot open %s", conf);
  fprintf(f, "\nsynchronous_commit = on\nsynchronous_standby_names = '%s'\n", c->sync_names);
  fclose(f);
  char ignored[8];
  if ((rc = eg_pg_query(c->node[0].dsn, "SELECT pg_reload_conf()", ignored, sizeof ignored, err)))
    return rc;
  for (int i = 1; i < c->n; i++)
    if ((rc = start_standby(c, i, err))) return rc;
  int64_t until = eg_time_mono_us() + 30 * EG_US_PER_SEC;
  while (eg_pg_cluster_streaming(c) < standbys) {
    if (eg_time_mono_us() > until)
      return eg_err_set(err, EG_ETIMEOUT, "the standbys do not stream from the primary");
    usleep(50000);
  }
  int ports[EG_PG_CLUSTER_MAX];
  for (int i = 0; i < c->n; i++) ports[i] = c->node[i].port;
  eg_pg_multi_dsn(ports, c->n, "engram", c->dsn, sizeof c->dsn);
  return EG_OK;
}

void eg_pg_multi_dsn(const int *ports, int n, const char *user, char *out, size_t len) {
  char hosts[200] = "", list[200] = "";
  for (int i = 0; i < n; i++) {
    snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts), "%s127.0.0.1", i ? "," : "");
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? "," : "", ports[i]);
  }
  snprintf(out, len, "host=%s port=%s user=%s dbname=postgres target_session_attrs=read-write",
           hosts, list, user);
}

/* How far standby s has WAL (received or replayed), in bytes; -1 when it cannot say. */
static long long wal_of(const eg_pg *s) {
  char v[32];
  eg_err e;
  if (eg_pg_query(s->dsn,
                  "SELECT pg_wal_lsn_diff(GREATEST(coalesce(pg_last_wal_receive_lsn(), '0/0'),"
                  " coalesce(pg_last_wal_replay_lsn(), '0/0')), '0/0')::bigint",
                  v, sizeof v, &e) != EG_OK ||
      !v[0])
    return -1;
  return atoll(v);
}

eg_code eg_pg_cluster_promote(eg_pg_cluster *c, int *promoted, eg_err *err) {
  int best = -1;
  long long best_wal = -1;
  for (int i = 0; i < c->n; i++) {
    if (i == c->primary || !c->node[i].running) continue;
    long long w = wal_of(&c->node[i]);
    fprintf(stderr, "  standby %s has WAL to %lld\n", c->node[i].name, w);
    if (w > best_wal) best = i, best_wal = w;
  }
  if (best < 0) return eg_err_set(err, EG_EUNAVAIL, "no running standby to promote");
  eg_pg *np = &c->node[best];
  if (eg_test_system("%s%s/pg_ctl -D '%s' -w -t 30 promote >/dev/null 2>&1", as_server_user(),
                     bindir(), np->data) != 0)
    return eg_err_set(err, EG_EIO, "pg_ctl promote of %s failed", np->name);
  c->primary = best;
  for (int i = 0; i < c->n; i++) {
    if (i == best || !c->node[i].running) continue;
    char ci[200], sql[400], ignored[8];
    conninfo(&c->node[i], np->port, ci, sizeof ci);
    snprintf(sql, sizeof sql, "ALTER SYSTEM SET primary_conninfo = '%s'", ci);
    eg_code rc = eg_pg_query(c->node[i].dsn, sql, ignored, sizeof ignored, err);
    if (!rc)
      rc = eg_pg_query(c->node[i].dsn, "SELECT pg_reload_conf()", ignored, sizeof ignored, err);
    if (rc) return rc;
  }
  if (promoted) *promoted = best;
  return EG_OK;
}

void eg_pg_cluster_stop(eg_pg_cluster *c, bool keep) {
  for (int i = 0; i < c->n; i++) eg_pg_stop(&c->node[i], keep);
}
