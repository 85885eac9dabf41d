/*
 * tune_gemm.c -- the GEMM kernel search of clhgemm-tune.
 *
 * Space. Every combination of MWG, NWG in {16..256}, KWG in {8, 16, 32}, MDIMC, NDIMC (GPU
 * {8, 16, 32}, CPU {4, 8, 16}), VWM, VWN in {1, 2, 4, 8}, SA, SB, KWI dividing KWG, pruned
 * before anything is built by: chg_gemm_params_valid (divisibility, work-group size, local
 * memory, accumulators), at least 64 work-items on GPUs (two warps or one wavefront), a
 * register estimate (accumulators + operand registers + prefetch) of at most 255 per work-item
 * and, where the driver reports it (NVIDIA), registers per block; on CPUs tiles up to 64 and
 * work-groups up to 256 (local memory is ordinary cache there; bigger tiles only add compile
 * time). For DGEMM on devices with NVIDIA FP64 tensor cores the FP64 tensor-core kernel joins
 * the space (MMA shape 1..4, tiles 32..256 with 96 and 192, KWG 4..32, 2-16 warps, WM, vector widths up to 4),
 * pruned by the same validity check; its structures (tile x work-group x shape) are ordered
 * before the FMA ones by the model. After the build, the driver's own CL_KERNEL_WORK_GROUP_SIZE removes kernels that
 * cannot launch with their work-group (registers), with that as the reason.
 *
 * Strategy (staged coarse-to-fine, model-ordered). Stage 0: the built-in defaults (also the
 * reference result) and the entry the library uses now. Stage 1: one representative per
 * structure (tile MWG x NWG x work-group MDIMC x NDIMC) with the cheap defaults for the rest
 * (KWG 16 or 8, the widest vectors up to 4 or 2, full unroll, local-memory staging on GPUs),
 * ordered by a small model (work-items near 256, accumulators near 64, square-ish tiles), so
 * that good structures are timed first. Stage 2: coordinate search: every configuration that
 * differs from the best in one parameter, moving to a better one as soon as it appears, then
 * around the next structures of the top 8 (a beam). Stage 3: configurations two parameters away
 * from the best. Stage 4: random sampling of what is left, until the budget ends. Random
 * sampling alone needs most of the space to find the top; the staged search reaches it within
 * the first few hundred candidates (see improvements.csv of a run).
 *
 * Every candidate is timed on random data (never zeros) and checked: the first good result
 * (normally the defaults') is verified against A*(B*t) for a random vector t in long double on
 * the host and kept as the reference; every later candidate's C must match it element-wise
 * within max|C| * k * eps. The search ranks by the kernel alone; the final choice re-times the
 * best five and the defaults as whole device calls (pack + kernel + write-back, as the library
 * runs them), interleaved, and takes the fastest.
 *
 * Files, one step each (shared state and calls in tune_gemm_int.h): this one runs the phase --
 * seeds, build workers, the loop that dispatches builds and evaluates their results, the chosen
 * entry; tune_gemm_space.c the pruned space; tune_gemm_order.c the stages' order;
 * tune_gemm_problem.c the operands, checks and timings on the device; tune_gemm_final.c the
 * final round; tune_gemm_record.c candidates.csv, improvements.csv and --resume.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune_gemm_int.h"

/* ---- the candidates' kernels ----------------------------------------------------------------- */

static void release_kernel(cand_t *c)
{
    if (c->kernel) clReleaseKernel(c->kernel);
    if (c->prog) clReleaseProgram(c->prog);
    c->kernel = NULL;
    c->prog = NULL;
}

/* Keeps the programs of the FINAL_K best (and the defaults) alive for the final round. */
static void keep_best(search_t *s)
{
    for (int i = 0; i < s->n; i++) {
        cand_t *c = &s->c[i];
        if (!c->kernel || i == s->def) continue;
        int better = 0;
        for (int j = 0; j < s->n; j++) better += s->c[j].kgf > c->kgf;
        if (better >= FINAL_K) release_kernel(c);
    }
}

