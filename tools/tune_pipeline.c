/*
 * tune_pipeline.c -- the host-pipeline measurements of clhgemm-tune, for the planner of
 * src/host/plan.c:
 *   - bus bandwidth each way, from pageable memory (malloc) and from pinned memory (a mapped
 *     CL_MEM_ALLOC_HOST_PTR buffer), blocking clEnqueueWrite/ReadBuffer, best of a few;
 *   - the GEMM kernel's rate against the tile shape (square and rectangular m x n x k from 1024
 *     to 16384 on GPUs, capped by device memory and time), with the tuned parameters, on packed
 *     operands holding a random pattern;
 *   - the copy rate from pageable into pinned memory against the number of pack threads;
 *   - the routing model's figures per precision (host/route.c): the fixed cost of a host-memory
 *     call on the device (median of tiny calls on a handle routed to the device) and
 *     OpenBLAS's rates at the model's sizes with its thread count (chg_cpu_blas_rates, the
 *     library's own measurement);
 *   - the effect of the queue count (3 vs 4) on a host-memory GEMM through the public API
 *     (clhgemm_create with options.queues and options.cpu_threads), with a device memory
 *     limit that splits the problem into several tiles so that the queues overlap.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gemm.h"
#include "cpu/route_calls.h"
#include "tune.h"

/* ---- bus --------------------------------------------------------------------------------- */

