/*
 * gemm.c -- the device GEMM core: plan, then pack, kernel and write-back per block.
 *
 * Data path of one call (column-major view; gemm_api.c has already validated and turned row-major
 * into column-major by swapping the operands):
 *   plan      split C into mb x nb blocks and k into kb slices so that the packed operands
 *             (mb*kb + kb*nb) and the block result (mb*nb) fit the per-queue workspace budget;
 *   pack      generated copy kernels put op(A)(block) and op(B)(block) into the block-major,
 *             zero-padded layout of cl/gemm.cl (a block already packed is reused);
 *   kernel    Cp = Ap*Bp, or Cp += Ap*Bp for the later k slices (C stays resident over k);
 *   writeback C(block) = alpha*Cp + beta*C(block), a generated kernel (beta == 0 never reads C).
 * Every command waits on the previous one through events, so out-of-order queues are safe, and
 * the workspace of a queue is locked from the first command to the last enqueue of a call, so
 * calls from several threads on one queue never share temporaries. The workspace remembers the
 * last event of the call that used it; the next call on another thread waits on it.
 *
 * This file owns the per-device facts, the block plan, the sequence of a call (quick paths,
 * the blocked path, split-K's run and the tail split's, the direct kernel, the dispatch between
 * them); which configuration and split a call runs is core/choice.c's decision, which operands
 * are read in place core/direct.c's, the steps themselves are core/blocks.c's building blocks,
 * and the workspaces with the kernels they keep are core/workspace.c's.
 *
 * The other level-3 routines (l3_map.c) run through the same sequence with a chg_struct_t
 * (gemm.h): structured packs for a symmetric or triangular operand, blocks outside the wanted
 * triangle of C skipped and the rest written back through a mask, the k slices of each block
 * limited to where a triangular operand can be non-zero, SYR2K's second product accumulated
 * into the same Cp, and TRMM's blocks visited in an order that makes the in-place update safe.
 *
 * Temporaries are bounded: CLHGEMM_WORKSPACE_LIMIT, else a quarter of the device's memory, and
 * every buffer stays below the device's max allocation and below 2^31 elements (the kernels
 * use 32-bit indices there). If the device refuses an allocation, the budget is halved and the
 * plan redone, down to one tile.
 */
#include "core/gemm.h"

#include <stdlib.h>
#include <string.h>

#include "core/choice.h"
#include "core/splitk.h"
#include "core/workspace.h"
#include "device/cache.h"
#include "kernels/codegen.h"
#include "tuning/tuning.h"

/* ---- per-device facts ------------------------------------------------------------------- */

typedef struct devrec_s {
    cl_device_id id;
    chg_device_t dev;
    struct devrec_s *next;
} devrec_t;

static pthread_mutex_t g_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static devrec_t *g_devs;

clhgemm_status_t chg_queue_device(cl_command_queue queue, const chg_device_t **dev,
                                  cl_context *context)
{
    cl_device_id id;
    cl_context ctx;
    if (!queue) return CLHGEMM_INVALID_QUEUE;
    if (clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof id, &id, NULL) != CL_SUCCESS ||
        clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL) != CL_SUCCESS)
        return CLHGEMM_INVALID_QUEUE;
    if (context) *context = ctx;
    pthread_mutex_lock(&g_dev_lock);
    devrec_t *r = g_devs;
    while (r && r->id != id) r = r->next;
    clhgemm_status_t st = CLHGEMM_SUCCESS;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r) {
            st = CLHGEMM_OUT_OF_HOST_MEMORY;
        } else if ((st = chg_device_query(id, &r->dev)) != CLHGEMM_SUCCESS) {
            free(r);
            r = NULL;
        } else {
            r->id = id;
            r->next = g_devs;
            g_devs = r;
        }
    }
    pthread_mutex_unlock(&g_dev_lock);
    if (r) *dev = &r->dev;
    return st;
}

/* ---- planning --------------------------------------------------------------------------- */

typedef struct plan_s {
    size_t mb, nb, kb;  /* block extents (multiples of MWG, NWG, KWG) */
} plan_t;

/* af: the packed A's elements per element of its block (CHG_PACK_A_FACTOR) */
static size_t plan_bytes(const plan_t *p, size_t es, size_t af)
{
    return (af * p->mb * p->kb + p->kb * p->nb + p->mb * p->nb) * es;
}

/* The element size of a call (complex: two reals). */
static size_t call_es(const chg_gemm_args_t *a)
{
    return chg_elem_size(a->prec) * (a->st.cplx ? 2 : 1);
}

static size_t balance(size_t total, size_t blk, size_t tile)
{
    size_t nblk = (total + blk - 1) / blk;
    return chg_round_up((total + nblk - 1) / nblk, tile);
}

/* Largest blocks that fit `budget` bytes (and per-buffer limits); 0 if one tile cannot fit. gp:
 * the tile in the call's elements (chg_l3_tile). */
static int plan_blocks(const chg_gemm_args_t *a, const chg_gemm_params_t *gp, const chg_device_t *dev,
                       unsigned long long budget, plan_t *out)
{
    const size_t es = call_es(a), af = CHG_PACK_A_FACTOR(&a->st);
    const size_t mp = chg_round_up(a->m, gp->mwg), np = chg_round_up(a->n, gp->nwg),
                 kp = chg_round_up(a->k, gp->kwg);
    unsigned long long per_buf = dev->info.max_alloc_bytes;
    if (per_buf > (1ull << 31) * es - es) per_buf = (1ull << 31) * es - es;
    plan_t p = {mp, np, kp};
    for (;;) {
        const int fits = plan_bytes(&p, es, af) <= budget && af * p.mb * p.kb * es <= per_buf &&
                         p.kb * p.nb * es <= per_buf && p.mb * p.nb * es <= per_buf;
        if (fits) break;
        /* Halve the largest dimension that can still shrink; C blocks first, since k slices
         * cost an extra read and write of Cp per slice. */
        size_t *d = NULL;
        if (p.mb >= p.nb && p.mb > (size_t)gp->mwg) d = &p.mb;
        else if (p.nb > (size_t)gp->nwg) d = &p.nb;
        else if (p.mb > (size_t)gp->mwg) d = &p.mb;
        if (!d || (p.kb > 2 * CHG_MAX(p.mb, p.nb) && p.kb > (size_t)gp->kwg)) d = &p.kb;
        if (d == &p.kb && p.kb <= (size_t)gp->kwg) return 0;
        const size_t tile = d == &p.mb ? gp->mwg : d == &p.nb ? gp->nwg : gp->kwg;
        *d = chg_round_up((*d + 1) / 2, tile);
    }
    p.mb = balance(mp, p.mb, gp->mwg);
    p.nb = balance(np, p.nb, gp->nwg);
    p.kb = balance(kp, p.kb, gp->kwg);
    *out = p;
    return 1;
}

/* ---- enqueue helpers -------------------------------------------------------------------- */

typedef struct chain_s {
    cl_command_queue q;
    cl_event prev;  /* event of the last enqueued command (owned), or NULL */
    cl_uint nwait;
    const cl_event *wait;  /* caller's wait list, applied to the first command */
} chain_t;