/* ---- one result ------------------------------------------------------------------------------ */

/* Loads, checks and times a finished build: c->kgf, or 0 with why. */
static void measure(search_t *s, cand_t *c, const wp_result_t *res, double *check, double *load_s,
                    char *why, size_t why_len)
{
    const int threads = c->p.mdimc * c->p.ndimc;
    if (!res->ok) {
        snprintf(why, why_len, "%s", res->reason);
    } else if (res->wg_max && res->wg_max < (size_t)threads) {
        snprintf(why, why_len,
                 "the built kernel allows %zu work-items per group, it needs %d (registers)",
                 res->wg_max, threads);
    } else {
        const double t0 = tune_now();
        const cl_int lerr = tune_program_from_binary(s->d, res, "clhgemm_gemm", &c->prog,
                                                     &c->kernel, why, why_len);
        *load_s = tune_now() - t0;
        if (lerr == CL_SUCCESS && tg_run_and_check(s, c, check, why, why_len) == 0)
            c->kgf = tg_time_candidate(s, c, why, why_len);
    }
}

/* c (timed) as the new best: said, and a line of improvements.csv. */
static void new_best(search_t *s, int idx, const char *pbuf)
{
    const cand_t *c = &s->c[idx];
    const double prev = s->best >= 0 ? s->c[s->best].kgf : 0;
    s->best = idx;
    s->best_at = c->found_at;
    char t[32];
    tune_fmt_time(c->found_at, t, sizeof t);
    char gain[32] = "";
    if (prev > 0) snprintf(gain, sizeof gain, ", +%.1f%%", 100.0 * (c->kgf / prev - 1));
    tune_say(s->r, "%s %cgemm best %.1f GFLOP/s at %s (stage %d, #%d%s): %s", s->d->log_prefix,
             s->pc, c->kgf, t, c->stage, s->tried, gain, pbuf);
    tg_csv_improvement(s, c, pbuf);
}

static void evaluate(search_t *s, const wp_result_t *res)
{
    const int idx = (int)res->id;
    cand_t *c = &s->c[idx];
    c->state = ST_DONE;
    c->kgf = 0;
    s->inflight--;
    s->tried++;
    char why[512] = "";
    double check = NAN, load_s = 0;
    measure(s, c, res, &check, &load_s, why, sizeof why);
    c->found_at = tg_search_seconds(s);
    char pbuf[200];
    chg_gemm_params_format(&c->p, pbuf, sizeof pbuf);
    if (c->kgf <= 0) {
        s->failed++;
        release_kernel(c);
        tune_log(s->r, "%s %cgemm #%d stage %d %s: FAILED: %s", s->d->log_prefix, s->pc, s->tried,
                 c->stage, pbuf, why);
        tg_csv_candidate(s, c, "fail", res->build_s, check, why);
        return;
    }
    tune_log(s->r, "%s %cgemm #%d stage %d %s: %.1f GFLOP/s (build %.2f s, load %.2f s, check %.2g%s)",
             s->d->log_prefix, s->pc, s->tried, c->stage, pbuf, c->kgf, res->build_s, load_s, check,
             res->priv_mem ? ", spills to private memory" : "");
    tg_csv_candidate(s, c, "ok", res->build_s, check, res->priv_mem ? "private memory used" : "");
    if (s->best < 0 || c->kgf > s->c[s->best].kgf) new_best(s, idx, pbuf);
    keep_best(s);
}

/* ---- builds ---------------------------------------------------------------------------------- */

static int submit(search_t *s, int idx)
{
    char req[512];
    wp_gemm_request(s->prec, &s->c[idx].p, req, sizeof req);
    if (wp_submit(&s->pool, idx, req) != 0) return -1;
    s->c[idx].state = ST_BUSY;
    s->inflight++;
    return 0;
}

