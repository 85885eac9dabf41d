/*
 * tune_classes.c -- clhgemm-tune's shape-class phase: a kernel configuration and a split of k
 * for each shape class but "large" (kernels/shape.h; "large" is what the GEMM search tuned, the
 * entry's main parameters), timed as the library runs it: whole device calls through
 * chg_gemm_enqueue_with (packs, kernel or split-K kernel and reduce, write-back; or the direct
 * kernel's one launch), the host clock between two clFinish.
 *
 * Scored on two or three shapes of the class (chg_shape_class_examples: e.g. large_k on
 * 1024 x 1024 x 8192 and 512 x 512 x 32768, tall on 8192 x 256 x 4096, 16384 x 256 x 16384 and
 * 8192 x 128 x 8192, tall_thin on 8192 x 64 x 8192 and 16384 x 32 x 8192 on GPUs) by the geometric mean of the rates, so that a configuration good
 * for one shape and bad for the class's others does not win (one representative shape did:
 * the H100 sweep over the classes after the first class tuning, 512 x 512 x 32768 and
 * 8192 x 64 x 8192 slower).
 *
 * Candidates, most promising first (a short budget times the head of the list): the entry's
 * main parameters unsplit (the reference: what the class ran before it had its own
 * configuration), the built-in class configuration, the class configuration the entry holds now
 * (a re-run never ends worse), a thin class's parent's configuration, the main parameters with
 * the per-call split, the direct kernel's built-in geometry (DK = 1, cl/gemm_direct.cl); then
 * packed tiles (the main ones, a half along m, n, both, a quarter, twice along the long side of
 * tall / wide C; for the skinny and small classes a few tiles of their own, also with half the
 * work-items along m or n) with every split of 0 (per call), 1, 2, 4, 8, 16, 3, 6, 12; then
 * direct-kernel geometries (tiles 16 ... 128, work-groups 8 x 8 ... 16 x 16, KWG 8, 16, 32).
 * Each candidate's C must match the reference's on every shape element-wise within
 * max|C| * k * eps * 4, else it is dropped.
 *
 * After the classes, rank_k's reach along k (its "k_max"; tune_reach below): how far beyond
 * k = 256 the rank_k configuration beats the one the classifier would run. After the occupancy
 * (tune_occupancy.c calls it: large's tail split plans with its wgs_per_cu), large's reach down
 * along k into medium's outputs (its "k_min"; tune_large_reach below).
 *
 * Budget: the phase's time is shared by the classes and the reach left in turn (a class that
 * runs out of candidates leaves its time to the next); inside a class a candidate is started
 * only when the slowest candidate so far still fits before the class's deadline, so the phase
 * ends within one candidate of its deadline; the reference is measured whatever the budget.
 * The candidate lists are long enough that a GPU budget of minutes is spent, not left.
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gemm.h"
#include "core/splitk.h"
#include "tune.h"

#define MAX_CANDS 512
#define REPS 5
#define NSH CHG_SHAPE_MAX_EXAMPLES

typedef struct ccand_s {
    chg_gemm_params_t gp;
    int split;        /* as a class's split_k */
    int wgs;          /* as a class's wgs_per_cu (0: no tail split) */
    double s[NSH];    /* median seconds of a call per shape */
    double score;     /* geometric mean GFLOP/s over the shapes; 0 failed, < 0 not timed */
} ccand_t;

typedef struct cshape_s {
    size_t m, n, k;
    cl_mem a, b, c;
    void *ref;        /* C of the reference candidate */
} cshape_t;

typedef struct cprob_s {
    tdev_t *d;
    chg_precision_t prec;
    size_t es;
    int nsh;
    cshape_t sh[NSH];
    void *got;        /* C of the last call (the largest C) */
    double beta;      /* of the calls: 0 (the classes), 1 (rank_k's reach: C read) */
} cprob_t;

