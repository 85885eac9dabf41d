/*
 * tiny.c -- the small-matrix GEMM of the CPU route (tiny.h).
 *
 * Column-major view: a row-major call is the column-major product C^T = op(B)^T op(A)^T. C's m
 * rows go in panels of MR rows (MR elements: one vector of 64, 32 or 16 bytes, the widest m
 * fills); a panel of op(A) (MR x k) is read in place from an untransposed A (column l at
 * a + r0 + l*lda) or packed into `ap` on the stack; each block of NR columns of C is one
 * micro-kernel: NR x MR accumulators, for l < k: acc[j] += P(:, l) * op(B)(l, j), loops of
 * constant length over the panel that the compiler keeps in vector registers; C gets
 * alpha*acc + beta*C at the end (C not read when beta == 0). When m is not a multiple of MR the
 * last panel ends at row m and overlaps the one before, whose rows it keeps by a bitwise select
 * of what it loaded; only m below the narrowest width pads a panel with zeros (never stored).
 * NaN and Inf in A or B reach C as in any product (nothing is skipped for zeros).
 */
#include "cpu/tiny.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/util.h"

/* x86-64 with glibc: one clone per ISA level, chosen by an ifunc when the library loads. Not
 * under ThreadSanitizer: the ifunc resolvers run while the library is relocated, before the TSan
 * runtime is up, and every TSan test crashed at start (SIGSEGV, no output); the TSan build runs
 * the baseline clone's code. */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && \
    !defined(__SANITIZE_THREAD__)
#define TINY_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TINY_CLONES
#endif
/* ISO C mode (-std=c11) turns contraction off; a*b + c as one FMA is what every BLAS does. And
 * no loop of a few elements made into a call of memcpy or memset. */
#if defined(__GNUC__) && !defined(__clang__)
#define TINY_OPT __attribute__((optimize("fp-contract=fast", "no-tree-loop-distribute-patterns")))
#else
#define TINY_OPT
#endif

#define NR 4 /* columns of C per micro-kernel */
/* Inlined into the clones, so that each is compiled for the clone's instruction set. */
#if defined(__GNUC__)
#define TINY_INLINE static inline __attribute__((always_inline))
#else
#define TINY_INLINE static inline
#endif

/* A call in the column-major view (transposes 0/1), what every panel reads. */
typedef struct tiny_args_s {
    int ta, tb, n, k, lda, ldb, ldc;
    double alpha, beta;
    const void *a, *b;
    void *c;
} tiny_args_t;
/* The loops over a block's NR columns unrolled (their accumulators then stay in registers). */
#if defined(__GNUC__) && !defined(__clang__)
#define TINY_UNROLL _Pragma("GCC unroll 4")
#else
#define TINY_UNROLL
#endif

/* The micro-kernel: C(0 .. rows, j0 .. j0+nr) := alpha*P*op(B)(:, j0 .. j0+nr) + beta*C, where
 * P (MR x k) is a panel of op(A) whose column l starts at ap + l*as (as = MR packed, lda read in
 * place), nr a constant after inlining (NR or 1), op(B)(l, j) = b[l*sl + j*sj]. With GCC or
 * Clang the accumulators are vectors of MR elements (vector_size: one register on AVX-512, two
 * on AVX2, four on SSE2), two sets (even and odd l) so that 2*nr independent chains of FMAs hide
 * their latency; elsewhere plain arrays that the compiler may vectorize. */
