/*
 * params.c -- the GEMM kernel's parameters: built-in defaults per device class, the
 * CLHGEMM_*GEMM_PARAMS override, validation against the device, and the specialised source
 * (feature macros + parameter defines + cl/gemm.cl).
 *
 * Defaults are chosen for the class, not the smallest that works: on GPUs a 128x128 tile with
 * 8x8 accumulators per work-item, the KWG slice fully unrolled, float4 traffic for FP32 and
 * double2 with a KWG = 8 slice for FP64 (local memory and registers are the limit there); on
 * CPUs a modest tile read straight from the packed panels (local memory is ordinary cache there
 * and barriers are costly). The GPU values won a sweep of 19 candidates on an H100 (2026-11-22;
 * git show 6c7d489:docs/perf/2026-11-history.md). They are the last resort of the lookup: a
 * tuning-database entry for the device, its architecture or its vendor (src/tuning/resolve.c,
 * written by clhgemm-tune) comes first, and the CLHGEMM_*GEMM_PARAMS override wins over
 * everything (the choice among them is chg_gemm_params_select of src/tuning/tuning.c, the layer
 * above).
 */
#include "device/cache.h"
#include "kernels/params.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernels/embedded.h"

void chg_gemm_params_default(const chg_device_t *dev, chg_precision_t prec, chg_gemm_params_t *p)
{
    const int gpu = (dev->features & CHG_FEAT_GPU) != 0;
    memset(p, 0, sizeof(*p));
    if (gpu && prec == CHG_F32) {
        *p = (chg_gemm_params_t){.mwg = 128, .nwg = 128, .kwg = 16, .mdimc = 16, .ndimc = 16,
                                 .vwm = 4, .vwn = 4, .sa = 1, .sb = 1, .kwi = 16};
    } else if (gpu && (dev->features & CHG_FEAT_NV_MMA_F64)) {
        /* FP64 tensor cores (m16n8k4), 8 warps as 2 x 4 on a 128 x 128 tile: the best of the
         * first H100 sweep (git show 6c7d489:docs/perf/2026-11-history.md); FMA-valid geometry,
         * so a driver that rejects the mma falls back to the FMA kernel on the same tiles */
        *p = (chg_gemm_params_t){.mwg = 128, .nwg = 128, .kwg = 8, .mdimc = 16, .ndimc = 16,
                                 .vwm = 2, .vwn = 2, .sa = 1, .sb = 1, .kwi = 8, .mma = 2, .wm = 2};
    } else if (gpu) {
        *p = (chg_gemm_params_t){.mwg = 128, .nwg = 128, .kwg = 8, .mdimc = 16, .ndimc = 16,
                                 .vwm = 2, .vwn = 2, .sa = 1, .sb = 1, .kwi = 8};
    } else {
        *p = (chg_gemm_params_t){.mwg = 32, .nwg = 32, .kwg = 16, .mdimc = 8, .ndimc = 8,
                                 .vwm = 4, .vwn = 4, .sa = 0, .sb = 0, .kwi = 4};
        if (prec == CHG_F64) p->vwm = p->vwn = 2;
    }
    /* Small devices: shrink until the work-group fits. */
    while ((size_t)p->mdimc * p->ndimc > dev->info.max_work_group_size && p->mdimc > 1) {
        p->mdimc /= 2;
        p->ndimc /= 2;
        p->mwg /= 2;
        p->nwg /= 2;
    }
}

/* The small class's work-group tile: a quarter of the default's area, the same work-group
 * shape where it still divides (16 x 16 work-items on GPUs, 4 x 4 on CPUs). */
