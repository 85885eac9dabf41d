/*
 * test_host_fault.c -- a lost device does not lose the call.
 *
 * With CLHGEMM_FAULT_INJECT="device=<i>|all,after=<t>" set when a handle is made, device i
 * fails every command once it has written back t tiles. For every scenario -- device 0 after
 * t = 0, 1, 3 tiles (the other device takes over, or the CPU with one device) and, with two
 * devices or more, every device after t = 0, 1, 3 (no device left: the CPU) and device 1 after
 * 1 -- and for each of GEMM (s and d, both layouts, beta 0 and not), SYMM (left, right), SYRK,
 * SYR2K, TRMM (left/right x lower/upper x trans x unit, over two sizes) and TRSM, on a fresh
 * handle whose device memory limit forces many tiles:
 *   - the call returns success and its result matches OpenBLAS (tolerance scaling with k;
 *     outputs poisoned with NaN where beta = 0; everything outside the result bit-identical);
 *   - a next call on the same handle succeeds and is right, uses no lost device (call info),
 *     and the warning line is printed exactly once per lost device over both calls (a lost
 *     device used again would fail again and warn again);
 *   - the fault did happen (the warnings are there), except for TRSM, which runs its default
 *     path: by strips where A fits the limit (a call of one strip or two counts too few tiles
 *     for the fault to fall inside it; tests/test_trsm.c's strips_fault tests cover that path),
 *     else blocked, through host GEMMs (only results and status are checked there).
 * The handles' device memory limit is 512K (argument: another), and CTest forces small tiles
 * (CLHGEMM_TILE=64,32,32): check_cases first runs every case without a fault and requires 8
 * tiles or more of each (TRSM aside), so that a fault after 3 tiles falls inside a call.
 * Usage: test_host_fault [limit-bytes]   (CTest runs it on one and on two PoCL devices)
 */
#define _POSIX_C_SOURCE 200809L

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static unsigned long long g_limit = 512 * 1024;

/* ---- data ---------------------------------------------------------------------------------- */

