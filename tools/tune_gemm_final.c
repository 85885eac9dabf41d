/*
 * tune_gemm_final.c -- the final round of clhgemm-tune's GEMM search: the search ranks by the
 * kernel alone, the choice is made on what a caller sees. The best FINAL_K by kernel rate and
 * the defaults are timed as whole device calls (packs, kernel, write-back; tune_gemm_problem.c),
 * interleaved, a few rounds until the deadline; the lowest median wins. Candidates without a
 * kernel (resumed from an earlier run's candidates.csv) are rebuilt first.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "tune_gemm_int.h"

#define FINAL_REPS 7

/* ---- rebuilding resumed candidates ----------------------------------------------------------- */

/* Loads a finished build into its candidate, unless that has a kernel already. */
static void load_built(search_t *s, wp_result_t *res)
{
    cand_t *x = &s->c[res->id];
    char why[256];
    if (res->ok && !x->kernel)
        tune_program_from_binary(s->d, res, "clhgemm_gemm", &x->prog, &x->kernel, why, sizeof why);
    free(res->binary);
}

/* Builds (and loads) the kernels of the given candidates that have none (resumed results). */
static void rebuild(search_t *s, const int *idx, int n, double deadline)
{
    for (int i = 0; i < n; i++) {
        cand_t *c = &s->c[idx[i]];
        if (c->kernel) continue;
        char req[512];
        wp_gemm_request(s->prec, &c->p, req, sizeof req);
        while (wp_submit(&s->pool, idx[i], req) != 0) {
            wp_result_t res;
            if (tune_now() > deadline || s->pool.n == 0) return;
            if (wp_wait(&s->pool, 1.0, &res) == 1) load_built(s, &res);
        }
    }
    while (wp_busy(&s->pool) > 0 && tune_now() < deadline + 30) {
        wp_result_t res;
        if (wp_wait(&s->pool, 1.0, &res) == 1) load_built(s, &res);
    }
}

/* ---- the round ------------------------------------------------------------------------------- */

/* The FINAL_K best by kernel rate, and the defaults if they were timed and are not among them.
 * Returns how many. */
static int pick_final(const search_t *s, int pick[FINAL_K + 1])
{
    int np = 0;
    for (int k = 0; k < FINAL_K; k++) {
        int b = -1;
        for (int i = 0; i < s->n; i++) {
            if (s->c[i].kgf <= 0) continue;
            int taken = 0;
            for (int j = 0; j < np; j++) taken |= pick[j] == i;
            if (!taken && (b < 0 || s->c[i].kgf > s->c[b].kgf)) b = i;
        }
        if (b >= 0) pick[np++] = b;
    }
    int has_def = 0;
    for (int j = 0; j < np; j++) has_def |= pick[j] == s->def;
    if (s->def >= 0 && s->c[s->def].kgf > 0 && !has_def) pick[np++] = s->def;
    return np;
}

/* Times the picks as device calls, interleaved: a warm-up, then rounds (at least three, more up
 * to FINAL_REPS while before the deadline). med[j]: the median seconds, 0 where j could not be
 * timed. Returns the number of rounds. */
static int time_picks(search_t *s, const int *pick, int np, double deadline, double *med)
{
    double times[FINAL_K + 1][16];
    int ok[FINAL_K + 1];
    for (int j = 0; j < np; j++) ok[j] = s->c[pick[j]].kernel != NULL;
    for (int j = 0; j < np; j++)
        if (ok[j]) ok[j] = tg_time_call(s, &s->c[pick[j]]) > 0; /* warm-up */
    int done = 0;
    for (int r = 0; r < FINAL_REPS; r++) {
        for (int j = 0; j < np; j++) {
            if (!ok[j]) continue;
            times[j][r] = tg_time_call(s, &s->c[pick[j]]);
            if (times[j][r] <= 0) ok[j] = 0;
        }
        done = r + 1;
        if (r >= 2 && tune_now() > deadline) break;
    }
    for (int j = 0; j < np; j++) {
        med[j] = 0;
        if (!ok[j] || done == 0) continue;
        double t[16];
        memcpy(t, times[j], sizeof(double) * (size_t)done);
        med[j] = tune_median(t, done);
    }
    return done;
}

void tg_final_round(search_t *s, chg_tuning_prec_t *out, double deadline)
{
    int pick[FINAL_K + 1];
    const int np = pick_final(s, pick);
    rebuild(s, pick, np, deadline);
    const double flop = 2.0 * (double)s->size * s->size * s->size;
    double med[FINAL_K + 1];
    const int done = time_picks(s, pick, np, deadline, med);
    int best = -1;
    for (int j = 0; j < np; j++) {
        if (med[j] == 0) continue;
        char pbuf[200];
        chg_gemm_params_format(&s->c[pick[j]].p, pbuf, sizeof pbuf);
        tune_log(s->r, "%s %cgemm final: %s%s: device call %.1f GFLOP/s (kernel %.1f), median of %d",
                 s->d->log_prefix, s->pc, pbuf, pick[j] == s->def ? " (defaults)" : "",
                 flop / med[j] * 1e-9, s->c[pick[j]].kgf, done);
        if (best < 0 || med[j] < med[best]) best = j;
    }
    if (best < 0) {
        /* No whole-call timing: the kernel ranking decides. */
        if (s->best >= 0) {
            out->gemm = s->c[s->best].p;
            out->kernel_gflops = s->c[s->best].kgf;
        }
        return;
    }
    const cand_t *w = &s->c[pick[best]];
    out->gemm = w->p;
    out->gflops = flop / med[best] * 1e-9;
    out->kernel_gflops = w->kgf;
    out->best_at_seconds = w->found_at;
    for (int j = 0; j < np; j++)
        if (pick[j] == s->def && med[j] > 0) out->default_gflops = flop / med[j] * 1e-9;
}
