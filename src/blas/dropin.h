/*
 * dropin.h -- the BLAS drop-in's state and dispatch (dropin.c owns it): one level-3 call in the
 * Fortran view (column-major, Fortran character arguments), after its argument checks, goes to
 * the CPU BLAS (loaded privately: cpu/blas_dlopen.h) or to clhgemm's devices, as
 * CLHGEMM_BLAS_OFFLOAD=auto|always|never and the routing model (host/route.h) say; a device
 * failure of any kind falls back to the CPU BLAS for that call (C restored first where the
 * call had written it), with one warning line per process.
 */
#ifndef CHG_BLAS_DROPIN_H
#define CHG_BLAS_DROPIN_H

#include <cblas.h>
#include <stdatomic.h>
#include <stddef.h>

#include "cpu/route_calls.h"
#include "kernels/precision.h"

/* The routines (HEMM, HERK, HER2K: complex only). */
enum { BL_GEMM, BL_SYMM, BL_SYRK, BL_SYR2K, BL_TRMM, BL_TRSM, BL_HEMM, BL_HERK, BL_HER2K, BL_COUNT };

/* A checked call, Fortran view (upper-case characters; scalars as double; complex ones (re, im):
 * alpha + i alpha_im, HERK's both real, HER2K's beta). The fields run from the widest to the
 * narrowest, with no padding between them: each entry point builds one with a designated
 * initializer, and a struct with holes in it was zeroed whole first (GCC 12 -O2: `rep stos`, a
 * third of the CBLAS wrapper's time on an n = 4 product). */
typedef struct chg_blas_call_s {
    double alpha, beta;
    double alpha_im, beta_im;
    const void *a, *b;
    void *c;                    /* TRMM, TRSM: B */
    int routine;                /* BL_* */
    int dbl;
    int cplx;                   /* C, Z (with dbl: the precision of the parts) */
    int m, n, k;                /* GEMM m x n x k; SYMM/TRMM/TRSM m x n; SYRK/SYR2K n, k */
    int lda, ldb, ldc;
    char side, uplo, ta, tb, diag;
} chg_blas_call_t;

/* The call's precision as an index of s, d, c, z (the names and counters). */
static inline int chg_blas_pi(const chg_blas_call_t *c) { return c->dbl + 2 * c->cplx; }

/* Runs the call (CPU BLAS or devices), counting it for CLHGEMM_BLAS_STATS. */
void chg_blas_run(const chg_blas_call_t *bc);

/* The largest m, n and k of chg_blas_small_gemm (cpu/tiny.h's CHG_TINY_MAX). */
#define CHG_BLAS_SMALL_MAX 32

/* chg_blas_small_gemm's state (dropin.c): 0 before init, 1 small GEMMs take the small path (the
 * CPU BLAS has the CBLAS GEMMs, CLHGEMM_BLAS_OFFLOAD is not always, no stats), -1 they take
 * chg_blas_run; and the CPU BLAS's cblas_?gemm (its private table, cpu/blas_table.h), set before
 * the state. chg_blas_small_init runs init once and returns the state. */
typedef __typeof__(cblas_dgemm) *chg_blas_dgemm_fn;
typedef __typeof__(cblas_sgemm) *chg_blas_sgemm_fn;
extern atomic_int chg_blas_small_;
extern chg_blas_dgemm_fn chg_blas_dgemm_;
extern chg_blas_sgemm_fn chg_blas_sgemm_;
int chg_blas_small_init(void);

/* A checked GEMM with m, n, k <= CHG_BLAS_SMALL_MAX, column-major view (transposes 0/1), straight
 * on the CPU route's small-GEMM path with no chg_blas_call_t: cpu/tiny.h's kernel where
 * cpu/tiny_select.h measured it faster (chg_cpu_route_gemm's choice), else the CPU BLAS's
 * cblas_?gemm called from its table. 1 when it ran, 0 when the call must take chg_blas_run.
 * Inline into each GEMM entry point (dropin_l3.c), which asks it first: the entry point calls the
 * kernel or OpenBLAS itself. */
static inline int chg_blas_small_gemm(int dbl, int ta, int tb, int m, int n, int k, double alpha, const void *a,
                                      int lda, const void *b, int ldb, double beta, void *c, int ldc)
{
    int s = atomic_load_explicit(&chg_blas_small_, memory_order_acquire);
    if (__builtin_expect(s == 0, 0)) s = chg_blas_small_init();
    if (s < 0) return 0;
    const chg_precision_t prec = dbl ? CHG_F64 : CHG_F32;
    const int tra = ta ? CblasTrans : CblasNoTrans, trb = tb ? CblasTrans : CblasNoTrans; /* clhgemm's values */
    if (chg_tiny_use(prec, CblasColMajor, tra, trb, m, n, k, beta, chg_cpu_blas_gemm))
        chg_tiny_gemm(prec, CblasColMajor, tra, trb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else if (dbl)
        chg_blas_dgemm_(CblasColMajor, (enum CBLAS_TRANSPOSE)tra, (enum CBLAS_TRANSPOSE)trb, m, n, k, alpha, a, lda,
                        b, ldb, beta, c, ldc);
    else
        chg_blas_sgemm_(CblasColMajor, (enum CBLAS_TRANSPOSE)tra, (enum CBLAS_TRANSPOSE)trb, m, n, k, (float)alpha,
                        a, lda, b, ldb, (float)beta, c, ldc);
    return 1;
}

/* The program's xerbla_ (else the CPU BLAS's) with the routine's name ("DGEMM ") and position. */
void chg_blas_xerbla(const char *name, int info);
/* The program's cblas_xerbla (else the CPU BLAS's, else a message) for a CBLAS argument. */
void chg_blas_cblas_xerbla(int pos, const char *rout, const char *what, int value);

#endif
