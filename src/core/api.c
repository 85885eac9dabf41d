/*
 * api.c -- the BLAS-style front end for device buffers: validate every argument before anything
 * is enqueued, map row-major onto column-major, then hand over to the one GEMM core (gemm.c).
 *
 * Checks follow the reference BLAS order (layout, transA, transB, m, n, k, lda, ldb, ldc) and
 * then the OpenCL objects (queue, buffers, sizes, contexts, FP64), each with its own status.
 * Row-major C = op(A)*op(B) is the column-major C^T = op(B)^T*op(A)^T over the same memory, so
 * a row-major call becomes a column-major one with A<->B and m<->n swapped and the transpose
 * flags kept; the error codes still name the caller's arguments.
 */
#include "device/cache.h"
#include "core/gemm.h"
#include "core/extent.h"

static int valid_trans(int t)
{
    return t == CLHGEMM_NO_TRANS || t == CLHGEMM_TRANS || t == CLHGEMM_CONJ_TRANS;
}

/* Whether a stored rows x cols matrix at offset `off` with leading dimension ld fits in
 * `avail` elements, without overflowing (offsets near SIZE_MAX must fail, not wrap). */
static int fits(size_t off, size_t rows, size_t cols, size_t ld, size_t avail)
{
    if (rows == 0 || cols == 0) return 1;
    if (off > avail) return 0;
    avail -= off;
    if (rows > avail) return 0;
    return (cols - 1) <= (avail - rows) / ld;
}

clhgemm_status_t chg_check_buffer(cl_mem buf, cl_context ctx, size_t off, size_t rows,
                                  size_t cols, size_t ld, size_t es, clhgemm_status_t null_st,
                                  clhgemm_status_t small_st)
{
    if (!buf) return null_st;
    size_t size;
    cl_context bctx;
    cl_int err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof bctx, &bctx, NULL);
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    if (bctx != ctx) return CLHGEMM_CONTEXT_MISMATCH;
    if (!fits(off, rows, cols, ld, size / es)) return small_st;
    return CLHGEMM_SUCCESS;
}

clhgemm_status_t chg_gemm_check_shape(int layout, int transA, int transB, int m, int n, int k,
                                      int lda, int ldb, int ldc, chg_shape_t *sh)
{
    if (layout != CLHGEMM_ROW_MAJOR && layout != CLHGEMM_COL_MAJOR) return CLHGEMM_INVALID_LAYOUT;
    if (!valid_trans(transA)) return CLHGEMM_INVALID_TRANS_A;
    if (!valid_trans(transB)) return CLHGEMM_INVALID_TRANS_B;
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

static clhgemm_status_t gemm_cl(chg_precision_t prec, clhgemm_layout_t layout,
                                clhgemm_transpose_t transA, clhgemm_transpose_t transB, int m,
                                int n, int k, double alpha, cl_mem A, size_t offA, int lda,
                                cl_mem B, size_t offB, int ldb, double beta, cl_mem C, size_t offC,
                                int ldc, cl_command_queue queue, cl_event *event)
{
    chg_shape_t sh;
    clhgemm_status_t st = chg_gemm_check_shape(layout, transA, transB, m, n, k, lda, ldb, ldc, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    const int col = sh.col, ta = sh.ta, tb = sh.tb;

    const chg_device_t *dev;
    cl_context ctx;
    st = chg_queue_device(queue, &dev, &ctx);
    if (st != CLHGEMM_SUCCESS) return st;
    const size_t es = chg_elem_size(prec);
    const int touch_c = m > 0 && n > 0;
    const int read_ab = touch_c && k > 0 && alpha != 0.0;
    if (read_ab) {
        st = chg_check_buffer(A, ctx, offA, sh.a_rows, sh.a_cols, (size_t)lda, es,
                              CLHGEMM_NULL_BUFFER_A, CLHGEMM_INSUFFICIENT_BUFFER_A);
        if (st != CLHGEMM_SUCCESS) return st;
        st = chg_check_buffer(B, ctx, offB, sh.b_rows, sh.b_cols, (size_t)ldb, es,
                              CLHGEMM_NULL_BUFFER_B, CLHGEMM_INSUFFICIENT_BUFFER_B);
        if (st != CLHGEMM_SUCCESS) return st;
    }
    if (touch_c) {
        st = chg_check_buffer(C, ctx, offC, sh.c_rows, sh.c_cols, (size_t)ldc, es,
                              CLHGEMM_NULL_BUFFER_C, CLHGEMM_INSUFFICIENT_BUFFER_C);
        if (st != CLHGEMM_SUCCESS) return st;
    }
    if (prec == CHG_F64 && !(dev->features & CHG_FEAT_FP64)) return CLHGEMM_FP64_NOT_SUPPORTED;

    chg_gemm_args_t a = {.prec = prec, .alpha = alpha, .beta = beta, .c = C, .off_c = offC,
                         .ldc = (size_t)ldc, .k = (size_t)k};
    if (col) {
        a.m = (size_t)m; a.n = (size_t)n;
        a.trans_a = ta; a.trans_b = tb;
        a.a = A; a.off_a = offA; a.lda = (size_t)lda;
        a.b = B; a.off_b = offB; a.ldb = (size_t)ldb;
    } else {
        a.m = (size_t)n; a.n = (size_t)m;
        a.trans_a = tb; a.trans_b = ta;
        a.a = B; a.off_a = offB; a.lda = (size_t)ldb;
        a.b = A; a.off_b = offA; a.ldb = (size_t)lda;
    }
    return chg_gemm_enqueue_on(&a, dev, ctx, queue, 0, NULL, event);
}

CLHGEMM_API clhgemm_status_t clhgemm_sgemm_cl(clhgemm_layout_t layout, clhgemm_transpose_t transA,
                                              clhgemm_transpose_t transB, int m, int n, int k,
                                              float alpha, cl_mem A, size_t offA, int lda, cl_mem B,
                                              size_t offB, int ldb, float beta, cl_mem C,
                                              size_t offC, int ldc, cl_command_queue queue,
                                              cl_event *event)
{
    return gemm_cl(CHG_F32, layout, transA, transB, m, n, k, alpha, A, offA, lda, B, offB, ldb,
                   beta, C, offC, ldc, queue, event);
}

CLHGEMM_API clhgemm_status_t clhgemm_dgemm_cl(clhgemm_layout_t layout, clhgemm_transpose_t transA,
                                              clhgemm_transpose_t transB, int m, int n, int k,
                                              double alpha, cl_mem A, size_t offA, int lda, cl_mem B,
                                              size_t offB, int ldb, double beta, cl_mem C,
                                              size_t offC, int ldc, cl_command_queue queue,
                                              cl_event *event)
{
    return gemm_cl(CHG_F64, layout, transA, transB, m, n, k, alpha, A, offA, lda, B, offB, ldb,
                   beta, C, offC, ldc, queue, event);
}

CLHGEMM_API void clhgemm_release_resources(void)
{
    chg_gemm_release_all();
    chg_cache_release_all();
}
