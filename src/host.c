/*
 * host.c -- the host pipeline: GEMM on matrices in ordinary (pageable) host memory, tiled over
 * every selected device, staged through pinned memory and overlapped on three command queues
 * per device.
 *
 * Shape of a call (column-major view; row-major is mapped as in api.c):
 *   plan     one tile shape for all devices: C tiles bm x bn kept resident on a device over the
 *            k loop, k walked in slices of bk. The shape minimises a time model built from the
 *            device's measured bus bandwidth each way, the pack threads' copy rate and the
 *            kernel rate (seed 001's bound: a step moves s*bk*(bm+bn) bytes for 2*bm*bn*bk
 *            flops) plus the pipeline's fill and drain, within the device-memory budget.
 *   tiles    C tiles in snake order (seed 000) in one shared queue; each device's driver thread
 *            takes the next tile, so unequal devices balance themselves. A device keeps the
 *            packed A band of its current tile row resident when it fits, so consecutive tiles
 *            of a band only stream B.
 *   step     pack threads copy the stored sub-blocks of A and B from user memory into pinned
 *            staging (S2P) -> host->device copy on the h2d queue (P2D) -> device pack kernels
 *            and the GEMM kernel, accumulating into the resident Cp, on the kernel queue ->
 *            after the last slice the write-back kernel applies alpha and beta (beta once; C
 *            is loaded only when beta != 0) -> device->host copy on the d2h queue (D2P) ->
 *            pack threads copy the tile into the user's C (P2S), one tile later, while the
 *            device works on the next.
 *   Staging and device buffers are double buffered; every cross-queue dependency is an event,
 *   and the driver blocks only before refilling a staging buffer whose previous copy has not
 *   finished. On any error the driver stops taking tiles, the others stop at their next tile,
 *   and everything enqueued is waited for before the call returns: tiles already written back
 *   stay written, the rest of C is untouched.
 *
 * Test hook: CLHGEMM_FAULT_ALLOC=N makes the N-th device or pinned allocation of the process's
 * pipelines fail with CL_MEM_OBJECT_ALLOCATION_FAILURE.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gemm.h"
#include "pool.h"
#include "trace.h"

#define MAX_QUEUES 8
enum { Q_H2D = 0, Q_KERNEL = 1, Q_D2H = 2 };

/* ---- fault injection --------------------------------------------------------------------- */

static atomic_long g_alloc_count;

static int fault_alloc(void)
{
    const char *v = chg_getenv("CLHGEMM_FAULT_ALLOC");
    if (!v) return 0;
    long n = atol(v);
    return n > 0 && atomic_fetch_add(&g_alloc_count, 1) + 1 == n;
}

static cl_mem dev_alloc(cl_context ctx, size_t bytes, cl_int *err)
{
    if (fault_alloc()) {
        *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    return clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, err);
}

/* ---- pinned staging ----------------------------------------------------------------------- */

typedef struct pinned_s {
    cl_mem buf;
    void *ptr;
    size_t bytes;
} pinned_t;

static cl_int pinned_alloc(cl_context ctx, cl_command_queue q, size_t bytes, pinned_t *p)
{
    cl_int err;
    memset(p, 0, sizeof *p);
    if (fault_alloc()) return CL_MEM_OBJECT_ALLOCATION_FAILURE;
    p->buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes ? bytes : 1, NULL,
                            &err);
    if (err != CL_SUCCESS) return err;
    p->ptr = clEnqueueMapBuffer(q, p->buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes ? bytes : 1,
                                0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(p->buf);
        p->buf = NULL;
        return err;
    }
    p->bytes = bytes;
    return CL_SUCCESS;
}

static void pinned_free(cl_command_queue q, pinned_t *p)
{
    if (!p->buf) return;
    if (p->ptr) {
        cl_event ev;
        if (clEnqueueUnmapMemObject(q, p->buf, p->ptr, 0, NULL, &ev) == CL_SUCCESS) {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
        }
    }
    clReleaseMemObject(p->buf);
    memset(p, 0, sizeof *p);
}

/* ---- devices of a handle ------------------------------------------------------------------ */

enum { B_ARAW, B_APACK, B_BRAW, B_BPACK, B_CDEV, B_CP, B_COUNT };

typedef struct hdev_s {
    int index;
    chg_device_t dev;
    cl_context ctx;
    cl_command_queue q[MAX_QUEUES];
    int nq;
    unsigned long long mem_limit;
    double h2d_bps, d2h_bps;   /* measured pinned bandwidths */
    double rate[2];            /* measured kernel rate per precision (flop/s), 0 = not yet */
    /* Per-call resources (kept between calls while large enough). */
    cl_mem buf[B_COUNT][2];
    size_t buf_bytes[B_COUNT];
    int buf_slots[B_COUNT];
    pinned_t st_a[2], st_b[2], st_c[2];
} hdev_t;

struct clhgemm_handle_s {
    int ndev;
    hdev_t *devs;
    chg_pool_t *pool;
    double pack_bps;           /* measured CPU copy rate into pinned staging */
    char *trace_path;
    pthread_mutex_t call_lock; /* one call at a time per handle */
    clhgemm_call_info_t last;
};

static void hdev_free_buffers(hdev_t *d)
{
    for (int b = 0; b < B_COUNT; b++) {
        for (int s = 0; s < 2; s++) {
            if (d->buf[b][s]) clReleaseMemObject(d->buf[b][s]);
            d->buf[b][s] = NULL;
        }
        d->buf_bytes[b] = 0;
        d->buf_slots[b] = 0;
    }
    for (int s = 0; s < 2; s++) {
        pinned_free(d->q[Q_H2D], &d->st_a[s]);
        pinned_free(d->q[Q_H2D], &d->st_b[s]);
        pinned_free(d->q[Q_H2D], &d->st_c[s]);
    }
}

static void hdev_release(hdev_t *d)
{
    for (int i = 0; i < d->nq; i++)
        if (d->q[i]) clFinish(d->q[i]);
    hdev_free_buffers(d);
    for (int i = 0; i < d->nq; i++)
        if (d->q[i]) clReleaseCommandQueue(d->q[i]);
    if (d->ctx) clReleaseContext(d->ctx);
}

static double seconds_since(unsigned long long t0) { return (chg_now_ns() - t0) * 1e-9; }

