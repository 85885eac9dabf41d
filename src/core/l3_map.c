/*
 * l3_map.c -- SYMM, SYRK, SYR2K and TRMM on device buffers, all on the one GEMM core.
 *
 * As in Matsumoto et al.'s OpenCL level-3 BLAS (docs/ARCHITECTURE.md, papers), each routine is
 * GEMM with different copying kernels: the core (gemm.c) packs
 * its operands per block anyway, so a symmetric operand is expanded from its stored triangle by
 * the pack (SYMM), a triangular one gets zeros outside its triangle and skips the k slices
 * those zeros would cost (TRMM), and a product of which only one triangle is wanted computes
 * only the tiles of C that touch it and writes back through a mask (SYRK, SYR2K). This file
 * only checks the arguments and says which of these a call is (chg_struct_t, gemm.h):
 *
 *   SYMM  side L: C = A*B, X_A = A symmetric;  side R: C = B*A, X_B = A^T = A symmetric.
 *   SYRK  C = op(A)*op(A)^T on the uplo triangle: X_A = X_B = op(A) (trans_b = !trans_a).
 *   SYR2K C = op(A)*op(B)^T + op(B)*op(A)^T: fused (both products accumulated in one Cp per
 *         block, one write-back) or as two SYRK-like passes (the second with beta = 1);
 *         CLHGEMM_SYR2K=fused|two chooses, the default is the one that measured faster.
 *   TRMM  side L: B = op(A)*B, X_A = op(A) triangular; side R: B = B*op(A), X_B = op(A)^T
 *         triangular; C is B itself (in place, beta = 0). The core orders the blocks so that no
 *         part of B is read after it was overwritten (gemm.c, enqueue_blocked).
 *
 * Row-major calls become column-major ones over the same memory: the transpose of a row-major
 * matrix is the column-major matrix, so the stored triangle flips (uplo), a left product
 * becomes a right one (side, with m and n exchanged), and SYRK's A*A^T becomes A^T*A (trans).
 * TRMM keeps transA: (op(A)*B)^T = B^T*op(A)^T and op(A)^T read column-major is op(A') of the
 * column-major A' = A^T.
 *
 * The complex routines (C, Z) are the same calls with chg_struct_t.cplx and these changes:
 *   conj   a conjugate transpose conjugates its operand in pack coordinates (GEMM, TRMM: the
 *          operand of op; HERK, HER2K: X_B = conj(A) for C = A A^H, X_A = conj(A^T) for A^H A);
 *          the row-major mapping keeps it with its operand, as it keeps trans;
 *   HEMM   the symmetric pack expands A Hermitian (mirror conjugated, the diagonal's imaginary
 *          part zero and never read); side R reads X_B = A^T = conj(A): conj on X_B. Row-major:
 *          the stored A^T = conj(A) is Hermitian too, with the other triangle;
 *   HERK, HER2K  C's diagonal real (herm_c: written with a zero imaginary part, which is never
 *          read); HER2K's alpha*A*B^H + conj(alpha)*B*A^H is not alpha times one sum, so alpha
 *          goes into X_A's pack (alpha in the first product, conj(alpha) in the second, as the
 *          reference ZHER2K folds it into an operand) and the fused form is its only form.
 *          Row-major: C^T = conj(C), which is the column-major HER2K with conj(alpha).
 */
#include "core/l3_map.h"
#include "core/extent.h"

#include <string.h>


static int valid_trans(int t)
{
    return t == CLHGEMM_NO_TRANS || t == CLHGEMM_TRANS || t == CLHGEMM_CONJ_TRANS;
}

/* SYRK's trans for the kind (chg_syrk_check_shape). */
static int valid_rank_k_trans(int t, int kind)
{
    if (kind & CHG_L3_HERM) return t == CLHGEMM_NO_TRANS || t == CLHGEMM_CONJ_TRANS;
    if (kind & CHG_L3_CSYM) return t == CLHGEMM_NO_TRANS || t == CLHGEMM_TRANS;
    return valid_trans(t);
}

