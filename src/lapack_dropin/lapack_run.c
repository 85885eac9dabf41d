/*
 * lapack_run.c -- the LAPACK drop-in's state and dispatch (lapack_run.h).
 *
 * Where a call goes: CLHGEMM_LAPACK_OFFLOAD=never, a fork() child, a call with nothing to do
 * (LAPACK's quick returns) or, under auto, one below AUTO_MIN_FLOPS -> the CPU LAPACK, with no
 * handle made; otherwise the process-wide handle (made at the first such call). Under auto the
 * library's own routing decides (lapack/fact_route.h: its model for the factorizations, which
 * keeps every call on the CPU LAPACK where the devices are CPUs themselves, as with PoCL; the
 * fixed route for potrs and getrs, whose triangular solves route themselves), and ormqr and
 * orgqr stay on the CPU LAPACK, for which the library has no device path yet. Under always the
 * handle routes every call to the devices (CLHGEMM_ROUTE=device), ormqr and orgqr included.
 *
 * What a failure costs: the library's factorizations write A only once a panel is final and
 * finish on the CPU by themselves after a device failure (lapack/fact_rescue.h), so a status
 * they return means A as it was. The other routines may have written their output before they
 * fail, so that output is copied first: B for potrs and getrs, C for ormqr, A for orgqr, A and B
 * for gels. posv and gesv are LAPACK's own two steps (the factorization, then the solve with B
 * copied), so that a failed solve restarts from the finished factors, not from A.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "lapack_dropin/lapack_run.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "clhgemm.h"
#include "cpu/blas_dlopen.h"
#include "cpu/lapack_link.h"
#include "host/dropin_session.h"
#include "host/handle.h"
#include "host/route.h"
#include "host/staging.h"
#include "lapack/fact_route.h"

/* Below this many flops (LAPACK's counts) a call goes to the CPU LAPACK without asking the
 * library (and without creating the handle), as the BLAS drop-in does: a Cholesky of n < 670,
 * an LU of n < 530. */
#define AUTO_MIN_FLOPS 1e8

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static atomic_long g_calls[LA_COUNT][2], g_offloaded[LA_COUNT][2];

static const char *const g_names[LA_COUNT] = {"potrf", "potrs", "posv",  "getrf", "getrs",
                                              "gesv",  "geqrf", "ormqr", "orgqr", "gels"};

static void name_of(const chg_la_call_t *c, char *out, size_t size)
{
    snprintf(out, size, "%c%s", c->dbl ? 'd' : 's', g_names[c->routine]);
}

static void print_stats(void)
{
    long calls = 0, off = 0;
    for (int r = 0; r < LA_COUNT; r++)
        for (int p = 0; p < 2; p++) {
            calls += atomic_load(&g_calls[r][p]);
            off += atomic_load(&g_offloaded[r][p]);
        }
    fprintf(stderr, "clhgemm-lapack: %ld calls, %ld offloaded, %ld on the CPU\n", calls, off,
            calls - off);
    for (int r = 0; r < LA_COUNT; r++)
        for (int p = 0; p < 2; p++) {
            const long c = atomic_load(&g_calls[r][p]), o = atomic_load(&g_offloaded[r][p]);
            if (c)
                fprintf(stderr, "clhgemm-lapack:   %c%-5s %ld calls, %ld offloaded, %ld on the CPU\n",
                        p ? 'd' : 's', g_names[r], c, o, c - o);
        }
}

static void init(void)
{
    /* under always its handle's routing is set to the devices; under auto it keeps the
     * library's */
    static const chg_dropin_conf_t conf = {.tag = "clhgemm-lapack", .cpu_what = "CPU LAPACK",
                                           .calls = "call", .mode_var = "CLHGEMM_LAPACK_OFFLOAD",
                                           .stats_var = "CLHGEMM_LAPACK_STATS",
                                           .print_stats = print_stats, .device_route = 0};
    chg_dropin_init(&conf);
}

