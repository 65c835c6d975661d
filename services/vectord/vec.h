/*
 * vec.h — vectord's engine: the chunk store (RocksDB, the source of truth), per-tenant
 * dense indexes through the FAISS C API for two fields (content, latent), a BM25 index,
 * and hybrid search  S = x·sim(content) + y·sim(latent) + α·BM25_norm  (or RRF).
 *
 * Every operation is scoped by tenant. The embedding model and dimension are recorded
 * with a tenant's index at its first write; a different model is refused, never mixed.
 * Indexes are rebuilt from the store when a tenant is first used after a start (vectors
 * and BM25 terms are stored, so nothing is re-embedded or re-tokenized); large tenants
 * use HNSW, snapshotted to disk and replayed from the store.
 *
 * Thread rules: any number of threads may call any operation; searches of a tenant run
 * in parallel, writes to a tenant are serialized. Results live in the caller's arena.
 */
#ifndef EG_VECTORD_VEC_H
#define EG_VECTORD_VEC_H

#include <stdbool.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/kv.h"
#include "common/metrics.h"
#include "common/replica.h"
#include "common/replog.h"
#include "lang/embed.h"
#include "proto/engram/v1/common.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"

typedef struct eg_vec eg_vec;

typedef struct eg_vec_opts {
  const char *dir;           /* data directory (RocksDB + FAISS snapshots) */
  eg_embedder *embedder;     /* borrowed; must outlive the engine */
  double bm25_k1, bm25_b;    /* BM25 parameters */
  bool bm25_per_user;        /* BM25 statistics of the user searched, not the whole tenant's, */
  double bm25_user_prior;    /* smoothed toward the tenant's as if this many of its chunks were the
                                user's */
  double bm25_concepts;      /* weight of WordNet concepts in BM25 (concepts.h): a chunk's nouns'
                                synonyms and hypernyms are indexed beside its words, and a
                                query's words meet them at this weight; 0 = off */
  const char *wordnet_dir;   /* WordNet's database (NULL: /usr/share/wordnet) */
  float x, y, alpha;         /* default fusion weights */
  uint32_t hnsw_threshold;   /* hot and warm chunks above which a tenant switches to HNSW */
  uint32_t hnsw_ef_search;   /* HNSW search breadth */
  uint32_t filter_exact_max; /* a filter passing up to this many chunks scores them all, past it
                                HNSW searches with the filter; 0 = chosen by the index's size */
  uint32_t max_chunks;       /* chunks per Upsert */
  uint32_t max_text_bytes;   /* content / latent size */
  uint32_t max_k;            /* results per query */
  uint32_t max_queries;      /* queries per Search */
  uint32_t query_cache;      /* query texts whose vectors are kept (0 = none) */
  uint32_t sweep_secs;       /* retention sweeps of the loaded tenants every so often (0 = none) */
  bool retention_off;        /* default policy of tenants without one: retention disabled */
} eg_vec_opts;

eg_code eg_vec_open(const eg_vec_opts *opts, eg_metrics *metrics, eg_vec **out, eg_err *err);
/* Waits for background index builds, snapshots large indexes, closes the store. */
void eg_vec_close(eg_vec *v); /* accepts NULL */

eg_code eg_vec_upsert(eg_vec *v, const Engram__V1__UpsertRequest *req, eg_arena *a,
                      Engram__V1__UpsertResponse *resp, eg_err *err);
eg_code eg_vec_search(eg_vec *v, const Engram__V1__SearchRequest *req, eg_arena *a,
                      Engram__V1__SearchResponse *resp, eg_err *err);
eg_code eg_vec_get(eg_vec *v, const Engram__V1__GetChunksRequest *req, eg_arena *a,
                   Engram__V1__GetChunksResponse *resp, eg_err *err);
eg_code eg_vec_delete(eg_vec *v, const Engram__V1__DeleteRequest *req, eg_arena *a,
                      Engram__V1__DeleteResponse *resp, eg_err *err);
eg_code eg_vec_erase(eg_vec *v, const Engram__V1__EraseRequest *req, eg_arena *a,
                     Engram__V1__EraseResponse *resp, eg_err *err);
/* Make staged chunks visible (Chunk.staged): one durable write, then the in-memory flags,
 * so a search sees all of them or none. */
eg_code eg_vec_publish(eg_vec *v, const Engram__V1__PublishRequest *req, eg_arena *a,
                       Engram__V1__PublishResponse *resp, eg_err *err);

/* Retention (docs/retention.md): accesses, a chunk's score and tier, the tenant's policy,
 * and a sweep that moves chunks between tiers (and evicts under an evicting policy). */
eg_code eg_vec_record_access(eg_vec *v, const Engram__V1__RecordAccessRequest *req, eg_arena *a,
                             Engram__V1__RecordAccessResponse *resp, eg_err *err);
eg_code eg_vec_get_retention(eg_vec *v, const Engram__V1__GetRetentionRequest *req, eg_arena *a,
                             Engram__V1__GetRetentionResponse *resp, eg_err *err);
eg_code eg_vec_set_retention(eg_vec *v, const Engram__V1__SetRetentionPolicyRequest *req,
                             eg_arena *a, Engram__V1__SetRetentionPolicyResponse *resp,
                             eg_err *err);
eg_code eg_vec_sweep(eg_vec *v, const Engram__V1__SweepRetentionRequest *req, eg_arena *a,
                     Engram__V1__SweepRetentionResponse *resp, eg_err *err);

/* ---- replication (vec_apply.c, deploy/REPLICATION.md) ---- */

/* The chunk store (for the replica of its log). */
eg_kv *eg_vec_store(eg_vec *v);
/* The replica whose write gate the background sweeper passes; NULL (before the replica
 * is freed) stops the sweeper. */
void eg_vec_set_replica(eg_vec *v, eg_replica *r);
/* The last log position the store made durable (its own on a single node). */
uint64_t eg_vec_position(eg_vec *v);
/* Wait until position pos is durable and searchable here (every write up to it done in
 * memory too), up to deadline_us (CLOCK_REALTIME µs); EG_ETIMEOUT then, naming the
 * position reached. */
eg_code eg_vec_wait_visible(eg_vec *v, uint64_t pos, int64_t deadline_us, eg_err *err);
/* A follower's application of records read from the log, in order, each at its position
 * (> eg_vec_position): the store, then the indexes, through the writer's own write path. */
eg_code eg_vec_apply(eg_vec *v, const eg_replog_record *recs, size_t n, eg_err *err);

/* Wait until no background index build is running (tests, benchmarks). */
void eg_vec_quiesce(eg_vec *v);

#endif
