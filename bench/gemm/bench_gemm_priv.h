/*
 * bench_gemm_priv.h -- what the parts of clhgemm-bench-gemm share, private to the benchmark:
 * the options, the problem of one shape and precision, the libraries and their results, the
 * run's context, and the functions each part offers the others. One part per step:
 *
 *   bench_gemm.c          main: the device, the run's header lines, one shape after another
 *   bench_gemm_opts.c     options: usage, parsing, the default and sweep shapes, --scale
 *   bench_gemm_problem.c  the problem: random data, strides, the checks, timing statistics
 *   bench_gemm_runners.c  the competitors: ours, CLBlast, cuBLAS, OpenBLAS on one problem
 *   bench_gemm_parts.c    --parts: our call's building blocks timed apart
 *   bench_gemm_report.c   output: the per-shape lines, the CSV, the summary, the geomeans
 *   bench_gemm_png.c      --png: the gnuplot chart
 *
 * Functions and variables that cross files are named bg_*; everything else is static.
 */
#ifndef CLHGEMM_BENCH_GEMM_PRIV_H
#define CLHGEMM_BENCH_GEMM_PRIV_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clhgemm.h"

/* ---- options ------------------------------------------------------------------------------ */

typedef struct shape_s {
    int m, n, k;
} shape_t;

#define MAX_SHAPES 64

typedef struct opts_s {
    const char *device_spec;
    int do_s, do_d, do_c, do_z; /* --precision: the real and the complex ones (default s, d) */
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
    int sweep;     /* --shapes sweep: the fixed set of sweep shapes (bench_gemm_opts.c) */
    double scale;  /* --scale F: every dimension times F, rounded, at least 1 (default 1) */
    int ndropped;  /* shapes that --scale made duplicates of earlier ones (dropped) */
    const char *png; /* --png FILE: gnuplot chart of ours / competitor per shape */
} opts_t;

/* ---- the problem -------------------------------------------------------------------------- */

typedef struct stats_s {
    double median, min, max;
} stats_t;

typedef struct prob_s {
    int dbl, cplx, row, ta, tb; /* cplx: complex elements (C, Z), dbl their parts' precision */
    int m, n, k;
    size_t lda, ldb, ldc;
    size_t na, nb, nc; /* elements */
    double alpha, beta;
    cl_command_queue queue;
    cl_mem A, B, C;
} prob_t;

/* The host copies of one problem: the inputs and the results of the OpenCL libraries. */
typedef struct host_mats_s {
    void *A, *B, *C0;          /* op(A), op(B) as stored, C before the call */
    void *Cours, *Cref, *Cdef; /* C after ours, CLBlast, ours with the built-in parameters */
} host_mats_t;

/* ---- libraries and results ---------------------------------------------------------------- */

/* The OpenCL libraries come first (indices below NCL): they run on the same buffers and queue
 * with interleaved reps. LIB_DEFAULT is clhgemm with the tuning database bypassed (built-in
 * parameters), next to the tuned one in the same process (--defaults). */
enum {
    LIB_OURS, LIB_CLBLAST, LIB_DEFAULT, NCL,
    LIB_CUBLAS = NCL, LIB_OPENBLAS, LIB_CUBLAS3M, NLIBS
};

typedef struct result_s {
    int ran;          /* a figure exists */
    stats_t host;     /* ms */
    stats_t dev;      /* ms, --profile only (NAN otherwise) */
    double err;       /* check error (see bench_gemm.c's header), NAN when not checked */
    double err_ref;   /* ours only: vs CLBlast element-wise, NAN when not compared */
    char note[320];   /* why there is no figure, or a warning */
} result_t;

typedef struct row_s {
    shape_t shape;
    int dbl, cplx;
    result_t r[NLIBS];
} row_t;

