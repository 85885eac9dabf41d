/*
 * codegen.c -- generates the copy/pack kernels (see codegen.h for the kinds and parameters).
 *
 * Why generated rather than a fixed .cl file: each variant is specialised on its direction of
 * contiguity and on beta == 0, and its blocking (work-group tile, work-item tile) is a tuning
 * parameter (Matsumoto et al.'s copying kernels tune exactly these); emitting the loops with
 * compile-time trip counts lets every compiler unroll them. Index arithmetic on user buffers is
 * 64-bit (ulong: a user matrix may exceed 2^31 elements); on workspace buffers it is 32-bit
 * (src/core/workspace.c keeps them below 2^31 elements).
 */
#include "kernels/codegen.h"

#include <stdio.h>
#include <string.h>

void chg_copy_params_default(const chg_device_t *dev, chg_copy_kind_t kind, chg_precision_t prec,
                             chg_copy_params_t *p)
{
    memset(p, 0, sizeof(*p));
    p->kind = kind;
    p->prec = prec;
    p->src_contig_i = 1;
    if (dev->features & CHG_FEAT_GPU) {
        /* 32x32 tiles, 256 work-items, 4 elements each: a 128-byte row per warp. */
        p->tile_i = 32;
        p->tile_p = 32;
        p->wpt_i = 1;
        p->wpt_p = 4;
        p->pad = 1;
    } else {
        p->tile_i = 16;
        p->tile_p = 16;
        p->wpt_i = 1;
        p->wpt_p = 4;
        p->pad = 0;
    }
    while ((size_t)(p->tile_i / p->wpt_i) * (p->tile_p / p->wpt_p) > dev->info.max_work_group_size) {
        p->tile_i /= 2;
        p->tile_p /= 2;
        if (p->wpt_p > p->tile_p) p->wpt_p = p->tile_p;
    }
}

#define INVALID(...) do { if (why) snprintf(why, why_len, __VA_ARGS__); return 0; } while (0)

int chg_copy_params_valid(const chg_device_t *dev, const chg_copy_params_t *p, char *why,
                          size_t why_len)
{
    if (p->kind < CHG_COPY_PACK || p->kind > CHG_COPY_SCALE_TRI) INVALID("unknown kind");
    if (p->tile_i <= 0 || p->tile_p <= 0 || p->wpt_i <= 0 || p->wpt_p <= 0 || p->pad < 0)
        INVALID("sizes must be positive");
    if (p->ud_i < 0 || p->ud_p < 0 || p->ud_i > 64 || p->ud_p > 64)
        INVALID("unroll degrees must be 0 (full) to 64");
    if (p->tile_i % p->wpt_i || p->tile_p % p->wpt_p) INVALID("tiles must be multiples of WPT");
    const size_t threads = (size_t)(p->tile_i / p->wpt_i) * (p->tile_p / p->wpt_p);
    if (threads > dev->info.max_work_group_size) INVALID("work-group of %zu too large", threads);
    const int pack = p->kind == CHG_COPY_PACK || p->kind == CHG_COPY_PACK_SYM ||
                     p->kind == CHG_COPY_PACK_TRI;
    if (p->cplx < 0 || p->cplx > (pack ? 2 : 1)) INVALID("cplx %d out of range", p->cplx);
    const size_t es = chg_elem_size(p->prec) * (p->cplx ? 2 : 1);
    /* the transposing PACK, the structured packs and every complex pack stage their tile
     * through local memory */
    if (pack && (p->cplx || p->kind != CHG_COPY_PACK || !p->src_contig_i)) {
        const size_t lmem = (size_t)p->tile_i * (p->tile_p + p->pad) * es;
        if (lmem > dev->info.local_mem_bytes) INVALID("local tile of %zu bytes too large", lmem);
    }
    if (p->kind == CHG_COPY_PACK && !p->src_contig_i && !p->cplx &&
        (size_t)p->tile_i * p->tile_p % threads)
        INVALID("tile not divisible by threads");
    if (p->prec == CHG_F64 && !(dev->features & CHG_FEAT_FP64)) INVALID("device has no FP64");
    return 1;
}

