// faiss_compat.cpp — the subset of the FAISS C API that vectord uses, implemented over the
// FAISS C++ library with the official names and signatures of <faiss/c_api/*.h>, and the
// one entry point the C API lacks: an HNSW search restricted to the ids a filter keeps.
//
// Debian ships the C API headers but no libfaiss_c (libfaiss.a has no faiss_* symbols).
// The C API part is compiled only when no libfaiss_c is found (EG_FAISS_C_LIB undefined),
// so the real library can be swapped in unchanged. Every entry point catches exceptions
// into the last-error slot and returns -1, exactly like the upstream wrapper. This is the
// project's only C++.

#include <faiss/AutoTune.h>
#include <faiss/Index.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIDMap.h>
#include <faiss/c_api/AutoTune_c.h>
#include <faiss/c_api/Index_c.h>
#include <faiss/c_api/error_c.h>
#include <faiss/c_api/impl/AuxIndexStructures_c.h>
#include <faiss/c_api/index_factory_c.h>
#include <faiss/c_api/index_io_c.h>
#include <faiss/impl/AuxIndexStructures.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/index_factory.h>
#include <faiss/index_io.h>

#include <exception>
#include <stdexcept>
#include <string>

#include "services/vectord/faiss_filter.h"

#ifndef EG_FAISS_C_LIB
thread_local std::exception_ptr faiss_last_exception;

#define CATCH_AND_HANDLE                             \
  catch (...) {                                      \
    faiss_last_exception = std::current_exception(); \
    return -1;                                       \
  }                                                  \
  return 0;

extern "C" {

const char* faiss_get_last_error() {
  if (faiss_last_exception) {
    try {
      std::rethrow_exception(faiss_last_exception);
    } catch (std::exception& e) {
      thread_local std::string msg;
      msg = e.what();
      return msg.c_str();
    } catch (...) {
      return "unknown FAISS error";
    }
  }
  return nullptr;
}

void faiss_Index_free(FaissIndex* obj) { delete reinterpret_cast<faiss::Index*>(obj); }

int faiss_Index_d(const FaissIndex* index) {
  return reinterpret_cast<const faiss::Index*>(index)->d;
}

int faiss_Index_is_trained(const FaissIndex* index) {
  return reinterpret_cast<const faiss::Index*>(index)->is_trained;
}

idx_t faiss_Index_ntotal(const FaissIndex* index) {
  return reinterpret_cast<const faiss::Index*>(index)->ntotal;
}

FaissMetricType faiss_Index_metric_type(const FaissIndex* index) {
  return static_cast<FaissMetricType>(reinterpret_cast<const faiss::Index*>(index)->metric_type);
}

int faiss_Index_train(FaissIndex* index, idx_t n, const float* x) {
  try {
    reinterpret_cast<faiss::Index*>(index)->train(n, x);
  }
  CATCH_AND_HANDLE
}

int faiss_Index_add(FaissIndex* index, idx_t n, const float* x) {
  try {
    reinterpret_cast<faiss::Index*>(index)->add(n, x);
  }
  CATCH_AND_HANDLE
}

int faiss_Index_add_with_ids(FaissIndex* index, idx_t n, const float* x, const idx_t* xids) {
  try {
    reinterpret_cast<faiss::Index*>(index)->add_with_ids(n, x, xids);
  }
  CATCH_AND_HANDLE
}

int faiss_Index_search(const FaissIndex* index, idx_t n, const float* x, idx_t k, float* distances,
                       idx_t* labels) {
  try {
    reinterpret_cast<const faiss::Index*>(index)->search(n, x, k, distances, labels);
  }
  CATCH_AND_HANDLE
}

int faiss_Index_reset(FaissIndex* index) {
  try {
    reinterpret_cast<faiss::Index*>(index)->reset();
  }
  CATCH_AND_HANDLE
}

int faiss_Index_remove_ids(FaissIndex* index, const FaissIDSelector* sel, size_t* n_removed) {
  try {
    size_t n = reinterpret_cast<faiss::Index*>(index)->remove_ids(
        *reinterpret_cast<const faiss::IDSelector*>(sel));
    if (n_removed) *n_removed = n;
  }
  CATCH_AND_HANDLE
}

int faiss_Index_reconstruct(const FaissIndex* index, idx_t key, float* recons) {
  try {
    reinterpret_cast<const faiss::Index*>(index)->reconstruct(key, recons);
  }
  CATCH_AND_HANDLE
}

int faiss_index_factory(FaissIndex** p_index, int d, const char* description,
                        FaissMetricType metric) {
  try {
    *p_index = reinterpret_cast<FaissIndex*>(
        faiss::index_factory(d, description, static_cast<faiss::MetricType>(metric)));
  }
  CATCH_AND_HANDLE
}

int faiss_IDSelectorBatch_new(FaissIDSelectorBatch** p_sel, size_t n, const idx_t* indices) {
  try {
    *p_sel = reinterpret_cast<FaissIDSelectorBatch*>(new faiss::IDSelectorBatch(n, indices));
  }
  CATCH_AND_HANDLE
}

void faiss_IDSelector_free(FaissIDSelector* obj) {
  delete reinterpret_cast<faiss::IDSelector*>(obj);
}

int faiss_write_index_fname(const FaissIndex* idx, const char* fname) {
  try {
    faiss::write_index(reinterpret_cast<const faiss::Index*>(idx), fname);
  }
  CATCH_AND_HANDLE
}

int faiss_read_index_fname(const char* fname, int io_flags, FaissIndex** p_out) {
  try {
    *p_out = reinterpret_cast<FaissIndex*>(faiss::read_index(fname, io_flags));
  }
  CATCH_AND_HANDLE
}

int faiss_ParameterSpace_new(FaissParameterSpace** space) {
  try {
    *space = reinterpret_cast<FaissParameterSpace*>(new faiss::ParameterSpace());
  }
  CATCH_AND_HANDLE
}

void faiss_ParameterSpace_free(FaissParameterSpace* obj) {
  delete reinterpret_cast<faiss::ParameterSpace*>(obj);
}

int faiss_ParameterSpace_set_index_parameter(const FaissParameterSpace* space, FaissIndex* index,
                                             const char* name, double value) {
  try {
    reinterpret_cast<const faiss::ParameterSpace*>(space)->set_index_parameter(
        reinterpret_cast<faiss::Index*>(index), name, value);
  }
  CATCH_AND_HANDLE
}

}  // extern "C"
#endif  // EG_FAISS_C_LIB

