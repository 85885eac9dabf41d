/*
 * splitk.c -- split-K's policy (how many slices), geometry, and its second pass (the reduce
 * kernel of cl/splitk.cl). See splitk.h; core/gemm.c runs the packs and the SPLITK kernel.
 */
#include "core/splitk.h"

#include <stdio.h>
#include <string.h>

#include "device/cache.h"

/* The largest count from s down to three quarters of s whose slices end exactly at k (as
 * chg_splitk_plan cuts them), else s: split-K reads A or B in place only there (core/gemm.c
 * splitk_direct), and packs them otherwise (two more launches; 512^3 wants 5 slices, 4 are
 * exact). */
static size_t exact_count(const chg_gemm_params_t *gp, size_t k, size_t s)
{
    chg_splitk_t sk;
    for (size_t e = s; e >= 2 && 4 * e >= 3 * s; e--)
        if (chg_splitk_plan(gp, 1, 1, k, (int)e, &sk) && sk.slices == (int)e && sk.ktot == k) return e;
    return s;
}

int chg_splitk_slices(const chg_device_t *dev, const chg_gemm_params_t *gp, size_t m, size_t n,
                      size_t k, int split)
{
    if (split == 1) return 1;
    const size_t tiles = ((m + gp->mwg - 1) / gp->mwg) * ((n + gp->nwg - 1) / gp->nwg);
    /* a class's or forced split keeps slices of at least 256 rows of k; the split chosen here
     * for an output of few tiles goes down to 32 (DGEMM 256^3 on the H100, 16 tiles of the
     * small class, slices forced with the floor at 32: 1 / 2 / 4 / 8 slices 1,123 / 1,152 /
     * 1,261 / 1,375 GFLOP/s, 512^3 6,693 / 7,474 / 7,993 / 7,621, where 256 allowed 1 and 2) */
    const size_t floor_rows = split >= 2 ? 256 : 32;
    const size_t minrows = (size_t)gp->kwg > floor_rows ? (size_t)gp->kwg : floor_rows;
    size_t s;
    if (split >= 2) {
        s = (size_t)split;
    } else {
        const int gpu = (dev->features & CHG_FEAT_GPU) != 0;
        const size_t cu = dev->info.compute_units ? dev->info.compute_units : 1;
        const size_t target = cu * (gpu ? 2 : 1);
        /* no split once C fills one wave (a tile per compute unit): on the H100 DGEMM 1000^3
         * and 1024^3 (256 tiles of 64 x 64 for 132 SMs) ran 2-43% slower split in two, 768^3
         * (144) -2..+6%, while 512^3 (64 tiles) gained 13-24% (2026-11-26, `git show
         * 6c7d489:docs/perf/2026-11-26-h100-session9/small-split/`) */
        if (tiles >= cu) return 1;
        /* below it, enough slices for two waves, and a long k cut into slices of at most 4096 rows:
         * the reduce reads s * m * n partials, little beside m * n * k (512 x 512 x 32768 on
         * the H100: 16 slices measured 2.3x faster than 4) */
        s = (target + tiles - 1) / tiles;
        const size_t by_k = (k + 4095) / 4096;
        if (s < by_k) s = by_k;
        if (s > 16) s = 16;
    }
    /* each slice at least minrows of k (a forced split too: a slice of a few rows costs a
     * partial product of C for nothing) */
    const size_t maxs = k / minrows;
    if (s > maxs) s = maxs;
    if (split < 2) s = exact_count(gp, k, s);
    return s >= 2 ? (int)s : 1;
}

int chg_splitk_plan(const chg_gemm_params_t *gp, size_t m, size_t n, size_t k, int slices,
                    chg_splitk_t *out)
{
    if (slices < 2) return 0;
    const size_t kwg = (size_t)gp->kwg, kp = chg_round_up(k, kwg);
    const size_t kslice = chg_round_up((kp + (size_t)slices - 1) / (size_t)slices, kwg);
    const size_t s = (kp + kslice - 1) / kslice; /* no slice of padding only */
    if (s < 2) return 0;
    out->slices = (int)s;
    out->kslice = kslice;
    out->ktot = s * kslice;
    out->mp = chg_round_up(m, (size_t)gp->mwg);
    out->np = chg_round_up(n, (size_t)gp->nwg);
    return 1;
}

/* Work-groups resident at once on the device (see chg_splitk_tail). */
static size_t tail_slots(const chg_device_t *dev, int wgs)
{
    const int env = chg_env_int("CLHGEMM_TAIL_SLOTS", 0, 1, 1 << 20);
    if (env > 0) return (size_t)env;
    if (!(dev->features & CHG_FEAT_GPU) || wgs <= 0) return 0;
    return (size_t)dev->info.compute_units * (size_t)wgs;
}

/* The model's constants: the device's arithmetic rate over its memory bandwidth (flops per
 * byte; the H100: ~50 TFLOP/s over ~2.5 TB/s) prices the reduce's traffic against the tiles'
 * arithmetic, and a launch costs what ~10 us of arithmetic at 50 TFLOP/s would. */
#define TAIL_FLOPS_PER_BYTE 20.0
#define TAIL_LAUNCH_FLOPS 5e8

