/*
 * test_host.c -- the host-memory GEMM (clhgemm_{s,d}gemm on a handle, the pipeline of src/host/).
 *
 *   test_host table s|d col|row   sizes (1..1000, k = 1, 3 and 3000) x 4 transposes x alpha/beta
 *                                 in {0, 1, -1.5}, tight and padded ld, operands not at the start
 *                                 of their allocation, ConjTrans once
 *   test_host split               larger shapes in both precisions and layouts, meant to run under
 *                                 CLHGEMM_DEVICE_MEMORY_LIMIT (CTest sets 2M and 8M): the plan
 *                                 reported by clhgemm_last_call_info must fit the limit, use more
 *                                 than one C tile when C cannot fit, and the run must include
 *                                 splits along m, n and k
 *   test_host args                invalid arguments (each its own status, the same as the device
 *                                 API), NULL handle, m/n/k = 0 and alpha = 0 quick paths
 *   test_host threads             two threads on one handle, then two handles used at once
 *   test_host fault               CLHGEMM_FAULT_ALLOC=N for N = 1, 2, ... each in a child process
 *                                 (the counter is per process): a failing allocation gives
 *                                 CL_MEM_OBJECT_ALLOCATION_FAILURE, no crash or hang, C untouched
 *                                 where not written back, and the next call succeeds
 *   test_host tiny                CLHGEMM_DEVICE_MEMORY_LIMIT below one tile: success (correct) or
 *                                 CLHGEMM_WORKSPACE_TOO_SMALL with C untouched
 *   test_host trace               a trace file (options.trace_file, then CLHGEMM_TRACE) that parses
 *                                 and has events on h2d, kernel, d2h and pack tracks
 *
 * Operands come from tests/common.c (tc_problem_init_host): A and B random with NaN in their ld
 * gaps, C random (NaN when beta == 0) with signalling-NaN sentinels around and between its
 * columns, which must come back bit-identical. Results are checked against OpenBLAS in double
 * with the harness's k-scaled tolerance; A and B must be unchanged.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef CLHGEMM_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

#include "common.h"

static const clhgemm_transpose_t NT[2] = {CLHGEMM_NO_TRANS, CLHGEMM_TRANS};
static const double AB[3] = {0.0, 1.0, -1.5};

/* ---- helpers ------------------------------------------------------------------------------- */

static void set_variant(tc_case_t *c, int variant)
{
    /* 0: tight; 1: ld + 3 and operands a few elements into their allocation; 2: offsets only;
     * 3: ld + 3 only. The offsets put something in front of each operand that must not be
     * read (A/B: NaN) or written (C: sentinels). */
    c->pad = (variant == 1 || variant == 3) ? 3 : 0;
    if (variant == 1 || variant == 2) {
        c->offa = 5;
        c->offb = 11;
        c->offc = 3;
    } else {
        c->offa = c->offb = c->offc = 0;
    }
}

static clhgemm_status_t host_call(clhgemm_handle_t h, const tc_problem_t *p, void *cbuf)
{
    const tc_case_t *q = &p->c;
    const char *a = q->null_a ? NULL : (const char *)p->a0 + q->offa * p->esz;
    const char *b = q->null_b ? NULL : (const char *)p->b0 + q->offb * p->esz;
    char *c = cbuf ? (char *)cbuf + q->offc * p->esz : NULL;
    if (q->dbl)
        return clhgemm_dgemm(h, q->layout, q->ta, q->tb, q->m, q->n, q->k, q->alpha,
                             (const double *)a, q->lda, (const double *)b, q->ldb, q->beta,
                             (double *)c, q->ldc);
    return clhgemm_sgemm(h, q->layout, q->ta, q->tb, q->m, q->n, q->k, (float)q->alpha,
                         (const float *)a, q->lda, (const float *)b, q->ldb, (float)q->beta,
                         (float *)c, q->ldc);
}

/* CLHGEMM_DEVICE_MEMORY_LIMIT as the library reads it (K/M/G powers of 1024); 0 when unset. */
static unsigned long long env_limit(void)
{
    const char *v = getenv("CLHGEMM_DEVICE_MEMORY_LIMIT");
    if (!v || !*v) return 0;
    char *end = NULL;
    unsigned long long x = strtoull(v, &end, 10);
    switch (end && *end ? (*end | 0x20) : 0) {
    case 'k': x <<= 10; break;
    case 'm': x <<= 20; break;
    case 'g': x <<= 30; break;
    default: break;
    }
    return x;
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* What the split test wants to have seen at least once. */
static int g_seen_k_split, g_seen_mn_split, g_max_devices_used;
static long long g_tiles_stolen, g_multiband_calls;
static long long g_cpu_routed; /* calls that check_info saw routed to OpenBLAS */
/* check_info runs on the worker threads of the threads mode too (each on a handle of its own):
 * the tallies above are updated under this lock (an unlocked += was TSan's report). */
static pthread_mutex_t g_tally_lock = PTHREAD_MUTEX_INITIALIZER;

/* The A mode CLHGEMM_TILE forces ("bm,bn,bk,mode"), or -1. */
static int forced_amode(void)
{
    const char *v = getenv("CLHGEMM_TILE");
    const char *m = v ? strrchr(v, ',') : NULL;
    if (!m || (m[1] >= '0' && m[1] <= '9')) return -1;
    m++;
    return !strncmp(m, "stream", 6) ? 0 : !strncmp(m, "resident", 8) ? 1 : !strncmp(m, "prefetch", 8) ? 2 : -1;
}

/* Checks clhgemm_last_call_info after a successful call that went through the pipeline. */
static int check_info(clhgemm_handle_t h, const tc_case_t *q, const char *tag)
{
    clhgemm_call_info_t inf;
    memset(&inf, 0, sizeof inf);
    clhgemm_status_t st = clhgemm_last_call_info(h, &inf);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: clhgemm_last_call_info -> %s\n", tag, clhgemm_status_string(st));
        return 1;
    }
    if (q->m == 0 || q->n == 0 || q->k == 0 || q->alpha == 0.0) return 0; /* quick paths */
    /* Routed to OpenBLAS (CLHGEMM_ROUTE=cpu, or auto where the model says so): no device, no
     * tile, all of C on the CPU. */
    const char *route = getenv("CLHGEMM_ROUTE");
    if (route && strcmp(route, "device") && inf.devices_used == 0 && inf.tiles == 0) {
        pthread_mutex_lock(&g_tally_lock);
        g_cpu_routed++;
        pthread_mutex_unlock(&g_tally_lock);
        if (inf.cpu_fraction != 1.0 || !(inf.seconds >= 0.0)) {
            fprintf(stderr, "FAIL %s: CPU-routed call info cpu_fraction=%g seconds=%g\n", tag, inf.cpu_fraction,
                    inf.seconds);
            return 1;
        }
        return 0;
    }
    const size_t es = q->dbl ? 8 : 4;
    const size_t m = (size_t)q->m, n = (size_t)q->n, k = (size_t)q->k;
    int rc = 0;
    if (inf.devices_used < 1 || inf.tiles < 1 || inf.tile_m < 1 || inf.tile_n < 1 ||
        inf.tile_k < 1 || !(inf.seconds > 0.0)) {
        fprintf(stderr, "FAIL %s: call info devices_used=%d tiles=%lld tile=%dx%dx%d seconds=%g\n",
                tag, inf.devices_used, inf.tiles, inf.tile_m, inf.tile_n, inf.tile_k, inf.seconds);
        return 1;
    }
    const size_t tm = (size_t)inf.tile_m, tn = (size_t)inf.tile_n, tk = (size_t)inf.tile_k;
    /* tile_m runs along the rows of C in whichever orientation the library works in (row-major
     * is computed as the transposed column-major product). */
    const long long g1 = (long long)(ceil_div(m, tm) * ceil_div(n, tn));
    const long long g2 = (long long)(ceil_div(n, tm) * ceil_div(m, tn));
    const int orient = inf.tiles == g1 ? 1 : inf.tiles == g2 ? 2 : 0;
    if (!orient) {
        fprintf(stderr, "FAIL %s: tiles=%lld but a %dx%d tiling of %zux%zu has %lld (or %lld)\n",
                tag, inf.tiles, inf.tile_m, inf.tile_n, m, n, g1, g2);
        rc = 1;
    }
    const size_t M = orient == 2 ? n : m, N = orient == 2 ? m : n;
    /* Every element of A and B has to reach a device at least once, and C come back once. */
    const double need_to =
        (double)es * ((double)m * k + (double)k * n + (q->beta != 0.0 ? (double)m * n : 0.0));
    if (inf.bytes_to_device < need_to || inf.bytes_from_device < (double)es * m * n) {
        fprintf(stderr,
                "FAIL %s: bytes to device %.0f (need >= %.0f), from device %.0f (need "
                ">= %.0f)\n",
                tag, inf.bytes_to_device, need_to, inf.bytes_from_device, (double)es * m * n);
        rc = 1;
    }
    const unsigned long long cap = env_limit();
    if (cap) {
        /* The smallest device footprint of the plan: one C tile and one slice of A and B. */
        const size_t um = tm < M ? tm : M, un = tn < N ? tn : N, uk = tk < k ? tk : k;
        const double foot = (double)es * ((double)um * un + (double)uk * (um + un));
        if (foot > (double)cap) {
            fprintf(stderr,
                    "FAIL %s: tile %dx%dx%d needs >= %.0f bytes of device memory, above "
                    "CLHGEMM_DEVICE_MEMORY_LIMIT=%llu\n",
                    tag, inf.tile_m, inf.tile_n, inf.tile_k, foot, cap);
            rc = 1;
        }
        if ((double)es * m * n > (double)cap && inf.tiles < 2) {
            fprintf(stderr,
                    "FAIL %s: C (%zux%zu) is larger than the memory limit but was one "
                    "tile\n",
                    tag, m, n);
            rc = 1;
        }
    }
    const int fam = forced_amode();
    if (fam >= 0 && !cap && inf.a_mode != fam) {
        fprintf(stderr, "FAIL %s: CLHGEMM_TILE forces A mode %d but the call used %d\n", tag, fam,
                inf.a_mode);
        rc = 1;
    }
    if (inf.a_mode < 0 || inf.a_mode > 2 || inf.tiles_stolen < 0 || inf.tiles_stolen > inf.tiles) {
        fprintf(stderr, "FAIL %s: call info a_mode=%d tiles_stolen=%lld\n", tag, inf.a_mode,
                inf.tiles_stolen);
        rc = 1;
    }
    pthread_mutex_lock(&g_tally_lock);
    g_tiles_stolen += inf.tiles_stolen;
    if (orient && tm < M && tk < k) g_multiband_calls++;
    if (tk < k) g_seen_k_split = 1;
    if (inf.devices_used > g_max_devices_used) g_max_devices_used = inf.devices_used;
    if (orient && tm < M && tn < N) g_seen_mn_split = 1;
    pthread_mutex_unlock(&g_tally_lock);
    return rc;
}

/* Runs one case through the handle and checks everything. The call info is checked unless
 * the handle is shared with another thread (then "the last call" may be the other thread's). */
static int run_host_case_ex(clhgemm_handle_t h, const tc_case_t *c, tc_rng_t *rng, int info)
{
    char tag[300];
    tc_problem_t p;
    if (tc_problem_init_host(&p, c, rng)) {
        tc_case_describe(c, tag, sizeof tag);
        fprintf(stderr, "FAIL %s: setup failed\n", tag);
        return 1;
    }
    tc_case_describe(&p.c, tag, sizeof tag);
    int rc = 0;
    void *got = malloc(p.nc * p.esz);
    void *a_copy = malloc(p.na * p.esz), *b_copy = malloc(p.nb * p.esz);
    double *want = malloc(p.nc * sizeof(double)), *bound = malloc(p.nc * sizeof(double));
    if (!got || !a_copy || !b_copy || !want || !bound) {
        fprintf(stderr, "FAIL %s: out of host memory\n", tag);
        rc = 1;
        goto out;
    }
    memcpy(got, p.c0, p.nc * p.esz);
    memcpy(a_copy, p.a0, p.na * p.esz);
    memcpy(b_copy, p.b0, p.nb * p.esz);
    clhgemm_status_t st = host_call(h, &p, got);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: status %s (%d)\n", tag, clhgemm_status_string(st), (int)st);
        rc = 1;
        goto out;
    }
    if (memcmp(a_copy, p.a0, p.na * p.esz) || memcmp(b_copy, p.b0, p.nb * p.esz)) {
        fprintf(stderr, "FAIL %s: A or B was modified\n", tag);
        rc = 1;
    }
    tc_problem_ref_init(&p, want, bound);
    if (tc_problem_ref_apply(&p, want, bound)) {
        rc = 1;
        goto out;
    }
    rc |= tc_check_c(p.c.dbl, p.c.layout, p.c.m, p.c.n, p.c.k, got, p.c0, p.nc, p.c.offc, p.c.ldc,
                     want, bound, tag);
    if (info) rc |= check_info(h, &p.c, tag);
out:
    free(got);
    free(a_copy);
    free(b_copy);
    free(want);
    free(bound);
    tc_problem_free(&p);
    return rc;
}

static int run_host_case(clhgemm_handle_t h, const tc_case_t *c, tc_rng_t *rng)
{
    return run_host_case_ex(h, c, rng, 1);
}

static int device_has_fp64(int *has)
{
    clhgemm_device_info_t info;
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(NULL, &info, 1, &count);
    if (st == CLHGEMM_NO_DEVICE) {
        cl_uint np = 0;
        if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) {
            printf("SKIP: no OpenCL device on this machine\n");
            return TC_SKIP;
        }
    }
    if (st != CLHGEMM_SUCCESS || count == 0) {
        fprintf(stderr, "FAIL: clhgemm_devices_get -> %s\n", clhgemm_status_string(st));
        return 1;
    }
    *has = info.has_fp64;
    return 0;
}

/* Devices a handle created with default options uses (clhgemm_create's rule: CLHGEMM_DEVICES,
 * else every GPU, else every device). */
static size_t selected_devices(void)
{
    size_t ndev = 0, total = 0;
    if (clhgemm_devices_get(NULL, NULL, 0, &total) == CLHGEMM_SUCCESS && total) {
        clhgemm_device_info_t *all = calloc(total, sizeof *all);
        if (all && clhgemm_devices_get(NULL, all, total, &total) == CLHGEMM_SUCCESS) {
            const char *spec = getenv("CLHGEMM_DEVICES");
            size_t gpus = 0;
            for (size_t i = 0; i < total; i++) gpus += all[i].kind == CLHGEMM_DEVICE_GPU;
            ndev = (spec && *spec) || !gpus ? total : gpus;
        }
        free(all);
    }
    return ndev;
}

static int create_handle(clhgemm_handle_t *h, const clhgemm_options_t *o)
{
    clhgemm_status_t st = clhgemm_create(h, o);
    if (st != CLHGEMM_SUCCESS || !*h) {
        fprintf(stderr, "FAIL: clhgemm_create -> %s (%d)\n", clhgemm_status_string(st), (int)st);
        return 1;
    }
    return 0;
}

static tc_case_t mk(int dbl, clhgemm_layout_t layout, clhgemm_transpose_t ta,
                    clhgemm_transpose_t tb, int m, int n, int k, double alpha, double beta,
                    int variant)
{
    tc_case_t c = {0};
    c.dbl = dbl;
    c.layout = layout;
    c.ta = ta;
    c.tb = tb;
    c.m = m;
    c.n = n;
    c.k = k;
    c.alpha = alpha;
    c.beta = beta;
    set_variant(&c, variant);
    return c;
}

/* ---- table --------------------------------------------------------------------------------- */

static void run_table(clhgemm_handle_t h, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    /* Cubes: every transpose pair x every (alpha, beta), the ld/offset variant rotating. */
    static const int cubes[] = {1, 7, 33, 129, 257};
    int v = 0;
    for (size_t s = 0; s < sizeof cubes / sizeof cubes[0]; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int ia = 0; ia < 3; ia++)
                    for (int ib = 0; ib < 3; ib++) {
                        tc_case_t c = mk(dbl, layout, NT[ta], NT[tb], cubes[s], cubes[s], cubes[s],
                                         AB[ia], AB[ib], v++ % 4);
                        tc_tally(run_host_case(h, &c, rng));
                    }
    /* Rectangular shapes, k much smaller and much larger than m and n. */
    static const int shapes[][3] = {
        {7, 33, 129},   {129, 7, 33},  {33, 129, 7},  {257, 1, 33},   {1, 257, 129},  {1000, 7, 33},
        {7, 1000, 129}, {257, 300, 1}, {300, 257, 3}, {129, 1000, 3}, {40, 40, 3000}, {1, 1, 1000},
    };
    static const double pairs[][2] = {{1.0, 0.0}, {-1.5, 1.0}, {1.0, -1.5}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                int ip = (int)((s + 2 * ta + tb) % 3);
                tc_case_t c = mk(dbl, layout, NT[ta], NT[tb], shapes[s][0], shapes[s][1],
                                 shapes[s][2], pairs[ip][0], pairs[ip][1], v++ % 4);
                tc_tally(run_host_case(h, &c, rng));
            }
    /* One large cube; the transposes differ between the table's four invocations. */
    {
        tc_case_t c = mk(dbl, layout, NT[dbl], NT[layout == CLHGEMM_ROW_MAJOR], 1000, 1000, 1000,
                         -1.5, 1.0, 1);
        tc_tally(run_host_case(h, &c, rng));
    }
    /* ConjTrans is Trans for real data. */
    static const clhgemm_transpose_t CT[3][2] = {{CLHGEMM_CONJ_TRANS, CLHGEMM_NO_TRANS},
                                                 {CLHGEMM_NO_TRANS, CLHGEMM_CONJ_TRANS},
                                                 {CLHGEMM_CONJ_TRANS, CLHGEMM_CONJ_TRANS}};
    for (int i = 0; i < 3; i++) {
        tc_case_t c = mk(dbl, layout, CT[i][0], CT[i][1], 33, 129, 7, 1.0, i == 1 ? 0.0 : -1.5, i);
        tc_tally(run_host_case(h, &c, rng));
    }
}

static int mode_table(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[2], "s") && strcmp(argv[2], "d")) ||
        (strcmp(argv[3], "col") && strcmp(argv[3], "row"))) {
        fprintf(stderr, "usage: %s table s|d col|row\n", argv[0]);
        return 2;
    }
    int dbl = argv[2][0] == 'd';
    clhgemm_layout_t layout = strcmp(argv[3], "col") ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
    int has64 = 0, rc = device_has_fp64(&has64);
    if (rc) return rc;
    if (dbl && !has64) {
        printf("SKIP: the device has no fp64\n");
        return TC_SKIP;
    }
    clhgemm_handle_t h;
    if (create_handle(&h, NULL)) return 1;
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x4057ULL + (uint64_t)dbl * 7 + (uint64_t)layout);
    run_table(h, dbl, layout, &rng);
    clhgemm_destroy(h);
    return 0;
}

/* ---- split --------------------------------------------------------------------------------- */

static int mode_split(void)
{
    int has64 = 0, rc = device_has_fp64(&has64);
    if (rc) return rc;
    if (!env_limit()) fprintf(stderr, "note: CLHGEMM_DEVICE_MEMORY_LIMIT is not set\n");
    clhgemm_handle_t h;
    if (create_handle(&h, NULL)) return 1;
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x5E117ULL + env_limit());
    int v = 0;
    for (int dbl = 0; dbl <= has64; dbl++) {
        for (int l = 0; l < 2; l++) {
            clhgemm_layout_t layout = l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
            /* A large cube, every transpose pair on a middle one, and thin shapes with a long
             * k (k much larger than m and n) or a short one. */
            tc_case_t c = mk(dbl, layout, NT[l], NT[dbl], 1000, 1000, 1000, 1.0, -1.5, 1);
            tc_tally(run_host_case(h, &c, &rng));
            for (int ta = 0; ta < 2; ta++)
                for (int tb = 0; tb < 2; tb++) {
                    c = mk(dbl, layout, NT[ta], NT[tb], 257, 300, 513, AB[1 + (ta ^ tb)],
                           AB[(ta + tb + l) % 3], v++ % 4);
                    tc_tally(run_host_case(h, &c, &rng));
                }
            static const int shapes[][3] = {
                {40, 40, 3000},  {1000, 33, 129}, {33, 1000, 257}, {600, 700, 3}, {129, 1000, 1},
                {7, 1000, 1000}, {1, 70001, 3},   {70001, 1, 3},   {3, 2, 70001}, {1000, 1000, 1}};
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                c = mk(dbl, layout, NT[s & 1], NT[(s >> 1) & 1], shapes[s][0], shapes[s][1],
                       shapes[s][2], s % 3 == 2 ? -1.5 : 1.0, AB[s % 3], v++ % 4);
                tc_tally(run_host_case(h, &c, &rng));
            }
        }
    }
    clhgemm_destroy(h);
    const size_t ndev = selected_devices();
    if (ndev > 1 && g_max_devices_used < 2) {
        fprintf(stderr, "FAIL split: %zu devices selected but no call used more than one\n", ndev);
        tc_tally(1);
    }
    printf("split: %zu device(s) selected, at most %d used by one call; %lld call(s) with several "
           "bands and k slices; %lld tile(s) stolen\n",
           ndev, g_max_devices_used, g_multiband_calls, g_tiles_stolen);
    if (forced_amode() > 0 && g_multiband_calls == 0) {
        /* A forced resident/prefetch mode must have met several bands with k split, or the
         * band reuse and prefetch paths went untested. */
        fprintf(stderr, "FAIL split: CLHGEMM_TILE forces a band mode but no call had several "
                        "bands and k slices\n");
        tc_tally(1);
    }
    if (env_limit() && env_limit() <= (8ull << 20)) {
        /* 1000 x 1000 C in float is 4 MB, and a 1000-deep slice of 1000-wide panels another
         * 8 MB: under these limits the run must have split k and, in some case, both m and n. */
        if (!g_seen_k_split) {
            fprintf(stderr, "FAIL split: no case used tile_k < k\n");
            tc_tally(1);
        }
        if (!g_seen_mn_split) {
            fprintf(stderr, "FAIL split: no case split both m and n\n");
            tc_tally(1);
        }
    }
    return 0;
}

/* ---- arguments and quick paths ------------------------------------------------------------- */

/* Calls with the problem's data but the given overriding arguments and checks the status, and
 * that C, A and B are bit-identical afterwards. */
typedef struct argcall_s {
    int layout, ta, tb, m, n, k, lda, ldb, ldc;
    double alpha, beta;
    int null_a, null_b, null_c;
} argcall_t;

static int run_arg_case(clhgemm_handle_t h, const tc_problem_t *p, const argcall_t *a,
                        clhgemm_status_t want, const char *what)
{
    const size_t es = p->esz;
    void *cbuf = malloc(p->nc * es), *acp = malloc(p->na * es), *bcp = malloc(p->nb * es);
    if (!cbuf || !acp || !bcp) {
        free(cbuf);
        free(acp);
        free(bcp);
        return 1;
    }
    memcpy(cbuf, p->c0, p->nc * es);
    memcpy(acp, p->a0, p->na * es);
    memcpy(bcp, p->b0, p->nb * es);
    const void *A = a->null_a ? NULL : p->a0, *B = a->null_b ? NULL : p->b0;
    void *C = a->null_c ? NULL : cbuf;
    clhgemm_status_t st;
    if (p->c.dbl)
        st = clhgemm_dgemm(h, (clhgemm_layout_t)a->layout, (clhgemm_transpose_t)a->ta,
                           (clhgemm_transpose_t)a->tb, a->m, a->n, a->k, a->alpha, A, a->lda, B,
                           a->ldb, a->beta, C, a->ldc);
    else
        st = clhgemm_sgemm(h, (clhgemm_layout_t)a->layout, (clhgemm_transpose_t)a->ta,
                           (clhgemm_transpose_t)a->tb, a->m, a->n, a->k, (float)a->alpha, A, a->lda,
                           B, a->ldb, (float)a->beta, C, a->ldc);
    int rc = 0;
    if (st != want) {
        fprintf(stderr, "FAIL args %cgemm %s: status %s (%d), want %s (%d)\n", p->c.dbl ? 'd' : 's',
                what, clhgemm_status_string(st), (int)st, clhgemm_status_string(want), (int)want);
        rc = 1;
    }
    if (memcmp(cbuf, p->c0, p->nc * es)) {
        fprintf(stderr, "FAIL args %cgemm %s: C was modified\n", p->c.dbl ? 'd' : 's', what);
        rc = 1;
    }
    if (memcmp(acp, p->a0, p->na * es) || memcmp(bcp, p->b0, p->nb * es)) {
        fprintf(stderr, "FAIL args %cgemm %s: A or B was modified\n", p->c.dbl ? 'd' : 's', what);
        rc = 1;
    }
    free(cbuf);
    free(acp);
    free(bcp);
    return rc;
}

