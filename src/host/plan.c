/*
 * plan.c -- the planner and its time model (plan.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/calibrate.h"
#include "host/plan.h"
#include "host/shared_b.h"
#include "tuning/tuning.h"

const char *const chg_amode_name[] = {"streamed", "resident", "resident+prefetch"};

/* Device bytes of a plan (per device); *largest gets the largest single buffer. */
static unsigned long long plan_mem(const chg_pctx_t *c, size_t bm, size_t bn, size_t bk, int amode,
                                   unsigned long long *largest)
{
    const unsigned long long es = c->es;
    const unsigned long long bmp = chg_round_up(bm, c->tile_m), bnp = chg_round_up(bn, c->tile_n),
                             bkp = chg_round_up(bk, c->tile_k), kt = chg_plan_kt(c, bk);
    const unsigned long long kg = (unsigned long long)CHG_MAX(c->kgroup, 1);
    const unsigned long long af = c->cplx ? 2 : 1; /* the packed A of a complex call (core/blocks.h) */
    const unsigned long long araw = bm * bk * es, braw = bk * bn * es, bpack = bkp * bnp * es * kg,
                             aband = af * bmp * bkp * es * (amode == AMODE_STREAM ? 1 : kt),
                             cdev = bm * bn * es, cp = bmp * bnp * es;
    const int nbands = amode == AMODE_PREFETCH ? 2 : 1;
    if (largest) *largest = CHG_MAX(CHG_MAX(CHG_MAX(araw, braw), CHG_MAX(bpack, aband)), CHG_MAX(cdev, cp));
    return NSTAGE * (araw + braw) + bpack + nbands * aband + 2 * cdev + cp;
}

/* Pinned staging of a plan (per device): the slice rings, C in (beta != 0) and C out. */
static unsigned long long plan_pinned(const chg_pctx_t *c, size_t bm, size_t bn, size_t bk)
{
    const unsigned long long es = c->es;
    return NSTAGE * ((unsigned long long)bm * bk + (unsigned long long)bk * bn) * es +
           (NOUT + (c->beta_zero ? 0 : 1)) * (unsigned long long)bm * bn * es;
}

static int plan_fits(const chg_pctx_t *c, size_t bm, size_t bn, size_t bk, int amode)
{
    unsigned long long largest;
    if (plan_mem(c, bm, bn, bk, amode, &largest) > c->mem || largest > c->max_alloc) return 0;
    /* Page-locked memory is taken from the user's own host memory, which the matrices fill. */
    if (plan_pinned(c, bm, bn, bk) * (unsigned long long)c->ndev > c->pinned) return 0;
    /* 32-bit indices in the kernels' workspace: Cp, and the packed panels a pack or a launch
     * indexes from one base (a resident band holds all of k in each panel, a packed B buffer a
     * group of slices). */
    const unsigned long long bmp = chg_round_up(bm, c->tile_m), bnp = chg_round_up(bn, c->tile_n),
                             bkp = chg_round_up(bk, c->tile_k);
    const unsigned long long x = c->cplx ? 2 : 1; /* the kernel's reals per complex k row, C row */
    if (amode != AMODE_STREAM && x * x * bmp * bkp * chg_plan_kt(c, bk) >= (1ull << 31)) return 0;
    if (x * bnp * bkp * (unsigned long long)CHG_MAX(c->kgroup, 1) >= (1ull << 31)) return 0;
    return x * bmp * bnp < (1ull << 31);
}

/* The steady state: the four stages run concurrently, so the slowest binds, but a stage
 * close to the binding one still costs (jitter, shared host memory): a p-norm (p = 6) instead
 * of a hard maximum, e.g. +2% when the second stage is at 80% of the first, +12% at 100%. */
static double steady_time(const chg_pterms_t *t)
{
    const double x[4] = {t->compute + t->devcopy, t->h2d, t->d2h, t->pack};
    double mx = 0, sum = 0;
    for (int i = 0; i < 4; i++) mx = CHG_MAX(mx, x[i]);
    if (mx <= 0) return 0;
    for (int i = 0; i < 4; i++) sum += pow(x[i] / mx, 6.0);
    return mx * pow(sum, 1.0 / 6.0);
}

/* Column pieces of a device's final tile (rows x cols, kernel tiles tile_m x tile_n): 4 or 2
 * when each piece still gives every compute unit two work-groups, so that the pieces' trips
 * home overlap the remaining kernels; 1 when A is streamed, since each piece would then move
 * the tile's A again (at n = 16384 on the H100 a one-tile plan moved A four times and ran at
 * 40% of the device-only rate). The planner's model and the driver both use it. */
