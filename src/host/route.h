/*
 * route.h -- where a host-memory call runs (route.c owns it): OpenBLAS on the calling thread,
 * or the devices (with the CPU share that host/share.c may add), decided per call by a cost
 * model in constant time and without the handle's lock:
 *
 *   CPU      flops / OpenBLAS's rate at the call's size (the tuning entry's "route" table from
 *            clhgemm-tune, else measured once per process at a few sizes, chg_cpu_blas_rates)
 *   devices  the per-call latency + the pipeline's time: the kernel (the entry's kernel-rate
 *            table by shape, else the device rate scaled by how well the output fills the
 *            device), the host->device operands and C (beta != 0), C back, and the pack
 *            threads' copies, overlapped the more the larger the call (the entry's measured
 *            host-call rates replace all of it where clhgemm-tune stored them)
 *
 * CLHGEMM_ROUTE=auto|device|cpu (read when the handle is created) overrides; with no OpenBLAS
 * every call goes to the devices, and where every device is itself a CPU (PoCL) auto sends every
 * call to OpenBLAS (the devices would be the same cores, slower). CLHGEMM_VERBOSE=1 logs each
 * decision with both times.
 */
#ifndef CHG_HOST_ROUTE_H
#define CHG_HOST_ROUTE_H

#include "host/handle.h"

/* A call as the model sees it (column-major view; elements of the operands read and of C). */
typedef struct chg_route_call_s {
    chg_precision_t prec;
    const char *name;
    size_t m, n, k;
    double flops;
    double in_elems;            /* A and B elements the devices would read */
    double c_elems;             /* C elements written (and read when beta != 0) */
    int beta_zero;
    double snapshot_bytes;      /* what the caller copies on the pack threads before the devices
                                 * may write (the BLAS drop-in's copy of C: blas/snapshot.h),
                                 * priced on the device side */
    int snapshot_fresh;         /* that copy goes to a fresh buffer: 8x its cost (first touch) */
} chg_route_call_t;

/* The handle's routing figures, set by chg_route_init when it is created. */
clhgemm_status_t chg_route_init(clhgemm_handle_t h);

/* 1 when the call should run on OpenBLAS on the calling thread, 0 for the devices. */
int chg_route_to_cpu(clhgemm_handle_t h, const chg_route_call_t *rc);

/* A call of fewer flops than this many per second of the devices' latency goes to the CPU
 * without asking for OpenBLAS's rates (every CPU does better than 1 GFLOP/s on such a product). */
#define CHG_ROUTE_TINY_RATE 1e9
/* CLHGEMM_VERBOSE's level as handle creation read it (read once per process). */
extern atomic_int chg_route_verbose_;

/* chg_route_to_cpu's answer where it is 1 for sure and nothing is to be logged: CLHGEMM_ROUTE=cpu,
 * or auto with OpenBLAS there and devices that are CPUs themselves or a product too small for their
 * latency. 0: ask chg_route_to_cpu. Inline, so that a small call builds no chg_route_call_t. */
static inline int chg_route_surely_cpu(clhgemm_handle_t h, double flops)
{
    const chg_route_model_t *r = &h->route;
    if (r->mode == ROUTE_CPU) return 1;
    return r->mode == ROUTE_AUTO && r->cpu_ok && (!r->any_gpu || flops < r->latency * CHG_ROUTE_TINY_RATE) &&
           atomic_load_explicit(&chg_route_verbose_, memory_order_relaxed) < 1;
}
/* The model's answer whatever CLHGEMM_ROUTE says (the BLAS drop-in, which keeps its own
 * CLHGEMM_BLAS_OFFLOAD, asks it and then calls a device-routed handle). */
int chg_route_model_cpu(clhgemm_handle_t h, const chg_route_call_t *rc);


/* The model's two times (seconds) for the call; exposed for the tests and the benchmark. */
double chg_route_cpu_time(clhgemm_handle_t h, const chg_route_call_t *rc);
double chg_route_device_time(clhgemm_handle_t h, const chg_route_call_t *rc);

#endif
