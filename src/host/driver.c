/*
 * driver.c -- one device's driver for one host-memory call (driver.h): setup (kernels,
 * buffers, packed layouts), then tile after tile from the band schedule, each as a few named
 * steps (pieces, band buffers, k range, per k slice: ramp or group loads and launch, prefetch,
 * C traffic; then write-back), then the drain.
 */
#include <stdlib.h>
#include <string.h>

#include "host/devmem.h"
#include "host/driver.h"
#include "host/fault.h"
#include "host/shared_b.h"
#include "host/tile.h"
#include "tuning/tuning.h"

/* ---- setup ----------------------------------------------------------------------------------- */

/* Buffers and pinned staging of this device for the call's plan (kept between calls while
 * large enough). */
static cl_int reserve_buffers(const chg_call_t *c, chg_handle_dev_t *d, const chg_gemm_params_t *g)
{
    const chg_plan_t *p = &c->pl;
    const size_t es = c->es;
    const size_t bmp = chg_round_up(p->bm, g->mwg), bnp = chg_round_up(p->bn, g->nwg),
                 bkp = chg_round_up(p->bk, g->kwg);
    const size_t kg = (size_t)CHG_MAX(p->kg, 1);
    /* the packed A: twice its tile's elements for a complex call (core/blocks.h) */
    const size_t aband = bmp * bkp * es * CHG_PACK_A_FACTOR(&c->st) * (p->amode == AMODE_STREAM ? 1 : p->kt);
    cl_int err = chg_devmem_reserve(d, B_ARAW, p->bm * p->bk * es, NSTAGE);
    if (err == CL_SUCCESS) err = chg_devmem_reserve(d, B_BRAW, p->bk * p->bn * es, NSTAGE);
    if (err == CL_SUCCESS) err = chg_devmem_reserve(d, B_BPACK, bkp * bnp * es * kg, 1);
    if (err == CL_SUCCESS) err = chg_devmem_reserve(d, B_APACK, aband, p->amode == AMODE_PREFETCH ? 2 : 1);
    if (err == CL_SUCCESS) err = chg_devmem_reserve(d, B_CDEV, p->bm * p->bn * es, 2);
    if (err == CL_SUCCESS) err = chg_devmem_reserve(d, B_CP, bmp * bnp * es, 1);
    if (err == CL_SUCCESS) err = chg_devmem_reserve_pinned(d, d->st_a, NSTAGE, p->bm * p->bk * es);
    if (err == CL_SUCCESS && !c->bs) err = chg_devmem_reserve_pinned(d, d->st_b, NSTAGE, p->bk * p->bn * es);
    if (err == CL_SUCCESS && !chg_call_beta_zero(c))
        err = chg_devmem_reserve_pinned(d, &d->st_cin, 1, p->bm * p->bn * es);
    if (err == CL_SUCCESS) err = chg_devmem_reserve_pinned(d, d->st_cout, NOUT, p->bm * p->bn * es);
    return err;
}

/* The kernels (GEMM's, or a level-3 variant: structured packs, TRIANGLE / KLIMIT, masked
 * write-back; with c->st all zero these are GEMM's), the buffers, and the packed layouts. */
static clhgemm_status_t setup(chg_drv_t *v)
{
    chg_call_t *c = v->c;
    chg_handle_dev_t *d = v->d;
    const chg_plan_t *pl = &c->pl;
    chg_tuned_gemm(&d->dev, c->prec, &v->gp);
    clhgemm_status_t st = chg_l3_kernels_create(d->ctx, &d->dev, c->prec, &v->gp, c->ta, c->tb,
                                                chg_call_beta_zero(c), &c->st, &v->ks);
    if (st != CLHGEMM_SUCCESS) return st;
    /* from here on the tile in the call's elements (complex: core/blocks.h chg_l3_tile): the
     * pads, the packed offsets and the buffers count them */
    v->gp = chg_l3_tile(&v->gp, &c->st);
    const cl_int err = reserve_buffers(c, d, &v->gp);
    if (err != CL_SUCCESS) {
        chg_gemm_kernels_release(&v->ks);
        return (clhgemm_status_t)err;
    }
    chg_trace_align(c->trace, d->index, v->qk);
    v->bkp = chg_round_up(pl->bk, v->gp.kwg);
    /* k slices per kernel launch: the plan's group where the packed slices follow one another
     * along k with no padding between them (bk a multiple of KWG), else one. A group never
     * crosses a segment's end (SYR2K), so only its last slice can be short. */
    v->kg = pl->kg > 1 && v->bkp == pl->bk ? (size_t)pl->kg : 1;
    v->kts = chg_ceil_div(c->k, pl->bk);  /* slices per segment */
    /* Packed A: a resident band's panels hold all its kt slices one after another along k
     * (band_pk rows), so a launch reads any run of them; streamed A holds one slice (its tiles
     * run a launch per slice); packed B one group (kg slices) per panel. */
    v->band_pk = pl->kt * v->bkp;
    v->group_pk = v->kg * v->bkp;
    chg_log(2, "device %d: up to %zu k slice(s) of %zu per kernel launch", d->index, v->kg, pl->bk);
    v->nab = pl->amode == AMODE_PREFETCH ? 2 : 1;
    v->ab[0] = v->ab[1] = (chg_aband_t){-1, 0};
    v->sc = (chg_sched_t){-1, -1, 0};
    v->pf_band = -1;
    v->pf_step = 0;
    v->pf_span = 1;
    return CLHGEMM_SUCCESS;
}

