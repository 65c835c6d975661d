/*
 * scope.h — validation of the Scope every request carries.
 */
#ifndef EG_SCOPE_H
#define EG_SCOPE_H

#include "common/err.h"
#include "proto/engram/v1/common.pb-c.h"

#define EG_SCOPE_FIELD_MAX 256

/* tenant required; tenant, user and agent at most 256 bytes of UTF-8 without control
 * characters. EG_EINVAL with a message naming the field otherwise. */
eg_code eg_scope_check(const Engram__V1__Scope *scope, eg_err *err);

#endif