static int add_cand(ccand_t *c, int *n, const cprob_t *p, const chg_gemm_params_t *gp, int split)
{
    if (*n >= MAX_CANDS || !chg_gemm_params_valid(&p->d->dev, p->prec, gp, NULL, 0)) return 0;
    if (gp->dk && split != 1) return 0; /* the direct kernel is never split */
    for (int i = 0; i < *n; i++)
        if (!memcmp(&c[i].gp, gp, sizeof *gp) && c[i].split == split) return 0;
    memset(&c[*n], 0, sizeof c[*n]);
    c[*n].gp = *gp;
    c[*n].split = split;
    c[*n].score = -1;
    (*n)++;
    return 1;
}

/* gp with the tile mwg x nwg: the work-group shape halved while the tile does not divide
 * (MDIMC*VWM | MWG), and WM halved while the warps do not divide the tile's rows. */
static chg_gemm_params_t sized(const chg_gemm_params_t *gp, int mwg, int nwg)
{
    chg_gemm_params_t q = *gp;
    q.mwg = mwg;
    q.nwg = nwg;
    while (q.mdimc > 1 && q.mwg % (q.mdimc * q.vwm)) q.mdimc /= 2;
    while (q.ndimc > 1 && q.nwg % (q.ndimc * q.vwn)) q.ndimc /= 2;
    while (q.mma && q.wm > 1 && q.mwg % (q.wm * 16)) q.wm /= 2;
    return q;
}

/* gp with its work-items along m (along_m) or along n halved (each computes twice the results
 * that way); gp itself where there is one already. */
static chg_gemm_params_t halved(const chg_gemm_params_t *gp, int along_m)
{
    chg_gemm_params_t q = *gp;
    int *d = along_m ? &q.mdimc : &q.ndimc;
    if (*d > 1) *d /= 2;
    return q;
}

/* gp with the tile scaled by fm, fn (powers of two; < 1 halves), as sized() adapts it. */
static chg_gemm_params_t scaled(const chg_gemm_params_t *gp, double fm, double fn)
{
    return sized(gp, (int)(gp->mwg * fm), (int)(gp->nwg * fn));
}

/* The direct kernel's geometries: tiles x work-groups x k depths, at most 64 results per
 * work-item and (on GPUs) at least 64 work-items. */
static void direct_cands(ccand_t *c, int *n, const cprob_t *p)
{
    const int gpu = (p->d->dev.features & CHG_FEAT_GPU) != 0;
    static const int gtiles[][2] = {{64, 64}, {32, 32}, {64, 32}, {32, 64}, {128, 64},
                                    {64, 128}, {128, 128}, {16, 16}};
    static const int gdims[][2] = {{16, 16}, {8, 8}, {16, 8}, {8, 16}, {32, 8}, {8, 32}};
    static const int ctiles[][2] = {{16, 16}, {32, 32}, {8, 8}, {32, 16}, {16, 32}};
    static const int cdims[][2] = {{4, 4}, {8, 8}, {2, 2}};
    static const int kwgs[] = {16, 8, 32};
    chg_gemm_params_t q;
    chg_gemm_params_direct_default(&p->d->dev, p->prec, &q);
    const int nt = gpu ? 8 : 5, nd = gpu ? 6 : 3;
    for (int kk = 0; kk < 3; kk++)
        for (int t = 0; t < nt; t++)
            for (int w = 0; w < nd; w++) {
                q.mwg = gpu ? gtiles[t][0] : ctiles[t][0];
                q.nwg = gpu ? gtiles[t][1] : ctiles[t][1];
                q.mdimc = gpu ? gdims[w][0] : cdims[w][0];
                q.ndimc = gpu ? gdims[w][1] : cdims[w][1];
                q.kwg = kwgs[kk];
                q.kwi = gpu ? q.kwg : 4;
                if (q.mwg % q.mdimc || q.nwg % q.ndimc) continue;
                if ((q.mwg / q.mdimc) * (q.nwg / q.ndimc) > 64) continue;
                if (gpu && q.mdimc * q.ndimc < 64) continue;
                add_cand(c, n, p, &q, 1);
            }
}

