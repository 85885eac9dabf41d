/*
 * test_trsm.c -- TRSM (clhgemm_{s,d}trsm on host memory, clhgemm_{s,d}trsm_cl on device
 * buffers) against OpenBLAS's cblas_?trsm.
 *
 *   test_trsm host s|d   every side x uplo x trans (N, T, C) x diag x layout on odd sizes (m, n
 *                        in 1, 7, 33, 100), with a rotation of padded leading dimensions and
 *                        alpha (-1.5, 1, 0.25), alpha = 0 on a B full of NaN, and a few wide
 *                        and tall B (n or m = 1500) whose updates do not fit one tile under
 *                        CLHGEMM_DEVICE_MEMORY_LIMIT (CTest sets 256K); meant to run with a small
 *                        CLHGEMM_TRSM_NB (CTest: 16), so that ka = 33 and 100 take 3 and 7
 *                        diagonal blocks and their trailing updates
 *   test_trsm cl s|d     the same table on device buffers, with offsets for A and B as well
 *   test_trsm host|cl s|d big  ka = 600 under the default diagonal block (512): blocks of 512
 *                        and 88, every side x uplo x trans (N, T) x layout
 *   test_trsm args       invalid arguments of both APIs: each its own status in the reference
 *                        order (TRMM's), B bit-identical after a rejected call; NULL operands
 *                        where BLAS does not read them; the device version's queue and buffers
 *
 * Poisoning: A's other triangle, a unit diagonal and A's ld gaps are NaN (the results must not
 * be NaN); B's ld gaps and the elements before its offset hold signalling-NaN sentinels that
 * must come back bit-identical, and A must come back bit-identical. A is diagonally dominant
 * (diagonal 4..8 in magnitude, either sign; off-diagonal uniform(-1, 1) / ka). The references
 * are the exact solution X_ref (substitution in long double on the same inputs) and OpenBLAS's
 * cblas_?trsm in the tested precision (A's NaNs replaced by zeros, which it does not read
 * anyway); the tolerance scales with the size: |X - X_ref| and |X - X_OpenBLAS| must both be
 * <= 4 * (ka + 1) * eps * (|X_ref| + 1), eps of the tested precision. The run prints the worst
 * error against X_ref of clhgemm's and of OpenBLAS's result, in units of (ka + 1) * eps *
 * (|X_ref| + 1), and at ka = 100 in units of eps * (|X_ref| + 1): clhgemm's accuracy next to
 * OpenBLAS's.
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static double g_worst_ours, g_worst_openblas; /* in units of ka * eps * (|X_ref| + 1) */
static double g_big_ours, g_big_openblas;     /* ka = 100, in units of eps * (|X_ref| + 1) */
static long long g_max_tiles;                 /* the most tiles one (host) update used */
static int g_strip_calls;                     /* host calls checked to have run by strips */

/* ---- one problem ------------------------------------------------------------------------- */

typedef struct tcase_s {
    int dbl;
    clhgemm_layout_t layout;
    clhgemm_side_t side;
    clhgemm_uplo_t uplo;
    clhgemm_transpose_t trans;
    clhgemm_diag_t diag;
    int m, n;
    double alpha;
    int pad;
    size_t offa, offb;
} tcase_t;

typedef struct prob_s {
    tcase_t c;
    size_t es;
    int ka, lda, ldb, bcontig, blines;
    size_t na, nb;
    void *a0, *b0; /* initial buffers */
    void *a, *b;   /* after the call */
} prob_t;

