/*
 * probe_pinned_share.c -- diagnostic (what bounds two GPUs from host memory?).
 * The host pipeline gives each device its own OpenCL context and its own pinned staging, so on
 * a row split every B panel is copied from the caller's pageable memory into pinned memory
 * twice, once per device; on two H100s the pack threads were the bound (86-90% busy). Could one
 * pinned copy feed both devices? That holds only if a device's driver treats pinned memory made
 * in ANOTHER context as pinned (a DMA straight from it) rather than as pageable memory (a staged
 * copy through the driver's own pinned buffer, at a lower rate and with a CPU copy of its own).
 *
 * With two devices (the first two GPUs, else the first two devices of any kind: PoCL with
 * POCL_DEVICES="pthread pthread"), a context and an in-order queue each, it measures host ->
 * device writes (clEnqueueWriteBuffer, median of --reps, finished with clFinish) of --mib MiB:
 *   own0      device 0 from pinned memory of its own context (CL_MEM_ALLOC_HOST_PTR, mapped)
 *   own1      device 1 from pinned memory of its own context
 *   other1    device 1 from the pinned memory of device 0's context  <- the question
 *   pageable1 device 1 from malloc'ed memory
 *   both-own  both at once, each from its own pinned memory (aggregate rate)
 *   both-one  both at once from device 0's pinned memory (aggregate): one copy feeding both
 *   shared    both at once from pinned memory of ONE context holding both devices (a buffer of
 *             a two-device context, written to each device's own buffer), if such a context
 *             can be made
 * Every write is checked by reading a sample of the device buffer back (FAILED, exit 1).
 * The last line says whether device 0's pinned memory feeds device 1 at its own pinned rate
 * (other1 >= 0.9 x own1: "shared staging works"), else at what fraction.
 *   cmake --build BUILD --target probe_pinned_share && BUILD/bench/probe_pinned_share
 *   cc -O2 -o /tmp/pps bench/probe/probe_pinned_share.c -lOpenCL     (standalone)
 * Options: --mib N (256)  --reps N (5)
 */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NDEV 2
#define SAMPLES 32
#define SAMPLE_BYTES 4096

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int g_failed;

/* The first two GPUs over all platforms, else the first two devices of any kind (one platform). */
static int two_devices(cl_device_id dev[NDEV])
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS) return 0;
    int n = 0;
    for (cl_uint i = 0; i < np && i < 8 && n < NDEV; i++) {
        cl_uint got = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, NDEV - n, dev + n, &got) == CL_SUCCESS) n += (int)got;
    }
    for (cl_uint i = 0; i < np && i < 8 && n < NDEV; i++) {
        cl_uint got = 0;
        n = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, NDEV, dev, &got) == CL_SUCCESS) n = (int)got;
    }
    return n >= NDEV;
}

typedef struct {
    cl_context ctx;
    cl_command_queue q;
    cl_mem dbuf;            /* the device buffer written */
    cl_mem pin;             /* pinned staging of this context */
    void *pin_ptr;
} side_t;

static int open_side(cl_device_id dev, size_t bytes, side_t *s)
{
    cl_int err;
    s->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 0;
    s->q = clCreateCommandQueue(s->ctx, dev, 0, &err);
    if (err == CL_SUCCESS) s->dbuf = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err == CL_SUCCESS) s->pin = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (err == CL_SUCCESS)
        s->pin_ptr = clEnqueueMapBuffer(s->q, s->pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    return err == CL_SUCCESS;
}

static void close_side(side_t *s)
{
    if (s->pin_ptr) clEnqueueUnmapMemObject(s->q, s->pin, s->pin_ptr, 0, NULL, NULL);
    if (s->q) clFinish(s->q);
    if (s->pin) clReleaseMemObject(s->pin);
    if (s->dbuf) clReleaseMemObject(s->dbuf);
    if (s->q) clReleaseCommandQueue(s->q);
    if (s->ctx) clReleaseContext(s->ctx);
}

static void fill(void *p, size_t bytes, uint64_t seed)
{
    uint64_t *w = p;
    for (size_t i = 0; i < bytes / 8; i++) w[i] = ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ seed;
}

