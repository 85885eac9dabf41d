/*
 * dropin_l3.c -- the drop-in's level-3 entry points, S, D, C and Z: the Fortran interface
 * (gfortran's convention: every argument by reference, the hidden lengths of the character
 * arguments last) and the CBLAS interface. Each checks its arguments in the reference BLAS's
 * order and reports the first bad one as the reference does -- xerbla_ with the routine's name
 * and position; CBLAS: cblas_xerbla for the layout and the enum arguments, then the Fortran
 * checks of the mapped call with CBLAS_CallFromC and RowMajorStrg set, as the reference CBLAS
 * does -- before anything is read or written; then the call runs through dropin.c. Everything
 * else of the BLAS is forwarded to the CPU BLAS (src/blas/forward_symbols.txt). TRSM checks as
 * TRMM does, HEMM as SYMM. The complex rank-k updates take only the transposes the reference
 * ZSYRK (N, T) and ZHERK (N, C) take; their CBLAS row-major forms map them as the reference
 * CBLAS does (SYRK: T to N, N to T; HERK, HER2K: C to N, N to C; anything else reported as an
 * illegal Trans), and row-major HER2K is the column-major one with conj(alpha).
 */
#include <cblas.h>
#include <ctype.h>
#include <stddef.h>

#include "blas/dropin.h"

#define BLAS_API __attribute__((visibility("default")))

/* The reference CBLAS's globals, which its test programs read (exported, as Debian's are). */
BLAS_API int RowMajorStrg;
BLAS_API int CBLAS_CallFromC;
/* Marks this library, so that its CPU BLAS is never itself (cpu/blas_dlopen.c). */
BLAS_API const int clhgemm_blas_dropin = 1;

static char up(const char *c) { return (char)toupper((unsigned char)*c); }
static int max1(int x) { return x > 1 ? x : 1; }
static int is_tr(char t) { return t == 'N' || t == 'T' || t == 'C'; }

/* The trans of a rank-k update: any for the real ones, N or T for the complex SYRK / SYR2K, N or
 * C for HERK / HER2K. */
static int is_tr_k(const chg_blas_call_t *c)
{
    if (c->routine == BL_HERK || c->routine == BL_HER2K) return c->ta == 'N' || c->ta == 'C';
    if (c->cplx) return c->ta == 'N' || c->ta == 'T';
    return is_tr(c->ta);
}

/* ---- the reference checks (their INFO values) -------------------------------------------------- */

static int check_gemm(const chg_blas_call_t *c)
{
    const int nrowa = c->ta == 'N' ? c->m : c->k, nrowb = c->tb == 'N' ? c->k : c->n;
    if (!is_tr(c->ta)) return 1;
    if (!is_tr(c->tb)) return 2;
    if (c->m < 0) return 3;
    if (c->n < 0) return 4;
    if (c->k < 0) return 5;
    if (c->lda < max1(nrowa)) return 8;
    if (c->ldb < max1(nrowb)) return 10;
    if (c->ldc < max1(c->m)) return 13;
    return 0;
}

static int check_symm(const chg_blas_call_t *c)
{
    const int nrowa = c->side == 'L' ? c->m : c->n;
    if (c->side != 'L' && c->side != 'R') return 1;
    if (c->uplo != 'U' && c->uplo != 'L') return 2;
    if (c->m < 0) return 3;
    if (c->n < 0) return 4;
    if (c->lda < max1(nrowa)) return 7;
    if (c->ldb < max1(c->m)) return 9;
    if (c->ldc < max1(c->m)) return 12;
    return 0;
}

/* SYRK and SYR2K (two: SYR2K's B and its later positions). */
static int check_syrk(const chg_blas_call_t *c, int two)
{
    const int nrowa = c->ta == 'N' ? c->n : c->k;
    if (c->uplo != 'U' && c->uplo != 'L') return 1;
    if (!is_tr_k(c)) return 2;
    if (c->n < 0) return 3;
    if (c->k < 0) return 4;
    if (c->lda < max1(nrowa)) return 7;
    if (two && c->ldb < max1(nrowa)) return 9;
    if (c->ldc < max1(c->n)) return two ? 12 : 10;
    return 0;
}

static int check_trmm(const chg_blas_call_t *c)
{
    const int nrowa = c->side == 'L' ? c->m : c->n;
    if (c->side != 'L' && c->side != 'R') return 1;
    if (c->uplo != 'U' && c->uplo != 'L') return 2;
    if (!is_tr(c->ta)) return 3;
    if (c->diag != 'U' && c->diag != 'N') return 4;
    if (c->m < 0) return 5;
    if (c->n < 0) return 6;
    if (c->lda < max1(nrowa)) return 9;
    if (c->ldc < max1(c->m)) return 11;
    return 0;
}

