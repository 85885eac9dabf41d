/*
 * entry.c -- the public host-memory entry points (clhgemm_{s,d}{gemm,symm,syrk,syr2k,trmm} and
 * the complex clhgemm_{c,z}{gemm,symm,hemm,syrk,herk,syr2k,her2k,trmm}): the argument checks
 * (before anything is written), the quick paths that need no device (k == 0 or alpha == 0:
 * C := beta*C here), and the mapping of the call onto the column-major view of the pipeline
 * (host/run.h). A complex call is the real one's path with complex elements (es, the core's
 * chg_struct_t.cplx with its conjugations); it never takes a CPU share beside the devices, and
 * its CPU route is OpenBLAS's complex routine (cpu/route_calls.h chg_cpu_blas_complex).
 */
#include <stdint.h>

#include "core/l3_map.h"
#include "cpu/route_calls.h"
#include "cpu/share_blas.h"
#include "host/route.h"
#include "host/run.h"

/* One part of C (element x of the column, part q of it for complex: 2x + q), read and written
 * in the call's precision. */
static double part_get(const chg_call_t *c, const char *col, size_t i)
{
    return c->prec == CHG_F64 ? ((const double *)col)[i] : (double)((const float *)col)[i];
}
static void part_put(const chg_call_t *c, char *col, size_t i, double v)
{
    if (c->prec == CHG_F64) ((double *)col)[i] = v;
    else ((float *)col)[i] = (float)v;
}

/* C := beta*C on the host (k == 0 or alpha == 0): C is not read when beta == 0 and not touched
 * when beta == 1; with c_tri only that triangle of C. A complex beta is c->beta + i c->beta_im;
 * a Hermitian C (herm_c) keeps a real diagonal, its imaginary part not read. */
static void scale_c(const chg_call_t *c)
{
    const double br = c->beta, bi = c->beta_im;
    if (br == 1.0 && bi == 0.0) return;
    const int zero = chg_call_beta_zero(c), cx = c->st.cplx;
    for (size_t j = 0; j < c->n; j++) {
        char *col = c->c + j * c->ldc * c->es;
        size_t i0 = 0, i1 = c->m;
        if (c->st.c_tri == CHG_TRI_UPPER) i1 = CHG_MIN(c->m, j + 1);
        if (c->st.c_tri == CHG_TRI_LOWER) i0 = CHG_MIN(c->m, j);
        for (size_t i = i0; i < i1; i++) {
            if (!cx) {
                part_put(c, col, i, zero ? 0.0 : br * part_get(c, col, i));
                continue;
            }
            const int real_diag = c->st.herm_c && i == j;
            const double xr = zero ? 0.0 : part_get(c, col, 2 * i);
            const double xi = zero || real_diag ? 0.0 : part_get(c, col, 2 * i + 1);
            part_put(c, col, 2 * i, br * xr - bi * xi);
            part_put(c, col, 2 * i + 1, real_diag ? 0.0 : br * xi + bi * xr);
        }
    }
}

/* The caller's own arguments, for the CPU route (OpenBLAS gets them as they came). */
typedef struct user_args_s {
    int routine;                /* CHG_L3_*; -1 GEMM (the real one calls cpu/route_calls.c from host_gemm) */
    int layout, side, uplo, ta, tb, diag, m, n, k;
    double alpha, beta;
    const void *a, *b;
    void *c;
    int lda, ldb, ldc;
    int cplx, herm;             /* complex; HEMM, HERK, HER2K */
    double alpha_im, beta_im;
} user_args_t;

/* The complex routine of u (its CHG_CPU_* in cpu/route_calls.h). */
static int complex_routine(const user_args_t *u)
{
    switch (u->routine) {
    case CHG_L3_SYMM: return u->herm ? CHG_CPU_HEMM : CHG_CPU_SYMM;
    case CHG_L3_SYRK: return u->herm ? CHG_CPU_HERK : CHG_CPU_SYRK;
    case CHG_L3_SYR2K: return u->herm ? CHG_CPU_HER2K : CHG_CPU_SYR2K;
    case CHG_L3_TRMM: return CHG_CPU_TRMM;
    default: return CHG_CPU_GEMM;
    }
}

