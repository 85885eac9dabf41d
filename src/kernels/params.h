/*
 * params.h -- parameters of the GEMM kernel (cl/gemm.cl) and how they are chosen (params.c).
 *
 * The kernel computes Cp = Ap * Bp (+ Cp when accumulating) on packed, zero-padded operands:
 *   Ap block-major [Mp/MWG][Kp][MWG], Bp block-major [Np/NWG][Kp][NWG], Cp column-major Mp x Np.
 * A work-group of MDIMC x NDIMC work-items owns one MWG x NWG tile of Cp and walks k in steps of
 * KWG; each work-item owns (MWG/MDIMC) x (NWG/NDIMC) accumulators, loaded as vectors of VWM/VWN
 * elements. SA/SB stage the A/B panels through local memory. KWI is the unroll factor of the
 * inner k loop. The values are prepended as #defines (chg_gemm_params_defines) before the kernel.
 */
#ifndef CHG_PARAMS_H
#define CHG_PARAMS_H

#include "device/device.h"
#include "kernels/precision.h"
#include "kernels/shape.h"

typedef struct chg_gemm_params_s {
    int mwg, nwg, kwg;  /* work-group tile of C (m, n) and k step */
    int mdimc, ndimc;   /* work-group shape in work-items */
    int vwm, vwn;       /* vector widths of A and B accesses (1, 2, 4 or 8) */
    int sa, sb;         /* stage A / B through local memory (0 or 1) */
    int kwi;            /* unroll factor of the inner k loop (divides kwg) */
    /* FP64 tensor cores (NVIDIA, CHG_FEAT_NV_MMA_F64): 0 = the FMA kernel; 1..4 = mma.sync of
     * shape m8n8k4, m16n8k4, m16n8k8, m16n8k16, the work-group's warps arranged wm along m.
     * Both are left out of the formatted string when mma is 0, so older strings still match.
     * In FP32, mma 3 is the TF32 tensor-core instruction m16n8k8 (same fragment layout), taken
     * only with tf32 set: 1 = one TF32 product (inputs rounded to 10 mantissa bits), 3 = 3xTF32
     * (each input split into a TF32 high and low part, three products: FP32-class accuracy).
     * TF32 is an opt-in (CLHGEMM_SGEMM_MATH); it is never read from a tuning database. */
    int mma, wm, tf32;
    /* Work-group rasterisation: 0 = tile (i, j) is work-group (i, j); s > 0 = the launch is
     * walked in bands of s tile rows, column by column inside a band, so the work-groups
     * resident at one time share fewer A and B panels (cl/gemm.cl SWZ). Left out when 0. */
    int swz;
    /* The direct kernel (cl/gemm_direct.cl) instead of the packed one: 1 = one launch that reads
     * A and B in place (any transpose, leading dimension and offset, bounds-checked) through
     * local-memory tiles and applies alpha/beta itself (beta = 0 never reads C): no packs, no
     * padding, no write-back. Its geometry is MWG x NWG tiles of C, KWG-deep local tiles,
     * MDIMC x NDIMC work-items (MWG/MDIMC x NWG/NDIMC results each), the k loop unrolled by
     * KWI; VWM, VWN, SA, SB do not apply. Only a shape class's configuration of a plain GEMM
     * runs it (small and thin calls, where packing costs more than it saves); where main
     * parameters are taken (level-3 routines, the host pipeline) it is ignored. Left out of the
     * formatted string when 0. */
    int dk;
    /* Slices in flight in the staged tensor-core kernel: 0 or 1 = one (the next slice's loads
     * overlap one step's arithmetic), 2 = two (cl/gemm.cl PF2: the loads have two steps to
     * land). Left out of the formatted string when below 2. */
    int pf;
} chg_gemm_params_t;

/* m, k of the mma shape (n is always 8); 0 when mma is not 1..4. */
static inline int chg_mma_m(int mma) { return mma == 1 ? 8 : (mma >= 2 && mma <= 4) ? 16 : 0; }
static inline int chg_mma_k(int mma) { return mma == 1 || mma == 2 ? 4 : mma == 3 ? 8 : mma == 4 ? 16 : 0; }

/* Built-in defaults for the device class (GPU by vendor, CPU, other). */
void chg_gemm_params_default(const chg_device_t *dev, chg_precision_t prec, chg_gemm_params_t *p);

