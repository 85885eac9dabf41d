/*
 * tune_gemm_order.c -- the order in which clhgemm-tune's GEMM search tries its space (the
 * stages of tune_gemm.c's header comment): the seeds (stage 0), one representative per
 * structure in the model's order (stage 1), the neighbourhoods of the best at distance 1 and 2
 * with a beam over the top BEAM (stages 2 and 3), random picks from what is left (stage 4).
 * Only indices into the space are chosen here; building, timing and the results that move the
 * center are the phase's (tune_gemm.c), so the strategy can change without touching either.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune_gemm_int.h"

#define BEAM 8
#define NFIELDS 12
#define NEXT_LATER (-3) /* next_seed_or_structure: on to the later stages */

/* The fields in the order the neighbourhood search prefers to change them (cheap, local
 * changes first; the tile structure last). */
static int field(const chg_gemm_params_t *p, int f)
{
    switch (f) {
    case 0: return p->kwi;
    case 1: return p->vwm;
    case 2: return p->vwn;
    case 3: return p->kwg;
    case 4: return p->sa;
    case 5: return p->sb;
    case 6: return p->mdimc;
    case 7: return p->ndimc;
    case 8: return p->mwg;
    case 9: return p->nwg;
    case 10: return p->wm;
    default: return p->mma;
    }
}

static double lg2(double x) { return log(x) / log(2.0); }

/* ---- stage 1: structures --------------------------------------------------------------------- */

static double cheap_distance(const search_t *s, const chg_gemm_params_t *p)
{
    if (p->mma) {
        /* square-ish warp tiles, the widest shape with a slice of 8 or 16, double2 loads */
        const int warps = p->mdimc * p->ndimc / 32, wn = warps / p->wm;
        const double wt = (double)(p->mwg / p->wm) / (p->nwg / wn);
        const int kpref = chg_mma_k(p->mma) > 8 ? 16 : 8;
        return fabs(lg2(wt)) + 2 * fabs(lg2((double)p->kwg / kpref)) +
               fabs(lg2((double)p->vwm / 2)) + fabs(lg2((double)p->vwn / 2)) + (p->sa != 1) +
               (p->sb != 1);
    }
    const int pkwg = s->gpu ? (s->prec == CHG_F64 ? 8 : 16) : 16;
    const int pvw = s->prec == CHG_F64 ? 2 : 4;
    const int pkwi = s->gpu ? p->kwg : 4;
    const int pst = s->gpu ? 1 : 0;
    const int mwi = p->mwg / p->mdimc, nwi = p->nwg / p->ndimc;
    const int wvm = pvw < mwi ? pvw : mwi, wvn = pvw < nwi ? pvw : nwi;
    return 2 * fabs(lg2((double)p->kwg / pkwg)) + fabs(lg2((double)p->vwm / wvm)) +
           fabs(lg2((double)p->vwn / wvn)) + fabs(lg2((double)p->kwi / pkwi)) +
           2 * (p->sa != pst) + 2 * (p->sb != pst);
}

/* The model that orders structures: lower is tried first. */
static double prior(const search_t *s, const chg_gemm_params_t *p)
{
    const double threads = p->mdimc * p->ndimc;
    const double acc = (double)(p->mwg / p->mdimc) * (p->nwg / p->ndimc);
    if (p->mma) /* tensor-core structures first (about twice the FMA units' rate): the
                 * larger shapes, 8 warps, 64 accumulators per work-item, 128 x 128 tiles */
        return -3 + 0.25 * (4 - p->mma) + fabs(lg2(threads / 256)) + 0.5 * fabs(lg2(acc / 64)) +
               0.25 * fabs(lg2((double)p->mwg * p->nwg / 16384)) +
               0.25 * fabs(lg2((double)p->mwg / p->nwg));
    if (s->gpu)
        return fabs(lg2(threads / 256)) + 0.5 * fabs(lg2(acc / 64)) +
               0.25 * fabs(lg2((double)p->mwg * p->nwg / 16384)) +
               0.25 * fabs(lg2((double)p->mwg / p->nwg));
    return fabs(lg2(acc / 16)) + 0.5 * fabs(lg2(threads / 64)) +
           0.25 * fabs(lg2((double)p->mwg / p->nwg));
}

static const search_t *g_sort_search;
static int cmp_prior(const void *a, const void *b)
{
    const search_t *s = g_sort_search;
    double x = prior(s, &s->c[*(const int *)a].p), y = prior(s, &s->c[*(const int *)b].p);
    return (x > y) - (x < y);
}

int tg_build_stage1(search_t *s)
{
    s->order1 = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *s->order1);
    if (!s->order1) return -1;
    s->n1 = 0;
    for (int i = 0; i < s->n; i++) {
        const chg_gemm_params_t *p = &s->c[i].p;
        /* the representative of its structure: the smallest cheap distance */
        int j = 0, rep = -1;
        for (j = 0; j < s->n1; j++) {
            const chg_gemm_params_t *q = &s->c[s->order1[j]].p;
            if (q->mwg == p->mwg && q->nwg == p->nwg && q->mdimc == p->mdimc &&
                q->ndimc == p->ndimc && q->mma == p->mma) {
                rep = j;
                break;
            }
        }
        if (rep < 0) s->order1[s->n1++] = i;
        else if (cheap_distance(s, p) < cheap_distance(s, &s->c[s->order1[rep]].p))
            s->order1[rep] = i;
    }
    g_sort_search = s;
    qsort(s->order1, (size_t)s->n1, sizeof *s->order1, cmp_prior);
    return 0;
}

/* ---- stages 2-4: neighbourhoods and random --------------------------------------------------- */