static void emit_header(const chg_device_t *dev, const chg_copy_params_t *p, chg_str_t *s)
{
    chg_str_printf(s, "/* clhgemm generated copy kernel: kind=%d prec=%d src_contig_i=%d "
                      "beta_zero=%d tile=%dx%d wpt=%dx%d pad=%d ud=%dx%d cplx=%d herm=%d */\n",
                   p->kind, p->prec == CHG_F64 ? 64 : 32, p->src_contig_i, p->beta_zero, p->tile_i,
                   p->tile_p, p->wpt_i, p->wpt_p, p->pad, p->ud_i, p->ud_p, p->cplx, p->herm);
    chg_device_feature_defines(dev, s);
    if (p->prec == CHG_F64)
        chg_str_append(s, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\ntypedef double real;\n"
                          "typedef double2 real2;\n");
    else
        chg_str_append(s, "typedef float real;\ntypedef float2 real2;\n");
    /* the complex product, as Fortran's (no scaling, no special cases) */
    if (p->cplx)
        chg_str_append(s, "#define CMUL(a, b) ((real2)((a).x * (b).x - (a).y * (b).y, "
                          "(a).x * (b).y + (a).y * (b).x))\n");
    chg_str_printf(s, "#define TILE_I %d\n#define TILE_P %d\n#define WPT_I %d\n#define WPT_P %d\n"
                      "#define LX (TILE_I / WPT_I)\n#define LY (TILE_P / WPT_P)\n",
                   p->tile_i, p->tile_p, p->wpt_i, p->wpt_p);
    chg_str_append(s, "#define UNROLL _Pragma(\"unroll\")\n");
    /* The unroll degrees of Matsumoto et al.'s copying kernels (0: unroll completely). */
    if (p->ud_i > 0) chg_str_printf(s, "#define UNROLL_I _Pragma(\"unroll %d\")\n", p->ud_i);
    else chg_str_append(s, "#define UNROLL_I UNROLL\n");
    if (p->ud_p > 0) chg_str_printf(s, "#define UNROLL_P _Pragma(\"unroll %d\")\n", p->ud_p);
    else chg_str_append(s, "#define UNROLL_P UNROLL\n");
}

/* PACK: dst[(i/blk)*pstride + p*blk + i%blk] = X(i,p) (zero outside rows x cols, written up to
 * ipad x ppad; pstride >= ppad*blk elements between blocks, more when the destination panel
 * holds further k slices). */
