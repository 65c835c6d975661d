/*
 * graph.h — graphd's engine: entities, relations, append-only edge commits and the
 * bitemporal queries over them (state as of, history, changes, traversal, premise walk).
 *
 * Every operation is scoped by tenant: ids of another tenant are simply not found.
 * Results are allocated from the caller's arena (the RPC call's). Operations take the
 * generated request types and fill the generated response types, so rpc.c only checks
 * the scope and maps errors.
 *
 * Thread rules: any number of threads may call any operation at once. Writes serialize
 * on the store's write lock and are durable when they return EG_OK.
 */
#ifndef EG_GRAPHD_GRAPH_H
#define EG_GRAPHD_GRAPH_H

#include "common/arena.h"
#include "common/err.h"
#include "common/kv.h"
#include "common/metrics.h"
#include "common/replog.h"
#include "proto/engram/v1/graph.pb-c.h"

typedef struct eg_graph eg_graph;

typedef struct eg_graph_limits {
  uint32_t max_edges_per_commit; /* edges in one Commit */
  uint32_t max_string_bytes;     /* names, literals, utterances */
  uint32_t max_depth;            /* traversal and walk depth cap */
  uint32_t max_fanout;           /* per-node cap */
  uint32_t max_paths;            /* traversal result cap */
  uint32_t max_history;          /* history entries */
  uint32_t warm_cache_entries;   /* write-path read cache size (0 = off) */
  const char *derive_rules;      /* derivation rules file (NULL or "" = none) */
  uint32_t derive_max_matches;   /* current edges the rules may examine per commit (0 = 1000) */
} eg_graph_limits;

/* Fails (EG_EINVAL naming the file and line) when limits->derive_rules does not parse. */
eg_code eg_graph_open(const char *dir, const eg_graph_limits *limits, eg_metrics *metrics,
                      eg_graph **out, eg_err *err);
void eg_graph_close(eg_graph *g); /* accepts NULL */
eg_kv *eg_graph_store(eg_graph *g);

/* ---- relations (relations.c) ---- */

/* Cardinality of a relation for a tenant: its declaration, else the built-in registry,
 * else MANY. tenant_id 0 = built-in only. */
Engram__V1__Cardinality eg_graph_cardinality(eg_graph *g, uint64_t tenant_id, const char *relation);
/* UPPER_SNAKE, 1..64 bytes. */
bool eg_relation_name_valid(const char *relation);
eg_code eg_graph_declare_relation(eg_graph *g, const Engram__V1__DeclareRelationRequest *req,
                                  eg_arena *a, Engram__V1__DeclareRelationResponse *resp,
                                  eg_err *err);
/* The built-in relations the tenant has not redeclared, then its declarations. */
eg_code eg_graph_list_relations(eg_graph *g, const Engram__V1__ListRelationsRequest *req,
                                eg_arena *a, Engram__V1__ListRelationsResponse *resp, eg_err *err);
/* resp->warnings for the relations of req that are neither built in nor declared by the
 * tenant but close to one that is (same stems, or an edit or two away): a likely typo,
 * committed as an undeclared MANY relation. */
eg_code eg_graph_relation_warnings(eg_graph *g, uint64_t tenant_id,
                                   const Engram__V1__CommitRequest *req, eg_arena *a,
                                   Engram__V1__CommitResponse *resp, eg_err *err);

/* ---- entities (entities.c) ---- */

eg_code eg_graph_resolve(eg_graph *g, const Engram__V1__ResolveEntitiesRequest *req, eg_arena *a,
                         Engram__V1__ResolveEntitiesResponse *resp, eg_err *err);
eg_code eg_graph_get_entities(eg_graph *g, const Engram__V1__GetEntitiesRequest *req, eg_arena *a,
                              Engram__V1__GetEntitiesResponse *resp, eg_err *err);
eg_code eg_graph_merge(eg_graph *g, const Engram__V1__MergeEntitiesRequest *req, eg_arena *a,
                       Engram__V1__MergeEntitiesResponse *resp, eg_err *err);
eg_code eg_graph_unmerge(eg_graph *g, const Engram__V1__UnmergeEntitiesRequest *req, eg_arena *a,
                         eg_err *err);

