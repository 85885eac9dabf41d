/*
 * test_soak.c -- the mixed soak: every routine and API at once, beside handle and context churn
 * (CTest label soak).
 *
 * For CLHGEMM_TEST_SOAK_SECONDS (default 150) at once:
 *   - SOAK_WORKERS threads make calls of every routine (GEMM, SYMM, SYRK, SYR2K, TRMM, TRSM), both
 *     precisions (d where the device has fp64), through the host API (one handle shared by all
 *     workers) and the cl_mem API (each worker's own queue on the test's context, or the shared
 *     queue), cycling through those 24 combinations so that each comes up every 24 calls, with
 *     random sizes (0 to 120, sometimes 0: the quick paths), layouts, sides, triangles,
 *     transposes, diagonals, leading-dimension padding and alpha/beta (alpha = 0 and beta = 0
 *     included). Every result is checked against OpenBLAS in double on the same inputs: the
 *     written part within a tolerance that scales with k, everything else of the output buffer
 *     (ld padding, the other triangle of SYRK/SYR2K) bit-identical, and the inputs of host calls
 *     unchanged. The triangle of A a routine must not read, a unit diagonal, and C when beta = 0
 *     hold NaN, so that reading them shows.
 *   - a handle thread: clhgemm_create, one checked host call, clhgemm_destroy, again and again;
 *   - a context thread: a new OpenCL context and queue, one checked cl_mem call, both released,
 *     and every fourth cycle clhgemm_release_resources();
 *   - the main thread samples the resident set (VmRSS of /proc/self/status) every 0.5 s, and
 *     every 1/20 of the run holds a quiet point: it lets each thread finish its turn (a call, a
 *     handle cycle, a context cycle) and holds it there, each thread lets go of what the library
 *     keeps for it (clhgemm_release_resources(), below), and the main thread reads the heap in
 *     use -- the bytes malloc has handed out and not got back (glibc's mallinfo2: uordblks +
 *     hblkhd, every arena and every mmap()ed block).
 *
 * Memory bound: the lowest heap in use at the quiet points of the last quarter of the run may
 * exceed the lowest of the second quarter (the first is warm-up) by at most
 * SOAK_HEAP_BOUND_MIB = 16 MiB, or SOAK_HEAP_PER_CYCLE_KIB = 8 KiB per handle and context cycle
 * between those two points where that is more. At a quiet point nothing is in flight (no
 * operands, no kernel build, no handle or context of the churn threads) and nothing is cached
 * (programs, workspaces), so what is left is the test's fixed state (the shared handle, the
 * context and queues), the OpenCL platform's, and whatever leaked. Measured in 150 s runs beside
 * `stress-ng --cpu 2` or a parallel build on the 2-core machine: 145-165 MiB, growing 2.2-8.1 MiB
 * from the second quarter to the fourth over 900-3,400 cycles. A heaptrack diff between quiet
 * points at 30 s and 124 s put such growth (5.4 MiB) in PoCL 3.1's LLVM context, not in clhgemm
 * (11 KiB at its own allocation sites): every program PoCL loads from a binary appends a warning
 * to a log string and adds metadata nodes, 1.5-4.6 KiB a cycle here; and after a 120 s run
 * nothing more stayed allocated at exit than after a 30 s one. Hence the allowance per cycle
 * (about twice that), and 16 MiB (twice the most growth seen) where the cycles are few. The
 * lowest point of each quarter, not its median: whatever a quiet point happens to find still
 * held (a free list of the platform's at its high-water mark) only adds.
 * What it catches: CLHGEMM_TEST_SOAK_LEAK_KIB=<n> makes the handle thread leak n KiB a cycle.
 * Under ctest (host calls routed to the device: ~250 handle cycles a run) n = 128 grew the heap
 * by 18.3 MiB; run by hand (~1,100 cycles) n = 32 grew it by 19.3 MiB and n = 256 by 172 MiB;
 * all three failed (the VmRSS medians grew by 84, 9 and 88 MiB: the old bound would have missed
 * n = 32). A leak the size of PoCL's own growth it cannot tell from that: the D buffer of every
 * cl_mem TRSM left unreleased (core/trsm_dev.c, by hand) grew the heap by 11.5 MiB and passed;
 * a cl_context per handle cycle (a few KiB on PoCL) passed unseen.
 *
 * Two one-off steps are kept out of the measured half. PoCL brings its compiler up (clang, its
 * kernel library: ~105 MiB that stay while the device has a context) at the first program it
 * builds from source, which in the soak is whenever a kernel variant no cache holds first comes
 * up; warm_compiler() makes that happen before the clock starts. And the program cache pins the
 * program each thread used last until that thread's next lookup (device/cache.c), which moved
 * single quiet points by several MiB in a run that built kernels; a thread stopped at a quiet
 * point calls clhgemm_release_resources() itself, which lets go of its own.
 *
 * Why not the resident set (the bound was 48 MiB of median VmRSS, and a run of the whole suite
 * on a loaded 2-core machine failed it by 91.5 MiB): it measures glibc's arenas, not what is in
 * use. A kernel that PoCL builds from source takes 100-270 MiB of heap for seconds (heaptrack:
 * one block of 256 MiB while it built a TRSM inversion kernel) in the arena of whichever thread
 * asked for it; freed, that memory stays in the arena (8-9 arenas, 380-500 MiB free in them
 * while 50-290 MiB were in use, 500-740 MiB of VmRSS). The resident set is then the sum of the
 * arenas' high-water marks and climbs in steps whenever a large build or cache fill lands in an
 * arena that had not held one, at whatever time a new kernel variant (random sizes) first comes
 * up -- later, and more often in the measured half, on a slow machine. Measured while nothing
 * leaked: the median rose 151.8 MiB from the second quarter to the fourth under heaptrack, 67
 * MiB in a run that had to build a fifth of its kernels. VmRSS is still printed, not judged.
 *
 * The run fails on any wrong result, any status other than success, fewer than 3 handle or
 * context cycles, or a combination of routine x precision x API that never ran. Built with a
 * sanitizer (.ci/run runs it under ASan+UBSan and TSan) it checks all that but the memory bound,
 * without quiet points or the warm-up build: the sanitizer's allocator replaces glibc's, so
 * mallinfo2 would read an unused heap; LSan finds leaks at exit there, TSan threads never joined.
 * CLHGEMM_TEST_SOAK_HEAPSTATS=1 prints the allocator's figures at every 0.5 s sample and every
 * quiet point (a diagnostic).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>

#include "common.h"

/* mallinfo2 came with glibc 2.33; without it the heap is not measured (and not judged). */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define SOAK_HAVE_MALLINFO2 1
#else
#define SOAK_HAVE_MALLINFO2 0
#endif