static int valid_layout(int l) { return l == CLHGEMM_ROW_MAJOR || l == CLHGEMM_COL_MAJOR; }
static int valid_side(int s) { return s == CLHGEMM_LEFT || s == CLHGEMM_RIGHT; }
static int valid_uplo(int u) { return u == CLHGEMM_UPPER || u == CLHGEMM_LOWER; }
static int valid_diag(int d) { return d == CLHGEMM_UNIT || d == CLHGEMM_NON_UNIT; }

/* ---- shape checks ----------------------------------------------------------------------- */

clhgemm_status_t chg_symm_check_shape(int layout, int side, int uplo, int m, int n, int lda,
                                      int ldb, int ldc, chg_l3_shape_t *sh)
{
    if (!valid_layout(layout)) return CLHGEMM_INVALID_LAYOUT;
    if (!valid_side(side)) return CLHGEMM_INVALID_SIDE;
    if (!valid_uplo(uplo)) return CLHGEMM_INVALID_UPLO;
    if (m < 0) return CLHGEMM_INVALID_M;
    if (n < 0) return CLHGEMM_INVALID_N;
    const int col = layout == CLHGEMM_COL_MAJOR, left = side == CLHGEMM_LEFT;
    const int ka = left ? m : n, rows = col ? m : n, cols = col ? n : m;
    if (lda < CHG_MAX(1, ka)) return CLHGEMM_INVALID_LDA;
    if (ldb < CHG_MAX(1, rows)) return CLHGEMM_INVALID_LDB;
    if (ldc < CHG_MAX(1, rows)) return CLHGEMM_INVALID_LDC;
    if (!CHG_EXTENTS_FIT((size_t)ka, (size_t)ka, lda, (size_t)rows, (size_t)cols, ldb, (size_t)rows,
                         (size_t)cols, ldc))
        return CLHGEMM_SIZE_OVERFLOW;
    memset(sh, 0, sizeof *sh);
    sh->routine = CHG_L3_SYMM;
    sh->col = col;
    sh->a_rows = sh->a_cols = (size_t)ka;
    sh->b_rows = sh->c_rows = (size_t)rows;
    sh->b_cols = sh->c_cols = (size_t)cols;
    sh->left = col ? left : !left;
    sh->upper = col ? uplo == CLHGEMM_UPPER : uplo == CLHGEMM_LOWER;
    sh->m = (size_t)(col ? m : n);
    sh->n = (size_t)(col ? n : m);
    sh->k = sh->left ? sh->m : sh->n;
    return CLHGEMM_SUCCESS;
}

clhgemm_status_t chg_syrk_check_shape(int layout, int uplo, int trans, int n, int k, int lda,
                                      int ldb, int ldc, int kind, chg_l3_shape_t *sh)
{
    const int two_operands = kind & CHG_L3_TWO;
    if (!valid_layout(layout)) return CLHGEMM_INVALID_LAYOUT;
    if (!valid_uplo(uplo)) return CLHGEMM_INVALID_UPLO;
    if (!valid_rank_k_trans(trans, kind)) return CLHGEMM_INVALID_TRANS;
    if (n < 0) return CLHGEMM_INVALID_N;
    if (k < 0) return CLHGEMM_INVALID_K;
    const int col = layout == CLHGEMM_COL_MAJOR, t = trans != CLHGEMM_NO_TRANS;
    /* A (and B) is n x k for NO_TRANS, k x n otherwise; column-like storage when col != t */
    const int arows = col != t ? n : k, acols = col != t ? k : n;
    if (lda < CHG_MAX(1, arows)) return CLHGEMM_INVALID_LDA;
    if (two_operands && ldb < CHG_MAX(1, arows)) return CLHGEMM_INVALID_LDB;
    if (ldc < CHG_MAX(1, n)) return CLHGEMM_INVALID_LDC;
    if (!CHG_EXTENTS_FIT((size_t)arows, (size_t)acols, lda, (size_t)arows,
                         two_operands ? (size_t)acols : 0, ldb, (size_t)n, (size_t)n, ldc))
        return CLHGEMM_SIZE_OVERFLOW;
    memset(sh, 0, sizeof *sh);
    sh->routine = two_operands ? CHG_L3_SYR2K : CHG_L3_SYRK;
    sh->col = col;
    sh->a_rows = (size_t)arows;
    sh->a_cols = (size_t)acols;
    if (two_operands) {
        sh->b_rows = (size_t)arows;
        sh->b_cols = (size_t)acols;
    }
    sh->c_rows = sh->c_cols = (size_t)n;
    sh->upper = col ? uplo == CLHGEMM_UPPER : uplo == CLHGEMM_LOWER;
    sh->trans = col ? t : !t;
    sh->m = sh->n = (size_t)n;
    sh->k = (size_t)k;
    sh->cplx = (kind & (CHG_L3_CSYM | CHG_L3_HERM)) != 0;
    sh->herm = (kind & CHG_L3_HERM) != 0;
    return CLHGEMM_SUCCESS;
}

