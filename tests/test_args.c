/*
 * test_args.c -- argument checking, quick paths, status strings, version and device selection.
 *
 * Every invalid argument must give its own status (compared with the exact enum), leave *event
 * untouched and leave C bit-identical: the checks run before anything is enqueued. The order of
 * the checks follows reference BLAS (layout, transA, transB, m, n, k, lda, ldb, ldc), then the
 * queue, then the buffers A, B, C in turn; a few cases with two bad arguments pin that down. Buffers are made exactly as large as the contract requires, so the valid call on
 * them must succeed and one element less (or one more offset) must not.
 * Quick paths: m == 0 or n == 0 writes nothing; k == 0 or alpha == 0 gives C := beta*C, with A and
 * B allowed to be NULL (and NaN in A and B harmless when alpha == 0), beta == 0 writes zeros
 * without reading C, and beta == 1 leaves C bit-identical.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

typedef struct call_s {
    int dbl;
    int layout, ta, tb;
    int m, n, k;
    double alpha, beta;
    cl_mem A, B, C;
    size_t offa, offb, offc;
    int lda, ldb, ldc;
    cl_command_queue q;
} call_t;

static clhgemm_status_t do_call(const call_t *c, cl_event *ev)
{
    if (c->dbl)
        return clhgemm_dgemm_cl((clhgemm_layout_t)c->layout, (clhgemm_transpose_t)c->ta,
                                (clhgemm_transpose_t)c->tb, c->m, c->n, c->k, c->alpha, c->A,
                                c->offa, c->lda, c->B, c->offb, c->ldb, c->beta, c->C, c->offc,
                                c->ldc, c->q, ev);
    return clhgemm_sgemm_cl((clhgemm_layout_t)c->layout, (clhgemm_transpose_t)c->ta,
                            (clhgemm_transpose_t)c->tb, c->m, c->n, c->k, (float)c->alpha, c->A,
                            c->offa, c->lda, c->B, c->offb, c->ldb, (float)c->beta, c->C, c->offc,
                            c->ldc, c->q, ev);
}

static void describe(const call_t *c, const char *what, char *buf, size_t len)
{
    snprintf(buf, len,
             "%cgemm layout=%d ta=%d tb=%d m=%d n=%d k=%d alpha=%g beta=%g A=%s offA=%zu lda=%d "
             "B=%s offB=%zu ldb=%d C=%s offC=%zu ldc=%d queue=%s [%s]",
             c->dbl ? 'd' : 's', c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, c->beta,
             c->A ? "buf" : "NULL", c->offa, c->lda, c->B ? "buf" : "NULL", c->offb, c->ldb,
             c->C ? "buf" : "NULL", c->offc, c->ldc, c->q ? "q" : "NULL", what);
}

/* Rejected call: exact status, *event untouched (no_event: the call is given no event
 * pointer), watched buffers bit-identical. */
static void expect_reject(const call_t *c, clhgemm_status_t want, const tc_watched_t *w1,
                          const tc_watched_t *w2, const char *what, int no_event)
{
    char tag[512];
    describe(c, what, tag, sizeof tag);
    int rc = 0;
    cl_event ev = TC_EV_SENTINEL;
    clhgemm_status_t st = do_call(c, no_event ? NULL : &ev);
    if (st != want) {
        fprintf(stderr, "FAIL %s: status %s (%d), want %s (%d)\n", tag, clhgemm_status_string(st),
                (int)st, clhgemm_status_string(want), (int)want);
        rc = 1;
        if (st == CLHGEMM_SUCCESS && ev != TC_EV_SENTINEL && ev) {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
            ev = TC_EV_SENTINEL;
        }
    }
    if (ev != TC_EV_SENTINEL) {
        fprintf(stderr, "FAIL %s: *event was written on a rejected call\n", tag);
        rc = 1;
    }
    rc |= tc_unchanged(w1, tag);
    rc |= tc_unchanged(w2, tag);
    tc_tally(rc);
}

/* Accepted call: success, a valid event that completes. Returns 0 on pass. */
static int expect_success(const call_t *c, const char *tag)
{
    cl_event ev = TC_EV_SENTINEL;
    clhgemm_status_t st = do_call(c, &ev);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: status %s (%d), want success\n", tag, clhgemm_status_string(st),
                (int)st);
        return 1;
    }
    if (ev == TC_EV_SENTINEL || ev == NULL) {
        fprintf(stderr, "FAIL %s: success but *event not set\n", tag);
        clFinish(c->q ? c->q : NULL);
        return 1;
    }
    cl_int err = clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "FAIL %s: clWaitForEvents -> %s\n", tag, clhgemm_status_string(err));
        return 1;
    }
    return 0;
}

/* ---- invalid arguments: the table ---------------------------------------------------------- */

/* A row changes up to three arguments of the valid call (the rest stay valid) and names the
 * status the call must give; the loop of invalid_args runs every row that applies. */
typedef enum {
    F_END = 0, /* the end of a row's changes */
    F_LAYOUT, F_TA, F_TB, F_M, F_N, F_K, F_ALPHA, F_LDA, F_LDB, F_LDC, F_OFFA, F_OFFB, F_OFFC,
    F_QUEUE, F_A, F_B, F_C
} field_t;

/* What the argument becomes. */
typedef enum {
    V_NUM,   /* num */
    V_ROWS,  /* the matrix's rows as stored (its tightest ld) + num */
    V_NULL,  /* no queue, no buffer */
    V_SHORT, /* the matrix's buffer one element shorter than the call needs */
    V_OTHER  /* the matrix's buffer, exactly sized, from another context */
} value_t;

typedef struct {
    field_t field;
    value_t value;
    long long num;
} change_t;

/* Rows that apply only where the argument can be wrong: an ld larger than the matrix's rows
 * (or INT_MAX) only matters where the matrix has more than one line as stored, and ld = 0 with
 * m = 0 (k = 0) is wrong only where A (B) then has at most one row as stored. */
typedef enum { ALWAYS, A_LINES, B_LINES, C_LINES, A_ROWS_M0, B_ROWS_K0 } when_t;

typedef struct {
    const char *what;
    clhgemm_status_t want;
    when_t when;
    int watch_c2; /* the other context's C must stay unchanged too */
    int no_event; /* the call is given no event pointer */
    change_t set[3];
} reject_t;

