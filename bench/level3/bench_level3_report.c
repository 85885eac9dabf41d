/*
 * bench_level3_report.c -- clhgemm-bench-level3's output: a job's heading, its tolerance
 * verdicts (FAILED for ours, WARN for a reference), its result lines, its CSV rows (the file
 * opened with its header), and the summary table at the end. The device jobs and --host print
 * through the same functions, so their lines and CSV columns stay alike.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_level3_int.h"

/* ---- a job's lines --------------------------------------------------------------------------- */

/* The options a job's heading names: side, uplo, trans, diag where the routine has them. */
void describe_job(const job_t *j, char *buf, size_t n)
{
    const int r = j->r;
    snprintf(buf, n, "%s%s%s%s", has_side(r) ? (j->right ? "side R " : "side L ") : "",
             j->lower ? "lower" : "upper",
             (r != R_SYMM) ? (j->trans ? " trans T" : " trans N") : "",
             is_tri(r) ? (j->unit ? " unit" : " non-unit") : "");
}

/* Library l's name in a job's lines: --host names ours "host" and the GEMM "host-gemm". */
static const char *shown_name(const ctx_t *c, int l)
{
    if (!c->o.host) return lname[l];
    return l == L_GEMM ? "host-gemm" : l == L_XT ? "cublasxt" : "host";
}

/* A line per library with a check beyond tolerance: FAILED (a failure of the run) for ours, WARN
 * for a reference (CLBlast, cublasXt, cuBLAS). */
void report_tolerance(ctx_t *c, const row_t *row)
{
    for (int l = 0; l < NL; l++) {
        const res_t *x = &row->x[l];
        const int ref = l == L_CLBLAST || l == L_XT || l == L_CUBLAS || l == L_CUBLAS_GEMM;
        if ((!isnan(x->err) && !(x->err <= 1.0)) || (!isnan(x->err_ref) && !(x->err_ref <= 1.0)) ||
            (!isnan(x->err_blas) && !(x->err_blas <= 1.0))) {
            if (c->o.host)
                printf("    %s: %s check beyond tolerance (cheap %.3g, vs OpenBLAS %.3g; 1.0 = "
                       "k*eps)\n", ref ? "WARN" : "FAILED", shown_name(c, l), x->err, x->err_blas);
            else
                printf("    %s: %s check beyond tolerance (cheap %.3g, vs CLBlast %.3g, vs "
                       "OpenBLAS %.3g; 1.0 = k*eps)\n", ref ? "WARN" : "FAILED", lname[l], x->err,
                       x->err_ref, x->err_blas);
            if (!ref) c->failures++;
        }
    }
}

/* A line per shown library: GFLOP/s, median, min, max, or n/a with why; the check measures. */
void report_results(const ctx_t *c, const row_t *row, const int *shown)
{
    for (int l = 0; l < NL; l++) {
        const res_t *x = &row->x[l];
        const char *name = shown_name(c, l);
        if (!shown[l]) continue;
        if (x->ran)
            printf("    %-13s %10.1f GFLOP/s  median %9.3f ms  min %9.3f  max %9.3f%s", name,
                   x->gflops, x->med, x->min, x->max,
                   l == L_GEMM || l == L_CUBLAS_GEMM ? "  (2mnk of the GEMM)" : "");
        else
            printf("    %-13s n/a (%s)", name, x->note[0] ? x->note : "not run");
        if (l == L_XT && x->ran) printf("  (%s)", x->note);
        if (!isnan(x->err)) printf("  check %.3g", x->err);
        if (!isnan(x->err_ref)) printf("  vs CLBlast %.3g", x->err_ref);
        if (!isnan(x->err_blas)) printf("  vs OpenBLAS %.3g", x->err_blas);
        printf("\n");
    }
}

/* ---- CSV ------------------------------------------------------------------------------------- */

static const char csv_header[] =
    "date,device,driver,precision,routine,m,n,k,side,uplo,trans,diag,layout,library,"
    "syr2k_mode,median_ms,gflops,min_ms,max_ms,gemm_gflops,reps,check_err,vs_clblast_err,"
    "vs_openblas_err\n";

/* Opens --csv for appending, the header written when the file is new. 0, or -1 (said why). */
int csv_open(ctx_t *c)
{
    const opts_t *o = &c->o;
    c->csv = fopen(o->csv, "a+");
    if (!c->csv) {
        fprintf(stderr, "error: cannot open %s: %s\n", o->csv, strerror(errno));
        return -1;
    }
    /* an existing file written by an older benchmark (fewer columns) is appended to as is */
    char first[sizeof csv_header + 1] = "";
    rewind(c->csv);
    if (!fgets(first, sizeof first, c->csv)) first[0] = '\0';
    fseek(c->csv, 0, SEEK_END);
    if (ftell(c->csv) == 0) fputs(csv_header, c->csv);
    else if (strcmp(first, csv_header))
        printf("note   : %s has another header (an older benchmark's?); rows appended with "
               "the columns of: %s", o->csv, csv_header);
    return 0;
}

