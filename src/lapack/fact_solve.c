/*
 * fact_solve.c -- the solvers on top of the factorizations (fact_solve.h).
 *
 * Every solve here is LAPACK's own sequence of steps with each step where it runs best: the
 * triangular solves are the library's TRSM (which routes each on its own), so a solver only
 * decides where its factorization runs. What the devices cannot do yet (Q applied or formed:
 * ormqr, orgqr) goes to the CPU LAPACK through one place, chg_fact_ormqr_dev.
 */
#include "lapack/fact_solve.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "lapack/fact_route.h"
#include "lapack/fact_update.h"

/* ---- steps -------------------------------------------------------------------------------- */

/* op(T) X = B for T n x n triangular at (A, lda) and B n x nrhs at (B, ldb), both in one
 * layout (row), through the host TRSM on the handle. */
static clhgemm_status_t trsm(clhgemm_handle_t h, chg_precision_t p, int row, int uplo, int trans,
                             int diag, int n, int nrhs, const void *A, int lda, void *B, int ldb)
{
    const clhgemm_layout_t l = row ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
    if (p == CHG_F64)
        return clhgemm_dtrsm(h, l, CLHGEMM_LEFT, uplo, trans, diag, n, nrhs, 1.0, A, lda, B, ldb);
    return clhgemm_strsm(h, l, CLHGEMM_LEFT, uplo, trans, diag, n, nrhs, 1.0f, A, lda, B, ldb);
}

/* The same on device buffers, on the call's queue, waited for (its first error returned). */
static clhgemm_status_t trsm_cl(const chg_fact_args_t *a, int uplo, int trans, int diag)
{
    const clhgemm_layout_t l = a->b_row ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
    cl_event ev = NULL;
    clhgemm_status_t st =
        a->prec == CHG_F64
            ? clhgemm_dtrsm_cl(l, CLHGEMM_LEFT, uplo, trans, diag, a->n, a->nrhs, 1.0, a->abuf,
                               a->offa, a->lda, a->bbuf, a->offb, a->ldb, a->queue, &ev)
            : clhgemm_strsm_cl(l, CLHGEMM_LEFT, uplo, trans, diag, a->n, a->nrhs, 1.0f, a->abuf,
                               a->offa, a->lda, a->bbuf, a->offb, a->ldb, a->queue, &ev);
    if (st != CLHGEMM_SUCCESS) return st;
    cl_int err = clWaitForEvents(1, &ev);
    cl_int exec = CL_COMPLETE;
    if (err == CL_SUCCESS)
        err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    clReleaseEvent(ev);
    if (err == CL_SUCCESS && exec < 0) err = exec;
    return err == CL_SUCCESS ? CLHGEMM_SUCCESS : (clhgemm_status_t)err;
}

/* The row interchanges of getrs on B (n x nrhs at (B, ldb), a->b_row's layout): rows i and
 * ipiv[i] - 1 for i = 0 .. n-1 (forward) or back down. A pivot outside 1 .. n (LAPACK does not
 * check them) is left out rather than followed out of the matrix. Column-major: column by
 * column, every interchange in order (a column stays in cache); row-major: whole rows, which
 * are contiguous. */
static void laswp(const chg_fact_args_t *a, void *B, size_t ldb, int forward)
{
    const size_t es = chg_elem_size(a->prec), n = (size_t)a->n, nrhs = (size_t)a->nrhs;
    char tmp[512];
    if (!a->b_row) {
        for (size_t j = 0; j < nrhs; j++) {
            char *col = (char *)B + j * ldb * es;
            for (size_t s = 0; s < n; s++) {
                const size_t i = forward ? s : n - 1 - s;
                const int p1 = a->ipiv[i];
                if (p1 < 1 || (size_t)p1 > n || (size_t)(p1 - 1) == i) continue;
                memcpy(tmp, col + i * es, es);
                memcpy(col + i * es, col + (size_t)(p1 - 1) * es, es);
                memcpy(col + (size_t)(p1 - 1) * es, tmp, es);
            }
        }
        return;
    }
    for (size_t s = 0; s < n; s++) {
        const size_t i = forward ? s : n - 1 - s;
        const int p1 = a->ipiv[i];
        if (p1 < 1 || (size_t)p1 > n || (size_t)(p1 - 1) == i) continue;
        char *x = (char *)B + i * ldb * es, *y = (char *)B + (size_t)(p1 - 1) * ldb * es;
        for (size_t q = 0; q < nrhs * es; q += sizeof tmp) {
            const size_t len = nrhs * es - q < sizeof tmp ? nrhs * es - q : sizeof tmp;
            memcpy(tmp, x + q, len);
            memcpy(x + q, y + q, len);
            memcpy(y + q, tmp, len);
        }
    }
}

