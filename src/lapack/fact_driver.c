/*
 * fact_driver.c -- the factorizations' driver loop (fact_driver.h).
 *
 * One thread (the caller's) drives every device and factors the panels with the CPU LAPACK
 * (whose own threads do the work); the pack threads copy finished panels home; each device's
 * upload thread feeds its blocks. The devices' queues: the kernel queue runs every update in
 * enqueue order; the h2d queue takes the panels' factors up and the d2h queue the next panel
 * down, beside the kernels (events order them); the uploads have a queue of their own, so
 * that a panel never waits behind the bulk of the matrix.
 */
#include "lapack/fact_driver.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "base/trace.h"
#include "core/gemm.h"
#include "host/event.h"
#include "host/fault.h"
#include "host/devmem.h"
#include "host/staging.h"
#include "lapack/fact_cpu.h"
#include "lapack/fact_panel.h"
#include "lapack/fact_rescue.h"
#include "lapack/fact_update.h"
#include "lapack/fact_xfer.h"
#include "tuning/tuning.h"

/* The driver's state beside the distribution. */
typedef struct drv_s {
    chg_fact_t f;
    chg_pinned_t own_pin[3];   /* device buffers: pinned memory of this call */
    chg_pinned_t *pin;         /* [0], [1]: panel k in pin[k % 2] (LU, QR: its block column,
                                * rows 0 .. m; Cholesky: L21); [2]: Cholesky's diagonal blocks
                                * (panel k's at (k % 2) nb^2) */
    size_t pld;                /* leading dimension of pin[0], pin[1] */
    cl_event down[2];          /* panel k's way down into pin[k % 2] (Cholesky: its L21) */
    cl_event ddown;            /* Cholesky: the diagonal block's way down into pin[2] */
    size_t khome;              /* panels whose copy home has been started */
    size_t tail_col;           /* LU, QR (n > m): view columns before it are home */
    chg_fx_home_t home[2];     /* panel k's copy home from pin[k % 2] */
    int *ipiv0;                /* LU: the pivots, 0-based rows of the view */
    int *piv;                  /* LU: one panel's pivots as getrf gives them */
    void *t, *work;            /* QR: T of the panel (nb x nb), geqrf's workspace */
    int single;                /* one device: late blocks catch up instead of being waited for */
    int lswaps;                /* LU: the devices apply the interchanges to earlier columns too */
    int stopped;               /* Cholesky stopped at a minor that is not positive definite */
    cl_int err;
} drv_t;

/* ---- panel width ---------------------------------------------------------------------------- */

size_t chg_fact_nb(const chg_device_t *dev, const chg_fact_call_t *c)
{
    static const char *const names[] = {"potrf", "getrf", "geqrf"};
    const char pc = c->prec == CHG_F64 ? 'd' : 's';
    const int gpu = dev && dev->info.kind != CLHGEMM_DEVICE_CPU;
    char src[600] = "the built-in default";
    const int tuned = dev ? chg_tuned_factor_nb(dev, c->prec, (int)c->kind, src, sizeof src) : 0;
    if (tuned <= 0) snprintf(src, sizeof src, "the built-in default");
    size_t nb = tuned > 0 ? (size_t)tuned : !gpu ? 64 : c->kind == CHG_FACT_POTRF ? 512 : 256;
    if (c->nb > 0) {
        nb = c->nb;
        snprintf(src, sizeof src, "the caller");
    } else if (chg_getenv("CLHGEMM_FACTOR_NB")) {
        /* a malformed value falls back to the entry's or the default (chg_env_int says so) */
        nb = (size_t)chg_env_int("CLHGEMM_FACTOR_NB", (int)nb, 1, 4096);
        snprintf(src, sizeof src, "CLHGEMM_FACTOR_NB");
    }
    const size_t kmax = c->m < c->n ? c->m : c->n;
    const size_t cap = CHG_MAX((size_t)16, chg_ceil_div(kmax, 16) * 16);
    const size_t use = CHG_MAX((size_t)1, CHG_MIN(nb, cap));
    chg_log(1, "factor: %c%s nb = %zu on %s (%s%s)", pc, names[c->kind], use,
            dev ? dev->info.name : "the host", src, use < nb ? ", cut to the matrix" : "");
    return use;
}

/* ---- steps ---------------------------------------------------------------------------------- */

/* Cholesky's diagonal block of panel k in pinned memory (leading dimension nb). */
static void *diag_pin(const drv_t *v, size_t k)
{
    return (char *)v->pin[2].ptr + (k % 2) * v->f.nb * v->f.nb * v->f.es;
}

/* Device command ev of step k on device d's queue q, in the trace. */
static void traced(drv_t *v, int d, int q, const char *what, size_t k, cl_event ev)
{
    if (!v->f.trace) return;
    char name[64];
    snprintf(name, sizeof name, "%s %zu", what, k);
    chg_fact_trace(&v->f, d, q, name, ev);
}

static size_t width(const drv_t *v, size_t j) { return chg_fact_w(&v->f, j); }

/* Panel k's pivots or reflectors: its width, or fewer where it has fewer rows (m < n). */
static size_t pwidth(const drv_t *v, size_t k)
{
    const size_t kr = k * v->f.nb, w = width(v, k);
    return v->f.c->m - kr < w ? v->f.c->m - kr : w;
}

/* Panel k's block (current) down into pinned memory, after the owner's kernel queue's last
 * command: LU and QR the block column (on host memory all its rows, for the copy home; on a
 * device buffer from the diagonal down), Cholesky its diagonal block. */
