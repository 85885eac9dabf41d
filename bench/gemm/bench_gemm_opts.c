/*
 * bench_gemm_opts.c -- clhgemm-bench-gemm's command line: the usage text, the parsing of every
 * option, the default square and rectangular shapes, the --shapes sweep and --scale. Apart from
 * the benchmark so that the options (which bench/gpu_record.sh and the smoke tests rely on)
 * are read in one place; the result is an opts_t (bench_gemm_priv.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm_priv.h"
#include "cli.h"

/* --shapes sweep: where ours stands against the competitors over the shapes
 * that matter besides large powers of two. Squares (non-powers of two included), rank-k updates
 * (large m = n, small k), large k with a small C, tall-skinny both ways, rectangles. */
static const shape_t sweep_shapes[] = {
    {256, 256, 256},     {512, 512, 512},     {1000, 1000, 1000},  {1024, 1024, 1024},
    {2000, 2000, 2000},  {2048, 2048, 2048},  {4096, 4096, 4096},  {5000, 5000, 5000},
    {8192, 8192, 8192},                                                   /* squares */
    {4096, 4096, 64},    {4096, 4096, 128},   {4096, 4096, 256},
    {8192, 8192, 128},   {8192, 8192, 256},                               /* rank-k updates */
    {1024, 1024, 8192},  {512, 512, 32768},                               /* large k, small C */
    {8192, 64, 8192},    {64, 8192, 8192},    {16384, 256, 16384},        /* tall-skinny */
    {2000, 3000, 1500},  {10000, 1000, 1000},                             /* rectangles */
};
#define N_SWEEP ((int)(sizeof sweep_shapes / sizeof sweep_shapes[0]))

static void usage(FILE *f)
{
    fprintf(f,
        "usage: clhgemm-bench-gemm [options]\n"
        "Device GEMM benchmark (matrices already on the device): clhgemm vs CLBlast in the same\n"
        "run, optionally cuBLAS and OpenBLAS. C := 1*op(A)*op(B) + beta*C (--beta, default 0.5) on random data in [-1,1].\n"
        "  --device SPEC        device selection as in clhgemm_devices_get (index, name substring,\n"
        "                       gpu/cpu); default: the first GPU, else the first device\n"
        "  --precision LIST     s, d, c, z in any combination (e.g. cz), or both (s,d), complex\n"
        "                       (c,z), all; default both (d, z are skipped without fp64)\n"
        "  --sizes N,N,...      square sizes (default 512,1024,2048,4096,8192; 'none' for none)\n"
        "  --shapes MxNxK,...   rectangular shapes run after the squares; 'default' for\n"
        "                       8192x8192x1024,1024x1024x8192,4096x16384x4096,2000x3000x1500,\n"
        "                       which also run when neither --sizes nor --shapes is given;\n"
        "                       'none' for none; 'sweep' for the fixed set of 21 shapes: squares\n"
        "                       256 ... 8192 (1000, 2000, 5000 among them), rank-k updates\n"
        "                       4096^2 x {64,128,256} and 8192^2 x {128,256}, large k\n"
        "                       (1024x1024x8192, 512x512x32768), tall-skinny (8192x64x8192,\n"
        "                       64x8192x8192, 16384x256x16384), 2000x3000x1500, 10000x1000x1000\n"
        "                       (with 'sweep' no square list runs unless --sizes is given). A shape\n"
        "                       that needs over half the device memory (or more than one\n"
        "                       allocation may hold) is skipped. The summary ends with lines\n"
        "                       'geomean ours/LIB p|all' (geometric mean of ours / LIB GFLOP/s)\n"
        "  --scale F            multiply every dimension (--sizes, --shapes, sweep) by F, rounded,\n"
        "                       at least 1; shapes that become duplicates are dropped (e.g. 0.0625\n"
        "                       runs the sweep quickly on a CPU device)\n"
        "  --png FILE           gnuplot bar chart (PNG) of ours / competitor per shape and precision\n"
        "                       (needs gnuplot on PATH, else 'gnuplot not found: no PNG')\n"
        "  --reps R             timed reps (default 10)       --warmup W  untimed reps (default 2)\n"
        "  --beta B             C := A B + B C (default 0.5; 0: C is never read)\n"
        "  --csv FILE           append result rows to FILE (header written when FILE is new/empty)\n"
        "  --layout col|row     default col                    --trans NN|NT|TN|TT  default NN\n"
        "  --no-clblast         skip CLBlast                   --no-cublas  skip cuBLAS\n"
        "  --openblas           add OpenBLAS on host copies (only for m,n,k <= 4096)\n"
        "  --openblas-all       OpenBLAS for every size\n"
        "  --profile            also report device time (OpenCL profiling, marker -> last event)\n"
        "  --parts              also time our call's building blocks apart on the same buffers\n"
        "                       (pack A, pack B, the GEMM kernel alone, write-back; column-major,\n"
        "                       device time, median of the reps; implies --profile; real\n"
        "                       precisions only: the parts use the real pack kernels)\n"
        "  --parts-bk BK        with --parts (implied): also time the kernel as the host pipeline\n"
        "                       runs a tile, one accumulating launch per k slice of BK, each\n"
        "                       slice packed into its own region (NN only)\n"
        "  --no-check           skip the correctness check before timing\n"
        "  --defaults           also time clhgemm with its built-in kernel parameters (the tuning\n"
        "                       database bypassed) in the same run, next to the tuned ones\n"
        "  --quick              sizes 512,1024,2048, no rectangular shapes, 3 reps, 1 warm-up\n"
        "  --list-devices       list the OpenCL devices and exit\n"
        "  -h, --help\n");
}