/* The interchanges on a device buffer B, by the device (lapack/fact_update.h). */
static clhgemm_status_t laswp_cl(const chg_fact_args_t *a, int forward)
{
    return chg_fact_laswp_cl(a->queue, a->prec, a->bbuf, a->offb, (size_t)a->ldb, a->b_row,
                             (size_t)a->n, (size_t)a->nrhs, a->ipiv, forward);
}

/* ---- potrs, getrs, posv, gesv ------------------------------------------------------------- */

/* A = U^T U: U^T Y = B, U X = Y; A = L L^T: L Y = B, L^T X = Y. */
static clhgemm_status_t potrs_trsm(clhgemm_handle_t h, const chg_fact_args_t *a)
{
    const int up = a->uplo == CLHGEMM_UPPER;
    clhgemm_status_t st = trsm(h, a->prec, a->b_row, a->uplo, up ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS,
                               CLHGEMM_NON_UNIT, a->n, a->nrhs, a->a, a->lda, a->b, a->ldb);
    if (st != CLHGEMM_SUCCESS) return st;
    return trsm(h, a->prec, a->b_row, a->uplo, up ? CLHGEMM_NO_TRANS : CLHGEMM_TRANS,
                CLHGEMM_NON_UNIT, a->n, a->nrhs, a->a, a->lda, a->b, a->ldb);
}

/* P A = L U: A X = B is L U X = P B; A^T X = B is U^T L^T (P X) = B. */
static clhgemm_status_t getrs_trsm(clhgemm_handle_t h, const chg_fact_args_t *a)
{
    const int tr = a->trans != CLHGEMM_NO_TRANS;
    if (!tr) laswp(a, a->b, (size_t)a->ldb, 1);
    clhgemm_status_t st =
        trsm(h, a->prec, a->b_row, tr ? CLHGEMM_UPPER : CLHGEMM_LOWER, a->trans,
             tr ? CLHGEMM_NON_UNIT : CLHGEMM_UNIT, a->n, a->nrhs, a->a, a->lda, a->b, a->ldb);
    if (st == CLHGEMM_SUCCESS)
        st = trsm(h, a->prec, a->b_row, tr ? CLHGEMM_LOWER : CLHGEMM_UPPER, a->trans,
                  tr ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT, a->n, a->nrhs, a->a, a->lda, a->b, a->ldb);
    if (st == CLHGEMM_SUCCESS && tr) laswp(a, a->b, (size_t)a->ldb, 0);
    return st;
}

/* posv, gesv: the factorization where its model says; on the devices, then the solve unless
 * it failed (info > 0 leaves B as it was, as LAPACK does). */
static clhgemm_status_t factor_solve(clhgemm_handle_t h, const chg_fact_args_t *a)
{
    chg_fact_call_t c;
    chg_fact_call_from(a, &c);
    if (chg_fact_route_cpu(h, &c)) {
        chg_handle_set_last_cpu(h);
        return chg_fact_cpu(a);
    }
    clhgemm_status_t st = chg_fact_devices(h, &c);
    if (st != CLHGEMM_SUCCESS) return st;
    *a->info = c.info;
    if (c.info > 0 || a->nrhs == 0) return CLHGEMM_SUCCESS;
    if (a->op == CHG_FACT_OP_POSV) return potrs_trsm(h, a);
    chg_fact_args_t s = *a;
    s.trans = CLHGEMM_NO_TRANS; /* gesv solves A X = B */
    return getrs_trsm(h, &s);
}

/* ---- ormqr, orgqr ------------------------------------------------------------------------- */

int chg_fact_ormqr_dev(clhgemm_handle_t h, const chg_fact_args_t *a, clhgemm_status_t *st)
{
    (void)h;
    (void)a;
    (void)st;
    return 0;
}

/* Q applied (ormqr) or formed (orgqr) on the devices where they take it, else the CPU LAPACK. */
static clhgemm_status_t apply_q(clhgemm_handle_t h, const chg_fact_args_t *a)
{
    clhgemm_status_t st;
    if (chg_fact_ormqr_dev(h, a, &st)) return st;
    chg_log(1, "%c%s %dx%d: no device path yet; the CPU LAPACK runs it",
            a->prec == CHG_F64 ? 'd' : 's', chg_fact_op_name(a->op), a->m, a->n);
    chg_handle_set_last_cpu(h);
    return chg_fact_cpu(a);
}

/* ---- gels --------------------------------------------------------------------------------- */

