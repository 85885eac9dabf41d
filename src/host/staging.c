/*
 * staging.c -- pinned staging, device buffers, the pack threads' copies and the geometry of a
 * staged slice (staging.h says what each is for).
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define CHG_HAVE_STREAM_STORES 1
#endif
#include "host/staging.h"

/* ---- buffers -------------------------------------------------------------------------------- */

static atomic_long g_alloc_count;

static int fault_alloc(void)
{
    const long n = chg_env_int("CLHGEMM_FAULT_ALLOC", 0, 0, INT_MAX); /* 0: no fault */
    return n > 0 && atomic_fetch_add(&g_alloc_count, 1) + 1 == n;
}

cl_mem chg_dev_alloc(cl_context ctx, size_t bytes, cl_int *err)
{
    if (fault_alloc()) {
        *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    return clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, err);
}

cl_int chg_pinned_alloc(cl_context ctx, cl_command_queue q, size_t bytes, chg_pinned_t *p)
{
    cl_int err;
    memset(p, 0, sizeof *p);
    if (fault_alloc()) return CL_MEM_OBJECT_ALLOCATION_FAILURE;
    p->buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes ? bytes : 1, NULL,
                            &err);
    if (err != CL_SUCCESS) return err;
    p->ptr = clEnqueueMapBuffer(q, p->buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes ? bytes : 1,
                                0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(p->buf);
        p->buf = NULL;
        return err;
    }
    p->bytes = bytes;
    return CL_SUCCESS;
}

void chg_pinned_free(cl_command_queue q, chg_pinned_t *p)
{
    if (!p->buf) return;
    if (p->ptr) {
        cl_event ev;
        if (clEnqueueUnmapMemObject(q, p->buf, p->ptr, 0, NULL, &ev) == CL_SUCCESS) {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
        }
    }
    clReleaseMemObject(p->buf);
    memset(p, 0, sizeof *p);
}

/* ---- the pack threads' copies ---------------------------------------------------------------- */

/* Non-temporal stores (staging.h): column copies of a few hundred KB stay below glibc's own
 * non-temporal threshold, so memcpy alone would not stream them. */
static atomic_int g_stream_copy = -1;

static int stream_copy_on(void)
{
    if (g_stream_copy < 0) {
        g_stream_copy = chg_env_flag("CLHGEMM_STREAM_COPY", 1);
    }
    return g_stream_copy;
}

static void copy_run(char *dst, const char *src, size_t n, int nt)
{
#ifdef CHG_HAVE_STREAM_STORES
    if (nt && n >= 256) {
        const size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
        memcpy(dst, src, head);
        dst += head, src += head, n -= head;
        const size_t blocks = n / 64;
        for (size_t b = 0; b < blocks; b++, dst += 64, src += 64) {
            const __m128i x0 = _mm_loadu_si128((const __m128i *)src);
            const __m128i x1 = _mm_loadu_si128((const __m128i *)(src + 16));
            const __m128i x2 = _mm_loadu_si128((const __m128i *)(src + 32));
            const __m128i x3 = _mm_loadu_si128((const __m128i *)(src + 48));
            _mm_stream_si128((__m128i *)dst, x0);
            _mm_stream_si128((__m128i *)(dst + 16), x1);
            _mm_stream_si128((__m128i *)(dst + 32), x2);
            _mm_stream_si128((__m128i *)(dst + 48), x3);
        }
        memcpy(dst, src, n - blocks * 64);
        return;
    }
#endif
    (void)nt;
    memcpy(dst, src, n);
}

/* After a thread's streaming stores: make them visible before the copy is reported done (the
 * staging is then handed to a DMA engine). */
static void copy_fence(int nt)
{
#ifdef CHG_HAVE_STREAM_STORES
    if (nt) _mm_sfence();
#endif
    (void)nt;
}

/* Rows [*r0, *r1) of column c that lie in the triangle (every row for CHG_TRI_NONE). */
static void tri_rows(const chg_copy_t *m, size_t c, size_t *r0, size_t *r1)
{
    if (m->tri == CHG_TRI_NONE) {
        *r0 = 0;
        *r1 = m->rows;
        return;
    }
    const long s = m->strict ? 1 : 0, x = (long)c - m->diag, rows = (long)m->rows;
    long lo = 0, hi = rows;
    if (m->tri == CHG_TRI_UPPER) hi = x - s + 1;
    else lo = x + s;
    lo = CHG_MAX(lo, 0L);
    hi = CHG_MIN(hi, rows);
    *r0 = (size_t)lo;
    *r1 = (size_t)CHG_MAX(hi, lo);
}

