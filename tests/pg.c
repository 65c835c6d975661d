/*
 * pg.c — a throwaway PostgreSQL cluster on loopback (see pg.h).
 */
#include "tests/pg.h"

#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/testlib.h"

static const char *bindir(void) {
  const char *env = getenv("ENGRAM_PG_BINDIR");
  if (env && *env) return env;
  return access("/usr/lib/postgresql/15/bin/initdb", X_OK) == 0 ? "/usr/lib/postgresql/15/bin"
                                                                : "/usr/bin";
}

/* A port nobody listens on now (the server binds it right after; a clash fails start). */
static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t l = sizeof a;
  int port = -1;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
      getsockname(fd, (struct sockaddr *)&a, &l) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

/* "runuser -u postgres -- " when we are root, else "". */
static const char *as_server_user(void) { return geteuid() == 0 ? "runuser -u postgres -- " : ""; }

eg_code eg_pg_start(eg_pg *pg, bool durable, eg_err *err) {
  memset(pg, 0, sizeof *pg);
  pg->dir = eg_test_tempdir("pg");
  if (!pg->dir) return eg_err_set(err, EG_EIO, "cannot make a temp dir");
  char owned[560];
  snprintf(owned, sizeof owned, "%s/pg", pg->dir);
  snprintf(pg->data, sizeof pg->data, "%s/data", owned);
  snprintf(pg->log, sizeof pg->log, "%s/server.log", owned);
  if (mkdir(owned, 0700) != 0) return eg_err_set(err, EG_EIO, "cannot make %s", owned);
  if (geteuid() == 0) {
    struct passwd *pw = getpwnam("postgres");
    if (!pw)
      return eg_err_set(err, EG_EPRECOND,
                        "running as root needs the 'postgres' account (postgresql-15)");
    chmod(pg->dir, 0711); /* the server's user must reach its own directory below */
    if (chown(owned, pw->pw_uid, pw->pw_gid) != 0)
      return eg_err_set(err, EG_EIO, "cannot chown %s", owned);
  }
  const char *bin = bindir(), *su = as_server_user();
  if (eg_test_system(
          "%s%s/initdb -D '%s' -A trust -U engram -E UTF8 --no-sync >'%s/initdb.log' 2>&1", su, bin,
          pg->data, pg->dir) != 0) {
    char p[700];
    snprintf(p, sizeof p, "%s/initdb.log", pg->dir);
    eg_dump_file(p, 4000);
    return eg_err_set(err, EG_EIO, "initdb failed");
  }
  for (int attempt = 0; attempt < 5; attempt++) {
    pg->port = free_port();
    if (pg->port <= 0) continue;
    int rc = eg_test_system(
        "%s%s/pg_ctl -D '%s' -l '%s' -w -t 30 -o \"-p %d -c listen_addresses=127.0.0.1 "
        "-c unix_socket_directories= -c fsync=%s -c max_connections=64 "
        "-c shared_buffers=32MB\" start >/dev/null 2>&1",
        su, bin, pg->data, pg->log, pg->port, durable ? "on" : "off");
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

void eg_pg_stop(eg_pg *pg, bool keep) {
  if (pg->running)
    eg_test_system("%s%s/pg_ctl -D '%s' -m immediate -w stop >/dev/null 2>&1", as_server_user(),
                   bindir(), pg->data);
  pg->running = false;
  if (!pg->dir) return;
  if (keep)
    fprintf(stderr, "PostgreSQL's log kept in %s\n", pg->log);
  else
    eg_test_rmtree(pg->dir);
  free(pg->dir);
  pg->dir = NULL;
}
