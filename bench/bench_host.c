/*
 * bench_host.c -- clhgemm-bench-host: GEMM on matrices in ordinary (pageable, malloc) host
 * memory through the host pipeline (clhgemm_{s,d}gemm on a handle), against what the same
 * device does with the data already on it and against the alternatives, all in the same run.
 *
 * Per size n (square, column-major NN by default; alpha 1, beta 0.5, inputs uniform in [-1, 1]):
 *   ours        clhgemm_{s,d}gemm on one handle created once (CLHGEMM_DEVICES and the other
 *               CLHGEMM_* variables honoured), median wall time of --reps calls after --warmup
 *   device-only clhgemm_{s,d}gemm_cl on n x n buffers already on the handle's first device
 *               (median of enqueue -> event wait), when 3 n^2 s fits in 85% of its memory
 *   efficiency  ours / device-only: how much of the device rate the pipeline keeps
 *   naive       blocking write of A, B, C from the pageable arrays, the device GEMM, blocking
 *               read of C: the copy-compute-copy a user would write, end to end
 *   cublasXt    NVIDIA's host-memory GEMM on the same pageable arrays (--xt-devices, default 1;
 *               default block, plus --xt-block B when given), when built with CUDA and a CUDA
 *               device is present
 * The device-only and naive phases run first and free their buffers, and the device API's
 * cached workspaces (clhgemm_release_resources), before ours runs (the handle keeps its own
 * device buffers between calls; the warm-up absorbs the program-cache reload). Ours is checked once per size: against
 * the device-only result element-wise (max|diff| / max|ref| / (k eps), WARN above 1) and with
 * BLIS's cheap check C t = beta C0 t + alpha A (B t) for a random vector t (per-row error over
 * its bound / (k eps)). The device comparison needs one more n x n host array; the cheap check
 * only vectors, so --oversize (a problem larger than the device: A, B and C together exceed its
 * memory) still gets checked. Big matrices are filled by all cores (a counter-based generator,
 * so the result does not depend on the thread count). A size whose arrays do not fit in the
 * available host memory is skipped with a message. The summary table is printed last; --csv
 * appends one row per size and precision as they finish. Exit status 1 if any check warned or
 * ours failed.
 *
 * --cpu-share runs the CPU-share comparison instead (issue 6), per size and precision, in the
 * same run on the same arrays, one handle at a time:
 *   gpu-only      the handle with the CPU share off
 *   auto-slab     CPU share auto (the tuning entry's split model when it has one, else the
 *                 run-time rates), slab scheduler
 *   auto-strips   the same with CLHGEMM_CPU_SCHED=strips
 *   F-slab, F-strips  a forced fraction F (--cpu-fraction F; with strips F only switches the
 *                 share on: the strips size themselves)
 *   cpu-only      OpenBLAS alone (all its threads) on a slab of --cpu-slab rows (default 512) of
 *                 the same problem, column-major NN: the full n=32768 product would take minutes
 * with the share chosen (the call's cpu_fraction), the model's predicted time (call info) next to
 * the measured, each hybrid's result checked once (BLIS's cheap check against the same C0), and a
 * CSV line per case (--cpu-csv FILE).
 *
 * --sweep runs the size sweep instead (issue 19 item 5): n = 64 ... 16384 (--sizes, times
 * --scale, at most --max-n), each precision, beta 0 and 0.5, pageable arrays; per case OpenBLAS
 * alone (one call on C0 is the reference, then its rate), the device-only rate
 * (clhgemm_?gemm_cl on buffers already on the device, kernels enqueued back to back), ours on the
 * handle as the environment makes it (auto routing unless CLHGEMM_ROUTE says otherwise) and ours
 * on a second handle created with CLHGEMM_ROUTE=device, each way's first call on C0 checked
 * against OpenBLAS's element-wise (max|diff| / max|ref| / (max(k, 16) eps), FAILED above 1), then
 * --warmup calls and --reps samples of >= 20 ms each (small n: many calls, per-call time). The
 * host bound is flops / max(device-only time, (A + B + (beta != 0) C) bytes / the pinned
 * host->device rate measured at the start (a mapped CL_MEM_ALLOC_HOST_PTR buffer of 256 MiB,
 * times --scale when below 1, written to the device, best of 3)); C's way back overlaps on the
 * other direction. The route a call took comes from clhgemm_last_call_info. A header line, a
 * table line per case, --csv FILE (rewritten), --png FILE (gnuplot, when installed) and a last
 * line "worst: ..." (the smallest ours / max(OpenBLAS, device route), and for n <= 256 the
 * largest time ours / OpenBLAS). Exit status 1 if a check failed or a call failed.
 */
#define _POSIX_C_SOURCE 200809L
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif

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
#include "clhgemm.h"

#ifdef CLHGEMM_HAVE_OPENBLAS
#include <cblas.h>
#endif

#ifdef CLHGEMM_HAVE_CUBLASXT
#include "cublasxt_ref.h"
#endif


/* ---- options ------------------------------------------------------------------------------- */



