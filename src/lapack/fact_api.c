/*
 * fact_api.c -- the factorization layer's host-memory entry points
 * (clhgemm_{s,d}{potrf,getrf,geqrf,potrs,posv,getrs,gesv,ormqr,orgqr,gels} on a handle): each
 * fills one chg_fact_args_t, and one path runs them all -- the checks (fact_check.h), LAPACK's
 * quick returns, the CPU LAPACK's presence, then the factorization routed as a whole
 * (fact_route.h: the CPU LAPACK or the drivers) or the solver (fact_solve.h). The s/d pairs
 * are generated over CHG_PRECISIONS.
 */
#include "lapack/fact_check.h"
#include "lapack/fact_route.h"
#include "lapack/fact_solve.h"
#include "cpu/lapack_link.h"

/* potrf, getrf, geqrf: where the model says; info as LAPACK's. */
static clhgemm_status_t factor(clhgemm_handle_t h, const chg_fact_args_t *a)
{
    chg_fact_call_t c;
    chg_fact_call_from(a, &c);
    clhgemm_status_t st;
    if (chg_fact_route_cpu(h, &c)) {
        chg_handle_set_last_cpu(h);
        st = chg_fact_cpu_view(&c);
    } else {
        st = chg_fact_devices(h, &c);
    }
    if (st == CLHGEMM_SUCCESS && a->info) *a->info = c.info;
    return st;
}

static clhgemm_status_t host_call(clhgemm_handle_t h, chg_fact_args_t *a)
{
    clhgemm_status_t st = chg_fact_check_host(h, a);
    if (st != CLHGEMM_SUCCESS) return st;
    if (chg_fact_quick_return(a)) return CLHGEMM_SUCCESS;
    /* potrs and getrs need only the triangular solves; everything else factors or applies Q */
    if (a->op != CHG_FACT_OP_POTRS && a->op != CHG_FACT_OP_GETRS && !chg_lapack_ok(NULL))
        return CLHGEMM_NO_CPU_LAPACK;
    if (a->op == CHG_FACT_OP_POTRF || a->op == CHG_FACT_OP_GETRF || a->op == CHG_FACT_OP_GEQRF)
        return factor(h, a);
    return chg_fact_solve(h, a);
}

/* The exported pairs (CHG_PRECISIONS): each fills the record with the arguments it has. A const
 * A or tau travels as the record's plain pointer; the routine never writes through it. */
#define POTRF(p, T, PREC)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##potrf(clhgemm_handle_t h, clhgemm_layout_t layout,   \
                                                    clhgemm_uplo_t uplo, int n, T *A, int lda,     \
                                                    int *info)                                     \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_POTRF, .prec = PREC, .layout = layout,              \
                             .uplo = uplo, .n = n, .a = A, .lda = lda, .info = info};              \
        return host_call(h, &a);                                                                   \
    }
CHG_PRECISIONS(POTRF)
#undef POTRF

#define GETRF(p, T, PREC)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##getrf(clhgemm_handle_t h, clhgemm_layout_t layout,   \
                                                    int m, int n, T *A, int lda, int *ipiv,        \
                                                    int *info)                                     \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_GETRF, .prec = PREC, .layout = layout, .m = m,      \
                             .n = n, .a = A, .lda = lda, .ipiv = ipiv, .info = info};              \
        return host_call(h, &a);                                                                   \
    }
CHG_PRECISIONS(GETRF)
#undef GETRF

#define GEQRF(p, T, PREC)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##geqrf(clhgemm_handle_t h, clhgemm_layout_t layout,   \
                                                    int m, int n, T *A, int lda, T *tau)           \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_GEQRF, .prec = PREC, .layout = layout, .m = m,      \
                             .n = n, .a = A, .lda = lda, .tau = tau};                              \
        return host_call(h, &a);                                                                   \
    }
CHG_PRECISIONS(GEQRF)
#undef GEQRF

