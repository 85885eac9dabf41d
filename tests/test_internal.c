/*
 * test_internal.c -- private helpers with a stated contract (util.h, params.h, gemm.h).
 *
 * Links clhgemm_internal. Unit checks of the size parser behind CLHGEMM_WORKSPACE_LIMIT, the
 * FNV-1a hash that names cache files, the string builder and the kernel-parameter parser; then,
 * on the device, that the workspace budget honours CLHGEMM_WORKSPACE_LIMIT (CTest sets 64K) and
 * that a GEMM split under that cap is still right. With the argument "params-required" it also
 * checks that the CLHGEMM_*GEMM_PARAMS override in the environment is valid and in effect.
 * Level-3 bookkeeping (triangle tile counts, block skipping, k ranges) and the structured packs
 * as building blocks (by global position and from a staged region) are checked too.
 */
#define _GNU_SOURCE /* mmap MAP_ANONYMOUS, mincore (the prefault check) */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "cpu/share_blas.h"
#include "core/gemm.h"
#include "kernels/params.h"
#include "tuning/tuning.h"
#include "base/util.h"
#include "host/pool.h"
#include "host/prefault.h"

static void env_size(void)
{
    static const struct {
        const char *text;
        unsigned long long want;
    } cases[] = {
        {"123", 123ULL},       {"64K", 65536ULL},          {"96K", 98304ULL},
        {"1M", 1048576ULL},    {"2G", 2147483648ULL},      {"abc", 777ULL},
        {"", 777ULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("CLHGEMM_TEST_SIZE_VAR", cases[i].text, 1);
        unsigned long long got = chg_getenv_size("CLHGEMM_TEST_SIZE_VAR", 777ULL);
        EXPECT(got == cases[i].want, "chg_getenv_size(\"%s\") = %llu, want %llu", cases[i].text,
               got, cases[i].want);
    }
    unsetenv("CLHGEMM_TEST_SIZE_VAR");
    EXPECT(chg_getenv_size("CLHGEMM_TEST_SIZE_VAR", 777ULL) == 777ULL, "unset -> default");
    EXPECT(chg_getenv("CLHGEMM_TEST_SIZE_VAR") == NULL, "chg_getenv(unset) != NULL");
    setenv("CLHGEMM_TEST_SIZE_VAR", "", 1);
    EXPECT(chg_getenv("CLHGEMM_TEST_SIZE_VAR") == NULL, "chg_getenv(empty) != NULL");
    unsetenv("CLHGEMM_TEST_SIZE_VAR");
}

static void hash_and_strings(void)
{
    /* FNV-1a 64 reference values */
    EXPECT(chg_hash(CHG_HASH_INIT, "", 0) == 0xcbf29ce484222325ULL, "fnv1a(\"\")");
    EXPECT(chg_hash(CHG_HASH_INIT, "a", 1) == 0xaf63dc4c8601ec8cULL, "fnv1a(\"a\")");
    EXPECT(chg_hash(CHG_HASH_INIT, "foobar", 6) == 0x85944171f73967e8ULL, "fnv1a(\"foobar\")");
    EXPECT(chg_hash(chg_hash(CHG_HASH_INIT, "foo", 3), "bar", 3) ==
               chg_hash(CHG_HASH_INIT, "foobar", 6),
           "fnv1a chaining");

    chg_str_t s;
    chg_str_init(&s);
    chg_str_append(&s, "#define X ");
    chg_str_printf(&s, "%d\n", 42);
    for (int i = 0; i < 2000; i++) chg_str_printf(&s, "%c", 'a' + i % 26);
    EXPECT(!s.failed && s.data && s.len == strlen(s.data) && s.len == 13 + 2000 &&
               !strncmp(s.data, "#define X 42\n", 13) && s.data[13 + 1999] == 'a' + 1999 % 26,
           "chg_str: len %zu", s.len);
    chg_str_free(&s);

    EXPECT(chg_round_up(5, 4) == 8 && chg_round_up(8, 4) == 8 && chg_round_up(0, 4) == 0 &&
               chg_round_up(1, 1) == 1,
           "chg_round_up");
}

static void params(const chg_device_t *dev, int has_fp64)
{
    for (int prec = 0; prec < 2; prec++) {
        if (prec == CHG_F64 && !has_fp64) continue;
        chg_gemm_params_t p, q;
        memset(&p, 0, sizeof p);
        chg_gemm_params_default(dev, (chg_precision_t)prec, &p);
        char why[256] = "";
        EXPECT(chg_gemm_params_valid(dev, (chg_precision_t)prec, &p, why, sizeof why) == 1,
               "default parameters (prec %d) not valid on the device: %s", prec, why);
        memset(&q, 0, sizeof q);
        chg_gemm_params_select(dev, (chg_precision_t)prec, &q);
        EXPECT(chg_gemm_params_valid(dev, (chg_precision_t)prec, &q, why, sizeof why) == 1,
               "selected parameters (prec %d) not valid: %s", prec, why);

        q = p;
        EXPECT(chg_gemm_params_parse("MWG=128,NWG=64", &q) == 0 && q.mwg == 128 && q.nwg == 64 &&
                   q.kwg == p.kwg && q.mdimc == p.mdimc && q.vwm == p.vwm && q.kwi == p.kwi,
               "parse \"MWG=128,NWG=64\"");
        q = p;
        EXPECT(chg_gemm_params_parse("kwg=32", &q) == 0 && q.kwg == 32 && q.mwg == p.mwg,
               "parse is case-insensitive");
        q = p;
        EXPECT(chg_gemm_params_parse("MWG=abc", &q) == -1 && !memcmp(&q, &p, sizeof q),
               "malformed \"MWG=abc\": must return -1 and leave p unchanged");
        q = p;
        EXPECT(chg_gemm_params_parse("MWG=64,NWG", &q) == -1 && !memcmp(&q, &p, sizeof q),
               "malformed \"MWG=64,NWG\": must return -1 and leave p unchanged");

        /* plainly impossible parameters are refused */
        q = p;
        q.vwm = 3;
        EXPECT(chg_gemm_params_valid(dev, (chg_precision_t)prec, &q, NULL, 0) == 0,
               "VWM=3 accepted");
        q = p;
        q.mdimc = 1 << 20;
        EXPECT(chg_gemm_params_valid(dev, (chg_precision_t)prec, &q, NULL, 0) == 0,
               "MDIMC=2^20 accepted");

        /* rasterisation: any width 0..64 on any kernel, and it round-trips through the text */
        q = p;
        EXPECT(chg_gemm_params_parse("SWZ=8", &q) == 0 && q.swz == 8 &&
                   chg_gemm_params_valid(dev, (chg_precision_t)prec, &q, why, sizeof why) == 1,
               "SWZ=8 (prec %d): %s", prec, why);
        char text[200];
        chg_gemm_params_format(&q, text, sizeof text);
        EXPECT(strstr(text, ",SWZ=8") != NULL, "SWZ missing from \"%s\"", text);
        q.swz = 65;
        EXPECT(chg_gemm_params_valid(dev, (chg_precision_t)prec, &q, NULL, 0) == 0, "SWZ=65 accepted");

        /* two slices in flight: the staged tensor-core kernel only; it round-trips too */
        q = p;
        EXPECT(chg_gemm_params_parse("PF=2", &q) == 0 && q.pf == 2, "PF=2 not parsed");
        EXPECT(q.mma || !chg_gemm_params_valid(dev, (chg_precision_t)prec, &q, NULL, 0),
               "PF=2 on the FMA kernel accepted (prec %d)", prec);
        q.mma = 2;
        q.wm = 1;
        q.sa = 1;
        chg_gemm_params_format(&q, text, sizeof text);
        EXPECT(strstr(text, ",PF=2") != NULL, "PF missing from \"%s\"", text);
        q.pf = 3;
        EXPECT(!chg_gemm_params_valid(dev, (chg_precision_t)prec, &q, NULL, 0), "PF=3 accepted");
        q.pf = 1;
        chg_gemm_params_format(&q, text, sizeof text);
        EXPECT(strstr(text, "PF") == NULL, "PF=1 written in \"%s\"", text);

        /* TF32 is FP32-only, needs the tensor-core kernel (MMA=3) and tensor cores */
        q = p;
        q.tf32 = 1;
        EXPECT(!chg_gemm_params_valid(dev, (chg_precision_t)prec, &q, NULL, 0),
               "TF32=1 without MMA accepted (prec %d)", prec);
        chg_gemm_params_tf32(3, &q);
        const int tc = (dev->features & CHG_FEAT_NV_MMA_F64) != 0;
        EXPECT(chg_gemm_params_valid(dev, (chg_precision_t)prec, &q, why, sizeof why) ==
                   (prec == CHG_F32 && tc),
               "the TF32 geometry (prec %d, tensor cores %d): valid must be %d (%s)", prec, tc,
               prec == CHG_F32 && tc, why);
        q.tf32 = 2;
        EXPECT(!chg_gemm_params_valid(dev, (chg_precision_t)prec, &q, NULL, 0), "TF32=2 accepted");
    }
}

/* CLHGEMM_SGEMM_MATH: the opt-in is read per selection; without NVIDIA tensor cores (PoCL) it
 * leaves the IEEE kernel, with them it selects the TF32 kernel; DGEMM never changes. */
static void sgemm_math(const chg_device_t *dev)
{
    static const struct { const char *v; int math; } vals[] = {
        {"ieee", 0}, {"tf32", 1}, {"3xTF32", 3}, {"fast", -1}};
    const int tc = (dev->features & CHG_FEAT_NV_MMA_F64) != 0;
    chg_gemm_params_t plain, got, dplain, dgot;
    unsetenv("CLHGEMM_SGEMM_MATH");
    chg_gemm_params_select(dev, CHG_F32, &plain);
    chg_gemm_params_select(dev, CHG_F64, &dplain);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        setenv("CLHGEMM_SGEMM_MATH", vals[i].v, 1);
        EXPECT(chg_sgemm_math() == vals[i].math, "CLHGEMM_SGEMM_MATH=%s -> %d", vals[i].v,
               chg_sgemm_math());
        chg_gemm_params_select(dev, CHG_F32, &got);
        chg_gemm_params_select(dev, CHG_F64, &dgot);
        const int want_tf32 = tc && vals[i].math > 0 ? vals[i].math : 0;
        EXPECT(got.tf32 == want_tf32 && (want_tf32 ? got.mma == 3 : !memcmp(&got, &plain, sizeof got)),
               "CLHGEMM_SGEMM_MATH=%s: selected TF32=%d MMA=%d, want TF32=%d", vals[i].v, got.tf32,
               got.mma, want_tf32);
        EXPECT(!memcmp(&dgot, &dplain, sizeof dgot), "CLHGEMM_SGEMM_MATH=%s changed DGEMM", vals[i].v);
    }
    unsetenv("CLHGEMM_SGEMM_MATH");
}

