/*
 * trsm_dev.c -- TRSM on the device: inverted diagonal blocks and a recursive blocked
 * substitution of GEMMs (the algorithm is in trsm_dev.h; docs/ARCHITECTURE.md says why).
 */
#include "core/trsm_dev.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#include "device/cache.h"
#include "kernels/params.h"

/* T is lower: forward substitution (T = op(A) for side left, op(A)^T for side right). */
static int t_lower(const chg_l3_shape_t *sh)
{
    return sh->left ? sh->upper == sh->trans : sh->upper != sh->trans;
}

/* The element size of a call (complex: two reals). */
static size_t elem_size(chg_precision_t prec, int cplx)
{
    return chg_elem_size(prec) * (cplx ? 2 : 1);
}

/* Kernel `name` of cl/trsm_inv.cl for (dev, prec; complex elements when cplx) with the blocked
 * inversion's tile ts and panel width ic, through the program cache. */
static clhgemm_status_t inv_kernel(cl_context ctx, const chg_device_t *dev, chg_precision_t prec,
                                   int cplx, size_t ts, size_t ic, const char *name,
                                   cl_kernel *out)
{
    char defines[128];
    snprintf(defines, sizeof defines,
             "#define PRECISION %d\n#define TS %zu\n#define IC %zu\n#define CPLX %d\n",
             prec == CHG_F64 ? 64 : 32, ts, ic, cplx != 0);
    static const char *const names[2][2] = {{"strsm-inv", "dtrsm-inv"}, {"ctrsm-inv", "ztrsm-inv"}};
    return chg_kernel_get_cl(ctx, dev, "trsm_inv.cl", names[cplx != 0][prec == CHG_F64], 1,
                             defines, name, out);
}

clhgemm_status_t chg_trsm_inv_kernel(cl_context ctx, const chg_device_t *dev,
                                     chg_precision_t prec, int cplx, cl_kernel *out)
{
    return inv_kernel(ctx, dev, prec, cplx, 32, 8, "trsm_invert", out);
}

/* Work-items per column of trsm_invert_wg, 0 when its x (nb elements) does not fit local
 * memory (then trsm_invert, a work-item per column). */
static size_t inv_wg(const chg_device_t *dev, chg_precision_t prec, int cplx, size_t nb)
{
    const unsigned long long lm = dev->info.local_mem_bytes;
    if (lm < 1024 || nb * elem_size(prec, cplx) > lm / 2) return 0;
    return CHG_MAX((size_t)1, CHG_MIN(CHG_MIN((size_t)64, nb), dev->info.max_work_group_size));
}

/* The blocked inversion (cl/trsm_inv.cl: tiles of ts, panels of ic columns) for blocks of nb:
 * its tile (32, or nb / 2 rounded down to even for nb < 64, so that small blocks are tiled too)
 * and panel width (8, at most the tile: on the H100 16 FP32 columns ran the panels 15% slower),
 * 0 in *ts where it does not apply -- one tile per block, a panel or a tile that does not fit
 * local memory (with 1 KB to spare: FP64 nb = 512 takes 34 KB of the 48 KB most GPUs give a
 * work-group), a tile wider than a work-group, or CLHGEMM_TRSM_INV=column (then the
 * substitution by columns; also for complex blocks, which only the column kernels take). */