#if defined(__GNUC__)
#define TINY_BLOCK(T, MR, PFX, IT)                                                                       \
    typedef T PFX##_v __attribute__((vector_size(MR * sizeof(T))));                                      \
    typedef IT PFX##_iv __attribute__((vector_size(MR * sizeof(T))));                                    \
    TINY_INLINE void PFX##_block(                                                                        \
        int nr, const T *ap, size_t as, int k, const T *bj, size_t sl, size_t sj, T alpha, T beta,       \
        T *c, int ldc, int lo, int hi)                                                                   \
    {                                                                                                    \
        PFX##_v acc[NR] = {{0}}, acc2[NR] = {{0}};                                                       \
        int l = 0;                                                                                       \
        for (; l + 1 < k; l += 2) {                                                                      \
            PFX##_v a0, a1;                                                                              \
            memcpy(&a0, ap + l * as, sizeof a0);                                                         \
            memcpy(&a1, ap + (l + 1) * as, sizeof a1);                                                   \
            const T *b0 = bj + l * sl, *b1 = b0 + sl;                                                    \
            TINY_UNROLL for (int j = 0; j < nr; j++) {                                                   \
                acc[j] += a0 * b0[j * sj];                                                               \
                acc2[j] += a1 * b1[j * sj];                                                              \
            }                                                                                            \
        }                                                                                                \
        if (l < k) {                                                                                     \
            PFX##_v a0;                                                                                  \
            memcpy(&a0, ap + l * as, sizeof a0);                                                         \
            TINY_UNROLL for (int j = 0; j < nr; j++) acc[j] += a0 * bj[l * sl + j * sj];                 \
        }                                                                                                \
        if (hi == MR) { /* whole vectors; lanes below lo (the panel before's, final) kept */           \
            PFX##_iv keep;                                                                               \
            for (int i = 0; i < MR; i++) keep[i] = i < lo ? -1 : 0;                                      \
            TINY_UNROLL for (int j = 0; j < nr; j++) {                                                   \
                T *cj = c + (size_t)j * ldc;                                                             \
                PFX##_v r = alpha * (acc[j] + acc2[j]), cv;                                              \
                if (beta != 0 || lo > 0) memcpy(&cv, cj, sizeof cv);                                     \
                if (beta != 0) r += beta * cv;                                                           \
                if (lo > 0) { /* a bitwise select: nothing computed on the kept lanes */                 \
                    PFX##_iv ri, ci;                                                                     \
                    memcpy(&ri, &r, sizeof r);                                                           \
                    memcpy(&ci, &cv, sizeof cv);                                                         \
                    ri = (ri & ~keep) | (ci & keep);                                                     \
                    memcpy(&r, &ri, sizeof r);                                                           \
                }                                                                                        \
                memcpy(cj, &r, sizeof r);                                                                \
            }                                                                                            \
            return;                                                                                      \
        }                                                                                                \
        /* a panel padded below hi (m < W/4 only): lanes at constant positions */                        \
        TINY_UNROLL for (int j = 0; j < nr; j++) {                                                       \
            T *cj = c + (size_t)j * ldc;                                                                 \
            const PFX##_v r = alpha * (acc[j] + acc2[j]);                                                \
            for (int i = 0; i < MR; i++)                                                                 \
                if (i < hi) cj[i] = beta == 0 ? r[i] : r[i] + beta * cj[i];                              \
        }                                                                                                \
    }
#else
#define TINY_BLOCK(T, MR, PFX, IT)                                                                       \
    static inline void PFX##_block(int nr, const T *ap, size_t as, int k, const T *bj, size_t sl,        \
                                   size_t sj, T alpha, T beta, T *c, int ldc, int lo, int hi)            \
    {                                                                                                    \
        T acc[NR][MR] = {{0}};                                                                           \
        for (int l = 0; l < k; l++) {                                                                    \
            const T *al = ap + l * as, *bl = bj + l * sl;                                                \
            for (int j = 0; j < nr; j++) {                                                               \
                const T bv = bl[j * sj];                                                                 \
                for (int i = 0; i < MR; i++) acc[j][i] += al[i] * bv;                                    \
            }                                                                                            \
        }                                                                                                \
        for (int j = 0; j < nr; j++) {                                                                   \
            T *cj = c + (size_t)j * ldc;                                                                 \
            for (int i = lo; i < hi; i++)                                                                \
                cj[i] = beta == 0 ? alpha * acc[j][i] : alpha * acc[j][i] + beta * cj[i];                \
        }                                                                                                \
    }
#endif