/* Enqueues kernel k over an NDRange after everything enqueued before in this chain. */
static cl_int chain_kernel(chain_t *ch, cl_kernel k, const size_t global[2], const size_t local[2])
{
    cl_event ev;
    const cl_event *wl = ch->prev ? &ch->prev : ch->wait;
    cl_uint nw = ch->prev ? 1 : ch->nwait;
    cl_int err = clEnqueueNDRangeKernel(ch->q, k, 2, NULL, global, local, nw, nw ? wl : NULL, &ev);
    if (err != CL_SUCCESS) return err;
    if (ch->prev) clReleaseEvent(ch->prev);
    ch->prev = ev;
    return CL_SUCCESS;
}

static cl_int chain_marker(chain_t *ch)
{
    cl_event ev;
    const cl_event *wl = ch->prev ? &ch->prev : ch->wait;
    cl_uint nw = ch->prev ? 1 : ch->nwait;
    cl_int err = clEnqueueMarkerWithWaitList(ch->q, nw, nw ? wl : NULL, &ev);
    if (err != CL_SUCCESS) return err;
    if (ch->prev) clReleaseEvent(ch->prev);
    ch->prev = ev;
    return CL_SUCCESS;
}

/* C := beta*C (the quick path for k == 0 or alpha == 0); only the triangle with c_tri. */
static clhgemm_status_t enqueue_scale(const chg_gemm_args_t *a, cl_context ctx, const chg_device_t *dev,
                                      chain_t *ch)
{
    if (a->beta == 1.0 && a->beta_im == 0.0) return (clhgemm_status_t)chain_marker(ch);
    const int tri = a->st.c_tri != CHG_TRI_NONE, cplx = a->st.cplx;
    chg_copy_params_t cp;
    chg_copy_params_default(dev, tri ? CHG_COPY_SCALE_TRI : CHG_COPY_SCALE, a->prec, &cp);
    cp.beta_zero = a->beta == 0.0 && a->beta_im == 0.0;
    cp.cplx = cplx;
    cp.herm = a->st.herm_c;
    static const char *const names[2][2] = {{"scale", "scale-tri"}, {"scale-c", "scale-tri-c"}};
    cl_kernel k;
    clhgemm_status_t st = chg_copy_kernel(ctx, dev, &cp, names[cplx != 0][tri], &k);
    if (st != CLHGEMM_SUCCESS) return st;
    const double zero[2] = {0.0, 0.0}, beta[2] = {a->beta, a->beta_im};
    cl_int err = chg_set_update_args(k, a->prec, cplx, a->m, a->n, zero, beta, NULL, 0, a->c,
                                     a->off_c, a->ldc);
    if (tri) {
        const int diag = 0, upper = a->st.c_tri == CHG_TRI_UPPER;
        CHG_SETARG(k, 9, diag);
        CHG_SETARG(k, 10, upper);
    }
    size_t g[2], l[2];
    chg_copy_work_size(&cp, a->m, a->n, g, l);
    if (err == CL_SUCCESS) err = chain_kernel(ch, k, g, l);
    clReleaseKernel(k);
    return (clhgemm_status_t)err;
}


/* The direct variant's launch: arguments 0-9 as chg_enqueue_kernel (ap/bp the caller's buffers
 * for a direct operand, cp the caller's C for DIRECT_C), the KLIMIT variant's diag (klimit: a
 * TRMM's, chg_kernel_diag), then its eight. */
static cl_int enqueue_kernel_direct(cl_command_queue q, cl_kernel k, const chg_gemm_args_t *a,
                                    const chg_gemm_params_t *gp, int direct, size_t mpad, size_t npad,
                                    size_t kpad, cl_mem ap, size_t aoff, cl_mem bp, size_t boff,
                                    cl_mem cp, int accumulate, int klimit, long diag, size_t coff,
                                    size_t mc, size_t nc, cl_uint nwait, const cl_event *wait,
                                    cl_event *ev)
{
    const int lda_v = (int)(a->lda / (size_t)gp->vwm);
    const int ldb_v = (int)(direct & CHG_DIRECT_BK ? a->ldb : a->ldb / (size_t)gp->vwn); /* BK: elements */
    const int ldc = (int)a->ldc, mlim = (int)mc, nlim = (int)nc, d = (int)diag;
    const cl_ulong co = coff;
    const cl_uint x = klimit ? 11 : 10; /* the first of the eight */
    cl_int err = chg_set_gemm_args(k, kpad, mpad, ap, aoff, 0, bp, boff, 0, cp, accumulate);
    if (klimit) CHG_SETARG(k, 10, d);
    CHG_SETARG(k, x, lda_v);
    CHG_SETARG(k, x + 1, ldb_v);
    CHG_SETARG(k, x + 2, co);
    CHG_SETARG(k, x + 3, ldc);
    CHG_SETARG(k, x + 4, mlim);
    CHG_SETARG(k, x + 5, nlim);
    if (err == CL_SUCCESS) err = chg_set_real(k, x + 6, a->prec, a->alpha);
    if (err == CL_SUCCESS) err = chg_set_real(k, x + 7, a->prec, a->beta);
    if (err != CL_SUCCESS) return err;
    const size_t g[2] = {mpad / gp->mwg * gp->mdimc, npad / gp->nwg * gp->ndimc};
    const size_t l[2] = {(size_t)gp->mdimc, (size_t)gp->ndimc};
    return chg_enqueue_2d(q, k, g, l, nwait, wait, ev);
}

/* Runs one building block after everything before it in the chain. */
#define CHAIN(ch, call_with_wait)                                                               \
    do {                                                                                        \
        cl_event ev_;                                                                           \
        const cl_event *wl_ = (ch)->prev ? &(ch)->prev : (ch)->wait;                            \
        cl_uint nw_ = (ch)->prev ? 1 : (ch)->nwait;                                             \
        err = call_with_wait;                                                                   \
        if (err == CL_SUCCESS) {                                                                \
            if ((ch)->prev) clReleaseEvent((ch)->prev);                                         \
            (ch)->prev = ev_;                                                                   \
        }                                                                                       \
    } while (0)

/* One split pass after everything before it in the chain: the SPLITK kernel ks->gemm over sk's
 * tiles and slices, op(A) at (ap, aoff) and op(B) at (bp, boff) -- packed panels of sk->ktot
 * rows, or the caller's matrices where `direct` (CHG_DIRECT_A / _BANY) says so -- into the
 * partials wc, then the reduce ks->wb: C(m x n at a->c + coff) := alpha * sum + beta * C. */
