/*
 * arena.h — per-request bump allocator with a hard cap (nginx pools).
 *
 * Everything a request allocates comes from its arena and is released at once when the
 * call completes. An allocation that would pass the cap returns NULL, which handlers
 * report as RESOURCE_EXHAUSTED. Not thread-safe: one arena belongs to one call.
 */
#ifndef EG_ARENA_H
#define EG_ARENA_H

#include <stddef.h>

typedef struct eg_arena eg_arena;

/* block: bytes per block (0 = 16 KiB); cap: total bytes allowed (0 = 256 MiB).
 * Returns NULL on out-of-memory. Free with eg_arena_free. */
eg_arena *eg_arena_new(size_t block, size_t cap);
void eg_arena_free(eg_arena *a); /* accepts NULL */
/* Release all allocations but keep the first block for reuse. */
void eg_arena_reset(eg_arena *a);

/* 16-byte aligned; NULL when the cap would be exceeded. Memory is not zeroed. */
void *eg_arena_alloc(eg_arena *a, size_t n);
void *eg_arena_calloc(eg_arena *a, size_t count, size_t size);
char *eg_arena_strdup(eg_arena *a, const char *s);
char *eg_arena_strndup(eg_arena *a, const char *s, size_t n);
char *eg_arena_sprintf(eg_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Bytes handed out since creation or the last reset. */
size_t eg_arena_used(const eg_arena *a);

#endif
