/*
 * fact_update.c -- the factorizations' device work (fact_update.h): the level-3 core's calls on
 * views of a device's blocks, and cl/lapack.cl's kernels.
 *
 * A view stored transposed (fact.h) is passed to the core as a row-major matrix with the
 * view's own arguments: the core's row-major mapping is exactly that storage, so each update
 * is written once, in the column-major view, for both orientations.
 */
#include "lapack/fact_update.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "core/l3_map.h"
#include "core/trsm_dev.h"
#include "core/trsm_subst.h"
#include "kernels/params.h"

static int layout_of(const chg_fact_t *f)
{
    return f->c->trans ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
}

/* ---- the core's calls on views -------------------------------------------------------------- */

/* C := alpha op(A) op(B) + beta C (m x n, inner k) on device d. */
static cl_int gemm(chg_fact_t *f, int d, int ta, int tb, size_t m, size_t n, size_t k,
                   double alpha, chg_dview_t A, chg_dview_t B, double beta, chg_dview_t C)
{
    if (!m || !n) return CL_SUCCESS;
    chg_gemm_args_t a = {.prec = f->c->prec, .alpha = alpha, .beta = beta, .k = k,
                         .c = C.buf, .off_c = C.off, .ldc = C.ld};
    if (!C.trans) {
        a.m = m, a.n = n, a.trans_a = ta, a.trans_b = tb;
        a.a = A.buf, a.off_a = A.off, a.lda = A.ld;
        a.b = B.buf, a.off_b = B.off, a.ldb = B.ld;
    } else { /* C^T = op(B)^T op(A)^T on the stored (transposed) matrices */
        a.m = n, a.n = m, a.trans_a = tb, a.trans_b = ta;
        a.a = B.buf, a.off_a = B.off, a.lda = B.ld;
        a.b = A.buf, a.off_b = A.off, a.ldb = A.ld;
    }
    if (!k || alpha == 0.0) a.k = 0;
    const chg_fdev_t *x = &f->fd[d];
    return (cl_int)chg_gemm_enqueue_on(&a, x->dev, x->ctx, x->qk, 0, NULL, NULL);
}

/* C (n x n, lower in the view) := alpha op(A) op(A)^T + beta C, op(A) n x k. */
static cl_int syrk(chg_fact_t *f, int d, int trans, size_t n, size_t k, double alpha,
                   chg_dview_t A, double beta, chg_dview_t C)
{
    if (!n) return CL_SUCCESS;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_syrk_check_shape(layout_of(f), CLHGEMM_LOWER,
                                               trans ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS, (int)n,
                                               (int)k, (int)A.ld, 1, (int)C.ld, 0, &sh);
    if (st != CLHGEMM_SUCCESS) return (cl_int)st;
    chg_gemm_args_t a;
    const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};
    chg_l3_core_args(&sh, f->c->prec, al, A.buf, A.off, A.ld, NULL, 0, 1, be, C.buf, C.off, C.ld,
                     &a);
    const chg_fdev_t *x = &f->fd[d];
    return (cl_int)chg_gemm_enqueue_on(&a, x->dev, x->ctx, x->qk, 0, NULL, NULL);
}

/* B := alpha op(A)^-1 B (left) or alpha B op(A)^-1 (right), B m x n, on the device's TRSM
 * (its diagonal blocks inverted by a kernel, then GEMMs). */
