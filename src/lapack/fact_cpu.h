/*
 * fact_cpu.h -- the CPU's share of a factorization (fact_cpu.c owns it): the second level of
 * the distribution of "Enabling and Scaling Matrix Computations on Heterogeneous Multi-Core
 * and Multi-GPU Systems" (Song, Tomov, Dongarra), where the host's cores hold a slice of the
 * block columns beside the devices and update it with the CPU BLAS while the devices update
 * theirs, so that no core idles between panels.
 *
 * Here the slice is one block column of every `every` (fact_dist.h chg_fact_dist_cpu), held in
 * host memory in the column-major view (fact.h) for the whole call; the CPU's updates read each
 * panel where the driver keeps it anyway (pinned memory), and its finished panels go home as
 * every panel does, from there. Host memory, in core only (out of core the windows stream every
 * block through the devices), and never on device buffers.
 *
 * chg_fc_every decides the share: CLHGEMM_FACTOR_CPU_SHARE=off, N (2 .. 64: one block of every
 * N on the CPU, forced: the tests), or auto (the default): a model of the loop's steps from the
 * rates the handle's routing already has (host/route.h: the devices' GEMM rate, OpenBLAS's
 * rate at the update's shape, from the tuning entry that `clhgemm-tune` writes, else measured
 * once per process). A step takes the longer of the devices' share of the trailing update and
 * the CPU's part (its panel, then its share of the update); the share is the N that minimises
 * the sum over the steps, taken only where that is 2% below the sum without a share. Never
 * beside devices that are CPUs themselves (PoCL): they run on the very cores the share would
 * take, which the model does not count; there the routing sends a factorization to the CPU
 * LAPACK anyway (fact_route.h), which is faster still. CLHGEMM_CPU_SHARE_ANY_DEVICE=1 lets the
 * model run there (the tests; with CLHGEMM_ROUTE=device on PoCL it takes one block of every 3
 * or 4 at n = 2048, and a forced share measured 1.3-3x the driver's rate without one).
 * CLHGEMM_VERBOSE=1 says what the model chose and why.
 */
#ifndef CHG_LAPACK_FACT_CPU_H
#define CHG_LAPACK_FACT_CPU_H

#include "lapack/fact_dist.h"

/* One block of every N on the CPU (N >= 2), or 0: no share. */
size_t chg_fc_every(clhgemm_handle_t h, const chg_fact_t *f);

/* The CPU's storage, its blocks copied from the caller's matrix (Cholesky: the view's lower
 * triangle), marked arrived; QR's V and W. CLHGEMM_OUT_OF_HOST_MEMORY when it cannot be had. */
clhgemm_status_t chg_fc_alloc(chg_fact_t *f);
void chg_fc_free(chg_fact_t *f);

/* Panel k, the CPU's, into pinned memory where the driver factors it: LU and QR its block
 * column, rows 0 .. m, column-major (ld pld); Cholesky its diagonal block in the caller's
 * stored orientation (ld nb), as a device's would come down. */
void chg_fc_panel_down(chg_fact_t *f, size_t k, void *pin, size_t pld, void *diag);

/* Cholesky, panel k the CPU's: L21 := A21 L11^-T in its storage (L11 the factored diagonal
 * block in diag, stored orientation, ld nb), then L21 into pin in the stored orientation (ld
 * hld), where the devices and the copy home take it. */
void chg_fc_potrf_solve(chg_fact_t *f, size_t k, const void *diag, void *pin, size_t hld);

/* Where the CPU reads panel k: LU and QR the block column in pin (rows 0 .. m, column-major,
 * ld) with LU's pivots (0-based rows of the view) and QR's T (ld nb; transposed where the view
 * is stored transposed, as the devices take it); Cholesky L21 in the stored orientation. */
typedef struct chg_fc_panel_s {
    const void *pin;
    size_t ld;
    const int *ipiv0;
    const void *t;
} chg_fc_panel_t;

/* Panel k applied to the CPU's blocks blk[0 .. nblk) (each current with panels 0 .. k - 1). */
void chg_fc_apply(chg_fact_t *f, size_t k, const size_t *blk, size_t nblk,
                  const chg_fc_panel_t *p);

/* The CPU's block j, all its rows, home to the caller's matrix (LU and QR right of the last
 * panel). */
void chg_fc_home(chg_fact_t *f, size_t j);

#endif
