/*
 * bench_host_priv.h -- what the files of clhgemm-bench-host's per-size runs and --cpu-share
 * share (bench_host.c and bench_host_{opts,problem,run,size,output,cpushare}.c; the sweep has its
 * own, bench_host_sweep.h): the per-size result, the cheap check's vectors, and the functions one
 * of these files defines for another, prefixed bh_. Named apart from bench_host.c, it is a
 * module of its own, so that main's file and the files it calls do not form a cycle.
 */
#ifndef CLHGEMM_BENCH_HOST_PRIV_H
#define CLHGEMM_BENCH_HOST_PRIV_H

#include <stddef.h>
#include <stdio.h>

#include "common/host_common.h"

/* One size and precision of the default mode: every column's statistics, or why it has none. */
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

static inline double bh_ours_gf(const result_t *r)
{
    return r->ours.ok ? gflops(r->n, r->ours.median) : 0;
}

/* BLIS's cheap check of C = alpha op(A) op(B) + beta C0 (alpha 1, beta 0.5): C t against
 * A (B t) + 0.5 C0 t for one random vector t, per row over its bound |A| (|B| |t|) + 0.5 |C0| |t|,
 * in units of k eps. Needs vectors only, so that a problem larger than the device is checked. */
typedef struct bh_cheap_s {
    int n, dbl, threads;
    size_t csi, csj, asi, asj, bsi, bsj; /* strides of C, op(A), op(B) */
    double *vec; /* 8 n: t, |t|, y0 = C0 t, |C0| |t|, u = B t, |B| |t|, w = A u, |A| |u| */
} bh_cheap_t;

/* ---- bench_host_opts.c ---- */
void bh_usage(FILE *f);
int bh_parse_args(int argc, char **argv, opts_t *o);

/* ---- bench_host_problem.c ---- */
void bh_fill_abc(int threads, int dbl, int n, void *A, void *B, void *C);
int bh_cheap_alloc(bh_cheap_t *c, int n);
void bh_cheap_prepare(bh_cheap_t *c, const opts_t *o, int dbl, const void *C0);
void bh_cheap_ab(bh_cheap_t *c, const void *A, const void *B);
double bh_cheap_eval(bh_cheap_t *c, const void *C);

/* ---- bench_host_run.c ---- */
clhgemm_status_t bh_ours_call(clhgemm_handle_t h, const opts_t *o, int dbl, int n, const void *A,
                              const void *B, void *C);
int bh_run_device(const opts_t *o, const devctx_t *dev, int n, int dbl, const void *A,
                  const void *B, const void *C, void *Cdev, double *times, result_t *r);
void bh_run_ours(const opts_t *o, clhgemm_handle_t h, int n, int dbl, const void *A,
                 const void *B, void *C, const void *Cdev, bh_cheap_t *cheap, double *times,
                 result_t *r);
void bh_run_one_device(const opts_t *o, const devctx_t *dev, int n, int dbl, const void *A,
                       const void *B, void *C, double *times, result_t *r);
void bh_run_xt(const opts_t *o, int n, int dbl, const void *A, const void *B, void *C,
               result_t *r);

/* ---- bench_host_size.c ---- */
int bh_run_sizes(opts_t *o);

/* ---- bench_host_output.c ---- */
void bh_print_summary(const opts_t *o, const result_t *res, int nres);
void bh_csv_row(const opts_t *o, const result_t *r);

/* ---- bench_host_cpushare.c ---- */
int bh_run_cpushare(opts_t *o);

#endif
