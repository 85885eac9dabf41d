/*
 * entry.c -- the public host-memory entry points (clhgemm_{s,d}{gemm,symm,syrk,syr2k,trmm}):
 * the argument checks (before anything is written), the quick paths that need no device
 * (k == 0 or alpha == 0: C := beta*C here), and the mapping of the call onto the column-major
 * view of the pipeline (host/run.h).
 */
#include <stdint.h>

#include "core/l3_map.h"
#include "cpu/route_calls.h"
#include "cpu/share_blas.h"
#include "host/route.h"
#include "host/run.h"

/* C := beta*C on the host (k == 0 or alpha == 0): C is not read when beta == 0 and not touched
 * when beta == 1; with c_tri only that triangle of C. */
static void scale_c(const chg_call_t *c, double beta)
{
    if (beta == 1.0) return;
    for (size_t j = 0; j < c->n; j++) {
        char *col = c->c + j * c->ldc * c->es;
        size_t i0 = 0, i1 = c->m;
        if (c->st.c_tri == CHG_TRI_UPPER) i1 = CHG_MIN(c->m, j + 1);
        if (c->st.c_tri == CHG_TRI_LOWER) i0 = CHG_MIN(c->m, j);
        for (size_t i = i0; i < i1; i++) {
            if (c->prec == CHG_F64) {
                double *x = (double *)col + i;
                *x = beta == 0.0 ? 0.0 : beta * *x;
            } else {
                float *x = (float *)col + i;
                *x = beta == 0.0 ? 0.0f : (float)(beta * *x);
            }
        }
    }
}

/* The caller's own arguments, for the CPU route (OpenBLAS gets them as they came). */
typedef struct user_args_s {
    int routine;                /* CHG_L3_* (GEMM calls cpu/route_calls.c from host_gemm) */
    int layout, side, uplo, ta, tb, diag, m, n, k;
    double alpha, beta;
    const void *a, *b;
    void *c;
    int lda, ldb, ldc;
} user_args_t;

static void run_on_cpu(chg_precision_t prec, const user_args_t *u)
{
    switch (u->routine) {
    case CHG_L3_SYMM:
        chg_cpu_blas_symm(prec, u->layout, u->side, u->uplo, u->m, u->n, u->alpha, u->a, u->lda, u->b, u->ldb,
                          u->beta, u->c, u->ldc);
        break;
    case CHG_L3_SYRK:
    case CHG_L3_SYR2K:
        chg_cpu_blas_syrk(prec, u->layout, u->uplo, u->ta, u->n, u->k, u->alpha, u->a, u->lda,
                          u->routine == CHG_L3_SYR2K ? u->b : NULL, u->ldb, u->beta, u->c, u->ldc);
        break;
    case CHG_L3_TRMM:
        chg_cpu_blas_trmm(prec, u->layout, u->side, u->uplo, u->ta, u->diag, u->m, u->n, u->alpha, u->a, u->lda,
                          (void *)u->b, u->ldb);
        break;
    default: /* GEMM goes to chg_cpu_blas_gemm from host_gemm */
        break;
    }
}

/* A checked call with something to compute goes to OpenBLAS on this thread (1) or through the
 * pipeline (0), as host/route.h decides; asked before the pipeline's chg_call_t is built, so that
 * a small call pays for nothing it does not use. */
static int goes_to_cpu(clhgemm_handle_t h, const chg_route_call_t *rc)
{
    /* Every device of the handle lost in earlier calls (host/fault.h): OpenBLAS, as routed. */
    if (h->ndev == 0 && chg_cpu_available()) return 1;
    return chg_route_to_cpu(h, rc);
}

static clhgemm_status_t on_cpu(clhgemm_handle_t h, chg_precision_t prec, const user_args_t *u)
{
    run_on_cpu(prec, u);
    chg_handle_set_last_cpu(h);
    return CLHGEMM_SUCCESS;
}

