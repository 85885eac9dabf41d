/*
 * trsm_subst.c -- TRSM on the GEMM core: the blocked substitution (trsm_subst.h) and the
 * device-buffer entry points clhgemm_{s,d}trsm_cl.
 *
 * The substitution cuts T (op(A) for side left, op(A)^T for side right, in the column-major
 * view) into diagonal blocks of nb (chg_trsm_nb: CLHGEMM_TRSM_NB, else the device's tuning
 * entry, else 512) and visits them in dependency order
 * (top-down for a lower T, bottom-up for an upper one). Per block: the kb rows (left) or
 * columns (right) of B that belong to it are solved against A's kb x kb diagonal block on the
 * host (OpenBLAS's TRSM: O(kb^2) per right-hand side, a small share of the work once m, n >> nb),
 * then the rows (columns) not solved yet get C := -T(rest, blk) * X_blk + beta*C, one GEMM on
 * the core. alpha is applied once: the first panel is solved with it and the first update has
 * beta = alpha for the rows it has not touched yet; every later step uses 1. B's rows (left) or
 * columns (right) are thus an in-place triangle of GEMMs of inner dimension kb -- ~all of the
 * m*n*k flops -- and the rest is O(n*k*nb) on the host.
 *
 * On device buffers (clhgemm_{s,d}trsm_cl) the default is trsm_dev.c: A's diagonal blocks
 * inverted by a kernel and every step a GEMM on the device, nothing through the host. With
 * CLHGEMM_TRSM_PANEL=openblas|ref (or when the device temporaries cannot be allocated) the
 * steps above run as a host round trip each: A's diagonal block and B's panel read to the host
 * with blocking rectangular reads on the caller's queue (after the previous update), solved
 * there, the panel written back (blocking), the update enqueued with chg_gemm_enqueue waiting
 * on that write. Correct for every shape but slow (the device idles while the host solves):
 * kept for tests and as the fallback.
 */
#include "core/trsm_subst.h"

#include "core/trsm_dev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/route_calls.h"
#include "tuning/tuning.h"

clhgemm_status_t chg_trsm_check_shape(int layout, int side, int uplo, int transA, int diag,
                                      int m, int n, int lda, int ldb, chg_l3_shape_t *sh)
{
    return chg_trmm_check_shape(layout, side, uplo, transA, diag, m, n, lda, ldb, sh);
}

size_t chg_trsm_nb(const chg_device_t *dev, chg_precision_t prec)
{
    const char pc = prec == CHG_F64 ? 'd' : 's';
    char src[600] = "the built-in default";
    const int tuned = dev ? chg_tuned_trsm_nb(dev, prec, src, sizeof src) : 0;
    const int fallback = tuned > 0 ? tuned : CHG_TRSM_NB_DEFAULT;
    if (tuned <= 0) snprintf(src, sizeof src, "the built-in default");
    if (chg_getenv("CLHGEMM_TRSM_NB")) {
        /* a malformed value falls back to the entry's or the default (chg_env_int says so) */
        const int nb = chg_env_int("CLHGEMM_TRSM_NB", fallback, 1, 1 << 20);
        chg_log(1, "trsm: %ctrsm nb = %d on %s (CLHGEMM_TRSM_NB)", pc, nb,
                dev ? dev->info.name : "the host");
        return (size_t)nb;
    }
    chg_log(1, "trsm: %ctrsm nb = %d on %s (%s)", pc, fallback, dev ? dev->info.name : "the host",
            src);
    return (size_t)fallback;
}

int chg_trsm_panel_mode(void)
{
    static const char *const panels[] = {"device", "openblas", "ref", "auto", NULL};
    return chg_env_choice("CLHGEMM_TRSM_PANEL", panels, CHG_TRSM_PANEL_AUTO);
}

size_t chg_trsm_steps(const chg_l3_shape_t *sh, size_t nb) { return chg_ceil_div(sh->k, nb); }

/* T is lower (forward substitution, blocks top-down): T = op(A) (left) or op(A)^T (right). */
static int t_lower(const chg_l3_shape_t *sh)
{
    return sh->left ? sh->upper == sh->trans : sh->upper != sh->trans;
}