static cl_int panel_down(drv_t *v, size_t k)
{
    chg_fact_t *f = &v->f;
    const chg_fact_call_t *c = f->c;
    if (chg_fact_on_cpu(f, k)) { /* already in host memory: copied, no event to wait for */
        if (c->kind != CHG_FACT_POTRF) {
            chg_fx_home_finish(f, &v->home[k % 2]);
            chg_ev_release(&v->down[k % 2]);
        } else {
            chg_ev_release(&v->ddown);
        }
        chg_fc_panel_down(f, k, v->pin[k % 2].ptr, v->pld, diag_pin(v, k));
        return CL_SUCCESS;
    }
    const int o = f->owner[k];
    chg_fdev_t *x = &f->fd[o];
    const size_t kr = k * f->nb, kw = width(v, k);
    cl_event mark = NULL;
    cl_int err;
    if (c->kind == CHG_FACT_POTRF) {
        err = chg_fu_mark(f, o, &mark);
        if (err == CL_SUCCESS)
            err = chg_fx_read(x->qd, f->es, chg_fact_block(f, k, kr), kw, kw, diag_pin(v, k), f->nb,
                              1, &mark, &v->ddown);
        chg_ev_release(&mark);
        if (err == CL_SUCCESS) traced(v, o, CHG_FQ_D2H, "panel down", k, v->ddown);
        return err;
    }
    const size_t r0 = c->a ? 0 : kr;
    chg_fx_home_finish(f, &v->home[k % 2]); /* the pinned buffer's previous panel */
    chg_ev_release(&v->down[k % 2]);
    chg_dview_t src = chg_fact_block(f, k, r0);
    err = CL_SUCCESS;
    if (c->trans) { /* via the column-major copy */
        err = chg_fu_panel_col(f, o, k, r0, 1);
        src = (chg_dview_t){.buf = x->col, .off = r0, .ld = c->m, .trans = 0};
    }
    if (err == CL_SUCCESS) err = chg_fu_mark(f, o, &mark);
    if (err == CL_SUCCESS)
        err = chg_fx_read(x->qd, f->es, src, c->m - r0, kw, (char *)v->pin[k % 2].ptr + r0 * f->es,
                          v->pld, 1, &mark, &v->down[k % 2]);
    chg_ev_release(&mark);
    if (err == CL_SUCCESS) traced(v, o, CHG_FQ_D2H, "panel down", k, v->down[k % 2]);
    return err;
}

/* T as the devices store it: a transposed view holds T^T. */
static void t_oriented(drv_t *v, size_t kw)
{
    if (!v->f.c->trans) return;
    const size_t es = v->f.es, nb = v->f.nb;
    char *t = v->t, tmp[16];
    for (size_t j = 0; j < kw; j++)
        for (size_t i = j + 1; i < kw; i++) {
            memcpy(tmp, t + (i + j * nb) * es, es);
            memcpy(t + (i + j * nb) * es, t + (j + i * nb) * es, es);
            memcpy(t + (j + i * nb) * es, tmp, es);
        }
}

static int panel_cpu_kind(drv_t *v, size_t k, chg_fact_call_t *c, size_t kr, size_t kw,
                          size_t rows, char *p);

/* The CPU's part of step k; 0, or -1 when the CPU LAPACK failed (missing routine). */
static int panel_cpu(drv_t *v, size_t k)
{
    chg_fact_t *f = &v->f;
    chg_fact_call_t *c = f->c;
    const size_t kr = k * f->nb, kw = width(v, k), rows = c->m - kr;
    char *p = (char *)v->pin[k % 2].ptr + kr * f->es;
    const unsigned long long t0 = chg_now_ns();
    const int r = panel_cpu_kind(v, k, c, kr, kw, rows, p);
    if (f->trace) {
        static const char *const names[] = {"potrf", "getrf", "geqrf"};
        char name[48];
        snprintf(name, sizeof name, "%s panel %zu", names[c->kind], k);
        chg_trace_host(f->trace, "cpu panel", name, t0, chg_now_ns());
    }
    return r;
}

static int panel_cpu_kind(drv_t *v, size_t k, chg_fact_call_t *c, size_t kr, size_t kw,
                          size_t rows, char *p)
{
    chg_fact_t *f = &v->f;
    int info;
    switch (c->kind) {
    case CHG_FACT_POTRF:
        /* a transposed view's diagonal block came down as stored: its upper triangle */
        info = chg_panel_potrf(c->prec, !c->trans, kw, diag_pin(v, k), f->nb);
        if (info > 0) {
            c->info = (int)kr + info;
            v->stopped = 1;
        }
        return info < 0 ? -1 : 0;
    case CHG_FACT_GETRF:
        info = chg_panel_getrf(c->prec, rows, kw, p, v->pld, v->piv);
        if (info < 0) return -1;
        if (info > 0 && c->info == 0) c->info = (int)kr + info;
        for (size_t i = 0; i < pwidth(v, k); i++) {
            v->ipiv0[kr + i] = (int)kr + v->piv[i] - 1;
            c->ipiv[kr + i] = (int)kr + v->piv[i];
        }
        return 0;
    case CHG_FACT_GEQRF:
        info = chg_panel_geqrf(c->prec, rows, kw, p, v->pld, (char *)c->tau + kr * f->es, v->t,
                               f->nb, v->work);
        t_oriented(v, pwidth(v, k));
        return info < 0 ? -1 : 0;
    }
    return -1;
}

/* Panel k's factors up to device d (LU, QR): the panel from the diagonal down into its block
 * (the owner) or its panel buffer, LU's pivots, QR's T; then its kernel queue waits for them. */
static cl_int panel_up_lu_qr(drv_t *v, size_t k, int d)
{
    chg_fact_t *f = &v->f;
    const chg_fact_call_t *c = f->c;
    chg_fdev_t *x = &f->fd[d];
    const size_t kr = k * f->nb, kw = width(v, k), rows = c->m - kr;
    const char *p = (char *)v->pin[k % 2].ptr + kr * f->es;
    cl_event ev[3] = {NULL, NULL, NULL};
    int ne = 0;
    chg_dview_t dst = chg_fact_panel(f, d, k);
    /* into a buffer the kernel queue may still read (a panel buffer two panels back, the
     * column-major copy one panel back): after that use */
    cl_event busy = f->owner[k] != d ? x->pan_free[k % CHG_FACT_PANELS] : NULL;
    if (c->trans) {
        dst = (chg_dview_t){.buf = x->col, .off = kr, .ld = c->m, .trans = 0};
        busy = x->col_free;
    }
    cl_int err = chg_fx_write(x->qh, f->es, dst, rows, kw, p, v->pld, busy ? 1 : 0,
                              busy ? &busy : NULL, &ev[ne++]);
    if (err == CL_SUCCESS) traced(v, d, CHG_FQ_H2D, "panel up", k, ev[0]);
    if (err == CL_SUCCESS && c->kind == CHG_FACT_GETRF)
        err = clEnqueueWriteBuffer(x->qh, x->piv, CL_FALSE, kr * sizeof(int),
                                   pwidth(v, k) * sizeof(int), v->ipiv0 + kr, 0, NULL, &ev[ne++]);
    if (err == CL_SUCCESS && c->kind == CHG_FACT_GEQRF)
        err = clEnqueueWriteBuffer(x->qh, x->t, CL_FALSE, k * f->nb * f->nb * f->es,
                                   f->nb * f->nb * f->es, v->t, 0, NULL, &ev[ne++]);
    if (err == CL_SUCCESS) err = clEnqueueMarkerWithWaitList(x->qk, (cl_uint)ne, ev, NULL);
    if (err == CL_SUCCESS && c->trans) {
        err = chg_fu_panel_col(f, d, k, kr, 0);
        chg_ev_release(&x->col_free);
        if (err == CL_SUCCESS) err = chg_fu_mark(f, d, &x->col_free);
    }
    if (err == CL_SUCCESS && c->kind == CHG_FACT_GEQRF) err = chg_fu_qr_v(f, d, k);
    /* the host copies must outlive the writes: wait for them before pin/ipiv0/t change */
    if (err == CL_SUCCESS) err = clWaitForEvents((cl_uint)ne, ev);
    for (int i = 0; i < ne; i++) chg_ev_release(&ev[i]);
    return err;
}