static int bus(tune_run_t *r, tdev_t *d, chg_tuning_pipeline_t *pl)
{
    const int gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    size_t bytes = gpu ? (256u << 20) : (32u << 20);
    while (bytes > d->dev.info.max_alloc_bytes / 2) bytes /= 2;
    cl_int err;
    cl_mem dev = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return -1;
    char *pageable = malloc(bytes);
    cl_mem pin = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    void *pinned = NULL;
    if (pin) pinned = clEnqueueMapBuffer(d->q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                         NULL, NULL, &err);
    if (!pageable || !pinned) {
        free(pageable);
        if (pin) clReleaseMemObject(pin);
        clReleaseMemObject(dev);
        return -1;
    }
    memset(pageable, 1, bytes);
    memset(pinned, 2, bytes);
    double best[4] = {0, 0, 0, 0}; /* h2d pageable, d2h pageable, h2d pinned, d2h pinned */
    for (int rep = 0; rep < 4; rep++) {
        for (int k = 0; k < 4; k++) {
            void *host = k < 2 ? (void *)pageable : pinned;
            const double t0 = tune_now();
            err = (k % 2 == 0) ? clEnqueueWriteBuffer(d->q, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                               : clEnqueueReadBuffer(d->q, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
            const double t = tune_now() - t0;
            if (err == CL_SUCCESS && rep > 0 && t > 0 && bytes / t > best[k]) best[k] = bytes / t;
        }
    }
    clEnqueueUnmapMemObject(d->q, pin, pinned, 0, NULL, NULL);
    clFinish(d->q);
    clReleaseMemObject(pin);
    clReleaseMemObject(dev);
    free(pageable);
    pl->h2d_pageable_gbs = best[0] * 1e-9;
    pl->d2h_pageable_gbs = best[1] * 1e-9;
    pl->h2d_pinned_gbs = best[2] * 1e-9;
    pl->d2h_pinned_gbs = best[3] * 1e-9;
    tune_say(r, "%s bus (%zu MiB, best of 3): host->device %.1f GB/s pageable, %.1f pinned; "
                "device->host %.1f pageable, %.1f pinned",
             d->log_prefix, bytes >> 20, pl->h2d_pageable_gbs, pl->h2d_pinned_gbs,
             pl->d2h_pageable_gbs, pl->d2h_pinned_gbs);
    return 0;
}

/* ---- kernel rate vs tile shape ------------------------------------------------------------ */

static void kernel_rates(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline)
{
    const int gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    const size_t es = chg_elem_size(prec);
    chg_tuning_prec_t *tp = &d->rec.prec[prec];
    chg_gemm_params_t gp;
    if (tp->present) gp = tp->gemm;
    else chg_gemm_params_select(&d->dev, prec, &gp);
    chg_str_t src;
    chg_str_init(&src);
    cl_program prog;
    cl_int err;
    if (chg_gemm_source(&d->dev, prec, &gp, &src) != 0 ||
        chg_program_get(d->ctx, &d->dev, prec ? "dgemm" : "sgemm", src.data,
                        chg_build_options(&d->dev), &prog) != CLHGEMM_SUCCESS) {
        chg_str_free(&src);
        tune_say(r, "%s kernel rate: the kernel failed to build", d->log_prefix);
        return;
    }
    chg_str_free(&src);
    cl_kernel k = clCreateKernel(prog, "clhgemm_gemm", &err);
    if (!k) return;
    static const int gsizes[] = {1024, 2048, 4096, 8192, 16384}, csizes[] = {128, 256, 512};
    const int *sz = gpu ? gsizes : csizes;
    const int nsz = gpu ? 5 : 3;
    int shapes[3 * 5][3], ns = 0;
    for (int i = 0; i < nsz; i++) {
        const int s = sz[i];
        shapes[ns][0] = s, shapes[ns][1] = s, shapes[ns][2] = s, ns++;
        if (s / 4 >= (gpu ? 256 : 64)) shapes[ns][0] = s, shapes[ns][1] = s, shapes[ns][2] = s / 4, ns++;
        shapes[ns][0] = 2 * s, shapes[ns][1] = s / 2, shapes[ns][2] = s, ns++;
    }
    chg_gemm_kernels_t ks;
    memset(&ks, 0, sizeof ks);
    ks.prec = prec;
    ks.gp = gp;
    ks.gemm = k;
    double rate = 0; /* best so far, flop/s, for the time estimate */
    tp->nrates = 0;
    /* a random pattern (the kernel's speed must not depend on zeros) */
    double pat[16];
    unsigned long long st = r->o.seed ^ 0x9A77E2ULL;
    for (int i = 0; i < 16; i++) pat[i] = tune_uniform(&st);
    float patf[16];
    for (int i = 0; i < 16; i++) patf[i] = (float)pat[i];
    for (int i = 0; i < ns && tp->nrates < CHG_TUNING_MAX_RATES; i++) {
        if (tune_now() > deadline || r->stop) break;
        const size_t m = (size_t)shapes[i][0], n = (size_t)shapes[i][1], kk = (size_t)shapes[i][2];
        const size_t mp = chg_round_up(m, gp.mwg), np = chg_round_up(n, gp.nwg),
                     kp = chg_round_up(kk, gp.kwg);
        const double a = (double)mp * kp * es, b = (double)kp * np * es, c = (double)mp * np * es;
        const double flop = 2.0 * m * n * kk;
        if (a + b + c > d->dev.info.global_mem_bytes / 3.0 || a > d->dev.info.max_alloc_bytes ||
            b > d->dev.info.max_alloc_bytes || c > d->dev.info.max_alloc_bytes ||
            mp * kp >= (1ull << 31) || kp * np >= (1ull << 31) || mp * np >= (1ull << 31))
            continue;
        if (rate > 0 && 4 * flop / rate > deadline - tune_now()) continue;
        cl_mem A = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, (size_t)a, NULL, &err), B = NULL, C = NULL;
        if (A) B = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, (size_t)b, NULL, &err);
        if (B) C = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, (size_t)c, NULL, &err);
        const void *pp = prec == CHG_F64 ? (const void *)pat : (const void *)patf;
        const size_t psz = 16 * es;
        if (C) err = clEnqueueFillBuffer(d->q, A, pp, psz, 0, (size_t)a, 0, NULL, NULL);
        if (C && err == CL_SUCCESS) err = clEnqueueFillBuffer(d->q, B, pp, psz, 0, (size_t)b, 0, NULL, NULL);
        double t = -1;
        if (C && err == CL_SUCCESS) {
            err = chg_enqueue_kernel(d->q, &ks, mp, np, kp, A, 0, B, 0, C, 0, 0, NULL, NULL); /* warm-up */
            clFinish(d->q);
            const size_t g[2] = {mp / gp.mwg * gp.mdimc, np / gp.nwg * gp.ndimc};
            const size_t l[2] = {(size_t)gp.mdimc, (size_t)gp.ndimc};
            if (err == CL_SUCCESS) t = tune_time_kernel(d->q, k, 2, g, l, 3, &err);
        }
        if (A) clReleaseMemObject(A);
        if (B) clReleaseMemObject(B);
        if (C) clReleaseMemObject(C);
        if (t <= 0) {
            tune_log(r, "%s kernel rate %zux%zux%zu: failed (%s)", d->log_prefix, m, n, kk,
                     clhgemm_status_string(err));
            continue;
        }
        if (flop / t > rate) rate = flop / t;
        chg_tuning_rate_t *row = &tp->rates[tp->nrates++];
        row->m = (int)m;
        row->n = (int)n;
        row->k = (int)kk;
        row->gflops = flop / t * 1e-9;
        tune_log(r, "%s %cgemm kernel rate %zux%zux%zu: %.1f GFLOP/s", d->log_prefix,
                 prec ? 'd' : 's', m, n, kk, row->gflops);
    }
    clReleaseKernel(k);
    if (tp->nrates) {
        char line[1200];
        int len = 0;
        for (int i = 0; i < tp->nrates && len < (int)sizeof line - 40; i++)
            len += snprintf(line + len, sizeof line - len, "%s%dx%dx%d %.0f", i ? ", " : "",
                            tp->rates[i].m, tp->rates[i].n, tp->rates[i].k, tp->rates[i].gflops);
        tune_say(r, "%s %cgemm kernel rate (GFLOP/s): %s", d->log_prefix, prec ? 'd' : 's', line);
    }
}