static cl_int trsm(chg_fact_t *f, int d, int left, int lower, int ta, int unit, size_t m,
                   size_t n, double alpha, chg_dview_t A, chg_dview_t B)
{
    if (!m || !n) return CL_SUCCESS;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_trsm_check_shape(
        layout_of(f), left ? CLHGEMM_LEFT : CLHGEMM_RIGHT, lower ? CLHGEMM_LOWER : CLHGEMM_UPPER,
        ta ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS, unit ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT, (int)m,
        (int)n, (int)A.ld, (int)B.ld, &sh);
    if (st != CLHGEMM_SUCCESS) return (cl_int)st;
    const chg_fdev_t *x = &f->fd[d];
    chg_trsm_dev_t t;
    st = chg_trsm_dev_init(&t, x->ctx, x->dev, f->c->prec, &sh, chg_trsm_nb(x->dev, f->c->prec));
    if (st != CLHGEMM_SUCCESS) return (cl_int)st;
    cl_event inv = NULL, done = NULL;
    st = chg_trsm_dev_invert(&t, x->qk, A.buf, A.off, A.ld, 0, NULL, &inv);
    if (st == CLHGEMM_SUCCESS)
        st = chg_trsm_dev_solve(&t, x->qk, A.buf, A.off, A.ld, sh.left ? sh.n : sh.m,
                                (const double[2]){alpha, 0.0}, B.buf, B.off, B.ld, 1, &inv,
                                &done);
    if (inv) clReleaseEvent(inv);
    if (done) clReleaseEvent(done);
    chg_trsm_dev_release(&t);
    return (cl_int)st;
}

/* B (m x n) := alpha op(A) B with A upper triangular (m x m) in place: QR's W := T^T W. */
static cl_int trmm_upper_left(chg_fact_t *f, int d, int ta, size_t m, size_t n, double alpha,
                              chg_dview_t A, chg_dview_t B)
{
    if (!m || !n) return CL_SUCCESS;
    chg_l3_shape_t sh;
    clhgemm_status_t st =
        chg_trmm_check_shape(layout_of(f), CLHGEMM_LEFT, CLHGEMM_UPPER,
                             ta ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS, CLHGEMM_NON_UNIT, (int)m,
                             (int)n, (int)A.ld, (int)B.ld, &sh);
    if (st != CLHGEMM_SUCCESS) return (cl_int)st;
    chg_gemm_args_t a;
    const double al[2] = {alpha, 0.0}, zero[2] = {0.0, 0.0};
    chg_l3_core_args(&sh, f->c->prec, al, A.buf, A.off, A.ld, B.buf, B.off, B.ld, zero, NULL, 0,
                     0, &a);
    const chg_fdev_t *x = &f->fd[d];
    return (cl_int)chg_gemm_enqueue_on(&a, x->dev, x->ctx, x->qk, 0, NULL, NULL);
}

/* ---- cl/lapack.cl --------------------------------------------------------------------------- */

static cl_int lapack_kernel(cl_context ctx, const chg_device_t *dev, chg_precision_t prec,
                            const char *entry, cl_kernel *k)
{
    return (cl_int)chg_kernel_get_cl(ctx, dev, "lapack.cl",
                                     prec == CHG_F64 ? "dlapack" : "slapack", 1,
                                     prec == CHG_F64 ? "#define PRECISION 64\n"
                                                     : "#define PRECISION 32\n",
                                     entry, k);
}

/* Runs kernel `entry` of cl/lapack.cl over gws (dims dimensions, work-groups lws) with the
 * arguments args. */
typedef struct karg_s {
    size_t size;
    const void *p;
} karg_t;

static cl_int launch_on(cl_context ctx, const chg_device_t *dev, chg_precision_t prec,
                        cl_command_queue q, const char *entry, const karg_t *args, int nargs,
                        cl_uint dims, const size_t *gws, const size_t *lws, cl_event *ev)
{
    cl_kernel k = NULL;
    cl_int err = lapack_kernel(ctx, dev, prec, entry, &k);
    for (int i = 0; i < nargs && err == CL_SUCCESS; i++)
        err = clSetKernelArg(k, (cl_uint)i, args[i].size, args[i].p);
    if (err == CL_SUCCESS) err = clEnqueueNDRangeKernel(q, k, dims, NULL, gws, lws, 0, NULL, ev);
    if (k) clReleaseKernel(k);
    return err;
}

static cl_int launch(chg_fact_t *f, int d, const char *entry, const karg_t *args, int nargs,
                     cl_uint dims, const size_t *gws, const size_t *lws)
{
    const chg_fdev_t *x = &f->fd[d];
    return launch_on(x->ctx, x->dev, f->c->prec, x->qk, entry, args, nargs, dims, gws, lws, NULL);
}

