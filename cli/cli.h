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

#include "common/arena.h"
#include "common/cfg.h"
#include "common/pbjson.h"
#include "common/rpc.h"
#include "proto/engram/v1/common.pb-c.h"
#include "proto/engram/v1/ingest.pb-c.h"

typedef struct eg_cli {
  const eg_cfg *cfg;
  bool json;        /* --json: machine-readable output on stdout */
  const char *addr; /* --addr: overrides the daemon address of a single-service command */
  int64_t timeout_us;
} eg_cli;

/* The address of a daemon ("graphd") honouring --addr, else --<daemon>-addr. */
const char *eg_cli_daemon_addr(const eg_cli *cli, const char *daemon);
/* A client for addr with the CLI's token and timeout; NULL (message printed) on error. */
eg_rpc_client *eg_cli_connect(const eg_cli *cli, const char *addr);

/* Scope from --tenant/--user/--agent (arena-allocated). */
Engram__V1__Scope *eg_cli_scope(const eg_cli *cli, eg_arena *a);
/* An ISO-8601 option as µs (0 when empty); -1 (message printed) when malformed. */
int eg_cli_time(const eg_cli *cli, const char *option, int64_t *out);
/* A date when the time is midnight, else full ISO-8601; "-" for 0. */
void eg_cli_format_time(int64_t us, char *buf, size_t len);
/* The text of an argument: itself, "@file", or "-" for stdin. Arena string or NULL. */
char *eg_cli_read_input(const char *arg, eg_arena *a);
/* The text of a file argument ("-" = stdin). Arena string or NULL (message printed). */
char *eg_cli_read_file(const char *path, eg_arena *a);
/* A JSON request of desc read from a file argument ("-" = stdin), its scope from
 * --tenant/--user/--agent when it has none. NULL (message printed) on error. */
ProtobufCMessage *eg_cli_read_request(const eg_cli *cli, const char *path,
                                      const ProtobufCMessageDescriptor *desc, eg_arena *a);
/* Make call (from a typed client's *_call, its client NULL) on daemon, connected with the
 * CLI's address and options. On success the response is where call.out points (the caller
 * frees it with protobuf_c_message_free_unpacked); on failure that is NULL and the error
 * is printed. */
void eg_cli_call(const eg_cli *cli, const char *daemon, eg_rpc_request call);
/* JSON text read from source (a file name, "stdin" or "argument": named in errors) → a
 * message of desc in arena a; NULL (message printed) on error. */
ProtobufCMessage *eg_cli_parse_json(const char *source, const char *text,
                                    const ProtobufCMessageDescriptor *desc, eg_arena *a);
/* Pretty JSON with ISO times on stdout. */
void eg_cli_print_json(const ProtobufCMessage *m);
/* Each warning of an answer on stderr, as "engram: warning: …". */
void eg_cli_print_warnings(char *const *warnings, size_t n);

/* The report of an ingest (chunks, entities, facts, tokens, the watermark when not NULL
 * or empty, stages) on stdout; its warnings on stderr. */
void eg_cli_print_ingest_report(const Engram__V1__IngestReport *p, const char *watermark);
/* Follow async job id on ingestd: one GetJob, or with wait until it is DONE or FAILED (a
 * progress line on stderr with --progress). Prints the job (or its JSON); returns 0 for
 * DONE, QUEUED or RUNNING, 1 for FAILED or when it cannot be asked. */
int eg_cli_job_follow(const eg_cli *cli, const char *job_id, bool wait);
/* Whether --progress (on, off, auto = stderr is a terminal) asks for a progress line. */
bool eg_cli_progress(const eg_cli *cli);

/* A subcommand of a command: argv[0] is its name; a if an arena freed after the call. */
typedef struct eg_cli_sub {
  const char *name;
  int (*fn)(const eg_cli *cli, int argc, char **argv, eg_arena *a);
} eg_cli_sub;
/* Run the entry of sub named argv[1] with argv + 1; usage on stderr (exit code 2) when
 * there is none. */
int eg_cli_dispatch(const eg_cli *cli, int argc, char **argv, const eg_cli_sub *sub, size_t n,
                    const char *usage);

/* Subcommands: argv[0] is the subcommand name. Return the process exit code. */
int eg_cli_health(const eg_cli *cli, int argc, char **argv);
int eg_cli_graph(const eg_cli *cli, int argc, char **argv);
int eg_cli_call_any(const eg_cli *cli, int argc, char **argv);
int eg_cli_vector(const eg_cli *cli, int argc, char **argv);
int eg_cli_ingest(const eg_cli *cli, int argc, char **argv);
int eg_cli_recall(const eg_cli *cli, int argc, char **argv);
int eg_cli_token(const eg_cli *cli, int argc, char **argv);
int eg_cli_relations(const eg_cli *cli, int argc, char **argv);
int eg_cli_erase(const eg_cli *cli, int argc, char **argv);
int eg_cli_job(const eg_cli *cli, int argc, char **argv);
int eg_cli_retention(const eg_cli *cli, int argc, char **argv);

#endif