static int candidates(const cprob_t *p, int cls, const chg_gemm_params_t *main_gp, ccand_t *c)
{
    int n = 0, split = 1;
    chg_gemm_params_t cd, dk, sc[6];
    chg_gemm_params_class_default(&p->d->dev, p->prec, cls, &cd, &split);
    chg_gemm_params_direct_default(&p->d->dev, p->prec, &dk);
    const chg_tuning_class_t *now = &p->d->rec.prec[p->prec].classes[cls];
    add_cand(c, &n, p, main_gp, 1); /* the reference */
    add_cand(c, &n, p, &cd, split);
    if (now->present) add_cand(c, &n, p, &now->gemm, now->split_k);
    /* a thin class starts from its parent's configuration (what it runs without its own) */
    const int parent = chg_shape_class_parent(cls);
    const chg_tuning_class_t *up = parent >= 0 ? &p->d->rec.prec[p->prec].classes[parent] : NULL;
    if (up && up->present) add_cand(c, &n, p, &up->gemm, up->split_k);
    add_cand(c, &n, p, main_gp, 0);
    add_cand(c, &n, p, &dk, 1);
    /* two slices in flight (PF=2) on the tensor-core configurations so far (DGEMM rank-k
     * updates on the H100: +12-37%; squares lost 10-30% with it) */
    for (int i = 0, n0 = n; i < n0; i++) {
        chg_gemm_params_t q = c[i].gp;
        if (q.mma && q.pf < 2) {
            q.pf = 2;
            add_cand(c, &n, p, &q, c[i].split);
        }
    }
    sc[0] = *main_gp;
    sc[1] = scaled(main_gp, 0.5, 1);
    sc[2] = scaled(main_gp, 1, 0.5);
    sc[3] = scaled(main_gp, 0.5, 0.5);
    const int wide = cls == CHG_SHAPE_WIDE || cls == CHG_SHAPE_WIDE_THIN;
    sc[4] = scaled(main_gp, wide ? 0.5 : 2, wide ? 2 : 0.5);
    sc[5] = scaled(main_gp, 0.25, 0.25);
    static const int splits[] = {0, 1, 2, 4, 8, 16, 3, 6, 12};
    /* More tiles for the classes the main tile serves worst: the skinny ones 64 across the thin
     * side (the H100's FP64 tall and wide classes: 64 x 64 and 64 x 128 with four slices,
     * 1.1-2.1x the 128 x 128 / 128 x 192 tiles), the thin ones also 128 x 32, small 64 x 32 and
     * 32 x 64; then each with the work-items halved along m and along n (twice the results per
     * work-item that way: the H100's FP32 tall ran 64 x 128 best on 8 x 16 work-items, tall_thin
     * 128 x 64 on 16 x 8, small 64 x 32 on 16 x 8). */
    chg_gemm_params_t ex[18];
    int nex = 0;
    const int thin = cls == CHG_SHAPE_TALL_THIN || cls == CHG_SHAPE_WIDE_THIN;
    if (thin || cls == CHG_SHAPE_TALL || cls == CHG_SHAPE_WIDE) {
        ex[nex++] = sized(main_gp, 64, 64);
        ex[nex++] = sized(main_gp, 64, 128);
        ex[nex++] = sized(main_gp, 128, 64);
    }
    if (thin) ex[nex++] = wide ? sized(main_gp, 32, 128) : sized(main_gp, 128, 32);
    if (cls == CHG_SHAPE_SMALL) {
        ex[nex++] = sized(main_gp, 64, 32);
        ex[nex++] = sized(main_gp, 32, 64);
    }
    for (int i = 0, n0 = nex; i < n0; i++) {
        ex[nex++] = halved(&ex[i], 1);
        ex[nex++] = halved(&ex[i], 0);
    }
    for (size_t si = 0; si < sizeof splits / sizeof splits[0]; si++) {
        add_cand(c, &n, p, &cd, splits[si]);
        if (now->present && !now->gemm.dk) add_cand(c, &n, p, &now->gemm, splits[si]);
        for (int i = 0; i < 6; i++) add_cand(c, &n, p, &sc[i], splits[si]);
        for (int i = 0; i < nex; i++) add_cand(c, &n, p, &ex[i], splits[si]);
    }
    direct_cands(c, &n, p);
    return n;
}

