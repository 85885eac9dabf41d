/*
 * tune_cpumodel.c -- clhgemm-tune --cpu-model: the CPU/GPU split model of the host GEMM (Garcia,
 * Cuenca and Gimenez), measured on this machine and stored in the tuning database
 * (model.cpu_share.{s,d}, docs/TUNING.md), which the library's CLHGEMM_CPU_SHARE=auto then uses
 * (src/host/share.c, model_rows; the model itself is src/cpu/share_blas.h's chg_split_model_t).
 *
 * Per precision, within the phase's share of the budget:
 *   1. transfers: pinned blocking copies of 4 KiB .. 64 MiB each way, t = t_s + bytes * t_w by
 *      linear regression (the same pinned path as the bus figures of the pipeline phase, at
 *      several sizes so that the start-up cost t_s is seen);
 *   2. T_gpu: host-memory calls through the public API with the CPU share off (one handle on
 *      this device) over a small tuning set of shapes (m from S/4 to S, n = k = S, and S/2
 *      cubes; S = 8192 on GPUs, 384 elsewhere), the model's transfers of each shape subtracted,
 *      then k1 mnk + k2 mn + k3 by least squares (chg_tmodel_fit);
 *   3. T_cpu: OpenBLAS (chg_cpu_gemm) on the share's thread count, on slabs of S/16 .. S/4
 *      rows of the same n = k = S (the shape the CPU's share has), fitted the same way;
 *   4. the guided search as a check: a golden-section search over the share (fixed fractions
 *      through options.cpu_share, slab scheduler) of the S^3 hybrid call;
 *   5. gamma: the overlap factor that makes the model's max(T_cpu + gamma T_comm, T_gpu +
 *      T_comm) fit the hybrid runs of step 4 best (mean relative error, gamma in [0, 4]);
 *   6. the model's share for S^3 with that gamma (zero unless 2% faster, the library's rule),
 *      measured once, and reported next to the search's best;
 *   7. the mean relative prediction error over every run of the tuning set.
 * Every measurement goes to the log; the summary shows gamma, the error and the check.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/share_blas.h"
#include "tune.h"

typedef struct sample_s {
    int kind;               /* 0: devices alone, 1: CPU alone, 2: hybrid */
    double m, n, k, mc;     /* mc: rows on the CPU (hybrid) */
    double t;               /* measured seconds */
} sample_t;

#define MAX_SAMPLES 64

typedef struct ctx_s {
    tune_run_t *r;
    tdev_t *d;
    chg_precision_t prec;
    char pc;                /* 's' or 'd', for the log */
    double es;              /* element size in bytes */
    int threads;
    size_t S;
    void *A, *B, *C;        /* S x S each, ld S */
    double t_start, span;   /* the precision's start and share of the budget */
    chg_split_model_t sm;   /* the model being fitted */
    sample_t s[MAX_SAMPLES];
    int ns;
    double best_share, best_t; /* the guided search's best hybrid run */
    int evals;                 /* hybrid runs made */
} ctx_t;

static void add_sample(ctx_t *c, int kind, double m, double n, double k, double mc, double t)
{
    if (c->ns < MAX_SAMPLES) c->s[c->ns++] = (sample_t){kind, m, n, k, mc, t};
}

/* ---- transfers ---------------------------------------------------------------------------- */

static int fit_line(const double *x, const double *y, int n, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    const double den = n * sxx - sx * sx;
    if (n < 2 || !(fabs(den) > 0)) return -1;
    *b = (n * sxy - sx * sy) / den;
    *a = (sy - *b * sx) / n;
    return 0;
}

