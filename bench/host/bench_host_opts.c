/*
 * bench_host_opts.c -- clhgemm-bench-host's command line: the usage text, and the options read
 * into opts_t (host_common.h: the sweep reads the same struct) with the defaults each mode
 * implies. Apart from the runs so that the options, which docs/PERFORMANCE.md and
 * bench/gpu_record.sh name, are read and checked in one place.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_host_priv.h"
#include "cli.h"

void bh_usage(FILE *f)
{
    fprintf(
        f,
        "usage: clhgemm-bench-host [options]\n"
        "  --sizes N,N,...      square sizes (default 4096,8192,16384,32768)\n"
        "  --precision s|d|both (default both)\n"
        "  --reps R             timed calls per measurement, median reported (default 3)\n"
        "  --warmup W           untimed calls before them (default 1; ours: up to 3 more while\n"
        "                       the plan changes from one call to the next)\n"
        "  --layout col|row     (default col)\n"
        "  --trans XY           op(A), op(B): NN, NT, TN or TT (default NN)\n"
        "  --csv FILE           append one row per size and precision\n"
        "  --xt-devices N       CUDA devices for cublasXt (default 1)\n"
        "  --xt-block B         also measure cublasXt with block dimension B\n"
        "  --xt-reps R, --xt-warmup W   for cublasXt only (default: --reps, --warmup; it is\n"
        "                       slow from pageable memory: ~1 min per call at n=32768 d)\n"
        "  --no-ours --no-device-only --no-naive --no-xt --no-check   skip a column / the check\n"
        "  --oversize           one double problem larger than the device (A, B, C together\n"
        "                       above its memory): implies --reps 1 --warmup 0 --no-device-only\n"
        "                       --no-naive --no-xt unless those are given\n"
        "  --one-device         also time ours on a handle restricted to the first device and\n"
        "                       print the scaling of all devices over one (same arrays, same run)\n"
        "  --threads T          threads that fill and check the matrices (default: all cores)\n"
        "  --cpu-share          the CPU-share comparison instead: GPU-only, auto (slab and strips),\n"
        "                       a forced fraction (--cpu-fraction F, slab and strips) and OpenBLAS\n"
        "                       alone on a slab of --cpu-slab R rows (default 512); --cpu-csv FILE\n"
        "                       appends a line per case\n"
        "  --sweep              the size sweep instead: n = 64 ... 16384 (powers of 2; --sizes\n"
        "                       replaces them), both precisions (or --precision), beta 0 and 0.5,\n"
        "                       pageable memory; per case ours (median of --reps, default 5, after\n"
        "                       --warmup; small n: samples of >= 20 ms of calls, per-call time),\n"
        "                       OpenBLAS alone (same data, all its threads), the device-only rate\n"
        "                       (clhgemm_?gemm_cl, data on the device), ours on a handle created\n"
        "                       with CLHGEMM_ROUTE=device, the host bound flops / max(device-only\n"
        "                       time, (A + B + (beta != 0) C) bytes / the pinned host->device rate\n"
        "                       measured in the run), the ratios and the route the call took; each\n"
        "                       result checked against OpenBLAS (FAILED and exit 1 when off);\n"
        "                       --csv FILE (rewritten) and --png FILE (gnuplot); --no-device-only,\n"
        "                       --no-check, --no-xt apply; a cublasXt column where CUDA exists\n"
        "  --scale F            --sweep: sizes times F (e.g. 0.125 for a CPU device); the bus is\n"
        "                       measured on 256 MiB times F (F < 1), at least 1 MiB\n"
        "  --max-n N            --sweep: leave out sizes above N (after --scale)\n"
        "  --png FILE           --sweep: GFLOP/s against n (log x), ours, OpenBLAS, device-only\n"
        "                       and the bound per precision, a panel per beta (needs gnuplot)\n"
        "Environment: CLHGEMM_DEVICES, CLHGEMM_DEVICE_MEMORY_LIMIT, CLHGEMM_QUEUES,\n"
        "CLHGEMM_CPU_THREADS, CLHGEMM_CPU_SHARE_THREADS, CLHGEMM_TRACE, CLHGEMM_VERBOSE apply to the\n"
        "handle (--cpu-share sets the share and CLHGEMM_CPU_SCHED per case).\n");
}

/* A number in (lo, hi) or (lo, hi] (hi_open); the message names the option otherwise. */
static int parse_double(const char *v, double lo, double hi, int hi_open, double *out,
                        const char *msg)
{
    char *end = NULL;
    *out = strtod(v, &end);
    if (!end || *end || !(*out > lo && (hi_open ? *out < hi : *out <= hi))) {
        fprintf(stderr, "%s\n", msg);
        return -1;
    }
    return 0;
}

