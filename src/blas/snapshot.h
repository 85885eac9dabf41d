/*
 * snapshot.h -- the copy of C (B for TRMM and TRSM) that the BLAS drop-in keeps while a call
 * runs on the devices, so that a device failure can fall back to the CPU BLAS on the caller's
 * original data (dropin.c).
 *
 * Why it is kept and copied by the pack threads: a fresh malloc of the copy each call faulted
 * in and zeroed every page, and one thread copied; on the H100 machine a 4096 x 4096 FP64 C
 * (128 MB) took ~70 ms that way, ten to twenty times the device call itself (the LAPACK updates
 * of a blocked factorization, beta = 1). Now one buffer is kept between calls (up to
 * CLHGEMM_BLAS_SNAPSHOT_KEEP, default 256M; a larger copy, or a call made while another thread
 * holds the kept buffer, gets a buffer of its own), and the copy is the host pipeline's own
 * (host/staging.h chg_copy2d on the handle's pack threads), so the routing model prices it at
 * their rate.
 */
#ifndef CHG_BLAS_SNAPSHOT_H
#define CHG_BLAS_SNAPSHOT_H

#include <stddef.h>

#include "host/pool.h"

typedef struct chg_snap_s {
    char *p;                /* rows x cols elements of es bytes, columns packed */
    size_t rows, cols, es;
    int kept;               /* p is the kept buffer (its lock held until chg_snap_release) */
} chg_snap_t;

/* Copies the rows x cols block at c (leading dimension ldc, elements of es bytes) into s, on
 * pool's threads. Returns 0, or -1 when no memory could be had (nothing to release then). */
int chg_snap_take(chg_snap_t *s, chg_pool_t *pool, const void *c, size_t ldc, size_t rows, size_t cols,
                  size_t es);

/* Writes the copy back over the block at c (leading dimension ldc). */
void chg_snap_restore(const chg_snap_t *s, chg_pool_t *pool, void *c, size_t ldc);

/* Gives the buffer back (the kept one stays allocated for the next call). */
void chg_snap_release(chg_snap_t *s);

/* 1 when a copy of `bytes` goes to a buffer of its own (above CLHGEMM_BLAS_SNAPSHOT_KEEP): the
 * routing model then prices it at an eighth of the pack threads' rate, since a fresh buffer's
 * first touch costs several times the copy (the H100 machine: 512 MB on 8 threads at ~4.7 GB/s,
 * against ~25 GB/s into the kept buffer; the development VM: one thread 1.3-1.8 GB/s fresh,
 * 11-14 kept). */
int chg_snap_fresh(size_t bytes);

#endif