static void blocked_inv(const chg_device_t *dev, chg_precision_t prec, int cplx, size_t nb,
                        size_t *ts, size_t *ic)
{
    *ts = 0;
    *ic = 0;
    if (cplx) return;
    const char *mode = chg_getenv("CLHGEMM_TRSM_INV");
    if (mode && strcmp(mode, "column") == 0) return;
    if (mode && strcmp(mode, "blocked") != 0)
        chg_env_warn("CLHGEMM_TRSM_INV", mode, "is not blocked or column; using blocked");
    /* an even tile, so that the panel has 2 columns or more: PoCL 3.1 miscompiles the panel
     * kernel with IC = 1 (right with -cl-opt-disable; the soak test met it at nb = 39) */
    const size_t t = nb >= 64 ? 32 : nb / 2 / 2 * 2, es = chg_elem_size(prec);
    if (t < 2) return;
    size_t c = CHG_MIN((size_t)8, t);
    while (t % c) c--;
    /* the panel's columns and, apart, the tiles kernel's tile (a work-group of t items) */
    if ((nb + t) * c * es + 1024 > dev->info.local_mem_bytes ||
        t * (t + 1) * es + 1024 > dev->info.local_mem_bytes || t > dev->info.max_work_group_size)
        return;
    *ts = t;
    *ic = c;
}

size_t chg_trsm_dev_bytes(chg_precision_t prec, int cplx, size_t k, size_t nb)
{
    return chg_ceil_div(k, nb) * nb * nb * elem_size(prec, cplx);
}

clhgemm_status_t chg_trsm_dev_init(chg_trsm_dev_t *t, cl_context ctx, const chg_device_t *dev,
                                   chg_precision_t prec, const chg_l3_shape_t *sh, size_t nb)
{
    memset(t, 0, sizeof *t);
    t->prec = prec;
    t->sh = *sh;
    t->nb = CHG_MIN(nb, sh->k);
    t->dev = dev;
    cl_int err;
    const int cx = sh->cplx;
    t->d = clCreateBuffer(ctx, CL_MEM_READ_WRITE, chg_trsm_dev_bytes(prec, cx, sh->k, t->nb),
                          NULL, &err);
    clhgemm_status_t st = (clhgemm_status_t)err;
    t->inv_wg = inv_wg(dev, prec, cx, t->nb);
    blocked_inv(dev, prec, cx, t->nb, &t->ts, &t->ic);
    if (st == CLHGEMM_SUCCESS && t->ts) {
        st = inv_kernel(ctx, dev, prec, cx, t->ts, t->ic, "trsm_invert_tiles", &t->tiles);
        if (st == CLHGEMM_SUCCESS)
            st = inv_kernel(ctx, dev, prec, cx, t->ts, t->ic, "trsm_invert_panel", &t->panel);
    } else if (st == CLHGEMM_SUCCESS) {
        st = inv_kernel(ctx, dev, prec, cx, 32, 8, t->inv_wg ? "trsm_invert_wg" : "trsm_invert",
                        &t->inv);
    }
    if (st != CLHGEMM_SUCCESS) chg_trsm_dev_release(t);
    return st;
}

void chg_trsm_dev_release(chg_trsm_dev_t *t)
{
    if (t->d) clReleaseMemObject(t->d);
    if (t->inv) clReleaseKernel(t->inv);
    if (t->tiles) clReleaseKernel(t->tiles);
    if (t->panel) clReleaseKernel(t->panel);
    t->d = NULL;
    t->inv = t->tiles = t->panel = NULL;
}

/* The arguments every kernel of cl/trsm_inv.cl takes first (A, a_off, lda, k, nb, q0, upper,
 * unit, D), into kernel kn for the blocks from row r0. */
static cl_int inv_args(chg_trsm_dev_t *t, cl_kernel kn, cl_mem A, size_t offA, size_t lda,
                       size_t r0)
{
    const cl_ulong a_off = offA, ld = lda, k = t->sh.k, nb = t->nb, q0 = r0 / t->nb;
    const cl_int upper = t->sh.upper, unit = t->sh.unit;
    cl_int err = CL_SUCCESS;
#define KARG(i, v) (err = err != CL_SUCCESS ? err : clSetKernelArg(kn, i, sizeof(v), &(v)))
    KARG(0, A);
    KARG(1, a_off);
    KARG(2, ld);
    KARG(3, k);
    KARG(4, nb);
    KARG(5, q0);
    KARG(6, upper);
    KARG(7, unit);
    KARG(8, t->d);
#undef KARG
    return err;
}