static void run_on_cpu(chg_precision_t prec, const user_args_t *u)
{
    if (u->cplx) {
        const int tri = u->routine == CHG_L3_TRMM;
        const chg_cpu_cargs_t a = {.routine = complex_routine(u), .layout = u->layout,
                                   .side = u->side, .uplo = u->uplo, .ta = u->ta, .tb = u->tb,
                                   .diag = u->diag, .m = u->m, .n = u->n, .k = u->k,
                                   .alpha = {u->alpha, u->alpha_im}, .beta = {u->beta, u->beta_im},
                                   .a = u->a, .b = tri ? NULL : u->b,
                                   .c = tri ? (void *)u->b : u->c, .lda = u->lda, .ldb = u->ldb,
                                   .ldc = tri ? u->ldb : u->ldc};
        chg_cpu_blas_complex(prec, &a);
        return;
    }
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
    chg_call_t c = {.h = h, .prec = prec, .es = chg_elem_size(prec) * (u->cplx ? 2 : 1), .alpha = u->alpha,
                    .beta = u->beta, .alpha_im = u->alpha_im, .beta_im = u->beta_im, .c = u->c,
                    .ldc = (size_t)u->ldc, .k = (size_t)u->k, .status = CLHGEMM_SUCCESS};
    /* a conjugate transpose conjugates its operand, on whichever side the row-major swap puts it;
     * a complex call takes no CPU share (l3) */
    const int ca = u->cplx && u->ta == CLHGEMM_CONJ_TRANS, cb = u->cplx && u->tb == CLHGEMM_CONJ_TRANS;
    c.st.cplx = u->cplx;
    c.l3 = u->cplx;
    if (sh->col) {
        c.m = (size_t)u->m; c.n = (size_t)u->n; c.ta = sh->ta; c.tb = sh->tb;
        c.a = u->a; c.lda = (size_t)u->lda; c.b = u->b; c.ldb = (size_t)u->ldb;
        c.st.conj_a = ca; c.st.conj_b = cb;
    } else {
        c.m = (size_t)u->n; c.n = (size_t)u->m; c.ta = sh->tb; c.tb = sh->ta;
        c.a = u->b; c.lda = (size_t)u->ldb; c.b = u->a; c.ldb = (size_t)u->lda;
        c.st.conj_a = cb; c.st.conj_b = ca;
    }
    if (!read_ab) {
        scale_c(&c);
        return CLHGEMM_SUCCESS;
    }
    c.flops = (u->cplx ? 8.0 : 2.0) * c.m * c.n * c.k;
    c.name = name;
    return chg_run_call(h, &c);
}

/* The routing model's view of a complex call: the real product it is (four real flops per
 * complex multiply-add, elements of two reals). */
static chg_route_call_t route_complex(chg_route_call_t rc)
{
    rc.flops *= 4.0;
    rc.in_elems *= 2.0;
    rc.c_elems *= 2.0;
    return rc;
}

/* The complex GEMM: host_gemm's checks and path with complex scalars (NULL:
 * CLHGEMM_INVALID_ARGUMENT after the shape checks), OpenBLAS's CGEMM / ZGEMM on the CPU route. */
