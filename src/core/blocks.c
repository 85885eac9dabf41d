/*
 * blocks.c -- the building blocks of a device GEMM (see blocks.h): the kernels of a GEMM or
 * level-3 variant (the generated packs and write-back, the GEMM kernel with its TRIANGLE,
 * KLIMIT, DIRECT_* and SPLITK switches, through the program cache), their arguments, and the
 * enqueue of each step -- a pack (general or structured, at a global position), the GEMM kernel
 * on packed panels (only the tiles and k slices a level-3 structure needs), a write-back
 * (masked to a triangle of C). The blocked core (core/gemm.c), the host pipeline and TRSM
 * compose their calls from these.
 */
#include "core/blocks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cache.h"
#include "tuning/tuning.h"

/* ---- kernels and their arguments ---------------------------------------------------------- */

clhgemm_status_t chg_copy_kernel(cl_context ctx, const chg_device_t *dev,
                                 const chg_copy_params_t *cp, const char *name, cl_kernel *out)
{
    chg_str_t src;
    chg_str_init(&src);
    const char *entry = NULL;
    if (chg_copy_generate(dev, cp, &src, &entry) != 0) {
        int oom = src.failed;
        chg_str_free(&src);
        return oom ? CLHGEMM_OUT_OF_HOST_MEMORY : CLHGEMM_INTERNAL_ERROR;
    }
    const clhgemm_status_t st = chg_kernel_get(ctx, dev, name, src.data, entry, out);
    chg_str_free(&src);
    return st;
}

/* The GEMM kernel; triangle / klimit select the TRIANGLE / KLIMIT variants of cl/gemm.cl
 * (0, 0: the plain kernel, whose source carries neither define), cplx their complex geometry
 * (CPLX: Cp's rows and a triangular Bp's k rows come in pairs; the plain kernel is the same for
 * real and complex calls). */
static clhgemm_status_t gemm_kernel_variant(cl_context ctx, const chg_device_t *dev,
                                            chg_precision_t prec, const chg_gemm_params_t *gp,
                                            int triangle, int klimit, int direct, int cplx,
                                            cl_kernel *out)
{
    chg_str_t src;
    chg_str_init(&src);
    char name[64];
    cplx = cplx && (triangle || klimit);
    snprintf(name, sizeof name, "%s%s%s%s%s%s%s", prec == CHG_F64 ? "dgemm" : "sgemm",
             cplx ? "-cplx" : "",
             triangle ? (triangle == CHG_TRI_UPPER ? "-tri-upper" : "-tri-lower")
             : klimit ? "-klimit" : "",
             direct & CHG_DIRECT_A ? "-direct-a" : "",
             direct & CHG_DIRECT_B ? "-direct-b" : direct & CHG_DIRECT_BK ? "-direct-bk" : "",
             direct & CHG_DIRECT_C ? (direct & CHG_DIRECT_BETA0 ? "-direct-c0" : "-direct-c") : "",
             !(direct & CHG_KERNEL_SPLITK)       ? ""
             : direct & CHG_KERNEL_SPLITK_UNEVEN ? "-splitk2"
                                                 : "-splitk");
    if (direct & CHG_KERNEL_SPLITK)
        chg_str_printf(&src, "#define SPLITK %d\n", direct & CHG_KERNEL_SPLITK_UNEVEN ? 2 : 1);
    if (triangle) chg_str_printf(&src, "#define TRIANGLE %d\n", triangle);
    if (klimit) chg_str_printf(&src, "#define KLIMIT %d\n", klimit);
    if (cplx) chg_str_append(&src, "#define CPLX 1\n");
    if (direct & CHG_DIRECT_A) chg_str_append(&src, "#define DIRECT_A 1\n");
    if (direct & CHG_DIRECT_B) chg_str_append(&src, "#define DIRECT_B 1\n");
    if (direct & CHG_DIRECT_BK) chg_str_append(&src, "#define DIRECT_B 2\n");
    if (direct & CHG_DIRECT_C)
        chg_str_printf(&src, "#define DIRECT_C %d\n", direct & CHG_DIRECT_BETA0 ? 2 : 1);
    if (chg_gemm_source(dev, prec, gp, &src) != 0) {
        int oom = src.failed;
        chg_str_free(&src);
        return oom ? CLHGEMM_OUT_OF_HOST_MEMORY : CLHGEMM_INTERNAL_ERROR;
    }
    const clhgemm_status_t st = chg_kernel_get(ctx, dev, name, src.data, "clhgemm_gemm", out);
    chg_str_free(&src);
    if (st == CLHGEMM_KERNEL_BUILD_FAILED && gp->mma && !(direct & CHG_DIRECT_BK)) {
        /* A driver whose PTX does not take this mma shape: the FMA kernel on the same tile
         * geometry computes the same packed product, so the call goes on with it when that
         * geometry is valid for it (the packed layouts depend on MWG/NWG/KWG only). */
        chg_gemm_params_t fma = *gp;
        fma.mma = fma.wm = fma.tf32 = 0;
        char why[160] = "";
        if (chg_gemm_params_valid(dev, prec, &fma, why, sizeof why)) {
            chg_log(1, "the tensor-core GEMM kernel (MMA=%d) did not build (%s); using the FMA "
                    "kernel on the same tiles", gp->mma, clhgemm_status_string(st));
            return gemm_kernel_variant(ctx, dev, prec, &fma, triangle, klimit, direct, cplx, out);
        }
        chg_log(1, "the tensor-core GEMM kernel (MMA=%d) did not build and its tiles do not suit "
                "the FMA kernel (%s)", gp->mma, why);
    }
    return st;
}

