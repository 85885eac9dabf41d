/*
 * tune_occupancy.c -- clhgemm-tune's occupancy phase: how many work-groups of each shape
 * class's configuration one compute unit runs at once, the class's "wgs_per_cu" in the
 * database, with which the device GEMM's tail split plans its waves (core/splitk.h
 * chg_splitk_tail: without it no tail is split).
 *
 * Measured, not derived: a work-item's registers are the compiler's choice and OpenCL does not
 * report them (an estimate from the accumulators and staged loads was wrong for two of four
 * H100 configurations: FP64 64 x 128 holds 2 work-groups per SM, FP32 128 x 128 one). What the
 * tail split needs is also the effective figure: a work-group that alone saturates its compute
 * unit counts as one however many could reside. So: a launch of T = CU * j tiles of the
 * configuration (r x c tiles, c the largest divisor of CU up to 16; k = 2048 rounded to KWG; C
 * := A*B, tail split off) takes about one tile's time while j is at most what a compute unit
 * runs at once, and about j tiles' beyond. j goes 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 (as
 * far as A, B and C of the largest launch fit a quarter of the device's memory and its largest
 * allocation); the first whose call takes more than 1.3 times j = 1's ends the probe, and the
 * answer is the j before it (the last j when none did). Each call: one warm-up (builds), then
 * the median of 3.
 *
 * Every class the precision's record holds gets it (the direct kernel, never tail-split,
 * excepted), configurations shared by several classes timed once; "large" (the main parameters,
 * which the classes without their own run) is written as a class of its own, split_k 1, so that
 * it carries its figure. Runs within its share of the budget (a configuration is started only
 * while the slowest so far still fits) and needs no other phase: `clhgemm-tune --occupancy
 * --out FILE` adds the figures to FILE's entry for the device. Then, in what is left of the
 * share, large's reach down along k into medium's outputs (tune_classes.c tune_large_reach),
 * which needs large's figure for its tail split.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "core/gemm.h"
#include "tune.h"

static const int steps[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
#define NSTEPS (int)(sizeof steps / sizeof steps[0])
#define GROWTH 1.3 /* a call this much slower than j = 1's: the compute units are full */
#define REPS 3

typedef struct oprob_s {
    tdev_t *d;
    chg_precision_t prec;
    size_t es, cu, c, k;   /* compute units, tile columns, k of the calls */
    int nsteps;            /* the steps whose launch fits (setup) */
    cl_mem a, b, cbuf;
} oprob_t;

/* The largest divisor of cu up to 16. */
static size_t columns(size_t cu)
{
    size_t c = cu < 16 ? cu : 16;
    while (c > 1 && cu % c) c--;
    return c ? c : 1;
}

/* Whether the launch of CU * j tiles of gp fits a quarter of the device's memory and its
 * largest allocation; bytes[] receives the sizes of A, B and C. */
static int fits(const oprob_t *p, const chg_gemm_params_t *gp, int j, size_t bytes[3])
{
    const size_t m = p->cu * (size_t)j / p->c * (size_t)gp->mwg;
    const size_t n = p->c * (size_t)gp->nwg;
    bytes[0] = m * p->k * p->es;
    bytes[1] = p->k * n * p->es;
    bytes[2] = m * n * p->es;
    const unsigned long long most = p->d->dev.info.max_alloc_bytes;
    return (unsigned long long)(bytes[0] + bytes[1] + bytes[2]) <=
               p->d->dev.info.global_mem_bytes / 4 &&
           bytes[0] <= most && bytes[1] <= most && bytes[2] <= most;
}

/* Buffers for the largest launch of gp that fits (p->nsteps steps), filled with a non-zero
 * pattern; 0, or -1 when not even j = 2 fits (or an allocation failed). */
static int setup(oprob_t *p, const chg_gemm_params_t *gp)
{
    p->k = chg_round_up(2048, (size_t)gp->kwg);
    size_t bytes[3];
    p->nsteps = NSTEPS;
    while (p->nsteps > 1 && !fits(p, gp, steps[p->nsteps - 1], bytes)) p->nsteps--;
    if (p->nsteps < 2) return -1;
    cl_mem *bufs[3] = {&p->a, &p->b, &p->cbuf};
    const double one = 0.5;
    const float onef = 0.5f;
    for (int i = 0; i < 3; i++) {
        cl_int err;
        *bufs[i] = clCreateBuffer(p->d->ctx, CL_MEM_READ_WRITE, bytes[i], NULL, &err);
        if (err != CL_SUCCESS) return -1;
        const void *pat = p->prec == CHG_F64 ? (const void *)&one : (const void *)&onef;
        if (clEnqueueFillBuffer(p->d->q, *bufs[i], pat, p->es, 0, bytes[i], 0, NULL, NULL) !=
            CL_SUCCESS)
            return -1;
    }
    return clFinish(p->d->q) == CL_SUCCESS ? 0 : -1;
}

static void teardown(oprob_t *p)
{
    if (p->a) clReleaseMemObject(p->a);
    if (p->b) clReleaseMemObject(p->b);
    if (p->cbuf) clReleaseMemObject(p->cbuf);
    p->a = p->b = p->cbuf = NULL;
}

