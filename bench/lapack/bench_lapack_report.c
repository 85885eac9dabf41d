/*
 * bench_lapack_report.c -- what clhgemm-bench-lapack writes: a table per routine and precision
 * (a line per size as it finishes), the CSV lines, and the PNG (gnuplot, when installed, fed
 * through a pipe with the results inline: GFLOP/s against n, a panel per routine).
 *
 * The ratios pair like with like: ours on a device buffer over cuSOLVER device-resident, ours on
 * host memory over cuSOLVER with its copies from and to pageable memory, ours on host memory over
 * OpenBLAS. Backward errors are printed as ratios to OpenBLAS's ("x1.3") where OpenBLAS ran at
 * that size, else as the scaled value itself.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lapack_int.h"

double bl_gflops(const bl_row_t *row, int col)
{
    const bl_cell_t *k = &row->c[col];
    return k->ran && k->ms > 0 ? bl_flops(row->r, row->n) / (k->ms * 1e-3) * 1e-9 : NAN;
}

/* The three ratios of the table: ours-dev / cuS-res, ours-host / cuS-copy, ours-host / OB. */
static double ratio(const bl_row_t *row, int i)
{
    static const int num[3] = {C_DEV, C_HOST, C_HOST}, den[3] = {C_CUS_RES, C_CUS_CP, C_OB};
    return bl_gflops(row, num[i]) / bl_gflops(row, den[i]);
}

static const char *fmt(char *buf, size_t len, const char *f, double v)
{
    if (isnan(v)) snprintf(buf, len, "n/a");
    else snprintf(buf, len, f, v);
    return buf;
}

void bl_table_head(const bl_ctx_t *c, int r, int dbl)
{
    const bl_opts_t *o = &c->o;
    printf("\n== %c%s, %s-major%s: GFLOP/s (LAPACK's count: %s), median of %d after 1 warm-up; "
           "right of |: backward errors, over OpenBLAS's (xR) where it ran ==\n",
           dbl ? 'd' : 's', bl_rname[r], o->row ? "row" : "column",
           r == R_POTRF ? (o->upper ? ", upper" : ", lower") : "",
           r == R_POTRF ? "n^3/3" : r == R_GETRF ? "2n^3/3" : "4n^3/3", o->reps);
    printf("%6s %9s %9s %9s %9s %9s %9s %9s %9s | %9s %9s %9s %9s %9s\n", "n",
           bl_ctitle[0], bl_ctitle[1], bl_ctitle[2], bl_ctitle[3], bl_ctitle[4], "dev/cuSr",
           "host/cuSc", "host/OB", bl_ctitle[0], bl_ctitle[1], "OpenBLAS", bl_ctitle[3],
           bl_ctitle[4]);
}

/* A reason worth a line under the row: a failure, or a skip that depends on the size (the
 * columns that are off or n/a for the whole run say so in the banner). */
static int worth_a_line(const bl_cell_t *k)
{
    return k->bad || (!k->ran && strncmp(k->why, "off", 3) && strcmp(k->why, "n/a"));
}

static void csv_row(bl_ctx_t *c, const bl_row_t *row);

void bl_table_row(bl_ctx_t *c, const bl_row_t *row)
{
    char g[NC][16], q[3][16], e[NC][16];
    const bl_cell_t *ob = &row->c[C_OB];
    const int by_ob = ob->ran && ob->berr > 0 && !isnan(ob->berr);
    for (int k = 0; k < NC; k++) {
        const double gf = bl_gflops(row, k);
        fmt(g[k], sizeof g[k], gf < 10 ? "%.3g" : "%.1f", gf);
        const double b = row->c[k].ran ? row->c[k].berr : NAN;
        if (by_ob && k != C_OB) fmt(e[k], sizeof e[k], "x%.2f", b / ob->berr);
        else fmt(e[k], sizeof e[k], "%.2e", b);
    }
    for (int i = 0; i < 3; i++) fmt(q[i], sizeof q[i], "%.2f", ratio(row, i));
    printf("%6d %9s %9s %9s %9s %9s %9s %9s %9s | %9s %9s %9s %9s %9s\n", row->n, g[0], g[1],
           g[2], g[3], g[4], q[0], q[1], q[2], e[0], e[1], e[2], e[3], e[4]);
    for (int k = 0; k < NC; k++) {
        const bl_cell_t *cell = &row->c[k];
        if (!worth_a_line(cell)) continue;
        const int ours = k == C_HOST || k == C_DEV;
        printf("  %s n=%d %s: %s\n", cell->bad ? (ours ? "FAILED" : "WARN") : "note", row->n,
               bl_ctitle[k], cell->why);
        if (cell->bad && ours) c->failures++;
        else if (cell->bad) c->warnings++;
    }
    if (c->csv) csv_row(c, row);
}

/* ---- CSV ----------------------------------------------------------------------------------- */

