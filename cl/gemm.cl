/*
 * gemm.cl -- the portable GEMM kernel of clhgemm: Cp = Ap * Bp (+ Cp when accumulating).
 *
 * The operands were packed by the generated copy kernels (src/kernels/codegen.c) into the
 * layout this kernel wants, zero-padded to whole tiles, so the kernel has no bounds checks and
 * no transposes:
 *   Ap  block-major [Mp/MWG][Kp][MWG]: a work-group's A panel is one contiguous stream,
 *   Bp  block-major [Np/NWG][Kp][NWG],
 *   Cp  column-major, leading dimension ldcp (= Mp), alpha/beta applied later by write-back.
 * aoff/boff (elements, multiples of VWM/VWN) select where the kp rows to multiply begin inside
 * the panels, and apk/bpk (>= kp) are the panels' own k extents (Kp above): the host pipeline
 * keeps a whole band of packed A panels resident and runs a kernel over a few k slices of it.
 * A work-group of MDIMC x NDIMC work-items owns an MWG x NWG tile of Cp. Work-item (tx, ty)
 * owns the vectors tx + i*MDIMC of the tile's MWG/VWM A-vectors and ty + j*NDIMC of its NWG/VWN
 * B-vectors, so neighbouring work-items touch neighbouring addresses in global memory, in local
 * memory, and in Cp. With SA/SB the panels are staged through local memory, double buffered:
 * the next KWG slice is loaded into registers before the current one is consumed and stored to
 * the other buffer afterwards, so one barrier per slice suffices and the global latency hides
 * behind the arithmetic. Without SA/SB (CPU devices) the work-items read the packed panels
 * directly. Feature macros (CLHGEMM_FEATURE_*) come from src/device/device.c; parameters from
 * src/kernels/params.c. Every parameter has a default below so the file compiles on its own.
 *
 * Two switches serve the other level-3 routines (src/core/l3_map.c) and are off (0) for GEMM,
 * where the preprocessed kernel is the same as without them. Both add one argument, `diag`, the
 * global row index minus the global column index at (0, 0) of the packed operand they refer to.
 *   TRIANGLE 1 / 2 (SYRK, SYR2K): only the tiles of Cp that touch its upper / lower triangle
 *            (element (r, c) with r + diag <= c / >= c) are computed. The launch has one
 *            work-group per such tile along dimension 0 (count from src/core/blocks.c) and the
 *            work-group finds its tile by walking the tile columns, so no work-group idles.
 *   KLIMIT   (TRMM) one packed operand is triangular in pack coordinates (Ap(row, k) or
 *            Bp(col, k)), zero outside its triangle: each work-group runs only the KWG slices
 *            that can hold a non-zero of its rows / columns. 1: Ap upper (k >= row + diag),
 *            2: Ap lower (k <= row + diag), 3: Bp upper (k >= col + diag), 4: Bp lower.
 *   CPLX 1   with either: the packs hold a complex product in the 1m form (src/kernels/codegen.h):
 *            Cp's rows and every k row come in pairs, so TRIANGLE's triangle is that of the
 *            complex C (tiles of MWG/2 of its rows, diag in them) and KLIMIT 3 / 4's bound of a
 *            tile column is twice its first / last column (Bp's rows are not paired; diag in
 *            real k rows, as for KLIMIT 1 / 2, whose rows pair like k).
 *
 * SPLITK 1 (plain GEMM, src/core/gemm.c's split of k): the launch has a third dimension, one
 * slice s = get_group_id(2) of kp packed k rows each; slice s multiplies panel rows
 * [s*kp, (s+1)*kp) (the panels' extent apk/bpk holds all slices); SPLITK 2: [s*kp,
 * min((s+1)*kp, apk)), the last slice shorter (a tail split's). Each into its own partial product
 * Cp + s * ldcp * Np (Np = the launch's tiles along n times NWG), which a second pass
 * (cl/splitk.cl) sums in slice order with alpha and beta. No atomics: results are reproducible.
 * With DIRECT_A / DIRECT_B an operand is read in place instead, slice s from its k row s*kp
 * (the host sends such a call only when the slices end exactly at k: no padding rows there).
 */

#ifndef PRECISION
#define PRECISION 32
#endif
#ifndef MWG
#define MWG 64
#endif
#ifndef NWG
#define NWG 64
#endif
#ifndef KWG
#define KWG 16
#endif
#ifndef MDIMC
#define MDIMC 16
#endif
#ifndef NDIMC
#define NDIMC 16
#endif
#ifndef VWM
#define VWM 2
#endif
#ifndef VWN
#define VWN 2
#endif
#ifndef SA
#define SA 1
#endif
#ifndef SB
#define SB 1
#endif
#ifndef KWI
#define KWI 2
#endif
#ifndef TRIANGLE
#define TRIANGLE 0
#endif
#ifndef KLIMIT
#define KLIMIT 0
#endif
#ifndef CPLX
#define CPLX 0
#endif
#define TRI_MWG (CPLX ? MWG / 2 : MWG) /* a tile's rows of the C whose triangle TRIANGLE means */
#define KL_NWG (CPLX ? 2 * NWG : NWG)  /* a tile column's k rows per column of Bp (KLIMIT 3, 4) */
#ifndef MMA
#define MMA 0
#endif
#ifndef WM
#define WM 1
#endif
#ifndef ASYNC
#define ASYNC 0
#endif
#ifndef TF32
#define TF32 0
#endif
#ifndef SWZ
#define SWZ 0
#endif
#ifndef DIRECT_A
#define DIRECT_A 0
#endif
#ifndef DIRECT_B
#define DIRECT_B 0
#endif
#ifndef DIRECT_C
#define DIRECT_C 0
#endif
#define DIRECT (DIRECT_A || DIRECT_B || DIRECT_C)
/* The structured variants read packed operands; a TRMM's (KLIMIT) may write C itself: its
 * operands are packed snapshots, so C may be the general operand's memory (in place) */