/* ---- the CPU LAPACK ---------------------------------------------------------------------- */

/* The routine's s or d member of the table (every pointer argument passes as void *). */
#define LAPACK(t, dbl, name, ...) ((dbl) ? (t)->d##name(__VA_ARGS__) : (t)->s##name(__VA_ARGS__))

void chg_la_cpu(const chg_la_call_t *c)
{
    const chg_lapack_t *t = chg_lapack();
    const char *missing = NULL;
    if (!chg_lapack_ok(&missing)) {
        if (chg_cpu_lib_ok())
            fprintf(stderr, "clhgemm-lapack: %s is missing from the CPU LAPACK %s\n", missing,
                    chg_cpu_lib_name());
        else
            fprintf(stderr,
                    "clhgemm-lapack: no CPU LAPACK could be loaded (%s); set CLHGEMM_LAPACK_CPU_LIB "
                    "to one (a libopenblas.so.0 or reference liblapack.so.3)\n",
                    chg_cpu_lib_error());
        fflush(stderr);
        abort();
    }
    const int d = c->dbl;
    switch (c->routine) {
    case LA_POTRF: LAPACK(t, d, potrf, &c->uplo, &c->n, c->a, &c->lda, c->info, 1); break;
    case LA_POTRS:
        LAPACK(t, d, potrs, &c->uplo, &c->n, &c->nrhs, c->a, &c->lda, c->b, &c->ldb, c->info, 1);
        break;
    case LA_POSV:
        LAPACK(t, d, posv, &c->uplo, &c->n, &c->nrhs, c->a, &c->lda, c->b, &c->ldb, c->info, 1);
        break;
    case LA_GETRF: LAPACK(t, d, getrf, &c->m, &c->n, c->a, &c->lda, c->ipiv, c->info); break;
    case LA_GETRS:
        LAPACK(t, d, getrs, &c->trans, &c->n, &c->nrhs, c->a, &c->lda, c->ipiv, c->b, &c->ldb,
               c->info, 1);
        break;
    case LA_GESV:
        LAPACK(t, d, gesv, &c->n, &c->nrhs, c->a, &c->lda, c->ipiv, c->b, &c->ldb, c->info);
        break;
    case LA_GEQRF:
        LAPACK(t, d, geqrf, &c->m, &c->n, c->a, &c->lda, c->tau, c->work, &c->lwork, c->info);
        break;
    case LA_ORMQR:
        LAPACK(t, d, ormqr, &c->side, &c->trans, &c->m, &c->n, &c->k, c->a, &c->lda, c->tau, c->b,
               &c->ldb, c->work, &c->lwork, c->info, 1, 1);
        break;
    case LA_ORGQR:
        LAPACK(t, d, orgqr, &c->m, &c->n, &c->k, c->a, &c->lda, c->tau, c->work, &c->lwork,
               c->info);
        break;
    default: /* gels */
        LAPACK(t, d, gels, &c->trans, &c->m, &c->n, &c->nrhs, c->a, &c->lda, c->b, &c->ldb,
               c->work, &c->lwork, c->info, 1);
        break;
    }
}

/* ---- the library on the devices ---------------------------------------------------------- */

static clhgemm_uplo_t ul(char u) { return u == 'U' ? CLHGEMM_UPPER : CLHGEMM_LOWER; }
/* 'C' is 'T' for real matrices, as in LAPACK */
static clhgemm_transpose_t tr(char t) { return t == 'N' ? CLHGEMM_NO_TRANS : CLHGEMM_TRANS; }
static clhgemm_side_t sd(char s) { return s == 'L' ? CLHGEMM_LEFT : CLHGEMM_RIGHT; }

#define CLH(dbl, name, ...) ((dbl) ? clhgemm_d##name(__VA_ARGS__) : clhgemm_s##name(__VA_ARGS__))

/* The call through the library's host API (column-major: the Fortran view as it is). posv and
 * gesv are never passed here (factor_solve). */
