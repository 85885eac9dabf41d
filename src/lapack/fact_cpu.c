/*
 * fact_cpu.c -- the CPU's share of a factorization (fact_cpu.h): the model that sizes it, its
 * storage, and its updates with the CPU BLAS (cpu/blas_table.h), each written once for both
 * precisions in the column-major view (fact.h), where the CPU keeps its blocks.
 */
#include "lapack/fact_cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/trace.h"
#include "base/util.h"
#include "cpu/route_calls.h"
#include "host/route.h"
#include "lapack/fact_xfer.h"

#define MAX_EVERY 64
#define GAIN 0.02 /* the share is taken where the model saves this fraction at least */

static int is_cpu_device(const chg_fact_t *f, int d)
{
    return f->fd[d].dev && f->fd[d].dev->info.kind == CLHGEMM_DEVICE_CPU;
}

/* ---- the model ------------------------------------------------------------------------------- */

/* OpenBLAS's time for an m x n x k GEMM, as the routing model has it. */
static double cpu_gemm_time(clhgemm_handle_t h, chg_precision_t prec, double m, double n,
                            double k)
{
    if (m < 1 || n < 1 || k < 1) return 0;
    chg_route_call_t rc = {.prec = prec, .name = "factor share", .m = (size_t)m, .n = (size_t)n,
                           .k = (size_t)k, .flops = 2 * m * n * k, .in_elems = m * k + k * n,
                           .c_elems = m * n};
    return chg_route_cpu_time(h, &rc);
}

/* The loop's time with one block of every `every` on the CPU (0: none), by the steps: the
 * devices' share of the trailing update at their GEMM rate beside the CPU's panel (a GEMM of
 * its flops at OpenBLAS's rate for its shape, halved: pivoting and level 2 work) and the CPU's
 * share of the update. */
static double model_time(clhgemm_handle_t h, const chg_fact_t *f, size_t every)
{
    const chg_fact_call_t *c = f->c;
    const double nb = (double)f->nb, rdev = CHG_MAX(h->route.dev_rate[c->prec], 1.0);
    const double share = every ? 1.0 / (double)every : 0;
    double sum = 0;
    for (size_t k = 0; k < f->nsteps; k++) {
        const double rows = (double)c->m - (double)k * nb;
        const double cols = (double)c->n - (double)(k + 1) * nb;
        /* Cholesky updates the lower half of the trailing matrix: half a GEMM's flops */
        const double half = c->kind == CHG_FACT_POTRF ? 0.5 : 1.0;
        const double mult = c->kind == CHG_FACT_GEQRF ? 2.0 : 1.0; /* larfb: two GEMMs */
        const double upd = half * mult * 2 * rows * CHG_MAX(cols, 0) * nb;
        const double panel = c->kind == CHG_FACT_POTRF
                                 ? 2 * cpu_gemm_time(h, c->prec, nb, nb, nb)
                                 : 2 * cpu_gemm_time(h, c->prec, rows, nb, nb);
        const double t_dev = upd * (1 - share) / rdev;
        const double t_cpu =
            panel + (share > 0 ? cpu_gemm_time(h, c->prec, rows * half * mult,
                                               CHG_MAX(cols, 0) * share, nb) : 0);
        sum += CHG_MAX(t_dev, t_cpu);
    }
    return sum;
}