static void small_tiles(const chg_device_t *dev, chg_precision_t prec, chg_gemm_params_t *p)
{
    const int gpu = (dev->features & CHG_FEAT_GPU) != 0;
    if (gpu && prec == CHG_F32) {
        *p = (chg_gemm_params_t){.mwg = 64, .nwg = 64, .kwg = 16, .mdimc = 16, .ndimc = 16,
                                 .vwm = 4, .vwn = 4, .sa = 1, .sb = 1, .kwi = 16};
    } else if (gpu && (dev->features & CHG_FEAT_NV_MMA_F64)) {
        /* 4 warps as 2 x 2 on a 64 x 64 tile, 32 accumulators per work-item */
        *p = (chg_gemm_params_t){.mwg = 64, .nwg = 64, .kwg = 8, .mdimc = 16, .ndimc = 8,
                                 .vwm = 2, .vwn = 2, .sa = 1, .sb = 1, .kwi = 8, .mma = 2, .wm = 2};
    } else if (gpu) {
        *p = (chg_gemm_params_t){.mwg = 64, .nwg = 64, .kwg = 8, .mdimc = 16, .ndimc = 16,
                                 .vwm = 2, .vwn = 2, .sa = 1, .sb = 1, .kwi = 8};
    } else {
        *p = (chg_gemm_params_t){.mwg = 16, .nwg = 16, .kwg = 16, .mdimc = 4, .ndimc = 4,
                                 .vwm = 4, .vwn = 4, .sa = 0, .sb = 0, .kwi = 4};
        if (prec == CHG_F64) p->vwm = p->vwn = 2;
    }
}

void chg_gemm_params_class_default(const chg_device_t *dev, chg_precision_t prec, int cls,
                                   chg_gemm_params_t *p, int *split_k)
{
    chg_gemm_params_default(dev, prec, p);
    *split_k = 1;
    if (cls == CHG_SHAPE_SMALL) {
        chg_gemm_params_t q;
        small_tiles(dev, prec, &q);
        if (chg_gemm_params_valid(dev, prec, &q, NULL, 0)) *p = q;
    }
    if (cls == CHG_SHAPE_SMALL || cls == CHG_SHAPE_LARGE_K || cls == CHG_SHAPE_TALL ||
        cls == CHG_SHAPE_WIDE || cls == CHG_SHAPE_TALL_THIN || cls == CHG_SHAPE_WIDE_THIN)
        *split_k = 0;
}

void chg_gemm_params_direct_default(const chg_device_t *dev, chg_precision_t prec,
                                    chg_gemm_params_t *p)
{
    const int gpu = (dev->features & CHG_FEAT_GPU) != 0;
    chg_gemm_params_default(dev, prec, p);
    p->mma = p->wm = p->tf32 = p->swz = p->pf = 0;
    p->dk = 1;
    p->vwm = p->vwn = 1;
    p->sa = p->sb = 1;
    p->mwg = p->nwg = gpu ? 64 : 16;
    p->mdimc = p->ndimc = gpu ? 16 : 4;
    p->kwg = 16;
    p->kwi = gpu ? 16 : 4;
    while ((size_t)p->mdimc * p->ndimc > dev->info.max_work_group_size && p->mdimc > 1) {
        p->mdimc /= 2;
        p->ndimc = p->ndimc > 1 ? p->ndimc / 2 : 1;
    }
}

void chg_gemm_params_tf32(int mode, chg_gemm_params_t *p)
{
    /* The best of the H100 sweep at n = 8192 for both modes (git show
     * 6c7d489:docs/perf/2026-11-history.md, "TF32 opt-in"): 128 x 128 tiles on 4 warps (2 x 2, a
     * 64 x 64 sub-tile each), KWG = 16: 35 KiB of local memory, 128 accumulators per work-item.
     * TF32 132.7 TFLOP/s (64 x 128 on 4 warps 112, 128 x 128 on 8 warps 97); 3xTF32 63.6-63.9
     * (128 x 256 on 8 warps 61.5). */
    *p = (chg_gemm_params_t){.mwg = 128, .nwg = 128, .kwg = 16, .mdimc = 16, .ndimc = 8,
                             .vwm = 4, .vwn = 4, .sa = 1, .sb = 1, .kwi = 16, .mma = 3, .wm = 2,
                             .tf32 = mode};
}

int chg_sgemm_math(void)
{
    const char *m = chg_getenv("CLHGEMM_SGEMM_MATH");
    if (!m || !strcasecmp(m, "ieee")) return 0;
    if (!strcasecmp(m, "tf32")) return 1;
    if (!strcasecmp(m, "3xtf32")) return 3;
    return -1;
}