static cl_int enqueue_split_pass(chain_t *ch, const chg_gemm_kernels_t *ks,
                                 const chg_gemm_args_t *a, const chg_gemm_params_t *gp,
                                 const chg_splitk_t *sk, int direct, cl_mem ap, size_t aoff,
                                 cl_mem bp, size_t boff, cl_mem wc, size_t m, size_t n,
                                 size_t coff)
{
    cl_kernel k = ks->gemm;
    cl_int err = chg_set_gemm_args(k, sk->kslice, sk->mp, ap, aoff, sk->ktot, bp, boff, sk->ktot,
                                   wc, 0);
    if (direct) {
        /* the direct variant's arguments 10-17: the k strides in vectors (B k-major: in
         * elements); C, alpha and beta are the reduce's (unused by a SPLITK kernel) */
        const int lda_v = (int)(a->lda / (size_t)gp->vwm);
        const int ldb_v = (int)(direct & CHG_DIRECT_BK ? a->ldb : a->ldb / (size_t)gp->vwn);
        const int zero = 0;
        const cl_ulong co = 0;
        CHG_SETARG(k, 10, lda_v);
        CHG_SETARG(k, 11, ldb_v);
        CHG_SETARG(k, 12, co);
        CHG_SETARG(k, 13, zero);
        CHG_SETARG(k, 14, zero);
        CHG_SETARG(k, 15, zero);
        if (err == CL_SUCCESS) err = chg_set_real(k, 16, a->prec, 0.0);
        if (err == CL_SUCCESS) err = chg_set_real(k, 17, a->prec, 0.0);
    }
    const size_t g[3] = {sk->mp / gp->mwg * gp->mdimc, sk->np / gp->nwg * gp->ndimc,
                         (size_t)sk->slices};
    const size_t l[3] = {(size_t)gp->mdimc, (size_t)gp->ndimc, 1};
    if (err == CL_SUCCESS)
        CHAIN(ch, clEnqueueNDRangeKernel(ch->q, k, 3, NULL, g, l, nw_, nw_ ? wl_ : NULL, &ev_));
    if (err == CL_SUCCESS)
        CHAIN(ch, chg_enqueue_splitk_reduce(ch->q, ks->wb, a->prec, sk, m, n, a->alpha, a->beta,
                                            wc, a->c, coff, a->ldc, nw_, wl_, &ev_));
    return err;
}

/* The state of one blocked GEMM: its plan, kernels, and what CHG_WS_A / CHG_WS_B hold (segment,
 * block, k slice start and length), so that a panel already packed is not packed again. */
typedef struct blocked_s {
    const chg_gemm_args_t *a;
    const chg_gemm_params_t *gp;
    chg_gemm_params_t tv;   /* gp's tile in the call's elements (complex: chg_l3_tile) */
    chg_workspace_t *ws;
    chain_t *ch;
    plan_t pl;
    int direct;             /* CHG_DIRECT_* operands read or written in place */
    chg_gemm_kernels_t ks;
    cl_kernel kdirect;      /* the direct variant of the GEMM kernel (direct != 0) */
    int wgs;                /* gp's work-groups per compute unit (0: unknown) */
    chg_tail_t tail;        /* the tail split of a one-block call (tail.slices 0: none) */
    chg_gemm_kernels_t tks; /* its SPLITK kernel (gemm) and reduce (wb) */
    size_t pa[4], pb[4];
} blocked_t;

/* The tail split (core/splitk.h) of a plain GEMM planned as one block with all of k: b->tail,
 * and the elements of its partials (0 without a tail split, or when they do not fit `budget`
 * beside the packs, the per-buffer limits or int indexing). */
static size_t plan_tail(blocked_t *b, const chg_device_t *dev, unsigned long long budget)
{
    const chg_gemm_args_t *a = b->a;
    const chg_gemm_params_t *gp = b->gp;
    const chg_struct_t general = {0};
    const size_t es = chg_elem_size(a->prec), kp = chg_round_up(a->k, gp->kwg);
    memset(&b->tail, 0, sizeof b->tail);
    if (memcmp(&a->st, &general, sizeof general) != 0 || a->swap_sum || b->pl.mb < a->m ||
        b->pl.nb < a->n || b->pl.kb < kp ||
        !chg_splitk_tail(dev, a->prec, gp, b->wgs, a->m, a->n, kp, &b->tail))
        return 0;
    const chg_splitk_t *sk = &b->tail.sk;
    const size_t el = (size_t)sk->slices * sk->mp * sk->np;
    const size_t packs = (b->direct & CHG_DIRECT_A ? 0 : b->pl.mb * b->pl.kb) +
                         (b->direct & CHG_DIRECT_BANY ? 0 : b->pl.kb * b->pl.nb);
    if ((unsigned long long)(packs + el) * es > budget || el >= (1ull << 31) ||
        (unsigned long long)el * es > dev->info.max_alloc_bytes) {
        memset(&b->tail, 0, sizeof b->tail);
        return 0;
    }
    return el;
}

/* Plans the blocks and reserves the workspace for them: halves the budget and plans again while
 * the device refuses an allocation. */
static clhgemm_status_t plan_workspace(blocked_t *b, cl_context ctx, const chg_device_t *dev)
{
    const chg_gemm_args_t *a = b->a;
    const chg_gemm_params_t *gp = &b->tv;
    chg_workspace_t *ws = b->ws;
    const size_t es = call_es(a), af = CHG_PACK_A_FACTOR(&a->st);
    unsigned long long budget = chg_workspace_budget(dev);
    cl_int err;
    for (;;) {
        if (!plan_blocks(a, gp, dev, budget, &b->pl)) return CLHGEMM_WORKSPACE_TOO_SMALL;
        /* the plan counts all three temporaries; a direct operand needs none */
        b->direct = chg_gemm_direct_mode(a, gp, b->pl.kb);
        const size_t cblock = b->direct & CHG_DIRECT_C ? 0 : b->pl.mb * b->pl.nb;
        const size_t cel = CHG_MAX(cblock, plan_tail(b, dev, budget));
        err = CL_SUCCESS;
        if (!(b->direct & CHG_DIRECT_A))
            err = chg_ws_reserve(ws, ctx, CHG_WS_A, af * b->pl.mb * b->pl.kb * es);
        if (err == CL_SUCCESS && !(b->direct & CHG_DIRECT_BANY))
            err = chg_ws_reserve(ws, ctx, CHG_WS_B, b->pl.kb * b->pl.nb * es);
        if (err == CL_SUCCESS && cel) err = chg_ws_reserve(ws, ctx, CHG_WS_C, cel * es);
        if (err == CL_SUCCESS) break;
        if (err != CL_MEM_OBJECT_ALLOCATION_FAILURE && err != CL_OUT_OF_RESOURCES &&
            err != CL_OUT_OF_HOST_MEMORY && err != CL_INVALID_BUFFER_SIZE)
            return (clhgemm_status_t)err;
        chg_log(1, "workspace allocation failed (%d) at budget %llu bytes; halving", err, budget);
        chg_ws_drop_buffers(ws);
        budget /= 2;
    }
    const int direct = b->direct;
    chg_log(2, "gemm %s m=%zu n=%zu k=%zu blocks %zux%zux%zu direct%s%s%s%s",
            a->st.cplx ? (a->prec == CHG_F64 ? "z" : "c") : a->prec == CHG_F64 ? "d" : "s",
            a->m, a->n, a->k, b->pl.mb, b->pl.nb, b->pl.kb,
            direct & CHG_DIRECT_A ? " A" : "", direct & CHG_DIRECT_B ? " B" : direct & CHG_DIRECT_BK ? " B (k-major)" : "",
            direct & CHG_DIRECT_C ? " C" : "", direct ? "" : " none");
    if (b->tail.slices)
        chg_log(2, "gemm tail split: %s after %zu, %d slices of %zu",
                b->tail.cut_n ? "columns" : "rows", b->tail.lead, b->tail.slices,
                b->tail.sk.kslice);
    return CLHGEMM_SUCCESS;
}

