/*
 * bench_lapack.c -- clhgemm-bench-lapack: the factorizations (Cholesky potrf, LU getrf, QR
 * geqrf; S and D; square matrices) of clhgemm against OpenBLAS's LAPACK and cuSOLVER, all in one
 * process, every result checked.
 *
 * For each routine, precision and size, in this order: ours on host memory
 * (clhgemm_{s,d}potrf/getrf/geqrf on a handle: the transfers are part of the synchronous call),
 * ours on a device buffer (the _cl routine on a buffer already on the device, its upload not
 * timed), OpenBLAS's LAPACK on the host (its own threads; up to --no-openblas-above, since at
 * n = 40000 it takes minutes), and, where built with the CUDA toolkit and a CUDA device answers,
 * cuSOLVER on a device array (the upload not timed) and cuSOLVER with the copies from and to
 * pageable host memory timed (bench/lapack/cusolver_ref.c). Public API of clhgemm only. With
 * --memory-limit SIZE the host column runs again on a handle whose device memory limit is SIZE
 * (out of core where the matrix exceeds it), with --one-device again on a handle of the first
 * device alone (the scaling over devices); beside each host column the devices its calls used
 * and whether the matrix exceeds the devices' room for it (bench_lapack_opts.c's help text says
 * exactly what those columns mean).
 *
 *   clhgemm-bench-lapack [--routines potrf,getrf,geqrf] [--prec s|d|both] [--sizes N,...]
 *       [--layout col|row] [--uplo L|U] [--reps R] [--no-openblas-above N] [--csv FILE]
 *       [--png FILE] [--trace FILE] [--device SPEC] [--no-openblas] [--no-cusolver]
 *       [--no-host] [--no-device] [--warmup W] [--memory-limit SIZE] [--one-device]
 *
 * Timing: one warm-up call (--warmup), then --reps timed calls (default 3), each on a fresh copy of
 * the input (the copy not timed); the median, as GFLOP/s by LAPACK's counts (potrf n^3/3, getrf
 * 2n^3/3, geqrf 4n^3/3, S and D alike). Checks: the backward error of each result by an O(n^2) test
 * with a random vector (bench_lapack_problem.c), and info = 0 (the matrices are made positive
 * definite and nonsingular); ours beyond tolerance is FAILED and the exit status 1, a competitor
 * beyond it a WARN. --layout row runs ours on row-major matrices; the competitors, which have only
 * column-major forms, factor the same matrix in column-major order.
 *
 * The program in parts: bench_lapack_opts.c (the options), _problem.c (the data and the
 * checks), _runs.c (the columns and their timing), _report.c (table, CSV, PNG); what they share
 * is bench_lapack_int.h. This file: the device, its context and queue, the handle, the banner, the
 * loop over routines, precisions and sizes, --trace, the exit status.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_lapack_int.h"

#ifdef CLHGEMM_HAVE_CUSOLVER
#include "cusolver_ref.h"
#endif

/* The device of the device-buffer column: --device, else the handle's rule (CLHGEMM_DEVICES'
 * first, else the first GPU, else the first device). */
static int pick_device(const bl_opts_t *o, clhgemm_device_info_t *out)
{
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(o->device_spec, NULL, 0, &count);
    if (st != CLHGEMM_SUCCESS || count == 0) {
        fprintf(stderr, "error: no OpenCL device: %s\n", clhgemm_status_message(st));
        return -1;
    }
    clhgemm_device_info_t *list = calloc(count, sizeof *list);
    size_t got = 0;
    if (!list || clhgemm_devices_get(o->device_spec, list, count, &got) != CLHGEMM_SUCCESS ||
        !got) {
        free(list);
        return -1;
    }
    size_t pick = 0;
    const char *env = getenv("CLHGEMM_DEVICES");
    if (!o->device_spec && !(env && *env))
        for (size_t i = 0; i < got && i < count; i++)
            if (list[i].kind == CLHGEMM_DEVICE_GPU) {
                pick = i;
                break;
            }
    *out = list[pick];
    free(list);
    return 0;
}

