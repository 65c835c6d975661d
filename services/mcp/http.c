/*
 * http.c — the streamable HTTP transport (see http.h). One thread per connection, so a
 * slow recall does not hold up another client; the daemons' clients are thread-safe.
 */
#include "services/mcp/http.h"

#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/httpd.h"
#include "common/log.h"

struct eg_mcp_http {
  struct MHD_Daemon *mhd;
  const eg_mcp_server *srv;
  eg_mcp_http_opts o;
  int port;
};

/* The body of one request, gathered across MHD's calls. */
typedef struct upload {
  eg_buf body;
  bool too_big;
} upload;

static enum MHD_Result send_text(struct MHD_Connection *conn, unsigned status, const char *type,
                                 char *text, const char *header, const char *value) {
  size_t len = text ? strlen(text) : 0;
  struct MHD_Response *r = MHD_create_response_from_buffer(
      len, text ? text : (void *)"", text ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  if (type) MHD_add_response_header(r, "Content-Type", type);
  if (header) MHD_add_response_header(r, header, value);
  enum MHD_Result ret = MHD_queue_response(conn, status, r);
  MHD_destroy_response(r);
  return ret;
}

/* An HTTP error whose body is a JSON-RPC error without an id, as the transport allows. */
static enum MHD_Result refuse(struct MHD_Connection *conn, unsigned status, int code,
                              const char *msg, const char *header, const char *value) {
  return send_text(conn, status, "application/json", eg_mcp_error_text(code, msg), header, value);
}

static bool loopback_origin(const char *origin) {
  static const char *const hosts[] = {"http://localhost",  "https://localhost", "http://127.0.0.1",
                                      "https://127.0.0.1", "http://[::1]",      "https://[::1]"};
  for (size_t i = 0; i < sizeof hosts / sizeof *hosts; i++) {
    size_t n = strlen(hosts[i]);
    if (strncasecmp(origin, hosts[i], n) == 0 && (origin[n] == '\0' || origin[n] == ':'))
      return true;
  }
  return false;
}

static bool origin_allowed(const eg_mcp_http *h, const char *origin) {
  if (!origin || loopback_origin(origin)) return true;
  size_t n = strlen(origin);
  for (const char *p = h->o.allowed_origins; p && *p;) {
    size_t l = strcspn(p, ",");
    while (l && p[l - 1] == ' ') l--;
    if (l == n && strncasecmp(p, origin, n) == 0) return true;
    p += strcspn(p, ",");
    while (*p == ',' || *p == ' ') p++;
  }
  return false;
}

/* Where media type t first appears in an Accept header (SIZE_MAX when absent). */
static size_t accept_pos(const char *accept, const char *t) {
  const char *p = accept ? strcasestr(accept, t) : NULL;
  return p ? (size_t)(p - accept) : (size_t)-1;
}

/* A POST to the endpoint, once its body is in. */
static enum MHD_Result post(eg_mcp_http *h, struct MHD_Connection *conn, upload *u,
                            bool may_erase) {
  const char *ctype = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
  if (!ctype || strncasecmp(ctype, "application/json", 16) != 0)
    return refuse(conn, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, EG_JSONRPC_INVALID_REQUEST,
                  "Content-Type must be application/json", NULL, NULL);
  const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept");
  size_t json_at = accept_pos(accept, "application/json"),
         sse_at = accept_pos(accept, "text/event-stream");
  bool any = !accept || accept_pos(accept, "*/*") != (size_t)-1;
  if (json_at == (size_t)-1 && sse_at == (size_t)-1 && !any)
    return refuse(conn, MHD_HTTP_NOT_ACCEPTABLE, EG_JSONRPC_INVALID_REQUEST,
                  "Accept must name application/json and text/event-stream", NULL, NULL);
  eg_mcp_session s = {.stateless = true};
  const char *v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "MCP-Protocol-Version");
  if (v && !eg_mcp_version_supported(v)) {
    char msg[160];
    snprintf(msg, sizeof msg,
             "Unsupported MCP-Protocol-Version: %.32s (this server speaks 2024-11-05 to %s)", v,
             EG_MCP_LATEST);
    return refuse(conn, MHD_HTTP_BAD_REQUEST, EG_JSONRPC_INVALID_REQUEST, msg, NULL, NULL);
  }
  snprintf(s.version, sizeof s.version, "%s", v ? v : EG_MCP_HTTP_DEFAULT);
  s.may_erase = may_erase;
  char *reply = NULL;
  eg_mcp_outcome out =
      eg_mcp_handle(h->srv, &s, u->body.data ? u->body.data : "", u->body.len, &reply);
  if (out == EG_MCP_NO_REPLY) return send_text(conn, MHD_HTTP_ACCEPTED, NULL, NULL, NULL, NULL);
  if (out == EG_MCP_BAD_MESSAGE)
    return send_text(conn, MHD_HTTP_BAD_REQUEST, "application/json", reply, NULL, NULL);
  if (sse_at < json_at) { /* the client asked for a stream first: one event carries the response */
    eg_buf b = EG_BUF_INIT;
    b.max = h->o.max_body * 4 + 64;
    eg_buf_printf(&b, "event: message\ndata: %s\n\n", reply);
    free(reply);
    reply = eg_buf_detach(&b, NULL);
    return send_text(conn, MHD_HTTP_OK, "text/event-stream", reply, "Cache-Control", "no-cache");
  }
  return send_text(conn, MHD_HTTP_OK, "application/json", reply, NULL, NULL);
}

