/*
 * test_fact.c -- the factorization drivers (src/lapack/fact_driver.h) on host memory and on
 * device buffers, against LAPACK's own definitions: Cholesky by ||A - L L^T||, LU by
 * ||P A - L U||, QR by ||A - Q R|| and ||Q^T Q - I|| with Q formed by the CPU LAPACK's orgqr from
 * our reflectors and tau (so they must be stored exactly as geqrf stores them), each scaled by
 * max(m, n) * eps * ||A||; info on matrices made to fail at chosen columns, against the CPU
 * LAPACK's info on the same input; the triangle Cholesky must not read or write left
 * bit-identical (NaN there), every gap of a padded leading dimension too.
 *
 * Sizes are small and the panel width is cut small (CLHGEMM_FACTOR_NB, set by CTest), so that
 * every matrix runs many steps: look-ahead, late blocks catching up, LU's interchanges across
 * panels. Arguments: s|d, host|device|fault, and optionally the kinds to run (potrf getrf
 * geqrf); `fault` is host memory with a new handle per case, for CLHGEMM_FAULT_INJECT (the
 * factorization finishes on the CPU, the handle drops the device); `ooc` host memory with a new
 * handle per case whose CLHGEMM_DEVICE_MEMORY_LIMIT holds about half the matrix, so that it is
 * factored out of core (windows of block columns, earlier panels streamed from host memory).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cpu/lapack_link.h"
#include "host/handle.h"
#include "lapack/fact_driver.h"

typedef struct prob_s {
    chg_fact_kind_t kind;
    int dbl, trans;
    size_t m, n, lda;
    int fail_at;   /* >= 0: make the factorization fail at this column (potrf, getrf) */
} prob_t;

static double get(const prob_t *p, const void *a, size_t i, size_t j)
{
    const size_t ix = p->trans ? i * p->lda + j : i + j * p->lda;
    return p->dbl ? ((const double *)a)[ix] : ((const float *)a)[ix];
}

static void put(const prob_t *p, void *a, size_t i, size_t j, double v)
{
    const size_t ix = p->trans ? i * p->lda + j : i + j * p->lda;
    if (p->dbl) ((double *)a)[ix] = v;
    else ((float *)a)[ix] = (float)v;
}

static size_t elems(const prob_t *p) { return p->lda * (p->trans ? p->m : p->n); }

/* A: the view's matrix; NaN in every gap, and in the upper triangle for Cholesky. */
static void *make(const prob_t *p, tc_rng_t *rng)
{
    const size_t es = p->dbl ? 8 : 4, ne = elems(p);
    void *a = malloc(ne * es);
    for (size_t i = 0; i < ne; i++) {
        if (p->dbl) ((double *)a)[i] = NAN;
        else ((float *)a)[i] = NAN;
    }
    const size_t m = p->m, n = p->n;
    if (p->kind == CHG_FACT_POTRF) { /* SPD: B B^T / n + I, lower triangle only */
        double *b = malloc(n * n * sizeof *b);
        for (size_t i = 0; i < n * n; i++) b[i] = tc_rng_uniform(rng);
        for (size_t j = 0; j < n; j++)
            for (size_t i = j; i < n; i++) {
                double s = 0;
                for (size_t q = 0; q < n; q++) s += b[i + q * n] * b[j + q * n];
                put(p, a, i, j, s / (double)n + (i == j ? 1.0 : 0.0));
            }
        free(b);
        if (p->fail_at >= 0) put(p, a, (size_t)p->fail_at, (size_t)p->fail_at, -1.0);
        return a;
    }
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++)
            put(p, a, i, j, p->fail_at == (int)j ? 0.0 : tc_rng_uniform(rng));
    return a;
}

/* The view as a column-major double matrix (m x n, ld m); Cholesky's upper part 0. */
static double *view(const prob_t *p, const void *a)
{
    double *v = calloc(p->m * p->n, sizeof *v);
    for (size_t j = 0; j < p->n; j++)
        for (size_t i = (p->kind == CHG_FACT_POTRF ? j : 0); i < p->m; i++)
            v[i + j * p->m] = get(p, a, i, j);
    return v;
}

static double fnorm(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i] * x[i];
    return sqrt(s);
}

/* The CPU LAPACK's info for the same input (column-major copy in its precision). */
static int lapack_info(const prob_t *p, const void *a0)
{
    const chg_lapack_t *L = chg_lapack();
    const int m = (int)p->m, n = (int)p->n, ld = (int)p->m;
    int info = 0, *ipiv = malloc((size_t)(m < n ? m : n) * sizeof(int) + 4);
    double *v = view(p, a0);
    float *vf = malloc(p->m * p->n * sizeof *vf);
    for (size_t i = 0; i < p->m * p->n; i++) vf[i] = (float)v[i];
    if (p->kind == CHG_FACT_POTRF) {
        if (p->dbl) L->dpotrf("L", &n, v, &ld, &info, 1);
        else L->spotrf("L", &n, vf, &ld, &info, 1);
    } else {
        if (p->dbl) L->dgetrf(&m, &n, v, &ld, ipiv, &info);
        else L->sgetrf(&m, &n, vf, &ld, ipiv, &info);
    }
    free(v);
    free(vf);
    free(ipiv);
    return info;
}

