/*
 * bench_host_sweep_png.c -- clhgemm-bench-host --sweep's plot (--png FILE): gnuplot, when
 * installed, fed through a pipe with the sweep's results inline; a panel per beta, GFLOP/s against
 * n (log x), ours, OpenBLAS, device-only and the bound per precision (solid single, dashed
 * double). Without gnuplot, or when it fails, a line says so and there is no PNG.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_host_sweep_int.h"

#define SW_NSERIES 4

/* The PNG's series s of a case: ours, OpenBLAS, device-only, the bound (GFLOP/s). */
static double sw_series(const sw_res_t *r, int s)
{
    return s == 0 ? sw_gf(r->n, &r->ours) : s == 1 ? sw_gf(r->n, &r->ob)
         : s == 2 ? sw_gf(r->n, &r->dev) : sw_bound_gf(r);
}

/* The points of series s for one precision and beta: their count, and with g their "n value"
 * lines written to g. */
static int sw_points(FILE *g, const sw_res_t *res, int nres, int dbl, double beta, int s)
{
    int pts = 0;
    for (int i = 0; i < nres; i++) {
        const sw_res_t *r = &res[i];
        const double v = sw_series(r, s);
        if (r->dbl != dbl || r->beta != beta || r->skipped || isnan(v)) continue;
        pts++;
        if (g) fprintf(g, "%d %.6g\n", r->n, v);
    }
    return pts;
}

/* src without the characters of drop, cut to fit len (dst's size, terminated). */
static void sw_strip(char *dst, size_t len, const char *src, const char *drop)
{
    size_t j = 0;
    for (size_t i = 0; src[i] && j + 1 < len; i++)
        if (!strchr(drop, src[i])) dst[j++] = src[i];
    dst[j] = 0;
}

/* One panel (beta): the plot command, a curve per precision and series that has points, then
 * each curve's points inline. */
static void sw_png_panel(FILE *g, const sw_res_t *res, int nres, double beta)
{
    static const char *series[SW_NSERIES] = {"ours", "OpenBLAS", "device-only", "bound"};
    static const char *color[SW_NSERIES] = {"#d62728", "#1f77b4", "#2ca02c", "#7f7f7f"};
    fprintf(g, "set title 'beta = %g'\nplot ", beta);
    int first = 1;
    for (int dbl = 0; dbl < 2; dbl++)
        for (int s = 0; s < SW_NSERIES; s++) {
            if (!sw_points(NULL, res, nres, dbl, beta, s)) continue;
            /* device-only wider, so that the bound drawn over it (they meet where the
             * kernel bounds the call) leaves it visible */
            fprintf(g,
                    "%s'-' using 1:2 with linespoints lc rgb '%s' lw %d dt %d pt %d "
                    "title '%s %s'",
                    first ? "" : ", ", color[s], s == 2 ? 4 : 1, dbl ? 2 : 1, dbl ? 6 : 7,
                    series[s], dbl ? "d" : "s");
            first = 0;
        }
    if (first) fprintf(g, "NaN notitle");
    fprintf(g, "\n");
    for (int dbl = 0; dbl < 2; dbl++)
        for (int s = 0; s < SW_NSERIES; s++)
            if (sw_points(g, res, nres, dbl, beta, s)) fprintf(g, "e\n");
}

void sw_png(const opts_t *o, const char *title, const sw_res_t *res, int nres)
{
    FILE *g = system("command -v gnuplot >/dev/null 2>&1") == 0 ? popen("gnuplot", "w") : NULL;
    if (!g) {
        printf("gnuplot not found: no PNG\n");
        return;
    }
    char file[1024], safe_title[512];
    sw_strip(file, sizeof file, o->png, "'");
    sw_strip(safe_title, sizeof safe_title, title, "'\"\\");
    fprintf(g, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "  set terminal pngcairo size 1500,620 noenhanced\n"
               "} else {\n"
               "  set terminal png size 1500,620 noenhanced\n"
               "}\n"
               "set output '%s'\n"
               "set multiplot layout 1,2 title '%s'\n"
               "set logscale x 2\nset grid\nset key top left\nset xlabel 'n (square)'\n"
               "set ylabel 'GFLOP/s'\n",
            file, safe_title);
    for (int b = 0; b < 2; b++) sw_png_panel(g, res, nres, sw_beta(b));
    fprintf(g, "unset multiplot\n");
    const int rc = pclose(g);
    if (rc != 0)
        printf("gnuplot failed (status %d): no PNG\n", rc);
    else
        printf("PNG: %s\n", o->png);
}
