/*
 * trsm_strips.c -- host-memory TRSM by strips of right-hand sides (trsm_strips.h says what).
 *
 * One thread (the caller's) drives every device; the pool's pack threads do the host copies.
 * Everything crosses the bus in column chunks (CHUNK_BYTES or more): the pack threads fill
 * chunk j + 1 in pinned memory while chunk j's DMA runs (the uploads: host/upload.h). Per device: A's triangle goes up in
 * chunks of block columns through a ring of regions of the last slot's pinned buffer (h2d
 * queue), then the diagonal blocks are inverted (kernel queue). Then the strips, taken
 * dynamically: whenever a device has a free slot (SLOTS per device), it takes the lowest strip
 * not taken yet: the pack threads copy the strip from the caller's B into the slot's pinned
 * buffer (tight) chunk by chunk, the h2d queue DMAs each chunk to the slot's device buffer as
 * it is filled (the first strip's chunks right behind A's), the kernel queue solves it
 * (core/trsm_dev.h), the d2h queue DMAs it back into the same pinned buffer, in column chunks
 * for side left (whole for side right, whose independent right-hand sides are B's rows). The
 * thread then waits for whichever read-back begins arriving first (polling when several
 * devices are busy), and the pack threads copy that strip home into B chunk by chunk as the
 * chunks arrive. So the bus sees only pinned memory, the first solve starts once A and the
 * first strip have crossed (not after A's copies, then the strip's, then its DMA), one strip's
 * copies overlap the other slots' solves, the last strip's copy home overlaps its read-back,
 * and a faster device takes more strips.
 *
 * A lost device (host/fault.h): B is written only from chunks read back, so a
 * strip that failed anywhere on a device before its read-back still holds its input in B; a
 * read-back that fails part way leaves the chunks home solved and the rest (independent
 * columns) holding their input, which are solved on the CPU at once. An OpenCL error of a
 * device (in its setup but an allocation failure, in a strip's commands, or in a read-back's
 * event; CLHGEMM_FAULT_INJECT counts strips home as its tiles) marks the device lost (one line
 * on stderr), its strips not home go back to the pool of strips, and the other devices take
 * them; with none left, the remaining strips are solved on the CPU (chg_trsm_solve_panel on
 * the whole of A: OpenBLAS, else the library's substitution). The handle drops the device
 * after the call. Out of memory in a strip's commands (the first time in the call) is not a
 * lost device: its strips go back, its buffers and idle handles' on it are released, and it is
 * set up again (device_short); a second shortage, or a failed setup then, loses it.
 *
 * Strip width: CLHGEMM_TRSM_STRIP right-hand sides when set (a test hook and for experiments),
 * else the right-hand sides over 4 strips per device, at least 1024 (the device solve's GEMMs
 * have the strip's width as one dimension: a strip of k x 4096 runs the recursion's small
 * updates near the rate of the device-buffer path, one of k x 1024 well below it), halved
 * while the strips do not fit a device (never below 256 or the forced width: then the call
 * takes the blocked path).
 */
#include "host/trsm_strips.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/trace.h"
#include "core/trsm_dev.h"
#include "core/trsm_subst.h"
#include "host/devmem.h"
#include "host/event.h"
#include "host/fault.h"
#include "host/upload.h"

#define SLOTS 3 /* strips in flight per device (pinned and device buffers of one strip each) */
_Static_assert(SLOTS <= NSTAGE, "the strips' pinned buffers are the handle's st_a ring");
/* The copies cross the bus in column chunks of CHUNK_BYTES or more (CLHGEMM_TRSM_CHUNK bytes
 * when set: a test hook), at most MAX_CHUNKS per block: the pack threads fill chunk j + 1 while
 * chunk j's DMA runs, and a strip read back is copied home chunk by chunk as its chunks arrive.
 * A's chunks go through a ring of A_REGIONS regions of the last slot's pinned buffer. */
#define CHUNK_BYTES (16u << 20)
#define MAX_CHUNKS 32
#define A_REGIONS 4

/* Device bytes of the strips on one device: A (k x k, dense), D, SLOTS strips of k x w,
 * and what the GEMM core's workspace may take for the largest update (k/2 x w, inner k/2). */
