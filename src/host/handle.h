/*
 * handle.h -- a handle and its devices: the state every module of the host pipeline shares
 * (handle.c owns the call info and the FP64 flag; host/create.c makes and destroys a handle;
 * host/devmem.h keeps the devices' buffers).
 *
 * A handle (clhgemm_create, host/create.c) holds one chg_handle_dev_t per device: its context, its
 * in-order queues (h2d, kernel, d2h, and spares), what calibrate.c measured (pinned bandwidth
 * each way, device copy rate, kernel rate per precision), and the buffers of the last plan,
 * kept and grown across calls: device buffers by role and the pinned staging rings.
 */
#ifndef CHG_HOST_HANDLE_H
#define CHG_HOST_HANDLE_H

#include <stdatomic.h>

#include "cpu/route_calls.h"
#include "host/staging.h"
#include "tuning/tuning.h"

#define MAX_QUEUES 8

/* A lost device (host/fault.h): a part of C it had taken and not written home -- columns
 * [j0, j0 + nc) of band (tile row) ti -- to be computed again elsewhere. */
typedef struct chg_region_s {
    size_t ti, j0, nc;
} chg_region_t;
typedef struct chg_regions_s {
    chg_region_t *r;
    size_t n, cap;
} chg_regions_t;

/* CLHGEMM_FAULT_INJECT (host/fault.c, read at clhgemm_create): device `device` of the handle
 * (-1: every device) fails every command once it has finished `after` tiles. */
typedef struct chg_fault_s {
    int on, device;
    int oom;                   /* kind=oom: CL_MEM_OBJECT_ALLOCATION_FAILURE until the device's
                                * buffers have been released once (host/fault.h) */
    unsigned long long after;
} chg_fault_t;
enum { Q_H2D = 0, Q_KERNEL = 1, Q_D2H = 2 };

/* Device buffers of a call, by role. Slot counts: the A and B slice rings (raw copies from
 * staging) have NSTAGE slots; the packed B slice and Cp one each (the kernel queue is in order,
 * so the next slice's pack runs after the previous kernel); the packed A band one per band
 * buffer (two when the next band is prefetched); the compact C tile two (one tile's device-to-
 * host copy overlaps the next tile's input copy and write-back). */
#define NSTAGE 3  /* depth of the A/B slice rings: the driver runs up to this far ahead */
#define NCHUNK 8  /* C tile copies and unpacks are split into up to this many column chunks */
#define NOUT 3    /* C tiles on their way home at once (pinned staging slots) */
#define BS_SLOTS (2 * NSTAGE) /* B slices staged once for several devices (host/shared_b.h) */
enum { B_ARAW, B_BRAW, B_BPACK, B_APACK, B_CDEV, B_CP, B_COUNT };

typedef struct chg_handle_dev_s {
    int index;
    cl_device_id id;
    chg_device_t dev;
    cl_context ctx;
    cl_command_queue q[MAX_QUEUES];
    int nq;
    unsigned long long mem_limit;
    size_t sub_align;          /* bytes: where a sub-buffer may start (CL_DEVICE_MEM_BASE_ADDR_ALIGN) */
    double h2d_bps, d2h_bps;   /* measured pinned bandwidths */
    double dev_bps;            /* measured device memory traffic rate (copy: read + write) */
    double rate[2];            /* measured kernel rate per precision (flop/s), 0 = not yet */
    /* Per-call resources (kept between calls while large enough). */
    cl_mem buf[B_COUNT][NSTAGE];
    size_t buf_bytes[B_COUNT];
    int buf_slots[B_COUNT];
    chg_pinned_t st_a[NSTAGE], st_b[NSTAGE]; /* slice staging rings */
    chg_pinned_t st_cin;                     /* C tile on its way in (beta != 0) */
    chg_pinned_t st_cout[NOUT];              /* C tiles on their way home */
    chg_pinned_t st_bs[BS_SLOTS];            /* B slices shared by the devices of a call, when
                                              * this device is the first of it (host/shared_b.h) */
    /* A lost device (host/fault.h): an OpenCL error during a call marks it; the call gives its
     * unfinished regions to the other devices or the CPU, and the handle drops it after the
     * call (chg_handle_drop_lost). */
    int lost;
    cl_int lost_err;
    chg_regions_t redo;                   /* its regions of the call in progress */
    unsigned long long tiles_done;        /* tiles written back over the handle's life */
    /* Out of device memory during a call (host/fault.h, chg_device_short): its buffers (and
     * idle handles' on the same device) were released and it tries again once in this call. */
    int short_in_call;
    int short_warned;                     /* the one stderr line was printed */
    unsigned long long releases;          /* its device buffers released for memory, ever */
} chg_handle_dev_t;


