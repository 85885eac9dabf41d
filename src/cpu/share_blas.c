/*
 * share_blas.c -- OpenBLAS for the CPU's share of a host GEMM, and the time model of Garcia,
 * Cuenca and Gimenez (see share_blas.h). It reaches OpenBLAS through cpu/blas_table.h: without
 * OpenBLAS at build time (CLHGEMM_HAVE_OPENBLAS unset) the functions report that there is no CPU
 * share.
 *
 * OpenBLAS's thread count is process-wide state, so the products run under one mutex, each
 * with the thread count the pipeline's core budget gives it, and the caller's setting is
 * restored afterwards.
 */
#include "cpu/share_blas.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/trace.h"
#include "base/util.h"

#ifdef CLHGEMM_HAVE_OPENBLAS
#include "cpu/blas_table.h"
#endif

int chg_cpu_available(void)
{
#if defined(CLHGEMM_HAVE_OPENBLAS) && defined(CLHGEMM_CPU_DLOPEN)
    return chg_cpu_lib_ok() && chg_cblas()->p_dgemm && chg_cblas()->p_sgemm;
#elif defined(CLHGEMM_HAVE_OPENBLAS)
    return 1;
#else
    return 0;
#endif
}

int chg_cpu_cores(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static pthread_mutex_t g_blas_mu = PTHREAD_MUTEX_INITIALIZER;

/* A hint when OpenBLAS runs kernels older than the CPU (a misdetected core runs 5-7x slower:
 * the H100 machine's Xeon gave ~100 GFLOP/s DGEMM, 540-740 with OPENBLAS_CORETYPE=Cooperlake). */
static const char *core_hint(const char *core)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const char *const old[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom",
                                      "Katmai", "Coppermine", "Northwood", "Banias", "Sandybridge"};
    __builtin_cpu_init();
    const int avx2 = __builtin_cpu_supports("avx2");
    int is_old = 0;
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++) is_old |= !strcmp(core, old[i]);
    if (avx2 && is_old) return " -- WARNING: the CPU has AVX2 but OpenBLAS runs older kernels: set OPENBLAS_CORETYPE (docs/ENVIRONMENT.md)";
    if (__builtin_cpu_is("intel") && __builtin_cpu_supports("avx512f") && strcmp(core, "SkylakeX") &&
        strcmp(core, "Cooperlake") && strcmp(core, "SapphireRapids"))
        return " -- WARNING: an Intel CPU with AVX-512 but OpenBLAS runs other kernels: try OPENBLAS_CORETYPE=Cooperlake or SkylakeX (docs/ENVIRONMENT.md)";
#else
    (void)core;
#endif
    return "";
}

void chg_cpu_describe(char *buf, size_t len)
{
#ifdef CLHGEMM_HAVE_OPENBLAS
    const int par = chg_ob_parallel();
    const char *mode = par == 0 ? "sequential" : par == 1 ? "pthreads" : par == 2 ? "OpenMP" : "?";
    const char *cfg = chg_ob_config(), *ct = getenv("OPENBLAS_CORETYPE");
    char ctbuf[96] = "";
    if (ct) snprintf(ctbuf, sizeof ctbuf, " [OPENBLAS_CORETYPE=%.60s]", ct);
    snprintf(buf, len, "%s%s, core %s, %d threads (%s)%s%s", strncmp(cfg, "OpenBLAS", 8) ? "OpenBLAS " : "",
             cfg, chg_ob_corename(), chg_ob_get_threads(), mode, ctbuf,
             core_hint(chg_ob_corename()));
#else
    snprintf(buf, len, "no OpenBLAS (the library was built without it: no CPU share)");
#endif
}

void chg_cpu_corename(char *buf, size_t len)
{
#ifdef CLHGEMM_HAVE_OPENBLAS
    snprintf(buf, len, "%s", chg_ob_corename());
#else
    snprintf(buf, len, "none");
#endif
}

int chg_cpu_share_threads_default(void)
{
    /* as clhgemm_create reads it (which fails on a bad value; here: the default or the bound) */
    return chg_env_int("CLHGEMM_CPU_SHARE_THREADS", CHG_MAX(1, chg_cpu_cores() / 2), 1, 1024);
}