static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: clhgemm-bench-host [options]\n"
        "  --sizes N,N,...      square sizes (default 4096,8192,16384,32768)\n"
        "  --precision s|d|both (default both)\n"
        "  --reps R             timed calls per measurement, median reported (default 3)\n"
        "  --warmup W           untimed calls before them (default 1; ours: up to 3 more while\n"
        "                       the plan changes from one call to the next)\n"
        "  --layout col|row     (default col)\n"
        "  --trans XY           op(A), op(B): NN, NT, TN or TT (default NN)\n"
        "  --csv FILE           append one row per size and precision\n"
        "  --xt-devices N       CUDA devices for cublasXt (default 1)\n"
        "  --xt-block B         also measure cublasXt with block dimension B\n"
        "  --xt-reps R, --xt-warmup W   for cublasXt only (default: --reps, --warmup; it is\n"
        "                       slow from pageable memory: ~1 min per call at n=32768 d)\n"
        "  --no-ours --no-device-only --no-naive --no-xt --no-check   skip a column / the check\n"
        "  --oversize           one double problem larger than the device (A, B, C together\n"
        "                       above its memory): implies --reps 1 --warmup 0 --no-device-only\n"
        "                       --no-naive --no-xt unless those are given\n"
        "  --one-device         also time ours on a handle restricted to the first device and\n"
        "                       print the scaling of all devices over one (same arrays, same run)\n"
        "  --threads T          threads that fill and check the matrices (default: all cores)\n"
        "  --cpu-share          the CPU-share comparison instead: GPU-only, auto (slab and strips),\n"
        "                       a forced fraction (--cpu-fraction F, slab and strips) and OpenBLAS\n"
        "                       alone on a slab of --cpu-slab R rows (default 512); --cpu-csv FILE\n"
        "                       appends a line per case\n"
        "  --sweep              the size sweep instead: n = 64 ... 16384 (powers of 2; --sizes\n"
        "                       replaces them), both precisions (or --precision), beta 0 and 0.5,\n"
        "                       pageable memory; per case ours (median of --reps, default 5, after\n"
        "                       --warmup; small n: samples of >= 20 ms of calls, per-call time),\n"
        "                       OpenBLAS alone (same data, all its threads), the device-only rate\n"
        "                       (clhgemm_?gemm_cl, data on the device), ours on a handle created\n"
        "                       with CLHGEMM_ROUTE=device, the host bound flops / max(device-only\n"
        "                       time, (A + B + (beta != 0) C) bytes / the pinned host->device rate\n"
        "                       measured in the run), the ratios and the route the call took; each\n"
        "                       result checked against OpenBLAS (FAILED and exit 1 when off);\n"
        "                       --csv FILE (rewritten) and --png FILE (gnuplot); --no-device-only,\n"
        "                       --no-check, --no-xt apply; a cublasXt column where CUDA exists\n"
        "  --scale F            --sweep: sizes times F (e.g. 0.125 for a CPU device); the bus is\n"
        "                       measured on 256 MiB times F (F < 1), at least 1 MiB\n"
        "  --max-n N            --sweep: leave out sizes above N (after --scale)\n"
        "  --png FILE           --sweep: GFLOP/s against n (log x), ours, OpenBLAS, device-only\n"
        "                       and the bound per precision, a panel per beta (needs gnuplot)\n"
        "Environment: CLHGEMM_DEVICES, CLHGEMM_DEVICE_MEMORY_LIMIT, CLHGEMM_QUEUES,\n"
        "CLHGEMM_CPU_THREADS, CLHGEMM_CPU_SHARE_THREADS, CLHGEMM_TRACE, CLHGEMM_VERBOSE apply to the\n"
        "handle (--cpu-share sets the share and CLHGEMM_CPU_SCHED per case).\n");
}

static int parse_int(const char *s, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || end == s || *end || v < 0 || v > 1 << 30) return -1;
    *out = (int)v;
    return 0;
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->do_s = o->do_d = 1;
    o->reps = 3;
    o->warmup = 1;
    o->layout = CLHGEMM_COL_MAJOR;
    o->ta = o->tb = CLHGEMM_NO_TRANS;
    o->xt_devices = 1;
    o->xt_reps = o->xt_warmup = -1;
    o->cpu_fraction = -1;
    o->cpu_slab = 512;
    o->scale = 1.0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cores > 0 ? (int)(cores > 128 ? 128 : cores) : 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                                               \
    do {                                                                                           \
        if (!v) {                                                                                  \
            fprintf(stderr, "%s needs a value\n", a);                                              \
            return -1;                                                                             \
        }                                                                                          \
        i++;                                                                                       \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--sizes")) {
            NEED_VALUE();
            o->nsizes = 0;
            o->sizes_given = 1;
            char *copy = strdup(v), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int n;
                if (o->nsizes >= MAX_SIZES || parse_int(t, &n) || n < 1) {
                    fprintf(stderr, "bad --sizes entry '%s'\n", t);
                    free(copy);
                    return -1;
                }
                o->sizes[o->nsizes++] = n;
            }
            free(copy);
            if (!o->nsizes) return -1;
        } else if (!strcmp(a, "--precision")) {
            NEED_VALUE();
            o->prec_given = 1;
            o->do_s = !strcmp(v, "s") || !strcmp(v, "both");
            o->do_d = !strcmp(v, "d") || !strcmp(v, "both");
            if (!o->do_s && !o->do_d) {
                fprintf(stderr, "--precision: s, d or both\n");
                return -1;
            }
        } else if (!strcmp(a, "--reps")) {
            NEED_VALUE();
            if (parse_int(v, &o->reps) || o->reps < 1) return -1;
            o->reps_given = 1;
        } else if (!strcmp(a, "--warmup")) {
            NEED_VALUE();
            if (parse_int(v, &o->warmup)) return -1;
            o->warmup_given = 1;
        } else if (!strcmp(a, "--csv")) {
            NEED_VALUE();
            o->csv = v;
        } else if (!strcmp(a, "--layout")) {
            NEED_VALUE();
            if (!strcmp(v, "col"))
                o->layout = CLHGEMM_COL_MAJOR;
            else if (!strcmp(v, "row"))
                o->layout = CLHGEMM_ROW_MAJOR;
            else {
                fprintf(stderr, "--layout: col or row\n");
                return -1;
            }
        } else if (!strcmp(a, "--trans")) {
            NEED_VALUE();
            if (strlen(v) != 2) return -1;
            clhgemm_transpose_t t[2];
            for (int j = 0; j < 2; j++) {
                char ch = v[j] | 0x20;
                if (ch == 'n')
                    t[j] = CLHGEMM_NO_TRANS;
                else if (ch == 't' || ch == 'c')
                    t[j] = CLHGEMM_TRANS;
                else {
                    fprintf(stderr, "--trans: NN, NT, TN or TT\n");
                    return -1;
                }
            }
            o->ta = t[0];
            o->tb = t[1];
        } else if (!strcmp(a, "--xt-devices")) {
            NEED_VALUE();
            if (parse_int(v, &o->xt_devices) || o->xt_devices < 1) return -1;
        } else if (!strcmp(a, "--xt-block")) {
            NEED_VALUE();
            if (parse_int(v, &o->xt_block) || o->xt_block < 1) return -1;
        } else if (!strcmp(a, "--xt-reps")) {
            NEED_VALUE();
            if (parse_int(v, &o->xt_reps) || o->xt_reps < 1) return -1;
        } else if (!strcmp(a, "--xt-warmup")) {
            NEED_VALUE();
            if (parse_int(v, &o->xt_warmup)) return -1;
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE();
            if (parse_int(v, &o->threads) || o->threads < 1) return -1;
        } else if (!strcmp(a, "--no-ours")) {
            o->no_ours = 1;
        } else if (!strcmp(a, "--no-device-only")) {
            o->no_devonly = 1;
        } else if (!strcmp(a, "--no-naive")) {
            o->no_naive = 1;
        } else if (!strcmp(a, "--no-xt")) {
            o->no_xt = 1;
        } else if (!strcmp(a, "--no-check")) {
            o->no_check = 1;
        } else if (!strcmp(a, "--oversize")) {
            o->oversize = 1;
        } else if (!strcmp(a, "--one-device")) {
            o->one_device = 1;
        } else if (!strcmp(a, "--cpu-share")) {
            o->cpu_share = 1;
        } else if (!strcmp(a, "--cpu-fraction")) {
            NEED_VALUE();
            char *end = NULL;
            o->cpu_fraction = strtod(v, &end);
            if (!end || *end || !(o->cpu_fraction > 0 && o->cpu_fraction < 1)) {
                fprintf(stderr, "--cpu-fraction: a number in (0, 1)\n");
                return -1;
            }
        } else if (!strcmp(a, "--cpu-slab")) {
            NEED_VALUE();
            if (parse_int(v, &o->cpu_slab) || o->cpu_slab < 1) return -1;
        } else if (!strcmp(a, "--cpu-csv")) {
            NEED_VALUE();
            o->cpu_csv = v;
        } else if (!strcmp(a, "--sweep")) {
            o->sweep = 1;
        } else if (!strcmp(a, "--scale")) {
            NEED_VALUE();
            char *end = NULL;
            o->scale = strtod(v, &end);
            if (!end || *end || !(o->scale > 0 && o->scale <= 64)) {
                fprintf(stderr, "--scale: a number in (0, 64]\n");
                return -1;
            }
        } else if (!strcmp(a, "--max-n")) {
            NEED_VALUE();
            if (parse_int(v, &o->max_n) || o->max_n < 1) return -1;
        } else if (!strcmp(a, "--png")) {
            NEED_VALUE();
            o->png = v;
        } else {
            fprintf(stderr, "unknown option %s\n", a);
            return -1;
        }
