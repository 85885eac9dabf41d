/*
 * shape.c -- the shape classes of a GEMM call: the classifier, names, representative shapes,
 * and CLHGEMM_SHAPE_CLASS. See shape.h for the boundaries and why they are where they are.
 */
#include "kernels/shape.h"

#include <string.h>

#include "base/util.h"

static const char *const g_names[CHG_SHAPE_NCLASSES] = {
    "large", "medium", "small", "rank_k", "large_k", "tall", "wide", "tall_thin", "wide_thin",
};

chg_shape_class_t chg_shape_class(size_t m, size_t n, size_t k)
{
    return chg_shape_class_k(m, n, k, CHG_SHAPE_RANK_K_MAX, 0);
}

chg_shape_class_t chg_shape_class_k(size_t m, size_t n, size_t k, size_t rank_k_max,
                                    size_t large_k_min)
{
    /* doubles: m*n*k of any size_t inputs without overflow; the boundaries are powers of two */
    const double dm = m ? (double)m : 1, dn = n ? (double)n : 1, dk = k ? (double)k : 1;
    const double mn = dm * dn, lo = dm < dn ? dm : dn, hi = dm < dn ? dn : dm;
    if (mn * dk <= 16777216.0 || (mn <= 1048576.0 && dk <= 4096)) return CHG_SHAPE_SMALL;
    if (dk >= 4 * hi && dk >= 2048 && mn <= 4194304.0) return CHG_SHAPE_LARGE_K;
    if (dk <= CHG_SHAPE_RANK_K_MAX && mn >= 4194304.0) return CHG_SHAPE_RANK_K;
    /* skinny: 256 or less across. 512- and 1024-wide products (TRSM's and the factorizations'
     * updates, k <= 1024) ran 3-39% faster on the medium / large configurations than on the tall
     * and wide ones tuned for skinnier shapes (H100, s and d, 2026-11-26) */
    if (hi >= 8 * lo && lo <= 256) {
        const int thin = lo <= 64;
        if (dm >= dn) return thin ? CHG_SHAPE_TALL_THIN : CHG_SHAPE_TALL;
        return thin ? CHG_SHAPE_WIDE_THIN : CHG_SHAPE_WIDE;
    }
    const double reach = rank_k_max < CHG_SHAPE_RANK_K_MAX         ? CHG_SHAPE_RANK_K_MAX
                         : rank_k_max > CHG_SHAPE_RANK_K_MAX_LIMIT ? CHG_SHAPE_RANK_K_MAX_LIMIT
                                                                   : (double)rank_k_max;
    /* Where rank_k's reach extends past 256 (C read, an entry's k_max) it also takes outputs of
     * 257-512 rows and 2^21 elements or more up to that k: the left-side TRSM's updates of 512
     * rows (FP64, C read, H100, 2026-11-26: 512 x 8192 x 512 ran 25.1 TFLOP/s on rank_k's
     * configuration against medium's 17.5-18.0, 512 x 4096 x 512 19.7 against 16.6-16.9).
     * Outputs of 512 columns were not measured and stay medium. */
    if (dm <= 512 && mn >= 2097152.0 && dk > CHG_SHAPE_RANK_K_MAX && dk <= reach)
        return CHG_SHAPE_RANK_K;
    if (mn <= 16777216.0)
        return large_k_min && mn > CHG_SHAPE_LARGE_REACH_MN && dk >= (double)large_k_min
                   ? CHG_SHAPE_LARGE
                   : CHG_SHAPE_MEDIUM;
    if (dk <= reach) return CHG_SHAPE_RANK_K;
    return CHG_SHAPE_LARGE;
}

const char *chg_shape_class_name(int cls)
{
    return cls >= 0 && cls < CHG_SHAPE_NCLASSES ? g_names[cls] : "?";
}

const char *chg_shape_class_names(void)
{
    return "large, medium, small, rank_k, large_k, tall, wide, tall_thin, wide_thin";
}

int chg_shape_class_parent(int cls)
{
    if (cls == CHG_SHAPE_TALL_THIN) return CHG_SHAPE_TALL;
    if (cls == CHG_SHAPE_WIDE_THIN) return CHG_SHAPE_WIDE;
    return -1;
}

