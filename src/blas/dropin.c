/*
 * dropin.c -- the BLAS drop-in's state and dispatch (dropin.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "blas/dropin.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clhgemm.h"
#include "cpu/route_calls.h"
#if defined(CLHGEMM_HAVE_OPENBLAS) && defined(CLHGEMM_CPU_DLOPEN)
#include "cpu/blas_table.h" /* the CPU BLAS's table (chg_blas_dgemm_, chg_blas_sgemm_) */
#define HAVE_CBLAS_TABLE 1
#endif
#include "cpu/blas_dlopen.h"
#include "cpu/share_blas.h"
#include "blas/snapshot.h"
#include "host/dropin_session.h"
#include "host/handle.h"
#include "host/route.h"

/* Below this many flops a call goes to the CPU BLAS without asking the model (and without
 * creating the handle): on the H100 machine OpenBLAS won every size up to n = 512 (2.7e8 flops). */
#define AUTO_MIN_FLOPS 1e8

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_cblas;                 /* the CPU BLAS has the CBLAS GEMMs (the small-GEMM route's) */
/* dropin.h's chg_blas_small_gemm: its state, set once by init (the pointers before the state,
 * released by it). */
atomic_int chg_blas_small_;
chg_blas_dgemm_fn chg_blas_dgemm_;
chg_blas_sgemm_fn chg_blas_sgemm_;
/* by routine and precision (s, d, c, z: chg_blas_pi) */
static atomic_long g_calls[BL_COUNT][4], g_offloaded[BL_COUNT][4];

static const char *const g_names[BL_COUNT][4] = {
    {"sgemm", "dgemm", "cgemm", "zgemm"},     {"ssymm", "dsymm", "csymm", "zsymm"},
    {"ssyrk", "dsyrk", "csyrk", "zsyrk"},     {"ssyr2k", "dsyr2k", "csyr2k", "zsyr2k"},
    {"strmm", "dtrmm", "ctrmm", "ztrmm"},     {"strsm", "dtrsm", "ctrsm", "ztrsm"},
    {NULL, NULL, "chemm", "zhemm"},           {NULL, NULL, "cherk", "zherk"},
    {NULL, NULL, "cher2k", "zher2k"}};

/* One line per process, for every kind of failure: what failed, and what runs instead. */
static void print_stats(void)
{
    long calls = 0, off = 0;
    for (int r = 0; r < BL_COUNT; r++)
        for (int p = 0; p < 4; p++) {
            calls += atomic_load(&g_calls[r][p]);
            off += atomic_load(&g_offloaded[r][p]);
        }
    fprintf(stderr, "clhgemm-blas: %ld level-3 calls, %ld offloaded, %ld on the CPU\n", calls, off, calls - off);
    for (int r = 0; r < BL_COUNT; r++)
        for (int p = 0; p < 4; p++) {
            const long c = atomic_load(&g_calls[r][p]), o = atomic_load(&g_offloaded[r][p]);
            if (c) fprintf(stderr, "clhgemm-blas:   %-6s %ld calls, %ld offloaded, %ld on the CPU\n", g_names[r][p], c, o, c - o);
        }
}

static void init(void)
{
    /* its handle's routing is set to the devices: the drop-in asks the model itself */
    static const chg_dropin_conf_t conf = {.tag = "clhgemm-blas", .cpu_what = "CPU BLAS",
                                           .calls = "level-3 call",
                                           .mode_var = "CLHGEMM_BLAS_OFFLOAD",
                                           .stats_var = "CLHGEMM_BLAS_STATS",
                                           .print_stats = print_stats, .device_route = 1};
    chg_dropin_init(&conf);
    /* cpu/tiny_select.c measures the kernel against the CPU BLAS's cblas_?gemm: without them (a CPU
     * BLAS with the Fortran interface only) small GEMMs take that interface, as before */
    g_cblas = chg_cpu_available();
    int small = g_cblas && chg_dropin_mode_ != CHG_OFF_ALWAYS && !chg_dropin_stats_ ? 1 : -1;
#ifdef HAVE_CBLAS_TABLE
    if (g_cblas) {
        chg_blas_dgemm_ = chg_cblas()->p_dgemm;
        chg_blas_sgemm_ = chg_cblas()->p_sgemm;
    }
#else
    small = -1; /* no table to call (and no CPU BLAS: g_cblas is 0) */
#endif
    atomic_store_explicit(&chg_blas_small_, small, memory_order_release);
}

