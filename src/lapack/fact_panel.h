/*
 * fact_panel.h -- the CPU panels of the factorizations (fact_panel.c owns them): what the CPU
 * LAPACK (cpu/lapack_link.h) computes at each step, in the host's pinned copy of the panel,
 * while the devices update the trailing matrix.
 *
 *   Cholesky  the diagonal block, potrf (the column-major view's triangle);
 *   LU        the block column from the diagonal down, getrf: pivots within the panel, the
 *             first exactly zero pivot;
 *   QR        the block column from the diagonal down, geqrf (tau), then larft: the block
 *             reflector's triangular factor T (w x w, upper, zeros below) for the devices'
 *             larfb.
 *
 * Each returns LAPACK's info of the panel (0, or > 0: the 1-based column of the panel where
 * the minor is not positive definite or the pivot is exactly zero), or -1 when the CPU LAPACK
 * is missing a routine.
 */
#ifndef CHG_LAPACK_FACT_PANEL_H
#define CHG_LAPACK_FACT_PANEL_H

#include <stddef.h>

#include "kernels/precision.h"

int chg_panel_potrf(chg_precision_t prec, int lower, size_t kb, void *a, size_t ld);

/* ipiv[0 .. w): 1-based rows of the panel, as getrf gives them. */
int chg_panel_getrf(chg_precision_t prec, size_t rows, size_t w, void *a, size_t ld, int *ipiv);

/* tau[0 .. w); t: w x w (ldt) receives T with zeros below its diagonal. work: scratch of at
 * least chg_panel_geqrf_work(prec, rows, w) bytes. */
int chg_panel_geqrf(chg_precision_t prec, size_t rows, size_t w, void *a, size_t ld, void *tau,
                    void *t, size_t ldt, void *work);
size_t chg_panel_geqrf_work(chg_precision_t prec, size_t rows, size_t w);

#endif
