/*
 * test_cache.c -- the program cache (memory and disk levels), kernel dumps and build failures.
 *
 * Links clhgemm_internal for chg_cache_stats()/chg_cache_dir()/chg_cache_release_all(). Runs in
 * its own fresh CLHGEMM_CACHE_DIR (mkdtemp, set before the first library call) and walks the
 * cache through its life: four processes filling one directory at once, cold build and write, memory hits, disk hits after a release, and
 * recovery from files that are corrupt, truncated, empty or belong to another key (each must be
 * rejected, rebuilt and replaced, with a correct result every time). An unusable or missing
 * cache directory is no error. CLHGEMM_CACHE_DIR=off must write nothing. CLHGEMM_FAULT_BUILD makes a kernel build fail: the call reports
 * CLHGEMM_KERNEL_BUILD_FAILED and leaves C alone, and works again once the variable is gone.
 *
 * Soak modes (argument; bounded memory), each on the cache directory the
 * environment names:
 *   contexts [N]  N cycles (300) of: new context and queue, one small GEMM checked, release both
 *   handles [N]   N cycles (300) of clhgemm_create, one small host DGEMM checked, clhgemm_destroy
 *   race [S]      for S seconds (8): 3 threads loop checked GEMMs (one on the shared queue, two
 *                 on queues of their own) while the main thread calls clhgemm_release_resources()
 *                 without pause; every result must stay right
 * contexts and handles sample the resident set (/proc/self/statm) after every cycle and fail
 * when its peak over the second half of cycles 50..N is above the first half's by more than
 * RSS_BOUND_MIB (contexts) or RSS_BOUND_HANDLES_MIB (handles); they also check that the program
 * cache holds at most the contexts and programs of its caps (cache.h).
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/gemm.h"
#include "device/cache.h"
#include "common.h"

static tc_env_t env;
static tc_rng_t rng;

/* ---- files ------------------------------------------------------------------------------- */
#define MAXF 256
static char g_files[MAXF][1024];
static int g_nfiles;
static const char *g_suffix; /* NULL: every regular file */

static int collect(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type == FTW_F && S_ISREG(sb->st_mode) && g_nfiles < MAXF) {
        size_t l = strlen(path), sl = g_suffix ? strlen(g_suffix) : 0;
        if (!g_suffix || (l >= sl && !strcmp(path + l - sl, g_suffix)))
            snprintf(g_files[g_nfiles++], sizeof g_files[0], "%s", path);
    }
    return 0;
}

/* Lists regular files under dir (recursively) into g_files; returns the count. */
static int list_files(const char *dir, const char *suffix)
{
    g_nfiles = 0;
    g_suffix = suffix;
    nftw(dir, collect, 16, FTW_PHYS);
    return g_nfiles;
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    return remove(path);
}

static void rm_rf(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n > 0 ? (size_t)n : 0;
    return buf;
}

static int spit(const char *path, const unsigned char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    int rc = len && fwrite(data, 1, len, f) != len;
    return fclose(f) || rc;
}

/* ---- one GEMM ---------------------------------------------------------------------------- */
static tc_case_t the_case(int dbl)
{
    tc_case_t c = {0};
    c.dbl = dbl;
    c.layout = CLHGEMM_COL_MAJOR;
    c.ta = CLHGEMM_NO_TRANS;
    c.tb = CLHGEMM_TRANS;
    c.m = 65;
    c.n = 47;
    c.k = 33;
    c.alpha = -1.5;
    c.beta = 1.0;
    c.pad = 2;
    c.offa = 3;
    c.offb = 1;
    c.offc = 7;
    return c;
}

/* A correct SGEMM (the same shape every time, so the same programs). */
static void run_ok(const char *step)
{
    tc_case_t c = the_case(0);
    int rc = tc_run_case(env.ctx, env.queue, &c, &rng);
    EXPECT(rc == 0, "%s: sgemm result wrong or call failed (see above)", step);
}

static void stats(chg_cache_stats_t *s) { chg_cache_stats(s); }

static void print_stats(const char *step, const chg_cache_stats_t *a, const chg_cache_stats_t *b)
{
    fprintf(stderr,
            "  %s: memory_hits %lu->%lu disk_hits %lu->%lu disk_rejects %lu->%lu builds %lu->%lu "
            "disk_writes %lu->%lu\n",
            step, a->memory_hits, b->memory_hits, a->disk_hits, b->disk_hits, a->disk_rejects,
            b->disk_rejects, a->builds, b->builds, a->disk_writes, b->disk_writes);
}

/* Release every cached program, then run once; returns the counters before and after. */
static void release_and_run(const char *step, chg_cache_stats_t *before, chg_cache_stats_t *after)
{
    clhgemm_release_resources();
    stats(before);
    run_ok(step);
    stats(after);
}

/* After damaging the files: rejected, rebuilt, correct; then the rewritten files load again. */
static void damaged_round(const char *step)
{
    chg_cache_stats_t a, b;
    int f0 = tc_failures();
    release_and_run(step, &a, &b);
    EXPECT(b.disk_rejects > a.disk_rejects, "%s: no disk_rejects", step);
    EXPECT(b.builds > a.builds, "%s: no rebuild", step);
    EXPECT(b.disk_writes > a.disk_writes, "%s: damaged files not replaced", step);
    if (tc_failures() != f0) print_stats(step, &a, &b);
    char again[160];
    snprintf(again, sizeof again, "%s, then reload of the replaced files", step);
    f0 = tc_failures();
    release_and_run(again, &a, &b);
    EXPECT(b.disk_hits > a.disk_hits, "%s: no disk hits", again);
    EXPECT(b.builds == a.builds, "%s: rebuilt", again);
    EXPECT(b.disk_rejects == a.disk_rejects, "%s: rejected", again);
    if (tc_failures() != f0) print_stats(again, &a, &b);
}

/* A call while CLHGEMM_FAULT_BUILD=<what> is set. must_fail: the kernel is always needed. */
static void fault_round(const char *what, int must_fail, int alpha_zero)
{
    setenv("CLHGEMM_FAULT_BUILD", what, 1);
    clhgemm_release_resources();
    tc_case_t c = the_case(0);
    if (alpha_zero) c.alpha = 0.0, c.beta = -1.5;
    tc_problem_t p;
    char tag[400];
    if (tc_problem_init(&p, env.ctx, &c, &rng)) {
        EXPECT(0, "setup");
        unsetenv("CLHGEMM_FAULT_BUILD");
        return;
    }
    tc_case_describe(&p.c, tag, sizeof tag - 60);
    snprintf(tag + strlen(tag), 60, " [CLHGEMM_FAULT_BUILD=%s]", what);
    cl_event ev = (cl_event)(uintptr_t)0x5EB71E10;
    clhgemm_status_t st = tc_problem_call(&p, env.queue, &ev);
    if (st == CLHGEMM_KERNEL_BUILD_FAILED) {
        EXPECT(ev == (cl_event)(uintptr_t)0x5EB71E10, "%s: *event written on failure", tag);
        clFinish(env.queue);
        EXPECT(tc_problem_check_unchanged(&p, env.queue, tag) == 0, "%s: C changed on failure",
               tag);
    } else if (st == CLHGEMM_SUCCESS && !must_fail) {
        /* this kernel was not needed for this call: the result must still be right */
        int rc = 1;
        if (ev && ev != (cl_event)(uintptr_t)0x5EB71E10) {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
            rc = tc_problem_check(&p, env.queue, tag);
        }
        EXPECT(rc == 0, "%s: succeeded without a usable result", tag);
    } else {
        EXPECT(0, "%s: status %s, want CLHGEMM_KERNEL_BUILD_FAILED", tag,
               clhgemm_status_string(st));
        if (st == CLHGEMM_SUCCESS && ev) {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
        }
    }
    tc_problem_free(&p);
    unsetenv("CLHGEMM_FAULT_BUILD");
    char step[128];
    snprintf(step, sizeof step, "after CLHGEMM_FAULT_BUILD=%s is unset", what);
    run_ok(step);
}

