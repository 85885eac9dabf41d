/*
 * lapack_link.h -- how the factorization layer reaches a CPU LAPACK (lapack_link.c owns it):
 * the Fortran routines it calls for its CPU panels, its CPU route and its solvers, as a table
 * of function pointers in both precisions.
 *
 * In the library (libclhgemm) the table holds OpenBLAS's own LAPACK routines, linked as usual.
 * In the drop-ins (built with CLHGEMM_CPU_DLOPEN) the library exports the Fortran LAPACK names
 * itself, so a linked call could land in its own entry points: there the table is filled from
 * the CPU library that cpu/ loads privately (RTLD_LOCAL; CLHGEMM_BLAS_CPU_LIB or
 * CLHGEMM_LAPACK_CPU_LIB, else libopenblas.so.0). A build without OpenBLAS, or a CPU library without LAPACK, gives a table
 * whose members are NULL: chg_lapack_ok says so, and the layer answers
 * CLHGEMM_NO_CPU_LAPACK rather than factor without one.
 *
 * The prototypes are gfortran's: every argument by reference, 32-bit integers (LP64), and the
 * hidden length of each character argument appended as a size_t.
 */
#ifndef CHG_CPU_LAPACK_LINK_H
#define CHG_CPU_LAPACK_LINK_H

#include <stddef.h>

typedef int chg_fint;  /* LAPACK's INTEGER (LP64) */

/* X(name, return, parameters): the routines, once per precision (t the element type). */
#define CHG_LAPACK_ROUTINES(X, p, t)                                                              \
    X(p##potrf, void, (const char *uplo, const chg_fint *n, t *a, const chg_fint *lda,           \
                       chg_fint *info, size_t luplo))                                            \
    X(p##potrf2, void, (const char *uplo, const chg_fint *n, t *a, const chg_fint *lda,          \
                        chg_fint *info, size_t luplo))                                           \
    X(p##getrf2, void, (const chg_fint *m, const chg_fint *n, t *a, const chg_fint *lda,         \
                        chg_fint *ipiv, chg_fint *info))                                         \
    X(p##getrf, void, (const chg_fint *m, const chg_fint *n, t *a, const chg_fint *lda,          \
                       chg_fint *ipiv, chg_fint *info))                                          \
    X(p##geqrf, void, (const chg_fint *m, const chg_fint *n, t *a, const chg_fint *lda, t *tau,  \
                       t *work, const chg_fint *lwork, chg_fint *info))                         \
    X(p##larft, void, (const char *direct, const char *storev, const chg_fint *n,                \
                       const chg_fint *k, const t *v, const chg_fint *ldv, const t *tau, t *tt,  \
                       const chg_fint *ldt, size_t ldirect, size_t lstorev))                     \
    X(p##laswp, void, (const chg_fint *n, t *a, const chg_fint *lda, const chg_fint *k1,         \
                       const chg_fint *k2, const chg_fint *ipiv, const chg_fint *incx))          \
    X(p##potrs, void, (const char *uplo, const chg_fint *n, const chg_fint *nrhs, const t *a,    \
                       const chg_fint *lda, t *b, const chg_fint *ldb, chg_fint *info,           \
                       size_t luplo))                                                            \
    X(p##posv, void, (const char *uplo, const chg_fint *n, const chg_fint *nrhs, t *a,           \
                      const chg_fint *lda, t *b, const chg_fint *ldb, chg_fint *info,             \
                      size_t luplo))                                                             \
    X(p##gesv, void, (const chg_fint *n, const chg_fint *nrhs, t *a, const chg_fint *lda,        \
                      chg_fint *ipiv, t *b, const chg_fint *ldb, chg_fint *info))                \
    X(p##getrs, void, (const char *trans, const chg_fint *n, const chg_fint *nrhs, const t *a,   \
                       const chg_fint *lda, const chg_fint *ipiv, t *b, const chg_fint *ldb,     \
                       chg_fint *info, size_t ltrans))                                           \
    X(p##ormqr, void, (const char *side, const char *trans, const chg_fint *m,                   \
                       const chg_fint *n, const chg_fint *k, const t *a, const chg_fint *lda,    \
                       const t *tau, t *c, const chg_fint *ldc, t *work, const chg_fint *lwork,  \
                       chg_fint *info, size_t lside, size_t ltrans))                             \
    X(p##orgqr, void, (const chg_fint *m, const chg_fint *n, const chg_fint *k, t *a,            \
                       const chg_fint *lda, const t *tau, t *work, const chg_fint *lwork,        \
                       chg_fint *info))                                                          \
    X(p##gels, void, (const char *trans, const chg_fint *m, const chg_fint *n,                   \
                      const chg_fint *nrhs, t *a, const chg_fint *lda, t *b,                     \
                      const chg_fint *ldb, t *work, const chg_fint *lwork, chg_fint *info,       \
                      size_t ltrans))

typedef struct chg_lapack_s {
#define CHG_LAPACK_MEMBER_(name, ret, params) ret(*name) params;
    CHG_LAPACK_ROUTINES(CHG_LAPACK_MEMBER_, s, float)
    CHG_LAPACK_ROUTINES(CHG_LAPACK_MEMBER_, d, double)
#undef CHG_LAPACK_MEMBER_
} chg_lapack_t;

/* The table (filled on first use, thread-safe); never NULL, its members NULL where missing. */
const chg_lapack_t *chg_lapack(void);

/* 1 when every member of the table is there; else 0, and *why (when given) says what is
 * missing (a static string). */
int chg_lapack_ok(const char **why);

#endif