#define NUM(f, v) {f, V_NUM, v}
#define ROWS(f, d) {f, V_ROWS, d}
#define NUL(f) {f, V_NULL, 0}
#define SHORT(f) {f, V_SHORT, 0}
#define OTHER(f) {f, V_OTHER, 0}

/* The order of the checks is reference BLAS's (layout, transA, transB, m, n, k, lda, ldb, ldc),
 * then the queue, then the buffers A, B, C: the "precedence" rows give two bad arguments and
 * want the earlier one's status. Across buffers the order is A, B, C; which check of one buffer
 * comes first (size or context) is not part of the contract, so no row mixes the two on one
 * buffer. */
static const reject_t REJECTS[] = {
    {"bad layout", CLHGEMM_INVALID_LAYOUT, ALWAYS, 0, 0, {NUM(F_LAYOUT, 0)}},
    {"bad layout", CLHGEMM_INVALID_LAYOUT, ALWAYS, 0, 0, {NUM(F_LAYOUT, 103)}},
    {"bad layout", CLHGEMM_INVALID_LAYOUT, ALWAYS, 0, 0, {NUM(F_LAYOUT, 111)}},
    {"bad transA", CLHGEMM_INVALID_TRANS_A, ALWAYS, 0, 0, {NUM(F_TA, 0)}},
    {"bad transB", CLHGEMM_INVALID_TRANS_B, ALWAYS, 0, 0, {NUM(F_TB, 0)}},
    {"bad transA", CLHGEMM_INVALID_TRANS_A, ALWAYS, 0, 0, {NUM(F_TA, 110)}},
    {"bad transB", CLHGEMM_INVALID_TRANS_B, ALWAYS, 0, 0, {NUM(F_TB, 110)}},
    {"bad transA", CLHGEMM_INVALID_TRANS_A, ALWAYS, 0, 0, {NUM(F_TA, 114)}},
    {"bad transB", CLHGEMM_INVALID_TRANS_B, ALWAYS, 0, 0, {NUM(F_TB, 114)}},
    {"bad transA", CLHGEMM_INVALID_TRANS_A, ALWAYS, 0, 0, {NUM(F_TA, 102)}},
    {"bad transB", CLHGEMM_INVALID_TRANS_B, ALWAYS, 0, 0, {NUM(F_TB, 102)}},
    {"m = -1", CLHGEMM_INVALID_M, ALWAYS, 0, 0, {NUM(F_M, -1)}},
    {"n = -1", CLHGEMM_INVALID_N, ALWAYS, 0, 0, {NUM(F_N, -1)}},
    {"k = -1", CLHGEMM_INVALID_K, ALWAYS, 0, 0, {NUM(F_K, -1)}},
    {"m = -7 with alpha = 0", CLHGEMM_INVALID_M, ALWAYS, 0, 0, {NUM(F_M, -7), NUM(F_ALPHA, 0)}},

    {"lda = rows as stored - 1", CLHGEMM_INVALID_LDA, ALWAYS, 0, 0, {ROWS(F_LDA, -1)}},
    {"lda = 0", CLHGEMM_INVALID_LDA, ALWAYS, 0, 0, {NUM(F_LDA, 0)}},
    {"ldb = rows as stored - 1", CLHGEMM_INVALID_LDB, ALWAYS, 0, 0, {ROWS(F_LDB, -1)}},
    {"ldb = 0", CLHGEMM_INVALID_LDB, ALWAYS, 0, 0, {NUM(F_LDB, 0)}},
    {"ldc = rows as stored - 1", CLHGEMM_INVALID_LDC, ALWAYS, 0, 0, {ROWS(F_LDC, -1)}},
    {"ldc = -1", CLHGEMM_INVALID_LDC, ALWAYS, 0, 0, {NUM(F_LDC, -1)}},
    /* ld must be >= max(1, rows) even when the matrix is empty */
    {"m = 0, lda = 0", CLHGEMM_INVALID_LDA, A_ROWS_M0, 0, 0, {NUM(F_M, 0), NUM(F_LDA, 0)}},
    {"k = 0, ldb = 0", CLHGEMM_INVALID_LDB, B_ROWS_K0, 0, 0, {NUM(F_K, 0), NUM(F_LDB, 0)}},

    {"queue NULL", CLHGEMM_INVALID_QUEUE, ALWAYS, 0, 0, {NUL(F_QUEUE)}},
    {"A NULL", CLHGEMM_NULL_BUFFER_A, ALWAYS, 0, 0, {NUL(F_A)}},
    {"B NULL", CLHGEMM_NULL_BUFFER_B, ALWAYS, 0, 0, {NUL(F_B)}},
    {"C NULL", CLHGEMM_NULL_BUFFER_C, ALWAYS, 0, 0, {NUL(F_C)}},
    {"C NULL with k = 0", CLHGEMM_NULL_BUFFER_C, ALWAYS, 0, 0, {NUL(F_C), NUM(F_K, 0)}},
    {"C NULL with alpha = 0", CLHGEMM_NULL_BUFFER_C, ALWAYS, 0, 0, {NUL(F_C), NUM(F_ALPHA, 0)}},

    {"A one element short", CLHGEMM_INSUFFICIENT_BUFFER_A, ALWAYS, 0, 0, {SHORT(F_A)}},
    {"A exact, offA = 1", CLHGEMM_INSUFFICIENT_BUFFER_A, ALWAYS, 0, 0, {NUM(F_OFFA, 1)}},
    {"A exact for tight lda, lda + 1", CLHGEMM_INSUFFICIENT_BUFFER_A, A_LINES, 0, 0,
     {ROWS(F_LDA, 1)}},
    {"B one element short", CLHGEMM_INSUFFICIENT_BUFFER_B, ALWAYS, 0, 0, {SHORT(F_B)}},
    {"B exact, offB = 1", CLHGEMM_INSUFFICIENT_BUFFER_B, ALWAYS, 0, 0, {NUM(F_OFFB, 1)}},
    {"B exact for tight ldb, ldb + 1", CLHGEMM_INSUFFICIENT_BUFFER_B, B_LINES, 0, 0,
     {ROWS(F_LDB, 1)}},
    {"C one element short", CLHGEMM_INSUFFICIENT_BUFFER_C, ALWAYS, 0, 0, {SHORT(F_C)}},
    {"C exact, offC = 1", CLHGEMM_INSUFFICIENT_BUFFER_C, ALWAYS, 0, 0, {NUM(F_OFFC, 1)}},
    {"C exact for tight ldc, ldc + 1", CLHGEMM_INSUFFICIENT_BUFFER_C, C_LINES, 0, 0,
     {ROWS(F_LDC, 1)}},
    {"offA = 2^40", CLHGEMM_INSUFFICIENT_BUFFER_A, ALWAYS, 0, 0, {NUM(F_OFFA, 1LL << 40)}},
    /* (lines-1)*ld must be computed without 32-bit overflow */
    {"lda = INT_MAX", CLHGEMM_INSUFFICIENT_BUFFER_A, A_LINES, 0, 0, {NUM(F_LDA, INT_MAX)}},
    {"ldb = INT_MAX", CLHGEMM_INSUFFICIENT_BUFFER_B, B_LINES, 0, 0, {NUM(F_LDB, INT_MAX)}},
    {"ldc = INT_MAX", CLHGEMM_INSUFFICIENT_BUFFER_C, C_LINES, 0, 0, {NUM(F_LDC, INT_MAX)}},

    {"A from another context", CLHGEMM_CONTEXT_MISMATCH, ALWAYS, 0, 0, {OTHER(F_A)}},
    {"B from another context", CLHGEMM_CONTEXT_MISMATCH, ALWAYS, 0, 0, {OTHER(F_B)}},
    {"C from another context", CLHGEMM_CONTEXT_MISMATCH, ALWAYS, 1, 0, {OTHER(F_C)}},
    {"A, B, C from another context", CLHGEMM_CONTEXT_MISMATCH, ALWAYS, 1, 0,
     {OTHER(F_A), OTHER(F_B), OTHER(F_C)}},

    /* no event pointer on a rejected call: still the status, no crash */
    {"m = -1 with event NULL", CLHGEMM_INVALID_M, ALWAYS, 0, 1, {NUM(F_M, -1)}},

    {"precedence: layout before transA", CLHGEMM_INVALID_LAYOUT, ALWAYS, 0, 0,
     {NUM(F_LAYOUT, 0), NUM(F_TA, 0)}},
    {"precedence: transA before transB", CLHGEMM_INVALID_TRANS_A, ALWAYS, 0, 0,
     {NUM(F_TA, 0), NUM(F_TB, 0)}},
    {"precedence: transB before m", CLHGEMM_INVALID_TRANS_B, ALWAYS, 0, 0,
     {NUM(F_TB, 0), NUM(F_M, -1)}},
    {"precedence: m before n", CLHGEMM_INVALID_M, ALWAYS, 0, 0, {NUM(F_M, -1), NUM(F_N, -1)}},
    {"precedence: n before k", CLHGEMM_INVALID_N, ALWAYS, 0, 0, {NUM(F_N, -1), NUM(F_K, -1)}},
    {"precedence: k before lda", CLHGEMM_INVALID_K, ALWAYS, 0, 0, {NUM(F_K, -1), NUM(F_LDA, 0)}},
    {"precedence: lda before ldb", CLHGEMM_INVALID_LDA, ALWAYS, 0, 0,
     {NUM(F_LDA, 0), NUM(F_LDB, 0)}},
    {"precedence: ldb before ldc", CLHGEMM_INVALID_LDB, ALWAYS, 0, 0,
     {NUM(F_LDB, 0), NUM(F_LDC, 0)}},
    {"precedence: ldc before queue", CLHGEMM_INVALID_LDC, ALWAYS, 0, 0,
     {NUM(F_LDC, 0), NUL(F_QUEUE)}},
    {"precedence: queue before NULL A", CLHGEMM_INVALID_QUEUE, ALWAYS, 0, 0,
     {NUL(F_QUEUE), NUL(F_A)}},
    {"precedence: NULL A before NULL B", CLHGEMM_NULL_BUFFER_A, ALWAYS, 0, 0,
     {NUL(F_A), NUL(F_B)}},
    {"precedence: NULL B before NULL C", CLHGEMM_NULL_BUFFER_B, ALWAYS, 0, 0,
     {NUL(F_B), NUL(F_C)}},
    {"precedence: A too small before B too small", CLHGEMM_INSUFFICIENT_BUFFER_A, ALWAYS, 0, 0,
     {SHORT(F_A), SHORT(F_B)}},
    {"precedence: B too small before C too small", CLHGEMM_INSUFFICIENT_BUFFER_B, ALWAYS, 0, 0,
     {SHORT(F_B), SHORT(F_C)}},
};

