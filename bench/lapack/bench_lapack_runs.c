/*
 * bench_lapack_runs.c -- the columns of clhgemm-bench-lapack at one size: ours on host memory
 * (clhgemm_{s,d}potrf/getrf/geqrf on the run's handle), ours on a device buffer (the _cl
 * routines on the run's queue), OpenBLAS's LAPACK (its Fortran routines, its own threads) and
 * cuSOLVER's two columns (cusolver_ref.c), each timed and its result checked; and the host
 * column again on a handle of its own: under --memory-limit's device memory limit (the handle's
 * option, so that no other column sees it) and on the first device alone (--one-device).
 *
 * Every column runs one untimed warm-up call (kernels built, pinned staging made, OpenBLAS's
 * threads started) and then the timed calls, each on a fresh copy of the input made before it
 * and not timed: for ours on host memory and OpenBLAS a copy into the work array, for ours on
 * a device buffer a blocking write of the buffer. A timed call is the host clock around the
 * synchronous call. The last timed call's result is the one checked (read back from the
 * device buffer, and ours' row-major result transposed in place, untimed).
 *
 * Where a handle's calls went: the library's call record (clhgemm_last_call_info) is written
 * by a factorization the route gives to the CPU LAPACK (cpu_fraction 1, no device) and left as
 * it was by one on the devices; so a cpu record that appears during a column says the CPU, and
 * the handle's own devices are taken otherwise -- but on a handle whose record already said cpu
 * (the run's handle, after an earlier size went to the CPU) it cannot be told: "cpu?". The
 * handles of --memory-limit and --one-device are made per problem, their record fresh.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cblas.h>

#include "bench_lapack_int.h"

#ifdef CLHGEMM_HAVE_CUSOLVER
#include "cusolver_ref.h"
#endif

/* ---- ours ---------------------------------------------------------------------------------- */

static clhgemm_layout_t layout(const bl_prob_t *p)
{
    return p->row ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
}

static clhgemm_uplo_t uplo(const bl_prob_t *p) { return p->upper ? CLHGEMM_UPPER : CLHGEMM_LOWER; }

/* The host-memory routine on p->w. */
static clhgemm_status_t ours_host(clhgemm_handle_t h, bl_prob_t *p, int *info)
{
    const int n = p->n;
    *info = 0;
    if (p->r == R_POTRF)
        return p->dbl ? clhgemm_dpotrf(h, layout(p), uplo(p), n, p->w, n, info)
                      : clhgemm_spotrf(h, layout(p), uplo(p), n, p->w, n, info);
    if (p->r == R_GETRF)
        return p->dbl ? clhgemm_dgetrf(h, layout(p), n, n, p->w, n, p->ipiv, info)
                      : clhgemm_sgetrf(h, layout(p), n, n, p->w, n, p->ipiv, info);
    return p->dbl ? clhgemm_dgeqrf(h, layout(p), n, n, p->w, n, p->tau)
                  : clhgemm_sgeqrf(h, layout(p), n, n, p->w, n, p->tau);
}

/* The device-buffer routine on buf. */
static clhgemm_status_t ours_dev(cl_command_queue q, cl_mem buf, bl_prob_t *p, int *info)
{
    const int n = p->n;
    *info = 0;
    if (p->r == R_POTRF)
        return p->dbl ? clhgemm_dpotrf_cl(layout(p), uplo(p), n, buf, 0, n, info, q)
                      : clhgemm_spotrf_cl(layout(p), uplo(p), n, buf, 0, n, info, q);
    if (p->r == R_GETRF)
        return p->dbl ? clhgemm_dgetrf_cl(layout(p), n, n, buf, 0, n, p->ipiv, info, q)
                      : clhgemm_sgetrf_cl(layout(p), n, n, buf, 0, n, p->ipiv, info, q);
    return p->dbl ? clhgemm_dgeqrf_cl(layout(p), n, n, buf, 0, n, p->tau, q)
                  : clhgemm_sgeqrf_cl(layout(p), n, n, buf, 0, n, p->tau, q);
}

/* ---- OpenBLAS ------------------------------------------------------------------------------ */

const char *bl_openblas_desc(char *buf, size_t len)
{
    const char *cfg = openblas_get_config();
    snprintf(buf, len, "%s, core %s, %d threads", strncmp(cfg, "OpenBLAS ", 9) ? cfg : cfg + 9,
             openblas_get_corename(), openblas_get_num_threads());
    return buf;
}

/* geqrf's workspace (from its query) for the problem; NULL when it cannot be had. */
static void *ob_work(const bl_prob_t *p, int *lwork)
{
    const int n = p->n, q = -1;
    int info = 0;
    double wd = 0;
    float ws = 0;
    if (p->dbl) dgeqrf_(&n, &n, p->w, &n, p->tau, &wd, &q, &info);
    else sgeqrf_(&n, &n, p->w, &n, p->tau, &ws, &q, &info);
    *lwork = p->dbl ? (int)wd : (int)ws;
    if (*lwork < 1) *lwork = 1;
    return malloc((size_t)*lwork * p->es);
}

