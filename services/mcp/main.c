/*
 * engram-mcp — Engram as a Model Context Protocol server: an agent's MCP client calls
 * its tools (remember, recall, facts, history, forget) and reads its user profiles, and
 * engram-mcp calls the daemons over gRPC.
 *
 *   engram-mcp [--tenant T] [--user U] [--token TOKEN]              (stdio, what a client launches)
 *   engram-mcp --transport http --http-addr 127.0.0.1:7106 --auth-tokens-file F [...]
 *
 * Over stdio, each line of stdin is one JSON-RPC message and each answer one line of
 * stdout; logs go to stderr. Options are flags, ENGRAM_* variables or a config file, as
 * for the daemons and the CLI (so ENGRAM_TOKEN, ENGRAM_TENANT, ENGRAM_USER work).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/buf.h"
#include "common/cfg.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/rpc.h"
#include "services/mcp/http.h"
#include "services/mcp/protocol.h"
#include "services/mcp/tools.h"

extern char **environ;

static const eg_cfg_opt mcp_opts[] = {
    {"transport", EG_CFG_STR, "stdio",
     "stdio (JSON-RPC lines on stdin/stdout) or http (streamable HTTP)", 0, 0, 0},
    {"http_addr", EG_CFG_STR, "127.0.0.1:7106",
     "http: listen address (IPv4; port 0 = any free port)", 0, 0, 0},
    {"http_path", EG_CFG_STR, "/mcp", "http: the MCP endpoint", 0, 0, 0},
    {"allowed_origins", EG_CFG_STR, "",
     "http: Origin values accepted besides loopback ones (comma-separated)", 0, 0, 0},
    {"auth_tokens_file", EG_CFG_STR, "",
     "http: token lines '<tenant> sha256:<hex> [user|admin]' (reloaded on SIGHUP)", 0, 0, 0},
    {"auth_tokens", EG_CFG_STR, "", "http: token lines as in the file, separated by ';'",
     EG_CFG_SECRET, 0, 0},
    {"insecure_no_auth", EG_CFG_BOOL, "false",
     "http: serve without authentication (local development only)", 0, 0, 0},
    {"max_message_bytes", EG_CFG_INT, "4m",
     "largest JSON-RPC message (a stdin line or a POST body)", 0, 1024, 1 << 30},
    {"ports_file", EG_CFG_STR, "", "http: write the bound port here after start (for tests)", 0, 0,
     0},
    {"ingestd_addr", EG_CFG_STR, "127.0.0.1:7101", "ingestd address", 0, 0, 0},
    {"graphd_addr", EG_CFG_STR, "127.0.0.1:7102", "graphd address", 0, 0, 0},
    {"recalld_addr", EG_CFG_STR, "127.0.0.1:7104", "recalld address", 0, 0, 0},
    {"token", EG_CFG_STR, "", "bearer token sent to the daemons (or ENGRAM_TOKEN)", EG_CFG_SECRET,
     0, 0},
    {"admin_token", EG_CFG_STR, "", "an admin token of the tenant: enables the forget tool",
     EG_CFG_SECRET, 0, 0},
    {"tls_ca", EG_CFG_STR, "", "PEM roots: call the daemons over TLS and verify their certificates",
     0, 0, 0},
    {"tls_server_name", EG_CFG_STR, "",
     "name the daemons' certificates must carry (default: the address's host)", 0, 0, 0},
    {"timeout_ms", EG_CFG_INT, "30000", "deadline of one call to a daemon", 0, 1, 3600000},
    {"tenant", EG_CFG_STR, "default", "scope.tenant of every call", 0, 0, 0},
    {"user", EG_CFG_STR, "", "scope.user: whose memory (a tool's `user` argument overrides it)", 0,
     0, 0},
    {"agent", EG_CFG_STR, "", "scope.agent: which agent writes and reads", 0, 0, 0},
    {"log_level", EG_CFG_STR, "warn", "debug, info, warn or error (logs go to stderr)", 0, 0, 0},
};

#define INSTRUCTIONS                                                                               \
  "Engram is this user's long-term memory. Call recall before answering anything that may depend " \
  "on what the "                                                                                   \
  "user told you before (where they live, their plans, preferences, people, past decisions); "     \
  "call remember "                                                                                 \
  "with the conversation's messages (and their real times) when the user shares something worth "  \
  "keeping. "                                                                                      \
  "Facts marked POTENTIALLY_STALE rest on something that has changed: confirm them with the "      \
  "user. facts and "                                                                               \
  "history show the current value of a fact and how it changed."

/* One stdin line: answer it on stdout. False when stdout is gone. */
static bool answer_line(const eg_mcp_server *srv, eg_mcp_session *s, const eg_buf *line,
                        bool too_long, size_t max) {
  char *reply = NULL;
  if (too_long) {
    char msg[96];
    snprintf(msg, sizeof msg, "Parse error: a message longer than %zu bytes (max_message_bytes)",
             max);
    reply = eg_mcp_error_text(EG_JSONRPC_PARSE_ERROR, msg);
  } else {
    size_t i = 0;
    while (i < line->len && strchr(" \t\r", line->data[i])) i++;
    if (i == line->len) return true; /* a blank line is no message */
    eg_mcp_handle(srv, s, line->data, line->len, &reply);
  }
  if (!reply) return true;
  bool ok = fputs(reply, stdout) >= 0 && fputc('\n', stdout) != EOF && fflush(stdout) == 0;
  free(reply);
  return ok;
}