/* A problem's precision: its index s, d, c, z (0..3), its letter, its element size. */
static inline int bg_pi(int dbl, int cplx) { return (dbl ? 1 : 0) + (cplx ? 2 : 0); }
static inline char bg_pchar(int dbl, int cplx) { return "sdcz"[bg_pi(dbl, cplx)]; }
static inline size_t bg_es(int dbl, int cplx) { return (size_t)(dbl ? 8 : 4) * (cplx ? 2 : 1); }

/* ---- the run ------------------------------------------------------------------------------ */

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

/* ---- bench_gemm_opts.c -------------------------------------------------------------------- */

/* Fills *o from the command line (defaults, --scale applied); -1 after an error message. -h
 * prints the usage and exits. */
int bg_parse_args(int argc, char **argv, opts_t *o);

/* ---- bench_gemm_problem.c ----------------------------------------------------------------- */

/* Median, min and max of n values (NAN when n <= 0). */
stats_t bg_stats_of(const double *v, int n);
/* The problem of one shape and precision under the options, on queue (no buffers yet). */
void bg_prob_init(prob_t *p, const opts_t *o, cl_command_queue queue, shape_t shape, int dbl,
                  int cplx);
/* Reproducible random values in [-1,1], never zero, for a given seed: n reals (a complex
 * matrix of n/2 elements). */
void bg_fill_random(void *p, int dbl, size_t n, uint64_t seed);
/* BLIS's cheap check of C against (A, B, C0): 1.0 is the tolerance (see bench_gemm.c). */
double bg_cheap_check(const prob_t *p, const void *A, const void *B, const void *C0, const void *C);
/* Element-wise max|X - Ref| / (max|Ref| k eps); INFINITY if X has a non-finite value. */
double bg_compare_full(const prob_t *p, const void *X, const void *Ref);
/* Whether a result's check (cheap or against CLBlast) is beyond tolerance. */
int bg_result_warns(const result_t *r);

/* ---- bench_gemm_runners.c ----------------------------------------------------------------- */

/* The OpenCL libraries on shared device buffers of p: a checked first call each, warm-up, then
 * interleaved timed reps (and --parts); the buffers are released before returning. */
void bg_run_opencl(const ctx_t *c, prob_t *p, const host_mats_t *h, row_t *row);
/* cuBLAS on its own copies of the host matrices (or the note why not). */
void bg_run_cublas(const ctx_t *c, const prob_t *p, const host_mats_t *h, row_t *row);
/* OpenBLAS on host copies (or the note why not). */
void bg_run_openblas(const ctx_t *c, const prob_t *p, const host_mats_t *h, row_t *row);

/* ---- bench_gemm_parts.c ------------------------------------------------------------------- */

/* --parts: our call's building blocks timed apart on p's buffers; prints its lines. */
void bg_parts_one(const ctx_t *c, const prob_t *p, const shape_t *s);

/* ---- bench_gemm_report.c ------------------------------------------------------------------ */

extern const char *const bg_lib_name[NLIBS];  /* the CSV's library column */
extern const char *const bg_lib_title[NLIBS]; /* the printed name */

/* GFLOP/s of a product of shape s in ms: 2mnk flops, 8mnk for a complex one (its real work). */
double bg_gflops_of(const shape_t *s, int cplx, double ms);
/* Opens --csv for appending, the header written when the file is empty; -1 after a message. */
int bg_csv_open(ctx_t *c);
/* A shape's result lines, its ratios and its CSV rows. */
void bg_report_row(const ctx_t *c, const row_t *row);
void bg_print_summary(const ctx_t *c);
void bg_print_geomeans(const ctx_t *c);
/* The competitors whose column is on, in print order; returns their count. */
int bg_competitors(const opts_t *o, int *libs);
/* ours / lib (GFLOP/s, i.e. lib's median time over ours) of a row; NAN unless both ran. */
double bg_ratio_of(const row_t *r, int lib);

/* ---- bench_gemm_png.c --------------------------------------------------------------------- */

/* --png: the chart of ours / competitor per shape through gnuplot; prints what it did. */
void bg_write_png(const ctx_t *c);

#endif
