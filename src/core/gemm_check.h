/*
 * gemm_check.h -- the shape checks of a GEMM call, shared by the device-buffer front end
 * (core/gemm_api.c) and the host-memory one (host/entry.c). Inline, with the stored shapes they
 * derive: a small call routed to the CPU (to cost no more than OpenBLAS) pays for the checks
 * themselves and no call, no spilled arguments.
 */
#ifndef CHG_GEMM_CHECK_H
#define CHG_GEMM_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "clhgemm.h"
#include "core/extent.h"

/* The caller's view of a GEMM call after the shape checks: layout and transposes as flags, and
 * the stored shape (rows x cols, rows being what ld strides over) of A, B and C. */
typedef struct chg_shape_s {
    int col, ta, tb;
    size_t a_rows, a_cols, b_rows, b_cols, c_rows, c_cols;
} chg_shape_t;

static inline int chg_gemm_valid_trans(int t)
{
    return t == CLHGEMM_NO_TRANS || t == CLHGEMM_TRANS || t == CLHGEMM_CONJ_TRANS;
}

/* Checks enums, sizes and leading dimensions in the reference BLAS order, each with its own
 * status. */
static inline clhgemm_status_t chg_gemm_check_shape(int layout, int transA, int transB, int m, int n,
                                                    int k, int lda, int ldb, int ldc, chg_shape_t *sh)
{
    if (layout != CLHGEMM_ROW_MAJOR && layout != CLHGEMM_COL_MAJOR) return CLHGEMM_INVALID_LAYOUT;
    if (!chg_gemm_valid_trans(transA)) return CLHGEMM_INVALID_TRANS_A;
    if (!chg_gemm_valid_trans(transB)) return CLHGEMM_INVALID_TRANS_B;
    if (m < 0) return CLHGEMM_INVALID_M;
    if (n < 0) return CLHGEMM_INVALID_N;
    if (k < 0) return CLHGEMM_INVALID_K;
    const int ta = transA != CLHGEMM_NO_TRANS, tb = transB != CLHGEMM_NO_TRANS;
    const int col = layout == CLHGEMM_COL_MAJOR;
    /* Stored shapes (rows in the layout's sense: the dimension ld strides over). */
    const int a_rows = col ? (ta ? k : m) : (ta ? m : k);
    const int a_cols = col ? (ta ? m : k) : (ta ? k : m);
    const int b_rows = col ? (tb ? n : k) : (tb ? k : n);
    const int b_cols = col ? (tb ? k : n) : (tb ? n : k);
    const int c_rows = col ? m : n, c_cols = col ? n : m;
    if (lda < CHG_MAX(1, a_rows)) return CLHGEMM_INVALID_LDA;
    if (ldb < CHG_MAX(1, b_rows)) return CLHGEMM_INVALID_LDB;
    if (ldc < CHG_MAX(1, c_rows)) return CLHGEMM_INVALID_LDC;
    /* Every dimension and leading dimension below 2^20 (m, n, k >= 0 checked above): a matrix
     * spans under 2^40 elements, 2^43 bytes, which no overflow check can fail where size_t has
     * 64 bits -- the common case skips the six checked products (a small CPU-routed call). */
    const int small = SIZE_MAX > (1ull << 44) && ((unsigned)m | (unsigned)n | (unsigned)k | (unsigned)lda |
                                                  (unsigned)ldb | (unsigned)ldc) < (1u << 20);
    if (!small && !CHG_EXTENTS_FIT((size_t)a_rows, (size_t)a_cols, lda, (size_t)b_rows, (size_t)b_cols, ldb,
                         (size_t)c_rows, (size_t)c_cols, ldc))
        return CLHGEMM_SIZE_OVERFLOW;
    *sh = (chg_shape_t){.col = col, .ta = ta, .tb = tb,
                        .a_rows = (size_t)a_rows, .a_cols = (size_t)a_cols,
                        .b_rows = (size_t)b_rows, .b_cols = (size_t)b_cols,
                        .c_rows = (size_t)c_rows, .c_cols = (size_t)c_cols};
    return CLHGEMM_SUCCESS;
}

#endif
