/*
 * kv.c — RocksDB column families, tenant registry, write transactions, group commit and
 * the write path's warm cache.
 */
#include "common/kv.h"

#include <pthread.h>
#include <rocksdb/c.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/keybuf.h"
#include "common/log.h"
#include "common/map.h"
#include "common/time.h"

#define CF_DEFAULT 0
#define MAX_CFS 16
#define POSITION_KEY "L" /* default family: the last log position made durable */

/* A value kept visible for reads until its batch is durable; len = SIZE_MAX: deleted. */
typedef struct ov_val {
  size_t len;
  char data[];
} ov_val;

typedef struct undo {
  char *mkey; /* overlay key (cf byte + key) */
  size_t mklen;
  ov_val *prev; /* what the overlay held before (owned), NULL = nothing */
} undo;

struct eg_kvtxn {
  eg_kv *s;
  undo *undos;
  size_t n_undo, cap_undo;
  char **new_tenants; /* names created by this transaction (for abort) */
  size_t n_new_tenants;
  size_t stale_mark; /* s->stale.len when it began (abort cuts back to it) */
  /* set by its commit, under mu */
  eg_kv_record rec; /* the log record (borrowed: the committer waits until done) */
  uint64_t pos;     /* its log position; 0 = none */
  bool done;        /* its group was written (or failed) */
  eg_err result;    /* the group's outcome */
};

struct eg_kv {
  rocksdb_t *db;
  rocksdb_options_t *opts;
  rocksdb_column_family_handle_t *cfs[MAX_CFS];
  const char *cf_names[MAX_CFS];
  int n_cfs;
  char prefix[48]; /* metric name prefix */
  rocksdb_readoptions_t *ro;
  rocksdb_writeoptions_t *wo_sync;
  rocksdb_writeoptions_t *wo_logged; /* a group the log holds whole: no fsync of its own */
  rocksdb_cache_t *cache;
  rocksdb_block_based_table_options_t *bbto;
  pthread_mutex_t mu; /* the write lock */
  pthread_cond_t cv;
  rocksdb_writebatch_t *pending;
  eg_map *ov;          /* visible pending values */
  eg_map *ov_flushing; /* values of the batch the leader is writing */
  eg_map *warm;        /* durable values (and misses) seen by writers: a read cache … */
  eg_map *warm_old;    /* … in two generations: when warm fills up it becomes warm_old */
  size_t warm_max;     /* entries per generation */
  eg_buf stale;        /* keys of pending write-only changes: (u16 length, overlay key)… */
  bool stale_all;      /* a pending change the list cannot name (a range delete) */
  eg_kvtxn **group;    /* committed transactions waiting for the next group write, in order */
  size_t n_group, cap_group;
  eg_kvtxn **spare; /* the array of the group written last, reused for the next one */
  size_t cap_spare;
  bool writing; /* a leader is writing a group (mu released meanwhile) */
  int settling; /* threads in settle(): new transactions wait, so that it ends */
  /* log positions (kv.h): assigned under mu; durable also read without it */
  uint64_t pos_assigned;
  _Atomic uint64_t pos_durable;
  eg_kv_mode mode;
  eg_kv_append_fn append;
  void *append_ctx;
  eg_err broken; /* code != EG_OK: a logged group failed; logged commits fail until eg_kv_recover */
  _Atomic bool failed; /* broken.code != EG_OK, for readers without mu */
  pthread_mutex_t tmu; /* guards tenants */
  eg_map *tenants;     /* name → eg_tenant* */
  uint64_t next_tenant;
  eg_series *m_group_writes, *m_group_txns, *m_group_secs;
};

static bool free_ov(void *ctx, const void *k, size_t kl, void *v) {
  (void)ctx, (void)k, (void)kl;
  free(v);
  return true;
}

static bool free_tenant(void *ctx, const void *k, size_t kl, void *v) {
  (void)ctx, (void)k, (void)kl;
  free(v);
  return true;
}

eg_code eg_kv_get(eg_kv *s, int cf, const void *key, size_t klen, char **val, size_t *vlen,
                  eg_err *err) {
  char *e = NULL;
  size_t n = 0;
  char *v = rocksdb_get_cf(s->db, s->ro, s->cfs[cf], key, klen, &n, &e);
  if (e) {
    eg_err_set(err, EG_EIO, "storage read failed");
    EG_ERROR("store", "rocksdb get failed", "error=\"%s\"", e);
    free(e);
    return EG_EIO;
  }
  if (!v) return EG_ENOTFOUND;
  *val = v;
  *vlen = n;
  return EG_OK;
}

