/*
 * sgemm_cl.c -- the smallest complete use of clhgemm: one SGEMM on OpenCL buffers.
 *
 * Picks the first device that clhgemm_devices_get() offers (CLHGEMM_DEVICES narrows the choice),
 * creates a context and a queue on it, uploads random column-major A (m x k), B (n x k) and C
 * (m x n), and computes C := alpha * A * B^T + beta * C with clhgemm_sgemm_cl. The result is
 * compared with a plain triple loop on the host. Prints PASS or FAIL and exits 0 or 1; exits 77
 * (the "skipped" code of CTest and automake) when the machine has no OpenCL device.
 *
 * Build against an installed clhgemm:  find_package(clhgemm) + clhgemm::clhgemm, or
 *   cc sgemm_cl.c $(pkg-config --cflags --libs clhgemm) -lm
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <clhgemm.h>

static float random_value(void) { return (float)rand() / (float)RAND_MAX * 2.0f - 1.0f; }

int main(void)
{
    const int m = 300, n = 200, k = 150;
    const int lda = m, ldb = n, ldc = m; /* column-major, B stored n x k and used transposed */
    const float alpha = 1.5f, beta = -0.5f;
    int ok = 1;

    /* 1. A device: the first one clhgemm finds (all platforms, filtered by CLHGEMM_DEVICES). */
    clhgemm_device_info_t dev;
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(NULL, &dev, 1, &count);
    if (st == CLHGEMM_NO_DEVICE || (st == CLHGEMM_SUCCESS && count == 0)) {
        printf("SKIP: no OpenCL device found\n");
        return 77;
    }
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm_devices_get: %s\n", clhgemm_status_string(st));
        return 1;
    }
    printf("device: %s (%s)\n", dev.name, dev.platform_name);

    /* 2. Host data. */
    float *a = malloc(sizeof(float) * (size_t)lda * k);
    float *b = malloc(sizeof(float) * (size_t)ldb * k);
    float *c = malloc(sizeof(float) * (size_t)ldc * n);
    float *result = malloc(sizeof(float) * (size_t)ldc * n);
    if (!a || !b || !c || !result) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    srand(42);
    for (int i = 0; i < lda * k; ++i) a[i] = random_value();
    for (int i = 0; i < ldb * k; ++i) b[i] = random_value();
    for (int i = 0; i < ldc * n; ++i) c[i] = random_value();

    /* 3. OpenCL context, queue and buffers: plain OpenCL, owned by the application. */
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev.device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateContext: %s\n", clhgemm_status_string(err));
        return 1;
    }
    cl_command_queue queue = clCreateCommandQueue(ctx, dev.device, 0, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateCommandQueue: %s\n", clhgemm_status_string(err));
        return 1;
    }
    const cl_mem_flags flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    cl_mem bufA = clCreateBuffer(ctx, flags, sizeof(float) * (size_t)lda * k, a, &err);
    cl_mem bufB = clCreateBuffer(ctx, flags, sizeof(float) * (size_t)ldb * k, b, &err);
    cl_mem bufC = clCreateBuffer(ctx, flags, sizeof(float) * (size_t)ldc * n, c, &err);
    if (!bufA || !bufB || !bufC) {
        fprintf(stderr, "clCreateBuffer: %s\n", clhgemm_status_string(err));
        return 1;
    }

    /* 4. C := alpha * A * B^T + beta * C. The call only enqueues; the event says when C is final. */
    cl_event done = NULL;
    st = clhgemm_sgemm_cl(CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_TRANS, m, n, k,
                          alpha, bufA, 0, lda, bufB, 0, ldb, beta, bufC, 0, ldc, queue, &done);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm_sgemm_cl: %s (%s)\n", clhgemm_status_string(st),
                clhgemm_status_message(st));
        return 1;
    }
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    err = clEnqueueReadBuffer(queue, bufC, CL_TRUE, 0, sizeof(float) * (size_t)ldc * n, result,
                              0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clEnqueueReadBuffer: %s\n", clhgemm_status_string(err));
        return 1;
    }

    /* 5. Check against the triple loop, in double. Rounding errors of a length-k dot product
     *    stay below k * eps * sum|alpha * a * b| (+ the beta term): that is the tolerance. */
    double max_rel = 0.0;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < m; ++i) {
            double sum = 0.0, mag = 0.0;
            for (int l = 0; l < k; ++l) {
                double p = (double)a[i + l * lda] * (double)b[j + l * ldb];
                sum += p;
                mag += fabs(p);
            }
            double ref = alpha * sum + beta * (double)c[i + j * ldc];
            double scale = fabs(alpha) * mag + fabs(beta) * fabs((double)c[i + j * ldc]);
            double diff = fabs((double)result[i + j * ldc] - ref);
            double tol = 2.0 * (k + 2) * FLT_EPSILON * scale;
            if (scale > 0.0 && diff / scale > max_rel) max_rel = diff / scale;
            if (!(diff <= tol)) { /* also catches NaN */
                if (ok)
                    fprintf(stderr, "C(%d,%d) = %.8g, expected %.8g\n", i, j,
                            (double)result[i + j * ldc], ref);
                ok = 0;
            }
        }
    }
    printf("sgemm %dx%dx%d (NoTrans, Trans): max relative error %.2e -> %s\n", m, n, k, max_rel,
           ok ? "PASS" : "FAIL");

    clReleaseMemObject(bufA);
    clReleaseMemObject(bufB);
    clReleaseMemObject(bufC);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    clhgemm_release_resources();
    free(a);
    free(b);
    free(c);
    free(result);
    return ok ? 0 : 1;
}