static int *param_field(chg_gemm_params_t *p, const char *key, size_t len)
{
    static const struct { const char *name; size_t off; } fields[] = {
        {"MWG", offsetof(chg_gemm_params_t, mwg)},     {"NWG", offsetof(chg_gemm_params_t, nwg)},
        {"KWG", offsetof(chg_gemm_params_t, kwg)},     {"MDIMC", offsetof(chg_gemm_params_t, mdimc)},
        {"NDIMC", offsetof(chg_gemm_params_t, ndimc)}, {"VWM", offsetof(chg_gemm_params_t, vwm)},
        {"VWN", offsetof(chg_gemm_params_t, vwn)},     {"SA", offsetof(chg_gemm_params_t, sa)},
        {"SB", offsetof(chg_gemm_params_t, sb)},       {"KWI", offsetof(chg_gemm_params_t, kwi)},
        {"MMA", offsetof(chg_gemm_params_t, mma)},     {"WM", offsetof(chg_gemm_params_t, wm)},
        {"TF32", offsetof(chg_gemm_params_t, tf32)},   {"SWZ", offsetof(chg_gemm_params_t, swz)},
        {"DK", offsetof(chg_gemm_params_t, dk)},       {"PF", offsetof(chg_gemm_params_t, pf)},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        if (strlen(fields[i].name) == len && strncasecmp(fields[i].name, key, len) == 0)
            return (int *)((char *)p + fields[i].off);
    return NULL;
}

int chg_gemm_params_parse(const char *text, chg_gemm_params_t *p)
{
    chg_gemm_params_t q = *p;
    const char *s = text;
    while (*s) {
        while (*s == ' ' || *s == ',' || *s == ';') s++;
        if (!*s) break;
        const char *key = s;
        while (isalnum((unsigned char)*s)) s++;
        size_t klen = (size_t)(s - key);
        if (*s != '=') return -1;
        s++;
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 4096) return -1;
        int *f = param_field(&q, key, klen);
        if (!f) return -1;
        *f = (int)v;
        s = end;
    }
    *p = q;
    return 0;
}

static int is_vw(int v) { return v == 1 || v == 2 || v == 4 || v == 8; }

#define INVALID(...) do { if (why) snprintf(why, why_len, __VA_ARGS__); return 0; } while (0)

/* The tensor-core variant (cl/gemm.cl, MMA): warps of 32 work-items arranged WM x WN over the
 * tile, each warp's sub-tile a whole number of MM x 8 instructions, slices of MK, the staged
 * panels (SA, SB) in local memory with rows padded by 4 doubles or 8 floats (so MWG and NWG
 * multiples of 16 and vector widths of at most 4 keep the padded rows aligned). FP32 only as
 * TF32 (m16n8k8, TF32 = 1 or 3). */
