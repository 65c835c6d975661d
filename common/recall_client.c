/*
 * recall_client.c — the method paths of engram.v1.Recall, each with its request and response
 * types (tests/unit/test_clients.c holds them to the generated service descriptors).
 */
#include "common/recall_client.h"

#define RECALLD(fn, Method, Req, Resp, resp_desc) \
  EG_RPC_CLIENT_DEFINE(fn, "/engram.v1.Recall/" #Method, Req, Resp, resp_desc)

RECALLD(eg_recalld_recall, Recall, Engram__V1__RecallRequest, Engram__V1__RecallResponse,
        engram__v1__recall_response__descriptor)
