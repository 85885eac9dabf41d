/*
 * bench_level3.c -- clhgemm-bench-level3: device SYMM, SYRK, SYR2K, TRMM and TRSM of clhgemm
 * against our own GEMM of the same size and CLBlast's same routine, all in the same run.
 *
 * Each routine's GFLOP/s counts its own operation: SYMM 2*m^2*n (side left; 2*m*n^2 right),
 * SYRK n^2*k, SYR2K 2*n^2*k, TRMM and TRSM m^2*n (left; m*n^2 right). "GEMM" is
 * clhgemm_{s,d}gemm_cl on the same buffers with the product the routine stands for -- m x n x m
 * for SYMM/TRMM/TRSM side left, n x n x k for SYRK/SYR2K (A*A^T, A*B^T) -- at 2*m*n*k flops; so
 * SYRK at 100% of GEMM takes half GEMM's time, which is what skipping the other triangle buys.
 * The three (four with --syr2k both: fused and two-pass) run on the same buffers and queue with
 * their timed reps interleaved, so drift of a shared machine hits all alike. A rep is enqueue ->
 * clWaitForEvents, timed with the host monotonic clock; warm-ups (kernel builds) are not timed;
 * medians are reported. TRMM and TRSM overwrite B, so B is restored from a copy before every
 * rep (outside the timed region), for every library alike. TRSM's A is well conditioned
 * (diagonal 4..8 in magnitude with random signs, off-diagonal uniform(-1,1)/N), so that every
 * library's solution is stable and comparable.
 *
 * Before timing, each library runs once from the same initial data and its result is checked
 * with BLIS's cheap test in long double on the host: for a random vector t, out*t against the
 * operation applied to t (symmetric outputs of SYRK/SYR2K are completed from their triangle;
 * for TRSM the residual, op(A)*(X*t) against alpha*B*t, or X*(op(A)*t) side right), as
 * max|diff| / (max|ref| * k * eps), so 1.0 is the tolerance; ours is also compared with
 * CLBlast element-wise on the part the routine writes, and TRSM's solution with OpenBLAS's
 * cblas_{s,d}trsm (where the benchmark is built with OpenBLAS) in the same measure. The process
 * prints FAILED and exits 1 on a failed call or a check of ours beyond tolerance (the smoke
 * tests rely on that); a reference library beyond tolerance is only warned about.
 *
 *   clhgemm-bench-level3 --sizes 1024,4096 [--routines symm,syrk,syr2k,trmm,trsm]
 *       [--precision s|d|both] [--side L|R] [--uplo U|L] [--trans N|T] [--diag N|U]
 *       [--layout col|row] [--reps R] [--warmup W] [--syr2k lib|fused|two|both] [--csv FILE]
 *       [--no-clblast] [--no-check] [--host [--devices SPEC] [--xt-devices N] [--no-xt]]
 *
 * --host: the host-memory routines instead (clhgemm_{s,d}{symm,syrk,syr2k,trmm,trsm} on a
 * handle: matrices in ordinary host memory, the pipeline of host.c over the handle's devices),
 * next to the host-memory GEMM of the same size (clhgemm_{s,d}gemm on the same handle and
 * operands), in the same run with interleaved reps; a rep is the synchronous call, host clock;
 * TRMM's and TRSM's B is restored with memcpy before every rep, outside the timing. The checks
 * apply as above; there is no CLBlast column (CLBlast has no host-memory routines). Where the
 * benchmark is built with the CUDA toolkit (bench/cublasxt_ref.c) and a CUDA device is present,
 * TRSM also gets a cublasXt column: cublasXt{S,D}trsm on the same pageable arrays (--xt-devices,
 * default 1; B restored before every call outside the timing, its reps run as one block after
 * ours, since each cublasXt measurement creates its own handle), checked like ours.
 */
#define _POSIX_C_SOURCE 200809L
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "clhgemm.h"

#ifdef CLHGEMM_HAVE_CLBLAST
#include <clblast_c.h>
#endif
#ifdef CLHGEMM_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef CLHGEMM_HAVE_CUBLASXT
#include "cublasxt_ref.h"
#endif

enum { R_SYMM, R_SYRK, R_SYR2K, R_TRMM, R_TRSM, NR };
static const char *const rname[NR] = {"symm", "syrk", "syr2k", "trmm", "trsm"};

/* The routines with a side (A square on the left or the right of B) and the triangular ones
 * (uplo of A, transA, diag; B overwritten in place). */
static int has_side(int r) { return r == R_SYMM || r == R_TRMM || r == R_TRSM; }
static int is_tri(int r) { return r == R_TRMM || r == R_TRSM; }

/* libraries (columns): ours, ours with the other SYR2K mode, CLBlast, our GEMM, cublasXt (TRSM
 * with --host) */
enum { L_OURS, L_ALT, L_CLBLAST, L_GEMM, L_XT, NL };
static const char *const lname[NL] = {"clhgemm", "clhgemm-alt", "clblast", "clhgemm-gemm",
                                      "cublasxt"};

#define MAX_SIZES 64

typedef struct opts_s {
    const char *device_spec;
    int do_s, do_d;
    int sizes[MAX_SIZES], nsizes;
    int routine[NR];
    int reps, warmup;
    const char *csv;
    int clblast, check;
    int row, right, lower, trans, unit;
    const char *syr2k; /* NULL: library default; "fused", "two"; "both": both, second as alt */
    int host;          /* --host: the host-memory routines on a handle */
    const char *devices; /* --devices: the handle's device spec (--host) */
    int xt, xt_devices;  /* --host: cublasXt's TRSM column (--no-xt), its device count */
} opts_t;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: clhgemm-bench-level3 [options]\n"
        "SYMM, SYRK, SYR2K, TRMM, TRSM of clhgemm (device buffers) next to our GEMM of the same size\n"
        "and CLBlast's same routine, in the same run. alpha 1, beta 0.5, random data in [-1,1]\n"
        "(TRSM's A diagonally dominant: diagonal 4..8 in magnitude, off-diagonal in [-1,1]/N).\n"
        "  --device SPEC        device (index, name substring, gpu/cpu); default: first GPU, else first\n"
        "  --precision s|d|both default both (d skipped without fp64)\n"
        "  --sizes N,N,...      square sizes: SYMM/TRMM/TRSM m = n = N, SYRK/SYR2K n = k = N\n"
        "                       (default 1024,2048,4096,8192)\n"
        "  --routines LIST      subset of symm,syrk,syr2k,trmm,trsm (default all)\n"
        "  --side L|R  --uplo U|L  --trans N|T  --diag N|U  --layout col|row\n"
        "                       (defaults L, U, N, N, col; trans is SYRK/SYR2K's trans and\n"
        "                       TRMM/TRSM's transA)\n"
        "  --syr2k lib|fused|two|both  SYR2K mode through CLHGEMM_SYR2K: lib = the library's default,\n"
        "                       both = fused as 'ours' and two-pass as 'ours-alt' (default both)\n"
        "  --reps R             timed reps (default 10)   --warmup W  untimed reps (default 2)\n"
        "  --csv FILE           append rows to FILE (header when new)\n"
        "  --no-clblast         skip CLBlast               --no-check  skip the result checks\n"
        "  --host               the host-memory routines (clhgemm_{s,d}symm ... on a handle) next to\n"
        "                       the host-memory GEMM of the same size (no CLBlast column)\n"
        "  --devices SPEC       the handle's devices with --host (default: the library's choice)\n"
        "  --xt-devices N       CUDA devices of the cublasXt TRSM column with --host (default 1)\n"
        "  --no-xt              skip that column (it reads n/a without CUDA)\n"
        "  -h, --help\n");
}

static int parse_list(const char *s, int *out, int *count)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || v > 1 << 20 || n >= MAX_SIZES) return -1;
        out[n++] = (int)v;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    *count = n;
    return n ? 0 : -1;
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->do_s = o->do_d = 1;
    o->reps = 10;
    o->warmup = 2;
    o->clblast = o->check = 1;
    o->xt = o->xt_devices = 1;
    o->syr2k = "both";
    for (int r = 0; r < NR; r++) o->routine[r] = 1;
    static const int def[] = {1024, 2048, 4096, 8192};
    memcpy(o->sizes, def, sizeof def);
    o->nsizes = 4;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        static const char *const with_value[] = {"--device", "--precision", "--sizes", "--routines",
                                                 "--side", "--uplo", "--trans", "--diag",
                                                 "--layout", "--syr2k", "--reps", "--warmup",
                                                 "--csv", "--devices", "--xt-devices", NULL};
        for (int j = 0; with_value[j]; j++) {
            size_t l = strlen(with_value[j]);
            if (!strncmp(a, with_value[j], l) && (a[l] == '\0' || a[l] == '=')) {
                if (a[l] == '=') v = a + l + 1;
                else if (i + 1 < argc) v = argv[++i];
                else {
                    fprintf(stderr, "error: %s needs a value\n", with_value[j]);
                    return -1;
                }
                a = with_value[j];
                break;
            }
        }
