/*
 * bench_gemm.c -- clhgemm-bench-gemm: device GEMM throughput of clhgemm against CLBlast (and,
 * when asked or available, cuBLAS and OpenBLAS), all measured in the same process and run.
 *
 * The matrices live on the device before timing starts, so the figures are those of
 * clhgemm_{s,d}gemm_cl itself (packing, kernel, write-back) and not of host transfers. Both
 * OpenCL libraries run on the SAME buffers and queue; their timed reps are interleaved so that
 * drift of a shared, noisy machine (clocks, neighbours) hits both alike. Each timed rep is
 * enqueue -> clWaitForEvents on the returned event, measured with the host monotonic clock;
 * warm-up reps (the first call builds kernels) are excluded; the median is reported with min
 * and max. Before timing, each shape is checked once: ours against CLBlast element-wise, and
 * every library against an exact (long double) evaluation of C*t for a random vector t (BLIS's
 * cheap check). Errors are printed as max|diff| / (max|ref| * k * eps), so 1.0 is the tolerance;
 * this is a sanity check only -- the tests live in tests/.
 *
 * Links clhgemm_internal (same code as the shared library) to print the kernel parameters that
 * the library selects for the device (chg_gemm_params_select / chg_gemm_params_format).
 * Results are appended to a CSV file (--csv) as they are produced, so a run that dies half-way
 * still leaves its rows; the summary table is printed last.
 */
#define _POSIX_C_SOURCE 200809L
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "clhgemm.h"

#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
#include "device/device.h"
#include "core/gemm.h"
#include "core/splitk.h"
#include "kernels/params.h"
#include "tuning/tuning.h"
#endif
#ifdef CLHGEMM_HAVE_CLBLAST
#include <clblast_c.h>
#endif
#ifdef CLHGEMM_HAVE_CUBLAS
#include "cublas_ref.h"
#endif
#ifdef CLHGEMM_HAVE_OPENBLAS
#include <cblas.h>
/* OpenBLAS extensions; weak so that another CBLAS still links (they are then NULL). */
extern int openblas_get_num_threads(void) __attribute__((weak));
extern char *openblas_get_corename(void) __attribute__((weak));
extern char *openblas_get_config(void) __attribute__((weak));
#endif

/* ---- options ------------------------------------------------------------------------------ */

typedef struct shape_s {
    int m, n, k;
} shape_t;

#define MAX_SHAPES 64

typedef struct opts_s {
    const char *device_spec;
    int do_s, do_d;
    shape_t squares[MAX_SHAPES];
    int nsquares, squares_set;
    shape_t rects[MAX_SHAPES];
    int nrects, rects_set, rects_default;
    int reps, reps_set, warmup, warmup_set;
    const char *csv;
    int clblast, cublas, openblas, openblas_all;
    int row, ta, tb;
    int quick, profile, check, list;
    int parts;     /* also time the call's building blocks apart (pack A, pack B, kernel, write-back) */
    int parts_bk;  /* --parts-bk: also time the kernel as accumulating launches over k slices */
    int defaults;  /* also time clhgemm with its built-in parameters (tuning database bypassed) */
    double beta;   /* C := A B + beta C (default 0.5; 0: C is not read) */
    int sweep;     /* --shapes sweep: the fixed set of sweep_shapes[] below */
    double scale;  /* --scale F: every dimension times F, rounded, at least 1 (default 1) */
    int ndropped;  /* shapes that --scale made duplicates of earlier ones (dropped) */
    const char *png; /* --png FILE: gnuplot chart of ours / competitor per shape */
} opts_t;

/* --shapes sweep (issue 22 item 4): where ours stands against the competitors over the shapes
 * that matter besides large powers of two. Squares (non-powers of two included), rank-k updates
 * (large m = n, small k), large k with a small C, tall-skinny both ways, rectangles. */
static const shape_t sweep_shapes[] = {
    {256, 256, 256},     {512, 512, 512},     {1000, 1000, 1000},  {1024, 1024, 1024},
    {2000, 2000, 2000},  {2048, 2048, 2048},  {4096, 4096, 4096},  {5000, 5000, 5000},
    {8192, 8192, 8192},                                                   /* squares */
    {4096, 4096, 64},    {4096, 4096, 128},   {4096, 4096, 256},
    {8192, 8192, 128},   {8192, 8192, 256},                               /* rank-k updates */
    {1024, 1024, 8192},  {512, 512, 32768},                               /* large k, small C */
    {8192, 64, 8192},    {64, 8192, 8192},    {16384, 256, 16384},        /* tall-skinny */
    {2000, 3000, 1500},  {10000, 1000, 1000},                             /* rectangles */
};
#define N_SWEEP ((int)(sizeof sweep_shapes / sizeof sweep_shapes[0]))

static void usage(FILE *f)
{
    fprintf(f,
        "usage: clhgemm-bench-gemm [options]\n"
        "Device GEMM benchmark (matrices already on the device): clhgemm vs CLBlast in the same\n"
        "run, optionally cuBLAS and OpenBLAS. C := 1*op(A)*op(B) + beta*C (--beta, default 0.5) on random data in [-1,1].\n"
        "  --device SPEC        device selection as in clhgemm_devices_get (index, name substring,\n"
        "                       gpu/cpu); default: the first GPU, else the first device\n"
        "  --precision s|d|both default both (d is skipped without fp64)\n"
        "  --sizes N,N,...      square sizes (default 512,1024,2048,4096,8192; 'none' for none)\n"
        "  --shapes MxNxK,...   rectangular shapes run after the squares; 'default' for\n"
        "                       8192x8192x1024,1024x1024x8192,4096x16384x4096,2000x3000x1500,\n"
        "                       which also run when neither --sizes nor --shapes is given;\n"
        "                       'none' for none; 'sweep' for the fixed set of 21 shapes: squares\n"
        "                       256 ... 8192 (1000, 2000, 5000 among them), rank-k updates\n"
        "                       4096^2 x {64,128,256} and 8192^2 x {128,256}, large k\n"
        "                       (1024x1024x8192, 512x512x32768), tall-skinny (8192x64x8192,\n"
        "                       64x8192x8192, 16384x256x16384), 2000x3000x1500, 10000x1000x1000\n"
        "                       (with 'sweep' no square list runs unless --sizes is given). A shape\n"
        "                       that needs over half the device memory (or more than one\n"
        "                       allocation may hold) is skipped. The summary ends with lines\n"
        "                       'geomean ours/LIB p|all' (geometric mean of ours / LIB GFLOP/s)\n"
        "  --scale F            multiply every dimension (--sizes, --shapes, sweep) by F, rounded,\n"
        "                       at least 1; shapes that become duplicates are dropped (e.g. 0.0625\n"
        "                       runs the sweep quickly on a CPU device)\n"
        "  --png FILE           gnuplot bar chart (PNG) of ours / competitor per shape and precision\n"
        "                       (needs gnuplot on PATH, else 'gnuplot not found: no PNG')\n"
        "  --reps R             timed reps (default 10)       --warmup W  untimed reps (default 2)\n"
        "  --beta B             C := A B + B C (default 0.5; 0: C is never read)\n"
        "  --csv FILE           append result rows to FILE (header written when FILE is new/empty)\n"
        "  --layout col|row     default col                    --trans NN|NT|TN|TT  default NN\n"
        "  --no-clblast         skip CLBlast                   --no-cublas  skip cuBLAS\n"
        "  --openblas           add OpenBLAS on host copies (only for m,n,k <= 4096)\n"
        "  --openblas-all       OpenBLAS for every size\n"
        "  --profile            also report device time (OpenCL profiling, marker -> last event)\n"
        "  --parts              also time our call's building blocks apart on the same buffers\n"
        "                       (pack A, pack B, the GEMM kernel alone, write-back; column-major,\n"
        "                       device time, median of the reps; implies --profile)\n"
        "  --parts-bk BK        with --parts (implied): also time the kernel as the host pipeline\n"
        "                       runs a tile, one accumulating launch per k slice of BK, each\n"
        "                       slice packed into its own region (NN only)\n"
        "  --no-check           skip the correctness check before timing\n"
        "  --defaults           also time clhgemm with its built-in kernel parameters (the tuning\n"
        "                       database bypassed) in the same run, next to the tuned ones\n"
        "  --quick              sizes 512,1024,2048, no rectangular shapes, 3 reps, 1 warm-up\n"
        "  --list-devices       list the OpenCL devices and exit\n"
        "  -h, --help\n");
}

static int parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 1 << 30) return -1;
    *out = (int)v;
    return 0;
}

/* "512,1024" -> squares. */
static int parse_sizes(const char *s, shape_t *out, int *count)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || v > 1 << 20 || n >= MAX_SHAPES) return -1;
        out[n].m = out[n].n = out[n].k = (int)v;
        n++;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    *count = n;
    return 0;
}