eg_code eg_kv_multi_get(eg_kv *s, int cf, size_t n, const char *const *keys, const size_t *klens,
                        char **vals, size_t *vlens, eg_err *err) {
  if (!n) return EG_OK;
  /* RocksDB's call takes a family and an error per key: one allocation holds both. */
  void **scratch = malloc(n * 2 * sizeof *scratch);
  if (!scratch) {
    for (size_t i = 0; i < n; i++) vals[i] = NULL;
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  const rocksdb_column_family_handle_t **cfs = (const rocksdb_column_family_handle_t **)scratch;
  char **errs = (char **)(scratch + n);
  for (size_t i = 0; i < n; i++) cfs[i] = s->cfs[cf];
  rocksdb_multi_get_cf(s->db, s->ro, cfs, n, keys, klens, vals, vlens, errs);
  for (size_t i = 0; i < n; i++) free(errs[i]); /* an unreadable key reads as absent */
  free(scratch);
  return EG_OK;
}

/* ---- iterators ----------------------------------------------------------------------- */

struct eg_kv_iter {
  rocksdb_iterator_t *it;
  rocksdb_readoptions_t *ro; /* its own, holding the upper bound; NULL: the store's shared */
  char hi[];                 /* the upper bound's bytes (ro points at them) */
};

static eg_kv_iter *iter_alloc(size_t hicap) {
  eg_kv_iter *it = malloc(sizeof *it + hicap);
  if (!it) { /* as RocksDB's own allocations do: its iterator would be next */
    EG_ERROR("store", "out of memory for an iterator", "bytes=%zu", sizeof *it + hicap);
    abort();
  }
  it->it = NULL;
  it->ro = NULL;
  return it;
}

/* Create the RocksDB iterator on cf, bounded above by the first hilen bytes of it->hi
 * when bounded (its own read options then; the store's shared ones otherwise). */
static void iter_create(eg_kv_iter *it, eg_kv *s, int cf, size_t hilen, bool bounded) {
  if (bounded) {
    it->ro = rocksdb_readoptions_create();
    rocksdb_readoptions_set_iterate_upper_bound(it->ro, it->hi, hilen);
  }
  it->it = rocksdb_create_iterator_cf(s->db, it->ro ? it->ro : s->ro, s->cfs[cf]);
}

eg_kv_iter *eg_kv_iter_open(eg_kv *s, int cf, const void *lo, size_t lolen, const void *hi,
                            size_t hilen) {
  eg_kv_iter *it = iter_alloc(hi ? hilen : 0);
  if (hi && hilen) memcpy(it->hi, hi, hilen);
  iter_create(it, s, cf, hilen, hi != NULL);
  if (lo) rocksdb_iter_seek(it->it, lo, lolen);
  return it;
}

eg_kv_iter *eg_kv_iter_prefix(eg_kv *s, int cf, const void *prefix, size_t plen) {
  /* The successor: drop the trailing 0xFF bytes, then increment the last byte left. */
  const uint8_t *p = prefix;
  size_t ulen = plen;
  while (ulen > 0 && p[ulen - 1] == 0xFF) ulen--;
  eg_kv_iter *it = iter_alloc(ulen);
  if (ulen > 0) {
    memcpy(it->hi, p, ulen);
    it->hi[ulen - 1] = (char)(p[ulen - 1] + 1);
  }
  iter_create(it, s, cf, ulen, ulen > 0);
  rocksdb_iter_seek(it->it, prefix, plen);
  return it;
}

void eg_kv_iter_seek(eg_kv_iter *it, const void *key, size_t klen) {
  rocksdb_iter_seek(it->it, key, klen);
}

void eg_kv_iter_seek_prev(eg_kv_iter *it, const void *key, size_t klen) {
  rocksdb_iter_seek_for_prev(it->it, key, klen);
}

bool eg_kv_iter_valid(const eg_kv_iter *it) { return rocksdb_iter_valid(it->it) != 0; }

void eg_kv_iter_next(eg_kv_iter *it) { rocksdb_iter_next(it->it); }

void eg_kv_iter_prev(eg_kv_iter *it) { rocksdb_iter_prev(it->it); }

const void *eg_kv_iter_key(const eg_kv_iter *it, size_t *len) {
  return rocksdb_iter_key(it->it, len);
}

const void *eg_kv_iter_value(const eg_kv_iter *it, size_t *len) {
  return rocksdb_iter_value(it->it, len);
}

void eg_kv_iter_close(eg_kv_iter *it) {
  if (!it) return;
  rocksdb_iter_destroy(it->it);
  if (it->ro) rocksdb_readoptions_destroy(it->ro);
  free(it);
}

static double db_prop(eg_kv *s, int cf, const char *name) {
  uint64_t v = 0;
  if (rocksdb_property_int_cf(s->db, s->cfs[cf], name, &v) != 0) return 0;
  return (double)v;
}

static void rocksdb_collector(void *arg, eg_buf *out) {
  eg_kv *s = arg;
  static const struct {
    const char *metric, *prop, *help;
    bool per_cf;
  } props[] = {
      {"rocksdb_sst_bytes", "rocksdb.total-sst-files-size",
       "Size of the SST files of each column family.", true},
      {"rocksdb_memtable_bytes", "rocksdb.cur-size-all-mem-tables",
       "Size of the memtables of each column family.", true},
      {"rocksdb_estimated_keys", "rocksdb.estimate-num-keys",
       "Estimated number of keys of each column family.", true},
      {"rocksdb_running_compactions", "rocksdb.num-running-compactions", "Compactions running now.",
       false},
      {"rocksdb_pending_compaction_bytes", "rocksdb.estimate-pending-compaction-bytes",
       "Bytes compaction still has to rewrite.", false},
  };
  for (size_t i = 0; i < sizeof props / sizeof *props; i++) {
    eg_buf_printf(out, "# HELP %s_%s %s\n# TYPE %s_%s gauge\n", s->prefix, props[i].metric,
                  props[i].help, s->prefix, props[i].metric);
    if (!props[i].per_cf) {
      eg_buf_printf(out, "%s_%s %.0f\n", s->prefix, props[i].metric,
                    db_prop(s, CF_DEFAULT, props[i].prop));
      continue;
    }
    for (int cf = 0; cf < s->n_cfs; cf++)
      eg_buf_printf(out, "%s_%s{cf=\"%s\"} %.0f\n", s->prefix, props[i].metric, s->cf_names[cf],
                    db_prop(s, cf, props[i].prop));
  }
}

/* An 8-byte value of the default family, or dflt when absent or malformed. */
static uint64_t key_get64_or(eg_kv *s, const char *key, uint64_t dflt) {
  char *v;
  size_t vl;
  if (eg_kv_get(s, CF_DEFAULT, key, strlen(key), &v, &vl, NULL) != EG_OK) return dflt;
  uint64_t x = vl == 8 ? key_get64((uint8_t *)v) : dflt;
  free(v);
  return x;
}

eg_code eg_kv_open(const char *dir, const char *const *cf_names, int n_cfs, size_t warm_entries,
                   const char *metric_prefix, eg_metrics *metrics, eg_kv **out, eg_err *err) {
  if (n_cfs < 1 || n_cfs > MAX_CFS || strcmp(cf_names[0], "default") != 0)
    return eg_err_set(err, EG_EINTERNAL, "bad column family list");
  eg_kv *s = calloc(1, sizeof *s);
  if (!s) return eg_err_set(err, EG_ENOMEM, "out of memory");
  s->n_cfs = n_cfs;
  for (int i = 0; i < n_cfs; i++) s->cf_names[i] = cf_names[i];
  snprintf(s->prefix, sizeof s->prefix, "%s", metric_prefix);
  s->opts = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(s->opts, 1);
  rocksdb_options_set_create_missing_column_families(s->opts, 1);
  rocksdb_options_increase_parallelism(s->opts, 2);
  rocksdb_options_set_max_open_files(s->opts, 512);
  s->cache = rocksdb_cache_create_lru(64 << 20);
  s->bbto = rocksdb_block_based_options_create();
  rocksdb_block_based_options_set_block_cache(s->bbto, s->cache);
  /* Bloom filters: most point reads (names, chain heads, entities) of a write miss. */
  rocksdb_block_based_options_set_filter_policy(s->bbto, rocksdb_filterpolicy_create_bloom(10));
  rocksdb_block_based_options_set_cache_index_and_filter_blocks(s->bbto, 1);
  rocksdb_options_set_write_buffer_size(s->opts, 32 << 20);
  rocksdb_options_set_max_write_buffer_number(s->opts, 3);
  rocksdb_options_set_db_write_buffer_size(s->opts, (size_t)256 << 20); /* all CFs together */
  rocksdb_options_set_block_based_table_factory(s->opts, s->bbto);
  const rocksdb_options_t *cfo[MAX_CFS];
  for (int i = 0; i < n_cfs; i++) cfo[i] = s->opts;
  char *e = NULL;
  s->db = rocksdb_open_column_families(s->opts, dir, n_cfs, s->cf_names, cfo, s->cfs, &e);
  if (e) {
    /* RocksDB's LOCK file is held by another process: most often a second instance started
     * on the same data directory. Say so plainly, not as a disk error. */
    bool locked = strstr(e, "While lock file") != NULL;
    EG_ERROR("store", locked ? "data directory locked by another instance" : "cannot open rocksdb",
             "dir=%s error=\"%s\"", dir, e);
    free(e);
    rocksdb_options_destroy(s->opts);
    rocksdb_block_based_options_destroy(s->bbto);
    rocksdb_cache_destroy(s->cache);
    free(s);
    if (locked)
      return eg_err_set(err, EG_EPRECOND,
                        "data directory %.160s is locked by another running instance", dir);
    return eg_err_set(err, EG_EIO, "cannot open the store (see log)");
  }
  s->ro = rocksdb_readoptions_create();
  s->wo_sync = rocksdb_writeoptions_create();
  rocksdb_writeoptions_set_sync(s->wo_sync, 1);
  s->wo_logged = rocksdb_writeoptions_create();
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  pthread_mutex_init(&s->tmu, NULL);
  s->pending = rocksdb_writebatch_create();
  s->ov = eg_map_new();
  s->warm = eg_map_new();
  s->warm_old = eg_map_new();
  s->warm_max = warm_entries ? warm_entries / 2 : 1;
  s->tenants = eg_map_new();
  rocksdb_set_perf_level(rocksdb_disable); /* no per-operation thread-local counters */
  s->next_tenant = key_get64_or(s, "N", 1);
  s->pos_assigned = key_get64_or(s, POSITION_KEY, 0);
  atomic_store(&s->pos_durable, s->pos_assigned);
  if (metrics) {
    char name[128];
    snprintf(name, sizeof name, "%s_group_commits_total", s->prefix);
    s->m_group_writes = eg_metric_solo(
        eg_metrics_counter(metrics, name, "Synced RocksDB writes (group commits).", NULL));
    snprintf(name, sizeof name, "%s_group_commit_txns_total", s->prefix);
    s->m_group_txns = eg_metric_solo(eg_metrics_counter(
        metrics, name, "Write transactions made durable by group commits.", NULL));
    snprintf(name, sizeof name, "%s_group_commit_seconds", s->prefix);
    s->m_group_secs = eg_metric_solo(eg_metrics_histogram(
        metrics, name, "Latency of one synced group write (memtable insert, WAL append, fsync).",
        NULL, NULL, 0));
    eg_metrics_collector(metrics, rocksdb_collector, s);
  }
  *out = s;
  return EG_OK;
}

void eg_kv_flush(eg_kv *s) {
  rocksdb_flushoptions_t *fo = rocksdb_flushoptions_create();
  rocksdb_flushoptions_set_wait(fo, 1);
  char *e = NULL;
  for (int i = 0; i < s->n_cfs; i++) {
    rocksdb_flush_cf(s->db, fo, s->cfs[i], &e);
    if (e) {
      free(e);
      e = NULL;
    }
  }
  rocksdb_flushoptions_destroy(fo);
}

void eg_kv_purge_tenant(eg_kv *s, uint64_t T) {
  eg_kv_flush(s);
  rocksdb_compactoptions_t *co = rocksdb_compactoptions_create();
  rocksdb_compactoptions_set_bottommost_level_compaction(
      co, 2 /* kForce: rewrite the last level too */);
  uint8_t from[8], to[8];
  key_put64(from, T);
  key_put64(to, T + 1);
  for (int i = 0; i < s->n_cfs; i++) {
    if (i == 0)
      rocksdb_compact_range_cf_opt(s->db, s->cfs[i], co, NULL, 0, NULL, 0);
    else
      rocksdb_compact_range_cf_opt(s->db, s->cfs[i], co, (const char *)from, 8, (const char *)to,
                                   8);
  }
  rocksdb_compactoptions_destroy(co);
}

void eg_kv_close(eg_kv *s) {
  if (!s) return;
  for (int i = 0; i < s->n_cfs; i++) rocksdb_column_family_handle_destroy(s->cfs[i]);
  rocksdb_close(s->db);
  rocksdb_readoptions_destroy(s->ro);
  rocksdb_writeoptions_destroy(s->wo_sync);
  if (s->wo_logged) rocksdb_writeoptions_destroy(s->wo_logged);
  rocksdb_options_destroy(s->opts);
  rocksdb_block_based_options_destroy(s->bbto);
  rocksdb_cache_destroy(s->cache);
  rocksdb_writebatch_destroy(s->pending);
  eg_buf_free(&s->stale);
  eg_map_each(s->ov, free_ov, NULL);
  eg_map_free(s->ov);
  eg_map_each(s->warm, free_ov, NULL);
  eg_map_free(s->warm);
  eg_map_each(s->warm_old, free_ov, NULL);
  eg_map_free(s->warm_old);
  eg_map_each(s->tenants, free_tenant, NULL);
  eg_map_free(s->tenants);
  free(s->group);
  free(s->spare);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->tmu);
  free(s);
}

