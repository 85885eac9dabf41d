/*
 * bench_level3_problem.c -- clhgemm-bench-level3's problem: a job from the options (operands,
 * leading dimensions, alpha and beta), its random data, the flops of the routine and of the GEMM
 * it stands for, and the checks of a result on the host (BLIS's cheap test in long double, the
 * element-wise comparison with a reference). Every library's result is judged by this one file.
 * The checks compute in long double complex, a real job's elements with no imaginary part.
 */
#define _POSIX_C_SOURCE 200809L

#include <complex.h>
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
static void fill_trsm_a(void *p, int dbl, int cplx, int n, uint64_t seed)
{
    const size_t x = cplx ? 2 : 1;
    for (size_t j = 0; j < (size_t)n; j++)
        for (size_t i = 0; i < (size_t)n; i++)
            for (size_t q = 0; q < x; q++) { /* the real part, then the imaginary one */
                const double u = rng_unit(&seed);
                double v = u / n;
                if (i == j && q == 0) v = (u < 0 ? -1.0 : 1.0) * (6.0 + 2.0 * rng_unit(&seed));
                if (dbl) ((double *)p)[x * (i + j * n) + q] = v;
                else ((float *)p)[x * (i + j * n) + q] = (float)v;
            }
}

/* A job of routine r on square size x size operands with tight leading dimensions; the options
 * that do not apply to r left out. No buffers (j->q and the cl_mem fields NULL). */
void job_init(job_t *j, const opts_t *o, int r, int dbl, int cplx, int size)
{
    memset(j, 0, sizeof *j);
    j->r = r;
    j->dbl = dbl;
    j->cplx = cplx;
    j->row = o->row;
    j->right = has_side(r) && o->right;
    j->lower = o->lower;
    j->trans = r != R_SYMM && r != R_HEMM && o->trans;
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
    const size_t x = j->cplx ? 2 : 1;
    const uint64_t p = (uint64_t)dbl + 2 * (uint64_t)j->cplx;
    if (j->r == R_TRSM) fill_trsm_a(A, dbl, j->cplx, size, 0xA0 + (uint64_t)size * 7 + p);
    else fill_random(A, dbl, j->na * x, 0xA0 + (uint64_t)size * 7 + p);
    fill_random(B, dbl, j->nb * x, 0xB0 + (uint64_t)size * 7 + p);
    fill_random(C0, dbl, j->nc * x, 0xC0 + (uint64_t)size * 7 + p);
}

/* The routine's own flop count (the file top of bench_level3.c); a complex one's real work. */
double flops_routine(const job_t *j)
{
    const double m = j->m, n = j->n, k = j->k, x = j->cplx ? 4.0 : 1.0;
    switch (j->r) {
    case R_SYMM: case R_HEMM: return x * (j->right ? 2.0 * m * n * n : 2.0 * m * m * n);
    case R_SYRK: case R_HERK: return x * n * n * k;
    case R_SYR2K: case R_HER2K: return x * 2.0 * n * n * k;
    default: return x * (j->right ? m * n * n : m * m * n); /* TRMM, TRSM */
    }
}

/* The GEMM that the routine stands for: m x n x m for SYMM/TRMM/TRSM side left (B op(A), n x n
 * x n, side right), n x n x k for SYRK/SYR2K (op(A) op(A)^T, op(A) op(B)^T). */