static int links(tune_run_t *r, tdev_t *d, chg_split_model_t *sm)
{
    const int gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    size_t big = gpu ? (64u << 20) : (16u << 20);
    while (big > d->dev.info.max_alloc_bytes / 2) big /= 2;
    cl_int err;
    cl_mem dev = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, big, NULL, &err);
    if (err != CL_SUCCESS) return -1;
    cl_mem pin = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, big, NULL, &err);
    void *host = pin ? clEnqueueMapBuffer(d->q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, big, 0,
                                          NULL, NULL, &err)
                     : NULL;
    if (!host) {
        if (pin) clReleaseMemObject(pin);
        clReleaseMemObject(dev);
        return -1;
    }
    memset(host, 1, big);
    double xs[8], th[8], td[8];
    int n = 0;
    for (size_t bytes = 4096; bytes <= big && n < 8; bytes *= 8) {
        double bh = INFINITY, bd = INFINITY;
        for (int rep = 0; rep < 5 && err == CL_SUCCESS; rep++) {
            double t0 = tune_now();
            err = clEnqueueWriteBuffer(d->q, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
            const double t1 = tune_now();
            if (err == CL_SUCCESS) err = clEnqueueReadBuffer(d->q, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
            const double t2 = tune_now();
            if (rep > 0) {
                bh = CHG_MIN(bh, t1 - t0);
                bd = CHG_MIN(bd, t2 - t1);
            }
        }
        if (err != CL_SUCCESS) break;
        xs[n] = (double)bytes;
        th[n] = bh;
        td[n] = bd;
        n++;
        if (bytes == big) break;
        if (bytes * 8 > big) bytes = big / 8;
    }
    clEnqueueUnmapMemObject(d->q, pin, host, 0, NULL, NULL);
    clFinish(d->q);
    clReleaseMemObject(pin);
    clReleaseMemObject(dev);
    if (err != CL_SUCCESS || fit_line(xs, th, n, &sm->h2d_ts, &sm->h2d_tw) ||
        fit_line(xs, td, n, &sm->d2h_ts, &sm->d2h_tw))
        return -1;
    /* A negative intercept is noise around zero; the slope is what matters. */
    sm->h2d_ts = CHG_MAX(0.0, sm->h2d_ts);
    sm->d2h_ts = CHG_MAX(0.0, sm->d2h_ts);
    sm->h2d_tw = CHG_MAX(0.0, sm->h2d_tw);
    sm->d2h_tw = CHG_MAX(0.0, sm->d2h_tw);
    tune_say(r, "%s cpu model: transfers (pinned, 4 KiB .. %zu MiB, %d sizes): host->device %.1f us + "
                "bytes / %.1f GB/s, device->host %.1f us + bytes / %.1f GB/s",
             d->log_prefix, big >> 20, n, sm->h2d_ts * 1e6, sm->h2d_tw > 0 ? 1e-9 / sm->h2d_tw : 0,
             sm->d2h_ts * 1e6, sm->d2h_tw > 0 ? 1e-9 / sm->d2h_tw : 0);
    return 0;
}

/* ---- runs --------------------------------------------------------------------------------- */

static clhgemm_status_t host_call(ctx_t *c, clhgemm_handle_t h, size_t m, size_t n, size_t k)
{
    const int S = (int)c->S;
    if (c->prec == CHG_F64)
        return clhgemm_dgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, (int)m, (int)n,
                             (int)k, 1.0, c->A, S, c->B, S, 0.5, c->C, S);
    return clhgemm_sgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, (int)m, (int)n, (int)k,
                         1.0f, c->A, S, c->B, S, 0.5f, c->C, S);
}

static clhgemm_handle_t open_handle(ctx_t *c, const char *share)
{
    char spec[32];
    snprintf(spec, sizeof spec, "%d", c->d->index);
    clhgemm_options_t o;
    clhgemm_options_init(&o);
    o.devices = spec;
    o.cpu_share = share;
    o.cpu_share_threads = c->threads;
    clhgemm_handle_t h = NULL;
    clhgemm_status_t st = clhgemm_create(&h, &o);
    if (st != CLHGEMM_SUCCESS) {
        tune_say(c->r, "%s cpu model: clhgemm_create(cpu_share %s): %s", c->d->log_prefix, share,
                 clhgemm_status_string(st));
        return NULL;
    }
    return h;
}