static void emit_pack(const chg_copy_params_t *p, chg_str_t *s)
{
    chg_str_append(s,
        "__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))\n"
        "void clhgemm_pack(const int rows, const int cols, const int ipad, const int ppad,\n"
        "                  const int blk, __global const real *restrict src, const ulong off,\n"
        "                  const ulong ld, __global real *restrict dst, const ulong dst_off,\n"
        "                  const int pstride)\n"
        "{\n"
        "    dst += dst_off;\n"
        "    const int i0 = get_group_id(0) * TILE_I;\n"
        "    const int p0 = get_group_id(1) * TILE_P;\n");
    if (p->src_contig_i) {
        /* Reads and writes both run along i: no staging needed. */
        chg_str_append(s,
            "    UNROLL_P for (int b = 0; b < WPT_P; b++) {\n"
            "        const int pp = p0 + get_local_id(1) + b * LY;\n"
            "        UNROLL_I for (int a = 0; a < WPT_I; a++) {\n"
            "            const int i = i0 + get_local_id(0) + a * LX;\n"
            "            if (i < ipad && pp < ppad) {\n"
            "                real v = (real)0;\n"
            "                if (i < rows && pp < cols) v = src[off + (ulong)i + (ulong)pp * ld];\n"
            "                dst[(i / blk) * pstride + pp * blk + i % blk] = v;\n"
            "            }\n"
            "        }\n"
            "    }\n"
            "}\n");
    } else {
        /* The source runs along p, the destination along i: read rows of the tile along p,
         * transpose through local memory (padded against bank conflicts), write along i. */
        chg_str_printf(s,
            "    __local real tile[TILE_I][TILE_P + %d];\n"
            "    const int t = get_local_id(0) + get_local_id(1) * LX;\n"
            "    UNROLL_P for (int r = 0; r < WPT_I * WPT_P; r++) {\n"
            "        const int e = t + r * (LX * LY);\n"
            "        const int pi = e %% TILE_P, ii = e / TILE_P;\n"
            "        const int i = i0 + ii, pp = p0 + pi;\n"
            "        real v = (real)0;\n"
            "        if (i < rows && pp < cols) v = src[off + (ulong)pp + (ulong)i * ld];\n"
            "        tile[ii][pi] = v;\n"
            "    }\n"
            "    barrier(CLK_LOCAL_MEM_FENCE);\n"
            "    UNROLL_I for (int r = 0; r < WPT_I * WPT_P; r++) {\n"
            "        const int e = t + r * (LX * LY);\n"
            "        const int ii = e %% TILE_I, pi = e / TILE_I;\n"
            "        const int i = i0 + ii, pp = p0 + pi;\n"
            "        if (i < ipad && pp < ppad)\n"
            "            dst[(i / blk) * pstride + pp * blk + i %% blk] = tile[ii][pi];\n"
            "    }\n"
            "}\n",
            p->pad);
    }
}

/* WRITEBACK: C = alpha*Cp + beta*C;  SCALE: C = beta*C. Column-major C, i along rows. */
static void emit_update(const chg_copy_params_t *p, chg_str_t *s)
{
    const int wb = p->kind == CHG_COPY_WRITEBACK;
    chg_str_printf(s,
        "__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))\n"
        "void %s(const int m, const int n, const real alpha, const real beta,\n"
        "        __global const real *restrict cp, const int ldcp,\n"
        "        __global real *c, const ulong off, const ulong ldc)\n"
        "{\n"
        "    const int i0 = get_group_id(0) * TILE_I + get_local_id(0);\n"
        "    const int j0 = get_group_id(1) * TILE_P + get_local_id(1);\n"
        "    UNROLL_P for (int b = 0; b < WPT_P; b++) {\n"
        "        const int j = j0 + b * LY;\n"
        "        UNROLL_I for (int a = 0; a < WPT_I; a++) {\n"
        "            const int i = i0 + a * LX;\n"
        "            if (i < m && j < n) {\n"
        "                const ulong ci = off + (ulong)i + (ulong)j * ldc;\n",
        wb ? "clhgemm_writeback" : "clhgemm_scale");
    if (wb && p->beta_zero)
        chg_str_append(s, "                c[ci] = alpha * cp[i + j * ldcp];\n");
    else if (wb)
        chg_str_append(s, "                c[ci] = alpha * cp[i + j * ldcp] + beta * c[ci];\n");
    else if (p->beta_zero)
        chg_str_append(s, "                c[ci] = (real)0;\n");
    else
        chg_str_append(s, "                c[ci] = beta * c[ci];\n");
    chg_str_append(s,
        "            }\n"
        "        }\n"
        "    }\n"
        "}\n");
}

/* PACK_SYM / PACK_TRI: the sub-block of a matrix of which one triangle is stored (codegen.h).
 * Every tile goes through local memory. The loads run along i or along p, whichever way the
 * source addresses of the tile run (a tile wholly outside the stored triangle of a symmetric
 * matrix reads the mirrored elements, which run the other way; the diagonal tiles, mixed, are
 * few), so that the reads are coalesced; the stores always run along i. A triangular tile
 * wholly outside the triangle reads nothing and stores zeros. */