#if (DIRECT_A || DIRECT_B) && (TRIANGLE || KLIMIT) || DIRECT_C && TRIANGLE
#error "DIRECT_A / DIRECT_B are for plain GEMM, DIRECT_C for plain GEMM and KLIMIT"
#endif
#ifndef SPLITK
#define SPLITK 0
#endif
/* PF2: the staged tensor-core kernel keeps two slices in flight (registers for the next and the
 * one after), so that a slice's global loads have two steps of arithmetic to land instead of
 * one (small tiles, few work-groups: the step is the loads' latency). */
#ifndef PF2
#define PF2 0
#endif
#if SPLITK && (DIRECT_C || TRIANGLE || KLIMIT)
#error "SPLITK is for plain GEMM, its partials in the workspace"
#endif

#define MWI (MWG / MDIMC)   /* accumulators per work-item along m */
#define NWI (NWG / NDIMC)   /* ... along n */
#define NTHREADS (MDIMC * NDIMC)
#define MVECS (MWG / VWM)   /* A vectors per k row of a tile */
#define NVECS (NWG / VWN)
#define LA (KWG * MVECS)    /* A vectors per KWG slice */
#define LB (KWG * NVECS)

#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
typedef double4 real4;
typedef double8 real8;
#ifdef CLHGEMM_FEATURE_FMA_F64
#define MADD(a, b, c) fma(a, b, c)
#endif
#else
typedef float real;
typedef float2 real2;
typedef float4 real4;
typedef float8 real8;
#ifdef CLHGEMM_FEATURE_FMA_F32
#define MADD(a, b, c) fma(a, b, c)
#endif
#endif
#ifndef MADD
#define MADD(a, b, c) ((a) * (b) + (c))
#endif

#if VWM == 1
typedef real realM;
#define UNPACK_M(d, v) { d[0] = (v); }
#elif VWM == 2
typedef real2 realM;
#define UNPACK_M(d, v) { d[0] = (v).x; d[1] = (v).y; }
#elif VWM == 4
typedef real4 realM;
#define UNPACK_M(d, v) { d[0] = (v).x; d[1] = (v).y; d[2] = (v).z; d[3] = (v).w; }
#elif VWM == 8
typedef real8 realM;
#define UNPACK_M(d, v) { d[0] = (v).s0; d[1] = (v).s1; d[2] = (v).s2; d[3] = (v).s3; \
                         d[4] = (v).s4; d[5] = (v).s5; d[6] = (v).s6; d[7] = (v).s7; }
#else
#error "VWM must be 1, 2, 4 or 8"
#endif

#if VWN == 1
typedef real realN;
#define UNPACK_N(d, v) { d[0] = (v); }
#elif VWN == 2
typedef real2 realN;
#define UNPACK_N(d, v) { d[0] = (v).x; d[1] = (v).y; }
#elif VWN == 4
typedef real4 realN;
#define UNPACK_N(d, v) { d[0] = (v).x; d[1] = (v).y; d[2] = (v).z; d[3] = (v).w; }
#elif VWN == 8
typedef real8 realN;
#define UNPACK_N(d, v) { d[0] = (v).s0; d[1] = (v).s1; d[2] = (v).s2; d[3] = (v).s3; \
                         d[4] = (v).s4; d[5] = (v).s5; d[6] = (v).s6; d[7] = (v).s7; }
#else
#error "VWN must be 1, 2, 4 or 8"
#endif

/* Loops with compile-time trip counts are unrolled completely. */
#define UNROLL _Pragma("unroll")

/* Slice loads: the KWG x MWG slice of a panel is contiguous, so work-item t takes vectors
 * t, t + NTHREADS, ... -- coalesced whatever the tile shape. */
#define LOADS_A ((LA + NTHREADS - 1) / NTHREADS)
#define LOADS_B ((LB + NTHREADS - 1) / NTHREADS)
/* stmt for each of this work-item's LOADS of a slice of L vectors (idx: the vector; r: the
 * register it goes through) */
#define FOR_SLICE(LOADS, L, stmt)                                                              \
    UNROLL for (int r = 0; r < LOADS; r++) {                                                   \
        const int idx = tid + r * NTHREADS;                                                    \
        if (L % NTHREADS == 0 || idx < L) stmt                                                 \
    }

/* Vector v (< MVECS) of k row k of the work-group's A panel, and of its B panel: packed panels
 * are [Kp][MWG] streams, direct ones have a k stride of lda_v / ldb_v vectors. A_SLICE(k, idx)
 * is vector idx of the KWG x MWG slice starting at k row k. */
#if DIRECT_A
#define A_VEC(k, v) ag[(k) * lda_v + (v)]
#define A_PANEL MVECS
#define A_KSTRIDE (lda_v * VWM) /* in elements */
#else
#define A_VEC(k, v) ag[(k) * MVECS + (v)]
#define A_PANEL (apk * MVECS)
#define A_KSTRIDE MWG
#endif
#if DIRECT_B
#define B_VEC(k, v) bg[(k) * ldb_v + (v)]
#define B_PANEL NVECS
#define B_KSTRIDE (ldb_v * VWN)
#else
#define B_VEC(k, v) bg[(k) * NVECS + (v)]
#define B_PANEL (bpk * NVECS)
#define B_KSTRIDE NWG
#endif
#if DIRECT_A
#define A_SLICE(k, idx) A_VEC((k) + (idx) / MVECS, (idx) % MVECS)
#else
#define A_SLICE(k, idx) ag[(k) * MVECS + (idx)] /* the slice is one contiguous run */
#endif
#if DIRECT_B
#define B_SLICE(k, idx) B_VEC((k) + (idx) / NVECS, (idx) % NVECS)
#else
#define B_SLICE(k, idx) bg[(k) * NVECS + (idx)]
#endif

/* DIRECT_C: C(m, n) of the block := alpha * value (+ beta * C(m, n)), in two passes over a
 * group of registers: SCALE_C turns each value into its result (reading C where beta != 0),
 * then PUT_C stores them. Loads and stores interleaved would each wait for the store before
 * them (same pointer: the compiler cannot prove them apart), one memory latency per element --
 * that made the in-kernel beta*C slower than a separate write-back pass (see the Cp loads of
 * the accumulating store). */