static unsigned long long need_bytes(const chg_handle_dev_t *d, chg_precision_t prec, int cplx, size_t k,
                                     size_t nb, size_t w)
{
    const unsigned long long es = chg_elem_size(prec) * (cplx ? 2 : 1), kk = k;
    const unsigned long long ws = CHG_MIN(chg_workspace_budget(&d->dev),
                                          (kk * kk / 4 + kk * w) * es);
    return kk * kk * es + chg_trsm_dev_bytes(prec, cplx, k, nb) + SLOTS * kk * w * es + ws;
}

/* The strip width (right-hand sides per strip), 0 when the strips do not fit; nb[i] is device
 * i's diagonal-block order. */
static size_t strip_width(clhgemm_handle_t h, chg_precision_t prec, int cplx, size_t k, const size_t *nb,
                          size_t rhs)
{
    const size_t forced = (size_t)chg_env_int("CLHGEMM_TRSM_STRIP", 0, 0, INT_MAX);
    size_t w = forced ? CHG_MIN(forced, rhs)
                      : CHG_MAX(chg_ceil_div(rhs, 4 * (size_t)h->ndev), CHG_MIN(rhs, (size_t)1024));
    const size_t wmin = forced ? w : CHG_MIN(rhs, (size_t)256);
    for (;;) {
        int fit = 1;
        for (int i = 0; i < h->ndev && fit; i++)
            fit = need_bytes(&h->devs[i], prec, cplx, k, nb[i], w) <= h->devs[i].mem_limit;
        if (fit) return w;
        if (w / 2 < wmin) return 0;
        w = chg_ceil_div(w, 2);
    }
}

enum { S_TODO = 0, S_BUSY = 1, S_HOME = 2 };

/* One device's part. */
typedef struct sdev_s {
    chg_handle_dev_t *d;
    size_t nb;              /* its diagonal-block order (chg_trsm_nb of its device) */
    int ready, lost, used;  /* set up; lost in this call; took a strip */
    int shorted;            /* out of memory once in this call (device_short) */
    cl_mem a, slot[SLOTS];
    chg_trsm_dev_t t;
    int have_t;
    int staged;             /* A's rest not uploaded yet (the first half's block is) */
    size_t f0, f1;          /* the first half's rows (chg_trsm_dev_halves) */
    cl_event inv;           /* the inversion (the first half's while staged) */
    cl_event use[SLOTS];    /* the last command on the slot's pinned buffer (NULL: free) */
    cl_event rb[SLOTS][MAX_CHUNKS]; /* the slot's strip's read-back, chunk by chunk */
    int nrb[SLOTS];         /* its chunks (their columns: chg_chunk_cols of the strip) */
    long strip[SLOTS];      /* the strip in the slot, -1: none */
    unsigned long long seq[SLOTS];
} sdev_t;

/* The call. */
typedef struct strips_s {
    clhgemm_handle_t h;
    chg_precision_t prec;
    const chg_l3_shape_t *sh;
    double alpha[2];
    const char *A;
    char *B;
    size_t lda, ldb, es, k, rhs, w, nstrips, home, on_cpu;
    size_t chunk;           /* bytes of a chunk at least (CHUNK_BYTES) */
    unsigned char *state;   /* S_* per strip */
    unsigned long long seq;
    sdev_t *sd;
    int ndev;
    double to_dev, from_dev;
} strips_t;

/* CLHGEMM_TRSM_STAGED=0 uploads all of A before the first strip (for comparisons). */
static int staged_on(void) { return chg_env_flag("CLHGEMM_TRSM_STAGED", 1); }


/* Strip s in B: the host sub-matrix (rows x cols at *p, leading dimension ldb). */
static void strip_geom(const strips_t *c, size_t s, size_t *rows, size_t *cols, char **p)
{
    const size_t j0 = s * c->w, wn = CHG_MIN(c->rhs, j0 + c->w) - j0;
    *rows = c->sh->left ? c->k : wn;
    *cols = c->sh->left ? wn : c->k;
    *p = c->B + (c->sh->left ? j0 * c->ldb : j0) * c->es;
}

/* Waits for the last command on the slot's pinned buffer; its status. */
static cl_int slot_wait(sdev_t *s, int i) { return chg_ev_wait(&s->use[i]); }

/* The slot's read-back events. */
static void drop_rb(sdev_t *s, int i)
{
    for (int j = 0; j < MAX_CHUNKS; j++) chg_ev_release(&s->rb[i][j]);
    s->nrb[i] = 0;
}

/* Column chunks of a block of `bytes` with `cols` columns: CHUNK_BYTES or more each, at most
 * MAX_CHUNKS and one per column. */
