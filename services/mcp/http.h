/*
 * http.h — MCP's streamable HTTP transport (revision 2025-03-26 on), over libmicrohttpd.
 *
 * One endpoint (opts.path). A POST carries one JSON-RPC message (or, in revision
 * 2025-03-26, a batch): requests get 200 with the response as application/json, or as a
 * text/event-stream of one `message` event when the client's Accept header names
 * text/event-stream before application/json; notifications and responses alone get 202.
 * The server is stateless: it issues no Mcp-Session-Id, every request is served on its
 * own and its revision is the MCP-Protocol-Version header (2025-03-26 without one; an
 * unsupported one is 400). GET and DELETE are 405 (no server-initiated stream, no
 * session to end).
 *
 * Every request needs `Authorization: Bearer <token>` with a token of the configured
 * tenant (the daemons' token lines, common/auth.h): missing or unknown → 401 with
 * WWW-Authenticate, another tenant's → 403. An Origin header other than a loopback
 * origin or one listed in allowed_origins is 403 (DNS rebinding).
 */
#ifndef EG_MCP_HTTP_H
#define EG_MCP_HTTP_H

#include <stddef.h>

#include "common/auth.h"
#include "common/err.h"
#include "services/mcp/protocol.h"

typedef struct eg_mcp_http eg_mcp_http;

typedef struct eg_mcp_http_opts {
  const char *addr;   /* IPv4 "127.0.0.1:7180"; port 0 picks a free port */
  const char *path;   /* the endpoint, "/mcp" */
  eg_auth *auth;      /* borrowed; NULL = no authentication (insecure_no_auth) */
  const char *tenant; /* the tenant a client's token must belong to */
  const char
      *allowed_origins; /* comma-separated origins accepted besides loopback ones; "" = none */
  size_t max_body;      /* largest request body (413 above) */
} eg_mcp_http_opts;

/* Listen and serve srv (borrowed, as are opts' pointers, until eg_mcp_http_stop). */
eg_code eg_mcp_http_start(const eg_mcp_server *srv, const eg_mcp_http_opts *opts, eg_mcp_http **out,
                          eg_err *err);
int eg_mcp_http_port(const eg_mcp_http *h);
/* Stop listening, wait for requests in progress, free. Accepts NULL. */
void eg_mcp_http_stop(eg_mcp_http *h);

#endif