static int check(const chg_blas_call_t *c)
{
    switch (c->routine) {
    case BL_GEMM: return check_gemm(c);
    case BL_SYMM: case BL_HEMM: return check_symm(c);
    case BL_SYRK: case BL_HERK: return check_syrk(c, 0);
    case BL_SYR2K: case BL_HER2K: return check_syrk(c, 1);
    default: return check_trmm(c); /* TRMM, TRSM: the same arguments */
    }
}

/* The reference's names by routine and precision (s, d, c, z: chg_blas_pi). */
static const char *const g_fname[BL_COUNT][4] = {
    {"SGEMM ", "DGEMM ", "CGEMM ", "ZGEMM "}, {"SSYMM ", "DSYMM ", "CSYMM ", "ZSYMM "},
    {"SSYRK ", "DSYRK ", "CSYRK ", "ZSYRK "}, {"SSYR2K", "DSYR2K", "CSYR2K", "ZSYR2K"},
    {"STRMM ", "DTRMM ", "CTRMM ", "ZTRMM "}, {"STRSM ", "DTRSM ", "CTRSM ", "ZTRSM "},
    {"", "", "CHEMM ", "ZHEMM "}, {"", "", "CHERK ", "ZHERK "}, {"", "", "CHER2K", "ZHER2K"}};

/* A call in the Fortran view: checked, then run. */
static void fortran_call(const chg_blas_call_t *c)
{
    const int info = check(c);
    if (info)
        chg_blas_xerbla(g_fname[c->routine][chg_blas_pi(c)], info);
    else
        chg_blas_run(c);
}

/* The complex scalars of a call from the caller's pairs of T (dbl: double), NULL for none; a
 * real one (HERK's, HER2K's beta) from a T. */
static void cz_scalars(chg_blas_call_t *c, const void *alpha, const void *beta, int real_alpha,
                       int real_beta)
{
    const int n[2] = {real_alpha ? 1 : 2, real_beta ? 1 : 2};
    const void *v[2] = {alpha, beta};
    double *out[2][2] = {{&c->alpha, &c->alpha_im}, {&c->beta, &c->beta_im}};
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 2; i++)
            *out[s][i] = !v[s] || i >= n[s] ? 0.0
                         : c->dbl     ? ((const double *)v[s])[i]
                                      : (double)((const float *)v[s])[i];
}

/* A GEMM of m, n, k <= CHG_BLAS_SMALL_MAX whose arguments pass the checks (check_gemm's, on the
 * call's own scalars: the Fortran view, transposes as upper-case characters): straight to the
 * small-GEMM path (dropin.h chg_blas_small_gemm, inline: the kernel or the CPU BLAS's GEMM called
 * from here), with no chg_blas_call_t built, no fortran_call, no chg_blas_run. 1 when it ran; 0 for
 * the full path (which reports a bad argument). */
