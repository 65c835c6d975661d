/*
 * health_client.c — the method paths of grpc.health.v1.Health, each with its request and response
 * types (tests/unit/test_clients.c holds them to the generated service descriptors).
 */
#include "common/health_client.h"

#define HEALTH(fn, Method, Req, Resp, resp_desc) \
  EG_RPC_CLIENT_DEFINE(fn, "/grpc.health.v1.Health/" #Method, Req, Resp, resp_desc)

HEALTH(eg_health_check, Check, Grpc__Health__V1__HealthCheckRequest,
       Grpc__Health__V1__HealthCheckResponse, grpc__health__v1__health_check_response__descriptor)

eg_code eg_health_status(eg_rpc_client *c, const char *service, int *status, eg_err *err) {
  Grpc__Health__V1__HealthCheckRequest req = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
  req.service = (char *)service;
  Grpc__Health__V1__HealthCheckResponse *resp = NULL;
  eg_code rc = eg_health_check(c, &req, &resp, err);
  if (rc == EG_OK) {
    *status = resp->status;
    protobuf_c_message_free_unpacked(&resp->base, NULL);
  }
  return rc;
}
