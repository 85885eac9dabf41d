/*
 * bench_gemm_problem.c -- clhgemm-bench-gemm's problem: one shape and precision (the stored
 * dimensions and leading dimensions for the layout and transposes), its reproducible random
 * data, the checks of a result against it (BLIS's cheap check in long double, the element-wise
 * comparison of ours with CLBlast) and the statistics of the timings. Host code only, no
 * library: what every runner checks against is defined here once.
 */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm_priv.h"
#include "common/bench_util.h"

stats_t bg_stats_of(const double *v, int n)
{
    stats_t s = {NAN, NAN, NAN};
    if (n <= 0) return s;
    double *t = malloc(sizeof(double) * (size_t)n);
    if (!t) return s;
    memcpy(t, v, sizeof(double) * (size_t)n);
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    s.min = t[0];
    s.max = t[n - 1];
    free(t);
    return s;
}

/* splitmix64: reproducible data for a given seed. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [-1,1], never zero (a zero would hide a dropped term). */
static double rng_unit(uint64_t *s)
{
    double u = (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
    double v = 2.0 * u - 1.0;
    return v == 0.0 ? 0.5 : v;
}

void bg_fill_random(void *p, int dbl, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    if (dbl) {
        double *d = p;
        for (size_t i = 0; i < n; i++) d[i] = rng_unit(&s);
    } else {
        float *f = p;
        for (size_t i = 0; i < n; i++) {
            float x = (float)rng_unit(&s);
            f[i] = x == 0.0f ? 0.5f : x;
        }
    }
}

static inline double elem(const void *p, int dbl, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void prob_dims(prob_t *p)
{
    /* Stored shapes: op(A) is m x k, so A itself is (ta ? k x m : m x k), etc. */
    size_t m = (size_t)p->m, n = (size_t)p->n, k = (size_t)p->k;
    if (!p->row) {
        p->lda = p->ta ? k : m;
        p->ldb = p->tb ? n : k;
        p->ldc = m;
    } else {
        p->lda = p->ta ? m : k;
        p->ldb = p->tb ? k : n;
        p->ldc = n;
    }
    p->na = m * k;
    p->nb = k * n;
    p->nc = m * n;
}


void bg_prob_init(prob_t *p, const opts_t *o, cl_command_queue queue, shape_t shape, int dbl,
                  int cplx)
{
    memset(p, 0, sizeof *p);
    p->dbl = dbl;
    p->cplx = cplx;
    p->row = o->row;
    p->ta = o->ta;
    p->tb = o->tb;
    p->m = shape.m;
    p->n = shape.n;
    p->k = shape.k;
    p->alpha = 1.0;
    p->beta = o->beta;
    p->queue = queue;
    prob_dims(p);
}

/* The complex matvec: x, y and M's elements (re, im) pairs (y[2i], y[2i + 1]). */
static void matvec_c(const void *M, int dbl, size_t rows, size_t cols, size_t si, size_t sj,
                     const long double *x, long double *y)
{
    for (size_t i = 0; i < rows; i++) {
        long double ar = 0.0L, ai = 0.0L;
        for (size_t j = 0; j < cols; j++) {
            const size_t e = 2 * (i * si + j * sj);
            const long double mr = elem(M, dbl, e), mi = elem(M, dbl, e + 1);
            ar += mr * x[2 * j] - mi * x[2 * j + 1];
            ai += mr * x[2 * j + 1] + mi * x[2 * j];
        }
        y[2 * i] = ar;
        y[2 * i + 1] = ai;
    }
}

/* y = op(M) x for the rows x cols matrix op(M); element (i,j) at M[i*si + j*sj]. */
static void matvec(const void *M, int dbl, size_t rows, size_t cols, size_t si, size_t sj,
                   const long double *x, long double *y)
{
    if (si == 1) {
        for (size_t i = 0; i < rows; i++) y[i] = 0.0L;
        for (size_t j = 0; j < cols; j++) {
            const long double xj = x[j];
            const size_t base = j * sj;
            if (dbl) {
                const double *d = (const double *)M + base;
                for (size_t i = 0; i < rows; i++) y[i] += (long double)d[i] * xj;
            } else {
                const float *f = (const float *)M + base;
                for (size_t i = 0; i < rows; i++) y[i] += (long double)f[i] * xj;
            }
        }
    } else {
        for (size_t i = 0; i < rows; i++) {
            long double acc = 0.0L;
            const size_t base = i * si;
            for (size_t j = 0; j < cols; j++) acc += (long double)elem(M, dbl, base + j * sj) * x[j];
            y[i] = acc;
        }
    }
}

/* Strides of op(M)(i,j) for a matrix stored in layout `row` with transpose `t` and ld. */
static void op_strides(int row, int t, size_t ld, size_t *si, size_t *sj)
{
    /* column-major, no transpose: i + j*ld; a transpose or row-major storage swaps them */
    if (!row == !t) {
        *si = 1;
        *sj = ld;
    } else {
        *si = ld;
        *sj = 1;
    }
}

/* BLIS's cheap check: max|C t - (beta C0 t + alpha op(A) (op(B) t))| / (max|ref| k eps).
 * C is the result computed from (A, B, C0); everything on the host in long double (a complex
 * problem: complex t and products, the real alpha and beta of the benchmark, moduli of the
 * parts). */
double bg_cheap_check(const prob_t *p, const void *A, const void *B, const void *C0,
                      const void *C)
{
    const size_t m = (size_t)p->m, n = (size_t)p->n, k = (size_t)p->k, x = p->cplx ? 2 : 1;
    long double *t = malloc(sizeof(long double) * n * x), *w = malloc(sizeof(long double) * k * x);
    long double *u = malloc(sizeof(long double) * m * x), *v = malloc(sizeof(long double) * m * x);
    long double *y = malloc(sizeof(long double) * m * x);
    double result = NAN;
    if (!t || !w || !u || !v || !y) goto out;
    uint64_t seed = 0x5eed0000ULL + m * 31 + n * 17 + k;
    for (size_t j = 0; j < n * x; j++) t[j] = rng_unit(&seed);
    void (*mv)(const void *, int, size_t, size_t, size_t, size_t, const long double *,
               long double *) = p->cplx ? matvec_c : matvec;
    size_t si, sj;
    op_strides(p->row, p->tb, p->ldb, &si, &sj);
    mv(B, p->dbl, k, n, si, sj, t, w);
    op_strides(p->row, p->ta, p->lda, &si, &sj);
    mv(A, p->dbl, m, k, si, sj, w, u);
    op_strides(p->row, 0, p->ldc, &si, &sj);
    mv(C0, p->dbl, m, n, si, sj, t, v);
    mv(C, p->dbl, m, n, si, sj, t, y);
    long double maxdiff = 0.0L, maxref = 0.0L;
    for (size_t i = 0; i < m * x; i++) {
        long double ref = (long double)p->alpha * u[i] + (long double)p->beta * v[i];
        long double d = fabsl(y[i] - ref);
        if (!isfinite((double)y[i])) {
            result = INFINITY;
            goto out;
        }
        if (d > maxdiff) maxdiff = d;
        if (fabsl(ref) > maxref) maxref = fabsl(ref);
    }
    if (maxref == 0.0L) maxref = 1.0L;
    result = (double)(maxdiff / (maxref * (long double)k * (p->dbl ? DBL_EPSILON : FLT_EPSILON)));
out:
    free(t);
    free(w);
    free(u);
    free(v);
    free(y);
    return result;
}

/* Element-wise max|X - Ref| / (max|Ref| k eps); INFINITY if X has a non-finite value. */
double bg_compare_full(const prob_t *p, const void *X, const void *Ref)
{
    double maxdiff = 0.0, maxref = 0.0;
    for (size_t i = 0; i < p->nc * (p->cplx ? 2 : 1); i++) {
        double x = elem(X, p->dbl, i), r = elem(Ref, p->dbl, i);
        if (!isfinite(x)) return INFINITY;
        double d = fabs(x - r);
        if (d > maxdiff) maxdiff = d;
        if (fabs(r) > maxref) maxref = fabs(r);
    }
    if (maxref == 0.0) maxref = 1.0;
    return maxdiff / (maxref * (double)p->k * (p->dbl ? DBL_EPSILON : FLT_EPSILON));
}

int bg_result_warns(const result_t *r)
{
    return (!isnan(r->err) && !(r->err <= 1.0)) || (!isnan(r->err_ref) && !(r->err_ref <= 1.0));
}