int chg_final_pieces(size_t rows, size_t cols, size_t tile_m, size_t tile_n, unsigned cus,
                     int amode)
{
    if (amode == AMODE_STREAM) return 1;
    const size_t wg_rows = (rows + tile_m - 1) / tile_m;
    for (int sp = 4; sp > 1; sp /= 2)
        if (cols >= (size_t)sp * tile_n && wg_rows * (cols / (size_t)sp / tile_n) >= 2u * cus)
            return sp;
    return 1;
}

/* The time of a device's first k slice (bm x bk of A, bk x bn of B) through the pack threads
 * and the bus: what the pipeline waits for before its first kernel. */
static double first_slice_time(const chg_pctx_t *c, size_t bm, size_t bn, size_t bk)
{
    const double s = (double)c->es, nd = c->ndev;
    const double bsh = c->share_b ? 1.0 : nd;
    return s * (double)bk * (((double)bm * nd + (double)bn * bsh) / c->pack + ((double)bm + bn) * nd / c->h2d);
}

/* Parts of a device's first k slice (the ramp): CLHGEMM_RAMP forces a count (c->ramp > 0).
 * Otherwise the count r of 1 .. CHG_RAMP_MAX with the least fill, ramp_fill: f / r, f the first
 * slice's time, plus RAMP_PART_STEPS step costs for each part after the first. A part costs
 * about four steps on the H100: its A and B copies and its launch wait on one another (the
 * kernel queue's idle gaps between parts were 0.09-0.15 ms in DGEMM n = 512's trace), and its
 * shorter copies and launch run less efficiently (forced counts in one lease: one part more
 * cost DGEMM n = 2048 0.2 ms and SGEMM 0.4 ms, three more DGEMM n = 4096 0.7 ms). Four parts at
 * every size (the count before) made DGEMM n = 512 from host memory take 0.9 ms a call against
 * 0.7 with one. */
#define CHG_RAMP_MAX 4
#define RAMP_PART_STEPS 4.0
static double ramp_fill(const chg_pctx_t *c, double f, int r)
{
    return f / r + (r - 1) * RAMP_PART_STEPS * c->step_cost;
}

/* The count for a first slice of time f (chg_plan_ramp's rule). */
static int ramp_count(const chg_pctx_t *c, double f)
{
    if (c->ramp > 0) return c->ramp;
    if (!(c->step_cost > 0) || !(c->pack > 0) || !(c->h2d > 0)) return CHG_RAMP_MAX;
    int best = 1;
    for (int r = 2; r <= CHG_RAMP_MAX; r++)
        if (ramp_fill(c, f, r) < ramp_fill(c, f, best)) best = r;
    return best;
}

int chg_plan_ramp(const chg_pctx_t *c, size_t bm, size_t bn, size_t bk)
{
    return ramp_count(c, first_slice_time(c, bm, bn, bk));
}

/* The start of a device after the first, in fixed step costs (chg_plan_time's setup term). */
#define SETUP_STEPS 2.0

/* Time model of a plan (the out-of-core GEMM paper's bound on block sizes from the bus bandwidth
 * and the kernel rate, plus what the traces showed matters): the steady state
 * is bound by the slowest of kernel, bus each way and the pack threads; on top come the bursts
 * of A traffic when a band starts without prefetch, the pipeline's fill (first slice) and
 * drain (last tile home), the tail imbalance between devices, and a fixed cost per k step. */
