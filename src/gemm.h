/*
 * gemm.h -- the device GEMM core (gemm.c owns it): one column-major entry point that every
 * level-3 routine and the front end funnel into. It plans blocks that keep the temporaries
 * within a bounded per-queue workspace, packs op(A) and op(B) with the generated copy kernels,
 * runs the GEMM kernel (accumulating over k blocks) and writes back alpha*Cp + beta*C.
 * Arguments are assumed valid (api.c checks them).
 */
#ifndef CHG_GEMM_H
#define CHG_GEMM_H

#include "params.h"

typedef struct chg_gemm_args_s {
    chg_precision_t prec;
    int trans_a, trans_b;  /* 0 = no transpose, 1 = transpose (column-major view) */
    size_t m, n, k;
    double alpha, beta;
    cl_mem a, b, c;
    size_t off_a, off_b, off_c;  /* elements */
    size_t lda, ldb, ldc;
} chg_gemm_args_t;

/* Enqueues C := alpha*op(A)*op(B) + beta*C (column-major) on queue, after the events in
 * wait_list. *event (if not NULL) receives an event that completes when C is final. */
clhgemm_status_t chg_gemm_enqueue(const chg_gemm_args_t *args, cl_command_queue queue,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *event);

/* Device facts for the queue's device (cached per device). */
clhgemm_status_t chg_queue_device(cl_command_queue queue, const chg_device_t **dev,
                                  cl_context *context);

/* Frees every workspace (waits for their last use). */
void chg_gemm_release_all(void);

/* Budget in bytes for one queue's workspace on this device (CLHGEMM_WORKSPACE_LIMIT caps it). */
unsigned long long chg_workspace_budget(const chg_device_t *dev);

#endif
