/*
 * dgemm_host.c -- the host API in full: one DGEMM on ordinary host memory through a handle.
 *
 * A handle owns the devices, their queues, the pinned staging and the pack threads, so it is
 * created once and reused; each call is synchronous and takes plain arrays of any size (larger
 * than the devices' memory too). clhgemm_last_call_info() then says where the call ran: with
 * CLHGEMM_ROUTE=auto (the default) the routing model may keep a call on OpenBLAS on the calling
 * thread, which it always does when the only OpenCL devices are CPUs (PoCL); CLHGEMM_ROUTE=device
 * sends it to the devices. The result is compared with a plain triple loop on the host. Prints
 * PASS or FAIL and exits 0 or 1; exits 77 (the "skipped" code of CTest) without an OpenCL
 * device.
 *
 * Build against an installed clhgemm:  find_package(clhgemm) + clhgemm::clhgemm, or
 *   cc dgemm_host.c $(pkg-config --cflags --libs clhgemm) -lm
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <clhgemm.h>

int main(void)
{
    const int m = 500, n = 400, k = 300; /* column-major, no transposes: lda = m, ldb = k */
    const double alpha = 1.0, beta = 0.5;
    double *a = malloc(sizeof(double) * (size_t)m * k);
    double *b = malloc(sizeof(double) * (size_t)k * n);
    double *c = malloc(sizeof(double) * (size_t)m * n);
    double *c0 = malloc(sizeof(double) * (size_t)m * n);
    if (!a || !b || !c || !c0) return 1;
    for (size_t i = 0; i < (size_t)m * k; i++) a[i] = (double)rand() / RAND_MAX - 0.5;
    for (size_t i = 0; i < (size_t)k * n; i++) b[i] = (double)rand() / RAND_MAX - 0.5;
    for (size_t i = 0; i < (size_t)m * n; i++) c[i] = c0[i] = (double)rand() / RAND_MAX - 0.5;

    /* NULL options: CLHGEMM_DEVICES, else every GPU, else every device. */
    clhgemm_handle_t h = NULL;
    clhgemm_status_t st = clhgemm_create(&h, NULL);
    if (st == CLHGEMM_NO_DEVICE) {
        printf("SKIP: no OpenCL device found\n");
        return 77;
    }
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm_create: %s\n", clhgemm_status_message(st));
        return 1;
    }

    /* C := alpha * A * B + beta * C; returns when C is final. */
    st = clhgemm_dgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, m, n, k, alpha, a,
                       m, b, k, beta, c, m);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm_dgemm: %s (%s)\n", clhgemm_status_string(st),
                clhgemm_status_message(st));
        clhgemm_destroy(h);
        return 1;
    }

    clhgemm_call_info_t info;
    if (clhgemm_last_call_info(h, &info) == CLHGEMM_SUCCESS) {
        if (info.devices_used > 0)
            printf("ran on %d device(s): %lld tile(s) of %d x %d x %d, %.3f s\n", info.devices_used,
                   info.tiles, info.tile_m, info.tile_n, info.tile_k, info.seconds);
        else
            printf("ran on the CPU BLAS (the routing model's choice; CLHGEMM_ROUTE=device forces "
                   "the devices)\n");
    }
    clhgemm_destroy(h);

    /* The check: every element against a triple loop in double. */
    double worst = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0, mag = 0;
            for (int p = 0; p < k; p++) {
                s += a[i + (size_t)p * m] * b[p + (size_t)j * k];
                mag += fabs(a[i + (size_t)p * m] * b[p + (size_t)j * k]);
            }
            const double cij = c0[i + (size_t)j * m], want = alpha * s + beta * cij;
            const double bound = (fabs(alpha) * mag + fabs(beta * cij)) * k * DBL_EPSILON;
            const double err = fabs(c[i + (size_t)j * m] - want) / (bound + DBL_MIN);
            if (err > worst) worst = err;
        }
    free(a);
    free(b);
    free(c);
    free(c0);
    printf("%s: worst error %.3g of k * eps * (|alpha| |A||B| + |beta C|)\n",
           worst <= 1 ? "PASS" : "FAIL", worst);
    return worst <= 1 ? 0 : 1;
}
