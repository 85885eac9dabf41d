/*
 * tile.c -- the steps of one tile on one device: load a slice, launch the kernel, C in,
 * write-back, copies home and unpack (tile.h).
 */
#include <stdio.h>
#include <string.h>

#include "host/fault.h"
#include "host/shared_b.h"
#include "host/tile.h"

/* CLHGEMM_FAULT_INJECT: the failure of this driver's next command, if one is injected. */
static cl_int injected(const chg_drv_t *v) { return chg_fault_cmd(&v->c->h->fault, v->d); }

void chg_tile_trace(chg_drv_t *v, int q, const char *name, cl_event ev)
{
    if (!v->c->trace || !ev) return;
    static const char *qn[] = {"h2d", "kernel", "d2h"};
    char track[48];
    snprintf(track, sizeof track, "dev%d %s", v->d->index, q < 3 ? qn[q] : "queue");
    chg_trace_device(v->c->trace, v->d->index, track, name, ev);
}

/* A pack-thread copy for this driver (the triangle tri only, CHG_TRI_NONE: all), timed: what
 * the pack threads reach inside the pipeline (sharing host memory with the DMA engines and the
 * other drivers) feeds the next call's plan. */
static void drv_copy(chg_drv_t *v, void *dst, size_t dld, const void *src, size_t sld, size_t rows,
                     size_t cols, long diag, int tri, int strict, const char *name)
{
    const chg_call_t *c = v->c;
    const unsigned long long t0 = chg_now_ns();
    const size_t elems = chg_copy2d_tri(c->h->pool, c->pack_parts, dst, dld, src, sld, rows, cols,
                                        c->es, diag, tri, strict, c->trace, name);
    v->copy_ns += (double)(chg_now_ns() - t0);
    v->copy_bytes += (double)elems * c->es;
}

/* ---- load and launch -------------------------------------------------------------------------- */

/* The pack threads' copy of columns [b0, b1) of a stage's box (every rectangle's part of them)
 * from the user's matrix M into the staging slot st, in flight from pack_start to pack_finish. */
typedef struct pack_job_s {
    chg_copy_t cp;    /* the copy in flight, when live */
    int live;
    double done;      /* elements of the stage's rectangles already copied (see pack_start) */
    unsigned long long t0;
} pack_job_t;

static void pack_start(chg_drv_t *v, int is_a, const char *base, size_t ldm, const chg_stage_t *g,
                       const chg_pinned_t *st, size_t b0, size_t b1, pack_job_t *j)
{
    const chg_call_t *c = v->c;
    const size_t es = c->es, ld = g->ld;
    j->live = 0;
    j->done = 0;
    j->t0 = chg_now_ns();
    for (int i = 0; i < g->nrect && i < 2; i++) {
        const chg_rect_t *R = &g->rect[i];
        const size_t lo = CHG_MAX(b0, R->b0), hi = CHG_MIN(b1, R->b0 + R->be);
        if (hi <= lo) continue;
        /* A symmetric stage across the diagonal has two rectangles of M (the block and its
         * mirror) that share the diagonal square, whose stored triangle both copy to the same
         * staging: the second starts once the first is done (two copies in flight would write
         * those bytes from two threads at once). */
        if (j->live) j->done += (double)chg_copy_finish(c->h->pool, &j->cp);
        char *stp = (char *)st->ptr + ((R->a0 - g->oa) + (lo - g->ob) * ld) * es;
        chg_copy_start(c->h->pool, c->pack_parts, &j->cp, stp, ld, base + (R->a0 + lo * ldm) * es, ldm, R->ae,
                       hi - lo, es, (long)R->a0 - (long)lo, g->tri, g->strict, c->trace, is_a ? "pack A" : "pack B");
        j->live = 1;
    }
}

/* Waits for a pack_start's copies; *busy_from is where the pack threads' time for this slice
 * began (the first chunk's start: chunks overlap, so their times are not summed). */
