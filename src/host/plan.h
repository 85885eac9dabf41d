/*
 * plan.h -- the planner of a host-memory call (plan.c owns it): how many devices run it (the
 * first d of the handle), one tile shape for them -- C tiles bm x bn kept resident on a device
 * over the k loop, k walked in slices of bk -- and how a device holds A, chosen by a time model
 * (the out-of-core GEMM paper's bound plus what the H100 traces showed matters) within the
 * device-memory and pinned-memory budgets. A device beyond the first adds its start, its share of
 * the fill and drain through the pack threads all devices share, and up to a tile of tail
 * imbalance, so a mid-size call may be faster on fewer devices (CLHGEMM_PLAN_DEVICES=all: every
 * device).
 *
 * Inputs of the model (chg_pctx_t): the call's shape, the devices' kernel rate, bus rates each way,
 * the pack threads' rate, device copy rate, compute units and memory, and the level-3
 * constraints. The steady state is bound by the slowest of kernel, bus each way and the pack
 * threads (a soft maximum); on top come the bursts of A traffic when a band starts without
 * prefetch, the pipeline's fill (first slice) and drain (last tile home), the tail imbalance
 * between devices and a fixed cost per k step. CLHGEMM_VERBOSE=1 prints every term.
 */
#ifndef CHG_HOST_PLAN_H
#define CHG_HOST_PLAN_H

#include "host/handle.h"

/* How a device holds A (the operand shared by the tiles of one tile row, a "band").
 *   AMODE_STREAM    A slices are packed per tile, like B (least device memory).
 *   AMODE_RESIDENT  the packed A band stays on the device while its tiles are computed; the
 *                   first tile of every band loads it (a burst of A traffic at each band start).
 *   AMODE_PREFETCH  two band buffers: while a band's tiles run, the next band's A slices are
 *                   loaded a few per step, so only each device's first band pays the burst. */
enum { AMODE_STREAM = 0, AMODE_RESIDENT = 1, AMODE_PREFETCH = 2 };

/* Device counts whose model times a plan keeps for the log. */
#define CHG_PLAN_NDEV_LOG 8
extern const char *const chg_amode_name[]; /* "streamed", "resident", "resident+prefetch" */

typedef struct chg_plan_s {
    size_t bm, bn, bk;     /* tile extents */
    size_t mt, nt, kt;     /* tiles along m, n and k slices */
    int amode;             /* AMODE_* */
    double predicted;      /* model time (s) */
    int kg;                /* k slices per kernel launch (chg_pctx_t.kgroup) */
    int ramp;              /* parts of a device's first k slice (chg_plan_ramp) */
    /* Devices the plan runs on: the first ndev of the handle (chg_plan_call's choice), and the
     * model's best time with each count d = 1 .. CHG_PLAN_NDEV_LOG (t_ndev[d - 1]; 0: not
     * evaluated or nothing fits), for CLHGEMM_VERBOSE's "why". */
    int ndev;
    double t_ndev[CHG_PLAN_NDEV_LOG];
} chg_plan_t;

typedef struct chg_pctx_s {
    size_t m, n, k, es;
    int beta_zero;
    size_t tile_m, tile_n, tile_k;  /* kernel tile multiples */
    unsigned long long mem;         /* smallest device budget */
    unsigned long long pinned;      /* page-locked host memory the staging may take, all devices */
    unsigned long long max_alloc;
    double rate, h2d, d2h, pack;    /* totals over devices for rate/h2d/d2h; pack shared */
    double dev;                     /* device memory traffic rate (slowest device) */
    double step_cost;               /* fixed cost of one k step (launches, copies' latency) */
    unsigned cus;                   /* fewest compute units of the devices */
    int ndev;                       /* devices modelled: chg_plan_context's, all of the handle's;
                                       chg_plan_narrow's, its first ndev */
    int share_b;                    /* the ndev devices stage each B slice once (host/shared_b.h):
                                       bands walked together pack B once per ndev bands */
    int prec;                       /* chg_precision_t */
    int all_devices;                /* CLHGEMM_PLAN_DEVICES=all: no choice of the device count */
    /* Level-3 calls (zero for GEMM): segs k ranges of k each (SYR2K: 2); tiles spanning all of
     * C's rows (fix_m) or columns (fix_n: TRMM in place); k slices as long as the tile's rows
     * (square 1) or columns (square 2: a symmetric operand's diagonal blocks are then the
     * squares on its diagonal); no prefetch of the next band (TRMM). */
    int segs, fix_m, fix_n, square, no_prefetch;
    /* A complex call (C, Z): es and the tiles in complex elements, the packed A twice its
     * tile's elements, four real flops per complex multiply-add (core/blocks.h) */
    int cplx;
    /* k slices one kernel launch covers in a tile whose A is resident (CLHGEMM_KGROUP,
     * 1..NSTAGE-1, default 2): each launch after a tile's first re-reads and re-writes its Cp;
     * the slices of a group are packed contiguously along k, so one launch runs over all of
     * them. At most NSTAGE - 1 so that the slice rings still run a group ahead of the kernel
     * queue (drive()). */
    int kgroup;
    /* A device's first k slice is loaded and run in parts, so that the first kernel starts
     * after a part of it arrived: CLHGEMM_RAMP's count (1: whole), 0 (unset): chg_plan_ramp's
     * choice per plan shape. */
    int ramp;
} chg_pctx_t;