static clhgemm_status_t splitk_kernels(const chg_gemm_args_t *a, cl_context ctx,
                                       const chg_device_t *dev, const chg_gemm_params_t *gp,
                                       int direct, chg_workspace_t *ws, chg_gemm_kernels_t *ks);

static clhgemm_status_t build_blocked(const chg_kkey_t *key, cl_context ctx,
                                      const chg_device_t *dev, chg_kset_t *out)
{
    clhgemm_status_t st = chg_l3_kernels_create(ctx, dev, key->prec, &key->gp, key->trans_a,
                                                key->trans_b, key->beta_zero, &key->st, &out->ks);
    if (st == CLHGEMM_SUCCESS && key->direct) {
        st = chg_gemm_kernel_direct(ctx, dev, key->prec, &key->gp, out->ks.klimit, key->direct,
                                    &out->extra);
        if (st != CLHGEMM_SUCCESS) chg_gemm_kernels_release(&out->ks);
    }
    return st;
}

/* The kernels of the call: pack, GEMM and write-back, and the direct GEMM variant if needed,
 * kept by the workspace (ws_kernels). */
static clhgemm_status_t blocked_kernels(blocked_t *b, cl_context ctx, const chg_device_t *dev)
{
    const chg_gemm_args_t *a = b->a;
    chg_kkey_t key;
    memset(&key, 0, sizeof key);
    key.kind = CHG_KS_BLOCKED;
    key.prec = a->prec;
    key.trans_a = a->trans_a;
    key.trans_b = a->trans_b;
    key.beta_zero = a->beta == 0.0 && a->beta_im == 0.0;
    key.direct = b->direct;
    memcpy(&key.gp, b->gp, sizeof key.gp);
    memcpy(&key.st, &a->st, sizeof key.st);
    chg_copy_params_t cp;
    chg_pack_params(dev, a->prec, chg_pack_kind(a->st.kind_a), !a->trans_a, &cp);
    memcpy(&key.cpa, &cp, sizeof cp);
    chg_pack_params(dev, a->prec, chg_pack_kind(a->st.kind_b), a->trans_b, &cp);
    memcpy(&key.cpb, &cp, sizeof cp);
    const chg_kset_t *k;
    const clhgemm_status_t st = chg_ws_kernels(b->ws, &key, ctx, dev, build_blocked, &k);
    if (st != CLHGEMM_SUCCESS) return st;
    b->ks = k->ks;
    b->kdirect = k->extra;
    /* the tail's kernels (a second set: the workspace keeps 16, so b->ks stays); SPLITK 2 only
     * where the last slice is shorter */
    if (!b->tail.slices) return CLHGEMM_SUCCESS;
    const chg_splitk_t *sk = &b->tail.sk;
    const int uneven = (size_t)sk->slices * sk->kslice != sk->ktot ? CHG_KERNEL_SPLITK_UNEVEN : 0;
    const int direct = (b->direct & (CHG_DIRECT_A | CHG_DIRECT_BANY)) | uneven;
    return splitk_kernels(a, ctx, dev, b->gp, direct, b->ws, &b->tks);
}

/* The packs of k slice [p0, p0 + kc) of segment seg for the C block (i0, j0, mc x nc) that
 * CHG_WS_A / CHG_WS_B do not already hold (none for an operand read in place). */
static cl_int enqueue_packs(blocked_t *b, int seg, size_t i0, size_t mc, size_t j0, size_t nc,
                            size_t p0, size_t kc)
{
    const chg_gemm_args_t *a = b->a;
    const cl_mem wsa = chg_ws_buffer(b->ws, CHG_WS_A), wsb = chg_ws_buffer(b->ws, CHG_WS_B);
    chain_t *ch = b->ch;
    /* segment 1 (SYR2K fused): the buffers of A and B exchanged */
    const cl_mem sa = seg ? a->b : a->a, sb = seg ? a->a : a->b;
    const size_t oa = seg ? a->off_b : a->off_a, la = seg ? a->ldb : a->lda;
    const size_t ob = seg ? a->off_a : a->off_b, lb = seg ? a->lda : a->ldb;
    size_t *pa = b->pa, *pb = b->pb;
    cl_int err = CL_SUCCESS;
    if (a->alpha_in_pack) {
        /* HER2K: alpha on the first product's X_A, conj(alpha) on the second's */
        b->ks.scale_a[0] = a->alpha;
        b->ks.scale_a[1] = seg ? -a->alpha_im : a->alpha_im;
    }
    if (!(b->direct & CHG_DIRECT_A) &&
        (pa[0] != (size_t)seg || pa[1] != i0 || pa[2] != p0 || pa[3] != kc)) {
        CHAIN(ch, chg_enqueue_pack_a_at(ch->q, &b->ks, i0, p0, mc, kc, sa, oa, la, wsa, 0, nw_,
                                        wl_, &ev_));
        pa[0] = (size_t)seg, pa[1] = i0, pa[2] = p0, pa[3] = kc;
    }
    if (err == CL_SUCCESS && !(b->direct & CHG_DIRECT_BANY) &&
        (pb[0] != (size_t)seg || pb[1] != j0 || pb[2] != p0 || pb[3] != kc)) {
        CHAIN(ch, chg_enqueue_pack_b_at(ch->q, &b->ks, j0, p0, nc, kc, sb, ob, lb, wsb, 0, nw_,
                                        wl_, &ev_));
        pb[0] = (size_t)seg, pb[1] = j0, pb[2] = p0, pb[3] = kc;
    }
    return err;
}

/* The GEMM kernel over the C block (i0, j0, mc x nc) for k slice [p0, p0 + kc), its operands
 * packed (enqueue_packs: the panels of a block starting at (i0, j0)) or in place (accumulating
 * after the first slice). */
static cl_int enqueue_gemm(blocked_t *b, size_t i0, size_t mc, size_t j0, size_t nc, size_t p0,
                           size_t kc, int accumulate)
{
    const chg_gemm_args_t *a = b->a;
    const chg_gemm_params_t *gp = b->gp;
    const cl_mem wsa = chg_ws_buffer(b->ws, CHG_WS_A), wsb = chg_ws_buffer(b->ws, CHG_WS_B);
    const cl_mem wsc = chg_ws_buffer(b->ws, CHG_WS_C);
    chain_t *ch = b->ch;
    const int direct = b->direct;
    const size_t mpad = chg_round_up(mc, b->tv.mwg), npad = chg_round_up(nc, b->tv.nwg);
    const size_t kpad = chg_round_up(kc, b->tv.kwg);
    cl_int err = CL_SUCCESS;
    if (direct) {
        /* direct operands: X_A(i0, p0) = A[off_a + i0 + p0*lda], X_B(j0, p0) =
         * B[off_b + j0 + p0*ldb] (k-major: B[off_b + p0 + j0*ldb]); DIRECT_C writes C(i0, j0)
         * itself */
        const int da = direct & CHG_DIRECT_A, db = direct & CHG_DIRECT_BANY;
        const int dc = direct & CHG_DIRECT_C;
        const size_t bo = direct & CHG_DIRECT_BK ? p0 + j0 * a->ldb : j0 + p0 * a->ldb;
        /* a TRMM's KLIMIT (C direct, operands packed) */
        const int kl = b->ks.klimit;
        const long diag = chg_kernel_diag(&b->ks, i0, j0, p0);
        CHAIN(ch, enqueue_kernel_direct(
                      ch->q, b->kdirect, a, gp, direct, mpad, npad, kpad,
                      da ? a->a : wsa, da ? a->off_a + i0 + p0 * a->lda : 0,
                      db ? a->b : wsb, db ? a->off_b + bo : 0,
                      dc ? a->c : wsc, accumulate, kl, diag,
                      a->off_c + i0 + j0 * a->ldc, mc, nc, nw_, wl_, &ev_));
    } else {
        CHAIN(ch, chg_enqueue_kernel_at(ch->q, &b->ks, i0, j0, p0, mpad, npad, kpad, wsa, 0, 0,
                                        wsb, 0, 0, wsc, accumulate, nw_, wl_, &ev_));
    }
    return err;
}

