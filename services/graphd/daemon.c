/*
 * graphd — the Git-style bitemporal knowledge graph (engram.v1.Graph) on RocksDB.
 *
 * daemon.c wires configuration, the engine and the service table into the shared daemon
 * lifecycle (common/daemon.c).
 */
#include "common/daemon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/metrics.h"
#include "common/shard.h"
#include "proto/engram/v1/graph_log.pb-c.h"
#include "services/daemons.h"
#include "services/graphd/graph.h"
#include "services/graphd/rpc.h"

static const eg_cfg_opt graphd_opts[] = {
    EG_SHARD_OPTS,
    {"max_edges_per_commit", EG_CFG_INT, "10000", "edges in one Commit", 0, 1, 1000000},
    {"max_string_bytes", EG_CFG_INT, "16384", "longest name, literal or utterance", 0, 64, 1 << 20},
    {"max_depth", EG_CFG_INT, "16", "deepest traversal and premise walk", 0, 1, 16},
    {"max_fanout", EG_CFG_INT, "64", "edges followed per node", 0, 1, 4096},
    {"max_paths", EG_CFG_INT, "1000", "paths returned by one traversal", 0, 1, 100000},
    {"max_history", EG_CFG_INT, "1000", "entries returned by one History", 0, 1, 100000},
    {"warm_cache_entries", EG_CFG_INT, "1000000",
     "recently written or read keys the write path keeps in memory (names, heads)", 0, 0,
     100000000},
    {"derive_rules", EG_CFG_STR, "./services/graphd/derive_rules.txt",
     "derivation rules file (docs/preferences.md); empty = no derived conclusions", 0, 0, 0},
    {"derive_max_matches", EG_CFG_INT, "1000",
     "current edges the derivation rules examine per commit", 0, 1, 1000000},
    EG_REPLICA_OPTS("graph"),
};

typedef struct graphd {
  eg_graph *graph;
  eg_replica *replica; /* NULL: a single node */
  eg_graphd_svc svc;
  eg_rpc_service service;
} graphd;

/* What a follower applies: the log's records, to the graph. */
static eg_code graph_apply(void *g, const eg_replog_record *recs, size_t n, eg_err *err) {
  return eg_graph_apply(g, recs, n, err);
}

static eg_code graphd_started(void *state, int grpc_port, eg_err *err) {
  return eg_replica_serve(((graphd *)state)->replica, grpc_port, err);
}

static eg_code graphd_open(eg_daemon *d, void **state, eg_err *err) {
  const eg_cfg *c = eg_daemon_cfg(d);
  eg_shard shard;
  eg_code src = eg_shard_configure(c, &shard, err);
  if (src) return src;
  graphd *g = calloc(1, sizeof *g);
  if (!g) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_graph_limits lim = {
      .max_edges_per_commit = (uint32_t)eg_cfg_int(c, "max_edges_per_commit"),
      .max_string_bytes = (uint32_t)eg_cfg_int(c, "max_string_bytes"),
      .max_depth = (uint32_t)eg_cfg_int(c, "max_depth"),
      .max_fanout = (uint32_t)eg_cfg_int(c, "max_fanout"),
      .max_paths = (uint32_t)eg_cfg_int(c, "max_paths"),
      .max_history = (uint32_t)eg_cfg_int(c, "max_history"),
      .warm_cache_entries = (uint32_t)eg_cfg_int(c, "warm_cache_entries"),
      .derive_rules = eg_cfg_str(c, "derive_rules"),
      .derive_max_matches = (uint32_t)eg_cfg_int(c, "derive_max_matches"),
  };
  /* The shipped rules at their default place are optional (a binary run from elsewhere
   * runs without them); a file named by the operator must be there and parse. */
  if (eg_cfg_source_of(c, "derive_rules") == EG_CFG_FROM_DEFAULT &&
      access(lim.derive_rules, R_OK) != 0) {
    EG_WARN("graphd", "no derivation rules", "path=%s", lim.derive_rules);
    lim.derive_rules = NULL;
  }
  char dir[1100];
  snprintf(dir, sizeof dir, "%s/graph", eg_cfg_str(c, "data_dir"));
  eg_code rc = eg_graph_open(dir, &lim, eg_daemon_metrics(d), &g->graph, err);
  if (!rc && (rc = eg_replica_configure(c, "graph", shard.index, "graphd",
                                        &engram__v1__graph_log_record__descriptor,
                                        eg_graph_store(g->graph), graph_apply, g->graph,
                                        eg_daemon_metrics(d), &g->replica, err)))
    eg_graph_close(g->graph);
  if (rc) {
    free(g);
    return rc;
  }
  g->svc = (eg_graphd_svc){g->graph, g->replica, shard};
  g->service = eg_graphd_service(&g->svc);
  *state = g;
  return EG_OK;
}

static size_t graphd_services(void *state, const eg_rpc_service **out) {
  *out = &((graphd *)state)->service;
  return 1;
}

static void graphd_close(void *state) {
  graphd *g = state;
  eg_replica_free(g->replica);
  eg_graph_close(g->graph);
  free(g);
}

const eg_daemon_spec eg_graphd_daemon = {
    .name = "graphd",
    .summary = "Engram bitemporal knowledge graph (engram.v1.Graph)",
    .grpc_port = 7102,
    .metrics_port = 9102,
    .opts = graphd_opts,
    .n_opts = sizeof graphd_opts / sizeof *graphd_opts,
    .open = graphd_open,
    .services = graphd_services,
    .started = graphd_started,
    .close = graphd_close,
};
