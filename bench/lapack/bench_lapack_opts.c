/*
 * bench_lapack_opts.c -- clhgemm-bench-lapack's command line: the usage text, the defaults and
 * the parsing into bl_opts_t, and the routine and column names the options and the output
 * share. Apart from the runs so that every option is spelled in one place.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lapack_int.h"

const char *const bl_rname[NR] = {"potrf", "getrf", "geqrf"};
const char *const bl_cname[NC] = {"ours_host", "ours_dev", "openblas", "cusolver_res",
                                  "cusolver_copies", "ours_limit", "ours_1dev"};
const char *const bl_ctitle[NC] = {"ours-host", "ours-dev", "OpenBLAS", "cuS-res", "cuS-copy",
                                   "ours-lim", "ours-1dev"};
/* ours on a handle first (the host column, then its two variants), then the rest */
const int bl_col_order[NC] = {C_HOST, C_LIM, C_ONE, C_DEV, C_OB, C_CUS_RES, C_CUS_CP};

static void usage(FILE *f)
{
    fprintf(f,
        "usage: clhgemm-bench-lapack [options]\n"
        "Cholesky, LU and QR of square matrices: ours on host memory (a handle) and on a device\n"
        "buffer, OpenBLAS's LAPACK and cuSOLVER (where built with CUDA: device-resident, and with\n"
        "the copies from and to pageable host memory), each result checked.\n"
        "  --routines LIST       subset of potrf,getrf,geqrf (default all)\n"
        "  --prec s|d|both       precisions (default both; d skipped without fp64)\n"
        "  --sizes N,N,...       orders (default 1024,2048,4096,8192,16384,20000,30000,40000 on a\n"
        "                        GPU, 256,512,1024 on a CPU device)\n"
        "  --layout col|row      ours' layout (default col; the competitors factor the same\n"
        "                        matrix in column-major order)\n"
        "  --uplo L|U            potrf's triangle (default L)\n"
        "  --reps R              timed calls after the warm-up (default 3); the median\n"
        "  --warmup W            untimed calls before them (default 1; 0 for a size whose call\n"
        "                        takes minutes: the first call then includes the kernel builds\n"
        "                        and pinned staging)\n"
        "  --no-openblas-above N OpenBLAS only up to order N (default 16384)\n"
        "  --no-openblas  --no-cusolver  --no-host  --no-device   leave a column out\n"
        "  --device SPEC         the device of the device-buffer column (index, name, gpu/cpu;\n"
        "                        default: CLHGEMM_DEVICES' first, else the first GPU, else the\n"
        "                        first)\n"
        "  --memory-limit SIZE   ours on host memory once more, on a handle whose device memory\n"
        "                        limit is SIZE per device (the library's syntax: digits with\n"
        "                        K, M or G, as CLHGEMM_DEVICE_MEMORY_LIMIT; that handle's\n"
        "                        option, the other columns keep theirs): columns ours-lim, its\n"
        "                        ooc, and lim/host, its rate over the in-core host column's\n"
        "                        (--no-host leaves the limit column alone)\n"
        "  --one-device          ours on host memory once more, on a handle of the handle's first\n"
        "                        device alone: columns ours-1dev and host/1dev, all devices' rate\n"
        "                        over the first's (skipped, with a line, where there is one)\n"
        "  --csv FILE            a line per routine, precision and size\n"
        "  --png FILE            GFLOP/s against n (gnuplot)\n"
        "  --trace FILE          one more host call of ours at the largest size, traced into FILE\n"
        "                        (CLHGEMM_TRACE; FILE-<p><routine>.json per routine and precision\n"
        "                        when several run)\n"
        "  -h, --help\n"
        "Columns of ours on a handle: devs, the devices its calls spread over (the handle's\n"
        "devices; cpu where the library's call record says the route gave the call to the CPU\n"
        "LAPACK, cpu? where a cpu record from an earlier size was not overwritten: the record\n"
        "is written by a call on the CPU only); ooc, yes where the matrix's n^2 elements exceed\n"
        "the devices' room for it -- the sum over the handle's devices of its memory limit\n"
        "(SIZE, else CLHGEMM_DEVICE_MEMORY_LIMIT, else 80%% of the device's memory; at most the\n"
        "memory) less the GEMM workspace the factorization driver keeps (CLHGEMM_WORKSPACE_LIMIT,\n"
        "else a quarter of the device's memory; at most a quarter of the limit) -- so that the\n"
        "call cannot run in core: the driver runs it out of core; yes? the same where the room\n"
        "holds fewer than 10 block columns (n x nb, nb CLHGEMM_FACTOR_NB, else 512) a device:\n"
        "where not even two fit beside the driver's buffers the call runs on the CPU LAPACK\n"
        "instead; no where the matrix and 8 block columns a device (the driver's panel and\n"
        "staging buffers) fit the room: in core; near where only the matrix fits: either.\n"
        "An estimate from the sizes, not the driver's decision: CLHGEMM_VERBOSE=1 prints that\n"
        "('in core' or 'out of core', or 'does not fit the devices' for the CPU LAPACK).\n"
        "A matrix whose two host copies (the input kept and the work copy) do not fit the host's\n"
        "memory runs with one: each call's input is generated afresh (untimed), and cuSOLVER's\n"
        "columns, which need both, are skipped.\n");
}

static int parse_sizes(const char *s, bl_opts_t *o)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || v > BL_MAX_N || n >= BL_MAX_SIZES) return -1;
        o->sizes[n++] = (int)v;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    o->nsizes = n;
    return n ? 0 : -1;
}