static size_t round_up(size_t x, size_t q) { return (x + q - 1) / q * q; }

/* Rows s and piv[s] (0-based rows of the view) interchanged, for s = s0 .. s1 - 1 in order, on
 * columns [0, ncols) of view A, whose row 0 is the view's row rbase. */
static cl_int laswp_view(chg_fact_t *f, int d, chg_dview_t A, size_t ncols, size_t s0, size_t s1,
                         size_t rbase)
{
    if (!ncols || s1 <= s0) return CL_SUCCESS;
    const cl_ulong off = A.off, rs = A.trans ? A.ld : 1, cs = A.trans ? 1 : A.ld;
    const cl_uint nc = (cl_uint)ncols, a0 = (cl_uint)s0, a1 = (cl_uint)s1, rb = (cl_uint)rbase;
    const cl_int fwd = 1;
    cl_mem piv = f->fd[d].piv;
    const karg_t args[] = {{sizeof(cl_mem), &A.buf}, {sizeof off, &off}, {sizeof rs, &rs},
                           {sizeof cs, &cs},         {sizeof nc, &nc},   {sizeof a0, &a0},
                           {sizeof a1, &a1},         {sizeof(cl_mem), &piv}, {sizeof fwd, &fwd},
                           {sizeof rb, &rb}};
    const size_t gws[1] = {round_up(ncols, 64)}, lws[1] = {64};
    return launch(f, d, "laswp", args, 10, 1, gws, lws);
}

/* dst (rows x w, column-major view of the same orientation) := the unit lower trapezoid of
 * src. */
static cl_int unit_lower(chg_fact_t *f, int d, chg_dview_t src, chg_dview_t dst, size_t rows,
                         size_t w)
{
    if (!rows || !w) return CL_SUCCESS;
    const cl_ulong so = src.off, srs = src.trans ? src.ld : 1, scs = src.trans ? 1 : src.ld;
    const cl_ulong dof = dst.off, drs = dst.trans ? dst.ld : 1, dcs = dst.trans ? 1 : dst.ld;
    const cl_uint r = (cl_uint)rows, c = (cl_uint)w;
    const karg_t args[] = {{sizeof(cl_mem), &src.buf}, {sizeof so, &so},   {sizeof srs, &srs},
                           {sizeof scs, &scs},         {sizeof(cl_mem), &dst.buf},
                           {sizeof dof, &dof},         {sizeof drs, &drs}, {sizeof dcs, &dcs},
                           {sizeof r, &r},             {sizeof c, &c}};
    const size_t gws[2] = {round_up(rows, 64), w}, lws[2] = {64, 1};
    return launch(f, d, "unit_lower", args, 10, 2, gws, lws);
}

/* dst := src^T as stored: src rows x cols (column-major, ld), dst cols x rows (ld). */
static cl_int transpose(chg_fact_t *f, int d, cl_mem src, size_t soff, size_t sld, cl_mem dst,
                        size_t doff, size_t dld, size_t rows, size_t cols)
{
    if (!rows || !cols) return CL_SUCCESS;
    const cl_ulong so = soff, sl = sld, dof = doff, dl = dld;
    const cl_uint r = (cl_uint)rows, c = (cl_uint)cols;
    const karg_t args[] = {{sizeof(cl_mem), &src}, {sizeof so, &so}, {sizeof sl, &sl},
                           {sizeof(cl_mem), &dst}, {sizeof dof, &dof}, {sizeof dl, &dl},
                           {sizeof r, &r},         {sizeof c, &c}};
    const size_t gws[2] = {round_up(rows, 16), round_up(cols, 16)}, lws[2] = {16, 16};
    return launch(f, d, "transpose", args, 8, 2, gws, lws);
}

/* ---- the trace's spans ---------------------------------------------------------------------- */

/* A marker before a traced group of commands (NULL when not tracing). */
static cl_event span_open(chg_fact_t *f, int d)
{
    cl_event ev = NULL;
    if (f->trace && clEnqueueMarkerWithWaitList(f->fd[d].qk, 0, NULL, &ev) != CL_SUCCESS)
        ev = NULL;
    return ev;
}

