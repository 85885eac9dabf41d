/*
 * lapack.cl -- the factorizations' small device kernels (src/lapack/fact_update.c builds them).
 *
 * laswp       LU's row interchanges on a range of columns: for s = s0 .. s1 - 1 in order (or
 *             in reverse: getrs with a transposed A), rows s and piv[s] of every column are
 *             exchanged (0-based rows of the view,
 *             piv[s] >= s as getrf gives them; element (i, j) at off + (i - rbase) * rs +
 *             j * cs, rbase the view row where the block starts, so a view stored transposed
 *             swaps contiguous rows). One work-item per column, the
 *             interchanges in order: a column's swaps depend on each other, different columns'
 *             never. Column-major rows are strided, so a row swap cannot be coalesced; the
 *             factorization's interchanges move about n^2 elements in all, a few per cent of
 *             its time at most.
 * unit_lower  V of a QR panel for the devices' block-reflector update: dst(i, j) = src(i, j)
 *             below the diagonal, 1 on it, 0 above (the panel's R is there), rows x w (both
 *             addressed through row and column strides).
 * transpose   dst(j, i) = src(i, j) for a rows x cols matrix (row-major callers of the
 *             device-buffer routines), through a local tile so that both sides are coalesced.
 *
 * Offsets and leading dimensions are in elements. Compiles alone (defaults below).
 */

#ifndef PRECISION
#define PRECISION 64
#endif
#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif
#ifndef TT
#define TT 16 /* transpose tile (work-group TT x TT) */
#endif

__kernel void laswp(__global real *a, const ulong off, const ulong rs, const ulong cs,
                    const uint ncols, const uint s0, const uint s1, __global const int *piv,
                    const int forward, const uint rbase)
{
    const uint j = get_global_id(0);
    if (j >= ncols) return;
    __global real *col = a + off + (ulong)j * cs;
    for (uint q = 0; q < s1 - s0; q++) {
        const uint s = forward ? s0 + q : s1 - 1 - q;
        const ulong p = (ulong)piv[s];
        if (p != s) {
            const ulong x = (ulong)(s - rbase) * rs, y = (p - rbase) * rs;
            const real t = col[x];
            col[x] = col[y];
            col[y] = t;
        }
    }
}

__kernel void unit_lower(__global const real *src, const ulong soff, const ulong srs,
                         const ulong scs, __global real *dst, const ulong doff, const ulong drs,
                         const ulong dcs, const uint rows, const uint w)
{
    const uint i = get_global_id(0), j = get_global_id(1);
    if (i >= rows || j >= w) return;
    const real v = i > j ? src[soff + i * srs + j * scs] : (i == j ? (real)1 : (real)0);
    dst[doff + i * drs + j * dcs] = v;
}

__kernel __attribute__((reqd_work_group_size(TT, TT, 1)))
void transpose(__global const real *src, const ulong soff, const ulong sld, __global real *dst,
               const ulong doff, const ulong dld, const uint rows, const uint cols)
{
    __local real tile[TT][TT + 1];
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint i0 = get_group_id(0) * TT, j0 = get_group_id(1) * TT;
    /* read src rows i0 + lx of column j0 + ly (coalesced along the column) */
    if (i0 + lx < rows && j0 + ly < cols) tile[ly][lx] = src[soff + (ulong)(j0 + ly) * sld + i0 + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* write dst row j0 + lx of column i0 + ly: dst(j, i) = src(i, j) */
    if (j0 + lx < cols && i0 + ly < rows) dst[doff + (ulong)(i0 + ly) * dld + j0 + lx] = tile[lx][ly];
}
