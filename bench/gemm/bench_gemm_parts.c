/*
 * bench_gemm_parts.c -- clhgemm-bench-gemm --parts: the building blocks of our call
 * (src/core/gemm.h) on the problem's buffers, one after the other on the profiling queue, each
 * timed by its own event: where the call's time goes (the packs and the write-back around the
 * kernel). The whole problem as one block, as the library runs it when the workspace holds it;
 * the kernel reads the packs just made, so it runs on the real data. --parts-bk also times the
 * kernel as the host pipeline runs a tile (one accumulating launch per k slice). Needs the
 * library's internals (clhgemm_internal); apart from the runners because it drives the
 * library's blocks rather than its API.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>

#include "bench_gemm_priv.h"

#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
#include "core/gemm.h"
#include "tuning/tuning.h"

/* What the blocks of one problem share: its kernels, padded sizes and rep counts. */
typedef struct parts_s {
    const prob_t *p;
    cl_context ctx;
    chg_gemm_params_t gp;
    chg_gemm_kernels_t ks;
    size_t es, m, n, k, mpad, npad, kpad;
    size_t bk; /* --parts-bk's k slice, 0 without */
    int warmup, nrep, total;
} parts_t;

/* Pack A, pack B, the kernel and the write-back, warm-up and timed reps: t[block][rep] in ms. */
static cl_int parts_blocks(const parts_t *w, cl_mem ap, cl_mem bp, cl_mem cp, double *t[4])
{
    const prob_t *p = w->p;
    cl_int err = CL_SUCCESS;
    for (int r = 0; r < w->total && err == CL_SUCCESS; r++) {
        cl_event ev[4] = {NULL, NULL, NULL, NULL};
        err = chg_enqueue_pack_a(p->queue, &w->ks, w->m, w->k, p->A, 0, p->lda, ap, 0, 0, 0, NULL, &ev[0]);
        if (err == CL_SUCCESS)
            err = chg_enqueue_pack_b(p->queue, &w->ks, w->n, w->k, p->B, 0, p->ldb, bp, 0, 0, 0, NULL, &ev[1]);
        if (err == CL_SUCCESS)
            err = chg_enqueue_kernel(p->queue, &w->ks, w->mpad, w->npad, w->kpad, ap, 0, bp, 0, cp, 0, 0,
                                     NULL, &ev[2]);
        if (err == CL_SUCCESS)
            err = chg_enqueue_writeback(p->queue, &w->ks, w->m, w->n, p->alpha, p->beta, cp, w->mpad, p->C,
                                        0, p->ldc, 0, NULL, &ev[3]);
        if (err == CL_SUCCESS) err = clFinish(p->queue);
        for (int x = 0; x < 4; x++) {
            cl_ulong a = 0, b = 0;
            if (err == CL_SUCCESS && r >= w->warmup &&
                (clGetEventProfilingInfo(ev[x], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) != CL_SUCCESS ||
                 clGetEventProfilingInfo(ev[x], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) != CL_SUCCESS))
                err = CL_PROFILING_INFO_NOT_AVAILABLE;
            if (err == CL_SUCCESS && r >= w->warmup) t[x][r - w->warmup] = (double)(b - a) * 1e-6;
            if (ev[x]) clReleaseEvent(ev[x]);
        }
    }
    return err;
}

/* The reps of the sliced kernel: ns launches over the slices of bk packed in ap2, bp2 (bkp
 * apart, padded), accumulating into cp; tsl[rep] in ms, first launch's start to last launch's end. */
