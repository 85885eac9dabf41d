/*
 * tune_copy.c -- the copy-kernel search of clhgemm-tune: the PACK kernels of src/kernels/codegen.c
 * over the six parameters of Matsumoto et al.'s copying kernels (work-group tile TILE_I x TILE_P,
 * work-item tile WPT_I x WPT_P, unroll degrees UD_I, UD_P) plus the local-memory padding of the
 * transposing variant, for both variants (source contiguous along i, and transposing), reported in
 * GB/s next to clEnqueueCopyBuffer of the same bytes measured in the same run.
 *
 * The space is small (hundreds), so the search is two stages: every blocking (the four tile
 * parameters) with full unroll and the default padding, then the unroll degrees and paddings
 * around the best blocking. Each candidate is timed on an n x n matrix (the bytes read plus the
 * bytes written, as for the copy) and checked element by element on an odd-sized problem with
 * a leading dimension larger than the matrix, where the zero padding and the tile edges are
 * exercised.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

typedef struct ccand_s {
    chg_copy_params_t p;
    int state;       /* 0 new, 1 in flight, 2 done */
    double gbs;      /* 0 failed */
} ccand_t;

typedef struct csearch_s {
    tune_run_t *r;
    tdev_t *d;
    chg_precision_t prec;
    size_t es;
    int contig;
    ccand_t *c;
    int n, cap;
    int nstage1;     /* c[0..nstage1) are stage 1, model-ordered */
    int pos, best, stage2_built;
    int blk, pmult;  /* the GEMM layout packed into */
    size_t big;      /* timing problem is big x big */
    cl_mem src, dst, csrc, cdst;
    void *hsrc, *hout;
    int tried, failed;
} csearch_t;

/* The check problem: odd sizes, a leading dimension larger than the matrix. */
enum { CROWS = 1000, CCOLS = 777, CLD = 1003 };

static int same(const chg_copy_params_t *a, const chg_copy_params_t *b)
{
    return a->tile_i == b->tile_i && a->tile_p == b->tile_p && a->wpt_i == b->wpt_i &&
           a->wpt_p == b->wpt_p && a->ud_i == b->ud_i && a->ud_p == b->ud_p && a->pad == b->pad;
}

static int add(csearch_t *s, const chg_copy_params_t *p)
{
    for (int i = 0; i < s->n; i++)
        if (same(&s->c[i].p, p)) return i;
    if (!chg_copy_params_valid(&s->d->dev, p, NULL, 0)) return -1;
    const size_t threads = (size_t)(p->tile_i / p->wpt_i) * (p->tile_p / p->wpt_p);
    const int gpu = (s->d->dev.features & CHG_FEAT_GPU) != 0;
    if ((gpu && threads < 32) || (!gpu && threads > 256)) return -1;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 256;
        ccand_t *g = realloc(s->c, (size_t)cap * sizeof *g);
        if (!g) return -1;
        s->c = g;
        s->cap = cap;
    }
    memset(&s->c[s->n], 0, sizeof s->c[s->n]);
    s->c[s->n].p = *p;
    return s->n++;
}

static double cprior(const csearch_t *s, const chg_copy_params_t *p)
{
    const double threads = (double)(p->tile_i / p->wpt_i) * (p->tile_p / p->wpt_p);
    if (s->d->dev.features & CHG_FEAT_GPU)
        return fabs(log2(threads / 256)) + (p->tile_i < 32) + 0.25 * fabs(log2((double)p->wpt_i * p->wpt_p / 4));
    return fabs(log2(threads / 64)) + 0.25 * fabs(log2((double)p->wpt_i * p->wpt_p / 4));
}

static const csearch_t *g_cs;
static int cmp_cprior(const void *a, const void *b)
{
    double x = cprior(g_cs, &((const ccand_t *)a)->p), y = cprior(g_cs, &((const ccand_t *)b)->p);
    return (x > y) - (x < y);
}

