/*
 * health_client.h — typed calls to grpc.health.v1.Health, which every daemon serves.
 *
 * As common/graph_client.h: eg_health_check calls and waits, eg_health_check_call prepares
 * the call for a fan-out.
 */
#ifndef EG_HEALTH_CLIENT_H
#define EG_HEALTH_CLIENT_H

#include "common/rpc.h"
#include "proto/grpc/health/v1/health.pb-c.h"

/* ---- grpc.health.v1.Health ---- */

/* Health.Check: Answers at once with the current status; NOT_FOUND for a service this server lacks.
 */
EG_RPC_CLIENT_DECLARE(eg_health_check, Grpc__Health__V1__HealthCheckRequest,
                      Grpc__Health__V1__HealthCheckResponse);

/* The serving status of service ("" = the whole server) at c: *status is
 * HealthCheckResponse.ServingStatus (1 SERVING, 2 NOT_SERVING). */
eg_code eg_health_status(eg_rpc_client *c, const char *service, int *status, eg_err *err);

#endif
