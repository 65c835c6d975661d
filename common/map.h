/*
 * map.h — an open-addressing hash map from byte-string keys to pointers.
 *
 * Keys are copied; values are borrowed (the caller owns what they point to). Not
 * thread-safe: guard it with the lock of the structure that owns it.
 */
#ifndef EG_MAP_H
#define EG_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct eg_map eg_map;

eg_map *eg_map_new(void);
/* Free the map and its key copies; values are not touched. Accepts NULL. */
void eg_map_free(eg_map *m);
/* Insert or replace. */
eg_code eg_map_put(eg_map *m, const void *key, size_t klen, void *value);
/* The value, or NULL when absent. */
void *eg_map_get(const eg_map *m, const void *key, size_t klen);
/* Remove; returns the old value or NULL. */
void *eg_map_del(eg_map *m, const void *key, size_t klen);
size_t eg_map_count(const eg_map *m);
/* Remove everything (values untouched). */
void eg_map_clear(eg_map *m);
/* Visit every entry; stop when fn returns false. Do not modify the map inside. */
void eg_map_each(const eg_map *m, bool (*fn)(void *ctx, const void *key, size_t klen, void *value),
                 void *ctx);

/* 64-bit hash of bytes (xxh64). */
uint64_t eg_hash64(const void *p, size_t n, uint64_t seed);

#endif