static inline __attribute__((always_inline)) int small_gemm(int dbl, char ta, char tb, int m, int n, int k,
                                                            double alpha, const void *a, int lda, const void *b,
                                                            int ldb, double beta, void *c, int ldc)
{
    const unsigned most = CHG_BLAS_SMALL_MAX; /* m, n, k in 0 .. most */
    if ((unsigned)m > most || (unsigned)n > most || (unsigned)k > most || !is_tr(ta) || !is_tr(tb)) return 0;
    const int nrowa = ta == 'N' ? m : k, nrowb = tb == 'N' ? k : n;
    if (lda < max1(nrowa) || ldb < max1(nrowb) || ldc < max1(m)) return 0;
    return chg_blas_small_gemm(dbl, ta != 'N', tb != 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* ---- Fortran interface ------------------------------------------------------------------------- */

/* The entry points of both interfaces are generated over CHG_PRECISIONS (p, T, DBL): the
 * precision, CHG_F32 or CHG_F64, is what chg_blas_call_t's dbl and small_gemm take as 0 or 1. */
_Static_assert(CHG_F32 == 0 && CHG_F64 == 1, "DBL of FORTRAN_L3 and CBLAS_L3 is the precision");

/* TRMM and TRSM: the same arguments */
#define FORTRAN_TRI(P, T, DBL, NAME, ROUTINE)                                                                    \
    BLAS_API void P##NAME##_(const char *side, const char *uplo, const char *transa, const char *diag,           \
                           const int *m, const int *n, const T *alpha, const T *a, const int *lda, T *b,        \
                           const int *ldb, size_t l1, size_t l2, size_t l3, size_t l4)                           \
    {                                                                                                            \
        (void)l1, (void)l2, (void)l3, (void)l4;                                                                  \
        fortran_call(&(chg_blas_call_t){.routine = ROUTINE, .dbl = DBL, .side = up(side), .uplo = up(uplo),         \
                                    .ta = up(transa), .diag = up(diag), .m = *m, .n = *n, .alpha = *alpha,       \
                                    .a = a, .c = b, .lda = *lda, .ldc = *ldb});                                  \
    }

#define FORTRAN_L3(P, T, DBL)                                                                                    \
    BLAS_API void P##gemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,           \
                           const T *alpha, const T *a, const int *lda, const T *b, const int *ldb, const T *beta, \
                           T *c, const int *ldc, size_t l1, size_t l2)                                           \
    {                                                                                                            \
        (void)l1, (void)l2;                                                                                      \
        const char tra = up(ta), trb = up(tb);                                                                   \
        if (small_gemm(DBL, tra, trb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc)) return;             \
        fortran_call(&(chg_blas_call_t){.routine = BL_GEMM, .dbl = DBL, .ta = tra, .tb = trb, .m = *m, .n = *n,      \
                                    .k = *k, .alpha = *alpha, .beta = *beta, .a = a, .b = b, .c = c,             \
                                    .lda = *lda, .ldb = *ldb, .ldc = *ldc});                                     \
    }                                                                                                            \
    BLAS_API void P##symm_(const char *side, const char *uplo, const int *m, const int *n, const T *alpha,      \
                           const T *a, const int *lda, const T *b, const int *ldb, const T *beta, T *c,         \
                           const int *ldc, size_t l1, size_t l2)                                                 \
    {                                                                                                            \
        (void)l1, (void)l2;                                                                                      \
        fortran_call(&(chg_blas_call_t){.routine = BL_SYMM, .dbl = DBL, .side = up(side), .uplo = up(uplo),         \
                                    .m = *m, .n = *n, .alpha = *alpha, .beta = *beta, .a = a, .b = b, .c = c,    \
                                    .lda = *lda, .ldb = *ldb, .ldc = *ldc});                                     \
    }                                                                                                            \
    BLAS_API void P##syrk_(const char *uplo, const char *trans, const int *n, const int *k, const T *alpha,    \
                           const T *a, const int *lda, const T *beta, T *c, const int *ldc, size_t l1,          \
                           size_t l2)                                                                            \
    {                                                                                                            \
        (void)l1, (void)l2;                                                                                      \
        fortran_call(&(chg_blas_call_t){.routine = BL_SYRK, .dbl = DBL, .uplo = up(uplo), .ta = up(trans),          \
                                    .n = *n, .k = *k, .alpha = *alpha, .beta = *beta, .a = a, .c = c,            \
                                    .lda = *lda, .ldb = 1, .ldc = *ldc});                                        \
    }                                                                                                            \
    BLAS_API void P##syr2k_(const char *uplo, const char *trans, const int *n, const int *k, const T *alpha,   \
                            const T *a, const int *lda, const T *b, const int *ldb, const T *beta, T *c,        \
                            const int *ldc, size_t l1, size_t l2)                                                \
    {                                                                                                            \
        (void)l1, (void)l2;                                                                                      \
        fortran_call(&(chg_blas_call_t){.routine = BL_SYR2K, .dbl = DBL, .uplo = up(uplo), .ta = up(trans),         \
                                    .n = *n, .k = *k, .alpha = *alpha, .beta = *beta, .a = a, .b = b, .c = c,    \
                                    .lda = *lda, .ldb = *ldb, .ldc = *ldc});                                     \
    }                                                                                                            \
    FORTRAN_TRI(P, T, DBL, trmm, BL_TRMM)                                                                      \
    FORTRAN_TRI(P, T, DBL, trsm, BL_TRSM)

CHG_PRECISIONS(FORTRAN_L3)

/* The complex routines (CHG_CPRECISIONS: P c or z, T the parts' type, DBL their precision): the
 * same checks and path, the scalars read from the caller's (re, im) pairs (HERK's alpha and beta
 * and HER2K's beta are one T, as in the reference). */
static void fortran_cz(chg_blas_call_t c, const void *alpha, const void *beta)
{
    cz_scalars(&c, alpha, beta, c.routine == BL_HERK, c.routine == BL_HERK || c.routine == BL_HER2K);
    fortran_call(&c);
}

#define FORTRAN_CZ_TRI(P, T, DBL, NAME, ROUTINE)                                                                 \
    BLAS_API void P##NAME##_(const char *side, const char *uplo, const char *transa, const char *diag,           \
                             const int *m, const int *n, const void *alpha, const void *a, const int *lda,       \
                             void *b, const int *ldb, size_t l1, size_t l2, size_t l3, size_t l4)                \
    {                                                                                                            \
        (void)l1, (void)l2, (void)l3, (void)l4;                                                                  \
        fortran_cz((chg_blas_call_t){.routine = ROUTINE, .dbl = DBL, .cplx = 1, .side = up(side),                \
                                     .uplo = up(uplo), .ta = up(transa), .diag = up(diag), .m = *m, .n = *n,     \
                                     .a = a, .c = b, .lda = *lda, .ldc = *ldb},                                  \
                   alpha, NULL);                                                                                 \
    }

