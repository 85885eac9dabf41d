/*
 * bench_lapack_int.h -- what the parts of clhgemm-bench-lapack share (bench_lapack*.c; the
 * program is described at the top of bench_lapack.c): the routines and the columns, the
 * options, a problem (one routine, precision and size with its data), a row of results, the
 * run's context, and the functions one part calls in another (prefix bl_). Its own name, not
 * bench_lapack.h, so that the parts that include it do not depend on main's file. The CPU
 * LAPACK's Fortran entry points the benchmark calls are declared here too: OpenBLAS exports
 * them, and its own headers (cblas.h, f77blas.h) do not declare LAPACK.
 */
#ifndef CLHGEMM_BENCH_LAPACK_INT_H
#define CLHGEMM_BENCH_LAPACK_INT_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clhgemm.h"

enum { R_POTRF, R_GETRF, R_GEQRF, NR };
extern const char *const bl_rname[NR]; /* "potrf", "getrf", "geqrf" */

/* The columns (they run in the order bl_col_order gives): ours on host memory, on a device
 * buffer, OpenBLAS, cuSOLVER's two, then the host column again on a handle with
 * --memory-limit's device memory limit and on a handle of the first device alone
 * (--one-device). */
enum { C_HOST, C_DEV, C_OB, C_CUS_RES, C_CUS_CP, C_LIM, C_ONE, NC };
extern const int bl_col_order[NC];
extern const char *const bl_cname[NC];  /* CSV and PNG names: "ours_host" ... */
extern const char *const bl_ctitle[NC]; /* table headings: "ours-host" ... */

#define BL_MAX_SIZES 64
#define BL_MAX_N 1000000  /* the largest order taken (int n; host memory decides below it) */
#define BL_BERR_FAIL 10.0 /* the scaled backward error above which a result fails */

typedef struct bl_opts_s {
    int routine[NR];
    int do_s, do_d;
    int sizes[BL_MAX_SIZES], nsizes;
    int row;           /* --layout row: ours on row-major matrices */
    int upper;         /* --uplo U: potrf's upper triangle */
    int reps, warmup;  /* --reps; --warmup: untimed calls before them (default 1) */
    int openblas, ob_max; /* --no-openblas; --no-openblas-above N */
    int cusolver;      /* --no-cusolver */
    int no_host, no_dev; /* --no-host, --no-device: leave a column of ours out */
    const char *device_spec; /* --device: the device of the device-buffer column */
    unsigned long long mem_limit; /* --memory-limit: bytes per device of C_LIM's handle */
    const char *mem_limit_arg;    /* as given */
    int one_device;    /* --one-device: C_ONE */
    const char *csv, *png, *trace;
} bl_opts_t;

/* One column's outcome at one size. */
typedef struct bl_cell_s {
    int ran;           /* timed and checked */
    double ms;         /* median of the reps */
    double berr;       /* scaled backward error of the checked result */
    int info;          /* the routine's info on the checked result */
    int bad;           /* the call failed or its check did: ours FAILED, a competitor WARN */
    char why[160];     /* why it did not run or what failed */
    /* ours on a handle (C_HOST, C_LIM, C_ONE): the devices its calls spread over (0: the
     * route gave them to the CPU LAPACK; -1: not known; bench_lapack_runs.c says how it is
     * told), and whether the matrix exceeds the devices' room for it (BL_OOC_*; C_HOST and
     * C_LIM) */
    int devs, ooc;
} bl_cell_t;

/* the help text (bench_lapack_opts.c) says what each means */
enum { BL_OOC_NA = -1, BL_OOC_NO, BL_OOC_YES, BL_OOC_NEAR, BL_OOC_YES_TIGHT };

typedef struct bl_row_s {
    int r, dbl, n;
    bl_cell_t c[NC];
} bl_row_t;

/* One problem: the matrix as ours takes it (a0, ours' layout, lda n), the same matrix in
 * column-major order for the competitors (a0c: a0 itself in column-major runs), the work copy
 * every call factors (w), and the check's vector and norm. */
typedef struct bl_prob_s {
    int r, dbl, n, row, upper;
    int lowmem;        /* one host copy only (a0, a0c NULL): each refresh regenerates w */
    uint64_t seed;     /* the generator's seed of the matrix */
    size_t es, elems;  /* element size, n * n */
    void *a0, *a0c, *w;
    int *ipiv;
    void *tau;
    long double *x;    /* the check's random vector, uniform in [-1, 1] */
    long double *ax;   /* A x, from a0c */
    double anorm, xnorm; /* ||A||_inf, ||x||_inf */
} bl_prob_t;