/* Level-3 block logic (gemm.h): the TRIANGLE work-group count must be exactly the number of
 * tiles that touch the triangle (brute force over every tile), block skipping must keep every
 * block that holds an element of the triangle and only those, and the k range of a triangular
 * operand must cover every non-zero of the block and nothing before / after it. */
static void level3_blocks(void)
{
    static const int tiles[][2] = {{32, 32}, {64, 32}, {16, 128}, {128, 128}, {48, 80}};
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
        const int mwg = tiles[t][0], nwg = tiles[t][1];
        for (size_t mt = 1; mt <= 9; mt += 4)
            for (size_t nt = 1; nt <= 9; nt += 3)
                for (long diag = -400; diag <= 400; diag += 37)
                    for (int upper = 0; upper < 2; upper++) {
                        size_t want = 0;
                        for (size_t tj = 0; tj < nt; tj++)
                            for (size_t ti = 0; ti < mt; ti++) {
                                int touch = 0;
                                for (long r = 0; r < mwg && !touch; r++)
                                    for (long c = 0; c < nwg && !touch; c++) {
                                        long d = (long)ti * mwg + r + diag - ((long)tj * nwg + c);
                                        touch = upper ? d <= 0 : d >= 0;
                                    }
                                want += touch;
                            }
                        size_t got = chg_l3_triangle_tiles(upper, diag, mt, nt, mwg, nwg);
                        EXPECT(got == want,
                               "triangle tiles upper=%d diag=%ld %zux%zu of %dx%d: %zu, want %zu",
                               upper, diag, mt, nt, mwg, nwg, got, want);
                    }
    }
    for (int upper = 0; upper < 2; upper++) {
        chg_struct_t st = {0};
        st.c_tri = upper ? CHG_TRI_UPPER : CHG_TRI_LOWER;
        static const size_t blocks[][4] = {{0, 10, 10, 5}, {10, 5, 0, 10}, {0, 10, 9, 5},
                                           {9, 5, 0, 10}, {20, 7, 20, 7}, {5, 1, 5, 1}};
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            const size_t i0 = blocks[b][0], mc = blocks[b][1], j0 = blocks[b][2], nc = blocks[b][3];
            int want = 0;
            for (size_t i = i0; i < i0 + mc; i++)
                for (size_t j = j0; j < j0 + nc; j++) want |= upper ? i <= j : i >= j;
            EXPECT(chg_l3_block_needed(&st, i0, mc, j0, nc) == want,
                   "block (%zu+%zu, %zu+%zu) needed for %s", i0, mc, j0, nc,
                   upper ? "upper" : "lower");
        }
        /* triangular X_A (rows i0..i0+mc) and X_B (rows j0..j0+nc) in a k = 50 product */
        for (int side = 0; side < 2; side++) {
            chg_struct_t tr = {0};
            if (side == 0) tr.kind_a = CHG_TRIANGULAR, tr.upper_a = upper;
            else tr.kind_b = CHG_TRIANGULAR, tr.upper_b = upper;
            for (size_t x0 = 0; x0 < 50; x0 += 7) {
                const size_t xc = CHG_MIN(9, 50 - x0);
                size_t lo = 50, hi = 0;
                for (size_t x = x0; x < x0 + xc; x++)
                    for (size_t p = 0; p < 50; p++)
                        if (upper ? x <= p : x >= p) {
                            lo = CHG_MIN(lo, p);
                            hi = CHG_MAX(hi, p + 1);
                        }
                size_t klo, khi;
                if (side == 0) chg_l3_k_range(&tr, x0, xc, 3, 4, 50, &klo, &khi);
                else chg_l3_k_range(&tr, 3, 4, x0, xc, 50, &klo, &khi);
                EXPECT(klo == lo && khi == hi, "k range of %s X_%c rows %zu+%zu: [%zu, %zu), want [%zu, %zu)",
                       upper ? "upper" : "lower", side ? 'B' : 'A', x0, xc, klo, khi, lo, hi);
            }
        }
    }
}

