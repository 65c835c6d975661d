/*
 * peers.c — channels from a front daemon to graphd and vectord.
 */
#include "common/peers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/graph_client.h"
#include "common/shard.h"
#include "common/time.h"
#include "common/vector_client.h"

eg_code eg_peers_open_shards(const char *list, const char *what, const eg_rpc_client_opts *o,
                             eg_rpc_client **c, uint32_t *n, eg_err *err) {
  char addr[512];
  for (const char *p = list;;) {
    size_t l = strcspn(p, ",");
    while (l && p[l - 1] == ' ') l--;
    if (!l || l >= sizeof addr)
      return eg_err_set(err, EG_EINVAL, "%s: an empty or over-long address in \"%s\"", what, list);
    if (*n == EG_MAX_SHARDS)
      return eg_err_set(err, EG_EINVAL, "%s: more than %d shards", what, EG_MAX_SHARDS);
    memcpy(addr, p, l);
    addr[l] = 0;
    eg_code rc = eg_rpc_client_open(addr, o, &c[*n], err);
    if (rc) return rc;
    (*n)++;
    p += strcspn(p, ",");
    if (!*p) return EG_OK;
    for (p++; *p == ' ';) p++;
  }
}

eg_rpc_client *eg_peers_graphd(const eg_peers *p, const char *tenant) {
  return p->graphd[eg_shard_of(tenant, p->n_graphd)];
}

eg_rpc_client *eg_peers_vectord(const eg_peers *p, const char *tenant) {
  return p->vectord[eg_shard_of(tenant, p->n_vectord)];
}

eg_code eg_peers_open(const eg_cfg *cfg, eg_metrics *metrics, eg_peers **out, eg_err *err) {
  eg_peers *p = calloc(1, sizeof *p);
  if (!p) return eg_err_set(err, EG_ENOMEM, "out of memory");
  p->metrics = eg_rpc_client_metrics_new(metrics);
  eg_rpc_client_opts o = {
      .timeout_us = eg_cfg_int(cfg, "peer_timeout_ms") * 1000,
      .token = eg_cfg_str(cfg, "service_token"),
      .tls_server_name = eg_cfg_str(cfg, "tls_server_name"),
      /* with it, peers are called over TLS and must present a certificate it signed */
      .tls_ca_file = eg_cfg_str(cfg, "tls_ca_file"),
      .metrics = p->metrics,
      /* a replicated shard's address may reach a follower: writes go on to its writer */
      .follow_writer = true,
  };
  eg_code rc = eg_peers_open_shards(eg_cfg_str(cfg, "graphd_addr"), "graphd_addr", &o, p->graphd,
                                    &p->n_graphd, err);
  if (!rc)
    rc = eg_peers_open_shards(eg_cfg_str(cfg, "vectord_addr"), "vectord_addr", &o, p->vectord,
                              &p->n_vectord, err);
  if (rc) {
    eg_peers_close(p);
    return rc;
  }
  *out = p;
  return EG_OK;
}

void eg_peers_close(eg_peers *p) {
  if (!p) return;
  for (uint32_t i = 0; i < p->n_graphd; i++) eg_rpc_client_close(p->graphd[i]);
  for (uint32_t i = 0; i < p->n_vectord; i++) eg_rpc_client_close(p->vectord[i]);
  eg_rpc_metrics_free(p->metrics);
  free(p);
}

static eg_code watermark_reached(eg_peers *p, const char *tenant, uint64_t id, bool *reached,
                                 eg_err *err) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  Engram__V1__GetChunksRequest req = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  req.scope = &scope;
  req.ids = &id;
  req.n_ids = 1;
  Engram__V1__GetChunksResponse *resp = NULL;
  eg_code rc = eg_vectord_get_chunks(eg_peers_vectord(p, tenant), &req, &resp, err);
  if (rc) return rc;
  *reached = resp->n_chunks > 0;
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  return EG_OK;
}

eg_code eg_watermark_wait(eg_peers *p, const char *tenant, const char *watermark,
                          int64_t timeout_us, bool *reached, eg_err *err) {
  *reached = false;
  if (!watermark || !*watermark) {
    *reached = true;
    return EG_OK;
  }
  unsigned long long id, pos = 0;
  int used = 0, gused = 0;
  if (sscanf(watermark, "v1:%16llx%n", &id, &used) != 1 ||
      (watermark[used] &&
       (sscanf(watermark + used, ";g1:%16llx%n", &pos, &gused) != 1 || watermark[used + gused])))
    return eg_err_set(err, EG_EINVAL,
                      "malformed watermark '%.60s' (expected v1:<hex> or v1:<hex>;g1:<hex>)",
                      watermark);
  int64_t until = eg_time_mono_us() + timeout_us;
  long sleep_us = 2000;
  for (;;) {
    eg_code rc = watermark_reached(p, tenant, id, reached, err);
    if (rc || *reached || eg_time_mono_us() >= until) break;
    struct timespec ts = {0, sleep_us * 1000};
    nanosleep(&ts, NULL);
    if (sleep_us < 50000) sleep_us *= 2;
  }
  if (!*reached || !pos) return EG_OK;
  /* the facts: a graphd replica answers a read given their position once it has them */
  *reached = false;
  char g[32];
  snprintf(g, sizeof g, "g1:%016llx", pos);
  while (!*reached && eg_time_mono_us() < until) {
    Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
    scope.tenant = (char *)tenant;
    Engram__V1__ListRelationsRequest req = ENGRAM__V1__LIST_RELATIONS_REQUEST__INIT;
    req.scope = &scope;
    req.watermark = g;
    Engram__V1__ListRelationsResponse *resp = NULL;
    /* the call's deadline is the wait's: graphd answers DEADLINE_EXCEEDED by then */
    eg_rpc_request r = eg_graphd_list_relations_call(eg_peers_graphd(p, tenant), &req, &resp);
    int64_t left = until - eg_time_mono_us();
    eg_code rc = eg_rpc_run(&r, left > 1000 ? left : 1000, err);
    if (resp) protobuf_c_message_free_unpacked(&resp->base, NULL);
    if (!rc)
      *reached = true;
    else if (rc != EG_ETIMEOUT)
      return rc;
  }
  return EG_OK;
}
