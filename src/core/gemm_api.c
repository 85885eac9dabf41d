/*
 * gemm_api.c -- the BLAS-style front end for device buffers: validate every argument before
 * anything is enqueued, map row-major onto column-major, then hand over to the one GEMM core
 * (gemm.c).
 *
 * Checks follow the reference BLAS order (layout, transA, transB, m, n, k, lda, ldb, ldc) and
 * then the OpenCL objects (queue, buffers, sizes, contexts, FP64), each with its own status.
 * Row-major C = op(A)*op(B) is the column-major C^T = op(B)^T*op(A)^T over the same memory, so
 * a row-major call becomes a column-major one with A<->B and m<->n swapped and the transpose
 * flags kept; the error codes still name the caller's arguments.
 */
#include "device/cache.h"
#include "core/gemm.h"

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

/* A real or complex (cplx) GEMM; alpha and beta (re, im), the imaginary parts 0 for real. */
static clhgemm_status_t gemm_cl(chg_precision_t prec, int cplx, clhgemm_layout_t layout,
                                clhgemm_transpose_t transA, clhgemm_transpose_t transB, int m,
                                int n, int k, const double alpha[2], cl_mem A, size_t offA,
                                int lda, cl_mem B, size_t offB, int ldb, const double beta[2],
                                cl_mem C, size_t offC, int ldc, cl_command_queue queue,
                                cl_event *event)
{
    chg_shape_t sh;
    clhgemm_status_t st = chg_gemm_check_shape(layout, transA, transB, m, n, k, lda, ldb, ldc, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    if (!alpha || !beta) return CLHGEMM_INVALID_ARGUMENT;
    const int col = sh.col, ta = sh.ta, tb = sh.tb;
    /* a conjugate transpose conjugates its operand, whichever side the row-major swap puts it */
    const int ca = cplx && transA == CLHGEMM_CONJ_TRANS, cb = cplx && transB == CLHGEMM_CONJ_TRANS;

    const chg_device_t *dev;
    cl_context ctx;
    st = chg_queue_device(queue, &dev, &ctx);
    if (st != CLHGEMM_SUCCESS) return st;
    const size_t es = chg_elem_size(prec) * (cplx ? 2 : 1);
    const int touch_c = m > 0 && n > 0;
    const int read_ab = touch_c && k > 0 && (alpha[0] != 0.0 || alpha[1] != 0.0);
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

    chg_gemm_args_t a = {.prec = prec, .alpha = alpha[0], .beta = beta[0], .c = C, .off_c = offC,
                         .ldc = (size_t)ldc, .k = (size_t)k};
    a.alpha_im = cplx ? alpha[1] : 0.0;
    a.beta_im = cplx ? beta[1] : 0.0;
    a.st.cplx = cplx;
    if (col) {
        a.m = (size_t)m; a.n = (size_t)n;
        a.trans_a = ta; a.trans_b = tb;
        a.st.conj_a = ca; a.st.conj_b = cb;
        a.a = A; a.off_a = offA; a.lda = (size_t)lda;
        a.b = B; a.off_b = offB; a.ldb = (size_t)ldb;
    } else {
        a.m = (size_t)n; a.n = (size_t)m;
        a.trans_a = tb; a.trans_b = ta;
        a.st.conj_a = cb; a.st.conj_b = ca;
        a.a = B; a.off_a = offB; a.lda = (size_t)ldb;
        a.b = A; a.off_b = offA; a.ldb = (size_t)lda;
    }
    return chg_gemm_enqueue_on(&a, dev, ctx, queue, 0, NULL, event);
}

/* clhgemm_sgemm_cl and clhgemm_dgemm_cl: gemm_cl at the precision of T. */
#define GEMM_CL(p, T, prec)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gemm_cl(                                             \
        clhgemm_layout_t layout, clhgemm_transpose_t transA, clhgemm_transpose_t transB, int m,    \
        int n, int k, T alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,     \
        T beta, cl_mem C, size_t offC, int ldc, cl_command_queue queue, cl_event *event)           \
    {                                                                                              \
        const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};                                    \
        return gemm_cl(prec, 0, layout, transA, transB, m, n, k, al, A, offA, lda, B, offB, ldb,   \
                       be, C, offC, ldc, queue, event);                                            \
    }
CHG_PRECISIONS(GEMM_CL)
#undef GEMM_CL

/* clhgemm_cgemm_cl and clhgemm_zgemm_cl: gemm_cl on complex elements of T. */
#define CGEMM_CL(p, T, prec)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gemm_cl(                                             \
        clhgemm_layout_t layout, clhgemm_transpose_t transA, clhgemm_transpose_t transB, int m,    \
        int n, int k, const void *alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB,    \
        int ldb, const void *beta, cl_mem C, size_t offC, int ldc, cl_command_queue queue,         \
        cl_event *event)                                                                           \
    {                                                                                              \
        double al[2], be[2];                                                                       \
        return gemm_cl(prec, 1, layout, transA, transB, m, n, k, chg_scalar_read(prec, alpha, al), \
                       A, offA, lda, B, offB, ldb, chg_scalar_read(prec, beta, be), C, offC, ldc,  \
                       queue, event);                                                              \
    }
CHG_CPRECISIONS(CGEMM_CL)
#undef CGEMM_CL

CLHGEMM_API void clhgemm_release_resources(void)
{
    chg_gemm_release_all();
    chg_cache_release_all();
}