namespace {

thread_local std::string filter_error;

// Keeps an HNSW graph's internal id when the filter keeps the id the IDMap gives it.
struct KeepSelector : faiss::IDSelector {
  const faiss::Index::idx_t* ids;
  eg_faiss_keep_fn keep;
  void* ctx;
  KeepSelector(const faiss::Index::idx_t* ids, eg_faiss_keep_fn keep, void* ctx)
      : ids(ids), keep(keep), ctx(ctx) {}
  bool is_member(faiss::Index::idx_t id) const override { return keep(ctx, ids[id]) != 0; }
};

}  // namespace

extern "C" const char* eg_faiss_filter_error(void) { return filter_error.c_str(); }

extern "C" int eg_faiss_search_filtered(const FaissIndex* index, const float* x, idx_t k,
                                        int ef_search, eg_faiss_keep_fn keep, void* ctx,
                                        float* distances, idx_t* labels) {
  try {
    auto map =
        dynamic_cast<const faiss::IndexIDMap2*>(reinterpret_cast<const faiss::Index*>(index));
    auto hnsw = map ? dynamic_cast<const faiss::IndexHNSW*>(map->index) : nullptr;
    if (!hnsw) {
      filter_error = "filtered search needs an IDMap2 over an HNSW index";
      return -1;
    }
    KeepSelector sel(map->id_map.data(), keep, ctx);
    faiss::SearchParametersHNSW params;
    params.sel = &sel;
    params.efSearch = ef_search > (int)k ? ef_search : (int)k;
    hnsw->search(1, x, k, distances, labels, &params);
    for (idx_t i = 0; i < k; i++)
      if (labels[i] >= 0) labels[i] = map->id_map[labels[i]];
    return 0;
  } catch (std::exception& e) {
    filter_error = e.what();
  } catch (...) {
    filter_error = "unknown FAISS error";
  }
  return -1;
}