/* ||residual|| / (max(m, n) eps ||A||); the result r (view, column-major doubles) of the call. */
static double resid_potrf(const prob_t *p, const double *a, const double *r)
{
    const size_t n = p->n;
    double *e = calloc(n * n, sizeof *e);
    for (size_t j = 0; j < n; j++)
        for (size_t i = j; i < n; i++) {
            double s = 0;
            for (size_t q = 0; q <= j; q++) s += r[i + q * n] * r[j + q * n];
            e[i + j * n] = a[i + j * n] - s;
        }
    const double x = fnorm(e, n * n) / fnorm(a, n * n);
    free(e);
    return x;
}

static double resid_getrf(const prob_t *p, const double *a, const double *r, const int *ipiv)
{
    const size_t m = p->m, n = p->n, k = m < n ? m : n;
    double *pa = malloc(m * n * sizeof *pa);
    memcpy(pa, a, m * n * sizeof *pa);
    for (size_t i = 0; i < k; i++) { /* P A: the interchanges in order */
        const size_t q = (size_t)ipiv[i] - 1;
        for (size_t j = 0; j < n; j++) {
            const double t = pa[i + j * m];
            pa[i + j * m] = pa[q + j * m];
            pa[q + j * m] = t;
        }
    }
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            double s = 0;
            const size_t top = i < j ? i : j; /* L(i, q) U(q, j), q <= min(i, j) */
            for (size_t q = 0; q <= top && q < k; q++)
                s += (q == i ? 1.0 : r[i + q * m]) * r[q + j * m];
            pa[i + j * m] -= s;
        }
    const double x = fnorm(pa, m * n) / fnorm(a, m * n);
    free(pa);
    return x;
}

/* QR: Q from our reflectors by the CPU LAPACK's orgqr; max of ||A - QR|| and ||Q^T Q - I||. */
static double resid_geqrf(const prob_t *p, const double *a, const double *r, const void *tau)
{
    const chg_lapack_t *L = chg_lapack();
    const int m = (int)p->m, n = (int)p->n, k = m < n ? m : n, lw = 64 * (n + 1);
    double *q = malloc((size_t)m * (size_t)k * sizeof *q), *work = malloc((size_t)lw * 8);
    float *qf = malloc((size_t)m * (size_t)k * sizeof *qf), *wf = malloc((size_t)lw * 4);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++) q[i + j * m] = r[i + j * m];
    int info = 0;
    if (p->dbl) {
        L->dorgqr(&m, &k, &k, q, &m, tau, work, &lw, &info);
    } else {
        for (int i = 0; i < m * k; i++) qf[i] = (float)q[i];
        L->sorgqr(&m, &k, &k, qf, &m, tau, wf, &lw, &info);
        for (int i = 0; i < m * k; i++) q[i] = qf[i];
    }
    double *e = malloc((size_t)m * (size_t)n * sizeof *e), worst = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int t = 0; t <= j && t < k; t++) s += q[i + t * m] * r[t + j * m];
            e[i + j * m] = a[i + j * m] - s;
        }
    worst = fnorm(e, (size_t)m * (size_t)n) / fnorm(a, (size_t)m * (size_t)n);
    double o = 0;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++) {
            double s = 0;
            for (int t = 0; t < m; t++) s += q[t + i * m] * q[t + j * m];
            s -= i == j;
            o += s * s;
        }
    o = sqrt(o) / sqrt((double)k);
    free(q);
    free(work);
    free(qf);
    free(wf);
    free(e);
    return info ? INFINITY : (worst > o ? worst : o);
}

/* Bit-identity of what the call must not write: gaps, and Cholesky's upper triangle. */
static int untouched(const prob_t *p, const void *got, const void *a0)
{
    const size_t es = p->dbl ? 8 : 4;
    int bad = 0;
    for (size_t s = 0; s < (p->trans ? p->m : p->n); s++)
        for (size_t r = 0; r < p->lda; r++) {
            const size_t i = p->trans ? s : r, j = p->trans ? r : s; /* view (i, j) */
            const int inside = i < p->m && j < p->n;
            const int written = inside && (p->kind != CHG_FACT_POTRF || i >= j);
            const size_t ix = s * p->lda + r;
            if (!written && memcmp((const char *)got + ix * es, (const char *)a0 + ix * es, es))
                bad++;
        }
    return bad;
}

