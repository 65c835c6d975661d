/*
 * stub_http.h — a small local HTTP server for tests of clients of external APIs
 * (OpenAI-compatible embeddings, chat completions, rerank): the test decides each answer.
 */
#ifndef EG_TESTS_STUB_HTTP_H
#define EG_TESTS_STUB_HTTP_H

#include <stddef.h>

typedef struct eg_stub eg_stub;

/* The answer to one request. body is malloc'd by the handler (the stub frees it). */
typedef struct eg_stub_reply {
  int status;              /* HTTP status */
  char *body;              /* response body (JSON) */
  long delay_ms;           /* sleep before answering */
  const char *retry_after; /* optional Retry-After header */
} eg_stub_reply;

/* handler(ctx, url, authorization header or NULL, request body) → reply. Runs on the
 * stub's threads. */
typedef eg_stub_reply (*eg_stub_fn)(void *ctx, const char *url, const char *auth, const char *body);

/* Start on 127.0.0.1 on a free port; NULL on failure. */
eg_stub *eg_stub_start(eg_stub_fn fn, void *ctx);
int eg_stub_port(const eg_stub *s);
/* Requests served so far. */
int eg_stub_requests(eg_stub *s);
void eg_stub_stop(eg_stub *s);

#endif