/* The group since `first` as one span "name k" on the device's kernel track. */
static cl_int span_close(chg_fact_t *f, int d, cl_event first, const char *name, size_t k,
                         cl_int err)
{
    if (!first) return err;
    cl_event last = NULL;
    if (err == CL_SUCCESS &&
        clEnqueueMarkerWithWaitList(f->fd[d].qk, 0, NULL, &last) == CL_SUCCESS) {
        char track[48], label[64];
        snprintf(track, sizeof track, "dev%d kernel", f->fd[d].index);
        snprintf(label, sizeof label, "%s %zu", name, k);
        chg_trace_device_span(f->trace, f->fd[d].index, track, label, first, last);
    }
    if (last) clReleaseEvent(last);
    clReleaseEvent(first);
    return err;
}

/* ---- markers -------------------------------------------------------------------------------- */

/* ---- a slowed device (CLHGEMM_FACTOR_SLOW) ------------------------------------------------- */

#define SLOW_RING 64 /* waits enqueued and not yet completed, at most */

struct chg_fu_slow_s {
    int dev;
    long ms;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    cl_event ring[SLOW_RING];
    size_t head, tail; /* ring[head % SLOW_RING] is the next to complete */
    int stop;
};

/* Completes each user event ms after it was queued (at once after stop). */
static void *slow_thread(void *arg)
{
    struct chg_fu_slow_s *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->head == s->tail && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
        if (s->head == s->tail) break;
        cl_event ev = s->ring[s->head % SLOW_RING];
        const int now = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (!now) {
            const struct timespec ts = {.tv_sec = s->ms / 1000, .tv_nsec = s->ms % 1000 * 1000000L};
            nanosleep(&ts, NULL);
        }
        clSetUserEventStatus(ev, CL_COMPLETE);
        clReleaseEvent(ev);
        pthread_mutex_lock(&s->mu);
        s->head++;
        pthread_cond_broadcast(&s->cv); /* a full ring has room again */
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

clhgemm_status_t chg_fu_slow_start(chg_fact_t *f)
{
    const char *v = chg_getenv("CLHGEMM_FACTOR_SLOW");
    if (!v || !*v) return CLHGEMM_SUCCESS;
    const char *colon = strchr(v, ':');
    char dev[32];
    long d = -1, ms = -1;
    if (colon && (size_t)(colon - v) < sizeof dev) {
        memcpy(dev, v, (size_t)(colon - v));
        dev[colon - v] = '\0';
        if (!chg_parse_long(dev, &d) || !chg_parse_long(colon + 1, &ms)) d = ms = -1;
    }
    if (d < 0 || d >= f->ndev || ms < 1 || ms > 10000) {
        chg_env_warn("CLHGEMM_FACTOR_SLOW", v,
                     "is not DEVICE:MS with a device of this call (0 .. %d) and 1 .. 10000 ms; "
                     "no device is slowed", f->ndev - 1);
        return CLHGEMM_SUCCESS;
    }
    struct chg_fu_slow_s *s = calloc(1, sizeof *s);
    if (!s) return CLHGEMM_OUT_OF_HOST_MEMORY;
    s->dev = (int)d;
    s->ms = ms;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->th, NULL, slow_thread, s) != 0) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        free(s);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    chg_log(1, "factor: CLHGEMM_FACTOR_SLOW: device %ld waits %ld ms before each step's update",
            d, ms);
    f->slow = s;
    return CLHGEMM_SUCCESS;
}

cl_int chg_fu_slow_step(chg_fact_t *f, int d)
{
    struct chg_fu_slow_s *s = f->slow;
    if (!s || d != s->dev) return CL_SUCCESS;
    cl_int err = CL_SUCCESS;
    cl_event ev = clCreateUserEvent(f->fd[d].ctx, &err);
    if (err != CL_SUCCESS) return chg_fact_fail(f, d, err);
    err = clEnqueueMarkerWithWaitList(f->fd[d].qk, 1, &ev, NULL);
    if (err != CL_SUCCESS) { /* nothing waits for it */
        clSetUserEventStatus(ev, CL_COMPLETE);
        clReleaseEvent(ev);
        return chg_fact_fail(f, d, err);
    }
    clFlush(f->fd[d].qk);
    pthread_mutex_lock(&s->mu);
    while (s->tail - s->head == SLOW_RING) pthread_cond_wait(&s->cv, &s->mu);
    s->ring[s->tail++ % SLOW_RING] = ev; /* the thread completes and releases it */
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return CL_SUCCESS;
}