/* Pinned bandwidth each way, from a few 16 MiB copies (the planner's BW). */
static cl_int measure_bus(hdev_t *d)
{
    const size_t bytes = (d->dev.features & CHG_FEAT_GPU) ? (64u << 20) : (16u << 20);
    pinned_t p;
    cl_int err = pinned_alloc(d->ctx, d->q[Q_H2D], bytes, &p);
    if (err != CL_SUCCESS) return err;
    memset(p.ptr, 1, bytes);
    cl_mem m = dev_alloc(d->ctx, bytes, &err);
    if (err != CL_SUCCESS) {
        pinned_free(d->q[Q_H2D], &p);
        return err;
    }
    double best_h = 0, best_d = 0;
    for (int r = 0; r < 3 && err == CL_SUCCESS; r++) {
        unsigned long long t0 = chg_now_ns();
        err = clEnqueueWriteBuffer(d->q[Q_H2D], m, CL_TRUE, 0, bytes, p.ptr, 0, NULL, NULL);
        double th = seconds_since(t0);
        if (err != CL_SUCCESS) break;
        t0 = chg_now_ns();
        err = clEnqueueReadBuffer(d->q[Q_D2H], m, CL_TRUE, 0, bytes, p.ptr, 0, NULL, NULL);
        double td = seconds_since(t0);
        if (r > 0) {  /* the first round pays for page mapping */
            best_h = CHG_MAX(best_h, bytes / th);
            best_d = CHG_MAX(best_d, bytes / td);
        }
    }
    clReleaseMemObject(m);
    pinned_free(d->q[Q_H2D], &p);
    d->h2d_bps = best_h > 0 ? best_h : 1e9;
    d->d2h_bps = best_d > 0 ? best_d : 1e9;
    return err;
}

/* ---- CPU copies between user matrices and compact staging --------------------------------- */

typedef struct copy2d_s {
    char *dst;
    const char *src;
    size_t rows, cols;       /* elements x columns */
    size_t dld, sld;         /* leading dimensions in elements */
    size_t es;
    int parts;
} copy2d_t;

static void copy2d_part(void *arg, int part, int worker)
{
    (void)worker;
    const copy2d_t *c = arg;
    if (c->cols >= (size_t)c->parts) {
        const size_t c0 = c->cols * part / c->parts, c1 = c->cols * (part + 1) / c->parts;
        for (size_t j = c0; j < c1; j++)
            memcpy(c->dst + j * c->dld * c->es, c->src + j * c->sld * c->es, c->rows * c->es);
    } else {
        /* Few long columns: split each column's rows. */
        const size_t r0 = c->rows * part / c->parts, r1 = c->rows * (part + 1) / c->parts;
        for (size_t j = 0; j < c->cols; j++)
            memcpy(c->dst + (j * c->dld + r0) * c->es, c->src + (j * c->sld + r0) * c->es,
                   (r1 - r0) * c->es);
    }
}

static void copy2d(chg_pool_t *pool, void *dst, size_t dld, const void *src, size_t sld,
                   size_t rows, size_t cols, size_t es, chg_trace_t *tr, const char *name)
{
    copy2d_t c = {dst, src, rows, cols, dld, sld, es, 0};
    const size_t bytes = rows * cols * es;
    int parts = chg_pool_threads(pool);
    if (bytes < (1u << 20)) parts = 1;  /* not worth waking anyone */
    c.parts = parts;
    chg_pool_run(pool, parts, copy2d_part, &c, tr, name);
}

static void measure_pack(clhgemm_handle_t h)
{
    const size_t bytes = 32u << 20;
    char *src = malloc(bytes), *dst = malloc(bytes);
    h->pack_bps = 10e9;
    if (!src || !dst) {
        free(src);
        free(dst);
        return;
    }
    memset(src, 3, bytes);
    memset(dst, 0, bytes);
    double best = 0;
    for (int r = 0; r < 3; r++) {
        unsigned long long t0 = chg_now_ns();
        copy2d(h->pool, dst, 4096, src, 4096, 4096, bytes / 4096, 1, NULL, NULL);
        double t = seconds_since(t0);
        best = CHG_MAX(best, bytes / t);
    }
    free(src);
    free(dst);
    h->pack_bps = best;
}

/* ---- handle ------------------------------------------------------------------------------- */

CLHGEMM_API void clhgemm_options_init(clhgemm_options_t *o)
{
    if (o) memset(o, 0, sizeof *o);
}

static int env_int(const char *name, int def)
{
    const char *v = chg_getenv(name);
    return v ? atoi(v) : def;
}

