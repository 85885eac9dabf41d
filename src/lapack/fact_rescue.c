/*
 * fact_rescue.c -- a host factorization finished on the CPU from the host's state
 * (fact_rescue.h).
 *
 * Column-major view, s = done * nb columns finished (s <= min(m, n)):
 *   Cholesky  A22 -= L21 L21^T (SYRK), then potrf(A22);          info offset by s
 *   LU        the finished columns brought to the interchanges of panels < done; the trailing
 *             columns interchanged by them, U12 := L11^-1 A12, A22 -= L21 U12, getrf(A22), its
 *             pivots (offset by s) applied to the finished columns;  info offset by s
 *   QR        the trailing columns multiplied by Q^T of the s finished reflectors (ormqr), then
 *             geqrf(A22)
 * A Cholesky of a transposed view is the other triangle of the stored matrix (no copy); LU and
 * QR of a transposed view run on a column-major copy of the whole view, written back at the
 * end.
 */
#include "lapack/fact_rescue.h"

#include <stdlib.h>
#include <string.h>

#include "cpu/lapack_link.h"
#include "cpu/route_calls.h"
#include "lapack/fact_xfer.h"

/* Element (i, j) of the view. */
static char *at(const chg_fact_t *f, size_t i, size_t j)
{
    const chg_fact_call_t *c = f->c;
    return (char *)c->a + (c->trans ? i * c->lda + j : i + j * c->lda) * f->es;
}

static clhgemm_status_t potrf_rest(chg_fact_t *f, size_t s)
{
    chg_fact_call_t *c = f->c;
    const int n = (int)c->n, r = n - (int)s, lda = (int)c->lda;
    const int layout = c->trans ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
    if (r <= 0) return CLHGEMM_SUCCESS;
    if (s && chg_cpu_blas_syrk(c->prec, layout, CLHGEMM_LOWER, CLHGEMM_NO_TRANS, r, (int)s, -1.0,
                               at(f, s, 0), lda, NULL, 0, 1.0, at(f, s, s), lda) != 0)
        return CLHGEMM_NO_CPU_LAPACK;
    const chg_lapack_t *L = chg_lapack();
    const char *uplo = c->trans ? "U" : "L";
    int info = 0;
    if (c->prec == CHG_F64 && L->dpotrf) L->dpotrf(uplo, &r, (double *)at(f, s, s), &lda, &info, 1);
    else if (c->prec == CHG_F32 && L->spotrf)
        L->spotrf(uplo, &r, (float *)at(f, s, s), &lda, &info, 1);
    else return CLHGEMM_NO_CPU_LAPACK;
    if (info > 0) c->info = (int)s + info;
    return CLHGEMM_SUCCESS;
}

/* Column-major view from here on. */
static clhgemm_status_t getrf_rest(chg_fact_t *f, size_t s, size_t c0, int *ipiv0)
{
    chg_fact_call_t *c = f->c;
    const chg_lapack_t *L = chg_lapack();
    const int m = (int)c->m, n = (int)c->n, lda = (int)c->lda, si = (int)s;
    const int dbl = c->prec == CHG_F64;
    if ((dbl && (!L->dlaswp || !L->dgetrf)) || (!dbl && (!L->slaswp || !L->sgetrf)))
        return CLHGEMM_NO_CPU_LAPACK;
    chg_fx_swaps(f, ipiv0, 0, s, s); /* the finished columns as the devices had them */
    const int ci = (int)c0; /* the first column still holding the caller's input */
    if (s && n > ci) {
        int *one = malloc(s * sizeof *one);
        if (!one) return CLHGEMM_OUT_OF_HOST_MEMORY;
        for (size_t i = 0; i < s; i++) one[i] = ipiv0[i] + 1;
        const int nt = n - ci, k1 = 1, inc = 1;
        if (dbl) L->dlaswp(&nt, (double *)at(f, 0, c0), &lda, &k1, &si, one, &inc);
        else L->slaswp(&nt, (float *)at(f, 0, c0), &lda, &k1, &si, one, &inc);
        free(one);
        if (chg_cpu_blas_trsm(c->prec, CLHGEMM_COL_MAJOR, CLHGEMM_LEFT, CLHGEMM_LOWER,
                              CLHGEMM_NO_TRANS, CLHGEMM_UNIT, si, nt, 1.0, at(f, 0, 0), lda,
                              at(f, 0, c0), lda) != 0 ||
            (m > si && chg_cpu_blas_gemm(c->prec, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS,
                                         CLHGEMM_NO_TRANS, m - si, nt, si, -1.0, at(f, s, 0), lda,
                                         at(f, 0, c0), lda, 1.0, at(f, s, c0), lda) != 0))
            return CLHGEMM_NO_CPU_LAPACK;
    }
    if (m > si && n > si) {
        const int mr = m - si, nr = n - si;
        int info = 0;
        if (dbl) L->dgetrf(&mr, &nr, (double *)at(f, s, s), &lda, c->ipiv + s, &info);
        else L->sgetrf(&mr, &nr, (float *)at(f, s, s), &lda, c->ipiv + s, &info);
        if (info > 0 && c->info == 0) c->info = si + info;
        for (size_t i = s; i < f->kmax; i++) {
            c->ipiv[i] += si;
            ipiv0[i] = c->ipiv[i] - 1;
        }
        chg_fx_swaps(f, ipiv0, s, f->kmax, s); /* their interchanges on the finished columns */
    }
    return CLHGEMM_SUCCESS;
}

