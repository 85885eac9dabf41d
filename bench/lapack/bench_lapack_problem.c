/*
 * bench_lapack_problem.c -- a problem's data and the checks of its results: the matrices (made
 * by a counter-based generator, so that every element depends on the seed and its place only),
 * the untimed copies that give every call a fresh input, and the backward error of a result.
 *
 * The matrices: Cholesky's is symmetric with entries uniform in [-1, 1] off the diagonal and n
 * on it (positive definite by Gershgorin, and cheap to make at any n, where B B^T would cost
 * more than the factorization); LU's and QR's are uniform in [-1, 1].
 *
 * The check costs O(n^2), so it runs at every size: for a random vector x, the residual of the
 * factors applied to x against A x -- Cholesky A x - L (L^T x) (U^T (U x) for the upper
 * triangle), LU P A x - L (U x), QR A x - Q (R x) with Q applied by the CPU LAPACK's ormqr to
 * the one vector R x -- as ||r||_inf / (n eps ||A||_inf ||x||_inf), in long double, so that the
 * check's own rounding stays below the factorization's. Work that touches n^2 elements (fill,
 * copies, products, transposes) is spread over the host's cores: at n = 40000 in double a
 * single thread takes seconds for each. A matrix whose two host copies do not fit the host's
 * memory (DGETRF n = 110000 is 97 GB) is kept once: the check's vectors are taken from it
 * first, and each call's input is generated afresh into the work array (bl_refill).
 */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_lapack_int.h"

double bl_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* LAPACK's operation counts for a square matrix (S and D alike). */
double bl_flops(int r, int n)
{
    const double n3 = (double)n * n * n;
    return r == R_POTRF ? n3 / 3.0 : r == R_GETRF ? 2.0 * n3 / 3.0 : 4.0 * n3 / 3.0;
}

/* ---- threads ------------------------------------------------------------------------------- */

typedef void (*part_fn)(void *ctx, int part, int parts);

typedef struct job_s {
    part_fn fn;
    void *ctx;
    int part, parts;
} job_t;

static void *job_main(void *arg)
{
    job_t *j = arg;
    j->fn(j->ctx, j->part, j->parts);
    return NULL;
}

/* fn(ctx, part, parts) for part = 0 .. parts - 1 on as many threads (the caller runs part 0;
 * a part whose thread cannot be had runs here afterwards). */
static void par_run(int parts, part_fn fn, void *ctx)
{
    enum { MAXP = 64 };
    if (parts < 1) parts = 1;
    if (parts > MAXP) parts = MAXP;
    pthread_t th[MAXP];
    job_t jobs[MAXP];
    int started[MAXP] = {0};
    for (int p = 0; p < parts; p++) jobs[p] = (job_t){fn, ctx, p, parts};
    for (int p = 1; p < parts; p++)
        started[p] = pthread_create(&th[p], NULL, job_main, &jobs[p]) == 0;
    fn(ctx, 0, parts);
    for (int p = 1; p < parts; p++) {
        if (started[p]) pthread_join(th[p], NULL);
        else fn(ctx, p, parts);
    }
}

/* [*lo, *hi): part's share of [0, n) in contiguous ranges. */
static void share(size_t n, int part, int parts, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)part / (size_t)parts;
    *hi = n * (size_t)(part + 1) / (size_t)parts;
}

/* ---- copies -------------------------------------------------------------------------------- */

typedef struct copy_s {
    void *dst;
    const void *src;
    size_t bytes;
} copy_t;

static void copy_part(void *ctx, int part, int parts)
{
    const copy_t *c = ctx;
    size_t lo, hi;
    share(c->bytes, part, parts, &lo, &hi);
    memcpy((char *)c->dst + lo, (const char *)c->src + lo, hi - lo);
}

void bl_copy(int threads, void *dst, const void *src, size_t bytes)
{
    copy_t c = {dst, src, bytes};
    par_run(bytes < (8u << 20) ? 1 : threads, copy_part, &c);
}

typedef struct tr_s {
    void *f;
    int dbl, n;
} tr_t;

/* 64 x 64 tiles on and above the diagonal, tile rows dealt round-robin (the triangle's rows
 * are unequal). */
