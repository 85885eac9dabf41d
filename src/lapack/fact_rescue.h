/*
 * fact_rescue.h -- the rest of a host factorization on the CPU, from what is on the host
 * (fact_rescue.c owns it): what a lost device (or any device failure after the first write
 * home) leaves behind is rebuilt from the caller's matrix itself.
 *
 * The driver writes a panel into the caller's matrix only once it is final (LU's later row
 * interchanges aside, which are applied at the end), and nothing else: when panels 0 .. k - 1
 * are home, columns from k * nb on still hold the caller's input. So whatever the devices held
 * can be dropped, and the factorization finished on the CPU: the trailing columns brought up to
 * date with the finished panels in one left-looking update (Cholesky SYRK; LU the interchanges,
 * TRSM, GEMM; QR ormqr with the finished reflectors), then the CPU LAPACK factors the rest.
 * The result is LAPACK's factorization, pivots and info included; only the speed is the CPU's.
 */
#ifndef CHG_LAPACK_FACT_RESCUE_H
#define CHG_LAPACK_FACT_RESCUE_H

#include "lapack/fact_dist.h"

/* Finishes call f->c on the CPU when its first `done` panels are home (their home copies
 * finished) and the rest of the matrix is the caller's input. ipiv0 (LU): the 0-based pivots of
 * those panels, filled for the rest. Applies every LU interchange still due to the finished
 * columns (the driver's end pass must not run again). CLHGEMM_OUT_OF_HOST_MEMORY when a
 * transposed view's column-major copy cannot be had; CLHGEMM_NO_CPU_LAPACK without one. */
/* tail_col (LU, QR with n > m; 0: none): the view's columns before it are home and final, past
 * the panels (the driver writes the columns right of the last panel home last). */
clhgemm_status_t chg_fact_rescue(chg_fact_t *f, size_t done, size_t tail_col, int *ipiv0);

#endif
