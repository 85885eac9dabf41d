/*
 * bench_lapack_report.c -- what clhgemm-bench-lapack writes: a table per routine and precision
 * (a line per size as it finishes), the CSV lines, and the PNG (gnuplot, when installed, fed
 * through a pipe with the results inline: GFLOP/s against n, a panel per routine).
 *
 * The ratios pair like with like: ours on a device buffer over cuSOLVER device-resident, ours on
 * host memory over cuSOLVER with its copies from and to pageable memory, ours on host memory over
 * OpenBLAS; and the host column's variants over it: under --memory-limit (lim/host) and all
 * devices over the first alone (host/1dev). Beside the host column the devices its calls used and
 * whether the matrix exceeds their room (ooc), again beside the limit column; the variants'
 * columns appear only where their option is given. Backward errors are printed as ratios to
 * OpenBLAS's ("x1.3") where OpenBLAS ran at that size, else as the scaled value itself.
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

/* The ratios of the table: ours-dev / cuS-res, ours-host / cuS-copy, ours-host / OB, then
 * ours-lim / ours-host and ours-host / ours-1dev. */
enum { NQ = 5 };
static const char *const qtitle[NQ] = {"dev/cuSr", "host/cuSc", "host/OB", "lim/host",
                                       "host/1dev"};
static double ratio(const bl_row_t *row, int i)
{
    static const int num[NQ] = {C_DEV, C_HOST, C_HOST, C_LIM, C_HOST},
                     den[NQ] = {C_CUS_RES, C_CUS_CP, C_OB, C_HOST, C_ONE};
    return bl_gflops(row, num[i]) / bl_gflops(row, den[i]);
}

static const char *fmt(char *buf, size_t len, const char *f, double v)
{
    if (isnan(v)) snprintf(buf, len, "n/a");
    else snprintf(buf, len, f, v);
    return buf;
}

static const char *devs_str(const bl_cell_t *k)
{
    static char buf[4][16];
    static int i;
    char *b = buf[i++ % 4];
    if (!k->ran) snprintf(b, 16, "-");
    else if (k->devs > 0) snprintf(b, 16, "%d", k->devs);
    else snprintf(b, 16, "%s", k->devs == 0 ? "cpu" : "cpu?");
    return b;
}

static const char *ooc_str(const bl_cell_t *k)
{
    static const char *const s[] = {"-", "no", "yes", "near", "yes?"};
    return k->ran ? s[k->ooc + 1] : "-";
}

/* The table's cells in order, as strings: each group of columns appears where it runs. */
typedef struct line_s {
    char buf[400];
    size_t len;
} line_t;

static void add(line_t *l, int width, const char *v)
{
    if (l->len < sizeof l->buf)
        l->len += (size_t)snprintf(l->buf + l->len, sizeof l->buf - l->len, " %*s", width, v);
}