static cl_int parts_slice_reps(const parts_t *w, size_t bkp, size_t ns, cl_mem ap2, cl_mem bp2,
                               cl_mem cp, double *tsl)
{
    const prob_t *p = w->p;
    const size_t bk = w->bk;
    cl_int err = CL_SUCCESS;
    for (int r = 0; r < w->total && err == CL_SUCCESS; r++) {
        cl_event e0 = NULL, e1 = NULL;
        for (size_t s = 0; s < ns && err == CL_SUCCESS; s++) {
            const size_t kc = CHG_MIN(bk, w->k - s * bk);
            cl_event e = NULL;
            err = chg_enqueue_kernel(p->queue, &w->ks, w->mpad, w->npad, chg_round_up(kc, (size_t)w->gp.kwg),
                                     ap2, s * w->mpad * bkp, bp2, s * w->npad * bkp, cp, s > 0, 0, NULL, &e);
            if (s == 0) e0 = e;
            else if (e1) clReleaseEvent(e1);
            if (s > 0) e1 = e;
        }
        if (err == CL_SUCCESS) err = clFinish(p->queue);
        cl_ulong a = 0, b = 0;
        if (err == CL_SUCCESS &&
            (clGetEventProfilingInfo(e0, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) != CL_SUCCESS ||
             clGetEventProfilingInfo(e1 ? e1 : e0, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) != CL_SUCCESS))
            err = CL_PROFILING_INFO_NOT_AVAILABLE;
        if (err == CL_SUCCESS && r >= w->warmup) tsl[r - w->warmup] = (double)(b - a) * 1e-6;
        if (e0) clReleaseEvent(e0);
        if (e1) clReleaseEvent(e1);
    }
    return err;
}

/* --parts-bk: the same product as the host pipeline runs a tile, one launch per k slice
 * accumulating into Cp, each slice packed into its own region: what re-reading and
 * re-writing Cp in every slice costs against the single launch. *median stays 0 unless timed. */