/* Newline-delimited JSON-RPC on stdin/stdout until stdin ends. */
static int serve_stdio(const eg_mcp_server *srv, size_t max) {
  eg_mcp_session s = {.may_erase =
                          true}; /* whoever started the process: forget still needs admin_token */
  eg_buf line = EG_BUF_INIT;
  line.max = max;
  bool too_long = false;
  static char chunk[65536];
  int rc = 0;
  while (fgets(chunk, sizeof chunk, stdin)) {
    size_t n = strlen(chunk);
    bool end = n && chunk[n - 1] == '\n';
    if (end) n--;
    if (!too_long && eg_buf_append(&line, chunk, n) != EG_OK) too_long = true;
    if (!end && !feof(stdin)) continue;
    if (!answer_line(srv, &s, &line, too_long, max)) {
      rc = 1;
      break;
    }
    eg_buf_reset(&line);
    too_long = false;
  }
  eg_buf_free(&line);
  EG_INFO("stdio", "stdin closed", NULL);
  return rc;
}

static eg_code write_ports(const char *path, int port, eg_err *err) {
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return eg_err_set(err, EG_EIO, "cannot write ports_file");
  fprintf(f, "http=%d\npid=%d\n", port, (int)getpid());
  if (fclose(f) != 0 || rename(tmp, path) != 0)
    return eg_err_set(err, EG_EIO, "cannot write ports_file");
  return EG_OK;
}

/* Streamable HTTP until SIGTERM or SIGINT; SIGHUP reloads the tokens. */
static int serve_http(const eg_mcp_server *srv, const eg_cfg *cfg, const sigset_t *signals) {
  const char *file = eg_cfg_str(cfg, "auth_tokens_file"), *inl = eg_cfg_str(cfg, "auth_tokens");
  eg_auth *auth = NULL;
  eg_err err = {0};
  if (eg_cfg_bool(cfg, "insecure_no_auth")) {
    if (*file || *inl) {
      fprintf(stderr, "engram-mcp: insecure_no_auth and auth tokens are both set: choose one\n");
      return 2;
    }
    EG_WARN("auth",
            "AUTHENTICATION IS OFF (insecure_no_auth): any caller can use this tenant's memory. "
            "For local "
            "development on loopback only",
            NULL);
  } else {
    eg_auth_opts ao = {file, inl, ""};
    if (eg_auth_open(&ao, &auth, &err)) {
      fprintf(stderr,
              "engram-mcp: the http transport needs client tokens (--auth-tokens-file or "
              "--auth-tokens, the "
              "daemons' format) or --insecure-no-auth: %s\n",
              err.msg);
      return 2;
    }
  }
  eg_mcp_http_opts ho = {.addr = eg_cfg_str(cfg, "http_addr"),
                         .path = eg_cfg_str(cfg, "http_path"),
                         .auth = auth,
                         .tenant = eg_cfg_str(cfg, "tenant"),
                         .allowed_origins = eg_cfg_str(cfg, "allowed_origins"),
                         .max_body = (size_t)eg_cfg_int(cfg, "max_message_bytes")};
  eg_mcp_http *h = NULL;
  int rc = 1;
  if (eg_mcp_http_start(srv, &ho, &h, &err)) {
    fprintf(stderr, "engram-mcp: %s\n", err.msg);
    goto out;
  }
  const char *pf = eg_cfg_str(cfg, "ports_file");
  if (*pf && write_ports(pf, eg_mcp_http_port(h), &err)) {
    fprintf(stderr, "engram-mcp: %s\n", err.msg);
    goto out;
  }
  EG_INFO("http", "serving", "port=%d path=%s", eg_mcp_http_port(h), ho.path);
  for (;;) {
    int sig = 0;
    if (sigwait(signals, &sig) != 0) continue;
    if (sig != SIGHUP) break;
    if (auth && eg_auth_reload(auth, &err))
      EG_WARN("auth", "tokens not reloaded", "error=\"%s\"", err.msg);
    else
      EG_INFO("auth", "tokens reloaded", NULL);
  }
  rc = 0;
  EG_INFO("http", "stopped", NULL);
out:
  eg_mcp_http_stop(h);
  eg_auth_free(auth);
  return rc;
}

