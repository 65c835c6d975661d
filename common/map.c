/*
 * map.c — linear probing with tombstones; grows at 70 % load.
 */
#include "common/map.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

typedef struct slot {
  uint64_t hash; /* 0 = empty, 1 = tombstone; real hashes are forced >= 2 */
  void *key;
  size_t klen;
  void *value;
} slot;

struct eg_map {
  slot *slots;
  size_t cap;         /* power of two */
  size_t count, used; /* used = count + tombstones */
};

uint64_t eg_hash64(const void *p, size_t n, uint64_t seed) { return XXH64(p, n, seed); }

static uint64_t key_hash(const void *k, size_t n) {
  uint64_t h = XXH64(k, n, 0x9e3779b97f4a7c15ULL);
  return h < 2 ? h + 2 : h;
}

eg_map *eg_map_new(void) {
  eg_map *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->cap = 16;
  m->slots = calloc(m->cap, sizeof *m->slots);
  if (!m->slots) {
    free(m);
    return NULL;
  }
  return m;
}

void eg_map_clear(eg_map *m) {
  for (size_t i = 0; i < m->cap; i++) {
    if (m->slots[i].hash >= 2) free(m->slots[i].key);
    m->slots[i] = (slot){0, NULL, 0, NULL};
  }
  m->count = m->used = 0;
}

void eg_map_free(eg_map *m) {
  if (!m) return;
  eg_map_clear(m);
  free(m->slots);
  free(m);
}

static slot *find(const eg_map *m, const void *key, size_t klen, uint64_t h) {
  size_t mask = m->cap - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    slot *s = &m->slots[i];
    if (s->hash == 0) return NULL;
    if (s->hash == h && s->klen == klen && memcmp(s->key, key, klen) == 0) return s;
  }
}

static eg_code grow(eg_map *m) {
  size_t ncap = m->count * 2 >= m->cap ? m->cap * 2 : m->cap; /* else just drop tombstones */
  slot *ns = calloc(ncap, sizeof *ns);
  if (!ns) return EG_ENOMEM;
  for (size_t i = 0; i < m->cap; i++) {
    slot *s = &m->slots[i];
    if (s->hash < 2) continue;
    size_t j = s->hash & (ncap - 1);
    while (ns[j].hash) j = (j + 1) & (ncap - 1);
    ns[j] = *s;
  }
  free(m->slots);
  m->slots = ns;
  m->cap = ncap;
  m->used = m->count;
  return EG_OK;
}

eg_code eg_map_put(eg_map *m, const void *key, size_t klen, void *value) {
  uint64_t h = key_hash(key, klen);
  slot *s = find(m, key, klen, h);
  if (s) {
    s->value = value;
    return EG_OK;
  }
  if ((m->used + 1) * 10 >= m->cap * 7 && grow(m)) return EG_ENOMEM;
  void *kc = malloc(klen ? klen : 1);
  if (!kc) return EG_ENOMEM;
  memcpy(kc, key, klen);
  size_t mask = m->cap - 1, i = h & mask;
  while (m->slots[i].hash >= 2) i = (i + 1) & mask;
  if (m->slots[i].hash == 0) m->used++;
  m->slots[i] = (slot){h, kc, klen, value};
  m->count++;
  return EG_OK;
}

void *eg_map_get(const eg_map *m, const void *key, size_t klen) {
  slot *s = find(m, key, klen, key_hash(key, klen));
  return s ? s->value : NULL;
}

void *eg_map_del(eg_map *m, const void *key, size_t klen) {
  slot *s = find(m, key, klen, key_hash(key, klen));
  if (!s) return NULL;
  void *v = s->value;
  free(s->key);
  *s = (slot){1, NULL, 0, NULL};
  m->count--;
  return v;
}

size_t eg_map_count(const eg_map *m) { return m->count; }

void eg_map_each(const eg_map *m, bool (*fn)(void *, const void *, size_t, void *), void *ctx) {
  for (size_t i = 0; i < m->cap; i++) {
    slot *s = &m->slots[i];
    if (s->hash >= 2 && !fn(ctx, s->key, s->klen, s->value)) return;
  }
}