/* Cholesky: panel k's L21 (in pinned memory) up to every device but its owner. */
static cl_int l21_up(drv_t *v, size_t k, size_t below, size_t kw)
{
    chg_fact_t *f = &v->f;
    const size_t hld = f->c->trans ? f->nb : f->c->n;
    cl_int err = CL_SUCCESS;
    for (int d = 0; d < f->ndev && err == CL_SUCCESS; d++) {
        if (d == f->owner[k] || f->fd[d].lost) continue;
        chg_fdev_t *y = &f->fd[d];
        cl_event busy = y->pan_free[k % CHG_FACT_PANELS], up = NULL;
        err = chg_fx_write(y->qh, f->es, chg_dview_at(chg_fact_panel(f, d, k), kw, 0), below, kw,
                           v->pin[k % 2].ptr, hld, busy ? 1 : 0, busy ? &busy : NULL, &up);
        if (err == CL_SUCCESS) err = chg_fu_after(f, d, up);
        if (err == CL_SUCCESS) err = clWaitForEvents(1, &up);
        chg_ev_release(&up);
    }
    return err;
}

/* Cholesky, panel k the CPU's: its L21 solved on the CPU into pinned memory (home from there),
 * then up to the devices. */
static cl_int potrf_l21_cpu(drv_t *v, size_t k, size_t below, size_t kw)
{
    chg_fact_t *f = &v->f;
    chg_fx_home_finish(f, &v->home[k % 2]);
    chg_ev_release(&v->down[k % 2]);
    chg_fc_potrf_solve(f, k, diag_pin(v, k), v->pin[k % 2].ptr, f->c->trans ? f->nb : f->c->n);
    return l21_up(v, k, below, kw);
}

/* Cholesky: L_kk up to the owner, L21 solved there and sent down (home; other devices). */
static cl_int panel_up_potrf(drv_t *v, size_t k)
{
    chg_fact_t *f = &v->f;
    const chg_fact_call_t *c = f->c;
    const int o = f->owner[k];
    const size_t kr = k * f->nb, kw = width(v, k), below = c->n - kr - kw;
    cl_event up = NULL, mark = NULL;
    if (chg_fact_on_cpu(f, k)) /* L21 solved by the CPU, then up to every device */
        return v->stopped || !below ? CL_SUCCESS : potrf_l21_cpu(v, k, below, kw);
    chg_fdev_t *x = &f->fd[o];
    cl_int err = chg_fx_write(x->qh, f->es, chg_fact_block(f, k, kr), kw, kw, diag_pin(v, k),
                              f->nb, 0, NULL, &up);
    if (err == CL_SUCCESS) traced(v, o, CHG_FQ_H2D, "panel up", k, up);
    if (err == CL_SUCCESS) err = chg_fu_after(f, o, up);
    /* the block's diagonal stays in pinned memory until it goes home with L21 */
    if (err == CL_SUCCESS) err = clWaitForEvents(1, &up);
    chg_ev_release(&up);
    if (err != CL_SUCCESS || !below || v->stopped) return err;
    err = chg_fu_potrf_solve(f, k);
    if (err != CL_SUCCESS || (!c->a && f->ndev == 1)) return err;
    /* L21 down: home, and to the other devices */
    chg_fx_home_finish(f, &v->home[k % 2]);
    chg_ev_release(&v->down[k % 2]);
    const size_t hld = c->trans ? f->nb : c->n;
    err = chg_fu_mark(f, o, &mark);
    if (err == CL_SUCCESS)
        err = chg_fx_read(x->qd, f->es, chg_fact_block(f, k, kr + kw), below, kw,
                          v->pin[k % 2].ptr, hld, 1, &mark, &v->down[k % 2]);
    chg_ev_release(&mark);
    if (err == CL_SUCCESS) traced(v, o, CHG_FQ_D2H, "L21 down", k, v->down[k % 2]);
    if (err != CL_SUCCESS || f->ndev == 1) return err;
    err = clWaitForEvents(1, &v->down[k % 2]);
    if (err == CL_SUCCESS) err = l21_up(v, k, below, kw);
    return err;
}

/* Panel k's finished part home (host memory): Cholesky's diagonal block and L21 once L21 is
 * down (the next step, or the end, starts it); the block column of LU and QR from pinned
 * memory, at once. Returns an error of L21's way down. */
