/*
 * fact_route.c -- the factorizations' routing and the CPU route (fact_route.h).
 */
#include "lapack/fact_route.h"

#include <stdlib.h>

#include "base/util.h"
#include "cpu/lapack_link.h"
#include "host/route.h"
#include "lapack/fact_driver.h"

/* ---- the decision ------------------------------------------------------------------------- */

/* The model's first-cut CPU LAPACK rate as a share of OpenBLAS's GEMM rate at the same size. */
#define CPU_LAPACK_SHARE 0.6

/* 1 (CPU) or 0 (devices) where no model is asked, with why; -1 for the model. */
static int fixed_route(clhgemm_handle_t h, const char **why)
{
    const chg_route_model_t *r = &h->route;
    if (!chg_lapack_ok(NULL)) {
        *why = "no CPU LAPACK";
        return 0;
    }
    if (h->ndev == 0) {
        *why = "no device left";
        return 1;
    }
    if (r->mode != ROUTE_AUTO) {
        *why = r->mode == ROUTE_CPU ? "CLHGEMM_ROUTE=cpu" : "CLHGEMM_ROUTE=device";
        return r->mode == ROUTE_CPU;
    }
    if (!r->any_gpu) {
        *why = "the devices are CPUs themselves";
        return 1;
    }
    return -1;
}

int chg_fact_route_fixed_cpu(clhgemm_handle_t h, const char *name)
{
    const char *why = NULL;
    const int f = fixed_route(h, &why);
    if (f >= 0 && chg_verbose() >= 1)
        chg_log(1, "route %s: %s (%s)", name, f ? "cpu" : "devices", why);
    return f == 1;
}

static double fact_flops(const chg_fact_call_t *c)
{
    const double p = (double)CHG_MAX(c->m, c->n), q = (double)CHG_MIN(c->m, c->n);
    switch (c->kind) {
    case CHG_FACT_POTRF: return q * q * q / 3.0;
    case CHG_FACT_GETRF: return p * q * q - q * q * q / 3.0;
    default: return 2.0 * p * q * q - 2.0 * q * q * q / 3.0;
    }
}

int chg_fact_route_cpu(clhgemm_handle_t h, const chg_fact_call_t *c)
{
    static const char *const names[2][3] = {{"spotrf", "sgetrf", "sgeqrf"},
                                            {"dpotrf", "dgetrf", "dgeqrf"}};
    const char *name = names[c->prec == CHG_F64][c->kind];
    const char *why = NULL;
    const int f = fixed_route(h, &why);
    const int verbose = chg_verbose() >= 1;
    if (f >= 0) {
        if (verbose)
            chg_log(1, "route %s %zux%zu: %s (%s)", name, c->m, c->n, f ? "cpu" : "devices", why);
        return f;
    }
    const chg_route_model_t *r = &h->route;
    const double flops = fact_flops(c);
    if (flops < r->latency * CHG_ROUTE_TINY_RATE) {
        if (verbose)
            chg_log(1,
                    "route %s %zux%zu: cpu (%.0f flops: less than the devices' latency %.2f ms at "
                    "1 GFLOP/s)",
                    name, c->m, c->n, flops, r->latency * 1e3);
        return 1;
    }
    const double elems = (double)c->m * (double)c->n,
                 bytes = elems * (double)chg_elem_size(c->prec);
    const chg_route_call_t rc = {.prec = c->prec, .name = name, .m = c->m, .n = c->n,
                                 .k = CHG_MIN(c->m, c->n), .flops = flops, .in_elems = elems,
                                 .c_elems = elems};
    const double t_cpu = chg_route_cpu_time(h, &rc) / CPU_LAPACK_SHARE;
    const double t_dev = r->latency + flops / CHG_MAX(r->dev_rate[c->prec], 1.0) +
                         bytes / CHG_MAX(r->h2d, 1.0) + bytes / CHG_MAX(r->d2h, 1.0);
    const int cpu = t_cpu <= t_dev;
    if (verbose)
        chg_log(1, "route %s %zux%zu: %s (model: CPU LAPACK %.3f ms, devices %.3f ms)", name, c->m,
                c->n, cpu ? "cpu" : "devices", t_cpu * 1e3, t_dev * 1e3);
    return cpu;
}

/* ---- the CPU LAPACK on column-major operands ---------------------------------------------- */

/* The routine's s or d member of the table (every pointer argument passes as void *). */
#define LAPACK(t, dbl, name, ...) ((dbl) ? (t)->d##name(__VA_ARGS__) : (t)->s##name(__VA_ARGS__))

static const char *uplo_c(int uplo) { return uplo == CLHGEMM_UPPER ? "U" : "L"; }
static const char *trans_c(int trans) { return trans == CLHGEMM_NO_TRANS ? "N" : "T"; }

