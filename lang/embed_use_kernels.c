/*
 * embed_use_kernels.c — USE-lite's dense layers in bfloat16 (AVX-512 BF16, VDPBF16PS).
 *
 * Layout: W[k×m] is cut into blocks of 16 output columns; a block holds, for each pair of
 * inputs (2p, 2p+1), one 32-bit word per column with W[2p][j] in the low half and
 * W[2p+1][j] in the high half — the operand order of VDPBF16PS. A row of activations,
 * rounded to bfloat16 in its natural order, gives the matching pair as one 32-bit word to
 * broadcast. A tile is 4 rows × 4 blocks (64 columns): 16 accumulators, 8 loads for 16
 * instructions. Rows are taken 64 at a time so that a block group of W and the rows'
 * activations both stay in L2 while the tiles sweep them.
 *
 * Compiled for the target by function attribute, called only after the CPU check, so the
 * file builds with the project's flags on any x86-64 compiler that knows the instructions.
 */
#include <stdlib.h>
#include <string.h>

#include "lang/embed_use_int.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define EG_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#define EG_HAVE_BF16 1
#endif

enum { TILE_ROWS = 4, TILE_BLOCKS = 4, BLOCK_COLS = 16, ROW_BLOCK = 64 };

/* float → bfloat16, round to nearest even (the weights hold no NaN). */
static uint32_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

uint32_t *eg_use_pack_bf16(const float *w, int k, int m) {
  size_t kp = (size_t)k / 2;
  uint32_t *p = malloc(kp * (size_t)m * sizeof *p);
  if (!p) return NULL;
  for (int jb = 0; jb < m / BLOCK_COLS; jb++)
    for (size_t q = 0; q < kp; q++)
      for (int l = 0; l < BLOCK_COLS; l++) {
        size_t j = (size_t)jb * BLOCK_COLS + (size_t)l;
        p[((size_t)jb * kp + q) * BLOCK_COLS + (size_t)l] =
            to_bf16(w[2 * q * (size_t)m + j]) | to_bf16(w[(2 * q + 1) * (size_t)m + j]) << 16;
      }
  return p;
}

uint16_t *eg_use_to_bf16(const float *w, size_t n) {
  uint16_t *p = malloc(n * sizeof *p);
  for (size_t i = 0; p && i < n; i++) p[i] = (uint16_t)to_bf16(w[i]);
  return p;
}

size_t eg_use_bf16_scratch(int n, int k) {
  /* the rows as bfloat16 pairs, padded to whole tiles: one float's room per pair */
  return ((size_t)n + TILE_ROWS) * (size_t)k / 2;
}

#ifdef EG_HAVE_BF16

bool eg_use_bf16_supported(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw");
}

/* rows x[0..n) of k floats → bfloat16 pairs in a (k/2 words a row); rows n..n4 zero */
EG_BF16 static void rows_to_bf16(const float *x, int n, int n4, int k, uint32_t *a) {
  size_t kp = (size_t)k / 2;
  for (int i = 0; i < n; i++) {
    const float *r = x + (size_t)i * (size_t)k;
    uint32_t *d = a + (size_t)i * kp;
    for (int c = 0; c < k; c += 32) {
      __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(r + c + 16), _mm512_loadu_ps(r + c));
      _mm512_storeu_si512(d + c / 2, (__m512i)v);
    }
  }
  memset(a + (size_t)n * kp, 0, (size_t)(n4 - n) * kp * sizeof *a);
}

/* One tile: rows a[0..4) (kp words each) × blocks w[0..4) (bs words apart), stored to out
 * rows [0..rows) at columns j0.. (ldo floats a row). */
EG_BF16 static void tile(const uint32_t *a, size_t kp, const uint32_t *w, size_t bs, int rows,
                         const float *b, float *out, size_t ldo, bool add) {
  __m512 acc[TILE_ROWS][TILE_BLOCKS];
#pragma GCC unroll 4
  for (int r = 0; r < TILE_ROWS; r++)
#pragma GCC unroll 4
    for (int c = 0; c < TILE_BLOCKS; c++) acc[r][c] = _mm512_setzero_ps();
  for (size_t q = 0; q < kp; q++) {
    __m512bh wv[TILE_BLOCKS];
#pragma GCC unroll 4
    for (int c = 0; c < TILE_BLOCKS; c++)
      wv[c] = (__m512bh)_mm512_loadu_si512(w + (size_t)c * bs + q * BLOCK_COLS);
#pragma GCC unroll 4
    for (int r = 0; r < TILE_ROWS; r++) {
      __m512bh av = (__m512bh)_mm512_set1_epi32((int)a[(size_t)r * kp + q]);
#pragma GCC unroll 4
      for (int c = 0; c < TILE_BLOCKS; c++) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], av, wv[c]);
    }
  }
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < TILE_BLOCKS; c++) {
      float *o = out + (size_t)r * ldo + (size_t)c * BLOCK_COLS;
      __m512 v = acc[r][c];
      if (b) v = _mm512_add_ps(v, _mm512_loadu_ps(b + c * BLOCK_COLS));
      if (add) v = _mm512_add_ps(v, _mm512_loadu_ps(o));
      _mm512_storeu_ps(o, v);
    }
}

