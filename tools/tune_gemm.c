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
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gemm.h"
#include "tune.h"

#ifndef CL_DEVICE_REGISTERS_PER_BLOCK_NV
#define CL_DEVICE_REGISTERS_PER_BLOCK_NV 0x4002
#endif

#define FINAL_K 5
#define BEAM 8
#define NFIELDS 12

enum { ST_NEW = 0, ST_BUSY = 1, ST_DONE = 2 };

typedef struct cand_s {
    chg_gemm_params_t p;
    uint64_t key;
    signed char state;
    signed char stage;
    signed char radius;     /* neighbourhood radius already explored around it (0: none) */
    double kgf;             /* kernel GFLOP/s; 0: failed; <0: not timed */
    double found_at;        /* search seconds when it was timed */
    cl_program prog;        /* kept while it is among the best FINAL_K */
    cl_kernel kernel;
} cand_t;

typedef struct search_s {
    tune_run_t *r;
    tdev_t *d;
    chg_precision_t prec;
    size_t es;
    int gpu;
    cand_t *c;
    int n;
    int *order1;            /* stage-1 structures, model order */
    int n1, pos1;
    int seeds[2], nseeds, pos0;
    int stage;
    int best, def;          /* indices; -1 none */
    int center, radius;
    int *nbr;               /* neighbour list of the center */
    int nnbr, pos_nbr;
    int tried, failed, inflight;
    unsigned long long rng;
    double t_start, offset; /* search start (tune_now) and resumed seconds */
    double best_at;
    /* the problem */
    int size;
    size_t mmax, kmax;      /* padded extents the buffers hold */
    cl_mem A, B, C, Ap, Bp, Cp;
    void *hA, *hB, *hC0;    /* host copies (native precision) */
    void *ref;              /* reference C (n x n, native precision), NULL until verified */
    void *got;              /* read-back buffer (mmax x mmax) */
    chg_gemm_kernels_t ks;  /* pack kernels (+ write-back) of the library; gemm per candidate */
    int packed_mwg, packed_nwg, packed_kwg;
    double ref_err;
    wp_pool_t pool;
    int exclusive;          /* CPU device: no builds while timing */
} search_t;

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

static uint64_t pkey(const chg_gemm_params_t *p)
{
    return (uint64_t)p->mwg << 48 | (uint64_t)p->nwg << 38 | (uint64_t)p->kwg << 31 |
           (uint64_t)p->mdimc << 24 | (uint64_t)p->ndimc << 17 | (uint64_t)p->vwm << 13 |
           (uint64_t)p->vwn << 9 | (uint64_t)p->sa << 8 | (uint64_t)p->sb << 7 | (uint64_t)p->kwi |
           (uint64_t)p->mma << 57 | (uint64_t)p->wm << 60;
}

static int cmp_cand(const void *a, const void *b)
{
    uint64_t x = ((const cand_t *)a)->key, y = ((const cand_t *)b)->key;
    return (x > y) - (x < y);
}

