/*
 * kv.h — RocksDB for a daemon that owns data: column families, tenants, and durable
 * group commit (graphd's graph, vectord's chunk store).
 *
 * Reads go straight to RocksDB (no lock) and see only acknowledged writes. Writes go
 * through a transaction holding the store's write lock: its puts land in the shared
 * pending batch behind a save point (an aborted transaction is rolled back exactly), and
 * a transaction can read back keys that are pending (eg_kvtxn_get). eg_kvtxn_commit makes
 * the write durable by group commit: one leader writes every pending transaction in one
 * synced RocksDB write while the others wait, so throughput does not collapse to one
 * fsync per edge, and nothing is acknowledged before it is on disk.
 *
 * RocksDB stays behind this header: callers see opaque handles (eg_kv, eg_kvtxn,
 * eg_kv_iter), so the engine and its types live in kv.c alone.
 */
#ifndef EG_KV_H
#define EG_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/metrics.h"

typedef struct eg_kv eg_kv;
typedef struct eg_kvtxn eg_kvtxn;
typedef struct eg_kv_iter eg_kv_iter;

#define EG_KV_COUNTERS 4

/* A tenant as the store sees it: its key prefix and counters, kept in memory once
 * loaded and changed only under the write lock. Counters start at 1 (ids are never 0);
 * each daemon gives them meanings (graphd: next entity, edge, merge id). */
typedef struct eg_tenant {
  uint64_t id;                      /* the T that prefixes every key of the tenant */
  int64_t last_tc;                  /* last transaction time assigned */
  uint64_t counter[EG_KV_COUNTERS]; /* next ids */
} eg_tenant;

/*
 * Open (creating) the database in dir with these column families; cf_names[0] must be
 * "default" (it holds the tenant registry under keys 'T', 'N', 'C'). warm_entries: how
 * many recently written or read keys write transactions keep in memory; 0 = none.
 * Metrics are named <metric_prefix>_group_commits_total, <metric_prefix>_rocksdb… (the
 * engine's SST and memtable bytes, keys, compactions).
 */
eg_code eg_kv_open(const char *dir, const char *const *cf_names, int n_cfs, size_t warm_entries,
                   const char *metric_prefix, eg_metrics *metrics, eg_kv **out, eg_err *err);
void eg_kv_close(eg_kv *s); /* accepts NULL */

/* The tenant number of a name for reads: EG_ENOTFOUND when the tenant never wrote. */
eg_code eg_kv_tenant_id(eg_kv *s, const char *name, uint64_t *id);

/* Point read: *val malloc'd (caller frees), EG_ENOTFOUND when absent. */
eg_code eg_kv_get(eg_kv *s, int cf, const void *key, size_t klen, char **val, size_t *vlen,
                  eg_err *err);
/* Point reads of n keys of family cf in one batched lookup. vals[i]: the value of keys[i]
 * (klens[i] bytes), malloc'd (caller frees each), or NULL when absent or unreadable;
 * vlens[i] its length. EG_ENOMEM (and every vals[i] NULL) when out of memory. */
eg_code eg_kv_multi_get(eg_kv *s, int cf, size_t n, const char *const *keys, const size_t *klens,
                        char **vals, size_t *vlens, eg_err *err);

/* ---- iterators ---- */

/*
 * An iterator over the keys of family cf in byte order, reading like eg_kv_get: what is
 * durable (no write a transaction has pending), as of its opening (later writes are not
 * seen). Not safe to share between threads; any number may be open at once.
 *
 * hi/hilen: the exclusive upper bound (copied): the iterator stops before the first key
 * >= hi. hi NULL: unbounded, on the store's shared read options (nothing is made per
 * iterator for them: the cheap case for a hot path that ends its walk itself).
 * lo/lolen: where it starts, as eg_kv_iter_seek(lo); lo NULL: not positioned (seek or
 * seek_prev first; until then it is not valid). lo "" (lolen 0): from the first key.
 * Never NULL (out of memory aborts, as RocksDB's own allocations do). Close it with
 * eg_kv_iter_close, before eg_kv_close.
 */
eg_kv_iter *eg_kv_iter_open(eg_kv *s, int cf, const void *lo, size_t lolen, const void *hi,
                            size_t hilen);
/* The keys that start with prefix (plen bytes): positioned at the first of them, bounded
 * by the prefix's successor (prefix + 1, big-endian; unbounded when the prefix is all
 * 0xFF bytes). */
eg_kv_iter *eg_kv_iter_prefix(eg_kv *s, int cf, const void *prefix, size_t plen);
/* To the first key >= key (within the bound). */
void eg_kv_iter_seek(eg_kv_iter *it, const void *key, size_t klen);
/* To the last key <= key. */
void eg_kv_iter_seek_prev(eg_kv_iter *it, const void *key, size_t klen);
/* Positioned on a key of its range (false once it has left the range at either end). */
bool eg_kv_iter_valid(const eg_kv_iter *it);
/* To the next / previous key; only while valid. */
void eg_kv_iter_next(eg_kv_iter *it);
void eg_kv_iter_prev(eg_kv_iter *it);
/* The current key / value (only while valid): borrowed until the iterator moves or closes;
 * *len receives its length. */
const void *eg_kv_iter_key(const eg_kv_iter *it, size_t *len);
const void *eg_kv_iter_value(const eg_kv_iter *it, size_t *len);
void eg_kv_iter_close(eg_kv_iter *it); /* accepts NULL */

/* ---- write transactions ---- */