/* SYMM and HEMM (ROUTINE); SYRK and HERK; SYR2K and HER2K: the same arguments each pair */
#define FORTRAN_CZ_SYMM(P, T, DBL, NAME, ROUTINE)                                                                \
    BLAS_API void P##NAME##_(const char *side, const char *uplo, const int *m, const int *n, const void *alpha,  \
                             const void *a, const int *lda, const void *b, const int *ldb, const void *beta,     \
                             void *c, const int *ldc, size_t l1, size_t l2)                                      \
    {                                                                                                            \
        (void)l1, (void)l2;                                                                                      \
        fortran_cz((chg_blas_call_t){.routine = ROUTINE, .dbl = DBL, .cplx = 1, .side = up(side),                \
                                     .uplo = up(uplo), .m = *m, .n = *n, .a = a, .b = b, .c = c, .lda = *lda,     \
                                     .ldb = *ldb, .ldc = *ldc},                                                  \
                   alpha, beta);                                                                                 \
    }
#define FORTRAN_CZ_SYRK(P, T, DBL, NAME, ROUTINE)                                                                \
    BLAS_API void P##NAME##_(const char *uplo, const char *trans, const int *n, const int *k, const void *alpha, \
                             const void *a, const int *lda, const void *beta, void *c, const int *ldc,           \
                             size_t l1, size_t l2)                                                               \
    {                                                                                                            \
        (void)l1, (void)l2;                                                                                      \
        fortran_cz((chg_blas_call_t){.routine = ROUTINE, .dbl = DBL, .cplx = 1, .uplo = up(uplo),                \
                                     .ta = up(trans), .n = *n, .k = *k, .a = a, .c = c, .lda = *lda, .ldb = 1,   \
                                     .ldc = *ldc},                                                               \
                   alpha, beta);                                                                                 \
    }
#define FORTRAN_CZ_SYR2K(P, T, DBL, NAME, ROUTINE)                                                               \
    BLAS_API void P##NAME##_(const char *uplo, const char *trans, const int *n, const int *k, const void *alpha, \
                             const void *a, const int *lda, const void *b, const int *ldb, const void *beta,     \
                             void *c, const int *ldc, size_t l1, size_t l2)                                      \
    {                                                                                                            \
        (void)l1, (void)l2;                                                                                      \
        fortran_cz((chg_blas_call_t){.routine = ROUTINE, .dbl = DBL, .cplx = 1, .uplo = up(uplo),                \
                                     .ta = up(trans), .n = *n, .k = *k, .a = a, .b = b, .c = c, .lda = *lda,     \
                                     .ldb = *ldb, .ldc = *ldc},                                                  \
                   alpha, beta);                                                                                 \
    }

#define FORTRAN_CZ(P, T, DBL)                                                                                    \
    BLAS_API void P##gemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,             \
                           const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,      \
                           const void *beta, void *c, const int *ldc, size_t l1, size_t l2)                      \
    {                                                                                                            \
        (void)l1, (void)l2;                                                                                      \
        fortran_cz((chg_blas_call_t){.routine = BL_GEMM, .dbl = DBL, .cplx = 1, .ta = up(ta), .tb = up(tb),      \
                                     .m = *m, .n = *n, .k = *k, .a = a, .b = b, .c = c, .lda = *lda,             \
                                     .ldb = *ldb, .ldc = *ldc},                                                  \
                   alpha, beta);                                                                                 \
    }                                                                                                            \
    FORTRAN_CZ_SYMM(P, T, DBL, symm, BL_SYMM)                                                                    \
    FORTRAN_CZ_SYMM(P, T, DBL, hemm, BL_HEMM)                                                                    \
    FORTRAN_CZ_SYRK(P, T, DBL, syrk, BL_SYRK)                                                                    \
    FORTRAN_CZ_SYRK(P, T, DBL, herk, BL_HERK)                                                                    \
    FORTRAN_CZ_SYR2K(P, T, DBL, syr2k, BL_SYR2K)                                                                 \
    FORTRAN_CZ_SYR2K(P, T, DBL, her2k, BL_HER2K)                                                                 \
    FORTRAN_CZ_TRI(P, T, DBL, trmm, BL_TRMM)                                                                     \
    FORTRAN_CZ_TRI(P, T, DBL, trsm, BL_TRSM)

CHG_CPRECISIONS(FORTRAN_CZ)

/* ---- CBLAS interface ----------------------------------------------------------------------------- */