/* The routines with a workspace: asked for its size (lwork -1) with work a scalar, then run. */
static void with_work(const chg_fact_args_t *a, void *A, chg_fint lda, void *B, chg_fint ldb,
                      void *work, chg_fint lwork, chg_fint *info)
{
    const chg_lapack_t *t = chg_lapack();
    const int dbl = a->prec == CHG_F64;
    const chg_fint m = a->m, n = a->n, k = a->k, r = a->nrhs;
    const char *side = a->side == CLHGEMM_LEFT ? "L" : "R", *tr = trans_c(a->trans);
    switch (a->op) {
    case CHG_FACT_OP_GEQRF:
        LAPACK(t, dbl, geqrf, &m, &n, A, &lda, a->tau, work, &lwork, info);
        break;
    case CHG_FACT_OP_ORMQR:
        LAPACK(t, dbl, ormqr, side, tr, &m, &n, &k, A, &lda, a->tau, B, &ldb, work, &lwork, info, 1,
               1);
        break;
    case CHG_FACT_OP_ORGQR:
        LAPACK(t, dbl, orgqr, &m, &n, &k, A, &lda, a->tau, work, &lwork, info);
        break;
    default: /* gels */
        LAPACK(t, dbl, gels, tr, &m, &n, &r, A, &lda, B, &ldb, work, &lwork, info, 1);
        break;
    }
}

static clhgemm_status_t lapack_col(const chg_fact_args_t *a, void *A, chg_fint lda, void *B,
                                   chg_fint ldb, chg_fint *info)
{
    const chg_lapack_t *t = chg_lapack();
    const int dbl = a->prec == CHG_F64;
    const chg_fint m = a->m, n = a->n, r = a->nrhs;
    *info = 0;
    switch (a->op) {
    case CHG_FACT_OP_POTRF:
        LAPACK(t, dbl, potrf, uplo_c(a->uplo), &n, A, &lda, info, 1);
        return CLHGEMM_SUCCESS;
    case CHG_FACT_OP_GETRF:
        LAPACK(t, dbl, getrf, &m, &n, A, &lda, a->ipiv, info);
        return CLHGEMM_SUCCESS;
    case CHG_FACT_OP_POTRS:
        LAPACK(t, dbl, potrs, uplo_c(a->uplo), &n, &r, A, &lda, B, &ldb, info, 1);
        return CLHGEMM_SUCCESS;
    case CHG_FACT_OP_POSV:
        LAPACK(t, dbl, posv, uplo_c(a->uplo), &n, &r, A, &lda, B, &ldb, info, 1);
        return CLHGEMM_SUCCESS;
    case CHG_FACT_OP_GETRS:
        LAPACK(t, dbl, getrs, trans_c(a->trans), &n, &r, A, &lda, a->ipiv, B, &ldb, info, 1);
        return CLHGEMM_SUCCESS;
    case CHG_FACT_OP_GESV:
        LAPACK(t, dbl, gesv, &n, &r, A, &lda, a->ipiv, B, &ldb, info);
        return CLHGEMM_SUCCESS;
    default: break;
    }
    double qd = 0;
    float qs = 0;
    with_work(a, A, lda, B, ldb, dbl ? (void *)&qd : (void *)&qs, -1, info);
    if (*info < 0) return CLHGEMM_INTERNAL_ERROR;
    const chg_fint lwork = CHG_MAX(1, dbl ? (chg_fint)qd : (chg_fint)qs);
    void *work = malloc((size_t)lwork * chg_elem_size(a->prec));
    if (!work) return CLHGEMM_OUT_OF_HOST_MEMORY;
    with_work(a, A, lda, B, ldb, work, lwork, info);
    free(work);
    return CLHGEMM_SUCCESS;
}

/* ---- the CPU route in the caller's layouts ------------------------------------------------ */

/* Between a row-major rows x cols matrix (r, ldr: element (i, j) at i*ldr + j) and a
 * column-major one (c, ldc); to_col copies r into c, else c into r. tri: all of it (0), or only
 * the upper (CLHGEMM_UPPER) or lower triangle with the diagonal. */
static void copy_layout(int to_col, size_t es, size_t rows, size_t cols, void *r, size_t ldr,
                        void *c, size_t ldc, int tri)
{
    for (size_t j = 0; j < cols; j++) {
        size_t i0 = 0, i1 = rows;
        if (tri == CLHGEMM_UPPER) i1 = CHG_MIN(rows, j + 1);
        if (tri == CLHGEMM_LOWER) i0 = CHG_MIN(rows, j);
        for (size_t i = i0; i < i1; i++) {
            char *x = (char *)r + (i * ldr + j) * es, *y = (char *)c + (i + j * ldc) * es;
            char *from = to_col ? x : y, *to = to_col ? y : x;
            for (size_t b = 0; b < es; b++)
                to[b] = from[b];
        }
    }
}

static int writes_a(chg_fact_op_t op)
{
    return op != CHG_FACT_OP_POTRS && op != CHG_FACT_OP_GETRS && op != CHG_FACT_OP_ORMQR;
}

