/*
 * bench_host_size.c -- clhgemm-bench-host's default mode: the device of the device-only column
 * and the handle, made once; then per size and precision the host arrays (skipped with a message
 * when host memory cannot hold them), the competitors in their order (bench_host_run.c: the
 * device-only and naive columns first, so that their buffers are gone when ours runs; ours; ours
 * on one device; cublasXt) and the result's CSV row; the summary last (bench_host_output.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_host_priv.h"
#include "common/bench_util.h"

#ifdef CLHGEMM_HAVE_CUBLASXT
#include "cuda/cublasxt_ref.h"
#endif

/* Whether A, B, C fit the available host memory (else r->skipped, with the reason), and whether
 * the one more n x n array of the device comparison and naive reads does (else *use_dev = 0). */
static int host_fits(size_t bytes, int *use_dev, result_t *r)
{
    unsigned long long avail = host_available();
    if (avail && 3.0 * (double)bytes + 64e6 > 0.95 * (double)avail) {
        r->skipped = 1;
        snprintf(r->why, sizeof r->why, "A, B, C need %.1f GB, %.1f GB of host memory available",
                 3.0 * bytes * 1e-9, avail * 1e-9);
        return 0;
    }
    if (*use_dev && avail && 4.0 * (double)bytes + 64e6 > 0.95 * (double)avail) {
        *use_dev = 0;
        snprintf(r->devonly_why, sizeof r->devonly_why, "host memory");
        snprintf(r->naive_why, sizeof r->naive_why, "host memory");
    }
    return 1;
}

static void bench_size(const opts_t *o, clhgemm_handle_t h, devctx_t *dev, int n, int dbl,
                       result_t *r)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->dbl = dbl;
    r->check_err = r->devcmp_err = NAN;
    const size_t bytes = (size_t)n * (size_t)n * (dbl ? 8 : 4);
    const int want_dev = dev->ok && (!o->no_devonly || !o->no_naive);
    int use_dev = want_dev;
    if (!host_fits(bytes, &use_dev, r)) return;

    void *A = malloc(bytes), *B = malloc(bytes), *C = malloc(bytes);
    void *Cdev = use_dev ? malloc(bytes) : NULL;
    bh_cheap_t cheap = {0};
    double *times = NULL;
    if (!o->no_check) bh_cheap_alloc(&cheap, n);
    if (!A || !B || !C || (use_dev && !Cdev) || (!o->no_check && !cheap.vec)) {
        r->skipped = 1;
        snprintf(r->why, sizeof r->why, "host allocation of %.1f GB failed",
                 (3.0 + (use_dev ? 1 : 0)) * bytes * 1e-9);
        goto out;
    }
    double t0 = now_ms();
    bh_fill_abc(o->threads, dbl, n, A, B, C);
    printf("  n=%d %s: filled 3 x %.2f GB in %.1f s\n", n, dbl ? "d" : "s", bytes * 1e-9,
           (now_ms() - t0) * 1e-3);
    if (cheap.vec) bh_cheap_prepare(&cheap, o, dbl, C); /* from C0 */

    times = malloc((size_t)(o->warmup + o->reps) * sizeof(double));
    if (!times) {
        r->skipped = 1;
        snprintf(r->why, sizeof r->why, "out of host memory");
        goto out;
    }
    int have_devref = 0;
    if (use_dev) {
        have_devref = bh_run_device(o, dev, n, dbl, A, B, C, Cdev, times, r);
    } else if (!want_dev) {
        snprintf(r->devonly_why, sizeof r->devonly_why, dev->ok ? "skipped" : "no device");
        snprintf(r->naive_why, sizeof r->naive_why, dev->ok ? "skipped" : "no device");
    }
    bh_run_ours(o, h, n, dbl, A, B, C, have_devref ? Cdev : NULL, cheap.vec ? &cheap : NULL,
                times, r);
    free(Cdev);
    Cdev = NULL;
    bh_run_one_device(o, dev, n, dbl, A, B, C, times, r);
    bh_run_xt(o, n, dbl, A, B, C, r);
out:
    free(times);
    free(A);
    free(B);
    free(C);
    free(Cdev);
    free(cheap.vec);
}

/* --oversize without --sizes: the first multiple of 4096 whose A, B, C exceed the device. */
static void pick_oversize(opts_t *o, const devctx_t *dev)
{
    const double s = o->do_d ? 8.0 : 4.0;
    int n = 4096;
    while (3.0 * (double)n * n * s <= (double)dev->info.global_mem_bytes) n += 4096;
    o->nsizes = 1;
    o->sizes[0] = n;
    printf("--oversize: n = %d (A, B, C: %.1f GB; the device has %.1f GB)\n", n,
           3.0 * n * (double)n * s * 1e-9, dev->info.global_mem_bytes * 1e-9);
}

static void print_xt_header(const opts_t *o)
{
#ifdef CLHGEMM_HAVE_CUBLASXT
    if (!o->no_xt) {
        if (cublasxt_device_count() > 0)
            printf("cublasXt on %d device(s): %s\n", o->xt_devices, cublasxt_description());
        else
            printf("cublasXt: n/a (%s)\n", cublasxt_last_error());
        if (getenv("NVIDIA_TF32_OVERRIDE"))
            printf("note: NVIDIA_TF32_OVERRIDE=%s is set\n", getenv("NVIDIA_TF32_OVERRIDE"));
    }
#else
    if (!o->no_xt) printf("cublasXt: n/a (built without the CUDA toolkit)\n");
#endif
}

/* Every size and precision of the options, the summary last: 0 when every check passed and
 * ours never failed, 1 otherwise (or when the device or the handle cannot be had). */
int bh_run_sizes(opts_t *o)
{
    devctx_t dev;
    if (open_device(&dev)) return 1;
    printf("clhgemm-bench-host: clhgemm %s; device-only column on %s (%s), %.1f GiB\n",
           clhgemm_version(), dev.info.name, dev.info.platform_name,
           dev.info.global_mem_bytes / 1073741824.0);
    if (o->oversize && !o->sizes_given) pick_oversize(o, &dev);
    print_xt_header(o);
    clhgemm_handle_t h = NULL;
    if (!o->no_ours) {
        double a = now_ms();
        clhgemm_status_t st = clhgemm_create(&h, NULL);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "clhgemm_create: %s (%d)\n", clhgemm_status_string(st), (int)st);
            return 1;
        }
        printf("handle created in %.2f s\n", (now_ms() - a) * 1e-3);
    }
    result_t *res = calloc((size_t)o->nsizes * 2, sizeof *res);
    if (!res) return 1;
    int nres = 0, bad = 0;
    for (int i = 0; i < o->nsizes; i++) {
        for (int dbl = 0; dbl < 2; dbl++) {
            if (dbl ? !o->do_d : !o->do_s) continue;
            if (dbl && !dev.info.has_fp64) {
                printf("n=%d d: skipped (the device has no fp64)\n", o->sizes[i]);
                continue;
            }
            printf("n=%d %s:\n", o->sizes[i], dbl ? "double" : "single");
            result_t *r = &res[nres++];
            bench_size(o, h, &dev, o->sizes[i], dbl, r);
            if (r->skipped) printf("  n=%d %s: skipped: %s\n", r->n, dbl ? "d" : "s", r->why);
            bad |= r->warn || r->ours_failed;
            bh_csv_row(o, r);
        }
    }
    clhgemm_destroy(h);
    clReleaseCommandQueue(dev.q);
    clReleaseContext(dev.ctx);
    bh_print_summary(o, res, nres);
    free(res);
    return bad ? 1 : 0;
}