/* chg_l3_klimit_fill against a plain restatement: tile (gm, gn)'s KWG slices from its own k
 * range (cl/gemm.cl KBEG / KEND at diag 0) plus one, launched in the kernel's order, each taken
 * by the earliest free of `slots` slots (a linear scan). */
static double klimit_fill_ref(int klimit, chg_precision_t prec, const chg_gemm_params_t *gp,
                              size_t mt, size_t nt, size_t k, size_t slots)
{
    const long kp = (long)((k + (size_t)gp->kwg - 1) / (size_t)gp->kwg * (size_t)gp->kwg);
    const int lpt = chg_l3_klimit_longest_first(prec, gp);
    double free_at[64] = {0}, total = 0.0;
    for (size_t lin = 0; lin < mt * nt; lin++) {
        long gm, gn;
        if (!lpt) gm = (long)(lin % mt), gn = (long)(lin / mt);
        else if (klimit <= 2) {
            const long row = (long)(lin / nt);
            gm = klimit == 1 ? row : (long)mt - 1 - row, gn = (long)(lin % nt);
        } else {
            const long col = (long)(lin / mt);
            gm = (long)(lin % mt), gn = klimit == 3 ? col : (long)nt - 1 - col;
        }
        const long w = klimit <= 2 ? gm * gp->mwg : gn * gp->nwg,
                   we = klimit <= 2 ? (gm + 1) * gp->mwg : (gn + 1) * gp->nwg;
        long kb = 0, ke = kp;
        if (klimit == 1 || klimit == 3) kb = CHG_MIN(w / gp->kwg * gp->kwg, kp);
        else ke = CHG_MIN((we + gp->kwg - 1) / gp->kwg * gp->kwg, kp);
        const double cost = (double)((ke - kb) / gp->kwg) + 1.0;
        size_t best = 0;
        for (size_t s = 1; s < slots; s++)
            if (free_at[s] < free_at[best]) best = s;
        free_at[best] += cost;
        total += cost;
    }
    double end = 0.0;
    for (size_t s = 0; s < slots; s++) end = CHG_MAX(end, free_at[s]);
    return total / ((double)slots * end);
}

static void klimit_fill(void)
{
    /* by hand: 4 x 33 tiles of 128 x 128 (FP32: longest first) over k = 512 (KWG 16), lower A:
     * rows of 9, 17, 25, 33 slice costs, one wave of 132 slots -> 33 x 84 / (132 x 33) */
    chg_gemm_params_t big = {.mwg = 128, .nwg = 128, .kwg = 16};
    double f = chg_l3_klimit_fill(2, CHG_F32, &big, 4, 33, 512, 132);
    EXPECT(fabs(f - 84.0 / 132.0) < 1e-12, "klimit fill of the one-wave leaf %.6f, want %.6f", f,
           84.0 / 132.0);
    /* uniform k ranges (every row reaches k) give tiles / (waves x slots) */
    chg_gemm_params_t small = {.mwg = 64, .nwg = 32, .kwg = 16};
    f = chg_l3_klimit_fill(2, CHG_F32, &small, 2, 2, 64, 3);
    EXPECT(fabs(f - 4.0 / 6.0) < 1e-12, "klimit fill of uniform tiles %.6f, want %.6f", f,
           4.0 / 6.0);
    /* above 64 tiles a slot: total / (slots x (total / slots + the longest)); 65 uniform tiles
     * of 2 + 1 slice costs on one slot: 195 / (195 + 3) */
    f = chg_l3_klimit_fill(2, CHG_F32, &small, 1, 65, 32, 1);
    EXPECT(fabs(f - 195.0 / 198.0) < 1e-12, "klimit fill's bound %.6f, want %.6f", f,
           195.0 / 198.0);
    static const int geo[][4] = {{128, 128, 16, 0}, {64, 32, 16, 0}, {128, 192, 8, 2},
                                 {64, 128, 8, 2}, {48, 80, 8, 0}};
    for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++) {
        chg_gemm_params_t gp = {
            .mwg = geo[g][0], .nwg = geo[g][1], .kwg = geo[g][2], .mma = geo[g][3]};
        const chg_precision_t prec = gp.mma ? CHG_F64 : CHG_F32;
        for (int kl = 1; kl <= 4; kl++)
            for (size_t mt = 1; mt <= 9; mt += 4)
                for (size_t nt = 1; nt <= 13; nt += 6)
                    for (size_t slots = 1; slots <= 40; slots += 13) {
                        const size_t k = (kl <= 2 ? mt * (size_t)gp.mwg : nt * (size_t)gp.nwg) - 5;
                        if (mt * nt > 64 * slots) continue; /* the bound's case, below */
                        const double got = chg_l3_klimit_fill(kl, prec, &gp, mt, nt, k, slots),
                                     want = klimit_fill_ref(kl, prec, &gp, mt, nt, k, slots);
                        EXPECT(fabs(got - want) < 1e-12,
                               "klimit fill %d %dx%d %zux%zu k=%zu slots=%zu: %.6f, want %.6f",
                               kl, gp.mwg, gp.nwg, mt, nt, k, slots, got, want);
                    }
    }
}

