/*
 * stub_http.c — libmicrohttpd behind a per-request callback.
 */
#include "tests/stub_http.h"

#include <microhttpd.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"

struct eg_stub {
  struct MHD_Daemon *d;
  eg_stub_fn fn;
  void *ctx;
  atomic_int requests;
};

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *data,
                               size_t *size, void **state) {
  (void)method, (void)version;
  eg_stub *s = cls;
  if (!*state) {
    *state = calloc(1, sizeof(eg_buf));
    return MHD_YES;
  }
  eg_buf *body = *state;
  if (*size) {
    eg_buf_append(body, data, *size);
    *size = 0;
    return MHD_YES;
  }
  atomic_fetch_add(&s->requests, 1);
  const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
  eg_stub_reply r = s->fn(s->ctx, url, auth, body->data ? body->data : "");
  if (r.delay_ms) usleep((useconds_t)r.delay_ms * 1000);
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(r.body ? strlen(r.body) : 0, r.body ? r.body : "",
                                      r.body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  if (r.retry_after) MHD_add_response_header(resp, "Retry-After", r.retry_after);
  MHD_add_response_header(resp, "Content-Type", "application/json");
  enum MHD_Result ret = MHD_queue_response(c, (unsigned)r.status, resp);
  MHD_destroy_response(resp);
  return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **state,
                      enum MHD_RequestTerminationCode t) {
  (void)cls, (void)c, (void)t;
  eg_buf *b = *state;
  if (b) eg_buf_free(b);
  free(b);
}

eg_stub *eg_stub_start(eg_stub_fn fn, void *ctx) {
  eg_stub *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->fn = fn;
  s->ctx = ctx;
  s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL,
                          NULL, handler, s, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                          MHD_OPTION_END);
  if (!s->d) {
    free(s);
    return NULL;
  }
  return s;
}

int eg_stub_port(const eg_stub *s) {
  return MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT)->port;
}
int eg_stub_requests(eg_stub *s) { return atomic_load(&s->requests); }

void eg_stub_stop(eg_stub *s) {
  if (!s) return;
  MHD_stop_daemon(s->d);
  free(s);
}