#undef NEED_VALUE
    }
    if (o->sweep && (o->oversize || o->cpu_share)) {
        fprintf(stderr, "--sweep does not combine with --oversize or --cpu-share\n");
        return -1;
    }
    if (!o->sweep && (o->scale != 1.0 || o->max_n || o->png)) {
        fprintf(stderr, "--scale, --max-n and --png belong to --sweep\n");
        return -1;
    }
    if (o->sweep) {
        if (!o->reps_given) o->reps = 5;
        if (!o->sizes_given) {
            static const int def[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
            o->nsizes = 9;
            memcpy(o->sizes, def, sizeof def);
        }
        return 0;
    }
    if (o->oversize) {
        if (!o->prec_given) o->do_s = 0;
        if (!o->reps_given) o->reps = 1;
        if (!o->warmup_given) o->warmup = 0;
        o->no_devonly = o->no_naive = o->no_xt = 1;
    }
    if (!o->sizes_given && !o->oversize) {
        static const int def[] = {4096, 8192, 16384, 32768};
        o->nsizes = 4;
        memcpy(o->sizes, def, sizeof def);
    }
    return 0;
}

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

/* ---- one size ------------------------------------------------------------------------------ */

typedef struct result_s {
    int n, dbl, skipped;
    char why[160];
    stats_t ours, devonly, naive, xt, xtb;
    stats_t ours1;                /* --one-device: ours on the first device alone */
    clhgemm_call_info_t info1;
    char ours1_why[128];
    int xt_block_used, xtb_block;
    char devonly_why[128], naive_why[128], xt_why[160];
    clhgemm_call_info_t info;
    double check_err, devcmp_err; /* NAN when not done */
    int warn, ours_failed;
    char ours_why[128];
} result_t;

static double ours_gf(const result_t *r) { return r->ours.ok ? gflops(r->n, r->ours.median) : 0; }

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

static clhgemm_status_t ours_call(clhgemm_handle_t h, const opts_t *o, int dbl, int n,
                                  const void *A, const void *B, void *C)
{
    if (dbl) return clhgemm_dgemm(h, o->layout, o->ta, o->tb, n, n, n, 1.0, A, n, B, n, 0.5, C, n);
    return clhgemm_sgemm(h, o->layout, o->ta, o->tb, n, n, n, 1.0f, A, n, B, n, 0.5f, C, n);
}