size_t chg_fc_every(clhgemm_handle_t h, const chg_fact_t *f)
{
    const char *v = chg_getenv("CLHGEMM_FACTOR_CPU_SHARE");
    long forced = 0;
    if (v && *v && strcmp(v, "auto") != 0) {
        if (!strcmp(v, "off")) return 0;
        if (!chg_parse_long(v, &forced) || forced < 2 || forced > MAX_EVERY) {
            chg_env_warn("CLHGEMM_FACTOR_CPU_SHARE", v,
                         "is not off, auto or a number 2 .. %d; using auto", MAX_EVERY);
            forced = 0;
        }
    }
    const char *why = NULL;
    if (!h->route.cpu_ok) why = "no CPU BLAS";
    if (!why && !f->c->a) why = "device buffers";
    if (!why && f->wblk < f->nblk) why = "out of core";
    if (!why && f->nblk < 3) why = "too few block columns";
    if (why) {
        if (forced) chg_log(1, "factor: CLHGEMM_FACTOR_CPU_SHARE=%ld not taken: %s", forced, why);
        return 0;
    }
    if (forced) {
        chg_log(1, "factor: CPU share: one block column of every %ld (CLHGEMM_FACTOR_CPU_SHARE)",
                forced);
        return (size_t)forced;
    }
    int all_cpu = !chg_env_flag("CLHGEMM_CPU_SHARE_ANY_DEVICE", 0); /* the tests' model run */
    for (int d = 0; d < f->ndev; d++) all_cpu &= is_cpu_device(f, d);
    if (all_cpu) { /* the devices are these cores: a share would take them from the devices */
        chg_log(1, "factor: CPU share: none (the devices are CPUs themselves)");
        return 0;
    }
    const double none = model_time(h, f, 0);
    double best = none;
    size_t every = 0;
    for (size_t e = 2; e <= MAX_EVERY && e < f->nblk; e++) {
        const double t = model_time(h, f, e);
        if (t < best) {
            best = t;
            every = e;
        }
    }
    const int take = every && best <= none * (1 - GAIN);
    if (every)
        chg_log(1, "factor: CPU share: %s (model: %.3g ms without, %.3g ms with one block column "
                   "of every %zu; taken where %.0f%% faster)", take ? "taken" : "none",
                none * 1e3, best * 1e3, every, GAIN * 100);
    else
        chg_log(1, "factor: CPU share: none (model: %.3g ms without; no share is faster)",
                none * 1e3);
    return take ? every : 0;
}

/* ---- the CPU BLAS (cpu/route_calls.h), column-major -------------------------------------- */

static int tr(int t) { return t ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS; }

static void gemm(chg_precision_t p, int ta, int tb, size_t m, size_t n, size_t k, double alpha,
                 const void *a, size_t lda, const void *b, size_t ldb, double beta, void *c,
                 size_t ldc)
{
    if (!m || !n) return;
    chg_cpu_blas_gemm(p, CLHGEMM_COL_MAJOR, tr(ta), tr(tb), (int)m, (int)n, (int)k, alpha, a,
                      (int)lda, b, (int)ldb, beta, c, (int)ldc);
}

/* C := C - op(A) op(A)^T, C's lower triangle */
static void syrk_lower(chg_precision_t p, int t, size_t n, size_t k, const void *a, size_t lda,
                       void *c, size_t ldc)
{
    if (!n) return;
    chg_cpu_blas_syrk(p, CLHGEMM_COL_MAJOR, CLHGEMM_LOWER, tr(t), (int)n, (int)k, -1.0, a,
                      (int)lda, NULL, 0, 1.0, c, (int)ldc);
}

/* B := op(A)^-1 B (left) or B op(A)^-1 (right) */
static void trsm(chg_precision_t p, int right, int upper, int t, int unit, size_t m, size_t n,
                 const void *a, size_t lda, void *b, size_t ldb)
{
    if (!m || !n) return;
    chg_cpu_blas_trsm(p, CLHGEMM_COL_MAJOR, right ? CLHGEMM_RIGHT : CLHGEMM_LEFT,
                      upper ? CLHGEMM_UPPER : CLHGEMM_LOWER, tr(t),
                      unit ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT, (int)m, (int)n, 1.0, a, (int)lda, b,
                      (int)ldb);
}

/* B := op(A) B */
static void trmm_left(chg_precision_t p, int upper, int t, size_t m, size_t n, const void *a,
                      size_t lda, void *b, size_t ldb)
{
    if (!m || !n) return;
    chg_cpu_blas_trmm(p, CLHGEMM_COL_MAJOR, CLHGEMM_LEFT, upper ? CLHGEMM_UPPER : CLHGEMM_LOWER,
                      tr(t), CLHGEMM_NON_UNIT, (int)m, (int)n, 1.0, a, (int)lda, b, (int)ldb);
}

/* ---- storage -------------------------------------------------------------------------------- */

/* Element (i, local column jl) of the CPU's storage. */
static char *at(const chg_fact_t *f, size_t i, size_t jl)
{
    return (char *)f->cmat + (i + jl * f->c->m) * f->es;
}

/* Element (i, c) of the caller's matrix in the view. */
static char *caller_at(const chg_fact_t *f, size_t i, size_t c)
{
    const chg_fact_call_t *k = f->c;
    return (char *)k->a + (k->trans ? i * k->lda + c : i + c * k->lda) * f->es;
}

