/*
 * bench_host_run.c -- the competitors of clhgemm-bench-host's per-size runs, each timed on the
 * arrays bench_host_size.c made: the device-only rate and the naive copy-compute-copy
 * (clhgemm_?gemm_cl on buffers of the device-only column's device), ours (clhgemm_?gemm on the
 * handle, checked once), ours on the first device alone (--one-device) and cublasXt (only where
 * built with the CUDA toolkit: bench/cuda/cublasxt_ref.c). Each fills its columns of the
 * result_t or says why it has none; the order in which they run is the caller's.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "bench_host_priv.h"
#include "common/bench_util.h"

#ifdef CLHGEMM_HAVE_CUBLASXT
#include "cuda/cublasxt_ref.h"
#endif

/* ---- the device-buffer GEMM ---------------------------------------------------------------- */

static clhgemm_status_t gemm_cl(const opts_t *o, int dbl, int n, cl_mem A, cl_mem B, cl_mem C,
                                cl_command_queue q, cl_event *ev)
{
    if (dbl)
        return clhgemm_dgemm_cl(o->layout, o->ta, o->tb, n, n, n, 1.0, A, 0, n, B, 0, n, 0.5, C, 0,
                                n, q, ev);
    return clhgemm_sgemm_cl(o->layout, o->ta, o->tb, n, n, n, 1.0f, A, 0, n, B, 0, n, 0.5f, C, 0, n,
                            q, ev);
}

static cl_int run_cl(const opts_t *o, int dbl, int n, cl_mem A, cl_mem B, cl_mem C,
                     cl_command_queue q)
{
    cl_event ev = NULL;
    clhgemm_status_t st = gemm_cl(o, dbl, n, A, B, C, q, &ev);
    if (st != CLHGEMM_SUCCESS) return (cl_int)st;
    return wait_event(ev);
}

/* ---- device-only and naive ----------------------------------------------------------------- */

static void time_devonly(const opts_t *o, const devctx_t *dev, int n, int dbl, cl_mem bA,
                         cl_mem bB, cl_mem bC, double *times, result_t *r)
{
    const int total = o->warmup + o->reps;
    cl_int err = CL_SUCCESS;
    int nt = 0;
    for (int i = 0; i < total && err == CL_SUCCESS; i++) {
        double a = now_ms();
        err = run_cl(o, dbl, n, bA, bB, bC, dev->q);
        if (i >= o->warmup) times[nt++] = now_ms() - a;
    }
    if (err == CL_SUCCESS)
        r->devonly = stats_of(times, nt);
    else
        snprintf(r->devonly_why, sizeof r->devonly_why, "%s", clhgemm_status_string(err));
}

/* Copy in from the pageable arrays, compute, copy C out; C0 is still in C, so every rep computes
 * the same result (read into Cdev). 1 when it ran, 0 when it failed (Cdev may be half-read). */