/* Under a sanitizer the heap is the sanitizer's (shadow memory, ASan's quarantine of freed
 * blocks, TSan's history): it is not judged; leaks are LSan's to find there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SOAK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SOAK_SANITIZED 1
#endif
#endif
#ifndef SOAK_SANITIZED
#define SOAK_SANITIZED 0
#endif

#define SOAK_WORKERS 3
#define SOAK_HEAP_BOUND_MIB 16.0
#define SOAK_HEAP_PER_CYCLE_KIB 8.0
#define SOAK_QUIET_POINTS 20 /* in a run */
#define SOAK_QUIET_WAIT_S 2
#define SOAK_MAX_N 120

enum { R_GEMM, R_SYMM, R_SYRK, R_SYR2K, R_TRMM, R_TRSM, R_COUNT };
static const char *const R_NAMES[R_COUNT] = {"gemm", "symm", "syrk", "syr2k", "trmm", "trsm"};

static tc_env_t g_env;
static clhgemm_handle_t g_shared;
static double g_deadline;
static atomic_int g_failures, g_stop;
static atomic_long g_calls, g_handle_cycles, g_context_cycles;
static atomic_long g_ran[R_COUNT][2][2]; /* routine, precision, api (0 host, 1 cl) */
static size_t g_leak_kib; /* CLHGEMM_TEST_SOAK_LEAK_KIB: leaked a handle cycle, to test the bound */
static pthread_mutex_t g_ref_lock = PTHREAD_MUTEX_INITIALIZER; /* OpenBLAS reference calls */

/* Quiet points: the main thread stops every thread between two of its turns (a call, a handle
 * cycle, a context cycle), so that nothing is in flight while it measures the heap. A turn is
 * turn_begin() ... turn_end(). A thread stopped at a quiet point first calls
 * clhgemm_release_resources() itself, the one way to let go of the program the cache pins for
 * that thread (device/cache.c). */
static pthread_mutex_t g_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gate_cv = PTHREAD_COND_INITIALIZER;
static int g_paused, g_busy, g_live, g_let_go; /* g_live: threads in their loops */
static unsigned g_round;                         /* quiet points asked for */
static _Thread_local unsigned t_round;           /* the last this thread answered */

static void turn_begin(void)
{
    pthread_mutex_lock(&g_gate_lock);
    while (g_paused) {
        if (t_round != g_round) {
            t_round = g_round;
            pthread_mutex_unlock(&g_gate_lock);
            clhgemm_release_resources();
            pthread_mutex_lock(&g_gate_lock);
            g_let_go++;
            pthread_cond_broadcast(&g_gate_cv);
        } else {
            pthread_cond_wait(&g_gate_cv, &g_gate_lock);
        }
    }
    g_busy++;
    pthread_mutex_unlock(&g_gate_lock);
}

static void turn_end(void)
{
    pthread_mutex_lock(&g_gate_lock);
    if (--g_busy == 0 && g_paused) pthread_cond_broadcast(&g_gate_cv);
    pthread_mutex_unlock(&g_gate_lock);
}

/* A thread leaves its loop (and no quiet point waits for it any more). */
static void thread_done(void)
{
    pthread_mutex_lock(&g_gate_lock);
    g_live--;
    pthread_cond_broadcast(&g_gate_cv);
    pthread_mutex_unlock(&g_gate_lock);
}

/* 1 once no turn is open and every thread has let go of its program, and then no turn starts
 * before quiet_end(); 0, holding nothing, when that takes over SOAK_QUIET_WAIT_S: a kernel build
 * on a loaded machine can take tens of seconds, and the threads already stopped would idle all
 * that time. */
static int quiet_begin(void)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until); /* the clock of a default condition variable */
    until.tv_sec += SOAK_QUIET_WAIT_S;
    pthread_mutex_lock(&g_gate_lock);
    g_paused = 1;
    g_round++;
    g_let_go = 0;
    pthread_cond_broadcast(&g_gate_cv);
    while ((g_busy > 0 || g_let_go < g_live) &&
           pthread_cond_timedwait(&g_gate_cv, &g_gate_lock, &until) != ETIMEDOUT) {
    }
    const int quiet = g_busy == 0 && g_let_go >= g_live;
    if (!quiet) {
        g_paused = 0;
        pthread_cond_broadcast(&g_gate_cv);
    }
    pthread_mutex_unlock(&g_gate_lock);
    return quiet;
}

