/*
 * calibrate.h -- what the host pipeline measures about a machine before it plans (calibrate.c
 * owns it): the pinned bus each way and the device's own copy rate (once per device, at
 * clhgemm_create), the pack threads' copy rate into pinned memory (once per handle), and the
 * GEMM kernel's rate per precision (once per device and precision, at its first call: from
 * the tuning entry's kernel-rate table when there is one, else measured; CLHGEMM_KERNEL_RATE
 * overrides it for experiments).
 */
#ifndef CHG_HOST_CALIBRATE_H
#define CHG_HOST_CALIBRATE_H

#include "host/handle.h"

/* d->h2d_bps, d->d2h_bps (pinned, a few 16-64 MiB copies) and d->dev_bps (device copies). */
cl_int chg_measure_bus(chg_handle_dev_t *d);
/* h->pack_bps: the pack threads' copy rate from pageable into pinned memory. */
void chg_measure_pack(clhgemm_handle_t h);
/* d->rate[prec], unless already known. */
void chg_measure_rate(chg_handle_dev_t *d, chg_precision_t prec);

#endif
