/*
 * bench_smallcall.c -- clhgemm-bench-smallcall: what a host call routed to the CPU costs next
 * to a direct OpenBLAS call on the same arrays (the CPU route's promise: "a call routed to the
 * CPU costs no more than a direct OpenBLAS call").
 *
 * For each precision, layout, transpose pair, beta (0, 0.5) and n (4 ... 64 by default), a
 * sample times `inner` back-to-back calls of clhgemm_{s,d}gemm on a handle (CLHGEMM_ROUTE as
 * the environment says: unset = auto, which sends such calls to the CPU) and as many of
 * cblas_{s,d}gemm, in alternating order; the figure of a case is the median over the samples of
 * ours / OpenBLAS (paired: both halves of a sample ran back to back). One line per precision,
 * beta and n: the geometric mean, lowest and highest of the eight layout x transpose cases'
 * medians and the median times of the first case; --detail prints every case. Before it is
 * timed, each case's result is checked against OpenBLAS's (FAILED and exit 1 otherwise).
 *
 *   clhgemm-bench-smallcall [--sizes 4,8,16] [--samples 31] [--sample-us 200] [--precision s|d|both]
 *                           [--detail] [--csv FILE] [--dropin PATH]
 *
 * --dropin PATH: "ours" is instead the BLAS drop-in's cblas_{s,d}gemm (PATH: the project's
 * libblas.so.3, loaded with dlopen(RTLD_LOCAL), so that this program's own CBLAS calls still
 * reach OpenBLAS): what numpy and every other CBLAS caller pay per small product through it, with
 * the drop-in's defaults (CLHGEMM_BLAS_OFFLOAD=auto, no stats).
 *
 * Which way a case went (CLHGEMM_TINY=auto): the library measures the kernel against OpenBLAS in
 * each cell of its table on the first small call in it (in the warm-up, not in the timed samples;
 * with CLHGEMM_VERBOSE=1 the whole table on the first small call) and
 * `CLHGEMM_VERBOSE=1 clhgemm-bench-smallcall --sizes 4 --samples 1` prints that table on stderr ("tiny:" lines: each cell's representative shape, ratio of times, '+'
 * for the kernel; not with timed runs: verbose logs every call's route); runs with
 * CLHGEMM_TINY=on and off time every case each way. The header line says CLHGEMM_TINY.
 *
 * Public API only (plus OpenBLAS's CBLAS).
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clhgemm.h"

#define MAX_SIZES 32
#define MAX_SAMPLES 1001

typedef struct opts_s {
    int sizes[MAX_SIZES], nsizes, samples, detail, prec_mask;
    double sample_us;
    const char *csv, *dropin;
} opts_t;

/* A CBLAS's GEMMs: OpenBLAS's (linked), and with --dropin the drop-in's (dlsym; NULL: "ours" is
 * clhgemm's host API on a handle). */
typedef struct cblas_gemms_s {
    __typeof__(cblas_dgemm) *d;
    __typeof__(cblas_sgemm) *s;
} cblas_gemms_t;
static const cblas_gemms_t g_openblas = {cblas_dgemm, cblas_sgemm};
static cblas_gemms_t g_dropin;

typedef struct sc_case_s {
    int dbl, n, layout, ta, tb;
    double beta;
    void *A, *B, *C;
    clhgemm_handle_t h;
} sc_case_t;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* inner calls of one CBLAS's GEMM on the case */
static void run_cblas(const cblas_gemms_t *g, const sc_case_t *c, int inner)
{
    const int n = c->n;
    for (int i = 0; i < inner; i++) {
        if (c->dbl)
            g->d(c->layout, c->ta, c->tb, n, n, n, 1.0, c->A, n, c->B, n, c->beta, c->C, n);
        else
            g->s(c->layout, c->ta, c->tb, n, n, n, 1.0f, c->A, n, c->B, n, (float)c->beta, c->C, n);
    }
}

static int run_ours(const sc_case_t *c, int inner)
{
    const int n = c->n;
    if (g_dropin.d) {
        run_cblas(&g_dropin, c, inner);
        return 0;
    }
    for (int i = 0; i < inner; i++) {
        clhgemm_status_t st =
            c->dbl ? clhgemm_dgemm(c->h, c->layout, c->ta, c->tb, n, n, n, 1.0, c->A, n, c->B, n, c->beta, c->C, n)
                   : clhgemm_sgemm(c->h, c->layout, c->ta, c->tb, n, n, n, 1.0f, c->A, n, c->B, n, (float)c->beta,
                                   c->C, n);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "clhgemm_%cgemm: %s\n", c->dbl ? 'd' : 's', clhgemm_status_string(st));
            return 1;
        }
    }
    return 0;
}