#if defined(__GNUC__) && !defined(__clang__)
#define TINY_UNROLL16 _Pragma("GCC unroll 16")
#else
#define TINY_UNROLL16
#endif
/* dst (MR x MR, column l at dst + l*MR) := the transpose of the MR x MR block whose row i is
 * a[i*lda .. i*lda + MR] (rows of op(A) = A^T, contiguous in A): whole rows loaded, log2(MR)
 * stages of two-vector shuffles with constant masks, each swapping bit W of the row and the
 * column index (a butterfly), whole columns stored -- instead of MR*MR scalar loads. */
#if defined(__GNUC__)
/* one stage: rows i and i + W (bit W of i clear) */
#define TINY_TSTAGE(PFX, MR, W, v)                                                                       \
    if ((W) < (MR)) {                                                                                    \
        PFX##_iv lo, hi;                                                                                 \
        TINY_UNROLL16 for (int e = 0; e < (MR); e++) {                                                   \
            lo[e] = e & (W) ? (MR) + e - (W) : e;                                                        \
            hi[e] = e & (W) ? (MR) + e : e + (W);                                                        \
        }                                                                                                \
        TINY_UNROLL16 for (int i = 0; i < (MR); i++)                                                     \
            if (!(i & (W))) {                                                                            \
                const PFX##_v x = v[i], y = v[i + (W)];                                                  \
                v[i] = __builtin_shuffle(x, y, lo);                                                      \
                v[i + (W)] = __builtin_shuffle(x, y, hi);                                                \
            }                                                                                            \
    }
#define TINY_TBLOCK(T, MR, PFX)                                                                          \
    TINY_INLINE void PFX##_tblock(const T *a, size_t lda, T *dst)                                        \
    {                                                                                                    \
        PFX##_v v[MR];                                                                                   \
        TINY_UNROLL16 for (int i = 0; i < MR; i++) memcpy(&v[i], a + i * lda, sizeof v[i]);              \
        TINY_TSTAGE(PFX, MR, 8, v)                                                                       \
        TINY_TSTAGE(PFX, MR, 4, v)                                                                       \
        TINY_TSTAGE(PFX, MR, 2, v)                                                                       \
        TINY_TSTAGE(PFX, MR, 1, v)                                                                       \
        TINY_UNROLL16 for (int l = 0; l < MR; l++) memcpy(dst + l * MR, &v[l], sizeof v[l]);             \
    }
#else
#define TINY_TBLOCK(T, MR, PFX)                                                                          \
    static inline void PFX##_tblock(const T *a, size_t lda, T *dst)                                      \
    {                                                                                                    \
        for (int l = 0; l < MR; l++)                                                                     \
            for (int i = 0; i < MR; i++) dst[l * MR + i] = a[i * lda + l];                               \
    }
#endif

