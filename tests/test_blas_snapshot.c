/*
 * test_blas_snapshot.c -- the BLAS drop-in's copy of C before a device call (src/blas/snapshot.c)
 * and its price in the routing model (host/route.c).
 *
 *   copy      a block inside a padded matrix (ldc > rows) below and above the size that splits
 *             the copy over the pack threads (a pool of 4): the copy holds the block, the restore
 *             writes the block back and nothing between the columns (the padding keeps its marker)
 *   kept      a copy within CLHGEMM_BLAS_SNAPSHOT_KEEP reuses the kept buffer; while one call
 *             holds it another gets a buffer of its own, and a copy above the limit (24M here,
 *             set before the first copy) never takes it: chg_snap_fresh says so by size
 *   price     the model's device time of a call with snapshot_bytes is that without plus the
 *             bytes at the pack threads' rate, eight times that into a fresh buffer
 *   thin      the model's OpenBLAS rate of a thin call is that of the square of its effective
 *             size: a rank-64 update 4096 x 4096 x 64 runs at the 1024-cube rate (16x k), the
 *             thin output 4096 x 64 x 4096 at the 256-cube rate (4x its narrower side), and
 *             8192 x 8192 x 32 at the 512-cube rate
 *
 * No device is needed for the copy; the price uses a handle on whatever device there is, with
 * CLHGEMM_ROUTE_MODEL fixing the devices' figures.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas/snapshot.h"
#include "common.h"
#include "host/handle.h"
#include "host/pool.h"
#include "host/route.h"

#define PAD_MARK (-7.25)

static chg_pool_t *g_pool; /* the pack threads of the copies (main) */

/* A rows x cols block inside a (rows + pad) x cols matrix of doubles: the block random, the
 * padding PAD_MARK. */
static double *padded(size_t rows, size_t cols, size_t pad, tc_rng_t *rng)
{
    const size_t ld = rows + pad;
    double *m = malloc(ld * cols * sizeof *m);
    if (!m) return NULL;
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < ld; i++) m[j * ld + i] = i < rows ? tc_rng_uniform(rng) : PAD_MARK;
    return m;
}

static void copy_case(size_t rows, size_t cols, size_t pad, tc_rng_t *rng)
{
    const size_t ld = rows + pad;
    double *m = padded(rows, cols, pad, rng), *orig = malloc(ld * cols * sizeof *orig);
    if (!EXPECT(m && orig, "copy %zux%zu: no memory", rows, cols)) {
        free(m);
        free(orig);
        return;
    }
    memcpy(orig, m, ld * cols * sizeof *m);
    chg_snap_t s;
    if (!EXPECT(chg_snap_take(&s, g_pool, m, ld, rows, cols, sizeof(double)) == 0, "copy %zux%zu: take failed", rows,
                cols)) {
        free(m);
        free(orig);
        return;
    }
    size_t bad = 0;
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++) bad += ((const double *)s.p)[j * rows + i] != orig[j * ld + i];
    EXPECT(bad == 0, "copy %zux%zu (ld %zu): %zu elements differ from C", rows, cols, ld, bad);
    /* the devices "wrote" C, then the restore */
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++) m[j * ld + i] = 1e30;
    chg_snap_restore(&s, g_pool, m, ld);
    chg_snap_release(&s);
    bad = 0;
    for (size_t x = 0; x < ld * cols; x++) bad += m[x] != orig[x];
    EXPECT(bad == 0, "restore %zux%zu (ld %zu): %zu elements differ from the original (block or padding)", rows,
           cols, ld, bad);
    free(m);
    free(orig);
}

static void copy(tc_rng_t *rng)
{
    copy_case(1, 1, 0, rng);
    copy_case(37, 5, 3, rng);
    copy_case(300, 400, 0, rng);     /* below 1 MB: one part, contiguous */
    copy_case(1000, 700, 0, rng);    /* 5.6 MB: parts over the pool */
    copy_case(2100, 1100, 9, rng);   /* 18 MB */
    copy_case(2101, 1200, 0, rng);   /* split, contiguous */
    copy_case(3, 1000000, 1, rng);   /* 24 MB of short columns */
}