static int chunk_count(const strips_t *c, size_t bytes, size_t cols)
{
    const size_t n = CHG_MIN(CHG_MIN((size_t)MAX_CHUNKS, cols), bytes / c->chunk);
    return (int)CHG_MAX((size_t)1, n);
}

/* A block of A's stored triangle: rows r0 .. r0 + rows, columns c0 .. c0 + cols of A (and of
 * its copy on the device); tri as chg_upload_t's for a diagonal block, 0 for an off-diagonal
 * one. */
typedef struct ablk_s {
    size_t r0, c0, rows, cols;
    int tri;
} ablk_t;

/* Blocks b[0 .. n) of A to the device, in that order: column chunks through one ring of
 * regions of slot `ring`'s pinned buffer (a slot without a strip), which is free again once the
 * last chunk has crossed; last[p]: block p's last DMA (NULL before it is enqueued). */
static cl_int upload_a(strips_t *c, sdev_t *s, int ring_slot, const ablk_t *b, int n,
                       cl_event *last)
{
    chg_handle_dev_t *d = s->d;
    const size_t k = c->k, es = c->es;
    const size_t cc = CHG_MAX((size_t)1, CHG_MIN(c->chunk / (k * es),
                                                  CHG_MAX((size_t)1, c->w / A_REGIONS)));
    cl_event ring[A_REGIONS] = {NULL};
    cl_int err = slot_wait(s, ring_slot);
    for (int p = 0; p < n && err == CL_SUCCESS; p++) {
        chg_upload_t u = {.src = c->A + (b[p].r0 + b[p].c0 * c->lda) * es, .sld = c->lda,
                      .rows = b[p].rows, .cols = b[p].cols, .es = es, .tri = b[p].tri,
                      .pin = d->st_a[ring_slot].ptr, .reg_bytes = k * cc * es,
                      .nreg = (int)CHG_MIN((size_t)A_REGIONS, c->w / cc), .reg_ev = ring,
                      .dev = s->a, .dld = k, .dr = b[p].r0, .dc = b[p].c0,
                      .nch = (int)chg_ceil_div(b[p].cols, cc)};
        err = chg_upload(c->h->pool, &c->h->fault, d, &u, &c->to_dev, &last[p]);
    }
    for (int r = 0; r < A_REGIONS; r++) chg_ev_release(&ring[r]);
    for (int p = n - 1; p >= 0; p--)
        if (last[p]) {
            clRetainEvent(last[p]);
            s->use[ring_slot] = last[p];
            break;
        }
    return err;
}

/* A's stored triangle in the blocks of a solve in two stages (trsm_dev.h): the first half's
 * diagonal block (b[0]), the off-diagonal block (b[1]), the other diagonal block (b[2]). */
static void a_halves(const strips_t *c, const sdev_t *s, ablk_t b[3])
{
    const size_t k = c->k, f0 = s->f0, f1 = s->f1, o0 = f0 ? 0 : f1, o1 = f0 ? f0 : k;
    const size_t mid = f0 ? f0 : f1; /* the split */
    const int tri = c->sh->upper ? 1 : -1;
    b[0] = (ablk_t){f0, f0, f1 - f0, f1 - f0, tri};
    b[1] = c->sh->upper ? (ablk_t){0, mid, mid, k - mid, 0} : (ablk_t){mid, 0, k - mid, mid, 0};
    b[2] = (ablk_t){o0, o0, o1 - o0, o1 - o0, tri};
}

/* The device's buffers, A and the inversion. An allocation failure is returned as such (the
 * caller may fall back to the blocked path); any other error means the device is lost. */