static int time_naive(const opts_t *o, const devctx_t *dev, int n, int dbl, const void *A,
                      const void *B, const void *C, void *Cdev, cl_mem bA, cl_mem bB, cl_mem bC,
                      double *times, result_t *r)
{
    const size_t bytes = (size_t)n * (size_t)n * (dbl ? 8 : 4);
    const int total = o->warmup + o->reps;
    int nt = 0;
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < total && err == CL_SUCCESS; i++) {
        double a = now_ms();
        err = clEnqueueWriteBuffer(dev->q, bA, CL_TRUE, 0, bytes, A, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueWriteBuffer(dev->q, bB, CL_TRUE, 0, bytes, B, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueWriteBuffer(dev->q, bC, CL_TRUE, 0, bytes, C, 0, NULL, NULL);
        if (err == CL_SUCCESS) err = run_cl(o, dbl, n, bA, bB, bC, dev->q);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(dev->q, bC, CL_TRUE, 0, bytes, Cdev, 0, NULL, NULL);
        if (i >= o->warmup) times[nt++] = now_ms() - a;
    }
    if (err != CL_SUCCESS) {
        snprintf(r->naive_why, sizeof r->naive_why, "%s", clhgemm_status_string(err));
        return 0;
    }
    r->naive = stats_of(times, nt);
    printf("  n=%d %s: naive copy-compute-copy %.1f GFLOP/s (median %.1f ms)\n", n,
           dbl ? "d" : "s", gflops(n, r->naive.median), r->naive.median);
    return 1;
}

/* The device-only and naive columns, on buffers that are gone (and the device API's cached
 * workspaces with them) when it returns, so that ours has the device to itself. Cdev receives
 * the reference for ours, one call on C0: 1 when it holds it. */
int bh_run_device(const opts_t *o, const devctx_t *dev, int n, int dbl, const void *A,
                  const void *B, const void *C, void *Cdev, double *times, result_t *r)
{
    const size_t bytes = (size_t)n * (size_t)n * (dbl ? 8 : 4);
    const double gmem = (double)dev->info.global_mem_bytes;
    if (3.0 * (double)bytes >= 0.85 * gmem || (double)bytes > (double)dev->info.max_alloc_bytes) {
        snprintf(r->devonly_why, sizeof r->devonly_why, "3 x %.1f GB do not fit the device",
                 bytes * 1e-9);
        snprintf(r->naive_why, sizeof r->naive_why, "does not fit");
        return 0;
    }
    int have_devref = 0;
    cl_int err;
    cl_mem bA, bB, bC;
    dev_upload3(dev, bytes, A, B, C, &bA, &bB, &bC, &err);
    /* The reference for ours: one call on C0 (also the first, untimed, use). */
    if (err == CL_SUCCESS) err = run_cl(o, dbl, n, bA, bB, bC, dev->q);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(dev->q, bC, CL_TRUE, 0, bytes, Cdev, 0, NULL, NULL);
    if (err == CL_SUCCESS) have_devref = 1;
    if (err != CL_SUCCESS) {
        snprintf(r->devonly_why, sizeof r->devonly_why, "%s", clhgemm_status_string(err));
        snprintf(r->naive_why, sizeof r->naive_why, "%s", clhgemm_status_string(err));
    }
    if (err == CL_SUCCESS && !o->no_devonly)
        time_devonly(o, dev, n, dbl, bA, bB, bC, times, r);
    else if (o->no_devonly)
        snprintf(r->devonly_why, sizeof r->devonly_why, "skipped");
    if (r->devonly.ok)
        printf("  n=%d %s: device-only %.1f GFLOP/s (median %.1f ms)\n", n, dbl ? "d" : "s",
               gflops(n, r->devonly.median), r->devonly.median);
    if (have_devref && !o->no_naive)
        have_devref = time_naive(o, dev, n, dbl, A, B, C, Cdev, bA, bB, bC, times, r);
    else if (o->no_naive)
        snprintf(r->naive_why, sizeof r->naive_why, "skipped");
    clFinish(dev->q);
    if (bA) clReleaseMemObject(bA);
    if (bB) clReleaseMemObject(bB);
    if (bC) clReleaseMemObject(bC);
    /* The device-buffer GEMM keeps a workspace per queue (up to a quarter of the device
     * memory); free it so that the pipeline has the device to itself. */
    clhgemm_release_resources();
    return have_devref;
}

/* ---- ours ---------------------------------------------------------------------------------- */

clhgemm_status_t bh_ours_call(clhgemm_handle_t h, const opts_t *o, int dbl, int n, const void *A,
                              const void *B, void *C)
{
    if (dbl) return clhgemm_dgemm(h, o->layout, o->ta, o->tb, n, n, n, 1.0, A, n, B, n, 0.5, C, n);
    return clhgemm_sgemm(h, o->layout, o->ta, o->tb, n, n, n, 1.0f, A, n, B, n, 0.5f, C, n);
}

/* Whether call i (just made on h) is a warm-up: one of the first `warmup`, or -- up to three
 * more -- a call whose plan (tile shape, devices) differs from the call before it. The first
 * call's plan is made before the pack threads' rate was measured, and the planner refines it
 * once (host/plan.c): timing the call that moves to the refined plan would time new pinned
 * staging (seconds on an H100 machine at n = 16384-49152) instead of the steady state. */
static int warming(clhgemm_handle_t h, int i, int warmup, clhgemm_call_info_t *prev, int *extra)
{
    clhgemm_call_info_t cur;
    clhgemm_last_call_info(h, &cur);
    const int changed = i > 0 && (cur.tile_m != prev->tile_m || cur.tile_n != prev->tile_n ||
                                  cur.tile_k != prev->tile_k || cur.devices_used != prev->devices_used);
    *prev = cur;
    if (i < warmup) return 1;
    if (changed && *extra < 3) {
        ++*extra;
        printf("  (call %d: the plan changed to %dx%dx%d on %d device(s) -- one more warm-up call)\n", i + 1,
               cur.tile_m, cur.tile_n, cur.tile_k, cur.devices_used);
        return 1;
    }
    return 0;
}

/* Ours' first result (C = alpha op(A) op(B) + beta C0) against the device-only one (Cdev, when
 * given) and by the cheap check (when given); r->warn when either is beyond tolerance. */
static void check_first(const opts_t *o, int n, int dbl, const void *A, const void *B,
                        const void *C, const void *Cdev, bh_cheap_t *cheap, result_t *r)
{
    if (Cdev) {
        r->devcmp_err = compare(o->threads, C, Cdev, dbl, (size_t)n * (size_t)n, n);
        if (!(r->devcmp_err <= 1.0)) r->warn = 1;
    }
    if (cheap) {
        bh_cheap_ab(cheap, A, B);
        r->check_err = bh_cheap_eval(cheap, C);
        if (!(r->check_err <= 1.0)) r->warn = 1;
    }
    if (r->warn)
        printf("  WARN n=%d %s: ours is off: vs device-only %.3g, cheap check %.3g "
               "(1.0 = tolerance)\n",
               n, dbl ? "d" : "s", r->devcmp_err, r->check_err);
}

/* Ours on the handle: --reps timed calls after the warm-up ones (warming()), the first checked
 * against Cdev (NULL: no device-only reference) and by the cheap check (NULL: --no-check). */
void bh_run_ours(const opts_t *o, clhgemm_handle_t h, int n, int dbl, const void *A,
                 const void *B, void *C, const void *Cdev, bh_cheap_t *cheap, double *times,
                 result_t *r)
{
    if (o->no_ours) {
        snprintf(r->ours_why, sizeof r->ours_why, "skipped");
        return;
    }
    int nt = 0, extra = 0;
    clhgemm_status_t st = CLHGEMM_SUCCESS;
    clhgemm_call_info_t prev = {0};
    for (int i = 0; nt < o->reps; i++) {
        double a = now_ms();
        st = bh_ours_call(h, o, dbl, n, A, B, C);
        double ms = now_ms() - a;
        if (st != CLHGEMM_SUCCESS) break;
        if (!warming(h, i, o->warmup, &prev, &extra)) times[nt++] = ms;
        if (i == 0) {
            clhgemm_last_call_info(h, &r->info);
            check_first(o, n, dbl, A, B, C, Cdev, cheap, r);
        }
    }
    if (st != CLHGEMM_SUCCESS) {
        r->ours_failed = 1;
        snprintf(r->ours_why, sizeof r->ours_why, "%s", clhgemm_status_string(st));
        printf("  n=%d %s: ours FAILED: %s (%d)\n", n, dbl ? "d" : "s",
               clhgemm_status_string(st), (int)st);
        return;
    }
    r->ours = stats_of(times, nt);
    clhgemm_last_call_info(h, &r->info);
    printf("  n=%d %s: ours %.1f GFLOP/s (median %.1f ms, min %.1f, max %.1f); tile "
           "%dx%dx%d, %lld tiles, %d device(s), %.2f GB in, %.2f GB out\n",
           n, dbl ? "d" : "s", bh_ours_gf(r), r->ours.median, r->ours.min, r->ours.max,
           r->info.tile_m, r->info.tile_n, r->info.tile_k, r->info.tiles, r->info.devices_used,
           r->info.bytes_to_device * 1e-9, r->info.bytes_from_device * 1e-9);
}

/* --one-device: ours on a handle of the first device alone, for the scaling over devices (only
 * where ours ran on more than one). */
void bh_run_one_device(const opts_t *o, const devctx_t *dev, int n, int dbl, const void *A,
                       const void *B, void *C, double *times, result_t *r)
{
    if (!(o->one_device && r->ours.ok && r->info.devices_used > 1)) return;
    char spec[16];
    snprintf(spec, sizeof spec, "%d", dev->info.index);
    clhgemm_options_t opt;
    clhgemm_options_init(&opt);
    opt.devices = spec;
    clhgemm_handle_t h1 = NULL;
    clhgemm_status_t st = clhgemm_create(&h1, &opt);
    int nt = 0, extra = 0;
    clhgemm_call_info_t prev = {0};
    for (int i = 0; nt < o->reps && st == CLHGEMM_SUCCESS; i++) {
        double a = now_ms();
        st = bh_ours_call(h1, o, dbl, n, A, B, C);
        const double ms = now_ms() - a;
        if (st == CLHGEMM_SUCCESS && !warming(h1, i, o->warmup, &prev, &extra)) times[nt++] = ms;
    }
    if (st == CLHGEMM_SUCCESS) {
        r->ours1 = stats_of(times, nt);
        clhgemm_last_call_info(h1, &r->info1);
        printf("  n=%d %s: ours on device %s alone %.1f GFLOP/s (median %.1f ms); all %d "
               "devices %.2fx\n",
               n, dbl ? "d" : "s", spec, gflops(n, r->ours1.median), r->ours1.median,
               r->info.devices_used, r->ours1.median / r->ours.median);
    } else {
        snprintf(r->ours1_why, sizeof r->ours1_why, "%s", clhgemm_status_string(st));
        printf("  n=%d %s: ours on one device FAILED: %s\n", n, dbl ? "d" : "s", r->ours1_why);
    }
    clhgemm_destroy(h1);
}

/* ---- cublasXt on the same pageable arrays --------------------------------------------------- */

void bh_run_xt(const opts_t *o, int n, int dbl, const void *A, const void *B, void *C,
               result_t *r)
{
    snprintf(r->xt_why, sizeof r->xt_why, "skipped");
#ifdef CLHGEMM_HAVE_CUBLASXT
    if (!o->no_xt && cublasxt_device_count() <= 0) {
        snprintf(r->xt_why, sizeof r->xt_why, "%s", cublasxt_last_error());
        return;
    }
    if (o->no_xt) return;
    /* Column-major only: a row-major C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T
     * over the same memory. */
    const int row = o->layout == CLHGEMM_ROW_MAJOR;
    const int xa = (row ? o->tb : o->ta) != CLHGEMM_NO_TRANS;
    const int xb = (row ? o->ta : o->tb) != CLHGEMM_NO_TRANS;
    const void *XA = row ? B : A, *XB = row ? A : B;
    for (int pass = 0; pass < (o->xt_block ? 2 : 1); pass++) {
        stats_t *st = pass ? &r->xtb : &r->xt;
        int used = 0;
        if (cublasxt_gemm(dbl, xa, xb, (size_t)n, (size_t)n, (size_t)n, 1.0, XA, (size_t)n, XB,
                          (size_t)n, 0.5, C, (size_t)n, o->xt_devices, pass ? o->xt_block : 0,
                          o->xt_warmup < 0 ? o->warmup : o->xt_warmup,
                          o->xt_reps < 0 ? o->reps : o->xt_reps, &st->median, &st->min, &st->max,
                          &used) == 0) {
            st->ok = 1;
            if (pass)
                r->xtb_block = used;
            else
                r->xt_block_used = used;
            printf("  n=%d %s: cublasXt (%d GPU, block %d) %.1f GFLOP/s (median %.1f ms)\n", n,
                   dbl ? "d" : "s", o->xt_devices, used, gflops(n, st->median), st->median);
        } else {
            snprintf(r->xt_why, sizeof r->xt_why, "%s", cublasxt_last_error());
            printf("  n=%d %s: cublasXt n/a: %s\n", n, dbl ? "d" : "s", r->xt_why);
            break;
        }
    }
#else
    (void)n;
    (void)dbl;
    (void)A;
    (void)B;
    (void)C;
    if (!o->no_xt) snprintf(r->xt_why, sizeof r->xt_why, "built without CUDA");
#endif
}
