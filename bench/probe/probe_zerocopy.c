/*
 * probe_zerocopy.c -- diagnostic (the zero-copy trial). Can the host pipeline
 * pin the caller's pageable matrix in place (clCreateBuffer with CL_MEM_USE_HOST_PTR over the
 * caller's pages) and copy from it, instead of what it does today: N threads memcpy the pageable
 * memory into a pinned staging buffer (CL_MEM_ALLOC_HOST_PTR, mapped) while clEnqueueWriteBuffer
 * moves the previous chunk to the device?
 *
 * For each size (--sizes, MiB) and each of two kinds of caller memory -- "align": posix_memalign
 * to 4096; "malloc+O": plain malloc, user data at offset O into its first page, the buffer created
 * over the page range rounded out (start down, end up) and copied from at offset O -- it measures,
 * as the median of --reps repetitions, every step finished with clFinish and timed on the host:
 *   pin     clCreateBuffer(CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY) over the caller's pages
 *   copy1   the first clEnqueueCopyBuffer from it into a device buffer (CL_MEM_READ_WRITE)
 *   copy2   a second copy of the same data (a driver may pin or upload lazily and cache)
 *   unpin   clReleaseMemObject of the USE_HOST_PTR buffer
 *   nomap   the host writes a new pattern straight into its memory, the same buffer is copied
 *           again WITHOUT map/unmap: "fresh" if the device got the new data, "stale" if it got the
 *           old one (the driver copies from a private copy made at pin time), "mixed" otherwise
 *   map     the same after clEnqueueMapBuffer(CL_MAP_WRITE_INVALIDATE_REGION), writing the new
 *           pattern through the mapped pointer, clEnqueueUnmapMemObject (its time in brackets):
 *           the protocol OpenCL prescribes, so anything but "fresh" is a driver bug
 *   staged  the library's path: memcpy by --threads threads into the pinned staging buffer (cpy),
 *           then one blocking clEnqueueWriteBuffer of the whole (wr), and both overlapped in 4
 *           chunks (ovl: chunk i+1 copied while chunk i is written by a non-blocking write)
 *   zc/ovl  (pin + copy1 + unpin) / ovl: below 1 the zero-copy path beats the staged path for a
 *           matrix used once (a cached pin would cost copy2 alone)
 * GB/s = bytes / time (10^9). Every device copy is checked by reading the device buffer back (all
 * of it up to 128 MiB, 64 chunks of 64 KiB spread over it above); a wrong copy prints FAILED and
 * the exit status is 1. The last line sums up, from the largest size (align rows for pin, copy
 * and staged; the slower kind of memory for the comparison; nomap/map over every row):
 *   zerocopy: pin X GB/s, first copy Y GB/s; staged (N threads) Z GB/s overlapped;
 *   USE_HOST_PTR <wins|loses> at >= S MiB; host changes without map: stale|fresh; with map: ...
 * where "wins|loses at >= S MiB" holds from size S up to the largest size tested.
 *
 * Device: the first GPU (probe_common.h), else the first device of any kind (PoCL's CPU device);
 * --device-index I picks the I-th device over all platforms (--list shows them).
 *   cmake --build BUILD --target probe_zerocopy && BUILD/bench/probe_zerocopy --sizes 8,32,128,512
 *   cc -O2 -o /tmp/probe_zerocopy bench/probe/probe_zerocopy.c -lOpenCL -lpthread    (standalone)
 * Options: --sizes a,b,.. (MiB, default 8,32,128,512)  --reps N (3)  --threads N (min(cores,16))
 *          --device-index I  --list
 */
#define _POSIX_C_SOURCE 200809L
#include "probe_common.h"
#include "probe_stats.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES 32
#define MAX_REPS 64
#define NCHUNK 4                  /* chunks of the overlapped staged copy */
#define FULL_CHECK_MAX (128u << 20) /* read the whole device buffer back up to this size */
#define SAMPLE_CHUNKS 64          /* else this many chunks of SAMPLE_BYTES, spread evenly */
#define SAMPLE_BYTES (64u << 10)


/* ---- the pattern: 64-bit word i of a buffer filled with seed s ------------------------------ */
static inline uint64_t pat(size_t i, uint64_t s) { return ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ s; }

