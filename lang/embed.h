/*
 * embed.h — text embedders behind one interface.
 *
 * An embedder turns texts into L2-normalized float vectors of a fixed dimension and
 * names its model ("glove-100d-sif", "use-lite-512", "http:<model>"), so an index can
 * record what built it and refuse to mix models. Backends (one file each):
 *   embed_use.c    Universal Sentence Encoder lite, 512-d, own C forward pass (offline, default)
 *   embed_glove.c  GloVe 6B 100-d word vectors with SIF weighting (offline, fastest)
 *   embed_http.c   any OpenAI-compatible /v1/embeddings endpoint (libcurl)
 *
 * Thread-safe: embed may be called from several threads at once.
 */
#ifndef EG_LANG_EMBED_H
#define EG_LANG_EMBED_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

typedef struct eg_embedder eg_embedder;

typedef struct eg_embed_ops {
  /* Embed n texts into out (n * dim floats, each row L2-normalized; an empty or
   * unknown-word text gives the zero vector). */
  eg_code (*embed)(void *self, const char *const *texts, size_t n, float *out, eg_err *err);
  void (*close)(void *self);
} eg_embed_ops;

struct eg_embedder {
  const eg_embed_ops *ops;
  void *self;
  char model_id[96];
  int dim;
};

/*
 * Open an embedder from a spec:
 *   "use:<path of use-lite.bin>"         USE-lite, offline (scripts/install-deps.sh makes it)
 *   "use32:<path of use-lite.bin>"       the same on its float path on every CPU: no bfloat16
 *                                        where the CPU has it, so the same vectors everywhere
 *   "glove:<path of glove.bin>"          offline word vectors (scripts/install-deps.sh makes it)
 *   "http:<base url>|<model>|<dim>"      OpenAI-compatible endpoint; the API key comes from
 *                                        the environment variable ENGRAM_EMBED_API_KEY
 * *out is freed with eg_embedder_close.
 */
eg_code eg_embedder_open(const char *spec, eg_embedder **out, eg_err *err);

/* The spec of a configured embedder name into out: the built-in models by name ("use-lite",
 * "use-lite32" on the float path, "glove": their files under models_dir), anything else as
 * given (a spec already). */
void eg_embedder_spec(const char *name, const char *models_dir, char *out, size_t len);
void eg_embedder_close(eg_embedder *e); /* accepts NULL */

static inline eg_code eg_embed(eg_embedder *e, const char *const *texts, size_t n, float *out,
                               eg_err *err) {
  return e->ops->embed(e->self, texts, n, out, err);
}

/* Backends' constructors (used by eg_embedder_open). */
eg_code eg_embed_glove_open(const char *path, eg_embedder **out, eg_err *err);
/* float32: never the bfloat16 path, whatever the CPU has (nor with ENGRAM_USE_FP32 unset) */
eg_code eg_embed_use_open(const char *path, bool float32, eg_embedder **out, eg_err *err);
eg_code eg_embed_http_open(const char *base_url, const char *model, int dim, const char *api_key,
                           long timeout_ms, eg_embedder **out, eg_err *err);

/* Scale v[0..d) to unit length (left as is when zero). */
void eg_l2_normalize(float *v, int d);

#endif
