/*
 * scope.h — validation of the Scope every request carries.
 */
#ifndef EG_SCOPE_H
#define EG_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "proto/engram/v1/common.pb-c.h"

#define EG_SCOPE_FIELD_MAX 256

/* tenant required; tenant, user and agent at most 256 bytes of UTF-8 without control
 * characters. EG_EINVAL with a message naming the field otherwise. */
eg_code eg_scope_fields_check(const Engram__V1__Scope *scope, eg_err *err);

/*
 * Privacy between the users of a tenant, the one rule every read path applies to an item
 * (a chunk, an edge) written under some scope:
 *   - an item written private (scope.private) is seen only by readers naming its agent;
 *   - a reader whose scope names a user sees that user's items and the tenant's shared
 *     ones (written without a user), never another user's;
 *   - a reader without a user sees the whole tenant (the tenant's own tools: audit,
 *     export, erasure checks).
 * The caller compares the strings (or their hashes) and passes what it found.
 */
static inline bool eg_scope_visible(bool reader_has_user, bool item_has_user, bool same_user,
                                    bool item_private, bool same_agent) {
  if (item_private && !same_agent) return false;
  return !reader_has_user || !item_has_user || same_user;
}

/* The same rule for an item whose user and agent are strings (NULL = ""). */
bool eg_scope_sees(const Engram__V1__Scope *reader, const char *user, const char *agent,
                   bool item_private);

/* The tenant of request m's "scope" field: "" when the scope or tenant is unset, NULL
 * when the message has no scope field. */
const char *eg_scope_tenant_of(const ProtobufCMessage *m);

/* The graph entity that stands for a scope's user in the facts read from their words:
 * "user:<user>", or "user:default" without a user. Written into out (len bytes, cut when
 * shorter than EG_SCOPE_USER_ENTITY_MAX). */
#define EG_SCOPE_USER_ENTITY_MAX (EG_SCOPE_FIELD_MAX + 16)
void eg_scope_user_entity(const char *user, char *out, size_t len);

/* When request m has a "scope" field that is unset, point it at scope (borrowed); when it
 * is set, complete it: its empty tenant, user and agent are taken from scope (borrowed). */
void eg_scope_default(ProtobufCMessage *m, Engram__V1__Scope *scope);

/*
 * A handler of the common shape: check the request's scope, allocate the response in
 * the call's arena, call engine_fn(engine, req, arena, resp, err). Expands to a static
 * eg_rpc_handler named hname (include common/rpc.h first).
 */
/* NOLINTBEGIN(bugprone-macro-parentheses): Engine, Req and Resp are type names */
/* The start of such a handler (reqm, call and err in scope): declares req, the request as
 * Req with its scope checked, and r, a Resp in the call's arena; returns on failure. */
#define EG_SCOPED_BEGIN(Req, Resp, resp_init)          \
  const Req *req = (const Req *)reqm;                  \
  eg_code rc = eg_scope_fields_check(req->scope, err); \
  if (rc) return rc;                                   \
  Resp *r = EG_RPC_NEW(call, Resp, resp_init);         \
  if (!r) return eg_err_set(err, EG_ENOMEM, "out of memory")

#define EG_SCOPED_HANDLER(hname, Engine, Req, Resp, resp_init, engine_fn)          \
  static eg_code hname(void *svc, eg_rpc_call *call, const ProtobufCMessage *reqm, \
                       ProtobufCMessage **resp, eg_err *err) {                     \
    EG_SCOPED_BEGIN(Req, Resp, resp_init);                                         \
    rc = engine_fn((Engine *)svc, req, eg_rpc_arena(call), r, err);                \
    *resp = &r->base;                                                              \
    return rc;                                                                     \
  }
/* NOLINTEND(bugprone-macro-parentheses) */

#endif
