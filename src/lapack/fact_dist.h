/*
 * fact_dist.h -- where a factorization's blocks live (fact_dist.c owns it): the distribution of
 * the view's block columns over the devices, each device's storage of the blocks it owns, and
 * the buffers it needs beside them. The driver (fact_driver.c), the device updates
 * (fact_update.c) and the transfers (fact_xfer.c) all read this one record of the call.
 *
 * The view's n columns are cut into block columns of nb (the last narrower); block j belongs to
 * device owner[j], at local columns lcol[j] .. lcol[j] + width of that device's storage. The
 * distribution is the static 1-D block-cyclic one of "Enabling and Scaling Matrix Computations
 * on Heterogeneous Multi-Core and Multi-GPU Systems" (Song, Tomov, Dongarra): block j on device
 * j mod ndev, so that every device keeps a share of the trailing matrix to the end (and with
 * the CPU's share, fact_cpu.h, one block of every N on the CPU). With one device it is the
 * whole matrix in its own layout; on device buffers it is the caller's buffer itself.
 *
 * A device's storage has the view's orientation: element (i, jl) of its local view at
 * off + i + jl * ld (column-major), or off + i * ld + jl where the view is stored transposed
 * (fact.h): the caller's rows then stay rows, and every operation addresses them through the
 * core's row-major mapping. Panels of other owners (several devices) arrive in pan[k % 2],
 * the view's rows k * nb .. m of panel k at row 0, in the same orientation.
 */
#ifndef CHG_LAPACK_FACT_DIST_H
#define CHG_LAPACK_FACT_DIST_H

#include <stdatomic.h>

#include "base/trace.h"
#include "host/handle.h"
#include "lapack/fact.h"

#define CHG_FACT_PANELS 2 /* panel buffers per device: step k's is k % 2 */

/* A matrix on one device: element (i, j) of the view at off + i + j * ld, or off + i * ld + j
 * when trans. */
typedef struct chg_dview_s {
    cl_mem buf;
    size_t off, ld;
    int trans;
} chg_dview_t;

static inline chg_dview_t chg_dview_at(chg_dview_t v, size_t i, size_t j)
{
    v.off += v.trans ? i * v.ld + j : i + j * v.ld;
    return v;
}

/* One device's part of a call. */
typedef struct chg_fdev_s {
    int index;                 /* the handle's device index (0 on device buffers) */
    chg_handle_dev_t *hd;            /* the handle's device; NULL on device buffers */
    cl_context ctx;
    const chg_device_t *dev;
    cl_command_queue qk, qh, qd; /* kernels, panels up, down (the handle's, or the caller's) */
    cl_command_queue qu;       /* the bulk upload of its blocks (its own: never behind a panel) */
    chg_dview_t mat;           /* its blocks (host memory), or the caller's buffer */
    size_t ncols;              /* local columns (of the largest window) */
    int own_mat;
    cl_mem pan[CHG_FACT_PANELS]; /* several devices: other owners' panels */
    size_t pan_ld;
    cl_mem col;                /* a transposed view's LU/QR panel, column-major (m x nb) */
    cl_mem v, t, w;            /* QR: V with its unit diagonal (m x nb); every panel's T (nb x nb
                                * each, panel k's at k nb^2); W (nb x ncols) */
    cl_mem piv;                /* LU: the pivots so far, 0-based rows of the view */
    cl_event pan_free[CHG_FACT_PANELS]; /* the kernel queue's last use of pan[i] (its panel's
                                * trailing update): the next panel into it waits for that */
    cl_event col_free;         /* the kernel queue's last use of col (its transpose into place) */
    cl_mem stage[2];           /* out of core: earlier windows' panels on their way through */
    cl_event ring[4];          /* the last DMA out of each pinned region of their stream (the
                                * regions are free again once it has ended) */
    size_t ring_reg;           /* the regions' size in the last piece */
    size_t nblk;               /* blocks it owns */
    struct upl_s *uploader;    /* its upload thread (fact_xfer.c) */
    int lost;                  /* a command of it failed in this call (err) */
    cl_int err;
} chg_fdev_t;