CLHGEMM_API clhgemm_status_t clhgemm_create(clhgemm_handle_t *handle, const clhgemm_options_t *options)
{
    if (!handle) return CLHGEMM_INVALID_ARGUMENT;
    *handle = NULL;
    clhgemm_options_t o;
    clhgemm_options_init(&o);
    if (options) o = *options;
    int nq = o.queues ? o.queues : env_int("CLHGEMM_QUEUES", 3);
    if (nq < 3 || nq > MAX_QUEUES) return CLHGEMM_INVALID_OPTION;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = o.cpu_threads ? o.cpu_threads : env_int("CLHGEMM_CPU_THREADS", (int)CHG_MIN(cores, 16));
    if (threads < 1 || threads > 1024) return CLHGEMM_INVALID_OPTION;
    unsigned long long limit = o.device_memory_limit
                                   ? o.device_memory_limit
                                   : chg_getenv_size("CLHGEMM_DEVICE_MEMORY_LIMIT", 0);

    /* Devices: the spec, else every GPU, else whatever there is. */
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(o.devices, NULL, 0, &count);
    if (st != CLHGEMM_SUCCESS) return st;
    clhgemm_device_info_t *infos = calloc(count, sizeof *infos);
    if (!infos) return CLHGEMM_OUT_OF_HOST_MEMORY;
    st = clhgemm_devices_get(o.devices, infos, count, &count);
    if (st != CLHGEMM_SUCCESS) {
        free(infos);
        return st;
    }
    const int explicit_spec = o.devices || chg_getenv("CLHGEMM_DEVICES");
    size_t ngpu = 0;
    for (size_t i = 0; i < count; i++) ngpu += infos[i].kind == CLHGEMM_DEVICE_GPU;

    clhgemm_handle_t h = calloc(1, sizeof *h);
    if (!h) {
        free(infos);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_init(&h->call_lock, NULL);
    h->devs = calloc(count, sizeof *h->devs);
    h->pool = chg_pool_create(threads);
    const char *tp = o.trace_file ? o.trace_file : chg_getenv("CLHGEMM_TRACE");
    if (tp) h->trace_path = strdup(tp);
    if (!h->devs || !h->pool || (tp && !h->trace_path)) {
        free(infos);
        clhgemm_destroy(h);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    cl_command_queue_properties props = h->trace_path ? CL_QUEUE_PROFILING_ENABLE : 0;
    for (size_t i = 0; i < count && st == CLHGEMM_SUCCESS; i++) {
        if (!explicit_spec && ngpu > 0 && infos[i].kind != CLHGEMM_DEVICE_GPU) continue;
        hdev_t *d = &h->devs[h->ndev];
        d->index = h->ndev;
        cl_int err;
        st = chg_device_query(infos[i].device, &d->dev);
        if (st != CLHGEMM_SUCCESS) break;
        d->ctx = clCreateContext(NULL, 1, &infos[i].device, NULL, NULL, &err);
        if (err != CL_SUCCESS) {
            st = (clhgemm_status_t)err;
            break;
        }
        h->ndev++;
        for (int q = 0; q < nq && err == CL_SUCCESS; q++) {
            d->q[q] = clCreateCommandQueue(d->ctx, infos[i].device, props, &err);
            if (err == CL_SUCCESS) d->nq++;
        }
        if (err != CL_SUCCESS) {
            st = (clhgemm_status_t)err;
            break;
        }
        unsigned long long cap = d->dev.info.global_mem_bytes / 10 * 8;
        d->mem_limit = limit ? CHG_MIN(limit, d->dev.info.global_mem_bytes) : cap;
        err = measure_bus(d);
        if (err != CL_SUCCESS) st = (clhgemm_status_t)err;
    }
    free(infos);
    if (st == CLHGEMM_SUCCESS && h->ndev == 0) st = CLHGEMM_NO_DEVICE;
    if (st != CLHGEMM_SUCCESS) {
        clhgemm_destroy(h);
        return st;
    }
    measure_pack(h);
    for (int i = 0; i < h->ndev; i++)
        chg_log(1, "pipeline device %d: %s, %d queues, budget %.2f GiB, pinned h2d %.1f GB/s, d2h %.1f GB/s",
                i, h->devs[i].dev.info.name, h->devs[i].nq, h->devs[i].mem_limit / 1073741824.0,
                h->devs[i].h2d_bps * 1e-9, h->devs[i].d2h_bps * 1e-9);
    chg_log(1, "pipeline: %d pack threads, copy rate %.1f GB/s", chg_pool_threads(h->pool),
            h->pack_bps * 1e-9);
    *handle = h;
    return CLHGEMM_SUCCESS;
}

CLHGEMM_API void clhgemm_destroy(clhgemm_handle_t h)
{
    if (!h) return;
    for (int i = 0; i < h->ndev; i++) hdev_release(&h->devs[i]);
    free(h->devs);
    if (h->pool) chg_pool_destroy(h->pool);
    free(h->trace_path);
    pthread_mutex_destroy(&h->call_lock);
    free(h);
}

CLHGEMM_API clhgemm_status_t clhgemm_last_call_info(clhgemm_handle_t h, clhgemm_call_info_t *info)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    if (!info) return CLHGEMM_INVALID_ARGUMENT;
    pthread_mutex_lock(&h->call_lock);
    *info = h->last;
    pthread_mutex_unlock(&h->call_lock);
    return CLHGEMM_SUCCESS;
}

/* ---- kernel rate (for the planner), measured once per device and precision ---------------- */

static void measure_rate(hdev_t *d, chg_precision_t prec)
{
    if (d->rate[prec] > 0) return;
    const size_t n = (d->dev.features & CHG_FEAT_GPU) ? 4096 : 256, es = chg_elem_size(prec);
    cl_int err;
    d->rate[prec] = (d->dev.features & CHG_FEAT_GPU) ? 10e12 : 50e9; /* fallback guess */
    cl_mem m = dev_alloc(d->ctx, 3 * n * n * es, &err);
    if (err != CL_SUCCESS) return;
    /* Contents do not matter for timing as long as they are not NaN-generating garbage:
     * zero-fill would be faster than real data on some hardware, so fill with ones. */
    if (prec == CHG_F64) {
        const double one = 1.0;
        err = clEnqueueFillBuffer(d->q[Q_KERNEL], m, &one, sizeof one, 0, 3 * n * n * es, 0, NULL, NULL);
    } else {
        const float one = 1.0f;
        err = clEnqueueFillBuffer(d->q[Q_KERNEL], m, &one, sizeof one, 0, 3 * n * n * es, 0, NULL, NULL);
    }
    chg_gemm_args_t a = {.prec = prec, .m = n, .n = n, .k = n, .alpha = 1.0, .beta = 0.0,
                         .a = m, .b = m, .c = m, .off_a = 0, .off_b = n * n, .off_c = 2 * n * n,
                         .lda = n, .ldb = n, .ldc = n};
    double best = 0;
    for (int r = 0; r < 3 && err == CL_SUCCESS; r++) {
        clFinish(d->q[Q_KERNEL]);
        unsigned long long t0 = chg_now_ns();
        cl_event ev;
        if (chg_gemm_enqueue(&a, d->q[Q_KERNEL], 0, NULL, &ev) != CLHGEMM_SUCCESS) break;
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
        double t = seconds_since(t0);
        if (r > 0) best = CHG_MAX(best, 2.0 * n * n * n / t);
    }
    clFinish(d->q[Q_KERNEL]);
    clReleaseMemObject(m);
    if (best > 0) d->rate[prec] = best;
}

/* ---- plan --------------------------------------------------------------------------------- */

typedef struct plan_s {
    size_t bm, bn, bk;     /* tile extents */
    size_t mt, nt, kt;     /* tiles along m, n and k slices */
    int band;              /* keep the packed A band of a tile row resident */
    double predicted;      /* model time (s) */
} plan_t;

typedef struct pctx_s {
    size_t m, n, k, es;
    int beta_zero;
    size_t tile_m, tile_n, tile_k;  /* kernel tile multiples */
    unsigned long long mem;         /* smallest device budget */
    unsigned long long max_alloc;
    double rate, h2d, d2h, pack;    /* totals over devices for rate/h2d/d2h; pack shared */
    double step_cost;               /* fixed cost of one k step (launches, copies' latency) */
    unsigned cus;                   /* fewest compute units of the devices */
    int ndev;
} pctx_t;

/* Device bytes of a plan (per device). */
static unsigned long long plan_mem(const pctx_t *c, size_t bm, size_t bn, size_t bk, int band,
                                   unsigned long long *largest)
{
    const size_t bmp = chg_round_up(bm, c->tile_m), bnp = chg_round_up(bn, c->tile_n),
                 bkp = chg_round_up(bk, c->tile_k);
    const size_t kt = (c->k + bk - 1) / bk;
    unsigned long long araw = (unsigned long long)bm * bk * c->es,
                       apack = (unsigned long long)bmp * bkp * c->es * (band ? kt : 2),
                       braw = (unsigned long long)bk * bn * c->es,
                       bpack = (unsigned long long)bkp * bnp * c->es,
                       cdev = (unsigned long long)bm * bn * c->es,
                       cp = (unsigned long long)bmp * bnp * c->es;
    unsigned long long big = CHG_MAX(CHG_MAX(araw, band ? apack : apack / 2), CHG_MAX(CHG_MAX(braw, bpack), CHG_MAX(cdev, cp)));
    if (largest) *largest = big;
    return 2 * araw + apack + 2 * braw + 2 * bpack + 2 * cdev + 2 * cp;
}

static double plan_time(const pctx_t *c, size_t bm, size_t bn, size_t bk, int band)
{
    const double s = (double)c->es, m = (double)c->m, n = (double)c->n, k = (double)c->k;
    const double mt = ceil(m / bm), nt = ceil(n / bn);
    /* Wave quantisation: a kernel over a tile runs in rounds of (compute units x 2) work-groups
     * (two resident per unit for the default GPU kernels); the last round may be partly idle,
     * and a tile smaller than one round leaves the device partly idle throughout. */
    const double wgs = ceil((double)bm / c->tile_m) * ceil((double)bn / c->tile_n);
    const double round_wgs = 2.0 * c->cus;
    const double fill = wgs / (ceil(wgs / round_wgs) * round_wgs);
    const double compute = 2.0 * m * n * k / c->rate / fill;
    /* A: once per band per device with band reuse (bands are shared among devices but each
     * device touches roughly mt/ndev of them... at least once each), else once per tile. */
    const double a_bytes = band ? s * m * k * CHG_MIN((double)c->ndev, nt) : s * m * k * nt;
    const double b_bytes = s * k * n * mt;
    const double cin = c->beta_zero ? 0.0 : s * m * n, cout = s * m * n;
    const double h2d = (a_bytes + b_bytes + cin) / c->h2d, d2h = cout / c->d2h;
    const double pack = (a_bytes + b_bytes + cin + cout) / c->pack;
    double steady = CHG_MAX(CHG_MAX(compute, h2d), CHG_MAX(d2h, pack));
    /* Fill: the first slice's panels; drain: the last tile's write-back copy and unpack. */
    const double first = s * bk * (bm + bn) * (1.0 / c->h2d * c->ndev + 1.0 / c->pack);
    const double last = s * bm * bn * (1.0 / c->d2h * c->ndev + 1.0 / c->pack);
    /* Imbalance: the last round of tiles may leave devices idle for up to one tile. */
    const double tiles = mt * nt, per_tile = compute / tiles * c->ndev;
    const double imbalance = c->ndev > 1 ? per_tile * 0.5 : 0.0;
    const double steps = tiles * ceil(k / bk);
    return steady + first + last + imbalance + steps * c->step_cost / c->ndev;
}

/* Candidate extents along one dimension: multiples of the kernel tile of the forms 2^i and
 * 3*2^i, and the whole (padded) extent. */
static size_t candidates(size_t tile, size_t full, size_t *out, size_t cap)
{
    size_t n = 0;
    for (size_t b = tile; b < full && n + 2 < cap; b *= 2) {
        out[n++] = b;
        if (b * 3 / 2 < full && b * 3 / 2 % tile == 0) out[n++] = b * 3 / 2;
    }
    out[n++] = full;
    return n;
}

static int make_plan(const pctx_t *c, plan_t *out)
{
    int found = 0;
    double best = INFINITY;
    size_t cm[64], cn[64], ck[64];
    const size_t nm = candidates(c->tile_m, chg_round_up(c->m, c->tile_m), cm, 64);
    const size_t nn = candidates(c->tile_n, chg_round_up(c->n, c->tile_n), cn, 64);
    const size_t nk = candidates(c->tile_k, chg_round_up(c->k, c->tile_k), ck, 64);
    for (size_t im = 0; im < nm; im++)
        for (size_t in = 0; in < nn; in++)
            for (size_t ik = 0; ik < nk; ik++)
                for (int band = 1; band >= 0; band--) {
                    const size_t bm = cm[im], bn = cn[in], bk = ck[ik];
                    unsigned long long largest;
                    if (plan_mem(c, bm, bn, bk, band, &largest) > c->mem || largest > c->max_alloc)
                        continue;
                    /* 32-bit indices in the kernels' workspace. */
                    if ((unsigned long long)bm * bn >= (1ull << 31)) continue;
                    const double t = plan_time(c, bm, bn, bk, band);
                    if (t < best * 0.999) {
                        best = t;
                        *out = (plan_t){bm, bn, bk, (c->m + bm - 1) / bm, (c->n + bn - 1) / bn,
                                        (c->k + bk - 1) / bk, band, t};
                        found = 1;
                    }
                }
    return found;
}

/* ---- one call ----------------------------------------------------------------------------- */

typedef struct call_s {
    clhgemm_handle_t h;
    chg_precision_t prec;
    size_t es;
    int ta, tb;                 /* column-major view */
    size_t m, n, k;
    double alpha, beta;
    const char *a, *b;          /* user memory (column-major view) */
    char *c;
    size_t lda, ldb, ldc;
    plan_t pl;
    /* shared work queue */
    pthread_mutex_t mu;
    size_t next_tile, ntiles;
    clhgemm_status_t status;    /* first error */
    chg_trace_t *trace;
    double bytes_h2d, bytes_d2h;
    int devices_used;
} call_t;

/* Tile t in snake order: bands of rows, alternating direction along n. */
static void tile_coords(const call_t *c, size_t t, size_t *ti, size_t *tj)
{
    const size_t nt = c->pl.nt;
    *ti = t / nt;
    const size_t r = t % nt;
    *tj = (*ti % 2 == 0) ? r : nt - 1 - r;
}

static int take_tile(call_t *c, size_t *t)
{
    pthread_mutex_lock(&c->mu);
    int ok = c->status == CLHGEMM_SUCCESS && c->next_tile < c->ntiles;
    if (ok) *t = c->next_tile++;
    pthread_mutex_unlock(&c->mu);
    return ok;
}

static void set_error(call_t *c, clhgemm_status_t st)
{
    pthread_mutex_lock(&c->mu);
    if (c->status == CLHGEMM_SUCCESS) c->status = st;
    pthread_mutex_unlock(&c->mu);
}

/* Buffers of a device for this plan; grown (never shrunk) across calls. */
static cl_int reserve(hdev_t *d, int which, size_t bytes, int slots)
{
    if (d->buf_bytes[which] >= bytes && d->buf_slots[which] >= slots) return CL_SUCCESS;
    for (int s = 0; s < 2; s++) {
        if (d->buf[which][s]) clReleaseMemObject(d->buf[which][s]);
        d->buf[which][s] = NULL;
    }
    d->buf_bytes[which] = 0;
    d->buf_slots[which] = 0;
    cl_int err = CL_SUCCESS;
    for (int s = 0; s < slots && err == CL_SUCCESS; s++) d->buf[which][s] = dev_alloc(d->ctx, bytes, &err);
    if (err != CL_SUCCESS) {
        for (int s = 0; s < 2; s++) {
            if (d->buf[which][s]) clReleaseMemObject(d->buf[which][s]);
            d->buf[which][s] = NULL;
        }
        return err;
    }
    d->buf_bytes[which] = bytes;
    d->buf_slots[which] = slots;
    return CL_SUCCESS;
}

static cl_int reserve_pinned(hdev_t *d, pinned_t st[2], size_t bytes)
{
    cl_int err = CL_SUCCESS;
    for (int s = 0; s < 2 && err == CL_SUCCESS; s++) {
        if (st[s].buf && st[s].bytes >= bytes) continue;
        pinned_free(d->q[Q_H2D], &st[s]);
        err = pinned_alloc(d->ctx, d->q[Q_H2D], bytes, &st[s]);
    }
    return err;
}

static cl_int prepare_device(call_t *c, hdev_t *d, const chg_gemm_params_t *g)
{
    const plan_t *p = &c->pl;
    const size_t es = c->es;
    const size_t bmp = chg_round_up(p->bm, g->mwg), bnp = chg_round_up(p->bn, g->nwg),
                 bkp = chg_round_up(p->bk, g->kwg);
    cl_int err = reserve(d, B_ARAW, p->bm * p->bk * es, 2);
    if (err == CL_SUCCESS) err = reserve(d, B_APACK, bmp * bkp * es * (p->band ? p->kt : 2), 1);
    if (err == CL_SUCCESS) err = reserve(d, B_BRAW, p->bk * p->bn * es, 2);
    if (err == CL_SUCCESS) err = reserve(d, B_BPACK, bkp * bnp * es, 2);
    if (err == CL_SUCCESS) err = reserve(d, B_CDEV, p->bm * p->bn * es, 2);
    if (err == CL_SUCCESS) err = reserve(d, B_CP, bmp * bnp * es, 2);
    if (err == CL_SUCCESS) err = reserve_pinned(d, d->st_a, p->bm * p->bk * es);
    if (err == CL_SUCCESS) err = reserve_pinned(d, d->st_b, p->bk * p->bn * es);
    if (err == CL_SUCCESS) err = reserve_pinned(d, d->st_c, p->bm * p->bn * es);
    return err;
}

static void ev_release(cl_event *e)
{
    if (*e) clReleaseEvent(*e);
    *e = NULL;
}

static cl_int ev_wait(cl_event *e)
{
    if (!*e) return CL_SUCCESS;
    cl_int err = clWaitForEvents(1, e);
    cl_int st;
    if (err == CL_SUCCESS &&
        clGetEventInfo(*e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) == CL_SUCCESS &&
        st < 0)
        err = st;
    ev_release(e);
    return err;
}

/* Adds an event to a small wait list if present. */
static cl_uint wl_add(cl_event *wl, cl_uint n, cl_event e)
{
    if (e) wl[n++] = e;
    return n;
}

typedef struct pending_s {
    int valid;
    size_t i0, j0, mc, nc;
    cl_event d2h;
} pending_t;

typedef struct driver_s {
    call_t *c;
    hdev_t *d;
    clhgemm_status_t status;
    pthread_t th;
} driver_t;

static void trace_dev(call_t *c, hdev_t *d, int q, const char *name, cl_event ev)
{
    if (!c->trace || !ev) return;
    static const char *qn[] = {"h2d", "kernel", "d2h"};
    char track[48];
    snprintf(track, sizeof track, "dev%d %s", d->index, q < 3 ? qn[q] : "queue");
    chg_trace_device(c->trace, d->index, track, name, ev);
}

/* Writes back a finished tile from staging into the user's C. */
static cl_int unpack(call_t *c, hdev_t *d, pending_t *p, int slot)
{
    if (!p->valid) return CL_SUCCESS;
    cl_int err = ev_wait(&p->d2h);
    if (err == CL_SUCCESS)
        copy2d(c->h->pool, c->c + (p->i0 + p->j0 * c->ldc) * c->es, c->ldc, d->st_c[slot].ptr, p->mc,
               p->mc, p->nc, c->es, c->trace, "unpack C");
    p->valid = 0;
    return err;
}

static clhgemm_status_t drive(call_t *c, hdev_t *d)
{
    const plan_t *pl = &c->pl;
    const size_t es = c->es;
    chg_gemm_params_t gp;
    chg_gemm_params_select(&d->dev, c->prec, &gp);
    chg_gemm_kernels_t ks;
    clhgemm_status_t st = chg_gemm_kernels_create(d->ctx, &d->dev, c->prec, &gp, c->ta, c->tb,
                                                  c->beta == 0.0, &ks);
    if (st != CLHGEMM_SUCCESS) return st;
    cl_int err = prepare_device(c, d, &gp);
    if (err != CL_SUCCESS) {
        chg_gemm_kernels_release(&ks);
        return (clhgemm_status_t)err;
    }
    chg_trace_align(c->trace, d->index, d->q[Q_KERNEL]);
    cl_command_queue qh = d->q[Q_H2D], qk = d->q[Q_KERNEL], qd = d->q[Q_D2H];
    const size_t bmp = chg_round_up(pl->bm, gp.mwg), bkp = chg_round_up(pl->bk, gp.kwg);
    const size_t aregion = bmp * bkp;  /* elements per packed A slice region */

    /* Events guarding reuse of double-buffered resources. */
    cl_event a_h2d[2] = {0}, a_pack[2] = {0}, b_h2d[2] = {0}, b_pack[2] = {0}, c_in = NULL;
    pending_t pend[2] = {{0}};
    size_t band_i = (size_t)-1;       /* tile row whose A slices are resident (band mode) */
    size_t aloads = 0, bloads = 0, ntile = 0;
    double h2d_bytes = 0, d2h_bytes = 0;
    size_t t;
    while (err == CL_SUCCESS && take_tile(c, &t)) {
        size_t ti, tj;
        tile_coords(c, t, &ti, &tj);
        const size_t i0 = ti * pl->bm, j0 = tj * pl->bn;
        const size_t mc = CHG_MIN(pl->bm, c->m - i0), nc = CHG_MIN(pl->bn, c->n - j0);
        const size_t mpad = chg_round_up(mc, gp.mwg), npad = chg_round_up(nc, gp.nwg);
        const int slot = (int)(ntile++ % 2);

        /* The C slot's previous tile must be home before its staging and device buffer are
         * reused. */
        err = unpack(c, d, &pend[slot], slot);
        if (err != CL_SUCCESS) break;
        ev_release(&c_in);
        if (c->beta != 0.0) {
            copy2d(c->h->pool, d->st_c[slot].ptr, mc, c->c + (i0 + j0 * c->ldc) * es, c->ldc, mc, nc,
                   es, c->trace, "pack C");
            err = clEnqueueWriteBuffer(qh, d->buf[B_CDEV][slot], CL_FALSE, 0, mc * nc * es,
                                       d->st_c[slot].ptr, 0, NULL, &c_in);
            if (err != CL_SUCCESS) break;
            trace_dev(c, d, Q_H2D, "C tile", c_in);
            h2d_bytes += (double)mc * nc * es;
        }

        const int reuse_band = pl->band && band_i == ti;
        for (size_t s = 0; s < pl->kt && err == CL_SUCCESS; s++) {
            const size_t p0 = s * pl->bk, kc = CHG_MIN(pl->bk, c->k - p0), kpad = chg_round_up(kc, gp.kwg);
            size_t aoff;
            cl_event wl[4];
            cl_uint nw;
            if (reuse_band) {
                aoff = s * aregion;
            } else {
                const int r = (int)(aloads++ % 2);
                aoff = (pl->band ? s : (size_t)r) * aregion;
                /* Staging r is free once its previous copy finished. */
                if ((err = ev_wait(&a_h2d[r])) != CL_SUCCESS) break;
                const size_t rows = c->ta ? kc : mc, cols = c->ta ? mc : kc;
                const char *src = c->ta ? c->a + (p0 + i0 * c->lda) * es : c->a + (i0 + p0 * c->lda) * es;
                copy2d(c->h->pool, d->st_a[r].ptr, rows, src, c->lda, rows, cols, es, c->trace, "pack A");
                nw = wl_add(wl, 0, a_pack[r]);  /* device raw buffer r no longer being packed */
                err = clEnqueueWriteBuffer(qh, d->buf[B_ARAW][r], CL_FALSE, 0, rows * cols * es,
                                           d->st_a[r].ptr, nw, nw ? wl : NULL, &a_h2d[r]);
                if (err != CL_SUCCESS) break;
                trace_dev(c, d, Q_H2D, "A slice", a_h2d[r]);
                h2d_bytes += (double)rows * cols * es;
                ev_release(&a_pack[r]);
                err = chg_enqueue_pack_a(qk, &ks, mc, kc, d->buf[B_ARAW][r], 0, rows,
                                         d->buf[B_APACK][0], aoff, 1, &a_h2d[r], &a_pack[r]);
                if (err != CL_SUCCESS) break;
                trace_dev(c, d, Q_KERNEL, "pack A", a_pack[r]);
            }
            {
                const int r = (int)(bloads++ % 2);
                if ((err = ev_wait(&b_h2d[r])) != CL_SUCCESS) break;
                const size_t rows = c->tb ? nc : kc, cols = c->tb ? kc : nc;
                const char *src = c->tb ? c->b + (j0 + p0 * c->ldb) * es : c->b + (p0 + j0 * c->ldb) * es;
                copy2d(c->h->pool, d->st_b[r].ptr, rows, src, c->ldb, rows, cols, es, c->trace, "pack B");
                nw = wl_add(wl, 0, b_pack[r]);
                err = clEnqueueWriteBuffer(qh, d->buf[B_BRAW][r], CL_FALSE, 0, rows * cols * es,
                                           d->st_b[r].ptr, nw, nw ? wl : NULL, &b_h2d[r]);
                if (err != CL_SUCCESS) break;
                trace_dev(c, d, Q_H2D, "B slice", b_h2d[r]);
                h2d_bytes += (double)rows * cols * es;
                ev_release(&b_pack[r]);
                err = chg_enqueue_pack_b(qk, &ks, nc, kc, d->buf[B_BRAW][r], 0, rows,
                                         d->buf[B_BPACK][r], 0, 1, &b_h2d[r], &b_pack[r]);
                if (err != CL_SUCCESS) break;
                trace_dev(c, d, Q_KERNEL, "pack B", b_pack[r]);
                cl_event kev = NULL;
                err = chg_enqueue_kernel(qk, &ks, mpad, npad, kpad, d->buf[B_APACK][0], aoff,
                                         d->buf[B_BPACK][r], 0, d->buf[B_CP][slot], s > 0, 0, NULL,
                                         c->trace ? &kev : NULL);
                if (err != CL_SUCCESS) break;
                trace_dev(c, d, Q_KERNEL, "gemm", kev);
                ev_release(&kev);
            }
            clFlush(qh);
            clFlush(qk);
        }
        if (err != CL_SUCCESS) break;
        if (pl->band) band_i = ti;

        /* Write-back on the device, then home. */
        cl_event wb = NULL;
        err = chg_enqueue_writeback(qk, &ks, mc, nc, c->alpha, c->beta, d->buf[B_CP][slot], mpad,
                                    d->buf[B_CDEV][slot], 0, mc, c_in ? 1 : 0, c_in ? &c_in : NULL, &wb);
        if (err != CL_SUCCESS) break;
        trace_dev(c, d, Q_KERNEL, "write-back", wb);
        err = clEnqueueReadBuffer(qd, d->buf[B_CDEV][slot], CL_FALSE, 0, mc * nc * es,
                                  d->st_c[slot].ptr, 1, &wb, &pend[slot].d2h);
        ev_release(&wb);
        if (err != CL_SUCCESS) break;
        trace_dev(c, d, Q_D2H, "C tile", pend[slot].d2h);
        d2h_bytes += (double)mc * nc * es;
        pend[slot].valid = 1;
        pend[slot].i0 = i0;
        pend[slot].j0 = j0;
        pend[slot].mc = mc;
        pend[slot].nc = nc;
        clFlush(qk);
        clFlush(qd);
        /* Bring the previous tile home while this one computes. */
        err = unpack(c, d, &pend[slot ^ 1], slot ^ 1);
    }
    /* Drain: results of tiles already computed still go home (unless the device failed). */
    for (int k = 0; k < 2; k++) {
        const int s = (int)((ntile + k) % 2);
        if (err == CL_SUCCESS) err = unpack(c, d, &pend[s], s);
    }
    for (int q = 0; q < d->nq; q++) clFinish(d->q[q]);
    for (int r = 0; r < 2; r++) {
        ev_release(&a_h2d[r]);
        ev_release(&a_pack[r]);
        ev_release(&b_h2d[r]);
        ev_release(&b_pack[r]);
        ev_release(&pend[r].d2h);
    }
    ev_release(&c_in);
    chg_gemm_kernels_release(&ks);
    pthread_mutex_lock(&c->mu);
    c->bytes_h2d += h2d_bytes;
    c->bytes_d2h += d2h_bytes;
    if (ntile) c->devices_used++;
    pthread_mutex_unlock(&c->mu);
    return (clhgemm_status_t)err;
}

static void *driver_main(void *arg)
{
    driver_t *dr = arg;
    dr->status = drive(dr->c, dr->d);
    if (dr->status != CLHGEMM_SUCCESS) set_error(dr->c, dr->status);
    return NULL;
}

static clhgemm_status_t host_gemm(clhgemm_handle_t h, chg_precision_t prec, clhgemm_layout_t layout,
                                  clhgemm_transpose_t transA, clhgemm_transpose_t transB, int m,
                                  int n, int k, double alpha, const void *A, int lda, const void *B,
                                  int ldb, double beta, void *C, int ldc)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_shape_t sh;
    clhgemm_status_t st = chg_gemm_check_shape(layout, transA, transB, m, n, k, lda, ldb, ldc, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    const int touch_c = m > 0 && n > 0, read_ab = touch_c && k > 0 && alpha != 0.0;
    if (read_ab && !A) return CLHGEMM_NULL_BUFFER_A;
    if (read_ab && !B) return CLHGEMM_NULL_BUFFER_B;
    if (touch_c && !C) return CLHGEMM_NULL_BUFFER_C;
    if (prec == CHG_F64)
        for (int i = 0; i < h->ndev; i++)
            if (!(h->devs[i].dev.features & CHG_FEAT_FP64)) return CLHGEMM_FP64_NOT_SUPPORTED;
    if (!touch_c) return CLHGEMM_SUCCESS;

    const size_t es = chg_elem_size(prec);
    call_t c = {.h = h, .prec = prec, .es = es, .alpha = alpha, .beta = beta, .c = C,
                .ldc = (size_t)ldc, .k = (size_t)k, .status = CLHGEMM_SUCCESS};
    if (sh.col) {
        c.m = (size_t)m; c.n = (size_t)n; c.ta = sh.ta; c.tb = sh.tb;
        c.a = A; c.lda = (size_t)lda; c.b = B; c.ldb = (size_t)ldb;
    } else {
        c.m = (size_t)n; c.n = (size_t)m; c.ta = sh.tb; c.tb = sh.ta;
        c.a = B; c.lda = (size_t)ldb; c.b = A; c.ldb = (size_t)lda;
    }

    /* k == 0 or alpha == 0: C := beta*C on the host (no device can beat one pass). */
    if (!read_ab) {
        char *cc = C;
        for (size_t j = 0; j < c.n; j++) {
            char *col = cc + j * c.ldc * es;
            for (size_t i = 0; i < c.m; i++) {
                if (prec == CHG_F64) {
                    double *x = (double *)col + i;
                    *x = beta == 0.0 ? 0.0 : beta * *x;
                } else {
                    float *x = (float *)col + i;
                    *x = beta == 0.0 ? 0.0f : (float)(beta * *x);
                }
            }
        }
        return CLHGEMM_SUCCESS;
    }

    pthread_mutex_lock(&h->call_lock);
    unsigned long long t0 = chg_now_ns();
    /* Plan for the slowest common denominator of the devices. */
    pctx_t pc = {.m = c.m, .n = c.n, .k = c.k, .es = es, .beta_zero = beta == 0.0,
                 .mem = ~0ull, .max_alloc = ~0ull, .ndev = h->ndev, .pack = h->pack_bps};
    pc.tile_m = pc.tile_n = pc.tile_k = 1;
    pc.cus = ~0u;
    pc.step_cost = 0;
    double min_h2d = INFINITY, min_d2h = INFINITY;
    for (int i = 0; i < h->ndev; i++) {
        hdev_t *d = &h->devs[i];
        chg_gemm_params_t gp;
        chg_gemm_params_select(&d->dev, prec, &gp);
        pc.tile_m = CHG_MAX(pc.tile_m, (size_t)gp.mwg);
        pc.tile_n = CHG_MAX(pc.tile_n, (size_t)gp.nwg);
        pc.tile_k = CHG_MAX(pc.tile_k, (size_t)gp.kwg);
        pc.mem = CHG_MIN(pc.mem, d->mem_limit);
        pc.cus = CHG_MIN(pc.cus, CHG_MAX(1u, d->dev.info.compute_units));
        /* Four to six commands per step; CPU devices pay more per command. */
        pc.step_cost = CHG_MAX(pc.step_cost, (d->dev.features & CHG_FEAT_GPU) ? 60e-6 : 300e-6);
        pc.max_alloc = CHG_MIN(pc.max_alloc, d->dev.info.max_alloc_bytes);
        measure_rate(d, prec);
        pc.rate += d->rate[prec];
        min_h2d = CHG_MIN(min_h2d, d->h2d_bps);
        min_d2h = CHG_MIN(min_d2h, d->d2h_bps);
    }
    /* The pack threads share host memory bandwidth with the DMA engines while the pipeline
     * runs: traces on an H100 machine showed about 60% of the copy rate measured alone. */
    pc.pack = h->pack_bps * 0.6;
    pc.h2d = min_h2d * h->ndev;
    pc.d2h = min_d2h * h->ndev;
    /* Forced shape for experiments: CLHGEMM_TILE=bm,bn,bk */
    const char *forced = chg_getenv("CLHGEMM_TILE");
    int ok = 0;
    if (forced) {
        unsigned long bm = 0, bn = 0, bk = 0;
        if (sscanf(forced, "%lu,%lu,%lu", &bm, &bn, &bk) == 3 && bm && bn && bk) {
            bm = CHG_MIN(bm, c.m); bn = CHG_MIN(bn, c.n); bk = CHG_MIN(bk, c.k);
            c.pl = (plan_t){bm, bn, bk, (c.m + bm - 1) / bm, (c.n + bn - 1) / bn, (c.k + bk - 1) / bk, 0, 0};
            unsigned long long largest;
            c.pl.band = plan_mem(&pc, bm, bn, bk, 1, &largest) <= pc.mem && largest <= pc.max_alloc;
            c.pl.predicted = plan_time(&pc, bm, bn, bk, c.pl.band);
            ok = 1;
        }
    }
    if (!ok) ok = make_plan(&pc, &c.pl);
    if (!ok) {
        pthread_mutex_unlock(&h->call_lock);
        return CLHGEMM_WORKSPACE_TOO_SMALL;
    }
    chg_log(1, "plan %s m=%zu n=%zu k=%zu on %d device(s): tiles %zux%zu, k slices %zu (%zux%zu tiles x %zu slices), "
               "A band %s; model %.3f s (rate %.1f GFLOP/s, h2d %.1f GB/s, d2h %.1f GB/s, pack %.1f GB/s)",
            prec == CHG_F64 ? "dgemm" : "sgemm", c.m, c.n, c.k, h->ndev, c.pl.bm, c.pl.bn, c.pl.bk, c.pl.mt,
            c.pl.nt, c.pl.kt, c.pl.band ? "resident" : "streamed", c.pl.predicted, pc.rate * 1e-9,
            pc.h2d * 1e-9, pc.d2h * 1e-9, pc.pack * 1e-9);

    c.ntiles = c.pl.mt * c.pl.nt;
    pthread_mutex_init(&c.mu, NULL);
    c.trace = chg_trace_begin(h->trace_path);
    /* One driver thread per device; the caller drives device 0. */
    driver_t *drs = calloc((size_t)h->ndev, sizeof *drs);
    if (!drs) {
        pthread_mutex_destroy(&c.mu);
        chg_trace_end(c.trace);
        pthread_mutex_unlock(&h->call_lock);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    for (int i = 1; i < h->ndev; i++) {
        drs[i] = (driver_t){.c = &c, .d = &h->devs[i]};
        if (pthread_create(&drs[i].th, NULL, driver_main, &drs[i]) != 0)
            drs[i].d = NULL;  /* the others take its tiles */
    }
    drs[0] = (driver_t){.c = &c, .d = &h->devs[0]};
    driver_main(&drs[0]);
    for (int i = 1; i < h->ndev; i++)
        if (drs[i].d) pthread_join(drs[i].th, NULL);
    free(drs);
    st = c.status;
    if (chg_trace_end(c.trace) != 0) chg_log(1, "could not write the trace %s", h->trace_path);
    h->last = (clhgemm_call_info_t){.devices_used = c.devices_used, .tiles = (long long)c.ntiles,
                                    .tile_m = (int)c.pl.bm, .tile_n = (int)c.pl.bn,
                                    .tile_k = (int)c.pl.bk, .seconds = seconds_since(t0),
                                    .bytes_to_device = c.bytes_h2d, .bytes_from_device = c.bytes_d2h};
    chg_log(1, "done in %.3f s: %.1f GFLOP/s, %.2f GB to devices, %.2f GB back", h->last.seconds,
            2.0 * c.m * c.n * c.k / h->last.seconds * 1e-9, c.bytes_h2d * 1e-9, c.bytes_d2h * 1e-9);
    pthread_mutex_destroy(&c.mu);
    pthread_mutex_unlock(&h->call_lock);
    return st;
}

CLHGEMM_API clhgemm_status_t clhgemm_sgemm(clhgemm_handle_t h, clhgemm_layout_t layout,
                                           clhgemm_transpose_t transA, clhgemm_transpose_t transB,
                                           int m, int n, int k, float alpha, const float *A,
                                           int lda, const float *B, int ldb, float beta, float *C,
                                           int ldc)
{
    return host_gemm(h, CHG_F32, layout, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

CLHGEMM_API clhgemm_status_t clhgemm_dgemm(clhgemm_handle_t h, clhgemm_layout_t layout,
                                           clhgemm_transpose_t transA, clhgemm_transpose_t transB,
                                           int m, int n, int k, double alpha, const double *A,
                                           int lda, const double *B, int ldb, double beta,
                                           double *C, int ldc)
{
    return host_gemm(h, CHG_F64, layout, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