/* ---- tenants ----------------------------------------------------------------------- */

static size_t tenant_name_key(uint8_t *buf, size_t cap, const char *name) {
  size_t n = strlen(name);
  if (n + 1 > cap) n = cap - 1;
  buf[0] = 'T';
  memcpy(buf + 1, name, n);
  return n + 1;
}

/* 'C' T → last_tc | counter[0..3], 40 bytes. */
static void tenant_decode(eg_tenant *t, const char *v, size_t vl) {
  const uint8_t *p = (const uint8_t *)v;
  if (vl < 8 + 8 * EG_KV_COUNTERS) return;
  t->last_tc = key_untime(key_get64(p));
  for (int i = 0; i < EG_KV_COUNTERS; i++) t->counter[i] = key_get64(p + 8 + 8 * i);
}

/* Load a tenant into the map from durable storage; caller holds tmu. */
static eg_tenant *tenant_load(eg_kv *s, const char *name) {
  eg_tenant *t = eg_map_get(s->tenants, name, strlen(name));
  if (t) return t;
  uint8_t k[300];
  size_t kl = tenant_name_key(k, sizeof k, name);
  char *v;
  size_t vl;
  if (eg_kv_get(s, CF_DEFAULT, k, kl, &v, &vl, NULL) != EG_OK) return NULL;
  if (vl != 8) {
    free(v);
    return NULL;
  }
  t = calloc(1, sizeof *t);
  if (!t) {
    free(v);
    return NULL;
  }
  t->id = key_get64((uint8_t *)v);
  free(v);
  for (int i = 0; i < EG_KV_COUNTERS; i++) t->counter[i] = 1;
  uint8_t ck[9];
  ck[0] = 'C';
  key_put64(ck + 1, t->id);
  if (eg_kv_get(s, CF_DEFAULT, ck, 9, &v, &vl, NULL) == EG_OK) {
    tenant_decode(t, v, vl);
    free(v);
  }
  eg_map_put(s->tenants, name, strlen(name), t);
  return t;
}

