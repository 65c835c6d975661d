/*
 * engram — the command-line client: one subcommand per RPC.
 *
 *   engram [--addr host:port] [--token T] [--tls-ca FILE] [--json] [--timeout-ms N] <command>
 * [args]
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/time.h"

extern char **environ;

static const eg_cfg_opt cli_opts[] = {
    {"addr", EG_CFG_STR, "", "address of the daemon for single-service commands", 0, 0, 0},
    {"token", EG_CFG_STR, "", "bearer token (or ENGRAM_TOKEN)", EG_CFG_SECRET, 0, 0},
    {"json", EG_CFG_BOOL, "false", "print JSON", 0, 0, 0},
    {"tls_ca", EG_CFG_STR, "", "PEM roots: connect over TLS and verify the daemons' certificates",
     0, 0, 0},
    {"tls_server_name", EG_CFG_STR, "",
     "name the certificates must carry (default: the address's host)", 0, 0, 0},
    {"timeout_ms", EG_CFG_INT, "10000", "deadline per call", 0, 1, 3600000},
    {"ingestd_addr", EG_CFG_STR, "127.0.0.1:7101", "ingestd address", 0, 0, 0},
    {"graphd_addr", EG_CFG_STR, "127.0.0.1:7102", "graphd address", 0, 0, 0},
    {"vectord_addr", EG_CFG_STR, "127.0.0.1:7103", "vectord address", 0, 0, 0},
    {"recalld_addr", EG_CFG_STR, "127.0.0.1:7104", "recalld address", 0, 0, 0},
    {"tenant", EG_CFG_STR, "default", "scope.tenant of requests", 0, 0, 0},
    {"user", EG_CFG_STR, "", "scope.user of requests", 0, 0, 0},
    {"agent", EG_CFG_STR, "", "scope.agent of requests", 0, 0, 0},
    {"at", EG_CFG_STR, "", "valid time (ISO-8601); empty = now", 0, 0, 0},
    {"known_at", EG_CFG_STR, "", "transaction time: what was known then (ISO-8601)", 0, 0, 0},
    {"from", EG_CFG_STR, "", "start of a time window (ISO-8601)", 0, 0, 0},
    {"to", EG_CFG_STR, "", "end of a time window (ISO-8601)", 0, 0, 0},
    {"session", EG_CFG_STR, "", "session id filter", 0, 0, 0},
    {"depth", EG_CFG_INT, "0", "traversal / walk depth (0 = server default)", 0, 0, 16},
    {"relations", EG_CFG_STR, "", "comma-separated relation filter", 0, 0, 0},
    {"limit", EG_CFG_INT, "0", "maximum entries (0 = server default)", 0, 0, 100000},
    /* No upper bound here: the server's max_k is the limit (recalld 100, vectord 1000 by
     * default, configurable), so its INVALID_ARGUMENT says what it is. */
    {"k", EG_CFG_INT, "10", "results per query (at most the server's max_k)", 0, 1, UINT32_MAX},
    {"async", EG_CFG_BOOL, "false", "ingest: answer when queued, with a job id and watermark", 0, 0,
     0},
    {"wait", EG_CFG_BOOL, "false",
     "ingest, job: queue (as --async), then wait until the job is done", 0, 0, 0},
    {"confirm_tenant", EG_CFG_STR, "", "erase: the tenant again, to erase all of it (no --user)", 0,
     0, 0},
    {"document_id", EG_CFG_STR, "",
     "ingest document of plain text: its id (default: the file name)", 0, 0, 0},
    {"title", EG_CFG_STR, "", "ingest document of plain text: its title", 0, 0, 0},
    {"budget", EG_CFG_INT, "0", "recall: token budget of the context block (0 = server default)", 0,
     0, 1000000},
    {"parallel", EG_CFG_INT, "4", "ingest bulk: requests in flight", 0, 1, 256},
    {"resume", EG_CFG_BOOL, "false", "ingest bulk: continue after the lines recorded as done", 0, 0,
     0},
    {"state_file", EG_CFG_STR, "", "ingest bulk: resume state (default FILE.progress)", 0, 0, 0},
    {"role", EG_CFG_STR, "user", "token: user, admin (may erase) or service (daemons)", 0, 0, 0},
    {"progress", EG_CFG_STR, "auto",
     "ingest bulk, --wait: progress line on stderr: auto (a terminal), on, off", 0, 0, 0},
    {"note", EG_CFG_STR, "", "graph outcome: a note on what happened", 0, 0, 0},
    {"source", EG_CFG_STR, "", "graph outcome: where it came from (default client)", 0, 0, 0},
    {"chunk", EG_CFG_STR, "", "retention get: a chunk id (repeat, or comma-separated)", EG_CFG_LIST,
     0, 0},
    {"fact", EG_CFG_STR, "", "retention get: a fact's edge id (repeat, or comma-separated)",
     EG_CFG_LIST, 0, 0},
    {"set", EG_CFG_STR, "", "retention policy: key=value to change (repeat)", EG_CFG_LIST, 0, 0},
};

