/*
 * bench_host_cpushare.c -- clhgemm-bench-host --cpu-share: per size and precision, on
 * the same arrays in the same run, one handle at a time, the GPU-only handle, the CPU share auto
 * and at a forced fraction under each scheduler (slab, strips: CLHGEMM_CPU_SCHED set per case
 * and restored after), and OpenBLAS alone on a slab of rows; each hybrid's first result checked
 * (the cheap check, bench_host_problem.c), the model's predicted time next to the measured, a
 * table per size and a CSV line per case (--cpu-csv). The only file of the per-size runs that
 * calls OpenBLAS itself.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_host_priv.h"
#include "common/bench_util.h"

#ifdef CLHGEMM_HAVE_OPENBLAS
#include <cblas.h>
#endif

#define CS_MAX_CASES 8

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

/* One problem of --cpu-share: its arrays, the cheap check's vectors, the timings' scratch. */
typedef struct cs_problem_s {
    const opts_t *o;
    int n, dbl;
    void *A, *B, *C;
    bh_cheap_t cheap;
    double *times; /* --warmup + --reps + 1 */
} cs_problem_t;

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

/* The handle cases: GPU-only, auto under each scheduler, and --cpu-fraction's under each. */
static int cs_cases(const opts_t *o, cs_case_t *cases)
{
    int nc = 0;
    memset(cases, 0, CS_MAX_CASES * sizeof *cases);
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
    return nc;
}

/* One handle case: a handle with the case's share (its scheduler already in the environment),
 * C0 filled again, --warmup + --reps calls, the first checked. 1 when it failed or was off. */
static int cs_run_case(cs_problem_t *p, cs_case_t *c)
{
    const opts_t *o = p->o;
    const int n = p->n, dbl = p->dbl, total = o->warmup + o->reps;
    int bad = 0;
    clhgemm_options_t opt;
    clhgemm_options_init(&opt);
    opt.cpu_share = c->share;
    clhgemm_handle_t h = NULL;
    clhgemm_status_t st = clhgemm_create(&h, &opt);
    if (st == CLHGEMM_SUCCESS) bh_fill_abc(o->threads, dbl, n, NULL, NULL, p->C); /* C0 again */
    int nt = 0;
    for (int i = 0; i < total && st == CLHGEMM_SUCCESS; i++) {
        const double a = now_ms();
        st = bh_ours_call(h, o, dbl, n, p->A, p->B, p->C);
        const double ms = now_ms() - a;
        if (st != CLHGEMM_SUCCESS) break;
        if (i >= o->warmup) p->times[nt++] = ms;
        if (i == 0) { /* C = alpha op(A) op(B) + beta C0: C t = w + 0.5 y0 */
            c->check = bh_cheap_eval(&p->cheap, p->C);
            if (!(c->check <= 1.0)) {
                bad = 1;
                printf("  WARN n=%d %s %s: cheap check %.3g (1.0 = tolerance)\n", n, dbl ? "d" : "s",
                       c->name, c->check);
            }
        }
    }
    if (st == CLHGEMM_SUCCESS && nt > 0) {
        c->t = stats_of(p->times, nt);
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
    return bad;
}

/* OpenBLAS alone on a slab of --cpu-slab rows of the same problem (column-major NN): the full
 * product at the sizes this mode is for would take minutes. */
static void cs_cpu_only(cs_problem_t *p, cs_case_t *c)
{
    snprintf(c->name, sizeof c->name, "cpu-only");
    c->sched = "";
    c->check = NAN;
    c->slab_rows = p->o->cpu_slab < p->n ? p->o->cpu_slab : p->n;
#ifdef CLHGEMM_HAVE_OPENBLAS
    const opts_t *o = p->o;
    const int n = p->n, dbl = p->dbl, total = o->warmup + o->reps;
    c->threads = openblas_get_num_threads();
    const int R = c->slab_rows;
    int nt = 0;
    for (int i = 0; i < total && p->times; i++) {
        const double a = now_ms();
        if (dbl)
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, R, n, n, 1.0, p->A, n, p->B, n,
                        0.5, p->C, n);
        else
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, R, n, n, 1.0f, p->A, n, p->B, n,
                        0.5f, p->C, n);
        if (i >= o->warmup) p->times[nt++] = now_ms() - a;
    }
    if (nt > 0) {
        c->t = stats_of(p->times, nt);
        c->gflops = 2.0 * R * (double)n * n / (c->t.median * 1e-3) * 1e-9;
        printf("  n=%d %s %-12s %9.1f GFLOP/s (median %.1f ms) on a %d x %d slab of C, OpenBLAS %d threads\n",
               n, dbl ? "d" : "s", c->name, c->gflops, c->t.median, R, n, c->threads);
    }
