/*
 * fact_driver.h -- the factorizations' driver (fact_driver.c owns it): one loop for Cholesky, LU
 * and QR over the step interface of fact_panel.h (the CPU's part), fact_update.h (the devices')
 * and fact_xfer.h (what moves), on the blocks that fact_dist.h places.
 *
 * Per step k: the panel's block, brought up to date by the previous step's look-ahead, comes
 * down to pinned memory; the CPU LAPACK factors it; the factors go up to every device that
 * updates with them (and, on host memory, the finished panel goes home into the caller's matrix
 * by the pack threads while the loop goes on); the next panel's block is updated first and sent
 * down at once, so that the CPU factors it while the devices update the rest of their trailing
 * blocks. On host memory every device's blocks are uploaded by a thread of its own from the
 * call's start; a block that has not arrived when its update is due is left out and, once it
 * arrives, gets every panel it missed in one update (one device), or is waited for (several).
 *
 * The matrix is the caller's from the first write home on: a call refused before that (memory,
 * a failed setup) leaves it untouched.
 */
#ifndef CHG_LAPACK_FACT_DRIVER_H
#define CHG_LAPACK_FACT_DRIVER_H

#include "device/device.h"
#include "lapack/fact.h"

/* A checked call (m, n > 0) on host memory, on the handle's devices, under its call lock.
 * CLHGEMM_WORKSPACE_TOO_SMALL when the matrix does not fit some device (nothing written; the
 * caller may run it on the CPU instead). */
clhgemm_status_t chg_fact_run_host(clhgemm_handle_t h, chg_fact_call_t *c);

/* A checked call (m, n > 0) on a device buffer (c->buf, c->off, c->lda) on c->queue's device;
 * returns when the result is final. */
clhgemm_status_t chg_fact_run_device(chg_fact_call_t *c);

/* The panel width of a call on this device: c->nb when set (clhgemm-tune's candidates), else
 * CLHGEMM_FACTOR_NB (a malformed value warns and falls back), else the width of the device's
 * tuning entry for the routine and precision (chg_tuned_factor_nb: clhgemm-tune --factor
 * measured it), else the built-in default by routine and device kind; at most the matrix's
 * min(m, n) rounded up to 16. CLHGEMM_VERBOSE=1 says which and from where. */
size_t chg_fact_nb(const chg_device_t *dev, const chg_fact_call_t *c);

#endif