static void quiet_end(void)
{
    pthread_mutex_lock(&g_gate_lock);
    g_paused = 0;
    pthread_cond_broadcast(&g_gate_cv);
    pthread_mutex_unlock(&g_gate_lock);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- one random call ------------------------------------------------------------------------ */

/* A stored matrix: `contig` elements along memory (what ld covers), `lines` of them. */
typedef struct mat_s {
    int contig, lines, ld;
    size_t n; /* elements in the buffer */
} mat_t;

static mat_t mat(int contig, int lines, int pad)
{
    mat_t m = {contig, lines, (contig > 1 ? contig : 1) + pad, 0};
    m.n = lines > 0 && contig > 0 ? (size_t)m.ld * (size_t)(lines - 1) + (size_t)contig : 1;
    if (m.n < 1) m.n = 1;
    return m;
}

typedef struct call_s {
    int r, dbl, api, layout, side, uplo, trans, transb, diag;
    int m, n, k, ka; /* ka: order of A for SYMM/TRMM/TRSM */
    double alpha, beta;
    mat_t A, B, C;   /* C: the output (TRMM/TRSM: B itself; A, B as read) */
    double *a, *b, *c0; /* double copies of the inputs as the library gets them */
} call_t;

static int rnd(tc_rng_t *r, int n) { return (int)(tc_rng_next(r) % (uint64_t)n); }

static int rnd_size(tc_rng_t *r)
{
    const int x = rnd(r, 16);
    return x == 0 ? 0 : x < 12 ? 1 + rnd(r, 48) : 1 + rnd(r, SOAK_MAX_N);
}

/* Storage of op(X) = rows x cols given layout and transpose. */
static mat_t stored(int col, int t, int rows, int cols, int pad)
{
    return (col != t) ? mat(rows, cols, pad) : mat(cols, rows, pad);
}

/* Index of logical (i, j) of a matrix stored with `col` (no transpose). */
static size_t at(int col, int ld, int i, int j)
{
    return col ? (size_t)i + (size_t)j * (size_t)ld : (size_t)i * (size_t)ld + (size_t)j;
}

/* Picks a call of routine r, precision dbl, api and fills its double inputs: A and B uniform in
 * [-1, 1] where read, NaN where not (padding, the unread triangle, a unit diagonal), C random or
 * NaN when beta == 0; TRSM's A well conditioned (|diagonal| in [1, 2], the rest over ka). */
static int make_call(call_t *c, int r, int dbl, int api, tc_rng_t *g)
{
    static const double ALPHA[4] = {1.0, -1.5, 0.5, 0.0}, BETA[3] = {0.0, 1.0, -0.5};
    memset(c, 0, sizeof *c);
    c->r = r;
    c->dbl = dbl;
    c->api = api;
    c->layout = rnd(g, 2) ? CLHGEMM_COL_MAJOR : CLHGEMM_ROW_MAJOR;
    c->side = rnd(g, 2) ? CLHGEMM_LEFT : CLHGEMM_RIGHT;
    c->uplo = rnd(g, 2) ? CLHGEMM_UPPER : CLHGEMM_LOWER;
    c->trans = rnd(g, 2) ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    c->transb = rnd(g, 2) ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    c->diag = rnd(g, 3) ? CLHGEMM_NON_UNIT : CLHGEMM_UNIT;
    c->m = rnd_size(g);
    c->n = rnd_size(g);
    c->k = rnd_size(g);
    c->alpha = ALPHA[rnd(g, rnd(g, 8) ? 3 : 4)];
    c->beta = BETA[rnd(g, 3)];
    const int col = c->layout == CLHGEMM_COL_MAJOR, ta = c->trans != CLHGEMM_NO_TRANS;
    const int pa = rnd(g, 3), pb = rnd(g, 3), pc = rnd(g, 3);
    c->ka = c->side == CLHGEMM_LEFT ? c->m : c->n;
    switch (r) {
    case R_GEMM:
        c->A = stored(col, ta, c->m, c->k, pa);
        c->B = stored(col, c->transb != CLHGEMM_NO_TRANS, c->k, c->n, pb);
        c->C = stored(col, 0, c->m, c->n, pc);
        break;
    case R_SYMM:
        c->A = mat(c->ka, c->ka, pa);
        c->B = stored(col, 0, c->m, c->n, pb);
        c->C = stored(col, 0, c->m, c->n, pc);
        break;
    case R_SYRK:
    case R_SYR2K:
        c->m = c->n;
        c->A = stored(col, ta, c->n, c->k, pa);
        c->B = stored(col, ta, c->n, c->k, pb);
        c->C = mat(c->n, c->n, pc);
        break;
    default: /* TRMM, TRSM: C is B */
        c->A = mat(c->ka, c->ka, pa);
        c->C = stored(col, 0, c->m, c->n, pc);
        c->B = c->C;
        break;
    }
    c->a = malloc(c->A.n * sizeof(double));
    c->b = malloc(c->B.n * sizeof(double));
    c->c0 = malloc(c->C.n * sizeof(double));
    if (!c->a || !c->b || !c->c0) return 1;
    for (size_t i = 0; i < c->A.n; i++) c->a[i] = NAN;
    for (size_t i = 0; i < c->B.n; i++) c->b[i] = NAN;
    for (size_t i = 0; i < c->C.n; i++) c->c0[i] = NAN;
    /* A */
    const int tri = r == R_SYMM || r == R_TRMM || r == R_TRSM;
    for (int l = 0; l < c->A.lines; l++)
        for (int e = 0; e < c->A.contig; e++) {
            /* logical (i, j) of the stored A (rows along contig when col) */
            const int i = col ? e : l, j = col ? l : e;
            double v = tc_rng_uniform(g);
            if (tri) {
                if (c->uplo == CLHGEMM_UPPER ? i > j : i < j) continue; /* not read: NaN */
                if (i == j && r != R_SYMM && c->diag == CLHGEMM_UNIT) continue;
                if (r == R_TRSM) v = i == j ? (v < 0 ? v - 1.0 : v + 1.0) : v / (c->ka > 0 ? c->ka : 1);
            }
            c->a[(size_t)l * (size_t)c->A.ld + (size_t)e] = v;
        }
    /* B (GEMM, SYMM, SYR2K read it; TRMM/TRSM: it is C below) */
    if (r == R_GEMM || r == R_SYMM || r == R_SYR2K)
        for (int l = 0; l < c->B.lines; l++)
            for (int e = 0; e < c->B.contig; e++)
                c->b[(size_t)l * (size_t)c->B.ld + (size_t)e] = tc_rng_uniform(g);
    /* C (TRMM/TRSM: B, always read) */
    const int c_read = r == R_TRMM || r == R_TRSM || c->beta != 0.0;
    for (int l = 0; l < c->C.lines; l++)
        for (int e = 0; e < c->C.contig; e++)
            c->c0[(size_t)l * (size_t)c->C.ld + (size_t)e] = c_read ? tc_rng_uniform(g) : NAN;
    if (!dbl) { /* the library gets floats: the reference works on the same values */
        for (size_t i = 0; i < c->A.n; i++) c->a[i] = (float)c->a[i];
        for (size_t i = 0; i < c->B.n; i++) c->b[i] = (float)c->b[i];
        for (size_t i = 0; i < c->C.n; i++) c->c0[i] = (float)c->c0[i];
    }
    if (r == R_TRMM || r == R_TRSM) memcpy(c->b, c->c0, c->C.n * sizeof(double));
    return 0;
}

static void free_call(call_t *c)
{
    free(c->a);
    free(c->b);
    free(c->c0);
}

/* OpenBLAS in double on the call's inputs: want (C.n elements) from c0. */
static void reference(const call_t *c, double *want)
{
    memcpy(want, c->c0, c->C.n * sizeof(double));
    if (c->m == 0 || c->n == 0) return;
    const enum CBLAS_ORDER o = c->layout == CLHGEMM_COL_MAJOR ? CblasColMajor : CblasRowMajor;
    const enum CBLAS_SIDE s = c->side == CLHGEMM_LEFT ? CblasLeft : CblasRight;
    const enum CBLAS_UPLO u = c->uplo == CLHGEMM_UPPER ? CblasUpper : CblasLower;
    const enum CBLAS_TRANSPOSE t = c->trans == CLHGEMM_NO_TRANS ? CblasNoTrans : CblasTrans;
    const enum CBLAS_TRANSPOSE tb = c->transb == CLHGEMM_NO_TRANS ? CblasNoTrans : CblasTrans;
    const enum CBLAS_DIAG d = c->diag == CLHGEMM_UNIT ? CblasUnit : CblasNonUnit;
    /* beta == 0 must not read C: the NaN in want is replaced, as BLAS does */
    pthread_mutex_lock(&g_ref_lock);
    switch (c->r) {
    case R_GEMM:
        cblas_dgemm(o, t, tb, c->m, c->n, c->k, c->alpha, c->a, c->A.ld, c->b, c->B.ld, c->beta, want, c->C.ld);
        break;
    case R_SYMM:
        cblas_dsymm(o, s, u, c->m, c->n, c->alpha, c->a, c->A.ld, c->b, c->B.ld, c->beta, want, c->C.ld);
        break;
    case R_SYRK:
        cblas_dsyrk(o, u, t, c->n, c->k, c->alpha, c->a, c->A.ld, c->beta, want, c->C.ld);
        break;
    case R_SYR2K:
        cblas_dsyr2k(o, u, t, c->n, c->k, c->alpha, c->a, c->A.ld, c->b, c->B.ld, c->beta, want, c->C.ld);
        break;
    case R_TRMM:
        cblas_dtrmm(o, s, u, t, d, c->m, c->n, c->alpha, c->a, c->A.ld, want, c->C.ld);
        break;
    default:
        cblas_dtrsm(o, s, u, t, d, c->m, c->n, c->alpha, c->a, c->A.ld, want, c->C.ld);
    }
    pthread_mutex_unlock(&g_ref_lock);
}

/* The inner dimension that sets the tolerance. */
static int depth(const call_t *c)
{
    switch (c->r) {
    case R_GEMM: case R_SYRK: return c->k;
    case R_SYR2K: return 2 * c->k;
    default: return c->ka;
    }
}

static void describe(const call_t *c, char *buf, size_t len)
{
    snprintf(buf, len, "%c%s %s layout=%s side=%s uplo=%s trans=%s transb=%s diag=%s m=%d n=%d k=%d "
             "alpha=%g beta=%g ld=%d,%d,%d", c->dbl ? 'd' : 's', R_NAMES[c->r], c->api ? "cl" : "host",
             c->layout == CLHGEMM_COL_MAJOR ? "col" : "row", c->side == CLHGEMM_LEFT ? "L" : "R",
             c->uplo == CLHGEMM_UPPER ? "U" : "L", c->trans == CLHGEMM_NO_TRANS ? "N" : "T",
             c->transb == CLHGEMM_NO_TRANS ? "N" : "T", c->diag == CLHGEMM_UNIT ? "U" : "N", c->m, c->n,
             c->k, c->alpha, c->beta, c->A.ld, c->B.ld, c->C.ld);
}

/* got (C.n native elements) against the reference: the written part within tolerance, the rest
 * bit-identical to the input. */
static int check(const call_t *c, const void *got, const char *tag)
{
    double *want = malloc(c->C.n * sizeof(double));
    unsigned char *written = calloc(c->C.n, 1);
    if (!want || !written) {
        free(want);
        free(written);
        fprintf(stderr, "FAIL %s: out of memory\n", tag);
        return 1;
    }
    reference(c, want);
    const int col = c->layout == CLHGEMM_COL_MAJOR;
    const int tri = c->r == R_SYRK || c->r == R_SYR2K;
    for (int i = 0; i < c->m; i++)
        for (int j = 0; j < c->n; j++)
            if (!tri || (c->uplo == CLHGEMM_UPPER ? i <= j : i >= j)) written[at(col, c->C.ld, i, j)] = 1;
    const double eps = c->dbl ? 1.1102230246251565e-16 : 5.9604644775390625e-08;
    const double kk = depth(c) + 2;
    int bad = 0;
    for (size_t x = 0; x < c->C.n && !bad; x++) {
        const double g = c->dbl ? ((const double *)got)[x] : (double)((const float *)got)[x];
        if (!written[x]) {
            const double before = c->c0[x];
            bad = !(g == before || (isnan(g) && isnan(before)));
            if (bad) fprintf(stderr, "FAIL %s: element %zu outside the result changed: %g, was %g\n", tag, x, g, before);
            continue;
        }
        /* |alpha| * k (inputs within 1) + |beta| * |C0|; TRSM: |X| bounded by ~2|alpha||B| */
        const double c0 = c->beta == 0.0 && c->r != R_TRMM && c->r != R_TRSM ? 0.0 : fabs(c->c0[x]);
        const double scale = c->r == R_TRSM ? 4.0 * fabs(c->alpha) * (1.0 + fabs(want[x]))
                           : fabs(c->alpha) * kk + fabs(c->beta) * c0 + (c->r == R_TRMM ? fabs(c->alpha) * kk : 0);
        const double tol = 16.0 * kk * eps * scale + 1e-300;
        bad = !(fabs(g - want[x]) <= tol);
        if (bad) fprintf(stderr, "FAIL %s: element %zu = %.17g, OpenBLAS %.17g (tolerance %.3g)\n", tag, x, g, want[x], tol);
    }
    free(want);
    free(written);
    return bad;
}

/* Native-precision copy of n doubles. */
static void *native(const call_t *c, const double *x, size_t n)
{
    void *p = malloc(n * (c->dbl ? 8 : 4));
    if (!p) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (c->dbl) ((double *)p)[i] = x[i];
        else ((float *)p)[i] = (float)x[i];
    }
    return p;
}

