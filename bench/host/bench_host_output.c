/*
 * bench_host_output.c -- what clhgemm-bench-host's default mode writes of its results: the
 * summary table printed last (one row per size and precision, the legend, the scaling over
 * devices, why a column is n/a) and the CSV row appended per result as it finishes (--csv; the
 * columns are read by bench/gpu_record.sh and docs/PERFORMANCE.md's figures, so they only grow
 * at the end). --cpu-share and --sweep write their own (bench_host_cpushare.c,
 * bench_host_sweep.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_host_priv.h"

static void fmt_gf(char *buf, size_t len, const result_t *r, const stats_t *s)
{
    if (s->ok)
        snprintf(buf, len, "%.1f", gflops(r->n, s->median));
    else
        snprintf(buf, len, "n/a");
}

static double best_xt_gf(const result_t *r)
{
    double a = r->xt.ok ? gflops(r->n, r->xt.median) : 0;
    double b = r->xtb.ok ? gflops(r->n, r->xtb.median) : 0;
    return a > b ? a : b;
}

static void summary_row(const result_t *r)
{
    if (r->skipped) {
        printf("%7d %4s skipped: %s\n", r->n, r->dbl ? "d" : "s", r->why);
        return;
    }
    char ours[24], dev[24], naive[24], xt[24], xtb[24], eff[16], ratio[16], tile[40], check[64];
    fmt_gf(ours, sizeof ours, r, &r->ours);
    fmt_gf(dev, sizeof dev, r, &r->devonly);
    fmt_gf(naive, sizeof naive, r, &r->naive);
    fmt_gf(xt, sizeof xt, r, &r->xt);
    fmt_gf(xtb, sizeof xtb, r, &r->xtb);
    if (r->ours.ok && r->devonly.ok)
        snprintf(eff, sizeof eff, "%.1f", 100.0 * r->devonly.median / r->ours.median);
    else
        snprintf(eff, sizeof eff, "n/a");
    double xg = best_xt_gf(r);
    if (r->ours.ok && xg > 0)
        snprintf(ratio, sizeof ratio, "%.2f", bh_ours_gf(r) / xg);
    else
        snprintf(ratio, sizeof ratio, "n/a");
    if (r->ours.ok)
        snprintf(tile, sizeof tile, "%dx%dx%d", r->info.tile_m, r->info.tile_n, r->info.tile_k);
    else
        snprintf(tile, sizeof tile, "%.*s", (int)sizeof tile - 1, /* the column's width at most */
                 r->ours_why[0] ? r->ours_why : "n/a");
    {
        char d1[16] = "-", d2[16] = "-";
        if (!isnan(r->devcmp_err)) snprintf(d1, sizeof d1, "%.2g", r->devcmp_err);
        if (!isnan(r->check_err)) snprintf(d2, sizeof d2, "%.2g", r->check_err);
        snprintf(check, sizeof check, "%sdev %s, Ct %s", r->warn ? "WARN " : "", d1, d2);
    }
    printf("%7d %4s %10s %11s %6s %10s %10s %8s %8s %19s %7lld %4d %s\n", r->n,
           r->dbl ? "d" : "s", ours, dev, eff, naive, xt, xtb, ratio, tile,
           r->ours.ok ? r->info.tiles : 0LL, r->ours.ok ? r->info.devices_used : 0, check);
}

/* Below the table: ours on all devices over the first alone (--one-device), then why a column
 * that was not skipped has no figure. */
static void summary_notes(const result_t *res, int nres)
{
    for (int i = 0; i < nres; i++) {
        const result_t *r = &res[i];
        if (r->ours.ok && r->ours1.ok)
            printf("  n=%d %s scaling: %d devices %.1f GFLOP/s, first device alone %.1f GFLOP/s "
                   "(tile %dx%dx%d): %.2fx; %lld of %lld tiles stolen\n",
                   r->n, r->dbl ? "d" : "s", r->info.devices_used, bh_ours_gf(r),
                   gflops(r->n, r->ours1.median), r->info1.tile_m, r->info1.tile_n,
                   r->info1.tile_k, r->ours1.median / r->ours.median, r->info.tiles_stolen,
                   r->info.tiles);
    }
    for (int i = 0; i < nres; i++) {
        const result_t *r = &res[i];
        if (r->skipped) continue;
        if (!r->devonly.ok && r->devonly_why[0] && strcmp(r->devonly_why, "skipped"))
            printf("  n=%d %s device-only n/a: %s\n", r->n, r->dbl ? "d" : "s", r->devonly_why);
        if (!r->naive.ok && r->naive_why[0] && strcmp(r->naive_why, "skipped"))
            printf("  n=%d %s naive n/a: %s\n", r->n, r->dbl ? "d" : "s", r->naive_why);
        if (!r->xt.ok && r->xt_why[0] && strcmp(r->xt_why, "skipped"))
            printf("  n=%d %s cublasXt n/a: %s\n", r->n, r->dbl ? "d" : "s", r->xt_why);
    }
}