static void pack_finish(chg_drv_t *v, pack_job_t *j, unsigned long long *busy_from)
{
    double elems = j->done;
    if (j->live) elems += (double)chg_copy_finish(v->c->h->pool, &j->cp);
    const unsigned long long now = chg_now_ns(), from = CHG_MAX(j->t0, *busy_from);
    v->copy_ns += (double)(now - from);
    v->copy_bytes += elems * v->c->es;
    *busy_from = now;
    j->live = 0;
    j->done = 0;
}

/* Moves one slice through a ring slot: pack threads copy what the stage says from the user's
 * matrix M (base, leading dimension ldm) into pinned staging, host->device copy, then the
 * device pack kernel into dst at dst_off (ext x kc of X, padded; structured operands through
 * the structured packs, which read only the staged elements). */
static cl_int load_slice(chg_drv_t *v, int is_a, const char *base, size_t ldm, const chg_stage_t *g,
                         size_t ext, size_t kc, cl_mem dst, size_t dst_off, size_t dpk, const chg_bs_key_t *key)
{
    chg_call_t *c = v->c;
    chg_handle_dev_t *d = v->d;
    const size_t es = c->es;
    chg_ring_t *rg = is_a ? &v->ra : &v->rb;
    const int r = (int)(rg->next++ % NSTAGE);
    /* Slot r (staging and raw device buffer) is free once the pack kernel that read its
     * previous contents ran (that kernel waited for the copy). Waiting here rather than giving
     * the copy a wait list matters on NVIDIA's driver: a copy waiting on another queue's event
     * holds up every later copy in its hardware channel, device->host ones included. */
    cl_int err = injected(v);
    if (err == CL_SUCCESS) err = chg_ev_wait(&rg->pack[r]);
    if (err == CL_SUCCESS) err = chg_ev_wait(&rg->h2d[r]);
    if (err != CL_SUCCESS) return err;
    cl_mem raw = d->buf[is_a ? B_ARAW : B_BRAW][r];
    /* Column chunks: the copy of chunk i to the device runs while the pack threads fill chunk
     * i+1 (what matters when the pipeline fills, and for big slices). The h2d queue is in
     * order, so the last chunk's event stands for the whole slice. */
    const size_t cols = g->nrect ? g->box.be : 0, ld = g->ld;
    const size_t bytes = ld * cols * es;
    const int nch = (int)CHG_MIN(CHG_MIN((size_t)4, cols), CHG_MAX((size_t)1, bytes / (8u << 20)));
    /* A B slice of a call whose devices share their B staging (shared_b.h): packed by the first
     * device to ask for it, copied from there by the others. */
    chg_bs_slot_t *sl = NULL;
    int fill = 1;
    const int pos = key && c->bs && nch > 0 ? chg_shared_b_pos(c->bs, d->index) : -1;
    if (pos >= 0) sl = chg_shared_b_take(c->bs, key, nch, pos, &fill);
    chg_pinned_t *st = sl ? sl->st : is_a ? &d->st_a[r] : &d->st_b[r];
    const size_t need = chg_stage_elems(g);
    if (need * es > st->bytes || need * es > d->buf_bytes[is_a ? B_ARAW : B_BRAW])
        err = CLHGEMM_INTERNAL_ERROR; /* the plan's constraints rule this out */
    /* Without a shared B slot, chunk ch+1's copy is handed to the pack threads before chunk ch's
     * transfer is enqueued, so that they go on with it meanwhile. A shared slot's chunks go one
     * at a time: whether this driver fills one is known only when it gets there. */
    pack_job_t jb[2] = {{.live = 0}, {.live = 0}};
    unsigned long long busy_from = 0;
    for (int ch = 0; ch < nch && err == CL_SUCCESS; ch++) {
        size_t c0, c1;
        chg_chunk_cols(cols, nch, ch, &c0, &c1);
        if (sl) {
            if (!fill) fill = chg_shared_b_wait(c->bs, sl, ch);  /* 1: its filler stopped: this one packs */
            if (fill) {
                pack_start(v, is_a, base, ldm, g, st, g->box.b0 + c0, g->box.b0 + c1, &jb[0]);
                pack_finish(v, &jb[0], &busy_from);
                chg_shared_b_ready(c->bs, sl, ch);
            }
        } else {
            if (ch == 0) pack_start(v, is_a, base, ldm, g, st, g->box.b0 + c0, g->box.b0 + c1, &jb[0]);
            if (ch + 1 < nch) {
                size_t n0, n1;
                chg_chunk_cols(cols, nch, ch + 1, &n0, &n1);
                pack_start(v, is_a, base, ldm, g, st, g->box.b0 + n0, g->box.b0 + n1, &jb[(ch + 1) & 1]);
            }
            pack_finish(v, &jb[ch & 1], &busy_from);
        }
        const size_t o = (g->box_off + c0 * ld) * es;
        cl_event ev = NULL;  /* the previous chunk's event is kept until this copy is in */
        err = clEnqueueWriteBuffer(v->qh, raw, CL_FALSE, o, (c1 - c0) * ld * es, (char *)st->ptr + o, 0,
                                   NULL, &ev);
        if (err != CL_SUCCESS) break;
        chg_ev_release(&rg->h2d[r]);
        rg->h2d[r] = ev;
        clFlush(v->qh);  /* a later wait on this copy must not depend on an unflushed queue */
        chg_tile_trace(v, Q_H2D, is_a ? "A slice" : "B slice", rg->h2d[r]);
    }
    /* a failed enqueue leaves the next chunk's copy in flight: it ends before the slot is left */
    for (int i = 0; i < 2; i++)
        if (jb[i].live) pack_finish(v, &jb[i], &busy_from);
    if (sl) chg_shared_b_release(c->bs, sl, pos, rg->h2d[r], err != CL_SUCCESS && fill);
    if (err != CL_SUCCESS) return err;
    v->h2d_bytes += (double)bytes;
    const cl_uint nw = rg->h2d[r] ? 1 : 0; /* nothing staged: a triangular block of zeros */
    if (g->kind == CHG_GENERAL)
        err = is_a ? chg_enqueue_pack_a(v->qk, &v->ks, ext, kc, raw, 0, ld, dst, dst_off, dpk, nw, &rg->h2d[r], &rg->pack[r])
                   : chg_enqueue_pack_b(v->qk, &v->ks, ext, kc, raw, 0, ld, dst, dst_off, dpk, nw, &rg->h2d[r], &rg->pack[r]);
    else
        err = is_a ? chg_enqueue_pack_a_struct(v->qk, &v->ks, g->diag, ext, kc, raw, g->off, g->off_m, ld, dst,
                                               dst_off, dpk, nw, &rg->h2d[r], &rg->pack[r])
                   : chg_enqueue_pack_b_struct(v->qk, &v->ks, g->diag, ext, kc, raw, g->off, g->off_m, ld, dst,
                                               dst_off, dpk, nw, &rg->h2d[r], &rg->pack[r]);
    if (err != CL_SUCCESS) return err;
    chg_tile_trace(v, Q_KERNEL, is_a ? "pack A" : "pack B", rg->pack[r]);
    return CL_SUCCESS;
}