int chg_cpu_gemm(chg_precision_t prec, int trans_a, int trans_b, size_t m, size_t n, size_t k,
                 double alpha, const void *a, size_t lda, const void *b, size_t ldb, double beta,
                 void *c, size_t ldc, int threads)
{
#ifdef CLHGEMM_HAVE_OPENBLAS
    if (m == 0 || n == 0) return 0;
    const enum CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans,
                               tb = trans_b ? CblasTrans : CblasNoTrans;
    pthread_mutex_lock(&g_blas_mu);
    const int saved = chg_ob_get_threads();
    chg_ob_set_threads(threads > 0 ? threads : 1);
    if (prec == CHG_F64)
        cblas_dgemm(CblasColMajor, ta, tb, (int)m, (int)n, (int)k, alpha, a, (int)lda, b, (int)ldb,
                    beta, c, (int)ldc);
    else
        cblas_sgemm(CblasColMajor, ta, tb, (int)m, (int)n, (int)k, (float)alpha, a, (int)lda, b,
                    (int)ldb, (float)beta, c, (int)ldc);
    chg_ob_set_threads(saved);
    pthread_mutex_unlock(&g_blas_mu);
    return 0;
#else
    (void)prec; (void)trans_a; (void)trans_b; (void)m; (void)n; (void)k; (void)alpha; (void)a;
    (void)lda; (void)b; (void)ldb; (void)beta; (void)c; (void)ldc; (void)threads;
    return -1;
#endif
}

/* Measured rates, per precision and thread count (up to 256 threads). */
static double g_rate[2][257];
static pthread_mutex_t g_rate_mu = PTHREAD_MUTEX_INITIALIZER;

double chg_cpu_rate(chg_precision_t prec, int threads)
{
#ifdef CLHGEMM_HAVE_OPENBLAS
    threads = CHG_MAX(1, CHG_MIN(threads, 256));
    pthread_mutex_lock(&g_rate_mu);
    double r = g_rate[prec][threads];
    pthread_mutex_unlock(&g_rate_mu);
    if (r > 0) return r;
    const size_t n = chg_cpu_cores() >= 8 ? 1536 : 768, es = chg_elem_size(prec);
    char *buf = malloc(3 * n * n * es);
    if (!buf) return 0;
    /* Random-ish data (not zeros: some CPUs are faster on zeros). */
    for (size_t i = 0; i < 3 * n * n; i++) {
        const double v = (double)((i * 2654435761u) % 1000) / 1000.0 - 0.5;
        if (prec == CHG_F64)
            ((double *)buf)[i] = v;
        else
            ((float *)buf)[i] = (float)v;
    }
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        const unsigned long long t0 = chg_now_ns();
        chg_cpu_gemm(prec, 0, 0, n, n, n, 1.0, buf, n, buf + n * n * es, n, 0.0, buf + 2 * n * n * es, n,
                     threads);
        const double t = (chg_now_ns() - t0) * 1e-9;
        if (rep > 0 && t > 0) best = CHG_MAX(best, 2.0 * n * n * n / t);
    }
    free(buf);
    pthread_mutex_lock(&g_rate_mu);
    g_rate[prec][threads] = best;
    pthread_mutex_unlock(&g_rate_mu);
    return best;
#else
    (void)prec;
    (void)threads;
    return 0;
#endif
}

double chg_tmodel_eval(const chg_tmodel_t *t, double m, double n, double k)
{
    return t->k1 * m * n * k + t->k2 * m * n + t->k3;
}

