/*
 * call.h -- one host-memory call in flight: the checked call in the column-major view, its
 * plan, and the state its device drivers and CPU share threads share (the band schedule under
 * `mu`, the first error, the counters for the call info). Made by host/entry.c, run by
 * host/run.c; host/sched.c hands out its tiles.
 */
#ifndef CHG_HOST_CALL_H
#define CHG_HOST_CALL_H

#include "host/plan.h"

/* The columns of one band (tile row) not yet taken: [lo, hi). Its owner takes tiles of bn
 * columns from the band's front (lo for even bands, hi for odd ones: HDGEMM's snake order);
 * a device with nothing left of its own, and the CPU share, take from the back of the fullest
 * band. */
typedef struct chg_band_s {
    size_t lo, hi;
} chg_band_t;

static inline size_t chg_band_left(const chg_band_t *b) { return b->hi - b->lo; }

typedef struct chg_call_s {
    clhgemm_handle_t h;
    chg_precision_t prec;
    size_t es;
    int ta, tb;                 /* column-major view */
    size_t m, n, k;
    double alpha, beta;
    double alpha_im, beta_im;   /* complex calls (st.cplx): the imaginary parts */
    /* complex calls whose alpha goes into X_A's pack (HER2K: pack_alpha in the first product,
     * its conjugate in the second; alpha is then 1): core/gemm_args.h alpha_in_pack */
    int alpha_in_pack;
    double pack_alpha[2];
    const char *a, *b;          /* user memory (column-major view) */
    char *c;
    size_t lda, ldb, ldc;
    chg_plan_t pl;
    /* shared work queue */
    pthread_mutex_t mu;
    chg_band_t *bands;
    size_t next_band;           /* bands below this are claimed */
    int drivers, drivers_started; /* drivers running, and how many claimed a first band */
    size_t ntiles;
    long long stolen;
    clhgemm_status_t status;    /* first error */
    chg_trace_t *trace;
    struct chg_shared_b_s *bs;  /* B slices staged once for every device (host/shared_b.h), or
                                 * NULL; then every band is walked from its front (host/sched.c) */
    double bytes_h2d, bytes_d2h;
    double copy_bytes, copy_ns; /* pack threads' work over all drivers, and their wall time */
    int devices_used;
    int pack_parts;             /* cap on pack-thread parts while OpenBLAS runs (0: none) */
    /* CPU strips (CPU_STRIPS): OpenBLAS threads, its rate and the devices' total rate (for the
     * strip width and the rule that the CPU never becomes the tail) */
    int cpu_strips, cpu_threads;
    double cpu_rate, gpu_rate;
    double cpu_elems;           /* C elements computed by the CPU */
    double setup_s;             /* the slowest device's setup (kernels, buffers, staging) */
    /* Level-3 host calls (SYMM, SYRK, SYR2K, TRMM; all zero for GEMM): the structure in pack
     * coordinates (core/gemm.h), SYR2K's second product over k slices kts..2kts-1 with the operands
     * exchanged (segs = 2), and what the schedule must respect (host/run.c). */
    chg_struct_t st;
    int segs;                   /* 1, or 2 for SYR2K */
    int l3;                     /* a level-3 call: no CPU share */
    int align_n;                /* tiles start on the bn grid (symmetric X_B: square diagonal blocks) */
    int no_pieces;              /* a device's final tile is not split into column pieces */
    double flops;               /* the routine's own operation count (for the log) */
    const char *name;
} chg_call_t;

/* Whether the call's beta is zero (both parts): C is then never read. */
static inline int chg_call_beta_zero(const chg_call_t *c) { return c->beta == 0.0 && c->beta_im == 0.0; }

/* Records the call's first error (the drivers stop taking tiles). */
static inline void chg_call_fail(chg_call_t *c, clhgemm_status_t st)
{
    pthread_mutex_lock(&c->mu);
    if (c->status == CLHGEMM_SUCCESS) c->status = st;
    pthread_mutex_unlock(&c->mu);
}

#endif
