/*
 * bench_level3.c -- clhgemm-bench-level3: device SYMM, SYRK, SYR2K, TRMM and TRSM of clhgemm
 * against our own GEMM of the same size and CLBlast's same routine (TRSM also against cuBLAS's
 * TRSM and cuBLAS's GEMM of the same size), all in the same run.
 *
 * Each routine's GFLOP/s counts its own operation: SYMM 2*m^2*n (side left; 2*m*n^2 right),
 * SYRK n^2*k, SYR2K 2*n^2*k, TRMM and TRSM m^2*n (left; m*n^2 right). "GEMM" is
 * clhgemm_{s,d}gemm_cl on the same buffers with the product the routine stands for -- m x n x m
 * for SYMM/TRMM/TRSM side left, n x n x k for SYRK/SYR2K (A*A^T, A*B^T) -- at 2*m*n*k flops; so
 * SYRK at 100% of GEMM takes half GEMM's time, which is what skipping the other triangle buys.
 * The three (four with --syr2k both: fused and two-pass) run on the same buffers and queue with
 * their timed reps interleaved, so drift of a shared machine hits all alike. A rep is enqueue ->
 * clWaitForEvents, timed with the host monotonic clock; warm-ups (kernel builds) are not timed;
 * medians are reported. TRMM and TRSM overwrite B, so B is restored from a copy before every
 * rep (outside the timed region), for every library alike. TRSM's A is well conditioned
 * (diagonal 4..8 in magnitude with random signs, off-diagonal uniform(-1,1)/N), so that every
 * library's solution is stable and comparable.
 *
 * Complex precisions (--precision c, z): the same routines on complex data (real and imaginary
 * parts uniform in [-1,1]) plus HEMM, HERK, HER2K (HERK/HER2K take --trans T as the conjugate
 * transpose), each against clhgemm_{c,z}gemm_cl of the same product and CLBlast's complex
 * routine; flops are 4x the real counts above (a complex multiply-add is 8 real flops), SYR2K
 * always fused (CLHGEMM_SYR2K's two-pass form is real-only), cublasXt real-only.
 *
 * cuBLAS (TRSM rows only, where the benchmark is built with the CUDA toolkit,
 * bench/cuda/cublas_ref.c, and a CUDA device is present; --no-cublas skips it): cublas{S,D}trsm and cublas{S,D}gemm of the
 * GEMM above (same m, n, k, transposes, leading dimensions, alpha and beta) on CUDA device 0,
 * from the same host data in their own device arrays (our buffers released first), the layout
 * mapped to column-major as cublasXt's below. TRSM's B is restored from a pristine device copy
 * before every call, outside the timing; each call is timed with a CUDA event pair (device time,
 * where ours is the host clock around enqueue -> wait); one untimed call and the warm-ups come
 * first, and the reps run as one block after ours. Same math mode as clhgemm-bench-gemm's cuBLAS
 * (FP32, or TF32 under CLHGEMM_SGEMM_MATH=tf32). cuBLAS's solution is checked like ours (below).
 * The summary adds cuBLAS's TRSM and GEMM GFLOP/s, the one over the other, and ours over
 * cuBLAS's TRSM. Not with --host (cublasXt is the CUDA column there).
 *
 * Before timing, each library runs once from the same initial data and its result is checked
 * with BLIS's cheap test in long double on the host: for a random vector t, out*t against the
 * operation applied to t (symmetric outputs of SYRK/SYR2K are completed from their triangle;
 * for TRSM the residual, op(A)*(X*t) against alpha*B*t, or X*(op(A)*t) side right), as
 * max|diff| / (max|ref| * k * eps), so 1.0 is the tolerance; ours is also compared with
 * CLBlast element-wise on the part the routine writes, and TRSM's solution with OpenBLAS's
 * cblas_{s,d}trsm (where the benchmark is built with OpenBLAS) in the same measure. The process
 * prints FAILED and exits 1 on a failed call or a check of ours beyond tolerance (the smoke
 * tests rely on that); a reference library (CLBlast, cublasXt, cuBLAS) that fails or is beyond
 * tolerance is only warned about (WARN).
 *
 *   clhgemm-bench-level3 --sizes 1024,4096 [--routines symm,syrk,syr2k,trmm,trsm,hemm,...]
 *       [--precision s,d,c,z|both|complex|all] [--side L|R] [--uplo U|L] [--trans N|T] [--diag N|U]
 *       [--layout col|row] [--reps R] [--warmup W] [--syr2k lib|fused|two|both] [--csv FILE]
 *       [--no-clblast] [--no-cublas] [--no-check]
 *       [--host [--devices SPEC] [--xt-devices N] [--no-xt]]
 *
 * --host: the host-memory routines instead (clhgemm_{s,d}{symm,syrk,syr2k,trmm,trsm} on a
 * handle: matrices in ordinary host memory, the pipeline of src/host/ over the handle's devices),
 * next to the host-memory GEMM of the same size (clhgemm_{s,d}gemm on the same handle and
 * operands), in the same run with interleaved reps; a rep is the synchronous call, host clock;
 * TRMM's and TRSM's B is restored with memcpy before every rep, outside the timing. The checks
 * apply as above; there is no CLBlast column (CLBlast has no host-memory routines). Where the
 * benchmark is built with the CUDA toolkit (bench/cuda/cublasxt_ref.c) and a CUDA device is
 * present, TRSM also gets a cublasXt column: cublasXt{S,D}trsm on the same pageable arrays (--xt-devices,
 * default 1; B restored before every call outside the timing, its reps run as one block after
 * ours, since each cublasXt measurement creates its own handle), checked like ours.
 *
 * The program in parts: bench_level3_opts.c (the options), bench_level3_problem.c (a job, its
 * data, the checks), bench_level3_ours.c (clhgemm's calls), bench_level3_refs.c (CLBlast,
 * OpenBLAS, cublasXt, cuBLAS), bench_level3_job.c (a job on device buffers, the timing loop),
 * bench_level3_host.c (a job of --host), bench_level3_report.c (the lines, CSV and summary); what
 * they share is bench_level3_int.h. This file: the device, its context and
 * queue, the handle of --host, the banner, the loop over precisions, sizes and routines, the exit
 * status.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_level3_int.h"

#ifdef CLHGEMM_HAVE_CLBLAST
#include <clblast_c.h>
#endif
#ifdef CLHGEMM_HAVE_CUBLASXT
#include "cuda/cublasxt_ref.h"
#endif
#ifdef CLHGEMM_HAVE_CUBLAS
#include "cuda/cublas_ref.h"
#endif

static int pick_device(const opts_t *o, clhgemm_device_info_t *out)
{
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(o->device_spec, NULL, 0, &count);
    if (st != CLHGEMM_SUCCESS || count == 0) {
        fprintf(stderr, "error: no OpenCL device: %s\n", clhgemm_status_message(st));
        return -1;
    }
    clhgemm_device_info_t *list = calloc(count, sizeof *list);
    size_t got = 0;
    if (!list || clhgemm_devices_get(o->device_spec, list, count, &got) != CLHGEMM_SUCCESS || !got) {
        free(list);
        return -1;
    }
    size_t pick = 0;
    if (!o->device_spec)
        for (size_t i = 0; i < got && i < count; i++)
            if (list[i].kind == CLHGEMM_DEVICE_GPU) {
                pick = i;
                break;
            }
    *out = list[pick];
    free(list);
    return 0;
}

/* The run's context and queue on the picked device, the columns built and asked for, and with
 * --host the handle. 0, or 1 (the exit status). */
