/*
 * peers.c — channels from a front daemon to graphd and vectord.
 */
#include "common/peers.h"

#include <stdlib.h>

#include "common/time.h"

eg_code eg_peers_open(const eg_cfg *cfg, eg_peers **out, eg_err *err) {
  eg_peers *p = calloc(1, sizeof *p);
  if (!p) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_rpc_client_opts o = {
      .timeout_us = eg_cfg_int(cfg, "peer_timeout_ms") * 1000,
      .token = eg_cfg_str(cfg, "service_token"),
  };
  eg_code rc = eg_rpc_client_open(eg_cfg_str(cfg, "graphd_addr"), &o, &p->graphd, err);
  if (!rc) rc = eg_rpc_client_open(eg_cfg_str(cfg, "vectord_addr"), &o, &p->vectord, err);
  if (rc) {
    eg_peers_close(p);
    return rc;
  }
  *out = p;
  return EG_OK;
}

void eg_peers_close(eg_peers *p) {
  if (!p) return;
  eg_rpc_client_close(p->graphd);
  eg_rpc_client_close(p->vectord);
  free(p);
}