static clhgemm_status_t host_cgemm(clhgemm_handle_t h, chg_precision_t prec, clhgemm_layout_t layout,
                                   clhgemm_transpose_t transA, clhgemm_transpose_t transB, int m, int n, int k,
                                   const double *alpha, const void *A, int lda, const void *B, int ldb,
                                   const double *beta, void *C, int ldc)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_shape_t sh;
    clhgemm_status_t st = chg_gemm_check_shape(layout, transA, transB, m, n, k, lda, ldb, ldc, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    if (!alpha || !beta) return CLHGEMM_INVALID_ARGUMENT;
    const int touch_c = m > 0 && n > 0, read_ab = touch_c && k > 0 && (alpha[0] != 0.0 || alpha[1] != 0.0);
    if (read_ab && !A) return CLHGEMM_NULL_BUFFER_A;
    if (read_ab && !B) return CLHGEMM_NULL_BUFFER_B;
    if (touch_c && !C) return CLHGEMM_NULL_BUFFER_C;
    if (!chg_handle_fp64_ok(h, prec)) return CLHGEMM_FP64_NOT_SUPPORTED;
    if (!touch_c) return CLHGEMM_SUCCESS;
    const char *name = prec == CHG_F64 ? "zgemm" : "cgemm";
    const double fm = m, fn = n, fk = k;
    const user_args_t u = {.routine = -1, .layout = layout, .ta = transA, .tb = transB, .m = m, .n = n, .k = k,
                           .alpha = alpha[0], .beta = beta[0], .alpha_im = alpha[1], .beta_im = beta[1],
                           .a = A, .b = B, .c = C, .lda = lda, .ldb = ldb, .ldc = ldc, .cplx = 1};
    const chg_route_call_t rc = route_complex((chg_route_call_t){
        .prec = prec, .name = name, .m = (size_t)m, .n = (size_t)n, .k = (size_t)k,
        .flops = 2.0 * fm * fn * fk, .in_elems = (fm + fn) * fk, .c_elems = fm * fn,
        .beta_zero = beta[0] == 0.0 && beta[1] == 0.0});
    if (read_ab && goes_to_cpu(h, &rc)) return on_cpu(h, prec, &u);
    return gemm_pipeline(h, prec, &sh, &u, read_ab, name);
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

/* clhgemm_cgemm and clhgemm_zgemm: host_cgemm on complex elements of T. */
#define CGEMM(p, T, prec)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gemm(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_transpose_t transA,                   \
        clhgemm_transpose_t transB, int m, int n, int k, const void *alpha, const void *A,         \
        int lda, const void *B, int ldb, const void *beta, void *C, int ldc)                       \
    {                                                                                              \
        double al[2], be[2];                                                                       \
        return host_cgemm(h, prec, layout, transA, transB, m, n, k,                                \
                          chg_scalar_read(prec, alpha, al), A, lda, B, ldb,                        \
                          chg_scalar_read(prec, beta, be), C, ldc);                                \
    }