double chg_plan_time(const chg_pctx_t *c, size_t bm, size_t bn, size_t bk, int amode, chg_pterms_t *out)
{
    const double s = (double)c->es, m = (double)c->m, n = (double)c->n, k = (double)c->k * CHG_MAX(c->segs, 1);
    const double mt = ceil(m / bm), nt = ceil(n / bn), kt = (double)chg_plan_kt(c, bk), nd = c->ndev;
    /* Wave quantisation: a kernel over a tile runs in rounds of (compute units x 2) work-groups
     * (two resident per unit for the default GPU kernels); the last round may be partly idle,
     * and a tile smaller than one round leaves the device partly idle throughout. */
    const double wgs = ceil((double)bm / c->tile_m) * ceil((double)bn / c->tile_n);
    const double round_wgs = 2.0 * c->cus;
    const double fill = wgs / (ceil(wgs / round_wgs) * round_wgs);
    const double dev_rate = c->rate / nd * fill;
    chg_pterms_t t = {0};
    /* a complex product is 4 real ones (the kernel's rate counts real flops) */
    const double fl = c->cplx ? 8.0 : 2.0;
    t.compute = fl * m * n * k / (dev_rate * nd);
    /* A moves once per tile when streamed; resident, once per band and device working on it
     * (with fewer bands than devices, several devices share a band and each loads it). */
    const double a_bytes = amode == AMODE_STREAM ? s * m * k * nt
                                                 : s * m * k * CHG_MAX(1.0, CHG_MIN(nd, mt * nt) / mt);
    const double b_bytes = s * k * n * mt;
    /* B through the pack threads: once per band, or, shared (shared_b.h), once per nd bands that
     * the devices walk together; bsh: the devices' copies of one B panel packed. */
    const double bsh = c->share_b ? 1.0 : nd;
    const double full = floor(m / bm);  /* a shorter last band runs out of step with the others */
    const double b_pack = c->share_b ? s * k * n * (ceil(full / nd) + (mt - full)) : b_bytes;
    const double cin = c->beta_zero ? 0.0 : s * m * n, cout = s * m * n;
    /* Device memory traffic on the kernel queue: the pack kernels read the raw slice and write
     * the packed one, every kernel launch after a tile's first (one per group of kgroup k
     * slices where A is resident) reads and rewrites Cp, and the write-back reads Cp (and C)
     * and writes C. */
    const double tiles = mt * nt;
    const double bmp = (double)chg_round_up(bm, c->tile_m), bnp = (double)chg_round_up(bn, c->tile_n);
    const double launches = amode == AMODE_STREAM ? kt : ceil(kt / CHG_MAX(c->kgroup, 1));
    const double acc = tiles * (launches - 1.0) * 2.0 * s * bmp * bnp;
    const double wb = tiles * (c->beta_zero ? 2.0 : 3.0) * s * bmp * bnp;
    t.devcopy = (2.0 * (a_bytes + b_bytes) + acc + wb) / (c->dev * nd);
    t.h2d = (a_bytes + b_bytes + cin) / c->h2d;
    t.d2h = cout / c->d2h;
    t.pack = (a_bytes + b_pack + cin + cout) / c->pack;
    /* A band start without prefetch: the tile that loads the band moves A and B slices and its
     * C traffic through pack threads shared by all devices, against one tile's kernel time. */
    const double tile_compute = fl * bm * bn * k / dev_rate;
    if (amode != AMODE_STREAM) {
        const double tile_pack = s * (k * (bm * nd + bn * bsh) + (c->beta_zero ? 1.0 : 2.0) * bm * bn * nd) / c->pack;
        const double burst = CHG_MAX(0.0, tile_pack - tile_compute);
        const double starts = amode == AMODE_PREFETCH ? 1.0 : ceil(mt / nd);
        t.burst = burst * starts;
    }
    /* Fill: the first slice's panels (the first of its ramp parts) through the pack threads and
     * the bus before any kernel, and the cost of the ramp's further parts (chg_plan_ramp). */
    const double first = first_slice_time(c, bm, bn, bk);
    t.fill = ramp_fill(c, first, ramp_count(c, first));
    /* Drain: the last piece of each device's final tile home and unpacked (drive() splits a
     * final tile into column pieces that still give every compute unit two work-groups). With
     * A streamed only the last k slice is split (host/tile.c chg_writeback_split): that hides
     * at most one slice's kernel time of the drain, which the model leaves out (it keeps the
     * whole tile's trip home, as before the split). */
    const double pieces = chg_final_pieces(bm, bn, c->tile_m, c->tile_n, c->cus, amode);
    t.drain = s * bm * bn / pieces * (nd / c->pack + nd / c->d2h / NCHUNK);
    /* Tail imbalance: whole tiles are handed out, so a device may finish up to one tile late.
     * Where B is shared, bands beyond whole groups of nd equal ones (a shorter last band, or
     * mt not a multiple of nd) are walked out of step, by stealing and in pieces: a k slice of
     * a tile more (two H100s, SGEMM n = 32768: 3 bands 91.0 TFLOP/s, 2 bands 94.8). */
    t.imbalance = nd > 1 ? (ceil(tiles / nd) - tiles / nd) * tile_compute : 0.0;
    if (c->share_b && nd > 1 && mt > 1 && mt > nd * floor(full / nd)) t.imbalance += tile_compute / kt;
    /* The fixed cost per k step, on the device with the most tiles (one tile on two devices
     * leaves the second idle: its steps do not shorten the first's). */
    t.steps = ceil(tiles / nd) * kt * c->step_cost;
    /* Each device after the first: a driver thread started and joined, its buffers, staging and
     * kernels looked up, its first commands (an estimate: SETUP_STEPS fixed step costs). */
    t.setup = (nd - 1.0) * SETUP_STEPS * c->step_cost;
    t.total = steady_time(&t) + t.burst + t.fill + t.drain + t.imbalance + t.steps + t.setup;
    if (out) *out = t;
    return t.total;
}