/* The room for the matrix on the handle's devices of memory mem[0 .. n), as the factorization
 * driver reckons it (src/lapack/fact_driver.c host_setup): per device its memory limit (limit,
 * else CLHGEMM_DEVICE_MEMORY_LIMIT, else 80% of its memory; never above its memory) less the
 * GEMM workspace it keeps (CLHGEMM_WORKSPACE_LIMIT, else a quarter of its memory; at most a
 * quarter of the limit). A malformed variable counts as unset, as the library takes it. */
static unsigned long long room(const unsigned long long *mem, int n, unsigned long long limit)
{
    unsigned long long env_lim = 0, env_ws = 0, sum = 0;
    bl_parse_size(getenv("CLHGEMM_DEVICE_MEMORY_LIMIT"), &env_lim);
    bl_parse_size(getenv("CLHGEMM_WORKSPACE_LIMIT"), &env_ws);
    if (!limit) limit = env_lim;
    for (int d = 0; d < n; d++) {
        const unsigned long long lim = limit ? (limit < mem[d] ? limit : mem[d]) : mem[d] / 10 * 8;
        const unsigned long long ws = env_ws ? env_ws : mem[d] / 4;
        sum += lim - (ws < lim / 4 ? ws : lim / 4);
    }
    return sum;
}

/* The devices a handle of the run takes (clhgemm_create's rule: CLHGEMM_DEVICES, else every
 * GPU, else every device), the first one's index, and the rooms of c->o's limits. */
static void handle_devices(bl_ctx_t *c)
{
    enum { MAXD = 64 };
    size_t count = 0;
    c->hdev_first = -1;
    if (clhgemm_devices_get(NULL, NULL, 0, &count) != CLHGEMM_SUCCESS || !count) return;
    clhgemm_device_info_t *list = calloc(count, sizeof *list);
    if (!list || clhgemm_devices_get(NULL, list, count, &count) != CLHGEMM_SUCCESS) {
        free(list);
        return;
    }
    const char *env = getenv("CLHGEMM_DEVICES");
    size_t ngpu = 0;
    for (size_t i = 0; i < count; i++) ngpu += list[i].kind == CLHGEMM_DEVICE_GPU;
    unsigned long long mem[MAXD];
    for (size_t i = 0; i < count && c->hdev < MAXD; i++) {
        if (!(env && *env) && ngpu > 0 && list[i].kind != CLHGEMM_DEVICE_GPU) continue;
        if (c->hdev_first < 0) c->hdev_first = list[i].index;
        mem[c->hdev++] = list[i].global_mem_bytes;
    }
    free(list);
    c->room_default = room(mem, c->hdev, 0);
    c->room_limit = c->o.mem_limit ? room(mem, c->hdev, c->o.mem_limit) : 0;
}

/* The context and queue of the device-buffer column, the handle, cuSOLVER's availability. */
static int open_run(bl_ctx_t *c, char *cus_line, size_t len)
{
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)c->info.platform,
                                     0};
    c->context = clCreateContext(props, 1, &c->info.device, NULL, NULL, &err);
    if (!c->context) return fprintf(stderr, "clCreateContext: %d\n", err), 1;
    c->queue = clCreateCommandQueue(c->context, c->info.device, 0, &err);
    if (!c->queue) return fprintf(stderr, "clCreateCommandQueue: %d\n", err), 1;
    handle_devices(c);
    if (!c->o.no_host) {
        const double t0 = bl_now_ms();
        clhgemm_status_t st = clhgemm_create(&c->handle, NULL);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "error: clhgemm_create: %s\n", clhgemm_status_message(st));
            return 1;
        }
        printf("handle  : created in %.2f s (devices: %s; CLHGEMM_ROUTE=%s)\n",
               (bl_now_ms() - t0) * 1e-3,
               getenv("CLHGEMM_DEVICES") ? getenv("CLHGEMM_DEVICES") : "the library's default",
               getenv("CLHGEMM_ROUTE") ? getenv("CLHGEMM_ROUTE") : "auto");
    }
