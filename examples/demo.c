/*
 * demo.c -- clhgemm-demo, the main job for now: a checked GEMM on every OpenCL device.
 *
 * For each device that clhgemm_devices_get(NULL, ...) returns (so CLHGEMM_DEVICES filters) and
 * each precision (DGEMM only where the device has fp64), it runs C := alpha*A*B + beta*C on
 * n x n x n column-major device buffers: one warm-up call (it includes building the kernels, or
 * loading them from the program cache) and then R timed calls, each timed alone between two
 * clFinish with the host's monotonic clock. The median gives GFLOP/s = 2 n^3 / time. C starts
 * from random non-zero values and beta = 0.5, so C is read as well as written.
 *
 * The result is checked with the cheap probabilistic test of BLIS: for a random vector t,
 * r = C*t - (beta*C0*t + alpha*A*(B*t)), computed in double on the host in O(n^2). Each r_i is
 * compared with w_i = |alpha|*|A|*(|B|*|t|) + |beta|*|C0|*|t| (the same products on absolute
 * values): |r_i| <= eps * (sqrt(k) + 16) * w_i. Rounding errors on random data add up like a
 * random walk, hence sqrt(k); correct results stay below 1 (far below the limit) on the devices
 * seen so far. The worst-case bound, k*eps, is so loose at n = 4096 that a misplaced 8 x 8 tile
 * would pass it. This check catches gross errors cheaply at any size; the test suite compares
 * every element with OpenBLAS.
 *
 * Prints one row per device and precision; exits 1 if any check failed or no device was found,
 * 0 otherwise.
 *
 *   clhgemm-demo [-n N] [--precision s|d|both] [--reps R]
 */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clhgemm.h>

typedef struct options_s {
    int n;          /* 0: default per device (4096 on GPUs, 1024 elsewhere) */
    int single, dbl;
    int reps;
} options_t;

typedef enum { OUTCOME_OK, OUTCOME_FAILED, OUTCOME_SKIPPED } outcome_t;

/* ---- small helpers ------------------------------------------------------------------------ */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: a fixed, portable sequence, so every run and machine sees the same data. */
static double uniform_pm1(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t x = rng_state * 0x2545f4914f6cdd1dULL;
    return (double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0; /* [-1, 1) */
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int count)
{
    qsort(v, (size_t)count, sizeof(double), compare_doubles);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clhgemm-demo [-n N] [--precision s|d|both] [--reps R]\n"
            "  Runs a checked GEMM (C := 1.25*A*B + 0.5*C, n x n x n) on every OpenCL device\n"
            "  (CLHGEMM_DEVICES selects) and prints GFLOP/s, the median of R timed calls.\n"
            "  -n N          matrix size (default 4096 on GPUs, 1024 on other devices)\n"
            "  --precision   s, d or both (default both; d only on devices with fp64)\n"
            "  --reps R      timed calls after the warm-up (default 5)\n");
}

static int parse_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 1 || v > 1000000) return -1;
    *out = (int)v;
    return 0;
}

static int parse_options(int argc, char **argv, options_t *o)
{
    o->n = 0;
    o->single = o->dbl = 1;
    o->reps = 5;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(arg, "-n") && val) {
            if (parse_int(val, &o->n)) return -1;
            ++i;
        } else if (!strcmp(arg, "--reps") && val) {
            if (parse_int(val, &o->reps)) return -1;
            ++i;
        } else if (!strcmp(arg, "--precision") && val) {
            o->single = !strcmp(val, "s") || !strcmp(val, "both");
            o->dbl = !strcmp(val, "d") || !strcmp(val, "both");
            if (!o->single && !o->dbl) return -1;
            ++i;
        } else {
            return -1;
        }
    }
    return 0;
}

/* ---- one device, one precision -------------------------------------------------------------- */
typedef struct result_s {
    outcome_t outcome;
    int n;
    double gflops;
    double median_ms, warmup_ms;
    double max_ratio;   /* max_i |r_i| / (eps * w_i): the check passes up to sqrt(k) + 16 */
    char note[160];
} result_t;