/* max |x| over a rows x cols matrix (row-major when row); NaN when one is NaN (as dlange). */
static double max_abs(chg_precision_t p, const void *x, int ld, int row, int rows, int cols)
{
    double mx = 0;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) {
            const size_t at =
                row ? (size_t)i * (size_t)ld + (size_t)j : (size_t)i + (size_t)j * (size_t)ld;
            const double v =
                fabs(p == CHG_F64 ? ((const double *)x)[at] : (double)((const float *)x)[at]);
            if (isnan(v)) return v;
            if (v > mx) mx = v;
        }
    return mx;
}

/* 1 when LAPACK's gels would run without scaling A or B and A is not zero (dgels: A's largest
 * element in [smlnum, bignum], B's zero or in that range, smlnum = safe minimum / precision; a
 * NaN compares false, so LAPACK scales nothing for it). */
static int unscaled(const chg_fact_args_t *a)
{
    const double sml = a->prec == CHG_F64 ? DBL_MIN / DBL_EPSILON : (double)(FLT_MIN / FLT_EPSILON);
    const double big = 1.0 / sml;
    const double an = max_abs(a->prec, a->a, a->lda, a->a_row, a->m, a->n);
    const int brows = a->trans == CLHGEMM_NO_TRANS ? a->m : a->n;
    const double bn = max_abs(a->prec, a->b, a->ldb, a->b_row, brows, a->nrhs);
    const int a_special = (an > 0 && an < sml) || an > big || an == 0;
    const int b_scaled = (bn > 0 && bn < sml) || bn > big;
    return !a_special && !b_scaled;
}

/* The first zero on R's diagonal (1-based), 0 when none: LAPACK's trtrs's singularity test. */
static int zero_diag(chg_precision_t p, const void *A, int lda, int q)
{
    for (int i = 0; i < q; i++) {
        const size_t at = (size_t)i * ((size_t)lda + 1);
        if (p == CHG_F64 ? ((const double *)A)[at] == 0.0 : ((const float *)A)[at] == 0.0f)
            return i + 1;
    }
    return 0;
}

/* op(R) X = B(1:q) for R the q x q upper triangle of the QR view (stored row-major when
 * qr_row); stored against B's layout, R reads as R^T, lower, with the other transpose. */
static clhgemm_status_t r_solve(clhgemm_handle_t h, const chg_fact_args_t *a, int qr_row, int q,
                                int tr)
{
    int uplo = CLHGEMM_UPPER;
    if (qr_row != a->b_row) {
        uplo = CLHGEMM_LOWER;
        tr = !tr;
    }
    return trsm(h, a->prec, a->b_row, uplo, tr ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS, CLHGEMM_NON_UNIT,
                q, a->nrhs, a->a, a->lda, a->b, a->ldb);
}

/* B's rows q .. p-1 := 0 (the minimum-norm solution's free part). */
static void zero_rows(const chg_fact_args_t *a, int q, int p)
{
    const size_t ld = (size_t)a->ldb;
    for (int j = 0; j < a->nrhs; j++)
        for (int i = q; i < p; i++) {
            const size_t at = a->b_row ? (size_t)i * ld + (size_t)j : (size_t)i + (size_t)j * ld;
            if (a->prec == CHG_F64)
                ((double *)a->b)[at] = 0.0;
            else
                ((float *)a->b)[at] = 0.0f;
        }
}

/* The steps after M = QR, M = A (m >= n) or A^T (m < n), p x q (p = max(m, n)). A least-squares
 * problem in M (A X ~ B with m >= n, A^T X ~ B with m < n): B := Q^T B, then R X = B(1:q).
 * Else a minimum-norm one: R^T Z = B(1:q), B(q+1:p) := 0, B := Q B. R singular (a zero on
 * its diagonal): info, where LAPACK's trtrs stops. */
static clhgemm_status_t gels_after_qr(clhgemm_handle_t h, const chg_fact_args_t *a,
                                      const chg_fact_args_t *qr)
{
    const int p = qr->m, q = qr->n;
    const int ls = (a->m >= a->n) == (a->trans == CLHGEMM_NO_TRANS);
    const chg_fact_args_t orm = {.op = CHG_FACT_OP_ORMQR, .prec = a->prec, .layout = a->layout,
                                 .side = CLHGEMM_LEFT,
                                 .trans = ls ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS, .m = p,
                                 .n = a->nrhs, .k = q, .a = a->a, .lda = a->lda, .b = a->b,
                                 .ldb = a->ldb, .tau = qr->tau, .a_rows = (size_t)p,
                                 .a_cols = (size_t)q, .b_rows = (size_t)p,
                                 .b_cols = (size_t)a->nrhs, .a_row = qr->a_row, .b_row = a->b_row};
    clhgemm_status_t st = CLHGEMM_SUCCESS;
    if (ls && (st = apply_q(h, &orm)) != CLHGEMM_SUCCESS) return st;
    *a->info = zero_diag(a->prec, a->a, a->lda, q);
    if (*a->info) return CLHGEMM_SUCCESS;
    if ((st = r_solve(h, a, qr->a_row, q, !ls)) != CLHGEMM_SUCCESS || ls) return st;
    zero_rows(a, q, p);
    return apply_q(h, &orm);
}

