/*
 * recalld — the recall orchestrator (engram.v1.Recall): query expansion, parallel
 * hybrid + graph search, fusion, premise walk, context assembly.
 *
 * main.c wires configuration, peers and the service table into the shared daemon
 * lifecycle (common/daemon.c).
 */
#include "common/daemon.h"
#include "common/peers.h"
#include "proto/engram/v1/recall.pb-c.h"

static const eg_cfg_opt recalld_opts[] = {
    EG_PEER_OPTS,
};

static const eg_rpc_service recalld_services[] = {
    {&engram__v1__recall__descriptor, NULL, 0, NULL},
};

static eg_code recalld_open(eg_daemon *d, void **state, eg_err *err) {
  return eg_peers_open(eg_daemon_cfg(d), (eg_peers **)state, err);
}

static void recalld_close(void *state) { eg_peers_close(state); }

static size_t recalld_service_table(void *state, const eg_rpc_service **out) {
  (void)state;
  *out = recalld_services;
  return sizeof recalld_services / sizeof *recalld_services;
}

int main(int argc, char **argv) {
  const eg_daemon_spec spec = {
      .name = "recalld",
      .summary = "Engram recall orchestrator (engram.v1.Recall)",
      .grpc_port = 7104,
      .metrics_port = 9104,
      .opts = recalld_opts,
      .n_opts = sizeof recalld_opts / sizeof *recalld_opts,
      .open = recalld_open,
      .services = recalld_service_table,
      .close = recalld_close,
  };
  return eg_daemon_main(&spec, argc, argv);
}
