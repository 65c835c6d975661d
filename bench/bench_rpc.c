/*
 * bench_rpc.c — unary gRPC latency against a real daemon (graphd) on loopback:
 * C → C with Engram's client, then Python grpcio → C (bench_rpc.py), in one run.
 *
 *   build/bench_rpc [calls]        (default 20000)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/health_client.h"
#include "common/time.h"
#include "tests/harness.h"
#include "tests/testlib.h"

int main(int argc, char **argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 20000;
  eg_rpc_global_init();
  char *dir = eg_test_tempdir("bench-rpc");
  eg_proc p;
  eg_err e;
  if (eg_harness_start("graphd", dir, NULL, &p, &e)) {
    fprintf(stderr, "start graphd: %s\n", e.msg);
    return 1;
  }
  eg_rpc_client *c;
  eg_rpc_client_open(p.addr, NULL, &c, &e);
  Grpc__Health__V1__HealthCheckRequest req = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
  int64_t *lat = calloc((size_t)calls, sizeof *lat);
  for (int i = 0; i < 500; i++) { /* warm-up */
    Grpc__Health__V1__HealthCheckResponse *resp;
    if (eg_health_check(c, &req, &resp, &e) == EG_OK)
      protobuf_c_message_free_unpacked(&resp->base, NULL);
  }
  int64_t t0 = eg_time_mono_us();
  for (int i = 0; i < calls; i++) {
    Grpc__Health__V1__HealthCheckResponse *resp;
    int64_t s = eg_time_mono_us();
    if (eg_health_check(c, &req, &resp, &e)) {
      fprintf(stderr, "call failed: %s\n", e.msg);
      return 1;
    }
    lat[i] = eg_time_mono_us() - s;
    protobuf_c_message_free_unpacked(&resp->base, NULL);
  }
  double total = (double)(eg_time_mono_us() - t0) / 1e6;
  eg_sort_i64(lat, (size_t)calls);
  printf("C->C unary Health/Check, %d sequential calls: p50 %lld us, p99 %lld us, %.0f calls/s\n",
         calls, (long long)lat[calls / 2], (long long)lat[calls * 99 / 100], calls / total);
  fflush(stdout);
  eg_rpc_client_close(c);
  int rc = eg_test_system(
      "/usr/bin/python3 %s/bench/bench_rpc.py --proto %s/proto --out %s/py "
      "--calls %d %s",
      EG_SOURCE_DIR, EG_SOURCE_DIR, dir, calls / 4, p.addr);
  eg_harness_stop(&p, SIGTERM);
  eg_test_rmtree(dir);
  free(dir);
  free(lat);
  eg_rpc_global_shutdown();
  return rc == 0 ? 0 : 1;
}