static int find(const search_t *s, const chg_gemm_params_t *p)
{
    const uint64_t k = pkey(p);
    int lo = 0, hi = s->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (s->c[mid].key == k) return mid;
        if (s->c[mid].key < k) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static double lg2(double x) { return log(x) / log(2.0); }

/* ---- the space --------------------------------------------------------------------------- */

enum { PR_DIV, PR_WG, PR_SMALL, PR_REG, PR_LMEM, PR_CPU, PR_OTHER, PR_COUNT };
static const char *const prune_names[PR_COUNT] = {
    "divisibility", "work-group limit", "under 64 work-items (GPU)", "registers",
    "local memory", "CPU tile limits", "other"};

static int enumerate(search_t *s)
{
    const chg_device_t *dev = &s->d->dev;
    static const int tiles[] = {16, 32, 64, 128, 256};
    static const int kwgs[] = {8, 16, 32};
    static const int gdims[] = {8, 16, 32}, cdims[] = {4, 8, 16};
    static const int vws[] = {1, 2, 4, 8};
    static const int kwis[] = {1, 2, 4, 8, 16, 32};
    const int *dims = s->gpu ? gdims : cdims;
    cl_uint regs_per_block = 0;
    if (clGetDeviceInfo(dev->info.device, CL_DEVICE_REGISTERS_PER_BLOCK_NV, sizeof regs_per_block,
                        &regs_per_block, NULL) != CL_SUCCESS)
        regs_per_block = 0;
    const double w = (double)s->es / 4.0; /* 32-bit registers per element */
    long pruned[PR_COUNT] = {0}, raw = 0;
    size_t cap = 4096;
    s->c = malloc(cap * sizeof *s->c);
    if (!s->c) return -1;
    s->n = 0;
    for (int a = 0; a < 5; a++)
    for (int b = 0; b < 5; b++)
    for (int kk = 0; kk < 3; kk++)
    for (int md = 0; md < 3; md++)
    for (int nd = 0; nd < 3; nd++)
    for (int vm = 0; vm < 4; vm++)
    for (int vn = 0; vn < 4; vn++)
    for (int sa = 0; sa < 2; sa++)
    for (int sb = 0; sb < 2; sb++)
    for (int ki = 0; ki < 6; ki++) {
        chg_gemm_params_t p = {tiles[a], tiles[b], kwgs[kk], dims[md], dims[nd], vws[vm], vws[vn],
                               sa, sb, kwis[ki], 0, 0, 0, 0, 0};
        raw++;
        const int threads = p.mdimc * p.ndimc;
        if (p.kwg % p.kwi || p.mwg % (p.mdimc * p.vwm) || p.nwg % (p.ndimc * p.vwn)) {
            pruned[PR_DIV]++;
            continue;
        }
        if ((size_t)threads > dev->info.max_work_group_size) {
            pruned[PR_WG]++;
            continue;
        }
        if (s->gpu && threads < 64) {
            pruned[PR_SMALL]++;
            continue;
        }
        if (!s->gpu && (p.mwg > 64 || p.nwg > 64 || threads > 256)) {
            pruned[PR_CPU]++;
            continue;
        }
        const int mwi = p.mwg / p.mdimc, nwi = p.nwg / p.ndimc;
        const double loads_a = p.sa ? ceil((double)p.kwg * p.mwg / threads) : 0;
        const double loads_b = p.sb ? ceil((double)p.kwg * p.nwg / threads) : 0;
        const double regs = w * (mwi * nwi + mwi + nwi + loads_a + loads_b) + 12;
        if (mwi * nwi > 256 || (s->gpu && (regs > 255 || (regs_per_block &&
                                                           regs * threads > regs_per_block)))) {
            pruned[PR_REG]++;
            continue;
        }
        const double lmem = 2.0 * p.kwg * (p.sa * p.mwg + p.sb * p.nwg) * (double)s->es;
        if (lmem > (double)dev->info.local_mem_bytes) {
            pruned[PR_LMEM]++;
            continue;
        }
        if (!chg_gemm_params_valid(dev, s->prec, &p, NULL, 0)) {
            pruned[PR_OTHER]++;
            continue;
        }
        if ((size_t)s->n == cap) {
            cap *= 2;
            cand_t *g = realloc(s->c, cap * sizeof *g);
            if (!g) return -1;
            s->c = g;
        }
        cand_t *c = &s->c[s->n++];
        memset(c, 0, sizeof *c);
        c->p = p;
        c->key = pkey(&p);
        c->kgf = -1;
    }
    /* The FP64 tensor-core kernel (cl/gemm.cl MMA) where the device has it: every shape, tile,
     * k slice, work-group of 2-16 warps, warp arrangement and load width that
     * chg_gemm_params_valid accepts (whole mma instructions per warp, at most 128 accumulators,
     * local memory); SA/SB: both panels staged, B read from global memory, or both; KWI does
     * not apply. */
    if (s->prec == CHG_F64 && (dev->features & CHG_FEAT_NV_MMA_F64)) {
        static const int mtiles[] = {32, 64, 96, 128, 192, 256}, mkwgs[] = {4, 8, 16, 32};
        static const int wgs[][2] = {{16, 4}, {16, 8}, {32, 8}, {16, 16}, {32, 16}, {32, 32}};
        static const int wms[] = {1, 2, 4, 8}, mvws[] = {1, 2, 4};
        for (int mma = 1; mma <= 4; mma++)
        for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
        for (int kk = 0; kk < 4; kk++)
        for (int w = 0; w < 6; w++)
        for (int wmi = 0; wmi < 4; wmi++)
        for (int vm = 0; vm < 3; vm++)
        for (int vn = 0; vn < 3; vn++)
        for (int st = 0; st < 3; st++) {
            /* both panels staged, or B (the smaller reuse) read from global memory, or both */
            chg_gemm_params_t p = {mtiles[a], mtiles[b], mkwgs[kk], wgs[w][0], wgs[w][1],
                                   mvws[vm], mvws[vn], st < 2, st == 0, mkwgs[kk], mma, wms[wmi], 0, 0, 0};
            raw++;
            char why[160] = "";
            if (!chg_gemm_params_valid(dev, s->prec, &p, why, sizeof why)) {
                pruned[strstr(why, "local memory") ? PR_LMEM
                       : strstr(why, "accumulators") ? PR_REG
                       : strstr(why, "work-group limit") ? PR_WG : PR_DIV]++;
                continue;
            }
            if ((size_t)s->n == cap) {
                cap *= 2;
                cand_t *g = realloc(s->c, cap * sizeof *g);
                if (!g) return -1;
                s->c = g;
            }
            cand_t *c = &s->c[s->n++];
            memset(c, 0, sizeof *c);
            c->p = p;
            c->key = pkey(&p);
            c->kgf = -1;
        }
    }
    qsort(s->c, (size_t)s->n, sizeof *s->c, cmp_cand);
    char line[600];
    int len = snprintf(line, sizeof line, "%ld configurations, %d left after pruning (", raw, s->n);
    for (int i = 0; i < PR_COUNT; i++)
        if (pruned[i] && len < (int)sizeof line)
            len += snprintf(line + len, sizeof line - len, "%s%s %ld", len > 0 && line[len - 1] != '(' ? ", " : "",
                            prune_names[i], pruned[i]);
    tune_say(s->r, "%s %cgemm space: %s)%s", s->d->log_prefix, s->prec ? 'd' : 's', line,
             regs_per_block ? "" : "");
    if (regs_per_block)
        tune_log(s->r, "%s registers per block reported by the driver: %u", s->d->log_prefix,
                 regs_per_block);
    return 0;
}

/* Adds p to the space (seeds outside the pruned space, e.g. an earlier tuning result). */
static int ensure(search_t *s, const chg_gemm_params_t *p)
{
    int i = find(s, p);
    if (i >= 0) return i;
    if (!chg_gemm_params_valid(&s->d->dev, s->prec, p, NULL, 0)) return -1;
    cand_t *g = realloc(s->c, (size_t)(s->n + 1) * sizeof *g);
    if (!g) return -1;
    s->c = g;
    cand_t *c = &s->c[s->n++];
    memset(c, 0, sizeof *c);
    c->p = *p;
    c->key = pkey(p);
    c->kgf = -1;
    qsort(s->c, (size_t)s->n, sizeof *s->c, cmp_cand);
    return find(s, p);
}

/* ---- stage 1: structures ----------------------------------------------------------------- */

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

static int build_stage1(search_t *s)
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

/* ---- stages 2-4: neighbourhoods and random ------------------------------------------------ */

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
             s->prec ? 'd' : 's', radius == 1 ? 2 : 3, n, radius, buf);
}