static void args_for(clhgemm_handle_t h, int dbl, tc_rng_t *rng)
{
    /* One valid column-major NN problem 9x8x7 with ld = rows + 2; every call below changes one
     * thing. A, B and C are large enough for any of the variations. */
    tc_case_t c =
        mk(dbl, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, 9, 8, 7, 1.0, 0.5, 0);
    c.lda = c.ldb = c.ldc = 12;
    tc_problem_t p;
    if (tc_problem_init_host(&p, &c, rng)) {
        tc_tally(1);
        return;
    }
    const argcall_t ok = {CLHGEMM_COL_MAJOR,
                          CLHGEMM_NO_TRANS,
                          CLHGEMM_NO_TRANS,
                          9,
                          8,
                          7,
                          12,
                          12,
                          12,
                          1.0,
                          0.5,
                          0,
                          0,
                          0};
    argcall_t a;
#define ARG(stmt, want, what)                                                                      \
    do {                                                                                           \
        a = ok;                                                                                    \
        stmt;                                                                                      \
        tc_tally(run_arg_case(h, &p, &a, want, what));                                                \
    } while (0)
    ARG(a.layout = 0, CLHGEMM_INVALID_LAYOUT, "layout=0");
    ARG(a.layout = 100, CLHGEMM_INVALID_LAYOUT, "layout=100");
    ARG(a.layout = 103, CLHGEMM_INVALID_LAYOUT, "layout=103");
    ARG((a.layout = 0, a.m = -1, a.lda = 0), CLHGEMM_INVALID_LAYOUT, "layout=0 m=-1 lda=0");
    ARG(a.ta = 110, CLHGEMM_INVALID_TRANS_A, "transA=110");
    ARG(a.ta = 114, CLHGEMM_INVALID_TRANS_A, "transA=114");
    ARG((a.ta = 0, a.tb = 0), CLHGEMM_INVALID_TRANS_A, "transA=0 transB=0");
    ARG(a.tb = 110, CLHGEMM_INVALID_TRANS_B, "transB=110");
    ARG(a.tb = 114, CLHGEMM_INVALID_TRANS_B, "transB=114");
    ARG((a.tb = 1, a.m = -1), CLHGEMM_INVALID_TRANS_B, "transB=1 m=-1");
    ARG(a.m = -1, CLHGEMM_INVALID_M, "m=-1");
    ARG((a.m = -5, a.n = -1, a.k = -1), CLHGEMM_INVALID_M, "m=n=k<0");
    ARG(a.n = -1, CLHGEMM_INVALID_N, "n=-1");
    ARG((a.n = -1, a.k = -1), CLHGEMM_INVALID_N, "n=k=-1");
    ARG(a.k = -1, CLHGEMM_INVALID_K, "k=-1");
    ARG((a.k = -1, a.lda = 1), CLHGEMM_INVALID_K, "k=-1 lda=1");
    /* Leading dimensions: col-major NN A is m x k (lda >= m), B k x n (ldb >= k), C ldc >= m. */
    ARG(a.lda = 8, CLHGEMM_INVALID_LDA, "lda=m-1");
    ARG(a.lda = 0, CLHGEMM_INVALID_LDA, "lda=0");
    ARG((a.lda = 8, a.ldb = 1, a.ldc = 1), CLHGEMM_INVALID_LDA, "lda ldb ldc small");
    ARG(a.ldb = 6, CLHGEMM_INVALID_LDB, "ldb=k-1");
    ARG((a.ldb = 6, a.ldc = 8), CLHGEMM_INVALID_LDB, "ldb ldc small");
    ARG(a.ldc = 8, CLHGEMM_INVALID_LDC, "ldc=m-1");
    ARG(a.ldc = -1, CLHGEMM_INVALID_LDC, "ldc=-1");
    /* Transposed / row-major: the stored rows change. */
    ARG((a.ta = CLHGEMM_TRANS, a.lda = 6), CLHGEMM_INVALID_LDA, "col T: lda=k-1");
    ARG((a.ta = CLHGEMM_CONJ_TRANS, a.lda = 6), CLHGEMM_INVALID_LDA, "col C: lda=k-1");
    ARG((a.tb = CLHGEMM_TRANS, a.ldb = 7), CLHGEMM_INVALID_LDB, "col T: ldb=n-1");
    ARG((a.layout = CLHGEMM_ROW_MAJOR, a.lda = 6), CLHGEMM_INVALID_LDA, "row N: lda=k-1");
    ARG((a.layout = CLHGEMM_ROW_MAJOR, a.ldb = 7), CLHGEMM_INVALID_LDB, "row N: ldb=n-1");
    ARG((a.layout = CLHGEMM_ROW_MAJOR, a.ldc = 7), CLHGEMM_INVALID_LDC, "row: ldc=n-1");
    ARG((a.layout = CLHGEMM_ROW_MAJOR, a.ta = CLHGEMM_TRANS, a.lda = 8), CLHGEMM_INVALID_LDA,
        "row T: lda=m-1");
    ARG((a.layout = CLHGEMM_ROW_MAJOR, a.tb = CLHGEMM_TRANS, a.ldb = 6), CLHGEMM_INVALID_LDB,
        "row T: ldb=k-1");
    /* Empty problems still need ld >= 1. */
    ARG((a.m = 0, a.lda = 0), CLHGEMM_INVALID_LDA, "m=0 k=7 lda=0");
    ARG((a.m = 0, a.k = 0, a.lda = 0), CLHGEMM_INVALID_LDA, "m=0 k=0 lda=0");
    ARG((a.m = 0, a.n = 0, a.k = 0, a.lda = 1, a.ldb = 1, a.ldc = 0), CLHGEMM_INVALID_LDC,
        "empty ldc=0");
    /* NULL operands, when they would be read. */
    ARG(a.null_a = 1, CLHGEMM_NULL_BUFFER_A, "A=NULL");
    ARG(a.null_b = 1, CLHGEMM_NULL_BUFFER_B, "B=NULL");
    ARG((a.null_a = 1, a.null_b = 1, a.null_c = 1), CLHGEMM_NULL_BUFFER_A, "A=B=C=NULL");
    ARG((a.null_b = 1, a.null_c = 1), CLHGEMM_NULL_BUFFER_B, "B=C=NULL");
    ARG(a.null_c = 1, CLHGEMM_NULL_BUFFER_C, "C=NULL");
    ARG((a.null_c = 1, a.beta = 0.0), CLHGEMM_NULL_BUFFER_C, "C=NULL beta=0");
    ARG((a.null_c = 1, a.alpha = 0.0), CLHGEMM_NULL_BUFFER_C, "C=NULL alpha=0");
    ARG((a.null_c = 1, a.k = 0), CLHGEMM_NULL_BUFFER_C, "C=NULL k=0");
    ARG((a.lda = 1, a.null_a = 1), CLHGEMM_INVALID_LDA, "A=NULL lda=1");
    /* ... and when they are not: empty C, or k = 0 / alpha = 0 (A, B not referenced). */
    ARG((a.m = 0, a.null_a = 1, a.null_b = 1, a.null_c = 1), CLHGEMM_SUCCESS, "m=0 all NULL");
    ARG((a.n = 0, a.null_a = 1, a.null_b = 1, a.null_c = 1), CLHGEMM_SUCCESS, "n=0 all NULL");
    ARG((a.m = 0, a.n = 0, a.k = 0), CLHGEMM_SUCCESS, "m=n=k=0");
    ARG((a.m = 0, a.alpha = NAN, a.beta = NAN), CLHGEMM_SUCCESS, "m=0 NaN alpha beta");
    /* The handle. */
    {
        a = ok;
        clhgemm_handle_t none = NULL;
        tc_tally(run_arg_case(none, &p, &a, CLHGEMM_NULL_HANDLE, "handle=NULL"));
        a.m = -1;
        a.layout = 0;
        clhgemm_status_t st =
            dbl ? clhgemm_dgemm(NULL, 0, 0, 0, -1, -1, -1, 1.0, NULL, 0, NULL, 0, 0.0, NULL, 0)
                : clhgemm_sgemm(NULL, 0, 0, 0, -1, -1, -1, 1.0f, NULL, 0, NULL, 0, 0.0f, NULL, 0);
        if (st == CLHGEMM_SUCCESS) {
            fprintf(stderr, "FAIL args: NULL handle with every argument bad -> success\n");
            tc_tally(1);
        } else {
            tc_tally(0);
        }
    }
#undef ARG
    tc_problem_free(&p);
}

/* Quick paths that do change C: k = 0 or alpha = 0 give C := beta*C (A and B not read: passed
 * as NULL, or full of NaN); beta = 0 over NaN gives zeros. Checked like any other case. */
static void quick_paths(clhgemm_handle_t h, int dbl, tc_rng_t *rng)
{
    for (int l = 0; l < 2; l++) {
        clhgemm_layout_t layout = l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
        for (int ib = 0; ib < 3; ib++) {
            tc_case_t c = mk(dbl, layout, NT[ib & 1], NT[l], 33, 17, 0, 1.0, AB[ib], 1);
            c.null_a = c.null_b = (ib != 1);
            tc_tally(run_host_case(h, &c, rng));
            c = mk(dbl, layout, NT[l], NT[ib & 1], 17, 33, 29, 0.0, AB[ib], 1 + 2 * (ib & 1));
            tc_tally(run_host_case(h, &c, rng)); /* A, B gaps NaN and A, B hold data: not read */
            c.null_a = c.null_b = 1;
            tc_tally(run_host_case(h, &c, rng));
            /* m = 0, n = 0: C bit-identical (sentinels everywhere) */
            c = mk(dbl, layout, NT[ib & 1], NT[l], 0, 20, 5, 1.0, AB[ib], 1);
            tc_tally(run_host_case(h, &c, rng));
            c = mk(dbl, layout, NT[ib & 1], NT[l], 20, 0, 5, -1.5, AB[ib], 1);
            tc_tally(run_host_case(h, &c, rng));
        }
    }
}

static int mode_args(void)
{
    int has64 = 0, rc = device_has_fp64(&has64);
    if (rc) return rc;
    clhgemm_handle_t h;
    /* Handle-level checks first. */
    clhgemm_call_info_t inf;
    if (clhgemm_last_call_info(NULL, &inf) != CLHGEMM_NULL_HANDLE) {
        fprintf(stderr, "FAIL: clhgemm_last_call_info(NULL) is not CLHGEMM_NULL_HANDLE\n");
        tc_tally(1);
    }
    clhgemm_destroy(NULL);
    if (clhgemm_create(NULL, NULL) == CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL: clhgemm_create(NULL, NULL) succeeded\n");
        tc_tally(1);
    }
    {
        clhgemm_options_t o;
        memset(&o, 0x5A, sizeof o);
        clhgemm_options_init(&o);
        if (o.devices || o.device_memory_limit || o.queues || o.cpu_threads || o.trace_file) {
            fprintf(stderr, "FAIL: clhgemm_options_init left a field set\n");
            tc_tally(1);
        }
        o.queues = 2;
        h = (clhgemm_handle_t)&o; /* must be overwritten with NULL */
        clhgemm_status_t st = clhgemm_create(&h, &o);
        if (st != CLHGEMM_INVALID_OPTION || h != NULL) {
            fprintf(stderr, "FAIL: clhgemm_create with queues=2 -> %s, handle %p\n",
                    clhgemm_status_string(st), (void *)h);
            tc_tally(1);
        }
        clhgemm_options_init(&o);
        o.devices = "no-such-device-name-xyz";
        st = clhgemm_create(&h, &o);
        if (st != CLHGEMM_INVALID_DEVICE_SPEC || h != NULL) {
            fprintf(stderr, "FAIL: clhgemm_create with devices=no-such -> %s\n",
                    clhgemm_status_string(st));
            tc_tally(1);
            if (h) clhgemm_destroy(h);
        }
    }
    if (create_handle(&h, NULL)) return 1;
    if (clhgemm_last_call_info(h, NULL) == CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL: clhgemm_last_call_info(h, NULL) succeeded\n");
        tc_tally(1);
    }
    tc_rng_t rng;
    tc_rng_seed(&rng, 0xA265ULL);
    for (int dbl = 0; dbl <= has64; dbl++) {
        args_for(h, dbl, &rng);
        quick_paths(h, dbl, &rng);
    }
    /* The handle still works after all the rejected calls. */
    tc_case_t c =
        mk(0, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_TRANS, 65, 70, 75, 1.0, 0.5, 1);
    tc_tally(run_host_case(h, &c, &rng));
    clhgemm_destroy(h);
    return 0;
}

/* ---- threads ------------------------------------------------------------------------------- */

typedef struct worker_s {
    clhgemm_handle_t h;
    int id, has64, own_handle;
    int cases, failures;
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x7EADULL * (uint64_t)(w->id + 1) + (uint64_t)w->own_handle);
    if (w->own_handle && create_handle(&w->h, NULL)) {
        w->failures++;
        return NULL;
    }
    static const int shapes[2][4][3] = {
        {{300, 200, 257}, {33, 600, 129}, {129, 7, 900}, {500, 450, 60}},
        {{64, 700, 300}, {257, 257, 257}, {900, 40, 33}, {17, 129, 1}},
    };
    for (int i = 0; i < 8; i++) {
        const int *s = shapes[w->id & 1][i % 4];
        tc_case_t c = mk(w->has64 ? ((i + w->id) & 1) : 0,
                         ((i >> 1) + w->id) & 1 ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR, NT[i & 1],
                         NT[(i >> 2) & 1], s[0], s[1], s[2], i % 3 == 2 ? 0.5 : -1.5, AB[i % 3],
                         (i + w->id) % 4);
        w->cases++;
        if (run_host_case_ex(w->h, &c, &rng, w->own_handle)) w->failures++;
    }
    if (w->own_handle) clhgemm_destroy(w->h);
    return NULL;
}

static void run_workers(clhgemm_handle_t shared, int has64, const char *what)
{
    worker_t w[2];
    pthread_t th[2];
    int started[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        w[i] = (worker_t){.h = shared, .id = i, .has64 = has64, .own_handle = shared == NULL};
        started[i] = pthread_create(&th[i], NULL, worker, &w[i]) == 0;
        if (!started[i]) fprintf(stderr, "FAIL %s: pthread_create failed\n", what);
    }
    for (int i = 0; i < 2; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        tc_tally_n(w[i].cases, w[i].failures + !started[i]);
        if (w[i].failures)
            fprintf(stderr, "FAIL %s: thread %d: %d of %d cases failed\n", what, i, w[i].failures,
                    w[i].cases);
    }
}

static int mode_threads(void)
{
    int has64 = 0, rc = device_has_fp64(&has64);
    if (rc) return rc;
    clhgemm_handle_t h;
    if (create_handle(&h, NULL)) return 1;
    run_workers(h, has64, "one handle");
    clhgemm_destroy(h);
    run_workers(NULL, has64, "two handles");
    return 0;
}

/* ---- fault injection ----------------------------------------------------------------------- */

enum { FC_CALL_FAULT = 0, FC_FAIL = 1, FC_CREATE_FAULT = 2, FC_NO_FAULT = 3, FC_PARTIAL = 4 };

/* After a failed call: every element outside the matrix bit-identical, every element inside
 * either bit-identical or the correct result (tiles written back before the failure stay).
 * *changed receives how many matrix elements changed. */
static int check_partial(const tc_problem_t *p, const void *got, size_t *changed, const char *tag)
{
    const tc_case_t *q = &p->c;
    double *want = malloc(p->nc * sizeof(double)), *bound = malloc(p->nc * sizeof(double));
    unsigned char *inside = calloc(p->nc, 1);
    int rc = 0;
    *changed = 0;
    if (!want || !bound || !inside) {
        rc = 1;
        goto out;
    }
    tc_problem_ref_init(p, want, bound);
    if (tc_problem_ref_apply(p, want, bound)) {
        rc = 1;
        goto out;
    }
    const double eps = q->dbl ? DBL_EPSILON : FLT_EPSILON, tiny = q->dbl ? 1e-300 : 1e-30;
    size_t bad = 0;
    for (int j = 0; j < q->n; j++)
        for (int i = 0; i < q->m; i++) {
            size_t idx = q->offc + tc_index_c(q->layout, i, j, q->ldc);
            inside[idx] = 1;
            if (!memcmp((const char *)got + idx * p->esz, (const char *)p->c0 + idx * p->esz,
                        p->esz))
                continue;
            (*changed)++;
            double g = q->dbl ? ((const double *)got)[idx] : ((const float *)got)[idx];
            if (!(fabs(g - want[idx]) <= 2.0 * (q->k + 2) * eps * bound[idx] + tiny)) bad++;
        }
    size_t outside = 0;
    for (size_t idx = 0; idx < p->nc; idx++)
        if (!inside[idx] &&
            memcmp((const char *)got + idx * p->esz, (const char *)p->c0 + idx * p->esz, p->esz))
            outside++;
    if (bad || outside) {
        fprintf(stderr,
                "FAIL %s: after the failed call %zu matrix elements are neither unchanged "
                "nor correct, %zu elements outside the matrix changed\n",
                tag, bad, outside);
        rc = 1;
    }
out:
    free(want);
    free(bound);
    free(inside);
    return rc;
}

/* One call that may fail with `allowed`: 0 success and correct, -4 failed with `allowed` and C
 * consistent (check_partial), 1 test failure. */
static int call_allowing(clhgemm_handle_t h, const tc_case_t *c, tc_rng_t *rng, const char *who,
                         clhgemm_status_t allowed, size_t *changed)
{
    tc_problem_t p;
    char tag[360], desc[300];
    if (tc_problem_init_host(&p, c, rng)) return 1;
    tc_case_describe(&p.c, desc, sizeof desc);
    snprintf(tag, sizeof tag, "%s: %s", who, desc);
    void *got = malloc(p.nc * p.esz);
    if (!got) {
        tc_problem_free(&p);
        return 1;
    }
    memcpy(got, p.c0, p.nc * p.esz);
    clhgemm_status_t st = host_call(h, &p, got);
    int rc;
    if (st == CLHGEMM_SUCCESS) {
        double *want = malloc(p.nc * sizeof(double)), *bound = malloc(p.nc * sizeof(double));
        rc = !want || !bound;
        if (!rc) {
            tc_problem_ref_init(&p, want, bound);
            rc = tc_problem_ref_apply(&p, want, bound);
        }
        if (!rc)
            rc = tc_check_c(p.c.dbl, p.c.layout, p.c.m, p.c.n, p.c.k, got, p.c0, p.nc, p.c.offc,
                            p.c.ldc, want, bound, tag);
        free(want);
        free(bound);
    } else if (st == allowed) {
        rc = check_partial(&p, got, changed, tag) ? 1 : -4;
    } else {
        fprintf(stderr, "FAIL %s: status %s (%d), want success or %s\n", tag,
                clhgemm_status_string(st), (int)st, clhgemm_status_string(allowed));
        rc = 1;
    }
    free(got);
    tc_problem_free(&p);
    return rc;
}