static double elem(const void *v, int dbl, size_t i)
{
    return dbl ? ((const double *)v)[i] : (double)((const float *)v)[i];
}

/* One call of candidate x on shape s (C := A*B + p->beta * C); 0 or an OpenCL / library status. */
static cl_int call(const cprob_t *p, const cshape_t *s, const ccand_t *x)
{
    chg_gemm_args_t a;
    memset(&a, 0, sizeof a);
    a.prec = p->prec;
    a.m = s->m;
    a.n = s->n;
    a.k = s->k;
    a.alpha = 1.0;
    a.beta = p->beta;
    a.a = s->a;
    a.b = s->b;
    a.c = s->c;
    a.lda = s->m;
    a.ldb = s->k;
    a.ldc = s->m;
    clhgemm_status_t st =
        chg_gemm_enqueue_with(&a, &x->gp, x->split, x->wgs, p->d->q, 0, NULL, NULL);
    return st == CLHGEMM_SUCCESS ? clFinish(p->d->q) : (cl_int)st;
}

/* Checks C of shape s against its reference (first call: becomes the reference). 1 when it
 * matches. */
static int check(cprob_t *p, cshape_t *s)
{
    const size_t nc = s->m * s->n;
    if (clEnqueueReadBuffer(p->d->q, s->c, CL_TRUE, 0, nc * p->es, p->got, 0, NULL, NULL) !=
        CL_SUCCESS)
        return 0;
    const int dbl = p->prec == CHG_F64;
    if (!s->ref) {
        s->ref = malloc(nc * p->es);
        if (!s->ref) return 0;
        memcpy(s->ref, p->got, nc * p->es);
        return 1;
    }
    double cmax = 0, dmax = 0;
    for (size_t i = 0; i < nc; i++) {
        const double r = elem(s->ref, dbl, i), g = elem(p->got, dbl, i);
        if (!isfinite(g)) return 0;
        cmax = fmax(cmax, fabs(r));
        dmax = fmax(dmax, fabs(g - r));
    }
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    return dmax <= 4.0 * cmax * (double)s->k * eps;
}

static double flops(const cshape_t *s) { return 2.0 * (double)s->m * (double)s->n * (double)s->k; }

/* Times candidate x on every shape: warm-up (builds) with the check, then REPS calls (fewer when
 * the deadline comes); the medians in x->s, their rates' geometric mean in x->score (0 when a
 * shape failed). */
static void measure(cprob_t *p, ccand_t *x, double deadline)
{
    x->score = 0;
    double logsum = 0;
    for (int i = 0; i < p->nsh; i++) {
        cshape_t *s = &p->sh[i];
        /* with beta != 0, each candidate's first call (the checked one) starts from C = 0 */
        const double zero = 0.0;
        if (p->beta != 0.0 &&
            (clEnqueueFillBuffer(p->d->q, s->c, &zero, p->es, 0, s->m * s->n * p->es, 0, NULL,
                                 NULL) != CL_SUCCESS ||
             clFinish(p->d->q) != CL_SUCCESS))
            return;
        if (call(p, s, x) != CL_SUCCESS || !check(p, s)) return;
        double t[REPS];
        int n = 0;
        for (; n < REPS; n++) {
            const double t0 = tune_now();
            if (call(p, s, x) != CL_SUCCESS) return;
            t[n] = tune_now() - t0;
            if (n >= 1 && tune_now() > deadline) {
                n++;
                break;
            }
        }
        x->s[i] = tune_median(t, n);
        logsum += log(flops(s) / x->s[i] * 1e-9);
    }
    x->score = exp(logsum / p->nsh);
}

