/*
 * lapack_fortran.c -- the LAPACK drop-in's S and D entry points for the factorizations and their
 * solvers: {s,d}{potrf,potrs,posv,getrf,getrs,gesv,geqrf,ormqr,orgqr,gels}_ in gfortran's
 * convention (every argument by reference, the hidden lengths of the character arguments last).
 * Each checks its arguments as LAPACK 3.11 does, in its order, and reports the first bad one as
 * LAPACK does -- INFO = -position and xerbla_ with the routine's name as LAPACK spells it --
 * before anything is read or written; a workspace query (lwork = -1) is answered by the CPU
 * LAPACK; then the call runs through lapack_run.c. Everything else of LAPACK is forwarded to the
 * CPU LAPACK (src/lapack_dropin/lapack_symbols.txt).
 *
 * The workspace of geqrf, ormqr, orgqr and gels: checked against LAPACK's minimum (its
 * "LWORK too small" errors), handed to the CPU LAPACK when the call runs there, and not needed
 * on the devices, where WORK(1) still returns the optimal size as LAPACK's contract says.
 */
#include <ctype.h>
#include <stddef.h>

#include "kernels/precision.h"
#include "lapack_dropin/lapack_run.h"

#define LAPACK_API __attribute__((visibility("default")))

/* Marks this library, so that its CPU LAPACK is never itself (cpu/blas_dlopen.c). */
LAPACK_API const int clhgemm_lapack_dropin = 1;

static char up(const char *c) { return (char)toupper((unsigned char)*c); }
static int max1(int x) { return x > 1 ? x : 1; }
static int ul_ok(char u) { return u == 'U' || u == 'L'; }

/* ---- LAPACK 3.11's checks (their INFO positions) ------------------------------------------- */

static int check_potrf(const chg_la_call_t *c)
{
    if (!ul_ok(c->uplo)) return 1;
    if (c->n < 0) return 2;
    if (c->lda < max1(c->n)) return 4;
    return 0;
}

/* potrs and posv: the same arguments */
static int check_potrs(const chg_la_call_t *c)
{
    if (!ul_ok(c->uplo)) return 1;
    if (c->n < 0) return 2;
    if (c->nrhs < 0) return 3;
    if (c->lda < max1(c->n)) return 5;
    if (c->ldb < max1(c->n)) return 7;
    return 0;
}

static int check_getrf(const chg_la_call_t *c)
{
    if (c->m < 0) return 1;
    if (c->n < 0) return 2;
    if (c->lda < max1(c->m)) return 4;
    return 0;
}

static int check_getrs(const chg_la_call_t *c)
{
    if (c->trans != 'N' && c->trans != 'T' && c->trans != 'C') return 1;
    if (c->n < 0) return 2;
    if (c->nrhs < 0) return 3;
    if (c->lda < max1(c->n)) return 5;
    if (c->ldb < max1(c->n)) return 8;
    return 0;
}

static int check_gesv(const chg_la_call_t *c)
{
    if (c->n < 0) return 1;
    if (c->nrhs < 0) return 2;
    if (c->lda < max1(c->n)) return 4;
    if (c->ldb < max1(c->n)) return 7;
    return 0;
}

static int check_geqrf(const chg_la_call_t *c)
{
    if (c->m < 0) return 1;
    if (c->n < 0) return 2;
    if (c->lda < max1(c->m)) return 4;
    if (c->lwork != -1 && (c->lwork <= 0 || (c->m > 0 && c->lwork < max1(c->n)))) return 7;
    return 0;
}

static int check_ormqr(const chg_la_call_t *c)
{
    const int left = c->side == 'L', nq = left ? c->m : c->n, nw = max1(left ? c->n : c->m);
    if (!left && c->side != 'R') return 1;
    if (c->trans != 'N' && c->trans != 'T') return 2;
    if (c->m < 0) return 3;
    if (c->n < 0) return 4;
    if (c->k < 0 || c->k > nq) return 5;
    if (c->lda < max1(nq)) return 7;
    if (c->ldb < max1(c->m)) return 10;
    if (c->lwork < nw && c->lwork != -1) return 12;
    return 0;
}

static int check_orgqr(const chg_la_call_t *c)
{
    if (c->m < 0) return 1;
    if (c->n < 0 || c->n > c->m) return 2;
    if (c->k < 0 || c->k > c->n) return 3;
    if (c->lda < max1(c->m)) return 5;
    if (c->lwork < max1(c->n) && c->lwork != -1) return 8;
    return 0;
}