static clhgemm_status_t call_host(clhgemm_handle_t h, const call_t *c, const void *a, const void *b, void *o)
{
    const int L = c->layout, S = c->side, U = c->uplo, T = c->trans, D = c->diag;
    const double al = c->alpha, be = c->beta;
    const float af = (float)al, bf = (float)be;
    if (c->dbl) {
        switch (c->r) {
        case R_GEMM: return clhgemm_dgemm(h, L, T, c->transb, c->m, c->n, c->k, al, a, c->A.ld, b, c->B.ld, be, o, c->C.ld);
        case R_SYMM: return clhgemm_dsymm(h, L, S, U, c->m, c->n, al, a, c->A.ld, b, c->B.ld, be, o, c->C.ld);
        case R_SYRK: return clhgemm_dsyrk(h, L, U, T, c->n, c->k, al, a, c->A.ld, be, o, c->C.ld);
        case R_SYR2K: return clhgemm_dsyr2k(h, L, U, T, c->n, c->k, al, a, c->A.ld, b, c->B.ld, be, o, c->C.ld);
        case R_TRMM: return clhgemm_dtrmm(h, L, S, U, T, D, c->m, c->n, al, a, c->A.ld, o, c->C.ld);
        default: return clhgemm_dtrsm(h, L, S, U, T, D, c->m, c->n, al, a, c->A.ld, o, c->C.ld);
        }
    }
    switch (c->r) {
    case R_GEMM: return clhgemm_sgemm(h, L, T, c->transb, c->m, c->n, c->k, af, a, c->A.ld, b, c->B.ld, bf, o, c->C.ld);
    case R_SYMM: return clhgemm_ssymm(h, L, S, U, c->m, c->n, af, a, c->A.ld, b, c->B.ld, bf, o, c->C.ld);
    case R_SYRK: return clhgemm_ssyrk(h, L, U, T, c->n, c->k, af, a, c->A.ld, bf, o, c->C.ld);
    case R_SYR2K: return clhgemm_ssyr2k(h, L, U, T, c->n, c->k, af, a, c->A.ld, b, c->B.ld, bf, o, c->C.ld);
    case R_TRMM: return clhgemm_strmm(h, L, S, U, T, D, c->m, c->n, af, a, c->A.ld, o, c->C.ld);
    default: return clhgemm_strsm(h, L, S, U, T, D, c->m, c->n, af, a, c->A.ld, o, c->C.ld);
    }
}