/* ---- edges (edges.c) ---- */

/* Commit a batch; once it is durable, the derivation rules its relations touch are
 * evaluated (derive.c: their errors are logged and counted, never returned). */
eg_code eg_graph_commit(eg_graph *g, const Engram__V1__CommitRequest *req, eg_arena *a,
                        Engram__V1__CommitResponse *resp, eg_err *err);
eg_code eg_graph_state(eg_graph *g, const Engram__V1__StateRequest *req, eg_arena *a,
                       Engram__V1__StateResponse *resp, eg_err *err);
eg_code eg_graph_history(eg_graph *g, const Engram__V1__HistoryRequest *req, eg_arena *a,
                         Engram__V1__HistoryResponse *resp, eg_err *err);
eg_code eg_graph_changes(eg_graph *g, const Engram__V1__ChangesRequest *req, eg_arena *a,
                         Engram__V1__ChangesResponse *resp, eg_err *err);
eg_code eg_graph_chunk_entities(eg_graph *g, const Engram__V1__ChunkEntitiesRequest *req,
                                eg_arena *a, Engram__V1__ChunkEntitiesResponse *resp, eg_err *err);

/* ---- traversal and the premise walk (walk.c) ---- */

eg_code eg_graph_traverse(eg_graph *g, const Engram__V1__TraverseRequest *req, eg_arena *a,
                          Engram__V1__TraverseResponse *resp, eg_err *err);
eg_code eg_graph_walk(eg_graph *g, const Engram__V1__WalkRequest *req, eg_arena *a,
                      Engram__V1__WalkResponse *resp, eg_err *err);

/* ---- erasure (erase.c) ---- */

eg_code eg_graph_erase(eg_graph *g, const Engram__V1__EraseRequest *req, eg_arena *a,
                       Engram__V1__EraseResponse *resp, eg_err *err);

/* ---- outcomes (outcomes.c) ---- */

/* Append an outcome to an edge visible to the scope; NOT_FOUND for an edge that does not
 * exist or that the scope cannot see, INVALID_ARGUMENT for a bad kind or text. */
eg_code eg_graph_record_outcome(eg_graph *g, const Engram__V1__RecordOutcomeRequest *req,
                                eg_arena *a, Engram__V1__RecordOutcomeResponse *resp, eg_err *err);

/* ---- retention of facts (retention.c, docs/retention.md) ---- */

/* Recall returned these edges: an access at req->time (0 = now) on each one visible to
 * the scope, in one write batch; other ids are ignored (resp->recorded counts the rest). */
eg_code eg_graph_record_access(eg_graph *g, const Engram__V1__RecordAccessRequest *req, eg_arena *a,
                               Engram__V1__RecordAccessResponse *resp, eg_err *err);
/* R, tier, salience, accesses and why of req->edge_ids visible to the scope (the others
 * absent), evaluated at req->at (0 = now); the tenant's policy. */
eg_code eg_graph_get_retention(eg_graph *g, const Engram__V1__GetRetentionRequest *req, eg_arena *a,
                               Engram__V1__GetRetentionResponse *resp, eg_err *err);
/* Validate and store the tenant's policy; the response holds it with defaults filled. */
eg_code eg_graph_set_retention_policy(eg_graph *g, const Engram__V1__SetRetentionPolicyRequest *req,
                                      eg_arena *a, Engram__V1__SetRetentionPolicyResponse *resp,
                                      eg_err *err);

/* ---- replication (apply.c, deploy/REPLICATION.md) ---- */

/* The last log position this store made durable (its own in single-node mode). */
uint64_t eg_graph_position(eg_graph *g);

/*
 * A follower's application of records read from the log, in order, each at its position
 * (> eg_graph_position). Applied in store transactions that also persist the position;
 * stops at the first record that cannot be applied (EG_ECORRUPT: not a graph record, or
 * this replica's state disagrees with the writer's) with the ones before it durable.
 */
eg_code eg_graph_apply(eg_graph *g, const eg_replog_record *recs, size_t n, eg_err *err);

#endif
