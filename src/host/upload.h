/*
 * upload.h -- a host block to a device buffer in column chunks through pinned memory (upload.c
 * owns it): the pack threads copy chunk j + 1 into pinned memory while chunk j's DMA runs on
 * the device's h2d queue, so the host's copies and the bus overlap. The host TRSM's strips
 * (host/trsm_strips.c) send A's triangle and every strip this way.
 */
#ifndef CHG_HOST_UPLOAD_H
#define CHG_HOST_UPLOAD_H

#include "host/handle.h"

/* An upload in column chunks: chunk j is columns [c0, c1) of the host block at src (chg_chunk_cols
 * of cols in nch), rows [r0, r1) of them (all rows, or a stored triangle); the pack threads copy
 * it into pinned memory (tight) and the h2d queue DMAs it from there to element (dr + r0,
 * dc + c0) of the device buffer dev (leading dimension dld). Pinned place: with reg_bytes 0, the
 * chunk's own columns of a tight copy of the whole block at pin; else region j % nreg of
 * reg_bytes at pin, free once the region's last DMA (reg_ev[j % nreg], which the upload
 * replaces) has ended. */
typedef struct chg_upload_s {
    const char *src;
    size_t sld, rows, cols, es;
    int tri;            /* 0: all rows; 1: upper (rows 0 .. c1); -1: lower (rows c0 .. rows) */
    char *pin;
    size_t reg_bytes;
    int nreg;
    cl_event *reg_ev;
    cl_mem dev;
    size_t dld, dr, dc; /* the block's element (0, 0) is (dr, dc) of dev */
    int nch;
    cl_command_queue queue; /* the DMAs' queue; NULL: the device's h2d queue */
    chg_trace_t *trace;     /* each DMA on track "dev<d> upload" (NULL: none) */
    int parts;              /* pack threads a chunk's copy may take (0: all) */
} chg_upload_t;

/* Runs upload u to device d: the copies on pool's threads, every DMA through the fault hook
 * (host/fault.h chg_fault_cmd). *last (released first when set) receives the last chunk's DMA
 * (the h2d queue is in order, so it ends after the others); *bytes grows by the bytes sent. A
 * copy in flight has ended when this returns, also on an error. */
cl_int chg_upload(chg_pool_t *pool, const chg_fault_t *fault, chg_handle_dev_t *d, chg_upload_t *u,
                  double *bytes, cl_event *last);

#endif