static clhgemm_status_t lib_call(clhgemm_handle_t h, const chg_la_call_t *c)
{
    const clhgemm_layout_t L = CLHGEMM_COL_MAJOR;
    const int d = c->dbl;
    clhgemm_status_t st;
    switch (c->routine) {
    case LA_POTRF: return CLH(d, potrf, h, L, ul(c->uplo), c->n, c->a, c->lda, c->info);
    case LA_GETRF: return CLH(d, getrf, h, L, c->m, c->n, c->a, c->lda, c->ipiv, c->info);
    case LA_GEQRF: st = CLH(d, geqrf, h, L, c->m, c->n, c->a, c->lda, c->tau); break;
    case LA_POTRS:
        st = CLH(d, potrs, h, L, ul(c->uplo), c->n, c->nrhs, c->a, c->lda, c->b, c->ldb);
        break;
    case LA_GETRS:
        st = CLH(d, getrs, h, L, tr(c->trans), c->n, c->nrhs, c->a, c->lda, c->ipiv, c->b, c->ldb);
        break;
    case LA_ORMQR:
        st = CLH(d, ormqr, h, L, sd(c->side), tr(c->trans), c->m, c->n, c->k, c->a, c->lda, c->tau,
                 c->b, c->ldb);
        break;
    case LA_ORGQR: st = CLH(d, orgqr, h, L, c->m, c->n, c->k, c->a, c->lda, c->tau); break;
    case LA_GELS:
        return CLH(d, gels, h, L, tr(c->trans), c->m, c->n, c->nrhs, c->a, c->lda, c->b, c->ldb,
                   c->info);
    default: return CLHGEMM_INTERNAL_ERROR;
    }
    if (st == CLHGEMM_SUCCESS) *c->info = 0;
    return st;
}

/* A copy of a rows x cols block (leading dimension ld) made by the handle's pack threads. */
typedef struct la_copy_s {
    char *p;
    size_t rows, cols, es;
} la_copy_t;

/* 0, or -1 when there is no memory for it (nothing to free then). */
static int copy_take(la_copy_t *s, clhgemm_handle_t h, const void *x, int ld, int rows, int cols,
                     int dbl)
{
    *s = (la_copy_t){.rows = (size_t)rows, .cols = (size_t)cols, .es = dbl ? 8 : 4};
    size_t bytes;
    if (__builtin_mul_overflow(s->rows, s->cols, &bytes) ||
        __builtin_mul_overflow(bytes, s->es, &bytes))
        return -1;
    s->p = malloc(bytes + 1);
    if (!s->p) return -1;
    chg_copy2d(h->pool, 0, s->p, s->rows, x, (size_t)ld, s->rows, s->cols, s->es, NULL,
               "lapack copy");
    return 0;
}

static void copy_back(const la_copy_t *s, clhgemm_handle_t h, void *x, int ld)
{
    chg_copy2d(h->pool, 0, x, (size_t)ld, s->p, s->rows, s->rows, s->cols, s->es, NULL,
               "lapack copy back");
}

/* LAPACK's WORK(1) on success (the optimal lwork) after a call the library ran without the
 * caller's workspace: the CPU LAPACK's own answer to the query. */
static void set_work(const chg_la_call_t *c)
{
    if (!c->work || *c->info != 0) return;
    union {
        double d;
        float f;
    } w = {0};
    int info = 0;
    chg_la_call_t q = *c;
    q.work = &w;
    q.lwork = -1;
    q.info = &info;
    chg_la_cpu(&q);
    if (info == 0) memcpy(c->work, &w, c->dbl ? sizeof w.d : sizeof w.f);
}

static void warn_failed(const chg_la_call_t *c, clhgemm_status_t st)
{
    char what[64], name[8];
    name_of(c, name, sizeof name);
    snprintf(what, sizeof what, "%s on the devices failed", name);
    chg_dropin_warn_once(what, clhgemm_status_string(st), "the call, and any other that fails, runs");
}