clhgemm_status_t chg_trmm_check_shape(int layout, int side, int uplo, int transA, int diag,
                                      int m, int n, int lda, int ldb, chg_l3_shape_t *sh)
{
    if (!valid_layout(layout)) return CLHGEMM_INVALID_LAYOUT;
    if (!valid_side(side)) return CLHGEMM_INVALID_SIDE;
    if (!valid_uplo(uplo)) return CLHGEMM_INVALID_UPLO;
    if (!valid_trans(transA)) return CLHGEMM_INVALID_TRANS_A;
    if (!valid_diag(diag)) return CLHGEMM_INVALID_DIAG;
    if (m < 0) return CLHGEMM_INVALID_M;
    if (n < 0) return CLHGEMM_INVALID_N;
    const int col = layout == CLHGEMM_COL_MAJOR, left = side == CLHGEMM_LEFT;
    const int ka = left ? m : n, rows = col ? m : n, cols = col ? n : m;
    if (lda < CHG_MAX(1, ka)) return CLHGEMM_INVALID_LDA;
    if (ldb < CHG_MAX(1, rows)) return CLHGEMM_INVALID_LDB;
    if (!CHG_EXTENTS_FIT((size_t)ka, (size_t)ka, lda, (size_t)rows, (size_t)cols, ldb, 0, 0, 1))
        return CLHGEMM_SIZE_OVERFLOW; /* TRMM and TRSM: no C */
    memset(sh, 0, sizeof *sh);
    sh->routine = CHG_L3_TRMM;
    sh->col = col;
    sh->a_rows = sh->a_cols = (size_t)ka;
    sh->b_rows = sh->c_rows = (size_t)rows;
    sh->b_cols = sh->c_cols = (size_t)cols;
    sh->left = col ? left : !left;
    sh->upper = col ? uplo == CLHGEMM_UPPER : uplo == CLHGEMM_LOWER;
    sh->trans = transA != CLHGEMM_NO_TRANS;
    sh->unit = diag == CLHGEMM_UNIT;
    sh->m = (size_t)(col ? m : n);
    sh->n = (size_t)(col ? n : m);
    sh->k = sh->left ? sh->m : sh->n;
    return CLHGEMM_SUCCESS;
}

/* ---- mapping onto the core -------------------------------------------------------------- */

