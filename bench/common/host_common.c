/*
 * host_common.c -- the helpers clhgemm-bench-host's modes share (the per-size runs and
 * --cpu-share: bench_host.c and bench_host_{opts,problem,size,run,output,cpushare}.c; --sweep:
 * bench_host_sweep.c and bench_host_sweep_*.c): statistics, parallel loops, the counter-based
 * fill, the checks, the device of the device-only column, the OpenBLAS description.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_common.h"
#include "bench_util.h"

#ifdef CLHGEMM_HAVE_OPENBLAS
#include <cblas.h>
#endif

/* ---- small helpers ------------------------------------------------------------------------- */



stats_t stats_of(double *v, int n)
{
    stats_t s = {0, 0, 0, 0};
    if (n < 1) return s;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s.ok = 1;
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    s.min = v[0];
    s.max = v[n - 1];
    return s;
}


/* Bytes of host memory the kernel says are available (MemAvailable), 0 if unknown. */
unsigned long long host_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024ull;
}

/* ---- parallel loops ------------------------------------------------------------------------ */

typedef void (*range_fn)(void *ctx, size_t lo, size_t hi, int part);

typedef struct par_job_s {
    range_fn fn;
    void *ctx;
    size_t lo, hi;
    int part;
} par_job_t;

static void *par_main(void *arg)
{
    par_job_t *j = arg;
    j->fn(j->ctx, j->lo, j->hi, j->part);
    return NULL;
}

/* Runs fn over [0, n) split into `parts` contiguous ranges, one thread each (the caller runs
 * the first). Ranges are aligned to 64 items. */
static void parallel_for(int parts, size_t n, range_fn fn, void *ctx)
{
    if (parts < 1) parts = 1;
    if ((size_t)parts > n / 64 + 1) parts = (int)(n / 64 + 1);
    par_job_t jobs[128];
    pthread_t th[128];
    int started[128] = {0};
    if (parts > 128) parts = 128;
    size_t chunk = (n + (size_t)parts - 1) / (size_t)parts;
    chunk = (chunk + 63) / 64 * 64;
    for (int p = 0; p < parts; p++) {
        size_t lo = (size_t)p * chunk, hi = lo + chunk;
        if (lo > n) lo = n;
        if (hi > n) hi = n;
        jobs[p] = (par_job_t){fn, ctx, lo, hi, p};
    }
    for (int p = 1; p < parts; p++)
        started[p] = pthread_create(&th[p], NULL, par_main, &jobs[p]) == 0;
    fn(ctx, jobs[0].lo, jobs[0].hi, 0);
    for (int p = 1; p < parts; p++) {
        if (started[p])
            pthread_join(th[p], NULL);
        else
            fn(ctx, jobs[p].lo, jobs[p].hi, p); /* no thread: do it here */
    }
}

/* ---- random fill (counter based: element i depends on seed and i only) ----------------------- */

static inline uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

