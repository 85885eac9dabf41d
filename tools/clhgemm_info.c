/*
 * clhgemm_info.c -- clhgemm-info: the OpenCL devices as clhgemm sees them, their feature flags
 * and tuning keys, the tuning databases in effect (with the reason for every file rejected), and
 * for each device and precision which tuning entry the library uses (file and match level), its
 * parameters and what was measured with them; the host's OpenBLAS (core type and threads: the
 * CPU share's sanity check) and each device's CPU/GPU split model.
 *
 * Links clhgemm_internal for the private lookup (src/tuning/resolve.h); it shows exactly what a
 * GEMM call would select, the CLHGEMM_*GEMM_PARAMS override included.
 *
 *   clhgemm-info [--devices SPEC]
 * Exit status: 0, 1 on an error, 77 when the machine has no OpenCL device.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clhgemm.h"
#include "cpu/share_blas.h"
#include "device/device.h"
#include "kernels/params.h"
#include "tuning/tuning.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: clhgemm-info [--devices SPEC]\n"
               "Lists the OpenCL devices, their feature flags, the tuning databases in effect and,\n"
               "for each device and precision, the tuning entry and kernel parameters in use.\n"
               "  --devices SPEC   device selection as in CLHGEMM_DEVICES (default: all)\n");
}

static const char *kind_name(clhgemm_device_kind_t k)
{
    switch (k) {
    case CLHGEMM_DEVICE_GPU: return "GPU";
    case CLHGEMM_DEVICE_CPU: return "CPU";
    case CLHGEMM_DEVICE_ACCELERATOR: return "accelerator";
    default: return "other";
    }
}

static void print_databases(void)
{
    char user[1024], shipped[1024];
    const char *u = chg_tuning_user_dir(user, sizeof user);
    const char *s = chg_tuning_shipped_dir(shipped, sizeof shipped);
    const char *mode = getenv("CLHGEMM_TUNING");
    printf("tuning databases%s:\n", mode && !strcmp(mode, "off") ? " (CLHGEMM_TUNING=off: not used)" : "");
    printf("  user     %s\n", u ? u : "(off)");
    printf("  shipped  %s\n", s ? s : "(none)");
    chg_tuning_source_t src[64];
    int n = chg_tuning_sources(src, 64);
    if (n == 0) printf("  (no *.json file in these directories)\n");
    for (int i = 0; i < n && i < 64; i++) {
        if (src[i].ok)
            printf("  %-8s %s: %d entr%s (written by clhgemm %s)\n", src[i].user ? "[user]" : "[shipped]",
                   src[i].path, src[i].records, src[i].records == 1 ? "y" : "ies",
                   src[i].library_version);
        else
            printf("  %-8s %s: REJECTED: %s\n", src[i].user ? "[user]" : "[shipped]", src[i].path,
                   src[i].reason);
    }
}

static void print_precision(const chg_device_t *dev, chg_precision_t prec)
{
    const char pc = prec == CHG_F64 ? 'd' : 's';
    chg_tuning_entry_t e;
    chg_tuning_lookup(dev, prec, &e);
    char buf[256];
    if (e.level == CHG_TUNING_BUILTIN)
        printf("  %cgemm: built-in defaults (%s)\n", pc, e.key);
    else
        printf("  %cgemm: %s entry \"%s\" from %s\n", pc, chg_tuning_level_name(e.level), e.key,
               e.source);
    chg_gemm_params_format(&e.prec.gemm, buf, sizeof buf);
    printf("         kernel  %s\n", buf);
    chg_gemm_params_t sel;
    chg_gemm_params_select(dev, prec, &sel);
    if (memcmp(&sel, &e.prec.gemm, sizeof sel)) {
        chg_gemm_params_format(&sel, buf, sizeof buf);
        printf("         in use  %s (CLHGEMM_%sGEMM_PARAMS override)\n", buf,
               getenv(prec == CHG_F64 ? "CLHGEMM_DGEMM_PARAMS" : "CLHGEMM_SGEMM_PARAMS")
                   ? (prec == CHG_F64 ? "D" : "S")
                   : "");
    }
    const chg_tuning_prec_t *p = &e.prec;
    if (e.level != CHG_TUNING_BUILTIN && p->gflops > 0)
        printf("         measured %.1f GFLOP/s at n = %d (kernel alone %.1f; built-in defaults "
               "%.1f), %d candidates in %.0f s\n",
               p->gflops, p->size, p->kernel_gflops, p->default_gflops, p->candidates,
               p->search_seconds);
    chg_copy_params_format(&p->pack, buf, sizeof buf);
    printf("         pack    %s", buf);
    if (p->has_copy) printf("  (%.1f GB/s)", p->pack_gbs);
    chg_copy_params_format(&p->pack_t, buf, sizeof buf);
    printf("\n         pack_t  %s", buf);
    if (p->has_copy)
        printf("  (%.1f GB/s; clEnqueueCopyBuffer %.1f GB/s)", p->pack_t_gbs, p->copy_buffer_gbs);
    printf("\n");
    if (p->nrates > 0) {
        printf("         kernel rate (GFLOP/s):");
        for (int i = 0; i < p->nrates; i++)
            printf("%s %dx%dx%d %.0f", i ? "," : "", p->rates[i].m, p->rates[i].n, p->rates[i].k,
                   p->rates[i].gflops);
        printf("\n");
    }
    if (e.note[0]) printf("         passed over: %s\n", e.note);
}

static void print_pipeline(const chg_device_t *dev)
{
    chg_tuning_entry_t e;
    chg_tuning_lookup(dev, CHG_F32, &e);
    const chg_tuning_pipeline_t *pl = &e.pipeline;
    if (!pl->present) {
        printf("  pipeline: no figures (only an exact entry of this device has them)\n");
        return;
    }
    printf("  pipeline: from %s\n", e.pipeline_source);
    printf("         host->device %.1f GB/s pageable, %.1f GB/s pinned; device->host %.1f GB/s "
           "pageable, %.1f GB/s pinned\n",
           pl->h2d_pageable_gbs, pl->h2d_pinned_gbs, pl->d2h_pageable_gbs, pl->d2h_pinned_gbs);
    if (pl->pack_threads > 0) {
        printf("         pack threads: best %d (", pl->pack_threads);
        for (int i = 0; i < pl->npack; i++)
            printf("%s%d: %.1f GB/s", i ? ", " : "", pl->pack_gbs[i].x, pl->pack_gbs[i].value);
        printf(")\n");
    }
    if (pl->queues > 0) {
        printf("         queues: best %d (", pl->queues);
        for (int i = 0; i < pl->nqueue; i++)
            printf("%s%d: %.3f s", i ? ", " : "", pl->queue_seconds[i].x,
                   pl->queue_seconds[i].value);
        printf(")\n");
    }
}

static void print_cpumodel(const chg_device_t *dev, chg_precision_t prec)
{
    chg_tuning_entry_t e;
    chg_tuning_lookup(dev, prec, &e);
    const chg_tuning_cpumodel_t *c = &e.cpumodel;
    const char pc = prec == CHG_F64 ? 'd' : 's';
    if (!c->present) {
        printf("  cpu share model %c: none (clhgemm-tune --cpu-model measures it; auto uses the "
               "run-time rates)\n", pc);
        return;
    }
    printf("  cpu share model %c: from %s\n", pc, e.cpumodel_source);
    printf("         T_gpu = %.4g mnk + %.4g mn + %.4g s; T_cpu = %.4g mnk + %.4g mn + %.4g s "
           "(%d OpenBLAS threads, core %s)\n",
           c->split.gpu.k1, c->split.gpu.k2, c->split.gpu.k3, c->split.cpu.k1, c->split.cpu.k2,
           c->split.cpu.k3, c->cpu_threads, c->cpu_core[0] ? c->cpu_core : "?");
    printf("         transfers: h2d %.1f us + bytes / %.1f GB/s, d2h %.1f us + bytes / %.1f GB/s; "
           "gamma %.3f; mean prediction error %.1f%% over %d runs\n",
           c->split.h2d_ts * 1e6, c->split.h2d_tw > 0 ? 1e-9 / c->split.h2d_tw : 0,
           c->split.d2h_ts * 1e6, c->split.d2h_tw > 0 ? 1e-9 / c->split.d2h_tw : 0, c->split.gamma,
           100 * c->mean_rel_err, c->samples);
    if (c->check_n > 0)
        printf("         check at n=%d: model share %.3f (%.4f s predicted, %.4f s measured), "
               "guided search %.3f (%.4f s, %d runs)\n",
               c->check_n, c->model_share, c->model_pred_s, c->model_s, c->search_share,
               c->search_s, c->search_evals);
}

int main(int argc, char **argv)
{
    const char *spec = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--devices") && i + 1 < argc) {
            spec = argv[++i];
        } else if (!strncmp(argv[i], "--devices=", 10)) {
            spec = argv[i] + 10;
        } else {
            fprintf(stderr, "clhgemm-info: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 1;
        }
    }
    printf("clhgemm %s\n", clhgemm_version());
    {
        char blas[256];
        chg_cpu_describe(blas, sizeof blas);
        printf("host CPU: %d cores; %s; the CPU share's default: %d OpenBLAS threads\n", chg_cpu_cores(),
               blas, chg_cpu_share_threads_default());
    }
    print_databases();

    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(spec, NULL, 0, &count);
    if (st == CLHGEMM_NO_DEVICE) {
        printf("no OpenCL device\n");
        return 77;
    }
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm-info: %s: %s\n", clhgemm_status_string(st), clhgemm_status_message(st));
        return 1;
    }
    clhgemm_device_info_t *infos = calloc(count ? count : 1, sizeof *infos);
    if (!infos || clhgemm_devices_get(spec, infos, count, &count) != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm-info: device listing failed\n");
        free(infos);
        return 1;
    }
    for (size_t i = 0; i < count; i++) {
        chg_device_t dev;
        if (chg_device_query(infos[i].device, &dev) != CLHGEMM_SUCCESS) continue;
        const clhgemm_device_info_t *d = &dev.info;
        printf("\ndevice [%d] %s\n", d->index, d->name);
        printf("  vendor %s | platform %s | driver %s | %s\n", d->vendor, d->platform_name,
               d->driver_version, d->device_version);
        printf("  %s, %u compute units, %.1f GiB global (max alloc %.1f GiB), %llu KiB local, "
               "work-group <= %zu, fp64 %s",
               kind_name(d->kind), d->compute_units, d->global_mem_bytes / 1073741824.0,
               d->max_alloc_bytes / 1073741824.0, d->local_mem_bytes / 1024,
               d->max_work_group_size, d->has_fp64 ? "yes" : "no");
        if (d->nv_compute_capability) printf(", sm_%d", d->nv_compute_capability);
        printf("\n  features: %s\n", d->features[0] ? d->features : "(none)");
        printf("  tuning keys: architecture \"%s\", vendor \"%s\"\n", dev.arch_key, dev.vendor_key);
        print_precision(&dev, CHG_F32);
        if (dev.features & CHG_FEAT_FP64) print_precision(&dev, CHG_F64);
        else printf("  dgemm: not available (no fp64)\n");
        print_pipeline(&dev);
        print_cpumodel(&dev, CHG_F32);
        if (dev.features & CHG_FEAT_FP64) print_cpumodel(&dev, CHG_F64);
    }
    free(infos);
    return 0;
}
