/*
 * bench_host_sweep.c -- clhgemm-bench-host --sweep (issue 19): host calls of every size, ours
 * (auto route) against ours on the device route, OpenBLAS alone, the device-only rate and the
 * host bound; table, CSV, gnuplot PNG.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_host_sweep.h"
#include "host_common.h"
#include "bench_util.h"

#ifdef CLHGEMM_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef CLHGEMM_HAVE_CUBLASXT
#include "cublasxt_ref.h"
#endif

/* ---- --sweep: ours against OpenBLAS, the device-only rate and the host bound, per size ------- */

#define SWEEP_MIN_SAMPLE_MS 20.0 /* a timed sample lasts at least this long (small n: many calls) */
#define SWEEP_MAX_INNER 1000000
#define SWEEP_OB_ONE_SAMPLE_MS 2000.0 /* OpenBLAS calls this long are timed once (the reference) */
#define SWEEP_MAX_CASES (2 * 2 * MAX_SIZES)

/* One way to make the call: a host handle, OpenBLAS, or device buffers. */
typedef struct sw_call_s {
    const opts_t *o;
    int dbl, n;
    double beta;
    clhgemm_handle_t h;
    const void *A, *B;
    void *C;
    cl_mem bA, bB, bC;
    cl_command_queue q;
} sw_call_t;

/* Makes `inner` calls and returns when the last is done: 0 or a status. */
typedef int (*sw_fn)(sw_call_t *c, int inner);

static int sw_ours(sw_call_t *c, int inner)
{
    const opts_t *o = c->o;
    const int n = c->n;
    for (int i = 0; i < inner; i++) {
        clhgemm_status_t st =
            c->dbl ? clhgemm_dgemm(c->h, o->layout, o->ta, o->tb, n, n, n, 1.0, c->A, n, c->B, n,
                                   c->beta, c->C, n)
                   : clhgemm_sgemm(c->h, o->layout, o->ta, o->tb, n, n, n, 1.0f, c->A, n, c->B, n,
                                   (float)c->beta, c->C, n);
        if (st != CLHGEMM_SUCCESS) return (int)st;
    }
    return 0;
}

#ifdef CLHGEMM_HAVE_OPENBLAS
static int sw_openblas(sw_call_t *c, int inner)
{
    const opts_t *o = c->o;
    const int n = c->n;
    const enum CBLAS_ORDER lay = o->layout == CLHGEMM_ROW_MAJOR ? CblasRowMajor : CblasColMajor;
    const enum CBLAS_TRANSPOSE ta = o->ta == CLHGEMM_NO_TRANS ? CblasNoTrans : CblasTrans;
    const enum CBLAS_TRANSPOSE tb = o->tb == CLHGEMM_NO_TRANS ? CblasNoTrans : CblasTrans;
    for (int i = 0; i < inner; i++) {
        if (c->dbl)
            cblas_dgemm(lay, ta, tb, n, n, n, 1.0, c->A, n, c->B, n, c->beta, c->C, n);
        else
            cblas_sgemm(lay, ta, tb, n, n, n, 1.0f, c->A, n, c->B, n, (float)c->beta, c->C, n);
    }
    return 0;
}
#endif

/* Device-only: `inner` kernels enqueued back to back, the wait on the last (in-order queue). */
static int sw_device(sw_call_t *c, int inner)
{
    const opts_t *o = c->o;
    const int n = c->n;
    cl_event ev = NULL;
    for (int i = 0; i < inner; i++) {
        cl_event *pe = i == inner - 1 ? &ev : NULL;
        clhgemm_status_t st =
            c->dbl ? clhgemm_dgemm_cl(o->layout, o->ta, o->tb, n, n, n, 1.0, c->bA, 0, n, c->bB, 0,
                                      n, c->beta, c->bC, 0, n, c->q, pe)
                   : clhgemm_sgemm_cl(o->layout, o->ta, o->tb, n, n, n, 1.0f, c->bA, 0, n, c->bB, 0,
                                      n, (float)c->beta, c->bC, 0, n, c->q, pe);
        if (st != CLHGEMM_SUCCESS) {
            clFinish(c->q);
            return (int)st;
        }
    }
    return (int)wait_event(ev);
}

/* Times fn: `warmup` untimed calls, then `reps` samples of `inner` calls each, per-call times in
 * *s (ms). inner is 1 when the last warm-up call (or, without one, hint_ms: a call made just
 * before) took >= 20 ms; else a pilot grows a batch until it lasts >= 2 ms and inner is sized
 * from its rate so that a sample lasts >= 20 ms. Returns 0 or the first error. */
static int sw_time(sw_fn fn, sw_call_t *c, int warmup, int reps, double hint_ms, stats_t *s,
                   int *inner_out)
{
    double last = hint_ms;
    for (int i = 0; i < warmup; i++) {
        const double a = now_ms();
        int e = fn(c, 1);
        if (e) return e;
        last = now_ms() - a;
    }
    int inner = 1;
    if (!(last >= SWEEP_MIN_SAMPLE_MS)) {
        int k = 1;
        double t;
        for (;;) {
            const double a = now_ms();
            int e = fn(c, k);
            if (e) return e;
            t = now_ms() - a;
            if (t >= 2.0 || k >= SWEEP_MAX_INNER) break;
            k = k > SWEEP_MAX_INNER / 10 ? SWEEP_MAX_INNER : k * 10;
        }
        const double per = t / k;
        const double want = per > 0 ? ceil(SWEEP_MIN_SAMPLE_MS / per) : SWEEP_MAX_INNER;
        inner = want < 1 ? 1 : want > SWEEP_MAX_INNER ? SWEEP_MAX_INNER : (int)want;
    }
    double *v = malloc((size_t)reps * sizeof *v);
    if (!v) return CLHGEMM_OUT_OF_HOST_MEMORY;
    for (int r = 0; r < reps; r++) {
        const double a = now_ms();
        int e = fn(c, inner);
        if (e) {
            free(v);
            return e;
        }
        v[r] = (now_ms() - a) / inner;
    }
    *s = stats_of(v, reps);
    free(v);
    *inner_out = inner;
    return 0;
}

