/*
 * bench_host_sweep_report.c -- what clhgemm-bench-host --sweep writes, all but the PNG
 * (bench_host_sweep_png.c): the title line (device, bus rate, OpenBLAS, the options), the table's
 * header and a line per case, the CSV (--csv, rewritten: its header and a row per case as it
 * finishes; the columns are read by bench/gpu_record.sh and docs/PERFORMANCE.md's figures, so
 * they only grow at the end), the legend, and the last line "worst: ..." (the smallest ours /
 * max(OpenBLAS, device route), and for n <= 256 the largest time ours / OpenBLAS).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_host_sweep_int.h"

/* The route a host call took (clhgemm_last_call_info). */
static const char *sw_route(const clhgemm_call_info_t *i)
{
    if (i->devices_used == 0 && i->tiles == 0 && i->cpu_fraction == 1.0) return "cpu";
    if (i->devices_used > 0 && i->cpu_fraction > 0) return "dev+cpu";
    return "dev";
}

static double sw_spread(const stats_t *s)
{
    return s->ok && s->median > 0 ? 100.0 * (s->max - s->min) / s->median : NAN;
}
/* ours / max(OpenBLAS, ours on the device route), NAN when neither is known. */
static double sw_over_best(const sw_res_t *r)
{
    const double a = sw_gf(r->n, &r->ob), b = sw_gf(r->n, &r->dr), ours = sw_gf(r->n, &r->ours);
    const double best = isnan(a) ? b : isnan(b) ? a : (a > b ? a : b);
    return best > 0 ? ours / best : NAN;
}

static void sw_fmt(char *buf, size_t len, const char *fmt, double v)
{
    if (isnan(v))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, fmt, v);
}

/* The title line; title (for the PNG) gets the device, the date and the bus rate. */
void sw_print_title(const opts_t *o, const sw_env_t *env, char *title, size_t title_len)
{
    const devctx_t *dev = env->dev;
    char date[64], blas[320];
    time_t now = time(NULL);
    struct tm tmv;
    localtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", &tmv);
    const char *route_env = getenv("CLHGEMM_ROUTE");
    printf("clhgemm-bench-host --sweep | %s | clhgemm %s | device %s (%s), %.1f GiB | bus "
           "host->device %.2f GB/s (pinned, %zu MiB, best of 3) | OpenBLAS %s | %s %c%c, alpha 1, "
           "pageable | ours: CLHGEMM_ROUTE=%s | median of %d (warm-up %d), samples >= %.0f ms%s\n",
           date, clhgemm_version(), dev->info.name, dev->info.platform_name,
           dev->info.global_mem_bytes / 1073741824.0, env->bus_bps * 1e-9,
           env->bus_bytes / 1048576, blas_desc(blas, sizeof blas),
           o->layout == CLHGEMM_COL_MAJOR ? "column-major" : "row-major",
           o->ta == CLHGEMM_NO_TRANS ? 'N' : 'T', o->tb == CLHGEMM_NO_TRANS ? 'N' : 'T',
           route_env && *route_env ? route_env : "auto", o->reps, o->warmup, SWEEP_MIN_SAMPLE_MS,
           env->xtdesc);
    snprintf(title, title_len, "clhgemm sweep, %s, %s, bus %.2f GB/s", dev->info.name, date,
             env->bus_bps * 1e-9);
}

void sw_print_header(const sw_env_t *env)
{
    printf("%4s %4s %6s %10s %7s %10s %10s %10s %10s %6s %7s %6s %6s %-7s %10s %9s %7s%s\n",
           "prec", "beta", "n", "ours GF/s", "spread", "OpenBLAS", "dev-only", "dev-route", "bound",
           "/bound", "/hbound", "/OB", "t/OB", "route", "ours ms", "OB ms", "inner",
           env->xt ? "   cublasXt" : "");
}