#define NEXT_WAIT (-1)
#define NEXT_DONE (-2)

static int next_candidate(search_t *s)
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
    for (int guard = 0; guard < 4 * s->n + 16; guard++) {
        if (s->best < 0) {
            if (s->inflight > 0) return NEXT_WAIT;
            s->stage = 4;
        }
        if (s->stage == 4) {
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
        int top[BEAM], nt = 0;
        for (int i = 0; i < s->n; i++) {
            if (s->c[i].kgf <= 0) continue;
            int j = nt < BEAM ? nt++ : BEAM - 1;
            if (j == BEAM - 1 && nt == BEAM && s->c[top[j]].kgf >= s->c[i].kgf) continue;
            top[j] = i;
            for (; j > 0 && s->c[top[j - 1]].kgf < s->c[top[j]].kgf; j--) {
                int t = top[j];
                top[j] = top[j - 1];
                top[j - 1] = t;
            }
        }
        const int want = s->stage == 3 ? 2 : 1;
        int next = -1;
        for (int j = 0; j < nt && next < 0; j++)
            if (s->c[top[j]].radius < want) next = top[j];
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

/* ---- the problem on the device ------------------------------------------------------------ */

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

static int setup_problem(search_t *s)
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
    /* The library's pack and write-back kernels: the tuned copy parameters when this run (or
     * the database) has them, as in the library. */
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

static void free_problem(search_t *s)
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

/* Runs the candidate kernel once on freshly packed operands and checks the result.
 * 0 with *check set, or -1 with why. */
static int run_and_check(search_t *s, cand_t *c, double *check, char *why, size_t why_len)
{
    const chg_gemm_params_t *p = &c->p;
    const size_t n = (size_t)s->size;
    cl_command_queue q = s->d->q;
    chg_gemm_kernels_t ks = s->ks;
    ks.gp = *p;
    ks.gemm = c->kernel;
    cl_int err = CL_SUCCESS;
    if (s->packed_mwg != p->mwg || s->packed_kwg != p->kwg)
        err = chg_enqueue_pack_a(q, &ks, n, n, s->A, 0, n, s->Ap, 0, 0, 0, NULL, NULL);
    if (err == CL_SUCCESS && (s->packed_nwg != p->nwg || s->packed_kwg != p->kwg))
        err = chg_enqueue_pack_b(q, &ks, n, n, s->B, 0, n, s->Bp, 0, 0, 0, NULL, NULL);
    s->packed_mwg = s->packed_nwg = s->packed_kwg = 0;
    if (err == CL_SUCCESS) {
        s->packed_mwg = p->mwg;
        s->packed_nwg = p->nwg;
        s->packed_kwg = p->kwg;
    }
    const size_t mpad = chg_round_up(n, p->mwg), npad = chg_round_up(n, p->nwg),
                 kpad = chg_round_up(n, p->kwg);
    if (err == CL_SUCCESS)
        err = chg_enqueue_kernel(q, &ks, mpad, npad, kpad, s->Ap, 0, s->Bp, 0, s->Cp, 0, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(q, s->Cp, CL_TRUE, 0, mpad * npad * s->es, s->got, 0, NULL, NULL);
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

/* Kernel-alone GFLOP/s: adaptive number of reps, fewer for a slow candidate. */
static double time_candidate(search_t *s, cand_t *c, char *why, size_t why_len)
{
    const chg_gemm_params_t *p = &c->p;
    const size_t n = (size_t)s->size;
    const size_t mpad = chg_round_up(n, p->mwg), npad = chg_round_up(n, p->nwg);
    const size_t g[2] = {mpad / p->mwg * p->mdimc, npad / p->nwg * p->ndimc};
    const size_t l[2] = {(size_t)p->mdimc, (size_t)p->ndimc};
    cl_int err;
    double t1 = tune_time_kernel(s->d->q, c->kernel, 2, g, l, 1, &err);
    if (t1 <= 0) {
        snprintf(why, why_len, "timed launch failed (%s)", clhgemm_status_string(err));
        return 0;
    }
    const double flop = 2.0 * (double)n * n * n;
    double best_t = s->best >= 0 ? flop / (s->c[s->best].kgf * 1e9) : 0;
    int reps = (int)(0.25 / t1);
    if (reps < 3) reps = 3;
    if (reps > 15) reps = 15;
    if (best_t > 0 && t1 > 2.5 * best_t) reps = 1; /* clearly slower: one more is enough */
    double t = tune_time_kernel(s->d->q, c->kernel, 2, g, l, reps, &err);
    if (t <= 0) {
        snprintf(why, why_len, "timed launch failed (%s)", clhgemm_status_string(err));
        return 0;
    }
    if (reps == 1 && t1 < t) t = t1;
    return flop / t * 1e-9;
}

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
    int kept = 0;
    for (int i = 0; i < s->n; i++) {
        cand_t *c = &s->c[i];
        if (!c->kernel || i == s->def) continue;
        int better = 0;
        for (int j = 0; j < s->n; j++) better += s->c[j].kgf > c->kgf;
        if (better >= FINAL_K) release_kernel(c);
        else kept++;
    }
    (void)kept;
}

static double search_seconds(const search_t *s) { return s->offset + (tune_now() - s->t_start); }

static void csv_candidate(search_t *s, const cand_t *c, const char *status, double build_s,
                          double check, const char *why)
{
    FILE *f = s->r->cands;
    if (!f) return;
    char pbuf[200];
    chg_gemm_params_format(&c->p, pbuf, sizeof pbuf);
    fprintf(f, "%.3f,\"%s\",\"%s\",%c,%d,%d,\"%s\",%s,%.3f,%.3f,%.3g,\"%s\"\n", search_seconds(s),
            s->d->dev.info.name, s->d->dev.info.driver_version, s->prec ? 'd' : 's', s->size,
            c->stage, pbuf, status, c->kgf > 0 ? c->kgf : 0.0, build_s, check, why ? why : "");
    fflush(f);
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
    const int threads = c->p.mdimc * c->p.ndimc;
    if (!res->ok) {
        snprintf(why, sizeof why, "%s", res->reason);
    } else if (res->wg_max && res->wg_max < (size_t)threads) {
        snprintf(why, sizeof why,
                 "the built kernel allows %zu work-items per group, it needs %d (registers)",
                 res->wg_max, threads);
    } else {
        const double t0 = tune_now();
        const cl_int lerr = tune_program_from_binary(s->d, res, "clhgemm_gemm", &c->prog,
                                                     &c->kernel, why, sizeof why);
        load_s = tune_now() - t0;
        if (lerr == CL_SUCCESS && run_and_check(s, c, &check, why, sizeof why) == 0)
            c->kgf = time_candidate(s, c, why, sizeof why);
    }
    c->found_at = search_seconds(s);
    char pbuf[200];
    chg_gemm_params_format(&c->p, pbuf, sizeof pbuf);
    const char pc = s->prec ? 'd' : 's';
    if (c->kgf <= 0) {
        s->failed++;
        release_kernel(c);
        tune_log(s->r, "%s %cgemm #%d stage %d %s: FAILED: %s", s->d->log_prefix, pc, s->tried,
                 c->stage, pbuf, why);
        csv_candidate(s, c, "fail", res->build_s, check, why);
        return;
    }
    tune_log(s->r, "%s %cgemm #%d stage %d %s: %.1f GFLOP/s (build %.2f s, load %.2f s, check %.2g%s)",
             s->d->log_prefix, pc, s->tried, c->stage, pbuf, c->kgf, res->build_s, load_s, check,
             res->priv_mem ? ", spills to private memory" : "");
    csv_candidate(s, c, "ok", res->build_s, check, res->priv_mem ? "private memory used" : "");
    if (s->best < 0 || c->kgf > s->c[s->best].kgf) {
        const double prev = s->best >= 0 ? s->c[s->best].kgf : 0;
        s->best = idx;
        s->best_at = c->found_at;
        char t[32];
        tune_fmt_time(c->found_at, t, sizeof t);
        char gain[32] = "";
        if (prev > 0) snprintf(gain, sizeof gain, ", +%.1f%%", 100.0 * (c->kgf / prev - 1));
        tune_say(s->r, "%s %cgemm best %.1f GFLOP/s at %s (stage %d, #%d%s): %s", s->d->log_prefix,
                 pc, c->kgf, t, c->stage, s->tried, gain, pbuf);
        if (s->r->improve) {
            fprintf(s->r->improve, "%.3f,\"%s\",%c,%d,%d,%.3f,\"%s\"\n", c->found_at,
                    s->d->dev.info.name, pc, s->size, s->tried, c->kgf, pbuf);
            fflush(s->r->improve);
        }
    }
    keep_best(s);
}

/* ---- resume -------------------------------------------------------------------------------- */

/* Marks the candidates recorded in out_dir/candidates.csv for this device, precision and size as
 * done (with their kernel rate) and returns the search time they took. */
static double resume(search_t *s)
{
    if (!s->r->o.resume || !s->r->o.out_dir) return 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/candidates.csv", s->r->o.out_dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[2048];
    double offset = 0;
    int n = 0;
    const chg_device_t *dev = &s->d->dev;
    while (fgets(line, sizeof line, f)) {
        /* elapsed,"name","driver",prec,size,stage,"params",status,kgf,... */
        double el;
        char name[300], driver[200], params[200], status[16];
        char pc;
        int size, stage;
        double kgf;
        if (sscanf(line, "%lf,\"%299[^\"]\",\"%199[^\"]\",%c,%d,%d,\"%199[^\"]\",%15[^,],%lf", &el,
                   name, driver, &pc, &size, &stage, params, status, &kgf) != 9)
            continue;
        if (strcmp(name, dev->info.name) || strcmp(driver, dev->info.driver_version) ||
            pc != (s->prec ? 'd' : 's') || size != s->size)
            continue;
        chg_gemm_params_t p;
        memset(&p, 0, sizeof p);
        if (chg_gemm_params_parse(params, &p)) continue;
        int i = find(s, &p);
        if (i < 0) continue;
        s->c[i].state = ST_DONE;
        s->c[i].stage = (signed char)stage;
        s->c[i].kgf = strcmp(status, "ok") ? 0 : kgf;
        s->c[i].found_at = el;
        if (el > offset) offset = el;
        n++;
        s->tried++;
        if (s->c[i].kgf <= 0) s->failed++;
        if (s->c[i].kgf > 0 && (s->best < 0 || s->c[i].kgf > s->c[s->best].kgf)) {
            s->best = i;
            s->best_at = el;
        }
    }
    fclose(f);
    if (n)
        tune_say(s->r, "%s %cgemm: resuming after %d candidates (%.0f s of search)",
                 s->d->log_prefix, s->prec ? 'd' : 's', n, offset);
    return offset;
}

/* ---- builds ------------------------------------------------------------------------------ */

static int submit(search_t *s, int idx)
{
    char req[512];
    wp_gemm_request(s->prec, &s->c[idx].p, req, sizeof req);
    if (wp_submit(&s->pool, idx, req) != 0) return -1;
    s->c[idx].state = ST_BUSY;
    s->inflight++;
    return 0;
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
            if (wp_wait(&s->pool, 1.0, &res) == 1) {
                cand_t *x = &s->c[res.id];
                char why[256];
                if (res.ok) tune_program_from_binary(s->d, &res, "clhgemm_gemm", &x->prog, &x->kernel, why, sizeof why);
                free(res.binary);
            }
        }
    }
    while (wp_busy(&s->pool) > 0 && tune_now() < deadline + 30) {
        wp_result_t res;
        if (wp_wait(&s->pool, 1.0, &res) == 1) {
            cand_t *x = &s->c[res.id];
            char why[256];
            if (res.ok && !x->kernel)
                tune_program_from_binary(s->d, &res, "clhgemm_gemm", &x->prog, &x->kernel, why, sizeof why);
            free(res.binary);
        }
    }
}

/* ---- the final round: whole device calls ---------------------------------------------------- */

/* Seconds of one device call (pack A, pack B, kernel, write-back with beta 0.5), host clock
 * between two clFinish, as a caller would see it. */
static double time_call(search_t *s, const cand_t *c)
{
    const chg_gemm_params_t *p = &c->p;
    const size_t n = (size_t)s->size;
    cl_command_queue q = s->d->q;
    chg_gemm_kernels_t ks = s->ks;
    ks.gp = *p;
    ks.gemm = c->kernel;
    const size_t mpad = chg_round_up(n, p->mwg), npad = chg_round_up(n, p->nwg),
                 kpad = chg_round_up(n, p->kwg);
    if (clFinish(q) != CL_SUCCESS) return -1;
    const double t0 = tune_now();
    cl_int err = chg_enqueue_pack_a(q, &ks, n, n, s->A, 0, n, s->Ap, 0, 0, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = chg_enqueue_pack_b(q, &ks, n, n, s->B, 0, n, s->Bp, 0, 0, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = chg_enqueue_kernel(q, &ks, mpad, npad, kpad, s->Ap, 0, s->Bp, 0, s->Cp, 0, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = chg_enqueue_writeback(q, &ks, n, n, 1.0, 0.5, s->Cp, mpad, s->C, 0, n, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(q);
    s->packed_mwg = 0;
    return err == CL_SUCCESS ? tune_now() - t0 : -1;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void final_round(search_t *s, chg_tuning_prec_t *out, double deadline)
{
    int pick[FINAL_K + 1], np = 0;
    /* the FINAL_K best by kernel rate */
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
    rebuild(s, pick, np, deadline);
    const double flop = 2.0 * (double)s->size * s->size * s->size;
    double times[FINAL_K + 1][16];
    int reps = 7;
    int ok[FINAL_K + 1];
    for (int j = 0; j < np; j++) ok[j] = s->c[pick[j]].kernel != NULL;
    for (int j = 0; j < np; j++)
        if (ok[j]) ok[j] = time_call(s, &s->c[pick[j]]) > 0; /* warm-up */
    int done = 0;
    for (int r = 0; r < reps; r++) {
        for (int j = 0; j < np; j++) {
            if (!ok[j]) continue;
            times[j][r] = time_call(s, &s->c[pick[j]]);
            if (times[j][r] <= 0) ok[j] = 0;
        }
        done = r + 1;
        if (r >= 2 && tune_now() > deadline) break;
    }
    int best = -1;
    double best_med = 0, med[FINAL_K + 1];
    for (int j = 0; j < np; j++) {
        med[j] = 0;
        if (!ok[j] || done == 0) continue;
        double t[16];
        memcpy(t, times[j], sizeof(double) * (size_t)done);
        qsort(t, (size_t)done, sizeof *t, cmp_dbl);
        med[j] = t[done / 2];
        char pbuf[200];
        chg_gemm_params_format(&s->c[pick[j]].p, pbuf, sizeof pbuf);
        tune_log(s->r, "%s %cgemm final: %s%s: device call %.1f GFLOP/s (kernel %.1f), median of %d",
                 s->d->log_prefix, s->prec ? 'd' : 's', pbuf, pick[j] == s->def ? " (defaults)" : "",
                 flop / med[j] * 1e-9, s->c[pick[j]].kgf, done);
        if (best < 0 || med[j] < best_med) {
            best = j;
            best_med = med[j];
        }
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
    out->gflops = flop / best_med * 1e-9;
    out->kernel_gflops = w->kgf;
    out->best_at_seconds = w->found_at;
    for (int j = 0; j < np; j++)
        if (pick[j] == s->def && med[j] > 0) out->default_gflops = flop / med[j] * 1e-9;
}

/* ---- the phase ----------------------------------------------------------------------------- */

static int auto_jobs(const tdev_t *d, int requested)
{
    if (requested > 0) return requested;
    if (!(d->dev.features & CHG_FEAT_GPU)) return 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int j = cores > 2 ? (int)(cores / 2) : 1;
    return j > 8 ? 8 : j;
}

int tune_gemm(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline)
{
    search_t s;
    memset(&s, 0, sizeof s);
    s.r = r;
    s.d = d;
    s.prec = prec;
    s.es = chg_elem_size(prec);
    s.gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    s.best = s.def = s.center = -1;
    s.size = r->o.size ? r->o.size : (s.gpu ? 4096 : 256);
    s.rng = r->o.seed * 2654435761ULL + (unsigned long long)prec + 1;
    s.exclusive = !s.gpu;
    s.t_start = tune_now();
    const char pc = prec ? 'd' : 's';
    chg_tuning_prec_t *out = &d->rec.prec[prec];
    int rc = -1;

    if (enumerate(&s) != 0 || (!r->dry && setup_problem(&s) != 0)) goto done;
    chg_gemm_params_t def, cur;
    chg_gemm_params_default(&d->dev, prec, &def);
    chg_tuning_entry_t e;
    chg_tuning_lookup(&d->dev, prec, &e);
    cur = e.prec.gemm;
    ensure(&s, &def);
    ensure(&s, &cur);
    /* (indices are final only after both inserts) */
    s.def = find(&s, &def);
    const int ci = find(&s, &cur);
    if (s.def >= 0) s.seeds[s.nseeds++] = s.def;
    if (ci >= 0 && ci != s.def) s.seeds[s.nseeds++] = ci;
    if (build_stage1(&s) != 0) goto done;
    (r->dry ? tune_say : tune_log)(r, "%s %cgemm stage 1: %d structures (tile x work-group), model-ordered",
                                   d->log_prefix, pc, s.n1);
    if (r->dry) {
        rc = 0;
        goto done;
    }
    s.offset = resume(&s);

    char errlog[4200] = "";
    if (r->o.out_dir) snprintf(errlog, sizeof errlog, "%s/workers.log", r->o.out_dir);
    const int jobs = auto_jobs(d, r->o.jobs);
    if (wp_start(&s.pool, r->self_exe, d->index, jobs, errlog) == 0) {
        tune_say(r, "%s cannot start build workers (%s --worker)", d->log_prefix, r->self_exe);
        goto done;
    }
    tune_log(r, "%s %cgemm: %d build workers, n = %d, search until %.0f s from now", d->log_prefix,
             pc, s.pool.n, s.size, deadline - tune_now());

    /* Time for the final round: a few whole calls of six kernels (and rebuilds on resume). */
    const double span = deadline - tune_now();
    const double reserve = span > 20 ? (span * 0.08 < 20 ? span * 0.08 : 20) : span * 0.15;
    const double search_end = deadline - reserve;
    int exhausted = 0;
    wp_result_t pending[TUNE_MAX_WORKERS];
    int npending = 0;
    for (;;) {
        /* However short the budget, something is measured (normally the defaults). */
        const int must = s.best < 0 && s.tried < 3 && !r->stop;
        const int time_left = (tune_now() < search_end && !r->stop) || must;
        /* Dispatch: keep every worker busy (on a CPU device, only when nothing is timed). */
        while (time_left && !exhausted && wp_idle(&s.pool) > 0 && (!s.exclusive || npending == 0)) {
            int idx = next_candidate(&s);
            if (idx == NEXT_WAIT) break;
            if (idx == NEXT_DONE) {
                exhausted = 1;
                tune_say(r, "%s %cgemm: the whole space has been tried", d->log_prefix, pc);
                break;
            }
            if (submit(&s, idx) != 0) break;
        }
        if (npending == 0) {
            if (s.inflight == 0) break;
            if (!time_left) break;
            wp_result_t res;
            if (wp_wait(&s.pool, 0.5, &res) == 1) pending[npending++] = res;
            /* exclusive timing: collect every build in flight before timing */
            while (s.exclusive && npending > 0 && wp_busy(&s.pool) > 0 && npending < TUNE_MAX_WORKERS)
                if (wp_wait(&s.pool, 0.5, &pending[npending]) == 1) npending++;
        }
        if (npending > 0) {
            evaluate(&s, &pending[0]);
            free(pending[0].binary);
            memmove(pending, pending + 1, (size_t)(npending - 1) * sizeof *pending);
            npending--;
        }
        char t1[32], t2[32];
        tune_fmt_time(tune_now() - r->t0, t1, sizeof t1);
        tune_fmt_time(search_end - tune_now() > 0 ? search_end - tune_now() : 0, t2, sizeof t2);
        tune_progress(r, "%s %cgemm stage %d: %d/%d tried, %d failed, best %.1f GFLOP/s | %s elapsed, ETA %s",
                      d->log_prefix, pc, s.stage, s.tried, s.n, s.failed,
                      s.best >= 0 ? s.c[s.best].kgf : 0.0, t1, t2);
    }
    for (int i = 0; i < npending; i++) {
        /* built but not timed (budget over): dropped */
        s.c[pending[i].id].state = ST_NEW;
        free(pending[i].binary);
    }
    tune_progress_clear(r);
    if (s.best < 0) {
        tune_say(r, "%s %cgemm: no candidate could be timed (%d tried, %d failed)", d->log_prefix,
                 pc, s.tried, s.failed);
        goto done;
    }
    /* (the copy-kernel results of this run in *out stay) */
    out->present = 1;
    out->size = s.size;
    out->gflops = out->kernel_gflops = out->default_gflops = out->best_at_seconds = 0;
    final_round(&s, out, deadline);
    out->candidates = s.tried;
    out->failed = s.failed;
    out->search_seconds = search_seconds(&s);
    if (out->best_at_seconds == 0) out->best_at_seconds = s.best_at;
    {
        char pbuf[200];
        chg_gemm_params_format(&out->gemm, pbuf, sizeof pbuf);
        tune_say(r, "%s %cgemm chosen: %s: %.1f GFLOP/s device call (defaults %.1f), kernel %.1f; "
                    "%d candidates, %d failed, %d build crashes, %d build timeouts",
                 d->log_prefix, pc, pbuf, out->gflops, out->default_gflops, out->kernel_gflops,
                 s.tried, s.failed, s.pool.crashes, s.pool.timeouts);
    }
    rc = 0;
done:
    wp_stop(&s.pool);
    for (int i = 0; i < s.n; i++) release_kernel(&s.c[i]);
    clFinish(d->q);
    free_problem(&s);
    free(s.c);
    free(s.order1);
    free(s.nbr);
    return rc;
}