#else
    snprintf(c->why, sizeof c->why, "built without OpenBLAS");
#endif
}

/* The per-size table, and hybrid auto over GPU-only under each scheduler. */
static void cs_table(int n, int dbl, const cs_case_t *cases, int nc)
{
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
}

/* Every case of one size and precision: 1 when a check warned or a case failed. */
static int bench_cpushare(const opts_t *o, int n, int dbl)
{
    const size_t bytes = (size_t)n * (size_t)n * (dbl ? 8 : 4);
    unsigned long long avail = host_available();
    if (avail && 3.0 * (double)bytes + 64e6 > 0.95 * (double)avail) {
        printf("  n=%d %s: skipped: A, B, C need %.1f GB\n", n, dbl ? "d" : "s", 3.0 * bytes * 1e-9);
        return 0;
    }
    cs_problem_t p = {.o = o, .n = n, .dbl = dbl};
    p.A = malloc(bytes);
    p.B = malloc(bytes);
    p.C = malloc(bytes);
    bh_cheap_alloc(&p.cheap, n);
    int bad = 0;
    if (!p.A || !p.B || !p.C || !p.cheap.vec) {
        printf("  n=%d %s: skipped: host allocation failed\n", n, dbl ? "d" : "s");
        goto out;
    }
    double t0 = now_ms();
    bh_fill_abc(o->threads, dbl, n, p.A, p.B, p.C);
    /* The cheap check's vectors: y0 = C0 t and w = A (B t), the same for every case. */
    bh_cheap_prepare(&p.cheap, o, dbl, p.C);
    bh_cheap_ab(&p.cheap, p.A, p.B);
    printf("  n=%d %s: filled 3 x %.2f GB and prepared the check in %.1f s\n", n, dbl ? "d" : "s",
           bytes * 1e-9, (now_ms() - t0) * 1e-3);

    cs_case_t cases[CS_MAX_CASES];
    int nc = cs_cases(o, cases);
    p.times = malloc((size_t)(o->warmup + o->reps + 1) * sizeof(double));
    char *saved_sched = getenv("CLHGEMM_CPU_SCHED") ? strdup(getenv("CLHGEMM_CPU_SCHED")) : NULL;
    for (int ci = 0; ci < nc && p.times; ci++) {
        cases[ci].check = NAN;
        setenv("CLHGEMM_CPU_SCHED", cases[ci].sched, 1);
        bad |= cs_run_case(&p, &cases[ci]);
        cs_csv(o, n, dbl, &cases[ci]);
    }
    if (saved_sched) setenv("CLHGEMM_CPU_SCHED", saved_sched, 1);
    else unsetenv("CLHGEMM_CPU_SCHED");
    free(saved_sched);
    cs_cpu_only(&p, &cases[nc]);
    cs_csv(o, n, dbl, &cases[nc]);
    cs_table(n, dbl, cases, nc + 1);
    free(p.times);
out:
    free(p.A);
    free(p.B);
    free(p.C);
    free(p.cheap.vec);
    return bad;
}

/* --cpu-share: every size (default 16384 and 32768) and precision of the options. */
int bh_run_cpushare(opts_t *o)
{
    char blas[320];
    printf("clhgemm-bench-host --cpu-share: clhgemm %s; OpenBLAS %s; CPU-only slab %d rows; "
           "median of %d (warm-up %d)\n",
           clhgemm_version(), blas_desc(blas, sizeof blas), o->cpu_slab, o->reps, o->warmup);
    if (!o->sizes_given) {
        o->nsizes = 2;
        o->sizes[0] = 16384;
        o->sizes[1] = 32768;
    }
    int bad = 0;
    for (int i = 0; i < o->nsizes; i++)
        for (int dbl = 0; dbl < 2; dbl++) {
            if (dbl ? !o->do_d : !o->do_s) continue;
            printf("n=%d %s:\n", o->sizes[i], dbl ? "double" : "single");
            bad |= bench_cpushare(o, o->sizes[i], dbl);
        }
    return bad ? 1 : 0;
}
