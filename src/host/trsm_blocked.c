/*
 * trsm_blocked.c -- host-memory TRSM's blocked path (trsm_blocked.h says what and when).
 *
 * Look-ahead (host panels): step s's update is cut at the next block (core/trsm_subst.h
 * chg_trsm_step_split). Its `near` part -- the rows (columns) of block s + 1 -- is updated
 * first, as any host GEMM; then a helper thread runs the `far` part, the larger one, through
 * the host GEMM (under the handle's call lock, on the devices as the route says) while this
 * thread solves panel s + 1 with OpenBLAS. The two touch disjoint parts of B: `far` reads panel
 * s's rows (solved before the thread starts) and writes the rows after block s + 1; the panel
 * solve reads A's diagonal block and writes block s + 1's rows. The thread is joined before step
 * s + 1's update, which reads panel s + 1. So the CPU's panels cost nothing beside updates that
 * take longer, which is the case the model picks host panels for (slow devices or a fast CPU).
 */
#include "host/trsm_blocked.h"

#include <pthread.h>
#include <stdio.h>

#include "core/trsm_subst.h"
#include "host/route.h"
#include "host/trsm_strips.h"

/* One trailing update: C := -op(L)*op(R) + beta*C through the host GEMM (complex: op(A) = A^H
 * conjugates the operand that is A, a conjugate transpose in the column-major view, since
 * core/trsm_subst.c's steps read A transposed exactly where op(A) is). */
static clhgemm_status_t update(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                               const chg_trsm_step_t *t, const char *A, char *B, size_t ldb)
{
    if (t->m == 0 || t->n == 0) return CLHGEMM_SUCCESS;
    const size_t es = chg_elem_size(prec) * (sh->cplx ? 2 : 1);
    const char *l = (t->l.is_b ? B : A) + t->l.off * es;
    const char *r = (t->r.is_b ? B : A) + t->r.off * es;
    char *c = B + t->c_off * es;
    const clhgemm_transpose_t tr = sh->conj ? CLHGEMM_CONJ_TRANS : CLHGEMM_TRANS;
    const clhgemm_transpose_t ta = t->ta ? tr : CLHGEMM_NO_TRANS;
    const clhgemm_transpose_t tb = t->tb ? tr : CLHGEMM_NO_TRANS;
    const int m = (int)t->m, n = (int)t->n, k = (int)t->k;
    if (sh->cplx) {
        const double mone[2] = {-1.0, 0.0};
        const float fm[2] = {-1.0f, 0.0f}, fb[2] = {(float)t->beta[0], (float)t->beta[1]};
        if (prec == CHG_F64)
            return clhgemm_zgemm(h, CLHGEMM_COL_MAJOR, ta, tb, m, n, k, mone, l, (int)t->l.ld, r,
                                 (int)t->r.ld, t->beta, c, (int)ldb);
        return clhgemm_cgemm(h, CLHGEMM_COL_MAJOR, ta, tb, m, n, k, fm, l, (int)t->l.ld, r,
                             (int)t->r.ld, fb, c, (int)ldb);
    }
    if (prec == CHG_F64)
        return clhgemm_dgemm(h, CLHGEMM_COL_MAJOR, ta, tb, m, n, k, -1.0, (const double *)l,
                             (int)t->l.ld, (const double *)r, (int)t->r.ld, t->beta[0], (double *)c,
                             (int)ldb);
    return clhgemm_sgemm(h, CLHGEMM_COL_MAJOR, ta, tb, m, n, k, -1.0f, (const float *)l,
                         (int)t->l.ld, (const float *)r, (int)t->r.ld, (float)t->beta[0],
                         (float *)c, (int)ldb);
}

/* The call as the steps see it. */
typedef struct bcall_s {
    clhgemm_handle_t h;
    chg_precision_t prec;
    const chg_l3_shape_t *sh;
    const char *A;
    char *B;
    size_t lda, ldb;
} bcall_t;

/* The diagonal blocks: their order and where they are solved. */
typedef struct blocked_s {
    size_t nb;
    int on_device; /* by strips on the devices (chg_trsm_strips), else on this thread */
    int lookahead; /* host panels: the next panel solved while the rest of the update runs */
} blocked_t;

/* ---- the model ------------------------------------------------------------------------------ */

