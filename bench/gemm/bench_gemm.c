/*
 * bench_gemm.c -- clhgemm-bench-gemm: device GEMM throughput of clhgemm against CLBlast (and,
 * when asked or available, cuBLAS and OpenBLAS), all measured in the same process and run.
 *
 * The matrices live on the device before timing starts, so the figures are those of
 * clhgemm_{s,d,c,z}gemm_cl itself (packing, kernel, write-back) and not of host transfers. The
 * complex precisions (--precision c,z) run the same shapes with complex operands, their GFLOP/s
 * counting the 8mnk real flops of a complex product, beside CLBlast's and cuBLAS's complex GEMM
 * and cuBLAS's 3M form (cublas{C,Z}gemm3m: fewer multiplications, a looser error bound). Both
 * OpenCL libraries run on the SAME buffers and queue; their timed reps are interleaved so that
 * drift of a shared, noisy machine (clocks, neighbours) hits both alike. Each timed rep is
 * enqueue -> clWaitForEvents on the returned event, measured with the host monotonic clock;
 * warm-up reps (the first call builds kernels) are excluded; the median is reported with min
 * and max. Before timing, each shape is checked once: ours against CLBlast element-wise, and
 * every library against an exact (long double) evaluation of C*t for a random vector t (BLIS's
 * cheap check). Errors are printed as max|diff| / (max|ref| * k * eps), so 1.0 is the tolerance;
 * this is a sanity check only -- the tests live in tests/.
 *
 * Links clhgemm_internal (same code as the shared library) to print the kernel parameters that
 * the library selects for the device (chg_gemm_params_select / chg_gemm_params_format).
 * Results are appended to a CSV file (--csv) as they are produced, so a run that dies half-way
 * still leaves its rows; the summary table is printed last.
 *
 * This file is main: the device and its queue, the run's header lines, each shape and
 * precision in turn (host data, the runners, the report of its row), the exit status. The
 * other steps live in bench_gemm_*.c (listed in bench_gemm_priv.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gemm_priv.h"

#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
#include "device/device.h"
#include "kernels/params.h"
#include "tuning/tuning.h"
#endif
#ifdef CLHGEMM_HAVE_CLBLAST
#include <clblast_c.h>
#endif
#ifdef CLHGEMM_HAVE_CUBLAS
#include "cuda/cublas_ref.h"
#endif
#ifdef CLHGEMM_HAVE_OPENBLAS
/* OpenBLAS extensions; weak so that another CBLAS still links (they are then NULL). */
extern int openblas_get_num_threads(void) __attribute__((weak));
extern char *openblas_get_corename(void) __attribute__((weak));
extern char *openblas_get_config(void) __attribute__((weak));
#endif

#define CHG_BENCH_MAX3(a, b, c) ((a) > (b) ? ((a) > (c) ? (a) : (c)) : ((b) > (c) ? (b) : (c)))

/* ---- one shape, one precision ------------------------------------------------------------- */

/* A shape that needs over half the device memory (or more than one allocation may hold) is
 * skipped: 1 after its notes and line, 0 when it fits. */
static int skip_too_big(const ctx_t *c, const prob_t *p, row_t *row)
{
    const size_t es = bg_es(p->dbl, p->cplx);
    const double need = (double)es * (double)(p->na + p->nb + p->nc);
    if (need > 0.5 * (double)c->info.global_mem_bytes ||
        (double)es * (double)CHG_BENCH_MAX3(p->na, p->nb, p->nc) > (double)c->info.max_alloc_bytes) {
        for (int l = 0; l < NLIBS; l++)
            snprintf(row->r[l].note, sizeof row->r[l].note,
                     "skipped: needs %.0f MiB, device has %.0f MiB (max alloc %.0f MiB)",
                     need / 1048576.0, c->info.global_mem_bytes / 1048576.0,
                     c->info.max_alloc_bytes / 1048576.0);
        printf("    skipped: does not fit in half the device memory (or one allocation)\n");
        return 1;
    }
    return 0;
}

/* The host copies of the problem, A, B and C0 filled with reproducible random data; 0, or -1
 * when the memory is not there (what was allocated stays in h for host_mats_free). */
static int host_mats_make(host_mats_t *h, const prob_t *p)
{
    const size_t es = bg_es(p->dbl, p->cplx), x = p->cplx ? 2 : 1;
    h->A = malloc(p->na * es);
    h->B = malloc(p->nb * es);
    h->C0 = malloc(p->nc * es);
    h->Cours = malloc(p->nc * es);
    h->Cref = malloc(p->nc * es);
    h->Cdef = malloc(p->nc * es);
    if (!h->A || !h->B || !h->C0 || !h->Cours || !h->Cref || !h->Cdef) return -1;
    const uint64_t seed =
        ((uint64_t)p->m << 40) ^ ((uint64_t)p->n << 20) ^ (uint64_t)p->k ^
        ((uint64_t)bg_pi(p->dbl, p->cplx) << 61);
    bg_fill_random(h->A, p->dbl, p->na * x, seed ^ 0xA);
    bg_fill_random(h->B, p->dbl, p->nb * x, seed ^ 0xB);
    bg_fill_random(h->C0, p->dbl, p->nc * x, seed ^ 0xC);
    return 0;
}