static int mma_valid(const chg_device_t *dev, chg_precision_t prec, const chg_gemm_params_t *p,
                     char *why, size_t why_len)
{
    if (prec == CHG_F32 && (p->mma != 3 || (p->tf32 != 1 && p->tf32 != 3)))
        INVALID("MMA in FP32 is the TF32 opt-in: MMA=3 with TF32=1 or 3");
    if (prec == CHG_F64 && p->tf32) INVALID("TF32 is an FP32 mode");
    if (!(dev->features & CHG_FEAT_NV_MMA_F64))
        INVALID("MMA needs NVIDIA tensor cores (compute capability >= 8.0)");
    const size_t threads = (size_t)p->mdimc * p->ndimc;
    if (threads > dev->info.max_work_group_size)
        INVALID("MDIMC*NDIMC=%zu exceeds the device's work-group limit %zu", threads,
                dev->info.max_work_group_size);
    if (threads % 32) INVALID("MMA needs whole warps (MDIMC*NDIMC a multiple of 32)");
    const int warps = (int)(threads / 32);
    if (p->wm <= 0 || warps % p->wm) INVALID("WM must divide the %d warps", warps);
    const int wn = warps / p->wm, mm = chg_mma_m(p->mma), mk = chg_mma_k(p->mma);
    if (p->mwg % (p->wm * mm)) INVALID("MWG must be a multiple of WM*%d", mm);
    if (p->nwg % (wn * 8)) INVALID("NWG must be a multiple of WN*8 (WN = %d)", wn);
    if (p->kwg % mk) INVALID("KWG must be a multiple of %d", mk);
    if (p->kwg % p->kwi) INVALID("KWG must be a multiple of KWI");
    if (p->mwg % 16 || p->nwg % 16) INVALID("MMA needs MWG and NWG multiples of 16");
    if (p->vwm > 4 || p->vwn > 4) INVALID("MMA needs VWM and VWN of at most 4");
    const size_t acc = (size_t)(p->mwg / p->wm) * (p->nwg / wn) / 32;
    if (acc > 128) INVALID("%zu accumulators per work-item is beyond the register file", acc);
    const unsigned long long pad = prec == CHG_F64 ? 4 : 8, es = chg_elem_size(prec);
    const unsigned long long lmem =
        2ull * p->kwg *
        ((unsigned long long)p->sa * (p->mwg + pad) + (unsigned long long)p->sb * (p->nwg + pad)) * es;
    if (lmem > dev->info.local_mem_bytes)
        INVALID("needs %llu bytes of local memory, the device has %llu", lmem,
                dev->info.local_mem_bytes);
    return 1;
}

/* The direct kernel (cl/gemm_direct.cl): whole work-items per tile row and column, the
 * unroll dividing the local tile's depth, both local tiles (rows padded by one element)
 * within the device's local memory. */
static int direct_valid(const chg_device_t *dev, chg_precision_t prec, const chg_gemm_params_t *p,
                        char *why, size_t why_len)
{
    if (p->dk != 1) INVALID("DK must be 0 or 1");
    if (p->mma || p->tf32 || p->swz) INVALID("DK excludes MMA, TF32 and SWZ");
    if (p->mwg % p->mdimc) INVALID("MWG must be a multiple of MDIMC");
    if (p->nwg % p->ndimc) INVALID("NWG must be a multiple of NDIMC");
    if (p->kwg % p->kwi) INVALID("KWG must be a multiple of KWI");
    const size_t threads = (size_t)p->mdimc * p->ndimc;
    if (threads > dev->info.max_work_group_size)
        INVALID("MDIMC*NDIMC=%zu exceeds the device's work-group limit %zu", threads,
                dev->info.max_work_group_size);
    const size_t acc = (size_t)(p->mwg / p->mdimc) * (p->nwg / p->ndimc);
    if (acc > 256) INVALID("%zu accumulators per work-item is beyond any register file", acc);
    const unsigned long long lmem =
        (unsigned long long)p->kwg * (unsigned long long)(p->mwg + p->nwg + 2) * chg_elem_size(prec);
    if (lmem > dev->info.local_mem_bytes)
        INVALID("needs %llu bytes of local memory, the device has %llu", lmem,
                dev->info.local_mem_bytes);
    if (prec == CHG_F64 && !(dev->features & CHG_FEAT_FP64)) INVALID("device has no FP64");
    return 1;
}

