/*
 * test_tiny.c -- the small-matrix GEMM of the CPU route (src/cpu/tiny.c).
 *
 *   test_tiny kernel   cpu/tiny_select.h's cells of shapes; chg_tiny_gemm directly: both precisions, both layouts, every transpose
 *                      pair, m, n, k over {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32} (the squares 4, 8,
 *                      16, 32 on their own code), leading
 *                      dimensions equal to the rows and padded, (alpha, beta) in (1, 0) with C
 *                      poisoned by NaN, (-1.5, 1), (1, 0.5), (-1.5, 0.5); against OpenBLAS with a
 *                      tolerance scaling with k; C's padding never written; NaN in A and Inf in
 *                      B where OpenBLAS has them; alpha = 0 and k = 0 read neither A nor B
 *   test_tiny api      the same table (33 too, beyond the kernel) through clhgemm_{s,d}gemm on a
 *                      handle with CLHGEMM_ROUTE=auto (every call of these sizes goes to the CPU:
 *                      checked in the call info), CLHGEMM_TINY as ctest sets it (test_tiny_api:
 *                      unset = auto, test_tiny_off, test_tiny_on); the table measured on the
 *                      first small call only; then which way each small call went, told by its
 *                      bits (the kernel's sums and OpenBLAS's differ): chg_tiny_use's choice,
 *                      with the measured table and with tables forced all-kernel and all-OpenBLAS
 *   test_tiny lazy     CLHGEMM_TINY=auto, no device: a first call through the CPU route's GEMM
 *                      measures its own cell only (chg_tiny_measured, the cells' bytes), a call
 *                      in a measured cell measures nothing; then, three rounds from an unmeasured
 *                      table (chg_tiny_reset), 8 threads started together, every one first in the
 *                      same cell, then through 192 shapes each in its own order, results against
 *                      OpenBLAS: afterwards every cell they used measured, none still being
 *                      measured, none measured twice (the last round with chg_tiny_calibrate
 *                      from one of them: every cell, once); a child of fork() made while a cell
 *                      was being measured measures it on its first call there
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clhgemm.h"
#include "common.h"
#include "cpu/route_calls.h"
#include "cpu/tiny.h"
#include "cpu/tiny_select.h"

static const int kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))

/* One call's shape and scalars. */
typedef struct tcase_s {
    int dbl, layout, ta, tb, m, n, k, pad;
    double alpha, beta;
    int special; /* 1: a NaN in A and an Inf in B */
} tcase_t;

typedef int (*gemm_fn)(const tcase_t *c, const void *A, int lda, const void *B, int ldb, void *C, int ldc,
                       void *ctx);

static double rnd(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / (double)(1u << 24) - 0.5;
}

static double get(int dbl, const void *p, size_t i) { return dbl ? ((const double *)p)[i] : ((const float *)p)[i]; }
static void put(int dbl, void *p, size_t i, double v)
{
    if (dbl) ((double *)p)[i] = v; else ((float *)p)[i] = (float)v;
}

/* Stored rows x cols of op(X) (r x c in the math sense) in layout with transpose t. */
static void stored(int layout, int t, int r, int c, int *rows, int *cols)
{
    const int col = layout == CblasColMajor, tr = t != CblasNoTrans;
    *rows = col ? (tr ? c : r) : (tr ? r : c);
    *cols = col ? (tr ? r : c) : (tr ? c : r);
}

/* op(X)(i, j) of a stored matrix */
static size_t at(int layout, int t, int i, int j, int ld)
{
    const int col = layout == CblasColMajor, tr = t != CblasNoTrans;
    const int r = tr ? j : i, c = tr ? i : j;
    return col ? (size_t)c * ld + r : (size_t)r * ld + c;
}