#define BAD(...) do { fprintf(stderr, "error: " __VA_ARGS__); fputc('\n', stderr); return -1; } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--device")) {
            o->device_spec = v;
        } else if (!strcmp(a, "--precision")) {
            o->do_s = !strcmp(v, "s") || !strcmp(v, "both");
            o->do_d = !strcmp(v, "d") || !strcmp(v, "both");
            if (!o->do_s && !o->do_d) BAD("--precision takes s, d or both");
        } else if (!strcmp(a, "--sizes")) {
            if (parse_list(v, o->sizes, &o->nsizes)) BAD("bad --sizes '%s'", v);
        } else if (!strcmp(a, "--routines")) {
            for (int r = 0; r < NR; r++) o->routine[r] = 0;
            char buf[128];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                int found = 0;
                for (int r = 0; r < NR; r++)
                    if (!strcmp(tok, rname[r])) o->routine[r] = found = 1;
                if (!found) BAD("unknown routine '%s' (symm, syrk, syr2k, trmm, trsm)", tok);
            }
        } else if (!strcmp(a, "--side")) {
            if (strcmp(v, "L") && strcmp(v, "R")) BAD("--side takes L or R");
            o->right = v[0] == 'R';
        } else if (!strcmp(a, "--uplo")) {
            if (strcmp(v, "U") && strcmp(v, "L")) BAD("--uplo takes U or L");
            o->lower = v[0] == 'L';
        } else if (!strcmp(a, "--trans")) {
            if (strcmp(v, "N") && strcmp(v, "T")) BAD("--trans takes N or T");
            o->trans = v[0] == 'T';
        } else if (!strcmp(a, "--diag")) {
            if (strcmp(v, "N") && strcmp(v, "U")) BAD("--diag takes N or U");
            o->unit = v[0] == 'U';
        } else if (!strcmp(a, "--layout")) {
            if (strcmp(v, "col") && strcmp(v, "row")) BAD("--layout takes col or row");
            o->row = v[0] == 'r';
        } else if (!strcmp(a, "--syr2k")) {
            if (strcmp(v, "lib") && strcmp(v, "fused") && strcmp(v, "two") && strcmp(v, "both"))
                BAD("--syr2k takes lib, fused, two or both");
            o->syr2k = strcmp(v, "lib") ? v : NULL;
        } else if (!strcmp(a, "--reps")) {
            char *end;
            o->reps = (int)strtol(v, &end, 10);
            if (*end || o->reps < 1) BAD("bad --reps '%s'", v);
        } else if (!strcmp(a, "--warmup")) {
            char *end;
            o->warmup = (int)strtol(v, &end, 10);
            if (*end || o->warmup < 0) BAD("bad --warmup '%s'", v);
        } else if (!strcmp(a, "--csv")) {
            o->csv = v;
        } else if (!strcmp(a, "--no-clblast")) {
            o->clblast = 0;
        } else if (!strcmp(a, "--no-check")) {
            o->check = 0;
        } else if (!strcmp(a, "--host")) {
            o->host = 1;
        } else if (!strcmp(a, "--devices")) {
            o->devices = v;
        } else if (!strcmp(a, "--xt-devices")) {
            char *end;
            o->xt_devices = (int)strtol(v, &end, 10);
            if (*end || o->xt_devices < 1) BAD("bad --xt-devices '%s'", v);
        } else if (!strcmp(a, "--no-xt")) {
            o->xt = 0;
        } else {
            fprintf(stderr, "error: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return -1;
        }
#undef BAD
    }
    return 0;
}

/* ---- data and the cheap check ------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
    double v = 2.0 * ((double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
    return v == 0.0 ? 0.5 : v;
}

static void fill_random(void *p, int dbl, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        double v = rng_unit(&seed);
        if (dbl) ((double *)p)[i] = v;
        else ((float *)p)[i] = (float)v;
    }
}

/* TRSM's A (n x n, tight, either layout): diagonal 4..8 in magnitude with a random sign,
 * off-diagonal uniform(-1,1)/n, so that op(A) is strongly diagonally dominant (condition number
 * a few units whatever n, also with a unit diagonal) and every solver's X is accurate. */
static void fill_trsm_a(void *p, int dbl, int n, uint64_t seed)
{
    for (size_t j = 0; j < (size_t)n; j++)
        for (size_t i = 0; i < (size_t)n; i++) {
            const double u = rng_unit(&seed);
            double v = u / n;
            if (i == j) v = (u < 0 ? -1.0 : 1.0) * (6.0 + 2.0 * rng_unit(&seed));
            if (dbl) ((double *)p)[i + j * n] = v;
            else ((float *)p)[i + j * n] = (float)v;
        }
}

static double stats_median(double *v, int n, double *mn, double *mx)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    *mn = v[0];
    *mx = v[n - 1];
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One routine call on fixed buffers, in column-major terms of the caller's layout. */
typedef struct job_s {
    int r, dbl;
    int row, right, lower, trans, unit;
    int m, n, k;        /* SYMM/TRMM/TRSM: B, C are m x n, A ka x ka; SYRK/SYR2K: C n x n, k */
    int ka;             /* order of A for SYMM/TRMM/TRSM */
    int lda, ldb, ldc;
    size_t na, nb, nc;  /* elements */
    double alpha, beta;
    cl_command_queue q;
    cl_mem A, B, C, B0, G; /* B0: pristine B (TRMM/TRSM), G: GEMM output for TRMM/TRSM */
} job_t;

static double flops_routine(const job_t *j)
{
    const double m = j->m, n = j->n, k = j->k;
    switch (j->r) {
    case R_SYMM: return j->right ? 2.0 * m * n * n : 2.0 * m * m * n;
    case R_SYRK: return n * n * k;
    case R_SYR2K: return 2.0 * n * n * k;
    default: return j->right ? m * n * n : m * m * n; /* TRMM, TRSM */
    }
}

/* The GEMM that the routine stands for: (m, n, k). */
static void gemm_shape(const job_t *j, int *m, int *n, int *k)
{
    if (j->r == R_SYRK || j->r == R_SYR2K) *m = *n = j->n, *k = j->k;
    else *m = j->m, *n = j->n, *k = j->ka;
}

#define CHG_BIG(a, b, c) ((a) > (b) ? ((a) > (c) ? (a) : (c)) : ((b) > (c) ? (b) : (c)))

/* Element (i, j) of a matrix stored in the job's layout. */
static inline double el(const void *p, int dbl, int row, int ld, int i, int j)
{
    size_t x = row ? (size_t)i * ld + j : i + (size_t)j * ld;
    return dbl ? ((const double *)p)[x] : ((const float *)p)[x];
}

/* A matrix for the host-side checks: the buffer and its leading dimension (the job's layout). */
typedef struct mat_s {
    const void *p;
    int ld;
} mat_t;

/* Element (i, j) of the logical matrix a check multiplies with. */
typedef double (*elem_fn)(const job_t *, const mat_t *, int, int);

static double gen(const job_t *jb, const mat_t *M, int i, int j)
{
    return el(M->p, jb->dbl, jb->row, M->ld, i, j);
}

/* A as the routine sees it: completed from its stored triangle (SYMM), or that triangle with
 * zeros and possibly a unit diagonal (TRMM/TRSM, before op). */
static double a_struct(const job_t *jb, const mat_t *M, int i, int j)
{
    const int in = !jb->lower ? i <= j : i >= j;
    if (jb->r == R_SYMM) return in ? gen(jb, M, i, j) : gen(jb, M, j, i);
    if (i == j && jb->unit) return 1.0;
    return in ? gen(jb, M, i, j) : 0.0;
}

/* A SYRK/SYR2K output, symmetric, completed from its triangle. */
static double outsym(const job_t *jb, const mat_t *M, int i, int j)
{
    const int in = !jb->lower ? i <= j : i >= j;
    return in ? gen(jb, M, i, j) : gen(jb, M, j, i);
}

/* y = F x (or F^T x) for the rows x cols matrix F(i,j) = f(M, i, j), in long double. */
static void mv(const job_t *jb, const void *p, int ld, elem_fn f, int rows, int cols,
               int transpose, const long double *x, long double *y)
{
    const mat_t M = {p, ld};
    for (int i = 0; i < rows; i++) y[i] = 0.0L;
    for (int j = 0; j < cols; j++) {
        const long double xj = x[j];
        for (int i = 0; i < rows; i++)
            y[i] += (long double)(transpose ? f(jb, &M, j, i) : f(jb, &M, i, j)) * xj;
    }
}