/* A sample of the device buffer against the source. */
static void check(cl_command_queue q, cl_mem d, const char *src, size_t bytes, const char *what)
{
    char got[SAMPLE_BYTES];
    for (int i = 0; i < SAMPLES; i++) {
        const size_t off = (bytes - SAMPLE_BYTES) / (SAMPLES - 1) * (size_t)i / 8 * 8;
        if (clEnqueueReadBuffer(q, d, CL_TRUE, off, SAMPLE_BYTES, got, 0, NULL, NULL) != CL_SUCCESS ||
            memcmp(got, src + off, SAMPLE_BYTES)) {
            printf("FAILED: %s: device data differs at byte %zu\n", what, off);
            g_failed = 1;
            return;
        }
    }
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median GB/s of reps writes: queue[i] writes src[i] into dst[i] for the n given (at once). */
static double writes(int n, cl_command_queue *q, cl_mem *dst, const void **src, size_t bytes, int reps,
                     const char *what)
{
    double t[64];
    for (int r = 0; r < reps; r++) {
        const double a = now_s();
        cl_int err = CL_SUCCESS;
        for (int i = 0; i < n && err == CL_SUCCESS; i++)
            err = clEnqueueWriteBuffer(q[i], dst[i], CL_FALSE, 0, bytes, src[i], 0, NULL, NULL);
        for (int i = 0; i < n; i++) clFinish(q[i]);
        t[r] = now_s() - a;
        if (err != CL_SUCCESS) {
            printf("FAILED: %s: clEnqueueWriteBuffer %d\n", what, err);
            g_failed = 1;
            return 0;
        }
    }
    for (int i = 0; i < n; i++) check(q[i], dst[i], src[i], bytes, what);
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    const double gbs = (double)n * (double)bytes / t[reps / 2] * 1e-9;
    printf("  %-10s %8.1f GB/s%s\n", what, gbs, n > 1 ? " (both devices together)" : "");
    return gbs;
}

/* Both devices written from the pinned memory of one context that holds them both. */
static double shared_context(cl_device_id dev[NDEV], size_t bytes, int reps)
{
    cl_int err;
    cl_context ctx = clCreateContext(NULL, NDEV, dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        printf("  shared     no context of both devices (%d)\n", err);
        return 0;
    }
    cl_command_queue q[NDEV] = {0};
    cl_mem d[NDEV] = {0}, pin = NULL;
    void *ptr = NULL;
    for (int i = 0; i < NDEV && err == CL_SUCCESS; i++) {
        q[i] = clCreateCommandQueue(ctx, dev[i], 0, &err);
        if (err == CL_SUCCESS) d[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    }
    if (err == CL_SUCCESS) pin = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (err == CL_SUCCESS)
        ptr = clEnqueueMapBuffer(q[0], pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    double gbs = 0;
    if (err == CL_SUCCESS) {
        fill(ptr, bytes, 7);
        const void *src[NDEV] = {ptr, ptr};
        gbs = writes(NDEV, q, d, src, bytes, reps, "shared");
        clEnqueueUnmapMemObject(q[0], pin, ptr, 0, NULL, NULL);
    } else {
        printf("  shared     setup failed (%d)\n", err);
    }
    for (int i = 0; i < NDEV; i++) {
        if (q[i]) clFinish(q[i]);
        if (d[i]) clReleaseMemObject(d[i]);
        if (q[i]) clReleaseCommandQueue(q[i]);
    }
    if (pin) clReleaseMemObject(pin);
    clReleaseContext(ctx);
    return gbs;
}

int main(int argc, char **argv)
{
    size_t mib = 256;
    int reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--mib")) mib = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: probe_pinned_share [--mib N] [--reps N]\n");
            return 2;
        }
    }
    if (mib < 1) mib = 1;
    if (reps < 1 || reps > 64) reps = 5;
    const size_t bytes = mib << 20;
    cl_device_id dev[NDEV];
    if (!two_devices(dev)) {
        printf("SKIP: fewer than two OpenCL devices\n");
        return 0;
    }
    char name[NDEV][256];
    for (int i = 0; i < NDEV; i++) clGetDeviceInfo(dev[i], CL_DEVICE_NAME, sizeof name[i], name[i], NULL);
    printf("device 0: %s\ndevice 1: %s\n%zu MiB per write, median of %d\n", name[0], name[1], mib, reps);
    side_t s[NDEV] = {0};
    char *pageable = malloc(bytes);
    if (!pageable || !open_side(dev[0], bytes, &s[0]) || !open_side(dev[1], bytes, &s[1])) {
        printf("FAILED: setup\n");
        return 1;
    }
    fill(s[0].pin_ptr, bytes, 1);
    fill(s[1].pin_ptr, bytes, 2);
    fill(pageable, bytes, 3);
    cl_command_queue q0[1] = {s[0].q}, q1[1] = {s[1].q}, q01[NDEV] = {s[0].q, s[1].q};
    cl_mem d0[1] = {s[0].dbuf}, d1[1] = {s[1].dbuf}, d01[NDEV] = {s[0].dbuf, s[1].dbuf};
    const void *p0[1] = {s[0].pin_ptr}, *p1[1] = {s[1].pin_ptr}, *pp[1] = {pageable};
    const void *own[NDEV] = {s[0].pin_ptr, s[1].pin_ptr}, *one[NDEV] = {s[0].pin_ptr, s[0].pin_ptr};
    const double own0 = writes(1, q0, d0, p0, bytes, reps, "own0");
    const double own1 = writes(1, q1, d1, p1, bytes, reps, "own1");
    const double other1 = writes(1, q1, d1, p0, bytes, reps, "other1");
    const double page1 = writes(1, q1, d1, pp, bytes, reps, "pageable1");
    const double both_own = writes(NDEV, q01, d01, own, bytes, reps, "both-own");
    const double both_one = writes(NDEV, q01, d01, one, bytes, reps, "both-one");
    const double shared = shared_context(dev, bytes, reps);
    close_side(&s[0]);
    close_side(&s[1]);
    free(pageable);
    const double f = own1 > 0 ? other1 / own1 : 0;
    printf("pinned_share: device 1 from device 0's pinned memory %.1f GB/s = %.2f x its own pinned (%.1f; "
           "pageable %.1f; device 0 own %.1f); both at once: own staging %.1f, one staging %.1f, "
           "one two-device context %.1f GB/s: shared staging %s\n",
           other1, f, own1, page1, own0, both_own, both_one, shared,
           f >= 0.9 ? "works" : "does not pay across contexts");
    return g_failed;
}
