/*
 * test_plan_model.c -- the host planner's model of a device's first k slice (host/plan.c):
 * how many parts the ramp cuts it into (chg_plan_ramp) and what the model charges for it (the
 * fill term of chg_plan_time), on hand-made inputs shaped like the H100 machine's and PoCL's.
 *
 *   forced   CLHGEMM_RAMP's count (chg_pctx_t.ramp > 0) is used whatever the slice
 *   least    otherwise the count is the one of 1 .. 4 whose fill term is the least, the term
 *            computed by chg_plan_time with each count forced: the choice and the model agree
 *   sizes    a small first slice (DGEMM n = 512 on the H100: 0.17 ms of copies against a part's
 *            fixed cost) is one part; a large one (a 16384-wide tile, bk = 1024) is four; the
 *            count never falls as the slice grows
 *   rates    without the rates the model needs (a zero pack or bus rate or step cost) the count
 *            is the largest, as before the model chose it
 *
 * No device is needed: the planner is pure arithmetic on its inputs.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "host/plan.h"

/* The planner's inputs for a one-device call m x n x k (precision of es bytes, beta != 0),
 * with bus, pack and step figures like the H100 machine's (the "why" lines' inputs). */
static chg_pctx_t h100_like(size_t m, size_t n, size_t k, size_t es)
{
    chg_pctx_t c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.n = n;
    c.k = k;
    c.es = es;
    c.tile_m = c.tile_n = 128;
    c.tile_k = 32;
    c.mem = 60ull << 30;
    c.pinned = 12ull << 30;
    c.max_alloc = 16ull << 30;
    c.rate = es == 8 ? 53e12 : 50e12;
    c.h2d = 54.7e9;
    c.d2h = 54.4e9;
    c.pack = 45e9;
    c.dev = 2292e9;
    c.step_cost = 60e-6;
    c.cus = 132;
    c.ndev = 1;
    c.kgroup = 2;
    return c;
}

/* The fill term of the plan (bm, bn, bk) with the ramp forced to r (0: the model's count). */
static double fill_with(chg_pctx_t c, size_t bm, size_t bn, size_t bk, int r)
{
    chg_pterms_t t;
    c.ramp = r;
    chg_plan_time(&c, bm, bn, bk, AMODE_PREFETCH, &t);
    return t.fill;
}

static void forced(void)
{
    for (int r = 1; r <= 6; r++) {
        chg_pctx_t c = h100_like(512, 512, 512, 8);
        c.ramp = r;
        EXPECT(chg_plan_ramp(&c, 512, 512, 512) == r, "forced %d: got %d", r, chg_plan_ramp(&c, 512, 512, 512));
        c = h100_like(32768, 32768, 32768, 8);
        c.ramp = r;
        EXPECT(chg_plan_ramp(&c, 16384, 16384, 1024) == r, "forced %d on a large slice: got %d", r,
               chg_plan_ramp(&c, 16384, 16384, 1024));
    }
}

/* The model's count has the least fill term of the counts 1 .. 4, over shapes and precisions. */
static void least(void)
{
    static const size_t sizes[] = {128, 256, 384, 512, 768, 1024, 1536, 2048, 4096, 8192, 16384};
    static const size_t bks[] = {64, 128, 256, 512, 1024, 2048};
    for (int p = 0; p < 2; p++) {
        const size_t es = p ? 8 : 4;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (size_t j = 0; j < sizeof bks / sizeof *bks; j++) {
                const size_t n = sizes[i], bk = bks[j] < n ? bks[j] : n;
                chg_pctx_t c = h100_like(n, n, n, es);
                const int r = chg_plan_ramp(&c, n, n, bk);
                EXPECT(r >= 1 && r <= 4, "n %zu bk %zu: %d parts", n, bk, r);
                const double mine = fill_with(c, n, n, bk, 0);
                EXPECT(mine == fill_with(c, n, n, bk, r), "n %zu bk %zu: the fill term %g is not that of %d parts", n,
                       bk, mine, r);
                for (int q = 1; q <= 4; q++)
                    EXPECT(mine <= fill_with(c, n, n, bk, q) * (1 + 1e-12),
                           "n %zu bk %zu es %zu: %d parts fill %g ms, %d parts %g ms", n, bk, es, r, mine * 1e3, q,
                           fill_with(c, n, n, bk, q) * 1e3);
            }
    }
}

static void sizes(void)
{
    chg_pctx_t c = h100_like(512, 512, 512, 8);
    EXPECT(chg_plan_ramp(&c, 512, 512, 512) == 1, "DGEMM 512 (0.17 ms of copies): %d parts, want 1",
           chg_plan_ramp(&c, 512, 512, 512));
    c = h100_like(32768, 32768, 32768, 8);
    EXPECT(chg_plan_ramp(&c, 16384, 16384, 1024) == 4, "a 16384-wide tile, bk 1024: %d parts, want 4",
           chg_plan_ramp(&c, 16384, 16384, 1024));
    /* Monotone: a larger first slice never gets fewer parts. */
    for (int p = 0; p < 2; p++) {
        chg_pctx_t d = h100_like(16384, 16384, 16384, p ? 8 : 4);
        int last = 1;
        for (size_t bk = 32; bk <= 16384; bk *= 2) {
            const int r = chg_plan_ramp(&d, 4096, 4096, bk);
            EXPECT(r >= last, "es %zu bk %zu: %d parts after %d", d.es, bk, r, last);
            last = r;
        }
        EXPECT(last == 4, "es %zu: the largest slice has %d parts, want 4", d.es, last);
    }
    /* A slower host (PoCL-like: 5 GB/s of pack threads and bus, a step of 0.3 ms) gets parts at
     * the same copy time, not the same bytes: DGEMM 512's 4 MiB slice takes 1.7 ms there. */
    c = h100_like(512, 512, 512, 8);
    c.pack = c.h2d = 5e9;
    c.step_cost = 300e-6;
    EXPECT(chg_plan_ramp(&c, 512, 512, 512) == 1, "PoCL-like, DGEMM 512: %d parts, want 1",
           chg_plan_ramp(&c, 512, 512, 512));
    c.step_cost = 30e-6;
    EXPECT(chg_plan_ramp(&c, 512, 512, 512) > 1, "fast steps, slow copies, DGEMM 512: %d parts, want more than 1",
           chg_plan_ramp(&c, 512, 512, 512));
}

static void rates(void)
{
    for (int which = 0; which < 3; which++) {
        chg_pctx_t c = h100_like(512, 512, 512, 8);
        if (which == 0) c.pack = 0;
        if (which == 1) c.h2d = 0;
        if (which == 2) c.step_cost = 0;
        EXPECT(chg_plan_ramp(&c, 512, 512, 512) == 4, "input %d zero: %d parts, want 4", which,
               chg_plan_ramp(&c, 512, 512, 512));
    }
}

int main(void)
{
    forced();
    least();
    sizes();
    rates();
    printf("test_plan_model: %d checks, %d failures\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
