/*
 * clprof.c -- diagnostic: where a program's device time goes, kernel by kernel, with no change to
 * the program. An LD_PRELOAD library over the OpenCL ICD loader: every command queue is created
 * with profiling on, every kernel launch gets an event, and at exit one line per (kernel name,
 * global size) says how many launches, their total and mean device time, and then, per queue, how
 * long the device sat idle between two launches that followed each other within CLPROF_GAP_US
 * (default 200 us: the launch gaps of a chain of dependent commands; longer pauses are the host's
 * own, between calls). CLPROF_FROM=N leaves out the first N launches (warm-up calls).
 *   cmake --build BUILD --target clprof
 *   LD_PRELOAD=BUILD/bench/libclprof.so CLPROF_FROM=200 BUILD/bench/clhgemm-bench-level3 ...
 * Output goes to stderr (CLPROF_OUT=FILE: that file). Copies and fills are not counted.
 * CLPROF_TRACE=FILE also writes every counted launch, in enqueue order, one line each: its
 * number, queue (numbered as met), kernel name, global size, and its queued, start and end times
 * in microseconds from the first counted start (the device's clock): a timeline, where the
 * device sat idle inside a call and whether the host's enqueues fell behind (start = queued).
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    cl_event ev;
    cl_command_queue q;
    char name[64];
    size_t gsz;
} rec_t;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static void report(void);
static rec_t *g_rec;
static size_t g_n, g_cap;

#define REAL(fn) static __typeof__(fn) *real_##fn; if (!real_##fn) *(void **)&real_##fn = dlsym(RTLD_NEXT, #fn)

cl_command_queue clCreateCommandQueue(cl_context ctx, cl_device_id dev, cl_command_queue_properties props,
                                      cl_int *err)
{
    REAL(clCreateCommandQueue);
    return real_clCreateCommandQueue(ctx, dev, props | CL_QUEUE_PROFILING_ENABLE, err);
}

cl_command_queue clCreateCommandQueueWithProperties(cl_context ctx, cl_device_id dev,
                                                    const cl_queue_properties *props, cl_int *err)
{
    REAL(clCreateCommandQueueWithProperties);
    cl_queue_properties p[32];
    int n = 0, had = 0;
    for (int i = 0; props && props[i] && n < 28; i += 2) {
        p[n++] = props[i];
        p[n++] = props[i + 1];
        if (props[i] == CL_QUEUE_PROPERTIES) {
            p[n - 1] |= CL_QUEUE_PROFILING_ENABLE;
            had = 1;
        }
    }
    if (!had) {
        p[n++] = CL_QUEUE_PROPERTIES;
        p[n++] = CL_QUEUE_PROFILING_ENABLE;
    }
    p[n] = 0;
    return real_clCreateCommandQueueWithProperties(ctx, dev, p, err);
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                              const size_t *gsz, const size_t *lsz, cl_uint nwait, const cl_event *wait,
                              cl_event *ev)
{
    REAL(clEnqueueNDRangeKernel);
    cl_event mine = NULL;
    const cl_int err = real_clEnqueueNDRangeKernel(q, k, dim, off, gsz, lsz, nwait, wait, &mine);
    if (err != CL_SUCCESS || !mine) return err;
    if (ev) {
        *ev = mine;
        clRetainEvent(mine);
    }
    rec_t r = {.ev = mine, .q = q, .gsz = 1};
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof r.name, r.name, NULL);
    for (cl_uint d = 0; d < dim; d++) r.gsz *= gsz[d];
    pthread_mutex_lock(&g_mu);
    static int registered;
    if (!registered) {
        /* registered after the runtime's own exit handlers, so run before them: the events
         * are still valid (a destructor ran after NVIDIA's teardown and read nothing) */
        registered = 1;
        atexit(report);
    }
    if (g_n == g_cap) {
        const size_t cap = g_cap ? 2 * g_cap : 4096;
        rec_t *p = realloc(g_rec, cap * sizeof *p);
        if (p) {
            g_rec = p;
            g_cap = cap;
        }
    }
    if (g_n < g_cap) g_rec[g_n++] = r;
    else clReleaseEvent(mine);
    pthread_mutex_unlock(&g_mu);
    return err;
}