static void copy_part(void *arg, int part, int worker)
{
    (void)worker;
    const chg_copy_t *m = arg;
    const int nt = stream_copy_on();
    if (m->cols >= (size_t)m->parts) {
        const size_t c0 = m->cols * part / m->parts, c1 = m->cols * (part + 1) / m->parts;
        for (size_t j = c0; j < c1; j++) {
            size_t r0, r1;
            tri_rows(m, j, &r0, &r1);
            if (r1 > r0)
                copy_run(m->dst + (j * m->dld + r0) * m->es, m->src + (j * m->sld + r0) * m->es,
                         (r1 - r0) * m->es, nt);
        }
    } else {
        /* Few long columns (a whole block only): split each column's rows. */
        const size_t r0 = m->rows * part / m->parts, r1 = m->rows * (part + 1) / m->parts;
        for (size_t j = 0; j < m->cols; j++)
            copy_run(m->dst + (j * m->dld + r0) * m->es, m->src + (j * m->sld + r0) * m->es,
                     (r1 - r0) * m->es, nt);
    }
    copy_fence(nt);
}

/* Parts of a copy of `bytes`: one below 1 MB (not worth waking anyone); with max_parts, at most
 * that many (the CPU share's core budget: parts are what bounds the threads at work); else one
 * per thread, up to COPY_SPLIT per thread for big copies, at least 1 MB each, so that a thread
 * slowed by anything else on its core leaves its share to the others rather than holding up the
 * copy's end. */
#define COPY_SPLIT 4
static int copy_parts(const chg_pool_t *pool, int max_parts, size_t bytes)
{
    const int threads = chg_pool_threads(pool);
    if (bytes < (1u << 20)) return 1;
    if (max_parts > 0) return CHG_MIN(threads, max_parts);
    const size_t by_size = bytes >> 20;
    return (int)CHG_MAX((size_t)threads, CHG_MIN((size_t)threads * COPY_SPLIT, by_size));
}

void chg_copy_start(chg_pool_t *pool, int max_parts, chg_copy_t *m, void *dst, size_t dld,
                    const void *src, size_t sld, size_t rows, size_t cols, size_t es, long diag,
                    int tri, int strict, chg_trace_t *tr, const char *name)
{
    *m = (chg_copy_t){.dst = dst, .src = src, .rows = rows, .cols = cols, .dld = dld, .sld = sld,
                      .es = es, .diag = diag, .tri = tri, .strict = strict};
    int parts = copy_parts(pool, max_parts, rows * cols * es);
    if (tri != CHG_TRI_NONE) parts = (int)CHG_MAX((size_t)1, CHG_MIN((size_t)parts, cols));
    m->parts = parts;
    if (tri == CHG_TRI_NONE) {
        m->elems = rows * cols;
    } else {
        for (size_t j = 0; j < cols; j++) {
            size_t r0, r1;
            tri_rows(m, j, &r0, &r1);
            m->elems += r1 - r0;
        }
    }
    chg_pool_start(pool, &m->job, rows && cols ? parts : 0, copy_part, m, tr, name);
}

size_t chg_copy_finish(chg_pool_t *pool, chg_copy_t *m)
{
    chg_pool_finish(pool, &m->job);
    return m->elems;
}

void chg_copy2d(chg_pool_t *pool, int max_parts, void *dst, size_t dld, const void *src, size_t sld,
                size_t rows, size_t cols, size_t es, chg_trace_t *tr, const char *name)
{
    chg_copy2d_tri(pool, max_parts, dst, dld, src, sld, rows, cols, es, 0, CHG_TRI_NONE, 0, tr,
                   name);
}

size_t chg_copy2d_tri(chg_pool_t *pool, int max_parts, void *dst, size_t dld, const void *src,
                      size_t sld, size_t rows, size_t cols, size_t es, long diag, int tri,
                      int strict, chg_trace_t *tr, const char *name)
{
    chg_copy_t m;
    chg_copy_start(pool, max_parts, &m, dst, dld, src, sld, rows, cols, es, diag, tri, strict, tr,
                   name);
    return chg_copy_finish(pool, &m);
}