CHG_CPRECISIONS(CGEMM)
#undef CGEMM

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
    const double alpha[2] = {u->alpha, u->alpha_im}, beta[2] = {u->beta, u->beta_im};
    const void *A = u->a, *B = u->b;
    void *C = u->c;
    const int lda = u->lda, ldb = u->ldb, ldc = u->ldc;
    const int touch = sh->m > 0 && sh->n > 0;
    const int product = touch && sh->k > 0 && (alpha[0] != 0.0 || alpha[1] != 0.0);
    const int trmm = sh->routine == CHG_L3_TRMM;
    if (product && !A) return CLHGEMM_NULL_BUFFER_A;
    if (!B && ((product && (sh->routine == CHG_L3_SYMM || sh->routine == CHG_L3_SYR2K)) || (trmm && touch)))
        return CLHGEMM_NULL_BUFFER_B;
    if (touch && !trmm && !C) return CLHGEMM_NULL_BUFFER_C;
    if (!chg_handle_fp64_ok(h, prec)) return CLHGEMM_FP64_NOT_SUPPORTED;
    if (!touch) return CLHGEMM_SUCCESS;

    chg_gemm_args_t g;
    chg_l3_core_args(sh, prec, alpha, (cl_mem)(uintptr_t)A, 0, (size_t)lda, (cl_mem)(uintptr_t)B, 0,
                     (size_t)ldb, beta, (cl_mem)(uintptr_t)C, 0, (size_t)ldc, &g);
    /* the routine's own operation count: SYMM 2*m*n*ka, SYRK n*n*k, SYR2K 2*n*n*k, TRMM m*n*ka */
    const int segs = g.swap_sum ? 2 : 1;
    const double mn = (double)g.m * g.n, k = (double)g.k;
    const double flops = sh->routine == CHG_L3_SYMM ? 2.0 * mn * k : sh->routine == CHG_L3_TRMM ? mn * k
                       : segs * mn * k;
    chg_route_call_t rc = {.prec = prec, .name = name, .m = g.m, .n = g.n, .k = g.k, .flops = flops,
                           .in_elems = ((double)g.m + g.n) * k * segs,
                           .c_elems = mn * (g.st.c_tri != CHG_TRI_NONE ? 0.5 : 1.0),
                           .beta_zero = g.beta == 0.0 && g.beta_im == 0.0};
    if (u->cplx) rc = route_complex(rc);
    if (product && goes_to_cpu(h, &rc)) return on_cpu(h, prec, u);
    chg_call_t c = {.h = h, .prec = prec, .es = chg_elem_size(prec) * (u->cplx ? 2 : 1), .ta = g.trans_a,
                    .tb = g.trans_b, .m = g.m, .n = g.n, .k = g.k, .alpha = g.alpha, .beta = g.beta,
                    .alpha_im = g.alpha_im, .beta_im = g.beta_im,
                    .a = (const char *)(uintptr_t)g.a, .b = (const char *)(uintptr_t)g.b,
                    .c = (char *)(uintptr_t)g.c, .lda = g.lda, .ldb = g.ldb, .ldc = g.ldc,
                    .status = CLHGEMM_SUCCESS, .st = g.st, .segs = segs, .l3 = 1, .name = name,
                    .flops = flops * (u->cplx ? 4.0 : 1.0)};
    if (g.alpha_in_pack) {
        /* HER2K: alpha goes into X_A's packs, the write-back takes 1 */
        c.alpha_in_pack = 1;
        c.pack_alpha[0] = g.alpha;
        c.pack_alpha[1] = g.alpha_im;
        c.alpha = 1.0;
        c.alpha_im = 0.0;
    }
    if (!product) {
        /* alpha == 0 (or k == 0): C := beta*C on C's triangle for SYRK/SYR2K; TRMM sets B to 0
         * without reading A or B */
        scale_c(&c);
        return CLHGEMM_SUCCESS;
    }
    return chg_run_call(h, &c);
}

/* The routine's name for the logs: prefix by precision and complexity, then the name. */
static const char *routine_name(chg_precision_t prec, int cplx, const char *const names[4])
{
    return names[(cplx ? 2 : 0) + (prec == CHG_F64)];
}

/* SYMM; complex (cplx 1) or HEMM (2). alpha and beta (re, im); NULL: CLHGEMM_INVALID_ARGUMENT. */
static clhgemm_status_t host_symm(clhgemm_handle_t h, chg_precision_t prec, int cplx, int layout,
                                  int side, int uplo, int m, int n, const double *alpha, const void *A,
                                  int lda, const void *B, int ldb, const double *beta, void *C, int ldc)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_symm_check_shape(layout, side, uplo, m, n, lda, ldb, ldc, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    if (!alpha || !beta) return CLHGEMM_INVALID_ARGUMENT;
    sh.cplx = cplx != 0;
    sh.herm = cplx == 2;
    const user_args_t u = {.routine = CHG_L3_SYMM, .layout = layout, .side = side, .uplo = uplo, .m = m, .n = n,
                           .alpha = alpha[0], .beta = beta[0], .alpha_im = cplx ? alpha[1] : 0.0,
                           .beta_im = cplx ? beta[1] : 0.0, .a = A, .b = B, .c = C, .lda = lda, .ldb = ldb,
                           .ldc = ldc, .cplx = cplx != 0, .herm = cplx == 2};
    static const char *const names[2][4] = {{"ssymm", "dsymm", "csymm", "zsymm"},
                                            {"ssymm", "dsymm", "chemm", "zhemm"}};
    return host_l3(h, prec, &sh, routine_name(prec, cplx, names[cplx == 2]), &u);
}