/* ---- one tile --------------------------------------------------------------------------------- */

/* A device's final tile is done in column pieces (chg_final_pieces; CLHGEMM_FINAL_PIECES forces
 * a count, except where A is streamed: there it forces split_pieces' count instead). */
static int pieces_of(const chg_drv_t *v, size_t ti, size_t j0, size_t mc, size_t nct, int final)
{
    const chg_call_t *c = v->c;
    if (!final || c->no_pieces) return 1;
    const long forced = chg_env_int("CLHGEMM_FINAL_PIECES", 0, 0, 1 << 20); /* 0: not forced */
    int npieces;
    if (forced > 0 && c->pl.amode == AMODE_STREAM)
        npieces = 1;  /* streamed A: the count is that of the last slice's pieces (split_pieces) */
    else if (forced > 0)
        npieces = (int)CHG_MAX(1L, CHG_MIN(forced, (long)(nct / v->gp.nwg)));
    else
        npieces = chg_final_pieces(mc, nct, (size_t)v->gp.mwg, (size_t)v->gp.nwg,
                                   CHG_MAX(1u, v->d->dev.info.compute_units), c->pl.amode);
    if (npieces > 1)
        chg_log(2, "device %d: final tile (band %zu, columns %zu..%zu) in %d column pieces", v->d->index, ti,
                j0, j0 + nct, npieces);
    return npieces;
}

/* The A band buffer of the tile, and the one to prefetch the next band into. */
static void band_buffers(chg_drv_t *v, chg_tile_t *t, int stolen)
{
    t->cur = t->pf = -1;
    if (v->c->pl.amode != AMODE_STREAM) {
        for (int i = 0; i < v->nab; i++)
            if (v->ab[i].band == (long)t->ti) t->cur = i;
        if (t->cur < 0) {
            t->cur = (v->nab == 2 && v->sc.next >= 0 && v->ab[0].band == v->sc.next) ? 1 : 0;
            v->ab[t->cur] = (chg_aband_t){(long)t->ti, 0};
        }
        if (v->nab == 2 && v->sc.next >= 0 && !stolen) {
            t->pf = 1 - t->cur;
            if (v->ab[t->pf].band != v->sc.next) v->ab[t->pf] = (chg_aband_t){v->sc.next, 0};
        }
    }
    t->apack = v->d->buf[B_APACK][t->cur < 0 ? 0 : t->cur];
}

/* The k slices of the tile: all of them, except where a triangular operand is zero over whole
 * slices (TRMM; chg_l3_k_range). */
static void k_range(const chg_drv_t *v, chg_tile_t *t)
{
    const chg_call_t *c = v->c;
    t->s_lo = 0;
    t->s_hi = c->pl.kt;
    if (c->st.kind_a == CHG_TRIANGULAR || c->st.kind_b == CHG_TRIANGULAR) {
        size_t klo, khi;
        chg_l3_k_range(&c->st, t->i0, t->mc, t->j0, t->nc, c->k, &klo, &khi);
        t->s_lo = klo / c->pl.bk;
        t->s_hi = CHG_MAX(t->s_lo + 1, chg_ceil_div(khi, c->pl.bk));
    }
}

/* Ramp: the device's first slice arrives in pl->ramp parts of k, each run by its own launch as
 * soon as it is in, so that the first kernel waits for a part of a slice rather than a whole
 * one (the fill: 36 ms of A and B slices at n = 32768 on the H100). Only where this slice is
 * the next one of A to arrive. Returns 1 when the slice was run so. */