/* Median seconds of `reps` calls after one warm-up; negative on failure. */
static double time_host(ctx_t *c, clhgemm_handle_t h, size_t m, size_t n, size_t k, int reps,
                        clhgemm_call_info_t *info)
{
    double t[8];
    reps = CHG_MAX(1, CHG_MIN(reps, 8));
    for (int i = 0; i <= reps; i++) {
        const double t0 = tune_now();
        clhgemm_status_t st = host_call(c, h, m, n, k);
        if (st != CLHGEMM_SUCCESS) {
            tune_say(c->r, "%s cpu model: host call %zux%zux%zu: %s", c->d->log_prefix, m, n, k,
                     clhgemm_status_string(st));
            return -1;
        }
        if (i > 0) t[i - 1] = tune_now() - t0;
    }
    if (info) clhgemm_last_call_info(h, info);
    for (int i = 1; i < reps; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            const double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return t[reps / 2];
}

static double time_cpu(ctx_t *c, size_t m, size_t n, size_t k, int reps)
{
    double best = INFINITY;
    for (int i = 0; i <= reps; i++) {
        const double t0 = tune_now();
        chg_cpu_gemm(c->prec, 0, 0, m, n, k, 1.0, c->A, c->S, c->B, c->S, 0.5, c->C, c->S, c->threads);
        const double t = tune_now() - t0;
        if (i > 0 || reps == 0) best = CHG_MIN(best, t);
    }
    return best;
}

/* One hybrid run at a fixed share on its own handle (options.cpu_share is read at creation). */
static double hybrid(ctx_t *c, double share, double *mc)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.6f", share);
    clhgemm_handle_t h = open_handle(c, buf);
    if (!h) return -1;
    clhgemm_call_info_t info;
    const double t = time_host(c, h, c->S, c->S, c->S, 2, &info);
    clhgemm_destroy(h);
    if (t > 0) {
        *mc = info.cpu_fraction * (double)c->S;
        add_sample(c, *mc > 0 ? 2 : 0, (double)c->S, (double)c->S, (double)c->S, *mc, t);
        tune_log(c->r, "%s cpu model: hybrid n=%zu share %.4f (%.0f rows on the CPU): %.4f s", c->d->log_prefix,
                 c->S, share, *mc, t);
    }
    return t;
}

/* ---- the model's predictions --------------------------------------------------------------- */

static double predict(const chg_split_model_t *sm, const sample_t *s, double es)
{
    switch (s->kind) {
    case 0: return chg_split_time(sm, 0, s->m, s->n, s->k, es, 1, NULL, NULL);
    case 1: return CHG_MAX(0.0, chg_tmodel_eval(&sm->cpu, s->m, s->n, s->k));
    default: return chg_split_time(sm, s->mc, s->m, s->n, s->k, es, 1, NULL, NULL);
    }
}

static double mean_err(const chg_split_model_t *sm, const ctx_t *c, int kind, double es, int *count)
{
    double e = 0;
    int n = 0;
    for (int i = 0; i < c->ns; i++) {
        if (kind >= 0 && c->s[i].kind != kind) continue;
        e += fabs(predict(sm, &c->s[i], es) - c->s[i].t) / c->s[i].t;
        n++;
    }
    if (count) *count = n;
    return n ? e / n : -1;
}

/* ---- one precision's steps (the numbers of the file's top) ------------------------------- */

/* 2. T_gpu: the devices alone, cheapest shapes first, fitted into c->sm.gpu (*shapes of them,
 * relative error *err); 0, or -1 when the fit failed (said). */
static int fit_gpu(ctx_t *c, int *shapes, double *err)
{
    static const double gshape[][3] = {{0.25, 0.5, 0.5}, {0.5, 0.5, 0.5}, {0.25, 1, 1}, {0.5, 1, 1},
                                       {1, 1, 1}};
    const size_t S = c->S;
    clhgemm_handle_t h = open_handle(c, "off");
    double gm[8], gn[8], gk[8], gt[8];
    int ng = 0;
    for (int i = 0; h && i < 5 && !c->r->stop; i++) {
        if (ng >= 3 && tune_now() > c->t_start + 0.3 * c->span) break;
        const size_t m = (size_t)(gshape[i][0] * S), n = (size_t)(gshape[i][1] * S),
                     k = (size_t)(gshape[i][2] * S);
        const double t = time_host(c, h, m, n, k, 3, NULL);
        if (t <= 0) break;
        add_sample(c, 0, (double)m, (double)n, (double)k, 0, t);
        gm[ng] = (double)m;
        gn[ng] = (double)n;
        gk[ng] = (double)k;
        /* the model's T_gpu is the call less its transfers (at least a twentieth of it) */
        gt[ng] = CHG_MAX(0.05 * t, t - chg_split_comm(&c->sm, (double)m, (double)n, (double)k,
                                                      c->es, 1));
        tune_log(c->r, "%s cpu model %c: devices alone %zux%zux%zu: %.4f s (%.1f GFLOP/s)",
                 c->d->log_prefix, c->pc, m, n, k, t, 2.0 * m * n * k / t * 1e-9);
        ng++;
    }
    clhgemm_destroy(h);
    *shapes = ng;
    if (ng < 3 || chg_tmodel_fit(gm, gn, gk, gt, ng, &c->sm.gpu, err) || !(c->sm.gpu.k1 > 0)) {
        tune_say(c->r, "%s cpu model %c: the devices-alone fit failed (%d shapes)",
                 c->d->log_prefix, c->pc, ng);
        return -1;
    }
    return 0;
}