static cl_int panel_home(drv_t *v, size_t k)
{
    chg_fact_t *f = &v->f;
    const chg_fact_call_t *c = f->c;
    if (!c->a) return CL_SUCCESS;
    const size_t kr = k * f->nb, kw = width(v, k);
    if (c->kind == CHG_FACT_POTRF) {
        const size_t below = c->n - kr - kw;
        if (below && v->down[k % 2]) { /* none: the CPU's own L21 */
            const cl_int err = clWaitForEvents(1, &v->down[k % 2]);
            if (err != CL_SUCCESS) return err;
        }
        chg_fx_home_t hm; /* the diagonal block: small, here and now */
        chg_fx_home_start(f, &hm, diag_pin(v, k), f->nb, kr, kw, kr, kw,
                          CHG_FX_STORED | CHG_FX_LOWER);
        chg_fx_home_finish(f, &hm);
        if (below)
            chg_fx_home_start(f, &v->home[k % 2], v->pin[k % 2].ptr, c->trans ? f->nb : c->n,
                              kr + kw, below, kr, kw, CHG_FX_STORED);
        v->khome = k + 1;
        return CL_SUCCESS;
    }
    chg_fx_home_start(f, &v->home[k % 2], v->pin[k % 2].ptr, v->pld, 0, c->m, kr, kw, 0);
    v->khome = k + 1;
    return CL_SUCCESS;
}

/* Blocks [j0, j1) of device d brought to `to` panels (each from cur[j], which is either to - 1
 * for an ordinary update with panel to - 1, or 0 for a catch-up); contiguous blocks of one kind
 * go in one call. */
static cl_int bring(drv_t *v, int d, const size_t *blk, size_t nblk, size_t to)
{
    chg_fact_t *f = &v->f;
    cl_int err = CL_SUCCESS;
    size_t i = 0;
    while (i < nblk && err == CL_SUCCESS) {
        const size_t j = blk[i], from = f->cur[j];
        size_t e = i + 1, w = width(v, j);
        /* a run: consecutive local columns, the same starting point; Cholesky's rows start at
         * the run's first column, so its runs must be consecutive in the view too */
        while (e < nblk && f->cur[blk[e]] == from && f->lcol[blk[e]] == f->lcol[j] + w &&
               (f->c->kind != CHG_FACT_POTRF || chg_fact_c0(f, blk[e]) == chg_fact_c0(f, j) + w)) {
            w += width(v, blk[e]);
            e++;
        }
        const size_t c0 = chg_fact_c0(f, j);
        if (from + 1 == to)
            err = chg_fu_apply(f, d, from, c0, f->lcol[j], w);
        else if (from < to && v->single) {
            chg_log(2, "factor: view columns %zu .. %zu arrived late: panels %zu .. %zu at once",
                    c0, c0 + w, from, to - 1);
            const chg_lsrc_t src = chg_fu_resident(f, d);
            err = chg_fu_catch_up(f, d, from, to, c0, f->lcol[j], w, &src);
        } else {
            err = CLHGEMM_INTERNAL_ERROR;
        }
        for (size_t q = i; q < e; q++) f->cur[blk[q]] = to;
        i = e;
    }
    return err;
}

/* Panel k applied to the CPU's blocks blk[0 .. n) (the CPU's share, fact_cpu.h): the panel
 * where the driver keeps it, Cholesky's L21 once it is down. */
static cl_int cpu_update(drv_t *v, size_t k, const size_t *blk, size_t n)
{
    chg_fact_t *f = &v->f;
    if (!n) return CL_SUCCESS;
    const int chol = f->c->kind == CHG_FACT_POTRF;
    if (chol && v->down[k % 2]) {
        const cl_int err = clWaitForEvents(1, &v->down[k % 2]);
        if (err != CL_SUCCESS)
            return chg_fact_on_cpu(f, k) ? err : chg_fact_fail(f, f->owner[k], err);
    }
    const chg_fc_panel_t p = {.pin = v->pin[k % 2].ptr,
                              .ld = chol ? (f->c->trans ? f->nb : f->c->n) : v->pld,
                              .ipiv0 = v->ipiv0, .t = v->t};
    chg_fc_apply(f, k, blk, n, &p);
    return CL_SUCCESS;
}

/* Step k's look-ahead: block k + 1 current with panel k (with every panel up to k where it
 * arrived late), and its panel sent down. */
static cl_int look_ahead(drv_t *v, size_t k)
{
    chg_fact_t *f = &v->f;
    const size_t j = k + 1;
    const int o = f->owner[j];
    const size_t one[1] = {j};
    cl_int err = CL_SUCCESS;
    if (!chg_fx_arrived(f, j, 1, &err)) return err != CL_SUCCESS ? err : CLHGEMM_INTERNAL_ERROR;
    if (chg_fact_on_cpu(f, j)) {
        err = cpu_update(v, k, one, 1);
        if (err == CL_SUCCESS && j < f->nsteps) err = panel_down(v, j);
        return err;
    }
    if (f->c->kind == CHG_FACT_POTRF && f->cur[j] == k) {
        /* its diagonal block first and down to the CPU, then the rest of it */
        err = chg_fu_potrf_diag(f, k, j);
        if (err == CL_SUCCESS && j < f->nsteps) err = panel_down(v, j);
        if (err == CL_SUCCESS) err = chg_fu_potrf_below(f, k, j);
        f->cur[j] = k + 1;
        return err;
    }
    err = bring(v, o, one, 1, k + 1);
    if (err == CL_SUCCESS && j < f->nsteps) err = panel_down(v, j);
    return err;
}

/* LU: panel k's interchanges on the devices' columns of earlier panels (device buffers, where
 * they are the result; one device with blocks still to arrive, whose catch-up needs them). */
static cl_int left_swaps(drv_t *v, size_t k)
{
    chg_fact_t *f = &v->f;
    cl_int err = CL_SUCCESS;
    for (int d = 0; d < f->ndev && err == CL_SUCCESS; d++) {
        size_t w = 0;
        for (size_t j = f->w0; j < k; j++)
            if (f->owner[j] == d) w = f->lcol[j] + width(v, j);
        if (w) err = chg_fu_laswp(f, d, k, 0, w);
    }
    return err;
}

/* Step k's trailing update on every device: blocks k + 2 .. that have arrived, with panel k
 * (or every panel so far when they are late). */
