/*
 * vectord — chunk store, FAISS dense indexes and BM25 (engram.v1.Vector).
 *
 * main.c wires configuration, state and the service table into the shared daemon
 * lifecycle (common/daemon.c).
 */
#include "common/daemon.h"
#include "proto/engram/v1/vector.pb-c.h"

static const eg_rpc_service vectord_services[] = {
    {&engram__v1__vector__descriptor, NULL, 0, NULL},
};

static size_t vectord_service_table(void *state, const eg_rpc_service **out) {
  (void)state;
  *out = vectord_services;
  return sizeof vectord_services / sizeof *vectord_services;
}

int main(int argc, char **argv) {
  const eg_daemon_spec spec = {
      .name = "vectord",
      .summary = "Engram chunk store, dense and BM25 indexes (engram.v1.Vector)",
      .grpc_port = 7103,
      .metrics_port = 9103,
      .services = vectord_service_table,
  };
  return eg_daemon_main(&spec, argc, argv);
}