typedef struct {
    char name[64];
    size_t gsz, count;
    double total;
} agg_t;

static int by_total(const void *a, const void *b)
{
    const double x = ((const agg_t *)a)->total, y = ((const agg_t *)b)->total;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int g_fail;

static void report(void)
{
    const char *o = getenv("CLPROF_OUT");
    FILE *f = o ? fopen(o, "w") : NULL;
    if (!f) f = stderr;
    const size_t from = getenv("CLPROF_FROM") ? strtoul(getenv("CLPROF_FROM"), NULL, 10) : 0;
    const double gap_max = (getenv("CLPROF_GAP_US") ? atof(getenv("CLPROF_GAP_US")) : 200.0) * 1e3;
    agg_t *a = calloc(g_n ? g_n : 1, sizeof *a);
    size_t na = 0, counted = 0, ngaps = 0;
    double busy = 0, gaps = 0, first = 0, last = 0;
    cl_command_queue prev_q = NULL;
    cl_ulong prev_end = 0;
    const char *tpath = getenv("CLPROF_TRACE");
    FILE *tf = tpath ? fopen(tpath, "w") : NULL;
    cl_command_queue qs[64];
    size_t nq = 0;
    cl_ulong t0 = 0;
    for (size_t i = 0; a && i < g_n; i++) {
        cl_ulong s = 0, e = 0, qd = 0;
        clWaitForEvents(1, &g_rec[i].ev);
        if (clGetEventProfilingInfo(g_rec[i].ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL) != CL_SUCCESS ||
            clGetEventProfilingInfo(g_rec[i].ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL) != CL_SUCCESS) {
            g_fail++;
            continue;
        }
        if (i < from) continue;
        if (tf) {
            size_t qi = 0;
            while (qi < nq && qs[qi] != g_rec[i].q) qi++;
            if (qi == nq && nq < 64) qs[nq++] = g_rec[i].q;
            if (clGetEventProfilingInfo(g_rec[i].ev, CL_PROFILING_COMMAND_QUEUED, sizeof qd, &qd, NULL) != CL_SUCCESS)
                qd = s;
            if (!t0) t0 = s;
            fprintf(tf, "%zu q%zu %-28s %10zu %12.1f %12.1f %12.1f\n", i, qi, g_rec[i].name, g_rec[i].gsz,
                    ((double)qd - (double)t0) * 1e-3, ((double)s - (double)t0) * 1e-3,
                    ((double)e - (double)t0) * 1e-3);
        }
        const double t = (double)(e - s);
        size_t j = 0;
        while (j < na && !(a[j].gsz == g_rec[i].gsz && !strcmp(a[j].name, g_rec[i].name))) j++;
        if (j == na) {
            snprintf(a[na].name, sizeof a[na].name, "%s", g_rec[i].name);
            a[na++].gsz = g_rec[i].gsz;
        }
        a[j].count++;
        a[j].total += t;
        busy += t;
        counted++;
        if (!first || s < first) first = (double)s;
        if ((double)e > last) last = (double)e;
        if (prev_q == g_rec[i].q && s > prev_end && (double)(s - prev_end) < gap_max) {
            gaps += (double)(s - prev_end);
            ngaps++;
        }
        prev_q = g_rec[i].q;
        prev_end = e;
    }
    if (tf) fclose(tf);
    if (a) qsort(a, na, sizeof *a, by_total);
    if (g_fail) fprintf(f, "clprof: %d launches without profiling information\n", g_fail);
    fprintf(f, "clprof: %zu launches counted (from #%zu), kernels busy %.3f ms, launch gaps %.3f ms over %zu "
               "gaps (< %.0f us), first start to last end %.3f ms\n",
            counted, from, busy * 1e-6, gaps * 1e-6, ngaps, gap_max * 1e-3, (last - first) * 1e-6);
    for (size_t j = 0; j < na; j++)
        fprintf(f, "clprof: %-32s global %10zu  x%6zu  total %9.3f ms  mean %8.2f us\n", a[j].name, a[j].gsz,
                a[j].count, a[j].total * 1e-6, a[j].total * 1e-3 / (double)a[j].count);
    if (f != stderr) fclose(f);
    free(a);
}