/* ---- the two ways ---------------------------------------------------------------------------- */

typedef void (*gemm_f)(const char *, const char *, const int *, const int *, const int *, const void *,
                       const void *, const int *, const void *, const int *, const void *, void *, const int *,
                       size_t, size_t);
typedef void (*symm_f)(const char *, const char *, const int *, const int *, const void *, const void *,
                       const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);
typedef void (*syrk_f)(const char *, const char *, const int *, const int *, const void *, const void *,
                       const int *, const void *, void *, const int *, size_t, size_t);
typedef void (*syr2k_f)(const char *, const char *, const int *, const int *, const void *, const void *,
                        const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);
typedef void (*trmm_f)(const char *, const char *, const char *, const char *, const int *, const int *,
                       const void *, const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);

/* The CPU BLAS's Fortran routines, resolved once each (a dlsym per call cost about a third of
 * a 32 x 32 product's time on the H100 machine's Xeon). */
static _Atomic(void *) g_cpu_fn[BL_COUNT][4];

static void *cpu_fn(const chg_blas_call_t *bc)
{
    const int pi = chg_blas_pi(bc);
    void *f = atomic_load_explicit(&g_cpu_fn[bc->routine][pi], memory_order_acquire);
    if (f) return f;
    char name[16];
    snprintf(name, sizeof name, "%s_", g_names[bc->routine][pi]);
    f = chg_cpu_lib_sym(name);
    atomic_store_explicit(&g_cpu_fn[bc->routine][pi], f, memory_order_release);
    return f;
}

_Static_assert(CHG_BLAS_SMALL_MAX == CHG_TINY_MAX, "the drop-in's small GEMMs are the kernel's");

int chg_blas_small_init(void)
{
    pthread_once(&g_once, init);
    return atomic_load_explicit(&chg_blas_small_, memory_order_acquire);
}

/* The CPU BLAS's own Fortran routine with the call's arguments. */
static void run_cpu(const chg_blas_call_t *bc)
{
    void *f = cpu_fn(bc);
    if (!f) {
        char name[16];
        snprintf(name, sizeof name, "%s_", g_names[bc->routine][chg_blas_pi(bc)]);
        fprintf(stderr, "clhgemm-blas: %s is missing from the CPU BLAS (%s%s)\n", name, chg_cpu_lib_name(),
                chg_cpu_lib_ok() ? "" : chg_cpu_lib_error());
        abort();
    }
    /* the scalars as the routine takes them: T, or a (re, im) pair of T for a complex one (not
     * HERK's, nor HER2K's beta) */
    const float fa[2] = {(float)bc->alpha, (float)bc->alpha_im}, fb[2] = {(float)bc->beta, (float)bc->beta_im};
    const double da[2] = {bc->alpha, bc->alpha_im}, db[2] = {bc->beta, bc->beta_im};
    const void *al = bc->dbl ? (const void *)da : (const void *)fa;
    const void *be = bc->dbl ? (const void *)db : (const void *)fb;
    /* HEMM, HERK, HER2K take SYMM's, SYRK's, SYR2K's arguments */
    const int r = bc->routine;
    switch (r == BL_HEMM ? BL_SYMM : r == BL_HERK ? BL_SYRK : r == BL_HER2K ? BL_SYR2K : r) {
    case BL_GEMM:
        ((gemm_f)f)(&bc->ta, &bc->tb, &bc->m, &bc->n, &bc->k, al, bc->a, &bc->lda, bc->b, &bc->ldb, be, bc->c,
                    &bc->ldc, 1, 1);
        break;
    case BL_SYMM:
        ((symm_f)f)(&bc->side, &bc->uplo, &bc->m, &bc->n, al, bc->a, &bc->lda, bc->b, &bc->ldb, be, bc->c, &bc->ldc,
                    1, 1);
        break;
    case BL_SYRK:
        ((syrk_f)f)(&bc->uplo, &bc->ta, &bc->n, &bc->k, al, bc->a, &bc->lda, be, bc->c, &bc->ldc, 1, 1);
        break;
    case BL_SYR2K:
        ((syr2k_f)f)(&bc->uplo, &bc->ta, &bc->n, &bc->k, al, bc->a, &bc->lda, bc->b, &bc->ldb, be, bc->c, &bc->ldc,
                     1, 1);
        break;
    default: /* TRMM, TRSM: the same arguments */
        ((trmm_f)f)(&bc->side, &bc->uplo, &bc->ta, &bc->diag, &bc->m, &bc->n, al, bc->a, &bc->lda, bc->c, &bc->ldc,
                    1, 1, 1, 1);
    }
}

