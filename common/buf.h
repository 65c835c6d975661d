/*
 * buf.h — a growable byte buffer with a hard cap (like curl's dynbuf).
 *
 * The buffer is always NUL-terminated when len > 0 so text can be used in place.
 * Appending past `max` fails with EG_EFULL and leaves the buffer as it was.
 */
#ifndef EG_BUF_H
#define EG_BUF_H

#include <stddef.h>

#include "common/err.h"

typedef struct eg_buf {
  char *data; /* owned; NULL until the first append */
  size_t len; /* bytes used, excluding the trailing NUL */
  size_t cap; /* bytes allocated */
  size_t max; /* hard cap on len; 0 = 64 MiB */
} eg_buf;

#define EG_BUF_INIT \
  { NULL, 0, 0, 0 }

eg_code eg_buf_append(eg_buf *b, const void *p, size_t n);
eg_code eg_buf_puts(eg_buf *b, const char *s);
eg_code eg_buf_printf(eg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append the bytes of the file at path. EG_EIO naming the path when it cannot be read. */
eg_code eg_buf_read_file(eg_buf *b, const char *path, eg_err *err);
/* Give the caller the data (caller frees with free()); the buffer is reset. */
char *eg_buf_detach(eg_buf *b, size_t *len);
void eg_buf_reset(eg_buf *b); /* len = 0, memory kept */
void eg_buf_free(eg_buf *b);  /* accepts a zeroed buffer */

#endif
