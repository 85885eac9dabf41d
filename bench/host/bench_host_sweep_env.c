/*
 * bench_host_sweep_env.c -- what every case of clhgemm-bench-host --sweep shares, made once at
 * the start: the pinned host->device rate (a mapped CL_MEM_ALLOC_HOST_PTR buffer of 256 MiB,
 * times --scale when below 1, written to the device, best of 3) and the host's own pageable ->
 * pinned copy rate on all cores, which the host bounds use; ours' handle as the environment
 * makes it and a second one created with CLHGEMM_ROUTE=device; whether cublasXt is a column.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_host_sweep_int.h"
#include "common/bench_util.h"

#ifdef CLHGEMM_HAVE_CUBLASXT
#include "cuda/cublasxt_ref.h"
#endif

/* A CL_MEM_ALLOC_HOST_PTR buffer of `bytes` (*host), mapped for writing: the pointer, or NULL
 * with *err set. */
static void *sw_map_pinned(devctx_t *d, size_t bytes, cl_mem *host, cl_int *err)
{
    *err = CL_SUCCESS;
    *host = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, err);
    if (*err != CL_SUCCESS) return NULL;
    return clEnqueueMapBuffer(d->q, *host, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, err);
}

static void sw_unmap_pinned(devctx_t *d, cl_mem host, void *p)
{
    clEnqueueUnmapMemObject(d->q, host, p, 0, NULL, NULL);
    clFinish(d->q);
}

/* Pinned host->device rate: clEnqueueWriteBuffer from a mapped CL_MEM_ALLOC_HOST_PTR buffer
 * into a device buffer, best of 3; bytes/s, 0 on failure. */
static double sw_bus_rate(devctx_t *d, size_t bytes)
{
    cl_int err;
    cl_mem host;
    void *p = sw_map_pinned(d, bytes, &host, &err);
    cl_mem dst = err == CL_SUCCESS ? clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err)
                                   : NULL;
    double best = 0;
    if (err == CL_SUCCESS && p) {
        memset(p, 0x3c, bytes);
        for (int i = 0; i < 3 && err == CL_SUCCESS; i++) {
            const double a = now_ms();
            err = clEnqueueWriteBuffer(d->q, dst, CL_TRUE, 0, bytes, p, 0, NULL, NULL);
            const double ms = now_ms() - a;
            const double rate = ms > 0 ? bytes / (ms * 1e-3) : 0;
            if (err == CL_SUCCESS && rate > best) best = rate;
        }
    }
    if (p) sw_unmap_pinned(d, host, p);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "bus measurement: %s\n", clhgemm_status_string(err));
        best = 0;
    }
    if (dst) clReleaseMemObject(dst);
    if (host) clReleaseMemObject(host);
    return best;
}

/* The host's own copy rate, pageable -> pinned, on `threads` threads (what the pipeline's pack
 * threads do with every operand): memcpy of equal parts of a pageable buffer into a mapped
 * CL_MEM_ALLOC_HOST_PTR buffer, best of 3; bytes/s, 0 on failure. */
typedef struct sw_copy_s {
    char *dst;
    const char *src;
    size_t part;
} sw_copy_t;

static void *sw_copy_main(void *arg)
{
    const sw_copy_t *c = arg;
    memcpy(c->dst, c->src, c->part);
    return NULL;
}

/* One timed copy of `threads` parts of `part` bytes (the calling thread copies the first);
 * bytes/s, 0 when a thread could not be started. */
static double sw_copy_once(char *dst, const char *src, size_t part, int threads)
{
    sw_copy_t jobs[128];
    pthread_t th[128];
    const double a = now_ms();
    int started = 0;
    for (int t = 0; t < threads; t++) {
        jobs[t] = (sw_copy_t){dst + (size_t)t * part, src + (size_t)t * part, part};
        if (t && pthread_create(&th[t], NULL, sw_copy_main, &jobs[t]) != 0) break;
        started = t + 1;
    }
    sw_copy_main(&jobs[0]);
    for (int t = 1; t < started; t++) pthread_join(th[t], NULL);
    const double ms = now_ms() - a;
    return ms > 0 && started == threads ? (double)part * threads / (ms * 1e-3) : 0;
}

static double sw_copy_rate(devctx_t *d, size_t bytes, int threads)
{
    if (threads < 1) threads = 1;
    if (threads > 128) threads = 128;
    cl_int err;
    cl_mem host;
    void *p = sw_map_pinned(d, bytes, &host, &err);
    char *src = malloc(bytes);
    double best = 0;
    if (err == CL_SUCCESS && p && src) {
        memset(src, 0x5a, bytes);
        memset(p, 0x3c, bytes);
        const size_t part = bytes / (size_t)threads / 4096 * 4096;
        for (int i = 0; i < 3 && part; i++) {
            const double rate = sw_copy_once(p, src, part, threads);
            if (rate > best) best = rate;
        }
    }
    if (p) sw_unmap_pinned(d, host, p);
    free(src);
    if (host) clReleaseMemObject(host);
    return err == CL_SUCCESS ? best : 0;
}

/* The bus measurement's size: 256 MiB times --scale when below 1, whole MiB, at least 1 MiB,
 * halved until it fits half the largest allocation and a quarter of the device memory. */
static size_t sw_bus_bytes(const opts_t *o, const devctx_t *dev)
{
    size_t bus_bytes = (size_t)(256.0 * (o->scale < 1 ? o->scale : 1.0) * 1048576.0);
    bus_bytes = bus_bytes / 1048576 * 1048576;
    if (bus_bytes < 1048576) bus_bytes = 1048576;
    while (bus_bytes > 1048576 && (bus_bytes > dev->info.max_alloc_bytes / 2 ||
                                   bus_bytes > dev->info.global_mem_bytes / 4))
        bus_bytes /= 2;
    return bus_bytes;
}

/* The handles: ours as the environment says (env->h), and one with CLHGEMM_ROUTE=device
 * (env->hd; the variable restored after). 0, or 1 after a message with no handle left. */
static int sw_handles(sw_env_t *env)
{
    clhgemm_status_t st = clhgemm_create(&env->h, NULL);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm_create: %s (%d)\n", clhgemm_status_string(st), (int)st);
        return 1;
    }
    const char *old = getenv("CLHGEMM_ROUTE");
    char *saved = old ? strdup(old) : NULL;
    setenv("CLHGEMM_ROUTE", "device", 1);
    st = clhgemm_create(&env->hd, NULL);
    if (saved) {
        setenv("CLHGEMM_ROUTE", saved, 1);
        free(saved);
    } else {
        unsetenv("CLHGEMM_ROUTE");
    }
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm_create (CLHGEMM_ROUTE=device): %s (%d)\n",
                clhgemm_status_string(st), (int)st);
        clhgemm_destroy(env->h);
        return 1;
    }
    return 0;
}

int sw_env_open(const opts_t *o, devctx_t *dev, sw_env_t *env)
{
    memset(env, 0, sizeof *env);
    env->dev = dev;
    env->bus_bytes = sw_bus_bytes(o, dev);
    env->bus_bps = sw_bus_rate(dev, env->bus_bytes);
    env->copy_bps = sw_copy_rate(dev, env->bus_bytes, o->threads);
    if (sw_handles(env)) return 1;
#ifdef CLHGEMM_HAVE_CUBLASXT
    if (!o->no_xt && cublasxt_device_count() > 0) {
        env->xt = 1;
        snprintf(env->xtdesc, sizeof env->xtdesc, " | cublasXt on %d device(s): %s",
                 o->xt_devices, cublasxt_description());
    }
#endif
    return 0;
}
