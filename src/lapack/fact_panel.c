/*
 * fact_panel.c -- the CPU panels (fact_panel.h): the CPU LAPACK's own routines on the host's
 * pinned copy of the panel, so that a panel's pivots, reflectors and info are exactly what
 * LAPACK computes for that block column.
 */
#include "lapack/fact_panel.h"

#include <string.h>

#include "base/util.h"
#include "cpu/lapack_link.h"

/* geqrf's workspace in elements: w * 64 (LAPACK's blocked geqrf wants n * nb; its nb is at
 * most 64 in the reference and in OpenBLAS, and any lwork >= n works, only slower). */
#define GEQRF_NB 64

/* CLHGEMM_FACTOR_PANEL=recursive (an experiment): LAPACK's recursive potrf2/getrf2, whose
 * steps are calls of the CPU BLAS, instead of the CPU LAPACK's own potrf/getrf; the default
 * (lapack) where the CPU library lacks them. */
static int recursive(void)
{
    static const char *const modes[] = {"lapack", "recursive", NULL};
    return chg_env_choice("CLHGEMM_FACTOR_PANEL", modes, 0) == 1;
}

int chg_panel_potrf(chg_precision_t prec, int lower, size_t kb, void *a, size_t ld)
{
    const chg_lapack_t *L = chg_lapack();
    const chg_fint n = (chg_fint)kb, lda = (chg_fint)ld;
    chg_fint info = 0;
    const char *uplo = lower ? "L" : "U";
    const int rec = recursive();
    if (prec == CHG_F64) {
        void (*fn)(const char *, const chg_fint *, double *, const chg_fint *, chg_fint *,
                   size_t) = rec && L->dpotrf2 ? L->dpotrf2 : L->dpotrf;
        if (!fn) return -1;
        fn(uplo, &n, a, &lda, &info, 1);
    } else {
        void (*fn)(const char *, const chg_fint *, float *, const chg_fint *, chg_fint *,
                   size_t) = rec && L->spotrf2 ? L->spotrf2 : L->spotrf;
        if (!fn) return -1;
        fn(uplo, &n, a, &lda, &info, 1);
    }
    return info < 0 ? -1 : (int)info;
}

int chg_panel_getrf(chg_precision_t prec, size_t rows, size_t w, void *a, size_t ld, int *ipiv)
{
    const chg_lapack_t *L = chg_lapack();
    const chg_fint m = (chg_fint)rows, n = (chg_fint)w, lda = (chg_fint)ld;
    chg_fint info = 0;
    const int rec = recursive();
    if (prec == CHG_F64) {
        void (*fn)(const chg_fint *, const chg_fint *, double *, const chg_fint *, chg_fint *,
                   chg_fint *) = rec && L->dgetrf2 ? L->dgetrf2 : L->dgetrf;
        if (!fn) return -1;
        fn(&m, &n, a, &lda, ipiv, &info);
    } else {
        void (*fn)(const chg_fint *, const chg_fint *, float *, const chg_fint *, chg_fint *,
                   chg_fint *) = rec && L->sgetrf2 ? L->sgetrf2 : L->sgetrf;
        if (!fn) return -1;
        fn(&m, &n, a, &lda, ipiv, &info);
    }
    return info < 0 ? -1 : (int)info;
}

size_t chg_panel_geqrf_work(chg_precision_t prec, size_t rows, size_t w)
{
    (void)rows;
    return (w ? w : 1) * GEQRF_NB * chg_elem_size(prec);
}

int chg_panel_geqrf(chg_precision_t prec, size_t rows, size_t w, void *a, size_t ld, void *tau,
                    void *t, size_t ldt, void *work)
{
    const chg_lapack_t *L = chg_lapack();
    const chg_fint m = (chg_fint)rows, n = (chg_fint)w, lda = (chg_fint)ld, tl = (chg_fint)ldt;
    const chg_fint lwork = (chg_fint)((w ? w : 1) * GEQRF_NB);
    const chg_fint k = (chg_fint)(rows < w ? rows : w);
    const size_t es = chg_elem_size(prec);
    chg_fint info = 0;
    for (size_t j = 0; j < w; j++) memset((char *)t + j * ldt * es, 0, w * es);
    if (prec == CHG_F64) {
        if (!L->dgeqrf || !L->dlarft) return -1;
        L->dgeqrf(&m, &n, a, &lda, tau, work, &lwork, &info);
        if (info == 0 && k > 0) L->dlarft("F", "C", &m, &k, a, &lda, tau, t, &tl, 1, 1);
    } else {
        if (!L->sgeqrf || !L->slarft) return -1;
        L->sgeqrf(&m, &n, a, &lda, tau, work, &lwork, &info);
        if (info == 0 && k > 0) L->slarft("F", "C", &m, &k, a, &lda, tau, t, &tl, 1, 1);
    }
    return info < 0 ? -1 : 0;
}