static clhgemm_status_t call_cl(const call_t *c, cl_mem a, cl_mem b, cl_mem o, cl_command_queue q, cl_event *ev)
{
    const int L = c->layout, S = c->side, U = c->uplo, T = c->trans, D = c->diag;
    const double al = c->alpha, be = c->beta;
    const float af = (float)al, bf = (float)be;
    if (c->dbl) {
        switch (c->r) {
        case R_GEMM: return clhgemm_dgemm_cl(L, T, c->transb, c->m, c->n, c->k, al, a, 0, c->A.ld, b, 0, c->B.ld, be, o, 0, c->C.ld, q, ev);
        case R_SYMM: return clhgemm_dsymm_cl(L, S, U, c->m, c->n, al, a, 0, c->A.ld, b, 0, c->B.ld, be, o, 0, c->C.ld, q, ev);
        case R_SYRK: return clhgemm_dsyrk_cl(L, U, T, c->n, c->k, al, a, 0, c->A.ld, be, o, 0, c->C.ld, q, ev);
        case R_SYR2K: return clhgemm_dsyr2k_cl(L, U, T, c->n, c->k, al, a, 0, c->A.ld, b, 0, c->B.ld, be, o, 0, c->C.ld, q, ev);
        case R_TRMM: return clhgemm_dtrmm_cl(L, S, U, T, D, c->m, c->n, al, a, 0, c->A.ld, o, 0, c->C.ld, q, ev);
        default: return clhgemm_dtrsm_cl(L, S, U, T, D, c->m, c->n, al, a, 0, c->A.ld, o, 0, c->C.ld, q, ev);
        }
    }
    switch (c->r) {
    case R_GEMM: return clhgemm_sgemm_cl(L, T, c->transb, c->m, c->n, c->k, af, a, 0, c->A.ld, b, 0, c->B.ld, bf, o, 0, c->C.ld, q, ev);
    case R_SYMM: return clhgemm_ssymm_cl(L, S, U, c->m, c->n, af, a, 0, c->A.ld, b, 0, c->B.ld, bf, o, 0, c->C.ld, q, ev);
    case R_SYRK: return clhgemm_ssyrk_cl(L, U, T, c->n, c->k, af, a, 0, c->A.ld, bf, o, 0, c->C.ld, q, ev);
    case R_SYR2K: return clhgemm_ssyr2k_cl(L, U, T, c->n, c->k, af, a, 0, c->A.ld, b, 0, c->B.ld, bf, o, 0, c->C.ld, q, ev);
    case R_TRMM: return clhgemm_strmm_cl(L, S, U, T, D, c->m, c->n, af, a, 0, c->A.ld, o, 0, c->C.ld, q, ev);
    default: return clhgemm_strsm_cl(L, S, U, T, D, c->m, c->n, af, a, 0, c->A.ld, o, 0, c->C.ld, q, ev);
    }
}