/* The blocked inversion of the blocks of rows [r0, r1): trsm_invert_tiles, then
 * trsm_invert_panel after it (cl/trsm_inv.cl). */
static clhgemm_status_t invert_blocked(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A,
                                       size_t offA, size_t lda, size_t r0, size_t r1,
                                       cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    const size_t blocks = chg_ceil_div(r1 - r0, t->nb);
    cl_int err = inv_args(t, t->tiles, A, offA, lda, r0);
    if (err == CL_SUCCESS) err = inv_args(t, t->panel, A, offA, lda, r0);
    const cl_ulong nq = blocks;
    if (err == CL_SUCCESS) err = clSetKernelArg(t->panel, 9, sizeof nq, &nq);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(t->panel, 10, (t->nb + t->ts) * t->ic * chg_elem_size(t->prec), NULL);
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    /* trsm_invert_tiles: a work-group of ts work-items per tile */
    const size_t tw = t->ts;
    const size_t tg = blocks * chg_ceil_div(t->nb, t->ts) * t->ts;
    const size_t pw = CHG_MIN((size_t)256, t->dev->info.max_work_group_size);
    const size_t pg = blocks * chg_ceil_div(t->nb, t->ic) * pw;
    cl_event tiles = NULL;
    err = clEnqueueNDRangeKernel(q, t->tiles, 1, NULL, &tg, &tw, nwait, wait, &tiles);
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    err = clEnqueueNDRangeKernel(q, t->panel, 1, NULL, &pg, &pw, 1, &tiles, ev);
    clReleaseEvent(tiles);
    return (clhgemm_status_t)err;
}

/* The inversion of the diagonal blocks of T's rows [r0, r1) (r0 a multiple of nb; r1 one too,
 * or k). */
static clhgemm_status_t invert_rows(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A, size_t offA,
                                    size_t lda, size_t r0, size_t r1, cl_uint nwait,
                                    const cl_event *wait, cl_event *ev)
{
    if (t->ts) return invert_blocked(t, q, A, offA, lda, r0, r1, nwait, wait, ev);
    cl_int err = inv_args(t, t->inv, A, offA, lda, r0);
    if (t->inv_wg && err == CL_SUCCESS)
        err = clSetKernelArg(t->inv, 9, t->nb * elem_size(t->prec, t->sh.cplx), NULL);
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    const size_t cols = chg_ceil_div(r1 - r0, t->nb) * t->nb;
    /* trsm_invert_wg: a work-group of inv_wg per column; trsm_invert: one work-item per
     * column, work-groups of 64 where the device allows */
    const size_t wg = t->inv_wg ? t->inv_wg : CHG_MIN((size_t)64, t->dev->info.max_work_group_size);
    const size_t global = t->inv_wg ? cols * wg : chg_round_up(cols, wg);
    return (clhgemm_status_t)clEnqueueNDRangeKernel(q, t->inv, 1, NULL, &global, &wg, nwait, wait,
                                                    ev);
}

clhgemm_status_t chg_trsm_dev_invert(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A, size_t offA,
                                     size_t lda, cl_uint nwait, const cl_event *wait,
                                     cl_event *ev)
{
    return invert_rows(t, q, A, offA, lda, 0, t->sh.k, nwait, wait, ev);
}

/* ---- the solve ------------------------------------------------------------------------------ */

/* One solve in flight: its buffers and the chain of events. */
typedef struct solve_s {
    chg_trsm_dev_t *t;
    cl_command_queue q;
    cl_mem a, b;
    size_t off_a, lda, off_b, ldb, rhs;
    double alpha[2];
    cl_uint nwait;        /* the caller's wait list, for the first command */
    const cl_event *wait;
    cl_event last;        /* the last command enqueued, NULL before the first */
} solve_t;

