/*
 * rpc.c — ingestd's handlers (engram.v1.Ingest and engram.v1.Admin).
 */
#include "services/ingestd/rpc.h"

#include "common/scope.h"

#define INGEST_HANDLER(hname, Req, Resp, resp_init, engine_fn) \
  EG_SCOPED_HANDLER(hname, eg_ingest, Req, Resp, resp_init, engine_fn)

INGEST_HANDLER(h_session, Engram__V1__IngestSessionRequest, Engram__V1__IngestResponse,
               engram__v1__ingest_response__init, eg_ingest_session)
INGEST_HANDLER(h_document, Engram__V1__IngestDocumentRequest, Engram__V1__IngestResponse,
               engram__v1__ingest_response__init, eg_ingest_document)
INGEST_HANDLER(h_facts, Engram__V1__AssertFactsRequest, Engram__V1__IngestResponse,
               engram__v1__ingest_response__init, eg_ingest_facts)
INGEST_HANDLER(h_job, Engram__V1__GetJobRequest, Engram__V1__Job, engram__v1__job__init,
               eg_ingest_get_job)
INGEST_HANDLER(h_wait, Engram__V1__WaitRequest, Engram__V1__WaitResponse,
               engram__v1__wait_response__init, eg_ingest_wait)
INGEST_HANDLER(h_erase, Engram__V1__EraseRequest, Engram__V1__EraseResponse,
               engram__v1__erase_response__init, eg_ingest_erase)
INGEST_HANDLER(h_get_retention, Engram__V1__GetRetentionRequest, Engram__V1__GetRetentionResponse,
               engram__v1__get_retention_response__init, eg_ingest_get_retention)
INGEST_HANDLER(h_set_retention, Engram__V1__SetRetentionPolicyRequest,
               Engram__V1__SetRetentionPolicyResponse,
               engram__v1__set_retention_policy_response__init, eg_ingest_set_retention_policy)
INGEST_HANDLER(h_sweep_retention, Engram__V1__SweepRetentionRequest,
               Engram__V1__SweepRetentionResponse, engram__v1__sweep_retention_response__init,
               eg_ingest_sweep_retention)

static const eg_rpc_handler_entry ingest_handlers[] = {
    {"IngestSession", h_session},
    {"IngestDocument", h_document},
    {"AssertFacts", h_facts},
    {"GetJob", h_job},
    {"Wait", h_wait},
};
static const eg_rpc_handler_entry admin_handlers[] = {
    {"Erase", h_erase},
    {"GetRetention", h_get_retention},
    {"SetRetentionPolicy", h_set_retention},
    {"SweepRetention", h_sweep_retention},
};

size_t eg_ingestd_services(eg_ingest *g, eg_rpc_service out[2]) {
  out[0] = (eg_rpc_service){&engram__v1__ingest__descriptor, ingest_handlers,
                            sizeof ingest_handlers / sizeof *ingest_handlers, g};
  out[1] = (eg_rpc_service){&engram__v1__admin__descriptor, admin_handlers,
                            sizeof admin_handlers / sizeof *admin_handlers, g};
  return 2;
}