static int ramp_slice(chg_drv_t *v, chg_tile_t *t, size_t s, size_t p0, size_t kc, size_t pos, cl_int *err)
{
    const chg_plan_t *pl = &v->c->pl;
    const size_t kwg = v->gp.kwg;
    const size_t part = chg_round_up(chg_ceil_div(kc, (size_t)CHG_MAX(pl->ramp, 1)), kwg);
    if (!(t->seq == 0 && s == t->s_lo && pl->ramp > 1 && part < kc &&
          (t->cur < 0 || v->ab[t->cur].loaded == s)))
        return 0;
    const size_t pk_a = t->cur < 0 ? v->bkp : v->band_pk, row_a = t->cur < 0 ? 0 : s * v->bkp;
    for (size_t q0 = 0; q0 < kc && *err == CL_SUCCESS; q0 += part) {
        const size_t qk = CHG_MIN(part, kc - q0);
        const size_t ao = (row_a + q0) * v->gp.mwg, bo = (pos * v->bkp + q0) * v->gp.nwg;
        *err = chg_load_a(v, t->ti, s, q0, qk, t->apack, ao, pk_a);
        if (*err == CL_SUCCESS) *err = chg_load_b(v, t->j0, t->nc, s, q0, qk, bo, v->group_pk);
        if (*err == CL_SUCCESS)
            *err = chg_launch_gemm(v, t->i0, t->j0, p0 + q0, t->mpad, t->npad, chg_round_up(qk, kwg), t->apack,
                                   ao, pk_a, bo, v->group_pk, q0 > 0);
        clFlush(v->qh);
        clFlush(v->qk);
    }
    if (t->cur >= 0) v->ab[t->cur].loaded = s + 1;
    t->ge = s + 1;  /* this slice is done: the next one starts a group */
    return 1;
}

/* Slice s the ordinary way: its A (streamed: this slice; resident: every slice of the band up
 * to it, in order) and its B into the group's packed buffers, and the group's launch after its
 * last slice. */
static cl_int group_slice(chg_drv_t *v, chg_tile_t *t, size_t s, size_t kpad, size_t pos)
{
    const size_t mwg = v->gp.mwg;
    size_t aoff = 0, apk = v->bkp;
    cl_int err;
    if (t->cur < 0) {
        err = chg_load_a(v, t->ti, s, 0, 0, t->apack, 0, v->bkp);  /* a launch per slice (glen 1) */
    } else {
        chg_aband_t *b = &v->ab[t->cur];
        aoff = t->gs * v->bkp * mwg;
        apk = v->band_pk;
        err = CL_SUCCESS;
        while (err == CL_SUCCESS && b->loaded <= s) {  /* slices arrive in order */
            err = chg_load_a(v, t->ti, b->loaded, 0, 0, t->apack, b->loaded * v->bkp * mwg, v->band_pk);
            b->loaded++;
        }
    }
    if (err == CL_SUCCESS) err = chg_load_b(v, t->j0, t->nc, s, 0, 0, pos * v->bkp * v->gp.nwg, v->group_pk);
    if (err != CL_SUCCESS || s + 1 != t->ge) return err;
    if (t->split && s + 1 == t->s_hi) {  /* a split tile's last launch: chg_writeback_split's, in pieces */
        t->last_p0 = t->gp0;
        t->last_kp = pos * v->bkp + kpad;
        t->last_aoff = aoff;
        t->last_apk = apk;
        t->last_acc = t->gs > t->s_lo;
        return CL_SUCCESS;
    }
    return chg_launch_gemm(v, t->i0, t->j0, t->gp0, t->mpad, t->npad, pos * v->bkp + kpad, t->apack, aoff, apk, 0,
                           v->group_pk, t->gs > t->s_lo);
}

/* Prefetch: once this band's own A is in, the next band's slices are spread evenly over all the
 * steps this device still has in the band (those left when the prefetch begins;
 * CLHGEMM_PREFETCH_EARLY=1: done half a tile early, as before). The next band's first step
 * needs only its first slice, which went long before; squeezing the band into fewer steps made
 * 2 A slices per step compete with the B slices for the pack threads and the bus, and the kernel
 * queue ran dry: two 20-50 ms gaps per band at n = 32768 on the H100. */
