/*
 * share.c -- the CPU's share of a host-memory GEMM (share.h): the decision (the split of Garcia,
 * Cuenca and Gimenez,
 * from the split model clhgemm-tune --cpu-model stored, else from OpenBLAS's measured rate)
 * and the threads that run it.
 */
#include <math.h>

#include "cpu/share_blas.h"
#include "host/sched.h"
#include "host/share.h"
#include "tuning/tuning.h"

/* ---- the decision ---------------------------------------------------------------------------- */

/* The split for the slab (Garcia, Cuenca and Gimenez): the CPU takes m_c rows so that its time
 * equals the devices' on the rest, slowed by gamma (the cores and memory bandwidth the share takes
 * from the pipeline): m_c * 2nk/r_cpu = (1 + gamma) * T_dev * (m - m_c)/m. Returns the rows and the
 * predicted time; 0 rows when the hybrid would not be at least 2% faster. */
static size_t split_rows(double m, double n, double k, double t_dev, double r_cpu, double gamma,
                         double *t_hybrid)
{
    *t_hybrid = t_dev;
    if (!(r_cpu > 0) || !(t_dev > 0)) return 0;
    const double a = 2.0 * n * k / r_cpu, b = (1.0 + gamma) * t_dev / m;
    const double mc = b * m / (a + b);
    const double t = a * mc;
    if (mc < 1.0 || t > 0.98 * t_dev) return 0;
    *t_hybrid = t;
    return (size_t)mc;
}

/* The same split from the split model clhgemm-tune --cpu-model stored for the device (their
 * model: T_gpu, T_cpu, transfers, gamma), used instead of the rates above when the handle has one
 * device whose exact tuning entry has a model measured with the handle's OpenBLAS threads.
 * Returns 1 when the model applies, with the rows (0 unless 2% faster) and the time. */
static int model_rows(clhgemm_handle_t h, chg_precision_t prec, double m, double n, double k,
                      int beta_nonzero, double t_plan, size_t *rows, double *t_hybrid)
{
    if (h->ndev != 1) return 0;
    chg_tuning_entry_t te;
    chg_tuned_entry(&h->devs[0].dev, prec, &te);
    const chg_tuning_cpumodel_t *cm = &te.cpumodel;
    if (!cm->present) return 0;
    if (cm->cpu_threads != h->cpu_threads) {
        chg_log(1, "CPU share (auto): the split model of %s was measured with %d OpenBLAS threads, "
                   "this handle has %d: not used",
                te.cpumodel_source, cm->cpu_threads, h->cpu_threads);
        return 0;
    }
    const double es = (double)chg_elem_size(prec);
    double t;
    const double mc = chg_split_best(&cm->split, m, n, k, es, beta_nonzero, &t);
    const double t_dev = chg_split_time(&cm->split, 0, m, n, k, es, beta_nonzero, NULL, NULL);
    /* The hybrid must also beat the planner's own prediction for the devices alone: the
     * model's T_gpu is fitted on a few shapes and extrapolates (on the H100 it put SGEMM at
     * n = 16384 at 3.8x the planner's figure, which was right within 7%, and a 3% share made
     * the call 16x slower), while the planner models this very call. */
    /* CLHGEMM_CPU_MODEL_ONLY=1 (tests, experiments): the stored model decides alone. */
    if (chg_env_flag("CLHGEMM_CPU_MODEL_ONLY", 0)) t_plan = 0;
    *rows = mc >= 1 && t <= 0.98 * t_dev && (t_plan <= 0 || t <= 0.98 * t_plan) ? (size_t)mc : 0;
    *t_hybrid = *rows ? t : t_dev;
    chg_log(1, "CPU share (auto): split model from %s (gamma %.2f, mean error %.1f%%): devices "
               "alone %.1f ms, %zu of %.0f rows to the CPU, %.1f ms%s",
            te.cpumodel_source, cm->split.gamma, 100.0 * cm->mean_rel_err, t_dev * 1e3, *rows, m,
            *t_hybrid * 1e3, *rows ? "" : " (no gain: the devices alone)");
    return 1;
}

/* CLHGEMM_CPU_SHARE=auto: the rows the split gives the CPU (0: none), and the predicted time. */
static size_t auto_rows(clhgemm_handle_t h, const chg_call_t *c, chg_share_t *out)
{
    double t_h;
    size_t rows = 0;
    if (!model_rows(h, c->prec, (double)c->m, (double)c->n, (double)c->k, c->beta != 0.0, c->pl.predicted,
                    &rows, &t_h)) {
        out->r_cpu = chg_cpu_rate(c->prec, h->cpu_threads);
        rows = split_rows((double)c->m, (double)c->n, (double)c->k, c->pl.predicted, out->r_cpu,
                          h->cpu_gamma, &t_h);
        chg_log(1, "CPU share (auto): OpenBLAS %.1f GFLOP/s on %d threads, devices' plan %.1f ms; "
                   "split model: %zu of %zu rows to the CPU, %.1f ms%s",
                out->r_cpu * 1e-9, h->cpu_threads, c->pl.predicted * 1e3, rows, c->m, t_h * 1e3,
                rows ? "" : " (no gain: the devices alone)");
    }
    if (rows) out->predicted = t_h;
    return rows;
}

