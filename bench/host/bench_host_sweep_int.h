/*
 * bench_host_sweep_int.h -- what the files of clhgemm-bench-host --sweep share (bench_host_sweep.c
 * and bench_host_sweep_{env,call,case,report,png}.c): the sampling limits, one way of making the
 * call, a case's result, the run's environment, and the functions one of these files defines for
 * another, prefixed sw_. Its own name (not bench_host_sweep.h, the mode's entry) keeps it a module
 * of its own, so that run_sweep's file and the files it calls do not form a cycle.
 */
#ifndef CLHGEMM_BENCH_HOST_SWEEP_INT_H
#define CLHGEMM_BENCH_HOST_SWEEP_INT_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "common/host_common.h"

#define SWEEP_MIN_SAMPLE_MS 20.0 /* a timed sample lasts at least this long (small n: many calls) */
#define SWEEP_MAX_INNER 1000000
#define SWEEP_OB_ONE_SAMPLE_MS 2000.0 /* OpenBLAS calls this long are timed once (the reference) */
#define SWEEP_MAX_CASES (2 * 2 * MAX_SIZES)
#define SWEEP_PAIRED_MAX_N 256 /* ours against OpenBLAS in paired samples up to this n */
/* After OpenBLAS's samples, a pause before anything else is timed: OpenBLAS's idle worker
 * threads spin for 2^28 TSC cycles (~0.1 s; OPENBLAS_THREAD_TIMEOUT) after each multithreaded
 * call, and on the H100 host host DGEMM 4096 called 0 / 50 / 150 / 400 ms after an OpenBLAS
 * DGEMM ran 3.6-6.9 / 1.6-5.9 / 6.6-10.3 / 9.1-10.0 TFLOP/s (the pack threads sharing the cores
 * with 15 spinning ones), which made the sweep's first samples of ours the slow ones */
#define SWEEP_OB_SETTLE_MS 300

/* The sweep's betas, b = 0, 1. */
static inline double sw_beta(int b) { return b ? 0.5 : 0.0; }

/* One way to make the call: a host handle, OpenBLAS, or device buffers. */
typedef struct sw_call_s {
    const opts_t *o;
    int dbl, n;
    double beta;
    clhgemm_handle_t h;
    const void *A, *B;
    void *C;
    cl_mem bA, bB, bC;
    cl_command_queue q;
} sw_call_t;

/* Makes `inner` calls and returns when the last is done: 0 or a status. */
typedef int (*sw_fn)(sw_call_t *c, int inner);

/* One case (precision, beta, n): every way's figures, or why it has none. */
typedef struct sw_res_s {
    int dbl, n;
    double beta;
    int skipped, failed;
    char why[200];
    stats_t ours, dr, ob, dev, xt; /* per-call ms: ours (auto), ours device route, OpenBLAS,
                                      device-only, cublasXt */
    int in_ours, in_dr, in_ob, in_dev;
    clhgemm_call_info_t info, info_dr;
    double err_ours, err_dr, err_dev; /* error / tolerance (NAN: not done) */
    double bound_ms;                  /* 0: no bound (no device-only figure) */
    double hbound_ms;                 /* 0: none; the bound with the host's own copies counted */
    double pair_ratio;                /* small n: median of ours/OpenBLAS over paired samples
                                         (NAN: not measured) */
} sw_res_t;

/* What every case shares: the device, the handles, the measured rates. */
typedef struct sw_env_s {
    devctx_t *dev;
    clhgemm_handle_t h, hd; /* auto (the environment as it is) and CLHGEMM_ROUTE=device */
    double bus_bps;         /* pinned host->device, bytes/s (0: not measured) */
    double copy_bps;        /* pageable -> pinned copies on all cores, bytes/s (0: not measured) */
    size_t bus_bytes;       /* the size of the bus measurement */
    int xt;                 /* cublasXt column on */
    char xtdesc[300];       /* " | cublasXt on ...", or empty */
} sw_env_t;

/* A way's rate in GFLOP/s (NAN when it has none), the host bound's, the bound with the host's
 * own copies counted. */
static inline double sw_gf(int n, const stats_t *s) { return s->ok ? gflops(n, s->median) : NAN; }
static inline double sw_bound_gf(const sw_res_t *r)
{
    return r->bound_ms > 0 ? gflops(r->n, r->bound_ms) : NAN;
}
static inline double sw_hbound_gf(const sw_res_t *r)
{
    return r->hbound_ms > 0 ? gflops(r->n, r->hbound_ms) : NAN;
}

/* ---- bench_host_sweep_env.c ---- */
/* The bus and copy rates (sized by --scale and the device), the two handles, cublasXt's
 * presence; 1 (after a message) when a handle cannot be made. */
int sw_env_open(const opts_t *o, devctx_t *dev, sw_env_t *env);

/* ---- bench_host_sweep_call.c ---- */
int sw_ours(sw_call_t *c, int inner);
#ifdef CLHGEMM_HAVE_OPENBLAS
int sw_openblas(sw_call_t *c, int inner);
#endif
int sw_device(sw_call_t *c, int inner);
int sw_time(sw_fn fn, sw_call_t *c, int warmup, int reps, double hint_ms, stats_t *s,
            int *inner_out);
double sw_paired(sw_call_t *ours, sw_call_t *ob, int in_ours, int in_ob, int reps);

/* ---- bench_host_sweep_case.c ---- */
void sw_case(const opts_t *o, const sw_env_t *env, int dbl, double beta, int n, sw_res_t *r);

/* ---- bench_host_sweep_report.c ---- */
void sw_print_title(const opts_t *o, const sw_env_t *env, char *title, size_t title_len);
void sw_print_header(const sw_env_t *env);
void sw_print_row(const sw_env_t *env, const sw_res_t *r);
FILE *sw_csv_open(const opts_t *o);
void sw_csv_row(FILE *f, const sw_env_t *env, const sw_res_t *r);
void sw_print_legend(const sw_env_t *env, const sw_res_t *res, int nres);
void sw_print_worst(const sw_res_t *res, int nres);

/* ---- bench_host_sweep_png.c ---- */
void sw_png(const opts_t *o, const char *title, const sw_res_t *res, int nres);

#endif