/* ---- a small pool of copy threads: part 0 on the caller, parts 1..n-1 on the workers --------- */
typedef struct {
    int n;
    pthread_t th[64];
    pthread_mutex_t m;
    pthread_cond_t go, done;
    unsigned gen;
    int pending, quit;
    /* the job: copy (src != NULL) or fill with the pattern (src == NULL) */
    char *dst;
    const char *src;
    size_t len; /* bytes, a multiple of 8 for a fill */
    uint64_t seed;
} pool_t;

typedef struct {
    pool_t *p;
    int id;
} worker_arg_t;

static void pool_part(pool_t *p, int id)
{
    if (p->src) {
        size_t per = (p->len / (size_t)p->n + 63) & ~(size_t)63;
        size_t a = per * (size_t)id, b = a + per;
        if (b > p->len) b = p->len;
        if (a < b) memcpy(p->dst + a, p->src + a, b - a);
    } else {
        size_t words = p->len / 8, per = (words + (size_t)p->n - 1) / (size_t)p->n;
        size_t a = per * (size_t)id, b = a + per;
        if (b > words) b = words;
        uint64_t *w = (uint64_t *)(void *)p->dst;
        for (size_t i = a; i < b; i++) w[i] = pat(i, p->seed);
    }
}

static void *worker(void *arg)
{
    worker_arg_t *wa = arg;
    pool_t *p = wa->p;
    unsigned seen = 0;
    for (;;) {
        pthread_mutex_lock(&p->m);
        while (!p->quit && p->gen == seen) pthread_cond_wait(&p->go, &p->m);
        if (p->quit) {
            pthread_mutex_unlock(&p->m);
            return NULL;
        }
        seen = p->gen;
        pthread_mutex_unlock(&p->m);
        pool_part(p, wa->id);
        pthread_mutex_lock(&p->m);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->m);
    }
}

static worker_arg_t g_wargs[64];

static int pool_start(pool_t *p, int n)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    pthread_mutex_init(&p->m, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int i = 1; i < n; i++) {
        g_wargs[i].p = p;
        g_wargs[i].id = i;
        if (pthread_create(&p->th[i], NULL, worker, &g_wargs[i]) != 0) {
            p->n = i; /* run with the threads that started */
            break;
        }
    }
    return p->n;
}

static void pool_run(pool_t *p, char *dst, const char *src, size_t len, uint64_t seed)
{
    pthread_mutex_lock(&p->m);
    p->dst = dst;
    p->src = src;
    p->len = len;
    p->seed = seed;
    p->pending = p->n - 1;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->m);
    pool_part(p, 0);
    pthread_mutex_lock(&p->m);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->m);
    pthread_mutex_unlock(&p->m);
}

static void pool_stop(pool_t *p)
{
    pthread_mutex_lock(&p->m);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->m);
    for (int i = 1; i < p->n; i++) pthread_join(p->th[i], NULL);
}

static void fill(pool_t *p, void *dst, size_t len, uint64_t seed) { pool_run(p, dst, NULL, len, seed); }

/* ---- reading the device buffer back ----------------------------------------------------------- */
enum { CK_ERR = -1, CK_NEW = 0, CK_OLD, CK_ZERO, CK_MIXED };
static const char *ck_name[] = {"fresh", "stale", "none", "mixed"};

/* Classifies dev[0, bytes) against the pattern seeds want (new) and old[0..nold): CK_NEW when
 * every checked word is pat(i, want), CK_OLD when every word is one old pattern, CK_ZERO when all
 * zero, CK_MIXED otherwise; CK_ERR (and *err) when a read fails. */
static int classify(cl_command_queue q, cl_mem dev, size_t bytes, uint64_t *scratch, uint64_t want,
                    const uint64_t *old, int nold, cl_int *err)
{
    size_t nchunks, chunk;
    if (bytes <= FULL_CHECK_MAX) {
        nchunks = 1;
        chunk = bytes;
    } else {
        nchunks = SAMPLE_CHUNKS;
        chunk = SAMPLE_BYTES;
    }
    size_t nnew = 0, nzero = 0, cold[4] = {0, 0, 0, 0}, total = 0;
    for (size_t c = 0; c < nchunks; c++) {
        /* chunk c starts at an 8-byte boundary, the last one ends at the end of the buffer */
        size_t off = nchunks == 1 ? 0 : ((bytes - chunk) / (nchunks - 1) * c) & ~(size_t)7;
        *err = clEnqueueReadBuffer(q, dev, CL_TRUE, off, chunk, scratch, 0, NULL, NULL);
        if (*err != CL_SUCCESS) return CK_ERR;
        const size_t w0 = off / 8, nw = chunk / 8;
        for (size_t i = 0; i < nw; i++) {
            const uint64_t v = scratch[i];
            total++;
            if (v == pat(w0 + i, want)) nnew++;
            else if (v == 0) nzero++;
            else
                for (int k = 0; k < nold && k < 4; k++)
                    if (v == pat(w0 + i, old[k])) {
                        cold[k]++;
                        break;
                    }
        }
    }
    if (nnew == total) return CK_NEW;
    if (nzero == total) return CK_ZERO;
    for (int k = 0; k < nold && k < 4; k++)
        if (cold[k] == total) return CK_OLD;
    return CK_MIXED;
}

