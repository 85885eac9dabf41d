/*
 * trsm.c -- TRSM on host memory (clhgemm_{s,d}trsm on a handle): the blocked substitution of
 * core/trsm.h with B where it is, in the caller's memory.
 *
 * The checks are the device version's (core/trsm.c: TRMM's shape rules and statuses) after the
 * handle, then NULL A (read when m, n > 0 and alpha != 0), NULL B (written when m, n > 0) and
 * FP64, as the host TRMM (host/api.c host_l3); nothing is written on a rejected call. m or n = 0
 * does nothing; alpha = 0 sets B to zero here without reading A or B. The call is routed as a
 * whole (host/route.h, as TRMM's m*n*k flops): a call the model gives the CPU is OpenBLAS's
 * TRSM on the caller's arguments, and so is every call of a handle whose devices were all lost
 * (host/fault.h). Otherwise, when A's triangle and three strips of B fit every device
 * (host/trsm_strips.h), B moves over the bus once: each device holds A and solves strips of
 * right-hand sides with the device algorithm (core/trsm_dev.h), a lost device's strips going to
 * the other devices or the CPU. When they do not fit (or
 * with CLHGEMM_TRSM_PANEL=openblas|ref), the blocked path: per diagonal block in dependency order
 * (chg_trsm_step): the block's panel of B is solved in place, then the rows (columns) of B not
 * solved yet are updated by clhgemm_{s,d}gemm on the same handle -- C := -T(rest, blk)*X_blk +
 * beta*C, a column-major GEMM on sub-matrices of the caller's A and B -- which the host GEMM
 * routes, plans and tiles as any other (CLHGEMM_DEVICE_MEMORY_LIMIT, several devices, the CPU
 * share). The blocks (blocked_plan): of nb with their panels on this thread
 * (chg_trsm_solve_panel: OpenBLAS), or of the largest multiple of nb whose strips fit the
 * devices, each panel a TRSM of its own by strips -- fewer, larger updates, so B crosses the bus
 * k / order times instead of k / nb; the cost model (host/route.h's times over the steps)
 * chooses, CLHGEMM_TRSM_PANEL=device forces the second where an order fits.
 */
#include <stdint.h>

#include "base/trace.h"
#include "core/trsm.h"
#include "cpu/cpublas.h"
#include "host/route.h"
#include "host/trsm_strips.h"

/* B := 0 (column-major view m x n, ldb) without reading it. */
static void zero_b(chg_precision_t prec, const chg_l3_shape_t *sh, void *B, size_t ldb)
{
    const size_t es = chg_elem_size(prec);
    for (size_t j = 0; j < sh->n; j++) {
        char *col = (char *)B + j * ldb * es;
        for (size_t i = 0; i < sh->m; i++) {
            if (prec == CHG_F64)
                ((double *)col)[i] = 0.0;
            else
                ((float *)col)[i] = 0.0f;
        }
    }
}

/* The caller's arguments, for the CPU route. */
typedef struct trsm_args_s {
    int layout, side, uplo, trans, diag, m, n, lda, ldb;
    double alpha;
    const void *a;
    void *b;
} trsm_args_t;

/* 1 when the routing model gives the whole call to OpenBLAS, or the handle has no device left,
 * and OpenBLAS ran it. */
static int ran_on_cpu(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                      const trsm_args_t *u)
{
    const double m = (double)sh->m, n = (double)sh->n, k = (double)sh->k;
    const route_call_t rc = {.prec = prec, .name = prec == CHG_F64 ? "dtrsm" : "strsm",
                             .m = sh->m, .n = sh->n, .k = sh->k, .flops = m * n * k,
                             .in_elems = k * k / 2 + m * n, .c_elems = m * n, .beta_zero = 0};
    /* every device of the handle lost in earlier calls (host/fault.h): OpenBLAS, as routed */
    if (h->ndev > 0 && !chg_route_to_cpu(h, &rc)) return 0;
    if (chg_cpu_blas_trsm(prec, u->layout, u->side, u->uplo, u->trans, u->diag, u->m, u->n,
                          u->alpha, u->a, u->lda, u->b, u->ldb) != 0)
        return 0; /* no OpenBLAS: the blocked path (its panels use the library's own solve) */
    chg_handle_set_last_cpu(h);
    return 1;
}