#define POTRS(p, T, PREC)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##potrs(clhgemm_handle_t h, clhgemm_layout_t layout,   \
                                                    clhgemm_uplo_t uplo, int n, int nrhs,          \
                                                    const T *A, int lda, T *B, int ldb)            \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_POTRS, .prec = PREC, .layout = layout,              \
                             .uplo = uplo, .n = n, .nrhs = nrhs, .a = (void *)A, .lda = lda,       \
                             .b = B, .ldb = ldb};                                                  \
        return host_call(h, &a);                                                                   \
    }
CHG_PRECISIONS(POTRS)
#undef POTRS

#define POSV(p, T, PREC)                                                                           \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##posv(clhgemm_handle_t h, clhgemm_layout_t layout,    \
                                                   clhgemm_uplo_t uplo, int n, int nrhs, T *A,     \
                                                   int lda, T *B, int ldb, int *info)              \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_POSV, .prec = PREC, .layout = layout,               \
                             .uplo = uplo, .n = n, .nrhs = nrhs, .a = A, .lda = lda, .b = B,       \
                             .ldb = ldb, .info = info};                                            \
        return host_call(h, &a);                                                                   \
    }
CHG_PRECISIONS(POSV)
#undef POSV

#define GETRS(p, T, PREC)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##getrs(                                               \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_transpose_t trans, int n, int nrhs,   \
        const T *A, int lda, const int *ipiv, T *B, int ldb)                                       \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_GETRS, .prec = PREC, .layout = layout,              \
                             .trans = trans, .n = n, .nrhs = nrhs, .a = (void *)A, .lda = lda,     \
                             .ipiv = (int *)ipiv, .b = B, .ldb = ldb};                             \
        return host_call(h, &a);                                                                   \
    }
CHG_PRECISIONS(GETRS)
#undef GETRS

#define GESV(p, T, PREC)                                                                           \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gesv(clhgemm_handle_t h, clhgemm_layout_t layout,    \
                                                   int n, int nrhs, T *A, int lda, int *ipiv,      \
                                                   T *B, int ldb, int *info)                       \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_GESV, .prec = PREC, .layout = layout, .n = n,       \
                             .nrhs = nrhs, .a = A, .lda = lda, .ipiv = ipiv, .b = B, .ldb = ldb,   \
                             .info = info};                                                        \
        return host_call(h, &a);                                                                   \
    }
CHG_PRECISIONS(GESV)
#undef GESV

#define ORMQR(p, T, PREC)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##ormqr(                                               \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_side_t side,                          \
        clhgemm_transpose_t trans, int m, int n, int k, const T *A, int lda, const T *tau, T *C,   \
        int ldc)                                                                                   \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_ORMQR, .prec = PREC, .layout = layout,              \
                             .side = side, .trans = trans, .m = m, .n = n, .k = k,                 \
                             .a = (void *)A, .lda = lda, .tau = (void *)tau, .b = C, .ldb = ldc};  \
        return host_call(h, &a);                                                                   \
    }
CHG_PRECISIONS(ORMQR)
#undef ORMQR

#define ORGQR(p, T, PREC)                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##orgqr(clhgemm_handle_t h, clhgemm_layout_t layout,   \
                                                    int m, int n, int k, T *A, int lda,            \
                                                    const T *tau)                                  \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_ORGQR, .prec = PREC, .layout = layout, .m = m,      \
                             .n = n, .k = k, .a = A, .lda = lda, .tau = (void *)tau};              \
        return host_call(h, &a);                                                                   \
    }
CHG_PRECISIONS(ORGQR)
#undef ORGQR

#define GELS(p, T, PREC)                                                                           \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gels(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_transpose_t trans, int m, int n,      \
        int nrhs, T *A, int lda, T *B, int ldb, int *info)                                         \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_GELS, .prec = PREC, .layout = layout,               \
                             .trans = trans, .m = m, .n = n, .nrhs = nrhs, .a = A, .lda = lda,     \
                             .b = B, .ldb = ldb, .info = info};                                    \
        return host_call(h, &a);                                                                   \
    }
CHG_PRECISIONS(GELS)
#undef GELS
