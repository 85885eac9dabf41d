/*
 * test_overflow.c -- sizes whose matrices cannot exist in memory.
 *
 * m = n = k = lda = ldb = ldc = INT_MAX used to pass the checks of the host API, whose pipeline
 * (or quick path, C := beta*C) then ran far past the caller's buffers. Every routine of both
 * APIs (GEMM, SYMM, SYRK, SYR2K, TRMM, TRSM; s and d; host memory and cl_mem) must now answer
 * CLHGEMM_SIZE_OVERFLOW before anything is read or written: the calls get small real buffers
 * poisoned with NaN, which must come back bit-identical (and *event untouched). Also:
 *   - each operand alone overflowing (A, B, C of GEMM), and alpha = 0 (the quick path would
 *     write all of C), and the order: an invalid leading dimension is reported first;
 *   - the bound exactly (src/core/extent.h: ld * (cols - 1) + rows elements at 8 bytes each
 *     within PTRDIFF_MAX): C of 2^30 - 1 rows, 2^30 columns, ldc 2^30 fits and gets
 *     INSUFFICIENT_BUFFER_C on a small buffer; 2^30 rows gets SIZE_OVERFLOW;
 *   - huge leading dimensions on one column are no overflow: such host calls succeed and agree
 *     with OpenBLAS.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "common.h"

#define BIG INT_MAX
#define NEL 256 /* elements of each small buffer */

static clhgemm_handle_t g_h;
static unsigned char g_poison[NEL * 8];
static unsigned char g_a[NEL * 8], g_b[NEL * 8], g_c[NEL * 8];

static void poison_all(void)
{
    memcpy(g_a, g_poison, sizeof g_a);
    memcpy(g_b, g_poison, sizeof g_b);
    memcpy(g_c, g_poison, sizeof g_c);
}

static void verdict(clhgemm_status_t st, clhgemm_status_t want, const char *tag)
{
    int bad = st != want;
    if (bad)
        fprintf(stderr, "FAIL %s: status %s (%d), want %s\n", tag, clhgemm_status_string(st),
                (int)st, clhgemm_status_string(want));
    if (memcmp(g_a, g_poison, sizeof g_a) || memcmp(g_b, g_poison, sizeof g_b) ||
        memcmp(g_c, g_poison, sizeof g_c)) {
        fprintf(stderr, "FAIL %s: a buffer changed although the call was rejected\n", tag);
        bad = 1;
    }
    tc_tally(bad);
}

/* ---- host API ---------------------------------------------------------------------------- */

typedef struct hcall_s {
    int m, n, k, lda, ldb, ldc;
    double alpha, beta;
} hcall_t;

static clhgemm_status_t host_gemm(int dbl, int layout, int ta, int tb, const hcall_t *c)
{
    if (dbl)
        return clhgemm_dgemm(g_h, layout, ta, tb, c->m, c->n, c->k, c->alpha, (double *)g_a, c->lda,
                             (double *)g_b, c->ldb, c->beta, (double *)g_c, c->ldc);
    return clhgemm_sgemm(g_h, layout, ta, tb, c->m, c->n, c->k, (float)c->alpha, (float *)g_a,
                         c->lda, (float *)g_b, c->ldb, (float)c->beta, (float *)g_c, c->ldc);
}

/* Each level-3 routine with every size and leading dimension BIG. */
static clhgemm_status_t host_l3(int dbl, int r, int layout, double alpha, double beta)
{
    const int L = CLHGEMM_LEFT, U = CLHGEMM_UPPER, N = CLHGEMM_NO_TRANS, D = CLHGEMM_NON_UNIT;
    double *ad = (double *)g_a, *bd = (double *)g_b, *cd = (double *)g_c;
    float *as = (float *)g_a, *bs = (float *)g_b, *cs = (float *)g_c;
    const float af = (float)alpha, bf = (float)beta;
    switch (r) {
    case 0:
        return dbl ? clhgemm_dsymm(g_h, layout, L, U, BIG, BIG, alpha, ad, BIG, bd, BIG, beta, cd, BIG)
                   : clhgemm_ssymm(g_h, layout, L, U, BIG, BIG, af, as, BIG, bs, BIG, bf, cs, BIG);
    case 1:
        return dbl ? clhgemm_dsyrk(g_h, layout, U, N, BIG, BIG, alpha, ad, BIG, beta, cd, BIG)
                   : clhgemm_ssyrk(g_h, layout, U, N, BIG, BIG, af, as, BIG, bf, cs, BIG);
    case 2:
        return dbl ? clhgemm_dsyr2k(g_h, layout, U, N, BIG, BIG, alpha, ad, BIG, bd, BIG, beta, cd, BIG)
                   : clhgemm_ssyr2k(g_h, layout, U, N, BIG, BIG, af, as, BIG, bs, BIG, bf, cs, BIG);
    case 3:
        return dbl ? clhgemm_dtrmm(g_h, layout, L, U, N, D, BIG, BIG, alpha, ad, BIG, bd, BIG)
                   : clhgemm_strmm(g_h, layout, L, U, N, D, BIG, BIG, af, as, BIG, bs, BIG);
    default:
        return dbl ? clhgemm_dtrsm(g_h, layout, L, U, N, D, BIG, BIG, alpha, ad, BIG, bd, BIG)
                   : clhgemm_strsm(g_h, layout, L, U, N, D, BIG, BIG, af, as, BIG, bs, BIG);
    }
}