#if DIRECT_C
#define IN_C(m, n) ((m) < mlim && (n) < nlim)
#define PUT_C(m, n, val)                                                                       \
    if (IN_C(m, n)) cg[(long)(n) * ldc + (m)] = (val);
#if DIRECT_C == 1
#define SCALE_C(m, n, val)                                                                     \
    val = IN_C(m, n) ? alpha * (val) + beta * cg[(long)(n) * ldc + (m)] : (val);
#else
#define SCALE_C(m, n, val) val = alpha * (val);
#endif
#endif

/* DIRECT_B 2: B not transposed (k-major: B(p, j) at p + j * ldb) read in place; its slices are
 * loaded element by element, k fastest (a column's KWG elements are one contiguous run), and
 * stored transposed into the local buffer the arithmetic reads: kernels that stage B (SB),
 * without ASYNC. ldb_v is then ldb in elements. */
#if DIRECT_B == 2 && (!SB || ASYNC)
#error "DIRECT_B 2 (B read k-major in place) is for a kernel that stages B (SB), without ASYNC"
#endif
#if DIRECT_B == 2
/* element idx of a k-major slice: k row BK_K(idx) of column BK_C(idx); by default column
 * idx / KWG, row idx % KWG (a work-item's neighbours read on down the column); the tensor-core
 * path redefines them (below) */
