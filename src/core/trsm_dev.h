/*
 * trsm_dev.h -- TRSM solved on the device without host round trips (trsm_dev.c owns it): the
 * diagonal blocks of A inverted by a kernel (cl/trsm_inv.cl), then a recursive blocked
 * substitution whose every step is a GEMM on the core (chg_gemm_enqueue).
 *
 * Column-major view as in trsm_subst.h (which uses this module): T = op(A) (side left) or op(A)^T
 * (side right), order k, cut into diagonal blocks of nb aligned at multiples of nb. Over a range of
 * T's blocks:
 *
 *   one block q      X_q := a * inv(T_qq) * B_q in place (the core's TRMM with the inverted
 *                    block as its triangular operand); a = alpha when no update has scaled
 *                    those rows yet, else 1;
 *   several blocks   split in two halves on a block boundary; solve the half T's shape makes
 *                    first (top for a lower T, bottom for an upper one), update the other with
 *                    one GEMM  B_2 := -T_21 * X_1 + beta * B_2  (beta = alpha when B_2 is
 *                    still unscaled, else 1), then solve it.
 *
 * The diagonal blocks are inverted blocked (cl/trsm_inv.cl): the tiles of 32 on the diagonal
 * in local memory, then panels of a few columns substituting a tile of rows per step
 * (trsm_invert_tiles, trsm_invert_panel), where a block has several tiles and a panel fits
 * local memory; else (or with CLHGEMM_TRSM_INV=column) by trsm_invert_wg (a work-group per
 * column, the column in local memory) where it fits, else by trsm_invert (a work-item per
 * column).
 *
 * The halving makes the updates large GEMMs (inner dimension k/2, k/4, ...) instead of k/nb
 * updates of inner dimension nb, the same flops (m*n*k for the whole call) at the GEMM core's
 * rate for large products. Every command of a solve is chained by events after the previous
 * one, so any queue works (in order or not).
 *
 * A complex call (sh.cplx; ZTRSM, CTRSM) is the same algorithm: its GEMMs and TRMM leaves are
 * the core's complex ones (op(A) = A^H conjugates the operand: inv(A^H) = inv(A)^H), and its
 * blocks are inverted by columns with complex arithmetic (cl/trsm_inv.cl CPLX), which keeps
 * the code one algorithm rather than a second solver on a real embedding: the 2n x 2n real form
 * of a complex triangle is not triangular, so the real route could not solve it. alpha is
 * (re, im) everywhere below; real calls ignore the imaginary part.
 */
#ifndef CHG_TRSM_DEV_H
#define CHG_TRSM_DEV_H

#include "core/l3_map.h"

/* The device state of one TRSM (one device): the inverted blocks D. */
typedef struct chg_trsm_dev_s {
    chg_precision_t prec;
    chg_l3_shape_t sh;   /* the call's checked shape (column-major view) */
    size_t nb;           /* diagonal block order */
    const chg_device_t *dev;
    cl_mem d;
    cl_kernel inv;       /* the substitution by columns (NULL where blocked) */
    size_t inv_wg;       /* work-items per column of trsm_invert_wg, 0: trsm_invert */
    cl_kernel tiles, panel; /* the blocked inversion (NULL where by columns) */
    size_t ts, ic;       /* its tile and panel width, 0: by columns */
} chg_trsm_dev_t;

/* Allocates D (ceil(k/nb) blocks of nb x nb) and builds the inversion kernel. On failure
 * nothing is left allocated. */
clhgemm_status_t chg_trsm_dev_init(chg_trsm_dev_t *t, cl_context ctx, const chg_device_t *dev,
                                   chg_precision_t prec, const chg_l3_shape_t *sh, size_t nb);

/* Device bytes chg_trsm_dev_init allocates for these arguments (cplx: complex elements). */
size_t chg_trsm_dev_bytes(chg_precision_t prec, int cplx, size_t k, size_t nb);

/* Enqueues the inversion of A's diagonal blocks into D (A(0,0) at element offA, lda). */
clhgemm_status_t chg_trsm_dev_invert(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A, size_t offA,
                                     size_t lda, cl_uint nwait, const cl_event *wait,
                                     cl_event *ev);

/* Enqueues the solve of B (B(0,0) at element offB, ldb) with rhs right-hand sides (B is
 * k x rhs for side left, rhs x k for side right) after the events in wait (which must
 * include the inversion's); *ev (not NULL) receives the last command's event. Solves of one t
 * may run on several queues (they only read D). */
clhgemm_status_t chg_trsm_dev_solve(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A, size_t offA,
                                    size_t lda, size_t rhs, const double alpha[2], cl_mem B,
                                    size_t offB, size_t ldb, cl_uint nwait, const cl_event *wait,
                                    cl_event *ev);

/* A solve in two stages, for a caller whose A arrives in parts (the host path's first strip
 * on a device, host/trsm_strips.c): the first half of T's rows that the substitution solves
 * (the top-level split of solve_range) needs only its own diagonal block of A; the update
 * after it needs the off-diagonal block; the other half's solve needs the other diagonal
 * block. chg_trsm_dev_halves gives the first half, T's rows [*first0, *first1) (the diagonal
 * block of A with the same rows and columns), or 0 when the solve has one diagonal block
 * (then use chg_trsm_dev_invert and chg_trsm_dev_solve). chg_trsm_dev_invert_first inverts
 * that half's diagonal blocks (after wait: its block of A); chg_trsm_dev_solve_first solves
 * it (after wait, which must include that inversion) -- *ev its last command. Then
 * chg_trsm_dev_solve_rest enqueues the update (after first, the first stage's *ev, and a_off:
 * A's off-diagonal block), the inversion of the other half's blocks (after the update and
 * a_diag: their block of A; *inv receives it, which completes D), and the other half's solve;
 * *ev its last command. The commands are those chg_trsm_dev_solve enqueues, in the same order,
 * with the other half's inversion between the update and its solve. */
int chg_trsm_dev_halves(const chg_trsm_dev_t *t, size_t *first0, size_t *first1);
clhgemm_status_t chg_trsm_dev_invert_first(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A,
                                           size_t offA, size_t lda, cl_uint nwait,
                                           const cl_event *wait, cl_event *ev);
clhgemm_status_t chg_trsm_dev_solve_first(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A,
                                          size_t offA, size_t lda, size_t rhs,
                                          const double alpha[2], cl_mem B, size_t offB,
                                          size_t ldb, cl_uint nwait, const cl_event *wait,
                                          cl_event *ev);
clhgemm_status_t chg_trsm_dev_solve_rest(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A,
                                         size_t offA, size_t lda, size_t rhs,
                                         const double alpha[2], cl_mem B, size_t offB,
                                         size_t ldb, cl_event first,
                                         cl_event a_off, cl_event a_diag, cl_event *inv,
                                         cl_event *ev);

/* Releases D and the kernel (OpenCL keeps the buffers until the commands using them end). */
void chg_trsm_dev_release(chg_trsm_dev_t *t);

/* The kernel trsm_invert for (dev, prec; complex elements when cplx) through the program cache
 * (used by tools/kernel_sources.c to list the source, both kernels, for the AMD compile check;
 * the solve launches trsm_invert_wg from the same program where x fits local memory). */
clhgemm_status_t chg_trsm_inv_kernel(cl_context ctx, const chg_device_t *dev,
                                     chg_precision_t prec, int cplx, cl_kernel *out);

#endif