/* The structured packs as building blocks: a sub-block of a symmetric / triangular X_A, by
 * its global position in the whole matrix (chg_enqueue_pack_a_at) and from a staged copy of
 * only the region it reads, elsewhere in another buffer with another ld
 * (chg_enqueue_pack_a_struct), must both give exactly the packed layout of cl/gemm.cl: the
 * block's X(i,p) at [(i/MWG)][p][i%MWG], zero padding, the other triangle never read (NaN). */
static float x_elem(const float *mem, size_t ld, int contig, int i, int p)
{
    return contig ? mem[(size_t)i + (size_t)p * ld] : mem[(size_t)p + (size_t)i * ld];
}

static void level3_packs(const tc_env_t *env, const chg_device_t *dev)
{
    const int N = 70, LD = 75;
    chg_gemm_params_t gp;
    chg_gemm_params_select(dev, CHG_F32, &gp);
    const int mwg = gp.mwg, kwg = gp.kwg;
    static const int blocks[][4] = {{20, 35, 30, 25}, {30, 20, 33, 40}, {0, 0, 70, 70}, {45, 5, 20, 9}};
    tc_rng_t rng;
    tc_rng_seed(&rng, 0xBAC5ULL);
    for (int kind = 1; kind <= 2; kind++)
        for (int upper = 0; upper < 2; upper++)
            for (int trans = 0; trans < 2; trans++)
                for (int unit = 0; unit < (kind == 2 ? 2 : 1); unit++) {
                    const int contig = !trans;
                    chg_struct_t st = {0};
                    st.kind_a = (chg_struct_kind_t)kind;
                    st.upper_a = upper;
                    st.unit_a = unit;
                    chg_gemm_kernels_t ks;
                    clhgemm_status_t s =
                        chg_l3_kernels_create(env->ctx, dev, CHG_F32, &gp, trans, 0, 1, &st, &ks);
                    EXPECT(s == CLHGEMM_SUCCESS, "chg_l3_kernels_create -> %s", clhgemm_status_string(s));
                    if (s != CLHGEMM_SUCCESS) continue;
                    /* X's memory: random inside the stored triangle, NaN where nothing may read */
                    float *mem = malloc(sizeof(float) * LD * N);
                    for (int p = 0; p < N; p++)
                        for (int i = 0; i < N; i++) {
                            const int in = upper ? i <= p : i >= p;
                            const float v = (!in || (kind == 2 && unit && i == p))
                                                ? NAN : (float)tc_rng_uniform(&rng);
                            if (contig) mem[(size_t)i + (size_t)p * LD] = v;
                            else mem[(size_t)p + (size_t)i * LD] = v;
                        }
                    for (int p = 0; p < N; p++)
                        for (int i = N; i < LD; i++) mem[(size_t)i + (size_t)p * LD] = NAN;
                    cl_mem src = tc_buffer_from_host(env->ctx, mem, sizeof(float) * LD * N);
                    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
                        const int i0 = blocks[b][0], p0 = blocks[b][1], mc = blocks[b][2], kc = blocks[b][3];
                        const size_t mpad = chg_round_up((size_t)mc, (size_t)mwg),
                                     kpad = chg_round_up((size_t)kc, (size_t)kwg);
                        float *want = malloc(sizeof(float) * mpad * kpad);
                        for (size_t i = 0; i < mpad; i++)
                            for (size_t p = 0; p < kpad; p++) {
                                float v = 0.0f;
                                const int gi = i0 + (int)i, gq = p0 + (int)p;
                                if ((int)i < mc && (int)p < kc) {
                                    const int in = upper ? gi <= gq : gi >= gq;
                                    if (kind == 1) v = in ? x_elem(mem, LD, contig, gi, gq) : x_elem(mem, LD, contig, gq, gi);
                                    else if (unit && gi == gq) v = 1.0f;
                                    else v = in ? x_elem(mem, LD, contig, gi, gq) : 0.0f;
                                }
                                want[(i / mwg) * (kpad * mwg) + p * mwg + i % mwg] = v;
                            }
                        /* the staged copy: the square region [lo, hi)^2 at offset 7, ld hi-lo+3 */
                        const int lo = CHG_MIN(i0, p0), hi = CHG_MAX(i0 + mc, p0 + kc), n2 = hi - lo;
                        const size_t ld2 = (size_t)n2 + 3;
                        float *st2 = malloc(sizeof(float) * (7 + ld2 * n2));
                        for (size_t x = 0; x < 7 + ld2 * n2; x++) st2[x] = NAN;
                        for (int c = 0; c < n2; c++)
                            for (int r = 0; r < n2; r++)
                                st2[7 + r + c * ld2] = mem[(size_t)(lo + r) + (size_t)(lo + c) * LD];
                        cl_mem staged = tc_buffer_from_host(env->ctx, st2, sizeof(float) * (7 + ld2 * n2));
                        cl_int err;
                        cl_mem dst = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof(float) * mpad * kpad, NULL, &err);
                        float *got = malloc(sizeof(float) * mpad * kpad);
                        for (int way = 0; way < 2; way++) {
                            cl_event ev = NULL;
                            if (way == 0) {
                                err = chg_enqueue_pack_a_at(env->queue, &ks, (size_t)i0, (size_t)p0, (size_t)mc,
                                                            (size_t)kc, src, 0, LD, dst, 0, 0, NULL, &ev);
                            } else {
                                const size_t si = contig ? 1 : ld2, sp = contig ? ld2 : 1;
                                const size_t ri = (size_t)(i0 - lo), rp = (size_t)(p0 - lo);
                                err = chg_enqueue_pack_a_struct(env->queue, &ks, (long)i0 - p0, (size_t)mc,
                                                                (size_t)kc, staged, 7 + ri * si + rp * sp,
                                                                7 + rp * si + ri * sp, ld2, dst, 0, 0, 0, NULL, &ev);
                            }
                            if (err == CL_SUCCESS) {
                                clWaitForEvents(1, &ev);
                                clReleaseEvent(ev);
                                err = tc_read(env->queue, dst, got, sizeof(float) * mpad * kpad) ? CL_INVALID_VALUE : CL_SUCCESS;
                            }
                            size_t bad = 0, first = 0;
                            for (size_t x = 0; err == CL_SUCCESS && x < mpad * kpad; x++)
                                if (memcmp(&got[x], &want[x], sizeof(float)) && !bad++) first = x;
                            EXPECT(err == CL_SUCCESS && bad == 0,
                                   "%s pack %s upper=%d trans=%d unit=%d block (%d+%d, %d+%d): err %d, "
                                   "%zu wrong, first at %zu (got %g want %g)",
                                   kind == 1 ? "sym" : "tri", way ? "staged" : "at", upper, trans, unit,
                                   i0, mc, p0, kc, (int)err, bad, first, bad ? got[first] : 0.0,
                                   bad ? want[first] : 0.0);
                        }
                        free(got);
                        free(want);
                        free(st2);
                        clReleaseMemObject(dst);
                        clReleaseMemObject(staged);
                    }
                    clReleaseMemObject(src);
                    free(mem);
                    chg_gemm_kernels_release(&ks);
                }
}

