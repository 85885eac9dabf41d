/*
 * trsm_strips.c -- host-memory TRSM by strips of right-hand sides (trsm_strips.h says what).
 *
 * Everything is enqueued from the calling thread without waiting: per device, A's triangle is
 * written (one rectangle per block column of nb, from the caller's memory) on the h2d queue and
 * its diagonal blocks inverted on the kernel queue; then strip s goes to device s % ndev, slot
 * (s / ndev) % 2: its upload waits for the read-back of the strip that used the slot before,
 * its solve (chg_trsm_dev_solve on the in-order kernel queue, so that the solves of one device
 * share one W one after the other) waits for the upload and the inversion, and its read-back
 * for the solve. The thread then waits for every read-back. The copies go straight between the
 * caller's memory and the device (clEnqueue{Write,Read}BufferRect), not through the pipeline's
 * pinned staging: a first version, simple and right on every driver; whether staging pays off
 * on a GPU is for the H100 measurements (docs/PERFORMANCE.md).
 *
 * Strip width: CLHGEMM_TRSM_STRIP right-hand sides when set (a test hook and for experiments),
 * else the right-hand sides over 8 strips per device, at least 512 (wide enough for the GEMMs,
 * and 1/8 of B per device is what the first upload and the last read-back leave exposed),
 * halved while the strips do not fit a device (never below 256 or the forced width: then the
 * call takes the blocked path).
 */
#include "host/trsm_strips.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/trace.h"
#include "core/trsm.h"
#include "core/trsm_dev.h"

/* Device bytes of the strips on one device: A (k x k, dense), D and W, `slots` strips of k x w,
 * and what the GEMM core's workspace may take for the largest update (k/2 x w, inner k/2). */
static unsigned long long need_bytes(const hdev_t *d, chg_precision_t prec, size_t k, size_t nb,
                                     size_t w, int slots)
{
    const unsigned long long es = chg_elem_size(prec), kk = k;
    const unsigned long long ws = CHG_MIN(chg_workspace_budget(&d->dev),
                                          (kk * kk / 4 + kk * w) * es);
    return kk * kk * es + chg_trsm_dev_bytes(&d->dev, prec, k, nb, w) + slots * kk * w * es + ws;
}

/* The strip width (right-hand sides per strip), 0 when the strips do not fit. */
static size_t strip_width(clhgemm_handle_t h, chg_precision_t prec, size_t k, size_t nb,
                          size_t rhs)
{
    const size_t forced = (size_t)chg_env_int("CLHGEMM_TRSM_STRIP", 0, 0, INT_MAX);
    size_t w = forced ? CHG_MIN(forced, rhs)
                      : CHG_MAX(chg_ceil_div(rhs, 8 * (size_t)h->ndev), CHG_MIN(rhs, (size_t)512));
    const size_t wmin = forced ? w : CHG_MIN(rhs, (size_t)256);
    for (;;) {
        const int slots = chg_ceil_div(rhs, w) > (size_t)h->ndev ? 2 : 1;
        int fit = 1;
        for (int i = 0; i < h->ndev && fit; i++)
            fit = need_bytes(&h->devs[i], prec, k, nb, w, slots) <= h->devs[i].mem_limit;
        if (fit) return w;
        if (w / 2 < wmin) return 0;
        w = chg_ceil_div(w, 2);
    }
}

/* One device's part. */
typedef struct sdev_s {
    hdev_t *d;
    cl_mem a, slot[2];
    chg_trsm_dev_t t;
    int have_t;
    cl_event inv;
    cl_event back[2]; /* the read-back of the strip in each slot, NULL before its first */
} sdev_t;

/* The call. */
typedef struct strips_s {
    clhgemm_handle_t h;
    chg_precision_t prec;
    const chg_l3_shape_t *sh;
    double alpha;
    const char *A;
    char *B;
    size_t lda, ldb, es, k, nb, rhs, w;
    sdev_t *sd;
    int any_back;  /* some read-back was enqueued: B may be touched */
    double to_dev, from_dev;
} strips_t;

/* The rectangle of rows r0 .. r1, columns c0 .. c1 of a column-major host matrix (ld) to/from
 * a device buffer whose (0, 0) is its element (0, 0) (leading dimension dld), non-blocking. */