int main(int argc, char **argv) {
  /* Signals go to sigwait in serve_http, not to the threads gRPC and microhttpd start. */
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  signal(SIGPIPE, SIG_IGN);
  eg_log_init("engram-mcp", EG_LOG_WARN);
  const eg_cfg_opt *tables[1] = {mcp_opts};
  size_t sizes[1] = {sizeof mcp_opts / sizeof *mcp_opts};
  eg_cfg *cfg = NULL;
  eg_err err = {0};
  if (eg_cfg_load(tables, sizes, 1, argc, argv, environ, &cfg, &err)) {
    fprintf(stderr, "engram-mcp: %s\n", err.msg);
    return 2;
  }
  if (eg_cfg_help_requested(cfg)) {
    printf(
        "usage: engram-mcp [options]   (an MCP server for Engram: stdio by default)\n\noptions "
        "(flag, environment, "
        "default):\n");
    eg_cfg_usage(cfg, stdout);
    eg_cfg_free(cfg);
    return 0;
  }
  const char *transport = eg_cfg_str(cfg, "transport");
  int level = eg_log_level_parse(eg_cfg_str(cfg, "log_level"));
  bool http = strcmp(transport, "http") == 0;
  char **args;
  const char *bad = level < 0 ? "log_level must be debug, info, warn or error"
                    : !http && strcmp(transport, "stdio") != 0 ? "transport must be stdio or http"
                    : !*eg_cfg_str(cfg, "tenant")              ? "tenant must not be empty"
                    : eg_cfg_args(cfg, &args) > 0 ? "it takes no positional arguments (see --help)"
                                                  : NULL;
  if (bad) {
    fprintf(stderr, "engram-mcp: %s\n", bad);
    eg_cfg_free(cfg);
    return 2;
  }
  eg_log_init("engram-mcp", (eg_log_level)level);
  if (http) pthread_sigmask(SIG_BLOCK, &signals, NULL);
  eg_cfg_log(cfg, "config");
  eg_rpc_global_init();
  eg_mcp_engram_opts eo = {.ingestd_addr = eg_cfg_str(cfg, "ingestd_addr"),
                           .graphd_addr = eg_cfg_str(cfg, "graphd_addr"),
                           .recalld_addr = eg_cfg_str(cfg, "recalld_addr"),
                           .token = eg_cfg_str(cfg, "token"),
                           .admin_token = eg_cfg_str(cfg, "admin_token"),
                           .tls_ca_file = eg_cfg_str(cfg, "tls_ca"),
                           .tls_server_name = eg_cfg_str(cfg, "tls_server_name"),
                           .timeout_us = eg_cfg_int(cfg, "timeout_ms") * 1000,
                           .tenant = eg_cfg_str(cfg, "tenant"),
                           .user = eg_cfg_str(cfg, "user"),
                           .agent = eg_cfg_str(cfg, "agent")};
  eg_mcp_engram *engram = NULL;
  int rc = 1;
  if (eg_mcp_engram_open(&eo, &engram, &err)) {
    fprintf(stderr, "engram-mcp: %s\n", err.msg);
    goto out;
  }
  eg_mcp_server srv = {&eg_mcp_engram_ops, engram,       "engram-mcp",
                       "Engram memory",    eg_version(), INSTRUCTIONS};
  size_t max = (size_t)eg_cfg_int(cfg, "max_message_bytes");
  rc = http ? serve_http(&srv, cfg, &signals) : serve_stdio(&srv, max);
out:
  eg_mcp_engram_close(engram);
  eg_rpc_global_shutdown();
  eg_cfg_free(cfg);
  return rc;
}