static cl_int setup_device(strips_t *c, sdev_t *s)
{
    chg_handle_dev_t *d = s->d;
    cl_int err = CL_SUCCESS;
    const size_t k = c->k, es = c->es;
    for (int i = 0; i < SLOTS; i++) s->strip[i] = -1;
    s->a = chg_dev_alloc(d->ctx, k * k * es, &err);
    for (int i = 0; i < SLOTS && err == CL_SUCCESS; i++)
        s->slot[i] = chg_dev_alloc(d->ctx, k * c->w * es, &err);
    if (err == CL_SUCCESS) err = chg_devmem_reserve_pinned(d, d->st_a, SLOTS, k * c->w * es);
    if (err != CL_SUCCESS) return err;
    clhgemm_status_t st = chg_trsm_dev_init(&s->t, d->ctx, &d->dev, c->prec, c->sh, s->nb);
    if (st != CLHGEMM_SUCCESS) return (cl_int)st;
    s->have_t = 1;
    /* In two stages (trsm_dev.h) where the solve has two halves: only the first half's
     * diagonal block of A now, the rest behind the first strip (take_strip), so that the first
     * solve starts once that block and the strip have crossed. */
    s->staged = chg_trsm_dev_halves(&s->t, &s->f0, &s->f1) && staged_on();
    ablk_t b[3];
    if (s->staged) a_halves(c, s, b);
    else b[0] = (ablk_t){0, 0, k, k, c->sh->upper ? 1 : -1};
    cl_event up = NULL;
    err = upload_a(c, s, SLOTS - 1, b, 1, &up); /* no strip in any slot yet */
    if (err == CL_SUCCESS && s->staged)
        err = (cl_int)chg_trsm_dev_invert_first(&s->t, d->q[Q_KERNEL], s->a, 0, k, up ? 1 : 0,
                                                up ? &up : NULL, &s->inv);
    else if (err == CL_SUCCESS)
        err = (cl_int)chg_trsm_dev_invert(&s->t, d->q[Q_KERNEL], s->a, 0, k, up ? 1 : 0,
                                          up ? &up : NULL, &s->inv);
    chg_ev_release(&up);
    if (err == CL_SUCCESS) s->ready = 1;
    return err;
}

/* The solved strip in slot i back into the slot's pinned buffer (not waited for): in column
 * chunks where the strip's columns are independent right-hand sides (side left), so that the
 * first ones go home while the rest cross; whole otherwise (side right: B's rows are). */
static cl_int read_back(strips_t *c, sdev_t *s, int i, size_t rows, size_t cols, cl_event solved)
{
    chg_handle_dev_t *d = s->d;
    const size_t es = c->es;
    const int nch = c->sh->left ? chunk_count(c, rows * cols * es, cols) : 1;
    cl_int err = CL_SUCCESS;
    for (int j = 0; j < nch && err == CL_SUCCESS; j++) {
        size_t c0, c1;
        chg_chunk_cols(cols, nch, j, &c0, &c1);
        err = clEnqueueReadBuffer(d->q[Q_D2H], s->slot[i], CL_FALSE, c0 * rows * es,
                                  (c1 - c0) * rows * es, (char *)d->st_a[i].ptr + c0 * rows * es,
                                  j ? 0 : 1, j ? NULL : &solved, &s->rb[i][j]);
        if (err == CL_SUCCESS) s->nrb[i] = j + 1;
    }
    clFlush(d->q[Q_D2H]);
    if (err != CL_SUCCESS) return err;
    clRetainEvent(s->rb[i][nch - 1]);
    s->use[i] = s->rb[i][nch - 1];
    c->from_dev += (double)(rows * cols * es);
    return CL_SUCCESS;
}

/* The first strip's solve in two stages (trsm_dev.h), its upload up: the first half's solve,
 * then A's rest up behind the strip (the pack threads copying it while that half solves), then
 * the update, the other half's inversion and solve; D is complete after s->inv from then on.
 * A's rest goes through another slot's pinned buffer: the device was set up (staged) with no
 * strip in any slot, and this is its first strip since, so the others are empty. */
static cl_int solve_two(strips_t *c, sdev_t *s, int i, size_t wn, size_t rows, cl_event up,
                        cl_event *solved)
{
    chg_handle_dev_t *d = s->d;
    ablk_t b[3];
    a_halves(c, s, b);
    const cl_event wl[2] = {up, s->inv};
    cl_event first = NULL, last[2] = {NULL, NULL}, inv = NULL;
    cl_int err = (cl_int)chg_trsm_dev_solve_first(&s->t, d->q[Q_KERNEL], s->a, 0, c->k, wn,
                                                  c->alpha, s->slot[i], 0, rows, 2, wl, &first);
    if (err == CL_SUCCESS) {
        s->staged = 0;
        err = upload_a(c, s, i == SLOTS - 1 ? 0 : SLOTS - 1, b + 1, 2, last);
    }
    if (err == CL_SUCCESS)
        err = (cl_int)chg_trsm_dev_solve_rest(&s->t, d->q[Q_KERNEL], s->a, 0, c->k, wn, c->alpha,
                                              s->slot[i], 0, rows, first, last[0], last[1],
                                              &inv, solved);
    if (err == CL_SUCCESS) {
        chg_ev_release(&s->inv);
        s->inv = inv;
    } else {
        if (first) clWaitForEvents(1, &first); /* the first stage still reads its buffers */
        chg_ev_release(&inv); /* an inversion enqueued before a later command failed */
    }
    chg_ev_release(&first);
    for (int p = 0; p < 2; p++) chg_ev_release(&last[p]);
    return err;
}