/* BLIS's cheap check of out (C, or B for TRMM/TRSM) computed from (A, B0, C0). */
static double cheap_check(const job_t *jb, const void *A, const void *B0, const void *C0,
                          const void *out)
{
    const int m = jb->m, n = jb->n, k = jb->k, ka = jb->ka;
    const int rows = (jb->r == R_SYRK || jb->r == R_SYR2K) ? n : m;
    const int big = CHG_BIG(m, n, k);
    long double *t = malloc(sizeof(long double) * n), *u = malloc(sizeof(long double) * big);
    long double *w = malloc(sizeof(long double) * big), *y = malloc(sizeof(long double) * big);
    long double *ref = calloc((size_t)big, sizeof(long double));
    double result = NAN;
    int kk = ka;
    if (!t || !u || !w || !y || !ref) goto out;
    uint64_t seed = 0x5eed + (uint64_t)m * 31 + (uint64_t)n;
    for (int j = 0; j < n; j++) t[j] = rng_unit(&seed);
    switch (jb->r) {
    case R_SYMM:
        if (!jb->right) { /* A (B t) */
            mv(jb, B0, jb->ldb, gen, m, n, 0, t, u);
            mv(jb, A, jb->lda, a_struct, m, m, 0, u, w);
        } else { /* B (A t) */
            mv(jb, A, jb->lda, a_struct, n, n, 0, t, u);
            mv(jb, B0, jb->ldb, gen, m, n, 0, u, w);
        }
        mv(jb, C0, jb->ldc, gen, m, n, 0, t, u);
        for (int i = 0; i < m; i++) ref[i] = jb->alpha * w[i] + jb->beta * u[i];
        mv(jb, out, jb->ldc, gen, m, n, 0, t, y);
        break;
    case R_SYRK:
    case R_SYR2K:
        /* op(X) is n x k: X stored n x k (trans N) or k x n (trans T) */
        for (int pass = 0; pass < (jb->r == R_SYR2K ? 2 : 1); pass++) {
            const void *L = pass ? B0 : A, *R = jb->r == R_SYRK ? A : pass ? A : B0;
            const int ldl = pass ? jb->ldb : jb->lda;
            const int ldr = jb->r == R_SYRK ? jb->lda : pass ? jb->lda : jb->ldb;
            mv(jb, R, ldr, gen, k, n, !jb->trans, t, u);  /* u = op(R)^T t */
            mv(jb, L, ldl, gen, n, k, jb->trans, u, w);   /* w = op(L) u */
            for (int i = 0; i < n; i++) ref[i] += jb->alpha * w[i];
        }
        mv(jb, C0, jb->ldc, outsym, n, n, 0, t, u);
        for (int i = 0; i < n; i++) ref[i] += jb->beta * u[i];
        mv(jb, out, jb->ldc, outsym, n, n, 0, t, y);
        kk = jb->r == R_SYR2K ? 2 * k : k;
        break;
    case R_TRSM: /* the residual: op(A) (X t) (left) or X (op(A) t) (right) against alpha B0 t */
        if (!jb->right) {
            mv(jb, out, jb->ldb, gen, m, n, 0, t, u);
            mv(jb, A, jb->lda, a_struct, m, m, jb->trans, u, y);
        } else {
            mv(jb, A, jb->lda, a_struct, n, n, jb->trans, t, u);
            mv(jb, out, jb->ldb, gen, m, n, 0, u, y);
        }
        mv(jb, B0, jb->ldb, gen, m, n, 0, t, w);
        for (int i = 0; i < m; i++) ref[i] = jb->alpha * w[i];
        break;
    default: /* TRMM: alpha op(A) B0 (left) or alpha B0 op(A) (right) */
        if (!jb->right) {
            mv(jb, B0, jb->ldb, gen, m, n, 0, t, u);
            mv(jb, A, jb->lda, a_struct, m, m, jb->trans, u, w);
        } else {
            mv(jb, A, jb->lda, a_struct, n, n, jb->trans, t, u);
            mv(jb, B0, jb->ldb, gen, m, n, 0, u, w);
        }
        for (int i = 0; i < m; i++) ref[i] = jb->alpha * w[i];
        mv(jb, out, jb->ldb, gen, m, n, 0, t, y);
        break;
    }
    long double maxdiff = 0.0L, maxref = 0.0L;
    for (int i = 0; i < rows; i++) {
        if (!isfinite((double)y[i])) {
            result = INFINITY;
            goto out;
        }
        long double d = fabsl(y[i] - ref[i]);
        if (d > maxdiff) maxdiff = d;
        if (fabsl(ref[i]) > maxref) maxref = fabsl(ref[i]);
    }
    if (maxref == 0.0L) maxref = 1.0L;
    result = (double)(maxdiff / (maxref * (long double)kk * (jb->dbl ? DBL_EPSILON : FLT_EPSILON)));
out:
    free(t);
    free(u);
    free(w);
    free(y);
    free(ref);
    return result;
}

/* Element-wise max|X - R| / (max|R| k eps) over what the routine writes (SYRK/SYR2K: the
 * triangle). */
static double compare(const job_t *jb, const void *X, const void *R)
{
    const int tri = jb->r == R_SYRK || jb->r == R_SYR2K;
    const int rows = tri ? jb->n : jb->m, cols = jb->n, ld = is_tri(jb->r) ? jb->ldb : jb->ldc;
    double maxdiff = 0.0, maxref = 0.0;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) {
            if (tri && (!jb->lower ? i > j : i < j)) continue;
            double x = el(X, jb->dbl, jb->row, ld, i, j), r = el(R, jb->dbl, jb->row, ld, i, j);
            if (!isfinite(x)) return INFINITY;
            if (fabs(x - r) > maxdiff) maxdiff = fabs(x - r);
            if (fabs(r) > maxref) maxref = fabs(r);
        }
    const int kk = jb->r == R_SYR2K ? 2 * jb->k : jb->r == R_SYRK ? jb->k : jb->ka;
    return maxdiff / ((maxref ? maxref : 1.0) * kk * (jb->dbl ? DBL_EPSILON : FLT_EPSILON));
}

/* TRSM's reference solution by OpenBLAS: X := B0, then cblas_{s,d}trsm in the job's layout.
 * Returns 0, or -1 where the benchmark is built without OpenBLAS. */
static int blas_trsm_ref(const job_t *jb, const void *A, const void *B0, void *X)
{
#ifdef CLHGEMM_HAVE_OPENBLAS
    memcpy(X, B0, jb->nb * (jb->dbl ? 8 : 4));
    const CBLAS_ORDER lay = jb->row ? CblasRowMajor : CblasColMajor;
    const CBLAS_SIDE side = jb->right ? CblasRight : CblasLeft;
    const CBLAS_UPLO uplo = jb->lower ? CblasLower : CblasUpper;
    const CBLAS_TRANSPOSE tr = jb->trans ? CblasTrans : CblasNoTrans;
    const CBLAS_DIAG dg = jb->unit ? CblasUnit : CblasNonUnit;
    if (jb->dbl)
        cblas_dtrsm(lay, side, uplo, tr, dg, jb->m, jb->n, jb->alpha, (const double *)A, jb->lda,
                    (double *)X, jb->ldb);
    else
        cblas_strsm(lay, side, uplo, tr, dg, jb->m, jb->n, (float)jb->alpha, (const float *)A,
                    jb->lda, (float *)X, jb->ldb);
    return 0;
#else
    (void)jb, (void)A, (void)B0, (void)X;
    return -1;
#endif
}

/* ---- the calls ---------------------------------------------------------------------------- */

static void set_syr2k_mode(const char *mode)
{
    if (mode) setenv("CLHGEMM_SYR2K", mode, 1);
    else unsetenv("CLHGEMM_SYR2K");
}