cl_int chg_launch_gemm(chg_drv_t *v, size_t i0, size_t j0, size_t p0, size_t mpad, size_t npad, size_t kp,
                       cl_mem apack, size_t aoff, size_t apk, size_t boff, size_t bpk, int accumulate)
{
    cl_event kev = NULL;
    const cl_int fault = injected(v);
    if (fault != CL_SUCCESS) return fault;
    const cl_int err = chg_enqueue_kernel_at(v->qk, &v->ks, i0, j0, p0, mpad, npad, kp, apack, aoff, apk,
                                             v->d->buf[B_BPACK][0], boff, bpk, v->d->buf[B_CP][0],
                                             accumulate, 0, NULL, v->c->trace ? &kev : NULL);
    if (err == CL_SUCCESS) chg_tile_trace(v, Q_KERNEL, "gemm", kev);
    chg_ev_release(&kev);
    return err;
}

void chg_slice_of(const chg_call_t *c, size_t s, int *seg, size_t *p0, size_t *kc)
{
    const size_t kts = chg_ceil_div(c->k, c->pl.bk);
    *seg = (int)(s / kts);
    *p0 = (s % kts) * c->pl.bk;
    *kc = CHG_MIN(c->pl.bk, c->k - *p0);
}

cl_int chg_load_a(chg_drv_t *v, size_t ti, size_t s, size_t q0, size_t qk, cl_mem dst, size_t dst_off,
                  size_t dpk)
{
    const chg_call_t *c = v->c;
    int seg;
    size_t p0, kc;
    chg_slice_of(c, s, &seg, &p0, &kc);
    if (qk) p0 += q0, kc = CHG_MIN(qk, kc - q0);
    if (c->alpha_in_pack) {
        /* HER2K: alpha into the first product's X_A, conj(alpha) into the second's */
        v->ks.scale_a[0] = c->pack_alpha[0];
        v->ks.scale_a[1] = seg ? -c->pack_alpha[1] : c->pack_alpha[1];
    }
    const size_t i0 = ti * c->pl.bm, mc = CHG_MIN(c->pl.bm, c->m - i0);
    chg_stage_t g;
    chg_stage_geometry(&c->st, 1, !c->ta, i0, mc, p0, kc, &g);
    return load_slice(v, 1, seg ? c->b : c->a, seg ? c->ldb : c->lda, &g, mc, kc, dst, dst_off, dpk, NULL);
}

