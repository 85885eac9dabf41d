/*
 * test_shapes.c -- the device GEMM at every shape class.
 *
 *   test_shapes unit          the classifier's boundaries and names; the "classes" object of the
 *                             tuning database (valid, each kind of malformed with its reason,
 *                             written and read back); the resolution (built-in class defaults,
 *                             an entry's classes, a class that does not fit the device, an
 *                             entry without classes, the overrides, CLHGEMM_SHAPE_CLASS and
 *                             CLHGEMM_SPLIT_K); split-K's slice policy and geometry
 *   test_shapes s|d [split|direct|tail]
 *                             every class forced (CLHGEMM_SHAPE_CLASS) at odd sizes, each
 *                             transpose, both layouts, alpha/beta special cases (beta = 0 with
 *                             NaN in C) against OpenBLAS; "split" adds CLHGEMM_SPLIT_K=3, so
 *                             that the SPLITK kernel and the reduce run (the test fails when
 *                             no case was split); "direct" forces the direct kernel
 *                             (cl/gemm_direct.cl, DK=1) in two odd geometries through
 *                             CLHGEMM_{S,D}GEMM_PARAMS (fails unless every case ran it); "tail"
 *                             forces the tail split (CLHGEMM_TAIL_SPLIT=force; 3 slots, or
 *                             CLHGEMM_TAIL_SLOTS when set; split-K off), every other size with
 *                             CLHGEMM_DIRECT=off (packed operands, C through
 *                             the write-back), and fails unless both cuts ran; every mode then
 *                             checks that a repeated call creates no kernel
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clhgemm_version.h"
#include "common.h"
#include "core/gemm.h"
#include "core/splitk.h"
#include "kernels/shape.h"
#include "tuning/tuning.h"

/* ---- classifier --------------------------------------------------------------------------- */

static void classifier(void)
{
    static const struct {
        size_t m, n, k;
        chg_shape_class_t want;
    } t[] = {
        {0, 0, 0, CHG_SHAPE_SMALL},          {1, 1, 1, CHG_SHAPE_SMALL},
        {256, 256, 256, CHG_SHAPE_SMALL},    {257, 256, 256, CHG_SHAPE_SMALL},
        {1000, 1000, 1000, CHG_SHAPE_SMALL}, {1024, 1024, 4096, CHG_SHAPE_SMALL},
        {1024, 1024, 4097, CHG_SHAPE_LARGE_K}, {1024, 1024, 8192, CHG_SHAPE_LARGE_K},
        {2048, 2048, 8192, CHG_SHAPE_LARGE_K}, {2048, 2049, 8196, CHG_SHAPE_MEDIUM},
        {1025, 1024, 4096, CHG_SHAPE_MEDIUM}, {64, 64, 100000, CHG_SHAPE_LARGE_K},
        {2048, 2048, 256, CHG_SHAPE_RANK_K}, {2048, 2048, 257, CHG_SHAPE_MEDIUM},
        {2048, 2047, 256, CHG_SHAPE_MEDIUM}, {16384, 16384, 64, CHG_SHAPE_RANK_K},
        {8192, 256, 512, CHG_SHAPE_TALL},    {8192, 257, 512, CHG_SHAPE_MEDIUM},
        {8192, 1024, 512, CHG_SHAPE_MEDIUM}, {256, 8192, 512, CHG_SHAPE_WIDE},
        {1024, 8192, 512, CHG_SHAPE_MEDIUM}, {100000, 16, 300, CHG_SHAPE_TALL_THIN},
        {65536, 512, 512, CHG_SHAPE_LARGE},  {100000, 256, 300, CHG_SHAPE_TALL},
        {16, 100000, 300, CHG_SHAPE_WIDE_THIN}, {2000, 3000, 1500, CHG_SHAPE_MEDIUM},
        {8192, 64, 8192, CHG_SHAPE_TALL_THIN}, {8192, 65, 8192, CHG_SHAPE_TALL},
        {64, 8192, 8192, CHG_SHAPE_WIDE_THIN}, {65, 8192, 8192, CHG_SHAPE_WIDE},
        {4096, 4096, 4096, CHG_SHAPE_MEDIUM}, {4097, 4096, 4096, CHG_SHAPE_LARGE},
        {8192, 8192, 8192, CHG_SHAPE_LARGE}, {8192, 8192, 257, CHG_SHAPE_LARGE},
        {(size_t)1 << 40, (size_t)1 << 40, (size_t)1 << 40, CHG_SHAPE_LARGE},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const chg_shape_class_t c = chg_shape_class(t[i].m, t[i].n, t[i].k);
        EXPECT(c == t[i].want, "class of %zux%zux%zu: %s, want %s", t[i].m, t[i].n, t[i].k,
               chg_shape_class_name(c), chg_shape_class_name(t[i].want));
    }
    for (int c = 0; c < CHG_SHAPE_NCLASSES; c++) {
        EXPECT(chg_shape_class_parse(chg_shape_class_name(c)) == c, "name of class %d", c);
        for (int gpu = 0; gpu < 2; gpu++) {
            size_t m, n, k;
            chg_shape_class_example(c, gpu, &m, &n, &k);
            EXPECT((int)chg_shape_class(m, n, k) == c, "example of %s (gpu %d) %zux%zux%zu is %s",
                   chg_shape_class_name(c), gpu, m, n, k,
                   chg_shape_class_name(chg_shape_class(m, n, k)));
            /* the tuner's shapes: two or more, the first the example, each inside the class */
            size_t ex[CHG_SHAPE_MAX_EXAMPLES][3];
            const int nex = chg_shape_class_examples(c, gpu, ex);
            EXPECT(nex >= 1 && ex[0][0] == m && ex[0][1] == n && ex[0][2] == k &&
                       (nex >= 2 || c == CHG_SHAPE_LARGE),
                   "tuner shapes of %s (gpu %d): %d", chg_shape_class_name(c), gpu, nex);
            for (int i = 0; i < nex; i++)
                EXPECT((int)chg_shape_class(ex[i][0], ex[i][1], ex[i][2]) == c,
                       "tuner shape %zux%zux%zu of %s (gpu %d) is %s", ex[i][0], ex[i][1],
                       ex[i][2], chg_shape_class_name(c), gpu,
                       chg_shape_class_name(chg_shape_class(ex[i][0], ex[i][1], ex[i][2])));
        }
    }
    /* rank_k's reach along k (a tuning entry's k_max): the products that would be large (m*n >
     * 2^24, not skinny), and those of 257-512 rows and m*n >= 2^21 with k above 256, up to the
     * reach, clamped to [256, 4096]; other medium ones, skinny, small and large_k keep theirs */
    static const struct {
        size_t m, n, k, reach;
        chg_shape_class_t want;
    } r[] = {
        {8192, 8192, 768, 768, CHG_SHAPE_RANK_K},   {8192, 8192, 769, 768, CHG_SHAPE_LARGE},
        {4097, 4096, 512, 768, CHG_SHAPE_RANK_K},   {4096, 4096, 512, 768, CHG_SHAPE_MEDIUM},
        {4096, 8192, 384, 768, CHG_SHAPE_RANK_K},   {2048, 8192, 512, 768, CHG_SHAPE_MEDIUM},
        {65536, 256, 512, 768, CHG_SHAPE_TALL},     {256, 65536, 512, 768, CHG_SHAPE_WIDE},
        {8192, 8192, 300, 0, CHG_SHAPE_LARGE},      {8192, 8192, 300, 100, CHG_SHAPE_LARGE},
        {8192, 8192, 256, 100, CHG_SHAPE_RANK_K},   {8192, 8192, 4096, 1 << 20, CHG_SHAPE_RANK_K},
        {8192, 8192, 4097, 1 << 20, CHG_SHAPE_LARGE}, {1024, 1024, 700, 768, CHG_SHAPE_SMALL},
        {2048, 2048, 8192, 4096, CHG_SHAPE_LARGE_K},
        {512, 8192, 512, 768, CHG_SHAPE_RANK_K},    {512, 4096, 768, 768, CHG_SHAPE_RANK_K},
        {300, 8192, 512, 768, CHG_SHAPE_RANK_K},    {512, 4096, 769, 768, CHG_SHAPE_MEDIUM},
        {512, 4095, 512, 768, CHG_SHAPE_MEDIUM},    {513, 8192, 512, 768, CHG_SHAPE_MEDIUM},
        {8192, 512, 512, 768, CHG_SHAPE_MEDIUM},    {512, 8192, 512, 256, CHG_SHAPE_MEDIUM},
        {512, 4096, 256, 768, CHG_SHAPE_MEDIUM},    {512, 8192, 256, 768, CHG_SHAPE_RANK_K},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        const chg_shape_class_t c = chg_shape_class_k(r[i].m, r[i].n, r[i].k, r[i].reach, 0);
        EXPECT(c == r[i].want, "class of %zux%zux%zu with rank_k's reach %zu: %s, want %s",
               r[i].m, r[i].n, r[i].k, r[i].reach, chg_shape_class_name(c),
               chg_shape_class_name(r[i].want));
    }
    /* large's reach down along k (a tuning entry's k_min): medium's outputs of more than 2^22
     * elements from k_min on; 2^22 or fewer, skinny, small, large_k, rank_k (and its reach)
     * keep theirs; 0 takes nothing */
    static const struct {
        size_t m, n, k, rank_reach, kmin;
        chg_shape_class_t want;
    } l[] = {
        {4096, 4096, 4096, 256, 2048, CHG_SHAPE_LARGE},
        {4096, 4096, 2048, 256, 2048, CHG_SHAPE_LARGE},
        {4096, 4096, 2047, 256, 2048, CHG_SHAPE_MEDIUM},
        {4096, 4096, 4096, 256, 0, CHG_SHAPE_MEDIUM},
        {2048, 2048, 4096, 256, 2048, CHG_SHAPE_MEDIUM},
        {2049, 2048, 2048, 256, 2048, CHG_SHAPE_LARGE},
        {2048, 8192, 2048, 256, 2048, CHG_SHAPE_LARGE},
        {1024, 8192, 1024, 256, 1536, CHG_SHAPE_MEDIUM},
        {3000, 2000, 1500, 256, 1536, CHG_SHAPE_MEDIUM},
        {3000, 2000, 1536, 256, 1536, CHG_SHAPE_LARGE},
        {8192, 256, 8192, 256, 512, CHG_SHAPE_TALL},
        {256, 8192, 8192, 256, 512, CHG_SHAPE_WIDE},
        {2048, 2048, 16384, 256, 512, CHG_SHAPE_LARGE_K},
        {4096, 4096, 256, 256, 512, CHG_SHAPE_RANK_K},
        {512, 8192, 768, 768, 512, CHG_SHAPE_RANK_K},
        {8192, 8192, 4096, 256, 2048, CHG_SHAPE_LARGE},
        {8192, 8192, 512, 768, 2048, CHG_SHAPE_RANK_K},
    };
    for (size_t i = 0; i < sizeof l / sizeof l[0]; i++) {
        const chg_shape_class_t c =
            chg_shape_class_k(l[i].m, l[i].n, l[i].k, l[i].rank_reach, l[i].kmin);
        EXPECT(c == l[i].want, "class of %zux%zux%zu with large's reach %zu: %s, want %s",
               l[i].m, l[i].n, l[i].k, l[i].kmin, chg_shape_class_name(c),
               chg_shape_class_name(l[i].want));
    }
    {
        /* the joined list that messages print names every class, in order */
        char all[256] = "";
        for (int c = 0; c < CHG_SHAPE_NCLASSES; c++)
            snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", c ? ", " : "",
                     chg_shape_class_name(c));
        EXPECT(!strcmp(all, chg_shape_class_names()), "chg_shape_class_names \"%s\", want \"%s\"",
               chg_shape_class_names(), all);
    }
    EXPECT(chg_shape_class_parse("Large") == -1 && chg_shape_class_parse("") == -1 &&
               chg_shape_class_parse(NULL) == -1 &&
               !strcmp(chg_shape_class_name(CHG_SHAPE_NCLASSES), "?"),
           "names outside the set");
}

/* ---- database ------------------------------------------------------------------------------ */

static const char *const HEAD =
    "{\"format\":\"clhgemm-tuning\",\"format_version\":1,\"library_version\":\"" CLHGEMM_VERSION_STRING
    "\",\"entries\":[{\"device\":{\"name\":\"X\",\"driver\":\"1\",\"arch\":\"a:b\",\"vendor_key\":\"a\"},"
    "\"precisions\":{\"s\":{\"gemm\":{\"MWG\":64,\"NWG\":64,\"KWG\":16,\"MDIMC\":8,\"NDIMC\":8,"
    "\"VWM\":2,\"VWN\":2,\"SA\":1,\"SB\":1,\"KWI\":4}";
static const char *const SMALL =
    "\"small\":{\"MWG\":16,\"NWG\":32,\"KWG\":8,\"MDIMC\":4,\"NDIMC\":8,\"VWM\":4,\"VWN\":4,"
    "\"SA\":0,\"SB\":1,\"KWI\":2,\"split_k\":3,\"m\":100,\"n\":200,\"k\":300,\"gflops\":12.5,"
    "\"wgs_per_cu\":3}";

static int parse_classes(const char *classes, chg_tuning_file_t *f, char *why, size_t len)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s,\"classes\":{%s}}}}]}", HEAD, classes);
    return chg_tuning_file_parse(buf, f, why, len);
}

static void reject(const char *classes, const char *want)
{
    chg_tuning_file_t f;
    char why[512] = "";
    const int rc = parse_classes(classes, &f, why, sizeof why);
    EXPECT(rc == -1 && strstr(why, want), "classes {%s}: want a rejection naming \"%s\", got %d \"%s\"",
           classes, want, rc, why);
    if (rc == 0) chg_tuning_file_free(&f);
}

/* A class's reach (key, the int at byte off of its chg_tuning_class_t: k_max, k_min) in a
 * classes object whose last member it is: read as want, unchanged through a write and a read;
 * refused (with these messages) at the values below and above, and on the small class. */
static void check_reach(const char *classes, int cls, size_t off, int want, const char *name,
                        int below, const char *below_msg, int above, const char *above_msg,
                        const char *other_msg)
{
    char kb[1024], key[32];
    snprintf(key, sizeof key, "\"%s\"", name);
    const int head = (int)(strstr(classes, key) - classes);
    snprintf(kb, sizeof kb, "%.*s%s:%d}", head, classes, key, below);
    reject(kb, below_msg);
    snprintf(kb, sizeof kb, "%.*s%s:%d}", head, classes, key, above);
    reject(kb, above_msg);
    snprintf(kb, sizeof kb, "%.*s,%s:%d}", (int)strlen(SMALL) - 1, SMALL, key, want);
    reject(kb, other_msg);

    char why[512];
    chg_tuning_file_t f;
#define REACH(file) (*(const int *)((const char *)&(file).records[0].prec[0].classes[cls] + off))
    const int rc = parse_classes(classes, &f, why, sizeof why);
    EXPECT(rc == 0 && REACH(f) == want, "%s's %s was not read: %s", chg_shape_class_name(cls),
           name, why);
    if (rc != 0) return;
    char dir[] = "/tmp/clhgemm-shapes-XXXXXX", path[256];
    if (mkdtemp(dir)) {
        snprintf(path, sizeof path, "%s/db.json", dir);
        chg_tuning_file_t g;
        EXPECT(chg_tuning_file_write(path, &f, why, sizeof why) == 0, "write: %s", why);
        const int rc2 = chg_tuning_file_read(path, &g, why, sizeof why);
        EXPECT(rc2 == 0 && REACH(g) == want, "%s changed through a write and a read: %s", name,
               why);
        if (rc2 == 0) chg_tuning_file_free(&g);
        unlink(path);
        rmdir(dir);
    }
#undef REACH
    chg_tuning_file_free(&f);
}

static void database(void)
{
    chg_tuning_file_t f;
    char why[512] = "";
    int rc = parse_classes(SMALL, &f, why, sizeof why);
    const chg_tuning_prec_t *p = rc == 0 && f.count == 1 ? &f.records[0].prec[0] : NULL;
    EXPECT(p, "a valid classes object was rejected: %s", why);
    if (p) {
        const chg_tuning_class_t *c = &p->classes[CHG_SHAPE_SMALL];
        EXPECT(c->present && c->gemm.mwg == 16 && c->gemm.nwg == 32 && c->gemm.sb == 1 &&
                   c->gemm.kwi == 2 && c->split_k == 3 && c->m == 100 && c->k == 300 &&
                   c->gflops == 12.5 && c->wgs_per_cu == 3,
               "the small class was misread");
        int others = 0;
        for (int i = 0; i < CHG_SHAPE_NCLASSES; i++) others += i != CHG_SHAPE_SMALL && p->classes[i].present;
        EXPECT(others == 0, "%d classes present that the file does not have", others);
        /* written and read back */
        char dir[] = "/tmp/clhgemm-shapes-XXXXXX", path[256];
        if (mkdtemp(dir)) {
            snprintf(path, sizeof path, "%s/db.json", dir);
            chg_tuning_file_t g;
            EXPECT(chg_tuning_file_write(path, &f, why, sizeof why) == 0, "write: %s", why);
            rc = chg_tuning_file_read(path, &g, why, sizeof why);
            EXPECT(rc == 0 && !memcmp(&g.records[0].prec[0].classes, &p->classes, sizeof p->classes),
                   "classes changed through a write and a read: %s", why);
            if (rc == 0) chg_tuning_file_free(&g);
            unlink(path);
            rmdir(dir);
        }
    }
    if (rc == 0) chg_tuning_file_free(&f);
    /* without split_k: none (1); empty object: no class */
    rc = parse_classes("\"tall\":{\"MWG\":16,\"NWG\":16,\"KWG\":8,\"MDIMC\":4,\"NDIMC\":4,\"VWM\":4,"
                       "\"VWN\":4,\"SA\":0,\"SB\":0,\"KWI\":2}", &f, why, sizeof why);
    EXPECT(rc == 0 && f.records[0].prec[0].classes[CHG_SHAPE_TALL].present &&
               f.records[0].prec[0].classes[CHG_SHAPE_TALL].split_k == 1,
           "a class without split_k: %s", why);
    if (rc == 0) chg_tuning_file_free(&f);
    rc = parse_classes("", &f, why, sizeof why);
    EXPECT(rc == 0, "an empty classes object was rejected: %s", why);
    if (rc == 0) chg_tuning_file_free(&f);

    /* rank_k's k_max and large's k_min: read, written and read back; refused on another class
     * or out of range */
    static const char *const RANKK =
        "\"rank_k\":{\"MWG\":16,\"NWG\":32,\"KWG\":8,\"MDIMC\":4,\"NDIMC\":8,\"VWM\":4,"
        "\"VWN\":4,\"SA\":0,\"SB\":1,\"KWI\":2,\"split_k\":1,\"k_max\":768}";
    check_reach(RANKK, CHG_SHAPE_RANK_K, offsetof(chg_tuning_class_t, k_max), 768, "k_max", 255,
                "classes.rank_k.k_max: 255 is below the classifier's own 256", 4097,
                "classes.rank_k.k_max: expected an integer from 0 to 4096",
                "classes.small.k_max: only the rank_k class has a reach along k");
    static const char *const LARGE =
        "\"large\":{\"MWG\":16,\"NWG\":32,\"KWG\":8,\"MDIMC\":4,\"NDIMC\":8,\"VWM\":4,"
        "\"VWN\":4,\"SA\":0,\"SB\":1,\"KWI\":2,\"split_k\":1,\"k_min\":2048}";
    check_reach(LARGE, CHG_SHAPE_LARGE, offsetof(chg_tuning_class_t, k_min), 2048, "k_min", 511,
                "classes.large.k_min: 511 is below 512", 65537,
                "classes.large.k_min: expected an integer from 0 to 65536",
                "classes.small.k_min: only the large class reaches down along k");
    reject("\"huge\":{}", "precisions.s.classes.huge: not a shape class");
    reject("\"small\":3", "precisions.s.classes.small: expected an object");
    reject("\"small\":{\"MWG\":16}", "precisions.s.classes.small.NWG: missing");
    char bad[1024];
    static const struct {
        const char *from, *to, *want;
    } breaks[] = {
        {"\"split_k\":3", "\"split_k\":65", "classes.small.split_k: expected an integer from 0 to 64"},
        {"\"split_k\":3", "\"split_k\":-1", "classes.small.split_k: expected an integer"},
        {"\"split_k\":3", "\"split_k\":1.5", "classes.small.split_k: expected an integer"},
        {"\"VWM\":4", "\"VWM\":3", "classes.small: VWM and VWN must be 1, 2, 4 or 8"},
        {"\"MWG\":16", "\"MWG\":0", "classes.small: sizes must be positive"},
        {"\"SA\":0", "\"SA\":2", "classes.small: SA and SB must be 0 or 1"},
        {"\"gflops\":12.5", "\"gflops\":-1", "classes.small.gflops: expected a number >= 0"},
        {"\"m\":100", "\"m\":\"100\"", "classes.small.m: expected an integer"},
        {"\"wgs_per_cu\":3", "\"wgs_per_cu\":0",
         "classes.small.wgs_per_cu: expected an integer from 1 to 64"},
        {"\"wgs_per_cu\":3", "\"wgs_per_cu\":65",
         "classes.small.wgs_per_cu: expected an integer from 1 to 64"},
        {"\"wgs_per_cu\":3", "\"wgs_per_cu\":2.5", "classes.small.wgs_per_cu: expected an integer"},
    };
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        const char *at = strstr(SMALL, breaks[i].from);
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - SMALL), SMALL, breaks[i].to,
                 at + strlen(breaks[i].from));
        reject(bad, breaks[i].want);
    }
    /* "classes" not an object */
    char buf[4096];
    snprintf(buf, sizeof buf, "%s,\"classes\":[1]}}}]}", HEAD);
    rc = chg_tuning_file_parse(buf, &f, why, sizeof why);
    EXPECT(rc == -1 && strstr(why, "precisions.s.classes: expected an object"), "classes as an array: %s", why);
    if (rc == 0) chg_tuning_file_free(&f);
}