static int check_gels(const chg_la_call_t *c)
{
    const int mn = c->m < c->n ? c->m : c->n;
    const int mx = c->m > c->n ? c->m : c->n;
    if (c->trans != 'N' && c->trans != 'T') return 1;
    if (c->m < 0) return 2;
    if (c->n < 0) return 3;
    if (c->nrhs < 0) return 4;
    if (c->lda < max1(c->m)) return 6;
    if (c->ldb < max1(mx)) return 8;
    if (c->lwork < max1(mn + (mn > c->nrhs ? mn : c->nrhs)) && c->lwork != -1) return 10;
    return 0;
}

typedef int (*check_f)(const chg_la_call_t *);

static const struct {
    check_f check;
    const char *name[2]; /* as LAPACK passes them to XERBLA, six characters */
    int lwork_pos;       /* the position of LWORK; 0: none */
} g_routine[LA_COUNT] = {
    [LA_POTRF] = {check_potrf, {"SPOTRF", "DPOTRF"}, 0},
    [LA_POTRS] = {check_potrs, {"SPOTRS", "DPOTRS"}, 0},
    [LA_POSV] = {check_potrs, {"SPOSV ", "DPOSV "}, 0},
    [LA_GETRF] = {check_getrf, {"SGETRF", "DGETRF"}, 0},
    [LA_GETRS] = {check_getrs, {"SGETRS", "DGETRS"}, 0},
    [LA_GESV] = {check_gesv, {"SGESV ", "DGESV "}, 0},
    [LA_GEQRF] = {check_geqrf, {"SGEQRF", "DGEQRF"}, 7},
    [LA_ORMQR] = {check_ormqr, {"SORMQR", "DORMQR"}, 12},
    [LA_ORGQR] = {check_orgqr, {"SORGQR", "DORGQR"}, 8},
    [LA_GELS] = {check_gels, {"SGELS ", "DGELS "}, 10},
};

/* A call in the Fortran view: checked, then run. */
static void fortran_call(chg_la_call_t *c)
{
    const int pos = g_routine[c->routine].check(c);
    if (!pos) {
        chg_la_run(c);
        return;
    }
    /* gels and orgqr set WORK(1) to the optimal size before they report a short workspace */
    if (pos == g_routine[c->routine].lwork_pos &&
        (c->routine == LA_GELS || c->routine == LA_ORGQR)) {
        int info = 0;
        chg_la_call_t q = *c;
        q.lwork = -1;
        q.info = &info;
        chg_la_cpu(&q);
    }
    *c->info = -pos;
    chg_la_xerbla(g_routine[c->routine].name[c->dbl], pos);
}

/* ---- the entry points ---------------------------------------------------------------------- */

/* Generated over CHG_PRECISIONS (p, T, DBL): the precision, CHG_F32 or CHG_F64, is what
 * chg_la_call_t's dbl takes as 0 or 1. */
_Static_assert(CHG_F32 == 0 && CHG_F64 == 1, "DBL of FORTRAN_LAPACK is the precision");

