/*
 * bench_level3_host.c -- one job of clhgemm-bench-level3 --host: the host-memory routine and the
 * host-memory GEMM of the same size on the run's handle, over ordinary host arrays (TRMM's and
 * TRSM's B restored with memcpy before every rep, outside the timing), the first calls with what
 * the handle did (devices, tiles, bytes), then cublasXt's TRSM where that column runs. The row,
 * the timing loop and the output are those of the device jobs (bench_level3_job.c,
 * bench_level3_report.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_level3_int.h"
#include "common/bench_util.h"

/* TRMM's and TRSM's B restored (outside the timing), then one timed call (a rep_fn; arg the
 * hjob_t). */
static int host_rep(ctx_t *c, int lib, const job_t *j, void *arg, double *ms, char *why,
                    size_t wl)
{
    const hjob_t *x = arg;
    const size_t es = job_es(j);
    if (is_tri(j->r) && lib == L_OURS) memcpy(x->B, x->B0, j->nb * es);
    const double t0 = now_ms();
    const clhgemm_status_t st = host_once(c->handle, lib, j, x);
    *ms = now_ms() - t0;
    if (st != CLHGEMM_SUCCESS) {
        snprintf(why, wl, "%s: %s (%d)", lname[lib], clhgemm_status_string(st), (int)st);
        return -1;
    }
    return 0;
}

/* The first call of ours and of the GEMM from the same data (kernel builds, the handle's first
 * plans), with what the handle did; ours checked (cheap test, TRSM against xref where there is
 * one), its result left in out. A call that fails drops out. */
static void host_first_calls(ctx_t *c, row_t *row, const job_t *j, hjob_t *x, int *active,
                             const void *C0, void *out, const void *xref)
{
    const size_t es = job_es(j);
    char why[256];
    for (int l = 0; l < NL; l++) {
        if (!active[l]) continue;
        double ms;
        memcpy(x->C, C0, j->nc * es);
        if (host_rep(c, l, j, x, &ms, why, sizeof why)) {
            printf("    %s failed: %s\n", lname[l], why);
            lib_failed(c, row, active, l, why);
            continue;
        }
        clhgemm_call_info_t inf;
        clhgemm_last_call_info(c->handle, &inf);
        printf("    %-13s first call %.1f ms: %d device(s), %lld tile(s) of %dx%dx%d, %.1f MB to "
               "devices\n", l == L_GEMM ? "host-gemm" : "host", ms, inf.devices_used, inf.tiles,
               inf.tile_m, inf.tile_n, inf.tile_k, inf.bytes_to_device * 1e-6);
        if (c->o.check && l == L_OURS) {
            memcpy(out, is_tri(j->r) ? x->B : x->C, j->nc * es);
            row->x[l].err = cheap_check(j, x->A, x->B0, C0, out);
            if (xref) row->x[l].err_blas = compare(j, out, xref);
        }
    }
}

/* One row: routine r of the given size and precision in host memory, ours, our GEMM and (TRSM)
 * cublasXt. */
void bench_job_host(ctx_t *c, int r, int dbl, int cplx, int size)
{
    const opts_t *o = &c->o;
    job_t j;
    row_t *row = row_begin(c, &j, r, dbl, cplx, size);
    snprintf(row->x[L_CLBLAST].note, sizeof row->x[L_CLBLAST].note, "host memory: no CLBlast");
    const size_t es = job_es(&j);
    char desc[96];
    describe_job(&j, desc, sizeof desc);
    printf("[%c%s %d host] %s\n", prec_char(dbl, cplx), rname[r], size, desc);
    hjob_t x = {malloc(j.na * es), malloc(j.nb * es), malloc(j.nc * es), malloc(j.nb * es), NULL};
    void *B0 = malloc(j.nb * es), *C0 = malloc(j.nc * es), *out = malloc(j.nc * es), *xref = NULL;
    x.B0 = B0;
    const int xt = r == R_TRSM && c->xt_col && !cplx; /* cublasXt's column: real TRSM only */
    if (!xt) snprintf(row->x[L_XT].note, sizeof row->x[L_XT].note, "-");
    int active[NL] = {0}, shown[NL] = {0};
    active[L_OURS] = active[L_GEMM] = 1;
    shown[L_OURS] = shown[L_GEMM] = 1;
    shown[L_XT] = xt;
    if (!x.A || !x.B || !x.C || !x.G || !B0 || !C0 || !out) {
        printf("    skipped: out of host memory\n");
        snprintf(row->x[L_OURS].note, sizeof row->x[L_OURS].note, "skipped: out of host memory");
        goto done;
    }
    fill_job(&j, x.A, B0, C0);
    memcpy(x.B, B0, j.nb * es);
    if (o->check && r == R_TRSM && (xref = malloc(j.nb * es)) && blas_trsm_ref(&j, x.A, B0, xref)) {
        free(xref);
        xref = NULL;
    }
    memcpy(x.G, B0, j.nb * es);
    host_first_calls(c, row, &j, &x, active, C0, out, xref);
    memcpy(x.C, C0, j.nc * es);
    time_libs(c, row, &j, active, host_rep, &x);
    if (xt) {
        /* after ours (its reps run as one block); x.B is free again, C0 plays no part */
        host_xt(c, &j, &x, out, &row->x[L_XT]);
        if (xref && row->x[L_XT].ran && o->check)
            row->x[L_XT].err_blas = compare(&j, out, xref);
    }
    report_tolerance(c, row);
    report_results(c, row, shown);
    csv_rows(c, row, &j);
done:
    free(x.A);
    free(x.B);
    free(x.C);
    free(x.G);
    free(B0);
    free(C0);
    free(out);
    free(xref);
}
