/*
 * gemm_args.h -- the arguments of one device GEMM call in the core's column-major view, as
 * core/gemm.c runs them and core/direct.c decides on them (a header of its own so that the
 * direct-operand decision needs nothing else of the core; core/gemm.h includes it). The
 * structure chg_struct_t of the other level-3 routines is core/blocks.h's.
 */
#ifndef CHG_GEMM_ARGS_H
#define CHG_GEMM_ARGS_H

#include "core/blocks.h"

typedef struct chg_gemm_args_s {
    chg_precision_t prec;
    int trans_a, trans_b;  /* 0 = no transpose, 1 = transpose (column-major view) */
    size_t m, n, k;        /* complex calls (st.cplx): complex elements, as offsets and ld */
    double alpha, beta;
    double alpha_im, beta_im; /* complex calls: the imaginary parts */
    /* complex: alpha goes into X_A's pack, the write-back takes 1 (HER2K: alpha in the first
     * product, conj(alpha) in the second, core/l3_map.c) */
    int alpha_in_pack;
    cl_mem a, b, c;
    size_t off_a, off_b, off_c;  /* elements */
    size_t lda, ldb, ldc;
    chg_struct_t st;  /* level-3 structure (zero: GEMM) */
    /* SYR2K fused: also accumulate op(B)*op(A) with the buffers of a and b exchanged (same
     * transposes and leading dimensions follow their buffers) into the same Cp, before the one
     * write-back: C := alpha*(op(A)op(B) + op(B')op(A')) + beta*C. */
    int swap_sum;
} chg_gemm_args_t;

#endif