/* The wait list of the next command, and the event it makes becoming the last. */
static cl_uint chain_wait(const solve_t *s, const cl_event **wl)
{
    *wl = s->last ? &s->last : s->wait;
    return s->last ? 1 : s->nwait;
}

static void chain_set(solve_t *s, cl_event ev)
{
    if (s->last) clReleaseEvent(s->last);
    s->last = ev;
}

/* g's complex parts: the call's element type, and conj(op(A)) where op(A) = A^H. */
static clhgemm_status_t gemm(solve_t *s, chg_gemm_args_t *g)
{
    g->prec = s->t->prec;
    g->st.cplx = s->t->sh.cplx;
    if (s->t->sh.left) g->st.conj_a = s->t->sh.conj;
    else g->st.conj_b = s->t->sh.conj;
    const cl_event *wl;
    const cl_uint nw = chain_wait(s, &wl);
    cl_event ev = NULL;
    const clhgemm_status_t st = chg_gemm_enqueue(g, s->q, nw, wl, &ev);
    if (st == CLHGEMM_SUCCESS) chain_set(s, ev);
    return st;
}

/* Block q (rows r0 .. r0 + kb of T): X_q := a * inv(T_qq) * B_q, in place: a TRMM of the core
 * (l3_map.c's operands) with the inverted block D_q as its triangular operand. The core packs
 * the general operand's panel before it writes the C block over it and visits the blocks in
 * TRMM's safe order (core/gemm.c enqueue_blocks), so B_q is both operand and result; a
 * temporary and a copy back per leaf cost 16 copies of 32 MB and their launches per DTRSM
 * n = 8192 (nb = 512). D_q is triangular (A's triangle, flipped by op): a structured operand,
 * so that the core skips its zero blocks -- half the leaf flops. */
static clhgemm_status_t leaf(solve_t *s, size_t r0, size_t kb, const double a[2])
{
    const chg_trsm_dev_t *t = s->t;
    const int left = t->sh.left;
    chg_gemm_args_t g;
    memset(&g, 0, sizeof g);
    g.alpha = a[0];
    g.alpha_im = a[1];
    g.beta = 0.0;
    g.k = kb;
    /* left: B_q (kb x rhs) = op(D_q) * B_q; right: B_q (rhs x kb) = B_q * op(D_q).
     * D_q is inv(A_qq); op(inv(A_qq)) = inv(op(A_qq)). */
    const size_t boff = s->off_b + (left ? r0 : r0 * s->ldb);
    const size_t doff = r0 / t->nb * t->nb * t->nb;
    g.m = left ? kb : s->rhs;
    g.n = left ? s->rhs : kb;
    g.c = s->b, g.off_c = boff, g.ldc = s->ldb;
    if (left) {
        g.trans_a = t->sh.trans;
        g.a = t->d, g.off_a = doff, g.lda = t->nb;
        g.b = s->b, g.off_b = boff, g.ldb = s->ldb;
        g.st.kind_a = CHG_TRIANGULAR;
        g.st.upper_a = t->sh.upper != t->sh.trans;
    } else {
        g.trans_b = t->sh.trans;
        g.a = s->b, g.off_a = boff, g.lda = s->ldb;
        g.b = t->d, g.off_b = doff, g.ldb = t->nb;
        g.st.kind_b = CHG_TRIANGULAR;
        g.st.upper_b = t->sh.upper == t->sh.trans;
    }
    return gemm(s, &g);
}

/* B_I := -T(I, P) * X_P + beta * B_I (left), B_I := -X_P * T(I, P)^T + beta * B_I (right):
 * rows (columns) I = i0 .. i0 + ni of B from the solved P = p0 .. p0 + np. */