/* "8192x8192x1024,2000x3000x1500" (x, X or *) -> shapes; "none" or "" -> no shape. */
static int parse_shapes(const char *s, shape_t *out, int *count)
{
    int n = 0;
    const char *p = s;
    if (!strcmp(s, "none") || !*s) {
        *count = 0;
        return 0;
    }
    while (*p) {
        long v[3];
        for (int i = 0; i < 3; i++) {
            char *end;
            v[i] = strtol(p, &end, 10);
            if (end == p || v[i] <= 0 || v[i] > 1 << 20) return -1;
            p = end;
            if (i < 2) {
                if (*p != 'x' && *p != 'X' && *p != '*') return -1;
                p++;
            }
        }
        if (n >= MAX_SHAPES) return -1;
        out[n].m = (int)v[0];
        out[n].n = (int)v[1];
        out[n].k = (int)v[2];
        n++;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    *count = n;
    return 0;
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->do_s = o->do_d = 1;
    o->reps = 10;
    o->warmup = 2;
    o->clblast = o->cublas = o->check = 1;
    o->beta = 0.5;
    o->scale = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        /* options with a value accept both "--opt value" and "--opt=value" */
        static const char *const with_value[] = {"--device", "--precision", "--sizes", "--shapes",
                                                 "--reps", "--warmup", "--csv", "--layout",
                                                 "--trans", "--beta", "--parts-bk", "--scale",
                                                 "--png", NULL};
        for (int j = 0; with_value[j]; j++) {
            size_t l = strlen(with_value[j]);
            if (!strncmp(a, with_value[j], l) && (a[l] == '\0' || a[l] == '=')) {
                if (a[l] == '=') v = a + l + 1;
                else if (i + 1 < argc) v = argv[++i];
                else {
                    fprintf(stderr, "error: %s needs a value\n", with_value[j]);
                    return -1;
                }
                a = with_value[j];
                break;
            }
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--device")) {
            o->device_spec = v;
        } else if (!strcmp(a, "--precision")) {
            if (!strcmp(v, "s")) o->do_s = 1, o->do_d = 0;
            else if (!strcmp(v, "d")) o->do_s = 0, o->do_d = 1;
            else if (!strcmp(v, "both") || !strcmp(v, "sd") || !strcmp(v, "s,d")) o->do_s = o->do_d = 1;
            else {
                fprintf(stderr, "error: --precision takes s, d or both\n");
                return -1;
            }
        } else if (!strcmp(a, "--sizes")) {
            if (!strcmp(v, "none")) {
                o->nsquares = 0;
            } else if (parse_sizes(v, o->squares, &o->nsquares)) {
                fprintf(stderr, "error: bad --sizes '%s' (want e.g. 512,1024)\n", v);
                return -1;
            }
            o->squares_set = 1;
        } else if (!strcmp(a, "--shapes")) {
            o->rects_default = !strcmp(v, "default");
            o->sweep = !strcmp(v, "sweep");
            if (o->sweep) {
                memcpy(o->rects, sweep_shapes, sizeof sweep_shapes);
                o->nrects = N_SWEEP;
            } else if (!o->rects_default && parse_shapes(v, o->rects, &o->nrects)) {
                fprintf(stderr, "error: bad --shapes '%s' (want e.g. 8192x8192x1024,2000x3000x1500)\n", v);
                return -1;
            }
            o->rects_set = 1;
        } else if (!strcmp(a, "--scale")) {
            char *end = NULL;
            o->scale = strtod(v, &end);
            if (!end || end == v || *end || !(o->scale > 0.0) || !(o->scale <= 64.0)) {
                fprintf(stderr, "error: bad --scale '%s' (want a factor in (0, 64])\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--png")) {
            o->png = v;
        } else if (!strcmp(a, "--beta")) {
            char *end = NULL;
            o->beta = strtod(v, &end);
            if (!end || end == v || *end) {
                fprintf(stderr, "error: bad --beta '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--reps")) {
            if (parse_int(v, &o->reps) || o->reps < 1) {
                fprintf(stderr, "error: bad --reps '%s'\n", v);
                return -1;
            }
            o->reps_set = 1;
        } else if (!strcmp(a, "--warmup")) {
            if (parse_int(v, &o->warmup)) {
                fprintf(stderr, "error: bad --warmup '%s'\n", v);
                return -1;
            }
            o->warmup_set = 1;
        } else if (!strcmp(a, "--csv")) {
            o->csv = v;
        } else if (!strcmp(a, "--layout")) {
            if (!strcmp(v, "col")) o->row = 0;
            else if (!strcmp(v, "row")) o->row = 1;
            else {
                fprintf(stderr, "error: --layout takes col or row\n");
                return -1;
            }
        } else if (!strcmp(a, "--trans")) {
            if (strlen(v) != 2 || !strchr("NTnt", v[0]) || !strchr("NTnt", v[1])) {
                fprintf(stderr, "error: --trans takes NN, NT, TN or TT\n");
                return -1;
            }
            o->ta = toupper((unsigned char)v[0]) == 'T';
            o->tb = toupper((unsigned char)v[1]) == 'T';
        } else if (!strcmp(a, "--no-clblast")) {
            o->clblast = 0;
        } else if (!strcmp(a, "--no-cublas")) {
            o->cublas = 0;
        } else if (!strcmp(a, "--openblas")) {
            o->openblas = 1;
        } else if (!strcmp(a, "--openblas-all")) {
            o->openblas = o->openblas_all = 1;
        } else if (!strcmp(a, "--profile")) {
            o->profile = 1;
        } else if (!strcmp(a, "--parts")) {
            o->parts = o->profile = 1;
        } else if (!strcmp(a, "--parts-bk")) {
            if (parse_int(v, &o->parts_bk) || o->parts_bk <= 0) {
                fprintf(stderr, "error: bad --parts-bk '%s' (want a positive k slice)\n", v);
                return -1;
            }
            o->parts = o->profile = 1;
        } else if (!strcmp(a, "--no-check")) {
            o->check = 0;
        } else if (!strcmp(a, "--defaults")) {
            o->defaults = 1;
        } else if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--list-devices")) {
            o->list = 1;
        } else {
            fprintf(stderr, "error: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return -1;
        }
    }
    if (!o->squares_set && o->sweep) {
        o->nsquares = 0; /* the sweep has its own squares */
    } else if (!o->squares_set) {
        static const int def[] = {512, 1024, 2048, 4096, 8192};
        int nd = o->quick ? 3 : 5;
        for (int i = 0; i < nd; i++) o->squares[i].m = o->squares[i].n = o->squares[i].k = def[i];
        o->nsquares = nd;
    }
    /* The rectangular defaults come with the default square list only: "--sizes 4096" means
     * just 4096 (add --shapes default to keep them). */
    if (o->rects_default || (!o->rects_set && !o->squares_set && !o->quick)) {
        static const shape_t def[] = {
            {8192, 8192, 1024}, {1024, 1024, 8192}, {4096, 16384, 4096}, {2000, 3000, 1500}};
        memcpy(o->rects, def, sizeof def);
        o->nrects = 4;
    }
    if (o->scale != 1.0) {
        /* Scale every dimension, then drop shapes that became equal to an earlier one (squares
         * first, then the shapes) so that no shape counts twice in the geometric means. */
        shape_t *lists[2] = {o->squares, o->rects};
        int *counts[2] = {&o->nsquares, &o->nrects};
        for (int l = 0; l < 2; l++) {
            int kept = 0;
            for (int i = 0; i < *counts[l]; i++) {
                shape_t x = lists[l][i];
                int *d[3] = {&x.m, &x.n, &x.k};
                for (int j = 0; j < 3; j++) {
                    double v = nearbyint((double)*d[j] * o->scale);
                    *d[j] = v < 1.0 ? 1 : v > (double)(1 << 24) ? 1 << 24 : (int)v;
                }
                int dup = 0;
                for (int ll = 0; ll <= l && !dup; ll++)
                    for (int j = 0; j < (ll == l ? kept : *counts[ll]) && !dup; j++)
                        dup = lists[ll][j].m == x.m && lists[ll][j].n == x.n && lists[ll][j].k == x.k;
                if (dup) o->ndropped++;
                else lists[l][kept++] = x;
            }
            *counts[l] = kept;
        }
    }
    if (o->quick && !o->reps_set) o->reps = 3;
    if (o->quick && !o->warmup_set) o->warmup = 1;
    return 0;
}

/* ---- small helpers ------------------------------------------------------------------------ */

#define CHG_BENCH_MAX3(a, b, c) ((a) > (b) ? ((a) > (c) ? (a) : (c)) : ((b) > (c) ? (b) : (c)))

typedef struct stats_s {
    double median, min, max;
} stats_t;

static stats_t stats_of(const double *v, int n)
{
    stats_t s = {NAN, NAN, NAN};
    if (n <= 0) return s;
    double *t = malloc(sizeof(double) * (size_t)n);
    if (!t) return s;
    memcpy(t, v, sizeof(double) * (size_t)n);
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    s.min = t[0];
    s.max = t[n - 1];
    free(t);
    return s;
}

/* splitmix64: reproducible data for a given seed. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [-1,1], never zero (a zero would hide a dropped term). */
static double rng_unit(uint64_t *s)
{
    double u = (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
    double v = 2.0 * u - 1.0;
    return v == 0.0 ? 0.5 : v;
}

static void fill_random(void *p, int dbl, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    if (dbl) {
        double *d = p;
        for (size_t i = 0; i < n; i++) d[i] = rng_unit(&s);
    } else {
        float *f = p;
        for (size_t i = 0; i < n; i++) {
            float x = (float)rng_unit(&s);
            f[i] = x == 0.0f ? 0.5f : x;
        }
    }
}

static inline double elem(const void *p, int dbl, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        if (*s != '\n' && *s != '\r') fputc(*s, f);
    }
    fputc('"', f);
}

/* ---- the problem -------------------------------------------------------------------------- */

typedef struct prob_s {
    int dbl, row, ta, tb;
    int m, n, k;
    size_t lda, ldb, ldc;
    size_t na, nb, nc; /* elements */
    double alpha, beta;
    cl_command_queue queue;
    cl_mem A, B, C;
} prob_t;

static void prob_dims(prob_t *p)
{
    /* Stored shapes: op(A) is m x k, so A itself is (ta ? k x m : m x k), etc. */
    size_t m = (size_t)p->m, n = (size_t)p->n, k = (size_t)p->k;
    if (!p->row) {
        p->lda = p->ta ? k : m;
        p->ldb = p->tb ? n : k;
        p->ldc = m;
    } else {
        p->lda = p->ta ? m : k;
        p->ldb = p->tb ? k : n;
        p->ldc = n;
    }
    p->na = m * k;
    p->nb = k * n;
    p->nc = m * n;
}

/* y = op(M) x for the rows x cols matrix op(M); element (i,j) at M[i*si + j*sj]. */
static void matvec(const void *M, int dbl, size_t rows, size_t cols, size_t si, size_t sj,
                   const long double *x, long double *y)
{
    if (si == 1) {
        for (size_t i = 0; i < rows; i++) y[i] = 0.0L;
        for (size_t j = 0; j < cols; j++) {
            const long double xj = x[j];
            const size_t base = j * sj;
            if (dbl) {
                const double *d = (const double *)M + base;
                for (size_t i = 0; i < rows; i++) y[i] += (long double)d[i] * xj;
            } else {
                const float *f = (const float *)M + base;
                for (size_t i = 0; i < rows; i++) y[i] += (long double)f[i] * xj;
            }
        }
    } else {
        for (size_t i = 0; i < rows; i++) {
            long double acc = 0.0L;
            const size_t base = i * si;
            for (size_t j = 0; j < cols; j++) acc += (long double)elem(M, dbl, base + j * sj) * x[j];
            y[i] = acc;
        }
    }
}

/* Strides of op(M)(i,j) for a matrix stored in layout `row` with transpose `t` and ld. */
static void op_strides(int row, int t, size_t ld, size_t *si, size_t *sj)
{
    /* column-major, no transpose: i + j*ld; a transpose or row-major storage swaps them */
    if (!row == !t) {
        *si = 1;
        *sj = ld;
    } else {
        *si = ld;
        *sj = 1;
    }
}

/* BLIS's cheap check: max|C t - (beta C0 t + alpha op(A) (op(B) t))| / (max|ref| k eps).
 * C is the result computed from (A, B, C0); everything on the host in long double. */
static double cheap_check(const prob_t *p, const void *A, const void *B, const void *C0,
                          const void *C)
{
    const size_t m = (size_t)p->m, n = (size_t)p->n, k = (size_t)p->k;
    long double *t = malloc(sizeof(long double) * n), *w = malloc(sizeof(long double) * k);
    long double *u = malloc(sizeof(long double) * m), *v = malloc(sizeof(long double) * m);
    long double *y = malloc(sizeof(long double) * m);
    double result = NAN;
    if (!t || !w || !u || !v || !y) goto out;
    uint64_t seed = 0x5eed0000ULL + m * 31 + n * 17 + k;
    for (size_t j = 0; j < n; j++) t[j] = rng_unit(&seed);
    size_t si, sj;
    op_strides(p->row, p->tb, p->ldb, &si, &sj);
    matvec(B, p->dbl, k, n, si, sj, t, w);
    op_strides(p->row, p->ta, p->lda, &si, &sj);
    matvec(A, p->dbl, m, k, si, sj, w, u);
    op_strides(p->row, 0, p->ldc, &si, &sj);
    matvec(C0, p->dbl, m, n, si, sj, t, v);
    matvec(C, p->dbl, m, n, si, sj, t, y);
    long double maxdiff = 0.0L, maxref = 0.0L;
    for (size_t i = 0; i < m; i++) {
        long double ref = (long double)p->alpha * u[i] + (long double)p->beta * v[i];
        long double d = fabsl(y[i] - ref);
        if (!isfinite((double)y[i])) {
            result = INFINITY;
            goto out;
        }
        if (d > maxdiff) maxdiff = d;
        if (fabsl(ref) > maxref) maxref = fabsl(ref);
    }
    if (maxref == 0.0L) maxref = 1.0L;
    result = (double)(maxdiff / (maxref * (long double)k * (p->dbl ? DBL_EPSILON : FLT_EPSILON)));
out:
    free(t);
    free(w);
    free(u);
    free(v);
    free(y);
    return result;
}

/* Element-wise max|X - Ref| / (max|Ref| k eps); INFINITY if X has a non-finite value. */
static double compare_full(const prob_t *p, const void *X, const void *Ref)
{
    double maxdiff = 0.0, maxref = 0.0;
    for (size_t i = 0; i < p->nc; i++) {
        double x = elem(X, p->dbl, i), r = elem(Ref, p->dbl, i);
        if (!isfinite(x)) return INFINITY;
        double d = fabs(x - r);
        if (d > maxdiff) maxdiff = d;
        if (fabs(r) > maxref) maxref = fabs(r);
    }
    if (maxref == 0.0) maxref = 1.0;
    return maxdiff / (maxref * (double)p->k * (p->dbl ? DBL_EPSILON : FLT_EPSILON));
}

/* ---- libraries ---------------------------------------------------------------------------- */

/* The OpenCL libraries come first (indices below NCL): they run on the same buffers and queue
 * with interleaved reps. LIB_DEFAULT is clhgemm with the tuning database bypassed (built-in
 * parameters), next to the tuned one in the same process (--defaults). */
enum { LIB_OURS, LIB_CLBLAST, LIB_DEFAULT, NCL, LIB_CUBLAS = NCL, LIB_OPENBLAS, NLIBS };
static const char *const lib_name[NLIBS] = {"clhgemm", "clblast", "clhgemm-defaults", "cublas",
                                            "openblas"};
static const char *const lib_title[NLIBS] = {"ours", "CLBlast", "defaults", "cuBLAS", "OpenBLAS"};

typedef struct result_s {
    int ran;          /* a figure exists */
    stats_t host;     /* ms */
    stats_t dev;      /* ms, --profile only (NAN otherwise) */
    double err;       /* check error (see header), NAN when not checked */
    double err_ref;   /* ours only: vs CLBlast element-wise, NAN when not compared */
    char note[320];   /* why there is no figure, or a warning */
} result_t;

typedef struct row_s {
    shape_t shape;
    int dbl;
    result_t r[NLIBS];
} row_t;

/* Enqueues one call of library `lib` on p; returns 0 or an error, with *ev set on success. */
static int enqueue_lib(int lib, const prob_t *p, cl_event *ev, char *why, size_t whylen)
{
    *ev = NULL;
    if (lib == LIB_OURS || lib == LIB_DEFAULT) {
        const clhgemm_layout_t lay = p->row ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
        const clhgemm_transpose_t ta = p->ta ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
        const clhgemm_transpose_t tb = p->tb ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
        /* The parameters are selected when the call enqueues: bypass the database around it. */
        if (lib == LIB_DEFAULT) chg_tuning_set_bypass(1);
#else
        if (lib == LIB_DEFAULT) {
            snprintf(why, whylen, "needs clhgemm_internal");
            return -1;
        }
#endif
        clhgemm_status_t st =
            p->dbl ? clhgemm_dgemm_cl(lay, ta, tb, p->m, p->n, p->k, p->alpha, p->A, 0, (int)p->lda,
                                      p->B, 0, (int)p->ldb, p->beta, p->C, 0, (int)p->ldc, p->queue, ev)
                   : clhgemm_sgemm_cl(lay, ta, tb, p->m, p->n, p->k, (float)p->alpha, p->A, 0,
                                      (int)p->lda, p->B, 0, (int)p->ldb, (float)p->beta, p->C, 0,
                                      (int)p->ldc, p->queue, ev);
#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
        if (lib == LIB_DEFAULT) chg_tuning_set_bypass(0);
#endif
        if (st != CLHGEMM_SUCCESS) {
            snprintf(why, whylen, "clhgemm: %s (%d): %s", clhgemm_status_string(st), (int)st,
                     clhgemm_status_message(st));
            return -1;
        }
        if (!*ev) {
            snprintf(why, whylen, "clhgemm returned no event");
            return -1;
        }
        return 0;
    }
#ifdef CLHGEMM_HAVE_CLBLAST
    if (lib == LIB_CLBLAST) {
        const CLBlastLayout lay = p->row ? CLBlastLayoutRowMajor : CLBlastLayoutColMajor;
        const CLBlastTranspose ta = p->ta ? CLBlastTransposeYes : CLBlastTransposeNo;
        const CLBlastTranspose tb = p->tb ? CLBlastTransposeYes : CLBlastTransposeNo;
        cl_command_queue q = p->queue;
        CLBlastStatusCode st =
            p->dbl ? CLBlastDgemm(lay, ta, tb, (size_t)p->m, (size_t)p->n, (size_t)p->k, p->alpha,
                                  p->A, 0, p->lda, p->B, 0, p->ldb, p->beta, p->C, 0, p->ldc, &q, ev)
                   : CLBlastSgemm(lay, ta, tb, (size_t)p->m, (size_t)p->n, (size_t)p->k,
                                  (float)p->alpha, p->A, 0, p->lda, p->B, 0, p->ldb,
                                  (float)p->beta, p->C, 0, p->ldc, &q, ev);
        if (st != CLBlastSuccess) {
            snprintf(why, whylen, "CLBlast status %d", (int)st);
            return -1;
        }
        if (!*ev) {
            snprintf(why, whylen, "CLBlast returned no event");
            return -1;
        }
        return 0;
    }
#endif
    snprintf(why, whylen, "not built in");
    return -1;
}

/* One rep: (marker) enqueue, wait. Host ms around enqueue->wait; device ms from the marker's
 * start to the end of the returned event when profiling (NAN if unavailable). */
static int run_once(int lib, const prob_t *p, int profile, double *host_ms, double *dev_ms,
                    char *why, size_t whylen)
{
    cl_event marker = NULL, ev = NULL;
    *dev_ms = NAN;
    if (profile && clEnqueueMarkerWithWaitList(p->queue, 0, NULL, &marker) != CL_SUCCESS) marker = NULL;
    double t0 = now_ms();
    if (enqueue_lib(lib, p, &ev, why, whylen)) {
        if (marker) clReleaseEvent(marker);
        clFinish(p->queue);
        return -1;
    }
    cl_int err = clWaitForEvents(1, &ev);
    double t1 = now_ms();
    cl_int exec = CL_COMPLETE;
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    if (err != CL_SUCCESS || exec < 0) {
        snprintf(why, whylen, "%s: wait failed (%s, status %d)", lib_title[lib],
                 clhgemm_status_string(err), (int)exec);
        clReleaseEvent(ev);
        if (marker) clReleaseEvent(marker);
        return -1;
    }
    *host_ms = t1 - t0;
    if (marker) {
        cl_ulong s = 0, e = 0;
        if (clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL) == CL_SUCCESS &&
            e >= s)
            *dev_ms = (double)(e - s) * 1e-6;
        clReleaseEvent(marker);
    }
    clReleaseEvent(ev);
    return 0;
}

/* ---- globals for output ------------------------------------------------------------------- */

typedef struct ctx_s {
    opts_t o;
    clhgemm_device_info_t info;
    cl_context context;
    cl_command_queue queue;
    FILE *csv;
    char date[32];
    char params[2][256]; /* kernel parameters of ours for s, d */
    char params_def[2][256]; /* built-in parameters (--defaults) */
    char tuning[2][700];     /* which tuning entry ours uses */
    int have_clblast, have_cublas, have_openblas;
    char cublas_desc[480];
    char openblas_desc[256];
    row_t *rows;
    int nrows, caprows;
} ctx_t;

static void csv_row(ctx_t *c, const row_t *row, int lib)
{
    const result_t *r = &row->r[lib];
    if (!c->csv || !r->ran) return;
    const shape_t *s = &row->shape;
    double gf = 2.0 * s->m * (double)s->n * s->k / (r->host.median * 1e6);
    const char *params = "";
    if (lib == LIB_OURS) params = c->params[row->dbl];
    else if (lib == LIB_DEFAULT) params = c->params_def[row->dbl];
    else if (lib == LIB_CUBLAS) params = c->cublas_desc;
    else if (lib == LIB_OPENBLAS) params = c->openblas_desc;
    fprintf(c->csv, "%s,", c->date);
    csv_field(c->csv, c->info.name);
    fputc(',', c->csv);
    csv_field(c->csv, c->info.driver_version);
    fprintf(c->csv, ",%c,%d,%d,%d,%s,%.6f,%.3f,%.6f,%.6f,", row->dbl ? 'd' : 's', s->m, s->n, s->k,
            lib_name[lib], r->host.median, gf, r->host.min, r->host.max);
    csv_field(c->csv, params);
    fprintf(c->csv, ",%s,%c%c,%d,", c->o.row ? "row" : "col", c->o.ta ? 'T' : 'N',
            c->o.tb ? 'T' : 'N', c->o.reps);
    if (!isnan(r->err)) fprintf(c->csv, "%.4g", r->err);
    fputc(',', c->csv);
    if (!isnan(r->dev.median)) fprintf(c->csv, "%.6f", r->dev.median);
    fputc('\n', c->csv);
    fflush(c->csv);
}

static double gflops_of(const shape_t *s, double ms)
{
    return 2.0 * s->m * (double)s->n * s->k / (ms * 1e6);
}

static void print_lib_line(const shape_t *s, int lib, const result_t *r)
{
    if (r->ran) {
        printf("    %-8s %10.1f GFLOP/s  median %9.3f ms  min %9.3f  max %9.3f", lib_title[lib],
               gflops_of(s, r->host.median), r->host.median, r->host.min, r->host.max);
        if (!isnan(r->dev.median)) printf("  device %9.3f ms", r->dev.median);
        if (!isnan(r->err)) printf("  err %.3g", r->err);
        if (!isnan(r->err_ref)) printf("  vs CLBlast %.3g", r->err_ref);
        printf("\n");
        if (r->note[0]) printf("             note: %s\n", r->note);
    } else {
        printf("    %-8s n/a (%s)\n", lib_title[lib], r->note[0] ? r->note : "not run");
    }
}

/* ---- one shape, one precision ------------------------------------------------------------- */

/* --parts: the building blocks of our call (src/gemm.h) on the problem's buffers, one after
 * the other on the profiling queue, each timed by its own event: where the call's time goes
 * (the packs and the write-back around the kernel). The whole problem as one block, as the
 * library runs it when the workspace holds it; the kernel reads the packs just made, so it runs
 * on the real data. */
static void parts_one(ctx_t *c, const prob_t *p, const shape_t *s)
{
#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
    if (p->row) {
        printf("    parts: column-major only\n");
        return;
    }
    const chg_device_t *dev = NULL;
    cl_context ctx = NULL;
    if (chg_queue_device(p->queue, &dev, &ctx) != CLHGEMM_SUCCESS) return;
    const chg_precision_t prec = p->dbl ? CHG_F64 : CHG_F32;
    chg_gemm_params_t gp;
    chg_gemm_params_select(dev, prec, &gp);
    chg_gemm_kernels_t ks;
    clhgemm_status_t st = chg_gemm_kernels_create(ctx, dev, prec, &gp, p->ta, p->tb, p->beta == 0.0, &ks);
    if (st != CLHGEMM_SUCCESS) {
        printf("    parts: kernels: %s\n", clhgemm_status_string(st));
        return;
    }
    const size_t es = p->dbl ? 8 : 4, m = (size_t)p->m, n = (size_t)p->n, k = (size_t)p->k;
    const size_t mpad = chg_round_up(m, (size_t)gp.mwg), npad = chg_round_up(n, (size_t)gp.nwg);
    const size_t kpad = chg_round_up(k, (size_t)gp.kwg);
    cl_int err;
    cl_mem ap = clCreateBuffer(ctx, CL_MEM_READ_WRITE, mpad * kpad * es, NULL, &err);
    cl_mem bp = err == CL_SUCCESS ? clCreateBuffer(ctx, CL_MEM_READ_WRITE, npad * kpad * es, NULL, &err) : NULL;
    cl_mem cp = err == CL_SUCCESS ? clCreateBuffer(ctx, CL_MEM_READ_WRITE, mpad * npad * es, NULL, &err) : NULL;
    const int nrep = c->o.reps, total = c->o.warmup + c->o.reps;
    double *t[4];
    for (int x = 0; x < 4; x++) t[x] = calloc((size_t)(nrep > 0 ? nrep : 1), sizeof(double));
    if (!t[0] || !t[1] || !t[2] || !t[3]) err = CL_OUT_OF_HOST_MEMORY;
    for (int r = 0; r < total && err == CL_SUCCESS; r++) {
        cl_event ev[4] = {NULL, NULL, NULL, NULL};
        err = chg_enqueue_pack_a(p->queue, &ks, m, k, p->A, 0, p->lda, ap, 0, 0, 0, NULL, &ev[0]);
        if (err == CL_SUCCESS)
            err = chg_enqueue_pack_b(p->queue, &ks, n, k, p->B, 0, p->ldb, bp, 0, 0, 0, NULL, &ev[1]);
        if (err == CL_SUCCESS)
            err = chg_enqueue_kernel(p->queue, &ks, mpad, npad, kpad, ap, 0, bp, 0, cp, 0, 0, NULL, &ev[2]);
        if (err == CL_SUCCESS)
            err = chg_enqueue_writeback(p->queue, &ks, m, n, p->alpha, p->beta, cp, mpad, p->C, 0,
                                        p->ldc, 0, NULL, &ev[3]);
        if (err == CL_SUCCESS) err = clFinish(p->queue);
        for (int x = 0; x < 4; x++) {
            cl_ulong a = 0, b = 0;
            if (err == CL_SUCCESS && r >= c->o.warmup &&
                (clGetEventProfilingInfo(ev[x], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) != CL_SUCCESS ||
                 clGetEventProfilingInfo(ev[x], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) != CL_SUCCESS))
                err = CL_PROFILING_INFO_NOT_AVAILABLE;
            if (err == CL_SUCCESS && r >= c->o.warmup) t[x][r - c->o.warmup] = (double)(b - a) * 1e-6;
            if (ev[x]) clReleaseEvent(ev[x]);
        }
    }
    /* --parts-bk: the same product as the host pipeline runs a tile, one launch per k slice
     * accumulating into Cp, each slice packed into its own region: what re-reading and
     * re-writing Cp in every slice costs against the single launch above. */
    double *tsl = NULL, sl_median = 0;
    const size_t bk = (size_t)c->o.parts_bk, bkp = bk ? chg_round_up(bk, (size_t)gp.kwg) : 0;
    const size_t ns = bk ? (k + bk - 1) / bk : 0;
    cl_mem ap2 = NULL, bp2 = NULL;
    if (err == CL_SUCCESS && bk && (p->ta || p->tb)) {
        printf("    parts: --parts-bk times NN only\n");
    } else if (err == CL_SUCCESS && bk) {
        ap2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, mpad * bkp * ns * es, NULL, &err);
        if (err == CL_SUCCESS) bp2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, npad * bkp * ns * es, NULL, &err);
        if (err == CL_SUCCESS && !(tsl = calloc((size_t)(nrep > 0 ? nrep : 1), sizeof(double))))
            err = CL_OUT_OF_HOST_MEMORY;
        for (size_t s = 0; s < ns && err == CL_SUCCESS; s++) {
            const size_t p0 = s * bk, kc = CHG_MIN(bk, k - p0);
            err = chg_enqueue_pack_a(p->queue, &ks, m, kc, p->A, p0 * (size_t)p->lda, p->lda, ap2,
                                     s * mpad * bkp, 0, 0, NULL, NULL);
            if (err == CL_SUCCESS)
                err = chg_enqueue_pack_b(p->queue, &ks, n, kc, p->B, p0, p->ldb, bp2, s * npad * bkp, 0, 0,
                                         NULL, NULL);
        }
        for (int r = 0; r < total && err == CL_SUCCESS; r++) {
            cl_event e0 = NULL, e1 = NULL;
            for (size_t s = 0; s < ns && err == CL_SUCCESS; s++) {
                const size_t kc = CHG_MIN(bk, k - s * bk);
                cl_event e = NULL;
                err = chg_enqueue_kernel(p->queue, &ks, mpad, npad, chg_round_up(kc, (size_t)gp.kwg), ap2,
                                         s * mpad * bkp, bp2, s * npad * bkp, cp, s > 0, 0, NULL, &e);
                if (s == 0) e0 = e;
                else if (e1) clReleaseEvent(e1);
                if (s > 0) e1 = e;
            }
            if (err == CL_SUCCESS) err = clFinish(p->queue);
            cl_ulong a = 0, b = 0;
            if (err == CL_SUCCESS &&
                (clGetEventProfilingInfo(e0, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) != CL_SUCCESS ||
                 clGetEventProfilingInfo(e1 ? e1 : e0, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) != CL_SUCCESS))
                err = CL_PROFILING_INFO_NOT_AVAILABLE;
            if (err == CL_SUCCESS && r >= c->o.warmup) tsl[r - c->o.warmup] = (double)(b - a) * 1e-6;
            if (e0) clReleaseEvent(e0);
            if (e1) clReleaseEvent(e1);
        }
        if (err == CL_SUCCESS && nrep > 0) sl_median = stats_of(tsl, nrep).median;
    }
    if (err == CL_SUCCESS && nrep > 0) {
        stats_t st4[4];
        double sum = 0;
        for (int x = 0; x < 4; x++) {
            st4[x] = stats_of(t[x], nrep);
            sum += st4[x].median;
        }
        printf("    parts    pack A %.3f ms, pack B %.3f ms, kernel %.3f ms (%.1f GFLOP/s), "
               "write-back %.3f ms; sum %.3f ms (%.1f GFLOP/s)\n", st4[0].median, st4[1].median,
               st4[2].median, gflops_of(s, st4[2].median), st4[3].median, sum, gflops_of(s, sum));
        if (sl_median > 0)
            printf("    parts    kernel in %zu slices of k = %zu: %.3f ms (%.1f GFLOP/s), %.2f x the single "
                   "launch\n", ns, bk, sl_median, gflops_of(s, sl_median), sl_median / st4[2].median);
    } else {
        printf("    parts: %s\n", clhgemm_status_string(err));
    }
    for (int x = 0; x < 4; x++) free(t[x]);
    free(tsl);
    if (ap2) clReleaseMemObject(ap2);
    if (bp2) clReleaseMemObject(bp2);
    if (ap) clReleaseMemObject(ap);
    if (bp) clReleaseMemObject(bp);
    if (cp) clReleaseMemObject(cp);
    chg_gemm_kernels_release(&ks);