static void store(int dbl, void *p, size_t i, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

static double load(int dbl, const void *p, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static size_t at(clhgemm_layout_t l, int i, int j, int ld)
{
    return l == CLHGEMM_COL_MAJOR ? (size_t)i + (size_t)j * ld : (size_t)i * ld + (size_t)j;
}

static void describe(const tcase_t *c, const char *api, char *buf, size_t len)
{
    snprintf(buf, len, "%s %ctrsm %s side=%c uplo=%c trans=%s diag=%c m=%d n=%d alpha=%g pad=%d "
             "offA=%zu offB=%zu", api, c->dbl ? 'd' : 's', tc_layout_name(c->layout),
             c->side == CLHGEMM_LEFT ? 'L' : 'R', c->uplo == CLHGEMM_UPPER ? 'U' : 'L',
             tc_trans_name(c->trans), c->diag == CLHGEMM_UNIT ? 'U' : 'N', c->m, c->n, c->alpha,
             c->pad, c->offa, c->offb);
}

static void prob_free(prob_t *p)
{
    free(p->a0);
    free(p->b0);
    free(p->a);
    free(p->b);
    memset(p, 0, sizeof *p);
}

/* A: NaN everywhere but the uplo triangle (and not its diagonal when unit); B: sentinels
 * outside the matrix, the matrix random (NaN when alpha == 0). */
static int prob_init(prob_t *p, const tcase_t *c, tc_rng_t *rng)
{
    memset(p, 0, sizeof *p);
    p->c = *c;
    p->es = c->dbl ? 8 : 4;
    const int col = c->layout == CLHGEMM_COL_MAJOR;
    p->ka = c->side == CLHGEMM_LEFT ? c->m : c->n;
    p->lda = (p->ka > 1 ? p->ka : 1) + c->pad;
    p->bcontig = col ? c->m : c->n;
    p->blines = col ? c->n : c->m;
    p->ldb = (p->bcontig > 1 ? p->bcontig : 1) + c->pad;
    p->na = c->offa + (size_t)p->lda * (size_t)(p->ka > 0 ? p->ka : 1);
    p->nb = c->offb + (size_t)p->ldb * (size_t)(p->blines > 0 ? p->blines : 1);
    p->a0 = malloc(p->na * p->es);
    p->b0 = malloc(p->nb * p->es);
    p->a = malloc(p->na * p->es);
    p->b = malloc(p->nb * p->es);
    if (!p->a0 || !p->b0 || !p->a || !p->b) return 1;
    for (size_t i = 0; i < p->na; i++) store(c->dbl, p->a0, i, NAN);
    for (int j = 0; j < p->ka; j++)
        for (int i = 0; i < p->ka; i++) {
            const int in = c->uplo == CLHGEMM_UPPER ? i < j : i > j;
            double v = NAN;
            if (i == j && c->diag == CLHGEMM_NON_UNIT) {
                const double u = tc_rng_uniform(rng);
                v = (u < 0 ? -1.0 : 1.0) * (4.0 + 4.0 * fabs(u));
            } else if (in) {
                v = tc_rng_uniform(rng) / p->ka;
            }
            store(c->dbl, p->a0, c->offa + at(c->layout, i, j, p->lda), v);
        }
    for (size_t i = 0; i < p->nb; i++) tc_sentinel(c->dbl, i, (char *)p->b0 + i * p->es);
    for (int l = 0; l < p->blines; l++)
        for (int r = 0; r < p->bcontig; r++)
            store(c->dbl, p->b0, c->offb + (size_t)l * p->ldb + r,
                  c->alpha == 0.0 ? NAN : tc_rng_uniform(rng));
    memcpy(p->a, p->a0, p->na * p->es);
    memcpy(p->b, p->b0, p->nb * p->es);
    return 0;
}

/* op(A)(i, j) as the call sees it: 1 on a unit diagonal, 0 outside the uplo triangle (neither
 * read). */
static long double op_a(const prob_t *p, int i, int j)
{
    const tcase_t *c = &p->c;
    if (c->trans != CLHGEMM_NO_TRANS) {
        const int t = i;
        i = j;
        j = t;
    }
    if (i == j && c->diag == CLHGEMM_UNIT) return 1.0L;
    if (c->uplo == CLHGEMM_UPPER ? i > j : i < j) return 0.0L;
    return load(c->dbl, p->a0, c->offa + at(c->layout, i, j, p->lda));
}

/* The exact solution (to long double): substitution on the logical matrices, per column of B
 * (left: op(A) x = alpha b) or per row (right: x op(A) = alpha b, i.e. op(A)^T x^T = alpha b^T),
 * into want (whole B buffer; outside the matrix unused). */
static void reference_exact(const prob_t *p, long double *want)
{
    const tcase_t *c = &p->c;
    const int left = c->side == CLHGEMM_LEFT, ka = p->ka;
    /* T(r, q) = op(A)(r, q) (left) or op(A)(q, r) (right); T lower: forward substitution */
    const int opa_lower = (c->uplo == CLHGEMM_LOWER) != (c->trans != CLHGEMM_NO_TRANS);
    const int lower = left ? opa_lower : !opa_lower;
    const int vecs = left ? c->n : c->m;
    long double *x = malloc((size_t)(ka > 0 ? ka : 1) * sizeof *x);
    for (int v = 0; x && v < vecs; v++) {
        for (int q = 0; q < ka; q++) {
            const int r = lower ? q : ka - 1 - q;
            const size_t bi = c->offb + (left ? at(c->layout, r, v, p->ldb) : at(c->layout, v, r, p->ldb));
            long double s = (long double)c->alpha * load(c->dbl, p->b0, bi);
            for (int k = lower ? 0 : r + 1; k < (lower ? r : ka); k++)
                s -= (left ? op_a(p, r, k) : op_a(p, k, r)) * x[k];
            x[r] = s / (left ? op_a(p, r, r) : op_a(p, r, r));
            want[bi] = x[r];
        }
    }
    free(x);
}

/* want := the exact solution (B := 0 for alpha = 0); native := OpenBLAS's cblas_?trsm in the
 * case's precision (A's NaNs as zeros). */
static int references(const prob_t *p, long double *want, void *native)
{
    const tcase_t *c = &p->c;
    void *an = malloc(p->na * p->es);
    if (!an) return 1;
    for (size_t i = 0; i < p->na; i++) {
        const double v = load(c->dbl, p->a0, i);
        store(c->dbl, an, i, isnan(v) ? 0.0 : v);
    }
    memcpy(native, p->b0, p->nb * p->es);
    if (c->m > 0 && c->n > 0 && c->alpha != 0.0) {
        reference_exact(p, want);
        const CBLAS_LAYOUT l = (CBLAS_LAYOUT)c->layout;
        const CBLAS_SIDE s = (CBLAS_SIDE)c->side;
        const CBLAS_UPLO u = (CBLAS_UPLO)c->uplo;
        const CBLAS_TRANSPOSE t = (CBLAS_TRANSPOSE)c->trans;
        const CBLAS_DIAG d = (CBLAS_DIAG)c->diag;
        if (c->dbl)
            cblas_dtrsm(l, s, u, t, d, c->m, c->n, c->alpha, (double *)an + c->offa, p->lda,
                        (double *)native + c->offb, p->ldb);
        else
            cblas_strsm(l, s, u, t, d, c->m, c->n, (float)c->alpha, (float *)an + c->offa, p->lda,
                        (float *)native + c->offb, p->ldb);
    } else {
        for (size_t i = 0; i < p->nb; i++) want[i] = 0.0L;
        for (size_t i = 0; i < p->nb; i++) store(c->dbl, native, i, 0.0);
    }
    free(an);
    return 0;
}

/* p->b against the exact solution and OpenBLAS's (the matrix), b0 (everything else, bit for
 * bit); p->a against a0. */
static int prob_check(const prob_t *p, const char *tag)
{
    const tcase_t *c = &p->c;
    long double *want = malloc(p->nb * sizeof *want);
    void *native = malloc(p->nb * p->es);
    if (!want || !native || references(p, want, native)) {
        free(want);
        free(native);
        fprintf(stderr, "FAIL %s: out of memory\n", tag);
        return 1;
    }
    const double eps = c->dbl ? DBL_EPSILON : FLT_EPSILON, unit = (p->ka + 1) * eps;
    int rc = 0;
    double worst = 0, worst_ob = 0;
    for (size_t i = 0; i < p->nb; i++) {
        const int in = i >= c->offb && (i - c->offb) % (size_t)p->ldb < (size_t)p->bcontig;
        if (!in) {
            if (memcmp((char *)p->b + i * p->es, (char *)p->b0 + i * p->es, p->es)) {
                if (!rc) fprintf(stderr, "FAIL %s: B[%zu] outside the matrix changed\n", tag, i);
                rc = 1;
            }
            continue;
        }
        const long double w = want[i];
        const double g = load(c->dbl, p->b, i), o = load(c->dbl, native, i);
        const double scale = unit * ((double)fabsl(w) + 1.0);
        const double err = (double)fabsl(g - w) / scale, ob = (double)fabsl(o - w) / scale;
        const double vs_ob = fabs(g - o) / scale;
        if (!(err <= 4.0) || !(vs_ob <= 4.0)) {
            if (!rc) fprintf(stderr, "FAIL %s: B[%zu] = %.17g, exact %.17Lg, OpenBLAS %.17g\n",
                             tag, i, g, w, o);
            rc = 1;
        }
        if (err > worst) worst = err;
        if (ob > worst_ob) worst_ob = ob;
        if (p->ka >= 100) {
            const double k1 = (p->ka + 1);
            if (err * k1 > g_big_ours) g_big_ours = err * k1;
            if (ob * k1 > g_big_openblas) g_big_openblas = ob * k1;
        }
    }
    if (memcmp(p->a, p->a0, p->na * p->es)) {
        fprintf(stderr, "FAIL %s: A changed\n", tag);
        rc = 1;
    }
    if (worst > g_worst_ours) g_worst_ours = worst;
    if (worst_ob > g_worst_openblas) g_worst_openblas = worst_ob;
    free(want);
    free(native);
    return rc;
}

/* ---- the two APIs ------------------------------------------------------------------------ */

static clhgemm_status_t call_host(clhgemm_handle_t h, const prob_t *p)
{
    const tcase_t *c = &p->c;
    if (c->dbl)
        return clhgemm_dtrsm(h, c->layout, c->side, c->uplo, c->trans, c->diag, c->m, c->n,
                             c->alpha, (const double *)p->a + c->offa, p->lda,
                             (double *)p->b + c->offb, p->ldb);
    return clhgemm_strsm(h, c->layout, c->side, c->uplo, c->trans, c->diag, c->m, c->n,
                         (float)c->alpha, (const float *)p->a + c->offa, p->lda,
                         (float *)p->b + c->offb, p->ldb);
}

static clhgemm_status_t call_cl(const prob_t *p, cl_mem A, size_t offa, cl_mem B, size_t offb,
                                cl_command_queue q, cl_event *ev)
{
    const tcase_t *c = &p->c;
    if (c->dbl)
        return clhgemm_dtrsm_cl(c->layout, c->side, c->uplo, c->trans, c->diag, c->m, c->n,
                                c->alpha, A, offa, p->lda, B, offb, p->ldb, q, ev);
    return clhgemm_strsm_cl(c->layout, c->side, c->uplo, c->trans, c->diag, c->m, c->n,
                            (float)c->alpha, A, offa, p->lda, B, offb, p->ldb, q, ev);
}

/* The run context: a handle (host) or a device (cl). */
typedef struct runner_s {
    clhgemm_handle_t h;
    tc_env_t *env;
    int ndev; /* devices the strips must use (0: any number) */
} runner_t;

static int run_cl(const runner_t *r, prob_t *p, const char *tag)
{
    cl_mem A = tc_buffer_from_host(r->env->ctx, p->a0, p->na * p->es);
    cl_mem B = tc_buffer_from_host(r->env->ctx, p->b0, p->nb * p->es);
    int rc = 1;
    if (A && B) {
        cl_event ev = NULL;
        const clhgemm_status_t st = call_cl(p, A, p->c.offa, B, p->c.offb, r->env->queue, &ev);
        const int erc = tc_event_contract(r->env->ctx, r->env->queue, st, ev, tag);
        if (erc >= 0 && !tc_read(r->env->queue, A, p->a, p->na * p->es) &&
            !tc_read(r->env->queue, B, p->b, p->nb * p->es))
            rc = erc | prob_check(p, tag);
    }
    if (A) clReleaseMemObject(A);
    if (B) clReleaseMemObject(B);
    return rc;
}

/* Under CLHGEMM_TRSM_STRIP=w (no device memory cap) a host call with work to do must have run
 * by strips (host/trsm_strips.c): ceil(rhs / w) of them, spread over min(devices, strips)
 * devices (they are taken slot by slot across the devices). Under CLHGEMM_FAULT_INJECT a call
 * may also have run whole on the CPU (every device lost before it: cpu_fraction 1, no strips),
 * or on fewer devices, some strips on the CPU (counted for main's TEST_TRSM_FAULT check). */
static int g_cpu_calls, g_one_dev_calls; /* fault runs: calls with CPU work; by strips on one device */

static int check_strips(const runner_t *r, const tcase_t *c, const clhgemm_call_info_t *info,
                        const char *tag)
{
    const char *v = getenv("CLHGEMM_TRSM_STRIP");
    const char *route = getenv("CLHGEMM_ROUTE");
    if (!v || !atoi(v) || (route && strcmp(route, "device")) || c->m == 0 || c->n == 0 ||
        c->alpha == 0.0)
        return 0;
    const long long rhs = c->side == CLHGEMM_LEFT ? c->n : c->m;
    const long long want = (rhs + atoi(v) - 1) / atoi(v);
    const int fault = getenv("CLHGEMM_FAULT_INJECT") != NULL;
    if (fault && info->cpu_fraction > 0) g_cpu_calls++;
    if (fault && info->cpu_fraction == 1.0 && info->tiles == 0) return 0; /* all on the CPU */
    const long long spread = r->ndev ? (want < r->ndev ? want : r->ndev) : 0;
    if (info->tiles == want &&
        (r->ndev ? info->devices_used == spread : info->devices_used >= (fault ? 0 : 1))) {
        g_strip_calls++;
        if (fault && want >= 2 && info->devices_used == 1 && info->cpu_fraction == 0)
            g_one_dev_calls++;
        return 0;
    }
    fprintf(stderr, "FAIL %s: %lld strips on %d devices, want %lld on %lld\n", tag, info->tiles,
            info->devices_used, want, spread);
    return 1;
}

/* TEST_TRSM_FAULT=memory: the library's stderr is captured from the handle's creation to
 * check_fault, which counts its out-of-memory and lost-device lines. */
static tc_capture_t g_err;
static int g_err_on;

/* TEST_TRSM_FAULT (with CLHGEMM_FAULT_INJECT on the strips): "cpu" -- some calls solved strips
 * or the whole call on the CPU (one device, lost); "device" -- none did, and some calls with
 * several strips ran them on one device (two devices, one lost: the other took over);
 * "memory" (kind=oom) -- a device ran out of memory on the strips (its line on stderr), none
 * was lost and no call did CPU work. */
static int check_fault(void)
{
    const char *f = getenv("TEST_TRSM_FAULT");
    if (!f) return 0;
    printf("fault: %d call(s) with CPU work, %d call(s) by strips on one device\n", g_cpu_calls,
           g_one_dev_calls);
    if (!strcmp(f, "memory")) {
        char *text = g_err_on ? tc_capture_end(&g_err) : NULL;
        g_err_on = 0;
        const int oom = text ? tc_count_lines(text, "clhgemm: device ", " out of memory in ", "trsm") : 0;
        const int lost = text ? tc_count_lines(text, "clhgemm: device ", " lost in ", NULL) : 0;
        free(text);
        printf("fault: %d out-of-memory line(s) of TRSM, %d lost device(s)\n", oom, lost);
        if (oom > 0 && lost == 0 && g_cpu_calls == 0) return 0;
    } else if (!strcmp(f, "cpu") ? g_cpu_calls > 0 : g_cpu_calls == 0 && g_one_dev_calls > 0) {
        return 0;
    }
    fprintf(stderr, "FAIL: TEST_TRSM_FAULT=%s not seen\n", f);
    return 1;
}

/* TEST_TRSM_BLOCKED=device (with CLHGEMM_VERBOSE=1, a device memory cap that A does not fit and
 * CLHGEMM_TRSM_PANEL=device): some calls took the blocked path with their diagonal blocks solved on
 * the devices by strips (host/trsm_entry.c's line for it), and every such call's result was checked
 * like any other. */
static int check_blocked(void)
{
    const char *b = getenv("TEST_TRSM_BLOCKED");
    if (!b) return 0;
    char *text = g_err_on ? tc_capture_end(&g_err) : NULL;
    g_err_on = 0;
    const int dev = text ? tc_count_lines(text, "clhgemm: trsm: blocked", "on the devices", NULL) : 0;
    const int here = text ? tc_count_lines(text, "clhgemm: trsm: blocked", "on this thread", NULL) : 0;
    free(text);
    printf("blocked: %d call(s) with the diagonal blocks on the devices, %d on this thread\n", dev, here);
    if (!strcmp(b, "device") && dev > 0) return 0;
    fprintf(stderr, "FAIL: TEST_TRSM_BLOCKED=%s not seen\n", b);
    return 1;
}

static int run_case(const runner_t *r, const tcase_t *c, tc_rng_t *rng)
{
    char tag[320];
    describe(c, r->h ? "host" : "cl", tag, sizeof tag);
    prob_t p;
    if (prob_init(&p, c, rng)) {
        fprintf(stderr, "FAIL %s: setup\n", tag);
        prob_free(&p);
        return 1;
    }
    int rc;
    if (r->h) {
        const clhgemm_status_t st = call_host(r->h, &p);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "FAIL %s: status %s\n", tag, clhgemm_status_string(st));
            rc = 1;
        } else {
            rc = prob_check(&p, tag);
        }
        clhgemm_call_info_t info;
        if (clhgemm_last_call_info(r->h, &info) == CLHGEMM_SUCCESS && info.tiles > g_max_tiles)
            g_max_tiles = info.tiles;
        rc |= check_strips(r, c, &info, tag);
    } else {
        rc = run_cl(r, &p, tag);
    }
    prob_free(&p);
    return rc;
}

