/*
 * cli_health.c — `engram health`: grpc.health.v1.Health/Check on every daemon.
 * Exit code 0 only when every daemon checked answers SERVING.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "common/time.h"
#include "proto/grpc/health/v1/health.pb-c.h"

static const char *status_name(int s) {
  switch (s) {
    case GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING:
      return "SERVING";
    case GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING:
      return "NOT_SERVING";
    default:
      return "UNKNOWN";
  }
}

int eg_cli_health(const eg_cli *cli, int argc, char **argv) {
  (void)argv;
  if (argc > 1) {
    fprintf(stderr, "engram health: takes no arguments (use --addr or --<daemon>-addr)\n");
    return 2;
  }
  static const char *daemons[] = {"ingestd", "graphd", "vectord", "recalld"};
  size_t n = (cli->addr && *cli->addr) ? 1 : 4;
  int bad = 0;
  if (cli->json) printf("{");
  for (size_t i = 0; i < n; i++) {
    const char *name = n == 1 ? "daemon" : daemons[i];
    const char *addr = n == 1 ? cli->addr : eg_cli_daemon_addr(cli, daemons[i]);
    eg_rpc_client *c = eg_cli_connect(cli, addr);
    const char *status = "UNREACHABLE";
    char detail[300] = "";
    double ms = 0;
    if (c) {
      Grpc__Health__V1__HealthCheckRequest req = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
      ProtobufCMessage *resp = NULL;
      eg_err err;
      int64_t t0 = eg_time_mono_us();
      eg_code rc = eg_rpc_unary(c, "/grpc.health.v1.Health/Check", &req.base,
                                &grpc__health__v1__health_check_response__descriptor, 0, &resp,
                                &err);
      ms = (double)(eg_time_mono_us() - t0) / 1000.0;
      if (rc == EG_OK) {
        status = status_name(((Grpc__Health__V1__HealthCheckResponse *)resp)->status);
        protobuf_c_message_free_unpacked(resp, NULL);
      } else {
        status = rc == EG_EUNAVAIL ? "UNREACHABLE" : eg_code_name(rc);
        snprintf(detail, sizeof detail, "%s", err.msg);
      }
      eg_rpc_client_close(c);
    }
    bad += status[0] != 'S';
    if (cli->json) {
      printf("%s\"%s\":{\"addr\":\"%s\",\"status\":\"%s\",\"latency_ms\":%.3f}", i ? "," : "",
             name, addr, status, ms);
    } else {
      printf("%-8s %-22s %-12s %7.2f ms%s%s\n", name, addr, status, ms, detail[0] ? "  " : "",
             detail);
    }
  }
  if (cli->json) printf("}\n");
  return bad ? 1 : 0;
}