/* Who may call: the bearer token against the tenant. True when allowed (*may_erase:
 * whether the token may erase); else the refusal is queued and *ret is its result. */
static bool authenticate(eg_mcp_http *h, struct MHD_Connection *conn, bool *may_erase,
                         enum MHD_Result *ret) {
  *may_erase = true;
  if (!h->o.auth) return true; /* insecure_no_auth */
  const char *authz = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
  eg_role role = EG_ROLE_USER;
  eg_err e = {0};
  eg_code rc = eg_auth_check(h->o.auth, authz, "engram.v1.Mcp/Post", h->o.tenant, &role, &e);
  *may_erase = role != EG_ROLE_USER;
  if (rc == EG_OK) return true;
  EG_DEBUG("http", "refused", "code=%s", eg_code_name(rc));
  if (rc == EG_EPERM)
    *ret = refuse(conn, MHD_HTTP_FORBIDDEN, EG_JSONRPC_INVALID_REQUEST,
                  "Forbidden: the token is not of this tenant", NULL, NULL);
  else
    *ret = refuse(
        conn, MHD_HTTP_UNAUTHORIZED, EG_JSONRPC_INVALID_REQUEST,
        "Unauthorized: send Authorization: Bearer <token> with an Engram token of this tenant",
        "WWW-Authenticate", "Bearer realm=\"engram\"");
  return false;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *data_size, void **con_cls) {
  (void)version;
  eg_mcp_http *h = cls;
  upload *u = *con_cls;
  if (!u) { /* the headers: keep a place for the body */
    if (!(u = calloc(1, sizeof *u))) return MHD_NO;
    u->body.max = h->o.max_body;
    *con_cls = u;
    return MHD_YES;
  }
  if (*data_size) {
    if (!u->too_big && eg_buf_append(&u->body, data, *data_size) != EG_OK) u->too_big = true;
    *data_size = 0;
    return MHD_YES;
  }
  if (strcmp(url, h->o.path) != 0) {
    char msg[128];
    snprintf(msg, sizeof msg, "Not found: the MCP endpoint is %.64s", h->o.path);
    return refuse(conn, MHD_HTTP_NOT_FOUND, EG_JSONRPC_INVALID_REQUEST, msg, NULL, NULL);
  }
  if (!origin_allowed(h, MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin")))
    return refuse(conn, MHD_HTTP_FORBIDDEN, EG_JSONRPC_INVALID_REQUEST,
                  "Forbidden: this Origin is not allowed", NULL, NULL);
  enum MHD_Result ret = MHD_NO;
  bool may_erase;
  if (!authenticate(h, conn, &may_erase, &ret)) return ret;
  if (strcmp(method, "POST") != 0)
    return refuse(conn, MHD_HTTP_METHOD_NOT_ALLOWED, EG_JSONRPC_INVALID_REQUEST,
                  "Method not allowed: POST JSON-RPC messages (no server stream, no sessions)",
                  "Allow", "POST");
  if (u->too_big) {
    char msg[96];
    snprintf(msg, sizeof msg, "Payload too large: at most %zu bytes", h->o.max_body);
    return refuse(conn, MHD_HTTP_CONTENT_TOO_LARGE, EG_JSONRPC_INVALID_REQUEST, msg, NULL, NULL);
  }
  return post(h, conn, u, may_erase);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode t) {
  (void)cls, (void)conn, (void)t;
  upload *u = *con_cls;
  if (!u) return;
  eg_buf_free(&u->body);
  free(u);
  *con_cls = NULL;
}

eg_code eg_mcp_http_start(const eg_mcp_server *srv, const eg_mcp_http_opts *opts, eg_mcp_http **out,
                          eg_err *err) {
  struct sockaddr_in sa;
  eg_code rc = eg_ipv4_listen_addr(opts->addr, "http_addr", &sa, err);
  if (rc) return rc;
  eg_mcp_http *h = calloc(1, sizeof *h);
  if (!h) return eg_err_set(err, EG_ENOMEM, "out of memory");
  h->srv = srv;
  h->o = *opts;
  h->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0,
                            NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, &sa,
                            MHD_OPTION_CONNECTION_TIMEOUT, 120u, MHD_OPTION_CONNECTION_LIMIT, 64u,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_END);
  if (!h->mhd) {
    free(h);
    return eg_err_set(err, EG_EUNAVAIL, "cannot listen for MCP over HTTP on '%.64s'", opts->addr);
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
  h->port = info ? info->port : ntohs(sa.sin_port);
  *out = h;
  return EG_OK;
}

int eg_mcp_http_port(const eg_mcp_http *h) { return h->port; }

void eg_mcp_http_stop(eg_mcp_http *h) {
  if (!h) return;
  MHD_stop_daemon(h->mhd);
  free(h);
}