/* ---- the table --------------------------------------------------------------------------- */

static const clhgemm_layout_t LAYOUTS[2] = {CLHGEMM_COL_MAJOR, CLHGEMM_ROW_MAJOR};
static const clhgemm_side_t SIDES[2] = {CLHGEMM_LEFT, CLHGEMM_RIGHT};
static const clhgemm_uplo_t UPLOS[2] = {CLHGEMM_UPPER, CLHGEMM_LOWER};
static const clhgemm_transpose_t TRANS[3] = {CLHGEMM_NO_TRANS, CLHGEMM_TRANS, CLHGEMM_CONJ_TRANS};
static const clhgemm_diag_t DIAGS[2] = {CLHGEMM_NON_UNIT, CLHGEMM_UNIT};
static const int SIZES[][2] = {{1, 1}, {1, 7}, {7, 1}, {7, 33}, {33, 7}, {33, 100}, {100, 33},
                               {100, 100}, {100, 1}, {1, 100}};
static const double ALPHAS[3] = {-1.5, 1.0, 0.25};

static void table(const runner_t *r, int dbl, tc_rng_t *rng)
{
    int v = 0;
    for (int li = 0; li < 2; li++)
        for (int si = 0; si < 2; si++)
            for (int ui = 0; ui < 2; ui++)
                for (int ti = 0; ti < 3; ti++)
                    for (int di = 0; di < 2; di++) {
                        tcase_t c = {dbl, LAYOUTS[li], SIDES[si], UPLOS[ui], TRANS[ti], DIAGS[di],
                                     0, 0, 0, 0, 0, 0};
                        for (size_t z = 0; z < sizeof SIZES / sizeof SIZES[0]; z++, v++) {
                            c.m = SIZES[z][0];
                            c.n = SIZES[z][1];
                            c.alpha = ALPHAS[v % 3];
                            c.pad = (v / 3) % 2 ? 3 : 0;
                            c.offa = r->h ? 0 : (size_t)((v / 2) % 2) * 5;
                            c.offb = r->h ? 0 : (size_t)((v / 2) % 2) * 3;
                            tc_tally(run_case(r, &c, rng));
                        }
                        /* alpha = 0 on a B of NaN: B := 0, A and B not read */
                        c.m = 33;
                        c.n = 7;
                        c.alpha = 0.0;
                        tc_tally(run_case(r, &c, rng));
                    }
}

