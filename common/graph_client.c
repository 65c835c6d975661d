/*
 * graph_client.c — the method paths of engram.v1.Graph, each with its request and response
 * types (tests/unit/test_clients.c holds them to the generated service descriptors).
 */
#include "common/graph_client.h"

#define GRAPHD(fn, Method, Req, Resp, resp_desc) \
  EG_RPC_CLIENT_DEFINE(fn, "/engram.v1.Graph/" #Method, Req, Resp, resp_desc)

GRAPHD(eg_graphd_commit, Commit, Engram__V1__CommitRequest, Engram__V1__CommitResponse,
       engram__v1__commit_response__descriptor)
GRAPHD(eg_graphd_resolve_entities, ResolveEntities, Engram__V1__ResolveEntitiesRequest,
       Engram__V1__ResolveEntitiesResponse, engram__v1__resolve_entities_response__descriptor)
GRAPHD(eg_graphd_get_entities, GetEntities, Engram__V1__GetEntitiesRequest,
       Engram__V1__GetEntitiesResponse, engram__v1__get_entities_response__descriptor)
GRAPHD(eg_graphd_merge_entities, MergeEntities, Engram__V1__MergeEntitiesRequest,
       Engram__V1__MergeEntitiesResponse, engram__v1__merge_entities_response__descriptor)
GRAPHD(eg_graphd_unmerge_entities, UnmergeEntities, Engram__V1__UnmergeEntitiesRequest,
       Engram__V1__UnmergeEntitiesResponse, engram__v1__unmerge_entities_response__descriptor)
GRAPHD(eg_graphd_declare_relation, DeclareRelation, Engram__V1__DeclareRelationRequest,
       Engram__V1__DeclareRelationResponse, engram__v1__declare_relation_response__descriptor)
GRAPHD(eg_graphd_list_relations, ListRelations, Engram__V1__ListRelationsRequest,
       Engram__V1__ListRelationsResponse, engram__v1__list_relations_response__descriptor)
GRAPHD(eg_graphd_state, State, Engram__V1__StateRequest, Engram__V1__StateResponse,
       engram__v1__state_response__descriptor)
GRAPHD(eg_graphd_history, History, Engram__V1__HistoryRequest, Engram__V1__HistoryResponse,
       engram__v1__history_response__descriptor)
GRAPHD(eg_graphd_changes, Changes, Engram__V1__ChangesRequest, Engram__V1__ChangesResponse,
       engram__v1__changes_response__descriptor)
GRAPHD(eg_graphd_traverse, Traverse, Engram__V1__TraverseRequest, Engram__V1__TraverseResponse,
       engram__v1__traverse_response__descriptor)
GRAPHD(eg_graphd_walk, Walk, Engram__V1__WalkRequest, Engram__V1__WalkResponse,
       engram__v1__walk_response__descriptor)
GRAPHD(eg_graphd_chunk_entities, ChunkEntities, Engram__V1__ChunkEntitiesRequest,
       Engram__V1__ChunkEntitiesResponse, engram__v1__chunk_entities_response__descriptor)
GRAPHD(eg_graphd_erase, Erase, Engram__V1__EraseRequest, Engram__V1__EraseResponse,
       engram__v1__erase_response__descriptor)
GRAPHD(eg_graphd_record_outcome, RecordOutcome, Engram__V1__RecordOutcomeRequest,
       Engram__V1__RecordOutcomeResponse, engram__v1__record_outcome_response__descriptor)
GRAPHD(eg_graphd_record_access, RecordAccess, Engram__V1__RecordAccessRequest,
       Engram__V1__RecordAccessResponse, engram__v1__record_access_response__descriptor)
GRAPHD(eg_graphd_get_retention, GetRetention, Engram__V1__GetRetentionRequest,
       Engram__V1__GetRetentionResponse, engram__v1__get_retention_response__descriptor)
GRAPHD(eg_graphd_set_retention_policy, SetRetentionPolicy, Engram__V1__SetRetentionPolicyRequest,
       Engram__V1__SetRetentionPolicyResponse,
       engram__v1__set_retention_policy_response__descriptor)
