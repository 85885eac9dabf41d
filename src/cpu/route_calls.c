/*
 * route_calls.c -- the CPU route's OpenBLAS calls and OpenBLAS's measured rates (route_calls.h).
 */
#include "cpu/route_calls.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/trace.h"
#include "base/util.h"

#ifdef CLHGEMM_HAVE_OPENBLAS
#include "cpu/blas_table.h"
#endif

const int chg_cpu_rate_size[CHG_CPU_RATE_SIZES] = {64, 256, 1024, 2048};

#ifdef CLHGEMM_HAVE_OPENBLAS

int chg_cpu_blas_gemm(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k, double alpha,
                      const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc)
{
    if (prec == CHG_F64)
        cblas_dgemm((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb, m, n, k, alpha,
                    a, lda, b, ldb, beta, c, ldc);
    else
        cblas_sgemm((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb, m, n, k,
                    (float)alpha, a, lda, b, ldb, (float)beta, c, ldc);
    return 0;
}

int chg_cpu_blas_symm(chg_precision_t prec, int layout, int side, int uplo, int m, int n, double alpha,
                      const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc)
{
    if (prec == CHG_F64)
        cblas_dsymm((enum CBLAS_ORDER)layout, (enum CBLAS_SIDE)side, (enum CBLAS_UPLO)uplo, m, n, alpha, a, lda,
                    b, ldb, beta, c, ldc);
    else
        cblas_ssymm((enum CBLAS_ORDER)layout, (enum CBLAS_SIDE)side, (enum CBLAS_UPLO)uplo, m, n, (float)alpha,
                    a, lda, b, ldb, (float)beta, c, ldc);
    return 0;
}

int chg_cpu_blas_syrk(chg_precision_t prec, int layout, int uplo, int trans, int n, int k, double alpha,
                      const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc)
{
    const enum CBLAS_ORDER o = (enum CBLAS_ORDER)layout;
    const enum CBLAS_UPLO u = (enum CBLAS_UPLO)uplo;
    const enum CBLAS_TRANSPOSE t = (enum CBLAS_TRANSPOSE)trans;
    if (b && prec == CHG_F64)
        cblas_dsyr2k(o, u, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else if (b)
        cblas_ssyr2k(o, u, t, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c, ldc);
    else if (prec == CHG_F64)
        cblas_dsyrk(o, u, t, n, k, alpha, a, lda, beta, c, ldc);
    else
        cblas_ssyrk(o, u, t, n, k, (float)alpha, a, lda, (float)beta, c, ldc);
    return 0;
}

int chg_cpu_blas_trmm(chg_precision_t prec, int layout, int side, int uplo, int ta, int diag, int m, int n,
                      double alpha, const void *a, int lda, void *b, int ldb)
{
    if (prec == CHG_F64)
        cblas_dtrmm((enum CBLAS_ORDER)layout, (enum CBLAS_SIDE)side, (enum CBLAS_UPLO)uplo,
                    (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_DIAG)diag, m, n, alpha, a, lda, b, ldb);
    else
        cblas_strmm((enum CBLAS_ORDER)layout, (enum CBLAS_SIDE)side, (enum CBLAS_UPLO)uplo,
                    (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_DIAG)diag, m, n, (float)alpha, a, lda, b, ldb);
    return 0;
}

int chg_cpu_blas_trsm(chg_precision_t prec, int layout, int side, int uplo, int ta, int diag, int m, int n,
                      double alpha, const void *a, int lda, void *b, int ldb)
{
    if (prec == CHG_F64)
        cblas_dtrsm((enum CBLAS_ORDER)layout, (enum CBLAS_SIDE)side, (enum CBLAS_UPLO)uplo,
                    (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_DIAG)diag, m, n, alpha, a, lda, b, ldb);
    else
        cblas_strsm((enum CBLAS_ORDER)layout, (enum CBLAS_SIDE)side, (enum CBLAS_UPLO)uplo,
                    (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_DIAG)diag, m, n, (float)alpha, a, lda, b, ldb);
    return 0;
}

/* One complex routine in one precision: f is the c or z prefix of CBLAS's names, T the type of
 * the real scalars (HERK's, HER2K's beta); the complex scalars travel as pointers to pairs of T. */
#define CHG_CPU_COMPLEX_(f, T)                                                                     \
    static void complex_##f(const chg_cpu_cargs_t *u)                                              \
    {                                                                                              \
        const T al[2] = {(T)u->alpha[0], (T)u->alpha[1]}, be[2] = {(T)u->beta[0], (T)u->beta[1]};  \
        const enum CBLAS_ORDER o = (enum CBLAS_ORDER)u->layout;                                    \
        const enum CBLAS_SIDE s = (enum CBLAS_SIDE)u->side;                                        \
        const enum CBLAS_UPLO up = (enum CBLAS_UPLO)u->uplo;                                       \
        const enum CBLAS_TRANSPOSE ta = (enum CBLAS_TRANSPOSE)u->ta;                               \
        const enum CBLAS_TRANSPOSE tb = (enum CBLAS_TRANSPOSE)u->tb;                               \
        const enum CBLAS_DIAG d = (enum CBLAS_DIAG)u->diag;                                        \
        switch (u->routine) {                                                                      \
        case CHG_CPU_GEMM:                                                                         \
            cblas_##f##gemm(o, ta, tb, u->m, u->n, u->k, al, u->a, u->lda, u->b, u->ldb, be, u->c, \
                            u->ldc);                                                               \
            break;                                                                                 \
        case CHG_CPU_HEMM:                                                                         \
            cblas_##f##hemm(o, s, up, u->m, u->n, al, u->a, u->lda, u->b, u->ldb, be, u->c,        \
                            u->ldc);                                                               \
            break;                                                                                 \
        case CHG_CPU_SYMM:                                                                         \
            cblas_##f##symm(o, s, up, u->m, u->n, al, u->a, u->lda, u->b, u->ldb, be, u->c,        \
                            u->ldc);                                                               \
            break;                                                                                 \
        case CHG_CPU_HERK:                                                                         \
            cblas_##f##herk(o, up, ta, u->n, u->k, al[0], u->a, u->lda, be[0], u->c, u->ldc);      \
            break;                                                                                 \
        case CHG_CPU_SYRK:                                                                         \
            cblas_##f##syrk(o, up, ta, u->n, u->k, al, u->a, u->lda, be, u->c, u->ldc);            \
            break;                                                                                 \
        case CHG_CPU_HER2K:                                                                        \
            cblas_##f##her2k(o, up, ta, u->n, u->k, al, u->a, u->lda, u->b, u->ldb, be[0], u->c,   \
                             u->ldc);                                                              \
            break;                                                                                 \
        case CHG_CPU_SYR2K:                                                                        \
            cblas_##f##syr2k(o, up, ta, u->n, u->k, al, u->a, u->lda, u->b, u->ldb, be, u->c,      \
                             u->ldc);                                                              \
            break;                                                                                 \
        case CHG_CPU_TRMM:                                                                         \
            cblas_##f##trmm(o, s, up, ta, d, u->m, u->n, al, u->a, u->lda, u->c, u->ldc);          \
            break;                                                                                 \
        default:                                                                                   \
            cblas_##f##trsm(o, s, up, ta, d, u->m, u->n, al, u->a, u->lda, u->c, u->ldc);          \
            break;                                                                                 \
        }                                                                                          \
    }
