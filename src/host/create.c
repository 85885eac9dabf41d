/*
 * create.c -- a handle of the host API: its options (clhgemm_options_t, then the
 * environment, then the device's tuning entry, then built-in defaults), its devices (a
 * context, queues, bus measurements), its pack threads and their measured rate; destroy.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/share_blas.h"
#include "host/calibrate.h"
#include "host/devmem.h"
#include "host/fault.h"
#include "host/plan.h"
#include "host/route.h"
#include "tuning/tuning.h"

CLHGEMM_API void clhgemm_options_init(clhgemm_options_t *o)
{
    if (o) memset(o, 0, sizeof *o);
}

#define RETURNS_INVALID "clhgemm_create returns CLHGEMM_INVALID_OPTION"

/* An integer option from the environment (`def` when unset): a value that is not an integer
 * in [lo, hi] makes clhgemm_create fail, with a line naming the variable. */
static clhgemm_status_t env_int(const char *name, int def, int lo, int hi, int *out)
{
    const char *v = chg_getenv(name);
    long n = def;
    if (v && (!chg_parse_long(v, &n) || n < lo || n > hi)) {
        chg_env_warn(name, v, "is not an integer in [%d, %d]; " RETURNS_INVALID, lo, hi);
        return CLHGEMM_INVALID_OPTION;
    }
    *out = (int)n;
    return CLHGEMM_SUCCESS;
}

/* The handle's settings from the options and the environment, checked. */
typedef struct hopts_s {
    clhgemm_options_t o;
    int nq, nq_set;             /* queues per device; set by option or environment */
    int threads, threads_set;   /* pack threads */
    long cores;
    unsigned long long limit;   /* device memory limit (0: 80% of the device's) */
    int cpu_mode, cpu_sched, cpu_threads;
    double cpu_fixed, cpu_gamma;
} hopts_t;

/* CPU share: "off", "auto" or a fraction in [0, 1]; its OpenBLAS threads; the scheduler
 * (CLHGEMM_CPU_SCHED=slab|strips, for experiments); gamma (CLHGEMM_CPU_GAMMA). */
static clhgemm_status_t share_options(hopts_t *p)
{
    p->cpu_mode = CPU_AUTO;
    p->cpu_fixed = 0;
    const char *cs = p->o.cpu_share ? p->o.cpu_share : chg_getenv("CLHGEMM_CPU_SHARE");
    if (cs && !strcmp(cs, "off")) {
        p->cpu_mode = CPU_OFF;
    } else if (cs && strcmp(cs, "auto")) {
        if (!chg_parse_double(cs, &p->cpu_fixed) || !(p->cpu_fixed >= 0.0 && p->cpu_fixed <= 1.0)) {
            if (!p->o.cpu_share)
                chg_env_warn("CLHGEMM_CPU_SHARE", cs, "is not off, auto or a number in [0, 1]; " RETURNS_INVALID);
            return CLHGEMM_INVALID_OPTION;
        }
        p->cpu_mode = CPU_FIXED;
        if (p->cpu_fixed > 0 && !chg_cpu_available()) {
            if (!p->o.cpu_share)
                chg_env_warn("CLHGEMM_CPU_SHARE", cs, "needs OpenBLAS, which this library was built without; " RETURNS_INVALID);
            return CLHGEMM_INVALID_OPTION;
        }
    }
    p->cpu_threads = p->o.cpu_share_threads;
    if (!p->cpu_threads &&
        env_int("CLHGEMM_CPU_SHARE_THREADS", (int)CHG_MAX(1, p->cores / 2), 1, 1024, &p->cpu_threads))
        return CLHGEMM_INVALID_OPTION;
    if (p->cpu_threads < 1 || p->cpu_threads > 1024) return CLHGEMM_INVALID_OPTION;
    p->cpu_sched = CPU_SLAB;
    const char *v = chg_getenv("CLHGEMM_CPU_SCHED");
    if (v && !strcmp(v, "strips")) {
        p->cpu_sched = CPU_STRIPS;
    } else if (v && strcmp(v, "slab")) {
        chg_env_warn("CLHGEMM_CPU_SCHED", v, "is not slab or strips; " RETURNS_INVALID);
        return CLHGEMM_INVALID_OPTION;
    }
    p->cpu_gamma = chg_env_double("CLHGEMM_CPU_GAMMA", 0.1, 0.0, 10.0);
    return CLHGEMM_SUCCESS;
}

/* Queues and pack threads: option, environment, the device's tuning entry (clhgemm-tune
 * measured the best counts; applied when the devices open), built-in. */