/* 3. T_cpu: OpenBLAS on slabs of rows, as the CPU's share is, fitted into c->sm.cpu (*shapes
 * of them, relative error *err); 0, or -1 when the fit failed (said). */
static int fit_cpu(ctx_t *c, int *shapes, double *err)
{
    static const double cshape[][3] = {{1.0 / 16, 0.5, 0.5}, {1.0 / 16, 1, 1}, {1.0 / 8, 1, 1},
                                       {0.25, 1, 1}};
    const size_t S = c->S;
    const int gpu = (c->d->dev.features & CHG_FEAT_GPU) != 0;
    double cm[8], cn[8], ck[8], ct[8];
    int nc = 0;
    for (int i = 0; i < 4 && !c->r->stop; i++) {
        const size_t m = CHG_MAX((size_t)8, (size_t)(cshape[i][0] * S)),
                     n = (size_t)(cshape[i][1] * S), k = (size_t)(cshape[i][2] * S);
        /* the next shape's cost from the last rate, against the CPU's part of the budget */
        if (nc >= 3 && nc > 0) {
            const double next =
                2.0 * m * n * k * ct[nc - 1] / (2.0 * cm[nc - 1] * cn[nc - 1] * ck[nc - 1]);
            if (tune_now() + next > c->t_start + 0.55 * c->span) break;
        }
        const double t = time_cpu(c, m, n, k, gpu ? 1 : 2);
        add_sample(c, 1, (double)m, (double)n, (double)k, 0, t);
        cm[nc] = (double)m;
        cn[nc] = (double)n;
        ck[nc] = (double)k;
        ct[nc] = t;
        tune_log(c->r, "%s cpu model %c: OpenBLAS (%d threads) %zux%zux%zu: %.4f s (%.1f GFLOP/s)",
                 c->d->log_prefix, c->pc, c->threads, m, n, k, t, 2.0 * m * n * k / t * 1e-9);
        nc++;
    }
    *shapes = nc;
    if (nc < 3 || chg_tmodel_fit(cm, cn, ck, ct, nc, &c->sm.cpu, err) || !(c->sm.cpu.k1 > 0)) {
        tune_say(c->r, "%s cpu model %c: the OpenBLAS fit failed (%d shapes)", c->d->log_prefix,
                 c->pc, nc);
        return -1;
    }
    return 0;
}

/* 4. The guided search: golden section over the share of the S^3 hybrid call, from the model's
 * share with gamma 0.1; the best run into c->best_share, c->best_t. */
static void guided_search(ctx_t *c)
{
    const double S = (double)c->S;
    c->sm.gamma = 0.1;
    double t_m0, mc;
    const double share0 = chg_split_best(&c->sm, S, S, S, c->es, 1, &t_m0) / S;
    double lo = 0, hi = CHG_MIN(0.9, CHG_MAX(0.1, 3.0 * share0));
    const double gr = 0.5 * (sqrt(5.0) - 1.0);
    c->best_share = 0;
    c->best_t = INFINITY;
    const double t0 = hybrid(c, 0.0, &mc);
    c->evals++;
    if (t0 > 0) c->best_t = t0;
    double x1 = hi - gr * (hi - lo), x2 = lo + gr * (hi - lo);
    double f1 = hybrid(c, x1, &mc), f2 = hybrid(c, x2, &mc);
    c->evals += 2;
    for (int it = 0; it < 5 && f1 > 0 && f2 > 0 && !c->r->stop; it++) {
        if (f1 < c->best_t) c->best_t = f1, c->best_share = x1;
        if (f2 < c->best_t) c->best_t = f2, c->best_share = x2;
        if (tune_now() > c->t_start + 0.9 * c->span) break;
        if (f1 <= f2) {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - gr * (hi - lo);
            f1 = hybrid(c, x1, &mc);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + gr * (hi - lo);
            f2 = hybrid(c, x2, &mc);
        }
        c->evals++;
    }
    if (f1 > 0 && f1 < c->best_t) c->best_t = f1, c->best_share = x1;
    if (f2 > 0 && f2 < c->best_t) c->best_t = f2, c->best_share = x2;
}

