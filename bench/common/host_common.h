/*
 * host_common.h -- what clhgemm-bench-host's files share (host_common.c owns the helpers): the
 * options and statistics types, the device of the device-only column, and the helpers that the
 * per-size runs and --cpu-share (bench_host.c, main, and the files it names:
 * bench_host_{opts,problem,size,run,output,cpushare}.c) and --sweep (bench_host_sweep.c and the
 * files it names: bench_host_sweep_*.c) both use.
 */
#ifndef CLHGEMM_BENCH_HOST_COMMON_H
#define CLHGEMM_BENCH_HOST_COMMON_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <CL/cl.h>

#include "clhgemm.h"

#define MAX_SIZES 64

typedef struct opts_s {
    int sizes[MAX_SIZES];
    int nsizes, sizes_given;
    int do_s, do_d, prec_given;
    int reps, warmup, reps_given, warmup_given;
    const char *csv;
    clhgemm_layout_t layout;
    clhgemm_transpose_t ta, tb;
    int xt_devices, xt_block, xt_reps, xt_warmup; /* xt_reps/xt_warmup < 0: --reps/--warmup */
    int no_ours, no_devonly, no_naive, no_xt, no_check;
    int oversize;
    int one_device;
    int threads;
    int cpu_share;          /* --cpu-share: the CPU-share comparison instead */
    double cpu_fraction;    /* --cpu-fraction F (< 0: none) */
    int cpu_slab;           /* --cpu-slab R: rows of the CPU-only slab */
    const char *cpu_csv;
    int sweep;              /* --sweep: the size sweep instead */
    double scale;           /* --scale F: sweep sizes (and the bus measurement) times F */
    int max_n;              /* --max-n N: sweep sizes above N left out (0: none) */
    const char *png;        /* --png FILE: the sweep's plot (gnuplot) */
} opts_t;

typedef struct stats_s {
    int ok;
    double median, min, max; /* ms */
} stats_t;

typedef struct devctx_s {
    int ok;
    clhgemm_device_info_t info;
    cl_context ctx;
    cl_command_queue q;
} devctx_t;

/* ---- host_common.c ---- */
static inline double gflops(int n, double ms) { return 2.0 * (double)n * n * n / (ms * 1e-3) * 1e-9; }
double compare(int threads, const void *x, const void *ref, int dbl, size_t count, int k);
void fill(int threads, void *p, int dbl, size_t count, uint64_t seed);
unsigned long long host_available(void);
int open_device(devctx_t *d);
void dev_upload3(const devctx_t *dev, size_t bytes, const void *A, const void *B, const void *C,
                 cl_mem *bA, cl_mem *bB, cl_mem *bC, cl_int *err);
stats_t stats_of(double *v, int n);
/* Waits for ev, releases it, and returns the wait's error or the command's own (negative)
 * execution status. */
cl_int wait_event(cl_event ev);
const char *blas_desc(char *buf, size_t len);
void matvec(int threads, const void *M, int dbl, size_t n, size_t si, size_t sj, const double *x, const double *xabs, double *y, double *yabs);
void op_strides(clhgemm_layout_t layout, clhgemm_transpose_t t, size_t n, size_t *si, size_t *sj);
double uniform(uint64_t seed, size_t i);


#endif