static clhgemm_status_t read_options(const clhgemm_options_t *options, hopts_t *p)
{
    memset(p, 0, sizeof *p);
    clhgemm_options_init(&p->o);
    if (options) p->o = *options;
    const clhgemm_options_t *o = &p->o;
    p->nq_set = o->queues || chg_getenv("CLHGEMM_QUEUES");
    p->threads_set = o->cpu_threads || chg_getenv("CLHGEMM_CPU_THREADS");
    p->nq = o->queues;
    if (!p->nq && env_int("CLHGEMM_QUEUES", 3, 3, MAX_QUEUES, &p->nq)) return CLHGEMM_INVALID_OPTION;
    if (p->nq < 3 || p->nq > MAX_QUEUES) return CLHGEMM_INVALID_OPTION;
    p->cores = sysconf(_SC_NPROCESSORS_ONLN);
    /* Pack threads: every core, up to 32 (the copies are bound by host memory bandwidth, which
     * a few dozen cores saturate; several GPUs need more of it than one). */
    p->threads = o->cpu_threads;
    if (!p->threads && env_int("CLHGEMM_CPU_THREADS", (int)CHG_MIN(p->cores, 32), 1, 1024, &p->threads))
        return CLHGEMM_INVALID_OPTION;
    if (p->threads < 1 || p->threads > 1024) return CLHGEMM_INVALID_OPTION;
    p->limit = o->device_memory_limit ? o->device_memory_limit : chg_env_size("CLHGEMM_DEVICE_MEMORY_LIMIT", 0);
    return share_options(p);
}

/* Device `id` as the handle's next device: context, queues (the tuning entry's count unless
 * set), memory budget, bus measurements. */
static clhgemm_status_t open_device(clhgemm_handle_t h, hopts_t *p, cl_device_id id)
{
    chg_handle_dev_t *d = &h->devs[h->ndev];
    d->index = h->ndev;
    d->id = id;
    cl_int err;
    clhgemm_status_t st = chg_device_query(id, &d->dev);
    if (st != CLHGEMM_SUCCESS) return st;
    d->ctx = clCreateContext(NULL, 1, &id, NULL, NULL, &err);
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    h->ndev++;
    int nqd = p->nq;
    chg_tuning_entry_t te;
    chg_tuned_entry(&d->dev, CHG_F32, &te);
    if (!p->nq_set && te.pipeline.present && te.pipeline.queues >= 3 && te.pipeline.queues <= MAX_QUEUES)
        nqd = te.pipeline.queues;
    if (!p->threads_set && h->ndev == 1 && te.pipeline.present && te.pipeline.pack_threads > 0)
        p->threads = CHG_MIN(te.pipeline.pack_threads, 1024);
    const cl_command_queue_properties props = h->trace_path ? CL_QUEUE_PROFILING_ENABLE : 0;
    for (int q = 0; q < nqd && err == CL_SUCCESS; q++) {
        d->q[q] = clCreateCommandQueue(d->ctx, id, props, &err);
        if (err == CL_SUCCESS) d->nq++;
    }
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    const unsigned long long cap = d->dev.info.global_mem_bytes / 10 * 8;
    d->mem_limit = p->limit ? CHG_MIN(p->limit, d->dev.info.global_mem_bytes) : cap;
    cl_uint bits = 0;
    if (clGetDeviceInfo(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) != CL_SUCCESS || bits < 8)
        bits = 4096; /* unknown: the largest the OpenCL devices in use report (NVIDIA's) */
    d->sub_align = bits / 8;
    err = chg_measure_bus(d);
    return err != CL_SUCCESS ? (clhgemm_status_t)err : CLHGEMM_SUCCESS;
}

