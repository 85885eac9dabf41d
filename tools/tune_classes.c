/*
 * tune_classes.c -- clhgemm-tune's shape-class phase: a kernel configuration and a split of k
 * for each shape class but "large" (kernels/shape.h; "large" is what the GEMM search tuned, the
 * entry's main parameters), timed on the class's representative shape (chg_shape_class_example)
 * as the library runs it: whole device calls through chg_gemm_enqueue_with (packs, kernel or
 * split-K kernel and reduce, write-back), the host clock between two clFinish.
 *
 * Candidates per class, in order: the entry's main parameters unsplit (the reference: what the
 * class ran before it had its own configuration), the built-in class configuration, the class
 * configuration the entry holds now (a re-run never ends worse), and tiles derived from the main
 * parameters (half the tile along m, along n, along both, and for tall / wide C twice along the
 * long side and half along the other), each valid one with the splits 1, 2, 4, 8 and the one the
 * library would choose per call, counted once per distinct slice count. Each candidate's C must
 * match the reference's element-wise within max|C| * k * eps * 4, else it is dropped.
 *
 * Budget: the phase's time is shared by the classes left in turn; inside a class a candidate is
 * started only when the slowest candidate so far (build + warm-up + timing) still fits before
 * the class's deadline, so the phase ends within one candidate of its deadline; the reference is
 * measured whatever the budget.
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gemm.h"
#include "core/splitk.h"
#include "tune.h"

#define MAX_CANDS 64
#define REPS 5

typedef struct ccand_s {
    chg_gemm_params_t gp;
    int split;    /* as a class's split_k */
    int slices;   /* what it gives on the shape */
    double s;     /* median seconds of a call; 0 failed, < 0 not timed */
} ccand_t;

typedef struct cprob_s {
    tdev_t *d;
    chg_precision_t prec;
    size_t m, n, k, es;
    cl_mem a, b, c;
    void *ref, *got;  /* C of the reference candidate, of the last one */
} cprob_t;

static int add_cand(ccand_t *c, int *n, const cprob_t *p, const chg_gemm_params_t *gp, int split)
{
    if (*n >= MAX_CANDS || !chg_gemm_params_valid(&p->d->dev, p->prec, gp, NULL, 0)) return 0;
    const int slices = chg_splitk_slices(&p->d->dev, gp, p->m, p->n, p->k, split);
    for (int i = 0; i < *n; i++)
        if (!memcmp(&c[i].gp, gp, sizeof *gp) && c[i].slices == slices) return 0;
    c[*n] = (ccand_t){.gp = *gp, .split = split, .slices = slices, .s = -1};
    (*n)++;
    return 1;
}

/* gp with the tile scaled by fm, fn (powers of two; < 1 halves): the work-group shape halved
 * with it while the tile no longer divides (MDIMC*VWM | MWG). */
static chg_gemm_params_t scaled(const chg_gemm_params_t *gp, double fm, double fn)
{
    chg_gemm_params_t q = *gp;
    q.mwg = (int)(q.mwg * fm);
    q.nwg = (int)(q.nwg * fn);
    while (q.mdimc > 1 && q.mwg % (q.mdimc * q.vwm)) q.mdimc /= 2;
    while (q.ndimc > 1 && q.nwg % (q.ndimc * q.vwn)) q.ndimc /= 2;
    return q;
}

static int candidates(const cprob_t *p, int cls, const chg_gemm_params_t *main_gp, ccand_t *c)
{
    int n = 0, split = 1;
    chg_gemm_params_t cd, sc[5];
    add_cand(c, &n, p, main_gp, 1); /* the reference */
    chg_gemm_params_class_default(&p->d->dev, p->prec, cls, &cd, &split);
    const chg_tuning_class_t *now = &p->d->rec.prec[p->prec].classes[cls];
    sc[0] = scaled(main_gp, 0.5, 1);
    sc[1] = scaled(main_gp, 1, 0.5);
    sc[2] = scaled(main_gp, 0.5, 0.5);
    sc[3] = scaled(main_gp, cls == CHG_SHAPE_WIDE ? 0.5 : 2, cls == CHG_SHAPE_WIDE ? 2 : 0.5);
    sc[4] = scaled(main_gp, 0.25, 0.25);
    static const int splits[] = {1, 0, 2, 4, 8};
    for (int si = 0; si < 5; si++) {
        add_cand(c, &n, p, &cd, splits[si]);
        if (now->present) add_cand(c, &n, p, &now->gemm, splits[si]);
        add_cand(c, &n, p, main_gp, splits[si]);
        for (int i = 0; i < 5; i++) add_cand(c, &n, p, &sc[i], splits[si]);
    }
    return n;
}