/* Strip `strip` into slot i of device s: pack and upload (chunked), solve, read back (not
 * waited for). */
static cl_int take_strip(strips_t *c, sdev_t *s, int i, size_t strip)
{
    chg_handle_dev_t *d = s->d;
    size_t rows, cols;
    char *hb;
    strip_geom(c, strip, &rows, &cols, &hb);
    const size_t wn = c->sh->left ? cols : rows;
    cl_int err = slot_wait(s, i);
    if (err == CL_SUCCESS) err = chg_fault_cmd(&c->h->fault, d);
    if (err != CL_SUCCESS) return err;
    chg_upload_t u = {.src = hb, .sld = c->ldb, .rows = rows, .cols = cols, .es = c->es,
                  .pin = d->st_a[i].ptr, .dev = s->slot[i], .dld = rows,
                  .nch = chunk_count(c, rows * cols * c->es, cols)};
    cl_event up = NULL, solved = NULL;
    err = chg_upload(c->h->pool, &c->h->fault, d, &u, &c->to_dev, &up);
    if (err == CL_SUCCESS && s->staged) {
        err = solve_two(c, s, i, wn, rows, up, &solved);
    } else if (err == CL_SUCCESS) {
        const cl_event wl[2] = {up, s->inv};
        err = (cl_int)chg_trsm_dev_solve(&s->t, d->q[Q_KERNEL], s->a, 0, c->k, wn, c->alpha,
                                         s->slot[i], 0, rows, 2, wl, &solved);
    }
    if (err == CL_SUCCESS) err = read_back(c, s, i, rows, cols, solved);
    if (err != CL_SUCCESS && up) clWaitForEvents(1, &up); /* the slot's pinned buffer is read */
    chg_ev_release(&up);
    chg_ev_release(&solved);
    if (err != CL_SUCCESS) {
        drop_rb(s, i);
        return err;
    }
    s->strip[i] = (long)strip;
    s->seq[i] = c->seq++;
    s->used = 1;
    c->state[strip] = S_BUSY;
    return CL_SUCCESS;
}

static cl_int setup_device(strips_t *c, sdev_t *s);

/* Device s out of memory with err, the first time in the call (host/fault.h): its commands end,
 * its strips not home go back to the pool, its buffers and the memory idle handles keep on it
 * are released, and it is set up again (A uploaded and inverted anew). 1 when it goes on. */
static int device_short(strips_t *c, sdev_t *s, cl_int err)
{
    chg_handle_dev_t *d = s->d;
    s->shorted = 1;
    for (int q = 0; q < 3; q++)
        if (d->q[q]) clFinish(d->q[q]);
    size_t back = 0;
    for (int i = 0; i < SLOTS; i++) {
        chg_ev_release(&s->use[i]);
        drop_rb(s, i);
        if (s->strip[i] >= 0) {
            c->state[s->strip[i]] = S_TODO;
            s->strip[i] = -1;
            back++;
        }
        if (s->slot[i]) clReleaseMemObject(s->slot[i]);
        s->slot[i] = NULL;
    }
    chg_ev_release(&s->inv);
    if (s->have_t) chg_trsm_dev_release(&s->t);
    s->have_t = 0;
    if (s->a) clReleaseMemObject(s->a);
    s->a = NULL;
    s->ready = 0;
    char again[64];
    snprintf(again, sizeof again, "solves its unfinished strips (%zu) again", back);
    chg_memory_short(c->h, d, c->prec == CHG_F64 ? "dtrsm" : "strsm", err, again);
    return setup_device(c, s) == CL_SUCCESS;
}

/* Device s is lost with err: marked, one line on stderr, its strips not home back to the pool.
 * Out of memory the first time in the call, it is set up again instead (device_short). */