static cl_int rect(cl_command_queue q, int write, cl_mem buf, size_t dld, const char *host,
                   size_t ld, size_t es, size_t r0, size_t r1, size_t c0, size_t c1,
                   cl_uint nw, const cl_event *wl, cl_event *ev)
{
    const size_t o[3] = {r0 * es, c0, 0}, reg[3] = {(r1 - r0) * es, c1 - c0, 1};
    return write ? clEnqueueWriteBufferRect(q, buf, CL_FALSE, o, o, reg, dld * es, 0, ld * es, 0,
                                            host, nw, wl, ev)
                 : clEnqueueReadBufferRect(q, buf, CL_FALSE, o, o, reg, dld * es, 0, ld * es, 0,
                                           (void *)host, nw, wl, ev);
}

/* A's triangle to the device (block columns of nb) and the inversion after it. */
static cl_int setup_device(strips_t *c, sdev_t *s)
{
    cl_int err = CL_SUCCESS;
    const size_t k = c->k, es = c->es, slots = chg_ceil_div(c->rhs, c->w) > (size_t)c->h->ndev ? 2 : 1;
    s->a = clCreateBuffer(s->d->ctx, CL_MEM_READ_ONLY, k * k * es, NULL, &err);
    for (size_t i = 0; i < slots && err == CL_SUCCESS; i++)
        s->slot[i] = clCreateBuffer(s->d->ctx, CL_MEM_READ_WRITE, k * c->w * es, NULL, &err);
    if (err != CL_SUCCESS) return err;
    clhgemm_status_t st = chg_trsm_dev_init(&s->t, s->d->ctx, &s->d->dev, c->prec, c->sh, c->nb,
                                            c->w);
    if (st != CLHGEMM_SUCCESS) return (cl_int)st;
    s->have_t = 1;
    cl_event up = NULL;
    for (size_t c0 = 0; c0 < k && err == CL_SUCCESS; c0 += c->nb) {
        const size_t c1 = CHG_MIN(k, c0 + c->nb);
        if (up) clReleaseEvent(up);
        up = NULL;
        err = rect(s->d->q[Q_H2D], 1, s->a, k, c->A, c->lda, es, c->sh->upper ? 0 : c0,
                   c->sh->upper ? c1 : k, c0, c1, 0, NULL, &up);
    }
    c->to_dev += (double)k * (k + c->nb) / 2 * es;
    if (err == CL_SUCCESS)
        err = (cl_int)chg_trsm_dev_invert(&s->t, s->d->q[Q_KERNEL], s->a, 0, k, 1, &up, &s->inv);
    if (up) clReleaseEvent(up);
    return err;
}

/* Strip s: right-hand sides j0 .. j1 on device s % ndev. */
static cl_int run_strip(strips_t *c, size_t s)
{
    sdev_t *sd = &c->sd[s % (size_t)c->h->ndev];
    const int slot = (int)(s / (size_t)c->h->ndev % 2);
    const size_t j0 = s * c->w, j1 = CHG_MIN(c->rhs, j0 + c->w), wn = j1 - j0, k = c->k;
    const int left = c->sh->left;
    /* the strip on the device: k x wn (ld k) for side left, wn x k (ld wn) for side right */
    const size_t dld = left ? k : wn;
    const size_t r0 = left ? 0 : j0, r1 = left ? k : j1, c0 = left ? j0 : 0, c1 = left ? j1 : k;
    const char *hb = c->B + (left ? 0 : j0 * c->es) + (left ? j0 * c->ldb * c->es : 0);
    cl_event up = NULL, solved = NULL, back = NULL;
    const cl_uint nw = sd->back[slot] ? 1 : 0;
    cl_int err = rect(sd->d->q[Q_H2D], 1, sd->slot[slot], dld, hb, c->ldb, c->es, 0, r1 - r0, 0,
                      c1 - c0, nw, nw ? &sd->back[slot] : NULL, &up);
    if (err == CL_SUCCESS) {
        const cl_event wl[2] = {up, sd->inv};
        err = (cl_int)chg_trsm_dev_solve(&sd->t, sd->d->q[Q_KERNEL], sd->a, 0, k, wn, c->alpha,
                                         sd->slot[slot], 0, dld, 2, wl, &solved);
    }
    if (err == CL_SUCCESS)
        err = rect(sd->d->q[Q_D2H], 0, sd->slot[slot], dld, hb, c->ldb, c->es, 0, r1 - r0, 0,
                   c1 - c0, 1, &solved, &back);
    if (err == CL_SUCCESS) {
        c->any_back = 1;
        if (sd->back[slot]) clReleaseEvent(sd->back[slot]);
        sd->back[slot] = back;
        c->to_dev += (double)k * wn * c->es;
        c->from_dev += (double)k * wn * c->es;
    }
    if (up) clReleaseEvent(up);
    if (solved) clReleaseEvent(solved);
    return err;
}