#else
    (void)c;
    (void)p;
    (void)s;
    printf("    parts: needs the library's internals (clhgemm_internal)\n");
#endif
}

static void bench_one(ctx_t *c, shape_t shape, int dbl)
{
    const opts_t *o = &c->o;
    row_t row;
    memset(&row, 0, sizeof row);
    row.shape = shape;
    row.dbl = dbl;
    for (int l = 0; l < NLIBS; l++) {
        row.r[l].host.median = row.r[l].host.min = row.r[l].host.max = NAN;
        row.r[l].dev.median = row.r[l].dev.min = row.r[l].dev.max = NAN;
        row.r[l].err = row.r[l].err_ref = NAN;
    }
    prob_t p;
    memset(&p, 0, sizeof p);
    p.dbl = dbl;
    p.row = o->row;
    p.ta = o->ta;
    p.tb = o->tb;
    p.m = shape.m;
    p.n = shape.n;
    p.k = shape.k;
    p.alpha = 1.0;
    p.beta = c->o.beta;
    p.queue = c->queue;
    prob_dims(&p);
    const size_t es = dbl ? 8 : 4;
    const double need = (double)es * (double)(p.na + p.nb + p.nc);
    const int use_cl[NCL] = {1, c->have_clblast, o->defaults};
    void *A = NULL, *B = NULL, *C0 = NULL, *Cours = NULL, *Cref = NULL, *Cdef = NULL, *Cw = NULL;
    char why[256];

    printf("[%c %dx%dx%d] %.1f MiB of matrices\n", dbl ? 'd' : 's', shape.m, shape.n, shape.k,
           need / 1048576.0);
    fflush(stdout);

    if (need > 0.5 * (double)c->info.global_mem_bytes ||
        (double)es * (double)CHG_BENCH_MAX3(p.na, p.nb, p.nc) > (double)c->info.max_alloc_bytes) {
        for (int l = 0; l < NLIBS; l++)
            snprintf(row.r[l].note, sizeof row.r[l].note,
                     "skipped: needs %.0f MiB, device has %.0f MiB (max alloc %.0f MiB)",
                     need / 1048576.0, c->info.global_mem_bytes / 1048576.0,
                     c->info.max_alloc_bytes / 1048576.0);
        printf("    skipped: does not fit in half the device memory (or one allocation)\n");
        goto record;
    }

    A = malloc(p.na * es);
    B = malloc(p.nb * es);
    C0 = malloc(p.nc * es);
    Cours = malloc(p.nc * es);
    Cref = malloc(p.nc * es);
    Cdef = malloc(p.nc * es);
    if (!A || !B || !C0 || !Cours || !Cref || !Cdef) {
        for (int l = 0; l < NLIBS; l++) snprintf(row.r[l].note, sizeof row.r[l].note, "out of host memory");
        printf("    skipped: out of host memory\n");
        goto record;
    }
    {
        const uint64_t seed = ((uint64_t)shape.m << 40) ^ ((uint64_t)shape.n << 20) ^ (uint64_t)shape.k ^ ((uint64_t)dbl << 62);
        fill_random(A, dbl, p.na, seed ^ 0xA);
        fill_random(B, dbl, p.nb, seed ^ 0xB);
        fill_random(C0, dbl, p.nc, seed ^ 0xC);
    }

    /* ---- the OpenCL libraries, on the same buffers ---- */
    {
        cl_int err;
        p.A = clCreateBuffer(c->context, CL_MEM_READ_WRITE, p.na * es, NULL, &err);
        if (p.A) p.B = clCreateBuffer(c->context, CL_MEM_READ_WRITE, p.nb * es, NULL, &err);
        if (p.B) p.C = clCreateBuffer(c->context, CL_MEM_READ_WRITE, p.nc * es, NULL, &err);
        if (p.C) err = clEnqueueWriteBuffer(c->queue, p.A, CL_TRUE, 0, p.na * es, A, 0, NULL, NULL);
        if (p.C && err == CL_SUCCESS) err = clEnqueueWriteBuffer(c->queue, p.B, CL_TRUE, 0, p.nb * es, B, 0, NULL, NULL);
        if (p.C && err == CL_SUCCESS) err = clEnqueueWriteBuffer(c->queue, p.C, CL_TRUE, 0, p.nc * es, C0, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            for (int l = 0; l < NCL; l++)
                snprintf(row.r[l].note, sizeof row.r[l].note, "device buffers: %s", clhgemm_status_string(err));
            printf("    OpenCL buffers failed: %s\n", clhgemm_status_string(err));
            goto cl_done;
        }
    }
    int active[NCL] = {1, use_cl[1], use_cl[2]};
    if (!o->clblast) snprintf(row.r[LIB_CLBLAST].note, sizeof row.r[LIB_CLBLAST].note, "--no-clblast");
    else if (!c->have_clblast) snprintf(row.r[LIB_CLBLAST].note, sizeof row.r[LIB_CLBLAST].note, "not built with CLBlast");

    /* Correctness check (also the first call: kernel builds happen here). */
    for (int l = 0; l < NCL; l++) {
        if (!active[l]) continue;
        double hms, dms;
        void *dst = l == LIB_OURS ? Cours : l == LIB_CLBLAST ? Cref : Cdef;
        cl_int err = clEnqueueWriteBuffer(c->queue, p.C, CL_TRUE, 0, p.nc * es, C0, 0, NULL, NULL);
        double t0 = now_ms();
        if (err != CL_SUCCESS || run_once(l, &p, 0, &hms, &dms, why, sizeof why)) {
            if (err != CL_SUCCESS) snprintf(why, sizeof why, "write C: %s", clhgemm_status_string(err));
            snprintf(row.r[l].note, sizeof row.r[l].note, "%s", why);
            printf("    %s failed: %s\n", lib_title[l], why);
            active[l] = 0;
            continue;
        }
        double first = now_ms() - t0;
        err = clEnqueueReadBuffer(c->queue, p.C, CL_TRUE, 0, p.nc * es, dst, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            snprintf(row.r[l].note, sizeof row.r[l].note, "read C: %s", clhgemm_status_string(err));
            active[l] = 0;
            continue;
        }
        printf("    %-8s first call %.1f ms (includes any kernel build)\n", lib_title[l], first);
        if (o->check) row.r[l].err = cheap_check(&p, A, B, C0, dst);
    }
    if (o->check && active[LIB_OURS] && active[LIB_CLBLAST])
        row.r[LIB_OURS].err_ref = compare_full(&p, Cours, Cref);
    /* Restore C0 so that timing starts from the same C for every shape. */
    if (clEnqueueWriteBuffer(c->queue, p.C, CL_TRUE, 0, p.nc * es, C0, 0, NULL, NULL) != CL_SUCCESS) {
        active[0] = active[1] = active[2] = 0;
        snprintf(row.r[0].note, sizeof row.r[0].note, "could not restore C");
    }

    /* Warm-up, then interleaved timed reps. */
    {
        double *hms[NCL], *dms[NCL];
        int nrep = o->reps;
        for (int l = 0; l < NCL; l++) {
            hms[l] = calloc((size_t)nrep, sizeof(double));
            dms[l] = calloc((size_t)nrep, sizeof(double));
        }
        for (int w = 0; w < o->warmup; w++)
            for (int l = 0; l < NCL; l++) {
                double h, d;
                if (active[l] && run_once(l, &p, 0, &h, &d, why, sizeof why)) {
                    snprintf(row.r[l].note, sizeof row.r[l].note, "%s", why);
                    printf("    %s failed in warm-up: %s\n", lib_title[l], why);
                    active[l] = 0;
                }
            }
        for (int r = 0; r < nrep; r++)
            for (int l = 0; l < NCL; l++) {
                if (!active[l] || !hms[l] || !dms[l]) continue;
                if (run_once(l, &p, o->profile, &hms[l][r], &dms[l][r], why, sizeof why)) {
                    snprintf(row.r[l].note, sizeof row.r[l].note, "%s", why);
                    printf("    %s failed in rep %d: %s\n", lib_title[l], r, why);
                    active[l] = 0;
                }
            }
        for (int l = 0; l < NCL; l++) {
            if (active[l] && hms[l] && dms[l]) {
                row.r[l].ran = 1;
                row.r[l].host = stats_of(hms[l], nrep);
                if (o->profile) {
                    int ok = 1;
                    for (int r = 0; r < nrep; r++) ok &= !isnan(dms[l][r]);
                    if (ok) row.r[l].dev = stats_of(dms[l], nrep);
                }
            }
            free(hms[l]);
            free(dms[l]);
        }
    }

    if (o->parts && active[LIB_OURS]) parts_one(c, &p, &shape);

cl_done:
    /* Free the OpenCL buffers before cuBLAS allocates its own copies on the same GPU. */
    clFinish(c->queue);
    if (p.A) clReleaseMemObject(p.A);
    if (p.B) clReleaseMemObject(p.B);
    if (p.C) clReleaseMemObject(p.C);
    p.A = p.B = p.C = NULL;

    /* ---- cuBLAS ---- */
    if (!o->cublas) {
        snprintf(row.r[LIB_CUBLAS].note, sizeof row.r[LIB_CUBLAS].note, "--no-cublas");
    } else if (!c->have_cublas) {
#ifdef CLHGEMM_HAVE_CUBLAS
        snprintf(row.r[LIB_CUBLAS].note, sizeof row.r[LIB_CUBLAS].note, "no CUDA device");
#else
        snprintf(row.r[LIB_CUBLAS].note, sizeof row.r[LIB_CUBLAS].note, "not built with cuBLAS");
#endif
    } else {
#ifdef CLHGEMM_HAVE_CUBLAS
        /* Column-major view: a row-major C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T,
         * i.e. the same buffers with A and B (and m and n) swapped. */
        int rc;
        Cw = malloc(p.nc * es);
        if (!p.row)
            rc = cublas_ref_gemm_ex(dbl, p.ta, p.tb, p.m, p.n, p.k, A, (int)p.lda, B, (int)p.ldb, C0,
                                    (int)p.ldc, p.alpha, p.beta, o->warmup, o->reps,
                                    &row.r[LIB_CUBLAS].host.median, &row.r[LIB_CUBLAS].host.min,
                                    &row.r[LIB_CUBLAS].host.max, Cw);
        else
            rc = cublas_ref_gemm_ex(dbl, p.tb, p.ta, p.n, p.m, p.k, B, (int)p.ldb, A, (int)p.lda, C0,
                                    (int)p.ldc, p.alpha, p.beta, o->warmup, o->reps,
                                    &row.r[LIB_CUBLAS].host.median, &row.r[LIB_CUBLAS].host.min,
                                    &row.r[LIB_CUBLAS].host.max, Cw);
        if (rc == 0) {
            row.r[LIB_CUBLAS].ran = 1;
            if (o->check && Cw) row.r[LIB_CUBLAS].err = cheap_check(&p, A, B, C0, Cw);
        } else {
            snprintf(row.r[LIB_CUBLAS].note, sizeof row.r[LIB_CUBLAS].note, "%s", cublas_ref_last_error());
        }
        free(Cw);
        Cw = NULL;
#endif
    }

    /* ---- OpenBLAS on host copies ---- */
    if (!o->openblas) {
        snprintf(row.r[LIB_OPENBLAS].note, sizeof row.r[LIB_OPENBLAS].note, "off (--openblas)");
    } else if (!c->have_openblas) {
        snprintf(row.r[LIB_OPENBLAS].note, sizeof row.r[LIB_OPENBLAS].note, "not built with OpenBLAS");
    } else if (!o->openblas_all && (shape.m > 4096 || shape.n > 4096 || shape.k > 4096)) {
        snprintf(row.r[LIB_OPENBLAS].note, sizeof row.r[LIB_OPENBLAS].note, "size > 4096 (--openblas-all)");
    } else {
#ifdef CLHGEMM_HAVE_OPENBLAS
        Cw = malloc(p.nc * es);
        double *t = calloc((size_t)o->reps, sizeof(double));
        if (Cw && t) {
            const int lda = (int)p.lda, ldb = (int)p.ldb, ldc = (int)p.ldc;
#define OB_CALL()                                                                               \
    do {                                                                                        \
        if (dbl)                                                                                \
            cblas_dgemm(p.row ? CblasRowMajor : CblasColMajor, p.ta ? CblasTrans : CblasNoTrans,  \
                        p.tb ? CblasTrans : CblasNoTrans, p.m, p.n, p.k, p.alpha, (const double *)A, \
                        lda, (const double *)B, ldb, p.beta, (double *)Cw, ldc);                \
        else                                                                                    \
            cblas_sgemm(p.row ? CblasRowMajor : CblasColMajor, p.ta ? CblasTrans : CblasNoTrans,  \
                        p.tb ? CblasTrans : CblasNoTrans, p.m, p.n, p.k, (float)p.alpha,        \
                        (const float *)A, lda, (const float *)B, ldb, (float)p.beta, (float *)Cw, \
                        ldc);                                                                   \
    } while (0)
            memcpy(Cw, C0, p.nc * es);
            OB_CALL();
            if (o->check) row.r[LIB_OPENBLAS].err = cheap_check(&p, A, B, C0, Cw);
            for (int w = 0; w < o->warmup; w++) OB_CALL();
            for (int r = 0; r < o->reps; r++) {
                double t0 = now_ms();
                OB_CALL();
                t[r] = now_ms() - t0;
            }
#undef OB_CALL
            row.r[LIB_OPENBLAS].ran = 1;
            row.r[LIB_OPENBLAS].host = stats_of(t, o->reps);
        } else {
            snprintf(row.r[LIB_OPENBLAS].note, sizeof row.r[LIB_OPENBLAS].note, "out of host memory");
        }
        free(t);
        free(Cw);
        Cw = NULL;
#endif
    }

    /* ---- warnings ---- */
    for (int l = 0; l < NLIBS; l++) {
        result_t *r = &row.r[l];
        if ((!isnan(r->err) && !(r->err <= 1.0)) || (!isnan(r->err_ref) && !(r->err_ref <= 1.0))) {
            printf("    WARN: %s result check beyond tolerance (cheap check %.3g%s%.3g; 1.0 = k*eps)\n",
                   lib_title[l], r->err, isnan(r->err_ref) ? "" : ", vs CLBlast ",
                   isnan(r->err_ref) ? 0.0 : r->err_ref);
            if (!r->note[0]) snprintf(r->note, sizeof r->note, "WARN: check beyond tolerance");
        }
    }

record:
    for (int l = 0; l < NLIBS; l++) {
        if (l == LIB_CUBLAS && !o->cublas) continue;
        if (l == LIB_OPENBLAS && !o->openblas) continue;
        if (l == LIB_CLBLAST && !o->clblast) continue;
        if (l == LIB_DEFAULT && !o->defaults) continue;
        print_lib_line(&shape, l, &row.r[l]);
    }
    if (row.r[LIB_OURS].ran && row.r[LIB_CLBLAST].ran)
        printf("    ours/CLBlast %.2f\n", row.r[LIB_CLBLAST].host.median / row.r[LIB_OURS].host.median);
    if (row.r[LIB_OURS].ran && row.r[LIB_CUBLAS].ran)
        printf("    ours/cuBLAS %.2f\n", row.r[LIB_CUBLAS].host.median / row.r[LIB_OURS].host.median);
    if (row.r[LIB_OURS].ran && row.r[LIB_OPENBLAS].ran)
        printf("    ours/OpenBLAS %.2f\n", row.r[LIB_OPENBLAS].host.median / row.r[LIB_OURS].host.median);
    if (row.r[LIB_OURS].ran && row.r[LIB_DEFAULT].ran)
        printf("    ours/defaults %.2f\n", row.r[LIB_DEFAULT].host.median / row.r[LIB_OURS].host.median);
    fflush(stdout);
    for (int l = 0; l < NLIBS; l++) csv_row(c, &row, l);
    if (c->nrows == c->caprows) {
        int cap = c->caprows ? 2 * c->caprows : 32;
        row_t *nr = realloc(c->rows, sizeof(row_t) * (size_t)cap);
        if (nr) {
            c->rows = nr;
            c->caprows = cap;
        }
    }
    if (c->nrows < c->caprows) c->rows[c->nrows++] = row;
    free(A);
    free(B);
    free(C0);
    free(Cours);
    free(Cref);
    free(Cdef);
}