clhgemm_status_t chg_gemm_kernel_direct(cl_context ctx, const chg_device_t *dev,
                                        chg_precision_t prec, const chg_gemm_params_t *gp,
                                        int klimit, int direct, cl_kernel *out)
{
    return gemm_kernel_variant(ctx, dev, prec, gp, 0, klimit, direct, 0, out);
}

cl_int chg_set_real(cl_kernel k, cl_uint i, chg_precision_t prec, double v)
{
    if (prec == CHG_F64) return clSetKernelArg(k, i, sizeof(double), &v);
    float f = (float)v;
    return clSetKernelArg(k, i, sizeof(float), &f);
}

cl_int chg_set_complex(cl_kernel k, cl_uint i, chg_precision_t prec, const double v[2])
{
    if (prec == CHG_F64) {
        const cl_double2 d = {{v[0], v[1]}};
        return clSetKernelArg(k, i, sizeof d, &d);
    }
    const cl_float2 f = {{(float)v[0], (float)v[1]}};
    return clSetKernelArg(k, i, sizeof f, &f);
}

cl_int chg_set_update_args(cl_kernel k, chg_precision_t prec, int cplx, size_t mc, size_t nc,
                           const double alpha[2], const double beta[2], cl_mem cp, size_t ldcp,
                           cl_mem c, size_t off, size_t ldc)
{
    const int mi = (int)mc, ni = (int)nc, ld = (int)ldcp;
    const cl_ulong o = off, l = ldc;
    cl_int err = cplx ? chg_set_complex(k, 2, prec, alpha) : chg_set_real(k, 2, prec, alpha[0]);
    if (err == CL_SUCCESS)
        err = cplx ? chg_set_complex(k, 3, prec, beta) : chg_set_real(k, 3, prec, beta[0]);
    CHG_SETARG(k, 0, mi);
    CHG_SETARG(k, 1, ni);
    CHG_SETARG(k, 4, cp);
    CHG_SETARG(k, 5, ld);
    CHG_SETARG(k, 6, c);
    CHG_SETARG(k, 7, o);
    CHG_SETARG(k, 8, l);
    return err;
}

/* ---- building blocks ------------------------------------------------------------------- */

void chg_gemm_kernels_release(chg_gemm_kernels_t *ks)
{
    if (ks->pack_a) clReleaseKernel(ks->pack_a);
    if (ks->pack_b) clReleaseKernel(ks->pack_b);
    if (ks->gemm) clReleaseKernel(ks->gemm);
    if (ks->wb) clReleaseKernel(ks->wb);
    ks->pack_a = ks->pack_b = ks->gemm = ks->wb = NULL;
}

/* Parameters of a pack whose source runs along i (contig) or across. A general pack (kind
 * PACK) is GEMM's; the structured kinds start from the parameters of the same direction and
 * fall back to their own defaults when those do not fit (they always stage through local
 * memory). Parameter choice for the packs lives here only. */
void chg_pack_params(const chg_device_t *dev, chg_precision_t prec, chg_copy_kind_t kind,
                     int contig, chg_copy_params_t *cp)
{
    /* the tuned PACK parameters (tuning entry, else defaults); the structured packs start
     * from them and fall back to their own defaults where those do not fit */
    chg_tuning_copy_params(dev, prec, CHG_COPY_PACK, contig, cp);
    if (kind == CHG_COPY_PACK) return;
    cp->kind = kind;
    if (!chg_copy_params_valid(dev, cp, NULL, 0)) {
        chg_copy_params_default(dev, kind, prec, cp);
        cp->src_contig_i = contig;
    }
}

