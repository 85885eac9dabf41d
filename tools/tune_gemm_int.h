/*
 * tune_gemm_int.h -- what the files of clhgemm-tune's GEMM search share (tune_gemm.c and
 * tune_gemm_{space,order,problem,final,record}.c): a candidate, the search's state, and the
 * functions one of these files defines for another, prefixed tg_. Named apart from tune_gemm.c,
 * it is a module of its own, so that the phase's file and the files it calls do not form a
 * cycle; the other phases see only tune.h.
 *
 * Calls go one way: tune_gemm.c calls all of them; tune_gemm_final.c calls tune_gemm_problem.c
 * (whole device calls), tune_gemm_record.c calls tune_gemm_space.c (resumed candidates found in
 * the space); the others call none of these files.
 */
#ifndef CLHGEMM_TUNE_GEMM_INT_H
#define CLHGEMM_TUNE_GEMM_INT_H

#include <stdint.h>

#include "core/blocks.h"
#include "tune.h"

#define FINAL_K 5 /* the best by kernel rate that the final round re-times as device calls */

enum { ST_NEW = 0, ST_BUSY = 1, ST_DONE = 2 };

typedef struct cand_s {
    chg_gemm_params_t p;
    uint64_t key;
    signed char state;
    signed char stage;
    signed char radius;     /* neighbourhood radius already explored around it (0: none) */
    double kgf;             /* kernel GFLOP/s; 0: failed; <0: not timed */
    double found_at;        /* search seconds when it was timed */
    cl_program prog;        /* kept while it is among the best FINAL_K */
    cl_kernel kernel;
} cand_t;

typedef struct search_s {
    tune_run_t *r;
    tdev_t *d;
    chg_precision_t prec;
    char pc;                /* 's' or 'd', as the log lines write the precision */
    size_t es;
    int gpu;
    cand_t *c;              /* the space, sorted by key */
    int n;
    size_t cap;             /* entries c has room for */
    int *order1;            /* stage-1 structures, model order */
    int n1, pos1;
    int seeds[2], nseeds, pos0;
    int stage;
    int best, def;          /* indices; -1 none */
    int center, radius;
    int *nbr;               /* neighbour list of the center */
    int nnbr, pos_nbr;
    int tried, failed, inflight;
    unsigned long long rng;
    double t_start, offset; /* search start (tune_now) and resumed seconds */
    double best_at;
    /* the problem */
    int size;
    size_t mmax, kmax;      /* padded extents the buffers hold */
    cl_mem A, B, C, Ap, Bp, Cp;
    void *hA, *hB, *hC0;    /* host copies (native precision) */
    void *ref;              /* reference C (n x n, native precision), NULL until verified */
    void *got;              /* read-back buffer (mmax x mmax) */
    chg_gemm_kernels_t ks;  /* pack kernels (+ write-back) of the library; gemm per candidate */
    int packed_mwg, packed_nwg, packed_kwg;
    double ref_err;
    wp_pool_t pool;
    int exclusive;          /* CPU device: no builds while timing */
} search_t;

/* ---- the space (tune_gemm_space.c) ----------------------------------------------------------- */

/* Fills s->c with the pruned space, sorted by key, and says how much was pruned for what.
 * 0, or -1 when out of memory. */
int tg_enumerate(search_t *s);
/* The index of p in the space, or -1. */
int tg_find(const search_t *s, const chg_gemm_params_t *p);
/* Adds p to the space (seeds outside the pruned space, e.g. an earlier tuning result); its
 * index, or -1 when p is not valid for the device. Indices found before may change. */
int tg_ensure(search_t *s, const chg_gemm_params_t *p);

/* ---- the order of the search (tune_gemm_order.c) --------------------------------------------- */

#define NEXT_WAIT (-1) /* tg_next_candidate: nothing until results in flight are in */
#define NEXT_DONE (-2) /* tg_next_candidate: the whole space has been tried */

/* Stage 1's structures, one representative each, in the model's order. 0, or -1. */
int tg_build_stage1(search_t *s);
/* The next candidate to build (its stage set), NEXT_WAIT or NEXT_DONE. */
int tg_next_candidate(search_t *s);

/* ---- the problem on the device (tune_gemm_problem.c) ----------------------------------------- */

/* Random operands on the host and the device, padded buffers for every candidate's tiles, the
 * library's pack and write-back kernels. 0, or -1 (said). */
int tg_setup_problem(search_t *s);
void tg_free_problem(search_t *s);
/* Runs c's kernel once on freshly packed operands and checks the result (the first good one
 * becomes the reference). 0 with *check set, or -1 with why. */
int tg_run_and_check(search_t *s, cand_t *c, double *check, char *why, size_t why_len);
/* c's kernel-alone GFLOP/s, or 0 with why. */
double tg_time_candidate(search_t *s, cand_t *c, char *why, size_t why_len);
/* Seconds of one whole device call with c's kernel, or -1. */
double tg_time_call(search_t *s, const cand_t *c);

/* ---- the final round (tune_gemm_final.c) ----------------------------------------------------- */

/* Re-times the best FINAL_K and the defaults as whole device calls until deadline and writes
 * the fastest into out (gemm, gflops, kernel_gflops, default_gflops, best_at_seconds). */
void tg_final_round(search_t *s, chg_tuning_prec_t *out, double deadline);

/* ---- the search's record (tune_gemm_record.c) ------------------------------------------------ */

/* Seconds of search: this run's and those of the resumed run. */
double tg_search_seconds(const search_t *s);
/* A line of candidates.csv for c (status "ok" or "fail"). */
void tg_csv_candidate(search_t *s, const cand_t *c, const char *status, double build_s,
                      double check, const char *why);
/* A line of improvements.csv for c, the new best. */
void tg_csv_improvement(search_t *s, const cand_t *c, const char *params);
/* With --resume: the candidates of out_dir/candidates.csv for this device, precision and size
 * marked done (with their rates, counts and best); returns the search seconds they took. */
double tg_resume(search_t *s);

#endif
