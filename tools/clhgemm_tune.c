/*
 * clhgemm_tune.c -- clhgemm-tune: tunes the GEMM kernel, the copy kernels and the host pipeline
 * of each device once, within a time budget, and writes the result into the tuning database
 * that the library reads (src/tuning/dbfile.h, docs/TUNING.md).
 *
 *   clhgemm-tune [--devices SPEC] [--precision s|d|both] [--budget 10m] [--size N]
 *                [--gemm] [--classes] [--occupancy] [--trsm] [--factor] [--copy]
 *                [--pipeline] [--cpu-model [--force-cpu-model]]
 *                [--out FILE] [--out-dir DIR] [--resume]
 *                [--jobs N] [--seed N] [--quiet] [--dry-run]
 *
 * The budget is shared by every device and phase by weight (GEMM search most, copy kernels and
 * pipeline a little each); time a phase does not use passes on to the next. Phases per device:
 * copy kernels (per precision), GEMM search (per precision, see tune_gemm.c), the shape classes
 * (tune_classes.c), their occupancy (tune_occupancy.c), TRSM's diagonal-block order
 * (tune_trsm.c), the factorizations' panel width (tune_factor.c), pipeline figures,
 * the CPU/GPU split model (tune_cpumodel.c; not on CPU devices unless --force-cpu-model).
 * The database is rewritten after every phase (merged into the existing file: other devices and
 * precisions are kept), so a run that is stopped (Ctrl-C, SIGTERM, a time limit) keeps what it
 * found. On a terminal a live progress line shows the phase, candidates tried of the space, the
 * best so far, the elapsed time and the time left; otherwise plain lines (every improvement and
 * a status line every 15 s). A summary table ends the run. With --out-dir every line also goes
 * to DIR/tune.log, every candidate to DIR/candidates.csv and every improvement, with the search
 * time at which it was found, to DIR/improvements.csv (what the "budget vs long search"
 * comparison of docs/PERFORMANCE.md is read from); --resume continues those searches.
 *
 * This file is the top of the tool: it calls the phases (tune_gemm.c, tune_copy.c,
 * tune_trsm.c, tune_factor.c, tune_pipeline.c, tune_cpumodel.c), the worker's main
 * (tune_worker.c) and the shared helpers (tune_common.c: clock, log and progress output,
 * fills, kernel timing); none calls back here.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tune.h"

/* ---- options ----------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: clhgemm-tune [options]\n"
        "Tunes the GEMM kernel, the copy kernels and the host pipeline of each device within a\n"
        "time budget and writes the tuning database that libclhgemm reads (docs/TUNING.md).\n"
        "  --devices SPEC       devices as in CLHGEMM_DEVICES (index, name substring, gpu, cpu)\n"
        "                       or all; default: every GPU, else every device\n"
        "  --precision s|d|both default both (d only on devices with fp64)\n"
        "  --budget TIME        the whole run: 90s, 10m, 1h30m or seconds (default 10m)\n"
        "  --size N             GEMM timing size n (n x n x n; default 4096 on GPUs, 256 otherwise)\n"
        "  --gemm, --copy, --pipeline, --cpu-model  only these phases (default: all; the\n"
        "                       CPU/GPU split model only on devices that are not CPUs)\n"
        "  --classes            the shape classes' configurations (part of --gemm; alone: the\n"
        "                       stored main parameters stay)\n"
        "  --trsm               TRSM's diagonal-block order (trsm_nb; part of the default run)\n"
        "  --factor             the factorizations' panel width (potrf_nb, getrf_nb, geqrf_nb;\n"
        "                       part of the default run)\n"
        "  --occupancy          each class's work-groups per compute unit (wgs_per_cu, which the\n"
        "                       tail split plans with; part of --gemm and --classes)\n"
        "  --force-cpu-model    the split model also on CPU devices (tests on PoCL)\n"
        "  --out FILE           database to write; merged with what FILE holds (default:\n"
        "                       DIR/tuning.json with --out-dir, else the user database\n"
        "                       $CLHGEMM_TUNING_DIR|$XDG_CONFIG_HOME/clhgemm|~/.config/clhgemm/tuning.json)\n"
        "  --out-dir DIR        logs: DIR/tune.log, candidates.csv, improvements.csv,\n"
        "                       workers.log;"
        " the database goes to DIR/tuning.json unless --out is given,\n"
        "                       which the library reads only with CLHGEMM_TUNING_DIR=DIR\n"
        "  --resume             continue the GEMM searches recorded in DIR/candidates.csv\n"
        "  --jobs N             parallel kernel builds (worker processes); default: half the\n"
        "                       cores up to 8 for GPUs, 1 for CPU devices\n"
        "  --seed N             random data and sampling (default 1)\n"
        "  --strategy staged|random  GEMM search order (default staged; random: uniform sampling\n"
        "                       of the pruned space after the defaults, for comparison)\n"
        "  --quiet              no progress, only the summary\n"
        "  --dry-run            print the devices and search spaces, tune nothing\n"
        "  -h, --help\n");
}

/* "90", "90s", "10m", "1h", "1h30m", "2m30s" -> seconds; -1 when malformed. */
static double parse_duration(const char *s)
{
    double total = 0;
    int any = 0;
    while (*s) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno || v < 0) return -1;
        s = end;
        double unit = 1;
        if (*s == 'h' || *s == 'H') unit = 3600, s++;
        else if (*s == 'm' || *s == 'M') unit = 60, s++;
        else if (*s == 's' || *s == 'S') s++;
        else if (*s) return -1;
        total += v * unit;
        any = 1;
    }
    return any ? total : -1;
}