chg_copy_kind_t chg_pack_kind(chg_struct_kind_t k)
{
    return k == CHG_SYMMETRIC ? CHG_COPY_PACK_SYM
           : k == CHG_TRIANGULAR ? CHG_COPY_PACK_TRI : CHG_COPY_PACK;
}

static const char *pack_name(chg_copy_kind_t k)
{
    return k == CHG_COPY_PACK_SYM ? "pack-sym" : k == CHG_COPY_PACK_TRI ? "pack-tri" : "pack";
}

/* A complex call's parameters for a copy kernel of the real ones *cp: side 1 (X_A) or 2 (X_B)
 * for a pack, 1 for an update; herm as codegen.h says. The complex packs stage twice the bytes
 * of the real structured ones through local memory: where the tuned tile does not fit, the
 * kind's defaults, halved until they do. */
static void cplx_params(const chg_device_t *dev, int side, int herm, chg_copy_params_t *cp)
{
    cp->cplx = side;
    cp->herm = herm;
    if (chg_copy_params_valid(dev, cp, NULL, 0)) return;
    const int contig = cp->src_contig_i, beta_zero = cp->beta_zero;
    chg_copy_params_default(dev, cp->kind, cp->prec, cp);
    cp->src_contig_i = contig;
    cp->beta_zero = beta_zero;
    cp->cplx = side;
    cp->herm = herm;
    while (!chg_copy_params_valid(dev, cp, NULL, 0) && cp->tile_p > cp->wpt_p) cp->tile_p /= 2;
}

chg_gemm_params_t chg_l3_tile(const chg_gemm_params_t *gp, const chg_struct_t *st)
{
    chg_gemm_params_t t = *gp;
    if (st->cplx) {
        t.mwg /= 2;
        t.kwg /= 2;
    }
    return t;
}

clhgemm_status_t chg_gemm_kernels_create(cl_context ctx, const chg_device_t *dev,
                                         chg_precision_t prec, const chg_gemm_params_t *gp,
                                         int trans_a, int trans_b, int beta_zero,
                                         chg_gemm_kernels_t *ks)
{
    const chg_struct_t general = {0};
    return chg_l3_kernels_create(ctx, dev, prec, gp, trans_a, trans_b, beta_zero, &general, ks);
}

clhgemm_status_t chg_l3_kernels_create(cl_context ctx, const chg_device_t *dev,
                                       chg_precision_t prec, const chg_gemm_params_t *gp,
                                       int trans_a, int trans_b, int beta_zero,
                                       const chg_struct_t *st, chg_gemm_kernels_t *ks)
{
    memset(ks, 0, sizeof *ks);
    ks->prec = prec;
    ks->gp = *gp;
    ks->st = *st;
    ks->trans_a = trans_a;
    ks->trans_b = trans_b;
    ks->klimit = chg_l3_klimit(st);
    /* X_A(i,p) runs along i in memory when A is not transposed; X_B(j,p) = op(B)^T(j,p) runs
     * along j when B is transposed. */
    const chg_copy_kind_t ka = chg_pack_kind(st->kind_a), kb = chg_pack_kind(st->kind_b);
    chg_pack_params(dev, prec, ka, !trans_a, &ks->cpa);
    chg_pack_params(dev, prec, kb, trans_b, &ks->cpb);
    const int tri = st->c_tri != CHG_TRI_NONE;
    chg_copy_params_default(dev, tri ? CHG_COPY_WRITEBACK_TRI : CHG_COPY_WRITEBACK, prec, &ks->cpw);
    ks->cpw.beta_zero = beta_zero;
    ks->scale_a[0] = 1.0;
    if (st->cplx) {
        /* the 1m packs write pairs of real rows and k rows: the real tile must be even */
        if (gp->mwg % 2 || gp->kwg % 2) return CLHGEMM_INTERNAL_ERROR;
        cplx_params(dev, 1, st->herm_a, &ks->cpa);
        cplx_params(dev, 2, st->herm_b, &ks->cpb);
        cplx_params(dev, 1, st->herm_c, &ks->cpw);
    }
    const char *const names[2][2] = {{"writeback", "writeback-tri"}, {"writeback-c", "writeback-tri-c"}};
    clhgemm_status_t s = chg_copy_kernel(ctx, dev, &ks->cpa, st->cplx ? "pack-c" : pack_name(ka),
                                         &ks->pack_a);
    if (s == CLHGEMM_SUCCESS)
        s = chg_copy_kernel(ctx, dev, &ks->cpb, st->cplx ? "pack-c" : pack_name(kb), &ks->pack_b);
    if (s == CLHGEMM_SUCCESS)
        s = gemm_kernel_variant(ctx, dev, prec, gp, st->c_tri, ks->klimit, 0, st->cplx, &ks->gemm);
    if (s == CLHGEMM_SUCCESS)
        s = chg_copy_kernel(ctx, dev, &ks->cpw, names[st->cplx != 0][tri], &ks->wb);
    if (s != CLHGEMM_SUCCESS) chg_gemm_kernels_release(ks);
    return s;
}

