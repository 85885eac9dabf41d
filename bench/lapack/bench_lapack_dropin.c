/*
 * bench_lapack_dropin.c -- clhgemm-bench-lapack-dropin: the LAPACK drop-in's dpotrf_, dgetrf_
 * and dgeqrf_ (and the s ones) called as a Fortran program calls them, next to the library's own
 * clhgemm_{s,d}potrf/getrf/geqrf on a handle and OpenBLAS's LAPACK, in one process, every result
 * checked. It tells what the drop-in itself costs (its checks, its decision, its own handle)
 * apart from what a client such as numpy adds around the LAPACK call (copies, layout changes):
 * bench/numpy/lapack_numpy.py times the same routines through numpy.
 *
 *   clhgemm-bench-lapack-dropin --dropin PATH [--routines potrf,getrf,geqrf] [--prec s|d|both]
 *       [--sizes N,...] [--reps R] [--no-openblas-above N]
 *
 * PATH is the drop-in's liblapack.so.3, loaded with dlopen(RTLD_LOCAL) so that this program's
 * own LAPACK symbols stay OpenBLAS's (linked: the third column). The drop-in routes as
 * CLHGEMM_LAPACK_OFFLOAD says (default auto: the library's routing, the same decision as the
 * handle's with CLHGEMM_ROUTE unset); it has a handle of its own, so both keep the devices'
 * programs and buffers between calls. Per routine, precision and size, in this order: the
 * drop-in, ours on a handle, OpenBLAS (up to --no-openblas-above, default 16384); one warm-up
 * call each at the first size (kernel builds, buffers; at n = 32768 a second untimed call would
 * cost as much as the timed ones), then --reps timed calls (default 3) on fresh copies of the
 * input (the copy not timed), the median as GFLOP/s by LAPACK's counts. The matrices and the backward-error check are
 * clhgemm-bench-lapack's (bench_lapack_problem.c); a result beyond its tolerance prints FAILED
 * and makes the exit status 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_lapack_int.h"
#include "cli.h"

enum { D_DROPIN, D_OURS, D_OB, ND };
static const char *const g_col[ND] = {"drop-in", "ours", "openblas"};

typedef void (*potrf_f)(const char *, const int *, void *, const int *, int *, size_t);
typedef void (*getrf_f)(const int *, const int *, void *, const int *, int *, int *);
typedef void (*geqrf_f)(const int *, const int *, void *, const int *, void *, void *,
                        const int *, int *);

/* The drop-in's routines, [routine][dbl]. */
static void *g_fn[NR][2];

typedef struct opts_s {
    const char *dropin;
    int routine[NR], do_s, do_d, sizes[BL_MAX_SIZES], nsizes, reps, ob_max;
} opts_t;

static int usage(void)
{
    fprintf(stderr, "usage: clhgemm-bench-lapack-dropin --dropin PATH [--routines potrf,getrf,geqrf] "
                    "[--prec s|d|both] [--sizes N,...] [--reps R] [--no-openblas-above N]\n");
    return 2;
}

static int parse(int argc, char **argv, opts_t *o)
{
    static const char *const names[] = {"--dropin",  "--routines", "--prec", "--sizes",
                                        "--reps",    "--no-openblas-above", NULL};
    *o = (opts_t){.routine = {1, 1, 1}, .do_s = 0, .do_d = 1, .reps = 3, .ob_max = 16384,
                  .sizes = {1024, 2048, 4096, 8192, 16384, 32768}, .nsizes = 6};
    for (int i = 1; i < argc; i++) {
        const char *name, *v;
        if (cli_take_value(argc, argv, &i, names, "clhgemm-bench-lapack-dropin", &name, &v))
            return -1;
        if (!v) {
            fprintf(stderr, "clhgemm-bench-lapack-dropin: unknown argument %s\n", name);
            return -1;
        }
        if (!strcmp(name, "--dropin")) {
            o->dropin = v;
        } else if (!strcmp(name, "--routines")) {
            for (int r = 0; r < NR; r++) o->routine[r] = strstr(v, bl_rname[r]) != NULL;
        } else if (!strcmp(name, "--prec")) {
            o->do_s = !strcmp(v, "s") || !strcmp(v, "both");
            o->do_d = !strcmp(v, "d") || !strcmp(v, "both");
            if (!o->do_s && !o->do_d) return -1;
        } else if (!strcmp(name, "--sizes")) {
            o->nsizes = cli_int_list(v, 1, 1 << 20, o->sizes, BL_MAX_SIZES);
            if (o->nsizes <= 0) return -1;
        } else if (!strcmp(name, "--reps")) {
            if (cli_count(v, &o->reps) || o->reps < 1) return -1;
        } else if (cli_count(v, &o->ob_max)) { /* --no-openblas-above */
            return -1;
        }
    }
    return o->dropin ? 0 : -1;
}