typedef struct command {
  const char *name;
  int (*fn)(const eg_cli *, int, char **);
  const char *help;
} command;

static int cmd_version(const eg_cli *cli, int argc, char **argv) {
  (void)cli, (void)argc, (void)argv;
  printf("engram %s (%s)\n", eg_version(), eg_build_commit());
  return 0;
}

static const command commands[] = {
    {"health", eg_cli_health, "check grpc.health.v1 on all four daemons (or --addr)"},
    {"graph", eg_cli_graph,
     "state|history|changes|traverse|walk|commit|outcome on graphd (changes: by transaction time)"},
    {"vector", eg_cli_vector, "upsert|search|delete on vectord"},
    {"recall", eg_cli_recall,
     "\"question\" [--at T] [--known-at T]: the context recalld assembles"},
    {"ingest", eg_cli_ingest,
     "session|document|facts FILE [--async|--wait], bulk FILE.jsonl on ingestd"},
    {"job", eg_cli_job, "JOB_ID [--wait]: the state of an async ingest (ingestd GetJob)"},
    {"relations", eg_cli_relations,
     "built-in and declared relations with their cardinality (graphd)"},
    {"erase", eg_cli_erase,
     "--user U | --confirm-tenant T: erase a user's or a tenant's memory (admin)"},
    {"retention", eg_cli_retention,
     "get [--chunk ID]... [--fact ID]... [--at T] | policy [--set k=v]... | sweep [--at T] "
     "(admin)"},
    {"token", eg_cli_token,
     "new|hash [--tenant T] [--role R]: a bearer token and its tokens-file line"},
    {"call", eg_cli_call_any, "any RPC: engram call Graph/State '{\"scope\":…}'"},
    {"version", cmd_version, "print the version"},
};

const char *eg_cli_daemon_addr(const eg_cli *cli, const char *daemon) {
  if (cli->addr && *cli->addr) return cli->addr;
  char name[64];
  snprintf(name, sizeof name, "%s_addr", daemon);
  return eg_cfg_str(cli->cfg, name);
}

eg_rpc_client *eg_cli_connect(const eg_cli *cli, const char *addr) {
  eg_rpc_client_opts o = {.timeout_us = cli->timeout_us,
                          .max_attempts = 2,
                          .token = eg_cfg_str(cli->cfg, "token"),
                          .tls_server_name = eg_cfg_str(cli->cfg, "tls_server_name"),
                          .tls_ca_file = eg_cfg_str(cli->cfg, "tls_ca")};
  eg_rpc_client *c = NULL;
  eg_err err;
  if (eg_rpc_client_open(addr, &o, &c, &err)) {
    fprintf(stderr, "engram: %s\n", err.msg);
    return NULL;
  }
  return c;
}

static void usage(const eg_cfg *cfg) {
  printf("usage: engram [options] <command> [args]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    printf("  %-10s %s\n", commands[i].name, commands[i].help);
  printf("\noptions (flag, environment, default):\n");
  if (cfg) eg_cfg_usage(cfg, stdout);
}

int main(int argc, char **argv) {
  const eg_cfg_opt *tables[1] = {cli_opts};
  size_t sizes[1] = {sizeof cli_opts / sizeof *cli_opts};
  eg_cfg *cfg = NULL;
  eg_err err;
  eg_log_init("engram", EG_LOG_WARN);
  if (eg_cfg_load(tables, sizes, 1, argc, argv, environ, &cfg, &err)) {
    fprintf(stderr, "engram: %s\n", err.msg);
    return 2;
  }
  char **args;
  int n = eg_cfg_args(cfg, &args);
  if (eg_cfg_help_requested(cfg) || n == 0) {
    usage(cfg);
    eg_cfg_free(cfg);
    return n == 0 && !eg_cfg_help_requested(cfg) ? 2 : 0;
  }
  eg_cli cli = {cfg, eg_cfg_bool(cfg, "json"), eg_cfg_str(cfg, "addr"),
                eg_cfg_int(cfg, "timeout_ms") * 1000};
  int rc = 2;
  size_t i;
  for (i = 0; i < sizeof commands / sizeof *commands; i++) {
    if (strcmp(args[0], commands[i].name) == 0) {
      eg_rpc_global_init();
      rc = commands[i].fn(&cli, n, args);
      eg_rpc_global_shutdown();
      break;
    }
  }
  if (i == sizeof commands / sizeof *commands)
    fprintf(stderr, "engram: unknown command '%s' (see engram --help)\n", args[0]);
  eg_cfg_free(cfg);
  return rc;
}
