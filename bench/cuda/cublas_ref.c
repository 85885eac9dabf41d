/*
 * cublas_ref.c -- cuBLAS as a same-run reference for the device GEMM benchmark.
 *
 * Plain C on the CUDA runtime and the cuBLAS v2 C API. The math mode is set to
 * CUBLAS_DEFAULT_MATH explicitly, which keeps SGEMM on FP32 arithmetic (TF32 tensor cores are
 * used only under CUBLAS_TF32_TENSOR_OP_MATH, or when NVIDIA_TF32_OVERRIDE / emulation
 * environment variables ask for it: the benchmark warns about those). DGEMM may use the FP64
 * tensor cores, which are full double precision. When clhgemm itself runs its TF32 opt-in
 * (CLHGEMM_SGEMM_MATH=tf32), SGEMM here is set to CUBLAS_TF32_TENSOR_OP_MATH too, so the two
 * columns compute the same kind of product; with 3xtf32 cuBLAS stays on FP32 (it has no 3xTF32
 * mode, and 3xTF32 is an FP32-accuracy product). Timing: one cudaEvent pair around each call,
 * median of the reps, like the OpenCL columns. TRSM (cublas_ref_trsm, clhgemm-bench-level3's
 * cuBLAS column) follows the same math-mode rule; it overwrites B, so every call first restores B
 * on the device from a pristine copy there, outside the timing.
 */
#include "cublas_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

static char g_err[256];
static char g_desc[448];

