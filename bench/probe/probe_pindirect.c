/*
 * probe_pindirect.c -- diagnostic (the zero-copy trial; numpy's DGEMM 8192 through the drop-in).
 * The host pipeline moves C home in two steps: a device->pinned-staging read (bus), then the pack
 * threads' copy from staging into the caller's pageable C (host memory). When the host's copy rate
 * is below the bus's, that second copy binds mid-size calls. Can the device read straight into the
 * caller's C instead, if the caller's pages are pinned by a CL_MEM_USE_HOST_PTR buffer held over
 * them (which on CUDA-based drivers registers the range, so that an ordinary clEnqueueRead/Write of
 * a pointer inside it is a direct DMA)?
 *
 * Per size (--sizes, MiB; a square column-major matrix of doubles of about that size, "C"), the
 * median of --reps repetitions of each step, finished with clFinish and timed on the host:
 *   rd-page   clEnqueueReadBuffer(device -> the caller's pageable memory), the driver's own path
 *   wr-page   clEnqueueWriteBuffer(the caller's pageable memory -> device)
 *   pin       clCreateBuffer(CL_MEM_USE_HOST_PTR) over the caller's page range, on touched pages
 *   pin-new   the same over freshly mmap'ed, never touched pages (numpy's new C: faults + zeroing)
 *   rd-pin    clEnqueueReadBuffer into the caller's memory while the pin is held
 *   rect-pin  clEnqueueReadBufferRect of the left half of the matrix's rows of a tile (a tile of
 *             n/2 rows x n columns into the caller's matrix with its leading dimension), pinned
 *   wr-pin    clEnqueueWriteBuffer from the caller's memory while pinned (after the host changed
 *             it: the device must see the new data)
 *   unpin     clReleaseMemObject of the USE_HOST_PTR buffer
 *   rd-stg    the library's path: read into pinned staging (ALLOC_HOST_PTR, mapped), then
 *   cpy       --threads threads memcpy staging -> the caller's memory
 * Every read is checked word by word against the device's pattern (all of it up to 128 MiB, 64
 * spread chunks above), every write by reading the device back; a wrong word prints FAILED and
 * the exit status is 1. The last line: "pindirect: rd-pin X GB/s, rect Y, pin Z (new W), unpin
 * U ms/GiB; staged rd V + cpy T GB/s -> direct/staged R" where R < 1 means the direct path (pin +
 * rd-pin + unpin) beats the staged one (rd-stg then cpy, not overlapped) at the largest size.
 *   cmake --build BUILD --target probe_pindirect && BUILD/bench/probe_pindirect --sizes 32,128,512
 * Options: --sizes a,b,.. (MiB, default 32,128,512)  --reps N (3)  --threads N (min(cores,16))
 */
#define _GNU_SOURCE
#include "probe_common.h"
#include "probe_stats.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES 16
#define MAX_REPS 32
#define FULL_CHECK_MAX (128u << 20)


static inline uint64_t pat(size_t i, uint64_t s) { return ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ s; }

/* ---- copy threads: part 0 on the caller ------------------------------------------------------ */
typedef struct {
    int n, id;
    char *dst;
    const char *src;
    size_t len;
} part_t;

static void *part_run(void *arg)
{
    part_t *p = arg;
    size_t per = (p->len / (size_t)p->n + 63) & ~(size_t)63;
    size_t a = per * (size_t)p->id, b = a + per;
    if (b > p->len) b = p->len;
    if (a < b) memcpy(p->dst + a, p->src + a, b - a);
    return NULL;
}

/* threads created per copy: the cost is within the measured time, as it is small next to MiBs */
static void par_copy(int n, char *dst, const char *src, size_t len)
{
    pthread_t th[64];
    part_t parts[64];
    int started[64] = {0};
    for (int i = 0; i < n; i++) parts[i] = (part_t){n, i, dst, src, len};
    for (int i = 1; i < n; i++) started[i] = pthread_create(&th[i], NULL, part_run, &parts[i]) == 0;
    part_run(&parts[0]);
    for (int i = 1; i < n; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        else part_run(&parts[i]);
    }
}

static void fill_host(uint64_t *w, size_t words, uint64_t s)
{
    for (size_t i = 0; i < words; i++) w[i] = pat(i, s);
}

/* words of host memory against the pattern (sampled above FULL_CHECK_MAX) */
static int host_ok(const uint64_t *w, size_t bytes, uint64_t s)
{
    const size_t words = bytes / 8;
    const size_t step = bytes <= FULL_CHECK_MAX ? 1 : 4099;
    for (size_t i = 0; i < words; i += step)
        if (w[i] != pat(i, s)) return 0;
    return w[words - 1] == pat(words - 1, s);
}