static char cb_trans(int t) { return t == CblasNoTrans ? 'N' : t == CblasTrans ? 'T' : t == CblasConjTrans ? 'C' : 0; }
static char cb_uplo(int u, int row) { return u == CblasUpper ? (row ? 'L' : 'U') : u == CblasLower ? (row ? 'U' : 'L') : 0; }
static char cb_side(int s, int row) { return s == CblasLeft ? (row ? 'R' : 'L') : s == CblasRight ? (row ? 'L' : 'R') : 0; }
static char cb_diag(int d) { return d == CblasUnit ? 'U' : d == CblasNonUnit ? 'N' : 0; }
/* SYRK/SYR2K in row-major: op swaps */
static char cb_trans_row(char t) { return t == 'N' ? 'T' : t ? 'N' : 0; }

/* The layout: 0 column-major, 1 row-major (RowMajorStrg set), -1 invalid (reported). */
static int cb_layout(int layout, const char *rout)
{
    RowMajorStrg = 0;
    CBLAS_CallFromC = 1;
    if (layout == CblasColMajor) return 0;
    if (layout == CblasRowMajor) return RowMajorStrg = 1;
    chg_blas_cblas_xerbla(1, rout, "layout", layout);
    return -1;
}

/* The first invalid enum argument (position, name, value), or the mapped call's Fortran checks. */
static void cb_finish(const chg_blas_call_t *c, int bad_pos, const char *rout, const char *what, int value)
{
    if (bad_pos)
        chg_blas_cblas_xerbla(bad_pos, rout, what, value);
    else
        fortran_call(c);
    CBLAS_CallFromC = 0;
    RowMajorStrg = 0;
}

/* TRMM and TRSM: the same arguments */
#define CBLAS_TRI(P, T, DBL, NAME, ROUTINE)                                                                      \
    BLAS_API void cblas_##P##NAME(const enum CBLAS_ORDER layout, const enum CBLAS_SIDE S,                      \
                                  const enum CBLAS_UPLO U, const enum CBLAS_TRANSPOSE TA,                       \
                                  const enum CBLAS_DIAG D, const blasint M, const blasint N, const T alpha,     \
                                  const T *A, const blasint lda, T *B, const blasint ldb)                       \
    {                                                                                                            \
        const char *rout = "cblas_" #P #NAME;                                                                   \
        const int row = cb_layout(layout, rout);                                                                 \
        if (row < 0) { CBLAS_CallFromC = 0; return; }                                                            \
        const char side = cb_side(S, row), uplo = cb_uplo(U, row), ta = cb_trans(TA), diag = cb_diag(D);        \
        chg_blas_call_t c = {.routine = ROUTINE, .dbl = DBL, .side = side, .uplo = uplo, .ta = ta, .diag = diag,     \
                         .m = row ? N : M, .n = row ? M : N, .alpha = alpha, .a = A, .c = B, .lda = lda,         \
                         .ldc = ldb};                                                                            \
        const int bad = !side ? 2 : !uplo ? 3 : !ta ? 4 : !diag ? 5 : 0;                                         \
        static const char *const what[] = {"", "", "Side", "Uplo", "TransA", "Diag"};                           \
        const int val[] = {0, 0, (int)S, (int)U, (int)TA, (int)D};                                               \
        cb_finish(&c, bad, rout, what[bad], val[bad]);                                                           \
    }