/* Candidate extents along one dimension: multiples of the kernel tile of the forms 2^i and
 * 3*2^i, and the whole (padded) extent. */
static size_t candidates(size_t tile, size_t full, size_t *out, size_t cap)
{
    size_t n = 0;
    for (size_t b = tile; b < full && n + 2 < cap; b *= 2) {
        out[n++] = b;
        if (b * 3 / 2 < full && b * 3 / 2 % tile == 0) out[n++] = b * 3 / 2;
    }
    out[n++] = full;
    return n;
}

/* The plan of shape (bm, bn, bk, amode) on c's devices with its model time. */
static chg_plan_t plan_of(const chg_pctx_t *pc, size_t bm, size_t bn, size_t bk, int amode)
{
    return (chg_plan_t){.bm = bm, .bn = bn, .bk = bk, .mt = chg_ceil_div(pc->m, bm), .nt = chg_ceil_div(pc->n, bn),
                    .kt = chg_plan_kt(pc, bk), .amode = amode,
                    .predicted = chg_plan_time(pc, bm, bn, bk, amode, NULL), .kg = pc->kgroup,
                    .ramp = chg_plan_ramp(pc, bm, bn, bk), .ndev = pc->ndev};
}

static int make_plan(const chg_pctx_t *c, chg_plan_t *out)
{
    int found = 0;
    double best = INFINITY;
    size_t cm[64], cn[64], ck[64];
    size_t nm = candidates(c->tile_m, chg_round_up(c->m, c->tile_m), cm, 64);
    size_t nn = candidates(c->tile_n, chg_round_up(c->n, c->tile_n), cn, 64);
    const size_t nk = c->square ? 1 : candidates(c->tile_k, chg_round_up(c->k, c->tile_k), ck, 64);
    /* Level-3 constraints: only the whole extent, or k slices as long as the tile */
    if (c->fix_m) cm[0] = cm[nm - 1], nm = 1;
    if (c->fix_n) cn[0] = cn[nn - 1], nn = 1;
    const int top = c->no_prefetch ? AMODE_RESIDENT : AMODE_PREFETCH;
    for (size_t im = 0; im < nm; im++)
        for (size_t in = 0; in < nn; in++)
            for (size_t ik = 0; ik < nk; ik++)
                for (int amode = top; amode >= AMODE_STREAM; amode--) {
                    const size_t bm = cm[im], bn = cn[in];
                    const size_t bk = c->square == 1 ? bm : c->square == 2 ? bn : ck[ik];
                    if (!plan_fits(c, bm, bn, bk, amode)) continue;
                    const double t = chg_plan_time(c, bm, bn, bk, amode, NULL);
                    if (t < best * 0.999) {
                        best = t;
                        *out = plan_of(c, bm, bn, bk, amode);
                        found = 1;
                    }
                }
    return found;
}


/* CLHGEMM_TILE's text: three positive integers and an optional A mode, exactly; *mode is -1
 * without one. 0 when malformed. */
static int parse_tile(const char *text, unsigned long v[3], int *mode)
{
    static const char *const key[] = {"stream", "resident", "prefetch"};
    char buf[128];
    if (strlen(text) >= sizeof buf) return 0;
    strcpy(buf, text);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    *mode = -1;
    for (int i = 0; i < 3; i++, tok = strtok_r(NULL, ",", &save)) {
        long n = 0;
        if (!tok || !chg_parse_long(tok, &n) || n < 1) return 0;
        v[i] = (unsigned long)n;
    }
    if (tok) {
        for (int i = AMODE_STREAM; i <= AMODE_PREFETCH; i++)
            if (!strcmp(tok, key[i])) *mode = i;
        if (*mode < 0 || strtok_r(NULL, ",", &save)) return 0;
    }
    /* strtok_r skips empty fields: "64,,64,32" must not pass as 64,64,32 */
    return strstr(text, ",,") == NULL && text[0] != ',' && text[strlen(text) - 1] != ',';
}

/* CLHGEMM_TILE=bm,bn,bk[,stream|resident|prefetch], parsed (mode -1: without one). */
typedef struct forced_s {
    unsigned long v[3];
    int mode;
} forced_t;