/* One k slice [p0, p0 + kc) of segment seg of the C block (i0, j0, mc x nc): its packs, then
 * the GEMM kernel. */
static cl_int enqueue_slice(blocked_t *b, int seg, size_t i0, size_t mc, size_t j0, size_t nc,
                            size_t p0, size_t kc, int accumulate)
{
    cl_int err = enqueue_packs(b, seg, i0, mc, j0, nc, p0, kc);
    if (err == CL_SUCCESS) err = enqueue_gemm(b, i0, mc, j0, nc, p0, kc, accumulate);
    return err;
}

/* A tail-split call (b->tail; one block, all of k): the packs of all of C's rows and columns,
 * the GEMM kernel over the lead and its write-back (none with DIRECT_C), then the tail's tiles
 * in slices of k from the same panels (or the operands in place) into the partials in
 * CHG_WS_C, reduced into C. */
static cl_int enqueue_tailed(blocked_t *b)
{
    const chg_gemm_args_t *a = b->a;
    const chg_gemm_params_t *gp = b->gp;
    const chg_tail_t *t = &b->tail;
    const chg_splitk_t *sk = &t->sk;
    chain_t *ch = b->ch;
    const size_t ml = t->cut_n ? a->m : t->lead, nl = t->cut_n ? t->lead : a->n;
    const size_t i0 = t->cut_n ? 0 : t->lead, j0 = t->cut_n ? t->lead : 0; /* the tail's */
    const cl_mem wsc = chg_ws_buffer(b->ws, CHG_WS_C);
    cl_int err = enqueue_packs(b, 0, 0, a->m, 0, a->n, 0, a->k);
    if (err == CL_SUCCESS) err = enqueue_gemm(b, 0, ml, 0, nl, 0, a->k, 0);
    const double alpha[2] = {a->alpha, 0.0}, beta[2] = {a->beta, 0.0}; /* real only */
    if (err == CL_SUCCESS && !(b->direct & CHG_DIRECT_C))
        CHAIN(ch, chg_enqueue_writeback_at(ch->q, &b->ks, 0, 0, ml, nl, alpha, beta, wsc,
                                           chg_round_up(ml, gp->mwg), a->c, a->off_c, a->ldc,
                                           nw_, wl_, &ev_));
    if (err != CL_SUCCESS) return err;
    /* the tail's operands: packed panels of kp rows each (row i0 of packed A starts at
     * i0 * kp), or in place */
    const int direct = b->direct & (CHG_DIRECT_A | CHG_DIRECT_BANY);
    const size_t kp = sk->ktot;
    const int da = direct & CHG_DIRECT_A, db = direct & CHG_DIRECT_BANY;
    const size_t aoff = da ? a->off_a + i0 : i0 * kp;
    const size_t boff = !db                       ? j0 * kp
                        : direct & CHG_DIRECT_BK ? a->off_b + j0 * a->ldb
                                                  : a->off_b + j0;
    return enqueue_split_pass(ch, &b->tks, a, gp, sk, direct,
                              da ? a->a : chg_ws_buffer(b->ws, CHG_WS_A), aoff,
                              db ? a->b : chg_ws_buffer(b->ws, CHG_WS_B), boff, wsc, a->m - i0,
                              a->n - j0, a->off_c + i0 + j0 * a->ldc);
}

/* The C block (i0, j0, mc x nc): its k slices over every segment, then its write-back (none
 * with DIRECT_C: the kernel wrote C). */
static cl_int enqueue_block(blocked_t *b, size_t i0, size_t mc, size_t j0, size_t nc)
{
    const chg_gemm_args_t *a = b->a;
    chain_t *ch = b->ch;
    const int nseg = a->swap_sum ? 2 : 1;
    size_t klo, khi;
    chg_l3_k_range(&a->st, i0, mc, j0, nc, a->k, &klo, &khi);
    if (klo >= khi) /* cannot happen for the routines of l3_map.c: k > 0 there */
        return CLHGEMM_INTERNAL_ERROR;
    cl_int err = CL_SUCCESS;
    int slices = 0;
    for (int seg = 0; seg < nseg && err == CL_SUCCESS; seg++) {
        for (size_t p0 = klo; p0 < khi && err == CL_SUCCESS; p0 += b->pl.kb) {
            const size_t kc = CHG_MIN(b->pl.kb, khi - p0);
            err = enqueue_slice(b, seg, i0, mc, j0, nc, p0, kc, slices > 0);
            slices++;
        }
    }
    const double alpha[2] = {a->alpha_in_pack ? 1.0 : a->alpha, a->alpha_in_pack ? 0.0 : a->alpha_im};
    const double beta[2] = {a->beta, a->beta_im};
    if (err == CL_SUCCESS && !(b->direct & CHG_DIRECT_C))
        CHAIN(ch, chg_enqueue_writeback_at(ch->q, &b->ks, i0, j0, mc, nc, alpha, beta,
                                           chg_ws_buffer(b->ws, CHG_WS_C),
                                           chg_round_up(mc, b->tv.mwg), a->c,
                                           a->off_c + i0 + j0 * a->ldc, a->ldc, nw_, wl_, &ev_));
    return err;
}

/* Every C block that the call needs, in an order safe for TRMM.
 *
 * TRMM writes C over its general operand (C aliases B for side left, A for side right), and a
 * C block is written back only after all of its k slices ran. With X_A upper, C rows i need
 * source rows p >= i: visiting the row blocks top-down, every block reads only rows that no
 * earlier block wrote (they wrote rows above it); lower goes bottom-up. The same holds for the
 * column blocks and a triangular X_B. Columns (rows) are independent the other way, and packs
 * reused (blocked_t.pa / pb) are snapshots taken before any overwrite. */