static cl_int trailing(drv_t *v, size_t k, size_t *blk)
{
    chg_fact_t *f = &v->f;
    cl_int err = CL_SUCCESS;
    for (int d = 0; d < f->ndev && err == CL_SUCCESS; d++) {
        size_t nb = 0;
        for (size_t j = k + 2; j < f->w1 && err == CL_SUCCESS; j++) {
            if (f->owner[j] != d) continue;
            if (!chg_fx_arrived(f, j, !v->single, &err)) continue; /* pending: catches up later */
            blk[nb++] = j;
        }
        if (err == CL_SUCCESS) err = chg_fu_slow_step(f, d);
        if (err == CL_SUCCESS) err = bring(v, d, blk, nb, k + 1);
        if (err == CL_SUCCESS && (f->ndev > 1 || f->cpu >= 0)) {
            /* panel k's buffer (another owner's panel: several devices, the CPU's) is free
             * after this */
            chg_ev_release(&f->fd[d].pan_free[k % CHG_FACT_PANELS]);
            err = chg_fu_mark(f, d, &f->fd[d].pan_free[k % CHG_FACT_PANELS]);
        }
        atomic_fetch_add(&f->steps[d], 1); /* CLHGEMM_FAULT_INJECT counts steps */
        clFlush(f->fd[d].qk);
    }
    if (err == CL_SUCCESS && f->cpu >= 0) { /* the CPU's blocks, while the devices run theirs */
        size_t nb = 0;
        for (size_t j = k + 2; j < f->w1; j++)
            if (chg_fact_on_cpu(f, j)) blk[nb++] = j;
        err = cpu_update(v, k, blk, nb);
    }
    return err;
}

/* Whether some block has not arrived yet (then the devices keep LU's interchanges on earlier
 * columns, which a catch-up's L needs). */
static int any_pending(drv_t *v)
{
    for (size_t j = v->f.w0; j < v->f.w1; j++)
        if (!v->f.arrived[j]) return 1;
    return 0;
}

static cl_int step(drv_t *v, size_t k, size_t *blk)
{
    chg_fact_t *f = &v->f;
    const chg_fact_call_t *c = f->c;
    cl_event *down = c->kind == CHG_FACT_POTRF ? &v->ddown : &v->down[k % 2];
    cl_int err = *down ? clWaitForEvents(1, down) : CL_SUCCESS; /* none: the CPU's panel */
    if (c->kind == CHG_FACT_POTRF) chg_ev_release(down);
    if (err != CL_SUCCESS) return err;
    if (c->kind == CHG_FACT_POTRF && k > 0) err = panel_home(v, k - 1);
    if (err != CL_SUCCESS) return err;
    if (panel_cpu(v, k) != 0) return CLHGEMM_NO_CPU_LAPACK;
    if (c->kind == CHG_FACT_POTRF) {
        err = panel_up_potrf(v, k);
        if (err != CL_SUCCESS || v->stopped) return err;
    } else {
        for (int d = 0; d < f->ndev && err == CL_SUCCESS; d++) {
            int uses = f->owner[k] == d; /* the owner, and every device with blocks after k */
            for (size_t j = k + 1; j < f->nblk && !uses; j++) uses = f->owner[j] == d;
            if (uses) err = panel_up_lu_qr(v, k, d);
        }
        if (err != CL_SUCCESS) return err;
        err = panel_home(v, k);
    }
    if (c->kind == CHG_FACT_GETRF) {
        v->lswaps = !c->a || (v->single && any_pending(v));
        if (v->lswaps) err = left_swaps(v, k);
    }
    if (err == CL_SUCCESS && k + 1 < f->w1) err = look_ahead(v, k);
    if (err == CL_SUCCESS) err = trailing(v, k, blk);
    return err;
}

/* After the last panel (LU, QR with n > m): the blocks right of it current, and home. */
static cl_int tail(drv_t *v, size_t *blk)
{
    chg_fact_t *f = &v->f;
    const chg_fact_call_t *c = f->c;
    cl_int err = CL_SUCCESS;
    for (int d = 0; d < f->ndev && err == CL_SUCCESS; d++) {
        size_t nb = 0;
        for (size_t j = CHG_MAX(f->nsteps, f->w0); j < f->w1; j++)
            if (f->owner[j] == d && f->cur[j] < f->nsteps && chg_fx_arrived(f, j, 1, &err))
                blk[nb++] = j;
        if (err == CL_SUCCESS) err = bring(v, d, blk, nb, f->nsteps);
    }
    if (!c->a) return err;
    for (size_t j = CHG_MAX(f->nsteps, f->w0); j < f->w1 && err == CL_SUCCESS; j++) {
        const int o = f->owner[j];
        const size_t kw = width(v, j);
        if (chg_fact_on_cpu(f, j)) { /* current with every panel (fact_cpu.h) */
            chg_fx_home_finish(f, &v->home[0]);
            chg_fc_home(f, j);
            v->tail_col = chg_fact_c0(f, j) + kw;
            continue;
        }
        cl_event mark = NULL, ev = NULL;
        chg_dview_t src = chg_fact_block(f, j, 0);
        err = chg_fu_mark(f, o, &mark);
        chg_fx_home_finish(f, &v->home[0]);
        if (err == CL_SUCCESS) /* stored orientation: a plain copy home */
            err = chg_fx_read(f->fd[o].qd, f->es, src, c->m, kw, v->pin[0].ptr,
                              c->trans ? kw : c->m, 1, &mark, &ev);
        if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
        if (err == CL_SUCCESS) {
            chg_fx_home_start(f, &v->home[0], v->pin[0].ptr, c->trans ? kw : c->m, 0, c->m,
                              chg_fact_c0(f, j), kw, CHG_FX_STORED);
            v->tail_col = chg_fact_c0(f, j) + kw;
        }
        chg_ev_release(&mark);
        chg_ev_release(&ev);
    }
    return err;
}

static void drain(chg_fact_t *f);

/* Out of core, a window after the first: its blocks (arrived: the caller's input) brought up
 * to date with every panel of the earlier windows, streamed from the caller's matrix a few at
 * a time through each device's two stage buffers (the next piece's host copies run while the
 * devices apply the last one). */