void chg_fu_slow_stop(chg_fact_t *f)
{
    struct chg_fu_slow_s *s = f->slow;
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->th, NULL);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
    f->slow = NULL;
}

/* ---- markers -------------------------------------------------------------------------------- */

cl_int chg_fu_after(chg_fact_t *f, int d, cl_event ev)
{
    if (!ev) return CL_SUCCESS;
    return chg_fact_fail(f, d, clEnqueueMarkerWithWaitList(f->fd[d].qk, 1, &ev, NULL));
}

cl_int chg_fu_mark(chg_fact_t *f, int d, cl_event *ev)
{
    return chg_fact_fail(f, d, clEnqueueMarkerWithWaitList(f->fd[d].qk, 0, NULL, ev));
}

/* ---- the updates ---------------------------------------------------------------------------- */

/* Panel k's pivots or reflectors: its block's width, or its rows where fewer (m < n). */
static size_t pw(const chg_fact_t *f, size_t k)
{
    const size_t w = chg_fact_w(f, k), rows = f->c->m - k * f->nb;
    return rows < w ? rows : w;
}

/* Cholesky: rows [r0, r1) x local columns [jl, jl + w) (view columns c0 ..) -= L(r0:r1, k) *
 * L(c0:c0+w, k)^T, the part on and above... only rows r >= c0 (lower). */
static cl_int potrf_rows(chg_fact_t *f, int d, size_t k, size_t c0, size_t jl, size_t w,
                         size_t r0, size_t r1)
{
    const size_t kr = k * f->nb, kw = pw(f, k);
    const chg_dview_t P = chg_fact_panel(f, d, k); /* view row kr */
    if (r1 <= r0) return CL_SUCCESS;
    return gemm(f, d, 0, 1, r1 - r0, w, kw, -1.0, chg_dview_at(P, r0 - kr, 0),
                chg_dview_at(P, c0 - kr, 0), 1.0, chg_fact_local(f, d, r0, jl));
}

static cl_int potrf_diag(chg_fact_t *f, size_t k, size_t j)
{
    const int d = f->owner[j];
    const size_t kr = k * f->nb, c0 = chg_fact_c0(f, j), w = chg_fact_w(f, j);
    const chg_dview_t P = chg_fact_panel(f, d, k);
    return syrk(f, d, 0, w, pw(f, k), -1.0, chg_dview_at(P, c0 - kr, 0), 1.0,
                chg_fact_block(f, j, c0));
}

static cl_int potrf_below(chg_fact_t *f, size_t k, size_t j)
{
    const int d = f->owner[j];
    const size_t c0 = chg_fact_c0(f, j), w = chg_fact_w(f, j);
    return potrf_rows(f, d, k, c0, f->lcol[j], w, c0 + w, f->c->n);
}

/* LU with panel k on local columns [jl, jl + w): interchanges, U12, A22. */
static cl_int getrf_apply(chg_fact_t *f, int d, size_t k, size_t jl, size_t w)
{
    const size_t kr = k * f->nb, kw = pw(f, k), m = f->c->m;
    const chg_dview_t P = chg_fact_panel(f, d, k);
    cl_int err = laswp_view(f, d, chg_fact_local(f, d, 0, jl), w, kr, kr + kw, 0);
    if (err == CL_SUCCESS)
        err = trsm(f, d, 1, 1, 0, 1, kw, w, 1.0, P, chg_fact_local(f, d, kr, jl));
    if (err == CL_SUCCESS)
        err = gemm(f, d, 0, 0, m - kr - kw, w, kw, -1.0, chg_dview_at(P, kw, 0),
                   chg_fact_local(f, d, kr, jl), 1.0, chg_fact_local(f, d, kr + kw, jl));
    return err;
}

