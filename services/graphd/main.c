/*
 * graphd — the Git-style bitemporal knowledge graph (engram.v1.Graph) on RocksDB.
 *
 * main.c wires configuration, state and the service table into the shared daemon
 * lifecycle (common/daemon.c).
 */
#include "common/daemon.h"
#include "proto/engram/v1/graph.pb-c.h"

static const eg_rpc_service graphd_services[] = {
    {&engram__v1__graph__descriptor, NULL, 0, NULL},
};

static size_t graphd_service_table(void *state, const eg_rpc_service **out) {
  (void)state;
  *out = graphd_services;
  return sizeof graphd_services / sizeof *graphd_services;
}

int main(int argc, char **argv) {
  const eg_daemon_spec spec = {
      .name = "graphd",
      .summary = "Engram bitemporal knowledge graph (engram.v1.Graph)",
      .grpc_port = 7102,
      .metrics_port = 9102,
      .services = graphd_service_table,
  };
  return eg_daemon_main(&spec, argc, argv);
}
