/*
 * direct.h -- the direct-operand decision of the device GEMM core (direct.c owns it; a header
 * private to src/core: core/gemm.h includes it, so the core's users reach it through that).
 */
#ifndef CHG_DIRECT_H
#define CHG_DIRECT_H

#include "core/gemm_args.h"

/* ---- direct operands (plain GEMM; C alone for SYMM and TRMM) -------------------------------
 * Where the caller's matrix already has the layout the kernel reads, the blocked core skips a copy
 * (cl/gemm.cl, DIRECT_*; the flags are core/blocks.h's): CHG_DIRECT_A reads op(A) = A (not
 * transposed) in place, with lda as the k stride; CHG_DIRECT_B reads op(B)^T = B when B is
 * transposed, CHG_DIRECT_BK B not transposed (k-major; kernels that stage B, SB = 1, without
 * cp.async); CHG_DIRECT_C has the kernel apply alpha/beta and write C itself when a C block takes
 * all of k in one slice (no Cp, no write-back; CHG_DIRECT_BETA0 with it: beta = 0, C never read).
 * A/B need VWM/VWN-aligned offset and leading dimension, k a multiple of KWG, the rows the padded
 * tiles read inside the buffer, and (with DIRECT_C) no overlap with C. By default (CLHGEMM_DIRECT
 * unset or "auto") the FMA kernel uses all of them and the tensor-core kernels DIRECT_C, and
 * DIRECT_A / DIRECT_B only for products of m n k <= CHG_DIRECT_AB_MMA_MNK (larger ones measured
 * slower with them), B not transposed (CHG_DIRECT_BK) included; the FMA kernel reads B not
 * transposed in place for products of m n k <= CHG_DIRECT_BK_FMA_MNK with k >= 256 and in split-K's
 * thin products; "on" allows them for both, "off" for neither, a list such as "a,c" only those.
 * SYMM and TRMM (a structured operand, the whole of C) get DIRECT_C alone by the same rules, their
 * operands packed (which lets the kernel write over TRMM's in-place B); SYRK / SYR2K none. */
#define CHG_DIRECT_AB_MMA_MNK 2147483648.0 /* 2^31: 1290^3, 512 x 8192 x 512 */
#define CHG_DIRECT_BK_FMA_MNK 1073741824.0 /* 2^30: 1024^3 */
/* The direct modes for a call planned with k slices of kb (kb >= k: one slice). */
int chg_gemm_direct_mode(const chg_gemm_args_t *a, const chg_gemm_params_t *gp, size_t kb);

/* Whether elements [lo1, hi1) of b1 and [lo2, hi2) of b2 (elements of es bytes) may share
 * memory: the same buffer, or sub-buffers of one, with overlapping byte ranges. */
int chg_may_overlap(cl_mem b1, size_t lo1, size_t hi1, cl_mem b2, size_t lo2, size_t hi2,
                    size_t es);

/* CLHGEMM_DIRECT over the automatic choice `allow` (CHG_DIRECT_* flags): auto, on|all,
 * off|0|none, or a list of the letters a, b, c; anything else is reported and leaves auto. */
int chg_direct_env(int allow);

/* The operands among `allow` (CHG_DIRECT_A / _B / _BK) that can be read in place: op(A) = A not
 * transposed, op(B)^T = B transposed, B not transposed k-major on kernels that stage B, each
 * aligned and with the padded tiles' reads inside its buffer; *ahi / *bhi one past the last
 * element read. Shared by the blocked path (chg_gemm_direct_mode) and split-K. */
int chg_direct_in_place(const chg_gemm_args_t *a, const chg_gemm_params_t *gp, int allow,
                        size_t *ahi, size_t *bhi);

#endif
