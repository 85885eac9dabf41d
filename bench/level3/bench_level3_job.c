/*
 * bench_level3_job.c -- one job of clhgemm-bench-level3 on device buffers: the row and job of a
 * routine, size and precision, the device buffers from the host data, the first call of each
 * library from the same data (kernel builds, the checks), then the warm-ups and the timed reps
 * interleaved over the libraries, each rep restoring what the routine overwrites; for TRSM then
 * cuBLAS's TRSM and GEMM of the same size (bench_level3_refs.c) as one block, after ours. The
 * row, the timing loop and a library's drop-out are shared with --host (bench_level3_host.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_level3_int.h"
#include "common/bench_util.h"

/* ---- what --host shares ---------------------------------------------------------------------- */

/* The next row of results (nothing ran, no check yet) and the job of routine r. */
row_t *row_begin(ctx_t *c, job_t *j, int r, int dbl, int cplx, int size)
{
    row_t *row = &c->rows[c->nrows++];
    memset(row, 0, sizeof *row);
    row->r = r;
    row->dbl = dbl;
    row->cplx = cplx;
    row->size = size;
    for (int l = 0; l < NL; l++) row->x[l].err = row->x[l].err_ref = row->x[l].err_blas = NAN;
    job_init(j, &c->o, r, dbl, cplx, size);
    return row;
}

/* Library l failed (why): it drops out of the row; a failure of the run unless it is CLBlast. */
void lib_failed(ctx_t *c, row_t *row, int *active, int l, const char *why)
{
    snprintf(row->x[l].note, sizeof row->x[l].note, "%s", why);
    active[l] = 0;
    c->failures += l != L_CLBLAST;
}