#ifndef CLHGEMM_HAVE_OPENBLAS
/* Without OpenBLAS: BLIS's cheap check of C = op(A) op(B) + beta C0 (alpha 1) for a random t:
 * the worst row of |C t - (A (B t) + beta C0 t)| over its bound, / (k eps). */
static double sw_cheap_check(const opts_t *o, int dbl, int n, double beta, const void *A,
                             const void *B, const void *C0, const void *C)
{
    double *v = malloc(9 * (size_t)n * sizeof *v);
    if (!v) return NAN;
    double *t = v, *ta = v + n, *y0 = v + 2 * (size_t)n, *y0a = v + 3 * (size_t)n;
    double *u = v + 4 * (size_t)n, *ua = v + 5 * (size_t)n, *w = v + 6 * (size_t)n,
           *wa = v + 7 * (size_t)n, *z = v + 8 * (size_t)n;
    size_t csi, csj, asi, asj, bsi, bsj;
    op_strides(o->layout, CLHGEMM_NO_TRANS, (size_t)n, &csi, &csj);
    op_strides(o->layout, o->ta, (size_t)n, &asi, &asj);
    op_strides(o->layout, o->tb, (size_t)n, &bsi, &bsj);
    for (int i = 0; i < n; i++) {
        t[i] = uniform(0x7EC7, (size_t)i);
        ta[i] = fabs(t[i]);
    }
    matvec(o->threads, C0, dbl, (size_t)n, csi, csj, t, ta, y0, y0a);
    matvec(o->threads, B, dbl, (size_t)n, bsi, bsj, t, ta, u, ua);
    matvec(o->threads, A, dbl, (size_t)n, asi, asj, u, ua, w, wa);
    matvec(o->threads, C, dbl, (size_t)n, csi, csj, t, NULL, z, NULL);
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    double worst = 0;
    for (int j = 0; j < n; j++) {
        const double want = w[j] + beta * y0[j], bound = wa[j] + fabs(beta) * y0a[j];
        const double e = fabs(z[j] - want) / (bound > 0 ? bound : 1.0) / ((double)n * eps);
        if (!(e <= worst)) worst = e;
    }
    free(v);
    return worst;
}
#endif

/* The route a host call took (clhgemm_last_call_info). */
static const char *sw_route(const clhgemm_call_info_t *i)
{
    if (i->devices_used == 0 && i->tiles == 0 && i->cpu_fraction == 1.0) return "cpu";
    if (i->devices_used > 0 && i->cpu_fraction > 0) return "dev+cpu";
    return "dev";
}

typedef struct sw_res_s {
    int dbl, n;
    double beta;
    int skipped, failed;
    char why[200];
    stats_t ours, dr, ob, dev, xt; /* per-call ms: ours (auto), ours device route, OpenBLAS,
                                      device-only, cublasXt */
    int in_ours, in_dr, in_ob, in_dev;
    clhgemm_call_info_t info, info_dr;
    double err_ours, err_dr, err_dev; /* error / tolerance (NAN: not done) */
    double bound_ms;                  /* 0: no bound (no device-only figure) */
    double hbound_ms;                 /* 0: none; the bound with the host's own copies counted */
    double pair_ratio;                /* small n: median of ours/OpenBLAS over paired samples
                                         (NAN: not measured) */
} sw_res_t;

static double sw_gf(int n, const stats_t *s) { return s->ok ? gflops(n, s->median) : NAN; }
static double sw_spread(const stats_t *s)
{
    return s->ok && s->median > 0 ? 100.0 * (s->max - s->min) / s->median : NAN;
}
static double sw_bound_gf(const sw_res_t *r)
{
    return r->bound_ms > 0 ? gflops(r->n, r->bound_ms) : NAN;
}
/* ours / max(OpenBLAS, ours on the device route), NAN when neither is known. */
static double sw_over_best(const sw_res_t *r)
{
    const double a = sw_gf(r->n, &r->ob), b = sw_gf(r->n, &r->dr), ours = sw_gf(r->n, &r->ours);
    const double best = isnan(a) ? b : isnan(b) ? a : (a > b ? a : b);
    return best > 0 ? ours / best : NAN;
}

/* Checks x (n x n) against ref: max|x - ref| / max|ref| / (max(k, 16) eps); prints FAILED. */
static double sw_check(const opts_t *o, sw_res_t *r, const char *what, const void *x,
                       const void *ref)
{
    const int k = r->n < 16 ? 16 : r->n;
    const double e = compare(o->threads, x, ref, r->dbl, (size_t)r->n * (size_t)r->n, k);
    if (!(e <= 1.0)) {
        r->failed = 1;
        printf("  FAILED %s beta=%g n=%d: %s differs from OpenBLAS: %.3g (1.0 = tolerance)\n",
               r->dbl ? "d" : "s", r->beta, r->n, what, e);
    }
    return e;
}