double uniform(uint64_t seed, size_t i)
{
    return (double)(mix64(seed * 0x100000001B3ULL + i) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

typedef struct fill_s {
    void *p;
    int dbl;
    uint64_t seed;
} fill_t;

static void fill_range(void *ctx, size_t lo, size_t hi, int part)
{
    (void)part;
    const fill_t *f = ctx;
    if (f->dbl) {
        double *d = f->p;
        for (size_t i = lo; i < hi; i++) d[i] = uniform(f->seed, i);
    } else {
        float *s = f->p;
        for (size_t i = lo; i < hi; i++) s[i] = (float)uniform(f->seed, i);
    }
}

void fill(int threads, void *p, int dbl, size_t count, uint64_t seed)
{
    fill_t f = {p, dbl, seed};
    parallel_for(threads, count, fill_range, &f);
}

/* ---- checks -------------------------------------------------------------------------------- */

static inline double load(const void *p, int dbl, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

/* y = op(M) x and, when yabs != NULL, yabs = |op(M)| xabs, for an n x n matrix whose element
 * (i, j) of op(M) is at M[i*si + j*sj] (one of si, sj is 1). */
typedef struct mv_s {
    const void *M;
    int dbl;
    size_t n, si, sj;
    const double *x, *xabs;
    double *y, *yabs;
} mv_t;

static void mv_range(void *ctx, size_t lo, size_t hi, int part)
{
    (void)part;
    const mv_t *c = ctx;
    const size_t n = c->n;
    if (c->sj == 1) { /* rows contiguous: a dot product per row */
        for (size_t i = lo; i < hi; i++) {
            double s = 0, sa = 0;
            const size_t base = i * c->si;
            for (size_t j = 0; j < n; j++) {
                double m = load(c->M, c->dbl, base + j);
                s += m * c->x[j];
                if (c->yabs) sa += fabs(m) * c->xabs[j];
            }
            c->y[i] = s;
            if (c->yabs) c->yabs[i] = sa;
        }
    } else { /* columns contiguous: each thread sweeps its rows of every column */
        for (size_t i = lo; i < hi; i++) {
            c->y[i] = 0;
            if (c->yabs) c->yabs[i] = 0;
        }
        for (size_t j = 0; j < n; j++) {
            const double xj = c->x[j], xa = c->yabs ? c->xabs[j] : 0;
            const size_t base = j * c->sj;
            if (c->dbl) {
                const double *col = (const double *)c->M + base;
                for (size_t i = lo; i < hi; i++) c->y[i] += col[i] * xj;
                if (c->yabs)
                    for (size_t i = lo; i < hi; i++) c->yabs[i] += fabs(col[i]) * xa;
            } else {
                const float *col = (const float *)c->M + base;
                for (size_t i = lo; i < hi; i++) c->y[i] += (double)col[i] * xj;
                if (c->yabs)
                    for (size_t i = lo; i < hi; i++) c->yabs[i] += fabs((double)col[i]) * xa;
            }
        }
    }
}

void matvec(int threads, const void *M, int dbl, size_t n, size_t si, size_t sj,
                   const double *x, const double *xabs, double *y, double *yabs)
{
    mv_t c = {M, dbl, n, si, sj, x, xabs, y, yabs};
    parallel_for(threads, n, mv_range, &c);
}

/* Strides of op(X) for an n x n matrix with ld n. */
void op_strides(clhgemm_layout_t layout, clhgemm_transpose_t t, size_t n, size_t *si,
                       size_t *sj)
{
    const int col_like = (layout == CLHGEMM_COL_MAJOR) == (t == CLHGEMM_NO_TRANS);
    *si = col_like ? 1 : n;
    *sj = col_like ? n : 1;
}

/* Element-wise comparison: max|x - ref| and max|ref| over n elements. */
typedef struct cmp_s {
    const void *x, *ref;
    int dbl;
    double diff[128], mag[128];
} cmp_t;

static void cmp_range(void *ctx, size_t lo, size_t hi, int part)
{
    cmp_t *c = ctx;
    double d = 0, m = 0;
    for (size_t i = lo; i < hi; i++) {
        double a = load(c->x, c->dbl, i), b = load(c->ref, c->dbl, i);
        double e = fabs(a - b);
        if (!(e <= d)) d = e; /* NaN sticks */
        if (fabs(b) > m) m = fabs(b);
    }
    c->diff[part] = d;
    c->mag[part] = m;
}

/* Three device buffers of `bytes` holding A, B and C (blocking writes); *err is the first error
 * (the buffers that were made are returned either way, NULL for the others). */
void dev_upload3(const devctx_t *dev, size_t bytes, const void *A, const void *B, const void *C,
                 cl_mem *bA, cl_mem *bB, cl_mem *bC, cl_int *err)
{
    *err = CL_SUCCESS;
    *bA = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, bytes, NULL, err);
    *bB = *err == CL_SUCCESS ? clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, bytes, NULL, err) : NULL;
    *bC = *err == CL_SUCCESS ? clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, bytes, NULL, err) : NULL;
    if (*err == CL_SUCCESS) *err = clEnqueueWriteBuffer(dev->q, *bA, CL_TRUE, 0, bytes, A, 0, NULL, NULL);
    if (*err == CL_SUCCESS) *err = clEnqueueWriteBuffer(dev->q, *bB, CL_TRUE, 0, bytes, B, 0, NULL, NULL);
    if (*err == CL_SUCCESS) *err = clEnqueueWriteBuffer(dev->q, *bC, CL_TRUE, 0, bytes, C, 0, NULL, NULL);
}