/* One panel width: T the element type, MR its rows (16, 8 or 4 floats; 8, 4 or 2 doubles). */
#define TINY_PANEL(T, MR, PFX, IT)                                                                       \
    TINY_BLOCK(T, MR, PFX, IT)                                                                           \
    TINY_TBLOCK(T, MR, PFX)                                                                              \
    /* dst := op(A)(r0 .. r0+rows, 0 .. k), column l at dst + l*MR, zeros below `rows` */                \
    TINY_INLINE void PFX##_pack(int ta, int r0, int rows, int k, const T *a, int lda, T *dst)             \
    {                                                                                                    \
        /* each column built whole and stored at once: scalar stores under a vector load would      \
         * stall its store forwarding */                                                                 \
        if (ta && rows == MR) { /* the common case: a whole panel, no test per element */                \
            int l = 0;                                                                                   \
            for (; l + MR <= k; l += MR) PFX##_tblock(a + l + (size_t)r0 * lda, (size_t)lda, dst + l * MR); \
            for (; l < k; l++) {                                                                         \
                T t[MR];                                                                                 \
                for (int i = 0; i < MR; i++) t[i] = a[l + (size_t)(r0 + i) * lda];                       \
                memcpy(dst + l * MR, t, sizeof t);                                                       \
            }                                                                                            \
            return;                                                                                      \
        }                                                                                                \
        for (int l = 0; l < k; l++) {                                                                    \
            T t[MR];                                                                                     \
            for (int i = 0; i < MR; i++)                                                                 \
                t[i] = i >= rows ? 0 : ta ? a[l + (size_t)(r0 + i) * lda] : a[r0 + i + (size_t)l * lda]; \
            memcpy(dst + l * MR, t, sizeof t);                                                           \
        }                                                                                                \
    }                                                                                                    \
    /* every block of columns of C on one panel, op(B)(l, j) = b[l*sl + j*sj] */                         \
    TINY_INLINE void PFX##_cols(const T *panel, size_t as, int n, int k, const T *b, size_t sl, size_t sj,  \
                                T alpha, T beta, T *c, int ldc, int skip, int rows)                      \
    {                                                                                                    \
        int j0 = 0;                                                                                      \
        for (; j0 + NR <= n; j0 += NR)                                                                   \
            PFX##_block(NR, panel, as, k, b + j0 * sj, sl, sj, alpha, beta, c + (size_t)j0 * ldc, ldc,   \
                        skip, rows);                                                                     \
        for (; j0 < n; j0++)                                                                             \
            PFX##_block(1, panel, as, k, b + j0 * sj, sl, sj, alpha, beta, c + (size_t)j0 * ldc, ldc,    \
                        skip, rows);                                                                     \
    }                                                                                                    \
    /* rows r0 .. r0+rows (rows <= MR) of C, every column, of which rows r0+skip .. r0+rows are        \
     * stored (the others belong to the panel before: an overlapping last panel) */                     \
    TINY_INLINE void PFX##_panel(const tiny_args_t *g, int r0, int rows, int skip, int n, int k)          \
    {                                                                                                    \
        _Alignas(64) T ap[MR * CHG_TINY_MAX];                                                            \
        const T *a = g->a, *b = g->b, alpha = (T)g->alpha, beta = (T)g->beta;                            \
        const int ta = g->ta, lda = g->lda, ldc = g->ldc;                                                \
        /* a full panel of an untransposed A is read in place */                                         \
        const int direct = !ta && rows == MR;                                                            \
        if (!direct) PFX##_pack(ta, r0, rows, k, a, lda, ap);                                            \
        const T *panel = direct ? a + r0 : ap;                                                           \
        const size_t as = direct ? (size_t)lda : MR;                                                     \
        T *c = (T *)g->c + r0;                                                                           \
        /* one of B's strides the constant 1: its loads take constant offsets */                         \
        if (g->tb)                                                                                       \
            PFX##_cols(panel, as, n, k, b, (size_t)g->ldb, 1, alpha, beta, c, ldc, skip, rows);          \
        else                                                                                             \
            PFX##_cols(panel, as, n, k, b, 1, (size_t)g->ldb, alpha, beta, c, ldc, skip, rows);          \
    }                                                                                                    \
    /* every row of C in panels of MR (m >= MR), the last placed to end at row m: it overlaps the        \
     * panel before and stores only its own rows */                                                      \
    TINY_CLONES TINY_OPT static void PFX##_rows(const tiny_args_t *g, int m)                             \
    {                                                                                                    \
        for (int r0 = 0; r0 < m; r0 += MR) {                                                             \
            const int start = r0 + MR <= m ? r0 : m - MR;                                                \
            PFX##_panel(g, start, MR, r0 - start, g->n, g->k);                                                     \
        }                                                                                                \
    }                                                                                                    \
    /* m == MR: one whole panel, nothing overlapped (no select, no loop over panels) */                 \
    TINY_CLONES TINY_OPT static void PFX##_one(const tiny_args_t *g, int m)                              \
    {                                                                                                    \
        (void)m;                                                                                         \
        PFX##_panel(g, 0, MR, 0, g->n, g->k);                                                            \
    }                                                                                                    \
    /* m = n = k = S, a multiple of MR (cpu/tiny_select.h's CHG_TINY_SQUARE cells): whole panels,        \
     * every loop of constant length (unrolled: no loop control, no strides computed at run time) */     \
    TINY_INLINE void PFX##_square(const tiny_args_t *g, int S)                                           \
    {                                                                                                    \
        for (int r0 = 0; r0 < S; r0 += MR) PFX##_panel(g, r0, MR, 0, S, S);                             \
    }