/* Runs one call (host on h, or cl on ctx/q) and checks it; 0 on pass. */
static int run_one(const call_t *c, clhgemm_handle_t h, cl_context ctx, cl_command_queue q)
{
    char tag[400];
    describe(c, tag, sizeof tag);
    const size_t es = c->dbl ? 8 : 4;
    void *a = native(c, c->a, c->A.n), *b = native(c, c->b, c->B.n), *o = native(c, c->c0, c->C.n);
    int bad = 0;
    if (!a || !b || !o) {
        fprintf(stderr, "FAIL %s: out of memory\n", tag);
        bad = 1;
    } else if (!c->api) {
        void *a2 = malloc(c->A.n * es), *b2 = malloc(c->B.n * es);
        if (a2) memcpy(a2, a, c->A.n * es);
        if (b2) memcpy(b2, b, c->B.n * es);
        const int inplace = c->r == R_TRMM || c->r == R_TRSM;
        const clhgemm_status_t st = call_host(h, c, a, inplace ? o : b, o);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "FAIL %s: %s\n", tag, clhgemm_status_string(st));
            bad = 1;
        } else {
            bad = check(c, o, tag);
            if (!bad && a2 && b2 && (memcmp(a, a2, c->A.n * es) || (!inplace && memcmp(b, b2, c->B.n * es)))) {
                fprintf(stderr, "FAIL %s: an input changed\n", tag);
                bad = 1;
            }
        }
        free(a2);
        free(b2);
    } else {
        cl_mem ba = tc_buffer_from_host(ctx, a, c->A.n * es);
        cl_mem bb = tc_buffer_from_host(ctx, b, c->B.n * es);
        cl_mem bo = tc_buffer_from_host(ctx, o, c->C.n * es);
        if (!ba || !bb || !bo) {
            bad = 1;
        } else {
            cl_event ev = NULL;
            const clhgemm_status_t st = call_cl(c, ba, bb, bo, q, &ev);
            if (st != CLHGEMM_SUCCESS) {
                fprintf(stderr, "FAIL %s: %s\n", tag, clhgemm_status_string(st));
                bad = 1;
            } else {
                if (ev) {
                    clWaitForEvents(1, &ev);
                    clReleaseEvent(ev);
                }
                bad = tc_read(q, bo, o, c->C.n * es) || check(c, o, tag);
            }
        }
        if (ba) clReleaseMemObject(ba);
        if (bb) clReleaseMemObject(bb);
        if (bo) clReleaseMemObject(bo);
    }
    free(a);
    free(b);
    free(o);
    return bad;
}

/* ---- threads -------------------------------------------------------------------------------- */

typedef struct worker_s {
    int id;
} worker_t;

static void *worker(void *arg)
{
    const worker_t *w = arg;
    tc_rng_t g;
    tc_rng_seed(&g, 0x50A4ULL + 7919ULL * (uint64_t)w->id);
    cl_command_queue own = tc_queue_new(&g_env);
    if (!own) {
        atomic_fetch_add(&g_failures, 1);
        thread_done();
        return NULL;
    }
    const int nprec = 1 + g_env.has_fp64;
    for (long i = w->id * 5; !atomic_load(&g_stop) && now_s() < g_deadline; i++) {
        /* combination i: routine, precision, api, cycling through all of them */
        const int r = (int)(i % R_COUNT), dbl = (int)((i / R_COUNT) % nprec), api = (int)((i / (R_COUNT * nprec)) % 2);
        call_t c;
        turn_begin();
        int bad = make_call(&c, r, dbl, api, &g);
        if (!bad) bad = run_one(&c, g_shared, g_env.ctx, rnd(&g, 2) ? own : g_env.queue);
        free_call(&c);
        turn_end();
        atomic_fetch_add(&g_ran[r][dbl][api], 1);
        atomic_fetch_add(&g_calls, 1);
        if (bad && atomic_fetch_add(&g_failures, 1) > 20) atomic_store(&g_stop, 1);
    }
    clReleaseCommandQueue(own);
    thread_done();
    return NULL;
}

static void *handle_churn(void *arg)
{
    (void)arg;
    tc_rng_t g;
    tc_rng_seed(&g, 0xC4A7ULL);
    for (long i = 0; !atomic_load(&g_stop) && now_s() < g_deadline; i++) {
        clhgemm_handle_t h = NULL;
        turn_begin();
        const clhgemm_status_t st = clhgemm_create(&h, NULL);
        int bad = st != CLHGEMM_SUCCESS;
        if (bad) fprintf(stderr, "FAIL handle cycle %ld: clhgemm_create -> %s\n", i, clhgemm_status_string(st));
        call_t c;
        if (!bad) {
            bad = make_call(&c, (int)(i % R_COUNT), g_env.has_fp64 ? (int)((i / R_COUNT) & 1) : 0, 0, &g);
            if (!bad) bad = run_one(&c, h, NULL, NULL);
            free_call(&c);
        }
        clhgemm_destroy(h);
        if (g_leak_kib > 0) { /* the test of the bound: touched, so that VmRSS sees it too */
            char *leak = malloc(g_leak_kib * 1024);
            if (leak) memset(leak, 1, g_leak_kib * 1024);
        }
        turn_end();
        atomic_fetch_add(&g_handle_cycles, 1);
        if (bad && atomic_fetch_add(&g_failures, 1) > 20) atomic_store(&g_stop, 1);
    }
    thread_done();
    return NULL;
}

static void *context_churn(void *arg)
{
    (void)arg;
    tc_rng_t g;
    tc_rng_seed(&g, 0xC0E7ULL);
    for (long i = 0; !atomic_load(&g_stop) && now_s() < g_deadline; i++) {
        cl_int err = CL_SUCCESS;
        turn_begin();
        cl_context ctx = clCreateContext(NULL, 1, &g_env.device, NULL, NULL, &err);
        cl_command_queue q = ctx ? clCreateCommandQueue(ctx, g_env.device, 0, &err) : NULL;
        int bad = !q;
        if (bad) fprintf(stderr, "FAIL context cycle %ld: %s\n", i, clhgemm_status_string(err));
        call_t c;
        if (!bad) {
            bad = make_call(&c, (int)((i + 3) % R_COUNT), g_env.has_fp64 ? (int)((i / R_COUNT) & 1) : 0, 1, &g);
            if (!bad) bad = run_one(&c, NULL, ctx, q);
            free_call(&c);
        }
        if (q) clReleaseCommandQueue(q);
        if (ctx) clReleaseContext(ctx);
        if (i % 4 == 3) clhgemm_release_resources();
        turn_end();
        atomic_fetch_add(&g_context_cycles, 1);
        if (bad && atomic_fetch_add(&g_failures, 1) > 20) atomic_store(&g_stop, 1);
    }
    thread_done();
    return NULL;
}

/* ---- memory ---------------------------------------------------------------------------------- */

/* The heap in use in MiB: what malloc has handed out and not got back (NAN without mallinfo2). */
static double heap_in_use_mib(void)
{
#if SOAK_HAVE_MALLINFO2
    const struct mallinfo2 mi = mallinfo2();
    return (double)(mi.uordblks + mi.hblkhd) / 1048576.0;
#else
    return NAN;
#endif
}