/* The call's distribution and residency. */
typedef struct chg_fact_s {
    chg_fact_call_t *c;
    clhgemm_handle_t h;        /* NULL on device buffers */
    size_t es, nb, nblk;       /* element size, panel width, block columns of the view */
    size_t kmax, nsteps;       /* min(m, n); panels: ceil(kmax / nb) */
    /* Residency: the devices hold the blocks of one window [w0, w1) at a time; wblk blocks per
     * window (a multiple of the device count; nblk: the whole matrix, in core). Out of core,
     * the panels of earlier windows stream in from the caller's matrix through stage[2] on each
     * device, stage_blk panels at a time (fact_xfer.c). */
    size_t wblk, w0, w1, stage_blk;
    int ndev;
    chg_fdev_t *fd;
    int *owner;                /* block -> device, or cpu (the CPU's share) */
    /* The CPU's share (fact_cpu.h; host memory, in core): one block of every cpu_every on the
     * CPU cores, owner cpu (= ndev; -1: no share), held in cmat (the column-major view's rows
     * 0 .. m of those blocks, ld m, block j at local column lcol[j]) and updated there with
     * the CPU BLAS; cpu_ncols its local columns. cvw, cw: QR's explicit V and W there. */
    int cpu;
    size_t cpu_every, cpu_ncols;
    void *cmat, *cvw, *cw;
    size_t cv_step;            /* the panel whose V cvw holds (+1; 0 none) */
    size_t *lcol;              /* block -> first local column on its owner */
    /* Per block: panels applied to it on its device (a block is current at step k when k
     * panels have been applied), and whether its upload has arrived (1; set by the driver
     * once the upload's last DMA is complete). */
    size_t *cur;
    unsigned char *arrived;
    /* Uploads (host memory), per block: the last DMA's event, published by the uploader
     * thread of the owner (fact_xfer.c) once enqueued; ups counts the published blocks. */
    cl_event *up_ev;
    atomic_size_t *ups;        /* per device */
    atomic_size_t *steps;      /* per device: the steps whose updates it ran (the fault hook's
                                * count, read by its upload thread too) */
    /* CLHGEMM_FACTOR_HOLD=S (a test hook): the uploaders send each device's first two blocks,
     * then hold the rest until the driver has finished S steps (or waits for one of them), so
     * that late blocks and their catch-up are exercised deterministically. */
    size_t hold;
    atomic_size_t steps_done;
    atomic_int unhold;
    struct chg_fu_slow_s *slow; /* CLHGEMM_FACTOR_SLOW (a test hook; fact_update.h), or NULL */
    chg_trace_t *trace;        /* CLHGEMM_TRACE (host memory): panels, transfers, updates */
} chg_fact_t;

/* Queues of a device for the trace's tracks ("dev<d> <queue>"). */
enum { CHG_FQ_H2D = 0, CHG_FQ_KERNEL = 1, CHG_FQ_D2H = 2, CHG_FQ_UP = 3 };
void chg_fact_trace(const chg_fact_t *f, int d, int q, const char *name, cl_event ev);

/* err of a command of device d: CL_SUCCESS passes; anything else marks the device failed in
 * this call (the driver finishes the call without the devices: fact_rescue.h). */
cl_int chg_fact_fail(chg_fact_t *f, int d, cl_int err);
/* The injected failure (CLHGEMM_FAULT_INJECT, host memory) of device d's next command: its
 * "tiles" are the steps whose updates it has run (steps[d]). */
cl_int chg_fact_injected(const chg_fact_t *f, int d);
/* A fault hook that injects nothing: the uploads ask chg_fact_injected once per block instead
 * of the handle's per-command hook, whose count a thread of the call does not own. */
extern const chg_fault_t chg_fact_no_fault;

/* Block j's columns of the view, and its width. */
static inline size_t chg_fact_c0(const chg_fact_t *f, size_t j) { return j * f->nb; }
static inline size_t chg_fact_w(const chg_fact_t *f, size_t j)
{
    const size_t c0 = j * f->nb, n = f->c->n;
    return n - c0 < f->nb ? n - c0 : f->nb;
}

/* Device d's local view at view row i, local column jl. */
static inline chg_dview_t chg_fact_local(const chg_fact_t *f, int d, size_t i, size_t jl)
{
    return chg_dview_at(f->fd[d].mat, i, jl);
}

/* Whether block j is the CPU's. */
static inline int chg_fact_on_cpu(const chg_fact_t *f, size_t j) { return f->owner[j] == f->cpu; }

/* Block j on its owner at view row i (a device's). */
static inline chg_dview_t chg_fact_block(const chg_fact_t *f, size_t j, size_t i)
{
    return chg_fact_local(f, f->owner[j], i, f->lcol[j]);
}

/* The blocks' owners over ndev devices (block-cyclic) and, with wblk = nblk, the whole matrix
 * in core (the first window). */
clhgemm_status_t chg_fact_dist_init(chg_fact_t *f, int ndev);
/* The bytes device d needs for its storage and buffers with the present window size. */
unsigned long long chg_fact_dist_bytes(const chg_fact_t *f, int d);
/* The CPU's share: one block of every `every` (>= 2; else none) on the CPU, the rest cyclic
 * over the devices, in core (the first window). */
void chg_fact_dist_cpu(chg_fact_t *f, size_t every);
/* In core when the whole matrix fits every device's budget (avail[d] bytes), else windows as
 * wide as it allows (out of core); CLHGEMM_WORKSPACE_TOO_SMALL when not even two blocks per
 * device fit. */
clhgemm_status_t chg_fact_dist_plan(chg_fact_t *f, const unsigned long long *avail);
/* The window that starts at block w0: its blocks' local columns on their owners. */
void chg_fact_window(chg_fact_t *f, size_t w0);
void chg_fact_dist_free(chg_fact_t *f);

/* The device buffers of device d (host memory: its blocks, and on several devices its panel
 * buffers; LU's pivots; QR's V, T, W; a transposed view's column-major panel). */
cl_int chg_fact_dist_alloc(chg_fact_t *f, int d);
void chg_fact_dist_release(chg_fact_t *f, int d);

/* The panel k of the view on device d, at view row k * nb: the owner's block, else the panel
 * buffer it was sent to. */
chg_dview_t chg_fact_panel(const chg_fact_t *f, int d, size_t k);

#endif