static void ob_call(bl_prob_t *p, void *work, int lwork, int *info)
{
    const int n = p->n;
    const char *ul = p->upper ? "U" : "L";
    *info = 0;
    if (p->r == R_POTRF) {
        if (p->dbl) dpotrf_(ul, &n, p->w, &n, info, 1);
        else spotrf_(ul, &n, p->w, &n, info, 1);
    } else if (p->r == R_GETRF) {
        if (p->dbl) dgetrf_(&n, &n, p->w, &n, p->ipiv, info);
        else sgetrf_(&n, &n, p->w, &n, p->ipiv, info);
    } else {
        if (p->dbl) dgeqrf_(&n, &n, p->w, &n, p->tau, work, &lwork, info);
        else sgeqrf_(&n, &n, p->w, &n, p->tau, work, &lwork, info);
    }
}

/* ---- the timing loop ----------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* What one column's loop needs beside the problem. */
typedef struct col_s {
    int col;
    clhgemm_handle_t h; /* ours on a handle */
    cl_mem buf;      /* C_DEV */
    void *work;      /* C_OB, geqrf */
    int lwork;
} col_t;

/* The untimed refresh of the input before a call: 0, or -1 with why. */
static int refresh(bl_ctx_t *c, bl_prob_t *p, const col_t *k, char *why, size_t len)
{
    const size_t bytes = p->elems * p->es;
    if (p->lowmem) bl_refill(c, p, k->col == C_OB ? 0 : p->row);
    if (k->col == C_DEV) {
        cl_int err = clEnqueueWriteBuffer(c->queue, k->buf, CL_TRUE, 0, bytes,
                                          p->lowmem ? p->w : p->a0, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            snprintf(why, len, "clEnqueueWriteBuffer: %s", clhgemm_status_string(err));
            return -1;
        }
        return 0;
    }
    if (!p->lowmem) bl_copy(c->threads, p->w, k->col == C_OB ? p->a0c : p->a0, bytes);
    return 0;
}

/* One call of the column: 0, or -1 with why. */
static int call(bl_ctx_t *c, bl_prob_t *p, const col_t *k, int *info, char *why, size_t len)
{
    clhgemm_status_t st = CLHGEMM_SUCCESS;
    if (k->h) st = ours_host(k->h, p, info);
    else if (k->col == C_DEV) st = ours_dev(c->queue, k->buf, p, info);
    else ob_call(p, k->work, k->lwork, info);
    if (st != CLHGEMM_SUCCESS) {
        snprintf(why, len, "%s", clhgemm_status_string(st));
        return -1;
    }
    return 0;
}

/* The warm-up and the timed calls of ours or OpenBLAS; the last call's result in p->w,
 * column-major. 0, or -1 with cell->why. */
static int timed_loop(bl_ctx_t *c, bl_prob_t *p, const col_t *k, bl_cell_t *cell)
{
    const int reps = c->o.reps;
    double *t = calloc((size_t)reps, sizeof *t);
    if (!t) return snprintf(cell->why, sizeof cell->why, "out of host memory"), -1;
    int rc = 0;
    for (int r = -c->o.warmup; rc == 0 && r < reps; r++) { /* r < 0: the warm-up */
        rc = refresh(c, p, k, cell->why, sizeof cell->why);
        if (rc) break;
        const double t0 = bl_now_ms();
        rc = call(c, p, k, &cell->info, cell->why, sizeof cell->why);
        if (r >= 0) t[r] = bl_now_ms() - t0;
    }
    if (rc == 0) cell->ms = median(t, reps);
    free(t);
    if (rc == 0 && k->col == C_DEV) {
        cl_int err = clEnqueueReadBuffer(c->queue, k->buf, CL_TRUE, 0, p->elems * p->es, p->w, 0,
                                         NULL, NULL);
        if (err != CL_SUCCESS) {
            snprintf(cell->why, sizeof cell->why, "clEnqueueReadBuffer: %s",
                     clhgemm_status_string(err));
            rc = -1;
        }
    }
    if (rc == 0 && p->row && k->col != C_OB) bl_transpose(c->threads, p->w, p->dbl, p->n);
    return rc;
}

/* ---- cuSOLVER ------------------------------------------------------------------------------ */

#ifdef CLHGEMM_HAVE_CUSOLVER
static int g_copy_threads = 1;

static void copy_threads(void *dst, const void *src, size_t bytes)
{
    bl_copy(g_copy_threads, dst, src, bytes);
}

