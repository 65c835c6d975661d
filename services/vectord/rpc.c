/*
 * rpc.c — vectord's handlers: check the scope, call the engine.
 */
#include "common/rpc.h"

#include "common/scope.h"
#include "services/vectord/vec.h"

#define VEC_HANDLER(hname, Req, Resp, resp_init, engine_fn) \
  EG_SCOPED_HANDLER(hname, eg_vec, Req, Resp, resp_init, engine_fn)

VEC_HANDLER(h_upsert, Engram__V1__UpsertRequest, Engram__V1__UpsertResponse,
            engram__v1__upsert_response__init, eg_vec_upsert)
VEC_HANDLER(h_search, Engram__V1__SearchRequest, Engram__V1__SearchResponse,
            engram__v1__search_response__init, eg_vec_search)
VEC_HANDLER(h_get, Engram__V1__GetChunksRequest, Engram__V1__GetChunksResponse,
            engram__v1__get_chunks_response__init, eg_vec_get)
VEC_HANDLER(h_delete, Engram__V1__DeleteRequest, Engram__V1__DeleteResponse,
            engram__v1__delete_response__init, eg_vec_delete)
VEC_HANDLER(h_erase, Engram__V1__EraseRequest, Engram__V1__EraseResponse,
            engram__v1__erase_response__init, eg_vec_erase)
VEC_HANDLER(h_publish, Engram__V1__PublishRequest, Engram__V1__PublishResponse,
            engram__v1__publish_response__init, eg_vec_publish)

VEC_HANDLER(h_access, Engram__V1__RecordAccessRequest, Engram__V1__RecordAccessResponse,
            engram__v1__record_access_response__init, eg_vec_record_access)
VEC_HANDLER(h_get_retention, Engram__V1__GetRetentionRequest, Engram__V1__GetRetentionResponse,
            engram__v1__get_retention_response__init, eg_vec_get_retention)
VEC_HANDLER(h_set_retention, Engram__V1__SetRetentionPolicyRequest,
            Engram__V1__SetRetentionPolicyResponse, engram__v1__set_retention_policy_response__init,
            eg_vec_set_retention)
VEC_HANDLER(h_sweep, Engram__V1__SweepRetentionRequest, Engram__V1__SweepRetentionResponse,
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

eg_rpc_service eg_vectord_service(eg_vec *v) {
  eg_rpc_service s = {&engram__v1__vector__descriptor, vec_handlers,
                      sizeof vec_handlers / sizeof *vec_handlers, v};
  return s;
}
