/*
 * bench_gemm_runners.c -- clhgemm-bench-gemm's competitors on one problem: ours (tuned, and
 * with its built-in parameters for --defaults) and CLBlast on the same device buffers and
 * queue, each checked on its first call and then timed in interleaved reps; cuBLAS on its own
 * copies (bench/cuda/cublas_ref.c); OpenBLAS on host copies. Each runner fills its columns of the
 * shape's row (figures, check errors, or the note why there is none) and prints the lines of
 * what went wrong; the row's result lines are the report's (bench_gemm_report.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm_priv.h"
#include "common/bench_util.h"

#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
#include "tuning/tuning.h"
#endif
#ifdef CLHGEMM_HAVE_CLBLAST
#include <clblast_c.h>
#endif
#ifdef CLHGEMM_HAVE_CUBLAS
#include "cuda/cublas_ref.h"
#endif
#ifdef CLHGEMM_HAVE_OPENBLAS
#include <cblas.h>
#endif

/* ---- the OpenCL libraries ----------------------------------------------------------------- */

/* Ours on a complex problem (alpha and beta real, as the real problems', in complex form). */
static clhgemm_status_t ours_complex(const prob_t *p, clhgemm_layout_t lay, clhgemm_transpose_t ta,
                                     clhgemm_transpose_t tb, cl_event *ev)
{
    const double al[2] = {p->alpha, 0.0}, be[2] = {p->beta, 0.0};
    const float fa[2] = {(float)p->alpha, 0.0f}, fb[2] = {(float)p->beta, 0.0f};
    if (p->dbl)
        return clhgemm_zgemm_cl(lay, ta, tb, p->m, p->n, p->k, al, p->A, 0, (int)p->lda, p->B, 0,
                                (int)p->ldb, be, p->C, 0, (int)p->ldc, p->queue, ev);
    return clhgemm_cgemm_cl(lay, ta, tb, p->m, p->n, p->k, fa, p->A, 0, (int)p->lda, p->B, 0,
                            (int)p->ldb, fb, p->C, 0, (int)p->ldc, p->queue, ev);
}

#ifdef CLHGEMM_HAVE_CLBLAST
/* CLBlast on a complex problem. */
static CLBlastStatusCode clblast_complex(const prob_t *p, CLBlastLayout lay, CLBlastTranspose ta,
                                         CLBlastTranspose tb, cl_command_queue *q, cl_event *ev)
{
    if (p->dbl) {
        const cl_double2 al = {{p->alpha, 0.0}}, be = {{p->beta, 0.0}};
        return CLBlastZgemm(lay, ta, tb, (size_t)p->m, (size_t)p->n, (size_t)p->k, al, p->A, 0,
                            p->lda, p->B, 0, p->ldb, be, p->C, 0, p->ldc, q, ev);
    }
    const cl_float2 al = {{(float)p->alpha, 0.0f}}, be = {{(float)p->beta, 0.0f}};
    return CLBlastCgemm(lay, ta, tb, (size_t)p->m, (size_t)p->n, (size_t)p->k, al, p->A, 0, p->lda,
                        p->B, 0, p->ldb, be, p->C, 0, p->ldc, q, ev);
}
#endif