cl_int chg_enqueue_2d(cl_command_queue q, cl_kernel k, const size_t g[2], const size_t l[2],
                      cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    return clEnqueueNDRangeKernel(q, k, 2, NULL, g, l, nwait, nwait ? wait : NULL, ev);
}

cl_int chg_enqueue_pack_panel(cl_command_queue q, cl_kernel k, const chg_copy_params_t *cp,
                              int blk, int pmult, size_t rows, size_t cols, cl_mem src,
                              size_t off, size_t ld, cl_mem dst, size_t dst_off, size_t dpk,
                              cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    /* complex (codegen.h): rows and k in complex elements, the tile's too (X_A's rows and
     * every k row are pairs of real ones); the destination counts reals, four per complex
     * element of X_A, two of X_B, in the offsets the caller gives in complex elements */
    const size_t rpair = cp->cplx == 1 ? 2 : 1, kpair = cp->cplx ? 2 : 1;
    const int r = (int)rows, c = (int)cols;
    const int ipad = (int)chg_round_up(rows, (size_t)blk / rpair),
              ppad = (int)chg_round_up(cols, (size_t)pmult / kpair);
    /* the destination blocks' k extent: the padded slice itself, or a longer panel */
    const int pstride = (int)((dpk > (size_t)ppad ? dpk : (size_t)ppad) * kpair) * blk;
    const cl_ulong o = off, l = ld, doff = dst_off * rpair * kpair;
    cl_int err = CL_SUCCESS;
    CHG_SETARG(k, 0, r);
    CHG_SETARG(k, 1, c);
    CHG_SETARG(k, 2, ipad);
    CHG_SETARG(k, 3, ppad);
    CHG_SETARG(k, 4, blk);
    CHG_SETARG(k, 5, src);
    CHG_SETARG(k, 6, o);
    CHG_SETARG(k, 7, l);
    CHG_SETARG(k, 8, dst);
    CHG_SETARG(k, 9, doff);
    CHG_SETARG(k, 10, pstride);
    if (err != CL_SUCCESS) return err;
    size_t g[2], lo[2];
    chg_copy_work_size(cp, (size_t)ipad, (size_t)ppad, g, lo);
    return chg_enqueue_2d(q, k, g, lo, nwait, wait, ev);
}

static cl_int enqueue_pack_struct(cl_command_queue q, cl_kernel k, const chg_copy_params_t *cp,
                                  int blk, int pmult, size_t rows, size_t cols, cl_mem src,
                                  size_t off, size_t off_m, size_t ld, long diag, int upper,
                                  int unit, cl_mem dst, size_t dst_off, size_t dpk, cl_uint nwait,
                                  const cl_event *wait, cl_event *ev);
static cl_int set_cplx_pack_args(cl_kernel k, const chg_gemm_kernels_t *ks, int side_b);

/* A general operand's pack of either side (b: X_B): a complex pack takes the structured
 * kinds' arguments too (unused by the general kind) and its own. */
static cl_int pack_general(cl_command_queue q, const chg_gemm_kernels_t *ks, int b, size_t rows,
                           size_t kc, cl_mem src, size_t off, size_t ld, cl_mem dst,
                           size_t dst_off, size_t dpk, cl_uint nwait, const cl_event *wait,
                           cl_event *ev)
{
    cl_kernel k = b ? ks->pack_b : ks->pack_a;
    const chg_copy_params_t *cp = b ? &ks->cpb : &ks->cpa;
    const int blk = b ? ks->gp.nwg : ks->gp.mwg;
    if (!ks->st.cplx)
        return chg_enqueue_pack_panel(q, k, cp, blk, ks->gp.kwg, rows, kc, src, off, ld, dst,
                                      dst_off, dpk, nwait, wait, ev);
    const cl_int err = set_cplx_pack_args(k, ks, b);
    if (err != CL_SUCCESS) return err;
    return enqueue_pack_struct(q, k, cp, blk, ks->gp.kwg, rows, kc, src, off, 0, ld, 0, 0, 0, dst,
                               dst_off, dpk, nwait, wait, ev);
}

cl_int chg_enqueue_pack_a(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mc, size_t kc,
                          cl_mem src, size_t off, size_t ld, cl_mem dst, size_t dst_off,
                          size_t dpk, cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    return pack_general(q, ks, 0, mc, kc, src, off, ld, dst, dst_off, dpk, nwait, wait, ev);
}