/* The model's terms, for CLHGEMM_VERBOSE's "why". */
typedef struct chg_pterms_s {
    double compute, h2d, d2h, pack;  /* steady-state totals; the largest binds */
    double devcopy;                  /* kernel-queue time of pack kernels, Cp accumulation and
                                        write-back (device memory traffic), added to compute */
    double burst, fill, drain, imbalance, steps;
    double setup;                    /* the devices after the first: a driver each to start */
    double total;
} chg_pterms_t;

/* k slices of a plan: ceil(k / bk) per segment. */
static inline size_t chg_plan_kt(const chg_pctx_t *c, size_t bk)
{
    return (size_t)CHG_MAX(c->segs, 1) * chg_ceil_div(c->k, bk);
}

/* The model's inputs for a call of h (m x n x k, precision, beta = 0 or not) with the level-3
 * structure st (all zero: GEMM; segs: 2 for SYR2K's two products): the devices' slowest
 * common denominator, measured rates (the kernel rate measured now if not yet), the pinned
 * budget (CLHGEMM_PINNED_LIMIT), CLHGEMM_KGROUP and CLHGEMM_RAMP. */
void chg_plan_context(clhgemm_handle_t h, chg_precision_t prec, size_t m, size_t n, size_t k,
                      int beta_zero, const chg_struct_t *st, int segs, chg_pctx_t *pc);

/* The same inputs for the first d devices of h only (1 <= d <= pc->ndev): the kernel rate and
 * bus totals over those, their common denominators (tiles, memory, compute units). */
void chg_plan_narrow(clhgemm_handle_t h, const chg_pctx_t *pc, int d, chg_pctx_t *out);

/* CLHGEMM_PLAN_DEVICES=all|auto (validated; default auto): 1 when every device of the handle
 * must run each call (tests and benchmarks measuring the scaling over devices). */
int chg_plan_all_devices(void);

/* The plan of a call: CLHGEMM_TILE if set (experiments and tests), else the model's best, with
 * hysteresis against the handle's last plan (kept unless a new one is predicted 3% faster; a
 * constrained level-3 plan neither uses nor sets it). The device count is chosen with it: the
 * call is planned on the first d devices for d = 1 .. pc->ndev and the fastest prediction wins
 * (more devices only when at least 3% faster: each holds its own buffers and staging); with
 * pc->all_devices only d = pc->ndev. A call of the same shape (and the same devices and
 * CLHGEMM_PLAN_DEVICES) as one of the handle's last 16 gets that call's plan again. Returns 1
 * when a plan fits; out->ndev is the count, and the drivers run on devices 0 .. out->ndev - 1. */
int chg_plan_call(clhgemm_handle_t h, const chg_pctx_t *pc, chg_plan_t *out);

/* Frees the handle's memo of plans (clhgemm_destroy). */
void chg_plan_cache_free(clhgemm_handle_t h);

/* Model time of a plan; out (may be NULL) receives its terms. */
double chg_plan_time(const chg_pctx_t *c, size_t bm, size_t bn, size_t bk, int amode, chg_pterms_t *out);

/* Parts of a device's first k slice for a plan of tile (bm, bn, bk): CLHGEMM_RAMP's count, else
 * the model's (the first slice's time against a fixed cost per part). */
int chg_plan_ramp(const chg_pctx_t *c, size_t bm, size_t bn, size_t bk);

/* Column pieces of a device's final tile (rows x cols, kernel tiles tile_m x tile_n): 4 or 2
 * when each piece still gives every compute unit two work-groups, so that the pieces' trips
 * home overlap the remaining kernels; 1 when A is streamed (each piece would move the tile's
 * A again). The model and the driver both use it. */
int chg_final_pieces(size_t rows, size_t cols, size_t tile_m, size_t tile_n, unsigned cus, int amode);

/* CLHGEMM_VERBOSE=1: the plan of `name` (pc: chg_plan_context's, all the devices) and every term
 * of its model on the plan's devices ("why"), with the time each device count would take. */
void chg_plan_log(clhgemm_handle_t h, const chg_pctx_t *pc, const chg_plan_t *pl, const char *name);

#endif