void chg_trsm_step(const chg_l3_shape_t *sh, size_t nb, size_t s, const double alpha[2],
                   size_t lda, size_t ldb, chg_trsm_step_t *o)
{
    const int lower = t_lower(sh);
    const size_t kk = sh->k, nblk = chg_trsm_steps(sh, nb);
    const size_t k0 = (lower ? s : nblk - 1 - s) * nb, kb = CHG_MIN(nb, kk - k0);
    /* the rows (columns) of B not solved after this step: below (lower) or above the block */
    const size_t r0 = lower ? k0 + kb : 0, rn = lower ? kk - r0 : k0;
    memset(o, 0, sizeof *o);
    o->k0 = k0;
    o->kb = kb;
    o->a_off = k0 + k0 * lda;
    o->p_alpha[0] = o->beta[0] = s == 0 ? alpha[0] : 1.0;
    o->p_alpha[1] = o->beta[1] = s == 0 && sh->cplx ? alpha[1] : 0.0;
    o->k = kb;
    o->c_off = sh->left ? r0 : r0 * ldb;
    if (sh->left) {
        /* B(rest, :) -= op(A)(rest, blk) * X(blk, :); op(A)(r0.., k0..) is A(r0, k0), or
         * A(k0, r0) read transposed */
        o->p_off = k0;
        o->p_rows = kb;
        o->p_cols = sh->n;
        o->m = rn;
        o->n = sh->n;
        o->ta = sh->trans;
        o->l = (chg_trsm_operand_t){0, sh->trans ? k0 + r0 * lda : r0 + k0 * lda, lda};
        o->r = (chg_trsm_operand_t){1, k0, ldb};
    } else {
        /* B(:, rest) -= X(:, blk) * op(A)(blk, rest); op(A)(k0.., r0..) is A(k0, r0), or
         * A(r0, k0) read transposed */
        o->p_off = k0 * ldb;
        o->p_rows = sh->m;
        o->p_cols = kb;
        o->m = sh->m;
        o->n = rn;
        o->tb = sh->trans;
        o->l = (chg_trsm_operand_t){1, k0 * ldb, ldb};
        o->r = (chg_trsm_operand_t){0, sh->trans ? r0 + k0 * lda : k0 + r0 * lda, lda};
    }
}

/* Part [i0, i0 + cnt) of the rows (left) / columns (right) of update t. */
static void step_part(const chg_l3_shape_t *sh, const chg_trsm_step_t *t, size_t i0, size_t cnt, size_t lda,
                      size_t ldb, chg_trsm_step_t *o)
{
    *o = *t;
    if (sh->left) {
        /* C's rows are B's (stride 1); L = op(A)(rest, blk): rows stride 1, or lda read transposed */
        o->m = cnt;
        o->c_off = t->c_off + i0;
        o->l.off = t->l.off + i0 * (sh->trans ? lda : 1);
    } else {
        /* C's columns are B's (stride ldb); R = op(A)(blk, rest): columns stride lda, or 1 transposed */
        o->n = cnt;
        o->c_off = t->c_off + i0 * ldb;
        o->r.off = t->r.off + i0 * (sh->trans ? 1 : lda);
    }
}

void chg_trsm_step_split(const chg_l3_shape_t *sh, const chg_trsm_step_t *t, size_t kb_next, size_t lda,
                         size_t ldb, chg_trsm_step_t *near, chg_trsm_step_t *far)
{
    const size_t rest = sh->left ? t->m : t->n, nb = CHG_MIN(kb_next, rest);
    if (t_lower(sh)) { /* the next block is the first of the rest */
        step_part(sh, t, 0, nb, lda, ldb, near);
        step_part(sh, t, nb, rest - nb, lda, ldb, far);
    } else {           /* the next block is the last of the rest (bottom-up) */
        step_part(sh, t, rest - nb, nb, lda, ldb, near);
        step_part(sh, t, 0, rest - nb, lda, ldb, far);
    }
}

/* ---- the panel solve ---------------------------------------------------------------------- */