static void sw_fail(sw_res_t *r, const char *what, int st)
{
    r->failed = 1;
    snprintf(r->why, sizeof r->why, "%s: %s (%d)", what, clhgemm_status_string(st), st);
    printf("  FAILED %s beta=%g n=%d: %s\n", r->dbl ? "d" : "s", r->beta, r->n, r->why);
}

typedef struct sw_env_s {
    devctx_t *dev;
    clhgemm_handle_t h, hd; /* auto (the environment as it is) and CLHGEMM_ROUTE=device */
    double bus_bps;         /* pinned host->device, bytes/s (0: not measured) */
    double copy_bps;        /* pageable -> pinned copies on all cores, bytes/s (0: not measured) */
    int xt;                 /* cublasXt column on */
} sw_env_t;

/* Small calls, ours against OpenBLAS in time: 2 * reps + 1 pairs of samples taken back to back
 * (the order alternating), so that both see the same state of the machine (OpenBLAS's threads
 * waking, the clock); the median of the pairs' ratios. A CPU-routed call is OpenBLAS's own
 * call: the ratio shows what the routing costs, not OpenBLAS's noise between two separate
 * timings. */
#define SWEEP_PAIRED_MAX_N 256
static double sw_paired(sw_call_t *ours, sw_call_t *ob, int in_ours, int in_ob, int reps)
{
#ifdef CLHGEMM_HAVE_OPENBLAS
    const int pairs = 2 * reps + 1;
    double *v = malloc((size_t)pairs * sizeof *v);
    if (!v) return NAN;
    for (int p = 0; p < pairs; p++) {
        double t[2];
        for (int s = 0; s < 2; s++) {
            const int which = (p + s) % 2; /* 0: ours, 1: OpenBLAS */
            const double a = now_ms();
            if (which ? sw_openblas(ob, in_ob) : sw_ours(ours, in_ours)) {
                free(v);
                return NAN;
            }
            t[which] = (now_ms() - a) / (which ? in_ob : in_ours);
        }
        v[p] = t[1] > 0 ? t[0] / t[1] : NAN;
    }
    const stats_t st = stats_of(v, pairs);
    free(v);
    return st.median;
#else
    (void)ours, (void)ob, (void)in_ours, (void)in_ob, (void)reps;
    return NAN;
#endif
}