void chg_l3_core_args(const chg_l3_shape_t *sh, chg_precision_t prec, const double alpha[2],
                      cl_mem A, size_t offA, size_t ldA, cl_mem B, size_t offB, size_t ldB,
                      const double beta[2], cl_mem C, size_t offC, size_t ldc, chg_gemm_args_t *a)
{
    memset(a, 0, sizeof *a);
    a->prec = prec;
    a->m = sh->m;
    a->n = sh->n;
    a->k = sh->k;
    a->alpha = alpha[0];
    a->beta = beta[0];
    if (sh->cplx) {
        a->alpha_im = alpha[1];
        a->beta_im = beta[1];
        a->st.cplx = 1;
    }
    a->c = C;
    a->off_c = offC;
    a->ldc = ldc;
    /* "the operand at the left / right of the product": (buffer, offset, ld) */
#define LEFT_IS(X) (a->a = X, a->off_a = off##X, a->lda = ld##X)
#define RIGHT_IS(X) (a->b = X, a->off_b = off##X, a->ldb = ld##X)
    switch (sh->routine) {
    case CHG_L3_SYMM:
        if (sh->left) {
            /* C = A*B: X_A = A, read along i; X_B = B^T read as GEMM's B */
            LEFT_IS(A);
            RIGHT_IS(B);
            a->st.kind_a = CHG_SYMMETRIC;
            a->st.upper_a = sh->upper;
            a->st.herm_a = sh->herm;
        } else {
            /* C = B*A: X_B = A^T = A, i.e. trans_b (X_B(j,p) = A[j + p*lda]); Hermitian:
             * A^T = conj(A) */
            LEFT_IS(B);
            RIGHT_IS(A);
            a->trans_b = 1;
            a->st.kind_b = CHG_SYMMETRIC;
            a->st.upper_b = sh->upper;
            a->st.herm_b = a->st.conj_b = sh->herm;
        }
        break;
    case CHG_L3_SYRK:
    case CHG_L3_SYR2K:
        LEFT_IS(A);
        if (sh->routine == CHG_L3_SYR2K) {
            RIGHT_IS(B);
            a->swap_sum = 1;
        } else {
            RIGHT_IS(A);
        }
        a->trans_a = sh->trans;
        a->trans_b = !sh->trans;
        a->st.c_tri = sh->upper ? CHG_TRI_UPPER : CHG_TRI_LOWER;
        if (sh->herm) {
            /* A A^H: X_B = conj(A); A^H A: X_A = conj(A^T) */
            a->st.conj_a = sh->trans;
            a->st.conj_b = !sh->trans;
            a->st.herm_c = 1;
            if (sh->routine == CHG_L3_SYR2K) {
                a->alpha_in_pack = 1;
                if (!sh->col) a->alpha_im = -a->alpha_im; /* C^T = conj(C) */
            }
        }
        break;
    case CHG_L3_TRMM:
        a->c = B;
        a->off_c = offB;
        a->ldc = ldB;
        a->beta = 0.0;
        if (sh->left) {
            /* B := op(A)*B: X_A = op(A), read transposed when trans; its non-zero triangle is
             * A's, flipped by the transpose */
            LEFT_IS(A);
            RIGHT_IS(B);
            a->trans_a = sh->trans;
            a->st.kind_a = CHG_TRIANGULAR;
            a->st.upper_a = sh->upper != sh->trans;
            a->st.unit_a = sh->unit;
            a->st.conj_a = sh->conj;
        } else {
            /* B := B*op(A): GEMM's op(B) = op(A), X_B = op(A)^T: upper when A is upper and
             * transposed, or lower and not */
            LEFT_IS(B);
            RIGHT_IS(A);
            a->trans_b = sh->trans;
            a->st.kind_b = CHG_TRIANGULAR;
            a->st.upper_b = sh->upper == sh->trans;
            a->st.unit_b = sh->unit;
            a->st.conj_b = sh->conj;
        }
        break;
    }
#undef LEFT_IS
#undef RIGHT_IS
}

int chg_syr2k_two_pass(void)
{
    static const char *const modes[] = {"fused", "two", NULL};
    return chg_env_choice("CLHGEMM_SYR2K", modes, 0);
}

/* ---- the device-buffer front end -------------------------------------------------------- */

