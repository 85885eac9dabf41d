/*
 * trsm_subst.h -- TRSM (op(A)*X = alpha*B or X*op(A) = alpha*B, B overwritten by X) on the GEMM
 * core (trsm_subst.c owns it): the blocked substitution that the device-buffer entry points
 * (clhgemm_{s,d}trsm_cl, trsm_subst.c) and the host-memory ones (host/trsm_entry.c) share.
 *
 * A checked call (chg_trsm_check_shape: TRMM's shape rules and statuses) is seen column-major
 * (l3_map.h's mapping: row-major flips uplo and side). The triangular matrix the substitution
 * runs over is T = op(A) for side left (rows of B are the unknowns' index) and T = op(A)^T for
 * side right (X*op(A) = alpha*B is op(A)^T*X^T = alpha*B^T: the columns of B are the index).
 * T is cut into diagonal blocks of nb (chg_trsm_nb); a lower T is solved top-down (forward
 * substitution), an upper one bottom-up. Step s:
 *
 *   panel   the kb rows (left) / columns (right) of B of diagonal block s, solved on the host
 *           against A's kb x kb diagonal block (chg_trsm_solve_panel: OpenBLAS's TRSM), with
 *           alpha on the first step and 1 after;
 *   update  the rows (columns) of B not solved yet, C := -T(rest, blk)*X_blk + beta*C, one
 *           column-major GEMM (chg_trsm_update_t) with beta = alpha on the first step (those
 *           rows have not been scaled yet) and 1 after; it reads only blocks of A strictly inside
 *           the uplo triangle, so the other triangle and a unit diagonal are never read.
 */
#ifndef CHG_CORE_TRSM_SUBST_H
#define CHG_CORE_TRSM_SUBST_H

#include "core/l3_map.h"

/* The shape checks of TRSM: TRMM's (the same arguments, rules and statuses in the same order). */
clhgemm_status_t chg_trsm_check_shape(int layout, int side, int uplo, int transA, int diag,
                                      int m, int n, int lda, int ldb, chg_l3_shape_t *sh);

/* Order of the diagonal blocks on dev for prec: CLHGEMM_TRSM_NB (an integer in [1, 2^20], read
 * through chg_env_int) when set, else the trsm_nb of the device's tuning entry
 * (chg_tuned_trsm_nb: clhgemm-tune --trsm measured it), else CHG_TRSM_NB_DEFAULT (also when dev
 * is NULL). CLHGEMM_VERBOSE=1 says which and where it came from. The default, 512: a multiple
 * of every shipped GEMM tile (MWG, NWG <= 256), so that the leaf GEMMs of the device solve
 * (trsm_dev.h: nb x rhs x nb, triangular) fill whole tiles; 512 rather than 256 ends the device
 * solve's recursion one level earlier, where its GEMMs are smallest and slowest (rank-256
 * updates of 256 rows and 256 x rhs x 256 leaves run at a fraction of the core's rate on a
 * large GPU: docs/ARCHITECTURE.md), while the leaf products stay nb/k of the flops (6% at
 * k = 8192) and an inverted block of 512 is the size cuBLAS- and MAGMA-style solvers use. */
#define CHG_TRSM_NB_DEFAULT 512
size_t chg_trsm_nb(const chg_device_t *dev, chg_precision_t prec);

/* How diagonal blocks are solved (CLHGEMM_TRSM_PANEL): "auto" (the default) -- on the device
 * with inverted blocks (trsm_dev.h) for device buffers and for host calls whose A fits the
 * devices; a host call whose A does not fit takes the blocked path (host/trsm_blocked.c), whose
 * diagonal blocks the cost model gives to the devices (by strips, at the largest block order that
 * fits them) or to OpenBLAS; "device" -- the same, with the blocked host path's diagonal blocks
 * on the devices whenever one fits (a test hook); or on the host between the updates, by
 * OpenBLAS ("openblas") or the library's own substitution ("ref", a test hook; also what
 * "openblas" does without OpenBLAS). */