static int cusolver_column(bl_ctx_t *c, bl_prob_t *p, int col, bl_cell_t *cell)
{
    g_copy_threads = c->threads;
    int rc = col == C_CUS_RES
        ? cusolver_ref_resident(p->r, p->dbl, p->upper, p->n, p->a0c, c->o.reps, &cell->ms, p->w,
                                p->ipiv, p->tau, &cell->info)
        : cusolver_ref_copies(p->r, p->dbl, p->upper, p->n, p->a0c, p->w, copy_threads,
                              c->o.reps, &cell->ms, p->ipiv, p->tau, &cell->info);
    if (rc) snprintf(cell->why, sizeof cell->why, "%s", cusolver_ref_last_error());
    return rc;
}
#endif

/* ---- a column ------------------------------------------------------------------------------ */

/* Why the column does not run at this problem ("" when it does). */
static void skip_reason(const bl_ctx_t *c, const bl_prob_t *p, int col, char *why, size_t len)
{
    const bl_opts_t *o = &c->o;
    why[0] = '\0';
    if (col == C_HOST && o->no_host) snprintf(why, len, "off (--no-host)");
    else if (col == C_HOST && !c->handle) snprintf(why, len, "no handle");
    else if (col == C_LIM && !o->mem_limit) snprintf(why, len, "off (no --memory-limit)");
    else if (col == C_ONE && !o->one_device) snprintf(why, len, "off (no --one-device)");
    else if (col == C_ONE && c->hdev < 2) snprintf(why, len, "off (the handle has one device)");
    else if (col == C_DEV && o->no_dev) snprintf(why, len, "off (--no-device)");
    else if (col == C_DEV && p->dbl && !c->info.has_fp64) snprintf(why, len, "no fp64");
    else if (col == C_DEV && p->elems * p->es > c->info.max_alloc_bytes)
        snprintf(why, len, "a buffer of %.1f GiB exceeds the device's max alloc (%.1f GiB)",
                 p->elems * p->es / 1073741824.0, c->info.max_alloc_bytes / 1073741824.0);
    else if (col == C_OB && !o->openblas) snprintf(why, len, "off (--no-openblas)");
    else if (col == C_OB && p->n > o->ob_max)
        snprintf(why, len, "skipped above n = %d (--no-openblas-above)", o->ob_max);
    else if ((col == C_CUS_RES || col == C_CUS_CP) && !c->cusolver_ok)
        snprintf(why, len, "%s", !o->cusolver ? "off (--no-cusolver)" : "n/a");
    else if ((col == C_CUS_RES || col == C_CUS_CP) && p->lowmem)
        snprintf(why, len, "skipped: needs a second host copy of the matrix, which does not fit");
}

/* The handle of C_LIM or C_ONE (the run's own for C_HOST): NULL with cell->why. */
static clhgemm_handle_t column_handle(bl_ctx_t *c, int col, bl_cell_t *cell)
{
    if (col == C_HOST) return c->handle;
    clhgemm_options_t ho;
    clhgemm_options_init(&ho);
    char spec[16];
    if (col == C_LIM) ho.device_memory_limit = c->o.mem_limit;
    if (col == C_ONE) {
        snprintf(spec, sizeof spec, "%d", c->hdev_first);
        ho.devices = spec;
    }
    clhgemm_handle_t h = NULL;
    clhgemm_status_t st = clhgemm_create(&h, &ho);
    if (st != CLHGEMM_SUCCESS)
        snprintf(cell->why, sizeof cell->why, "clhgemm_create: %s", clhgemm_status_string(st));
    return h;
}

static int record_cpu(const clhgemm_call_info_t *i)
{
    return i->devices_used == 0 && i->cpu_fraction >= 1.0;
}

/* cell->devs from the call record before (prev) and after the column's calls on h (see the
 * top of the file), and cell->ooc from the devices' room for the matrix. */
static void note_route(const bl_ctx_t *c, const bl_prob_t *p, clhgemm_handle_t h,
                       const clhgemm_call_info_t *prev, int col, bl_cell_t *cell)
{
    clhgemm_call_info_t post;
    memset(&post, 0, sizeof post);
    clhgemm_last_call_info(h, &post);
    if (post.devices_used > 0) cell->devs = post.devices_used; /* a record written on the devices */
    else if (record_cpu(&post)) cell->devs = record_cpu(prev) ? -1 : 0;
    else cell->devs = col == C_ONE ? 1 : c->hdev;
    const unsigned long long room = col == C_HOST ? c->room_default
                                  : col == C_LIM  ? c->room_limit : 0;
    /* the driver's buffers beside the matrix, a few block columns a device: taken as 8 of
     * CLHGEMM_FACTOR_NB's width, else of the widest built-in one (a tuning entry may differ) */
    const char *nbv = getenv("CLHGEMM_FACTOR_NB");
    const double nb = nbv && atoi(nbv) > 0 ? atoi(nbv) : 512;
    const double bytes = (double)p->elems * (double)p->es, col_bytes = (double)p->n * nb * p->es;
    const int ndev = col == C_ONE ? 1 : c->hdev;
    if (cell->devs == 0 || !room || ndev < 1) cell->ooc = BL_OOC_NA;
    else if (bytes > (double)room)
        cell->ooc = (double)room / ndev < 10 * col_bytes ? BL_OOC_YES_TIGHT : BL_OOC_YES;
    else cell->ooc = bytes + 8 * col_bytes * ndev > (double)room ? BL_OOC_NEAR : BL_OOC_NO;
}