static int has_info(chg_fact_op_t op)
{
    return op == CHG_FACT_OP_POTRF || op == CHG_FACT_OP_GETRF || op == CHG_FACT_OP_POSV ||
           op == CHG_FACT_OP_GESV || op == CHG_FACT_OP_GELS;
}

/* A column-major copy of a row-major operand (rows x cols as declared), or NULL. */
static void *col_copy(const chg_fact_args_t *a, void *src, int ld, size_t rows, size_t cols,
                      int tri, chg_fint *ldc)
{
    const size_t es = chg_elem_size(a->prec), ldt = CHG_MAX((size_t)1, rows);
    void *t = malloc(ldt * CHG_MAX((size_t)1, cols) * es);
    if (t) copy_layout(1, es, rows, cols, src, (size_t)ld, t, ldt, tri);
    *ldc = (chg_fint)ldt;
    return t;
}

clhgemm_status_t chg_fact_cpu(const chg_fact_args_t *in)
{
    if (!chg_lapack_ok(NULL)) return CLHGEMM_NO_CPU_LAPACK;
    chg_fact_args_t a = *in;
    /* a row-major Cholesky is the other triangle of the same storage, column-major */
    if (a.op == CHG_FACT_OP_POTRF && a.a_row) {
        a.a_row = 0;
        a.uplo = a.uplo == CLHGEMM_UPPER ? CLHGEMM_LOWER : CLHGEMM_UPPER;
    }
    const int tri = a.op == CHG_FACT_OP_POTRS || a.op == CHG_FACT_OP_POSV ? a.uplo : 0;
    const int use_b = a.op != CHG_FACT_OP_POTRF && a.op != CHG_FACT_OP_GETRF &&
                      a.op != CHG_FACT_OP_GEQRF && a.op != CHG_FACT_OP_ORGQR;
    const size_t es = chg_elem_size(a.prec);
    chg_fint lda = a.lda, ldb = a.ldb;
    void *A = a.a_row ? col_copy(&a, a.a, a.lda, a.a_rows, a.a_cols, tri, &lda) : a.a;
    void *B = use_b && a.b_row ? col_copy(&a, a.b, a.ldb, a.b_rows, a.b_cols, 0, &ldb) : a.b;
    clhgemm_status_t st = CLHGEMM_OUT_OF_HOST_MEMORY;
    chg_fint info = 0;
    if (A && (B || !use_b)) st = lapack_col(&a, A, lda, B, ldb, &info);
    if (st == CLHGEMM_SUCCESS && info < 0) st = CLHGEMM_INTERNAL_ERROR;
    if (st == CLHGEMM_SUCCESS) {
        if (a.a_row && writes_a(a.op))
            copy_layout(0, es, a.a_rows, a.a_cols, a.a, (size_t)a.lda, A, (size_t)lda, tri);
        if (use_b && a.b_row)
            copy_layout(0, es, a.b_rows, a.b_cols, a.b, (size_t)a.ldb, B, (size_t)ldb, 0);
        if (has_info(a.op)) *a.info = info;
    }
    if (a.a_row) free(A);
    if (use_b && a.b_row) free(B);
    return st;
}

clhgemm_status_t chg_fact_cpu_view(chg_fact_call_t *c)
{
    static const chg_fact_op_t ops[] = {[CHG_FACT_POTRF] = CHG_FACT_OP_POTRF,
                                        [CHG_FACT_GETRF] = CHG_FACT_OP_GETRF,
                                        [CHG_FACT_GEQRF] = CHG_FACT_OP_GEQRF};
    int info = 0;
    /* the view stored transposed: a Cholesky's upper triangle of the storage, else row-major */
    const int row = c->trans && c->kind != CHG_FACT_POTRF;
    chg_fact_args_t a = {.op = ops[c->kind], .prec = c->prec,
                         .layout = row ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR,
                         .uplo = c->trans ? CLHGEMM_UPPER : CLHGEMM_LOWER, .m = (int)c->m,
                         .n = (int)c->n, .a = c->a, .lda = (int)c->lda, .ipiv = c->ipiv,
                         .tau = c->tau, .info = &info, .a_rows = c->m, .a_cols = c->n};
    a.a_row = a.b_row = a.layout == CLHGEMM_ROW_MAJOR;
    const clhgemm_status_t st = chg_fact_cpu(&a);
    if (st == CLHGEMM_SUCCESS) c->info = info;
    return st;
}

clhgemm_status_t chg_fact_devices(clhgemm_handle_t h, chg_fact_call_t *c)
{
    const clhgemm_status_t st = chg_fact_run_host(h, c);
    if (st != CLHGEMM_WORKSPACE_TOO_SMALL) return st;
    chg_log(1, "%cfactorization %zux%zu: does not fit the devices; the CPU LAPACK runs it",
            c->prec == CHG_F64 ? 'd' : 's', c->m, c->n);
    return chg_fact_cpu_view(c);
}