/* CLHGEMM_TEST_SOAK_HEAPSTATS: the allocator's figures beside VmRSS -- resident anonymous and
 * file-backed memory, threads, arenas, their size and the part of it free -- to tell a leak
 * (in use grows) from memory the arenas keep (free grows). */
static void heap_line(double t, double rss)
{
#if SOAK_HAVE_MALLINFO2
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double anon = 0, file = 0;
    int threads = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "RssAnon:", 8)) anon = atof(line + 8) / 1024.0;
        else if (!strncmp(line, "RssFile:", 8)) file = atof(line + 8) / 1024.0;
        else if (!strncmp(line, "Threads:", 8)) threads = atoi(line + 8);
    }
    if (f) fclose(f);
    char *xml = NULL;
    size_t len = 0;
    int arenas = 0;
    FILE *m = open_memstream(&xml, &len);
    if (m) {
        malloc_info(0, m);
        fclose(m);
        for (const char *p = xml; p && (p = strstr(p, "<heap nr=")) != NULL; p++) arenas++;
    }
    free(xml);
    const struct mallinfo2 mi = mallinfo2();
    const double M = 1048576.0;
    printf("heap %6.1f s: VmRSS %.1f (anon %.1f, file %.1f) MiB, %d threads, %d arenas of %.1f MiB "
           "(%.1f free), in use %.1f + mmap()ed %.1f MiB; %ld calls, %ld handle and %ld context "
           "cycles\n", t, rss, anon, file, threads, arenas, mi.arena / M, mi.fordblks / M,
           mi.uordblks / M, mi.hblkhd / M, atomic_load(&g_calls), atomic_load(&g_handle_cycles),
           atomic_load(&g_context_cycles));
    fflush(stdout);
#else
    (void)t;
    (void)rss;
#endif
}

/* PoCL's compiler up before the clock starts: one build of a source that no cache holds (the
 * process id and the time in it) and one run of its kernel. Measured with PoCL 3.1: 35 MiB of heap
 * in use after clCreateContext, 140 MiB after the first build from source, 20-40 KiB more a build
 * after that. */