/* ---- summary ------------------------------------------------------------------------------ */

static void fmt_gf(char *buf, size_t len, const shape_t *s, const result_t *r)
{
    if (r->ran) snprintf(buf, len, "%.1f", gflops_of(s, r->host.median));
    else snprintf(buf, len, "n/a");
}

static void fmt_ratio(char *buf, size_t len, const result_t *a, const result_t *b)
{
    if (a->ran && b->ran) snprintf(buf, len, "%.2f", b->host.median / a->host.median);
    else snprintf(buf, len, "-");
}

/* The shape class the library runs m x n x k with (column-major view: a row-major call swaps
 * m and n) and its split, as "small" or "large_k/4" (4 slices of k), or "small/D" when the
 * class runs the direct kernel (DK = 1, cl/gemm_direct.cl). */
static void fmt_class(const ctx_t *c, const row_t *r, char *buf, size_t len)
{
    const chg_device_t *dev = NULL;
    const size_t m = (size_t)(c->o.row ? r->shape.n : r->shape.m);
    const size_t n = (size_t)(c->o.row ? r->shape.m : r->shape.n), k = (size_t)r->shape.k;
    if (chg_queue_device(c->queue, &dev, NULL) != CLHGEMM_SUCCESS) {
        snprintf(buf, len, "%s", chg_shape_class_name(chg_shape_class(m, n, k)));
        return;
    }
    chg_gemm_choice_t ch;
    chg_tuned_gemm_shape(dev, r->dbl ? CHG_F64 : CHG_F32, m, n, k, &ch);
    if (ch.gp.dk) {
        snprintf(buf, len, "%s/D", chg_shape_class_name(ch.cls));
        return;
    }
    const int sl = chg_splitk_slices(dev, &ch.gp, m, n, k, ch.split_k);
    chg_splitk_t sk;
    if (sl > 1 && chg_splitk_plan(&ch.gp, m, n, k, sl, &sk))
        snprintf(buf, len, "%s/%d", chg_shape_class_name(ch.cls), sk.slices);
    else
        snprintf(buf, len, "%s", chg_shape_class_name(ch.cls));
}

