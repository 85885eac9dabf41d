/*
 * fact_driver.c -- STUB of the factorizations' driver (fact_driver.h): the CPU LAPACK on the
 * call's column-major view, so that the front ends (fact_api.c, fact_api_cl.c, fact_solve.c)
 * build and are tested before the real driver exists. It is replaced as a whole by the real
 * fact_driver.c; nothing may depend on what this file does beyond the two declarations.
 *
 * Host memory: the view is factored in place (a Cholesky stored transposed is the other
 * triangle of the storage; LU and QR of a transposed view go through a column-major copy).
 * A device buffer: the view's storage is read to the host, factored there, written back
 * (blocking, after everything enqueued before on the queue).
 */
#include "lapack/fact_driver.h"

#include <stdlib.h>

#include "cpu/lapack_link.h"

static clhgemm_status_t factor_colmajor(chg_fact_call_t *c, void *a, size_t lda)
{
    const chg_lapack_t *t = chg_lapack();
    const int dbl = c->prec == CHG_F64;
    const chg_fint m = (chg_fint)c->m, n = (chg_fint)c->n, ld = (chg_fint)lda;
    chg_fint info = 0;
    if (c->kind == CHG_FACT_GETRF) {
        if (dbl)
            t->dgetrf(&m, &n, a, &ld, c->ipiv, &info);
        else
            t->sgetrf(&m, &n, a, &ld, c->ipiv, &info);
    } else {
        double qd = 0;
        float qs = 0;
        const chg_fint query = -1;
        if (dbl)
            t->dgeqrf(&m, &n, a, &ld, c->tau, &qd, &query, &info);
        else
            t->sgeqrf(&m, &n, a, &ld, c->tau, &qs, &query, &info);
        const chg_fint lwork = dbl ? (chg_fint)qd : (chg_fint)qs;
        void *work = malloc((size_t)(lwork > 1 ? lwork : 1) * chg_elem_size(c->prec));
        if (!work) return CLHGEMM_OUT_OF_HOST_MEMORY;
        if (dbl)
            t->dgeqrf(&m, &n, a, &ld, c->tau, work, &lwork, &info);
        else
            t->sgeqrf(&m, &n, a, &ld, c->tau, work, &lwork, &info);
        free(work);
    }
    if (info < 0) return CLHGEMM_INTERNAL_ERROR;
    c->info = info;
    return CLHGEMM_SUCCESS;
}

/* dst (rows x cols, column-major, ldd) := the transpose of src (cols x rows, lds). */
static void transpose(size_t es, size_t rows, size_t cols, const void *src, size_t lds, void *dst,
                      size_t ldd)
{
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++) {
            const char *s = (const char *)src + (j + i * lds) * es;
            char *d = (char *)dst + (i + j * ldd) * es;
            for (size_t b = 0; b < es; b++)
                d[b] = s[b];
        }
}

/* The view at (a, lda), stored as c->trans says. */
static clhgemm_status_t factor_view(chg_fact_call_t *c, void *a, size_t lda)
{
    const chg_lapack_t *t = chg_lapack();
    if (c->kind == CHG_FACT_POTRF) {
        const chg_fint n = (chg_fint)c->n, ld = (chg_fint)lda;
        chg_fint info = 0;
        const char *uplo = c->trans ? "U" : "L";
        if (c->prec == CHG_F64)
            t->dpotrf(uplo, &n, a, &ld, &info, 1);
        else
            t->spotrf(uplo, &n, a, &ld, &info, 1);
        if (info < 0) return CLHGEMM_INTERNAL_ERROR;
        c->info = info;
        return CLHGEMM_SUCCESS;
    }
    if (!c->trans) return factor_colmajor(c, a, lda);
    const size_t es = chg_elem_size(c->prec);
    void *tmp = malloc(c->m * c->n * es);
    if (!tmp) return CLHGEMM_OUT_OF_HOST_MEMORY;
    transpose(es, c->m, c->n, a, lda, tmp, c->m);
    const clhgemm_status_t st = factor_colmajor(c, tmp, c->m);
    if (st == CLHGEMM_SUCCESS) transpose(es, c->n, c->m, tmp, c->m, a, lda);
    free(tmp);
    return st;
}

clhgemm_status_t chg_fact_run_host(clhgemm_handle_t h, chg_fact_call_t *c)
{
    (void)h;
    return factor_view(c, c->a, c->lda);
}

clhgemm_status_t chg_fact_run_device(chg_fact_call_t *c)
{
    const size_t es = chg_elem_size(c->prec);
    /* the storage: rows along lda, then lines */
    const size_t rows = c->trans ? c->n : c->m, lines = c->trans ? c->m : c->n;
    void *tmp = malloc(rows * lines * es);
    if (!tmp) return CLHGEMM_OUT_OF_HOST_MEMORY;
    const size_t origin[3] = {c->off * es, 0, 0}, zero[3] = {0, 0, 0},
                 region[3] = {rows * es, lines, 1};
    cl_int err = clFinish(c->queue);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBufferRect(c->queue, c->buf, CL_TRUE, origin, zero, region, c->lda * es,
                                      0, rows * es, 0, tmp, 0, NULL, NULL);
    clhgemm_status_t st = err == CL_SUCCESS ? factor_view(c, tmp, rows) : (clhgemm_status_t)err;
    if (st == CLHGEMM_SUCCESS) {
        err = clEnqueueWriteBufferRect(c->queue, c->buf, CL_TRUE, origin, zero, region, c->lda * es,
                                       0, rows * es, 0, tmp, 0, NULL, NULL);
        if (err != CL_SUCCESS) st = (clhgemm_status_t)err;
    }
    free(tmp);
    return st;
}