/* The library and SYR2K-mode columns of library l's row. */
static void csv_names(const opts_t *o, int r, int l, const char **lib, const char **mode)
{
    if (o->host) {
        *lib = l == L_GEMM ? "clhgemm-host-gemm" : l == L_XT ? "cublasxt" : "clhgemm-host";
        *mode = r == R_SYR2K && l == L_OURS ? "fused" : "";
        return;
    }
    *lib = lname[l];
    *mode = "";
    if (r == R_SYR2K && l != L_GEMM && l != L_CLBLAST)
        *mode = o->syr2k ? (!strcmp(o->syr2k, "both") ? (l == L_ALT ? "two" : "fused") : o->syr2k)
                         : "lib";
}

/* A CSV row per library that ran (where --csv is open). */
void csv_rows(ctx_t *c, const row_t *row, const job_t *j)
{
    if (!c->csv) return;
    for (int l = 0; l < NL; l++) {
        const res_t *x = &row->x[l];
        const char *lib, *mode;
        if (!x->ran) continue;
        csv_names(&c->o, j->r, l, &lib, &mode);
        fprintf(c->csv, "%s,\"%s\",\"%s\",%c,%s,%d,%d,%d,%c,%c,%c,%c,%s,%s,%s,%.6f,%.3f,%.6f,%.6f,",
                c->date, c->info.name, c->info.driver_version, prec_char(j->dbl, j->cplx),
                rname[j->r], j->m, j->n, j->k, j->right ? 'R' : 'L', j->lower ? 'L' : 'U',
                !j->trans ? 'N' : j->r == R_HERK || j->r == R_HER2K ? 'C' : 'T',
                j->unit ? 'U' : 'N', j->row ? "row" : "col", lib, mode, x->med, x->gflops, x->min,
                x->max);
        if (row->x[L_GEMM].ran) fprintf(c->csv, "%.3f", row->x[L_GEMM].gflops);
        fprintf(c->csv, ",%d,", c->o.reps);
        if (!isnan(x->err)) fprintf(c->csv, "%.4g", x->err);
        fputc(',', c->csv);
        if (!isnan(x->err_ref)) fprintf(c->csv, "%.4g", x->err_ref);
        fputc(',', c->csv);
        if (!isnan(x->err_blas)) fprintf(c->csv, "%.4g", x->err_blas);
        fputc('\n', c->csv);
    }
    fflush(c->csv);
}

/* ---- the summary ----------------------------------------------------------------------------- */

/* The summary's check column of a row: the worst measure of ours (and ours-alt) only; the
 * references are warned about in the job's lines. */
static void check_cell(const res_t *x, char *chk, size_t n)
{
    double e = NAN;
    for (int l = 0; l < NL; l++) {
        if (l != L_OURS && l != L_ALT) continue;
        if (!isnan(x[l].err)) e = isnan(e) ? x[l].err : fmax(e, x[l].err);
        if (!isnan(x[l].err_ref)) e = isnan(e) ? x[l].err_ref : fmax(e, x[l].err_ref);
        if (!isnan(x[l].err_blas)) e = isnan(e) ? x[l].err_blas : fmax(e, x[l].err_blas);
    }
    if (!x[L_OURS].ran)
        snprintf(chk, n, "%s", strncmp(x[L_OURS].note, "skipped", 7) ? "FAILED" : "skipped");
    else if (isnan(e)) snprintf(chk, n, "-");
    else snprintf(chk, n, "%s %.2g", e <= 1.0 ? "ok" : "FAILED", e);
}

/* The cuBLAS cells of a row (empty but for TRSM): cuBLAS's TRSM and GEMM GFLOP/s, TRSM over
 * GEMM, ours over cuBLAS's TRSM; n/a or - where one did not run. */
