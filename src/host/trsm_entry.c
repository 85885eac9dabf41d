/*
 * trsm_entry.c -- TRSM on host memory (clhgemm_{s,d}trsm on a handle): the blocked substitution of
 * core/trsm_subst.h with B where it is, in the caller's memory.
 *
 * The checks are the device version's (core/trsm_subst.c: TRMM's shape rules and statuses) after
 * the handle, then NULL A (read when m, n > 0 and alpha != 0), NULL B (written when m, n > 0) and
 * FP64, as the host TRMM (host/entry.c host_l3); nothing is written on a rejected call. m or n = 0
 * does nothing; alpha = 0 sets B to zero here without reading A or B. The call is routed as a
 * whole (host/route.h, as TRMM's m*n*k flops): a call the model gives the CPU is OpenBLAS's
 * TRSM on the caller's arguments, and so is every call of a handle whose devices were all lost
 * (host/fault.h). Otherwise, when A's triangle and three strips of B fit every device
 * (host/trsm_strips.h), B moves over the bus once: each device holds A and solves strips of
 * right-hand sides with the device algorithm (core/trsm_dev.h), a lost device's strips going to
 * the other devices or the CPU. When they do not fit (or with CLHGEMM_TRSM_PANEL=openblas|ref),
 * the blocked path (host/trsm_blocked.h): diagonal blocks solved in place, the rest of B updated
 * by the host GEMM on the same handle.
 */

#include "core/trsm_subst.h"
#include "cpu/route_calls.h"
#include "host/route.h"
#include "host/trsm_blocked.h"
#include "host/trsm_strips.h"

/* B := 0 (column-major view m x n, ldb) without reading it. */
static void zero_b(chg_precision_t prec, const chg_l3_shape_t *sh, void *B, size_t ldb)
{
    const size_t parts = sh->cplx ? 2 : 1, es = chg_elem_size(prec) * parts;
    for (size_t j = 0; j < sh->n; j++) {
        char *col = (char *)B + j * ldb * es;
        for (size_t i = 0; i < sh->m * parts; i++) {
            if (prec == CHG_F64)
                ((double *)col)[i] = 0.0;
            else
                ((float *)col)[i] = 0.0f;
        }
    }
}

/* The caller's arguments, for the CPU route. */
typedef struct trsm_args_s {
    int layout, side, uplo, trans, diag, m, n, lda, ldb;
    const double *alpha;  /* (re, im) */
    const void *a;
    void *b;
} trsm_args_t;

/* OpenBLAS's TRSM on the caller's arguments: 0, or -1 without OpenBLAS. */
static int cpu_trsm(chg_precision_t prec, int cplx, const trsm_args_t *u)
{
    if (!cplx)
        return chg_cpu_blas_trsm(prec, u->layout, u->side, u->uplo, u->trans, u->diag, u->m, u->n,
                                 u->alpha[0], u->a, u->lda, u->b, u->ldb);
    const chg_cpu_cargs_t a = {.routine = CHG_CPU_TRSM, .layout = u->layout, .side = u->side,
                               .uplo = u->uplo, .ta = u->trans, .diag = u->diag, .m = u->m, .n = u->n,
                               .alpha = {u->alpha[0], u->alpha[1]}, .a = u->a, .lda = u->lda,
                               .c = u->b, .ldc = u->ldb};
    return chg_cpu_blas_complex(prec, &a);
}

/* 1 when the routing model gives the whole call to OpenBLAS, or the handle has no device left,
 * and OpenBLAS ran it. */
static int ran_on_cpu(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                      const trsm_args_t *u)
{
    const double m = (double)sh->m, n = (double)sh->n, k = (double)sh->k, x = sh->cplx ? 2.0 : 1.0;
    static const char *const names[4] = {"strsm", "dtrsm", "ctrsm", "ztrsm"};
    /* a complex call as the real work it is: four real flops a multiply-add, two reals an element */
    const chg_route_call_t rc = {.prec = prec, .name = names[2 * sh->cplx + (prec == CHG_F64)],
                             .m = sh->m, .n = sh->n, .k = sh->k, .flops = x * x * m * n * k,
                             .in_elems = x * (k * k / 2 + m * n), .c_elems = x * m * n, .beta_zero = 0};
    /* every device of the handle lost in earlier calls (host/fault.h): OpenBLAS, as routed */
    if (h->ndev > 0 && !chg_route_to_cpu(h, &rc)) return 0;
    if (cpu_trsm(prec, sh->cplx, u) != 0)
        return 0; /* no OpenBLAS: the blocked path (its panels use the library's own solve) */
    chg_handle_set_last_cpu(h);
    return 1;
}

/* TRSM, real or complex (cplx); alpha (re, im), NULL: CLHGEMM_INVALID_ARGUMENT. */
static clhgemm_status_t host_trsm(clhgemm_handle_t h, chg_precision_t prec, int cplx, int layout,
                                  int side, int uplo, int transA, int diag, int m, int n,
                                  const double *alpha, const void *A, int lda, void *B, int ldb)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st =
        chg_trsm_check_shape(layout, side, uplo, transA, diag, m, n, lda, ldb, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    if (!alpha) return CLHGEMM_INVALID_ARGUMENT;
    sh.cplx = cplx;
    sh.conj = cplx && transA == CLHGEMM_CONJ_TRANS;
    const double al[2] = {alpha[0], cplx ? alpha[1] : 0.0};
    const int touch = sh.m > 0 && sh.n > 0, zero = al[0] == 0.0 && al[1] == 0.0;
    if (touch && !zero && !A) return CLHGEMM_NULL_BUFFER_A;
    if (touch && !B) return CLHGEMM_NULL_BUFFER_B;
    if (!chg_handle_fp64_ok(h, prec)) return CLHGEMM_FP64_NOT_SUPPORTED;
    if (!touch) return CLHGEMM_SUCCESS;
    if (zero) {
        zero_b(prec, &sh, B, (size_t)ldb);
        return CLHGEMM_SUCCESS;
    }
    const trsm_args_t u = {layout, side, uplo, transA, diag, m, n, lda, ldb, al, A, B};
    if (ran_on_cpu(h, prec, &sh, &u)) return CLHGEMM_SUCCESS;
    if (chg_trsm_strips(h, prec, &sh, al, A, (size_t)lda, B, (size_t)ldb, &st)) return st;

    return chg_trsm_blocked(h, prec, &sh, al, A, (size_t)lda, B, (size_t)ldb);
}

/* clhgemm_strsm and clhgemm_dtrsm: host_trsm at the precision of T (TRMM's arguments); the
 * complex clhgemm_ctrsm and clhgemm_ztrsm. */
#define TRSM(p, T, prec) CHG_TRIANGULAR_HOST(p, T, prec, trsm)
CHG_PRECISIONS(TRSM)
#undef TRSM
#define CTRSM(p, T, prec) CHG_TRIANGULAR_HOST_C(p, T, prec, trsm)
CHG_CPRECISIONS(CTRSM)
#undef CTRSM
