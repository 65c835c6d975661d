/*
 * http.c — libcurl POST with retries and backoff.
 */
#include "common/http.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/log.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }
void eg_http_global_init(void) { pthread_once(&curl_once, curl_init); }

typedef struct sink {
  eg_buf *out;
  long retry_after_s;
} sink;

static size_t on_body(char *p, size_t size, size_t n, void *ud) {
  sink *s = ud;
  if (eg_buf_append(s->out, p, size * n) != EG_OK) return 0; /* too large: abort */
  return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud) {
  sink *s = ud;
  size_t len = size * n;
  if (len > 12 && strncasecmp(p, "retry-after:", 12) == 0) s->retry_after_s = atol(p + 12);
  return len;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

eg_code eg_http_post_json(const char *url, const char *body, size_t body_len, const eg_http_opts *o,
                          long *status, eg_buf *out, eg_err *err) {
  eg_http_global_init();
  long timeout = o && o->timeout_ms > 0 ? o->timeout_ms : 30000;
  int attempts = o && o->max_attempts > 0 ? o->max_attempts : 4;
  long backoff = o && o->backoff_ms > 0 ? o->backoff_ms : 200;
  CURL *c = curl_easy_init();
  if (!c) return eg_err_set(err, EG_ENOMEM, "cannot create an HTTP handle");
  struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
  if (o && o->api_key && *o->api_key) {
    char auth[600];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", o->api_key);
    hdr = curl_slist_append(hdr, auth);
  }
  sink s = {out, 0};
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout < 5000 ? timeout : 5000);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &s);
  eg_code rc = EG_EUNAVAIL;
  long code = 0;
  for (int a = 1; a <= attempts; a++) {
    eg_buf_reset(out);
    s.retry_after_s = 0;
    CURLcode cc = curl_easy_perform(c);
    code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    bool retry;
    if (cc == CURLE_OPERATION_TIMEDOUT) {
      rc = eg_err_set(err, EG_ETIMEOUT, "%s: timed out after %ld ms", url, timeout);
      retry = true;
    } else if (cc != CURLE_OK) {
      rc = eg_err_set(err, EG_EUNAVAIL, "%s: %s", url, curl_easy_strerror(cc));
      retry = true;
    } else if (code >= 200 && code < 300) {
      rc = EG_OK;
      break;
    } else if (code == 429 || code >= 500) {
      rc = eg_err_set(err, EG_EUNAVAIL, "%s: HTTP %ld", url, code);
      retry = true;
    } else {
      eg_code k = (code == 401 || code == 403) ? EG_EUNAUTH
                  : code == 404                ? EG_ENOTFOUND
                                               : EG_EINVAL;
      rc = eg_err_set(err, k, "%s: HTTP %ld", url, code);
      retry = false;
    }
    if (!retry || a == attempts) break;
    long wait = s.retry_after_s > 0 && s.retry_after_s < 60 ? s.retry_after_s * 1000 : backoff;
    EG_WARN("http", "retrying", "url=%s attempt=%d status=%ld wait_ms=%ld", url, a, code, wait);
    sleep_ms(wait);
    backoff *= 2;
  }
  if (status) *status = code;
  curl_slist_free_all(hdr);
  curl_easy_cleanup(c);
  return rc;
}
