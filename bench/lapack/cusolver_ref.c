/*
 * cusolver_ref.c -- cuSOLVER's dense Cholesky, LU and QR as same-run references of
 * clhgemm-bench-lapack (cusolver_ref.h).
 *
 * Plain C on the CUDA runtime and cuSOLVER's dense API (the 32-bit-index routines
 * cusolverDn{S,D}potrf, getrf and geqrf with their _bufferSize queries, each on one device
 * array with lda n; n <= 46340, so n^2 fits an int). One handle for the run, on the default
 * stream; default math (no TF32 or other emulation modes asked for). A call of the benchmark
 * allocates the matrix, the workspace, the pivots or scalars and info on the device, runs one
 * untimed warm-up and the timed reps, and frees all of it again, so that the device memory is
 * there for the next column. The time of a rep is the host clock around synchronous work, the
 * way ours is timed: the factorization and a cudaDeviceSynchronize for the resident column;
 * cudaMemcpy from pageable memory, the factorization and the cudaMemcpys back for the other.
 */
#define _POSIX_C_SOURCE 200809L

#include "cusolver_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>
#include <cusolverDn.h>

static char g_err[256];
static char g_desc[448];
static cusolverDnHandle_t g_handle;

static int cuda_fail(const char *what, cudaError_t e)
{
    snprintf(g_err, sizeof g_err, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

static int cusolver_fail(const char *what, cusolverStatus_t s)
{
    snprintf(g_err, sizeof g_err, "%s: cuSOLVER status %d", what, (int)s);
    return -1;
}

const char *cusolver_ref_last_error(void) { return g_err; }

const char *cusolver_ref_description(void) { return g_desc; }

int cusolver_ref_available(void)
{
    int count = 0, rt = 0, major = 0, minor = 0, patch = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) return cuda_fail("cudaGetDeviceCount", e), 0;
    if (count <= 0) {
        snprintf(g_err, sizeof g_err, "no CUDA device");
        return 0;
    }
    struct cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess)
        return cuda_fail("cudaGetDeviceProperties", e), 0;
    cudaRuntimeGetVersion(&rt);
    cusolverGetProperty(MAJOR_VERSION, &major);
    cusolverGetProperty(MINOR_VERSION, &minor);
    cusolverGetProperty(PATCH_LEVEL, &patch);
    snprintf(g_desc, sizeof g_desc, "%s (sm_%d%d), %.1f GiB, CUDA runtime %d.%d, cuSOLVER %d.%d.%d",
             prop.name, prop.major, prop.minor, prop.totalGlobalMem / 1073741824.0, rt / 1000,
             rt % 1000 / 10, major, minor, patch);
    g_err[0] = '\0';
    return 1;
}