/* ---- resolution ---------------------------------------------------------------------------- */

static int same(const chg_gemm_params_t *a, const chg_gemm_params_t *b)
{
    return !memcmp(a, b, sizeof *a);
}

static chg_gemm_choice_t pick(const chg_device_t *dev, size_t m, size_t n, size_t k)
{
    chg_gemm_choice_t c;
    chg_tuned_gemm_shape(dev, CHG_F32, m, n, k, 0, &c);
    return c;
}

/* Writes dir/tuning.json with r as its one entry (r is freed) and drops the cached answers. */
static int write_record(const char *dir, chg_tuning_record_t *r)
{
    chg_tuning_file_t f;
    chg_tuning_file_init(&f);
    char path[512], why[256] = "";
    snprintf(path, sizeof path, "%s/tuning.json", dir);
    int rc = chg_tuning_file_upsert(&f, r) || chg_tuning_file_write(path, &f, why, sizeof why);
    if (rc) fprintf(stderr, "test setup: cannot write %s: %s\n", path, why);
    chg_tuning_record_free(r);
    chg_tuning_file_free(&f);
    chg_tuning_reload();
    return rc;
}

/* An exact entry for dev with FP32 main parameters main_gp (into *r, for write_record). */
static chg_tuning_prec_t *fp32_record(chg_tuning_record_t *r, const chg_device_t *dev,
                                      const chg_gemm_params_t *main_gp)
{
    chg_tuning_record_init(r, dev);
    r->prec[CHG_F32].present = 1;
    r->prec[CHG_F32].gemm = *main_gp;
    return &r->prec[CHG_F32];
}

/* Writes dir/tuning.json with one exact entry for dev: FP32 main parameters main, and the small
 * class (when cls != NULL) with split 3; with k_max > 0, also cls as the rank_k class reaching
 * k_max along k. */
static int write_db_reach(const char *dir, const chg_device_t *dev,
                          const chg_gemm_params_t *main_gp, const chg_gemm_params_t *cls, int k_max,
                          int k_min)
{
    chg_tuning_record_t r;
    chg_tuning_prec_t *p = fp32_record(&r, dev, main_gp);
    if (cls) {
        p->classes[CHG_SHAPE_SMALL] =
            (chg_tuning_class_t){.present = 1, .gemm = *cls, .split_k = 3};
        if (k_max > 0)
            p->classes[CHG_SHAPE_RANK_K] =
                (chg_tuning_class_t){.present = 1, .gemm = *cls, .split_k = 1, .k_max = k_max};
        if (k_min > 0) {
            p->classes[CHG_SHAPE_MEDIUM] =
                (chg_tuning_class_t){.present = 1, .gemm = *cls, .split_k = 1};
            p->classes[CHG_SHAPE_LARGE] =
                (chg_tuning_class_t){.present = 1, .gemm = *main_gp, .split_k = 1, .k_min = k_min};
        }
    }
    return write_record(dir, &r);
}

static int write_db(const char *dir, const chg_device_t *dev, const chg_gemm_params_t *main_gp,
                    const chg_gemm_params_t *cls)
{
    return write_db_reach(dir, dev, main_gp, cls, 0, 0);
}

/* Writes dir/tuning.json with one exact entry for dev: FP32 main parameters main_gp, the tall
 * class tall with split 2, and (thin != NULL) the tall_thin class thin with split 5. */
static int write_db_thin(const char *dir, const chg_device_t *dev, const chg_gemm_params_t *main_gp,
                         const chg_gemm_params_t *tall, const chg_gemm_params_t *thin)
{
    chg_tuning_record_t r;
    chg_tuning_prec_t *p = fp32_record(&r, dev, main_gp);
    p->classes[CHG_SHAPE_TALL] = (chg_tuning_class_t){.present = 1, .gemm = *tall, .split_k = 2};
    if (thin)
        p->classes[CHG_SHAPE_TALL_THIN] =
            (chg_tuning_class_t){.present = 1, .gemm = *thin, .split_k = 5};
    return write_record(dir, &r);
}

/* A thin class without its own configuration runs its parent's (tall), with the parent's
 * split; with its own, its own; one that does not fit the device falls back to the parent's. */
static void thin_classes(const chg_device_t *dev, const char *dir, const chg_gemm_params_t *main_gp,
                         const chg_gemm_params_t *cls)
{
    chg_gemm_choice_t c;
    if (!write_db_thin(dir, dev, main_gp, cls, NULL)) {
        c = pick(dev, 8192, 64, 8192);
        EXPECT(c.cls == CHG_SHAPE_TALL_THIN && same(&c.gp, cls) && c.split_k == 2,
               "tall_thin without its own: ran %s, not tall's configuration and split (%d)",
               chg_shape_class_name(c.cls), c.split_k);
        c = pick(dev, 64, 8192, 8192); /* wide_thin: no wide class either -> main, unsplit */
        EXPECT(c.cls == CHG_SHAPE_WIDE_THIN && same(&c.gp, main_gp) && c.split_k == 1,
               "wide_thin without its own or wide's: ran %s, not the main parameters",
               chg_shape_class_name(c.cls));
    }
    if (!write_db_thin(dir, dev, main_gp, cls, main_gp)) {
        c = pick(dev, 8192, 64, 8192);
        EXPECT(c.cls == CHG_SHAPE_TALL_THIN && same(&c.gp, main_gp) && c.split_k == 5,
               "tall_thin's own configuration not taken (split %d)", c.split_k);
        c = pick(dev, 8192, 256, 4096);
        EXPECT(c.cls == CHG_SHAPE_TALL && same(&c.gp, cls) && c.split_k == 2,
               "tall beside tall_thin: ran %s", chg_shape_class_name(c.cls));
    }
    chg_gemm_params_t big = *cls;
    big.mdimc = 128; /* beyond every device's work-group */
    big.ndimc = 64;
    big.mwg = 128 * 4;
    big.nwg = 64 * 4;
    if (!write_db_thin(dir, dev, main_gp, cls, &big)) {
        chg_tuning_entry_t e;
        chg_tuned_entry(dev, CHG_F32, &e);
        c = pick(dev, 8192, 64, 8192);
        EXPECT(same(&c.gp, cls) && c.split_k == 2 && strstr(e.note, "class tall_thin") &&
                   strstr(e.note, "the parameters of tall"),
               "a tall_thin that does not fit: not tall's configuration (note \"%s\")", e.note);
    }
}

static void builtin_classes(const chg_device_t *dev)
{
    setenv("CLHGEMM_TUNING", "off", 1);
    chg_gemm_params_t def, small;
    int split = -1;
    chg_gemm_params_default(dev, CHG_F32, &def);
    chg_gemm_params_class_default(dev, CHG_F32, CHG_SHAPE_SMALL, &small, &split);
    EXPECT(chg_gemm_params_valid(dev, CHG_F32, &small, NULL, 0) && split == 0 &&
               small.mwg * small.nwg < def.mwg * def.nwg,
           "the built-in small class has no smaller tile (MWG %d NWG %d) or split %d", small.mwg,
           small.nwg, split);
    chg_gemm_choice_t c = pick(dev, 100, 100, 100);
    EXPECT(c.cls == CHG_SHAPE_SMALL && same(&c.gp, &small) && c.split_k == 0,
           "built-in: 100^3 ran %s", chg_shape_class_name(c.cls));
    c = pick(dev, 8192, 8192, 8192);
    EXPECT(c.cls == CHG_SHAPE_LARGE && same(&c.gp, &def) && c.split_k == 1, "built-in: 8192^3");
    c = pick(dev, 1024, 1024, 8192);
    EXPECT(c.cls == CHG_SHAPE_LARGE_K && c.split_k == 0, "built-in: large_k does not choose a split");
    setenv("CLHGEMM_SHAPE_CLASS", "small", 1);
    c = pick(dev, 8192, 8192, 8192);
    EXPECT(c.cls == CHG_SHAPE_SMALL && same(&c.gp, &small), "CLHGEMM_SHAPE_CLASS=small not taken");
    setenv("CLHGEMM_SHAPE_CLASS", "tiny", 1); /* reported, classifies */
    c = pick(dev, 8192, 8192, 8192);
    EXPECT(c.cls == CHG_SHAPE_LARGE, "CLHGEMM_SHAPE_CLASS=tiny did not classify");
    unsetenv("CLHGEMM_SHAPE_CLASS");
    setenv("CLHGEMM_SPLIT_K", "5", 1);
    c = pick(dev, 8192, 8192, 8192);
    EXPECT(c.split_k == 5, "CLHGEMM_SPLIT_K=5 gave split %d", c.split_k);
    setenv("CLHGEMM_SPLIT_K", "99", 1); /* out of range: the bound */
    c = pick(dev, 8192, 8192, 8192);
    EXPECT(c.split_k == CHG_TUNING_MAX_SPLIT_K, "CLHGEMM_SPLIT_K=99 gave split %d", c.split_k);
    unsetenv("CLHGEMM_SPLIT_K");
    setenv("CLHGEMM_SGEMM_PARAMS", "MWG=32,NWG=32,KWG=16,MDIMC=8,NDIMC=8,VWM=4,VWN=4,SA=0,SB=0,KWI=4", 1);
    c = pick(dev, 100, 100, 100);
    EXPECT(c.cls == CHG_SHAPE_SMALL && c.gp.mwg == 32 && c.gp.kwi == 4 && c.split_k == 1,
           "the override does not force every class");
    unsetenv("CLHGEMM_SGEMM_PARAMS");
    /* DK=1: every class runs the direct kernel; the main parameters (level-3 routines, the host
     * pipeline) stay the packed kernel's */
    setenv("CLHGEMM_SGEMM_PARAMS", "MWG=24,NWG=40,KWG=8,MDIMC=4,NDIMC=8,KWI=2,MMA=0,DK=1", 1);
    c = pick(dev, 100, 100, 100);
    chg_gemm_params_t main_gp;
    chg_tuned_gemm(dev, CHG_F32, &main_gp);
    EXPECT(c.gp.dk == 1 && c.gp.mwg == 24 && c.gp.nwg == 40 && c.split_k == 1,
           "the DK override does not reach the classes");
    EXPECT(main_gp.dk == 0 && chg_gemm_params_valid(dev, CHG_F32, &main_gp, NULL, 0),
           "the main parameters kept DK or are not the packed kernel's");
    unsetenv("CLHGEMM_SGEMM_PARAMS");
    {
        chg_gemm_params_t q = def;
        char buf[200], why[160];
        EXPECT(chg_gemm_params_parse("DK=1,MWG=16,NWG=16,MDIMC=4,NDIMC=4,KWG=8,KWI=8", &q) == 0 &&
                   q.dk == 1 && chg_gemm_params_valid(dev, CHG_F32, &q, why, sizeof why),
               "DK=1 set not parsed or not valid");
        chg_gemm_params_format(&q, buf, sizeof buf);
        EXPECT(strstr(buf, ",DK=1") != NULL, "DK not formatted: %s", buf);
        q.mwg = 18; /* not a multiple of MDIMC = 4 */
        EXPECT(!chg_gemm_params_valid(dev, CHG_F32, &q, why, sizeof why) && strstr(why, "MDIMC"),
               "direct MWG=18 MDIMC=4 accepted");
        q.mwg = 16;
        q.dk = 2;
        EXPECT(!chg_gemm_params_valid(dev, CHG_F32, &q, NULL, 0), "DK=2 accepted");
    }
    unsetenv("CLHGEMM_TUNING");
}

/* A class's measured occupancy reaches the choice: its own; a class running the main
 * parameters gets large's where large holds them, none where large holds others or is absent. */
static void occupancy(const chg_device_t *dev, const char *dir, const chg_gemm_params_t *main_gp,
                      const chg_gemm_params_t *cls)
{
    for (int variant = 0; variant < 3; variant++) {
        chg_tuning_record_t r;
        chg_tuning_prec_t *p = fp32_record(&r, dev, main_gp);
        p->classes[CHG_SHAPE_SMALL] =
            (chg_tuning_class_t){.present = 1, .gemm = *cls, .split_k = 1, .wgs_per_cu = 3};
        if (variant < 2)
            p->classes[CHG_SHAPE_LARGE] = (chg_tuning_class_t){
                .present = 1, .gemm = variant ? *cls : *main_gp, .split_k = 1, .wgs_per_cu = 2};
        if (write_record(dir, &r)) return;
        chg_gemm_choice_t c = pick(dev, 100, 100, 100);
        EXPECT(c.wgs_per_cu == 3, "small's own occupancy: %d", c.wgs_per_cu);
        c = pick(dev, 1024, 1024, 8192); /* large_k: the main parameters */
        const int want = variant == 0 ? 2 : 0;
        EXPECT(c.wgs_per_cu == want,
               "large_k on the main parameters, large %s: occupancy %d, want %d",
               variant == 0 ? "holding them" : variant == 1 ? "holding others" : "absent",
               c.wgs_per_cu, want);
        if (variant == 1) {
            c = pick(dev, 8192, 8192, 8192);
            EXPECT(c.wgs_per_cu == 2 && same(&c.gp, cls), "large's own: occupancy %d",
                   c.wgs_per_cu);
        }
    }
}