static void host_mats_free(host_mats_t *h)
{
    free(h->A);
    free(h->B);
    free(h->C0);
    free(h->Cours);
    free(h->Cref);
    free(h->Cdef);
}

/* A WARN line (and note) for each library whose check is beyond tolerance. */
static void warn_checks(row_t *row)
{
    for (int l = 0; l < NLIBS; l++) {
        result_t *r = &row->r[l];
        if (bg_result_warns(r)) {
            printf("    WARN: %s result check beyond tolerance (cheap check %.3g%s%.3g; 1.0 = k*eps)\n",
                   bg_lib_title[l], r->err, isnan(r->err_ref) ? "" : ", vs CLBlast ",
                   isnan(r->err_ref) ? 0.0 : r->err_ref);
            if (!r->note[0]) snprintf(r->note, sizeof r->note, "WARN: check beyond tolerance");
        }
    }
}

/* The row kept for the summary (dropped, as before, if the table cannot grow). */
static void row_append(ctx_t *c, const row_t *row)
{
    if (c->nrows == c->caprows) {
        int cap = c->caprows ? 2 * c->caprows : 32;
        row_t *nr = realloc(c->rows, sizeof(row_t) * (size_t)cap);
        if (nr) {
            c->rows = nr;
            c->caprows = cap;
        }
    }
    if (c->nrows < c->caprows) c->rows[c->nrows++] = *row;
}

static void bench_one(ctx_t *c, shape_t shape, int dbl, int cplx)
{
    row_t row;
    memset(&row, 0, sizeof row);
    row.shape = shape;
    row.dbl = dbl;
    row.cplx = cplx;
    for (int l = 0; l < NLIBS; l++) {
        row.r[l].host.median = row.r[l].host.min = row.r[l].host.max = NAN;
        row.r[l].dev.median = row.r[l].dev.min = row.r[l].dev.max = NAN;
        row.r[l].err = row.r[l].err_ref = NAN;
    }
    prob_t p;
    bg_prob_init(&p, &c->o, c->queue, shape, dbl, cplx);
    host_mats_t h;
    memset(&h, 0, sizeof h);
    const double need = (double)bg_es(dbl, cplx) * (double)(p.na + p.nb + p.nc);

    printf("[%c %dx%dx%d] %.1f MiB of matrices\n", bg_pchar(dbl, cplx), shape.m, shape.n, shape.k,
           need / 1048576.0);
    fflush(stdout);

    if (skip_too_big(c, &p, &row)) {
        /* the notes say why */
    } else if (host_mats_make(&h, &p)) {
        for (int l = 0; l < NLIBS; l++) snprintf(row.r[l].note, sizeof row.r[l].note, "out of host memory");
        printf("    skipped: out of host memory\n");
    } else {
        bg_run_opencl(c, &p, &h, &row);
        bg_run_cublas(c, &p, &h, &row);
        bg_run_openblas(c, &p, &h, &row);
        warn_checks(&row);
    }
    bg_report_row(c, &row);
    row_append(c, &row);
    host_mats_free(&h);
}

/* ---- the device and the run's header ------------------------------------------------------ */

static int pick_device(const opts_t *o, clhgemm_device_info_t *out)
{
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(o->device_spec, NULL, 0, &count);
    if (st != CLHGEMM_SUCCESS || count == 0) {
        fprintf(stderr, "error: no OpenCL device%s%s%s: %s\n", o->device_spec ? " matches '" : "",
                o->device_spec ? o->device_spec : "", o->device_spec ? "'" : "",
                st != CLHGEMM_SUCCESS ? clhgemm_status_message(st) : "none found");
        return -1;
    }
    clhgemm_device_info_t *list = calloc(count, sizeof *list);
    if (!list) return -1;
    size_t got = 0;
    st = clhgemm_devices_get(o->device_spec, list, count, &got);
    if (st != CLHGEMM_SUCCESS || got == 0) {
        fprintf(stderr, "error: clhgemm_devices_get: %s\n", clhgemm_status_string(st));
        free(list);
        return -1;
    }
    if (got > count) got = count;
    if (o->list) {
        for (size_t i = 0; i < got; i++)
            printf("[%d] %s | %s | %s | %s | driver %s | %s\n", list[i].index, list[i].name,
                   list[i].vendor, list[i].platform_name, list[i].device_version,
                   list[i].driver_version,
                   list[i].kind == CLHGEMM_DEVICE_GPU ? "GPU"
                   : list[i].kind == CLHGEMM_DEVICE_CPU ? "CPU" : "other");
        free(list);
        exit(0);
    }
    size_t pick = 0;
    if (!o->device_spec)
        for (size_t i = 0; i < got; i++)
            if (list[i].kind == CLHGEMM_DEVICE_GPU) {
                pick = i;
                break;
            }
    *out = list[pick];
    free(list);
    return 0;
}