#ifdef CLHGEMM_HAVE_CUSOLVER
    if (!c->o.cusolver) snprintf(cus_line, len, "off (--no-cusolver)");
    else if ((c->cusolver_ok = cusolver_ref_available()))
        snprintf(cus_line, len, "%s; resident: the factorization on a device array (upload not "
                 "timed); copies: cudaMemcpy from pageable memory, factorization, cudaMemcpy "
                 "back, timed together", cusolver_ref_description());
    else snprintf(cus_line, len, "n/a (%s)", cusolver_ref_last_error());
#else
    snprintf(cus_line, len, "%s", c->o.cusolver ? "n/a (built without the CUDA toolkit)"
                                                : "off (--no-cusolver)");
#endif
    return 0;
}

/* "model name" of /proc/cpuinfo, or "?". */
static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "?");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon) continue;
        colon += 1 + (colon[1] == ' ');
        colon[strcspn(colon, "\n")] = 0;
        snprintf(buf, len, "%s", colon);
        break;
    }
    fclose(f);
}

static void banner_top(const bl_ctx_t *c)
{
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    const long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    printf("clhgemm-bench-lapack: clhgemm %s, %s\n", clhgemm_version(), c->date);
    printf("host    : %s, %ld cores online, %.1f GiB memory\n", cpu,
           sysconf(_SC_NPROCESSORS_ONLN), pages > 0 && psize > 0 ? (double)pages * psize /
           1073741824.0 : 0.0);
    printf("device  : [%d] %s | %s | %s | driver %s | %.1f GiB, max alloc %.1f GiB, %u CUs, "
           "fp64 %s (the device-buffer column's)\n", c->info.index, c->info.name, c->info.vendor,
           c->info.platform_name, c->info.driver_version, c->info.global_mem_bytes / 1073741824.0,
           c->info.max_alloc_bytes / 1073741824.0, c->info.compute_units,
           c->info.has_fp64 ? "yes" : "no");
}

/* bytes as GiB, MiB or KiB */
static const char *human(unsigned long long b, char *buf, size_t len)
{
    if (b >= 1ull << 30) snprintf(buf, len, "%.1f GiB", b / 1073741824.0);
    else if (b >= 1ull << 20) snprintf(buf, len, "%.1f MiB", b / 1048576.0);
    else snprintf(buf, len, "%.1f KiB", b / 1024.0);
    return buf;
}

static void banner_rest(const bl_ctx_t *c, const char *cus_line)
{
    const bl_opts_t *o = &c->o;
    char ob[320];
    printf("OpenBLAS: %s", bl_openblas_desc(ob, sizeof ob));
    if (!o->openblas) printf("; column off (--no-openblas)\n");
    else printf("; its LAPACK up to n = %d\n", o->ob_max);
    printf("cuSOLVER: %s\n", cus_line);
    char r1[32], r2[32];
    printf("handles : %d device(s), the first [%d]; room for a matrix in core %s (the devices' "
           "limits less the driver's GEMM workspace; ooc: the matrix exceeds it)\n",
           c->hdev, c->hdev_first, human(c->room_default, r1, sizeof r1));
    if (o->mem_limit)
        printf("limit   : ours-lim on a handle of its own with a device memory limit of %s per "
               "device: room %s\n", o->mem_limit_arg, human(c->room_limit, r2, sizeof r2));
    if (o->one_device && c->hdev < 2)
        printf("one dev : --one-device skipped: the handle has %d device(s), nothing to compare\n",
               c->hdev);
    else if (o->one_device)
        printf("one dev : ours-1dev on a handle of device [%d] alone; host/1dev = the %d devices' "
               "rate over it\n", c->hdev_first, c->hdev);
    printf("run     : ours %s-major (the competitors column-major, the same matrix)%s; %d warm-up "
           "and %d timed calls, each on a fresh copy of the input (not timed), median; host "
           "clock around each synchronous call\n", o->row ? "row" : "column",
           o->upper ? ", potrf upper" : ", potrf lower", o->warmup, o->reps);
    printf("check   : berr = ||r||_inf / (n eps ||A||_inf ||x||_inf) for a random x (potrf "
           "A x - L L^T x, getrf P A x - L U x, geqrf A x - Q R x, Q by the CPU LAPACK's ormqr), "
           "and info = 0; above %g ours fails (exit status 1), a competitor is a WARN\n", BL_BERR_FAIL);
}

