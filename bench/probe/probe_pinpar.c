/*
 * probe_pinpar.c -- diagnostic (the zero-copy trial; numpy's DGEMM 8192 through the drop-in). The
 * earlier zero-copy probes (probe_zerocopy.c, probe_pindirect.c) pinned the caller's matrix with
 * ONE clCreateBuffer(CL_MEM_USE_HOST_PTR) over its whole range, at 20-31 GB/s on touched pages and
 * 4.4 GB/s on fresh ones: slower than the pack threads' copies into pinned staging. This probe asks
 * whether pinning scales with threads: P threads each pin one piece of the matrix at the same time
 * and enqueue the DMA of their piece at once (a pointer inside a registered range is a direct DMA
 * on CUDA-based drivers), so that pinning later pieces overlaps the transfer of earlier ones.
 *
 * Per thread count P (--threads-list) and size (--mib), medians of --reps, host clocks, every step
 * finished with clFinish:
 *   memcpy   P threads memcpy a touched source into a touched destination (the host's copy rate)
 *   h2d-stg  the library's way: 8 chunks, each copied by P threads into pinned staging
 *            (CL_MEM_ALLOC_HOST_PTR, mapped) and then written non-blocking (copy of chunk i+1
 *            overlaps the write of chunk i)
 *   h2d-pin  P threads each: clCreateBuffer(USE_HOST_PTR) over its piece (2 MiB aligned), then
 *            clEnqueueWriteBuffer from its piece; clFinish; the pins are released after (unpin)
 *   d2h-stg  8 chunks read into pinned staging, each copied by P threads into FRESH memory (new
 *            mmap, MADV_HUGEPAGE, never touched: numpy's new C), overlapped like h2d-stg
 *   d2h-pin  P threads each pin its piece of fresh memory and enqueue clEnqueueReadBuffer into it
 *   unpin    the release of the P buffers (after h2d-pin / d2h-pin), by P threads
 * Every transfer is checked (h2d: the device buffer read back at 64 spread places; d2h: the host
 * words at 64 spread places); a wrong word prints FAILED and the exit status is 1.
 *   cmake --build BUILD --target probe_pinpar && BUILD/bench/probe_pinpar --mib 512
 * Device: the first GPU, else the first device of the first platform (probe_common.h
 * probe_open_any; PoCL: the plumbing only).
 * Options: --mib N (512)  --reps N (3)  --threads-list a,b,.. (1,4,8,16)
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

#define MAX_P 64
#define NCHUNK 8
#define ALIGN (2u << 20)

static inline uint64_t pat(size_t i, uint64_t s) { return ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ s; }

static char *map_fresh(size_t bytes)
{
    void *p = mmap(NULL, bytes + ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    char *a = (char *)(((uintptr_t)p + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
    madvise(a, bytes, MADV_HUGEPAGE);
    return a;
}

/* ---- one job per thread --------------------------------------------------------------------- */
typedef struct job_s {
    int kind, id, n;
    char *dst;
    const char *src;
    size_t len;
    cl_context ctx;
    cl_command_queue q;
    cl_mem dev, pin;
    size_t devoff;
    cl_int err;
} job_t;

enum { J_COPY, J_H2D_PIN, J_D2H_PIN, J_UNPIN };

