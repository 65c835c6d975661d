/*
 * err.h — the one error type of Engram.
 *
 * Every fallible function returns an eg_code (EG_OK = 0) and, when given a non-NULL
 * eg_err *, fills it with the code and a log-safe message. Messages never contain user
 * content: they name fields, limits and ids, not payloads.
 *
 * The table below is the single source of truth: each code's name and the gRPC status
 * it maps to. Codes are append-only; their numbers never change.
 */
#ifndef EG_ERR_H
#define EG_ERR_H

#include <stdarg.h>

/* X(code, value, name, grpc_status). gRPC status numbers are the wire values. */
#define EG_ERR_TABLE(X)                        \
  X(EG_OK, 0, "OK", 0)                         \
  X(EG_EINVAL, 1, "INVALID_ARGUMENT", 3)       \
  X(EG_ENOTFOUND, 2, "NOT_FOUND", 5)           \
  X(EG_EEXIST, 3, "ALREADY_EXISTS", 6)         \
  X(EG_EPERM, 4, "PERMISSION_DENIED", 7)       \
  X(EG_EUNAUTH, 5, "UNAUTHENTICATED", 16)      \
  X(EG_EFULL, 6, "RESOURCE_EXHAUSTED", 8)      \
  X(EG_ETIMEOUT, 7, "DEADLINE_EXCEEDED", 4)    \
  X(EG_ECANCELLED, 8, "CANCELLED", 1)          \
  X(EG_EUNIMPL, 9, "UNIMPLEMENTED", 12)        \
  X(EG_EUNAVAIL, 10, "UNAVAILABLE", 14)        \
  X(EG_EIO, 11, "IO_ERROR", 13)                \
  X(EG_ENOMEM, 12, "OUT_OF_MEMORY", 8)         \
  X(EG_ECORRUPT, 13, "DATA_LOSS", 15)          \
  X(EG_EPRECOND, 14, "FAILED_PRECONDITION", 9) \
  X(EG_ERANGE, 15, "OUT_OF_RANGE", 11)         \
  X(EG_EABORTED, 16, "ABORTED", 10)            \
  X(EG_EINTERNAL, 17, "INTERNAL", 13)          \
  X(EG_EUNKNOWN, 18, "UNKNOWN", 2)

typedef enum eg_code {
#define EG_ERR_ENUM(c, v, n, g) c = (v),
  EG_ERR_TABLE(EG_ERR_ENUM)
#undef EG_ERR_ENUM
} eg_code;

#define EG_ERR_MSG_MAX 256

typedef struct eg_err {
  eg_code code;             /* EG_OK when no error was recorded */
  char msg[EG_ERR_MSG_MAX]; /* log-safe, NUL-terminated */
} eg_err;

/* Record code and a printf-style message in err (which may be NULL). Returns code, so a
 * caller can write `return eg_err_set(err, EG_EINVAL, "k must be <= %d", max);`. */
eg_code eg_err_set(eg_err *err, eg_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
eg_code eg_err_setv(eg_err *err, eg_code code, const char *fmt, va_list ap);

/* Prefix the existing message with context: "graphd: " + msg. */
void eg_err_prefix(eg_err *err, const char *prefix);

void eg_err_clear(eg_err *err);

/* "INVALID_ARGUMENT" etc.; "UNKNOWN" for a value outside the table. */
const char *eg_code_name(eg_code code);

/* The gRPC status number for a code. */
int eg_code_to_grpc(eg_code code);

/* The code for a gRPC status number (several codes share INTERNAL/RESOURCE_EXHAUSTED:
 * the first in the table wins). */
eg_code eg_code_from_grpc(int grpc_status);

#endif