static int parse_args(int argc, char **argv, tune_opts_t *o, int *dry)
{
    memset(o, 0, sizeof *o);
    o->prec_mask = 3;
    o->budget_s = 600;
    o->seed = 1;
    int phases = 0;
    *dry = 0;
    static const char *const with_value[] = {"--devices", "--precision", "--budget", "--size",
                                             "--out", "--out-dir", "--jobs", "--seed",
                                             "--strategy", NULL};
    for (int i = 1; i < argc; i++) {
        const char *a, *v;
        if (cli_take_value(argc, argv, &i, with_value, "clhgemm-tune", &a, &v)) return -1;
        char *end = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--devices")) {
            o->devices = v;
        } else if (!strcmp(a, "--precision")) {
            if (!strcmp(v, "s")) o->prec_mask = 1;
            else if (!strcmp(v, "d")) o->prec_mask = 2;
            else if (!strcmp(v, "both") || !strcmp(v, "sd")) o->prec_mask = 3;
            else {
                fprintf(stderr, "clhgemm-tune: --precision takes s, d or both\n");
                return -1;
            }
        } else if (!strcmp(a, "--budget")) {
            o->budget_s = parse_duration(v);
            if (o->budget_s <= 0) {
                fprintf(stderr, "clhgemm-tune: bad --budget '%s' (e.g. 90s, 10m, 1h30m)\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--size")) {
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 16 || n > 65536) {
                fprintf(stderr, "clhgemm-tune: bad --size '%s' (16..65536)\n", v);
                return -1;
            }
            o->size = (int)n;
        } else if (!strcmp(a, "--jobs")) {
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 1 || n > TUNE_MAX_WORKERS) {
                fprintf(stderr, "clhgemm-tune: bad --jobs '%s' (1..%d)\n", v, TUNE_MAX_WORKERS);
                return -1;
            }
            o->jobs = (int)n;
        } else if (!strcmp(a, "--seed")) {
            o->seed = strtoull(v, &end, 10);
            if (end == v || *end) {
                fprintf(stderr, "clhgemm-tune: bad --seed '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--strategy")) {
            if (!strcmp(v, "staged")) o->random_search = 0;
            else if (!strcmp(v, "random")) o->random_search = 1;
            else {
                fprintf(stderr, "clhgemm-tune: --strategy takes staged or random\n");
                return -1;
            }
        } else if (!strcmp(a, "--out")) {
            o->out_file = v;
        } else if (!strcmp(a, "--out-dir")) {
            o->out_dir = v;
        } else if (!strcmp(a, "--gemm")) {
            phases |= 1;
        } else if (!strcmp(a, "--copy")) {
            phases |= 2;
        } else if (!strcmp(a, "--pipeline")) {
            phases |= 4;
        } else if (!strcmp(a, "--cpu-model")) {
            phases |= 8;
        } else if (!strcmp(a, "--classes")) {
            phases |= 16;
        } else if (!strcmp(a, "--trsm")) {
            phases |= 32;
        } else if (!strcmp(a, "--occupancy")) {
            phases |= 64;
        } else if (!strcmp(a, "--factor")) {
            phases |= 128;
        } else if (!strcmp(a, "--force-cpu-model")) {
            o->force_cpumodel = 1;
        } else if (!strcmp(a, "--resume")) {
            o->resume = 1;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--dry-run")) {
            *dry = 1;
        } else {
            fprintf(stderr, "clhgemm-tune: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return -1;
        }
    }
    if (!phases) phases = 15 | 32 | 128;
    o->do_gemm = phases & 1;
    o->do_classes = (phases & 17) != 0;
    o->do_copy = (phases & 2) != 0;
    o->do_pipeline = (phases & 4) != 0;
    o->do_cpumodel = (phases & 8) != 0;
    o->do_trsm = (phases & 32) != 0;
    o->do_factor = (phases & 128) != 0;
    o->do_occupancy = (phases & (1 | 16 | 64)) != 0;
    if (o->resume && !o->out_dir) {
        fprintf(stderr, "clhgemm-tune: --resume needs --out-dir (the logs of the search to continue)\n");
        return -1;
    }
    return 0;
}