static void print_summary(const ctx_t *c)
{
    const int show_cu = c->o.cublas, show_ob = c->o.openblas, show_def = c->o.defaults;
    printf("\n== summary: %s | %s | GFLOP/s from the median of %d reps, %s-major %c%c, alpha 1, beta %g ==\n",
           c->info.name, c->info.driver_version, c->o.reps, c->o.row ? "row" : "column",
           c->o.ta ? 'T' : 'N', c->o.tb ? 'T' : 'N', c->o.beta);
    printf("%-18s %-2s %-10s %10s", "m x n x k", "p", "class", "ours");
    if (show_def) printf(" %10s %8s", "defaults", "ours/def");
    printf(" %10s %7s", "CLBlast", "ours/CB");
    if (show_cu) printf(" %10s %7s", "cuBLAS", "ours/cu");
    if (show_ob) printf(" %10s", "OpenBLAS");
    printf("  %s\n", "check");
    for (int i = 0; i < c->nrows; i++) {
        const row_t *r = &c->rows[i];
        char shape[48], g0[24], g1[24], g2[24], g3[24], g4[24], q1[16], q2[16], q3[16], chk[40];
        snprintf(shape, sizeof shape, "%dx%dx%d", r->shape.m, r->shape.n, r->shape.k);
        fmt_gf(g0, sizeof g0, &r->shape, &r->r[LIB_OURS]);
        fmt_gf(g1, sizeof g1, &r->shape, &r->r[LIB_CLBLAST]);
        fmt_gf(g2, sizeof g2, &r->shape, &r->r[LIB_CUBLAS]);
        fmt_gf(g3, sizeof g3, &r->shape, &r->r[LIB_OPENBLAS]);
        fmt_ratio(q1, sizeof q1, &r->r[LIB_OURS], &r->r[LIB_CLBLAST]);
        fmt_ratio(q2, sizeof q2, &r->r[LIB_OURS], &r->r[LIB_CUBLAS]);
        fmt_gf(g4, sizeof g4, &r->shape, &r->r[LIB_DEFAULT]);
        fmt_ratio(q3, sizeof q3, &r->r[LIB_OURS], &r->r[LIB_DEFAULT]);
        int warn = 0;
        for (int l = 0; l < NLIBS; l++) {
            const result_t *x = &r->r[l];
            if ((!isnan(x->err) && !(x->err <= 1.0)) || (!isnan(x->err_ref) && !(x->err_ref <= 1.0))) warn = 1;
        }
        const result_t *o = &r->r[LIB_OURS];
        if (!o->ran) snprintf(chk, sizeof chk, "%s", o->note[0] && !strncmp(o->note, "skipped", 7) ? "skipped" : "FAIL");
        else if (isnan(o->err)) snprintf(chk, sizeof chk, "%s", warn ? "WARN" : "-");
        else snprintf(chk, sizeof chk, "%s %.2g", warn ? "WARN" : "ok", isnan(o->err_ref) ? o->err : fmax(o->err, o->err_ref));
        char cls[32];
        fmt_class(c, r, cls, sizeof cls);
        printf("%-18s %-2c %-10s %10s", shape, r->dbl ? 'd' : 's', cls, g0);
        if (show_def) printf(" %10s %8s", g4, q3);
        printf(" %10s %7s", g1, q1);
        if (show_cu) printf(" %10s %7s", g2, q2);
        if (show_ob) printf(" %10s", g3);
        printf("  %s\n", chk);
    }
    fflush(stdout);
}