static clhgemm_status_t geqrf_rest(chg_fact_t *f, size_t s, size_t c0)
{
    chg_fact_call_t *c = f->c;
    const chg_lapack_t *L = chg_lapack();
    const int m = (int)c->m, n = (int)c->n, lda = (int)c->lda, si = (int)s;
    const int dbl = c->prec == CHG_F64;
    if ((dbl && (!L->dormqr || !L->dgeqrf)) || (!dbl && (!L->sormqr || !L->sgeqrf)))
        return CLHGEMM_NO_CPU_LAPACK;
    const int lwork = 64 * (n > 1 ? n : 1);
    void *work = malloc((size_t)lwork * f->es);
    if (!work) return CLHGEMM_OUT_OF_HOST_MEMORY;
    int info = 0;
    char *tau = c->tau;
    if (s && n > (int)c0) {
        const int nt = n - (int)c0;
        if (dbl)
            L->dormqr("L", "T", &m, &nt, &si, (double *)at(f, 0, 0), &lda, (double *)tau,
                      (double *)at(f, 0, c0), &lda, work, &lwork, &info, 1, 1);
        else
            L->sormqr("L", "T", &m, &nt, &si, (float *)at(f, 0, 0), &lda, (float *)tau,
                      (float *)at(f, 0, c0), &lda, work, &lwork, &info, 1, 1);
    }
    if (m > si && n > si) {
        const int mr = m - si, nr = n - si;
        if (dbl)
            L->dgeqrf(&mr, &nr, (double *)at(f, s, s), &lda, (double *)(tau + s * f->es), work,
                      &lwork, &info);
        else
            L->sgeqrf(&mr, &nr, (float *)at(f, s, s), &lda, (float *)(tau + s * f->es), work,
                      &lwork, &info);
    }
    free(work);
    return CLHGEMM_SUCCESS;
}

/* A transposed view's LU or QR on a column-major copy of the whole view. */
static clhgemm_status_t on_copy(chg_fact_t *f, size_t s, size_t c0, int *ipiv0)
{
    chg_fact_call_t *c = f->c;
    const size_t m = c->m, n = c->n, es = f->es;
    char *t = malloc(m * n * es);
    if (!t) return CLHGEMM_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) memcpy(t + (i + j * m) * es, at(f, i, j), es);
    chg_fact_call_t cc = *c;
    cc.a = t;
    cc.lda = m;
    cc.trans = 0;
    chg_fact_t g = *f;
    g.c = &cc;
    const clhgemm_status_t st = c->kind == CHG_FACT_GETRF ? getrf_rest(&g, s, c0, ipiv0)
                                                           : geqrf_rest(&g, s, c0);
    c->info = cc.info;
    if (st == CLHGEMM_SUCCESS)
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) memcpy(at(f, i, j), t + (i + j * m) * es, es);
    free(t);
    return st;
}

clhgemm_status_t chg_fact_rescue(chg_fact_t *f, size_t done, size_t tail_col, int *ipiv0)
{
    chg_fact_call_t *c = f->c;
    size_t s = done * f->nb;
    if (s > f->kmax) s = f->kmax;
    /* the columns of the panels home are final, also those of a last panel wider than its
     * rows (m < n: its CPU factorization finished them) */
    const size_t home = CHG_MIN(done * f->nb, c->n);
    const size_t c0 = CHG_MAX(tail_col, CHG_MAX(s, home));
    chg_log(1, "factor: the rest from view column %zu on the CPU", s);
    if (!chg_lapack_ok(NULL)) return CLHGEMM_NO_CPU_LAPACK;
    if (c->kind == CHG_FACT_POTRF) return potrf_rest(f, s);
    if (c->trans) return on_copy(f, s, c0, ipiv0);
    return c->kind == CHG_FACT_GETRF ? getrf_rest(f, s, c0, ipiv0) : geqrf_rest(f, s, c0);
}