static cl_int window_catch_up(drv_t *v, size_t *blk)
{
    chg_fact_t *f = &v->f;
    const size_t to = CHG_MIN(f->w0, f->nsteps), step = f->stage_blk, nb = f->nb;
    cl_event done[64][2];
    memset(done, 0, sizeof done);
    cl_int err = CL_SUCCESS;
    for (size_t j = f->w0; j < f->w1 && err == CL_SUCCESS; j++)
        if (!chg_fx_arrived(f, j, 1, &err) && err == CL_SUCCESS) err = CLHGEMM_INTERNAL_ERROR;
    chg_log(1, "factor: out of core: blocks %zu .. %zu catch up with panels 0 .. %zu", f->w0,
            f->w1 - 1, to - 1);
    for (size_t q0 = 0; q0 < to && err == CL_SUCCESS; q0 += step) {
        const size_t q1 = CHG_MIN(q0 + step, to);
        const int slot = (int)(q0 / step % 2);
        for (int d = 0; d < f->ndev && d < 64 && err == CL_SUCCESS; d++) {
            size_t nbk = 0;
            for (size_t j = f->w0; j < f->w1; j++)
                if (f->owner[j] == d) blk[nbk++] = j;
            if (!nbk) continue;
            err = chg_ev_wait(&done[d][slot]); /* the stage buffer's last piece applied */
            chg_lsrc_t src;
            cl_event up = NULL;
            const size_t r0 = f->c->kind == CHG_FACT_POTRF ? f->w0 * nb : q0 * nb;
            if (err == CL_SUCCESS) err = chg_fx_stream(f, d, q0, q1, r0, slot, &src, &up);
            if (err == CL_SUCCESS) err = chg_fu_after(f, d, up);
            chg_ev_release(&up);
            if (err == CL_SUCCESS && f->c->kind == CHG_FACT_GETRF)
                err = chg_fu_stage_swaps(f, d, &src, q0, q1);
            for (size_t i = 0; i < nbk && err == CL_SUCCESS; i++) {
                const size_t j = blk[i];
                err = chg_fu_catch_up(f, d, q0, q1, chg_fact_c0(f, j), f->lcol[j], width(v, j),
                                      &src);
            }
            if (err == CL_SUCCESS) err = chg_fu_mark(f, d, &done[d][slot]);
            clFlush(f->fd[d].qk);
        }
    }
    for (int d = 0; d < f->ndev && d < 64; d++)
        for (int i = 0; i < 2; i++) {
            const cl_int e = chg_ev_wait(&done[d][i]);
            if (err == CL_SUCCESS) err = e;
        }
    for (size_t j = f->w0; j < f->w1; j++) f->cur[j] = to;
    return err;
}

/* The steps of the present window (all of the matrix in core), its Cholesky panel home, its
 * blocks right of the last panel (LU, QR with n > m) brought up to date and home. */
static cl_int run_window(drv_t *v, size_t *blk, size_t *k)
{
    chg_fact_t *f = &v->f;
    cl_int err = CL_SUCCESS;
    const size_t k1 = CHG_MIN(f->w1, f->nsteps);
    if (*k < k1) {
        if (!chg_fx_arrived(f, *k, 1, &err))
            err = err != CL_SUCCESS ? err : CLHGEMM_INTERNAL_ERROR;
        if (err == CL_SUCCESS) err = panel_down(v, *k);
    }
    for (; *k < k1 && err == CL_SUCCESS && !v->stopped; (*k)++) {
        err = step(v, *k, blk);
        atomic_store(&f->steps_done, *k + 1);
    }
    if (err == CL_SUCCESS && f->c->kind == CHG_FACT_POTRF && f->w0 < k1) {
        /* the window's last panel (or the one that stopped at a minor not positive definite:
         * its diagonal block as the CPU LAPACK left it; L21 not solved, as LAPACK leaves it) */
        const size_t last = v->stopped ? (size_t)(f->c->info - 1) / f->nb : k1 - 1;
        if (v->stopped && f->c->a) {
            const size_t kr = last * f->nb, kw = width(v, last);
            chg_fx_home_t hm;
            chg_fx_home_start(f, &hm, diag_pin(v, last), f->nb, kr, kw, kr, kw,
                              CHG_FX_STORED | CHG_FX_LOWER);
            chg_fx_home_finish(f, &hm);
        } else {
            err = panel_home(v, last);
        }
    }
    if (err == CL_SUCCESS && !v->stopped && f->w1 > f->nsteps) err = tail(v, blk);
    return err;
}

static cl_int run_loop(drv_t *v)
{
    chg_fact_t *f = &v->f;
    size_t *blk = malloc(f->nblk * sizeof *blk);
    if (!blk) return CLHGEMM_OUT_OF_HOST_MEMORY;
    cl_int err = CL_SUCCESS;
    size_t k = 0;
    for (size_t w0 = 0; w0 < f->nblk && err == CL_SUCCESS && !v->stopped; w0 = f->w1) {
        if (w0 > 0) { /* out of core: the next window over the same storage */
            const cl_int up = chg_fx_up_join(f);
            for (int i = 0; i < 2; i++) chg_fx_home_finish(f, &v->home[i]);
            drain(f); /* nothing of the last window's may still read its storage */
            chg_fact_window(f, w0);
            err = up;
            for (int d = 0; d < f->ndev && err == CL_SUCCESS; d++) err = chg_fx_up_start(f, d);
            if (err == CL_SUCCESS) err = window_catch_up(v, blk);
        }
        if (err == CL_SUCCESS) err = run_window(v, blk, &k);
    }
    /* a failure no device op claimed is the current panel owner's (its transfers) */
    int claimed = 0;
    for (int d = 0; d < f->ndev; d++) claimed |= f->fd[d].lost;
    const size_t kl = k < f->nsteps ? k : f->nsteps - 1;
    if (err != CL_SUCCESS && !claimed && err != CLHGEMM_NO_CPU_LAPACK &&
        err != CLHGEMM_OUT_OF_HOST_MEMORY && !chg_fact_on_cpu(f, kl))
        chg_fact_fail(f, f->owner[kl], err);
    free(blk);
    return err;
}

/* ---- setup and teardown --------------------------------------------------------------------- */

static char kind_prec(const chg_fact_t *f) { return f->c->prec == CHG_F64 ? 'd' : 's'; }
static const char *kind_name(const chg_fact_t *f)
{
    static const char *const names[] = {"potrf", "getrf", "geqrf"};
    return names[f->c->kind];
}

