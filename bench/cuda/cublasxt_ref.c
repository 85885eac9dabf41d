/*
 * cublasxt_ref.c -- cublasXt as a same-run competitor of the host-memory benchmarks (GEMM for
 * clhgemm-bench-host, TRSM for clhgemm-bench-level3 --host).
 *
 * Plain C on the CUDA runtime and the cublasXt API (part of libcublas). A handle is created per
 * measurement (outside the timing), the devices are selected and the block dimension set, then
 * warm-up and timed calls run on the caller's host arrays. cublasXt calls on host memory return
 * when the result is back in host memory; every device is synchronised as well before the clock
 * stops, so nothing is left in flight. TRSM overwrites B, so B is copied back from the caller's
 * pristine copy before every call, outside the timing. The math mode is left at its default,
 * which keeps SGEMM (and STRSM) on FP32 arithmetic unless NVIDIA_TF32_OVERRIDE says otherwise
 * (the benchmarks warn).
 */
#define _POSIX_C_SOURCE 200809L
#include "cublasxt_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

static char g_err[256];
static char g_desc[320];

const char *cublasxt_last_error(void) { return g_err; }

const char *cublasxt_description(void) { return g_desc; }

int cublasxt_device_count(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(g_err, sizeof g_err, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        return 0;
    }
    if (count <= 0) {
        snprintf(g_err, sizeof g_err, "no CUDA device");
        return 0;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
        int major = 0, minor = 0, patch = 0;
        cublasGetProperty(MAJOR_VERSION, &major);
        cublasGetProperty(MINOR_VERSION, &minor);
        cublasGetProperty(PATCH_LEVEL, &patch);
        snprintf(g_desc, sizeof g_desc, "%s (sm_%d%d), cuBLAS %d.%d.%d", prop.name, prop.major,
                 prop.minor, major, minor, patch);
    }
    g_err[0] = '\0';
    return count;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int sync_all(int ndev)
{
    for (int d = 0; d < ndev; d++) {
        cudaError_t e = cudaSetDevice(d);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            snprintf(g_err, sizeof g_err, "device %d: %s", d, cudaGetErrorString(e));
            return -1;
        }
    }
    return 0;
}

/* A handle on CUDA devices 0..ndev-1 with block dimension `block` (0: cublasXt's default);
 * *block_used (if not NULL) gets the dimension in force. Returns NULL (and sets the error) when
 * the devices are missing or a call fails. */
static cublasXtHandle_t xt_open(int ndev, int block, int *block_used)
{
    int count = cublasxt_device_count();
    if (count <= 0) return NULL;
    if (ndev < 1 || ndev > count) {
        snprintf(g_err, sizeof g_err, "%d CUDA device(s) asked for, %d present", ndev, count);
        return NULL;
    }
    int *ids = malloc((size_t)ndev * sizeof *ids);
    if (!ids) {
        snprintf(g_err, sizeof g_err, "out of host memory");
        return NULL;
    }
    for (int i = 0; i < ndev; i++) ids[i] = i;
    cublasXtHandle_t h = NULL;
    cublasStatus_t s = cublasXtCreate(&h);
    const char *what = "cublasXtCreate";
    if (s == CUBLAS_STATUS_SUCCESS) {
        what = "cublasXtDeviceSelect";
        s = cublasXtDeviceSelect(h, ndev, ids);
    }
    if (s == CUBLAS_STATUS_SUCCESS && block > 0) {
        what = "cublasXtSetBlockDim";
        s = cublasXtSetBlockDim(h, block);
    }
    if (s == CUBLAS_STATUS_SUCCESS && block_used) {
        int b = 0;
        if (cublasXtGetBlockDim(h, &b) == CUBLAS_STATUS_SUCCESS) *block_used = b;
    }
    free(ids);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(g_err, sizeof g_err, "%s: %s", what, cublasGetStatusString(s));
        if (h) cublasXtDestroy(h);
        return NULL;
    }
    return h;
}

static void xt_stats(double *t, int reps, double *median_ms, double *min_ms, double *max_ms)
{
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    if (median_ms) *median_ms = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    if (min_ms) *min_ms = t[0];
    if (max_ms) *max_ms = t[reps - 1];
}

