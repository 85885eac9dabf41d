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
 * `split` (0: chosen here, 1: none, s >= 2: at most s). Chosen: none when the tiles of C are at
 * least twice the compute units (once on a CPU), else enough slices to reach that and at least
 * one per 4096 rows of k, each slice at least 256 rows of k (and one KWG), at most 16. Returns 1 (no split) or the count. */
int chg_splitk_slices(const chg_device_t *dev, const chg_gemm_params_t *gp, size_t m, size_t n,
                      size_t k, int split);

/* The geometry for `slices` (>= 2) slices; 0 when fewer than 2 slices remain once each is a
 * whole number of KWG steps. */
int chg_splitk_plan(const chg_gemm_params_t *gp, size_t m, size_t n, size_t k, int slices,
                    chg_splitk_t *out);

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