int chg_gemm_params_valid(const chg_device_t *dev, chg_precision_t prec,
                          const chg_gemm_params_t *p, char *why, size_t why_len)
{
    const size_t es = chg_elem_size(prec);
    if (p->mwg <= 0 || p->nwg <= 0 || p->kwg <= 0 || p->mdimc <= 0 || p->ndimc <= 0 ||
        p->kwi <= 0)
        INVALID("all sizes must be positive");
    if (!is_vw(p->vwm) || !is_vw(p->vwn)) INVALID("VWM and VWN must be 1, 2, 4 or 8");
    if (p->sa < 0 || p->sa > 1 || p->sb < 0 || p->sb > 1) INVALID("SA and SB must be 0 or 1");
    if (p->mma < 0 || p->mma > 4) INVALID("MMA must be 0..4");
    if (p->swz < 0 || p->swz > 64) INVALID("SWZ must be 0..64");
    if (p->pf < 0 || p->pf > 2) INVALID("PF must be 0, 1 or 2");
    if (p->pf == 2 && (!p->mma || !(p->sa || p->sb) || p->dk))
        INVALID("PF=2 is for the staged tensor-core kernel (MMA with SA or SB)");
    if (p->tf32 && !p->mma) INVALID("TF32 needs the tensor-core kernel (MMA=3)");
    if (p->dk) return direct_valid(dev, prec, p, why, why_len);
    if (p->mma) return mma_valid(dev, prec, p, why, why_len);
    if (p->mwg % (p->mdimc * p->vwm)) INVALID("MWG must be a multiple of MDIMC*VWM");
    if (p->nwg % (p->ndimc * p->vwn)) INVALID("NWG must be a multiple of NDIMC*VWN");
    if (p->kwg % p->kwi) INVALID("KWG must be a multiple of KWI");
    const size_t threads = (size_t)p->mdimc * p->ndimc;
    if (threads > dev->info.max_work_group_size)
        INVALID("MDIMC*NDIMC=%zu exceeds the device's work-group limit %zu", threads,
                dev->info.max_work_group_size);
    const size_t acc = (size_t)(p->mwg / p->mdimc) * (p->nwg / p->ndimc);
    if (acc > 256) INVALID("%zu accumulators per work-item is beyond any register file", acc);
    const unsigned long long lmem =
        2ull * p->kwg * ((unsigned long long)p->sa * p->mwg + (unsigned long long)p->sb * p->nwg) * es;
    if (lmem > dev->info.local_mem_bytes)
        INVALID("needs %llu bytes of local memory, the device has %llu", lmem,
                dev->info.local_mem_bytes);
    if (prec == CHG_F64 && !(dev->features & CHG_FEAT_FP64)) INVALID("device has no FP64");
    return 1;
}

void chg_gemm_params_defines(chg_precision_t prec, const chg_gemm_params_t *p, chg_str_t *s)
{
    chg_str_printf(s,
                   "#define PRECISION %d\n#define MWG %d\n#define NWG %d\n#define KWG %d\n"
                   "#define MDIMC %d\n#define NDIMC %d\n#define VWM %d\n#define VWN %d\n"
                   "#define SA %d\n#define SB %d\n#define KWI %d\n",
                   prec == CHG_F64 ? 64 : 32, p->mwg, p->nwg, p->kwg, p->mdimc, p->ndimc, p->vwm,
                   p->vwn, p->sa, p->sb, p->kwi);
    if (p->mma) {
        /* CLHGEMM_MMA_ASYNC=1: the tensor-core kernel stages its slices by cp.async
         * (cl/gemm.cl ASYNC). Off by default: no spills, but 15% slower on the H100 than the
         * register-staged form (git show 6c7d489:docs/perf/2026-11-history.md). */
        chg_str_printf(s, "#define MMA %d\n#define WM %d\n", p->mma, p->wm);
        if (p->tf32) chg_str_printf(s, "#define TF32 %d\n", p->tf32);
        if (chg_gemm_mma_async(prec)) chg_str_append(s, "#define ASYNC 1\n");
        if (p->pf == 2 && !chg_gemm_mma_async(prec)) chg_str_append(s, "#define PF2 1\n");
    }
    if (p->swz) chg_str_printf(s, "#define SWZ %d\n", p->swz);
}

int chg_gemm_mma_async(chg_precision_t prec)
{
    return prec == CHG_F64 && chg_env_flag("CLHGEMM_MMA_ASYNC", 0);
}