/* Wide and tall B: each update is ka/nb-blocks of a 1500-long GEMM. */
static void wide(const runner_t *r, int dbl, tc_rng_t *rng)
{
    for (int si = 0; si < 2; si++)
        for (int ui = 0; ui < 2; ui++) {
            const int left = SIDES[si] == CLHGEMM_LEFT;
            tcase_t c = {dbl, LAYOUTS[ui], SIDES[si], UPLOS[ui], TRANS[si + ui], DIAGS[ui],
                         left ? 100 : 1500, left ? 1500 : 100, -1.5, 1, 0, 0};
            tc_tally(run_case(r, &c, rng));
        }
}

/* Larger systems under the device's diagonal block (CLHGEMM_TRSM_NB unset: the tuning entry's
 * trsm_nb, PoCL's shipped 128, ka = 600 is blocks of 128 and 88; CLHGEMM_TUNING=off: the
 * built-in 512, blocks of 512 and 88), B 600 x 300 (left) or 300 x 600 (right). */
static void big(const runner_t *r, int dbl, tc_rng_t *rng)
{
    int v = 0;
    for (int li = 0; li < 2; li++)
        for (int si = 0; si < 2; si++)
            for (int ui = 0; ui < 2; ui++)
                for (int ti = 0; ti < 2; ti++, v++) {
                    const int left = SIDES[si] == CLHGEMM_LEFT;
                    tcase_t c = {dbl, LAYOUTS[li], SIDES[si], UPLOS[ui], TRANS[ti], DIAGS[v % 2],
                                 left ? 600 : 300, left ? 300 : 600, ALPHAS[v % 3], v % 2 ? 5 : 0,
                                 0, 0};
                    c.offa = r->h ? 0 : (size_t)(v % 3);
                    c.offb = r->h ? 0 : (size_t)(v % 4);
                    tc_tally(run_case(r, &c, rng));
                }
}

