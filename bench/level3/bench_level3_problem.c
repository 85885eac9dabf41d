/*
 * bench_level3_problem.c -- clhgemm-bench-level3's problem: a job from the options (operands,
 * leading dimensions, alpha and beta), its random data, the flops of the routine and of the GEMM
 * it stands for, and the checks of a result on the host (BLIS's cheap test in long double, the
 * element-wise comparison with a reference). Every library's result is judged by this one file.
 */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench_level3_int.h"

/* ---- the job and its data ------------------------------------------------------------------ */

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

/* A job of routine r on square size x size operands with tight leading dimensions; the options
 * that do not apply to r left out. No buffers (j->q and the cl_mem fields NULL). */
void job_init(job_t *j, const opts_t *o, int r, int dbl, int size)
{
    memset(j, 0, sizeof *j);
    j->r = r;
    j->dbl = dbl;
    j->row = o->row;
    j->right = has_side(r) && o->right;
    j->lower = o->lower;
    j->trans = (r != R_SYMM) && o->trans;
    j->unit = is_tri(r) && o->unit;
    j->m = j->n = j->k = j->ka = size;
    j->alpha = 1.0;
    j->beta = is_tri(r) ? 0.0 : 0.5;
    j->lda = j->ldb = j->ldc = size;
    j->na = j->nb = j->nc = (size_t)size * size;
}

/* The job's initial A (TRSM's well conditioned), B and C, seeded by size and precision alike
 * for every library and both modes. */
void fill_job(const job_t *j, void *A, void *B, void *C0)
{
    const int size = j->n, dbl = j->dbl;
    if (j->r == R_TRSM) fill_trsm_a(A, dbl, size, 0xA0 + (uint64_t)size * 7 + (uint64_t)dbl);
    else fill_random(A, dbl, j->na, 0xA0 + (uint64_t)size * 7 + (uint64_t)dbl);
    fill_random(B, dbl, j->nb, 0xB0 + (uint64_t)size * 7 + (uint64_t)dbl);
    fill_random(C0, dbl, j->nc, 0xC0 + (uint64_t)size * 7 + (uint64_t)dbl);
}

/* The routine's own flop count (the file top of bench_level3.c). */
double flops_routine(const job_t *j)
{
    const double m = j->m, n = j->n, k = j->k;
    switch (j->r) {
    case R_SYMM: return j->right ? 2.0 * m * n * n : 2.0 * m * m * n;
    case R_SYRK: return n * n * k;
    case R_SYR2K: return 2.0 * n * n * k;
    default: return j->right ? m * n * n : m * m * n; /* TRMM, TRSM */
    }
}

/* The GEMM that the routine stands for: m x n x m for SYMM/TRMM/TRSM side left (B op(A), n x n
 * x n, side right), n x n x k for SYRK/SYR2K (op(A) op(A)^T, op(A) op(B)^T). */
void gemm_map(const job_t *j, gemm_map_t *g)
{
    memset(g, 0, sizeof *g);
    g->b_op = 1;
    if (j->r == R_SYRK || j->r == R_SYR2K) g->m = g->n = j->n, g->k = j->k;
    else g->m = j->m, g->n = j->n, g->k = j->ka;
    switch (j->r) {
    case R_SYMM:
        if (j->right) g->a_op = 1, g->b_op = 0;
        break;
    case R_SYRK:
    case R_SYR2K:
        if (j->r == R_SYRK) g->b_op = 0;
        g->ta = j->trans;
        g->tb = !j->trans;
        break;
    default: /* TRMM, TRSM: op(A) B or B op(A) into G */
        g->into_g = 1;
        if (!j->right) g->ta = j->trans;
        else g->a_op = 1, g->b_op = 0, g->tb = j->trans;
        break;
    }
}

/* 2mnk of that GEMM. */
double gemm_flops(const job_t *j)
{
    gemm_map_t g;
    gemm_map(j, &g);
    return 2.0 * g.m * (double)g.n * g.k;
}

/* ---- the checks ---------------------------------------------------------------------------- */

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

/* The cheap check's vectors for the random t: y = out t and ref, the same product from the
 * inputs (TRSM: y the residual op(A) (X t), or X (op(A) t) side right, ref alpha B0 t); u and w
 * are scratch, ref starts zeroed. Returns the k of the tolerance. */
static int cheap_vectors(const job_t *jb, const void *A, const void *B0, const void *C0,
                         const void *out, const long double *t, long double *u, long double *w,
                         long double *y, long double *ref)
{
    const int m = jb->m, n = jb->n, k = jb->k;
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
        return jb->r == R_SYR2K ? 2 * k : k;
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
    return jb->ka;
}

/* BLIS's cheap check of out (C, or B for TRMM/TRSM) computed from (A, B0, C0). */
double cheap_check(const job_t *jb, const void *A, const void *B0, const void *C0,
                   const void *out)
{
    const int m = jb->m, n = jb->n, k = jb->k;
    const int rows = (jb->r == R_SYRK || jb->r == R_SYR2K) ? n : m;
    const int big = CHG_BIG(m, n, k);
    long double *t = malloc(sizeof(long double) * n), *u = malloc(sizeof(long double) * big);
    long double *w = malloc(sizeof(long double) * big), *y = malloc(sizeof(long double) * big);
    long double *ref = calloc((size_t)big, sizeof(long double));
    double result = NAN;
    if (!t || !u || !w || !y || !ref) goto out;
    uint64_t seed = 0x5eed + (uint64_t)m * 31 + (uint64_t)n;
    for (int j = 0; j < n; j++) t[j] = rng_unit(&seed);
    const int kk = cheap_vectors(jb, A, B0, C0, out, t, u, w, y, ref);
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
double compare(const job_t *jb, const void *X, const void *R)
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
