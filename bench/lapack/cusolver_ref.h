/*
 * cusolver_ref.h -- the cuSOLVER columns of clhgemm-bench-lapack (cusolver_ref.c): dense
 * Cholesky, LU and QR (cusolverDn{S,D}potrf, getrf, geqrf) on CUDA device 0.
 *
 * Kept behind this small plain-C interface so that the CUDA headers (which ship their own
 * CL/cl.h) never reach the OpenCL side of the benchmark: cusolver_ref.c is compiled on its own
 * and only when CMake finds the CUDA toolkit with cuSOLVER (CLHGEMM_HAVE_CUSOLVER). Matrices are
 * n x n host arrays in column-major order with lda n; each call allocates its device memory and
 * frees it again. Every timed call factors a fresh copy of the input (the refresh not timed)
 * after one untimed warm-up call; times are the host clock around the synchronous work, as the
 * benchmark times ours.
 */
#ifndef CLHGEMM_BENCH_CUSOLVER_REF_H
#define CLHGEMM_BENCH_CUSOLVER_REF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The routines, as the benchmark numbers them. */
enum { CUSOLVER_REF_POTRF = 0, CUSOLVER_REF_GETRF = 1, CUSOLVER_REF_GEQRF = 2 };

/* 1 when a CUDA device can be used (cudaGetDeviceCount succeeds with at least one device). */
int cusolver_ref_available(void);

/* Why the last call failed or why no device is available ("" when nothing failed). */
const char *cusolver_ref_last_error(void);

/* "NAME (sm_XY), N GiB, CUDA runtime X.Y, cuSOLVER X.Y.Z" of CUDA device 0 (valid after
 * cusolver_ref_available() returned 1). */
const char *cusolver_ref_description(void);

/* A refresh of a host array (dst = src, bytes), the caller's (its threads). */
typedef void (*cusolver_ref_copy_fn)(void *dst, const void *src, size_t bytes);

/* Device-resident: A0 goes to a device array before every call (not timed); the time is the
 * factorization alone (the call and a cudaDeviceSynchronize). The last timed call's factors come
 * back into F (n x n, column-major), its pivots into ipiv (getrf; 1-based, n), its scalars into
 * tau (geqrf; n elements) and its info into *info, none of it timed. upper: potrf's triangle.
 * Returns 0 and the median in *median_ms, or -1 (cusolver_ref_last_error says why). */
int cusolver_ref_resident(int routine, int dbl, int upper, int n, const void *A0, int reps,
                          double *median_ms, void *F, int *ipiv, void *tau, int *info);

/* With the copies from and to pageable host memory timed: before every call W = A0 by copy (not
 * timed); then, timed: cudaMemcpy W -> device, the factorization, cudaMemcpy of the factors back
 * into W and of the pivots, scalars and info into ipiv, tau and *info. W holds the last timed
 * call's factors. Returns 0 and the median in *median_ms, or -1. */
int cusolver_ref_copies(int routine, int dbl, int upper, int n, const void *A0, void *W,
                        cusolver_ref_copy_fn copy, int reps, double *median_ms, int *ipiv,
                        void *tau, int *info);

/* Releases the cuSOLVER handle (at the end of the run). */
void cusolver_ref_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif
