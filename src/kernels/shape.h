/*
 * shape.h -- shape classes of a GEMM call (shape.c owns them): which kernel configuration of
 * a device's tuning entry a call of m x n x k runs with.
 *
 * One kernel configuration does not serve every shape: the large-square kernel (big work-group
 * tiles) leaves most compute units idle on a 1000^3 product and pads small outputs to whole
 * tiles. A tuning entry holds one configuration per class (docs/TUNING.md, "classes"), each
 * with a split-K factor; chg_shape_class picks the class of a call in constant time (a few
 * comparisons, no lock, no lookup), and the configurations are resolved once per device and
 * precision (tuning/tuning.h chg_tuned_gemm_shape).
 *
 * The classes, in the order chg_shape_class tests them (mn = m*n, lo/hi = min/max(m, n)):
 *   small    m*n*k <= 2^24 (256^3), or m*n <= 2^20 (1024^2) and k <= 4096: few tiles of C
 *   large_k  k >= 4*hi, k >= 2048, mn <= 2^22 (2048^2): few tiles, long k (split-K's case)
 *   rank_k   k <= 256 and mn >= 2^22: rank-k updates of a large C
 *   tall     m >= 8n and 64 < n <= 256 (tall-skinny C); wide: n >= 8m and 64 < m <= 256
 *   tall_thin, wide_thin: the same with n <= 64 (m <= 64). One configuration did not serve
 *            both: on the H100, SGEMM 8192 x 64 x 8192 ran 35 TFLOP/s on 128 x 64 tiles split
 *            in four and 18 on 64 x 128 tiles split in two, 16384 x 256 x 16384 46 on the latter
 *            and 37 on the former (2026-11-26). An entry without a thin class runs its tall
 *            (wide) class there (chg_shape_class_parent)
 *   medium   mn <= 2^24 (4096^2); but where a tuning entry's large class reaches down along k
 *            ("k_min", chg_shape_class_k), outputs of more than 2^22 elements (2048^2) whose k
 *            is at least that go to large. On the H100 (2026-11-27) the FP64 large tiles
 *            (128 x 192, one work-group per SM, the tail split) ran 4096^3, 3072^3 and 4000^3
 *            10-13%, 3072^2 x 1536 7%, 2048 x 8192 x 2048 6% faster than medium's 64 x 128, but
 *            4096^2 x 1024 2%, 1024 x 8192 x 1024 5% and 10000 x 1000 x 1000 10% slower, and
 *            2000^3 / 2048^3 (2^22 elements or fewer) 4-7% slower: FP64 k_min 1536. FP32's
 *            128 x 256 ran 3072^3, 3500^3 and 4000^3 4-7% faster than medium's 128 x 128, 4096^3
 *            and 4096^2 x 3072 level, outputs of 4096^2 at k = 1024 / 2048 1-6% slower: FP32
 *            k_min 3072
 *   rank_k   also k <= rank_k_max where a tuning entry's rank_k class says it reaches further
 *            ("k_max", chg_shape_class_k): on the H100 the FP64 rank_k configuration ran
 *            8192^2 x 384 ... x 768 4-20% and 4096 x 8192 x 512 24% faster than large, while
 *            medium (since its 64 x 128 tiles) beat it on 4096^2 x 384 ... x 768 by 5-13%;
 *            FP32's rank_k lost 8-12% from k = 384 on. Calls that read C only (beta != 0:
 *            tuning.c passes no reach for beta = 0, where large won)
 *   large    the rest (the configuration the entry's main parameters were tuned for)
 * CLHGEMM_SHAPE_CLASS=<name> forces one class for every call (tests, benchmarks); "auto" or
 * unset classifies.
 */
#ifndef CHG_SHAPE_H
#define CHG_SHAPE_H

#include <stddef.h>

typedef enum chg_shape_class_e {
    CHG_SHAPE_LARGE = 0,
    CHG_SHAPE_MEDIUM,
    CHG_SHAPE_SMALL,
    CHG_SHAPE_RANK_K,
    CHG_SHAPE_LARGE_K,
    CHG_SHAPE_TALL,
    CHG_SHAPE_WIDE,
    CHG_SHAPE_TALL_THIN,
    CHG_SHAPE_WIDE_THIN,
    CHG_SHAPE_NCLASSES
} chg_shape_class_t;

/* The class of an m x n x k product (any sizes; 0 counts as 1). Constant time. */
chg_shape_class_t chg_shape_class(size_t m, size_t n, size_t k);

/* The bounds of rank_k's reach along k: the classifier's own, and the most an entry may give. */
#define CHG_SHAPE_RANK_K_MAX 256
#define CHG_SHAPE_RANK_K_MAX_LIMIT 4096

/* The bounds of large's reach down along k (a tuning entry's large "k_min"): the outputs it may
 * take from medium (more than this many elements), and the range of k_min an entry may give. */
#define CHG_SHAPE_LARGE_REACH_MN 4194304.0
#define CHG_SHAPE_LARGE_K_MIN_LOW 512
#define CHG_SHAPE_LARGE_K_MIN_LIMIT 65536

/* chg_shape_class with rank_k also taking the products of k up to rank_k_max (clamped to
 * [CHG_SHAPE_RANK_K_MAX, CHG_SHAPE_RANK_K_MAX_LIMIT]) that would be large (m*n > 2^24, not
 * skinny), and large taking medium's outputs of more than CHG_SHAPE_LARGE_REACH_MN elements
 * whose k is large_k_min or more (0: none). Constant time. */
chg_shape_class_t chg_shape_class_k(size_t m, size_t n, size_t k, size_t rank_k_max,
                                    size_t large_k_min);

/* "large", "medium", "small", "rank_k", "large_k", "tall", "wide", "tall_thin", "wide_thin";
 * "?" out of range. */
const char *chg_shape_class_name(int cls);

/* The names above joined by ", " (for messages that list the classes). */
const char *chg_shape_class_names(void);

/* The class whose configuration a class runs when a tuning entry has none of its own: tall for
 * tall_thin, wide for wide_thin; -1 for the others (they run the entry's main parameters). */
int chg_shape_class_parent(int cls);

/* The class named name (exact), or -1. */
int chg_shape_class_parse(const char *name);

/* A representative m, n, k of the class (what clhgemm-tune times it on); with less work for
 * CPU devices (gpu = 0). Each is inside its class. */
void chg_shape_class_example(int cls, int gpu, size_t *m, size_t *n, size_t *k);

/* The shapes clhgemm-tune's class phase scores a class configuration on (the geometric mean
 * of their rates): two or three of the class, the first chg_shape_class_example's, spanning
 * it (e.g. large_k: 1024 x 1024 x 8192 and 512 x 512 x 32768 on GPUs). Up to
 * CHG_SHAPE_MAX_EXAMPLES rows of m, n, k into out; returns the count. Each is inside its class. */
#define CHG_SHAPE_MAX_EXAMPLES 3
int chg_shape_class_examples(int cls, int gpu, size_t out[CHG_SHAPE_MAX_EXAMPLES][3]);

/* CLHGEMM_SHAPE_CLASS's value as a class (-1: unset or "auto"; anything else is reported once
 * and classifies). */
int chg_shape_class_forced(void);

#endif
