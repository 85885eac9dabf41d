/*
 * fact_check.c -- the factorization layer's argument checks and quick returns (fact_check.h).
 *
 * LAPACK reports a bad argument by its position (info = -i); the library gives each its own
 * status instead, in the same order, so that a caller who mixes up two arguments is told the
 * first one LAPACK would have named. A rejected call reads and writes nothing: the checks run
 * before any pointer is followed.
 */
#include "lapack/fact_check.h"

#include "base/util.h"
#include "core/extent.h"
#include "core/gemm.h"
#include "host/handle.h"

static const char *const g_names[CHG_FACT_NOPS] = {"potrf", "getrf", "geqrf", "potrs", "posv",
                                                   "getrs", "gesv",  "ormqr", "orgqr", "gels"};

const char *chg_fact_op_name(chg_fact_op_t op)
{
    return (unsigned)op < CHG_FACT_NOPS ? g_names[op] : "?";
}

static int valid_trans(int t)
{
    return t == CLHGEMM_NO_TRANS || t == CLHGEMM_TRANS || t == CLHGEMM_CONJ_TRANS;
}

/* The routine's scalar arguments after the layout, in LAPACK's order. */
static clhgemm_status_t check_scalars(const chg_fact_args_t *a)
{
    const int uplo_ok = a->uplo == CLHGEMM_UPPER || a->uplo == CLHGEMM_LOWER;
    switch (a->op) {
    case CHG_FACT_OP_POTRF:
        if (!uplo_ok) return CLHGEMM_INVALID_UPLO;
        return a->n < 0 ? CLHGEMM_INVALID_N : CLHGEMM_SUCCESS;
    case CHG_FACT_OP_GETRF:
    case CHG_FACT_OP_GEQRF:
        if (a->m < 0) return CLHGEMM_INVALID_M;
        return a->n < 0 ? CLHGEMM_INVALID_N : CLHGEMM_SUCCESS;
    case CHG_FACT_OP_POTRS:
    case CHG_FACT_OP_POSV:
    case CHG_FACT_OP_GETRS:
    case CHG_FACT_OP_GESV:
        if ((a->op == CHG_FACT_OP_POTRS || a->op == CHG_FACT_OP_POSV) && !uplo_ok)
            return CLHGEMM_INVALID_UPLO;
        if (a->op == CHG_FACT_OP_GETRS && !valid_trans(a->trans)) return CLHGEMM_INVALID_TRANS;
        if (a->n < 0) return CLHGEMM_INVALID_N;
        return a->nrhs < 0 ? CLHGEMM_INVALID_NRHS : CLHGEMM_SUCCESS;
    case CHG_FACT_OP_ORMQR: {
        if (a->side != CLHGEMM_LEFT && a->side != CLHGEMM_RIGHT) return CLHGEMM_INVALID_SIDE;
        if (!valid_trans(a->trans)) return CLHGEMM_INVALID_TRANS;
        if (a->m < 0) return CLHGEMM_INVALID_M;
        if (a->n < 0) return CLHGEMM_INVALID_N;
        const int nq = a->side == CLHGEMM_LEFT ? a->m : a->n; /* Q's order */
        return a->k < 0 || a->k > nq ? CLHGEMM_INVALID_K : CLHGEMM_SUCCESS;
    }
    case CHG_FACT_OP_ORGQR: /* as dorgqr: n > m is n's error, k > n is k's */
        if (a->m < 0) return CLHGEMM_INVALID_M;
        if (a->n < 0 || a->n > a->m) return CLHGEMM_INVALID_N;
        return a->k < 0 || a->k > a->n ? CLHGEMM_INVALID_K : CLHGEMM_SUCCESS;
    case CHG_FACT_OP_GELS:
        if (!valid_trans(a->trans)) return CLHGEMM_INVALID_TRANS;
        if (a->m < 0) return CLHGEMM_INVALID_M;
        if (a->n < 0) return CLHGEMM_INVALID_N;
        return a->nrhs < 0 ? CLHGEMM_INVALID_NRHS : CLHGEMM_SUCCESS;
    default: return CLHGEMM_INTERNAL_ERROR;
    }
}

/* A and B as LAPACK declares them (arguments already checked non-negative). */
static void declared_shapes(chg_fact_args_t *a)
{
    const size_t m = (size_t)a->m, n = (size_t)a->n, k = (size_t)a->k, r = (size_t)a->nrhs;
    a->a_rows = a->a_cols = a->b_rows = a->b_cols = 0;
    switch (a->op) {
    case CHG_FACT_OP_POTRF: a->a_rows = a->a_cols = n; break;
    case CHG_FACT_OP_GETRF:
    case CHG_FACT_OP_GEQRF:
    case CHG_FACT_OP_ORGQR:
        a->a_rows = m;
        a->a_cols = n;
        break;
    case CHG_FACT_OP_POTRS:
    case CHG_FACT_OP_POSV:
    case CHG_FACT_OP_GETRS:
    case CHG_FACT_OP_GESV:
        a->a_rows = a->a_cols = a->b_rows = n;
        a->b_cols = r;
        break;
    case CHG_FACT_OP_ORMQR:
        a->a_rows = a->side == CLHGEMM_LEFT ? m : n;
        a->a_cols = k;
        a->b_rows = m;
        a->b_cols = n;
        break;
    default: /* gels */
        a->a_rows = m;
        a->a_cols = n;
        a->b_rows = CHG_MAX(m, n);
        a->b_cols = r;
        break;
    }
}