static int load_dropin(const char *path)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib || !dlsym(lib, "clhgemm_lapack_dropin")) {
        fprintf(stderr, "--dropin %s: not the clhgemm LAPACK drop-in (%s)\n", path,
                lib ? "no marker clhgemm_lapack_dropin" : dlerror());
        return -1;
    }
    static const char *const sym[NR][2] = {{"spotrf_", "dpotrf_"}, {"sgetrf_", "dgetrf_"},
                                           {"sgeqrf_", "dgeqrf_"}};
    for (int r = 0; r < NR; r++)
        for (int d = 0; d < 2; d++)
            if (!(g_fn[r][d] = dlsym(lib, sym[r][d]))) return -1;
    return 0;
}

/* One call of column col on p->w (the problem's fresh copy); its status, 0 when it ran. */
static int call(bl_ctx_t *c, bl_prob_t *p, int col, int *info)
{
    const int n = p->n, d = p->dbl;
    *info = 0;
    if (col == D_OURS) {
        const clhgemm_layout_t L = CLHGEMM_COL_MAJOR;
        clhgemm_status_t st;
        if (p->r == R_POTRF)
            st = d ? clhgemm_dpotrf(c->handle, L, CLHGEMM_LOWER, n, p->w, n, info)
                   : clhgemm_spotrf(c->handle, L, CLHGEMM_LOWER, n, p->w, n, info);
        else if (p->r == R_GETRF)
            st = d ? clhgemm_dgetrf(c->handle, L, n, n, p->w, n, p->ipiv, info)
                   : clhgemm_sgetrf(c->handle, L, n, n, p->w, n, p->ipiv, info);
        else
            st = d ? clhgemm_dgeqrf(c->handle, L, n, n, p->w, n, p->tau)
                   : clhgemm_sgeqrf(c->handle, L, n, n, p->w, n, p->tau);
        return st == CLHGEMM_SUCCESS ? 0 : -1;
    }
    if (p->r == R_POTRF) {
        if (col == D_DROPIN) ((potrf_f)g_fn[R_POTRF][d])("L", &n, p->w, &n, info, 1);
        else if (d) dpotrf_("L", &n, p->w, &n, info, 1);
        else spotrf_("L", &n, p->w, &n, info, 1);
        return 0;
    }
    if (p->r == R_GETRF) {
        if (col == D_DROPIN) ((getrf_f)g_fn[R_GETRF][d])(&n, &n, p->w, &n, p->ipiv, info);
        else if (d) dgetrf_(&n, &n, p->w, &n, p->ipiv, info);
        else sgetrf_(&n, &n, p->w, &n, p->ipiv, info);
        return 0;
    }
    /* geqrf: the workspace LAPACK asks for (the drop-in answers the query as the CPU LAPACK) */
    double q = 0;
    float qf = 0;
    int lwork = -1;
    geqrf_f f = col == D_DROPIN ? (geqrf_f)g_fn[R_GEQRF][d] : d ? (geqrf_f)dgeqrf_ : (geqrf_f)sgeqrf_;
    f(&n, &n, p->w, &n, p->tau, d ? (void *)&q : (void *)&qf, &lwork, info);
    lwork = (int)(d ? q : (double)qf);
    if (lwork < n) lwork = n;
    void *work = malloc((size_t)lwork * p->es);
    if (!work) return -1;
    f(&n, &n, p->w, &n, p->tau, work, &lwork, info);
    free(work);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Column col at one problem: a warm-up call where asked, reps timed calls, the check of the
 * last; the median ms, or a negative value when a call failed (*bad set), and *bad when its
 * check failed. */
static double run_col(bl_ctx_t *c, bl_prob_t *p, int col, int warm, int reps, double *berr, int *bad)
{
    double ms[64];
    int info = 0;
    *bad = 0;
    if (reps > 64) reps = 64;
    for (int k = warm ? -1 : 0; k < reps; k++) {
        if (p->lowmem) bl_refill(c, p, p->row); /* one host copy: the input made afresh */
        else bl_copy(c->threads, p->w, p->a0, p->elems * p->es);
        const double t0 = bl_now_ms();
        if (call(c, p, col, &info) != 0) {
            *bad = 1;
            return -1;
        }
        if (k >= 0) ms[k] = bl_now_ms() - t0;
    }
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_double);
    *berr = bl_berr(c, p, p->w, p->r == R_GETRF ? p->ipiv : NULL, p->r == R_GEQRF ? p->tau : NULL);
    *bad = info != 0 || !(*berr <= BL_BERR_FAIL);
    return ms[reps / 2];
}

