/*
 * snapshot.h -- the copy of C (B for TRMM and TRSM) that the BLAS drop-in keeps while a call
 * runs on the devices, so that a device failure can fall back to the CPU BLAS on the caller's
 * original data (dropin.c).
 *
 * Why it is kept and copied by several threads: a fresh malloc of the copy each call faulted in
 * and zeroed every page, and one thread copied; on the H100 machine a 4096 x 4096 FP64 C (128 MB)
 * took ~70 ms that way, ten to twenty times the device call itself (the LAPACK updates of a
 * blocked factorization, beta = 1). Now one buffer is kept between calls (up to
 * CLHGEMM_BLAS_SNAPSHOT_KEEP, default 256M; a larger copy, or a call made while another thread
 * holds the kept buffer, gets a buffer of its own), and copies of 16 MB or more are split by
 * columns over half the cores (at most 8 threads).
 */
#ifndef CHG_BLAS_SNAPSHOT_H
#define CHG_BLAS_SNAPSHOT_H

#include <stddef.h>

typedef struct chg_snap_s {
    char *p;                /* rows x cols elements of es bytes, columns packed */
    size_t rows, cols, es;
    int kept;               /* p is the kept buffer (its lock held until chg_snap_release) */
} chg_snap_t;

/* Copies the rows x cols block at c (leading dimension ldc, elements of es bytes) into s.
 * Returns 0, or -1 when no memory could be had (nothing to release then). */
int chg_snap_take(chg_snap_t *s, const void *c, size_t ldc, size_t rows, size_t cols, size_t es);

/* Writes the copy back over the block at c (leading dimension ldc). */
void chg_snap_restore(const chg_snap_t *s, void *c, size_t ldc);

/* Gives the buffer back (the kept one stays allocated for the next call). */
void chg_snap_release(chg_snap_t *s);

/* The threads a copy of `bytes` uses (1 below 16 MB, else half the cores, at most 8); _on: with
 * `cores` cores. */
int chg_snap_threads(size_t bytes);
int chg_snap_threads_on(size_t bytes, int cores);

/* The thread count at which the routing model prices a copy of `bytes` (route_call_t's
 * snapshot_threads: the pack threads' rate x threads / 8): chg_snap_threads where the kept
 * buffer can take it, else 1, since a fresh buffer's first touch costs several times the copy
 * (the H100 machine: 512 MB on 8 threads at ~4.7 GB/s, against ~25 GB/s into the kept buffer;
 * the development VM: one thread 1.3-1.8 GB/s fresh, 11-14 kept). */
int chg_snap_price_threads(size_t bytes);
int chg_snap_price_threads_on(size_t bytes, int cores);

#endif