static void sw_case(const opts_t *o, const sw_env_t *env, int dbl, double beta, int n,
                    sw_res_t *r)
{
    memset(r, 0, sizeof *r);
    r->dbl = dbl;
    r->beta = beta;
    r->n = n;
    r->err_ours = r->err_dr = r->err_dev = r->pair_ratio = NAN;
    const size_t es = dbl ? 8 : 4, count = (size_t)n * (size_t)n, bytes = count * es;
    const int threads = o->threads;
    const int check = !o->no_check;
    /* Each way first makes one call on C0 (checked, untimed: it may carry a program build), then
     * --warmup untimed calls, then the samples. */
    const int warm_after = o->warmup;

    /* A, B, C0 (the initial C), C (the working copy) and the reference. */
    unsigned long long avail = host_available();
    if (avail && 5.0 * (double)bytes + 64e6 > 0.95 * (double)avail) {
        r->skipped = 1;
        snprintf(r->why, sizeof r->why, "5 x %.2f GB of host memory needed, %.1f GB available",
                 bytes * 1e-9, avail * 1e-9);
        return;
    }
    void *A = malloc(bytes), *B = malloc(bytes), *C0 = malloc(bytes), *C = malloc(bytes);
    void *Cref = malloc(bytes);
    if (!A || !B || !C0 || !C || !Cref) {
        r->skipped = 1;
        snprintf(r->why, sizeof r->why, "host allocation of 5 x %.2f GB failed", bytes * 1e-9);
        goto out;
    }
    fill(threads, A, dbl, count, 0xA0 + (uint64_t)n);
    fill(threads, B, dbl, count, 0xB0 + (uint64_t)n);
    fill(threads, C0, dbl, count, 0xC0 + (uint64_t)n);
    sw_call_t call = {.o = o, .dbl = dbl, .n = n, .beta = beta, .A = A, .B = B, .C = C};
    int have_ref = 0;

    /* ---- OpenBLAS: the reference (one call on C0), then its rate on the working copy ---- */
#ifdef CLHGEMM_HAVE_OPENBLAS
    {
        memcpy(Cref, C0, bytes);
        sw_call_t ref = call;
        ref.C = Cref;
        const double a = now_ms();
        sw_openblas(&ref, 1);
        const double hint = now_ms() - a;
        have_ref = 1;
        memcpy(C, C0, bytes);
        if (hint >= SWEEP_OB_ONE_SAMPLE_MS) {
            /* seconds per call (n = 16384 on a GPU host's OpenBLAS): the reference call is
             * OpenBLAS's one sample, so that the sweep stays within minutes */
            double one = hint;
            r->ob = stats_of(&one, 1);
            r->in_ob = 1;
        } else {
            sw_time(sw_openblas, &call, warm_after, o->reps, hint, &r->ob, &r->in_ob);
        }
    }
#endif

    /* ---- device-only: buffers already on the device, kernel only ---- */
    devctx_t *dev = env->dev;
    const double gmem = dev->ok ? (double)dev->info.global_mem_bytes : 0;
    if (!o->no_devonly && dev->ok && 3.0 * (double)bytes < 0.85 * gmem &&
        (double)bytes <= (double)dev->info.max_alloc_bytes) {
        cl_int err;
        cl_mem bA, bB, bC;
        dev_upload3(dev, bytes, A, B, C0, &bA, &bB, &bC, &err);
        sw_call_t dc = call;
        dc.bA = bA;
        dc.bB = bB;
        dc.bC = bC;
        dc.q = dev->q;
        double hint = -1;
        if (err == CL_SUCCESS) { /* the first call, on C0: checked */
            const double a = now_ms();
            err = sw_device(&dc, 1);
            hint = now_ms() - a;
        }
        if (err == CL_SUCCESS && check && have_ref) {
            err = clEnqueueReadBuffer(dev->q, bC, CL_TRUE, 0, bytes, C, 0, NULL, NULL);
            if (err == CL_SUCCESS) r->err_dev = sw_check(o, r, "device-only", C, Cref);
        }
        if (err == CL_SUCCESS) err = sw_time(sw_device, &dc, warm_after, o->reps, hint, &r->dev,
                                             &r->in_dev);
        if (err != CL_SUCCESS) sw_fail(r, "device-only", err);
        clFinish(dev->q);
        if (bA) clReleaseMemObject(bA);
        if (bB) clReleaseMemObject(bB);
        if (bC) clReleaseMemObject(bC);
        /* the device-buffer GEMM's cached workspaces go, so that the pipeline has the device */
        clhgemm_release_resources();
    }

    /* ---- ours (auto) and ours on the device route: the first call on C0, checked ---- */
    for (int pass = 0; pass < 2; pass++) {
        sw_call_t hc = call;
        hc.h = pass ? env->hd : env->h;
        stats_t *st = pass ? &r->dr : &r->ours;
        clhgemm_call_info_t *info = pass ? &r->info_dr : &r->info;
        memcpy(C, C0, bytes);
        const double a = now_ms();
        int e = sw_ours(&hc, 1);
        const double hint = now_ms() - a;
        if (e) {
            sw_fail(r, pass ? "ours (device route)" : "ours", e);
            continue;
        }
        if (check) {
            double err = NAN;
#ifdef CLHGEMM_HAVE_OPENBLAS
            err = sw_check(o, r, pass ? "ours (device route)" : "ours", C, Cref);
#else
            err = sw_cheap_check(o, dbl, n, beta, A, B, C0, C);
            if (!(err <= 1.0)) {
                r->failed = 1;
                printf("  FAILED %s beta=%g n=%d: %s: cheap check %.3g (1.0 = tolerance)\n",
                       dbl ? "d" : "s", beta, n, pass ? "ours (device route)" : "ours", err);
            }
#endif
            *(pass ? &r->err_dr : &r->err_ours) = err;
        }
        e = sw_time(sw_ours, &hc, warm_after, o->reps, hint, st, pass ? &r->in_dr : &r->in_ours);
        if (e) {
            st->ok = 0;
            sw_fail(r, pass ? "ours (device route)" : "ours", e);
            continue;
        }
        clhgemm_last_call_info(hc.h, info);
        if (!pass && n <= SWEEP_PAIRED_MAX_N && r->ob.ok)
            r->pair_ratio = sw_paired(&hc, &call, r->in_ours, r->in_ob, o->reps);
    }

    /* ---- cublasXt on the same pageable arrays (column-major view) ---- */
#ifdef CLHGEMM_HAVE_CUBLASXT
    if (env->xt) {
        const int row = o->layout == CLHGEMM_ROW_MAJOR;
        const int xa = (row ? o->tb : o->ta) != CLHGEMM_NO_TRANS;
        const int xb = (row ? o->ta : o->tb) != CLHGEMM_NO_TRANS;
        int used = 0;
        if (cublasxt_gemm(dbl, xa, xb, (size_t)n, (size_t)n, (size_t)n, 1.0, row ? B : A,
                          (size_t)n, row ? A : B, (size_t)n, beta, C, (size_t)n, o->xt_devices, 0,
                          o->warmup, o->reps, &r->xt.median, &r->xt.min, &r->xt.max, &used) == 0)
            r->xt.ok = 1;
    }
#endif

    /* ---- the host bound: flops / max(device-only time, operand bytes / bus rate) ---- */
    if (r->dev.ok && env->bus_bps > 0) {
        const double moved = (2.0 * (double)count + (beta != 0 ? (double)count : 0)) * (double)es;
        const double bus_ms = moved / env->bus_bps * 1e3;
        const int ndev = r->info_dr.devices_used > 1 ? r->info_dr.devices_used : 1;
        r->bound_ms = (r->dev.median > bus_ms ? r->dev.median : bus_ms) / ndev;
        /* and with the host's copies: every operand crosses host memory once more on its way
         * into pinned staging (A, B, C in when beta != 0) and C once on its way out */
        if (env->copy_bps > 0) {
            const double copy_ms = (moved + (double)count * (double)es) / env->copy_bps * 1e3;
            r->hbound_ms = r->bound_ms > copy_ms ? r->bound_ms : copy_ms;
        }
    }
out:
    free(A);
    free(B);
    free(C0);
    free(C);
    free(Cref);
}

/* Pinned host->device rate: clEnqueueWriteBuffer from a mapped CL_MEM_ALLOC_HOST_PTR buffer
 * into a device buffer, best of 3; bytes/s, 0 on failure. */