eg_code eg_kv_tenant_id(eg_kv *s, const char *name, uint64_t *id) {
  pthread_mutex_lock(&s->tmu);
  eg_tenant *t = tenant_load(s, name);
  if (t) *id = t->id;
  pthread_mutex_unlock(&s->tmu);
  return t ? EG_OK : EG_ENOTFOUND;
}

/* ---- transactions ------------------------------------------------------------------ */

eg_kvtxn *eg_kv_begin(eg_kv *s) {
  eg_kvtxn *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->s = s;
  pthread_mutex_lock(&s->mu);
  while (s->settling) pthread_cond_wait(&s->cv, &s->mu);
  rocksdb_writebatch_set_save_point(s->pending);
  t->stale_mark = s->stale.len;
  return t;
}

static size_t ov_key(char *buf, int cf, const void *key, size_t klen) {
  buf[0] = (char)cf;
  memcpy(buf + 1, key, klen);
  return klen + 1;
}

/* Keep a durable value (or a miss: len SIZE_MAX) in the warm cache. Caller holds mu.
 * Two generations approximate LRU: when the young one is full it becomes the old one
 * (the previous old one is dropped); a hit in the old generation moves to the young.
 * Takes ownership of v; false when it could not be kept (then v is freed). */
static bool warm_put(eg_kv *s, const char *mk, size_t ml, ov_val *v) {
  if (eg_map_count(s->warm) >= s->warm_max) {
    eg_map_each(s->warm_old, free_ov, NULL);
    eg_map_free(s->warm_old);
    s->warm_old = s->warm;
    s->warm = eg_map_new();
  }
  free(eg_map_del(s->warm_old, mk, ml));
  ov_val *old = eg_map_get(s->warm, mk, ml);
  if (eg_map_put(s->warm, mk, ml, v) != EG_OK) {
    free(v);
    return false;
  }
  if (old && old != v) free(old);
  return true;
}

