/*
 * faiss_filter.h — an HNSW search that keeps only the ids a filter accepts (FAISS's
 * SearchParameters with an IDSelector, which its C API does not offer). Implemented in
 * faiss_compat.cpp over the C++ library.
 */
#ifndef EG_VECTORD_FAISS_FILTER_H
#define EG_VECTORD_FAISS_FILTER_H

#include <faiss/c_api/Index_c.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Nonzero when the id (the IDMap2's id: a slot) may be returned. */
typedef int (*eg_faiss_keep_fn)(void *ctx, idx_t id);

/* The k nearest ids of one query x that keep() accepts, searching with a breadth of
 * max(ef_search, k); fewer than k found leave labels -1. index must be an IDMap2 over an
 * HNSW index. 0 on success, -1 with eg_faiss_filter_error() set. */
int eg_faiss_search_filtered(const FaissIndex *index, const float *x, idx_t k, int ef_search,
                             eg_faiss_keep_fn keep, void *ctx, float *distances, idx_t *labels);
const char *eg_faiss_filter_error(void);

#ifdef __cplusplus
}
#endif

#endif
