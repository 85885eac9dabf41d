/*
 * trsm_inv.cl -- TRSM's diagonal blocks inverted on the device (src/core/trsm_dev.c builds it).
 *
 * The triangular matrix A (order k, stored triangle `upper`, implicit unit diagonal `unit`) is
 * cut into diagonal blocks of nb; block q is rows and columns q*nb .. q*nb + kb of A, kb =
 * min(nb, k - q*nb). The kernel writes inv(A_qq) to D + q*nb*nb, column-major with leading
 * dimension nb, as a full kb x kb matrix: zeros in the other triangle, so that the GEMM core can
 * read it as a general operand (with its transpose when the call has one).
 *
 * One work-item per column j of one block: the columns of an inverse are independent
 * solutions A_qq * x = e_j, so no work-item waits for another and no barrier is needed. Column
 * j is solved by column-oriented substitution (for a lower block: x_p is final once divided by
 * A(p, p), then x_i -= A(i, p) * x_p for the rows below it), reading A's columns contiguously
 * and keeping x in its place in D. Only the `upper` (resp. lower) triangle of A is read, the
 * diagonal only when not `unit`. Work per block is kb^3 / 6 multiply-adds, against the m*n*k
 * of the solve that uses it: a few percent at most for nb << k.
 *
 * Arguments: A and a_off (element of A(0, 0)), lda, k, nb, q0, upper, unit, D. Launched over
 * (q1 - q0) * nb work-items for blocks q0 .. q1 - 1 (rounded up to the work-group size; the
 * extra ones return): all ceil(k / nb) blocks, or a part of them whose rows of A have arrived
 * (the host path's first strip starts on the first half's blocks).
 *
 * trsm_invert_wg is the same substitution with a work-group per column (what core/trsm_dev.c
 * launches when x fits local memory): x in local memory, the work-items splitting each step's
 * row updates (coalesced reads of A's column), one barrier per step. A column then takes kb
 * steps of a few multiply-adds instead of kb^2/2 dependent ones on one work-item, and the
 * launch has k * wg work-items instead of k: the inversion of nb = 512 blocks costs tens of
 * microseconds on a large GPU instead of milliseconds.
 */

#ifndef PRECISION
#define PRECISION 32
#endif
#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

__kernel void trsm_invert(const __global real *restrict A, const ulong a_off, const ulong lda,
                          const ulong k, const ulong nb, const ulong q0, const int upper,
                          const int unit, __global real *restrict D)
{
    const ulong g = get_global_id(0);
    const ulong q = q0 + g / nb, j = g % nb;
    if (q * nb >= k) return;
    const ulong kb = min(nb, k - q * nb);
    if (j >= kb) return;
    const __global real *a = A + a_off + q * nb + q * nb * lda; /* A_qq(0, 0) */
    __global real *x = D + q * nb * nb + j * nb;                 /* column j of inv(A_qq) */
    for (ulong i = 0; i < kb; i++) x[i] = i == j ? (real)1 : (real)0;
    if (!upper) {
        /* forward: rows j .. kb - 1 */
        for (ulong p = j; p < kb; p++) {
            const __global real *ap = a + p * lda;
            real xp = x[p];
            if (!unit) xp /= ap[p];
            x[p] = xp;
            for (ulong i = p + 1; i < kb; i++) x[i] -= ap[i] * xp;
        }
    } else {
        /* backward: rows j .. 0 */
        for (ulong r = 0; r <= j; r++) {
            const ulong p = j - r;
            const __global real *ap = a + p * lda;
            real xp = x[p];
            if (!unit) xp /= ap[p];
            x[p] = xp;
            for (ulong i = 0; i < p; i++) x[i] -= ap[i] * xp;
        }
    }
}

/* One work-group per column j of block q (group g = (q - q0) * nb + j); x (kb elements) in local
 * memory. At step p every work-item reads x[p] (final once divided by the diagonal), work-item
 * 0 stores it to D, and the rows still open are updated by all; no row is read and written in
 * the same step, one barrier ends it. Launched over (q1 - q0) * nb groups of any size. */
__kernel void trsm_invert_wg(const __global real *restrict A, const ulong a_off,
                             const ulong lda, const ulong k, const ulong nb, const ulong q0,
                             const int upper, const int unit, __global real *restrict D,
                             __local real *x)
{
    const ulong g = get_group_id(0), l = get_local_id(0), wg = get_local_size(0);
    const ulong q = q0 + g / nb, j = g % nb;
    if (q * nb >= k) return;
    const ulong kb = min(nb, k - q * nb);
    if (j >= kb) return; /* the whole group: j is the group's */
    const __global real *a = A + a_off + q * nb + q * nb * lda; /* A_qq(0, 0) */
    __global real *d = D + q * nb * nb + j * nb;                 /* column j of inv(A_qq) */
    for (ulong i = l; i < kb; i += wg) x[i] = i == j ? (real)1 : (real)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!upper) {
        for (ulong p = j; p < kb; p++) {
            const __global real *ap = a + p * lda;
            real xp = x[p];
            if (!unit) xp /= ap[p];
            for (ulong i = p + 1 + l; i < kb; i += wg) x[i] -= ap[i] * xp;
            if (l == 0) d[p] = xp;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (ulong i = l; i < j; i += wg) d[i] = (real)0;
    } else {
        for (ulong r = 0; r <= j; r++) {
            const ulong p = j - r;
            const __global real *ap = a + p * lda;
            real xp = x[p];
            if (!unit) xp /= ap[p];
            for (ulong i = l; i < p; i += wg) x[i] -= ap[i] * xp;
            if (l == 0) d[p] = xp;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (ulong i = j + 1 + l; i < kb; i += wg) d[i] = (real)0;
    }
}
