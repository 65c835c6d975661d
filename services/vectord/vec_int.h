/*
 * vec_int.h — vectord engine internals shared by vec.c (tenants, indexes, loading),
 * vec_write.c (upsert, delete, erase) and vec_search.c (search, get).
 */
#ifndef EG_VECTORD_VEC_INT_H
#define EG_VECTORD_VEC_INT_H

#include <faiss/c_api/Index_c.h>
#include <pthread.h>
#include <stdbool.h>

#include "common/keybuf.h"
#include "common/kv.h"
#include "common/map.h"
#include "common/replica.h"
#include "common/retention.h"
#include "lang/tokenize.h"
#include "proto/engram/v1/vector_log.pb-c.h"
#include "services/vectord/bm25.h"
#include "services/vectord/vec.h"

/* Column families; keys are T | chunk_id (big-endian). VCF_RETAIN holds a chunk's tier and
 * access history (absent: hot, never accessed); it outlives an evicted chunk. */
enum { VCF_DEFAULT = 0, VCF_CHUNKS, VCF_VECTORS, VCF_TERMS, VCF_RETAIN, VCF_COUNT };
/* eg_tenant.counter[VCTR_SLOT]: the next slot (FAISS id) of the tenant. */
enum { VCTR_SLOT = 0 };

enum { FIELD_CONTENT = 0, FIELD_LATENT = 1, N_FIELDS = 2 };

/* What search filters need of a chunk, kept in memory per slot. */
typedef struct vdoc {
  uint64_t chunk_id;
  int64_t time;                                   /* valid time: the session's or document's */
  int64_t stored_at;                              /* transaction time: when vectord stored it */
  uint64_t session_h, document_h, role_h, user_h; /* xxh64 of the strings; 0 = empty */
  uint64_t agent_h;                               /* the writer's agent (for private chunks) */
  uint64_t *entities;                             /* owned */
  uint32_t n_entities;
  int32_t turn;
  bool private_; /* visible only to its agent */
  bool live;
  bool staged;    /* stored and indexed, invisible until published (Chunk.staged) */
  uint8_t tier;   /* eg_tier: HOT and WARM in dense[], COLD (and EVICTED) not */
  float salience; /* Chunk.salience */
  int64_t tier_since;
  eg_access acc; /* when Recall returned it */
} vdoc;

/* The filter fields of a stored chunk (scope resolved, stored_at set); entities borrowed
 * from c. */
vdoc eg_vdoc_of(const Engram__V1__Chunk *c);

/* A list of slots (a user's chunks, for filters narrowed to one user). */
typedef struct vslots {
  uint32_t *v;
  size_t n, cap;
} vslots;

typedef struct vtenant {
  uint64_t T;
  char *name;
  pthread_rwlock_t lock;       /* searches read, in-memory updates write */
  pthread_mutex_t writer;      /* serializes the tenant's writers (store + memory) */
  int dim;                     /* 0 until the first vector */
  FaissIndex *dense[N_FIELDS]; /* the hot and warm tiers: one index per field */
  bool hnsw;                   /* dense indexes are HNSW (else exact) */
  bool building;               /* a background HNSW build is running */
  int64_t snapshot_slot;       /* slots below this are in the on-disk snapshot (-1 none) */
  bool holds_erased; /* the HNSW indexes still hold erased vectors (tombstones): no snapshot until a
                        rebuild */
  eg_bm25 *bm25;     /* words of hot and warm chunks */
  eg_bm25 *bm25_cold; /* words of cold chunks (their own statistics) */
  vdoc *docs;         /* by slot */
  size_t n_slots, cap_slots;
  eg_map *by_chunk;        /* chunk id (8 bytes) → slot + 1 */
  eg_map *by_user;         /* user hash (8 bytes) → vslots*: the live slots of a user */
  size_t live, tombstones; /* tombstones: slots dead or cold still inside an HNSW index */
  size_t shared, private_; /* live slots without a user; live private slots */
  size_t n_tier[5];        /* live slots per eg_tier; [EG_TIER_EVICTED]: evicted chunks */
  eg_ret_policy pol;       /* retention policy */
} vtenant;

struct eg_vec {
  eg_vec_opts o; /* its strings point into own_dir and own_wordnet */
  char *own_dir, *own_wordnet;
  eg_kv *kv;
  eg_embedder *emb;
  pthread_mutex_t tmu; /* guards tenants */
  eg_map *tenants;     /* name → vtenant* */
  pthread_mutex_t tokmu;
  eg_tokenizer *tok_free[16]; /* pool of stemming tokenizers */
  int n_tok_free;
  pthread_mutex_t bmu; /* background builds */
  pthread_cond_t bcv;
  int builds_running;
  eg_series *m_upserts, *m_embed_tokens, *m_searches, *m_qcache_hits;
  eg_series *m_promoted, *m_demoted, *m_evicted;
  pthread_t sweeper; /* retention sweeps every o.sweep_secs */
  bool sweeper_on, stopping;
  pthread_mutex_t smu;
  pthread_cond_t scv;
  eg_metric *m_embed_secs, *m_stage_secs;
  struct eg_qcache *qcache;     /* query vectors; NULL = off */
  pthread_mutex_t cmu;          /* loads concepts */
  struct eg_concepts *concepts; /* WordNet's nouns, read at the first Upsert; NULL = none */
  bool concepts_tried;
  eg_replica *replica; /* the write gate of the background sweeper; NULL = alone */
  pthread_mutex_t vmu; /* guards vis; with vcv, eg_vec_wait_visible */
  pthread_cond_t vcv;
  struct vis_token *vis; /* writes whose memory half is not done yet */
};