typedef struct bl_ctx_s {
    bl_opts_t o;
    clhgemm_device_info_t info; /* the device of the device-buffer column */
    cl_context context;
    cl_command_queue queue;
    clhgemm_handle_t handle;
    /* The devices a handle of the run takes (clhgemm_create's rule: CLHGEMM_DEVICES, else
     * every GPU, else every device), the first one's index (--one-device's handle), and the
     * matrix bytes the factorization driver can keep on them in core by default and under
     * --memory-limit (bench_lapack.c's handle_devices says how). */
    int hdev, hdev_first;
    unsigned long long room_default, room_limit;
    int threads;       /* host threads for copies and checks */
    char date[32];
    int cusolver_ok;   /* built with cuSOLVER and a CUDA device answers */
    bl_row_t *rows;
    int nrows, failures, warnings;
    FILE *csv;
} bl_ctx_t;

/* ---- bench_lapack_opts.c ---- */
int bl_parse_args(int argc, char **argv, bl_opts_t *o);
/* The library's byte counts (digits with an optional K, M or G suffix, case-insensitive): 1 and
 * *out set, or 0 when s is not one (or is zero or too large). */
int bl_parse_size(const char *s, unsigned long long *out);
/* The default sizes for a GPU or a CPU device, where --sizes was not given. */
void bl_default_sizes(bl_opts_t *o, int gpu);

/* ---- bench_lapack_problem.c ---- */
double bl_now_ms(void);
double bl_flops(int r, int n);
/* The problem's arrays and data (0), or -1 with why set (host memory). */
int bl_prob_make(bl_ctx_t *c, bl_prob_t *p, int r, int dbl, int n, char *why, size_t len);
void bl_prob_free(bl_prob_t *p);
/* The problem's matrix into p->w afresh (row: row-major; a lowmem problem's refresh). */
void bl_refill(const bl_ctx_t *c, bl_prob_t *p, int row);
/* dst = src, bytes, by the run's threads (the untimed refresh of a call's input). */
void bl_copy(int threads, void *dst, const void *src, size_t bytes);
/* The scaled backward error of the factors in f (column-major, ld n; ipiv or tau as the routine
 * gives them) against the problem's matrix: ||r||_inf / (n eps ||A||_inf ||x||_inf). */
double bl_berr(const bl_ctx_t *c, const bl_prob_t *p, const void *f, const int *ipiv,
               const void *tau);
/* The square n x n matrix f (ld n) transposed in place (ours' row-major result, for the check). */
void bl_transpose(int threads, void *f, int dbl, int n);

/* ---- bench_lapack_runs.c ---- */
/* Runs column col of the problem into cell (ours, OpenBLAS, cuSOLVER), checks its result. */
void bl_run_column(bl_ctx_t *c, bl_prob_t *p, int col, bl_cell_t *cell);
/* --trace: one more host call of ours on a handle that writes its trace to `file`. */
void bl_trace_call(bl_ctx_t *c, bl_prob_t *p, const char *file);
/* OpenBLAS's description (config, core, threads). */
const char *bl_openblas_desc(char *buf, size_t len);

/* ---- bench_lapack_report.c ---- */
void bl_table_head(const bl_ctx_t *c, int r, int dbl);
void bl_table_row(bl_ctx_t *c, const bl_row_t *row);
int bl_csv_open(bl_ctx_t *c);
void bl_write_png(const bl_ctx_t *c);
double bl_gflops(const bl_row_t *row, int col);

/* ---- the CPU LAPACK (OpenBLAS's Fortran entry points; gfortran's hidden string lengths) ---- */
void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t lu);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t lu);
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void sgeqrf_(const int *m, const int *n, float *a, const int *lda, float *tau, float *work,
             const int *lwork, int *info);
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
             const int *lwork, int *info);
void sormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k,
             const float *a, const int *lda, const float *tau, float *c, const int *ldc,
             float *work, const int *lwork, int *info, size_t ls, size_t lt);
void dormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k,
             const double *a, const int *lda, const double *tau, double *c, const int *ldc,
             double *work, const int *lwork, int *info, size_t ls, size_t lt);

#endif