static int fault_child(int n)
{
    alarm(120); /* a hang becomes SIGALRM, which the parent reports */
    char v[32];
    snprintf(v, sizeof v, "%d", n);
    setenv("CLHGEMM_FAULT_ALLOC", v, 1);
    int has64 = 0, rc = device_has_fp64(&has64);
    if (rc) return rc;
    tc_rng_t rng;
    tc_rng_seed(&rng, 0xFA017ULL + (uint64_t)n);
    /* Several tiles under the limit the parent sets; beta != 0, so an unchanged element and a
     * written one differ. */
    tc_case_t cases[3] = {
        mk(0, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, 300, 260, 270, 1.0, -1.5, 1),
        mk(has64, CLHGEMM_ROW_MAJOR, CLHGEMM_TRANS, CLHGEMM_NO_TRANS, 280, 310, 290, -1.5, 0.5, 3),
        mk(0, CLHGEMM_COL_MAJOR, CLHGEMM_TRANS, CLHGEMM_TRANS, 500, 90, 1000, 1.0, 1.0, 0),
    };
    clhgemm_handle_t h = (clhgemm_handle_t)&rng;
    clhgemm_status_t st = clhgemm_create(&h, NULL);
    if (st != CLHGEMM_SUCCESS) {
        if (st != CL_MEM_OBJECT_ALLOCATION_FAILURE || h != NULL) {
            fprintf(stderr, "FAIL fault %d: clhgemm_create -> %s (%d), handle %p\n", n,
                    clhgemm_status_string(st), (int)st, (void *)h);
            return FC_FAIL;
        }
        unsetenv("CLHGEMM_FAULT_ALLOC");
        if (create_handle(&h, NULL)) return FC_FAIL;
        size_t changed;
        rc = call_allowing(h, &cases[0], &rng, "after a failed create",
                           CL_MEM_OBJECT_ALLOCATION_FAILURE, &changed);
        clhgemm_destroy(h);
        printf("fault %d: in clhgemm_create\n", n);
        return rc ? FC_FAIL : FC_CREATE_FAULT;
    }
    for (int i = 0; i < 3; i++) {
        size_t changed = 0;
        char who[64];
        snprintf(who, sizeof who, "fault %d call %d", n, i + 1);
        rc = call_allowing(h, &cases[i], &rng, who, CL_MEM_OBJECT_ALLOCATION_FAILURE, &changed);
        if (rc == 1) {
            clhgemm_destroy(h);
            return FC_FAIL;
        }
        if (rc == -4) {
            printf("fault %d: call %d failed with CL_MEM_OBJECT_ALLOCATION_FAILURE, %zu of %d "
                   "elements of C written before\n",
                   n, i + 1, changed, cases[i].m * cases[i].n);
            fflush(stdout);
            unsetenv("CLHGEMM_FAULT_ALLOC");
            /* The same handle recovers, and a new one works. */
            int bad = call_allowing(h, &cases[i], &rng, "same handle after the fault",
                                    CL_MEM_OBJECT_ALLOCATION_FAILURE, &changed) != 0;
            clhgemm_destroy(h);
            if (create_handle(&h, NULL)) return FC_FAIL;
            bad |= call_allowing(h, &cases[(i + 1) % 3], &rng, "new handle after the fault",
                                 CL_MEM_OBJECT_ALLOCATION_FAILURE, &changed) != 0;
            clhgemm_destroy(h);
            if (bad) return FC_FAIL;
            return changed ? FC_PARTIAL : FC_CALL_FAULT;
        }
    }
    clhgemm_destroy(h);
    printf("fault %d: no call failed\n", n);
    return FC_NO_FAULT;
}

/* A CPU share (CLHGEMM_CPU_SHARE a fraction above 0) computes its part of C whatever the
 * devices do, so a failed call may have written those elements (with their correct values). */
static int cpu_share_on(void)
{
    const char *v = getenv("CLHGEMM_CPU_SHARE");
    return v && strcmp(v, "off") && strcmp(v, "auto") && atof(v) > 0.0;
}

static int mode_fault(const char *self)
{
    /* No platform at all is a skip. The children exec right after fork, so the parent's own
     * OpenCL use (the device count below) does not leak into them. */
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) {
        printf("SKIP: no OpenCL platform\n");
        return TC_SKIP;
    }
    /* With more than one device, another device may legitimately have written tiles back
     * before the failing one gave up. */
    const size_t ndev = selected_devices();
    int seen_call_fault = 0, first_call_fault_result = -1, clean_run = 0;
    for (int n = 1; n <= 40; n++) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "FAIL fault: fork: %s\n", strerror(errno));
            tc_tally(1);
            break;
        }
        if (pid == 0) {
            char arg[16];
            snprintf(arg, sizeof arg, "%d", n);
            execl(self, self, "fault-child", arg, (char *)NULL);
            _exit(127);
        }
        int ws = 0;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
        }
        if (WIFSIGNALED(ws)) {
            fprintf(stderr, "FAIL fault %d: child killed by signal %d%s\n", n, WTERMSIG(ws),
                    WTERMSIG(ws) == SIGALRM ? " (hang)" : "");
            tc_tally(1);
            continue;
        }
        int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 1;
        if (code == TC_SKIP) return TC_SKIP;
        if (code == FC_FAIL || code > FC_PARTIAL) {
            fprintf(stderr, "FAIL fault %d: child exit %d\n", n, code);
            tc_tally(1);
            continue;
        }
        tc_tally(0);
        if (code == FC_CALL_FAULT || code == FC_PARTIAL) {
            if (!seen_call_fault) first_call_fault_result = code;
            seen_call_fault = 1;
            clean_run = 0;
        } else if (code == FC_NO_FAULT) {
            /* Past the last allocation of the child's calls (twice in a row, in case the
             * library absorbed the fault by choice). */
            if (seen_call_fault && ++clean_run == 2) break;
        }
    }
    if (!seen_call_fault) {
        fprintf(stderr, "FAIL fault: no injected allocation failure ever reached a GEMM call "
                        "(is CLHGEMM_FAULT_ALLOC implemented?)\n");
        tc_tally(1);
    } else if (first_call_fault_result != FC_CALL_FAULT && ndev <= 1 && !cpu_share_on()) {
        fprintf(stderr, "FAIL fault: the first failing allocation of a call left part of C "
                        "written (C must be unchanged when nothing was written back)\n");
        tc_tally(1);
    }
    return 0;
}

/* ---- the CPU share ---------------------------------------------------------------------------- */

/* CTest sets CLHGEMM_CPU_SHARE to 0, 0.3, 1 or auto (with CLHGEMM_CPU_SHARE_ANY_DEVICE=1, so
 * that auto engages beside PoCL's CPU device too) and CLHGEMM_CPU_SCHED to slab or strips:
 * every result must be right, call info must report the share (none for 0, all for 1, the
 * slab's rows for 0.3), and a share that should take part must have taken part somewhere. */
static int mode_cpushare(void)
{
    int has64 = 0, rc = device_has_fp64(&has64);
    if (rc) return rc;
    const char *sv = getenv("CLHGEMM_CPU_SHARE");
    const char *sched = getenv("CLHGEMM_CPU_SCHED");
    const int strips = sched && !strcmp(sched, "strips");
    const double want = !sv || !strcmp(sv, "auto") ? -1.0 : !strcmp(sv, "off") ? 0.0 : atof(sv);
    clhgemm_handle_t h;
    if (create_handle(&h, NULL)) return 1;
    tc_rng_t rng;
    tc_rng_seed(&rng, 0xC9005ULL);
    static const int shapes[][3] = {{300, 257, 513}, {1000, 600, 200}, {33, 1000, 129},
                                    {1, 700, 3},     {7, 7, 7},        {257, 1, 1000},
                                    {640, 640, 64}};
    double max_frac = 0;
    int v = 0;
    for (int dbl = 0; dbl <= has64; dbl++)
        for (int l = 0; l < 2; l++)
            for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++, v++) {
                const clhgemm_layout_t layout = l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
                tc_case_t c = mk(dbl, layout, NT[v & 1], NT[(v >> 1) & 1], shapes[i][0], shapes[i][1],
                                 shapes[i][2], v % 3 == 2 ? -1.5 : 1.0, AB[v % 3], v % 4);
                char tag[300];
                tc_case_describe(&c, tag, sizeof tag);
                int r = run_host_case_ex(h, &c, &rng, 0);
                clhgemm_call_info_t inf;
                memset(&inf, 0, sizeof inf);
                clhgemm_last_call_info(h, &inf);
                /* The CPU's rows: of m in column-major, of n in row-major (the transposed view). */
                const int rows = layout == CLHGEMM_COL_MAJOR ? c.m : c.n;
                if (!(inf.cpu_fraction >= 0.0 && inf.cpu_fraction <= 1.0)) {
                    fprintf(stderr, "FAIL %s: cpu_fraction %g\n", tag, inf.cpu_fraction);
                    r = 1;
                } else if (want == 0.0 && inf.cpu_fraction != 0.0) {
                    fprintf(stderr, "FAIL %s: CPU share 0 but cpu_fraction %g\n", tag, inf.cpu_fraction);
                    r = 1;
                } else if (want == 1.0 && inf.cpu_fraction != 1.0) {
                    fprintf(stderr, "FAIL %s: CPU share 1 but cpu_fraction %g\n", tag, inf.cpu_fraction);
                    r = 1;
                } else if (want > 0.0 && want < 1.0 && !strips &&
                           fabs(inf.cpu_fraction - want) > 1.0 / rows + 1e-12 &&
                           !(rows * want < 1.0 && inf.cpu_fraction == 1.0 / rows)) {
                    fprintf(stderr, "FAIL %s: CPU share %g as a slab but cpu_fraction %g\n", tag, want,
                            inf.cpu_fraction);
                    r = 1;
                }
                if (inf.cpu_fraction > 0 && inf.cpu_threads < 1) {
                    fprintf(stderr, "FAIL %s: cpu_fraction %g with %d OpenBLAS threads\n", tag,
                            inf.cpu_fraction, inf.cpu_threads);
                    r = 1;
                }
                if (inf.cpu_fraction > max_frac) max_frac = inf.cpu_fraction;
                tc_tally(r);
            }
    clhgemm_destroy(h);
    printf("cpushare: share %s, %s scheduler: largest CPU fraction of a call %.3f\n", sv ? sv : "auto",
           strips ? "strips" : "slab", max_frac);
    /* a share of a fixed fraction must take part; "auto" must where the devices are CPU devices
     * (PoCL, CLHGEMM_CPU_SHARE_ANY_DEVICE=1 in CTest), while beside a GPU its model may find
     * every one of these calls faster on the GPU alone (the H100: it gives none) */
    if (want != 0.0 && max_frac == 0.0) {
        if (want < 0.0 && tc_any_gpu()) {
            printf("cpushare: auto gave no share beside a GPU (allowed: the model's choice)\n");
        } else {
            fprintf(stderr, "FAIL cpushare: the CPU share never took part\n");
            tc_tally(1);
        }
    }
    return 0;
}