/* Runs one case through fn and OpenBLAS; 0 when it agrees. */
static void run_case(const tcase_t *c, gemm_fn fn, void *ctx, unsigned seed)
{
    const int dbl = c->dbl, es = dbl ? 8 : 4;
    int ar, ac, br, bc, cr, cc;
    stored(c->layout, c->ta, c->m, c->k, &ar, &ac);
    stored(c->layout, c->tb, c->k, c->n, &br, &bc);
    stored(c->layout, CblasNoTrans, c->m, c->n, &cr, &cc);
    const int lda = ar + c->pad, ldb = br + 2 * c->pad, ldc = cr + 3 * c->pad;
    const size_t na = (size_t)lda * ac, nb = (size_t)ldb * bc, nc = (size_t)ldc * cc;
    char *A = malloc(na * es), *B = malloc(nb * es), *C = malloc(nc * es), *W = malloc(nc * es), *C0 = malloc(nc * es);
    if (!A || !B || !C || !W || !C0) {
        EXPECT(0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < na; i++) put(dbl, A, i, rnd(&seed));
    for (size_t i = 0; i < nb; i++) put(dbl, B, i, rnd(&seed));
    for (size_t i = 0; i < nc; i++) put(dbl, C0, i, c->beta == 0 ? NAN : rnd(&seed));
    /* the padding of C (rows past cr) holds a sentinel that nobody may write */
    for (int j = 0; j < cc; j++)
        for (int i = cr; i < ldc; i++) put(dbl, C0, (size_t)j * ldc + i, 777.0);
    if (c->special) {
        put(dbl, A, at(c->layout, c->ta, c->m / 2, c->k - 1, lda), NAN);
        put(dbl, B, at(c->layout, c->tb, 0, c->n - 1, ldb), INFINITY);
    }
    memcpy(C, C0, nc * es);
    memcpy(W, C0, nc * es);
    if (fn(c, A, lda, B, ldb, C, ldc, ctx)) {
        EXPECT(0, "call failed");
        goto out;
    }
    if (dbl)
        cblas_dgemm(c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, (double *)A, lda, (double *)B, ldb, c->beta,
                    (double *)W, ldc);
    else
        cblas_sgemm(c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, (float *)A, lda, (float *)B, ldb,
                    (float)c->beta, (float *)W, ldc);
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    int bad = 0;
    for (int i = 0; i < c->m && bad < 3; i++)
        for (int j = 0; j < c->n && bad < 3; j++) {
            const size_t ic = at(c->layout, CblasNoTrans, i, j, ldc);
            double mag = fabs(c->beta) * (c->beta == 0 ? 0 : fabs(get(dbl, C0, ic)));
            for (int l = 0; l < c->k; l++)
                mag += fabs(c->alpha) * fabs(get(dbl, A, at(c->layout, c->ta, i, l, lda)) *
                                             get(dbl, B, at(c->layout, c->tb, l, j, ldb)));
            const double got = get(dbl, C, ic), want = get(dbl, W, ic);
            const double tol = 2.0 * (c->k + 4) * eps * mag + 1e-30;
            int ok;
            if (isnan(want) || isinf(want))
                ok = isnan(want) ? isnan(got) : got == want;
            else
                ok = isfinite(got) && fabs(got - want) <= tol;
            if (!ok) bad++;
            EXPECT(ok, "%c %s %c%c m %d n %d k %d pad %d alpha %g beta %g%s: C(%d,%d) = %.9g, OpenBLAS %.9g (tol %.3g)",
                   dbl ? 'd' : 's', c->layout == CblasColMajor ? "col" : "row", c->ta == CblasTrans ? 'T' : 'N',
                   c->tb == CblasTrans ? 'T' : 'N', c->m, c->n, c->k, c->pad, c->alpha, c->beta,
                   c->special ? " NaN/Inf" : "", i, j, got, want, tol);
        }
    for (int j = 0; j < cc && !bad; j++)
        for (int i = cr; i < ldc; i++)
            if (get(dbl, C, (size_t)j * ldc + i) != 777.0) {
                EXPECT(0, "C's padding written at (%d, %d), m %d n %d k %d", i, j, c->m, c->n, c->k);
                bad = 1;
                break;
            }
out:
    free(A); free(B); free(C); free(W); free(C0);
}

/* Every case of the table whose sizes are at most `most`. */
static void run_table(gemm_fn fn, void *ctx, int most)
{
    static const double ab[4][2] = {{1.0, 0.0}, {-1.5, 1.0}, {1.0, 0.5}, {-1.5, 0.5}};
    static const int trans[2] = {CblasNoTrans, CblasTrans}, layouts[2] = {CblasColMajor, CblasRowMajor};
    unsigned seed = 12345;
    int count = 0;
    for (int dbl = 0; dbl < 2; dbl++)
        for (int li = 0; li < 2; li++)
            for (int t = 0; t < 4; t++)
                for (int mi = 0; mi < NSIZES; mi++)
                    for (int ni = 0; ni < NSIZES; ni++)
                        for (int ki = 0; ki < NSIZES; ki++) {
                            const int m = kSizes[mi], n = kSizes[ni], k = kSizes[ki];
                            if (m > most || n > most || k > most) continue;
                            /* every size triple once per layout x trans x precision; the scalar
                             * pairs and the padding turn with the count */
                            const int s = count++;
                            const tcase_t c = {.dbl = dbl, .layout = layouts[li], .ta = trans[t >> 1],
                                               .tb = trans[t & 1], .m = m, .n = n, .k = k, .pad = s % 3 == 2 ? 3 : 0,
                                               .alpha = ab[s % 4][0], .beta = ab[s % 4][1], .special = s % 7 == 3};
                            run_case(&c, fn, ctx, seed + (unsigned)s);
                        }
    printf("%d cases\n", count);
}

static int call_kernel(const tcase_t *c, const void *A, int lda, const void *B, int ldb, void *C, int ldc, void *ctx)
{
    (void)ctx;
    chg_tiny_gemm(c->dbl ? CHG_F64 : CHG_F32, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, A, lda, B, ldb,
                  c->beta, C, ldc);
    return 0;
}

static int call_api(const tcase_t *c, const void *A, int lda, const void *B, int ldb, void *C, int ldc, void *ctx)
{
    clhgemm_handle_t h = ctx;
    const clhgemm_status_t st =
        c->dbl ? clhgemm_dgemm(h, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, A, lda, B, ldb, c->beta, C, ldc)
               : clhgemm_sgemm(h, c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, A, lda, B, ldb,
                               (float)c->beta, C, ldc);
    if (st != CLHGEMM_SUCCESS) return 1;
    clhgemm_call_info_t info;
    if (clhgemm_last_call_info(h, &info) != CLHGEMM_SUCCESS) return 1;
    EXPECT(info.devices_used == 0 && info.cpu_fraction == 1.0, "m %d n %d k %d: not on the CPU route", c->m, c->n,
           c->k);
    return 0;
}

/* alpha = 0 and k = 0: C := beta*C without reading A or B (NULL here), NaN in C gone when
 * beta = 0; m or n = 0: nothing written. */
static void quick_paths(void)
{
    double C[6] = {NAN, NAN, NAN, NAN, 5, 5};
    chg_tiny_gemm(CHG_F64, CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 3, 0.0, NULL, 2, NULL, 3, 0.0, C, 2);
    EXPECT(C[0] == 0 && C[1] == 0 && C[2] == 0 && C[3] == 0 && C[4] == 5, "alpha 0, beta 0: C not zeroed");
    float S[4] = {1, 2, 3, 4};
    chg_tiny_gemm(CHG_F32, CblasRowMajor, CblasTrans, CblasNoTrans, 2, 2, 0, 1.0, NULL, 2, NULL, 2, 0.5, S, 2);
    EXPECT(S[0] == 0.5f && S[3] == 2.0f, "k 0, beta 0.5: C not scaled");
    chg_tiny_gemm(CHG_F32, CblasColMajor, CblasNoTrans, CblasNoTrans, 0, 2, 2, 1.0, NULL, 1, NULL, 2, 0.0, S, 1);
    EXPECT(S[0] == 0.5f, "m 0: C written");
}

/* The cells of cpu/tiny_select.h's table: size buckets of max(m, n, k) (<= 6, 12, 20, 32), the
 * panels' kind by C's rows in the column-major view (padded: floats 1-3, doubles 1; whole: floats
 * 4, 8, 16, 32, doubles 2, 4, 8, 16, 24, 32; the others overlapping), the transposes of that
 * view (row-major swaps m with n and A with B), beta == 0; nothing above CHG_TINY_MAX goes to the
 * kernel, whatever the mode. */
static void cells(void)
{
    const int C = CblasColMajor, R = CblasRowMajor, N = CblasNoTrans, T = CblasTrans;
    static const int edge[][2] = {{1, 0}, {6, 0}, {7, 1}, {12, 1}, {13, 2}, {20, 2}, {21, 3}, {32, 3}};
    for (int i = 0; i < 8; i++) {
        const int v = edge[i][0], want = edge[i][1];
        EXPECT((chg_tiny_cell(CHG_F32, C, N, N, 1, 1, v, 1.0) >> 2 & 3u) == (unsigned)want &&
                   (chg_tiny_cell(CHG_F64, C, N, N, 1, v, 1, 1.0) >> 2 & 3u) == (unsigned)want &&
                   (chg_tiny_cell(CHG_F32, R, N, N, v, 1, 1, 1.0) >> 2 & 3u) == (unsigned)want,
               "max(m, n, k) = %d: not bucket %d", v, want);
    }
    for (int m = 1; m <= CHG_TINY_MAX; m++) {
        const unsigned ws = m < 4 ? CHG_TINY_PADDED : m == 4 || m == 8 || m == 16 || m == 32 ? CHG_TINY_WHOLE
                                                                                               : CHG_TINY_OVERLAP;
        const unsigned wd = m == 1 ? CHG_TINY_PADDED
                            : m == 2 || m == 4 || m == 8 || m == 16 || m == 24 || m == 32 ? CHG_TINY_WHOLE
                                                                                         : CHG_TINY_OVERLAP;
        EXPECT((chg_tiny_cell(CHG_F32, C, N, N, m, 5, 5, 1.0) & 3u) == ws &&
                   (chg_tiny_cell(CHG_F64, C, T, N, m, 5, 5, 1.0) & 3u) == wd &&
                   (chg_tiny_cell(CHG_F32, R, N, N, 5, m, 5, 1.0) & 3u) == ws &&
                   (chg_tiny_cell(CHG_F32, R, N, N, m, 5, 5, 1.0) & 3u) == CHG_TINY_OVERLAP,
               "m %d: panels' kind wrong (C's rows in the column-major view)", m);
    }
    /* m = n = k = 4, 8, 16, 32: the square cells (their own code in tiny.c), whatever the layout */
    for (int v = 1; v <= CHG_TINY_MAX; v++) {
        const int sq = v == 4 || v == 8 || v == 16 || v == 32;
        EXPECT(((chg_tiny_cell(CHG_F32, C, N, T, v, v, v, 1.0) & 3u) == CHG_TINY_SQUARE) == sq &&
                   ((chg_tiny_cell(CHG_F64, R, T, N, v, v, v, 0.0) & 3u) == CHG_TINY_SQUARE) == sq &&
                   (chg_tiny_cell(CHG_F64, C, N, N, v, v, v == 1 ? 2 : v - 1, 0.0) & 3u) != CHG_TINY_SQUARE &&
                   (chg_tiny_cell(CHG_F32, R, N, N, v, v == 1 ? 2 : v - 1, v, 0.0) & 3u) != CHG_TINY_SQUARE,
               "m = n = k = %d: %s a square cell", v, sq ? "not" : "wrongly");
    }
    EXPECT(chg_tiny_cell(CHG_F32, C, T, N, 4, 4, 4, 0.0) >> 4 == 6u && chg_tiny_cell(CHG_F32, C, N, T, 4, 4, 4, 0.5) >> 4 == 1u &&
               chg_tiny_cell(CHG_F64, R, T, N, 4, 4, 4, 0.0) >> 4 == 5u && chg_tiny_cell(CHG_F64, R, N, T, 4, 4, 4, 2.0) >> 4 == 2u,
           "transposes (row-major: swapped) or beta == 0 not in the cell");
    EXPECT(chg_tiny_cell(CHG_F64, C, T, T, 32, 32, 32, 0.0) < CHG_TINY_CELLS, "cell beyond the table");
    EXPECT(!chg_tiny_use(CHG_F32, C, T, N, 33, 4, 4, 0.0, NULL) && !chg_tiny_use(CHG_F32, C, N, N, 8, 33, 4, 0.0, NULL) &&
               !chg_tiny_use(CHG_F64, C, N, N, 8, 4, 33, 0.5, NULL),
           "beyond CHG_TINY_MAX given to the kernel");
}

/* The reference the calibration times and the route calls (cpu/route_calls.h's counterpart). */
static int ref_gemm(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k, double alpha, const void *a,
                    int lda, const void *b, int ldb, double beta, void *c, int ldc)
{
    if (prec == CHG_F64)
        cblas_dgemm(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else
        cblas_sgemm(layout, ta, tb, m, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c, ldc);
    return 0;
}

/* Which way each small call went, seen in its bits: on random data the kernel's sums
 * (two chains of FMAs, even and odd l) and OpenBLAS's differ in the last bits of most elements,
 * and each is the same from call to call. For each case whose two results differ, the API's
 * must be bitwise the one chg_tiny_use chose with the table as it is (forced, in auto, to every
 * cell the kernel, then none, then as measured). */
static int g_route_told;
static void route_case(clhgemm_handle_t h, int dbl, int layout, int ta, int tb, int m, int n, int k, double beta,
                       int *told)
{
    const chg_precision_t p = dbl ? CHG_F64 : CHG_F32;
    const size_t es = dbl ? 8 : 4, sz = (size_t)CHG_TINY_MAX * CHG_TINY_MAX;
    char *buf = calloc(6 * sz, es), *A = buf, *B = A + sz * es, *K = B + sz * es, *O = K + sz * es, *X = O + sz * es;
    const int ld = CHG_TINY_MAX;
    unsigned seed = (unsigned)(m * 1009 + n * 31 + k) ^ (unsigned)dbl;
    /* full mantissas (rnd's 24 bits make double products and their sums exact in any order) */
    for (size_t i = 0; i < 2 * sz; i++) put(dbl, buf, i, rnd(&seed) + rnd(&seed) * 0x1p-25);
    for (size_t i = 0; i < sz; i++) put(dbl, K, i, beta == 0 ? NAN : 0.25);
    memcpy(O, K, sz * es);
    memcpy(X, K, sz * es);
    chg_tiny_gemm(p, layout, ta, tb, m, n, k, 1.0, A, ld, B, ld, beta, K, ld);
    ref_gemm(p, layout, ta, tb, m, n, k, 1.0, A, ld, B, ld, beta, O, ld);
    const clhgemm_status_t st =
        dbl ? clhgemm_dgemm(h, layout, ta, tb, m, n, k, 1.0, (double *)A, ld, (double *)B, ld, beta, (double *)X, ld)
            : clhgemm_sgemm(h, layout, ta, tb, m, n, k, 1.0f, (float *)A, ld, (float *)B, ld, (float)beta, (float *)X, ld);
    EXPECT(st == CLHGEMM_SUCCESS, "clhgemm_%cgemm: %s", dbl ? 'd' : 's', clhgemm_status_string(st));
    if (memcmp(K, O, sz * es)) {
        (*told)++;
        const int kern = chg_tiny_use(p, layout, ta, tb, m, n, k, beta, ref_gemm);
        EXPECT(!memcmp(X, kern ? K : O, sz * es), "%c %s %c%c m %d n %d k %d beta %g: not %s's result (state %d)",
               dbl ? 'd' : 's', layout == CblasColMajor ? "col" : "row", ta == CblasTrans ? 'T' : 'N',
               tb == CblasTrans ? 'T' : 'N', m, n, k, beta, kern ? "the kernel" : "OpenBLAS",
               atomic_load(&chg_tiny_state_));
    }
    free(buf);
}

static void route_table(clhgemm_handle_t h)
{
    static const int dims[][3] = {{5, 5, 5}, {4, 6, 5}, {8, 8, 8}, {12, 9, 11}, {16, 16, 16}, {20, 13, 17},
                                  {24, 24, 24}, {28, 21, 30}, {32, 32, 32}, {2, 32, 7}, {3, 6, 6}, {1, 17, 9}};
    static const int trans[2] = {CblasNoTrans, CblasTrans}, layouts[2] = {CblasColMajor, CblasRowMajor};
    int told = 0, all = 0;
    for (int dbl = 0; dbl < 2; dbl++)
        for (int li = 0; li < 2; li++)
            for (int t = 0; t < 4; t++)
                for (int d = 0; d < (int)(sizeof dims / sizeof dims[0]); d++)
                    for (int bi = 0; bi < 2; bi++, all++)
                        route_case(h, dbl, layouts[li], trans[t >> 1], trans[t & 1], dims[d][0], dims[d][1],
                                   dims[d][2], bi ? 0.5 : 0.0, &told);
    /* a test that cannot tell the two apart checks nothing */
    EXPECT(told * 2 > all, "only %d of %d cases tell the kernel's result from OpenBLAS's", told, all);
    g_route_told += told;
}

/* The API with CLHGEMM_TINY as the environment has it: no measurement before a call that could
 * use the kernel (a handle, a call of 33); results right in every cell; then which way each call
 * went (route_table), in auto with the measured table and with tables forced both ways. */
static void api_mode(void)
{
    const char *tiny = getenv("CLHGEMM_TINY");
    const int want = tiny && !strcmp(tiny, "off") ? CHG_TINY_OFF : tiny && !strcmp(tiny, "on") ? CHG_TINY_ON
                                                                                                  : CHG_TINY_AUTO;
    EXPECT(chg_tiny_mode() == want, "CLHGEMM_TINY=%s: mode %d, not %d", tiny ? tiny : "(unset)", chg_tiny_mode(), want);
    setenv("CLHGEMM_ROUTE", "auto", 1);
    unsetenv("CLHGEMM_ROUTE_MODEL");
    clhgemm_handle_t h = NULL;
    const clhgemm_status_t st = clhgemm_create(&h, NULL);
    if (st == CLHGEMM_NO_DEVICE) {
        printf("no device: skipped\n");
        exit(77);
    }
    EXPECT(st == CLHGEMM_SUCCESS, "clhgemm_create: %s", clhgemm_status_string(st));
    if (st != CLHGEMM_SUCCESS) return;
    static double big[3][33 * 33];
    EXPECT(clhgemm_dgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, 33, 33, 33, 1.0, big[0], 33, big[1],
                         33, 0.0, big[2], 33) == CLHGEMM_SUCCESS &&
               atomic_load(&chg_tiny_state_) == want && chg_tiny_measured() == 0,
           "a handle or a call beyond the kernel changed the state to %d or measured %u cells",
           atomic_load(&chg_tiny_state_), chg_tiny_measured());
    run_table(call_api, h, 1 << 30);
    int known = 0, measuring = 0;
    for (int i = 0; i < 2 * CHG_TINY_CELLS; i++) {
        const unsigned v = atomic_load(&chg_tiny_table_[i / CHG_TINY_CELLS][i % CHG_TINY_CELLS]);
        known += v >= CHG_TINY_BLAS;
        measuring += v == CHG_TINY_MEASURING;
    }
    EXPECT(atomic_load(&chg_tiny_state_) == want && !measuring &&
               (int)chg_tiny_measured() == (want == CHG_TINY_AUTO ? known : 0) && known > 0,
           "after small calls: state %d, %u cells measured, %d known, %d being measured", atomic_load(&chg_tiny_state_),
           chg_tiny_measured(), known, measuring);
    route_table(h);
    if (want == CHG_TINY_AUTO) {
        static unsigned char measured[2][CHG_TINY_CELLS];
        int on = 0, cells = 0;
        for (int i = 0; i < 2 * CHG_TINY_CELLS; i++) {
            measured[i / CHG_TINY_CELLS][i % CHG_TINY_CELLS] =
                atomic_load(&chg_tiny_table_[i / CHG_TINY_CELLS][i % CHG_TINY_CELLS]);
            on += measured[i / CHG_TINY_CELLS][i % CHG_TINY_CELLS] == CHG_TINY_KERNEL;
            cells += measured[i / CHG_TINY_CELLS][i % CHG_TINY_CELLS] >= CHG_TINY_BLAS;
        }
        printf("measured table: the kernel in %d of the %d cells measured (of %d)\n", on, cells, 2 * CHG_TINY_CELLS);
        for (int way = CHG_TINY_KERNEL; way >= CHG_TINY_BLAS; way--) {
            for (int i = 0; i < 2 * CHG_TINY_CELLS; i++)
                atomic_store(&chg_tiny_table_[i / CHG_TINY_CELLS][i % CHG_TINY_CELLS], (unsigned char)way);
            route_table(h);
        }
        for (int i = 0; i < 2 * CHG_TINY_CELLS; i++)
            atomic_store(&chg_tiny_table_[i / CHG_TINY_CELLS][i % CHG_TINY_CELLS],
                         measured[i / CHG_TINY_CELLS][i % CHG_TINY_CELLS]);
    }
    printf("%d calls told apart by their bits\n", g_route_told);
    clhgemm_destroy(h);
}


/* ---- lazy: one cell measured per first call; threads ------------------------------------- */
#define LZ_THREADS 8
#define LZ_SHAPES 192 /* 2 precisions x 2 layouts x 4 transpose pairs x 6 sizes x 2 betas */
typedef struct lz_shape_s {
    int dbl, layout, ta, tb, m, n, k;
    double beta;
} lz_shape_t;
static lz_shape_t g_lz[LZ_SHAPES];
static pthread_barrier_t g_lz_start;

static void lz_shapes(void)
{
    static const int dims[6][3] = {{5, 5, 5}, {8, 8, 8}, {12, 9, 11}, {16, 16, 16}, {28, 21, 30}, {32, 32, 32}};
    static const int trans[2] = {CblasNoTrans, CblasTrans}, layouts[2] = {CblasColMajor, CblasRowMajor};
    int i = 0;
    for (int dbl = 0; dbl < 2; dbl++)
        for (int li = 0; li < 2; li++)
            for (int t = 0; t < 4; t++)
                for (int d = 0; d < 6; d++)
                    for (int bi = 0; bi < 2; bi++)
                        g_lz[i++] = (lz_shape_t){dbl, layouts[li], trans[t >> 1], trans[t & 1], dims[d][0],
                                                 dims[d][1], dims[d][2], bi ? 0.5 : 0.0};
}

static unsigned lz_cell(const lz_shape_t *s)
{
    return (s->dbl ? CHG_TINY_CELLS : 0u) +
           chg_tiny_cell(s->dbl ? CHG_F64 : CHG_F32, s->layout, s->ta, s->tb, s->m, s->n, s->k, s->beta);
}

/* One product through the CPU route's GEMM (chg_cpu_route_gemm: the kernel or OpenBLAS as the
 * table says, measuring the cell first if it is unknown), against OpenBLAS's; 0 when they agree. */
static int lz_call(const lz_shape_t *s, unsigned seed)
{
    const size_t es = s->dbl ? 8 : 4, sz = (size_t)CHG_TINY_MAX * CHG_TINY_MAX;
    char *buf = malloc(4 * sz * es), *A = buf, *B = A + sz * es, *C = B + sz * es, *R = C + sz * es;
    const int ld = CHG_TINY_MAX;
    for (size_t i = 0; i < 3 * sz; i++) put(s->dbl, buf, i, rnd(&seed));
    memcpy(R, C, sz * es);
    const chg_precision_t p = s->dbl ? CHG_F64 : CHG_F32;
    int bad = chg_cpu_route_gemm(p, s->layout, s->ta, s->tb, s->m, s->n, s->k, -1.5, A, ld, B, ld, s->beta, C, ld) != 0;
    ref_gemm(p, s->layout, s->ta, s->tb, s->m, s->n, s->k, -1.5, A, ld, B, ld, s->beta, R, ld);
    const double tol = (s->dbl ? 64 * DBL_EPSILON : 64 * FLT_EPSILON) * s->k;
    for (size_t i = 0; i < sz; i++) bad |= !(fabs(get(s->dbl, C, i) - get(s->dbl, R, i)) <= tol);
    free(buf);
    return bad;
}

static int g_lz_calibrate; /* the round whose thread 0 measures the whole table first */

static void *lz_thread(void *arg)
{
    const int id = (int)(intptr_t)arg;
    int bad = 0;
    pthread_barrier_wait(&g_lz_start);
    if (id == 0 && g_lz_calibrate) bad += chg_tiny_calibrate(ref_gemm) != CHG_TINY_AUTO;
    bad += lz_call(&g_lz[LZ_SHAPES - 1], 7u); /* every thread's first call in the same cell */
    for (int j = 0; j < LZ_SHAPES; j++) {
        const int i = (j * (2 * id + 1) + id * 37) % LZ_SHAPES; /* an order of its own (odd strides) */
        bad += lz_call(&g_lz[i], (unsigned)(i * 131 + id));
    }
    return (void *)(intptr_t)bad;
}

/* The table's cells: how many measured (or set), being measured. */
static void lz_count(int *known, int *measuring)
{
    *known = *measuring = 0;
    for (int i = 0; i < 2 * CHG_TINY_CELLS; i++) {
        const unsigned v = atomic_load(&chg_tiny_table_[i / CHG_TINY_CELLS][i % CHG_TINY_CELLS]);
        *known += v >= CHG_TINY_BLAS;
        *measuring += v == CHG_TINY_MEASURING;
    }
}

static void lazy_mode(void)
{
    /* auto, and no whole-table measurement for the log */
    setenv("CLHGEMM_TINY", "auto", 1);
    unsetenv("CLHGEMM_VERBOSE");
    lz_shapes();
    int known, measuring;
    lz_count(&known, &measuring);
    EXPECT(chg_tiny_mode() == CHG_TINY_AUTO && known == 0 && measuring == 0 && chg_tiny_measured() == 0,
           "fresh process: mode %d, %d cells known, %d being measured, %u measured", chg_tiny_mode(), known,
           measuring, chg_tiny_measured());
    /* the first call (numpy's 32 x 32 float64 product: row-major NN, beta 0) measures its cell only */
    const lz_shape_t first = {1, CblasRowMajor, CblasNoTrans, CblasNoTrans, 32, 32, 32, 0.0};
    const unsigned cell = lz_cell(&first);
    EXPECT(!lz_call(&first, 1u), "first call: wrong result");
    lz_count(&known, &measuring);
    EXPECT(known == 1 && measuring == 0 && chg_tiny_measured() == 1 &&
               atomic_load(&chg_tiny_table_[1][cell - CHG_TINY_CELLS]) >= CHG_TINY_BLAS,
           "after the first call: %d cells known, %d being measured, %u measured, its cell %u: %u", known, measuring,
           chg_tiny_measured(), cell, (unsigned)atomic_load(&chg_tiny_table_[1][cell - CHG_TINY_CELLS]));
    /* again in that cell (another size of its bucket): nothing measured; a float call: its one cell */
    const lz_shape_t same = {1, CblasRowMajor, CblasNoTrans, CblasNoTrans, 32, 32, 32, 0.0},
                     flt = {0, CblasColMajor, CblasTrans, CblasNoTrans, 7, 9, 11, 0.5};
    EXPECT(!lz_call(&same, 2u) && chg_tiny_measured() == 1, "a second call in a measured cell: %u measured",
           chg_tiny_measured());
    EXPECT(!lz_call(&flt, 3u), "float call: wrong result");
    lz_count(&known, &measuring);
    EXPECT(known == 2 && chg_tiny_measured() == 2 &&
               atomic_load(&chg_tiny_table_[0][lz_cell(&flt)]) >= CHG_TINY_BLAS,
           "after a float call: %d cells known, %u measured", known, chg_tiny_measured());
    /* threads from an unmeasured table, three rounds */
    static uint8_t used[2 * CHG_TINY_CELLS];
    int ncells = 0;
    for (int i = 0; i < LZ_SHAPES; i++)
        if (!used[lz_cell(&g_lz[i])]++) ncells++;
    for (int round = 0; round < 3; round++) {
        chg_tiny_reset();
        g_lz_calibrate = round == 2; /* the last round: the whole table too, from thread 0 meanwhile */
        const unsigned before = chg_tiny_measured();
        pthread_t th[LZ_THREADS];
        pthread_barrier_init(&g_lz_start, NULL, LZ_THREADS);
        for (int t = 0; t < LZ_THREADS; t++) pthread_create(&th[t], NULL, lz_thread, (void *)(intptr_t)t);
        int bad = 0;
        for (int t = 0; t < LZ_THREADS; t++) {
            void *r;
            pthread_join(th[t], &r);
            bad += (int)(intptr_t)r;
        }
        pthread_barrier_destroy(&g_lz_start);
        lz_count(&known, &measuring);
        int missing = 0;
        for (int i = 0; i < 2 * CHG_TINY_CELLS; i++)
            missing += used[i] && atomic_load(&chg_tiny_table_[i / CHG_TINY_CELLS][i % CHG_TINY_CELLS]) < CHG_TINY_BLAS;
        const int want = g_lz_calibrate ? 2 * CHG_TINY_CELLS : ncells;
        EXPECT(!bad && !measuring && !missing && known == want && chg_tiny_measured() - before == (unsigned)want,
               "round %d, %d threads: %d wrong results, %d cells being measured, %d used but unmeasured, %d known "
               "of %d used, %u measurements",
               round, LZ_THREADS, bad, measuring, missing, known, want, chg_tiny_measured() - before);
    }
    /* a child of fork() made while another thread measured a cell: the cell is unknown there,
     * and its first call measures it */
    chg_tiny_reset();
    atomic_store(&chg_tiny_table_[1][cell - CHG_TINY_CELLS], CHG_TINY_MEASURING);
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        const unsigned after_fork = atomic_load(&chg_tiny_table_[1][cell - CHG_TINY_CELLS]), m0 = chg_tiny_measured();
        const int ok = after_fork == CHG_TINY_UNKNOWN && !lz_call(&first, 4u) && chg_tiny_measured() == m0 + 1 &&
                       atomic_load(&chg_tiny_table_[1][cell - CHG_TINY_CELLS]) >= CHG_TINY_BLAS;
        _exit(ok ? 0 : 1);
    }
    int status = -1;
    EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "fork child: a cell being measured in the parent not measured again in the child (status %d)", status);
    EXPECT(atomic_load(&chg_tiny_table_[1][cell - CHG_TINY_CELLS]) == CHG_TINY_MEASURING,
           "fork: the parent's cell changed");
    atomic_store(&chg_tiny_table_[1][cell - CHG_TINY_CELLS], CHG_TINY_UNKNOWN);
    printf("%d threads x %d shapes over %d cells, 3 rounds (the last with chg_tiny_calibrate meanwhile): each cell "
           "measured once; a fork child measures a cell left being measured\n",
           LZ_THREADS, LZ_SHAPES + 1, ncells);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "kernel";
    tc_fail_print_limit(20); /* the table checks every element */
    if (!strcmp(mode, "kernel")) {
        quick_paths();
        cells();
        run_table(call_kernel, NULL, CHG_TINY_MAX);
    } else if (!strcmp(mode, "api")) {
        api_mode();
    } else if (!strcmp(mode, "lazy")) {
        lazy_mode();
    } else {
        fprintf(stderr, "usage: test_tiny kernel|api|lazy\n");
        return 2;
    }
    printf("%d checks, %d failed\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
