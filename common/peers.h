/*
 * peers.h — the gRPC clients a front daemon (ingestd, recalld) holds to graphd and
 * vectord, configured by the same options everywhere.
 */
#ifndef EG_PEERS_H
#define EG_PEERS_H

#include "common/cfg.h"
#include "common/rpc.h"

/* Options to include in a daemon's table. */
#define EG_PEER_OPTS                                                                        \
  {"graphd_addr",                                                                           \
   EG_CFG_STR,                                                                              \
   "127.0.0.1:7102",                                                                        \
   "graphd gRPC address; comma-separated: one per shard",                                   \
   0,                                                                                       \
   0,                                                                                       \
   0},                                                                                      \
      {"vectord_addr",                                                                      \
       EG_CFG_STR,                                                                          \
       "127.0.0.1:7103",                                                                    \
       "vectord gRPC address; comma-separated: one per shard",                              \
       0,                                                                                   \
       0,                                                                                   \
       0},                                                                                  \
  {                                                                                         \
    "peer_timeout_ms", EG_CFG_INT, "10000", "deadline of one call to a peer", 0, 1, 3600000 \
  }

enum { EG_MAX_SHARDS = 256 };

typedef struct eg_peers {
  eg_rpc_client *graphd[EG_MAX_SHARDS];  /* owned, one per shard */
  eg_rpc_client *vectord[EG_MAX_SHARDS]; /* owned */
  uint32_t n_graphd, n_vectord;
  eg_rpc_metrics *metrics; /* owned: grpc_client_… of every peer call; NULL = none */
} eg_peers;

/* Open lazily-connecting channels to every shard of both; *out freed with eg_peers_close.
 * The order of the addresses is the shard order: it must be the same in every daemon.
 * With metrics (may be NULL; must outlive the peers) every peer call is counted there as
 * grpc_client_started_total, grpc_client_handled_total and grpc_client_handling_seconds. */
eg_code eg_peers_open(const eg_cfg *cfg, eg_metrics *metrics, eg_peers **out, eg_err *err);
void eg_peers_close(eg_peers *p); /* accepts NULL */

/* One client per comma-separated address of list (the shard order), appended to c[*n]
 * (at most EG_MAX_SHARDS in all); what names the option in errors. The caller closes
 * the clients, also those opened before an error. */
eg_code eg_peers_open_shards(const char *list, const char *what, const eg_rpc_client_opts *o,
                             eg_rpc_client **c, uint32_t *n, eg_err *err);

/* The graphd / vectord shard holding tenant (see common/shard.h). */
eg_rpc_client *eg_peers_graphd(const eg_peers *p, const char *tenant);
eg_rpc_client *eg_peers_vectord(const eg_peers *p, const char *tenant);

/*
 * Read-your-writes. An ingest's watermark ("v1:<hex chunk id>") names the chunk vectord
 * stores last for it; the write is visible once that chunk is — and, when it wrote facts
 * (";g1:<hex>", graphd's log position of them), once the graphd replica the tenant's reads
 * reach has applied them. Wait up to timeout_us (polling with backoff) for the watermark
 * of tenant; *reached says whether it came.
 * An empty watermark is reached at once; a malformed one is EG_EINVAL.
 */
eg_code eg_watermark_wait(eg_peers *p, const char *tenant, const char *watermark,
                          int64_t timeout_us, bool *reached, eg_err *err);

#endif
