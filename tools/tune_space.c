/*
 * tune_space.c -- the FMA kernel's pruned configuration space (tune_space.h says what).
 */
#include "tune_space.h"

#include <math.h>

const char *const tune_space_prune_names[TS_COUNT] = {
    "divisibility", "work-group limit", "under 64 work-items (GPU)", "registers",
    "local memory", "CPU tile limits", "other"};

/* Why the FMA configuration p is pruned (TS_*), or -1 when it stays. */
static int fma_pruned(const chg_device_t *dev, chg_precision_t prec, int gpu,
                      unsigned regs_per_block, const chg_gemm_params_t *p)
{
    const size_t es = chg_elem_size(prec);
    const double w = (double)es / 4.0; /* 32-bit registers per element */
    const int threads = p->mdimc * p->ndimc;
    if (p->kwg % p->kwi || p->mwg % (p->mdimc * p->vwm) || p->nwg % (p->ndimc * p->vwn))
        return TS_DIV;
    if ((size_t)threads > dev->info.max_work_group_size) return TS_WG;
    if (gpu && threads < 64) return TS_SMALL;
    if (!gpu && (p->mwg > 64 || p->nwg > 64 || threads > 256)) return TS_CPU;
    const int mwi = p->mwg / p->mdimc, nwi = p->nwg / p->ndimc;
    const double loads_a = p->sa ? ceil((double)p->kwg * p->mwg / threads) : 0;
    const double loads_b = p->sb ? ceil((double)p->kwg * p->nwg / threads) : 0;
    const double regs = w * (mwi * nwi + mwi + nwi + loads_a + loads_b) + 12;
    if (mwi * nwi > 256 ||
        (gpu && (regs > 255 || (regs_per_block && regs * threads > regs_per_block))))
        return TS_REG;
    const double lmem = 2.0 * p->kwg * (p->sa * p->mwg + p->sb * p->nwg) * (double)es;
    if (lmem > (double)dev->info.local_mem_bytes) return TS_LMEM;
    if (!chg_gemm_params_valid(dev, prec, p, NULL, 0)) return TS_OTHER;
    return -1;
}

int tune_fma_space(const chg_device_t *dev, chg_precision_t prec, int gpu,
                   unsigned regs_per_block, int (*add)(void *arg, const chg_gemm_params_t *p),
                   void *arg, long *raw, long pruned[TS_COUNT])
{
    static const int tiles[] = {16, 32, 64, 128, 256};
    static const int kwgs[] = {8, 16, 32};
    static const int gdims[] = {8, 16, 32}, cdims[] = {4, 8, 16};
    static const int vws[] = {1, 2, 4, 8};
    static const int kwis[] = {1, 2, 4, 8, 16, 32};
    const int *dims = gpu ? gdims : cdims;
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
                               sa, sb, kwis[ki], 0, 0, 0, 0, 0, 0};
        (*raw)++;
        const int why = fma_pruned(dev, prec, gpu, regs_per_block, &p);
        if (why >= 0) {
            pruned[why]++;
            continue;
        }
        const int rc = add(arg, &p);
        if (rc) return rc;
    }
    return 0;
}