static double sw_bus_rate(devctx_t *d, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    cl_mem host = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                                 &err);
    cl_mem dst = err == CL_SUCCESS ? clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err)
                                   : NULL;
    void *p = NULL;
    if (err == CL_SUCCESS)
        p = clEnqueueMapBuffer(d->q, host, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    double best = 0;
    if (err == CL_SUCCESS && p) {
        memset(p, 0x3c, bytes);
        for (int i = 0; i < 3 && err == CL_SUCCESS; i++) {
            const double a = now_ms();
            err = clEnqueueWriteBuffer(d->q, dst, CL_TRUE, 0, bytes, p, 0, NULL, NULL);
            const double ms = now_ms() - a;
            const double rate = ms > 0 ? bytes / (ms * 1e-3) : 0;
            if (err == CL_SUCCESS && rate > best) best = rate;
        }
        clEnqueueUnmapMemObject(d->q, host, p, 0, NULL, NULL);
        clFinish(d->q);
    }
    if (err != CL_SUCCESS) {
        fprintf(stderr, "bus measurement: %s\n", clhgemm_status_string(err));
        best = 0;
    }
    if (dst) clReleaseMemObject(dst);
    if (host) clReleaseMemObject(host);
    return best;
}

/* The host's own copy rate, pageable -> pinned, on `threads` threads (what the pipeline's pack
 * threads do with every operand): memcpy of equal parts of a pageable buffer into a mapped
 * CL_MEM_ALLOC_HOST_PTR buffer, best of 3; bytes/s, 0 on failure. */
typedef struct sw_copy_s {
    char *dst;
    const char *src;
    size_t part;
} sw_copy_t;

static void *sw_copy_main(void *arg)
{
    const sw_copy_t *c = arg;
    memcpy(c->dst, c->src, c->part);
    return NULL;
}

static double sw_copy_rate(devctx_t *d, size_t bytes, int threads)
{
    if (threads < 1) threads = 1;
    if (threads > 128) threads = 128;
    cl_int err = CL_SUCCESS;
    cl_mem host = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                                 &err);
    void *p = NULL;
    if (err == CL_SUCCESS)
        p = clEnqueueMapBuffer(d->q, host, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    char *src = malloc(bytes);
    double best = 0;
    if (err == CL_SUCCESS && p && src) {
        memset(src, 0x5a, bytes);
        memset(p, 0x3c, bytes);
        const size_t part = bytes / (size_t)threads / 4096 * 4096;
        sw_copy_t jobs[128];
        pthread_t th[128];
        for (int i = 0; i < 3 && part; i++) {
            const double a = now_ms();
            int started = 0;
            for (int t = 0; t < threads; t++) {
                jobs[t] = (sw_copy_t){(char *)p + (size_t)t * part, src + (size_t)t * part, part};
                if (t && pthread_create(&th[t], NULL, sw_copy_main, &jobs[t]) != 0) break;
                started = t + 1;
            }
            sw_copy_main(&jobs[0]);
            for (int t = 1; t < started; t++) pthread_join(th[t], NULL);
            const double ms = now_ms() - a;
            const double rate = ms > 0 && started == threads ? (double)part * threads / (ms * 1e-3) : 0;
            if (rate > best) best = rate;
        }
        clEnqueueUnmapMemObject(d->q, host, p, 0, NULL, NULL);
        clFinish(d->q);
    }
    free(src);
    if (host) clReleaseMemObject(host);
    return err == CL_SUCCESS ? best : 0;
}

static void sw_fmt(char *buf, size_t len, const char *fmt, double v)
{
    if (isnan(v))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, fmt, v);
}

static void sw_print_header(const sw_env_t *env)
{
    printf("%4s %4s %6s %10s %7s %10s %10s %10s %10s %6s %7s %6s %6s %-7s %10s %9s %7s%s\n", "prec",
           "beta", "n", "ours GF/s", "spread", "OpenBLAS", "dev-only", "dev-route", "bound", "/bound",
           "/hbound", "/OB", "t/OB", "route", "ours ms", "OB ms", "inner", env->xt ? "   cublasXt" : "");
}

static void sw_print_row(const sw_env_t *env, const sw_res_t *r)
{
    if (r->skipped) {
        printf("%4s %4g %6d skipped: %s\n", r->dbl ? "d" : "s", r->beta, r->n, r->why);
        return;
    }
    char ours[24], spr[24], ob[24], dev[24], dr[24], bd[24], rb[24], rh[24], ro[24], tp[24],
        oms[24], obms[24], xt[32] = "";
    const double g = sw_gf(r->n, &r->ours);
    sw_fmt(ours, sizeof ours, "%.2f", g);
    sw_fmt(spr, sizeof spr, "%.1f%%", sw_spread(&r->ours));
    sw_fmt(ob, sizeof ob, "%.2f", sw_gf(r->n, &r->ob));
    sw_fmt(dev, sizeof dev, "%.2f", sw_gf(r->n, &r->dev));
    sw_fmt(dr, sizeof dr, "%.2f", sw_gf(r->n, &r->dr));
    sw_fmt(bd, sizeof bd, "%.2f", sw_bound_gf(r));
    sw_fmt(rb, sizeof rb, "%.2f", g / sw_bound_gf(r));
    sw_fmt(rh, sizeof rh, "%.2f", r->hbound_ms > 0 ? g / gflops(r->n, r->hbound_ms) : NAN);
    sw_fmt(ro, sizeof ro, "%.2f", g / sw_gf(r->n, &r->ob));
    sw_fmt(tp, sizeof tp, "%.3f", r->pair_ratio);
    sw_fmt(oms, sizeof oms, "%.4g", r->ours.ok ? r->ours.median : NAN);
    sw_fmt(obms, sizeof obms, "%.4g", r->ob.ok ? r->ob.median : NAN);
    if (env->xt) {
        char v[24];
        sw_fmt(v, sizeof v, "%.2f", sw_gf(r->n, &r->xt));
        snprintf(xt, sizeof xt, " %10s", v);
    }
    printf("%4s %4g %6d %10s %7s %10s %10s %10s %10s %6s %7s %6s %6s %-7s %10s %9s %7d%s%s\n",
           r->dbl ? "d" : "s", r->beta, r->n, ours, spr, ob, dev, dr, bd, rb, rh, ro, tp,
           r->ours.ok ? sw_route(&r->info) : "-", oms, obms, r->in_ours, xt,
           r->failed ? "  FAILED" : "");
}