static cl_int prefetch_step(chg_drv_t *v, const chg_tile_t *t, size_t s)
{
    chg_call_t *c = v->c;
    const chg_plan_t *pl = &c->pl;
    if (t->pf < 0 || v->ab[t->cur].loaded < pl->kt) return CL_SUCCESS;
    chg_aband_t *b = &v->ab[t->pf];
    if (v->pf_band != b->band) {
        pthread_mutex_lock(&c->mu);
        const size_t left = chg_ceil_div(chg_band_left(&c->bands[t->ti]), pl->bn);
        pthread_mutex_unlock(&c->mu);
        const size_t steps = left * pl->kt + (pl->kt - s - 1);
        v->pf_band = b->band;
        v->pf_step = 0;
        const int early = chg_env_flag("CLHGEMM_PREFETCH_EARLY", 0);
        v->pf_span = CHG_MAX((size_t)1, early && steps > pl->kt / 2
                                            ? steps - pl->kt / 2 : steps);
    }
    v->pf_step++;
    const size_t due = CHG_MIN(pl->kt, chg_ceil_div(pl->kt * v->pf_step, v->pf_span));
    cl_int err = CL_SUCCESS;
    while (err == CL_SUCCESS && b->loaded < due) {
        err = chg_load_a(v, (size_t)b->band, b->loaded, 0, 0, v->d->buf[B_APACK][t->pf],
                         b->loaded * v->bkp * v->gp.mwg, v->band_pk);
        b->loaded++;
    }
    clFlush(v->qh);
    clFlush(v->qk);
    return err;
}

/* C traffic: this tile's input chunks due by this step (the write-back needs them all); then
 * earlier tiles' chunks that have arrived, for at most about half a step's kernel time, so that
 * the queue never runs dry behind an unpack (what is left carries over to later steps and
 * tiles). */
static cl_int c_traffic_step(chg_drv_t *v, chg_tile_t *t, size_t s)
{
    const int ci_due = (int)chg_ceil_div((size_t)t->nci * (s - t->s_lo + 1), t->s_hi - t->s_lo);
    cl_int err = CL_SUCCESS;
    while (err == CL_SUCCESS && t->ci < ci_due) err = chg_cin_chunk(v, t);
    clFlush(v->qh);
    if (err == CL_SUCCESS) err = chg_unpack_pending(v, chg_now_ns() + (unsigned long long)(0.5e9 * t->step_s) + 1);
    return err;
}

/* The k loop of a tile. Kernel groups: slices [gs, ge) are packed side by side along k and run
 * by one launch after the last of them is loaded. Only where the tile's A is already resident:
 * where it still arrives slice by slice (a band's first tile, streamed A) the A slices pace the
 * kernels, and a launch that waited for two of them left the kernel queue idle (H100 trace,
 * n = 32768: 14 ms gaps in the first tile, as much as the grouping saved). The packs of the
 * next group wait for this launch in the in-order kernel queue, and the slice rings
 * (NSTAGE > kg) let the loads run a group ahead of it. */
static cl_int k_loop(chg_drv_t *v, chg_tile_t *t)
{
    cl_int err = CL_SUCCESS;
    t->glen = t->cur >= 0 && v->ab[t->cur].loaded >= t->s_hi ? v->kg : 1;
    t->gs = t->ge = t->s_lo;
    t->gp0 = 0;
    for (size_t s = t->s_lo; s < t->s_hi && err == CL_SUCCESS; s++) {
        int seg;
        size_t p0, kc;
        chg_slice_of(v->c, s, &seg, &p0, &kc);
        if (s == t->ge) {
            t->gs = s;
            t->gp0 = p0;
            t->ge = CHG_MIN(CHG_MIN(t->gs + t->glen, t->s_hi), (t->gs / v->kts + 1) * v->kts);
        }
        const size_t pos = s - t->gs;
        if (!ramp_slice(v, t, s, p0, kc, pos, &err))
            err = group_slice(v, t, s, chg_round_up(kc, v->gp.kwg), pos);
        if (err != CL_SUCCESS) break;
        clFlush(v->qh);
        clFlush(v->qk);
        if ((err = prefetch_step(v, t, s)) != CL_SUCCESS) break;
        err = c_traffic_step(v, t, s);
    }
    return err;
}