cl_int chg_load_b(chg_drv_t *v, size_t j0, size_t nc, size_t s, size_t q0, size_t qk, size_t dst_off,
                  size_t dpk)
{
    const chg_call_t *c = v->c;
    int seg;
    size_t p0, kc;
    chg_slice_of(c, s, &seg, &p0, &kc);
    if (qk) p0 += q0, kc = CHG_MIN(qk, kc - q0);
    chg_stage_t g;
    chg_stage_geometry(&c->st, 0, c->tb, j0, nc, p0, kc, &g);
    const chg_bs_key_t key = {.s = s, .q0 = q0, .qk = qk, .j0 = j0, .nc = nc};
    return load_slice(v, 0, seg ? c->a : c->b, seg ? c->lda : c->ldb, &g, nc, kc,
                      v->d->buf[B_BPACK][0], dst_off, dpk, &key);
}


/* ---- C in, write-back, home ------------------------------------------------------------------- */

int chg_c_chunks(const chg_call_t *c, size_t mc, size_t nc)
{
    const size_t bytes = mc * nc * c->es;
    const size_t min_chunk = CHG_MAX(1ull, chg_env_size("CLHGEMM_C_CHUNK", 1ull << 20));
    size_t n = CHG_MIN((size_t)NCHUNK, CHG_MAX((size_t)1, c->pl.kt));
    n = CHG_MIN(n, CHG_MAX((size_t)1, bytes / min_chunk));
    return (int)CHG_MIN(n, nc);
}

/* The device buffer must be free (its previous copy home done: chg_free_cdev). */
cl_int chg_cin_chunk(chg_drv_t *v, chg_tile_t *t)
{
    chg_call_t *c = v->c;
    const size_t es = c->es, mc = t->mc;
    size_t c0, c1;
    chg_chunk_cols(t->nc, t->nci, t->ci++, &c0, &c1);
    if (c1 == c0) return CL_SUCCESS;
    char *st = (char *)v->d->st_cin.ptr + c0 * mc * es;
    /* SYRK/SYR2K: only C's triangle is read (the write-back reads no more of it) */
    drv_copy(v, st, mc, c->c + (t->i0 + (t->j0 + c0) * c->ldc) * es, c->ldc, mc, c1 - c0,
             (long)t->i0 - (long)(t->j0 + c0), c->st.c_tri, 0, "pack C");
    chg_ev_release(&v->cin_last);  /* the h2d queue is in order: the newest copy implies the rest */
    cl_int err = injected(v);
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(v->qh, t->cdev, CL_FALSE, c0 * mc * es, (c1 - c0) * mc * es, st,
                                   0, NULL, &v->cin_last);
    if (err != CL_SUCCESS) return err;
    chg_tile_trace(v, Q_H2D, "C in", v->cin_last);
    v->h2d_bytes += (double)(c1 - c0) * mc * es;
    return CL_SUCCESS;
}