/* 5. gamma: the value in [0, 4] whose model fits the hybrid runs best, into c->sm.gamma. */
static void fit_gamma(ctx_t *c)
{
    double best_g = 0.1, best_e = INFINITY;
    int nh = 0;
    for (double g = 0; g <= 4.0 + 1e-9; g += 0.005) {
        c->sm.gamma = g;
        const double e = mean_err(&c->sm, c, 2, c->es, &nh);
        if (nh > 0 && e < best_e - 1e-12) best_e = e, best_g = g;
    }
    c->sm.gamma = best_g;
    tune_say(c->r, "%s cpu model %c: gamma %.3f from %d hybrid runs (their mean error %.1f%%)",
             c->d->log_prefix, c->pc, c->sm.gamma, nh, nh ? 100 * best_e : 0.0);
}

/* 6. The model's share of the S^3 call with that gamma (zero unless 2% faster, the library's
 * rule), its predicted time, and its measured time (a run of the tuning set at about that
 * share, else one more hybrid run). */
static void check_model(ctx_t *c, double *share, double *predicted, double *measured)
{
    const double S = (double)c->S;
    double t_model, mc;
    const double t_dev = chg_split_time(&c->sm, 0, S, S, S, c->es, 1, NULL, NULL);
    double share_m = chg_split_best(&c->sm, S, S, S, c->es, 1, &t_model) / S;
    if (!(t_model <= 0.98 * t_dev)) {
        share_m = 0;
        t_model = t_dev;
    }
    double t_meas = -1;
    for (int i = 0; i < c->ns; i++) {
        const sample_t *x = &c->s[i];
        if (x->m == S && x->n == S && fabs(x->mc / S - share_m) < 0.5 / S &&
            (x->kind == 2 || (x->kind == 0 && share_m == 0)))
            t_meas = x->t;
    }
    if (t_meas < 0) {
        t_meas = hybrid(c, share_m, &mc);
        c->evals++;
    }
    *share = share_m;
    *predicted = t_model;
    *measured = t_meas;
}

/* 7. The errors over every run, and the database entry of the precision. */
static void store_entry(ctx_t *c, double share_m, double t_model, double t_meas)
{
    chg_tuning_cpumodel_t *out = &c->d->rec.cpumodel[c->prec];
    memset(out, 0, sizeof *out);
    out->present = 1;
    out->split = c->sm;
    out->cpu_threads = c->threads;
    chg_cpu_corename(out->cpu_core, sizeof out->cpu_core);
    out->mean_rel_err = mean_err(&c->sm, c, -1, c->es, &out->samples);
    out->gpu_err = mean_err(&c->sm, c, 0, c->es, NULL);
    out->cpu_err = mean_err(&c->sm, c, 1, c->es, NULL);
    out->hybrid_err = mean_err(&c->sm, c, 2, c->es, NULL);
    out->check_n = (int)c->S;
    out->model_share = share_m;
    out->model_pred_s = t_model;
    out->model_s = CHG_MAX(0.0, t_meas);
    out->search_share = c->best_share;
    out->search_s = c->best_t < INFINITY ? c->best_t : 0;
    out->search_evals = c->evals;
    tune_say(c->r, "%s cpu model %c: mean prediction error %.1f%% over %d runs (devices %.1f%%, "
                   "CPU %.1f%%, hybrid %.1f%%); n=%zu: model share %.3f (predicted %.4f s, "
                   "measured %.4f s), guided search %.3f (%.4f s, %d runs)",
             c->d->log_prefix, c->pc, 100 * out->mean_rel_err, out->samples, 100 * out->gpu_err,
             100 * out->cpu_err, out->hybrid_err >= 0 ? 100 * out->hybrid_err : 0.0, c->S,
             share_m, t_model, t_meas, c->best_share, out->search_s, c->evals);
}

/* ---- one precision ------------------------------------------------------------------------- */