/* Column pieces of the last k slice of a device's final tile when A is streamed (tile.h,
 * chg_writeback_split), 0 for none: that tile is not cut into pieces (chg_final_pieces: each
 * would stream A again), but its last slice can be, since that slice of A is on the device for
 * all of them. Where the pieces would still fill the device (chg_final_pieces' rule), in a GEMM
 * (no structure, one segment), with at least two slices (the last one then accumulates and is
 * not the ramp's), each piece's Cp at the device's sub-buffer alignment. CLHGEMM_FINAL_PIECES
 * forces the count (at most CHG_SPLIT_MAX and the tile's work-group columns; 1: none). */
static int split_pieces(chg_drv_t *v, const chg_tile_t *t, int final)
{
    const chg_call_t *c = v->c;
    const chg_struct_t general = {0};
    if (!final || c->no_pieces || c->pl.amode != AMODE_STREAM || c->segs > 1 || t->s_hi - t->s_lo < 2 ||
        memcmp(&c->st, &general, sizeof general) != 0)
        return 0;
    const size_t nwg = (size_t)v->gp.nwg, blocks = t->npad / nwg;
    const long forced = chg_env_int("CLHGEMM_FINAL_PIECES", 0, 0, 1 << 20);
    int np = forced > 0 ? (int)CHG_MIN(forced, (long)CHG_SPLIT_MAX)
                        : chg_final_pieces(t->mc, t->npad, (size_t)v->gp.mwg, nwg,
                                           CHG_MAX(1u, v->d->dev.info.compute_units), AMODE_RESIDENT);
    np = (int)CHG_MIN((size_t)np, blocks);
    if (np < 2 || !chg_split_fits(v, t, np)) return 0;
    chg_log(2, "device %d: final tile (band %zu, columns %zu..%zu): its last k slice in %d column pieces",
            v->d->index, t->ti, t->j0, t->j0 + t->nc, np);
    return np;
}

/* One piece of a tile: its slots, band buffers, C input, k loop and write-back. */
static cl_int run_piece(chg_drv_t *v, chg_tile_t *t, int stolen, int final)
{
    chg_call_t *c = v->c;
    chg_handle_dev_t *d = v->d;
    t->mpad = chg_round_up(t->mc, v->gp.mwg);
    t->npad = chg_round_up(t->nc, v->gp.nwg);
    t->seq = v->ntile++;
    t->slot = (int)(t->seq % NOUT);
    t->cslot = (int)(t->seq % 2);
    t->cdev = d->buf[B_CDEV][t->cslot];
    /* Staging slot `slot` must be free: the tile that used it goes home now if it is not yet
     * (normally it was unpacked during later tiles' steps). The device buffer `cdev` is reused
     * after its last copy home (an event dependency of the write-back). */
    cl_int err = chg_unpack_slot(v, t->slot);
    if (err != CL_SUCCESS) return err;
    band_buffers(v, t, stolen);
    /* C input chunks are spread over the k steps (they are needed only by the write-back); the
     * staging is free once the previous tile's input copies finished. */
    t->nci = !chg_call_beta_zero(c) ? chg_c_chunks(c, t->mc, t->nc) : 0;
    t->ci = 0;
    if (t->nci && (err = chg_ev_wait(&v->cin_last)) != CL_SUCCESS) return err;
    if (t->nci && (err = chg_free_cdev(v, t->cslot)) != CL_SUCCESS) return err;
    /* Kernel time of one step (the unpack budget per step), from the measured rate. */
    t->step_s = 2.0 * (double)t->mpad * t->npad * c->pl.bk / CHG_MAX(1e6, d->rate[c->prec]);
    k_range(v, t);
    t->split = split_pieces(v, t, final);
    if ((err = k_loop(v, t)) != CL_SUCCESS) return err;
    /* Write-back on the device (after the last input chunk), then home in chunks later. */
    err = t->split ? chg_writeback_split(v, t) : chg_writeback_tile(v, t);
    if (err == CL_SUCCESS) d->tiles_done++;
    return err;
}

