/*
 * choice.c -- the kernel configuration and split of a device GEMM call (see choice.h).
 */
#include "core/choice.h"

#include <string.h>

#include "core/blocks.h"
#include "core/splitk.h"

/* The share of the work-group slots (compute units x wgs resident, 1 where unknown) that gp's
 * tiles over a's C keep busy through their waves: tiles / (waves x slots); SYRK's and SYR2K's
 * launch only the tiles that touch C's triangle. An FP32 TRMM's tiles run k ranges of their own
 * (KLIMIT): its share is the busy time of a greedy dispatch of them (chg_l3_klimit_fill). On
 * the H100 (2026-11-27) that moved STRSM 8192's leaves (512 x 8192) from the main 128 x 256
 * tiles, one wave whose longest tiles set its time, to medium's 128 x 128, longest first: 94 ->
 * 76 us a leaf. In FP64 it moved DTRMM 4096 from medium to the main tiles, 9-11% slower (the
 * tensor-core configurations' rates per SM differ more than their fill), so FP64 keeps the
 * tile count; so do products of CHG_L3_KLIMIT_FILL_MNK (2^30) multiply-adds or fewer, where the
 * two counts chose alike on the H100's classes and the greedy's microsecond of host time would
 * show. */
#define CHG_L3_KLIMIT_FILL_MNK 0x1p30
static double wave_fill(const chg_gemm_args_t *a, const chg_device_t *dev,
                        const chg_gemm_params_t *gp, int wgs)
{
    const size_t mt = chg_ceil_div(a->m, (size_t)gp->mwg), nt = chg_ceil_div(a->n, (size_t)gp->nwg);
    const size_t slots = (size_t)CHG_MAX(dev->info.compute_units, 1u) * (size_t)CHG_MAX(wgs, 1);
    const int klimit = chg_l3_klimit(&a->st);
    if (klimit && a->prec == CHG_F32 &&
        (double)a->m * (double)a->n * (double)a->k > CHG_L3_KLIMIT_FILL_MNK)
        return chg_l3_klimit_fill(klimit, a->prec, gp, mt, nt, a->k, slots);
    const size_t tiles = a->st.c_tri != CHG_TRI_NONE
                             ? chg_l3_triangle_tiles(a->st.c_tri == CHG_TRI_UPPER, 0, mt, nt,
                                                     gp->mwg, gp->nwg)
                             : mt * nt;
    if (!tiles) return 1.0;
    return (double)tiles / (double)(chg_ceil_div(tiles, slots) * slots);
}

#define CHG_L3_CLASS_FILL 0.05
int chg_gemm_call_params(const chg_gemm_args_t *a, const chg_device_t *dev,
                         const chg_gemm_choice_t *force, chg_gemm_params_t *gp, int *wgs)
{
    const chg_struct_t general = {0};
    const int plain = memcmp(&a->st, &general, sizeof general) == 0 && !a->swap_sum;
    const unsigned flags =
        (a->beta == 0.0 && a->beta_im == 0.0 ? CHG_CALL_BETA_ZERO : 0u) | (plain ? 0u : CHG_CALL_UNSPLIT);
    chg_gemm_choice_t c;
    if (force) c = *force;
    else chg_tuned_gemm_shape(dev, a->prec, a->m, a->n, a->k, flags, &c);
    if (!plain && !force && !c.forced) {
        /* the class's direct kernel is not for structured operands (enqueue_product) */
        chg_gemm_choice_t mc;
        chg_tuned_gemm_main(dev, a->prec, &mc);
        if (c.gp.dk || (memcmp(&c.gp, &mc.gp, sizeof c.gp) != 0 &&
                        wave_fill(a, dev, &c.gp, c.wgs_per_cu) <=
                            wave_fill(a, dev, &mc.gp, mc.wgs_per_cu) + CHG_L3_CLASS_FILL))
            c = mc;
    }
    *gp = c.gp;
    *wgs = c.wgs_per_cu;
    if (gp->dk) return 1; /* the direct kernel: one launch, never split */
    return plain ? chg_splitk_slices(dev, gp, a->m, a->n, a->k, c.split_k) : 1;
}