/* One library call, what it may write copied first: 1 when it ran, 0 when the caller's data
 * is as it was (restored, or never written) and the CPU LAPACK must run the call. */
static int guarded(clhgemm_handle_t h, const chg_la_call_t *c)
{
    const int r = c->routine;
    const int copy_a = r == LA_ORGQR || r == LA_GELS;
    const int copy_b = r == LA_POTRS || r == LA_GETRS || r == LA_ORMQR || r == LA_GELS;
    const int b_rows = r == LA_GELS ? CHG_MAX(c->m, c->n) : r == LA_ORMQR ? c->m : c->n;
    const int b_cols = r == LA_ORMQR ? c->n : c->nrhs;
    la_copy_t ca = {0}, cb = {0};
    if (copy_a && copy_take(&ca, h, c->a, c->lda, c->m, c->n, c->dbl) != 0) return 0;
    if (copy_b && copy_take(&cb, h, c->b, c->ldb, b_rows, b_cols, c->dbl) != 0) {
        free(ca.p);
        return 0;
    }
    const clhgemm_status_t st = lib_call(h, c);
    if (st != CLHGEMM_SUCCESS) {
        warn_failed(c, st);
        if (copy_a) copy_back(&ca, h, c->a, c->lda);
        if (copy_b) copy_back(&cb, h, c->b, c->ldb);
    }
    free(ca.p);
    free(cb.p);
    if (st == CLHGEMM_SUCCESS) set_work(c);
    return st == CLHGEMM_SUCCESS;
}

/* posv, gesv: the factorization (0 when it failed: A as it was), then, unless it found A
 * singular or not positive definite, the solve; a failed solve runs on the CPU LAPACK with the
 * factors and B as it was. 1 when the call is done. */
static int factor_solve(clhgemm_handle_t h, const chg_la_call_t *c)
{
    const int posv = c->routine == LA_POSV;
    chg_la_call_t f = *c;
    f.routine = posv ? LA_POTRF : LA_GETRF;
    f.m = c->n;
    const clhgemm_status_t st = lib_call(h, &f);
    if (st != CLHGEMM_SUCCESS) {
        warn_failed(&f, st);
        return 0;
    }
    if (*c->info != 0 || c->nrhs == 0) return 1;
    chg_la_call_t s = *c;
    s.routine = posv ? LA_POTRS : LA_GETRS;
    s.trans = 'N';
    if (!guarded(h, &s)) chg_la_cpu(&s);
    return 1;
}

/* ---- the decision ------------------------------------------------------------------------ */

/* 1 when LAPACK has nothing to compute (its quick returns; gels then zeroes B): the CPU LAPACK
 * does exactly that. */
static int empty(const chg_la_call_t *c)
{
    switch (c->routine) {
    case LA_POTRF:
    case LA_POSV:
    case LA_GESV: return c->n == 0;
    case LA_POTRS:
    case LA_GETRS: return c->n == 0 || c->nrhs == 0;
    case LA_GETRF:
    case LA_GEQRF: return c->m == 0 || c->n == 0;
    case LA_ORMQR: return c->m == 0 || c->n == 0 || c->k == 0;
    case LA_ORGQR: return c->n == 0;
    default: return c->m == 0 || c->n == 0 || c->nrhs == 0;
    }
}

/* LAPACK's operation counts, near enough for a threshold. */
static double flops(const chg_la_call_t *c)
{
    const double m = c->m, n = c->n, k = c->k, r = c->nrhs;
    const double p = CHG_MAX(m, n), q = CHG_MIN(m, n);
    switch (c->routine) {
    case LA_POTRF: return n * n * n / 3;
    case LA_POSV: return n * n * n / 3 + 2 * n * n * r;
    case LA_POTRS:
    case LA_GETRS: return 2 * n * n * r;
    case LA_GETRF: return p * q * q - q * q * q / 3;
    case LA_GESV: return 2 * n * n * n / 3 + 2 * n * n * r;
    case LA_GEQRF: return 2 * p * q * q - 2 * q * q * q / 3;
    case LA_ORMQR:
    case LA_ORGQR: return 4 * m * n * k;
    default: return 2 * p * q * q - 2 * q * q * q / 3 + 4 * p * q * r;
    }
}

