/*
 * bench_gemm_report.c -- clhgemm-bench-gemm's output: each shape's result lines and ratios, the
 * CSV rows (appended as they are produced, so that a run that dies half-way still leaves its
 * rows), the summary table with each shape's class and split, and the geometric means of ours
 * over each competitor. The text and the CSV columns are what bench/gpu_record.sh,
 * docs/PERFORMANCE.md and the smoke tests read; they are written here only.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_gemm_priv.h"

#ifdef CLHGEMM_BENCH_HAVE_INTERNAL
#include "core/gemm.h"
#include "core/splitk.h"
#include "tuning/tuning.h"
#endif

const char *const bg_lib_name[NLIBS] = {"clhgemm", "clblast", "clhgemm-defaults", "cublas",
                                        "openblas", "cublas-3m"};
const char *const bg_lib_title[NLIBS] = {"ours", "CLBlast", "defaults", "cuBLAS", "OpenBLAS",
                                         "cuBLAS-3m"};

double bg_gflops_of(const shape_t *s, int cplx, double ms)
{
    return (cplx ? 8.0 : 2.0) * s->m * (double)s->n * s->k / (ms * 1e6);
}

/* ---- CSV ---------------------------------------------------------------------------------- */

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        if (*s != '\n' && *s != '\r') fputc(*s, f);
    }
    fputc('"', f);
}

int bg_csv_open(ctx_t *c)
{
    c->csv = fopen(c->o.csv, "a");
    if (!c->csv) {
        fprintf(stderr, "error: cannot open %s: %s\n", c->o.csv, strerror(errno));
        return -1;
    }
    fseek(c->csv, 0, SEEK_END);
    if (ftell(c->csv) == 0)
        fprintf(c->csv, "date,device,driver,precision,m,n,k,library,median_ms,gflops,min_ms,max_ms,"
                        "params,layout,trans,reps,check_err,device_median_ms\n");
    return 0;
}

static void csv_row(const ctx_t *c, const row_t *row, int lib)
{
    const result_t *r = &row->r[lib];
    if (!c->csv || !r->ran) return;
    const shape_t *s = &row->shape;
    double gf = bg_gflops_of(s, row->cplx, r->host.median);
    const char *params = "";
    if (lib == LIB_OURS) params = c->params[row->dbl];
    else if (lib == LIB_DEFAULT) params = c->params_def[row->dbl];
    else if (lib == LIB_CUBLAS || lib == LIB_CUBLAS3M) params = c->cublas_desc;
    else if (lib == LIB_OPENBLAS) params = c->openblas_desc;
    fprintf(c->csv, "%s,", c->date);
    csv_field(c->csv, c->info.name);
    fputc(',', c->csv);
    csv_field(c->csv, c->info.driver_version);
    fprintf(c->csv, ",%c,%d,%d,%d,%s,%.6f,%.3f,%.6f,%.6f,", bg_pchar(row->dbl, row->cplx), s->m,
            s->n, s->k, bg_lib_name[lib], r->host.median, gf, r->host.min, r->host.max);
    csv_field(c->csv, params);
    fprintf(c->csv, ",%s,%c%c,%d,", c->o.row ? "row" : "col", c->o.ta ? 'T' : 'N',
            c->o.tb ? 'T' : 'N', c->o.reps);
    if (!isnan(r->err)) fprintf(c->csv, "%.4g", r->err);
    fputc(',', c->csv);
    if (!isnan(r->dev.median)) fprintf(c->csv, "%.6f", r->dev.median);
    fputc('\n', c->csv);
    fflush(c->csv);
}

/* ---- one shape ---------------------------------------------------------------------------- */