/* A tile taken from the schedule: in one piece, or a device's final tile in column pieces. */
static cl_int run_tile(chg_drv_t *v, size_t ti, size_t j0t, size_t nct, int stolen, int final)
{
    const chg_plan_t *pl = &v->c->pl;
    const size_t i0 = ti * pl->bm, mc = CHG_MIN(pl->bm, v->c->m - i0);
    const size_t nwg = v->gp.nwg;
    const int npieces = pieces_of(v, ti, j0t, mc, nct, final);
    cl_int err = CL_SUCCESS;
    for (int piece = 0; piece < npieces && err == CL_SUCCESS; piece++) {
        size_t q0, q1;
        chg_chunk_cols(nct / nwg, npieces, piece, &q0, &q1);
        chg_tile_t t = {.ti = ti, .i0 = i0, .mc = mc, .j0 = j0t + q0 * nwg};
        t.nc = piece == npieces - 1 ? nct - q0 * nwg : (q1 - q0) * nwg;
        err = run_piece(v, &t, stolen, final && npieces == 1);
        /* Not written back: this piece and the ones after it are left to the others if the
         * device is lost (the pieces before are pending: chg_tile_pending_lost). */
        if (err != CL_SUCCESS && chg_regions_add(&v->d->redo, ti, t.j0, j0t + nct - t.j0) != 0)
            chg_call_fail(v->c, CLHGEMM_OUT_OF_HOST_MEMORY);
    }
    return err;
}

/* ---- the drain ---------------------------------------------------------------------------------- */

static void finish(chg_drv_t *v, unsigned long long t_start, unsigned long long t_setup, unsigned long long t_loop)
{
    chg_call_t *c = v->c;
    chg_handle_dev_t *d = v->d;
    for (int q = 0; q < d->nq; q++) clFinish(d->q[q]);
    chg_log(1, "device %d: %zu tile(s); setup %.1f ms (kernels, buffers), tiles enqueued and "
               "previous ones unpacked %.1f ms, last tiles home %.1f ms",
            d->index, v->ntile, (t_setup - t_start) * 1e-6, (t_loop - t_setup) * 1e-6,
            (chg_now_ns() - t_loop) * 1e-6);
    chg_tile_events_release(v);
    chg_gemm_kernels_release(&v->ks);
    pthread_mutex_lock(&c->mu);
    c->setup_s = CHG_MAX(c->setup_s, (t_setup - t_start) * 1e-9);
    c->bytes_h2d += v->h2d_bytes;
    c->bytes_d2h += v->d2h_bytes;
    c->copy_bytes += v->copy_bytes;
    c->copy_ns += v->copy_ns;
    if (v->ntile) c->devices_used++;
    pthread_mutex_unlock(&c->mu);
}

clhgemm_status_t chg_drive(chg_call_t *c, chg_handle_dev_t *d)
{
    chg_drv_t v = {.c = c, .d = d, .qh = d->q[Q_H2D], .qk = d->q[Q_KERNEL], .qd = d->q[Q_D2H],
               .cdev_owner = {-1, -1}};
    const unsigned long long t_start = chg_now_ns();
    clhgemm_status_t st = setup(&v);
    int handles;
    /* Short of memory at setup: once more if idle handles gave some back (fault.h). */
    if (st != CLHGEMM_SUCCESS && chg_fault_is_memory((cl_int)st) && chg_memory_release(c->h, d, &handles) > 0)
        st = setup(&v);
    chg_shared_b_arrive(c->bs);  /* devices sharing B slices start in step (shared_b.h) */
    if (st != CLHGEMM_SUCCESS && chg_fault_is_loss((cl_int)st, 1)) {
        chg_device_lost(c, d, (cl_int)st, "its setup");  /* it took no tile */
        return CLHGEMM_SUCCESS;
    }
    if (st != CLHGEMM_SUCCESS) return st;
    const unsigned long long t_setup = chg_now_ns();
    cl_int err = CL_SUCCESS;
    size_t ti, j0, nc;
    int stolen, final;
    while (err == CL_SUCCESS && chg_take_tile(c, &v.sc, &ti, &j0, &nc, &stolen, &final))
        err = run_tile(&v, ti, j0, nc, stolen, final);
    const unsigned long long t_loop = chg_now_ns();
    /* Drain: results of tiles already computed still go home (unless the device failed). */
    if (err == CL_SUCCESS) err = chg_unpack_pending(&v, 0);
    /* A lost device: what it had taken and not written home goes to the others (fault.h). */
    const int lost = chg_fault_is_loss(err, 0);
    if (lost && chg_tile_pending_lost(&v, &d->redo) != 0) chg_call_fail(c, CLHGEMM_OUT_OF_HOST_MEMORY);
    finish(&v, t_start, t_setup, t_loop);
    if (!lost) return (clhgemm_status_t)err;
    /* Out of memory the first time in the call: memory released, its regions again (fault.h). */
    if (chg_fault_is_memory(err) && !d->short_in_call) chg_device_short(c, d, err);
    else chg_device_lost(c, d, err, "its tiles");
    return CLHGEMM_SUCCESS;
}