static ov_val *warm_get(eg_kv *s, const char *mk, size_t ml) {
  ov_val *o = eg_map_get(s->warm, mk, ml);
  if (o) return o;
  o = eg_map_del(s->warm_old, mk, ml);
  /* moved to the young generation; if that fails (out of memory) o is gone: a miss */
  return o && warm_put(s, mk, ml, o) ? o : NULL;
}

static void warm_clear(eg_kv *s) {
  eg_map_each(s->warm, free_ov, NULL);
  eg_map_clear(s->warm);
  eg_map_each(s->warm_old, free_ov, NULL);
  eg_map_clear(s->warm_old);
}

static bool warm_move(void *ctx, const void *k, size_t kl, void *v) {
  warm_put(ctx, k, kl, v);
  return true;
}

/*
 * A write-only change is not in the overlay, so a read of its key before it is durable
 * goes to RocksDB and keeps the old value (or the miss) warm. Its key is noted here, and
 * leaves the warm cache when the change is durable (warm_evict_stale). Caller holds mu.
 */
static void note_stale(eg_kv *s, int cf, const void *key, size_t klen) {
  char rec[2 + 600];
  if (klen + 1 > 600) return; /* too long to overlay: never warm either */
  uint16_t ml = (uint16_t)ov_key(rec + 2, cf, key, klen);
  memcpy(rec, &ml, 2);
  if (eg_buf_append(&s->stale, rec, 2 + (size_t)ml) != EG_OK) s->stale_all = true;
}

static void warm_evict_stale(eg_kv *s, const eg_buf *keys) {
  for (size_t at = 0; at + 2 <= keys->len;) {
    uint16_t ml;
    memcpy(&ml, keys->data + at, 2);
    free(eg_map_del(s->warm, keys->data + at + 2, ml));
    free(eg_map_del(s->warm_old, keys->data + at + 2, ml));
    at += 2 + (size_t)ml;
  }
}

eg_code eg_kvtxn_get(eg_kvtxn *t, int cf, const void *key, size_t klen, char **val, size_t *vlen,
                     eg_err *err) {
  eg_kv *s = t->s;
  char mk[600];
  if (klen + 1 > sizeof mk) return eg_kv_get(s, cf, key, klen, val, vlen, err);
  size_t ml = ov_key(mk, cf, key, klen);
  /* Newest first: this group's pending writes, the batch being written, then durable
   * values already seen (all only ever changed under the write lock we hold). */
  ov_val *o = eg_map_get(s->ov, mk, ml);
  if (!o && s->ov_flushing) o = eg_map_get(s->ov_flushing, mk, ml);
  if (!o) o = warm_get(s, mk, ml);
  if (!o) {
    char *v = NULL;
    size_t vl = 0;
    eg_code rc = eg_kv_get(s, cf, key, klen, &v, &vl, err);
    if (rc && rc != EG_ENOTFOUND) return rc;
    ov_val *w = malloc(sizeof *w + (rc ? 0 : vl));
    if (w) {
      w->len = rc ? SIZE_MAX : vl;
      if (!rc && vl) memcpy(w->data, v, vl);
      warm_put(s, mk, ml, w);
    }
    if (rc) return rc;
    *val = v;
    *vlen = vl;
    return EG_OK;
  }
  if (o->len == SIZE_MAX) return EG_ENOTFOUND;
  *val = malloc(o->len ? o->len : 1);
  if (!*val) return eg_err_set(err, EG_ENOMEM, "out of memory");
  memcpy(*val, o->data, o->len);
  *vlen = o->len;
  return EG_OK;
}

static eg_code overlay_set(eg_kvtxn *t, int cf, const void *key, size_t klen, const void *val,
                           size_t vlen) {
  eg_kv *s = t->s;
  if (klen + 1 > 600) return EG_OK; /* too long to overlay: such keys are never read back */
  ov_val *nv = malloc(sizeof *nv + (vlen == SIZE_MAX ? 0 : vlen));
  if (!nv) return EG_ENOMEM;
  nv->len = vlen;
  if (vlen != SIZE_MAX && vlen) memcpy(nv->data, val, vlen);
  if (t->n_undo == t->cap_undo) {
    size_t nc = t->cap_undo ? t->cap_undo * 2 : 16;
    undo *nu = realloc(t->undos, nc * sizeof *nu);
    if (!nu) {
      free(nv);
      return EG_ENOMEM;
    }
    t->undos = nu;
    t->cap_undo = nc;
  }
  char mk[600];
  size_t ml = ov_key(mk, cf, key, klen);
  undo *u = &t->undos[t->n_undo];
  u->mkey = malloc(ml);
  if (!u->mkey) {
    free(nv);
    return EG_ENOMEM;
  }
  memcpy(u->mkey, mk, ml);
  u->mklen = ml;
  u->prev = eg_map_get(s->ov, mk, ml);
  if (eg_map_put(s->ov, mk, ml, nv)) {
    free(u->mkey);
    free(nv);
    return EG_ENOMEM;
  }
  t->n_undo++;
  return EG_OK;
}