/* the device buffer against the pattern: read back through scratch (FULL_CHECK_MAX at most) */
static int dev_ok(cl_command_queue q, cl_mem d, size_t bytes, uint64_t *scratch, uint64_t s)
{
    const size_t chunk = bytes <= FULL_CHECK_MAX ? bytes : (64u << 10);
    const size_t nchunks = bytes <= FULL_CHECK_MAX ? 1 : 64;
    for (size_t c = 0; c < nchunks; c++) {
        const size_t off = nchunks == 1 ? 0 : ((bytes - chunk) / (nchunks - 1) * c) & ~(size_t)7;
        if (clEnqueueReadBuffer(q, d, CL_TRUE, off, chunk, scratch, 0, NULL, NULL) != CL_SUCCESS) return 0;
        for (size_t i = 0; i < chunk / 8; i++)
            if (scratch[i] != pat(off / 8 + i, s)) return 0;
    }
    return 1;
}


enum { RD_PAGE, WR_PAGE, PIN, PIN_NEW, RD_PIN, RECT_PIN, WR_PIN, UNPIN, RD_STG, CPY, NSTEP };
static const char *step_name[NSTEP] = {"rd-page", "wr-page", "pin",   "pin-new", "rd-pin",
                                       "rect-pin", "wr-pin", "unpin", "rd-stg",  "cpy"};

static void *map_anon(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

#define TIMED(idx, stmt)                                                                          \
    do {                                                                                          \
        const double t0_ = now_s();                                                               \
        stmt;                                                                                     \
        add(&st[idx], now_s() - t0_);                                                             \
    } while (0)

/* one repetition over the caller's matrix user[bytes] (page aligned); returns 0 on a wrong copy
 * or an OpenCL error (printed) */
static int one_rep(cl_context ctx, cl_command_queue q, cl_mem dev, char *stg, uint64_t *scratch,
                   char *user, size_t n, size_t bytes, int threads, uint64_t *seed, samples_t *st)
{
    cl_int err;
    const size_t words = bytes / 8;
    const uint64_t s1 = ++*seed, s2 = ++*seed, s3 = ++*seed;
    int ok = 1;
    /* the device's C: pattern s1 */
    fill_host((uint64_t *)(void *)stg, words, s1);
    if (clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, stg, 0, NULL, NULL) != CL_SUCCESS) return 0;

    /* pageable: read home, write back after a change */
    memset(user, 0, bytes);
    TIMED(RD_PAGE, err = clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, user, 0, NULL, NULL));
    if (err != CL_SUCCESS || !host_ok((uint64_t *)(void *)user, bytes, s1)) ok = 0;
    fill_host((uint64_t *)(void *)user, words, s2);
    TIMED(WR_PAGE, err = clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, user, 0, NULL, NULL));
    if (err != CL_SUCCESS || !dev_ok(q, dev, bytes, scratch, s2)) ok = 0;

    /* pinned by a USE_HOST_PTR buffer: read home, a rect, write back after a change */
    cl_mem hb;
    TIMED(PIN, hb = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, user, &err));
    if (!hb) {
        printf("  pin failed: %d\n", err);
        return 0;
    }
    fill_host((uint64_t *)(void *)stg, words, s1);
    clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, stg, 0, NULL, NULL);
    memset(user, 0, bytes);
    TIMED(RD_PIN, err = clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, user, 0, NULL, NULL));
    if (err != CL_SUCCESS || !host_ok((uint64_t *)(void *)user, bytes, s1)) ok = 0;
    {
        /* the device holds a tile of n/2 rows x n columns packed (ld n/2); its rows land in the
         * caller's rows 0..n/2-1 with ld n: every other half-column of the caller's matrix */
        const size_t h = n / 2;
        size_t origin0[3] = {0, 0, 0}, region[3] = {h * 8, n, 1};
        memset(user, 0, bytes);
        TIMED(RECT_PIN, err = clEnqueueReadBufferRect(q, dev, CL_TRUE, origin0, origin0, region, h * 8, 0,
                                                      n * 8, 0, user, 0, NULL, NULL));
        const uint64_t *u = (const uint64_t *)(void *)user;
        for (size_t j = 0; err == CL_SUCCESS && j < n; j += (n > 512 ? 37 : 1))
            for (size_t i = 0; i < h; i += (n > 512 ? 13 : 1))
                if (u[j * n + i] != pat(j * h + i, s1) || u[j * n + h + (i % (n - h))] != 0) {
                    ok = 0;
                    break;
                }
        if (err != CL_SUCCESS) ok = 0;
    }
    fill_host((uint64_t *)(void *)user, words, s3);
    TIMED(WR_PIN, err = clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, user, 0, NULL, NULL));
    if (err != CL_SUCCESS || !dev_ok(q, dev, bytes, scratch, s3)) {
        printf("  wr-pin: device did not get the host's new data (err %d)\n", err);
        ok = 0;
    }
    TIMED(UNPIN, clReleaseMemObject(hb));

    /* a fresh mapping pinned (numpy's new C) */
    {
        char *fresh = map_anon(bytes);
        if (fresh) {
            cl_mem fb;
            TIMED(PIN_NEW, fb = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, fresh, &err));
            if (fb) {
                clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, fresh, 0, NULL, NULL);
                if (!host_ok((uint64_t *)(void *)fresh, bytes, s3)) ok = 0;
                clReleaseMemObject(fb);
            }
            munmap(fresh, bytes);
        }
    }

    /* the library's way: pinned staging, then the copy threads */
    fill_host((uint64_t *)(void *)stg, words, s1);
    clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, stg, 0, NULL, NULL);
    memset(stg, 0, bytes);
    memset(user, 0, bytes);
    TIMED(RD_STG, err = clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, stg, 0, NULL, NULL));
    TIMED(CPY, par_copy(threads, user, stg, bytes));
    if (err != CL_SUCCESS || !host_ok((uint64_t *)(void *)user, bytes, s1)) ok = 0;
    return ok;
}

