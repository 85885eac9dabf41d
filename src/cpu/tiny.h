/*
 * tiny.h -- the small-matrix GEMM of the CPU route (tiny.c owns it): C := alpha*op(A)*op(B) +
 * beta*C for m, n, k all at most CHG_TINY_MAX, on the calling thread, with no allocation, no
 * lock and no call into OpenBLAS, whose fixed cost per call (argument handling, its kernels'
 * setup) is most of the time of such a product, and a call routed to the CPU must cost no more
 * than a direct OpenBLAS call.
 *
 * C's rows are taken in panels of one vector (64, 32 or 16 bytes), op(A)'s rows of a panel read
 * in place when A is not transposed (packed on the stack when it is), so that the inner loop
 * runs over contiguous rows whatever the transposes and layout; blocks of four columns of C are
 * accumulated in vector registers (float in float, double in double, as OpenBLAS does) and
 * written once: C := alpha*acc + beta*C, C's input never read when beta == 0. On x86-64 with
 * glibc (GCC 12 or later) the kernel is compiled for x86-64-v4 (AVX-512), v3 (AVX2, FMA) and the
 * baseline, the best chosen when the library loads (ifunc); elsewhere GCC or Clang vectors for
 * the target, or plain C. The squares DGEMM 16 and 32 and SGEMM 32 take a wide kernel on
 * x86-64-v4 hosts instead (panels of two vectors, blocks of eight columns).
 *
 * Which calls the CPU route gives it is cpu/tiny_select.h's choice (measured per host against
 * OpenBLAS; CLHGEMM_TINY).
 */
#ifndef CHG_CPU_TINY_H
#define CHG_CPU_TINY_H

#include "kernels/precision.h"

/* The largest m, n and k the kernel takes (clhgemm-bench-smallcall against OpenBLAS 0.3.21's
 * small-matrix kernels: above it those win on the hosts measured). */
#define CHG_TINY_MAX 32

/* The whole GEMM with full BLAS semantics (quick paths included: m or n = 0 does nothing, k = 0
 * or alpha = 0 scales C by beta without reading A or B, beta = 0 never reads C) on arguments
 * already checked: layout and transposes as clhgemm's enums (CBLAS's values), leading
 * dimensions valid for the layout, m, n, k <= CHG_TINY_MAX. */
void chg_tiny_gemm(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k, double alpha,
                   const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc);

#endif