/* The context and queue on the picked device (profiling for --profile); -1 after a message. */
static int open_queue(ctx_t *c)
{
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)c->info.platform, 0};
    c->context = clCreateContext(props, 1, &c->info.device, NULL, NULL, &err);
    if (!c->context) {
        fprintf(stderr, "error: clCreateContext: %s\n", clhgemm_status_string(err));
        return -1;
    }
    c->queue = clCreateCommandQueue(c->context, c->info.device, c->o.profile ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
    if (!c->queue) {
        fprintf(stderr, "error: clCreateCommandQueue: %s\n", clhgemm_status_string(err));
        return -1;
    }
    return 0;
}

/* Kernel parameters the library will use on this device (tuned and built-in), and which tuning
 * entry gives them. */
static void describe_params(ctx_t *c)
{
    for (int d = 0; d < 2; d++) {
#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
        chg_device_t dev;
        if (chg_device_query(c->info.device, &dev) == CLHGEMM_SUCCESS) {
            chg_gemm_params_t gp;
            chg_gemm_params_select(&dev, d ? CHG_F64 : CHG_F32, &gp);
            chg_gemm_params_format(&gp, c->params[d], sizeof c->params[d]);
            chg_gemm_params_default(&dev, d ? CHG_F64 : CHG_F32, &gp);
            chg_gemm_params_format(&gp, c->params_def[d], sizeof c->params_def[d]);
            chg_tuning_entry_t e;
            chg_tuning_lookup(&dev, d ? CHG_F64 : CHG_F32, &e);
            snprintf(c->tuning[d], sizeof c->tuning[d], "%s (%s)", chg_tuning_level_name(e.level),
                     e.source);
        } else {
            snprintf(c->params[d], sizeof c->params[d], "unknown (device query failed)");
        }
#else
        snprintf(c->params[d], sizeof c->params[d], "unknown (built without clhgemm_internal)");
#endif
    }
}

/* Which competitors are there (built in, a device for cuBLAS) and their descriptions. */
static void describe_competitors(ctx_t *c)
{
    const opts_t *o = &c->o;
    (void)o; /* unused when no competitor is built in */
#ifdef CLHGEMM_HAVE_CLBLAST
    c->have_clblast = o->clblast;
#endif
#ifdef CLHGEMM_HAVE_CUBLAS
    if (o->cublas) {
        c->have_cublas = cublas_ref_available();
        if (c->have_cublas) snprintf(c->cublas_desc, sizeof c->cublas_desc, "%s", cublas_ref_description());
        else snprintf(c->cublas_desc, sizeof c->cublas_desc, "no CUDA device: %s", cublas_ref_last_error());
    }
#else
    snprintf(c->cublas_desc, sizeof c->cublas_desc, "not built with cuBLAS (no CUDA toolkit)");
#endif
#ifdef CLHGEMM_HAVE_OPENBLAS
    if (o->openblas) {
        c->have_openblas = 1;
        snprintf(c->openblas_desc, sizeof c->openblas_desc, "threads=%d core=%s",
                 openblas_get_num_threads ? openblas_get_num_threads() : -1,
                 openblas_get_corename ? openblas_get_corename() : "?");
    }
#else
    snprintf(c->openblas_desc, sizeof c->openblas_desc, "not built with OpenBLAS");
#endif
}