/* The column's calls: 0, or -1 with cell->why. */
static int run_calls(bl_ctx_t *c, bl_prob_t *p, int col, bl_cell_t *cell)
{
    col_t k = {col, NULL, NULL, NULL, 0};
    int rc = 0;
    clhgemm_call_info_t prev;
    memset(&prev, 0, sizeof prev);
    if (col == C_HOST || col == C_LIM || col == C_ONE) {
        if (!(k.h = column_handle(c, col, cell))) return -1;
        clhgemm_last_call_info(k.h, &prev);
    }
    if (col == C_DEV) {
        cl_int err;
        k.buf = clCreateBuffer(c->context, CL_MEM_READ_WRITE, p->elems * p->es, NULL, &err);
        if (!k.buf) {
            snprintf(cell->why, sizeof cell->why, "clCreateBuffer: %s", clhgemm_status_string(err));
            return -1;
        }
    }
    if (col == C_OB && p->r == R_GEQRF && !(k.work = ob_work(p, &k.lwork))) {
        snprintf(cell->why, sizeof cell->why, "out of host memory (geqrf's workspace)");
        return -1;
    }
    if (col != C_CUS_RES && col != C_CUS_CP) rc = timed_loop(c, p, &k, cell);
#ifdef CLHGEMM_HAVE_CUSOLVER
    else rc = cusolver_column(c, p, col, cell);
#endif
    if (k.h && rc == 0) note_route(c, p, k.h, &prev, col, cell);
    if (k.h && k.h != c->handle) clhgemm_destroy(k.h);
    if (k.buf) clReleaseMemObject(k.buf);
    free(k.work);
    return rc;
}

void bl_run_column(bl_ctx_t *c, bl_prob_t *p, int col, bl_cell_t *cell)
{
    memset(cell, 0, sizeof *cell);
    cell->berr = NAN;
    cell->devs = -1;
    cell->ooc = BL_OOC_NA;
    skip_reason(c, p, col, cell->why, sizeof cell->why);
    if (cell->why[0]) return;
    if (run_calls(c, p, col, cell)) {
        cell->bad = 1;
        return;
    }
    cell->ran = 1;
    cell->berr = bl_berr(c, p, p->w, p->ipiv, p->tau);
    if (cell->info != 0)
        snprintf(cell->why, sizeof cell->why, "info = %d on a matrix made %s", cell->info,
                 p->r == R_POTRF ? "positive definite" : "nonsingular");
    else if (!(cell->berr <= BL_BERR_FAIL))
        snprintf(cell->why, sizeof cell->why, "backward error %.3g above %g", cell->berr,
                 BL_BERR_FAIL);
    cell->bad = cell->why[0] != '\0';
}

/* ---- --trace ------------------------------------------------------------------------------- */

void bl_trace_call(bl_ctx_t *c, bl_prob_t *p, const char *file)
{
    clhgemm_options_t ho;
    clhgemm_options_init(&ho);
    ho.trace_file = file; /* the option CLHGEMM_TRACE stands for, on this handle only */
    clhgemm_handle_t h = NULL;
    clhgemm_status_t st = clhgemm_create(&h, &ho);
    if (st != CLHGEMM_SUCCESS) {
        printf("trace: clhgemm_create: %s\n", clhgemm_status_string(st));
        return;
    }
    remove(file);
    if (p->lowmem) bl_refill(c, p, p->row);
    else bl_copy(c->threads, p->w, p->a0, p->elems * p->es);
    int info = 0;
    const double t0 = bl_now_ms();
    st = ours_host(h, p, &info);
    const double ms = bl_now_ms() - t0;
    clhgemm_destroy(h);
    struct stat sb;
    const int written = stat(file, &sb) == 0;
    printf("trace: %c%s n=%d on a handle of its own (its first call), %.1f ms, %s: %s%s\n",
           p->dbl ? 'd' : 's', bl_rname[p->r], p->n, ms, clhgemm_status_string(st), file,
           written ? "" : " NOT written (the call wrote no trace)");
}