cl_int chg_enqueue_pack_b(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t nc, size_t kc,
                          cl_mem src, size_t off, size_t ld, cl_mem dst, size_t dst_off,
                          size_t dpk, cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    return pack_general(q, ks, 1, nc, kc, src, off, ld, dst, dst_off, dpk, nwait, wait, ev);
}

cl_int chg_set_gemm_args(cl_kernel k, size_t kpad, size_t mpad, cl_mem ap, size_t aoff,
                         size_t apk, cl_mem bp, size_t boff, size_t bpk, cl_mem cp, int accumulate)
{
    const int kpi = (int)kpad, ldcp = (int)mpad;
    const int apki = (int)(apk > kpad ? apk : kpad), bpki = (int)(bpk > kpad ? bpk : kpad);
    const cl_ulong ao = aoff, bo = boff;
    cl_int err = CL_SUCCESS;
    CHG_SETARG(k, 0, kpi);
    CHG_SETARG(k, 1, ldcp);
    CHG_SETARG(k, 2, ap);
    CHG_SETARG(k, 3, ao);
    CHG_SETARG(k, 4, bp);
    CHG_SETARG(k, 5, bo);
    CHG_SETARG(k, 6, cp);
    CHG_SETARG(k, 7, accumulate);
    CHG_SETARG(k, 8, apki);
    CHG_SETARG(k, 9, bpki);
    return err;
}

cl_int chg_enqueue_kernel(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mpad,
                          size_t npad, size_t kpad, cl_mem ap, size_t aoff, cl_mem bp,
                          size_t boff, cl_mem cp, int accumulate, cl_uint nwait,
                          const cl_event *wait, cl_event *ev)
{
    return chg_enqueue_kernel_at(q, ks, 0, 0, 0, mpad, npad, kpad, ap, aoff, 0, bp, boff, 0, cp,
                                 accumulate, nwait, wait, ev);
}

/* The write-back of a C block after its arguments from 9 on (the _TRI kinds' diag and upper). */
static cl_int writeback(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mc, size_t nc,
                        const double alpha[2], const double beta[2], cl_mem cp, size_t ldcp,
                        cl_mem c, size_t off, size_t ldc, cl_uint nwait, const cl_event *wait,
                        cl_event *ev)
{
    cl_int err = chg_set_update_args(ks->wb, ks->prec, ks->st.cplx, mc, nc, alpha, beta, cp, ldcp,
                                     c, off, ldc);
    if (err != CL_SUCCESS) return err;
    size_t g[2], lo[2];
    chg_copy_work_size(&ks->cpw, mc, nc, g, lo);
    return chg_enqueue_2d(q, ks->wb, g, lo, nwait, wait, ev);
}

cl_int chg_enqueue_writeback(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mc,
                             size_t nc, double alpha, double beta, cl_mem cp, size_t ldcp,
                             cl_mem c, size_t off, size_t ldc, cl_uint nwait, const cl_event *wait,
                             cl_event *ev)
{
    const double a[2] = {alpha, 0.0}, b[2] = {beta, 0.0};
    return writeback(q, ks, mc, nc, a, b, cp, ldcp, c, off, ldc, nwait, wait, ev);
}

/* ---- level-3 building blocks ------------------------------------------------------------ */

int chg_l3_block_needed(const chg_struct_t *st, size_t i0, size_t mc, size_t j0, size_t nc)
{
    if (st->c_tri == CHG_TRI_UPPER) return i0 <= j0 + nc - 1;
    if (st->c_tri == CHG_TRI_LOWER) return i0 + mc - 1 >= j0;
    return 1;
}

void chg_l3_k_range(const chg_struct_t *st, size_t i0, size_t mc, size_t j0, size_t nc, size_t k,
                    size_t *klo, size_t *khi)
{
    /* X upper: X(i,p) != 0 only for p >= i; lower: only for p <= i (the diagonal included). */
    size_t lo = 0, hi = k;
    if (st->kind_a == CHG_TRIANGULAR) {
        if (st->upper_a) lo = i0;
        else hi = CHG_MIN(hi, i0 + mc);
    }
    if (st->kind_b == CHG_TRIANGULAR) {
        if (st->upper_b) lo = CHG_MAX(lo, j0);
        else hi = CHG_MIN(hi, j0 + nc);
    }
    *klo = lo < hi ? lo : hi;
    *khi = hi;
}