static void bench_size(const opts_t *o, clhgemm_handle_t h, devctx_t *dev, int n, int dbl,
                       result_t *r)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->dbl = dbl;
    r->check_err = r->devcmp_err = NAN;
    const size_t s = dbl ? 8 : 4, count = (size_t)n * (size_t)n, bytes = count * s;
    const int want_dev = dev->ok && (!o->no_devonly || !o->no_naive);
    const int threads = o->threads;

    /* Host memory: A, B, C always; one more n x n for the device comparison and naive reads. */
    unsigned long long avail = host_available();
    int use_dev = want_dev;
    if (avail && 3.0 * (double)bytes + 64e6 > 0.95 * (double)avail) {
        r->skipped = 1;
        snprintf(r->why, sizeof r->why, "A, B, C need %.1f GB, %.1f GB of host memory available",
                 3.0 * bytes * 1e-9, avail * 1e-9);
        return;
    }
    if (use_dev && avail && 4.0 * (double)bytes + 64e6 > 0.95 * (double)avail) {
        use_dev = 0;
        snprintf(r->devonly_why, sizeof r->devonly_why, "host memory");
        snprintf(r->naive_why, sizeof r->naive_why, "host memory");
    }
    void *A = malloc(bytes), *B = malloc(bytes), *C = malloc(bytes);
    void *Cdev = use_dev ? malloc(bytes) : NULL;
    double *vec = o->no_check ? NULL : malloc(8 * (size_t)n * sizeof(double));
    if (!A || !B || !C || (use_dev && !Cdev) || (!o->no_check && !vec)) {
        r->skipped = 1;
        snprintf(r->why, sizeof r->why, "host allocation of %.1f GB failed",
                 (3.0 + (use_dev ? 1 : 0)) * bytes * 1e-9);
        goto out;
    }
    double t0 = now_ms();
    fill(threads, A, dbl, count, 0xA0 + (uint64_t)n);
    fill(threads, B, dbl, count, 0xB0 + (uint64_t)n);
    fill(threads, C, dbl, count, 0xC0 + (uint64_t)n);
    printf("  n=%d %s: filled 3 x %.2f GB in %.1f s\n", n, dbl ? "d" : "s", bytes * 1e-9,
           (now_ms() - t0) * 1e-3);

    /* Cheap-check vectors from C0. */
    double *t = NULL, *y0 = NULL, *y0a = NULL, *ta = NULL;
    size_t csi, csj, asi, asj, bsi, bsj;
    op_strides(o->layout, CLHGEMM_NO_TRANS, (size_t)n, &csi, &csj);
    op_strides(o->layout, o->ta, (size_t)n, &asi, &asj);
    op_strides(o->layout, o->tb, (size_t)n, &bsi, &bsj);
    if (vec) {
        t = vec;
        ta = vec + n;
        y0 = vec + 2 * (size_t)n;
        y0a = vec + 3 * (size_t)n;
        for (int i = 0; i < n; i++) {
            t[i] = uniform(0x7EC7, (size_t)i);
            ta[i] = fabs(t[i]);
        }
        matvec(threads, C, dbl, (size_t)n, csi, csj, t, ta, y0, y0a);
    }

    const int reps = o->reps, total = o->warmup + o->reps;
    double *times = malloc((size_t)total * sizeof(double));
    if (!times) {
        r->skipped = 1;
        snprintf(r->why, sizeof r->why, "out of host memory");
        goto out;
    }

    /* ---- device-only and naive (before ours, so their buffers are gone when it runs) ---- */
    int have_devref = 0;
    if (use_dev) {
        const double gmem = (double)dev->info.global_mem_bytes;
        if (3.0 * (double)bytes >= 0.85 * gmem ||
            (double)bytes > (double)dev->info.max_alloc_bytes) {
            snprintf(r->devonly_why, sizeof r->devonly_why, "3 x %.1f GB do not fit the device",
                     bytes * 1e-9);
            snprintf(r->naive_why, sizeof r->naive_why, "does not fit");
        } else {
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
            if (err == CL_SUCCESS && !o->no_devonly) {
                int nt = 0;
                for (int i = 0; i < total && err == CL_SUCCESS; i++) {
                    double a = now_ms();
                    err = run_cl(o, dbl, n, bA, bB, bC, dev->q);
                    if (i >= o->warmup) times[nt++] = now_ms() - a;
                }
                if (err == CL_SUCCESS)
                    r->devonly = stats_of(times, nt);
                else
                    snprintf(r->devonly_why, sizeof r->devonly_why, "%s",
                             clhgemm_status_string(err));
            } else if (o->no_devonly) {
                snprintf(r->devonly_why, sizeof r->devonly_why, "skipped");
            }
            if (r->devonly.ok)
                printf("  n=%d %s: device-only %.1f GFLOP/s (median %.1f ms)\n", n, dbl ? "d" : "s",
                       gflops(n, r->devonly.median), r->devonly.median);
            if (have_devref && !o->no_naive) {
                /* Copy in from the pageable arrays, compute, copy C out; C0 is still in C, so
                 * every rep computes the same result (read into Cdev). */
                int nt = 0;
                err = CL_SUCCESS;
                for (int i = 0; i < total && err == CL_SUCCESS; i++) {
                    double a = now_ms();
                    err = clEnqueueWriteBuffer(dev->q, bA, CL_TRUE, 0, bytes, A, 0, NULL, NULL);
                    if (err == CL_SUCCESS)
                        err = clEnqueueWriteBuffer(dev->q, bB, CL_TRUE, 0, bytes, B, 0, NULL, NULL);
                    if (err == CL_SUCCESS)
                        err = clEnqueueWriteBuffer(dev->q, bC, CL_TRUE, 0, bytes, C, 0, NULL, NULL);
                    if (err == CL_SUCCESS) err = run_cl(o, dbl, n, bA, bB, bC, dev->q);
                    if (err == CL_SUCCESS)
                        err =
                            clEnqueueReadBuffer(dev->q, bC, CL_TRUE, 0, bytes, Cdev, 0, NULL, NULL);
                    if (i >= o->warmup) times[nt++] = now_ms() - a;
                }
                if (err == CL_SUCCESS) {
                    r->naive = stats_of(times, nt);
                    printf("  n=%d %s: naive copy-compute-copy %.1f GFLOP/s (median %.1f ms)\n", n,
                           dbl ? "d" : "s", gflops(n, r->naive.median), r->naive.median);
                } else {
                    snprintf(r->naive_why, sizeof r->naive_why, "%s", clhgemm_status_string(err));
                    have_devref = 0; /* Cdev may be half-read */
                }
            } else if (o->no_naive) {
                snprintf(r->naive_why, sizeof r->naive_why, "skipped");
            }
            clFinish(dev->q);
            if (bA) clReleaseMemObject(bA);
            if (bB) clReleaseMemObject(bB);
            if (bC) clReleaseMemObject(bC);
            /* The device-buffer GEMM keeps a workspace per queue (up to a quarter of the device
             * memory); free it so that the pipeline has the device to itself. */
            clhgemm_release_resources();
        }
    } else if (!want_dev) {
        snprintf(r->devonly_why, sizeof r->devonly_why, dev->ok ? "skipped" : "no device");
        snprintf(r->naive_why, sizeof r->naive_why, dev->ok ? "skipped" : "no device");
    }

    /* ---- ours ---- */
    if (!o->no_ours) {
        int nt = 0, extra = 0;
        clhgemm_status_t st = CLHGEMM_SUCCESS;
        clhgemm_call_info_t prev = {0};
        for (int i = 0; nt < reps; i++) {
            double a = now_ms();
            st = ours_call(h, o, dbl, n, A, B, C);
            double ms = now_ms() - a;
            if (st != CLHGEMM_SUCCESS) break;
            if (!warming(h, i, o->warmup, &prev, &extra)) times[nt++] = ms;
            if (i == 0) {
                clhgemm_last_call_info(h, &r->info);
                /* C now holds alpha op(A) op(B) + beta C0. */
                if (have_devref) {
                    r->devcmp_err = compare(threads, C, Cdev, dbl, count, n);
                    if (!(r->devcmp_err <= 1.0)) r->warn = 1;
                }
                if (vec) {
                    double *u = vec + 4 * (size_t)n, *ua = vec + 5 * (size_t)n;
                    double *w = vec + 6 * (size_t)n, *wa = vec + 7 * (size_t)n;
                    matvec(threads, B, dbl, (size_t)n, bsi, bsj, t, ta, u, ua);
                    matvec(threads, A, dbl, (size_t)n, asi, asj, u, ua, w, wa);
                    double *z = u; /* u is no longer needed */
                    matvec(threads, C, dbl, (size_t)n, csi, csj, t, NULL, z, NULL);
                    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
                    double worst = 0;
                    for (int j = 0; j < n; j++) {
                        double want = w[j] + 0.5 * y0[j], bound = wa[j] + 0.5 * y0a[j];
                        double e =
                            fabs(z[j] - want) / (bound > 0 ? bound : 1.0) / ((double)n * eps);
                        if (!(e <= worst)) worst = e;
                    }
                    r->check_err = worst;
                    if (!(worst <= 1.0)) r->warn = 1;
                }
                if (r->warn)
                    printf("  WARN n=%d %s: ours is off: vs device-only %.3g, cheap check %.3g "
                           "(1.0 = tolerance)\n",
                           n, dbl ? "d" : "s", r->devcmp_err, r->check_err);
            }
        }
        if (st != CLHGEMM_SUCCESS) {
            r->ours_failed = 1;
            snprintf(r->ours_why, sizeof r->ours_why, "%s", clhgemm_status_string(st));
            printf("  n=%d %s: ours FAILED: %s (%d)\n", n, dbl ? "d" : "s",
                   clhgemm_status_string(st), (int)st);
        } else {
            r->ours = stats_of(times, nt);
            clhgemm_last_call_info(h, &r->info);
            printf("  n=%d %s: ours %.1f GFLOP/s (median %.1f ms, min %.1f, max %.1f); tile "
                   "%dx%dx%d, %lld tiles, %d device(s), %.2f GB in, %.2f GB out\n",
                   n, dbl ? "d" : "s", ours_gf(r), r->ours.median, r->ours.min, r->ours.max,
                   r->info.tile_m, r->info.tile_n, r->info.tile_k, r->info.tiles,
                   r->info.devices_used, r->info.bytes_to_device * 1e-9,
                   r->info.bytes_from_device * 1e-9);
        }
    } else {
        snprintf(r->ours_why, sizeof r->ours_why, "skipped");
    }
    free(Cdev);
    Cdev = NULL;

    /* ---- ours on the first device alone (--one-device), for the scaling over devices ---- */
    if (o->one_device && r->ours.ok && r->info.devices_used > 1) {
        char spec[16];
        snprintf(spec, sizeof spec, "%d", dev->info.index);
        clhgemm_options_t opt;
        clhgemm_options_init(&opt);
        opt.devices = spec;
        clhgemm_handle_t h1 = NULL;
        clhgemm_status_t st = clhgemm_create(&h1, &opt);
        int nt = 0, extra = 0;
        clhgemm_call_info_t prev = {0};
        for (int i = 0; nt < reps && st == CLHGEMM_SUCCESS; i++) {
            double a = now_ms();
            st = ours_call(h1, o, dbl, n, A, B, C);
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

    /* ---- cublasXt on the same pageable arrays ---- */
    snprintf(r->xt_why, sizeof r->xt_why, "skipped");
#ifdef CLHGEMM_HAVE_CUBLASXT
    if (!o->no_xt && cublasxt_device_count() <= 0) {
        snprintf(r->xt_why, sizeof r->xt_why, "%s", cublasxt_last_error());
    } else if (!o->no_xt) {
        /* Column-major only: a row-major C = op(A) op(B) is the column-major C^T = op(B)^T
         * op(A)^T over the same memory. */
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
                              o->xt_reps < 0 ? reps : o->xt_reps, &st->median, &st->min, &st->max,
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
    }
#else
    if (!o->no_xt) snprintf(r->xt_why, sizeof r->xt_why, "built without CUDA");
#endif
    free(times);
out:
    free(A);
    free(B);
    free(C);
    free(Cdev);
    free(vec);
}

/* ---- output -------------------------------------------------------------------------------- */

static void fmt_gf(char *buf, size_t len, const result_t *r, const stats_t *s)
{
    if (s->ok)
        snprintf(buf, len, "%.1f", gflops(r->n, s->median));
    else
        snprintf(buf, len, "n/a");
}

static double best_xt_gf(const result_t *r)
{
    double a = r->xt.ok ? gflops(r->n, r->xt.median) : 0;
    double b = r->xtb.ok ? gflops(r->n, r->xtb.median) : 0;
    return a > b ? a : b;
}

static void print_summary(const opts_t *o, const result_t *res, int nres)
{
    printf("\n== summary: host-resident GEMM from pageable memory, %s %s%s, alpha 1, beta 0.5, "
           "median of %d (warm-up %d) ==\n",
           o->layout == CLHGEMM_COL_MAJOR ? "column-major" : "row-major",
           o->ta == CLHGEMM_NO_TRANS ? "N" : "T", o->tb == CLHGEMM_NO_TRANS ? "N" : "T", o->reps,
           o->warmup);
    printf("%7s %4s %10s %11s %6s %10s %10s %8s %8s %19s %7s %4s %s\n", "n", "prec", "ours GF/s",
           "dev-only", "eff %", "naive", "cublasXt", "Xt(B)", "ours/Xt", "tile m x n x k", "tiles",
           "devs", "check");
    for (int i = 0; i < nres; i++) {
        const result_t *r = &res[i];
        if (r->skipped) {
            printf("%7d %4s skipped: %s\n", r->n, r->dbl ? "d" : "s", r->why);
            continue;
        }
        char ours[24], dev[24], naive[24], xt[24], xtb[24], eff[16], ratio[16], tile[40], check[64];
        fmt_gf(ours, sizeof ours, r, &r->ours);
        fmt_gf(dev, sizeof dev, r, &r->devonly);
        fmt_gf(naive, sizeof naive, r, &r->naive);
        fmt_gf(xt, sizeof xt, r, &r->xt);
        fmt_gf(xtb, sizeof xtb, r, &r->xtb);
        if (r->ours.ok && r->devonly.ok)
            snprintf(eff, sizeof eff, "%.1f", 100.0 * r->devonly.median / r->ours.median);
        else
            snprintf(eff, sizeof eff, "n/a");
        double xg = best_xt_gf(r);
        if (r->ours.ok && xg > 0)
            snprintf(ratio, sizeof ratio, "%.2f", ours_gf(r) / xg);
        else
            snprintf(ratio, sizeof ratio, "n/a");
        if (r->ours.ok)
            snprintf(tile, sizeof tile, "%dx%dx%d", r->info.tile_m, r->info.tile_n, r->info.tile_k);
        else
            snprintf(tile, sizeof tile, "%s", r->ours_why[0] ? r->ours_why : "n/a");
        {
            char d1[16] = "-", d2[16] = "-";
            if (!isnan(r->devcmp_err)) snprintf(d1, sizeof d1, "%.2g", r->devcmp_err);
            if (!isnan(r->check_err)) snprintf(d2, sizeof d2, "%.2g", r->check_err);
            snprintf(check, sizeof check, "%sdev %s, Ct %s", r->warn ? "WARN " : "", d1, d2);
        }
        printf("%7d %4s %10s %11s %6s %10s %10s %8s %8s %19s %7lld %4d %s\n", r->n,
               r->dbl ? "d" : "s", ours, dev, eff, naive, xt, xtb, ratio, tile,
               r->ours.ok ? r->info.tiles : 0LL, r->ours.ok ? r->info.devices_used : 0, check);
    }
    printf(
        "eff %% = ours / device-only (same kernel, data already on the device); naive = write "
        "A, B, C, GEMM, read C (blocking, pageable); Xt(B) = cublasXt with --xt-block; "
        "ours/Xt against the better cublasXt figure; check: errors / tolerance (<= 1 is fine)\n");
    for (int i = 0; i < nres; i++) {
        const result_t *r = &res[i];
        if (r->ours.ok && r->ours1.ok)
            printf("  n=%d %s scaling: %d devices %.1f GFLOP/s, first device alone %.1f GFLOP/s "
                   "(tile %dx%dx%d): %.2fx; %lld of %lld tiles stolen\n",
                   r->n, r->dbl ? "d" : "s", r->info.devices_used, ours_gf(r),
                   gflops(r->n, r->ours1.median), r->info1.tile_m, r->info1.tile_n,
                   r->info1.tile_k, r->ours1.median / r->ours.median, r->info.tiles_stolen,
                   r->info.tiles);
    }
    for (int i = 0; i < nres; i++) {
        const result_t *r = &res[i];
        if (r->skipped) continue;
        if (!r->devonly.ok && r->devonly_why[0] && strcmp(r->devonly_why, "skipped"))
            printf("  n=%d %s device-only n/a: %s\n", r->n, r->dbl ? "d" : "s", r->devonly_why);
        if (!r->naive.ok && r->naive_why[0] && strcmp(r->naive_why, "skipped"))
            printf("  n=%d %s naive n/a: %s\n", r->n, r->dbl ? "d" : "s", r->naive_why);
        if (!r->xt.ok && r->xt_why[0] && strcmp(r->xt_why, "skipped"))
            printf("  n=%d %s cublasXt n/a: %s\n", r->n, r->dbl ? "d" : "s", r->xt_why);
    }
}

static void csv_row(const opts_t *o, const result_t *r)
{
    if (!o->csv) return;
    FILE *f = fopen(o->csv, "a+");
    if (!f) {
        fprintf(stderr, "cannot open %s: %s\n", o->csv, strerror(errno));
        return;
    }
    fseek(f, 0, SEEK_END);
    if (ftell(f) == 0)
        fprintf(f, "n,prec,layout,trans,ours_gflops,ours_ms,ours_min_ms,ours_max_ms,"
                   "devonly_gflops,devonly_ms,efficiency_pct,naive_gflops,naive_ms,"
                   "xt_gflops,xt_ms,xt_block,xtb_gflops,xtb_ms,xtb_block,ours_over_xt,tile_m,"
                   "tile_n,tile_k,tiles,devices_used,bytes_to_device,bytes_from_device,"
                   "devcmp_err,check_err,warn,a_mode,tiles_stolen,one_dev_gflops,note\n");
#define GF(s) ((s).ok ? gflops(r->n, (s).median) : NAN)
#define MS(s) ((s).ok ? (s).median : NAN)
    double xg = best_xt_gf(r);
    fprintf(f,
            "%d,%s,%s,%c%c,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f,%.3f,%.3f,%.3f,%.3f,%d,%.3f,%.3f,"
            "%d,%.3f,%d,%d,%d,%lld,%d,%.0f,%.0f,%.3g,%.3g,%d,%d,%lld,%.3f,%s\n",
            r->n, r->dbl ? "d" : "s", o->layout == CLHGEMM_COL_MAJOR ? "col" : "row",
            o->ta == CLHGEMM_NO_TRANS ? 'N' : 'T', o->tb == CLHGEMM_NO_TRANS ? 'N' : 'T',
            GF(r->ours), MS(r->ours), r->ours.ok ? r->ours.min : NAN,
            r->ours.ok ? r->ours.max : NAN, GF(r->devonly), MS(r->devonly),
            r->ours.ok && r->devonly.ok ? 100.0 * r->devonly.median / r->ours.median : NAN,
            GF(r->naive), MS(r->naive), GF(r->xt), MS(r->xt), r->xt_block_used, GF(r->xtb),
            MS(r->xtb), r->xtb_block, r->ours.ok && xg > 0 ? ours_gf(r) / xg : NAN, r->info.tile_m,
            r->info.tile_n, r->info.tile_k, r->info.tiles, r->info.devices_used,
            r->info.bytes_to_device, r->info.bytes_from_device, r->devcmp_err, r->check_err,
            r->warn, r->info.a_mode, r->info.tiles_stolen, GF(r->ours1),
            r->skipped ? "skipped" : (r->ours_failed ? "ours failed" : ""));
#undef GF
#undef MS
    fclose(f);
}

/* ---- --cpu-share: GPU-only, hybrid (auto and forced, slab and strips) and CPU-only ----------- */

typedef struct cs_case_s {
    char name[32];
    const char *sched;        /* "slab", "strips", "" (gpu-only, cpu-only) */
    char share[32];           /* options.cpu_share ("" for cpu-only) */
    stats_t t;
    clhgemm_call_info_t info;
    double check;             /* cheap check / tolerance (NAN: not done) */
    double gflops;
    int slab_rows;            /* cpu-only */
    int threads;              /* cpu-only: OpenBLAS threads */
    char why[128];
} cs_case_t;


static void cs_csv(const opts_t *o, int n, int dbl, const cs_case_t *c)
{
    if (!o->cpu_csv) return;
    FILE *f = fopen(o->cpu_csv, "a+");
    if (!f) {
        fprintf(stderr, "cannot open %s: %s\n", o->cpu_csv, strerror(errno));
        return;
    }
    fseek(f, 0, SEEK_END);
    if (ftell(f) == 0)
        fprintf(f, "n,prec,case,scheduler,share_option,gflops,ms_median,ms_min,ms_max,cpu_fraction,"
                   "cpu_threads,predicted_ms,predicted_over_measured,tile_m,tile_n,tile_k,check_err,"
                   "slab_rows,note\n");
    const double pred = c->info.predicted_seconds * 1e3;
    fprintf(f, "%d,%s,%s,%s,%s,%.3f,%.3f,%.3f,%.3f,%.4f,%d,%.3f,%.3f,%d,%d,%d,%.3g,%d,%s\n", n,
            dbl ? "d" : "s", c->name, c->sched, c->share, c->t.ok ? c->gflops : NAN,
            c->t.ok ? c->t.median : NAN, c->t.ok ? c->t.min : NAN, c->t.ok ? c->t.max : NAN,
            c->slab_rows ? 1.0 : c->info.cpu_fraction, c->slab_rows ? c->threads : c->info.cpu_threads,
            c->slab_rows ? NAN : pred, c->slab_rows || !c->t.ok ? NAN : pred / c->t.median,
            c->info.tile_m, c->info.tile_n, c->info.tile_k, c->check, c->slab_rows, c->why);
    fclose(f);
}

static int bench_cpushare(const opts_t *o, int n, int dbl)
{
    const size_t s = dbl ? 8 : 4, count = (size_t)n * (size_t)n, bytes = count * s;
    const int threads = o->threads;
    unsigned long long avail = host_available();
    if (avail && 3.0 * (double)bytes + 64e6 > 0.95 * (double)avail) {
        printf("  n=%d %s: skipped: A, B, C need %.1f GB\n", n, dbl ? "d" : "s", 3.0 * bytes * 1e-9);
        return 0;
    }
    void *A = malloc(bytes), *B = malloc(bytes), *C = malloc(bytes);
    double *vec = malloc(8 * (size_t)n * sizeof(double));
    int bad = 0;
    if (!A || !B || !C || !vec) {
        printf("  n=%d %s: skipped: host allocation failed\n", n, dbl ? "d" : "s");
        free(A);
        free(B);
        free(C);
        free(vec);
        return 0;
    }
    double t0 = now_ms();
    fill(threads, A, dbl, count, 0xA0 + (uint64_t)n);
    fill(threads, B, dbl, count, 0xB0 + (uint64_t)n);
    fill(threads, C, dbl, count, 0xC0 + (uint64_t)n);
    /* The cheap check's vectors: y0 = C0 t and w = A (B t), the same for every case. */
    size_t csi, csj, asi, asj, bsi, bsj;
    op_strides(o->layout, CLHGEMM_NO_TRANS, (size_t)n, &csi, &csj);
    op_strides(o->layout, o->ta, (size_t)n, &asi, &asj);
    op_strides(o->layout, o->tb, (size_t)n, &bsi, &bsj);
    double *t = vec, *ta = vec + n, *y0 = vec + 2 * (size_t)n, *y0a = vec + 3 * (size_t)n;
    double *u = vec + 4 * (size_t)n, *ua = vec + 5 * (size_t)n, *w = vec + 6 * (size_t)n,
           *wa = vec + 7 * (size_t)n;
    for (int i = 0; i < n; i++) {
        t[i] = uniform(0x7EC7, (size_t)i);
        ta[i] = fabs(t[i]);
    }
    matvec(threads, C, dbl, (size_t)n, csi, csj, t, ta, y0, y0a);
    matvec(threads, B, dbl, (size_t)n, bsi, bsj, t, ta, u, ua);
    matvec(threads, A, dbl, (size_t)n, asi, asj, u, ua, w, wa);
    printf("  n=%d %s: filled 3 x %.2f GB and prepared the check in %.1f s\n", n, dbl ? "d" : "s",
           bytes * 1e-9, (now_ms() - t0) * 1e-3);

    cs_case_t cases[8];
    int nc = 0;
    memset(cases, 0, sizeof cases);
    cases[nc++] = (cs_case_t){.name = "gpu-only", .sched = "slab", .share = "off"};
    cases[nc++] = (cs_case_t){.name = "auto-slab", .sched = "slab", .share = "auto"};
    cases[nc++] = (cs_case_t){.name = "auto-strips", .sched = "strips", .share = "auto"};
    if (o->cpu_fraction > 0) {
        cases[nc] = (cs_case_t){.sched = "slab"};
        snprintf(cases[nc].name, sizeof cases[nc].name, "%.3g-slab", o->cpu_fraction);
        snprintf(cases[nc].share, sizeof cases[nc].share, "%.6g", o->cpu_fraction);
        nc++;
        cases[nc] = (cs_case_t){.sched = "strips"};
        snprintf(cases[nc].name, sizeof cases[nc].name, "%.3g-strips", o->cpu_fraction);
        snprintf(cases[nc].share, sizeof cases[nc].share, "%.6g", o->cpu_fraction);
        nc++;
    }
    const int total = o->warmup + o->reps;
    double *times = malloc((size_t)(total + 1) * sizeof(double));
    char *saved_sched = getenv("CLHGEMM_CPU_SCHED") ? strdup(getenv("CLHGEMM_CPU_SCHED")) : NULL;
    for (int ci = 0; ci < nc && times; ci++) {
        cs_case_t *c = &cases[ci];
        c->check = NAN;
        setenv("CLHGEMM_CPU_SCHED", c->sched, 1);
        clhgemm_options_t opt;
        clhgemm_options_init(&opt);
        opt.cpu_share = c->share;
        clhgemm_handle_t h = NULL;
        clhgemm_status_t st = clhgemm_create(&h, &opt);
        if (st == CLHGEMM_SUCCESS) fill(threads, C, dbl, count, 0xC0 + (uint64_t)n); /* C0 again */
        int nt = 0;
        for (int i = 0; i < total && st == CLHGEMM_SUCCESS; i++) {
            const double a = now_ms();
            st = ours_call(h, o, dbl, n, A, B, C);
            const double ms = now_ms() - a;
            if (st != CLHGEMM_SUCCESS) break;
            if (i >= o->warmup) times[nt++] = ms;
            if (i == 0) { /* C = alpha op(A) op(B) + beta C0: C t = w + 0.5 y0 */
                double *z = u;
                matvec(threads, C, dbl, (size_t)n, csi, csj, t, NULL, z, NULL);
                const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
                double worst = 0;
                for (int j = 0; j < n; j++) {
                    const double want = w[j] + 0.5 * y0[j], bound = wa[j] + 0.5 * y0a[j];
                    const double e = fabs(z[j] - want) / (bound > 0 ? bound : 1.0) / ((double)n * eps);
                    if (!(e <= worst)) worst = e;
                }
                c->check = worst;
                if (!(worst <= 1.0)) {
                    bad = 1;
                    printf("  WARN n=%d %s %s: cheap check %.3g (1.0 = tolerance)\n", n, dbl ? "d" : "s",
                           c->name, worst);
                }
            }
        }
        if (st == CLHGEMM_SUCCESS && nt > 0) {
            c->t = stats_of(times, nt);
            clhgemm_last_call_info(h, &c->info);
            c->gflops = gflops(n, c->t.median);
            printf("  n=%d %s %-12s %9.1f GFLOP/s (median %.1f ms, min %.1f, max %.1f); CPU share %.4f "
                   "on %d threads, predicted %.1f ms (%.2fx the measured), tile %dx%dx%d, check %.2g\n",
                   n, dbl ? "d" : "s", c->name, c->gflops, c->t.median, c->t.min, c->t.max,
                   c->info.cpu_fraction, c->info.cpu_threads, c->info.predicted_seconds * 1e3,
                   c->info.predicted_seconds * 1e3 / c->t.median, c->info.tile_m, c->info.tile_n,
                   c->info.tile_k, c->check);
        } else if (st != CLHGEMM_SUCCESS) {
            bad = 1;
            snprintf(c->why, sizeof c->why, "%s", clhgemm_status_string(st));
            printf("  n=%d %s %s: FAILED: %s\n", n, dbl ? "d" : "s", c->name, c->why);
        }
        clhgemm_destroy(h);
        cs_csv(o, n, dbl, c);
    }
    if (saved_sched) setenv("CLHGEMM_CPU_SCHED", saved_sched, 1);
    else unsetenv("CLHGEMM_CPU_SCHED");
    free(saved_sched);

    /* OpenBLAS alone on a slab of rows of the same problem (column-major NN). */
    cs_case_t *c = &cases[nc++];
    snprintf(c->name, sizeof c->name, "cpu-only");
    c->sched = "";
    c->check = NAN;
    c->slab_rows = o->cpu_slab < n ? o->cpu_slab : n;
#ifdef CLHGEMM_HAVE_OPENBLAS
    c->threads = openblas_get_num_threads();
    {
        const int R = c->slab_rows;
        int nt = 0;
        for (int i = 0; i < total && times; i++) {
            const double a = now_ms();
            if (dbl)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, R, n, n, 1.0, A, n, B, n, 0.5, C, n);
            else
                cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, R, n, n, 1.0f, A, n, B, n, 0.5f, C, n);
            if (i >= o->warmup) times[nt++] = now_ms() - a;
        }
        if (nt > 0) {
            c->t = stats_of(times, nt);
            c->gflops = 2.0 * R * (double)n * n / (c->t.median * 1e-3) * 1e-9;
            printf("  n=%d %s %-12s %9.1f GFLOP/s (median %.1f ms) on a %d x %d slab of C, OpenBLAS %d threads\n",
                   n, dbl ? "d" : "s", c->name, c->gflops, c->t.median, R, n, c->threads);
        }
    }