eg_code eg_kvtxn_put(eg_kvtxn *t, int cf, const void *key, size_t klen, const void *val,
                     size_t vlen, bool visible) {
  rocksdb_writebatch_put_cf(t->s->pending, t->s->cfs[cf], key, klen, val, vlen);
  if (visible) return overlay_set(t, cf, key, klen, val, vlen);
  note_stale(t->s, cf, key, klen);
  return EG_OK;
}

void eg_kvtxn_delete(eg_kvtxn *t, int cf, const void *key, size_t klen) {
  rocksdb_writebatch_delete_cf(t->s->pending, t->s->cfs[cf], key, klen);
  overlay_set(t, cf, key, klen, NULL, SIZE_MAX);
}

void eg_kvtxn_delete_range(eg_kvtxn *t, int cf, const void *from, size_t flen, const void *to,
                           size_t tlen) {
  rocksdb_writebatch_delete_range_cf(t->s->pending, t->s->cfs[cf], from, flen, to, tlen);
  /* cached keys inside the range would outlive it: now, and again once it is durable
   * (reads meanwhile still find them in RocksDB) */
  warm_clear(t->s);
  t->s->stale_all = true;
}

eg_code eg_kvtxn_tenant(eg_kvtxn *t, const char *name, eg_tenant **out, eg_err *err) {
  eg_kv *s = t->s;
  pthread_mutex_lock(&s->tmu);
  eg_tenant *ten = tenant_load(s, name);
  if (!ten) {
    ten = calloc(1, sizeof *ten);
    char **nt = realloc(t->new_tenants, (t->n_new_tenants + 1) * sizeof *nt);
    if (!ten || !nt) {
      free(ten);
      if (nt) t->new_tenants = nt;
      pthread_mutex_unlock(&s->tmu);
      return eg_err_set(err, EG_ENOMEM, "out of memory");
    }
    t->new_tenants = nt;
    t->new_tenants[t->n_new_tenants++] = strdup(name);
    ten->id = s->next_tenant++;
    for (int i = 0; i < EG_KV_COUNTERS; i++) ten->counter[i] = 1;
    eg_map_put(s->tenants, name, strlen(name), ten);
    uint8_t k[300], v[8];
    size_t kl = tenant_name_key(k, sizeof k, name);
    key_put64(v, ten->id);
    eg_kvtxn_put(t, CF_DEFAULT, k, kl, v, 8, true);
    key_put64(v, s->next_tenant);
    eg_kvtxn_put(t, CF_DEFAULT, "N", 1, v, 8, true);
    eg_kvtxn_save_tenant(t, ten);
  }
  pthread_mutex_unlock(&s->tmu);
  *out = ten;
  return EG_OK;
}

void eg_kvtxn_save_tenant(eg_kvtxn *t, const eg_tenant *ten) {
  uint8_t k[9], v[8 + 8 * EG_KV_COUNTERS];
  k[0] = 'C';
  key_put64(k + 1, ten->id);
  key_put64(v, key_time(ten->last_tc));
  for (int i = 0; i < EG_KV_COUNTERS; i++) key_put64(v + 8 + 8 * i, ten->counter[i]);
  eg_kvtxn_put(t, CF_DEFAULT, k, 9, v, sizeof v, false);
}

void eg_kvtxn_forget_tenant(eg_kvtxn *t, const char *name) {
  eg_kv *s = t->s;
  pthread_mutex_lock(&s->tmu);
  free(eg_map_del(s->tenants, name, strlen(name)));
  pthread_mutex_unlock(&s->tmu);
  uint8_t k[300];
  size_t kl = tenant_name_key(k, sizeof k, name);
  eg_kvtxn_delete(t, CF_DEFAULT, k, kl);
}

static void txn_free(eg_kvtxn *t) {
  for (size_t i = 0; i < t->n_new_tenants; i++) free(t->new_tenants[i]);
  free(t->new_tenants);
  free(t->undos);
  free(t);
}

void eg_kvtxn_abort(eg_kvtxn *t) {
  eg_kv *s = t->s;
  char *e = NULL;
  rocksdb_writebatch_rollback_to_save_point(s->pending, &e);
  if (e) { /* cannot happen: begin always sets a save point */
    EG_ERROR("store", "rollback failed", "error=\"%s\"", e);
    free(e);
  }
  s->stale.len = t->stale_mark; /* its write-only keys: never written, nothing stale */
  if (s->stale.data) s->stale.data[s->stale.len] = '\0';
  for (size_t i = t->n_undo; i-- > 0;) {
    undo *u = &t->undos[i];
    ov_val *cur =
        u->prev ? eg_map_get(s->ov, u->mkey, u->mklen) : eg_map_del(s->ov, u->mkey, u->mklen);
    if (u->prev) {
      eg_map_put(s->ov, u->mkey, u->mklen, u->prev);
    }
    free(cur);
    free(u->mkey);
  }
  pthread_mutex_lock(&s->tmu);
  for (size_t i = 0; i < t->n_new_tenants; i++) {
    const char *n = t->new_tenants[i];
    free(eg_map_del(s->tenants, n, strlen(n)));
  }
  if (t->n_new_tenants) {
    s->next_tenant -= t->n_new_tenants;
  }
  pthread_mutex_unlock(&s->tmu);
  pthread_mutex_unlock(&s->mu);
  txn_free(t);
}

