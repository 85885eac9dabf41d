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
 *
 * Bounded memory: the in-memory table holds one reference on each context it has programs of,
 * so it lets go of a context itself. At every miss it drops the programs of the contexts that
 * nothing but the cache still references (by their reference count; cache.c says how), and it
 * never holds more than CHG_CACHE_MAX_CONTEXTS contexts or CHG_CACHE_MAX_PROGRAMS programs
 * (least recently used first out). A process that keeps creating and releasing contexts or
 * clhgemm handles therefore stays flat. Dropping is always safe: the thread that was handed a
 * program holds a reference of its own until it asks for the next, and a kernel keeps its
 * program.
 */
#ifndef CHG_CACHE_H
#define CHG_CACHE_H

#include "device/device.h"

/* Returns a built program for (context, device, source, options). Do not release it: it stays
 * valid until the calling thread's next chg_program_get() (or chg_cache_release_all()) at
 * least, whatever other threads do, which is all a caller needs to create its kernels (a
 * kernel keeps its program). On a build failure the build log is available through CLHGEMM_VERBOSE and the status is
 * CLHGEMM_KERNEL_BUILD_FAILED. `name` is only used for logs and kernel dumps. */
clhgemm_status_t chg_program_get(cl_context context, const chg_device_t *dev, const char *name,
                                 const char *source, const char *options, cl_program *out);

/* Builds a program without touching either cache level (used by the tuner for candidates).
 * On failure *log (malloc'ed, may be NULL) receives the build log. */
clhgemm_status_t chg_program_build_uncached(cl_context context, cl_device_id device,
                                            const char *source, const char *options,
                                            cl_program *out, char **log);

/* Caps of the in-memory table (contexts, and programs over all contexts). A context's own
 * GEMM and level-3 programs are a few dozen at most. */
#define CHG_CACHE_MAX_CONTEXTS 16
#define CHG_CACHE_MAX_PROGRAMS 512

typedef struct chg_cache_stats_s {
    unsigned long memory_hits;   /* served from the in-memory table */
    unsigned long disk_hits;     /* loaded from a valid disk file */
    unsigned long disk_rejects;  /* disk file present but corrupt/foreign/unloadable */
    unsigned long builds;        /* compiled from source */
    unsigned long disk_writes;   /* files written */
    unsigned long programs;      /* entries in the table now (not reset) */
    unsigned long contexts;      /* distinct contexts among them now (not reset) */
} chg_cache_stats_t;

/* Counters since load (or the last chg_cache_release_all). For tests and verbose logs. */
void chg_cache_stats(chg_cache_stats_t *out);

/* Directory of the disk cache currently in effect (NULL when disabled). Resolved per call from
 * the environment so tests can change it. Writes into buf (size len). */
const char *chg_cache_dir(char *buf, size_t len);

/* Drops every in-memory program (and context references) and resets the counters. Safe at any
 * time, also while other threads are in calls (they hold their own program references). */
void chg_cache_release_all(void);

/* CLHGEMM_DUMP_KERNELS=dir: writes `source` (with the options as a comment) to
 * dir/<name>-<hash>.cl. Called for every program the library builds or loads. */
void chg_dump_kernel(const char *name, const char *source, const char *options);

#endif