/* Enqueues the copies home of a pending tile once its write-back has run (or, with wait, after
 * waiting for it): issued earlier, they would sit in the copy engine's channel ahead of later
 * host->device copies (see load_slice). */
static cl_int issue_d2h(chg_drv_t *v, int slot, int wait)
{
    chg_call_t *c = v->c;
    chg_pending_t *p = &v->pend[slot];
    if (!p->valid || p->issued) return CL_SUCCESS;
    if (!wait && !chg_ev_done(p->wb)) return CL_SUCCESS;
    cl_int err = injected(v);
    if (err == CL_SUCCESS) err = chg_ev_wait(&p->wb);
    cl_mem cdev = v->d->buf[B_CDEV][p->cslot];
    for (int ch = 0; ch < p->nch && err == CL_SUCCESS; ch++) {
        size_t c0, c1;
        chg_chunk_cols(p->nc, p->nch, ch, &c0, &c1);
        err = clEnqueueReadBuffer(v->qd, cdev, CL_FALSE, c0 * p->mc * c->es, (c1 - c0) * p->mc * c->es,
                                  (char *)v->d->st_cout[slot].ptr + c0 * p->mc * c->es, 0, NULL,
                                  &p->d2h[ch]);
        if (err == CL_SUCCESS) chg_tile_trace(v, Q_D2H, "C tile", p->d2h[ch]);
    }
    if (err != CL_SUCCESS) return err;
    clFlush(v->qd);
    p->issued = 1;
    /* The d2h queue is in order: the last chunk's copy frees the device buffer. */
    chg_ev_release(&v->cdev_free[p->cslot]);
    v->cdev_free[p->cslot] = p->d2h[p->nch - 1];
    clRetainEvent(v->cdev_free[p->cslot]);
    v->d2h_bytes += (double)p->mc * p->nc * c->es;
    return CL_SUCCESS;
}

static void pending_drop(chg_pending_t *p)
{
    for (int i = 0; i < NCHUNK; i++) chg_ev_release(&p->d2h[i]);
    chg_ev_release(&p->wb);
    p->valid = 0;
}

/* A tile of a call whose structured X_B (TRMM side right, SYMM side right) is unpacked all at
 * once, after every copy home of it arrived: TRMM side right's row-band tile reads the same rows
 * of B that it writes, all columns of them, so a tile half unpacked when its device is lost
 * could not be computed again; SYMM side right's tiles must stay on the bn grid (host/fault.h). */
static int unpack_whole(const chg_call_t *c) { return c->st.kind_b != CHG_GENERAL; }

/* Whole tiles (unpack_whole): 1 when every copy home of the tile arrived intact (waited for
 * unless deadline_ns is set), so that its unpack can run to its end; 0 (with *err on a failed
 * copy) when not yet. */
static int whole_ready(chg_pending_t *p, unsigned long long deadline_ns, cl_int *err)
{
    for (int i = p->done; i < p->nch; i++)
        if (deadline_ns && !chg_ev_done(p->d2h[i])) return 0;
    for (int i = p->done; i < p->nch && *err == CL_SUCCESS; i++) *err = chg_ev_wait(&p->d2h[i]);
    return *err == CL_SUCCESS;
}

/* Unpacks chunks of a finished tile into the user's C until `upto` are done. Chunks whose copy
 * home has not finished are waited for, unless deadline_ns is set: then the call stops at the
 * first such chunk, or once the deadline has passed. On an error the tile stays pending: the
 * chunks not unpacked are what a lost device leaves (chg_tile_pending_lost). */
