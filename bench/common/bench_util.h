/*
 * bench_util.h -- small helpers shared by the benchmark programs (host clock, sorting for
 * medians). Header-only so that each benchmark stays one translation unit.
 */
#ifndef CLHGEMM_BENCH_UTIL_H
#define CLHGEMM_BENCH_UTIL_H

#include <time.h>

/* Monotonic host clock in milliseconds. */
static inline double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* qsort comparator for doubles (medians of repeated timings). */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
