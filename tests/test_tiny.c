/*
 * test_tiny.c -- the small-matrix GEMM of the CPU route (src/cpu/tiny.c, issue 19).
 *
 *   test_tiny kernel   chg_tiny_fits's choice of shapes; chg_tiny_gemm directly: both precisions, both layouts, every transpose
 *                      pair, m, n, k over {1, 2, 3, 5, 7, 8, 9, 16, 17, 31, 32}, leading
 *                      dimensions equal to the rows and padded, (alpha, beta) in (1, 0) with C
 *                      poisoned by NaN, (-1.5, 1), (1, 0.5), (-1.5, 0.5); against OpenBLAS with a
 *                      tolerance scaling with k; C's padding never written; NaN in A and Inf in
 *                      B where OpenBLAS has them; alpha = 0 and k = 0 read neither A nor B
 *   test_tiny api      the same table (33 too, beyond the kernel) through clhgemm_{s,d}gemm on a
 *                      handle with CLHGEMM_ROUTE=auto (every call of these sizes goes to the CPU:
 *                      checked in the call info); with CLHGEMM_TINY=off (ctest sets it for
 *                      test_tiny_off) the kernel must be off and the results just as right
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clhgemm.h"
#include "cpu/tiny.h"

static int g_checks, g_failures;

#define EXPECT(cond, ...)                                                                              \
    do {                                                                                               \
        g_checks++;                                                                                    \
        if (!(cond)) {                                                                                 \
            g_failures++;                                                                              \
            if (g_failures <= 20) {                                                                    \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
                printf(__VA_ARGS__);                                                                   \
                printf("\n");                                                                          \
            }                                                                                          \
        }                                                                                              \
    } while (0)

static const int kSizes[] = {1, 2, 3, 5, 7, 8, 9, 16, 17, 31, 32, 33};
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

/* Which calls the CPU route gives the kernel (cpu/tiny.h chg_tiny_fits): sizes up to
 * CHG_TINY_MAX, and in the column-major view A transposed and B not, or C's column 16, 32 or 64
 * bytes; row-major swaps m with n and the transposes. */
static void fits(void)
{
    const int C = CblasColMajor, R = CblasRowMajor, N = CblasNoTrans, T = CblasTrans;
    EXPECT(chg_tiny_fits(CHG_F32, C, N, N, 8, 5, 7) && chg_tiny_fits(CHG_F32, C, N, T, 16, 3, 3) &&
           chg_tiny_fits(CHG_F64, C, T, T, 4, 9, 1) && chg_tiny_fits(CHG_F64, C, N, N, 2, 32, 32),
           "whole-panel heights not taken");
    EXPECT(!chg_tiny_fits(CHG_F32, C, N, N, 5, 8, 8) && !chg_tiny_fits(CHG_F32, C, N, N, 32, 8, 8) &&
           !chg_tiny_fits(CHG_F64, C, T, T, 16, 8, 8),
           "other heights taken");
    EXPECT(chg_tiny_fits(CHG_F32, C, T, N, 5, 7, 9) && chg_tiny_fits(CHG_F64, R, N, T, 31, 17, 3),
           "A^T B (column-major view) not taken");
    EXPECT(!chg_tiny_fits(CHG_F32, C, N, T, 5, 7, 9) && !chg_tiny_fits(CHG_F64, R, T, N, 31, 17, 3),
           "A B^T (column-major view) taken");
    EXPECT(chg_tiny_fits(CHG_F32, R, N, N, 3, 8, 3) && !chg_tiny_fits(CHG_F32, R, N, N, 8, 3, 3),
           "row-major: C's column is n");
    EXPECT(!chg_tiny_fits(CHG_F32, C, T, N, 33, 4, 4) && !chg_tiny_fits(CHG_F32, C, N, N, 8, 33, 4) &&
           !chg_tiny_fits(CHG_F32, C, N, N, 8, 4, 33),
           "beyond CHG_TINY_MAX taken");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "kernel";
    if (!strcmp(mode, "kernel")) {
        quick_paths();
        fits();
        run_table(call_kernel, NULL, CHG_TINY_MAX);
    } else if (!strcmp(mode, "api")) {
        const char *tiny = getenv("CLHGEMM_TINY");
        const int want_on = !(tiny && !strcmp(tiny, "off"));
        EXPECT(chg_tiny_enabled() == want_on, "CLHGEMM_TINY=%s: the kernel is %s", tiny ? tiny : "(unset)",
               want_on ? "off" : "on");
        setenv("CLHGEMM_ROUTE", "auto", 1);
        unsetenv("CLHGEMM_ROUTE_MODEL");
        clhgemm_handle_t h = NULL;
        const clhgemm_status_t st = clhgemm_create(&h, NULL);
        if (st == CLHGEMM_NO_DEVICE) {
            printf("no device: skipped\n");
            return 77;
        }
        EXPECT(st == CLHGEMM_SUCCESS, "clhgemm_create: %s", clhgemm_status_string(st));
        if (st == CLHGEMM_SUCCESS) run_table(call_api, h, 1 << 30);
        clhgemm_destroy(h);
    } else {
        fprintf(stderr, "usage: test_tiny kernel|api\n");
        return 2;
    }
    printf("%d checks, %d failed\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