/* SYRK, SYR2K (kind: chg_syrk_check_shape's, complex and Hermitian forms included). */
static clhgemm_status_t host_syrk(clhgemm_handle_t h, chg_precision_t prec, int kind, int layout,
                                  int uplo, int trans, int n, int k, const double *alpha, const void *A,
                                  int lda, const void *B, int ldb, const double *beta, void *C, int ldc)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_syrk_check_shape(layout, uplo, trans, n, k, lda, ldb, ldc, kind, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    if (!alpha || !beta) return CLHGEMM_INVALID_ARGUMENT;
    const int two = (kind & CHG_L3_TWO) != 0;
    static const char *const names[2][2][4] = {
        {{"ssyrk", "dsyrk", "csyrk", "zsyrk"}, {"ssyr2k", "dsyr2k", "csyr2k", "zsyr2k"}},
        {{"ssyrk", "dsyrk", "cherk", "zherk"}, {"ssyr2k", "dsyr2k", "cher2k", "zher2k"}}};
    const user_args_t u = {.routine = two ? CHG_L3_SYR2K : CHG_L3_SYRK, .layout = layout, .uplo = uplo, .ta = trans,
                           .n = n, .k = k, .alpha = alpha[0], .beta = beta[0],
                           .alpha_im = sh.cplx ? alpha[1] : 0.0, .beta_im = sh.cplx ? beta[1] : 0.0, .a = A,
                           .b = B, .c = C, .lda = lda, .ldb = ldb, .ldc = ldc, .cplx = sh.cplx, .herm = sh.herm};
    return host_l3(h, prec, &sh, routine_name(prec, sh.cplx, names[sh.herm][two]), &u);
}

static clhgemm_status_t host_trmm(clhgemm_handle_t h, chg_precision_t prec, int cplx, int layout, int side,
                                  int uplo, int transA, int diag, int m, int n, const double *alpha,
                                  const void *A, int lda, void *B, int ldb)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_trmm_check_shape(layout, side, uplo, transA, diag, m, n, lda, ldb, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    if (!alpha) return CLHGEMM_INVALID_ARGUMENT;
    sh.cplx = cplx;
    sh.conj = cplx && transA == CLHGEMM_CONJ_TRANS;
    const user_args_t u = {.routine = CHG_L3_TRMM, .layout = layout, .side = side, .uplo = uplo, .ta = transA,
                           .diag = diag, .m = m, .n = n, .alpha = alpha[0], .alpha_im = cplx ? alpha[1] : 0.0,
                           .a = A, .b = B, .c = NULL, .lda = lda, .ldb = ldb, .ldc = 1, .cplx = cplx};
    static const char *const names[4] = {"strmm", "dtrmm", "ctrmm", "ztrmm"};
    return host_l3(h, prec, &sh, routine_name(prec, cplx, names), &u);
}

/* The exported pairs: each routine above at the precision of T (CHG_PRECISIONS). */
#define SYMM(p, T, prec)                                                                           \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##symm(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo,     \
        int m, int n, T alpha, const T *A, int lda, const T *B, int ldb, T beta, T *C, int ldc)    \
    {                                                                                              \
        const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};                                    \
        return host_symm(h, prec, 0, layout, side, uplo, m, n, al, A, lda, B, ldb, be, C, ldc);    \
    }
CHG_PRECISIONS(SYMM)
#undef SYMM

/* The complex SYMM and HEMM (herm 1). */
#define CSYMM(p, T, prec, name, herm)                                                              \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##name(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo,     \
        int m, int n, const void *alpha, const void *A, int lda, const void *B, int ldb,           \
        const void *beta, void *C, int ldc)                                                        \
    {                                                                                              \
        double al[2], be[2];                                                                       \
        return host_symm(h, prec, 1 + herm, layout, side, uplo, m, n,                              \
                         chg_scalar_read(prec, alpha, al), A, lda, B, ldb,                         \
                         chg_scalar_read(prec, beta, be), C, ldc);                                 \
    }
#define CSYMM_(p, T, prec) CSYMM(p, T, prec, symm, 0) CSYMM(p, T, prec, hemm, 1)
CHG_CPRECISIONS(CSYMM_)
#undef CSYMM_
#undef CSYMM