#else
    snprintf(c->why, sizeof c->why, "built without OpenBLAS");
#endif
    cs_csv(o, n, dbl, c);

    /* The per-size table. */
    printf("  %-12s %10s %10s %8s %8s %12s %10s %8s\n", "case", "GFLOP/s", "ms", "share", "threads",
           "predicted ms", "pred/meas", "check");
    for (int i = 0; i < nc; i++) {
        const cs_case_t *x = &cases[i];
        if (!x->t.ok) {
            printf("  %-12s n/a: %s\n", x->name, x->why);
            continue;
        }
        if (x->slab_rows)
            printf("  %-12s %10.1f %10.1f %8s %8d %12s %10s %8s  (OpenBLAS alone, %d-row slab)\n", x->name,
                   x->gflops, x->t.median, "1", x->threads, "-", "-", "-", x->slab_rows);
        else
            printf("  %-12s %10.1f %10.1f %8.4f %8d %12.1f %10.2f %8.2g\n", x->name, x->gflops, x->t.median,
                   x->info.cpu_fraction, x->info.cpu_threads, x->info.predicted_seconds * 1e3,
                   x->info.predicted_seconds * 1e3 / x->t.median, x->check);
    }
    if (cases[0].t.ok && cases[1].t.ok && cases[2].t.ok)
        printf("  n=%d %s: hybrid auto over GPU-only: slab %.3fx, strips %.3fx\n", n, dbl ? "d" : "s",
               cases[0].t.median / cases[1].t.median, cases[0].t.median / cases[2].t.median);
    free(times);
    free(A);
    free(B);
    free(C);
    free(vec);
    return bad;
}