/* ---- invalid arguments ------------------------------------------------------------------- */

/* One argument set for either API. */
typedef struct acall_s {
    int layout, side, uplo, trans, diag, m, n, lda, ldb;
    double alpha;
    int null_a, null_b, null_h;
    /* cl */
    cl_mem A, B;
    size_t offa, offb;
    cl_command_queue q;
} acall_t;

typedef struct actx_s {
    clhgemm_handle_t h;
    tc_env_t *env;
    prob_t *p;
    int dbl;
} actx_t;

static clhgemm_status_t acall_host(const actx_t *x, const acall_t *a)
{
    prob_t *p = x->p;
    const void *A = a->null_a ? NULL : p->a;
    void *B = a->null_b ? NULL : p->b;
    clhgemm_handle_t h = a->null_h ? NULL : x->h;
    memcpy(p->b, p->b0, p->nb * p->es);
    if (x->dbl)
        return clhgemm_dtrsm(h, a->layout, a->side, a->uplo, a->trans, a->diag, a->m, a->n,
                             a->alpha, (const double *)A, a->lda, (double *)B, a->ldb);
    return clhgemm_strsm(h, a->layout, a->side, a->uplo, a->trans, a->diag, a->m, a->n,
                         (float)a->alpha, (const float *)A, a->lda, (float *)B, a->ldb);
}