/* Host matrices are kept in double; in single precision they hold values already rounded to
 * float, so the host check sees exactly the numbers the device saw. */
static void fill(double *x, size_t count, int dbl, int nonzero)
{
    for (size_t i = 0; i < count; ++i) {
        double v = uniform_pm1();
        if (nonzero && fabs(v) < 1e-3) v = 0.5;
        x[i] = dbl ? v : (double)(float)v;
    }
}

/* y = M x for a column-major rows x cols matrix; with `absolute`, y = |M| |x|. */
static void matvec(const double *mat, size_t rows, size_t cols, const double *x, double *y,
                   int absolute)
{
    for (size_t i = 0; i < rows; ++i) y[i] = 0.0;
    for (size_t j = 0; j < cols; ++j) {
        const double *col = mat + j * rows;
        double xj = absolute ? fabs(x[j]) : x[j];
        if (absolute)
            for (size_t i = 0; i < rows; ++i) y[i] += fabs(col[i]) * xj;
        else
            for (size_t i = 0; i < rows; ++i) y[i] += col[i] * xj;
    }
}

/* The probabilistic check; returns max_i |r_i| / (eps * w_i). */
static double check(size_t n, double alpha, double beta, const double *a, const double *b,
                    const double *c0, const double *c, double eps)
{
    double *t = malloc(n * sizeof(double)), *bt = malloc(n * sizeof(double));
    double *abt = malloc(n * sizeof(double)), *c0t = malloc(n * sizeof(double));
    double *ct = malloc(n * sizeof(double)), *w = malloc(n * sizeof(double));
    double *tmp = malloc(n * sizeof(double));
    double worst = INFINITY;
    if (t && bt && abt && c0t && ct && w && tmp) {
        for (size_t i = 0; i < n; ++i) t[i] = uniform_pm1();
        matvec(b, n, n, t, bt, 0);
        matvec(a, n, n, bt, abt, 0);
        matvec(c0, n, n, t, c0t, 0);
        matvec(c, n, n, t, ct, 0);
        /* w = |alpha| |A| (|B| |t|) + |beta| |C0| |t| */
        matvec(b, n, n, t, bt, 1);
        matvec(a, n, n, bt, w, 1);
        matvec(c0, n, n, t, tmp, 1);
        worst = 0.0;
        for (size_t i = 0; i < n; ++i) {
            double r = ct[i] - (beta * c0t[i] + alpha * abt[i]);
            double scale = eps * (fabs(alpha) * w[i] + fabs(beta) * tmp[i]);
            double ratio = scale > 0.0 ? fabs(r) / scale : (r == 0.0 ? 0.0 : INFINITY);
            if (isnan(ratio)) ratio = INFINITY; /* NaN in C must fail, not compare false */
            if (ratio > worst) worst = ratio;
        }
    }
    free(t); free(bt); free(abt); free(c0t); free(ct); free(w); free(tmp);
    return worst;
}

static void set_note(result_t *res, const char *what, int status)
{
    snprintf(res->note, sizeof res->note, "%s: %s", what, clhgemm_status_string(status));
    res->outcome = OUTCOME_FAILED;
}