static int enqueue(int lib, const job_t *j, const opts_t *o, cl_event *ev, char *why, size_t wl)
{
    const clhgemm_layout_t lay = j->row ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
    const clhgemm_side_t side = j->right ? CLHGEMM_RIGHT : CLHGEMM_LEFT;
    const clhgemm_uplo_t uplo = j->lower ? CLHGEMM_LOWER : CLHGEMM_UPPER;
    const clhgemm_transpose_t tr = j->trans ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    const clhgemm_diag_t dg = j->unit ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT;
    const float fa = (float)j->alpha, fb = (float)j->beta;
    *ev = NULL;
    if (lib == L_OURS || lib == L_ALT || lib == L_GEMM) {
        clhgemm_status_t st = CLHGEMM_SUCCESS;
        if (lib == L_GEMM) {
            int gm, gn, gk;
            gemm_shape(j, &gm, &gn, &gk);
            cl_mem a = j->A, b = j->B, c = j->C;
            int lda = j->lda, ldb = j->ldb, ldc = j->ldc;
            clhgemm_transpose_t ta = CLHGEMM_NO_TRANS, tb = CLHGEMM_NO_TRANS;
            switch (j->r) {
            case R_SYMM:
                if (j->right) a = j->B, lda = j->ldb, b = j->A, ldb = j->lda;
                break;
            case R_SYRK:
            case R_SYR2K:
                if (j->r == R_SYRK) b = j->A, ldb = j->lda;
                ta = j->trans ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
                tb = j->trans ? CLHGEMM_NO_TRANS : CLHGEMM_TRANS;
                break;
            default: /* TRMM, TRSM: op(A) B or B op(A) into G */
                c = j->G, ldc = j->ldb;
                if (!j->right) ta = tr;
                else a = j->B, lda = j->ldb, b = j->A, ldb = j->lda, tb = tr;
                break;
            }
            st = j->dbl ? clhgemm_dgemm_cl(lay, ta, tb, gm, gn, gk, j->alpha, a, 0, lda, b, 0, ldb,
                                           j->beta, c, 0, ldc, j->q, ev)
                        : clhgemm_sgemm_cl(lay, ta, tb, gm, gn, gk, fa, a, 0, lda, b, 0, ldb, fb,
                                           c, 0, ldc, j->q, ev);
        } else {
            if (j->r == R_SYR2K && o->syr2k)
                set_syr2k_mode(!strcmp(o->syr2k, "both") ? (lib == L_ALT ? "two" : "fused")
                                                         : o->syr2k);
            switch (j->r) {
            case R_SYMM:
                st = j->dbl ? clhgemm_dsymm_cl(lay, side, uplo, j->m, j->n, j->alpha, j->A, 0,
                                               j->lda, j->B, 0, j->ldb, j->beta, j->C, 0, j->ldc,
                                               j->q, ev)
                            : clhgemm_ssymm_cl(lay, side, uplo, j->m, j->n, fa, j->A, 0, j->lda,
                                               j->B, 0, j->ldb, fb, j->C, 0, j->ldc, j->q, ev);
                break;
            case R_SYRK:
                st = j->dbl ? clhgemm_dsyrk_cl(lay, uplo, tr, j->n, j->k, j->alpha, j->A, 0,
                                               j->lda, j->beta, j->C, 0, j->ldc, j->q, ev)
                            : clhgemm_ssyrk_cl(lay, uplo, tr, j->n, j->k, fa, j->A, 0, j->lda, fb,
                                               j->C, 0, j->ldc, j->q, ev);
                break;
            case R_SYR2K:
                st = j->dbl ? clhgemm_dsyr2k_cl(lay, uplo, tr, j->n, j->k, j->alpha, j->A, 0,
                                                j->lda, j->B, 0, j->ldb, j->beta, j->C, 0, j->ldc,
                                                j->q, ev)
                            : clhgemm_ssyr2k_cl(lay, uplo, tr, j->n, j->k, fa, j->A, 0, j->lda,
                                                j->B, 0, j->ldb, fb, j->C, 0, j->ldc, j->q, ev);
                break;
            case R_TRMM:
                st = j->dbl ? clhgemm_dtrmm_cl(lay, side, uplo, tr, dg, j->m, j->n, j->alpha,
                                               j->A, 0, j->lda, j->B, 0, j->ldb, j->q, ev)
                            : clhgemm_strmm_cl(lay, side, uplo, tr, dg, j->m, j->n, fa, j->A, 0,
                                               j->lda, j->B, 0, j->ldb, j->q, ev);
                break;
            default:
                st = j->dbl ? clhgemm_dtrsm_cl(lay, side, uplo, tr, dg, j->m, j->n, j->alpha,
                                               j->A, 0, j->lda, j->B, 0, j->ldb, j->q, ev)
                            : clhgemm_strsm_cl(lay, side, uplo, tr, dg, j->m, j->n, fa, j->A, 0,
                                               j->lda, j->B, 0, j->ldb, j->q, ev);
                break;
            }
        }
        if (st != CLHGEMM_SUCCESS) {
            snprintf(why, wl, "%s: %s (%d)", lname[lib], clhgemm_status_string(st), (int)st);
            return -1;
        }
        return 0;
    }
#ifdef CLHGEMM_HAVE_CLBLAST
    const CLBlastLayout cl = j->row ? CLBlastLayoutRowMajor : CLBlastLayoutColMajor;
    const CLBlastSide cs = j->right ? CLBlastSideRight : CLBlastSideLeft;
    const CLBlastTriangle ct = j->lower ? CLBlastTriangleLower : CLBlastTriangleUpper;
    const CLBlastTranspose cT = j->trans ? CLBlastTransposeYes : CLBlastTransposeNo;
    const CLBlastDiagonal cd = j->unit ? CLBlastDiagonalUnit : CLBlastDiagonalNonUnit;
    const size_t m = (size_t)j->m, n = (size_t)j->n, k = (size_t)j->k;
    const size_t lda = (size_t)j->lda, ldb = (size_t)j->ldb, ldc = (size_t)j->ldc;
    cl_command_queue q = j->q;
    CLBlastStatusCode s;
    switch (j->r) {
    case R_SYMM:
        s = j->dbl ? CLBlastDsymm(cl, cs, ct, m, n, j->alpha, j->A, 0, lda, j->B, 0, ldb, j->beta,
                                  j->C, 0, ldc, &q, ev)
                   : CLBlastSsymm(cl, cs, ct, m, n, fa, j->A, 0, lda, j->B, 0, ldb, fb, j->C, 0,
                                  ldc, &q, ev);
        break;
    case R_SYRK:
        s = j->dbl ? CLBlastDsyrk(cl, ct, cT, n, k, j->alpha, j->A, 0, lda, j->beta, j->C, 0, ldc,
                                  &q, ev)
                   : CLBlastSsyrk(cl, ct, cT, n, k, fa, j->A, 0, lda, fb, j->C, 0, ldc, &q, ev);
        break;
    case R_SYR2K:
        s = j->dbl ? CLBlastDsyr2k(cl, ct, cT, n, k, j->alpha, j->A, 0, lda, j->B, 0, ldb, j->beta,
                                   j->C, 0, ldc, &q, ev)
                   : CLBlastSsyr2k(cl, ct, cT, n, k, fa, j->A, 0, lda, j->B, 0, ldb, fb, j->C, 0,
                                   ldc, &q, ev);
        break;
    case R_TRMM:
        s = j->dbl ? CLBlastDtrmm(cl, cs, ct, cT, cd, m, n, j->alpha, j->A, 0, lda, j->B, 0, ldb,
                                  &q, ev)
                   : CLBlastStrmm(cl, cs, ct, cT, cd, m, n, fa, j->A, 0, lda, j->B, 0, ldb, &q,
                                  ev);
        break;
    default:
        s = j->dbl ? CLBlastDtrsm(cl, cs, ct, cT, cd, m, n, j->alpha, j->A, 0, lda, j->B, 0, ldb,
                                  &q, ev)
                   : CLBlastStrsm(cl, cs, ct, cT, cd, m, n, fa, j->A, 0, lda, j->B, 0, ldb, &q,
                                  ev);
        break;
    }
    if (s != CLBlastSuccess) {
        snprintf(why, wl, "CLBlast status %d", (int)s);
        return -1;
    }
    return 0;
#else
    (void)o;
    snprintf(why, wl, "not built with CLBlast");
    return -1;
#endif
}

/* Restores what a call overwrites (TRMM's and TRSM's B) and waits, so that the next rep starts
 * alike. */
static int restore(const job_t *j)
{
    if (!is_tri(j->r)) return 0;
    const size_t es = j->dbl ? 8 : 4;
    if (clEnqueueCopyBuffer(j->q, j->B0, j->B, 0, 0, j->nb * es, 0, NULL, NULL) != CL_SUCCESS)
        return -1;
    return clFinish(j->q) == CL_SUCCESS ? 0 : -1;
}

static int run_once(int lib, const job_t *j, const opts_t *o, double *ms, char *why, size_t wl)
{
    cl_event ev;
    if (restore(j)) {
        snprintf(why, wl, "restoring B failed");
        return -1;
    }
    double t0 = now_ms();
    if (enqueue(lib, j, o, &ev, why, wl)) {
        clFinish(j->q);
        return -1;
    }
    if (!ev) {
        snprintf(why, wl, "%s returned no event", lname[lib]);
        clFinish(j->q);
        return -1;
    }
    cl_int err = clWaitForEvents(1, &ev), exec = CL_COMPLETE;
    *ms = now_ms() - t0;
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    clReleaseEvent(ev);
    if (err != CL_SUCCESS || exec < 0) {
        snprintf(why, wl, "%s: wait failed (%d, %d)", lname[lib], (int)err, (int)exec);
        return -1;
    }
    return 0;
}

/* ---- one job ------------------------------------------------------------------------------ */

typedef struct res_s {
    int ran;
    double med, min, max, gflops, err, err_ref, err_blas; /* err_blas: TRSM vs OpenBLAS */
    char note[320];
} res_t;

typedef struct row_s {
    int r, dbl, size;
    res_t x[NL];
} row_t;

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
    row_t rows[NR * 2 * MAX_SIZES];
    int nrows, failures;
} ctx_t;

static void bench_job_host(ctx_t *c, int r, int dbl, int size);

