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
 * Arguments: A and a_off (element of A(0, 0)), lda, k, nb, q0, upper, unit, D (and for
 * trsm_invert_panel the count of blocks and its local memory). Launched over
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
 *
 * CPLX 1: A and D hold complex elements (interleaved pairs, offsets and leading dimensions in
 * them) for the complex TRSM; only these two kernels (elem, EMUL, EDIV) take them, the blocked
 * inversion below stays real (core/trsm_dev.c inverts complex blocks by columns).
 */

#ifndef PRECISION
#define PRECISION 32
#endif
#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#else
typedef float real;
typedef float2 real2;
#endif
#ifndef CPLX
#define CPLX 0
#endif
#if CPLX
/* complex elements: the product as Fortran's, the quotient by Smith's algorithm (no overflow in
 * |b|^2 for large diagonals) */
typedef real2 elem;
#define EZERO ((elem)(0, 0))
#define EONE ((elem)(1, 0))
#define EMUL(a, b) ((elem)((a).x * (b).x - (a).y * (b).y, (a).x * (b).y + (a).y * (b).x))
static elem ediv(const elem a, const elem b)
{
    if (fabs(b.x) >= fabs(b.y)) {
        const real r = b.y / b.x, d = b.x + b.y * r;
        return (elem)((a.x + a.y * r) / d, (a.y - a.x * r) / d);
    }
    const real r = b.x / b.y, d = b.x * r + b.y;
    return (elem)((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}
#define EDIV(a, b) ediv(a, b)
#else
typedef real elem;
#define EZERO ((real)0)
#define EONE ((real)1)
#define EMUL(a, b) ((a) * (b))
#define EDIV(a, b) ((a) / (b))
#endif

/* Column j of the inverse of the order-n triangle at a (leading dimension lda) into x (n rows),
 * substituting in place; only the stored triangle read, the diagonal only when not unit. */
static void subst_column(const __global elem *a, const ulong lda, __global elem *x,
                         const ulong j, const ulong n, const int upper, const int unit)
{
    for (ulong i = 0; i < n; i++) x[i] = i == j ? EONE : EZERO;
    if (!upper) {
        /* forward: rows j .. n - 1 */
        for (ulong p = j; p < n; p++) {
            const __global elem *ap = a + p * lda;
            elem xp = x[p];
            if (!unit) xp = EDIV(xp, ap[p]);
            x[p] = xp;
            for (ulong i = p + 1; i < n; i++) x[i] -= EMUL(ap[i], xp);
        }
    } else {
        /* backward: rows j .. 0 */
        for (ulong r = 0; r <= j; r++) {
            const ulong p = j - r;
            const __global elem *ap = a + p * lda;
            elem xp = x[p];
            if (!unit) xp = EDIV(xp, ap[p]);
            x[p] = xp;
            for (ulong i = 0; i < p; i++) x[i] -= EMUL(ap[i], xp);
        }
    }
}

__kernel void trsm_invert(const __global elem *restrict A, const ulong a_off, const ulong lda,
                          const ulong k, const ulong nb, const ulong q0, const int upper,
                          const int unit, __global elem *restrict D)
{
    const ulong g = get_global_id(0);
    const ulong q = q0 + g / nb, j = g % nb;
    if (q * nb >= k) return;
    const ulong kb = min(nb, k - q * nb);
    if (j >= kb) return;
    /* A_qq(0, 0); column j of inv(A_qq) */
    subst_column(A + a_off + q * nb * (lda + 1), lda, D + q * nb * nb + j * nb, j, kb, upper, unit);
}

/* One work-group per column j of block q (group g = (q - q0) * nb + j); x (kb elements) in local
 * memory. At step p every work-item reads x[p] (final once divided by the diagonal), work-item
 * 0 stores it to D, and the rows still open are updated by all; no row is read and written in
 * the same step, one barrier ends it. Launched over (q1 - q0) * nb groups of any size. */
__kernel void trsm_invert_wg(const __global elem *restrict A, const ulong a_off,
                             const ulong lda, const ulong k, const ulong nb, const ulong q0,
                             const int upper, const int unit, __global elem *restrict D,
                             __local elem *x)
{
    const ulong g = get_group_id(0), l = get_local_id(0), wg = get_local_size(0);
    const ulong q = q0 + g / nb, j = g % nb;
    if (q * nb >= k) return;
    const ulong kb = min(nb, k - q * nb);
    if (j >= kb) return; /* the whole group: j is the group's */
    const __global elem *a = A + a_off + q * nb + q * nb * lda; /* A_qq(0, 0) */
    __global elem *d = D + q * nb * nb + j * nb;                 /* column j of inv(A_qq) */
    for (ulong i = l; i < kb; i += wg) x[i] = i == j ? EONE : EZERO;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!upper) {
        for (ulong p = j; p < kb; p++) {
            const __global elem *ap = a + p * lda;
            elem xp = x[p];
            if (!unit) xp = EDIV(xp, ap[p]);
            for (ulong i = p + 1 + l; i < kb; i += wg) x[i] -= EMUL(ap[i], xp);
            if (l == 0) d[p] = xp;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (ulong i = l; i < j; i += wg) d[i] = EZERO;
    } else {
        for (ulong r = 0; r <= j; r++) {
            const ulong p = j - r;
            const __global elem *ap = a + p * lda;
            elem xp = x[p];
            if (!unit) xp = EDIV(xp, ap[p]);
            for (ulong i = l; i < p; i += wg) x[i] -= EMUL(ap[i], xp);
            if (l == 0) d[p] = xp;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (ulong i = j + 1 + l; i < kb; i += wg) d[i] = EZERO;
    }
}

/* ---- the blocked inversion: tiles of TS, then panels of IC columns ---------------------------
 *
 * What core/trsm_dev.c launches where nb > TS and a panel fits local memory: the substitution
 * above runs kb dependent steps per column, each reading a column of A from global memory
 * (about 1 ms for DTRSM n = 8192's sixteen blocks of 512 on an H100, latency-bound). Here:
 *
 *   trsm_invert_tiles  the TS x TS diagonal tiles of every block inverted (a work-group per
 *                      tile, a work-item per column, TS steps at most in registers), written
 *                      to their places in D --
 *                      the diagonal tiles of inv(A_qq) are the inverses of A_qq's diagonal
 *                      tiles;
 *   trsm_invert_panel  a work-group per IC columns j0 .. j0 + IC of one block (IC divides TS,
 *                      so they lie in one tile t0), the columns in local memory: tile by tile
 *                      from t0 in the substitution's direction, x_p := inv(A_pp) * x_p (the
 *                      tile's inverse from D), then every row beyond tile p is updated with
 *                      tile p's TS columns of A at once (x_i -= A(i, p) * x_p). A step of a
 *                      column is one tile (TS rows) instead of one row, the work-group's IC
 *                      columns share each read of A, and the reads of one step are independent.
 *
 * Both read only the stored triangle of A (the diagonal when not unit). trsm_invert_panel
 * writes the columns' rows outside tile t0 (zeros on the other side), never a diagonal tile,
 * which trsm_invert_tiles wrote and the panels read. TS and IC are set by the host (defaults
 * below). On the H100 (2026-11-27, nb = 512, k = 8192): ~55 us of tiles (~39 since the tiles
 * are a work-group's each) and ~205 us of panels against ~940 us by columns. Tried there and
 * slower: tiles of 64 (the tiles' 32 -> 64 steps cost more than the panels' halved steps save),
 * the tile's inverse in local memory with its loops unrolled, two barriers a tile, and the
 * columns in registers (panel 280-340 us). */
#ifndef TS
#define TS 32
#endif
#ifndef UNROLL
#define UNROLL _Pragma("unroll")
#endif
#ifndef IC
#define IC 8
#endif

/* A work-group of TS work-items per tile: group ((q - q0) * tpb + t), tpb = ceil(nb / TS), is
 * tile t of block q; work-item j computes the tile's column j of the inverse. The tile's stored
 * triangle is read once into local memory (coalesced, zeros elsewhere), and each column is
 * substituted in registers over the unrolled TS steps (a tile is at most TS rows), then
 * written to its place in D. On the H100 (2026-11-27, clprof, TRSM s and d) it takes 25 us at
 * n = 1024 (32 tiles) and 39 us at 8192 (256 tiles) against 47 and 60 us for the substitution
 * in global memory it replaces (a work-item per column, a dependent chain of TS^2/2 loads and
 * stores); no return before the barrier: PoCL 3.1 corrupted memory with FP64 tiles of 4
 * (nb = 10, 11) when whole groups returned before it. */
__kernel void trsm_invert_tiles(const __global real *restrict A, const ulong a_off,
                                const ulong lda, const ulong k, const ulong nb, const ulong q0,
                                const int upper, const int unit, __global real *restrict D)
{
    __local real at[TS][TS + 1]; /* at[c][r]: the tile's A(r, c) */
    const ulong tpb = (nb + TS - 1) / TS, grp = get_group_id(0);
    const ulong q = q0 + grp / tpb, r0 = grp % tpb * TS;
    const int j = (int)get_local_id(0);
    /* the group's tile rows (0: beyond A; no return before the barrier, whatever the
     * compiler knows of uniformity) */
    const ulong kb = q * nb < k ? min(nb, k - q * nb) : 0;
    const int ts = r0 < kb ? (int)min((ulong)TS, kb - r0) : 0;
    const __global real *a = A + a_off + (q * nb + r0) * (lda + 1); /* the tile's (0, 0) */
    for (int c = 0; c < TS; c++) {
        /* only the stored triangle, the diagonal only when not unit */
        const int tri = upper ? j < c : j > c;
        const int in = c < ts && j < ts && (tri || (j == c && !unit));
        at[c][j] = in ? a[c * lda + j] : (real)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (j < ts) {
        real x[TS];
        UNROLL for (int i = 0; i < TS; i++) x[i] = i == j ? (real)1 : (real)0;
        if (!upper) {
            /* forward: rows j .. ts - 1 */
            UNROLL for (int p = 0; p < TS; p++) {
                if (p >= j && p < ts) {
                    real xp = x[p];
                    if (!unit) xp /= at[p][p];
                    x[p] = xp;
                    UNROLL for (int i = p + 1; i < TS; i++) x[i] -= at[p][i] * xp;
                }
            }
        } else {
            /* backward: rows j .. 0 */
            UNROLL for (int p = TS - 1; p >= 0; p--) {
                if (p <= j) {
                    real xp = x[p];
                    if (!unit) xp /= at[p][p];
                    x[p] = xp;
                    UNROLL for (int i = 0; i < p; i++) x[i] -= at[p][i] * xp;
                }
            }
        }
        __global real *d = D + q * nb * nb + (r0 + j) * nb + r0; /* column j of the tile */
        UNROLL for (int i = 0; i < TS; i++)
            if (i < ts) d[i] = x[i];
    }
}

/* Group g = cg * nq + (q - q0), nq = q1 - q0 blocks: columns cg * IC .. of block q (the groups
 * of a block's first columns, which substitute the most tiles, first); any work-group size.
 * x: (nb + TS) * IC elements of local memory (the columns, row-major by IC, then a tile's worth
 * of scratch). */
__kernel void trsm_invert_panel(const __global real *restrict A, const ulong a_off,
                                const ulong lda, const ulong k, const ulong nb, const ulong q0,
                                const int upper, const int unit, __global real *restrict D,
                                const ulong nq, __local real *x)
{
    const ulong g = get_group_id(0), l = get_local_id(0), wg = get_local_size(0);
    const ulong q = q0 + g % nq, j0 = g / nq * IC;
    if (q * nb >= k) return;
    const ulong kb = min(nb, k - q * nb);
    if (j0 >= kb) return; /* the whole group */
    const ulong nc = min((ulong)IC, kb - j0), t0 = j0 / TS, nt = (kb + TS - 1) / TS;
    const __global real *a = A + a_off + q * nb * (lda + 1); /* A_qq(0, 0) */
    __global real *d = D + q * nb * nb;
    __local real *tmp = x + kb * IC;
    for (ulong e = l; e < kb * IC; e += wg) x[e] = e / IC == j0 + e % IC ? (real)1 : (real)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong s = 0; s < (upper ? t0 + 1 : nt - t0); s++) {
        const ulong p = upper ? t0 - s : t0 + s, pr0 = p * TS, pts = min((ulong)TS, kb - pr0);
        /* x_p := inv(A_pp) * x_p (the tile's inverse, zeros in its other triangle) */
        const __global real *dt = d + pr0 * (nb + 1);
        for (ulong e = l; e < pts * IC; e += wg) {
            const ulong i = e / IC, c = e % IC;
            real v = (real)0;
            for (ulong r = 0; r < pts; r++) v += dt[i + r * nb] * x[(pr0 + r) * IC + c];
            tmp[e] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (ulong e = l; e < pts * IC; e += wg) {
            const ulong i = e / IC, c = e % IC;
            x[(pr0 + i) * IC + c] = tmp[e];
            if (s > 0 && c < nc) d[pr0 + i + (j0 + c) * nb] = tmp[e];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* the rows beyond tile p: x_i -= A(i, pr0 .. pr0 + pts) * x_p */
        const ulong i0 = upper ? 0 : pr0 + pts, i1 = upper ? pr0 : kb;
        for (ulong i = i0 + l; i < i1; i += wg) {
            real acc[IC];
            for (int c = 0; c < IC; c++) acc[c] = (real)0;
            for (ulong r = 0; r < pts; r++) {
                const real av = a[i + (pr0 + r) * lda];
                for (int c = 0; c < IC; c++) acc[c] += av * x[(pr0 + r) * IC + c];
            }
            for (int c = 0; c < IC; c++) x[i * IC + c] -= acc[c];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* the other side of tile t0: zeros */
    const ulong z0 = upper ? (t0 + 1) * TS : 0, z1 = upper ? kb : t0 * TS;
    for (ulong e = l; z1 > z0 && e < (z1 - z0) * nc; e += wg)
        d[z0 + e % (z1 - z0) + (j0 + e / (z1 - z0)) * nb] = (real)0;
}
