/*
 * bench_level3_int.h -- what the parts of clhgemm-bench-level3 share (bench_level3*.c; the
 * program is described at the top of bench_level3.c): the routine and library indices, the
 * options, a job (one routine call's operands), a row of results, the run's context, and the
 * functions one part calls in another. Named apart from bench_level3.c, so that the parts
 * that include it do not depend on main's file.
 */
#ifndef CLHGEMM_BENCH_LEVEL3_INT_H
#define CLHGEMM_BENCH_LEVEL3_INT_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clhgemm.h"

/* The routines; HEMM, HERK, HER2K complex only (each the structure of SYMM, SYRK, SYR2K). */
enum { R_SYMM, R_SYRK, R_SYR2K, R_TRMM, R_TRSM, R_HEMM, R_HERK, R_HER2K, NR };
extern const char *const rname[NR]; /* "symm" ... (bench_level3_opts.c) */

/* The routines with a side (A square on the left or the right of B) and the triangular ones
 * (uplo of A, transA, diag; B overwritten in place); the Hermitian ones; the rank-k updates. */
static inline int has_side(int r)
{
    return r == R_SYMM || r == R_HEMM || r == R_TRMM || r == R_TRSM;
}
static inline int is_tri(int r) { return r == R_TRMM || r == R_TRSM; }
static inline int is_herm(int r) { return r == R_HEMM || r == R_HERK || r == R_HER2K; }
static inline int is_rank_k(int r)
{
    return r == R_SYRK || r == R_SYR2K || r == R_HERK || r == R_HER2K;
}
static inline int is_two(int r) { return r == R_SYR2K || r == R_HER2K; }

/* libraries (columns): ours, ours with the other SYR2K mode, CLBlast, our GEMM, cublasXt (TRSM
 * with --host), cuBLAS's TRSM and cuBLAS's GEMM of the same size (TRSM rows on device buffers) */
enum { L_OURS, L_ALT, L_CLBLAST, L_GEMM, L_XT, L_CUBLAS, L_CUBLAS_GEMM, NL };
extern const char *const lname[NL]; /* "clhgemm" ... (bench_level3_opts.c) */

#define MAX_SIZES 64

typedef struct opts_s {
    const char *device_spec;
    int do_s, do_d, do_c, do_z; /* --precision: s, d and the complex c, z */
    int sizes[MAX_SIZES], nsizes;
    int routine[NR];
    int reps, warmup;
    const char *csv;
    int clblast, check;
    int cublas;        /* device mode: cuBLAS's TRSM and GEMM columns of TRSM rows (--no-cublas) */
    int row, right, lower, trans, unit;
    const char *syr2k; /* NULL: library default; "fused", "two"; "both": both, second as alt */
    int host;          /* --host: the host-memory routines on a handle */
    const char *devices; /* --devices: the handle's device spec (--host) */
    int xt, xt_devices;  /* --host: cublasXt's TRSM column (--no-xt), its device count */
} opts_t;

/* One routine call on fixed buffers, in column-major terms of the caller's layout. A complex
 * job (cplx) holds (re, im) pairs; its trans is T for SYRK, SYR2K, TRMM, TRSM and C (the
 * conjugate transpose) for HERK, HER2K. */
typedef struct job_s {
    int r, dbl, cplx;
    int row, right, lower, trans, unit;
    int m, n, k;        /* SYMM/TRMM/TRSM: B, C are m x n, A ka x ka; SYRK/SYR2K: C n x n, k */
    int ka;             /* order of A for SYMM/TRMM/TRSM */
    int lda, ldb, ldc;
    size_t na, nb, nc;  /* elements */
    double alpha, beta;
    cl_command_queue q;
    cl_mem A, B, C, B0, G; /* B0: pristine B (TRMM/TRSM), G: GEMM output for TRMM/TRSM */
} job_t;

/* Host operands of a job (--host; its cl_mem fields unused). */
typedef struct hjob_s {
    void *A, *B, *C, *G; /* G: the GEMM's output for TRMM (B stays TRMM's input) */
    const void *B0;      /* pristine B: TRMM's and TRSM's B is restored from it */
} hjob_t;

/* The GEMM a job stands for: its shape, which of the job's operands are its factors (0: A,
 * 1: B; leading dimensions lda and ldb alike), their transposes, and its output: G with ldb
 * (TRMM, TRSM: B is their input) or C with ldc. */