/* Routing (host/route.c): CLHGEMM_ROUTE, and the model's figures. */
enum { ROUTE_AUTO = 0, ROUTE_DEVICE = 1, ROUTE_CPU = 2 };
typedef struct chg_route_model_s {
    int mode;                  /* ROUTE_* */
    int cpu_ok;                /* OpenBLAS is there */
    int any_gpu;               /* some device is not itself a CPU */
    double latency;            /* fixed cost of a host call on the devices (s) */
    double dev_rate[2];        /* the devices' kernel rate on large products (flop/s) */
    int have_kr[2];            /* kernel-rate table of device 0's tuning entry */
    chg_tuning_prec_t kr[2];
    double h2d, d2h, pack;     /* bus rates (all devices) and the pack threads' rate (B/s) */
    /* OpenBLAS's rates at chg_cpu_rate_size (the tuning entry's, else measured when first
     * needed; published by cpu_known) */
    _Atomic double cpu_rate[2][CHG_CPU_RATE_SIZES];
    atomic_int cpu_known[2];
} chg_route_model_t;

/* CPU share (host/share.c): mode and scheduler. */
enum { CPU_OFF = 0, CPU_AUTO = 1, CPU_FIXED = 2 };
enum { CPU_SLAB = 0, CPU_STRIPS = 1 };

struct clhgemm_handle_s {
    /* The devices in use: devs[0..ndev). A lost device leaves them after the call that lost
     * it (chg_handle_drop_lost): the planner, the router and the share see only these. Both are
     * atomic because a call routed to the CPU reads them without the call lock; an array once
     * published is never written again (a new one replaces it, the old is kept in `retired`
     * until destroy), and each holds ndev_all entries, so a reader's index stays valid. */
    _Atomic int ndev;
    chg_handle_dev_t *_Atomic devs;
    _Atomic int fp64_all;      /* every device in devs[0..ndev) runs FP64 (chg_handle_fp64_ok) */
    int ndev_all;              /* devices opened at clhgemm_create */
    chg_handle_dev_t **retired; /* arrays replaced by chg_handle_drop_lost (ndev_all at most) */
    int nretired;
    chg_fault_t fault;         /* CLHGEMM_FAULT_INJECT */
    chg_pool_t *pool;
    double pack_bps;           /* measured CPU copy rate into pinned staging */
    double pack_seen_bps;      /* what the pack threads reached in the last large call, 0: none */
    size_t last_bm, last_bn, last_bk; /* the last plan's tile (0: none), kept while about as good */
    int last_amode;
    struct chg_plan_cache_s *plans; /* plans of recent call shapes (host/plan.c) */
    /* CPU share (cpu/share_blas.c): mode, fixed fraction, scheduler, OpenBLAS threads, and the
     * slowdown the share causes the pipeline (gamma of Garcia, Cuenca and Gimenez's model) */
    int cpu_mode;              /* CPU_OFF, CPU_AUTO, CPU_FIXED */
    double cpu_fixed;
    int cpu_sched;             /* CPU_SLAB or CPU_STRIPS */
    int cpu_threads;
    double cpu_gamma;
    char *trace_path;
    const char *trace_origin;  /* what set it: "CLHGEMM_TRACE" or the option, for its warning */
    chg_route_model_t route;
    pthread_mutex_t call_lock; /* one call at a time per handle */
    pthread_mutex_t info_lock; /* guards `last` (a call routed to the CPU takes no call lock) */
    clhgemm_call_info_t last;
    _Atomic int last_is_cpu;   /* `last` is the record of a CPU-routed call (chg_handle_set_last) */
    struct clhgemm_handle_s *reg_next; /* the process's handles (devmem.c chg_handle_register) */
};

/* The call info of the call just made (clhgemm_last_call_info), under info_lock. */
void chg_handle_set_last(clhgemm_handle_t h, const clhgemm_call_info_t *info);
/* The same for a call routed to the CPU: {cpu_fraction 1, nothing else}; it is not timed, and
 * after another CPU-routed call it writes nothing and takes no lock (a small call costs what
 * OpenBLAS's does: two clock reads and a lock were ~40% of an 8 x 8 x 8 product). Inline: that
 * case is one load; chg_handle_set_last_cpu_slow writes the record. */
void chg_handle_set_last_cpu_slow(clhgemm_handle_t h);
static inline void chg_handle_set_last_cpu(clhgemm_handle_t h)
{
    if (!atomic_load_explicit(&h->last_is_cpu, memory_order_relaxed)) chg_handle_set_last_cpu_slow(h);
}

/* Every device of the handle runs FP64 (what a double-precision call needs): one load of the
 * flag that clhgemm_create and chg_handle_drop_lost keep (chg_handle_fp64_update). */
static inline int chg_handle_fp64_ok(clhgemm_handle_t h, chg_precision_t prec)
{
    return prec != CHG_F64 || atomic_load_explicit(&h->fp64_all, memory_order_relaxed);
}
/* Sets fp64_all from devs[0..ndev) (after the devices are opened, and when lost ones leave). */
void chg_handle_fp64_update(clhgemm_handle_t h);

#endif