/* Take the write lock and start a transaction. */
eg_kvtxn *eg_kv_begin(eg_kv *s);
/* The tenant for writing, created (and persisted with this transaction) when new. */
eg_code eg_kvtxn_tenant(eg_kvtxn *t, const char *name, eg_tenant **out, eg_err *err);
/* Persist the tenant's counters with this transaction (after changing them). */
void eg_kvtxn_save_tenant(eg_kvtxn *t, const eg_tenant *ten);
/* Read through pending writes, then RocksDB. *val malloc'd; EG_ENOTFOUND when absent. */
eg_code eg_kvtxn_get(eg_kvtxn *t, int cf, const void *key, size_t klen, char **val, size_t *vlen,
                     eg_err *err);
/* Put. With visible = true the value can be read back by later transactions before it
 * is durable (names, heads, entities). Other puts are write-only: until durable, a read
 * through a transaction returns the previous value; once durable, the new one. */
eg_code eg_kvtxn_put(eg_kvtxn *t, int cf, const void *key, size_t klen, const void *val,
                     size_t vlen, bool visible);
void eg_kvtxn_delete(eg_kvtxn *t, int cf, const void *key, size_t klen);
void eg_kvtxn_delete_range(eg_kvtxn *t, int cf, const void *from, size_t flen, const void *to,
                           size_t tlen);
/* Forget a tenant (after erasing it): the name may be created afresh later. */
void eg_kvtxn_forget_tenant(eg_kvtxn *t, const char *name);
/* Make durable (group commit) and release the lock. The transaction is freed. */
eg_code eg_kvtxn_commit(eg_kvtxn *t, eg_err *err);
/* Roll back everything this transaction wrote and release the lock. Frees it. */
void eg_kvtxn_abort(eg_kvtxn *t);

/* ---- log positions (graphd's replicated log, deploy/REPLICATION.md) ---- */

/*
 * A write transaction committed with eg_kvtxn_commit_logged is one record of a log and
 * gets the next position (1, 2, 3 …); one committed with eg_kvtxn_commit_applied applies
 * the record at a position read from the log. Either way the store keeps the last
 * position it made durable (key "L" of the default family) in the same synced RocksDB
 * write as the data: after a crash, the store and its position agree. The mode says
 * where logged records go:
 *   EG_KV_LOCAL     nowhere: positions are this store's own (the single-node default);
 *   EG_KV_LEADER    append(ctx, first, records, n) puts a group's records in the log, in
 *                   position order, before the group's batch is written. If the append or
 *                   the write fails, the group fails, and so does every logged commit
 *                   after it (they read what it wrote) until eg_kv_recover;
 *   EG_KV_FOLLOWER  logged commits fail with EG_EUNAVAIL: only applied ones write.
 */
typedef struct eg_kv_record {
  const void *data; /* borrowed for the append */
  size_t len;
} eg_kv_record;
typedef eg_code (*eg_kv_append_fn)(void *ctx, uint64_t first, const eg_kv_record *recs, size_t n,
                                   eg_err *err);
typedef enum eg_kv_mode { EG_KV_LOCAL = 0, EG_KV_LEADER, EG_KV_FOLLOWER } eg_kv_mode;

/* Change the mode (append and ctx are used in EG_KV_LEADER mode only; ctx borrowed). */
void eg_kv_set_mode(eg_kv *s, eg_kv_mode mode, eg_kv_append_fn append, void *ctx);
/* True in EG_KV_LEADER mode: logged commits need their record's bytes. Constant while a
 * transaction is open (the mode changes under the write lock). */
bool eg_kv_wants_records(eg_kv *s);
/* True after a failed logged group (EG_KV_LEADER) until eg_kv_recover: the store takes
 * no logged commit meanwhile, so its owner must stop writes and recover. Lock-free. */
bool eg_kv_failed(eg_kv *s);
/* The last position made durable (0 = none). Lock-free. */
uint64_t eg_kv_position(eg_kv *s);
/*
 * Commit t as the next position (*pos receives it; may be NULL). rec/len: the record
 * (borrowed until this returns; ignored unless in EG_KV_LEADER mode). Durable — in the log
 * and in the store — when it returns EG_OK.
 */
eg_code eg_kvtxn_commit_logged(eg_kvtxn *t, const void *rec, size_t len, uint64_t *pos,
                               eg_err *err);
/* Commit t as the application of the log up to position pos (> every position so far). */
eg_code eg_kvtxn_commit_applied(eg_kvtxn *t, uint64_t pos, eg_err *err);
/* Wait until position pos is durable, up to deadline_us (CLOCK_REALTIME µs); EG_ETIMEOUT
 * then, naming the position reached. */
eg_code eg_kv_wait_position(eg_kv *s, uint64_t pos, int64_t deadline_us, eg_err *err);
/* eg_kv_begin once every earlier transaction is durable, so that plain reads (eg_kv_get,
 * iterators) see everything before this transaction (an erasure decides from them). */
eg_kvtxn *eg_kv_begin_settled(eg_kv *s);
/* After a failed group: wait for the transactions in flight to finish (they fail), then
 * forget everything held in memory that was not durable (pending values, the warm cache,
 * tenants and their counters, positions assigned) so that the store is exactly what
 * RocksDB holds, and clear the failure. The caller stops new writes first. */
void eg_kv_recover(eg_kv *s);

/* Flush memtables (tests and benchmarks). */
void eg_kv_flush(eg_kv *s);

/*
 * After an erasure: make the deleted values leave the disk, not only the index. Flushes
 * the memtables (so the write-ahead log that held the values is retired) and rewrites
 * the files holding tenant T's range in every column family — keys starting with T's
 * 8 bytes — and the whole default family (small: names and counters), dropping what the
 * deletions cover. Blocks until done.
 */
void eg_kv_purge_tenant(eg_kv *s, uint64_t T);

#endif
