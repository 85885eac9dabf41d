/*
 * bench_host_sweep.c -- clhgemm-bench-host --sweep: host calls of every size, ours
 * (auto route) against ours on the device route, OpenBLAS alone, the device-only rate and the
 * host bound; table, CSV, gnuplot PNG (the mode as a whole: bench_host.c's top comment).
 *
 * This file is the mode's run: the sizes (scaled by --scale, capped by --max-n, repeats
 * dropped), then per precision, beta and size a case, its table line and CSV row, then the
 * legend, the last line "worst: ...", the PNG. The steps have their own files:
 * bench_host_sweep_env.c (the device's bus and copy rates and the two handles, made once),
 * bench_host_sweep_call.c (the ways of making the call and timing them), bench_host_sweep_case.c
 * (one case: the arrays, each way in turn, the checks, the bound), bench_host_sweep_report.c
 * (the title, the table, the CSV, the legend, the worst line) and bench_host_sweep_png.c (the
 * plot); bench_host_sweep_int.h is what they share.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_host_sweep.h"
#include "bench_host_sweep_int.h"

/* The sweep's sizes: --sizes times --scale (at least 1), those above --max-n left out, repeats
 * dropped; how many. */
static int sw_sizes(const opts_t *o, int sizes[MAX_SIZES])
{
    int ns = 0;
    for (int i = 0; i < o->nsizes; i++) {
        long v = lround(o->sizes[i] * o->scale);
        if (v < 1) v = 1;
        if (o->max_n && v > o->max_n) continue;
        int dup = 0;
        for (int j = 0; j < ns; j++) dup |= sizes[j] == (int)v;
        if (!dup) sizes[ns++] = (int)v;
    }
    return ns;
}

/* Every case of the options, in order (single before double, beta 0 before 0.5, sizes as
 * given): its table line and CSV row as it finishes. Returns the number of cases; *bad when
 * one failed. */
static int sw_cases(const opts_t *o, const sw_env_t *env, const int *sizes, int ns, FILE *csv,
                    sw_res_t *res, int *bad)
{
    int nres = 0;
    for (int dbl = 0; dbl < 2; dbl++) {
        if (dbl ? !o->do_d : !o->do_s) continue;
        if (dbl && !env->dev->info.has_fp64) {
            printf("d: skipped (the device has no fp64)\n");
            continue;
        }
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < ns; i++) {
                sw_res_t *r = &res[nres++];
                sw_case(o, env, dbl, sw_beta(b), sizes[i], r);
                *bad |= r->failed;
                sw_print_row(env, r);
                sw_csv_row(csv, env, r);
            }
    }
    return nres;
}

int run_sweep(opts_t *o)
{
    devctx_t dev;
    if (open_device(&dev)) return 1;

    int sizes[MAX_SIZES];
    const int ns = sw_sizes(o, sizes);
    if (!ns) {
        fprintf(stderr, "--sweep: no size left (--max-n %d)\n", o->max_n);
        return 2;
    }

    sw_env_t env;
    if (sw_env_open(o, &dev, &env)) return 1;
    char title[512];
    sw_print_title(o, &env, title, sizeof title);
    FILE *csv = sw_csv_open(o);

    sw_res_t *res = calloc(SWEEP_MAX_CASES, sizeof *res);
    if (!res) return 1;
    int bad = 0;
    sw_print_header(&env);
    const int nres = sw_cases(o, &env, sizes, ns, csv, res, &bad);
    if (csv) fclose(csv);
    sw_print_legend(&env, res, nres);
    sw_print_worst(res, nres);

    if (o->png) sw_png(o, title, res, nres);
    if (bad) printf("FAILED: a result was off or a call failed (see above)\n");
    free(res);
    clhgemm_destroy(env.hd);
    clhgemm_destroy(env.h);
    clReleaseCommandQueue(dev.q);
    clReleaseContext(dev.ctx);
    return bad ? 1 : 0;
}
