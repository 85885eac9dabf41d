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
 * SYMM, SYRK, SYR2K and TRMM (host_l3, at the end) run through the same pipeline with a
 * chg_struct_t (gemm.h): the slice staging copies only what the structured device packs read
 * (stage_geometry: a symmetric operand's stored triangle, a triangular one's non-zero box),
 * chg_enqueue_pack_{a,b}_struct lay it out, the kernel and write-back are the _at variants
 * (TRIANGLE / KLIMIT / masked), C tiles of SYRK/SYR2K travel through a triangle mask and only
 * the tiles touching the triangle are scheduled; SYR2K is one product over k' = 2k (slice_of);
 * TRMM is in place with tiles spanning B's independent direction (run_call says why it is safe).
 *
 * Test hook: CLHGEMM_FAULT_ALLOC=N makes the N-th device or pinned allocation of the process's
 * pipelines fail with CL_MEM_OBJECT_ALLOCATION_FAILURE.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define CHG_HAVE_STREAM_STORES 1
#endif
#include "cpu/cpushare.h"
#include "core/level3.h"
#include "host/pool.h"
#include "base/trace.h"
#include "tuning/tuning.h"

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

/* Device buffers of a call, by role. Slot counts: the A and B slice rings (raw copies from
 * staging) have NSTAGE slots; the packed B slice and Cp one each (the kernel queue is in order,
 * so the next slice's pack runs after the previous kernel); the packed A band one per band
 * buffer (two when the next band is prefetched); the compact C tile two (one tile's device-to-
 * host copy overlaps the next tile's input copy and write-back). */
#define NSTAGE 3  /* depth of the A/B slice rings: the driver runs up to this far ahead */
#define NCHUNK 8  /* C tile copies and unpacks are split into up to this many column chunks */
#define NOUT 3    /* C tiles on their way home at once (pinned staging slots) */
enum { B_ARAW, B_BRAW, B_BPACK, B_APACK, B_CDEV, B_CP, B_COUNT };

typedef struct hdev_s {
    int index;
    chg_device_t dev;
    cl_context ctx;
    cl_command_queue q[MAX_QUEUES];
    int nq;
    unsigned long long mem_limit;
    double h2d_bps, d2h_bps;   /* measured pinned bandwidths */
    double dev_bps;            /* measured device memory traffic rate (copy: read + write) */
    double rate[2];            /* measured kernel rate per precision (flop/s), 0 = not yet */
    /* Per-call resources (kept between calls while large enough). */
    cl_mem buf[B_COUNT][NSTAGE];
    size_t buf_bytes[B_COUNT];
    int buf_slots[B_COUNT];
    pinned_t st_a[NSTAGE], st_b[NSTAGE]; /* slice staging rings */
    pinned_t st_cin;                      /* C tile on its way in (beta != 0) */
    pinned_t st_cout[NOUT];               /* C tiles on their way home */
} hdev_t;

enum { CPU_OFF = 0, CPU_AUTO = 1, CPU_FIXED = 2 };
enum { CPU_SLAB = 0, CPU_STRIPS = 1 };

struct clhgemm_handle_s {
    int ndev;
    hdev_t *devs;
    chg_pool_t *pool;
    double pack_bps;           /* measured CPU copy rate into pinned staging */
    double pack_seen_bps;      /* what the pack threads reached in the last large call, 0: none */
    size_t last_bm, last_bn, last_bk; /* the last plan's tile (0: none), kept while about as good */
    int last_amode;
    /* CPU share (cpushare.c): mode, fixed fraction, scheduler, OpenBLAS threads, and the
     * slowdown the share causes the pipeline (seed 004's gamma) */
    int cpu_mode;              /* CPU_OFF, CPU_AUTO, CPU_FIXED */
    double cpu_fixed;
    int cpu_sched;             /* CPU_SLAB or CPU_STRIPS */
    int cpu_threads;
    double cpu_gamma;
    char *trace_path;
    pthread_mutex_t call_lock; /* one call at a time per handle */
    clhgemm_call_info_t last;
};

static void hdev_free_buffers(hdev_t *d)
{
    for (int b = 0; b < B_COUNT; b++) {
        for (int s = 0; s < NSTAGE; s++) {
            if (d->buf[b][s]) clReleaseMemObject(d->buf[b][s]);
            d->buf[b][s] = NULL;
        }
        d->buf_bytes[b] = 0;
        d->buf_slots[b] = 0;
    }
    for (int s = 0; s < NSTAGE; s++) {
        pinned_free(d->q[Q_H2D], &d->st_a[s]);
        pinned_free(d->q[Q_H2D], &d->st_b[s]);
    }
    pinned_free(d->q[Q_H2D], &d->st_cin);
    for (int s = 0; s < NOUT; s++) pinned_free(d->q[Q_H2D], &d->st_cout[s]);
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
    /* Device memory traffic (the planner's cost of pack kernels and of Cp accumulation). */
    double best_c = 0;
    cl_int err2 = CL_SUCCESS;
    cl_mem m2 = err == CL_SUCCESS ? dev_alloc(d->ctx, bytes, &err2) : NULL;
    for (int r = 0; r < 3 && err == CL_SUCCESS && err2 == CL_SUCCESS; r++) {
        unsigned long long t0 = chg_now_ns();
        cl_event ev;
        err2 = clEnqueueCopyBuffer(d->q[Q_KERNEL], m, m2, 0, 0, bytes, 0, NULL, &ev);
        if (err2 != CL_SUCCESS) break;
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
        const double t = seconds_since(t0);
        if (r > 0) best_c = CHG_MAX(best_c, 2.0 * bytes / t);
    }
    if (m2) clReleaseMemObject(m2);
    clReleaseMemObject(m);
    pinned_free(d->q[Q_H2D], &p);
    d->h2d_bps = best_h > 0 ? best_h : 1e9;
    d->d2h_bps = best_d > 0 ? best_d : 1e9;
    d->dev_bps = best_c > 0 ? best_c : 20.0 * d->h2d_bps;
    return err;
}

/* ---- CPU copies between user matrices and compact staging --------------------------------- */

/* The pack threads' copies (pageable -> pinned staging, staging -> the user's C) with
 * non-temporal stores on x86-64 (CLHGEMM_STREAM_COPY, default on; 0: memcpy): the destination
 * is read next by a DMA engine or by the caller much later, so streaming past the caches saves
 * the read-for-ownership of every destination line, a third of the host memory traffic of a
 * copy. Column copies of a few hundred KB stay below glibc's own non-temporal threshold. */
static atomic_int g_stream_copy = -1;

static int stream_copy_on(void)
{
    if (g_stream_copy < 0) {
        const char *v = chg_getenv("CLHGEMM_STREAM_COPY");
        g_stream_copy = !(v && !strcmp(v, "0"));
    }
    return g_stream_copy;
}

static void copy_run(char *dst, const char *src, size_t n, int nt)
{
#ifdef CHG_HAVE_STREAM_STORES
    if (nt && n >= 256) {
        const size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
        memcpy(dst, src, head);
        dst += head, src += head, n -= head;
        const size_t blocks = n / 64;
        for (size_t b = 0; b < blocks; b++, dst += 64, src += 64) {
            const __m128i x0 = _mm_loadu_si128((const __m128i *)src);
            const __m128i x1 = _mm_loadu_si128((const __m128i *)(src + 16));
            const __m128i x2 = _mm_loadu_si128((const __m128i *)(src + 32));
            const __m128i x3 = _mm_loadu_si128((const __m128i *)(src + 48));
            _mm_stream_si128((__m128i *)dst, x0);
            _mm_stream_si128((__m128i *)(dst + 16), x1);
            _mm_stream_si128((__m128i *)(dst + 32), x2);
            _mm_stream_si128((__m128i *)(dst + 48), x3);
        }
        memcpy(dst, src, n - blocks * 64);
        return;
    }
#endif
    (void)nt;
    memcpy(dst, src, n);
}

/* After a thread's streaming stores: make them visible before the copy is reported done (the
 * staging is then handed to a DMA engine). */
static void copy_fence(int nt)
{
#ifdef CHG_HAVE_STREAM_STORES
    if (nt) _mm_sfence();
#endif
    (void)nt;
}

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
    const int nt = stream_copy_on();
    if (c->cols >= (size_t)c->parts) {
        const size_t c0 = c->cols * part / c->parts, c1 = c->cols * (part + 1) / c->parts;
        for (size_t j = c0; j < c1; j++)
            copy_run(c->dst + j * c->dld * c->es, c->src + j * c->sld * c->es, c->rows * c->es, nt);
    } else {
        /* Few long columns: split each column's rows. */
        const size_t r0 = c->rows * part / c->parts, r1 = c->rows * (part + 1) / c->parts;
        for (size_t j = 0; j < c->cols; j++)
            copy_run(c->dst + (j * c->dld + r0) * c->es, c->src + (j * c->sld + r0) * c->es,
                     (r1 - r0) * c->es, nt);
    }
    copy_fence(nt);
}

/* Copies with the pool's threads, at most max_parts of them (0: all; the CPU share's core
 * budget leaves the pack threads the cores OpenBLAS does not use). */
static void copy2d_n(chg_pool_t *pool, int max_parts, void *dst, size_t dld, const void *src,
                     size_t sld, size_t rows, size_t cols, size_t es, chg_trace_t *tr, const char *name)
{
    copy2d_t c = {dst, src, rows, cols, dld, sld, es, 0};
    const size_t bytes = rows * cols * es;
    int parts = chg_pool_threads(pool);
    if (max_parts > 0) parts = CHG_MIN(parts, max_parts);
    if (bytes < (1u << 20)) parts = 1;  /* not worth waking anyone */
    c.parts = parts;
    chg_pool_run(pool, parts, copy2d_part, &c, tr, name);
}

static void copy2d(chg_pool_t *pool, void *dst, size_t dld, const void *src, size_t sld,
                   size_t rows, size_t cols, size_t es, chg_trace_t *tr, const char *name)
{
    copy2d_n(pool, 0, dst, dld, src, sld, rows, cols, es, tr, name);
}

/* The same restricted to one triangle (level-3 host calls): element (r, c) of the block is
 * copied only when its global row - column, r - c + diag, puts it in the triangle tri
 * (CHG_TRI_UPPER: <= 0, CHG_TRI_LOWER: >= 0; strict: the diagonal excluded too). Nothing
 * outside is read or written: it copies the stored triangle of a symmetric or triangular
 * operand into staging, and a SYRK/SYR2K C tile's triangle in and out of it. */
typedef struct mcopy_s {
    char *dst;
    const char *src;
    size_t rows, cols, dld, sld, es;
    long diag;
    int tri, strict, parts;
} mcopy_t;

/* Rows [*r0, *r1) of column c that lie in the triangle. */
static void mcopy_rows(const mcopy_t *m, size_t c, size_t *r0, size_t *r1)
{
    const long s = m->strict ? 1 : 0, x = (long)c - m->diag, rows = (long)m->rows;
    long lo = 0, hi = rows;
    if (m->tri == CHG_TRI_UPPER) hi = x - s + 1;
    else lo = x + s;
    lo = CHG_MAX(lo, 0L);
    hi = CHG_MIN(hi, rows);
    *r0 = (size_t)lo;
    *r1 = (size_t)CHG_MAX(hi, lo);
}

static void mcopy_part(void *arg, int part, int worker)
{
    (void)worker;
    const mcopy_t *m = arg;
    const int nt = stream_copy_on();
    const size_t c0 = m->cols * part / m->parts, c1 = m->cols * (part + 1) / m->parts;
    for (size_t j = c0; j < c1; j++) {
        size_t r0, r1;
        mcopy_rows(m, j, &r0, &r1);
        if (r1 > r0)
            copy_run(m->dst + (j * m->dld + r0) * m->es, m->src + (j * m->sld + r0) * m->es,
                     (r1 - r0) * m->es, nt);
    }
    copy_fence(nt);
}
/* The pack threads' copy rate from pageable memory into pinned staging (the planner's pack
 * rate), from large copies after a warm-up round (small ones measured mostly the threads'
 * wake-up, and varied by 2x between handles on the H100 machine). */