static void emit_pack_struct(const chg_copy_params_t *p, chg_str_t *s)
{
    const int sym = p->kind == CHG_COPY_PACK_SYM;
    chg_str_printf(s, "#define SI %s\n#define SP %s\n#define CONTIG %d\n",
                   p->src_contig_i ? "1" : "ld", p->src_contig_i ? "ld" : "1", p->src_contig_i);
    chg_str_printf(s,
        "__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))\n"
        "void %s(const int rows, const int cols, const int ipad, const int ppad,\n"
        "        const int blk, __global const real *restrict src, const ulong off,\n"
        "        const ulong ld, __global real *restrict dst, const ulong dst_off,\n"
        "        const int pstride, const int diag, const int upper, const ulong off_m,\n"
        "        const int unit)\n"
        "{\n"
        "    __local real tile[TILE_I][TILE_P + %d];\n"
        "    dst += dst_off;\n"
        "    const int i0 = get_group_id(0) * TILE_I;\n"
        "    const int p0 = get_group_id(1) * TILE_P;\n"
        "    const int t = get_local_id(0) + get_local_id(1) * LX;\n"
        "    /* i + diag - p over the tile: <= 0 is the upper triangle, >= 0 the lower one */\n"
        "    const int lo = i0 + diag - (p0 + TILE_P - 1), hi = i0 + TILE_I - 1 + diag - p0;\n"
        "    const int all_out = upper ? lo > 0 : hi < 0;\n"
        "    const int along_i = %s;\n"
        "    UNROLL for (int r = 0; r < WPT_I * WPT_P; r++) {\n"
        "        const int e = t + r * (LX * LY);\n"
        "        const int ii = along_i ? e %% TILE_I : e / TILE_P;\n"
        "        const int pi = along_i ? e / TILE_I : e %% TILE_P;\n"
        "        const int i = i0 + ii, pp = p0 + pi;\n"
        "        real v = (real)0;\n"
        "        if (i < rows && pp < cols) {\n"
        "            const int d = i + diag - pp;\n",
        sym ? "clhgemm_pack_sym" : "clhgemm_pack_tri", p->pad,
        sym ? "all_out ? !CONTIG : CONTIG" : "CONTIG");
    if (sym)
        chg_str_append(s,
            "            if (upper ? d <= 0 : d >= 0)\n"
            "                v = src[off + (ulong)i * SI + (ulong)pp * SP];\n"
            "            else\n"
            "                v = src[off_m + (ulong)pp * SI + (ulong)i * SP];\n");
    else
        chg_str_append(s,
            "            if (unit && d == 0)\n"
            "                v = (real)1;\n"
            "            else if (upper ? d <= 0 : d >= 0)\n"
            "                v = src[off + (ulong)i * SI + (ulong)pp * SP];\n");
    chg_str_append(s,
        "        }\n"
        "        tile[ii][pi] = v;\n"
        "    }\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    UNROLL for (int r = 0; r < WPT_I * WPT_P; r++) {\n"
        "        const int e = t + r * (LX * LY);\n"
        "        const int ii = e % TILE_I, pi = e / TILE_I;\n"
        "        const int i = i0 + ii, pp = p0 + pi;\n"
        "        if (i < ipad && pp < ppad)\n"
        "            dst[(i / blk) * pstride + pp * blk + i % blk] = tile[ii][pi];\n"
        "    }\n"
        "}\n");
}

/* WRITEBACK_TRI / SCALE_TRI: the update kernels restricted to one triangle of C. Work-groups
 * wholly outside the triangle return at once; the rest test each element. */