clhgemm_status_t chg_l3_check_call(const chg_l3_shape_t *sh, chg_precision_t prec, double alpha,
                                   cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,
                                   cl_mem C, size_t offC, int ldc, cl_command_queue queue)
{
    const chg_device_t *dev;
    cl_context ctx;
    clhgemm_status_t st = chg_queue_device(queue, &dev, &ctx);
    if (st != CLHGEMM_SUCCESS) return st;
    const size_t es = chg_elem_size(prec) * (sh->cplx ? 2 : 1);
    const int touch_c = sh->m > 0 && sh->n > 0;
    const int product = touch_c && sh->k > 0 && alpha != 0.0;
    const int trmm = sh->routine == CHG_L3_TRMM;
    if (product) {
        st = chg_check_buffer(A, ctx, offA, sh->a_rows, sh->a_cols, (size_t)lda, es,
                              CLHGEMM_NULL_BUFFER_A, CLHGEMM_INSUFFICIENT_BUFFER_A);
        if (st != CLHGEMM_SUCCESS) return st;
    }
    /* B: SYMM and SYR2K read it for the product, TRMM always writes it */
    if ((product && (sh->routine == CHG_L3_SYMM || sh->routine == CHG_L3_SYR2K)) ||
        (trmm && touch_c)) {
        st = chg_check_buffer(B, ctx, offB, sh->b_rows, sh->b_cols, (size_t)ldb, es,
                              CLHGEMM_NULL_BUFFER_B, CLHGEMM_INSUFFICIENT_BUFFER_B);
        if (st != CLHGEMM_SUCCESS) return st;
    }
    if (touch_c && !trmm) {
        st = chg_check_buffer(C, ctx, offC, sh->c_rows, sh->c_cols, (size_t)ldc, es,
                              CLHGEMM_NULL_BUFFER_C, CLHGEMM_INSUFFICIENT_BUFFER_C);
        if (st != CLHGEMM_SUCCESS) return st;
    }
    if (prec == CHG_F64 && !(dev->features & CHG_FEAT_FP64)) return CLHGEMM_FP64_NOT_SUPPORTED;
    return CLHGEMM_SUCCESS;
}

/* Whether the scalar (re, im) is zero. */
static int is_zero(const double v[2]) { return v[0] == 0.0 && v[1] == 0.0; }

static clhgemm_status_t run(const chg_l3_shape_t *sh, chg_precision_t prec, const double alpha[2],
                            cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,
                            const double beta[2], cl_mem C, size_t offC, int ldc,
                            cl_command_queue queue, cl_event *event)
{
    if (!alpha || !beta) return CLHGEMM_INVALID_ARGUMENT;
    const double nz = is_zero(alpha) ? 0.0 : 1.0;
    clhgemm_status_t st =
        chg_l3_check_call(sh, prec, nz, A, offA, lda, B, offB, ldb, C, offC, ldc, queue);
    if (st != CLHGEMM_SUCCESS) return st;
    chg_gemm_args_t a;
    chg_l3_core_args(sh, prec, alpha, A, offA, (size_t)lda, B, offB, (size_t)ldb, beta, C, offC,
                     (size_t)ldc, &a);
    const int product = a.m > 0 && a.n > 0 && a.k > 0 && nz != 0.0;
    /* the complex SYR2K / HER2K: fused only (HER2K's alpha is in the packs) */
    if (!(a.swap_sum && product && !sh->cplx && chg_syr2k_two_pass()))
        return chg_gemm_enqueue(&a, queue, 0, NULL, event);

    /* SYR2K in two passes: C := alpha*op(A)op(B)^T + beta*C, then C += alpha*op(B)op(A)^T. */
    chg_gemm_args_t second = a;
    a.swap_sum = second.swap_sum = 0;
    second.beta = 1.0;
    second.a = a.b, second.off_a = a.off_b, second.lda = a.ldb;
    second.b = a.a, second.off_b = a.off_a, second.ldb = a.lda;
    cl_event first = NULL;
    st = chg_gemm_enqueue(&a, queue, 0, NULL, &first);
    if (st != CLHGEMM_SUCCESS) return st;
    st = chg_gemm_enqueue(&second, queue, 1, &first, event);
    if (st != CLHGEMM_SUCCESS) clWaitForEvents(1, &first); /* the caller may free at once */
    clReleaseEvent(first);
    return st;
}

/* ---- public entry points ---------------------------------------------------------------- */

