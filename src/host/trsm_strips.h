/*
 * trsm_strips.h -- host-memory TRSM that moves B over the bus once (trsm_strips.c owns it).
 *
 * The right-hand sides of a TRSM are independent: the columns of B for side left, its rows for side
 * right (column-major view). When A, its inverted diagonal blocks and three strips of B fit every
 * device's memory budget (chg_handle_dev_t.mem_limit: CLHGEMM_DEVICE_MEMORY_LIMIT or the handle
 * option, else 80% of the device), each device gets A's triangle once through its pinned
 * staging, inverts its diagonal blocks (core/trsm_dev.h), and then takes strips of right-hand
 * sides as its slots free up (dynamically, not round-robin): the pack threads copy the strip
 * from B into pinned memory, h2d DMA, the device solve (core/trsm_dev.h's GEMMs), d2h DMA, the
 * pack threads copy it home. A lost device's strips not home are taken by the others, or
 * solved on the CPU when none is left (trsm_strips.c says how).
 */
#ifndef CHG_HOST_TRSM_STRIPS_H
#define CHG_HOST_TRSM_STRIPS_H

#include "core/l3_map.h"
#include "host/handle.h"

/* Solves B := alpha * inv(op(A)) * B (or B * inv(op(A))) of a checked call (sh, column-major
 * view, m, n > 0, alpha != 0) by strips, under the handle's call lock. Returns 0 when the
 * handle has no device, the strips do not fit some device, or a device refused the memory at
 * setup (B untouched: the caller runs the blocked path); 1 when it ran, with the call's status
 * in *st (a lost device does not fail it: host/fault.h). */
int chg_trsm_strips(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                    const double alpha[2], const void *A, size_t lda, void *B, size_t ldb,
                    clhgemm_status_t *st);

/* The largest multiple of unit below k such that a TRSM of that order with rhs right-hand sides
 * would run by strips on every device of the handle (what chg_trsm_strips checks: the order's A,
 * inverted blocks, strips of at least min(rhs, 256) and workspace within each device's budget); 0
 * when none does (or the handle has no device). The blocked host path (host/trsm_entry.c) solves
 * its diagonal blocks of that order by strips. */
size_t chg_trsm_strips_order(clhgemm_handle_t h, chg_precision_t prec, int cplx, size_t k,
                             size_t rhs, size_t unit);

#endif