/* ---- results ---------------------------------------------------------------------------------- */

typedef struct {
    samples_t pin, c1, c2, unpin, unmap, cpy, wr, ovl;
    int nomap[5], map[5]; /* counts of CK_NEW..CK_MIXED, [4]: not run */
    cl_int err;            /* first OpenCL error of the zero-copy path */
    const char *err_at;
    cl_int serr;           /* first OpenCL error of the staged path */
    const char *serr_at;
    int failed;            /* a copy delivered wrong data */
    int ptr_moved;         /* the map returned another pointer than the caller's */
    size_t off;
} result_t;

static int verdict(const int *c)
{
    /* "fresh" only when every run saw fresh data; "stale" when any saw the old data */
    if (c[CK_NEW] && !c[CK_OLD] && !c[CK_ZERO] && !c[CK_MIXED]) return CK_NEW;
    if (c[CK_OLD] && !c[CK_NEW]) return CK_OLD;
    if (c[CK_OLD] || c[CK_NEW] || c[CK_ZERO] || c[CK_MIXED]) return CK_MIXED;
    return CK_ERR;
}

#define CK(call, where, errv, at)                                                                 \
    do {                                                                                          \
        cl_int e_ = (call);                                                                       \
        if (e_ != CL_SUCCESS) {                                                                   \
            if ((errv) == CL_SUCCESS) {                                                           \
                (errv) = e_;                                                                      \
                (at) = (where);                                                                   \
            }                                                                                     \
            goto fail;                                                                            \
        }                                                                                         \
    } while (0)

/* ---- one repetition of the zero-copy path ----------------------------------------------------- */
static void run_zc(cl_context ctx, cl_command_queue q, pool_t *pool, cl_mem dev, char *user,
                   size_t bytes, char *page, size_t page_len, uint64_t *scratch, uint64_t *seedc,
                   result_t *r)
{
    const size_t off = (size_t)(user - page);
    const cl_uchar zero = 0;
    cl_int err = CL_SUCCESS;
    cl_mem hb = NULL;
    double t;
    const uint64_t s1 = ++*seedc, s2 = ++*seedc, s3 = ++*seedc;
    fill(pool, user, bytes, s1);

    /* (1) pin, first and second copy */
    CK(clEnqueueFillBuffer(q, dev, &zero, 1, 0, bytes, 0, NULL, NULL), "fill", r->err, r->err_at);
    CK(clFinish(q), "finish", r->err, r->err_at);
    t = now_s();
    hb = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, page_len, page, &err);
    const double tpin = now_s() - t;
    CK(err, "pin", r->err, r->err_at);
    add(&r->pin, tpin);
    for (int k = 0; k < 2; k++) {
        if (k) {
            CK(clEnqueueFillBuffer(q, dev, &zero, 1, 0, bytes, 0, NULL, NULL), "fill", r->err, r->err_at);
            CK(clFinish(q), "finish", r->err, r->err_at);
        }
        t = now_s();
        CK(clEnqueueCopyBuffer(q, hb, dev, off, 0, bytes, 0, NULL, NULL), k ? "copy2" : "copy1", r->err,
           r->err_at);
        CK(clFinish(q), k ? "copy2" : "copy1", r->err, r->err_at);
        add(k ? &r->c2 : &r->c1, now_s() - t);
        const int c = classify(q, dev, bytes, scratch, s1, NULL, 0, &err);
        CK(err, "read", r->err, r->err_at);
        if (c != CK_NEW) r->failed = 1;
    }

    /* (3) visibility: new data straight into the caller's memory, copied without map/unmap */
    fill(pool, user, bytes, s2);
    CK(clEnqueueFillBuffer(q, dev, &zero, 1, 0, bytes, 0, NULL, NULL), "fill", r->err, r->err_at);
    CK(clEnqueueCopyBuffer(q, hb, dev, off, 0, bytes, 0, NULL, NULL), "copy3", r->err, r->err_at);
    CK(clFinish(q), "copy3", r->err, r->err_at);
    {
        const uint64_t old[1] = {s1};
        const int c = classify(q, dev, bytes, scratch, s2, old, 1, &err);
        CK(err, "read", r->err, r->err_at);
        r->nomap[c]++;
    }
    /* ... and through map (write-invalidate), writing the new data into the mapped region, unmap */
    CK(clEnqueueFillBuffer(q, dev, &zero, 1, 0, bytes, 0, NULL, NULL), "fill", r->err, r->err_at);
    CK(clFinish(q), "finish", r->err, r->err_at);
    {
        void *mp = clEnqueueMapBuffer(q, hb, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, off, bytes, 0, NULL,
                                      NULL, &err);
        if (err != CL_SUCCESS) /* some 1.1-era drivers: plain read/write map */
            mp = clEnqueueMapBuffer(q, hb, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, off, bytes, 0, NULL, NULL,
                                    &err);
        CK(err, "map", r->err, r->err_at);
        if (mp != (void *)user) r->ptr_moved = 1;
        fill(pool, mp, bytes, s3);
        t = now_s();
        CK(clEnqueueUnmapMemObject(q, hb, mp, 0, NULL, NULL), "unmap", r->err, r->err_at);
        CK(clFinish(q), "unmap", r->err, r->err_at);
        add(&r->unmap, now_s() - t);
    }
    CK(clEnqueueCopyBuffer(q, hb, dev, off, 0, bytes, 0, NULL, NULL), "copy4", r->err, r->err_at);
    CK(clFinish(q), "copy4", r->err, r->err_at);
    {
        const uint64_t old[2] = {s2, s1};
        const int c = classify(q, dev, bytes, scratch, s3, old, 2, &err);
        CK(err, "read", r->err, r->err_at);
        r->map[c]++;
    }