static int parse_routines(const char *s, bl_opts_t *o)
{
    memset(o->routine, 0, sizeof o->routine);
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    int any = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int r = 0;
        while (r < NR && strcmp(t, bl_rname[r])) r++;
        if (r == NR) return -1;
        o->routine[r] = any = 1;
    }
    return any ? 0 : -1;
}

void bl_default_sizes(bl_opts_t *o, int gpu)
{
    static const int big[] = {1024, 2048, 4096, 8192, 16384, 20000, 30000, 40000};
    static const int small[] = {256, 512, 1024};
    const int *s = gpu ? big : small;
    o->nsizes = gpu ? (int)(sizeof big / sizeof *big) : (int)(sizeof small / sizeof *small);
    memcpy(o->sizes, s, (size_t)o->nsizes * sizeof *s);
}

int bl_parse_size(const char *s, unsigned long long *out)
{
    if (!s || *s < '0' || *s > '9') return 0;
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10;
    else if (*end == 'M' || *end == 'm') shift = 20;
    else if (*end == 'G' || *end == 'g') shift = 30;
    if (shift) end++;
    if (*end || errno == ERANGE || v == 0 || v > (~0ULL >> shift)) return 0;
    *out = v << shift;
    return 1;
}

/* The value of option i (and i advanced), or NULL when it is missing. */
static const char *value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s needs a value\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

/* 0, 1 (help printed) or -1 (an error printed). */
static int one_option(int argc, char **argv, int *i, bl_opts_t *o)
{
    const char *a = argv[*i], *v;
#define VAL() if (!(v = value(argc, argv, i))) return -1
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        usage(stdout);
        return 1;
    } else if (!strcmp(a, "--routines")) {
        VAL();
        if (parse_routines(v, o)) return fprintf(stderr, "bad --routines %s\n", v), -1;
    } else if (!strcmp(a, "--prec") || !strcmp(a, "--precision")) {
        VAL();
        o->do_s = !strcmp(v, "s") || !strcmp(v, "both") || !strcmp(v, "s,d");
        o->do_d = !strcmp(v, "d") || !strcmp(v, "both") || !strcmp(v, "s,d");
        if (!o->do_s && !o->do_d) return fprintf(stderr, "bad --prec %s\n", v), -1;
    } else if (!strcmp(a, "--sizes")) {
        VAL();
        if (parse_sizes(v, o)) return fprintf(stderr, "bad --sizes %s\n", v), -1;
    } else if (!strcmp(a, "--layout")) {
        VAL();
        if (strcmp(v, "col") && strcmp(v, "row")) return fprintf(stderr, "bad --layout\n"), -1;
        o->row = !strcmp(v, "row");
    } else if (!strcmp(a, "--uplo")) {
        VAL();
        if (strcmp(v, "L") && strcmp(v, "U")) return fprintf(stderr, "bad --uplo\n"), -1;
        o->upper = !strcmp(v, "U");
    } else if (!strcmp(a, "--reps")) {
        VAL();
        o->reps = atoi(v);
        if (o->reps < 1) return fprintf(stderr, "bad --reps %s\n", v), -1;
    } else if (!strcmp(a, "--warmup")) {
        VAL();
        o->warmup = atoi(v);
        if (o->warmup < 0 || (o->warmup == 0 && strcmp(v, "0")))
            return fprintf(stderr, "bad --warmup %s\n", v), -1;
    } else if (!strcmp(a, "--memory-limit")) {
        VAL();
        if (!bl_parse_size(v, &o->mem_limit))
            return fprintf(stderr, "bad --memory-limit %s (digits with K, M or G)\n", v), -1;
        o->mem_limit_arg = v;
    } else if (!strcmp(a, "--one-device")) o->one_device = 1;
    else if (!strcmp(a, "--no-openblas-above")) {
        VAL();
        o->ob_max = atoi(v);
    } else if (!strcmp(a, "--no-openblas")) o->openblas = 0;
    else if (!strcmp(a, "--no-cusolver")) o->cusolver = 0;
    else if (!strcmp(a, "--no-host")) o->no_host = 1;
    else if (!strcmp(a, "--no-device")) o->no_dev = 1;
    else if (!strcmp(a, "--device")) {
        VAL();
        o->device_spec = v;
    } else if (!strcmp(a, "--csv")) {
        VAL();
        o->csv = v;
    } else if (!strcmp(a, "--png")) {
        VAL();
        o->png = v;
    } else if (!strcmp(a, "--trace")) {
        VAL();
        o->trace = v;
    } else {
        fprintf(stderr, "unknown option %s\n", a);
        usage(stderr);
        return -1;
    }
#undef VAL
    return 0;
}

/* 0 to run, 1 after --help, -1 on a bad command line. Sizes stay 0 where not given: the
 * default depends on the device (bl_default_sizes). */
int bl_parse_args(int argc, char **argv, bl_opts_t *o)
{
    memset(o, 0, sizeof *o);
    for (int r = 0; r < NR; r++) o->routine[r] = 1;
    o->do_s = o->do_d = 1;
    o->reps = 3;
    o->warmup = 1;
    o->openblas = o->cusolver = 1;
    o->ob_max = 16384;
    for (int i = 1; i < argc; i++) {
        const int rc = one_option(argc, argv, &i, o);
        if (rc) return rc;
    }
    return 0;
}