/* QR with panel k's V (fd[d].v) and T (fd[d].t) on local columns [jl, jl + w), rows [k nb, m). */
static cl_int geqrf_apply(chg_fact_t *f, int d, size_t k, size_t jl, size_t w)
{
    const chg_fdev_t *x = &f->fd[d];
    const size_t kr = k * f->nb, kw = pw(f, k), rows = f->c->m - kr;
    const int tr = f->c->trans;
    const chg_dview_t V = {.buf = x->v, .off = 0, .ld = tr ? f->nb : f->c->m, .trans = tr};
    const chg_dview_t T = {.buf = x->t, .off = k * f->nb * f->nb, .ld = f->nb, .trans = tr};
    const chg_dview_t W = {.buf = x->w, .off = 0, .ld = tr ? x->ncols : f->nb, .trans = tr};
    const chg_dview_t C = chg_fact_local(f, d, kr, jl);
    cl_int err = gemm(f, d, 1, 0, kw, w, rows, 1.0, V, C, 0.0, W);
    if (err == CL_SUCCESS) err = trmm_upper_left(f, d, 1, kw, w, 1.0, T, W);
    if (err == CL_SUCCESS) err = gemm(f, d, 0, 0, rows, w, kw, -1.0, V, W, 1.0, C);
    return err;
}

static cl_int apply(chg_fact_t *f, int d, size_t k, size_t c0, size_t jl, size_t w)
{
    switch (f->c->kind) {
    case CHG_FACT_POTRF: {
        const size_t kr = k * f->nb;
        const chg_dview_t P = chg_fact_panel(f, d, k);
        cl_int err = syrk(f, d, 0, w, pw(f, k), -1.0, chg_dview_at(P, c0 - kr, 0), 1.0,
                          chg_fact_local(f, d, c0, jl));
        if (err == CL_SUCCESS) err = potrf_rows(f, d, k, c0, jl, w, c0 + w, f->c->n);
        return err;
    }
    case CHG_FACT_GETRF: return getrf_apply(f, d, k, jl, w);
    case CHG_FACT_GEQRF: return geqrf_apply(f, d, k, jl, w);
    }
    return CLHGEMM_INTERNAL_ERROR;
}

/* QR's V of panel p (rows p nb .. m of its block, at P: the view's row p nb) into fd[d].v. */
static cl_int qr_v_from(chg_fact_t *f, int d, size_t p, chg_dview_t P)
{
    const chg_fdev_t *x = &f->fd[d];
    const size_t rows = f->c->m - p * f->nb;
    const int tr = f->c->trans;
    const chg_dview_t V = {.buf = x->v, .off = 0, .ld = tr ? f->nb : f->c->m, .trans = tr};
    return unit_lower(f, d, P, V, rows, pw(f, p));
}

/* Panels [from, to) applied to local columns [jl, jl + w) (view columns c0 ..) of device d,
 * which hold panels [0, from) already, reading the panels from src. */