/* CLHGEMM_TILE for experiments and tests: 1 with *f set, 0 when unset or malformed. */
static int forced_tile(forced_t *f)
{
    const char *forced = chg_getenv("CLHGEMM_TILE");
    if (!forced) return 0;
    if (!parse_tile(forced, f->v, &f->mode)) {
        chg_env_warn("CLHGEMM_TILE", forced, "is not bm,bn,bk[,stream|resident|prefetch]; using the planner's tile");
        return 0;
    }
    return 1;
}

/* The forced shape on pc's devices (without a mode: the best that fits). */
static int forced_plan(const chg_pctx_t *pc, const forced_t *f, chg_plan_t *out)
{
    unsigned long bm = f->v[0], bn = f->v[1], bk = f->v[2];
    bm = CHG_MIN(bm, pc->m); bn = CHG_MIN(bn, pc->n); bk = CHG_MIN(bk, pc->k);
    /* level-3 constraints (chg_pctx_t) hold for forced shapes too */
    if (pc->fix_m) bm = pc->m;
    if (pc->fix_n) bn = pc->n;
    if (pc->square) bk = pc->square == 1 ? bm : bn;
    int lo = AMODE_STREAM, hi = pc->no_prefetch ? AMODE_RESIDENT : AMODE_PREFETCH;
    if (f->mode >= 0) lo = hi = f->mode;
    if (lo > hi) lo = hi;
    for (int am = hi; am >= lo; am--)
        if (plan_fits(pc, bm, bn, bk, am) || am == lo) {
            *out = plan_of(pc, bm, bn, bk, am);
            return 1;
        }
    return 0;
}

/* More devices must be predicted this much faster than fewer (each holds its own buffers and
 * pinned staging, and the model's fixed costs are estimates). */
#define MORE_DEVICES 0.97

/* The plan on the first d devices for each d = 1 .. pc->ndev (only pc->ndev with
 * CLHGEMM_PLAN_DEVICES=all): the forced shape f, or the model's search when f is NULL. The
 * fastest wins, more devices only when MORE_DEVICES faster; out->t_ndev gets every count's time
 * and *used (may be NULL) the winner's inputs. Returns 1 when a plan fits on some count. */
static int plan_devices(clhgemm_handle_t h, const chg_pctx_t *pc, const forced_t *f, chg_plan_t *out, chg_pctx_t *used)
{
    double t[CHG_PLAN_NDEV_LOG] = {0};
    int found = 0;
    for (int d = pc->all_devices ? pc->ndev : 1; d <= pc->ndev; d++) {
        chg_pctx_t pd;
        chg_plan_t pl;
        chg_plan_narrow(h, pc, d, &pd);
        if (!(f ? forced_plan(&pd, f, &pl) : make_plan(&pd, &pl))) continue;
        if (d <= CHG_PLAN_NDEV_LOG) t[d - 1] = pl.predicted;
        if (!found || pl.predicted < out->predicted * MORE_DEVICES) {
            *out = pl;
            if (used) *used = pd;
            found = 1;
        }
    }
    if (found) memcpy(out->t_ndev, t, sizeof t);
    return found;
}

/* Hysteresis: the inputs move a little between calls (the pack rate is what the last call
 * reached), and a new tile shape can mean seconds of new pinned allocations; the handle's last
 * shape stays unless the new one is predicted 3% faster. */
static void keep_last_shape(clhgemm_handle_t h, const chg_pctx_t *pc, chg_plan_t *pl)
{
    if (!h->last_bm || (h->last_bm == pl->bm && h->last_bn == pl->bn && h->last_bk == pl->bk &&
                        h->last_amode == pl->amode))
        return;
    const size_t bm = CHG_MIN(h->last_bm, chg_round_up(pc->m, pc->tile_m)),
                 bn = CHG_MIN(h->last_bn, chg_round_up(pc->n, pc->tile_n)),
                 bk = CHG_MIN(h->last_bk, chg_round_up(pc->k, pc->tile_k));
    if (!plan_fits(pc, bm, bn, bk, h->last_amode)) return;
    chg_plan_t last = plan_of(pc, bm, bn, bk, h->last_amode);
    if (last.predicted > pl->predicted * 1.03) return;
    memcpy(last.t_ndev, pl->t_ndev, sizeof last.t_ndev);
    if (last.ndev <= CHG_PLAN_NDEV_LOG) last.t_ndev[last.ndev - 1] = last.predicted;
    *pl = last;
}

/* The model's best plan and device count, with hysteresis against the handle's last shape (on
 * the devices chosen). */
