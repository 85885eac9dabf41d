/*
 * share_blas.h -- OpenBLAS for the CPU's share of a host-memory GEMM (share_blas.c owns it; it
 * reaches OpenBLAS through cpu/blas_table.h).
 *
 * The host pipeline (src/host/) can give part of C to OpenBLAS on the host's cores while the GPUs
 * compute the rest: either a slab of rows split off by a ratio (the hybrid GEMM of Garcia, Cuenca
 * and Gimenez, "On optimization techniques for the matrix multiplication on hybrid CPU+GPU
 * platforms") or column strips the CPU takes from the shared band schedule like another device
 * (CPU-sized tiles, as in "Enabling and Scaling Matrix Computations on Heterogeneous Multi-Core
 * and Multi-GPU Systems").
 * This module runs the CPU's products, reports what OpenBLAS is (core type, threads: a
 * misdetected core runs 5-7x slower, see docs/ENVIRONMENT.md), measures the CPU rate, and holds
 * that paper's empirical time model T = k1*m*n*k + k2*m*n + k3, fitted by least squares.
 */
#ifndef CHG_CPU_SHARE_BLAS_H
#define CHG_CPU_SHARE_BLAS_H

#include <stddef.h>

#include "kernels/precision.h"

/* 1 when the library was built with OpenBLAS (otherwise the CPU share is always 0). */
int chg_cpu_available(void);

/* "OpenBLAS <config>, core <name>, <n> threads (<parallel mode>)" or why there is none. */
void chg_cpu_describe(char *buf, size_t len);

/* OpenBLAS's core name ("Haswell", "SkylakeX", ...; "none" without OpenBLAS). */
void chg_cpu_corename(char *buf, size_t len);

/* OpenBLAS threads the CPU share uses by default: CLHGEMM_CPU_SHARE_THREADS, else half the
 * cores (at least 1); the pack threads keep the other half. */
int chg_cpu_share_threads_default(void);

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

/* The empirical time model of one GEMM (Garcia, Cuenca and Gimenez): T = k1*m*n*k + k2*m*n + k3
 * (seconds). */
typedef struct chg_tmodel_s {
    double k1, k2, k3;
} chg_tmodel_t;

double chg_tmodel_eval(const chg_tmodel_t *t, double m, double n, double k);

/* Least-squares fit of k1, k2, k3 to `count` measurements (m[i], n[i], k[i]) -> t[i], with
 * relative errors weighted equally (each row divided by t[i]). Returns 0, or -1 when the
 * system is singular or count < 3. A fit whose k1 comes out <= 0 (noise) falls back to k1
 * alone (t = k1 mnk). mean_rel_err (may be NULL) receives the mean |model - t|/t over the
 * samples. */
int chg_tmodel_fit(const double *m, const double *n, const double *k, const double *t, int count,
                   chg_tmodel_t *out, double *mean_rel_err);

/* The split model of a hybrid GEMM (Garcia, Cuenca and Gimenez) whose CPU takes m_c of the m
 * rows of C (a slab):
 *   T(m_c) = max(T_cpu(m_c, n, k) + gamma * T_comm(m - m_c), T_gpu(m - m_c, n, k) + T_comm(m - m_c))
 * with T_gpu and T_cpu the k1/k2/k3 models (T_gpu: the devices' host-memory call less its
 * transfers), T_comm the transfers of the devices' part, t_s + bytes * t_w per direction (A's
 * rows, all of B and, when beta != 0, C's rows in; C's rows out), and gamma the overlap factor:
 * how much of the transfer time the CPU's share also pays (0: none, 1: all of it). clhgemm-tune
 * --cpu-model measures the coefficients and stores them in the tuning database. */
typedef struct chg_split_model_s {
    chg_tmodel_t gpu, cpu;
    double h2d_ts, h2d_tw, d2h_ts, d2h_tw; /* seconds, seconds per byte */
    double gamma;
} chg_split_model_t;

/* Transfer seconds of the devices' part of m_g rows. */
double chg_split_comm(const chg_split_model_t *s, double m_g, double n, double k, double es,
                      int beta_nonzero);
/* T(m_c) above; t_cpu, t_gpu (may be NULL) receive the two sides of the max. m_c = 0: the
 * devices alone (T_gpu + T_comm); m_c = m: the CPU alone (T_cpu). */
double chg_split_time(const chg_split_model_t *s, double m_c, double m, double n, double k,
                      double es, int beta_nonzero, double *t_cpu, double *t_gpu);
/* The m_c in [0, m] that minimises T (the CPU side grows with m_c, the devices' side shrinks:
 * bisection on the crossing, then the better of its neighbours and the ends). Returns m_c and
 * its time in *t. */
double chg_split_best(const chg_split_model_t *s, double m, double n, double k, double es,
                      int beta_nonzero, double *t);

#endif