/* The tenant's in-memory index, loaded from the store on first use. create: make it
 * (empty) when the tenant has no data yet. NULL with *out_rc EG_OK = no such tenant. */
vtenant *eg_vt_get(eg_vec *v, const char *tenant, bool create, eg_code *out_rc, eg_err *err);
/* Drop a tenant's in-memory index (after erasure). */
void eg_vt_forget(eg_vec *v, const char *tenant);
/* Remove t's HNSW snapshot files (after an erasure they hold vectors the index no longer
 * has); the next start rebuilds the index from the store. */
void eg_vt_drop_snapshot(eg_vec *v, vtenant *t);

/* WordNet's concepts for indexing (read once, at the first call); NULL when bm25_concepts
 * is 0 or the database is missing (logged once). */
const struct eg_concepts *eg_vt_concepts(eg_vec *v);
/* A concept term is a stem with this prefix: "~instrument". */
#define EG_CONCEPT_PREFIX '~'

/* Borrow / return a stemming tokenizer. */
eg_tokenizer *eg_vt_tokenizer(eg_vec *v);
void eg_vt_tokenizer_put(eg_vec *v, eg_tokenizer *t);

/* In-memory mutations; caller holds t->lock for writing. */
eg_code eg_vt_add(eg_vec *v, vtenant *t, uint32_t slot, const vdoc *doc, const float *vecs,
                  const eg_bm25_term *terms, size_t n_terms, uint32_t doclen, eg_err *err);
void eg_vt_remove(eg_vec *v, vtenant *t, uint32_t slot);
/* The same, leaving its vectors to the caller (keep_vectors: eg_vt_unindex of many at once). */
void eg_vt_remove_doc(eg_vec *v, vtenant *t, uint32_t slot, bool keep_vectors);
/* Does a chunk of this tier have its vectors in the dense indexes? (hot and warm) */
static inline bool eg_vt_indexed(uint8_t tier) {
  return tier == EG_TIER_HOT || tier == EG_TIER_WARM;
}
/* Live slots whose vectors are in the dense indexes. */
static inline size_t eg_vt_n_indexed(const vtenant *t) {
  return t->n_tier[EG_TIER_HOT] + t->n_tier[EG_TIER_WARM];
}

/* Take the vectors of n slots out of the dense indexes, in one pass over them (HNSW:
 * tombstones). */
void eg_vt_unindex(vtenant *t, const uint32_t *slots, size_t n);
/* Add the vectors of n slots, vecs laid out slot by slot (content then latent, dim each),
 * with one FAISS call per field (HNSW adds run in parallel inside FAISS). */
eg_code eg_vt_add_vectors(eg_vec *v, vtenant *t, const uint32_t *slots, const float *vecs, size_t n,
                          eg_err *err);
/* Copy the vectors of the live indexed slots in [from, to), field by field (caller holds
 * t->lock); *n gets the count. False when out of memory (the copies are still the caller's). */
bool eg_vt_copy_indexed(vtenant *t, size_t from, size_t to, idx_t **ids, float *vecs[N_FIELDS],
                        size_t *n);
/* Add copied vectors to new indexes (one call per field) and free the copies; ok passes
 * through (false: nothing added). */
bool eg_vt_add_copied(FaissIndex *nx[N_FIELDS], idx_t *ids, float *vecs[N_FIELDS], size_t n,
                      bool ok);
/* The vector of a slot for a field (from the dense index; false when cold). */
bool eg_vt_vector(vtenant *t, int field, uint32_t slot, float *out);
/* A new exact or HNSW dense index. */
FaissIndex *eg_vt_new_index(eg_vec *v, int dim, bool hnsw);
/* Start a background HNSW (re)build when the tenant needs one. Caller holds t->lock. */
void eg_vt_maybe_rebuild(eg_vec *v, vtenant *t);

/* Record model and dimension for a tenant, or check them. In a write transaction. */
eg_code eg_vt_check_model(eg_vec *v, eg_kvtxn *txn, eg_tenant *ten, int dim, eg_err *err);

/* Term list encoding stored per chunk: u32 doclen | (u8 len, bytes, u16 tf)*. */
size_t eg_terms_decode(const char *v, size_t vl, eg_arena *a, eg_bm25_term **out, uint32_t *doclen);

