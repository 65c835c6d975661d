/*
 * cli_health.c — `engram health`: grpc.health.v1.Health/Check on every daemon, and which
 * daemon answered. Each daemon reports its own service names (engram.v1.Graph …) as known
 * and any other as NOT_FOUND, so asking for them tells who is at an address: with --addr
 * the line names that daemon, and an address of the four that reaches another daemon than
 * the one expected is an error. Exit code 0 only when every daemon checked answers SERVING
 * (and is the one expected).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/health_client.h"
#include "common/time.h"

static const struct {
  const char *daemon, *service;
} who[] = {{"ingestd", "engram.v1.Ingest"},
           {"graphd", "engram.v1.Graph"},
           {"vectord", "engram.v1.Vector"},
           {"recalld", "engram.v1.Recall"}};
enum { N_DAEMONS = sizeof who / sizeof *who };

static const char *status_name(int s) {
  switch (s) {
    case GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING:
      return "SERVING";
    case GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING:
      return "NOT_SERVING";
    default:
      return "UNKNOWN";
  }
}

/* The daemon serving at c: the expected one first (one call when it is), then the others;
 * "?" when none of the service names is known there. */
static const char *identify(eg_rpc_client *c, int expected) {
  for (int k = 0; k < N_DAEMONS; k++) {
    int i = expected >= 0 ? (expected + k) % N_DAEMONS : k, status;
    eg_err e;
    if (eg_health_status(c, who[i].service, &status, &e) == EG_OK) return who[i].daemon;
  }
  return "?";
}

int eg_cli_health(const eg_cli *cli, int argc, char **argv) {
  (void)argv;
  if (argc > 1) {
    fprintf(stderr, "engram health: takes no arguments (use --addr or --<daemon>-addr)\n");
    return 2;
  }
  bool one = cli->addr && *cli->addr;
  size_t n = one ? 1 : N_DAEMONS;
  int bad = 0;
  if (cli->json) printf("{");
  for (size_t i = 0; i < n; i++) {
    const char *addr = one ? cli->addr : eg_cli_daemon_addr(cli, who[i].daemon);
    const char *name = one ? "daemon" : who[i].daemon, *found = "";
    eg_rpc_client *c = eg_cli_connect(cli, addr);
    const char *status = "UNREACHABLE";
    char detail[300] = "";
    double ms = 0;
    if (c) {
      eg_err err;
      int st = 0;
      int64_t t0 = eg_time_mono_us();
      eg_code rc = eg_health_status(c, "", &st, &err);
      ms = (double)(eg_time_mono_us() - t0) / 1000.0;
      if (rc == EG_OK) {
        status = status_name(st);
        found = identify(c, one ? -1 : (int)i);
        if (one)
          name = found;
        else if (strcmp(found, who[i].daemon) != 0)
          snprintf(detail, sizeof detail, "this address serves %s, not %s", found, who[i].daemon);
      } else {
        status = rc == EG_EUNAVAIL ? "UNREACHABLE" : eg_code_name(rc);
        snprintf(detail, sizeof detail, "%s", err.msg);
      }
      eg_rpc_client_close(c);
    }
    bad += status[0] != 'S' || (!one && *found && strcmp(found, who[i].daemon) != 0);
    if (cli->json) {
      printf("%s\"%s\":{\"addr\":\"%s\",\"status\":\"%s\",\"daemon\":\"%s\",\"latency_ms\":%.3f}",
             i ? "," : "", name, addr, status, found, ms);
    } else {
      printf("%-8s %-22s %-12s %7.2f ms%s%s\n", name, addr, status, ms, detail[0] ? "  " : "",
             detail);
    }
  }
  if (cli->json) printf("}\n");
  return bad ? 1 : 0;
}