static clhgemm_status_t update(solve_t *s, size_t i0, size_t ni, size_t p0, size_t np,
                               const double beta[2])
{
    const chg_l3_shape_t *sh = &s->t->sh;
    chg_gemm_args_t g;
    memset(&g, 0, sizeof g);
    g.alpha = -1.0;
    g.beta = beta[0];
    g.beta_im = beta[1];
    g.k = np;
    g.c = s->b;
    g.ldc = s->ldb;
    if (sh->left) {
        /* op(A)(I, P): A(i0, p0), or A(p0, i0) read transposed */
        g.m = ni, g.n = s->rhs;
        g.trans_a = sh->trans;
        g.a = s->a, g.off_a = s->off_a + (sh->trans ? p0 + i0 * s->lda : i0 + p0 * s->lda);
        g.lda = s->lda;
        g.b = s->b, g.off_b = s->off_b + p0, g.ldb = s->ldb;
        g.off_c = s->off_b + i0;
    } else {
        /* op(A)(P, I): A(p0, i0), or A(i0, p0) read transposed */
        g.m = s->rhs, g.n = ni;
        g.trans_b = sh->trans;
        g.a = s->b, g.off_a = s->off_b + p0 * s->ldb, g.lda = s->ldb;
        g.b = s->a, g.off_b = s->off_a + (sh->trans ? i0 + p0 * s->lda : p0 + i0 * s->lda);
        g.ldb = s->lda;
        g.off_c = s->off_b + i0 * s->ldb;
    }
    return gemm(s, &g);
}

/* The row where solve_range splits T's rows r0 .. r1 (several blocks). */
static size_t split_row(const chg_trsm_dev_t *t, size_t r0, size_t r1)
{
    return r0 + (chg_ceil_div(r1 - r0, t->nb) + 1) / 2 * t->nb;
}

/* T's rows r0 .. r1 (r0 a multiple of nb); scaled: alpha is already applied to those rows. */
static clhgemm_status_t solve_range(solve_t *s, size_t r0, size_t r1, int scaled)
{
    const size_t nb = s->t->nb, blocks = chg_ceil_div(r1 - r0, nb);
    static const double one[2] = {1.0, 0.0};
    /* scaled: 1, else alpha -- the leaf's alpha, or the update's beta */
    const double *beta = scaled ? one : s->alpha;
    if (blocks == 1) return leaf(s, r0, r1 - r0, beta);
    const size_t mid = split_row(s->t, r0, r1);
    clhgemm_status_t st;
    if (t_lower(&s->t->sh)) {
        st = solve_range(s, r0, mid, scaled);
        if (st == CLHGEMM_SUCCESS) st = update(s, mid, r1 - mid, r0, mid - r0, beta);
        if (st == CLHGEMM_SUCCESS) st = solve_range(s, mid, r1, 1);
    } else {
        st = solve_range(s, mid, r1, scaled);
        if (st == CLHGEMM_SUCCESS) st = update(s, r0, mid - r0, mid, r1 - mid, beta);
        if (st == CLHGEMM_SUCCESS) st = solve_range(s, r0, mid, 1);
    }
    return st;
}

/* A solve of rhs right-hand sides, its first command after the events in wait. */
static solve_t solve_of(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A, size_t offA, size_t lda,
                        size_t rhs, const double alpha[2], cl_mem B, size_t offB, size_t ldb,
                        cl_uint nwait, const cl_event *wait)
{
    return (solve_t){.t = t, .q = q, .a = A, .b = B, .off_a = offA, .lda = lda, .off_b = offB,
                     .ldb = ldb, .rhs = rhs, .alpha = {alpha[0], t->sh.cplx ? alpha[1] : 0.0},
                     .nwait = nwait, .wait = wait, .last = NULL};
}

/* The end of a solve: on success *ev receives the last command's event; on failure what was
 * enqueued still runs, and is waited for before the caller frees anything. */
static clhgemm_status_t solve_end(solve_t *s, clhgemm_status_t st, cl_event *ev)
{
    if (st != CLHGEMM_SUCCESS) {
        if (s->last) clWaitForEvents(1, &s->last);
        chain_set(s, NULL);
        return st;
    }
    *ev = s->last;
    return CLHGEMM_SUCCESS;
}