#define FORTRAN_LAPACK(P, T, DBL)                                                                  \
    LAPACK_API void P##potrf_(const char *uplo, const int *n, T *a, const int *lda, int *info,     \
                              size_t l1)                                                           \
    {                                                                                              \
        (void)l1;                                                                                  \
        fortran_call(&(chg_la_call_t){.routine = LA_POTRF, .dbl = DBL, .uplo = up(uplo), .n = *n, \
                                      .a = a, .lda = *lda, .info = info});                         \
    }                                                                                              \
    LAPACK_API void P##potrs_(const char *uplo, const int *n, const int *nrhs, const T *a,         \
                              const int *lda, T *b, const int *ldb, int *info, size_t l1)          \
    {                                                                                              \
        (void)l1;                                                                                  \
        fortran_call(&(chg_la_call_t){.routine = LA_POTRS, .dbl = DBL, .uplo = up(uplo), .n = *n, \
                                      .nrhs = *nrhs, .a = (T *)a, .lda = *lda, .b = b,             \
                                      .ldb = *ldb, .info = info});                                 \
    }                                                                                              \
    LAPACK_API void P##posv_(const char *uplo, const int *n, const int *nrhs, T *a,                \
                             const int *lda, T *b, const int *ldb, int *info, size_t l1)           \
    {                                                                                              \
        (void)l1;                                                                                  \
        fortran_call(&(chg_la_call_t){.routine = LA_POSV, .dbl = DBL, .uplo = up(uplo), .n = *n,  \
                                      .nrhs = *nrhs, .a = a, .lda = *lda, .b = b, .ldb = *ldb,     \
                                      .info = info});                                              \
    }                                                                                              \
    LAPACK_API void P##getrf_(const int *m, const int *n, T *a, const int *lda, int *ipiv,         \
                              int *info)                                                           \
    {                                                                                              \
        fortran_call(&(chg_la_call_t){.routine = LA_GETRF, .dbl = DBL, .m = *m, .n = *n, .a = a,  \
                                      .lda = *lda, .ipiv = ipiv, .info = info});                   \
    }                                                                                              \
    LAPACK_API void P##getrs_(const char *trans, const int *n, const int *nrhs, const T *a,        \
                              const int *lda, const int *ipiv, T *b, const int *ldb, int *info,    \
                              size_t l1)                                                           \
    {                                                                                              \
        (void)l1;                                                                                  \
        fortran_call(&(chg_la_call_t){.routine = LA_GETRS, .dbl = DBL, .trans = up(trans),        \
                                      .n = *n, .nrhs = *nrhs, .a = (T *)a, .lda = *lda,            \
                                      .ipiv = (int *)ipiv, .b = b, .ldb = *ldb, .info = info});    \
    }                                                                                              \
    LAPACK_API void P##gesv_(const int *n, const int *nrhs, T *a, const int *lda, int *ipiv, T *b, \
                             const int *ldb, int *info)                                            \
    {                                                                                              \
        fortran_call(&(chg_la_call_t){.routine = LA_GESV, .dbl = DBL, .n = *n, .nrhs = *nrhs,     \
                                      .a = a, .lda = *lda, .ipiv = ipiv, .b = b, .ldb = *ldb,      \
                                      .info = info});                                              \
    }                                                                                              \
    LAPACK_API void P##geqrf_(const int *m, const int *n, T *a, const int *lda, T *tau, T *work,   \
                              const int *lwork, int *info)                                         \
    {                                                                                              \
        fortran_call(&(chg_la_call_t){.routine = LA_GEQRF, .dbl = DBL, .m = *m, .n = *n, .a = a,  \
                                      .lda = *lda, .tau = tau, .work = work, .lwork = *lwork,      \
                                      .info = info});                                              \
    }                                                                                              \
    LAPACK_API void P##ormqr_(const char *side, const char *trans, const int *m, const int *n,     \
                              const int *k, const T *a, const int *lda, const T *tau, T *c,        \
                              const int *ldc, T *work, const int *lwork, int *info, size_t l1,     \
                              size_t l2)                                                           \
    {                                                                                              \
        (void)l1, (void)l2;                                                                        \
        fortran_call(&(chg_la_call_t){.routine = LA_ORMQR, .dbl = DBL, .side = up(side),          \
                                      .trans = up(trans), .m = *m, .n = *n, .k = *k, .a = (T *)a, \
                                      .lda = *lda, .tau = (T *)tau, .b = c, .ldb = *ldc,           \
                                      .work = work, .lwork = *lwork, .info = info});               \
    }                                                                                              \
    LAPACK_API void P##orgqr_(const int *m, const int *n, const int *k, T *a, const int *lda,      \
                              const T *tau, T *work, const int *lwork, int *info)                  \
    {                                                                                              \
        fortran_call(&(chg_la_call_t){.routine = LA_ORGQR, .dbl = DBL, .m = *m, .n = *n, .k = *k, \
                                      .a = a, .lda = *lda, .tau = (T *)tau, .work = work,          \
                                      .lwork = *lwork, .info = info});                             \
    }                                                                                              \
    LAPACK_API void P##gels_(const char *trans, const int *m, const int *n, const int *nrhs, T *a, \
                             const int *lda, T *b, const int *ldb, T *work, const int *lwork,      \
                             int *info, size_t l1)                                                 \
    {                                                                                              \
        (void)l1;                                                                                  \
        fortran_call(&(chg_la_call_t){.routine = LA_GELS, .dbl = DBL, .trans = up(trans),         \
                                      .m = *m, .n = *n, .nrhs = *nrhs, .a = a, .lda = *lda,        \
                                      .b = b, .ldb = *ldb, .work = work, .lwork = *lwork,          \
                                      .info = info});                                              \
    }
CHG_PRECISIONS(FORTRAN_LAPACK)
#undef FORTRAN_LAPACK