static int auto_jobs(const tdev_t *d, int requested)
{
    if (requested > 0) return requested;
    if (!(d->dev.features & CHG_FEAT_GPU)) return 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int j = cores > 2 ? (int)(cores / 2) : 1;
    return j > 8 ? 8 : j;
}

/* Starts the build workers. 0, or -1 (said). */
static int start_workers(search_t *s, double deadline)
{
    tune_run_t *r = s->r;
    char errlog[4200] = "";
    if (r->o.out_dir) snprintf(errlog, sizeof errlog, "%s/workers.log", r->o.out_dir);
    const int jobs = auto_jobs(s->d, r->o.jobs);
    if (wp_start(&s->pool, r->self_exe, s->d->index, jobs, errlog) == 0) {
        tune_say(r, "%s cannot start build workers (%s --worker)", s->d->log_prefix, r->self_exe);
        return -1;
    }
    tune_log(r, "%s %cgemm: %d build workers, n = %d, search until %.0f s from now", s->d->log_prefix,
             s->pc, s->pool.n, s->size, deadline - tune_now());
    return 0;
}

/* ---- the search ------------------------------------------------------------------------------ */

/* Keeps every idle worker busy with the next candidates. 1 when the space is through. */
static int dispatch(search_t *s)
{
    while (wp_idle(&s->pool) > 0) {
        int idx = tg_next_candidate(s);
        if (idx == NEXT_WAIT) break;
        if (idx == NEXT_DONE) {
            tune_say(s->r, "%s %cgemm: the whole space has been tried", s->d->log_prefix, s->pc);
            return 1;
        }
        if (submit(s, idx) != 0) break;
    }
    return 0;
}

static void progress(search_t *s, double search_end)
{
    tune_run_t *r = s->r;
    char t1[32], t2[32];
    tune_fmt_time(tune_now() - r->t0, t1, sizeof t1);
    tune_fmt_time(search_end - tune_now() > 0 ? search_end - tune_now() : 0, t2, sizeof t2);
    tune_progress(r, "%s %cgemm stage %d: %d/%d tried, %d failed, best %.1f GFLOP/s | %s elapsed, ETA %s",
                  s->d->log_prefix, s->pc, s->stage, s->tried, s->n, s->failed,
                  s->best >= 0 ? s->c[s->best].kgf : 0.0, t1, t2);
}

/* Builds and times candidates until search_end (or the space is through, or the run stops);
 * however short the budget, something is measured (normally the defaults). */
static void search(search_t *s, double search_end)
{
    tune_run_t *r = s->r;
    int exhausted = 0;
    wp_result_t pending[TUNE_MAX_WORKERS];
    int npending = 0;
    for (;;) {
        const int must = s->best < 0 && s->tried < 3 && !r->stop;
        const int time_left = (tune_now() < search_end && !r->stop) || must;
        /* Dispatch: keep every worker busy (on a CPU device, only when nothing is timed). */
        if (time_left && !exhausted && (!s->exclusive || npending == 0)) exhausted = dispatch(s);
        if (npending == 0) {
            if (s->inflight == 0) break;
            if (!time_left) break;
            wp_result_t res;
            if (wp_wait(&s->pool, 0.5, &res) == 1) pending[npending++] = res;
            /* exclusive timing: collect every build in flight before timing */
            while (s->exclusive && npending > 0 && wp_busy(&s->pool) > 0 && npending < TUNE_MAX_WORKERS)
                if (wp_wait(&s->pool, 0.5, &pending[npending]) == 1) npending++;
        }
        if (npending > 0) {
            evaluate(s, &pending[0]);
            free(pending[0].binary);
            memmove(pending, pending + 1, (size_t)(npending - 1) * sizeof *pending);
            npending--;
        }
        progress(s, search_end);
    }
    for (int i = 0; i < npending; i++) {
        /* built but not timed (budget over): dropped */
        s->c[pending[i].id].state = ST_NEW;
        free(pending[i].binary);
    }
    tune_progress_clear(r);
}

/* ---- the phase ------------------------------------------------------------------------------- */