/* Enqueues one call of library `lib` on p; returns 0 or an error, with *ev set on success. */
static int enqueue_lib(int lib, const prob_t *p, cl_event *ev, char *why, size_t whylen)
{
    *ev = NULL;
    if (lib == LIB_OURS || lib == LIB_DEFAULT) {
        const clhgemm_layout_t lay = p->row ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
        const clhgemm_transpose_t ta = p->ta ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
        const clhgemm_transpose_t tb = p->tb ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
        /* The parameters are selected when the call enqueues: bypass the database around it. */
        if (lib == LIB_DEFAULT) chg_tuning_set_bypass(1);
#else
        if (lib == LIB_DEFAULT) {
            snprintf(why, whylen, "needs clhgemm_internal");
            return -1;
        }
#endif
        clhgemm_status_t st =
            p->cplx ? ours_complex(p, lay, ta, tb, ev)
            : p->dbl ? clhgemm_dgemm_cl(lay, ta, tb, p->m, p->n, p->k, p->alpha, p->A, 0,
                                        (int)p->lda, p->B, 0, (int)p->ldb, p->beta, p->C, 0,
                                        (int)p->ldc, p->queue, ev)
                     : clhgemm_sgemm_cl(lay, ta, tb, p->m, p->n, p->k, (float)p->alpha, p->A, 0,
                                        (int)p->lda, p->B, 0, (int)p->ldb, (float)p->beta, p->C, 0,
                                        (int)p->ldc, p->queue, ev);
#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
        if (lib == LIB_DEFAULT) chg_tuning_set_bypass(0);
#endif
        if (st != CLHGEMM_SUCCESS) {
            snprintf(why, whylen, "clhgemm: %s (%d): %s", clhgemm_status_string(st), (int)st,
                     clhgemm_status_message(st));
            return -1;
        }
        if (!*ev) {
            snprintf(why, whylen, "clhgemm returned no event");
            return -1;
        }
        return 0;
    }
#ifdef CLHGEMM_HAVE_CLBLAST
    if (lib == LIB_CLBLAST) {
        const CLBlastLayout lay = p->row ? CLBlastLayoutRowMajor : CLBlastLayoutColMajor;
        const CLBlastTranspose ta = p->ta ? CLBlastTransposeYes : CLBlastTransposeNo;
        const CLBlastTranspose tb = p->tb ? CLBlastTransposeYes : CLBlastTransposeNo;
        cl_command_queue q = p->queue;
        CLBlastStatusCode st =
            p->cplx ? clblast_complex(p, lay, ta, tb, &q, ev)
            : p->dbl ? CLBlastDgemm(lay, ta, tb, (size_t)p->m, (size_t)p->n, (size_t)p->k, p->alpha,
                                  p->A, 0, p->lda, p->B, 0, p->ldb, p->beta, p->C, 0, p->ldc, &q, ev)
                   : CLBlastSgemm(lay, ta, tb, (size_t)p->m, (size_t)p->n, (size_t)p->k,
                                  (float)p->alpha, p->A, 0, p->lda, p->B, 0, p->ldb,
                                  (float)p->beta, p->C, 0, p->ldc, &q, ev);
        if (st != CLBlastSuccess) {
            snprintf(why, whylen, "CLBlast status %d", (int)st);
            return -1;
        }
        if (!*ev) {
            snprintf(why, whylen, "CLBlast returned no event");
            return -1;
        }
        return 0;
    }
#endif
    snprintf(why, whylen, "not built in");
    return -1;
}

/* One rep: (marker) enqueue, wait. Host ms around enqueue->wait; device ms from the marker's
 * start to the end of the returned event when profiling (NAN if unavailable). */
static int run_once(int lib, const prob_t *p, int profile, double *host_ms, double *dev_ms,
                    char *why, size_t whylen)
{
    cl_event marker = NULL, ev = NULL;
    *dev_ms = NAN;
    if (profile && clEnqueueMarkerWithWaitList(p->queue, 0, NULL, &marker) != CL_SUCCESS) marker = NULL;
    double t0 = now_ms();
    if (enqueue_lib(lib, p, &ev, why, whylen)) {
        if (marker) clReleaseEvent(marker);
        clFinish(p->queue);
        return -1;
    }
    cl_int err = clWaitForEvents(1, &ev);
    double t1 = now_ms();
    cl_int exec = CL_COMPLETE;
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    if (err != CL_SUCCESS || exec < 0) {
        snprintf(why, whylen, "%s: wait failed (%s, status %d)", bg_lib_title[lib],
                 clhgemm_status_string(err), (int)exec);
        clReleaseEvent(ev);
        if (marker) clReleaseEvent(marker);
        return -1;
    }
    *host_ms = t1 - t0;
    if (marker) {
        cl_ulong s = 0, e = 0;
        if (clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL) == CL_SUCCESS &&
            e >= s)
            *dev_ms = (double)(e - s) * 1e-6;
        clReleaseEvent(marker);
    }
    clReleaseEvent(ev);
    return 0;
}

/* Device buffers of A, B and C (C0) for p, filled from the host copies; CL_SUCCESS or the
 * error (the buffers made stay in p for bg_run_opencl to release). */