static double stats_median(double *v, int n, double *mn, double *mx)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    *mn = v[0];
    *mx = v[n - 1];
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The warm-ups, then the timed reps with the active libraries interleaved; the median, min, max
 * and GFLOP/s (the routine's own flops, 2mnk for the GEMM) of each library that kept running. */
void time_libs(ctx_t *c, row_t *row, const job_t *j, int *active, rep_fn rep, void *arg)
{
    const opts_t *o = &c->o;
    char why[256];
    double *t[NL];
    for (int l = 0; l < NL; l++) t[l] = calloc((size_t)o->reps, sizeof(double));
    for (int w = 0; w < o->warmup; w++)
        for (int l = 0; l < NL; l++) {
            double ms;
            if (active[l] && rep(c, l, j, arg, &ms, why, sizeof why))
                lib_failed(c, row, active, l, why);
        }
    for (int i = 0; i < o->reps; i++)
        for (int l = 0; l < NL; l++)
            if (active[l] && t[l] && rep(c, l, j, arg, &t[l][i], why, sizeof why))
                lib_failed(c, row, active, l, why);
    for (int l = 0; l < NL; l++) {
        if (active[l] && t[l]) {
            res_t *x = &row->x[l];
            x->ran = 1;
            x->med = stats_median(t[l], o->reps, &x->min, &x->max);
            x->gflops = (l == L_GEMM ? gemm_flops(j) : flops_routine(j)) / (x->med * 1e6);
        }
        free(t[l]);
    }
}

/* ---- device buffers ------------------------------------------------------------------------ */

/* Restores what a call overwrites (TRMM's and TRSM's B) and waits, so that the next rep starts
 * alike. */
static int restore(const job_t *j)
{
    if (!is_tri(j->r)) return 0;
    const size_t es = job_es(j);
    if (clEnqueueCopyBuffer(j->q, j->B0, j->B, 0, 0, j->nb * es, 0, NULL, NULL) != CL_SUCCESS)
        return -1;
    return clFinish(j->q) == CL_SUCCESS ? 0 : -1;
}

/* One rep on the device (a rep_fn; arg unused): restore, then enqueue -> clWaitForEvents on the
 * host clock. */
static int run_once(ctx_t *c, int lib, const job_t *j, void *arg, double *ms, char *why,
                    size_t wl)
{
    (void)arg;
    cl_event ev = NULL;
    if (restore(j)) {
        snprintf(why, wl, "restoring B failed");
        return -1;
    }
    double t0 = now_ms();
    if (lib == L_CLBLAST ? clblast_enqueue(j, &ev, why, wl)
                         : ours_enqueue(lib, j, c->o.syr2k, &ev, why, wl)) {
        clFinish(j->q);
        return -1;
    }
    if (!ev) {
        snprintf(why, wl, "%s returned no event", lname[lib]);
        clFinish(j->q);
        return -1;
    }
    cl_int err = clWaitForEvents(1, &ev), exec = CL_COMPLETE;
    *ms = now_ms() - t0;
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    clReleaseEvent(ev);
    if (err != CL_SUCCESS || exec < 0) {
        snprintf(why, wl, "%s: wait failed (%d, %d)", lname[lib], (int)err, (int)exec);
        return -1;
    }
    return 0;
}

/* The job's buffers from the host data: A; B, B0 and G from B; C from C0. */
static cl_int create_buffers(const ctx_t *c, job_t *j, void *A, void *B, void *C0)
{
    const size_t es = job_es(j);
    const cl_mem_flags f = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    cl_int err = CL_SUCCESS;
    j->A = clCreateBuffer(c->context, f, j->na * es, A, &err);
    if (err == CL_SUCCESS) j->B = clCreateBuffer(c->context, f, j->nb * es, B, &err);
    if (err == CL_SUCCESS) j->B0 = clCreateBuffer(c->context, f, j->nb * es, B, &err);
    if (err == CL_SUCCESS) j->G = clCreateBuffer(c->context, f, j->nb * es, B, &err);
    if (err == CL_SUCCESS) j->C = clCreateBuffer(c->context, f, j->nc * es, C0, &err);
    return err;
}

/* The first call of each active library from the same data (kernel builds, not timed): its
 * result read into out[l] and given the cheap check; a library that fails drops out. */
static void first_calls(ctx_t *c, row_t *row, const job_t *j, int *active, const void *A,
                        const void *B, const void *C0, void **out)
{
    const size_t es = job_es(j);
    char why[256];
    for (int l = 0; l < NL; l++) {
        if (!active[l]) continue;
        double ms;
        cl_int err = clEnqueueWriteBuffer(c->queue, j->C, CL_TRUE, 0, j->nc * es, C0, 0, NULL,
                                          NULL);
        if (err != CL_SUCCESS || run_once(c, l, j, NULL, &ms, why, sizeof why)) {
            if (err != CL_SUCCESS)
                snprintf(why, sizeof why, "write C: %s", clhgemm_status_string(err));
            printf("    %s failed: %s\n", lname[l], why);
            lib_failed(c, row, active, l, why);
            continue;
        }
        cl_mem res = l == L_GEMM ? (is_tri(j->r) ? j->G : j->C) : (is_tri(j->r) ? j->B : j->C);
        err = clEnqueueReadBuffer(c->queue, res, CL_TRUE, 0, j->nc * es, out[l], 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            active[l] = 0;
            c->failures++;
            continue;
        }
        printf("    %-13s first call %.1f ms (includes kernel builds)\n", lname[l], ms);
        if (c->o.check && l != L_GEMM) row->x[l].err = cheap_check(j, A, B, C0, out[l]);
    }
}

/* Ours against CLBlast element-wise; for TRSM every library's solution (cuBLAS's too) against
 * OpenBLAS's. active: the libraries whose result is in out. */
static void reference_checks(row_t *row, const job_t *j, const int *active, const void *A,
                             const void *B, void **out)
{
    if (active[L_OURS] && active[L_CLBLAST])
        row->x[L_OURS].err_ref = compare(j, out[L_OURS], out[L_CLBLAST]);
    if (active[L_ALT] && active[L_CLBLAST])
        row->x[L_ALT].err_ref = compare(j, out[L_ALT], out[L_CLBLAST]);
    void *xref = j->r == R_TRSM ? malloc(j->nb * job_es(j)) : NULL;
    if (xref && !blas_trsm_ref(j, A, B, xref))
        for (int l = 0; l < NL; l++)
            if (active[l] && l != L_GEMM && l != L_CUBLAS_GEMM)
                row->x[l].err_blas = compare(j, out[l], xref);
    free(xref);
}

/* The job's device buffers released (after the queue finished), so that cuBLAS has the device's
 * memory; those already released are skipped. */
static void release_buffers(ctx_t *c, job_t *j)
{
    cl_mem *all[] = {&j->A, &j->B, &j->B0, &j->G, &j->C};
    clFinish(c->queue);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i]) {
            clReleaseMemObject(*all[i]);
            *all[i] = NULL;
        }
}

