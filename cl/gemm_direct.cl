/*
 * gemm_direct.cl -- the direct GEMM kernel of clhgemm: C := alpha * op(A) * op(B) + beta * C in
 * one launch, on the caller's matrices as they are (column-major view; src/core/gemm.c maps a
 * row-major call by swapping the operands, as for the packed kernel).
 *
 * For small and thin products the packed path's copies (pack A, pack B, write-back) and their
 * launches cost more than they save. This kernel reads op(A) and op(B) in place, with their
 * transposes (trans_a, trans_b: uniform branches, one program for all four), leading
 * dimensions and offsets, bounds-checked against m, n, k (no padding copies: a tile past the
 * edge loads zeros), and applies alpha and beta itself; with beta = 0 it never reads C, so NaN
 * in C does not propagate.
 *
 * A work-group of MDIMC x NDIMC work-items owns an MWG x NWG tile of C and walks k in KWG-deep
 * steps: every work-item helps load the A tile (KWG x MWG) and the B tile (KWG x NWG) into local
 * memory, the loads mapped so that neighbouring work-items read neighbouring addresses of the
 * matrix whichever way it is stored, then each accumulates its (MWG/MDIMC) x (NWG/NDIMC)
 * results at rows tx + i*MDIMC and columns ty + j*NDIMC (neighbouring work-items: neighbouring
 * local-memory words and neighbouring elements of C). The local rows are padded by one element.
 * KWI unrolls the inner k loop. Parameters come from src/kernels/params.c
 * (chg_gemm_direct_source); defaults let the file compile on its own.
 */

#ifndef PRECISION
#define PRECISION 32
#endif
#ifndef MWG
#define MWG 32
#endif
#ifndef NWG
#define NWG 32
#endif
#ifndef KWG
#define KWG 16
#endif
#ifndef MDIMC
#define MDIMC 8
#endif
#ifndef NDIMC
#define NDIMC 8
#endif
#ifndef KWI
#define KWI 2
#endif

#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

#if PRECISION == 64 && defined(CLHGEMM_FEATURE_FMA_F64)
#define MADD(x, y, z) fma(x, y, z)
#elif PRECISION == 32 && defined(CLHGEMM_FEATURE_FMA_F32)
#define MADD(x, y, z) fma(x, y, z)
#else
#define MADD(x, y, z) ((x) * (y) + (z))
#endif

#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define THREADS (MDIMC * NDIMC)
#define LDA_L (MWG + 1)
#define LDB_L (NWG + 1)

/* op(X)(r, p) for a matrix X at x (offset applied) of leading dimension ld: X(r, p) stored at
 * x[r + p*ld] when not transposed, x[p + r*ld] when transposed; zero outside rows x cols. */
inline real load_op(const __global real *restrict x, const int trans, const ulong ld, const int r,
                    const int p, const int rows, const int depth)
{
    if (r >= rows || p >= depth) return (real)0;
    return trans ? x[(ulong)r * ld + (ulong)p] : x[(ulong)p * ld + (ulong)r];
}

/* Loads the tile of op(X) rows [r0, r0 + W) and k [p0, p0 + KWG) into t[p * LD + r]. Along
 * the stored contiguous direction consecutive work-items take consecutive elements. */
#define LOAD_TILE(t, W, LD, x, trans, ld, r0, p0, rows, depth)                                 \
    do {                                                                                        \
        for (int idx = tid; idx < (W) * KWG; idx += THREADS) {                                  \
            const int r = (trans) ? idx / KWG : idx % (W);                                      \
            const int p = (trans) ? idx % KWG : idx / (W);                                      \
            t[p * (LD) + r] = load_op(x, trans, ld, (r0) + r, (p0) + p, rows, depth);           \
        }                                                                                       \
    } while (0)

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
void clhgemm_gemm_direct(const int m, const int n, const int k, const real alpha,
                         const __global real *restrict a, const ulong aoff, const ulong lda,
                         const int trans_a, const __global real *restrict b, const ulong boff,
                         const ulong ldb, const int trans_b, const real beta,
                         __global real *restrict c, const ulong coff, const ulong ldc)
{
    __local real al[KWG * LDA_L];
    __local real bl[KWG * LDB_L];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int tid = ty * MDIMC + tx;
    const int i0 = get_group_id(0) * MWG, j0 = get_group_id(1) * NWG;
    const __global real *restrict ap = a + aoff;
    /* op(B)(p, j): rows of op(B)^T along j, so the tile helper sees X = op(B)^T, whose
     * "transposed" storage is B not transposed */
    const __global real *restrict bp = b + boff;
    real acc[MWI][NWI];
#pragma unroll
    for (int i = 0; i < MWI; i++)
#pragma unroll
        for (int j = 0; j < NWI; j++) acc[i][j] = (real)0;

    for (int p0 = 0; p0 < k; p0 += KWG) {
        LOAD_TILE(al, MWG, LDA_L, ap, trans_a, lda, i0, p0, m, k);
        LOAD_TILE(bl, NWG, LDB_L, bp, !trans_b, ldb, j0, p0, n, k);
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll KWI
        for (int p = 0; p < KWG; p++) {
            real av[MWI], bv[NWI];
#pragma unroll
            for (int i = 0; i < MWI; i++) av[i] = al[p * LDA_L + tx + i * MDIMC];
#pragma unroll
            for (int j = 0; j < NWI; j++) bv[j] = bl[p * LDB_L + ty + j * NDIMC];
#pragma unroll
            for (int i = 0; i < MWI; i++)
#pragma unroll
                for (int j = 0; j < NWI; j++) acc[i][j] = MADD(av[i], bv[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    __global real *restrict cp = c + coff;
#pragma unroll
    for (int j = 0; j < NWI; j++) {
        const int cj = j0 + ty + j * NDIMC;
        if (cj >= n) continue;
#pragma unroll
        for (int i = 0; i < MWI; i++) {
            const int ci = i0 + tx + i * MDIMC;
            if (ci >= m) continue;
            __global real *restrict e = cp + (ulong)cj * ldc + (ulong)ci;
            /* beta = 0: C is only written (BLAS: never read, NaN in C does not propagate) */
            *e = beta == (real)0 ? alpha * acc[i][j] : alpha * acc[i][j] + beta * *e;
        }
    }
}