/* One trailing update: C := -op(L)*op(R) + beta*C through the host GEMM. */
static clhgemm_status_t update(clhgemm_handle_t h, chg_precision_t prec, const chg_trsm_step_t *t,
                               const char *A, char *B, size_t ldb)
{
    const size_t es = chg_elem_size(prec);
    const char *l = (t->l.is_b ? B : A) + t->l.off * es;
    const char *r = (t->r.is_b ? B : A) + t->r.off * es;
    char *c = B + t->c_off * es;
    const clhgemm_transpose_t ta = t->ta ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    const clhgemm_transpose_t tb = t->tb ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    const int m = (int)t->m, n = (int)t->n, k = (int)t->k;
    if (prec == CHG_F64)
        return clhgemm_dgemm(h, CLHGEMM_COL_MAJOR, ta, tb, m, n, k, -1.0, (const double *)l,
                             (int)t->l.ld, (const double *)r, (int)t->r.ld, t->beta, (double *)c,
                             (int)ldb);
    return clhgemm_sgemm(h, CLHGEMM_COL_MAJOR, ta, tb, m, n, k, -1.0f, (const float *)l,
                         (int)t->l.ld, (const float *)r, (int)t->r.ld, (float)t->beta,
                         (float *)c, (int)ldb);
}

/* The blocked path's diagonal blocks: their order and where they are solved. */
typedef struct blocked_s {
    size_t nb;
    int on_device; /* by strips on the devices (chg_trsm_strips), else on this thread */
} blocked_t;

/* The model's time (seconds, host/route.h) of the blocked path with blocks of nb solved on the
 * devices or by OpenBLAS: per step the panel (kb^2 * rhs flops; on the devices its A block,
 * the panel in and back) and the update (the host GEMM routes it: the faster of the two). */
static double blocked_time(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                           const blocked_t *b)
{
    const size_t steps = chg_trsm_steps(sh, b->nb);
    double t = 0;
    for (size_t s = 0; s < steps; s++) {
        chg_trsm_step_t st;
        chg_trsm_step(sh, b->nb, s, 1.0, sh->k, sh->k, &st);
        const double kb = (double)st.kb, rhs = (double)(sh->left ? st.p_cols : st.p_rows);
        const route_call_t p = {.prec = prec, .name = "trsm panel", .m = st.p_rows, .n = st.p_cols,
                                .k = st.kb, .flops = kb * kb * rhs, .in_elems = kb * kb / 2 + kb * rhs,
                                .c_elems = kb * rhs};
        t += b->on_device ? chg_route_device_time(h, &p) : chg_route_cpu_time(h, &p);
        if (st.m == 0 || st.n == 0) continue;
        const double m = (double)st.m, n = (double)st.n, k = (double)st.k;
        const route_call_t u = {.prec = prec, .name = "trsm update", .m = st.m, .n = st.n, .k = st.k,
                                .flops = 2 * m * n * k, .in_elems = (m + n) * k, .c_elems = m * n};
        t += CHG_MIN(chg_route_device_time(h, &u), chg_route_cpu_time(h, &u));
    }
    return t;
}

/* Where the blocked path's diagonal blocks go (CLHGEMM_TRSM_PANEL, core/trsm.h): openblas / ref
 * -- blocks of nb on this thread; device -- on the devices by strips, at the largest multiple
 * of nb that fits them (chg_trsm_strips_order), whenever one does; auto -- the same two
 * candidates, the one the model gives less time. A larger order makes every update a GEMM of
 * a larger inner dimension, so B crosses the bus fewer times (k / order round trips of the
 * rows not solved yet); the strips solve a block of that order on the devices as fast as they
 * solve a whole TRSM that fits. */
static blocked_t blocked_plan(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh)
{
    const int mode = chg_trsm_panel_mode();
    const blocked_t cpu = {chg_trsm_nb(h->ndev > 0 ? &h->devs[0].dev : NULL, prec), 0};
    blocked_t dev = {0, 1}, pick = cpu;
    double tc = 0, td = 0;
    if (chg_trsm_panel_on_device(mode) && h->ndev > 0)
        dev.nb = chg_trsm_strips_order(h, prec, sh->k, sh->left ? sh->n : sh->m, cpu.nb);
    if (dev.nb && mode == CHG_TRSM_PANEL_DEVICE) {
        pick = dev;
    } else if (dev.nb) {
        tc = blocked_time(h, prec, sh, &cpu);
        td = blocked_time(h, prec, sh, &dev);
        if (td < tc) pick = dev;
    }
    chg_log(1, "trsm: blocked, k = %zu: diagonal blocks of %zu %s (%s; model: %zu on the devices "
            "%.3f ms, %zu here %.3f ms)", sh->k, pick.nb, pick.on_device ? "on the devices" : "on this thread",
            !chg_trsm_panel_on_device(mode) ? "CLHGEMM_TRSM_PANEL" : !dev.nb ? "no order fits the devices"
            : mode == CHG_TRSM_PANEL_DEVICE ? "CLHGEMM_TRSM_PANEL=device" : "the model",
            dev.nb, td * 1e3, cpu.nb, tc * 1e3);
    return pick;
}

