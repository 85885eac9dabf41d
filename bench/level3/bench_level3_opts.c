/*
 * bench_level3_opts.c -- clhgemm-bench-level3's command line: the usage text, the defaults and
 * the parsing into opts_t, and the routine and library names the options and the output share.
 * Apart from the runs so that every option is spelled in one place.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_level3_int.h"
#include "cli.h"

const char *const rname[NR] = {"symm", "syrk", "syr2k", "trmm", "trsm", "hemm", "herk", "her2k"};
const char *const lname[NL] = {"clhgemm", "clhgemm-alt", "clblast", "clhgemm-gemm", "cublasxt",
                               "cublas", "cublas-gemm"};

static void usage(FILE *f)
{
    fprintf(f,
        "usage: clhgemm-bench-level3 [options]\n"
        "SYMM, SYRK, SYR2K, TRMM, TRSM of clhgemm (device buffers) next to our GEMM of the same\n"
        "size and CLBlast's same routine, in the same run; in complex precisions also HEMM, HERK,\n"
        "HER2K. alpha 1, beta 0.5, random data in [-1,1] (TRSM's A diagonally dominant: diagonal\n"
        "4..8 in magnitude, off-diagonal in [-1,1]/N). TRSM also next to cuBLAS's TRSM and GEMM\n"
        "of the same size (where built with CUDA).\n"
        "  --device SPEC        device (index, name substring, gpu/cpu); default: first GPU, else first\n"
        "  --precision LIST     s, d, c, z in any combination (e.g. cz), or both (s,d), complex\n"
        "                       (c,z), all; default both (d, z skipped without fp64)\n"
        "  --sizes N,N,...      square sizes: SYMM/TRMM/TRSM m = n = N, SYRK/SYR2K n = k = N\n"
        "                       (default 1024,2048,4096,8192)\n"
        "  --routines LIST      subset of symm,syrk,syr2k,trmm,trsm,hemm,herk,her2k (default all;\n"
        "                       hemm, herk, her2k run in the complex precisions only)\n"
        "  --side L|R  --uplo U|L  --trans N|T  --diag N|U  --layout col|row\n"
        "                       (defaults L, U, N, N, col; trans is SYRK/SYR2K's trans and\n"
        "                       TRMM/TRSM's transA; HERK/HER2K take it as the conjugate\n"
        "                       transpose)\n"
        "  --syr2k lib|fused|two|both  SYR2K mode through CLHGEMM_SYR2K: lib = the library's default,\n"
        "                       both = fused as 'ours' and two-pass as 'ours-alt' (default both)\n"
        "  --reps R             timed reps (default 10)   --warmup W  untimed reps (default 2)\n"
        "  --csv FILE           append rows to FILE (header when new)\n"
        "  --no-clblast         skip CLBlast               --no-check  skip the result checks\n"
        "  --no-cublas          skip cuBLAS's TRSM and GEMM of TRSM rows (never run with --host;\n"
        "                       n/a where built without CUDA or with no CUDA device)\n"
        "  --host               the host-memory routines (clhgemm_{s,d}symm ... on a handle) next to\n"
        "                       the host-memory GEMM of the same size (no CLBlast column)\n"
        "  --devices SPEC       the handle's devices with --host (default: the library's choice)\n"
        "  --xt-devices N       CUDA devices of the cublasXt TRSM column with --host (default 1)\n"
        "  --no-xt              skip that column (it reads n/a without CUDA)\n"
        "  -h, --help\n");
}

#define BAD(...) do { fprintf(stderr, "error: " __VA_ARGS__); fputc('\n', stderr); return -1; } while (0)

/* The options that choose among letters or words: 0 taken, -1 a bad value, 1 not one of them. */
static int parse_choice(opts_t *o, const char *a, const char *v)
{
    if (!strcmp(a, "--precision")) {
        /* a list of s, d, c, z (commas optional), or both (s, d), complex (c, z), all */
        int want[4] = {0, 0, 0, 0}, bad = !*v;
        if (!strcmp(v, "both")) want[0] = want[1] = 1;
        else if (!strcmp(v, "complex")) want[2] = want[3] = 1;
        else if (!strcmp(v, "all")) want[0] = want[1] = want[2] = want[3] = 1;
        else
            for (const char *q = v; *q; q++) {
                const char *at = strchr("sdcz", *q);
                if (at) want[at - "sdcz"] = 1;
                else if (*q != ',') bad = 1;
            }
        if (bad) BAD("--precision takes a list of s, d, c, z, or both, complex, all");
        o->do_s = want[0], o->do_d = want[1], o->do_c = want[2], o->do_z = want[3];
    } else if (!strcmp(a, "--side")) {
        if (strcmp(v, "L") && strcmp(v, "R")) BAD("--side takes L or R");
        o->right = v[0] == 'R';
    } else if (!strcmp(a, "--uplo")) {
        if (strcmp(v, "U") && strcmp(v, "L")) BAD("--uplo takes U or L");
        o->lower = v[0] == 'L';
    } else if (!strcmp(a, "--trans")) {
        if (strcmp(v, "N") && strcmp(v, "T")) BAD("--trans takes N or T");
        o->trans = v[0] == 'T';
    } else if (!strcmp(a, "--diag")) {
        if (strcmp(v, "N") && strcmp(v, "U")) BAD("--diag takes N or U");
        o->unit = v[0] == 'U';
    } else if (!strcmp(a, "--layout")) {
        if (strcmp(v, "col") && strcmp(v, "row")) BAD("--layout takes col or row");
        o->row = v[0] == 'r';
    } else if (!strcmp(a, "--syr2k")) {
        if (strcmp(v, "lib") && strcmp(v, "fused") && strcmp(v, "two") && strcmp(v, "both"))
            BAD("--syr2k takes lib, fused, two or both");
        o->syr2k = strcmp(v, "lib") ? v : NULL;
    } else {
        return 1;
    }
    return 0;
}