/* The buffers and geometry of one (precision, layout, transA, transB): each matrix (A, B, C) as
 * exactly large as the contract requires, one element short, and exact in another context. */
typedef struct {
    int rows[3], lines[3]; /* as stored */
    size_t elems[3];
    cl_mem exact[3], shorter[3], other[3];
    void *hc, *hc2;        /* C's and the other context's C's contents */
    int a_rows_m0, b_rows_k0;
} args_fixture_t;

static int fixture_make(args_fixture_t *fx, const tc_env_t *env, cl_context ctx2, int dbl,
                        clhgemm_layout_t layout, clhgemm_transpose_t ta, clhgemm_transpose_t tb,
                        int m, int n, int k, tc_rng_t *rng)
{
    const size_t esz = dbl ? 8 : 4;
    memset(fx, 0, sizeof *fx);
    tc_stored(layout, ta, m, k, &fx->rows[0], &fx->lines[0]);
    tc_stored(layout, tb, k, n, &fx->rows[1], &fx->lines[1]);
    tc_stored(layout, CLHGEMM_NO_TRANS, m, n, &fx->rows[2], &fx->lines[2]);
    for (int i = 0; i < 3; i++)
        fx->elems[i] = tc_required(0, fx->rows[i], fx->lines[i], fx->rows[i]);
    int r0, l0;
    tc_stored(layout, ta, 0, k, &r0, &l0);
    fx->a_rows_m0 = r0 <= 1;
    tc_stored(layout, tb, 0, n, &r0, &l0);
    fx->b_rows_k0 = r0 <= 1;
    /* in this order, so that the random contents are those of the earlier form of the test */
    for (int i = 0; i < 3; i++)
        fx->exact[i] =
            tc_random_buffer(env->ctx, fx->elems[i], esz, rng, i == 2 ? &fx->hc : NULL);
    for (int i = 0; i < 3; i++)
        fx->shorter[i] = tc_random_buffer(env->ctx, fx->elems[i] - 1, esz, rng, NULL);
    for (int i = 0; i < 3; i++)
        fx->other[i] = tc_random_buffer(ctx2, fx->elems[i], esz, rng, i == 2 ? &fx->hc2 : NULL);
    for (int i = 0; i < 3; i++)
        if (!fx->exact[i] || !fx->shorter[i] || !fx->other[i]) return -1;
    return fx->hc && fx->hc2 ? 0 : -1;
}