static void kept(void)
{
    static double c[64 * 64];
    for (int i = 0; i < 64 * 64; i++) c[i] = i;
    chg_snap_t a, b;
    EXPECT(chg_snap_take(&a, g_pool, c, 64, 64, 64, 8) == 0 && a.kept, "the first copy did not take the kept buffer");
    EXPECT(chg_snap_take(&b, g_pool, c, 64, 32, 32, 8) == 0 && !b.kept && b.p != a.p,
           "a copy while the kept buffer is held got it too (kept %d)", b.kept);
    chg_snap_release(&b);
    const char *first = a.p;
    chg_snap_release(&a);
    EXPECT(chg_snap_take(&a, g_pool, c, 64, 48, 64, 8) == 0 && a.kept && a.p == first,
           "a smaller copy after the release did not reuse the kept buffer");
    chg_snap_release(&a);
    /* fresh: above the kept size (24M, main) only */
    const size_t mb = 1u << 20;
    const struct { size_t bytes; int fresh; } tt[] = {{512 * 1024, 0}, {20 * mb, 0}, {24 * mb, 0},
                                                      {24 * mb + 1, 1}, {32 * mb, 1}};
    for (size_t i = 0; i < sizeof tt / sizeof tt[0]; i++)
        EXPECT(chg_snap_fresh(tt[i].bytes) == tt[i].fresh, "a copy of %zu bytes: fresh %d, want %d", tt[i].bytes,
               chg_snap_fresh(tt[i].bytes), tt[i].fresh);
    /* 32 MB > CLHGEMM_BLAS_SNAPSHOT_KEEP=24M (main sets it before the first copy) */
    double *big = calloc(2048 * 2048, sizeof *big);
    if (big) {
        EXPECT(chg_snap_take(&a, g_pool, big, 2048, 2048, 2048, 8) == 0 && !a.kept, "a copy above the limit was kept");
        chg_snap_release(&a);
    }
    free(big);
}

static void price(void)
{
    setenv("CLHGEMM_ROUTE", "auto", 1);
    setenv("CLHGEMM_ROUTE_MODEL", "0.5,1000000", 1);
    clhgemm_handle_t h = NULL;
    const clhgemm_status_t st = clhgemm_create(&h, NULL);
    if (!EXPECT(st == CLHGEMM_SUCCESS, "clhgemm_create: %s", clhgemm_status_string(st))) return;
    const double m = 2000, n = 2000, k = 64;
    chg_route_call_t rc = {.prec = CHG_F64, .name = "dgemm", .m = 2000, .n = 2000, .k = 64, .flops = 2 * m * n * k,
                       .in_elems = (m + n) * k, .c_elems = m * n};
    const double plain = chg_route_device_time(h, &rc);
    for (int fresh = 0; fresh <= 1; fresh++) {
        rc.snapshot_bytes = m * n * 8;
        rc.snapshot_fresh = fresh;
        const double want = plain + rc.snapshot_bytes * (fresh ? 8.0 : 1.0) / h->route.pack;
        const double got = chg_route_device_time(h, &rc);
        EXPECT(fabs(got - want) <= 1e-9 * want, "the device time with a %g-byte copy (fresh %d) is %g s, want %g s",
               rc.snapshot_bytes, fresh, got, want);
    }
    /* OpenBLAS's rate (flops / the model's time) of thin calls against squares */
    const int shapes[3][4] = {{4096, 4096, 64, 1024}, {4096, 64, 4096, 256}, {8192, 8192, 32, 512}};
    for (int i = 0; i < 3; i++) {
        const double sm = shapes[i][0], sn = shapes[i][1], sk = shapes[i][2], q = shapes[i][3];
        const chg_route_call_t thin = {.prec = CHG_F64, .name = "dgemm", .m = (size_t)sm, .n = (size_t)sn,
                                   .k = (size_t)sk, .flops = 2 * sm * sn * sk};
        const chg_route_call_t sq = {.prec = CHG_F64, .name = "dgemm", .m = (size_t)q, .n = (size_t)q, .k = (size_t)q,
                                 .flops = 2 * q * q * q};
        const double rt = thin.flops / chg_route_cpu_time(h, &thin), rs = sq.flops / chg_route_cpu_time(h, &sq);
        EXPECT(rt > 0 && fabs(rt - rs) <= 1e-9 * rs, "OpenBLAS's rate of %gx%gx%g is %g GFLOP/s, the %g-cube's %g",
               sm, sn, sk, rt * 1e-9, q, rs * 1e-9);
    }
    clhgemm_destroy(h);
}

int main(int argc, char **argv)
{
    setenv("CLHGEMM_BLAS_SNAPSHOT_KEEP", "24M", 1);
    tc_rng_t rng;
    tc_rng_seed(&rng, 2311);
    const char *what = argc > 1 ? argv[1] : "all";
    if (!strcmp(what, "all") || !strcmp(what, "copy")) {
        g_pool = chg_pool_create(4);
        if (!EXPECT(g_pool != NULL, "chg_pool_create(4) failed")) return 1;
        copy(&rng);
        kept();
        chg_pool_destroy(g_pool);
    }
    if (!strcmp(what, "all") || !strcmp(what, "price")) {
        const int skip = tc_require_feature();
        if (skip) return skip;
        price();
    }
    printf("test_blas_snapshot: %d checks, %d failures\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