static void emit_update_tri(const chg_copy_params_t *p, chg_str_t *s)
{
    const int wb = p->kind == CHG_COPY_WRITEBACK_TRI;
    chg_str_printf(s,
        "__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))\n"
        "void %s(const int m, const int n, const real alpha, const real beta,\n"
        "        __global const real *restrict cp, const int ldcp,\n"
        "        __global real *c, const ulong off, const ulong ldc,\n"
        "        const int diag, const int upper)\n"
        "{\n"
        "    const int gi = get_group_id(0) * TILE_I, gj = get_group_id(1) * TILE_P;\n"
        "    const int lo = gi + diag - (gj + TILE_P - 1), hi = gi + TILE_I - 1 + diag - gj;\n"
        "    if (upper ? lo > 0 : hi < 0) return;\n"
        "    const int i0 = gi + get_local_id(0);\n"
        "    const int j0 = gj + get_local_id(1);\n"
        "    UNROLL for (int b = 0; b < WPT_P; b++) {\n"
        "        const int j = j0 + b * LY;\n"
        "        UNROLL for (int a = 0; a < WPT_I; a++) {\n"
        "            const int i = i0 + a * LX;\n"
        "            const int d = i + diag - j;\n"
        "            if (i < m && j < n && (upper ? d <= 0 : d >= 0)) {\n"
        "                const ulong ci = off + (ulong)i + (ulong)j * ldc;\n",
        wb ? "clhgemm_writeback_tri" : "clhgemm_scale_tri");
    if (wb && p->beta_zero)
        chg_str_append(s, "                c[ci] = alpha * cp[i + j * ldcp];\n");
    else if (wb)
        chg_str_append(s, "                c[ci] = alpha * cp[i + j * ldcp] + beta * c[ci];\n");
    else if (p->beta_zero)
        chg_str_append(s, "                c[ci] = (real)0;\n");
    else
        chg_str_append(s, "                c[ci] = beta * c[ci];\n");
    chg_str_append(s,
        "            }\n"
        "        }\n"
        "    }\n"
        "}\n");
}

/* The complex packs, every kind in one kernel (codegen.h): the tile of complex elements
 * through local memory as emit_pack_struct stages it (the loads along whichever direction the
 * source runs), conj and scale applied on the way in; the stores along i write the real
 * 1m layout -- X_A: each element's two columns of a 2 x 2 block as two pairs of adjacent reals
 * (its real rows 2i, 2i + 1 lie in one block of blk, which is even), X_B: its real and
 * imaginary part blk apart. */