#define LBK (KWG * NWG)
#define LOADS_BK ((LBK + NTHREADS - 1) / NTHREADS)
#define BK_K(idx) ((idx) % KWG)
#define BK_C(idx) ((idx) / KWG)
#define BK_AT(k, idx) bk[BK_C(idx) * ldb_v + (k) + BK_K(idx)]
#endif

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
void clhgemm_gemm(const int kp, const int ldcp,
                  __global const realM *restrict ap, const ulong aoff,
                  __global const realN *restrict bp, const ulong boff,
                  __global realM *cp,
                  const int accumulate, const int apk, const int bpk
#if TRIANGLE || KLIMIT
                  , const int diag
#endif
#if DIRECT
                  , const int lda_v, const int ldb_v, const ulong coff, const int ldc,
                  const int mlim, const int nlim, const real alpha, const real beta
#endif
                  )
{
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tid = tx + ty * MDIMC;

#if TRIANGLE
    /* Work-group g takes the g-th tile, column by column, of those touching the triangle;
     * within column c they are a contiguous run of tile rows [first, first + count). */
    int gm = get_group_id(0), gn = 0;
    {
        const int mt = ldcp / MWG;
        for (;; gn++) {
#if TRIANGLE == 1
            const int hi = (gn + 1) * NWG - 1 - diag;
            const int first = 0;
            const int count = hi < 0 ? 0 : min(hi / TRI_MWG + 1, mt);
#else
            const int x = gn * NWG - diag + 1;
            const int first = x <= 0 ? 0 : (x + TRI_MWG - 1) / TRI_MWG - 1;
            const int count = max(mt - first, 0);
#endif
            if (gm < count) {
                gm += first;
                break;
            }
            gm -= count;
        }
    }
#define GROUP_M gm
#define GROUP_N gn
#elif KLIMIT && (MMA && PRECISION == 64 || PRECISION == 32 && MWG * NWG >= 128 * 128)
    /* A TRMM's tiles launched in the order of their work, the longest k range first (KLIMIT 1:
     * tile row 0 first, 2: the last row, 3 / 4 the same by columns), so that the last to start
     * are the shortest; a bijection on the launch's tiles (core/blocks.h
     * chg_l3_klimit_longest_first says where). On the H100 (2026-11-27): the FP64 tensor-core
     * kernel's DTRSM n = 8192 leaves (512 x 8192, a triangle of 512) 104 -> 77 us, the DTRSM
     * +2.5%; FP32 tiles of 128 x 128 or more: STRSM 8192's leaves on 128 x 128 tiles 94 -> 76 us,
     * STRMM 2048 / 4096 +30-38% / +9-13%. Smaller FP32 tiles keep the launch's order: with it
     * STRMM 1024 (64 x 32 tiles) ran 17% slower, though as slow in leases that kept its order. */
#define KL_LIN ((int)(get_group_id(0) + get_group_id(1) * get_num_groups(0)))
#if KLIMIT <= 2
#define KL_ROW (KL_LIN / (int)get_num_groups(1))
#define GROUP_M (KLIMIT == 1 ? KL_ROW : (int)get_num_groups(0) - 1 - KL_ROW)
#define GROUP_N (KL_LIN % (int)get_num_groups(1))
#else
#define KL_COL (KL_LIN / (int)get_num_groups(0))
#define GROUP_M (KL_LIN % (int)get_num_groups(0))
#define GROUP_N (KLIMIT == 3 ? KL_COL : (int)get_num_groups(1) - 1 - KL_COL)
#endif
#elif SWZ
    /* Rasterisation: the launch (tile rows along dimension 0) is walked in bands of SWZ tile
     * rows, column by column inside a band, so the work-groups resident together read about
     * SWZ A panels and (resident / SWZ) B panels instead of every A panel of the matrix. A
     * bijection: the last band may be shorter. Recomputed where used (a few integer operations)
     * rather than held in registers across the k loop. */
#define SWZ_LIN (get_group_id(0) + get_group_id(1) * get_num_groups(0))
#define SWZ_BAND ((int)(SWZ_LIN / (SWZ * get_num_groups(1))))
#define SWZ_R ((int)(SWZ_LIN - SWZ_BAND * SWZ * get_num_groups(1)))
#define SWZ_ROWS (min(SWZ, (int)get_num_groups(0) - SWZ_BAND * SWZ))
#define GROUP_M (SWZ_BAND * SWZ + SWZ_R % SWZ_ROWS)
#define GROUP_N (SWZ_R / SWZ_ROWS)
#else
#define GROUP_M get_group_id(0)
#define GROUP_N get_group_id(1)
#endif

    /* This work-group's panels. Workspace buffers hold < 2^31 elements (src/core/gemm.c), so int
     * arithmetic is exact here. */
    const __global realM *ag = ap + aoff / VWM + GROUP_M * A_PANEL;
#if DIRECT_B == 2
    const __global real *bk = (const __global real *)bp + boff + (long)GROUP_N * NWG * ldb_v;
#else
    const __global realN *bg = bp + boff / VWN + GROUP_N * B_PANEL;
#endif
#if SPLITK
    {
        /* slice s_ starts at k row s_ * kp of each operand: packed, kp rows of the panel;
         * direct, kp rows of the caller's matrix (core/gemm.c: the slices then end at k) */
        const int s_ = get_group_id(2);
#if DIRECT_A
        ag += s_ * kp * lda_v;
#else
        ag += s_ * kp * MVECS;
#endif
#if DIRECT_B == 2
        bk += s_ * kp;
#elif DIRECT_B
        bg += s_ * kp * ldb_v;
#else
        bg += s_ * kp * NVECS;
#endif
        cp += (long)s_ * ldcp * (long)(get_num_groups(1) * NWG) / VWM;
    }
#endif
#if DIRECT_C
    __global real *cg = (__global real *)cp + coff;
#endif

    /* The KWG slices this work-group runs: [KBEG, KEND). */
#if KLIMIT == 1 || KLIMIT == 3
    const int kfrom = (KLIMIT == 1 ? (int)GROUP_M * MWG : (int)GROUP_N * KL_NWG) + diag;
    const int kbeg = kfrom <= 0 ? 0 : min(kfrom / KWG * KWG, kp);
#define KBEG kbeg
#define KEND kp
#elif KLIMIT == 2 || KLIMIT == 4
    const int kto = (KLIMIT == 2 ? ((int)GROUP_M + 1) * MWG : ((int)GROUP_N + 1) * KL_NWG) + diag;
    const int kend = kto <= 0 ? 0 : min((kto + KWG - 1) / KWG * KWG, kp);
#define KBEG 0
#define KEND kend
#elif SPLITK == 2
    /* slice s_ runs kp rows, the last one what is left of the apk packed rows (a tail split's
     * slices that do not divide k: core/splitk.h chg_splitk_tail; SPLITK 1, even slices, keeps
     * the plain bound, which the FMA kernel runs faster) */
    const int kend = min(kp, apk - (int)get_group_id(2) * kp);
#define KBEG 0
#define KEND kend
#else
#define KBEG 0
#define KEND kp
#endif

#if MMA
    /* ---- Tensor cores (NVIDIA, compute capability >= 8.0): mma.sync through inline PTX, FP64
     * (MMA 1..4) or, as an opt-in, TF32 for FP32 (MMA 3 with TF32 1 or 3, below). The MDIMC x
     * NDIMC work-items form NTHREADS/32 warps, WM along m and WN along n; warp w owns the
     * WTM x WTN sub-tile (w % WM, w / WM) of the work-group's tile and computes it as FM x FN
     * instructions of shape MM x 8 x MK. The KWG slices are staged in local memory (SA / SB;
     * either may read straight from global memory instead), double buffered as above, with
     * rows padded (LPAD below) so that the fragment reads -- lanes (g, t) = (lane / 4,
     * lane % 4) reading row k0 + t, column c0 + g -- hit different banks. Fragment layouts
     * (PTX ISA, "Matrix Fragments for mma.m*n8k* with .f64", and m16n8k8 with .tf32, the same
     * places; proven on random data by test_mma):
     *   A register r: row g + 8 (r & 1), k t + 4 (r >> 1)   (row only g for m8)
     *   B register r: k t + 4 r, column g
     *   C register i: row g + 8 (i >> 1), column 2 t + (i & 1) */
#if PRECISION == 32
    /* FP32: the TF32 instruction m16n8k8, an opt-in (CLHGEMM_SGEMM_MATH): each element is
     * rounded to TF32 (cvt.rna: 10 mantissa bits) as its fragment is read; with TF32 3 it is
     * also split into that high part and the TF32 rounding of the (exact) remainder, and the
     * three products lo*hi + hi*lo + hi*hi are accumulated in FP32 (3xTF32: the lo*lo term,
     * ~2^-22 of |ab|, is all that is dropped). Same fragment layout as the f64 m16n8k8. */
#if MMA != 3 || (TF32 != 1 && TF32 != 3)
#error "the FP32 tensor-core path is m16n8k8 (MMA 3) with TF32 1 or 3"
#endif
#if ASYNC
#error "ASYNC is for the FP64 tensor-core kernel"
#endif
#define MM 16
#define MK 8
#elif TF32
#error "TF32 is an FP32 mode"
#elif MMA == 1
#define MM 8
#define MK 4
#elif MMA == 2
#define MM 16
#define MK 4
#elif MMA == 3
#define MM 16
#define MK 8
#elif MMA == 4
#define MM 16
#define MK 16
#else
#error "MMA must be 0..4"
#endif
#define WARPS (NTHREADS / 32)
#define WN (WARPS / WM)
#define WTM (MWG / WM)
#define WTN (NWG / WN)
#define FM (WTM / MM)
#define FN (WTN / 8)
#define NA (MM * MK / 32)
#define NB (MK / 4)
#define NC (MM / 4)
/* rows padded by 4 doubles / 8 floats: row stride = 4 (doubles, 16 banks per half-warp) or
 * 8 (floats, 32 banks per warp) mod the bank count, so the fragment reads never conflict */
#define LPAD (PRECISION == 64 ? 4 : 8)
#define APITCH (MWG + LPAD)
#define BPITCH (NWG + LPAD)
#if PRECISION == 32
typedef uint frag_t;
#define MMA_OP(c, a, b)                                                                        \
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "     \
        "{%8,%9}, {%10,%11,%12,%13};"                                                          \
        : "=f"(c[0]), "=f"(c[1]), "=f"(c[2]), "=f"(c[3])                                       \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),          \
          "f"(c[1]), "f"(c[2]), "f"(c[3]))
/* hi = x rounded to TF32 (to nearest, ties away); lo = the remainder x - hi (exact in FP32)
 * rounded to TF32 */
#define TF32_HI(hi, x) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(hi) : "f"(x))
#define TF32_SPLIT(hi, lo, x)                                                                  \
    {                                                                                          \
        const float x_ = (x);                                                                  \
        TF32_HI(hi, x_);                                                                       \
        TF32_HI(lo, x_ - as_float(hi));                                                        \
    }
#else
typedef real frag_t;
#endif
#if PRECISION == 32
/* (the FP32 MMA_OP is defined above) */
#elif MMA == 1
#define MMA_OP(c, a, b)                                                                        \
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"          \
        : "=d"(c[0]), "=d"(c[1]) : "d"(a[0]), "d"(b[0]), "d"(c[0]), "d"(c[1]))
#elif MMA == 2
#define MMA_OP(c, a, b)                                                                        \
    asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, "        \
        "{%7,%8,%9,%10};"                                                                      \
        : "=d"(c[0]), "=d"(c[1]), "=d"(c[2]), "=d"(c[3])                                       \
        : "d"(a[0]), "d"(a[1]), "d"(b[0]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]))
#elif MMA == 3
#define MMA_OP(c, a, b)                                                                        \
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "        \
        "{%8,%9}, {%10,%11,%12,%13};"                                                          \
        : "=d"(c[0]), "=d"(c[1]), "=d"(c[2]), "=d"(c[3])                                       \
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]), "d"(c[0]),          \
          "d"(c[1]), "d"(c[2]), "d"(c[3]))
#else
#define MMA_OP(c, a, b)                                                                        \
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "                     \
        "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%16,%17,%18,%19};"                    \
        : "=d"(c[0]), "=d"(c[1]), "=d"(c[2]), "=d"(c[3])                                       \
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),          \
          "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]), "d"(c[0]), "d"(c[1]),          \
          "d"(c[2]), "d"(c[3]))
