/*
 * splitk.h -- split-K for the device GEMM (splitk.c owns the policy and the second pass;
 * core/gemm.c runs the sequence in its workspace).
 *
 * When C has too few work-group tiles to fill the device and k is long, k is cut into s slices
 * of kslice packed rows: the GEMM kernel's SPLITK variant (cl/gemm.cl) runs every slice of
 * every tile in one launch, each slice into its own partial product, and the reduce kernel
 * (cl/splitk.cl) writes C := alpha * sum of the partials (in slice order, no atomics) + beta*C,
 * never reading C when beta = 0. Plain GEMM only (no level-3 structure).
 */
#ifndef CHG_SPLITK_H
#define CHG_SPLITK_H

#include "kernels/params.h"

/* The geometry of a split call: s slices of kslice packed k rows (a multiple of KWG); the
 * packed panels hold ktot = s * kslice rows (zero beyond k). */
typedef struct chg_splitk_s {
    int slices;
    size_t kslice, ktot;
    size_t mp, np;  /* C padded to whole tiles */
} chg_splitk_t;

/* How many slices an m x n x k call on dev with parameters gp gets for a class split of
 * `split` (0: chosen here, 1: none, s >= 2: at most s, each slice at least 256 rows of k).
 * Chosen: none when C has at least one tile per compute unit, else enough slices for two tiles
 * per compute unit (one on a CPU) and at least one per 4096 rows of k, each slice at least 32
 * rows of k (and one KWG), at most 16. Returns 1 (no split) or the count. */
int chg_splitk_slices(const chg_device_t *dev, const chg_gemm_params_t *gp, size_t m, size_t n,
                      size_t k, int split);

/* The geometry for `slices` (>= 2) slices; 0 when fewer than 2 slices remain once each is a
 * whole number of KWG steps. */
int chg_splitk_plan(const chg_gemm_params_t *gp, size_t m, size_t n, size_t k, int slices,
                    chg_splitk_t *out);

/* The tail split of a GEMM that runs as one block (all of C and k at once). C's tiles run in
 * waves of `slots` work-groups (the device's compute units times the work-groups that one holds
 * at once); when the last wave is poorly filled, the leading rows (or columns) of C that fill
 * whole waves run as usual and the rest -- the tail -- runs split-K: its tiles times `slices`
 * work-groups of a slice of k each, their partials reduced into C (the data-parallel + split
 * hybrid of Stream-K, Osama et al., PPoPP 2023, without its in-kernel fix-up). */
typedef struct chg_tail_s {
    int cut_n;     /* 0: the tail is C's last rows; 1: its last columns */
    size_t lead;   /* rows (cut_n 0) or columns (1) of C before the tail: whole tiles */
    int slices;    /* the tail's slices of k (>= 2), 0 when there is no tail split */
    chg_splitk_t sk; /* the tail's geometry: kslice, ktot = the packed k (the last slice may be
                      * shorter), mp x np its padded extent */
} chg_tail_t;

/* Plans the tail split of an m x n GEMM over kp packed k rows with parameters gp: a lead of
 * whole waves and a split tail whose predicted time (waves of tiles, each slice a 1/s share,
 * plus the reduce's traffic and two launches) is at least 3% below the unsplit launch's, each
 * slice at least 128 rows of k. The slots: CLHGEMM_TAIL_SLOTS=n (n >= 1, on any device), else
 * on a GPU its compute units times wgs, gp's work-groups per compute unit as the tuning entry
 * measured them (0: unknown, no split; none on other devices).
 * CLHGEMM_TAIL_SPLIT=off never splits; =force takes any split with fewer waves (no cost terms,
 * slices of one KWG step allowed), so that tests run the path on small sizes. Returns 1 with
 * *out filled, or 0 (out->slices = 0). */
int chg_splitk_tail(const chg_device_t *dev, chg_precision_t prec, const chg_gemm_params_t *gp,
                    int wgs, size_t m, size_t n, size_t kp, chg_tail_t *out);

/* Elements of the three temporaries: packed A (mp x ktot), packed B (np x ktot), the partials
 * (slices x mp x np). */
void chg_splitk_elements(const chg_splitk_t *sk, size_t el[3]);

/* The reduce kernel (cl/splitk.cl) for prec, BETA0 when beta_zero, through the program cache. */
clhgemm_status_t chg_splitk_reduce_kernel(cl_context ctx, const chg_device_t *dev,
                                          chg_precision_t prec, int beta_zero, cl_kernel *out);

/* Enqueues the reduce: C(m x n at c + off, ldc) := alpha * sum_s partials + beta * C. */
cl_int chg_enqueue_splitk_reduce(cl_command_queue q, cl_kernel k, chg_precision_t prec,
                                 const chg_splitk_t *sk, size_t m, size_t n, double alpha,
                                 double beta, cl_mem partials, cl_mem c, size_t off, size_t ldc,
                                 cl_uint nwait, const cl_event *wait, cl_event *ev);

#endif
