/*
 * ingestd — the write path (engram.v1.Ingest, engram.v1.Admin): segmentation,
 * sliding-window enrichment, fan-out to graphd and vectord.
 *
 * main.c wires configuration, peers and the service table into the shared daemon
 * lifecycle (common/daemon.c).
 */
#include "common/daemon.h"
#include "common/peers.h"
#include "proto/engram/v1/common.pb-c.h"
#include "proto/engram/v1/ingest.pb-c.h"

static const eg_cfg_opt ingestd_opts[] = {
    EG_PEER_OPTS,
};

static const eg_rpc_service ingestd_services[] = {
    {&engram__v1__ingest__descriptor, NULL, 0, NULL},
    {&engram__v1__admin__descriptor, NULL, 0, NULL},
};

static eg_code ingestd_open(eg_daemon *d, void **state, eg_err *err) {
  return eg_peers_open(eg_daemon_cfg(d), (eg_peers **)state, err);
}

static void ingestd_close(void *state) { eg_peers_close(state); }

static size_t ingestd_service_table(void *state, const eg_rpc_service **out) {
  (void)state;
  *out = ingestd_services;
  return sizeof ingestd_services / sizeof *ingestd_services;
}

int main(int argc, char **argv) {
  const eg_daemon_spec spec = {
      .name = "ingestd",
      .summary = "Engram ingestion: enrichment and fan-out (engram.v1.Ingest, engram.v1.Admin)",
      .grpc_port = 7101,
      .metrics_port = 9101,
      .opts = ingestd_opts,
      .n_opts = sizeof ingestd_opts / sizeof *ingestd_opts,
      .open = ingestd_open,
      .services = ingestd_service_table,
      .close = ingestd_close,
  };
  return eg_daemon_main(&spec, argc, argv);
}