/* ---- a memory limit below one tile ---------------------------------------------------------- */

/* CTest sets CLHGEMM_DEVICE_MEMORY_LIMIT=1K: the pipeline may refuse with
 * CLHGEMM_WORKSPACE_TOO_SMALL (C untouched) or succeed (correct); nothing else. */
static int mode_tiny(void)
{
    int has64 = 0, rc = device_has_fp64(&has64);
    if (rc) return rc;
    clhgemm_handle_t h;
    if (create_handle(&h, NULL)) return 1;
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x717EULL);
    static const int shapes[][3] = {{1, 1, 1}, {33, 7, 129}, {300, 200, 100}};
    for (int dbl = 0; dbl <= has64; dbl++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            tc_case_t c =
                mk(dbl, i & 1 ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR, NT[i & 1], NT[dbl],
                   shapes[i][0], shapes[i][1], shapes[i][2], 1.0, AB[(i + (size_t)dbl) % 3], 1);
            size_t changed = 0;
            int r = call_allowing(h, &c, &rng, "tiny limit", CLHGEMM_WORKSPACE_TOO_SMALL, &changed);
            if (r == -4 && changed) {
                fprintf(stderr,
                        "FAIL tiny limit: WORKSPACE_TOO_SMALL after writing %zu elements "
                        "of C\n",
                        changed);
                r = 1;
            }
            tc_tally(r == 1);
        }
    /* The handle is not damaged by the refusals: a quick path still works. */
    tc_case_t c =
        mk(0, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, 20, 30, 0, 1.0, -1.5, 1);
    tc_tally(run_host_case(h, &c, &rng));
    clhgemm_destroy(h);
    return 0;
}

/* ---- trace --------------------------------------------------------------------------------- */

/* Minimal JSON syntax check (used when cJSON is not available). */
static const char *js_ws(const char *s)
{
    while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') s++;
    return s;
}

static const char *js_value(const char *s, int depth);

static const char *js_string(const char *s)
{
    if (*s != '"') return NULL;
    for (s++; *s && *s != '"'; s++) {
        if ((unsigned char)*s < 0x20) return NULL;
        if (*s == '\\') {
            s++;
            if (!*s) return NULL;
        }
    }
    return *s == '"' ? s + 1 : NULL;
}

static const char *js_value(const char *s, int depth)
{
    if (depth > 64) return NULL;
    s = js_ws(s);
    if (*s == '{' || *s == '[') {
        const char close = *s == '{' ? '}' : ']';
        const int obj = *s == '{';
        s = js_ws(s + 1);
        if (*s == close) return s + 1;
        for (;;) {
            if (obj) {
                s = js_string(js_ws(s));
                if (!s) return NULL;
                s = js_ws(s);
                if (*s++ != ':') return NULL;
            }
            s = js_value(s, depth + 1);
            if (!s) return NULL;
            s = js_ws(s);
            if (*s == ',') {
                s++;
                continue;
            }
            return *s == close ? s + 1 : NULL;
        }
    }
    if (*s == '"') return js_string(s);
    if (!strncmp(s, "true", 4)) return s + 4;
    if (!strncmp(s, "false", 5)) return s + 5;
    if (!strncmp(s, "null", 4)) return s + 4;
    char *end = NULL;
    strtod(s, &end);
    return end && end != s ? end : NULL;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    if (buf) buf[len] = '\0';
    fclose(f);
    return buf;
}

/* call_seconds > 0: every event must lie within a window that long (plus slack), which catches
 * device times put on the host clock with a wrong offset. */
static int check_trace_file(const char *path, const char *what, double call_seconds)
{
    char *text = read_file(path);
    if (!text) {
        fprintf(stderr, "FAIL trace %s: %s was not written\n", what, path);
        return 1;
    }
    int rc = 0;
    const char *end = js_value(text, 0);
    if (!end || *js_ws(end)) {
        fprintf(stderr, "FAIL trace %s: %s is not valid JSON (at byte %ld)\n", what, path,
                end ? (long)(end - text) : -1L);
        free(text);
        return 1;
    }
    if (!strstr(text, "\"traceEvents\"")) {
        fprintf(stderr, "FAIL trace %s: no traceEvents\n", what);
        rc = 1;
    }
    static const char *const want[] = {"h2d", "kernel", "d2h", "pack"};
    int counts[4] = {0, 0, 0, 0};
#ifdef CLHGEMM_HAVE_CJSON
    cJSON *root = cJSON_Parse(text);
    const cJSON *evs = root ? cJSON_GetObjectItemCaseSensitive(root, "traceEvents") : NULL;
    if (!cJSON_IsArray(evs)) {
        fprintf(stderr, "FAIL trace %s: traceEvents is not an array\n", what);
        cJSON_Delete(root);
        free(text);
        return 1;
    }
    /* tid -> track name from the thread_name metadata, then count complete events per track. */
    enum { MAXT = 256 };
    char *names[MAXT] = {0};
    const cJSON *e;
    cJSON_ArrayForEach(e, evs)
    {
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
        const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
        if (cJSON_IsString(ph) && !strcmp(ph->valuestring, "M") && cJSON_IsString(nm) &&
            !strcmp(nm->valuestring, "thread_name") && cJSON_IsNumber(tid) && tid->valueint >= 0 &&
            tid->valueint < MAXT) {
            const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
            const cJSON *tn = cJSON_GetObjectItemCaseSensitive(args, "name");
            if (cJSON_IsString(tn)) names[tid->valueint] = tn->valuestring;
        }
    }
    int nx = 0;
    double t_lo = INFINITY, t_hi = -INFINITY;
    cJSON_ArrayForEach(e, evs)
    {
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "X")) continue;
        nx++;
        const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
        const cJSON *ts = cJSON_GetObjectItemCaseSensitive(e, "ts");
        const cJSON *dur = cJSON_GetObjectItemCaseSensitive(e, "dur");
        if (!cJSON_IsNumber(tid) || !cJSON_IsNumber(ts) || !cJSON_IsNumber(dur) ||
            ts->valuedouble < 0 || dur->valuedouble < 0) {
            if (!rc) fprintf(stderr, "FAIL trace %s: a complete event lacks tid/ts/dur\n", what);
            rc = 1;
            continue;
        }
        if (ts->valuedouble < t_lo) t_lo = ts->valuedouble;
        if (ts->valuedouble + dur->valuedouble > t_hi) t_hi = ts->valuedouble + dur->valuedouble;
        const char *tn = tid->valueint >= 0 && tid->valueint < MAXT ? names[tid->valueint] : NULL;
        if (!tn) {
            if (!rc) fprintf(stderr, "FAIL trace %s: event on an unnamed track\n", what);
            rc = 1;
            continue;
        }
        for (int i = 0; i < 4; i++)
            if (strstr(tn, want[i]) || (i == 1 && strstr(tn, "compute"))) counts[i]++;
    }
    printf("trace %s: %d complete events; h2d %d, kernel %d, d2h %d, pack %d\n", what, nx,
           counts[0], counts[1], counts[2], counts[3]);
    if (call_seconds > 0 && nx > 0 && t_hi - t_lo > call_seconds * 1e6 + 20000.0) {
        fprintf(stderr, "FAIL trace %s: events span %.0f us but the call took %.0f us\n", what,
                t_hi - t_lo, call_seconds * 1e6);
        rc = 1;
    }
    cJSON_Delete(root);
#else
    (void)call_seconds;
    for (int i = 0; i < 4; i++) counts[i] = strstr(text, want[i]) != NULL;
    if (!strstr(text, "\"ph\":\"X\"") && !strstr(text, "\"ph\": \"X\"")) counts[0] = 0;
#endif
    for (int i = 0; i < 4; i++)
        if (!counts[i]) {
            fprintf(stderr, "FAIL trace %s: no event on a \"%s\" track\n", what, want[i]);
            rc = 1;
        }
    free(text);
    return rc;
}

static double last_seconds(clhgemm_handle_t h)
{
    clhgemm_call_info_t inf;
    return clhgemm_last_call_info(h, &inf) == CLHGEMM_SUCCESS ? inf.seconds : 0.0;
}