static clhgemm_status_t acall_cl(const actx_t *x, const acall_t *a, cl_event *ev)
{
    if (x->dbl)
        return clhgemm_dtrsm_cl(a->layout, a->side, a->uplo, a->trans, a->diag, a->m, a->n,
                                a->alpha, a->A, a->offa, a->lda, a->B, a->offb, a->ldb, a->q, ev);
    return clhgemm_strsm_cl(a->layout, a->side, a->uplo, a->trans, a->diag, a->m, a->n,
                            (float)a->alpha, a->A, a->offa, a->lda, a->B, a->offb, a->ldb, a->q,
                            ev);
}

/* Calls with a (on the host API, or the cl one when x->env); on a rejection B must be
 * bit-identical and no event returned. */
static void expect(const actx_t *x, const acall_t *a, cl_mem Bbuf, clhgemm_status_t want,
                   const char *what)
{
    prob_t *p = x->p;
    clhgemm_status_t st;
    cl_event ev = NULL;
    int rc = 0;
    if (x->env) {
        if (tc_write(x->env->queue, Bbuf, p->b0, p->nb * p->es)) rc = 1;
        st = acall_cl(x, a, &ev);
        if (ev) {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
            if (st != CLHGEMM_SUCCESS) {
                fprintf(stderr, "FAIL cl args [%s]: an event after a rejected call\n", what);
                rc = 1;
            }
        }
        if (tc_read(x->env->queue, Bbuf, p->b, p->nb * p->es)) rc = 1;
    } else {
        st = acall_host(x, a);
    }
    if (st != want) {
        fprintf(stderr, "FAIL %s %ctrsm args [%s]: status %s (%d), want %s (%d)\n",
                x->env ? "cl" : "host", x->dbl ? 'd' : 's', what, clhgemm_status_string(st),
                (int)st, clhgemm_status_string(want), (int)want);
        rc = 1;
    }
    if (st != CLHGEMM_SUCCESS && memcmp(p->b, p->b0, p->nb * p->es)) {
        fprintf(stderr, "FAIL %s %ctrsm args [%s]: a rejected call wrote B\n",
                x->env ? "cl" : "host", x->dbl ? 'd' : 's', what);
        rc = 1;
    }
    tc_tally(rc);
}

#define EXPECT_STATUS(mod, want, what)                                                          \
    do {                                                                                        \
        acall_t a_ = base;                                                                      \
        acall_t *a = &a_;                                                                       \
        mod;                                                                                    \
        expect(x, a, Bbuf, want, what);                                                         \
    } while (0)

/* The checks both APIs share (BLAS order: layout, side, uplo, transA, diag, m, n, lda, ldb). */
static void shape_args(const actx_t *x, const acall_t base, cl_mem Bbuf, int ka, int bcontig)
{
    EXPECT_STATUS((void)a, CLHGEMM_SUCCESS, "valid");
    static const int bad[] = {0, 100, 103, 110, 114, 120, 123, 130, 133, 140, 143};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT_STATUS(a->layout = bad[i], CLHGEMM_INVALID_LAYOUT, "bad layout");
        EXPECT_STATUS(a->side = bad[i], CLHGEMM_INVALID_SIDE, "bad side");
        EXPECT_STATUS(a->uplo = bad[i], CLHGEMM_INVALID_UPLO, "bad uplo");
        EXPECT_STATUS(a->trans = bad[i], CLHGEMM_INVALID_TRANS_A, "bad transA");
        EXPECT_STATUS(a->diag = bad[i], CLHGEMM_INVALID_DIAG, "bad diag");
    }
    EXPECT_STATUS((a->layout = 0, a->side = 0), CLHGEMM_INVALID_LAYOUT,
                  "precedence: layout before side");
    EXPECT_STATUS((a->side = 0, a->uplo = 0), CLHGEMM_INVALID_SIDE, "precedence: side before uplo");
    EXPECT_STATUS((a->uplo = 0, a->trans = 0), CLHGEMM_INVALID_UPLO,
                  "precedence: uplo before transA");
    EXPECT_STATUS((a->trans = 0, a->diag = 0), CLHGEMM_INVALID_TRANS_A,
                  "precedence: transA before diag");
    EXPECT_STATUS((a->diag = 0, a->m = -1), CLHGEMM_INVALID_DIAG, "precedence: diag before m");
    EXPECT_STATUS(a->m = -1, CLHGEMM_INVALID_M, "m = -1");
    EXPECT_STATUS(a->n = -1, CLHGEMM_INVALID_N, "n = -1");
    EXPECT_STATUS((a->m = -1, a->n = -1), CLHGEMM_INVALID_M, "precedence: m before n");
    EXPECT_STATUS((a->n = -1, a->lda = 0), CLHGEMM_INVALID_N, "precedence: n before lda");
    EXPECT_STATUS(a->lda = ka - 1, CLHGEMM_INVALID_LDA, "lda = ka - 1");
    EXPECT_STATUS(a->lda = 0, CLHGEMM_INVALID_LDA, "lda = 0");
    EXPECT_STATUS(a->ldb = bcontig - 1, CLHGEMM_INVALID_LDB, "ldb = rows as stored - 1");
    EXPECT_STATUS((a->lda = 0, a->ldb = 0), CLHGEMM_INVALID_LDA, "precedence: lda before ldb");
    EXPECT_STATUS((a->lda = 0, a->null_a = 1, a->A = NULL), CLHGEMM_INVALID_LDA,
                  "precedence: lda before A");
    EXPECT_STATUS((a->m = 0, a->n = 0, a->lda = 0), CLHGEMM_INVALID_LDA, "empty, lda = 0");
    EXPECT_STATUS((a->m = 0, a->n = 0, a->lda = 1, a->ldb = 1), CLHGEMM_SUCCESS, "empty, ld 1");
    /* NULL operands: A read when alpha != 0, B written when m, n > 0 */
    EXPECT_STATUS((a->null_a = 1, a->A = NULL), CLHGEMM_NULL_BUFFER_A, "A NULL");
    EXPECT_STATUS((a->null_a = 1, a->A = NULL, a->null_b = 1, a->B = NULL), CLHGEMM_NULL_BUFFER_A,
                  "precedence: A before B");
    EXPECT_STATUS((a->null_b = 1, a->B = NULL), CLHGEMM_NULL_BUFFER_B, "B NULL");
    EXPECT_STATUS((a->alpha = 0.0, a->null_a = 1, a->A = NULL), CLHGEMM_SUCCESS,
                  "alpha = 0, A NULL");
    EXPECT_STATUS((a->alpha = 0.0, a->null_b = 1, a->B = NULL), CLHGEMM_NULL_BUFFER_B,
                  "alpha = 0, B NULL");
    EXPECT_STATUS((a->n = 0, a->null_a = 1, a->A = NULL, a->null_b = 1, a->B = NULL),
                  CLHGEMM_SUCCESS,
                  "n = 0, A and B NULL");
    EXPECT_STATUS((a->m = 0, a->null_a = 1, a->A = NULL, a->null_b = 1, a->B = NULL),
                  CLHGEMM_SUCCESS,
                  "m = 0, A and B NULL");
}

