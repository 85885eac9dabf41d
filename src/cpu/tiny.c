/*
 * tiny.c -- the small-matrix GEMM of the CPU route (tiny.h).
 *
 * Column-major view: a row-major call is the column-major product C^T = op(B)^T op(A)^T. op(A)
 * (m x k) is copied into `ap`, panels of MR rows (one 64-byte vector of elements), zeros below
 * row m; then each panel of C's rows and each block of NR columns is one micro-kernel: NR x MR
 * accumulators, for l < k: acc[j] += ap[l] * op(B)(l, j), all constant-length loops over the
 * contiguous panel, which the compiler keeps in vector registers; C gets alpha*acc + beta*C at
 * the end (C not read when beta == 0). The packing is O(m*k) copies against O(m*n*k) products.
 * NaN and Inf in A or B reach C as in any product (nothing is skipped for zeros); the padded
 * rows of a panel are computed and never stored.
 */
#include "cpu/tiny.h"

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "base/util.h"

/* x86-64 with glibc: one clone per ISA level, chosen by an ifunc when the library loads. */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
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

/* A call in the column-major view (transposes 0/1), what every panel reads. */
typedef struct tiny_args_s {
    int ta, tb, n, k, lda, ldb, ldc;
    double alpha, beta;
    const void *a, *b;
    void *c;
} tiny_args_t;
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
#define TINY_BLOCK(T, MR, PFX)                                                                           \
    typedef T PFX##_v __attribute__((vector_size(MR * sizeof(T))));                                      \
    static inline __attribute__((always_inline)) void PFX##_block(                                       \
        int nr, const T *ap, size_t as, int k, const T *bj, size_t sl, size_t sj, T alpha, T beta,       \
        T *c, int ldc, int rows)                                                                         \
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
            for (int j = 0; j < nr; j++) acc[j] += a0 * bj[l * sl + j * sj];                             \
        }                                                                                                \
        if (rows == MR) {                                                                                \
            TINY_UNROLL for (int j = 0; j < nr; j++) {                                                   \
                T *cj = c + (size_t)j * ldc;                                                             \
                PFX##_v r = alpha * (acc[j] + acc2[j]), cv;                                              \
                if (beta != 0) {                                                                         \
                    memcpy(&cv, cj, sizeof cv);                                                          \
                    r += beta * cv;                                                                      \
                }                                                                                        \
                memcpy(cj, &r, sizeof r);                                                                \
            }                                                                                            \
            return;                                                                                      \
        }                                                                                                \
        TINY_UNROLL for (int j = 0; j < nr; j++) {                                                       \
            T *cj = c + (size_t)j * ldc;                                                                 \
            const PFX##_v r = alpha * (acc[j] + acc2[j]);                                                \
            if (beta == 0)                                                                               \
                for (int i = 0; i < rows; i++) cj[i] = r[i];                                             \
            else                                                                                         \
                for (int i = 0; i < rows; i++) cj[i] = r[i] + beta * cj[i];                              \
        }                                                                                                \
    }
#else
#define TINY_BLOCK(T, MR, PFX)                                                                           \
    static inline void PFX##_block(int nr, const T *ap, size_t as, int k, const T *bj, size_t sl,        \
                                   size_t sj, T alpha, T beta, T *c, int ldc, int rows)                  \
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
            for (int i = 0; i < rows; i++)                                                               \
                cj[i] = beta == 0 ? alpha * acc[j][i] : alpha * acc[j][i] + beta * cj[i];                \
        }                                                                                                \
    }
#endif