/* ---- main ---------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    opts_t o;
    if (parse_args(argc, argv, &o)) {
        usage(stderr);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (o.sweep) return run_sweep(&o);
    if (o.cpu_share) {
        char blas[320];
        printf("clhgemm-bench-host --cpu-share: clhgemm %s; OpenBLAS %s; CPU-only slab %d rows; "
               "median of %d (warm-up %d)\n",
               clhgemm_version(), blas_desc(blas, sizeof blas), o.cpu_slab, o.reps, o.warmup);
        if (!o.sizes_given) {
            o.nsizes = 2;
            o.sizes[0] = 16384;
            o.sizes[1] = 32768;
        }
        int bad = 0;
        for (int i = 0; i < o.nsizes; i++)
            for (int dbl = 0; dbl < 2; dbl++) {
                if (dbl ? !o.do_d : !o.do_s) continue;
                printf("n=%d %s:\n", o.sizes[i], dbl ? "double" : "single");
                bad |= bench_cpushare(&o, o.sizes[i], dbl);
            }
        return bad ? 1 : 0;
    }
    devctx_t dev;
    if (open_device(&dev)) return 1;
    printf("clhgemm-bench-host: clhgemm %s; device-only column on %s (%s), %.1f GiB\n",
           clhgemm_version(), dev.info.name, dev.info.platform_name,
           dev.info.global_mem_bytes / 1073741824.0);
    if (o.oversize && !o.sizes_given) {
        const double s = o.do_d ? 8.0 : 4.0;
        int n = 4096;
        while (3.0 * (double)n * n * s <= (double)dev.info.global_mem_bytes) n += 4096;
        o.nsizes = 1;
        o.sizes[0] = n;
        printf("--oversize: n = %d (A, B, C: %.1f GB; the device has %.1f GB)\n", n,
               3.0 * n * (double)n * s * 1e-9, dev.info.global_mem_bytes * 1e-9);
    }
#ifdef CLHGEMM_HAVE_CUBLASXT
    if (!o.no_xt) {
        if (cublasxt_device_count() > 0)
            printf("cublasXt on %d device(s): %s\n", o.xt_devices, cublasxt_description());
        else
            printf("cublasXt: n/a (%s)\n", cublasxt_last_error());
        if (getenv("NVIDIA_TF32_OVERRIDE"))
            printf("note: NVIDIA_TF32_OVERRIDE=%s is set\n", getenv("NVIDIA_TF32_OVERRIDE"));
    }
#else
    if (!o.no_xt) printf("cublasXt: n/a (built without the CUDA toolkit)\n");
#endif
    clhgemm_handle_t h = NULL;
    if (!o.no_ours) {
        double a = now_ms();
        clhgemm_status_t st = clhgemm_create(&h, NULL);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "clhgemm_create: %s (%d)\n", clhgemm_status_string(st), (int)st);
            return 1;
        }
        printf("handle created in %.2f s\n", (now_ms() - a) * 1e-3);
    }
    result_t *res = calloc((size_t)o.nsizes * 2, sizeof *res);
    if (!res) return 1;
    int nres = 0, bad = 0;
    for (int i = 0; i < o.nsizes; i++) {
        for (int dbl = 0; dbl < 2; dbl++) {
            if (dbl ? !o.do_d : !o.do_s) continue;
            if (dbl && !dev.info.has_fp64) {
                printf("n=%d d: skipped (the device has no fp64)\n", o.sizes[i]);
                continue;
            }
            printf("n=%d %s:\n", o.sizes[i], dbl ? "double" : "single");
            result_t *r = &res[nres++];
            bench_size(&o, h, &dev, o.sizes[i], dbl, r);
            if (r->skipped) printf("  n=%d %s: skipped: %s\n", r->n, dbl ? "d" : "s", r->why);
            bad |= r->warn || r->ours_failed;
            csv_row(&o, r);
        }
    }
    clhgemm_destroy(h);
    clReleaseCommandQueue(dev.q);
    clReleaseContext(dev.ctx);
    print_summary(&o, res, nres);
    free(res);
    return bad ? 1 : 0;
}
