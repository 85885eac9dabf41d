/*
 * tuning.h -- the tuning layer as the library uses it: what clhgemm-tune measured on a device,
 * looked up for a device and precision, and the parameters that the library takes from it.
 * The header that every user of the layer includes; it brings the other two:
 *
 *   dbfile.h   the database files (schema in docs/TUNING.md): records, JSON parse and write
 *   resolve.h  the lookup: exact device -> architecture -> vendor -> built-in defaults over
 *              the user and the shipped database, CLHGEMM_TUNING, reload and bypass
 *   tuning.h   (tuning.c) the choices made from the entry: GEMM parameters under the
 *              CLHGEMM_*GEMM_PARAMS and CLHGEMM_SGEMM_MATH overrides, pack parameters, the
 *              kernel-rate estimate; and their cache, so that a GEMM call does not resolve again
 *
 * Resolved once: chg_tuned_gemm and chg_tuned_entry keep their answer per device and precision
 * (under a mutex) and give the same answer as chg_gemm_params_select and chg_tuning_lookup.
 * They resolve again when chg_tuning_generation() changes (chg_tuning_reload,
 * chg_tuning_set_bypass) or when any environment variable that the answer depends on changes
 * (the directories, CLHGEMM_TUNING, the parameter and math overrides): those are compared at
 * each call, so a setenv between two calls takes effect at the second, as it always did.
 */
#ifndef CHG_TUNING_H
#define CHG_TUNING_H

#include "tuning/dbfile.h"
#include "tuning/resolve.h"

/* The parameters that the library uses for (dev, prec): the tuning database's entry
 * (chg_tuning_lookup: exact device, architecture, vendor, else the defaults of params.h),
 * then CLHGEMM_GEMM_PARAMS (or CLHGEMM_SGEMM_PARAMS / CLHGEMM_DGEMM_PARAMS) over it if set and
 * valid (an invalid override is reported with CLHGEMM_VERBOSE and ignored). For FP32 with
 * CLHGEMM_SGEMM_MATH = tf32 / 3xtf32 on a device with NVIDIA tensor cores the base is
 * chg_gemm_params_tf32 instead of the database entry; elsewhere that request is reported and
 * the IEEE kernel is used. Resolves at every call; chg_tuned_gemm is the cached form. */
void chg_gemm_params_select(const chg_device_t *dev, chg_precision_t prec, chg_gemm_params_t *p);

/* chg_gemm_params_select's answer, resolved once per device and precision (and again after a
 * change of generation or of the environment it reads). Reports what select reports, at each
 * call. Thread-safe. */
void chg_tuned_gemm(const chg_device_t *dev, chg_precision_t prec, chg_gemm_params_t *out);

/* What a GEMM call of one shape runs with: its shape class's kernel configuration. */
typedef struct chg_gemm_choice_s {
    chg_gemm_params_t gp;
    int split_k;            /* 0: chosen per call (core/gemm.c); 1: none; s >= 2: s slices */
    chg_shape_class_t cls;  /* the class (CLHGEMM_SHAPE_CLASS, else chg_shape_class_k) */
    size_t k_max;           /* rank_k's reach along k (kernels/shape.h; the entry's k_max) */
    size_t k_min;           /* large's reach down along k (kernels/shape.h; the entry's
                             * k_min; 0: none) */
    int wgs_per_cu;         /* gp's work-groups resident per compute unit (the entry's
                             * wgs_per_cu; 0: unknown -- no tail split, core/splitk.h) */
    int forced;             /* 1: CLHGEMM_SHAPE_CLASS chose cls */
} chg_gemm_choice_t;

/* The configuration for an m x n x k call on (dev, prec): the class of the shape
 * (chg_shape_class_k with the entry's rank_k reach where the call reads C -- flags without
 * CHG_CALL_BETA_ZERO -- and its large reach where the call may split -- flags without
 * CHG_CALL_UNSPLIT: large wins there by its tail split; or
 * the one CLHGEMM_SHAPE_CLASS forces), and that class's parameters and split in the entry (a
 * thin class the entry lacks: its tall / wide parent's; another class it lacks: the main
 * parameters, unsplit). The overrides of chg_gemm_params_select (CLHGEMM_*GEMM_PARAMS,
 * CLHGEMM_SGEMM_MATH) force their one configuration on every class, unsplit; CLHGEMM_SPLIT_K =
 * s > 0 sets the split of every call (1: none). Resolved once per device and precision with
 * chg_tuned_gemm (the same cache and keys, these variables among them); per call only the
 * classification runs (constant time). */
#define CHG_CALL_BETA_ZERO 1 /* C is not read: no rank_k reach */
#define CHG_CALL_UNSPLIT 2   /* a structured call (never split, no tail split): no large reach */
void chg_tuned_gemm_shape(const chg_device_t *dev, chg_precision_t prec, size_t m, size_t n,
                          size_t k, unsigned flags, chg_gemm_choice_t *out);

/* The main parameters (chg_tuned_gemm's) as a choice: unsplit, with the large class's
 * wgs_per_cu where large runs them (else 0), resolved once the same way. Thread-safe. */
void chg_tuned_gemm_main(const chg_device_t *dev, chg_precision_t prec, chg_gemm_choice_t *out);

/* chg_tuning_lookup's answer (same arguments, same *out and level), resolved once the same
 * way. Thread-safe. */
chg_tuning_level_t chg_tuned_entry(const chg_device_t *dev, chg_precision_t prec,
                                   chg_tuning_entry_t *out);

/* TRSM's diagonal-block order in (dev, prec)'s entry (chg_tuned_entry's, resolved once the
 * same way): its trsm_nb, 0 when the entry has none (or no entry applies). When src is given
 * it gets where the value came from ("<level> entry <file>"). Thread-safe. The precedence
 * CLHGEMM_TRSM_NB > this > the built-in default is core/trsm_subst.c's (chg_trsm_nb). */
int chg_tuned_trsm_nb(const chg_device_t *dev, chg_precision_t prec, char *src, size_t len);

/* The factorizations' panel width in (dev, prec)'s entry, the same way: kind 0 potrf, 1 getrf,
 * 2 geqrf (the lapack layer's chg_fact_kind_t); 0 when the entry has none for it, no entry
 * applies or kind is out of range. The precedence CLHGEMM_FACTOR_NB > this > the built-in
 * default is lapack/fact_driver.c's (chg_fact_nb). */
int chg_tuned_factor_nb(const chg_device_t *dev, chg_precision_t prec, int kind, char *src,
                        size_t len);

/* Parameters of a generated copy kernel for dev: PACK from the tuning entry (src_contig_i
 * selects the contiguous or the transposing variant; cached as chg_tuned_entry), other kinds
 * the codegen.c defaults. */
void chg_tuning_copy_params(const chg_device_t *dev, chg_precision_t prec, chg_copy_kind_t kind,
                            int src_contig_i, chg_copy_params_t *out);

/* The kernel rate (flop/s) the entry's kernel_rate table predicts for an m x n x k product:
 * the measurement nearest in log(m), log(n), log(k), scaled down by the fill of the last wave
 * when the product is smaller than that measurement's in m*n. 0 when the table is empty. */
double chg_tuning_kernel_rate(const chg_tuning_prec_t *p, double m, double n, double k);

#endif
