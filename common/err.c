/*
 * err.c — eg_err helpers and the code tables generated from EG_ERR_TABLE.
 */
#include "common/err.h"

#include <stdio.h>
#include <string.h>

eg_code eg_err_setv(eg_err *err, eg_code code, const char *fmt, va_list ap) {
  if (err) {
    err->code = code;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  }
  return code;
}

eg_code eg_err_set(eg_err *err, eg_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  eg_err_setv(err, code, fmt, ap);
  va_end(ap);
  return code;
}

void eg_err_prefix(eg_err *err, const char *prefix) {
  char tmp[EG_ERR_MSG_MAX];
  if (!err || !prefix) return;
  snprintf(tmp, sizeof tmp, "%s%s", prefix, err->msg);
  memcpy(err->msg, tmp, sizeof tmp);
}

void eg_err_clear(eg_err *err) {
  if (!err) return;
  err->code = EG_OK;
  err->msg[0] = '\0';
}

const char *eg_code_name(eg_code code) {
  switch (code) {
#define EG_ERR_NAME(c, v, n, g) \
  case c:                       \
    return n;
    EG_ERR_TABLE(EG_ERR_NAME)
#undef EG_ERR_NAME
  }
  return "UNKNOWN";
}

int eg_code_to_grpc(eg_code code) {
  switch (code) {
#define EG_ERR_GRPC(c, v, n, g) \
  case c:                       \
    return g;
    EG_ERR_TABLE(EG_ERR_GRPC)
#undef EG_ERR_GRPC
  }
  return 2; /* UNKNOWN */
}

eg_code eg_code_from_grpc(int grpc_status) {
#define EG_ERR_FROM(c, v, n, g) \
  if ((g) == grpc_status) return c;
  EG_ERR_TABLE(EG_ERR_FROM)
#undef EG_ERR_FROM
  return EG_EUNKNOWN;
}