/* Step t's panel of B solved in place: by strips on the devices (the step's diagonal block as a
 * TRSM of its own, alpha its p_alpha) when b says so and they take it, else on this thread. */
static clhgemm_status_t solve_panel(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                                    const blocked_t *b, const chg_trsm_step_t *t, const char *A,
                                    size_t lda, char *B, size_t ldb)
{
    const size_t es = chg_elem_size(prec);
    if (b->on_device) {
        chg_l3_shape_t sub = *sh;
        sub.k = t->kb;
        if (sh->left) sub.m = t->kb;
        else sub.n = t->kb;
        clhgemm_status_t st;
        if (chg_trsm_strips(h, prec, &sub, t->p_alpha, A + t->a_off * es, lda, B + t->p_off * es, ldb, &st))
            return st;
    }
    chg_trsm_solve_panel(prec, sh, t->p_rows, t->p_cols, t->p_alpha, A + t->a_off * es, lda,
                         B + t->p_off * es, ldb);
    return CLHGEMM_SUCCESS;
}

static clhgemm_status_t host_trsm(clhgemm_handle_t h, chg_precision_t prec, const trsm_args_t *u)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_trsm_check_shape(u->layout, u->side, u->uplo, u->trans, u->diag,
                                               u->m, u->n, u->lda, u->ldb, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    const int touch = sh.m > 0 && sh.n > 0;
    if (touch && u->alpha != 0.0 && !u->a) return CLHGEMM_NULL_BUFFER_A;
    if (touch && !u->b) return CLHGEMM_NULL_BUFFER_B;
    if (!chg_handle_fp64_ok(h, prec)) return CLHGEMM_FP64_NOT_SUPPORTED;
    if (!touch) return CLHGEMM_SUCCESS;
    const size_t lda = (size_t)u->lda, ldb = (size_t)u->ldb;
    if (u->alpha == 0.0) {
        zero_b(prec, &sh, u->b, ldb);
        return CLHGEMM_SUCCESS;
    }
    if (ran_on_cpu(h, prec, &sh, u)) return CLHGEMM_SUCCESS;
    if (chg_trsm_strips(h, prec, &sh, u->alpha, u->a, lda, u->b, ldb, &st)) return st;

    /* the updates are host GEMMs over the handle's devices */
    const blocked_t b = blocked_plan(h, prec, &sh);
    const size_t steps = chg_trsm_steps(&sh, b.nb);
    for (size_t s = 0; s < steps; s++) {
        chg_trsm_step_t t;
        chg_trsm_step(&sh, b.nb, s, u->alpha, lda, ldb, &t);
        st = solve_panel(h, prec, &sh, &b, &t, u->a, lda, u->b, ldb);
        if (st != CLHGEMM_SUCCESS) return st;
        if (t.m == 0 || t.n == 0) continue;
        st = update(h, prec, &t, u->a, u->b, ldb);
        if (st != CLHGEMM_SUCCESS) return st;
    }
    return CLHGEMM_SUCCESS;
}

CLHGEMM_API clhgemm_status_t clhgemm_strsm(clhgemm_handle_t h, clhgemm_layout_t layout,
                                           clhgemm_side_t side, clhgemm_uplo_t uplo,
                                           clhgemm_transpose_t transA, clhgemm_diag_t diag, int m,
                                           int n, float alpha, const float *A, int lda, float *B,
                                           int ldb)
{
    const trsm_args_t u = {layout, side, uplo, transA, diag, m, n, lda, ldb, alpha, A, B};
    return host_trsm(h, CHG_F32, &u);
}

CLHGEMM_API clhgemm_status_t clhgemm_dtrsm(clhgemm_handle_t h, clhgemm_layout_t layout,
                                           clhgemm_side_t side, clhgemm_uplo_t uplo,
                                           clhgemm_transpose_t transA, clhgemm_diag_t diag, int m,
                                           int n, double alpha, const double *A, int lda, double *B,
                                           int ldb)
{
    const trsm_args_t u = {layout, side, uplo, transA, diag, m, n, lda, ldb, alpha, A, B};
    return host_trsm(h, CHG_F64, &u);
}