/* max|x - ref| / max|ref| / (k eps). */
double compare(int threads, const void *x, const void *ref, int dbl, size_t count, int k)
{
    cmp_t *c = calloc(1, sizeof *c);
    if (!c) return NAN;
    c->x = x;
    c->ref = ref;
    c->dbl = dbl;
    if (threads > 128) threads = 128;
    for (int p = 0; p < 128; p++) c->diff[p] = c->mag[p] = 0;
    parallel_for(threads, count, cmp_range, c);
    double d = 0, m = 0;
    for (int p = 0; p < 128; p++) {
        if (!(c->diff[p] <= d)) d = c->diff[p];
        if (c->mag[p] > m) m = c->mag[p];
    }
    free(c);
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    return d / (m > 0 ? m : 1.0) / ((double)k * eps);
}

/* ---- the device of the handle (for the device-only and naive columns) ------------------------ */



/* The device the handle puts first: the CLHGEMM_DEVICES selection, else the first GPU, else
 * the first device (clhgemm_create's rule). */
int open_device(devctx_t *d)
{
    memset(d, 0, sizeof *d);
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(NULL, NULL, 0, &count);
    if (st != CLHGEMM_SUCCESS || !count) {
        fprintf(stderr, "no OpenCL device: %s\n", clhgemm_status_string(st));
        return -1;
    }
    clhgemm_device_info_t *all = calloc(count, sizeof *all);
    if (!all) return -1;
    st = clhgemm_devices_get(NULL, all, count, &count);
    if (st != CLHGEMM_SUCCESS || !count) {
        free(all);
        return -1;
    }
    const char *spec = getenv("CLHGEMM_DEVICES");
    size_t pick = 0;
    if (!spec || !*spec)
        for (size_t i = 0; i < count; i++)
            if (all[i].kind == CLHGEMM_DEVICE_GPU) {
                pick = i;
                break;
            }
    d->info = all[pick];
    free(all);
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->info.platform,
                                     0};
    d->ctx = clCreateContext(props, 1, &d->info.device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateContext: %s\n", clhgemm_status_string(err));
        return -1;
    }
    d->q = clCreateCommandQueue(d->ctx, d->info.device, 0, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateCommandQueue: %s\n", clhgemm_status_string(err));
        clReleaseContext(d->ctx);
        return -1;
    }
    d->ok = 1;
    return 0;
}


const char *blas_desc(char *buf, size_t len)
{
#ifdef CLHGEMM_HAVE_OPENBLAS
    const char *cfg = openblas_get_config();
    snprintf(buf, len, "%s, core %s, %d threads%s%s", strncmp(cfg, "OpenBLAS ", 9) ? cfg : cfg + 9,
             openblas_get_corename(), openblas_get_num_threads(),
             getenv("OPENBLAS_CORETYPE") ? ", OPENBLAS_CORETYPE=" : "",
             getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "");
#else
    snprintf(buf, len, "n/a (built without OpenBLAS)");
#endif
    return buf;
}

cl_int wait_event(cl_event ev)
{
    cl_int err = clWaitForEvents(1, &ev);
    cl_int exec = CL_COMPLETE;
    if (err == CL_SUCCESS)
        err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    clReleaseEvent(ev);
    return err == CL_SUCCESS && exec < 0 ? exec : err;
}