/* One panel width: T the element type, MR its rows (16, 8 or 4 floats; 8, 4 or 2 doubles). */
#define TINY_PANEL(T, MR, PFX)                                                                           \
    TINY_BLOCK(T, MR, PFX)                                                                               \
    /* dst := op(A)(r0 .. r0+rows, 0 .. k), column l at dst + l*MR, zeros below `rows` */                \
    static inline __attribute__((always_inline)) void PFX##_pack(int ta, int r0, int rows, int k,        \
                                                                 const T *a, int lda, T *dst)            \
    {                                                                                                    \
        for (int l = 0; l < k; l++)                                                                      \
            for (int i = 0; i < MR; i++) dst[l * MR + i] = 0;                                            \
        if (ta)                                                                                          \
            for (int i = 0; i < rows; i++)                                                               \
                for (int l = 0; l < k; l++) dst[l * MR + i] = a[l + (size_t)(r0 + i) * lda];             \
        else                                                                                             \
            for (int l = 0; l < k; l++)                                                                  \
                for (int i = 0; i < rows; i++) dst[l * MR + i] = a[r0 + i + (size_t)l * lda];           \
    }                                                                                                    \
    /* rows r0 .. r0+rows (rows <= MR) of C, every column */                                             \
    TINY_CLONES TINY_OPT static void PFX##_panel(const tiny_args_t *g, int r0, int rows)                 \
    {                                                                                                    \
        _Alignas(64) T ap[MR * CHG_TINY_MAX];                                                            \
        const T *a = g->a, *b = g->b, alpha = (T)g->alpha, beta = (T)g->beta;                            \
        const int ta = g->ta, n = g->n, k = g->k, lda = g->lda, ldc = g->ldc;                            \
        const size_t sl = g->tb ? (size_t)g->ldb : 1, sj = g->tb ? 1 : (size_t)g->ldb;                   \
        /* a full panel of an untransposed A is read in place */                                         \
        const int direct = !ta && rows == MR;                                                            \
        if (!direct) PFX##_pack(ta, r0, rows, k, a, lda, ap);                                            \
        const T *panel = direct ? a + r0 : ap;                                                           \
        const size_t as = direct ? (size_t)lda : MR;                                                     \
        T *c = (T *)g->c + r0;                                                                           \
        int j0 = 0;                                                                                      \
        for (; j0 + NR <= n; j0 += NR)                                                                   \
            PFX##_block(NR, panel, as, k, b + j0 * sj, sl, sj, alpha, beta, c + (size_t)j0 * ldc, ldc, rows); \
        for (; j0 < n; j0++)                                                                             \
            PFX##_block(1, panel, as, k, b + j0 * sj, sl, sj, alpha, beta, c + (size_t)j0 * ldc, ldc, rows); \
    }

TINY_PANEL(float, 16, tiny_s16)
TINY_PANEL(float, 8, tiny_s8)
TINY_PANEL(float, 4, tiny_s4)
TINY_PANEL(double, 8, tiny_d8)
TINY_PANEL(double, 4, tiny_d4)
TINY_PANEL(double, 2, tiny_d2)

/* The column-major product: panels of W rows (64 bytes) while at least W rows are left, then
 * the rest in one panel of the narrowest width that holds it (read in place when it fills that
 * width, packed with zeros otherwise), so that a small m wastes at most half a panel. */
#define TINY_COL(PFX, W, P1, P2, P3)                                                                     \
    static void PFX##_col(const tiny_args_t *g, int m)                                                   \
    {                                                                                                    \
        int r0 = 0;                                                                                      \
        for (; m - r0 >= W; r0 += W) P1##_panel(g, r0, W);                                               \
        const int rest = m - r0;                                                                         \
        if (rest > W / 2)                                                                                \
            P1##_panel(g, r0, rest);                                                                     \
        else if (rest > W / 4)                                                                           \
            P2##_panel(g, r0, rest);                                                                     \
        else if (rest > 0)                                                                               \
            P3##_panel(g, r0, rest);                                                                     \
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

static atomic_int g_enabled = -1;

int chg_tiny_enabled(void)
{
    int e = atomic_load_explicit(&g_enabled, memory_order_relaxed);
    if (e < 0) {
        static const char *const choices[] = {"auto", "off", NULL};
        e = chg_env_choice("CLHGEMM_TINY", choices, 0) == 0;
        atomic_store_explicit(&g_enabled, e, memory_order_relaxed);
    }
    return e;
}