#endif

    const int warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;
    const int wm0 = (warp % WM) * WTM, wn0 = (warp / WM) * WTN;

    real acc[FM][FN][NC];
    UNROLL for (int i = 0; i < FM; i++)
        UNROLL for (int j = 0; j < FN; j++)
            UNROLL for (int r = 0; r < NC; r++)
                acc[i][j][r] = (real)0;

    /* SA / SB: stage that panel in local memory (double buffered); 0: its fragments are read
     * straight from the packed panel in global memory (through the cache), which leaves the
     * 48 KiB of local memory to the other panel and allows a longer KWG slice. */
    /* ASYNC (CLHGEMM_MMA_ASYNC=1; off by default, measured slower on the H100): the staged slices
     * travel global -> local memory by cp.async (sm_80+, inline PTX), 16 bytes per copy, with no
     * register on the way: the next slice is issued before the current one is consumed and
     * waited for (cp.async.wait_group 0, then the barrier) after it. Otherwise the next slice is
     * loaded into registers (pa, pb) first and stored to the other buffer after the arithmetic.
     * Either way one barrier per slice; the copies hide behind one slice of mma. */
#if SA
    __local realM als[2][KWG * APITCH / VWM];
#if !ASYNC
    realM pa[LOADS_A];
#endif
#else
    const __global real *ags = (const __global real *)ag;
#endif
#if SB
    __local realN bls[2][KWG * BPITCH / VWN];
#if DIRECT_B == 2
#if KWG % 4 == 0 && NWG % (32 / (PRECISION / 8)) == 0
    /* Rows of the padded slice are 32 bytes apart in the banks (LPAD), so KWG rows of one
     * column, as the default order loads them, met in a quarter of the banks (4-way conflicts
     * on the stores). Here 4 neighbouring work-items take 4 rows of a column (32 bytes of
     * doubles read at once) and the next ones the next columns of the same 32-byte span:
     * 4 rows x 32 bytes of columns cover the 32 banks once. */
#define BK_CQ (32 / (PRECISION / 8))
#undef BK_K
#undef BK_C
#define BK_K(idx) ((idx) % 4 + ((idx) / (4 * BK_CQ)) % (KWG / 4) * 4)
#define BK_C(idx) ((idx) / 4 % BK_CQ + (idx) / (4 * BK_CQ) / (KWG / 4) * BK_CQ)
#endif
#define BK_SLOT(idx) (BK_K(idx) * BPITCH + BK_C(idx)) /* its padded place */
    real pb[LOADS_BK];
#if PF2
    real qb[LOADS_BK];
#endif
#elif !ASYNC
    realN pb[LOADS_B];
#if PF2
    realN qb[LOADS_B];
#endif
#endif
#else
    const __global real *bgs = (const __global real *)bg;
#endif
#if SA && PF2
    realM qa[LOADS_A];
#endif
    /* the staged slices starting at k row k into registers PA (A) and PB (B); nothing for a
     * panel that is not staged */
#if SA
#define LOAD_A_INTO(P, k) FOR_SLICE(LOADS_A, LA, P[r] = A_SLICE(k, idx);)
#else
#define LOAD_A_INTO(P, k)
#endif
#if SB && DIRECT_B == 2
#define LOAD_B_INTO(P, k) FOR_SLICE(LOADS_BK, LBK, P[r] = BK_AT(k, idx);)
#elif SB
#define LOAD_B_INTO(P, k) FOR_SLICE(LOADS_B, LB, P[r] = B_SLICE(k, idx);)
#else
#define LOAD_B_INTO(P, k)
#endif
#define LOAD_SLICES(PA, PB, k) { LOAD_A_INTO(PA, k) LOAD_B_INTO(PB, k) }

    /* vector idx of a slice (row idx / MVECS, vector idx % MVECS) -> its padded place */
#define A_SLOT(idx) ((idx) / MVECS * (APITCH / VWM) + (idx) % MVECS)
#define B_SLOT(idx) ((idx) / NVECS * (BPITCH / VWN) + (idx) % NVECS)
#if ASYNC
    /* one vector: 16-byte copies (.cg: through L2 only), or one 8-byte copy for width 1 */
