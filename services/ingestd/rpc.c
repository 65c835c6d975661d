/*
 * rpc.c — ingestd's handlers (engram.v1.Ingest and engram.v1.Admin).
 */
#include "common/rpc.h"
#include "common/scope.h"
#include "services/ingestd/ingest.h"

#define INGEST_HANDLER(hname, Req, Resp, resp_init, engine_fn) \
  EG_SCOPED_HANDLER(hname, eg_ingest, Req, Resp, resp_init, engine_fn)

INGEST_HANDLER(h_session, Engram__V1__IngestSessionRequest, Engram__V1__IngestResponse,
               engram__v1__ingest_response__init, eg_ingest_session)
INGEST_HANDLER(h_document, Engram__V1__IngestDocumentRequest, Engram__V1__IngestResponse,
               engram__v1__ingest_response__init, eg_ingest_document)
INGEST_HANDLER(h_facts, Engram__V1__AssertFactsRequest, Engram__V1__IngestResponse,
               engram__v1__ingest_response__init, eg_ingest_facts)
INGEST_HANDLER(h_job, Engram__V1__GetJobRequest, Engram__V1__Job, engram__v1__job__init, eg_ingest_get_job)
INGEST_HANDLER(h_wait, Engram__V1__WaitRequest, Engram__V1__WaitResponse, engram__v1__wait_response__init,
               eg_ingest_wait)
INGEST_HANDLER(h_erase, Engram__V1__EraseRequest, Engram__V1__EraseResponse, engram__v1__erase_response__init,
               eg_ingest_erase)

static const eg_rpc_handler_entry ingest_handlers[] = {
    {"IngestSession", h_session}, {"IngestDocument", h_document}, {"AssertFacts", h_facts},
    {"GetJob", h_job},           {"Wait", h_wait},
};
static const eg_rpc_handler_entry admin_handlers[] = {{"Erase", h_erase}};

size_t eg_ingestd_services(eg_ingest *g, eg_rpc_service out[2]) {
  out[0] = (eg_rpc_service){&engram__v1__ingest__descriptor, ingest_handlers,
                            sizeof ingest_handlers / sizeof *ingest_handlers, g};
  out[1] = (eg_rpc_service){&engram__v1__admin__descriptor, admin_handlers, 1, g};
  return 2;
}