static void entry_classes(const chg_device_t *dev)
{
    char dir[] = "/tmp/clhgemm-shapes-XXXXXX";
    if (!mkdtemp(dir)) {
        EXPECT(0, "mkdtemp");
        return;
    }
    setenv("CLHGEMM_TUNING_DIR", dir, 1);
    setenv("CLHGEMM_SHIPPED_TUNING_DIR", dir, 1);
    chg_gemm_params_t main_gp = {.mwg = 32, .nwg = 32, .kwg = 8, .mdimc = 8, .ndimc = 8, .vwm = 2,
                                 .vwn = 2, .sa = 0, .sb = 0, .kwi = 2};
    chg_gemm_params_t cls = {.mwg = 16, .nwg = 32, .kwg = 8, .mdimc = 4, .ndimc = 8, .vwm = 4,
                             .vwn = 4, .sa = 0, .sb = 1, .kwi = 2};
    if (!chg_gemm_params_valid(dev, CHG_F32, &main_gp, NULL, 0) ||
        !chg_gemm_params_valid(dev, CHG_F32, &cls, NULL, 0)) {
        printf("SKIP entry classes: the test's parameters do not fit %s\n", dev->info.name);
    } else if (!write_db(dir, dev, &main_gp, &cls)) {
        chg_gemm_choice_t c = pick(dev, 100, 100, 100);
        EXPECT(same(&c.gp, &cls) && c.split_k == 3, "the entry's small class was not taken");
        c = pick(dev, 8192, 8192, 8192);
        EXPECT(same(&c.gp, &main_gp) && c.split_k == 1, "large without a class: not the main parameters");
        c = pick(dev, 1024, 1024, 8192);
        EXPECT(same(&c.gp, &main_gp) && c.split_k == 1, "large_k without a class: not main, unsplit");
        chg_gemm_params_t big = cls;
        big.mdimc = 128; /* 8192 work-items: beyond every device's work-group */
        big.ndimc = 64;
        big.mwg = 128 * 4;
        big.nwg = 64 * 4;
        if (!write_db(dir, dev, &main_gp, &big)) {
            chg_tuning_entry_t e;
            chg_tuned_entry(dev, CHG_F32, &e);
            c = pick(dev, 100, 100, 100);
            EXPECT(same(&c.gp, &main_gp) && c.split_k == 1 && strstr(e.note, "class small"),
                   "a class that does not fit: not dropped to the main parameters (note \"%s\")",
                   e.note);
        }
        if (!write_db(dir, dev, &main_gp, NULL)) {
            c = pick(dev, 100, 100, 100);
            EXPECT(same(&c.gp, &main_gp) && c.split_k == 1, "an entry without classes");
        }
        /* rank_k reaching k = 768: 8192^2 x 512 and x 768 run it, x 769 large, 4096^2 x 512
         * medium; without the reach, 8192^2 x 512 is large */
        if (!write_db_reach(dir, dev, &main_gp, &cls, 768, 0)) {
            c = pick(dev, 8192, 8192, 512);
            EXPECT(c.cls == CHG_SHAPE_RANK_K && same(&c.gp, &cls) && c.k_max == 768,
                   "rank_k's k_max 768: 8192^2 x 512 ran %s", chg_shape_class_name(c.cls));
            c = pick(dev, 8192, 8192, 768);
            EXPECT(c.cls == CHG_SHAPE_RANK_K, "k_max 768: 8192^2 x 768 ran %s",
                   chg_shape_class_name(c.cls));
            c = pick(dev, 8192, 8192, 769);
            EXPECT(c.cls == CHG_SHAPE_LARGE, "k_max 768: 8192^2 x 769 ran %s",
                   chg_shape_class_name(c.cls));
            c = pick(dev, 4096, 4096, 512);
            EXPECT(c.cls == CHG_SHAPE_MEDIUM, "k_max 768: 4096^2 x 512 ran %s",
                   chg_shape_class_name(c.cls));
            c = pick(dev, 512, 8192, 512); /* the left-side TRSM's 512-row updates */
            EXPECT(c.cls == CHG_SHAPE_RANK_K && same(&c.gp, &cls), "k_max 768: 512 x 8192 x 512 ran %s",
                   chg_shape_class_name(c.cls));
            chg_tuned_gemm_shape(dev, CHG_F32, 8192, 8192, 512, CHG_CALL_BETA_ZERO, &c);
            EXPECT(c.cls == CHG_SHAPE_LARGE, "k_max 768, beta 0: 8192^2 x 512 ran %s",
                   chg_shape_class_name(c.cls));
        }
        /* large reaching down to k = 1536: medium's outputs of more than 2^22 elements from
         * k = 1536 run it where the call may split; smaller outputs, smaller k and structured
         * calls (CHG_CALL_UNSPLIT) keep medium; without the reach 4096^3 is medium */
        if (!write_db_reach(dir, dev, &main_gp, &cls, 0, 1536)) {
            c = pick(dev, 4096, 4096, 4096);
            EXPECT(c.cls == CHG_SHAPE_LARGE && same(&c.gp, &main_gp) && c.k_min == 1536,
                   "large's k_min 1536: 4096^3 ran %s", chg_shape_class_name(c.cls));
            c = pick(dev, 3072, 3072, 1536);
            EXPECT(c.cls == CHG_SHAPE_LARGE, "k_min 1536: 3072^2 x 1536 ran %s",
                   chg_shape_class_name(c.cls));
            c = pick(dev, 3072, 3072, 1535);
            EXPECT(c.cls == CHG_SHAPE_MEDIUM && same(&c.gp, &cls),
                   "k_min 1536: 3072^2 x 1535 ran %s", chg_shape_class_name(c.cls));
            c = pick(dev, 2048, 2048, 4096);
            EXPECT(c.cls == CHG_SHAPE_MEDIUM, "k_min 1536: 2048^2 x 4096 ran %s",
                   chg_shape_class_name(c.cls));
            chg_tuned_gemm_shape(dev, CHG_F32, 4096, 4096, 4096, CHG_CALL_UNSPLIT, &c);
            EXPECT(c.cls == CHG_SHAPE_MEDIUM && same(&c.gp, &cls),
                   "k_min 1536, a structured call: 4096^3 ran %s", chg_shape_class_name(c.cls));
            chg_tuned_gemm_shape(dev, CHG_F32, 4096, 4096, 4096, CHG_CALL_BETA_ZERO, &c);
            EXPECT(c.cls == CHG_SHAPE_LARGE, "k_min 1536, beta 0: 4096^3 ran %s",
                   chg_shape_class_name(c.cls));
        }
        if (!write_db(dir, dev, &main_gp, &cls)) {
            c = pick(dev, 8192, 8192, 512);
            EXPECT(c.cls == CHG_SHAPE_LARGE, "no k_max: 8192^2 x 512 ran %s",
                   chg_shape_class_name(c.cls));
            c = pick(dev, 4096, 4096, 4096);
            EXPECT(c.cls == CHG_SHAPE_MEDIUM, "no k_min: 4096^3 ran %s",
                   chg_shape_class_name(c.cls));
        }
        thin_classes(dev, dir, &main_gp, &cls);
        occupancy(dev, dir, &main_gp, &cls);
    }
    char path[512];
    snprintf(path, sizeof path, "%s/tuning.json", dir);
    unlink(path);
    rmdir(dir);
    setenv("CLHGEMM_TUNING_DIR", "off", 1);
    unsetenv("CLHGEMM_SHIPPED_TUNING_DIR");
    chg_tuning_reload();
}