static cl_int unpack_chunks(chg_drv_t *v, int slot, int upto, unsigned long long deadline_ns)
{
    chg_call_t *c = v->c;
    chg_pending_t *p = &v->pend[slot];
    if (!p->valid) return CL_SUCCESS;
    cl_int err = issue_d2h(v, slot, deadline_ns == 0);
    if (err != CL_SUCCESS || !p->issued) return err;
    if (unpack_whole(c)) {
        if (!whole_ready(p, deadline_ns, &err)) return err;
        deadline_ns = 0;  /* host copies only from here: the tile goes home whole */
        upto = p->nch;
    }
    upto = CHG_MIN(upto, p->nch);
    while (p->done < upto && err == CL_SUCCESS) {
        if (deadline_ns && (chg_now_ns() >= deadline_ns || !chg_ev_done(p->d2h[p->done]))) break;
        err = chg_ev_wait(&p->d2h[p->done]);
        if (err != CL_SUCCESS) break;
        size_t c0, c1;
        chg_chunk_cols(p->nc, p->nch, p->done, &c0, &c1);
        /* SYRK/SYR2K: only C's triangle goes home; the other stays bit-identical */
        if (c1 > c0)
            drv_copy(v, c->c + (p->i0 + (p->j0 + c0) * c->ldc) * c->es, c->ldc,
                     (char *)v->d->st_cout[slot].ptr + c0 * p->mc * c->es, p->mc, p->mc, c1 - c0,
                     (long)p->i0 - (long)(p->j0 + c0), c->st.c_tri, 0, "unpack C");
        p->done++;
    }
    if (p->done == p->nch) pending_drop(p);
    return err;
}

cl_int chg_free_cdev(chg_drv_t *v, int cs)
{
    cl_int err = CL_SUCCESS;
    const int o = v->cdev_owner[cs];
    if (o >= 0 && v->pend[o].valid && v->pend[o].cslot == cs) err = issue_d2h(v, o, 1);
    if (err == CL_SUCCESS) err = chg_ev_wait(&v->cdev_free[cs]);
    v->cdev_owner[cs] = -1;
    return err;
}

/* Before a write-back into device C buffer cs: with beta == 0 nothing was copied into it, so
 * its previous contents must be home first (their copies issued now; the kernel queue may wait
 * on their event). Fills the write-back's wait list (the last C-in copy, the buffer free). */
static cl_int writeback_waits(chg_drv_t *v, const chg_tile_t *t, cl_event wbw[2], cl_uint *nwb)
{
    const int cs = t->cslot;
    if (!t->nci && v->cdev_owner[cs] >= 0) {
        const int o = v->cdev_owner[cs];
        cl_int err;
        if (v->pend[o].valid && v->pend[o].cslot == cs && (err = issue_d2h(v, o, 1)) != CL_SUCCESS)
            return err;
        v->cdev_owner[cs] = -1;
    }
    *nwb = 0;
    if (v->cin_last) wbw[(*nwb)++] = v->cin_last;
    if (v->cdev_free[cs]) wbw[(*nwb)++] = v->cdev_free[cs];
    return injected(v);
}

cl_int chg_writeback_tile(chg_drv_t *v, const chg_tile_t *t)
{
    const chg_call_t *c = v->c;
    const int cs = t->cslot;
    cl_event wb = NULL, wbw[2];
    cl_uint nwb = 0;
    cl_int err = writeback_waits(v, t, wbw, &nwb);
    if (err != CL_SUCCESS) return err;
    const double alpha[2] = {c->alpha, c->alpha_im}, beta[2] = {c->beta, c->beta_im};
    err = chg_enqueue_writeback_at(v->qk, &v->ks, t->i0, t->j0, t->mc, t->nc, alpha, beta,
                                   v->d->buf[B_CP][0], t->mpad, t->cdev, 0, t->mc, nwb, nwb ? wbw : NULL, &wb);
    if (err != CL_SUCCESS) return err;
    chg_tile_trace(v, Q_KERNEL, "write-back", wb);
    /* Home later: the copies are issued once the write-back has run. */
    v->pend[t->slot] = (chg_pending_t){.valid = 1, .seq = t->seq, .cslot = cs, .wb = wb, .i0 = t->i0,
                                   .j0 = t->j0, .mc = t->mc, .nc = t->nc, .nch = chg_c_chunks(c, t->mc, t->nc)};
    v->cdev_owner[cs] = t->slot;
    clFlush(v->qk);
    clFlush(v->qd);
    return CL_SUCCESS;
}