static cl_int enqueue_blocks(blocked_t *b)
{
    const chg_gemm_args_t *a = b->a;
    if (b->tail.slices) return enqueue_tailed(b); /* one block, plain GEMM */
    const plan_t *pl = &b->pl;
    const int i_down = a->st.kind_a == CHG_TRIANGULAR && !a->st.upper_a;
    const int j_down = a->st.kind_b == CHG_TRIANGULAR && !a->st.upper_b;
    const size_t nib = (a->m + pl->mb - 1) / pl->mb, njb = (a->n + pl->nb - 1) / pl->nb;
    cl_int err = CL_SUCCESS;
    for (size_t bi = 0; bi < nib && err == CL_SUCCESS; bi++) {
        const size_t i0 = (i_down ? nib - 1 - bi : bi) * pl->mb;
        const size_t mc = CHG_MIN(pl->mb, a->m - i0);
        for (size_t bj = 0; bj < njb && err == CL_SUCCESS; bj++) {
            const size_t j0 = (j_down ? njb - 1 - bj : bj) * pl->nb;
            const size_t nc = CHG_MIN(pl->nb, a->n - j0);
            if (!chg_l3_block_needed(&a->st, i0, mc, j0, nc)) continue;
            err = enqueue_block(b, i0, mc, j0, nc);
        }
    }
    return err;
}

/* The blocked GEMM proper, on an acquired workspace: plan and workspace, kernels, blocks (wgs:
 * gp's work-groups per compute unit for the tail split, 0 unknown). */
static clhgemm_status_t enqueue_blocked(const chg_gemm_args_t *a, cl_context ctx,
                                        const chg_device_t *dev, const chg_gemm_params_t *gp,
                                        int wgs, chg_workspace_t *ws, chain_t *ch)
{
    blocked_t b = {.a = a, .gp = gp, .tv = chg_l3_tile(gp, &a->st), .wgs = wgs, .ws = ws,
                   .ch = ch, .pa = {(size_t)-1, 0, 0, 0}, .pb = {(size_t)-1, 0, 0, 0}};
    clhgemm_status_t st = plan_workspace(&b, ctx, dev);
    if (st == CLHGEMM_SUCCESS) st = blocked_kernels(&b, ctx, dev);
    if (st != CLHGEMM_SUCCESS) return st;
    return (clhgemm_status_t)enqueue_blocks(&b); /* the kernels stay with the workspace */
}

/* ---- split-K (core/splitk.h) --------------------------------------------------------------- */

/* The kernels of a split call: the general packs, the SPLITK GEMM kernel (in ks.gemm) and the
 * reduce (in ks.wb). On failure nothing is left to release. */
static clhgemm_status_t build_splitk(const chg_kkey_t *key, cl_context ctx,
                                     const chg_device_t *dev, chg_kset_t *out)
{
    chg_gemm_kernels_t *ks = &out->ks;
    ks->prec = key->prec;
    ks->gp = key->gp;
    ks->trans_a = key->trans_a;
    ks->trans_b = key->trans_b;
    ks->cpa = key->cpa;
    ks->cpb = key->cpb;
    clhgemm_status_t st = chg_copy_kernel(ctx, dev, &ks->cpa, "pack", &ks->pack_a);
    if (st == CLHGEMM_SUCCESS) st = chg_copy_kernel(ctx, dev, &ks->cpb, "pack", &ks->pack_b);
    if (st == CLHGEMM_SUCCESS)
        st = chg_gemm_kernel_direct(ctx, dev, key->prec, &key->gp, 0,
                                    CHG_KERNEL_SPLITK | key->direct, &ks->gemm);
    if (st == CLHGEMM_SUCCESS)
        st = chg_splitk_reduce_kernel(ctx, dev, key->prec, key->beta_zero, &ks->wb);
    if (st != CLHGEMM_SUCCESS) chg_gemm_kernels_release(ks);
    return st;
}

static clhgemm_status_t splitk_kernels(const chg_gemm_args_t *a, cl_context ctx,
                                       const chg_device_t *dev, const chg_gemm_params_t *gp,
                                       int direct, chg_workspace_t *ws, chg_gemm_kernels_t *ks)
{
    chg_kkey_t key;
    memset(&key, 0, sizeof key);
    key.kind = CHG_KS_SPLITK;
    key.direct = direct;
    key.prec = a->prec;
    key.trans_a = a->trans_a;
    key.trans_b = a->trans_b;
    key.beta_zero = a->beta == 0.0;
    memcpy(&key.gp, gp, sizeof key.gp);
    chg_copy_params_t cp;
    chg_pack_params(dev, a->prec, CHG_COPY_PACK, !a->trans_a, &cp);
    memcpy(&key.cpa, &cp, sizeof cp);
    chg_pack_params(dev, a->prec, CHG_COPY_PACK, a->trans_b, &cp);
    memcpy(&key.cpb, &cp, sizeof cp);
    const chg_kset_t *k;
    const clhgemm_status_t st = chg_ws_kernels(ws, &key, ctx, dev, build_splitk, &k);
    if (st == CLHGEMM_SUCCESS) *ks = k->ks;
    return st;
}

/* Reserves the split call's temporaries: 1 when they fit the budget, the per-buffer limits and
 * the device's allocations; 0 otherwise (the blocked path runs instead); <0 an OpenCL error. */
static int splitk_workspace(const chg_gemm_args_t *a, cl_context ctx, const chg_device_t *dev,
                            const chg_splitk_t *sk, int direct, chg_workspace_t *ws)
{
    const size_t es = chg_elem_size(a->prec);
    unsigned long long per_buf = dev->info.max_alloc_bytes;
    if (per_buf > (1ull << 31) * es - es) per_buf = (1ull << 31) * es - es;
    size_t el[3];
    chg_splitk_elements(sk, el);
    /* an operand read in place needs no packed copy (a buffer of one element stays reserved) */
    if (direct & CHG_DIRECT_A) el[0] = 1;
    if (direct & CHG_DIRECT_BANY) el[1] = 1;
    if ((unsigned long long)(el[0] + el[1] + el[2]) * es > chg_workspace_budget(dev)) return 0;
    for (int i = 0; i < 3; i++)
        if ((unsigned long long)el[i] * es > per_buf) return 0;
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 3 && err == CL_SUCCESS; i++)
        err = chg_ws_reserve(ws, ctx, CHG_WS_A + i, el[i] * es);
    if (err == CL_SUCCESS) return 1;
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
        err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE)
        return 0;
    return err;
}

/* The operands a split call reads in place (CHG_DIRECT_A / _B): op(A) = A not transposed, or
 * op(B)^T = B transposed, in the kernel's layout (direct_operand), when the slices end exactly at
 * k (ktot == k: the packs' zero rows beyond k do not exist in place) and, by default, the
 * operand is the big one of a thin product (the other side of C at most CHG_SPLITK_DIRECT_MAX):
 * there its pack costs a large share of the kernel (DGEMM 8192 x 64 x 8192: 0.37 ms of A's pack
 * beside a 0.25 ms kernel on the H100; in place: 11.2 -> 19.9 TFLOP/s, 16384 x 256 x 16384
 * 31.4 -> 43.9, 1024^2 x 8192 +6%), while the kernels measured ~2% slower reading a square
 * product's A in place, and SGEMM's FMA kernel 2-5% slower on 1024^2 x 8192 and 512^2 x 32768.
 * The partials go to the workspace and C is written by the reduce after the kernel, so an
 * operand sharing memory with C is harmless. CLHGEMM_DIRECT as for the blocked path (its "c" is
 * the blocked path's alone). */