/* ---- what of an operand slice crosses the bus ------------------------------------------------ */

void chg_stage_geometry(const chg_struct_t *st, int is_a, int contig, size_t r0, size_t rc,
                        size_t p0, size_t kc, chg_stage_t *g)
{
    memset(g, 0, sizeof *g);
    g->kind = is_a ? st->kind_a : st->kind_b;
    const int upper = is_a ? st->upper_a : st->upper_b, unit = is_a ? st->unit_a : st->unit_b;
    const chg_rect_t D = contig ? (chg_rect_t){r0, p0, rc, kc} : (chg_rect_t){p0, r0, kc, rc};
    const chg_rect_t Mr = contig ? (chg_rect_t){p0, r0, kc, rc} : (chg_rect_t){r0, p0, rc, kc};
    g->diag = (long)r0 - (long)p0;
    /* X(r, p) is inside its triangle when r <= p (upper) or r >= p; in M, r runs along a when
     * contig, so the stored triangle of M is the upper one when upper == contig. */
    g->tri = upper == contig ? CHG_TRI_UPPER : CHG_TRI_LOWER;
    const long dmin = g->diag - (long)(kc - 1), dmax = g->diag + (long)(rc - 1);
    const int in_all = upper ? dmax <= 0 : dmin >= 0, out_all = upper ? dmin > 0 : dmax < 0;
    if (g->kind == CHG_GENERAL || (g->kind == CHG_SYMMETRIC && in_all)) {
        g->box = D;
        g->nrect = 1;
        g->rect[0] = D;
        if (g->kind == CHG_GENERAL) g->tri = CHG_TRI_NONE;
    } else if (g->kind == CHG_SYMMETRIC && out_all) {
        g->box = Mr;
        g->nrect = 1;
        g->rect[0] = Mr;
    } else if (g->kind == CHG_SYMMETRIC) {
        g->nrect = 1;
        g->rect[0] = D;
        if (memcmp(&D, &Mr, sizeof D)) g->rect[g->nrect++] = Mr;
        const size_t a0 = CHG_MIN(D.a0, Mr.a0), b0 = CHG_MIN(D.b0, Mr.b0);
        g->box = (chg_rect_t){a0, b0, CHG_MAX(D.a0 + D.ae, Mr.a0 + Mr.ae) - a0,
                          CHG_MAX(D.b0 + D.be, Mr.b0 + Mr.be) - b0};
    } else {
        /* triangular: D's part inside the triangle of M (a <= b - s, or a >= b + s) */
        const long s = unit ? 1 : 0;
        long alo = (long)D.a0, ahi = (long)(D.a0 + D.ae), blo = (long)D.b0, bhi = (long)(D.b0 + D.be);
        if (g->tri == CHG_TRI_UPPER) {
            ahi = CHG_MIN(ahi, bhi - s);
            blo = CHG_MAX(blo, (long)D.a0 + s);
        } else {
            alo = CHG_MAX(alo, (long)D.b0 + s);
            bhi = CHG_MIN(bhi, (long)(D.a0 + D.ae) - s);
        }
        g->strict = unit;
        if (!out_all && ahi > alo && bhi > blo) {
            g->box = (chg_rect_t){(size_t)alo, (size_t)blo, (size_t)(ahi - alo), (size_t)(bhi - blo)};
            g->nrect = 1;
            g->rect[0] = g->box;
        }
    }
    g->ld = CHG_MAX(g->box.ae, (size_t)1);
    if (g->kind == CHG_TRIANGULAR) {
        g->oa = D.a0;
        g->ob = D.b0;
        if (g->nrect) g->box_off = (g->box.a0 - D.a0) + (g->box.b0 - D.b0) * g->ld;
        g->off = g->off_m = 0;
    } else {
        g->oa = g->box.a0;
        g->ob = g->box.b0;
        g->off = in_all || !out_all || g->kind == CHG_GENERAL ? (D.a0 - g->oa) + (D.b0 - g->ob) * g->ld : 0;
        g->off_m = g->kind == CHG_SYMMETRIC && !in_all ? (Mr.a0 - g->oa) + (Mr.b0 - g->ob) * g->ld : g->off;
        if (g->kind == CHG_SYMMETRIC && out_all) g->off = g->off_m;
    }
}