/* ---- pack threads ------------------------------------------------------------------------- */

typedef struct pjob_s {
    char *dst;
    const char *src;
    size_t bytes;
    int part, parts;
} pjob_t;

static void *pack_part(void *arg)
{
    const pjob_t *j = arg;
    const size_t a = j->bytes * (size_t)j->part / (size_t)j->parts;
    const size_t b = j->bytes * (size_t)(j->part + 1) / (size_t)j->parts;
    memcpy(j->dst + a, j->src + a, b - a);
    return NULL;
}

static void pack_threads(tune_run_t *r, tdev_t *d, chg_tuning_pipeline_t *pl, double deadline)
{
    const int gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    size_t bytes = gpu ? (256u << 20) : (64u << 20);
    while (bytes > d->dev.info.max_alloc_bytes / 2) bytes /= 2;
    cl_int err;
    cl_mem pin = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    char *dst = NULL, *src = malloc(bytes);
    if (pin) dst = clEnqueueMapBuffer(d->q, pin, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    if (!dst || !src) {
        free(src);
        if (pin) clReleaseMemObject(pin);
        return;
    }
    memset(src, 5, bytes);
    memset(dst, 0, bytes);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    double top = 0;
    pl->npack = 0;
    for (int t = 1; pl->npack < CHG_TUNING_MAX_POINTS; t *= 2) {
        if (t > cores) t = (int)cores;
        if (pl->npack > 0 && tune_now() > deadline) break;
        pthread_t th[64];
        pjob_t jobs[64];
        double best = 0;
        for (int rep = 0; rep < 3; rep++) {
            const double t0 = tune_now();
            int started = 0;
            for (int i = 0; i < t && i < 64; i++) {
                jobs[i] = (pjob_t){dst, src, bytes, i, t};
                if (i == 0 || pthread_create(&th[i], NULL, pack_part, &jobs[i]) == 0) started = i + 1;
            }
            pack_part(&jobs[0]);
            for (int i = 1; i < started; i++) pthread_join(th[i], NULL);
            const double dt = tune_now() - t0;
            if (dt > 0 && bytes / dt > best) best = bytes / dt;
        }
        pl->pack_gbs[pl->npack].x = t;
        pl->pack_gbs[pl->npack].value = best * 1e-9;
        pl->npack++;
        if (best > top) top = best;
        if (t >= cores || t >= 64) break;
    }
    pl->pack_threads = 1;
    for (int i = 0; i < pl->npack; i++)
        if (pl->pack_gbs[i].value * 1e9 >= 0.95 * top) {
            pl->pack_threads = pl->pack_gbs[i].x;
            break;
        }
    clEnqueueUnmapMemObject(d->q, pin, dst, 0, NULL, NULL);
    clFinish(d->q);
    clReleaseMemObject(pin);
    free(src);
    char line[400];
    int len = 0;
    for (int i = 0; i < pl->npack; i++)
        len += snprintf(line + len, sizeof line - (size_t)len, "%s%d: %.1f", i ? ", " : "",
                        pl->pack_gbs[i].x, pl->pack_gbs[i].value);
    tune_say(r, "%s pack threads (GB/s into pinned memory): %s; best %d", d->log_prefix, line,
             pl->pack_threads);
}

/* ---- routing figures ---------------------------------------------------------------------- */

#define ROUTE_N 32     /* the tiny call: 32 x 32 x 32 */
#define ROUTE_WARM 3
#define ROUTE_REPS 20

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A handle of device d alone whose calls all go to the device: CLHGEMM_ROUTE=device while it
 * is created (the routing mode is read then), the caller's setting restored after. */
static clhgemm_handle_t device_routed_handle(tune_run_t *r, tdev_t *d)
{
    char spec[32];
    snprintf(spec, sizeof spec, "%d", d->index);
    const char *was = getenv("CLHGEMM_ROUTE");
    char *saved = was ? strdup(was) : NULL;
    setenv("CLHGEMM_ROUTE", "device", 1);
    clhgemm_options_t o;
    clhgemm_options_init(&o);
    o.devices = spec;
    clhgemm_handle_t h = NULL;
    const clhgemm_status_t st = clhgemm_create(&h, &o);
    if (saved) setenv("CLHGEMM_ROUTE", saved, 1);
    else unsetenv("CLHGEMM_ROUTE");
    free(saved);
    if (st != CLHGEMM_SUCCESS) {
        tune_say(r, "%s route: clhgemm_create: %s", d->log_prefix, clhgemm_status_string(st));
        return NULL;
    }
    return h;
}

/* The fixed cost of a host-memory call on the device: the median wall time of ROUTE_REPS
 * calls of ROUTE_N^3 after ROUTE_WARM warm-up calls. Seconds, or -1. */
static double route_latency(tune_run_t *r, tdev_t *d, clhgemm_handle_t h, chg_precision_t prec)
{
    enum { NN = ROUTE_N * ROUTE_N };
    double A[NN], B[NN], C[NN]; /* as floats for s: the first half */
    tune_fill(A, prec == CHG_F64, NN, r->o.seed ^ 11);
    tune_fill(B, prec == CHG_F64, NN, r->o.seed ^ 12);
    tune_fill(C, prec == CHG_F64, NN, r->o.seed ^ 13);
    double t[ROUTE_REPS];
    for (int i = 0; i < ROUTE_WARM + ROUTE_REPS; i++) {
        const int n = ROUTE_N;
        const double t0 = tune_now();
        const clhgemm_status_t st =
            prec == CHG_F64 ? clhgemm_dgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, n, n, n,
                                            1.0, A, n, B, n, 0.5, C, n)
                            : clhgemm_sgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, n, n, n,
                                            1.0f, (const float *)A, n, (const float *)B, n, 0.5f, (float *)C, n);
        const double dt = tune_now() - t0;
        if (st != CLHGEMM_SUCCESS) {
            tune_say(r, "%s route %c: clhgemm_%cgemm: %s", d->log_prefix, prec ? 'd' : 's', prec ? 'd' : 's',
                     clhgemm_status_string(st));
            return -1;
        }
        if (i >= ROUTE_WARM) t[i - ROUTE_WARM] = dt;
    }
    qsort(t, ROUTE_REPS, sizeof t[0], cmp_double);
    return 0.5 * (t[(ROUTE_REPS - 1) / 2] + t[ROUTE_REPS / 2]);
}