/* ---- the run ----------------------------------------------------------------------------- */

static tune_run_t *g_run;

static void on_signal(int sig)
{
    (void)sig;
    if (g_run) g_run->stop = 1;
}

static FILE *open_csv(const char *dir, const char *name, const char *header)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "a");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    if (ftell(f) == 0) fprintf(f, "%s\n", header);
    fflush(f);
    return f;
}

static int mkdir_p(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Phase weights: the GEMM search gets most of the budget. */
/* The shape classes after both searches (their reference is the searched main parameters). */
/* Their occupancy after them (a few calls per configuration). */
/* TRSM's block order after them (its GEMMs run with the parameters found). */
/* The factorizations' panel width after TRSM (their updates run TRSM and the GEMMs). */
enum { PH_COPY_S, PH_COPY_D, PH_GEMM_S, PH_GEMM_D, PH_CLASS_S, PH_CLASS_D, PH_OCC_S, PH_OCC_D,
       PH_TRSM_S, PH_TRSM_D, PH_FACT_S, PH_FACT_D, PH_PIPE, PH_CPU, PH_COUNT };
static const double ph_weight[PH_COUNT] = {0.05, 0.05, 0.30, 0.30, 0.10, 0.10, 0.02, 0.02,
                                           0.05, 0.05, 0.05, 0.05, 0.10, 0.10};

typedef struct plan_s {
    int on[PH_COUNT];
} plan_t;

static void utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Merges d's record into the database file and writes it. */
static int save(tune_run_t *r, tdev_t *d, const char *path)
{
    chg_tuning_file_t f;
    char why[512] = "";
    if (access(path, F_OK) == 0) {
        if (chg_tuning_file_read(path, &f, why, sizeof why) != 0) {
            /* Kept beside, not lost: it may hold other devices' entries. */
            char old[4300];
            snprintf(old, sizeof old, "%s.rejected", path);
            rename(path, old);
            tune_say(r, "the existing database %s is not usable (%s): moved to %s", path, why, old);
            chg_tuning_file_init(&f);
        }
    } else {
        chg_tuning_file_init(&f);
    }
    utc_now(d->rec.date, sizeof d->rec.date);
    snprintf(d->rec.tool, sizeof d->rec.tool, "clhgemm-tune %s", clhgemm_version());
    d->rec.seconds = tune_elapsed(r);
    int rc = chg_tuning_file_upsert(&f, &d->rec);
    if (rc == 0) rc = chg_tuning_file_write(path, &f, why, sizeof why);
    else snprintf(why, sizeof why, "out of memory");
    if (rc != 0) tune_say(r, "cannot write %s: %s", path, why);
    else tune_log(r, "%s database written: %s", d->log_prefix, path);
    chg_tuning_file_free(&f);
    return rc;
}

/* Starts d->rec from the stored entry of this device (a partial run keeps the rest). */
static void load_existing(tdev_t *d, const char *path)
{
    chg_tuning_record_init(&d->rec, &d->dev);
    chg_tuning_file_t f;
    char why[512];
    if (chg_tuning_file_read(path, &f, why, sizeof why) != 0) return;
    chg_tuning_record_t *old = chg_tuning_file_find(&f, d->dev.info.name, d->dev.info.driver_version);
    if (old) {
        chg_tuning_record_t fresh = d->rec;
        chg_tuning_record_copy(&d->rec, old);
        /* identity and facts of today's device */
        memcpy(d->rec.name, fresh.name, sizeof fresh.name);
        memcpy(d->rec.vendor, fresh.vendor, sizeof fresh.vendor);
        memcpy(d->rec.platform, fresh.platform, sizeof fresh.platform);
        memcpy(d->rec.arch, fresh.arch, sizeof fresh.arch);
        memcpy(d->rec.vendor_key, fresh.vendor_key, sizeof fresh.vendor_key);
        d->rec.compute_units = fresh.compute_units;
        d->rec.local_mem = fresh.local_mem;
        d->rec.global_mem = fresh.global_mem;
        d->rec.max_work_group = fresh.max_work_group;
    }
    chg_tuning_file_free(&f);
}

/* Whether the directory of `path` is `dir` (both resolved when they exist). */
static int same_dir(const char *path, const char *dir)
{
    char d[4200], a[PATH_MAX], b[PATH_MAX];
    snprintf(d, sizeof d, "%s", path);
    char *slash = strrchr(d, '/');
    if (slash) *slash = '\0';
    else snprintf(d, sizeof d, ".");
    if (realpath(d, a) && realpath(dir, b)) return !strcmp(a, b);
    return !strcmp(d, dir);
}

/* How the library will find the database file `path`, as a note for the summary: "" where it
 * reads it as things are, else what to set. A database nobody reads is the tuner's silent
 * failure (its --out-dir default is not a directory the library reads). */
static void db_reach(const char *path, char *note, size_t len)
{
    char dir[4200], user[4096], shipped[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    const size_t l = strlen(path);
    const char *u = chg_tuning_user_dir(user, sizeof user);
    const char *s = chg_tuning_shipped_dir(shipped, sizeof shipped);
    const char *env = getenv("CLHGEMM_TUNING_DIR");
    note[0] = '\0';
    if (l < 5 || strcmp(path + l - 5, ".json"))
        snprintf(note, len, " (not read by the library: it reads only the *.json files of its "
                            "tuning directories)");
    else if (u && same_dir(path, u) && env && *env)
        snprintf(note, len, " (read by the library where CLHGEMM_TUNING_DIR=%s, as in this run)",
                 u);
    else if ((u && same_dir(path, u)) || (s && same_dir(path, s)))
        note[0] = '\0';
    else
        snprintf(note, len, " (not a directory the library reads: it reads this file only "
                            "with CLHGEMM_TUNING_DIR=%s; without it, %s)",
                 dir, u ? u : "no user directory");
}

/* The summary's line of the panel widths of d's precision p, when it has any. */
static void summary_factor(FILE *f, const tdev_t *d, int p)
{
    static const char *const names[CHG_TUNING_FACTOR_KINDS] = CHG_TUNING_FACTOR_NAMES;
    const chg_tuning_prec_t *x = &d->rec.prec[p];
    char line[512];
    size_t len = 0;
    for (int k = 0; k < CHG_TUNING_FACTOR_KINDS; k++)
        if (x->factor_nb[k] > 0 && len < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s nb %d (%.1f GFLOP/s)",
                                    len ? ", " : "", names[k], x->factor_nb[k],
                                    x->factor_gflops[k]);
    if (len) fprintf(f, "%-34.34s %c factor: %s at n = %d\n", d->dev.info.name, p ? 'd' : 's', line,
                     x->factor_size);
}

static void summary(tune_run_t *r, tdev_t *devs, int ndev, const char *path, int written)
{
    char t1[32], t2[32];
    tune_fmt_time(tune_elapsed(r), t1, sizeof t1);
    tune_fmt_time(r->o.budget_s, t2, sizeof t2);
    tune_progress_clear(r);
    FILE *outs[2] = {stdout, r->log};
    for (int o = 0; o < 2; o++) {
        FILE *f = outs[o];
        if (!f) continue;
        fprintf(f, "\n== clhgemm-tune summary: %s of a %s budget%s ==\n", t1, t2,
                r->stop ? " (stopped early)" : "");
        fprintf(f, "%-34s %-2s %13s %12s %8s %12s %6s %6s %8s  %s\n", "device", "p", "defaults GF/s",
                "tuned GF/s", "speedup", "kernel GF/s", "tried", "failed", "best at", "parameters");
        for (int i = 0; i < ndev; i++) {
            for (int p = 0; p < 2; p++) {
                const chg_tuning_prec_t *x = &devs[i].rec.prec[p];
                if (!x->present || !(r->o.prec_mask & (1 << p)) || x->candidates == 0) continue;
                char params[200], at[32], sp[16];
                chg_gemm_params_format(&x->gemm, params, sizeof params);
                tune_fmt_time(x->best_at_seconds, at, sizeof at);
                if (x->default_gflops > 0) snprintf(sp, sizeof sp, "%.2fx", x->gflops / x->default_gflops);
                else snprintf(sp, sizeof sp, "-");
                fprintf(f, "%-34.34s %-2c %13.1f %12.1f %8s %12.1f %6d %6d %8s  %s\n",
                        devs[i].dev.info.name, p ? 'd' : 's', x->default_gflops, x->gflops, sp,
                        x->kernel_gflops, x->candidates, x->failed, at, params);
            }
        }
        int any_copy = 0;
        for (int i = 0; i < ndev; i++)
            for (int p = 0; p < 2; p++) any_copy |= devs[i].rec.prec[p].has_copy && r->o.do_copy;
        if (any_copy) {
            fprintf(f, "%-34s %-2s %10s %10s %12s %12s %14s\n", "copy kernels (GB/s)", "p", "pack",
                    "defaults", "pack_t", "defaults", "CopyBuffer");
            for (int i = 0; i < ndev; i++)
                for (int p = 0; p < 2; p++) {
                    const chg_tuning_prec_t *x = &devs[i].rec.prec[p];
                    if (!x->has_copy || !(r->o.prec_mask & (1 << p))) continue;
                    fprintf(f, "%-34.34s %-2c %10.1f %10.1f %12.1f %12.1f %14.1f\n",
                            devs[i].dev.info.name, p ? 'd' : 's', x->pack_gbs,
                            devs[i].copy_default_gbs[p][0], x->pack_t_gbs,
                            devs[i].copy_default_gbs[p][1], x->copy_buffer_gbs);
                }
        }
        for (int i = 0; i < ndev; i++)
            for (int p = 0; p < 2; p++) {
                const chg_tuning_prec_t *x = &devs[i].rec.prec[p];
                if (!x->trsm_nb || !r->o.do_trsm || !(r->o.prec_mask & (1 << p))) continue;
                fprintf(f, "%-34.34s %c trsm: nb %d, %.1f GFLOP/s at m = n = %d\n",
                        devs[i].dev.info.name, p ? 'd' : 's', x->trsm_nb, x->trsm_gflops,
                        x->trsm_size);
            }
        for (int i = 0; i < ndev && r->o.do_factor; i++)
            for (int p = 0; p < 2; p++)
                if (r->o.prec_mask & (1 << p)) summary_factor(f, &devs[i], p);
        for (int i = 0; i < ndev; i++) {
            const chg_tuning_pipeline_t *pl = &devs[i].rec.pipeline;
            if (!pl->present || !r->o.do_pipeline) continue;
            fprintf(f, "%-34.34s pipeline: h2d %.1f/%.1f GB/s, d2h %.1f/%.1f GB/s (pageable/pinned), "
                       "pack threads %d, queues %d\n",
                    devs[i].dev.info.name, pl->h2d_pageable_gbs, pl->h2d_pinned_gbs,
                    pl->d2h_pageable_gbs, pl->d2h_pinned_gbs, pl->pack_threads, pl->queues);
        }
        for (int i = 0; i < ndev; i++)
            for (int p = 0; p < 2; p++) {
                const chg_tuning_cpumodel_t *c = &devs[i].rec.cpumodel[p];
                if (!c->present || !r->o.do_cpumodel || !(r->o.prec_mask & (1 << p))) continue;
                fprintf(f, "%-34.34s %c cpu share model: gamma %.3f, mean prediction error %.1f%% over %d runs "
                           "(%d OpenBLAS threads, core %s); n=%d: model share %.3f (%.4f s predicted, %.4f s "
                           "measured), guided search %.3f (%.4f s)\n",
                        devs[i].dev.info.name, p ? 'd' : 's', c->split.gamma, 100 * c->mean_rel_err,
                        c->samples, c->cpu_threads, c->cpu_core, c->check_n, c->model_share, c->model_pred_s,
                        c->model_s, c->search_share, c->search_s);
            }
        if (written) {
            char note[4600];
            db_reach(path, note, sizeof note);
            fprintf(f, "database: %s%s\n", path, note);
        } else {
            /* e.g. --cpu-model on a CPU device: the phase was skipped, nothing was measured */
            fprintf(f, "database: nothing written (no phase stored a result; %s %s)\n", path,
                    access(path, F_OK) == 0 ? "is as it was" : "was not created");
        }
        if (r->o.out_dir) fprintf(f, "logs: %s/{tune.log,candidates.csv,improvements.csv}\n", r->o.out_dir);
        fflush(f);
    }
}

static const char *self_path(const char *argv0)
{
    static char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = '\0';
        return buf;
    }
    if (realpath(argv0, buf)) return buf;
    return argv0;
}

/* ---- main's steps ------------------------------------------------------------------------ */

/* Ctrl-C and SIGTERM stop the run between candidates (what was found is saved); a worker that
 * dies must not kill the parent with SIGPIPE. */
static void catch_signals(tune_run_t *run)
{
    g_run = run;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Where the database goes: --out, else DIR/tuning.json with --out-dir, else the user database.
 * 0, or the exit status (2) when there is nowhere to write. */
static int database_path(const tune_opts_t *o, int dry, char *path, size_t len)
{
    if (o->out_file) {
        snprintf(path, len, "%s", o->out_file);
    } else if (o->out_dir) {
        snprintf(path, len, "%s/tuning.json", o->out_dir);
    } else {
        char dir[4096];
        if (!chg_tuning_user_dir(dir, sizeof dir) && !dry) {
            fprintf(stderr, "clhgemm-tune: no user tuning directory (CLHGEMM_TUNING_DIR=off or "
                            "no HOME): give --out FILE\n");
            return 2;
        }
        if (dry) snprintf(path, len, "(none: --dry-run)");
        else snprintf(path, len, "%s/%s", dir, CHG_TUNING_USER_FILE);
    }
    return 0;
}

/* --out-dir's log and CSV files (appended to: --resume reads them back). 0, or the exit status
 * (2) when the directory cannot be made. */
static int open_logs(tune_run_t *run)
{
    if (mkdir_p(run->o.out_dir) != 0) {
        fprintf(stderr, "clhgemm-tune: cannot create %s: %s\n", run->o.out_dir, strerror(errno));
        return 2;
    }
    char p[4200];
    snprintf(p, sizeof p, "%s/tune.log", run->o.out_dir);
    run->log = fopen(p, "a");
    run->cands = open_csv(run->o.out_dir, "candidates.csv",
                          "search_s,device,driver,precision,size,stage,params,status,kernel_gflops,"
                          "build_s,check,note");
    run->improve = open_csv(run->o.out_dir, "improvements.csv",
                            "search_s,device,precision,size,candidate,kernel_gflops,params");
    return 0;
}

/* The first line of the log: version, date and the command line. */
static void say_command(tune_run_t *run, int argc, char **argv)
{
    char cmd[2048] = "";
    size_t len = 0;
    for (int i = 0; i < argc && len < sizeof cmd - 2; i++)
        len += (size_t)snprintf(cmd + len, sizeof cmd - len, "%s%s", i ? " " : "", argv[i]);
    char date[32];
    utc_now(date, sizeof date);
    tune_say(run, "clhgemm-tune %s, %s: %s", clhgemm_version(), date, cmd);
}

/* The devices to tune into *devs (calloc'ed, *ndev of them): --devices, else CLHGEMM_DEVICES,
 * else every GPU, else every device ("all": every device, GPUs and CPUs). 0, or the exit status
 * (77 when there is no device). */
static int find_devices(tune_run_t *run, tdev_t **devs, int *ndev)
{
    size_t count = 0;
    const char *spec = run->o.devices && !strcmp(run->o.devices, "all") ? "" : run->o.devices;
    const int explicit_spec = spec || getenv("CLHGEMM_DEVICES");
    clhgemm_status_t st = clhgemm_devices_get(spec, NULL, 0, &count);
    if (st != CLHGEMM_SUCCESS || count == 0) {
        fprintf(stderr, "clhgemm-tune: no device%s: %s\n",
                run->o.devices ? " matches the spec" : "", clhgemm_status_message(st));
        return st == CLHGEMM_NO_DEVICE ? 77 : 1;
    }
    clhgemm_device_info_t *infos = calloc(count, sizeof *infos);
    *devs = calloc(count, sizeof **devs);
    if (!infos || !*devs) {
        free(infos);
        return 1;
    }
    clhgemm_devices_get(spec, infos, count, &count);
    int ngpu = 0;
    *ndev = 0;
    for (size_t i = 0; i < count; i++) ngpu += infos[i].kind == CLHGEMM_DEVICE_GPU;
    for (size_t i = 0; i < count; i++) {
        if (!explicit_spec && ngpu > 0 && infos[i].kind != CLHGEMM_DEVICE_GPU) continue;
        tdev_t *d = &(*devs)[*ndev];
        d->index = infos[i].index;
        if (chg_device_query(infos[i].device, &d->dev) != CLHGEMM_SUCCESS) continue;
        snprintf(d->log_prefix, sizeof d->log_prefix, "[%d]", d->index);
        tune_say(run, "%s %s | %s | driver %s | %s, %s", d->log_prefix, d->dev.info.name,
                 d->dev.info.platform_name, d->dev.info.driver_version, d->dev.arch_key,
                 d->dev.info.features);
        (*ndev)++;
    }
    free(infos);
    return 0;
}

/* --dry-run: each device's search space per precision, printed by the search's enumeration
 * (a zero budget), nothing tuned. */
static void dry_run(tune_run_t *run, tdev_t *devs, int ndev)
{
    run->dry = 1;
    for (int i = 0; i < ndev; i++) {
        tdev_t *d = &devs[i];
        cl_int err;
        d->ctx = clCreateContext(NULL, 1, &d->dev.info.device, NULL, NULL, &err);
        d->q = d->ctx ? clCreateCommandQueue(d->ctx, d->dev.info.device, 0, &err) : NULL;
        for (int p = 0; p < 2 && d->q; p++) {
            if (!(run->o.prec_mask & (1 << p))) continue;
            if (p && !(d->dev.features & CHG_FEAT_FP64)) continue;
            tune_gemm(run, d, (chg_precision_t)p, tune_now());
        }
        if (d->q) clReleaseCommandQueue(d->q);
        if (d->ctx) clReleaseContext(d->ctx);
    }
}

/* The phases that run on device d (the options, its precisions and kind); their weights (their
 * share of the budget) are added to *weight. */
static void plan_device(tune_run_t *run, const tdev_t *d, plan_t *plan, double *weight)
{
    const tune_opts_t *o = &run->o;
    const int fp64 = (d->dev.features & CHG_FEAT_FP64) != 0;
    const int s = (o->prec_mask & 1) != 0, dp = (o->prec_mask & 2) && fp64;
    memset(plan, 0, sizeof *plan);
    plan->on[PH_COPY_S] = o->do_copy && s;
    plan->on[PH_COPY_D] = o->do_copy && dp;
    plan->on[PH_GEMM_S] = o->do_gemm && s;
    plan->on[PH_GEMM_D] = o->do_gemm && dp;
    plan->on[PH_CLASS_S] = o->do_classes && s;
    plan->on[PH_CLASS_D] = o->do_classes && dp;
    plan->on[PH_OCC_S] = o->do_occupancy && s;
    plan->on[PH_OCC_D] = o->do_occupancy && dp;
    plan->on[PH_TRSM_S] = o->do_trsm && s;
    plan->on[PH_TRSM_D] = o->do_trsm && dp;
    plan->on[PH_FACT_S] = o->do_factor && s;
    plan->on[PH_FACT_D] = o->do_factor && dp;
    plan->on[PH_PIPE] = o->do_pipeline;
    /* The split model: beside a CPU device OpenBLAS would only compete for its cores. */
    plan->on[PH_CPU] = o->do_cpumodel && (!(d->dev.features & CHG_FEAT_CPU) || o->force_cpumodel);
    if (o->do_cpumodel && !plan->on[PH_CPU])
        tune_say(run, "%s cpu model: skipped on a CPU device, nothing stored for it "
                      "(--force-cpu-model measures it anyway)",
                 d->log_prefix);
    for (int p = 0; p < PH_COUNT; p++) *weight += plan->on[p] * ph_weight[p];
}

/* One phase of device d until deadline: 0, or -1 when it failed. */
static int run_phase(tune_run_t *run, tdev_t *d, int ph, double deadline)
{
    switch (ph) {
    case PH_COPY_S: return tune_copy(run, d, CHG_F32, deadline);
    case PH_COPY_D: return tune_copy(run, d, CHG_F64, deadline);
    case PH_GEMM_S: return tune_gemm(run, d, CHG_F32, deadline);
    case PH_GEMM_D: return tune_gemm(run, d, CHG_F64, deadline);
    case PH_CLASS_S: return tune_classes(run, d, CHG_F32, deadline);
    case PH_CLASS_D: return tune_classes(run, d, CHG_F64, deadline);
    case PH_OCC_S: return tune_occupancy(run, d, CHG_F32, deadline);
    case PH_OCC_D: return tune_occupancy(run, d, CHG_F64, deadline);
    case PH_TRSM_S: return tune_trsm(run, d, CHG_F32, deadline);
    case PH_TRSM_D: return tune_trsm(run, d, CHG_F64, deadline);
    case PH_FACT_S: return tune_factor(run, d, CHG_F32, deadline);
    case PH_FACT_D: return tune_factor(run, d, CHG_F64, deadline);
    case PH_PIPE: return tune_pipeline(run, d, run->o.prec_mask, deadline);
    case PH_CPU: return tune_cpumodel(run, d, run->o.prec_mask, deadline);
    }
    return 0;
}

/* Device d's planned phases in order, each given its weight's share of the time left until
 * end (*weight_left: the weight of every phase not run yet, this device's and the next ones'),
 * the database saved after each. Returns the number of failures; *written counts the saves. */
static int tune_device(tune_run_t *run, tdev_t *d, const plan_t *plan, double *weight_left,
                       double end, const char *dbpath, int *written)
{
    cl_int err;
    d->ctx = clCreateContext(NULL, 1, &d->dev.info.device, NULL, NULL, &err);
    if (d->ctx) d->q = clCreateCommandQueue(d->ctx, d->dev.info.device, 0, &err);
    if (!d->q) {
        tune_say(run, "%s cannot open the device: %s", d->log_prefix, clhgemm_status_string(err));
        return 1;
    }
    int failures = 0;
    load_existing(d, dbpath);
    for (int ph = 0; ph < PH_COUNT && !run->stop; ph++) {
        if (!plan->on[ph]) continue;
        const double now = tune_now();
        const double share = *weight_left > 0 ? ph_weight[ph] / *weight_left : 1;
        const double deadline = now + (end - now) * share;
        *weight_left -= ph_weight[ph];
        if (run_phase(run, d, ph, deadline) != 0) failures++;
        /* A copy-only (TRSM-only, factorization-only) run still needs the GEMM parameters the
         * copy results (the block order, the panel widths) go with. */
        for (int p = 0; p < 2; p++) {
            const chg_tuning_prec_t *x = &d->rec.prec[p];
            const int factor = x->factor_nb[0] || x->factor_nb[1] || x->factor_nb[2];
            if ((x->has_copy || x->trsm_nb || factor) && !x->present) {
                d->rec.prec[p].present = 1;
                chg_gemm_params_select(&d->dev, (chg_precision_t)p, &d->rec.prec[p].gemm);
            }
        }
        if (d->rec.prec[0].present || d->rec.prec[1].present || d->rec.pipeline.present ||
            d->rec.cpumodel[0].present || d->rec.cpumodel[1].present)
            *written += save(run, d, dbpath) == 0;
    }
    clReleaseCommandQueue(d->q);
    clReleaseContext(d->ctx);
    d->q = NULL;
    d->ctx = NULL;
    return failures;
}

int main(int argc, char **argv)
{
    /* The database holds IEEE parameters and rates: the TF32 opt-in (which the library never
     * reads from a database) must not leak into what is measured or saved. */
    unsetenv("CLHGEMM_SGEMM_MATH");
    if (argc >= 3 && !strcmp(argv[1], "--worker")) return wp_worker_main(atoi(argv[2]));

    tune_run_t run;
    memset(&run, 0, sizeof run);
    int dry = 0;
    if (parse_args(argc, argv, &run.o, &dry) != 0) return 2;
    run.t0 = tune_now();
    run.tty = isatty(STDOUT_FILENO);
    run.self_exe = self_path(argv[0]);
    catch_signals(&run);

    char dbpath[4200];
    int rc = database_path(&run.o, dry, dbpath, sizeof dbpath);
    if (rc == 0 && run.o.out_dir && !dry) rc = open_logs(&run);
    if (rc != 0) return rc;
    say_command(&run, argc, argv);

    tdev_t *devs = NULL;
    int ndev = 0;
    rc = find_devices(&run, &devs, &ndev);
    if (rc != 0) {
        free(devs);
        return rc;
    }
    if (dry) {
        dry_run(&run, devs, ndev);
        free(devs);
        return 0;
    }

    /* Phases and their share of the budget. */
    plan_t plan[64];
    double weight_left = 0;
    if (ndev > 64) ndev = 64;
    for (int i = 0; i < ndev; i++) plan_device(&run, &devs[i], &plan[i], &weight_left);
    const double end = run.t0 + run.o.budget_s;
    int failures = 0, written = 0;
    for (int i = 0; i < ndev && !run.stop; i++)
        failures += tune_device(&run, &devs[i], &plan[i], &weight_left, end, dbpath, &written);
    summary(&run, devs, ndev, dbpath, written);
    for (int i = 0; i < ndev; i++) chg_tuning_record_free(&devs[i].rec);
    free(devs);
    clhgemm_release_resources();
    if (run.log) fclose(run.log);
    if (run.cands) fclose(run.cands);
    if (run.improve) fclose(run.improve);
    return failures ? 1 : 0;
}