/* Steps 2 to 7 for one precision, the transfers (step 1) given in *link, until deadline. */
static int one_prec(tune_run_t *r, tdev_t *d, chg_precision_t prec, const chg_split_model_t *link,
                    int threads, double deadline)
{
    const int gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    const double es = (double)chg_elem_size(prec);
    ctx_t c = {.r = r, .d = d, .prec = prec, .pc = prec == CHG_F64 ? 'd' : 's', .es = es,
               .threads = threads, .S = gpu ? 8192 : 384};
    /* Three matrices must fit a fraction of the device (the devices-only calls keep whole
     * tiles) and of the host. */
    while (c.S > 256 && 3.0 * c.S * c.S * es > 0.3 * (double)d->dev.info.global_mem_bytes) c.S /= 2;
    const size_t nn = c.S * c.S;
    c.A = malloc(nn * (size_t)es);
    c.B = malloc(nn * (size_t)es);
    c.C = malloc(nn * (size_t)es);
    int rc = -1, ng = 0, nc = 0;
    double err_g = 0, err_c = 0, share_m, t_model, t_meas;
    if (!c.A || !c.B || !c.C) {
        tune_say(r, "%s cpu model %c: out of host memory for n=%zu", d->log_prefix, c.pc, c.S);
        goto out;
    }
    tune_fill(c.A, prec == CHG_F64, nn, r->o.seed ^ 0x11);
    tune_fill(c.B, prec == CHG_F64, nn, r->o.seed ^ 0x12);
    tune_fill(c.C, prec == CHG_F64, nn, r->o.seed ^ 0x13);
    c.t_start = tune_now();
    c.span = deadline - c.t_start;
    c.sm = *link;
    if (fit_gpu(&c, &ng, &err_g) != 0 || fit_cpu(&c, &nc, &err_c) != 0) goto out;
    tune_say(r, "%s cpu model %c: T_gpu = %.3g mnk + %.3g mn + %.3g (%d shapes, error %.1f%%); "
                "T_cpu = %.3g mnk + %.3g mn + %.3g (%d shapes, %d threads, error %.1f%%)",
             d->log_prefix, c.pc, c.sm.gpu.k1, c.sm.gpu.k2, c.sm.gpu.k3, ng, 100 * err_g,
             c.sm.cpu.k1, c.sm.cpu.k2, c.sm.cpu.k3, nc, threads, 100 * err_c);
    guided_search(&c);
    fit_gamma(&c);
    check_model(&c, &share_m, &t_model, &t_meas);
    store_entry(&c, share_m, t_model, t_meas);
    rc = 0;
out:
    free(c.A);
    free(c.B);
    free(c.C);
    return rc;
}

int tune_cpumodel(tune_run_t *r, tdev_t *d, int prec_mask, double deadline)
{
    char blas[256];
    chg_cpu_describe(blas, sizeof blas);
    if (!chg_cpu_available()) {
        tune_say(r, "%s cpu model: skipped: %s", d->log_prefix, blas);
        return 0;
    }
    const int threads = chg_cpu_share_threads_default();
    /* The hybrid runs measure the slab (fixed fractions mean rows only there). */
    setenv("CLHGEMM_CPU_SCHED", "slab", 1);
    tune_say(r, "%s cpu model: %s; the share's OpenBLAS threads: %d of %d cores", d->log_prefix, blas,
             threads, chg_cpu_cores());
    chg_split_model_t link;
    memset(&link, 0, sizeof link);
    if (links(r, d, &link) != 0) {
        tune_say(r, "%s cpu model: the transfer measurement failed", d->log_prefix);
        return -1;
    }
    int todo = 0, failed = 0;
    for (int p = 0; p < 2; p++)
        todo += (prec_mask & (1 << p)) && (p == CHG_F32 || (d->dev.features & CHG_FEAT_FP64));
    for (int p = 0; p < 2 && !r->stop; p++) {
        if (!(prec_mask & (1 << p)) || (p == CHG_F64 && !(d->dev.features & CHG_FEAT_FP64))) continue;
        const double now = tune_now();
        const double dl = now + (deadline - now) / CHG_MAX(1, todo--);
        if (one_prec(r, d, (chg_precision_t)p, &link, threads, dl) != 0) failed++;
    }
    return failed ? -1 : 0;
}