/* Piece p of np of a split tile: its columns [*c0, *c0 + *cw) of Cp, whole work-group tiles. */
static void piece_cols(const chg_drv_t *v, const chg_tile_t *t, int np, int p, size_t *c0, size_t *cw)
{
    const size_t nwg = (size_t)v->gp.nwg;
    size_t b0, b1;
    chg_chunk_cols(t->npad / nwg, np, p, &b0, &b1);
    *c0 = b0 * nwg;
    *cw = (b1 - b0) * nwg;
}

int chg_split_fits(const chg_drv_t *v, const chg_tile_t *t, int np)
{
    for (int p = 1; p < np; p++) {
        size_t c0, cw;
        piece_cols(v, t, np, p, &c0, &cw);
        if ((c0 * t->mpad * v->c->es) % v->d->sub_align) return 0;
    }
    return 1;
}

/* Piece p's columns of Cp as a sub-buffer. */
static cl_mem cp_piece(chg_drv_t *v, const chg_tile_t *t, int np, int p, size_t *c0, size_t *cw, cl_int *err)
{
    piece_cols(v, t, np, p, c0, cw);
    const cl_buffer_region r = {*c0 * t->mpad * v->c->es, *cw * t->mpad * v->c->es};
    return clCreateSubBuffer(v->d->buf[B_CP][0], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, err);
}

cl_int chg_writeback_split(chg_drv_t *v, const chg_tile_t *t)
{
    const chg_call_t *c = v->c;
    const int cs = t->cslot, np = t->split;
    const size_t es = c->es, mc = t->mc;
    cl_event wbw[2], wb[CHG_SPLIT_MAX] = {NULL}, d2h[NCHUNK] = {NULL};
    size_t cend[CHG_SPLIT_MAX];
    cl_uint nwb = 0;
    cl_int err = writeback_waits(v, t, wbw, &nwb);
    /* Per piece: the last slice's launch over its columns, then their write-back. */
    for (int p = 0; p < np && err == CL_SUCCESS; p++) {
        size_t c0, cw;
        cl_mem cp = cp_piece(v, t, np, p, &c0, &cw, &err);
        if (err != CL_SUCCESS) break;
        cl_event kev = NULL;
        if ((err = injected(v)) == CL_SUCCESS)
            err = chg_enqueue_kernel_at(v->qk, &v->ks, t->i0, t->j0 + c0, t->last_p0, t->mpad, cw, t->last_kp,
                                        t->apack, t->last_aoff, t->last_apk, v->d->buf[B_BPACK][0],
                                        c0 * v->group_pk, v->group_pk, cp, t->last_acc, 0, NULL,
                                        c->trace ? &kev : NULL);
        if (err == CL_SUCCESS) chg_tile_trace(v, Q_KERNEL, "gemm", kev);
        chg_ev_release(&kev);
        /* its real columns: every piece has some (only the last work-group tile is padded), and
         * the last piece ends at the tile's end */
        cend[p] = CHG_MIN(t->nc, c0 + cw);
        if (err == CL_SUCCESS && (err = injected(v)) == CL_SUCCESS)
            err = chg_enqueue_writeback_at(v->qk, &v->ks, t->i0, t->j0 + c0, mc, cend[p] - c0,
                                           (const double[2]){c->alpha, c->alpha_im},
                                           (const double[2]){c->beta, c->beta_im}, cp, t->mpad,
                                           t->cdev, c0 * mc, mc, nwb, nwb ? wbw : NULL, &wb[p]);
        if (err == CL_SUCCESS) chg_tile_trace(v, Q_KERNEL, "write-back", wb[p]);
        clReleaseMemObject(cp);  /* kept alive by the commands that use it */
        clFlush(v->qk);
    }
    /* The copies home of each chunk wait for the write-back of the piece that holds its last
     * column: enqueued now with that dependency, not issued later. This breaks the rule of
     * tile.h (a copy waiting on another queue holds up the copies behind it) only where no
     * copy comes behind: the device's final tile, after its last slice went up. */
    const int nch = chg_c_chunks(c, mc, t->nc);
    for (int ch = 0; ch < nch && err == CL_SUCCESS; ch++) {
        size_t c0, c1;
        chg_chunk_cols(t->nc, nch, ch, &c0, &c1);
        int p = 0;
        while (p < np - 1 && cend[p] < c1) p++;
        if ((err = injected(v)) == CL_SUCCESS)
            err = clEnqueueReadBuffer(v->qd, t->cdev, CL_FALSE, c0 * mc * es, (c1 - c0) * mc * es,
                                      (char *)v->d->st_cout[t->slot].ptr + c0 * mc * es, 1, &wb[p], &d2h[ch]);
        if (err == CL_SUCCESS) chg_tile_trace(v, Q_D2H, "C tile", d2h[ch]);
    }
    clFlush(v->qd);
    if (err != CL_SUCCESS) {
        /* nothing of the tile is pending: its regions are computed again (host/fault.h) */
        for (int i = 0; i < np; i++) chg_ev_release(&wb[i]);
        for (int i = 0; i < NCHUNK; i++) chg_ev_release(&d2h[i]);
        return err;
    }
    chg_pending_t *pd = &v->pend[t->slot];
    *pd = (chg_pending_t){.valid = 1, .seq = t->seq, .cslot = cs, .wb = wb[np - 1], .issued = 1, .i0 = t->i0,
                      .j0 = t->j0, .mc = mc, .nc = t->nc, .nch = nch};
    for (int i = 0; i < np - 1; i++) chg_ev_release(&wb[i]);
    memcpy(pd->d2h, d2h, sizeof d2h);
    v->cdev_owner[cs] = t->slot;
    /* the d2h queue is in order: the last chunk's copy frees the device buffer */
    chg_ev_release(&v->cdev_free[cs]);
    v->cdev_free[cs] = pd->d2h[nch - 1];
    clRetainEvent(v->cdev_free[cs]);
    v->d2h_bytes += (double)mc * t->nc * es;
    return CL_SUCCESS;
}