clhgemm_status_t chg_fc_alloc(chg_fact_t *f)
{
    const chg_fact_call_t *c = f->c;
    const size_t m = c->m, es = f->es;
    f->cmat = malloc(CHG_MAX(m * f->cpu_ncols, (size_t)1) * es);
    if (c->kind == CHG_FACT_GEQRF) {
        f->cvw = malloc(m * f->nb * es);
        f->cw = malloc(f->nb * f->nb * es);
    }
    if (!f->cmat || (c->kind == CHG_FACT_GEQRF && (!f->cvw || !f->cw))) {
        chg_fc_free(f);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    for (size_t j = 0; j < f->nblk; j++) {
        if (!chg_fact_on_cpu(f, j)) continue;
        const size_t c0 = chg_fact_c0(f, j), w = chg_fact_w(f, j);
        for (size_t q = 0; q < w; q++) {
            /* Cholesky: its lower triangle only, as LAPACK reads it */
            const size_t r0 = c->kind == CHG_FACT_POTRF ? c0 + q : 0;
            if (!c->trans)
                memcpy(at(f, r0, f->lcol[j] + q), caller_at(f, r0, c0 + q), (m - r0) * es);
            else
                for (size_t i = r0; i < m; i++)
                    memcpy(at(f, i, f->lcol[j] + q), caller_at(f, i, c0 + q), es);
        }
        f->arrived[j] = 1;
    }
    f->cv_step = 0;
    return CLHGEMM_SUCCESS;
}

void chg_fc_free(chg_fact_t *f)
{
    free(f->cmat);
    free(f->cvw);
    free(f->cw);
    f->cmat = f->cvw = f->cw = NULL;
}

/* ---- panels --------------------------------------------------------------------------------- */

void chg_fc_panel_down(chg_fact_t *f, size_t k, void *pin, size_t pld, void *diag)
{
    const chg_fact_call_t *c = f->c;
    const size_t es = f->es, kr = k * f->nb, kw = chg_fact_w(f, k), jl = f->lcol[k];
    if (c->kind != CHG_FACT_POTRF) {
        for (size_t q = 0; q < kw; q++)
            memcpy((char *)pin + q * pld * es, at(f, 0, jl + q), c->m * es);
        return;
    }
    for (size_t q = 0; q < kw; q++) /* the lower triangle, in the stored orientation */
        for (size_t i = q; i < kw; i++)
            memcpy((char *)diag + (c->trans ? i * f->nb + q : i + q * f->nb) * es,
                   at(f, kr + i, jl + q), es);
}

void chg_fc_potrf_solve(chg_fact_t *f, size_t k, const void *diag, void *pin, size_t hld)
{
    const chg_fact_call_t *c = f->c;
    const size_t es = f->es, kr = k * f->nb, kw = chg_fact_w(f, k), r0 = kr + kw;
    const size_t below = c->n - r0, jl = f->lcol[k];
    /* the view's L11 is lower; stored transposed it is the upper L11^T */
    trsm(c->prec, 1, c->trans, !c->trans, 0, below, kw, diag, f->nb, at(f, r0, jl), c->m);
    for (size_t q = 0; q < kw; q++) {
        if (!c->trans) {
            memcpy((char *)pin + q * hld * es, at(f, r0, jl + q), below * es);
            continue;
        }
        for (size_t i = 0; i < below; i++)
            memcpy((char *)pin + (i * hld + q) * es, at(f, r0 + i, jl + q), es);
    }
}

/* ---- updates -------------------------------------------------------------------------------- */


/* Cholesky: A(c0:n, block) -= L(c0:n, k) L(c0:c0+w, k)^T, L21 of panel k in the stored
 * orientation from row kr + kw (stored transposed: the column-major L21^T). */
static void potrf_block(chg_fact_t *f, size_t k, size_t j, const chg_fc_panel_t *p)
{
    const chg_fact_call_t *c = f->c;
    const size_t es = f->es, kr = k * f->nb, kw = chg_fact_w(f, k), r0 = kr + kw;
    const size_t c0 = chg_fact_c0(f, j), w = chg_fact_w(f, j), jl = f->lcol[j];
    const int t = c->trans;
    const char *L = p->pin;
    const char *lj = L + (t ? (c0 - r0) * p->ld : c0 - r0) * es;
    const char *lb = L + (t ? (c0 + w - r0) * p->ld : c0 + w - r0) * es;
    syrk_lower(c->prec, t, w, kw, lj, p->ld, at(f, c0, jl), c->m);
    gemm(c->prec, t, !t, c->n - c0 - w, w, kw, -1.0, lb, p->ld, lj, p->ld, 1.0,
         at(f, c0 + w, jl), c->m);
}

/* LU: rows [kr, m) interchanged by panel k's pivots; U12 := L11^-1 A12; A22 -= L21 U12. */
static void getrf_block(chg_fact_t *f, size_t k, size_t j, const chg_fc_panel_t *p)
{
    const chg_fact_call_t *c = f->c;
    const size_t es = f->es, kr = k * f->nb, kw = chg_fact_w(f, k);
    const size_t pw = CHG_MIN(kw, c->m - kr), w = chg_fact_w(f, j), jl = f->lcol[j];
    char tmp[16];
    for (size_t i = kr; i < kr + pw; i++) {
        const size_t r = (size_t)p->ipiv0[i];
        if (r == i) continue;
        for (size_t q = 0; q < w; q++) {
            memcpy(tmp, at(f, i, jl + q), es);
            memcpy(at(f, i, jl + q), at(f, r, jl + q), es);
            memcpy(at(f, r, jl + q), tmp, es);
        }
    }
    const char *L11 = (const char *)p->pin + kr * es;
    trsm(c->prec, 0, 0, 0, 1, pw, w, L11, p->ld, at(f, kr, jl), c->m);
    gemm(c->prec, 0, 0, c->m - kr - pw, w, pw, -1.0, L11 + pw * es, p->ld, at(f, kr, jl), c->m,
         1.0, at(f, kr + pw, jl), c->m);
}

/* QR: A(kr:, block) -= V (T^T (V^T A(kr:, block))), V unit lower trapezoidal (explicit in cvw,
 * made once per panel). */
static void geqrf_block(chg_fact_t *f, size_t k, size_t j, const chg_fc_panel_t *p)
{
    const chg_fact_call_t *c = f->c;
    const size_t es = f->es, nb = f->nb, kr = k * nb, rows = c->m - kr;
    const size_t pw = CHG_MIN(chg_fact_w(f, k), rows), w = chg_fact_w(f, j), jl = f->lcol[j];
    char *V = f->cvw;
    if (f->cv_step != k + 1) {
        for (size_t q = 0; q < pw; q++) {
            char *col = V + q * rows * es;
            memset(col, 0, q * es);
            memcpy(col + q * es, (const char *)p->pin + (kr + q + q * p->ld) * es,
                   (rows - q) * es);
            if (c->prec == CHG_F64)
                ((double *)col)[q] = 1.0;
            else
                ((float *)col)[q] = 1.0f;
        }
        f->cv_step = k + 1;
    }
    char *A = at(f, kr, jl), *W = f->cw;
    gemm(c->prec, 1, 0, pw, w, rows, 1.0, V, rows, A, c->m, 0.0, W, nb);
    /* T (upper) as the devices take it: transposed where the view is stored transposed */
    trmm_left(c->prec, !c->trans, !c->trans, pw, w, p->t, nb, W, nb);
    gemm(c->prec, 0, 0, rows, w, pw, -1.0, V, rows, W, nb, 1.0, A, c->m);
}


void chg_fc_apply(chg_fact_t *f, size_t k, const size_t *blk, size_t nblk,
                  const chg_fc_panel_t *p)
{
    const unsigned long long t0 = f->trace ? chg_now_ns() : 0;
    for (size_t i = 0; i < nblk; i++) {
        switch (f->c->kind) {
        case CHG_FACT_POTRF: potrf_block(f, k, blk[i], p); break;
        case CHG_FACT_GETRF: getrf_block(f, k, blk[i], p); break;
        case CHG_FACT_GEQRF: geqrf_block(f, k, blk[i], p); break;
        }
        f->cur[blk[i]] = k + 1;
    }
    if (f->trace && nblk) {
        char name[48];
        snprintf(name, sizeof name, "update %zu (%zu block%s)", k, nblk, nblk > 1 ? "s" : "");
        chg_trace_host(f->trace, "cpu update", name, t0, chg_now_ns());
    }
}

void chg_fc_home(chg_fact_t *f, size_t j)
{
    chg_fx_home_t hm;
    chg_fx_home_start(f, &hm, at(f, 0, f->lcol[j]), f->c->m, 0, f->c->m, chg_fact_c0(f, j),
                      chg_fact_w(f, j), 0);
    chg_fx_home_finish(f, &hm);
}
