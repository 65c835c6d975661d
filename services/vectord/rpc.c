/*
 * rpc.c — vectord's handlers: check the scope, then for a write pass the replica's write
 * gate and hand back the write's watermark, for a read wait until the request's watermark
 * is searchable here; call the engine. Every write response and read request of
 * engram.v1.Vector has a `watermark` string field, reached through the message
 * descriptor (common/replica.h).
 */
#include "services/vectord/rpc.h"

#include "common/scope.h"

#define WATERMARK_TAG 'v' /* "v1:<hex>" */

typedef enum call_kind { READ, WRITE } call_kind;

typedef eg_code (*engine_fn)(eg_vec *v, const ProtobufCMessage *req, eg_arena *a,
                             ProtobufCMessage *resp, eg_err *err);

static eg_code vec_call(eg_vectord_svc *s, eg_rpc_call *call, call_kind kind,
                        const ProtobufCMessage *req, ProtobufCMessage *resp, engine_fn fn,
                        eg_err *err) {
  eg_arena *a = eg_rpc_arena(call);
  if (kind == READ) {
    uint64_t pos;
    int64_t deadline = 0;
    eg_code rc = eg_watermark_of_request(call, req, WATERMARK_TAG, "vector", &pos, &deadline, err);
    if (!rc && pos) rc = eg_vec_wait_visible(s->vec, pos, deadline, err);
    return rc ? rc : fn(s->vec, req, a, resp, err);
  }
  eg_code rc = eg_replica_write_begin(s->replica, err);
  if (rc) return rc;
  rc = fn(s->vec, req, a, resp, err);
  eg_replica_write_end(s->replica);
  /* The position durable now: this write's or a later one; a read waiting for it waits
   * for every write up to it to be searchable too. */
  return rc ? rc : eg_watermark_set(call, resp, WATERMARK_TAG, eg_vec_position(s->vec), err);
}

/* NOLINTBEGIN(bugprone-macro-parentheses): Req and Resp are type names */
#define VEC_HANDLER(hname, kind, Req, Resp, resp_init, engine)                           \
  static eg_code hname##_engine(eg_vec *v, const ProtobufCMessage *req, eg_arena *a,     \
                                ProtobufCMessage *resp, eg_err *err) {                   \
    return engine(v, (const Req *)req, a, (Resp *)resp, err);                            \
  }                                                                                      \
  static eg_code hname(void *svc, eg_rpc_call *call, const ProtobufCMessage *reqm,       \
                       ProtobufCMessage **resp, eg_err *err) {                           \
    EG_SCOPED_BEGIN(Req, Resp, resp_init);                                               \
    if ((rc = eg_shard_check(&((eg_vectord_svc *)svc)->shard, req->scope->tenant, err))) \
      return rc;                                                                         \
    *resp = &r->base;                                                                    \
    return vec_call(svc, call, kind, reqm, &r->base, hname##_engine, err);               \
  }
/* NOLINTEND(bugprone-macro-parentheses) */

VEC_HANDLER(h_upsert, WRITE, Engram__V1__UpsertRequest, Engram__V1__UpsertResponse,
            engram__v1__upsert_response__init, eg_vec_upsert)
VEC_HANDLER(h_search, READ, Engram__V1__SearchRequest, Engram__V1__SearchResponse,
            engram__v1__search_response__init, eg_vec_search)
VEC_HANDLER(h_get, READ, Engram__V1__GetChunksRequest, Engram__V1__GetChunksResponse,
            engram__v1__get_chunks_response__init, eg_vec_get)
VEC_HANDLER(h_delete, WRITE, Engram__V1__DeleteRequest, Engram__V1__DeleteResponse,
            engram__v1__delete_response__init, eg_vec_delete)
VEC_HANDLER(h_erase, WRITE, Engram__V1__EraseRequest, Engram__V1__EraseResponse,
            engram__v1__erase_response__init, eg_vec_erase)
VEC_HANDLER(h_publish, WRITE, Engram__V1__PublishRequest, Engram__V1__PublishResponse,
            engram__v1__publish_response__init, eg_vec_publish)

VEC_HANDLER(h_access, WRITE, Engram__V1__RecordAccessRequest, Engram__V1__RecordAccessResponse,
            engram__v1__record_access_response__init, eg_vec_record_access)
VEC_HANDLER(h_get_retention, READ, Engram__V1__GetRetentionRequest,
            Engram__V1__GetRetentionResponse, engram__v1__get_retention_response__init,
            eg_vec_get_retention)
VEC_HANDLER(h_set_retention, WRITE, Engram__V1__SetRetentionPolicyRequest,
            Engram__V1__SetRetentionPolicyResponse, engram__v1__set_retention_policy_response__init,
            eg_vec_set_retention)
VEC_HANDLER(h_sweep, WRITE, Engram__V1__SweepRetentionRequest, Engram__V1__SweepRetentionResponse,
            engram__v1__sweep_retention_response__init, eg_vec_sweep)

static const eg_rpc_handler_entry vec_handlers[] = {
    {"Upsert", h_upsert},
    {"Search", h_search},
    {"GetChunks", h_get},
    {"Delete", h_delete},
    {"Erase", h_erase},
    {"Publish", h_publish},
    {"RecordAccess", h_access},
    {"GetRetention", h_get_retention},
    {"SetRetentionPolicy", h_set_retention},
    {"SweepRetention", h_sweep},
};

eg_rpc_service eg_vectord_service(eg_vectord_svc *svc) {
  eg_rpc_service s = {&engram__v1__vector__descriptor, vec_handlers,
                      sizeof vec_handlers / sizeof *vec_handlers, svc};
  return s;
}