static cl_int cl_buffers(const ctx_t *c, prob_t *p, const host_mats_t *h)
{
    const size_t es = bg_es(p->dbl, p->cplx);
    cl_int err;
    p->A = clCreateBuffer(c->context, CL_MEM_READ_WRITE, p->na * es, NULL, &err);
    if (p->A) p->B = clCreateBuffer(c->context, CL_MEM_READ_WRITE, p->nb * es, NULL, &err);
    if (p->B) p->C = clCreateBuffer(c->context, CL_MEM_READ_WRITE, p->nc * es, NULL, &err);
    if (p->C) err = clEnqueueWriteBuffer(c->queue, p->A, CL_TRUE, 0, p->na * es, h->A, 0, NULL, NULL);
    if (p->C && err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(c->queue, p->B, CL_TRUE, 0, p->nb * es, h->B, 0, NULL, NULL);
    if (p->C && err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(c->queue, p->C, CL_TRUE, 0, p->nc * es, h->C0, 0, NULL, NULL);
    return err;
}

/* Correctness check (also the first call: kernel builds happen here): each active library
 * from C0, its result read back into its host copy and checked; one that fails is made
 * inactive with its note. Then C0 is restored so that timing starts from the same C. */
static void cl_first_calls(const ctx_t *c, const prob_t *p, const host_mats_t *h, row_t *row,
                           int *active)
{
    const opts_t *o = &c->o;
    const size_t es = bg_es(p->dbl, p->cplx);
    char why[256];
    for (int l = 0; l < NCL; l++) {
        if (!active[l]) continue;
        double hms, dms;
        void *dst = l == LIB_OURS ? h->Cours : l == LIB_CLBLAST ? h->Cref : h->Cdef;
        cl_int err = clEnqueueWriteBuffer(c->queue, p->C, CL_TRUE, 0, p->nc * es, h->C0, 0, NULL, NULL);
        double t0 = now_ms();
        if (err != CL_SUCCESS || run_once(l, p, 0, &hms, &dms, why, sizeof why)) {
            if (err != CL_SUCCESS) snprintf(why, sizeof why, "write C: %s", clhgemm_status_string(err));
            snprintf(row->r[l].note, sizeof row->r[l].note, "%s", why);
            printf("    %s failed: %s\n", bg_lib_title[l], why);
            active[l] = 0;
            continue;
        }
        double first = now_ms() - t0;
        err = clEnqueueReadBuffer(c->queue, p->C, CL_TRUE, 0, p->nc * es, dst, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            snprintf(row->r[l].note, sizeof row->r[l].note, "read C: %s", clhgemm_status_string(err));
            active[l] = 0;
            continue;
        }
        printf("    %-8s first call %.1f ms (includes any kernel build)\n", bg_lib_title[l], first);
        if (o->check) row->r[l].err = bg_cheap_check(p, h->A, h->B, h->C0, dst);
    }
    if (o->check && active[LIB_OURS] && active[LIB_CLBLAST])
        row->r[LIB_OURS].err_ref = bg_compare_full(p, h->Cours, h->Cref);
    if (clEnqueueWriteBuffer(c->queue, p->C, CL_TRUE, 0, p->nc * es, h->C0, 0, NULL, NULL) != CL_SUCCESS) {
        active[0] = active[1] = active[2] = 0;
        snprintf(row->r[0].note, sizeof row->r[0].note, "could not restore C");
    }
}

/* Warm-up, then interleaved timed reps of the active libraries; the statistics into the row. */
static void cl_timed_reps(const ctx_t *c, const prob_t *p, row_t *row, int *active)
{
    const opts_t *o = &c->o;
    char why[256];
    double *hms[NCL], *dms[NCL];
    int nrep = o->reps;
    for (int l = 0; l < NCL; l++) {
        hms[l] = calloc((size_t)nrep, sizeof(double));
        dms[l] = calloc((size_t)nrep, sizeof(double));
    }
    for (int w = 0; w < o->warmup; w++)
        for (int l = 0; l < NCL; l++) {
            double hh, d;
            if (active[l] && run_once(l, p, 0, &hh, &d, why, sizeof why)) {
                snprintf(row->r[l].note, sizeof row->r[l].note, "%s", why);
                printf("    %s failed in warm-up: %s\n", bg_lib_title[l], why);
                active[l] = 0;
            }
        }
    for (int r = 0; r < nrep; r++)
        for (int l = 0; l < NCL; l++) {
            if (!active[l] || !hms[l] || !dms[l]) continue;
            if (run_once(l, p, o->profile, &hms[l][r], &dms[l][r], why, sizeof why)) {
                snprintf(row->r[l].note, sizeof row->r[l].note, "%s", why);
                printf("    %s failed in rep %d: %s\n", bg_lib_title[l], r, why);
                active[l] = 0;
            }
        }
    for (int l = 0; l < NCL; l++) {
        if (active[l] && hms[l] && dms[l]) {
            row->r[l].ran = 1;
            row->r[l].host = bg_stats_of(hms[l], nrep);
            if (o->profile) {
                int ok = 1;
                for (int r = 0; r < nrep; r++) ok &= !isnan(dms[l][r]);
                if (ok) row->r[l].dev = bg_stats_of(dms[l], nrep);
            }
        }
        free(hms[l]);
        free(dms[l]);
    }
}

void bg_run_opencl(const ctx_t *c, prob_t *p, const host_mats_t *h, row_t *row)
{
    const opts_t *o = &c->o;
    const cl_int err = cl_buffers(c, p, h);
    if (err != CL_SUCCESS) {
        for (int l = 0; l < NCL; l++)
            snprintf(row->r[l].note, sizeof row->r[l].note, "device buffers: %s", clhgemm_status_string(err));
        printf("    OpenCL buffers failed: %s\n", clhgemm_status_string(err));
    } else {
        int active[NCL] = {1, c->have_clblast, o->defaults};
        char *note = row->r[LIB_CLBLAST].note;
        const size_t notelen = sizeof row->r[LIB_CLBLAST].note;
        if (!o->clblast) snprintf(note, notelen, "--no-clblast");
        else if (!c->have_clblast) snprintf(note, notelen, "not built with CLBlast");
        cl_first_calls(c, p, h, row, active);
        cl_timed_reps(c, p, row, active);
        if (o->parts && active[LIB_OURS] && !p->cplx) bg_parts_one(c, p, &row->shape);
    }
    /* Free the OpenCL buffers before cuBLAS allocates its own copies on the same GPU. */
    clFinish(c->queue);
    if (p->A) clReleaseMemObject(p->A);
    if (p->B) clReleaseMemObject(p->B);
    if (p->C) clReleaseMemObject(p->C);
    p->A = p->B = p->C = NULL;
}

/* ---- cuBLAS ------------------------------------------------------------------------------- */

/* cuBLAS's gemm of the kind (cublas_ref.h) into result r, the rest as bg_run_cublas. */
static void cublas_kind(const ctx_t *c, const prob_t *p, const host_mats_t *h, int kind,
                        result_t *r)
{
#ifdef CLHGEMM_HAVE_CUBLAS
    const opts_t *o = &c->o;
    /* Column-major view: a row-major C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T,
     * i.e. the same buffers with A and B (and m and n) swapped. */
    const double al[2] = {p->alpha, 0.0}, be[2] = {p->beta, 0.0};
    void *Cw = malloc(p->nc * bg_es(p->dbl, p->cplx));
    const int rc =
        !p->row ? cublas_ref_gemm_kind(kind, p->ta, p->tb, p->m, p->n, p->k, h->A, (int)p->lda,
                                       h->B, (int)p->ldb, h->C0, (int)p->ldc, al, be, o->warmup,
                                       o->reps, &r->host.median, &r->host.min, &r->host.max, Cw)
                : cublas_ref_gemm_kind(kind, p->tb, p->ta, p->n, p->m, p->k, h->B, (int)p->ldb,
                                       h->A, (int)p->lda, h->C0, (int)p->ldc, al, be, o->warmup,
                                       o->reps, &r->host.median, &r->host.min, &r->host.max, Cw);
    if (rc == 0) {
        r->ran = 1;
        if (o->check && Cw) r->err = bg_cheap_check(p, h->A, h->B, h->C0, Cw);
    } else {
        snprintf(r->note, sizeof r->note, "%s", cublas_ref_last_error());
    }
    free(Cw);
#else
    (void)c, (void)p, (void)h, (void)kind, (void)r;
#endif
}

void bg_run_cublas(const ctx_t *c, const prob_t *p, const host_mats_t *h, row_t *row)
{
    const opts_t *o = &c->o;
    result_t *r = &row->r[LIB_CUBLAS];
    if (!p->cplx)
        snprintf(row->r[LIB_CUBLAS3M].note, sizeof row->r[LIB_CUBLAS3M].note, "complex only");
    if (!o->cublas) {
        snprintf(r->note, sizeof r->note, "--no-cublas");
    } else if (!c->have_cublas) {
#ifdef CLHGEMM_HAVE_CUBLAS
        snprintf(r->note, sizeof r->note, "no CUDA device");
#else
        snprintf(r->note, sizeof r->note, "not built with cuBLAS");
#endif
    } else {
#ifdef CLHGEMM_HAVE_CUBLAS
        const int pi = bg_pi(p->dbl, p->cplx); /* s, d, c, z: CUBLAS_REF_S .. _Z */
        cublas_kind(c, p, h, pi, r);
        /* the 3M form beside the complex product (cuBLAS's opt-in of its own) */
        if (p->cplx)
            cublas_kind(c, p, h, p->dbl ? CUBLAS_REF_Z3M : CUBLAS_REF_C3M, &row->r[LIB_CUBLAS3M]);
#else
        (void)p;
        (void)h;
        (void)cublas_kind;
#endif
    }
    if (r->note[0] && p->cplx && !row->r[LIB_CUBLAS3M].ran && !row->r[LIB_CUBLAS3M].note[0])
        snprintf(row->r[LIB_CUBLAS3M].note, sizeof row->r[LIB_CUBLAS3M].note, "%s", r->note);
}

/* ---- OpenBLAS ----------------------------------------------------------------------------- */

#ifdef CLHGEMM_HAVE_OPENBLAS
/* One call of OpenBLAS on the host copies, into Cw. */
static void openblas_call(const prob_t *p, const host_mats_t *h, void *Cw)
{
    const int lda = (int)p->lda, ldb = (int)p->ldb, ldc = (int)p->ldc;
    const double al[2] = {p->alpha, 0.0}, be[2] = {p->beta, 0.0};
    const float fa[2] = {(float)p->alpha, 0.0f}, fb[2] = {(float)p->beta, 0.0f};
    if (p->cplx) {
        const void *ca = p->dbl ? (const void *)al : (const void *)fa;
        const void *cb = p->dbl ? (const void *)be : (const void *)fb;
        (p->dbl ? cblas_zgemm : cblas_cgemm)(p->row ? CblasRowMajor : CblasColMajor,
                                             p->ta ? CblasTrans : CblasNoTrans,
                                             p->tb ? CblasTrans : CblasNoTrans, p->m, p->n, p->k,
                                             ca, h->A, lda, h->B, ldb, cb, Cw, ldc);
    } else if (p->dbl)
        cblas_dgemm(p->row ? CblasRowMajor : CblasColMajor, p->ta ? CblasTrans : CblasNoTrans,
                    p->tb ? CblasTrans : CblasNoTrans, p->m, p->n, p->k, p->alpha,
                    (const double *)h->A, lda, (const double *)h->B, ldb, p->beta, (double *)Cw, ldc);
    else
        cblas_sgemm(p->row ? CblasRowMajor : CblasColMajor, p->ta ? CblasTrans : CblasNoTrans,
                    p->tb ? CblasTrans : CblasNoTrans, p->m, p->n, p->k, (float)p->alpha,
                    (const float *)h->A, lda, (const float *)h->B, ldb, (float)p->beta, (float *)Cw,
                    ldc);
}
#endif

void bg_run_openblas(const ctx_t *c, const prob_t *p, const host_mats_t *h, row_t *row)
{
    const opts_t *o = &c->o;
    const shape_t *s = &row->shape;
    result_t *r = &row->r[LIB_OPENBLAS];
    if (!o->openblas) {
        snprintf(r->note, sizeof r->note, "off (--openblas)");
    } else if (!c->have_openblas) {
        snprintf(r->note, sizeof r->note, "not built with OpenBLAS");
    } else if (!o->openblas_all && (s->m > 4096 || s->n > 4096 || s->k > 4096)) {
        snprintf(r->note, sizeof r->note, "size > 4096 (--openblas-all)");
    } else {
#ifdef CLHGEMM_HAVE_OPENBLAS
        void *Cw = malloc(p->nc * bg_es(p->dbl, p->cplx));
        double *t = calloc((size_t)o->reps, sizeof(double));
        if (Cw && t) {
            memcpy(Cw, h->C0, p->nc * bg_es(p->dbl, p->cplx));
            openblas_call(p, h, Cw);
            if (o->check) r->err = bg_cheap_check(p, h->A, h->B, h->C0, Cw);
            for (int w = 0; w < o->warmup; w++) openblas_call(p, h, Cw);
            for (int i = 0; i < o->reps; i++) {
                double t0 = now_ms();
                openblas_call(p, h, Cw);
                t[i] = now_ms() - t0;
            }
            r->ran = 1;
            r->host = bg_stats_of(t, o->reps);
        } else {
            snprintf(r->note, sizeof r->note, "out of host memory");
        }
        free(t);
        free(Cw);
#else
        (void)p;
        (void)h;
#endif
    }
}
