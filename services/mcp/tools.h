/*
 * tools.h — what engram-mcp offers an agent: the tools remember, recall, facts, history
 * and forget, and the resource engram://users/{user}/profile, each answered by calling
 * the Engram daemons over gRPC (ingestd, graphd, recalld).
 *
 * The scope of every call is the configured tenant, user and agent; a tool's `user`
 * argument names another user of the same tenant. A tool that fails (bad arguments, a
 * daemon down or refusing) answers a result with isError and a message saying what to
 * change; only a malformed protocol message is a JSON-RPC error (protocol.c).
 */
#ifndef EG_MCP_TOOLS_H
#define EG_MCP_TOOLS_H

#include <stdint.h>

#include "common/err.h"
#include "services/mcp/protocol.h"

typedef struct eg_mcp_engram eg_mcp_engram;

typedef struct eg_mcp_engram_opts {
  const char *ingestd_addr, *graphd_addr, *recalld_addr; /* "127.0.0.1:7101" … */
  const char *token;       /* bearer token sent to the daemons ("" = none) */
  const char *admin_token; /* an admin token of the tenant: enables forget ("" = disabled) */
  const char *tls_ca_file; /* PEM roots: call the daemons over TLS ("" = plaintext) */
  const char *tls_server_name;
  int64_t timeout_us;                /* deadline of one call to a daemon */
  const char *tenant, *user, *agent; /* the default scope; user and agent may be "" */
} eg_mcp_engram_opts;

/* Channels to the daemons (connected lazily, so this succeeds while they are down).
 * opts' strings are copied. Free with eg_mcp_engram_close. */
eg_code eg_mcp_engram_open(const eg_mcp_engram_opts *opts, eg_mcp_engram **out, eg_err *err);
void eg_mcp_engram_close(eg_mcp_engram *e); /* accepts NULL */

/* The hooks for an eg_mcp_server whose ctx is an eg_mcp_engram. Thread-safe. */
extern const eg_mcp_ops eg_mcp_engram_ops;

#endif
