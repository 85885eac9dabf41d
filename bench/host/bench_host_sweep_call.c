/*
 * bench_host_sweep_call.c -- the ways clhgemm-bench-host --sweep makes a call, and how it times
 * them: ours on a handle (clhgemm_?gemm), OpenBLAS alone (cblas_?gemm) and the device-only
 * kernel (clhgemm_?gemm_cl on buffers already on the device, enqueued back to back); samples of
 * >= 20 ms each (small n: many calls, per-call time), and for small n ours and OpenBLAS in
 * paired samples taken back to back. What a case does with them is bench_host_sweep_case.c's.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "bench_host_sweep_int.h"
#include "common/bench_util.h"

#ifdef CLHGEMM_HAVE_OPENBLAS
#include <cblas.h>
#endif

int sw_ours(sw_call_t *c, int inner)
{
    const opts_t *o = c->o;
    const int n = c->n;
    for (int i = 0; i < inner; i++) {
        clhgemm_status_t st =
            c->dbl ? clhgemm_dgemm(c->h, o->layout, o->ta, o->tb, n, n, n, 1.0, c->A, n, c->B, n,
                                   c->beta, c->C, n)
                   : clhgemm_sgemm(c->h, o->layout, o->ta, o->tb, n, n, n, 1.0f, c->A, n, c->B, n,
                                   (float)c->beta, c->C, n);
        if (st != CLHGEMM_SUCCESS) return (int)st;
    }
    return 0;
}

#ifdef CLHGEMM_HAVE_OPENBLAS
int sw_openblas(sw_call_t *c, int inner)
{
    const opts_t *o = c->o;
    const int n = c->n;
    const enum CBLAS_ORDER lay = o->layout == CLHGEMM_ROW_MAJOR ? CblasRowMajor : CblasColMajor;
    const enum CBLAS_TRANSPOSE ta = o->ta == CLHGEMM_NO_TRANS ? CblasNoTrans : CblasTrans;
    const enum CBLAS_TRANSPOSE tb = o->tb == CLHGEMM_NO_TRANS ? CblasNoTrans : CblasTrans;
    for (int i = 0; i < inner; i++) {
        if (c->dbl)
            cblas_dgemm(lay, ta, tb, n, n, n, 1.0, c->A, n, c->B, n, c->beta, c->C, n);
        else
            cblas_sgemm(lay, ta, tb, n, n, n, 1.0f, c->A, n, c->B, n, (float)c->beta, c->C, n);
    }
    return 0;
}
#endif

/* Device-only: `inner` kernels enqueued back to back, the wait on the last (in-order queue). */
int sw_device(sw_call_t *c, int inner)
{
    const opts_t *o = c->o;
    const int n = c->n;
    cl_event ev = NULL;
    for (int i = 0; i < inner; i++) {
        cl_event *pe = i == inner - 1 ? &ev : NULL;
        clhgemm_status_t st =
            c->dbl ? clhgemm_dgemm_cl(o->layout, o->ta, o->tb, n, n, n, 1.0, c->bA, 0, n, c->bB, 0,
                                      n, c->beta, c->bC, 0, n, c->q, pe)
                   : clhgemm_sgemm_cl(o->layout, o->ta, o->tb, n, n, n, 1.0f, c->bA, 0, n, c->bB, 0,
                                      n, (float)c->beta, c->bC, 0, n, c->q, pe);
        if (st != CLHGEMM_SUCCESS) {
            clFinish(c->q);
            return (int)st;
        }
    }
    return (int)wait_event(ev);
}

/* Times fn: `warmup` untimed calls, then `reps` samples of `inner` calls each, per-call times in
 * *s (ms). inner is 1 when the last warm-up call (or, without one, hint_ms: a call made just
 * before) took >= 20 ms; else a pilot grows a batch until it lasts >= 2 ms and inner is sized
 * from its rate so that a sample lasts >= 20 ms. Returns 0 or the first error. */
int sw_time(sw_fn fn, sw_call_t *c, int warmup, int reps, double hint_ms, stats_t *s,
                   int *inner_out)
{
    double last = hint_ms;
    for (int i = 0; i < warmup; i++) {
        const double a = now_ms();
        int e = fn(c, 1);
        if (e) return e;
        last = now_ms() - a;
    }
    int inner = 1;
    if (!(last >= SWEEP_MIN_SAMPLE_MS)) {
        int k = 1;
        double t;
        for (;;) {
            const double a = now_ms();
            int e = fn(c, k);
            if (e) return e;
            t = now_ms() - a;
            if (t >= 2.0 || k >= SWEEP_MAX_INNER) break;
            k = k > SWEEP_MAX_INNER / 10 ? SWEEP_MAX_INNER : k * 10;
        }
        const double per = t / k;
        const double want = per > 0 ? ceil(SWEEP_MIN_SAMPLE_MS / per) : SWEEP_MAX_INNER;
        inner = want < 1 ? 1 : want > SWEEP_MAX_INNER ? SWEEP_MAX_INNER : (int)want;
    }
    double *v = malloc((size_t)reps * sizeof *v);
    if (!v) return CLHGEMM_OUT_OF_HOST_MEMORY;
    for (int r = 0; r < reps; r++) {
        const double a = now_ms();
        int e = fn(c, inner);
        if (e) {
            free(v);
            return e;
        }
        v[r] = (now_ms() - a) / inner;
    }
    *s = stats_of(v, reps);
    free(v);
    *inner_out = inner;
    return 0;
}

/* Small calls, ours against OpenBLAS in time: 2 * reps + 1 pairs of samples taken back to back
 * (the order alternating), so that both see the same state of the machine (OpenBLAS's threads
 * waking, the clock); the median of the pairs' ratios. A CPU-routed call is OpenBLAS's own
 * call: the ratio shows what the routing costs, not OpenBLAS's noise between two separate
 * timings. */
double sw_paired(sw_call_t *ours, sw_call_t *ob, int in_ours, int in_ob, int reps)
{
#ifdef CLHGEMM_HAVE_OPENBLAS
    const int pairs = 2 * reps + 1;
    double *v = malloc((size_t)pairs * sizeof *v);
    if (!v) return NAN;
    for (int p = 0; p < pairs; p++) {
        double t[2];
        for (int s = 0; s < 2; s++) {
            const int which = (p + s) % 2; /* 0: ours, 1: OpenBLAS */
            const double a = now_ms();
            if (which ? sw_openblas(ob, in_ob) : sw_ours(ours, in_ours)) {
                free(v);
                return NAN;
            }
            t[which] = (now_ms() - a) / (which ? in_ob : in_ours);
        }
        v[p] = t[1] > 0 ? t[0] / t[1] : NAN;
    }
    const stats_t st = stats_of(v, pairs);
    free(v);
    return st.median;
#else
    (void)ours, (void)ob, (void)in_ours, (void)in_ob, (void)reps;
    return NAN;
#endif
}
