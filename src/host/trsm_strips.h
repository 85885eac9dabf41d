/*
 * trsm_strips.h -- host-memory TRSM that moves B over the bus once (trsm_strips.c owns it).
 *
 * The right-hand sides of a TRSM are independent: the columns of B for side left, its rows for
 * side right (column-major view). When A's triangle, its inverted diagonal blocks and two strips
 * of B fit every device's memory budget (hdev_t.mem_limit: CLHGEMM_DEVICE_MEMORY_LIMIT or the
 * handle option, else 80% of the device), each device gets A's triangle once, inverts its
 * diagonal blocks (core/trsm_dev.h), and then takes strips of right-hand sides: upload on the
 * h2d queue, solve on the kernel queue (core/trsm_dev.h's GEMMs), read back on the d2h queue,
 * two strip buffers per device so that one strip's copies overlap the other's solve.
 */
#ifndef CHG_HOST_TRSM_STRIPS_H
#define CHG_HOST_TRSM_STRIPS_H

#include "core/level3.h"
#include "host/hdev.h"

/* Solves B := alpha * inv(op(A)) * B (or B * inv(op(A))) of a checked call (sh, column-major
 * view, m, n > 0, alpha != 0) by strips. Returns 0 when the strips do not fit some device, or
 * a device refused the memory before any of B was written back (B untouched: the caller runs
 * the blocked path); 1 when it ran, with the call's status in *st (on a device error after B
 * was partly written back, B may be partly solved). */
int chg_trsm_strips(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                    double alpha, const void *A, size_t lda, void *B, size_t ldb,
                    clhgemm_status_t *st);

#endif