static int splitk_direct(const chg_gemm_args_t *a, const chg_gemm_params_t *gp,
                         const chg_splitk_t *sk)
{
    if (sk->ktot != a->k) return 0;
    const size_t most = gp->mma ? CHG_SPLITK_DIRECT_MAX : CHG_SPLITK_DIRECT_MAX_FMA;
    int allow = (a->n <= most ? CHG_DIRECT_A : 0) | (a->m <= most ? CHG_DIRECT_BANY : 0);
    size_t ahi, bhi;
    return chg_direct_in_place(a, gp, chg_direct_env(allow), &ahi, &bhi);
}

/* The split call: pack op(A) and op(B) whole (ktot rows, zero beyond k) unless read in place,
 * one SPLITK launch of every tile and slice, the reduce into C. *done = 0 (nothing enqueued)
 * when the split does not apply or its temporaries do not fit: the caller runs the blocked
 * path. */
static clhgemm_status_t enqueue_splitk(const chg_gemm_args_t *a, cl_context ctx,
                                       const chg_device_t *dev, const chg_gemm_params_t *gp,
                                       int slices, chg_workspace_t *ws, chain_t *ch, int *done)
{
    *done = 0;
    chg_splitk_t sk;
    if (!chg_splitk_plan(gp, a->m, a->n, a->k, slices, &sk)) return CLHGEMM_SUCCESS;
    const int direct = splitk_direct(a, gp, &sk);
    const int fit = splitk_workspace(a, ctx, dev, &sk, direct, ws);
    if (fit <= 0) return fit < 0 ? (clhgemm_status_t)fit : CLHGEMM_SUCCESS;
    chg_gemm_kernels_t ks;
    clhgemm_status_t st = splitk_kernels(a, ctx, dev, gp, direct, ws, &ks);
    if (st != CLHGEMM_SUCCESS) return st;
    *done = 1;
    chg_log(2, "gemm %s m=%zu n=%zu k=%zu split-K %d slices of %zu%s%s",
            a->prec == CHG_F64 ? "d" : "s", a->m, a->n, a->k, sk.slices, sk.kslice,
            direct & CHG_DIRECT_A ? ", A in place" : "", direct & CHG_DIRECT_BANY ? ", B in place" : "");
    cl_int err = CL_SUCCESS;
    cl_mem wa = chg_ws_buffer(ws, CHG_WS_A), wb = chg_ws_buffer(ws, CHG_WS_B);
    cl_mem wc = chg_ws_buffer(ws, CHG_WS_C);
    if (!(direct & CHG_DIRECT_A))
        CHAIN(ch, chg_enqueue_pack_panel(ch->q, ks.pack_a, &ks.cpa, gp->mwg, (int)sk.ktot, a->m,
                                         a->k, a->a, a->off_a, a->lda, wa, 0, 0, nw_, wl_, &ev_));
    if (err == CL_SUCCESS && !(direct & CHG_DIRECT_BANY))
        CHAIN(ch, chg_enqueue_pack_panel(ch->q, ks.pack_b, &ks.cpb, gp->nwg, (int)sk.ktot, a->n,
                                         a->k, a->b, a->off_b, a->ldb, wb, 0, 0, nw_, wl_, &ev_));
    if (err == CL_SUCCESS) {
        const int da = direct & CHG_DIRECT_A, db = direct & CHG_DIRECT_BANY;
        err = enqueue_split_pass(ch, &ks, a, gp, &sk, direct, da ? a->a : wa, da ? a->off_a : 0,
                                 db ? a->b : wb, db ? a->off_b : 0, wc, a->m, a->n, a->off_c);
    }
    return (clhgemm_status_t)err; /* the kernels stay with the workspace */
}

/* ---- the direct kernel (cl/gemm_direct.cl; gp->dk) ---------------------------------------- */

clhgemm_status_t chg_gemm_direct_kernel(cl_context ctx, const chg_device_t *dev,
                                        chg_precision_t prec, const chg_gemm_params_t *gp,
                                        cl_kernel *out)
{
    chg_str_t src;
    chg_str_init(&src);
    if (chg_gemm_direct_source(dev, prec, gp, &src) != 0) {
        const int oom = src.failed;
        chg_str_free(&src);
        return oom ? CLHGEMM_OUT_OF_HOST_MEMORY : CLHGEMM_INTERNAL_ERROR;
    }
    const clhgemm_status_t st = chg_kernel_get(ctx, dev, prec == CHG_F64 ? "dgemm-direct" : "sgemm-direct",
                                               src.data, "clhgemm_gemm_direct", out);
    chg_str_free(&src);
    return st;
}

static clhgemm_status_t build_direct(const chg_kkey_t *key, cl_context ctx,
                                     const chg_device_t *dev, chg_kset_t *out)
{
    out->ks.prec = key->prec;
    out->ks.gp = key->gp;
    return chg_gemm_direct_kernel(ctx, dev, key->prec, &key->gp, &out->ks.gemm);
}

/* One stored matrix (rows x cols, ld) at buf + off may share memory with C of the call. */
static int overlaps_c(const chg_gemm_args_t *a, cl_mem buf, size_t off, size_t rows, size_t cols,
                      size_t ld)
{
    const size_t es = chg_elem_size(a->prec);
    const size_t clo = a->off_c, chi = a->off_c + (a->n - 1) * a->ldc + a->m;
    return chg_may_overlap(buf, off, off + (cols - 1) * ld + rows, a->c, clo, chi, es);
}

/* Whether the direct kernel may run the call: a plain GEMM (the level-3 structures need the
 * packs), A and B not sharing memory with C (its work-groups write C while others still read
 * A and B; BLAS forbids the overlap, the packed path survives it, so it takes such a call). */
static int direct_kernel_applies(const chg_gemm_args_t *a)
{
    const chg_struct_t general = {0};
    if (memcmp(&a->st, &general, sizeof general) != 0 || a->swap_sum) return 0;
    const size_t ar = a->trans_a ? a->k : a->m, ac = a->trans_a ? a->m : a->k;
    const size_t br = a->trans_b ? a->n : a->k, bc = a->trans_b ? a->k : a->n;
    return !overlaps_c(a, a->a, a->off_a, ar, ac, a->lda) &&
           !overlaps_c(a, a->b, a->off_b, br, bc, a->ldb);
}

