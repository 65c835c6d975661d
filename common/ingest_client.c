/*
 * ingest_client.c — the method paths of engram.v1.Ingest, engram.v1.Admin, each with its request
 * and response types (tests/unit/test_clients.c holds them to the generated service descriptors).
 */
#include "common/ingest_client.h"

#define INGEST(fn, Method, Req, Resp, resp_desc) \
  EG_RPC_CLIENT_DEFINE(fn, "/engram.v1.Ingest/" #Method, Req, Resp, resp_desc)

INGEST(eg_ingestd_ingest_session, IngestSession, Engram__V1__IngestSessionRequest,
       Engram__V1__IngestResponse, engram__v1__ingest_response__descriptor)
INGEST(eg_ingestd_ingest_document, IngestDocument, Engram__V1__IngestDocumentRequest,
       Engram__V1__IngestResponse, engram__v1__ingest_response__descriptor)
INGEST(eg_ingestd_assert_facts, AssertFacts, Engram__V1__AssertFactsRequest,
       Engram__V1__IngestResponse, engram__v1__ingest_response__descriptor)
INGEST(eg_ingestd_get_job, GetJob, Engram__V1__GetJobRequest, Engram__V1__Job,
       engram__v1__job__descriptor)
INGEST(eg_ingestd_wait, Wait, Engram__V1__WaitRequest, Engram__V1__WaitResponse,
       engram__v1__wait_response__descriptor)

#define ADMIN(fn, Method, Req, Resp, resp_desc) \
  EG_RPC_CLIENT_DEFINE(fn, "/engram.v1.Admin/" #Method, Req, Resp, resp_desc)

ADMIN(eg_ingestd_erase, Erase, Engram__V1__EraseRequest, Engram__V1__EraseResponse,
      engram__v1__erase_response__descriptor)
ADMIN(eg_ingestd_get_retention, GetRetention, Engram__V1__GetRetentionRequest,
      Engram__V1__GetRetentionResponse, engram__v1__get_retention_response__descriptor)
ADMIN(eg_ingestd_set_retention_policy, SetRetentionPolicy, Engram__V1__SetRetentionPolicyRequest,
      Engram__V1__SetRetentionPolicyResponse, engram__v1__set_retention_policy_response__descriptor)
ADMIN(eg_ingestd_sweep_retention, SweepRetention, Engram__V1__SweepRetentionRequest,
      Engram__V1__SweepRetentionResponse, engram__v1__sweep_retention_response__descriptor)

eg_rpc_request eg_ingestd_ingest_call(eg_rpc_client *c, const ProtobufCMessage *req,
                                      Engram__V1__IngestResponse **resp) {
  const ProtobufCMessageDescriptor *d = req->descriptor;
  if (d == &engram__v1__ingest_session_request__descriptor)
    return eg_ingestd_ingest_session_call(c, (const Engram__V1__IngestSessionRequest *)req, resp);
  if (d == &engram__v1__ingest_document_request__descriptor)
    return eg_ingestd_ingest_document_call(c, (const Engram__V1__IngestDocumentRequest *)req, resp);
  if (d == &engram__v1__assert_facts_request__descriptor)
    return eg_ingestd_assert_facts_call(c, (const Engram__V1__AssertFactsRequest *)req, resp);
  return (eg_rpc_request){.client = c,
                          .method = NULL,
                          .req = req,
                          .resp_desc = &engram__v1__ingest_response__descriptor,
                          .out = resp};
}
