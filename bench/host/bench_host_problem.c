/*
 * bench_host_problem.c -- the problem clhgemm-bench-host's per-size runs and --cpu-share time:
 * A, B and C0 filled by all cores from fixed seeds (so that every mode and every rerun multiplies
 * the same matrices), and BLIS's cheap check of a result (bench_host_priv.h). The check needs
 * vectors only: a problem larger than the device (--oversize) and every --cpu-share case are
 * checked without a second n x n array. The element-wise fill, the products with a vector and
 * the strides live in host_common.c, which the sweep shares.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench_host_priv.h"

/* Fills whichever of A, B, C (C0) is given, each from its own seed for this n. */
void bh_fill_abc(int threads, int dbl, int n, void *A, void *B, void *C)
{
    const size_t count = (size_t)n * (size_t)n;
    if (A) fill(threads, A, dbl, count, 0xA0 + (uint64_t)n);
    if (B) fill(threads, B, dbl, count, 0xB0 + (uint64_t)n);
    if (C) fill(threads, C, dbl, count, 0xC0 + (uint64_t)n);
}

/* Allocates the check's 8 n doubles: 0, or -1 (c->vec NULL) when out of memory. */
int bh_cheap_alloc(bh_cheap_t *c, int n)
{
    c->n = n;
    c->vec = malloc(8 * (size_t)n * sizeof(double));
    return c->vec ? 0 : -1;
}

/* The strides of the options' layout and transposes, the random t and y0 = C0 t (with its
 * bound |C0| |t|). */
void bh_cheap_prepare(bh_cheap_t *c, const opts_t *o, int dbl, const void *C0)
{
    const int n = c->n;
    c->dbl = dbl;
    c->threads = o->threads;
    op_strides(o->layout, CLHGEMM_NO_TRANS, (size_t)n, &c->csi, &c->csj);
    op_strides(o->layout, o->ta, (size_t)n, &c->asi, &c->asj);
    op_strides(o->layout, o->tb, (size_t)n, &c->bsi, &c->bsj);
    double *t = c->vec, *ta = c->vec + n, *y0 = c->vec + 2 * (size_t)n;
    double *y0a = c->vec + 3 * (size_t)n;
    for (int i = 0; i < n; i++) {
        t[i] = uniform(0x7EC7, (size_t)i);
        ta[i] = fabs(t[i]);
    }
    matvec(c->threads, C0, dbl, (size_t)n, c->csi, c->csj, t, ta, y0, y0a);
}

/* w = op(A) (op(B) t) and its bound, the part of the expected C t that A and B give. */
void bh_cheap_ab(bh_cheap_t *c, const void *A, const void *B)
{
    const size_t n = (size_t)c->n;
    double *t = c->vec, *ta = c->vec + n, *u = c->vec + 4 * n, *ua = c->vec + 5 * n;
    double *w = c->vec + 6 * n, *wa = c->vec + 7 * n;
    matvec(c->threads, B, c->dbl, n, c->bsi, c->bsj, t, ta, u, ua);
    matvec(c->threads, A, c->dbl, n, c->asi, c->asj, u, ua, w, wa);
}

/* The worst row of C t against w + 0.5 y0, over its bound / (k eps): <= 1 passes. After
 * bh_cheap_ab; C t goes where u was (no longer needed), so it may be called for one result after
 * another. */
double bh_cheap_eval(bh_cheap_t *c, const void *C)
{
    const int n = c->n;
    const double *t = c->vec, *y0 = c->vec + 2 * (size_t)n, *y0a = c->vec + 3 * (size_t)n;
    const double *w = c->vec + 6 * (size_t)n, *wa = c->vec + 7 * (size_t)n;
    double *z = c->vec + 4 * (size_t)n;
    matvec(c->threads, C, c->dbl, (size_t)n, c->csi, c->csj, t, NULL, z, NULL);
    const double eps = c->dbl ? DBL_EPSILON : FLT_EPSILON;
    double worst = 0;
    for (int j = 0; j < n; j++) {
        const double want = w[j] + 0.5 * y0[j], bound = wa[j] + 0.5 * y0a[j];
        const double e = fabs(z[j] - want) / (bound > 0 ? bound : 1.0) / ((double)n * eps);
        if (!(e <= worst)) worst = e;
    }
    return worst;
}
