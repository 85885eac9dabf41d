/*
 * bench_gemm_png.c -- clhgemm-bench-gemm --png: a gnuplot bar chart of ours / competitor per
 * shape and precision, the data and the commands piped to gnuplot (found on PATH; without it
 * the run says so and goes on). Apart from the text report because it is the only part that
 * starts another program.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_gemm_priv.h"

/* Whether an executable named `name` is on PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char buf[4096];
        if (len > 0 && len + strlen(name) + 2 < sizeof buf) {
            memcpy(buf, path, len);
            buf[len] = '/';
            strcpy(buf + len + 1, name);
            if (access(buf, X_OK) == 0) return 1;
        }
        if (!end) break;
        path = end + 1;
    }
    return 0;
}

/* A gnuplot double-quoted string: backslash and quote escaped, a newline as \n, other control
 * characters dropped. */
static void gp_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '\n') fputs("\\n", f);
        else if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s >= 32) fputc(*s, f);
    }
    fputc('"', f);
}


/* The distinct shapes of the rows, in run order; returns their count. */
static int png_shapes(const ctx_t *c, shape_t *shapes)
{
    int nshapes = 0;
    for (int j = 0; j < c->nrows; j++) {
        int seen = 0;
        for (int i = 0; i < nshapes && !seen; i++)
            seen = shapes[i].m == c->rows[j].shape.m && shapes[i].n == c->rows[j].shape.n &&
                   shapes[i].k == c->rows[j].shape.k;
        if (!seen) shapes[nshapes++] = c->rows[j].shape;
    }
    return nshapes;
}

/* The series: (lib, precision: s, d, c, z as bg_pi) with at least one ratio; returns their
 * count. */
static int png_series(const ctx_t *c, int *slib, int *sdbl)
{
    int libs[NLIBS], nl = bg_competitors(&c->o, libs), ns = 0;
    for (int i = 0; i < nl; i++)
        for (int d = 0; d < 4; d++) {
            int any = 0;
            for (int j = 0; j < c->nrows && !any; j++)
                any = bg_pi(c->rows[j].dbl, c->rows[j].cplx) == d &&
                      !isnan(bg_ratio_of(&c->rows[j], libs[i]));
            if (any) {
                slib[ns] = libs[i];
                sdbl[ns++] = d;
            }
        }
    return ns;
}

/* The chart's settings: size, output file, title, axes, style, the line at 1. */
static void png_settings(const ctx_t *c, FILE *g, int nshapes, int ns)
{
    const int width = 640 + nshapes * (24 + 10 * ns);
    fprintf(g, "set terminal png noenhanced size %d,720\nset output ", width > 4000 ? 4000 : width);
    gp_quoted(g, c->o.png);
    char title[1200];
    snprintf(title, sizeof title,
             "clhgemm-bench-gemm: ours / competitor (GFLOP/s, median of %d reps), %s-major %c%c, beta %g\n%s | %s | %s",
             c->o.reps, c->o.row ? "row" : "column", c->o.ta ? 'T' : 'N', c->o.tb ? 'T' : 'N',
             c->o.beta, c->info.name, c->info.driver_version, c->date);
    fprintf(g, "\nset title ");
    gp_quoted(g, title);
    fprintf(g, "\nset ylabel 'ours / competitor (above 1: ours faster)'\n"
               "set style data histograms\nset style histogram clustered gap 1\n"
               "set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
               "set xtics rotate by -50 scale 0 nomirror\nset grid ytics\nset yrange [0:*]\n"
               "set datafile missing '?'\nset key outside right top\nset bmargin 9\n"
               "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc rgb 'black' front\n");
}

/* The data block (a line per shape, a column per series, '?' where a series has no ratio) and
 * the plot command. */
static void png_data(const ctx_t *c, FILE *g, const shape_t *shapes, int nshapes,
                     const int *slib, const int *sdbl, int ns)
{
    fprintf(g, "$D << EOD\n");
    for (int i = 0; i < nshapes; i++) {
        fprintf(g, "\"%dx%dx%d\"", shapes[i].m, shapes[i].n, shapes[i].k);
        for (int s = 0; s < ns; s++) {
            double q = NAN;
            for (int j = 0; j < c->nrows; j++) {
                const row_t *r = &c->rows[j];
                if (bg_pi(r->dbl, r->cplx) == sdbl[s] && r->shape.m == shapes[i].m &&
                    r->shape.n == shapes[i].n && r->shape.k == shapes[i].k)
                    q = bg_ratio_of(r, slib[s]);
            }
            if (isnan(q)) fprintf(g, " ?");
            else fprintf(g, " %.6g", q);
        }
        fprintf(g, "\n");
    }
    fprintf(g, "EOD\nplot ");
    for (int s = 0; s < ns; s++) {
        char t[64];
        snprintf(t, sizeof t, "%c ours/%s", "sdcz"[sdbl[s]], bg_lib_title[slib[s]]);
        fprintf(g, "%s$D using %d%s title ", s ? ", " : "", s + 2, s ? "" : ":xtic(1)");
        gp_quoted(g, t);
    }
    fprintf(g, "\n");
}

/* --png: clustered bars of ours / competitor per shape (x: shapes in run order), one series per
 * competitor and precision that has a figure; a dashed line at 1 (above it: ours is faster). */
void bg_write_png(const ctx_t *c)
{
    shape_t *shapes = calloc((size_t)(c->nrows > 0 ? c->nrows : 1), sizeof *shapes);
    if (!shapes) return;
    const int nshapes = png_shapes(c, shapes);
    int slib[4 * NLIBS], sdbl[4 * NLIBS];
    const int ns = png_series(c, slib, sdbl);
    if (!ns) {
        printf("png: no shape has both ours and a competitor: no PNG\n");
        free(shapes);
        return;
    }
    if (!on_path("gnuplot")) {
        printf("gnuplot not found: no PNG\n");
        free(shapes);
        return;
    }
    fflush(stdout);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN); /* a gnuplot that dies must not kill the run */
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        printf("png: cannot start gnuplot (%s): no PNG\n", strerror(errno));
        signal(SIGPIPE, old);
        free(shapes);
        return;
    }
    png_settings(c, g, nshapes, ns);
    png_data(c, g, shapes, nshapes, slib, sdbl, ns);
    int st = pclose(g);
    signal(SIGPIPE, old);
    if (st != 0) printf("png: gnuplot failed (status %d): no PNG written to %s\n", st, c->o.png);
    else printf("png: %s (%d shapes, %d series)\n", c->o.png, nshapes, ns);
    free(shapes);
}