#define CP16(d, s_) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(s_) : "memory")
#define CP8(d, s_) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(d), "l"(s_) : "memory")
#define SADDR(p) ((uint)(size_t)(p))
#define GADDR(p) ((ulong)(size_t)(p))
/* vector d <- s_ of vw doubles (vw is a constant: the branch folds away) */
#define CP_VEC(d, s_, vw)                                                                      \
    if ((vw) == 1) {                                                                           \
        CP8(SADDR(d), GADDR(s_));                                                              \
    } else {                                                                                   \
        UNROLL for (int h_ = 0; h_ < (vw) / 2; h_++)                                           \
            CP16(SADDR(d) + 16 * h_, GADDR(s_) + 16 * h_);                                     \
    }
/* the slice starting at k row k of one panel into the local buffer lbuf */
#define STAGE(lbuf, SLOT, SLICE, LOADS, L, VW, k)                                              \
    FOR_SLICE(LOADS, L, { CP_VEC(&lbuf[SLOT(idx)], &SLICE(k, idx), VW) })
#define STAGE_A(b, k) STAGE(als[b], A_SLOT, A_SLICE, LOADS_A, LA, VWM, k)
#define STAGE_B(b, k) STAGE(bls[b], B_SLOT, B_SLICE, LOADS_B, LB, VWN, k)
#define CP_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define CP_WAIT() asm volatile("cp.async.wait_group 0;" ::: "memory")
#endif

#if SA || SB
#if KLIMIT
    if (KBEG < KEND) {
#endif
#if ASYNC
#if SA
    STAGE_A(0, KBEG)
#endif
#if SB
    STAGE_B(0, KBEG)
#endif
    CP_COMMIT();
    CP_WAIT();
#else
#if SA
    FOR_SLICE(LOADS_A, LA, als[0][A_SLOT(idx)] = A_SLICE(KBEG, idx);)
#endif
#if SB && DIRECT_B == 2
    FOR_SLICE(LOADS_BK, LBK, ((__local real *)bls[0])[BK_SLOT(idx)] = BK_AT(KBEG, idx);)
#elif SB
    FOR_SLICE(LOADS_B, LB, bls[0][B_SLOT(idx)] = B_SLICE(KBEG, idx);)
#endif
#if PF2
    /* two slices in flight: the next one's registers filled here, the one after at the top of
     * each step (PF2 below) */
    if (KBEG + KWG < KEND) LOAD_SLICES(pa, pb, KBEG + KWG)
#endif
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
#if KLIMIT
    }
#endif
#endif

    int buf = 0;
    for (int kb = KBEG; kb < KEND; kb += KWG) {
        const int more = kb + KWG < KEND;
#if ASYNC && (SA || SB)
        /* buf ^ 1 was last read before the previous barrier */
        if (more) {
#if SA
            STAGE_A(buf ^ 1, kb + KWG)
#endif
#if SB
            STAGE_B(buf ^ 1, kb + KWG)
#endif
            CP_COMMIT();
        }
#elif PF2
        /* the slice after next into qa / qb; the next one is in pa / pb since the step before */
        if (kb + 2 * KWG < KEND) LOAD_SLICES(qa, qb, kb + 2 * KWG)
#else
        if (more) LOAD_SLICES(pa, pb, kb + KWG)
#endif
#if SA
        const __local real *as = (const __local real *)als[buf];
#define A_AT(k, c) as[(k) * APITCH + (c)]
#else
#define A_AT(k, c) ags[(kb + (k)) * A_KSTRIDE + (c)]
#endif
#if SB
        const __local real *bs = (const __local real *)bls[buf];
#define B_AT(k, c) bs[(k) * BPITCH + (c)]
#else
#define B_AT(k, c) bgs[(kb + (k)) * B_KSTRIDE + (c)]
#endif
        UNROLL for (int k0 = 0; k0 < KWG; k0 += MK) {
            frag_t af[FM][NA];
            frag_t bf[FN][NB];
#if TF32 == 1
            UNROLL for (int i = 0; i < FM; i++)
                UNROLL for (int r = 0; r < NA; r++)
                    TF32_HI(af[i][r], A_AT(k0 + t + 4 * (r >> 1), wm0 + i * MM + g + 8 * (r & 1)));
            UNROLL for (int j = 0; j < FN; j++)
                UNROLL for (int r = 0; r < NB; r++)
                    TF32_HI(bf[j][r], B_AT(k0 + t + 4 * r, wn0 + j * 8 + g));
#elif TF32 == 3
            frag_t al[FM][NA], bl[FN][NB];
            UNROLL for (int i = 0; i < FM; i++)
                UNROLL for (int r = 0; r < NA; r++)
                    TF32_SPLIT(af[i][r], al[i][r],
                               A_AT(k0 + t + 4 * (r >> 1), wm0 + i * MM + g + 8 * (r & 1)));
            UNROLL for (int j = 0; j < FN; j++)
                UNROLL for (int r = 0; r < NB; r++)
                    TF32_SPLIT(bf[j][r], bl[j][r], B_AT(k0 + t + 4 * r, wn0 + j * 8 + g));
#else
            UNROLL for (int i = 0; i < FM; i++)
                UNROLL for (int r = 0; r < NA; r++)
                    af[i][r] = A_AT(k0 + t + 4 * (r >> 1), wm0 + i * MM + g + 8 * (r & 1));
            UNROLL for (int j = 0; j < FN; j++)
                UNROLL for (int r = 0; r < NB; r++)
                    bf[j][r] = B_AT(k0 + t + 4 * r, wn0 + j * 8 + g);
#endif
            UNROLL for (int i = 0; i < FM; i++)
                UNROLL for (int j = 0; j < FN; j++) {
#if TF32 == 3
                    MMA_OP(acc[i][j], al[i], bf[j]);
                    MMA_OP(acc[i][j], af[i], bl[j]);
#endif
                    MMA_OP(acc[i][j], af[i], bf[j]);
                }
        }
#if SA || SB
#if ASYNC
        if (more) CP_WAIT();
#else
        if (more) {
#if SA
            FOR_SLICE(LOADS_A, LA, als[buf ^ 1][A_SLOT(idx)] = pa[r];)
#endif
#if SB && DIRECT_B == 2
            FOR_SLICE(LOADS_BK, LBK, ((__local real *)bls[buf ^ 1])[BK_SLOT(idx)] = pb[r];)
#elif SB
            FOR_SLICE(LOADS_B, LB, bls[buf ^ 1][B_SLOT(idx)] = pb[r];)
#endif
        }
#if PF2
#if SA
        UNROLL for (int r = 0; r < LOADS_A; r++) pa[r] = qa[r];
#endif
#if SB && DIRECT_B == 2
        UNROLL for (int r = 0; r < LOADS_BK; r++) pb[r] = qb[r];
#elif SB
        UNROLL for (int r = 0; r < LOADS_B; r++) pb[r] = qb[r];
#endif
#endif
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
        buf ^= 1;
#endif
    }

    /* Store: register i of instruction (fi, fj) is element (row g + 8 (i >> 1), column
     * 2 t + (i & 1)) of its MM x 8 block. */
    const int m0 = GROUP_M * MWG + wm0;
    const int n0 = GROUP_N * NWG + wn0;
