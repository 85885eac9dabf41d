/*
 * splitk.c -- split-K's policy (how many slices), geometry, and its second pass (the reduce
 * kernel of cl/splitk.cl). See splitk.h; core/gemm.c runs the packs and the SPLITK kernel.
 */
#include "core/splitk.h"

#include <stdio.h>

#include "device/cache.h"
#include "kernels/embedded.h"

int chg_splitk_slices(const chg_device_t *dev, const chg_gemm_params_t *gp, size_t m, size_t n,
                      size_t k, int split)
{
    if (split == 1) return 1;
    const size_t tiles = ((m + gp->mwg - 1) / gp->mwg) * ((n + gp->nwg - 1) / gp->nwg);
    const size_t minrows = gp->kwg > 256 ? (size_t)gp->kwg : 256;
    size_t s;
    if (split >= 2) {
        s = (size_t)split;
    } else {
        const int gpu = (dev->features & CHG_FEAT_GPU) != 0;
        const size_t cu = dev->info.compute_units ? dev->info.compute_units : 1;
        const size_t target = cu * (gpu ? 2 : 1);
        /* no split once C fills one wave (a tile per compute unit): on the H100 DGEMM 1000^3
         * and 1024^3 (256 tiles of 64 x 64 for 132 SMs) ran 2-43% slower split in two, 768^3
         * (144) -2..+6%, while 512^3 (64 tiles) gained 13-24% (session 9) */
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

void chg_splitk_elements(const chg_splitk_t *sk, size_t el[3])
{
    el[0] = sk->mp * sk->ktot;
    el[1] = sk->np * sk->ktot;
    el[2] = (size_t)sk->slices * sk->mp * sk->np;
}

clhgemm_status_t chg_splitk_reduce_kernel(cl_context ctx, const chg_device_t *dev,
                                          chg_precision_t prec, int beta_zero, cl_kernel *out)
{
    const char *body = chg_embedded_source("splitk.cl", NULL);
    if (!body) return CLHGEMM_INTERNAL_ERROR;
    chg_str_t src;
    chg_str_init(&src);
    chg_str_printf(&src, "#define PRECISION %d\n#define BETA0 %d\n", prec == CHG_F64 ? 64 : 32,
                   beta_zero ? 1 : 0);
    chg_str_append(&src, body);
    if (src.failed) {
        chg_str_free(&src);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    char name[40];
    snprintf(name, sizeof name, "%cgemm-splitk-reduce%s", prec == CHG_F64 ? 'd' : 's',
             beta_zero ? "0" : "");
    const clhgemm_status_t st = chg_kernel_get(ctx, dev, name, src.data, "clhgemm_splitk_reduce", out);
    chg_str_free(&src);
    return st;
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