static void split_policy(const chg_device_t *dev)
{
    chg_gemm_params_t gp = {.mwg = 64, .nwg = 64, .kwg = 16, .mdimc = 16, .ndimc = 16, .vwm = 4,
                            .vwn = 4, .sa = 1, .sb = 1, .kwi = 16};
    chg_device_t d = *dev;
    d.features |= CHG_FEAT_GPU;
    d.info.compute_units = 132;
    /* 1000^2 in 64^2 tiles: 256 tiles fill a wave of 132 -> no split; 512^2: 64 -> the 5 that
     * two waves want, of which 4 cut k exactly; 256^2: 16 tiles want 16, k / 32 = 8 at most */
    EXPECT(chg_splitk_slices(&d, &gp, 1000, 1000, 1000, 0) == 1, "auto split of 1000^3");
    EXPECT(chg_splitk_slices(&d, &gp, 512, 512, 512, 0) == 4, "auto split of 512^3: %d",
           chg_splitk_slices(&d, &gp, 512, 512, 512, 0));
    EXPECT(chg_splitk_slices(&d, &gp, 256, 256, 256, 0) == 8, "auto split of 256^3: %d",
           chg_splitk_slices(&d, &gp, 256, 256, 256, 0));
    EXPECT(chg_splitk_slices(&d, &gp, 512, 512, 520, 0) == 5, "512^2 x 520 (no exact count): %d",
           chg_splitk_slices(&d, &gp, 512, 512, 520, 0));
    EXPECT(chg_splitk_slices(&d, &gp, 704, 704, 1024, 0) == 3,
           "auto split of 704^2 x 1024 (121 tiles: 3 for two waves)");
    EXPECT(chg_splitk_slices(&d, &gp, 4096, 4096, 4096, 0) == 1, "4096^2 is split");
    EXPECT(chg_splitk_slices(&d, &gp, 64, 64, 100000, 0) == 16, "64^2 x 1e5: at most 16 slices");
    /* 512^2 x 32768 in 64^2 tiles: 64 tiles want 5 slices for two waves, k wants 8 of 4096 */
    EXPECT(chg_splitk_slices(&d, &gp, 512, 512, 32768, 0) == 8, "512^2 x 32768: %d slices",
           chg_splitk_slices(&d, &gp, 512, 512, 32768, 0));
    EXPECT(chg_splitk_slices(&d, &gp, 64, 64, 300, 0) == 9, "k = 300: 9 slices of 32 rows or more: %d",
           chg_splitk_slices(&d, &gp, 64, 64, 300, 0));
    EXPECT(chg_splitk_slices(&d, &gp, 64, 64, 40, 0) == 1, "k = 40 split (32 rows a slice)");
    EXPECT(chg_splitk_slices(&d, &gp, 64, 64, 300, 4) == 1, "forced 4 on k = 300");
    EXPECT(chg_splitk_slices(&d, &gp, 64, 64, 1000, 4) == 3, "forced 4 on k = 1000: 3 slices");
    EXPECT(chg_splitk_slices(&d, &gp, 1, 1, 100000, 1) == 1, "split 1 is none");
    chg_splitk_t sk;
    EXPECT(chg_splitk_plan(&gp, 100, 37, 1000, 3, &sk) && sk.slices == 3 && sk.kslice == 336 &&
               sk.ktot == 1008 && sk.mp == 128 && sk.np == 64,
           "plan 100x37x1000 in 3");
    /* k = 33 in 16-steps: 3 steps over 4 slices -> 3 slices of one step */
    EXPECT(chg_splitk_plan(&gp, 7, 7, 33, 4, &sk) && sk.slices == 3 && sk.kslice == 16,
           "plan k = 33 in 4");
    EXPECT(!chg_splitk_plan(&gp, 7, 7, 16, 4, &sk), "one KWG step cannot be split");
}

/* The tail split's plan on a 132-CU GPU: the FP64 tensor-core tile of the H100 (128 x 192, one
 * work-group per SM) where the last wave is a third full, none where the waves are whole, the
 * occupancy unknown, the device a CPU, or CLHGEMM_TAIL_SPLIT=off; the slots forced by
 * CLHGEMM_TAIL_SLOTS. */
static void tail_policy(const chg_device_t *dev)
{
    chg_gemm_params_t gp = {.mwg = 128, .nwg = 192, .kwg = 8, .mdimc = 16, .ndimc = 16, .vwm = 2,
                            .vwn = 2, .sa = 1, .sb = 1, .kwi = 8};
    chg_device_t d = *dev;
    d.features = (d.features | CHG_FEAT_GPU) & ~(unsigned)CHG_FEAT_CPU;
    d.info.compute_units = 132;
    chg_tail_t t;
    /* 4096^2: 32 x 22 = 704 tiles, 5.33 waves: 5 whole waves (30 rows of tiles) and a tail of
     * 2 rows (44 tiles) in 3 slices (132 work-groups: one wave of a third) */
    EXPECT(chg_splitk_tail(&d, CHG_F64, &gp, 1, 4096, 4096, 4096, &t) && !t.cut_n &&
               t.lead == 3840 && t.slices == 3 && t.sk.kslice == 1368 && t.sk.ktot == 4096 &&
               t.sk.mp == 256 && t.sk.np == 4224,
           "tail of 4096^3: cut %d lead %zu slices %d kslice %zu mp %zu np %zu", t.cut_n, t.lead,
           t.slices, t.sk.kslice, t.sk.mp, t.sk.np);
    /* 2 waves exactly (24 x 11 tiles), or one: nothing to gain */
    EXPECT(!chg_splitk_tail(&d, CHG_F64, &gp, 1, 3072, 2112, 4096, &t) && t.slices == 0,
           "whole waves were split");
    EXPECT(!chg_splitk_tail(&d, CHG_F64, &gp, 1, 1536, 2112, 4096, &t), "one wave was split");
    EXPECT(!chg_splitk_tail(&d, CHG_F64, &gp, 0, 4096, 4096, 4096, &t), "unknown occupancy split");
    chg_device_t cpu = d;
    cpu.features = (cpu.features & ~(unsigned)CHG_FEAT_GPU) | CHG_FEAT_CPU;
    EXPECT(!chg_splitk_tail(&cpu, CHG_F64, &gp, 1, 4096, 4096, 4096, &t), "a CPU device split");
    setenv("CLHGEMM_TAIL_SPLIT", "off", 1);
    EXPECT(!chg_splitk_tail(&d, CHG_F64, &gp, 1, 4096, 4096, 4096, &t),
           "split with the switch off");
    unsetenv("CLHGEMM_TAIL_SPLIT");
    setenv("CLHGEMM_TAIL_SLOTS", "600", 1); /* 704 tiles: 1.17 waves of 600 */
    EXPECT(chg_splitk_tail(&cpu, CHG_F64, &gp, 0, 4096, 4096, 4096, &t) && t.slices >= 2,
           "CLHGEMM_TAIL_SLOTS on a CPU device: no split");
    unsetenv("CLHGEMM_TAIL_SLOTS");
}