/* The parsers of the options that take a value return 0 when a took v, -1 when v (or its
 * absence) is bad, 1 when a is not theirs. */
#define NEED_VALUE()                                                                               \
    do {                                                                                           \
        if (!v) {                                                                                  \
            fprintf(stderr, "%s needs a value\n", a);                                              \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

static int parse_sizes(const char *v, opts_t *o)
{
    o->nsizes = 0;
    o->sizes_given = 1;
    char *copy = strdup(v), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int n;
        if (o->nsizes >= MAX_SIZES || cli_count(t, &n) || n < 1) {
            fprintf(stderr, "bad --sizes entry '%s'\n", t);
            free(copy);
            return -1;
        }
        o->sizes[o->nsizes++] = n;
    }
    free(copy);
    return o->nsizes ? 0 : -1;
}

static int parse_trans(const char *v, opts_t *o)
{
    if (strlen(v) != 2) return -1;
    clhgemm_transpose_t t[2];
    for (int j = 0; j < 2; j++) {
        char ch = v[j] | 0x20;
        if (ch == 'n')
            t[j] = CLHGEMM_NO_TRANS;
        else if (ch == 't' || ch == 'c')
            t[j] = CLHGEMM_TRANS;
        else {
            fprintf(stderr, "--trans: NN, NT, TN or TT\n");
            return -1;
        }
    }
    o->ta = t[0];
    o->tb = t[1];
    return 0;
}

/* What is multiplied and how often: sizes, precision, repetitions, layout, transposes. */
static int parse_problem_opt(const char *a, const char *v, opts_t *o)
{
    if (!strcmp(a, "--sizes")) {
        NEED_VALUE();
        return parse_sizes(v, o);
    } else if (!strcmp(a, "--precision")) {
        NEED_VALUE();
        o->prec_given = 1;
        o->do_s = !strcmp(v, "s") || !strcmp(v, "both");
        o->do_d = !strcmp(v, "d") || !strcmp(v, "both");
        if (!o->do_s && !o->do_d) {
            fprintf(stderr, "--precision: s, d or both\n");
            return -1;
        }
    } else if (!strcmp(a, "--reps")) {
        NEED_VALUE();
        if (cli_count(v, &o->reps) || o->reps < 1) return -1;
        o->reps_given = 1;
    } else if (!strcmp(a, "--warmup")) {
        NEED_VALUE();
        if (cli_count(v, &o->warmup)) return -1;
        o->warmup_given = 1;
    } else if (!strcmp(a, "--layout")) {
        NEED_VALUE();
        if (!strcmp(v, "col"))
            o->layout = CLHGEMM_COL_MAJOR;
        else if (!strcmp(v, "row"))
            o->layout = CLHGEMM_ROW_MAJOR;
        else {
            fprintf(stderr, "--layout: col or row\n");
            return -1;
        }
    } else if (!strcmp(a, "--trans")) {
        NEED_VALUE();
        return parse_trans(v, o);
    } else if (!strcmp(a, "--threads")) {
        NEED_VALUE();
        if (cli_count(v, &o->threads) || o->threads < 1) return -1;
    } else {
        return 1;
    }
    return 0;
}

/* The other columns' and modes' values: cublasXt, --cpu-share, --sweep, the output files. */
static int parse_mode_opt(const char *a, const char *v, opts_t *o)
{
    if (!strcmp(a, "--csv")) {
        NEED_VALUE();
        o->csv = v;
    } else if (!strcmp(a, "--xt-devices")) {
        NEED_VALUE();
        if (cli_count(v, &o->xt_devices) || o->xt_devices < 1) return -1;
    } else if (!strcmp(a, "--xt-block")) {
        NEED_VALUE();
        if (cli_count(v, &o->xt_block) || o->xt_block < 1) return -1;
    } else if (!strcmp(a, "--xt-reps")) {
        NEED_VALUE();
        if (cli_count(v, &o->xt_reps) || o->xt_reps < 1) return -1;
    } else if (!strcmp(a, "--xt-warmup")) {
        NEED_VALUE();
        if (cli_count(v, &o->xt_warmup)) return -1;
    } else if (!strcmp(a, "--cpu-fraction")) {
        NEED_VALUE();
        return parse_double(v, 0, 1, 1, &o->cpu_fraction, "--cpu-fraction: a number in (0, 1)");
    } else if (!strcmp(a, "--cpu-slab")) {
        NEED_VALUE();
        if (cli_count(v, &o->cpu_slab) || o->cpu_slab < 1) return -1;
    } else if (!strcmp(a, "--cpu-csv")) {
        NEED_VALUE();
        o->cpu_csv = v;
    } else if (!strcmp(a, "--scale")) {
        NEED_VALUE();
        return parse_double(v, 0, 64, 0, &o->scale, "--scale: a number in (0, 64]");
    } else if (!strcmp(a, "--max-n")) {
        NEED_VALUE();
        if (cli_count(v, &o->max_n) || o->max_n < 1) return -1;
    } else if (!strcmp(a, "--png")) {
        NEED_VALUE();
        o->png = v;
    } else {
        return 1;
    }
    return 0;
}

#undef NEED_VALUE

/* The options without a value: 1 when a is one of them. */
static int parse_flag(const char *a, opts_t *o)
{
    if (!strcmp(a, "--no-ours"))
        o->no_ours = 1;
    else if (!strcmp(a, "--no-device-only"))
        o->no_devonly = 1;
    else if (!strcmp(a, "--no-naive"))
        o->no_naive = 1;
    else if (!strcmp(a, "--no-xt"))
        o->no_xt = 1;
    else if (!strcmp(a, "--no-check"))
        o->no_check = 1;
    else if (!strcmp(a, "--oversize"))
        o->oversize = 1;
    else if (!strcmp(a, "--one-device"))
        o->one_device = 1;
    else if (!strcmp(a, "--cpu-share"))
        o->cpu_share = 1;
    else if (!strcmp(a, "--sweep"))
        o->sweep = 1;
    else
        return 0;
    return 1;
}

static void set_defaults(opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->do_s = o->do_d = 1;
    o->reps = 3;
    o->warmup = 1;
    o->layout = CLHGEMM_COL_MAJOR;
    o->ta = o->tb = CLHGEMM_NO_TRANS;
    o->xt_devices = 1;
    o->xt_reps = o->xt_warmup = -1;
    o->cpu_fraction = -1;
    o->cpu_slab = 512;
    o->scale = 1.0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cores > 0 ? (int)(cores > 128 ? 128 : cores) : 1;
}

/* What the mode implies once every option is read: the sweep's sizes and repetitions,
 * --oversize's single double problem, the default sizes. */
static int finish_args(opts_t *o)
{
    if (o->sweep && (o->oversize || o->cpu_share)) {
        fprintf(stderr, "--sweep does not combine with --oversize or --cpu-share\n");
        return -1;
    }
    if (!o->sweep && (o->scale != 1.0 || o->max_n || o->png)) {
        fprintf(stderr, "--scale, --max-n and --png belong to --sweep\n");
        return -1;
    }
    if (o->sweep) {
        if (!o->reps_given) o->reps = 5;
        if (!o->sizes_given) {
            static const int def[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
            o->nsizes = 9;
            memcpy(o->sizes, def, sizeof def);
        }
        return 0;
    }
    if (o->oversize) {
        if (!o->prec_given) o->do_s = 0;
        if (!o->reps_given) o->reps = 1;
        if (!o->warmup_given) o->warmup = 0;
        o->no_devonly = o->no_naive = o->no_xt = 1;
    }
    if (!o->sizes_given && !o->oversize) {
        static const int def[] = {4096, 8192, 16384, 32768};
        o->nsizes = 4;
        memcpy(o->sizes, def, sizeof def);
    }
    return 0;
}

/* 0 with o filled in; -1 (after a message where the option has one) on a bad command line;
 * --help prints the usage and exits. */
int bh_parse_args(int argc, char **argv, opts_t *o)
{
    set_defaults(o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            bh_usage(stdout);
            exit(0);
        }
        if (parse_flag(a, o)) continue;
        int rc = parse_problem_opt(a, v, o);
        if (rc > 0) rc = parse_mode_opt(a, v, o);
        if (rc < 0) return -1;
        if (rc > 0) {
            fprintf(stderr, "unknown option %s\n", a);
            return -1;
        }
        i++; /* the value */
    }
    return finish_args(o);
}