/* With CLHGEMM_{S,D,}GEMM_PARAMS set (CTest does so for the kernel-variant tests), the override
 * must be the one in effect: an invalid override is silently ignored by design, which would
 * leave those tests running the default kernel. */
/* The direct-operand decision of the blocked core (gemm.h): which layouts are read in place,
 * and every condition that must turn it off. */
static void direct_modes(const tc_env_t *env, const chg_device_t *dev)
{
    chg_gemm_params_t gp;
    chg_gemm_params_select(dev, CHG_F32, &gp);
    const size_t mw = (size_t)gp.mwg, nw = (size_t)gp.nwg, kw = (size_t)gp.kwg;
    const size_t m = 2 * mw, n = 2 * nw, k = 2 * kw, big = 4 * (m + n) * k + 8 * m * n;
    cl_int err;
    cl_mem buf = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, big * 4, NULL, &err);
    cl_mem cbuf = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, m * n * 4 + 64, NULL, &err);
    if (!buf || !cbuf) {
        EXPECT(0, "buffers for direct_modes: %d", err);
        return;
    }
    const int all = CHG_DIRECT_A | CHG_DIRECT_B | CHG_DIRECT_C | CHG_DIRECT_BETA0;
    chg_gemm_args_t base = {.prec = CHG_F32, .trans_a = 0, .trans_b = 1, .m = m, .n = n, .k = k,
                            .alpha = 1, .beta = 0, .a = buf, .b = buf, .c = cbuf,
                            .off_a = 0, .off_b = big - n * k - 64, .off_c = 0, .lda = m, .ldb = n,
                            .ldc = m};
    unsetenv("CLHGEMM_DIRECT");
    chg_gemm_args_t a = base;
    EXPECT(chg_gemm_direct_mode(&a, &gp, k) == all, "NT aligned, beta 0: %d", chg_gemm_direct_mode(&a, &gp, k));
    a.beta = 0.5;
    EXPECT(chg_gemm_direct_mode(&a, &gp, k) == (all & ~CHG_DIRECT_BETA0), "beta 0.5");
    EXPECT(chg_gemm_direct_mode(&a, &gp, k - kw) == (CHG_DIRECT_A | CHG_DIRECT_B), "two k slices: no direct C");
    a = base; a.trans_a = 1; a.trans_b = 0; a.lda = k; a.ldb = k;
    /* k < 256: B not transposed stays packed on the FMA kernel (below: k >= 256) */
    EXPECT(chg_gemm_direct_mode(&a, &gp, k) == (CHG_DIRECT_C | CHG_DIRECT_BETA0), "TN: only C, got %d",
           chg_gemm_direct_mode(&a, &gp, k));
    a = base; a.off_a = 1;
    EXPECT(!(chg_gemm_direct_mode(&a, &gp, k) & CHG_DIRECT_A) || gp.vwm == 1, "misaligned offset of A");
    a = base; a.lda = m + 1;
    EXPECT(!(chg_gemm_direct_mode(&a, &gp, k) & CHG_DIRECT_A) || gp.vwm == 1, "misaligned lda");
    a = base; a.k = k + 1;
    EXPECT(!(chg_gemm_direct_mode(&a, &gp, a.k) & (CHG_DIRECT_A | CHG_DIRECT_B)), "k not a multiple of KWG");
    a = base; a.off_b = big - k * n + (size_t)gp.vwn; /* the last padded row past the end */
    EXPECT(!(chg_gemm_direct_mode(&a, &gp, k) & CHG_DIRECT_B), "B read past the buffer");
    a = base; a.c = buf; a.off_c = 0; /* C over A */
    EXPECT(chg_gemm_direct_mode(&a, &gp, k) == (all & ~CHG_DIRECT_A), "C overlapping A: %d", chg_gemm_direct_mode(&a, &gp, k));
    a.off_c = m * k + 64; /* C in the same buffer, between A and B */
    EXPECT(chg_gemm_direct_mode(&a, &gp, k) == all, "C beside A and B in one buffer");
    /* a sub-buffer inside B's region (origin aligned for any device) */
    cl_buffer_region reg = {chg_round_up(base.off_b * 4, 4096), 64 * 4};
    cl_mem sub = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    if (sub) {
        a = base; a.c = sub; a.off_c = 0; a.m = 8; a.n = 8; a.ldc = 8;
        EXPECT(!(chg_gemm_direct_mode(&a, &gp, k) & CHG_DIRECT_B), "C a sub-buffer over B");
        clReleaseMemObject(sub);
    }
    a = base;
    setenv("CLHGEMM_DIRECT", "off", 1);
    EXPECT(chg_gemm_direct_mode(&a, &gp, k) == 0, "CLHGEMM_DIRECT=off");
    setenv("CLHGEMM_DIRECT", "c", 1);
    EXPECT(chg_gemm_direct_mode(&a, &gp, k) == (CHG_DIRECT_C | CHG_DIRECT_BETA0), "CLHGEMM_DIRECT=c");
    setenv("CLHGEMM_DIRECT", "a,b", 1);
    EXPECT(chg_gemm_direct_mode(&a, &gp, k) == (CHG_DIRECT_A | CHG_DIRECT_B), "CLHGEMM_DIRECT=a,b");
    unsetenv("CLHGEMM_DIRECT");
    chg_gemm_params_t mma = gp;
    mma.mma = 2; /* the decision only: no kernel is built */
    EXPECT(chg_gemm_direct_mode(&a, &mma, k) == all,
           "tensor-core kernel, auto, beta 0, a small product: all, got %d", chg_gemm_direct_mode(&a, &mma, k));
    a.beta = 0.5;
    EXPECT(chg_gemm_direct_mode(&a, &mma, k) == (CHG_DIRECT_A | CHG_DIRECT_B | CHG_DIRECT_C),
           "tensor-core kernel, auto, beta 0.5, a small product: A, B, C, got %d", chg_gemm_direct_mode(&a, &mma, k));
    a.k = 8192 + kw; /* a large k: C still by the kernel */
    EXPECT(chg_gemm_direct_mode(&a, &mma, a.k) & CHG_DIRECT_C, "tensor-core kernel, auto, beta 0.5, k = %zu: C, got %d",
           a.k, chg_gemm_direct_mode(&a, &mma, a.k));
    a.k = k;
    {
        /* B not transposed (k-major): read in place only by the staged tensor-core kernel */
        chg_gemm_args_t nn = base;
        nn.trans_b = 0;
        nn.ldb = k;
        nn.off_b = big - n * k - 64;
        chg_gemm_params_t st = mma;
        st.sb = 1;
        EXPECT(chg_gemm_direct_mode(&nn, &st, k) == (CHG_DIRECT_A | CHG_DIRECT_BK | CHG_DIRECT_C | CHG_DIRECT_BETA0),
               "tensor-core kernel, staged B, NN: A, B k-major, C; got %d", chg_gemm_direct_mode(&nn, &st, k));
        st.sb = 0;
        EXPECT(!(chg_gemm_direct_mode(&nn, &st, k) & CHG_DIRECT_BANY), "tensor-core kernel, B not staged, NN: B packed");
        chg_gemm_params_t fs = gp;
        fs.sb = 0;
        EXPECT(!(chg_gemm_direct_mode(&nn, &fs, k) & CHG_DIRECT_BANY), "FMA kernel, B not staged, NN: B packed");
        fs.sb = 1;
        EXPECT(!(chg_gemm_direct_mode(&nn, &fs, k) & CHG_DIRECT_BANY),
               "FMA kernel, staged B, a small blocked NN with k = %zu < 256: B packed", k);
        chg_gemm_args_t nk = nn; /* the same with k >= 256: B k-major */
        nk.k = chg_round_up(256, kw);
        nk.ldb = nk.k;
        nk.off_b = big - n * nk.k - 64;
        EXPECT((chg_gemm_direct_mode(&nk, &fs, nk.k) & CHG_DIRECT_BANY) == CHG_DIRECT_BK,
               "FMA kernel, staged B, a small blocked NN with k = %zu: B k-major, got %d", nk.k,
               chg_gemm_direct_mode(&nk, &fs, nk.k));
        nn.off_b = big - (n - 1) * k; /* the last column's k rows past the end */
        st.sb = 1;
        EXPECT(!(chg_gemm_direct_mode(&nn, &st, k) & CHG_DIRECT_BANY), "k-major B read past the buffer");
    }
    {
        /* a product above CHG_DIRECT_AB_MMA_MNK in a buffer that holds its A and B: C only */
        const size_t bm = chg_round_up(4096, mw), bn = chg_round_up(4096, nw), bk = chg_round_up(256, kw);
        const size_t words = bm * bk + bk * bn + 64;
        cl_mem ab = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, words * 4, NULL, &err);
        cl_mem cc = ab ? clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, bm * bn * 4, NULL, &err) : NULL;
        if (ab && cc) {
            chg_gemm_args_t l = {.prec = CHG_F32, .trans_a = 0, .trans_b = 1, .m = bm, .n = bn, .k = bk,
                                 .alpha = 1, .beta = 0, .a = ab, .b = ab, .c = cc, .off_a = 0,
                                 .off_b = bm * bk, .off_c = 0, .lda = bm, .ldb = bn, .ldc = bm};
            EXPECT((double)bm * bn * bk > CHG_DIRECT_AB_MMA_MNK, "the large product is above the threshold");
            EXPECT((double)bm * bn * bk > CHG_DIRECT_BK_FMA_MNK, "... and the FMA kernel's B threshold");
            EXPECT(chg_gemm_direct_mode(&l, &gp, bk) == (all & ~CHG_DIRECT_B),
                   "FMA kernel, large product: A and C, B transposed packed, got %d",
                   chg_gemm_direct_mode(&l, &gp, bk));
            EXPECT(chg_gemm_direct_mode(&l, &mma, bk) == (CHG_DIRECT_C | CHG_DIRECT_BETA0),
                   "tensor-core kernel, large product: C only, got %d", chg_gemm_direct_mode(&l, &mma, bk));
            chg_gemm_params_t fs = gp;
            fs.sb = 1;
            l.trans_b = 0;
            l.ldb = bk;
            EXPECT(!(chg_gemm_direct_mode(&l, &fs, bk) & CHG_DIRECT_BANY), "FMA kernel, large NN: B packed");
        } else {
            EXPECT(0, "buffers for the large product: %d", err);
        }
        if (cc) clReleaseMemObject(cc);
        if (ab) clReleaseMemObject(ab);
    }
    a.beta = 0.0;
    setenv("CLHGEMM_DIRECT", "on", 1);
    EXPECT(chg_gemm_direct_mode(&a, &mma, k) == all, "tensor-core kernel, CLHGEMM_DIRECT=on");
    unsetenv("CLHGEMM_DIRECT");
    a.st.c_tri = CHG_TRI_UPPER;
    EXPECT(chg_gemm_direct_mode(&a, &gp, k) == 0, "a level-3 structure: none");
    a = base; a.swap_sum = 1;
    EXPECT(chg_gemm_direct_mode(&a, &gp, k) == 0, "SYR2K fused: none");
    clReleaseMemObject(buf);
    clReleaseMemObject(cbuf);
}