int chg_shape_class_parse(const char *name)
{
    for (int i = 0; name && i < CHG_SHAPE_NCLASSES; i++)
        if (!strcmp(name, g_names[i])) return i;
    return -1;
}

void chg_shape_class_example(int cls, int gpu, size_t *m, size_t *n, size_t *k)
{
    /* GPU shapes from the H100 sweep over the classes (bench-gemm --shapes), CPU ones with less
     * work (a tuner's candidate costs tens of milliseconds on PoCL); each inside its class */
    static const size_t g[CHG_SHAPE_NCLASSES][3] = {
        {8192, 8192, 4096}, {2048, 3072, 1536}, {1000, 1000, 1000}, {4096, 4096, 128},
        {1024, 1024, 8192}, {8192, 256, 4096},  {256, 8192, 4096}, {8192, 64, 8192},
        {64, 8192, 8192},
    };
    static const size_t c[CHG_SHAPE_NCLASSES][3] = {
        {4608, 4608, 512}, {1024, 1536, 512}, {256, 256, 256}, {2048, 2048, 64},
        {256, 256, 8192},  {8192, 256, 512},  {256, 8192, 512}, {32768, 64, 512},
        {64, 32768, 512},
    };
    const int i = cls >= 0 && cls < CHG_SHAPE_NCLASSES ? cls : 0;
    const size_t *s = gpu ? g[i] : c[i];
    *m = s[0];
    *n = s[1];
    *k = s[2];
}

int chg_shape_class_examples(int cls, int gpu, size_t out[CHG_SHAPE_MAX_EXAMPLES][3])
{
    /* GPU shapes: the H100 sweep over the classes (each class's shapes there, and the far end of
     * the class); CPU shapes with less work. 0 ends a list. */
    static const size_t g[CHG_SHAPE_NCLASSES][CHG_SHAPE_MAX_EXAMPLES][3] = {
        {{8192, 8192, 4096}, {8192, 8192, 8192}},
        {{2048, 3072, 1536}, {2000, 2000, 2000}, {4096, 4096, 512}},
        {{1000, 1000, 1000}, {256, 256, 256}, {512, 512, 512}},
        {{4096, 4096, 128}, {4096, 4096, 64}, {8192, 8192, 256}},
        {{1024, 1024, 8192}, {512, 512, 32768}},
        {{8192, 256, 4096}, {16384, 256, 16384}, {8192, 128, 8192}},
        {{256, 8192, 4096}, {256, 16384, 16384}, {128, 8192, 8192}},
        {{8192, 64, 8192}, {16384, 32, 8192}},
        {{64, 8192, 8192}, {32, 16384, 8192}},
    };
    static const size_t c[CHG_SHAPE_NCLASSES][CHG_SHAPE_MAX_EXAMPLES][3] = {
        {{4608, 4608, 512}},
        {{1024, 1536, 512}, {1500, 1500, 600}},
        {{256, 256, 256}, {64, 64, 64}, {512, 512, 128}},
        {{2048, 2048, 64}, {2048, 2048, 256}},
        {{256, 256, 8192}, {128, 128, 16384}},
        {{8192, 256, 512}, {16384, 128, 1024}},
        {{256, 8192, 512}, {128, 16384, 1024}},
        {{32768, 64, 512}, {131072, 16, 512}},
        {{64, 32768, 512}, {16, 131072, 512}},
    };
    const int i = cls >= 0 && cls < CHG_SHAPE_NCLASSES ? cls : 0;
    int n = 0;
    for (int j = 0; j < CHG_SHAPE_MAX_EXAMPLES; j++) {
        const size_t *s = gpu ? g[i][j] : c[i][j];
        if (!s[0]) break;
        out[n][0] = s[0];
        out[n][1] = s[1];
        out[n][2] = s[2];
        n++;
    }
    return n;
}

int chg_shape_class_forced(void)
{
    static const char *const choices[] = {"auto",    "large", "medium", "small",     "rank_k",
                                          "large_k", "tall",  "wide",   "tall_thin", "wide_thin",
                                          NULL};
    return chg_env_choice("CLHGEMM_SHAPE_CLASS", choices, 0) - 1;
}