/* Write the group of transactions enqueued so far as the leader: caller holds mu and
 * s->writing is false; returns with mu held, every transaction of the group done. In
 * EG_KV_LEADER mode the group's records go to the log first: nothing reaches RocksDB that
 * the log does not hold, and a failure of either breaks the store until eg_kv_recover
 * (its later transactions read what this group wrote). */
static void write_group(eg_kv *s) {
  s->writing = true;
  rocksdb_writebatch_t *wb = s->pending;
  s->pending = rocksdb_writebatch_create();
  s->ov_flushing = s->ov;
  s->ov = eg_map_new();
  eg_buf stale = s->stale; /* the group's write-only keys (warm_evict_stale) */
  bool stale_all = s->stale_all;
  s->stale = (eg_buf)EG_BUF_INIT;
  s->stale_all = false;
  eg_kvtxn **group = s->group;
  size_t n = s->n_group, cap = s->cap_group;
  s->group = s->spare; /* no allocation per group: the two arrays take turns */
  s->cap_group = s->cap_spare;
  s->n_group = 0;
  s->spare = NULL;
  s->cap_spare = 0;
  uint64_t last_pos = 0, first_rec = 0;
  size_t n_recs = 0;
  for (size_t i = 0; i < n; i++) {
    if (group[i]->pos > last_pos) last_pos = group[i]->pos;
    if (group[i]->rec.data && !n_recs++) first_rec = group[i]->pos;
  }
  eg_kv_record *recs = n_recs ? malloc(n_recs * sizeof *recs) : NULL;
  for (size_t i = 0, j = 0; recs && i < n; i++)
    if (group[i]->rec.data) recs[j++] = group[i]->rec;
  if (last_pos) {
    uint8_t pv[8];
    key_put64(pv, last_pos);
    rocksdb_writebatch_put_cf(wb, s->cfs[CF_DEFAULT], POSITION_KEY, 1, (const char *)pv, 8);
  }
  eg_err result = s->broken;
  eg_kv_append_fn append = s->append;
  void *actx = s->append_ctx;
  pthread_mutex_unlock(&s->mu);

  if (n_recs && !recs) eg_err_set(&result, EG_ENOMEM, "out of memory");
  if (!result.code && n_recs && append) (void)append(actx, first_rec, recs, n_recs, &result);
  if (!result.code) {
    char *e = NULL;
    int64_t t0 = eg_time_mono_us();
    /* When the log holds every transaction of the group, the log is what makes it durable:
     * a replica that loses this write (a power cut before the OS writes it back) comes back
     * at the position stored with its last surviving group and applies the log from there.
     * Otherwise (the local default, or a group with a write the log does not hold) fsync. */
    rocksdb_write(s->db, append && n_recs && n_recs == n ? s->wo_logged : s->wo_sync, wb, &e);
    eg_series_observe(s->m_group_secs, (double)(eg_time_mono_us() - t0) / 1e6);
    if (e) {
      EG_ERROR("store", "group commit failed", "error=\"%s\" txns=%zu", e, n);
      free(e);
      eg_err_set(&result, EG_EIO, "the store could not write (disk error?)");
    }
  }
  rocksdb_writebatch_destroy(wb);
  free(recs);

  pthread_mutex_lock(&s->mu);
  eg_series_add(s->m_group_writes, 1);
  eg_series_add(s->m_group_txns, (double)n);
  if (result.code) { /* nothing of it is in the store: forget it, and what we cached */
    eg_map_each(s->ov_flushing, free_ov, NULL);
    warm_clear(s);
    if (n_recs && !s->broken.code) {
      s->broken = result;
      atomic_store(&s->failed, true);
    }
  } else {
    eg_map_each(s->ov_flushing, warm_move, s); /* durable now: keep them warm */
    if (stale_all) /* after the move: a later write-only put outranks a visible one */
      warm_clear(s);
    else
      warm_evict_stale(s, &stale);
    if (last_pos > atomic_load(&s->pos_durable)) atomic_store(&s->pos_durable, last_pos);
  }
  eg_buf_free(&stale);
  eg_map_free(s->ov_flushing);
  s->ov_flushing = NULL;
  for (size_t i = 0; i < n; i++) {
    group[i]->result = result;
    group[i]->done = true;
  }
  if (!s->spare) {
    s->spare = group;
    s->cap_spare = cap;
  } else {
    free(group);
  }
  s->writing = false;
  pthread_cond_broadcast(&s->cv);
}

/* Enqueue t (caller holds mu since eg_kv_begin) and wait until its group is written,
 * leading the write when no one else is. Releases mu and frees t. */