int main(int argc, char **argv)
{
    size_t sizes[MAX_SIZES] = {32, 128, 512};
    int nsizes = 3, reps = 3;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cores < 1 ? 1 : cores > 16 ? 16 : (int)cores;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--sizes") && v) {
            nsizes = probe_parse_list(v, sizes, MAX_SIZES);
            if (nsizes <= 0) {
                fprintf(stderr, "bad --sizes '%s'\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--reps") && v) {
            reps = atoi(v);
            i++;
        } else if (!strcmp(a, "--threads") && v) {
            threads = atoi(v);
            i++;
        } else {
            printf("usage: %s [--sizes MiB,..] [--reps N] [--threads N]\n", argv[0]);
            return !strcmp(a, "--help") ? 0 : 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > MAX_REPS) reps = MAX_REPS;
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;

    char name[256];
    cl_context ctx = NULL;
    cl_command_queue q = NULL;
    if (!probe_open(name, sizeof name, 0, &ctx, &q) || !ctx || !q) return 77;
    printf("pindirect probe: %s; %d reps (median), %d copy threads; ms and GB/s per step\n", name, reps,
           threads);
    printf("%5s %6s", "MiB", "n");
    for (int s = 0; s < NSTEP; s++) printf(" | %8s", step_name[s]);
    printf(" | direct/staged\n");

    int failed = 0;
    double last_ratio = -1, last_gbs[NSTEP];
    uint64_t seed = 0x9d1ec7ull;
    for (int si = 0; si < nsizes; si++) {
        size_t n = 64;
        while ((n + 64) * (n + 64) * 8 <= (sizes[si] << 20)) n += 64;
        const size_t bytes = n * n * 8;
        cl_int err;
        cl_mem dev = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
        cl_mem stgm = dev ? clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, NULL, &err)
                          : NULL;
        char *stg = stgm ? clEnqueueMapBuffer(q, stgm, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
                                              NULL, &err)
                         : NULL;
        char *user = map_anon(bytes);
        uint64_t *scratch = malloc(bytes <= FULL_CHECK_MAX ? bytes : (64u << 10));
        if (!dev || !stg || !user || !scratch) {
            printf("%5zu skipped: buffers (err %d)\n", sizes[si], err);
            failed = 1;
        } else {
            memset(user, 1, bytes);
            samples_t st[NSTEP];
            memset(st, 0, sizeof st);
            int ok = 1;
            for (int r = 0; r <= reps; r++) {
                samples_t tmp[NSTEP];
                memset(tmp, 0, sizeof tmp);
                ok &= one_rep(ctx, q, dev, stg, scratch, user, n, bytes, threads, &seed, r ? st : tmp);
            }
            printf("%5zu %6zu", sizes[si], n);
            for (int s = 0; s < NSTEP; s++) {
                const double t = median(&st[s]);
                const double b = s == RECT_PIN ? (double)bytes / 2 : (double)bytes;
                last_gbs[s] = t > 0 ? b / t * 1e-9 : 0;
                if (s == UNPIN) printf(" | %6.2fms", 1e3 * t);
                else printf(" | %8.2f", last_gbs[s]);
            }
            const double direct = median(&st[PIN]) + median(&st[RD_PIN]) + median(&st[UNPIN]);
            const double staged = median(&st[RD_STG]) + median(&st[CPY]);
            last_ratio = direct / staged;
            printf(" | %.2f%s\n", last_ratio, ok ? "" : " FAILED");
            fflush(stdout);
            failed |= !ok;
        }
        if (stg) clEnqueueUnmapMemObject(q, stgm, stg, 0, NULL, NULL);
        clFinish(q);
        if (stgm) clReleaseMemObject(stgm);
        if (dev) clReleaseMemObject(dev);
        if (user) munmap(user, bytes);
        free(scratch);
    }
    if (last_ratio > 0)
        printf("pindirect: rd-pin %.1f GB/s, rect %.1f, pin %.1f (new %.1f); rd-page %.1f; staged rd %.1f + "
               "cpy %.1f GB/s -> direct/staged %.2f%s\n",
               last_gbs[RD_PIN], last_gbs[RECT_PIN], last_gbs[PIN], last_gbs[PIN_NEW], last_gbs[RD_PAGE],
               last_gbs[RD_STG], last_gbs[CPY], last_ratio, failed ? "; FAILED" : "");
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return failed;
}
