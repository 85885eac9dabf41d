/*
 * tiny.h -- the small-matrix GEMM of the CPU route (tiny.c owns it): C := alpha*op(A)*op(B) +
 * beta*C for m, n, k all at most CHG_TINY_MAX, on the calling thread, with no allocation, no
 * lock and no call into OpenBLAS, whose fixed cost per call (argument handling, its kernels'
 * setup) is most of the time of such a product (issue 19: a call routed to the CPU must cost no
 * more than a direct OpenBLAS call).
 *
 * op(A) is packed into a buffer on the stack, rows padded to one vector register (64 bytes), so
 * that the inner loop runs over contiguous rows of a column of C whatever the transposes and
 * layout; blocks of four columns of C are accumulated in registers (float in float, double in
 * double, as OpenBLAS does) and written once: C := alpha*acc + beta*C, C never read when
 * beta == 0. On x86-64 with glibc the kernel is compiled for AVX-512, AVX2+FMA and the baseline,
 * the best chosen when the library loads (ifunc); elsewhere plain C that the compiler
 * vectorizes for its target.
 *
 * CLHGEMM_TINY=auto|off (read once per process, chg_env_choice): off sends every call to
 * OpenBLAS as before.
 */
#ifndef CHG_CPU_TINY_H
#define CHG_CPU_TINY_H

#include "kernels/precision.h"

/* The largest m, n and k the kernel takes (chosen from clhgemm-bench-smallcall against
 * OpenBLAS 0.3.21's small-matrix kernels: even at 32, a tie at worst), and, when both A and B
 * are transposed (op(A) packed element by element, against OpenBLAS's own TT kernel), 8. */
#define CHG_TINY_MAX 32
#define CHG_TINY_MAX_TT 8

/* 1 unless CLHGEMM_TINY=off (read the first time it is asked). */
int chg_tiny_enabled(void);

/* Whether the kernel takes a call of this shape (m, n, k >= 0; transposes as clhgemm's enums,
 * whose CLHGEMM_NO_TRANS is CBLAS's 111; both transposed means the same in either layout). */
static inline int chg_tiny_fits(int ta, int tb, int m, int n, int k)
{
    const int most = ta != 111 && tb != 111 ? CHG_TINY_MAX_TT : CHG_TINY_MAX;
    return m <= most && n <= most && k <= most;
}

/* The whole GEMM with full BLAS semantics (quick paths included: m or n = 0 does nothing, k = 0
 * or alpha = 0 scales C by beta without reading A or B, beta = 0 never reads C) on arguments
 * already checked: layout and transposes as clhgemm's enums (CBLAS's values), leading
 * dimensions valid for the layout, m, n, k <= CHG_TINY_MAX. */
void chg_tiny_gemm(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k, double alpha,
                   const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc);

#endif
