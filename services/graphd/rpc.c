/*
 * rpc.c — graphd's handlers: check the scope, then for a write pass the replica's write
 * gate and hand back the write's watermark, for a read wait for the request's watermark;
 * call the engine; hand back the response. Decoding and encoding are done by the RPC
 * framework.
 *
 * Every write response and read request of engram.v1.Graph has a `watermark` string
 * field (graph.proto): the handlers reach it through the message descriptor, so one
 * place serves every method.
 */
#include "services/graphd/rpc.h"

#include "common/scope.h"

#define WATERMARK_TAG 'g' /* "g1:<hex>" (common/replica.h) */

typedef enum call_kind { READ, WRITE, RESOLVE } call_kind;

typedef eg_code (*engine_fn)(eg_graph *g, const ProtobufCMessage *req, eg_arena *a,
                             ProtobufCMessage *resp, eg_err *err);

/* ResolveEntities writes only when a mention asks to create. */
static bool resolve_writes(const ProtobufCMessage *m) {
  const Engram__V1__ResolveEntitiesRequest *req = (const Engram__V1__ResolveEntitiesRequest *)m;
  for (size_t i = 0; i < req->n_mentions; i++)
    if (req->mentions[i]->create) return true;
  return false;
}

static eg_code graph_call(eg_graphd_svc *s, eg_rpc_call *call, call_kind kind,
                          const ProtobufCMessage *req, ProtobufCMessage *resp, engine_fn fn,
                          eg_err *err) {
  eg_arena *a = eg_rpc_arena(call);
  if (kind == READ || (kind == RESOLVE && !resolve_writes(req))) {
    uint64_t pos;
    int64_t deadline = 0;
    eg_code rc = eg_watermark_of_request(call, req, WATERMARK_TAG, "graph", &pos, &deadline, err);
    if (!rc && pos) rc = eg_kv_wait_position(eg_graph_store(s->graph), pos, deadline, err);
    return rc ? rc : fn(s->graph, req, a, resp, err);
  }
  eg_code rc = eg_replica_write_begin(s->replica, err);
  if (rc) return rc;
  rc = fn(s->graph, req, a, resp, err);
  eg_replica_write_end(s->replica);
  /* The position durable now: this write's, or a later one (waiting for it is as good). */
  return rc ? rc : eg_watermark_set(call, resp, WATERMARK_TAG, eg_graph_position(s->graph), err);
}

