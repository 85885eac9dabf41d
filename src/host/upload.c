/*
 * upload.c -- a host block to a device buffer in column chunks through pinned memory (upload.h
 * says what; moved out of host/trsm_strips.c, its user).
 */
#include "host/upload.h"

#include <stdio.h>

#include "host/event.h"
#include "host/fault.h"

/* Chunk j's columns, rows and pinned place. */
static char *chunk_geom(const chg_upload_t *u, int j, size_t *c0, size_t *c1, size_t *r0,
                        size_t *r1)
{
    chg_chunk_cols(u->cols, u->nch, j, c0, c1);
    *r0 = u->tri < 0 ? *c0 : 0;
    *r1 = u->tri > 0 ? *c1 : u->rows;
    return u->reg_bytes ? u->pin + (size_t)(j % u->nreg) * u->reg_bytes
                        : u->pin + *c0 * u->rows * u->es;
}

/* Hands chunk j's copy to the pack threads, once its pinned region is free. */
static cl_int upload_start(chg_pool_t *pool, chg_upload_t *u, int j, chg_copy_t *m)
{
    size_t c0, c1, r0, r1;
    char *pin = chunk_geom(u, j, &c0, &c1, &r0, &r1);
    if (u->reg_bytes) {
        const cl_int err = chg_ev_wait(&u->reg_ev[j % u->nreg]);
        if (err != CL_SUCCESS) return err;
    }
    chg_copy_start(pool, u->parts, m, pin, r1 - r0, u->src + (r0 + c0 * u->sld) * u->es, u->sld,
                   r1 - r0, c1 - c0, u->es, 0, CHG_TRI_NONE, 0, NULL, "upload");
    return CL_SUCCESS;
}

/* Chunk j's DMA (its copy done); its event also becomes *last (the h2d queue is in order). */
static cl_int upload_dma(const chg_fault_t *fault, chg_handle_dev_t *d, chg_upload_t *u, int j,
                         double *bytes, cl_event *last)
{
    size_t c0, c1, r0, r1;
    char *pin = chunk_geom(u, j, &c0, &c1, &r0, &r1);
    const size_t es = u->es, h = r1 - r0, w = c1 - c0;
    const size_t dr = u->dr + r0, dc = u->dc + c0;
    cl_int err = chg_fault_cmd(fault, d);
    cl_event ev = NULL;
    cl_command_queue q = u->queue ? u->queue : d->q[Q_H2D];
    if (err == CL_SUCCESS && h == u->dld) { /* whole columns: dr is 0 */
        err = clEnqueueWriteBuffer(q, u->dev, CL_FALSE, dc * h * es, h * w * es, pin, 0,
                                   NULL, &ev);
    } else if (err == CL_SUCCESS) {
        const size_t o[3] = {dr * es, dc, 0}, ho[3] = {0, 0, 0}, reg[3] = {h * es, w, 1};
        err = clEnqueueWriteBufferRect(q, u->dev, CL_FALSE, o, ho, reg, u->dld * es, 0,
                                       h * es, 0, pin, 0, NULL, &ev);
    }
    if (err != CL_SUCCESS) return err;
    clFlush(q); /* a wait on this copy must not depend on an unflushed queue */
    if (u->trace) {
        char track[32];
        snprintf(track, sizeof track, "dev%d upload", d->index);
        chg_trace_device(u->trace, d->index, track, "upload", ev);
    }
    *bytes += (double)(h * w * es);
    if (u->reg_bytes) {
        chg_ev_release(&u->reg_ev[j % u->nreg]);
        clRetainEvent(ev);
        u->reg_ev[j % u->nreg] = ev;
    }
    chg_ev_release(last);
    *last = ev;
    return CL_SUCCESS;
}

/* Chunk j + 1's copy is handed out before chunk j's DMA is enqueued (where two regions or a
 * whole-block place allow it), so the pack threads and the bus overlap. */
cl_int chg_upload(chg_pool_t *pool, const chg_fault_t *fault, chg_handle_dev_t *d, chg_upload_t *u,
                  double *bytes, cl_event *last)
{
    chg_copy_t m[2];
    int live[2] = {0, 0};
    const int ahead = !u->reg_bytes || u->nreg >= 2;
    cl_int err = CL_SUCCESS;
    for (int j = 0; j < u->nch && err == CL_SUCCESS; j++) {
        if (!live[j & 1]) {
            err = upload_start(pool, u, j, &m[j & 1]);
            live[j & 1] = err == CL_SUCCESS;
        }
        if (err == CL_SUCCESS && ahead && j + 1 < u->nch) {
            err = upload_start(pool, u, j + 1, &m[(j + 1) & 1]);
            live[(j + 1) & 1] = err == CL_SUCCESS;
        }
        if (live[j & 1]) chg_copy_finish(pool, &m[j & 1]);
        live[j & 1] = 0;
        if (err == CL_SUCCESS) err = upload_dma(fault, d, u, j, bytes, last);
    }
    for (int i = 0; i < 2; i++)
        if (live[i]) chg_copy_finish(pool, &m[i]); /* a copy in flight ends before we leave */
    return err;
}
