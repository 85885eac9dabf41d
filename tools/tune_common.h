/*
 * tune_common.h -- the run of clhgemm-tune and the helpers that every part of the tool uses:
 * its options and state, the clock, the log and progress output, random fills and kernel
 * timing (tune_common.c). It knows nothing of devices, searches or the database: the program
 * (clhgemm_tune.c), the phases (tune_gemm.c, tune_copy.c, tune_pipeline.c, tune_cpumodel.c)
 * and the build workers (tune_worker.c) all call down into it, and it calls none of them.
 */
#ifndef CLHGEMM_TUNE_COMMON_H
#define CLHGEMM_TUNE_COMMON_H

#include <stddef.h>
#include <stdio.h>

#include "clhgemm.h" /* OpenCL types at the library's target version */

/* ---- the run ----------------------------------------------------------------------------- */

typedef struct tune_opts_s {
    const char *devices;   /* clhgemm_devices_get spec; NULL: every GPU, else every device */
    int prec_mask;         /* 1: s, 2: d */
    double budget_s;       /* whole run */
    int size;              /* GEMM timing size; 0: 4096 on GPUs, 256 elsewhere */
    int jobs;              /* build workers; 0: automatic */
    int do_gemm, do_copy, do_pipeline;
    int do_classes;        /* the shape-class phase (on with --gemm, or alone with --classes) */
    int do_cpumodel;       /* the split model phase (skipped on CPU devices unless forced) */
    int do_trsm;           /* TRSM's diagonal-block order (tune_trsm.c; default run or --trsm) */
    int do_factor;         /* the factorizations' panel width (tune_factor.c; default run or
                            * --factor) */
    int do_occupancy;      /* the classes' work-groups per compute unit (tune_occupancy.c; with
                            * the classes, or alone with --occupancy) */
    int force_cpumodel;    /* --force-cpu-model: also on CPU devices (tests on PoCL) */
    const char *out_file;  /* database to write (merged into) */
    const char *out_dir;   /* logs (and the database when out_file is not given) */
    int resume;            /* continue the searches recorded in out_dir/candidates.csv */
    int quiet;
    int random_search;     /* --strategy random: uniform sampling after the seeds (comparison) */
    unsigned long long seed;
} tune_opts_t;

typedef struct tune_run_s {
    tune_opts_t o;
    const char *self_exe;  /* this program, for the build workers */
    double t0;             /* monotonic start of the run */
    int tty;               /* stdout is a terminal: one live progress line */
    int progress_shown;    /* a progress line is on screen (TTY) */
    double last_plain;     /* time of the last plain progress line */
    FILE *log;             /* out_dir/tune.log */
    FILE *cands;           /* out_dir/candidates.csv */
    FILE *improve;         /* out_dir/improvements.csv */
    volatile int stop;     /* SIGINT/SIGTERM: finish cleanly */
    int dry;               /* --dry-run: enumerate the spaces only */
} tune_run_t;

/* ---- clock and output -------------------------------------------------------------------- */

double tune_now(void);     /* monotonic seconds */
double tune_elapsed(const tune_run_t *r);
/* A line in the log (and on stdout unless quiet; after clearing the progress line). */
void tune_say(tune_run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line in the log only. */
void tune_log(tune_run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The live progress line (TTY) or a plain status line every 15 s (not a TTY). */
void tune_progress(tune_run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tune_progress_clear(tune_run_t *r);
/* "1:05", "12:00:03" */
void tune_fmt_time(double s, char *buf, size_t len);

/* ---- data and timing --------------------------------------------------------------------- */

/* The median of t[0 .. n) (n >= 1; t is sorted in place): t[n / 2]. */
double tune_median(double *t, int n);

/* Random numbers (splitmix64), uniform in [-1, 1] and never 0. */
double tune_uniform(unsigned long long *state);
void tune_fill(void *p, int dbl, size_t n, unsigned long long seed);

/* Seconds per launch of kernel k over (g, l) on q, from `reps` launches timed with the host
 * clock (the best of two batches when reps >= 4). Negative on a launch failure (err set). */
double tune_time_kernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *g,
                        const size_t *l, int reps, cl_int *err);

#endif
