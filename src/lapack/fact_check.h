/*
 * fact_check.h -- a factorization-layer call as the caller made it, and its argument checks
 * (fact_check.c owns them): every routine of the layer (potrf, getrf, geqrf and the solvers),
 * on host memory or on device buffers, is one chg_fact_args_t, checked in LAPACK's parameter
 * order -- layout first, then the routine's own arguments as LAPACK lists them -- each invalid
 * argument with its own status, before anything is read or written. The front ends
 * (fact_api.c, fact_api_cl.c) fill the record; the CPU route (fact_route.h) and the solvers
 * (fact_solve.h) run it; chg_fact_call_from maps a checked factorization onto the drivers'
 * column-major view (fact.h).
 *
 * Leading dimensions follow LAPACKE: column-major lda >= max(1, rows), row-major
 * lda >= max(1, columns), where rows x columns is the matrix as LAPACK declares it (ormqr's A
 * nq x k, gels's B max(m, n) x nrhs).
 */
#ifndef CHG_LAPACK_FACT_CHECK_H
#define CHG_LAPACK_FACT_CHECK_H

#include "lapack/fact.h"

typedef enum {
    CHG_FACT_OP_POTRF,
    CHG_FACT_OP_GETRF,
    CHG_FACT_OP_GEQRF,
    CHG_FACT_OP_POTRS,
    CHG_FACT_OP_POSV,
    CHG_FACT_OP_GETRS,
    CHG_FACT_OP_GESV,
    CHG_FACT_OP_ORMQR,
    CHG_FACT_OP_ORGQR,
    CHG_FACT_OP_GELS,
    CHG_FACT_NOPS
} chg_fact_op_t;

/* The routine's name without its precision letter ("potrf", ...). */
const char *chg_fact_op_name(chg_fact_op_t op);

typedef struct chg_fact_args_s {
    chg_fact_op_t op;
    chg_precision_t prec;
    int layout, uplo, trans, side; /* those the routine has (clhgemm's enums) */
    int m, n, k, nrhs;
    /* Host memory: A (never written by potrs, getrs, ormqr: their const A travels here), and
     * B -- ormqr's C. */
    void *a, *b;
    int lda, ldb;
    /* Device buffers (the _cl routines): A and B at offsets in elements, on queue. */
    cl_mem abuf, bbuf;
    size_t offa, offb;
    cl_command_queue queue;
    int *ipiv; /* getrf, gesv: out; getrs: in (1-based, LAPACK's) */
    void *tau; /* geqrf: out; ormqr, orgqr: in */
    int *info; /* potrf, getrf, posv, gesv, gels: out */
    /* Set by the checks: A and B as LAPACK declares them (rows x cols, column-major sense) and
     * whether each is stored row-major. The caller's call has a_row == b_row; the solvers'
     * inner calls may store A transposed against B (gels: the QR of A^T). */
    size_t a_rows, a_cols, b_rows, b_cols;
    int a_row, b_row;
} chg_fact_args_t;

/* What a checked call reads or writes (its quick return is everything else). */
typedef struct chg_fact_touch_s {
    int a, b, ipiv, tau, info;
} chg_fact_touch_t;
chg_fact_touch_t chg_fact_touches(const chg_fact_args_t *a);

/* The shape checks, in the routine's LAPACK order: layout, uplo / side / trans, m, n, k, nrhs,
 * lda, ldb (ldc), then CLHGEMM_SIZE_OVERFLOW (core/extent.h) for A and B as stored. Fills
 * a_rows .. b_row. */
clhgemm_status_t chg_fact_check_shape(chg_fact_args_t *a);

/* A host-memory call: the handle (first, as every host routine of the library checks it), the
 * shape, the pointers the call touches in the routine's parameter order (A, B, C ->
 * CLHGEMM_NULL_BUFFER_A/B/C; ipiv, tau, info -> CLHGEMM_NULL_IPIV/TAU/INFO), then FP64 on the
 * handle's devices. */
clhgemm_status_t chg_fact_check_host(clhgemm_handle_t h, chg_fact_args_t *a);

/* A device-buffer call: the shape, the queue, then in the routine's parameter order the buffers
 * it touches (chg_check_buffer: NULL, context, size) and the host pointers ipiv, tau, info, then
 * FP64 on the queue's device. */
clhgemm_status_t chg_fact_check_cl(chg_fact_args_t *a);

/* LAPACK's quick return for a checked call with nothing to factor or solve: info = 0 where the
 * routine has one, and gels's zero solution (B := 0 where B has rows but A or B has no column);
 * 1 when the call is done, else 0. */
int chg_fact_quick_return(const chg_fact_args_t *a);

/* A checked potrf, getrf or geqrf -- or the factorization that posv, gesv or gels starts with --
 * as the drivers' record (fact.h): the column-major view, host memory (a) or the device buffer
 * (buf, off, queue), ipiv / tau the caller's, info 0. */
void chg_fact_call_from(const chg_fact_args_t *a, chg_fact_call_t *c);

#endif