typedef struct gemm_map_s {
    int m, n, k;
    int a_op, b_op;
    int ta, tb;
    int into_g;
} gemm_map_t;

typedef struct res_s {
    int ran;
    double med, min, max, gflops, err, err_ref, err_blas; /* err_blas: TRSM vs OpenBLAS */
    char note[320];
} res_t;

typedef struct row_s {
    int r, dbl, cplx, size;
    res_t x[NL];
} row_t;

/* A job's element size, its precision's letter (s, d, c, z), its flops' factor (a complex
 * multiply-add is four real ones). */
static inline size_t job_es(const job_t *j) { return (size_t)(j->dbl ? 8 : 4) * (j->cplx ? 2 : 1); }
static inline char prec_char(int dbl, int cplx) { return "sdcz"[(dbl ? 1 : 0) + (cplx ? 2 : 0)]; }

typedef struct ctx_s {
    opts_t o;
    clhgemm_handle_t handle; /* --host */
    clhgemm_device_info_t info;
    cl_context context;
    cl_command_queue queue;
    FILE *csv;
    char date[32];
    int have_clblast;
    int xt_col; /* --host: the cublasXt TRSM column is built, asked for and has a TRSM to run */
    int have_cublas; /* device mode: cuBLAS's columns are built and asked for */
    int cublas_col;  /* device mode with TRSM: the summary has cuBLAS's columns (n/a if not run) */
    row_t rows[NR * 4 * MAX_SIZES];
    int nrows, failures;
} ctx_t;

/* One timed rep of library lib (device: enqueue -> wait; --host: the synchronous call), with
 * what it overwrites restored first; arg is the part's own operands. 0, or -1 with why. */
typedef int (*rep_fn)(ctx_t *c, int lib, const job_t *j, void *arg, double *ms, char *why,
                      size_t wl);

/* ---- bench_level3_opts.c: the options -------------------------------------------------- */
int parse_args(int argc, char **argv, opts_t *o);

/* ---- bench_level3_problem.c: the job, its data and the checks ---------------------------- */
void job_init(job_t *j, const opts_t *o, int r, int dbl, int cplx, int size);
void fill_job(const job_t *j, void *A, void *B, void *C0);
double flops_routine(const job_t *j);
void gemm_map(const job_t *j, gemm_map_t *g);
double gemm_flops(const job_t *j);
double cheap_check(const job_t *jb, const void *A, const void *B0, const void *C0,
                   const void *out);
double compare(const job_t *jb, const void *X, const void *R);

/* ---- bench_level3_ours.c: clhgemm's calls ------------------------------------------------ */
int ours_enqueue(int lib, const job_t *j, const char *syr2k, cl_event *ev, char *why, size_t wl);
clhgemm_status_t host_once(clhgemm_handle_t h, int lib, const job_t *j, const hjob_t *x);

/* ---- bench_level3_refs.c: the references (CLBlast, OpenBLAS, cublasXt, cuBLAS) ------------- */
int clblast_enqueue(const job_t *j, cl_event *ev, char *why, size_t wl);
int blas_trsm_ref(const job_t *jb, const void *A, const void *B0, void *X);
void host_xt(ctx_t *c, const job_t *j, const hjob_t *x, void *out, res_t *rs);
void dev_cublas(ctx_t *c, row_t *row, const job_t *j, const void *A, const void *B,
                const void *C0, void *X);

/* ---- bench_level3_job.c: one job on device buffers, and the steps --host shares ------------ */
row_t *row_begin(ctx_t *c, job_t *j, int r, int dbl, int cplx, int size);
void lib_failed(ctx_t *c, row_t *row, int *active, int l, const char *why);
void time_libs(ctx_t *c, row_t *row, const job_t *j, int *active, rep_fn rep, void *arg);
void bench_job(ctx_t *c, int r, int dbl, int cplx, int size);

/* ---- bench_level3_host.c: one job of the host-memory routines (--host) --------------------- */
void bench_job_host(ctx_t *c, int r, int dbl, int cplx, int size);

/* ---- bench_level3_report.c: per-job lines, CSV, summary ---------------------------------- */
void describe_job(const job_t *j, char *buf, size_t n);
void report_tolerance(ctx_t *c, const row_t *row);
void report_results(const ctx_t *c, const row_t *row, const int *shown);
int csv_open(ctx_t *c);
void csv_rows(ctx_t *c, const row_t *row, const job_t *j);
void summary(const ctx_t *c);

#endif
