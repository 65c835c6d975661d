/*
 * store.h — graphd's RocksDB: column families, tenants, and durable group commit.
 *
 * Reads go straight to RocksDB (no lock) and see only acknowledged writes. Writes go
 * through a transaction holding the store's write lock: its puts land in the shared
 * pending batch behind a save point (an aborted transaction is rolled back exactly), and
 * a transaction can read back keys that are pending (eg_gtxn_get). eg_gtxn_commit makes
 * the write durable by group commit: one leader writes every pending transaction in one
 * synced RocksDB write while the others wait, so throughput does not collapse to one
 * fsync per edge, and nothing is acknowledged before it is on disk.
 */
#ifndef EG_GRAPHD_STORE_H
#define EG_GRAPHD_STORE_H

#include <rocksdb/c.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/metrics.h"

typedef struct eg_gstore eg_gstore;
typedef struct eg_gtxn eg_gtxn;

/* Per-tenant counters, kept in memory once loaded; changed only under the write lock. */
typedef struct eg_tenant {
  uint64_t id;          /* the T of every key */
  uint64_t next_entity; /* next entity id to assign */
  uint64_t next_edge;   /* next edge id to assign */
  int64_t last_tc;      /* last transaction time assigned */
  uint64_t next_merge;  /* next merge record id */
} eg_tenant;

/* warm_entries: how many recently written or read keys write transactions keep in
 * memory (names, entities, chain heads); 0 disables the cache. */
eg_code eg_gstore_open(const char *dir, size_t warm_entries, eg_metrics *metrics, eg_gstore **out,
                       eg_err *err);
void eg_gstore_close(eg_gstore *s); /* accepts NULL */

rocksdb_t *eg_gstore_db(eg_gstore *s);
rocksdb_column_family_handle_t *eg_gstore_cf(eg_gstore *s, int cf);
/* Shared read options (no snapshot) for plain reads. */
const rocksdb_readoptions_t *eg_gstore_ro(eg_gstore *s);

/* The tenant number of a name for reads: EG_ENOTFOUND when the tenant never wrote. */
eg_code eg_gstore_tenant_id(eg_gstore *s, const char *name, uint64_t *id);

/* Point read: *val malloc'd (caller frees), EG_ENOTFOUND when absent. */
eg_code eg_gstore_get(eg_gstore *s, int cf, const void *key, size_t klen, char **val,
                      size_t *vlen, eg_err *err);

/* ---- write transactions ---- */

/* Take the write lock and start a transaction. */
eg_gtxn *eg_gstore_begin(eg_gstore *s);
/* The tenant for writing, created (and persisted with this transaction) when new. */
eg_code eg_gtxn_tenant(eg_gtxn *t, const char *name, eg_tenant **out, eg_err *err);
/* Persist the tenant's counters with this transaction (after changing them). */
void eg_gtxn_save_tenant(eg_gtxn *t, const eg_tenant *ten);
/* Read through pending writes, then RocksDB. *val malloc'd; EG_ENOTFOUND when absent. */
eg_code eg_gtxn_get(eg_gtxn *t, int cf, const void *key, size_t klen, char **val, size_t *vlen,
                    eg_err *err);
/* Put. With visible = true the value can be read back by later transactions before it
 * is durable (names, heads, entities); other puts are write-only. */
eg_code eg_gtxn_put(eg_gtxn *t, int cf, const void *key, size_t klen, const void *val,
                    size_t vlen, bool visible);
void eg_gtxn_delete(eg_gtxn *t, int cf, const void *key, size_t klen);
void eg_gtxn_delete_range(eg_gtxn *t, int cf, const void *from, size_t flen, const void *to,
                          size_t tlen);
/* Forget a tenant (after erasing it): the name may be created afresh later. */
void eg_gtxn_forget_tenant(eg_gtxn *t, const char *name);
/* Make durable (group commit) and release the lock. The transaction is freed. */
eg_code eg_gtxn_commit(eg_gtxn *t, eg_err *err);
/* Roll back everything this transaction wrote and release the lock. Frees it. */
void eg_gtxn_abort(eg_gtxn *t);

/* Flush memtables (tests and benchmarks). */
void eg_gstore_flush(eg_gstore *s);

#endif