/* Median seconds of a call of gp over CU * j tiles; < 0 when a call failed. */
static double time_tiles(oprob_t *p, const chg_gemm_params_t *gp, int j)
{
    chg_gemm_args_t a;
    memset(&a, 0, sizeof a);
    a.prec = p->prec;
    a.m = p->cu * (size_t)j / p->c * (size_t)gp->mwg;
    a.n = p->c * (size_t)gp->nwg;
    a.k = p->k;
    a.alpha = 1.0;
    a.beta = 0.0;
    a.a = p->a;
    a.b = p->b;
    a.c = p->cbuf;
    a.lda = a.m;
    a.ldb = a.k;
    a.ldc = a.m;
    double t[REPS];
    for (int r = -1; r < REPS; r++) {
        const double t0 = tune_now();
        if (chg_gemm_enqueue_with(&a, gp, 1, 0, p->d->q, 0, NULL, NULL) != CLHGEMM_SUCCESS ||
            clFinish(p->d->q) != CL_SUCCESS)
            return -1;
        if (r >= 0) t[r] = tune_now() - t0;
    }
    return tune_median(t, REPS);
}

/* gp's work-groups per compute unit (the module comment), 0 when it could not be measured. */
static int probe(tune_run_t *r, oprob_t *p, const chg_gemm_params_t *gp, const char *what)
{
    int wgs = 0;
    char buf[400];
    size_t used = 0;
    if (setup(p, gp) == 0) {
        double t1 = 0;
        for (int i = 0; i < p->nsteps && !r->stop; i++) {
            const double t = time_tiles(p, gp, steps[i]);
            if (t <= 0) break;
            if (used < sizeof buf)
                used += (size_t)snprintf(buf + used, sizeof buf - used, " j=%d %.3f ms",
                                         steps[i], t * 1e3);
            if (i == 0) t1 = t;
            if (t > GROWTH * t1) break;
            wgs = steps[i];
        }
    }
    teardown(p);
    if (!used) snprintf(buf, sizeof buf, " (no call ran)");
    tune_log(r, "%s %cgemm occupancy of %s:%s", p->d->log_prefix, p->prec ? 'd' : 's', what, buf);
    return wgs;
}

int tune_occupancy(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline)
{
    chg_tuning_prec_t *x = &d->rec.prec[prec];
    chg_gemm_params_t main_gp;
    if (x->present) main_gp = x->gemm;
    else chg_gemm_params_select(&d->dev, prec, &main_gp);
    chg_gemm_params_main(&d->dev, prec, &main_gp);
    chg_tuning_class_t *large = &x->classes[CHG_SHAPE_LARGE];
    if (!large->present) {
        memset(large, 0, sizeof *large);
        large->present = 1;
        large->gemm = main_gp;
        large->split_k = 1;
    }
    oprob_t p = {.d = d, .prec = prec, .es = chg_elem_size(prec)};
    p.cu = d->dev.info.compute_units ? d->dev.info.compute_units : 1;
    p.c = columns(p.cu);
    /* the tail split off while timing (CLHGEMM_TAIL_SLOTS could force it), restored after */
    const char *was = getenv("CLHGEMM_TAIL_SPLIT");
    char *saved = was ? strdup(was) : NULL;
    setenv("CLHGEMM_TAIL_SPLIT", "off", 1);
    int measured = 0, failed = 0;
    double slowest = 0;
    for (int c = 0; c < CHG_SHAPE_NCLASSES && !r->stop; c++) {
        chg_tuning_class_t *cl = &x->classes[c];
        if (!cl->present || cl->gemm.dk) continue;
        int done = 0; /* a class before with the same configuration */
        for (int o = 0; o < c && !done; o++)
            if (x->classes[o].present && x->classes[o].wgs_per_cu > 0 &&
                !memcmp(&x->classes[o].gemm, &cl->gemm, sizeof cl->gemm)) {
                cl->wgs_per_cu = x->classes[o].wgs_per_cu;
                done = 1;
            }
        if (done) continue;
        const double t0 = tune_now();
        if (measured && t0 + slowest > deadline) break;
        char pbuf[200];
        chg_gemm_params_format(&cl->gemm, pbuf, sizeof pbuf);
        const int wgs = probe(r, &p, &cl->gemm, pbuf);
        if (tune_now() - t0 > slowest) slowest = tune_now() - t0;
        measured++;
        if (wgs > 0) cl->wgs_per_cu = wgs;
        else failed++;
        tune_say(r, "%s %cgemm class %s: %d work-group%s per compute unit (%s)", d->log_prefix,
                 prec ? 'd' : 's', chg_shape_class_name(c), wgs, wgs == 1 ? "" : "s", pbuf);
    }
    if (saved) setenv("CLHGEMM_TAIL_SPLIT", saved, 1);
    else unsetenv("CLHGEMM_TAIL_SPLIT");
    free(saved);
    /* large's reach into medium's outputs, timed with the tail split just measured for */
    if (!r->stop && !failed) tune_large_reach(r, d, prec, &main_gp, deadline);
    if (!x->present) {
        x->present = 1; /* the figures go with these main parameters */
        x->gemm = main_gp;
    }
    return failed ? -1 : 0;
}
