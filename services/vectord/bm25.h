/*
 * bm25.h — an in-memory BM25 inverted index over documents numbered by slot.
 *
 * score(q, d) = Σ_t idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl)),
 * idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5)).
 * Removed documents leave the statistics at once; their postings are skipped and
 * compacted lazily. Not thread-safe: the owner's lock guards it.
 */
#ifndef EG_VECTORD_BM25_H
#define EG_VECTORD_BM25_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct eg_bm25 eg_bm25;

/* One term of a document with its frequency. */
typedef struct eg_bm25_term {
  const char *term; /* NUL-terminated, borrowed during the call */
  uint32_t tf;
} eg_bm25_term;

eg_bm25 *eg_bm25_new(double k1, double b);
void eg_bm25_free(eg_bm25 *ix); /* accepts NULL */

/* Add document `slot` (must not be present) with its distinct terms and its length. */
eg_code eg_bm25_add(eg_bm25 *ix, uint32_t slot, const eg_bm25_term *terms, size_t n, uint32_t doclen);
/* Remove a document (no-op when absent). */
void eg_bm25_remove(eg_bm25 *ix, uint32_t slot);

/* Score one document for query terms (duplicates count once). */
double eg_bm25_score(const eg_bm25 *ix, const char *const *terms, size_t n, uint32_t slot);

/* The top k documents for the query, best first; keep(slot, ctx) may filter (NULL = all).
 * Returns how many were written to slots/scores. */
typedef int (*eg_bm25_keep)(void *ctx, uint32_t slot);
size_t eg_bm25_search(const eg_bm25 *ix, const char *const *terms, size_t n, size_t k,
                      eg_bm25_keep keep, void *ctx, uint32_t *slots, double *scores);

/* Live documents and distinct terms. */
size_t eg_bm25_docs(const eg_bm25 *ix);
size_t eg_bm25_terms(const eg_bm25 *ix);

#endif