/* NOLINTBEGIN(bugprone-macro-parentheses): Req and Resp are type names */
#define GRAPH_HANDLER(hname, kind, Req, Resp, resp_init, engine)                                   \
  static eg_code hname##_engine(eg_graph *g, const ProtobufCMessage *req, eg_arena *a,             \
                                ProtobufCMessage *resp, eg_err *err) {                             \
    return engine(g, (const Req *)req, a, (Resp *)resp, err);                                      \
  }                                                                                                \
  static eg_code hname(void *svc, eg_rpc_call *call, const ProtobufCMessage *reqm,                 \
                       ProtobufCMessage **resp, eg_err *err) {                                     \
    EG_SCOPED_BEGIN(Req, Resp, resp_init);                                                         \
    if ((rc = eg_shard_check(&((eg_graphd_svc *)svc)->shard, req->scope->tenant, err))) return rc; \
    *resp = &r->base;                                                                              \
    return graph_call(svc, call, kind, reqm, &r->base, hname##_engine, err);                       \
  }
/* NOLINTEND(bugprone-macro-parentheses) */

GRAPH_HANDLER(h_commit, WRITE, Engram__V1__CommitRequest, Engram__V1__CommitResponse,
              engram__v1__commit_response__init, eg_graph_commit)
GRAPH_HANDLER(h_resolve, RESOLVE, Engram__V1__ResolveEntitiesRequest,
              Engram__V1__ResolveEntitiesResponse, engram__v1__resolve_entities_response__init,
              eg_graph_resolve)
GRAPH_HANDLER(h_get_entities, READ, Engram__V1__GetEntitiesRequest, Engram__V1__GetEntitiesResponse,
              engram__v1__get_entities_response__init, eg_graph_get_entities)
GRAPH_HANDLER(h_merge, WRITE, Engram__V1__MergeEntitiesRequest, Engram__V1__MergeEntitiesResponse,
              engram__v1__merge_entities_response__init, eg_graph_merge)
GRAPH_HANDLER(h_declare, WRITE, Engram__V1__DeclareRelationRequest,
              Engram__V1__DeclareRelationResponse, engram__v1__declare_relation_response__init,
              eg_graph_declare_relation)
GRAPH_HANDLER(h_list_relations, READ, Engram__V1__ListRelationsRequest,
              Engram__V1__ListRelationsResponse, engram__v1__list_relations_response__init,
              eg_graph_list_relations)
GRAPH_HANDLER(h_state, READ, Engram__V1__StateRequest, Engram__V1__StateResponse,
              engram__v1__state_response__init, eg_graph_state)
GRAPH_HANDLER(h_history, READ, Engram__V1__HistoryRequest, Engram__V1__HistoryResponse,
              engram__v1__history_response__init, eg_graph_history)
GRAPH_HANDLER(h_changes, READ, Engram__V1__ChangesRequest, Engram__V1__ChangesResponse,
              engram__v1__changes_response__init, eg_graph_changes)
GRAPH_HANDLER(h_traverse, READ, Engram__V1__TraverseRequest, Engram__V1__TraverseResponse,
              engram__v1__traverse_response__init, eg_graph_traverse)
GRAPH_HANDLER(h_walk, READ, Engram__V1__WalkRequest, Engram__V1__WalkResponse,
              engram__v1__walk_response__init, eg_graph_walk)
GRAPH_HANDLER(h_chunk_entities, READ, Engram__V1__ChunkEntitiesRequest,
              Engram__V1__ChunkEntitiesResponse, engram__v1__chunk_entities_response__init,
              eg_graph_chunk_entities)
GRAPH_HANDLER(h_erase, WRITE, Engram__V1__EraseRequest, Engram__V1__EraseResponse,
              engram__v1__erase_response__init, eg_graph_erase)
GRAPH_HANDLER(h_record_outcome, WRITE, Engram__V1__RecordOutcomeRequest,
              Engram__V1__RecordOutcomeResponse, engram__v1__record_outcome_response__init,
              eg_graph_record_outcome)
GRAPH_HANDLER(h_record_access, WRITE, Engram__V1__RecordAccessRequest,
              Engram__V1__RecordAccessResponse, engram__v1__record_access_response__init,
              eg_graph_record_access)
GRAPH_HANDLER(h_get_retention, READ, Engram__V1__GetRetentionRequest,
              Engram__V1__GetRetentionResponse, engram__v1__get_retention_response__init,
              eg_graph_get_retention)
GRAPH_HANDLER(h_set_retention, WRITE, Engram__V1__SetRetentionPolicyRequest,
              Engram__V1__SetRetentionPolicyResponse,
              engram__v1__set_retention_policy_response__init, eg_graph_set_retention_policy)

static eg_code unmerge_adapter(eg_graph *g, const Engram__V1__UnmergeEntitiesRequest *req,
                               eg_arena *a, Engram__V1__UnmergeEntitiesResponse *resp,
                               eg_err *err) {
  (void)resp;
  return eg_graph_unmerge(g, req, a, err);
}
GRAPH_HANDLER(h_unmerge, WRITE, Engram__V1__UnmergeEntitiesRequest,
              Engram__V1__UnmergeEntitiesResponse, engram__v1__unmerge_entities_response__init,
              unmerge_adapter)

static const eg_rpc_handler_entry graph_handlers[] = {
    {"Commit", h_commit},
    {"ResolveEntities", h_resolve},
    {"GetEntities", h_get_entities},
    {"MergeEntities", h_merge},
    {"UnmergeEntities", h_unmerge},
    {"DeclareRelation", h_declare},
    {"State", h_state},
    {"History", h_history},
    {"Changes", h_changes},
    {"Traverse", h_traverse},
    {"Walk", h_walk},
    {"ChunkEntities", h_chunk_entities},
    {"Erase", h_erase},
    {"ListRelations", h_list_relations},
    {"RecordOutcome", h_record_outcome},
    {"RecordAccess", h_record_access},
    {"GetRetention", h_get_retention},
    {"SetRetentionPolicy", h_set_retention},
};

eg_rpc_service eg_graphd_service(eg_graphd_svc *svc) {
  eg_rpc_service s = {&engram__v1__graph__descriptor, graph_handlers,
                      sizeof graph_handlers / sizeof *graph_handlers, svc};
  return s;
}