/* The routing figures of every precision in prec_mask (d->rec.prec[p].route): the latency of
 * each, then OpenBLAS's rates (a fixed amount of work, about 100 GFLOP per precision: tens of
 * milliseconds on a many-core host, seconds on one core), the second precision's only when
 * the first's time still fits before the deadline. */
static void route_figures(tune_run_t *r, tdev_t *d, int prec_mask, double deadline)
{
    clhgemm_handle_t h = device_routed_handle(r, d);
    if (!h) return;
    const int threads = chg_cpu_blas_threads();
    double took = 0;
    for (int p = 0; p < 2 && !r->stop; p++) {
        if (!(prec_mask & (1 << p)) || (p == CHG_F64 && !(d->dev.features & CHG_FEAT_FP64))) continue;
        const char pc = p ? 'd' : 's';
        chg_tuning_route_t *rt = &d->rec.prec[p].route;
        const double lat = route_latency(r, d, h, (chg_precision_t)p);
        if (!(lat > 0)) continue;
        const chg_tuning_route_t old = *rt; /* the stored entry's (a rerun keeps its rates if it skips them) */
        memset(rt, 0, sizeof *rt);
        rt->present = 1;
        rt->latency_us = lat * 1e6;
        const char *why = threads < 1 ? "no OpenBLAS" : "no time left";
        if (threads >= 1 && (took == 0 || tune_now() + took <= deadline)) {
            why = "a rate was 0";
            double rates[CHG_CPU_RATE_SIZES];
            const double t0 = tune_now();
            chg_cpu_blas_rates((chg_precision_t)p, rates);
            took = tune_now() - t0;
            int ok = 1;
            for (int i = 0; i < CHG_CPU_RATE_SIZES; i++) ok &= rates[i] > 0;
            for (int i = 0; ok && i < CHG_TUNING_ROUTE_SIZES; i++) rt->cpu_gflops[i] = rates[i] * 1e-9;
            rt->cpu_threads = ok ? threads : 0;
        } else if (old.present && old.cpu_threads == threads && threads >= 1) {
            rt->cpu_threads = old.cpu_threads;
            memcpy(rt->cpu_gflops, old.cpu_gflops, sizeof rt->cpu_gflops);
            why = " (no time left: the stored entry's)";
        }
        if (rt->cpu_threads)
            tune_say(r, "%s route %c: host call latency %.3f ms (median of %d %dx%dx%d calls); OpenBLAS on %d "
                        "threads %.1f, %.1f, %.1f, %.1f GFLOP/s at n = 64, 256, 1024, 2048%s",
                     d->log_prefix, pc, lat * 1e3, ROUTE_REPS, ROUTE_N, ROUTE_N, ROUTE_N, threads,
                     rt->cpu_gflops[0], rt->cpu_gflops[1], rt->cpu_gflops[2], rt->cpu_gflops[3],
                     why[0] == ' ' ? why : "");
        else
            tune_say(r, "%s route %c: host call latency %.3f ms (median of %d %dx%dx%d calls); OpenBLAS rates "
                        "not measured (%s)", d->log_prefix, pc, lat * 1e3, ROUTE_REPS, ROUTE_N, ROUTE_N, ROUTE_N,
                     why);
        if (!d->rec.prec[p].present)
            tune_say(r, "%s route %c: not stored: the entry has no %cgemm parameters yet (run --gemm)",
                     d->log_prefix, pc, pc);
    }
    clhgemm_destroy(h);
}