static void bench_job(ctx_t *c, int r, int dbl, int size)
{
    if (c->o.host) {
        bench_job_host(c, r, dbl, size);
        return;
    }
    const opts_t *o = &c->o;
    row_t *row = &c->rows[c->nrows++];
    memset(row, 0, sizeof *row);
    row->r = r;
    row->dbl = dbl;
    row->size = size;
    for (int l = 0; l < NL; l++) row->x[l].err = row->x[l].err_ref = row->x[l].err_blas = NAN;
    job_t j;
    memset(&j, 0, sizeof j);
    j.r = r;
    j.dbl = dbl;
    j.row = o->row;
    j.right = has_side(r) && o->right;
    j.lower = o->lower;
    j.trans = (r != R_SYMM) && o->trans;
    j.unit = is_tri(r) && o->unit;
    j.m = j.n = j.k = size;
    j.ka = size;
    j.alpha = 1.0;
    j.beta = is_tri(r) ? 0.0 : 0.5;
    j.q = c->queue;
    /* tight leading dimensions: all matrices are size x size */
    j.lda = j.ldb = j.ldc = size;
    j.na = j.nb = j.nc = (size_t)size * size;
    const size_t es = dbl ? 8 : 4;
    const int use[NL] = {1, r == R_SYR2K && o->syr2k && !strcmp(o->syr2k, "both"), c->have_clblast, 1, 0};
    const double need = (double)es * (double)(j.na + 3 * j.nb + j.nc);
    void *A = NULL, *B = NULL, *C0 = NULL, *xref = NULL, *out[NL] = {NULL};
    char why[256];
    printf("[%c%s %d] %s%s%s%s %.1f MiB\n", dbl ? 'd' : 's', rname[r], size,
           has_side(r) ? (j.right ? "side R " : "side L ") : "",
           j.lower ? "lower" : "upper", (r != R_SYMM) ? (j.trans ? " trans T" : " trans N") : "",
           is_tri(r) ? (j.unit ? " unit" : " non-unit") : "", need / 1048576.0);
    if (need > 0.6 * (double)c->info.global_mem_bytes || (double)es * j.na > (double)c->info.max_alloc_bytes) {
        for (int l = 0; l < NL; l++) snprintf(row->x[l].note, sizeof row->x[l].note, "skipped: too large");
        printf("    skipped: too large for the device\n");
        return;
    }
    A = malloc(j.na * es);
    B = malloc(j.nb * es);
    C0 = malloc(j.nc * es);
    int oom = !A || !B || !C0;
    for (int l = 0; l < NL; l++) oom |= (out[l] = malloc(j.nc * es)) == NULL;
    if (oom) {
        printf("    skipped: out of host memory\n");
        goto done;
    }
    if (r == R_TRSM) fill_trsm_a(A, dbl, size, 0xA0 + (uint64_t)size * 7 + (uint64_t)dbl);
    else fill_random(A, dbl, j.na, 0xA0 + (uint64_t)size * 7 + (uint64_t)dbl);
    fill_random(B, dbl, j.nb, 0xB0 + (uint64_t)size * 7 + (uint64_t)dbl);
    fill_random(C0, dbl, j.nc, 0xC0 + (uint64_t)size * 7 + (uint64_t)dbl);
    cl_int err = CL_SUCCESS;
    const cl_mem_flags f = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    j.A = clCreateBuffer(c->context, f, j.na * es, A, &err);
    if (err == CL_SUCCESS) j.B = clCreateBuffer(c->context, f, j.nb * es, B, &err);
    if (err == CL_SUCCESS) j.B0 = clCreateBuffer(c->context, f, j.nb * es, B, &err);
    if (err == CL_SUCCESS) j.G = clCreateBuffer(c->context, f, j.nb * es, B, &err);
    if (err == CL_SUCCESS) j.C = clCreateBuffer(c->context, f, j.nc * es, C0, &err);
    if (err != CL_SUCCESS) {
        printf("    device buffers failed: %s\n", clhgemm_status_string(err));
        c->failures++;
        goto done;
    }
    int active[NL];
    for (int l = 0; l < NL; l++) {
        active[l] = use[l];
        if (l == L_CLBLAST && !use[l])
            snprintf(row->x[l].note, sizeof row->x[l].note, "%s", o->clblast ? "not built with CLBlast" : "--no-clblast");
    }
    /* first call of each library from the same data: builds, checks */
    for (int l = 0; l < NL; l++) {
        if (!active[l]) continue;
        double ms;
        err = clEnqueueWriteBuffer(c->queue, j.C, CL_TRUE, 0, j.nc * es, C0, 0, NULL, NULL);
        if (err != CL_SUCCESS || run_once(l, &j, o, &ms, why, sizeof why)) {
            if (err != CL_SUCCESS) snprintf(why, sizeof why, "write C: %s", clhgemm_status_string(err));
            snprintf(row->x[l].note, sizeof row->x[l].note, "%s", why);
            printf("    %s failed: %s\n", lname[l], why);
            active[l] = 0;
            if (l != L_CLBLAST) c->failures++;
            continue;
        }
        cl_mem res = l == L_GEMM ? (is_tri(r) ? j.G : j.C) : (is_tri(r) ? j.B : j.C);
        err = clEnqueueReadBuffer(c->queue, res, CL_TRUE, 0, j.nc * es, out[l], 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            active[l] = 0;
            c->failures++;
            continue;
        }
        printf("    %-13s first call %.1f ms (includes kernel builds)\n", lname[l], ms);
        if (o->check && l != L_GEMM) row->x[l].err = cheap_check(&j, A, B, C0, out[l]);
    }
    if (o->check && active[L_OURS] && active[L_CLBLAST])
        row->x[L_OURS].err_ref = compare(&j, out[L_OURS], out[L_CLBLAST]);
    if (o->check && active[L_ALT] && active[L_CLBLAST])
        row->x[L_ALT].err_ref = compare(&j, out[L_ALT], out[L_CLBLAST]);
    /* TRSM: every library's solution against OpenBLAS's, element-wise */
    if (o->check && r == R_TRSM && (xref = malloc(j.nb * es)) && !blas_trsm_ref(&j, A, B, xref))
        for (int l = 0; l < NL; l++)
            if (active[l] && l != L_GEMM) row->x[l].err_blas = compare(&j, out[l], xref);
    if (clEnqueueWriteBuffer(c->queue, j.C, CL_TRUE, 0, j.nc * es, C0, 0, NULL, NULL) != CL_SUCCESS) {
        c->failures++;
        goto done;
    }
    {
        double *t[NL];
        for (int l = 0; l < NL; l++) t[l] = calloc((size_t)o->reps, sizeof(double));
        for (int w = 0; w < o->warmup; w++)
            for (int l = 0; l < NL; l++) {
                double ms;
                if (active[l] && run_once(l, &j, o, &ms, why, sizeof why)) {
                    snprintf(row->x[l].note, sizeof row->x[l].note, "%s", why);
                    active[l] = 0;
                    c->failures += l != L_CLBLAST;
                }
            }
        for (int rep = 0; rep < o->reps; rep++)
            for (int l = 0; l < NL; l++)
                if (active[l] && t[l] && run_once(l, &j, o, &t[l][rep], why, sizeof why)) {
                    snprintf(row->x[l].note, sizeof row->x[l].note, "%s", why);
                    active[l] = 0;
                    c->failures += l != L_CLBLAST;
                }
        for (int l = 0; l < NL; l++) {
            if (active[l] && t[l]) {
                res_t *x = &row->x[l];
                x->ran = 1;
                x->med = stats_median(t[l], o->reps, &x->min, &x->max);
                if (l == L_GEMM) {
                    int gm, gn, gk;
                    gemm_shape(&j, &gm, &gn, &gk);
                    x->gflops = 2.0 * gm * (double)gn * gk / (x->med * 1e6);
                } else {
                    x->gflops = flops_routine(&j) / (x->med * 1e6);
                }
            }
            free(t[l]);
        }
    }
    for (int l = 0; l < NL; l++) {
        res_t *x = &row->x[l];
        if ((!isnan(x->err) && !(x->err <= 1.0)) || (!isnan(x->err_ref) && !(x->err_ref <= 1.0)) ||
            (!isnan(x->err_blas) && !(x->err_blas <= 1.0))) {
            printf("    %s: %s check beyond tolerance (cheap %.3g, vs CLBlast %.3g, vs OpenBLAS "
                   "%.3g; 1.0 = k*eps)\n", l != L_CLBLAST ? "FAILED" : "WARN", lname[l], x->err,
                   x->err_ref, x->err_blas);
            if (l != L_CLBLAST) c->failures++;
        }
    }
    for (int l = 0; l < NL; l++) {
        const res_t *x = &row->x[l];
        if (!use[l] && (l == L_ALT || l == L_XT)) continue;
        if (x->ran)
            printf("    %-13s %10.1f GFLOP/s  median %9.3f ms  min %9.3f  max %9.3f%s", lname[l],
                   x->gflops, x->med, x->min, x->max, l == L_GEMM ? "  (2mnk of the GEMM)" : "");
        else
            printf("    %-13s n/a (%s)", lname[l], x->note[0] ? x->note : "not run");
        if (!isnan(x->err)) printf("  check %.3g", x->err);
        if (!isnan(x->err_ref)) printf("  vs CLBlast %.3g", x->err_ref);
        if (!isnan(x->err_blas)) printf("  vs OpenBLAS %.3g", x->err_blas);
        printf("\n");
    }
    if (c->csv) {
        for (int l = 0; l < NL; l++) {
            const res_t *x = &row->x[l];
            if (!x->ran) continue;
            const char *mode = "";
            if (r == R_SYR2K && l != L_GEMM && l != L_CLBLAST)
                mode = o->syr2k ? (!strcmp(o->syr2k, "both") ? (l == L_ALT ? "two" : "fused") : o->syr2k) : "lib";
            fprintf(c->csv, "%s,\"%s\",\"%s\",%c,%s,%d,%d,%d,%c,%c,%c,%c,%s,%s,%s,%.6f,%.3f,%.6f,%.6f,",
                    c->date, c->info.name, c->info.driver_version, dbl ? 'd' : 's', rname[r], j.m,
                    j.n, j.k, j.right ? 'R' : 'L', j.lower ? 'L' : 'U', j.trans ? 'T' : 'N',
                    j.unit ? 'U' : 'N', j.row ? "row" : "col", lname[l], mode, x->med, x->gflops,
                    x->min, x->max);
            if (row->x[L_GEMM].ran) fprintf(c->csv, "%.3f", row->x[L_GEMM].gflops);
            fprintf(c->csv, ",%d,", o->reps);
            if (!isnan(x->err)) fprintf(c->csv, "%.4g", x->err);
            fputc(',', c->csv);
            if (!isnan(x->err_ref)) fprintf(c->csv, "%.4g", x->err_ref);
            fputc(',', c->csv);
            if (!isnan(x->err_blas)) fprintf(c->csv, "%.4g", x->err_blas);
            fputc('\n', c->csv);
        }
        fflush(c->csv);
    }
done:
    clFinish(c->queue);
    cl_mem all[] = {j.A, j.B, j.B0, j.G, j.C};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) clReleaseMemObject(all[i]);
    free(A);
    free(B);
    free(C0);
    free(xref);
    for (int l = 0; l < NL; l++) free(out[l]);
}