static void emit_pack_cplx(const chg_copy_params_t *p, chg_str_t *s)
{
    const int kind = p->kind == CHG_COPY_PACK_SYM ? 1 : p->kind == CHG_COPY_PACK_TRI ? 2 : 0;
    chg_str_printf(s, "#define SI %s\n#define SP %s\n#define CONTIG %d\n#define KIND %d\n"
                      "#define HERM %d\n",
                   p->src_contig_i ? "1" : "ld", p->src_contig_i ? "ld" : "1", p->src_contig_i,
                   kind, p->herm);
    chg_str_printf(s,
        "__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))\n"
        "void clhgemm_pack_c(const int rows, const int cols, const int ipad, const int ppad,\n"
        "                    const int blk, __global const real2 *restrict src, const ulong off,\n"
        "                    const ulong ld, __global real *restrict dst, const ulong dst_off,\n"
        "                    const int pstride, const int diag, const int upper,\n"
        "                    const ulong off_m, const int unit, const int conj, const real2 scale)\n"
        "{\n"
        "    __local real2 tile[TILE_I][TILE_P + %d];\n"
        "    dst += dst_off;\n"
        "    const int i0 = get_group_id(0) * TILE_I;\n"
        "    const int p0 = get_group_id(1) * TILE_P;\n"
        "    const int t = get_local_id(0) + get_local_id(1) * LX;\n"
        "    const int lo = i0 + diag - (p0 + TILE_P - 1), hi = i0 + TILE_I - 1 + diag - p0;\n"
        "    const int all_out = upper ? lo > 0 : hi < 0;\n"
        "    const int along_i = KIND == 1 && all_out ? !CONTIG : CONTIG;\n"
        "    const int scaled = scale.x != (real)1 || scale.y != (real)0;\n"
        "    UNROLL for (int r = 0; r < WPT_I * WPT_P; r++) {\n"
        "        const int e = t + r * (LX * LY);\n"
        "        const int ii = along_i ? e %% TILE_I : e / TILE_P;\n"
        "        const int pi = along_i ? e / TILE_I : e %% TILE_P;\n"
        "        const int i = i0 + ii, pp = p0 + pi;\n"
        "        real2 v = (real2)(0, 0);\n"
        "        if (i < rows && pp < cols) {\n"
        "            const int d = i + diag - pp;\n"
        "            const int in = KIND == 0 || (upper ? d <= 0 : d >= 0);\n"
        "            if (KIND == 2 && unit && d == 0) {\n"
        "                v = (real2)(1, 0);\n"
        "            } else if (in) {\n"
        "                v = src[off + (ulong)i * SI + (ulong)pp * SP];\n"
        "            } else if (KIND == 1) {\n"
        "                v = src[off_m + (ulong)pp * SI + (ulong)i * SP];\n"
        "                if (HERM) v.y = -v.y;\n"
        "            }\n"
        "            if (KIND == 1 && HERM && d == 0) v.y = (real)0;\n"
        "            if (conj) v.y = -v.y;\n"
        "            if (scaled) v = CMUL(scale, v);\n"
        "        }\n"
        "        tile[ii][pi] = v;\n"
        "    }\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    UNROLL for (int r = 0; r < WPT_I * WPT_P; r++) {\n"
        "        const int e = t + r * (LX * LY);\n"
        "        const int ii = e %% TILE_I, pi = e / TILE_I;\n"
        "        const int i = i0 + ii, pp = p0 + pi;\n"
        "        if (i < ipad && pp < ppad) {\n"
        "            const real2 v = tile[ii][pi];\n",
        p->pad);
    if (p->cplx == 1)
        chg_str_append(s,
            "            __global real *o = dst + (2 * i / blk) * pstride + 2 * pp * blk + 2 * i % blk;\n"
            "            vstore2(v, 0, o);\n"
            "            vstore2((real2)(-v.y, v.x), 0, o + blk);\n");
    else
        chg_str_append(s,
            "            __global real *o = dst + (i / blk) * pstride + 2 * pp * blk + i % blk;\n"
            "            o[0] = v.x;\n"
            "            o[blk] = v.y;\n");
    chg_str_append(s,
        "        }\n"
        "    }\n"
        "}\n");
}

/* The complex update kinds (WRITEBACK, SCALE and their _TRI forms) in one emitter: C and Cp of
 * complex elements, alpha and beta complex; herm: C's diagonal real (codegen.h). */
