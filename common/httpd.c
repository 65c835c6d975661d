/*
 * httpd.c — GET/HEAD endpoints over libmicrohttpd (see httpd.h).
 */
#include "common/httpd.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/metrics.h"

struct eg_httpd {
  struct MHD_Daemon *mhd;
  eg_http_handler handler;
  void *ctx;
  int port;
  char *cert, *key; /* PEM, kept for the daemon's lifetime (HTTPS) */
};

struct eg_http_req {
  struct MHD_Connection *conn;
  const char *method;
  const char *path;
};

const char *eg_http_req_method(const eg_http_req *r) { return r->method; }
const char *eg_http_req_path(const eg_http_req *r) { return r->path; }

const char *eg_http_req_header(const eg_http_req *r, const char *name) {
  return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *eg_http_req_arg(const eg_http_req *r, const char *name) {
  return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result queue(struct MHD_Connection *conn, eg_http_resp *out) {
  struct MHD_Response *resp;
  if (out->static_body) {
    resp = MHD_create_response_from_buffer(out->static_len, (void *)out->static_body,
                                           MHD_RESPMEM_PERSISTENT);
    eg_buf_free(&out->body);
  } else {
    size_t len = 0;
    char *data = eg_buf_detach(&out->body, &len);
    resp = data ? MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE)
                : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!resp) free(data);
  }
  if (!resp) return MHD_NO;
  MHD_add_response_header(resp, "Content-Type",
                          out->content_type ? out->content_type : "text/plain; charset=utf-8");
  for (int i = 0; i < EG_HTTP_MAX_HEADERS; i++)
    if (out->headers[i][0] && out->headers[i][1])
      MHD_add_response_header(resp, out->headers[i][0], out->headers[i][1]);
  enum MHD_Result ret = MHD_queue_response(conn, (unsigned)out->status, resp);
  MHD_destroy_response(resp);
  return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls) {
  (void)version, (void)upload, (void)upload_size, (void)con_cls;
  eg_httpd *h = cls;
  eg_http_resp out;
  memset(&out, 0, sizeof out);
  out.status = 200;
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
    static const char msg[] = "method not allowed\n";
    out.status = MHD_HTTP_METHOD_NOT_ALLOWED;
    out.static_body = msg;
    out.static_len = sizeof msg - 1;
    out.headers[0][0] = "Allow";
    out.headers[0][1] = "GET, HEAD";
    return queue(conn, &out);
  }
  eg_http_req req = {conn, method, url};
  h->handler(h->ctx, &req, &out);
  return queue(conn, &out);
}

static void httpd_free(eg_httpd *h) {
  if (h->key) OPENSSL_cleanse(h->key, strlen(h->key));
  free(h->cert);
  free(h->key);
  free(h);
}

eg_code eg_ipv4_listen_addr(const char *addr, const char *what, struct sockaddr_in *sa,
                            eg_err *err) {
  char host[128];
  int port;
  eg_code rc = eg_split_hostport(addr, host, sizeof host, &port, err);
  if (rc) return rc;
  memset(sa, 0, sizeof *sa);
  sa->sin_family = AF_INET;
  sa->sin_port = htons((uint16_t)port);
  if (strcmp(host, "localhost") == 0) snprintf(host, sizeof host, "127.0.0.1");
  if (!*host) snprintf(host, sizeof host, "0.0.0.0");
  if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
    return eg_err_set(err, EG_EINVAL, "%s must be an IPv4 literal: '%.64s'", what, addr);
  return EG_OK;
}

eg_code eg_httpd_start(const eg_httpd_opts *o, eg_httpd **out, eg_err *err) {
  bool tls = o->cert_pem && o->key_pem;
  if (tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
    return eg_err_set(err, EG_EPRECOND, "this libmicrohttpd has no TLS: serve HTTP without it");
  char what[64];
  snprintf(what, sizeof what, "%s address", o->name);
  struct sockaddr_in sa;
  eg_code rc = eg_ipv4_listen_addr(o->addr, what, &sa, err);
  if (rc) return rc;
  eg_httpd *h = calloc(1, sizeof *h);
  if (!h) return eg_err_set(err, EG_ENOMEM, "out of memory");
  h->handler = o->handler;
  h->ctx = o->ctx;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
  struct MHD_OptionItem ops[7] = {
      {MHD_OPTION_SOCK_ADDR, 0, &sa},
      {MHD_OPTION_CONNECTION_TIMEOUT, 10, NULL},
      {MHD_OPTION_CONNECTION_LIMIT, o->max_connections > 0 ? o->max_connections : 64, NULL},
      {MHD_OPTION_END, 0, NULL},
      {MHD_OPTION_END, 0, NULL},
      {MHD_OPTION_END, 0, NULL},
      {MHD_OPTION_END, 0, NULL},
  };
  int n = 3;
  if (o->threads > 1)
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, o->threads, NULL};
  if (tls) {
    h->cert = strdup(o->cert_pem);
    h->key = strdup(o->key_pem);
    if (!h->cert || !h->key) {
      httpd_free(h);
      return eg_err_set(err, EG_ENOMEM, "out of memory");
    }
    flags |= MHD_USE_TLS;
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, h->cert};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, h->key};
  }
  h->mhd =
      MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
  if (!h->mhd) {
    httpd_free(h);
    return eg_err_set(err, EG_EUNAVAIL, "cannot listen for %s on '%.64s'%s", o->name, o->addr,
                      tls ? " (or the TLS certificate and key were refused)" : "");
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
  h->port = info ? info->port : ntohs(sa.sin_port);
  *out = h;
  return EG_OK;
}

int eg_httpd_port(const eg_httpd *h) { return h->port; }

void eg_httpd_stop(eg_httpd *h) {
  if (!h) return;
  MHD_stop_daemon(h->mhd);
  httpd_free(h);
}