/* The call in one launch of the direct kernel, kept by the workspace. */
static clhgemm_status_t enqueue_direct(const chg_gemm_args_t *a, cl_context ctx,
                                       const chg_device_t *dev, const chg_gemm_params_t *gp,
                                       chg_workspace_t *ws, chain_t *ch)
{
    chg_kkey_t key;
    memset(&key, 0, sizeof key);
    key.kind = CHG_KS_DIRECT;
    key.prec = a->prec;
    memcpy(&key.gp, gp, sizeof key.gp);
    const chg_kset_t *ks;
    clhgemm_status_t st = chg_ws_kernels(ws, &key, ctx, dev, build_direct, &ks);
    if (st != CLHGEMM_SUCCESS) return st;
    cl_kernel k = ks->ks.gemm;
    const int m = (int)a->m, n = (int)a->n, kk = (int)a->k;
    const int ta = a->trans_a != 0, tb = a->trans_b != 0;
    const cl_ulong ao = a->off_a, la = a->lda, bo = a->off_b, lb = a->ldb, co = a->off_c,
                   lc = a->ldc;
    cl_int err = CL_SUCCESS;
    CHG_SETARG(k, 0, m);
    CHG_SETARG(k, 1, n);
    CHG_SETARG(k, 2, kk);
    if (err == CL_SUCCESS) err = chg_set_real(k, 3, a->prec, a->alpha);
    CHG_SETARG(k, 4, a->a);
    CHG_SETARG(k, 5, ao);
    CHG_SETARG(k, 6, la);
    CHG_SETARG(k, 7, ta);
    CHG_SETARG(k, 8, a->b);
    CHG_SETARG(k, 9, bo);
    CHG_SETARG(k, 10, lb);
    CHG_SETARG(k, 11, tb);
    if (err == CL_SUCCESS) err = chg_set_real(k, 12, a->prec, a->beta);
    CHG_SETARG(k, 13, a->c);
    CHG_SETARG(k, 14, co);
    CHG_SETARG(k, 15, lc);
    const size_t g[2] = {(a->m + (size_t)gp->mwg - 1) / (size_t)gp->mwg * (size_t)gp->mdimc,
                         (a->n + (size_t)gp->nwg - 1) / (size_t)gp->nwg * (size_t)gp->ndimc};
    const size_t l[2] = {(size_t)gp->mdimc, (size_t)gp->ndimc};
    if (err == CL_SUCCESS) err = chain_kernel(ch, k, g, l);
    chg_log(2, "gemm %s m=%zu n=%zu k=%zu direct kernel %dx%d tiles", a->prec == CHG_F64 ? "d" : "s",
            a->m, a->n, a->k, gp->mwg, gp->nwg);
    return (clhgemm_status_t)err;
}

/* The product proper on the queue's workspace: split-K where it applies, else blocked. */
static clhgemm_status_t enqueue_product(const chg_gemm_args_t *a, cl_context ctx,
                                        const chg_device_t *dev, const chg_gemm_choice_t *force,
                                        chg_workspace_t *ws, chain_t *ch)
{
    chg_gemm_params_t gp;
    int wgs;
    /* a complex call is chosen for as the real product it runs (2m x n x 2k, codegen.h) */
    chg_gemm_args_t rv = *a;
    if (a->st.cplx) rv.m *= 2, rv.k *= 2;
    const int slices = chg_gemm_call_params(&rv, dev, force, &gp, &wgs);
    if (gp.dk) {
        if (direct_kernel_applies(a)) return enqueue_direct(a, ctx, dev, &gp, ws, ch);
        chg_gemm_params_main(dev, a->prec, &gp); /* the packed kernel on the same tiles */
        wgs = 0;
    }
    int done = 0;
    clhgemm_status_t st = CLHGEMM_SUCCESS;
    if (slices > 1) st = enqueue_splitk(a, ctx, dev, &gp, slices, ws, ch, &done);
    if (st == CLHGEMM_SUCCESS && !done) st = enqueue_blocked(a, ctx, dev, &gp, wgs, ws, ch);
    return st;
}

clhgemm_status_t chg_gemm_enqueue(const chg_gemm_args_t *a, cl_command_queue queue,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *event)
{
    return chg_gemm_enqueue_with(a, NULL, 0, 0, queue, num_wait, wait_list, event);
}

/* The call on a queue whose device and context are known; force: the kernel choice, NULL for
 * the tuned one. */
static clhgemm_status_t enqueue_call(const chg_gemm_args_t *a, const chg_gemm_choice_t *force,
                                     const chg_device_t *dev, cl_context ctx, cl_command_queue queue,
                                     cl_uint num_wait, const cl_event *wait_list, cl_event *event)
{
    clhgemm_status_t st = CLHGEMM_SUCCESS;
    chain_t ch = {queue, NULL, num_wait, wait_list};
    if (a->m == 0 || a->n == 0) {
        st = (clhgemm_status_t)chain_marker(&ch);
    } else if (a->k == 0 || (a->alpha == 0.0 && a->alpha_im == 0.0)) {
        st = enqueue_scale(a, ctx, dev, &ch);
    } else {
        chg_workspace_t *ws = chg_ws_acquire(queue);
        if (!ws) return CLHGEMM_OUT_OF_HOST_MEMORY;
        /* Wait for the previous call's use of this workspace (a no-op on in-order queues). */
        cl_event *joined = NULL;
        const cl_event last = chg_ws_last(ws);
        if (last) {
            joined = malloc((num_wait + 1) * sizeof *joined);
            if (!joined) {
                chg_ws_release(ws);
                return CLHGEMM_OUT_OF_HOST_MEMORY;
            }
            if (num_wait) memcpy(joined, wait_list, num_wait * sizeof *joined);
            joined[num_wait] = last;
            ch.nwait = num_wait + 1;
            ch.wait = joined;
        }
        st = enqueue_product(a, ctx, dev, force, ws, &ch);
        if (st == CLHGEMM_SUCCESS) chg_ws_set_last(ws, ch.prev);
        chg_ws_release(ws);
        free(joined);
    }
    if (st != CLHGEMM_SUCCESS) {
        /* Kernels and workspace are all obtained before the first command is enqueued, so
         * build and allocation failures leave C untouched. An enqueue failing half-way (a lost
         * device) may leave earlier C blocks final and later ones untouched. Wait for what was
         * enqueued so the caller may free its buffers at once. */
        if (ch.prev) {
            clWaitForEvents(1, &ch.prev);
            clReleaseEvent(ch.prev);
        }
        return st;
    }
    if (event) *event = ch.prev;
    else clReleaseEvent(ch.prev);
    return CLHGEMM_SUCCESS;
}

clhgemm_status_t chg_gemm_enqueue_on(const chg_gemm_args_t *a, const chg_device_t *dev,
                                     cl_context ctx, cl_command_queue queue, cl_uint num_wait,
                                     const cl_event *wait_list, cl_event *event)
{
    return enqueue_call(a, NULL, dev, ctx, queue, num_wait, wait_list, event);
}

clhgemm_status_t chg_gemm_enqueue_with(const chg_gemm_args_t *a, const chg_gemm_params_t *gp,
                                       int split_k, int wgs_per_cu, cl_command_queue queue,
                                       cl_uint num_wait, const cl_event *wait_list,
                                       cl_event *event)
{
    chg_gemm_choice_t force_c;
    const chg_gemm_choice_t *force = NULL;
    if (gp) {
        memset(&force_c, 0, sizeof force_c);
        force_c.gp = *gp;
        force_c.split_k = split_k;
        force_c.cls = CHG_SHAPE_LARGE;
        force_c.wgs_per_cu = wgs_per_cu;
        force = &force_c;
    }
    const chg_device_t *dev;
    cl_context ctx;
    const clhgemm_status_t st = chg_queue_device(queue, &dev, &ctx);
    if (st != CLHGEMM_SUCCESS) return st;
    return enqueue_call(a, force, dev, ctx, queue, num_wait, wait_list, event);
}