static clhgemm_transpose_t tr(char t)
{
    return t == 'N' ? CLHGEMM_NO_TRANS : t == 'C' ? CLHGEMM_CONJ_TRANS : CLHGEMM_TRANS;
}
static clhgemm_side_t sd(char s) { return s == 'L' ? CLHGEMM_LEFT : CLHGEMM_RIGHT; }
static clhgemm_uplo_t ul(char u) { return u == 'U' ? CLHGEMM_UPPER : CLHGEMM_LOWER; }
static clhgemm_diag_t dg(char d) { return d == 'U' ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT; }

/* A complex call on clhgemm's host API (column-major: the Fortran view as it is); its complex
 * scalars as pairs of the parts' type. */
#define RUN_CZ(P, T)                                                                               \
    static clhgemm_status_t run_device_##P(clhgemm_handle_t h, const chg_blas_call_t *c)           \
    {                                                                                              \
        const clhgemm_layout_t L = CLHGEMM_COL_MAJOR;                                              \
        const T al[2] = {(T)c->alpha, (T)c->alpha_im}, be[2] = {(T)c->beta, (T)c->beta_im};        \
        switch (c->routine) {                                                                      \
        case BL_GEMM:                                                                              \
            return clhgemm_##P##gemm(h, L, tr(c->ta), tr(c->tb), c->m, c->n, c->k, al, c->a,       \
                                     c->lda, c->b, c->ldb, be, c->c, c->ldc);                      \
        case BL_SYMM:                                                                              \
            return clhgemm_##P##symm(h, L, sd(c->side), ul(c->uplo), c->m, c->n, al, c->a, c->lda, \
                                     c->b, c->ldb, be, c->c, c->ldc);                              \
        case BL_HEMM:                                                                              \
            return clhgemm_##P##hemm(h, L, sd(c->side), ul(c->uplo), c->m, c->n, al, c->a, c->lda, \
                                     c->b, c->ldb, be, c->c, c->ldc);                              \
        case BL_SYRK:                                                                              \
            return clhgemm_##P##syrk(h, L, ul(c->uplo), tr(c->ta), c->n, c->k, al, c->a, c->lda,   \
                                     be, c->c, c->ldc);                                            \
        case BL_HERK:                                                                              \
            return clhgemm_##P##herk(h, L, ul(c->uplo), tr(c->ta), c->n, c->k, al[0], c->a,        \
                                     c->lda, be[0], c->c, c->ldc);                                 \
        case BL_SYR2K:                                                                             \
            return clhgemm_##P##syr2k(h, L, ul(c->uplo), tr(c->ta), c->n, c->k, al, c->a, c->lda,  \
                                      c->b, c->ldb, be, c->c, c->ldc);                             \
        case BL_HER2K:                                                                             \
            return clhgemm_##P##her2k(h, L, ul(c->uplo), tr(c->ta), c->n, c->k, al, c->a, c->lda,  \
                                      c->b, c->ldb, be[0], c->c, c->ldc);                          \
        case BL_TRMM:                                                                              \
            return clhgemm_##P##trmm(h, L, sd(c->side), ul(c->uplo), tr(c->ta), dg(c->diag), c->m, \
                                     c->n, al, c->a, c->lda, c->c, c->ldc);                        \
        default:                                                                                   \
            return clhgemm_##P##trsm(h, L, sd(c->side), ul(c->uplo), tr(c->ta), dg(c->diag), c->m, \
                                     c->n, al, c->a, c->lda, c->c, c->ldc);                        \
        }                                                                                          \
    }
RUN_CZ(c, float)
RUN_CZ(z, double)
#undef RUN_CZ