void chg_gemm_params_format(const chg_gemm_params_t *p, char *buf, size_t len)
{
    snprintf(buf, len, "MWG=%d,NWG=%d,KWG=%d,MDIMC=%d,NDIMC=%d,VWM=%d,VWN=%d,SA=%d,SB=%d,KWI=%d",
             p->mwg, p->nwg, p->kwg, p->mdimc, p->ndimc, p->vwm, p->vwn, p->sa, p->sb, p->kwi);
    if (p->mma) {
        const size_t used = strlen(buf);
        if (used < len) snprintf(buf + used, len - used, ",MMA=%d,WM=%d", p->mma, p->wm);
    }
    if (p->tf32) {
        const size_t used = strlen(buf);
        if (used < len) snprintf(buf + used, len - used, ",TF32=%d", p->tf32);
    }
    if (p->swz) {
        const size_t used = strlen(buf);
        if (used < len) snprintf(buf + used, len - used, ",SWZ=%d", p->swz);
    }
    if (p->dk) {
        const size_t used = strlen(buf);
        if (used < len) snprintf(buf + used, len - used, ",DK=%d", p->dk);
    }
    if (p->pf >= 2) {
        const size_t used = strlen(buf);
        if (used < len) snprintf(buf + used, len - used, ",PF=%d", p->pf);
    }
}

void chg_gemm_params_main(const chg_device_t *dev, chg_precision_t prec, chg_gemm_params_t *p)
{
    if (!p->dk) return;
    chg_gemm_params_t q = *p;
    q.dk = 0;
    if (chg_gemm_params_valid(dev, prec, &q, NULL, 0)) *p = q;
    else chg_gemm_params_default(dev, prec, p);
}

int chg_gemm_direct_source(const chg_device_t *dev, chg_precision_t prec,
                           const chg_gemm_params_t *p, chg_str_t *s)
{
    const char *body = chg_embedded_source("gemm_direct.cl", NULL);
    if (!body) return -1;
    chg_device_feature_defines(dev, s);
    chg_str_printf(s,
                   "#define PRECISION %d\n#define MWG %d\n#define NWG %d\n#define KWG %d\n"
                   "#define MDIMC %d\n#define NDIMC %d\n#define KWI %d\n",
                   prec == CHG_F64 ? 64 : 32, p->mwg, p->nwg, p->kwg, p->mdimc, p->ndimc, p->kwi);
    chg_str_append(s, body);
    return s->failed ? -1 : 0;
}

int chg_gemm_source(const chg_device_t *dev, chg_precision_t prec, const chg_gemm_params_t *p,
                    chg_str_t *s)
{
    const char *body = chg_embedded_source("gemm.cl", NULL);
    if (!body) return -1;
    chg_device_feature_defines(dev, s);
    chg_gemm_params_defines(prec, p, s);
    chg_str_append(s, body);
    return s->failed ? -1 : 0;
}

const char *chg_build_options(const chg_device_t *dev)
{
    (void)dev;
    /* IEEE results: no fast-math, no denormal flushing; -cl-std=CL1.2 is what every
     * supported driver accepts. */
    return "-cl-std=CL1.2";
}

clhgemm_status_t chg_kernel_get_cl(cl_context context, const chg_device_t *dev,
                                   const char *file, const char *name, int features,
                                   const char *defines, const char *entry, cl_kernel *out)
{
    const char *body = chg_embedded_source(file, NULL);
    if (!body) return CLHGEMM_INTERNAL_ERROR;
    chg_str_t src;
    chg_str_init(&src);
    if (features) chg_device_feature_defines(dev, &src);
    chg_str_append(&src, defines);
    chg_str_append(&src, body);
    clhgemm_status_t st = CLHGEMM_OUT_OF_HOST_MEMORY;
    if (!src.failed) st = chg_kernel_get(context, dev, name, src.data, entry, out);
    chg_str_free(&src);
    return st;
}

clhgemm_status_t chg_kernel_get(cl_context context, const chg_device_t *dev, const char *name,
                                const char *source, const char *entry, cl_kernel *out)
{
    cl_program prog;
    const clhgemm_status_t st = chg_program_get(context, dev, name, source, chg_build_options(dev), &prog);
    if (st != CLHGEMM_SUCCESS) return st;
    cl_int err;
    *out = clCreateKernel(prog, entry, &err);
    return err == CL_SUCCESS ? CLHGEMM_SUCCESS : (clhgemm_status_t)err;
}
