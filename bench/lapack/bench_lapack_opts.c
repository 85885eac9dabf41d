/*
 * bench_lapack_opts.c -- clhgemm-bench-lapack's command line: the usage text, the defaults and
 * the parsing into bl_opts_t, and the routine and column names the options and the output
 * share. Apart from the runs so that every option is spelled in one place.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lapack_int.h"

const char *const bl_rname[NR] = {"potrf", "getrf", "geqrf"};
const char *const bl_cname[NC] = {"ours_host", "ours_dev", "openblas", "cusolver_res",
                                  "cusolver_copies"};
const char *const bl_ctitle[NC] = {"ours-host", "ours-dev", "OpenBLAS", "cuS-res", "cuS-copy"};

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
        "  --reps R              timed calls after one warm-up call (default 3); the median\n"
        "  --no-openblas-above N OpenBLAS only up to order N (default 16384)\n"
        "  --no-openblas  --no-cusolver  --no-host  --no-device   leave a column out\n"
        "  --device SPEC         the device of the device-buffer column (index, name, gpu/cpu;\n"
        "                        default: CLHGEMM_DEVICES' first, else the first GPU, else the\n"
        "                        first)\n"
        "  --csv FILE            a line per routine, precision and size\n"
        "  --png FILE            GFLOP/s against n (gnuplot)\n"
        "  --trace FILE          one more host call of ours at the largest size, traced into FILE\n"
        "                        (CLHGEMM_TRACE; FILE-<p><routine>.json per routine and precision\n"
        "                        when several run)\n"
        "  -h, --help\n");
}

static int parse_sizes(const char *s, bl_opts_t *o)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || v > 46340 || n >= BL_MAX_SIZES) return -1; /* n^2 fits int */
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
    } else if (!strcmp(a, "--no-openblas-above")) {
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
    o->openblas = o->cusolver = 1;
    o->ob_max = 16384;
    for (int i = 1; i < argc; i++) {
        const int rc = one_option(argc, argv, &i, o);
        if (rc) return rc;
    }
    return 0;
}