static int distance(const chg_gemm_params_t *a, const chg_gemm_params_t *b, double *closeness)
{
    int d = 0;
    double cl = 0;
    for (int f = 0; f < NFIELDS; f++) {
        const int x = field(a, f), y = field(b, f);
        if (x == y) continue;
        d++;
        /* fields early in the list are cheaper to change; small steps before large ones */
        cl += f + 4 * fabs(lg2((double)(x ? x : 1) / (y ? y : 1)));
    }
    if (closeness) *closeness = cl;
    return d;
}

typedef struct nb_s {
    int idx;
    double key;
} nb_t;

static int cmp_nb(const void *a, const void *b)
{
    double x = ((const nb_t *)a)->key, y = ((const nb_t *)b)->key;
    return (x > y) - (x < y);
}

static void set_center(search_t *s, int center, int radius)
{
    s->center = center;
    s->radius = radius;
    s->nnbr = s->pos_nbr = 0;
    nb_t *tmp = malloc((size_t)s->n * sizeof *tmp);
    if (!tmp) return;
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        double cl;
        if (distance(&s->c[center].p, &s->c[i].p, &cl) == radius) tmp[n++] = (nb_t){i, cl};
    }
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_nb);
    free(s->nbr);
    s->nbr = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->nbr);
    if (s->nbr)
        for (int i = 0; i < n; i++) s->nbr[i] = tmp[i].idx;
    s->nnbr = s->nbr ? n : 0;
    free(tmp);
    if (s->c[center].radius < radius) s->c[center].radius = (signed char)radius;
    char buf[200];
    chg_gemm_params_format(&s->c[center].p, buf, sizeof buf);
    tune_log(s->r, "%s %cgemm stage %d: %d configurations at distance %d from %s", s->d->log_prefix,
             s->pc, radius == 1 ? 2 : 3, n, radius, buf);
}

/* Stage 4: a random candidate not tried yet, NEXT_WAIT or NEXT_DONE. */
static int next_random(search_t *s)
{
    int left = 0;
    for (int i = 0; i < s->n; i++) left += s->c[i].state == ST_NEW;
    if (!left) return s->inflight > 0 ? NEXT_WAIT : NEXT_DONE;
    int pick = (int)(s->rng % (unsigned long long)left);
    s->rng = s->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    for (int i = 0; i < s->n; i++)
        if (s->c[i].state == ST_NEW && pick-- == 0) {
            s->c[i].stage = 4;
            return i;
        }
    return NEXT_DONE;
}

/* The best of the top BEAM by kernel rate whose neighbourhood of radius `want` has not been
 * explored, or -1. (A full list is compared with its last entry only once it is full: the
 * unsplit file's one test also compared the eighth candidate with top[7] before it was written,
 * reading an uninitialized index; with -O3 that crashed as soon as eight were timed.) */
static int beam_next(const search_t *s, int want)
{
    int top[BEAM], nt = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->c[i].kgf <= 0) continue;
        int j = BEAM - 1;
        if (nt < BEAM) j = nt++;
        else if (s->c[top[j]].kgf >= s->c[i].kgf) continue;
        top[j] = i;
        for (; j > 0 && s->c[top[j - 1]].kgf < s->c[top[j]].kgf; j--) {
            int t = top[j];
            top[j] = top[j - 1];
            top[j - 1] = t;
        }
    }
    for (int j = 0; j < nt; j++)
        if (s->c[top[j]].radius < want) return top[j];
    return -1;
}

/* Stages 0 and 1: the next seed, else the next structure (NEXT_WAIT while stage 1's results
 * are out); NEXT_LATER when both are through. */
static int next_seed_or_structure(search_t *s)
{
    while (s->pos0 < s->nseeds) {
        int i = s->seeds[s->pos0++];
        if (s->c[i].state == ST_NEW) {
            s->c[i].stage = 0;
            return i;
        }
    }
    if (s->r->o.random_search) s->stage = 4;
    if (s->stage <= 1) {
        s->stage = 1;
        while (s->pos1 < s->n1) {
            int i = s->order1[s->pos1++];
            if (s->c[i].state == ST_NEW) {
                s->c[i].stage = 1;
                return i;
            }
        }
        /* Stage 2 starts from the best of stage 1: wait for its results. */
        if (s->inflight > 0) return NEXT_WAIT;
        s->stage = 2;
    }
    return NEXT_LATER;
}

int tg_next_candidate(search_t *s)
{
    const int first = next_seed_or_structure(s);
    if (first != NEXT_LATER) return first;
    for (int guard = 0; guard < 4 * s->n + 16; guard++) {
        if (s->best < 0) {
            if (s->inflight > 0) return NEXT_WAIT;
            s->stage = 4;
        }
        if (s->stage == 4) return next_random(s);
        /* A better configuration becomes the center at once. */
        if (s->center < 0 || (s->best != s->center && s->c[s->best].kgf > s->c[s->center].kgf * 1.002 &&
                              s->c[s->best].radius < s->radius)) {
            set_center(s, s->best, s->stage == 3 ? 2 : 1);
            continue;
        }
        while (s->pos_nbr < s->nnbr) {
            int i = s->nbr[s->pos_nbr++];
            if (s->c[i].state == ST_NEW) {
                s->c[i].stage = (signed char)s->stage;
                return i;
            }
        }
        if (s->inflight > 0) return NEXT_WAIT;
        /* Neighbourhood done: the best unexplored of the top BEAM, else widen, else random. */
        const int want = s->stage == 3 ? 2 : 1;
        const int next = beam_next(s, want);
        if (next >= 0) {
            set_center(s, next, want);
            continue;
        }
        if (s->stage == 2) {
            s->stage = 3;
            set_center(s, s->best, 2);
            continue;
        }
        s->stage = 4;
    }
    return NEXT_DONE;
}
