/*
 * buf.c — growable, capped byte buffer.
 */
#include "common/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EG_BUF_DEFAULT_MAX ((size_t)64 << 20)

static eg_code buf_reserve(eg_buf *b, size_t extra) {
  size_t max = b->max ? b->max : EG_BUF_DEFAULT_MAX;
  if (extra > max || b->len > max - extra) return EG_EFULL;
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return EG_OK;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) return EG_ENOMEM;
  b->data = p;
  b->cap = cap;
  return EG_OK;
}

eg_code eg_buf_append(eg_buf *b, const void *p, size_t n) {
  eg_code rc = buf_reserve(b, n);
  if (rc) return rc;
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
  return EG_OK;
}

eg_code eg_buf_puts(eg_buf *b, const char *s) { return eg_buf_append(b, s, strlen(s)); }

eg_code eg_buf_printf(eg_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return EG_EINVAL;
  eg_code rc = buf_reserve(b, (size_t)n);
  if (rc) return rc;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return EG_OK;
}

char *eg_buf_detach(eg_buf *b, size_t *len) {
  char *p = b->data;
  if (len) *len = b->len;
  b->data = NULL;
  b->len = b->cap = 0;
  return p;
}

void eg_buf_reset(eg_buf *b) {
  b->len = 0;
  if (b->data) b->data[0] = '\0';
}

void eg_buf_free(eg_buf *b) {
  if (!b) return;
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

eg_code eg_buf_read_file(eg_buf *b, const char *path, eg_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return eg_err_set(err, EG_EIO, "cannot read %.200s", path);
  char chunk[8192];
  size_t n;
  eg_code rc = EG_OK;
  while (!rc && (n = fread(chunk, 1, sizeof chunk, f)) > 0) rc = eg_buf_append(b, chunk, n);
  if (!rc && ferror(f)) rc = EG_EIO;
  fclose(f);
  return rc ? eg_err_set(err, rc, "cannot read %.200s", path) : EG_OK;
}