#define CBLAS_L3(P, T, DBL)                                                                                      \
    BLAS_API void cblas_##P##gemm(const enum CBLAS_ORDER layout, const enum CBLAS_TRANSPOSE TA,                \
                                  const enum CBLAS_TRANSPOSE TB, const blasint M, const blasint N,              \
                                  const blasint K, const T alpha, const T *A, const blasint lda, const T *B,    \
                                  const blasint ldb, const T beta, T *C, const blasint ldc)                     \
    {                                                                                                            \
        const char *rout = "cblas_" #P "gemm";                                                                   \
        /* a small valid call: the small path, before cb_layout's stores (the globals end at 0 as  \
         * cb_finish leaves them) */                                                                             \
        if (layout == CblasColMajor || layout == CblasRowMajor) {                                                \
            const int r = layout == CblasRowMajor;                                                               \
            const char ta = cb_trans(TA), tb = cb_trans(TB);                                                     \
            if (ta && tb && small_gemm(DBL, r ? tb : ta, r ? ta : tb, r ? N : M, r ? M : N, K, alpha, r ? B : A,   \
                                       r ? ldb : lda, r ? A : B, r ? lda : ldb, beta, C, ldc)) {                 \
                CBLAS_CallFromC = 0;                                                                             \
                RowMajorStrg = 0;                                                                                \
                return;                                                                                          \
            }                                                                                                    \
        }                                                                                                        \
        const int row = cb_layout(layout, rout);                                                                 \
        if (row < 0) { CBLAS_CallFromC = 0; return; }                                                            \
        const char ta = cb_trans(TA), tb = cb_trans(TB);                                                         \
        chg_blas_call_t c = {.routine = BL_GEMM, .dbl = DBL, .ta = row ? tb : ta, .tb = row ? ta : tb,               \
                         .m = row ? N : M, .n = row ? M : N, .k = K, .alpha = alpha, .beta = beta,               \
                         .a = row ? B : A, .b = row ? A : B, .c = C, .lda = row ? ldb : lda,                      \
                         .ldb = row ? lda : ldb, .ldc = ldc};                                                    \
        cb_finish(&c, !ta ? 2 : !tb ? 3 : 0, rout, !ta ? "TransA" : "TransB", !ta ? (int)TA : (int)TB);           \
    }                                                                                                            \
    BLAS_API void cblas_##P##symm(const enum CBLAS_ORDER layout, const enum CBLAS_SIDE S,                      \
                                  const enum CBLAS_UPLO U, const blasint M, const blasint N, const T alpha,     \
                                  const T *A, const blasint lda, const T *B, const blasint ldb, const T beta,   \
                                  T *C, const blasint ldc)                                                      \
    {                                                                                                            \
        const char *rout = "cblas_" #P "symm";                                                                   \
        const int row = cb_layout(layout, rout);                                                                 \
        if (row < 0) { CBLAS_CallFromC = 0; return; }                                                            \
        const char side = cb_side(S, row), uplo = cb_uplo(U, row);                                               \
        chg_blas_call_t c = {.routine = BL_SYMM, .dbl = DBL, .side = side, .uplo = uplo, .m = row ? N : M,          \
                         .n = row ? M : N, .alpha = alpha, .beta = beta, .a = A, .b = B, .c = C, .lda = lda,     \
                         .ldb = ldb, .ldc = ldc};                                                                \
        cb_finish(&c, !side ? 2 : !uplo ? 3 : 0, rout, !side ? "Side" : "Uplo", !side ? (int)S : (int)U);         \
    }                                                                                                            \
    BLAS_API void cblas_##P##syrk(const enum CBLAS_ORDER layout, const enum CBLAS_UPLO U,                      \
                                  const enum CBLAS_TRANSPOSE Tr, const blasint N, const blasint K,              \
                                  const T alpha, const T *A, const blasint lda, const T beta, T *C,             \
                                  const blasint ldc)                                                            \
    {                                                                                                            \
        const char *rout = "cblas_" #P "syrk";                                                                   \
        const int row = cb_layout(layout, rout);                                                                 \
        if (row < 0) { CBLAS_CallFromC = 0; return; }                                                            \
        const char uplo = cb_uplo(U, row), t0 = cb_trans(Tr), tr = row ? cb_trans_row(t0) : t0;                   \
        chg_blas_call_t c = {.routine = BL_SYRK, .dbl = DBL, .uplo = uplo, .ta = tr, .n = N, .k = K,                 \
                         .alpha = alpha, .beta = beta, .a = A, .c = C, .lda = lda, .ldb = 1, .ldc = ldc};        \
        cb_finish(&c, !uplo ? 2 : !tr ? 3 : 0, rout, !uplo ? "Uplo" : "Trans", !uplo ? (int)U : (int)Tr);         \
    }                                                                                                            \
    BLAS_API void cblas_##P##syr2k(const enum CBLAS_ORDER layout, const enum CBLAS_UPLO U,                     \
                                   const enum CBLAS_TRANSPOSE Tr, const blasint N, const blasint K,             \
                                   const T alpha, const T *A, const blasint lda, const T *B, const blasint ldb, \
                                   const T beta, T *C, const blasint ldc)                                       \
    {                                                                                                            \
        const char *rout = "cblas_" #P "syr2k";                                                                  \
        const int row = cb_layout(layout, rout);                                                                 \
        if (row < 0) { CBLAS_CallFromC = 0; return; }                                                            \
        const char uplo = cb_uplo(U, row), t0 = cb_trans(Tr), tr = row ? cb_trans_row(t0) : t0;                   \
        chg_blas_call_t c = {.routine = BL_SYR2K, .dbl = DBL, .uplo = uplo, .ta = tr, .n = N, .k = K,                \
                         .alpha = alpha, .beta = beta, .a = A, .b = B, .c = C, .lda = lda, .ldb = ldb,           \
                         .ldc = ldc};                                                                            \
        cb_finish(&c, !uplo ? 2 : !tr ? 3 : 0, rout, !uplo ? "Uplo" : "Trans", !uplo ? (int)U : (int)Tr);         \
    }                                                                                                            \
    CBLAS_TRI(P, T, DBL, trmm, BL_TRMM)                                                                        \
    CBLAS_TRI(P, T, DBL, trsm, BL_TRSM)

CHG_PRECISIONS(CBLAS_L3)

/* ---- CBLAS, complex --------------------------------------------------------------------------- */