void gemm_map(const job_t *j, gemm_map_t *g)
{
    memset(g, 0, sizeof *g);
    g->b_op = 1;
    if (is_rank_k(j->r)) g->m = g->n = j->n, g->k = j->k;
    else g->m = j->m, g->n = j->n, g->k = j->ka;
    switch (j->r) {
    case R_SYMM:
    case R_HEMM:
        if (j->right) g->a_op = 1, g->b_op = 0;
        break;
    case R_SYRK:
    case R_SYR2K:
    case R_HERK:
    case R_HER2K:
        if (j->r == R_SYRK || j->r == R_HERK) g->b_op = 0;
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

/* 2mnk of that GEMM (8mnk complex). */
double gemm_flops(const job_t *j)
{
    gemm_map_t g;
    gemm_map(j, &g);
    return (j->cplx ? 8.0 : 2.0) * g.m * (double)g.n * g.k;
}

/* ---- the checks ---------------------------------------------------------------------------- */

#define CHG_BIG(a, b, c) ((a) > (b) ? ((a) > (c) ? (a) : (c)) : ((b) > (c) ? (b) : (c)))

typedef long double complex lcx;

/* Element (i, j) of a matrix stored in the job's layout (complex: (re, im) pairs). */
static inline lcx el(const job_t *jb, const void *p, int ld, int i, int j)
{
    const size_t x = jb->row ? (size_t)i * ld + j : i + (size_t)j * ld;
    if (!jb->cplx) return jb->dbl ? ((const double *)p)[x] : ((const float *)p)[x];
    const long double re = jb->dbl ? ((const double *)p)[2 * x] : ((const float *)p)[2 * x];
    const long double im = jb->dbl ? ((const double *)p)[2 * x + 1] : ((const float *)p)[2 * x + 1];
    return re + im * I;
}

/* A matrix for the host-side checks: the buffer and its leading dimension (the job's layout). */
typedef struct mat_s {
    const void *p;
    int ld;
} mat_t;

/* Element (i, j) of the logical matrix a check multiplies with. */
typedef lcx (*elem_fn)(const job_t *, const mat_t *, int, int);

static lcx gen(const job_t *jb, const mat_t *M, int i, int j) { return el(jb, M->p, M->ld, i, j); }

/* A as the routine sees it: completed from its stored triangle (SYMM; HEMM: the mirror
 * conjugated, the diagonal real), or that triangle with zeros and possibly a unit diagonal
 * (TRMM/TRSM, before op). */
static lcx a_struct(const job_t *jb, const mat_t *M, int i, int j)
{
    const int in = !jb->lower ? i <= j : i >= j;
    if (jb->r == R_HEMM)
        return i == j ? creall(gen(jb, M, i, i)) : in ? gen(jb, M, i, j) : conjl(gen(jb, M, j, i));
    if (jb->r == R_SYMM) return in ? gen(jb, M, i, j) : gen(jb, M, j, i);
    if (i == j && jb->unit) return 1.0L;
    return in ? gen(jb, M, i, j) : 0.0L;
}

/* A rank-k update's output, symmetric (Hermitian: the mirror conjugated, and the diagonal real,
 * since HERK and HER2K ignore the imaginary part of C's diagonal on input and zero it on
 * output), completed from its triangle. */
static lcx outsym(const job_t *jb, const mat_t *M, int i, int j)
{
    const int in = !jb->lower ? i <= j : i >= j;
    if (i == j && is_herm(jb->r)) return creall(gen(jb, M, i, i));
    if (in) return gen(jb, M, i, j);
    return is_herm(jb->r) ? conjl(gen(jb, M, j, i)) : gen(jb, M, j, i);
}

/* y = op(F) x for F(i,j) = f(M, i, j): op 0 none (rows x cols F), 1 its transpose, 2 its
 * conjugate transpose (then F is cols x rows), in long double complex. */
static void mv(const job_t *jb, const void *p, int ld, elem_fn f, int rows, int cols, int op,
               const lcx *x, lcx *y)
{
    const mat_t M = {p, ld};
    for (int i = 0; i < rows; i++) y[i] = 0.0L;
    for (int j = 0; j < cols; j++) {
        const lcx xj = x[j];
        for (int i = 0; i < rows; i++) {
            const lcx e = op ? f(jb, &M, j, i) : f(jb, &M, i, j);
            y[i] += (op == 2 ? conjl(e) : e) * xj;
        }
    }
}

/* The job's op of A (TRMM/TRSM) or of the rank-k update's factors: the transpose, conjugated
 * for HERK and HER2K; trans 0: none. */
static int op_of(const job_t *jb, int t)
{
    return !t ? 0 : jb->r == R_HERK || jb->r == R_HER2K ? 2 : 1;
}

/* The rank-k updates' check: ref = alpha op(L) op(R)^T t (HERK, HER2K: ^H) for the one or two
 * products, plus beta C0 t; y = out t. Returns the k of the tolerance. */
static int cheap_rank_k(const job_t *jb, const void *A, const void *B0, const void *C0,
                        const void *out, const lcx *t, lcx *u, lcx *w, lcx *y, lcx *ref)
{
    const int n = jb->n, k = jb->k, herm = is_herm(jb->r), two = is_two(jb->r);
    /* op(X) is n x k: X stored n x k (trans N) or k x n (trans T / C) */
    for (int pass = 0; pass < (two ? 2 : 1); pass++) {
        const void *L = pass ? B0 : A, *R = !two ? A : pass ? A : B0;
        const int ldl = pass ? jb->ldb : jb->lda;
        const int ldr = !two ? jb->lda : pass ? jb->lda : jb->ldb;
        /* u = op(R)^T t (HERK: op(R)^H t; R itself where op(R) is R's (conjugate) transpose),
         * w = op(L) u */
        mv(jb, R, ldr, gen, k, n, jb->trans ? 0 : herm ? 2 : 1, t, u);
        mv(jb, L, ldl, gen, n, k, op_of(jb, jb->trans), u, w);
        for (int i = 0; i < n; i++) ref[i] += jb->alpha * w[i];
    }
    mv(jb, C0, jb->ldc, outsym, n, n, 0, t, u);
    for (int i = 0; i < n; i++) ref[i] += jb->beta * u[i];
    mv(jb, out, jb->ldc, outsym, n, n, 0, t, y);
    return two ? 2 * k : k;
}

/* The cheap check's vectors for the random t: y = out t and ref, the same product from the
 * inputs (TRSM: y the residual op(A) (X t), or X (op(A) t) side right, ref alpha B0 t); u and w
 * are scratch, ref starts zeroed. Returns the k of the tolerance. */
static int cheap_vectors(const job_t *jb, const void *A, const void *B0, const void *C0,
                         const void *out, const lcx *t, lcx *u, lcx *w, lcx *y, lcx *ref)
{
    const int m = jb->m, n = jb->n;
    const int opa = op_of(jb, jb->trans);
    if (is_rank_k(jb->r)) return cheap_rank_k(jb, A, B0, C0, out, t, u, w, y, ref);
    switch (jb->r) {
    case R_SYMM:
    case R_HEMM:
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
    case R_TRSM: /* the residual: op(A) (X t) (left) or X (op(A) t) (right) against alpha B0 t */
        if (!jb->right) {
            mv(jb, out, jb->ldb, gen, m, n, 0, t, u);
            mv(jb, A, jb->lda, a_struct, m, m, opa, u, y);
        } else {
            mv(jb, A, jb->lda, a_struct, n, n, opa, t, u);
            mv(jb, out, jb->ldb, gen, m, n, 0, u, y);
        }
        mv(jb, B0, jb->ldb, gen, m, n, 0, t, w);
        for (int i = 0; i < m; i++) ref[i] = jb->alpha * w[i];
        break;
    default: /* TRMM: alpha op(A) B0 (left) or alpha B0 op(A) (right) */
        if (!jb->right) {
            mv(jb, B0, jb->ldb, gen, m, n, 0, t, u);
            mv(jb, A, jb->lda, a_struct, m, m, opa, u, w);
        } else {
            mv(jb, A, jb->lda, a_struct, n, n, opa, t, u);
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
    const int rows = is_rank_k(jb->r) ? n : m;
    const int big = CHG_BIG(m, n, k);
    lcx *t = malloc(sizeof(lcx) * big), *u = malloc(sizeof(lcx) * big);
    lcx *w = malloc(sizeof(lcx) * big), *y = malloc(sizeof(lcx) * big);
    lcx *ref = calloc((size_t)big, sizeof(lcx));
    double result = NAN;
    if (!t || !u || !w || !y || !ref) goto out;
    uint64_t seed = 0x5eed + (uint64_t)m * 31 + (uint64_t)n;
    for (int j = 0; j < n; j++) t[j] = rng_unit(&seed) + (jb->cplx ? rng_unit(&seed) * I : 0.0L);
    const int kk = cheap_vectors(jb, A, B0, C0, out, t, u, w, y, ref);
    long double maxdiff = 0.0L, maxref = 0.0L;
    for (int i = 0; i < rows; i++) {
        if (!isfinite((double)creall(y[i])) || !isfinite((double)cimagl(y[i]))) {
            result = INFINITY;
            goto out;
        }
        long double d = cabsl(y[i] - ref[i]);
        if (d > maxdiff) maxdiff = d;
        if (cabsl(ref[i]) > maxref) maxref = cabsl(ref[i]);
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

/* Element-wise max|X - R| / (max|R| k eps) over what the routine writes (the rank-k updates:
 * the triangle). */
double compare(const job_t *jb, const void *X, const void *R)
{
    const int tri = is_rank_k(jb->r);
    const int rows = tri ? jb->n : jb->m, cols = jb->n, ld = is_tri(jb->r) ? jb->ldb : jb->ldc;
    double maxdiff = 0.0, maxref = 0.0;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) {
            if (tri && (!jb->lower ? i > j : i < j)) continue;
            const lcx x = el(jb, X, ld, i, j), r = el(jb, R, ld, i, j);
            if (!isfinite((double)creall(x)) || !isfinite((double)cimagl(x))) return INFINITY;
            if ((double)cabsl(x - r) > maxdiff) maxdiff = (double)cabsl(x - r);
            if ((double)cabsl(r) > maxref) maxref = (double)cabsl(r);
        }
    const int kk = is_two(jb->r) ? 2 * jb->k : is_rank_k(jb->r) ? jb->k : jb->ka;
    return maxdiff / ((maxref ? maxref : 1.0) * kk * (jb->dbl ? DBL_EPSILON : FLT_EPSILON));
}