/* A GEMM the CPU route did not take: the pipeline's chg_call_t (column-major view), or C := beta*C
 * here when k == 0 or alpha == 0 (no device can beat one pass). Kept out of host_gemm so that
 * the CPU route pays for none of its frame. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static clhgemm_status_t gemm_pipeline(clhgemm_handle_t h, chg_precision_t prec, const chg_shape_t *sh,
                                      const user_args_t *u, int read_ab, const char *name)
{
    chg_call_t c = {.h = h, .prec = prec, .es = chg_elem_size(prec), .alpha = u->alpha, .beta = u->beta, .c = u->c,
                .ldc = (size_t)u->ldc, .k = (size_t)u->k, .status = CLHGEMM_SUCCESS};
    if (sh->col) {
        c.m = (size_t)u->m; c.n = (size_t)u->n; c.ta = sh->ta; c.tb = sh->tb;
        c.a = u->a; c.lda = (size_t)u->lda; c.b = u->b; c.ldb = (size_t)u->ldb;
    } else {
        c.m = (size_t)u->n; c.n = (size_t)u->m; c.ta = sh->tb; c.tb = sh->ta;
        c.a = u->b; c.lda = (size_t)u->ldb; c.b = u->a; c.ldb = (size_t)u->lda;
    }
    if (!read_ab) {
        scale_c(&c, u->beta);
        return CLHGEMM_SUCCESS;
    }
    c.flops = 2.0 * c.m * c.n * c.k;
    c.name = name;
    return chg_run_call(h, &c);
}

/* Inlined into each entry point (one argument copy fewer per call, the precision a constant). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline clhgemm_status_t host_gemm(clhgemm_handle_t h, chg_precision_t prec, clhgemm_layout_t layout,
                                  clhgemm_transpose_t transA, clhgemm_transpose_t transB, int m,
                                  int n, int k, double alpha, const void *A, int lda, const void *B,
                                  int ldb, double beta, void *C, int ldc)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_shape_t sh;
    clhgemm_status_t st = chg_gemm_check_shape(layout, transA, transB, m, n, k, lda, ldb, ldc, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    const int touch_c = m > 0 && n > 0, read_ab = touch_c && k > 0 && alpha != 0.0;
    if (read_ab && !A) return CLHGEMM_NULL_BUFFER_A;
    if (read_ab && !B) return CLHGEMM_NULL_BUFFER_B;
    if (touch_c && !C) return CLHGEMM_NULL_BUFFER_C;
    if (!chg_handle_fp64_ok(h, prec)) return CLHGEMM_FP64_NOT_SUPPORTED;
    if (!touch_c) return CLHGEMM_SUCCESS;
    const char *name = prec == CHG_F64 ? "dgemm" : "sgemm";
    const double fm = m, fn = n, fk = k;
    /* The CPU route straight to cpu/route_calls.h with the caller's arguments: no lock, no clock,
     * no allocation, nothing built that it does not use, so that it costs no more than OpenBLAS (a
     * small product the library's own kernel, cheaper still). */
    if (read_ab && (chg_route_surely_cpu(h, 2.0 * fm * fn * fk) ||
                    goes_to_cpu(h, &(chg_route_call_t){.prec = prec, .name = name, .m = (size_t)m, .n = (size_t)n,
                                                   .k = (size_t)k, .flops = 2.0 * fm * fn * fk,
                                                   .in_elems = (fm + fn) * fk, .c_elems = fm * fn,
                                                   .beta_zero = beta == 0.0}))) {
        chg_handle_set_last_cpu(h);
        chg_cpu_route_gemm(prec, layout, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        return CLHGEMM_SUCCESS;
    }

    const user_args_t u = {.layout = layout, .ta = transA, .tb = transB, .m = m, .n = n, .k = k, .alpha = alpha,
                           .beta = beta, .a = A, .b = B, .c = C, .lda = lda, .ldb = ldb, .ldc = ldc};
    return gemm_pipeline(h, prec, &sh, &u, read_ab, name);
}

/* clhgemm_sgemm and clhgemm_dgemm: host_gemm at the precision of T. */
#define GEMM(p, T, prec)                                                                           \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gemm(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_transpose_t transA,                   \
        clhgemm_transpose_t transB, int m, int n, int k, T alpha, const T *A, int lda, const T *B, \
        int ldb, T beta, T *C, int ldc)                                                            \
    {                                                                                              \
        return host_gemm(h, prec, layout, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, \
                         ldc);                                                                     \
    }
