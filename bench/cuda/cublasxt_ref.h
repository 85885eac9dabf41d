/*
 * cublasxt_ref.h -- the cublasXt column of the host-memory benchmarks (cublasxt_ref.c): GEMM for
 * clhgemm-bench-host, TRSM for clhgemm-bench-level3 --host.
 *
 * cublasXt is NVIDIA's own BLAS-3 on matrices in host memory (tiled over one or more GPUs), the
 * direct competitor of clhgemm_{s,d}gemm and clhgemm_{s,d}trsm. Kept behind this plain-C interface so that the CUDA
 * headers (which carry their own CL/cl.h) never meet the OpenCL side of the benchmark:
 * cublasxt_ref.c is compiled apart and only when CMake finds the CUDA toolkit
 * (CLHGEMM_HAVE_CUBLASXT). Matrices are host arrays in column-major order, used where they are
 * (pageable unless the caller pinned them); pinning mode stays at its default (disabled).
 */
#ifndef CLHGEMM_BENCH_CUBLASXT_REF_H
#define CLHGEMM_BENCH_CUBLASXT_REF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of CUDA devices (0 when there is none or the runtime fails; see the last error). */
int cublasxt_device_count(void);

/* Why the last call failed ("" when nothing failed). */
const char *cublasxt_last_error(void);

/* "NAME (sm_XY), cuBLAS X.Y.Z" of CUDA device 0 (after cublasxt_device_count() > 0). */
const char *cublasxt_description(void);

/* C := alpha*op(A)*op(B) + beta*C, column-major, transa/transb 0 or 1, on CUDA devices
 * 0..ndev-1 with block dimension `block` (0: cublasXt's default). Runs `warmup` untimed and
 * `reps` timed calls (host clock around each synchronous call plus a device synchronise) on the
 * same arrays, so C keeps accumulating; writes the median, min and max in milliseconds (any may
 * be NULL) and the block dimension used. Returns 0 on success. */
int cublasxt_gemm(int dbl, int transa, int transb, size_t m, size_t n, size_t k, double alpha,
                  const void *A, size_t lda, const void *B, size_t ldb, double beta, void *C,
                  size_t ldc, int ndev, int block, int warmup, int reps, double *median_ms,
                  double *min_ms, double *max_ms, int *block_used);

/* TRSM, column-major: solves op(A) X = alpha B (right 0, A m x m) or X op(A) = alpha B (right
 * 1, A n x n), lower/trans/unit 0 or 1, B (m x n, ldb) overwritten by X, on CUDA devices
 * 0..ndev-1 with block dimension `block` as cublasxt_gemm. Every one of the `warmup` untimed and
 * `reps` timed calls first copies B0 (same shape and ldb) into B outside the timing, so each
 * solves the same system and B holds that solution on return. Timing and outputs as
 * cublasxt_gemm. Returns 0 on success. */
int cublasxt_trsm(int dbl, int right, int lower, int trans, int unit, size_t m, size_t n,
                  double alpha, const void *A, size_t lda, void *B, const void *B0, size_t ldb,
                  int ndev, int block, int warmup, int reps, double *median_ms, double *min_ms,
                  double *max_ms, int *block_used);

#ifdef __cplusplus
}
#endif

#endif