static clhgemm_status_t host_buffers(drv_t *v)
{
    chg_fact_t *f = &v->f;
    const chg_fact_call_t *c = f->c;
    const size_t nb = f->nb, es = f->es;
    v->ipiv0 = c->kind == CHG_FACT_GETRF ? malloc(f->kmax * sizeof(int)) : NULL;
    v->piv = c->kind == CHG_FACT_GETRF ? malloc(nb * sizeof(int)) : NULL;
    v->t = c->kind == CHG_FACT_GEQRF ? malloc(nb * nb * es) : NULL;
    v->work = c->kind == CHG_FACT_GEQRF ? malloc(chg_panel_geqrf_work(c->prec, c->m, nb)) : NULL;
    const int need = c->kind == CHG_FACT_POTRF ? 0 : 2;
    const int have = !!v->ipiv0 + !!v->piv + !!v->t + !!v->work;
    return have == need ? CLHGEMM_SUCCESS : CLHGEMM_OUT_OF_HOST_MEMORY;
}

static void drv_free(drv_t *v, cl_command_queue q)
{
    chg_fact_t *f = &v->f;
    for (int i = 0; i < 2; i++) {
        if (f->h) chg_fx_home_finish(f, &v->home[i]);
        chg_ev_release(&v->down[i]);
    }
    chg_ev_release(&v->ddown);
    for (int i = 0; i < 3; i++)
        if (v->own_pin[i].buf) chg_pinned_free(q, &v->own_pin[i]);
    for (size_t j = 0; f->up_ev && j < f->nblk; j++) chg_ev_release(&f->up_ev[j]);
    for (int d = 0; f->fd && d < f->ndev; d++) {
        chg_fact_dist_release(f, d);
        if (f->h && f->fd[d].qu) clReleaseCommandQueue(f->fd[d].qu);
    }
    chg_fc_free(f);
    chg_fact_dist_free(f);
    free(v->ipiv0);
    free(v->piv);
    free(v->t);
    free(v->work);
}

/* Pinned bytes of pin[0], pin[1] (and pin[2], Cholesky's diagonal block). */
static size_t pin_bytes(const drv_t *v)
{
    const chg_fact_t *f = &v->f;
    return CHG_MAX(CHG_MAX(f->c->m, f->nb) * f->nb, 2 * f->nb * f->nb) * f->es;
}

static void drain(chg_fact_t *f)
{
    for (int d = 0; d < f->ndev; d++) {
        chg_fdev_t *x = &f->fd[d];
        if (x->qk) clFinish(x->qk);
        if (x->qh) clFinish(x->qh);
        if (x->qd) clFinish(x->qd);
        if (x->qu) clFinish(x->qu);
    }
}

static clhgemm_status_t host_setup(drv_t *v, clhgemm_handle_t h)
{
    chg_fact_t *f = &v->f;
    const int ndev = h->ndev;
    chg_handle_dev_t *devs = h->devs;
    f->nb = chg_fact_nb(&devs[0].dev, f->c);
    clhgemm_status_t st = chg_fact_dist_init(f, ndev);
    if (st != CLHGEMM_SUCCESS) return st;
    for (int d = 0; d < ndev; d++) {
        chg_fdev_t *x = &f->fd[d];
        chg_handle_dev_t *hd = &devs[d];
        x->index = d;
        x->hd = hd;
        x->ctx = hd->ctx;
        x->dev = &hd->dev;
        x->qk = hd->q[Q_KERNEL];
        x->qh = hd->q[Q_H2D];
        x->qd = hd->q[Q_D2H];
    }
    unsigned long long avail[64];
    for (int d = 0; d < ndev && d < 64; d++) {
        /* the GEMM core's temporaries of the updates (packed slices: far below its cap on
         * large devices), a quarter of the budget at most */
        const unsigned long long lim = devs[d].mem_limit;
        const unsigned long long ws = CHG_MIN(chg_workspace_budget(&devs[d].dev), lim / 4);
        avail[d] = lim - ws;
    }
    if (ndev > 64 || (st = chg_fact_dist_plan(f, avail)) != CLHGEMM_SUCCESS)
        return CLHGEMM_WORKSPACE_TOO_SMALL;
    const size_t every = chg_fc_every(h, f);
    if (every) { /* the CPU's share; where the devices then need windows, none */
        chg_fact_dist_cpu(f, every);
        if (chg_fact_dist_plan(f, avail) != CLHGEMM_SUCCESS || f->wblk < f->nblk) {
            chg_log(1, "factor: CPU share: none (the devices' panel buffers do not fit)");
            chg_fact_dist_cpu(f, 0);
            if ((st = chg_fact_dist_plan(f, avail)) != CLHGEMM_SUCCESS)
                return CLHGEMM_WORKSPACE_TOO_SMALL;
        }
    }
    v->single = ndev == 1 && f->cpu < 0; /* catch-up reads panels from the device itself */
    chg_log(1, "factor: %c%s %zu x %zu (%s) on %d device%s, panels of %zu, %s", kind_prec(f),
            kind_name(f), f->c->m, f->c->n, f->c->trans ? "stored transposed" : "column-major",
            ndev, ndev > 1 ? "s" : "", f->nb,
            f->wblk >= f->nblk ? "in core" : "out of core");
    if (f->wblk < f->nblk)
        chg_log(1, "factor: out of core: the matrix exceeds the devices' memory budget "
                   "(CLHGEMM_DEVICE_MEMORY_LIMIT less the GEMM workspace): windows of %zu "
                   "block columns, earlier panels streamed %zu at a time",
                f->wblk, f->stage_blk);
    st = host_buffers(v);
    if (st == CLHGEMM_SUCCESS && f->cpu >= 0) st = chg_fc_alloc(f);
    for (int d = 0; d < ndev && st == CLHGEMM_SUCCESS; d++) {
        chg_fdev_t *x = &f->fd[d];
        cl_int err = CL_SUCCESS;
        const cl_command_queue_properties props = h->trace_path ? CL_QUEUE_PROFILING_ENABLE : 0;
        x->qu = clCreateCommandQueue(x->ctx, x->hd->id, props, &err);
        if (err == CL_SUCCESS) err = chg_fact_dist_alloc(f, d);
        if (err != CL_SUCCESS) st = (clhgemm_status_t)err;
    }
    if (st != CLHGEMM_SUCCESS) return st;
    chg_handle_dev_t *h0 = &devs[0];
    cl_int err = chg_devmem_reserve_pinned(h0, h0->st_a, 3, pin_bytes(v));
    v->pin = h0->st_a;
    v->pld = f->c->m;
    return (clhgemm_status_t)err;
}