static int open_run(ctx_t *c)
{
    const opts_t *o = &c->o;
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)c->info.platform, 0};
    c->context = clCreateContext(props, 1, &c->info.device, NULL, NULL, &err);
    if (!c->context) return 1;
    c->queue = clCreateCommandQueue(c->context, c->info.device, 0, &err);
    if (!c->queue) return 1;
#ifdef CLHGEMM_HAVE_CLBLAST
    c->have_clblast = o->clblast && !o->host;
#endif
#ifdef CLHGEMM_HAVE_CUBLASXT
    c->xt_col = o->host && o->xt && o->routine[R_TRSM];
#endif
#ifdef CLHGEMM_HAVE_CUBLAS
    c->have_cublas = o->cublas && !o->host;
#endif
    c->cublas_col = !o->host && o->routine[R_TRSM];
    if (o->host) {
        clhgemm_options_t ho;
        clhgemm_options_init(&ho);
        ho.devices = o->devices;
        clhgemm_status_t st = clhgemm_create(&c->handle, &ho);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "error: clhgemm_create: %s\n", clhgemm_status_message(st));
            return 1;
        }
    }
    return 0;
}

/* The banner's cuBLAS line (device mode with TRSM): where cuBLAS's TRSM and GEMM run, or why
 * not. */