static int unit(void)
{
    classifier();
    database();
    tc_env_t env;
    const int rc = tc_open(&env);
    if (rc) return rc == TC_SKIP ? (tc_failures() ? 1 : 0) : 1;
    const chg_device_t *dev;
    if (chg_queue_device(env.queue, &dev, NULL) != CLHGEMM_SUCCESS) {
        tc_close(&env);
        return 1;
    }
    builtin_classes(dev);
    entry_classes(dev);
    split_policy(dev);
    tail_policy(dev);
    tc_close(&env);
    printf("test_shapes unit: %d checks, %d failures\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}

/* ---- every class on the device ------------------------------------------------------------ */

/* The direct kernel's geometries the "direct" mode forces (odd tiles, one and several
 * results per work-item, k steps that do not divide the sizes). MMA=0: an override starts from
 * the device's parameters, and on the H100 those are the tensor-core kernel's, whose tile rules
 * the odd geometries break (the override was then refused: DK 0). */
static const char *const DIRECT_SETS[] = {
    "MWG=24,NWG=40,KWG=8,MDIMC=4,NDIMC=8,KWI=2,MMA=0,DK=1",
    "MWG=16,NWG=16,KWG=16,MDIMC=16,NDIMC=4,KWI=4,MMA=0,DK=1",
};

/* A repeated call makes no program lookup and creates no kernel: the queue's workspace keeps
 * them (core/gemm.c ws_kernels). */
static void kernels_kept(tc_env_t *env, int dbl, tc_rng_t *rng)
{
    tc_case_t c = {0};
    c.dbl = dbl;
    c.layout = CLHGEMM_COL_MAJOR;
    c.ta = CLHGEMM_TRANS;
    c.tb = CLHGEMM_NO_TRANS;
    c.m = 65;
    c.n = 47;
    c.k = 300;
    c.alpha = 1.5;
    c.beta = 0.5;
    EXPECT(tc_run_case(env->ctx, env->queue, &c, rng) == 0, "first call of the kept-kernels case");
    unsigned long long h0, b0, h1, b1;
    chg_gemm_kernel_cache_stats(&h0, &b0);
    EXPECT(tc_run_case(env->ctx, env->queue, &c, rng) == 0, "second call of the kept-kernels case");
    chg_gemm_kernel_cache_stats(&h1, &b1);
    EXPECT(h1 > h0 && b1 == b0, "the second call created kernels (hits %llu->%llu, builds %llu->%llu)",
           h0, h1, b0, b1);
}

static int device(int dbl, int split, int direct, int tail)
{
    tc_env_t env;
    int rc = tc_open(&env);
    if (rc) return rc;
    if (dbl && !env.has_fp64) {
        printf("SKIP: no fp64\n");
        tc_close(&env);
        return TC_SKIP;
    }
    const chg_device_t *dev;
    if (chg_queue_device(env.queue, &dev, NULL) != CLHGEMM_SUCCESS) return 1;
    if (split) setenv("CLHGEMM_SPLIT_K", "3", 1);
    if (tail) {
        /* no split-K: a tuned entry's classes split small products (the H100's: all of them) */
        setenv("CLHGEMM_SPLIT_K", "1", 1);
        setenv("CLHGEMM_TAIL_SPLIT", "force", 1);
        setenv("CLHGEMM_TAIL_SLOTS", "3", 0); /* kept when set */
    }
    int tails[2] = {0, 0}; /* cases that ran a tail split cutting rows, columns */
    const char *pvar = dbl ? "CLHGEMM_DGEMM_PARAMS" : "CLHGEMM_SGEMM_PARAMS";
    int cases = 0, fails = 0, splits = 0, directs = 0, rot = 0;
    tc_rng_t rng;
    tc_rng_seed(&rng, 2222 + (uint64_t)dbl);
    for (int set = 0; set < (direct ? 2 : 1); set++) {
        if (direct) setenv(pvar, DIRECT_SETS[set], 1);
        static const int sizes[][3] = {{1, 1, 1},      {7, 33, 129},  {33, 7, 257},
                                       {100, 37, 250}, {257, 100, 33}, {129, 1, 513},
                                       {1, 129, 777},  {65, 33, 2049}, {7, 9, 1031},
                                       /* k a multiple of 3 slices of whole KWG steps: with
                                        * "split", a thin product's big operand read in place */
                                       {64, 40, 768},  {320, 16, 1536}, {16, 320, 768},
                                       /* ... with n a multiple of the GPU tiles (128, 64): B
                                        * not transposed read k-major in place */
                                       {64, 256, 768}};
        static const double ab[4][2] = {{1, 0}, {-1.5, 1}, {0.5, -2}, {2, 0}};
        const clhgemm_transpose_t nt[2] = {CLHGEMM_NO_TRANS, CLHGEMM_TRANS};
        const clhgemm_layout_t lay[2] = {CLHGEMM_COL_MAJOR, CLHGEMM_ROW_MAJOR};
        for (int cls = 0; cls < CHG_SHAPE_NCLASSES; cls++) {
            setenv("CLHGEMM_SHAPE_CLASS", chg_shape_class_name(cls), 1);
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                if (tail && (s & 1)) setenv("CLHGEMM_DIRECT", "off", 1);
                else if (tail) unsetenv("CLHGEMM_DIRECT");
                chg_gemm_choice_t ch;
                chg_tuned_gemm_shape(dev, dbl ? CHG_F64 : CHG_F32, (size_t)sizes[s][0],
                                     (size_t)sizes[s][1], (size_t)sizes[s][2], 0, &ch);
                chg_splitk_t sk;
                const int sl = chg_splitk_slices(dev, &ch.gp, (size_t)sizes[s][0], (size_t)sizes[s][1],
                                                 (size_t)sizes[s][2], ch.split_k);
                EXPECT((int)ch.cls == cls, "forced class %s ran %s", chg_shape_class_name(cls),
                       chg_shape_class_name(ch.cls));
                EXPECT(ch.gp.dk == (direct != 0), "class %s: DK %d", chg_shape_class_name(cls),
                       ch.gp.dk);
                directs += ch.gp.dk * 8;
                const int is_split = sl > 1 && chg_splitk_plan(&ch.gp, (size_t)sizes[s][0],
                                                               (size_t)sizes[s][1],
                                                               (size_t)sizes[s][2], sl, &sk);
                /* the tail split, where the call runs blocked in one block (these sizes fit) */
                chg_tail_t tl;
                if (tail && !is_split && !ch.gp.dk &&
                    chg_splitk_tail(dev, dbl ? CHG_F64 : CHG_F32, &ch.gp, ch.wgs_per_cu,
                                    (size_t)sizes[s][0],
                                    (size_t)sizes[s][1],
                                    chg_round_up((size_t)sizes[s][2], (size_t)ch.gp.kwg), &tl))
                    tails[tl.cut_n] += 8;
                for (int t = 0; t < 8; t++) {
                    tc_case_t c = {0};
                    c.dbl = dbl;
                    c.layout = lay[t & 1];
                    c.ta = nt[(t >> 1) & 1];
                    c.tb = nt[(t >> 2) & 1];
                    c.m = sizes[s][0];
                    c.n = sizes[s][1];
                    c.k = sizes[s][2];
                    c.alpha = ab[rot % 4][0];
                    c.beta = ab[rot % 4][1];
                    c.pad = rot % 3 == 1 ? 3 : 0;
                    c.offa = c.offb = c.offc = rot % 5 == 2 ? 5 : 0;
                    rot++;
                    cases++;
                    splits += is_split;
                    if (tc_run_case(env.ctx, env.queue, &c, &rng)) {
                        fails++;
                        fprintf(stderr, "  (class %s, %d slices)\n", chg_shape_class_name(cls), sl);
                    }
                }
            }
        }
    }
    unsetenv("CLHGEMM_SHAPE_CLASS");
    unsetenv("CLHGEMM_SPLIT_K");
    unsetenv("CLHGEMM_DIRECT");
    unsetenv("CLHGEMM_TAIL_SPLIT");
    unsetenv("CLHGEMM_TAIL_SLOTS");
    unsetenv(pvar);
    EXPECT(!split || splits > 0, "no case ran split-K");
    EXPECT(!tail || (tails[0] > 0 && tails[1] > 0), "tail splits: %d by rows, %d by columns",
           tails[0], tails[1]);
    EXPECT(!direct || directs == cases, "%d of %d cases ran the direct kernel", directs, cases);
    kernels_kept(&env, dbl, &rng);
    tc_close(&env);
    printf("test_shapes %s%s: %d cases (%d split-K, %d direct kernel, %d tail split), %d "
           "failures; %d checks, %d failures\n",
           dbl ? "d" : "s", split ? " split" : direct ? " direct" : tail ? " tail" : "", cases,
           splits, directs, tails[0] + tails[1], fails, tc_checks(), tc_failures());
    return fails || tc_failures() ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "unit")) return unit();
    if (argc >= 2 && (!strcmp(argv[1], "s") || !strcmp(argv[1], "d")))
        return device(argv[1][0] == 'd', argc >= 3 && !strcmp(argv[2], "split"),
                      argc >= 3 && !strcmp(argv[2], "direct"),
                      argc >= 3 && !strcmp(argv[2], "tail"));
    fprintf(stderr, "usage: test_shapes unit | s|d [split|direct|tail]\n");
    return 2;
}