static void run_one(const clhgemm_device_info_t *dev, cl_context ctx, cl_command_queue queue,
                    int dbl, const options_t *opt, result_t *res)
{
    memset(res, 0, sizeof *res);
    res->outcome = OUTCOME_FAILED;
    const size_t elem = dbl ? sizeof(double) : sizeof(float);

    /* Size: as asked, else by device kind; halved until three matrices fit comfortably. */
    size_t n = opt->n ? (size_t)opt->n : (dev->kind == CLHGEMM_DEVICE_GPU ? 4096 : 1024);
    while (n > 64 && (n * n * elem > dev->max_alloc_bytes || 3 * n * n * elem > dev->global_mem_bytes / 2))
        n /= 2;
    res->n = (int)n;
    const size_t nn = n * n;
    const double alpha = 1.25, beta = 0.5;

    double *a = malloc(nn * sizeof(double)), *b = malloc(nn * sizeof(double));
    double *c0 = malloc(nn * sizeof(double)), *c = malloc(nn * sizeof(double));
    void *staging = malloc(nn * elem);
    double *times = malloc((size_t)opt->reps * sizeof(double));
    cl_mem bufA = NULL, bufB = NULL, bufC = NULL, bufC0 = NULL;
    if (!a || !b || !c0 || !c || !staging || !times) {
        snprintf(res->note, sizeof res->note, "out of host memory for n = %zu", n);
        goto done;
    }
    fill(a, nn, dbl, 0);
    fill(b, nn, dbl, 0);
    fill(c0, nn, dbl, 1);

    cl_int err = CL_SUCCESS;
    cl_mem *bufs[4] = {&bufA, &bufB, &bufC0, &bufC};
    const double *hosts[4] = {a, b, c0, c0};
    for (int q = 0; q < 4; ++q) {
        for (size_t i = 0; i < nn; ++i) {
            if (dbl) ((double *)staging)[i] = hosts[q][i];
            else ((float *)staging)[i] = (float)hosts[q][i];
        }
        *bufs[q] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, nn * elem,
                                  staging, &err);
        if (err != CL_SUCCESS) {
            set_note(res, "clCreateBuffer", err);
            goto done;
        }
    }

    /* Warm-up (kernel build or cache load) and then the timed calls. C is reset from C0 on the
     * device before every call, outside the timing, so that each call computes the same C. */
    for (int rep = -1; rep < opt->reps; ++rep) {
        err = clEnqueueCopyBuffer(queue, bufC0, bufC, 0, 0, nn * elem, 0, NULL, NULL);
        if (err == CL_SUCCESS) err = clFinish(queue);
        if (err != CL_SUCCESS) {
            set_note(res, "reset of C", err);
            goto done;
        }
        double t0 = now_seconds();
        clhgemm_status_t st =
            dbl ? clhgemm_dgemm_cl(CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, (int)n,
                                   (int)n, (int)n, alpha, bufA, 0, (int)n, bufB, 0, (int)n, beta,
                                   bufC, 0, (int)n, queue, NULL)
                : clhgemm_sgemm_cl(CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, (int)n,
                                   (int)n, (int)n, (float)alpha, bufA, 0, (int)n, bufB, 0,
                                   (int)n, (float)beta, bufC, 0, (int)n, queue, NULL);
        if (st != CLHGEMM_SUCCESS) {
            set_note(res, dbl ? "clhgemm_dgemm_cl" : "clhgemm_sgemm_cl", st);
            goto done;
        }
        err = clFinish(queue);
        double elapsed = now_seconds() - t0;
        if (err != CL_SUCCESS) {
            set_note(res, "clFinish", err);
            goto done;
        }
        if (rep < 0) res->warmup_ms = 1e3 * elapsed;
        else times[rep] = elapsed;
    }
    double med = median(times, opt->reps);
    res->median_ms = 1e3 * med;
    res->gflops = med > 0.0 ? 2.0 * (double)n * (double)n * (double)n / med * 1e-9 : 0.0;

    err = clEnqueueReadBuffer(queue, bufC, CL_TRUE, 0, nn * elem, staging, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        set_note(res, "clEnqueueReadBuffer", err);
        goto done;
    }
    for (size_t i = 0; i < nn; ++i) c[i] = dbl ? ((double *)staging)[i] : (double)((float *)staging)[i];

    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    const double limit = sqrt((double)n) + 16.0;
    res->max_ratio = check(n, alpha, beta, a, b, c0, c, eps);
    if (res->max_ratio <= limit) {
        res->outcome = OUTCOME_OK;
    } else {
        snprintf(res->note, sizeof res->note, "residual %.3g eps, limit %.3g eps", res->max_ratio,
                 limit);
    }

done:
    if (bufA) clReleaseMemObject(bufA);
    if (bufB) clReleaseMemObject(bufB);
    if (bufC) clReleaseMemObject(bufC);
    if (bufC0) clReleaseMemObject(bufC0);
    free(a); free(b); free(c0); free(c); free(staging); free(times);
}