static void sw_csv_row(FILE *f, const sw_env_t *env, const sw_res_t *r)
{
    if (!f) return;
    const double g = sw_gf(r->n, &r->ours);
    fprintf(f, "%s,%g,%d,%.4f,%.2f,%.4f,%.4f,%.4f,%.4f,%.4f,%s,%.4f,%.4f,%.6g,%.6g,%.6g,%d,%d,%d,"
               "%d,%.4f,%.3f,%s,%.3g,%.3g,%.3g,%.4f,%d,%s,%.4f,%.4f,%.4f,%.3f\n",
            r->dbl ? "d" : "s", r->beta, r->n, g, sw_spread(&r->ours), sw_gf(r->n, &r->ob),
            sw_gf(r->n, &r->dev), sw_bound_gf(r), g / sw_bound_gf(r), g / sw_gf(r->n, &r->ob),
            r->ours.ok ? sw_route(&r->info) : "", sw_gf(r->n, &r->dr), sw_over_best(r),
            r->ours.ok ? r->ours.median : NAN, r->ob.ok ? r->ob.median : NAN,
            r->dr.ok ? r->dr.median : NAN, r->in_ours, r->in_ob, r->in_dr, r->in_dev,
            env->xt ? sw_gf(r->n, &r->xt) : NAN, env->bus_bps * 1e-9,
            r->dr.ok ? sw_route(&r->info_dr) : "", r->err_ours, r->err_dr, r->err_dev,
            r->info.cpu_fraction, r->info.devices_used,
            r->skipped ? "skipped" : r->failed ? "FAILED" : "ok",
            r->hbound_ms > 0 ? gflops(r->n, r->hbound_ms) : NAN,
            r->hbound_ms > 0 ? g / gflops(r->n, r->hbound_ms) : NAN, r->pair_ratio,
            env->copy_bps * 1e-9);
    fflush(f);
}

/* The PNG's series s of a case: ours, OpenBLAS, device-only, the bound (GFLOP/s). */
static double sw_series(const sw_res_t *r, int s)
{
    return s == 0 ? sw_gf(r->n, &r->ours) : s == 1 ? sw_gf(r->n, &r->ob)
         : s == 2 ? sw_gf(r->n, &r->dev) : sw_bound_gf(r);
}

/* gnuplot's PNG: a panel per beta, GFLOP/s against n (log x), ours, OpenBLAS, device-only and
 * the bound per precision (solid single, dashed double). */
static void sw_png(const opts_t *o, const char *title, const sw_res_t *res, int nres)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        printf("gnuplot not found: no PNG\n");
        return;
    }
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        printf("gnuplot not found: no PNG\n");
        return;
    }
    char file[1024], safe_title[512];
    size_t j = 0;
    for (size_t i = 0; o->png[i] && j + 1 < sizeof file; i++)
        if (o->png[i] != '\'') file[j++] = o->png[i];
    file[j] = 0;
    j = 0;
    for (size_t i = 0; title[i] && j + 1 < sizeof safe_title; i++)
        if (title[i] != '\'' && title[i] != '"' && title[i] != '\\') safe_title[j++] = title[i];
    safe_title[j] = 0;
    static const double betas[2] = {0.0, 0.5};
    static const char *series[4] = {"ours", "OpenBLAS", "device-only", "bound"};
    static const char *color[4] = {"#d62728", "#1f77b4", "#2ca02c", "#7f7f7f"};
    fprintf(g, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "  set terminal pngcairo size 1500,620 noenhanced\n"
               "} else {\n"
               "  set terminal png size 1500,620 noenhanced\n"
               "}\n"
               "set output '%s'\n"
               "set multiplot layout 1,2 title '%s'\n"
               "set logscale x 2\nset grid\nset key top left\nset xlabel 'n (square)'\n"
               "set ylabel 'GFLOP/s'\n",
            file, safe_title);
    for (int b = 0; b < 2; b++) {
        fprintf(g, "set title 'beta = %g'\nplot ", betas[b]);
        int first = 1;
        for (int dbl = 0; dbl < 2; dbl++)
            for (int s = 0; s < 4; s++) {
                int pts = 0;
                for (int i = 0; i < nres; i++) {
                    const sw_res_t *r = &res[i];
                    const double v = sw_series(r, s);
                    pts += r->dbl == dbl && r->beta == betas[b] && !r->skipped && !isnan(v);
                }
                if (!pts) continue;
                /* device-only wider, so that the bound drawn over it (they meet where the
                 * kernel bounds the call) leaves it visible */
                fprintf(g,
                        "%s'-' using 1:2 with linespoints lc rgb '%s' lw %d dt %d pt %d "
                        "title '%s %s'",
                        first ? "" : ", ", color[s], s == 2 ? 4 : 1, dbl ? 2 : 1, dbl ? 6 : 7,
                        series[s], dbl ? "d" : "s");
                first = 0;
            }
        if (first) fprintf(g, "NaN notitle");
        fprintf(g, "\n");
        for (int dbl = 0; dbl < 2; dbl++)
            for (int s = 0; s < 4; s++) {
                int pts = 0;
                for (int pass = 0; pass < 2; pass++)
                    for (int i = 0; i < nres; i++) {
                        const sw_res_t *r = &res[i];
                        const double v = sw_series(r, s);
                        if (r->dbl != dbl || r->beta != betas[b] || r->skipped || isnan(v))
                            continue;
                        if (pass)
                            fprintf(g, "%d %.6g\n", r->n, v);
                        else
                            pts++;
                    }
                if (pts) fprintf(g, "e\n");
            }
    }
    fprintf(g, "unset multiplot\n");
    const int rc = pclose(g);
    if (rc != 0)
        printf("gnuplot failed (status %d): no PNG\n", rc);
    else
        printf("PNG: %s\n", o->png);
}

