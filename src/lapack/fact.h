/*
 * fact.h -- the factorization layer's shared types: a checked Cholesky, LU or QR call in the
 * column-major view that the drivers (fact_driver.h) run, whatever front end made it (the host
 * routines of lapack/fact_api.c, the device-buffer routines of lapack/fact_api_cl.c, the
 * solvers of lapack/fact_solve.c).
 *
 * The column-major view: the drivers factor the m x n matrix as LAPACK sees it in column-major
 * order. A caller's row-major matrix is that matrix stored transposed (element (i, j) of the
 * view at i * lda + j): `trans` says so, and every transfer and device operation addresses it
 * through that storage (the core's row-major mapping), so nothing is transposed in memory. A
 * Cholesky of the upper triangle is the lower one of the transposed storage: the front ends
 * pass every Cholesky as `lower` in the view, with `trans` set for column-major upper and
 * row-major lower.
 */
#ifndef CHG_LAPACK_FACT_H
#define CHG_LAPACK_FACT_H

#include <stddef.h>

#include "clhgemm.h"
#include "kernels/precision.h"

typedef enum { CHG_FACT_POTRF = 0, CHG_FACT_GETRF = 1, CHG_FACT_GEQRF = 2 } chg_fact_kind_t;

typedef struct chg_fact_call_s {
    chg_fact_kind_t kind;
    chg_precision_t prec;
    size_t m, n;            /* the view (Cholesky: m == n) */
    int trans;              /* the view is stored transposed (see above) */
    /* The matrix: host memory (a, lda) for the host routines, else a device buffer (buf, off
     * in elements, lda) on queue's device. */
    void *a;
    cl_mem buf;
    size_t off, lda;
    cl_command_queue queue;
    int *ipiv;              /* LU: min(m, n) pivots out, 1-based rows of the view (LAPACK's) */
    void *tau;              /* QR: min(m, n) scalars of the reflectors out */
    int info;               /* out: LAPACK's info (0, or the 1-based order / column) */
    size_t nb;              /* the panel width to use (0: chg_fact_nb chooses; clhgemm-tune) */
} chg_fact_call_t;

#endif