/* The complex rank-k update's trans in row-major (the reference CBLAS's mapping): SYRK, SYR2K T
 * to N and N to T; HERK, HER2K C to N and N to C; 0 (illegal) otherwise. */
static char cb_trans_row_cz(int t, int herm)
{
    if (t == CblasNoTrans) return herm ? 'C' : 'T';
    return t == (herm ? CblasConjTrans : CblasTrans) ? 'N' : 0;
}

/* A complex call after the layout: the scalars read, then cb_finish. */
static void cb_finish_cz(chg_blas_call_t *c, const void *alpha, const void *beta, int bad_pos, const char *rout,
                         const char *what, int value)
{
    cz_scalars(c, alpha, beta, c->routine == BL_HERK, c->routine == BL_HERK || c->routine == BL_HER2K);
    /* row-major HER2K: C^T = conj(C) is the column-major one with conj(alpha) */
    if (c->routine == BL_HER2K && RowMajorStrg) c->alpha_im = -c->alpha_im;
    cb_finish(c, bad_pos, rout, what, value);
}

#define CBLAS_CZ_TRI(P, T, DBL, NAME, ROUTINE)                                                                   \
    BLAS_API void cblas_##P##NAME(const enum CBLAS_ORDER layout, const enum CBLAS_SIDE S,                        \
                                  const enum CBLAS_UPLO U, const enum CBLAS_TRANSPOSE TA,                         \
                                  const enum CBLAS_DIAG D, const blasint M, const blasint N, const void *alpha,   \
                                  const void *A, const blasint lda, void *B, const blasint ldb)                   \
    {                                                                                                            \
        const char *rout = "cblas_" #P #NAME;                                                                    \
        const int row = cb_layout(layout, rout);                                                                 \
        if (row < 0) { CBLAS_CallFromC = 0; return; }                                                            \
        const char side = cb_side(S, row), uplo = cb_uplo(U, row), ta = cb_trans(TA), diag = cb_diag(D);        \
        chg_blas_call_t c = {.routine = ROUTINE, .dbl = DBL, .cplx = 1, .side = side, .uplo = uplo, .ta = ta,    \
                             .diag = diag, .m = row ? N : M, .n = row ? M : N, .a = A, .c = B, .lda = lda,       \
                             .ldc = ldb};                                                                        \
        const int bad = !side ? 2 : !uplo ? 3 : !ta ? 4 : !diag ? 5 : 0;                                         \
        static const char *const what[] = {"", "", "Side", "Uplo", "TransA", "Diag"};                           \
        const int val[] = {0, 0, (int)S, (int)U, (int)TA, (int)D};                                               \
        cb_finish_cz(&c, alpha, NULL, bad, rout, what[bad], val[bad]);                                           \
    }
#define CBLAS_CZ_SYMM(P, T, DBL, NAME, ROUTINE)                                                                  \
    BLAS_API void cblas_##P##NAME(const enum CBLAS_ORDER layout, const enum CBLAS_SIDE S,                        \
                                  const enum CBLAS_UPLO U, const blasint M, const blasint N, const void *alpha,   \
                                  const void *A, const blasint lda, const void *B, const blasint ldb,             \
                                  const void *beta, void *C, const blasint ldc)                                  \
    {                                                                                                            \
        const char *rout = "cblas_" #P #NAME;                                                                    \
        const int row = cb_layout(layout, rout);                                                                 \
        if (row < 0) { CBLAS_CallFromC = 0; return; }                                                            \
        const char side = cb_side(S, row), uplo = cb_uplo(U, row);                                               \
        chg_blas_call_t c = {.routine = ROUTINE, .dbl = DBL, .cplx = 1, .side = side, .uplo = uplo,              \
                             .m = row ? N : M, .n = row ? M : N, .a = A, .b = B, .c = C, .lda = lda, .ldb = ldb, \
                             .ldc = ldc};                                                                        \
        cb_finish_cz(&c, alpha, beta, !side ? 2 : !uplo ? 3 : 0, rout, !side ? "Side" : "Uplo",                  \
                     !side ? (int)S : (int)U);                                                                   \
    }