int chg_tmodel_fit(const double *m, const double *n, const double *k, const double *t, int count,
                   chg_tmodel_t *out, double *mean_rel_err)
{
    if (count < 3) return -1;
    /* Weighted normal equations: rows x = (mnk, mn, 1) / t, target 1. Scaled columns keep the
     * 3x3 system well conditioned (mnk ~ 1e13, 1 ~ 1). */
    double sc[3] = {0, 0, 0};
    for (int i = 0; i < count; i++) {
        const double x[3] = {m[i] * n[i] * k[i], m[i] * n[i], 1.0};
        for (int j = 0; j < 3; j++) sc[j] = CHG_MAX(sc[j], fabs(x[j] / t[i]));
    }
    double A[3][4] = {{0}};
    for (int i = 0; i < count; i++) {
        if (!(t[i] > 0)) return -1;
        double x[3] = {m[i] * n[i] * k[i], m[i] * n[i], 1.0};
        for (int j = 0; j < 3; j++) x[j] = x[j] / t[i] / sc[j];
        for (int r = 0; r < 3; r++) {
            for (int q = 0; q < 3; q++) A[r][q] += x[r] * x[q];
            A[r][3] += x[r];
        }
    }
    /* Gaussian elimination with partial pivoting. */
    for (int col = 0; col < 3; col++) {
        int piv = col;
        for (int r = col + 1; r < 3; r++)
            if (fabs(A[r][col]) > fabs(A[piv][col])) piv = r;
        if (fabs(A[piv][col]) < 1e-300) return -1;
        if (piv != col)
            for (int q = 0; q < 4; q++) {
                const double tmp = A[col][q];
                A[col][q] = A[piv][q];
                A[piv][q] = tmp;
            }
        for (int r = 0; r < 3; r++) {
            if (r == col) continue;
            const double f = A[r][col] / A[col][col];
            for (int q = col; q < 4; q++) A[r][q] -= f * A[col][q];
        }
    }
    double kk[3];
    for (int j = 0; j < 3; j++) kk[j] = A[j][3] / A[j][j] / sc[j];
    if (!isfinite(kk[0]) || !isfinite(kk[1]) || !isfinite(kk[2])) return -1;
    if (!(kk[0] > 0)) {
        /* Timings too noisy for three terms (a loaded machine, tiny shapes) can give a
         * non-physical k1 <= 0: fall back to the rate alone, t = k1 mnk, least squares on
         * relative errors. The mean error reported below says how well that fits. */
        double sxt = 0, sxx = 0;
        for (int i = 0; i < count; i++) {
            const double x = m[i] * n[i] * k[i] / t[i];
            sxt += x;
            sxx += x * x;
        }
        if (!(sxx > 0)) return -1;
        kk[0] = sxt / sxx;
        kk[1] = kk[2] = 0;
    }
    *out = (chg_tmodel_t){kk[0], kk[1], kk[2]};
    if (mean_rel_err) {
        double e = 0;
        for (int i = 0; i < count; i++) e += fabs(chg_tmodel_eval(out, m[i], n[i], k[i]) - t[i]) / t[i];
        *mean_rel_err = e / count;
    }
    return 0;
}

double chg_split_comm(const chg_split_model_t *s, double m_g, double n, double k, double es,
                      int beta_nonzero)
{
    if (m_g <= 0) return 0;
    const double in = es * (m_g * k + k * n + (beta_nonzero ? m_g * n : 0)), out = es * m_g * n;
    return s->h2d_ts + in * s->h2d_tw + s->d2h_ts + out * s->d2h_tw;
}

double chg_split_time(const chg_split_model_t *s, double m_c, double m, double n, double k,
                      double es, int beta_nonzero, double *t_cpu, double *t_gpu)
{
    m_c = CHG_MAX(0.0, CHG_MIN(m_c, m));
    const double m_g = m - m_c;
    const double comm = chg_split_comm(s, m_g, n, k, es, beta_nonzero);
    /* A side with no rows takes no time (the fitted k3 may be anything at zero size). */
    const double tc = m_c > 0 ? CHG_MAX(0.0, chg_tmodel_eval(&s->cpu, m_c, n, k)) + s->gamma * comm : 0;
    const double tg = m_g > 0 ? CHG_MAX(0.0, chg_tmodel_eval(&s->gpu, m_g, n, k)) + comm : 0;
    if (t_cpu) *t_cpu = tc;
    if (t_gpu) *t_gpu = tg;
    return CHG_MAX(tc, tg);
}

double chg_split_best(const chg_split_model_t *s, double m, double n, double k, double es,
                      int beta_nonzero, double *t)
{
    double lo = 0, hi = m;
    for (int it = 0; it < 64 && hi - lo > 0.5; it++) {
        const double mid = 0.5 * (lo + hi);
        double tc, tg;
        chg_split_time(s, mid, m, n, k, es, beta_nonzero, &tc, &tg);
        if (tc < tg) lo = mid;
        else hi = mid;
    }
    const double cand[4] = {0, floor(lo), ceil(hi), m};
    double best_m = 0, best_t = INFINITY;
    for (int i = 0; i < 4; i++) {
        const double tt = chg_split_time(s, cand[i], m, n, k, es, beta_nonzero, NULL, NULL);
        if (tt < best_t) {
            best_t = tt;
            best_m = cand[i];
        }
    }
    if (t) *t = best_t;
    return best_m;
}