fail:
    if (hb) {
        clFinish(q);
        t = now_s();
        err = clReleaseMemObject(hb);
        if (err == CL_SUCCESS) add(&r->unpin, now_s() - t);
        else if (r->err == CL_SUCCESS) {
            r->err = err;
            r->err_at = "unpin";
        }
    }
}

/* ---- one repetition of the staged path -------------------------------------------------------- */
static void run_staged(cl_command_queue q, pool_t *pool, cl_mem dev, char *user, size_t bytes,
                       char *stg, uint64_t *scratch, uint64_t *seedc, result_t *r)
{
    const cl_uchar zero = 0;
    cl_int err = CL_SUCCESS;
    double t;
    const uint64_t s1 = ++*seedc, s2 = ++*seedc;

    /* sequential: the whole copy, then the whole write */
    fill(pool, user, bytes, s1);
    CK(clEnqueueFillBuffer(q, dev, &zero, 1, 0, bytes, 0, NULL, NULL), "fill", r->serr, r->serr_at);
    CK(clFinish(q), "finish", r->serr, r->serr_at);
    t = now_s();
    pool_run(pool, stg, user, bytes, 0);
    add(&r->cpy, now_s() - t);
    t = now_s();
    CK(clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, stg, 0, NULL, NULL), "write", r->serr, r->serr_at);
    CK(clFinish(q), "write", r->serr, r->serr_at);
    add(&r->wr, now_s() - t);
    if (classify(q, dev, bytes, scratch, s1, NULL, 0, &err) != CK_NEW) {
        CK(err, "read", r->serr, r->serr_at);
        r->failed = 1;
    }

    /* overlapped: chunk i+1 copied while chunk i is written */
    fill(pool, user, bytes, s2);
    CK(clEnqueueFillBuffer(q, dev, &zero, 1, 0, bytes, 0, NULL, NULL), "fill", r->serr, r->serr_at);
    CK(clFinish(q), "finish", r->serr, r->serr_at);
    t = now_s();
    {
        const size_t per = (bytes / NCHUNK + 4095) & ~(size_t)4095;
        for (size_t a = 0; a < bytes; a += per) {
            const size_t n = a + per <= bytes ? per : bytes - a;
            pool_run(pool, stg + a, user + a, n, 0);
            CK(clEnqueueWriteBuffer(q, dev, CL_FALSE, a, n, stg + a, 0, NULL, NULL), "write-ovl", r->serr,
               r->serr_at);
            CK(clFlush(q), "flush", r->serr, r->serr_at);
        }
    }
    CK(clFinish(q), "write-ovl", r->serr, r->serr_at);
    add(&r->ovl, now_s() - t);
    if (classify(q, dev, bytes, scratch, s2, NULL, 0, &err) != CK_NEW) {
        CK(err, "read", r->serr, r->serr_at);
        r->failed = 1;
    }
