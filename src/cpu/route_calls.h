/*
 * route_calls.h -- the calls a host-memory routine routed to the CPU makes (route_calls.c owns
 * them): the caller's own arguments straight to OpenBLAS's CBLAS on the calling thread, with
 * OpenBLAS's own thread count -- exactly what a direct OpenBLAS call costs (no lock, no
 * thread start, no allocation); chg_cpu_route_gemm gives a GEMM that cpu/tiny.h's kernel takes
 * (m, n, k at most CHG_TINY_MAX, shapes where it was measured faster on this host:
 * cpu/tiny_select.h) to that instead. The layout, transpose, uplo, side and diag values are
 * clhgemm's enums, which have CBLAS's values. And OpenBLAS's rate on square products of a few
 * sizes, measured once per process when the routing model needs it and has no tuning figures.
 */
#ifndef CHG_CPU_ROUTE_CALLS_H
#define CHG_CPU_ROUTE_CALLS_H

#include <stddef.h>

#include "cpu/tiny_select.h"
#include "kernels/precision.h"

/* Each returns 0, or -1 when the library has no OpenBLAS. */
int chg_cpu_blas_gemm(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k, double alpha,
                      const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc);
/* The CPU route's GEMM: cpu/tiny.h's kernel where cpu/tiny_select.h chooses it (its table, each
 * cell measured on the first call in it; CLHGEMM_TINY), else chg_cpu_blas_gemm. Inline, so that
 * a small call makes one call fewer. */
static inline int chg_cpu_route_gemm(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k,
                                     double alpha, const void *a, int lda, const void *b, int ldb, double beta,
                                     void *c, int ldc)
{
    if (chg_tiny_use(prec, layout, ta, tb, m, n, k, beta, chg_cpu_blas_gemm)) {
        chg_tiny_gemm(prec, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return 0;
    }
    return chg_cpu_blas_gemm(prec, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
int chg_cpu_blas_symm(chg_precision_t prec, int layout, int side, int uplo, int m, int n, double alpha,
                      const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc);
/* SYRK when b is NULL, SYR2K otherwise. */
int chg_cpu_blas_syrk(chg_precision_t prec, int layout, int uplo, int trans, int n, int k, double alpha,
                      const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc);
int chg_cpu_blas_trmm(chg_precision_t prec, int layout, int side, int uplo, int ta, int diag, int m, int n,
                      double alpha, const void *a, int lda, void *b, int ldb);
int chg_cpu_blas_trsm(chg_precision_t prec, int layout, int side, int uplo, int ta, int diag, int m, int n,
                      double alpha, const void *a, int lda, void *b, int ldb);

/* The complex routines (C, Z: prec is the parts' precision) for the CPU route, the TRSM panels
 * and a lost device's regions: one call with the CBLAS arguments of the routine (the enums
 * clhgemm's, with CBLAS's values). TRMM and TRSM work on c (their B); HERK uses alpha[0] and
 * beta[0], HER2K beta[0], as CBLAS's real scalars. Returns 0, or -1 without OpenBLAS. */
enum { CHG_CPU_GEMM, CHG_CPU_HEMM, CHG_CPU_SYMM, CHG_CPU_HERK, CHG_CPU_SYRK, CHG_CPU_HER2K,
       CHG_CPU_SYR2K, CHG_CPU_TRMM, CHG_CPU_TRSM };
typedef struct chg_cpu_cargs_s {
    int routine; /* CHG_CPU_* */
    int layout, side, uplo, ta, tb, diag, m, n, k;
    double alpha[2], beta[2];
    const void *a, *b;
    void *c;
    int lda, ldb, ldc;
} chg_cpu_cargs_t;
int chg_cpu_blas_complex(chg_precision_t prec, const chg_cpu_cargs_t *u);

/* The square sizes at which OpenBLAS's rate is measured for the routing model. */
#define CHG_CPU_RATE_SIZES 4
extern const int chg_cpu_rate_size[CHG_CPU_RATE_SIZES]; /* 64, 256, 1024, 2048 */

/* OpenBLAS's GEMM rate (flop/s) with its own thread count on n x n x n products, n each of
 * chg_cpu_rate_size, measured once per process and precision (a few tens of milliseconds on a
 * many-core host); out[i] = 0 without OpenBLAS. */
void chg_cpu_blas_rates(chg_precision_t prec, double out[CHG_CPU_RATE_SIZES]);

/* OpenBLAS's thread count now (openblas_get_num_threads: what the CPU route's calls and
 * chg_cpu_blas_rates use); 0 without OpenBLAS. */
int chg_cpu_blas_threads(void);

#endif
