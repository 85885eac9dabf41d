/*
 * share.h -- the CPU's share of a host-memory GEMM (share.c owns it): how much (the split of
 * Garcia, Cuenca and Gimenez's hybrid GEMM: a slab of C's bottom rows, or column strips taken from
 * the band schedule while the devices run; CLHGEMM_CPU_SHARE / CLHGEMM_CPU_SCHED) and the OpenBLAS
 * threads that compute it beside the device drivers.
 */
#ifndef CHG_HOST_SHARE_H
#define CHG_HOST_SHARE_H

#include "host/call.h"

/* The share decided for a planned call. */
typedef struct chg_share_s {
    size_t rows;                /* CPU_SLAB: C's bottom rows on the CPU (c->m: all of it) */
    double predicted;           /* the call's predicted time with the share */
    double r_cpu;               /* OpenBLAS's rate if it was measured for the decision, else 0 */
} chg_share_t;

/* The CPU's share of call c with its plan c->pl: a slab (out->rows), strips (c->cpu_strips),
 * or none -- level-3 calls, CLHGEMM_CPU_SHARE=0, and "auto" where every device is itself a CPU
 * (PoCL would only compete with OpenBLAS for the same cores) or the split gains nothing. */
void chg_share_decide(clhgemm_handle_t h, chg_call_t *c, chg_share_t *out);

/* The strips' rates (c->cpu_rate, c->gpu_rate from the devices' plan); strips off when
 * OpenBLAS has no rate. */
void chg_share_strip_rates(chg_call_t *c, double r_cpu);

/* The CPU share's threads while the drivers run. */
typedef struct chg_share_run_s {
    chg_call_t *c;
    size_t r0, rows;            /* the slab: C's rows [r0, r0 + rows) */
    pthread_t slab_th, strips_th;
    int slab_on, strips_on;
} chg_share_run_t;

/* Starts the slab (rows of C from c->m on) and the strips (c->cpu_strips) on threads of their
 * own; a slab whose thread cannot start is computed here, before the devices. */
void chg_share_start(chg_call_t *c, size_t rows, chg_share_run_t *r);
/* Waits for them; the C elements the CPU computed are in c->cpu_elems. */
void chg_share_join(chg_share_run_t *r);

#endif
