/*
 * bench_host_sweep_case.c -- one case of clhgemm-bench-host --sweep (precision, beta, n): the
 * pageable arrays A, B, C0 filled from fixed seeds, then each way in turn on them -- OpenBLAS
 * alone (one call on C0 is the reference, then its rate), the device-only rate, ours on the
 * auto handle and on the device-route handle, cublasXt (only where built with the CUDA toolkit)
 * -- each way's first call on C0 checked against OpenBLAS's (without OpenBLAS: BLIS's cheap
 * check), and last the host bound from the device-only time and the run's measured rates. The
 * ways' calls and timing are bench_host_sweep_call.c's; printing the case is the report's.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_host_sweep_int.h"
#include "common/bench_util.h"

#ifdef CLHGEMM_HAVE_CUBLASXT
#include "cuda/cublasxt_ref.h"
#endif

/* One case's arrays and what its ways share. */
typedef struct sw_case_s {
    const opts_t *o;
    const sw_env_t *env;
    sw_res_t *r;
    size_t es, count, bytes;
    void *A, *B, *C0, *C, *Cref; /* C0: the initial C; C: the working copy; Cref: the reference */
    sw_call_t call;              /* the arrays as a call's operands */
    int check, have_ref;
    /* Each way first makes one call on C0 (checked, untimed: it may carry a program build), then
     * --warmup untimed calls, then the samples. */
    int warm_after;
} sw_case_t;

/* Marks the case failed and starts its FAILED line (the caller ends it). */
static void sw_failed(sw_res_t *r)
{
    r->failed = 1;
    printf("  FAILED %s beta=%g n=%d: ", r->dbl ? "d" : "s", r->beta, r->n);
}

/* A result over its tolerance: `what` (the way), `how` (the check), e (1.0 = tolerance). */
static void sw_bad_result(sw_res_t *r, const char *what, const char *how, double e)
{
    sw_failed(r);
    printf("%s%s %.3g (1.0 = tolerance)\n", what, how, e);
}

static void sw_fail(sw_res_t *r, const char *what, int st)
{
    snprintf(r->why, sizeof r->why, "%s: %s (%d)", what, clhgemm_status_string(st), st);
    sw_failed(r);
    printf("%s\n", r->why);
}

