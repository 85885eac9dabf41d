/*
 * fact_update.h -- the factorizations' work on the devices (fact_update.c owns it): every
 * update of the trailing matrix is one or two calls of the library's own level-3 core (GEMM,
 * SYRK, TRSM, TRMM) on views of a device's blocks, plus the small kernels of cl/lapack.cl (LU's
 * row interchanges, QR's V with its unit diagonal, transposes). Everything is enqueued on the
 * device's kernel queue (in order), after whatever that queue ran before.
 *
 * The updates, for panel k applied to view columns [c0, c1) of device d (one contiguous run of
 * its local storage; every view here is the column-major one of fact.h):
 *
 *   Cholesky (lower)  A(r, c) -= L(r, k) * L(c, k)^T for rows r >= c0: SYRK on the run's
 *                     diagonal part, GEMM below it (L the panel's rows below its diagonal block)
 *   LU                rows [k nb, m) interchanged by the panel's pivots; U12 := L11^-1 A12
 *                     (TRSM, L11 unit lower); A22 -= L21 * U12 (GEMM)
 *   QR                W := V^T A(k nb:, run); W := T^T W; A(k nb:, run) -= V W (V unit lower with
 *                     explicit 1 and 0, T upper: LAPACK's larfb, forward, columnwise)
 *
 * and the catch-up, for a run whose blocks have none of panels 0 .. k - 1 yet (they arrived
 * late, or are rebuilt from the caller's input after a device was lost): the same with all
 * those panels at once where the algebra allows -- Cholesky one SYRK/GEMM pair of inner
 * dimension k nb; LU the interchanges of all k panels, one TRSM with the unit lower L of order
 * k nb and one GEMM; QR the panels' reflectors one after the other. The catch-up reads the
 * panels from the device's own storage, so only a device that holds them all (one device)
 * catches up; the driver makes several devices wait for their blocks instead.
 */
#ifndef CHG_LAPACK_FACT_UPDATE_H
#define CHG_LAPACK_FACT_UPDATE_H

#include "lapack/fact_dist.h"

/* CLHGEMM_FACTOR_SLOW=D:MS (a test hook, host memory): device D's kernel queue waits MS
 * milliseconds of wall time before each step's trailing update, as a device that much slower
 * would, while the driver goes on -- a user event in the queue that a thread of the call
 * completes MS ms after the driver enqueued it. So two devices of unequal speed are tested on
 * equal PoCL devices: the driver then waits for the slow one's panels and panel buffers.
 * chg_fu_slow_start reads the variable (a malformed value or a device the call does not have:
 * one line naming it, and no delay); chg_fu_slow_step enqueues device d's wait (d not the slow
 * one: nothing); chg_fu_slow_stop completes what is still waiting at once and ends the thread. */
clhgemm_status_t chg_fu_slow_start(chg_fact_t *f);
cl_int chg_fu_slow_step(chg_fact_t *f, int d);
void chg_fu_slow_stop(chg_fact_t *f);

/* A marker on device d's kernel queue after ev (NULL: nothing). */
cl_int chg_fu_after(chg_fact_t *f, int d, cl_event ev);

/* The last command enqueued on device d's kernel queue, retained (the caller releases it). */
cl_int chg_fu_mark(chg_fact_t *f, int d, cl_event *ev);

/* Panel k applied to local columns [jl, jl + w) of device d (view columns c0 .. c0 + w). For
 * Cholesky c0 is the view column of the run (its rows start there); jl its local column. */
cl_int chg_fu_apply(chg_fact_t *f, int d, size_t k, size_t c0, size_t jl, size_t w);

/* Cholesky's diagonal part of block j (SYRK of its w x w diagonal block) with panel k, and the
 * rest of it below; the driver runs the first, sends the block down, then the second. */
cl_int chg_fu_potrf_diag(chg_fact_t *f, size_t k, size_t j);
cl_int chg_fu_potrf_below(chg_fact_t *f, size_t k, size_t j);

/* Where a catch-up reads the finished panels: element (i, c) of the view (rows i >= r0,
 * columns c >= c0) at chg_lsrc_at(src, i, c). */
typedef struct chg_lsrc_s {
    chg_dview_t L;
    size_t r0, c0;
} chg_lsrc_t;
static inline chg_dview_t chg_lsrc_at(const chg_lsrc_t *s, size_t i, size_t c)
{
    return chg_dview_at(s->L, i - s->r0, c - s->c0);
}
/* One device's own window: the panels of its earlier blocks where they are. */
chg_lsrc_t chg_fu_resident(const chg_fact_t *f, int d);

/* Panels [from, to) applied to local columns [jl, jl + w) (view columns c0 ..) of device d,
 * which hold panels [0, from) already, reading the panels from src. */
cl_int chg_fu_catch_up(chg_fact_t *f, int d, size_t from, size_t to, size_t c0, size_t jl,
                       size_t w, const chg_lsrc_t *src);

/* LU out of core: the panels [p0, p1) streamed into src went home each as of its own step;
 * the later interchanges up to panel p1 - 1 on each bring them to the state the catch-up of
 * panels [p0, p1) needs. */
cl_int chg_fu_stage_swaps(chg_fact_t *f, int d, const chg_lsrc_t *src, size_t p0, size_t p1);

/* After panel k's factor is in its owner's block: Cholesky's L21 := A21 * L_kk^-T on the owner
 * (the panel's rows below its diagonal block); QR's V of panel k on device d (from the panel
 * where d holds it) into fd[d].v. */
cl_int chg_fu_potrf_solve(chg_fact_t *f, size_t k);
cl_int chg_fu_qr_v(chg_fact_t *f, int d, size_t k);

/* LU: the interchanges of panel k (in fd[d].piv) on local columns [jl, jl + w) of device d,
 * rows [k nb, m). */
cl_int chg_fu_laswp(chg_fact_t *f, int d, size_t k, size_t jl, size_t w);

/* A transposed view's panel k on device d between its storage and the column-major fd[d].col
 * (to_col: storage -> col, for the panel going down; else col -> storage, coming up), rows
 * [r0, m) of the panel's w columns. */
cl_int chg_fu_panel_col(chg_fact_t *f, int d, size_t k, size_t r0, int to_col);

/* getrs on device buffers: rows i and ipiv[i] - 1 (LAPACK's 1-based pivots) of B interchanged
 * for i = 0 .. n - 1 in order (forward) or in reverse, on its nrhs columns (B n x nrhs at
 * element off, ld; row_major: B's rows are contiguous), on queue q after what it ran before;
 * returns when done. */
clhgemm_status_t chg_fact_laswp_cl(cl_command_queue q, chg_precision_t prec, cl_mem B,
                                   size_t off, size_t ld, int row_major, size_t n, size_t nrhs,
                                   const int *ipiv, int forward);

#endif