static cl_int parts_slices(const parts_t *w, cl_mem cp, double *median)
{
    const prob_t *p = w->p;
    const size_t bk = w->bk, bkp = chg_round_up(bk, (size_t)w->gp.kwg), ns = (w->k + bk - 1) / bk;
    cl_int err;
    double *tsl = NULL;
    cl_mem bp2 = NULL;
    cl_mem ap2 = clCreateBuffer(w->ctx, CL_MEM_READ_WRITE, w->mpad * bkp * ns * w->es, NULL, &err);
    if (err == CL_SUCCESS)
        bp2 = clCreateBuffer(w->ctx, CL_MEM_READ_WRITE, w->npad * bkp * ns * w->es, NULL, &err);
    if (err == CL_SUCCESS && !(tsl = calloc((size_t)(w->nrep > 0 ? w->nrep : 1), sizeof(double))))
        err = CL_OUT_OF_HOST_MEMORY;
    for (size_t s = 0; s < ns && err == CL_SUCCESS; s++) {
        const size_t p0 = s * bk, kc = CHG_MIN(bk, w->k - p0);
        err = chg_enqueue_pack_a(p->queue, &w->ks, w->m, kc, p->A, p0 * (size_t)p->lda, p->lda, ap2,
                                 s * w->mpad * bkp, 0, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = chg_enqueue_pack_b(p->queue, &w->ks, w->n, kc, p->B, p0, p->ldb, bp2, s * w->npad * bkp, 0,
                                     0, NULL, NULL);
    }
    if (err == CL_SUCCESS) err = parts_slice_reps(w, bkp, ns, ap2, bp2, cp, tsl);
    if (err == CL_SUCCESS && w->nrep > 0) *median = bg_stats_of(tsl, w->nrep).median;
    free(tsl);
    if (ap2) clReleaseMemObject(ap2);
    if (bp2) clReleaseMemObject(bp2);
    return err;
}

/* The lines of --parts: the blocks' medians and their sum, and the sliced kernel's. */
static void parts_print(const parts_t *w, const shape_t *s, double *t[4], double sl_median)
{
    stats_t st4[4];
    double sum = 0;
    for (int x = 0; x < 4; x++) {
        st4[x] = bg_stats_of(t[x], w->nrep);
        sum += st4[x].median;
    }
    printf("    parts    pack A %.3f ms, pack B %.3f ms, kernel %.3f ms (%.1f GFLOP/s), "
           "write-back %.3f ms; sum %.3f ms (%.1f GFLOP/s)\n", st4[0].median, st4[1].median,
           st4[2].median, bg_gflops_of(s, 0, st4[2].median), st4[3].median, sum,
           bg_gflops_of(s, 0, sum));
    if (sl_median > 0) {
        const size_t ns = (w->k + w->bk - 1) / w->bk;
        printf("    parts    kernel in %zu slices of k = %zu: %.3f ms (%.1f GFLOP/s), %.2f x the single "
               "launch\n", ns, w->bk, sl_median, bg_gflops_of(s, 0, sl_median),
               sl_median / st4[2].median);
    }
}
#endif

void bg_parts_one(const ctx_t *c, const prob_t *p, const shape_t *s)
{
#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
    if (p->row) {
        printf("    parts: column-major only\n");
        return;
    }
    parts_t w = {.p = p, .warmup = c->o.warmup, .nrep = c->o.reps, .bk = (size_t)c->o.parts_bk};
    const chg_device_t *dev = NULL;
    if (chg_queue_device(p->queue, &dev, &w.ctx) != CLHGEMM_SUCCESS) return;
    const chg_precision_t prec = p->dbl ? CHG_F64 : CHG_F32;
    chg_gemm_params_select(dev, prec, &w.gp);
    clhgemm_status_t st =
        chg_gemm_kernels_create(w.ctx, dev, prec, &w.gp, p->ta, p->tb, p->beta == 0.0, &w.ks);
    if (st != CLHGEMM_SUCCESS) {
        printf("    parts: kernels: %s\n", clhgemm_status_string(st));
        return;
    }
    w.total = w.warmup + w.nrep;
    w.es = p->dbl ? 8 : 4;
    w.m = (size_t)p->m;
    w.n = (size_t)p->n;
    w.k = (size_t)p->k;
    w.mpad = chg_round_up(w.m, (size_t)w.gp.mwg);
    w.npad = chg_round_up(w.n, (size_t)w.gp.nwg);
    w.kpad = chg_round_up(w.k, (size_t)w.gp.kwg);
    cl_int err;
    cl_mem ap = clCreateBuffer(w.ctx, CL_MEM_READ_WRITE, w.mpad * w.kpad * w.es, NULL, &err);
    cl_mem bp = NULL, cp = NULL;
    if (err == CL_SUCCESS) bp = clCreateBuffer(w.ctx, CL_MEM_READ_WRITE, w.npad * w.kpad * w.es, NULL, &err);
    if (err == CL_SUCCESS) cp = clCreateBuffer(w.ctx, CL_MEM_READ_WRITE, w.mpad * w.npad * w.es, NULL, &err);
    double *t[4];
    for (int x = 0; x < 4; x++) t[x] = calloc((size_t)(w.nrep > 0 ? w.nrep : 1), sizeof(double));
    if (!t[0] || !t[1] || !t[2] || !t[3]) err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) err = parts_blocks(&w, ap, bp, cp, t);
    double sl_median = 0;
    if (err == CL_SUCCESS && w.bk && (p->ta || p->tb)) printf("    parts: --parts-bk times NN only\n");
    else if (err == CL_SUCCESS && w.bk) err = parts_slices(&w, cp, &sl_median);
    if (err == CL_SUCCESS && w.nrep > 0) parts_print(&w, s, t, sl_median);
    else printf("    parts: %s\n", clhgemm_status_string(err));
    for (int x = 0; x < 4; x++) free(t[x]);
    if (ap) clReleaseMemObject(ap);
    if (bp) clReleaseMemObject(bp);
    if (cp) clReleaseMemObject(cp);
    chg_gemm_kernels_release(&w.ks);
#else
    (void)c;
    (void)p;
    (void)s;
    printf("    parts: needs the library's internals (clhgemm_internal)\n");
#endif
}
