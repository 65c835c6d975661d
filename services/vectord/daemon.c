/*
 * vectord — chunk store, FAISS dense indexes and BM25 (engram.v1.Vector).
 *
 * daemon.c wires configuration, the embedder, the engine and the service table into the
 * shared daemon lifecycle (common/daemon.c).
 */
#include "common/daemon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/shard.h"
#include "lang/embed.h"
#include "proto/engram/v1/vector_log.pb-c.h"
#include "services/daemons.h"
#include "services/vectord/rpc.h"
#include "services/vectord/vec.h"

static const eg_cfg_opt vectord_opts[] = {
    EG_SHARD_OPTS,
    {"embedder", EG_CFG_STR, "use-lite",
     "use-lite (offline, 512-d, default), glove (offline, 100-d, fastest) or "
     "http:<base url>|<model>|<dim> (OpenAI-compatible)",
     0, 0, 0},
    {"models_dir", EG_CFG_STR, "./var/models", "where scripts/install-deps.sh put the models", 0, 0,
     0},
    {"bm25_k1", EG_CFG_DOUBLE, "1.2", "BM25 term-frequency saturation", 0, 0, 0},
    {"bm25_b", EG_CFG_DOUBLE, "0.75", "BM25 length normalization", 0, 0, 0},
    {"bm25_stats", EG_CFG_STR, "tenant",
     "BM25 statistics of a search for one user: tenant (all the tenant's chunks) or user (that "
     "user's "
     "chunks alone: no user's ranking depends on another's data)",
     0, 0, 0},
    {"bm25_user_prior", EG_CFG_INT, "0",
     "with bm25_stats user: smooth the user's statistics toward the tenant's as if this many of "
     "the "
     "tenant's chunks were the user's",
     0, 0, 1000000000},
    {"bm25_concepts", EG_CFG_DOUBLE, "0.2",
     "weight of WordNet concepts in BM25: a chunk's nouns' synonyms and hypernyms are indexed "
     "beside its words (\"violin\" is a musical instrument), a query's words meet them at this "
     "weight (0 = off; chosen on the tuning halves, bench/RESULTS.md)",
     0, 0, 0},
    {"wordnet_dir", EG_CFG_STR, "/usr/share/wordnet", "WordNet's database (Debian wordnet-base)", 0,
     0, 0},
    {"weight_content", EG_CFG_DOUBLE, "0.4", "default weight x of sim(content)", 0, 0, 0},
    {"weight_latent", EG_CFG_DOUBLE, "0.4", "default weight y of sim(latent)", 0, 0, 0},
    {"weight_bm25", EG_CFG_DOUBLE, "0.4", "default weight alpha of normalized BM25", 0, 0, 0},
    {"hnsw_threshold", EG_CFG_INT, "50000",
     "hot and warm chunks of a tenant above which its dense indexes use HNSW", 0, 1, 1 << 30},
    {"hnsw_ef_search", EG_CFG_INT, "128", "HNSW search breadth", 0, 8, 4096},
    {"filter_exact_max", EG_CFG_INT, "0",
     "chunks a filter may pass and still be scored exhaustively (past it: HNSW searches with the "
     "filter); 0 = chosen from the index's size",
     0, 0, 1 << 30},
    {"max_chunks", EG_CFG_INT, "1000", "chunks per Upsert", 0, 1, 100000},
    {"max_text_bytes", EG_CFG_INT, "65536", "content or latent size", 0, 256, 1 << 24},
    {"max_k", EG_CFG_INT, "1000", "results per query", 0, 1, 100000},
    {"max_queries", EG_CFG_INT, "64", "queries per Search", 0, 1, 4096},
    {"retention", EG_CFG_STR, "on",
     "retention of tenants without a policy of their own: on (chunks move between hot, warm and "
     "cold "
     "tiers by their retention score, which is also a small ranking prior) or off (all hot, no "
     "prior)",
     0, 0, 0},
    {"retention_sweep_secs", EG_CFG_INT, "300",
     "seconds between retention sweeps of the loaded tenants (0 = none)", 0, 0, 86400 * 7},
    {"query_cache", EG_CFG_INT, "4096", "query texts whose vectors are kept for repeats (0 = none)",
     0, 0, 1 << 20},
    EG_REPLICA_OPTS("vector"),
};

typedef struct vectord {
  eg_embedder *emb;
  eg_vec *vec;
  eg_replica *replica; /* NULL: a single node */
  eg_vectord_svc svc;
  eg_rpc_service service;
} vectord;

/* What a follower applies: the log's records, to the chunk store and indexes. */
static eg_code vec_apply(void *v, const eg_replog_record *recs, size_t n, eg_err *err) {
  return eg_vec_apply(v, recs, n, err);
}