size_t chg_l3_triangle_tiles(int upper, long diag, size_t mt, size_t nt, int mwg, int nwg)
{
    /* The same arithmetic as the tile walk of cl/gemm.cl (TRIANGLE). */
    size_t total = 0;
    for (size_t c = 0; c < nt; c++) {
        long count;
        if (upper) {
            const long hi = (long)(c + 1) * nwg - 1 - diag;
            count = hi < 0 ? 0 : CHG_MIN(hi / mwg + 1, (long)mt);
        } else {
            const long x = (long)c * nwg - diag + 1;
            const long first = x <= 0 ? 0 : (x + mwg - 1) / mwg - 1;
            count = CHG_MAX((long)mt - first, 0L);
        }
        total += (size_t)count;
    }
    return total;
}

int chg_l3_klimit(const chg_struct_t *st)
{
    if (st->kind_a == CHG_TRIANGULAR) return st->upper_a ? 1 : 2;
    if (st->kind_b == CHG_TRIANGULAR) return st->upper_b ? 3 : 4;
    return 0;
}

int chg_l3_klimit_longest_first(chg_precision_t prec, const chg_gemm_params_t *gp)
{
    return (gp->mma && prec == CHG_F64) || (prec == CHG_F32 && gp->mwg * gp->nwg >= 128 * 128);
}

/* KWG slices of tile row (KLIMIT 1, 2) or column (3, 4) g: cl/gemm.cl's KBEG / KEND at diag 0. */
static size_t klimit_slices(int klimit, size_t g, int w, int kwg, size_t ks)
{
    if (klimit == 1 || klimit == 3) return ks - CHG_MIN(g * (size_t)w / (size_t)kwg, ks);
    return CHG_MIN(chg_ceil_div((g + 1) * (size_t)w, (size_t)kwg), ks);
}

/* count tiles of `cost` slices, each to the earliest free slot: at[t] slots are free from time
 * t, *p the earliest t with at[t] > 0 (it never decreases: a slot taken at p is free again
 * after p); *end the latest time a slot is busy to. */
static void take_tiles(size_t *at, size_t *p, size_t *end, size_t cost, size_t count)
{
    while (count) {
        while (!at[*p]) (*p)++;
        const size_t n = CHG_MIN(at[*p], count);
        at[*p] -= n;
        at[*p + cost] += n;
        *end = CHG_MAX(*end, *p + cost);
        count -= n;
    }
}

double chg_l3_klimit_fill(int klimit, chg_precision_t prec, const chg_gemm_params_t *gp,
                          size_t mt, size_t nt, size_t k, size_t slots)
{
    const size_t ks = chg_ceil_div(k, (size_t)gp->kwg), tiles = mt * nt;
    const int rows = klimit <= 2;
    const size_t groups = rows ? mt : nt, per = rows ? nt : mt;
    const int w = rows ? gp->mwg : gp->nwg;
    if (!tiles || !slots) return 1.0;
    size_t total = 0, longest = 0;
    for (size_t g = 0; g < groups; g++) {
        const size_t c = klimit_slices(klimit, g, w, gp->kwg, ks) + 1;
        total += c * per;
        longest = CHG_MAX(longest, c);
    }
    /* a greedy dispatch ends by total / slots + longest (Graham's bound): the times to track */
    const size_t horizon = total / slots + 2 * longest + 1;
    size_t *at = tiles <= 64 * slots ? calloc(horizon, sizeof *at) : NULL;
    if (!at)
        return (double)total / ((double)slots * ((double)total / (double)slots + (double)longest));
    at[0] = slots;
    size_t p = 0, end = 0;
    /* the launch order: cl/gemm.cl's KL_LIN walk (the longest group's tiles first, a group at a
     * time) or the plain one (tile row index fastest: a column's tiles in turn) */
    if (chg_l3_klimit_longest_first(prec, gp)) {
        for (size_t r = 0; r < groups; r++) {
            const size_t g = klimit == 1 || klimit == 3 ? r : groups - 1 - r;
            take_tiles(at, &p, &end, klimit_slices(klimit, g, w, gp->kwg, ks) + 1, per);
        }
    } else if (rows) {
        for (size_t gn = 0; gn < nt; gn++)
            for (size_t gm = 0; gm < mt; gm++)
                take_tiles(at, &p, &end, klimit_slices(klimit, gm, w, gp->kwg, ks) + 1, 1);
    } else {
        for (size_t gn = 0; gn < nt; gn++)
            take_tiles(at, &p, &end, klimit_slices(klimit, gn, w, gp->kwg, ks) + 1, mt);
    }
    free(at);
    return (double)total / ((double)slots * (double)end);
}