static cl_int catch_up(chg_fact_t *f, int d, size_t from, size_t to, size_t c0, size_t jl,
                       size_t w, const chg_lsrc_t *src)
{
    if (to <= from) return CL_SUCCESS;
    const size_t m = f->c->m, nb = f->nb;
    const size_t kr0 = from * nb, kr1 = to * nb < f->kmax ? to * nb : f->kmax, kk = kr1 - kr0;
    switch (f->c->kind) {
    case CHG_FACT_POTRF: {
        cl_int err = syrk(f, d, 0, w, kk, -1.0, chg_lsrc_at(src, c0, kr0), 1.0,
                          chg_fact_local(f, d, c0, jl));
        if (err == CL_SUCCESS)
            err = gemm(f, d, 0, 1, f->c->n - c0 - w, w, kk, -1.0, chg_lsrc_at(src, c0 + w, kr0),
                       chg_lsrc_at(src, c0, kr0), 1.0, chg_fact_local(f, d, c0 + w, jl));
        return err;
    }
    case CHG_FACT_GETRF: {
        /* the panels' interchanges, in order, then one TRSM and one GEMM */
        cl_int err = laswp_view(f, d, chg_fact_local(f, d, 0, jl), w, kr0, kr1, 0);
        if (err == CL_SUCCESS)
            err = trsm(f, d, 1, 1, 0, 1, kk, w, 1.0, chg_lsrc_at(src, kr0, kr0),
                       chg_fact_local(f, d, kr0, jl));
        if (err == CL_SUCCESS)
            err = gemm(f, d, 0, 0, m - kr1, w, kk, -1.0, chg_lsrc_at(src, kr1, kr0),
                       chg_fact_local(f, d, kr0, jl), 1.0, chg_fact_local(f, d, kr1, jl));
        return err;
    }
    case CHG_FACT_GEQRF: {
        cl_int err = CL_SUCCESS;
        for (size_t p = from; p < to && err == CL_SUCCESS; p++) {
            err = qr_v_from(f, d, p, chg_lsrc_at(src, p * nb, p * nb));
            if (err == CL_SUCCESS) err = geqrf_apply(f, d, p, jl, w);
        }
        return err;
    }
    }
    return CLHGEMM_INTERNAL_ERROR;
}

chg_lsrc_t chg_fu_resident(const chg_fact_t *f, int d)
{
    /* one device: its window's blocks side by side, block j at local column (j - w0) nb */
    return (chg_lsrc_t){.L = chg_fact_local(f, d, 0, 0), .r0 = 0, .c0 = f->w0 * f->nb};
}

cl_int chg_fu_stage_swaps(chg_fact_t *f, int d, const chg_lsrc_t *src, size_t p0, size_t p1)
{
    /* block p of the piece went home as of its own step: the interchanges of panels p + 1 ..
     * p1 - 1 bring it to the state after step p1 - 1 */
    const size_t nb = f->nb;
    cl_int err = CL_SUCCESS;
    for (size_t p = p0; p + 1 < p1 && err == CL_SUCCESS; p++) {
        const size_t s1 = p1 * nb < f->kmax ? p1 * nb : f->kmax;
        err = laswp_view(f, d, chg_lsrc_at(src, src->r0, p * nb), pw(f, p), (p + 1) * nb, s1,
                         src->r0);
    }
    return chg_fact_fail(f, d, err);
}

static cl_int potrf_solve(chg_fact_t *f, size_t k)
{
    const int d = f->owner[k];
    const size_t kr = k * f->nb, kw = pw(f, k), n = f->c->n;
    const chg_dview_t D = chg_fact_block(f, k, kr);
    /* L21 := A21 * L_kk^-T: side right, lower, transposed */
    return trsm(f, d, 0, 1, 1, 0, n - kr - kw, kw, 1.0, D, chg_dview_at(D, kw, 0));
}

cl_int chg_fu_qr_v(chg_fact_t *f, int d, size_t k)
{
    return chg_fact_fail(f, d, qr_v_from(f, d, k, chg_fact_panel(f, d, k)));
}

cl_int chg_fu_laswp(chg_fact_t *f, int d, size_t k, size_t jl, size_t w)
{
    return chg_fact_fail(f, d, laswp_view(f, d, chg_fact_local(f, d, 0, jl), w, k * f->nb,
                                          k * f->nb + pw(f, k), 0));
}

cl_int chg_fu_panel_col(chg_fact_t *f, int d, size_t k, size_t r0, int to_col)
{
    /* the transposed view's panel: stored as w rows x (m - r0) columns (ld), the column-major
     * copy m - r0 rows x w columns (ld m) */
    const chg_fdev_t *x = &f->fd[d];
    const chg_dview_t P = chg_fact_panel(f, d, k);
    const size_t kr = k * f->nb, kw = chg_fact_w(f, k), rows = f->c->m - r0;
    const size_t soff = chg_dview_at(P, r0 - kr, 0).off;
    if (to_col)
        return chg_fact_fail(f, d, transpose(f, d, P.buf, soff, P.ld, x->col, r0, f->c->m, kw,
                                             rows));
    return chg_fact_fail(f, d, transpose(f, d, x->col, r0, f->c->m, P.buf, soff, P.ld, rows, kw));
}