static eg_code commit_enqueued(eg_kvtxn *t, eg_err *err) {
  eg_kv *s = t->s;
  char *pe = NULL;
  rocksdb_writebatch_pop_save_point(s->pending, &pe);
  free(pe);
  for (size_t i = 0; i < t->n_undo; i++) {
    free(t->undos[i].prev);
    free(t->undos[i].mkey);
  }
  t->n_undo = 0;
  if (s->n_group == s->cap_group) {
    size_t nc = s->cap_group ? s->cap_group * 2 : 16;
    eg_kvtxn **ng = realloc(s->group, nc * sizeof *ng);
    if (!ng) { /* cannot happen in practice; fail the whole pending batch with it */
      ng = s->group;
      nc = s->cap_group;
    }
    s->group = ng;
    s->cap_group = nc;
  }
  if (s->n_group < s->cap_group)
    s->group[s->n_group++] = t;
  else
    eg_err_set(&t->result, EG_ENOMEM, "out of memory"), t->done = true;
  while (!t->done) {
    if (s->writing)
      pthread_cond_wait(&s->cv, &s->mu);
    else
      write_group(s);
  }
  eg_err result = t->result;
  pthread_mutex_unlock(&s->mu);
  txn_free(t);
  if (!result.code) return EG_OK;
  if (err) *err = result;
  return result.code;
}

eg_code eg_kvtxn_commit(eg_kvtxn *t, eg_err *err) { return commit_enqueued(t, err); }

eg_code eg_kvtxn_commit_logged(eg_kvtxn *t, const void *rec, size_t len, uint64_t *pos,
                               eg_err *err) {
  eg_kv *s = t->s;
  if (s->mode == EG_KV_FOLLOWER || s->broken.code) {
    eg_err why = s->broken;
    if (!why.code)
      eg_err_set(&why, EG_EUNAVAIL, "this replica follows the log: it does not take writes");
    eg_kvtxn_abort(t);
    if (err) *err = why;
    return why.code;
  }
  t->pos = ++s->pos_assigned;
  if (s->mode == EG_KV_LEADER) t->rec = (eg_kv_record){rec ? rec : "", len};
  if (pos) *pos = t->pos;
  return commit_enqueued(t, err);
}

eg_code eg_kvtxn_commit_applied(eg_kvtxn *t, uint64_t pos, eg_err *err) {
  eg_kv *s = t->s;
  if (pos <= s->pos_assigned) {
    eg_kvtxn_abort(t);
    return eg_err_set(err, EG_EPRECOND, "log position %llu is already applied",
                      (unsigned long long)pos);
  }
  t->pos = s->pos_assigned = pos;
  return commit_enqueued(t, err);
}

/* ---- log positions -------------------------------------------------------------------- */

void eg_kv_set_mode(eg_kv *s, eg_kv_mode mode, eg_kv_append_fn append, void *ctx) {
  pthread_mutex_lock(&s->mu);
  s->mode = mode;
  s->append = mode == EG_KV_LEADER ? append : NULL;
  s->append_ctx = mode == EG_KV_LEADER ? ctx : NULL;
  pthread_mutex_unlock(&s->mu);
}

bool eg_kv_wants_records(eg_kv *s) { return s->mode == EG_KV_LEADER; }

bool eg_kv_failed(eg_kv *s) { return atomic_load(&s->failed); }

uint64_t eg_kv_position(eg_kv *s) { return atomic_load(&s->pos_durable); }

eg_code eg_kv_wait_position(eg_kv *s, uint64_t pos, int64_t deadline_us, eg_err *err) {
  if (atomic_load(&s->pos_durable) >= pos) return EG_OK;
  struct timespec ts = {(time_t)(deadline_us / EG_US_PER_SEC),
                        (long)(deadline_us % EG_US_PER_SEC) * 1000};
  pthread_mutex_lock(&s->mu);
  int w = 0;
  while (atomic_load(&s->pos_durable) < pos && w == 0)
    w = pthread_cond_timedwait(&s->cv, &s->mu, &ts);
  uint64_t have = atomic_load(&s->pos_durable);
  pthread_mutex_unlock(&s->mu);
  if (have >= pos) return EG_OK;
  return eg_err_set(err, EG_ETIMEOUT,
                    "this replica has applied the log up to position %llu, not yet %llu",
                    (unsigned long long)have, (unsigned long long)pos);
}

/* Wait until no transaction is being written or waiting to be; caller holds mu. New
 * transactions wait meanwhile: under a steady stream of commits a new group would
 * almost always be pending, and an erasure would wait for a lull that may never come.
 * They are woken when it ends, and then wait for mu, which the caller keeps. */
static void settle(eg_kv *s) {
  s->settling++;
  while (s->writing || s->n_group) pthread_cond_wait(&s->cv, &s->mu);
  s->settling--;
  pthread_cond_broadcast(&s->cv);
}

eg_kvtxn *eg_kv_begin_settled(eg_kv *s) {
  eg_kvtxn *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->s = s;
  pthread_mutex_lock(&s->mu);
  settle(s);
  rocksdb_writebatch_set_save_point(s->pending);
  t->stale_mark = s->stale.len;
  return t;
}

void eg_kv_recover(eg_kv *s) {
  pthread_mutex_lock(&s->mu);
  settle(s);
  eg_map_each(s->ov, free_ov, NULL);
  eg_map_clear(s->ov);
  warm_clear(s);
  rocksdb_writebatch_clear(s->pending);
  eg_buf_free(&s->stale);
  s->stale_all = false;
  pthread_mutex_lock(&s->tmu);
  eg_map_each(s->tenants, free_tenant, NULL);
  eg_map_clear(s->tenants);
  s->next_tenant = key_get64_or(s, "N", 1);
  pthread_mutex_unlock(&s->tmu);
  s->pos_assigned = atomic_load(&s->pos_durable);
  eg_err_clear(&s->broken);
  atomic_store(&s->failed, false);
  pthread_mutex_unlock(&s->mu);
}