/* Built-in configuration of a shape class (kernels/shape.h) for the device class: *p the
 * kernel parameters, *split_k the split of k (0: chosen per call from the compute units, see
 * core/gemm.c; 1: none; s >= 2: s slices). Large, medium and rank-k updates run the defaults
 * above without split; small outputs get smaller work-group tiles; the classes with few tiles
 * of C (small, large-k, tall, wide) let the call choose a split. A class configuration that
 * does not fit the device falls back to chg_gemm_params_default, split 1. */
void chg_gemm_params_class_default(const chg_device_t *dev, chg_precision_t prec, int cls,
                                   chg_gemm_params_t *p, int *split_k);

/* The direct kernel's built-in geometry for the device class (dk = 1): GPUs 64 x 64 tiles of
 * 16 x 16 work-items (4 x 4 results each), KWG 16; CPUs 16 x 16 tiles of 4 x 4. Shrunk to the
 * device's work-group limit. What clhgemm-tune's class phase starts its direct candidates from. */
void chg_gemm_params_direct_default(const chg_device_t *dev, chg_precision_t prec,
                                    chg_gemm_params_t *p);

/* The FP32 tensor-core kernel's built-in geometry with tf32 = mode (1 or 3). */
void chg_gemm_params_tf32(int mode, chg_gemm_params_t *p);

/* CLHGEMM_SGEMM_MATH: "ieee" (or unset) 0, "tf32" 1, "3xtf32" 3; -1 for anything else. */
int chg_sgemm_math(void);

/* Parses "MWG=128,NWG=64,..." (any subset of keys, case-insensitive) over *p.
 * Returns 0 on success, -1 on a malformed string (p unchanged). */
int chg_gemm_params_parse(const char *text, chg_gemm_params_t *p);

/* Checks divisibility, vector widths, work-group size and local memory against the device.
 * Returns 1 when valid; otherwise 0 with a reason in why (may be NULL). */
int chg_gemm_params_valid(const chg_device_t *dev, chg_precision_t prec,
                          const chg_gemm_params_t *p, char *why, size_t why_len);

/* The parameters that the library uses for (dev, prec), the tuning database's entry under the
 * environment overrides, are chosen one layer up: chg_gemm_params_select / chg_tuned_gemm in
 * tuning/tuning.h. */

/* Appends the #define block for (prec, p) to s. */
void chg_gemm_params_defines(chg_precision_t prec, const chg_gemm_params_t *p, chg_str_t *s);

/* Full source of the direct kernel (p->dk, cl/gemm_direct.cl) specialised for (dev, prec, p).
 * Returns 0 on success (s->failed set on allocation failure). */
int chg_gemm_direct_source(const chg_device_t *dev, chg_precision_t prec,
                           const chg_gemm_params_t *p, chg_str_t *s);

/* p as main parameters (the packed kernel's): p itself without DK; a DK configuration whose
 * geometry does not suit the packed kernel gives the device's defaults. */
void chg_gemm_params_main(const chg_device_t *dev, chg_precision_t prec, chg_gemm_params_t *p);

/* "MWG=.. NWG=.. ..." for logs and benchmark output. */
void chg_gemm_params_format(const chg_gemm_params_t *p, char *buf, size_t len);

/* Whether the FP64 tensor-core kernel stages its slices by cp.async (CLHGEMM_MMA_ASYNC=1;
 * chg_gemm_source's ASYNC define). */
int chg_gemm_mma_async(chg_precision_t prec);

/* Full source of the GEMM kernel specialised for (dev, prec, p): feature macros, parameter
 * defines, then cl/gemm.cl. Returns 0 on success (s->failed set on allocation failure). */
int chg_gemm_source(const chg_device_t *dev, chg_precision_t prec, const chg_gemm_params_t *p,
                    chg_str_t *s);

/* Build options used for every library kernel on this device. */
const char *chg_build_options(const chg_device_t *dev);
/* The kernel `entry` of the program built from `source` with the device's build options, through
 * the program cache (device/cache.h chg_program_get; `name` for its logs and dumps): how every
 * generated kernel of the library is made. */
clhgemm_status_t chg_kernel_get(cl_context context, const chg_device_t *dev, const char *name,
                                const char *source, const char *entry, cl_kernel *out);
/* The same for a kernel of cl/<file> (embedded at build time): the source is the device's
 * feature macros (with features), then `defines` (e.g. "#define PRECISION 64\n"), then the
 * file. */
clhgemm_status_t chg_kernel_get_cl(cl_context context, const chg_device_t *dev,
                                   const char *file, const char *name, int features,
                                   const char *defines, const char *entry, cl_kernel *out);

#endif
