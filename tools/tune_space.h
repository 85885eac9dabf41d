/*
 * tune_space.h -- the FMA kernel's configurations that clhgemm-tune's GEMM search may try
 * (tune_space.c), pruned before anything is built. Without the search's state or output, so
 * that clhgemm-kernel-sources samples the very space the tuner searches.
 */
#ifndef CLHGEMM_TUNE_SPACE_H
#define CLHGEMM_TUNE_SPACE_H

#include "kernels/params.h"

/* Why a configuration is pruned (tune_fma_space's counts). */
enum {
    TS_DIV,   /* KWI does not divide KWG, or the tiles not the work-group times the vectors */
    TS_WG,    /* more work-items than the device's work-group limit */
    TS_SMALL, /* under 64 work-items on a GPU */
    TS_REG,   /* more than 256 accumulators, or the registers' estimate */
    TS_LMEM,  /* the two staged panels' local memory */
    TS_CPU,   /* CPU tile limits */
    TS_OTHER, /* chg_gemm_params_valid */
    TS_COUNT
};
extern const char *const tune_space_prune_names[TS_COUNT];

/* Calls add(arg, p) for every FMA configuration (tiles 16-256, KWG 8-32, work-groups of 8-32
 * (GPU; CPU 4-16) per side, vector widths 1-8, staging, KWI) that survives the pruning on dev in
 * prec: gpu selects the GPU rules, regs_per_block the driver's registers per block (0:
 * unknown). raw and pruned[] count the configurations looked at and pruned for what. Stops at
 * the first non-zero add and returns it; else 0. */
int tune_fma_space(const chg_device_t *dev, chg_precision_t prec, int gpu,
                   unsigned regs_per_block, int (*add)(void *arg, const chg_gemm_params_t *p),
                   void *arg, long *raw, long pruned[TS_COUNT]);

#endif
