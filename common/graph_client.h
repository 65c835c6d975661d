/*
 * graph_client.h — typed calls to graphd: one function per RPC of engram.v1.Graph.
 *
 * Each RPC is declared with EG_RPC_CLIENT_DECLARE (common/rpc.h): eg_graphd_<method> calls it
 * and waits; eg_graphd_<method>_call prepares it for a fan-out (eg_rpc_fanout) with the
 * other calls of a step. The client is the graphd shard of the tenant
 * (eg_peers_graphd) or a channel of its own. Thread-safe as eg_rpc_client is.
 */
#ifndef EG_GRAPH_CLIENT_H
#define EG_GRAPH_CLIENT_H

#include "common/rpc.h"
#include "proto/engram/v1/graph.pb-c.h"

/* ---- engram.v1.Graph ---- */

/* Graph.Commit: Commit a batch of edges atomically; assigns ids and one t_commit. */
EG_RPC_CLIENT_DECLARE(eg_graphd_commit, Engram__V1__CommitRequest, Engram__V1__CommitResponse);
/* Graph.ResolveEntities: Resolve (and optionally create) entities by normalized name and alias. */
EG_RPC_CLIENT_DECLARE(eg_graphd_resolve_entities, Engram__V1__ResolveEntitiesRequest,
                      Engram__V1__ResolveEntitiesResponse);
/* Graph.GetEntities: Fetch entities by id. */
EG_RPC_CLIENT_DECLARE(eg_graphd_get_entities, Engram__V1__GetEntitiesRequest,
                      Engram__V1__GetEntitiesResponse);
/* Graph.MergeEntities: Merge two entities (recorded, reversible). */
EG_RPC_CLIENT_DECLARE(eg_graphd_merge_entities, Engram__V1__MergeEntitiesRequest,
                      Engram__V1__MergeEntitiesResponse);
/* Graph.UnmergeEntities: Undo a recorded merge. */
EG_RPC_CLIENT_DECLARE(eg_graphd_unmerge_entities, Engram__V1__UnmergeEntitiesRequest,
                      Engram__V1__UnmergeEntitiesResponse);
/* Graph.DeclareRelation: Declare a relation and its cardinality. */
EG_RPC_CLIENT_DECLARE(eg_graphd_declare_relation, Engram__V1__DeclareRelationRequest,
                      Engram__V1__DeclareRelationResponse);
/* Graph.ListRelations: The relations a commit of the tenant knows: built-in and declared, with
 * cardinality. */
EG_RPC_CLIENT_DECLARE(eg_graphd_list_relations, Engram__V1__ListRelationsRequest,
                      Engram__V1__ListRelationsResponse);
/* Graph.State: State as of (valid_at, known_at). */
EG_RPC_CLIENT_DECLARE(eg_graphd_state, Engram__V1__StateRequest, Engram__V1__StateResponse);
/* Graph.History: The commit log of a (subject, relation) chain. */
EG_RPC_CLIENT_DECLARE(eg_graphd_history, Engram__V1__HistoryRequest, Engram__V1__HistoryResponse);
/* Graph.Changes: What was learned between two transaction times (the window is of t_commit, not of
 * valid time). */
EG_RPC_CLIENT_DECLARE(eg_graphd_changes, Engram__V1__ChangesRequest, Engram__V1__ChangesResponse);
/* Graph.Traverse: Bounded path traversal from seed entities. */
EG_RPC_CLIENT_DECLARE(eg_graphd_traverse, Engram__V1__TraverseRequest,
                      Engram__V1__TraverseResponse);
/* Graph.Walk: The premise walk: epistemic status of claims. A claim id that does not exist in the
 * tenant, or is not visible to the scope's user, is NOT_FOUND. */
EG_RPC_CLIENT_DECLARE(eg_graphd_walk, Engram__V1__WalkRequest, Engram__V1__WalkResponse);
/* Graph.ChunkEntities: Entities linked to chunks. */
EG_RPC_CLIENT_DECLARE(eg_graphd_chunk_entities, Engram__V1__ChunkEntitiesRequest,
                      Engram__V1__ChunkEntitiesResponse);
/* Graph.Erase: Remove a tenant's or user's graph data (called by Admin.Erase). */
EG_RPC_CLIENT_DECLARE(eg_graphd_erase, Engram__V1__EraseRequest, Engram__V1__EraseResponse);
/* Graph.RecordOutcome: Record what came of an edge (acted on, ignored, succeeded, failed,
 * reversed): an append-only annotation returned with the edge; it moves a preference's confidence.
 * An edge that does not exist or is not visible to the scope is NOT_FOUND. */
EG_RPC_CLIENT_DECLARE(eg_graphd_record_outcome, Engram__V1__RecordOutcomeRequest,
                      Engram__V1__RecordOutcomeResponse);
/* Graph.RecordAccess: Recall returned these facts (edge ids): the access term of their retention.
 */
EG_RPC_CLIENT_DECLARE(eg_graphd_record_access, Engram__V1__RecordAccessRequest,
                      Engram__V1__RecordAccessResponse);
/* Graph.GetRetention: Retention of facts (edge_ids; chunk_ids are ignored). Facts are never
 * evicted; their tier says how current they are in use. */
EG_RPC_CLIENT_DECLARE(eg_graphd_get_retention, Engram__V1__GetRetentionRequest,
                      Engram__V1__GetRetentionResponse);
/* Graph.SetRetentionPolicy */
EG_RPC_CLIENT_DECLARE(eg_graphd_set_retention_policy, Engram__V1__SetRetentionPolicyRequest,
                      Engram__V1__SetRetentionPolicyResponse);

#endif