/* Checks x (n x n) against ref: max|x - ref| / max|ref| / (max(k, 16) eps); prints FAILED. */
static double sw_check(const opts_t *o, sw_res_t *r, const char *what, const void *x,
                       const void *ref)
{
    const int k = r->n < 16 ? 16 : r->n;
    const double e = compare(o->threads, x, ref, r->dbl, (size_t)r->n * (size_t)r->n, k);
    if (!(e <= 1.0)) sw_bad_result(r, what, " differs from OpenBLAS:", e);
    return e;
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

/* Ours' first result (in C) against OpenBLAS's, or without OpenBLAS the cheap check. */
static double sw_check_ours(sw_case_t *c, const char *what)
{
#ifdef CLHGEMM_HAVE_OPENBLAS
    return sw_check(c->o, c->r, what, c->C, c->Cref);
#else
    const sw_res_t *r = c->r;
    const double err = sw_cheap_check(c->o, r->dbl, r->n, r->beta, c->A, c->B, c->C0, c->C);
    if (!(err <= 1.0)) sw_bad_result(c->r, what, ": cheap check", err);
    return err;
#endif
}

/* A, B, C0 (the initial C), C (the working copy) and the reference: allocated (0) or the case
 * skipped with why (1; what was allocated is freed by the caller). A, B, C0 filled. */
static int sw_case_arrays(sw_case_t *c)
{
    sw_res_t *r = c->r;
    const size_t bytes = c->bytes;
    unsigned long long avail = host_available();
    if (avail && 5.0 * (double)bytes + 64e6 > 0.95 * (double)avail) {
        r->skipped = 1;
        snprintf(r->why, sizeof r->why, "5 x %.2f GB of host memory needed, %.1f GB available",
                 bytes * 1e-9, avail * 1e-9);
        return 1;
    }
    c->A = malloc(bytes), c->B = malloc(bytes), c->C0 = malloc(bytes), c->C = malloc(bytes);
    c->Cref = malloc(bytes);
    if (!c->A || !c->B || !c->C0 || !c->C || !c->Cref) {
        r->skipped = 1;
        snprintf(r->why, sizeof r->why, "host allocation of 5 x %.2f GB failed", bytes * 1e-9);
        return 1;
    }
    const int threads = c->o->threads, dbl = r->dbl, n = r->n;
    fill(threads, c->A, dbl, c->count, 0xA0 + (uint64_t)n);
    fill(threads, c->B, dbl, c->count, 0xB0 + (uint64_t)n);
    fill(threads, c->C0, dbl, c->count, 0xC0 + (uint64_t)n);
    return 0;
}

#ifdef CLHGEMM_HAVE_OPENBLAS
/* OpenBLAS: the reference (one call on C0), then its rate on the working copy. */
static void sw_case_openblas(sw_case_t *c)
{
    sw_res_t *r = c->r;
    memcpy(c->Cref, c->C0, c->bytes);
    sw_call_t ref = c->call;
    ref.C = c->Cref;
    const double a = now_ms();
    sw_openblas(&ref, 1);
    const double hint = now_ms() - a;
    c->have_ref = 1;
    memcpy(c->C, c->C0, c->bytes);
    if (hint >= SWEEP_OB_ONE_SAMPLE_MS) {
        /* seconds per call (n = 16384 on a GPU host's OpenBLAS): the reference call is
         * OpenBLAS's one sample, so that the sweep stays within minutes */
        double one = hint;
        r->ob = stats_of(&one, 1);
        r->in_ob = 1;
    } else {
        sw_time(sw_openblas, &c->call, c->warm_after, c->o->reps, hint, &r->ob, &r->in_ob);
    }
    /* small n: paired with ours, which runs OpenBLAS itself there */
    if (r->n > SWEEP_PAIRED_MAX_N) {
        const struct timespec settle = {0, SWEEP_OB_SETTLE_MS * 1000000L};
        nanosleep(&settle, NULL);
    }
}
#endif

/* Device-only: buffers already on the device, kernel only; where A, B and C fit. */
static void sw_case_device(sw_case_t *c)
{
    const opts_t *o = c->o;
    sw_res_t *r = c->r;
    const size_t bytes = c->bytes;
    devctx_t *dev = c->env->dev;
    const double gmem = dev->ok ? (double)dev->info.global_mem_bytes : 0;
    if (o->no_devonly || !dev->ok || !(3.0 * (double)bytes < 0.85 * gmem) ||
        !((double)bytes <= (double)dev->info.max_alloc_bytes))
        return;
    cl_int err;
    cl_mem bA, bB, bC;
    dev_upload3(dev, bytes, c->A, c->B, c->C0, &bA, &bB, &bC, &err);
    sw_call_t dc = c->call;
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
    if (err == CL_SUCCESS && c->check && c->have_ref) {
        err = clEnqueueReadBuffer(dev->q, bC, CL_TRUE, 0, bytes, c->C, 0, NULL, NULL);
        if (err == CL_SUCCESS) r->err_dev = sw_check(o, r, "device-only", c->C, c->Cref);
    }
    if (err == CL_SUCCESS) err = sw_time(sw_device, &dc, c->warm_after, o->reps, hint, &r->dev,
                                         &r->in_dev);
    if (err != CL_SUCCESS) sw_fail(r, "device-only", err);
    clFinish(dev->q);
    if (bA) clReleaseMemObject(bA);
    if (bB) clReleaseMemObject(bB);
    if (bC) clReleaseMemObject(bC);
    /* the device-buffer GEMM's cached workspaces go, so that the pipeline has the device */
    clhgemm_release_resources();
}

/* Ours on the auto handle (pass 0) or on the device-route handle (pass 1): the first call on C0,
 * checked, then the samples; for small n (pass 0) the paired samples against OpenBLAS. */
static void sw_case_ours(sw_case_t *c, int pass)
{
    const opts_t *o = c->o;
    sw_res_t *r = c->r;
    const char *what = pass ? "ours (device route)" : "ours";
    sw_call_t hc = c->call;
    hc.h = pass ? c->env->hd : c->env->h;
    stats_t *st = pass ? &r->dr : &r->ours;
    clhgemm_call_info_t *info = pass ? &r->info_dr : &r->info;
    memcpy(c->C, c->C0, c->bytes);
    const double a = now_ms();
    int e = sw_ours(&hc, 1);
    const double hint = now_ms() - a;
    if (e) {
        sw_fail(r, what, e);
        return;
    }
    if (c->check) *(pass ? &r->err_dr : &r->err_ours) = sw_check_ours(c, what);
    e = sw_time(sw_ours, &hc, c->warm_after, o->reps, hint, st, pass ? &r->in_dr : &r->in_ours);
    if (e) {
        st->ok = 0;
        sw_fail(r, what, e);
        return;
    }
    clhgemm_last_call_info(hc.h, info);
    if (!pass && r->n <= SWEEP_PAIRED_MAX_N && r->ob.ok)
        r->pair_ratio = sw_paired(&hc, &c->call, r->in_ours, r->in_ob, o->reps);
}

#ifdef CLHGEMM_HAVE_CUBLASXT
/* cublasXt on the same pageable arrays (column-major view). */
static void sw_case_xt(sw_case_t *c)
{
    const opts_t *o = c->o;
    sw_res_t *r = c->r;
    const size_t n = (size_t)r->n;
    const int row = o->layout == CLHGEMM_ROW_MAJOR;
    const int xa = (row ? o->tb : o->ta) != CLHGEMM_NO_TRANS;
    const int xb = (row ? o->ta : o->tb) != CLHGEMM_NO_TRANS;
    int used = 0;
    if (cublasxt_gemm(r->dbl, xa, xb, n, n, n, 1.0, row ? c->B : c->A, n, row ? c->A : c->B, n,
                      r->beta, c->C, n, o->xt_devices, 0, o->warmup, o->reps, &r->xt.median,
                      &r->xt.min, &r->xt.max, &used) == 0)
        r->xt.ok = 1;
}
#endif

/* The host bound: flops / max(device-only time, operand bytes / bus rate). */
static void sw_case_bound(sw_case_t *c)
{
    sw_res_t *r = c->r;
    const sw_env_t *env = c->env;
    if (!r->dev.ok || !(env->bus_bps > 0)) return;
    const double count = (double)c->count, es = (double)c->es;
    const double moved = (2.0 * count + (r->beta != 0 ? count : 0)) * es;
    const double bus_ms = moved / env->bus_bps * 1e3;
    const int ndev = r->info_dr.devices_used > 1 ? r->info_dr.devices_used : 1;
    r->bound_ms = (r->dev.median > bus_ms ? r->dev.median : bus_ms) / ndev;
    /* and with the host's copies: every operand crosses host memory once more on its way
     * into pinned staging (A, B, C in when beta != 0) and C once on its way out */
    if (env->copy_bps > 0) {
        const double copy_ms = (moved + count * es) / env->copy_bps * 1e3;
        r->hbound_ms = r->bound_ms > copy_ms ? r->bound_ms : copy_ms;
    }
}

void sw_case(const opts_t *o, const sw_env_t *env, int dbl, double beta, int n, sw_res_t *r)
{
    memset(r, 0, sizeof *r);
    r->dbl = dbl;
    r->beta = beta;
    r->n = n;
    r->err_ours = r->err_dr = r->err_dev = r->pair_ratio = NAN;
    sw_case_t c = {.o = o, .env = env, .r = r, .check = !o->no_check, .warm_after = o->warmup};
    c.es = dbl ? 8 : 4;
    c.count = (size_t)n * (size_t)n;
    c.bytes = c.count * c.es;
    if (!sw_case_arrays(&c)) {
        c.call = (sw_call_t){.o = o, .dbl = dbl, .n = n, .beta = beta, .A = c.A, .B = c.B,
                             .C = c.C};
#ifdef CLHGEMM_HAVE_OPENBLAS
        sw_case_openblas(&c);
#endif
        sw_case_device(&c);
        for (int pass = 0; pass < 2; pass++) sw_case_ours(&c, pass);
#ifdef CLHGEMM_HAVE_CUBLASXT
        if (env->xt) sw_case_xt(&c);
#endif
        sw_case_bound(&c);
    }
    free(c.A);
    free(c.B);
    free(c.C0);
    free(c.C);
    free(c.Cref);
}