static void fixture_free(args_fixture_t *fx)
{
    for (int i = 0; i < 3; i++) {
        if (fx->exact[i]) clReleaseMemObject(fx->exact[i]);
        if (fx->shorter[i]) clReleaseMemObject(fx->shorter[i]);
        if (fx->other[i]) clReleaseMemObject(fx->other[i]);
    }
    free(fx->hc);
    free(fx->hc2);
}

/* Whether a row applies to the fixture's geometry. */
static int applies(const args_fixture_t *fx, when_t when)
{
    switch (when) {
    case A_LINES: return fx->lines[0] > 1;
    case B_LINES: return fx->lines[1] > 1;
    case C_LINES: return fx->lines[2] > 1;
    case A_ROWS_M0: return fx->a_rows_m0;
    case B_ROWS_K0: return fx->b_rows_k0;
    default: return 1;
    }
}

/* The buffer a change gives matrix i (0 A, 1 B, 2 C). */
static cl_mem buffer_of(const args_fixture_t *fx, int i, value_t v)
{
    return v == V_SHORT ? fx->shorter[i] : v == V_OTHER ? fx->other[i] : NULL;
}

static void apply(call_t *c, const change_t *x, const args_fixture_t *fx)
{
    const long long v = x->num;
    switch (x->field) {
    case F_LAYOUT: c->layout = (int)v; break;
    case F_TA: c->ta = (int)v; break;
    case F_TB: c->tb = (int)v; break;
    case F_M: c->m = (int)v; break;
    case F_N: c->n = (int)v; break;
    case F_K: c->k = (int)v; break;
    case F_ALPHA: c->alpha = (double)v; break;
    case F_LDA: c->lda = (int)(x->value == V_ROWS ? fx->rows[0] + v : v); break;
    case F_LDB: c->ldb = (int)(x->value == V_ROWS ? fx->rows[1] + v : v); break;
    case F_LDC: c->ldc = (int)(x->value == V_ROWS ? fx->rows[2] + v : v); break;
    case F_OFFA: c->offa = (size_t)v; break;
    case F_OFFB: c->offb = (size_t)v; break;
    case F_OFFC: c->offc = (size_t)v; break;
    case F_QUEUE: c->q = NULL; break;
    case F_A: c->A = buffer_of(fx, 0, x->value); break;
    case F_B: c->B = buffer_of(fx, 1, x->value); break;
    case F_C: c->C = buffer_of(fx, 2, x->value); break;
    case F_END: break;
    }
}

/* The valid call on exactly sized buffers passes and computes the right thing; C is restored
 * afterwards for the rejections. */
static void valid_call(const tc_env_t *env, const call_t *base, const args_fixture_t *fx)
{
    const int dbl = base->dbl;
    const size_t esz = dbl ? 8 : 4, ra = fx->elems[0], rb = fx->elems[1], rc_ = fx->elems[2];
    const clhgemm_layout_t layout = (clhgemm_layout_t)base->layout;
    const clhgemm_transpose_t ta = (clhgemm_transpose_t)base->ta;
    const clhgemm_transpose_t tb = (clhgemm_transpose_t)base->tb;
    const int m = base->m, n = base->n, k = base->k;
    const int ca = fx->rows[0], cb = fx->rows[1], cc = fx->rows[2];
    char tag[512];
    describe(base, "valid, exact buffer sizes", tag, sizeof tag);
    int rc = expect_success(base, tag);
    if (!rc) {
        /* reference */
        double *da = malloc(ra * 8), *db = malloc(rb * 8), *want = malloc(rc_ * 8),
               *bound = malloc(rc_ * 8);
        void *ha = malloc(ra * esz), *hb = malloc(rb * esz), *got = malloc(rc_ * esz);
        if (!da || !db || !want || !bound || !ha || !hb || !got ||
            tc_read(env->queue, base->A, ha, ra * esz) ||
            tc_read(env->queue, base->B, hb, rb * esz) ||
            tc_read(env->queue, base->C, got, rc_ * esz)) {
            rc = 1;
        } else {
            for (size_t i = 0; i < ra; i++) da[i] = dbl ? ((double *)ha)[i] : ((float *)ha)[i];
            for (size_t i = 0; i < rb; i++) db[i] = dbl ? ((double *)hb)[i] : ((float *)hb)[i];
            for (size_t i = 0; i < rc_; i++)
                want[i] = dbl ? ((double *)fx->hc)[i] : ((float *)fx->hc)[i];
            for (size_t i = 0; i < rc_; i++) bound[i] = fabs(want[i]);
            tc_ref_dgemm(layout, ta, tb, m, n, k, base->alpha, da, ca, db, cb, base->beta, want,
                         cc);
            for (size_t i = 0; i < ra; i++) da[i] = fabs(da[i]);
            for (size_t i = 0; i < rb; i++) db[i] = fabs(db[i]);
            tc_ref_dgemm(layout, ta, tb, m, n, k, fabs(base->alpha), da, ca, db, cb,
                         fabs(base->beta), bound, cc);
            rc |= tc_check_c(dbl, layout, m, n, k, got, fx->hc, rc_, 0, cc, want, bound, tag);
        }
        free(da);
        free(db);
        free(want);
        free(bound);
        free(ha);
        free(hb);
        free(got);
        /* restore C for the rejection checks */
        rc |= tc_write(env->queue, base->C, fx->hc, rc_ * esz);
    }
    tc_tally(rc);
}