/* ---- --host: the host-memory routines ------------------------------------------------------ */

/* Host operands of a job (its cl_mem fields unused). */
typedef struct hjob_s {
    void *A, *B, *C, *G; /* G: the GEMM's output for TRMM (B stays TRMM's input) */
} hjob_t;

/* One synchronous host-memory call: the routine (L_OURS) or the GEMM it stands for (L_GEMM). */
static clhgemm_status_t host_once(clhgemm_handle_t h, int lib, const job_t *j, const hjob_t *x)
{
    const clhgemm_layout_t lay = j->row ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
    const clhgemm_side_t side = j->right ? CLHGEMM_RIGHT : CLHGEMM_LEFT;
    const clhgemm_uplo_t uplo = j->lower ? CLHGEMM_LOWER : CLHGEMM_UPPER;
    const clhgemm_transpose_t tr = j->trans ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    const clhgemm_diag_t dg = j->unit ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT;
    const float fa = (float)j->alpha, fb = (float)j->beta;
    if (lib == L_GEMM) {
        /* the same operands as enqueue()'s L_GEMM */
        int gm, gn, gk;
        gemm_shape(j, &gm, &gn, &gk);
        const void *a = x->A, *b = x->B;
        void *c = x->C;
        int lda = j->lda, ldb = j->ldb, ldc = j->ldc;
        clhgemm_transpose_t ta = CLHGEMM_NO_TRANS, tb = CLHGEMM_NO_TRANS;
        switch (j->r) {
        case R_SYMM:
            if (j->right) a = x->B, lda = j->ldb, b = x->A, ldb = j->lda;
            break;
        case R_SYRK:
        case R_SYR2K:
            if (j->r == R_SYRK) b = x->A, ldb = j->lda;
            ta = j->trans ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
            tb = j->trans ? CLHGEMM_NO_TRANS : CLHGEMM_TRANS;
            break;
        default: /* TRMM, TRSM: op(A) B or B op(A) into G */
            c = x->G, ldc = j->ldb;
            if (!j->right) ta = tr;
            else a = x->B, lda = j->ldb, b = x->A, ldb = j->lda, tb = tr;
            break;
        }
        return j->dbl ? clhgemm_dgemm(h, lay, ta, tb, gm, gn, gk, j->alpha, a, lda, b, ldb, j->beta, c, ldc)
                      : clhgemm_sgemm(h, lay, ta, tb, gm, gn, gk, fa, a, lda, b, ldb, fb, c, ldc);
    }
    switch (j->r) {
    case R_SYMM:
        return j->dbl ? clhgemm_dsymm(h, lay, side, uplo, j->m, j->n, j->alpha, x->A, j->lda, x->B,
                                      j->ldb, j->beta, x->C, j->ldc)
                      : clhgemm_ssymm(h, lay, side, uplo, j->m, j->n, fa, x->A, j->lda, x->B,
                                      j->ldb, fb, x->C, j->ldc);
    case R_SYRK:
        return j->dbl ? clhgemm_dsyrk(h, lay, uplo, tr, j->n, j->k, j->alpha, x->A, j->lda, j->beta,
                                      x->C, j->ldc)
                      : clhgemm_ssyrk(h, lay, uplo, tr, j->n, j->k, fa, x->A, j->lda, fb, x->C, j->ldc);
    case R_SYR2K:
        return j->dbl ? clhgemm_dsyr2k(h, lay, uplo, tr, j->n, j->k, j->alpha, x->A, j->lda, x->B,
                                       j->ldb, j->beta, x->C, j->ldc)
                      : clhgemm_ssyr2k(h, lay, uplo, tr, j->n, j->k, fa, x->A, j->lda, x->B, j->ldb,
                                       fb, x->C, j->ldc);
    case R_TRMM:
        return j->dbl ? clhgemm_dtrmm(h, lay, side, uplo, tr, dg, j->m, j->n, j->alpha, x->A, j->lda,
                                      x->B, j->ldb)
                      : clhgemm_strmm(h, lay, side, uplo, tr, dg, j->m, j->n, fa, x->A, j->lda,
                                      x->B, j->ldb);
    default:
        return j->dbl ? clhgemm_dtrsm(h, lay, side, uplo, tr, dg, j->m, j->n, j->alpha, x->A, j->lda,
                                      x->B, j->ldb)
                      : clhgemm_strsm(h, lay, side, uplo, tr, dg, j->m, j->n, fa, x->A, j->lda,
                                      x->B, j->ldb);
    }
}

/* TRMM's and TRSM's B restored (outside the timing), then one timed call. */
static int host_rep(ctx_t *c, int lib, const job_t *j, const hjob_t *x, const void *B0, double *ms,
                    char *why, size_t wl)
{
    const size_t es = j->dbl ? 8 : 4;
    if (is_tri(j->r) && lib == L_OURS) memcpy(x->B, B0, j->nb * es);
    const double t0 = now_ms();
    const clhgemm_status_t st = host_once(c->handle, lib, j, x);
    *ms = now_ms() - t0;
    if (st != CLHGEMM_SUCCESS) {
        snprintf(why, wl, "%s: %s (%d)", lname[lib], clhgemm_status_string(st), (int)st);
        return -1;
    }
    return 0;
}

/* cublasXt's TRSM on the job's host arrays (x->B overwritten, restored from B0 before every
 * call): its timings into *rs, its solution checked like ours. Column-major only, so a
 * row-major job is solved as its transpose: side and uplo swapped, m and n swapped, transA
 * kept. Not counted as a failure of ours when it cannot run or is beyond tolerance. */
static void host_xt(ctx_t *c, const job_t *j, const hjob_t *x, const void *B0, void *out, res_t *rs)
{
#ifdef CLHGEMM_HAVE_CUBLASXT
    const opts_t *o = &c->o;
    if (cublasxt_device_count() <= 0) {
        snprintf(rs->note, sizeof rs->note, "%s", cublasxt_last_error());
        return;
    }
    const int reps = o->reps, warmup = o->warmup > 0 ? o->warmup : 1; /* one untimed, as ours */
    const size_t m = (size_t)(j->row ? j->n : j->m), n = (size_t)(j->row ? j->m : j->n);
    int block = 0;
    if (cublasxt_trsm(j->dbl, j->right != j->row, j->lower != j->row, j->trans, j->unit, m, n,
                      j->alpha, x->A, (size_t)j->lda, x->B, B0, (size_t)j->ldb, o->xt_devices, 0,
                      warmup, reps, &rs->med, &rs->min, &rs->max, &block)) {
        snprintf(rs->note, sizeof rs->note, "%s", cublasxt_last_error());
        printf("    cublasxt      failed: %s\n", rs->note);
        return;
    }
    rs->ran = 1;
    rs->gflops = flops_routine(j) / (rs->med * 1e6);
    snprintf(rs->note, sizeof rs->note, "%d device(s), block %d", o->xt_devices, block);
    if (o->check) {
        memcpy(out, x->B, j->nb * (j->dbl ? 8 : 4));
        rs->err = cheap_check(j, x->A, B0, NULL, out);
    }
#else
    (void)c, (void)j, (void)x, (void)B0, (void)out;
    snprintf(rs->note, sizeof rs->note, "built without CUDA");
#endif
}