void chg_share_decide(clhgemm_handle_t h, chg_call_t *c, chg_share_t *out)
{
    *out = (chg_share_t){.rows = 0, .predicted = c->pl.predicted, .r_cpu = 0};
    int any_gpu = 0;
    for (int i = 0; i < h->ndev; i++) any_gpu |= (h->devs[i].dev.features & CHG_FEAT_GPU) != 0;
    if (chg_env_flag("CLHGEMM_CPU_SHARE_ANY_DEVICE", 0)) any_gpu = 1;  /* test hook */
    /* Level-3 calls run without it (TRMM's in-place order and the triangles of SYRK/SYR2K are
     * the pipeline's business; OpenBLAS would need its own structured calls). */
    if (c->l3) return;
    if (h->cpu_mode == CPU_FIXED && h->cpu_fixed > 0) {
        if (h->cpu_sched == CPU_STRIPS && h->cpu_fixed < 1.0)
            c->cpu_strips = 1;
        else
            out->rows = CHG_MIN(c->m, CHG_MAX((size_t)1, (size_t)llround(h->cpu_fixed * (double)c->m)));
    } else if (h->cpu_mode == CPU_AUTO && any_gpu) {
        /* All of C on the CPU is the route's decision (host/route.c, OpenBLAS on every core),
         * not the share's: a share of all rows would run on the share's thread budget, and its
         * split model, fitted on large shapes, flipped an SGEMM of n = 2048 to the CPU in some
         * processes on the H100 machine (526 against 5,500 GFLOP/s on the devices).
         * CLHGEMM_CPU_MODEL_ONLY (tests, experiments) lets the stored model decide alone. */
        size_t rows = auto_rows(h, c, out);
        if (rows >= c->m && !chg_env_flag("CLHGEMM_CPU_MODEL_ONLY", 0)) {
            chg_log(1, "CPU share (auto): all %zu rows to the CPU refused (the route chose the devices)", c->m);
            rows = 0;
            out->predicted = c->pl.predicted;
        }
        if (rows && h->cpu_sched == CPU_STRIPS)
            c->cpu_strips = 1;
        else
            out->rows = rows;
    }
}

void chg_share_strip_rates(chg_call_t *c, double r_cpu)
{
    c->cpu_rate = r_cpu > 0 ? r_cpu : chg_cpu_rate(c->prec, c->cpu_threads);
    c->gpu_rate = 2.0 * (double)c->m * c->n * c->k / CHG_MAX(1e-9, c->pl.predicted);
    if (!(c->cpu_rate > 0)) c->cpu_strips = 0;
}

/* ---- the threads ------------------------------------------------------------------------------ */

/* CPU_STRIPS: column strips from the band schedule (chg_take_strip) until it says stop. */
static void *cpu_strips_main(void *arg)
{
    chg_call_t *c = arg;
    size_t ti, j0, w;
    while (chg_take_strip(c, &ti, &j0, &w)) {
        const size_t i0 = ti * c->pl.bm, mc = CHG_MIN(c->pl.bm, c->m - i0), es = c->es;
        const unsigned long long t0 = chg_now_ns();
        chg_cpu_gemm(c->prec, c->ta, c->tb, mc, w, c->k, c->alpha,
                     c->ta ? c->a + i0 * c->lda * es : c->a + i0 * es, c->lda,
                     c->tb ? c->b + j0 * es : c->b + j0 * c->ldb * es, c->ldb, c->beta,
                     c->c + (i0 + j0 * c->ldc) * es, c->ldc, c->cpu_threads);
        chg_trace_host(c->trace, "cpu openblas", "gemm strip", t0, chg_now_ns());
        pthread_mutex_lock(&c->mu);
        c->cpu_elems += (double)mc * w;
        pthread_mutex_unlock(&c->mu);
    }
    return NULL;
}

/* CPU_SLAB: rows [r0, r0 + rows) of C (column-major view) on the CPU, in one OpenBLAS call. */
static void *cpu_slab_main(void *arg)
{
    chg_share_run_t *r = arg;
    chg_call_t *c = r->c;
    const size_t es = c->es;
    const unsigned long long t0 = chg_now_ns();
    chg_cpu_gemm(c->prec, c->ta, c->tb, r->rows, c->n, c->k, c->alpha,
                 c->ta ? c->a + r->r0 * c->lda * es : c->a + r->r0 * es, c->lda, c->b, c->ldb,
                 c->beta, c->c + r->r0 * es, c->ldc, c->cpu_threads);
    chg_trace_host(c->trace, "cpu openblas", "gemm slab", t0, chg_now_ns());
    return NULL;
}

void chg_share_start(chg_call_t *c, size_t rows, chg_share_run_t *r)
{
    *r = (chg_share_run_t){.c = c, .r0 = c->m, .rows = rows};
    if (rows) {
        r->slab_on = pthread_create(&r->slab_th, NULL, cpu_slab_main, r) == 0;
        if (!r->slab_on) cpu_slab_main(r);  /* no thread: do it here, before the devices */
    }
    if (c->cpu_strips) r->strips_on = pthread_create(&r->strips_th, NULL, cpu_strips_main, c) == 0;
}

void chg_share_join(chg_share_run_t *r)
{
    if (r->slab_on) pthread_join(r->slab_th, NULL);
    if (r->strips_on) pthread_join(r->strips_th, NULL);
    r->c->cpu_elems += (double)r->rows * r->c->n;
}