fail:
    clFinish(q);
}

/* ---- device selection ------------------------------------------------------------------------- */
static cl_device_id nth_device(int want, int list, char *name, size_t len)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    int idx = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return NULL;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devs[32];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 32, devs, &nd) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd && d < 32; d++, idx++) {
            char nm[256] = "";
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof nm, nm, NULL);
            if (list) printf("%d: %s\n", idx, nm);
            if (idx == want) {
                snprintf(name, len, "%s", nm);
                return devs[d];
            }
        }
    }
    return NULL;
}

static void usage(const char *a0)
{
    printf("usage: %s [--sizes MiB,..] [--reps N] [--threads N] [--device-index I] [--list]\n", a0);
}

/* "ms GB/s" of one step, the GB/s in w columns */
static void cell_gbs(char *b, size_t n, size_t bytes, double t, int w)
{
    const double gbs = t > 0 ? (double)bytes / t * 1e-9 : 0;
    if (t <= 0) snprintf(b, n, "%8s %*s", "-", w, "-");
    else snprintf(b, n, "%8.2f %*.*f", 1e3 * t, w, gbs >= 1e4 ? 0 : 2, gbs); /* huge when lazy */
}

/* ---- the run ---------------------------------------------------------------------------------- */

typedef struct {
    size_t sizes[MAX_SIZES]; /* MiB, ascending */
    int nsizes, reps, threads, dev_index, list;
} opts_t;

/* The command line into *o: -1 to go on, else the exit status (--help, a bad option). */
static int parse_opts(int argc, char **argv, opts_t *o)
{
    static const size_t def[] = {8, 32, 128, 512};
    memset(o, 0, sizeof *o);
    memcpy(o->sizes, def, sizeof def);
    o->nsizes = 4;
    o->reps = 3;
    o->dev_index = -1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cores < 1 ? 1 : cores > 16 ? 16 : (int)cores;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--sizes") && v) {
            o->nsizes = probe_parse_list(v, o->sizes, MAX_SIZES);
            i++;
            if (o->nsizes <= 0) {
                fprintf(stderr, "bad --sizes '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--reps") && v) {
            o->reps = atoi(v);
            i++;
        } else if (!strcmp(a, "--threads") && v) {
            o->threads = atoi(v);
            i++;
        } else if (!strcmp(a, "--device-index") && v) {
            o->dev_index = atoi(v);
            i++;
        } else if (!strcmp(a, "--list")) {
            o->list = 1;
        } else {
            usage(argv[0]);
            return !strcmp(a, "--help") || !strcmp(a, "-h") ? 0 : 2;
        }
    }
    if (o->reps < 1) o->reps = 1;
    if (o->reps > MAX_REPS) o->reps = MAX_REPS;
    if (o->threads < 1) o->threads = 1;
    if (o->threads > 64) o->threads = 64;
    /* ascending sizes: the summary reads "from size S up" */
    for (int i = 1; i < o->nsizes; i++)
        for (int j = i; j > 0 && o->sizes[j - 1] > o->sizes[j]; j--) {
            const size_t sz = o->sizes[j];
            o->sizes[j] = o->sizes[j - 1];
            o->sizes[j - 1] = sz;
        }
    return -1;
}

/* What the run keeps across sizes: the device, the copy threads, and what the summary needs. */
typedef struct {
    cl_context ctx;
    cl_command_queue q;
    pool_t pool;
    long pg;          /* page size */
    int reps;
    uint64_t seedc;   /* the patterns' seed counter */
    int any_failed, nomap_all[5], map_all[5], any_moved;
    double pin_s[MAX_SIZES], c1_s[MAX_SIZES], ovl_s[MAX_SIZES]; /* align rows, seconds; -1 none */
    int win[MAX_SIZES]; /* 1 wins, 0 loses, -1 not measured */
} run_t;

/* The device: the first GPU, else the I-th device (--device-index; the first by default), its
 * context and queue into run; its id, or NULL with *err. */
