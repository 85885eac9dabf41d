/*
 * tune.h -- internals of clhgemm-tune shared by its files, which call one way only:
 *   clhgemm_tune.c   command line, budget and phases, summary, database (calls the phases)
 *   tune_gemm.c      GEMM kernel search (constrained space, staged coarse-to-fine search)
 *                    and its steps tune_gemm_{space,order,problem,final,record}.c, which share
 *                    tune_gemm_int.h and are called by tune_gemm.c only
 *   tune_classes.c   a kernel configuration and split-K per shape class (after the search)
 *   tune_trsm.c      TRSM's diagonal-block order (clhgemm_{s,d}trsm_cl timed per nb)
 *   tune_factor.c    the factorizations' panel width (the host driver timed per nb)
 *   tune_copy.c      copy/pack kernel search, next to clEnqueueCopyBuffer
 *   tune_pipeline.c  bus bandwidth, kernel rate vs tile shape, pack threads, routing figures,
 *                    queue count
 *   tune_cpumodel.c  the CPU/GPU split model of Garcia, Cuenca and Gimenez (T_gpu, T_cpu,
 *                    transfers, gamma) and the guided search over the share as its check
 *   tune_worker.c    build workers: child processes that compile candidate kernels in parallel
 *   tune_common.c    the run's options and state, clock, log and progress output, random fills,
 *                    kernel timing (tune_common.h; used by all of the above, calls none of them)
 */
#ifndef CLHGEMM_TUNE_H
#define CLHGEMM_TUNE_H

#include <sys/types.h>

#include "device/cache.h"
#include "kernels/codegen.h"
#include "device/device.h"
#include "kernels/params.h"
#include "tuning/tuning.h"
#include "tune_common.h"

/* ---- the devices ------------------------------------------------------------------------- */

/* One device being tuned. */
typedef struct tdev_s {
    int index;
    chg_device_t dev;
    cl_context ctx;
    cl_command_queue q;    /* in-order */
    int workers_ok;        /* build workers can be started */
    chg_tuning_record_t rec; /* what is being measured (starts from the stored entry) */
    double copy_default_gbs[2][2]; /* [prec][pack, pack_t] of the built-in copy kernels */
    char log_prefix[64];
} tdev_t;

/* ---- build workers (tune_worker.c) -------------------------------------------------------- */

#define TUNE_MAX_WORKERS 32

typedef struct wp_result_s {
    long id;
    int ok;
    char reason[512];       /* why it failed */
    unsigned char *binary;  /* program binary (malloc'ed), ok only */
    size_t binlen;
    size_t wg_max;          /* CL_KERNEL_WORK_GROUP_SIZE of the built kernel */
    unsigned long long priv_mem, local_mem; /* CL_KERNEL_PRIVATE_MEM_SIZE / _LOCAL_MEM_SIZE */
    double build_s;
} wp_result_t;

typedef struct wp_worker_s {
    pid_t pid;
    int to, from;           /* pipe to its stdin, from its stdout */
    long id;                /* request in flight, -1 when idle */
    double since;           /* when the request was sent */
    char *buf;              /* bytes read from it, not yet consumed */
    size_t len, cap;
    int dead;
} wp_worker_t;

typedef struct wp_pool_s {
    int n;
    wp_worker_t w[TUNE_MAX_WORKERS];
    char exe[4096];
    int dev_index;
    char errlog[4096];      /* workers' stderr goes here ("" = /dev/null) */
    double build_timeout_s;
    int crashes, timeouts;
} wp_pool_t;

/* Starts n workers for device dev_index. Returns the number started (0: none could be). */
int wp_start(wp_pool_t *p, const char *exe, int dev_index, int n, const char *errlog);
void wp_stop(wp_pool_t *p);
int wp_idle(const wp_pool_t *p);       /* workers without a request */
int wp_busy(const wp_pool_t *p);       /* requests in flight */
/* Sends request `line` (no newline) with id to an idle worker; 0, or -1 if none is idle. */
int wp_submit(wp_pool_t *p, long id, const char *line);
/* Waits up to timeout_s for one finished request. 1: *res filled (free res->binary), 0:
 * nothing yet. A worker that dies or exceeds the build timeout yields a failed result for its
 * request and is replaced. */