static int make_plan_kept(clhgemm_handle_t h, const chg_pctx_t *pc, chg_plan_t *out)
{
    chg_pctx_t pd;
    if (!plan_devices(h, pc, NULL, out, &pd)) return 0;
    /* A level-3 call whose shape is constrained neither keeps nor sets the last shape. */
    if (pc->fix_m || pc->fix_n || pc->square || pc->no_prefetch) return 1;
    keep_last_shape(h, &pd, out);
    h->last_bm = out->bm;
    h->last_bn = out->bn;
    h->last_bk = out->bk;
    h->last_amode = out->amode;
    return 1;
}

/* Identical calls get identical plans: the plans of the handle's last PLAN_CACHE call shapes
 * are kept (the model's inputs may move between calls -- the pack rate is what the last call
 * reached -- and would otherwise flip a plan, with new pinned staging, between two identical
 * calls). The key is every input of the model that the call sets, the number of devices the
 * handle has (a lost device leaves it) and CLHGEMM_PLAN_DEVICES; the plan holds the device
 * count chosen. The devices and their budgets are the handle's own. A plan made before the pack threads' rate was measured in a
 * large call is refined once, the first time that rate differs (with the hysteresis of
 * keep_last_shape), and then stays. */
#define PLAN_CACHE 16
typedef struct plan_memo_s {
    int used, refined;
    chg_pctx_t key;
    chg_plan_t plan;
} plan_memo_t;
struct chg_plan_cache_s {
    plan_memo_t e[PLAN_CACHE];
    unsigned next;
};

static int same_shape(const chg_pctx_t *a, const chg_pctx_t *b)
{
    return a->m == b->m && a->n == b->n && a->k == b->k && a->es == b->es && a->beta_zero == b->beta_zero &&
           a->segs == b->segs && a->fix_m == b->fix_m && a->fix_n == b->fix_n && a->square == b->square &&
           a->no_prefetch == b->no_prefetch && a->kgroup == b->kgroup && a->ramp == b->ramp &&
           a->pinned == b->pinned && a->mem == b->mem && a->ndev == b->ndev && a->all_devices == b->all_devices &&
           a->share_b == b->share_b && a->cplx == b->cplx && a->prec == b->prec;
}

static int cached_plan(clhgemm_handle_t h, const chg_pctx_t *pc, chg_plan_t *out)
{
    if (!h->plans) return 0;
    for (int i = 0; i < PLAN_CACHE; i++) {
        plan_memo_t *e = &h->plans->e[i];
        if (!e->used || !same_shape(&e->key, pc)) continue;
        if (!e->refined && e->key.pack != pc->pack) {
            chg_plan_t pl;
            if (make_plan_kept(h, pc, &pl)) e->plan = pl;
            e->refined = 1;
            e->key.pack = pc->pack;
        }
        *out = e->plan;
        return 1;
    }
    return 0;
}

static void remember_plan(clhgemm_handle_t h, const chg_pctx_t *pc, const chg_plan_t *pl)
{
    if (!h->plans && !(h->plans = calloc(1, sizeof *h->plans))) return;  /* no memory: no memo */
    const unsigned i = h->plans->next++ % PLAN_CACHE;
    h->plans->e[i].used = 1;
    h->plans->e[i].refined = 0;
    h->plans->e[i].key = *pc;
    h->plans->e[i].plan = *pl;
}

void chg_plan_cache_free(clhgemm_handle_t h)
{
    free(h->plans);
    h->plans = NULL;
}

int chg_plan_call(clhgemm_handle_t h, const chg_pctx_t *pc, chg_plan_t *out)
{
    forced_t f;
    if (forced_tile(&f) && plan_devices(h, pc, &f, out, NULL)) return 1;
    if (cached_plan(h, pc, out)) return 1;
    if (!make_plan_kept(h, pc, out)) return 0;
    remember_plan(h, pc, out);
    return 1;
}

/* The inputs of pc's first d devices: the slowest common denominator of the devices, the
 * kernel rate and the bus rates summed over them (the pack threads are shared whatever d). */