/* Devices: the spec, else every GPU, else whatever there is. */
static clhgemm_status_t open_devices(clhgemm_handle_t h, hopts_t *p)
{
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(p->o.devices, NULL, 0, &count);
    if (st != CLHGEMM_SUCCESS) return st;
    clhgemm_device_info_t *infos = calloc(count, sizeof *infos);
    h->devs = calloc(count, sizeof *h->devs);
    if (!infos || !h->devs) {
        free(infos);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    st = clhgemm_devices_get(p->o.devices, infos, count, &count);
    const int explicit_spec = p->o.devices || chg_getenv("CLHGEMM_DEVICES");
    size_t ngpu = 0;
    for (size_t i = 0; i < count; i++) ngpu += infos[i].kind == CLHGEMM_DEVICE_GPU;
    for (size_t i = 0; i < count && st == CLHGEMM_SUCCESS; i++) {
        if (!explicit_spec && ngpu > 0 && infos[i].kind != CLHGEMM_DEVICE_GPU) continue;
        st = open_device(h, p, infos[i].device);
    }
    free(infos);
    if (st == CLHGEMM_SUCCESS && h->ndev == 0) st = CLHGEMM_NO_DEVICE;
    return st;
}

static void log_handle(clhgemm_handle_t h, long cores)
{
    for (int i = 0; i < h->ndev; i++)
        chg_log(1, "pipeline device %d: %s, %d queues, budget %.2f GiB, pinned h2d %.1f GB/s, d2h %.1f GB/s, "
                   "device copies %.0f GB/s",
                i, h->devs[i].dev.info.name, h->devs[i].nq, h->devs[i].mem_limit / 1073741824.0,
                h->devs[i].h2d_bps * 1e-9, h->devs[i].d2h_bps * 1e-9, h->devs[i].dev_bps * 1e-9);
    chg_log(1, "pipeline: %d pack threads, copy rate %.1f GB/s", chg_pool_threads(h->pool), h->pack_bps * 1e-9);
    if (chg_verbose() >= 1) {
        char blas[256];
        chg_cpu_describe(blas, sizeof blas);
        static const char *const mode[] = {"off", "auto", "fixed"};
        chg_log(1, "CPU share: %s (fixed fraction %.2f), %s scheduler, %d OpenBLAS threads of %ld cores, "
                   "gamma %.2f; %s",
                mode[h->cpu_mode], h->cpu_fixed, h->cpu_sched == CPU_STRIPS ? "strips" : "slab",
                h->cpu_threads, cores, h->cpu_gamma, blas);
    }
}

CLHGEMM_API clhgemm_status_t clhgemm_create(clhgemm_handle_t *handle, const clhgemm_options_t *options)
{
    if (!handle) return CLHGEMM_INVALID_ARGUMENT;
    *handle = NULL;
    hopts_t p;
    clhgemm_status_t st = read_options(options, &p);
    if (st != CLHGEMM_SUCCESS) return st;
    clhgemm_handle_t h = calloc(1, sizeof *h);
    if (!h) return CLHGEMM_OUT_OF_HOST_MEMORY;
    pthread_mutex_init(&h->call_lock, NULL);
    pthread_mutex_init(&h->info_lock, NULL);
    h->cpu_mode = chg_cpu_available() ? p.cpu_mode : CPU_OFF;
    h->cpu_fixed = p.cpu_fixed;
    h->cpu_sched = p.cpu_sched;
    h->cpu_threads = p.cpu_threads;
    h->cpu_gamma = p.cpu_gamma;
    const char *tp = p.o.trace_file ? p.o.trace_file : chg_getenv("CLHGEMM_TRACE");
    h->trace_origin = p.o.trace_file ? "clhgemm_options_t.trace_file" : "CLHGEMM_TRACE";
    if (tp && !(h->trace_path = strdup(tp))) st = CLHGEMM_OUT_OF_HOST_MEMORY;
    if (st == CLHGEMM_SUCCESS) st = open_devices(h, &p);
    h->ndev_all = h->ndev;
    chg_handle_fp64_update(h);
    if (st == CLHGEMM_SUCCESS && !(h->retired = calloc((size_t)CHG_MAX(1, h->ndev_all), sizeof *h->retired)))
        st = CLHGEMM_OUT_OF_HOST_MEMORY;
    chg_fault_read(&h->fault);
    if (st == CLHGEMM_SUCCESS && !(h->pool = chg_pool_create(p.threads))) st = CLHGEMM_OUT_OF_HOST_MEMORY;
    if (st != CLHGEMM_SUCCESS) {
        clhgemm_destroy(h);
        return st;
    }
    chg_measure_pack(h);
    if ((st = chg_route_init(h)) != CLHGEMM_SUCCESS) {
        clhgemm_destroy(h);
        return st;
    }
    log_handle(h, p.cores);
    chg_handle_register(h);
    *handle = h;
    return CLHGEMM_SUCCESS;
}

CLHGEMM_API void clhgemm_destroy(clhgemm_handle_t h)
{
    if (!h) return;
    chg_handle_unregister(h);  /* before anything is released (a no-op for a handle never registered) */
    for (int i = 0; i < h->ndev; i++) chg_devmem_release(&h->devs[i]);
    for (int i = 0; i < h->ndev; i++) free(h->devs[i].redo.r);
    free(h->devs);
    for (int i = 0; i < h->nretired; i++) free(h->retired[i]);
    free(h->retired);
    if (h->pool) chg_pool_destroy(h->pool);
    free(h->trace_path);
    chg_plan_cache_free(h);
    pthread_mutex_destroy(&h->call_lock);
    pthread_mutex_destroy(&h->info_lock);
    free(h);
}