static double elem(const void *v, int dbl, size_t i)
{
    return dbl ? ((const double *)v)[i] : (double)((const float *)v)[i];
}

/* One call of candidate x (C := A*B, beta = 0); 0 or an OpenCL / library status. */
static cl_int call(const cprob_t *p, const ccand_t *x)
{
    chg_gemm_args_t a;
    memset(&a, 0, sizeof a);
    a.prec = p->prec;
    a.m = p->m;
    a.n = p->n;
    a.k = p->k;
    a.alpha = 1.0;
    a.beta = 0.0;
    a.a = p->a;
    a.b = p->b;
    a.c = p->c;
    a.lda = p->m;
    a.ldb = p->k;
    a.ldc = p->m;
    clhgemm_status_t st = chg_gemm_enqueue_with(&a, &x->gp, x->split, p->d->q, 0, NULL, NULL);
    return st == CLHGEMM_SUCCESS ? clFinish(p->d->q) : (cl_int)st;
}

/* Checks C against the reference (first call: becomes the reference). 1 when it matches. */
static int check(cprob_t *p)
{
    const size_t nc = p->m * p->n;
    if (clEnqueueReadBuffer(p->d->q, p->c, CL_TRUE, 0, nc * p->es, p->got, 0, NULL, NULL) != CL_SUCCESS)
        return 0;
    const int dbl = p->prec == CHG_F64;
    if (!p->ref) {
        p->ref = malloc(nc * p->es);
        if (!p->ref) return 0;
        memcpy(p->ref, p->got, nc * p->es);
        return 1;
    }
    double cmax = 0, dmax = 0;
    for (size_t i = 0; i < nc; i++) {
        const double r = elem(p->ref, dbl, i), g = elem(p->got, dbl, i);
        if (!isfinite(g)) return 0;
        cmax = fmax(cmax, fabs(r));
        dmax = fmax(dmax, fabs(g - r));
    }
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    return dmax <= 4.0 * cmax * (double)p->k * eps;
}