void cusolver_ref_shutdown(void)
{
    if (g_handle) cusolverDnDestroy(g_handle);
    g_handle = NULL;
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

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* ---- one problem's device memory ----------------------------------------------------------- */

typedef struct prob_s {
    int routine, dbl, n;
    cublasFillMode_t uplo;
    size_t es, bytes;
    void *a, *work, *tau;
    int *ipiv, *info;
    int lwork;
} prob_t;

static void prob_free(prob_t *p)
{
    cudaFree(p->a);
    cudaFree(p->work);
    cudaFree(p->tau);
    cudaFree(p->ipiv);
    cudaFree(p->info);
    memset(p, 0, sizeof *p);
}

/* The workspace query of the routine on p->a. */
static cusolverStatus_t buffer_size(prob_t *p)
{
    const int n = p->n;
    if (p->routine == CUSOLVER_REF_POTRF)
        return p->dbl ? cusolverDnDpotrf_bufferSize(g_handle, p->uplo, n, p->a, n, &p->lwork)
                      : cusolverDnSpotrf_bufferSize(g_handle, p->uplo, n, p->a, n, &p->lwork);
    if (p->routine == CUSOLVER_REF_GETRF)
        return p->dbl ? cusolverDnDgetrf_bufferSize(g_handle, n, n, p->a, n, &p->lwork)
                      : cusolverDnSgetrf_bufferSize(g_handle, n, n, p->a, n, &p->lwork);
    return p->dbl ? cusolverDnDgeqrf_bufferSize(g_handle, n, n, p->a, n, &p->lwork)
                  : cusolverDnSgeqrf_bufferSize(g_handle, n, n, p->a, n, &p->lwork);
}

/* The handle (made once), the matrix, workspace, pivots or scalars and info on the device. */
static int prob_alloc(prob_t *p, int routine, int dbl, int upper, int n)
{
    memset(p, 0, sizeof *p);
    g_err[0] = '\0';
    p->routine = routine;
    p->dbl = dbl;
    p->n = n;
    p->uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    p->es = dbl ? sizeof(double) : sizeof(float);
    p->bytes = (size_t)n * (size_t)n * p->es;
    cusolverStatus_t cs;
    cudaError_t e;
    if (!g_handle && (cs = cusolverDnCreate(&g_handle)) != CUSOLVER_STATUS_SUCCESS)
        return cusolver_fail("cusolverDnCreate", cs);
    if ((e = cudaMalloc(&p->a, p->bytes)) != cudaSuccess) return cuda_fail("cudaMalloc A", e);
    if ((e = cudaMalloc((void **)&p->info, sizeof(int))) != cudaSuccess)
        return cuda_fail("cudaMalloc info", e);
    if (routine == CUSOLVER_REF_GETRF &&
        (e = cudaMalloc((void **)&p->ipiv, (size_t)n * sizeof(int))) != cudaSuccess)
        return cuda_fail("cudaMalloc ipiv", e);
    if (routine == CUSOLVER_REF_GEQRF &&
        (e = cudaMalloc(&p->tau, (size_t)n * p->es)) != cudaSuccess)
        return cuda_fail("cudaMalloc tau", e);
    if ((cs = buffer_size(p)) != CUSOLVER_STATUS_SUCCESS)
        return cusolver_fail("cusolverDn?xxxxx_bufferSize", cs);
    if ((e = cudaMalloc(&p->work, (size_t)(p->lwork > 0 ? p->lwork : 1) * p->es)) != cudaSuccess)
        return cuda_fail("cudaMalloc workspace", e);
    return 0;
}

/* The factorization of p->a, enqueued. */
static cusolverStatus_t factor(prob_t *p)
{
    const int n = p->n, lw = p->lwork;
    void *a = p->a, *w = p->work, *t = p->tau;
    switch (p->routine) {
    case CUSOLVER_REF_POTRF:
        return p->dbl ? cusolverDnDpotrf(g_handle, p->uplo, n, a, n, w, lw, p->info)
                      : cusolverDnSpotrf(g_handle, p->uplo, n, a, n, w, lw, p->info);
    case CUSOLVER_REF_GETRF:
        return p->dbl ? cusolverDnDgetrf(g_handle, n, n, a, n, w, p->ipiv, p->info)
                      : cusolverDnSgetrf(g_handle, n, n, a, n, w, p->ipiv, p->info);
    default:
        return p->dbl ? cusolverDnDgeqrf(g_handle, n, n, a, n, t, w, lw, p->info)
                      : cusolverDnSgeqrf(g_handle, n, n, a, n, t, w, lw, p->info);
    }
}

/* The pivots or scalars and info back into host memory (blocking). */
static cudaError_t small_back(const prob_t *p, int *ipiv, void *tau, int *info)
{
    cudaError_t e = cudaSuccess;
    if (p->ipiv && ipiv)
        e = cudaMemcpy(ipiv, p->ipiv, (size_t)p->n * sizeof(int), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess && p->tau && tau)
        e = cudaMemcpy(tau, p->tau, (size_t)p->n * p->es, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(info, p->info, sizeof(int), cudaMemcpyDeviceToHost);
    return e;
}

/* ---- the two columns ----------------------------------------------------------------------- */

int cusolver_ref_resident(int routine, int dbl, int upper, int n, const void *A0, int reps,
                          double *median_ms, void *F, int *ipiv, void *tau, int *info)
{
    prob_t p;
    double *times = calloc((size_t)(reps > 0 ? reps : 1), sizeof *times);
    int rc = times ? prob_alloc(&p, routine, dbl, upper, n) : -1;
    if (!times) snprintf(g_err, sizeof g_err, "out of host memory");
    for (int r = -1; rc == 0 && r < reps; r++) { /* r = -1: the warm-up */
        cudaError_t e = cudaMemcpy(p.a, A0, p.bytes, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) rc = cuda_fail("cudaMemcpy A", e);
        if (rc == 0) {
            const double t0 = now_ms();
            cusolverStatus_t cs = factor(&p);
            if (cs != CUSOLVER_STATUS_SUCCESS) rc = cusolver_fail("factorization", cs);
            else if ((e = cudaDeviceSynchronize()) != cudaSuccess)
                rc = cuda_fail("factorization", e);
            if (r >= 0) times[r] = now_ms() - t0;
        }
    }
    if (rc == 0) {
        cudaError_t e = cudaMemcpy(F, p.a, p.bytes, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) e = small_back(&p, ipiv, tau, info);
        if (e != cudaSuccess) rc = cuda_fail("cudaMemcpy back", e);
        *median_ms = median(times, reps);
    }
    if (times) prob_free(&p);
    free(times);
    return rc;
}

int cusolver_ref_copies(int routine, int dbl, int upper, int n, const void *A0, void *W,
                        cusolver_ref_copy_fn copy, int reps, double *median_ms, int *ipiv,
                        void *tau, int *info)
{
    prob_t p;
    double *times = calloc((size_t)(reps > 0 ? reps : 1), sizeof *times);
    int rc = times ? prob_alloc(&p, routine, dbl, upper, n) : -1;
    if (!times) snprintf(g_err, sizeof g_err, "out of host memory");
    for (int r = -1; rc == 0 && r < reps; r++) {
        copy(W, A0, p.bytes);
        const double t0 = now_ms();
        cudaError_t e = cudaMemcpy(p.a, W, p.bytes, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) rc = cuda_fail("cudaMemcpy A", e);
        cusolverStatus_t cs = rc ? CUSOLVER_STATUS_SUCCESS : factor(&p);
        if (cs != CUSOLVER_STATUS_SUCCESS) rc = cusolver_fail("factorization", cs);
        if (rc == 0 && (e = cudaMemcpy(W, p.a, p.bytes, cudaMemcpyDeviceToHost)) != cudaSuccess)
            rc = cuda_fail("cudaMemcpy back", e);
        if (rc == 0 && (e = small_back(&p, ipiv, tau, info)) != cudaSuccess)
            rc = cuda_fail("cudaMemcpy back", e);
        if (r >= 0) times[r] = now_ms() - t0;
    }
    if (rc == 0) *median_ms = median(times, reps);
    if (times) prob_free(&p);
    free(times);
    return rc;
}