CHG_PRECISIONS(GEMM)
#undef GEMM

/* ---- SYMM, SYRK, SYR2K, TRMM on host memory ----------------------------------------------- */

/* A level-3 call after its shape checks (core/l3_map.c, shared with the device-buffer versions):
 * the NULL checks in check_call's order (A when the product reads it; B when SYMM or SYR2K
 * read it or TRMM writes it; C when it is written), FP64, the quick paths, then the pipeline
 * with the call's structure. The mapping onto the core (which operand is which, transposes,
 * the structure, TRMM's C = B) is chg_l3_core_args's, the one the device versions use; it
 * takes cl_mem handles, so the host pointers travel through it as opaque handles. */
static clhgemm_status_t host_l3(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                                const char *name, const user_args_t *u)
{
    const double alpha = u->alpha, beta = u->beta;
    const void *A = u->a, *B = u->b;
    void *C = u->c;
    const int lda = u->lda, ldb = u->ldb, ldc = u->ldc;
    const int touch = sh->m > 0 && sh->n > 0, product = touch && sh->k > 0 && alpha != 0.0;
    const int trmm = sh->routine == CHG_L3_TRMM;
    if (product && !A) return CLHGEMM_NULL_BUFFER_A;
    if (!B && ((product && (sh->routine == CHG_L3_SYMM || sh->routine == CHG_L3_SYR2K)) || (trmm && touch)))
        return CLHGEMM_NULL_BUFFER_B;
    if (touch && !trmm && !C) return CLHGEMM_NULL_BUFFER_C;
    if (!chg_handle_fp64_ok(h, prec)) return CLHGEMM_FP64_NOT_SUPPORTED;
    if (!touch) return CLHGEMM_SUCCESS;

    chg_gemm_args_t g;
    chg_l3_core_args(sh, prec, (const double[2]){alpha, 0.0}, (cl_mem)(uintptr_t)A, 0, (size_t)lda,
                     (cl_mem)(uintptr_t)B, 0, (size_t)ldb, (const double[2]){beta, 0.0},
                     (cl_mem)(uintptr_t)C, 0, (size_t)ldc, &g);
    /* the routine's own operation count: SYMM 2*m*n*ka, SYRK n*n*k, SYR2K 2*n*n*k, TRMM m*n*ka */
    const int segs = g.swap_sum ? 2 : 1;
    const double mn = (double)g.m * g.n, k = (double)g.k;
    const double flops = sh->routine == CHG_L3_SYMM ? 2.0 * mn * k : sh->routine == CHG_L3_TRMM ? mn * k
                       : segs * mn * k;
    if (product && goes_to_cpu(h, &(chg_route_call_t){.prec = prec, .name = name, .m = g.m, .n = g.n, .k = g.k,
                                                  .flops = flops, .in_elems = ((double)g.m + g.n) * k * segs,
                                                  .c_elems = mn * (g.st.c_tri != CHG_TRI_NONE ? 0.5 : 1.0),
                                                  .beta_zero = g.beta == 0.0}))
        return on_cpu(h, prec, u);
    chg_call_t c = {.h = h, .prec = prec, .es = chg_elem_size(prec), .ta = g.trans_a, .tb = g.trans_b,
                .m = g.m, .n = g.n, .k = g.k, .alpha = alpha, .beta = g.beta,
                .a = (const char *)(uintptr_t)g.a, .b = (const char *)(uintptr_t)g.b,
                .c = (char *)(uintptr_t)g.c, .lda = g.lda, .ldb = g.ldb, .ldc = g.ldc,
                .status = CLHGEMM_SUCCESS, .st = g.st, .segs = segs, .l3 = 1, .name = name,
                .flops = flops};
    if (!product) {
        /* alpha == 0 (or k == 0): C := beta*C on C's triangle for SYRK/SYR2K; TRMM sets B to 0
         * without reading A or B */
        scale_c(&c, g.beta);
        return CLHGEMM_SUCCESS;
    }
    return chg_run_call(h, &c);
}