/* ---- invalid arguments for one (precision, layout, transA, transB) ------------------------- */
static void invalid_args(const tc_env_t *env, cl_context ctx2, cl_command_queue q2, int dbl,
                         clhgemm_layout_t layout, clhgemm_transpose_t ta, clhgemm_transpose_t tb,
                         tc_rng_t *rng)
{
    const int m = 5, n = 4, k = 3;
    const size_t esz = dbl ? 8 : 4;
    args_fixture_t fx;
    if (fixture_make(&fx, env, ctx2, dbl, layout, ta, tb, m, n, k, rng) != 0) {
        fprintf(stderr, "FAIL: buffer setup\n");
        tc_tally(1);
        fixture_free(&fx);
        return;
    }
    const tc_watched_t wc = {fx.exact[2], env->queue, fx.hc, fx.elems[2] * esz};
    const tc_watched_t wc2 = {fx.other[2], q2, fx.hc2, fx.elems[2] * esz};
    const call_t base = {dbl, layout, ta, tb, m, n, k, -1.5, 1.0, fx.exact[0], fx.exact[1],
                         fx.exact[2], 0, 0, 0, fx.rows[0], fx.rows[1], fx.rows[2], env->queue};
    valid_call(env, &base, &fx);
    for (size_t i = 0; i < sizeof REJECTS / sizeof REJECTS[0]; i++) {
        const reject_t *x = &REJECTS[i];
        if (!applies(&fx, x->when)) continue;
        call_t c = base;
        for (int j = 0; j < 3 && x->set[j].field != F_END; j++) apply(&c, &x->set[j], &fx);
        expect_reject(&c, x->want, &wc, x->watch_c2 ? &wc2 : NULL, x->what, x->no_event);
    }
    fixture_free(&fx);
}

/* Offsets near SIZE_MAX: offset + extent must not wrap around 2^64 and pass the size check
 * (the kernels would then address memory before the buffer). Run last, C last of all, because a
 * library that accepts these writes outside C. */
static void offset_wraparound(const tc_env_t *env, int dbl, clhgemm_layout_t layout,
                              tc_rng_t *rng)
{
    const int m = 5, n = 4, k = 3;
    const size_t esz = dbl ? 8 : 4;
    int ca, la, cb, lb, cc, lc;
    tc_stored(layout, CLHGEMM_NO_TRANS, m, k, &ca, &la);
    tc_stored(layout, CLHGEMM_NO_TRANS, k, n, &cb, &lb);
    tc_stored(layout, CLHGEMM_NO_TRANS, m, n, &cc, &lc);
    size_t ra = tc_required(0, ca, la, ca), rb = tc_required(0, cb, lb, cb),
           rc_ = tc_required(0, cc, lc, cc);
    void *hc = NULL;
    cl_mem A = tc_random_buffer(env->ctx, ra, esz, rng, NULL),
           B = tc_random_buffer(env->ctx, rb, esz, rng, NULL),
           C = tc_random_buffer(env->ctx, rc_, esz, rng, &hc);
    if (A && B && C && hc) {
        tc_watched_t wc = {C, env->queue, hc, rc_ * esz};
        const call_t base = {dbl, layout, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, m, n, k, -1.5, 1.0,
                             A, B, C, 0, 0, 0, ca, cb, cc, env->queue};
        static const size_t offs[2] = {SIZE_MAX, SIZE_MAX - 7};
        call_t c;
        for (int i = 0; i < 2; i++) {
            c = base;
            c.offa = offs[i];
            expect_reject(&c, CLHGEMM_INSUFFICIENT_BUFFER_A, &wc, NULL,
                          i ? "offA = SIZE_MAX - 7 (wraps)" : "offA = SIZE_MAX (wraps)", 0);
            c = base;
            c.offb = offs[i];
            expect_reject(&c, CLHGEMM_INSUFFICIENT_BUFFER_B, &wc, NULL,
                          i ? "offB = SIZE_MAX - 7 (wraps)" : "offB = SIZE_MAX (wraps)", 0);
        }
        for (int i = 0; i < 2; i++) {
            c = base;
            c.offc = offs[i];
            expect_reject(&c, CLHGEMM_INSUFFICIENT_BUFFER_C, &wc, NULL,
                          i ? "offC = SIZE_MAX - 7 (wraps)" : "offC = SIZE_MAX (wraps)", 0);
        }
    } else {
        tc_tally(1);
    }
    if (A) clReleaseMemObject(A);
    if (B) clReleaseMemObject(B);
    if (C) clReleaseMemObject(C);
    free(hc);
}

/* ---- quick paths ---------------------------------------------------------------------------- */
static void quick_paths(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    static const double betas[3] = {0.0, 1.0, -1.5};
    /* m == 0 or n == 0: success, a valid event, C untouched; all buffers may be NULL */
    for (int which = 0; which < 2; which++) {
        for (int nulls = 0; nulls < 2; nulls++) {
            tc_case_t tc = {0};
            tc.dbl = dbl;
            tc.layout = layout;
            tc.ta = CLHGEMM_TRANS;
            tc.tb = CLHGEMM_NO_TRANS;
            tc.m = which ? 6 : 0;
            tc.n = which ? 0 : 6;
            tc.k = 5;
            tc.alpha = 1.0;
            tc.beta = -1.5;
            tc.pad = 1;
            tc.offa = 2;
            tc.offb = 3;
            tc.offc = 4;
            tc.null_a = tc.null_b = nulls;
            tc_problem_t p;
            if (tc_problem_init(&p, env->ctx, &tc, rng)) {
                tc_tally(1);
                continue;
            }
            char tag[400];
            tc_case_describe(&p.c, tag, sizeof tag - 40);
            strcat(tag, which ? " [n = 0]" : " [m = 0]");
            call_t c = {dbl, layout, tc.ta, tc.tb, p.c.m, p.c.n, p.c.k, p.c.alpha, p.c.beta,
                        p.a, p.b, p.cbuf, p.c.offa, p.c.offb, p.c.offc, p.c.lda, p.c.ldb,
                        p.c.ldc, env->queue};
            if (nulls) c.C = NULL;
            int rc = expect_success(&c, tag);
            rc |= tc_problem_check_unchanged(&p, env->queue, tag);
            tc_tally(rc);
            tc_problem_free(&p);
        }
    }
    /* k == 0 or alpha == 0: C := beta*C */
    for (int kind = 0; kind < 2; kind++) {
        for (int ib = 0; ib < 3; ib++) {
            for (int nulls = 0; nulls < 2; nulls++) {
                tc_case_t tc = {0};
                tc.dbl = dbl;
                tc.layout = layout;
                tc.ta = (ib & 1) ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
                tc.tb = nulls ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
                tc.m = 37;
                tc.n = 9;
                tc.k = kind ? 17 : 0;
                tc.alpha = kind ? 0.0 : -1.5;
                tc.beta = betas[ib];
                tc.pad = 2;
                tc.offa = 1;
                tc.offb = 2;
                tc.offc = 5;
                tc.null_a = tc.null_b = nulls;
                tc_problem_t p;
                if (tc_problem_init(&p, env->ctx, &tc, rng)) {
                    tc_tally(1);
                    continue;
                }
                char tag[400];
                tc_case_describe(&p.c, tag, sizeof tag - 40);
                strcat(tag, kind ? " [alpha = 0]" : " [k = 0]");
                call_t c = {dbl, layout, tc.ta, tc.tb, p.c.m, p.c.n, p.c.k, p.c.alpha, p.c.beta,
                            p.a, p.b, p.cbuf, p.c.offa, p.c.offb, p.c.offc, p.c.lda, p.c.ldb,
                            p.c.ldc, env->queue};
                int rc = expect_success(&c, tag);
                if (!rc) {
                    if (tc.beta == 1.0)
                        rc |= tc_problem_check_unchanged(&p, env->queue, tag);
                    else
                        rc |= tc_problem_check(&p, env->queue, tag); /* beta 0: exact zeros */
                }
                tc_tally(rc);
                tc_problem_free(&p);
            }
        }
    }
}