/* m < MR rows of C (the narrowest width only): one panel padded with zeros, a function apart so
 * that the common one stays small. */
#define TINY_PADDED(PFX)                                                                                 \
    TINY_CLONES TINY_OPT static void PFX##_padded(const tiny_args_t *g, int m)                           \
    {                                                                                                    \
        PFX##_panel(g, 0, m, 0, g->n, g->k);                                                                         \
    }

TINY_PANEL(float, 16, tiny_s16, int32_t)
TINY_PANEL(float, 8, tiny_s8, int32_t)
TINY_PANEL(float, 4, tiny_s4, int32_t)
TINY_PANEL(double, 8, tiny_d8, int64_t)
TINY_PANEL(double, 4, tiny_d4, int64_t)
TINY_PANEL(double, 2, tiny_d2, int64_t)
TINY_PADDED(tiny_s4)
TINY_PADDED(tiny_d2)

/* The wide square kernel (x86-64 with AVX-512 only): C's rows in panels of two vectors (2*MR),
 * columns in blocks of NR2, one accumulator per vector and column -- 2*NR2 = 16 of the 32
 * vector registers, so that each step of l takes two loads of A and NR2 of B for 2*NR2 FMAs
 * and the FMA units, not the load ports, set the pace (the one-vector panel takes MR + NR loads
 * for NR FMAs: load-bound). Only on AVX-512: with 64-byte vectors in two halves (AVX2) its
 * accumulators alone would fill every register. */
#define NR2 8
#if defined(__GNUC__) && !defined(__clang__)
#define TINY_UNROLL8 _Pragma("GCC unroll 8")
#else
#define TINY_UNROLL8
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define TINY_WIDE 1
#define TINY_WIDE_FN __attribute__((target("arch=x86-64-v4"))) TINY_OPT
/* rows of C at c (two vectors: panels p0, p1, column l at + l*as), all S columns in blocks of
 * NR2; op(B)(l, j) = b[l*sl + j*sj] with one stride the constant 1 (after inlining) */
#define TINY_WCOLS(T, MR, PFX)                                                                           \
    TINY_INLINE void PFX##_wcols(const T *p0, const T *p1, size_t as, int S, const T *b, size_t sl,        \
                                 size_t sj, T alpha, T beta, T *c, int ldc)                              \
    {                                                                                                    \
        typedef T v_t __attribute__((vector_size(MR * sizeof(T))));                                      \
        for (int j0 = 0; j0 < S; j0 += NR2) {                                                            \
            v_t acc0[NR2] = {{0}}, acc1[NR2] = {{0}};                                                    \
            const T *bl = b + j0 * sj;                                                                   \
            const T *x0p = p0, *x1p = p1;                                                                \
            for (int l = 0; l < S; l++, bl += sl, x0p += as, x1p += as) {                                \
                v_t x0, x1;                                                                              \
                memcpy(&x0, x0p, sizeof x0);                                                             \
                memcpy(&x1, x1p, sizeof x1);                                                             \
                TINY_UNROLL8 for (int j = 0; j < NR2; j++) {                                             \
                    const T bv = bl[j * sj];                                                             \
                    acc0[j] += x0 * bv;                                                                  \
                    acc1[j] += x1 * bv;                                                                  \
                }                                                                                        \
            }                                                                                            \
            TINY_UNROLL8 for (int j = 0; j < NR2; j++) {                                                 \
                T *cj = c + (size_t)(j0 + j) * ldc;                                                      \
                v_t r0v = alpha * acc0[j], r1v = alpha * acc1[j];                                        \
                if (beta != 0) {                                                                         \
                    v_t c0, c1;                                                                          \
                    memcpy(&c0, cj, sizeof c0);                                                          \
                    memcpy(&c1, cj + MR, sizeof c1);                                                     \
                    r0v += beta * c0;                                                                    \
                    r1v += beta * c1;                                                                    \
                }                                                                                        \
                memcpy(cj, &r0v, sizeof r0v);                                                            \
                memcpy(cj + MR, &r1v, sizeof r1v);                                                       \
            }                                                                                            \
        }                                                                                                \
    }