CHG_CPU_COMPLEX_(c, float)
CHG_CPU_COMPLEX_(z, double)
#undef CHG_CPU_COMPLEX_

int chg_cpu_blas_complex(chg_precision_t prec, const chg_cpu_cargs_t *u)
{
    if (prec == CHG_F64) complex_z(u);
    else complex_c(u);
    return 0;
}

static pthread_mutex_t g_rates_mu = PTHREAD_MUTEX_INITIALIZER;
static double g_rates[2][CHG_CPU_RATE_SIZES];

/* The best of a few products of n (after a warm-up), on data that is not zeros. */
static double measure_square(chg_precision_t prec, int n)
{
    const size_t es = chg_elem_size(prec), nn = (size_t)n * (size_t)n;
    char *buf = malloc(3 * nn * es);
    if (!buf) return 0;
    for (size_t i = 0; i < 3 * nn; i++) {
        const double v = (double)((i * 2654435761u) % 1000) / 1000.0 - 0.5;
        if (prec == CHG_F64)
            ((double *)buf)[i] = v;
        else
            ((float *)buf)[i] = (float)v;
    }
    /* about 30 ms of work at 1 TFLOP/s per size, at least 3 products */
    const int reps = (int)CHG_MAX(3.0, CHG_MIN(200.0, 3e10 / (2.0 * nn * n)));
    double best = 0;
    for (int r = 0; r <= reps; r++) {
        const unsigned long long t0 = chg_now_ns();
        chg_cpu_blas_gemm(prec, CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, buf, n, buf + nn * es, n,
                          0.5, buf + 2 * nn * es, n);
        const double t = (chg_now_ns() - t0) * 1e-9;
        if (r > 0 && t > 0) best = CHG_MAX(best, 2.0 * nn * n / t);
    }
    free(buf);
    return best;
}

