/*
 * fact_xfer.c -- a factorization's transfers (fact_xfer.h).
 */
#include "lapack/fact_xfer.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/event.h"
#include "host/devmem.h"
#include "host/fault.h"
#include "host/upload.h"

/* The uploads cross in column chunks of about CHUNK_BYTES through UP_REGIONS regions of one
 * pinned buffer (the device's kept staging st_b[0]), so the pack threads fill one region while
 * the others' DMAs run. */
#define CHUNK_BYTES (16u << 20)
#define UP_REGIONS 4

/* ---- up ------------------------------------------------------------------------------------- */

typedef struct upl_s {
    chg_fact_t *f;
    int d;
    pthread_t th;
    int started;
    atomic_int err; /* its first error (read by the driver while it runs) */
} upl_t;

/* The pinned regions of an upload of a stored rows x cols rectangle: columns per chunk. */
static size_t chunk_cols(const chg_fact_t *f, size_t rows, size_t cols)
{
    return CHG_MAX((size_t)1, CHG_MIN(cols, CHUNK_BYTES / (rows * f->es)));
}

/* A ring of pinned regions reused by successive uploads: when the region size changes, a new
 * region can overlap an old one whose last DMA is not the one its own event waits for, so all
 * of the ring's DMAs end first. */
static cl_int ring_settle(cl_event *ring, size_t *reg_was, size_t reg)
{
    cl_int err = CL_SUCCESS;
    if (*reg_was != reg)
        for (int r = 0; r < UP_REGIONS; r++) {
            const cl_int e = chg_ev_wait(&ring[r]);
            if (err == CL_SUCCESS) err = e;
        }
    *reg_was = reg;
    return err;
}

/* The caller's stored rectangle of block j: what goes up (Cholesky: the view's rows from the
 * block's diagonal down), as a column-major block rows x cols at src, and where it lands in
 * the device's storage (dr, dc). */
static void block_rect(const chg_fact_t *f, size_t j, const char **src, size_t *rows,
                       size_t *cols, size_t *dr, size_t *dc)
{
    const chg_fact_call_t *c = f->c;
    const size_t c0 = chg_fact_c0(f, j), w = chg_fact_w(f, j), es = f->es;
    const size_t r0 = c->kind == CHG_FACT_POTRF ? c0 : 0, vr = c->m - r0, jl = f->lcol[j];
    if (!c->trans) { /* view rows r0 .. m of columns c0 .. c0 + w */
        *src = (const char *)c->a + (r0 + c0 * c->lda) * es;
        *rows = vr, *cols = w, *dr = r0, *dc = jl;
    } else { /* stored rows c0 .. c0 + w (the view's columns), stored columns r0 .. m */
        *src = (const char *)c->a + (c0 + r0 * c->lda) * es;
        *rows = w, *cols = vr, *dr = jl, *dc = r0;
    }
}

/* The pack threads a block's upload takes: half of them where the CPU factors large panels
 * beside it (LU, QR: the CPU LAPACK on every core; on the H100 host the first DGETRF panel of
 * n = 16384, beside the upload, took 238 ms against 12-14 ms for the next ones), all for
 * Cholesky, whose panels are small. */
static int upload_parts(const chg_fact_t *f)
{
    const int threads = chg_pool_threads(f->h->pool);
    const int def = f->c->kind == CHG_FACT_POTRF ? 0 : CHG_MAX(1, threads / 2);
    /* CLHGEMM_FACTOR_UPLOAD_PARTS (an experiment): that many, 0 all */
    return chg_env_int("CLHGEMM_FACTOR_UPLOAD_PARTS", def, 0, 4096);
}

