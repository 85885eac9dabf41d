/*
 * tune_common.c -- the helpers that every part of clhgemm-tune uses (tune_common.h): the
 * monotonic clock, the run's log and progress output (DIR/tune.log through tune_run_t.log,
 * stdout), splitmix64 fills of the matrices and the host-clock timing of a kernel. Calls no
 * other file of the tool.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tune_common.h"

/* ---- clock and data ---------------------------------------------------------------------- */

double tune_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double tune_elapsed(const tune_run_t *r) { return tune_now() - r->t0; }

void tune_fmt_time(double s, char *buf, size_t len)
{
    if (s < 0) s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static unsigned long long splitmix(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double tune_uniform(unsigned long long *state)
{
    double u = (double)(splitmix(state) >> 11) * (1.0 / 9007199254740992.0);
    double v = 2.0 * u - 1.0;
    return v == 0.0 ? 0.5 : v;
}

void tune_fill(void *p, int dbl, size_t n, unsigned long long seed)
{
    unsigned long long s = seed;
    if (dbl)
        for (size_t i = 0; i < n; i++) ((double *)p)[i] = tune_uniform(&s);
    else
        for (size_t i = 0; i < n; i++) {
            float x = (float)tune_uniform(&s);
            ((float *)p)[i] = x == 0.0f ? 0.5f : x;
        }
}

static int cmp_dbl(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double tune_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_dbl);
    return t[n / 2];
}

double tune_time_kernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *g,
                        const size_t *l, int reps, cl_int *err)
{
    /* Host clock around batches of back-to-back launches, not profiling events: it needs no
     * profiling support from the queue, it measures what a caller waits for (the launch cost
     * included: microseconds on a GPU against milliseconds of kernel), as the benchmarks do,
     * and a batch between two clFinish amortises the one host round trip. The best of two
     * batches is taken against interference from other processes. */
    if (reps < 1) reps = 1;
    const int batches = reps >= 4 ? 2 : 1;
    const int per = (reps + batches - 1) / batches;
    double best = -1;
    *err = clFinish(q);
    for (int b = 0; b < batches && *err == CL_SUCCESS; b++) {
        const double t0 = tune_now();
        for (int i = 0; i < per && *err == CL_SUCCESS; i++)
            *err = clEnqueueNDRangeKernel(q, k, dims, NULL, g, l, 0, NULL, NULL);
        if (*err == CL_SUCCESS) *err = clFinish(q);
        const double t = (tune_now() - t0) / per;
        if (*err == CL_SUCCESS && t > 0 && (best < 0 || t < best)) best = t;
    }
    if (*err != CL_SUCCESS) {
        clFinish(q);
        return -1;
    }
    return best;
}

/* ---- output ------------------------------------------------------------------------------ */

static void log_line(tune_run_t *r, const char *text)
{
    if (!r->log) return;
    char t[32];
    tune_fmt_time(tune_elapsed(r), t, sizeof t);
    fprintf(r->log, "[%s] %s\n", t, text);
    fflush(r->log);
}

void tune_progress_clear(tune_run_t *r)
{
    if (r->tty && r->progress_shown) {
        fputs("\r\033[K", stdout);
        fflush(stdout);
    }
    r->progress_shown = 0;
}

void tune_say(tune_run_t *r, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    log_line(r, buf);
    if (r->o.quiet) return;
    tune_progress_clear(r);
    char t[32];
    tune_fmt_time(tune_elapsed(r), t, sizeof t);
    printf("[%s] %s\n", t, buf);
    fflush(stdout);
}

void tune_log(tune_run_t *r, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    log_line(r, buf);
}

void tune_progress(tune_run_t *r, const char *fmt, ...)
{
    static double last_tty;
    const double now = tune_now();
    if (r->o.quiet) return;
    if (r->tty ? now - last_tty < 0.2 : now - r->last_plain < 15) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (r->tty) {
        last_tty = now;
        buf[150] = '\0'; /* one terminal line */
        printf("\r\033[K%s", buf);
        fflush(stdout);
        r->progress_shown = 1;
    } else {
        if (r->last_plain == 0) { /* the first status line after 15 s, not at once */
            r->last_plain = now;
            return;
        }
        r->last_plain = now;
        tune_say(r, "%s", buf);
    }
}