static void bench_job_host(ctx_t *c, int r, int dbl, int size)
{
    const opts_t *o = &c->o;
    row_t *row = &c->rows[c->nrows++];
    memset(row, 0, sizeof *row);
    row->r = r;
    row->dbl = dbl;
    row->size = size;
    for (int l = 0; l < NL; l++) row->x[l].err = row->x[l].err_ref = row->x[l].err_blas = NAN;
    snprintf(row->x[L_CLBLAST].note, sizeof row->x[L_CLBLAST].note, "host memory: no CLBlast");
    job_t j;
    memset(&j, 0, sizeof j);
    j.r = r;
    j.dbl = dbl;
    j.row = o->row;
    j.right = has_side(r) && o->right;
    j.lower = o->lower;
    j.trans = (r != R_SYMM) && o->trans;
    j.unit = is_tri(r) && o->unit;
    j.m = j.n = j.k = j.ka = size;
    j.alpha = 1.0;
    j.beta = is_tri(r) ? 0.0 : 0.5;
    j.lda = j.ldb = j.ldc = size;
    j.na = j.nb = j.nc = (size_t)size * size;
    const size_t es = dbl ? 8 : 4;
    printf("[%c%s %d host] %s%s%s%s\n", dbl ? 'd' : 's', rname[r], size,
           has_side(r) ? (j.right ? "side R " : "side L ") : "",
           j.lower ? "lower" : "upper", (r != R_SYMM) ? (j.trans ? " trans T" : " trans N") : "",
           is_tri(r) ? (j.unit ? " unit" : " non-unit") : "");
    hjob_t x = {malloc(j.na * es), malloc(j.nb * es), malloc(j.nc * es), malloc(j.nb * es)};
    void *B0 = malloc(j.nb * es), *C0 = malloc(j.nc * es), *out = malloc(j.nc * es), *xref = NULL;
    const int xt = r == R_TRSM && c->xt_col;
    if (!xt) snprintf(row->x[L_XT].note, sizeof row->x[L_XT].note, "-");
    char why[256];
    double *t[NL] = {NULL};
    int active[NL] = {0};
    active[L_OURS] = active[L_GEMM] = 1;
    if (!x.A || !x.B || !x.C || !x.G || !B0 || !C0 || !out) {
        printf("    skipped: out of host memory\n");
        snprintf(row->x[L_OURS].note, sizeof row->x[L_OURS].note, "skipped: out of host memory");
        goto done;
    }
    if (r == R_TRSM) fill_trsm_a(x.A, dbl, size, 0xA0 + (uint64_t)size * 7 + (uint64_t)dbl);
    else fill_random(x.A, dbl, j.na, 0xA0 + (uint64_t)size * 7 + (uint64_t)dbl);
    fill_random(B0, dbl, j.nb, 0xB0 + (uint64_t)size * 7 + (uint64_t)dbl);
    fill_random(C0, dbl, j.nc, 0xC0 + (uint64_t)size * 7 + (uint64_t)dbl);
    memcpy(x.B, B0, j.nb * es);
    if (o->check && r == R_TRSM && (xref = malloc(j.nb * es)) && blas_trsm_ref(&j, x.A, B0, xref)) {
        free(xref);
        xref = NULL;
    }
    memcpy(x.G, B0, j.nb * es);
    /* first call of each from the same data (kernel builds, the handle's first plans); checks */
    for (int l = 0; l < NL; l++) {
        if (!active[l]) continue;
        double ms;
        memcpy(x.C, C0, j.nc * es);
        if (host_rep(c, l, &j, &x, B0, &ms, why, sizeof why)) {
            snprintf(row->x[l].note, sizeof row->x[l].note, "%s", why);
            printf("    %s failed: %s\n", lname[l], why);
            active[l] = 0;
            c->failures++;
            continue;
        }
        clhgemm_call_info_t inf;
        clhgemm_last_call_info(c->handle, &inf);
        printf("    %-13s first call %.1f ms: %d device(s), %lld tile(s) of %dx%dx%d, %.1f MB to devices\n",
               l == L_GEMM ? "host-gemm" : "host", ms, inf.devices_used, inf.tiles, inf.tile_m,
               inf.tile_n, inf.tile_k, inf.bytes_to_device * 1e-6);
        if (o->check && l == L_OURS) {
            memcpy(out, is_tri(r) ? x.B : x.C, j.nc * es);
            row->x[l].err = cheap_check(&j, x.A, B0, C0, out);
            if (xref) row->x[l].err_blas = compare(&j, out, xref);
        }
    }
    memcpy(x.C, C0, j.nc * es);
    for (int l = 0; l < NL; l++) t[l] = calloc((size_t)o->reps, sizeof(double));
    for (int w = 0; w < o->warmup; w++)
        for (int l = 0; l < NL; l++) {
            double ms;
            if (active[l] && host_rep(c, l, &j, &x, B0, &ms, why, sizeof why)) {
                snprintf(row->x[l].note, sizeof row->x[l].note, "%s", why);
                active[l] = 0;
                c->failures++;
            }
        }
    for (int rep = 0; rep < o->reps; rep++)
        for (int l = 0; l < NL; l++)
            if (active[l] && t[l] && host_rep(c, l, &j, &x, B0, &t[l][rep], why, sizeof why)) {
                snprintf(row->x[l].note, sizeof row->x[l].note, "%s", why);
                active[l] = 0;
                c->failures++;
            }
    for (int l = 0; l < NL; l++) {
        res_t *rs = &row->x[l];
        if (!active[l] || !t[l]) continue;
        rs->ran = 1;
        rs->med = stats_median(t[l], o->reps, &rs->min, &rs->max);
        if (l == L_GEMM) {
            int gm, gn, gk;
            gemm_shape(&j, &gm, &gn, &gk);
            rs->gflops = 2.0 * gm * (double)gn * gk / (rs->med * 1e6);
        } else {
            rs->gflops = flops_routine(&j) / (rs->med * 1e6);
        }
    }
    if (xt) {
        /* after ours (its reps run as one block); x.B is free again, C0 plays no part */
        host_xt(c, &j, &x, B0, out, &row->x[L_XT]);
        if (xref && row->x[L_XT].ran && o->check)
            row->x[L_XT].err_blas = compare(&j, out, xref);
    }
    for (int l = 0; l < NL; l++) {
        const res_t *rs = &row->x[l];
        if ((!isnan(rs->err) && !(rs->err <= 1.0)) || (!isnan(rs->err_blas) && !(rs->err_blas <= 1.0))) {
            printf("    %s: %s check beyond tolerance (cheap %.3g, vs OpenBLAS %.3g; 1.0 = k*eps)\n",
                   l == L_OURS ? "FAILED" : "WARN", l == L_OURS ? "host" : lname[l], rs->err,
                   rs->err_blas);
            if (l == L_OURS) c->failures++;
        }
    }
    for (int l = 0; l < NL; l++) {
        const res_t *rs = &row->x[l];
        const char *name = l == L_GEMM ? "host-gemm" : l == L_XT ? "cublasxt" : "host";
        if (l != L_OURS && l != L_GEMM && !(l == L_XT && xt)) continue;
        if (rs->ran)
            printf("    %-13s %10.1f GFLOP/s  median %9.3f ms  min %9.3f  max %9.3f%s", name,
                   rs->gflops, rs->med, rs->min, rs->max, l == L_GEMM ? "  (2mnk of the GEMM)" : "");
        else
            printf("    %-13s n/a (%s)", name, rs->note[0] ? rs->note : "not run");
        if (l == L_XT && rs->ran) printf("  (%s)", rs->note);
        if (!isnan(rs->err)) printf("  check %.3g", rs->err);
        if (!isnan(rs->err_blas)) printf("  vs OpenBLAS %.3g", rs->err_blas);
        printf("\n");
    }
    if (c->csv)
        for (int l = 0; l < NL; l++) {
            const res_t *rs = &row->x[l];
            if (!rs->ran) continue;
            fprintf(c->csv, "%s,\"%s\",\"%s\",%c,%s,%d,%d,%d,%c,%c,%c,%c,%s,%s,%s,%.6f,%.3f,%.6f,%.6f,",
                    c->date, c->info.name, c->info.driver_version, dbl ? 'd' : 's', rname[r], j.m, j.n,
                    j.k, j.right ? 'R' : 'L', j.lower ? 'L' : 'U', j.trans ? 'T' : 'N', j.unit ? 'U' : 'N',
                    j.row ? "row" : "col",
                    l == L_GEMM ? "clhgemm-host-gemm" : l == L_XT ? "cublasxt" : "clhgemm-host",
                    r == R_SYR2K && l == L_OURS ? "fused" : "", rs->med, rs->gflops, rs->min, rs->max);
            if (row->x[L_GEMM].ran) fprintf(c->csv, "%.3f", row->x[L_GEMM].gflops);
            fprintf(c->csv, ",%d,", o->reps);
            if (!isnan(rs->err)) fprintf(c->csv, "%.4g", rs->err);
            fprintf(c->csv, ",,");
            if (!isnan(rs->err_blas)) fprintf(c->csv, "%.4g", rs->err_blas);
            fputc('\n', c->csv);
        }
    if (c->csv) fflush(c->csv);
done:
    for (int l = 0; l < NL; l++) free(t[l]);
    free(x.A);
    free(x.B);
    free(x.C);
    free(x.G);
    free(B0);
    free(C0);
    free(out);
    free(xref);
}