static double ld_(int dbl, const void *p, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void st_(int dbl, void *p, size_t i, double v)
{
    if (dbl) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
}

static void *rand_buf(int dbl, size_t n, tc_rng_t *rng, int nan)
{
    void *p = malloc(n * (dbl ? 8 : 4) + 8);
    if (!p) abort();
    for (size_t i = 0; i < n; i++) st_(dbl, p, i, nan ? NAN : tc_rng_uniform(rng));
    return p;
}

static void *dup_buf(const void *p, size_t bytes)
{
    void *q = malloc(bytes + 8);
    if (!q) abort();
    memcpy(q, p, bytes);
    return q;
}

/* ---- one problem of any routine ------------------------------------------------------------- */

enum { R_GEMM = 100, R_TRSM = 101 };

typedef struct prob_s {
    tc_l3case_t c;              /* r: TC_L3_* or R_GEMM / R_TRSM; GEMM: trans = op(A), diag = op(B) */
    int lda, ldb, ldc;
    size_t na, nb, nc, es;
    void *a, *b, *cc, *b0, *c0; /* TRMM / TRSM write b */
} prob_t;

static void describe(const prob_t *p, char *buf, size_t len)
{
    static const char *const rn[] = {"symm", "syrk", "syr2k", "trmm"};
    const tc_l3case_t *c = &p->c;
    const char *name = c->r == R_GEMM ? "gemm" : c->r == R_TRSM ? "trsm" : rn[c->r];
    snprintf(buf, len, "%c%s %s side=%c uplo=%c trans=%c diag=%c m=%d n=%d k=%d alpha=%g beta=%g",
             c->dbl ? 'd' : 's', name, c->layout == CLHGEMM_COL_MAJOR ? "col" : "row",
             c->side == CLHGEMM_LEFT ? 'L' : 'R', c->uplo == CLHGEMM_UPPER ? 'U' : 'L',
             c->trans == CLHGEMM_TRANS ? 'T' : 'N', c->diag == CLHGEMM_UNIT ? 'U' : 'N', c->m, c->n, c->k,
             c->alpha, c->beta);
}

/* Stored rows x cols of an operand (column-major storage of the layout's view: the leading
 * dimension strides over `cols` lines when row-major). */
static int lines_ld(clhgemm_layout_t l, int rows, int cols, int *ld)
{
    *ld = (l == CLHGEMM_COL_MAJOR ? rows : cols) + 3;
    return l == CLHGEMM_COL_MAJOR ? cols : rows;
}

static void prob_init(prob_t *p, const tc_l3case_t *c, tc_rng_t *rng)
{
    memset(p, 0, sizeof *p);
    p->c = *c;
    const int dbl = c->dbl, r = c->r;
    p->es = dbl ? 8 : 4;
    int ar, ac, br, bc, cr, cc;
    if (r == R_GEMM) {
        ar = c->trans == CLHGEMM_TRANS ? c->k : c->m, ac = c->trans == CLHGEMM_TRANS ? c->m : c->k;
        br = (int)c->diag == CLHGEMM_TRANS ? c->n : c->k, bc = (int)c->diag == CLHGEMM_TRANS ? c->k : c->n;
        cr = c->m, cc = c->n;
    } else if (r == TC_L3_SYRK || r == TC_L3_SYR2K) {
        ar = c->trans == CLHGEMM_NO_TRANS ? c->n : c->k, ac = c->trans == CLHGEMM_NO_TRANS ? c->k : c->n;
        br = ar, bc = ac, cr = cc = c->n;
    } else {
        const int ka = c->side == CLHGEMM_LEFT ? c->m : c->n;
        ar = ac = ka, br = c->m, bc = c->n, cr = c->m, cc = c->n;
    }
    p->na = (size_t)lines_ld(c->layout, ar, ac, &p->lda) * p->lda;
    p->nb = (size_t)lines_ld(c->layout, br, bc, &p->ldb) * p->ldb;
    p->nc = (size_t)lines_ld(c->layout, cr, cc, &p->ldc) * p->ldc;
    p->a = rand_buf(dbl, p->na, rng, 0);
    if (r == R_TRSM) { /* well conditioned, unit diagonal or not: small off-diagonal entries */
        const int ka = c->side == CLHGEMM_LEFT ? c->m : c->n;
        for (size_t i = 0; i < p->na; i++) st_(dbl, p->a, i, ld_(dbl, p->a, i) / ka);
        for (int i = 0; i < ka; i++) st_(dbl, p->a, (size_t)i * p->lda + i, 1.5);
    }
    p->b = rand_buf(dbl, p->nb, rng, 0);
    /* beta = 0: C of NaN (must not be read); TRMM / TRSM: no C at all */
    p->cc = rand_buf(dbl, p->nc, rng, c->beta == 0.0);
    p->b0 = dup_buf(p->b, p->nb * p->es);
    p->c0 = dup_buf(p->cc, p->nc * p->es);
}

static void prob_free(prob_t *p)
{
    free(p->a);
    free(p->b);
    free(p->cc);
    free(p->b0);
    free(p->c0);
}

static clhgemm_status_t prob_call(clhgemm_handle_t h, prob_t *p)
{
    const tc_l3case_t *c = &p->c;
    const int d = c->dbl;
    switch (c->r) {
    case R_GEMM:
        return d ? clhgemm_dgemm(h, c->layout, c->trans, (clhgemm_transpose_t)c->diag, c->m, c->n, c->k, c->alpha,
                                 p->a, p->lda, p->b, p->ldb, c->beta, p->cc, p->ldc)
                 : clhgemm_sgemm(h, c->layout, c->trans, (clhgemm_transpose_t)c->diag, c->m, c->n, c->k,
                                 (float)c->alpha, p->a, p->lda, p->b, p->ldb, (float)c->beta, p->cc, p->ldc);
    case TC_L3_SYMM:
        return d ? clhgemm_dsymm(h, c->layout, c->side, c->uplo, c->m, c->n, c->alpha, p->a, p->lda, p->b, p->ldb,
                                 c->beta, p->cc, p->ldc)
                 : clhgemm_ssymm(h, c->layout, c->side, c->uplo, c->m, c->n, (float)c->alpha, p->a, p->lda, p->b,
                                 p->ldb, (float)c->beta, p->cc, p->ldc);
    case TC_L3_SYRK:
        return d ? clhgemm_dsyrk(h, c->layout, c->uplo, c->trans, c->n, c->k, c->alpha, p->a, p->lda, c->beta,
                                 p->cc, p->ldc)
                 : clhgemm_ssyrk(h, c->layout, c->uplo, c->trans, c->n, c->k, (float)c->alpha, p->a, p->lda,
                                 (float)c->beta, p->cc, p->ldc);
    case TC_L3_SYR2K:
        return d ? clhgemm_dsyr2k(h, c->layout, c->uplo, c->trans, c->n, c->k, c->alpha, p->a, p->lda, p->b,
                                  p->ldb, c->beta, p->cc, p->ldc)
                 : clhgemm_ssyr2k(h, c->layout, c->uplo, c->trans, c->n, c->k, (float)c->alpha, p->a, p->lda,
                                  p->b, p->ldb, (float)c->beta, p->cc, p->ldc);
    case TC_L3_TRMM:
        return d ? clhgemm_dtrmm(h, c->layout, c->side, c->uplo, c->trans, c->diag, c->m, c->n, c->alpha, p->a,
                                 p->lda, p->b, p->ldb)
                 : clhgemm_strmm(h, c->layout, c->side, c->uplo, c->trans, c->diag, c->m, c->n, (float)c->alpha,
                                 p->a, p->lda, p->b, p->ldb);
    default:
        return d ? clhgemm_dtrsm(h, c->layout, c->side, c->uplo, c->trans, c->diag, c->m, c->n, c->alpha, p->a,
                                 p->lda, p->b, p->ldb)
                 : clhgemm_strsm(h, c->layout, c->side, c->uplo, c->trans, c->diag, c->m, c->n, (float)c->alpha,
                                 p->a, p->lda, p->b, p->ldb);
    }
}

/* TRSM against OpenBLAS's solution in double: |x - x_ref| <= 8 (ka + 1) eps (|x_ref| + 1), and
 * everything of B outside the matrix bit-identical. */
static int check_trsm(const prob_t *p, const char *tag)
{
    const tc_l3case_t *c = &p->c;
    double *da = malloc(p->na * 8), *db = malloc(p->nb * 8);
    if (!da || !db) abort();
    for (size_t i = 0; i < p->na; i++) da[i] = ld_(c->dbl, p->a, i);
    for (size_t i = 0; i < p->nb; i++) db[i] = ld_(c->dbl, p->b0, i);
    cblas_dtrsm((enum CBLAS_ORDER)c->layout, (enum CBLAS_SIDE)c->side, (enum CBLAS_UPLO)c->uplo,
                (enum CBLAS_TRANSPOSE)c->trans, (enum CBLAS_DIAG)c->diag, c->m, c->n, c->alpha, da, p->lda, db,
                p->ldb);
    const int ka = c->side == CLHGEMM_LEFT ? c->m : c->n;
    const double eps = c->dbl ? DBL_EPSILON : FLT_EPSILON;
    size_t bad = 0, changed_out = 0;
    for (size_t i = 0; i < p->nb; i++) {
        const size_t line = i / (size_t)p->ldb, pos = i % (size_t)p->ldb;
        const int rows = c->layout == CLHGEMM_COL_MAJOR ? c->m : c->n;
        if ((int)pos >= rows) {
            changed_out += memcmp((char *)p->b + i * p->es, (char *)p->b0 + i * p->es, p->es) != 0;
            continue;
        }
        (void)line;
        const double g = ld_(c->dbl, p->b, i);
        if (!(fabs(g - db[i]) <= 8.0 * (ka + 1) * eps * (fabs(db[i]) + 1.0))) bad++;
    }
    free(da);
    free(db);
    if (bad || changed_out)
        fprintf(stderr, "FAIL %s: %zu elements out of tolerance, %zu outside the matrix changed\n", tag, bad,
                changed_out);
    return bad || changed_out;
}

/* The result against OpenBLAS (tests/common.c's references and checks). */
static int prob_check(const prob_t *p, const char *tag)
{
    const tc_l3case_t *c = &p->c;
    if (c->r == R_TRSM) return check_trsm(p, tag);
    const int trmm = c->r == TC_L3_TRMM;
    const size_t nout = trmm ? p->nb : p->nc;
    double *want = malloc(nout * 8), *bound = malloc(nout * 8);
    if (!want || !bound) abort();
    int rc;
    if (c->r == R_GEMM) {
        double *da = malloc(p->na * 8), *db = malloc(p->nb * 8), *aa = malloc(p->na * 8), *ab = malloc(p->nb * 8);
        if (!da || !db || !aa || !ab) abort();
        for (size_t i = 0; i < p->na; i++) aa[i] = fabs(da[i] = ld_(c->dbl, p->a, i));
        for (size_t i = 0; i < p->nb; i++) ab[i] = fabs(db[i] = ld_(c->dbl, p->b0, i));
        for (size_t i = 0; i < p->nc; i++) {
            const double v = ld_(c->dbl, p->c0, i);
            want[i] = isnan(v) ? 0.0 : v;
            bound[i] = fabs(want[i]);
        }
        tc_ref_dgemm(c->layout, c->trans, (clhgemm_transpose_t)c->diag, c->m, c->n, c->k, c->alpha, da, p->lda,
                     db, p->ldb, c->beta, want, p->ldc);
        tc_ref_dgemm(c->layout, c->trans, (clhgemm_transpose_t)c->diag, c->m, c->n, c->k, fabs(c->alpha), aa,
                     p->lda, ab, p->ldb, fabs(c->beta), bound, p->ldc);
        free(da);
        free(db);
        free(aa);
        free(ab);
        rc = tc_check_c(c->dbl, c->layout, c->m, c->n, c->k, p->cc, p->c0, p->nc, 0, p->ldc, want, bound, tag);
    } else {
        tc_l3_reference(c, p->lda, p->ldb, p->ldc, p->na, p->nb, p->nc, p->a, p->b0, p->c0, want, bound);
        const int inner = c->r == TC_L3_SYRK || c->r == TC_L3_SYR2K
                              ? c->k * (c->r == TC_L3_SYR2K ? 2 : 1)
                              : c->side == CLHGEMM_LEFT ? c->m : c->n;
        if (c->r == TC_L3_SYRK || c->r == TC_L3_SYR2K)
            rc = tc_check_c_tri(c->dbl, c->layout, c->uplo, c->n, inner, p->cc, p->c0, p->nc, 0, p->ldc, want,
                                bound, tag);
        else if (trmm)
            rc = tc_check_c(c->dbl, c->layout, c->m, c->n, inner, p->b, p->b0, p->nb, 0, p->ldb, want, bound, tag);
        else
            rc = tc_check_c(c->dbl, c->layout, c->m, c->n, inner, p->cc, p->c0, p->nc, 0, p->ldc, want, bound, tag);
    }
    free(want);
    free(bound);
    return rc;
}

/* ---- stderr capture ----------------------------------------------------------------------------- */

/* Ends the capture (tc_capture_end echoes it), returns the number of lost-device warnings;
 * *short_lines counts the out-of-memory lines, *idle those of them that say idle handles gave
 * memory back. */
static int capture_end(tc_capture_t *k, int *short_lines, int *idle)
{
    char *text = tc_capture_end(k);
    const char *dev = "clhgemm: device ";
    const int warnings = tc_count_lines(text, dev, " lost in ", NULL);
    *short_lines = tc_count_lines(text, dev, " out of memory in ", NULL);
    *idle = tc_count_lines(text, dev, " out of memory in ", "idle handles");
    free(text);
    return warnings;
}

/* ---- scenarios ----------------------------------------------------------------------------------- */

typedef struct scen_s {
    char spec[64];
    int lost;                   /* devices the scenario loses (kind=oom: devices short of memory) */
    int after;
    int oom;                    /* kind=oom: nothing is lost; an idle handle's buffers are taken back */
} scen_t;

static int g_ndev;

/* One case under one scenario: a fresh handle with the fault, the faulty call, a next call.
 * Returns 1 when the fault happened in the first call. */
static int run_case(const scen_t *s, const tc_l3case_t *c, tc_rng_t *rng)
{
    char desc[300], tag[400];  /* spec (64) + desc */
    prob_t p;
    prob_init(&p, c, rng);
    describe(&p, desc, sizeof desc);
    snprintf(tag, sizeof tag, "[%.60s] %.300s", s->spec, desc);
    clhgemm_options_t o;
    clhgemm_options_init(&o);
    o.device_memory_limit = g_limit;
    /* kind=oom: an idle handle on the same devices keeps the buffers of a GEMM made before. */
    clhgemm_handle_t idle = NULL;
    prob_t x1, x2;
    if (s->oom) {
        const tc_l3case_t g = {.r = R_GEMM, .dbl = c->dbl, .layout = CLHGEMM_COL_MAJOR, .trans = CLHGEMM_NO_TRANS,
                               .diag = (clhgemm_diag_t)CLHGEMM_TRANS, .m = 300, .n = 260, .k = 200, .alpha = 1.0, .beta = 0.5};
        prob_init(&x1, &g, rng);
        prob_init(&x2, &g, rng);
        if (clhgemm_create(&idle, &o) != CLHGEMM_SUCCESS || prob_call(idle, &x1) != CLHGEMM_SUCCESS ||
            prob_check(&x1, "the idle handle's call")) {
            fprintf(stderr, "FAIL %s: the idle handle's first call\n", tag);
            tc_tally(1);
            if (idle) clhgemm_destroy(idle);
            prob_free(&x1);
            prob_free(&x2);
            prob_free(&p);
            return 0;
        }
    }
    setenv("CLHGEMM_FAULT_INJECT", s->spec, 1);
    tc_capture_t k;
    tc_capture_begin(&k);
    clhgemm_handle_t h = NULL;
    clhgemm_status_t st = clhgemm_create(&h, &o);
    unsetenv("CLHGEMM_FAULT_INJECT");
    int bad = 0;
    clhgemm_status_t st2 = CLHGEMM_SUCCESS;
    clhgemm_call_info_t inf1 = {0}, inf2 = {0};
    prob_t q;
    prob_init(&q, c, rng);
    if (st == CLHGEMM_SUCCESS) {
        st = prob_call(h, &p);
        clhgemm_last_call_info(h, &inf1);
    }
    int short1, short2, idle1, idle2;
    const int warnings = capture_end(&k, &short1, &idle1);
    tc_capture_begin(&k);
    if (h) {
        st2 = prob_call(h, &q);  /* the next call on the same handle */
        clhgemm_last_call_info(h, &inf2);
        clhgemm_destroy(h);
    }
    const int warnings2 = capture_end(&k, &short2, &idle2);
    if (s->oom) {
        /* The idle handle gave its buffers back and works on. */
        const clhgemm_status_t sx = prob_call(idle, &x2);
        if (sx != CLHGEMM_SUCCESS || prob_check(&x2, "the idle handle's call after the shortage")) {
            fprintf(stderr, "FAIL %s: the idle handle's call after: %s\n", tag, clhgemm_status_string(sx));
            bad = 1;
        }
        if (short1 > 0 && idle1 == 0) {
            fprintf(stderr, "FAIL %s: out of memory, but no idle handle's buffers were released\n", tag);
            bad = 1;
        }
        clhgemm_destroy(idle);
        prob_free(&x1);
        prob_free(&x2);
    }
    if (st != CLHGEMM_SUCCESS || st2 != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: status %s, next call %s\n", tag, clhgemm_status_string(st),
                clhgemm_status_string(st2));
        bad = 1;
    } else {
        bad |= prob_check(&p, tag);
        char tag2[440];
        snprintf(tag2, sizeof tag2, "%s (next call)", tag);
        bad |= prob_check(&q, tag2);
        /* Each device warned at most once (one lost and used again would fail and warn again).
         * The fault must have happened in the first call where that is certain: with one device
         * (it takes every tile, at least 8: check_cases). With more, a device may take fewer than
         * t + 1 tiles of a call (the others started sooner) and be lost in the next one: main
         * counts the cases where the fault fell in the first call. TRSM's strips may be too few
         * for the fault to fall inside the call: no fault is required there. */
        const int want_min = c->r != R_TRSM && g_ndev == 1;
        if (s->oom) {
            /* Short of memory: no device lost, each short device warned once (a device whose
             * memory came back does not fail again), every device used by the next call. */
            if (warnings + warnings2 > 0 || short1 + short2 > s->lost || short1 < want_min) {
                fprintf(stderr, "FAIL %s: %d/%d lost-device and %d/%d out-of-memory warning(s) in the call / the "
                                "next, want no loss and 1 to %d out-of-memory lines in the call\n", tag, warnings,
                        warnings2, short1, short2, s->lost);
                bad = 1;
            }
            if (inf2.devices_used > g_ndev) bad = 1;
        } else if (warnings + warnings2 > s->lost || warnings < want_min) {
            fprintf(stderr, "FAIL %s: %d lost-device warning(s) in the call and %d in the next, want 1 to %d in "
                            "the call, once per lost device\n", tag, warnings, warnings2, s->lost);
            bad = 1;
        }
        if (inf2.devices_used > g_ndev - warnings) {
            fprintf(stderr, "FAIL %s: the next call used %d device(s), %d left\n", tag, inf2.devices_used,
                    g_ndev - warnings);
            bad = 1;
        }
    }
    if (bad) fprintf(stderr, "  first call: %d device(s), %lld tiles; next: %d device(s)\n", inf1.devices_used,
                     inf1.tiles, inf2.devices_used);
    tc_tally(bad);
    prob_free(&p);
    prob_free(&q);
    return s->oom ? short1 > 0 : warnings > 0;
}