/* The model's time of step t's panel: kb^2 * rhs flops, on the devices (its A block, the panel
 * in and back) or by OpenBLAS. */
static double panel_time(const bcall_t *c, const chg_trsm_step_t *t, int on_device)
{
    const double kb = (double)t->kb, rhs = (double)(c->sh->left ? t->p_cols : t->p_rows);
    const chg_route_call_t p = {.prec = c->prec, .name = "trsm panel", .m = t->p_rows, .n = t->p_cols,
                            .k = t->kb, .flops = kb * kb * rhs, .in_elems = kb * kb / 2 + kb * rhs,
                            .c_elems = kb * rhs};
    return on_device ? chg_route_device_time(c->h, &p) : chg_route_cpu_time(c->h, &p);
}

/* The model's time of an update (the host GEMM routes it: the faster of the two); 0 if empty. */
static double update_time(const bcall_t *c, const chg_trsm_step_t *t)
{
    if (t->m == 0 || t->n == 0) return 0;
    const double m = (double)t->m, n = (double)t->n, k = (double)t->k;
    const chg_route_call_t u = {.prec = c->prec, .name = "trsm update", .m = t->m, .n = t->n, .k = t->k,
                            .flops = 2 * m * n * k, .in_elems = (m + n) * k, .c_elems = m * n};
    return CHG_MIN(chg_route_device_time(c->h, &u), chg_route_cpu_time(c->h, &u));
}

/* The model's time (seconds) of the blocked path as b says: the panels and updates one after
 * the other, or with look-ahead panel 0, then per step its near update and the longer of the
 * far update and the next panel. */
static double blocked_time(const bcall_t *c, const blocked_t *b)
{
    const size_t steps = chg_trsm_steps(c->sh, b->nb);
    chg_trsm_step_t t, nx;
    static const double one[2] = {1.0, 0.0};
    chg_trsm_step(c->sh, b->nb, 0, one, c->lda, c->ldb, &t);
    double time = panel_time(c, &t, b->on_device);
    for (size_t s = 0; s + 1 < steps; s++) { /* the last step has no update */
        chg_trsm_step(c->sh, b->nb, s + 1, one, c->lda, c->ldb, &nx);
        const double next = panel_time(c, &nx, b->on_device);
        if (b->lookahead) {
            chg_trsm_step_t near, far;
            chg_trsm_step_split(c->sh, &t, nx.kb, c->lda, c->ldb, &near, &far);
            time += update_time(c, &near) + CHG_MAX(update_time(c, &far), next);
        } else {
            time += update_time(c, &t) + next;
        }
        t = nx;
    }
    return time;
}

/* Where the diagonal blocks go (CLHGEMM_TRSM_PANEL, core/trsm_subst.h): openblas / ref -- blocks of
 * nb on this thread; device -- on the devices by strips, at the largest multiple of nb that
 * fits them, whenever one does; auto -- the same two candidates, the one the model gives less
 * time. */
static blocked_t blocked_plan(const bcall_t *c)
{
    clhgemm_handle_t h = c->h;
    const int mode = chg_trsm_panel_mode();
    const blocked_t cpu = {chg_trsm_nb(h->ndev > 0 ? &h->devs[0].dev : NULL, c->prec), 0,
                           h->ndev > 0 && chg_env_flag("CLHGEMM_TRSM_LOOKAHEAD", 1)};
    blocked_t dev = {0, 1, 0}, pick = cpu;
    double tc = 0, td = 0;
    if (chg_trsm_panel_on_device(mode) && h->ndev > 0)
        dev.nb = chg_trsm_strips_order(h, c->prec, c->sh->cplx, c->sh->k, c->sh->left ? c->sh->n : c->sh->m,
                                       cpu.nb);
    if (dev.nb && mode == CHG_TRSM_PANEL_DEVICE) {
        pick = dev;
    } else if (dev.nb) {
        tc = blocked_time(c, &cpu);
        td = blocked_time(c, &dev);
        if (td < tc) pick = dev;
    }
    char why[160];
    if (tc > 0 || td > 0)
        snprintf(why, sizeof why, "the model: %zu on the devices %.3f ms, %zu here %.3f ms", dev.nb, td * 1e3,
                 cpu.nb, tc * 1e3);
    else
        snprintf(why, sizeof why, "%s", !chg_trsm_panel_on_device(mode) ? "CLHGEMM_TRSM_PANEL"
                 : !dev.nb ? "no order fits the devices" : "CLHGEMM_TRSM_PANEL=device");
    chg_log(1, "trsm: blocked, k = %zu: diagonal blocks of %zu %s (%s)", c->sh->k, pick.nb,
            pick.on_device ? "on the devices" : pick.lookahead ? "on this thread with look-ahead" : "on this thread",
            why);
    return pick;
}

