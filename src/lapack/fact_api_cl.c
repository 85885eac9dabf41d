/*
 * fact_api_cl.c -- the factorization layer's device-buffer entry points
 * (clhgemm_{s,d}{potrf,getrf,geqrf,potrs,getrs}_cl): the checks with the queue and the buffers
 * (fact_check.h chg_fact_check_cl), LAPACK's quick returns, then the driver on the caller's
 * buffer (fact_driver.h chg_fact_run_device) or the triangular solves (fact_solve.h). All of
 * them synchronous. The s/d pairs are generated over CHG_PRECISIONS.
 */
#include "cpu/lapack_link.h"
#include "lapack/fact_check.h"
#include "lapack/fact_driver.h"
#include "lapack/fact_solve.h"

static clhgemm_status_t cl_call(chg_fact_args_t *a)
{
    clhgemm_status_t st = chg_fact_check_cl(a);
    if (st != CLHGEMM_SUCCESS) return st;
    if (chg_fact_quick_return(a)) return CLHGEMM_SUCCESS;
    if (a->op == CHG_FACT_OP_POTRS || a->op == CHG_FACT_OP_GETRS) return chg_fact_solve_cl(a);
    if (!chg_lapack_ok(NULL)) return CLHGEMM_NO_CPU_LAPACK; /* the panels' */
    chg_fact_call_t c;
    chg_fact_call_from(a, &c);
    st = chg_fact_run_device(&c);
    if (st == CLHGEMM_SUCCESS && a->info) *a->info = c.info;
    return st;
}

/* The exported pairs (CHG_PRECISIONS). */
#define POTRF_CL(p, T, PREC)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##potrf_cl(                                            \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, int n, cl_mem A, size_t offA, int lda,       \
        int *info, cl_command_queue queue)                                                         \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_POTRF, .prec = PREC, .layout = layout,              \
                             .uplo = uplo, .n = n, .abuf = A, .offa = offA, .lda = lda,            \
                             .info = info, .queue = queue};                                        \
        return cl_call(&a);                                                                        \
    }
CHG_PRECISIONS(POTRF_CL)
#undef POTRF_CL

#define GETRF_CL(p, T, PREC)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##getrf_cl(clhgemm_layout_t layout, int m, int n,      \
                                                       cl_mem A, size_t offA, int lda, int *ipiv,  \
                                                       int *info, cl_command_queue queue)          \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_GETRF, .prec = PREC, .layout = layout, .m = m,      \
                             .n = n, .abuf = A, .offa = offA, .lda = lda, .ipiv = ipiv,            \
                             .info = info, .queue = queue};                                        \
        return cl_call(&a);                                                                        \
    }
CHG_PRECISIONS(GETRF_CL)
#undef GETRF_CL

#define GEQRF_CL(p, T, PREC)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##geqrf_cl(clhgemm_layout_t layout, int m, int n,      \
                                                       cl_mem A, size_t offA, int lda, T *tau,     \
                                                       cl_command_queue queue)                     \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_GEQRF, .prec = PREC, .layout = layout, .m = m,      \
                             .n = n, .abuf = A, .offa = offA, .lda = lda, .tau = tau,              \
                             .queue = queue};                                                      \
        return cl_call(&a);                                                                        \
    }
CHG_PRECISIONS(GEQRF_CL)
#undef GEQRF_CL

#define POTRS_CL(p, T, PREC)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##potrs_cl(                                            \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, int n, int nrhs, cl_mem A, size_t offA,      \
        int lda, cl_mem B, size_t offB, int ldb, cl_command_queue queue)                           \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_POTRS, .prec = PREC, .layout = layout,              \
                             .uplo = uplo, .n = n, .nrhs = nrhs, .abuf = A, .offa = offA,          \
                             .lda = lda, .bbuf = B, .offb = offB, .ldb = ldb, .queue = queue};     \
        return cl_call(&a);                                                                        \
    }
CHG_PRECISIONS(POTRS_CL)
#undef POTRS_CL

#define GETRS_CL(p, T, PREC)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##getrs_cl(                                            \
        clhgemm_layout_t layout, clhgemm_transpose_t trans, int n, int nrhs, cl_mem A,             \
        size_t offA, int lda, const int *ipiv, cl_mem B, size_t offB, int ldb,                     \
        cl_command_queue queue)                                                                    \
    {                                                                                              \
        chg_fact_args_t a = {.op = CHG_FACT_OP_GETRS, .prec = PREC, .layout = layout,              \
                             .trans = trans, .n = n, .nrhs = nrhs, .abuf = A, .offa = offA,        \
                             .lda = lda, .ipiv = (int *)ipiv, .bbuf = B, .offb = offB,             \
                             .ldb = ldb, .queue = queue};                                          \
        return cl_call(&a);                                                                        \
    }
CHG_PRECISIONS(GETRS_CL)
#undef GETRS_CL
