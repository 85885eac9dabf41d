/*
 * cpushare.h -- the CPU's share of a host-memory GEMM (cpushare.c owns it; it is the only file
 * of the library that includes cblas.h).
 *
 * The host pipeline (host.c) can give part of C to OpenBLAS on the host's cores while the GPUs
 * compute the rest: either a slab of rows split off by a ratio (seed 004) or column strips the
 * CPU takes from the shared band schedule like another device (seed 003's CPU-sized tiles).
 * This module runs the CPU's products, reports what OpenBLAS is (core type, threads: a
 * misdetected core runs 5-7x slower, see README), measures the CPU rate, and holds seed 004's
 * empirical time model T = k1*m*n*k + k2*m*n + k3, fitted by least squares.
 */
#ifndef CHG_CPUSHARE_H
#define CHG_CPUSHARE_H

#include <stddef.h>

#include "params.h"

/* 1 when the library was built with OpenBLAS (otherwise the CPU share is always 0). */
int chg_cpu_available(void);

/* "OpenBLAS <config>, core <name>, <n> threads (<parallel mode>)" or why there is none. */
void chg_cpu_describe(char *buf, size_t len);

/* Online cores of the host. */
int chg_cpu_cores(void);

/* Column-major C := alpha*op(A)*op(B) + beta*C with OpenBLAS on `threads` threads (the
 * process-wide OpenBLAS thread count is set for the call and restored after; calls are
 * serialised, since that setting is global). beta == 0 never reads C. Returns 0, or -1 when
 * the library has no OpenBLAS. */
int chg_cpu_gemm(chg_precision_t prec, int trans_a, int trans_b, size_t m, size_t n, size_t k,
                 double alpha, const void *a, size_t lda, const void *b, size_t ldb, double beta,
                 void *c, size_t ldc, int threads);

/* GFLOP-rate of OpenBLAS on `threads` threads for the precision, in flop/s, measured once (a
 * square product of 1536, or 768 on few cores) and cached per (precision, threads). 0 when the
 * library has no OpenBLAS. */
double chg_cpu_rate(chg_precision_t prec, int threads);

/* Seed 004's empirical time model of one GEMM: T = k1*m*n*k + k2*m*n + k3 (seconds). */
typedef struct chg_tmodel_s {
    double k1, k2, k3;
} chg_tmodel_t;

double chg_tmodel_eval(const chg_tmodel_t *t, double m, double n, double k);

/* Least-squares fit of k1, k2, k3 to `count` measurements (m[i], n[i], k[i]) -> t[i], with
 * relative errors weighted equally (each row divided by t[i]). Returns 0, or -1 when the
 * system is singular or count < 3. mean_rel_err (may be NULL) receives the mean |model - t|/t
 * over the samples. */
int chg_tmodel_fit(const double *m, const double *n, const double *k, const double *t, int count,
                   chg_tmodel_t *out, double *mean_rel_err);

#endif
