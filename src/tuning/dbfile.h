/*
 * dbfile.h -- the tuning database's file format (dbfile.c owns it): what clhgemm-tune measured
 * on a device (GEMM kernel parameters, copy-kernel parameters, kernel rates, the routing
 * model's figures, pipeline figures, the CPU/GPU split model) as records, and their JSON files
 * (schema in docs/TUNING.md): parse and validate, write atomically, merge a record into a file.
 *
 * Nothing here knows which device asks or where the files are: the lookup that picks an entry
 * for a device is resolve.h's. The library includes tuning/tuning.h, which includes both.
 *
 * A file that is not valid JSON, has another format version, was written by an incompatible
 * library version (other major.minor), or breaks the schema is rejected as a whole (the reason
 * in why); device fitness is decided per entry at lookup, since one file holds many devices.
 */
#ifndef CHG_TUNING_DBFILE_H
#define CHG_TUNING_DBFILE_H

#include "kernels/codegen.h"
#include "cpu/share_blas.h"

#define CHG_TUNING_FORMAT "clhgemm-tuning"
#define CHG_TUNING_FORMAT_VERSION 1
#define CHG_TUNING_MAX_RATES 32   /* kernel-rate table rows per precision */
#define CHG_TUNING_MAX_POINTS 16  /* pack-thread and queue-count measurements */
#define CHG_TUNING_USER_FILE "tuning.json" /* clhgemm-tune's default file in the user dir */
#define CHG_TUNING_ROUTE_SIZES 4  /* OpenBLAS rates per route record: n = 64, 256, 1024, 2048
                                     (route_calls.h's chg_cpu_rate_size) */

/* One row of the kernel-rate table: the GEMM kernel alone on packed m x n x k operands. */
typedef struct chg_tuning_rate_s {
    int m, n, k;
    double gflops;
} chg_tuning_rate_t;

/* A measured (x, value) pair: pack threads -> GB/s, queue count -> seconds. */
typedef struct chg_tuning_point_s {
    int x;
    double value;
} chg_tuning_point_t;

/* The routing model's figures of one precision (host/route.c), measured by clhgemm-tune's
 * pipeline phase: stored as "route": {"latency_us", "cpu_threads", "cpu_gflops": [4]} in the
 * precision's object (docs/TUNING.md). They describe the machine (the host's OpenBLAS and the
 * host call's fixed cost), so the library takes them only from an exact entry. */
typedef struct chg_tuning_route_s {
    int present;
    double latency_us;        /* median wall time of a tiny host-memory call on the device */
    int cpu_threads;          /* OpenBLAS threads the rates were measured with (0: no rates) */
    double cpu_gflops[CHG_TUNING_ROUTE_SIZES]; /* OpenBLAS GEMM on n^3 at the sizes above */
} chg_tuning_route_t;

/* The kernel configuration of one shape class (kernels/shape.h), stored in the precision's
 * "classes" object under the class's name: the GEMM parameters (the keys of "gemm") with
 * "split_k" (0: chosen per call, 1: none, 2..64 slices) and, from clhgemm-tune, the shape it
 * was timed on and its rate. A class that an entry lacks runs the entry's main parameters
 * unsplit (files written before the classes keep their meaning), a thin one its tall / wide
 * class's configuration (kernels/shape.h chg_shape_class_parent). The rank_k class may also
 * carry "k_max": the largest k it takes beyond the classifier's 256 (kernels/shape.h
 * chg_shape_class_k; from CHG_SHAPE_RANK_K_MAX to CHG_SHAPE_RANK_K_MAX_LIMIT), which
 * clhgemm-tune measures after the classes; the large class "k_min": the smallest k at which it
 * takes medium's outputs of more than 2^22 elements (from CHG_SHAPE_LARGE_K_MIN_LOW to
 * CHG_SHAPE_LARGE_K_MIN_LIMIT), which clhgemm-tune measures after the occupancy. Any class may
 * carry "wgs_per_cu": how many work-groups of its configuration one compute unit holds at once
 * (1 to CHG_TUNING_MAX_WGS_PER_CU, measured by clhgemm-tune's occupancy phase); the device
 * GEMM's tail split (core/splitk.h) plans its waves with it, and without it splits no tail. */
#define CHG_TUNING_MAX_SPLIT_K 64
#define CHG_TUNING_MAX_WGS_PER_CU 64
typedef struct chg_tuning_class_s {
    int present;
    chg_gemm_params_t gemm;
    int split_k;
    int m, n, k;              /* the timing shape (0: not timed) */
    double gflops;            /* device call on it */
    int k_max;                /* rank_k only: its reach along k (0: the classifier's) */
    int k_min;                /* large only: its reach down along k (0: none) */
    int wgs_per_cu;           /* resident work-groups per compute unit (0: not measured) */
} chg_tuning_class_t;

/* The factorizations of factor_nb[] (potrf, getrf, geqrf: chg_fact_kind_t's order), their key
 * prefixes, and the bounds of a stored panel width (a reader rejects anything else). */
#define CHG_TUNING_FACTOR_KINDS 3
#define CHG_TUNING_FACTOR_NAMES {"potrf", "getrf", "geqrf"}
#define CHG_TUNING_FACTOR_NB_STEP 16
#define CHG_TUNING_FACTOR_NB_MAX 4096

/* What was tuned for one precision of one device. */
typedef struct chg_tuning_prec_s {
    int present;
    chg_gemm_params_t gemm;
    int size;                 /* n of the n x n x n timing problem */
    double gflops;            /* device call with these parameters (pack + kernel + write-back) */
    double kernel_gflops;     /* the GEMM kernel alone */
    double default_gflops;    /* the device call with the built-in defaults, same run */
    int candidates, failed;   /* kernels timed, kernels that failed (build, launch, check) */
    double search_seconds;    /* GEMM search time */
    double best_at_seconds;   /* when the chosen kernel was first timed in the search */
    int has_copy;
    chg_copy_params_t pack;   /* PACK, source contiguous along i */
    chg_copy_params_t pack_t; /* PACK, transposing */
    double pack_gbs, pack_t_gbs, copy_buffer_gbs; /* GB/s (read + written), same run */
    int nrates;
    chg_tuning_rate_t rates[CHG_TUNING_MAX_RATES];
    chg_tuning_route_t route; /* the routing model's figures (present = 0: none) */
    chg_tuning_class_t classes[CHG_SHAPE_NCLASSES]; /* per shape class (present = 0: main) */
    int trsm_nb;              /* "trsm_nb": TRSM's diagonal-block order (clhgemm-tune --trsm; 0:
                                 none, the built-in default applies), a multiple of
                                 CHG_TUNING_TRSM_NB_STEP up to CHG_TUNING_TRSM_NB_MAX */
    int trsm_size;            /* "trsm_size": m = n of the timing (0: not recorded) */
    double trsm_gflops;       /* "trsm_gflops": the TRSM call with trsm_nb, m*n*m flops / s */
    /* The factorizations' panel width (lapack/fact_driver.c chg_fact_nb), measured by
     * clhgemm-tune --factor on host memory: per routine (CHG_TUNING_FACTOR_NAMES order, the
     * lapack layer's chg_fact_kind_t) "<name>_nb" (0: none, the built-in default applies), a
     * multiple of CHG_TUNING_FACTOR_NB_STEP up to CHG_TUNING_FACTOR_NB_MAX, and "<name>_gflops"
     * (LAPACK's flop count of the n x n call with it, per second); "factor_size" is that n, one
     * for the three (0: not recorded). A writer without any of the three keeps the stored set. */
    int factor_nb[CHG_TUNING_FACTOR_KINDS];
    int factor_size;
    double factor_gflops[CHG_TUNING_FACTOR_KINDS];
} chg_tuning_prec_t;

/* The bounds of a stored trsm_nb (a reader rejects anything else). */
#define CHG_TUNING_TRSM_NB_STEP 16
#define CHG_TUNING_TRSM_NB_MAX 4096

/* Host pipeline figures of one device (read at handle creation: src/host/create.c). */
typedef struct chg_tuning_pipeline_s {
    int present;
    double h2d_pageable_gbs, d2h_pageable_gbs; /* clEnqueueWrite/ReadBuffer from malloc */
    double h2d_pinned_gbs, d2h_pinned_gbs;     /* ... from a mapped CL_MEM_ALLOC_HOST_PTR buffer */
    int pack_threads;                          /* best pack-thread count (0: not measured) */
    int npack;
    chg_tuning_point_t pack_gbs[CHG_TUNING_MAX_POINTS]; /* threads -> GB/s into pinned memory */
    int queues;                                /* best queue count (0: not measured) */
    int nqueue;
    chg_tuning_point_t queue_seconds[CHG_TUNING_MAX_POINTS]; /* queues -> seconds of a GEMM */
} chg_tuning_pipeline_t;

/* The CPU/GPU split model of one precision (Garcia, Cuenca and Gimenez; share_blas.h evaluates it),
 * measured by clhgemm-tune --cpu-model on the machine of the device: stored under "model":
 * {"cpu_share": {"s": {...}, "d": {...}}} (docs/TUNING.md). Only an exact entry gives it (it
 * describes the host's CPU and bus as much as the device). */
typedef struct chg_tuning_cpumodel_s {
    int present;
    chg_split_model_t split;  /* T_gpu, T_cpu (k1, k2, k3), transfers (t_s, t_w each way), gamma */
    int cpu_threads;          /* OpenBLAS threads T_cpu was measured with */
    char cpu_core[64];        /* OpenBLAS's core name during the run ("" unknown) */
    double mean_rel_err;      /* mean |predicted - measured| / measured over the tuning set */
    double gpu_err, cpu_err, hybrid_err; /* the same per kind of run */
    int samples;              /* runs in the tuning set */
    /* The guided search as a check, on a check_n^3 problem: the model's share with its
     * predicted and measured seconds, the search's best share and its seconds, evaluations. */
    int check_n;
    double model_share, model_pred_s, model_s;
    double search_share, search_s;
    int search_evals;
} chg_tuning_cpumodel_t;

/* One entry of a database: a device and what was tuned on it. */
typedef struct chg_tuning_record_s {
    char name[256];           /* CL_DEVICE_NAME */
    char driver[128];         /* CL_DRIVER_VERSION */
    char vendor[256];
    char platform[256];
    char arch[64];            /* chg_device_t.arch_key */
    char vendor_key[32];      /* chg_device_t.vendor_key */
    unsigned compute_units;
    unsigned long long local_mem, global_mem;
    unsigned long long max_work_group;
    char date[32];            /* of the tuning run, ISO 8601 UTC */
    char tool[64];            /* e.g. "clhgemm-tune 0.1.0" */
    double seconds;           /* wall time of the tuning run */
    chg_tuning_prec_t prec[2];   /* [CHG_F32], [CHG_F64] */
    chg_tuning_pipeline_t pipeline;
    chg_tuning_cpumodel_t cpumodel[2]; /* model.cpu_share.{s,d} (parsed and checked) */
    char *model;              /* the "model" object as JSON text, its other keys kept verbatim
                                 (cpu_share is rewritten from cpumodel[]); malloc'ed, or NULL */
} chg_tuning_record_t;

/* A whole database file. */
typedef struct chg_tuning_file_s {
    char library_version[32]; /* of the library that wrote it */
    char created[32];
    int count, cap;
    chg_tuning_record_t *records;
} chg_tuning_file_t;

void chg_tuning_file_init(chg_tuning_file_t *f);
void chg_tuning_file_free(chg_tuning_file_t *f);

/* Parses and validates a database (text or file). Returns 0, or -1 with the reason in why
 * (the file is then rejected as a whole and *f left empty). */
int chg_tuning_file_parse(const char *text, chg_tuning_file_t *f, char *why, size_t why_len);
int chg_tuning_file_read(const char *path, chg_tuning_file_t *f, char *why, size_t why_len);

/* Writes f to path atomically (a temporary file in the same directory renamed over it; the
 * directory is created). library_version and created are set to this library and now.
 * Returns 0, or -1 with the reason in why. */
int chg_tuning_file_write(const char *path, chg_tuning_file_t *f, char *why, size_t why_len);

/* The record of (name, driver) in f, or NULL. */
chg_tuning_record_t *chg_tuning_file_find(chg_tuning_file_t *f, const char *name,
                                          const char *driver);

/* Adds rec to f, or merges it into the record of the same device: the precisions, the
 * pipeline and the split models that rec has replace those of the stored record, the others
 * are kept (the model object's other keys too, unless rec has a model object; a precision of
 * rec without trsm_nb keeps the stored trsm_nb, trsm_size and trsm_gflops; one without any
 * factor_nb keeps the stored factor_nb, factor_size and factor_gflops). Returns 0, or -1 when
 * out of memory. */
int chg_tuning_file_upsert(chg_tuning_file_t *f, const chg_tuning_record_t *rec);

/* A record holding only dev's identity (name, driver, keys, facts). */
void chg_tuning_record_init(chg_tuning_record_t *rec, const chg_device_t *dev);
/* Deep copy (model included); 0, or -1 when out of memory. */
int chg_tuning_record_copy(chg_tuning_record_t *dst, const chg_tuning_record_t *src);
void chg_tuning_record_free(chg_tuning_record_t *rec);

/* The copy-parameter text of the files, shared with clhgemm-tune and clhgemm-info. */
/* "TILE_I=..,TILE_P=..,WPT_I=..,WPT_P=..,UD_I=..,UD_P=..,PAD=.." */
void chg_copy_params_format(const chg_copy_params_t *p, char *buf, size_t len);
/* Parses the same keys (any subset) over *p; 0, or -1 when malformed (p unchanged). */
int chg_copy_params_parse(const char *text, chg_copy_params_t *p);

#endif