typedef struct dev_s {
    clhgemm_handle_t h;
    tc_env_t env;
    int device; /* device buffers instead of host memory */
    int fault;  /* a handle per case (CLHGEMM_FAULT_INJECT loses a device once per handle) */
    int ooc;    /* a handle per case whose memory limit holds about half the matrix */
    size_t ndevs; /* the devices a handle opens */
} dev_t;

static clhgemm_status_t run(dev_t *d, const prob_t *p, void *a, int *ipiv, void *tau, int *info)
{
    chg_fact_call_t c = {.kind = p->kind, .prec = p->dbl ? CHG_F64 : CHG_F32, .m = p->m,
                         .n = p->n, .trans = p->trans, .lda = p->lda, .ipiv = ipiv, .tau = tau};
    const size_t es = p->dbl ? 8 : 4, off = 5, bytes = (elems(p) + off) * es;
    clhgemm_status_t st;
    if (!d->device) {
        c.a = a;
        st = chg_fact_run_host(d->h, &c);
    } else {
        char *host = calloc(1, bytes);
        memcpy(host + off * es, a, elems(p) * es);
        cl_mem buf = tc_buffer_from_host(d->env.ctx, host, bytes);
        c.buf = buf;
        c.off = off;
        c.queue = d->env.queue;
        st = chg_fact_run_device(&c);
        tc_read(d->env.queue, buf, host, bytes);
        memcpy(a, host + off * es, elems(p) * es);
        clReleaseMemObject(buf);
        free(host);
    }
    *info = c.info;
    return st;
}

static const char *kname(chg_fact_kind_t k)
{
    return k == CHG_FACT_POTRF ? "potrf" : k == CHG_FACT_GETRF ? "getrf" : "geqrf";
}