static void device_lost(strips_t *c, sdev_t *s, cl_int err, const char *where)
{
    if (chg_fault_is_memory(err) && !s->shorted) {
        if (device_short(c, s, err)) return;
        err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        where = "its setup after a shortage";
    }
    s->lost = 1;
    s->d->lost = 1;
    s->d->lost_err = err;
    size_t back = 0;
    for (int i = 0; i < SLOTS; i++)
        if (s->strip[i] >= 0) {
            drop_rb(s, i);
            c->state[s->strip[i]] = S_TODO;
            s->strip[i] = -1;
            back++;
        }
    int left = 0; /* devices not lost (those not set up yet count: they may take over) */
    for (int j = 0; j < c->ndev; j++) left += !c->sd[j].lost;
    fprintf(stderr,
            "clhgemm: device %d (%s) lost in %s (%s: %s, %d); this handle does not use it again; "
            "its unfinished strips (%zu) and the rest are solved on %s\n",
            s->d->index, s->d->dev.info.name, c->prec == CHG_F64 ? "dtrsm" : "strsm", where,
            clhgemm_status_string((clhgemm_status_t)err), (int)err, back,
            left ? "the other device(s)" : "the CPU");
}

/* CLHGEMM_FAULT_INJECT's failure of a read-back chunk after the first: the device counts as
 * lost from its after-th strip's copy home on (one strip earlier than chg_fault_cmd, so that
 * a read-back lost part way is what the hook reaches where a strip has several chunks). */
static cl_int injected_home(const strips_t *c, const chg_handle_dev_t *d)
{
    if (c->h->fault.oom) return CL_SUCCESS; /* kind=oom: a read-back allocates nothing */
    return chg_fault_at(&c->h->fault, d, d->tiles_done + 1);
}

/* The strip in slot i of s is coming home (its first chunk read back): into B, chunk by chunk
 * as the chunks arrive, each chunk's copy running while the next is waited for. A chunk that
 * fails loses the device; the columns of it and those after it still hold their input (B is
 * written only from chunks read back), are independent right-hand sides (several chunks only
 * for side left), and are solved on the CPU here. */
static void strip_home(strips_t *c, sdev_t *s, int i)
{
    size_t rows, cols, c0, c1;
    char *hb;
    const size_t strip = (size_t)s->strip[i], es = c->es;
    strip_geom(c, strip, &rows, &cols, &hb);
    const int nch = s->nrb[i];
    chg_copy_t m[2];
    int live[2] = {0, 0}, j;
    cl_int err = CL_SUCCESS;
    for (j = 0; j < nch; j++) {
        err = chg_ev_wait(&s->rb[i][j]);
        if (err == CL_SUCCESS && j > 0) err = injected_home(c, s->d);
        if (err != CL_SUCCESS) break;
        chg_chunk_cols(cols, nch, j, &c0, &c1);
        chg_copy_start(c->h->pool, 0, &m[j & 1], hb + c0 * c->ldb * es, c->ldb,
                       (char *)s->d->st_a[i].ptr + c0 * rows * es, rows, rows, c1 - c0, es, 0,
                       CHG_TRI_NONE, 0, NULL, "trsm B out");
        live[j & 1] = 1;
        if (j > 0) chg_copy_finish(c->h->pool, &m[(j - 1) & 1]), live[(j - 1) & 1] = 0;
    }
    for (int q = 0; q < 2; q++)
        if (live[q]) chg_copy_finish(c->h->pool, &m[q]);
    drop_rb(s, i);
    c->state[strip] = S_HOME;
    c->home++;
    s->strip[i] = -1;
    if (err == CL_SUCCESS) {
        s->d->tiles_done++;
        return;
    }
    slot_wait(s, i);
    chg_chunk_cols(cols, nch, j, &c0, &c1);
    device_lost(c, s, err, "a strip's copy home");
    chg_trsm_solve_panel(c->prec, c->sh, rows, cols - c0, c->alpha, c->A, c->lda,
                         hb + c0 * c->ldb * es, c->ldb);
    c->on_cpu++;
}

/* Gives every live device with a free slot the lowest strip not taken (slot by slot across the
 * devices, so that a few strips spread over them); 1 when any strip is in flight. A device
 * lost here puts its strips back: the passes start again (each loses a device, so they end). */