cl_int chg_unpack_slot(chg_drv_t *v, int slot) { return unpack_chunks(v, slot, NCHUNK, 0); }

cl_int chg_unpack_pending(chg_drv_t *v, unsigned long long deadline_ns)
{
    cl_int err = CL_SUCCESS;
    /* Copies home whose write-back has run go out now, whatever the unpack order. */
    for (int i = 0; i < NOUT && err == CL_SUCCESS; i++) err = issue_d2h(v, i, deadline_ns == 0);
    for (;;) {
        int o = -1;
        for (int i = 0; i < NOUT; i++)
            if (v->pend[i].valid && (o < 0 || v->pend[i].seq < v->pend[o].seq)) o = i;
        if (o < 0) return CL_SUCCESS;
        err = unpack_chunks(v, o, NCHUNK, deadline_ns);
        if (err != CL_SUCCESS || v->pend[o].valid) return err;  /* error, or stopped early */
    }
}

int chg_tile_pending_lost(chg_drv_t *v, chg_regions_t *out)
{
    const chg_call_t *c = v->c;
    int rc = 0;
    for (int s = 0; s < NOUT; s++) {
        chg_pending_t *p = &v->pend[s];
        if (!p->valid) continue;
        size_t c0, c1;
        chg_chunk_cols(p->nc, p->nch, p->done, &c0, &c1);
        if (chg_regions_add(out, p->i0 / c->pl.bm, p->j0 + c0, p->nc - c0) != 0) rc = -1;
        pending_drop(p);
    }
    return rc;
}

void chg_tile_events_release(chg_drv_t *v)
{
    for (int r = 0; r < NSTAGE; r++) {
        chg_ev_release(&v->ra.h2d[r]);
        chg_ev_release(&v->ra.pack[r]);
        chg_ev_release(&v->rb.h2d[r]);
        chg_ev_release(&v->rb.pack[r]);
    }
    for (int s = 0; s < NOUT; s++) {
        for (int i = 0; i < NCHUNK; i++) chg_ev_release(&v->pend[s].d2h[i]);
        chg_ev_release(&v->pend[s].wb);
    }
    for (int s = 0; s < 2; s++) chg_ev_release(&v->cdev_free[s]);
    chg_ev_release(&v->cin_last);
}
