/*
 * embed_use_int.h — the dense kernel of USE-lite's forward pass (embed_use_kernels.c).
 *
 * On a CPU with AVX-512 BF16 the dense layers run on weights rounded once to bfloat16 and
 * packed for VDPBF16PS, with activations rounded to bfloat16 per call and sums kept in
 * float: twice the multiply-adds per instruction of float FMA and half the weight bytes.
 * The golden vectors still agree to a cosine above 0.9999 (test_embed). Elsewhere the
 * caller keeps OpenBLAS's sgemm on the float weights.
 */
#ifndef EG_LANG_EMBED_USE_INT_H
#define EG_LANG_EMBED_USE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when this CPU runs the bfloat16 kernel. */
bool eg_use_bf16_supported(void);

/* w[k×m] (row-major float) packed for the kernel: k even, m a multiple of 64. Caller frees
 * with free(); NULL when out of memory. */
uint32_t *eg_use_pack_bf16(const float *w, int k, int m);

/* Scratch floats eg_use_dense_bf16 needs for n rows of k inputs. */
size_t eg_use_bf16_scratch(int n, int k);

/* out[n×m] = x[n×k]·W + b, or out += x[n×k]·W + b when add; W packed by eg_use_pack_bf16,
 * b may be NULL, k a multiple of 32. scratch holds eg_use_bf16_scratch(n, k) floats. Only
 * on a CPU where eg_use_bf16_supported(). */
void eg_use_dense_bf16(const float *x, int n, int k, const uint32_t *w, int m, const float *b,
                       float *out, bool add, float *scratch);

/* w[0..n) rounded to bfloat16, in the same order. Caller frees with free(); NULL when out of
 * memory. */
uint16_t *eg_use_to_bf16(const float *w, size_t n);

/* out[n×m] += x[n×k]·W for x mostly zero: per row, the rows of W at its nonzero entries. W
 * row-major (k×m) from eg_use_to_bf16; k a multiple of 16 up to 4096, m a multiple of 256.
 * Only on a CPU where eg_use_bf16_supported(). */
void eg_use_add_rows_bf16(const float *x, int n, int k, const uint16_t *w, int m, float *out);

#endif
