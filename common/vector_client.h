/*
 * vector_client.h — typed calls to vectord: one function per RPC of engram.v1.Vector.
 *
 * As common/graph_client.h: eg_vectord_<method> calls and waits, eg_vectord_<method>_call
 * prepares the call for a fan-out. The client is the vectord shard of the tenant
 * (eg_peers_vectord) or a channel of its own.
 */
#ifndef EG_VECTOR_CLIENT_H
#define EG_VECTOR_CLIENT_H

#include "common/rpc.h"
#include "proto/engram/v1/vector.pb-c.h"

/* ---- engram.v1.Vector ---- */

/* Vector.Upsert: Store chunks, embed them and index them (content, latent, BM25). */
EG_RPC_CLIENT_DECLARE(eg_vectord_upsert, Engram__V1__UpsertRequest, Engram__V1__UpsertResponse);
/* Vector.Search: Hybrid search, several queries per call. */
EG_RPC_CLIENT_DECLARE(eg_vectord_search, Engram__V1__SearchRequest, Engram__V1__SearchResponse);
/* Vector.GetChunks: Fetch chunks by id (and their session neighbours). */
EG_RPC_CLIENT_DECLARE(eg_vectord_get_chunks, Engram__V1__GetChunksRequest,
                      Engram__V1__GetChunksResponse);
/* Vector.Delete: Remove chunks from the store and every index. */
EG_RPC_CLIENT_DECLARE(eg_vectord_delete, Engram__V1__DeleteRequest, Engram__V1__DeleteResponse);
/* Vector.Erase: Remove a tenant's or user's chunks (called by Admin.Erase). */
EG_RPC_CLIENT_DECLARE(eg_vectord_erase, Engram__V1__EraseRequest, Engram__V1__EraseResponse);
/* Vector.Publish: Make staged chunks visible, atomically. */
EG_RPC_CLIENT_DECLARE(eg_vectord_publish, Engram__V1__PublishRequest, Engram__V1__PublishResponse);
/* Vector.RecordAccess: Recall returned these chunks (feeds the access term of retention; promotes
 * cold ones). */
EG_RPC_CLIENT_DECLARE(eg_vectord_record_access, Engram__V1__RecordAccessRequest,
                      Engram__V1__RecordAccessResponse);
/* Vector.GetRetention: Retention of chunks (chunk_ids; edge_ids are ignored). */
EG_RPC_CLIENT_DECLARE(eg_vectord_get_retention, Engram__V1__GetRetentionRequest,
                      Engram__V1__GetRetentionResponse);
/* Vector.SetRetentionPolicy */
EG_RPC_CLIENT_DECLARE(eg_vectord_set_retention_policy, Engram__V1__SetRetentionPolicyRequest,
                      Engram__V1__SetRetentionPolicyResponse);
/* Vector.SweepRetention */
EG_RPC_CLIENT_DECLARE(eg_vectord_sweep_retention, Engram__V1__SweepRetentionRequest,
                      Engram__V1__SweepRetentionResponse);

#endif
