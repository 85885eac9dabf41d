/*
 * tune_gemm_problem.c -- the problem clhgemm-tune's GEMM search times its candidates on: random
 * n x n operands (never zeros) on the host and the device, packed with the library's own pack
 * kernels (the tuned copy parameters where there are some), each candidate's result checked
 * (the first good one against A*(B*t) in long double, later ones element-wise against it), the
 * kernel alone timed for the search and whole device calls (packs, kernel, write-back) for the
 * final round. Everything here touches the device; what to try and what to keep is the phase's.
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gemm.h"
#include "tune_gemm_int.h"

/* ---- setting up ------------------------------------------------------------------------------ */

static clhgemm_status_t copy_kernel(const tdev_t *d, const chg_copy_params_t *cp, cl_kernel *out)
{
    chg_str_t src;
    chg_str_init(&src);
    const char *name = NULL;
    if (chg_copy_generate(&d->dev, cp, &src, &name) != 0) {
        chg_str_free(&src);
        return CLHGEMM_INVALID_ARGUMENT;
    }
    cl_program prog;
    clhgemm_status_t st = chg_program_get(d->ctx, &d->dev, "tune-copy", src.data,
                                          chg_build_options(&d->dev), &prog);
    chg_str_free(&src);
    if (st != CLHGEMM_SUCCESS) return st;
    cl_int err;
    *out = clCreateKernel(prog, name, &err);
    return (clhgemm_status_t)err;
}

/* Host operands and the device buffers, sized for the largest padding any candidate needs. */
static int setup_buffers(search_t *s)
{
    const tdev_t *d = s->d;
    const size_t n = (size_t)s->size, es = s->es;
    /* the largest padded extent any candidate's tiles give (tiles of 96 and 192 do not divide
     * powers of two: n = 4096 pads to 4224 with 192) */
    s->mmax = chg_round_up(n, 256);
    s->kmax = chg_round_up(n, 32);
    for (int i = 0; i < s->n; i++) {
        const chg_gemm_params_t *p = &s->c[i].p;
        s->mmax = CHG_MAX(s->mmax, CHG_MAX(chg_round_up(n, (size_t)p->mwg), chg_round_up(n, (size_t)p->nwg)));
        s->kmax = CHG_MAX(s->kmax, chg_round_up(n, (size_t)p->kwg));
    }
    cl_int err;
    const size_t nn = n * n * es;
    s->hA = malloc(nn);
    s->hB = malloc(nn);
    s->hC0 = malloc(nn);
    s->got = malloc(s->mmax * s->mmax * es);
    if (!s->hA || !s->hB || !s->hC0 || !s->got) return -1;
    tune_fill(s->hA, s->prec == CHG_F64, n * n, s->r->o.seed ^ 0xA11CEULL);
    tune_fill(s->hB, s->prec == CHG_F64, n * n, s->r->o.seed ^ 0xB0BULL);
    tune_fill(s->hC0, s->prec == CHG_F64, n * n, s->r->o.seed ^ 0xC0FFEEULL);
    s->A = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, nn, s->hA, &err);
    if (err == CL_SUCCESS)
        s->B = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, nn, s->hB, &err);
    if (err == CL_SUCCESS)
        s->C = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, nn, s->hC0, &err);
    if (err == CL_SUCCESS) s->Ap = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, s->mmax * s->kmax * es, NULL, &err);
    if (err == CL_SUCCESS) s->Bp = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, s->mmax * s->kmax * es, NULL, &err);
    if (err == CL_SUCCESS) s->Cp = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, s->mmax * s->mmax * es, NULL, &err);
    if (err != CL_SUCCESS) {
        tune_say(s->r, "%s device buffers for n = %d failed: %s", d->log_prefix, s->size,
                 clhgemm_status_string(err));
        return -1;
    }
    return 0;
}

/* The library's pack and write-back kernels: the tuned copy parameters when this run (or the
 * database) has them, as in the library. */
static int setup_pack_kernels(search_t *s)
{
    const tdev_t *d = s->d;
    chg_gemm_kernels_t *ks = &s->ks;
    memset(ks, 0, sizeof *ks);
    ks->prec = s->prec;
    const chg_tuning_prec_t *tp = &d->rec.prec[s->prec];
    if (tp->has_copy) {
        ks->cpa = tp->pack;
        ks->cpb = tp->pack_t;
    } else {
        chg_tuning_copy_params(&d->dev, s->prec, CHG_COPY_PACK, 1, &ks->cpa);
        chg_tuning_copy_params(&d->dev, s->prec, CHG_COPY_PACK, 0, &ks->cpb);
    }
    ks->cpa.src_contig_i = 1; /* A not transposed */
    ks->cpb.src_contig_i = 0; /* B not transposed: op(B)^T runs along k */
    chg_copy_params_default(&d->dev, CHG_COPY_WRITEBACK, s->prec, &ks->cpw);
    clhgemm_status_t st = copy_kernel(d, &ks->cpa, &ks->pack_a);
    if (st == CLHGEMM_SUCCESS) st = copy_kernel(d, &ks->cpb, &ks->pack_b);
    if (st == CLHGEMM_SUCCESS) st = copy_kernel(d, &ks->cpw, &ks->wb);
    if (st != CLHGEMM_SUCCESS) {
        tune_say(s->r, "%s the pack kernels failed to build: %s", d->log_prefix,
                 clhgemm_status_string(st));
        return -1;
    }
    return 0;
}