static double get(const void *p, int dbl, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void put(void *p, int dbl, size_t i, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

/* x (len elements, stride inc) := T^-1 * alpha*x by substitution, T(i, p) = a[i + p*lda]
 * (a[p + i*lda] when tr), lower or upper, unit diagonal not read. */
static void ref_solve_vec(int dbl, int lower, int tr, int unit, size_t len, double alpha,
                          const void *a, size_t lda, void *x, size_t inc)
{
    for (size_t q = 0; q < len; q++) {
        const size_t i = lower ? q : len - 1 - q;
        const size_t p0 = lower ? 0 : i + 1, p1 = lower ? i : len;
        double s = alpha * get(x, dbl, i * inc);
        for (size_t p = p0; p < p1; p++)
            s -= get(a, dbl, tr ? p + i * lda : i + p * lda) * get(x, dbl, p * inc);
        if (!unit) s /= get(a, dbl, i + i * lda);
        put(x, dbl, i * inc, s);
    }
}

/* The complex ref_solve_vec: elements are (re, im) pairs at every index, T conjugated when cj
 * (op(A) = A^H: T = conj(A^T) for side left, conj(A) for side right). */
static void ref_solve_vec_c(int dbl, int lower, int tr, int cj, int unit, size_t len,
                            const double alpha[2], const void *a, size_t lda, void *x, size_t inc)
{
    for (size_t q = 0; q < len; q++) {
        const size_t i = lower ? q : len - 1 - q;
        const size_t p0 = lower ? 0 : i + 1, p1 = lower ? i : len;
        const double xr = get(x, dbl, 2 * i * inc), xi = get(x, dbl, 2 * i * inc + 1);
        double sr = alpha[0] * xr - alpha[1] * xi, si = alpha[0] * xi + alpha[1] * xr;
        for (size_t p = p0; p < p1; p++) {
            const size_t t = tr ? p + i * lda : i + p * lda;
            const double tr_ = get(a, dbl, 2 * t), ti = cj ? -get(a, dbl, 2 * t + 1) : get(a, dbl, 2 * t + 1);
            const double pr = get(x, dbl, 2 * p * inc), pi = get(x, dbl, 2 * p * inc + 1);
            sr -= tr_ * pr - ti * pi;
            si -= tr_ * pi + ti * pr;
        }
        if (!unit) {
            const double dr = get(a, dbl, 2 * (i + i * lda));
            const double di = cj ? -get(a, dbl, 2 * (i + i * lda) + 1) : get(a, dbl, 2 * (i + i * lda) + 1);
            const double d = dr * dr + di * di, qr = (sr * dr + si * di) / d;
            si = (si * dr - sr * di) / d;
            sr = qr;
        }
        put(x, dbl, 2 * i * inc, sr);
        put(x, dbl, 2 * i * inc + 1, si);
    }
}

/* The library's own substitution: used without OpenBLAS, and under CLHGEMM_TRSM_PANEL=ref. */
static int use_ref_panel(void) { return chg_trsm_panel_mode() == CHG_TRSM_PANEL_REF; }

/* OpenBLAS's TRSM on the panel (column-major): 0, or -1 without OpenBLAS. */
static int cpu_panel(chg_precision_t prec, const chg_l3_shape_t *sh, size_t rows, size_t cols,
                     const double alpha[2], const void *a, size_t lda, void *b, size_t ldb)
{
    const int side = sh->left ? CLHGEMM_LEFT : CLHGEMM_RIGHT;
    const int uplo = sh->upper ? CLHGEMM_UPPER : CLHGEMM_LOWER;
    const int ta = sh->conj ? CLHGEMM_CONJ_TRANS : sh->trans ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    const int diag = sh->unit ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT;
    if (!sh->cplx)
        return chg_cpu_blas_trsm(prec, CLHGEMM_COL_MAJOR, side, uplo, ta, diag, (int)rows,
                                 (int)cols, alpha[0], a, (int)lda, b, (int)ldb);
    const chg_cpu_cargs_t u = {.routine = CHG_CPU_TRSM, .layout = CLHGEMM_COL_MAJOR,
                               .side = side, .uplo = uplo, .ta = ta, .diag = diag,
                               .m = (int)rows, .n = (int)cols, .alpha = {alpha[0], alpha[1]},
                               .a = a, .lda = (int)lda, .c = b, .ldc = (int)ldb};
    return chg_cpu_blas_complex(prec, &u);
}

void chg_trsm_solve_panel(chg_precision_t prec, const chg_l3_shape_t *sh, size_t rows,
                          size_t cols, const double alpha[2], const void *a, size_t lda, void *b,
                          size_t ldb)
{
    if (rows == 0 || cols == 0) return;
    if (!use_ref_panel() && cpu_panel(prec, sh, rows, cols, alpha, a, lda, b, ldb) == 0) return;
    const int dbl = prec == CHG_F64, cx = sh->cplx;
    const size_t es = chg_elem_size(prec) * (cx ? 2 : 1);
    /* side left, every column: op(A) x = alpha b; side right, every row: x op(A) = alpha b,
     * i.e. op(A)^T x^T = alpha b^T */
    const size_t count = sh->left ? cols : rows, len = sh->left ? rows : cols;
    const int tr = sh->left ? sh->trans : !sh->trans;
    for (size_t v = 0; v < count; v++) {
        void *x = (char *)b + v * (sh->left ? ldb : 1) * es;
        const size_t inc = sh->left ? 1 : ldb;
        if (cx) ref_solve_vec_c(dbl, t_lower(sh), tr, sh->conj, sh->unit, len, alpha, a, lda, x, inc);
        else ref_solve_vec(dbl, t_lower(sh), tr, sh->unit, len, alpha[0], a, lda, x, inc);
    }
}

/* ---- device buffers ----------------------------------------------------------------------- */

/* One device-buffer call in flight. */
typedef struct dsolve_s {
    const chg_l3_shape_t *sh;
    chg_precision_t prec;
    size_t es;
    cl_mem a, b;
    size_t off_a, off_b, lda, ldb;
    cl_command_queue q;
    cl_event last; /* the last command enqueued (NULL before the first) */
} dsolve_t;

/* Blocking copy of the rows x cols sub-matrix at element off of buf (leading dimension ld)
 * to / from host (tight, leading dimension rows), after d->last; *ev (if not NULL) gets the
 * last command's event. One rectangle when the sub-matrix's first column fits in a row of the
 * pitch and the rectangle's last pitch row lies whole inside the buffer (NVIDIA's OpenCL
 * answers CL_INVALID_VALUE to a rectangle whose last row of the pitch passes the buffer's end,
 * even where the region itself does not: a B at the end of its buffer), else a copy per
 * column. */
static cl_int xfer(dsolve_t *d, int to_device, cl_mem buf, size_t off, size_t ld, size_t rows,
                   size_t cols, void *host, cl_event *ev)
{
    const size_t es = d->es, x = off % ld;
    const cl_uint nw = d->last ? 1 : 0;
    const cl_event *wl = nw ? &d->last : NULL;
    size_t bytes = 0;
    if (clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL) != CL_SUCCESS) bytes = 0;
    if (x + rows <= ld && (off / ld + cols) * ld * es <= bytes) {
        const size_t origin[3] = {x * es, off / ld, 0}, horigin[3] = {0, 0, 0};
        const size_t region[3] = {rows * es, cols, 1};
        return to_device ? clEnqueueWriteBufferRect(d->q, buf, CL_TRUE, origin, horigin, region,
                                                    ld * es, 0, rows * es, 0, host, nw, wl, ev)
                         : clEnqueueReadBufferRect(d->q, buf, CL_TRUE, origin, horigin, region,
                                                   ld * es, 0, rows * es, 0, host, nw, wl, ev);
    }
    cl_int err = CL_SUCCESS;
    for (size_t j = 0; j < cols && err == CL_SUCCESS; j++) {
        char *h = (char *)host + j * rows * es;
        cl_event *e = j + 1 == cols ? ev : NULL;
        const size_t at = (off + j * ld) * es;
        err = to_device ? clEnqueueWriteBuffer(d->q, buf, CL_TRUE, at, rows * es, h, nw, wl, e)
                        : clEnqueueReadBuffer(d->q, buf, CL_TRUE, at, rows * es, h, nw, wl, e);
    }
    return err;
}

static void set_last(dsolve_t *d, cl_event ev)
{
    if (d->last) clReleaseEvent(d->last);
    d->last = ev;
}

/* Step s: A's diagonal block and B's panel to the host, the solve, the panel back, the update
 * on the device after it. abuf holds kb x kb, pbuf the panel. */
static clhgemm_status_t dev_step(dsolve_t *d, size_t nb, size_t s, const double alpha[2],
                                 void *abuf, void *pbuf)
{
    chg_trsm_step_t t;
    chg_trsm_step(d->sh, nb, s, alpha, d->lda, d->ldb, &t);
    cl_int err = xfer(d, 0, d->a, d->off_a + t.a_off, d->lda, t.kb, t.kb, abuf, NULL);
    if (err == CL_SUCCESS)
        err = xfer(d, 0, d->b, d->off_b + t.p_off, d->ldb, t.p_rows, t.p_cols, pbuf, NULL);
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    chg_trsm_solve_panel(d->prec, d->sh, t.p_rows, t.p_cols, t.p_alpha, abuf, t.kb, pbuf,
                         t.p_rows);
    cl_event ev = NULL;
    err = xfer(d, 1, d->b, d->off_b + t.p_off, d->ldb, t.p_rows, t.p_cols, pbuf, &ev);
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    set_last(d, ev);
    if (t.m == 0 || t.n == 0) return CLHGEMM_SUCCESS;

    chg_gemm_args_t g;
    memset(&g, 0, sizeof g);
    g.prec = d->prec;
    g.trans_a = t.ta;
    g.trans_b = t.tb;
    g.m = t.m;
    g.n = t.n;
    g.k = t.k;
    g.alpha = -1.0;
    g.beta = t.beta[0];
    g.beta_im = t.beta[1];
    g.st.cplx = d->sh->cplx;
    g.st.conj_a = !t.l.is_b && d->sh->conj; /* op(A) = A^H: the operand that is A */
    g.st.conj_b = !t.r.is_b && d->sh->conj;
    g.a = t.l.is_b ? d->b : d->a;
    g.off_a = (t.l.is_b ? d->off_b : d->off_a) + t.l.off;
    g.lda = t.l.ld;
    g.b = t.r.is_b ? d->b : d->a;
    g.off_b = (t.r.is_b ? d->off_b : d->off_a) + t.r.off;
    g.ldb = t.r.ld;
    g.c = d->b;
    g.off_c = d->off_b + t.c_off;
    g.ldc = d->ldb;
    ev = NULL;
    const clhgemm_status_t st = chg_gemm_enqueue(&g, d->q, 1, &d->last, &ev);
    if (st != CLHGEMM_SUCCESS) return st;
    set_last(d, ev);
    return CLHGEMM_SUCCESS;
}

static clhgemm_status_t solve_blocked(dsolve_t *d, const double alpha[2], cl_event *event)
{
    const chg_l3_shape_t *sh = d->sh;
    const chg_device_t *dev = NULL;
    if (chg_queue_device(d->q, &dev, NULL) != CLHGEMM_SUCCESS) dev = NULL;
    const size_t nb = chg_trsm_nb(dev, d->prec), steps = chg_trsm_steps(sh, nb);
    const size_t kbmax = CHG_MIN(nb, sh->k);
    const size_t panel = sh->left ? kbmax * sh->n : sh->m * kbmax;
    void *abuf = malloc(kbmax * kbmax * d->es), *pbuf = malloc(panel * d->es);
    clhgemm_status_t st = abuf && pbuf ? CLHGEMM_SUCCESS : CLHGEMM_OUT_OF_HOST_MEMORY;
    for (size_t s = 0; s < steps && st == CLHGEMM_SUCCESS; s++)
        st = dev_step(d, nb, s, alpha, abuf, pbuf);
    free(abuf);
    free(pbuf);
    if (st != CLHGEMM_SUCCESS && d->last) clWaitForEvents(1, &d->last);
    if (st == CLHGEMM_SUCCESS && event) {
        *event = d->last; /* the last panel's write: B is final */
        d->last = NULL;
    }
    set_last(d, NULL);
    return st;
}

/* The device path (trsm_dev.h): invert, solve, release (the buffers live on until the
 * commands end). *solving is set once B may have been written. */
static clhgemm_status_t solve_device(const chg_l3_shape_t *sh, chg_precision_t prec,
                                     const double alpha[2],
                                     cl_mem A, size_t offA, size_t lda, cl_mem B, size_t offB,
                                     size_t ldb, cl_command_queue q, cl_event *event,
                                     int *solving)
{
    const chg_device_t *dev;
    cl_context ctx;
    clhgemm_status_t st = chg_queue_device(q, &dev, &ctx);
    if (st != CLHGEMM_SUCCESS) return st;
    chg_trsm_dev_t t;
    const size_t rhs = sh->left ? sh->n : sh->m;
    st = chg_trsm_dev_init(&t, ctx, dev, prec, sh, chg_trsm_nb(dev, prec));
    if (st != CLHGEMM_SUCCESS) return st;
    cl_event inv = NULL, done = NULL;
    st = chg_trsm_dev_invert(&t, q, A, offA, lda, 0, NULL, &inv);
    if (st == CLHGEMM_SUCCESS) {
        /* from here B may be written: an error is the caller's, never a fallback */
        *solving = 1;
        st = chg_trsm_dev_solve(&t, q, A, offA, lda, rhs, alpha, B, offB, ldb, 1, &inv, &done);
    }
    if (st != CLHGEMM_SUCCESS && inv) clWaitForEvents(1, &inv);
    if (inv) clReleaseEvent(inv);
    chg_trsm_dev_release(&t);
    if (st == CLHGEMM_SUCCESS) {
        if (event) *event = done;
        else clReleaseEvent(done);
    }
    return st;
}

static clhgemm_status_t trsm_cl(chg_precision_t prec, int cplx, int layout, int side, int uplo,
                                int transA, int diag, int m, int n, const double alpha[2],
                                cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,
                                cl_command_queue queue, cl_event *event)
{
    chg_l3_shape_t sh;
    clhgemm_status_t st =
        chg_trsm_check_shape(layout, side, uplo, transA, diag, m, n, lda, ldb, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    if (!alpha) return CLHGEMM_INVALID_ARGUMENT;
    sh.cplx = cplx;
    sh.conj = cplx && transA == CLHGEMM_CONJ_TRANS;
    const int zero = alpha[0] == 0.0 && (!cplx || alpha[1] == 0.0);
    st = chg_l3_check_call(&sh, prec, zero ? 0.0 : 1.0, A, offA, lda, B, offB, ldb, NULL, 0, 1,
                           queue);
    if (st != CLHGEMM_SUCCESS) return st;
    if (sh.m == 0 || sh.n == 0 || zero) {
        /* the core's quick paths: a marker, or B := 0 without reading A or B */
        chg_gemm_args_t z;
        memset(&z, 0, sizeof z);
        z.prec = prec;
        z.st.cplx = cplx;
        z.m = sh.m;
        z.n = sh.n;
        z.c = B;
        z.off_c = offB;
        z.ldc = (size_t)ldb;
        return chg_gemm_enqueue(&z, queue, 0, NULL, event);
    }
    if (chg_trsm_panel_on_device(chg_trsm_panel_mode())) {
        int solving = 0;
        st = solve_device(&sh, prec, alpha, A, offA, (size_t)lda, B, offB, (size_t)ldb, queue,
                          event, &solving);
        if (solving || (st != CL_MEM_OBJECT_ALLOCATION_FAILURE && st != CL_OUT_OF_RESOURCES))
            return st;
        chg_log(1, "trsm: no device memory for the inverted blocks (%s); solving the diagonal "
                "blocks on the host", clhgemm_status_string(st));
    }
    dsolve_t d = {.sh = &sh, .prec = prec, .es = chg_elem_size(prec) * (cplx ? 2 : 1), .a = A, .b = B,
                  .off_a = offA, .off_b = offB, .lda = (size_t)lda, .ldb = (size_t)ldb,
                  .q = queue, .last = NULL};
    return solve_blocked(&d, alpha, event);
}

/* clhgemm_strsm_cl and clhgemm_dtrsm_cl: trsm_cl at the precision of T (TRMM's arguments); the
 * complex clhgemm_ctrsm_cl and clhgemm_ztrsm_cl. */
#define TRSM_CL(p, T, prec) CHG_TRIANGULAR_CL(p, T, prec, trsm)
CHG_PRECISIONS(TRSM_CL)
#undef TRSM_CL
#define CTRSM_CL(p, T, prec) CHG_TRIANGULAR_CL_C(p, T, prec, trsm)
CHG_CPRECISIONS(CTRSM_CL)
#undef CTRSM_CL
