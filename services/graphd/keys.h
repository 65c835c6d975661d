/*
 * keys.h — graphd's RocksDB key layouts. Big-endian, fixed-width, tenant first, so that
 * one tenant's data is one contiguous range per column family and key order is the
 * order queries want (valid time, then transaction time).
 *
 *   entities        T | entity_id                         → packed Entity
 *   names           T | normalized name | 0x00 | entity_id → kind (0 name, 1 alias)
 *   edges           T | subject | rel | vf | tc | edge_id   → packed Edge
 *   edges_by_object T | object | rel | subject | edge_id    → ""
 *   edges_by_id     T | edge_id                            → the edges key (48 bytes)
 *   txlog           T | tc | edge_id                        → ""
 *   derivations     T | premise_id | derived_id             → ""
 *   chunk_entities  T | chunk_id | entity_id                → ""
 *   default         'T' name → T;  'N' → next T;  'C' T → counters;
 *                   'H' T subject rel → chain head edge id;  'R' T name → relation;
 *                   'M' T merge_id → merge record;  'A' time T → erase audit (counts only)
 *
 * T is the tenant's 64-bit number (assigned on first write), rel the 64-bit hash of the
 * relation name, vf and tc times mapped to unsigned so that negative times sort first.
 */
#ifndef EG_GRAPHD_KEYS_H
#define EG_GRAPHD_KEYS_H

#include <stdint.h>
#include <string.h>

enum {
  CF_DEFAULT = 0,
  CF_ENTITIES,
  CF_NAMES,
  CF_EDGES,
  CF_EDGES_BY_OBJECT,
  CF_EDGES_BY_ID,
  CF_TXLOG,
  CF_DERIVATIONS,
  CF_CHUNK_ENTITIES,
  CF_COUNT
};

#define EDGE_KEY_LEN 48

static inline void key_put64(uint8_t *p, uint64_t v) {
  for (int i = 7; i >= 0; i--) {
    p[i] = (uint8_t)v;
    v >>= 8;
  }
}

static inline uint64_t key_get64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
  return v;
}

/* Signed time → unsigned with the same order. */
static inline uint64_t key_time(int64_t t) { return (uint64_t)t ^ 0x8000000000000000ULL; }
static inline int64_t key_untime(uint64_t k) { return (int64_t)(k ^ 0x8000000000000000ULL); }

/* Write up to n 64-bit words; returns the length. */
static inline size_t key_words(uint8_t *out, const uint64_t *w, size_t n) {
  for (size_t i = 0; i < n; i++) key_put64(out + 8 * i, w[i]);
  return 8 * n;
}

#define KEY2(buf, a, b) key_words((buf), (const uint64_t[]){(a), (b)}, 2)
#define KEY3(buf, a, b, c) key_words((buf), (const uint64_t[]){(a), (b), (c)}, 3)
#define KEY4(buf, a, b, c, d) key_words((buf), (const uint64_t[]){(a), (b), (c), (d)}, 4)
#define KEY5(buf, a, b, c, d, e) key_words((buf), (const uint64_t[]){(a), (b), (c), (d), (e)}, 5)
#define KEY6(buf, a, b, c, d, e, f) \
  key_words((buf), (const uint64_t[]){(a), (b), (c), (d), (e), (f)}, 6)

#endif