static void stage1(csearch_t *s)
{
    static const int ti[] = {8, 16, 32, 64, 128, 256}, tp[] = {1, 2, 4, 8, 16, 32, 64};
    static const int w[] = {1, 2, 4, 8};
    chg_copy_params_t base;
    chg_tuning_copy_params(&s->d->dev, s->prec, CHG_COPY_PACK, s->contig, &base);
    chg_copy_params_t def;
    chg_copy_params_default(&s->d->dev, CHG_COPY_PACK, s->prec, &def);
    def.src_contig_i = s->contig;
    /* The defaults and the parameters in use first (seeds), then every blocking. */
    add(s, &def);
    add(s, &base);
    const int seeds = s->n;
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 7; b++)
            for (int c = 0; c < 4; c++)
                for (int e = 0; e < 4; e++) {
                    chg_copy_params_t p = def;
                    p.tile_i = ti[a];
                    p.tile_p = tp[b];
                    p.wpt_i = w[c];
                    p.wpt_p = w[e];
                    p.ud_i = p.ud_p = 0;
                    p.pad = s->contig ? 0 : 1;
                    add(s, &p);
                }
    g_cs = s;
    qsort(s->c + seeds, (size_t)(s->n - seeds), sizeof *s->c, cmp_cprior);
    s->nstage1 = s->n;
}

static void stage2(csearch_t *s)
{
    if (s->best < 0) return;
    const chg_copy_params_t b = s->c[s->best].p;
    static const int uds[] = {0, 1, 2, 4}, pads[] = {0, 1, 2};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < (s->contig ? 1 : 3); k++) {
                chg_copy_params_t p = b;
                p.ud_i = uds[i];
                p.ud_p = uds[j];
                p.pad = s->contig ? 0 : pads[k];
                const int lim_i = s->contig ? p.wpt_i : p.wpt_i * p.wpt_p;
                const int lim_p = s->contig ? p.wpt_p : p.wpt_i * p.wpt_p;
                if (p.ud_i >= lim_i && p.ud_i) continue; /* same as full unroll */
                if (p.ud_p >= lim_p && p.ud_p) continue;
                add(s, &p);
            }
    s->stage2_built = 1;
}

static cl_int set_pack_args(cl_kernel k, int rows, int cols, int ipad, int ppad, int blk,
                            cl_mem src, cl_ulong ld, cl_mem dst)
{
    const cl_ulong zero = 0;
    cl_int err = clSetKernelArg(k, 0, sizeof rows, &rows);
    err |= clSetKernelArg(k, 1, sizeof cols, &cols);
    err |= clSetKernelArg(k, 2, sizeof ipad, &ipad);
    err |= clSetKernelArg(k, 3, sizeof ppad, &ppad);
    err |= clSetKernelArg(k, 4, sizeof blk, &blk);
    err |= clSetKernelArg(k, 5, sizeof src, &src);
    err |= clSetKernelArg(k, 6, sizeof zero, &zero);
    err |= clSetKernelArg(k, 7, sizeof ld, &ld);
    err |= clSetKernelArg(k, 8, sizeof dst, &dst);
    err |= clSetKernelArg(k, 9, sizeof zero, &zero);
    const int pstride = ppad * blk; /* blocks of exactly the padded slice */
    err |= clSetKernelArg(k, 10, sizeof pstride, &pstride);
    return err ? CL_INVALID_KERNEL_ARGS : CL_SUCCESS;
}

static int round_up_i(int x, int m) { return (x + m - 1) / m * m; }

