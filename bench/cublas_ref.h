/*
 * cublas_ref.h -- the cuBLAS reference column of the GEMM benchmark (cublas_ref.c).
 *
 * Kept behind this small plain-C interface so that the CUDA headers (which ship their own
 * CL/cl.h) never reach the OpenCL side of the benchmark: cublas_ref.c is compiled on its own
 * and only when CMake finds the CUDA toolkit (CLHGEMM_HAVE_CUBLAS). Matrices are host arrays in
 * column-major order; each call uploads them, times cublas{S,D}gemm with CUDA events (TF32 off:
 * CUBLAS_DEFAULT_MATH) and frees its device memory again.
 */
#ifndef CLHGEMM_BENCH_CUBLAS_REF_H
#define CLHGEMM_BENCH_CUBLAS_REF_H

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when a CUDA device can be used (cudaGetDeviceCount succeeds with at least one device). */
int cublas_ref_available(void);

/* Why the last call failed or why no device is available ("" when nothing failed). */
const char *cublas_ref_last_error(void);

/* "NAME, cuBLAS X.Y.Z" of CUDA device 0 (valid after cublas_ref_available() returned 1). */
const char *cublas_ref_description(void);

/* Column-major NN with lda = m, ldb = k, ldc = m. C0 is copied to the device once; the C on the
 * device keeps accumulating over the reps (beta != 0 keeps it bounded for |beta| < 1).
 * Returns 0 on success and writes the median of `reps` timed calls (after `warmup` untimed ones)
 * in milliseconds. */
int cublas_ref_gemm(int dbl, int m, int n, int k, const void *A, const void *B, const void *C0,
                    double alpha, double beta, int warmup, int reps, double *median_ms);

/* General column-major form: transa/transb 0 or 1, explicit leading dimensions, min and max of
 * the reps, and (when C_out != NULL) the result of one call on C0 before any timing, for a
 * correctness check. Any of median_ms, min_ms, max_ms may be NULL. */
int cublas_ref_gemm_ex(int dbl, int transa, int transb, int m, int n, int k, const void *A, int lda,
                       const void *B, int ldb, const void *C0, int ldc, double alpha, double beta,
                       int warmup, int reps, double *median_ms, double *min_ms, double *max_ms,
                       void *C_out);

#ifdef __cplusplus
}
#endif

#endif