static void tr_part(void *ctx, int part, int parts)
{
    const tr_t *t = ctx;
    const size_t n = (size_t)t->n, bs = 64, nb = (n + bs - 1) / bs;
    for (size_t bi = (size_t)part; bi < nb; bi += (size_t)parts)
        for (size_t bj = bi; bj < nb; bj++)
            for (size_t j = bj * bs; j < (bj + 1) * bs && j < n; j++)
                for (size_t i = bi * bs; i < (bi + 1) * bs && i < n && (bi != bj || i < j); i++) {
                    if (t->dbl) {
                        double *a = t->f, v = a[i + j * n];
                        a[i + j * n] = a[j + i * n];
                        a[j + i * n] = v;
                    } else {
                        float *a = t->f, v = a[i + j * n];
                        a[i + j * n] = a[j + i * n];
                        a[j + i * n] = v;
                    }
                }
}

void bl_transpose(int threads, void *f, int dbl, int n)
{
    tr_t t = {f, dbl, n};
    par_run(threads, tr_part, &t);
}

/* ---- the matrices -------------------------------------------------------------------------- */

static inline uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* Uniform in [-1, 1), from the seed and the index only. */
static double uniform(uint64_t seed, uint64_t i)
{
    return (double)(mix64(seed * 0x100000001B3ULL + i) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

typedef struct fill_s {
    const bl_prob_t *p;
    void *a;
    int row;     /* a holds the matrix row-major */
    uint64_t seed;
} fill_t;

/* Element (i, j) of the problem's matrix. */
static double element(const fill_t *f, size_t i, size_t j)
{
    const size_t n = (size_t)f->p->n;
    if (f->p->r != R_POTRF) return uniform(f->seed, i + j * n);
    if (i == j) return (double)n;
    return uniform(f->seed, i < j ? i + j * n : j + i * n);
}

static void fill_part(void *ctx, int part, int parts)
{
    const fill_t *f = ctx;
    const size_t n = (size_t)f->p->n;
    size_t lo, hi;
    share(n, part, parts, &lo, &hi);
    for (size_t s = lo; s < hi; s++) /* s: the stored column (a row of a row-major matrix) */
        for (size_t t = 0; t < n; t++) {
            const double v = f->row ? element(f, s, t) : element(f, t, s);
            if (f->p->dbl) ((double *)f->a)[t + s * n] = v;
            else ((float *)f->a)[t + s * n] = (float)v;
        }
}

/* ---- products ------------------------------------------------------------------------------ */

typedef enum { P_FULL, P_LOWER, P_LOWER_UNIT, P_UPPER } part_t;

/* y = op(M) x (or |M| x with absval) for the part of the column-major n x n matrix M (ld n):
 * trans 0 by row ranges, each sweeping the columns; trans 1 by column ranges, a dot product
 * down each. A unit lower part has 1 on its diagonal whatever M holds there. */
typedef struct mv_s {
    const void *m;
    int dbl, n, trans, absval;
    part_t part;
    const long double *x;
    long double *y;
} mv_t;

static inline long double at(const mv_t *c, size_t ix)
{
    const long double v = c->dbl ? ((const double *)c->m)[ix] : ((const float *)c->m)[ix];
    return c->absval ? fabsl(v) : v;
}

/* The rows of column j in the part: [*i0, *i1), and whether the diagonal is taken as 1. */
static void rows_of(const mv_t *c, size_t j, size_t *i0, size_t *i1, int *unit)
{
    const size_t n = (size_t)c->n;
    *unit = c->part == P_LOWER_UNIT;
    *i0 = c->part == P_FULL || c->part == P_UPPER ? 0 : j + (*unit ? 1 : 0);
    *i1 = c->part == P_UPPER ? j + 1 : n;
}

static void mv_part(void *ctx, int part, int parts)
{
    const mv_t *c = ctx;
    const size_t n = (size_t)c->n;
    size_t lo, hi, i0, i1;
    int unit;
    share(n, part, parts, &lo, &hi);
    if (c->trans) {
        for (size_t j = lo; j < hi; j++) {
            rows_of(c, j, &i0, &i1, &unit);
            long double s = unit ? c->x[j] : 0;
            for (size_t i = i0; i < i1; i++) s += at(c, i + j * n) * c->x[i];
            c->y[j] = s;
        }
        return;
    }
    for (size_t i = lo; i < hi; i++) c->y[i] = 0;
    for (size_t j = 0; j < n; j++) {
        rows_of(c, j, &i0, &i1, &unit);
        if (unit && j >= lo && j < hi) c->y[j] += c->x[j];
        const size_t a = i0 > lo ? i0 : lo, b = i1 < hi ? i1 : hi;
        for (size_t i = a; i < b; i++) c->y[i] += at(c, i + j * n) * c->x[j];
    }
}

static void mv(int threads, const void *m, int dbl, int n, part_t part, int trans,
               const long double *x, long double *y)
{
    mv_t c = {m, dbl, n, trans, 0, part, x, y};
    par_run(n < 512 ? 1 : threads, mv_part, &c);
}

/* ---- a problem ----------------------------------------------------------------------------- */

static unsigned long long host_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024ull;
}

void bl_prob_free(bl_prob_t *p)
{
    if (p->a0c != p->a0) free(p->a0c);
    free(p->a0);
    free(p->w);
    free(p->ipiv);
    free(p->tau);
    free(p->x);
    free(p->ax);
    memset(p, 0, sizeof *p);
}

/* x, A x and the norms the check scales by, from the column-major matrix a. */
static void prob_vectors(const bl_ctx_t *c, bl_prob_t *p, const void *a)
{
    const size_t n = (size_t)p->n;
    long double *ones = malloc(n * sizeof *ones), *rs = malloc(n * sizeof *rs);
    p->xnorm = 0;
    for (size_t i = 0; i < n; i++) {
        p->x[i] = uniform(0x5eed, i);
        p->xnorm = fmax(p->xnorm, fabs((double)p->x[i]));
        if (ones) ones[i] = 1;
    }
    mv(c->threads, a, p->dbl, p->n, P_FULL, 0, p->x, p->ax);
    p->anorm = 0;
    if (ones && rs) { /* the row sums of |A| */
        mv_t m = {a, p->dbl, p->n, 0, 1, P_FULL, ones, rs};
        par_run(n < 512 ? 1 : c->threads, mv_part, &m);
        for (size_t i = 0; i < n; i++) p->anorm = fmax(p->anorm, (double)rs[i]);
    }
    free(ones);
    free(rs);
}

void bl_refill(const bl_ctx_t *c, bl_prob_t *p, int row)
{
    fill_t f = {p, p->w, row, p->seed};
    par_run(c->threads, fill_part, &f);
}

/* The host memory the problem takes: 0 with p->lowmem set where two copies of the matrix (the
 * input kept, the work copy; three for a row-major LU or QR) fit, else where one does (its
 * input made afresh before each call), or -1 with why. */
static int host_plan(bl_prob_t *p, int copies, char *why, size_t len)
{
    const size_t bytes = p->elems * p->es, vec = (size_t)p->n * (2 * sizeof(long double) + 16);
    const unsigned long long avail = host_available(), usable = avail / 10 * 9;
    p->lowmem = avail && bytes * copies + vec > usable;
    if (p->lowmem && bytes + vec > usable) {
        snprintf(why, len, "needs %.1f GiB of host memory (one copy of the matrix), %.1f GiB "
                 "available", (bytes + vec) / 1073741824.0, avail / 1073741824.0);
        return -1;
    }
    return 0;
}

int bl_prob_make(bl_ctx_t *c, bl_prob_t *p, int r, int dbl, int n, char *why, size_t len)
{
    memset(p, 0, sizeof *p);
    p->r = r;
    p->dbl = dbl;
    p->n = n;
    p->row = c->o.row;
    p->upper = c->o.upper;
    p->es = dbl ? 8 : 4;
    p->elems = (size_t)n * (size_t)n;
    p->seed = 1000003u * (uint64_t)(r + 1) + (uint64_t)n;
    /* Cholesky's matrix is symmetric: the competitors' column-major copy is ours' */
    const int own_c = p->row && r != R_POTRF;
    const size_t bytes = p->elems * p->es;
    if (host_plan(p, own_c ? 3 : 2, why, len)) return -1;
    const size_t need = p->lowmem ? bytes : bytes * (own_c ? 3 : 2);
    if (!p->lowmem) {
        p->a0 = malloc(bytes);
        p->a0c = own_c ? malloc(bytes) : p->a0;
    }
    p->w = malloc(bytes);
    p->ipiv = malloc((size_t)n * sizeof *p->ipiv);
    p->tau = malloc((size_t)n * p->es);
    p->x = malloc((size_t)n * sizeof *p->x);
    p->ax = malloc((size_t)n * sizeof *p->ax);
    if ((!p->lowmem && (!p->a0 || !p->a0c)) || !p->w || !p->ipiv || !p->tau || !p->x || !p->ax) {
        snprintf(why, len, "out of host memory (%.1f GiB)", need / 1073741824.0);
        bl_prob_free(p);
        return -1;
    }
    if (p->lowmem) { /* the vectors from the column-major matrix in w, refilled before a call */
        bl_refill(c, p, 0);
        prob_vectors(c, p, p->w);
        return 0;
    }
    fill_t f = {p, p->a0, p->row, p->seed};
    par_run(c->threads, fill_part, &f);
    if (own_c) {
        fill_t fc = {p, p->a0c, 0, p->seed};
        par_run(c->threads, fill_part, &fc);
    }
    prob_vectors(c, p, p->a0c);
    return 0;
}

/* ---- the check ----------------------------------------------------------------------------- */

/* u = Q t by the CPU LAPACK's ormqr on the reflectors in f and tau (t in u's precision there);
 * 0, or -1 when its workspace cannot be had. */
static int apply_q(const bl_prob_t *p, const void *f, const void *tau, const long double *t,
                   long double *u)
{
    const int n = p->n, one = 1;
    int info = 0, lwork = -1;
    void *v = malloc((size_t)n * p->es);
    double wq = 0;
    float wqs = 0;
    if (!v) return -1;
    for (int i = 0; i < n; i++) {
        if (p->dbl) ((double *)v)[i] = (double)t[i];
        else ((float *)v)[i] = (float)t[i];
    }
    if (p->dbl) dormqr_("L", "N", &n, &one, &n, f, &n, tau, v, &n, &wq, &lwork, &info, 1, 1);
    else sormqr_("L", "N", &n, &one, &n, f, &n, tau, v, &n, &wqs, &lwork, &info, 1, 1);
    lwork = p->dbl ? (int)wq : (int)wqs;
    if (lwork < 1) lwork = 1;
    void *work = malloc((size_t)lwork * p->es);
    if (!work) {
        free(v);
        return -1;
    }
    if (p->dbl) dormqr_("L", "N", &n, &one, &n, f, &n, tau, v, &n, work, &lwork, &info, 1, 1);
    else sormqr_("L", "N", &n, &one, &n, f, &n, tau, v, &n, work, &lwork, &info, 1, 1);
    for (int i = 0; i < n; i++) u[i] = p->dbl ? ((double *)v)[i] : ((float *)v)[i];
    free(work);
    free(v);
    return info ? -1 : 0;
}

double bl_berr(const bl_ctx_t *c, const bl_prob_t *p, const void *f, const int *ipiv,
               const void *tau)
{
    const size_t n = (size_t)p->n;
    const int th = c->threads, d = p->dbl;
    long double *t = malloc(n * sizeof *t), *u = malloc(n * sizeof *u), *y = malloc(n * sizeof *y);
    double res = NAN;
    if (!t || !u || !y) goto out;
    memcpy(y, p->ax, n * sizeof *y);
    if (p->r == R_POTRF && !p->upper) { /* L (L^T x) */
        mv(th, f, d, p->n, P_LOWER, 1, p->x, t);
        mv(th, f, d, p->n, P_LOWER, 0, t, u);
    } else if (p->r == R_POTRF) { /* U^T (U x) */
        mv(th, f, d, p->n, P_UPPER, 0, p->x, t);
        mv(th, f, d, p->n, P_UPPER, 1, t, u);
    } else if (p->r == R_GETRF) { /* L (U x) against P A x */
        for (size_t i = 0; i < n; i++) {
            const int q = ipiv[i] - 1;
            if (q < 0 || (size_t)q >= n) goto out;
            const long double v = y[i];
            y[i] = y[q];
            y[q] = v;
        }
        mv(th, f, d, p->n, P_UPPER, 0, p->x, t);
        mv(th, f, d, p->n, P_LOWER_UNIT, 0, t, u);
    } else { /* Q (R x) */
        mv(th, f, d, p->n, P_UPPER, 0, p->x, t);
        if (apply_q(p, f, tau, t, u)) goto out;
    }
    long double rmax = 0;
    for (size_t i = 0; i < n; i++) {
        const long double e = fabsl(y[i] - u[i]);
        if (!(e <= rmax)) rmax = e; /* NaN sticks */
    }
    const double eps = d ? DBL_EPSILON : FLT_EPSILON;
    res = (double)rmax / ((double)n * eps * (p->anorm > 0 ? p->anorm : 1) *
                          (p->xnorm > 0 ? p->xnorm : 1));
out:
    free(t);
    free(u);
    free(y);
    return res;
}