static int setup_shape(cprob_t *p, cshape_t *s, void *h)
{
    const size_t na = s->m * s->k, nb = s->k * s->n, nc = s->m * s->n;
    cl_int err = CL_SUCCESS;
    const int dbl = p->prec == CHG_F64;
    const cl_mem_flags f = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    tune_fill(h, dbl, na, 11);
    s->a = clCreateBuffer(p->d->ctx, f, na * p->es, h, &err);
    tune_fill(h, dbl, nb, 12);
    if (err == CL_SUCCESS) s->b = clCreateBuffer(p->d->ctx, f, nb * p->es, h, &err);
    if (err == CL_SUCCESS)
        s->c = clCreateBuffer(p->d->ctx, CL_MEM_READ_WRITE, nc * p->es, NULL, &err);
    return err == CL_SUCCESS ? 0 : -1;
}

/* The shapes ex[0 .. nex) on the device: those whose operands fit a quarter of its memory. */
static int setup_shapes(cprob_t *p, const size_t ex[][3], int nex)
{
    size_t big = 0, cmax = 0;
    const unsigned long long mem = p->d->dev.info.global_mem_bytes / 4;
    p->nsh = 0;
    for (int i = 0; i < nex; i++) {
        const size_t m = ex[i][0], n = ex[i][1], k = ex[i][2];
        if ((unsigned long long)(m * k + k * n + m * n) * p->es > mem) continue;
        p->sh[p->nsh++] = (cshape_t){.m = m, .n = n, .k = k};
        big = CHG_MAX(big, CHG_MAX(m * k, k * n));
        cmax = CHG_MAX(cmax, m * n);
    }
    if (!p->nsh) return -1;
    void *h = malloc(big * p->es);
    p->got = malloc(cmax * p->es);
    int rc = h && p->got ? 0 : -1;
    for (int i = 0; i < p->nsh && rc == 0; i++) rc = setup_shape(p, &p->sh[i], h);
    free(h);
    return rc;
}

/* The class's shapes (chg_shape_class_examples) on the device, as setup_shapes. */
static int setup(cprob_t *p, int cls)
{
    size_t ex[NSH][3];
    const int nex = chg_shape_class_examples(cls, (p->d->dev.features & CHG_FEAT_GPU) != 0, ex);
    return setup_shapes(p, (const size_t(*)[3])ex, nex);
}

static void teardown(cprob_t *p)
{
    for (int i = 0; i < p->nsh; i++) {
        cshape_t *s = &p->sh[i];
        if (s->a) clReleaseMemObject(s->a);
        if (s->b) clReleaseMemObject(s->b);
        if (s->c) clReleaseMemObject(s->c);
        free(s->ref);
    }
    free(p->got);
}

/* The shapes' rates of candidate x, "r1/r2/r3" in GFLOP/s. */
static void rates(const cprob_t *p, const ccand_t *x, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < p->nsh && used < len; i++) {
        const double g = x->s[i] > 0 ? flops(&p->sh[i]) / x->s[i] * 1e-9 : 0.0;
        used += (size_t)snprintf(buf + used, len - used, "%s%.1f", i ? "/" : "", g);
    }
}

/* The class's winner into the record: its configuration and split (0: chosen per call, which
 * adapts to each shape of the class), the first shape and the geometric mean rate. */
static void record(tune_run_t *r, cprob_t *p, int cls, const ccand_t *c, int n, int best)
{
    chg_tuning_class_t *out = &p->d->rec.prec[p->prec].classes[cls];
    const ccand_t *w = &c[best];
    memset(out, 0, sizeof *out);
    out->present = 1;
    out->gemm = w->gp;
    out->split_k = w->split;
    out->m = (int)p->sh[0].m;
    out->n = (int)p->sh[0].n;
    out->k = (int)p->sh[0].k;
    out->gflops = w->s[0] > 0 ? flops(&p->sh[0]) / w->s[0] * 1e-9 : 0.0;
    int timed = 0;
    for (int i = 0; i < n; i++) timed += c[i].score > 0;
    char pbuf[200], wr[120], rr[120];
    chg_gemm_params_format(&w->gp, pbuf, sizeof pbuf);
    rates(p, w, wr, sizeof wr);
    rates(p, &c[0], rr, sizeof rr);
    tune_say(r, "%s %cgemm class %s (%d shapes): %s, split_k %d: %s GFLOP/s (geomean %.1f), "
                "main parameters unsplit %s (%.1f); %d of %d candidates timed",
             p->d->log_prefix, p->prec ? 'd' : 's', chg_shape_class_name(cls), p->nsh, pbuf,
             out->split_k, wr, w->score, rr, c[0].score > 0 ? c[0].score : 0.0, timed, n);
}