static int run_ob(const sc_case_t *c, int inner)
{
    run_cblas(&g_openblas, c, inner);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One case: *ratio the median of ours/OpenBLAS over the samples, *t_ours and *t_ob the median
 * nanoseconds per call. Returns 0, or 1 when a call failed. */
static int time_case(const opts_t *o, const sc_case_t *c, double *ratio, double *t_ours, double *t_ob)
{
    /* inner: enough calls that a sample lasts about sample_us (OpenBLAS's time, warm) */
    int inner = 1;
    run_ours(c, 50);
    run_ob(c, 50);
    for (;;) {
        const double t0 = now_ns();
        run_ob(c, inner);
        if (now_ns() - t0 >= o->sample_us * 1e3 || inner >= (1 << 20)) break;
        inner *= 2;
    }
    static double r[MAX_SAMPLES], a[MAX_SAMPLES], b[MAX_SAMPLES];
    for (int s = 0; s < o->samples; s++) {
        double ta = 0, tb = 0;
        for (int half = 0; half < 2; half++) {
            const int ours = (half == 0) == (s % 2 == 0);
            const double t0 = now_ns();
            if (ours ? run_ours(c, inner) : run_ob(c, inner)) return 1;
            const double t = (now_ns() - t0) / inner;
            if (ours) ta = t; else tb = t;
        }
        r[s] = ta / tb;
        a[s] = ta;
        b[s] = tb;
    }
    *ratio = median(r, o->samples);
    *t_ours = median(a, o->samples);
    *t_ob = median(b, o->samples);
    return 0;
}

static void fill(void *p, size_t count, int dbl, unsigned seed)
{
    for (size_t i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        const double v = (double)(seed >> 8) / (double)(1u << 24) - 0.5;
        if (dbl) ((double *)p)[i] = v; else ((float *)p)[i] = (float)v;
    }
}

/* One call of each way from the same C (0.25 everywhere): 0 when they agree within a tolerance
 * that scales with n (both accumulate in the precision of the call), else a FAILED line and 1. */
static int check_case(const sc_case_t *c)
{
    const size_t nn = (size_t)c->n * c->n, es = c->dbl ? 8 : 4;
    char *mine = malloc(2 * nn * es), *ref = mine + nn * es;
    if (!mine) return 1;
    for (size_t i = 0; i < nn; i++) {
        if (c->dbl) ((double *)mine)[i] = ((double *)ref)[i] = 0.25;
        else ((float *)mine)[i] = ((float *)ref)[i] = 0.25f;
    }
    sc_case_t a = *c, b = *c;
    a.C = mine;
    b.C = ref;
    int bad = run_ours(&a, 1);
    run_ob(&b, 1);
    const double eps = c->dbl ? 2.2e-16 : 1.2e-7, tol = 4.0 * (c->n + 2) * eps * (0.25 * c->n + 1.0);
    for (size_t i = 0; i < nn && !bad; i++) {
        const double x = c->dbl ? ((double *)mine)[i] : ((float *)mine)[i];
        const double y = c->dbl ? ((double *)ref)[i] : ((float *)ref)[i];
        if (!(fabs(x - y) <= tol)) {
            printf("FAILED: %c %s %c%c beta %.1f n %d: C[%zu] = %.9g, OpenBLAS %.9g\n", c->dbl ? 'd' : 's',
                   c->layout == CblasColMajor ? "col" : "row", c->ta == CblasTrans ? 'T' : 'N',
                   c->tb == CblasTrans ? 'T' : 'N', c->beta, c->n, i, x, y);
            bad = 1;
        }
    }
    free(mine);
    return bad;
}

static int usage(void)
{
    fprintf(stderr, "usage: clhgemm-bench-smallcall [--sizes 4,8,...] [--samples N] [--sample-us US] "
                    "[--precision s|d|both] [--detail] [--csv FILE] [--dropin PATH]\n");
    return 2;
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    static const int def[] = {4, 8, 16, 24, 32, 48, 64};
    *o = (opts_t){.samples = 31, .sample_us = 200, .prec_mask = 3, .nsizes = 7};
    memcpy(o->sizes, def, sizeof def);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--detail")) { o->detail = 1; continue; }
        if (!v) return usage();
        i++;
        if (!strcmp(a, "--sizes")) {
            o->nsizes = 0;
            for (char *s = (char *)v; *s && o->nsizes < MAX_SIZES;) {
                char *end;
                const long n = strtol(s, &end, 10);
                if (end == s || n < 1 || n > 4096) return usage();
                o->sizes[o->nsizes++] = (int)n;
                s = *end == ',' ? end + 1 : end;
                if (*end && *end != ',') return usage();
            }
        } else if (!strcmp(a, "--samples")) {
            o->samples = atoi(v);
            if (o->samples < 1 || o->samples > MAX_SAMPLES) return usage();
        } else if (!strcmp(a, "--sample-us")) {
            o->sample_us = atof(v);
            if (!(o->sample_us > 0)) return usage();
        } else if (!strcmp(a, "--precision")) {
            o->prec_mask = !strcmp(v, "s") ? 1 : !strcmp(v, "d") ? 2 : !strcmp(v, "both") ? 3 : 0;
            if (!o->prec_mask) return usage();
        } else if (!strcmp(a, "--csv")) {
            o->csv = v;
        } else if (!strcmp(a, "--dropin")) {
            o->dropin = v;
        } else {
            return usage();
        }
    }
    return 0;
}