int bl_csv_open(bl_ctx_t *c)
{
    c->csv = fopen(c->o.csv, "w");
    if (!c->csv) {
        fprintf(stderr, "cannot open %s: %s\n", c->o.csv, strerror(errno));
        return -1;
    }
    fprintf(c->csv, "routine,prec,layout,uplo,n,reps");
    for (int k = 0; k < NC; k++)
        fprintf(c->csv, ",%s_ms,%s_gflops,%s_berr,%s_info", bl_cname[k], bl_cname[k], bl_cname[k],
                bl_cname[k]);
    fprintf(c->csv, ",dev_over_cusolver_res,host_over_cusolver_copies,host_over_openblas,"
                    "device,date\n");
    return 0;
}

static void csv_num(FILE *f, const char *fm, double v)
{
    fputc(',', f);
    if (!isnan(v)) fprintf(f, fm, v);
}

static void csv_row(bl_ctx_t *c, const bl_row_t *row)
{
    FILE *f = c->csv;
    fprintf(f, "%s,%c,%s,%s,%d,%d", bl_rname[row->r], row->dbl ? 'd' : 's',
            c->o.row ? "row" : "col", row->r != R_POTRF ? "" : c->o.upper ? "U" : "L", row->n,
            c->o.reps);
    for (int k = 0; k < NC; k++) {
        const bl_cell_t *cell = &row->c[k];
        csv_num(f, "%.4f", cell->ran ? cell->ms : NAN);
        csv_num(f, "%.3f", bl_gflops(row, k));
        csv_num(f, "%.4e", cell->ran ? cell->berr : NAN);
        csv_num(f, "%.0f", cell->ran ? (double)cell->info : NAN);
    }
    for (int i = 0; i < 3; i++) csv_num(f, "%.4f", ratio(row, i));
    fprintf(f, ",\"%s\",%s\n", c->info.name, c->date);
    fflush(f);
}

/* ---- PNG ----------------------------------------------------------------------------------- */

/* The points of column k in precision dbl of routine r: their count, and with g their
 * "n GFLOP/s" lines written to g. */
static int points(FILE *g, const bl_ctx_t *c, int r, int dbl, int k)
{
    int pts = 0;
    for (int i = 0; i < c->nrows; i++) {
        const bl_row_t *row = &c->rows[i];
        const double v = bl_gflops(row, k);
        if (row->r != r || row->dbl != dbl || isnan(v)) continue;
        pts++;
        if (g) fprintf(g, "%d %.6g\n", row->n, v);
    }
    return pts;
}

static void png_panel(FILE *g, const bl_ctx_t *c, int r)
{
    static const char *color[NC] = {"#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd"};
    fprintf(g, "set title '%s'\nplot ", bl_rname[r]);
    int first = 1;
    for (int dbl = 0; dbl < 2; dbl++)
        for (int k = 0; k < NC; k++) {
            if (!points(NULL, c, r, dbl, k)) continue;
            fprintf(g,
                    "%s'-' using 1:2 with linespoints lc rgb '%s' lw 2 dt %d pt %d title '%s %s'",
                    first ? "" : ", ", color[k], dbl ? 2 : 1, dbl ? 6 : 7, bl_ctitle[k],
                    dbl ? "d" : "s");
            first = 0;
        }
    if (first) fprintf(g, "NaN notitle");
    fprintf(g, "\n");
    for (int dbl = 0; dbl < 2; dbl++)
        for (int k = 0; k < NC; k++)
            if (points(g, c, r, dbl, k)) fprintf(g, "e\n");
}

/* s without quotes and backslashes (gnuplot's single-quoted strings), cut to fit len. */
static void strip(char *dst, size_t len, const char *s)
{
    size_t j = 0;
    for (; *s && j + 1 < len; s++)
        if (!strchr("'\"\\", *s) && (unsigned char)*s >= 32) dst[j++] = *s;
    dst[j] = 0;
}

void bl_write_png(const bl_ctx_t *c)
{
    int panels = 0;
    for (int r = 0; r < NR; r++) panels += c->o.routine[r];
    FILE *g = system("command -v gnuplot >/dev/null 2>&1") == 0 ? popen("gnuplot", "w") : NULL;
    if (!g) {
        printf("gnuplot not found: no PNG\n");
        return;
    }
    char file[1024], dev[300];
    strip(file, sizeof file, c->o.png);
    strip(dev, sizeof dev, c->info.name);
    fprintf(g, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "  set terminal pngcairo size %d,620 noenhanced\n"
               "} else {\n"
               "  set terminal png size %d,620 noenhanced\n"
               "}\n"
               "set output '%s'\n"
               "set multiplot layout 1,%d title 'clhgemm-bench-lapack, %s-major, %s, %s "
               "(solid: single, dashed: double)'\n"
               "set logscale x 2\nset grid\nset key top left\nset xlabel 'n (square)'\n"
               "set ylabel 'GFLOP/s'\n",
            200 + 560 * panels, 200 + 560 * panels, file, panels, c->o.row ? "row" : "column",
            dev, c->date);
    for (int r = 0; r < NR; r++)
        if (c->o.routine[r]) png_panel(g, c, r);
    fprintf(g, "unset multiplot\n");
    const int rc = pclose(g);
    if (rc != 0) printf("gnuplot failed (status %d): no PNG\n", rc);
    else printf("PNG: %s\n", c->o.png);
}