static int has_b(chg_fact_op_t op)
{
    return op != CHG_FACT_OP_POTRF && op != CHG_FACT_OP_GETRF && op != CHG_FACT_OP_GEQRF &&
           op != CHG_FACT_OP_ORGQR;
}

/* Rows of a declared rows x cols matrix as stored: what ld strides over. */
static size_t stored_rows(int row, size_t rows, size_t cols) { return row ? cols : rows; }

clhgemm_status_t chg_fact_check_shape(chg_fact_args_t *a)
{
    if (a->layout != CLHGEMM_ROW_MAJOR && a->layout != CLHGEMM_COL_MAJOR)
        return CLHGEMM_INVALID_LAYOUT;
    clhgemm_status_t st = check_scalars(a);
    if (st != CLHGEMM_SUCCESS) return st;
    declared_shapes(a);
    a->a_row = a->b_row = a->layout == CLHGEMM_ROW_MAJOR;
    const size_t sa = stored_rows(a->a_row, a->a_rows, a->a_cols);
    const size_t sb = stored_rows(a->b_row, a->b_rows, a->b_cols);
    if (a->lda < 1 || (size_t)a->lda < sa) return CLHGEMM_INVALID_LDA;
    const int b = has_b(a->op), c = a->op == CHG_FACT_OP_ORMQR;
    if (b && (a->ldb < 1 || (size_t)a->ldb < sb))
        return c ? CLHGEMM_INVALID_LDC : CLHGEMM_INVALID_LDB;
    if (!chg_extent_fits(sa, a->a_row ? a->a_rows : a->a_cols, (size_t)a->lda,
                         CHG_EXTENT_ELEM_MAX) ||
        (b && !chg_extent_fits(sb, a->b_row ? a->b_rows : a->b_cols, (size_t)a->ldb,
                               CHG_EXTENT_ELEM_MAX)))
        return CLHGEMM_SIZE_OVERFLOW;
    return CLHGEMM_SUCCESS;
}

chg_fact_touch_t chg_fact_touches(const chg_fact_args_t *a)
{
    const int m = a->m > 0, n = a->n > 0, k = a->k > 0, r = a->nrhs > 0;
    chg_fact_touch_t t = {0};
    switch (a->op) {
    case CHG_FACT_OP_POTRF: t = (chg_fact_touch_t){.a = n, .info = 1}; break;
    case CHG_FACT_OP_GETRF: t = (chg_fact_touch_t){.a = m && n, .ipiv = m && n, .info = 1}; break;
    case CHG_FACT_OP_GEQRF: t = (chg_fact_touch_t){.a = m && n, .tau = m && n}; break;
    case CHG_FACT_OP_POTRS: t = (chg_fact_touch_t){.a = n && r, .b = n && r}; break;
    case CHG_FACT_OP_POSV: t = (chg_fact_touch_t){.a = n, .b = n && r, .info = 1}; break;
    case CHG_FACT_OP_GETRS: t = (chg_fact_touch_t){.a = n && r, .ipiv = n && r, .b = n && r}; break;
    case CHG_FACT_OP_GESV: t = (chg_fact_touch_t){.a = n, .ipiv = n, .b = n && r, .info = 1}; break;
    case CHG_FACT_OP_ORMQR:
        t = (chg_fact_touch_t){.a = m && n && k, .tau = m && n && k, .b = m && n && k};
        break;
    case CHG_FACT_OP_ORGQR: /* k = 0: A becomes n columns of the identity, tau unread */
        t = (chg_fact_touch_t){.a = n, .tau = n && k};
        break;
    default: /* gels: with nothing to factor, B := 0 (LAPACK's zero solution) */
        t = (chg_fact_touch_t){.a = m && n && r, .b = (m || n) && r, .info = 1};
        break;
    }
    return t;
}

/* The host pointers ipiv, tau, info a call touches (A and B are checked by the caller, as host
 * pointers or as buffers, in between: order A, ipiv, tau, B, info fits every routine's
 * parameter list). */
static clhgemm_status_t check_ipiv_tau(const chg_fact_args_t *a, const chg_fact_touch_t *t)
{
    if (t->ipiv && !a->ipiv) return CLHGEMM_NULL_IPIV;
    if (t->tau && !a->tau) return CLHGEMM_NULL_TAU;
    return CLHGEMM_SUCCESS;
}