static int mode_trace(void)
{
    int has64 = 0, rc = device_has_fp64(&has64);
    if (rc) return rc;
    char dir[] = "/tmp/clhgemm-trace-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "FAIL trace: mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    char p1[96], p2[96];
    snprintf(p1, sizeof p1, "%s/opt.json", dir);
    snprintf(p2, sizeof p2, "%s/env.json", dir);
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x77ACEULL);
    /* Several tiles (the limit is set by CTest) and beta != 0, so C goes both ways. */
    tc_case_t c =
        mk(0, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_TRANS, 400, 300, 500, 1.0, 0.5, 1);
    clhgemm_options_t o;
    clhgemm_options_init(&o);
    o.trace_file = p1;
    clhgemm_handle_t h;
    if (create_handle(&h, &o)) return 1;
    tc_tally(run_host_case(h, &c, &rng));
    tc_tally(check_trace_file(p1, "options.trace_file", last_seconds(h)));
    clhgemm_destroy(h);

    setenv("CLHGEMM_TRACE", p2, 1);
    if (create_handle(&h, NULL)) return 1;
    unsetenv("CLHGEMM_TRACE");
    c = mk(has64, CLHGEMM_ROW_MAJOR, CLHGEMM_TRANS, CLHGEMM_NO_TRANS, 300, 350, 200, -1.5, 1.0, 0);
    tc_tally(run_host_case(h, &c, &rng));
    tc_tally(check_trace_file(p2, "CLHGEMM_TRACE", last_seconds(h)));
    /* A second call replaces the file (still one valid document). */
    c = mk(0, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, 100, 120, 90, 1.0, 0.0, 0);
    tc_tally(run_host_case(h, &c, &rng));
    tc_tally(check_trace_file(p2, "second call", last_seconds(h)));
    clhgemm_destroy(h);
    /* No leftovers besides the two traces. */
    remove(p1);
    remove(p2);
    if (rmdir(dir) != 0) {
        fprintf(stderr,
                "FAIL trace: %s not empty after removing the traces (temporary files "
                "left behind?)\n",
                dir);
        tc_tally(1);
    }
    return 0;
}

/* ---- main ---------------------------------------------------------------------------------- */


/* ---- routing ------------------------------------------------------------------------------ */

/* 1 when the handle's last call ran on OpenBLAS (routed: no device, no tile). */
static int last_routed_cpu(clhgemm_handle_t h)
{
    clhgemm_call_info_t inf;
    memset(&inf, 0, sizeof inf);
    if (clhgemm_last_call_info(h, &inf) != CLHGEMM_SUCCESS) return -1;
    return inf.devices_used == 0 && inf.tiles == 0 && inf.cpu_fraction == 1.0;
}

/* A handle made with these routing settings (the variables are read by clhgemm_create). */
static clhgemm_status_t route_handle(clhgemm_handle_t *h, const char *route, const char *model,
                                     const char *limit)
{
    setenv("CLHGEMM_ROUTE", route, 1);
    if (model)
        setenv("CLHGEMM_ROUTE_MODEL", model, 1);
    else
        unsetenv("CLHGEMM_ROUTE_MODEL");
    if (limit)
        setenv("CLHGEMM_DEVICE_MEMORY_LIMIT", limit, 1);
    else
        unsetenv("CLHGEMM_DEVICE_MEMORY_LIMIT");
    return clhgemm_create(h, NULL);
}

/* One case, checked against OpenBLAS, then where it went against `want_cpu`. */
static void route_case(clhgemm_handle_t h, int dbl, int m, int n, int k, double beta, int want_cpu, tc_rng_t *rng)
{
    tc_case_t c = mk(dbl, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_TRANS, m, n, k, 1.5, beta, 1);
    tc_tally(run_host_case_ex(h, &c, rng, 0));
    const int got = last_routed_cpu(h);
    EXPECT(got == want_cpu, "route %c %dx%dx%d beta=%g: went to the %s, want the %s", dbl ? 'd' : 's', m, n,
           k, beta, got ? "CPU" : "devices", want_cpu ? "CPU" : "devices");
}

/* Identical calls on a device-routed handle get identical plans. */
static void same_plans(clhgemm_handle_t h, int dbl, tc_rng_t *rng)
{
    clhgemm_call_info_t first, inf;
    memset(&first, 0, sizeof first);
    for (int r = 0; r < 4; r++) {
        tc_case_t c = mk(dbl, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, 300, 200, 500, 1.0, 0.5, 0);
        tc_tally(run_host_case_ex(h, &c, rng, 1));
        memset(&inf, 0, sizeof inf);
        clhgemm_last_call_info(h, &inf);
        if (r == 0) first = inf;
        const int same = inf.tile_m == first.tile_m && inf.tile_n == first.tile_n &&
                         inf.tile_k == first.tile_k && inf.a_mode == first.a_mode &&
                         inf.tiles == first.tiles && inf.tiles >= 2;
        EXPECT(same, "identical call %d: plan %dx%dx%d mode %d (%lld tiles), first %dx%dx%d mode %d (%lld)", r,
               inf.tile_m, inf.tile_n, inf.tile_k, inf.a_mode, inf.tiles, first.tile_m, first.tile_n, first.tile_k,
               first.a_mode, first.tiles);
    }
}

static int mode_route(void)
{
    int has64 = 0, rc = device_has_fp64(&has64);
    if (rc) return rc;
    /* the device-routed handle below runs under a 256K cap, which must cut 300 x 200 x 500 */
    tc_small_tiles_on_gpu("the 256K cap cuts the identical calls into several tiles");
    tc_rng_t rng;
    tc_rng_seed(&rng, 1919);
    clhgemm_handle_t h = NULL;
    /* auto with a model that counts the devices as GPUs of 1 PFLOP/s behind 0.5 ms: a tiny call
     * goes to OpenBLAS, a 600-cube to the devices, whatever the machine */
    clhgemm_status_t st = route_handle(&h, "auto", "0.5,1000000", NULL);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL create (auto): %s\n", clhgemm_status_string(st));
        return 1;
    }
    for (int dbl = 0; dbl <= has64; dbl++) {
        route_case(h, dbl, 1, 1, 1, 0.0, 1, &rng);
        route_case(h, dbl, 8, 8, 8, 0.5, 1, &rng);
        route_case(h, dbl, 33, 17, 9, 0.0, 1, &rng);
        route_case(h, dbl, 600, 600, 600, 0.5, 0, &rng);
        route_case(h, dbl, 600, 500, 700, 0.0, 0, &rng);
    }
    clhgemm_destroy(h);
    /* auto with that model under a memory limit below one tile: the 600-cube that the model
     * sends to the devices runs on the CPU instead of answering CLHGEMM_WORKSPACE_TOO_SMALL
     * (CLHGEMM_ROUTE=device keeps the status: test_host_tiny) */
    if ((st = route_handle(&h, "auto", "0.5,1000000", "1K")) != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL create (auto, 1K): %s\n", clhgemm_status_string(st));
        return 1;
    }
    for (int dbl = 0; dbl <= has64; dbl++) route_case(h, dbl, 600, 600, 600, 0.5, 1, &rng);
    clhgemm_destroy(h);
    /* cpu: everything to OpenBLAS; device: everything to the pipeline */
    if ((st = route_handle(&h, "cpu", NULL, NULL)) != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL create (cpu): %s\n", clhgemm_status_string(st));
        return 1;
    }
    route_case(h, 0, 600, 600, 600, 0.5, 1, &rng);
    clhgemm_destroy(h);
    if ((st = route_handle(&h, "device", NULL, "256K")) != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL create (device): %s\n", clhgemm_status_string(st));
        return 1;
    }
    route_case(h, 0, 2, 2, 2, 0.5, 0, &rng);
    for (int dbl = 0; dbl <= has64; dbl++) same_plans(h, dbl, &rng);
    clhgemm_destroy(h);
    /* malformed settings are refused, naming the variable */
    st = route_handle(&h, "gpu", NULL, NULL);
    if (!EXPECT(st == CLHGEMM_INVALID_OPTION, "CLHGEMM_ROUTE=gpu: %s, want CLHGEMM_INVALID_OPTION",
                clhgemm_status_string(st)))
        clhgemm_destroy(h);
    st = route_handle(&h, "auto", "fast", NULL);
    if (!EXPECT(st == CLHGEMM_INVALID_OPTION, "CLHGEMM_ROUTE_MODEL=fast: %s, want CLHGEMM_INVALID_OPTION",
                clhgemm_status_string(st)))
        clhgemm_destroy(h);
    return 0;
}

int main(int argc, char **argv)
{
    {
        const int skip = tc_require_feature();
        if (skip) return skip;
    }
    if (argc < 2) {
        fprintf(stderr,
                "usage: %s table s|d col|row | split | args | threads | fault | tiny | trace | route\n",
                argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    int rc;
    if (!strcmp(mode, "table"))
        rc = mode_table(argc, argv);
    else if (!strcmp(mode, "split"))
        rc = mode_split();
    else if (!strcmp(mode, "args"))
        rc = mode_args();
    else if (!strcmp(mode, "threads"))
        rc = mode_threads();
    else if (!strcmp(mode, "fault"))
        rc = mode_fault("/proc/self/exe");
    else if (!strcmp(mode, "fault-child") && argc > 2)
        return fault_child(atoi(argv[2]));
    else if (!strcmp(mode, "tiny"))
        rc = mode_tiny();
    else if (!strcmp(mode, "cpushare"))
        rc = mode_cpushare();
    else if (!strcmp(mode, "trace"))
        rc = mode_trace();
    else if (!strcmp(mode, "route"))
        rc = mode_route();
    else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    if (rc) return rc;
    printf("%s: %d checks, %d failed\n", mode, tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