static void context_devices(clhgemm_handle_t h, int d, chg_pctx_t *pc)
{
    const chg_precision_t prec = (chg_precision_t)pc->prec;
    pc->ndev = d;
    pc->tile_m = pc->tile_n = pc->tile_k = 1;
    pc->mem = pc->max_alloc = ~0ull;
    pc->cus = ~0u;
    pc->step_cost = pc->rate = 0;
    double min_h2d = INFINITY, min_d2h = INFINITY, min_dev = INFINITY;
    for (int i = 0; i < d; i++) {
        chg_handle_dev_t *dv = &h->devs[i];
        chg_gemm_params_t gp;
        chg_tuned_gemm(&dv->dev, prec, &gp);
        if (pc->cplx) gp = chg_l3_tile(&gp, &(chg_struct_t){.cplx = 1}); /* in complex elements */
        pc->tile_m = CHG_MAX(pc->tile_m, (size_t)gp.mwg);
        pc->tile_n = CHG_MAX(pc->tile_n, (size_t)gp.nwg);
        pc->tile_k = CHG_MAX(pc->tile_k, (size_t)gp.kwg);
        pc->mem = CHG_MIN(pc->mem, dv->mem_limit);
        pc->cus = CHG_MIN(pc->cus, CHG_MAX(1u, dv->dev.info.compute_units));
        /* Four to six commands per step; CPU devices pay more per command. */
        pc->step_cost = CHG_MAX(pc->step_cost, (dv->dev.features & CHG_FEAT_GPU) ? 60e-6 : 300e-6);
        pc->max_alloc = CHG_MIN(pc->max_alloc, dv->dev.info.max_alloc_bytes);
        chg_measure_rate(dv, prec);
        pc->rate += dv->rate[prec];
        min_h2d = CHG_MIN(min_h2d, dv->h2d_bps);
        min_d2h = CHG_MIN(min_d2h, dv->d2h_bps);
        min_dev = CHG_MIN(min_dev, dv->dev_bps);
    }
    pc->dev = min_dev;
    const chg_handle_dev_t *devs[BS_MAXDEV];
    for (int i = 0; i < d && i < BS_MAXDEV; i++) devs[i] = &h->devs[i];
    pc->share_b = d <= BS_MAXDEV && chg_shared_b_wanted(devs, d);
    pc->h2d = min_h2d * d;
    pc->d2h = min_d2h * d;
}

void chg_plan_narrow(clhgemm_handle_t h, const chg_pctx_t *pc, int d, chg_pctx_t *out)
{
    *out = *pc;
    context_devices(h, CHG_MAX(1, CHG_MIN(d, pc->ndev)), out);
}

int chg_plan_all_devices(void)
{
    static const char *const modes[] = {"auto", "all", NULL};
    return chg_env_choice("CLHGEMM_PLAN_DEVICES", modes, 0) == 1;
}

void chg_plan_context(clhgemm_handle_t h, chg_precision_t prec, size_t m, size_t n, size_t k,
                      int beta_zero, const chg_struct_t *st, int segs, chg_pctx_t *pc)
{
    *pc = (chg_pctx_t){.m = m, .n = n, .k = k, .es = chg_elem_size(prec) * (st->cplx ? 2 : 1),
                   .beta_zero = beta_zero, .mem = ~0ull, .max_alloc = ~0ull, .ndev = h->ndev,
                   .segs = CHG_MAX(segs, 1), .tile_m = 1, .tile_n = 1, .tile_k = 1, .cus = ~0u,
                   .cplx = st->cplx};
    /* Level-3 calls: what the schedule must respect (docs/ARCHITECTURE.md, host level 3).
     * TRMM is in place (C is B). Its tiles span the independent direction of B whole -- all
     * rows for side left (B's columns are independent), all columns for side right (rows) --
     * so a tile reads only the part of B that it alone writes, and reads all of it (its k
     * loop) before its write-back; no band is prefetched (a claimed band can be stolen). A
     * symmetric operand gets k slices as long as its tiles, so that the blocks crossing its
     * diagonal are the diagonal squares (staged once, chg_stage_geometry). */
    const int tri_a = st->kind_a == CHG_TRIANGULAR, tri_b = st->kind_b == CHG_TRIANGULAR;
    pc->fix_m = tri_a;
    pc->fix_n = tri_b;
    pc->no_prefetch = tri_a || tri_b;
    pc->square = st->kind_a == CHG_SYMMETRIC ? 1 : st->kind_b == CHG_SYMMETRIC ? 2 : 0;
    pc->prec = prec;
    pc->all_devices = chg_plan_all_devices();
    context_devices(h, h->ndev, pc);
    /* Pinned staging: CLHGEMM_PINNED_LIMIT, else 1/10 of the host's memory (at least 1 GiB): the
     * matrices themselves may fill most of it (a problem larger than the device's memory). */
    const long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    const unsigned long long phys =
        pages > 0 && psize > 0 ? (unsigned long long)pages * (unsigned long long)psize : (8ull << 30);
    pc->pinned = chg_env_size("CLHGEMM_PINNED_LIMIT", CHG_MAX(1ull << 30, phys / 10));
    /* The pack threads share host memory bandwidth with the DMA engines while the pipeline
     * runs; measured into pinned memory with large copies (chg_measure_pack), the rate alone
     * was 43 GB/s on the H100 machine and the pack threads reached ~45-52 GB/s in its traces. */
    pc->pack = h->pack_seen_bps > 0 ? h->pack_seen_bps : h->pack_bps * 0.9;
    pc->kgroup = chg_env_int("CLHGEMM_KGROUP", 2, 1, NSTAGE - 1);
    pc->ramp = chg_env_int("CLHGEMM_RAMP", 0, 1, 64); /* 0: by the model (chg_plan_ramp) */
}