static void init(search_t *s, tune_run_t *r, tdev_t *d, chg_precision_t prec)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    s->d = d;
    s->prec = prec;
    s->pc = prec ? 'd' : 's';
    s->es = chg_elem_size(prec);
    s->gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    s->best = s->def = s->center = -1;
    s->size = r->o.size ? r->o.size : (s->gpu ? 4096 : 256);
    s->rng = r->o.seed * 2654435761ULL + (unsigned long long)prec + 1;
    s->exclusive = !s->gpu;
    s->t_start = tune_now();
}

/* Stage 0's seeds (the built-in defaults and the entry the library uses now, added to the space
 * if outside it) and stage 1's structures. 0, or -1. */
static int seed(search_t *s)
{
    chg_gemm_params_t def, cur;
    chg_gemm_params_default(&s->d->dev, s->prec, &def);
    chg_tuning_entry_t e;
    chg_tuning_lookup(&s->d->dev, s->prec, &e);
    cur = e.prec.gemm;
    tg_ensure(s, &def);
    tg_ensure(s, &cur);
    /* (indices are final only after both inserts) */
    s->def = tg_find(s, &def);
    const int ci = tg_find(s, &cur);
    if (s->def >= 0) s->seeds[s->nseeds++] = s->def;
    if (ci >= 0 && ci != s->def) s->seeds[s->nseeds++] = ci;
    if (tg_build_stage1(s) != 0) return -1;
    (s->r->dry ? tune_say : tune_log)(s->r, "%s %cgemm stage 1: %d structures (tile x work-group), model-ordered",
                                      s->d->log_prefix, s->pc, s->n1);
    return 0;
}

/* The search's result into out (the copy-kernel results of this run in *out stay), said. */
static void conclude(search_t *s, chg_tuning_prec_t *out, double deadline)
{
    out->present = 1;
    out->size = s->size;
    out->gflops = out->kernel_gflops = out->default_gflops = out->best_at_seconds = 0;
    tg_final_round(s, out, deadline);
    out->candidates = s->tried;
    out->failed = s->failed;
    out->search_seconds = tg_search_seconds(s);
    if (out->best_at_seconds == 0) out->best_at_seconds = s->best_at;
    char pbuf[200];
    chg_gemm_params_format(&out->gemm, pbuf, sizeof pbuf);
    tune_say(s->r, "%s %cgemm chosen: %s: %.1f GFLOP/s device call (defaults %.1f), kernel %.1f; "
                   "%d candidates, %d failed, %d build crashes, %d build timeouts",
             s->d->log_prefix, s->pc, pbuf, out->gflops, out->default_gflops, out->kernel_gflops,
             s->tried, s->failed, s->pool.crashes, s->pool.timeouts);
}

int tune_gemm(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline)
{
    search_t s;
    init(&s, r, d, prec);
    int rc = -1;
    if (tg_enumerate(&s) != 0 || (!r->dry && tg_setup_problem(&s) != 0)) goto done;
    if (seed(&s) != 0) goto done;
    if (r->dry) {
        rc = 0;
        goto done;
    }
    s.offset = tg_resume(&s);
    if (start_workers(&s, deadline) != 0) goto done;
    /* Time for the final round: a few whole calls of six kernels (and rebuilds on resume). */
    const double span = deadline - tune_now();
    const double reserve = span > 20 ? (span * 0.08 < 20 ? span * 0.08 : 20) : span * 0.15;
    search(&s, deadline - reserve);
    if (s.best < 0) {
        tune_say(r, "%s %cgemm: no candidate could be timed (%d tried, %d failed)", d->log_prefix,
                 s.pc, s.tried, s.failed);
        goto done;
    }
    conclude(&s, &d->rec.prec[prec], deadline);
    rc = 0;
done:
    wp_stop(&s.pool);
    for (int i = 0; i < s.n; i++) release_kernel(&s.c[i]);
    clFinish(d->q);
    tg_free_problem(&s);
    free(s.c);
    free(s.order1);
    free(s.nbr);
    return rc;
}
