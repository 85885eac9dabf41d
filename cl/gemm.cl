/*
 * gemm.cl -- the portable GEMM kernel of clhgemm: Cp = Ap * Bp (+ Cp when accumulating).
 *
 * The operands were packed by the generated copy kernels (src/codegen.c) into the layout this
 * kernel wants, zero-padded to whole tiles, so the kernel has no bounds checks and no
 * transposes:
 *   Ap  block-major [Mp/MWG][Kp][MWG]: a work-group's A panel is one contiguous stream,
 *   Bp  block-major [Np/NWG][Kp][NWG],
 *   Cp  column-major, leading dimension ldcp (= Mp), alpha/beta applied later by write-back.
 * aoff/boff (elements, multiples of VWM/VWN) select a panel inside a larger buffer: the host
 * pipeline keeps a whole band of packed A panels resident and walks it slice by slice.
 * A work-group of MDIMC x NDIMC work-items owns an MWG x NWG tile of Cp. Work-item (tx, ty)
 * owns the vectors tx + i*MDIMC of the tile's MWG/VWM A-vectors and ty + j*NDIMC of its NWG/VWN
 * B-vectors, so neighbouring work-items touch neighbouring addresses in global memory, in local
 * memory, and in Cp. With SA/SB the panels are staged through local memory, double buffered:
 * the next KWG slice is loaded into registers before the current one is consumed and stored to
 * the other buffer afterwards, so one barrier per slice suffices and the global latency hides
 * behind the arithmetic. Without SA/SB (CPU devices) the work-items read the packed panels
 * directly. Feature macros (CLHGEMM_FEATURE_*) come from src/device.c; parameters from
 * src/params.c. Every parameter has a default below so the file compiles on its own.
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

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
void clhgemm_gemm(const int kp, const int ldcp,
                  __global const realM *restrict ap, const ulong aoff,
                  __global const realN *restrict bp, const ulong boff,
                  __global realM *cp,
                  const int accumulate)
{
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tid = tx + ty * MDIMC;

    /* This work-group's panels. Workspace buffers hold < 2^31 elements (src/gemm.c), so int
     * arithmetic is exact here. */
    const __global realM *ag = ap + aoff / VWM + get_group_id(0) * (kp * MVECS);
    const __global realN *bg = bp + boff / VWN + get_group_id(1) * (kp * NVECS);

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
    realN pb[LOADS_B];
#endif

    /* Prologue: slice 0 into buffer 0. */
#if SA
    UNROLL for (int r = 0; r < LOADS_A; r++) {
        const int idx = tid + r * NTHREADS;
        if (LA % NTHREADS == 0 || idx < LA) als[0][idx] = ag[idx];
    }
#endif
#if SB
    UNROLL for (int r = 0; r < LOADS_B; r++) {
        const int idx = tid + r * NTHREADS;
        if (LB % NTHREADS == 0 || idx < LB) bls[0][idx] = bg[idx];
    }
#endif
#if SA || SB
    barrier(CLK_LOCAL_MEM_FENCE);
#endif

    int buf = 0;
    for (int kb = 0; kb < kp; kb += KWG) {
        const int more = kb + KWG < kp;
        /* Fetch the next slice into registers now; it is stored after the arithmetic. */
#if SA
        if (more) {
            UNROLL for (int r = 0; r < LOADS_A; r++) {
                const int idx = tid + r * NTHREADS;
                if (LA % NTHREADS == 0 || idx < LA) pa[r] = ag[(kb + KWG) * MVECS + idx];
            }
        }
#endif
#if SB
        if (more) {
            UNROLL for (int r = 0; r < LOADS_B; r++) {
                const int idx = tid + r * NTHREADS;
                if (LB % NTHREADS == 0 || idx < LB) pb[r] = bg[(kb + KWG) * NVECS + idx];
            }
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
                    const realM v = ag[(kb + k) * MVECS + tx + i * MDIMC];
#endif
                    UNPACK_M((apm + i * VWM), v);
                }
                UNROLL for (int j = 0; j < NWI / VWN; j++) {
#if SB
                    const realN v = bls[buf][k * NVECS + ty + j * NDIMC];
#else
                    const realN v = bg[(kb + k) * NVECS + ty + j * NDIMC];
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
            UNROLL for (int r = 0; r < LOADS_A; r++) {
                const int idx = tid + r * NTHREADS;
                if (LA % NTHREADS == 0 || idx < LA) als[buf ^ 1][idx] = pa[r];
            }
#endif
#if SB
            UNROLL for (int r = 0; r < LOADS_B; r++) {
                const int idx = tid + r * NTHREADS;
                if (LB % NTHREADS == 0 || idx < LB) bls[buf ^ 1][idx] = pb[r];
            }
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        buf ^= 1;
#endif
    }

    /* Store: work-item (tx, ty) writes VWM-wide vectors of column n of Cp. */
    const int m0 = get_group_id(0) * MWG;
    const int n0 = get_group_id(1) * NWG;
    UNROLL for (int j = 0; j < NWI / VWN; j++) {
        UNROLL for (int vj = 0; vj < VWN; vj++) {
            const int n = n0 + (ty + j * NDIMC) * VWN + vj;
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
                if (accumulate) v += cp[idx];
                cp[idx] = v;
            }
        }
    }
}