static eg_code vectord_open(eg_daemon *d, void **state, eg_err *err) {
  const eg_cfg *c = eg_daemon_cfg(d);
  eg_shard shard;
  eg_code src = eg_shard_configure(c, &shard, err);
  if (src) return src;
  const char *stats = eg_cfg_str(c, "bm25_stats");
  if (strcmp(stats, "tenant") != 0 && strcmp(stats, "user") != 0)
    return eg_err_set(err, EG_EINVAL, "option 'bm25_stats' must be tenant or user, not '%s'",
                      stats);
  const char *ret = eg_cfg_str(c, "retention");
  if (strcmp(ret, "on") != 0 && strcmp(ret, "off") != 0)
    return eg_err_set(err, EG_EINVAL, "option 'retention' must be on or off, not '%s'", ret);
  double concepts = eg_cfg_double(c, "bm25_concepts"); /* below a word said; 1 makes words */
  if (!(concepts >= 0 && concepts < 1))
    return eg_err_set(err, EG_EINVAL, "option 'bm25_concepts' must be at least 0 and below 1");
  vectord *vd = calloc(1, sizeof *vd);
  if (!vd) return eg_err_set(err, EG_ENOMEM, "out of memory");
  char spec[1200];
  eg_embedder_spec(eg_cfg_str(c, "embedder"), eg_cfg_str(c, "models_dir"), spec, sizeof spec);
  eg_code rc = eg_embedder_open(spec, &vd->emb, err);
  if (rc) {
    free(vd);
    return rc;
  }
  eg_vec_opts o = {
      .dir = eg_cfg_str(c, "data_dir"),
      .embedder = vd->emb,
      .bm25_k1 = eg_cfg_double(c, "bm25_k1"),
      .bm25_b = eg_cfg_double(c, "bm25_b"),
      .bm25_per_user = strcmp(stats, "user") == 0,
      .bm25_user_prior = (double)eg_cfg_int(c, "bm25_user_prior"),
      .bm25_concepts = concepts,
      .wordnet_dir = eg_cfg_str(c, "wordnet_dir"),
      .x = (float)eg_cfg_double(c, "weight_content"),
      .y = (float)eg_cfg_double(c, "weight_latent"),
      .alpha = (float)eg_cfg_double(c, "weight_bm25"),
      .hnsw_threshold = (uint32_t)eg_cfg_int(c, "hnsw_threshold"),
      .hnsw_ef_search = (uint32_t)eg_cfg_int(c, "hnsw_ef_search"),
      .filter_exact_max = (uint32_t)eg_cfg_int(c, "filter_exact_max"),
      .max_chunks = (uint32_t)eg_cfg_int(c, "max_chunks"),
      .max_text_bytes = (uint32_t)eg_cfg_int(c, "max_text_bytes"),
      .max_k = (uint32_t)eg_cfg_int(c, "max_k"),
      .max_queries = (uint32_t)eg_cfg_int(c, "max_queries"),
      .query_cache = (uint32_t)eg_cfg_int(c, "query_cache"),
      .sweep_secs = (uint32_t)eg_cfg_int(c, "retention_sweep_secs"),
      .retention_off = strcmp(ret, "off") == 0,
  };
  if ((rc = eg_vec_open(&o, eg_daemon_metrics(d), &vd->vec, err)) ||
      (rc = eg_replica_configure(c, "vector", shard.index, "vectord",
                                 &engram__v1__vector_log_record__descriptor, eg_vec_store(vd->vec),
                                 vec_apply, vd->vec, eg_daemon_metrics(d), &vd->replica, err))) {
    eg_vec_close(vd->vec);
    eg_embedder_close(vd->emb);
    free(vd);
    return rc;
  }
  eg_vec_set_replica(vd->vec, vd->replica);
  vd->svc = (eg_vectord_svc){vd->vec, vd->replica, shard};
  vd->service = eg_vectord_service(&vd->svc);
  *state = vd;
  return EG_OK;
}

static size_t vectord_services(void *state, const eg_rpc_service **out) {
  *out = &((vectord *)state)->service;
  return 1;
}

static eg_code vectord_started(void *state, int grpc_port, eg_err *err) {
  return eg_replica_serve(((vectord *)state)->replica, grpc_port, err);
}

static void vectord_close(void *state) {
  vectord *vd = state;
  eg_vec_set_replica(vd->vec, NULL); /* stops the sweeper, which passes the replica's gate */
  eg_replica_free(vd->replica);
  eg_vec_close(vd->vec);
  eg_embedder_close(vd->emb);
  free(vd);
}

const eg_daemon_spec eg_vectord_daemon = {
    .name = "vectord",
    .summary = "Engram chunk store, dense and BM25 indexes (engram.v1.Vector)",
    .grpc_port = 7103,
    .metrics_port = 9103,
    .opts = vectord_opts,
    .n_opts = sizeof vectord_opts / sizeof *vectord_opts,
    .open = vectord_open,
    .services = vectord_services,
    .started = vectord_started,
    .close = vectord_close,
};
