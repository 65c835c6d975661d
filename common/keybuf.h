/*
 * keybuf.h — building RocksDB keys: big-endian fixed-width words, so that byte order is
 * numeric order, and signed times mapped to unsigned with the same order.
 */
#ifndef EG_KEYBUF_H
#define EG_KEYBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