static tc_l3case_t mk(int r, int dbl, clhgemm_layout_t l, int side, int uplo, int trans, int diag, int m, int n,
                      int k, double alpha, double beta)
{
    tc_l3case_t c = {.r = r, .dbl = dbl, .layout = l, .side = side, .uplo = uplo, .trans = trans, .diag = diag,
                     .m = m, .n = n, .k = k, .alpha = alpha, .beta = beta};
    return c;
}

/* The cases of one scenario: every routine and variant the issue names. */
static int cases(tc_l3case_t *out, int fp64)
{
    const clhgemm_layout_t C = CLHGEMM_COL_MAJOR, R = CLHGEMM_ROW_MAJOR;
    const int N = CLHGEMM_NO_TRANS, T = CLHGEMM_TRANS, L = CLHGEMM_LEFT, Ri = CLHGEMM_RIGHT;
    const int U = CLHGEMM_UPPER, Lo = CLHGEMM_LOWER, Un = CLHGEMM_UNIT, Nu = CLHGEMM_NON_UNIT;
    int n = 0;
    for (int d = 0; d <= fp64; d++)
        for (int l = 0; l < 2; l++)
            for (int b = 0; b < 2; b++)
                out[n++] = mk(R_GEMM, d, l ? R : C, 0, 0, l ? T : N, b ? N : T, 300, 260, 200, -1.5, b ? 0.5 : 0.0);
    out[n++] = mk(TC_L3_SYMM, fp64, C, L, U, 0, 0, 256, 230, 0, 1.25, 0.5);
    out[n++] = mk(TC_L3_SYMM, 0, R, Ri, Lo, 0, 0, 230, 256, 0, -1.0, 0.0);
    out[n++] = mk(TC_L3_SYRK, fp64, C, 0, U, N, 0, 0, 260, 150, 1.0, 0.5);
    out[n++] = mk(TC_L3_SYRK, 0, R, 0, Lo, T, 0, 0, 260, 150, -0.5, 0.0);
    out[n++] = mk(TC_L3_SYR2K, fp64, C, 0, Lo, N, 0, 0, 260, 120, 0.75, 1.0);
    out[n++] = mk(TC_L3_SYR2K, 0, R, 0, U, T, 0, 0, 260, 120, 1.0, 0.0);
    /* TRMM: every side x uplo x trans x diag, both layouts across them */
    for (int i = 0; i < 16; i++)
        out[n++] = mk(TC_L3_TRMM, fp64 && i % 3 == 0, i % 5 < 3 ? C : R, i & 1 ? Ri : L, i & 2 ? Lo : U,
                      i & 4 ? T : N, i & 8 ? Un : Nu, i & 1 ? 600 : 160, i & 1 ? 160 : 600, 0, i % 2 ? -1.5 : 1.0,
                      0.0);
    out[n++] = mk(R_TRSM, fp64, C, L, Lo, N, Nu, 200, 230, 0, 1.5, 0.0);
    out[n++] = mk(R_TRSM, 0, R, Ri, U, T, Un, 230, 200, 0, -1.0, 0.0);
    return n;
}

