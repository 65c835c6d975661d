/*
 * shard.c — jump consistent hash and a daemon's shard (see shard.h).
 */
#include "common/shard.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/map.h"

uint32_t eg_jump_hash(uint64_t key, uint32_t n) {
  int64_t b = -1, j = 0;
  while (j < (int64_t)n) {
    b = j;
    key = key * 2862933555777941757ULL + 1;
    j = (int64_t)((double)(b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1)));
  }
  return (uint32_t)b;
}

uint32_t eg_shard_of(const char *tenant, uint32_t n) {
  return n <= 1 ? 0 : eg_jump_hash(eg_hash64(tenant, strlen(tenant), 0x7368617264ULL), n);
}

eg_code eg_shard_make(int64_t index, uint32_t count, eg_shard *out, eg_err *err) {
  if (count < 1) return eg_err_set(err, EG_EINVAL, "shard_count must be at least 1");
  if (index < 0) {
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const char *dash = strrchr(host, '-');
    char *end = NULL;
    index = dash && dash[1] ? strtol(dash + 1, &end, 10) : -1;
    if (!end || *end || index < 0)
      return eg_err_set(err, EG_EINVAL,
                        "shard_index is 'from the host name' but \"%s\" does not end in -<n>",
                        host);
  }
  if (index >= count)
    return eg_err_set(err, EG_EINVAL, "shard_index %lld is not below shard_count %u",
                      (long long)index, count);
  *out = (eg_shard){(uint32_t)index, count};
  return EG_OK;
}

eg_code eg_shard_configure(const eg_cfg *cfg, eg_shard *out, eg_err *err) {
  return eg_shard_make(eg_cfg_int(cfg, "shard_index"), (uint32_t)eg_cfg_int(cfg, "shard_count"),
                       out, err);
}

eg_code eg_shard_check(const eg_shard *sh, const char *tenant, eg_err *err) {
  uint32_t n = sh->count, me = sh->index;
  if (n <= 1) return EG_OK;
  uint32_t s = eg_shard_of(tenant, n);
  if (s == me) return EG_OK;
  return eg_err_set(err, EG_EPRECOND,
                    "tenant \"%s\" lives on shard %u of %u; this is shard %u; send it there",
                    tenant, s, n, me);
}