static int warm_compiler(void)
{
    char src[200];
    snprintf(src, sizeof src,
             "__kernel void soak_warm(__global int *x) { x[get_global_id(0)] += %ld; }\n",
             (long)getpid() * 1000003L + (long)time(NULL));
    const char *text = src;
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(g_env.ctx, 1, &text, NULL, &err);
    if (prog) err = clBuildProgram(prog, 1, &g_env.device, "", NULL, NULL);
    cl_kernel k = prog && err == CL_SUCCESS ? clCreateKernel(prog, "soak_warm", &err) : NULL;
    int x[64] = {0};
    cl_mem buf = k ? tc_buffer_from_host(g_env.ctx, x, sizeof x) : NULL;
    const size_t global = 64;
    if (buf) err = clSetKernelArg(k, 0, sizeof buf, &buf);
    if (buf && err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(g_env.queue, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (buf && err == CL_SUCCESS) err = clFinish(g_env.queue);
    if (buf) clReleaseMemObject(buf);
    if (k) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
    const int bad = !buf || err != CL_SUCCESS;
    if (bad) fprintf(stderr, "FAIL: the warm-up build and run: %s\n", clhgemm_status_string(err));
    return bad;
}

/* ---- main ------------------------------------------------------------------------------------ */

/* The median of v[0..n) (sorted in place); NAN when n is 0. */
static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A non-negative whole number from the environment variable `name` (0 when unset). */
static int env_count(const char *name, long max, long *out)
{
    const char *v = getenv(name);
    char *end = NULL;
    *out = v && *v ? strtol(v, &end, 10) : 0;
    if (v && *v && (*end || *out < 0 || *out > max)) {
        fprintf(stderr, "FAIL: %s='%s': want a whole number, 0 to %ld\n", name, v, max);
        return 1;
    }
    return 0;
}

int main(void)
{
    const char *sv = getenv("CLHGEMM_TEST_SOAK_SECONDS");
    char *end = NULL;
    double seconds = sv && *sv ? strtod(sv, &end) : 150.0;
    if (sv && *sv && (*end || !(seconds >= 4.0 && seconds <= 86400.0))) {
        fprintf(stderr, "FAIL: CLHGEMM_TEST_SOAK_SECONDS='%s': want seconds, 4 to 86400\n", sv);
        return 1;
    }
    long leak_kib = 0, heapstats = 0;
    if (env_count("CLHGEMM_TEST_SOAK_LEAK_KIB", 1L << 20, &leak_kib) ||
        env_count("CLHGEMM_TEST_SOAK_HEAPSTATS", 1, &heapstats))
        return 1;
    g_leak_kib = (size_t)leak_kib;
    const int heap_judged = !SOAK_SANITIZED && SOAK_HAVE_MALLINFO2;
    int rc = tc_open(&g_env);
    if (rc) return rc;
    printf("device: %s (%s); %.0f s, %d workers, a handle thread and a context thread%s\n",
           g_env.info.name, g_env.info.platform_name, seconds, SOAK_WORKERS,
           g_leak_kib ? "; a leak of CLHGEMM_TEST_SOAK_LEAK_KIB per handle cycle" : "");
    const clhgemm_status_t st = clhgemm_create(&g_shared, NULL);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL: clhgemm_create -> %s\n", clhgemm_status_string(st));
        return 1;
    }
    if (heap_judged && warm_compiler()) return 1;
    const double t0 = now_s();
    g_deadline = t0 + seconds;
    pthread_t th[SOAK_WORKERS + 2];
    worker_t w[SOAK_WORKERS];
    int started = 0;
    g_live = SOAK_WORKERS + 2; /* before any can leave: thread_done() counts down */
    for (int i = 0; i < SOAK_WORKERS; i++) {
        w[i].id = i;
        started += pthread_create(&th[started], NULL, worker, &w[i]) == 0;
    }
    started += pthread_create(&th[started], NULL, handle_churn, NULL) == 0;
    started += pthread_create(&th[started], NULL, context_churn, NULL) == 0;
    if (started != SOAK_WORKERS + 2) {
        pthread_mutex_lock(&g_gate_lock);
        g_live -= SOAK_WORKERS + 2 - started;
        pthread_mutex_unlock(&g_gate_lock);
        fprintf(stderr, "FAIL: pthread_create\n");
        atomic_fetch_add(&g_failures, 1);
        atomic_store(&g_stop, 1);
    }
    /* RSS samples every 0.5 s: the peaks and medians of the quarters; the heap at quiet points:
     * the lowest of each quarter */
    double peak[4] = {0, 0, 0, 0}, next_print = t0 + 10.0;
    double heap_low[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    long heap_cycles[4] = {0, 0, 0, 0}; /* handle + context cycles at each quarter's lowest */
    int nheap[4] = {0, 0, 0, 0}, skipped = 0;
    const double quiet_every = seconds / SOAK_QUIET_POINTS;
    double next_quiet = t0 + quiet_every;
    const int per_q = (int)(seconds / 4.0 / 0.5) + 8;
    double *qs = calloc(4 * (size_t)per_q, sizeof *qs);
    int nq[4] = {0, 0, 0, 0};
    if (!qs) {
        fprintf(stderr, "FAIL: out of memory for the RSS samples\n");
        atomic_fetch_add(&g_failures, 1);
        atomic_store(&g_stop, 1);
    }
    while (!atomic_load(&g_stop) && now_s() < g_deadline) {
        const struct timespec half = {0, 500000000L};
        nanosleep(&half, NULL);
        double t = now_s();
        const double rss = tc_vmrss_mib();
        int q = (int)(4.0 * (t - t0) / seconds);
        if (q > 3) q = 3;
        if (rss > peak[q]) peak[q] = rss;
        if (qs && nq[q] < per_q) qs[q * per_q + nq[q]++] = rss;
        if (heapstats) heap_line(t - t0, rss);
        if (!heap_judged) {
            /* no quiet points: nothing to measure, and the threads would idle at them */
        } else if (t >= next_quiet && !quiet_begin()) {
            skipped++;
            next_quiet += quiet_every;
        } else if (t >= next_quiet) {
            const double tq = now_s(), held = heapstats ? heap_in_use_mib() : NAN;
            clhgemm_release_resources();
            const double heap = heap_in_use_mib();
            quiet_end();
            /* before the deadline every thread was still in its loop (none leaves it earlier):
             * after it, those that left have let go of their queues and programs */
            if (tq < g_deadline) {
                int hq = (int)(4.0 * (tq - t0) / seconds);
                if (hq > 3) hq = 3;
                if (heap < heap_low[hq]) {
                    heap_low[hq] = heap;
                    heap_cycles[hq] =
                        atomic_load(&g_handle_cycles) + atomic_load(&g_context_cycles);
                }
                nheap[hq]++;
            }
            if (heapstats)
                printf("quiet point %6.1f s (waited %.2f s): heap in use %.2f MiB, %.2f MiB after "
                       "clhgemm_release_resources()\n", tq - t0, tq - t, held, heap);
            t = now_s();
            next_quiet = next_quiet + quiet_every > t ? next_quiet + quiet_every : t + quiet_every;
        }
        if (t >= next_print) {
            printf("%5.0f s: VmRSS %.1f MiB, %ld calls, %ld handle and %ld context cycles\n", t - t0, rss,
                   atomic_load(&g_calls), atomic_load(&g_handle_cycles), atomic_load(&g_context_cycles));
            fflush(stdout);
            next_print += 10.0;
        }
    }
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    clhgemm_destroy(g_shared);
    int failures = atomic_load(&g_failures);
    double med[4];
    for (int q = 0; q < 4; q++) med[q] = qs ? median_of(qs + q * per_q, nq[q]) : NAN;
    free(qs);
    printf("VmRSS by quarter (not judged: the arenas' high-water marks): peaks %.1f %.1f %.1f "
           "%.1f MiB, medians %.1f %.1f %.1f %.1f MiB\n", peak[0], peak[1], peak[2], peak[3],
           med[0], med[1], med[2], med[3]);
    const double growth = heap_low[3] - heap_low[1];
    const long cycles = heap_cycles[3] - heap_cycles[1];
    const double bound =
        fmax(SOAK_HEAP_BOUND_MIB, SOAK_HEAP_PER_CYCLE_KIB * (double)cycles / 1024.0);
    const int judged = heap_judged && nheap[1] > 0 && nheap[3] > 0;
    if (!heap_judged)
        printf("heap in use: not measured (%s)\n",
               SOAK_SANITIZED ? "the sanitizer's allocator" : "no mallinfo2");
    else
        printf("heap in use at the quiet points: lowest by quarter %.1f %.1f %.1f %.1f MiB (%d %d "
               "%d %d points); growth from the 2nd quarter's to the 4th's %.1f MiB over %ld handle "
               "and context cycles (bound %.1f MiB%s); %d quiet points skipped (a turn over %d "
               "s)\n",
               heap_low[0], heap_low[1], heap_low[2], heap_low[3], nheap[0], nheap[1], nheap[2],
               nheap[3], growth, cycles, bound, judged ? "" : "; not judged: a quarter without one",
               skipped, SOAK_QUIET_WAIT_S);
    if (judged && !(growth <= bound)) {
        fprintf(stderr, "FAIL: the heap in use at quiet points grew by %.1f MiB (bound %.1f MiB)\n",
                growth, bound);
        failures++;
    }
    const long hc = atomic_load(&g_handle_cycles), cc = atomic_load(&g_context_cycles);
    if (hc < 3 || cc < 3) {
        fprintf(stderr, "FAIL: only %ld handle and %ld context cycles\n", hc, cc);
        failures++;
    }
    for (int r = 0; r < R_COUNT; r++)
        for (int d = 0; d < 1 + g_env.has_fp64; d++)
            for (int a = 0; a < 2; a++)
                if (!atomic_load(&g_ran[r][d][a])) {
                    fprintf(stderr, "FAIL: %c%s on the %s API never ran\n", d ? 'd' : 's', R_NAMES[r], a ? "cl" : "host");
                    failures++;
                }
    printf("%ld calls, %ld handle cycles, %ld context cycles in %.1f s; %d failed\n", atomic_load(&g_calls), hc,
           cc, now_s() - t0, failures);
    tc_close(&g_env);
    /* what is left at exit is then only what the process never gives back (LSan, heaptrack) */
    clhgemm_release_resources();
    return failures ? 1 : 0;
}