static cl_device_id open_device(const opts_t *o, run_t *run, char *name, size_t len, cl_int *err)
{
    cl_device_id dev_id = NULL;
    if (o->dev_index < 0 && probe_first_gpu(name, len)) {
        dev_id = probe_open(name, len, 0, &run->ctx, &run->q);
    } else {
        dev_id = nth_device(o->dev_index < 0 ? 0 : o->dev_index, 0, name, len);
        if (dev_id) {
            run->ctx = clCreateContext(NULL, 1, &dev_id, NULL, NULL, err);
            if (run->ctx) run->q = clCreateCommandQueue(run->ctx, dev_id, 0, err);
        }
    }
    return dev_id && run->ctx && run->q ? dev_id : NULL;
}

/* Untimed: the context's first buffer, pin, copy and write. */
static void warm_up(run_t *run)
{
    const size_t wb = 1u << 20;
    void *h = NULL;
    cl_int err;
    if (posix_memalign(&h, (size_t)run->pg, wb) != 0) return;
    memset(h, 1, wb);
    cl_mem d = clCreateBuffer(run->ctx, CL_MEM_READ_WRITE, wb, NULL, &err);
    cl_mem hb = clCreateBuffer(run->ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, wb, h, &err);
    if (d && hb) clEnqueueCopyBuffer(run->q, hb, d, 0, 0, wb, 0, NULL, NULL);
    if (d) clEnqueueWriteBuffer(run->q, d, CL_TRUE, 0, wb, h, 0, NULL, NULL);
    clFinish(run->q);
    if (hb) clReleaseMemObject(hb);
    if (d) clReleaseMemObject(d);
    free(h);
}

/* The caller's memory of one kind (var 0: page-aligned, 1: malloc), *page / *page_len the page
 * range around it; the block to free, or NULL. */
static void *caller_memory(const run_t *run, int var, size_t bytes, char **user, char **page,
                           size_t *page_len)
{
    const uintptr_t pg = (uintptr_t)run->pg;
    void *base = NULL;
    if (var == 0) {
        if (posix_memalign(&base, 4096, bytes) != 0) base = NULL;
        *user = *page = base;
        *page_len = (bytes + (size_t)pg - 1) & ~((size_t)pg - 1);
    } else {
        base = malloc(bytes);
        *user = base;
        *page = (char *)((uintptr_t)*user & ~(pg - 1));
        *page_len = (((uintptr_t)*user + bytes + pg - 1) & ~(pg - 1)) - (uintptr_t)*page;
    }
    return base;
}

/* One kind of caller memory at size si: the repetitions of both paths on the device buffer dev
 * and the staging stg, its table row, the totals. The zero-copy path's time (pin + copy1 +
 * unpin), or -1 when it did not complete; *ovl_out the overlapped staged time (-1: failed). */
