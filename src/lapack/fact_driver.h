/*
 * fact_driver.h -- STUB of the factorizations' driver (fact_driver.c). The real driver (one loop
 * for Cholesky, LU and QR: CPU panels, device updates, look-ahead) replaces this file and
 * fact_driver.c as they are; until then both entry points run the CPU LAPACK on the call's view,
 * so that the front ends build and their tests run. Nothing else may be added here: the front
 * ends use exactly these two declarations.
 */
#ifndef CHG_LAPACK_FACT_DRIVER_H
#define CHG_LAPACK_FACT_DRIVER_H

#include "lapack/fact.h"

/* A checked call (m, n > 0) on host memory, on the handle's devices. */
clhgemm_status_t chg_fact_run_host(clhgemm_handle_t h, chg_fact_call_t *c);

/* A checked call (m, n > 0) on a device buffer (c->buf, c->off, c->lda) on c->queue's device;
 * returns when the result is final. */
clhgemm_status_t chg_fact_run_device(chg_fact_call_t *c);

#endif