/* clhgemm's host API on the devices (column-major: the Fortran view as it is). */
static clhgemm_status_t run_device(clhgemm_handle_t h, const chg_blas_call_t *c)
{
    if (c->cplx) return c->dbl ? run_device_z(h, c) : run_device_c(h, c);
    const clhgemm_layout_t L = CLHGEMM_COL_MAJOR;
    const float fa = (float)c->alpha, fb = (float)c->beta;
    switch (c->routine * 2 + c->dbl) {
    case BL_GEMM * 2: return clhgemm_sgemm(h, L, tr(c->ta), tr(c->tb), c->m, c->n, c->k, fa, c->a, c->lda, c->b, c->ldb, fb, c->c, c->ldc);
    case BL_GEMM * 2 + 1: return clhgemm_dgemm(h, L, tr(c->ta), tr(c->tb), c->m, c->n, c->k, c->alpha, c->a, c->lda, c->b, c->ldb, c->beta, c->c, c->ldc);
    case BL_SYMM * 2: return clhgemm_ssymm(h, L, sd(c->side), ul(c->uplo), c->m, c->n, fa, c->a, c->lda, c->b, c->ldb, fb, c->c, c->ldc);
    case BL_SYMM * 2 + 1: return clhgemm_dsymm(h, L, sd(c->side), ul(c->uplo), c->m, c->n, c->alpha, c->a, c->lda, c->b, c->ldb, c->beta, c->c, c->ldc);
    case BL_SYRK * 2: return clhgemm_ssyrk(h, L, ul(c->uplo), tr(c->ta), c->n, c->k, fa, c->a, c->lda, fb, c->c, c->ldc);
    case BL_SYRK * 2 + 1: return clhgemm_dsyrk(h, L, ul(c->uplo), tr(c->ta), c->n, c->k, c->alpha, c->a, c->lda, c->beta, c->c, c->ldc);
    case BL_SYR2K * 2: return clhgemm_ssyr2k(h, L, ul(c->uplo), tr(c->ta), c->n, c->k, fa, c->a, c->lda, c->b, c->ldb, fb, c->c, c->ldc);
    case BL_SYR2K * 2 + 1: return clhgemm_dsyr2k(h, L, ul(c->uplo), tr(c->ta), c->n, c->k, c->alpha, c->a, c->lda, c->b, c->ldb, c->beta, c->c, c->ldc);
    case BL_TRSM * 2: return clhgemm_strsm(h, L, sd(c->side), ul(c->uplo), tr(c->ta), c->diag == 'U' ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT, c->m, c->n, fa, c->a, c->lda, c->c, c->ldc);
    case BL_TRSM * 2 + 1: return clhgemm_dtrsm(h, L, sd(c->side), ul(c->uplo), tr(c->ta), c->diag == 'U' ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT, c->m, c->n, c->alpha, c->a, c->lda, c->c, c->ldc);
    case BL_TRMM * 2: return clhgemm_strmm(h, L, sd(c->side), ul(c->uplo), tr(c->ta), c->diag == 'U' ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT, c->m, c->n, fa, c->a, c->lda, c->c, c->ldc);
    default: return clhgemm_dtrmm(h, L, sd(c->side), ul(c->uplo), tr(c->ta), c->diag == 'U' ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT, c->m, c->n, c->alpha, c->a, c->lda, c->c, c->ldc);
    }
}

/* ---- the decision ---------------------------------------------------------------------------- */

/* The block the devices may overwrite before a failure (C; B for TRMM and TRSM), as rows and
 * columns; 0 where the call does not read it (beta = 0: the CPU BLAS writes it anew). */
static int rank_k(int r) { return r == BL_SYRK || r == BL_SYR2K || r == BL_HERK || r == BL_HER2K; }

/* The element size of the call (complex: two of the parts). */
static size_t elem_bytes(const chg_blas_call_t *c) { return (c->dbl ? 8 : 4) * (c->cplx ? 2 : 1); }

static int snapshot_needed(const chg_blas_call_t *c, size_t *rows, size_t *cols)
{
    *rows = rank_k(c->routine) ? (size_t)c->n : (size_t)c->m;
    *cols = (size_t)c->n;
    return c->routine == BL_TRMM || c->routine == BL_TRSM || c->beta != 0.0 || c->beta_im != 0.0;
}

/* The call as the routing model sees it (its GEMM shape and operand sizes, and the copy of C
 * made before it goes to the devices). */