/* Why the plan runs on pl->ndev of pc->ndev devices: every count's model time. */
static void log_devices(const chg_pctx_t *pc, const chg_plan_t *pl)
{
    char list[CHG_PLAN_NDEV_LOG * 40] = "-";
    size_t len = 0;
    for (int d = 1; d <= CHG_MIN(pc->ndev, CHG_PLAN_NDEV_LOG) && len < sizeof list; d++) {
        if (pc->all_devices && d < pc->ndev) continue;  /* not evaluated */
        if (pl->t_ndev[d - 1] > 0)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%d: %.2f ms", len ? ", " : "", d,
                                    pl->t_ndev[d - 1] * 1e3);
        else
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%d: no plan fits", len ? ", " : "", d);
    }
    const char *why = pc->all_devices ? "CLHGEMM_PLAN_DEVICES=all"
                    : pc->ndev == 1 ? "the only device"
                    : pl->ndev < pc->ndev ? "fewer devices: more would not be predicted 3% faster"
                    : "every device: each one more predicted at least 3% faster";
    chg_log(1, "  devices: %d of %d (%s); model time by device count: %s", pl->ndev, pc->ndev, why, list);
}

void chg_plan_log(clhgemm_handle_t h, const chg_pctx_t *pc_all, const chg_plan_t *pl, const char *name)
{
    if (chg_verbose() < 1) return;
    chg_pctx_t pd;
    const chg_pctx_t *pc = &pd;
    chg_plan_narrow(h, pc_all, pl->ndev, &pd);
    chg_pterms_t t;
    chg_plan_time(pc, pl->bm, pl->bn, pl->bk, pl->amode, &t);
    unsigned long long largest;
    const unsigned long long mem = plan_mem(pc, pl->bm, pl->bn, pl->bk, pl->amode, &largest);
    const double steady = steady_time(&t);
    const double mx = CHG_MAX(CHG_MAX(t.compute + t.devcopy, t.h2d), CHG_MAX(t.d2h, t.pack));
    const char *bound = mx == t.compute + t.devcopy ? "kernel" : mx == t.pack ? "pack threads"
                      : mx == t.h2d ? "host->device bus" : "device->host bus";
    chg_log(1, "plan %s m=%zu n=%zu k=%zu on %d device(s): tiles %zux%zu, k slices %zu "
               "(%zux%zu tiles x %zu slices, up to %d per launch, the first in %d part(s)), A %s, %.2f of %.2f GiB per device, %.2f of %.2f GiB pinned",
            name, pc->m, pc->n, pc->k, pc->ndev, pl->bm, pl->bn, pl->bk, pl->mt, pl->nt, pl->kt, pl->kg, pl->ramp,
            chg_amode_name[pl->amode], mem / 1073741824.0, pc->mem / 1073741824.0,
            plan_pinned(pc, pl->bm, pl->bn, pl->bk) * (double)pc->ndev / 1073741824.0,
            pc->pinned / 1073741824.0);
    chg_log(1, "  why: model %.1f ms = steady %.1f (kernel %.1f + device copies %.1f, h2d %.1f, d2h %.1f, pack %.1f: "
               "%s-bound) + A band bursts %.1f + fill %.1f + drain %.1f + imbalance %.1f + steps %.1f + device starts %.1f; "
               "inputs: kernel %.1f GFLOP/s, h2d %.1f GB/s, d2h %.1f GB/s, pack %.1f GB/s, device %.0f GB/s",
            t.total * 1e3, steady * 1e3, t.compute * 1e3, t.devcopy * 1e3, t.h2d * 1e3, t.d2h * 1e3, t.pack * 1e3,
            bound, t.burst * 1e3, t.fill * 1e3, t.drain * 1e3, t.imbalance * 1e3, t.steps * 1e3, t.setup * 1e3,
            pc->rate * 1e-9, pc->h2d * 1e-9, pc->d2h * 1e-9, pc->pack * 1e-9, pc->dev * 1e-9);
    log_devices(pc_all, pl);
}