int wp_wait(wp_pool_t *p, double timeout_s, wp_result_t *res);
/* The worker process's main (clhgemm-tune --worker DEVICE_INDEX). */
int wp_worker_main(int dev_index);

/* Request lines: "g PREC PARAMS" for the GEMM kernel (PARAMS as chg_gemm_params_format),
 * "c PREC KIND CONTIG PARAMS" for a copy kernel (PARAMS as chg_copy_params_format). */
void wp_gemm_request(chg_precision_t prec, const chg_gemm_params_t *p, char *buf, size_t len);
void wp_copy_request(const chg_copy_params_t *p, char *buf, size_t len);

/* A program from a worker's binary, built for dev; the kernel named `kernel_name`. */
cl_int tune_program_from_binary(const tdev_t *d, const wp_result_t *res, const char *kernel_name,
                                cl_program *prog, cl_kernel *kernel, char *why, size_t why_len);

/* ---- phases ------------------------------------------------------------------------------ */

/* GEMM search for one precision until `deadline` (tune_now() seconds); fills d->rec.prec[prec]
 * (gemm, gflops, kernel_gflops, default_gflops, search statistics). Returns 0, or -1 when
 * nothing could be measured. */
int tune_gemm(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline);

/* Shape classes (kernels/shape.h): a kernel configuration and split of k for every class but
 * "large" (the GEMM search's), each timed as whole device calls on the class's representative
 * shape until deadline; fills d->rec.prec[prec].classes (tune_classes.c). Returns 0, or -1
 * when a class could not be measured. */
int tune_classes(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline);

/* large's reach down along k into medium's outputs (d->rec.prec[prec].classes[large].k_min,
 * tune_classes.c), timed with large's tail split: after the occupancy (tune_occupancy.c). */
void tune_large_reach(tune_run_t *r, tdev_t *d, chg_precision_t prec,
                      const chg_gemm_params_t *main_gp, double deadline);

/* TRSM's diagonal-block order for one precision until deadline: clhgemm_{s,d}trsm_cl timed for
 * each candidate nb (tune_trsm.c); the fastest into d->rec.prec[prec].trsm_nb (with trsm_size
 * and trsm_gflops) when at least two were timed. Returns 0, or -1 when none could be. */
int tune_trsm(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline);

/* The factorizations' panel width for one precision until deadline: Cholesky, LU and QR on host
 * memory (lapack/fact_driver.h chg_fact_run_host) timed for each candidate nb (tune_factor.c);
 * per routine the fastest into d->rec.prec[prec].factor_nb (with factor_gflops, and
 * factor_size) when at least two were timed. Returns 0 (also when skipped: no CPU LAPACK), or
 * -1 when a routine's every candidate failed or no handle could be made. */
int tune_factor(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline);

/* The occupancy phase (tune_occupancy.c): each class's work-groups per compute unit, measured,
 * into d->rec.prec[prec].classes[].wgs_per_cu (large added as a class of its own); -1 when a
 * configuration could not be measured. */
int tune_occupancy(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline);

/* Copy-kernel search (contiguous and transposing PACK) for one precision until deadline; fills
 * has_copy, pack, pack_t, pack_gbs, pack_t_gbs, copy_buffer_gbs. */
int tune_copy(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline);

/* Pipeline figures (d->rec.pipeline), kernel-rate tables (d->rec.prec[*].rates for the
 * precisions in prec_mask, with the parameters in d->rec, else the library's) and the routing
 * figures (d->rec.prec[*].route) until deadline. */
int tune_pipeline(tune_run_t *r, tdev_t *d, int prec_mask, double deadline);

/* The CPU/GPU split model (d->rec.cpumodel[] for the precisions in prec_mask) until deadline.
 * Returns 0, or -1 when a precision could not be fitted. */
int tune_cpumodel(tune_run_t *r, tdev_t *d, int prec_mask, double deadline);

#endif