void sw_print_row(const sw_env_t *env, const sw_res_t *r)
{
    if (r->skipped) {
        printf("%4s %4g %6d skipped: %s\n", r->dbl ? "d" : "s", r->beta, r->n, r->why);
        return;
    }
    char ours[24], spr[24], ob[24], dev[24], dr[24], bd[24], rb[24], rh[24], ro[24], tp[24],
        oms[24], obms[24], xt[32] = "";
    const double g = sw_gf(r->n, &r->ours);
    sw_fmt(ours, sizeof ours, "%.2f", g);
    sw_fmt(spr, sizeof spr, "%.1f%%", sw_spread(&r->ours));
    sw_fmt(ob, sizeof ob, "%.2f", sw_gf(r->n, &r->ob));
    sw_fmt(dev, sizeof dev, "%.2f", sw_gf(r->n, &r->dev));
    sw_fmt(dr, sizeof dr, "%.2f", sw_gf(r->n, &r->dr));
    sw_fmt(bd, sizeof bd, "%.2f", sw_bound_gf(r));
    sw_fmt(rb, sizeof rb, "%.2f", g / sw_bound_gf(r));
    sw_fmt(rh, sizeof rh, "%.2f", g / sw_hbound_gf(r));
    sw_fmt(ro, sizeof ro, "%.2f", g / sw_gf(r->n, &r->ob));
    sw_fmt(tp, sizeof tp, "%.3f", r->pair_ratio);
    sw_fmt(oms, sizeof oms, "%.4g", r->ours.ok ? r->ours.median : NAN);
    sw_fmt(obms, sizeof obms, "%.4g", r->ob.ok ? r->ob.median : NAN);
    if (env->xt) {
        char v[24];
        sw_fmt(v, sizeof v, "%.2f", sw_gf(r->n, &r->xt));
        snprintf(xt, sizeof xt, " %10s", v);
    }
    printf("%4s %4g %6d %10s %7s %10s %10s %10s %10s %6s %7s %6s %6s %-7s %10s %9s %7d%s%s\n",
           r->dbl ? "d" : "s", r->beta, r->n, ours, spr, ob, dev, dr, bd, rb, rh, ro, tp,
           r->ours.ok ? sw_route(&r->info) : "-", oms, obms, r->in_ours, xt,
           r->failed ? "  FAILED" : "");
}

void sw_csv_row(FILE *f, const sw_env_t *env, const sw_res_t *r)
{
    if (!f) return;
    const double g = sw_gf(r->n, &r->ours);
    fprintf(f, "%s,%g,%d,%.4f,%.2f,%.4f,%.4f,%.4f,%.4f,%.4f,%s,%.4f,%.4f,%.6g,%.6g,%.6g,%d,%d,%d,"
               "%d,%.4f,%.3f,%s,%.3g,%.3g,%.3g,%.4f,%d,%s,%.4f,%.4f,%.4f,%.3f\n",
            r->dbl ? "d" : "s", r->beta, r->n, g, sw_spread(&r->ours), sw_gf(r->n, &r->ob),
            sw_gf(r->n, &r->dev), sw_bound_gf(r), g / sw_bound_gf(r), g / sw_gf(r->n, &r->ob),
            r->ours.ok ? sw_route(&r->info) : "", sw_gf(r->n, &r->dr), sw_over_best(r),
            r->ours.ok ? r->ours.median : NAN, r->ob.ok ? r->ob.median : NAN,
            r->dr.ok ? r->dr.median : NAN, r->in_ours, r->in_ob, r->in_dr, r->in_dev,
            env->xt ? sw_gf(r->n, &r->xt) : NAN, env->bus_bps * 1e-9,
            r->dr.ok ? sw_route(&r->info_dr) : "", r->err_ours, r->err_dr, r->err_dev,
            r->info.cpu_fraction, r->info.devices_used,
            r->skipped ? "skipped" : r->failed ? "FAILED" : "ok",
            sw_hbound_gf(r), g / sw_hbound_gf(r), r->pair_ratio,
            env->copy_bps * 1e-9);
    fflush(f);
}

/* --csv's file, rewritten, with its header line; NULL (after a message) when it cannot be
 * opened or none was asked for. */