void chg_cpu_blas_rates(chg_precision_t prec, double out[CHG_CPU_RATE_SIZES])
{
    pthread_mutex_lock(&g_rates_mu);
    if (!(g_rates[prec][0] > 0)) {
        const unsigned long long t0 = chg_now_ns();
        for (int i = 0; i < CHG_CPU_RATE_SIZES; i++) g_rates[prec][i] = measure_square(prec, chg_cpu_rate_size[i]);
        chg_log(1, "OpenBLAS %sGEMM rates measured in %.0f ms: %.1f, %.1f, %.1f, %.1f GFLOP/s at n = 64, 256, "
                   "1024, 2048", prec == CHG_F64 ? "D" : "S", (chg_now_ns() - t0) * 1e-6, g_rates[prec][0] * 1e-9,
                g_rates[prec][1] * 1e-9, g_rates[prec][2] * 1e-9, g_rates[prec][3] * 1e-9);
    }
    for (int i = 0; i < CHG_CPU_RATE_SIZES; i++) out[i] = g_rates[prec][i];
    pthread_mutex_unlock(&g_rates_mu);
}

int chg_cpu_blas_threads(void) { return chg_ob_get_threads(); }

#else /* no OpenBLAS: no CPU route */

int chg_cpu_blas_gemm(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k, double alpha,
                      const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc)
{
    (void)prec; (void)layout; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)alpha; (void)a;
    (void)lda; (void)b; (void)ldb; (void)beta; (void)c; (void)ldc;
    return -1;
}
int chg_cpu_blas_symm(chg_precision_t prec, int layout, int side, int uplo, int m, int n, double alpha,
                      const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc)
{
    (void)prec; (void)layout; (void)side; (void)uplo; (void)m; (void)n; (void)alpha; (void)a;
    (void)lda; (void)b; (void)ldb; (void)beta; (void)c; (void)ldc;
    return -1;
}
int chg_cpu_blas_syrk(chg_precision_t prec, int layout, int uplo, int trans, int n, int k, double alpha,
                      const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc)
{
    (void)prec; (void)layout; (void)uplo; (void)trans; (void)n; (void)k; (void)alpha; (void)a;
    (void)lda; (void)b; (void)ldb; (void)beta; (void)c; (void)ldc;
    return -1;
}
int chg_cpu_blas_trmm(chg_precision_t prec, int layout, int side, int uplo, int ta, int diag, int m, int n,
                      double alpha, const void *a, int lda, void *b, int ldb)
{
    (void)prec; (void)layout; (void)side; (void)uplo; (void)ta; (void)diag; (void)m; (void)n;
    (void)alpha; (void)a; (void)lda; (void)b; (void)ldb;
    return -1;
}
int chg_cpu_blas_trsm(chg_precision_t prec, int layout, int side, int uplo, int ta, int diag, int m, int n,
                      double alpha, const void *a, int lda, void *b, int ldb)
{
    (void)prec; (void)layout; (void)side; (void)uplo; (void)ta; (void)diag; (void)m; (void)n;
    (void)alpha; (void)a; (void)lda; (void)b; (void)ldb;
    return -1;
}
int chg_cpu_blas_complex(chg_precision_t prec, const chg_cpu_cargs_t *u)
{
    (void)prec; (void)u;
    return -1;
}
void chg_cpu_blas_rates(chg_precision_t prec, double out[CHG_CPU_RATE_SIZES])
{
    (void)prec;
    for (int i = 0; i < CHG_CPU_RATE_SIZES; i++) out[i] = 0;
}
int chg_cpu_blas_threads(void) { return 0; }

#endif
