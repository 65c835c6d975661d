/*
 * http.h — JSON over HTTP(S) with libcurl, for the OpenAI-compatible clients (embeddings,
 * chat completions, rerank).
 *
 * One call = one logical request: it retries with exponential backoff on connection
 * errors, 429 and 5xx (honouring Retry-After when given), up to max_attempts, each
 * attempt bounded by timeout_ms. Errors name the endpoint and the HTTP status, never
 * the request body or the key.
 */
#ifndef EG_HTTP_H
#define EG_HTTP_H

#include "common/buf.h"
#include "common/err.h"

typedef struct eg_http_opts {
  const char *api_key; /* sent as "Authorization: Bearer <key>" when non-empty */
  long timeout_ms;     /* per attempt; 0 = 30000 */
  int max_attempts;    /* 0 = 4 */
  long backoff_ms;     /* first retry delay, doubled each time; 0 = 200 */
} eg_http_opts;

/* POST body (JSON) to url; on success (2xx) *status is set and out holds the response
 * body. A non-retryable 4xx returns EG_EINVAL (400/422), EG_EUNAUTH (401/403),
 * EG_ENOTFOUND (404); exhausted retries EG_EUNAVAIL; a timeout EG_ETIMEOUT. */
eg_code eg_http_post_json(const char *url, const char *body, size_t body_len,
                          const eg_http_opts *opts, long *status, eg_buf *out, eg_err *err);

/* curl_global_init, once per process (thread-safe). */
void eg_http_global_init(void);

#endif