/* alpha == 0 does not read A or B: NaN there must not reach C. And k == 0 or alpha == 0 with
 * beta == 1 leaves C alone, NaN included, bit for bit. */
static void quick_paths_nan(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    static const double betas[3] = {0.0, 1.0, -1.5};
    for (int ib = 0; ib < 3; ib++) {
        tc_case_t tc = {0};
        tc.dbl = dbl;
        tc.layout = layout;
        tc.ta = CLHGEMM_TRANS;
        tc.tb = CLHGEMM_NO_TRANS;
        tc.m = 19;
        tc.n = 23;
        tc.k = 11;
        tc.alpha = 0.0;
        tc.beta = betas[ib];
        tc.pad = 1;
        tc.offc = 2;
        tc_problem_t p;
        if (tc_problem_init(&p, env->ctx, &tc, rng)) {
            tc_tally(1);
            continue;
        }
        for (size_t i = 0; i < p.na; i++) {
            if (dbl) ((double *)p.a0)[i] = NAN;
            else ((float *)p.a0)[i] = NAN;
        }
        for (size_t i = 0; i < p.nb; i++) {
            if (dbl) ((double *)p.b0)[i] = NAN;
            else ((float *)p.b0)[i] = NAN;
        }
        int rc = tc_write(env->queue, p.a, p.a0, p.na * p.esz) |
                 tc_write(env->queue, p.b, p.b0, p.nb * p.esz);
        char tag[400];
        tc_case_describe(&p.c, tag, sizeof tag - 40);
        strcat(tag, " [alpha = 0, A and B all NaN]");
        call_t c = {dbl, layout, tc.ta, tc.tb, p.c.m, p.c.n, p.c.k, p.c.alpha, p.c.beta,
                    p.a, p.b, p.cbuf, p.c.offa, p.c.offb, p.c.offc, p.c.lda, p.c.ldb,
                    p.c.ldc, env->queue};
        rc |= expect_success(&c, tag);
        if (!rc) {
            if (tc.beta == 1.0)
                rc |= tc_problem_check_unchanged(&p, env->queue, tag);
            else
                rc |= tc_problem_check(&p, env->queue, tag);
        }
        tc_tally(rc);
        tc_problem_free(&p);
    }
    for (int kind = 0; kind < 2; kind++) {
        tc_case_t tc = {0};
        tc.dbl = dbl;
        tc.layout = layout;
        tc.ta = CLHGEMM_NO_TRANS;
        tc.tb = CLHGEMM_TRANS;
        tc.m = 13;
        tc.n = 29;
        tc.k = kind ? 7 : 0;
        tc.alpha = kind ? 0.0 : 1.0;
        tc.beta = 1.0;
        tc.c_nan = 1;
        tc.pad = 2;
        tc.offc = 1;
        tc_problem_t p;
        if (tc_problem_init(&p, env->ctx, &tc, rng)) {
            tc_tally(1);
            continue;
        }
        char tag[400];
        tc_case_describe(&p.c, tag, sizeof tag - 40);
        strcat(tag, " [beta = 1 over NaN C: unchanged]");
        call_t c = {dbl, layout, tc.ta, tc.tb, p.c.m, p.c.n, p.c.k, p.c.alpha, p.c.beta,
                    p.a, p.b, p.cbuf, p.c.offa, p.c.offb, p.c.offc, p.c.lda, p.c.ldb,
                    p.c.ldc, env->queue};
        int rc = expect_success(&c, tag);
        if (!rc) rc |= tc_problem_check_unchanged(&p, env->queue, tag);
        tc_tally(rc);
        tc_problem_free(&p);
    }
}

/* ---- status strings, version, devices ------------------------------------------------------ */
static void check_str(const char *got, const char *want, const char *what)
{
    EXPECT(got && strcmp(got, want) == 0, "%s: got \"%s\", want \"%s\"", what,
           got ? got : "(null)", want);
}