/* SYMM (cplx 0), complex SYMM (1) or HEMM (2). */
static clhgemm_status_t symm_cl(chg_precision_t prec, int cplx, int layout, int side, int uplo,
                                int m, int n, const double alpha[2], cl_mem A, size_t offA,
                                int lda, cl_mem B, size_t offB, int ldb, const double beta[2],
                                cl_mem C, size_t offC, int ldc, cl_command_queue queue,
                                cl_event *event)
{
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_symm_check_shape(layout, side, uplo, m, n, lda, ldb, ldc, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    sh.cplx = cplx != 0;
    sh.herm = cplx == 2;
    return run(&sh, prec, alpha, A, offA, lda, B, offB, ldb, beta, C, offC, ldc, queue, event);
}

/* SYRK, SYR2K (kind: chg_syrk_check_shape's) and their complex and Hermitian forms. */
static clhgemm_status_t syrk_cl(chg_precision_t prec, int kind, int layout, int uplo, int trans,
                                int n, int k, const double alpha[2], cl_mem A, size_t offA,
                                int lda, cl_mem B, size_t offB, int ldb, const double beta[2],
                                cl_mem C, size_t offC, int ldc, cl_command_queue queue,
                                cl_event *event)
{
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_syrk_check_shape(layout, uplo, trans, n, k, lda, ldb, ldc, kind, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    return run(&sh, prec, alpha, A, offA, lda, B, offB, ldb, beta, C, offC, ldc, queue, event);
}

static clhgemm_status_t trmm_cl(chg_precision_t prec, int cplx, int layout, int side, int uplo,
                                int transA, int diag, int m, int n, const double alpha[2],
                                cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,
                                cl_command_queue queue, cl_event *event)
{
    chg_l3_shape_t sh;
    clhgemm_status_t st =
        chg_trmm_check_shape(layout, side, uplo, transA, diag, m, n, lda, ldb, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    sh.cplx = cplx;
    sh.conj = cplx && transA == CLHGEMM_CONJ_TRANS;
    const double zero[2] = {0.0, 0.0};
    return run(&sh, prec, alpha, A, offA, lda, B, offB, ldb, zero, NULL, 0, 1, queue, event);
}

/* The exported pairs: each routine above at the precision of T (CHG_PRECISIONS). */
#define SYMM_CL(p, T, prec)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##symm_cl(                                             \
        clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo, int m, int n, T alpha,  \
        cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb, T beta, cl_mem C,          \
        size_t offC, int ldc, cl_command_queue queue, cl_event *event)                             \
    {                                                                                              \
        const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};                                    \
        return symm_cl(prec, 0, layout, side, uplo, m, n, al, A, offA, lda, B, offB, ldb, be, C,   \
                       offC, ldc, queue, event);                                                   \
    }
CHG_PRECISIONS(SYMM_CL)
#undef SYMM_CL

/* The complex SYMM and HEMM (herm 1): alpha and beta point at their (re, im). */
#define CSYMM_CL(p, T, prec, name, herm)                                                           \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##name##_cl(                                           \
        clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo, int m, int n,           \
        const void *alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,         \
        const void *beta, cl_mem C, size_t offC, int ldc, cl_command_queue queue, cl_event *event) \
    {                                                                                              \
        double al[2], be[2];                                                                       \
        return symm_cl(prec, 1 + herm, layout, side, uplo, m, n, chg_scalar_read(prec, alpha, al), \
                       A, offA, lda, B, offB, ldb, chg_scalar_read(prec, beta, be), C, offC, ldc,  \
                       queue, event);                                                              \
    }
#define CSYMM_CL_(p, T, prec) CSYMM_CL(p, T, prec, symm, 0) CSYMM_CL(p, T, prec, hemm, 1)
CHG_CPRECISIONS(CSYMM_CL_)
#undef CSYMM_CL_
#undef CSYMM_CL

#define SYRK_CL(p, T, prec)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syrk_cl(                                             \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        T alpha, cl_mem A, size_t offA, int lda, T beta, cl_mem C, size_t offC, int ldc,           \
        cl_command_queue queue, cl_event *event)                                                   \
    {                                                                                              \
        const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};                                    \
        return syrk_cl(prec, 0, layout, uplo, trans, n, k, al, A, offA, lda, NULL, 0, 1, be, C,    \
                       offC, ldc, queue, event);                                                   \
    }