static clhgemm_status_t gels(clhgemm_handle_t h, const chg_fact_args_t *a)
{
    const int p = CHG_MAX(a->m, a->n), q = CHG_MIN(a->m, a->n), tall = a->m >= a->n;
    /* the QR of A, or of A^T: the same storage read in the other layout */
    chg_fact_args_t qr = {.op = CHG_FACT_OP_GEQRF, .prec = a->prec, .m = p, .n = q, .a = a->a,
                          .lda = a->lda, .a_rows = (size_t)p, .a_cols = (size_t)q,
                          .a_row = tall ? a->a_row : !a->a_row};
    qr.layout = qr.a_row ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
    qr.b_row = qr.a_row;
    chg_fact_call_t c;
    chg_fact_call_from(&qr, &c);
    if (chg_fact_route_cpu(h, &c) || !unscaled(a)) {
        chg_handle_set_last_cpu(h);
        return chg_fact_cpu(a);
    }
    qr.tau = c.tau = malloc((size_t)q * chg_elem_size(a->prec));
    if (!qr.tau) return CLHGEMM_OUT_OF_HOST_MEMORY;
    clhgemm_status_t st = chg_fact_devices(h, &c);
    if (st == CLHGEMM_SUCCESS) st = gels_after_qr(h, a, &qr);
    free(qr.tau);
    return st;
}

/* ---- entry -------------------------------------------------------------------------------- */

clhgemm_status_t chg_fact_solve(clhgemm_handle_t h, const chg_fact_args_t *a)
{
    switch (a->op) {
    case CHG_FACT_OP_POSV:
    case CHG_FACT_OP_GESV: return factor_solve(h, a);
    case CHG_FACT_OP_GELS: return gels(h, a);
    default: break;
    }
    char name[8];
    snprintf(name, sizeof name, "%c%s", a->prec == CHG_F64 ? 'd' : 's', chg_fact_op_name(a->op));
    if (chg_fact_route_fixed_cpu(h, name)) {
        chg_handle_set_last_cpu(h);
        return chg_fact_cpu(a);
    }
    switch (a->op) {
    case CHG_FACT_OP_POTRS: return potrs_trsm(h, a);
    case CHG_FACT_OP_GETRS: return getrs_trsm(h, a);
    case CHG_FACT_OP_ORMQR:
    case CHG_FACT_OP_ORGQR: return apply_q(h, a);
    default: return CLHGEMM_INTERNAL_ERROR;
    }
}

clhgemm_status_t chg_fact_solve_cl(const chg_fact_args_t *a)
{
    const int up = a->uplo == CLHGEMM_UPPER, tr = a->trans != CLHGEMM_NO_TRANS;
    clhgemm_status_t st;
    if (a->op == CHG_FACT_OP_POTRS) {
        st = trsm_cl(a, a->uplo, up ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS, CLHGEMM_NON_UNIT);
        if (st == CLHGEMM_SUCCESS)
            st = trsm_cl(a, a->uplo, up ? CLHGEMM_NO_TRANS : CLHGEMM_TRANS, CLHGEMM_NON_UNIT);
        return st;
    }
    if (a->op != CHG_FACT_OP_GETRS) return CLHGEMM_INTERNAL_ERROR;
    st = tr ? CLHGEMM_SUCCESS : laswp_cl(a, 1);
    if (st == CLHGEMM_SUCCESS)
        st = trsm_cl(a, tr ? CLHGEMM_UPPER : CLHGEMM_LOWER, a->trans,
                     tr ? CLHGEMM_NON_UNIT : CLHGEMM_UNIT);
    if (st == CLHGEMM_SUCCESS)
        st = trsm_cl(a, tr ? CLHGEMM_LOWER : CLHGEMM_UPPER, a->trans,
                     tr ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT);
    if (st == CLHGEMM_SUCCESS && tr) st = laswp_cl(a, 0);
    return st;
}