/* The line of the head (row NULL) or of a row: the rates, the ratios, the backward errors. */
static void table_line(const bl_ctx_t *c, const bl_row_t *row, line_t *l)
{
    const bl_opts_t *o = &c->o;
    char g[NC][16], q[NQ][16], e[NC][16];
    const bl_cell_t *ob = row ? &row->c[C_OB] : NULL;
    const int by_ob = ob && ob->ran && ob->berr > 0 && !isnan(ob->berr);
    for (int k = 0; row && k < NC; k++) {
        const double gf = bl_gflops(row, k);
        fmt(g[k], sizeof g[k], gf < 10 ? "%.3g" : "%.1f", gf);
        const double b = row->c[k].ran ? row->c[k].berr : NAN;
        if (by_ob && k != C_OB) fmt(e[k], sizeof e[k], "x%.2f", b / ob->berr);
        else fmt(e[k], sizeof e[k], "%.2e", b);
    }
    for (int i = 0; row && i < NQ; i++) fmt(q[i], sizeof q[i], "%.2f", ratio(row, i));
#define CELL(w, head, val) add(l, w, row ? (val) : (head))
    l->len = (size_t)snprintf(l->buf, sizeof l->buf, "%6s", row ? "" : "n");
    if (row) l->len = (size_t)snprintf(l->buf, sizeof l->buf, "%6d", row->n);
    CELL(9, bl_ctitle[C_HOST], g[C_HOST]);
    CELL(4, "devs", devs_str(&row->c[C_HOST]));
    CELL(4, "ooc", ooc_str(&row->c[C_HOST]));
    if (o->mem_limit) {
        CELL(9, bl_ctitle[C_LIM], g[C_LIM]);
        CELL(4, "ooc", ooc_str(&row->c[C_LIM]));
        CELL(9, qtitle[3], q[3]);
    }
    if (o->one_device) {
        CELL(9, bl_ctitle[C_ONE], g[C_ONE]);
        CELL(9, qtitle[4], q[4]);
    }
    static const int rest[] = {C_DEV, C_OB, C_CUS_RES, C_CUS_CP};
    for (int i = 0; i < 4; i++) CELL(9, bl_ctitle[rest[i]], g[rest[i]]);
    for (int i = 0; i < 3; i++) CELL(9, qtitle[i], q[i]);
    add(l, 1, "|");
    for (int k = 0; k < NC; k++) {
        const int kk = bl_col_order[k];
        if ((kk == C_LIM && !o->mem_limit) || (kk == C_ONE && !o->one_device)) continue;
        CELL(9, kk == C_OB ? "OpenBLAS" : bl_ctitle[kk], e[kk]);
    }
#undef CELL
}

void bl_table_head(const bl_ctx_t *c, int r, int dbl)
{
    const bl_opts_t *o = &c->o;
    printf("\n== %c%s, %s-major%s: GFLOP/s (LAPACK's count: %s), median of %d after %d warm-up; "
           "right of |: backward errors, over OpenBLAS's (xR) where it ran ==\n",
           dbl ? 'd' : 's', bl_rname[r], o->row ? "row" : "column",
           r == R_POTRF ? (o->upper ? ", upper" : ", lower") : "",
           r == R_POTRF ? "n^3/3" : r == R_GETRF ? "2n^3/3" : "4n^3/3", o->reps, o->warmup);
    line_t l;
    table_line(c, NULL, &l);
    printf("%s\n", l.buf);
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
    line_t l;
    table_line(c, row, &l);
    printf("%s\n", l.buf);
    for (int i = 0; i < NC; i++) {
        const int k = bl_col_order[i];
        const bl_cell_t *cell = &row->c[k];
        if (!worth_a_line(cell)) continue;
        const int ours = k == C_HOST || k == C_DEV || k == C_LIM || k == C_ONE;
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
                    "limit_over_host,host_over_1dev,host_devices,host_ooc,memory_limit_bytes,"
                    "limit_devices,limit_ooc,device,date\n");
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
    for (int i = 0; i < NQ; i++) csv_num(f, "%.4f", ratio(row, i));
    /* devices: -1 a cpu record not told from an earlier one; ooc: 0 no, 1 yes, 2 near,
     * 3 yes? (the table's words) */
    const bl_cell_t *h = &row->c[C_HOST], *l = &row->c[C_LIM];
    csv_num(f, "%.0f", h->ran ? (double)h->devs : NAN);
    csv_num(f, "%.0f", h->ran && h->ooc != BL_OOC_NA ? (double)h->ooc : NAN);
    csv_num(f, "%.0f", c->o.mem_limit ? (double)c->o.mem_limit : NAN);
    csv_num(f, "%.0f", l->ran ? (double)l->devs : NAN);
    csv_num(f, "%.0f", l->ran && l->ooc != BL_OOC_NA ? (double)l->ooc : NAN);
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
    static const char *color[NC] = {"#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd",
                                     "#8c564b", "#e377c2"};
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