/* ---- queue count -------------------------------------------------------------------------- */

static void queues(tune_run_t *r, tdev_t *d, chg_tuning_pipeline_t *pl, double deadline)
{
    const int gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    const int n = gpu ? 8192 : 384;
    const size_t nn = (size_t)n * n;
    float *A = malloc(nn * sizeof *A), *B = malloc(nn * sizeof *B), *C = malloc(nn * sizeof *C);
    if (!A || !B || !C) {
        free(A);
        free(B);
        free(C);
        return;
    }
    tune_fill(A, 0, nn, r->o.seed ^ 1);
    tune_fill(B, 0, nn, r->o.seed ^ 2);
    tune_fill(C, 0, nn, r->o.seed ^ 3);
    char spec[32];
    snprintf(spec, sizeof spec, "%d", d->index);
    static const int qs[2] = {3, 4};
    clhgemm_handle_t h[2] = {NULL, NULL};
    double best[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        clhgemm_options_t o;
        clhgemm_options_init(&o);
        o.devices = spec;
        o.queues = qs[i];
        o.cpu_threads = pl->pack_threads > 0 ? pl->pack_threads : 0;
        /* a limit that needs several tiles, so that the queues have something to overlap */
        o.device_memory_limit = nn * sizeof(float);
        clhgemm_status_t st = clhgemm_create(&h[i], &o);
        if (st != CLHGEMM_SUCCESS) {
            tune_say(r, "%s queue test: clhgemm_create(%d queues): %s", d->log_prefix, qs[i],
                     clhgemm_status_string(st));
            h[i] = NULL;
        }
    }
    int rounds = 0;
    for (int rep = 0; rep < 4 && h[0] && h[1]; rep++) {
        if (rep >= 2 && tune_now() > deadline) break;
        for (int i = 0; i < 2; i++) {
            const double t0 = tune_now();
            clhgemm_status_t st = clhgemm_sgemm(h[i], CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS,
                                                CLHGEMM_NO_TRANS, n, n, n, 1.0f, A, n, B, n, 0.5f, C, n);
            const double t = tune_now() - t0;
            if (st != CLHGEMM_SUCCESS) {
                tune_say(r, "%s queue test: clhgemm_sgemm: %s", d->log_prefix, clhgemm_status_string(st));
                rep = 99;
                break;
            }
            if (rep > 0 && (best[i] == 0 || t < best[i])) best[i] = t; /* rep 0: warm-up */
        }
        rounds = rep;
    }
    for (int i = 0; i < 2; i++) clhgemm_destroy(h[i]);
    free(A);
    free(B);
    free(C);
    if (best[0] > 0 && best[1] > 0) {
        pl->nqueue = 2;
        for (int i = 0; i < 2; i++) pl->queue_seconds[i] = (chg_tuning_point_t){qs[i], best[i]};
        /* a fourth queue must buy more than noise */
        pl->queues = best[1] < 0.97 * best[0] ? 4 : 3;
        tune_say(r, "%s queues (host-memory SGEMM n = %d, best of %d): 3 queues %.3f s, 4 queues "
                    "%.3f s; best %d",
                 d->log_prefix, n, rounds, best[0], best[1], pl->queues);
    }
}

int tune_pipeline(tune_run_t *r, tdev_t *d, int prec_mask, double deadline)
{
    chg_tuning_pipeline_t *pl = &d->rec.pipeline;
    memset(pl, 0, sizeof *pl);
    const double t0 = tune_now(), span = deadline - t0;
    if (bus(r, d, pl) != 0) {
        tune_say(r, "%s bus measurement failed", d->log_prefix);
        return -1;
    }
    pl->present = 1;
    pack_threads(r, d, pl, t0 + 0.25 * span);
    for (int p = 0; p < 2; p++)
        if (prec_mask & (1 << p) && (p == CHG_F32 || (d->dev.features & CHG_FEAT_FP64)))
            kernel_rates(r, d, (chg_precision_t)p, t0 + (p == 0 ? 0.5 : 0.75) * span);
    if (!r->stop) route_figures(r, d, prec_mask, t0 + 0.85 * span);
    if (!r->stop) queues(r, d, pl, deadline);
    return 0;
}