static void print_lib_line(const shape_t *s, int cplx, int lib, const result_t *r)
{
    if (r->ran) {
        printf("    %-8s %10.1f GFLOP/s  median %9.3f ms  min %9.3f  max %9.3f", bg_lib_title[lib],
               bg_gflops_of(s, cplx, r->host.median), r->host.median, r->host.min, r->host.max);
        if (!isnan(r->dev.median)) printf("  device %9.3f ms", r->dev.median);
        if (!isnan(r->err)) printf("  err %.3g", r->err);
        if (!isnan(r->err_ref)) printf("  vs CLBlast %.3g", r->err_ref);
        printf("\n");
        if (r->note[0]) printf("             note: %s\n", r->note);
    } else {
        printf("    %-8s n/a (%s)\n", bg_lib_title[lib], r->note[0] ? r->note : "not run");
    }
}

void bg_report_row(const ctx_t *c, const row_t *row)
{
    const opts_t *o = &c->o;
    const result_t *r = row->r;
    for (int l = 0; l < NLIBS; l++) {
        if ((l == LIB_CUBLAS || l == LIB_CUBLAS3M) && !o->cublas) continue;
        if (l == LIB_CUBLAS3M && !row->cplx) continue;
        if (l == LIB_OPENBLAS && !o->openblas) continue;
        if (l == LIB_CLBLAST && !o->clblast) continue;
        if (l == LIB_DEFAULT && !o->defaults) continue;
        print_lib_line(&row->shape, row->cplx, l, &r[l]);
    }
    if (r[LIB_OURS].ran && r[LIB_CLBLAST].ran)
        printf("    ours/CLBlast %.2f\n", r[LIB_CLBLAST].host.median / r[LIB_OURS].host.median);
    if (r[LIB_OURS].ran && r[LIB_CUBLAS].ran)
        printf("    ours/cuBLAS %.2f\n", r[LIB_CUBLAS].host.median / r[LIB_OURS].host.median);
    if (r[LIB_OURS].ran && r[LIB_CUBLAS3M].ran)
        printf("    ours/cuBLAS-3m %.2f\n", r[LIB_CUBLAS3M].host.median / r[LIB_OURS].host.median);
    if (r[LIB_OURS].ran && r[LIB_OPENBLAS].ran)
        printf("    ours/OpenBLAS %.2f\n", r[LIB_OPENBLAS].host.median / r[LIB_OURS].host.median);
    if (r[LIB_OURS].ran && r[LIB_DEFAULT].ran)
        printf("    ours/defaults %.2f\n", r[LIB_DEFAULT].host.median / r[LIB_OURS].host.median);
    fflush(stdout);
    for (int l = 0; l < NLIBS; l++) csv_row(c, row, l);
}

/* ---- summary ------------------------------------------------------------------------------ */

static void fmt_gf(char *buf, size_t len, const shape_t *s, int cplx, const result_t *r)
{
    if (r->ran) snprintf(buf, len, "%.1f", bg_gflops_of(s, cplx, r->host.median));
    else snprintf(buf, len, "n/a");
}

static void fmt_ratio(char *buf, size_t len, const result_t *a, const result_t *b)
{
    if (a->ran && b->ran) snprintf(buf, len, "%.2f", b->host.median / a->host.median);
    else snprintf(buf, len, "-");
}

/* The shape class the library runs m x n x k with (column-major view: a row-major call swaps
 * m and n) and its split, as "small" or "large_k/4" (4 slices of k), or "small/D" when the
 * class runs the direct kernel (DK = 1, cl/gemm_direct.cl). */
static void fmt_class(const ctx_t *c, const row_t *r, char *buf, size_t len)
{
    const chg_device_t *dev = NULL;
    const size_t m = (size_t)(c->o.row ? r->shape.n : r->shape.m);
    const size_t n = (size_t)(c->o.row ? r->shape.m : r->shape.n), k = (size_t)r->shape.k;
    if (chg_queue_device(c->queue, &dev, NULL) != CLHGEMM_SUCCESS) {
        snprintf(buf, len, "%s", chg_shape_class_name(chg_shape_class(m, n, k)));
        return;
    }
    chg_gemm_choice_t ch;
    /* a complex product is chosen for as the real one it runs (2m x n x 2k) */
    const size_t x = r->cplx ? 2 : 1;
    chg_tuned_gemm_shape(dev, r->dbl ? CHG_F64 : CHG_F32, x * m, n, x * k,
                         c->o.beta == 0.0 ? CHG_CALL_BETA_ZERO : 0u, &ch);
    if (r->cplx) { /* the complex core runs the blocked path on the class's configuration */
        snprintf(buf, len, "%s", chg_shape_class_name(ch.cls));
        return;
    }
    if (ch.gp.dk) {
        snprintf(buf, len, "%s/D", chg_shape_class_name(ch.cls));
        return;
    }
    const int sl = chg_splitk_slices(dev, &ch.gp, m, n, k, ch.split_k);
    chg_splitk_t sk;
    if (sl > 1 && chg_splitk_plan(&ch.gp, m, n, k, sl, &sk))
        snprintf(buf, len, "%s/%d", chg_shape_class_name(ch.cls), sk.slices);
    else
        snprintf(buf, len, "%s", chg_shape_class_name(ch.cls));
}