static void params_required(const chg_device_t *dev, int has_fp64)
{
    for (int prec = 0; prec < 2; prec++) {
        if (prec == CHG_F64 && !has_fp64) continue;
        const char *text = chg_getenv(prec ? "CLHGEMM_DGEMM_PARAMS" : "CLHGEMM_SGEMM_PARAMS");
        if (!text) text = chg_getenv("CLHGEMM_GEMM_PARAMS");
        if (!text) continue;
        chg_gemm_params_t want, got;
        /* The override applies over the tuning entry in effect (built-in defaults if none). */
        chg_tuning_entry_t entry;
        chg_tuning_lookup(dev, (chg_precision_t)prec, &entry);
        want = entry.prec.gemm;
        int parsed = chg_gemm_params_parse(text, &want);
        char why[256] = "";
        int valid = parsed == 0 &&
                    chg_gemm_params_valid(dev, (chg_precision_t)prec, &want, why, sizeof why);
        chg_gemm_params_select(dev, (chg_precision_t)prec, &got);
        char buf[256];
        chg_gemm_params_format(&got, buf, sizeof buf);
        printf("%cgemm parameters in effect: %s\n", prec ? 'd' : 's', buf);
        EXPECT(valid && !memcmp(&want, &got, sizeof got),
               "override \"%s\" (prec %d) not in effect: %s", text, prec,
               parsed ? "malformed" : why);
    }
}

