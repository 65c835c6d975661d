/*
 * rpc.c — recalld's engram.v1.Recall service table: the scope is checked, then the
 * engine answers (recall.c).
 */
#include "services/recalld/rpc.h"

#include "common/scope.h"

EG_SCOPED_HANDLER(h_recall, eg_recall, Engram__V1__RecallRequest, Engram__V1__RecallResponse,
                  engram__v1__recall_response__init, eg_recall_run)

static const eg_rpc_handler_entry recall_handlers[] = {{"Recall", h_recall}};

eg_rpc_service eg_recalld_service(eg_recall *r) {
  return (eg_rpc_service){&engram__v1__recall__descriptor, recall_handlers,
                          sizeof recall_handlers / sizeof *recall_handlers, r};
}
