/*
 * fact_dist.c -- the distribution of a factorization's blocks and the buffers each device
 * holds (fact_dist.h).
 */
#include "lapack/fact_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/fault.h"
#include "host/staging.h"

clhgemm_status_t chg_fact_dist_init(chg_fact_t *f, int ndev)
{
    const chg_fact_call_t *c = f->c;
    f->es = chg_elem_size(c->prec);
    f->kmax = c->m < c->n ? c->m : c->n;
    f->nblk = chg_ceil_div(c->n, f->nb);
    f->nsteps = chg_ceil_div(f->kmax, f->nb);
    f->ndev = ndev;
    f->fd = calloc((size_t)ndev, sizeof *f->fd);
    f->owner = calloc(f->nblk, sizeof *f->owner);
    f->lcol = calloc(f->nblk, sizeof *f->lcol);
    f->cur = calloc(f->nblk, sizeof *f->cur);
    f->arrived = calloc(f->nblk, 1);
    f->up_ev = calloc(f->nblk, sizeof *f->up_ev);
    f->ups = calloc((size_t)ndev, sizeof *f->ups);
    f->steps = calloc((size_t)ndev, sizeof *f->steps);
    if (!f->fd || !f->owner || !f->lcol || !f->cur || !f->arrived || !f->up_ev || !f->ups ||
        !f->steps) {
        chg_fact_dist_free(f);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    for (int d = 0; d < ndev; d++) {
        atomic_init(&f->ups[d], 0);
        atomic_init(&f->steps[d], 0);
    }
    atomic_init(&f->steps_done, 0);
    atomic_init(&f->unhold, 0);
    for (size_t j = 0; j < f->nblk; j++) f->owner[j] = (int)(j % (size_t)ndev);
    f->cpu = -1;
    f->wblk = f->nblk;
    f->stage_blk = 0;
    chg_fact_window(f, 0);
    return CLHGEMM_SUCCESS;
}

void chg_fact_dist_cpu(chg_fact_t *f, size_t every)
{
    f->cpu = every >= 2 ? f->ndev : -1;
    f->cpu_every = f->cpu >= 0 ? every : 0;
    size_t next = 0; /* the devices' blocks stay cyclic among themselves */
    for (size_t j = 0; j < f->nblk; j++)
        f->owner[j] = f->cpu >= 0 && j % every == every - 1 ? f->cpu
                                                           : (int)(next++ % (size_t)f->ndev);
    for (int d = 0; d < f->ndev; d++) f->fd[d].ncols = 0;
    chg_fact_window(f, 0);
}

void chg_fact_window(chg_fact_t *f, size_t w0)
{
    f->w0 = w0;
    f->w1 = w0 + f->wblk < f->nblk ? w0 + f->wblk : f->nblk;
    size_t used[64] = {0}; /* local columns per device so far (at most 64 devices) */
    for (size_t j = w0; j < f->w1; j++) {
        const int d = f->owner[j];
        f->lcol[j] = used[d];
        used[d] += chg_fact_w(f, j);
    }
    for (int d = 0; d < f->ndev && d < 64; d++) {
        if (used[d] > f->fd[d].ncols) f->fd[d].ncols = used[d];
        size_t nb = 0;
        for (size_t j = w0; j < f->w1; j++) nb += f->owner[j] == d;
        f->fd[d].nblk = nb;
    }
    if (f->cpu >= 0 && f->cpu < 64) f->cpu_ncols = used[f->cpu];
}

/* The local columns of the widest window of wblk blocks on device d. */
static size_t window_cols(const chg_fact_t *f, size_t wblk, int d)
{
    size_t most = 0;
    for (size_t w0 = 0; w0 < f->nblk; w0 += wblk) {
        size_t cols = 0;
        for (size_t j = w0; j < f->nblk && j < w0 + wblk; j++)
            if (f->owner[j] == d) cols += chg_fact_w(f, j);
        if (cols > most) most = cols;
    }
    return most;
}

/* The widest window (blocks, a multiple of the device count, at least two per device) that
 * fits every device with the present stage size, 0 when none does. */
static size_t widest_window(chg_fact_t *f, const unsigned long long *avail)
{
    const size_t nd = (size_t)f->ndev;
    for (size_t wblk = (f->nblk - 1) / nd * nd; wblk >= 2 * nd;) {
        f->wblk = wblk;
        for (int d = 0; d < f->ndev; d++) f->fd[d].ncols = window_cols(f, wblk, d);
        int fits = 1;
        for (int d = 0; d < f->ndev; d++) fits &= chg_fact_dist_bytes(f, d) <= avail[d];
        if (fits) return wblk;
        /* shrink by an eighth while far from fitting, then block by block */
        wblk -= CHG_MAX(nd, (wblk / 8) / nd * nd);
    }
    return 0;
}

clhgemm_status_t chg_fact_dist_plan(chg_fact_t *f, const unsigned long long *avail)
{
    int fits = 1;
    for (int d = 0; d < f->ndev; d++) fits &= chg_fact_dist_bytes(f, d) <= avail[d];
    if (fits || !f->c->a) return fits ? CLHGEMM_SUCCESS : CLHGEMM_WORKSPACE_TOO_SMALL;
    /* out of core: pieces of 4 panels streamed in (the catch-up's inner dimension 4 nb) where
     * a window of 4 pieces still fits, else 2, else 1 */
    const size_t nd = (size_t)f->ndev;
    for (size_t st = 4; st >= 1; st /= 2) {
        f->stage_blk = st;
        const size_t wblk = widest_window(f, avail);
        if (wblk && (wblk >= 4 * st * nd || st == 1)) {
            f->wblk = wblk;
            for (int d = 0; d < f->ndev; d++) f->fd[d].ncols = window_cols(f, wblk, d);
            chg_fact_window(f, 0);
            return CLHGEMM_SUCCESS;
        }
    }
    return CLHGEMM_WORKSPACE_TOO_SMALL;
}

void chg_fact_dist_free(chg_fact_t *f)
{
    free(f->fd);
    free(f->owner);
    free(f->lcol);
    free(f->cur);
    free(f->arrived);
    free(f->up_ev);
    free(f->ups);
    free(f->steps);
    f->steps = NULL;
    f->fd = NULL;
    f->owner = NULL;
    f->lcol = NULL;
    f->cur = NULL;
    f->arrived = NULL;
    f->up_ev = NULL;
    f->ups = NULL;
}

/* Elements of each buffer of device d (0: not needed). */
typedef struct sizes_s {
    size_t mat, pan, col, v, t, w, piv, stage;
} sizes_t;

static sizes_t sizes(const chg_fact_t *f, int d)
{
    const chg_fact_call_t *c = f->c;
    const chg_fdev_t *x = &f->fd[d];
    const size_t m = c->m, nb = f->nb;
    sizes_t s = {0};
    if (c->a) s.mat = m * (x->ncols ? x->ncols : 1); /* host memory: its blocks */
    if (f->ndev > 1 || f->cpu >= 0) s.pan = CHG_FACT_PANELS * m * nb; /* others' panels */
    if (c->kind == CHG_FACT_GETRF) {
        s.piv = f->kmax;
        if (c->trans) s.col = m * nb;
    }
    if (f->stage_blk) s.stage = 2 * m * f->stage_blk * nb;
    if (c->kind == CHG_FACT_GEQRF) {
        s.v = m * nb;
        s.t = f->nsteps * nb * nb;
        s.w = nb * (x->ncols ? x->ncols : 1);
        if (c->trans) s.col = m * nb;
    }
    return s;
}

unsigned long long chg_fact_dist_bytes(const chg_fact_t *f, int d)
{
    const sizes_t s = sizes(f, d);
    const unsigned long long e = f->es;
    return (unsigned long long)(s.mat + s.pan + s.col + s.v + s.t + s.w + s.stage) * e +
           (unsigned long long)s.piv * sizeof(int);
}

cl_int chg_fact_dist_alloc(chg_fact_t *f, int d)
{
    chg_fdev_t *x = &f->fd[d];
    const chg_fact_call_t *c = f->c;
    const sizes_t s = sizes(f, d);
    const size_t es = f->es;
    cl_int err = CL_SUCCESS;
    if (s.mat) {
        x->mat.buf = chg_dev_alloc(x->ctx, s.mat * es, &err);
        x->mat.off = 0;
        x->mat.ld = c->trans ? (x->ncols ? x->ncols : 1) : c->m;
        x->mat.trans = c->trans;
        x->own_mat = 1;
    }
    x->pan_ld = c->trans ? f->nb : c->m;
    for (int p = 0; p < CHG_FACT_PANELS && s.pan && err == CL_SUCCESS; p++)
        x->pan[p] = chg_dev_alloc(x->ctx, s.pan / CHG_FACT_PANELS * es, &err);
    if (s.col && err == CL_SUCCESS) x->col = chg_dev_alloc(x->ctx, s.col * es, &err);
    if (s.v && err == CL_SUCCESS) x->v = chg_dev_alloc(x->ctx, s.v * es, &err);
    if (s.t && err == CL_SUCCESS) x->t = chg_dev_alloc(x->ctx, s.t * es, &err);
    if (s.w && err == CL_SUCCESS) x->w = chg_dev_alloc(x->ctx, s.w * es, &err);
    if (s.piv && err == CL_SUCCESS) x->piv = chg_dev_alloc(x->ctx, s.piv * sizeof(int), &err);
    for (int i = 0; i < 2 && s.stage && err == CL_SUCCESS; i++)
        x->stage[i] = chg_dev_alloc(x->ctx, s.stage / 2 * es, &err);
    return err;
}

static void rel(cl_mem *m)
{
    if (*m) clReleaseMemObject(*m);
    *m = NULL;
}

void chg_fact_dist_release(chg_fact_t *f, int d)
{
    chg_fdev_t *x = &f->fd[d];
    if (x->own_mat) rel(&x->mat.buf);
    x->own_mat = 0;
    for (int p = 0; p < CHG_FACT_PANELS; p++) rel(&x->pan[p]);
    rel(&x->col);
    rel(&x->v);
    rel(&x->t);
    rel(&x->w);
    rel(&x->piv);
    rel(&x->stage[0]);
    rel(&x->stage[1]);
    for (int p = 0; p < CHG_FACT_PANELS; p++)
        if (x->pan_free[p]) {
            clReleaseEvent(x->pan_free[p]);
            x->pan_free[p] = NULL;
        }
    if (x->col_free) clReleaseEvent(x->col_free);
    x->col_free = NULL;
    for (int i = 0; i < 4; i++)
        if (x->ring[i]) {
            clWaitForEvents(1, &x->ring[i]);
            clReleaseEvent(x->ring[i]);
            x->ring[i] = NULL;
        }
}

chg_dview_t chg_fact_panel(const chg_fact_t *f, int d, size_t k)
{
    const size_t r0 = k * f->nb;
    if (f->owner[k] == d) return chg_fact_block(f, k, r0);
    const chg_fdev_t *x = &f->fd[d];
    return (chg_dview_t){.buf = x->pan[k % CHG_FACT_PANELS], .off = 0, .ld = x->pan_ld,
                         .trans = f->c->trans};
}

void chg_fact_trace(const chg_fact_t *f, int d, int q, const char *name, cl_event ev)
{
    if (!f->trace || !ev) return;
    static const char *const qn[] = {"h2d", "kernel", "d2h", "upload"};
    char track[48];
    snprintf(track, sizeof track, "dev%d %s", f->fd[d].index, qn[q]);
    chg_trace_device(f->trace, f->fd[d].index, track, name, ev);
}

cl_int chg_fact_fail(chg_fact_t *f, int d, cl_int err)
{
    if (err != CL_SUCCESS && !f->fd[d].lost) {
        f->fd[d].lost = 1;
        f->fd[d].err = err;
    }
    return err;
}

cl_int chg_fact_injected(const chg_fact_t *f, int d)
{
    const chg_fdev_t *x = &f->fd[d];
    return f->h && x->hd ? chg_fault_at(&f->h->fault, x->hd, atomic_load(&f->steps[d]))
                         : CL_SUCCESS;
}

const chg_fault_t chg_fact_no_fault = {0};