int run_sweep(opts_t *o)
{
    devctx_t dev;
    if (open_device(&dev)) return 1;

    /* sizes: scaled, capped, repeats dropped */
    int sizes[MAX_SIZES], ns = 0;
    for (int i = 0; i < o->nsizes; i++) {
        long v = lround(o->sizes[i] * o->scale);
        if (v < 1) v = 1;
        if (o->max_n && v > o->max_n) continue;
        int dup = 0;
        for (int j = 0; j < ns; j++) dup |= sizes[j] == (int)v;
        if (!dup) sizes[ns++] = (int)v;
    }
    if (!ns) {
        fprintf(stderr, "--sweep: no size left (--max-n %d)\n", o->max_n);
        return 2;
    }

    sw_env_t env = {.dev = &dev};
    size_t bus_bytes = (size_t)(256.0 * (o->scale < 1 ? o->scale : 1.0) * 1048576.0);
    bus_bytes = bus_bytes / 1048576 * 1048576;
    if (bus_bytes < 1048576) bus_bytes = 1048576;
    while (bus_bytes > 1048576 && (bus_bytes > dev.info.max_alloc_bytes / 2 ||
                                   bus_bytes > dev.info.global_mem_bytes / 4))
        bus_bytes /= 2;
    env.bus_bps = sw_bus_rate(&dev, bus_bytes);
    env.copy_bps = sw_copy_rate(&dev, bus_bytes, o->threads);

    /* the handles: ours as the environment says, and one with CLHGEMM_ROUTE=device */
    clhgemm_status_t st = clhgemm_create(&env.h, NULL);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm_create: %s (%d)\n", clhgemm_status_string(st), (int)st);
        return 1;
    }
    {
        const char *old = getenv("CLHGEMM_ROUTE");
        char *saved = old ? strdup(old) : NULL;
        setenv("CLHGEMM_ROUTE", "device", 1);
        st = clhgemm_create(&env.hd, NULL);
        if (saved) {
            setenv("CLHGEMM_ROUTE", saved, 1);
            free(saved);
        } else {
            unsetenv("CLHGEMM_ROUTE");
        }
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "clhgemm_create (CLHGEMM_ROUTE=device): %s (%d)\n",
                    clhgemm_status_string(st), (int)st);
            clhgemm_destroy(env.h);
            return 1;
        }
    }
    char xtdesc[300] = "";
#ifdef CLHGEMM_HAVE_CUBLASXT
    if (!o->no_xt && cublasxt_device_count() > 0) {
        env.xt = 1;
        snprintf(xtdesc, sizeof xtdesc, " | cublasXt on %d device(s): %s", o->xt_devices,
                 cublasxt_description());
    }