static const char *const L3_NAMES[5] = {"symm", "syrk", "syr2k", "trmm", "trsm"};

static void host_rejections(int dbl)
{
    char tag[160];
    const char p = dbl ? 'd' : 's';
    for (int l = 0; l < 2; l++) {
        const int layout = l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
        const char *ln = l ? "row" : "col";
        /* GEMM (NO_TRANS): everything BIG, then each operand alone. Column-major A spans
         * lda*(k-1)+m, B ldb*(n-1)+k, C ldc*(n-1)+m; row-major A lda*(m-1)+k, B ldb*(k-1)+n,
         * C ldc*(m-1)+n. */
        const struct { hcall_t c[2]; const char *what; } g[] = {
            {{{BIG, BIG, BIG, BIG, BIG, BIG, 1, 1}, {BIG, BIG, BIG, BIG, BIG, BIG, 1, 1}}, "all INT_MAX"},
            {{{BIG, BIG, BIG, BIG, BIG, BIG, 0, 0}, {BIG, BIG, BIG, BIG, BIG, BIG, 0, 0}},
             "all INT_MAX, alpha = beta = 0"},
            {{{BIG, BIG, 0, BIG, BIG, BIG, 1, 2}, {BIG, BIG, 0, BIG, BIG, BIG, 1, 2}}, "all INT_MAX, k = 0"},
            {{{1, 1, BIG, BIG, BIG, 1, 1, 1}, {BIG, 1, 1, BIG, 1, 1, 1, 1}}, "A alone"},
            {{{1, BIG, 1, 1, BIG, 1, 1, 1}, {1, 1, BIG, BIG, BIG, 1, 1, 1}}, "B alone"},
            {{{1, BIG, 1, 1, 1, BIG, 1, 1}, {BIG, 1, 1, 1, 1, BIG, 1, 1}}, "C alone"},
        };
        for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
            poison_all();
            snprintf(tag, sizeof tag, "%cgemm %s NN %s", p, ln, g[i].what);
            verdict(host_gemm(dbl, layout, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, &g[i].c[l]),
                    CLHGEMM_SIZE_OVERFLOW, tag);
        }
        /* transposed operands, everything BIG */
        const hcall_t all = {BIG, BIG, BIG, BIG, BIG, BIG, 1.0, 0.0};
        poison_all();
        snprintf(tag, sizeof tag, "%cgemm %s TT all INT_MAX", p, ln);
        verdict(host_gemm(dbl, layout, CLHGEMM_TRANS, CLHGEMM_TRANS, &all), CLHGEMM_SIZE_OVERFLOW, tag);
        /* an invalid leading dimension comes first (reference order: ld checks, then sizes) */
        hcall_t badld = all;
        badld.ldb = BIG - 1;
        poison_all();
        snprintf(tag, sizeof tag, "%cgemm %s NN ldb < k, all else INT_MAX", p, ln);
        verdict(host_gemm(dbl, layout, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, &badld),
                CLHGEMM_INVALID_LDB, tag);
        for (int r = 0; r < 5; r++)
            for (int z = 0; z < 2; z++) {
                poison_all();
                snprintf(tag, sizeof tag, "%c%s %s all INT_MAX%s", p, L3_NAMES[r], ln,
                         z ? ", alpha = beta = 0" : "");
                verdict(host_l3(dbl, r, layout, z ? 0.0 : 1.0, z ? 0.0 : 1.0), CLHGEMM_SIZE_OVERFLOW, tag);
            }
    }
}

/* Huge leading dimensions on single columns: no overflow (ld * 0 + rows elements), the call
 * runs and agrees with OpenBLAS. */
