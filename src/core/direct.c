/*
 * direct.c -- which operands of a device GEMM block are read (and C written) in place, without
 * a pack or a write-back: the direct-operand decision of the blocked core (chg_gemm_direct_mode,
 * core/gemm.h) and of split-K (chg_direct_in_place), CLHGEMM_DIRECT, and whether two buffer
 * ranges may share memory (sub-buffers resolved to their parent). See core/direct.h; core/gemm.c
 * enqueues what is decided here.
 */
#include "core/direct.h"

#include <string.h>

/* The buffer that owns m's memory (a sub-buffer's parent) and m's byte origin in it. */
static cl_mem mem_root(cl_mem m, size_t *origin)
{
    *origin = 0;
    for (int depth = 0; depth < 4; depth++) {
        cl_mem parent = NULL;
        size_t off = 0;
        if (clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) !=
                CL_SUCCESS || !parent)
            return m;
        if (clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof off, &off, NULL) != CL_SUCCESS) return m;
        *origin += off;
        m = parent;
    }
    return m;
}

/* Whether elements [lo1, hi1) of b1 and [lo2, hi2) of b2 may share memory. */
int chg_may_overlap(cl_mem b1, size_t lo1, size_t hi1, cl_mem b2, size_t lo2, size_t hi2,
                    size_t es)
{
    size_t o1, o2;
    if (mem_root(b1, &o1) != mem_root(b2, &o2)) return 0;
    return o1 + lo1 * es < o2 + hi2 * es && o2 + lo2 * es < o1 + hi1 * es;
}

/* Whether an operand stored at buf + off (leading dimension ld) can be read in place: `rows`
 * along the contiguous direction padded to whole `tile`s, k (a multiple of KWG) along ld.
 * *hi receives one past the last element read. */
static int direct_operand(cl_mem buf, size_t off, size_t ld, size_t rows, size_t k, int tile,
                          int vw, int kwg, size_t es, size_t *hi)
{
    if (off % (size_t)vw || ld % (size_t)vw || k % (size_t)kwg) return 0;
    const size_t rpad = chg_round_up(rows, (size_t)tile);
    *hi = off + (k - 1) * ld + rpad;
    size_t bytes = 0;
    if (clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL) != CL_SUCCESS) return 0;
    /* inside the buffer, and int indexing in the kernel (k * ld + rows < 2^31 elements) */
    return *hi <= bytes / es && (k + 1) * ld + rpad < (1ull << 31);
}

/* Whether B not transposed (k x n at buf + off, leading dimension ld: k-major) can be read in
 * place by the DIRECT_B 2 kernel: k a multiple of KWG, the n columns padded to whole `tile`s
 * inside the buffer, and int indexing. *hi receives one past the last element read. */
static int direct_operand_kmajor(cl_mem buf, size_t off, size_t ld, size_t cols, size_t k,
                                 int tile, int kwg, size_t es, size_t *hi)
{
    if (k % (size_t)kwg) return 0;
    const size_t cpad = chg_round_up(cols, (size_t)tile);
    *hi = off + (cpad - 1) * ld + k;
    size_t bytes = 0;
    if (clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL) != CL_SUCCESS) return 0;
    return *hi <= bytes / es && cpad * ld + k < (1ull << 31);
}

/* CLHGEMM_DIRECT over the automatic choice (direct.h; commas allowed in the list). */
int chg_direct_env(int allow)
{
    const char *env = chg_getenv("CLHGEMM_DIRECT");
    if (!env || !strcmp(env, "auto")) return allow;
    if (!strcmp(env, "on") || !strcmp(env, "all")) return CHG_DIRECT_A | CHG_DIRECT_BANY | CHG_DIRECT_C;
    if (!strcmp(env, "off") || !strcmp(env, "0") || !strcmp(env, "none")) return 0;
    if (strspn(env, "abc,") != strlen(env) || strspn(env, ",") == strlen(env)) {
        chg_env_warn("CLHGEMM_DIRECT", env, "is not auto, on, off or a list of a, b, c; using auto");
        return allow;
    }
    int mask = 0;
    for (const char *p = env; *p; p++)
        mask |= *p == 'a' ? CHG_DIRECT_A : *p == 'b' ? CHG_DIRECT_BANY : *p == 'c' ? CHG_DIRECT_C : 0;
    return mask;
}

/* The operands among `allow` (CHG_DIRECT_A / _B / _BK) that can be read in place (direct.h):
 * each in the kernel's layout (direct_operand, direct_operand_kmajor). Shared by the blocked
 * path and split-K (core/gemm.c splitk_direct). */
int chg_direct_in_place(const chg_gemm_args_t *a, const chg_gemm_params_t *gp, int allow,
                        size_t *ahi, size_t *bhi)
{
    const size_t es = chg_elem_size(a->prec);
    int mode = 0;
    if ((allow & CHG_DIRECT_A) && !a->trans_a &&
        direct_operand(a->a, a->off_a, a->lda, a->m, a->k, gp->mwg, gp->vwm, gp->kwg, es, ahi))
        mode |= CHG_DIRECT_A;
    if ((allow & CHG_DIRECT_B) && a->trans_b &&
        direct_operand(a->b, a->off_b, a->ldb, a->n, a->k, gp->nwg, gp->vwn, gp->kwg, es, bhi))
        mode |= CHG_DIRECT_B;
    /* B not transposed: a kernel that stages B reads it k-major (DIRECT_B 2) where `allow` has
     * CHG_DIRECT_BK */
    if ((allow & CHG_DIRECT_BK) && !a->trans_b && gp->sb && !gp->dk &&
        !(gp->mma && chg_gemm_mma_async(a->prec)) &&
        direct_operand_kmajor(a->b, a->off_b, a->ldb, a->n, a->k, gp->nwg, gp->kwg, es, bhi))
        mode |= CHG_DIRECT_BK;
    return mode;
}

