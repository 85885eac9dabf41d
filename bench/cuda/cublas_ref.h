/*
 * cublas_ref.h -- the cuBLAS reference columns of the device benchmarks (cublas_ref.c): GEMM for
 * clhgemm-bench-gemm, TRSM and the GEMM of the same size for clhgemm-bench-level3.
 *
 * Kept behind this small plain-C interface so that the CUDA headers (which ship their own
 * CL/cl.h) never reach the OpenCL side of the benchmark: cublas_ref.c is compiled on its own
 * and only when CMake finds the CUDA toolkit (CLHGEMM_HAVE_CUBLAS). Matrices are host arrays in
 * column-major order; each call uploads them, times cublas{S,D}gemm or cublas{S,D}trsm with CUDA
 * events (TF32 off: CUBLAS_DEFAULT_MATH) and frees its device memory again.
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

/* The same for any precision and form: kind CUBLAS_REF_S, _D, _C, _Z (cublas{S,D,C,Z}gemm) or
 * _C3M, _Z3M (cublas{C,Z}gemm3m: the 3M form, three real products and more additions, whose
 * error bound is looser than the complex product's: cuBLAS documents it as an opt-in of its own).
 * Complex matrices hold (re, im) pairs; alpha and beta are (re, im) (the real kinds use [0]). */
enum { CUBLAS_REF_S, CUBLAS_REF_D, CUBLAS_REF_C, CUBLAS_REF_Z, CUBLAS_REF_C3M, CUBLAS_REF_Z3M };
int cublas_ref_gemm_kind(int kind, int transa, int transb, int m, int n, int k, const void *A,
                         int lda, const void *B, int ldb, const void *C0, int ldc,
                         const double alpha[2], const double beta[2], int warmup, int reps,
                         double *median_ms, double *min_ms, double *max_ms, void *C_out);

/* TRSM, column-major: solves op(A) X = alpha B (right 0, A m x m) or X op(A) = alpha B (right 1,
 * A n x n), lower/trans/unit 0 or 1, B m x n with ldb. A and B0 (B's values) are uploaded once;
 * every call, untimed or timed, first restores B from B0 on the device and waits for that
 * (outside the timing), so each solves the same system. When X_out != NULL (ldb x n elements),
 * one untimed call's solution is copied back into it before the `warmup` untimed and `reps`
 * timed calls (a cudaEvent pair around each). Writes the median, min and max in milliseconds
 * (any may be NULL). Returns 0 on success, else -1 (cublas_ref_last_error says why). */
int cublas_ref_trsm(int dbl, int right, int lower, int trans, int unit, int m, int n,
                    double alpha, const void *A, int lda, const void *B0, int ldb, int warmup,
                    int reps, double *median_ms, double *min_ms, double *max_ms, void *X_out);

/* cublas_ref_trsm for any precision: kind CUBLAS_REF_S .. _Z (complex: alpha + 0i, A and B0
 * (re, im) pairs, trans the plain transpose). */
int cublas_ref_trsm_kind(int kind, int right, int lower, int trans, int unit, int m, int n,
                         double alpha, const void *A, int lda, const void *B0, int ldb,
                         int warmup, int reps, double *median_ms, double *min_ms,
                         double *max_ms, void *X_out);

#ifdef __cplusplus
}
#endif

#endif
