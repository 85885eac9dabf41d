/*
 * gemm.h -- the device GEMM core (gemm.c owns it): one column-major entry point that every
 * level-3 routine and the front end funnel into. It plans blocks that keep the temporaries
 * within a bounded per-queue workspace, packs op(A) and op(B) with the generated copy kernels,
 * runs the GEMM kernel (accumulating over k blocks) and writes back alpha*Cp + beta*C.
 * Arguments are assumed valid (api.c checks them).
 */
#ifndef CHG_GEMM_H
#define CHG_GEMM_H

#include "codegen.h"

typedef struct chg_gemm_args_s {
    chg_precision_t prec;
    int trans_a, trans_b;  /* 0 = no transpose, 1 = transpose (column-major view) */
    size_t m, n, k;
    double alpha, beta;
    cl_mem a, b, c;
    size_t off_a, off_b, off_c;  /* elements */
    size_t lda, ldb, ldc;
} chg_gemm_args_t;

/* The caller's view of a GEMM call after the shape checks (api.c): layout and transposes as
 * flags, and the stored shape (rows x cols, rows being what ld strides over) of A, B and C. */
typedef struct chg_shape_s {
    int col, ta, tb;
    size_t a_rows, a_cols, b_rows, b_cols, c_rows, c_cols;
} chg_shape_t;

/* Checks enums, sizes and leading dimensions in the reference BLAS order, each with its own
 * status; shared by the device-buffer and host-memory front ends. */
clhgemm_status_t chg_gemm_check_shape(int layout, int transA, int transB, int m, int n, int k,
                                      int lda, int ldb, int ldc, chg_shape_t *sh);

/* Enqueues C := alpha*op(A)*op(B) + beta*C (column-major) on queue, after the events in
 * wait_list. *event (if not NULL) receives an event that completes when C is final. */
clhgemm_status_t chg_gemm_enqueue(const chg_gemm_args_t *args, cl_command_queue queue,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *event);

/* Device facts for the queue's device (cached per device). */
clhgemm_status_t chg_queue_device(cl_command_queue queue, const chg_device_t **dev,
                                  cl_context *context);

/* ---- building blocks (used by the blocked core below and by the host pipeline) ----------- */

/* The kernels of one GEMM variant on one device. cl_kernel objects are not thread-safe: each
 * thread that enqueues owns its own set. */
typedef struct chg_gemm_kernels_s {
    chg_precision_t prec;
    chg_gemm_params_t gp;
    cl_kernel pack_a, pack_b, gemm, wb;
    chg_copy_params_t cpa, cpb, cpw;
} chg_gemm_kernels_t;

/* Builds (through the program cache) the kernels for op(A) with trans_a, op(B) with trans_b,
 * and a write-back that never reads C when beta_zero. */
clhgemm_status_t chg_gemm_kernels_create(cl_context ctx, const chg_device_t *dev,
                                         chg_precision_t prec, const chg_gemm_params_t *gp,
                                         int trans_a, int trans_b, int beta_zero,
                                         chg_gemm_kernels_t *ks);
void chg_gemm_kernels_release(chg_gemm_kernels_t *ks);

/* Packs op(A)(rows=mc, cols=kc) stored at src+off (column-major, ld) into dst+dst_off in the
 * kernel's block-major layout padded to (mpad, kpad). pack_b does the same for op(B)^T with
 * rows=nc. */
cl_int chg_enqueue_pack_a(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mc, size_t kc,
                          cl_mem src, size_t off, size_t ld, cl_mem dst, size_t dst_off,
                          cl_uint nwait, const cl_event *wait, cl_event *ev);
cl_int chg_enqueue_pack_b(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t nc, size_t kc,
                          cl_mem src, size_t off, size_t ld, cl_mem dst, size_t dst_off,
                          cl_uint nwait, const cl_event *wait, cl_event *ev);
/* Cp(mpad x npad) (+)= Ap(mpad x kpad at aoff) * Bp(kpad x npad at boff). */
cl_int chg_enqueue_kernel(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mpad,
                          size_t npad, size_t kpad, cl_mem ap, size_t aoff, cl_mem bp,
                          size_t boff, cl_mem cp, int accumulate, cl_uint nwait,
                          const cl_event *wait, cl_event *ev);
/* C(mc x nc at off, ldc) := alpha*Cp + beta*C (beta ignored and C not read if beta_zero). */
cl_int chg_enqueue_writeback(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mc,
                             size_t nc, double alpha, double beta, cl_mem cp, size_t ldcp,
                             cl_mem c, size_t off, size_t ldc, cl_uint nwait, const cl_event *wait,
                             cl_event *ev);

/* Frees every workspace (waits for their last use). */
void chg_gemm_release_all(void);

/* Budget in bytes for one queue's workspace on this device (CLHGEMM_WORKSPACE_LIMIT caps it). */
unsigned long long chg_workspace_budget(const chg_device_t *dev);

#endif
