/*
 * rpc.c — graphd's handlers: check the scope, call the engine, hand back the response.
 * Decoding and encoding are done by the RPC framework.
 */
#include "services/graphd/rpc.h"

#include "common/scope.h"

#define GRAPH_HANDLER(hname, Req, Resp, resp_init, engine_fn) \
  EG_SCOPED_HANDLER(hname, eg_graph, Req, Resp, resp_init, engine_fn)

GRAPH_HANDLER(h_commit, Engram__V1__CommitRequest, Engram__V1__CommitResponse,
              engram__v1__commit_response__init, eg_graph_commit)
GRAPH_HANDLER(h_resolve, Engram__V1__ResolveEntitiesRequest, Engram__V1__ResolveEntitiesResponse,
              engram__v1__resolve_entities_response__init, eg_graph_resolve)
GRAPH_HANDLER(h_get_entities, Engram__V1__GetEntitiesRequest, Engram__V1__GetEntitiesResponse,
              engram__v1__get_entities_response__init, eg_graph_get_entities)
GRAPH_HANDLER(h_merge, Engram__V1__MergeEntitiesRequest, Engram__V1__MergeEntitiesResponse,
              engram__v1__merge_entities_response__init, eg_graph_merge)
GRAPH_HANDLER(h_declare, Engram__V1__DeclareRelationRequest, Engram__V1__DeclareRelationResponse,
              engram__v1__declare_relation_response__init, eg_graph_declare_relation)
GRAPH_HANDLER(h_list_relations, Engram__V1__ListRelationsRequest, Engram__V1__ListRelationsResponse,
              engram__v1__list_relations_response__init, eg_graph_list_relations)
GRAPH_HANDLER(h_state, Engram__V1__StateRequest, Engram__V1__StateResponse,
              engram__v1__state_response__init, eg_graph_state)
GRAPH_HANDLER(h_history, Engram__V1__HistoryRequest, Engram__V1__HistoryResponse,
              engram__v1__history_response__init, eg_graph_history)
GRAPH_HANDLER(h_changes, Engram__V1__ChangesRequest, Engram__V1__ChangesResponse,
              engram__v1__changes_response__init, eg_graph_changes)
GRAPH_HANDLER(h_traverse, Engram__V1__TraverseRequest, Engram__V1__TraverseResponse,
              engram__v1__traverse_response__init, eg_graph_traverse)
GRAPH_HANDLER(h_walk, Engram__V1__WalkRequest, Engram__V1__WalkResponse,
              engram__v1__walk_response__init, eg_graph_walk)
GRAPH_HANDLER(h_chunk_entities, Engram__V1__ChunkEntitiesRequest,
              Engram__V1__ChunkEntitiesResponse, engram__v1__chunk_entities_response__init,
              eg_graph_chunk_entities)
GRAPH_HANDLER(h_erase, Engram__V1__EraseRequest, Engram__V1__EraseResponse,
              engram__v1__erase_response__init, eg_graph_erase)
GRAPH_HANDLER(h_record_outcome, Engram__V1__RecordOutcomeRequest, Engram__V1__RecordOutcomeResponse,
              engram__v1__record_outcome_response__init, eg_graph_record_outcome)
GRAPH_HANDLER(h_record_access, Engram__V1__RecordAccessRequest, Engram__V1__RecordAccessResponse,
              engram__v1__record_access_response__init, eg_graph_record_access)
GRAPH_HANDLER(h_get_retention, Engram__V1__GetRetentionRequest, Engram__V1__GetRetentionResponse,
              engram__v1__get_retention_response__init, eg_graph_get_retention)
GRAPH_HANDLER(h_set_retention, Engram__V1__SetRetentionPolicyRequest, Engram__V1__SetRetentionPolicyResponse,
              engram__v1__set_retention_policy_response__init, eg_graph_set_retention_policy)

static eg_code unmerge_adapter(eg_graph *g, const Engram__V1__UnmergeEntitiesRequest *req,
                               eg_arena *a, Engram__V1__UnmergeEntitiesResponse *resp,
                               eg_err *err) {
  (void)resp;
  return eg_graph_unmerge(g, req, a, err);
}
GRAPH_HANDLER(h_unmerge, Engram__V1__UnmergeEntitiesRequest, Engram__V1__UnmergeEntitiesResponse,
              engram__v1__unmerge_entities_response__init, unmerge_adapter)

static const eg_rpc_handler_entry graph_handlers[] = {
    {"Commit", h_commit},           {"ResolveEntities", h_resolve},
    {"GetEntities", h_get_entities}, {"MergeEntities", h_merge},
    {"UnmergeEntities", h_unmerge}, {"DeclareRelation", h_declare},
    {"State", h_state},             {"History", h_history},
    {"Changes", h_changes},         {"Traverse", h_traverse},
    {"Walk", h_walk},               {"ChunkEntities", h_chunk_entities},
    {"Erase", h_erase},             {"ListRelations", h_list_relations},
    {"RecordOutcome", h_record_outcome}, {"RecordAccess", h_record_access},
    {"GetRetention", h_get_retention},   {"SetRetentionPolicy", h_set_retention},
};

eg_rpc_service eg_graphd_service(eg_graph *g) {
  eg_rpc_service s = {&engram__v1__graph__descriptor, graph_handlers,
                      sizeof graph_handlers / sizeof *graph_handlers, g};
  return s;
}