void bh_print_summary(const opts_t *o, const result_t *res, int nres)
{
    printf("\n== summary: host-resident GEMM from pageable memory, %s %s%s, alpha 1, beta 0.5, "
           "median of %d (warm-up %d) ==\n",
           o->layout == CLHGEMM_COL_MAJOR ? "column-major" : "row-major",
           o->ta == CLHGEMM_NO_TRANS ? "N" : "T", o->tb == CLHGEMM_NO_TRANS ? "N" : "T", o->reps,
           o->warmup);
    printf("%7s %4s %10s %11s %6s %10s %10s %8s %8s %19s %7s %4s %s\n", "n", "prec", "ours GF/s",
           "dev-only", "eff %", "naive", "cublasXt", "Xt(B)", "ours/Xt", "tile m x n x k", "tiles",
           "devs", "check");
    for (int i = 0; i < nres; i++) summary_row(&res[i]);
    printf(
        "eff %% = ours / device-only (same kernel, data already on the device); naive = write "
        "A, B, C, GEMM, read C (blocking, pageable); Xt(B) = cublasXt with --xt-block; "
        "ours/Xt against the better cublasXt figure; check: errors / tolerance (<= 1 is fine)\n");
    summary_notes(res, nres);
}

/* Appends r to --csv (the header first when the file is empty). */
void bh_csv_row(const opts_t *o, const result_t *r)
{
    if (!o->csv) return;
    FILE *f = fopen(o->csv, "a+");
    if (!f) {
        fprintf(stderr, "cannot open %s: %s\n", o->csv, strerror(errno));
        return;
    }
    fseek(f, 0, SEEK_END);
    if (ftell(f) == 0)
        fprintf(f, "n,prec,layout,trans,ours_gflops,ours_ms,ours_min_ms,ours_max_ms,"
                   "devonly_gflops,devonly_ms,efficiency_pct,naive_gflops,naive_ms,"
                   "xt_gflops,xt_ms,xt_block,xtb_gflops,xtb_ms,xtb_block,ours_over_xt,tile_m,"
                   "tile_n,tile_k,tiles,devices_used,bytes_to_device,bytes_from_device,"
                   "devcmp_err,check_err,warn,a_mode,tiles_stolen,one_dev_gflops,note\n");
#define GF(s) ((s).ok ? gflops(r->n, (s).median) : NAN)
#define MS(s) ((s).ok ? (s).median : NAN)
    double xg = best_xt_gf(r);
    fprintf(f,
            "%d,%s,%s,%c%c,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f,%.3f,%.3f,%.3f,%.3f,%d,%.3f,%.3f,"
            "%d,%.3f,%d,%d,%d,%lld,%d,%.0f,%.0f,%.3g,%.3g,%d,%d,%lld,%.3f,%s\n",
            r->n, r->dbl ? "d" : "s", o->layout == CLHGEMM_COL_MAJOR ? "col" : "row",
            o->ta == CLHGEMM_NO_TRANS ? 'N' : 'T', o->tb == CLHGEMM_NO_TRANS ? 'N' : 'T',
            GF(r->ours), MS(r->ours), r->ours.ok ? r->ours.min : NAN,
            r->ours.ok ? r->ours.max : NAN, GF(r->devonly), MS(r->devonly),
            r->ours.ok && r->devonly.ok ? 100.0 * r->devonly.median / r->ours.median : NAN,
            GF(r->naive), MS(r->naive), GF(r->xt), MS(r->xt), r->xt_block_used, GF(r->xtb),
            MS(r->xtb), r->xtb_block, r->ours.ok && xg > 0 ? bh_ours_gf(r) / xg : NAN,
            r->info.tile_m, r->info.tile_n, r->info.tile_k, r->info.tiles, r->info.devices_used,
            r->info.bytes_to_device, r->info.bytes_from_device, r->devcmp_err, r->check_err,
            r->warn, r->info.a_mode, r->info.tiles_stolen, GF(r->ours1),
            r->skipped ? "skipped" : (r->ours_failed ? "ours failed" : ""));
#undef GF
#undef MS
    fclose(f);
}