/* --trace's file for routine r and precision dbl: the file itself when one routine and one
 * precision run, else FILE-<p><routine>.json (FILE's .json, if any, moved to the end). */
static void trace_name(const bl_ctx_t *c, int r, int dbl, char *buf, size_t len)
{
    int runs = 0;
    for (int k = 0; k < NR; k++) runs += c->o.routine[k] * (c->o.do_s + c->o.do_d);
    const char *f = c->o.trace;
    if (runs <= 1) {
        snprintf(buf, len, "%s", f);
        return;
    }
    const size_t l = strlen(f);
    const int json = l > 5 && !strcmp(f + l - 5, ".json");
    snprintf(buf, len, "%.*s-%c%s.json", (int)(json ? l - 5 : l), f, dbl ? 'd' : 's', bl_rname[r]);
}

static void one_size(bl_ctx_t *c, int r, int dbl, int n, int largest)
{
    bl_row_t *row = &c->rows[c->nrows];
    memset(row, 0, sizeof *row);
    row->r = r;
    row->dbl = dbl;
    row->n = n;
    bl_prob_t p;
    char why[200];
    if (bl_prob_make(c, &p, r, dbl, n, why, sizeof why)) {
        printf("%6d skipped: %s\n", n, why);
        return;
    }
    c->nrows++;
    if (p.lowmem)
        printf("  note n=%d: one host copy of the matrix (two do not fit): each call's input is "
               "generated afresh\n", n);
    for (int k = 0; k < NC; k++) bl_run_column(c, &p, bl_col_order[k], &row->c[bl_col_order[k]]);
    bl_table_row(c, row);
    if (largest && c->o.trace && c->handle) {
        char file[1100];
        trace_name(c, r, dbl, file, sizeof file);
        bl_trace_call(c, &p, file);
    }
    bl_prob_free(&p);
}

static void run_all(bl_ctx_t *c)
{
    const bl_opts_t *o = &c->o;
    int largest = 0;
    for (int s = 0; s < o->nsizes; s++) largest = o->sizes[s] > largest ? o->sizes[s] : largest;
    for (int r = 0; r < NR; r++) {
        if (!o->routine[r]) continue;
        for (int dbl = 0; dbl < 2; dbl++) {
            if (!(dbl ? o->do_d : o->do_s)) continue;
            bl_table_head(c, r, dbl);
            for (int s = 0; s < o->nsizes; s++)
                one_size(c, r, dbl, o->sizes[s], o->sizes[s] == largest);
        }
    }
}

int main(int argc, char **argv)
{
    static bl_ctx_t c;
    const int prc = bl_parse_args(argc, argv, &c.o);
    if (prc) return prc > 0 ? 0 : 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pick_device(&c.o, &c.info)) return 1;
    if (!c.o.nsizes) bl_default_sizes(&c.o, c.info.kind == CLHGEMM_DEVICE_GPU);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c.threads = cores < 1 ? 1 : cores > 32 ? 32 : (int)cores;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(c.date, sizeof c.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    banner_top(&c);
    char cus_line[700];
    if (open_run(&c, cus_line, sizeof cus_line)) return 1;
    banner_rest(&c, cus_line);
    c.rows = calloc((size_t)NR * 2 * (size_t)c.o.nsizes, sizeof *c.rows);
    if (!c.rows || (c.o.csv && bl_csv_open(&c))) return 1;
    run_all(&c);
    if (c.o.png) bl_write_png(&c);
    printf("\n%s: %d result(s) of ours failed; %d competitor result(s) beyond tolerance (WARN)\n",
           c.failures ? "FAILED" : "done", c.failures, c.warnings);
    if (c.csv) {
        fclose(c.csv);
        printf("CSV: %s\n", c.o.csv);
    }
    clhgemm_destroy(c.handle);
#ifdef CLHGEMM_HAVE_CUSOLVER
    cusolver_ref_shutdown();
#endif
    clReleaseCommandQueue(c.queue);
    clReleaseContext(c.context);
    clhgemm_release_resources();
    free(c.rows);
    return c.failures ? 1 : 0;
}