static void measure_pack(clhgemm_handle_t h)
{
    const int gpu = h->ndev > 0 && (h->devs[0].dev.features & CHG_FEAT_GPU);
    const size_t bytes = gpu ? (256u << 20) : (32u << 20);
    h->pack_bps = 10e9;
    char *src = malloc(bytes);
    pinned_t pin = {0};
    char *dst = NULL, *own = NULL;
    if (h->ndev > 0 && pinned_alloc(h->devs[0].ctx, h->devs[0].q[Q_H2D], bytes, &pin) == CL_SUCCESS)
        dst = pin.ptr;
    else
        dst = own = malloc(bytes);
    if (src && dst) {
        memset(src, 3, bytes);
        memset(dst, 0, bytes);
        double best = 0;
        for (int r = 0; r < 4; r++) {
            unsigned long long t0 = chg_now_ns();
            copy2d(h->pool, dst, 4096, src, 4096, 4096, bytes / 4096, 1, NULL, NULL);
            const double t = seconds_since(t0);
            if (r > 0) best = CHG_MAX(best, bytes / t);
        }
        if (best > 0) h->pack_bps = best;
    }
    free(src);
    free(own);
    if (pin.buf) pinned_free(h->devs[0].q[Q_H2D], &pin);
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
    /* Queues and pack threads: option, environment, the device's tuning entry (clhgemm-tune
     * measured the best counts), built-in. */
    const int nq_set = o.queues || chg_getenv("CLHGEMM_QUEUES");
    const int threads_set = o.cpu_threads || chg_getenv("CLHGEMM_CPU_THREADS");
    int nq = o.queues ? o.queues : env_int("CLHGEMM_QUEUES", 3);
    if (nq < 3 || nq > MAX_QUEUES) return CLHGEMM_INVALID_OPTION;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    /* Pack threads: every core, up to 32 (the copies are bound by host memory bandwidth, which
     * a few dozen cores saturate; several GPUs need more of it than one). */
    int threads = o.cpu_threads ? o.cpu_threads : env_int("CLHGEMM_CPU_THREADS", (int)CHG_MIN(cores, 32));
    if (threads < 1 || threads > 1024) return CLHGEMM_INVALID_OPTION;
    unsigned long long limit = o.device_memory_limit
                                   ? o.device_memory_limit
                                   : chg_getenv_size("CLHGEMM_DEVICE_MEMORY_LIMIT", 0);
    /* CPU share: "off", "auto" or a fraction in [0, 1]; its OpenBLAS threads; the scheduler
     * (CLHGEMM_CPU_SCHED=slab|strips, for experiments); gamma (CLHGEMM_CPU_GAMMA). */
    int cpu_mode = CPU_AUTO;
    double cpu_fixed = 0;
    {
        const char *cs = o.cpu_share ? o.cpu_share : chg_getenv("CLHGEMM_CPU_SHARE");
        if (cs && !strcmp(cs, "off")) {
            cpu_mode = CPU_OFF;
        } else if (cs && strcmp(cs, "auto")) {
            char *end = NULL;
            cpu_fixed = strtod(cs, &end);
            if (!end || end == cs || *end || !(cpu_fixed >= 0.0 && cpu_fixed <= 1.0))
                return CLHGEMM_INVALID_OPTION;
            cpu_mode = CPU_FIXED;
            if (cpu_fixed > 0 && !chg_cpu_available()) return CLHGEMM_INVALID_OPTION;
        }
    }
    const int cpu_threads = o.cpu_share_threads
                                ? o.cpu_share_threads
                                : env_int("CLHGEMM_CPU_SHARE_THREADS", (int)CHG_MAX(1, cores / 2));
    if (cpu_threads < 1 || cpu_threads > 1024) return CLHGEMM_INVALID_OPTION;
    int cpu_sched = CPU_SLAB;
    {
        const char *v = chg_getenv("CLHGEMM_CPU_SCHED");
        if (v && !strcmp(v, "strips"))
            cpu_sched = CPU_STRIPS;
        else if (v && strcmp(v, "slab"))
            return CLHGEMM_INVALID_OPTION;
    }
    const char *gv = chg_getenv("CLHGEMM_CPU_GAMMA");
    const double cpu_gamma = gv ? atof(gv) : 0.1;

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
    h->cpu_mode = chg_cpu_available() ? cpu_mode : CPU_OFF;
    h->cpu_fixed = cpu_fixed;
    h->cpu_sched = cpu_sched;
    h->cpu_threads = cpu_threads;
    h->cpu_gamma = cpu_gamma;
    h->devs = calloc(count, sizeof *h->devs);
    const char *tp = o.trace_file ? o.trace_file : chg_getenv("CLHGEMM_TRACE");
    if (tp) h->trace_path = strdup(tp);
    if (!h->devs || (tp && !h->trace_path)) {
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
        int nqd = nq;
        chg_tuning_entry_t te;
        chg_tuning_lookup(&d->dev, CHG_F32, &te);
        if (!nq_set && te.pipeline.present && te.pipeline.queues >= 3 && te.pipeline.queues <= MAX_QUEUES)
            nqd = te.pipeline.queues;
        if (!threads_set && h->ndev == 1 && te.pipeline.present && te.pipeline.pack_threads > 0)
            threads = CHG_MIN(te.pipeline.pack_threads, 1024);
        for (int q = 0; q < nqd && err == CL_SUCCESS; q++) {
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
    if (st == CLHGEMM_SUCCESS && !(h->pool = chg_pool_create(threads))) st = CLHGEMM_OUT_OF_HOST_MEMORY;
    if (st != CLHGEMM_SUCCESS) {
        clhgemm_destroy(h);
        return st;
    }
    measure_pack(h);
    for (int i = 0; i < h->ndev; i++)
        chg_log(1, "pipeline device %d: %s, %d queues, budget %.2f GiB, pinned h2d %.1f GB/s, d2h %.1f GB/s, "
                   "device copies %.0f GB/s",
                i, h->devs[i].dev.info.name, h->devs[i].nq, h->devs[i].mem_limit / 1073741824.0,
                h->devs[i].h2d_bps * 1e-9, h->devs[i].d2h_bps * 1e-9, h->devs[i].dev_bps * 1e-9);
    chg_log(1, "pipeline: %d pack threads, copy rate %.1f GB/s", chg_pool_threads(h->pool),
            h->pack_bps * 1e-9);
    if (chg_verbose() >= 1) {
        char blas[256];
        chg_cpu_describe(blas, sizeof blas);
        static const char *const mode[] = {"off", "auto", "fixed"};
        chg_log(1, "CPU share: %s (fixed fraction %.2f), %s scheduler, %d OpenBLAS threads of %ld cores, "
                   "gamma %.2f; %s",
                mode[h->cpu_mode], h->cpu_fixed, h->cpu_sched == CPU_STRIPS ? "strips" : "slab",
                h->cpu_threads, cores, h->cpu_gamma, blas);
    }
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
    /* CLHGEMM_KERNEL_RATE (GFLOP/s, for experiments): the planner's kernel rate, every device */
    const char *forced = chg_getenv("CLHGEMM_KERNEL_RATE");
    if (forced && atof(forced) > 0) {
        d->rate[prec] = atof(forced) * 1e9;
        chg_log(1, "device %d: kernel rate %.1f GFLOP/s from CLHGEMM_KERNEL_RATE", d->index, atof(forced));
        return;
    }
    /* The tuning entry's kernel-rate table (clhgemm-tune measured the kernel on several tile
     * shapes) gives the rate of a typical pipeline tile without a measurement here. (On the
     * H100 the kernels inside a host-resident DGEMM at n = 32768 ran at 48-49 TFLOP/s against
     * the 53.2 of this entry; the table's 16384 x 16384 x 4096 entry, 49.3, measured no better
     * there and made n = 16384 plan k slices of 384: 27.5 against 32.1 TFLOP/s.) */
    chg_tuning_entry_t te;
    chg_tuning_lookup(&d->dev, prec, &te);
    const double tabled = te.level != CHG_TUNING_BUILTIN ? chg_tuning_kernel_rate(&te.prec, 8192, 8192, 2048) : 0;
    if (tabled > 0) {
        d->rate[prec] = tabled;
        chg_log(1, "device %d: kernel rate %.1f GFLOP/s (%s) from the tuning entry %s", d->index,
                tabled * 1e-9, prec == CHG_F64 ? "d" : "s", te.key);
        return;
    }
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

/* How a device holds A (the operand shared by the tiles of one tile row, a "band").
 *   AMODE_STREAM    A slices are packed per tile, like B (least device memory).
 *   AMODE_RESIDENT  the packed A band stays on the device while its tiles are computed; the
 *                   first tile of every band loads it (a burst of A traffic at each band start).
 *   AMODE_PREFETCH  two band buffers: while a band's tiles run, the next band's A slices are
 *                   loaded a few per step, so only each device's first band pays the burst. */
enum { AMODE_STREAM = 0, AMODE_RESIDENT = 1, AMODE_PREFETCH = 2 };
static const char *const amode_name[] = {"streamed", "resident", "resident+prefetch"};

typedef struct plan_s {
    size_t bm, bn, bk;     /* tile extents */
    size_t mt, nt, kt;     /* tiles along m, n and k slices */
    int amode;             /* AMODE_* */
    double predicted;      /* model time (s) */
    int kg;                /* k slices per kernel launch (pctx_t.kgroup) */
    int ramp;              /* parts of a device's first k slice (pctx_t.ramp) */
} plan_t;

typedef struct pctx_s {
    size_t m, n, k, es;
    int beta_zero;
    size_t tile_m, tile_n, tile_k;  /* kernel tile multiples */
    unsigned long long mem;         /* smallest device budget */
    unsigned long long pinned;      /* page-locked host memory the staging may take, all devices */
    unsigned long long max_alloc;
    double rate, h2d, d2h, pack;    /* totals over devices for rate/h2d/d2h; pack shared */
    double dev;                     /* device memory traffic rate (slowest device) */
    double step_cost;               /* fixed cost of one k step (launches, copies' latency) */
    unsigned cus;                   /* fewest compute units of the devices */
    int ndev;
    /* Level-3 calls (zero for GEMM): segs k ranges of k each (SYR2K: 2); tiles spanning all of
     * C's rows (fix_m) or columns (fix_n: TRMM in place); k slices as long as the tile's rows
     * (square 1) or columns (square 2: a symmetric operand's diagonal blocks are then the
     * squares on its diagonal); no prefetch of the next band (TRMM). */
    int segs, fix_m, fix_n, square, no_prefetch;
    /* k slices one kernel launch covers in a tile whose A is resident (CLHGEMM_KGROUP,
     * 1..NSTAGE-1, default 2): each launch after a tile's first re-reads and re-writes its Cp;
     * the slices of a group are packed contiguously along k, so one launch runs over all of
     * them. At most NSTAGE - 1 so that the slice rings still run a group ahead of the kernel
     * queue (drive()). */
    int kgroup;
    /* A device's first k slice is loaded and run in this many parts (CLHGEMM_RAMP, default 4;
     * 1: whole), so that the first kernel starts after a part of it arrived. */
    int ramp;
} pctx_t;

/* The model's terms, for CLHGEMM_VERBOSE's "why". */
typedef struct pterms_s {
    double compute, h2d, d2h, pack;  /* steady-state totals; the largest binds */
    double devcopy;                  /* kernel-queue time of pack kernels, Cp accumulation and
                                        write-back (device memory traffic), added to compute */
    double burst, fill, drain, imbalance, steps;
    double total;
} pterms_t;

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* k slices of a plan: ceil(k / bk) per segment. */
static size_t plan_kt(const pctx_t *c, size_t bk) { return (size_t)CHG_MAX(c->segs, 1) * ceil_div(c->k, bk); }

/* Device bytes of a plan (per device); *largest gets the largest single buffer. */
static unsigned long long plan_mem(const pctx_t *c, size_t bm, size_t bn, size_t bk, int amode,
                                   unsigned long long *largest)
{
    const unsigned long long es = c->es;
    const unsigned long long bmp = chg_round_up(bm, c->tile_m), bnp = chg_round_up(bn, c->tile_n),
                             bkp = chg_round_up(bk, c->tile_k), kt = plan_kt(c, bk);
    const unsigned long long kg = (unsigned long long)CHG_MAX(c->kgroup, 1);
    const unsigned long long araw = bm * bk * es, braw = bk * bn * es, bpack = bkp * bnp * es * kg,
                             aband = bmp * bkp * es * (amode == AMODE_STREAM ? 1 : kt),
                             cdev = bm * bn * es, cp = bmp * bnp * es;
    const int nbands = amode == AMODE_PREFETCH ? 2 : 1;
    if (largest) *largest = CHG_MAX(CHG_MAX(CHG_MAX(araw, braw), CHG_MAX(bpack, aband)), CHG_MAX(cdev, cp));
    return NSTAGE * (araw + braw) + bpack + nbands * aband + 2 * cdev + cp;
}

/* Pinned staging of a plan (per device): the slice rings, C in (beta != 0) and C out. */
static unsigned long long plan_pinned(const pctx_t *c, size_t bm, size_t bn, size_t bk)
{
    const unsigned long long es = c->es;
    return NSTAGE * ((unsigned long long)bm * bk + (unsigned long long)bk * bn) * es +
           (NOUT + (c->beta_zero ? 0 : 1)) * (unsigned long long)bm * bn * es;
}

static int plan_fits(const pctx_t *c, size_t bm, size_t bn, size_t bk, int amode)
{
    unsigned long long largest;
    if (plan_mem(c, bm, bn, bk, amode, &largest) > c->mem || largest > c->max_alloc) return 0;
    /* Page-locked memory is taken from the user's own host memory, which the matrices fill. */
    if (plan_pinned(c, bm, bn, bk) * (unsigned long long)c->ndev > c->pinned) return 0;
    /* 32-bit indices in the kernels' workspace: Cp, and the packed panels a pack or a launch
     * indexes from one base (a resident band holds all of k in each panel, a packed B buffer a
     * group of slices). */
    const unsigned long long bmp = chg_round_up(bm, c->tile_m), bnp = chg_round_up(bn, c->tile_n),
                             bkp = chg_round_up(bk, c->tile_k);
    if (amode != AMODE_STREAM && bmp * bkp * plan_kt(c, bk) >= (1ull << 31)) return 0;
    if (bnp * bkp * (unsigned long long)CHG_MAX(c->kgroup, 1) >= (1ull << 31)) return 0;
    return bmp * bnp < (1ull << 31);
}

/* The steady state: the four stages run concurrently, so the slowest binds, but a stage
 * close to the binding one still costs (jitter, shared host memory): a p-norm (p = 6) instead
 * of a hard maximum, e.g. +2% when the second stage is at 80% of the first, +12% at 100%. */
static double steady_time(const pterms_t *t)
{
    const double x[4] = {t->compute + t->devcopy, t->h2d, t->d2h, t->pack};
    double mx = 0, sum = 0;
    for (int i = 0; i < 4; i++) mx = CHG_MAX(mx, x[i]);
    if (mx <= 0) return 0;
    for (int i = 0; i < 4; i++) sum += pow(x[i] / mx, 6.0);
    return mx * pow(sum, 1.0 / 6.0);
}

/* Column pieces of a device's final tile (rows x cols, kernel tiles tile_m x tile_n): 4 or 2
 * when each piece still gives every compute unit two work-groups, so that the pieces' trips
 * home overlap the remaining kernels; 1 when A is streamed, since each piece would then move
 * the tile's A again (at n = 16384 on the H100 a one-tile plan moved A four times and ran at
 * 40% of the device-only rate). The planner's model and the driver both use it. */
static int final_pieces(size_t rows, size_t cols, size_t tile_m, size_t tile_n, unsigned cus,
                        int amode)
{
    if (amode == AMODE_STREAM) return 1;
    const size_t wg_rows = (rows + tile_m - 1) / tile_m;
    for (int sp = 4; sp > 1; sp /= 2)
        if (cols >= (size_t)sp * tile_n && wg_rows * (cols / (size_t)sp / tile_n) >= 2u * cus)
            return sp;
    return 1;
}

/* Time model of a plan (seed 001's bound plus what the traces showed matters): the steady state
 * is bound by the slowest of kernel, bus each way and the pack threads; on top come the bursts
 * of A traffic when a band starts without prefetch, the pipeline's fill (first slice) and
 * drain (last tile home), the tail imbalance between devices, and a fixed cost per k step. */
static double plan_time(const pctx_t *c, size_t bm, size_t bn, size_t bk, int amode, pterms_t *out)
{
    const double s = (double)c->es, m = (double)c->m, n = (double)c->n, k = (double)c->k * CHG_MAX(c->segs, 1);
    const double mt = ceil(m / bm), nt = ceil(n / bn), kt = (double)plan_kt(c, bk), nd = c->ndev;
    /* Wave quantisation: a kernel over a tile runs in rounds of (compute units x 2) work-groups
     * (two resident per unit for the default GPU kernels); the last round may be partly idle,
     * and a tile smaller than one round leaves the device partly idle throughout. */
    const double wgs = ceil((double)bm / c->tile_m) * ceil((double)bn / c->tile_n);
    const double round_wgs = 2.0 * c->cus;
    const double fill = wgs / (ceil(wgs / round_wgs) * round_wgs);
    const double dev_rate = c->rate / nd * fill;
    pterms_t t = {0};
    t.compute = 2.0 * m * n * k / (dev_rate * nd);
    /* A moves once per tile when streamed; resident, once per band and device working on it
     * (with fewer bands than devices, several devices share a band and each loads it). */
    const double a_bytes = amode == AMODE_STREAM ? s * m * k * nt
                                                 : s * m * k * CHG_MAX(1.0, CHG_MIN(nd, mt * nt) / mt);
    const double b_bytes = s * k * n * mt;
    const double cin = c->beta_zero ? 0.0 : s * m * n, cout = s * m * n;
    /* Device memory traffic on the kernel queue: the pack kernels read the raw slice and write
     * the packed one, every kernel launch after a tile's first (one per group of kgroup k
     * slices where A is resident) reads and rewrites Cp, and the write-back reads Cp (and C)
     * and writes C. */
    const double tiles = mt * nt;
    const double bmp = (double)chg_round_up(bm, c->tile_m), bnp = (double)chg_round_up(bn, c->tile_n);
    const double launches = amode == AMODE_STREAM ? kt : ceil(kt / CHG_MAX(c->kgroup, 1));
    const double acc = tiles * (launches - 1.0) * 2.0 * s * bmp * bnp;
    const double wb = tiles * (c->beta_zero ? 2.0 : 3.0) * s * bmp * bnp;
    t.devcopy = (2.0 * (a_bytes + b_bytes) + acc + wb) / (c->dev * nd);
    t.h2d = (a_bytes + b_bytes + cin) / c->h2d;
    t.d2h = cout / c->d2h;
    t.pack = (a_bytes + b_bytes + cin + cout) / c->pack;
    /* A band start without prefetch: the tile that loads the band moves A and B slices and its
     * C traffic through pack threads shared by all devices, against one tile's kernel time. */
    const double tile_compute = 2.0 * bm * bn * k / dev_rate;
    if (amode != AMODE_STREAM) {
        const double tile_pack = s * (k * (bm + bn) + (c->beta_zero ? 1.0 : 2.0) * bm * bn) * nd / c->pack;
        const double burst = CHG_MAX(0.0, tile_pack - tile_compute);
        const double starts = amode == AMODE_PREFETCH ? 1.0 : ceil(mt / nd);
        t.burst = burst * starts;
    }
    /* Fill: the first slice's panels (the first of its ramp parts) through the pack threads and
     * the bus before any kernel. */
    t.fill = s * bk * (bm + bn) * (nd / c->pack + nd / c->h2d) / CHG_MAX(c->ramp, 1);
    /* Drain: the last piece of each device's final tile home and unpacked (drive() splits a
     * final tile into column pieces that still give every compute unit two work-groups). */
    const double pieces = final_pieces(bm, bn, c->tile_m, c->tile_n, c->cus, amode);
    t.drain = s * bm * bn / pieces * (nd / c->pack + nd / c->d2h / NCHUNK);
    /* Tail imbalance: whole tiles are handed out, so a device may finish up to one tile late. */
    t.imbalance = nd > 1 ? (ceil(tiles / nd) - tiles / nd) * tile_compute : 0.0;
    t.steps = tiles * kt * c->step_cost / nd;
    t.total = steady_time(&t) + t.burst + t.fill + t.drain + t.imbalance + t.steps;
    if (out) *out = t;
    return t.total;
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
    size_t nm = candidates(c->tile_m, chg_round_up(c->m, c->tile_m), cm, 64);
    size_t nn = candidates(c->tile_n, chg_round_up(c->n, c->tile_n), cn, 64);
    const size_t nk = c->square ? 1 : candidates(c->tile_k, chg_round_up(c->k, c->tile_k), ck, 64);
    /* Level-3 constraints: only the whole extent, or k slices as long as the tile */
    if (c->fix_m) cm[0] = cm[nm - 1], nm = 1;
    if (c->fix_n) cn[0] = cn[nn - 1], nn = 1;
    const int top = c->no_prefetch ? AMODE_RESIDENT : AMODE_PREFETCH;
    for (size_t im = 0; im < nm; im++)
        for (size_t in = 0; in < nn; in++)
            for (size_t ik = 0; ik < nk; ik++)
                for (int amode = top; amode >= AMODE_STREAM; amode--) {
                    const size_t bm = cm[im], bn = cn[in];
                    const size_t bk = c->square == 1 ? bm : c->square == 2 ? bn : ck[ik];
                    if (!plan_fits(c, bm, bn, bk, amode)) continue;
                    const double t = plan_time(c, bm, bn, bk, amode, NULL);
                    if (t < best * 0.999) {
                        best = t;
                        *out = (plan_t){bm, bn, bk, ceil_div(c->m, bm), ceil_div(c->n, bn),
                                        plan_kt(c, bk), amode, t, c->kgroup, c->ramp};
                        found = 1;
                    }
                }
    return found;
}

/* ---- one call ----------------------------------------------------------------------------- */

/* The columns of one band (tile row) not yet taken: [lo, hi). Its owner takes tiles of bn
 * columns from the band's front (lo for even bands, hi for odd ones: seed 000's snake order);
 * a device with nothing left of its own, and the CPU share, take from the back of the fullest
 * band. */
typedef struct band_s {
    size_t lo, hi;
} band_t;

static size_t band_left(const band_t *b) { return b->hi - b->lo; }

/* Takes up to w columns of band bi from its front or its back; with align, the columns taken
 * end (front) or start (back) on a multiple of w, so that every tile is a tile of the grid. */
static void band_take(band_t *b, size_t bi, int front, size_t w, int align, size_t *j0, size_t *nc)
{
    if (align && (bi % 2 == 0) == (front != 0)) w = (b->lo / w + 1) * w - b->lo;
    else if (align && b->hi > 0) w = b->hi - (b->hi - 1) / w * w;
    w = CHG_MIN(w, band_left(b));
    if ((bi % 2 == 0) == (front != 0)) {
        *j0 = b->lo;
        b->lo += w;
    } else {
        b->hi -= w;
        *j0 = b->hi;
    }
    *nc = w;
}

/* Columns left in all bands (c->mu held). */
static size_t bands_left(const band_t *B, size_t mt)
{
    size_t left = 0;
    for (size_t i = 0; i < mt; i++) left += band_left(&B[i]);
    return left;
}

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
    band_t *bands;
    size_t next_band;           /* bands below this are claimed */
    int drivers, drivers_started; /* drivers running, and how many claimed a first band */
    size_t ntiles;
    long long stolen;
    clhgemm_status_t status;    /* first error */
    chg_trace_t *trace;
    double bytes_h2d, bytes_d2h;
    double copy_bytes, copy_ns; /* pack threads' work over all drivers, and their wall time */
    int devices_used;
    int pack_parts;             /* cap on pack-thread parts while OpenBLAS runs (0: none) */
    /* CPU strips (CPU_STRIPS): OpenBLAS threads, its rate and the devices' total rate (for the
     * strip width and the rule that the CPU never becomes the tail) */
    int cpu_strips, cpu_threads;
    double cpu_rate, gpu_rate;
    double cpu_elems;           /* C elements computed by the CPU */
    /* Level-3 host calls (SYMM, SYRK, SYR2K, TRMM; all zero for GEMM): the structure in pack
     * coordinates (gemm.h), SYR2K's second product over k slices kts..2kts-1 with the operands
     * exchanged (segs = 2), and what the schedule must respect (see host_l3). */
    chg_struct_t st;
    int segs;                   /* 1, or 2 for SYR2K */
    int l3;                     /* a level-3 call: no CPU share */
    int align_n;                /* tiles start on the bn grid (symmetric X_B: square diagonal blocks) */
    int no_pieces;              /* a device's final tile is not split into column pieces */
    double flops;               /* the routine's own operation count (for the log) */
    const char *name;
} call_t;

/* A driver's place in the band schedule. */
typedef struct sched_s {
    long cur, next;             /* band being worked on, band claimed for prefetch (-1: none) */
    int started;
} sched_t;

/* Takes the next tile for a device: its own band's next tile, else its claimed next band,
 * else an unclaimed band, else a tile stolen from the back of the band with the most left.
 * With prefetch, a device that opens a band also claims the one after it (while enough bands
 * remain for the devices that have none yet). Tiles of a band alternate direction (seed 000's
 * snake order). *final says that the device will get no other tile. */
static int take_tile(call_t *c, sched_t *sc, size_t *ti, size_t *j0, size_t *nc, int *stolen,
                     int *final)
{
    pthread_mutex_lock(&c->mu);
    band_t *B = c->bands;
    const size_t mt = c->pl.mt, bn = c->pl.bn;
    long b = -1;
    int ok = c->status == CLHGEMM_SUCCESS;
    while (ok && b < 0) {
        if (sc->cur >= 0 && band_left(&B[sc->cur]) > 0) {
            b = sc->cur;
            break;
        }
        long nb = -1;
        if (sc->next >= 0) {
            nb = sc->next;
            sc->next = -1;
        } else if (c->next_band < mt) {
            nb = (long)c->next_band++;
        }
        if (nb < 0) break;
        sc->cur = nb;
        if (!sc->started) {
            sc->started = 1;
            c->drivers_started++;
        }
        if (c->pl.amode == AMODE_PREFETCH && c->next_band < mt &&
            mt - c->next_band > (size_t)(c->drivers - c->drivers_started))
            sc->next = (long)c->next_band++;
    }
    *stolen = 0;
    if (ok && b >= 0) {
        band_take(&B[b], (size_t)b, 1, bn, c->align_n, j0, nc);
    } else if (ok) {
        size_t most = 0;
        for (size_t i = 0; i < mt; i++)
            if (band_left(&B[i]) > most) {
                most = band_left(&B[i]);
                b = (long)i;
            }
        if (b >= 0) {
            band_take(&B[b], (size_t)b, 0, bn, c->align_n, j0, nc);
            *stolen = 1;
            c->stolen++;
        }
    }
    /* A final tile: less than a tile per device is left, so this device gets no other. */
    *final = ok && b >= 0 && bands_left(B, mt) < (size_t)c->drivers * bn;
    pthread_mutex_unlock(&c->mu);
    if (!ok || b < 0) return 0;
    *ti = (size_t)b;
    return 1;
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
    for (int s = 0; s < NSTAGE; s++) {
        if (d->buf[which][s]) clReleaseMemObject(d->buf[which][s]);
        d->buf[which][s] = NULL;
    }
    d->buf_bytes[which] = 0;
    d->buf_slots[which] = 0;
    cl_int err = CL_SUCCESS;
    for (int s = 0; s < slots && err == CL_SUCCESS; s++) d->buf[which][s] = dev_alloc(d->ctx, bytes, &err);
    if (err != CL_SUCCESS) {
        for (int s = 0; s < NSTAGE; s++) {
            if (d->buf[which][s]) clReleaseMemObject(d->buf[which][s]);
            d->buf[which][s] = NULL;
        }
        return err;
    }
    d->buf_bytes[which] = bytes;
    d->buf_slots[which] = slots;
    return CL_SUCCESS;
}

static cl_int reserve_pinned(hdev_t *d, pinned_t *st, int slots, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    for (int s = 0; s < slots && err == CL_SUCCESS; s++) {
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
    const size_t kg = (size_t)CHG_MAX(p->kg, 1);
    const size_t aband = bmp * bkp * es * (p->amode == AMODE_STREAM ? 1 : p->kt);
    cl_int err = reserve(d, B_ARAW, p->bm * p->bk * es, NSTAGE);
    if (err == CL_SUCCESS) err = reserve(d, B_BRAW, p->bk * p->bn * es, NSTAGE);
    if (err == CL_SUCCESS) err = reserve(d, B_BPACK, bkp * bnp * es * kg, 1);
    if (err == CL_SUCCESS) err = reserve(d, B_APACK, aband, p->amode == AMODE_PREFETCH ? 2 : 1);
    if (err == CL_SUCCESS) err = reserve(d, B_CDEV, p->bm * p->bn * es, 2);
    if (err == CL_SUCCESS) err = reserve(d, B_CP, bmp * bnp * es, 1);
    if (err == CL_SUCCESS) err = reserve_pinned(d, d->st_a, NSTAGE, p->bm * p->bk * es);
    if (err == CL_SUCCESS) err = reserve_pinned(d, d->st_b, NSTAGE, p->bk * p->bn * es);
    if (err == CL_SUCCESS && c->beta != 0.0) err = reserve_pinned(d, &d->st_cin, 1, p->bm * p->bn * es);
    if (err == CL_SUCCESS) err = reserve_pinned(d, d->st_cout, NOUT, p->bm * p->bn * es);
    return err;
}

static void ev_release(cl_event *e)
{
    if (*e) clReleaseEvent(*e);
    *e = NULL;
}

/* Waits for an event and releases it; a command that failed gives its (negative) status. */
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

/* A C tile on its way home: its device-to-host copy in column chunks, unpacked chunk by chunk. */
typedef struct pending_s {
    int valid;
    size_t seq;                 /* tile number on this device: unpacked oldest first */
    int cslot;                  /* device C buffer it is copied out of */
    cl_event wb;                /* its write-back; the copies home are issued once it is done */
    int issued;
    size_t i0, j0, mc, nc;
    int nch, done;              /* chunks, chunks already unpacked */
    cl_event d2h[NCHUNK];
} pending_t;

/* A ring of slice slots (staging buffer + raw device buffer): h2d[r] is the copy into raw slot
 * r, pack[r] the device pack kernel reading it. */
typedef struct ring_s {
    cl_event h2d[NSTAGE], pack[NSTAGE];
    size_t next;
} ring_t;

/* A packed A band buffer on the device: which band it holds and how many of its k slices. */
typedef struct aband_s {
    long band;
    size_t loaded;
} aband_t;

/* Everything one device's driver needs for one call. */
typedef struct drv_s {
    call_t *c;
    hdev_t *d;
    chg_gemm_kernels_t ks;
    cl_command_queue qh, qk, qd;
    ring_t ra, rb;
    cl_event cin_last;          /* last C-in chunk copy (staging reusable, write-back may run) */
    double copy_bytes, copy_ns; /* pack threads' work for this driver, and its wall time */
    pending_t pend[NOUT];
    cl_event cdev_free[2];      /* last device->host copy out of each device C buffer */
    int cdev_owner[2];          /* pending slot whose copies home read that buffer, or -1 */
    double h2d_bytes, d2h_bytes;
} drv_t;

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

/* copy2d for a driver, timed: what the pack threads reach inside the pipeline (sharing host
 * memory with the DMA engines and the other drivers) feeds the next call's plan. */
static void vcopy(drv_t *v, void *dst, size_t dld, const void *src, size_t sld, size_t rows,
                  size_t cols, size_t es, chg_trace_t *tr, const char *name)
{
    const unsigned long long t0 = chg_now_ns();
    copy2d_n(v->c->h->pool, v->c->pack_parts, dst, dld, src, sld, rows, cols, es, tr, name);
    v->copy_ns += (double)(chg_now_ns() - t0);
    v->copy_bytes += (double)rows * cols * es;
}

/* vcopy restricted to a triangle (mcopy_t); tri == CHG_TRI_NONE is vcopy. */
static void vcopy_tri(drv_t *v, void *dst, size_t dld, const void *src, size_t sld, size_t rows,
                      size_t cols, size_t es, long diag, int tri, int strict, const char *name)
{
    if (tri == CHG_TRI_NONE) {
        vcopy(v, dst, dld, src, sld, rows, cols, es, v->c->trace, name);
        return;
    }
    const unsigned long long t0 = chg_now_ns();
    mcopy_t m = {dst, src, rows, cols, dld, sld, es, diag, tri, strict, 1};
    int parts = chg_pool_threads(v->c->h->pool);
    if (v->c->pack_parts > 0) parts = CHG_MIN(parts, v->c->pack_parts);
    if (rows * cols * es < (1u << 20)) parts = 1;
    m.parts = (int)CHG_MAX((size_t)1, CHG_MIN((size_t)parts, cols));
    chg_pool_run(v->c->h->pool, m.parts, mcopy_part, &m, v->c->trace, name);
    v->copy_ns += (double)(chg_now_ns() - t0);
    size_t elems = 0;  /* what was copied (the pack rate the next plan uses) */
    for (size_t j = 0; j < cols; j++) {
        size_t r0, r1;
        mcopy_rows(&m, j, &r0, &r1);
        elems += r1 - r0;
    }
    v->copy_bytes += (double)elems * es;
}

/* Columns [c0, c1) of chunk ch of a tile nc wide split in nch chunks. */
static void chunk_cols(size_t nc, int nch, int ch, size_t *c0, size_t *c1)
{
    *c0 = nc * (size_t)ch / (size_t)nch;
    *c1 = nc * (size_t)(ch + 1) / (size_t)nch;
}

/* What of one slice of an operand goes through staging. The slice is X(r0..r0+rc, p0..p0+kc) in
 * pack coordinates (X_A = op(A), X_B = op(B)^T, gemm.h); in the user's memory M (M[a + b*ld])
 * that is the rectangle D, and X(p0.., r0..), which a symmetric pack reads where the block lies
 * outside the stored triangle, is the rectangle Mr.
 *   general     D, copied whole (GEMM's slice, as before)
 *   symmetric   D when the block lies in the stored triangle, Mr when it lies outside, both
 *               when it crosses the diagonal (the planner makes those blocks the diagonal
 *               squares, where D == Mr); only elements of the stored triangle are copied
 *   triangular  the bounding box of D's non-zero part (nothing when the block is all zeros);
 *               only the triangle is copied, a unit diagonal not at all
 * The staging slot holds the box with leading dimension ld at box_off; element (a, b) of M sits
 * at (a - oa) + (b - ob)*ld, with (oa, ob) the box's origin (general, symmetric) or D's origin
 * (triangular: the pack addresses its inside elements from there, and the box only leaves out
 * elements it never reads). off / off_m are the positions of X(r0, p0) and X(p0, r0) for the
 * device pack (chg_enqueue_pack_{a,b}_struct). */
typedef struct rect_s {
    size_t a0, b0, ae, be;
} rect_t;

typedef struct stage_s {
    int kind;                 /* chg_struct_kind_t of the operand */
    rect_t box;               /* staged box (ae == 0 or be == 0: nothing) */
    size_t ld, box_off;       /* in elements */
    size_t oa, ob;            /* M coordinates of staging position 0 (minus box_off) */
    size_t off, off_m;
    long diag;                /* r0 - p0: global row - column of X(0,0) of the block */
    int nrect;
    rect_t rect[2];           /* what is copied */
    int tri, strict;          /* mask of the copies in M (CHG_TRI_*), diagonal excluded */
} stage_t;

static void stage_geometry(const chg_struct_t *st, int is_a, int contig, size_t r0, size_t rc,
                           size_t p0, size_t kc, stage_t *g)
{
    memset(g, 0, sizeof *g);
    g->kind = is_a ? st->kind_a : st->kind_b;
    const int upper = is_a ? st->upper_a : st->upper_b, unit = is_a ? st->unit_a : st->unit_b;
    const rect_t D = contig ? (rect_t){r0, p0, rc, kc} : (rect_t){p0, r0, kc, rc};
    const rect_t Mr = contig ? (rect_t){p0, r0, kc, rc} : (rect_t){r0, p0, rc, kc};
    g->diag = (long)r0 - (long)p0;
    /* X(r, p) is inside its triangle when r <= p (upper) or r >= p; in M, r runs along a when
     * contig, so the stored triangle of M is the upper one when upper == contig. */
    g->tri = upper == contig ? CHG_TRI_UPPER : CHG_TRI_LOWER;
    const long dmin = g->diag - (long)(kc - 1), dmax = g->diag + (long)(rc - 1);
    const int in_all = upper ? dmax <= 0 : dmin >= 0, out_all = upper ? dmin > 0 : dmax < 0;
    if (g->kind == CHG_GENERAL || (g->kind == CHG_SYMMETRIC && in_all)) {
        g->box = D;
        g->nrect = 1;
        g->rect[0] = D;
        if (g->kind == CHG_GENERAL) g->tri = CHG_TRI_NONE;
    } else if (g->kind == CHG_SYMMETRIC && out_all) {
        g->box = Mr;
        g->nrect = 1;
        g->rect[0] = Mr;
    } else if (g->kind == CHG_SYMMETRIC) {
        g->nrect = 1;
        g->rect[0] = D;
        if (memcmp(&D, &Mr, sizeof D)) g->rect[g->nrect++] = Mr;
        const size_t a0 = CHG_MIN(D.a0, Mr.a0), b0 = CHG_MIN(D.b0, Mr.b0);
        g->box = (rect_t){a0, b0, CHG_MAX(D.a0 + D.ae, Mr.a0 + Mr.ae) - a0,
                          CHG_MAX(D.b0 + D.be, Mr.b0 + Mr.be) - b0};
    } else {
        /* triangular: D's part inside the triangle of M (a <= b - s, or a >= b + s) */
        const long s = unit ? 1 : 0;
        long alo = (long)D.a0, ahi = (long)(D.a0 + D.ae), blo = (long)D.b0, bhi = (long)(D.b0 + D.be);
        if (g->tri == CHG_TRI_UPPER) {
            ahi = CHG_MIN(ahi, bhi - s);
            blo = CHG_MAX(blo, (long)D.a0 + s);
        } else {
            alo = CHG_MAX(alo, (long)D.b0 + s);
            bhi = CHG_MIN(bhi, (long)(D.a0 + D.ae) - s);
        }
        g->strict = unit;
        if (!out_all && ahi > alo && bhi > blo) {
            g->box = (rect_t){(size_t)alo, (size_t)blo, (size_t)(ahi - alo), (size_t)(bhi - blo)};
            g->nrect = 1;
            g->rect[0] = g->box;
        }
    }
    g->ld = CHG_MAX(g->box.ae, (size_t)1);
    if (g->kind == CHG_TRIANGULAR) {
        g->oa = D.a0;
        g->ob = D.b0;
        if (g->nrect) g->box_off = (g->box.a0 - D.a0) + (g->box.b0 - D.b0) * g->ld;
        g->off = g->off_m = 0;
    } else {
        g->oa = g->box.a0;
        g->ob = g->box.b0;
        g->off = in_all || !out_all || g->kind == CHG_GENERAL ? (D.a0 - g->oa) + (D.b0 - g->ob) * g->ld : 0;
        g->off_m = g->kind == CHG_SYMMETRIC && !in_all ? (Mr.a0 - g->oa) + (Mr.b0 - g->ob) * g->ld : g->off;
        if (g->kind == CHG_SYMMETRIC && out_all) g->off = g->off_m;
    }
}

/* Elements of the staging slot a stage uses. */
static size_t stage_elems(const stage_t *g) { return g->nrect ? g->box_off + g->ld * g->box.be : 0; }

/* Moves one slice through a ring slot: pack threads copy what the stage says from the user's
 * matrix M (base, leading dimension ldm) into pinned staging, host->device copy, then the
 * device pack kernel into dst at dst_off (ext x kc of X, padded; structured operands through
 * the structured packs, which read only the staged elements). */
static cl_int load_slice(drv_t *v, int is_a, const char *base, size_t ldm, const stage_t *g,
                         size_t ext, size_t kc, cl_mem dst, size_t dst_off, size_t dpk)
{
    call_t *c = v->c;
    hdev_t *d = v->d;
    const size_t es = c->es;
    ring_t *rg = is_a ? &v->ra : &v->rb;
    const int r = (int)(rg->next++ % NSTAGE);
    /* Slot r (staging and raw device buffer) is free once the pack kernel that read its
     * previous contents ran (that kernel waited for the copy). Waiting here rather than giving
     * the copy a wait list matters on NVIDIA's driver: a copy waiting on another queue's event
     * holds up every later copy in its hardware channel, device->host ones included. */
    cl_int err = ev_wait(&rg->pack[r]);
    if (err == CL_SUCCESS) err = ev_wait(&rg->h2d[r]);
    if (err != CL_SUCCESS) return err;
    pinned_t *st = is_a ? &d->st_a[r] : &d->st_b[r];
    cl_mem raw = d->buf[is_a ? B_ARAW : B_BRAW][r];
    const size_t need = stage_elems(g);
    if (need * es > st->bytes || need * es > d->buf_bytes[is_a ? B_ARAW : B_BRAW])
        return CLHGEMM_INTERNAL_ERROR; /* the plan's constraints rule this out */
    /* Column chunks: the copy of chunk i to the device runs while the pack threads fill chunk
     * i+1 (what matters when the pipeline fills, and for big slices). The h2d queue is in
     * order, so the last chunk's event stands for the whole slice. */
    const size_t cols = g->nrect ? g->box.be : 0, ld = g->ld;
    const size_t bytes = ld * cols * es;
    const int nch = (int)CHG_MIN(CHG_MIN((size_t)4, cols), CHG_MAX((size_t)1, bytes / (8u << 20)));
    for (int ch = 0; ch < nch; ch++) {
        size_t c0, c1;
        chunk_cols(cols, nch, ch, &c0, &c1);
        const size_t b0 = g->box.b0 + c0, b1 = g->box.b0 + c1;
        for (int i = 0; i < g->nrect; i++) {
            const rect_t *R = &g->rect[i];
            const size_t lo = CHG_MAX(b0, R->b0), hi = CHG_MIN(b1, R->b0 + R->be);
            if (hi <= lo) continue;
            char *stp = (char *)st->ptr + ((R->a0 - g->oa) + (lo - g->ob) * ld) * es;
            vcopy_tri(v, stp, ld, base + (R->a0 + lo * ldm) * es, ldm, R->ae, hi - lo, es,
                      (long)R->a0 - (long)lo, g->tri, g->strict, is_a ? "pack A" : "pack B");
        }
        const size_t o = (g->box_off + c0 * ld) * es;
        ev_release(&rg->h2d[r]);
        err = clEnqueueWriteBuffer(v->qh, raw, CL_FALSE, o, (c1 - c0) * ld * es, (char *)st->ptr + o, 0,
                                   NULL, &rg->h2d[r]);
        if (err != CL_SUCCESS) return err;
        clFlush(v->qh);  /* a later wait on this copy must not depend on an unflushed queue */
        trace_dev(c, d, Q_H2D, is_a ? "A slice" : "B slice", rg->h2d[r]);
    }
    v->h2d_bytes += (double)bytes;
    const cl_uint nw = rg->h2d[r] ? 1 : 0; /* nothing staged: a triangular block of zeros */
    if (g->kind == CHG_GENERAL)
        err = is_a ? chg_enqueue_pack_a(v->qk, &v->ks, ext, kc, raw, 0, ld, dst, dst_off, dpk, nw, &rg->h2d[r], &rg->pack[r])
                   : chg_enqueue_pack_b(v->qk, &v->ks, ext, kc, raw, 0, ld, dst, dst_off, dpk, nw, &rg->h2d[r], &rg->pack[r]);
    else
        err = is_a ? chg_enqueue_pack_a_struct(v->qk, &v->ks, g->diag, ext, kc, raw, g->off, g->off_m, ld, dst,
                                               dst_off, dpk, nw, &rg->h2d[r], &rg->pack[r])
                   : chg_enqueue_pack_b_struct(v->qk, &v->ks, g->diag, ext, kc, raw, g->off, g->off_m, ld, dst,
                                               dst_off, dpk, nw, &rg->h2d[r], &rg->pack[r]);
    if (err != CL_SUCCESS) return err;
    trace_dev(c, d, Q_KERNEL, is_a ? "pack A" : "pack B", rg->pack[r]);
    return CL_SUCCESS;
}

/* One GEMM launch of a tile (kp packed k rows from aoff / boff, panels of apk / bpk rows) into
 * the device's Cp, traced. */
static cl_int launch_gemm(drv_t *v, size_t i0, size_t j0, size_t p0, size_t mpad, size_t npad,
                          size_t kp, cl_mem apack, size_t aoff, size_t apk, size_t boff, size_t bpk,
                          int accumulate)
{
    cl_event kev = NULL;
    const cl_int err = chg_enqueue_kernel_at(v->qk, &v->ks, i0, j0, p0, mpad, npad, kp, apack, aoff, apk,
                                             v->d->buf[B_BPACK][0], boff, bpk, v->d->buf[B_CP][0],
                                             accumulate, 0, NULL, v->c->trace ? &kev : NULL);
    if (err == CL_SUCCESS) trace_dev(v->c, v->d, Q_KERNEL, "gemm", kev);
    ev_release(&kev);
    return err;
}

/* Slice s of the k loop: its segment (SYR2K's second product runs over slices kts..2kts-1 with
 * the operands exchanged), its start within the segment and its length. */
static void slice_of(const call_t *c, size_t s, int *seg, size_t *p0, size_t *kc)
{
    const size_t kts = ceil_div(c->k, c->pl.bk);
    *seg = (int)(s / kts);
    *p0 = (s % kts) * c->pl.bk;
    *kc = CHG_MIN(c->pl.bk, c->k - *p0);
}

/* Slice s of band ti of A into dst at dst_off, in panels of dpk k rows (0: the slice's own);
 * with qk > 0 only its k rows [q0, q0 + qk) (the ramp of a device's first slice). */
static cl_int load_a(drv_t *v, size_t ti, size_t s, size_t q0, size_t qk, cl_mem dst, size_t dst_off,
                     size_t dpk)
{
    const call_t *c = v->c;
    int seg;
    size_t p0, kc;
    slice_of(c, s, &seg, &p0, &kc);
    if (qk) p0 += q0, kc = CHG_MIN(qk, kc - q0);
    const size_t i0 = ti * c->pl.bm, mc = CHG_MIN(c->pl.bm, c->m - i0);
    stage_t g;
    stage_geometry(&c->st, 1, !c->ta, i0, mc, p0, kc, &g);
    return load_slice(v, 1, seg ? c->b : c->a, seg ? c->ldb : c->lda, &g, mc, kc, dst, dst_off, dpk);
}

/* Slice s of the B panel of columns j0.. into the packed B buffer at dst_off, panels of dpk
 * (q0, qk as for load_a). */
static cl_int load_b(drv_t *v, size_t j0, size_t nc, size_t s, size_t q0, size_t qk, size_t dst_off,
                     size_t dpk)
{
    const call_t *c = v->c;
    int seg;
    size_t p0, kc;
    slice_of(c, s, &seg, &p0, &kc);
    if (qk) p0 += q0, kc = CHG_MIN(qk, kc - q0);
    stage_t g;
    stage_geometry(&c->st, 0, c->tb, j0, nc, p0, kc, &g);
    return load_slice(v, 0, seg ? c->a : c->b, seg ? c->lda : c->ldb, &g, nc, kc,
                      v->d->buf[B_BPACK][0], dst_off, dpk);
}

/* Chunks for a tile's C copies: at most one per k step (they are spread over the steps), at
 * most NCHUNK, none smaller than CLHGEMM_C_CHUNK bytes (default 1 MiB; tests lower it so that
 * small tiles are chunked too). */
static int c_chunks(const call_t *c, size_t mc, size_t nc)
{
    const size_t bytes = mc * nc * c->es;
    const size_t min_chunk = CHG_MAX(1ull, chg_getenv_size("CLHGEMM_C_CHUNK", 1ull << 20));
    size_t n = CHG_MIN((size_t)NCHUNK, CHG_MAX((size_t)1, c->pl.kt));
    n = CHG_MIN(n, CHG_MAX((size_t)1, bytes / min_chunk));
    return (int)CHG_MIN(n, nc);
}

/* Chunk ch of the C tile (i0, j0) into pinned staging and on to the device (beta != 0). The
 * device buffer must be free (its previous copy home done: see free_cdev). */
static cl_int cin_chunk(drv_t *v, size_t i0, size_t j0, size_t mc, size_t nc, int nch, int ch,
                        cl_mem cdev)
{
    call_t *c = v->c;
    const size_t es = c->es;
    size_t c0, c1;
    chunk_cols(nc, nch, ch, &c0, &c1);
    if (c1 == c0) return CL_SUCCESS;
    char *st = (char *)v->d->st_cin.ptr + c0 * mc * es;
    /* SYRK/SYR2K: only C's triangle is read (the write-back reads no more of it) */
    vcopy_tri(v, st, mc, c->c + (i0 + (j0 + c0) * c->ldc) * es, c->ldc, mc, c1 - c0, es,
              (long)i0 - (long)(j0 + c0), c->st.c_tri, 0, "pack C");
    ev_release(&v->cin_last);  /* the h2d queue is in order: the newest copy implies the rest */
    cl_int err = clEnqueueWriteBuffer(v->qh, cdev, CL_FALSE, c0 * mc * es, (c1 - c0) * mc * es, st,
                                      0, NULL, &v->cin_last);
    if (err != CL_SUCCESS) return err;
    trace_dev(c, v->d, Q_H2D, "C in", v->cin_last);
    v->h2d_bytes += (double)(c1 - c0) * mc * es;
    return CL_SUCCESS;
}

/* 1 when the command behind e has finished (or failed: the wait then reports it). */
static int ev_done(cl_event e)
{
    cl_int st = CL_COMPLETE;
    if (!e) return 1;
    if (clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) != CL_SUCCESS) return 1;
    return st == CL_COMPLETE || st < 0;
}

/* Unpacks chunks of a finished tile into the user's C until `upto` are done. Chunks whose copy
 * home has not finished are waited for, unless deadline_ns is set: then the call stops at the
 * first such chunk, or once the deadline has passed. */
static cl_int issue_d2h(drv_t *v, int slot, int wait);

static cl_int unpack_chunks(drv_t *v, int slot, int upto, unsigned long long deadline_ns)
{
    call_t *c = v->c;
    pending_t *p = &v->pend[slot];
    if (!p->valid) return CL_SUCCESS;
    cl_int err = issue_d2h(v, slot, deadline_ns == 0);
    if (err != CL_SUCCESS || !p->issued) {
        if (err != CL_SUCCESS) {
            for (int i = 0; i < NCHUNK; i++) ev_release(&p->d2h[i]);
            ev_release(&p->wb);
            p->valid = 0;
        }
        return err;
    }
    upto = CHG_MIN(upto, p->nch);
    while (p->done < upto && err == CL_SUCCESS) {
        if (deadline_ns && (chg_now_ns() >= deadline_ns || !ev_done(p->d2h[p->done]))) break;
        err = ev_wait(&p->d2h[p->done]);
        if (err != CL_SUCCESS) break;
        size_t c0, c1;
        chunk_cols(p->nc, p->nch, p->done, &c0, &c1);
        /* SYRK/SYR2K: only C's triangle goes home; the other stays bit-identical */
        if (c1 > c0)
            vcopy_tri(v, c->c + (p->i0 + (p->j0 + c0) * c->ldc) * c->es, c->ldc,
                      (char *)v->d->st_cout[slot].ptr + c0 * p->mc * c->es, p->mc, p->mc, c1 - c0,
                      c->es, (long)p->i0 - (long)(p->j0 + c0), c->st.c_tri, 0, "unpack C");
        p->done++;
    }
    if (err != CL_SUCCESS || p->done == p->nch) {
        for (int i = 0; i < NCHUNK; i++) ev_release(&p->d2h[i]);
        ev_release(&p->wb);
        p->valid = 0;
    }
    return err;
}

/* Enqueues the copies home of a pending tile once its write-back has run (or, with wait, after
 * waiting for it): issued earlier, they would sit in the copy engine's channel ahead of later
 * host->device copies (see load_slice). */
static cl_int issue_d2h(drv_t *v, int slot, int wait)
{
    call_t *c = v->c;
    pending_t *p = &v->pend[slot];
    if (!p->valid || p->issued) return CL_SUCCESS;
    if (!wait && !ev_done(p->wb)) return CL_SUCCESS;
    cl_int err = ev_wait(&p->wb);
    cl_mem cdev = v->d->buf[B_CDEV][p->cslot];
    for (int ch = 0; ch < p->nch && err == CL_SUCCESS; ch++) {
        size_t c0, c1;
        chunk_cols(p->nc, p->nch, ch, &c0, &c1);
        err = clEnqueueReadBuffer(v->qd, cdev, CL_FALSE, c0 * p->mc * c->es, (c1 - c0) * p->mc * c->es,
                                  (char *)v->d->st_cout[slot].ptr + c0 * p->mc * c->es, 0, NULL,
                                  &p->d2h[ch]);
        if (err == CL_SUCCESS) trace_dev(c, v->d, Q_D2H, "C tile", p->d2h[ch]);
    }
    if (err != CL_SUCCESS) return err;
    clFlush(v->qd);
    p->issued = 1;
    /* The d2h queue is in order: the last chunk's copy frees the device buffer. */
    ev_release(&v->cdev_free[p->cslot]);
    v->cdev_free[p->cslot] = p->d2h[p->nch - 1];
    clRetainEvent(v->cdev_free[p->cslot]);
    v->d2h_bytes += (double)p->mc * p->nc * c->es;
    return CL_SUCCESS;
}

/* Device C buffer cs may be overwritten once the copies home of the tile in it are done: they
 * are issued now if they are not yet, and waited for. */
static cl_int free_cdev(drv_t *v, int cs)
{
    cl_int err = CL_SUCCESS;
    const int o = v->cdev_owner[cs];
    if (o >= 0 && v->pend[o].valid && v->pend[o].cslot == cs) err = issue_d2h(v, o, 1);
    if (err == CL_SUCCESS) err = ev_wait(&v->cdev_free[cs]);
    v->cdev_owner[cs] = -1;
    return err;
}

static cl_int unpack_upto(drv_t *v, int slot, int upto) { return unpack_chunks(v, slot, upto, 0); }

/* Pending tiles oldest first: unpacks what has arrived until the deadline (0: everything,
 * waiting for what is still on its way). */
static cl_int unpack_pending(drv_t *v, unsigned long long deadline_ns)
{
    cl_int err = CL_SUCCESS;
    /* Copies home whose write-back has run go out now, whatever the unpack order. */
    for (int i = 0; i < NOUT && err == CL_SUCCESS; i++) err = issue_d2h(v, i, deadline_ns == 0);
    for (;;) {
        int o = -1;
        for (int i = 0; i < NOUT; i++)
            if (v->pend[i].valid && (o < 0 || v->pend[i].seq < v->pend[o].seq)) o = i;
        if (o < 0) return CL_SUCCESS;
        err = unpack_chunks(v, o, NCHUNK, deadline_ns);
        if (err != CL_SUCCESS || v->pend[o].valid) return err;  /* error, or stopped early */
    }
}

static clhgemm_status_t drive(call_t *c, hdev_t *d)
{
    const plan_t *pl = &c->pl;
    drv_t v = {.c = c, .d = d, .qh = d->q[Q_H2D], .qk = d->q[Q_KERNEL], .qd = d->q[Q_D2H],
               .cdev_owner = {-1, -1}};
    const unsigned long long t_start = chg_now_ns();
    chg_gemm_params_t gp;
    chg_gemm_params_select(&d->dev, c->prec, &gp);
    /* GEMM's kernels, or a level-3 variant: structured packs, TRIANGLE / KLIMIT, masked
     * write-back (with c->st all zero these are GEMM's) */
    clhgemm_status_t st = chg_l3_kernels_create(d->ctx, &d->dev, c->prec, &gp, c->ta, c->tb,
                                                c->beta == 0.0, &c->st, &v.ks);
    if (st != CLHGEMM_SUCCESS) return st;
    cl_int err = prepare_device(c, d, &gp);
    if (err != CL_SUCCESS) {
        chg_gemm_kernels_release(&v.ks);
        return (clhgemm_status_t)err;
    }
    chg_trace_align(c->trace, d->index, v.qk);
    const unsigned long long t_setup = chg_now_ns();
    const size_t bkp = chg_round_up(pl->bk, gp.kwg);
    /* k slices per kernel launch: the plan's group where the packed slices follow one another
     * along k with no padding between them (bk a multiple of KWG), else one. A group never
     * crosses a segment's end (SYR2K), so only its last slice can be short. */
    const size_t kg = pl->kg > 1 && bkp == pl->bk ? (size_t)pl->kg : 1;
    const size_t kts = ceil_div(c->k, pl->bk);  /* slices per segment */
    /* Packed A: a resident band's panels hold all its kt slices one after another along k
     * (band_pk rows), so a launch reads any run of them; streamed A holds one slice (its tiles
     * run a launch per slice); packed B one group (kg slices) per panel. */
    const size_t band_pk = pl->kt * bkp, group_pk = kg * bkp;
    chg_log(2, "device %d: up to %zu k slice(s) of %zu per kernel launch", d->index, kg, pl->bk);
    const int nab = pl->amode == AMODE_PREFETCH ? 2 : 1;
    aband_t ab[2] = {{-1, 0}, {-1, 0}};
    sched_t sc = {-1, -1, 0};
    long pf_band = -1;                  /* band whose prefetch pacing was planned */
    size_t pf_step = 0, pf_span = 1;    /* steps since its prefetch began, steps to spread over */
    size_t ntile = 0;
    size_t ti, j0t, nct;
    int stolen, final;
    while (err == CL_SUCCESS && take_tile(c, &sc, &ti, &j0t, &nct, &stolen, &final)) {
        const size_t i0 = ti * pl->bm;
        const size_t mc = CHG_MIN(pl->bm, c->m - i0);
        /* A device's final tile is done in column pieces (final_pieces; CLHGEMM_FINAL_PIECES
         * forces a count). */
        int npieces = 1;
        const long forced_pieces = final && !c->no_pieces ? atol(chg_getenv("CLHGEMM_FINAL_PIECES") ? chg_getenv("CLHGEMM_FINAL_PIECES") : "0") : 0;
        if (forced_pieces > 0) {
            npieces = (int)CHG_MAX(1L, CHG_MIN(forced_pieces, (long)(nct / gp.nwg)));
        } else if (final && !c->no_pieces) {
            npieces = final_pieces(mc, nct, (size_t)gp.mwg, (size_t)gp.nwg,
                                   CHG_MAX(1u, d->dev.info.compute_units), pl->amode);
        }
        if (npieces > 1)
            chg_log(2, "device %d: final tile (band %zu, columns %zu..%zu) in %d column pieces", d->index,
                    ti, j0t, j0t + nct, npieces);
        for (int piece = 0; piece < npieces && err == CL_SUCCESS; piece++) {
            size_t q0, q1;
            chunk_cols(nct / gp.nwg, npieces, piece, &q0, &q1);
            const size_t j0 = j0t + q0 * gp.nwg;
            const size_t nc = piece == npieces - 1 ? nct - q0 * gp.nwg : (q1 - q0) * gp.nwg;
            const size_t mpad = chg_round_up(mc, gp.mwg), npad = chg_round_up(nc, gp.nwg);
            const size_t seq = ntile++;
            const int slot = (int)(seq % NOUT), cslot = (int)(seq % 2);
            cl_mem cdev = d->buf[B_CDEV][cslot];

            /* Staging slot `slot` must be free: the tile that used it goes home now if it is not
             * yet (normally it was unpacked during later tiles' steps). The device buffer
             * `cdev` is reused after its last copy home (an event dependency below). */
            if ((err = unpack_upto(&v, slot, NCHUNK)) != CL_SUCCESS) break;

            /* A band buffer for this tile, and the one to prefetch into. */
            int cur = -1, pf = -1;
            if (pl->amode != AMODE_STREAM) {
                for (int i = 0; i < nab; i++)
                    if (ab[i].band == (long)ti) cur = i;
                if (cur < 0) {
                    cur = (nab == 2 && sc.next >= 0 && ab[0].band == sc.next) ? 1 : 0;
                    ab[cur] = (aband_t){(long)ti, 0};
                }
                if (nab == 2 && sc.next >= 0 && !stolen) {
                    pf = 1 - cur;
                    if (ab[pf].band != sc.next) ab[pf] = (aband_t){sc.next, 0};
                }
            }
            cl_mem apack = d->buf[B_APACK][cur < 0 ? 0 : cur];

            /* C input chunks are spread over the k steps (they are needed only by the write-back);
             * the staging is free once the previous tile's input copies finished. */
            const int nci = c->beta != 0.0 ? c_chunks(c, mc, nc) : 0;
            int ci = 0;
            if (nci && (err = ev_wait(&v.cin_last)) != CL_SUCCESS) break;
            if (nci && (err = free_cdev(&v, cslot)) != CL_SUCCESS) break;
            /* Kernel time of one step (the unpack budget per step), from the measured rate. */
            const double step_s = 2.0 * (double)mpad * npad * pl->bk / CHG_MAX(1e6, d->rate[c->prec]);
            /* The k slices of this tile: all of them, except where a triangular operand is zero
             * over whole slices (TRMM; chg_l3_k_range). */
            size_t s_lo = 0, s_hi = pl->kt;
            if (c->st.kind_a == CHG_TRIANGULAR || c->st.kind_b == CHG_TRIANGULAR) {
                size_t klo, khi;
                chg_l3_k_range(&c->st, i0, mc, j0, nc, c->k, &klo, &khi);
                s_lo = klo / pl->bk;
                s_hi = CHG_MAX(s_lo + 1, ceil_div(khi, pl->bk));
            }

            /* Kernel groups: slices [gs, ge) are packed side by side along k and run by one
             * launch after the last of them is loaded. Only where the tile's A is already
             * resident: where it still arrives slice by slice (a band's first tile, streamed A)
             * the A slices pace the kernels, and a launch that waited for two of them left the
             * kernel queue idle (H100 trace, n = 32768: 14 ms gaps in the first tile, as much
             * as the grouping saved). The packs of the next group wait for this launch in the
             * in-order kernel queue, and the slice rings (NSTAGE > kg) let the loads run a
             * group ahead of it. */
            const size_t glen = cur >= 0 && ab[cur].loaded >= s_hi ? kg : 1;
            size_t gs = s_lo, ge = s_lo, gp0 = 0;  /* gp0: global k of the group's first row */
            for (size_t s = s_lo; s < s_hi && err == CL_SUCCESS; s++) {
                int seg;
                size_t p0, kc;
                slice_of(c, s, &seg, &p0, &kc);
                const size_t kpad = chg_round_up(kc, gp.kwg);
                if (s == ge) {
                    gs = s;
                    gp0 = p0;
                    ge = CHG_MIN(CHG_MIN(gs + glen, s_hi), (gs / kts + 1) * kts);
                }
                const size_t pos = s - gs;
                /* Ramp: the device's first slice arrives in pl->ramp parts of k, each run by its
                 * own launch as soon as it is in, so that the first kernel waits for a part of a
                 * slice rather than a whole one (the fill: 36 ms of A and B slices at n = 32768
                 * on the H100). Only where this slice is the next one of A to arrive. */
                const size_t ramp_part = chg_round_up(ceil_div(kc, (size_t)CHG_MAX(pl->ramp, 1)), gp.kwg);
                if (seq == 0 && s == s_lo && pl->ramp > 1 && ramp_part < kc && (cur < 0 || ab[cur].loaded == s)) {
                    const size_t pk_a = cur < 0 ? bkp : band_pk, row_a = cur < 0 ? 0 : s * bkp;
                    for (size_t q0 = 0; q0 < kc && err == CL_SUCCESS; q0 += ramp_part) {
                        const size_t qk = CHG_MIN(ramp_part, kc - q0);
                        const size_t ao = (row_a + q0) * gp.mwg, bo = (pos * bkp + q0) * gp.nwg;
                        err = load_a(&v, ti, s, q0, qk, apack, ao, pk_a);
                        if (err == CL_SUCCESS) err = load_b(&v, j0, nc, s, q0, qk, bo, group_pk);
                        if (err == CL_SUCCESS)
                            err = launch_gemm(&v, i0, j0, p0 + q0, mpad, npad, chg_round_up(qk, gp.kwg), apack,
                                              ao, pk_a, bo, group_pk, q0 > 0);
                        clFlush(v.qh);
                        clFlush(v.qk);
                    }
                    if (cur >= 0) ab[cur].loaded = s + 1;
                    if (err != CL_SUCCESS) break;
                    ge = s + 1;  /* this slice is done: the next one starts a group */
                } else {
                size_t aoff = 0, apk = bkp;
                if (cur < 0) {
                    err = load_a(&v, ti, s, 0, 0, apack, 0, bkp);  /* a launch per slice (glen 1) */
                } else {
                    aoff = gs * bkp * gp.mwg;
                    apk = band_pk;
                    while (err == CL_SUCCESS && ab[cur].loaded <= s) {  /* slices arrive in order */
                        err = load_a(&v, ti, ab[cur].loaded, 0, 0, apack, ab[cur].loaded * bkp * gp.mwg, band_pk);
                        ab[cur].loaded++;
                    }
                }
                if (err == CL_SUCCESS) err = load_b(&v, j0, nc, s, 0, 0, pos * bkp * gp.nwg, group_pk);
                if (err != CL_SUCCESS) break;
                if (s + 1 == ge && (err = launch_gemm(&v, i0, j0, gp0, mpad, npad, pos * bkp + kpad, apack,
                                                      aoff, apk, 0, group_pk, gs > s_lo)) != CL_SUCCESS)
                    break;
                }
                clFlush(v.qh);
                clFlush(v.qk);
                /* Prefetch: once this band's own A is in, the next band's slices are spread evenly
                 * over all the steps this device still has in the band (those left when the
                 * prefetch begins; CLHGEMM_PREFETCH_EARLY=1: done half a tile early, as before).
                 * The next band's first step needs only its first slice, which went long before;
                 * squeezing the band into fewer steps made 2 A slices per step compete with the
                 * B slices for the pack threads and the bus, and the kernel queue ran dry: two
                 * 20-50 ms gaps per band at n = 32768 on the H100. */
                if (pf >= 0 && ab[cur].loaded >= pl->kt) {
                    if (pf_band != ab[pf].band) {
                        pthread_mutex_lock(&c->mu);
                        const size_t left = ceil_div(band_left(&c->bands[ti]), pl->bn);
                        pthread_mutex_unlock(&c->mu);
                        const size_t steps = left * pl->kt + (pl->kt - s - 1);
                        pf_band = ab[pf].band;
                        pf_step = 0;
                        const char *early = chg_getenv("CLHGEMM_PREFETCH_EARLY");
                        pf_span = CHG_MAX((size_t)1, early && !strcmp(early, "1") && steps > pl->kt / 2
                                                         ? steps - pl->kt / 2 : steps);
                    }
                    pf_step++;
                    const size_t due = CHG_MIN(pl->kt, ceil_div(pl->kt * pf_step, pf_span));
                    while (err == CL_SUCCESS && ab[pf].loaded < due) {
                        err = load_a(&v, (size_t)ab[pf].band, ab[pf].loaded, 0, 0, d->buf[B_APACK][pf],
                                     ab[pf].loaded * bkp * gp.mwg, band_pk);
                        ab[pf].loaded++;
                    }
                    clFlush(v.qh);
                    clFlush(v.qk);
                    if (err != CL_SUCCESS) break;
                }
                /* C traffic: this tile's input chunks due by this step (the write-back needs them
                 * all); then earlier tiles' chunks that have arrived, for at most about half a
                 * step's kernel time, so that the queue never runs dry behind an unpack (what
                 * is left carries over to later steps and tiles). */
                const int ci_due = (int)ceil_div((size_t)nci * (s - s_lo + 1), s_hi - s_lo);
                while (err == CL_SUCCESS && ci < ci_due) {
                    err = cin_chunk(&v, i0, j0, mc, nc, nci, ci, cdev);
                    ci++;
                }
                clFlush(v.qh);
                if (err == CL_SUCCESS)
                    err = unpack_pending(&v, chg_now_ns() + (unsigned long long)(0.5e9 * step_s) + 1);
            }
            if (err != CL_SUCCESS) break;

            /* Write-back on the device (after the last input chunk), then home in chunks. */
            /* With beta == 0 nothing was copied into cdev: its previous contents must be home
             * before the write-back overwrites it (the kernel queue may wait on the event). */
            if (!nci && v.cdev_owner[cslot] >= 0) {
                const int o = v.cdev_owner[cslot];
                if (v.pend[o].valid && v.pend[o].cslot == cslot && (err = issue_d2h(&v, o, 1)) != CL_SUCCESS)
                    break;
                v.cdev_owner[cslot] = -1;
            }
            cl_event wb = NULL, wbw[2];
            cl_uint nwb = 0;
            if (v.cin_last) wbw[nwb++] = v.cin_last;
            if (v.cdev_free[cslot]) wbw[nwb++] = v.cdev_free[cslot];
            err = chg_enqueue_writeback_at(v.qk, &v.ks, i0, j0, mc, nc, c->alpha, c->beta, d->buf[B_CP][0],
                                           mpad, cdev, 0, mc, nwb, nwb ? wbw : NULL, &wb);
            if (err != CL_SUCCESS) break;
            trace_dev(c, d, Q_KERNEL, "write-back", wb);
            /* Home later: the copies are issued once the write-back has run. */
            v.pend[slot] = (pending_t){.valid = 1, .seq = seq, .cslot = cslot, .wb = wb, .i0 = i0,
                                       .j0 = j0, .mc = mc, .nc = nc, .nch = c_chunks(c, mc, nc)};
            v.cdev_owner[cslot] = slot;
            clFlush(v.qk);
            clFlush(v.qd);
        }
    }
    const unsigned long long t_loop = chg_now_ns();
    /* Drain: results of tiles already computed still go home (unless the device failed). */
    if (err == CL_SUCCESS) err = unpack_pending(&v, 0);
    for (int q = 0; q < d->nq; q++) clFinish(d->q[q]);
    chg_log(1, "device %d: %zu tile(s); setup %.1f ms (kernels, buffers), tiles enqueued and "
               "previous ones unpacked %.1f ms, last tiles home %.1f ms",
            d->index, ntile, (t_setup - t_start) * 1e-6, (t_loop - t_setup) * 1e-6,
            (chg_now_ns() - t_loop) * 1e-6);
    for (int r = 0; r < NSTAGE; r++) {
        ev_release(&v.ra.h2d[r]);
        ev_release(&v.ra.pack[r]);
        ev_release(&v.rb.h2d[r]);
        ev_release(&v.rb.pack[r]);
    }
    for (int s = 0; s < NOUT; s++) {
        for (int i = 0; i < NCHUNK; i++) ev_release(&v.pend[s].d2h[i]);
        ev_release(&v.pend[s].wb);
    }
    for (int s = 0; s < 2; s++) ev_release(&v.cdev_free[s]);
    ev_release(&v.cin_last);
    chg_gemm_kernels_release(&v.ks);
    pthread_mutex_lock(&c->mu);
    c->bytes_h2d += v.h2d_bytes;
    c->bytes_d2h += v.d2h_bytes;
    c->copy_bytes += v.copy_bytes;
    c->copy_ns += v.copy_ns;
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

/* ---- the CPU share ------------------------------------------------------------------------ */

/* CPU_STRIPS: the CPU takes column strips from the back of the fullest band, each sized for
 * about 0.1 s of OpenBLAS, and stops once a strip would outlast what the devices have left
 * (the CPU must never become the call's tail). */
static int take_strip(call_t *c, size_t *ti, size_t *j0, size_t *w)
{
    pthread_mutex_lock(&c->mu);
    int ok = c->status == CLHGEMM_SUCCESS;
    long b = -1;
    size_t most = 0;
    for (size_t i = 0; ok && i < c->pl.mt; i++)
        if (band_left(&c->bands[i]) > most) {
            most = band_left(&c->bands[i]);
            b = (long)i;
        }
    if (ok && b >= 0) {
        const size_t mc = CHG_MIN(c->pl.bm, c->m - (size_t)b * c->pl.bm);
        const double per_col = 2.0 * (double)mc * (double)c->k;
        size_t width = (size_t)(c->cpu_rate * 0.1 / per_col);
        width = CHG_MIN(CHG_MAX(chg_round_up(CHG_MAX(width, (size_t)1), 16), (size_t)64), most);
        const double cpu_s = per_col * (double)width / c->cpu_rate;
        const double dev_s = per_col * (double)(bands_left(c->bands, c->pl.mt) - width) / c->gpu_rate;
        if (cpu_s < 0.8 * dev_s)
            band_take(&c->bands[b], (size_t)b, 0, width, 0, j0, w);
        else
            b = -1;
    }
    pthread_mutex_unlock(&c->mu);
    if (!ok || b < 0) return 0;
    *ti = (size_t)b;
    return 1;
}

static void *cpu_strips_main(void *arg)
{
    call_t *c = arg;
    size_t ti, j0, w;
    while (take_strip(c, &ti, &j0, &w)) {
        const size_t i0 = ti * c->pl.bm, mc = CHG_MIN(c->pl.bm, c->m - i0), es = c->es;
        const unsigned long long t0 = chg_now_ns();
        chg_cpu_gemm(c->prec, c->ta, c->tb, mc, w, c->k, c->alpha,
                     c->ta ? c->a + i0 * c->lda * es : c->a + i0 * es, c->lda,
                     c->tb ? c->b + j0 * es : c->b + j0 * c->ldb * es, c->ldb, c->beta,
                     c->c + (i0 + j0 * c->ldc) * es, c->ldc, c->cpu_threads);
        chg_trace_host(c->trace, "cpu openblas", "gemm strip", t0, chg_now_ns());
        pthread_mutex_lock(&c->mu);
        c->cpu_elems += (double)mc * w;
        pthread_mutex_unlock(&c->mu);
    }
    return NULL;
}

/* CPU_SLAB: rows [r0, m) of C (column-major view) on the CPU, in one OpenBLAS call. */
typedef struct slab_s {
    call_t *c;
    size_t r0, rows;
    pthread_t th;
} slab_t;

static void *cpu_slab_main(void *arg)
{
    slab_t *sl = arg;
    call_t *c = sl->c;
    const size_t es = c->es;
    const unsigned long long t0 = chg_now_ns();
    chg_cpu_gemm(c->prec, c->ta, c->tb, sl->rows, c->n, c->k, c->alpha,
                 c->ta ? c->a + sl->r0 * c->lda * es : c->a + sl->r0 * es, c->lda, c->b, c->ldb,
                 c->beta, c->c + sl->r0 * es, c->ldc, c->cpu_threads);
    chg_trace_host(c->trace, "cpu openblas", "gemm slab", t0, chg_now_ns());
    return NULL;
}

/* Seed 004's split for the slab: the CPU takes m_c rows so that its time equals the devices'
 * on the rest, slowed by gamma (the cores and memory bandwidth the share takes from the
 * pipeline): m_c * 2nk/r_cpu = (1 + gamma) * T_dev * (m - m_c)/m. Returns the rows and the
 * predicted time; 0 rows when the hybrid would not be at least 2% faster. */
static size_t split_rows(double m, double n, double k, double t_dev, double r_cpu, double gamma,
                         double *t_hybrid)
{
    *t_hybrid = t_dev;
    if (!(r_cpu > 0) || !(t_dev > 0)) return 0;
    const double a = 2.0 * n * k / r_cpu, b = (1.0 + gamma) * t_dev / m;
    const double mc = b * m / (a + b);
    const double t = a * mc;
    if (mc < 1.0 || t > 0.98 * t_dev) return 0;
    *t_hybrid = t;
    return (size_t)mc;
}

/* The same split from the split model clhgemm-tune --cpu-model stored for the device (seed 004:
 * T_gpu, T_cpu, transfers, gamma), used instead of the rates above when the handle has one
 * device whose exact tuning entry has a model measured with the handle's OpenBLAS threads.
 * Returns 1 when the model applies, with the rows (0 unless 2% faster) and the time. */
static int model_rows(clhgemm_handle_t h, chg_precision_t prec, double m, double n, double k,
                      int beta_nonzero, double t_plan, size_t *rows, double *t_hybrid)
{
    if (h->ndev != 1) return 0;
    chg_tuning_entry_t te;
    chg_tuning_lookup(&h->devs[0].dev, prec, &te);
    const chg_tuning_cpumodel_t *cm = &te.cpumodel;
    if (!cm->present) return 0;
    if (cm->cpu_threads != h->cpu_threads) {
        chg_log(1, "CPU share (auto): the split model of %s was measured with %d OpenBLAS threads, "
                   "this handle has %d: not used",
                cm->present ? te.cpumodel_source : "", cm->cpu_threads, h->cpu_threads);
        return 0;
    }
    const double es = (double)chg_elem_size(prec);
    double t;
    const double mc = chg_split_best(&cm->split, m, n, k, es, beta_nonzero, &t);
    const double t_dev = chg_split_time(&cm->split, 0, m, n, k, es, beta_nonzero, NULL, NULL);
    /* The hybrid must also beat the planner's own prediction for the devices alone: the
     * model's T_gpu is fitted on a few shapes and extrapolates (on the H100 it put SGEMM at
     * n = 16384 at 3.8x the planner's figure, which was right within 7%, and a 3% share made
     * the call 16x slower), while the planner models this very call. */
    /* CLHGEMM_CPU_MODEL_ONLY=1 (tests, experiments): the stored model decides alone. */
    if (chg_getenv("CLHGEMM_CPU_MODEL_ONLY")) t_plan = 0;
    *rows = mc >= 1 && t <= 0.98 * t_dev && (t_plan <= 0 || t <= 0.98 * t_plan) ? (size_t)mc : 0;
    *t_hybrid = *rows ? t : t_dev;
    chg_log(1, "CPU share (auto): split model from %s (gamma %.2f, mean error %.1f%%): devices "
               "alone %.1f ms, %zu of %.0f rows to the CPU, %.1f ms%s",
            te.cpumodel_source, cm->split.gamma, 100.0 * cm->mean_rel_err, t_dev * 1e3, *rows, m,
            *t_hybrid * 1e3, *rows ? "" : " (no gain: the devices alone)");
    return 1;
}

/* The plan of a call: CLHGEMM_TILE if set (experiments and tests), else the model's best, with
 * hysteresis against the handle's last plan. Returns 1 when a plan fits. */
static int plan_call(clhgemm_handle_t h, const pctx_t *pc, call_t *c)
{
    /* Forced shape for experiments and tests: CLHGEMM_TILE=bm,bn,bk[,stream|resident|prefetch]
     * (without a mode: the best that fits). */
    const char *forced = chg_getenv("CLHGEMM_TILE");
    int ok = 0;
    if (forced) {
        unsigned long bm = 0, bn = 0, bk = 0;
        char mode[16] = "";
        const int nf = sscanf(forced, "%lu,%lu,%lu,%15s", &bm, &bn, &bk, mode);
        if (nf >= 3 && bm && bn && bk) {
            bm = CHG_MIN(bm, c->m); bn = CHG_MIN(bn, c->n); bk = CHG_MIN(bk, c->k);
            /* level-3 constraints (pctx_t) hold for forced shapes too */
            if (pc->fix_m) bm = c->m;
            if (pc->fix_n) bn = c->n;
            if (pc->square) bk = pc->square == 1 ? bm : bn;
            int lo = AMODE_STREAM, hi = pc->no_prefetch ? AMODE_RESIDENT : AMODE_PREFETCH;
            if (nf == 4) {
                static const char *const key[] = {"stream", "resident", "prefetch"};
                for (int i = AMODE_STREAM; i <= AMODE_PREFETCH; i++)
                    if (!strcmp(mode, key[i])) lo = hi = i;
            }
            if (lo > hi) lo = hi;
            for (int am = hi; am >= lo && !ok; am--)
                if (plan_fits(pc, bm, bn, bk, am) || am == lo) {
                    c->pl = (plan_t){bm, bn, bk, ceil_div(c->m, bm), ceil_div(c->n, bn), plan_kt(pc, bk),
                                    am, plan_time(pc, bm, bn, bk, am, NULL), pc->kgroup, pc->ramp};
                    ok = 1;
                }
        } else {
            chg_log(1, "CLHGEMM_TILE=%s ignored (want bm,bn,bk[,stream|resident|prefetch])", forced);
        }
    }
    if (!ok) {
        ok = make_plan(pc, &c->pl);
        /* A level-3 call whose shape is constrained neither keeps nor sets the last shape. */
        const int constrained = pc->fix_m || pc->fix_n || pc->square || pc->no_prefetch;
        /* Hysteresis: the inputs move a little between calls (the pack rate is what the last
         * call reached), and a new tile shape can mean seconds of new pinned allocations; the
         * last shape stays unless the new one is predicted 3% faster. */
        if (ok && !constrained && h->last_bm && (h->last_bm != c->pl.bm || h->last_bn != c->pl.bn || h->last_bk != c->pl.bk ||
                                 h->last_amode != c->pl.amode)) {
            const size_t bm = CHG_MIN(h->last_bm, chg_round_up(c->m, pc->tile_m)),
                         bn = CHG_MIN(h->last_bn, chg_round_up(c->n, pc->tile_n)),
                         bk = CHG_MIN(h->last_bk, chg_round_up(c->k, pc->tile_k));
            if (plan_fits(pc, bm, bn, bk, h->last_amode)) {
                const double t = plan_time(pc, bm, bn, bk, h->last_amode, NULL);
                if (t <= c->pl.predicted * 1.03)
                    c->pl = (plan_t){bm, bn, bk, ceil_div(c->m, bm), ceil_div(c->n, bn), plan_kt(pc, bk),
                                    h->last_amode, t, pc->kgroup, pc->ramp};
            }
        }
        if (ok && !constrained) {
            h->last_bm = c->pl.bm;
            h->last_bn = c->pl.bn;
            h->last_bk = c->pl.bk;
            h->last_amode = c->pl.amode;
        }
    }
    return ok;
}

/* C := beta*C on the host (k == 0 or alpha == 0): C is not read when beta == 0 and not touched
 * when beta == 1; with c_tri only that triangle of C. */
static void scale_c(const call_t *c, double beta)
{
    if (beta == 1.0) return;
    for (size_t j = 0; j < c->n; j++) {
        char *col = c->c + j * c->ldc * c->es;
        size_t i0 = 0, i1 = c->m;
        if (c->st.c_tri == CHG_TRI_UPPER) i1 = CHG_MIN(c->m, j + 1);
        if (c->st.c_tri == CHG_TRI_LOWER) i0 = CHG_MIN(c->m, j);
        for (size_t i = i0; i < i1; i++) {
            if (c->prec == CHG_F64) {
                double *x = (double *)col + i;
                *x = beta == 0.0 ? 0.0 : beta * *x;
            } else {
                float *x = (float *)col + i;
                *x = beta == 0.0 ? 0.0f : (float)(beta * *x);
            }
        }
    }
}

static clhgemm_status_t run_call(clhgemm_handle_t h, call_t *cp);

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
        scale_c(&c, beta);
        return CLHGEMM_SUCCESS;
    }
    c.flops = 2.0 * c.m * c.n * c.k;
    c.name = prec == CHG_F64 ? "dgemm" : "sgemm";
    return run_call(h, &c);
}

/* A checked call with its operands mapped (column-major view), through the pipeline. */
static clhgemm_status_t run_call(clhgemm_handle_t h, call_t *cp)
{
    call_t c = *cp;
    const chg_precision_t prec = c.prec;
    const size_t es = c.es;
    const double alpha = c.alpha, beta = c.beta;
    clhgemm_status_t st;

    pthread_mutex_lock(&h->call_lock);
    unsigned long long t0 = chg_now_ns();
    unsigned long long t_planned = t0;
    /* Plan for the slowest common denominator of the devices. */
    pctx_t pc = {.m = c.m, .n = c.n, .k = c.k, .es = es, .beta_zero = beta == 0.0,
                 .mem = ~0ull, .max_alloc = ~0ull, .ndev = h->ndev, .pack = h->pack_bps,
                 .segs = CHG_MAX(c.segs, 1)};
    /* Level-3 calls: what the schedule must respect (docs/ARCHITECTURE.md, host level 3).
     * TRMM is in place (C is B). Its tiles span the independent direction of B whole -- all
     * rows for side left (B's columns are independent), all columns for side right (rows) --
     * so a tile reads only the part of B that it alone writes, and reads all of it (its k
     * loop) before its write-back; no band is prefetched (a claimed band can be stolen), the
     * right side's tile is not split into pieces (a piece would re-read the row band another
     * piece wrote). A symmetric operand gets k slices as long as its tiles, so that the
     * blocks crossing its diagonal are the diagonal squares (staged once, stage_geometry); on
     * the X_B side the tiles then keep to the bn grid (no pieces, aligned takes). */
    const int tri_a = c.st.kind_a == CHG_TRIANGULAR, tri_b = c.st.kind_b == CHG_TRIANGULAR;
    pc.fix_m = tri_a;
    pc.fix_n = tri_b;
    pc.no_prefetch = tri_a || tri_b;
    pc.square = c.st.kind_a == CHG_SYMMETRIC ? 1 : c.st.kind_b == CHG_SYMMETRIC ? 2 : 0;
    c.align_n = c.st.kind_b == CHG_SYMMETRIC;
    c.no_pieces = c.st.kind_b != CHG_GENERAL;
    pc.tile_m = pc.tile_n = pc.tile_k = 1;
    pc.cus = ~0u;
    pc.step_cost = 0;
    double min_h2d = INFINITY, min_d2h = INFINITY, min_dev = INFINITY;
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
        min_dev = CHG_MIN(min_dev, d->dev_bps);
    }
    pc.dev = min_dev;
    /* Pinned staging: CLHGEMM_PINNED_LIMIT, else 1/10 of the host's memory (at least 1 GiB): the
     * matrices themselves may fill most of it (a problem larger than the device's memory). */
    {
        const long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        const unsigned long long phys = pages > 0 && psize > 0 ? (unsigned long long)pages * (unsigned long long)psize : (8ull << 30);
        pc.pinned = chg_getenv_size("CLHGEMM_PINNED_LIMIT", CHG_MAX(1ull << 30, phys / 10));
    }
    /* The pack threads share host memory bandwidth with the DMA engines while the pipeline
     * runs; measured into pinned memory with large copies (measure_pack), the rate alone was
     * 43 GB/s on the H100 machine and the pack threads reached ~45-52 GB/s in its traces. */
    pc.pack = h->pack_seen_bps > 0 ? h->pack_seen_bps : h->pack_bps * 0.9;
    pc.kgroup = CHG_MAX(1, CHG_MIN(NSTAGE - 1, env_int("CLHGEMM_KGROUP", 2)));
    pc.ramp = CHG_MAX(1, CHG_MIN(64, env_int("CLHGEMM_RAMP", 4)));
    pc.h2d = min_h2d * h->ndev;
    pc.d2h = min_d2h * h->ndev;
    int ok = plan_call(h, &pc, &c);
    if (!ok) {
        pthread_mutex_unlock(&h->call_lock);
        return CLHGEMM_WORKSPACE_TOO_SMALL;
    }

    /* The CPU's share: a slab of the bottom rows (seed 004's ratio), or strips from the band
     * schedule (CLHGEMM_CPU_SCHED=strips). "auto" sizes it with the split model against the
     * devices' plan, and never where every device is itself a CPU (PoCL would only compete
     * with OpenBLAS for the same cores). */
    const size_t m_all = c.m;
    size_t cpu_rows = 0;
    double predicted = c.pl.predicted, r_cpu = 0;
    int any_gpu = 0;
    for (int i = 0; i < h->ndev; i++) any_gpu |= (h->devs[i].dev.features & CHG_FEAT_GPU) != 0;
    if (chg_getenv("CLHGEMM_CPU_SHARE_ANY_DEVICE")) any_gpu = 1;  /* test hook */
    /* Level-3 calls run without it (TRMM's in-place order and the triangles of SYRK/SYR2K are
     * the pipeline's business; OpenBLAS would need its own structured calls). */
    if (c.l3) {
        /* no CPU share */
    } else if (h->cpu_mode == CPU_FIXED && h->cpu_fixed > 0) {
        if (h->cpu_sched == CPU_STRIPS && h->cpu_fixed < 1.0)
            c.cpu_strips = 1;
        else
            cpu_rows = CHG_MIN(c.m, CHG_MAX((size_t)1, (size_t)llround(h->cpu_fixed * (double)c.m)));
    } else if (h->cpu_mode == CPU_AUTO && any_gpu) {
        double t_h;
        size_t rows = 0;
        if (!model_rows(h, prec, (double)c.m, (double)c.n, (double)c.k, beta != 0.0, c.pl.predicted,
                        &rows, &t_h)) {
            r_cpu = chg_cpu_rate(prec, h->cpu_threads);
            rows = split_rows((double)c.m, (double)c.n, (double)c.k, c.pl.predicted, r_cpu,
                              h->cpu_gamma, &t_h);
            chg_log(1, "CPU share (auto): OpenBLAS %.1f GFLOP/s on %d threads, devices' plan %.1f ms; "
                       "split model: %zu of %zu rows to the CPU, %.1f ms%s",
                    r_cpu * 1e-9, h->cpu_threads, c.pl.predicted * 1e3, rows, c.m, t_h * 1e3,
                    rows ? "" : " (no gain: the devices alone)");
        }
        if (rows) {
            predicted = t_h;
            if (h->cpu_sched == CPU_STRIPS)
                c.cpu_strips = 1;
            else
                cpu_rows = rows;
        }
    }
    c.cpu_threads = h->cpu_threads;
    if (cpu_rows >= c.m) {
        /* Everything on the CPU. */
        const unsigned long long t1 = chg_now_ns();
        chg_cpu_gemm(prec, c.ta, c.tb, c.m, c.n, c.k, alpha, c.a, c.lda, c.b, c.ldb, beta, c.c, c.ldc,
                     h->cpu_threads);
        h->last = (clhgemm_call_info_t){.seconds = seconds_since(t0), .cpu_fraction = 1.0,
                                        .cpu_threads = h->cpu_threads,
                                        .predicted_seconds = predicted};
        chg_log(1, "CPU share 1: %.3f s on OpenBLAS", (chg_now_ns() - t1) * 1e-9);
        pthread_mutex_unlock(&h->call_lock);
        return CLHGEMM_SUCCESS;
    }
    if (cpu_rows) {
        /* The devices take the top rows: plan again for them. */
        c.m -= cpu_rows;
        pc.m = c.m;
        if (!plan_call(h, &pc, &c)) {
            pthread_mutex_unlock(&h->call_lock);
            return CLHGEMM_WORKSPACE_TOO_SMALL;
        }
        if (h->cpu_mode == CPU_FIXED) predicted = CHG_MAX(c.pl.predicted, 2.0 * cpu_rows * c.n * c.k /
                                                          CHG_MAX(1.0, chg_cpu_rate(prec, h->cpu_threads)));
    }
    if (c.cpu_strips) {
        c.cpu_rate = r_cpu > 0 ? r_cpu : chg_cpu_rate(prec, h->cpu_threads);
        c.gpu_rate = 2.0 * (double)c.m * c.n * c.k / CHG_MAX(1e-9, c.pl.predicted);
        if (!(c.cpu_rate > 0)) c.cpu_strips = 0;
    }
    if (cpu_rows || c.cpu_strips) c.pack_parts = CHG_MAX(1, chg_cpu_cores() - h->cpu_threads);
    if (chg_verbose() >= 1) {
        pterms_t t;
        plan_time(&pc, c.pl.bm, c.pl.bn, c.pl.bk, c.pl.amode, &t);
        unsigned long long largest;
        const unsigned long long mem = plan_mem(&pc, c.pl.bm, c.pl.bn, c.pl.bk, c.pl.amode, &largest);
        const double steady = steady_time(&t);
        const double mx = CHG_MAX(CHG_MAX(t.compute + t.devcopy, t.h2d), CHG_MAX(t.d2h, t.pack));
        const char *bound = mx == t.compute + t.devcopy ? "kernel" : mx == t.pack ? "pack threads"
                          : mx == t.h2d ? "host->device bus" : "device->host bus";
        chg_log(1, "plan %s m=%zu n=%zu k=%zu on %d device(s): tiles %zux%zu, k slices %zu "
                   "(%zux%zu tiles x %zu slices, up to %d per launch), A %s, %.2f of %.2f GiB per device, %.2f of %.2f GiB pinned",
                c.name, c.m, c.n, c.k, h->ndev, c.pl.bm, c.pl.bn,
                c.pl.bk, c.pl.mt, c.pl.nt, c.pl.kt, c.pl.kg, amode_name[c.pl.amode], mem / 1073741824.0,
                pc.mem / 1073741824.0,
                plan_pinned(&pc, c.pl.bm, c.pl.bn, c.pl.bk) * (double)h->ndev / 1073741824.0,
                pc.pinned / 1073741824.0);
        chg_log(1, "  why: model %.1f ms = steady %.1f (kernel %.1f + device copies %.1f, h2d %.1f, d2h %.1f, pack %.1f: "
                   "%s-bound) + A band bursts %.1f + fill %.1f + drain %.1f + imbalance %.1f + steps %.1f; "
                   "inputs: kernel %.1f GFLOP/s, h2d %.1f GB/s, d2h %.1f GB/s, pack %.1f GB/s, device %.0f GB/s",
                t.total * 1e3, steady * 1e3, t.compute * 1e3, t.devcopy * 1e3, t.h2d * 1e3, t.d2h * 1e3, t.pack * 1e3,
                bound, t.burst * 1e3, t.fill * 1e3, t.drain * 1e3, t.imbalance * 1e3, t.steps * 1e3,
                pc.rate * 1e-9, pc.h2d * 1e-9, pc.d2h * 1e-9, pc.pack * 1e-9, pc.dev * 1e-9);
    }

    t_planned = chg_now_ns();
    c.bands = malloc(c.pl.mt * sizeof *c.bands);
    if (!c.bands) {
        pthread_mutex_unlock(&h->call_lock);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    /* SYRK/SYR2K: a band holds only the columns whose tiles touch C's triangle (upper: from
     * the band's first row on; lower: up to its last row), so no other tile is ever taken. */
    c.ntiles = 0;
    for (size_t b = 0; b < c.pl.mt; b++) {
        const size_t i0 = b * c.pl.bm, i1 = CHG_MIN(c.m, i0 + c.pl.bm);
        c.bands[b] = (band_t){c.st.c_tri == CHG_TRI_UPPER ? CHG_MIN(i0, c.n) : 0,
                              c.st.c_tri == CHG_TRI_LOWER ? CHG_MIN(i1, c.n) : c.n};
        c.ntiles += ceil_div(band_left(&c.bands[b]), c.pl.bn);
    }
    c.drivers = h->ndev;
    pthread_mutex_init(&c.mu, NULL);
    c.trace = chg_trace_begin(h->trace_path);
    /* One driver thread per device; the caller drives device 0. */
    driver_t *drs = calloc((size_t)h->ndev, sizeof *drs);
    if (!drs) {
        pthread_mutex_destroy(&c.mu);
        free(c.bands);
        chg_trace_end(c.trace);
        pthread_mutex_unlock(&h->call_lock);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    for (int i = 1; i < h->ndev; i++) {
        drs[i] = (driver_t){.c = &c, .d = &h->devs[i]};
        if (pthread_create(&drs[i].th, NULL, driver_main, &drs[i]) != 0) {
            drs[i].d = NULL;  /* the others take its tiles */
            pthread_mutex_lock(&c.mu);
            c.drivers--;
            pthread_mutex_unlock(&c.mu);
        }
    }
    /* The CPU share runs beside the drivers (its own thread). */
    slab_t slab = {.c = &c, .r0 = c.m, .rows = cpu_rows};
    pthread_t strips_th;
    int slab_on = 0, strips_on = 0;
    if (cpu_rows) {
        slab_on = pthread_create(&slab.th, NULL, cpu_slab_main, &slab) == 0;
        if (!slab_on) cpu_slab_main(&slab);  /* no thread: do it here, before the devices */
    }
    if (c.cpu_strips) strips_on = pthread_create(&strips_th, NULL, cpu_strips_main, &c) == 0;
    drs[0] = (driver_t){.c = &c, .d = &h->devs[0]};
    driver_main(&drs[0]);
    for (int i = 1; i < h->ndev; i++)
        if (drs[i].d) pthread_join(drs[i].th, NULL);
    if (slab_on) pthread_join(slab.th, NULL);
    if (strips_on) pthread_join(strips_th, NULL);
    free(drs);
    st = c.status;
    c.cpu_elems += (double)cpu_rows * c.n;
    if (chg_trace_end(c.trace) != 0) chg_log(1, "could not write the trace %s", h->trace_path);
    h->last = (clhgemm_call_info_t){.devices_used = c.devices_used, .tiles = (long long)c.ntiles,
                                    .tile_m = (int)c.pl.bm, .tile_n = (int)c.pl.bn,
                                    .tile_k = (int)c.pl.bk, .seconds = seconds_since(t0),
                                    .bytes_to_device = c.bytes_h2d, .bytes_from_device = c.bytes_d2h,
                                    .a_mode = c.pl.amode, .tiles_stolen = c.stolen,
                                    .cpu_fraction = c.cpu_elems / ((double)m_all * c.n),
                                    .cpu_threads = c.cpu_elems > 0 ? c.cpu_threads : 0,
                                    .predicted_seconds = predicted};
    chg_log(1, "done in %.3f s (planning %.1f ms): %.1f GFLOP/s, %.2f GB to devices, %.2f GB back, "
               "%lld tile(s) stolen",
            h->last.seconds, (t_planned - t0) * 1e-6, c.flops / h->last.seconds * 1e-9, c.bytes_h2d * 1e-9,
            c.bytes_d2h * 1e-9, c.stolen);
    /* The pack rate the pipeline reached (drivers' copies overlap: their wall times are
     * shared) replaces the handle's estimate for the next plan, once a call moved enough to
     * say (small copies are dominated by waking the threads). Kept within 4x of the rate
     * measured alone, against a call disturbed from outside. */
    if (st == CLHGEMM_SUCCESS && c.copy_bytes >= 256e6 && c.copy_ns > 0 && c.devices_used > 0) {
        const double seen = c.copy_bytes / (c.copy_ns * 1e-9 / c.devices_used);
        h->pack_seen_bps = CHG_MIN(CHG_MAX(seen, 0.25 * h->pack_bps), 4.0 * h->pack_bps);
        chg_log(1, "pack threads reached %.1f GB/s in this call (%.2f GB); the next plan uses it",
                seen * 1e-9, c.copy_bytes * 1e-9);
    }
    pthread_mutex_destroy(&c.mu);
    free(c.bands);
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

/* ---- SYMM, SYRK, SYR2K, TRMM on host memory ----------------------------------------------- */

/* A level-3 call after its shape checks (level3.c, shared with the device-buffer versions):
 * the NULL checks in check_call's order (A when the product reads it; B when SYMM or SYR2K
 * read it or TRMM writes it; C when it is written), FP64, the quick paths, then the pipeline
 * with the call's structure. The mapping onto the core (which operand is which, transposes,
 * the structure, TRMM's C = B) is chg_l3_core_args's, the one the device versions use; it
 * takes cl_mem handles, so the host pointers travel through it as opaque handles. */
static clhgemm_status_t host_l3(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                                const char *name, double alpha, const void *A, int lda,
                                const void *B, int ldb, double beta, void *C, int ldc)
{
    const int touch = sh->m > 0 && sh->n > 0, product = touch && sh->k > 0 && alpha != 0.0;
    const int trmm = sh->routine == CHG_L3_TRMM;
    if (product && !A) return CLHGEMM_NULL_BUFFER_A;
    if (!B && ((product && (sh->routine == CHG_L3_SYMM || sh->routine == CHG_L3_SYR2K)) || (trmm && touch)))
        return CLHGEMM_NULL_BUFFER_B;
    if (touch && !trmm && !C) return CLHGEMM_NULL_BUFFER_C;
    if (prec == CHG_F64)
        for (int i = 0; i < h->ndev; i++)
            if (!(h->devs[i].dev.features & CHG_FEAT_FP64)) return CLHGEMM_FP64_NOT_SUPPORTED;
    if (!touch) return CLHGEMM_SUCCESS;

    chg_gemm_args_t g;
    chg_l3_core_args(sh, prec, alpha, (cl_mem)(uintptr_t)A, 0, (size_t)lda, (cl_mem)(uintptr_t)B, 0,
                     (size_t)ldb, beta, (cl_mem)(uintptr_t)C, 0, (size_t)ldc, &g);
    call_t c = {.h = h, .prec = prec, .es = chg_elem_size(prec), .ta = g.trans_a, .tb = g.trans_b,
                .m = g.m, .n = g.n, .k = g.k, .alpha = alpha, .beta = g.beta,
                .a = (const char *)(uintptr_t)g.a, .b = (const char *)(uintptr_t)g.b,
                .c = (char *)(uintptr_t)g.c, .lda = g.lda, .ldb = g.ldb, .ldc = g.ldc,
                .status = CLHGEMM_SUCCESS, .st = g.st, .segs = g.swap_sum ? 2 : 1, .l3 = 1,
                .name = name};
    if (!product) {
        /* alpha == 0 (or k == 0): C := beta*C on C's triangle for SYRK/SYR2K; TRMM sets B to 0
         * without reading A or B */
        scale_c(&c, g.beta);
        return CLHGEMM_SUCCESS;
    }
    /* the routine's own operation count: SYMM 2*m*n*ka, SYRK n*n*k, SYR2K 2*n*n*k, TRMM m*n*ka */
    const double mn = (double)c.m * c.n;
    c.flops = sh->routine == CHG_L3_SYMM ? 2.0 * mn * c.k : sh->routine == CHG_L3_TRMM ? mn * c.k
            : c.segs * mn * c.k;
    return run_call(h, &c);
}

static clhgemm_status_t host_symm(clhgemm_handle_t h, chg_precision_t prec, int layout, int side,
                                  int uplo, int m, int n, double alpha, const void *A, int lda,
                                  const void *B, int ldb, double beta, void *C, int ldc)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_symm_check_shape(layout, side, uplo, m, n, lda, ldb, ldc, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    return host_l3(h, prec, &sh, prec == CHG_F64 ? "dsymm" : "ssymm", alpha, A, lda, B, ldb, beta, C, ldc);
}

static clhgemm_status_t host_syrk(clhgemm_handle_t h, chg_precision_t prec, int two, int layout,
                                  int uplo, int trans, int n, int k, double alpha, const void *A,
                                  int lda, const void *B, int ldb, double beta, void *C, int ldc)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_syrk_check_shape(layout, uplo, trans, n, k, lda, ldb, ldc, two, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    static const char *const names[2][2] = {{"ssyrk", "dsyrk"}, {"ssyr2k", "dsyr2k"}};
    return host_l3(h, prec, &sh, names[two][prec == CHG_F64], alpha, A, lda, B, ldb, beta, C, ldc);
}

static clhgemm_status_t host_trmm(clhgemm_handle_t h, chg_precision_t prec, int layout, int side,
                                  int uplo, int transA, int diag, int m, int n, double alpha,
                                  const void *A, int lda, void *B, int ldb)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    chg_l3_shape_t sh;
    clhgemm_status_t st = chg_trmm_check_shape(layout, side, uplo, transA, diag, m, n, lda, ldb, &sh);
    if (st != CLHGEMM_SUCCESS) return st;
    return host_l3(h, prec, &sh, prec == CHG_F64 ? "dtrmm" : "strmm", alpha, A, lda, B, ldb, 0.0, NULL, 1);
}

CLHGEMM_API clhgemm_status_t clhgemm_ssymm(clhgemm_handle_t h, clhgemm_layout_t layout,
                                           clhgemm_side_t side, clhgemm_uplo_t uplo, int m, int n,
                                           float alpha, const float *A, int lda, const float *B,
                                           int ldb, float beta, float *C, int ldc)
{
    return host_symm(h, CHG_F32, layout, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
}

CLHGEMM_API clhgemm_status_t clhgemm_dsymm(clhgemm_handle_t h, clhgemm_layout_t layout,
                                           clhgemm_side_t side, clhgemm_uplo_t uplo, int m, int n,
                                           double alpha, const double *A, int lda, const double *B,
                                           int ldb, double beta, double *C, int ldc)
{
    return host_symm(h, CHG_F64, layout, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
}

CLHGEMM_API clhgemm_status_t clhgemm_ssyrk(clhgemm_handle_t h, clhgemm_layout_t layout,
                                           clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n,
                                           int k, float alpha, const float *A, int lda, float beta,
                                           float *C, int ldc)
{
    return host_syrk(h, CHG_F32, 0, layout, uplo, trans, n, k, alpha, A, lda, NULL, 1, beta, C, ldc);
}

CLHGEMM_API clhgemm_status_t clhgemm_dsyrk(clhgemm_handle_t h, clhgemm_layout_t layout,
                                           clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n,
                                           int k, double alpha, const double *A, int lda,
                                           double beta, double *C, int ldc)
{
    return host_syrk(h, CHG_F64, 0, layout, uplo, trans, n, k, alpha, A, lda, NULL, 1, beta, C, ldc);
}

CLHGEMM_API clhgemm_status_t clhgemm_ssyr2k(clhgemm_handle_t h, clhgemm_layout_t layout,
                                            clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n,
                                            int k, float alpha, const float *A, int lda,
                                            const float *B, int ldb, float beta, float *C, int ldc)
{
    return host_syrk(h, CHG_F32, 1, layout, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

CLHGEMM_API clhgemm_status_t clhgemm_dsyr2k(clhgemm_handle_t h, clhgemm_layout_t layout,
                                            clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n,
                                            int k, double alpha, const double *A, int lda,
                                            const double *B, int ldb, double beta, double *C,
                                            int ldc)
{
    return host_syrk(h, CHG_F64, 1, layout, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

CLHGEMM_API clhgemm_status_t clhgemm_strmm(clhgemm_handle_t h, clhgemm_layout_t layout,
                                           clhgemm_side_t side, clhgemm_uplo_t uplo,
                                           clhgemm_transpose_t transA, clhgemm_diag_t diag, int m,
                                           int n, float alpha, const float *A, int lda, float *B,
                                           int ldb)
{
    return host_trmm(h, CHG_F32, layout, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb);
}

CLHGEMM_API clhgemm_status_t clhgemm_dtrmm(clhgemm_handle_t h, clhgemm_layout_t layout,
                                           clhgemm_side_t side, clhgemm_uplo_t uplo,
                                           clhgemm_transpose_t transA, clhgemm_diag_t diag, int m,
                                           int n, double alpha, const double *A, int lda, double *B,
                                           int ldb)
{
    return host_trmm(h, CHG_F64, layout, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb);
}
