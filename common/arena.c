/*
 * arena.c — a linked list of blocks; large allocations get a block of their own.
 */
#include "common/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct arena_block {
  struct arena_block *next;
  size_t size; /* usable bytes after the header */
  size_t used;
  _Alignas(16) unsigned char data[];
} arena_block;

struct eg_arena {
  arena_block *head; /* current block; older blocks follow */
  size_t block;      /* default block size */
  size_t cap;        /* total cap */
  size_t total;      /* bytes handed out */
};

#define ALIGN16(n) (((n) + 15) & ~(size_t)15)

static arena_block *block_new(size_t size) {
  arena_block *b = malloc(sizeof *b + size);
  if (!b) return NULL;
  b->next = NULL;
  b->size = size;
  b->used = 0;
  return b;
}

eg_arena *eg_arena_new(size_t block, size_t cap) {
  eg_arena *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->block = block ? block : 16384;
  a->cap = cap ? cap : ((size_t)256 << 20);
  a->head = block_new(a->block);
  if (!a->head) {
    free(a);
    return NULL;
  }
  return a;
}

void eg_arena_free(eg_arena *a) {
  if (!a) return;
  arena_block *b = a->head;
  while (b) {
    arena_block *n = b->next;
    free(b);
    b = n;
  }
  free(a);
}

void eg_arena_reset(eg_arena *a) {
  arena_block *b = a->head, *keep = NULL;
  while (b) {
    arena_block *n = b->next;
    if (!n && b->size == a->block) {
      keep = b; /* the first block is last in the list */
    } else {
      free(b);
    }
    b = n;
  }
  if (!keep) keep = block_new(a->block);
  if (keep) {
    keep->used = 0;
    keep->next = NULL;
  }
  a->head = keep;
  a->total = 0;
}

void *eg_arena_alloc(eg_arena *a, size_t n) {
  size_t need = ALIGN16(n ? n : 1);
  if (need < n || need > a->cap - a->total) return NULL;
  arena_block *b = a->head;
  if (!b || b->size - b->used < need) {
    if (need > a->block / 4) {
      /* Big allocation: its own block, linked behind the current one. */
      arena_block *big = block_new(need);
      if (!big) return NULL;
      big->used = need;
      if (b) {
        big->next = b->next;
        b->next = big;
      } else {
        a->head = big;
      }
      a->total += need;
      return big->data;
    }
    arena_block *nb = block_new(a->block);
    if (!nb) return NULL;
    nb->next = b;
    a->head = b = nb;
  }
  void *p = b->data + b->used;
  b->used += need;
  a->total += need;
  return p;
}

void *eg_arena_calloc(eg_arena *a, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = eg_arena_alloc(a, count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

char *eg_arena_strndup(eg_arena *a, const char *s, size_t n) {
  char *p = eg_arena_alloc(a, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *eg_arena_strdup(eg_arena *a, const char *s) { return eg_arena_strndup(a, s, strlen(s)); }

char *eg_arena_sprintf(eg_arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *p = eg_arena_alloc(a, (size_t)n + 1);
  if (!p) return NULL;
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

size_t eg_arena_used(const eg_arena *a) { return a->total; }