EG_BF16 void eg_use_dense_bf16(const float *x, int n, int k, const uint32_t *w, int m,
                               const float *b, float *out, bool add, float *scratch) {
  size_t kp = (size_t)k / 2, bs = kp * BLOCK_COLS;
  uint32_t *a = (uint32_t *)scratch;
  int n4 = (n + TILE_ROWS - 1) / TILE_ROWS * TILE_ROWS;
  rows_to_bf16(x, n, n4, k, a);
  for (int i0 = 0; i0 < n4; i0 += ROW_BLOCK) {
    int i1 = i0 + ROW_BLOCK < n4 ? i0 + ROW_BLOCK : n4;
    for (int jb = 0; jb < m / BLOCK_COLS; jb += TILE_BLOCKS) {
      size_t j0 = (size_t)jb * BLOCK_COLS;
      for (int i = i0; i < i1; i += TILE_ROWS)
        tile(a + (size_t)i * kp, kp, w + (size_t)jb * bs, bs, n - i < TILE_ROWS ? n - i : TILE_ROWS,
             b ? b + j0 : NULL, out + (size_t)i * (size_t)m + j0, (size_t)m, add);
    }
  }
}

/* Per row: the indices of its nonzero entries first (compressed 16 at a time, no branch to
 * mispredict on every entry), then COLS columns at a time, whose sums stay in registers while
 * the rows of W (bfloat16, half the bytes) at those indices are added. */
EG_BF16 void eg_use_add_rows_bf16(const float *x, int n, int k, const uint16_t *w, int m,
                                  float *out) {
  enum { REGS = 16, COLS = REGS * 16, MAX_K = 4096, AHEAD = 6 };
  int32_t nz[MAX_K];
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int i = 0; i < n; i++) {
    const float *r = x + (size_t)i * (size_t)k;
    int cnt = 0;
    for (int c = 0; c < k && c + 16 <= MAX_K; c += 16) {
      __mmask16 keep = _mm512_cmp_ps_mask(_mm512_loadu_ps(r + c), _mm512_setzero_ps(), _CMP_NEQ_UQ);
      __m512i idx = _mm512_add_epi32(lanes, _mm512_set1_epi32(c));
      _mm512_storeu_si512(nz + cnt, _mm512_maskz_compress_epi32(keep, idx));
      cnt += __builtin_popcount(keep);
    }
    for (int j0 = 0; j0 < m; j0 += COLS) {
      float *o = out + (size_t)i * (size_t)m + j0;
      __m512 acc[REGS];
#pragma GCC unroll 16
      for (int q = 0; q < REGS; q++) acc[q] = _mm512_loadu_ps(o + q * 16);
      for (int e = 0; e < cnt; e++) {
        if (e + AHEAD < cnt) { /* which rows come next depends on x: no prefetcher guesses it */
          const char *next = (const char *)(w + (size_t)nz[e + AHEAD] * (size_t)m + j0);
          for (int l = 0; l < COLS * 2; l += 64) _mm_prefetch(next + l, _MM_HINT_T0);
        }
        __m512 a = _mm512_set1_ps(r[nz[e]]);
        const uint16_t *wr = w + (size_t)nz[e] * (size_t)m + j0;
#pragma GCC unroll 16
        for (int q = 0; q < REGS; q++) {
          __m512i wi = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(wr + q * 16)));
          acc[q] = _mm512_fmadd_ps(a, _mm512_castsi512_ps(_mm512_slli_epi32(wi, 16)), acc[q]);
        }
      }
#pragma GCC unroll 16
      for (int q = 0; q < REGS; q++) _mm512_storeu_ps(o + q * 16, acc[q]);
    }
  }
}

#else

bool eg_use_bf16_supported(void) { return false; }

void eg_use_add_rows_bf16(const float *x, int n, int k, const uint16_t *w, int m, float *out) {
  (void)x, (void)n, (void)k, (void)w, (void)m, (void)out;
  abort(); /* never called: eg_use_bf16_supported() is false */
}

void eg_use_dense_bf16(const float *x, int n, int k, const uint32_t *w, int m, const float *b,
                       float *out, bool add, float *scratch) {
  (void)x, (void)n, (void)k, (void)w, (void)m, (void)b, (void)out, (void)add, (void)scratch;
  abort(); /* never called: eg_use_bf16_supported() is false */
}

#endif