clhgemm_status_t chg_fact_check_host(clhgemm_handle_t h, chg_fact_args_t *a)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    clhgemm_status_t st = chg_fact_check_shape(a);
    if (st != CLHGEMM_SUCCESS) return st;
    const chg_fact_touch_t t = chg_fact_touches(a);
    if (t.a && !a->a) return CLHGEMM_NULL_BUFFER_A;
    if ((st = check_ipiv_tau(a, &t)) != CLHGEMM_SUCCESS) return st;
    if (t.b && !a->b)
        return a->op == CHG_FACT_OP_ORMQR ? CLHGEMM_NULL_BUFFER_C : CLHGEMM_NULL_BUFFER_B;
    if (t.info && !a->info) return CLHGEMM_NULL_INFO;
    if (!chg_handle_fp64_ok(h, a->prec)) return CLHGEMM_FP64_NOT_SUPPORTED;
    return CLHGEMM_SUCCESS;
}

clhgemm_status_t chg_fact_check_cl(chg_fact_args_t *a)
{
    clhgemm_status_t st = chg_fact_check_shape(a);
    if (st != CLHGEMM_SUCCESS) return st;
    const chg_device_t *dev;
    cl_context ctx;
    if ((st = chg_queue_device(a->queue, &dev, &ctx)) != CLHGEMM_SUCCESS) return st;
    const size_t es = chg_elem_size(a->prec);
    const chg_fact_touch_t t = chg_fact_touches(a);
    if (t.a) {
        st = chg_check_buffer(a->abuf, ctx, a->offa, stored_rows(a->a_row, a->a_rows, a->a_cols),
                              a->a_row ? a->a_rows : a->a_cols, (size_t)a->lda, es,
                              CLHGEMM_NULL_BUFFER_A, CLHGEMM_INSUFFICIENT_BUFFER_A);
        if (st != CLHGEMM_SUCCESS) return st;
    }
    if ((st = check_ipiv_tau(a, &t)) != CLHGEMM_SUCCESS) return st;
    if (t.b) {
        st = chg_check_buffer(a->bbuf, ctx, a->offb, stored_rows(a->b_row, a->b_rows, a->b_cols),
                              a->b_row ? a->b_rows : a->b_cols, (size_t)a->ldb, es,
                              CLHGEMM_NULL_BUFFER_B, CLHGEMM_INSUFFICIENT_BUFFER_B);
        if (st != CLHGEMM_SUCCESS) return st;
    }
    if (t.info && !a->info) return CLHGEMM_NULL_INFO;
    if (a->prec == CHG_F64 && !(dev->features & CHG_FEAT_FP64)) return CLHGEMM_FP64_NOT_SUPPORTED;
    return CLHGEMM_SUCCESS;
}

/* gels's zero solution: B (b_rows x b_cols as declared) := 0, on host memory. */
static void zero_b(const chg_fact_args_t *a)
{
    const size_t es = chg_elem_size(a->prec), ld = (size_t)a->ldb;
    for (size_t j = 0; j < a->b_cols; j++)
        for (size_t i = 0; i < a->b_rows; i++) {
            char *x = (char *)a->b + (a->b_row ? i * ld + j : i + j * ld) * es;
            if (a->prec == CHG_F64)
                *(double *)x = 0.0;
            else
                *(float *)x = 0.0f;
        }
}

int chg_fact_quick_return(const chg_fact_args_t *a)
{
    const chg_fact_touch_t t = chg_fact_touches(a);
    /* potrs, getrs: nothing to solve; every other routine: nothing to factor or apply */
    const int done = a->op == CHG_FACT_OP_POTRS || a->op == CHG_FACT_OP_GETRS ? !t.b : !t.a;
    if (!done) return 0;
    if (a->op == CHG_FACT_OP_GELS && t.b) zero_b(a);
    if (t.info) *a->info = 0;
    return 1;
}

void chg_fact_call_from(const chg_fact_args_t *a, chg_fact_call_t *c)
{
    /* posv, gesv and gels factor first: their A is the factorization's */
    const chg_fact_kind_t kind =
        a->op == CHG_FACT_OP_POTRF || a->op == CHG_FACT_OP_POSV   ? CHG_FACT_POTRF
        : a->op == CHG_FACT_OP_GETRF || a->op == CHG_FACT_OP_GESV ? CHG_FACT_GETRF
                                                                  : CHG_FACT_GEQRF;
    *c = (chg_fact_call_t){.kind = kind, .prec = a->prec, .m = a->a_rows, .n = a->a_cols, .a = a->a,
                           .buf = a->abuf, .off = a->offa, .lda = (size_t)a->lda, .queue = a->queue,
                           .ipiv = a->ipiv, .tau = a->tau};
    /* The view is stored transposed when the caller's matrix is row-major; a Cholesky is the
     * lower one in the view, so an upper triangle in column-major is the transposed storage of
     * it and a lower one in row-major too (fact.h). */
    if (kind == CHG_FACT_POTRF)
        c->trans = a->a_row == (a->uplo == CLHGEMM_LOWER);
    else
        c->trans = a->a_row;
}