static void cublas_cells(const row_t *r, char cell[4][16])
{
    const res_t *x = r->x, *t = &x[L_CUBLAS], *g = &x[L_CUBLAS_GEMM];
    for (int i = 0; i < 4; i++) cell[i][0] = '\0';
    if (r->r != R_TRSM) return;
    snprintf(cell[0], 16, "n/a");
    snprintf(cell[1], 16, "n/a");
    snprintf(cell[2], 16, "-");
    snprintf(cell[3], 16, "-");
    if (t->ran) snprintf(cell[0], 16, "%.1f", t->gflops);
    if (g->ran) snprintf(cell[1], 16, "%.1f", g->gflops);
    if (t->ran && g->ran) snprintf(cell[2], 16, "%.0f%%", 100.0 * t->gflops / g->gflops);
    if (t->ran && x[L_OURS].ran) snprintf(cell[3], 16, "%.2f", x[L_OURS].gflops / t->gflops);
}

/* The table of every row: GFLOP/s of ours, CLBlast, the GEMM (and SYR2K two-pass, cublasXt,
 * cuBLAS's TRSM and GEMM) with the ratios, and the check column. */
void summary(const ctx_t *c)
{
    const int alt = c->o.syr2k && !strcmp(c->o.syr2k, "both");
    printf("\n== summary: %s | %s | GFLOP/s (own flop count) from the median of %d reps, %s-major ==\n",
           c->info.name, c->info.driver_version, c->o.reps, c->o.row ? "row" : "column");
    printf("%-7s %-2s %6s %10s %10s %7s %10s %8s", "routine", "p", "n", "ours", "CLBlast",
           "ours/CB", "GEMM", "ours/GEMM");
    if (alt) printf(" %10s %8s", "syr2k-two", "two/GEMM");
    if (c->xt_col) printf(" %10s %7s", "cublasXt", "ours/Xt");
    if (c->cublas_col) printf(" %10s %10s %8s %8s", "cuBLAS", "cuB-GEMM", "cuB/GEMM", "ours/cuB");
    printf("  check\n");
    for (int i = 0; i < c->nrows; i++) {
        const row_t *r = &c->rows[i];
        const res_t *x = r->x;
        char a[24] = "n/a", b[24] = "n/a", q1[16] = "-", g[24] = "n/a", q2[16] = "-", t[24] = "", q3[16] = "";
        if (x[L_OURS].ran) snprintf(a, sizeof a, "%.1f", x[L_OURS].gflops);
        if (x[L_CLBLAST].ran) snprintf(b, sizeof b, "%.1f", x[L_CLBLAST].gflops);
        if (x[L_OURS].ran && x[L_CLBLAST].ran) snprintf(q1, sizeof q1, "%.2f", x[L_OURS].gflops / x[L_CLBLAST].gflops);
        if (x[L_GEMM].ran) snprintf(g, sizeof g, "%.1f", x[L_GEMM].gflops);
        if (x[L_OURS].ran && x[L_GEMM].ran) snprintf(q2, sizeof q2, "%.0f%%", 100.0 * x[L_OURS].gflops / x[L_GEMM].gflops);
        if (alt && r->r == R_SYR2K && x[L_ALT].ran) {
            snprintf(t, sizeof t, "%.1f", x[L_ALT].gflops);
            if (x[L_GEMM].ran) snprintf(q3, sizeof q3, "%.0f%%", 100.0 * x[L_ALT].gflops / x[L_GEMM].gflops);
        }
        char xt[24] = "", q4[16] = "";
        if (c->xt_col && r->r == R_TRSM) {
            snprintf(xt, sizeof xt, "n/a");
            snprintf(q4, sizeof q4, "-");
            if (x[L_XT].ran) snprintf(xt, sizeof xt, "%.1f", x[L_XT].gflops);
            if (x[L_OURS].ran && x[L_XT].ran)
                snprintf(q4, sizeof q4, "%.2f", x[L_OURS].gflops / x[L_XT].gflops);
        }
        char cub[4][16], chk[32];
        cublas_cells(r, cub);
        check_cell(x, chk, sizeof chk);
        printf("%-7s %-2c %6d %10s %10s %7s %10s %8s", rname[r->r], prec_char(r->dbl, r->cplx),
               r->size, a, b, q1, g, q2);
        if (alt) printf(" %10s %8s", t, q3);
        if (c->xt_col) printf(" %10s %7s", xt, q4);
        if (c->cublas_col) printf(" %10s %10s %8s %8s", cub[0], cub[1], cub[2], cub[3]);
        printf("  %s\n", chk);
    }
    int cublas_ran = 0;
    for (int i = 0; i < c->nrows; i++) cublas_ran |= c->rows[i].x[L_CUBLAS].ran;
    if (cublas_ran)
        printf("cuBLAS: cublas?trsm and cublas?gemm of the same size, CUDA-event time of each "
               "call; cuB/GEMM = cuBLAS TRSM / cuBLAS GEMM, ours/cuB = ours / cuBLAS TRSM\n");
}
