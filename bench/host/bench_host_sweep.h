/*
 * bench_host_sweep.h -- clhgemm-bench-host --sweep (bench_host_sweep.c).
 */
#ifndef CLHGEMM_BENCH_HOST_SWEEP_H
#define CLHGEMM_BENCH_HOST_SWEEP_H

#include "common/host_common.h"

/* Runs the sweep of the options; 0 when every result checked out. */
int run_sweep(opts_t *o);

#endif