static void print_row(const char *device, char prec, const result_t *res)
{
    if (res->outcome == OUTCOME_SKIPPED) {
        printf("%-40.40s %c %6s %10s %10s %10s  skipped (%s)\n", device, prec, "-", "-", "-", "-",
               res->note);
    } else if (res->outcome == OUTCOME_OK) {
        printf("%-40.40s %c %6d %10.1f %10.2f %10.1f  ok (residual %.2g eps)\n", device, prec,
               res->n, res->gflops, res->median_ms, res->warmup_ms, res->max_ratio);
    } else if (res->gflops > 0.0) {
        printf("%-40.40s %c %6d %10.1f %10.2f %10.1f  FAILED (%s)\n", device, prec, res->n,
               res->gflops, res->median_ms, res->warmup_ms, res->note);
    } else {
        printf("%-40.40s %c %6d %10s %10s %10s  FAILED (%s)\n", device, prec, res->n, "-", "-", "-",
               res->note);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    options_t opt;
    if (parse_options(argc, argv, &opt)) {
        usage(stderr);
        return 2;
    }

    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(NULL, NULL, 0, &count);
    if (st == CLHGEMM_INVALID_DEVICE_SPEC) {
        fprintf(stderr, "clhgemm-demo: CLHGEMM_DEVICES='%s' matches no OpenCL device "
                        "(`clinfo -l` lists them).\n", getenv("CLHGEMM_DEVICES"));
        return 1;
    }
    if (st != CLHGEMM_SUCCESS || count == 0) {
        fprintf(stderr, "clhgemm-demo: no OpenCL device found (%s). Install an OpenCL driver "
                        "(ICD): pocl-opencl-icd for the CPU, or the GPU vendor's; `clinfo -l` "
                        "lists what the OpenCL loader sees.\n", clhgemm_status_string(st));
        return 1;
    }
    clhgemm_device_info_t *devs = calloc(count, sizeof *devs);
    if (!devs || clhgemm_devices_get(NULL, devs, count, &count) != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm-demo: device enumeration failed\n");
        return 1;
    }

    printf("clhgemm %s: C := 1.25*A*B + 0.5*C (column-major, n x n x n), median of %d calls\n",
           clhgemm_version(), opt.reps);
    printf("%-40s %c %6s %10s %10s %10s  %s\n", "device", 'p', "n", "GFLOP/s", "median ms",
           "first ms", "check");

    int failures = 0;
    for (size_t d = 0; d < count; ++d) {
        const clhgemm_device_info_t *dev = &devs[d];
        char label[300];
        snprintf(label, sizeof label, "[%d] %s", dev->index, dev->name);
        cl_int err;
        cl_context ctx = clCreateContext(NULL, 1, &dev->device, NULL, NULL, &err);
        cl_command_queue queue = NULL;
        if (err == CL_SUCCESS) queue = clCreateCommandQueue(ctx, dev->device, 0, &err);
        for (int p = 0; p < 2; ++p) {
            int dbl = p == 1;
            if (dbl ? !opt.dbl : !opt.single) continue;
            result_t res;
            memset(&res, 0, sizeof res);
            res.n = opt.n;
            if (err != CL_SUCCESS) {
                set_note(&res, "context/queue", err);
            } else if (dbl && !dev->has_fp64) {
                res.outcome = OUTCOME_SKIPPED;
                snprintf(res.note, sizeof res.note, "no fp64 on this device");
            } else {
                run_one(dev, ctx, queue, dbl, &opt, &res);
            }
            if (res.outcome == OUTCOME_FAILED) ++failures;
            print_row(label, dbl ? 'd' : 's', &res);
        }
        clhgemm_release_resources();
        if (queue) clReleaseCommandQueue(queue);
        if (ctx) clReleaseContext(ctx);
    }
    free(devs);
    printf("%s\n", failures ? "FAILED: at least one check failed" : "all checks passed");
    return failures ? 1 : 0;
}