enum { CHG_TRSM_PANEL_DEVICE = 0, CHG_TRSM_PANEL_OPENBLAS = 1, CHG_TRSM_PANEL_REF = 2,
       CHG_TRSM_PANEL_AUTO = 3 };
int chg_trsm_panel_mode(void);
/* 1 when mode lets diagonal blocks be solved on a device (auto or device). */
static inline int chg_trsm_panel_on_device(int mode)
{
    return mode == CHG_TRSM_PANEL_DEVICE || mode == CHG_TRSM_PANEL_AUTO;
}

/* Number of diagonal blocks of a checked call with m, n > 0 (sh->k / nb rounded up). */
size_t chg_trsm_steps(const chg_l3_shape_t *sh, size_t nb);

/* An operand of the trailing update: a sub-matrix of the caller's A (is_b 0) or B (is_b 1) at
 * element offset off from that matrix's element (0, 0), with the matrix's leading dimension. */
typedef struct chg_trsm_operand_s {
    int is_b;
    size_t off, ld;
} chg_trsm_operand_t;

/* One step of the substitution (column-major view; offsets are elements from (0, 0)). */
typedef struct chg_trsm_step_s {
    size_t k0, kb;       /* the diagonal block: rows and columns k0..k0+kb of A */
    size_t a_off;        /* A(k0, k0) */
    size_t p_off;        /* the panel: B(k0, 0) (left) or B(0, k0) (right) */
    size_t p_rows, p_cols;
    double p_alpha[2];   /* the panel is solved with this alpha (the call's on step 0, else 1) */
    /* the trailing update C := -1 * op(L) * op(R) + beta * C; m == 0 or n == 0: none */
    int ta, tb;
    size_t m, n, k;
    chg_trsm_operand_t l, r;
    size_t c_off;        /* in B, leading dimension ldb */
    double beta[2];
} chg_trsm_step_t;

/* Step s (0 .. chg_trsm_steps - 1, in dependency order) of a checked call; alpha (re, im), the
 * imaginary part 0 for a real call. Complex calls (sh->cplx) count elements, offsets and
 * leading dimensions in complex elements, and op(A) = A^H (sh->conj) conjugates the operand of
 * the update that is A. */
void chg_trsm_step(const chg_l3_shape_t *sh, size_t nb, size_t s, const double alpha[2],
                   size_t lda, size_t ldb, chg_trsm_step_t *out);

/* The update of step t (m, n > 0) cut in two: `near`, the rows (left) or columns (right) of the
 * next diagonal block -- its first kb_next of the rest for a lower T, its last for an upper one --
 * and `far`, the others (m or n 0 when kb_next takes all). Both keep t's beta and inner
 * dimension; their operands and C are t's, offset to the part. The host path with look-ahead
 * (host/trsm_blocked.c) updates `near` first, then solves the next panel while `far` runs. */
void chg_trsm_step_split(const chg_l3_shape_t *sh, const chg_trsm_step_t *t, size_t kb_next, size_t lda,
                         size_t ldb, chg_trsm_step_t *near, chg_trsm_step_t *far);

/* Solves the panel in place on the host (column-major, ldb): op(Ad)*P = alpha*P (left, P is
 * kb x cols) or P*op(Ad) = alpha*P (right, P rows x kb), Ad the kb x kb diagonal block at a with
 * lda, of the call's uplo / trans / diag (sh). OpenBLAS's TRSM, or a plain substitution in the
 * library where there is no OpenBLAS or CLHGEMM_TRSM_PANEL=ref (a test hook). Only the uplo
 * triangle of Ad is read, its diagonal not when unit. */
void chg_trsm_solve_panel(chg_precision_t prec, const chg_l3_shape_t *sh, size_t rows,
                          size_t cols, const double alpha[2], const void *a, size_t lda, void *b,
                          size_t ldb);

#endif
