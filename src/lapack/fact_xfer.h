/*
 * fact_xfer.h -- what a factorization moves between host and devices (fact_xfer.c owns it).
 *
 *   up       each device's blocks from the caller's matrix into its storage, in block order, by
 *            a thread of its own (the pack threads fill pinned regions, its own queue DMAs
 *            them), from the call's start: the driver does not wait for it, it asks per block
 *            whether the block has arrived (chg_fx_arrived);
 *   panels   a view rectangle between a device and pinned host memory on a given queue: the
 *            panel going to the CPU and its factors coming back, and a panel for other devices;
 *   home     finished parts of the factorization from pinned memory into the caller's matrix by
 *            the pack threads, started and finished apart so that the next steps run meanwhile
 *            (a transposed view is copied transposed, a Cholesky diagonal block as its lower
 *            triangle);
 *   swaps    LU's row interchanges of the later panels on the finished columns in the caller's
 *            matrix, at the end (as MAGMA's hybrid LU does: the devices never apply them to
 *            columns that went home).
 *
 * Rectangles are in the view (fact.h); host rectangles are column-major in the view's
 * orientation as stored: a transposed view's r x c rectangle is held as c x r.
 */
#ifndef CHG_LAPACK_FACT_XFER_H
#define CHG_LAPACK_FACT_XFER_H

#include "host/pool.h"
#include "host/staging.h"
#include "lapack/fact_dist.h"
#include "lapack/fact_update.h"

/* ---- up ------------------------------------------------------------------------------------- */

/* Starts device d's uploader (host memory calls). */
cl_int chg_fx_up_start(chg_fact_t *f, int d);
/* Waits for every uploader to end; the first error of any. */
cl_int chg_fx_up_join(chg_fact_t *f);
/* Whether block j is on its device: arrived[j] set once its last DMA is complete; with wait,
 * waits for it. *err receives an upload's error (the block then never arrives). */
int chg_fx_arrived(chg_fact_t *f, size_t j, int wait, cl_int *err);

/* ---- out of core ---------------------------------------------------------------------------- */

/* Panels [p0, p1) of the caller's matrix, view rows r0 .. m, into device d's stage[slot] (through
 * pinned regions of st_b[1], on its h2d queue); *src says where they are, *last the last DMA
 * (retained). Their columns must be home (finished copies). */
cl_int chg_fx_stream(chg_fact_t *f, int d, size_t p0, size_t p1, size_t r0, int slot,
                     chg_lsrc_t *src, cl_event *last);

/* ---- panels --------------------------------------------------------------------------------- */

/* rows x cols of the view at V on queue q, after the events in wait: to host (read) or from it
 * (write), host leading dimension hld (in the stored orientation). *ev (not NULL) receives the
 * copy's event; the call only enqueues. */
cl_int chg_fx_read(cl_command_queue q, size_t es, chg_dview_t V, size_t rows, size_t cols,
                   void *host, size_t hld, cl_uint nw, const cl_event *wait, cl_event *ev);
cl_int chg_fx_write(cl_command_queue q, size_t es, chg_dview_t V, size_t rows, size_t cols,
                    const void *host, size_t hld, cl_uint nw, const cl_event *wait, cl_event *ev);

/* ---- home ----------------------------------------------------------------------------------- */

/* A copy home in flight. */
typedef struct chg_fx_home_s {
    int live;
    chg_copy_t copy;           /* a plain (or triangular) copy */
    chg_pool_job_t job;        /* a transposing one */
    struct chg_fx_tr_s *tr;
} chg_fx_home_t;

/* Starts copying rows [r0, r0 + rows) x columns [c0, c0 + cols) of the view from src (element
 * (0, 0) = view (r0, c0), leading dimension sld) into the caller's matrix. src is column-major in
 * the view (a transposed caller's matrix then gets a transposing copy), or with CHG_FX_STORED
 * already in the caller's stored orientation; CHG_FX_LOWER copies only the view's lower
 * triangle of a diagonal block (rows >= columns). */
enum { CHG_FX_STORED = 1, CHG_FX_LOWER = 2 };
void chg_fx_home_start(chg_fact_t *f, chg_fx_home_t *hm, const void *src, size_t sld, size_t r0,
                       size_t rows, size_t c0, size_t cols, int flags);
void chg_fx_home_finish(chg_fact_t *f, chg_fx_home_t *hm);

/* ---- swaps ---------------------------------------------------------------------------------- */

/* LU: the interchanges of rows r0 .. r1 (pivots ipiv0: 0-based rows of the view) on the
 * caller's columns 0 .. ncols, each only on the columns of panels before its own (the rows it
 * swaps are below those panels): the finished columns went home as their panel left them. */
void chg_fx_swaps(chg_fact_t *f, const int *ipiv0, size_t r0, size_t r1, size_t ncols);

#endif