/* ---- geometric means and the chart ---------------------------------------------------------- */

/* The competitors whose column is on, in print order. */
static int competitors(const opts_t *o, int *libs)
{
    int n = 0;
    if (o->clblast) libs[n++] = LIB_CLBLAST;
    if (o->cublas) libs[n++] = LIB_CUBLAS;
    if (o->openblas) libs[n++] = LIB_OPENBLAS;
    if (o->defaults) libs[n++] = LIB_DEFAULT;
    return n;
}

/* ours / lib (GFLOP/s, i.e. lib's median time over ours) of a row; NAN unless both ran. */
static double ratio_of(const row_t *r, int lib)
{
    const result_t *a = &r->r[LIB_OURS], *b = &r->r[lib];
    if (!a->ran || !b->ran || !(a->host.median > 0) || !(b->host.median > 0)) return NAN;
    return b->host.median / a->host.median;
}

/* Lines "geomean ours/LIB P VALUE (N of M shapes)" for each competitor whose column is on, per
 * precision that ran and over all rows: the geometric mean of ours / LIB over the shapes where
 * both have a figure (a shape where either has none is left out and the count says so). */
static void print_geomeans(const ctx_t *c)
{
    int libs[NLIBS], nl = competitors(&c->o, libs);
    if (!c->nrows) return;
    printf("\n");
    for (int i = 0; i < nl; i++) {
        const int lib = libs[i];
        char name[32];
        snprintf(name, sizeof name, "ours/%s", lib_title[lib]);
        for (int p = 0; p < 3; p++) { /* s, d, all */
            double sum = 0.0;
            int n = 0, total = 0;
            const char *why = NULL;
            for (int j = 0; j < c->nrows; j++) {
                const row_t *r = &c->rows[j];
                if (p < 2 && r->dbl != p) continue;
                total++;
                double q = ratio_of(r, lib);
                if (!isnan(q)) {
                    sum += log(q);
                    n++;
                } else if (!why && r->r[LIB_OURS].ran && r->r[lib].note[0]) {
                    why = r->r[lib].note;
                }
            }
            if (!total) continue;
            if (n)
                printf("geomean %-14s %-3s %7.3f  (%d of %d shapes)\n", name, p == 0 ? "s" : p == 1 ? "d" : "all",
                       exp(sum / n), n, total);
            else
                printf("geomean %-14s %-3s     n/a  (0 of %d shapes%s%s)\n", name,
                       p == 0 ? "s" : p == 1 ? "d" : "all", total, why ? ": " : "", why ? why : "");
        }
    }
    fflush(stdout);
}