/* One class until deadline: 0, or -1 when not even the reference could be timed. */
static int tune_class(tune_run_t *r, tdev_t *d, chg_precision_t prec, int cls,
                      const chg_gemm_params_t *main_gp, double deadline)
{
    cprob_t p = {.d = d, .prec = prec, .es = chg_elem_size(prec)};
    ccand_t *c = calloc(MAX_CANDS, sizeof *c);
    int best = -1, rc = -1, n = 0;
    if (!c || setup(&p, cls) != 0) goto out;
    n = candidates(&p, cls, main_gp, c);
    double slowest = 0;
    for (int i = 0; i < n && !r->stop; i++) {
        const double t0 = tune_now();
        if (i > 0 && t0 + slowest > deadline) break;
        measure(&p, &c[i], deadline);
        if (i == 0 && c[0].score <= 0) break; /* no reference: nothing can be checked */
        const double took = tune_now() - t0;
        if (took > slowest) slowest = took;
        char pbuf[200], rb[120];
        chg_gemm_params_format(&c[i].gp, pbuf, sizeof pbuf);
        rates(&p, &c[i], rb, sizeof rb);
        tune_log(r, "%s %cgemm class %s: %s split %d: %s %s GFLOP/s (geomean %.1f)",
                 d->log_prefix, prec ? 'd' : 's', chg_shape_class_name(cls), pbuf, c[i].split,
                 c[i].score > 0 ? "" : "failed", rb, c[i].score > 0 ? c[i].score : 0.0);
        if (c[i].score > 0 && (best < 0 || c[i].score > c[best].score)) best = i;
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
    free(c);
    return rc;
}

#define REACH_MARGIN 1.02 /* a win is 2% or more: the timings' own spread is about 1% */

/* One k of a class's reach: x[0] (the configuration the classifier runs there, the reference of
 * the check) and then x[1] (the reaching class's) timed on the nsh shapes as C := A*B + C from
 * C = 0 (the reaches serve calls that read C). 1 when x[1] won by REACH_MARGIN, 0 when it lost
 * or a timing failed, -1 when the shapes could not be set up (x untimed). */
static int reach_step(tdev_t *d, chg_precision_t prec, const size_t shape[][3], int nsh,
                      ccand_t x[2], double deadline)
{
    cprob_t p = {.d = d, .prec = prec, .es = chg_elem_size(prec), .beta = 1.0};
    int won = -1;
    if (setup_shapes(&p, shape, nsh) == 0) {
        measure(&p, &x[0], deadline);
        if (x[0].score > 0) measure(&p, &x[1], deadline);
        won = x[0].score > 0 && x[1].score > REACH_MARGIN * x[0].score;
    }
    teardown(&p);
    return won;
}

/* rank_k's reach along k (the class's "k_max", kernels/shape.h chg_shape_class_k: it takes
 * products that would be large): on s x s x k for k = 384, 512, 768, 1024 (s = 8192 on GPUs,
 * 4097 on CPU devices: C just over medium's 2^24), the rank_k class's configuration against
 * the one the classifier runs there without a reach (large: the main parameters unsplit, or
 * the class's configuration where one is stored), the latter first (the reference of the
 * check), as C := A*B + C (the reach applies to calls that read C: tuning.c's choose). The
 * reach is the largest k up to which rank_k won (by REACH_MARGIN) at every k tried; 0 (the
 * classifier's 256) when it lost at the first or the two are the same configuration. A k is
 * started only when the previous one's time still fits before the deadline; what was won by
 * then stays. */
static void tune_reach(tune_run_t *r, tdev_t *d, chg_precision_t prec,
                       const chg_gemm_params_t *main_gp, double deadline)
{
    chg_tuning_prec_t *e = &d->rec.prec[prec];
    chg_tuning_class_t *rk = &e->classes[CHG_SHAPE_RANK_K];
    if (!rk->present) return;
    static const int ks[] = {384, 512, 768, 1024};
    const size_t side = (d->dev.features & CHG_FEAT_GPU) ? 8192 : 4097;
    int reach = 0;
    double last = 0; /* the previous k's time: the next (more work) starts only if it fits */
    for (size_t i = 0; i < sizeof ks / sizeof ks[0] && !r->stop && tune_now() + last < deadline;
         i++) {
        const double t0 = tune_now();
        const int other = (int)chg_shape_class(side, side, (size_t)ks[i]);
        const chg_tuning_class_t *oc = &e->classes[other];
        ccand_t x[2];
        memset(x, 0, sizeof x);
        x[0].gp = oc->present ? oc->gemm : *main_gp;
        x[0].split = oc->present ? oc->split_k : 1;
        x[1].gp = rk->gemm;
        x[1].split = rk->split_k;
        if (!memcmp(&x[0].gp, &x[1].gp, sizeof x[0].gp) && x[0].split == x[1].split) break;
        const size_t shape[1][3] = {{side, side, (size_t)ks[i]}};
        const int won = reach_step(d, prec, shape, 1, x, deadline);
        if (won >= 0)
            tune_say(r, "%s %cgemm rank_k reach: %zu^2 x %d: rank_k %.1f GFLOP/s, %s %.1f",
                     d->log_prefix, prec ? 'd' : 's', side, ks[i],
                     x[1].score > 0 ? x[1].score : 0.0, chg_shape_class_name(other),
                     x[0].score > 0 ? x[0].score : 0.0);
        if (won != 1) break;
        reach = ks[i];
        last = tune_now() - t0;
    }
    rk->k_max = reach;
    tune_say(r, "%s %cgemm class rank_k reaches k = %d (%s)", d->log_prefix, prec ? 'd' : 's',
             reach ? reach : CHG_SHAPE_RANK_K_MAX, reach ? "measured" : "the classifier's");
}

/* large's reach down along k (the class's "k_min", kernels/shape.h chg_shape_class_k: from that
 * k on it takes medium's outputs of more than 2^22 elements): on s x s x k for s = 3072 and 4096
 * on GPUs (the geometric mean of the two: on the H100 FP32 large won 3-4% on 3072^2 x 2048 and
 * lost 1% on 4096^2 x 2048), s = 2049 on CPU devices (C between 2^22 and 2^24 elements), for
 * k = 4096, 3072, 2048, 1536 on GPUs (1536 on CPU devices), from the longest down, large's
 * configuration with its tail split (its wgs_per_cu) against medium's, the one the classifier
 * runs there without a reach (the class's, else main_gp unsplit; first: the reference of the
 * check), as C := A*B + C. k_min is the smallest k down to which large won by REACH_MARGIN at
 * every k tried; 0 (none) when it lost at the first or the two are the same configuration. A k
 * is started only when its estimate (both configurations' checked call and REPS more at the
 * entry's main rate) fits before the deadline; when none could be, the entry's k_min stays. */
void tune_large_reach(tune_run_t *r, tdev_t *d, chg_precision_t prec,
                      const chg_gemm_params_t *main_gp, double deadline)
{
    chg_tuning_prec_t *e = &d->rec.prec[prec];
    chg_tuning_class_t *lg = &e->classes[CHG_SHAPE_LARGE];
    const chg_tuning_class_t *md = &e->classes[CHG_SHAPE_MEDIUM];
    if (!lg->present) return;
    const int gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    static const int ks_gpu[] = {4096, 3072, 2048, 1536}, ks_cpu[] = {1536};
    const int *ks = gpu ? ks_gpu : ks_cpu;
    const int nks = gpu ? 4 : 1;
    static const size_t sides_gpu[] = {3072, 4096}, sides_cpu[] = {2049};
    const size_t *sides = gpu ? sides_gpu : sides_cpu;
    const int nsides = gpu ? 2 : 1;
    const double rate = (e->gflops > 0 ? e->gflops : 10.0) * 1e9;
    ccand_t x0;
    memset(&x0, 0, sizeof x0);
    x0.gp = md->present ? md->gemm : *main_gp;
    x0.split = md->present ? md->split_k : 1;
    x0.wgs = md->present ? md->wgs_per_cu : 0;
    int reach = 0, tried = 0;
    /* one configuration for both: nothing to reach */
    const int same = !memcmp(&x0.gp, &lg->gemm, sizeof x0.gp) && x0.split == lg->split_k;
    for (int i = 0; i < nks && !same && !r->stop; i++) {
        double work = 0;
        for (int j = 0; j < nsides; j++) work += 2.0 * (double)sides[j] * sides[j] * ks[i];
        const double est = 2.0 * (REPS + 1) * work / rate;
        if (tune_now() + est > deadline) break;
        ccand_t x[2] = {x0, {.gp = lg->gemm, .split = lg->split_k, .wgs = lg->wgs_per_cu}};
        tried = 1;
        size_t shape[2][3];
        for (int j = 0; j < nsides; j++) {
            shape[j][0] = shape[j][1] = sides[j];
            shape[j][2] = (size_t)ks[i];
        }
        const int won = reach_step(d, prec, (const size_t(*)[3])shape, nsides, x, deadline);
        if (won >= 0) {
            char outs[64] = "";
            for (int j = 0; j < nsides; j++)
                snprintf(outs + strlen(outs), sizeof outs - strlen(outs), "%s%zu^2",
                         j ? " and " : "", sides[j]);
            tune_say(r, "%s %cgemm large reach: k = %d on %s: large %.1f GFLOP/s, medium %.1f",
                     d->log_prefix, prec ? 'd' : 's', ks[i], outs,
                     x[1].score > 0 ? x[1].score : 0.0, x[0].score > 0 ? x[0].score : 0.0);
        }
        if (won != 1) break;
        reach = ks[i];
    }
    if (!same && !tried) {
        /* no time for a measurement: what the entry holds stays */
        tune_say(r, "%s %cgemm class large: no time to measure its reach (k_min %d kept)",
                 d->log_prefix, prec ? 'd' : 's', lg->k_min);
        return;
    }
    lg->k_min = reach;
    if (reach)
        tune_say(r, "%s %cgemm class large reaches down to k = %d", d->log_prefix,
                 prec ? 'd' : 's', reach);
    else
        tune_say(r, "%s %cgemm class large takes no medium outputs", d->log_prefix,
                 prec ? 'd' : 's');
}

int tune_classes(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline)
{
    chg_gemm_params_t main_gp;
    if (d->rec.prec[prec].present) main_gp = d->rec.prec[prec].gemm;
    else chg_gemm_params_select(&d->dev, prec, &main_gp);
    chg_gemm_params_main(&d->dev, prec, &main_gp);
    /* the classes but large (the GEMM search's), then rank_k's reach: an equal share each */
    int failures = 0, left = CHG_SHAPE_NCLASSES;
    for (int cls = 0; cls < CHG_SHAPE_NCLASSES && !r->stop; cls++) {
        if (cls == CHG_SHAPE_LARGE) continue;
        const double now = tune_now();
        const double until = now + (deadline - now) / left--;
        failures += tune_class(r, d, prec, cls, &main_gp, until) != 0;
    }
    if (!r->stop) tune_reach(r, d, prec, &main_gp, deadline);
    if (!d->rec.prec[prec].present && failures < CHG_SHAPE_NCLASSES - 1) {
        d->rec.prec[prec].present = 1; /* the classes go with these main parameters */
        d->rec.prec[prec].gemm = main_gp;
    }
    return failures ? -1 : 0;
}