/* Under auto: 1 when the library's routing keeps the call on the CPU LAPACK. */
static int route_cpu(clhgemm_handle_t h, const chg_la_call_t *c)
{
    chg_fact_call_t f = {.prec = c->dbl ? CHG_F64 : CHG_F32};
    const size_t m = (size_t)c->m, n = (size_t)c->n;
    switch (c->routine) {
    case LA_POTRF:
    case LA_POSV: f = (chg_fact_call_t){.kind = CHG_FACT_POTRF, .prec = f.prec, .m = n, .n = n}; break;
    case LA_GESV: f = (chg_fact_call_t){.kind = CHG_FACT_GETRF, .prec = f.prec, .m = n, .n = n}; break;
    case LA_GETRF: f = (chg_fact_call_t){.kind = CHG_FACT_GETRF, .prec = f.prec, .m = m, .n = n}; break;
    case LA_GEQRF: f = (chg_fact_call_t){.kind = CHG_FACT_GEQRF, .prec = f.prec, .m = m, .n = n}; break;
    case LA_GELS: /* the QR of A, or of A^T */
        f = (chg_fact_call_t){.kind = CHG_FACT_GEQRF, .prec = f.prec, .m = CHG_MAX(m, n),
                              .n = CHG_MIN(m, n)};
        break;
    case LA_POTRS:
    case LA_GETRS: {
        char name[8];
        name_of(c, name, sizeof name);
        return chg_fact_route_fixed_cpu(h, name);
    }
    default: return 1; /* ormqr, orgqr: no device path in the library yet */
    }
    return chg_fact_route_cpu(h, &f);
}

static clhgemm_handle_t offload_handle(const chg_la_call_t *c)
{
    if (chg_dropin_mode_ == CHG_OFF_NEVER || chg_dropin_child() || empty(c)) return NULL;
    if (chg_dropin_mode_ == CHG_OFF_AUTO && flops(c) < AUTO_MIN_FLOPS) return NULL;
    clhgemm_handle_t h = chg_dropin_handle();
    /* a handle whose devices were all lost (lapack/fact_rescue.h finished their calls) routes
     * everything to the CPU LAPACK itself: say so in the stats */
    if (!h || h->ndev == 0) return NULL;
    if (chg_dropin_mode_ == CHG_OFF_AUTO && route_cpu(h, c)) return NULL;
    return h;
}

void chg_la_run(const chg_la_call_t *c)
{
    pthread_once(&g_once, init);
    if (c->lwork == -1) { /* the workspace query: the CPU LAPACK's size, nothing computed */
        chg_la_cpu(c);
        return;
    }
    if (chg_dropin_stats_) atomic_fetch_add_explicit(&g_calls[c->routine][c->dbl], 1, memory_order_relaxed);
    clhgemm_handle_t h = offload_handle(c);
    if (h) {
        const int done = c->routine == LA_POSV || c->routine == LA_GESV ? factor_solve(h, c)
                                                                           : guarded(h, c);
        if (done) {
            if (chg_dropin_stats_) atomic_fetch_add(&g_offloaded[c->routine][c->dbl], 1);
            return;
        }
    }
    chg_la_cpu(c);
}

/* ---- errors ------------------------------------------------------------------------------ */

typedef void (*xerbla_f)(const char *, const int *, size_t);

void chg_la_xerbla(const char *name, int pos)
{
    xerbla_f f = (xerbla_f)dlsym(RTLD_DEFAULT, "xerbla_");
    if (f)
        f(name, &pos, strlen(name));
    else
        fprintf(stderr, " ** On entry to %s parameter number %d had an illegal value\n", name, pos);
}