/* The options with a name, a list or a number: 0 taken, -1 a bad value, 1 not one of them. */
static int parse_value(opts_t *o, const char *a, const char *v)
{
    char *end;
    if (!strcmp(a, "--device")) {
        o->device_spec = v;
    } else if (!strcmp(a, "--sizes")) {
        o->nsizes = cli_int_list(v, 1, 1 << 20, o->sizes, MAX_SIZES);
        if (o->nsizes <= 0) BAD("bad --sizes '%s'", v);
    } else if (!strcmp(a, "--routines")) {
        for (int r = 0; r < NR; r++) o->routine[r] = 0;
        char buf[128];
        snprintf(buf, sizeof buf, "%s", v);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            int found = 0;
            for (int r = 0; r < NR; r++)
                if (!strcmp(tok, rname[r])) o->routine[r] = found = 1;
            if (!found)
                BAD("unknown routine '%s' (symm, syrk, syr2k, trmm, trsm, hemm, herk, her2k)", tok);
        }
    } else if (!strcmp(a, "--reps")) {
        o->reps = (int)strtol(v, &end, 10);
        if (*end || o->reps < 1) BAD("bad --reps '%s'", v);
    } else if (!strcmp(a, "--warmup")) {
        o->warmup = (int)strtol(v, &end, 10);
        if (*end || o->warmup < 0) BAD("bad --warmup '%s'", v);
    } else if (!strcmp(a, "--csv")) {
        o->csv = v;
    } else if (!strcmp(a, "--devices")) {
        o->devices = v;
    } else if (!strcmp(a, "--xt-devices")) {
        o->xt_devices = (int)strtol(v, &end, 10);
        if (*end || o->xt_devices < 1) BAD("bad --xt-devices '%s'", v);
    } else {
        return 1;
    }
    return 0;
}

#undef BAD

/* The options without a value: 0 taken, 1 not one of them. */
static int parse_flag(opts_t *o, const char *a)
{
    if (!strcmp(a, "--no-clblast")) o->clblast = 0;
    else if (!strcmp(a, "--no-check")) o->check = 0;
    else if (!strcmp(a, "--no-cublas")) o->cublas = 0;
    else if (!strcmp(a, "--host")) o->host = 1;
    else if (!strcmp(a, "--no-xt")) o->xt = 0;
    else return 1;
    return 0;
}

int parse_args(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->do_s = o->do_d = 1;
    o->reps = 10;
    o->warmup = 2;
    o->clblast = o->check = o->cublas = 1;
    o->xt = o->xt_devices = 1;
    o->syr2k = "both";
    for (int r = 0; r < NR; r++) o->routine[r] = 1;
    static const int def[] = {1024, 2048, 4096, 8192};
    memcpy(o->sizes, def, sizeof def);
    o->nsizes = 4;
    static const char *const with_value[] = {"--device", "--precision", "--sizes", "--routines",
                                             "--side", "--uplo", "--trans", "--diag",
                                             "--layout", "--syr2k", "--reps", "--warmup",
                                             "--csv", "--devices", "--xt-devices", NULL};
    for (int i = 1; i < argc; i++) {
        const char *a, *v;
        if (cli_take_value(argc, argv, &i, with_value, "error", &a, &v)) return -1;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        int st = v ? parse_choice(o, a, v) : 1;
        if (st == 1 && v) st = parse_value(o, a, v);
        if (st == 1 && !v) st = parse_flag(o, a);
        if (st < 0) return -1;
        if (st == 1) {
            fprintf(stderr, "error: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return -1;
        }
    }
    return 0;
}
