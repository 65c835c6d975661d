/*
 * protocol.h — the Model Context Protocol's message layer, apart from any transport.
 *
 * A transport (stdio lines, HTTP POST bodies) hands each message it reads to
 * eg_mcp_handle and writes back the reply it gets. This layer speaks JSON-RPC 2.0 (parse
 * errors, invalid requests, unknown methods, bad params, notifications, batches where
 * the revision has them) and MCP's lifecycle (initialize with version negotiation, ping),
 * and leaves what the tools and resources do to an eg_mcp_ops table.
 *
 * Revisions: 2025-11-25 (the newest, what the TypeScript SDK 1.x speaks), 2025-06-18,
 * 2025-03-26 and 2024-11-05. An initialize naming one of them gets it back; any other
 * (an older one, or a newer one such as 2026-07-28, which drops initialize) gets
 * 2025-11-25, and the client decides whether it can speak that. JSON-RPC batches exist
 * only in 2025-03-26: a session of that revision may send them, any other gets an
 * Invalid Request error for the whole array.
 *
 * Not thread-safe per session; an eg_mcp_server may be shared by threads (it is read-only).
 */
#ifndef EG_MCP_PROTOCOL_H
#define EG_MCP_PROTOCOL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/* The newest revision, answered to an initialize naming one this server does not speak. */
#define EG_MCP_LATEST "2025-11-25"
/* What a streamable HTTP request without an MCP-Protocol-Version header is taken to speak
 * (the spec's rule for clients older than 2025-06-18). */
#define EG_MCP_HTTP_DEFAULT "2025-03-26"
#define EG_MCP_VERSION_MAX 16 /* "YYYY-MM-DD" and its NUL, with room */

/* JSON-RPC 2.0 error codes, and MCP's own for an unknown resource. */
enum {
  EG_JSONRPC_PARSE_ERROR = -32700,
  EG_JSONRPC_INVALID_REQUEST = -32600,
  EG_JSONRPC_METHOD_NOT_FOUND = -32601,
  EG_JSONRPC_INVALID_PARAMS = -32602,
  EG_JSONRPC_INTERNAL_ERROR = -32603,
  EG_MCP_RESOURCE_NOT_FOUND = -32002,
};

/* True when this server speaks revision v ("2025-06-18"). */
bool eg_mcp_version_supported(const char *v);

/* One client's conversation: a stdio process, or one HTTP request (stateless). */
typedef struct eg_mcp_session {
  char version[EG_MCP_VERSION_MAX]; /* the revision in force; "" until initialize */
  bool stateless; /* HTTP without sessions: every request is served, version from the header */
  bool may_erase; /* the caller may use erasing tools (an admin token, or stdio) */
} eg_mcp_session;

/*
 * What tools and resources are, supplied by the caller. The session is the caller's
 * (read-only here): tools look at its version (structured results from 2025-06-18) and
 * may_erase. Each returned cJSON is owned by the caller of the hook (freed here).
 */
typedef struct eg_mcp_ops {
  /* tools/list: an array of Tool objects. */
  cJSON *(*list_tools)(void *ctx, const eg_mcp_session *s);
  /* tools/call: *result is a CallToolResult; a failing tool (bad arguments, a daemon down
   * or refusing) is a result with isError true, not an error here. EG_ENOTFOUND when no
   * tool has that name; any other code is a protocol error (err->msg its message). */
  eg_code (*call_tool)(void *ctx, const eg_mcp_session *s, const char *name, const cJSON *args,
                       cJSON **result, eg_err *err);
  /* resources/list and resources/templates/list: arrays of Resource / ResourceTemplate. */
  cJSON *(*list_resources)(void *ctx, const eg_mcp_session *s);
  cJSON *(*list_templates)(void *ctx, const eg_mcp_session *s);
  /* resources/read: *result is a ReadResourceResult. EG_ENOTFOUND → -32002, EG_EINVAL →
   * -32602, anything else → -32603, each with err->msg. */
  eg_code (*read_resource)(void *ctx, const eg_mcp_session *s, const char *uri, cJSON **result,
                           eg_err *err);
} eg_mcp_ops;

typedef struct eg_mcp_server {
  const eg_mcp_ops *ops;    /* borrowed */
  void *ctx;                /* passed to every hook */
  const char *name;         /* serverInfo.name */
  const char *title;        /* serverInfo.title (2025-06-18 on) */
  const char *version;      /* serverInfo.version */
  const char *instructions; /* InitializeResult.instructions, or NULL */
} eg_mcp_server;

typedef enum eg_mcp_outcome {
  EG_MCP_NO_REPLY = 0,    /* notifications and responses only: nothing to send */
  EG_MCP_REPLY = 1,       /* *reply holds the response (or batch of responses) */
  EG_MCP_BAD_MESSAGE = 2, /* not JSON, or not a JSON-RPC message: *reply holds the error */
} eg_mcp_outcome;

/*
 * Handle one message of len bytes (need not be NUL-terminated). *reply is set to a
 * single-line JSON text (the caller frees it with free()) for EG_MCP_REPLY and
 * EG_MCP_BAD_MESSAGE, NULL for EG_MCP_NO_REPLY.
 */
eg_mcp_outcome eg_mcp_handle(const eg_mcp_server *srv, eg_mcp_session *s, const char *text,
                             size_t len, char **reply);

/* A single-line JSON-RPC error response with a null id (for a transport that cannot even
 * read the message, e.g. one over its size limit). Caller frees with free(). */
char *eg_mcp_error_text(int code, const char *message);

#endif