static chg_route_call_t model_call(const chg_blas_call_t *c)
{
    const int r = c->routine, sym = rank_k(r);
    const size_t m = sym ? (size_t)c->n : (size_t)c->m, n = (size_t)c->n;
    const size_t k = r == BL_GEMM || sym ? (size_t)c->k : (c->side == 'L' ? (size_t)c->m : (size_t)c->n);
    const double mn = (double)m * (double)n, two = r == BL_SYR2K || r == BL_HER2K ? 2.0 : 1.0;
    const double flops = r == BL_GEMM || r == BL_SYMM || r == BL_HEMM ? 2.0 * mn * k : sym ? two * mn * k : mn * k;
    size_t rows, cols;
    const double snap = snapshot_needed(c, &rows, &cols) ? (double)rows * (double)cols * (double)elem_bytes(c) : 0;
    /* a complex call as the real work it is: four real flops a multiply-add, two reals an element */
    const double x = c->cplx ? 2.0 : 1.0;
    return (chg_route_call_t){.prec = c->dbl ? CHG_F64 : CHG_F32, .name = g_names[r][chg_blas_pi(c)], .m = m,
                          .n = n, .k = k, .flops = x * x * flops,
                          .in_elems = x * ((double)m + (double)n) * (double)k * two,
                          .c_elems = x * (sym ? mn / 2 : mn),
                          .beta_zero = c->beta == 0.0 && c->beta_im == 0.0 && r != BL_TRMM && r != BL_TRSM,
                          .snapshot_bytes = snap, .snapshot_fresh = chg_snap_fresh((size_t)snap)};
}

static clhgemm_handle_t offload_handle(const chg_blas_call_t *c)
{
    if (chg_dropin_mode_ == CHG_OFF_NEVER || chg_dropin_child()) return NULL;
    const chg_route_call_t rc = model_call(c);
    if (chg_dropin_mode_ == CHG_OFF_AUTO && rc.flops < AUTO_MIN_FLOPS) return NULL;
    clhgemm_handle_t h = chg_dropin_handle();
    if (!h) return NULL;
    if (chg_dropin_mode_ == CHG_OFF_AUTO && chg_route_model_cpu(h, &rc)) return NULL;
    return h;
}

void chg_blas_run(const chg_blas_call_t *bc)
{
    pthread_once(&g_once, init);
    /* (a small GEMM came here only where chg_blas_small_gemm declined it) */
    /* counted only for CLHGEMM_BLAS_STATS: a locked add on every call is a few ns of a small
     * product's ~20 (and a shared cache line between the threads of an OpenMP loop) */
    if (chg_dropin_stats_) atomic_fetch_add_explicit(&g_calls[bc->routine][chg_blas_pi(bc)], 1, memory_order_relaxed);
    clhgemm_handle_t h = offload_handle(bc);
    if (h) {
        /* the block the devices may overwrite, copied first where the call reads it (a failure
         * then falls back on the caller's data); without memory for the copy, the CPU BLAS */
        size_t rows, cols;
        const int need = snapshot_needed(bc, &rows, &cols);
        chg_snap_t snap = {0};
        if (!need || chg_snap_take(&snap, h->pool, bc->c, (size_t)bc->ldc, rows, cols, elem_bytes(bc)) == 0) {
            const clhgemm_status_t st = run_device(h, bc);
            if (st == CLHGEMM_SUCCESS) {
                if (chg_dropin_stats_) atomic_fetch_add(&g_offloaded[bc->routine][chg_blas_pi(bc)], 1);
                if (need) chg_snap_release(&snap);
                return;
            }
            char what[64];
            snprintf(what, sizeof what, "%s on the devices failed", g_names[bc->routine][chg_blas_pi(bc)]);
            chg_dropin_warn_once(what, clhgemm_status_string(st), "the call, and any other that fails, runs");
            if (need) {
                chg_snap_restore(&snap, h->pool, bc->c, (size_t)bc->ldc);
                chg_snap_release(&snap);
            }
        }
    }
    run_cpu(bc);
}

/* ---- errors ---------------------------------------------------------------------------------- */

typedef void (*xerbla_f)(const char *, const int *, size_t);
typedef void (*cblas_xerbla_f)(int, const char *, const char *, ...);

void chg_blas_xerbla(const char *name, int info)
{
    xerbla_f f = (xerbla_f)dlsym(RTLD_DEFAULT, "xerbla_");
    if (f)
        f(name, &info, strlen(name));
    else
        fprintf(stderr, " ** On entry to %s parameter number %d had an illegal value\n", name, info);
}

void chg_blas_cblas_xerbla(int pos, const char *rout, const char *what, int value)
{
    cblas_xerbla_f f = (cblas_xerbla_f)dlsym(RTLD_DEFAULT, "cblas_xerbla");
    if (f)
        f(pos, rout, "Illegal %s setting, %d\n", what, value);
    else
        fprintf(stderr, "Parameter %d to routine %s was incorrect (illegal %s setting, %d)\n", pos, rout, what, value);
}