/* Whether an executable named `name` is on PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char buf[4096];
        if (len > 0 && len + strlen(name) + 2 < sizeof buf) {
            memcpy(buf, path, len);
            buf[len] = '/';
            strcpy(buf + len + 1, name);
            if (access(buf, X_OK) == 0) return 1;
        }
        if (!end) break;
        path = end + 1;
    }
    return 0;
}

/* A gnuplot double-quoted string: backslash and quote escaped, a newline as \n, other control
 * characters dropped. */
static void gp_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '\n') fputs("\\n", f);
        else if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s >= 32) fputc(*s, f);
    }
    fputc('"', f);
}

/* --png: clustered bars of ours / competitor per shape (x: shapes in run order), one series per
 * competitor and precision that has a figure; a dashed line at 1 (above it: ours is faster). */
static void write_png(const ctx_t *c)
{
    const char *file = c->o.png;
    int libs[NLIBS], nl = competitors(&c->o, libs);
    shape_t *shapes = calloc((size_t)(c->nrows > 0 ? c->nrows : 1), sizeof *shapes);
    int nshapes = 0;
    if (!shapes) return;
    for (int j = 0; j < c->nrows; j++) {
        int seen = 0;
        for (int i = 0; i < nshapes && !seen; i++)
            seen = shapes[i].m == c->rows[j].shape.m && shapes[i].n == c->rows[j].shape.n &&
                   shapes[i].k == c->rows[j].shape.k;
        if (!seen) shapes[nshapes++] = c->rows[j].shape;
    }
    /* series: (lib, precision) with at least one ratio */
    int slib[2 * NLIBS], sdbl[2 * NLIBS], ns = 0;
    for (int i = 0; i < nl; i++)
        for (int d = 0; d < 2; d++) {
            int any = 0;
            for (int j = 0; j < c->nrows && !any; j++)
                any = c->rows[j].dbl == d && !isnan(ratio_of(&c->rows[j], libs[i]));
            if (any) {
                slib[ns] = libs[i];
                sdbl[ns++] = d;
            }
        }
    if (!ns) {
        printf("png: no shape has both ours and a competitor: no PNG\n");
        free(shapes);
        return;
    }
    if (!on_path("gnuplot")) {
        printf("gnuplot not found: no PNG\n");
        free(shapes);
        return;
    }
    fflush(stdout);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN); /* a gnuplot that dies must not kill the run */
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        printf("png: cannot start gnuplot (%s): no PNG\n", strerror(errno));
        signal(SIGPIPE, old);
        free(shapes);
        return;
    }
    const int width = 640 + nshapes * (24 + 10 * ns);
    fprintf(g, "set terminal png noenhanced size %d,720\nset output ", width > 4000 ? 4000 : width);
    gp_quoted(g, file);
    char title[1200];
    snprintf(title, sizeof title,
             "clhgemm-bench-gemm: ours / competitor (GFLOP/s, median of %d reps), %s-major %c%c, beta %g\n%s | %s | %s",
             c->o.reps, c->o.row ? "row" : "column", c->o.ta ? 'T' : 'N', c->o.tb ? 'T' : 'N',
             c->o.beta, c->info.name, c->info.driver_version, c->date);
    fprintf(g, "\nset title ");
    gp_quoted(g, title);
    fprintf(g, "\nset ylabel 'ours / competitor (above 1: ours faster)'\n"
               "set style data histograms\nset style histogram clustered gap 1\n"
               "set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
               "set xtics rotate by -50 scale 0 nomirror\nset grid ytics\nset yrange [0:*]\n"
               "set datafile missing '?'\nset key outside right top\nset bmargin 9\n"
               "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc rgb 'black' front\n");
    fprintf(g, "$D << EOD\n");
    for (int i = 0; i < nshapes; i++) {
        fprintf(g, "\"%dx%dx%d\"", shapes[i].m, shapes[i].n, shapes[i].k);
        for (int s = 0; s < ns; s++) {
            double q = NAN;
            for (int j = 0; j < c->nrows; j++) {
                const row_t *r = &c->rows[j];
                if (r->dbl == sdbl[s] && r->shape.m == shapes[i].m && r->shape.n == shapes[i].n &&
                    r->shape.k == shapes[i].k)
                    q = ratio_of(r, slib[s]);
            }
            if (isnan(q)) fprintf(g, " ?");
            else fprintf(g, " %.6g", q);
        }
        fprintf(g, "\n");
    }
    fprintf(g, "EOD\nplot ");
    for (int s = 0; s < ns; s++) {
        char t[64];
        snprintf(t, sizeof t, "%s ours/%s", sdbl[s] ? "d" : "s", lib_title[slib[s]]);
        fprintf(g, "%s$D using %d%s title ", s ? ", " : "", s + 2, s ? "" : ":xtic(1)");
        gp_quoted(g, t);
    }
    fprintf(g, "\n");
    int st = pclose(g);
    signal(SIGPIPE, old);
    if (st != 0) printf("png: gnuplot failed (status %d): no PNG written to %s\n", st, file);
    else printf("png: %s (%d shapes, %d series)\n", file, nshapes, ns);
    free(shapes);
}