static void piece(const job_t *j, size_t *a, size_t *b)
{
    size_t per = (j->len / (size_t)j->n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    *a = per * (size_t)j->id;
    *b = *a + per;
    if (*b > j->len) *b = j->len;
    if (*a > j->len) *a = j->len;
}

static void *job_run(void *arg)
{
    job_t *j = arg;
    size_t a, b;
    piece(j, &a, &b);
    j->err = CL_SUCCESS;
    if (a >= b) return NULL;
    if (j->kind == J_COPY) {
        memcpy(j->dst + a, j->src + a, b - a);
    } else if (j->kind == J_H2D_PIN) {
        j->pin = clCreateBuffer(j->ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, b - a,
                                (void *)(j->src + a), &j->err);
        if (j->err == CL_SUCCESS)
            j->err = clEnqueueWriteBuffer(j->q, j->dev, CL_FALSE, j->devoff + a, b - a, j->src + a, 0,
                                          NULL, NULL);
    } else if (j->kind == J_D2H_PIN) {
        j->pin = clCreateBuffer(j->ctx, CL_MEM_USE_HOST_PTR | CL_MEM_WRITE_ONLY, b - a, j->dst + a,
                                &j->err);
        if (j->err == CL_SUCCESS)
            j->err = clEnqueueReadBuffer(j->q, j->dev, CL_FALSE, j->devoff + a, b - a, j->dst + a, 0,
                                         NULL, NULL);
    } else if (j->pin) {
        clReleaseMemObject(j->pin);
        j->pin = NULL;
    }
    return NULL;
}

/* runs P jobs (job 0 on the caller); returns the first error */
static cl_int run_jobs(job_t *jobs, int P)
{
    pthread_t th[MAX_P];
    int started[MAX_P] = {0};
    for (int i = 1; i < P; i++) started[i] = pthread_create(&th[i], NULL, job_run, &jobs[i]) == 0;
    job_run(&jobs[0]);
    cl_int err = jobs[0].err;
    for (int i = 1; i < P; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        else job_run(&jobs[i]);
        if (err == CL_SUCCESS) err = jobs[i].err;
    }
    return err;
}

static void par_copy(int P, char *dst, const char *src, size_t len)
{
    job_t jobs[MAX_P];
    for (int i = 0; i < P; i++) jobs[i] = (job_t){.kind = J_COPY, .id = i, .n = P, .dst = dst, .src = src, .len = len};
    run_jobs(jobs, P);
}

static int bad;

static void check_dev(cl_command_queue q, cl_mem dev, size_t len, uint64_t seed, const char *what)
{
    const size_t words = len / 8;
    for (int s = 0; s < 64; s++) {
        const size_t w = words / 64 * (size_t)s + (size_t)s;
        uint64_t v = 0;
        clEnqueueReadBuffer(q, dev, CL_TRUE, w * 8, 8, &v, 0, NULL, NULL);
        if (v != pat(w, seed)) {
            printf("FAILED %s: device word %zu\n", what, w);
            bad = 1;
            return;
        }
    }
}

static void check_host(const char *h, size_t len, uint64_t seed, const char *what)
{
    const size_t words = len / 8;
    for (int s = 0; s < 64; s++) {
        const size_t w = words / 64 * (size_t)s + (size_t)s;
        if (((const uint64_t *)h)[w] != pat(w, seed)) {
            printf("FAILED %s: host word %zu\n", what, w);
            bad = 1;
            return;
        }
    }
}

static void fill(char *h, size_t len, uint64_t seed)
{
    for (size_t w = 0; w < len / 8; w++) ((uint64_t *)h)[w] = pat(w, seed);
}

int main(int argc, char **argv)
{
    size_t mib = 512;
    int reps = 3, np = 4;
    size_t plist[16] = {1, 4, 8, 16};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc) mib = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads-list") && i + 1 < argc &&
                 (np = probe_parse_list(argv[++i], plist, 16)) > 0) {
        } else {
            printf("usage: probe_pinpar [--mib N] [--reps N] [--threads-list a,b,..]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > 32) reps = 32;
    char name[256];
    cl_context ctx;
    cl_command_queue q;
    if (!probe_open_any(name, sizeof name, 0, &ctx, &q)) return 0;
    cl_int err;
    const size_t len = mib << 20, clen = len / NCHUNK;
    cl_mem d = clCreateBuffer(ctx, CL_MEM_READ_WRITE, len, NULL, &err);
    cl_mem stg[2];
    char *sp[2];
    for (int i = 0; i < 2; i++) {
        stg[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, clen, NULL, &err);
        sp[i] = clEnqueueMapBuffer(q, stg[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, clen, 0, NULL,
                                   NULL, &err);
    }
    char *src = map_fresh(len), *dst = map_fresh(len);
    if (!src || !dst || !sp[0] || !sp[1]) {
        printf("allocation failed\n");
        return 1;
    }
    fill(src, len, 1);
    memset(dst, 0, len);
    printf("device: %s; %zu MiB, median of %d\n", name, mib, reps);
    printf("%3s %9s %9s %9s %11s %9s %11s  (GB/s; unpin ms)\n", "P", "memcpy", "h2d-stg", "h2d-pin",
           "unpin(h2d)", "d2h-stg", "d2h-pin/un");
    for (int pi = 0; pi < np; pi++) {
        const int P = plist[pi] > MAX_P ? MAX_P : (int)plist[pi];
        samples_t t[6];
        memset(t, 0, sizeof t);
        for (int r = 0; r < reps; r++) {
            const uint64_t seed = 100 + (uint64_t)r * 7 + (uint64_t)P;
            fill(src, len, seed);
            double t0 = now_s();
            par_copy(P, dst, src, len);
            add(&t[0], now_s() - t0);
            /* h2d staged: copy chunk c into staging c%2 while chunk c-1 is written */
            cl_event ev[2] = {NULL, NULL};
            t0 = now_s();
            for (int c = 0; c < NCHUNK; c++) {
                const int s = c & 1;
                if (ev[s]) {
                    clWaitForEvents(1, &ev[s]);
                    clReleaseEvent(ev[s]);
                    ev[s] = NULL;
                }
                par_copy(P, sp[s], src + (size_t)c * clen, clen);
                clEnqueueWriteBuffer(q, d, CL_FALSE, (size_t)c * clen, clen, sp[s], 0, NULL, &ev[s]);
                clFlush(q);
            }
            clFinish(q);
            add(&t[1], now_s() - t0);
            for (int s = 0; s < 2; s++)
                if (ev[s]) clReleaseEvent(ev[s]);
            check_dev(q, d, len, seed, "h2d-stg");
            /* h2d pinned in P pieces */
            fill(src, len, seed + 1);
            job_t jobs[MAX_P];
            for (int i = 0; i < P; i++)
                jobs[i] = (job_t){.kind = J_H2D_PIN, .id = i, .n = P, .src = src, .len = len, .ctx = ctx, .q = q, .dev = d};
            t0 = now_s();
            err = run_jobs(jobs, P);
            clFinish(q);
            add(&t[2], now_s() - t0);
            if (err != CL_SUCCESS) printf("h2d-pin: OpenCL error %d\n", err);
            check_dev(q, d, len, seed + 1, "h2d-pin");
            for (int i = 0; i < P; i++) jobs[i].kind = J_UNPIN;
            t0 = now_s();
            run_jobs(jobs, P);
            add(&t[3], now_s() - t0);
            /* d2h staged into fresh memory */
            char *fresh = map_fresh(len);
            ev[0] = ev[1] = NULL;
            t0 = now_s();
            clEnqueueReadBuffer(q, d, CL_FALSE, 0, clen, sp[0], 0, NULL, &ev[0]);
            for (int c = 0; c < NCHUNK; c++) {
                const int s = c & 1;
                clWaitForEvents(1, &ev[s]);
                clReleaseEvent(ev[s]);
                ev[s] = NULL;
                if (c + 1 < NCHUNK)
                    clEnqueueReadBuffer(q, d, CL_FALSE, (size_t)(c + 1) * clen, clen, sp[s ^ 1], 0,
                                        NULL, &ev[s ^ 1]);
                par_copy(P, fresh + (size_t)c * clen, sp[s], clen);
            }
            add(&t[4], now_s() - t0);
            check_host(fresh, len, seed + 1, "d2h-stg");
            munmap(fresh, len);
            /* d2h pinned in P pieces into fresh memory, including the unpin */
            fresh = map_fresh(len);
            for (int i = 0; i < P; i++)
                jobs[i] = (job_t){.kind = J_D2H_PIN, .id = i, .n = P, .dst = fresh, .len = len, .ctx = ctx, .q = q, .dev = d};
            t0 = now_s();
            err = run_jobs(jobs, P);
            clFinish(q);
            for (int i = 0; i < P; i++) jobs[i].kind = J_UNPIN;
            run_jobs(jobs, P);
            add(&t[5], now_s() - t0);
            if (err != CL_SUCCESS) printf("d2h-pin: OpenCL error %d\n", err);
            check_host(fresh, len, seed + 1, "d2h-pin");
            munmap(fresh, len);
        }
        double m[6];
        for (int i = 0; i < 6; i++) m[i] = median(&t[i]);
        const double gb = (double)len / 1e9;
        printf("%3d %9.1f %9.1f %9.1f %11.1f %9.1f %11.1f\n", P, gb / m[0], gb / m[1], gb / m[2],
               m[3] * 1e3, gb / m[4], gb / m[5]);
        fflush(stdout);
    }
    return bad;
}