static void strings_and_version(void)
{
    char what[128];
#define CHECK_STATUS_(name, value, msg)                                                          \
    snprintf(what, sizeof what, "clhgemm_status_string(%d)", value);                              \
    check_str(clhgemm_status_string(value), #name, what);                                         \
    snprintf(what, sizeof what, "clhgemm_status_message(%d)", value);                             \
    check_str(clhgemm_status_message(value), msg, what);
    CLHGEMM_STATUS_LIST(CHECK_STATUS_)
#undef CHECK_STATUS_
    static const struct {
        int code;
        const char *name;
    } cl_codes[] = {
        {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
        {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY"},
        {CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
        {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
        {CL_INVALID_VALUE, "CL_INVALID_VALUE"},
        {CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE"},
        {CL_INVALID_MEM_OBJECT, "CL_INVALID_MEM_OBJECT"},
        {CL_INVALID_KERNEL_ARGS, "CL_INVALID_KERNEL_ARGS"},
        {CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE"},
        {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND"},
    };
    for (size_t i = 0; i < sizeof cl_codes / sizeof cl_codes[0]; i++) {
        snprintf(what, sizeof what, "clhgemm_status_string(%d)", cl_codes[i].code);
        check_str(clhgemm_status_string(cl_codes[i].code), cl_codes[i].name, what);
        const char *msg = clhgemm_status_message(cl_codes[i].code);
        EXPECT(msg && *msg && !strchr(msg, '\n'), "clhgemm_status_message(%d): \"%s\"",
               cl_codes[i].code, msg ? msg : "(null)");
    }
    static const int unknown[] = {12345, -2500, -1999, -3000, 1, -2098};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        snprintf(what, sizeof what, "clhgemm_status_string(%d)", unknown[i]);
        check_str(clhgemm_status_string(unknown[i]), "CLHGEMM_UNKNOWN_STATUS", what);
        const char *msg = clhgemm_status_message(unknown[i]);
        EXPECT(msg && *msg, "clhgemm_status_message(%d) is empty", unknown[i]);
    }
    check_str(clhgemm_version(), CLHGEMM_VERSION_STRING, "clhgemm_version()");
}

static int count_raw_devices(void)
{
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) return 0;
    cl_platform_id pl[64];
    if (np > 64) np = 64;
    clGetPlatformIDs(np, pl, NULL);
    int total = 0;
    for (cl_uint i = 0; i < np; i++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(pl[i], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) == CL_SUCCESS) total += nd;
    }
    return total;
}

static void devices(const tc_env_t *env)
{
    size_t count = 12345;
    clhgemm_device_info_t info[16];
    clhgemm_status_t st;
    int raw = count_raw_devices();

    st = clhgemm_devices_get(NULL, info, 16, NULL);
    EXPECT(st == CLHGEMM_INVALID_ARGUMENT, "devices_get(count NULL) -> %s, want INVALID_ARGUMENT",
           clhgemm_status_string(st));
    count = 12345;
    st = clhgemm_devices_get("no-such-device-xyz", info, 16, &count);
    EXPECT(st == CLHGEMM_INVALID_DEVICE_SPEC, "devices_get(\"no-such-device-xyz\") -> %s",
           clhgemm_status_string(st));

    count = 0;
    st = clhgemm_devices_get("", NULL, 0, &count);
    EXPECT(st == CLHGEMM_SUCCESS && (int)count == raw,
           "devices_get(\"\", capacity 0) -> %s count %zu, OpenCL lists %d",
           clhgemm_status_string(st), count, raw);
    size_t all = count;
    memset(info, 0, sizeof info);
    count = 0;
    st = clhgemm_devices_get("", info, 16, &count);
    EXPECT(st == CLHGEMM_SUCCESS && count == all, "devices_get(\"\") -> %s count %zu want %zu",
           clhgemm_status_string(st), count, all);
    for (size_t i = 0; i < count && i < 16; i++) {
        EXPECT(info[i].index == (int)i && info[i].device != NULL && info[i].name[0],
               "devices_get(\"\")[%zu]: index %d, device %p, name \"%s\"", i, info[i].index,
               (void *)info[i].device, info[i].name);
        clhgemm_device_info_t one;
        memset(&one, 0, sizeof one);
        st = clhgemm_device_info(info[i].device, &one);
        EXPECT(st == CLHGEMM_SUCCESS && one.device == info[i].device &&
                   !strcmp(one.name, info[i].name) && one.has_fp64 == info[i].has_fp64 &&
                   one.kind == info[i].kind,
               "clhgemm_device_info(device %zu) -> %s, disagrees with devices_get", i,
               clhgemm_status_string(st));
    }
    st = clhgemm_device_info(env->device, NULL);
    EXPECT(st == CLHGEMM_INVALID_ARGUMENT, "clhgemm_device_info(dev, NULL) -> %s",
           clhgemm_status_string(st));

    count = 0;
    memset(info, 0, sizeof info);
    st = clhgemm_devices_get("0", info, 16, &count);
    EXPECT(st == CLHGEMM_SUCCESS && count == 1 && info[0].index == 0,
           "devices_get(\"0\") -> %s count %zu index %d", clhgemm_status_string(st), count,
           info[0].index);

    /* capacity smaller than the match count: count is still the full number */
    if (all >= 2) {
        count = 0;
        memset(info, 0, sizeof info);
        info[1].index = -77;
        st = clhgemm_devices_get("", info, 1, &count);
        EXPECT(st == CLHGEMM_SUCCESS && count == all && info[1].index == -77,
               "devices_get(\"\", capacity 1) -> %s count %zu (want %zu), wrote past capacity? %d",
               clhgemm_status_string(st), count, all, info[1].index != -77);
    }

    /* kind selectors: either all matches are of that kind, or nothing of that kind exists */
    static const struct {
        const char *spec;
        clhgemm_device_kind_t kind;
    } kinds[] = {{"cpu", CLHGEMM_DEVICE_CPU}, {"gpu", CLHGEMM_DEVICE_GPU}, {"GPU", CLHGEMM_DEVICE_GPU}};
    clhgemm_device_info_t every[16];
    size_t nevery = 0;
    clhgemm_devices_get("", every, 16, &nevery);
    for (size_t s = 0; s < sizeof kinds / sizeof kinds[0]; s++) {
        size_t expect_n = 0;
        for (size_t i = 0; i < nevery && i < 16; i++) expect_n += every[i].kind == kinds[s].kind;
        count = 0;
        memset(info, 0, sizeof info);
        st = clhgemm_devices_get(kinds[s].spec, info, 16, &count);
        if (expect_n == 0) {
            EXPECT(st == CLHGEMM_INVALID_DEVICE_SPEC, "devices_get(\"%s\") with no such device -> %s",
                   kinds[s].spec, clhgemm_status_string(st));
        } else {
            int ok = st == CLHGEMM_SUCCESS && count == expect_n;
            for (size_t i = 0; ok && i < count && i < 16; i++) ok = info[i].kind == kinds[s].kind;
            EXPECT(ok, "devices_get(\"%s\") -> %s count %zu, want %zu devices of that kind",
                   kinds[s].spec, clhgemm_status_string(st), count, expect_n);
        }
    }
    /* a name substring (case-insensitive) finds the device it came from */
    if (nevery >= 1) {
        char sub[64];
        snprintf(sub, sizeof sub, "%.6s", every[0].name);
        for (char *p = sub; *p; p++)
            if (*p >= 'a' && *p <= 'z')
                *p = (char)(*p - 'a' + 'A');
            else if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        count = 0;
        memset(info, 0, sizeof info);
        st = clhgemm_devices_get(sub, info, 16, &count);
        EXPECT(st == CLHGEMM_SUCCESS && count >= 1 && info[0].device != NULL,
               "devices_get(\"%s\") (case-swapped name prefix) -> %s count %zu", sub,
               clhgemm_status_string(st), count);
        /* list with an index and a non-matching item still selects the index */
        count = 0;
        st = clhgemm_devices_get("0,no-such-device-xyz", info, 16, &count);
        EXPECT((st == CLHGEMM_SUCCESS && count == 1) || st == CLHGEMM_INVALID_DEVICE_SPEC,
               "devices_get(\"0,no-such-device-xyz\") -> %s count %zu",
               clhgemm_status_string(st), count);
    }

    /* NULL spec reads CLHGEMM_DEVICES */
    const char *old = getenv("CLHGEMM_DEVICES");
    char *saved = old ? strdup(old) : NULL;
    setenv("CLHGEMM_DEVICES", "no-such-device-xyz", 1);
    count = 0;
    st = clhgemm_devices_get(NULL, info, 16, &count);
    EXPECT(st == CLHGEMM_INVALID_DEVICE_SPEC,
           "devices_get(NULL) with CLHGEMM_DEVICES=no-such-device-xyz -> %s",
           clhgemm_status_string(st));
    setenv("CLHGEMM_DEVICES", "0", 1);
    count = 0;
    st = clhgemm_devices_get(NULL, info, 16, &count);
    EXPECT(st == CLHGEMM_SUCCESS && count == 1,
           "devices_get(NULL) with CLHGEMM_DEVICES=0 -> %s count %zu", clhgemm_status_string(st),
           count);
    setenv("CLHGEMM_DEVICES", "", 1);
    count = 0;
    st = clhgemm_devices_get(NULL, info, 16, &count);
    EXPECT(st == CLHGEMM_SUCCESS && count == all,
           "devices_get(NULL) with CLHGEMM_DEVICES empty -> %s count %zu want %zu",
           clhgemm_status_string(st), count, all);
    if (saved) {
        setenv("CLHGEMM_DEVICES", saved, 1);
        free(saved);
    } else {
        unsetenv("CLHGEMM_DEVICES");
    }
}

/* FP64_NOT_SUPPORTED on every device that lacks fp64 (none on most machines: nothing to do). */
static void fp64_devices(tc_rng_t *rng)
{
    clhgemm_device_info_t every[16];
    size_t n = 0;
    if (clhgemm_devices_get("", every, 16, &n) != CLHGEMM_SUCCESS) return;
    for (size_t i = 0; i < n && i < 16; i++) {
        if (every[i].has_fp64) continue;
        cl_int err;
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         (cl_context_properties)every[i].platform, 0};
        cl_context ctx = clCreateContext(props, 1, &every[i].device, NULL, NULL, &err);
        if (!ctx) continue;
        cl_command_queue q = clCreateCommandQueue(ctx, every[i].device, 0, &err);
        if (q) {
            const int m = 4, n2 = 3, k = 2;
            void *hc = NULL;
            cl_mem A = tc_random_buffer(ctx, 16, 8, rng, NULL),
                   B = tc_random_buffer(ctx, 16, 8, rng, NULL),
                   C = tc_random_buffer(ctx, 16, 8, rng, &hc);
            if (A && B && C && hc) {
                tc_watched_t w = {C, q, hc, 16 * 8};
                call_t c = {1, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, m, n2, k,
                            1.0, 1.0, A, B, C, 0, 0, 0, m, k, m, q};
                expect_reject(&c, CLHGEMM_FP64_NOT_SUPPORTED, &w, NULL, every[i].name, 0);
            }
            if (A) clReleaseMemObject(A);
            if (B) clReleaseMemObject(B);
            if (C) clReleaseMemObject(C);
            free(hc);
            clReleaseCommandQueue(q);
        }
        clReleaseContext(ctx);
    }
}

int main(void)
{
    /* strings and version need no device */
    strings_and_version();

    tc_env_t env;
    int rc = tc_open(&env);
    if (rc == TC_SKIP) {
        printf("%d cases, %d failed (no device: device parts skipped)\n", tc_checks(),
               tc_failures());
        return tc_failures() ? 1 : TC_SKIP;
    }
    if (rc) return rc;
    printf("device: %s (%s)\n", env.info.name, env.info.platform_name);
    devices(&env);

    cl_int err;
    cl_context ctx2 = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
    cl_command_queue q2 = ctx2 ? clCreateCommandQueue(ctx2, env.device, 0, &err) : NULL;
    if (!ctx2 || !q2) {
        fprintf(stderr, "FAIL: second context: %s\n", clhgemm_status_string(err));
        return 1;
    }
    tc_rng_t rng;
    tc_rng_seed(&rng, 0xA7650ULL);
    static const clhgemm_transpose_t T[3] = {CLHGEMM_NO_TRANS, CLHGEMM_TRANS, CLHGEMM_CONJ_TRANS};
    for (int dbl = 0; dbl < 2; dbl++) {
        if (dbl && !env.has_fp64) {
            printf("note: no fp64 on %s, double-precision argument checks not run\n",
                   env.info.name);
            continue;
        }
        for (int l = 0; l < 2; l++) {
            clhgemm_layout_t layout = l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
            for (int ta = 0; ta < 3; ta++)
                for (int tb = 0; tb < 3; tb++) {
                    if ((ta == 2 || tb == 2) && !(ta == 2 && tb == 2)) continue;
                    invalid_args(&env, ctx2, q2, dbl, layout, T[ta], T[tb], &rng);
                }
            quick_paths(&env, dbl, layout, &rng);
            quick_paths_nan(&env, dbl, layout, &rng);
        }
    }
    fp64_devices(&rng);
    /* a library that accepts the wrapping offsets writes outside C and may not survive them */
    printf("%d cases, %d failed before the offset-wraparound cases\n", tc_checks(),
           tc_failures());
    fflush(stdout);
    for (int dbl = 0; dbl < 1 + env.has_fp64; dbl++)
        for (int l = 0; l < 2; l++)
            offset_wraparound(&env, dbl, l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR, &rng);
    clReleaseCommandQueue(q2);
    clReleaseContext(ctx2);
    tc_close(&env);
    printf("%d cases, %d failed\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