static int soak_main(int argc, char **argv);

int main(int argc, char **argv)
{
    if (argc > 1) return soak_main(argc, argv);
    char cache_dir[] = "/tmp/clhgemm-test-cache-XXXXXX";
    char dump_dir[] = "/tmp/clhgemm-test-dump-XXXXXX";
    const char *tmp = getenv("TMPDIR");
    (void)tmp;
    if (!mkdtemp(cache_dir) || !mkdtemp(dump_dir)) {
        perror("mkdtemp");
        return 1;
    }
    unsetenv("CLHGEMM_FAULT_BUILD");

    /* Several processes fill one fresh cache directory at the same time (forked before this
     * process touches OpenCL). Each must get a correct result; the files they race to write are
     * checked below, once this process has a device. */
    char shared_dir[] = "/tmp/clhgemm-test-cache-procs-XXXXXX";
    if (!mkdtemp(shared_dir)) {
        perror("mkdtemp");
        return 1;
    }
    {
        enum { NPROC = 4 };
        pid_t pids[NPROC];
        setenv("CLHGEMM_CACHE_DIR", shared_dir, 1);
        for (int i = 0; i < NPROC; i++) {
            pids[i] = fork();
            if (pids[i] == 0) {
                int crc = tc_open(&env);
                if (crc) _exit(crc == TC_SKIP ? 0 : 1);
                tc_rng_seed(&rng, 0xF0F0ULL + (uint64_t)i);
                tc_case_t c = the_case(0);
                crc = tc_run_case(env.ctx, env.queue, &c, &rng);
                if (env.has_fp64 && !crc) {
                    c = the_case(1);
                    crc = tc_run_case(env.ctx, env.queue, &c, &rng);
                }
                tc_close(&env);
                _exit(crc ? 1 : 0);
            }
        }
        for (int i = 0; i < NPROC; i++) {
            int status = 0;
            const int ok = pids[i] >= 0 && waitpid(pids[i], &status, 0) == pids[i] &&
                           WIFEXITED(status) && WEXITSTATUS(status) == 0;
            EXPECT(ok, "process %d of %d filling one cache directory failed", i, NPROC);
        }
    }

    setenv("CLHGEMM_CACHE_DIR", cache_dir, 1);
    setenv("CLHGEMM_DUMP_KERNELS", dump_dir, 1);

    int rc = tc_open(&env);
    if (rc) {
        rm_rf(cache_dir);
        rm_rf(dump_dir);
        rm_rf(shared_dir);
        return rc;
    }
    printf("device: %s; cache dir %s\n", env.info.name, cache_dir);
    tc_rng_seed(&rng, 0xCAC4EULL);

    char buf[1024];
    const char *d = chg_cache_dir(buf, sizeof buf);
    EXPECT(d && !strcmp(d, cache_dir), "chg_cache_dir() = %s, want %s", d ? d : "(null)",
           cache_dir);

    /* cold: builds and writes files */
    chg_cache_stats_t a, b, c;
    chg_cache_release_all();
    stats(&a);
    run_ok("cold call");
    stats(&b);
    int nfiles = list_files(cache_dir, NULL);
    EXPECT(b.builds > a.builds, "cold call: no builds");
    EXPECT(b.disk_writes > a.disk_writes, "cold call: no disk writes");
    EXPECT(nfiles > 0, "cold call: no files in %s", cache_dir);
    if (tc_failures()) print_stats("cold call", &a, &b);
    printf("cold call: %lu builds, %d cache files\n", b.builds - a.builds, nfiles);

    /* dumps */
    int ndump = list_files(dump_dir, ".cl");
    EXPECT(ndump > 0, "CLHGEMM_DUMP_KERNELS=%s: no .cl files after a call", dump_dir);

    /* warm: memory hits only -- or none at all: a repeated device call takes its kernels from
     * the queue's workspace (core/gemm.c) without asking the program cache */
    unsigned long long kh0 = 0, kh1 = 0;
    chg_gemm_kernel_cache_stats(&kh0, NULL);
    run_ok("warm call");
    stats(&c);
    chg_gemm_kernel_cache_stats(&kh1, NULL);
    EXPECT(c.memory_hits > b.memory_hits || kh1 > kh0, "warm call: neither program-cache memory hits nor kept kernels");
    EXPECT(c.builds == b.builds, "warm call: rebuilt");
    EXPECT(c.disk_writes == b.disk_writes, "warm call: wrote files");
    EXPECT(list_files(cache_dir, NULL) == nfiles, "warm call: file count changed");

    /* after release: loaded from disk */
    {
        int f0 = tc_failures();
        release_and_run("after release", &a, &b);
        EXPECT(b.disk_hits > a.disk_hits, "after release: no disk hits");
        EXPECT(b.builds == a.builds, "after release: rebuilt");
        EXPECT(b.disk_rejects == a.disk_rejects, "after release: rejected a good file");
        if (tc_failures() != f0) print_stats("after release", &a, &b);
        /* chg_cache_release_all alone also drops the memory level */
        chg_cache_release_all();
        stats(&a);
        run_ok("after chg_cache_release_all");
        stats(&b);
        EXPECT(b.disk_hits > a.disk_hits && b.builds == a.builds,
               "after chg_cache_release_all: want disk hits and no builds");
    }

    /* a double-precision program too, so there are files of different keys */
    if (env.has_fp64) {
        tc_case_t dc = the_case(1);
        EXPECT(tc_run_case(env.ctx, env.queue, &dc, &rng) == 0, "dgemm for a second key");
    }
    nfiles = list_files(cache_dir, NULL);
    int nkeep = nfiles;
    char (*files)[1024] = malloc(sizeof(g_files[0]) * (size_t)(nfiles ? nfiles : 1));
    memcpy(files, g_files, sizeof(g_files[0]) * (size_t)nfiles);

    /* corrupt: flip bytes in the middle of every file */
    for (int i = 0; i < nkeep; i++) {
        size_t len;
        unsigned char *data = slurp(files[i], &len);
        if (!data) continue;
        for (size_t j = len / 2; j < len && j < len / 2 + 64; j++) data[j] ^= 0xA5;
        spit(files[i], data, len);
        free(data);
    }
    damaged_round("corrupted files");

    /* truncate every file to half its size */
    for (int i = 0; i < list_files(cache_dir, NULL); i++) {
        struct stat st;
        if (stat(g_files[i], &st) == 0) truncate(g_files[i], st.st_size / 2);
    }
    damaged_round("truncated files");

    /* empty files */
    for (int i = 0; i < list_files(cache_dir, NULL); i++) truncate(g_files[i], 0);
    damaged_round("empty files");

    /* foreign: each file gets the content of another one (another key) */
    nfiles = list_files(cache_dir, NULL);
    if (nfiles >= 2) {
        unsigned char *first = NULL;
        size_t first_len = 0;
        first = slurp(g_files[0], &first_len);
        for (int i = 0; i < nfiles; i++) {
            size_t len = first_len;
            unsigned char *data = i + 1 < nfiles ? slurp(g_files[i + 1], &len) : first;
            if (data) spit(g_files[i], data, len);
            if (data != first) free(data);
        }
        free(first);
        damaged_round("files of another key");
    } else {
        printf("note: only %d cache file, foreign-key case not run\n", nfiles);
    }

    /* the directory the processes raced on: every program loads, nothing is rejected */
    {
        setenv("CLHGEMM_CACHE_DIR", shared_dir, 1);
        int f0 = tc_failures();
        release_and_run("files written by 4 processes at once", &a, &b);
        EXPECT(b.disk_hits > a.disk_hits && b.builds == a.builds &&
                   b.disk_rejects == a.disk_rejects,
               "files written by 4 processes at once: want disk hits only");
        if (env.has_fp64) {
            tc_case_t dc = the_case(1);
            stats(&a);
            EXPECT(tc_run_case(env.ctx, env.queue, &dc, &rng) == 0, "dgemm from the shared dir");
            stats(&b);
            EXPECT(b.builds == a.builds && b.disk_rejects == a.disk_rejects,
                   "dgemm from files written by 4 processes: want no builds or rejects");
        }
        if (tc_failures() != f0) print_stats("files written by 4 processes at once", &a, &b);
        setenv("CLHGEMM_CACHE_DIR", cache_dir, 1);
    }

    /* A cache directory that cannot be used (a regular file, a path under a regular file) or
     * does not exist yet: disk failures are never errors, the call works from memory. */
    {
        char notdir[] = "/tmp/clhgemm-test-notdir-XXXXXX";
        int fd = mkstemp(notdir);
        if (fd >= 0) close(fd);
        char path[1200];
        const char *bad[3] = {notdir, path, NULL};
        snprintf(path, sizeof path, "%s/sub", notdir);
        char nested[1200];
        snprintf(nested, sizeof nested, "%s/nested/a/b", cache_dir);
        bad[2] = nested;
        static const char *what[3] = {"CLHGEMM_CACHE_DIR is a regular file",
                                      "CLHGEMM_CACHE_DIR is under a regular file",
                                      "CLHGEMM_CACHE_DIR does not exist yet"};
        for (int i = 0; i < 3; i++) {
            setenv("CLHGEMM_CACHE_DIR", bad[i], 1);
            clhgemm_release_resources();
            run_ok(what[i]);
            run_ok(what[i]); /* and again, from memory */
        }
        struct stat st;
        EXPECT(stat(notdir, &st) == 0 && S_ISREG(st.st_mode),
               "the regular file used as CLHGEMM_CACHE_DIR was replaced");
        remove(notdir);
        setenv("CLHGEMM_CACHE_DIR", cache_dir, 1);
    }

    /* disk level off: nothing written, nothing read */
    {
        nfiles = list_files(cache_dir, NULL);
        struct stat st;
        int had_off = stat("off", &st) == 0;
        setenv("CLHGEMM_CACHE_DIR", "off", 1);
        EXPECT(chg_cache_dir(buf, sizeof buf) == NULL, "CLHGEMM_CACHE_DIR=off: chg_cache_dir = %s",
               chg_cache_dir(buf, sizeof buf));
        int f0 = tc_failures();
        release_and_run("CLHGEMM_CACHE_DIR=off", &a, &b);
        EXPECT(b.builds > a.builds, "CLHGEMM_CACHE_DIR=off: no builds after release");
        EXPECT(b.disk_writes == a.disk_writes, "CLHGEMM_CACHE_DIR=off: disk writes");
        EXPECT(b.disk_hits == a.disk_hits, "CLHGEMM_CACHE_DIR=off: disk hits");
        EXPECT(list_files(cache_dir, NULL) == nfiles, "CLHGEMM_CACHE_DIR=off: files changed");
        EXPECT(had_off || stat("off", &st) != 0,
               "CLHGEMM_CACHE_DIR=off: created a directory named \"off\"");
        if (tc_failures() != f0) print_stats("CLHGEMM_CACHE_DIR=off", &a, &b);
    }

    /* kernel build failures (disk level still off, so every program is built) */
    fault_round("gemm", 1, 0);
    fault_round("pack", 0, 0);
    fault_round("writeback", 0, 0);
    fault_round("scale", 0, 1);
    fault_round("scale", 0, 0);

    /* back on the disk cache */
    setenv("CLHGEMM_CACHE_DIR", cache_dir, 1);
    {
        int f0 = tc_failures();
        release_and_run("back on the disk cache", &a, &b);
        EXPECT(b.builds == a.builds && b.disk_hits > a.disk_hits,
               "back on the disk cache: want disk hits and no builds");
        if (tc_failures() != f0) print_stats("back on the disk cache", &a, &b);
    }

    free(files);
    clhgemm_release_resources();
    tc_close(&env);
    if (tc_failures()) {
        printf("kept %s, %s and %s for inspection\n", cache_dir, dump_dir, shared_dir);
    } else {
        rm_rf(cache_dir);
        rm_rf(dump_dir);
        rm_rf(shared_dir);
    }
    printf("%d checks, %d failed\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}

/* ---- soak modes (bounded memory, release while calls run) ------------------------------- */
/* Bounds on the growth of the RSS peak (soak_cycles): 8 MiB for the context cycles; 40 MiB for
 * the handle cycles, whose resident set on PoCL moves in 16 MiB steps (143, 159, 175, 191 MiB
 * over 700 cycles, the peak flat) as pool and driver threads come and go: a leak of more than
 * 0.3 MiB a cycle still shows (before 3e528d7 it was 9 MiB a cycle). */
#define RSS_BOUND_MIB 8.0
#define RSS_BOUND_HANDLES_MIB 40.0
#define RSS_WARM_CYCLE 50

/* Resident set of this process in MiB (/proc/self/statm, field 2, in pages). */
static double rss_mib(void)
{
    long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
        fclose(f);
    }
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The verdict of a cycle mode: RSS growth between the warm cycle and the last one, and the
 * program cache within its caps. */
static void rss_verdict(const char *mode, int warm_cycle, int cycles, const double rss[3],
                        double seconds)
{
    const double growth = rss[2] - rss[1];
    const double bound = strcmp(mode, "handles") ? RSS_BOUND_MIB : RSS_BOUND_HANDLES_MIB;
    printf("%s: RSS %.1f MiB after cycle 1; peak %.1f MiB over cycles %d..%d, %.1f MiB over the rest "
           "to cycle %d: growth %.2f MiB (bound %.0f MiB); %.1f s\n",
           mode, rss[0], rss[1], warm_cycle, warm_cycle + (cycles - warm_cycle) / 2, rss[2], cycles, growth,
           bound, seconds);
    EXPECT(growth < bound, "%s: the RSS peak grew by %.2f MiB from the first half of cycles %d..%d "
           "to the second", mode, growth, warm_cycle, cycles);
    chg_cache_stats_t s;
    chg_cache_stats(&s);
    printf("%s: the program cache holds %lu programs of %lu contexts (caps %d, %d)\n", mode,
           s.programs, s.contexts, CHG_CACHE_MAX_PROGRAMS, CHG_CACHE_MAX_CONTEXTS);
    EXPECT(s.programs <= CHG_CACHE_MAX_PROGRAMS && s.contexts <= CHG_CACHE_MAX_CONTEXTS,
           "%s: cache over its caps", mode);
}

/* A new context and queue, one checked GEMM on them, both released. */
static int context_cycle(tc_rng_t *r, int dbl)
{
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env.info.platform,
                                     0};
    cl_int err = CL_SUCCESS;
    cl_context ctx = clCreateContext(props, 1, &env.device, NULL, NULL, &err);
    if (!ctx || err != CL_SUCCESS) {
        fprintf(stderr, "FAIL: clCreateContext -> %d\n", (int)err);
        return 1;
    }
    int rc = 1;
    cl_command_queue q = clCreateCommandQueue(ctx, env.device, 0, &err);
    if (q && err == CL_SUCCESS) {
        tc_case_t c = the_case(dbl);
        rc = tc_run_case(ctx, q, &c, r);
        clReleaseCommandQueue(q);
    } else {
        fprintf(stderr, "FAIL: clCreateCommandQueue -> %d\n", (int)err);
    }
    clReleaseContext(ctx);
    return rc;
}

/* clhgemm_create, one small host GEMM (C = 1.5*A*B - 0.5*C, small integers: exact), destroy. */
static int handle_cycle(int dbl)
{
    enum { M = 37, N = 29, K = 23 };
    static double a[M * K], b[K * N], c[M * N], want[M * N];
    static float af[M * K], bf[K * N], cf[M * N];
    for (int i = 0; i < M * K; i++) af[i] = (float)(a[i] = (double)(i % 7) - 3.0);
    for (int i = 0; i < K * N; i++) bf[i] = (float)(b[i] = (double)(i % 5) - 2.0);
    for (int i = 0; i < M * N; i++) cf[i] = (float)(c[i] = (double)(i % 3));
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double s = 0;
            for (int p = 0; p < K; p++) s += a[i + p * M] * b[p + j * K];
            want[i + j * M] = 1.5 * s - 0.5 * c[i + j * M];
        }
    clhgemm_handle_t h = NULL;
    clhgemm_status_t st = clhgemm_create(&h, NULL);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL: clhgemm_create -> %s\n", clhgemm_status_string(st));
        return 1;
    }
    if (dbl)
        st = clhgemm_dgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, M, N, K, 1.5,
                           a, M, b, K, -0.5, c, M);
    else
        st = clhgemm_sgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, M, N, K,
                           1.5f, af, M, bf, K, -0.5f, cf, M);
    clhgemm_destroy(h);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL: host %cgemm -> %s\n", dbl ? 'd' : 's', clhgemm_status_string(st));
        return 1;
    }
    for (int i = 0; i < M * N; i++) {
        const double got = dbl ? c[i] : (double)cf[i];
        if (got != want[i]) {
            fprintf(stderr, "FAIL: host %cgemm C[%d] = %g, want %g\n", dbl ? 'd' : 's', i, got,
                    want[i]);
            return 1;
        }
    }
    return 0;
}

