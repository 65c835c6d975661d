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
eg_code eg_scope_fields_check(const Engram__V1__Scope *scope, eg_err *err);
/* The fields as above, then that this shard serves the tenant (common/shard.h). */
eg_code eg_scope_check(const Engram__V1__Scope *scope, eg_err *err);

/* The tenant of request m's "scope" field: "" when the scope or tenant is unset, NULL
 * when the message has no scope field. */
const char *eg_scope_tenant_of(const ProtobufCMessage *m);

/* When request m has a "scope" field that is unset, point it at scope (borrowed). */
void eg_scope_default(ProtobufCMessage *m, Engram__V1__Scope *scope);

/*
 * A handler of the common shape: check the request's scope, allocate the response in
 * the call's arena, call engine_fn(engine, req, arena, resp, err). Expands to a static
 * eg_rpc_handler named hname (include common/rpc.h first).
 */
#define EG_SCOPED_HANDLER(hname, Engine, Req, Resp, resp_init, engine_fn)                 \
  static eg_code hname(void *svc, eg_rpc_call *call, const ProtobufCMessage *reqm,        \
                       ProtobufCMessage **resp, eg_err *err) {                           \
    const Req *req = (const Req *)reqm;                                                   \
    eg_code rc = eg_scope_check(req->scope, err);                                         \
    if (rc) return rc;                                                                    \
    Resp *r = EG_RPC_NEW(call, Resp, resp_init);                                          \
    if (!r) return eg_err_set(err, EG_ENOMEM, "out of memory");                           \
    rc = engine_fn((Engine *)svc, req, eg_rpc_arena(call), r, err);                       \
    *resp = &r->base;                                                                     \
    return rc;                                                                            \
  }

#endif