/* The eight layout x transpose cases of one precision, beta and n: one summary line. */
static int run_size(const opts_t *o, clhgemm_handle_t h, int dbl, double beta, int n, FILE *csv)
{
    static const int layouts[2] = {CblasColMajor, CblasRowMajor}, trans[2] = {CblasNoTrans, CblasTrans};
    const size_t es = dbl ? 8 : 4, nn = (size_t)n * n;
    char *buf = malloc(3 * nn * es);
    if (!buf) return 1;
    fill(buf, 3 * nn, dbl, (unsigned)n * 7u + (unsigned)dbl);
    double lg = 0, lo = INFINITY, hi = 0, first_ours = 0, first_ob = 0;
    for (int c8 = 0; c8 < 8; c8++) {
        const sc_case_t c = {.dbl = dbl, .n = n, .layout = layouts[c8 >> 2], .ta = trans[(c8 >> 1) & 1],
                             .tb = trans[c8 & 1], .beta = beta, .A = buf, .B = buf + nn * es,
                             .C = buf + 2 * nn * es, .h = h};
        double r, ta, tb;
        if (check_case(&c) || time_case(o, &c, &r, &ta, &tb)) {
            free(buf);
            return 1;
        }
        lg += log(r);
        lo = fmin(lo, r);
        hi = fmax(hi, r);
        if (c8 == 0) { first_ours = ta; first_ob = tb; }
        const char *lname = c.layout == CblasColMajor ? "col" : "row";
        const char tan = c.ta == CblasTrans ? 'T' : 'N', tbn = c.tb == CblasTrans ? 'T' : 'N';
        if (o->detail)
            printf("   %c %s %c%c beta %.1f n %3d: ours %8.1f ns  OpenBLAS %8.1f ns  ratio %.3f\n", dbl ? 'd' : 's',
                   lname, tan, tbn, beta, n, ta, tb, r);
        if (csv)
            fprintf(csv, "%c,%s,%c%c,%.1f,%d,%.1f,%.1f,%.4f\n", dbl ? 'd' : 's', lname, tan, tbn, beta, n, ta, tb, r);
    }
    printf("%c beta %.1f n %3d: ours/OpenBLAS geomean %.3f (%.3f .. %.3f over layout x trans); col NN: ours "
           "%.1f ns, OpenBLAS %.1f ns\n", dbl ? 'd' : 's', beta, n, exp(lg / 8), lo, hi, first_ours, first_ob);
    fflush(stdout);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    opts_t o;
    if (parse_args(argc, argv, &o)) return 2;
    clhgemm_handle_t h = NULL;
    void *lib = NULL;
    if (o.dropin) {
        lib = dlopen(o.dropin, RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            *(void **)&g_dropin.d = dlsym(lib, "cblas_dgemm");
            *(void **)&g_dropin.s = dlsym(lib, "cblas_sgemm");
        }
        if (!lib || !g_dropin.d || !g_dropin.s || !dlsym(lib, "clhgemm_blas_dropin")) {
            fprintf(stderr, "--dropin %s: not the clhgemm BLAS drop-in (%s)\n", o.dropin, lib ? "no such symbols" : dlerror());
            return 1;
        }
    } else {
        clhgemm_status_t st = clhgemm_create(&h, NULL);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "clhgemm_create: %s\n", clhgemm_status_string(st));
            return 1;
        }
    }
    const char *route = getenv("CLHGEMM_ROUTE"), *tiny = getenv("CLHGEMM_TINY");
    printf("# clhgemm-bench-smallcall: ours = %s%s; CLHGEMM_ROUTE=%s CLHGEMM_TINY=%s, OpenBLAS %s (%s), %d threads; "
           "%d samples of ~%.0f us, median of paired ratios\n", o.dropin ? "cblas_?gemm of " : "clhgemm_?gemm",
           o.dropin ? o.dropin : "", route ? route : "(unset)", tiny ? tiny : "(unset)",
           openblas_get_config(), openblas_get_corename(), openblas_get_num_threads(), o.samples, o.sample_us);
    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (o.csv && !csv) perror(o.csv);
    if (csv) fprintf(csv, "prec,layout,trans,beta,n,ours_ns,openblas_ns,ratio\n");
    int rc = 0;
    for (int dbl = 0; dbl < 2 && !rc; dbl++) {
        if (!(o.prec_mask & (1 << dbl))) continue;
        for (int bi = 0; bi < 2 && !rc; bi++)
            for (int i = 0; i < o.nsizes && !rc; i++) rc = run_size(&o, h, dbl, bi ? 0.5 : 0.0, o.sizes[i], csv);
    }
    if (csv) fclose(csv);
    if (h) clhgemm_destroy(h);
    /* the drop-in stays loaded: its exit handlers (stats, the CPU BLAS) run at exit */
    (void)lib;
    return rc;
}