/* The run's header: library, device, parameters, competitors, the run's settings. */
static void print_header(const ctx_t *c)
{
    const opts_t *o = &c->o;
    printf("clhgemm-bench-gemm: clhgemm %s, %s\n", clhgemm_version(), c->date);
    printf("device    : [%d] %s | %s | %s\n", c->info.index, c->info.name, c->info.vendor, c->info.platform_name);
    printf("driver    : %s | %s\n", c->info.driver_version, c->info.device_version);
    printf("memory    : %.1f GiB global, %.1f GiB max alloc, %llu KiB local, %u CUs, fp64 %s\n",
           c->info.global_mem_bytes / 1073741824.0, c->info.max_alloc_bytes / 1073741824.0,
           c->info.local_mem_bytes / 1024, c->info.compute_units, c->info.has_fp64 ? "yes" : "no");
    printf("features  : %s\n", c->info.features);
    if (o->do_s || o->do_c) printf("params s  : %s  [tuning: %s]%s\n", c->params[0], c->tuning[0],
                                   o->do_c ? " (c: the same kernel)" : "");
    if ((o->do_d || o->do_z) && c->info.has_fp64)
        printf("params d  : %s  [tuning: %s]%s\n", c->params[1], c->tuning[1],
               o->do_z ? " (z: the same kernel)" : "");
    if (o->defaults && o->do_s) printf("defaults s: %s\n", c->params_def[0]);
    if (o->defaults && o->do_d && c->info.has_fp64) printf("defaults d: %s\n", c->params_def[1]);
    printf("CLBlast   : %s\n", c->have_clblast ? "yes (same buffers, same queue)"
                               : o->clblast  ? "n/a (not built with CLBlast)" : "off (--no-clblast)");
    printf("cuBLAS    : %s\n", !o->cublas ? "off (--no-cublas)" : c->have_cublas ? c->cublas_desc : "n/a");
    if (o->cublas && !c->have_cublas) printf("            (%s)\n", c->cublas_desc);
    if (o->cublas && c->have_cublas && (getenv("NVIDIA_TF32_OVERRIDE") || getenv("CUBLAS_EMULATE_SINGLE_PRECISION")))
        printf("            note: NVIDIA_TF32_OVERRIDE / CUBLAS_EMULATE_SINGLE_PRECISION is set\n");
    printf("OpenBLAS  : %s\n", !o->openblas ? "off (--openblas)" : c->have_openblas ? c->openblas_desc : "n/a (not built)");
    printf("run       : %s-major %c%c, alpha 1, beta %g, warm-up %d, reps %d (interleaved), host clock "
           "enqueue->wait%s\n",
           o->row ? "row" : "column", o->ta ? 'T' : 'N', o->tb ? 'T' : 'N', o->beta, o->warmup, o->reps,
           o->profile ? "; device time = marker start -> last event end" : "");
    if (o->sweep || o->scale != 1.0 || o->ndropped)
        printf("shapes    : %s%d square(s), %d shape(s); dimensions scaled by %g (rounded, at least 1)%s\n",
               o->sweep ? "sweep: " : "", o->nsquares, o->nrects, o->scale,
               o->ndropped ? ", duplicates dropped" : "");
    if (o->ndropped) printf("            %d shape(s) dropped as duplicates after scaling\n", o->ndropped);
    printf("check     : err = max|diff| / (max|ref| * k * eps), WARN above 1\n\n");
}

/* ---- main --------------------------------------------------------------------------------- */

/* Rows where ours failed (not skipped), plus every check beyond tolerance. */
static int count_failures(const ctx_t *c)
{
    int failures = 0;
    for (int i = 0; i < c->nrows; i++) {
        const result_t *r = &c->rows[i].r[LIB_OURS];
        if (!r->ran && strncmp(r->note, "skipped", 7)) failures++;
        for (int l = 0; l < NLIBS; l++)
            if (bg_result_warns(&c->rows[i].r[l])) failures++;
    }
    return failures;
}

int main(int argc, char **argv)
{
    ctx_t c;
    memset(&c, 0, sizeof c);
    if (bg_parse_args(argc, argv, &c.o)) return 2;
    const opts_t *o = &c.o;
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (pick_device(o, &c.info)) return 1;
    {
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(c.date, sizeof c.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    if (open_queue(&c)) return 1;
    describe_params(&c);
    describe_competitors(&c);
    print_header(&c);
    if (o->csv && bg_csv_open(&c)) return 1;

    const int wanted[4] = {o->do_s, o->do_d, o->do_c, o->do_z}; /* s, d, c, z */
    for (int pi = 0; pi < 4; pi++) {
        const int d = pi & 1, cx = pi >> 1;
        if (!wanted[pi]) continue;
        if (d && !c.info.has_fp64) {
            printf("%s: skipped (the device has no fp64)\n", cx ? "double complex" : "double");
            continue;
        }
        for (int i = 0; i < o->nsquares; i++) bench_one(&c, o->squares[i], d, cx);
        for (int i = 0; i < o->nrects; i++) bench_one(&c, o->rects[i], d, cx);
    }

    const int failures = count_failures(&c);
    bg_print_summary(&c);
    bg_print_geomeans(&c);
    if (o->png) bg_write_png(&c);
    if (failures) printf("%d problem(s): see the WARN / failed lines above\n", failures);

    if (c.csv) fclose(c.csv);
    free(c.rows);
    clhgemm_release_resources();
#ifdef CLHGEMM_HAVE_CLBLAST
    if (c.have_clblast) CLBlastClearCache();
#endif
    clReleaseCommandQueue(c.queue);
    clReleaseContext(c.context);
    return failures ? 1 : 0;
}