/* A complex pack's own arguments: conj and the scale (X_A's, ks->scale_a; X_B's is 1). */
static cl_int set_cplx_pack_args(cl_kernel k, const chg_gemm_kernels_t *ks, int side_b)
{
    const int conj = side_b ? ks->st.conj_b : ks->st.conj_a;
    const double one[2] = {1.0, 0.0};
    cl_int err = clSetKernelArg(k, CHG_PACK_CPLX_ARG, sizeof conj, &conj);
    if (err == CL_SUCCESS)
        err = chg_set_complex(k, CHG_PACK_CPLX_ARG + 1, ks->prec, side_b ? one : ks->scale_a);
    return err;
}

/* Packs a sub-block of a structured operand: off addresses X(i0,p0), off_m the mirrored
 * element X(p0,i0) (what a symmetric pack reads outside its stored triangle). */
static cl_int enqueue_pack_struct(cl_command_queue q, cl_kernel k, const chg_copy_params_t *cp,
                                  int blk, int pmult, size_t rows, size_t cols, cl_mem src,
                                  size_t off, size_t off_m, size_t ld, long diag, int upper,
                                  int unit, cl_mem dst, size_t dst_off, size_t dpk, cl_uint nwait,
                                  const cl_event *wait, cl_event *ev)
{
    /* the structured kinds (and every complex pack) take the general pack's arguments 0-10,
     * then these four */
    const int d = (int)diag;
    const cl_ulong om = off_m;
    cl_int err = CL_SUCCESS;
    CHG_SETARG(k, 11, d);
    CHG_SETARG(k, 12, upper);
    CHG_SETARG(k, 13, om);
    CHG_SETARG(k, 14, unit);
    if (err != CL_SUCCESS) return err;
    return chg_enqueue_pack_panel(q, k, cp, blk, pmult, rows, cols, src, off, ld, dst, dst_off,
                                  dpk, nwait, wait, ev);
}

/* Sub-block (r0.., p0..) of X where X(r,p) = src[base + r*si + p*sp] (b: X_B). */
static cl_int pack_at(cl_command_queue q, const chg_gemm_kernels_t *ks, int b, size_t r0,
                      size_t p0, size_t rows, size_t cols, cl_mem src, size_t base, size_t ld,
                      cl_mem dst, size_t dst_off, cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    cl_kernel k = b ? ks->pack_b : ks->pack_a;
    const chg_copy_params_t *cp = b ? &ks->cpb : &ks->cpa;
    const chg_struct_kind_t kind = b ? ks->st.kind_b : ks->st.kind_a;
    const int blk = b ? ks->gp.nwg : ks->gp.mwg;
    const size_t si = cp->src_contig_i ? 1 : ld, sp = cp->src_contig_i ? ld : 1;
    const size_t off = base + r0 * si + p0 * sp;
    if (kind == CHG_GENERAL)
        return pack_general(q, ks, b, rows, cols, src, off, ld, dst, dst_off, 0, nwait, wait, ev);
    cl_int err = ks->st.cplx ? set_cplx_pack_args(k, ks, b) : CL_SUCCESS;
    if (err != CL_SUCCESS) return err;
    return enqueue_pack_struct(q, k, cp, blk, ks->gp.kwg, rows, cols, src, off,
                               base + p0 * si + r0 * sp, ld, (long)r0 - (long)p0,
                               b ? ks->st.upper_b : ks->st.upper_a,
                               b ? ks->st.unit_b : ks->st.unit_a, dst, dst_off, 0, nwait, wait, ev);
}

cl_int chg_enqueue_pack_a_struct(cl_command_queue q, const chg_gemm_kernels_t *ks, long diag,
                                 size_t mc, size_t kc, cl_mem src, size_t off, size_t off_m,
                                 size_t ld, cl_mem dst, size_t dst_off, size_t dpk, cl_uint nwait,
                                 const cl_event *wait, cl_event *ev)
{
    const cl_int err = ks->st.cplx ? set_cplx_pack_args(ks->pack_a, ks, 0) : CL_SUCCESS;
    if (err != CL_SUCCESS) return err;
    return enqueue_pack_struct(q, ks->pack_a, &ks->cpa, ks->gp.mwg, ks->gp.kwg, mc, kc, src, off,
                               off_m, ld, diag, ks->st.upper_a, ks->st.unit_a, dst, dst_off, dpk,
                               nwait, wait, ev);
}