/* Every case without a fault: right, and (TRSM aside) over at least 8 tiles, so that a fault
 * after 3 tiles of one of two devices falls inside the call. */
static int check_cases(const tc_l3case_t *cs, int nc)
{
    clhgemm_options_t o;
    clhgemm_options_init(&o);
    o.device_memory_limit = g_limit;
    clhgemm_handle_t h;
    if (clhgemm_create(&h, &o) != CLHGEMM_SUCCESS) return 1;
    tc_rng_t rng;
    tc_rng_seed(&rng, 7);
    long long fewest = -1;
    int bad = 0;
    for (int i = 0; i < nc; i++) {
        prob_t p;
        char tag[300];
        prob_init(&p, &cs[i], &rng);
        describe(&p, tag, sizeof tag);
        clhgemm_call_info_t inf = {0};
        const clhgemm_status_t st = prob_call(h, &p);
        clhgemm_last_call_info(h, &inf);
        if (st != CLHGEMM_SUCCESS || prob_check(&p, tag)) {
            fprintf(stderr, "FAIL %s without a fault: %s\n", tag, clhgemm_status_string(st));
            bad = 1;
        } else if (cs[i].r != R_TRSM && inf.tiles < 8) {
            fprintf(stderr, "FAIL %s: %lld tile(s) of %d x %d under the limit; the test needs 8\n", tag, inf.tiles,
                    inf.tile_m, inf.tile_n);
            bad = 1;
        }
        if (cs[i].r != R_TRSM && (fewest < 0 || inf.tiles < fewest)) fewest = inf.tiles;
        prob_free(&p);
    }
    clhgemm_destroy(h);
    printf("device memory limit %llu bytes: %d case(s) without a fault, the fewest tiles %lld%s\n", g_limit, nc,
           fewest, bad ? " (FAILED)" : "");
    return bad;
}