#if !DIRECT_C
    __global real *cs = (__global real *)cp;
    /* Accumulating (the later k slices of a host-pipeline tile, or of a sliced device call):
     * every load of Cp first, then every store. Interleaved, each load had to wait for the
     * store before it (same pointer, so the compiler cannot prove them apart): one memory
     * latency per register, which made 11 accumulating launches 10% slower than one launch
     * over the same k on the H100 (clhgemm-bench-gemm --parts-bk). */
    if (accumulate)
        UNROLL for (int i = 0; i < FM; i++)
            UNROLL for (int j = 0; j < FN; j++)
                UNROLL for (int r = 0; r < NC; r++)
                    acc[i][j][r] += cs[(n0 + j * 8 + 2 * t + (r & 1)) * ldcp + m0 + i * MM + g + 8 * (r >> 1)];
#endif
#if DIRECT_C
    /* per row of instructions, CEJ instructions along n at a time (CEJ * NC values of C), its
     * C loads first, then its stores. All of the tile's at once took registers that the k loop
     * needed (DGEMM n = 8192 ran 30% slower); a row of 6 instructions of the 128 x 192 tile
     * (24 loads) still spilled 160 bytes (ptxas, sm_90), and groups of 2 (8 loads) none: on the
     * H100 (2026-11-27) DGEMM 4096 x 8192 x 4096 at beta 0.5 ran 49.0-49.5 -> 51.0-51.1 TFLOP/s
     * (beta 0: 51.7); groups of 3 ran 46.5-46.9, of 1 50.6-50.9; the smaller tiles (rows of 2-3
     * instructions) did not move. */
#define CEJ (FN < 2 ? FN : 2)
    UNROLL for (int i = 0; i < FM; i++)
        UNROLL for (int j0 = 0; j0 < FN; j0 += CEJ) {
            UNROLL for (int j = j0; j < min(j0 + CEJ, FN); j++)
                UNROLL for (int r = 0; r < NC; r++) {
                    const int m = m0 + i * MM + g + 8 * (r >> 1);
                    const int n = n0 + j * 8 + 2 * t + (r & 1);
                    SCALE_C(m, n, acc[i][j][r]);
                }
            UNROLL for (int j = j0; j < min(j0 + CEJ, FN); j++)
                UNROLL for (int r = 0; r < NC; r++) {
                    const int m = m0 + i * MM + g + 8 * (r >> 1);
                    const int n = n0 + j * 8 + 2 * t + (r & 1);
                    PUT_C(m, n, acc[i][j][r]);
                }
        }
#else
    UNROLL for (int i = 0; i < FM; i++)
        UNROLL for (int j = 0; j < FN; j++)
            UNROLL for (int r = 0; r < NC; r++) {
                const int m = m0 + i * MM + g + 8 * (r >> 1);
                const int n = n0 + j * 8 + 2 * t + (r & 1);
                cs[n * ldcp + m] = acc[i][j][r];
            }
#endif
#else
    real acc[MWI][NWI];
    UNROLL for (int i = 0; i < MWI; i++)
        UNROLL for (int j = 0; j < NWI; j++)
            acc[i][j] = (real)0;

#if SA
    __local realM als[2][LA];
    realM pa[LOADS_A];
#endif
#if SB
    __local realN bls[2][LB];
#if DIRECT_B == 2
    /* The k-major slice is stored transposed: a warp's loads are runs of KWG rows of one or two
     * columns, and with rows of NWG elements (whole 128-byte bank rows) every element of a run
     * fell into one bank (16-way conflicts: the stores cost as much local-memory time as the
     * arithmetic). Vector v of row k is kept at v ^ BK_SWZ(k) instead (a permutation within
     * aligned groups of BK_SWV vectors, one bank row wide), which spreads a run over the bank
     * row; the arithmetic reads through the same map (B_LVEC). */
#define BK_BANKV (128 / (PRECISION / 8) / VWN)
#define BK_LOWV (NVECS & -NVECS)
#define BK_SWV (BK_LOWV < BK_BANKV ? BK_LOWV : BK_BANKV)
#define BK_SWZ(k) ((k) % BK_SWV)
#undef BK_SLOT
#define BK_SLOT(idx)                                                                           \
    (BK_K(idx) * NWG + ((BK_C(idx) / VWN) ^ BK_SWZ(BK_K(idx))) * VWN + BK_C(idx) % VWN)
#define B_LVEC(k, v) ((k) * NVECS + ((v) ^ BK_SWZ(k)))
    real pb[LOADS_BK];
#else
#define B_LVEC(k, v) ((k) * NVECS + (v))
    realN pb[LOADS_B];
#endif
#endif

    /* Prologue: the first slice into buffer 0 (none when KLIMIT leaves no slice; the test is
     * uniform over the work-group, so the barrier stays uniform too). */