/* The resident set moves by ±15 MiB between cycles on PoCL (the allocator returns and takes
 * back whole arenas; a loaded machine makes it worse), so the verdict compares peaks: the
 * highest RSS over the second half of the measured cycles against the highest over the first
 * half. Memory kept per cycle raises the second peak by (cycles / 2) x its size (before the fix
 * of 3e528d7: +2,269 MiB over 250 handle cycles). rss[1], rss[2]: the two peaks. */
static int soak_cycles(const char *mode, int cycles)
{
    if (cycles < 2) cycles = 2;
    const int warm = cycles > 2 * RSS_WARM_CYCLE ? RSS_WARM_CYCLE : cycles / 2;
    const int mid = warm + (cycles - warm) / 2;
    double rss[3] = {0, 0, 0};
    const double t0 = now_s();
    const int contexts = !strcmp(mode, "contexts");
    for (int i = 1; i <= cycles; i++) {
        const int rc = contexts ? context_cycle(&rng, env.has_fp64) : handle_cycle(env.has_fp64);
        EXPECT(rc == 0, "%s: cycle %d failed", mode, i);
        if (rc) break;
        const double now = rss_mib();
        if (i == 1) rss[0] = now;
        if (i >= warm && i <= mid && now > rss[1]) rss[1] = now;
        if (i > mid && now > rss[2]) rss[2] = now;
        if (i % 50 == 0) printf("  %s: cycle %d, RSS %.1f MiB\n", mode, i, now);
    }
    if (!tc_failures()) rss_verdict(mode, warm, cycles, rss, now_s() - t0);
    return 0;
}