static int cuda_fail(const char *what, cudaError_t e)
{
    snprintf(g_err, sizeof g_err, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

static int cublas_fail(const char *what, cublasStatus_t s)
{
    snprintf(g_err, sizeof g_err, "%s: %s", what, cublasGetStatusString(s));
    return -1;
}

const char *cublas_ref_last_error(void) { return g_err; }

const char *cublas_ref_description(void) { return g_desc; }

static int use_tf32(void)
{
    const char *m = getenv("CLHGEMM_SGEMM_MATH");
    return m && !strcasecmp(m, "tf32");
}

int cublas_ref_available(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cuda_fail("cudaGetDeviceCount", e);
        return 0;
    }
    if (count <= 0) {
        snprintf(g_err, sizeof g_err, "no CUDA device");
        return 0;
    }
    struct cudaDeviceProp prop;
    e = cudaGetDeviceProperties(&prop, 0);
    if (e != cudaSuccess) {
        cuda_fail("cudaGetDeviceProperties", e);
        return 0;
    }
    int major = 0, minor = 0, patch = 0;
    cublasGetProperty(MAJOR_VERSION, &major);
    cublasGetProperty(MINOR_VERSION, &minor);
    cublasGetProperty(PATCH_LEVEL, &patch);
    snprintf(g_desc, sizeof g_desc, "%s (sm_%d%d), cuBLAS %d.%d.%d%s", prop.name, prop.major,
             prop.minor, major, minor, patch,
             use_tf32() ? "; SGEMM in TF32 (CUBLAS_TF32_TENSOR_OP_MATH, as CLHGEMM_SGEMM_MATH=tf32)" : "");
    g_err[0] = '\0';
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median, min and max of the reps' times (sorted in place); any output may be NULL. */
static void med_min_max(double *times, int reps, double *median_ms, double *min_ms,
                        double *max_ms)
{
    qsort(times, (size_t)reps, sizeof(double), cmp_double);
    if (median_ms)
        *median_ms = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    if (min_ms) *min_ms = times[0];
    if (max_ms) *max_ms = times[reps - 1];
}

/* A call's start: the last error cleared, reps and warmup clamped (at least 1 and 0), the reps'
 * time array; NULL (and the error) when the host is out of memory. */
static double *call_start(int *reps, int *warmup)
{
    g_err[0] = '\0';
    if (*reps < 1) *reps = 1;
    if (*warmup < 0) *warmup = 0;
    double *times = (double *)malloc(sizeof(double) * (size_t)*reps);
    if (!times) snprintf(g_err, sizeof g_err, "out of host memory");
    return times;
}

/* The handle (FP32 stays FP32, no TF32 tensor-op math, unless ours runs in TF32 too) and the
 * event pair of the timed calls; what was made before a failure is left for the caller to free. */
static int open_handle(int dbl, cublasHandle_t *h, cudaEvent_t *e0, cudaEvent_t *e1)
{
    cublasStatus_t cs;
    cudaError_t ce;
    if ((cs = cublasCreate(h)) != CUBLAS_STATUS_SUCCESS) return cublas_fail("cublasCreate", cs);
    cs = cublasSetMathMode(*h, use_tf32() && !dbl ? CUBLAS_TF32_TENSOR_OP_MATH
                                                  : CUBLAS_DEFAULT_MATH);
    if (cs != CUBLAS_STATUS_SUCCESS) return cublas_fail("cublasSetMathMode", cs);
    if ((ce = cudaEventCreate(e0)) != cudaSuccess || (ce = cudaEventCreate(e1)) != cudaSuccess)
        return cuda_fail("cudaEventCreate", ce);
    return 0;
}

int cublas_ref_gemm(int dbl, int m, int n, int k, const void *A, const void *B, const void *C0,
                    double alpha, double beta, int warmup, int reps, double *median_ms)
{
    return cublas_ref_gemm_ex(dbl, 0, 0, m, n, k, A, m, B, k, C0, m, alpha, beta, warmup, reps,
                              median_ms, NULL, NULL, NULL);
}

int cublas_ref_gemm_ex(int dbl, int transa, int transb, int m, int n, int k, const void *A, int lda,
                       const void *B, int ldb, const void *C0, int ldc, double alpha, double beta,
                       int warmup, int reps, double *median_ms, double *min_ms, double *max_ms,
                       void *C_out)
{
    const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};
    return cublas_ref_gemm_kind(dbl ? CUBLAS_REF_D : CUBLAS_REF_S, transa, transb, m, n, k, A, lda,
                                B, ldb, C0, ldc, al, be, warmup, reps, median_ms, min_ms, max_ms,
                                C_out);
}

/* One GEMM call of the kind on device matrices. */
static cublasStatus_t call_gemm(cublasHandle_t h, int kind, cublasOperation_t opa,
                                cublasOperation_t opb, int m, int n, int k, const double *alpha,
                                const void *dA, int lda, const void *dB, int ldb,
                                const double *beta, void *dC, int ldc)
{
    const float fa[2] = {(float)alpha[0], (float)alpha[1]};
    const float fb[2] = {(float)beta[0], (float)beta[1]};
    const cuComplex *ca = (const cuComplex *)fa, *cb = (const cuComplex *)fb;
    const cuDoubleComplex *za = (const cuDoubleComplex *)alpha, *zb = (const cuDoubleComplex *)beta;
    switch (kind) {
    case CUBLAS_REF_D:
        return cublasDgemm(h, opa, opb, m, n, k, alpha, (const double *)dA, lda, (const double *)dB,
                           ldb, beta, (double *)dC, ldc);
    case CUBLAS_REF_C:
        return cublasCgemm(h, opa, opb, m, n, k, ca, (const cuComplex *)dA, lda,
                           (const cuComplex *)dB, ldb, cb, (cuComplex *)dC, ldc);
    case CUBLAS_REF_Z:
        return cublasZgemm(h, opa, opb, m, n, k, za, (const cuDoubleComplex *)dA, lda,
                           (const cuDoubleComplex *)dB, ldb, zb, (cuDoubleComplex *)dC, ldc);
    case CUBLAS_REF_C3M:
        return cublasCgemm3m(h, opa, opb, m, n, k, ca, (const cuComplex *)dA, lda,
                             (const cuComplex *)dB, ldb, cb, (cuComplex *)dC, ldc);
    case CUBLAS_REF_Z3M:
        return cublasZgemm3m(h, opa, opb, m, n, k, za, (const cuDoubleComplex *)dA, lda,
                             (const cuDoubleComplex *)dB, ldb, zb, (cuDoubleComplex *)dC, ldc);
    default:
        return cublasSgemm(h, opa, opb, m, n, k, fa, (const float *)dA, lda, (const float *)dB,
                           ldb, fb, (float *)dC, ldc);
    }
}

int cublas_ref_gemm_kind(int kind, int transa, int transb, int m, int n, int k, const void *A,
                         int lda, const void *B, int ldb, const void *C0, int ldc,
                         const double alpha[2], const double beta[2], int warmup, int reps,
                         double *median_ms, double *min_ms, double *max_ms, void *C_out)
{
    const int dbl = kind == CUBLAS_REF_D || kind == CUBLAS_REF_Z || kind == CUBLAS_REF_Z3M;
    const int cplx = kind >= CUBLAS_REF_C;
    const size_t es = (dbl ? sizeof(double) : sizeof(float)) * (cplx ? 2 : 1);
    const size_t na = (size_t)lda * (size_t)(transa ? m : k);
    const size_t nb = (size_t)ldb * (size_t)(transb ? k : n);
    const size_t nc = (size_t)ldc * (size_t)n;
    const cublasOperation_t opa = transa ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t opb = transb ? CUBLAS_OP_T : CUBLAS_OP_N;
    void *dA = NULL, *dB = NULL, *dC = NULL;
    cublasHandle_t h = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *times = NULL;
    int rc = -1;
    cudaError_t ce;
    cublasStatus_t cs;

    if (!(times = call_start(&reps, &warmup))) return -1;
    if ((ce = cudaSetDevice(0)) != cudaSuccess) { cuda_fail("cudaSetDevice", ce); goto done; }
    if ((ce = cudaMalloc(&dA, na * es)) != cudaSuccess) { cuda_fail("cudaMalloc(A)", ce); goto done; }
    if ((ce = cudaMalloc(&dB, nb * es)) != cudaSuccess) { cuda_fail("cudaMalloc(B)", ce); goto done; }
    if ((ce = cudaMalloc(&dC, nc * es)) != cudaSuccess) { cuda_fail("cudaMalloc(C)", ce); goto done; }
    if ((ce = cudaMemcpy(dA, A, na * es, cudaMemcpyHostToDevice)) != cudaSuccess) { cuda_fail("cudaMemcpy(A)", ce); goto done; }
    if ((ce = cudaMemcpy(dB, B, nb * es, cudaMemcpyHostToDevice)) != cudaSuccess) { cuda_fail("cudaMemcpy(B)", ce); goto done; }
    if ((ce = cudaMemcpy(dC, C0, nc * es, cudaMemcpyHostToDevice)) != cudaSuccess) { cuda_fail("cudaMemcpy(C)", ce); goto done; }
    if (open_handle(dbl, &h, &e0, &e1)) goto done;

#define CALL_GEMM() call_gemm(h, kind, opa, opb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc)

    if (C_out) { /* one call on C0 for the caller's correctness check */
        if ((cs = CALL_GEMM()) != CUBLAS_STATUS_SUCCESS) { cublas_fail("cublas gemm", cs); goto done; }
        if ((ce = cudaMemcpy(C_out, dC, nc * es, cudaMemcpyDeviceToHost)) != cudaSuccess) { cuda_fail("cudaMemcpy(C back)", ce); goto done; }
        if ((ce = cudaMemcpy(dC, C0, nc * es, cudaMemcpyHostToDevice)) != cudaSuccess) { cuda_fail("cudaMemcpy(C)", ce); goto done; }
    }
    for (int i = 0; i < warmup; i++) {
        if ((cs = CALL_GEMM()) != CUBLAS_STATUS_SUCCESS) { cublas_fail("cublas gemm", cs); goto done; }
    }
    if ((ce = cudaDeviceSynchronize()) != cudaSuccess) { cuda_fail("warm-up", ce); goto done; }
    for (int i = 0; i < reps; i++) {
        float ms = 0.0f;
        cudaEventRecord(e0, 0);
        if ((cs = CALL_GEMM()) != CUBLAS_STATUS_SUCCESS) { cublas_fail("cublas gemm", cs); goto done; }
        cudaEventRecord(e1, 0);
        if ((ce = cudaEventSynchronize(e1)) != cudaSuccess) { cuda_fail("cudaEventSynchronize", ce); goto done; }
        if ((ce = cudaEventElapsedTime(&ms, e0, e1)) != cudaSuccess) { cuda_fail("cudaEventElapsedTime", ce); goto done; }
        times[i] = ms;
    }
#undef CALL_GEMM
    med_min_max(times, reps, median_ms, min_ms, max_ms);
    rc = 0;

done:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (h) cublasDestroy(h);
    if (dA) cudaFree(dA);
    if (dB) cudaFree(dB);
    if (dC) cudaFree(dC);
    free(times);
    return rc;
}

/* ---- TRSM ------------------------------------------------------------------------------------ */

/* A TRSM on the device (cublas_ref_trsm): the handle, the call's arguments, A, the B it
 * overwrites and B's pristine copy dB0 (nb_bytes each). */
typedef struct trsm_dev_s {
    cublasHandle_t h;
    int kind, dbl, m, n, lda, ldb; /* kind: CUBLAS_REF_S .. _Z */
    cublasSideMode_t side;
    cublasFillMode_t uplo;
    cublasOperation_t op;
    cublasDiagType_t diag;
    double alpha;
    void *dA, *dB, *dB0;
    size_t nb_bytes;
} trsm_dev_t;

/* cudaMalloc's each device array and uploads A and B0 (into dB0 only: each call restores dB). */
static int trsm_upload(trsm_dev_t *t, const void *A, size_t na_bytes, const void *B0)
{
    cudaError_t ce;
    if ((ce = cudaSetDevice(0)) != cudaSuccess) return cuda_fail("cudaSetDevice", ce);
    if ((ce = cudaMalloc(&t->dA, na_bytes)) != cudaSuccess) return cuda_fail("cudaMalloc(A)", ce);
    if ((ce = cudaMalloc(&t->dB, t->nb_bytes)) != cudaSuccess)
        return cuda_fail("cudaMalloc(B)", ce);
    if ((ce = cudaMalloc(&t->dB0, t->nb_bytes)) != cudaSuccess)
        return cuda_fail("cudaMalloc(B0)", ce);
    if ((ce = cudaMemcpy(t->dA, A, na_bytes, cudaMemcpyHostToDevice)) != cudaSuccess)
        return cuda_fail("cudaMemcpy(A)", ce);
    if ((ce = cudaMemcpy(t->dB0, B0, t->nb_bytes, cudaMemcpyHostToDevice)) != cudaSuccess)
        return cuda_fail("cudaMemcpy(B0)", ce);
    return 0;
}

/* dB := dB0, finished before the caller goes on (a device-to-device cudaMemcpy may return before
 * the copy is done), so that no rep's clock sees it. */
static int trsm_restore(const trsm_dev_t *t)
{
    cudaError_t ce = cudaMemcpy(t->dB, t->dB0, t->nb_bytes, cudaMemcpyDeviceToDevice);
    if (ce != cudaSuccess) return cuda_fail("cudaMemcpy(B0 -> B)", ce);
    if ((ce = cudaDeviceSynchronize()) != cudaSuccess) return cuda_fail("restoring B", ce);
    return 0;
}

/* dB := B0, then one cublas{S,D}trsm; timed with the event pair into *ms where ms != NULL
 * (e0, e1 unused otherwise), else only enqueued. */
/* One cublas{S,D,C,Z}trsm of t (a complex one with alpha + 0i). */
static cublasStatus_t trsm_call(const trsm_dev_t *t)
{
    const float fa[2] = {(float)t->alpha, 0.0f};
    const double za[2] = {t->alpha, 0.0};
    switch (t->kind) {
    case CUBLAS_REF_D:
        return cublasDtrsm(t->h, t->side, t->uplo, t->op, t->diag, t->m, t->n, &t->alpha,
                           (const double *)t->dA, t->lda, (double *)t->dB, t->ldb);
    case CUBLAS_REF_C:
        return cublasCtrsm(t->h, t->side, t->uplo, t->op, t->diag, t->m, t->n,
                           (const cuComplex *)fa, (const cuComplex *)t->dA, t->lda,
                           (cuComplex *)t->dB, t->ldb);
    case CUBLAS_REF_Z:
        return cublasZtrsm(t->h, t->side, t->uplo, t->op, t->diag, t->m, t->n,
                           (const cuDoubleComplex *)za, (const cuDoubleComplex *)t->dA, t->lda,
                           (cuDoubleComplex *)t->dB, t->ldb);
    default:
        return cublasStrsm(t->h, t->side, t->uplo, t->op, t->diag, t->m, t->n, fa,
                           (const float *)t->dA, t->lda, (float *)t->dB, t->ldb);
    }
}

static int trsm_rep(const trsm_dev_t *t, cudaEvent_t e0, cudaEvent_t e1, float *ms)
{
    cudaError_t ce;
    cublasStatus_t cs;
    if (trsm_restore(t)) return -1;
    if (ms && (ce = cudaEventRecord(e0, 0)) != cudaSuccess) return cuda_fail("cudaEventRecord", ce);
    cs = trsm_call(t);
    if (cs != CUBLAS_STATUS_SUCCESS) return cublas_fail("cublas trsm", cs);
    if (!ms) return 0;
    if ((ce = cudaEventRecord(e1, 0)) != cudaSuccess) return cuda_fail("cudaEventRecord", ce);
    if ((ce = cudaEventSynchronize(e1)) != cudaSuccess)
        return cuda_fail("cudaEventSynchronize", ce);
    if ((ce = cudaEventElapsedTime(ms, e0, e1)) != cudaSuccess)
        return cuda_fail("cudaEventElapsedTime", ce);
    return 0;
}

/* The untimed calls: the one whose solution goes back to X_out (where not NULL), then the
 * warm-ups, each from B0; the device idle when it returns. */
static int trsm_untimed(const trsm_dev_t *t, int warmup, void *X_out)
{
    cudaError_t ce;
    if (X_out) {
        if (trsm_rep(t, NULL, NULL, NULL)) return -1;
        if ((ce = cudaMemcpy(X_out, t->dB, t->nb_bytes, cudaMemcpyDeviceToHost)) != cudaSuccess)
            return cuda_fail("cudaMemcpy(X back)", ce);
    }
    for (int i = 0; i < warmup; i++)
        if (trsm_rep(t, NULL, NULL, NULL)) return -1;
    if ((ce = cudaDeviceSynchronize()) != cudaSuccess) return cuda_fail("warm-up", ce);
    return 0;
}

int cublas_ref_trsm(int dbl, int right, int lower, int trans, int unit, int m, int n,
                    double alpha, const void *A, int lda, const void *B0, int ldb, int warmup,
                    int reps, double *median_ms, double *min_ms, double *max_ms, void *X_out)
{
    return cublas_ref_trsm_kind(dbl ? CUBLAS_REF_D : CUBLAS_REF_S, right, lower, trans, unit, m,
                                n, alpha, A, lda, B0, ldb, warmup, reps, median_ms, min_ms,
                                max_ms, X_out);
}

int cublas_ref_trsm_kind(int kind, int right, int lower, int trans, int unit, int m, int n,
                         double alpha, const void *A, int lda, const void *B0, int ldb,
                         int warmup, int reps, double *median_ms, double *min_ms,
                         double *max_ms, void *X_out)
{
    const int dbl = kind == CUBLAS_REF_D || kind == CUBLAS_REF_Z;
    const size_t es = (dbl ? sizeof(double) : sizeof(float)) * (kind >= CUBLAS_REF_C ? 2 : 1);
    const int ka = right ? n : m; /* A is ka x ka */
    trsm_dev_t t = {.kind = kind, .dbl = dbl, .m = m, .n = n, .lda = lda, .ldb = ldb,
                    .alpha = alpha,
                    .side = right ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT,
                    .uplo = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER,
                    .op = trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                    .diag = unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT,
                    .nb_bytes = (size_t)ldb * (size_t)n * es};
    cudaEvent_t e0 = NULL, e1 = NULL;
    int rc = -1;
    if (m < 1 || n < 1 || lda < ka || ldb < m) {
        snprintf(g_err, sizeof g_err, "cublas_ref_trsm: bad shape %dx%d (lda %d, ldb %d)", m, n,
                 lda, ldb);
        return -1;
    }
    double *times = call_start(&reps, &warmup);
    if (!times) return -1;
    if (trsm_upload(&t, A, (size_t)lda * (size_t)ka * es, B0)) goto done;
    if (open_handle(dbl, &t.h, &e0, &e1)) goto done;
    if (trsm_untimed(&t, warmup, X_out)) goto done;
    for (int i = 0; i < reps; i++) {
        float ms = 0.0f;
        if (trsm_rep(&t, e0, e1, &ms)) goto done;
        times[i] = ms;
    }
    med_min_max(times, reps, median_ms, min_ms, max_ms);
    rc = 0;

done:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (t.h) cublasDestroy(t.h);
    if (t.dA) cudaFree(t.dA);
    if (t.dB) cudaFree(t.dB);
    if (t.dB0) cudaFree(t.dB0);
    free(times);
    return rc;
}