static double run_variant(run_t *run, const opts_t *o, int si, int var, cl_mem dev, char *stg,
                          uint64_t *scratch, double *ovl_out)
{
    const size_t bytes = o->sizes[si] << 20;
    result_t r;
    memset(&r, 0, sizeof r);
    char *user, *page;
    size_t page_len;
    void *base = caller_memory(run, var, bytes, &user, &page, &page_len);
    *ovl_out = -1;
    if (!base) {
        printf("%5zu %-11s| host allocation failed\n", o->sizes[si], var ? "malloc" : "align");
        return -1;
    }
    r.off = (size_t)(user - page);
    fill(&run->pool, user, bytes, 0); /* first touch (untimed) */
    pool_run(&run->pool, stg, user, bytes, 0);
    for (int rep = 0; rep < run->reps; rep++) {
        run_zc(run->ctx, run->q, &run->pool, dev, user, bytes, page, page_len, scratch,
               &run->seedc, &r);
        run_staged(run->q, &run->pool, dev, user, bytes, stg, scratch, &run->seedc, &r);
    }
    free(base);

    char label[32], a[32], b[32], errs[96] = "";
    snprintf(label, sizeof label, var ? "malloc+%zu" : "align", r.off);
    const double pin = median(&r.pin), c1 = median(&r.c1), c2 = median(&r.c2);
    const double unpin = median(&r.unpin), unmap = median(&r.unmap);
    const double cpy = median(&r.cpy), wr = median(&r.wr), ovl = median(&r.ovl);
    cell_gbs(a, sizeof a, bytes, pin, 7);
    cell_gbs(b, sizeof b, bytes, c1, 6);
    const int vn = verdict(r.nomap), vm = verdict(r.map);
    for (int k = 0; k < 4; k++) {
        run->nomap_all[k] += r.nomap[k];
        run->map_all[k] += r.map[k];
    }
    run->any_moved |= r.ptr_moved;
    const int zc_ok = r.err == CL_SUCCESS && pin >= 0 && c1 >= 0 && unpin >= 0;
    const double zc = zc_ok ? pin + c1 + unpin : -1;
    *ovl_out = r.serr == CL_SUCCESS ? ovl : -1;
    if (var == 0) {
        run->pin_s[si] = zc_ok ? pin : -1;
        run->c1_s[si] = zc_ok ? c1 : -1;
        run->ovl_s[si] = *ovl_out;
    }
    if (r.err != CL_SUCCESS)
        snprintf(errs, sizeof errs, " err %d at %s", r.err, r.err_at ? r.err_at : "?");
    if (r.serr != CL_SUCCESS)
        snprintf(errs + strlen(errs), sizeof errs - strlen(errs), " staged err %d at %s", r.serr,
                 r.serr_at ? r.serr_at : "?");
    char ratio[16] = "-";
    if (zc_ok && r.serr == CL_SUCCESS && ovl > 0) snprintf(ratio, sizeof ratio, "%.2f", zc / ovl);
    printf("%5zu %-11s| %s | %s | %6.2f | %6.2f | %-5s %-5s(%6.2f) | %7.2f %7.2f %8.2f %6.2f | "
           "%6s%s%s%s\n",
           o->sizes[si], label, a, b, c2 > 0 ? (double)bytes / c2 * 1e-9 : 0.0,
           unpin >= 0 ? 1e3 * unpin : 0.0, vn >= 0 ? ck_name[vn] : "-", vm >= 0 ? ck_name[vm] : "-",
           unmap >= 0 ? 1e3 * unmap : 0.0, cpy > 0 ? (double)bytes / cpy * 1e-9 : 0.0,
           wr > 0 ? (double)bytes / wr * 1e-9 : 0.0, ovl > 0 ? 1e3 * ovl : 0.0,
           ovl > 0 ? (double)bytes / ovl * 1e-9 : 0.0, ratio, r.ptr_moved ? " map-moved-ptr" : "",
           r.failed ? " FAILED" : "", errs);
    fflush(stdout);
    run->any_failed |= r.failed;
    return zc;
}

/* One size: its device buffer and pinned staging, both kinds of caller memory, and whether the
 * zero-copy path (the slower kind) beats the staged one (page-aligned memory). */