/* After a failed command in the loop: one line per failed device (a lost one is dropped by the
 * handle after the call; one short of memory stays), and the rest of the factorization on the
 * CPU from what is home (fact_rescue.h). */
static cl_int rescue(drv_t *v, cl_int err)
{
    chg_fact_t *f = &v->f;
    int marked = 0;
    for (int d = 0; d < f->ndev; d++) {
        chg_fdev_t *x = &f->fd[d];
        if (!x->lost) continue;
        marked = 1;
        const int loss = chg_fault_is_loss(x->err, 0);
        if (loss) {
            x->hd->lost = 1;
            x->hd->lost_err = x->err;
        }
        fprintf(stderr,
                "clhgemm: device %d (%s) %s in a factorization (%s, %d); it goes on on the CPU "
                "from its finished columns and the caller's input%s\n",
                x->hd->index, x->hd->dev.info.name, loss ? "lost" : "failed",
                clhgemm_status_string(x->err), (int)x->err,
                loss ? "; this handle does not use the device again" : "");
    }
    if (!marked)
        fprintf(stderr, "clhgemm: a factorization failed on the devices (%s, %d); it goes on on "
                        "the CPU from its finished columns and the caller's input\n",
                clhgemm_status_string(err), (int)err);
    const size_t done = v->tail_col ? f->nsteps : v->khome;
    return (cl_int)chg_fact_rescue(f, done, v->tail_col, v->ipiv0);
}

clhgemm_status_t chg_fact_run_host(clhgemm_handle_t h, chg_fact_call_t *c)
{
    drv_t v;
    memset(&v, 0, sizeof v);
    v.f.c = c;
    v.f.h = h;
    c->info = 0;
    pthread_mutex_lock(&h->call_lock);
    clhgemm_status_t st = h->ndev > 0 ? host_setup(&v, h) : CLHGEMM_NO_DEVICE;
    cl_int err = (cl_int)st;
    if (err == CL_SUCCESS) v.f.hold = (size_t)chg_env_int("CLHGEMM_FACTOR_HOLD", 0, 0, INT_MAX);
    if (err == CL_SUCCESS) err = (cl_int)chg_fu_slow_start(&v.f);
    if (err == CL_SUCCESS && h->trace_path) {
        v.f.trace = chg_trace_begin(h->trace_path, h->trace_origin);
        for (int d = 0; d < v.f.ndev; d++) chg_trace_align(v.f.trace, d, v.f.fd[d].qk);
    }
    for (int d = 0; d < v.f.ndev && err == CL_SUCCESS; d++) err = chg_fx_up_start(&v.f, d);
    const int looped = err == CL_SUCCESS;
    if (looped) err = run_loop(&v);
    chg_fu_slow_stop(&v.f); /* its waits complete at once: nothing is left behind them */
    int dropped = 0;
    if (v.f.fd) {
        const cl_int up = chg_fx_up_join(&v.f);
        if (err == CL_SUCCESS) err = up;
        drain(&v.f);
        for (int i = 0; i < 2; i++) chg_fx_home_finish(&v.f, &v.home[i]);
        if (err != CL_SUCCESS && looped && err != CLHGEMM_NO_CPU_LAPACK) {
            err = rescue(&v, err);
            for (int d = 0; d < v.f.ndev; d++) dropped |= v.f.fd[d].hd->lost;
        } else if (err == CL_SUCCESS && c->kind == CHG_FACT_GETRF) {
            chg_fx_swaps(&v.f, v.ipiv0, 0, v.f.kmax, v.f.nsteps * v.f.nb);
        }
        if (v.f.trace) chg_trace_end(v.f.trace); /* a failed write warns by itself */
    }
    drv_free(&v, NULL);
    if (dropped) chg_handle_drop_lost(h);
    pthread_mutex_unlock(&h->call_lock);
    return (clhgemm_status_t)err;
}

/* ---- device buffers ------------------------------------------------------------------------- */

static clhgemm_status_t device_setup(drv_t *v)
{
    chg_fact_t *f = &v->f;
    chg_fact_call_t *c = f->c;
    const chg_device_t *dev;
    cl_context ctx;
    clhgemm_status_t st = chg_queue_device(c->queue, &dev, &ctx);
    if (st != CLHGEMM_SUCCESS) return st;
    f->nb = chg_fact_nb(dev, c);
    st = chg_fact_dist_init(f, 1);
    if (st != CLHGEMM_SUCCESS) return st;
    v->single = 1;
    memset(f->arrived, 1, f->nblk);
    chg_fdev_t *x = &f->fd[0];
    x->ctx = ctx;
    x->dev = dev;
    x->qk = c->queue;
    x->mat = (chg_dview_t){.buf = c->buf, .off = c->off, .ld = c->lda, .trans = c->trans};
    cl_device_id id = NULL;
    cl_int err = clGetCommandQueueInfo(c->queue, CL_QUEUE_DEVICE, sizeof id, &id, NULL);
    if (err == CL_SUCCESS) x->qh = clCreateCommandQueue(ctx, id, 0, &err);
    if (err == CL_SUCCESS) x->qd = clCreateCommandQueue(ctx, id, 0, &err);
    if (err == CL_SUCCESS) err = chg_fact_dist_alloc(f, 0);
    if (err == CL_SUCCESS) err = (cl_int)host_buffers(v);
    for (int i = 0; i < 3 && err == CL_SUCCESS; i++)
        err = chg_pinned_alloc(ctx, c->queue, pin_bytes(v), &v->own_pin[i]);
    v->pin = v->own_pin;
    v->pld = c->m;
    return (clhgemm_status_t)err;
}

clhgemm_status_t chg_fact_run_device(chg_fact_call_t *c)
{
    drv_t v;
    memset(&v, 0, sizeof v);
    v.f.c = c;
    c->info = 0;
    cl_int err = (cl_int)device_setup(&v);
    if (err == CL_SUCCESS) err = run_loop(&v);
    if (v.f.fd) {
        drain(&v.f);
        chg_fdev_t *x = &v.f.fd[0];
        if (x->qh) clReleaseCommandQueue(x->qh);
        if (x->qd) clReleaseCommandQueue(x->qd);
        x->qh = x->qd = NULL;
    }
    drv_free(&v, c->queue);
    return (clhgemm_status_t)err;
}
