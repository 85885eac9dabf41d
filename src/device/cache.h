/*
 * cache.h -- compiled-program cache (cache.c owns it).
 *
 * Two levels. In memory: per (context, device), keyed by the full source text plus the build
 * options; a hit returns the same cl_program. On disk: CLHGEMM_CACHE_DIR (default
 * $XDG_CACHE_HOME/clhgemm, else ~/.cache/clhgemm), one file per program whose key also holds the
 * device name, the driver version and the platform version, so a binary is never loaded on a
 * device or driver it was not built for. Files are written to a temporary name and renamed, so
 * readers never see a half-written file; a file that is corrupt, truncated or foreign is ignored
 * and replaced. Thread-safe. CLHGEMM_CACHE_DIR=off disables the disk level.
 */
#ifndef CHG_CACHE_H
#define CHG_CACHE_H

#include "device/device.h"

/* Returns a built program for (context, device, source, options). The program stays owned by
 * the cache (do not release it); it lives until chg_cache_release_all(). On a build failure the
 * build log is available through CLHGEMM_VERBOSE and the status is
 * CLHGEMM_KERNEL_BUILD_FAILED. `name` is only used for logs and kernel dumps. */
clhgemm_status_t chg_program_get(cl_context context, const chg_device_t *dev, const char *name,
                                 const char *source, const char *options, cl_program *out);

/* Builds a program without touching either cache level (used by the tuner for candidates).
 * On failure *log (malloc'ed, may be NULL) receives the build log. */
clhgemm_status_t chg_program_build_uncached(cl_context context, cl_device_id device,
                                            const char *source, const char *options,
                                            cl_program *out, char **log);

typedef struct chg_cache_stats_s {
    unsigned long memory_hits;   /* served from the in-memory table */
    unsigned long disk_hits;     /* loaded from a valid disk file */
    unsigned long disk_rejects;  /* disk file present but corrupt/foreign/unloadable */
    unsigned long builds;        /* compiled from source */
    unsigned long disk_writes;   /* files written */
} chg_cache_stats_t;

/* Counters since load (or the last chg_cache_release_all). For tests and verbose logs. */
void chg_cache_stats(chg_cache_stats_t *out);

/* Directory of the disk cache currently in effect (NULL when disabled). Resolved per call from
 * the environment so tests can change it. Writes into buf (size len). */
const char *chg_cache_dir(char *buf, size_t len);

/* Drops every in-memory program (and context references) and resets the counters. */
void chg_cache_release_all(void);

/* CLHGEMM_DUMP_KERNELS=dir: writes `source` (with the options as a comment) to
 * dir/<name>-<hash>.cl. Called for every program the library builds or loads. */
void chg_dump_kernel(const char *name, const char *source, const char *options);

#endif
