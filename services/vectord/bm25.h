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

/* One term of a document with its frequency (counted up to 65535). */
typedef struct eg_bm25_term {
  const char *term; /* NUL-terminated, borrowed during the call */
  uint32_t tf;
} eg_bm25_term;

eg_bm25 *eg_bm25_new(double k1, double b);
void eg_bm25_free(eg_bm25 *ix); /* accepts NULL */

/* A class of terms, those starting with `prefix` (concept terms "~…" beside the words said),
 * weighs w in every query prepared afterwards: its idf is multiplied by w. */
void eg_bm25_prefix_weight(eg_bm25 *ix, char prefix, double w);

/* Add document `slot` (must not be present) with its distinct terms and its length. A
 * removed slot may be added again with the terms it had (vectord's slots never change
 * content): its postings not yet compacted away are reused, so it counts once. */
eg_code eg_bm25_add(eg_bm25 *ix, uint32_t slot, const eg_bm25_term *terms, size_t n,
                    uint32_t doclen);
/* Remove a document (no-op when absent). */
void eg_bm25_remove(eg_bm25 *ix, uint32_t slot);

typedef int (*eg_bm25_keep)(void *ctx, uint32_t slot);

/* A query prepared once for scoring many documents: its distinct terms present in the
 * index (at most EG_BM25_MAX_TERMS), each with its idf, and the average document length,
 * under the statistics it was prepared with. Valid until the index changes. */
#define EG_BM25_MAX_TERMS 64
typedef struct eg_bm25_tentry eg_bm25_tentry;
typedef struct eg_bm25_query {
  size_t n;
  const eg_bm25_tentry *t[EG_BM25_MAX_TERMS];
  double idf[EG_BM25_MAX_TERMS]; /* times the term's weight */
  double w[EG_BM25_MAX_TERMS];   /* the term's weight (1, or the prefix weight) */
  double avgdl;
} eg_bm25_query;

/* Prepare with the whole index's statistics (duplicate terms count once). */
void eg_bm25_prepare(const eg_bm25 *ix, const char *const *terms, size_t n, eg_bm25_query *q);
/* A subset of the documents (one user's) whose statistics a query may be prepared with:
 * the documents `slots` lists (n of them, all live), which in(slot, ctx) tells apart, and
 * what eg_bm25_subset_init sums over them once for all the queries prepared with it. */
typedef struct eg_bm25_subset {
  const uint32_t *slots;
  size_t n;
  eg_bm25_keep in;
  void *ctx;
  double len;   /* their total length */
  size_t terms; /* their distinct terms, summed: the length of the walk over their lists */
} eg_bm25_subset;

void eg_bm25_subset_init(const eg_bm25 *ix, const uint32_t *slots, size_t n, eg_bm25_keep in,
                         void *ctx, eg_bm25_subset *s);
/* Prepare with the statistics of a subset, smoothed toward the whole index's as if `prior`
 * documents of the whole index were added to it: a term's document frequency rate is
 * (df_sub + prior · df/N) / (N_sub + prior), and so is the mean length. prior 0: the
 * subset's own statistics. */
void eg_bm25_prepare_within(const eg_bm25 *ix, const char *const *terms, size_t n,
                            const eg_bm25_subset *s, double prior, eg_bm25_query *q);

/* Score one document. */
double eg_bm25_score(const eg_bm25 *ix, const eg_bm25_query *q, uint32_t slot);
/* Its share from the terms of weight 1 alone (the words said, not a prefixed class). */
double eg_bm25_score_words(const eg_bm25 *ix, const eg_bm25_query *q, uint32_t slot);
/* Score n documents (in any order) into out[]: eg_bm25_score's scores, with one walk of
 * each query term's postings instead of a search per document and term; and into words[]
 * (when not NULL) eg_bm25_score_words' shares, in the same walk. */
void eg_bm25_score_many(const eg_bm25 *ix, const eg_bm25_query *q, const uint32_t *slots, size_t n,
                        double *out, double *words);

/* The top k documents for the query, best first (ties: the smaller slot first); keep(slot,
 * ctx) may filter (NULL = all), and is asked only of documents that would enter the top k.
 * Returns how many were written to slots/scores. The scores are eg_bm25_score's; the
 * work is in the postings of the query's terms (fewer once the top k are good enough),
 * never in the number of slots. */
size_t eg_bm25_search(const eg_bm25 *ix, const eg_bm25_query *q, size_t k, eg_bm25_keep keep,
                      void *ctx, uint32_t *slots, double *scores);

/* Live documents and distinct terms. */
size_t eg_bm25_docs(const eg_bm25 *ix);
size_t eg_bm25_terms(const eg_bm25 *ix);

#endif