/* Checks candidate kernel k on the odd-sized problem; 0 when every element is right. */
static int check(csearch_t *s, const chg_copy_params_t *p, cl_kernel k, char *why, size_t len)
{
    const int ipad = round_up_i(CROWS, s->blk), ppad = round_up_i(CCOLS, s->pmult);
    const int dbl = s->prec == CHG_F64;
    cl_int err = set_pack_args(k, CROWS, CCOLS, ipad, ppad, s->blk, s->csrc, CLD, s->cdst);
    size_t g[2], l[2];
    chg_copy_work_size(p, (size_t)ipad, (size_t)ppad, g, l);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(s->d->q, k, 2, NULL, g, l, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(s->d->q, s->cdst, CL_TRUE, 0, (size_t)ipad * ppad * s->es, s->hout,
                                  0, NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(why, len, "launch failed (%s)", clhgemm_status_string(err));
        return -1;
    }
    for (int pp = 0; pp < ppad; pp++)
        for (int i = 0; i < ipad; i++) {
            const size_t di = (size_t)(i / s->blk) * ppad * s->blk + (size_t)pp * s->blk + i % s->blk;
            double want = 0;
            if (i < CROWS && pp < CCOLS) {
                const size_t si = s->contig ? (size_t)i + (size_t)pp * CLD : (size_t)pp + (size_t)i * CLD;
                want = dbl ? ((double *)s->hsrc)[si] : ((float *)s->hsrc)[si];
            }
            const double got = dbl ? ((double *)s->hout)[di] : ((float *)s->hout)[di];
            if (got != want) {
                snprintf(why, len, "wrong result at (%d, %d): %g, want %g", i, pp, got, want);
                return -1;
            }
        }
    return 0;
}

/* GB/s (bytes read + written) of candidate kernel k on the big problem. */
static double timing(csearch_t *s, const chg_copy_params_t *p, cl_kernel k, cl_int *err)
{
    const int n = (int)s->big;
    const int ipad = round_up_i(n, s->blk), ppad = round_up_i(n, s->pmult);
    *err = set_pack_args(k, n, n, ipad, ppad, s->blk, s->src, (cl_ulong)n, s->dst);
    if (*err != CL_SUCCESS) return 0;
    size_t g[2], l[2];
    chg_copy_work_size(p, (size_t)ipad, (size_t)ppad, g, l);
    double t = tune_time_kernel(s->d->q, k, 2, g, l, 5, err);
    if (t <= 0) return 0;
    return ((double)n * n + (double)ipad * ppad) * (double)s->es / t * 1e-9;
}

static void evaluate(csearch_t *s, const wp_result_t *res)
{
    ccand_t *c = &s->c[res->id];
    c->state = 2;
    c->gbs = 0;
    s->tried++;
    char why[512] = "";
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_int err = CL_SUCCESS;
    if (!res->ok) snprintf(why, sizeof why, "%s", res->reason);
    else if (tune_program_from_binary(s->d, res, "clhgemm_pack", &prog, &k, why, sizeof why) == CL_SUCCESS &&
             check(s, &c->p, k, why, sizeof why) == 0) {
        c->gbs = timing(s, &c->p, k, &err);
        if (c->gbs <= 0) snprintf(why, sizeof why, "timed launch failed (%s)", clhgemm_status_string(err));
    }
    if (k) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
    char pbuf[200];
    chg_copy_params_format(&c->p, pbuf, sizeof pbuf);
    const char *variant = s->contig ? "pack" : "pack_t";
    if (c->gbs <= 0) {
        s->failed++;
        tune_log(s->r, "%s %c %s %s: FAILED: %s", s->d->log_prefix, s->prec ? 'd' : 's', variant,
                 pbuf, why);
        return;
    }
    tune_log(s->r, "%s %c %s %s: %.1f GB/s", s->d->log_prefix, s->prec ? 'd' : 's', variant, pbuf,
             c->gbs);
    if (s->best < 0 || c->gbs > s->c[s->best].gbs) s->best = (int)res->id;
}

static int next(csearch_t *s)
{
    while (s->pos < s->n) {
        int i = s->pos++;
        if (s->c[i].state == 0) return i;
    }
    return -1;
}

/* One variant (contiguous or transposing) until deadline. */
static void search_variant(csearch_t *s, wp_pool_t *pool, double deadline)
{
    stage1(s);
    int inflight = 0;
    for (;;) {
        /* However short the budget, the defaults are measured. */
        const int must = s->best < 0 && s->tried < 2 && !s->r->stop;
        const int time_left = (tune_now() < deadline && !s->r->stop) || must;
        while (time_left && wp_idle(pool) > 0) {
            int i = next(s);
            if (i < 0 && !s->stage2_built && inflight == 0) {
                stage2(s);
                i = next(s);
            }
            if (i < 0) break;
            char req[512];
            wp_copy_request(&s->c[i].p, req, sizeof req);
            if (wp_submit(pool, i, req) != 0) break;
            s->c[i].state = 1;
            inflight++;
        }
        if (inflight == 0 || !time_left) break;
        wp_result_t res;
        if (wp_wait(pool, 0.5, &res) == 1) {
            inflight--;
            evaluate(s, &res);
            free(res.binary);
        }
        tune_progress(s->r, "%s %c %s: %d/%d tried, best %.1f GB/s", s->d->log_prefix,
                      s->prec ? 'd' : 's', s->contig ? "pack" : "pack_t", s->tried, s->n,
                      s->best >= 0 ? s->c[s->best].gbs : 0.0);
    }
    /* Builds still in flight: their results are not wanted (the workers stay for the next
     * variant, which must find them idle). */
    const double give_up = tune_now() + 60;
    while (wp_busy(pool) > 0 && tune_now() < give_up) {
        wp_result_t res;
        if (wp_wait(pool, 1.0, &res) == 1) free(res.binary);
    }
    tune_progress_clear(s->r);
}

static double copy_buffer_gbs(const tdev_t *d, cl_mem a, cl_mem b, size_t bytes)
{
    double best = 0;
    for (int r = 0; r < 6; r++) {
        if (clFinish(d->q) != CL_SUCCESS) return 0;
        const double t0 = tune_now();
        if (clEnqueueCopyBuffer(d->q, a, b, 0, 0, bytes, 0, NULL, NULL) != CL_SUCCESS ||
            clFinish(d->q) != CL_SUCCESS)
            return 0;
        const double t = tune_now() - t0;
        if (r > 0 && t > 0 && 2.0 * bytes / t > best) best = 2.0 * bytes / t;
    }
    return best * 1e-9;
}

int tune_copy(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline)
{
    const int gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    const size_t es = chg_elem_size(prec);
    size_t big = gpu ? 8192 : 1024;
    while (big > 512 && 2.2 * big * big * es > (double)d->dev.info.global_mem_bytes / 4) big /= 2;
    /* The layout the GEMM kernel wants: MWG-blocks, KWG-multiples along k. */
    chg_gemm_params_t gp = d->rec.prec[prec].present ? d->rec.prec[prec].gemm : (chg_gemm_params_t){0};
    if (!d->rec.prec[prec].present) chg_gemm_params_select(&d->dev, prec, &gp);
    csearch_t s[2];
    memset(s, 0, sizeof s);
    cl_int err = CL_SUCCESS;
    const size_t cbytes = (size_t)CLD * CLD * es;
    const size_t big_bytes = big * big * es;
    const size_t dst_bytes = chg_round_up(big, 256) * chg_round_up(big, 64) * es;
    const size_t cdst_bytes = chg_round_up(CLD, 256) * chg_round_up(CLD, 64) * es;
    void *hsrc = malloc(cbytes), *hout = malloc(cdst_bytes > cbytes ? cdst_bytes : cbytes);
    cl_mem src = NULL, dst = NULL, csrc = NULL, cdst = NULL;
    int rc = -1;
    wp_pool_t pool;
    memset(&pool, 0, sizeof pool);
    if (!hsrc || !hout) goto done;
    tune_fill(hsrc, prec == CHG_F64, (size_t)CLD * CLD, r->o.seed ^ 0xC0B1ULL);
    src = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, big_bytes, NULL, &err);
    if (err == CL_SUCCESS) dst = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, dst_bytes, NULL, &err);
    if (err == CL_SUCCESS) csrc = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, cbytes, hsrc, &err);
    if (err == CL_SUCCESS) cdst = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, cdst_bytes, NULL, &err);
    if (err == CL_SUCCESS) {
        /* random contents for the timing problem too */
        void *h = malloc(big_bytes);
        if (h) {
            tune_fill(h, prec == CHG_F64, big * big, r->o.seed ^ 0xB16ULL);
            err = clEnqueueWriteBuffer(d->q, src, CL_TRUE, 0, big_bytes, h, 0, NULL, NULL);
            free(h);
        }
    }
    if (err != CL_SUCCESS) {
        tune_say(r, "%s copy buffers failed: %s", d->log_prefix, clhgemm_status_string(err));
        goto done;
    }
    char errlog[4200] = "";
    if (r->o.out_dir) snprintf(errlog, sizeof errlog, "%s/workers.log", r->o.out_dir);
    int jobs = r->o.jobs > 0 ? r->o.jobs : (gpu ? 4 : 1);
    if (wp_start(&pool, r->self_exe, d->index, jobs, errlog) == 0) {
        tune_say(r, "%s cannot start build workers", d->log_prefix);
        goto done;
    }
    const double cb = copy_buffer_gbs(d, src, dst, big_bytes);
    const double t0 = tune_now();
    for (int v = 0; v < 2; v++) {
        s[v].r = r;
        s[v].d = d;
        s[v].prec = prec;
        s[v].es = es;
        s[v].contig = v == 0;
        s[v].best = -1;
        s[v].blk = gp.mwg > 0 ? (v == 0 ? gp.mwg : gp.nwg) : 64;
        s[v].pmult = gp.kwg > 0 ? gp.kwg : 16;
        s[v].big = big;
        s[v].src = src;
        s[v].dst = dst;
        s[v].csrc = csrc;
        s[v].cdst = cdst;
        s[v].hsrc = hsrc;
        s[v].hout = hout;
        const double share = v == 0 ? (deadline - t0) / 2 : deadline - tune_now();
        search_variant(&s[v], &pool, tune_now() + share);
    }
    chg_tuning_prec_t *out = &d->rec.prec[prec];
    if (s[0].best >= 0 && s[1].best >= 0) {
        out->has_copy = 1;
        out->pack = s[0].c[s[0].best].p;
        out->pack_t = s[1].c[s[1].best].p;
        out->pack_gbs = s[0].c[s[0].best].gbs;
        out->pack_t_gbs = s[1].c[s[1].best].gbs;
        out->copy_buffer_gbs = cb;
        char a[200], b[200];
        chg_copy_params_format(&out->pack, a, sizeof a);
        chg_copy_params_format(&out->pack_t, b, sizeof b);
        /* the defaults are candidate 0 of each variant */
        d->copy_default_gbs[prec][0] = s[0].c[0].gbs;
        d->copy_default_gbs[prec][1] = s[1].c[0].gbs;
        tune_say(r, "%s %c copy kernels (n = %zu): pack %.1f GB/s (defaults %.1f) %s; pack_t %.1f "
                    "GB/s (defaults %.1f) %s; clEnqueueCopyBuffer %.1f GB/s; %d + %d tried",
                 d->log_prefix, prec ? 'd' : 's', big, out->pack_gbs, s[0].c[0].gbs, a,
                 out->pack_t_gbs, s[1].c[0].gbs, b, cb, s[0].tried, s[1].tried);
        rc = 0;
    } else {
        tune_say(r, "%s %c copy kernels: no candidate could be timed", d->log_prefix, prec ? 'd' : 's');
    }
done:
    wp_stop(&pool);
    clFinish(d->q);
    cl_mem bufs[] = {src, dst, csrc, cdst};
    for (int i = 0; i < 4; i++)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    free(hsrc);
    free(hout);
    free(s[0].c);
    free(s[1].c);
    return rc;
}