/* The check column of a row: ours's error (the larger of the cheap check and the comparison
 * with CLBlast), WARN when any library's check is beyond tolerance, FAIL when ours did not run. */
static void fmt_check(const row_t *r, char *buf, size_t len)
{
    int warn = 0;
    for (int l = 0; l < NLIBS; l++)
        if (bg_result_warns(&r->r[l])) warn = 1;
    const result_t *o = &r->r[LIB_OURS];
    if (!o->ran) snprintf(buf, len, "%s", o->note[0] && !strncmp(o->note, "skipped", 7) ? "skipped" : "FAIL");
    else if (isnan(o->err)) snprintf(buf, len, "%s", warn ? "WARN" : "-");
    else snprintf(buf, len, "%s %.2g", warn ? "WARN" : "ok", isnan(o->err_ref) ? o->err : fmax(o->err, o->err_ref));
}

static void print_summary_row(const ctx_t *c, const row_t *r)
{
    const int show_cu = c->o.cublas, show_ob = c->o.openblas, show_def = c->o.defaults;
    const int show_3m = show_cu && (c->o.do_c || c->o.do_z), cx = r->cplx;
    char shape[48], g0[24], g1[24], g2[24], g3[24], g4[24], g5[24], q1[16], q2[16], q3[16], q5[16];
    char chk[40];
    snprintf(shape, sizeof shape, "%dx%dx%d", r->shape.m, r->shape.n, r->shape.k);
    fmt_gf(g0, sizeof g0, &r->shape, cx, &r->r[LIB_OURS]);
    fmt_gf(g1, sizeof g1, &r->shape, cx, &r->r[LIB_CLBLAST]);
    fmt_gf(g2, sizeof g2, &r->shape, cx, &r->r[LIB_CUBLAS]);
    fmt_gf(g3, sizeof g3, &r->shape, cx, &r->r[LIB_OPENBLAS]);
    fmt_gf(g5, sizeof g5, &r->shape, cx, &r->r[LIB_CUBLAS3M]);
    fmt_ratio(q1, sizeof q1, &r->r[LIB_OURS], &r->r[LIB_CLBLAST]);
    fmt_ratio(q2, sizeof q2, &r->r[LIB_OURS], &r->r[LIB_CUBLAS]);
    fmt_ratio(q5, sizeof q5, &r->r[LIB_OURS], &r->r[LIB_CUBLAS3M]);
    fmt_gf(g4, sizeof g4, &r->shape, cx, &r->r[LIB_DEFAULT]);
    fmt_ratio(q3, sizeof q3, &r->r[LIB_OURS], &r->r[LIB_DEFAULT]);
    fmt_check(r, chk, sizeof chk);
    char cls[32];
    fmt_class(c, r, cls, sizeof cls);
    printf("%-18s %-2c %-10s %10s", shape, bg_pchar(r->dbl, cx), cls, g0);
    if (show_def) printf(" %10s %8s", g4, q3);
    printf(" %10s %7s", g1, q1);
    if (show_cu) printf(" %10s %7s", g2, q2);
    if (show_3m) printf(" %10s %7s", g5, q5);
    if (show_ob) printf(" %10s", g3);
    printf("  %s\n", chk);
}

