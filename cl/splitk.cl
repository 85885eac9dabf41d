/*
 * splitk.cl -- the second pass of a split-K GEMM (src/core/gemm.c): C := alpha * sum_s Cp_s +
 * beta * C over the m x n block, the partial products Cp_s of the slices (cl/gemm.cl SPLITK)
 * stored one after another, cslice elements apart, each column-major with leading dimension
 * ldcp. The slices are summed in order 0, 1, ... (no atomics: the same inputs give the same
 * bits). BETA0 1: beta = 0, C is only written (never read, so NaN in C does not propagate).
 * PRECISION 32 / 64 from the host; defaults let the file compile on its own.
 */
#ifndef PRECISION
#define PRECISION 32
#endif
#ifndef BETA0
#define BETA0 0
#endif
#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

__kernel void clhgemm_splitk_reduce(const int m, const int n, const int ldcp, const int slices,
                                    const ulong cslice, __global const real *restrict cp,
                                    __global real *restrict c, const ulong coff, const ulong ldc,
                                    const real alpha, const real beta)
{
    const int i = get_global_id(0), j = get_global_id(1);
    if (i >= m || j >= n) return;
    const __global real *p = cp + (ulong)j * ldcp + i;
    real sum = p[0];
    for (int s = 1; s < slices; s++) sum += p[s * cslice];
    __global real *cij = c + coff + (ulong)j * ldc + i;
#if BETA0
    *cij = alpha * sum;
#else
    *cij = alpha * sum + beta * *cij;
#endif
}
