/*
 * vector_client.c — the method paths of engram.v1.Vector, each with its request and response
 * types (tests/unit/test_clients.c holds them to the generated service descriptors).
 */
#include "common/vector_client.h"

#define VECTORD(fn, Method, Req, Resp, resp_desc) \
  EG_RPC_CLIENT_DEFINE(fn, "/engram.v1.Vector/" #Method, Req, Resp, resp_desc)

VECTORD(eg_vectord_upsert, Upsert, Engram__V1__UpsertRequest, Engram__V1__UpsertResponse,
        engram__v1__upsert_response__descriptor)
VECTORD(eg_vectord_search, Search, Engram__V1__SearchRequest, Engram__V1__SearchResponse,
        engram__v1__search_response__descriptor)
VECTORD(eg_vectord_get_chunks, GetChunks, Engram__V1__GetChunksRequest,
        Engram__V1__GetChunksResponse, engram__v1__get_chunks_response__descriptor)
VECTORD(eg_vectord_delete, Delete, Engram__V1__DeleteRequest, Engram__V1__DeleteResponse,
        engram__v1__delete_response__descriptor)
VECTORD(eg_vectord_erase, Erase, Engram__V1__EraseRequest, Engram__V1__EraseResponse,
        engram__v1__erase_response__descriptor)
VECTORD(eg_vectord_publish, Publish, Engram__V1__PublishRequest, Engram__V1__PublishResponse,
        engram__v1__publish_response__descriptor)
VECTORD(eg_vectord_record_access, RecordAccess, Engram__V1__RecordAccessRequest,
        Engram__V1__RecordAccessResponse, engram__v1__record_access_response__descriptor)
VECTORD(eg_vectord_get_retention, GetRetention, Engram__V1__GetRetentionRequest,
        Engram__V1__GetRetentionResponse, engram__v1__get_retention_response__descriptor)
VECTORD(eg_vectord_set_retention_policy, SetRetentionPolicy, Engram__V1__SetRetentionPolicyRequest,
        Engram__V1__SetRetentionPolicyResponse,
        engram__v1__set_retention_policy_response__descriptor)
VECTORD(eg_vectord_sweep_retention, SweepRetention, Engram__V1__SweepRetentionRequest,
        Engram__V1__SweepRetentionResponse, engram__v1__sweep_retention_response__descriptor)