static int feed(strips_t *c, size_t *next)
{
    for (int again = 1; again;) {
        again = 0;
        for (int i = 0; i < SLOTS; i++)
            for (int j = 0; j < c->ndev; j++) {
                sdev_t *s = &c->sd[j];
                if (!s->ready || s->lost || s->strip[i] >= 0) continue;
                while (*next < c->nstrips && c->state[*next] != S_TODO) ++*next;
                if (*next == c->nstrips) continue;
                const cl_int err = take_strip(c, s, i, *next);
                if (err != CL_SUCCESS) {
                    device_lost(c, s, err, "a strip's commands");
                    *next = 0;
                    again = 1;
                }
            }
    }
    int busy = 0;
    for (int j = 0; j < c->ndev; j++)
        for (int i = 0; i < SLOTS; i++) busy |= !c->sd[j].lost && c->sd[j].strip[i] >= 0;
    return busy;
}

/* Waits for a strip's read-back to begin arriving (its first chunk: the oldest strip's when one
 * device is busy; polls otherwise), then brings it home or loses its device. */
static void collect(strips_t *c, size_t *next)
{
    for (;;) {
        sdev_t *old = NULL;
        int oi = -1, ndevs = 0;
        for (int j = 0; j < c->ndev; j++) {
            sdev_t *s = &c->sd[j];
            int any = 0;
            for (int i = 0; i < SLOTS; i++) {
                if (s->lost || s->strip[i] < 0) continue;
                any = 1;
                cl_int es = CL_QUEUED;
                clGetEventInfo(s->rb[i][0], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof es, &es, NULL);
                if (es == CL_COMPLETE) {
                    strip_home(c, s, i);
                    return;
                }
                if (es < 0) {
                    device_lost(c, s, es, "a strip's solve or copy");
                    *next = 0;
                    return;
                }
                if (!old || s->seq[i] < old->seq[oi]) old = s, oi = i;
            }
            ndevs += any;
        }
        if (!old) return;
        if (ndevs == 1) {
            clWaitForEvents(1, &old->rb[oi][0]); /* its status is read on the next pass */
        } else {
            const struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
    }
}

/* The strips not home, on the CPU (every device lost). */
static void cpu_rest(strips_t *c)
{
    for (size_t s = 0; s < c->nstrips; s++) {
        if (c->state[s] == S_HOME) continue;
        size_t rows, cols;
        char *hb;
        strip_geom(c, s, &rows, &cols, &hb);
        chg_trsm_solve_panel(c->prec, c->sh, rows, cols, c->alpha, c->A, c->lda, hb, c->ldb);
        c->state[s] = S_HOME;
        c->home++;
        c->on_cpu++;
    }
}

/* Waits for every device's queues (all that was enqueued ends) and frees the device state. */
static void finish(strips_t *c)
{
    for (int j = 0; j < c->ndev; j++) {
        sdev_t *s = &c->sd[j];
        for (int q = 0; q < 3; q++)
            if (s->d->q[q]) clFinish(s->d->q[q]);
        for (int i = 0; i < SLOTS; i++) {
            chg_ev_release(&s->use[i]);
            drop_rb(s, i);
            if (s->slot[i]) clReleaseMemObject(s->slot[i]);
        }
        chg_ev_release(&s->inv);
        if (s->have_t) chg_trsm_dev_release(&s->t);
        if (s->a) clReleaseMemObject(s->a);
    }
}

static void record(strips_t *c, double seconds)
{
    int used = 0;
    for (int j = 0; j < c->ndev; j++) used += c->sd[j].used;
    chg_handle_set_last(c->h, &(clhgemm_call_info_t){
        .devices_used = used, .tiles = (long long)c->nstrips,
        .tile_m = (int)(c->sh->left ? c->k : c->w), .tile_n = (int)(c->sh->left ? c->w : c->k),
        .tile_k = (int)c->k, .seconds = seconds, .bytes_to_device = c->to_dev,
        .bytes_from_device = c->from_dev, .a_mode = 1,
        .cpu_fraction = (double)c->on_cpu / (double)c->nstrips,
        .cpu_threads = c->on_cpu ? chg_cpu_cores() : 0});
}

/* Sets up the devices; 0, or an allocation failure on some device (nothing written to B). */
static cl_int setup_all(strips_t *c)
{
    for (int j = 0; j < c->ndev; j++) {
        sdev_t *s = &c->sd[j];
        s->d = &c->h->devs[j];
        const cl_int err = setup_device(c, s);
        if (err == CL_SUCCESS) continue;
        if (!chg_fault_is_loss(err, 1)) return err;
        device_lost(c, s, err, "its setup");
    }
    return CL_SUCCESS;
}

/* The strips on the devices, then what is left on the CPU. */
static cl_int run_strips(strips_t *c)
{
    const cl_int err = setup_all(c);
    if (err != CL_SUCCESS) return err;
    size_t next = 0;
    while (c->home < c->nstrips) {
        if (!feed(c, &next)) break; /* nothing in flight: no device left */
        collect(c, &next);
    }
    if (c->home < c->nstrips) cpu_rest(c);
    return CL_SUCCESS;
}

size_t chg_trsm_strips_order(clhgemm_handle_t h, chg_precision_t prec, int cplx, size_t k, size_t rhs,
                             size_t unit)
{
    if (unit == 0 || k <= unit) return 0;
    pthread_mutex_lock(&h->call_lock);
    const int nd = h->ndev;
    size_t *own = nd > 0 ? malloc(2 * (size_t)nd * sizeof *own) : NULL, best = 0;
    if (own) {
        size_t *nb = own + nd;
        for (int j = 0; j < nd; j++) own[j] = chg_trsm_nb(&h->devs[j].dev, prec);
        /* the strips' need grows with the order: bisect over the multiples of unit below k */
        size_t lo = 1, hi = (k - 1) / unit;
        while (lo <= hi) {
            const size_t mid = lo + (hi - lo) / 2, kb = mid * unit;
            for (int j = 0; j < nd; j++) nb[j] = CHG_MIN(own[j], kb);
            if (strip_width(h, prec, cplx, kb, nb, rhs)) {
                best = kb;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
    }
    pthread_mutex_unlock(&h->call_lock);
    free(own);
    return best;
}

int chg_trsm_strips(clhgemm_handle_t h, chg_precision_t prec, const chg_l3_shape_t *sh,
                    const double alpha[2], const void *A, size_t lda, void *B, size_t ldb,
                    clhgemm_status_t *st)
{
    if (!chg_trsm_panel_on_device(chg_trsm_panel_mode()) || h->ndev == 0) return 0;
    strips_t c = {.h = h, .prec = prec, .sh = sh, .alpha = {alpha[0], alpha[1]}, .A = A, .B = B, .lda = lda,
                  .ldb = ldb, .es = chg_elem_size(prec) * (sh->cplx ? 2 : 1), .k = sh->k,
                  .rhs = sh->left ? sh->n : sh->m,
                  .chunk = CHG_MAX(1ull, chg_env_size("CLHGEMM_TRSM_CHUNK", CHUNK_BYTES))};
    pthread_mutex_lock(&h->call_lock);
    c.ndev = h->ndev;
    c.sd = calloc((size_t)c.ndev, sizeof *c.sd);
    size_t *nb = malloc((size_t)c.ndev * sizeof *nb);
    for (int j = 0; c.sd && nb && j < c.ndev; j++)
        nb[j] = c.sd[j].nb = CHG_MIN(chg_trsm_nb(&h->devs[j].dev, prec), c.k);
    c.w = c.sd && nb ? strip_width(h, prec, sh->cplx, c.k, nb, c.rhs) : 0;
    if (c.w == 0) {
        pthread_mutex_unlock(&h->call_lock);
        free(c.sd);
        free(nb);
        return 0;
    }
    c.nstrips = chg_ceil_div(c.rhs, c.w);
    c.state = calloc(c.nstrips, 1);
    cl_int err = c.state ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    const unsigned long long t0 = chg_now_ns();
    chg_log(1, "trsm: k = %zu, %zu right-hand sides in %zu strips of %zu over %d device(s), "
            "nb = %zu on the first", c.k, c.rhs, c.nstrips, c.w, c.ndev, nb[0]);
    if (err == CL_SUCCESS) err = run_strips(&c);
    if (c.sd) finish(&c);
    if (err == CL_SUCCESS) record(&c, chg_seconds_since(t0));
    chg_handle_drop_lost(h);
    pthread_mutex_unlock(&h->call_lock);
    free(c.sd);
    free(nb);
    free(c.state);
    const int ran = err != CL_MEM_OBJECT_ALLOCATION_FAILURE && err != CL_OUT_OF_RESOURCES &&
                    err != CL_OUT_OF_HOST_MEMORY;
    if (!ran) chg_log(1, "trsm: the strips did not get their memory (%d); blocked path", err);
    *st = (clhgemm_status_t)err;
    return ran;
}