static void host_huge_ld_ok(int dbl)
{
    const int m = 5;
    double a[8], b[1], c[8], want[8];
    float as[8], bs[1], cs[8];
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x0F10ULL + (uint64_t)dbl);
    for (int i = 0; i < m; i++) {
        a[i] = tc_rng_uniform(&rng);
        c[i] = want[i] = tc_rng_uniform(&rng);
        as[i] = (float)a[i];
        cs[i] = (float)c[i];
    }
    b[0] = tc_rng_uniform(&rng);
    bs[0] = (float)b[0];
    const double alpha = 1.25, beta = -0.5;
    clhgemm_status_t st;
    if (dbl) {
        st = clhgemm_dgemm(g_h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, m, 1, 1, alpha, a,
                           BIG, b, BIG, beta, c, BIG);
    } else {
        st = clhgemm_sgemm(g_h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, m, 1, 1,
                           (float)alpha, as, BIG, bs, BIG, (float)beta, cs, BIG);
        for (int i = 0; i < m; i++) {
            a[i] = as[i]; /* the reference on the float inputs */
            want[i] = (float)want[i];
        }
        b[0] = bs[0];
    }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, 1, 1, alpha, a, BIG, b, BIG, beta,
                want, BIG);
    int bad = st != CLHGEMM_SUCCESS;
    for (int i = 0; i < m && !bad; i++) {
        const double got = dbl ? c[i] : (double)cs[i];
        const double tol = (dbl ? 4e-16 : 3e-7) * 8.0 * (1.0 + (want[i] < 0 ? -want[i] : want[i]));
        if (!(got - want[i] <= tol && want[i] - got <= tol)) {
            fprintf(stderr, "FAIL %cgemm m=%d n=k=1 ld=INT_MAX: C[%d] = %.17g, OpenBLAS %.17g\n",
                    dbl ? 'd' : 's', m, i, got, want[i]);
            bad = 1;
        }
    }
    if (st != CLHGEMM_SUCCESS)
        fprintf(stderr, "FAIL %cgemm m=%d n=k=1 ld=INT_MAX: status %s, want success\n", dbl ? 'd' : 's',
                m, clhgemm_status_string(st));
    tc_tally(bad);
}

/* ---- device-buffer API ------------------------------------------------------------------- */

#define EV_SENTINEL ((cl_event)(uintptr_t)0x5EB71E10)

typedef struct cl_bufs_s {
    cl_mem a, b, c;
    cl_command_queue q;
} cl_bufs_t;

static clhgemm_status_t cl_routine(int dbl, int r, int layout, const cl_bufs_t *x, int m, int n,
                                   int k, int ld, cl_event *ev)
{
    const int L = CLHGEMM_LEFT, U = CLHGEMM_UPPER, N = CLHGEMM_NO_TRANS, D = CLHGEMM_NON_UNIT;
    switch (r) {
    case 0:
        return dbl ? clhgemm_dgemm_cl(layout, N, N, m, n, k, 1.0, x->a, 0, ld, x->b, 0, ld, 1.0, x->c, 0, ld, x->q, ev)
                   : clhgemm_sgemm_cl(layout, N, N, m, n, k, 1.0f, x->a, 0, ld, x->b, 0, ld, 1.0f, x->c, 0, ld, x->q, ev);
    case 1:
        return dbl ? clhgemm_dsymm_cl(layout, L, U, m, n, 1.0, x->a, 0, ld, x->b, 0, ld, 1.0, x->c, 0, ld, x->q, ev)
                   : clhgemm_ssymm_cl(layout, L, U, m, n, 1.0f, x->a, 0, ld, x->b, 0, ld, 1.0f, x->c, 0, ld, x->q, ev);
    case 2:
        return dbl ? clhgemm_dsyrk_cl(layout, U, N, n, k, 1.0, x->a, 0, ld, 1.0, x->c, 0, ld, x->q, ev)
                   : clhgemm_ssyrk_cl(layout, U, N, n, k, 1.0f, x->a, 0, ld, 1.0f, x->c, 0, ld, x->q, ev);
    case 3:
        return dbl ? clhgemm_dsyr2k_cl(layout, U, N, n, k, 1.0, x->a, 0, ld, x->b, 0, ld, 1.0, x->c, 0, ld, x->q, ev)
                   : clhgemm_ssyr2k_cl(layout, U, N, n, k, 1.0f, x->a, 0, ld, x->b, 0, ld, 1.0f, x->c, 0, ld, x->q, ev);
    case 4:
        return dbl ? clhgemm_dtrmm_cl(layout, L, U, N, D, m, n, 1.0, x->a, 0, ld, x->c, 0, ld, x->q, ev)
                   : clhgemm_strmm_cl(layout, L, U, N, D, m, n, 1.0f, x->a, 0, ld, x->c, 0, ld, x->q, ev);
    default:
        return dbl ? clhgemm_dtrsm_cl(layout, L, U, N, D, m, n, 1.0, x->a, 0, ld, x->c, 0, ld, x->q, ev)
                   : clhgemm_strsm_cl(layout, L, U, N, D, m, n, 1.0f, x->a, 0, ld, x->c, 0, ld, x->q, ev);
    }
}