int main(int argc, char **argv)
{
    opts_t o;
    if (parse(argc, argv, &o) != 0) return usage();
    if (load_dropin(o.dropin) != 0) return 1;
    bl_ctx_t c = {0};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c.threads = cores > 1 ? (int)(cores > 32 ? 32 : cores) : 1;
    clhgemm_status_t st = clhgemm_create(&c.handle, NULL);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm_create: %s\n", clhgemm_status_message(st));
        return 1;
    }
    const char *off = getenv("CLHGEMM_LAPACK_OFFLOAD"), *route = getenv("CLHGEMM_ROUTE");
    printf("drop-in %s (CLHGEMM_LAPACK_OFFLOAD=%s), ours on a handle (CLHGEMM_ROUTE=%s), OpenBLAS "
           "up to n = %d; median of %d calls, GFLOP/s by LAPACK's counts\n",
           o.dropin, off ? off : "(unset: auto)", route ? route : "(unset: auto)", o.ob_max, o.reps);
    printf("%-6s %-5s %6s %20s %20s %20s %10s\n", "prec", "rout", "n", "drop-in ms (GF/s)",
           "ours ms (GF/s)", "openblas ms (GF/s)", "drop/ours");
    int failed = 0;
    for (int r = 0; r < NR; r++)
        for (int d = 0; d < 2; d++) {
            if (!o.routine[r] || !(d ? o.do_d : o.do_s)) continue;
            for (int s = 0; s < o.nsizes; s++) {
                bl_prob_t p;
                char why[160];
                if (bl_prob_make(&c, &p, r, d, o.sizes[s], why, sizeof why) != 0) {
                    printf("%-6s %-5s %6d skipped: %s\n", d ? "double" : "single", bl_rname[r], o.sizes[s], why);
                    continue;
                }
                double ms[ND], berr[ND];
                char cell[ND][40];
                for (int col = 0; col < ND; col++) {
                    int bad = 0;
                    berr[col] = 0;
                    ms[col] = col == D_OB && p.n > o.ob_max
                                  ? -1
                                  : run_col(&c, &p, col, s == 0, o.reps, &berr[col], &bad);
                    if (ms[col] < 0)
                        snprintf(cell[col], sizeof cell[col], "%s", bad ? "FAILED (call)" : "-");
                    else
                        snprintf(cell[col], sizeof cell[col], "%.1f (%.0f)%s", ms[col],
                                 bl_flops(r, p.n) / ms[col] * 1e-6, bad ? " FAILED" : "");
                    if (bad) {
                        failed = 1;
                        fprintf(stderr, "%s %s n = %d: %s FAILED (scaled backward error %.3g)\n",
                                d ? "double" : "single", bl_rname[r], p.n, g_col[col], berr[col]);
                    }
                }
                printf("%-6s %-5s %6d %20s %20s %20s %10.3f\n", d ? "double" : "single", bl_rname[r],
                       p.n, cell[D_DROPIN], cell[D_OURS], cell[D_OB],
                       ms[D_DROPIN] > 0 && ms[D_OURS] > 0 ? ms[D_DROPIN] / ms[D_OURS] : 0.0);
                fflush(stdout);
                bl_prob_free(&p);
            }
        }
    clhgemm_destroy(c.handle);
    printf("checks: %s\n", failed ? "FAILED" : "ok");
    return failed;
}
