/*
 * cli.h — shared pieces of the `engram` command-line tool.
 *
 * Global options come from the same layered config as the daemons (so ENGRAM_TOKEN,
 * ENGRAM_ADDR … work): --addr, --token, --json, --timeout-ms and the four daemon
 * addresses. Each subcommand is one function in a cli_<area>.c file.
 */
#ifndef EG_CLI_H
#define EG_CLI_H

#include <stdbool.h>

#include "common/cfg.h"
#include "common/rpc.h"

typedef struct eg_cli {
  const eg_cfg *cfg;
  bool json;      /* --json: machine-readable output on stdout */
  const char *addr; /* --addr: overrides the daemon address of a single-service command */
  int64_t timeout_us;
} eg_cli;

/* The address of a daemon ("graphd") honouring --addr, else --<daemon>-addr. */
const char *eg_cli_daemon_addr(const eg_cli *cli, const char *daemon);
/* A client for addr with the CLI's token and timeout; NULL (message printed) on error. */
eg_rpc_client *eg_cli_connect(const eg_cli *cli, const char *addr);

/* Subcommands: argv[0] is the subcommand name. Return the process exit code. */
int eg_cli_health(const eg_cli *cli, int argc, char **argv);

#endif