#define TINY_SQUARE_WIDE(T, MR, PFX, S)                                                                  \
    TINY_WIDE_FN static void PFX##_wsq##S(int tr, const void *a_, int lda, const void *b_, int ldb,       \
                                          void *c_, int ldc, double alpha_, double beta_)                \
    {                                                                                                    \
        _Alignas(64) T ap[2 * MR * S];                                                                   \
        const T *a = a_, *b = b_, alpha = (T)alpha_, beta = (T)beta_;                                    \
        T *c = c_;                                                                                       \
        for (int r0 = 0; r0 < S; r0 += 2 * MR) {                                                         \
            const T *p0 = a + r0, *p1 = a + r0 + MR;                                                     \
            size_t as = (size_t)lda;                                                                     \
            if (tr & 1) { /* A transposed: its two panels packed (column l at ap + l*MR) */              \
                PFX##_pack(1, r0, MR, S, a, lda, ap);                                                    \
                PFX##_pack(1, r0 + MR, MR, S, a, lda, ap + MR * S);                                      \
                p0 = ap; p1 = ap + MR * S; as = MR;                                                      \
            }                                                                                            \
            if (tr >> 1)                                                                                 \
                PFX##_wcols(p0, p1, as, S, b, (size_t)ldb, 1, alpha, beta, c + r0, ldc);                 \
            else                                                                                         \
                PFX##_wcols(p0, p1, as, S, b, 1, (size_t)ldb, alpha, beta, c + r0, ldc);                 \
        }                                                                                                \
    }
TINY_WCOLS(float, 16, tiny_s16)
TINY_WCOLS(double, 8, tiny_d8)
TINY_SQUARE_WIDE(float, 16, tiny_s16, 32)
TINY_SQUARE_WIDE(double, 8, tiny_d8, 16)
TINY_SQUARE_WIDE(double, 8, tiny_d8, 32)
#else
#define TINY_WIDE 0
#endif

/* The square products m = n = k = 4, 8, 16, 32: the widest panel that the size fills. */
/* Their arguments in registers (one on the stack), not in a tiny_args_t behind a pointer: the
 * struct built here is scalarised (every field a register or a constant). tr: bit 0 A
 * transposed, bit 1 B transposed (column-major view). */
#define TINY_SQUARE(PFX, S, P)                                                                           \
    TINY_CLONES TINY_OPT static void PFX##_sq##S(int tr, const void *a, int lda, const void *b, int ldb,  \
                                                 void *c, int ldc, double alpha, double beta)            \
    {                                                                                                    \
        const tiny_args_t g = {.ta = tr & 1, .tb = tr >> 1, .n = S, .k = S, .lda = lda, .ldb = ldb,      \
                               .ldc = ldc, .alpha = alpha, .beta = beta, .a = a, .b = b, .c = c};        \
        P##_square(&g, S);                                                                               \
    }
TINY_SQUARE(tiny_s, 4, tiny_s4)
TINY_SQUARE(tiny_s, 8, tiny_s8)
TINY_SQUARE(tiny_s, 16, tiny_s16)
TINY_SQUARE(tiny_s, 32, tiny_s16)
TINY_SQUARE(tiny_d, 4, tiny_d4)
TINY_SQUARE(tiny_d, 8, tiny_d8)
TINY_SQUARE(tiny_d, 16, tiny_d8)
TINY_SQUARE(tiny_d, 32, tiny_d8)

/* The column-major product in panels of w rows, w the widest of W (64 bytes), W/2, W/4 that m
 * fills: whole panels, then, for the rows left, one more placed to end at row m, which overlaps
 * the panel before and stores only its own rows (a bitwise select keeps the others). So every
 * panel reads an untransposed A in place (a transposed one is packed by constant-length loops)
 * and stores whole vectors; only m < W/4 (1 to 3 floats, 1 double) takes a panel padded with
 * zeros, stored element by element. */