#define SYRK(p, T, prec)                                                                           \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syrk(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                          \
        clhgemm_transpose_t trans, int n, int k, T alpha, const T *A, int lda, T beta, T *C,       \
        int ldc)                                                                                   \
    {                                                                                              \
        const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};                                    \
        return host_syrk(h, prec, 0, layout, uplo, trans, n, k, al, A, lda, NULL, 1, be, C, ldc);  \
    }
CHG_PRECISIONS(SYRK)
#undef SYRK

/* The complex SYRK (scalars through pointers) and HERK (real scalars, as in CBLAS). */
#define CSYRK(p, T, prec)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syrk(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                          \
        clhgemm_transpose_t trans, int n, int k, const void *alpha, const void *A, int lda,        \
        const void *beta, void *C, int ldc)                                                        \
    {                                                                                              \
        double al[2], be[2];                                                                       \
        return host_syrk(h, prec, CHG_L3_CSYM, layout, uplo, trans, n, k,                          \
                         chg_scalar_read(prec, alpha, al), A, lda, NULL, 1,                        \
                         chg_scalar_read(prec, beta, be), C, ldc);                                 \
    }                                                                                              \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##herk(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                          \
        clhgemm_transpose_t trans, int n, int k, T alpha, const void *A, int lda, T beta, void *C, \
        int ldc)                                                                                   \
    {                                                                                              \
        const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};                                    \
        return host_syrk(h, prec, CHG_L3_HERM, layout, uplo, trans, n, k, al, A, lda, NULL, 1, be, \
                         C, ldc);                                                                  \
    }
CHG_CPRECISIONS(CSYRK)
#undef CSYRK

#define SYR2K(p, T, prec)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syr2k(                                               \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                          \
        clhgemm_transpose_t trans, int n, int k, T alpha, const T *A, int lda, const T *B,         \
        int ldb, T beta, T *C, int ldc)                                                            \
    {                                                                                              \
        const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};                                    \
        return host_syrk(h, prec, CHG_L3_TWO, layout, uplo, trans, n, k, al, A, lda, B, ldb, be,   \
                         C, ldc);                                                                  \
    }
CHG_PRECISIONS(SYR2K)
#undef SYR2K

/* The complex SYR2K and HER2K (a complex alpha, a real beta, as in CBLAS). */
#define CSYR2K(p, T, prec)                                                                         \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syr2k(                                               \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                          \
        clhgemm_transpose_t trans, int n, int k, const void *alpha, const void *A, int lda,        \
        const void *B, int ldb, const void *beta, void *C, int ldc)                                \
    {                                                                                              \
        double al[2], be[2];                                                                       \
        return host_syrk(h, prec, CHG_L3_TWO | CHG_L3_CSYM, layout, uplo, trans, n, k,             \
                         chg_scalar_read(prec, alpha, al), A, lda, B, ldb,                         \
                         chg_scalar_read(prec, beta, be), C, ldc);                                 \
    }                                                                                              \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##her2k(                                               \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                          \
        clhgemm_transpose_t trans, int n, int k, const void *alpha, const void *A, int lda,        \
        const void *B, int ldb, T beta, void *C, int ldc)                                          \
    {                                                                                              \
        double al[2];                                                                              \
        const double be[2] = {beta, 0.0};                                                          \
        return host_syrk(h, prec, CHG_L3_TWO | CHG_L3_HERM, layout, uplo, trans, n, k,             \
                         chg_scalar_read(prec, alpha, al), A, lda, B, ldb, be, C, ldc);            \
    }
CHG_CPRECISIONS(CSYR2K)
#undef CSYR2K

#define TRMM(p, T, prec) CHG_TRIANGULAR_HOST(p, T, prec, trmm)
CHG_PRECISIONS(TRMM)
#undef TRMM
#define CTRMM(p, T, prec) CHG_TRIANGULAR_HOST_C(p, T, prec, trmm)
CHG_CPRECISIONS(CTRMM)
#undef CTRMM