#if KLIMIT
    if (KBEG < KEND) {
#endif
#if SA
    FOR_SLICE(LOADS_A, LA, als[0][idx] = A_SLICE(KBEG, idx);)
#endif
#if SB && DIRECT_B == 2
    FOR_SLICE(LOADS_BK, LBK, ((__local real *)bls[0])[BK_SLOT(idx)] = BK_AT(KBEG, idx);)
#elif SB
    FOR_SLICE(LOADS_B, LB, bls[0][idx] = B_SLICE(KBEG, idx);)
#endif
#if SA || SB
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
#if KLIMIT
    }
#endif

    int buf = 0;
    for (int kb = KBEG; kb < KEND; kb += KWG) {
        const int more = kb + KWG < KEND;
        /* Fetch the next slice into registers now; it is stored after the arithmetic. */
#if SA
        if (more) {
            FOR_SLICE(LOADS_A, LA, pa[r] = A_SLICE(kb + KWG, idx);)
        }
#endif
#if SB && DIRECT_B == 2
        if (more) {
            FOR_SLICE(LOADS_BK, LBK, pb[r] = BK_AT(kb + KWG, idx);)
        }
#elif SB
        if (more) {
            FOR_SLICE(LOADS_B, LB, pb[r] = B_SLICE(kb + KWG, idx);)
        }
#endif

        for (int k0 = 0; k0 < KWG; k0 += KWI) {
            UNROLL for (int kk = 0; kk < KWI; kk++) {
                const int k = k0 + kk;
                real apm[MWI];
                real bpm[NWI];
                UNROLL for (int i = 0; i < MWI / VWM; i++) {
#if SA
                    const realM v = als[buf][k * MVECS + tx + i * MDIMC];
#else
                    const realM v = A_VEC(kb + k, tx + i * MDIMC);
#endif
                    UNPACK_M((apm + i * VWM), v);
                }
                UNROLL for (int j = 0; j < NWI / VWN; j++) {
#if SB
                    const realN v = bls[buf][B_LVEC(k, ty + j * NDIMC)];
#else
                    const realN v = B_VEC(kb + k, ty + j * NDIMC);
#endif
                    UNPACK_N((bpm + j * VWN), v);
                }
                UNROLL for (int i = 0; i < MWI; i++)
                    UNROLL for (int j = 0; j < NWI; j++)
                        acc[i][j] = MADD(apm[i], bpm[j], acc[i][j]);
            }
        }

#if SA || SB
        /* The other buffer was last read before the previous barrier: safe to overwrite. */
        if (more) {
#if SA
            FOR_SLICE(LOADS_A, LA, als[buf ^ 1][idx] = pa[r];)
#endif
#if SB && DIRECT_B == 2
            FOR_SLICE(LOADS_BK, LBK, ((__local real *)bls[buf ^ 1])[BK_SLOT(idx)] = pb[r];)
#elif SB
            FOR_SLICE(LOADS_B, LB, bls[buf ^ 1][idx] = pb[r];)
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        buf ^= 1;
#endif
    }

    /* Store: work-item (tx, ty) writes VWM-wide vectors of column n of Cp. */
    const int m0 = GROUP_M * MWG;
    const int n0 = GROUP_N * NWG;
#if DIRECT_C
    /* ... or its elements of C, scaled: the same addresses, element by element (the caller's
     * offset and ldc need not keep vectors aligned); per column, its loads before its stores. */
    UNROLL for (int j = 0; j < NWI / VWN; j++)
        UNROLL for (int vj = 0; vj < VWN; vj++) {
            const int n = n0 + (ty + j * NDIMC) * VWN + vj;
            UNROLL for (int i = 0; i < MWI / VWM; i++)
                UNROLL for (int vi = 0; vi < VWM; vi++) {
                    const int m = m0 + (tx + i * MDIMC) * VWM + vi;
                    SCALE_C(m, n, acc[i * VWM + vi][j * VWN + vj]);
                }
            UNROLL for (int i = 0; i < MWI / VWM; i++)
                UNROLL for (int vi = 0; vi < VWM; vi++) {
                    const int m = m0 + (tx + i * MDIMC) * VWM + vi;
                    PUT_C(m, n, acc[i * VWM + vi][j * VWN + vj]);
                }
        }
#else
    /* Column by column; accumulating, each column's loads of Cp all come before its stores
     * (see the tensor-core store above), one column at a time so that the loads in flight
     * stay within a column's registers (all of the tile's at once spilled on AMD targets). */
    UNROLL for (int j = 0; j < NWI / VWN; j++) {
        UNROLL for (int vj = 0; vj < VWN; vj++) {
            const int n = n0 + (ty + j * NDIMC) * VWN + vj;
            realM cin[MWI / VWM];
            if (accumulate)
                UNROLL for (int i = 0; i < MWI / VWM; i++)
                    cin[i] = cp[(n * ldcp + m0 + (tx + i * MDIMC) * VWM) / VWM];
            UNROLL for (int i = 0; i < MWI / VWM; i++) {
                const int m = m0 + (tx + i * MDIMC) * VWM;
                const int idx = (n * ldcp + m) / VWM;
                realM v;
#if VWM == 1
                v = acc[i][j * VWN + vj];
#elif VWM == 2
                v = (realM)(acc[i * 2][j * VWN + vj], acc[i * 2 + 1][j * VWN + vj]);
#elif VWM == 4
                v = (realM)(acc[i * 4][j * VWN + vj], acc[i * 4 + 1][j * VWN + vj],
                            acc[i * 4 + 2][j * VWN + vj], acc[i * 4 + 3][j * VWN + vj]);
#else
                v = (realM)(acc[i * 8][j * VWN + vj], acc[i * 8 + 1][j * VWN + vj],
                            acc[i * 8 + 2][j * VWN + vj], acc[i * 8 + 3][j * VWN + vj],
                            acc[i * 8 + 4][j * VWN + vj], acc[i * 8 + 5][j * VWN + vj],
                            acc[i * 8 + 6][j * VWN + vj], acc[i * 8 + 7][j * VWN + vj]);
#endif
                if (accumulate) v += cin[i];
                cp[idx] = v;
            }
        }
    }
#endif /* DIRECT_C */
#endif /* MMA */
}