#define TINY_COL(PFX, W, P1, P2, P3)                                                                     \
    static void PFX##_col(const tiny_args_t *g, int m)                                                   \
    {                                                                                                    \
        if (m == W)                                                                                      \
            P1##_one(g, m);                                                                              \
        else if (m == W / 2)                                                                             \
            P2##_one(g, m);                                                                              \
        else if (m == W / 4)                                                                             \
            P3##_one(g, m);                                                                              \
        else if (m >= W)                                                                                 \
            P1##_rows(g, m);                                                                             \
        else if (m >= W / 2)                                                                             \
            P2##_rows(g, m);                                                                             \
        else if (m >= W / 4)                                                                             \
            P3##_rows(g, m);                                                                             \
        else                                                                                             \
            P3##_padded(g, m);                                                                           \
    }

TINY_COL(tiny_s, 16, tiny_s16, tiny_s8, tiny_s4)
TINY_COL(tiny_d, 8, tiny_d8, tiny_d4, tiny_d2)

/* C := beta*C (k == 0 or alpha == 0): not read when beta == 0, untouched when beta == 1. */
static void scale_c(chg_precision_t prec, int rows, int cols, double beta, void *c, int ldc)
{
    if (beta == 1.0) return;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) {
            const size_t at = (size_t)j * ldc + i;
            if (prec == CHG_F64)
                ((double *)c)[at] = beta == 0.0 ? 0.0 : beta * ((double *)c)[at];
            else
                ((float *)c)[at] = beta == 0.0 ? 0.0f : (float)beta * ((float *)c)[at];
        }
}

void chg_tiny_gemm(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k, double alpha,
                   const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc)
{
    /* row-major (101): the column-major product C^T = op(B)^T op(A)^T */
    if (layout == 101) {
        const int t = m; m = n; n = t;
        const void *p = a; a = b; b = p;
        const int l = lda; lda = ldb; ldb = l;
        const int x = ta; ta = tb; tb = x;
    }
    /* m = n = k = 4, 8, 16, 32 (cpu/tiny_select.h's square cells), alpha != 0: the square code */
    if (m == n && n == k && alpha != 0.0) {
        const int tr = (ta != 111) | (tb != 111) << 1; /* CLHGEMM_NO_TRANS == CblasNoTrans == 111 */
        const int dbl = prec == CHG_F64;
#if TINY_WIDE
        if ((m == 32 || (dbl && m == 16)) && __builtin_cpu_supports("x86-64-v4")) {
            if (!dbl)
                tiny_s16_wsq32(tr, a, lda, b, ldb, c, ldc, alpha, beta);
            else if (m == 16)
                tiny_d8_wsq16(tr, a, lda, b, ldb, c, ldc, alpha, beta);
            else
                tiny_d8_wsq32(tr, a, lda, b, ldb, c, ldc, alpha, beta);
            return;
        }
#endif
        switch (m) {
        case 4: (dbl ? tiny_d_sq4 : tiny_s_sq4)(tr, a, lda, b, ldb, c, ldc, alpha, beta); return;
        case 8: (dbl ? tiny_d_sq8 : tiny_s_sq8)(tr, a, lda, b, ldb, c, ldc, alpha, beta); return;
        case 16: (dbl ? tiny_d_sq16 : tiny_s_sq16)(tr, a, lda, b, ldb, c, ldc, alpha, beta); return;
        case 32: (dbl ? tiny_d_sq32 : tiny_s_sq32)(tr, a, lda, b, ldb, c, ldc, alpha, beta); return;
        default: break;
        }
    }
    if (m <= 0 || n <= 0) return;
    if (k == 0 || alpha == 0.0) {
        scale_c(prec, m, n, beta, c, ldc);
        return;
    }
    const tiny_args_t g = {.ta = ta != 111, .tb = tb != 111, /* CLHGEMM_NO_TRANS == CblasNoTrans == 111 */
                           .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc, .alpha = alpha, .beta = beta,
                           .a = a, .b = b, .c = c};
    if (prec == CHG_F64)
        tiny_d_col(&g, m);
    else
        tiny_s_col(&g, m);
}