typedef struct racer_s {
    pthread_t tid;
    int id;
    cl_command_queue q;
    int calls, failures;
} racer_t;

static volatile int g_race_stop;
static pthread_mutex_t g_race_mu = PTHREAD_MUTEX_INITIALIZER;

static int race_stopped(void)
{
    pthread_mutex_lock(&g_race_mu);
    const int s = g_race_stop;
    pthread_mutex_unlock(&g_race_mu);
    return s;
}

/* Checked GEMMs of varying precision, transpose and shape until told to stop. */
static void *racer(void *arg)
{
    racer_t *w = arg;
    tc_rng_t r;
    tc_rng_seed(&r, 0x5ACEULL + (uint64_t)w->id);
    while (!race_stopped()) {
        tc_case_t c = the_case(env.has_fp64 && (w->calls + w->id) % 2);
        c.tb = (w->calls / 2) % 2 ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
        c.m += w->id;
        if (tc_run_case(env.ctx, w->q, &c, &r)) w->failures++;
        __atomic_fetch_add(&w->calls, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* clhgemm_release_resources() without pause while three threads run checked GEMMs. */
static int soak_race(double seconds)
{
    enum { NR = 3 };
    racer_t w[NR];
    memset(w, 0, sizeof w);
    for (int i = 0; i < NR; i++) {
        w[i].id = i;
        w[i].q = i == 0 ? env.queue : tc_queue_new(&env);
        if (!w[i].q) return 1;
    }
    for (int i = 0; i < NR; i++) pthread_create(&w[i].tid, NULL, racer, &w[i]);
    const double t0 = now_s();
    long releases = 0;
    for (;;) {
        clhgemm_release_resources();
        releases++;
        int min_calls = __atomic_load_n(&w[0].calls, __ATOMIC_RELAXED);
        for (int i = 1; i < NR; i++) {
            const int n = __atomic_load_n(&w[i].calls, __ATOMIC_RELAXED);
            min_calls = n < min_calls ? n : min_calls;
        }
        const double t = now_s() - t0;
        if ((t >= seconds && min_calls >= 3) || t >= 6 * seconds) break;
    }
    pthread_mutex_lock(&g_race_mu);
    g_race_stop = 1;
    pthread_mutex_unlock(&g_race_mu);
    int calls = 0;
    for (int i = 0; i < NR; i++) {
        pthread_join(w[i].tid, NULL);
        tc_tally_n(w[i].calls, w[i].failures);
        EXPECT(w[i].calls >= 3, "race: thread %d made only %d calls", i, w[i].calls);
        calls += w[i].calls;
        if (i) clReleaseCommandQueue(w[i].q);
    }
    printf("race: %d checked calls on %d threads, %ld clhgemm_release_resources() in %.1f s\n",
           calls, NR, releases, now_s() - t0);
    /* the library keeps working afterwards, from a released state */
    clhgemm_release_resources();
    run_ok("after the race");
    return 0;
}

static int soak_main(int argc, char **argv)
{
    const char *mode = argv[1];
    if (strcmp(mode, "contexts") && strcmp(mode, "handles") && strcmp(mode, "race")) {
        fprintf(stderr, "usage: %s [contexts [N] | handles [N] | race [seconds]]\n", argv[0]);
        return 2;
    }
    unsetenv("CLHGEMM_FAULT_BUILD");
    setenv("CLHGEMM_ROUTE", "device", 0); /* handles: the small GEMM must reach the device */
    int rc = tc_open(&env);
    if (rc) return rc;
    printf("device: %s; mode %s\n", env.info.name, mode);
    tc_rng_seed(&rng, 0x50A4ULL);
    if (!strcmp(mode, "race"))
        soak_race(argc > 2 ? atof(argv[2]) : 8.0);
    else
        soak_cycles(mode, argc > 2 ? atoi(argv[2]) : 300);
    clhgemm_release_resources();
    tc_close(&env);
    printf("%d checks, %d failed\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