/* Waits for every device's queues (all that was enqueued ends) and frees the device state. */
static cl_int finish(strips_t *c)
{
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < c->h->ndev; i++) {
        sdev_t *s = &c->sd[i];
        for (int q = 0; q < 3; q++) {
            const cl_int e = clFinish(s->d->q[q]);
            if (err == CL_SUCCESS) err = e;
        }
        for (int j = 0; j < 2; j++)
            if (s->back[j]) {
                cl_int es = CL_COMPLETE;
                clGetEventInfo(s->back[j], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof es, &es, NULL);
                if (es < 0 && err == CL_SUCCESS) err = es;
                clReleaseEvent(s->back[j]);
            }
        if (s->inv) clReleaseEvent(s->inv);
        if (s->have_t) chg_trsm_dev_release(&s->t);
        if (s->a) clReleaseMemObject(s->a);
        for (int j = 0; j < 2; j++)
            if (s->slot[j]) clReleaseMemObject(s->slot[j]);
    }
    return err;
}

static void record(strips_t *c, size_t strips, double seconds)
{
    chg_handle_set_last(c->h, &(clhgemm_call_info_t){.devices_used = c->h->ndev, .tiles = (long long)strips,
                                       .tile_m = (int)(c->sh->left ? c->k : c->w),
                                       .tile_n = (int)(c->sh->left ? c->w : c->k),
                                       .tile_k = (int)c->k, .seconds = seconds,
                                       .bytes_to_device = c->to_dev,
                                       .bytes_from_device = c->from_dev, .a_mode = 1});
}

int chg_trsm_strips(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                    double alpha, const void *A, size_t lda, void *B, size_t ldb,
                    clhgemm_status_t *st)
{
    if (chg_trsm_panel_mode() != CHG_TRSM_PANEL_DEVICE) return 0;
    strips_t c = {.h = h, .prec = prec, .sh = sh, .alpha = alpha, .A = A, .B = B, .lda = lda,
                  .ldb = ldb, .es = chg_elem_size(prec), .k = sh->k,
                  .rhs = sh->left ? sh->n : sh->m};
    c.nb = CHG_MIN(chg_trsm_nb(), c.k);
    c.w = strip_width(h, prec, c.k, c.nb, c.rhs);
    if (c.w == 0) return 0;
    c.sd = calloc((size_t)h->ndev, sizeof *c.sd);
    if (!c.sd) {
        *st = CLHGEMM_OUT_OF_HOST_MEMORY;
        return 1;
    }
    pthread_mutex_lock(&h->call_lock);
    const unsigned long long t0 = chg_now_ns();
    const size_t strips = chg_ceil_div(c.rhs, c.w);
    chg_log(1, "trsm: k = %zu, %zu right-hand sides in %zu strips of %zu over %d device(s), "
            "nb = %zu", c.k, c.rhs, strips, c.w, h->ndev, c.nb);
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < h->ndev && err == CL_SUCCESS; i++) {
        c.sd[i].d = &h->devs[i];
        err = setup_device(&c, &c.sd[i]);
    }
    for (size_t s = 0; s < strips && err == CL_SUCCESS; s++) err = run_strip(&c, s);
    const cl_int ferr = finish(&c);
    if (err == CL_SUCCESS) err = ferr;
    if (err == CL_SUCCESS) record(&c, strips, chg_seconds_since(t0));
    pthread_mutex_unlock(&h->call_lock);
    free(c.sd);
    const int ran = err == CL_SUCCESS || c.any_back ||
                    (err != CL_MEM_OBJECT_ALLOCATION_FAILURE && err != CL_OUT_OF_RESOURCES);
    if (!ran) chg_log(1, "trsm: the strips did not get their device memory (%d); blocked path", err);
    *st = (clhgemm_status_t)err;
    return ran;
}