int chg_splitk_tail(const chg_device_t *dev, chg_precision_t prec, const chg_gemm_params_t *gp,
                    int wgs, size_t m, size_t n, size_t kp, chg_tail_t *out)
{
    memset(out, 0, sizeof *out);
    static const char *const modes[] = {"auto", "off", "force", NULL};
    const int mode = chg_env_choice("CLHGEMM_TAIL_SPLIT", modes, 0);
    if (mode == 1) return 0;
    const int force = mode == 2;
    const size_t slots = tail_slots(dev, wgs);
    const size_t mt = (m + gp->mwg - 1) / gp->mwg, nt = (n + gp->nwg - 1) / gp->nwg;
    const size_t tiles = mt * nt, kwg = (size_t)gp->kwg;
    if (!slots || tiles <= slots || gp->dk) return 0;
    const double es = (double)chg_elem_size(prec);
    /* one wave: every slot runs one whole tile */
    const double wave_flops = 2.0 * gp->mwg * gp->nwg * (double)kp * (double)slots;
    const double whole = (double)((tiles + slots - 1) / slots);
    double best = force ? whole - 1e-9 : whole * 0.97;
    for (int cut_n = 0; cut_n < 2; cut_n++) {
        const size_t lines = cut_n ? nt : mt, per = cut_n ? mt : nt; /* tiles per line */
        for (size_t w = tiles / slots; w + 2 > tiles / slots && w >= 1; w--) {
            const size_t lead = w * slots / per; /* lines of the lead, whole waves */
            if (lead == 0 || lead >= lines) continue;
            const size_t tail = (lines - lead) * per;
            const double lead_waves = (double)((lead * per + slots - 1) / slots);
            const size_t min_rows = CHG_MAX(kwg, (size_t)(force ? 1 : 128));
            for (size_t s = 2; s <= 16 && kp / s >= min_rows; s++) {
                const double tail_waves = (double)((tail * s + slots - 1) / slots) / (double)s;
                /* the partials written and read once each, C read (beta) and written */
                const double bytes = (double)(s + 2) * (double)tail * gp->mwg * gp->nwg * es;
                const double extra = (bytes * TAIL_FLOPS_PER_BYTE + 2 * TAIL_LAUNCH_FLOPS) /
                                     wave_flops;
                const double t = lead_waves + tail_waves + (force ? 0 : extra);
                if (t < best) {
                    best = t;
                    out->cut_n = cut_n;
                    out->lead = lead * (size_t)(cut_n ? gp->nwg : gp->mwg);
                    out->slices = (int)s;
                }
            }
        }
    }
    if (!out->slices) return 0;
    /* the slices: whole KWG steps, the last one shorter where kp does not divide evenly */
    chg_splitk_t *sk = &out->sk;
    sk->kslice = chg_round_up((kp + (size_t)out->slices - 1) / (size_t)out->slices, kwg);
    sk->slices = (int)((kp + sk->kslice - 1) / sk->kslice);
    sk->ktot = kp;
    sk->mp = chg_round_up(out->cut_n ? m : m - out->lead, (size_t)gp->mwg);
    sk->np = chg_round_up(out->cut_n ? n - out->lead : n, (size_t)gp->nwg);
    out->slices = sk->slices;
    if (out->slices < 2) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    return 1;
}

void chg_splitk_elements(const chg_splitk_t *sk, size_t el[3])
{
    el[0] = sk->mp * sk->ktot;
    el[1] = sk->np * sk->ktot;
    el[2] = (size_t)sk->slices * sk->mp * sk->np;
}

clhgemm_status_t chg_splitk_reduce_kernel(cl_context ctx, const chg_device_t *dev,
                                          chg_precision_t prec, int beta_zero, cl_kernel *out)
{
    char defines[64], name[40];
    snprintf(defines, sizeof defines, "#define PRECISION %d\n#define BETA0 %d\n",
             prec == CHG_F64 ? 64 : 32, beta_zero ? 1 : 0);
    snprintf(name, sizeof name, "%cgemm-splitk-reduce%s", prec == CHG_F64 ? 'd' : 's',
             beta_zero ? "0" : "");
    return chg_kernel_get_cl(ctx, dev, "splitk.cl", name, 0, defines, "clhgemm_splitk_reduce",
                             out);
}

cl_int chg_enqueue_splitk_reduce(cl_command_queue q, cl_kernel k, chg_precision_t prec,
                                 const chg_splitk_t *sk, size_t m, size_t n, double alpha,
                                 double beta, cl_mem partials, cl_mem c, size_t off, size_t ldc,
                                 cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    const int mi = (int)m, ni = (int)n, ldcp = (int)sk->mp, s = sk->slices;
    const cl_ulong cslice = (cl_ulong)sk->mp * sk->np, o = off, l = ldc;
    cl_int err = CL_SUCCESS;
#define ARG(i, v) (err = err != CL_SUCCESS ? err : clSetKernelArg(k, i, sizeof(v), &(v)))
    ARG(0, mi);
    ARG(1, ni);
    ARG(2, ldcp);
    ARG(3, s);
    ARG(4, cslice);
    ARG(5, partials);
    ARG(6, c);
    ARG(7, o);
    ARG(8, l);
    if (prec == CHG_F64) {
        ARG(9, alpha);
        ARG(10, beta);
    } else {
        const float fa = (float)alpha, fb = (float)beta;
        ARG(9, fa);
        ARG(10, fb);
    }
#undef ARG
    if (err != CL_SUCCESS) return err;
    const size_t l2[2] = {32, 2}; /* 32 rows of a column per warp; 64 work-items fit anywhere */
    const size_t g[2] = {chg_round_up(m, l2[0]), chg_round_up(n, l2[1])};
    return clEnqueueNDRangeKernel(q, k, 2, NULL, g, l2, nwait, nwait ? wait : NULL, ev);
}
