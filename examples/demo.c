/*
 * demo.c -- clhgemm-demo, the main job: a checked host-resident GEMM on every OpenCL device.
 *
 * For each device that clhgemm_devices_get(NULL, ...) returns (so CLHGEMM_DEVICES filters), and
 * then for several together (every GPU when there are two or more, else every device when there
 * are several), and each precision (DGEMM only where
 * every device of the row has fp64), it runs C := alpha*A*B + beta*C on n x n x n column-major
 * matrices in ordinary host memory through the host pipeline (clhgemm_create with that device
 * spec, clhgemm_sgemm / clhgemm_dgemm; CLHGEMM_ROUTE=device unless set, so that the routing
 * does not send the call to OpenBLAS): one warm-up call (it includes building the kernels, or
 * loading them from the program cache) and then R timed calls. C is reset from C0 before each
 * call, outside the timing; the median gives GFLOP/s = 2 n^3 / time, transfers included. C
 * starts from random non-zero values and beta = 0.5, so C is read as well as written.
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
 * Prints one row per device (and for all devices) and precision; exits 1 if any check failed or
 * no device was found, 0 otherwise.
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
    int n;          /* 0: default per row (8192 with a GPU, 1024 otherwise) */
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
            "  Runs a checked GEMM (C := 1.25*A*B + 0.5*C, n x n x n) on matrices in host\n"
            "  memory through the host pipeline, on every OpenCL device (CLHGEMM_DEVICES\n"
            "  selects) and on all of them together, and prints GFLOP/s, the median of R calls.\n"
            "  -n N          matrix size (default 8192 with a GPU, 1024 otherwise)\n"
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

/* One row: the devices of `spec` through one handle of the host pipeline. `gpu` picks the
 * default size (8192 when the row has a GPU, 1024 otherwise). */