static void one(dev_t *d, const prob_t *p, tc_rng_t *rng)
{
    const size_t es = p->dbl ? 8 : 4, k = p->m < p->n ? p->m : p->n;
    void *a0 = make(p, rng), *a = malloc(elems(p) * es), *tau = malloc((k + 1) * es);
    int *ipiv = malloc((k + 1) * sizeof *ipiv), info = -7;
    memcpy(a, a0, elems(p) * es);
    char tag[160];
    snprintf(tag, sizeof tag, "%c%s %s %s m=%zu n=%zu lda=%zu fail_at=%d", p->dbl ? 'd' : 's',
             kname(p->kind), p->trans ? "row" : "col", d->device ? "device" : "host", p->m, p->n,
             p->lda, p->fail_at);
    if (d->ooc) {
        /* out of core where the matrix has 6 blocks of 16 or more: 85% of what it needs in
         * core (the matrix, QR's V, T and W, a transposed view's panel copy), of which the
         * factorization takes three quarters; smaller ones stay in core */
        const char *nbs = getenv("CLHGEMM_FACTOR_NB");
        const size_t nb = nbs ? (size_t)atoi(nbs) : 16, nbk = (p->n + nb - 1) / nb;
        const int qr = p->kind == CHG_FACT_GEQRF, lu = p->kind == CHG_FACT_GETRF;
        const size_t nd = d->ndevs; /* each device holds its share and two panel buffers */
        const double incore = (double)(p->m * p->n / nd + (nd > 1) * 2 * p->m * nb +
                                       (p->trans && (qr || lu)) * p->m * nb +
                                       qr * (p->m * nb + nbk * nb * nb + nb * p->n / nd));
        const double lim = p->n >= 96 ? 0.85 * incore * (double)es / 0.75 : 1e9;
        char txt[32];
        snprintf(txt, sizeof txt, "%.0f", lim);
        setenv("CLHGEMM_DEVICE_MEMORY_LIMIT", txt, 1);
    }
    if (d->fault || d->ooc) {
        if (d->h) clhgemm_destroy(d->h);
        d->h = NULL;
        if (clhgemm_create(&d->h, NULL) != CLHGEMM_SUCCESS) {
            EXPECT(0, "%s: clhgemm_create failed", tag);
            goto out;
        }
    }
    const int ndev = d->h ? d->h->ndev : 0;
    const clhgemm_status_t st = run(d, p, a, ipiv, tau, &info);
    EXPECT(st == CLHGEMM_SUCCESS, "%s: status %s", tag, clhgemm_status_string(st));
    /* CLHGEMM_FAULT_INJECT=device=0,after=2: every case of 3 steps or more loses the device,
     * which the handle drops */
    if (d->fault && p->m >= 64 && p->n >= 64)
        EXPECT(d->h->ndev == ndev - 1, "%s: the lost device is still in the handle (%d of %d)",
               tag, d->h->ndev, ndev);
    if (st != CLHGEMM_SUCCESS) goto out;
    if (p->kind != CHG_FACT_GEQRF) {
        const int want = lapack_info(p, a0);
        EXPECT(info == want, "%s: info %d, LAPACK's %d", tag, info, want);
    }
    EXPECT(!untouched(p, a, a0), "%s: %d elements outside the result written", tag,
           untouched(p, a, a0));
    if (p->fail_at >= 0) goto out;
    double *av = view(p, a0), *rv = view(p, a);
    const double eps = p->dbl ? 2.2e-16 : 1.2e-7, scale = (double)(p->m > p->n ? p->m : p->n);
    double res = 0;
    if (p->kind == CHG_FACT_POTRF) res = resid_potrf(p, av, rv);
    if (p->kind == CHG_FACT_GETRF) {
        for (size_t i = 0; i < k; i++)
            EXPECT(ipiv[i] >= (int)i + 1 && ipiv[i] <= (int)p->m, "%s: ipiv[%zu] = %d", tag, i,
                   ipiv[i]);
        res = resid_getrf(p, av, rv, ipiv);
    }
    if (p->kind == CHG_FACT_GEQRF) {
        /* rv holds V below the diagonal and R on and above it, as geqrf stores them */
        res = resid_geqrf(p, av, rv, tau);
    }
    res /= scale * eps;
    EXPECT(res < 30.0, "%s: scaled residual %.3g", tag, res);
    free(av);
    free(rv);
out:
    free(a0);
    free(a);
    free(tau);
    free(ipiv);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_fact s|d host|device|fault|ooc [potrf] [getrf] [geqrf]\n");
        return 2;
    }
    const int dbl = argv[1][0] == 'd';
    dev_t d = {0};
    d.device = !strcmp(argv[2], "device");
    d.fault = !strcmp(argv[2], "fault");
    d.ooc = !strcmp(argv[2], "ooc");
    d.ndevs = 1;
    if (d.ooc) {
        size_t cnt = 0;
        clhgemm_devices_get(NULL, NULL, 0, &cnt);
        d.ndevs = cnt ? cnt : 1;
    }
    int rc = tc_open(&d.env);
    if (rc) return rc;
    if (dbl && !d.env.has_fp64) {
        printf("SKIP: no fp64\n");
        tc_close(&d.env);
        return TC_SKIP;
    }
    if (!d.device && clhgemm_create(&d.h, NULL) != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm_create failed\n");
        return 1;
    }
    if (!chg_lapack_ok(NULL)) {
        printf("SKIP: no CPU LAPACK\n");
        return TC_SKIP;
    }
    int kinds[3] = {1, 1, 1};
    if (argc > 3) {
        memset(kinds, 0, sizeof kinds);
        for (int i = 3; i < argc; i++)
            kinds[!strcmp(argv[i], "potrf") ? 0 : !strcmp(argv[i], "getrf") ? 1 : 2] = 1;
    }
    tc_rng_t rng;
    tc_rng_seed(&rng, 20261207);
    static const size_t sq[] = {1, 7, 33, 100, 129};
    static const size_t rect[][2] = {{1, 1}, {7, 7}, {33, 20}, {20, 33}, {100, 100},
                                     {129, 65}, {65, 129}, {97, 200}};
    for (int trans = 0; trans < 2; trans++) {
        for (size_t i = 0; kinds[0] && i < sizeof sq / sizeof *sq; i++)
            for (int fail = -1; fail < (sq[i] > 40 ? 2 : 0); fail++) {
                const int at = fail < 0 ? -1 : fail ? (int)sq[i] - 3 : (int)sq[i] / 2;
                prob_t p = {CHG_FACT_POTRF, dbl, trans, sq[i], sq[i], sq[i] + 3, at};
                one(&d, &p, &rng);
            }
        for (int kind = 1; kind <= 2; kind++) {
            if (!kinds[kind]) continue;
            for (size_t i = 0; i < sizeof rect / sizeof *rect; i++)
                for (int fail = -1; fail < (kind == 1 && rect[i][1] > 40 ? 1 : 0); fail++) {
                    const size_t m = rect[i][0], n = rect[i][1];
                    const size_t lda = (trans ? n : m) + 2;
                    prob_t p = {(chg_fact_kind_t)kind, dbl, trans, m, n, lda,
                                fail < 0 ? -1 : (int)(n / 3)};
                    one(&d, &p, &rng);
                }
        }
    }
    if (d.h) clhgemm_destroy(d.h);
    tc_close(&d.env);
    printf("test_fact %s %s: %d checks, %d failures\n", argv[1], argv[2], tc_checks(),
           tc_failures());
    return tc_failures() ? 1 : 0;
}
