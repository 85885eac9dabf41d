/*
 * driver.h -- one device's driver for one host-memory call (driver.c owns it): it takes tiles
 * from the band schedule until none is left, and runs each through the steps of host/tile.h
 * in the order that keeps the kernel queue fed: per k slice the A and B slices (the device's
 * very first slice in CLHGEMM_RAMP parts, each launched as soon as it is in), one kernel
 * launch per group of CLHGEMM_KGROUP slices where the tile's A is resident, the next band's A
 * prefetched about one slice per step, the tile's C input spread over the steps and earlier
 * tiles unpacked for half a step's kernel time; then the write-back, and the copies home later.
 */
#ifndef CHG_HOST_DRIVER_H
#define CHG_HOST_DRIVER_H

#include "host/call.h"

/* Drives device d through call c; the call's first error stops every driver at its next tile.
 * Everything enqueued is finished before it returns. */
clhgemm_status_t chg_drive(chg_call_t *c, chg_handle_dev_t *d);

#endif