static void *uploader(void *arg)
{
    upl_t *u = arg;
    chg_fact_t *f = u->f;
    chg_fdev_t *x = &f->fd[u->d];
    clhgemm_handle_t h = f->h;
    cl_event ring[UP_REGIONS] = {NULL};
    double bytes = 0;
    size_t done = 0, reg_was = 0;
    cl_int err = CL_SUCCESS;
    for (size_t j = f->w0; j < f->w1 && err == CL_SUCCESS; j++) {
        if (f->owner[j] != u->d) continue;
        while (f->hold && done >= 2 && atomic_load(&f->steps_done) < f->hold &&
               !atomic_load(&f->unhold)) {
            const struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
        const char *src;
        size_t rows, cols, dr, dc;
        block_rect(f, j, &src, &rows, &cols, &dr, &dc);
        const size_t cc = chunk_cols(f, rows, cols);
        err = ring_settle(ring, &reg_was, rows * cc * f->es);
        if (err != CL_SUCCESS) {
            atomic_store(&u->err, err);
            break;
        }
        chg_upload_t up = {.src = src, .sld = f->c->lda, .rows = rows, .cols = cols, .es = f->es,
                           .tri = 0, .pin = x->hd->st_b[0].ptr, .reg_bytes = rows * cc * f->es,
                           .nreg = UP_REGIONS, .reg_ev = ring, .dev = x->mat.buf,
                           .dld = x->mat.ld, .dr = dr, .dc = dc,
                           .nch = (int)chg_ceil_div(cols, cc), .queue = x->qu,
                           .trace = f->trace, .parts = upload_parts(f)};
        cl_event last = NULL;
        err = chg_fact_injected(f, u->d);
        if (err == CL_SUCCESS)
            err = chg_upload(h->pool, &chg_fact_no_fault, x->hd, &up, &bytes, &last);
        if (err == CL_SUCCESS) {
            f->up_ev[j] = last;
            atomic_store(&f->ups[u->d], ++done);
        } else {
            chg_ev_release(&last);
            atomic_store(&u->err, err);
        }
    }
    for (int r = 0; r < UP_REGIONS; r++) chg_ev_release(&ring[r]);
    return NULL;
}

cl_int chg_fx_up_start(chg_fact_t *f, int d)
{
    chg_fdev_t *x = &f->fd[d];
    /* the largest region of a block's upload and, out of core, of a streamed piece of panels
     * (st_b[1]); both reserved before any upload runs */
    const size_t rows = f->c->trans ? f->nb : f->c->m;
    size_t reg = rows * chunk_cols(f, rows, SIZE_MAX) * f->es;
    if (f->stage_blk) {
        const size_t srows = f->c->trans ? f->stage_blk * f->nb : f->c->m;
        reg = CHG_MAX(reg, srows * chunk_cols(f, srows, SIZE_MAX) * f->es);
    }
    atomic_store(&f->ups[d], 0);
    cl_int err = chg_devmem_reserve_pinned(x->hd, x->hd->st_b, f->stage_blk ? 2 : 1,
                                           UP_REGIONS * reg);
    if (err != CL_SUCCESS) return err;
    upl_t *u = calloc(1, sizeof *u);
    if (!u) return CLHGEMM_OUT_OF_HOST_MEMORY;
    u->f = f;
    u->d = d;
    atomic_init(&u->err, CL_SUCCESS);
    if (pthread_create(&u->th, NULL, uploader, u) != 0) {
        free(u);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    u->started = 1;
    x->uploader = u;
    return CL_SUCCESS;
}

cl_int chg_fx_up_join(chg_fact_t *f)
{
    cl_int first = CL_SUCCESS;
    for (int d = 0; d < f->ndev; d++) {
        upl_t *u = f->fd[d].uploader;
        if (!u) continue;
        pthread_join(u->th, NULL);
        if (first == CL_SUCCESS) first = atomic_load(&u->err);
        free(u);
        f->fd[d].uploader = NULL;
    }
    return first;
}

int chg_fx_arrived(chg_fact_t *f, size_t j, int wait, cl_int *err)
{
    if (f->arrived[j]) return 1;
    const int d = f->owner[j];
    size_t t = 0; /* its index among its owner's blocks of the window */
    for (size_t i = f->w0; i < j; i++) t += f->owner[i] == d;
    upl_t *u = f->fd[d].uploader;
    if (wait) atomic_store(&f->unhold, 1);
    while (atomic_load(&f->ups[d]) <= t) {
        if (!wait || !u) return 0;
        const cl_int ue = atomic_load(&u->err);
        if (ue != CL_SUCCESS) {
            *err = chg_fact_fail(f, d, ue);
            return 0;
        }
        const struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
    cl_event ev = f->up_ev[j];
    cl_int st = CL_COMPLETE;
    if (ev && !wait &&
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) != CL_SUCCESS)
        st = -1;
    if (ev && wait) st = clWaitForEvents(1, &ev) == CL_SUCCESS ? CL_COMPLETE : -1;
    if (st < 0) {
        *err = chg_fact_fail(f, d, st == -1 ? CL_INVALID_EVENT : st);
        return 0;
    }
    if (st != CL_COMPLETE) return 0;
    f->arrived[j] = 1;
    return 1;
}

/* ---- out of core: earlier windows' panels -------------------------------------------------- */

cl_int chg_fx_stream(chg_fact_t *f, int d, size_t p0, size_t p1, size_t r0, int slot,
                     chg_lsrc_t *src, cl_event *last)
{
    const chg_fact_call_t *c = f->c;
    chg_fdev_t *x = &f->fd[d];
    const size_t es = f->es, c0 = p0 * f->nb, c1 = CHG_MIN(p1 * f->nb, c->n), rows = c->m - r0;
    const size_t srows = c->trans ? c1 - c0 : rows, scols = c->trans ? rows : c1 - c0;
    const size_t dld = c->trans ? f->stage_blk * f->nb : c->m;
    const char *a = (const char *)c->a + (c->trans ? c0 + r0 * c->lda : r0 + c0 * c->lda) * es;
    const size_t cc = chunk_cols(f, srows, scols);
    _Static_assert(UP_REGIONS <= sizeof x->ring / sizeof *x->ring, "the stream's pinned ring");
    chg_upload_t up = {.src = a, .sld = c->lda, .rows = srows, .cols = scols, .es = es, .tri = 0,
                       .pin = x->hd->st_b[1].ptr, .reg_bytes = srows * cc * es,
                       .nreg = UP_REGIONS, .reg_ev = x->ring, .dev = x->stage[slot], .dld = dld,
                       .dr = 0, .dc = 0, .nch = (int)chg_ceil_div(scols, cc), .queue = x->qh,
                       .trace = f->trace};
    double bytes = 0;
    /* x->ring outlives the call: the next piece's copies wait for these DMAs */
    cl_int err = ring_settle(x->ring, &x->ring_reg, up.reg_bytes);
    if (err == CL_SUCCESS) err = chg_fact_injected(f, d);
    if (err == CL_SUCCESS)
        err = chg_upload(f->h->pool, &chg_fact_no_fault, x->hd, &up, &bytes, last);
    *src = (chg_lsrc_t){.L = {.buf = x->stage[slot], .off = 0, .ld = dld, .trans = c->trans},
                        .r0 = r0, .c0 = c0};
    return chg_fact_fail(f, d, err);
}

/* ---- panels --------------------------------------------------------------------------------- */

/* The stored rectangle of a view rectangle: rows x cols of the view at V is, as stored,
 * srows x scols at V.off (column-major with V.ld). */
static void stored(const chg_dview_t *V, size_t rows, size_t cols, size_t *sr, size_t *sc)
{
    *sr = V->trans ? cols : rows;
    *sc = V->trans ? rows : cols;
}

static cl_int rect(int write, cl_command_queue q, size_t es, chg_dview_t V, size_t rows,
                   size_t cols, void *host, size_t hld, cl_uint nw, const cl_event *wait,
                   cl_event *ev)
{
    size_t sr, sc;
    stored(&V, rows, cols, &sr, &sc);
    if (!sr || !sc) return clEnqueueMarkerWithWaitList(q, nw, wait, ev);
    const size_t o[3] = {(V.off % V.ld) * es, V.off / V.ld, 0}, ho[3] = {0, 0, 0};
    const size_t reg[3] = {sr * es, sc, 1};
    if (write)
        return clEnqueueWriteBufferRect(q, V.buf, CL_FALSE, o, ho, reg, V.ld * es, 0, hld * es, 0,
                                        host, nw, wait, ev);
    return clEnqueueReadBufferRect(q, V.buf, CL_FALSE, o, ho, reg, V.ld * es, 0, hld * es, 0,
                                   host, nw, wait, ev);
}

cl_int chg_fx_read(cl_command_queue q, size_t es, chg_dview_t V, size_t rows, size_t cols,
                   void *host, size_t hld, cl_uint nw, const cl_event *wait, cl_event *ev)
{
    return rect(0, q, es, V, rows, cols, host, hld, nw, wait, ev);
}

cl_int chg_fx_write(cl_command_queue q, size_t es, chg_dview_t V, size_t rows, size_t cols,
                    const void *host, size_t hld, cl_uint nw, const cl_event *wait, cl_event *ev)
{
    return rect(1, q, es, V, rows, cols, (void *)host, hld, nw, wait, ev);
}

/* ---- home ----------------------------------------------------------------------------------- */

/* A transposing copy: dst(j, i) = src(i, j) for i < rows, j < cols, by tiles of TILE, parts of
 * whole column tiles. */
#define TILE 32
typedef struct chg_fx_tr_s {
    const char *src;
    char *dst;
    size_t sld, dld, rows, cols, es;
    int parts;
} tr_t;

static void tr_part(void *arg, int part, int worker)
{
    (void)worker;
    const tr_t *t = arg;
    const size_t tiles = chg_ceil_div(t->cols, TILE);
    const size_t j0 = tiles * (size_t)part / (size_t)t->parts * TILE;
    const size_t j1 = CHG_MIN(t->cols, tiles * (size_t)(part + 1) / (size_t)t->parts * TILE);
    for (size_t jb = j0; jb < j1; jb += TILE)
        for (size_t ib = 0; ib < t->rows; ib += TILE) {
            const size_t je = CHG_MIN(j1, jb + TILE), ie = CHG_MIN(t->rows, ib + TILE);
            for (size_t j = jb; j < je; j++)
                for (size_t i = ib; i < ie; i++)
                    memcpy(t->dst + (j + i * t->dld) * t->es, t->src + (i + j * t->sld) * t->es,
                           t->es);
        }
}

void chg_fx_home_start(chg_fact_t *f, chg_fx_home_t *hm, const void *src, size_t sld, size_t r0,
                       size_t rows, size_t c0, size_t cols, int flags)
{
    const chg_fact_call_t *c = f->c;
    const size_t es = f->es;
    const int lower = flags & CHG_FX_LOWER;
    hm->live = 0;
    hm->tr = NULL;
    if (!rows || !cols) return;
    hm->live = 1;
    if (!c->trans || (flags & CHG_FX_STORED)) {
        /* a plain copy of the stored rectangle (the view's lower triangle is the stored upper
         * one where the view is stored transposed) */
        char *dst = (char *)c->a + (c->trans ? c0 + r0 * c->lda : r0 + c0 * c->lda) * es;
        const size_t sr = c->trans ? cols : rows, sc = c->trans ? rows : cols;
        const int tri = !lower ? CHG_TRI_NONE : c->trans ? CHG_TRI_UPPER : CHG_TRI_LOWER;
        chg_copy_start(f->h->pool, 0, &hm->copy, dst, c->lda, src, sld, sr, sc, es, 0, tri, 0,
                       f->trace, "factor home");
        return;
    }
    char *dst = (char *)c->a + (c0 + r0 * c->lda) * es;
    tr_t *t = malloc(sizeof *t);
    if (!t) { /* no memory for a job record: copy it on this thread */
        const tr_t tt = {src, dst, sld, c->lda, rows, cols, es, 1};
        tr_part((void *)&tt, 0, 0);
        hm->live = 0;
        return;
    }
    const int threads = chg_pool_threads(f->h->pool);
    *t = (tr_t){src, dst, sld, c->lda, rows, cols, es,
                (int)CHG_MAX((size_t)1, CHG_MIN((size_t)threads * 2, chg_ceil_div(cols, TILE)))};
    hm->tr = t;
    chg_pool_start(f->h->pool, &hm->job, t->parts, tr_part, t, f->trace, "factor home");
}

void chg_fx_home_finish(chg_fact_t *f, chg_fx_home_t *hm)
{
    if (!hm->live) return;
    if (hm->tr) {
        chg_pool_finish(f->h->pool, &hm->job);
        free(hm->tr);
        hm->tr = NULL;
    } else {
        chg_copy_finish(f->h->pool, &hm->copy);
    }
    hm->live = 0;
}

/* ---- swaps ---------------------------------------------------------------------------------- */

typedef struct swp_s {
    const chg_fact_t *f;
    const int *piv;
    size_t r0, r1; /* the interchanges of rows r0 .. r1 */
    size_t ncols;  /* on columns 0 .. ncols (those after whose panel each comes) */
    int parts;
} swp_t;

/* Column-major: column by column, all its interchanges in order (a column stays in cache).
 * Transposed: row by row, the row segments of the columns the interchange applies to (those
 * of earlier panels), contiguous. */
static void swap_part(void *arg, int part, int worker)
{
    (void)worker;
    const swp_t *s = arg;
    const chg_fact_t *f = s->f;
    const chg_fact_call_t *c = f->c;
    const size_t es = f->es, nb = f->nb;
    const size_t j0 = s->ncols * (size_t)part / (size_t)s->parts;
    const size_t j1 = s->ncols * (size_t)(part + 1) / (size_t)s->parts;
    char *a = c->a;
    if (!c->trans) {
        /* typed: an element swap is a load and a store each way, not three memcpy calls */
#define CHG_SWAP_COLUMNS_(T)                                                                  \
    for (size_t col = j0; col < j1; col++) {                                                  \
        T *x = (T *)(void *)(a + col * c->lda * es);                                         \
        for (size_t r = CHG_MAX(s->r0, (col / nb + 1) * nb); r < s->r1; r++) {                \
            const size_t p = (size_t)s->piv[r];                                               \
            const T t = x[r];                                                                 \
            x[r] = x[p];                                                                      \
            x[p] = t;                                                                         \
        }                                                                                     \
    }
        if (es == sizeof(double)) {
            CHG_SWAP_COLUMNS_(double)
        } else {
            CHG_SWAP_COLUMNS_(float)
        }
#undef CHG_SWAP_COLUMNS_
        return;
    }
    char tmp[4096];
    for (size_t r = CHG_MAX(s->r0, nb); r < s->r1; r++) {
        const size_t p = (size_t)s->piv[r];
        const size_t e1 = CHG_MIN(j1, r / nb * nb); /* columns of the panels before r's */
        if (p == r || e1 <= j0) continue;
        char *x = a + (r * c->lda + j0) * es, *y = a + (p * c->lda + j0) * es;
        for (size_t q = 0; q < (e1 - j0) * es; q += sizeof tmp) {
            const size_t len = CHG_MIN(sizeof tmp, (e1 - j0) * es - q);
            memcpy(tmp, x + q, len);
            memcpy(x + q, y + q, len);
            memcpy(y + q, tmp, len);
        }
    }
}

void chg_fx_swaps(chg_fact_t *f, const int *ipiv0, size_t r0, size_t r1, size_t ncols)
{
    ncols = CHG_MIN(ncols, f->c->n);
    if (r1 <= r0 || !ncols) return;
    const int threads = chg_pool_threads(f->h->pool);
    swp_t s = {f, ipiv0, r0, r1, ncols,
               (int)CHG_MAX((size_t)1, CHG_MIN((size_t)threads * 4, ncols / 16))};
    chg_pool_run(f->h->pool, s.parts, swap_part, &s, f->trace, "factor swaps");
}
