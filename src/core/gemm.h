/*
 * gemm.h -- the device GEMM core: one column-major entry point that every level-3 routine and
 * the front end funnel into. It plans blocks that keep the temporaries within a bounded
 * per-queue workspace, packs op(A) and op(B) with the generated copy kernels, runs the GEMM
 * kernel (accumulating over k blocks) and writes back alpha*Cp + beta*C. gemm.c owns the plan
 * and the sequence of a call; the steps are core/blocks.h's building blocks and the workspaces
 * core/workspace.h's (both included here: what the host pipeline, TRSM and the tests use of
 * them -- the building blocks, chg_workspace_budget, chg_gemm_release_all,
 * chg_gemm_kernel_cache_stats -- comes with this header), the call's arguments
 * core/gemm_args.h's and the direct-operand decision core/direct.h's (included too).
 * Arguments are assumed valid (gemm_api.c and l3_map.c check them).
 *
 * The other level-3 routines (l3_map.c) describe themselves to the same core with a
 * chg_struct_t: which packed operand is symmetric or triangular (a structured pack fills it
 * from its stored triangle), and whether only one triangle of C is wanted (the kernel then
 * computes only the tiles that touch it and the write-back is masked). Everything is said in
 * pack coordinates: X_A = op(A), whose rows run along C's rows, and X_B = op(B)^T, whose rows run
 * along C's columns; both have k along their columns. trans_a / trans_b say how X is read from
 * memory, as for GEMM: X_A(i,p) = A[i + p*lda] unless trans_a (then A[p + i*lda]), X_B(j,p) =
 * B[p + j*ldb] unless trans_b (then B[j + p*ldb]).
 */
#ifndef CHG_GEMM_H
#define CHG_GEMM_H

#include "core/blocks.h"
#include "core/direct.h"
#include "core/gemm_args.h"
#include "core/gemm_check.h"
#include "core/workspace.h"
#include "kernels/codegen.h"

/* Checks a user buffer that must hold a stored rows x cols matrix (rows along ld) at offset
 * off: NULL -> null_st, another context than ctx -> CLHGEMM_CONTEXT_MISMATCH, too small (without
 * overflow for offsets near SIZE_MAX) -> small_st; OpenCL errors of the queries pass through. */
clhgemm_status_t chg_check_buffer(cl_mem buf, cl_context ctx, size_t off, size_t rows,
                                  size_t cols, size_t ld, size_t es, clhgemm_status_t null_st,
                                  clhgemm_status_t small_st);

/* Enqueues C := alpha*op(A)*op(B) + beta*C (column-major) on queue, after the events in
 * wait_list. *event (if not NULL) receives an event that completes when C is final. */
clhgemm_status_t chg_gemm_enqueue(const chg_gemm_args_t *args, cl_command_queue queue,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *event);

/* chg_gemm_enqueue for a caller that has resolved the queue's device and context already
 * (chg_queue_device: two queue queries and a search under a lock), so that a call pays it once. */
clhgemm_status_t chg_gemm_enqueue_on(const chg_gemm_args_t *args, const chg_device_t *dev,
                                     cl_context ctx, cl_command_queue queue, cl_uint num_wait,
                                     const cl_event *wait_list, cl_event *event);

/* chg_gemm_enqueue with the kernel parameters gp (valid for the device; NULL: the tuned choice
 * of the call's shape class) and, for a plain GEMM, the split of k split_k (as a class's: 0
 * chosen per call, 1 none, s >= 2 at most s slices) and gp's work-groups per compute unit
 * wgs_per_cu (as a class's: 0 unknown, no tail split). For clhgemm-tune, which times each
 * candidate configuration as the library runs it. */
clhgemm_status_t chg_gemm_enqueue_with(const chg_gemm_args_t *args, const chg_gemm_params_t *gp,
                                       int split_k, int wgs_per_cu, cl_command_queue queue,
                                       cl_uint num_wait, const cl_event *wait_list,
                                       cl_event *event);

/* Device facts for the queue's device (cached per device). */
clhgemm_status_t chg_queue_device(cl_command_queue queue, const chg_device_t **dev,
                                  cl_context *context);

/* Split-K calls (core/splitk.h) read A (B) in place by default when n (m) is at most this (the
 * tensor-core kernels) or the _FMA one (the FMA kernel), and their slices end exactly at k
 * (gemm.c splitk_direct); CLHGEMM_DIRECT applies as above. */
#define CHG_SPLITK_DIRECT_MAX 1024
#define CHG_SPLITK_DIRECT_MAX_FMA 256


/* The direct kernel (cl/gemm_direct.cl) for gp (gp->dk set, valid for the device), through the
 * program cache: one launch of C := alpha*op(A)*op(B) + beta*C on the caller's matrices,
 * arguments (m, n, k, alpha, A, offA, lda, transA, B, offB, ldb, transB, beta, C, offC, ldc). */
clhgemm_status_t chg_gemm_direct_kernel(cl_context ctx, const chg_device_t *dev,
                                        chg_precision_t prec, const chg_gemm_params_t *gp,
                                        cl_kernel *out);

#endif