static clhgemm_status_t host_symm(clhgemm_handle_t h, chg_precision_t prec, int layout, int side,
                                  int uplo, int m, int n, double alpha, const void *A, int lda,
                                  const void *B, int ldb, double beta, void *C, int ldc)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_symm_check_shape(layout, side, uplo, m, n, lda, ldb, ldc, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    const user_args_t u = {.routine = CHG_L3_SYMM, .layout = layout, .side = side, .uplo = uplo, .m = m, .n = n,
                           .alpha = alpha, .beta = beta, .a = A, .b = B, .c = C, .lda = lda, .ldb = ldb, .ldc = ldc};
    return host_l3(h, prec, &sh, prec == CHG_F64 ? "dsymm" : "ssymm", &u);
}

static clhgemm_status_t host_syrk(clhgemm_handle_t h, chg_precision_t prec, int two, int layout,
                                  int uplo, int trans, int n, int k, double alpha, const void *A,
                                  int lda, const void *B, int ldb, double beta, void *C, int ldc)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_syrk_check_shape(layout, uplo, trans, n, k, lda, ldb, ldc, two, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    static const char *const names[2][2] = {{"ssyrk", "dsyrk"}, {"ssyr2k", "dsyr2k"}};
    const user_args_t u = {.routine = two ? CHG_L3_SYR2K : CHG_L3_SYRK, .layout = layout, .uplo = uplo, .ta = trans,
                           .n = n, .k = k, .alpha = alpha, .beta = beta, .a = A, .b = B, .c = C, .lda = lda,
                           .ldb = ldb, .ldc = ldc};
    return host_l3(h, prec, &sh, names[two][prec == CHG_F64], &u);
}

static clhgemm_status_t host_trmm(clhgemm_handle_t h, chg_precision_t prec, int layout, int side,
                                  int uplo, int transA, int diag, int m, int n, double alpha,
                                  const void *A, int lda, void *B, int ldb)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_trmm_check_shape(layout, side, uplo, transA, diag, m, n, lda, ldb, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    const user_args_t u = {.routine = CHG_L3_TRMM, .layout = layout, .side = side, .uplo = uplo, .ta = transA,
                           .diag = diag, .m = m, .n = n, .alpha = alpha, .a = A, .b = B, .c = NULL, .lda = lda,
                           .ldb = ldb, .ldc = 1};
    return host_l3(h, prec, &sh, prec == CHG_F64 ? "dtrmm" : "strmm", &u);
}

/* The exported pairs: each routine above at the precision of T (CHG_PRECISIONS). */
#define SYMM(p, T, prec)                                                                           \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##symm(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo,     \
        int m, int n, T alpha, const T *A, int lda, const T *B, int ldb, T beta, T *C, int ldc)    \
    {                                                                                              \
        return host_symm(h, prec, layout, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);  \
    }
CHG_PRECISIONS(SYMM)
#undef SYMM

#define SYRK(p, T, prec)                                                                           \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syrk(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                          \
        clhgemm_transpose_t trans, int n, int k, T alpha, const T *A, int lda, T beta, T *C,       \
        int ldc)                                                                                   \
    {                                                                                              \
        return host_syrk(h, prec, 0, layout, uplo, trans, n, k, alpha, A, lda, NULL, 1, beta, C,   \
                         ldc);                                                                     \
    }
CHG_PRECISIONS(SYRK)
#undef SYRK

#define SYR2K(p, T, prec)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syr2k(                                               \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                          \
        clhgemm_transpose_t trans, int n, int k, T alpha, const T *A, int lda, const T *B,         \
        int ldb, T beta, T *C, int ldc)                                                            \
    {                                                                                              \
        return host_syrk(h, prec, 1, layout, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C,    \
                         ldc);                                                                     \
    }
CHG_PRECISIONS(SYR2K)
#undef SYR2K

#define TRMM(p, T, prec) CHG_TRIANGULAR_HOST(p, T, prec, trmm)
CHG_PRECISIONS(TRMM)
#undef TRMM
