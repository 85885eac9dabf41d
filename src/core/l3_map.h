/*
 * l3_map.h -- SYMM, SYRK, SYR2K and TRMM on the GEMM core (l3_map.c owns them).
 *
 * Each routine is a shape check in the reference BLAS order, a mapping of the caller's view
 * (layout, side, uplo, trans) onto the column-major core, and one or two calls of
 * chg_gemm_enqueue with a chg_struct_t that says which operand is symmetric or triangular and
 * whether only a triangle of C is wanted (gemm.h). The checks and the mapping are apart from
 * the device-buffer front end so that the host-memory versions can share them, as host/entry.c
 * shares chg_gemm_check_shape for GEMM.
 */
#ifndef CHG_CORE_L3_MAP_H
#define CHG_CORE_L3_MAP_H

#include "core/gemm.h"

typedef enum { CHG_L3_SYMM, CHG_L3_SYRK, CHG_L3_SYR2K, CHG_L3_TRMM } chg_l3_routine_t;

/* A checked call: the caller's stored shapes (rows = the extent that ld strides over, as in
 * chg_shape_t) and the column-major view the core computes. */
typedef struct chg_l3_shape_s {
    chg_l3_routine_t routine;
    int col;                     /* the caller's layout is column-major */
    size_t a_rows, a_cols, b_rows, b_cols, c_rows, c_cols; /* B: TRMM's B, SYMM's and SYR2K's B */
    /* column-major view: side left, uplo upper, trans (SYRK/SYR2K: A is k x n; TRMM: op(A) =
     * A^T), unit diagonal; SYMM/TRMM: B and C are m x n; SYRK/SYR2K: C is n x n, k as given */
    int left, upper, trans, unit;
    size_t m, n, k;
    /* complex calls (set by the entry point after the shape checks): cplx; herm: HEMM, HERK,
     * HER2K (A Hermitian, or C's diagonal real); conj: TRMM's and TRSM's op(A) = A^H */
    int cplx, herm, conj;
} chg_l3_shape_t;

/* chg_syrk_check_shape's kind: CHG_L3_TWO two operands (SYR2K, HER2K); complex CHG_L3_CSYM
 * (SYRK, SYR2K: trans is NO_TRANS or TRANS) or CHG_L3_HERM (HERK, HER2K: NO_TRANS or
 * CONJ_TRANS), as the reference ZSYRK / ZHERK check it; real calls take all three. */
enum { CHG_L3_TWO = 1, CHG_L3_CSYM = 2, CHG_L3_HERM = 4 };

/* Shape checks, each invalid argument with its own status, in the reference BLAS order: layout,
 * side, uplo, trans, diag, m, n, k, lda, ldb, ldc (the arguments a routine has). */
clhgemm_status_t chg_symm_check_shape(int layout, int side, int uplo, int m, int n, int lda,
                                      int ldb, int ldc, chg_l3_shape_t *sh);
/* SYRK when kind has no CHG_L3_TWO (ldb ignored), SYR2K when it has; the complex kinds above
 * (sh->cplx and sh->herm are set from them). */
clhgemm_status_t chg_syrk_check_shape(int layout, int uplo, int trans, int n, int k, int lda,
                                      int ldb, int ldc, int kind, chg_l3_shape_t *sh);
clhgemm_status_t chg_trmm_check_shape(int layout, int side, int uplo, int transA, int diag,
                                      int m, int n, int lda, int ldb, chg_l3_shape_t *sh);

/* The core's arguments for a checked call (TRMM: C is B, beta 0; SYR2K: the fused form, with
 * swap_sum set; complex: the conjugations, the Hermitian structure, HER2K's alpha in the
 * packs). alpha and beta are (re, im) (real calls: the imaginary parts ignored). Buffers,
 * offsets and leading dimensions are the caller's. */
void chg_l3_core_args(const chg_l3_shape_t *sh, chg_precision_t prec, const double alpha[2],
                      cl_mem A, size_t offA, size_t lda, cl_mem B, size_t offB, size_t ldb,
                      const double beta[2], cl_mem C, size_t offC, size_t ldc,
                      chg_gemm_args_t *out);

/* SYR2K as two passes (CLHGEMM_SYR2K=two) rather than fused (=fused); the default is what
 * measured faster (git show 6c7d489:docs/perf/2026-11-history.md). */
int chg_syr2k_two_pass(void);

/* Buffer and device checks of a device-buffer level-3 call (after its shape checks): the
 * queue, then A, B, C as far as the call reads or writes them (TRMM and TRSM: B in place, no
 * C), then FP64. alpha: whether it is non-zero is what counts (complex: either part). */
clhgemm_status_t chg_l3_check_call(const chg_l3_shape_t *sh, chg_precision_t prec, double alpha,
                                   cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,
                                   cl_mem C, size_t offC, int ldc, cl_command_queue queue);

/* The exported entry points of TRMM and TRSM, which take the same arguments, generated for one
 * precision (p, T, prec of CHG_PRECISIONS): clhgemm_<p><name>_cl hands its arguments with the
 * precision to the static <name>_cl of the file that expands it, and clhgemm_<p><name> (host
 * memory, on a handle) to its static host_<name>. */
#define CHG_TRIANGULAR_CL(p, T, prec, name)                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##name##_cl(                                           \
        clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo,                         \
        clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n, T alpha, cl_mem A,          \
        size_t offA, int lda, cl_mem B, size_t offB, int ldb, cl_command_queue queue,              \
        cl_event *event)                                                                           \
    {                                                                                              \
        const double al[2] = {alpha, 0.0};                                                         \
        return name##_cl(prec, 0, layout, side, uplo, transA, diag, m, n, al, A, offA, lda, B,     \
                         offB, ldb, queue, event);                                                 \
    }
/* The complex pair (CHG_CPRECISIONS): alpha a pointer to its (re, im), as CBLAS passes it. */
#define CHG_TRIANGULAR_CL_C(p, T, prec, name)                                                      \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##name##_cl(                                           \
        clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo,                         \
        clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n, const void *alpha,          \
        cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb, cl_command_queue queue,    \
        cl_event *event)                                                                           \
    {                                                                                              \
        double al[2];                                                                              \
        return name##_cl(prec, 1, layout, side, uplo, transA, diag, m, n,                          \
                         chg_scalar_read(prec, alpha, al), A, offA, lda, B, offB, ldb, queue,      \
                         event);                                                                   \
    }
#define CHG_TRIANGULAR_HOST(p, T, prec, name)                                                      \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##name(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo,     \
        clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n, T alpha, const T *A,        \
        int lda, T *B, int ldb)                                                                    \
    {                                                                                              \
        const double al[2] = {alpha, 0.0};                                                         \
        return host_##name(h, prec, 0, layout, side, uplo, transA, diag, m, n, al, A, lda, B,      \
                           ldb);                                                                   \
    }
#define CHG_TRIANGULAR_HOST_C(p, T, prec, name)                                                    \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##name(                                                \
        clhgemm_handle_t h, clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo,     \
        clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n, const void *alpha,          \
        const void *A, int lda, void *B, int ldb)                                                  \
    {                                                                                              \
        double al[2];                                                                              \
        return host_##name(h, prec, 1, layout, side, uplo, transA, diag, m, n,                     \
                           chg_scalar_read(prec, alpha, al), A, lda, B, ldb);                      \
    }

#endif
