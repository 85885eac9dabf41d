/*
 * fact_solve.h -- the solvers on top of the factorizations (fact_solve.c owns them): potrs,
 * posv, getrs, gesv, ormqr, orgqr and gels on host memory, potrs and getrs on device buffers.
 *
 * Host memory: a call that the routing sends to the CPU as a whole (fact_route.h: posv, gesv
 * and gels by their factorization's model, the others by CLHGEMM_ROUTE and the devices' kind)
 * is the CPU LAPACK's routine itself. Otherwise potrs is two triangular solves with the host
 * TRSM (clhgemm_{s,d}trsm on the handle, which routes each itself); getrs the row interchanges
 * on B then two such solves (transposed: the solves, then the interchanges in reverse); posv
 * and gesv the factorization on the devices (fact_route.h chg_fact_devices) then that solve,
 * unless info > 0 (then B is untouched, as in LAPACK); ormqr and orgqr the CPU LAPACK until
 * the devices have a path (chg_fact_ormqr_dev); gels LAPACK's algorithm on the QR of A
 * (m >= n) or of A^T (m < n: LAPACK's LQ of A, the same factors stored transposed), Q applied
 * by ormqr, the triangle solved by the host TRSM -- except where LAPACK would scale A or B
 * (norms outside [smlnum, bignum], or A zero), which the CPU LAPACK's gels runs.
 *
 * Device buffers (synchronous): potrs two clhgemm_{s,d}trsm_cl on the queue, waited for;
 * getrs the interchanges on B, then those solves.
 */
#ifndef CHG_LAPACK_FACT_SOLVE_H
#define CHG_LAPACK_FACT_SOLVE_H

#include "lapack/fact_check.h"

/* A checked host-memory solver call with something to do (past chg_fact_quick_return). */
clhgemm_status_t chg_fact_solve(clhgemm_handle_t h, const chg_fact_args_t *a);

/* A checked device-buffer potrs or getrs with something to do; returns when B is final. */
clhgemm_status_t chg_fact_solve_cl(const chg_fact_args_t *a);

/* The devices' ormqr / orgqr: the one place their device path goes (it applies Q with the
 * device larfb). 1 when it ran the call (its status in *st), 0 when it did not take it (the
 * caller runs the CPU LAPACK). Takes nothing yet. */
int chg_fact_ormqr_dev(clhgemm_handle_t h, const chg_fact_args_t *a, clhgemm_status_t *st);

#endif