/* Chunk record stored per chunk: u64 slot | packed Chunk (vectors stripped). Encoded into
 * a (length in *len; NULL when out of memory), decoded into a (NULL if corrupt). */
uint8_t *eg_chunk_encode(eg_arena *a, const Engram__V1__Chunk *c, uint64_t slot, size_t *len);
Engram__V1__Chunk *eg_chunk_decode(eg_arena *a, const char *v, size_t vl, uint64_t *slot);

uint64_t eg_str_hash(const char *s);

/* The stored chunk of tenant key T (content and latent emptied unless `content`), in a;
 * NULL when absent. */
Engram__V1__Chunk *eg_vt_load_chunk(eg_vec *v, uint64_t T, uint64_t id, bool content, eg_arena *a);

/* ---- the write path (vec_apply.c) ---- */

/* A write between its commit and the end of its memory half: a lower bound of its log
 * position, then the position (eg_vec_wait_visible waits for it). */
typedef struct vis_token {
  uint64_t pos;
  struct vis_token *prev, *next;
} vis_token;

/* One write of a tenant: the store transaction and the record it applies. */
typedef struct vwrite {
  eg_vec *v;
  eg_arena *a;
  const char *tenant, *user;
  eg_kvtxn *txn;
  eg_tenant *ten;               /* NULL: a write that touches no tenant */
  uint64_t ten_id;              /* ten->id, or 0 */
  Engram__V1__VectorWrite body; /* what the writer resolved: set one case before commit */
} vwrite;

/* What applying a write did, for its response. */
typedef struct vresult {
  uint64_t pos;                        /* the log position it committed */
  uint32_t count;                      /* chunks deleted, published, erased (live ones) */
  uint64_t promoted, demoted, evicted; /* moves; an erasure: evicted chunks' records erased */
  uint64_t cached;                     /* an erasure: cached query texts dropped */
} vresult;

/* Begin a write: the store's write lock and, with_tenant, the tenant (created when new). */
eg_code eg_vw_begin(eg_vec *v, const char *tenant, const char *user, bool with_tenant, eg_arena *a,
                    vwrite *w, eg_err *err);
/*
 * Apply w.body: its store half in w's transaction, committed as the next log position
 * (the writer, or a single node: the record goes to the log) or at position `applied` (a
 * follower applying the log), then its memory half on t (NULL: the tenant's index is not
 * loaded; it loads from the store). Caller holds t->writer, except for an erasure of the
 * whole tenant (which drops t). w is finished either way. out may be NULL.
 */
eg_code eg_vw_commit(vwrite *w, vtenant *t, uint64_t applied, vresult *out, eg_err *err);
void eg_vw_abort(vwrite *w);
/* Access histories in records. */
void eg_vaccess_msg(eg_arena *a, const eg_access *acc, Engram__V1__AccessHistory *m);
void eg_vaccess_of(const Engram__V1__AccessHistory *m, eg_access *acc);

/* ---- retention (vec_retention.c) ---- */
/* The stored retention record of a chunk: u8 tier | u8 private | i64 tier_since | u64 user_h
 * | u64 agent_h | i64 stored_at | f32 salience | eg_access — enough to answer for an evicted
 * chunk whose record is all that is left. */
#define VRET_LEN (2 + 8 * 4 + 4 + EG_RET_ENCODED)
void eg_vret_encode(const vdoc *d, uint8_t out[VRET_LEN]);
bool eg_vret_decode(const void *in, size_t len, vdoc *d);
/* The tenant's policy from the store (defaults when none); at load. */
void eg_vret_load_policy(eg_vec *v, vtenant *t);
/* R of a slot at time now (µs). */
double eg_vret_r(const vtenant *t, const vdoc *d, int64_t now);
/* The BM25 index that holds a slot's words (by its tier). */
static inline eg_bm25 *eg_vt_bm25(const vtenant *t, uint8_t tier) {
  return tier == EG_TIER_COLD ? t->bm25_cold : t->bm25;
}
/* Delete, in txn, the retention records of a user's evicted chunks in tenant T (erasure);
 * how many. */
uint64_t eg_vret_erase_evicted(eg_vec *v, eg_kvtxn *txn, uint64_t T, uint64_t user_h);
/* The two halves of a write of tier moves (eg_vw_commit): the retention records (and an
 * evicted chunk's content) in txn; then the indexes and docs, counting into out. */
eg_code eg_vret_moves_store(eg_vec *v, vtenant *t, eg_kvtxn *txn, const Engram__V1__VectorMoves *m,
                            eg_err *err);
void eg_vret_moves_memory(eg_vec *v, vtenant *t, const Engram__V1__VectorMoves *m, vresult *out);
/* Start / stop the background sweeper. */
void eg_vret_start(eg_vec *v);
void eg_vret_stop(eg_vec *v);

#endif