#endif

    char date[64], blas[320], title[512];
    time_t now = time(NULL);
    struct tm tmv;
    localtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", &tmv);
    const char *route_env = getenv("CLHGEMM_ROUTE");
    printf("clhgemm-bench-host --sweep | %s | clhgemm %s | device %s (%s), %.1f GiB | bus "
           "host->device %.2f GB/s (pinned, %zu MiB, best of 3) | OpenBLAS %s | %s %c%c, alpha 1, "
           "pageable | ours: CLHGEMM_ROUTE=%s | median of %d (warm-up %d), samples >= %.0f ms%s\n",
           date, clhgemm_version(), dev.info.name, dev.info.platform_name,
           dev.info.global_mem_bytes / 1073741824.0, env.bus_bps * 1e-9, bus_bytes / 1048576,
           blas_desc(blas, sizeof blas),
           o->layout == CLHGEMM_COL_MAJOR ? "column-major" : "row-major",
           o->ta == CLHGEMM_NO_TRANS ? 'N' : 'T', o->tb == CLHGEMM_NO_TRANS ? 'N' : 'T',
           route_env && *route_env ? route_env : "auto", o->reps, o->warmup, SWEEP_MIN_SAMPLE_MS,
           xtdesc);
    snprintf(title, sizeof title, "clhgemm sweep, %s, %s, bus %.2f GB/s", dev.info.name, date,
             env.bus_bps * 1e-9);

    FILE *csv = NULL;
    if (o->csv) {
        csv = fopen(o->csv, "w");
        if (!csv)
            fprintf(stderr, "cannot open %s: %s\n", o->csv, strerror(errno));
        else
            fprintf(csv, "prec,beta,n,ours_gflops,spread_pct,openblas_gflops,device_gflops,"
                         "bound_gflops,ours_over_bound,ours_over_openblas,route,"
                         "device_route_gflops,ours_over_best,ours_ms,openblas_ms,device_route_ms,"
                         "inner_ours,inner_openblas,inner_device_route,inner_device,xt_gflops,"
                         "bus_gbps,device_route_route,check_ours,check_device_route,"
                         "check_device,cpu_fraction,devices_used,status,host_bound_gflops,"
                         "ours_over_host_bound,paired_time_ratio,copy_gbps\n");
    }

    sw_res_t *res = calloc(SWEEP_MAX_CASES, sizeof *res);
    if (!res) return 1;
    int nres = 0, bad = 0;
    static const double betas[2] = {0.0, 0.5};
    sw_print_header(&env);
    for (int dbl = 0; dbl < 2; dbl++) {
        if (dbl ? !o->do_d : !o->do_s) continue;
        if (dbl && !dev.info.has_fp64) {
            printf("d: skipped (the device has no fp64)\n");
            continue;
        }
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < ns; i++) {
                sw_res_t *r = &res[nres++];
                sw_case(o, &env, dbl, betas[b], sizes[i], r);
                bad |= r->failed;
                sw_print_row(&env, r);
                sw_csv_row(csv, &env, r);
            }
    }
    if (csv) fclose(csv);
    int ndev = 1;
    for (int i = 0; i < nres; i++)
        if (res[i].info_dr.devices_used > ndev) ndev = res[i].info_dr.devices_used;
    char ndev_note[96] = "";
    if (ndev > 1)
        snprintf(ndev_note, sizeof ndev_note,
                 " / %d devices (assumed alike, each on its own link)", ndev);
    printf("GF/s per call (median; spread = (max - min) / median of the samples); OpenBLAS alone "
           "on the same data; dev-only = clhgemm_?gemm_cl with the data on the device; dev-route = "
           "ours on a CLHGEMM_ROUTE=device handle; bound = flops / max(dev-only time, (A + B + "
           "(beta != 0) C) bytes / bus rate)%s; hbound = the bound with the host's own copies "
           "counted too (A + B + (beta != 0) C + C bytes / the pageable -> pinned copy rate, %.1f "
           "GB/s on all cores in this run); t/OB = time ours / OpenBLAS, median over paired "
           "samples (n <= %d); route = where ours ran (cpu, dev, dev+cpu); inner = calls per "
           "timed sample of ours; OpenBLAS calls of >= %.0f s timed once (the reference call)\n",
           ndev_note, env.copy_bps * 1e-9, SWEEP_PAIRED_MAX_N, SWEEP_OB_ONE_SAMPLE_MS * 1e-3);

    /* worst: ours against the better of OpenBLAS alone and the device route; small n against
     * OpenBLAS in time */
    const sw_res_t *w = NULL, *ws = NULL;
    double wv = INFINITY, wsv = -INFINITY;
    for (int i = 0; i < nres; i++) {
        const sw_res_t *r = &res[i];
        if (r->skipped || !r->ours.ok) continue;
        const double v = sw_over_best(r);
        if (!isnan(v) && v < wv) {
            wv = v;
            w = r;
        }
        if (r->n <= 256 && r->ob.ok && r->ob.median > 0) {
            const double t = isnan(r->pair_ratio) ? r->ours.median / r->ob.median : r->pair_ratio;
            if (t > wsv) {
                wsv = t;
                ws = r;
            }
        }
    }
    char wbuf[400] = "n/a", wsbuf[300] = "n/a (no n <= 256 with OpenBLAS)";
    if (w) {
        char wob[24], wdr[24];
        sw_fmt(wob, sizeof wob, "%.2f", sw_gf(w->n, &w->ob));
        sw_fmt(wdr, sizeof wdr, "%.2f", sw_gf(w->n, &w->dr));
        snprintf(wbuf, sizeof wbuf,
                 "ours/max(OpenBLAS, device route) = %.3f at %s beta=%g n=%d (ours %.2f, OpenBLAS "
                 "%s, device route %s GFLOP/s; route %s)",
                 wv, w->dbl ? "d" : "s", w->beta, w->n, sw_gf(w->n, &w->ours), wob, wdr,
                 sw_route(&w->info));
    }
    if (ws)
        snprintf(wsbuf, sizeof wsbuf,
                 "%.3fx at %s beta=%g n=%d (ours %.4g ms, OpenBLAS %.4g ms per call, medians of "
                 "their own samples; route %s)",
                 wsv, ws->dbl ? "d" : "s", ws->beta, ws->n, ws->ours.median, ws->ob.median,
                 sw_route(&ws->info));
    printf("worst: %s; small n (<= 256): largest time ours/OpenBLAS %s\n", wbuf, wsbuf);

    if (o->png) sw_png(o, title, res, nres);
    if (bad) printf("FAILED: a result was off or a call failed (see above)\n");
    free(res);
    clhgemm_destroy(env.hd);
    clhgemm_destroy(env.h);
    clReleaseCommandQueue(dev.q);
    clReleaseContext(dev.ctx);
    return bad ? 1 : 0;
}

