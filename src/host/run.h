/*
 * run.h -- one checked host-memory call through the pipeline (run.c owns it): under the
 * handle's call lock, the plan (host/plan.h), the CPU's share (host/share.h), the band
 * schedule (host/sched.h), a driver per device (host/driver.h: the caller's thread drives
 * device 0) beside the share's threads, and the call info.
 */
#ifndef CHG_HOST_RUN_H
#define CHG_HOST_RUN_H

#include "host/call.h"

/* Runs call *cp (checked, operands in the column-major view, k > 0, alpha != 0; the plan and
 * the shared state are filled here). */
clhgemm_status_t chg_run_call(clhgemm_handle_t h, const chg_call_t *cp);

#endif