CHG_PRECISIONS(SYRK_CL)
#undef SYRK_CL

/* The complex SYRK (scalars through pointers) and HERK (real scalars, as in CBLAS). */
#define CSYRK_CL(p, T, prec)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syrk_cl(                                             \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        const void *alpha, cl_mem A, size_t offA, int lda, const void *beta, cl_mem C,             \
        size_t offC, int ldc, cl_command_queue queue, cl_event *event)                             \
    {                                                                                              \
        double al[2], be[2];                                                                       \
        return syrk_cl(prec, CHG_L3_CSYM, layout, uplo, trans, n, k,                               \
                       chg_scalar_read(prec, alpha, al), A, offA, lda, NULL, 0, 1,                 \
                       chg_scalar_read(prec, beta, be), C, offC, ldc, queue, event);               \
    }                                                                                              \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##herk_cl(                                             \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        T alpha, cl_mem A, size_t offA, int lda, T beta, cl_mem C, size_t offC, int ldc,           \
        cl_command_queue queue, cl_event *event)                                                   \
    {                                                                                              \
        const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};                                    \
        return syrk_cl(prec, CHG_L3_HERM, layout, uplo, trans, n, k, al, A, offA, lda, NULL, 0, 1, \
                       be, C, offC, ldc, queue, event);                                            \
    }
CHG_CPRECISIONS(CSYRK_CL)
#undef CSYRK_CL

#define SYR2K_CL(p, T, prec)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syr2k_cl(                                            \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        T alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb, T beta, cl_mem C, \
        size_t offC, int ldc, cl_command_queue queue, cl_event *event)                             \
    {                                                                                              \
        const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};                                    \
        return syrk_cl(prec, CHG_L3_TWO, layout, uplo, trans, n, k, al, A, offA, lda, B, offB,     \
                       ldb, be, C, offC, ldc, queue, event);                                       \
    }
CHG_PRECISIONS(SYR2K_CL)
#undef SYR2K_CL

/* The complex SYR2K and HER2K (a complex alpha, a real beta, as in CBLAS). */
#define CSYR2K_CL(p, T, prec)                                                                      \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syr2k_cl(                                            \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        const void *alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,         \
        const void *beta, cl_mem C, size_t offC, int ldc, cl_command_queue queue, cl_event *event) \
    {                                                                                              \
        double al[2], be[2];                                                                       \
        return syrk_cl(prec, CHG_L3_TWO | CHG_L3_CSYM, layout, uplo, trans, n, k,                  \
                       chg_scalar_read(prec, alpha, al), A, offA, lda, B, offB, ldb,               \
                       chg_scalar_read(prec, beta, be), C, offC, ldc, queue, event);               \
    }                                                                                              \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##her2k_cl(                                            \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        const void *alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb, T beta, \
        cl_mem C, size_t offC, int ldc, cl_command_queue queue, cl_event *event)                   \
    {                                                                                              \
        double al[2];                                                                              \
        const double be[2] = {beta, 0.0};                                                          \
        return syrk_cl(prec, CHG_L3_TWO | CHG_L3_HERM, layout, uplo, trans, n, k,                  \
                       chg_scalar_read(prec, alpha, al), A, offA, lda, B, offB, ldb, be, C, offC,  \
                       ldc, queue, event);                                                         \
    }
CHG_CPRECISIONS(CSYR2K_CL)
#undef CSYR2K_CL

#define TRMM_CL(p, T, prec) CHG_TRIANGULAR_CL(p, T, prec, trmm)
CHG_PRECISIONS(TRMM_CL)
#undef TRMM_CL
#define CTRMM_CL(p, T, prec) CHG_TRIANGULAR_CL_C(p, T, prec, trmm)
CHG_CPRECISIONS(CTRMM_CL)
#undef CTRMM_CL