/* One row: routine r of the given size and precision on device buffers, every library. */
void bench_job(ctx_t *c, int r, int dbl, int cplx, int size)
{
    const opts_t *o = &c->o;
    job_t j;
    row_t *row = row_begin(c, &j, r, dbl, cplx, size);
    j.q = c->queue;
    const size_t es = job_es(&j);
    /* complex SYR2K is always fused (CLHGEMM_SYR2K applies to the real ones only) */
    const int alt = r == R_SYR2K && !cplx && o->syr2k && !strcmp(o->syr2k, "both");
    const int use[NL] = {[L_OURS] = 1, [L_ALT] = alt, [L_CLBLAST] = c->have_clblast,
                         [L_GEMM] = 1};
    const double need = (double)es * (double)(j.na + 3 * j.nb + j.nc);
    void *A = NULL, *B = NULL, *C0 = NULL, *out[NL] = {NULL};
    int active[NL], got[NL], shown[NL];
    char desc[96];
    describe_job(&j, desc, sizeof desc);
    printf("[%c%s %d] %s %.1f MiB\n", prec_char(dbl, cplx), rname[r], size, desc, need / 1048576.0);
    if (need > 0.6 * (double)c->info.global_mem_bytes ||
        (double)es * j.na > (double)c->info.max_alloc_bytes) {
        for (int l = 0; l < NL; l++)
            snprintf(row->x[l].note, sizeof row->x[l].note, "skipped: too large");
        printf("    skipped: too large for the device\n");
        return;
    }
    A = malloc(j.na * es);
    B = malloc(j.nb * es);
    C0 = malloc(j.nc * es);
    int oom = !A || !B || !C0;
    for (int l = 0; l < NL; l++) oom |= (out[l] = malloc(j.nc * es)) == NULL;
    if (oom) {
        printf("    skipped: out of host memory\n");
        goto done;
    }
    fill_job(&j, A, B, C0);
    const cl_int err = create_buffers(c, &j, A, B, C0);
    if (err != CL_SUCCESS) {
        printf("    device buffers failed: %s\n", clhgemm_status_string(err));
        c->failures++;
        goto done;
    }
    for (int l = 0; l < NL; l++) active[l] = use[l];
    if (!use[L_CLBLAST])
        snprintf(row->x[L_CLBLAST].note, sizeof row->x[L_CLBLAST].note, "%s",
                 o->clblast ? "not built with CLBlast" : "--no-clblast");
    first_calls(c, row, &j, active, A, B, C0, out);
    memcpy(got, active, sizeof got); /* the libraries with a result in out, for the checks */
    /* C as it was for the timed reps (TRMM's and TRSM's B is restored by each rep) */
    if (clEnqueueWriteBuffer(c->queue, j.C, CL_TRUE, 0, j.nc * es, C0, 0, NULL, NULL)) {
        c->failures++;
        goto done;
    }
    time_libs(c, row, &j, active, run_once, NULL);
    if (r == R_TRSM) { /* cuBLAS from the same host data, its solution in out[L_CUBLAS] */
        release_buffers(c, &j);
        dev_cublas(c, row, &j, A, B, C0, out[L_CUBLAS]);
        got[L_CUBLAS] = row->x[L_CUBLAS].ran;
    }
    if (o->check) reference_checks(row, &j, got, A, B, out);
    report_tolerance(c, row);
    for (int l = 0; l < NL; l++)
        shown[l] = l == L_CUBLAS || l == L_CUBLAS_GEMM ? r == R_TRSM
                                                       : use[l] || (l != L_ALT && l != L_XT);
    report_results(c, row, shown);
    csv_rows(c, row, &j);
done:
    release_buffers(c, &j);
    free(A);
    free(B);
    free(C0);
    for (int l = 0; l < NL; l++) free(out[l]);
}