FILE *sw_csv_open(const opts_t *o)
{
    if (!o->csv) return NULL;
    FILE *csv = fopen(o->csv, "w");
    if (!csv)
        fprintf(stderr, "cannot open %s: %s\n", o->csv, strerror(errno));
    else
        fprintf(csv, "prec,beta,n,ours_gflops,spread_pct,openblas_gflops,device_gflops,"
                     "bound_gflops,ours_over_bound,ours_over_openblas,route,"
                     "device_route_gflops,ours_over_best,ours_ms,openblas_ms,device_route_ms,"
                     "inner_ours,inner_openblas,inner_device_route,inner_device,xt_gflops,"
                     "bus_gbps,device_route_route,check_ours,check_device_route,"
                     "check_device,cpu_fraction,devices_used,status,host_bound_gflops,"
                     "ours_over_host_bound,paired_time_ratio,copy_gbps\n");
    return csv;
}

/* The legend under the table (the bound per device where the device route used several). */
void sw_print_legend(const sw_env_t *env, const sw_res_t *res, int nres)
{
    int ndev = 1;
    for (int i = 0; i < nres; i++)
        if (res[i].info_dr.devices_used > ndev) ndev = res[i].info_dr.devices_used;
    char ndev_note[96] = "";
    if (ndev > 1)
        snprintf(ndev_note, sizeof ndev_note,
                 " / %d devices (assumed alike, each on its own link)", ndev);
    printf("GF/s per call (median; spread = (max - min) / median of the samples); OpenBLAS alone "
           "on the same data; dev-only = clhgemm_?gemm_cl with the data on the device; dev-route = "
           "ours on a CLHGEMM_ROUTE=device handle; bound = flops / max(dev-only time, (A + B + "
           "(beta != 0) C) bytes / bus rate)%s; hbound = the bound with the host's own copies "
           "counted too (A + B + (beta != 0) C + C bytes / the pageable -> pinned copy rate, %.1f "
           "GB/s on all cores in this run); t/OB = time ours / OpenBLAS, median over paired "
           "samples (n <= %d); route = where ours ran (cpu, dev, dev+cpu); inner = calls per "
           "timed sample of ours; OpenBLAS calls of >= %.0f s timed once (the reference call)\n",
           ndev_note, env->copy_bps * 1e-9, SWEEP_PAIRED_MAX_N, SWEEP_OB_ONE_SAMPLE_MS * 1e-3);
}

/* The last line: ours against the better of OpenBLAS alone and the device route; small n
 * against OpenBLAS in time. */
void sw_print_worst(const sw_res_t *res, int nres)
{
    const sw_res_t *w = NULL, *ws = NULL;
    double wv = INFINITY, wsv = -INFINITY;
    for (int i = 0; i < nres; i++) {
        const sw_res_t *r = &res[i];
        if (r->skipped || !r->ours.ok) continue;
        const double v = sw_over_best(r);
        if (!isnan(v) && v < wv) {
            wv = v;
            w = r;
        }
        if (r->n <= 256 && r->ob.ok && r->ob.median > 0) {
            const double t = isnan(r->pair_ratio) ? r->ours.median / r->ob.median : r->pair_ratio;
            if (t > wsv) {
                wsv = t;
                ws = r;
            }
        }
    }
    char wbuf[400] = "n/a", wsbuf[300] = "n/a (no n <= 256 with OpenBLAS)";
    if (w) {
        char wob[24], wdr[24];
        sw_fmt(wob, sizeof wob, "%.2f", sw_gf(w->n, &w->ob));
        sw_fmt(wdr, sizeof wdr, "%.2f", sw_gf(w->n, &w->dr));
        snprintf(wbuf, sizeof wbuf,
                 "ours/max(OpenBLAS, device route) = %.3f at %s beta=%g n=%d (ours %.2f, OpenBLAS "
                 "%s, device route %s GFLOP/s; route %s)",
                 wv, w->dbl ? "d" : "s", w->beta, w->n, sw_gf(w->n, &w->ours), wob, wdr,
                 sw_route(&w->info));
    }
    if (ws)
        snprintf(wsbuf, sizeof wsbuf,
                 "%.3fx at %s beta=%g n=%d (ours %.4g ms, OpenBLAS %.4g ms per call, medians of "
                 "their own samples; route %s)",
                 wsv, ws->dbl ? "d" : "s", ws->beta, ws->n, ws->ours.median, ws->ob.median,
                 sw_route(&ws->info));
    printf("worst: %s; small n (<= 256): largest time ours/OpenBLAS %s\n", wbuf, wsbuf);
}