int tg_setup_problem(search_t *s)
{
    if (setup_buffers(s) != 0) return -1;
    return setup_pack_kernels(s);
}

void tg_free_problem(search_t *s)
{
    cl_mem *m[] = {&s->A, &s->B, &s->C, &s->Ap, &s->Bp, &s->Cp};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (*m[i]) clReleaseMemObject(*m[i]);
    s->ks.gemm = NULL;
    chg_gemm_kernels_release(&s->ks);
    free(s->hA);
    free(s->hB);
    free(s->hC0);
    free(s->got);
    free(s->ref);
}

/* ---- checking -------------------------------------------------------------------------------- */

static double elem(const void *p, int dbl, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

/* A*(B*t) vs Cp*t in long double; returns max|diff| / (max|ref| k eps). */
static double cheap_check(const search_t *s, const void *cp, size_t ldcp)
{
    const size_t n = (size_t)s->size;
    const int dbl = s->prec == CHG_F64;
    long double *t = malloc(n * sizeof *t), *w = calloc(n, sizeof *w), *u = calloc(n, sizeof *u),
                *y = calloc(n, sizeof *y);
    double result = INFINITY;
    if (!t || !w || !u || !y) goto out;
    unsigned long long st = 0x7E57ULL;
    for (size_t j = 0; j < n; j++) t[j] = tune_uniform(&st);
    for (size_t j = 0; j < n; j++)       /* w = B t */
        for (size_t p = 0; p < n; p++) w[p] += (long double)elem(s->hB, dbl, p + j * n) * t[j];
    for (size_t p = 0; p < n; p++)       /* u = A w */
        for (size_t i = 0; i < n; i++) u[i] += (long double)elem(s->hA, dbl, i + p * n) * w[p];
    for (size_t j = 0; j < n; j++)       /* y = Cp t */
        for (size_t i = 0; i < n; i++) y[i] += (long double)elem(cp, dbl, i + j * ldcp) * t[j];
    long double md = 0, mr = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite((double)y[i])) goto out;
        long double dd = fabsl(y[i] - u[i]);
        if (dd > md) md = dd;
        if (fabsl(u[i]) > mr) mr = fabsl(u[i]);
    }
    if (mr == 0) mr = 1;
    result = (double)(md / (mr * (long double)n * (dbl ? DBL_EPSILON : FLT_EPSILON)));
out:
    free(t);
    free(w);
    free(u);
    free(y);
    return result;
}

/* Element-wise against the reference: max|diff| / (max|ref| k eps). */
static double compare_ref(const search_t *s, const void *cp, size_t ldcp)
{
    const size_t n = (size_t)s->size;
    const int dbl = s->prec == CHG_F64;
    double md = 0, mr = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            const double x = elem(cp, dbl, i + j * ldcp), r = elem(s->ref, dbl, i + j * n);
            if (!isfinite(x)) return INFINITY;
            const double dd = fabs(x - r);
            if (dd > md) md = dd;
            if (fabs(r) > mr) mr = fabs(r);
        }
    if (mr == 0) mr = 1;
    return md / (mr * (double)n * (dbl ? DBL_EPSILON : FLT_EPSILON));
}

/* ---- running a candidate --------------------------------------------------------------------- */

/* n padded to p's tiles along m, n and k. */
static void padded(const search_t *s, const chg_gemm_params_t *p, size_t *mpad, size_t *npad,
                   size_t *kpad)
{
    const size_t n = (size_t)s->size;
    *mpad = chg_round_up(n, p->mwg);
    *npad = chg_round_up(n, p->nwg);
    if (kpad) *kpad = chg_round_up(n, p->kwg);
}

/* Enqueues c's kernel on packed operands: first the packs of A and B, each only where the packed
 * operand is not in c's layout (always_pack: both); *ks becomes the library's kernels with c's. */