int cublasxt_gemm(int dbl, int transa, int transb, size_t m, size_t n, size_t k, double alpha,
                  const void *A, size_t lda, const void *B, size_t ldb, double beta, void *C,
                  size_t ldc, int ndev, int block, int warmup, int reps, double *median_ms,
                  double *min_ms, double *max_ms, int *block_used)
{
    g_err[0] = '\0';
    if (reps < 1) reps = 1;
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t) {
        snprintf(g_err, sizeof g_err, "out of host memory");
        return -1;
    }
    cublasXtHandle_t h = xt_open(ndev, block, block_used);
    if (!h) {
        free(t);
        return -1;
    }
    const cublasOperation_t ta = transa ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = transb ? CUBLAS_OP_T : CUBLAS_OP_N;
    const float af = (float)alpha, bf = (float)beta;
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    const char *what = dbl ? "cublasXtDgemm" : "cublasXtSgemm";
    int rc = 0;
    for (int r = 0; r < warmup + reps && s == CUBLAS_STATUS_SUCCESS; r++) {
        double t0 = now_ms();
        if (dbl)
            s = cublasXtDgemm(h, ta, tb, m, n, k, &alpha, (const double *)A, lda, (const double *)B,
                              ldb, &beta, (double *)C, ldc);
        else
            s = cublasXtSgemm(h, ta, tb, m, n, k, &af, (const float *)A, lda, (const float *)B, ldb,
                              &bf, (float *)C, ldc);
        if (s == CUBLAS_STATUS_SUCCESS && sync_all(ndev) != 0) {
            rc = -1;
            break;
        }
        if (r >= warmup) t[r - warmup] = now_ms() - t0;
    }
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(g_err, sizeof g_err, "%s: %s", what, cublasGetStatusString(s));
        rc = -1;
    }
    cublasXtDestroy(h);
    if (rc == 0) xt_stats(t, reps, median_ms, min_ms, max_ms);
    free(t);
    return rc;
}

int cublasxt_trsm(int dbl, int right, int lower, int trans, int unit, size_t m, size_t n,
                  double alpha, const void *A, size_t lda, void *B, const void *B0, size_t ldb,
                  int ndev, int block, int warmup, int reps, double *median_ms, double *min_ms,
                  double *max_ms, int *block_used)
{
    g_err[0] = '\0';
    if (reps < 1) reps = 1;
    if (m == 0 || n == 0 || ldb < m) {
        snprintf(g_err, sizeof g_err, "cublasxt_trsm: bad shape %zux%zu (ldb %zu)", m, n, ldb);
        return -1;
    }
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t) {
        snprintf(g_err, sizeof g_err, "out of host memory");
        return -1;
    }
    cublasXtHandle_t h = xt_open(ndev, block, block_used);
    if (!h) {
        free(t);
        return -1;
    }
    const cublasSideMode_t side = right ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
    const cublasFillMode_t uplo = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    const cublasOperation_t ta = trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasDiagType_t dg = unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    const float af = (float)alpha;
    const size_t bytes = ((n - 1) * ldb + m) * (dbl ? sizeof(double) : sizeof(float));
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    const char *what = dbl ? "cublasXtDtrsm" : "cublasXtStrsm";
    int rc = 0;
    for (int r = 0; r < warmup + reps && s == CUBLAS_STATUS_SUCCESS; r++) {
        memcpy(B, B0, bytes); /* TRSM overwrites B: every rep solves the same system */
        double t0 = now_ms();
        if (dbl)
            s = cublasXtDtrsm(h, side, uplo, ta, dg, m, n, &alpha, (const double *)A, lda,
                              (double *)B, ldb);
        else
            s = cublasXtStrsm(h, side, uplo, ta, dg, m, n, &af, (const float *)A, lda,
                              (float *)B, ldb);
        if (s == CUBLAS_STATUS_SUCCESS && sync_all(ndev) != 0) {
            rc = -1;
            break;
        }
        if (r >= warmup) t[r - warmup] = now_ms() - t0;
    }
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(g_err, sizeof g_err, "%s: %s", what, cublasGetStatusString(s));
        rc = -1;
    }
    cublasXtDestroy(h);
    if (rc == 0) xt_stats(t, reps, median_ms, min_ms, max_ms);
    free(t);
    return rc;
}