/* SYRK (HT const void *, herm 0) and HERK (HT T, herm 1); SYR2K and HER2K (BT: beta's type) */
#define CBLAS_CZ_SYRK(P, T, DBL, NAME, ROUTINE, HT, HERM, AL, BE)                                               \
    BLAS_API void cblas_##P##NAME(const enum CBLAS_ORDER layout, const enum CBLAS_UPLO U,                        \
                                  const enum CBLAS_TRANSPOSE Tr, const blasint N, const blasint K,                \
                                  const HT alpha, const void *A, const blasint lda, const HT beta, void *C,       \
                                  const blasint ldc)                                                             \
    {                                                                                                            \
        const char *rout = "cblas_" #P #NAME;                                                                    \
        const int row = cb_layout(layout, rout);                                                                 \
        if (row < 0) { CBLAS_CallFromC = 0; return; }                                                            \
        const char uplo = cb_uplo(U, row), tr = row ? cb_trans_row_cz(Tr, HERM) : cb_trans(Tr);                  \
        chg_blas_call_t c = {.routine = ROUTINE, .dbl = DBL, .cplx = 1, .uplo = uplo, .ta = tr, .n = N, .k = K,  \
                             .a = A, .c = C, .lda = lda, .ldb = 1, .ldc = ldc};                                  \
        cb_finish_cz(&c, AL, BE, !uplo ? 2 : !tr ? 3 : 0, rout, !uplo ? "Uplo" : "Trans",                        \
                     !uplo ? (int)U : (int)Tr);                                                                  \
    }
#define CBLAS_CZ_SYR2K(P, T, DBL, NAME, ROUTINE, BT, HERM, BE)                                                   \
    BLAS_API void cblas_##P##NAME(const enum CBLAS_ORDER layout, const enum CBLAS_UPLO U,                        \
                                  const enum CBLAS_TRANSPOSE Tr, const blasint N, const blasint K,                \
                                  const void *alpha, const void *A, const blasint lda, const void *B,             \
                                  const blasint ldb, const BT beta, void *C, const blasint ldc)                   \
    {                                                                                                            \
        const char *rout = "cblas_" #P #NAME;                                                                    \
        const int row = cb_layout(layout, rout);                                                                 \
        if (row < 0) { CBLAS_CallFromC = 0; return; }                                                            \
        const char uplo = cb_uplo(U, row), tr = row ? cb_trans_row_cz(Tr, HERM) : cb_trans(Tr);                  \
        chg_blas_call_t c = {.routine = ROUTINE, .dbl = DBL, .cplx = 1, .uplo = uplo, .ta = tr, .n = N, .k = K,  \
                             .a = A, .b = B, .c = C, .lda = lda, .ldb = ldb, .ldc = ldc};                        \
        cb_finish_cz(&c, alpha, BE, !uplo ? 2 : !tr ? 3 : 0, rout, !uplo ? "Uplo" : "Trans",                     \
                     !uplo ? (int)U : (int)Tr);                                                                  \
    }

#define CBLAS_CZ(P, T, DBL)                                                                                      \
    BLAS_API void cblas_##P##gemm(const enum CBLAS_ORDER layout, const enum CBLAS_TRANSPOSE TA,                  \
                                  const enum CBLAS_TRANSPOSE TB, const blasint M, const blasint N,                \
                                  const blasint K, const void *alpha, const void *A, const blasint lda,           \
                                  const void *B, const blasint ldb, const void *beta, void *C,                    \
                                  const blasint ldc)                                                             \
    {                                                                                                            \
        const char *rout = "cblas_" #P "gemm";                                                                   \
        const int row = cb_layout(layout, rout);                                                                 \
        if (row < 0) { CBLAS_CallFromC = 0; return; }                                                            \
        const char ta = cb_trans(TA), tb = cb_trans(TB);                                                         \
        chg_blas_call_t c = {.routine = BL_GEMM, .dbl = DBL, .cplx = 1, .ta = row ? tb : ta, .tb = row ? ta : tb, \
                             .m = row ? N : M, .n = row ? M : N, .k = K, .a = row ? B : A, .b = row ? A : B,      \
                             .c = C, .lda = row ? ldb : lda, .ldb = row ? lda : ldb, .ldc = ldc};                \
        cb_finish_cz(&c, alpha, beta, !ta ? 2 : !tb ? 3 : 0, rout, !ta ? "TransA" : "TransB",                    \
                     !ta ? (int)TA : (int)TB);                                                                   \
    }                                                                                                            \
    CBLAS_CZ_SYMM(P, T, DBL, symm, BL_SYMM)                                                                      \
    CBLAS_CZ_SYMM(P, T, DBL, hemm, BL_HEMM)                                                                      \
    CBLAS_CZ_SYRK(P, T, DBL, syrk, BL_SYRK, void *, 0, alpha, beta)                                              \
    CBLAS_CZ_SYRK(P, T, DBL, herk, BL_HERK, T, 1, &alpha, &beta)                                                 \
    CBLAS_CZ_SYR2K(P, T, DBL, syr2k, BL_SYR2K, void *, 0, beta)                                                  \
    CBLAS_CZ_SYR2K(P, T, DBL, her2k, BL_HER2K, T, 1, &beta)                                                      \
    CBLAS_CZ_TRI(P, T, DBL, trmm, BL_TRMM)                                                                       \
    CBLAS_CZ_TRI(P, T, DBL, trsm, BL_TRSM)

CHG_CPRECISIONS(CBLAS_CZ)
