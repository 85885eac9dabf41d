/*
 * probe_stats.h -- the GPU probes' clock and repetition statistics (probe_zerocopy.c,
 * probe_pindirect.c, probe_pinpar.c): a monotonic clock in seconds, samples and their median,
 * and the parse of their integer lists.
 */
#ifndef CLHGEMM_PROBE_STATS_H
#define CLHGEMM_PROBE_STATS_H
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROBE_MAX_SAMPLES 64

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    int n;
    double v[PROBE_MAX_SAMPLES];
} samples_t;

/* Keeps v (the first PROBE_MAX_SAMPLES only). */
static inline void add(samples_t *s, double v)
{
    if (s->n < PROBE_MAX_SAMPLES) s->v[s->n++] = v;
}

static inline int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A comma-separated list of positive integers into out (at most max): the count, or -1 when
 * the list is malformed (the probes' --sizes and --threads-list). */
static inline int probe_parse_list(const char *s, size_t *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        const unsigned long long v = strtoull(s, &end, 10);
        if (end == s || v == 0) return -1;
        out[n++] = (size_t)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return n;
}

/* The median of the samples; -1 when there is none. */
static inline double median(const samples_t *s)
{
    if (s->n == 0) return -1;
    double t[PROBE_MAX_SAMPLES];
    memcpy(t, s->v, sizeof(double) * (size_t)s->n);
    qsort(t, (size_t)s->n, sizeof t[0], cmp_d);
    return s->n % 2 ? t[s->n / 2] : 0.5 * (t[s->n / 2 - 1] + t[s->n / 2]);
}
#endif