static void run_size(run_t *run, const opts_t *o, int si, cl_ulong maxalloc)
{
    const size_t bytes = o->sizes[si] << 20;
    cl_int err = CL_SUCCESS;
    run->win[si] = -1;
    run->pin_s[si] = run->c1_s[si] = run->ovl_s[si] = -1;
    if ((cl_ulong)bytes > maxalloc) {
        printf("%5zu skipped: above CL_DEVICE_MAX_MEM_ALLOC_SIZE\n", o->sizes[si]);
        return;
    }
    cl_mem dev = clCreateBuffer(run->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem stgm = dev ? clCreateBuffer(run->ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes,
                                       NULL, &err)
                      : NULL;
    char *stg = stgm ? clEnqueueMapBuffer(run->q, stgm, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                          bytes, 0, NULL, NULL, &err)
                     : NULL;
    uint64_t *scratch = malloc(bytes <= FULL_CHECK_MAX ? bytes : SAMPLE_BYTES);
    if (!dev || !stgm || !stg || !scratch) {
        printf("%5zu skipped: device/staging buffer or scratch (err %d)\n", o->sizes[si], err);
    } else if (clEnqueueWriteBuffer(run->q, dev, CL_TRUE, 0, bytes, stg, 0, NULL, NULL) !=
               CL_SUCCESS) {
        /* the write also touches the device buffer, so no first-use cost lands in the copies */
        printf("%5zu skipped: first write failed\n", o->sizes[si]);
    } else {
        double zc_worst = -1, ovl_align = -1, ovl;
        int zc_broken = 0;
        for (int var = 0; var < 2; var++) {
            const double zc = run_variant(run, o, si, var, dev, stg, scratch, &ovl);
            if (var == 0) ovl_align = ovl;
            if (zc < 0) zc_broken = 1;
            else if (zc > zc_worst) zc_worst = zc;
        }
        if (ovl_align > 0) run->win[si] = zc_broken ? 0 : zc_worst < ovl_align;
    }
    if (stg) clEnqueueUnmapMemObject(run->q, stgm, stg, 0, NULL, NULL);
    clFinish(run->q);
    if (stgm) clReleaseMemObject(stgm);
    if (dev) clReleaseMemObject(dev);
    free(scratch);
}

/* The last line: the outcome of the largest measured size, and the smallest S from which it
 * holds. */
static void summary(const run_t *run, const opts_t *o, int threads)
{
    int last = -1;
    for (int i = 0; i < o->nsizes; i++)
        if (run->win[i] >= 0) last = i;
    char wl[64] = "n/a";
    if (last >= 0) {
        int from = last;
        while (from > 0 && (run->win[from - 1] == run->win[last] || run->win[from - 1] < 0)) from--;
        while (run->win[from] < 0) from++;
        snprintf(wl, sizeof wl, "%s at >= %zu MiB", run->win[last] ? "wins" : "loses",
                 o->sizes[from]);
    }
    const size_t lb = last >= 0 ? o->sizes[last] << 20 : 0;
    const int vn = verdict(run->nomap_all), vm = verdict(run->map_all);
    char p1[24] = "n/a", p2[24] = "n/a", p3[24] = "n/a";
    if (last >= 0 && run->pin_s[last] > 0)
        snprintf(p1, sizeof p1, "%.2f", (double)lb / run->pin_s[last] * 1e-9);
    if (last >= 0 && run->c1_s[last] > 0)
        snprintf(p2, sizeof p2, "%.2f", (double)lb / run->c1_s[last] * 1e-9);
    if (last >= 0 && run->ovl_s[last] > 0)
        snprintf(p3, sizeof p3, "%.2f", (double)lb / run->ovl_s[last] * 1e-9);
    printf("zerocopy: pin %s GB/s, first copy %s GB/s; staged (%d threads) %s GB/s overlapped; "
           "USE_HOST_PTR %s; host changes without map: %s; with map: %s%s%s\n",
           p1, p2, threads, p3, wl, vn >= 0 ? ck_name[vn] : "n/a", vm >= 0 ? ck_name[vm] : "n/a",
           run->any_moved ? " (map returned another pointer)" : "",
           run->any_failed ? "; FAILED" : "");
}

int main(int argc, char **argv)
{
    opts_t o;
    const int rc = parse_opts(argc, argv, &o);
    if (rc >= 0) return rc;
    char name[256] = "";
    if (o.list) {
        nth_device(-2, 1, name, sizeof name);
        return 0;
    }
    run_t run;
    memset(&run, 0, sizeof run);
    cl_int err = CL_SUCCESS;
    const cl_device_id dev_id = open_device(&o, &run, name, sizeof name, &err);
    if (!dev_id) {
        printf("zerocopy: no OpenCL device%s (err %d)\n", o.dev_index >= 0 ? " at that index" : "",
               err);
        return 77;
    }
    char ver[256] = "", drv[128] = "";
    cl_ulong maxalloc = 0;
    cl_uint basealign = 0;
    clGetDeviceInfo(dev_id, CL_DEVICE_VERSION, sizeof ver, ver, NULL);
    clGetDeviceInfo(dev_id, CL_DRIVER_VERSION, sizeof drv, drv, NULL);
    clGetDeviceInfo(dev_id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL);
    clGetDeviceInfo(dev_id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof basealign, &basealign, NULL);
    run.pg = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
    run.reps = o.reps;
    run.seedc = 0x5eed0000ull;
    const int threads = pool_start(&run.pool, o.threads);
    printf("zerocopy probe: %s (%s, driver %s); page %ld B, base align %u bit, max alloc %.0f MiB; "
           "%d reps (median), %d copy threads, %d chunks\n",
           name, ver, drv, run.pg, basealign, (double)maxalloc / (1 << 20), o.reps, threads, NCHUNK);
    warm_up(&run);

    printf("%5s %-11s| %8s %7s | %8s %6s | %6s | %6s | %-5s %-5s(%6s) | %7s %7s %8s %6s | %6s\n",
           "MiB", "memory", "pin ms", "GB/s", "copy1 ms", "GB/s", "copy2", "unpin", "nomap", "map",
           "unmap", "cpyGB/s", "wr GB/s", "ovl ms", "GB/s", "zc/ovl");
    for (int si = 0; si < o.nsizes; si++) run_size(&run, &o, si, maxalloc);
    pool_stop(&run.pool);
    summary(&run, &o, threads);
    clReleaseCommandQueue(run.q);
    clReleaseContext(run.ctx);
    return run.any_failed ? 1 : 0;
}
