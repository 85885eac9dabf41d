/*
 * staging.h -- the host side of moving a matrix block (staging.c owns it): page-locked
 * (pinned) staging buffers, device buffers with the allocation fault hook, the pack threads'
 * copies between the user's pageable matrices and compact staging (whole, or restricted to one
 * triangle), and the geometry of what of an operand slice crosses the bus.
 *
 * Test hook: CLHGEMM_FAULT_ALLOC=N makes the N-th device or pinned allocation of the process's
 * pipelines fail with CL_MEM_OBJECT_ALLOCATION_FAILURE.
 */
#ifndef CHG_HOST_STAGING_H
#define CHG_HOST_STAGING_H

#include "core/gemm.h"
#include "host/pool.h"

/* ---- buffers -------------------------------------------------------------------------------- */

/* A page-locked host buffer: an CL_MEM_ALLOC_HOST_PTR buffer kept mapped. */
typedef struct chg_pinned_s {
    cl_mem buf;
    void *ptr;
    size_t bytes;
} chg_pinned_t;

cl_int chg_pinned_alloc(cl_context ctx, cl_command_queue q, size_t bytes, chg_pinned_t *p);
void chg_pinned_free(cl_command_queue q, chg_pinned_t *p);

/* A device buffer of bytes (at least 1), or NULL with *err set (CLHGEMM_FAULT_ALLOC counts it). */
cl_mem chg_dev_alloc(cl_context ctx, size_t bytes, cl_int *err);

/* ---- the pack threads' copies ----------------------------------------------------------------
 * Column-major blocks of rows x cols elements of es bytes, leading dimensions in elements. The
 * copies run on the pool's threads, at most max_parts of them (0: all; the CPU share's core
 * budget leaves the pack threads the cores OpenBLAS does not use), with non-temporal stores on
 * x86-64 (CLHGEMM_STREAM_COPY, default on; 0: memcpy): the destination is read next by a DMA
 * engine or by the caller much later, so streaming past the caches saves the read-for-
 * ownership of every destination line. */
void chg_copy2d(chg_pool_t *pool, int max_parts, void *dst, size_t dld, const void *src, size_t sld,
                size_t rows, size_t cols, size_t es, chg_trace_t *tr, const char *name);

/* The same restricted to one triangle: element (r, c) of the block is copied only when its
 * global row - column, r - c + diag, puts it in the triangle tri (CHG_TRI_UPPER: <= 0,
 * CHG_TRI_LOWER: >= 0; strict: the diagonal excluded too); tri == CHG_TRI_NONE copies the whole
 * block. Nothing outside is read or written: it copies the stored triangle of a symmetric or
 * triangular operand into staging, and a SYRK/SYR2K C tile's triangle in and out of it.
 * Returns the elements copied. */
size_t chg_copy2d_tri(chg_pool_t *pool, int max_parts, void *dst, size_t dld, const void *src,
                      size_t sld, size_t rows, size_t cols, size_t es, long diag, int tri,
                      int strict, chg_trace_t *tr, const char *name);

/* The same in two steps (host/pool.h): start hands the copy to the pack threads, finish helps
 * with it and returns once it is done, with the elements copied. m is the caller's storage
 * until then. */
typedef struct chg_copy_s {
    char *dst;
    const char *src;
    size_t rows, cols, dld, sld, es;
    long diag;
    int tri, strict, parts;
    size_t elems;
    chg_pool_job_t job;
} chg_copy_t;

void chg_copy_start(chg_pool_t *pool, int max_parts, chg_copy_t *m, void *dst, size_t dld,
                    const void *src, size_t sld, size_t rows, size_t cols, size_t es, long diag,
                    int tri, int strict, chg_trace_t *tr, const char *name);
size_t chg_copy_finish(chg_pool_t *pool, chg_copy_t *m);

/* Columns [c0, c1) of chunk ch of a block nc wide split in nch chunks. */
static inline void chg_chunk_cols(size_t nc, int nch, int ch, size_t *c0, size_t *c1)
{
    *c0 = nc * (size_t)ch / (size_t)nch;
    *c1 = nc * (size_t)(ch + 1) / (size_t)nch;
}

/* ---- what of an operand slice crosses the bus ------------------------------------------------
 * The slice is X(r0..r0+rc, p0..p0+kc) in pack coordinates (X_A = op(A), X_B = op(B)^T,
 * core/gemm.h); in the user's memory M (M[a + b*ld]) that is the rectangle D, and X(p0.., r0..),
 * which a symmetric pack reads where the block lies outside the stored triangle, is the
 * rectangle Mr.
 *   general     D, copied whole (GEMM's slice)
 *   symmetric   D when the block lies in the stored triangle, Mr when it lies outside, both
 *               when it crosses the diagonal (the planner makes those blocks the diagonal
 *               squares, where D == Mr); only elements of the stored triangle are copied
 *   triangular  the bounding box of D's non-zero part (nothing when the block is all zeros);
 *               only the triangle is copied, a unit diagonal not at all
 * The staging slot holds the box with leading dimension ld at box_off; element (a, b) of M sits
 * at (a - oa) + (b - ob)*ld, with (oa, ob) the box's origin (general, symmetric) or D's origin
 * (triangular: the pack addresses its inside elements from there, and the box only leaves out
 * elements it never reads). off / off_m are the positions of X(r0, p0) and X(p0, r0) for the
 * device pack (chg_enqueue_pack_{a,b}_struct). */
typedef struct chg_rect_s {
    size_t a0, b0, ae, be;
} chg_rect_t;

typedef struct chg_stage_s {
    int kind;                 /* chg_struct_kind_t of the operand */
    chg_rect_t box;           /* staged box (ae == 0 or be == 0: nothing) */
    size_t ld, box_off;       /* in elements */
    size_t oa, ob;            /* M coordinates of staging position 0 (minus box_off) */
    size_t off, off_m;
    long diag;                /* r0 - p0: global row - column of X(0,0) of the block */
    int nrect;
    chg_rect_t rect[2];       /* what is copied */
    int tri, strict;          /* mask of the copies in M (CHG_TRI_*), diagonal excluded */
} chg_stage_t;

/* The stage of slice X(r0..r0+rc, p0..p0+kc) of operand A (is_a) or B of a call with structure
 * st; contig: X's rows run along M's leading dimension (X_A not transposed, X_B transposed). */
void chg_stage_geometry(const chg_struct_t *st, int is_a, int contig, size_t r0, size_t rc,
                        size_t p0, size_t kc, chg_stage_t *g);

/* Elements of the staging slot a stage uses. */
static inline size_t chg_stage_elems(const chg_stage_t *g)
{
    return g->nrect ? g->box_off + g->ld * g->box.be : 0;
}

#endif