static int cmp_dbl(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Times candidate x: warm-up (builds) with the check, then REPS calls (fewer when the deadline
 * comes); the median in x->s (0 when it failed). */
static void measure(cprob_t *p, ccand_t *x, double deadline)
{
    x->s = 0;
    if (call(p, x) != CL_SUCCESS || !check(p)) return;
    double t[REPS];
    int n = 0;
    for (; n < REPS; n++) {
        const double t0 = tune_now();
        if (call(p, x) != CL_SUCCESS) return;
        t[n] = tune_now() - t0;
        if (n >= 1 && tune_now() > deadline) {
            n++;
            break;
        }
    }
    qsort(t, (size_t)n, sizeof *t, cmp_dbl);
    x->s = t[n / 2];
}

static int setup(cprob_t *p)
{
    const size_t na = p->m * p->k, nb = p->k * p->n, nc = p->m * p->n;
    void *h = malloc((na > nb ? na : nb) * p->es);
    p->got = malloc(nc * p->es);
    if (!h || !p->got) {
        free(h);
        return -1;
    }
    cl_int err = CL_SUCCESS;
    const int dbl = p->prec == CHG_F64;
    const cl_mem_flags f = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    tune_fill(h, dbl, na, 11);
    p->a = clCreateBuffer(p->d->ctx, f, na * p->es, h, &err);
    tune_fill(h, dbl, nb, 12);
    if (err == CL_SUCCESS) p->b = clCreateBuffer(p->d->ctx, f, nb * p->es, h, &err);
    if (err == CL_SUCCESS) p->c = clCreateBuffer(p->d->ctx, CL_MEM_READ_WRITE, nc * p->es, NULL, &err);
    free(h);
    return err == CL_SUCCESS ? 0 : -1;
}

static void teardown(cprob_t *p)
{
    if (p->a) clReleaseMemObject(p->a);
    if (p->b) clReleaseMemObject(p->b);
    if (p->c) clReleaseMemObject(p->c);
    free(p->ref);
    free(p->got);
}

/* The class's winner into the record: its split as the library should store it (0 when the
 * per-call choice gives the same slice count, so other shapes of the class adapt). */
static void record(tune_run_t *r, cprob_t *p, int cls, const ccand_t *c, int n, int best)
{
    chg_tuning_class_t *out = &p->d->rec.prec[p->prec].classes[cls];
    const ccand_t *w = &c[best];
    const int auto_slices = chg_splitk_slices(&p->d->dev, &w->gp, p->m, p->n, p->k, 0);
    memset(out, 0, sizeof *out);
    out->present = 1;
    out->gemm = w->gp;
    out->split_k = w->slices == auto_slices ? 0 : w->split == 0 ? w->slices : w->split;
    out->m = (int)p->m;
    out->n = (int)p->n;
    out->k = (int)p->k;
    const double flop = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    out->gflops = flop / w->s * 1e-9;
    int timed = 0;
    for (int i = 0; i < n; i++) timed += c[i].s > 0;
    char pbuf[200];
    chg_gemm_params_format(&w->gp, pbuf, sizeof pbuf);
    tune_say(r, "%s %cgemm class %s (%zux%zux%zu): %s, split_k %d (%d slices): %.1f GFLOP/s, "
                "main parameters unsplit %.1f; %d of %d candidates timed",
             p->d->log_prefix, p->prec ? 'd' : 's', chg_shape_class_name(cls), p->m, p->n, p->k,
             pbuf, out->split_k, w->slices, out->gflops, c[0].s > 0 ? flop / c[0].s * 1e-9 : 0.0,
             timed, n);
}

/* One class until deadline: 0, or -1 when not even the reference could be timed. */
static int tune_class(tune_run_t *r, tdev_t *d, chg_precision_t prec, int cls,
                      const chg_gemm_params_t *main_gp, double deadline)
{
    cprob_t p = {.d = d, .prec = prec, .es = chg_elem_size(prec)};
    chg_shape_class_example(cls, (d->dev.features & CHG_FEAT_GPU) != 0, &p.m, &p.n, &p.k);
    ccand_t c[MAX_CANDS];
    const int n = candidates(&p, cls, main_gp, c);
    int best = -1, rc = -1;
    if (n == 0 || setup(&p) != 0) goto out;
    const double flop = 2.0 * (double)p.m * (double)p.n * (double)p.k;
    double slowest = 0;
    for (int i = 0; i < n && !r->stop; i++) {
        const double t0 = tune_now();
        if (i > 0 && t0 + slowest > deadline) break;
        measure(&p, &c[i], deadline);
        if (i == 0 && c[0].s <= 0) break; /* no reference: nothing can be checked */
        const double took = tune_now() - t0;
        if (took > slowest) slowest = took;
        char pbuf[200];
        chg_gemm_params_format(&c[i].gp, pbuf, sizeof pbuf);
        tune_log(r, "%s %cgemm class %s: %s split %d (%d slices): %s %.1f GFLOP/s", d->log_prefix,
                 prec ? 'd' : 's', chg_shape_class_name(cls), pbuf, c[i].split, c[i].slices,
                 c[i].s > 0 ? "" : "failed", c[i].s > 0 ? flop / c[i].s * 1e-9 : 0.0);
        if (c[i].s > 0 && (best < 0 || c[i].s < c[best].s)) best = i;
        tune_progress(r, "%s %cgemm class %s: %d/%d candidates", d->log_prefix, prec ? 'd' : 's',
                      chg_shape_class_name(cls), i + 1, n);
    }
    tune_progress_clear(r);
    if (best >= 0) {
        record(r, &p, cls, c, n, best);
        rc = 0;
    } else {
        tune_say(r, "%s %cgemm class %s: nothing could be timed", d->log_prefix, prec ? 'd' : 's',
                 chg_shape_class_name(cls));
    }
out:
    teardown(&p);
    return rc;
}

int tune_classes(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline)
{
    chg_gemm_params_t main_gp;
    if (d->rec.prec[prec].present) main_gp = d->rec.prec[prec].gemm;
    else chg_gemm_params_select(&d->dev, prec, &main_gp);
    int failures = 0, left = CHG_SHAPE_NCLASSES - 1;
    for (int cls = 0; cls < CHG_SHAPE_NCLASSES && !r->stop; cls++) {
        if (cls == CHG_SHAPE_LARGE) continue; /* the GEMM search's */
        const double now = tune_now();
        const double until = now + (deadline - now) / left--;
        failures += tune_class(r, d, prec, cls, &main_gp, until) != 0;
    }
    if (!d->rec.prec[prec].present && failures < CHG_SHAPE_NCLASSES - 1) {
        d->rec.prec[prec].present = 1; /* the classes go with these main parameters */
        d->rec.prec[prec].gemm = main_gp;
    }
    return failures ? -1 : 0;
}