cl_int chg_enqueue_pack_b_struct(cl_command_queue q, const chg_gemm_kernels_t *ks, long diag,
                                 size_t nc, size_t kc, cl_mem src, size_t off, size_t off_m,
                                 size_t ld, cl_mem dst, size_t dst_off, size_t dpk, cl_uint nwait,
                                 const cl_event *wait, cl_event *ev)
{
    const cl_int err = ks->st.cplx ? set_cplx_pack_args(ks->pack_b, ks, 1) : CL_SUCCESS;
    if (err != CL_SUCCESS) return err;
    return enqueue_pack_struct(q, ks->pack_b, &ks->cpb, ks->gp.nwg, ks->gp.kwg, nc, kc, src, off,
                               off_m, ld, diag, ks->st.upper_b, ks->st.unit_b, dst, dst_off, dpk,
                               nwait, wait, ev);
}

cl_int chg_enqueue_pack_a_at(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t i0,
                             size_t p0, size_t mc, size_t kc, cl_mem src, size_t base, size_t ld,
                             cl_mem dst, size_t dst_off, cl_uint nwait, const cl_event *wait,
                             cl_event *ev)
{
    return pack_at(q, ks, 0, i0, p0, mc, kc, src, base, ld, dst, dst_off, nwait, wait, ev);
}

cl_int chg_enqueue_pack_b_at(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t j0,
                             size_t p0, size_t nc, size_t kc, cl_mem src, size_t base, size_t ld,
                             cl_mem dst, size_t dst_off, cl_uint nwait, const cl_event *wait,
                             cl_event *ev)
{
    return pack_at(q, ks, 1, j0, p0, nc, kc, src, base, ld, dst, dst_off, nwait, wait, ev);
}

long chg_kernel_diag(const chg_gemm_kernels_t *ks, size_t i0, size_t j0, size_t p0)
{
    if (ks->st.c_tri) return (long)i0 - (long)j0;
    if (!ks->klimit) return 0;
    return ks->klimit <= 2 ? (long)i0 - (long)p0 : (long)j0 - (long)p0;
}

cl_int chg_enqueue_kernel_at(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t i0,
                             size_t j0, size_t p0, size_t mpad, size_t npad, size_t kpad,
                             cl_mem ap, size_t aoff, size_t apk, cl_mem bp, size_t boff,
                             size_t bpk, cl_mem cp, int accumulate, cl_uint nwait,
                             const cl_event *wait, cl_event *ev)
{
    const chg_gemm_params_t *gp = &ks->gp;
    const int tri = ks->st.c_tri;
    const long diag = chg_kernel_diag(ks, i0, j0, p0);
    /* complex: the real kernel's extents and offsets (blocks.h); TRIANGLE's diag stays in C's
     * complex rows (CPLX: tiles of MWG/2 of them), KLIMIT's counts real k rows */
    const size_t x = ks->st.cplx ? 2 : 1;
    const int d = (int)(ks->klimit ? diag * (long)x : diag);
    mpad *= x, kpad *= x, aoff *= x * x, boff *= x, apk *= x, bpk *= x;
    cl_int err =
        chg_set_gemm_args(ks->gemm, kpad, mpad, ap, aoff, apk, bp, boff, bpk, cp, accumulate);
    if (tri || ks->klimit) CHG_SETARG(ks->gemm, 10, d);
    if (err != CL_SUCCESS) return err;
    const size_t mt = mpad / gp->mwg, nt = npad / gp->nwg;
    size_t g[2] = {mt * gp->mdimc, nt * gp->ndimc};
    const size_t l[2] = {(size_t)gp->mdimc, (size_t)gp->ndimc};
    if (tri) {
        const size_t tiles = chg_l3_triangle_tiles(tri == CHG_TRI_UPPER, diag, mt, nt,
                                                   gp->mwg / (int)x, gp->nwg);
        if (tiles == 0) return clEnqueueMarkerWithWaitList(q, nwait, nwait ? wait : NULL, ev);
        g[0] = tiles * gp->mdimc;
        g[1] = gp->ndimc;
    }
    return chg_enqueue_2d(q, ks->gemm, g, l, nwait, wait, ev);
}

cl_int chg_enqueue_writeback_at(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t i0,
                                size_t j0, size_t mc, size_t nc, const double alpha[2],
                                const double beta[2], cl_mem cp, size_t ldcp, cl_mem c,
                                size_t off, size_t ldc, cl_uint nwait, const cl_event *wait,
                                cl_event *ev)
{
    if (ks->st.c_tri) {
        const int d = (int)((long)i0 - (long)j0), upper = ks->st.c_tri == CHG_TRI_UPPER;
        cl_int err = CL_SUCCESS;
        CHG_SETARG(ks->wb, 9, d);
        CHG_SETARG(ks->wb, 10, upper);
        if (err != CL_SUCCESS) return err;
    }
    return writeback(q, ks, mc, nc, alpha, beta, cp, ldcp, c, off, ldc, nwait, wait, ev);
}