/* "512,1024" -> squares. */
static int parse_sizes(const char *s, shape_t *out, int *count)
{
    int v[MAX_SHAPES];
    const int n = cli_int_list(s, 1, 1 << 20, v, MAX_SHAPES);
    if (n < 0) return -1;
    for (int i = 0; i < n; i++) out[i].m = out[i].n = out[i].k = v[i];
    *count = n;
    return 0;
}

/* "8192x8192x1024,2000x3000x1500" (x, X or *) -> shapes; "none" or "" -> no shape. */
static int parse_shapes(const char *s, shape_t *out, int *count)
{
    int n = 0;
    const char *p = s;
    if (!strcmp(s, "none") || !*s) {
        *count = 0;
        return 0;
    }
    while (*p) {
        long v[3];
        for (int i = 0; i < 3; i++) {
            char *end;
            v[i] = strtol(p, &end, 10);
            if (end == p || v[i] <= 0 || v[i] > 1 << 20) return -1;
            p = end;
            if (i < 2) {
                if (*p != 'x' && *p != 'X' && *p != '*') return -1;
                p++;
            }
        }
        if (n >= MAX_SHAPES) return -1;
        out[n].m = (int)v[0];
        out[n].n = (int)v[1];
        out[n].k = (int)v[2];
        n++;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    *count = n;
    return 0;
}

/* --sizes, --shapes, --scale: 0 when a is one of them and its value is good, -1 after an error
 * message, 1 when a is none of them. */
static int parse_list_option(const char *a, const char *v, opts_t *o)
{
    if (!strcmp(a, "--sizes")) {
        if (!strcmp(v, "none")) {
            o->nsquares = 0;
        } else if (parse_sizes(v, o->squares, &o->nsquares)) {
            fprintf(stderr, "error: bad --sizes '%s' (want e.g. 512,1024)\n", v);
            return -1;
        }
        o->squares_set = 1;
    } else if (!strcmp(a, "--shapes")) {
        o->rects_default = !strcmp(v, "default");
        o->sweep = !strcmp(v, "sweep");
        if (o->sweep) {
            memcpy(o->rects, sweep_shapes, sizeof sweep_shapes);
            o->nrects = N_SWEEP;
        } else if (!o->rects_default && parse_shapes(v, o->rects, &o->nrects)) {
            fprintf(stderr, "error: bad --shapes '%s' (want e.g. 8192x8192x1024,2000x3000x1500)\n", v);
            return -1;
        }
        o->rects_set = 1;
    } else if (!strcmp(a, "--scale")) {
        char *end = NULL;
        o->scale = strtod(v, &end);
        if (!end || end == v || *end || !(o->scale > 0.0) || !(o->scale <= 64.0)) {
            fprintf(stderr, "error: bad --scale '%s' (want a factor in (0, 64])\n", v);
            return -1;
        }
    } else {
        return 1;
    }
    return 0;
}

/* An option with a value (a is its name, v the value): 0 when good, -1 after an error message. */
static int parse_valued_option(const char *a, const char *v, opts_t *o)
{
    if (!strcmp(a, "--device")) {
        o->device_spec = v;
    } else if (!strcmp(a, "--precision")) {
        /* a list of s, d, c, z (commas optional), or both (s, d), complex (c, z), all */
        int want[4] = {0, 0, 0, 0}, bad = !*v;
        if (!strcmp(v, "both")) want[0] = want[1] = 1;
        else if (!strcmp(v, "complex")) want[2] = want[3] = 1;
        else if (!strcmp(v, "all")) want[0] = want[1] = want[2] = want[3] = 1;
        else
            for (const char *q = v; *q; q++) {
                const char *at = strchr("sdcz", *q);
                if (at && *q) want[at - "sdcz"] = 1;
                else if (*q != ',') bad = 1;
            }
        if (bad) {
            fprintf(stderr,
                    "error: --precision takes a list of s, d, c, z, or both, complex, all\n");
            return -1;
        }
        o->do_s = want[0], o->do_d = want[1], o->do_c = want[2], o->do_z = want[3];
    } else if (!strcmp(a, "--png")) {
        o->png = v;
    } else if (!strcmp(a, "--beta")) {
        char *end = NULL;
        o->beta = strtod(v, &end);
        if (!end || end == v || *end) {
            fprintf(stderr, "error: bad --beta '%s'\n", v);
            return -1;
        }
    } else if (!strcmp(a, "--reps")) {
        if (cli_count(v, &o->reps) || o->reps < 1) {
            fprintf(stderr, "error: bad --reps '%s'\n", v);
            return -1;
        }
        o->reps_set = 1;
    } else if (!strcmp(a, "--warmup")) {
        if (cli_count(v, &o->warmup)) {
            fprintf(stderr, "error: bad --warmup '%s'\n", v);
            return -1;
        }
        o->warmup_set = 1;
    } else if (!strcmp(a, "--csv")) {
        o->csv = v;
    } else if (!strcmp(a, "--layout")) {
        if (!strcmp(v, "col")) o->row = 0;
        else if (!strcmp(v, "row")) o->row = 1;
        else {
            fprintf(stderr, "error: --layout takes col or row\n");
            return -1;
        }
    } else if (!strcmp(a, "--trans")) {
        if (strlen(v) != 2 || !strchr("NTnt", v[0]) || !strchr("NTnt", v[1])) {
            fprintf(stderr, "error: --trans takes NN, NT, TN or TT\n");
            return -1;
        }
        o->ta = toupper((unsigned char)v[0]) == 'T';
        o->tb = toupper((unsigned char)v[1]) == 'T';
    } else if (!strcmp(a, "--parts-bk")) {
        if (cli_count(v, &o->parts_bk) || o->parts_bk <= 0) {
            fprintf(stderr, "error: bad --parts-bk '%s' (want a positive k slice)\n", v);
            return -1;
        }
        o->parts = o->profile = 1;
    } else {
        return parse_list_option(a, v, o);
    }
    return 0;
}

/* An option without a value: 0 when known, 1 otherwise. */
static int parse_flag_option(const char *a, opts_t *o)
{
    if (!strcmp(a, "--no-clblast")) {
        o->clblast = 0;
    } else if (!strcmp(a, "--no-cublas")) {
        o->cublas = 0;
    } else if (!strcmp(a, "--openblas")) {
        o->openblas = 1;
    } else if (!strcmp(a, "--openblas-all")) {
        o->openblas = o->openblas_all = 1;
    } else if (!strcmp(a, "--profile")) {
        o->profile = 1;
    } else if (!strcmp(a, "--parts")) {
        o->parts = o->profile = 1;
    } else if (!strcmp(a, "--no-check")) {
        o->check = 0;
    } else if (!strcmp(a, "--defaults")) {
        o->defaults = 1;
    } else if (!strcmp(a, "--quick")) {
        o->quick = 1;
    } else if (!strcmp(a, "--list-devices")) {
        o->list = 1;
    } else {
        return 1;
    }
    return 0;
}

/* The square and rectangular lists when the command line gave none, and --quick's reps. */
static void apply_defaults(opts_t *o)
{
    if (!o->squares_set && o->sweep) {
        o->nsquares = 0; /* the sweep has its own squares */
    } else if (!o->squares_set) {
        static const int def[] = {512, 1024, 2048, 4096, 8192};
        int nd = o->quick ? 3 : 5;
        for (int i = 0; i < nd; i++) o->squares[i].m = o->squares[i].n = o->squares[i].k = def[i];
        o->nsquares = nd;
    }
    /* The rectangular defaults come with the default square list only: "--sizes 4096" means
     * just 4096 (add --shapes default to keep them). */
    if (o->rects_default || (!o->rects_set && !o->squares_set && !o->quick)) {
        static const shape_t def[] = {
            {8192, 8192, 1024}, {1024, 1024, 8192}, {4096, 16384, 4096}, {2000, 3000, 1500}};
        memcpy(o->rects, def, sizeof def);
        o->nrects = 4;
    }
}

/* --scale: every dimension scaled, then the shapes that became equal to an earlier one (squares
 * first, then the shapes) dropped so that no shape counts twice in the geometric means. */
static void apply_scale(opts_t *o)
{
    shape_t *lists[2] = {o->squares, o->rects};
    int *counts[2] = {&o->nsquares, &o->nrects};
    for (int l = 0; l < 2; l++) {
        int kept = 0;
        for (int i = 0; i < *counts[l]; i++) {
            shape_t x = lists[l][i];
            int *d[3] = {&x.m, &x.n, &x.k};
            for (int j = 0; j < 3; j++) {
                double v = nearbyint((double)*d[j] * o->scale);
                *d[j] = v < 1.0 ? 1 : v > (double)(1 << 24) ? 1 << 24 : (int)v;
            }
            int dup = 0;
            for (int ll = 0; ll <= l && !dup; ll++)
                for (int j = 0; j < (ll == l ? kept : *counts[ll]) && !dup; j++)
                    dup = lists[ll][j].m == x.m && lists[ll][j].n == x.n && lists[ll][j].k == x.k;
            if (dup) o->ndropped++;
            else lists[l][kept++] = x;
        }
        *counts[l] = kept;
    }
}

int bg_parse_args(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->do_s = o->do_d = 1;
    o->reps = 10;
    o->warmup = 2;
    o->clblast = o->cublas = o->check = 1;
    o->beta = 0.5;
    o->scale = 1.0;
    static const char *const with_value[] = {"--device", "--precision", "--sizes", "--shapes",
                                             "--reps", "--warmup", "--csv", "--layout",
                                             "--trans", "--beta", "--parts-bk", "--scale",
                                             "--png", NULL};
    for (int i = 1; i < argc; i++) {
        const char *a, *v;
        if (cli_take_value(argc, argv, &i, with_value, "error", &a, &v)) return -1;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        /* every name of with_value[] is known to parse_valued_option */
        const int rc = v ? parse_valued_option(a, v, o) : parse_flag_option(a, o);
        if (rc < 0) return -1;
        if (rc > 0) {
            fprintf(stderr, "error: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return -1;
        }
    }
    apply_defaults(o);
    if (o->scale != 1.0) apply_scale(o);
    if (o->quick && !o->reps_set) o->reps = 3;
    if (o->quick && !o->warmup_set) o->warmup = 1;
    return 0;
}