static const char *const CL_NAMES[6] = {"gemm", "symm", "syrk", "syr2k", "trmm", "trsm"};

/* One _cl call that must be rejected with `want`: *event untouched, the C (TRMM/TRSM: B) buffer
 * bit-identical. */
static void cl_expect(int dbl, int r, int layout, const cl_bufs_t *x, int m, int n, int k, int ld,
                      clhgemm_status_t want, const char *what)
{
    char tag[160];
    snprintf(tag, sizeof tag, "%c%s_cl %s m=%d n=%d k=%d ld=%d [%s]", dbl ? 'd' : 's', CL_NAMES[r],
             layout == CLHGEMM_ROW_MAJOR ? "row" : "col", m, n, k, ld, what);
    cl_event ev = EV_SENTINEL;
    const clhgemm_status_t st = cl_routine(dbl, r, layout, x, m, n, k, ld, &ev);
    int bad = st != want;
    if (bad)
        fprintf(stderr, "FAIL %s: status %s (%d), want %s\n", tag, clhgemm_status_string(st), (int)st,
                clhgemm_status_string(want));
    if (ev != EV_SENTINEL) {
        fprintf(stderr, "FAIL %s: *event written on a rejected call\n", tag);
        if (ev) {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
        }
        bad = 1;
    }
    clFinish(x->q);
    unsigned char back[NEL * 8];
    if (tc_read(x->q, x->c, back, sizeof back) || memcmp(back, g_poison, sizeof back)) {
        fprintf(stderr, "FAIL %s: C changed (or could not be read) although the call was rejected\n", tag);
        bad = 1;
    }
    tc_tally(bad);
}

static void cl_rejections(const tc_env_t *env, int dbl)
{
    cl_bufs_t x = {.q = env->queue};
    x.a = tc_buffer_from_host(env->ctx, g_poison, sizeof g_poison);
    x.b = tc_buffer_from_host(env->ctx, g_poison, sizeof g_poison);
    x.c = tc_buffer_from_host(env->ctx, g_poison, sizeof g_poison);
    if (!x.a || !x.b || !x.c) {
        fprintf(stderr, "FAIL: buffer setup\n");
        tc_tally(1);
        return;
    }
    for (int l = 0; l < 2; l++) {
        const int layout = l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
        for (int r = 0; r < 6; r++)
            cl_expect(dbl, r, layout, &x, BIG, BIG, BIG, BIG, CLHGEMM_SIZE_OVERFLOW, "all INT_MAX");
    }
    /* the bound exactly: C with ldc = 2^30 and 2^30 columns; k = 0 so that A and B are empty */
    const int p30 = 1 << 30;
    cl_expect(dbl, 0, CLHGEMM_COL_MAJOR, &x, p30 - 1, p30, 0, p30, CLHGEMM_INSUFFICIENT_BUFFER_C,
              "2^60 - 1 elements: fits the bound, not the buffer");
    cl_expect(dbl, 0, CLHGEMM_COL_MAJOR, &x, p30, p30, 0, p30, CLHGEMM_SIZE_OVERFLOW,
              "2^60 elements = 2^63 bytes: over PTRDIFF_MAX");
    clReleaseMemObject(x.a);
    clReleaseMemObject(x.b);
    clReleaseMemObject(x.c);
}

int main(void)
{
    memset(g_poison, 0xFF, sizeof g_poison); /* NaN in both precisions */
    EXPECT(strcmp(clhgemm_status_string(CLHGEMM_SIZE_OVERFLOW), "CLHGEMM_SIZE_OVERFLOW") == 0,
           "clhgemm_status_string(CLHGEMM_SIZE_OVERFLOW) = %s",
           clhgemm_status_string(CLHGEMM_SIZE_OVERFLOW));
    tc_env_t env;
    int rc = tc_open(&env);
    if (rc) return rc;
    printf("device: %s (%s)\n", env.info.name, env.info.platform_name);
    clhgemm_status_t st = clhgemm_create(&g_h, NULL);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL: clhgemm_create -> %s\n", clhgemm_status_string(st));
        return 1;
    }
    for (int dbl = 0; dbl < 1 + env.has_fp64; dbl++) {
        host_rejections(dbl);
        host_huge_ld_ok(dbl);
        cl_rejections(&env, dbl);
    }
    clhgemm_destroy(g_h);
    tc_close(&env);
    printf("%d cases, %d failed\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