static void cublas_banner(const ctx_t *c)
{
#ifdef CLHGEMM_HAVE_CUBLAS
    if (!c->have_cublas) printf("cuBLAS : off (--no-cublas)\n");
    else if (cublas_ref_available())
        printf("cuBLAS : TRSM and GEMM of TRSM rows on CUDA device 0, %s: own device arrays from "
               "the same host data, B restored before every call outside the timing, CUDA-event "
               "time of each call, reps as one block after ours\n", cublas_ref_description());
    else printf("cuBLAS : n/a (%s)\n", cublas_ref_last_error());
#else
    printf("cuBLAS : %s\n", c->o.cublas ? "n/a (built without CUDA)" : "off (--no-cublas)");
#endif
}

/* What the run compares and how: device, columns, checks, SYR2K mode, reps. */
static void banner(const ctx_t *c, const char *env_mode)
{
    const opts_t *o = &c->o;
    printf("clhgemm-bench-level3: clhgemm %s, %s\n", clhgemm_version(), c->date);
    printf("device : [%d] %s | %s | %s | driver %s\n", c->info.index, c->info.name, c->info.vendor,
           c->info.platform_name, c->info.driver_version);
    if (o->host)
        printf("host   : host-memory routines and GEMM on a handle (devices: %s); the device "
               "above only names the CSV rows\n", o->devices ? o->devices : "library default");
    printf("CLBlast: %s\n", c->have_clblast ? "yes (same buffers, same queue)"
                            : o->host ? "n/a (host memory)" : o->clblast ? "n/a (not built)" : "off");
    if (o->host) {
#ifdef CLHGEMM_HAVE_CUBLASXT
        if (!c->xt_col) printf("cuXt   : off\n");
        else if (cublasxt_device_count() > 0)
            printf("cuXt   : TRSM on %d CUDA device(s) of %s, same pageable arrays, reps as one "
                   "block after ours\n", o->xt_devices, cublasxt_description());
        else printf("cuXt   : n/a (%s)\n", cublasxt_last_error());
#else
        printf("cuXt   : n/a (built without CUDA)\n");
#endif
    }
    if (c->cublas_col) cublas_banner(c);
#ifdef CLHGEMM_HAVE_OPENBLAS
    printf("check  : cheap test (long double) for all; TRSM also against OpenBLAS cblas_?trsm\n");
#else
    printf("check  : cheap test (long double) for all (built without OpenBLAS: no TRSM reference)\n");
#endif
    printf("SYR2K  : %s\n", !o->syr2k ? (env_mode ? env_mode : "library default")
                            : !strcmp(o->syr2k, "both") ? "fused ('ours') and two-pass ('alt')"
                                                        : o->syr2k);
    printf("run    : %s-major, alpha 1, beta 0.5 (TRMM, TRSM: B restored before every rep; TRSM's A "
           "diagonally dominant), warm-up %d, reps %d interleaved, host clock enqueue->wait\n\n",
           o->row ? "row" : "column", o->warmup, o->reps);
}

int main(int argc, char **argv)
{
    static ctx_t c;
    if (parse_args(argc, argv, &c.o)) return 2;
    const opts_t *o = &c.o;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pick_device(o, &c.info)) return 1;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(c.date, sizeof c.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (open_run(&c)) return 1;
    const char *env_mode = getenv("CLHGEMM_SYR2K");
    banner(&c, env_mode);
    if (o->csv && csv_open(&c)) return 1;
    const int wanted[4] = {o->do_s, o->do_d, o->do_c, o->do_z}; /* s, d, c, z */
    for (int pi = 0; pi < 4; pi++) {
        const int d = pi & 1, cx = pi >> 1;
        if (!wanted[pi]) continue;
        if (d && !c.info.has_fp64 && !o->host) {
            printf("%s: skipped (no fp64)\n", cx ? "double complex" : "double");
            continue;
        }
        for (int s = 0; s < o->nsizes; s++)
            for (int r = 0; r < NR; r++) /* HEMM, HERK, HER2K: complex only */
                if (o->routine[r] && (cx || !is_herm(r)))
                    (o->host ? bench_job_host : bench_job)(&c, r, d, cx, o->sizes[s]);
    }
    if (env_mode) setenv("CLHGEMM_SYR2K", env_mode, 1);
    summary(&c);
    if (c.failures) printf("FAILED: %d problem(s): see the failed / FAILED lines above\n", c.failures);
    if (c.csv) fclose(c.csv);
    clhgemm_destroy(c.handle);
    clhgemm_release_resources();
#ifdef CLHGEMM_HAVE_CLBLAST
    if (c.have_clblast) CLBlastClearCache();
#endif
    clReleaseCommandQueue(c.queue);
    clReleaseContext(c.context);
    return c.failures ? 1 : 0;
}