/* The time model of Garcia, Cuenca and Gimenez: exact data is recovered; data too noisy for three
 * terms (times that fall as the work grows give k1 <= 0) falls back to the rate alone, never a
 * k1 <= 0. */
static void tmodel(void)
{
    const double m[5] = {256, 512, 1024, 512, 2048}, n[5] = {256, 512, 1024, 1024, 512},
                 k[5] = {256, 512, 512, 1024, 2048};
    double t[5];
    const chg_tmodel_t want = {2e-11, 3e-9, 4e-4};
    for (int i = 0; i < 5; i++) t[i] = chg_tmodel_eval(&want, m[i], n[i], k[i]);
    chg_tmodel_t got;
    double err = -1;
    int rc = chg_tmodel_fit(m, n, k, t, 5, &got, &err);
    EXPECT(rc == 0 && fabs(got.k1 / want.k1 - 1) < 1e-6 && fabs(got.k2 / want.k2 - 1) < 1e-4 &&
               fabs(got.k3 / want.k3 - 1) < 1e-4 && err < 1e-6,
           "tmodel exact: rc %d k1 %g k2 %g k3 %g err %g", rc, got.k1, got.k2, got.k3, err);
    const double noisy[5] = {5e-3, 4e-3, 3e-3, 3.5e-3, 2e-3};
    rc = chg_tmodel_fit(m, n, k, noisy, 5, &got, &err);
    EXPECT(rc == 0 && got.k1 > 0 && got.k2 == 0 && got.k3 == 0 && isfinite(err),
           "tmodel noisy: rc %d k1 %g k2 %g k3 %g (want the rate-only fallback)", rc, got.k1,
           got.k2, got.k3);
}

/* Runs checks() in a child process (before any OpenCL state exists), which reports its failures
 * by its exit status: the checks' short-lived helper threads are then not this process's
 * (LeakSanitizer's exit scan). One failure here when the child's checks failed. */
static void in_child(const char *name, void (*checks)(void))
{
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0) {
        const int before = tc_failures();
        checks();
        fflush(stdout);
        fflush(stderr);
        _exit(tc_failures() != before ? 1 : 0);
    }
    int status = 0;
    const int ok = pid >= 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0;
    EXPECT(ok, "%s: the child's checks failed (status %d)", name, status);
}

/* host/pool.h: every part of every job runs exactly once and before its finish returns -- two
 * jobs in flight per caller, finished in and out of order, three callers at once, polling on
 * and off, a pool of one thread, jobs of no parts. Each part adds its job's tag to its own
 * counter after a short delay, so that a finish returning early, a part run twice or a part
 * lost shows as a counter not equal to the tag. Run in_child. */
#define POOL_PARTS 37
typedef struct pool_job_arg_s {
    atomic_int hits[POOL_PARTS];
    int tag;
} pool_job_arg_t;

static void pool_part(void *arg, int part, int worker)
{
    (void)worker;
    pool_job_arg_t *a = arg;
    volatile double x = 1.0;
    for (int i = 0; i < 200 * (part % 5 + 1); i++) x = x * 1.000001 + 1e-9;
    atomic_fetch_add(&a->hits[part], a->tag);
}

static int pool_job_bad(pool_job_arg_t *a, int parts)
{
    int bad = 0;
    for (int i = 0; i < POOL_PARTS; i++) bad += atomic_load(&a->hits[i]) != (i < parts ? a->tag : 0);
    return bad;
}

typedef struct pool_caller_s {
    chg_pool_t *pool;
    int seed, bad;
} pool_caller_t;

static void *pool_caller(void *arg)
{
    pool_caller_t *c = arg;
    pool_job_arg_t a[2];
    chg_pool_job_t j[2];
    for (int round = 0; round < 200; round++) {
        const int parts0 = (round * 7 + c->seed) % (POOL_PARTS + 1), parts1 = (round * 3 + c->seed) % POOL_PARTS + 1;
        for (int i = 0; i < 2; i++) {
            memset(&a[i], 0, sizeof a[i]);
            a[i].tag = c->seed * 1000 + round * 2 + i + 1;
        }
        chg_pool_start(c->pool, &j[0], parts0, pool_part, &a[0], NULL, NULL);
        chg_pool_start(c->pool, &j[1], parts1, pool_part, &a[1], NULL, NULL);
        if (round % 2) {  /* out of order */
            chg_pool_finish(c->pool, &j[1]);
            c->bad += pool_job_bad(&a[1], parts1);
            chg_pool_finish(c->pool, &j[0]);
            c->bad += pool_job_bad(&a[0], parts0);
        } else {
            chg_pool_finish(c->pool, &j[0]);
            c->bad += pool_job_bad(&a[0], parts0);
            chg_pool_finish(c->pool, &j[1]);
            c->bad += pool_job_bad(&a[1], parts1);
        }
        memset(&a[0], 0, sizeof a[0]);
        a[0].tag = 7;
        chg_pool_run(c->pool, parts1, pool_part, &a[0], NULL, NULL);
        c->bad += pool_job_bad(&a[0], parts1);
    }
    return NULL;
}

static void pool_checks(void)
{
    for (int threads = 1; threads <= 4; threads += 3)
        for (int spin = 0; spin <= 1; spin++) {
            chg_pool_t *pool = chg_pool_create(threads);
            EXPECT(pool != NULL, "pool: create(%d)", threads);
            if (!pool) continue;
            chg_pool_spin(pool, spin);
            pool_caller_t c[3];
            pthread_t th[3];
            int started = 0;
            for (int i = 0; i < 3; i++) {
                c[i] = (pool_caller_t){pool, i + 1, 0};
                if (pthread_create(&th[i], NULL, pool_caller, &c[i]) == 0) started++;
                else break;
            }
            EXPECT(started == 3, "pool: %d caller threads started", started);
            for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
            for (int i = 0; i < started; i++)
                EXPECT(c[i].bad == 0, "pool (%d threads, polling %d): caller %d saw %d parts run wrongly",
                       threads, spin, i, c[i].bad);
            chg_pool_destroy(pool);
        }
}

/* host/prefault.h: C's pages faulted in without changing C. A fresh 40 MB mapping with a pattern
 * in a few of its pages and a "C" that starts mid-page: after start + join every byte is what it
 * was (zeros and the pattern; the partial pages at both ends untouched), and -- where the kernel
 * has MADV_POPULATE_WRITE (5.14) -- every whole page inside C is resident (mincore); a second
 * start on that C, now resident, starts no thread. Below 16 MB,
 * with gaps between the columns and with CLHGEMM_PREFAULT=off, no thread starts. Run in_child. */
