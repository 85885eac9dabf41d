/*
 * trsm_blocked.h -- host-memory TRSM's blocked path (trsm_blocked.c owns it): what a call takes
 * when A with three strips of B does not fit the devices (host/trsm_strips.h), or when
 * CLHGEMM_TRSM_PANEL=openblas|ref asks for host panels.
 *
 * Per diagonal block in dependency order (core/trsm_subst.h chg_trsm_step): the block's panel of B
 * solved in place, then the rows (side left) or columns (right) of B not solved yet updated by
 * clhgemm_{s,d}gemm on the same handle -- C := -T(rest, blk)*X_blk + beta*C, a column-major
 * GEMM on sub-matrices of the caller's A and B, which the host GEMM routes, plans and tiles as
 * any other (device memory limits, several devices, the CPU share). Two ways, the cost model's
 * choice (host/route.h's times summed over the steps; CLHGEMM_VERBOSE=1 prints both):
 *
 *   host panels    blocks of nb (core/trsm_subst.h chg_trsm_nb) solved on this thread by OpenBLAS
 *                  (the library's substitution without it), with look-ahead: the next block's
 *                  rows are updated first, then a helper thread runs the rest of the update on
 *                  the devices while this thread solves the next panel (CLHGEMM_TRSM_LOOKAHEAD=0:
 *                  one after the other)
 *   device panels  blocks of the largest multiple of nb whose strips fit every device
 *                  (chg_trsm_strips_order), each panel a TRSM of its own by strips; fewer and
 *                  larger updates, so that B crosses the bus k / order times instead of k / nb
 *
 * CLHGEMM_TRSM_PANEL=device forces device panels where an order fits, openblas|ref host panels.
 */
#ifndef CHG_HOST_TRSM_BLOCKED_H
#define CHG_HOST_TRSM_BLOCKED_H

#include "core/l3_map.h"
#include "host/handle.h"

/* B := alpha * inv(op(A)) * B (or B * inv(op(A))) of a checked call (sh, column-major view,
 * m, n > 0, alpha != 0) by the blocked path; the status of the first update or panel that
 * failed (B then partly solved), else CLHGEMM_SUCCESS. */
clhgemm_status_t chg_trsm_blocked(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                                  const double alpha[2], const void *A, size_t lda, void *B,
                                  size_t ldb);

#endif