int chg_gemm_direct_mode(const chg_gemm_args_t *a, const chg_gemm_params_t *gp, size_t kb)
{
    const chg_struct_t general = {0};
    const int structured = memcmp(&a->st, &general, sizeof general) != 0;
    /* complex operands are never in the kernel's layout (the 1m packs expand them), nor is C
     * written by the real kernel with complex alpha and beta */
    if (a->st.c_tri != CHG_TRI_NONE || a->swap_sum || a->st.cplx) return 0;
    /* auto: every mode for the FMA kernel, B transposed in small products only (below; on the H100
     * each saved its copy: SGEMM NN n = 8192 +0.5% each, +1% together). For the tensor-core kernels
     * no in-place A or B (each cost the FP64 kernel ~2% at n = 8192, more than the pack it saves:
     * git show 6c7d489:docs/perf/2026-11-history.md), and C written by the kernel at any beta and
     * k: with beta = 0 it never reads C (DGEMM n = 8192 +1.6%); otherwise its C loads, two
     * instructions' worth at a time before their stores (cl/gemm.cl), save the write-back's pass
     * over C (DGEMM 4096 x 4096 x 128 +18%, 8192^2 x 256 +15%, 1000^3 +10%, 4096^3 +1%;
     * 2026-11-26). Up to 2026-11-27 k above
     * 4096 kept the write-back: the kernel's loads of a whole row of instructions spilled and cost
     * ~1% there; in groups of two they do not, and 5000^3 ran +3.7%, 8192 x 2048 x 6144 +2.6%,
     * 4096^2 x 8192 +1%, 8192^3 +0.4% with C by the kernel (H100, two rounds). Small products
     * (m n k <= CHG_DIRECT_AB_MMA_MNK) read A and B in place on the tensor-core kernels too: the
     * pack launch they save is a large part of such a call (DGEMM 256^3 and 512^3 +33%, 1000^3 +9%,
     * 1024^3 +16%; from 2000^3 on +-1%, 8192^2 x 256 -1%), B not transposed too (k-major,
     * CHG_DIRECT_BK). The FMA kernel reads B k-major in place in the blocked path for products of
     * m n k <= CHG_DIRECT_BK_FMA_MNK with k >= 256 (since its k-major slice is stored without bank
     * conflicts: SGEMM 256^3 +15%, 384^3 +6%, 512^3 and 1024^3 +3%, 768^3 and 1000^3 +-1%, three
     * rounds on the H100; 1536^3 -18%, 2048^3 -30%, 4096^2 x 128 -16%; 4096^2 x 64, at the bound,
     * ran 17.6 against 18.9-20.1 TFLOP/s in the sweeps) and in split-K's thin products
     * (splitk_direct). B transposed is read in place by the FMA kernel up to the same m n k only:
     * SGEMM NT ran 41.7 TFLOP/s at n = 8192 with it against 50.5 with B packed (and A and C
     * direct), 44.7 / 49.0 at 4096, 41.5 / 44.9 at 2048, and 25.1 / 22.9 at 1024 (H100, one lease,
     * 2026-11-27). */
    const int all = CHG_DIRECT_A | CHG_DIRECT_B | CHG_DIRECT_C;
    const double mnk = (double)a->m * (double)a->n * (double)a->k;
    const int small = mnk <= CHG_DIRECT_AB_MMA_MNK;
    const int fma_small = mnk <= CHG_DIRECT_BK_FMA_MNK;
    int allow = gp->mma ? CHG_DIRECT_C | (small ? CHG_DIRECT_A | CHG_DIRECT_BANY : 0)
                        : (fma_small ? all : all & ~CHG_DIRECT_B) |
                              (fma_small && a->k >= 256 ? CHG_DIRECT_BK : 0);
    allow = chg_direct_env(allow);
    /* SYMM and TRMM (a structured operand, the whole of C): C only, their operands packed --
     * the packs expand the symmetric operand and hold a TRMM's in-place B as it was, so the
     * kernel may write C over it (the blocks in TRMM's safe order, core/gemm.c); the leaves of
     * DTRSM n = 8192 saved their write-back's pass */
    if (structured) allow &= CHG_DIRECT_C;
    const size_t es = chg_elem_size(a->prec);
    size_t ahi = 0, bhi = 0;
    int mode = chg_direct_in_place(a, gp, allow, &ahi, &bhi);
    if ((allow & CHG_DIRECT_C) && kb >= a->k) {
        /* The kernel writes C while other work-groups still read a direct operand: none may
         * share memory with C (BLAS forbids it; with copies it would still work, so keep it). */
        const size_t clo = a->off_c, chi = a->off_c + (a->n - 1) * a->ldc + a->m;
        if ((mode & CHG_DIRECT_A) && chg_may_overlap(a->a, a->off_a, ahi, a->c, clo, chi, es))
            mode &= ~CHG_DIRECT_A;
        if ((mode & CHG_DIRECT_BANY) && chg_may_overlap(a->b, a->off_b, bhi, a->c, clo, chi, es))
            mode &= ~CHG_DIRECT_BANY;
        mode |= CHG_DIRECT_C | (a->beta == 0.0 ? CHG_DIRECT_BETA0 : 0);
    }
    return mode;
}
