/*
 * shard.h — tenants across graphd and vectord replicas.
 *
 * A tenant lives on exactly one shard of each: shard = jump consistent hash (Lamping and
 * Veach) of the tenant's 64-bit hash over the shard count, so growing from n to n+1 shards
 * moves only about 1/(n+1) of the tenants. ingestd and recalld route each request with
 * eg_shard_of; graphd and vectord, told their own index and the count (an eg_shard their
 * handlers hold), refuse a tenant that is not theirs (eg_shard_check) with
 * FAILED_PRECONDITION.
 */
#ifndef EG_SHARD_H
#define EG_SHARD_H

#include <stdint.h>

#include "common/cfg.h"
#include "common/err.h"

/* Options of a sharded daemon (graphd, vectord). */
#define EG_SHARD_OPTS                                                                              \
  {"shard_index",                                                                                  \
   EG_CFG_INT,                                                                                     \
   "0",                                                                                            \
   "this replica's shard; -1 = the host name's trailing -<n>",                                     \
   0,                                                                                              \
   -1,                                                                                             \
   255},                                                                                           \
  {                                                                                                \
    "shard_count", EG_CFG_INT, "1", "shards of this service (tenants by jump consistent hash)", 0, \
        1, 256                                                                                     \
  }

/* The bucket of key among n (n ≥ 1): 0 … n-1. */
uint32_t eg_jump_hash(uint64_t key, uint32_t n);
/* The shard of tenant among n. */
uint32_t eg_shard_of(const char *tenant, uint32_t n);

/* The shard a daemon serves: index of count ({0, 1}: every tenant). */
typedef struct eg_shard {
  uint32_t index, count;
} eg_shard;

/* *out = shard index of count. A negative index is taken from the trailing "-<n>" of the
 * host name (a StatefulSet pod's ordinal); EG_EINVAL when there is none or the index is
 * out of range. */
eg_code eg_shard_make(int64_t index, uint32_t count, eg_shard *out, eg_err *err);
/* eg_shard_make from the EG_SHARD_OPTS of cfg. */
eg_code eg_shard_configure(const eg_cfg *cfg, eg_shard *out, eg_err *err);
/* EG_EPRECOND with a message naming both shards when tenant is not s's. */
eg_code eg_shard_check(const eg_shard *s, const char *tenant, eg_err *err);

#endif