static cl_int enqueue_gemm(search_t *s, const cand_t *c, int always_pack, chg_gemm_kernels_t *ks)
{
    const chg_gemm_params_t *p = &c->p;
    const size_t n = (size_t)s->size;
    cl_command_queue q = s->d->q;
    *ks = s->ks;
    ks->gp = *p;
    ks->gemm = c->kernel;
    cl_int err = CL_SUCCESS;
    if (always_pack || s->packed_mwg != p->mwg || s->packed_kwg != p->kwg)
        err = chg_enqueue_pack_a(q, ks, n, n, s->A, 0, n, s->Ap, 0, 0, 0, NULL, NULL);
    if (err == CL_SUCCESS && (always_pack || s->packed_nwg != p->nwg || s->packed_kwg != p->kwg))
        err = chg_enqueue_pack_b(q, ks, n, n, s->B, 0, n, s->Bp, 0, 0, 0, NULL, NULL);
    s->packed_mwg = s->packed_nwg = s->packed_kwg = 0;
    if (err == CL_SUCCESS) {
        s->packed_mwg = p->mwg;
        s->packed_nwg = p->nwg;
        s->packed_kwg = p->kwg;
    }
    size_t mpad, npad, kpad;
    padded(s, p, &mpad, &npad, &kpad);
    if (err == CL_SUCCESS)
        err = chg_enqueue_kernel(q, ks, mpad, npad, kpad, s->Ap, 0, s->Bp, 0, s->Cp, 0, 0, NULL, NULL);
    return err;
}

int tg_run_and_check(search_t *s, cand_t *c, double *check, char *why, size_t why_len)
{
    const size_t n = (size_t)s->size;
    size_t mpad, npad;
    padded(s, &c->p, &mpad, &npad, NULL);
    chg_gemm_kernels_t ks;
    cl_int err = enqueue_gemm(s, c, 0, &ks);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(s->d->q, s->Cp, CL_TRUE, 0, mpad * npad * s->es, s->got, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(why, why_len, "launch failed (%s)", clhgemm_status_string(err));
        s->packed_mwg = 0;
        return -1;
    }
    if (!s->ref) {
        *check = cheap_check(s, s->got, mpad);
        if (!(*check <= 1.0)) {
            snprintf(why, why_len, "wrong result: A*(B*t) check %.3g (limit 1)", *check);
            return -1;
        }
        s->ref = malloc(n * n * s->es);
        if (s->ref)
            for (size_t j = 0; j < n; j++)
                memcpy((char *)s->ref + j * n * s->es, (char *)s->got + j * mpad * s->es, n * s->es);
        s->ref_err = *check;
        return 0;
    }
    *check = compare_ref(s, s->got, mpad);
    if (!(*check <= 1.0)) {
        snprintf(why, why_len, "wrong result: differs from the reference by %.3g (limit 1)", *check);
        return -1;
    }
    return 0;
}

/* ---- timing ---------------------------------------------------------------------------------- */

/* Seconds per launch of c's kernel over reps, or 0 with why. */
static double time_kernel(search_t *s, const cand_t *c, int reps, char *why, size_t why_len)
{
    const chg_gemm_params_t *p = &c->p;
    size_t mpad, npad;
    padded(s, p, &mpad, &npad, NULL);
    const size_t g[2] = {mpad / p->mwg * p->mdimc, npad / p->nwg * p->ndimc};
    const size_t l[2] = {(size_t)p->mdimc, (size_t)p->ndimc};
    cl_int err;
    const double t = tune_time_kernel(s->d->q, c->kernel, 2, g, l, reps, &err);
    if (t <= 0) {
        snprintf(why, why_len, "timed launch failed (%s)", clhgemm_status_string(err));
        return 0;
    }
    return t;
}

/* Kernel-alone GFLOP/s: adaptive number of reps, fewer for a slow candidate. */
double tg_time_candidate(search_t *s, cand_t *c, char *why, size_t why_len)
{
    const size_t n = (size_t)s->size;
    double t1 = time_kernel(s, c, 1, why, why_len);
    if (t1 <= 0) return 0;
    const double flop = 2.0 * (double)n * n * n;
    double best_t = s->best >= 0 ? flop / (s->c[s->best].kgf * 1e9) : 0;
    int reps = (int)(0.25 / t1);
    if (reps < 3) reps = 3;
    if (reps > 15) reps = 15;
    if (best_t > 0 && t1 > 2.5 * best_t) reps = 1; /* clearly slower: one more is enough */
    double t = time_kernel(s, c, reps, why, why_len);
    if (t <= 0) return 0;
    if (reps == 1 && t1 < t) t = t1;
    return flop / t * 1e-9;
}

/* Seconds of one device call (pack A, pack B, kernel, write-back with beta 0.5), host clock
 * between two clFinish, as a caller would see it. */
double tg_time_call(search_t *s, const cand_t *c)
{
    const size_t n = (size_t)s->size;
    cl_command_queue q = s->d->q;
    size_t mpad, npad;
    padded(s, &c->p, &mpad, &npad, NULL);
    if (clFinish(q) != CL_SUCCESS) return -1;
    const double t0 = tune_now();
    chg_gemm_kernels_t ks;
    cl_int err = enqueue_gemm(s, c, 1, &ks);
    if (err == CL_SUCCESS)
        err = chg_enqueue_writeback(q, &ks, n, n, 1.0, 0.5, s->Cp, mpad, s->C, 0, n, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(q);
    s->packed_mwg = 0;
    return err == CL_SUCCESS ? tune_now() - t0 : -1;
}