/* ---- the steps ------------------------------------------------------------------------------ */

/* Step t's panel of B solved in place: by strips on the devices (the step's diagonal block as a
 * TRSM of its own, alpha its p_alpha) when b says so and they take it, else on this thread. */
static clhgemm_status_t solve_panel(const bcall_t *c, const blocked_t *b, const chg_trsm_step_t *t)
{
    const size_t es = chg_elem_size(c->prec) * (c->sh->cplx ? 2 : 1);
    if (b->on_device) {
        chg_l3_shape_t sub = *c->sh;
        sub.k = t->kb;
        if (c->sh->left) sub.m = t->kb;
        else sub.n = t->kb;
        clhgemm_status_t st;
        if (chg_trsm_strips(c->h, c->prec, &sub, t->p_alpha, c->A + t->a_off * es, c->lda, c->B + t->p_off * es,
                            c->ldb, &st))
            return st;
    }
    chg_trsm_solve_panel(c->prec, c->sh, t->p_rows, t->p_cols, t->p_alpha, c->A + t->a_off * es, c->lda,
                         c->B + t->p_off * es, c->ldb);
    return CLHGEMM_SUCCESS;
}

/* The far update, on the helper thread. */
typedef struct far_job_s {
    const bcall_t *c;
    chg_trsm_step_t t;
    clhgemm_status_t st;
} far_job_t;

static void *far_main(void *p)
{
    far_job_t *j = p;
    j->st = update(j->c->h, j->c->prec, j->c->sh, &j->t, j->c->A, j->c->B, j->c->ldb);
    return NULL;
}

/* Step t's update with panel nx (the next step's) solved beside its far part. */
static clhgemm_status_t step_lookahead(const bcall_t *c, const blocked_t *b, const chg_trsm_step_t *t,
                                       const chg_trsm_step_t *nx)
{
    chg_trsm_step_t near;
    far_job_t job = {.c = c, .st = CLHGEMM_SUCCESS};
    chg_trsm_step_split(c->sh, t, nx->kb, c->lda, c->ldb, &near, &job.t);
    clhgemm_status_t st = update(c->h, c->prec, c->sh, &near, c->A, c->B, c->ldb);
    if (st != CLHGEMM_SUCCESS) return st;
    pthread_t th;
    const int threaded = job.t.m && job.t.n && pthread_create(&th, NULL, far_main, &job) == 0;
    st = solve_panel(c, b, nx);
    if (threaded)
        pthread_join(th, NULL);
    else
        far_main(&job); /* no thread (or nothing far): after the panel */
    return st != CLHGEMM_SUCCESS ? st : job.st;
}

clhgemm_status_t chg_trsm_blocked(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                                  const double alpha[2], const void *A, size_t lda, void *B, size_t ldb)
{
    const bcall_t c = {.h = h, .prec = prec, .sh = sh, .A = A, .B = B, .lda = lda, .ldb = ldb};
    const blocked_t b = blocked_plan(&c);
    const int lookahead = b.lookahead && !b.on_device;
    const size_t steps = chg_trsm_steps(sh, b.nb);
    chg_trsm_step_t t, nx;
    chg_trsm_step(sh, b.nb, 0, alpha, lda, ldb, &t);
    clhgemm_status_t st = solve_panel(&c, &b, &t);
    for (size_t s = 0; s + 1 < steps && st == CLHGEMM_SUCCESS; s++) {
        chg_trsm_step(sh, b.nb, s + 1, alpha, lda, ldb, &nx);
        if (lookahead) {
            st = step_lookahead(&c, &b, &t, &nx);
        } else {
            st = update(h, prec, sh, &t, c.A, c.B, ldb);
            if (st == CLHGEMM_SUCCESS) st = solve_panel(&c, &b, &nx);
        }
        t = nx;
    }
    return st;
}