/* ---- main --------------------------------------------------------------------------------- */

static int pick_device(const opts_t *o, clhgemm_device_info_t *out)
{
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(o->device_spec, NULL, 0, &count);
    if (st != CLHGEMM_SUCCESS || count == 0) {
        fprintf(stderr, "error: no OpenCL device%s%s%s: %s\n", o->device_spec ? " matches '" : "",
                o->device_spec ? o->device_spec : "", o->device_spec ? "'" : "",
                st != CLHGEMM_SUCCESS ? clhgemm_status_message(st) : "none found");
        return -1;
    }
    clhgemm_device_info_t *list = calloc(count, sizeof *list);
    if (!list) return -1;
    size_t got = 0;
    st = clhgemm_devices_get(o->device_spec, list, count, &got);
    if (st != CLHGEMM_SUCCESS || got == 0) {
        fprintf(stderr, "error: clhgemm_devices_get: %s\n", clhgemm_status_string(st));
        free(list);
        return -1;
    }
    if (got > count) got = count;
    if (o->list) {
        for (size_t i = 0; i < got; i++)
            printf("[%d] %s | %s | %s | %s | driver %s | %s\n", list[i].index, list[i].name,
                   list[i].vendor, list[i].platform_name, list[i].device_version,
                   list[i].driver_version,
                   list[i].kind == CLHGEMM_DEVICE_GPU ? "GPU"
                   : list[i].kind == CLHGEMM_DEVICE_CPU ? "CPU" : "other");
        free(list);
        exit(0);
    }
    size_t pick = 0;
    if (!o->device_spec)
        for (size_t i = 0; i < got; i++)
            if (list[i].kind == CLHGEMM_DEVICE_GPU) {
                pick = i;
                break;
            }
    *out = list[pick];
    free(list);
    return 0;
}

int main(int argc, char **argv)
{
    ctx_t c;
    memset(&c, 0, sizeof c);
    if (parse_args(argc, argv, &c.o)) return 2;
    const opts_t *o = &c.o;
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (pick_device(o, &c.info)) return 1;
    {
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(c.date, sizeof c.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }

    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)c.info.platform, 0};
    c.context = clCreateContext(props, 1, &c.info.device, NULL, NULL, &err);
    if (!c.context) {
        fprintf(stderr, "error: clCreateContext: %s\n", clhgemm_status_string(err));
        return 1;
    }
    c.queue = clCreateCommandQueue(c.context, c.info.device, o->profile ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
    if (!c.queue) {
        fprintf(stderr, "error: clCreateCommandQueue: %s\n", clhgemm_status_string(err));
        return 1;
    }

    /* Kernel parameters the library will use on this device. */
    for (int d = 0; d < 2; d++) {
#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
        chg_device_t dev;
        if (chg_device_query(c.info.device, &dev) == CLHGEMM_SUCCESS) {
            chg_gemm_params_t gp;
            chg_gemm_params_select(&dev, d ? CHG_F64 : CHG_F32, &gp);
            chg_gemm_params_format(&gp, c.params[d], sizeof c.params[d]);
            chg_gemm_params_default(&dev, d ? CHG_F64 : CHG_F32, &gp);
            chg_gemm_params_format(&gp, c.params_def[d], sizeof c.params_def[d]);
            chg_tuning_entry_t e;
            chg_tuning_lookup(&dev, d ? CHG_F64 : CHG_F32, &e);
            snprintf(c.tuning[d], sizeof c.tuning[d], "%s (%s)", chg_tuning_level_name(e.level),
                     e.source);
        } else {
            snprintf(c.params[d], sizeof c.params[d], "unknown (device query failed)");
        }
#else
        snprintf(c.params[d], sizeof c.params[d], "unknown (built without clhgemm_internal)");
#endif
    }

#ifdef CLHGEMM_HAVE_CLBLAST
    c.have_clblast = o->clblast;
#endif
#ifdef CLHGEMM_HAVE_CUBLAS
    if (o->cublas) {
        c.have_cublas = cublas_ref_available();
        if (c.have_cublas) snprintf(c.cublas_desc, sizeof c.cublas_desc, "%s", cublas_ref_description());
        else snprintf(c.cublas_desc, sizeof c.cublas_desc, "no CUDA device: %s", cublas_ref_last_error());
    }
#else
    snprintf(c.cublas_desc, sizeof c.cublas_desc, "not built with cuBLAS (no CUDA toolkit)");
#endif
#ifdef CLHGEMM_HAVE_OPENBLAS
    if (o->openblas) {
        c.have_openblas = 1;
        snprintf(c.openblas_desc, sizeof c.openblas_desc, "threads=%d core=%s",
                 openblas_get_num_threads ? openblas_get_num_threads() : -1,
                 openblas_get_corename ? openblas_get_corename() : "?");
    }
#else
    snprintf(c.openblas_desc, sizeof c.openblas_desc, "not built with OpenBLAS");
#endif

    printf("clhgemm-bench-gemm: clhgemm %s, %s\n", clhgemm_version(), c.date);
    printf("device    : [%d] %s | %s | %s\n", c.info.index, c.info.name, c.info.vendor, c.info.platform_name);
    printf("driver    : %s | %s\n", c.info.driver_version, c.info.device_version);
    printf("memory    : %.1f GiB global, %.1f GiB max alloc, %llu KiB local, %u CUs, fp64 %s\n",
           c.info.global_mem_bytes / 1073741824.0, c.info.max_alloc_bytes / 1073741824.0,
           c.info.local_mem_bytes / 1024, c.info.compute_units, c.info.has_fp64 ? "yes" : "no");
    printf("features  : %s\n", c.info.features);
    if (o->do_s) printf("params s  : %s  [tuning: %s]\n", c.params[0], c.tuning[0]);
    if (o->do_d && c.info.has_fp64) printf("params d  : %s  [tuning: %s]\n", c.params[1], c.tuning[1]);
    if (o->defaults && o->do_s) printf("defaults s: %s\n", c.params_def[0]);
    if (o->defaults && o->do_d && c.info.has_fp64) printf("defaults d: %s\n", c.params_def[1]);
    printf("CLBlast   : %s\n", c.have_clblast ? "yes (same buffers, same queue)"
                               : o->clblast  ? "n/a (not built with CLBlast)" : "off (--no-clblast)");
    printf("cuBLAS    : %s\n", !o->cublas ? "off (--no-cublas)" : c.have_cublas ? c.cublas_desc : "n/a");
    if (o->cublas && !c.have_cublas) printf("            (%s)\n", c.cublas_desc);
    if (o->cublas && c.have_cublas && (getenv("NVIDIA_TF32_OVERRIDE") || getenv("CUBLAS_EMULATE_SINGLE_PRECISION")))
        printf("            note: NVIDIA_TF32_OVERRIDE / CUBLAS_EMULATE_SINGLE_PRECISION is set\n");
    printf("OpenBLAS  : %s\n", !o->openblas ? "off (--openblas)" : c.have_openblas ? c.openblas_desc : "n/a (not built)");
    printf("run       : %s-major %c%c, alpha 1, beta %g, warm-up %d, reps %d (interleaved), host clock "
           "enqueue->wait%s\n",
           o->row ? "row" : "column", o->ta ? 'T' : 'N', o->tb ? 'T' : 'N', o->beta, o->warmup, o->reps,
           o->profile ? "; device time = marker start -> last event end" : "");
    if (o->sweep || o->scale != 1.0 || o->ndropped)
        printf("shapes    : %s%d square(s), %d shape(s); dimensions scaled by %g (rounded, at least 1)%s\n",
               o->sweep ? "sweep: " : "", o->nsquares, o->nrects, o->scale,
               o->ndropped ? ", duplicates dropped" : "");
    if (o->ndropped) printf("            %d shape(s) dropped as duplicates after scaling\n", o->ndropped);
    printf("check     : err = max|diff| / (max|ref| * k * eps), WARN above 1\n\n");

    if (o->csv) {
        c.csv = fopen(o->csv, "a");
        if (!c.csv) {
            fprintf(stderr, "error: cannot open %s: %s\n", o->csv, strerror(errno));
            return 1;
        }
        fseek(c.csv, 0, SEEK_END);
        if (ftell(c.csv) == 0)
            fprintf(c.csv, "date,device,driver,precision,m,n,k,library,median_ms,gflops,min_ms,max_ms,"
                           "params,layout,trans,reps,check_err,device_median_ms\n");
    }

    for (int d = 0; d < 2; d++) {
        if (d == 0 && !o->do_s) continue;
        if (d == 1 && !o->do_d) continue;
        if (d == 1 && !c.info.has_fp64) {
            printf("double: skipped (the device has no fp64)\n");
            continue;
        }
        for (int i = 0; i < o->nsquares; i++) bench_one(&c, o->squares[i], d);
        for (int i = 0; i < o->nrects; i++) bench_one(&c, o->rects[i], d);
    }

    int failures = 0;
    for (int i = 0; i < c.nrows; i++) {
        const result_t *r = &c.rows[i].r[LIB_OURS];
        if (!r->ran && strncmp(r->note, "skipped", 7)) failures++;
        for (int l = 0; l < NLIBS; l++) {
            const result_t *x = &c.rows[i].r[l];
            if ((!isnan(x->err) && !(x->err <= 1.0)) || (!isnan(x->err_ref) && !(x->err_ref <= 1.0)))
                failures++;
        }
    }
    print_summary(&c);
    print_geomeans(&c);
    if (o->png) write_png(&c);
    if (failures) printf("%d problem(s): see the WARN / failed lines above\n", failures);

    if (c.csv) fclose(c.csv);
    free(c.rows);
    clhgemm_release_resources();
#ifdef CLHGEMM_HAVE_CLBLAST
    if (c.have_clblast) CLBlastClearCache();
#endif
    clReleaseCommandQueue(c.queue);
    clReleaseContext(c.context);
    return failures ? 1 : 0;
}
