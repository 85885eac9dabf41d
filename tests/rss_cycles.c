/*
 * rss_cycles.c -- resident memory over handle cycles (bounded memory's figure; not a CTest test).
 *
 *   rss_cycles [CYCLES [N]]   CYCLES x (clhgemm_create, one checked host DGEMM of N x N x N,
 *                             clhgemm_destroy); prints VmRSS (/proc/self/status) before the first
 *                             cycle and after every 100th. Defaults: 1000 cycles, N = 64.
 *
 * Public API only, so that the same file builds against an older libclhgemm (the figure before
 * and after 3e528d7, the bounded program cache):
 *   gcc -O2 tests/rss_cycles.c -Iinclude -I<build>/include -L<build> -lclhgemm -lOpenCL -lm \
 *       -Wl,-rpath,<build> -o rss_cycles
 * The product is checked against a plain triple loop in double; exits 1 on a failed call or a
 * wrong result.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clhgemm.h"
#include "common.h"

int main(int argc, char **argv)
{
    const int cycles = argc > 1 ? atoi(argv[1]) : 1000, n = argc > 2 ? atoi(argv[2]) : 64;
    if (cycles < 1 || n < 1 || n > 4096) {
        fprintf(stderr, "usage: rss_cycles [CYCLES [N]]\n");
        return 2;
    }
    const size_t nn = (size_t)n * (size_t)n;
    double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    double *want = calloc(nn, sizeof *want);
    if (!a || !b || !c || !want) return 1;
    unsigned long long s = 88172645463325252ULL;
    for (size_t i = 0; i < nn; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        a[i] = (double)(s % 2001) / 1000.0 - 1.0;
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        b[i] = (double)(s % 2001) / 1000.0 - 1.0;
    }
    for (int j = 0; j < n; j++)
        for (int p = 0; p < n; p++)
            for (int i = 0; i < n; i++) want[i + (size_t)j * n] += a[i + (size_t)p * n] * b[p + (size_t)j * n];
    printf("cycle,vmrss_mib\n0,%.1f\n", tc_vmrss_mib());
    fflush(stdout);
    for (int cyc = 1; cyc <= cycles; cyc++) {
        clhgemm_handle_t h = NULL;
        clhgemm_status_t st = clhgemm_create(&h, NULL);
        if (st == CLHGEMM_SUCCESS) {
            memset(c, 0, nn * sizeof *c);
            st = clhgemm_dgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, n, n, n, 1.0, a, n, b, n,
                               0.0, c, n);
        }
        clhgemm_destroy(h);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "cycle %d: %s\n", cyc, clhgemm_status_string(st));
            return 1;
        }
        for (size_t i = 0; i < nn; i++)
            if (!(fabs(c[i] - want[i]) <= 1e-12 * (n + 2))) {
                fprintf(stderr, "cycle %d: C[%zu] = %.17g, want %.17g\n", cyc, i, c[i], want[i]);
                return 1;
            }
        if (cyc % 100 == 0) {
            printf("%d,%.1f\n", cyc, tc_vmrss_mib());
            fflush(stdout);
        }
    }
    free(a);
    free(b);
    free(c);
    free(want);
    return 0;
}