static void run_one(const char *spec, int gpu, int dbl, const options_t *opt, result_t *res)
{
    memset(res, 0, sizeof *res);
    res->outcome = OUTCOME_FAILED;
    const size_t elem = dbl ? sizeof(double) : sizeof(float);
    const size_t n = opt->n ? (size_t)opt->n : (gpu ? 8192 : 1024);
    res->n = (int)n;
    const size_t nn = n * n;
    const double alpha = 1.25, beta = 0.5;

    double *a = malloc(nn * sizeof(double)), *b = malloc(nn * sizeof(double));
    double *c0 = malloc(nn * sizeof(double)), *c = malloc(nn * sizeof(double));
    void *ha = malloc(nn * elem), *hb = malloc(nn * elem), *hc = malloc(nn * elem);
    void *hc0 = malloc(nn * elem);
    double *times = malloc((size_t)opt->reps * sizeof(double));
    clhgemm_handle_t h = NULL;
    if (!a || !b || !c0 || !c || !ha || !hb || !hc || !hc0 || !times) {
        snprintf(res->note, sizeof res->note, "out of host memory for n = %zu", n);
        goto done;
    }
    fill(a, nn, dbl, 0);
    fill(b, nn, dbl, 0);
    fill(c0, nn, dbl, 1);
    const double *src[3] = {a, b, c0};
    void *dst[3] = {ha, hb, hc0};
    for (int q = 0; q < 3; ++q)
        for (size_t i = 0; i < nn; ++i) {
            if (dbl) ((double *)dst[q])[i] = src[q][i];
            else ((float *)dst[q])[i] = (float)src[q][i];
        }

    clhgemm_options_t o;
    clhgemm_options_init(&o);
    o.devices = spec;
    clhgemm_status_t st = clhgemm_create(&h, &o);
    if (st != CLHGEMM_SUCCESS) {
        set_note(res, "clhgemm_create", st);
        h = NULL;
        goto done;
    }
    for (int rep = -1; rep < opt->reps; ++rep) {
        memcpy(hc, hc0, nn * elem);
        double t0 = now_seconds();
        st = dbl ? clhgemm_dgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, (int)n,
                                 (int)n, (int)n, alpha, (const double *)ha, (int)n,
                                 (const double *)hb, (int)n, beta, (double *)hc, (int)n)
                 : clhgemm_sgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, (int)n,
                                 (int)n, (int)n, (float)alpha, (const float *)ha, (int)n,
                                 (const float *)hb, (int)n, (float)beta, (float *)hc, (int)n);
        double elapsed = now_seconds() - t0;
        if (st != CLHGEMM_SUCCESS) {
            set_note(res, dbl ? "clhgemm_dgemm" : "clhgemm_sgemm", st);
            goto done;
        }
        if (rep < 0) res->warmup_ms = 1e3 * elapsed;
        else times[rep] = elapsed;
    }
    double med = median(times, opt->reps);
    res->median_ms = 1e3 * med;
    res->gflops = med > 0.0 ? 2.0 * (double)n * (double)n * (double)n / med * 1e-9 : 0.0;
    for (size_t i = 0; i < nn; ++i) c[i] = dbl ? ((double *)hc)[i] : (double)((float *)hc)[i];

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
    if (h) clhgemm_destroy(h);
    free(a); free(b); free(c0); free(c); free(ha); free(hb); free(hc); free(hc0); free(times);
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

    /* The demo measures the devices: without this, the library's routing (CLHGEMM_ROUTE=auto)
     * would give a call that OpenBLAS does faster to OpenBLAS -- every call where the only
     * devices are CPUs (PoCL). A value set by the user wins. */
    setenv("CLHGEMM_ROUTE", "device", 0);
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

    printf("clhgemm %s: C := 1.25*A*B + 0.5*C on matrices in host memory (column-major, n x n x n),\n"
           "through the host pipeline; median of %d calls, transfers included\n",
           clhgemm_version(), opt.reps);
    printf("%-40s %c %6s %10s %10s %10s  %s\n", "device", 'p', "n", "GFLOP/s", "median ms",
           "first ms", "check");

    int failures = 0;
    /* One row per device, then one for several together: every GPU when there are at least two
     * (the handle's own default: a CPU OpenCL device beside GPUs would only compete with the
     * pack threads for the cores), else every device when there are several. */
    char all[1024] = "";
    int ngpu = 0, all_fp64 = 1;
    for (size_t d = 0; d < count; ++d) ngpu += devs[d].kind == CLHGEMM_DEVICE_GPU;
    for (size_t d = 0; d < count; ++d) {
        if (ngpu && devs[d].kind != CLHGEMM_DEVICE_GPU) continue;
        size_t used = strlen(all);
        snprintf(all + used, sizeof all - used, "%s%d", used ? "," : "", devs[d].index);
        all_fp64 &= devs[d].has_fp64 != 0;
    }
    const int all_gpu = ngpu > 0, nall = ngpu ? ngpu : (int)count;
    for (size_t d = 0; d <= count; ++d) {
        if (d == count && nall < 2) break;
        char label[300], spec[1024];
        int gpu, fp64;
        if (d < count) {
            snprintf(label, sizeof label, "[%d] %s", devs[d].index, devs[d].name);
            snprintf(spec, sizeof spec, "%d", devs[d].index);
            gpu = devs[d].kind == CLHGEMM_DEVICE_GPU;
            fp64 = devs[d].has_fp64 != 0;
        } else {
            snprintf(label, sizeof label, "all %d %s together", nall, ngpu ? "GPUs" : "devices");
            snprintf(spec, sizeof spec, "%s", all);
            gpu = all_gpu;
            fp64 = all_fp64;
        }
        for (int p = 0; p < 2; ++p) {
            int dbl = p == 1;
            if (dbl ? !opt.dbl : !opt.single) continue;
            result_t res;
            memset(&res, 0, sizeof res);
            res.n = opt.n;
            if (dbl && !fp64) {
                res.outcome = OUTCOME_SKIPPED;
                snprintf(res.note, sizeof res.note, "no fp64 on this device");
            } else {
                run_one(spec, gpu, dbl, &opt, &res);
            }
            if (res.outcome == OUTCOME_FAILED) ++failures;
            print_row(label, dbl ? 'd' : 's', &res);
        }
    }
    free(devs);
    printf("%s\n", failures ? "FAILED: at least one check failed" : "all checks passed");
    return failures ? 1 : 0;
}