static void prefault_checks(void)
{
    /* the chunk rule: about four per helper, 8 to 32 MB in whole 8 MB */
    const size_t mb = 1u << 20;
    EXPECT(chg_prefault_chunk(40 * mb, 3) == 8 * mb, "prefault: chunk of 40 MB on 3 helpers");
    EXPECT(chg_prefault_chunk(128 * mb, 4) == 8 * mb, "prefault: chunk of 128 MB on 4 helpers");
    EXPECT(chg_prefault_chunk(300 * mb, 4) == 16 * mb, "prefault: chunk of 300 MB on 4 helpers");
    EXPECT(chg_prefault_chunk(512 * mb, 4) == 32 * mb, "prefault: chunk of 512 MB on 4 helpers");
    EXPECT(chg_prefault_chunk(2048 * mb, 4) == 32 * mb, "prefault: chunk of 2 GB on 4 helpers");
    EXPECT(chg_prefault_chunk(512 * mb, 0) == 32 * mb, "prefault: chunk with no helper count");
    const size_t len = 40u << 20, pg = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(mem != MAP_FAILED, "prefault: mmap");
    if (mem == MAP_FAILED) return;
    for (size_t i = 0; i < len; i += 5 * (1u << 20) + 123) mem[i] = (unsigned char)(i % 251 + 1);
    unsigned char *c = mem + 100;                 /* C: 2048 x 2500 doubles, ldc 2048 */
    const size_t m = 2048, n = 2500, es = 8, bytes = m * n * es;
    chg_prefault_t p;
    unsetenv("CLHGEMM_PREFAULT");
    chg_prefault_start(&p, c, m, n, m, es, 3);
    const int started = p.nth;
    chg_prefault_join(&p);
    EXPECT(started > 0, "prefault: no helper thread started for a %zu-byte C", bytes);
    size_t bad = 0;
    for (size_t i = 0; i < len; i++) {
        const unsigned char want = (i % (5 * (1u << 20) + 123) == 0) ? (unsigned char)(i % 251 + 1) : 0;
        bad += mem[i] != want;
    }
    EXPECT(bad == 0, "prefault: %zu bytes changed", bad);
    const size_t first = ((size_t)(c - mem) + pg - 1) / pg, last = ((size_t)(c - mem) + bytes) / pg;
    unsigned char *vec = malloc(len / pg + 1);
    if (vec && mincore(mem, len, vec) == 0) {
        size_t missing = 0;
        for (size_t i = first; i < last; i++) missing += !(vec[i] & 1);
        printf("prefault: %zu of %zu whole pages of C not resident after it\n", missing, last - first);
        /* the kernel's own answer on a fresh page decides whether all must be (Linux >= 5.14) */
        void *probe = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (probe != MAP_FAILED && madvise(probe, pg, 23 /* MADV_POPULATE_WRITE */) == 0)
            EXPECT(missing == 0, "prefault: %zu pages of C not faulted in", missing);
        if (probe != MAP_FAILED) munmap(probe, pg);
    }
    free(vec);
    chg_prefault_start(&p, c, m, n, m, es, 3); /* the same C again: resident, nothing to do */
    EXPECT(started == 0 || p.nth == 0, "prefault: %d threads for a resident C", p.nth);
    chg_prefault_join(&p);
    chg_prefault_start(&p, c, 512, 512, 512, es, 3);  /* 2 MB */
    EXPECT(p.nth == 0, "prefault: %d threads for a 2 MB C", p.nth);
    chg_prefault_join(&p);
    chg_prefault_start(&p, c, 1024, 2000, 2048, es, 3); /* columns of half the stride */
    EXPECT(p.nth == 0, "prefault: %d threads for a C with gaps", p.nth);
    chg_prefault_join(&p);
    setenv("CLHGEMM_PREFAULT", "off", 1);
    chg_prefault_start(&p, c, m, n, m, es, 3);
    EXPECT(p.nth == 0, "prefault: %d threads with CLHGEMM_PREFAULT=off", p.nth);
    chg_prefault_join(&p);
    unsetenv("CLHGEMM_PREFAULT");
    munmap(mem, len);
}

int main(int argc, char **argv)
{
    int want_params = argc > 1 && !strcmp(argv[1], "params-required");
    env_size();
    hash_and_strings();
    level3_blocks();
    klimit_fill();
    tmodel();
    in_child("pool", pool_checks);
    in_child("prefault", prefault_checks);

    tc_env_t env;
    int rc = tc_open(&env);
    if (rc == TC_SKIP) {
        printf("%d checks, %d failed (no device: device parts skipped)\n", tc_checks(),
               tc_failures());
        return tc_failures() ? 1 : TC_SKIP;
    }
    if (rc) return rc;

    const chg_device_t *dev = NULL;
    cl_context ctx = NULL;
    clhgemm_status_t st = chg_queue_device(env.queue, &dev, &ctx);
    EXPECT(st == CLHGEMM_SUCCESS && dev && ctx == env.ctx && dev->info.device == env.device,
           "chg_queue_device -> %s", clhgemm_status_string(st));
    if (st == CLHGEMM_SUCCESS && dev) {
        params(dev, env.has_fp64);
        sgemm_math(dev);
        if (want_params) params_required(dev, env.has_fp64);
        level3_packs(&env, dev);
        direct_modes(&env, dev);
        unsigned long long limit = chg_getenv_size("CLHGEMM_WORKSPACE_LIMIT", 0);
        unsigned long long budget = chg_workspace_budget(dev);
        printf("workspace budget %llu bytes (CLHGEMM_WORKSPACE_LIMIT %llu)\n", budget, limit);
        EXPECT(budget > 0, "workspace budget is 0");
        if (limit) EXPECT(budget <= limit, "budget %llu exceeds the limit %llu", budget, limit);
    }

    /* GEMMs under the cap, a few transposes and both precisions */
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x1A7E4ULL);
    static const int shapes[][3] = {{200, 150, 300}, {65, 400, 129}, {333, 3, 257}};
    for (int dbl = 0; dbl < 2; dbl++) {
        if (dbl && !env.has_fp64) continue;
        for (int s = 0; s < 3; s++) {
            tc_case_t c = {0};
            c.dbl = dbl;
            c.layout = s == 1 ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
            c.ta = (s & 1) ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
            c.tb = (s & 2) ? CLHGEMM_NO_TRANS : CLHGEMM_TRANS;
            c.m = shapes[s][0];
            c.n = shapes[s][1];
            c.k = shapes[s][2];
            c.alpha = -1.5;
            c.beta = s == 2 ? 0.0 : 1.0;
            c.pad = 1;
            c.offc = 2;
            tc_tally(tc_run_case(env.ctx, env.queue, &c, &rng));
        }
    }
    tc_close(&env);
    printf("%d checks, %d failed\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