static void emit_update_cplx(const chg_copy_params_t *p, chg_str_t *s)
{
    const int wb = p->kind == CHG_COPY_WRITEBACK || p->kind == CHG_COPY_WRITEBACK_TRI;
    const int tri = p->kind == CHG_COPY_WRITEBACK_TRI || p->kind == CHG_COPY_SCALE_TRI;
    chg_str_printf(s, "#define TRI %d\n#define HERM %d\n#define WB %d\n#define BETA0 %d\n",
                   tri, tri && p->herm, wb, p->beta_zero);
    chg_str_printf(s,
        "__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))\n"
        "void %s(const int m, const int n, const real2 alpha, const real2 beta,\n"
        "        __global const real2 *restrict cp, const int ldcp,\n"
        "        __global real2 *c, const ulong off, const ulong ldc%s)\n"
        "{\n",
        wb ? (tri ? "clhgemm_writeback_tri_c" : "clhgemm_writeback_c")
           : (tri ? "clhgemm_scale_tri_c" : "clhgemm_scale_c"),
        tri ? ",\n        const int diag, const int upper" : "");
    if (tri)
        chg_str_append(s,
            "    const int gi = get_group_id(0) * TILE_I, gj = get_group_id(1) * TILE_P;\n"
            "    const int lo = gi + diag - (gj + TILE_P - 1), hi = gi + TILE_I - 1 + diag - gj;\n"
            "    if (upper ? lo > 0 : hi < 0) return;\n");
    else
        chg_str_append(s, "    const int diag = 0, upper = 1;\n");
    chg_str_printf(s,
        "    const int i0 = get_group_id(0) * TILE_I + get_local_id(0);\n"
        "    const int j0 = get_group_id(1) * TILE_P + get_local_id(1);\n"
        "    UNROLL for (int b = 0; b < WPT_P; b++) {\n"
        "        const int j = j0 + b * LY;\n"
        "        UNROLL for (int a = 0; a < WPT_I; a++) {\n"
        "            const int i = i0 + a * LX;\n"
        "            const int d = i + diag - j;\n"
        "            if (i < m && j < n%s) {\n"
        "                const ulong ci = off + (ulong)i + (ulong)j * ldc;\n"
        "                const int real_diag = HERM && d == 0;\n"
        "                real2 r = WB ? CMUL(alpha, cp[i + j * ldcp]) : (real2)(0, 0);\n"
        "                if (!BETA0) {\n"
        "                    if (real_diag) r.x += beta.x * c[ci].x;\n"
        "                    else r += CMUL(beta, c[ci]);\n"
        "                }\n"
        "                if (real_diag) r.y = (real)0;\n"
        "                c[ci] = r;\n"
        "            }\n"
        "        }\n"
        "    }\n"
        "}\n",
        tri ? " && (upper ? d <= 0 : d >= 0)" : "");
}

int chg_copy_generate(const chg_device_t *dev, const chg_copy_params_t *p, chg_str_t *s,
                      const char **kernel_name)
{
    if (!chg_copy_params_valid(dev, p, NULL, 0)) return -1;
    emit_header(dev, p, s);
    if (p->cplx) {
        static const char *const names[] = {"clhgemm_pack_c", "clhgemm_writeback_c",
                                            "clhgemm_scale_c", "clhgemm_pack_c", "clhgemm_pack_c",
                                            "clhgemm_writeback_tri_c", "clhgemm_scale_tri_c"};
        if (p->kind == CHG_COPY_PACK || p->kind == CHG_COPY_PACK_SYM || p->kind == CHG_COPY_PACK_TRI)
            emit_pack_cplx(p, s);
        else
            emit_update_cplx(p, s);
        *kernel_name = names[p->kind];
        return s->failed ? -1 : 0;
    }
    switch (p->kind) {
    case CHG_COPY_PACK:
        emit_pack(p, s);
        *kernel_name = "clhgemm_pack";
        break;
    case CHG_COPY_WRITEBACK:
        emit_update(p, s);
        *kernel_name = "clhgemm_writeback";
        break;
    case CHG_COPY_SCALE:
        emit_update(p, s);
        *kernel_name = "clhgemm_scale";
        break;
    case CHG_COPY_PACK_SYM:
    case CHG_COPY_PACK_TRI:
        emit_pack_struct(p, s);
        *kernel_name = p->kind == CHG_COPY_PACK_SYM ? "clhgemm_pack_sym" : "clhgemm_pack_tri";
        break;
    case CHG_COPY_WRITEBACK_TRI:
    case CHG_COPY_SCALE_TRI:
        emit_update_tri(p, s);
        *kernel_name = p->kind == CHG_COPY_WRITEBACK_TRI ? "clhgemm_writeback_tri" : "clhgemm_scale_tri";
        break;
    }
    return s->failed ? -1 : 0;
}

void chg_copy_work_size(const chg_copy_params_t *p, size_t extent_i, size_t extent_p,
                        size_t global[2], size_t local[2])
{
    local[0] = (size_t)(p->tile_i / p->wpt_i);
    local[1] = (size_t)(p->tile_p / p->wpt_p);
    global[0] = (extent_i + p->tile_i - 1) / p->tile_i * local[0];
    global[1] = (extent_p + p->tile_p - 1) / p->tile_p * local[1];
}