/* The body of every update below: the fault hook, then `call` (device d's commands) as one
 * traced span "label k"; an error marks the device failed. */
#define CHG_GUARDED_(f, d, label, k, call)                                                     \
    do {                                                                                       \
        cl_int err_ = chg_fact_injected(f, d);                                                 \
        if (err_ == CL_SUCCESS) {                                                              \
            cl_event first_ = span_open(f, d);                                                 \
            err_ = span_close(f, d, first_, label, k, call);                                   \
        }                                                                                      \
        return chg_fact_fail(f, d, err_);                                                      \
    } while (0)

cl_int chg_fu_apply(chg_fact_t *f, int d, size_t k, size_t c0, size_t jl, size_t w)
{
    CHG_GUARDED_(f, d, "update with panel", k, apply(f, d, k, c0, jl, w));
}

cl_int chg_fu_catch_up(chg_fact_t *f, int d, size_t from, size_t to, size_t c0, size_t jl,
                       size_t w, const chg_lsrc_t *src)
{
    CHG_GUARDED_(f, d, "catch up to panel", to, catch_up(f, d, from, to, c0, jl, w, src));
}

cl_int chg_fu_potrf_solve(chg_fact_t *f, size_t k)
{
    CHG_GUARDED_(f, f->owner[k], "trsm of panel", k, potrf_solve(f, k));
}

cl_int chg_fu_potrf_diag(chg_fact_t *f, size_t k, size_t j)
{
    CHG_GUARDED_(f, f->owner[j], "look-ahead diagonal with panel", k, potrf_diag(f, k, j));
}

cl_int chg_fu_potrf_below(chg_fact_t *f, size_t k, size_t j)
{
    CHG_GUARDED_(f, f->owner[j], "look-ahead below with panel", k, potrf_below(f, k, j));
}

#undef CHG_GUARDED_

clhgemm_status_t chg_fact_laswp_cl(cl_command_queue q, chg_precision_t prec, cl_mem B,
                                   size_t off, size_t ld, int row_major, size_t n, size_t nrhs,
                                   const int *ipiv, int forward)
{
    if (!n || !nrhs) return CLHGEMM_SUCCESS;
    const chg_device_t *dev;
    cl_context ctx;
    clhgemm_status_t st = chg_queue_device(q, &dev, &ctx);
    if (st != CLHGEMM_SUCCESS) return st;
    int *p0 = malloc(n * sizeof *p0);
    if (!p0) return CLHGEMM_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < n; i++) /* a pivot outside the matrix swaps nothing, as getrs skips it */
        p0[i] = ipiv[i] >= 1 && (size_t)ipiv[i] <= n ? ipiv[i] - 1 : (int)i;
    cl_int err = CL_SUCCESS;
    cl_mem piv = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *p0, p0,
                                &err);
    free(p0);
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    const cl_ulong o = off, rs = row_major ? ld : 1, cs = row_major ? 1 : ld;
    const cl_uint nc = (cl_uint)nrhs, a0 = 0, a1 = (cl_uint)n, rb = 0;
    const cl_int fwd = forward;
    const karg_t args[] = {{sizeof(cl_mem), &B}, {sizeof o, &o},   {sizeof rs, &rs},
                           {sizeof cs, &cs},     {sizeof nc, &nc}, {sizeof a0, &a0},
                           {sizeof a1, &a1},     {sizeof(cl_mem), &piv}, {sizeof fwd, &fwd},
                           {sizeof rb, &rb}};
    const size_t gws[1] = {round_up(nrhs, 64)}, lws[1] = {64};
    cl_event ev = NULL;
    err = launch_on(ctx, dev, prec, q, "laswp", args, 10, 1, gws, lws, &ev);
    if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
    if (ev) clReleaseEvent(ev);
    clReleaseMemObject(piv);
    return (clhgemm_status_t)err;
}