void bg_print_summary(const ctx_t *c)
{
    const int show_cu = c->o.cublas, show_ob = c->o.openblas, show_def = c->o.defaults;
    printf("\n== summary: %s | %s | GFLOP/s from the median of %d reps, %s-major %c%c, alpha 1, beta %g ==\n",
           c->info.name, c->info.driver_version, c->o.reps, c->o.row ? "row" : "column",
           c->o.ta ? 'T' : 'N', c->o.tb ? 'T' : 'N', c->o.beta);
    printf("%-18s %-2s %-10s %10s", "m x n x k", "p", "class", "ours");
    if (show_def) printf(" %10s %8s", "defaults", "ours/def");
    printf(" %10s %7s", "CLBlast", "ours/CB");
    if (show_cu) printf(" %10s %7s", "cuBLAS", "ours/cu");
    if (show_cu && (c->o.do_c || c->o.do_z)) printf(" %10s %7s", "cuBLAS-3m", "ours/3m");
    if (show_ob) printf(" %10s", "OpenBLAS");
    printf("  %s\n", "check");
    for (int i = 0; i < c->nrows; i++) print_summary_row(c, &c->rows[i]);
    fflush(stdout);
}

/* ---- geometric means ---------------------------------------------------------------------- */

/* The competitors whose column is on, in print order. */
int bg_competitors(const opts_t *o, int *libs)
{
    int n = 0;
    if (o->clblast) libs[n++] = LIB_CLBLAST;
    if (o->cublas) libs[n++] = LIB_CUBLAS;
    if (o->cublas && (o->do_c || o->do_z)) libs[n++] = LIB_CUBLAS3M;
    if (o->openblas) libs[n++] = LIB_OPENBLAS;
    if (o->defaults) libs[n++] = LIB_DEFAULT;
    return n;
}

/* ours / lib (GFLOP/s, i.e. lib's median time over ours) of a row; NAN unless both ran. */
double bg_ratio_of(const row_t *r, int lib)
{
    const result_t *a = &r->r[LIB_OURS], *b = &r->r[lib];
    if (!a->ran || !b->ran || !(a->host.median > 0) || !(b->host.median > 0)) return NAN;
    return b->host.median / a->host.median;
}

/* Lines "geomean ours/LIB P VALUE (N of M shapes)" for each competitor whose column is on, per
 * precision that ran and over all rows: the geometric mean of ours / LIB over the shapes where
 * both have a figure (a shape where either has none is left out and the count says so). */
void bg_print_geomeans(const ctx_t *c)
{
    int libs[NLIBS], nl = bg_competitors(&c->o, libs);
    if (!c->nrows) return;
    printf("\n");
    for (int i = 0; i < nl; i++) {
        const int lib = libs[i];
        char name[32];
        snprintf(name, sizeof name, "ours/%s", bg_lib_title[lib]);
        static const char *const pname[5] = {"s", "d", "c", "z", "all"};
        for (int p = 0; p < 5; p++) { /* s, d, c, z, all */
            double sum = 0.0;
            int n = 0, total = 0;
            const char *why = NULL;
            int why_real = 0;
            for (int j = 0; j < c->nrows; j++) {
                const row_t *r = &c->rows[j];
                if (p < 4 && bg_pi(r->dbl, r->cplx) != p) continue;
                total++;
                double q = bg_ratio_of(r, lib);
                if (!isnan(q)) {
                    sum += log(q);
                    n++;
                } else if ((!why || why_real) && r->r[LIB_OURS].ran && r->r[lib].note[0]) {
                    /* a complex row's reason before the real rows' "complex only" (3M) */
                    why = r->r[lib].note;
                    why_real = !r->cplx;
                }
            }
            if (!total) continue;
            if (n)
                printf("geomean %-14s %-3s %7.3f  (%d of %d shapes)\n", name, pname[p],
                       exp(sum / n), n, total);
            else
                printf("geomean %-14s %-3s     n/a  (0 of %d shapes%s%s)\n", name, pname[p], total,
                       why ? ": " : "", why ? why : "");
        }
    }
    fflush(stdout);
}
