/*
 * blas_table.h -- how the CPU layer reaches OpenBLAS (the only header that includes cblas.h;
 * share_blas.c and route_calls.c include it).
 *
 * In the library (libclhgemm) the calls are linked to OpenBLAS as usual. In the drop-ins
 * (libblas.so.3, liblapack.so.3, built with CLHGEMM_CPU_DLOPEN) the library itself exports
 * cblas_* and the Fortran BLAS, or sits beside a libblas.so.3 that may be the BLAS drop-in, so a
 * linked call could land in its own entry points: there every call below goes through a table
 * of the CPU library that blas_dlopen.c loads privately (dlopen RTLD_LOCAL;
 * CLHGEMM_BLAS_CPU_LIB or CLHGEMM_LAPACK_CPU_LIB, else libopenblas.so.0). OpenBLAS's extensions (thread count, config)
 * may be missing from another CPU BLAS: they are then answered with neutral values.
 */
#ifndef CHG_CPU_BLAS_TABLE_H
#define CHG_CPU_BLAS_TABLE_H

#ifdef CLHGEMM_HAVE_OPENBLAS
#include <cblas.h>

#ifdef CLHGEMM_CPU_DLOPEN
#include "cpu/blas_dlopen.h"

#define CHG_CBLAS_CALLS(X) \
    X(sgemm) X(dgemm) X(ssymm) X(dsymm) X(ssyrk) X(dsyrk) X(ssyr2k) X(dsyr2k) X(strmm) X(dtrmm) \
    X(strsm) X(dtrsm) \
    X(cgemm) X(zgemm) X(chemm) X(zhemm) X(csymm) X(zsymm) X(cherk) X(zherk) X(csyrk) X(zsyrk) \
    X(cher2k) X(zher2k) X(csyr2k) X(zsyr2k) X(ctrmm) X(ztrmm) X(ctrsm) X(ztrsm)

typedef struct chg_cblas_s {
#define CHG_CBLAS_MEMBER_(f) __typeof__(cblas_##f) *p_##f;
    CHG_CBLAS_CALLS(CHG_CBLAS_MEMBER_)
#undef CHG_CBLAS_MEMBER_
    int (*get_threads)(void);
    void (*set_threads)(int);
    char *(*get_config)(void);
    char *(*get_corename)(void);
    int (*get_parallel)(void);
} chg_cblas_t;

/* The table (NULL members: missing from the CPU BLAS; the whole table NULL: no CPU BLAS). */
const chg_cblas_t *chg_cblas(void);

#define cblas_sgemm (chg_cblas()->p_sgemm)
#define cblas_dgemm (chg_cblas()->p_dgemm)
#define cblas_ssymm (chg_cblas()->p_ssymm)
#define cblas_dsymm (chg_cblas()->p_dsymm)
#define cblas_ssyrk (chg_cblas()->p_ssyrk)
#define cblas_dsyrk (chg_cblas()->p_dsyrk)
#define cblas_ssyr2k (chg_cblas()->p_ssyr2k)
#define cblas_dsyr2k (chg_cblas()->p_dsyr2k)
#define cblas_strmm (chg_cblas()->p_strmm)
#define cblas_dtrmm (chg_cblas()->p_dtrmm)
#define cblas_strsm (chg_cblas()->p_strsm)
#define cblas_dtrsm (chg_cblas()->p_dtrsm)
#define cblas_cgemm (chg_cblas()->p_cgemm)
#define cblas_zgemm (chg_cblas()->p_zgemm)
#define cblas_chemm (chg_cblas()->p_chemm)
#define cblas_zhemm (chg_cblas()->p_zhemm)
#define cblas_csymm (chg_cblas()->p_csymm)
#define cblas_zsymm (chg_cblas()->p_zsymm)
#define cblas_cherk (chg_cblas()->p_cherk)
#define cblas_zherk (chg_cblas()->p_zherk)
#define cblas_csyrk (chg_cblas()->p_csyrk)
#define cblas_zsyrk (chg_cblas()->p_zsyrk)
#define cblas_cher2k (chg_cblas()->p_cher2k)
#define cblas_zher2k (chg_cblas()->p_zher2k)
#define cblas_csyr2k (chg_cblas()->p_csyr2k)
#define cblas_zsyr2k (chg_cblas()->p_zsyr2k)
#define cblas_ctrmm (chg_cblas()->p_ctrmm)
#define cblas_ztrmm (chg_cblas()->p_ztrmm)
#define cblas_ctrsm (chg_cblas()->p_ctrsm)
#define cblas_ztrsm (chg_cblas()->p_ztrsm)

static inline int chg_ob_get_threads(void) { return chg_cblas()->get_threads ? chg_cblas()->get_threads() : 1; }
static inline void chg_ob_set_threads(int n) { if (chg_cblas()->set_threads) chg_cblas()->set_threads(n); }
static inline const char *chg_ob_config(void) { return chg_cblas()->get_config ? chg_cblas()->get_config() : chg_cpu_lib_name(); }
static inline const char *chg_ob_corename(void) { return chg_cblas()->get_corename ? chg_cblas()->get_corename() : "unknown"; }
static inline int chg_ob_parallel(void) { return chg_cblas()->get_parallel ? chg_cblas()->get_parallel() : 0; }

#else /* linked */

static inline int chg_ob_get_threads(void) { return openblas_get_num_threads(); }
static inline void chg_ob_set_threads(int n) { openblas_set_num_threads(n); }
static inline const char *chg_ob_config(void) { return openblas_get_config(); }
static inline const char *chg_ob_corename(void) { return openblas_get_corename(); }
static inline int chg_ob_parallel(void) { return openblas_get_parallel(); }

#endif
#endif
#endif