/* The device version's own: queue, buffer sizes, contexts. */
static void cl_args(const actx_t *x, const acall_t base, cl_mem Bbuf, cl_mem As, cl_mem Bs,
                    cl_mem A2)
{
    EXPECT_STATUS(a->q = NULL, CLHGEMM_INVALID_QUEUE, "queue NULL");
    EXPECT_STATUS((a->q = NULL, a->A = NULL), CLHGEMM_INVALID_QUEUE, "precedence: queue before A");
    EXPECT_STATUS((a->q = NULL, a->lda = 0), CLHGEMM_INVALID_LDA, "precedence: lda before queue");
    EXPECT_STATUS(a->A = As, CLHGEMM_INSUFFICIENT_BUFFER_A, "A one element short");
    EXPECT_STATUS(a->offa = 1, CLHGEMM_INSUFFICIENT_BUFFER_A, "A exact, offA = 1");
    EXPECT_STATUS(a->offa = SIZE_MAX - 2, CLHGEMM_INSUFFICIENT_BUFFER_A, "offA near SIZE_MAX");
    EXPECT_STATUS(a->lda = INT_MAX, CLHGEMM_INSUFFICIENT_BUFFER_A, "lda = INT_MAX");
    EXPECT_STATUS(a->A = A2, CLHGEMM_CONTEXT_MISMATCH, "A from another context");
    EXPECT_STATUS((a->A = As, a->B = Bs), CLHGEMM_INSUFFICIENT_BUFFER_A,
                  "precedence: A size before B");
    EXPECT_STATUS(a->B = Bs, CLHGEMM_INSUFFICIENT_BUFFER_B, "B one element short");
    EXPECT_STATUS(a->offb = 1, CLHGEMM_INSUFFICIENT_BUFFER_B, "B exact, offB = 1");
    EXPECT_STATUS((a->alpha = 0.0, a->A = As), CLHGEMM_SUCCESS, "alpha = 0, A short (not read)");
    EXPECT_STATUS((a->alpha = 0.0, a->B = Bs), CLHGEMM_INSUFFICIENT_BUFFER_B, "alpha = 0, B short");
}

static int args_one(clhgemm_handle_t h, tc_env_t *env, cl_context ctx2, int dbl,
                    clhgemm_layout_t layout, clhgemm_side_t side, tc_rng_t *rng)
{
    const tcase_t c = {dbl, layout, side, CLHGEMM_LOWER, CLHGEMM_TRANS, CLHGEMM_NON_UNIT,
                       5, 4, -1.5, 0, 0, 0};
    prob_t p;
    if (prob_init(&p, &c, rng)) return 1;
    const actx_t xc = {h, env, &p, dbl};
    const actx_t *x = &xc;
    acall_t base = {layout, side, c.uplo, c.trans, c.diag, c.m, c.n, p.lda, p.ldb, c.alpha,
                    0, 0, 0, NULL, NULL, 0, 0, NULL};
    cl_mem Bbuf = NULL;
    if (!env) {
        shape_args(x, base, NULL, p.ka, p.bcontig);
        EXPECT_STATUS(a->null_h = 1, CLHGEMM_NULL_HANDLE, "handle NULL");
        EXPECT_STATUS((a->null_h = 1, a->layout = 0), CLHGEMM_NULL_HANDLE,
                      "precedence: handle first");
        prob_free(&p);
        return 0;
    }
    cl_mem A = tc_buffer_from_host(env->ctx, p.a0, p.na * p.es);
    Bbuf = tc_buffer_from_host(env->ctx, p.b0, p.nb * p.es);
    cl_mem As = tc_buffer_from_host(env->ctx, p.a0, (p.na - 1) * p.es);
    cl_mem Bs = tc_buffer_from_host(env->ctx, p.b0, (p.nb - 1) * p.es);
    cl_mem A2 = tc_buffer_from_host(ctx2, p.a0, p.na * p.es);
    int rc = !(A && Bbuf && As && Bs && A2);
    if (!rc) {
        base.A = A;
        base.B = Bbuf;
        base.q = env->queue;
        shape_args(x, base, Bbuf, p.ka, p.bcontig);
        cl_args(x, base, Bbuf, As, Bs, A2);
    }
    cl_mem all[] = {A, Bbuf, As, Bs, A2};
    for (int i = 0; i < 5; i++)
        if (all[i]) clReleaseMemObject(all[i]);
    prob_free(&p);
    return rc;
}

