/*
 * httpd.h — a small HTTP(S) server over libmicrohttpd for read-only endpoints: the
 * daemons' /metrics and the explorer's page and JSON API.
 *
 * Only GET and HEAD are served (anything else is 405 before the handler runs). The
 * handler fills a response: a status, a content type and a body, either built in an
 * eg_buf (freed by the server) or static data (borrowed for the server's lifetime).
 * This header exposes no libmicrohttpd type.
 */
#ifndef EG_HTTPD_H
#define EG_HTTPD_H

#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"

typedef struct eg_httpd eg_httpd;
typedef struct eg_http_req eg_http_req; /* one request, valid while the handler runs */

enum { EG_HTTP_MAX_HEADERS = 4 };

typedef struct eg_http_resp {
  int status;               /* 200 unless the handler sets another */
  const char *content_type; /* borrowed static string; NULL = text/plain; charset=utf-8 */
  eg_buf body;              /* the body the handler builds (freed by the server) … */
  const void *static_body;  /* … or borrowed static data, used when set */
  size_t static_len;
  /* Extra header lines: name and value, borrowed static strings; unused slots NULL. */
  const char *headers[EG_HTTP_MAX_HEADERS][2];
} eg_http_resp;

/* Called on one of the server's threads for every GET/HEAD. */
typedef void (*eg_http_handler)(void *ctx, const eg_http_req *req, eg_http_resp *resp);

typedef struct eg_httpd_opts {
  const char *name; /* what is served, for errors ("metrics": "cannot listen for metrics on …") */
  const char *addr; /* "127.0.0.1:9102"; IPv4 literal or localhost; port 0 = any free port */
  const char *cert_pem; /* with key_pem: serve HTTPS (PEM text, copied); NULL = plain HTTP */
  const char *key_pem;
  int threads;         /* threads serving requests; 0 = one (the polling thread) */
  int max_connections; /* 0 = 64 */
  eg_http_handler handler;
  void *ctx; /* passed to handler */
} eg_httpd_opts;

/* Bind and start serving from threads of the server's own. */
eg_code eg_httpd_start(const eg_httpd_opts *o, eg_httpd **out, eg_err *err);
int eg_httpd_port(const eg_httpd *h); /* the bound port (useful with port 0) */
void eg_httpd_stop(eg_httpd *h);      /* waits for running handlers; accepts NULL */

/* The request. Strings are borrowed until the handler returns. */
const char *eg_http_req_method(const eg_http_req *r); /* "GET" or "HEAD" */
const char *eg_http_req_path(const eg_http_req *r);   /* "/api/recall", without the query */
/* A header's value (name case-insensitive) or NULL. */
const char *eg_http_req_header(const eg_http_req *r, const char *name);
/* A query-string argument, percent-decoded; NULL when absent. */
const char *eg_http_req_arg(const eg_http_req *r, const char *name);

struct sockaddr_in;
/* The IPv4 socket address of "host:port" for an HTTP listener ("localhost" is 127.0.0.1,
 * an empty host every interface). EG_EINVAL naming `what` ("metrics address") otherwise. */
eg_code eg_ipv4_listen_addr(const char *addr, const char *what, struct sockaddr_in *sa,
                            eg_err *err);

#endif