static void summary(const ctx_t *c)
{
    const int alt = c->o.syr2k && !strcmp(c->o.syr2k, "both");
    printf("\n== summary: %s | %s | GFLOP/s (own flop count) from the median of %d reps, %s-major ==\n",
           c->info.name, c->info.driver_version, c->o.reps, c->o.row ? "row" : "column");
    printf("%-7s %-2s %6s %10s %10s %7s %10s %8s", "routine", "p", "n", "ours", "CLBlast",
           "ours/CB", "GEMM", "ours/GEMM");
    if (alt) printf(" %10s %8s", "syr2k-two", "two/GEMM");
    if (c->xt_col) printf(" %10s %7s", "cublasXt", "ours/Xt");
    printf("  check\n");
    for (int i = 0; i < c->nrows; i++) {
        const row_t *r = &c->rows[i];
        const res_t *x = r->x;
        char a[24] = "n/a", b[24] = "n/a", q1[16] = "-", g[24] = "n/a", q2[16] = "-", t[24] = "", q3[16] = "";
        if (x[L_OURS].ran) snprintf(a, sizeof a, "%.1f", x[L_OURS].gflops);
        if (x[L_CLBLAST].ran) snprintf(b, sizeof b, "%.1f", x[L_CLBLAST].gflops);
        if (x[L_OURS].ran && x[L_CLBLAST].ran) snprintf(q1, sizeof q1, "%.2f", x[L_OURS].gflops / x[L_CLBLAST].gflops);
        if (x[L_GEMM].ran) snprintf(g, sizeof g, "%.1f", x[L_GEMM].gflops);
        if (x[L_OURS].ran && x[L_GEMM].ran) snprintf(q2, sizeof q2, "%.0f%%", 100.0 * x[L_OURS].gflops / x[L_GEMM].gflops);
        if (alt && r->r == R_SYR2K && x[L_ALT].ran) {
            snprintf(t, sizeof t, "%.1f", x[L_ALT].gflops);
            if (x[L_GEMM].ran) snprintf(q3, sizeof q3, "%.0f%%", 100.0 * x[L_ALT].gflops / x[L_GEMM].gflops);
        }
        char xt[24] = "", q4[16] = "";
        if (c->xt_col && r->r == R_TRSM) {
            snprintf(xt, sizeof xt, "n/a");
            snprintf(q4, sizeof q4, "-");
            if (x[L_XT].ran) snprintf(xt, sizeof xt, "%.1f", x[L_XT].gflops);
            if (x[L_OURS].ran && x[L_XT].ran)
                snprintf(q4, sizeof q4, "%.2f", x[L_OURS].gflops / x[L_XT].gflops);
        }
        /* the check column: ours (and ours-alt) only; the references are warned about above */
        double e = NAN;
        for (int l = 0; l < NL; l++) {
            if (l == L_CLBLAST || l == L_XT) continue;
            if (!isnan(x[l].err)) e = isnan(e) ? x[l].err : fmax(e, x[l].err);
            if (!isnan(x[l].err_ref)) e = isnan(e) ? x[l].err_ref : fmax(e, x[l].err_ref);
            if (!isnan(x[l].err_blas)) e = isnan(e) ? x[l].err_blas : fmax(e, x[l].err_blas);
        }
        char chk[32];
        if (!x[L_OURS].ran) snprintf(chk, sizeof chk, "%s", strncmp(x[L_OURS].note, "skipped", 7) ? "FAILED" : "skipped");
        else if (isnan(e)) snprintf(chk, sizeof chk, "-");
        else snprintf(chk, sizeof chk, "%s %.2g", e <= 1.0 ? "ok" : "FAILED", e);
        printf("%-7s %-2c %6d %10s %10s %7s %10s %8s", rname[r->r], r->dbl ? 'd' : 's', r->size, a,
               b, q1, g, q2);
        if (alt) printf(" %10s %8s", t, q3);
        if (c->xt_col) printf(" %10s %7s", xt, q4);
        printf("  %s\n", chk);
    }
}

static int pick_device(const opts_t *o, clhgemm_device_info_t *out)
{
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(o->device_spec, NULL, 0, &count);
    if (st != CLHGEMM_SUCCESS || count == 0) {
        fprintf(stderr, "error: no OpenCL device: %s\n", clhgemm_status_message(st));
        return -1;
    }
    clhgemm_device_info_t *list = calloc(count, sizeof *list);
    size_t got = 0;
    if (!list || clhgemm_devices_get(o->device_spec, list, count, &got) != CLHGEMM_SUCCESS || !got) {
        free(list);
        return -1;
    }
    size_t pick = 0;
    if (!o->device_spec)
        for (size_t i = 0; i < got && i < count; i++)
            if (list[i].kind == CLHGEMM_DEVICE_GPU) {
                pick = i;
                break;
            }
    *out = list[pick];
    free(list);
    return 0;
}

int main(int argc, char **argv)
{
    static ctx_t c;
    if (parse_args(argc, argv, &c.o)) return 2;
    const opts_t *o = &c.o;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pick_device(o, &c.info)) return 1;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(c.date, sizeof c.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)c.info.platform, 0};
    c.context = clCreateContext(props, 1, &c.info.device, NULL, NULL, &err);
    if (!c.context) return 1;
    c.queue = clCreateCommandQueue(c.context, c.info.device, 0, &err);
    if (!c.queue) return 1;
#ifdef CLHGEMM_HAVE_CLBLAST
    c.have_clblast = o->clblast && !o->host;
#endif
#ifdef CLHGEMM_HAVE_CUBLASXT
    c.xt_col = o->host && o->xt && o->routine[R_TRSM];
#endif
    if (o->host) {
        clhgemm_options_t ho;
        clhgemm_options_init(&ho);
        ho.devices = o->devices;
        clhgemm_status_t st = clhgemm_create(&c.handle, &ho);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "error: clhgemm_create: %s\n", clhgemm_status_message(st));
            return 1;
        }
    }
    const char *env_mode = getenv("CLHGEMM_SYR2K");
    printf("clhgemm-bench-level3: clhgemm %s, %s\n", clhgemm_version(), c.date);
    printf("device : [%d] %s | %s | %s | driver %s\n", c.info.index, c.info.name, c.info.vendor,
           c.info.platform_name, c.info.driver_version);
    if (o->host)
        printf("host   : host-memory routines and GEMM on a handle (devices: %s); the device "
               "above only names the CSV rows\n", o->devices ? o->devices : "library default");
    printf("CLBlast: %s\n", c.have_clblast ? "yes (same buffers, same queue)"
                            : o->host ? "n/a (host memory)" : o->clblast ? "n/a (not built)" : "off");
    if (o->host) {
#ifdef CLHGEMM_HAVE_CUBLASXT
        if (!c.xt_col) printf("cuXt   : off\n");
        else if (cublasxt_device_count() > 0)
            printf("cuXt   : TRSM on %d CUDA device(s) of %s, same pageable arrays, reps as one "
                   "block after ours\n", o->xt_devices, cublasxt_description());
        else printf("cuXt   : n/a (%s)\n", cublasxt_last_error());
#else
        printf("cuXt   : n/a (built without CUDA)\n");
#endif
    }
#ifdef CLHGEMM_HAVE_OPENBLAS
    printf("check  : cheap test (long double) for all; TRSM also against OpenBLAS cblas_?trsm\n");
#else
    printf("check  : cheap test (long double) for all (built without OpenBLAS: no TRSM reference)\n");
#endif
    printf("SYR2K  : %s\n", !o->syr2k ? (env_mode ? env_mode : "library default")
                            : !strcmp(o->syr2k, "both") ? "fused ('ours') and two-pass ('alt')"
                                                        : o->syr2k);
    printf("run    : %s-major, alpha 1, beta 0.5 (TRMM, TRSM: B restored before every rep; TRSM's A "
           "diagonally dominant), warm-up %d, reps %d interleaved, host clock enqueue->wait\n\n",
           o->row ? "row" : "column", o->warmup, o->reps);
    if (o->csv) {
        static const char header[] =
            "date,device,driver,precision,routine,m,n,k,side,uplo,trans,diag,layout,library,"
            "syr2k_mode,median_ms,gflops,min_ms,max_ms,gemm_gflops,reps,check_err,vs_clblast_err,"
            "vs_openblas_err\n";
        c.csv = fopen(o->csv, "a+");
        if (!c.csv) {
            fprintf(stderr, "error: cannot open %s: %s\n", o->csv, strerror(errno));
            return 1;
        }
        /* an existing file written by an older benchmark (fewer columns) is appended to as is */
        char first[sizeof header + 1] = "";
        rewind(c.csv);
        if (!fgets(first, sizeof first, c.csv)) first[0] = '\0';
        fseek(c.csv, 0, SEEK_END);
        if (ftell(c.csv) == 0) fputs(header, c.csv);
        else if (strcmp(first, header))
            printf("note   : %s has another header (an older benchmark's?); rows appended with "
                   "the columns of: %s", o->csv, header);
    }
    for (int d = 0; d < 2; d++) {
        if ((d == 0 && !o->do_s) || (d == 1 && !o->do_d)) continue;
        if (d == 1 && !c.info.has_fp64 && !o->host) {
            printf("double: skipped (no fp64)\n");
            continue;
        }
        for (int s = 0; s < o->nsizes; s++)
            for (int r = 0; r < NR; r++)
                if (o->routine[r]) bench_job(&c, r, d, o->sizes[s]);
    }
    if (env_mode) setenv("CLHGEMM_SYR2K", env_mode, 1);
    summary(&c);
    if (c.failures) printf("FAILED: %d problem(s): see the failed / FAILED lines above\n", c.failures);
    if (c.csv) fclose(c.csv);
    clhgemm_destroy(c.handle);
    clhgemm_release_resources();
#ifdef CLHGEMM_HAVE_CLBLAST
    if (c.have_clblast) CLBlastClearCache();
#endif
    clReleaseCommandQueue(c.queue);
    clReleaseContext(c.context);
    return c.failures ? 1 : 0;
}