/* ---- main -------------------------------------------------------------------------------- */

static int mode_args(tc_rng_t *rng)
{
    clhgemm_handle_t h = NULL;
    clhgemm_status_t st = clhgemm_create(&h, NULL);
    if (st == CLHGEMM_NO_DEVICE) return TC_SKIP;
    if (st != CLHGEMM_SUCCESS) return 1;
    tc_env_t env;
    int rc = tc_open(&env);
    if (rc) {
        clhgemm_destroy(h);
        return rc;
    }
    cl_int err;
    cl_context ctx2 = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
    for (int d = 0; d < 1 + env.has_fp64 && ctx2; d++)
        for (int l = 0; l < 2; l++)
            for (int s = 0; s < 2; s++) {
                tc_tally(args_one(h, NULL, NULL, d, LAYOUTS[l], SIDES[s], rng));
                tc_tally(args_one(NULL, &env, ctx2, d, LAYOUTS[l], SIDES[s], rng));
            }
    if (!ctx2) tc_tally(1);
    else clReleaseContext(ctx2);
    tc_close(&env);
    clhgemm_destroy(h);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: test_trsm host|cl s|d [big] | args\n");
    return 2;
}

int main(int argc, char **argv)
{
    {
        const int skip = tc_require_feature();
        if (skip) return skip;
    }
    if (argc < 2) return usage();
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x7125EULL + (uint64_t)argv[1][0] * 31 + (argc > 2 ? (uint64_t)argv[2][0] : 0));
    printf("CLHGEMM_TRSM_NB=%s, CLHGEMM_DEVICE_MEMORY_LIMIT=%s, CLHGEMM_TRSM_PANEL=%s\n",
           getenv("CLHGEMM_TRSM_NB") ? getenv("CLHGEMM_TRSM_NB") : "(unset)",
           getenv("CLHGEMM_DEVICE_MEMORY_LIMIT") ? getenv("CLHGEMM_DEVICE_MEMORY_LIMIT") : "(unset)",
           getenv("CLHGEMM_TRSM_PANEL") ? getenv("CLHGEMM_TRSM_PANEL") : "(unset)");
    if (!strcmp(argv[1], "host") && getenv("CLHGEMM_DEVICE_MEMORY_LIMIT"))
        tc_small_tiles_on_gpu("the device memory cap cuts A into blocks and B into strips");
    int rc = 0;
    if (!strcmp(argv[1], "args")) {
        rc = mode_args(&rng);
    } else if ((!strcmp(argv[1], "host") || !strcmp(argv[1], "cl")) && argc > 2 &&
               (!strcmp(argv[2], "s") || !strcmp(argv[2], "d"))) {
        const int dbl = argv[2][0] == 'd';
        tc_env_t env;
        rc = tc_open(&env);
        if (rc) return rc;
        if (dbl && !env.has_fp64) {
            printf("SKIP: no fp64\n");
            tc_close(&env);
            return TC_SKIP;
        }
        runner_t r = {NULL, NULL, 0};
        if (!strcmp(argv[1], "host")) {
            if ((getenv("TEST_TRSM_FAULT") && !strcmp(getenv("TEST_TRSM_FAULT"), "memory")) ||
                getenv("TEST_TRSM_BLOCKED")) {
                tc_capture_begin(&g_err);
                g_err_on = 1;
            }
            clhgemm_status_t st = clhgemm_create(&r.h, NULL);
            if (st != CLHGEMM_SUCCESS) {
                fprintf(stderr, "FAIL: clhgemm_create -> %s\n", clhgemm_status_string(st));
                tc_close(&env);
                return 1;
            }
            /* the devices the strips must spread over: TEST_TRSM_DEVICES (the multi-device
             * test sets it), else at least one */
            r.ndev = getenv("TEST_TRSM_DEVICES") ? atoi(getenv("TEST_TRSM_DEVICES")) : 0;
        } else {
            r.env = &env;
        }
        if (argc > 3 && !strcmp(argv[3], "big")) {
            big(&r, dbl, &rng);
        } else {
            table(&r, dbl, &rng);
            wide(&r, dbl, &rng);
        }
        if (r.h) {
            /* under a small device memory limit the updates must have been tiled */
            const char *route = getenv("CLHGEMM_ROUTE");
            printf("most tiles of one update: %lld; calls checked to run by strips: %d\n",
                   g_max_tiles, g_strip_calls);
            tc_tally(check_fault());
            tc_tally(check_blocked());
            if (getenv("CLHGEMM_DEVICE_MEMORY_LIMIT") && !(route && !strcmp(route, "cpu")) && argc < 4 &&
                g_max_tiles < 2) {
                fprintf(stderr, "FAIL: no update ran over more than one tile\n");
                tc_tally(1);
            }
            clhgemm_destroy(r.h);
        }
        tc_close(&env);
    } else {
        return usage();
    }
    printf("worst error (units of (ka+1)*eps*(|x|+1)): clhgemm %.3f, OpenBLAS %.3f\n", g_worst_ours,
           g_worst_openblas);
    printf("worst error at ka >= 100 (units of eps*(|x|+1)): clhgemm %.3f, OpenBLAS %.3f\n",
           g_big_ours, g_big_openblas);
    printf("%d cases, %d failed\n", tc_checks(), tc_failures());
    return rc ? rc : tc_failures() ? 1 : 0;
}