int main(int argc, char **argv)
{
    {
        const int skip = tc_require_feature();
        if (skip) return skip;
    }
    if (argc > 1) g_limit = strtoull(argv[1], NULL, 10);
    size_t count = 0;
    if (clhgemm_devices_get(NULL, NULL, 0, &count) != CLHGEMM_SUCCESS || count == 0) {
        printf("SKIP: no OpenCL device\n");
        return TC_SKIP;
    }
    clhgemm_handle_t h0;
    if (clhgemm_create(&h0, NULL) != CLHGEMM_SUCCESS) return 1;
    /* the handle's devices: clhgemm_create's rule (every GPU, else every device) */
    clhgemm_device_info_t *di = calloc(count, sizeof *di);
    clhgemm_devices_get(NULL, di, count, &count);
    int gpus = 0, fp64 = 1;
    for (size_t i = 0; i < count; i++) gpus += di[i].kind == CLHGEMM_DEVICE_GPU;
    g_ndev = gpus ? gpus : (int)count;
    for (size_t i = 0; i < count; i++) fp64 &= di[i].has_fp64 != 0;
    free(di);
    clhgemm_destroy(h0);
    scen_t sc[16];
    memset(sc, 0, sizeof sc);
    int ns = 0;
    static const int after[3] = {0, 1, 3};
    for (int i = 0; i < 3; i++) {
        snprintf(sc[ns].spec, sizeof sc[ns].spec, "device=0,after=%d", after[i]);
        sc[ns].after = after[i];
        sc[ns++].lost = 1;
    }
    for (int i = 0; i < 3 && g_ndev > 1; i++) {
        snprintf(sc[ns].spec, sizeof sc[ns].spec, "device=all,after=%d", after[i]);
        sc[ns].after = after[i];
        sc[ns++].lost = g_ndev;
    }
    if (g_ndev > 1) {
        snprintf(sc[ns].spec, sizeof sc[ns].spec, "after=1,device=1");
        sc[ns].after = 1;
        sc[ns++].lost = 1;
    }
    /* Out of device memory (kind=oom) after 0 and 2 tiles, on device 0 and on every device */
    for (int i = 0; i < 2 * (g_ndev > 1 ? 2 : 1); i++) {
        snprintf(sc[ns].spec, sizeof sc[ns].spec, "device=%s,after=%d,kind=oom", i < 2 ? "0" : "all", i % 2 ? 2 : 0);
        sc[ns].after = i % 2 ? 2 : 0;
        sc[ns].oom = 1;
        sc[ns++].lost = i < 2 ? 1 : g_ndev;
    }
    tc_l3case_t cs[64];
    const int nc = cases(cs, fp64);
    if (check_cases(cs, nc)) return 1;
    tc_rng_t rng;
    tc_rng_seed(&rng, 0xFA0175ULL);
    for (int s = 0; s < ns; s++) {
        const int before = tc_failures();
        int hit = 0;
        int ran = 0;
        for (int i = 0; i < nc; i++) {
            hit += run_case(&sc[s], &cs[i], &rng);
            ran++;
        }
        printf("%-30s %d case(s), %d failed, the fault in the first call in %d (%s)\n", sc[s].spec, ran,
               tc_failures() - before, hit,
               sc[s].oom ? "memory released, the device goes on"
               : sc[s].lost >= g_ndev ? "no device left: the CPU" : "the other device(s) take over");
        if (hit == 0) { /* the scenario tested nothing */
            fprintf(stderr, "FAIL %s: the fault never fell in the first call of a case\n", sc[s].spec);
            tc_tally(1);
        }
        fflush(stdout);
    }
    printf("%d device(s), fp64 %s: %d checks, %d failed\n", g_ndev, fp64 ? "yes" : "no", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
