/*
 * dropin.h -- the BLAS drop-in's state and dispatch (dropin.c owns it): one level-3 call in the
 * Fortran view (column-major, Fortran character arguments), after its argument checks, goes to
 * the CPU BLAS (loaded privately: cpu/cpulib.h) or to clhgemm's devices, as
 * CLHGEMM_BLAS_OFFLOAD=auto|always|never and the routing model (host/route.h) say; a device
 * failure of any kind falls back to the CPU BLAS for that call (C restored first where the
 * call had written it), with one warning line per process.
 */
#ifndef CHG_BLAS_DROPIN_H
#define CHG_BLAS_DROPIN_H

#include <stddef.h>

enum { BL_GEMM, BL_SYMM, BL_SYRK, BL_SYR2K, BL_TRMM, BL_TRSM, BL_COUNT };

/* A checked call, Fortran view (upper-case characters; scalars as double). The fields run from
 * the widest to the narrowest, with no padding between them: each entry point builds one with
 * a designated initializer, and a struct with holes in it was zeroed whole first (GCC 12 -O2:
 * `rep stos`, a third of the CBLAS wrapper's time on an n = 4 product). */
typedef struct blas_call_s {
    double alpha, beta;
    const void *a, *b;
    void *c;                    /* TRMM, TRSM: B */
    int routine;                /* BL_* */
    int dbl;
    int m, n, k;                /* GEMM m x n x k; SYMM/TRMM/TRSM m x n; SYRK/SYR2K n, k */
    int lda, ldb, ldc;
    char side, uplo, ta, tb, diag;
} blas_call_t;

/* Runs the call (CPU BLAS or devices), counting it for CLHGEMM_BLAS_STATS. */
void chg_blas_run(const blas_call_t *bc);

/* The program's xerbla_ (else the CPU BLAS's) with the routine's name ("DGEMM ") and position. */
void chg_blas_xerbla(const char *name, int info);
/* The program's cblas_xerbla (else the CPU BLAS's, else a message) for a CBLAS argument. */
void chg_blas_cblas_xerbla(int pos, const char *rout, const char *what, int value);

#endif