clhgemm_status_t chg_trsm_dev_solve(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A, size_t offA,
                                    size_t lda, size_t rhs, const double alpha[2], cl_mem B,
                                    size_t offB, size_t ldb, cl_uint nwait, const cl_event *wait,
                                    cl_event *ev)
{
    solve_t s = solve_of(t, q, A, offA, lda, rhs, alpha, B, offB, ldb, nwait, wait);
    return solve_end(&s, solve_range(&s, 0, t->sh.k, 0), ev);
}

/* ---- a solve in two stages ------------------------------------------------------------------ */

int chg_trsm_dev_halves(const chg_trsm_dev_t *t, size_t *first0, size_t *first1)
{
    const size_t k = t->sh.k;
    if (chg_ceil_div(k, t->nb) < 2) return 0;
    const size_t mid = split_row(t, 0, k);
    *first0 = t_lower(&t->sh) ? 0 : mid;
    *first1 = t_lower(&t->sh) ? mid : k;
    return 1;
}

clhgemm_status_t chg_trsm_dev_invert_first(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A,
                                           size_t offA, size_t lda, cl_uint nwait,
                                           const cl_event *wait, cl_event *ev)
{
    size_t f0, f1;
    if (!chg_trsm_dev_halves(t, &f0, &f1)) return CLHGEMM_INTERNAL_ERROR;
    return invert_rows(t, q, A, offA, lda, f0, f1, nwait, wait, ev);
}

clhgemm_status_t chg_trsm_dev_solve_first(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A,
                                          size_t offA, size_t lda, size_t rhs,
                                          const double alpha[2], cl_mem B, size_t offB,
                                          size_t ldb, cl_uint nwait, const cl_event *wait,
                                          cl_event *ev)
{
    size_t f0, f1;
    if (!chg_trsm_dev_halves(t, &f0, &f1)) return CLHGEMM_INTERNAL_ERROR;
    solve_t s = solve_of(t, q, A, offA, lda, rhs, alpha, B, offB, ldb, nwait, wait);
    return solve_end(&s, solve_range(&s, f0, f1, 0), ev);
}

clhgemm_status_t chg_trsm_dev_solve_rest(chg_trsm_dev_t *t, cl_command_queue q, cl_mem A,
                                         size_t offA, size_t lda, size_t rhs,
                                         const double alpha[2], cl_mem B, size_t offB,
                                         size_t ldb, cl_event first,
                                         cl_event a_off, cl_event a_diag, cl_event *inv,
                                         cl_event *ev)
{
    size_t f0, f1;
    if (!chg_trsm_dev_halves(t, &f0, &f1)) return CLHGEMM_INTERNAL_ERROR;
    const size_t k = t->sh.k, r0 = f0 ? 0 : f1, r1 = f0 ? f0 : k; /* the other half */
    const cl_event w0[2] = {first, a_off};
    solve_t s = solve_of(t, q, A, offA, lda, rhs, alpha, B, offB, ldb, 2, w0);
    /* the update from the first half: B_I is still unscaled, so beta = alpha */
    clhgemm_status_t st = update(&s, r0, r1 - r0, f0, f1 - f0, s.alpha);
    if (st == CLHGEMM_SUCCESS) {
        /* the other half's diagonal blocks, once they are on the device; after the update so
         * that the in-order queue does not hold the update back for them */
        const cl_event w1[2] = {s.last, a_diag};
        cl_event e = NULL;
        st = invert_rows(t, q, A, offA, lda, r0, r1, 2, w1, &e);
        if (st == CLHGEMM_SUCCESS) {
            clRetainEvent(e);
            *inv = e;
            chain_set(&s, e);
        }
    }
    if (st == CLHGEMM_SUCCESS) st = solve_range(&s, r0, r1, 1);
    return solve_end(&s, st, ev);
}
