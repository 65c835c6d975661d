/*
 * ingest_client.h — typed calls to ingestd: engram.v1.Ingest and engram.v1.Admin.
 *
 * As common/graph_client.h: eg_ingestd_<method> calls and waits, eg_ingestd_<method>_call
 * prepares the call for a fan-out. ingestd serves both services; Admin's methods keep
 * their own names (eg_ingestd_erase is Admin.Erase: Ingest has no method of that name).
 */
#ifndef EG_INGEST_CLIENT_H
#define EG_INGEST_CLIENT_H

#include "common/rpc.h"
#include "proto/engram/v1/common.pb-c.h"
#include "proto/engram/v1/ingest.pb-c.h"

/* ---- engram.v1.Ingest ---- */

/* Ingest.IngestSession: A conversation session. */
EG_RPC_CLIENT_DECLARE(eg_ingestd_ingest_session, Engram__V1__IngestSessionRequest,
                      Engram__V1__IngestResponse);
/* Ingest.IngestDocument: A knowledge-base document. */
EG_RPC_CLIENT_DECLARE(eg_ingestd_ingest_document, Engram__V1__IngestDocumentRequest,
                      Engram__V1__IngestResponse);
/* Ingest.AssertFacts: Structured facts written by the client, with derived_from links. */
EG_RPC_CLIENT_DECLARE(eg_ingestd_assert_facts, Engram__V1__AssertFactsRequest,
                      Engram__V1__IngestResponse);
/* Ingest.GetJob: State of an async job. */
EG_RPC_CLIENT_DECLARE(eg_ingestd_get_job, Engram__V1__GetJobRequest, Engram__V1__Job);
/* Ingest.Wait: Wait until a watermark is visible (read-your-writes). */
EG_RPC_CLIENT_DECLARE(eg_ingestd_wait, Engram__V1__WaitRequest, Engram__V1__WaitResponse);

/* ---- engram.v1.Admin ---- */

/* Admin.Erase: Erase a tenant or one user's memory everywhere; audited by counts only. */
EG_RPC_CLIENT_DECLARE(eg_ingestd_erase, Engram__V1__EraseRequest, Engram__V1__EraseResponse);
/* Admin.GetRetention: A chunk's or fact's retention score, tier and why; the tenant's policy and
 * tier sizes. */
EG_RPC_CLIENT_DECLARE(eg_ingestd_get_retention, Engram__V1__GetRetentionRequest,
                      Engram__V1__GetRetentionResponse);
/* Admin.SetRetentionPolicy: Set a tenant's retention policy (on vectord and graphd). A policy that
 * evicts needs confirm_tenant and is audited. */
EG_RPC_CLIENT_DECLARE(eg_ingestd_set_retention_policy, Engram__V1__SetRetentionPolicyRequest,
                      Engram__V1__SetRetentionPolicyResponse);
/* Admin.SweepRetention: Move a tenant's chunks between tiers now (a background sweeper does it
 * periodically). */
EG_RPC_CLIENT_DECLARE(eg_ingestd_sweep_retention, Engram__V1__SweepRetentionRequest,
                      Engram__V1__SweepRetentionResponse);

/* One of the three ingests, told by req's type (IngestSessionRequest, IngestDocumentRequest
 * or AssertFactsRequest: bulk files mix them), as eg_ingestd_<method>_call; a request of
 * another type gives a call without a method, which fails with EG_EINVAL. */
eg_rpc_request eg_ingestd_ingest_call(eg_rpc_client *c, const ProtobufCMessage *req,
                                      Engram__V1__IngestResponse **resp);

#endif
