/*
 * dbfile_parse.c -- the tuning database's schema on reading: a file's JSON parsed with cJSON and
 * validated key by key into records (the format and library version first, then every entry:
 * device, precisions with their GEMM, copy, rate, route, class, TRSM and factorization figures,
 * pipeline, split model), and a file read from disk. See dbfile.h for the contract and
 * docs/TUNING.md for the schema; the rules of a single value are dbfile_value.c's.
 *
 * Why whole-file rejection: a file that breaks the schema anywhere was written by something we
 * do not understand (another version, a hand edit gone wrong, a truncated write), so none of it
 * is trusted. Device fitness, on the other hand, is decided per entry at lookup (resolve.c),
 * because one file legitimately holds entries for many devices.
 */
#include "tuning/dbfile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clhgemm_version.h"
#include "tuning/dbfile_int.h"

#define MAX_FILE_BYTES (16u << 20) /* a database is a few KiB; anything huge is not one */

static int is_vw(int v) { return v == 1 || v == 2 || v == 4 || v == 8; }

static void parse_gemm(const cJSON *o, const char *path, chg_gemm_params_t *g, chg_db_err_t *e)
{
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < chg_db_ngemm_fields; i++) {
        const chg_db_field_t *f = &chg_db_gemm_fields[i];
        chg_db_get_int(o, f->name, path, 1, 4096, &CHG_DB_FIELD(g, f->off), e);
    }
    /* the FP64 tensor-core kernel (optional; absent means the FMA kernel) */
    chg_db_get_int(o, "MMA", path, 0, 4, &g->mma, e);
    chg_db_get_int(o, "WM", path, 0, 64, &g->wm, e);
    /* work-group rasterisation (optional; absent means none). TF32 is never read from a
     * database: it changes the results' precision, so only CLHGEMM_SGEMM_MATH turns it on. */
    chg_db_get_int(o, "SWZ", path, 0, 64, &g->swz, e);
    /* the direct kernel (optional; absent means the packed kernel; a class's only) */
    chg_db_get_int(o, "DK", path, 0, 1, &g->dk, e);
    /* slices in flight in the staged tensor-core kernel (optional; absent means one) */
    chg_db_get_int(o, "PF", path, 0, 2, &g->pf, e);
    if (e->failed) return;
    if (g->mma && g->wm < 1) chg_db_fail(e, "%s: MMA needs WM >= 1", path);
    if (g->mwg < 1 || g->nwg < 1 || g->kwg < 1 || g->mdimc < 1 || g->ndimc < 1 || g->kwi < 1)
        chg_db_fail(e, "%s: sizes must be positive", path);
    else if (!is_vw(g->vwm) || !is_vw(g->vwn))
        chg_db_fail(e, "%s: VWM and VWN must be 1, 2, 4 or 8", path);
    else if (g->sa > 1 || g->sb > 1)
        chg_db_fail(e, "%s: SA and SB must be 0 or 1", path);
}

static void parse_copy(const cJSON *o, const char *path, chg_copy_params_t *c, double *gbs,
                       chg_db_err_t *e)
{
    for (size_t i = 0; i < chg_db_ncopy_fields; i++) {
        const chg_db_field_t *f = &chg_db_copy_fields[i];
        chg_db_get_int(o, f->name, path, 1, 4096, &CHG_DB_FIELD(c, f->off), e);
    }
    chg_db_get_num(o, "gbs", path, 0, gbs, e);
    if (!e->failed && (c->tile_i < 1 || c->tile_p < 1 || c->wpt_i < 1 || c->wpt_p < 1))
        chg_db_fail(e, "%s: sizes must be positive", path);
}

/* precisions.X.route: latency_us > 0 (required); cpu_threads and cpu_gflops (4 rates > 0, at
 * n = 64, 256, 1024, 2048) together or not at all. */
static void parse_route(const cJSON *o, const char *path, chg_tuning_route_t *r, chg_db_err_t *e)
{
    char sub[256];
    memset(r, 0, sizeof *r);
    r->present = 1;
    chg_db_get_real(o, "latency_us", path, 1, &r->latency_us, e);
    if (!e->failed && !(r->latency_us > 0)) chg_db_fail(e, "%s.latency_us: must be > 0", path);
    chg_db_get_int(o, "cpu_threads", path, 0, 4096, &r->cpu_threads, e);
    const cJSON *a = chg_db_get_arr(o, "cpu_gflops", path, 0, e);
    if (e->failed) return;
    if (!a != !chg_db_member(o, "cpu_threads")) {
        chg_db_fail(e, "%s: cpu_threads and cpu_gflops go together", path);
        return;
    }
    if (!a) return;
    if (r->cpu_threads < 1) {
        chg_db_fail(e, "%s.cpu_threads: must be >= 1", path);
        return;
    }
    snprintf(sub, sizeof sub, "%s.cpu_gflops", path);
    if (cJSON_GetArraySize(a) != CHG_TUNING_ROUTE_SIZES) {
        chg_db_fail(e, "%s: expected %d numbers (n = 64, 256, 1024, 2048), got %d", sub,
             CHG_TUNING_ROUTE_SIZES, cJSON_GetArraySize(a));
        return;
    }
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || !(v->valuedouble > 0)) {
            chg_db_fail(e, "%s[%d]: expected a number > 0", sub, i);
            return;
        }
        r->cpu_gflops[i++] = v->valuedouble;
    }
}

/* precisions.X.classes: {"<class>": {GEMM keys..., "split_k", "m", "n", "k", "gflops",
 * "wgs_per_cu"}}, rank_k's "k_max" and large's "k_min"; a name that is no class, or a
 * configuration that breaks the GEMM keys' rules, rejects the file (so does a split_k above
 * CHG_TUNING_MAX_SPLIT_K, a wgs_per_cu outside [1, CHG_TUNING_MAX_WGS_PER_CU], a k_max outside
 * [CHG_SHAPE_RANK_K_MAX, CHG_SHAPE_RANK_K_MAX_LIMIT], a k_min outside
 * [CHG_SHAPE_LARGE_K_MIN_LOW, CHG_SHAPE_LARGE_K_MIN_LIMIT], either on another class). */
/* A class's reach (rank_k's "k_max", large's "k_min") into *out when present: refused on
 * another class than owner ("only the <owner> class <what>"), or outside [lo, hi]. */
static void parse_reach(const cJSON *it, const char *sub, int cls, int owner, const char *key,
                        const char *what, int lo, const char *lo_name, int hi, int *out,
                        chg_db_err_t *e)
{
    if (e->failed || !chg_db_member(it, key)) return;
    if (cls != owner) {
        chg_db_fail(e, "%s.%s: only the %s class %s", sub, key, chg_shape_class_name(owner), what);
        return;
    }
    chg_db_get_int(it, key, sub, 1, hi, out, e);
    if (!e->failed && *out < lo)
        chg_db_fail(e, "%s.%s: %d is below %s%d", sub, key, *out, lo_name, lo);
}

static void parse_classes(const cJSON *o, const char *path, chg_tuning_prec_t *p, chg_db_err_t *e)
{
    char sub[256];
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        const int cls = chg_shape_class_parse(it->string);
        if (cls < 0) {
            chg_db_fail(e, "%s.%s: not a shape class (%s)", path, it->string ? it->string : "",
                        chg_shape_class_names());
            return;
        }
        snprintf(sub, sizeof sub, "%s.%s", path, it->string);
        if (!cJSON_IsObject(it)) {
            chg_db_fail(e, "%s: expected an object", sub);
            return;
        }
        chg_tuning_class_t *c = &p->classes[cls];
        memset(c, 0, sizeof *c);
        parse_gemm(it, sub, &c->gemm, e);
        c->split_k = 1;
        chg_db_get_int(it, "split_k", sub, 0, CHG_TUNING_MAX_SPLIT_K, &c->split_k, e);
        chg_db_get_int(it, "m", sub, 0, 1 << 30, &c->m, e);
        chg_db_get_int(it, "n", sub, 0, 1 << 30, &c->n, e);
        chg_db_get_int(it, "k", sub, 0, 1 << 30, &c->k, e);
        chg_db_get_num(it, "gflops", sub, 0, &c->gflops, e);
        if (chg_db_member(it, "wgs_per_cu")) {
            chg_db_get_int(it, "wgs_per_cu", sub, 1, INT_MAX, &c->wgs_per_cu, e);
            if (!e->failed && (c->wgs_per_cu < 1 || c->wgs_per_cu > CHG_TUNING_MAX_WGS_PER_CU)) {
                chg_db_fail(e, "%s.wgs_per_cu: expected an integer from 1 to %d", sub,
                            CHG_TUNING_MAX_WGS_PER_CU);
                return;
            }
        }
        parse_reach(it, sub, cls, CHG_SHAPE_RANK_K, "k_max", "has a reach along k",
                    CHG_SHAPE_RANK_K_MAX, "the classifier's own ", CHG_SHAPE_RANK_K_MAX_LIMIT,
                    &c->k_max, e);
        parse_reach(it, sub, cls, CHG_SHAPE_LARGE, "k_min", "reaches down along k",
                    CHG_SHAPE_LARGE_K_MIN_LOW, "", CHG_SHAPE_LARGE_K_MIN_LIMIT, &c->k_min, e);
        if (e->failed) return;
        c->present = 1;
    }
}

/* precisions.X: "trsm_nb" (a multiple of 16 in [16, 4096]), with "trsm_size" and
 * "trsm_gflops" (the timing it was chosen on; optional). */
static void parse_trsm(const cJSON *o, const char *path, chg_tuning_prec_t *p, chg_db_err_t *e)
{
    if (!chg_db_member(o, "trsm_nb")) return;
    chg_db_get_int(o, "trsm_nb", path, 1, INT_MAX, &p->trsm_nb, e);
    chg_db_get_int(o, "trsm_size", path, 0, 1 << 30, &p->trsm_size, e);
    chg_db_get_num(o, "trsm_gflops", path, 0, &p->trsm_gflops, e);
    if (e->failed) return;
    if (p->trsm_nb < CHG_TUNING_TRSM_NB_STEP || p->trsm_nb > CHG_TUNING_TRSM_NB_MAX ||
        p->trsm_nb % CHG_TUNING_TRSM_NB_STEP)
        chg_db_fail(e, "%s.trsm_nb: %d is not a multiple of %d from %d to %d", path, p->trsm_nb,
             CHG_TUNING_TRSM_NB_STEP, CHG_TUNING_TRSM_NB_STEP, CHG_TUNING_TRSM_NB_MAX);
}

/* precisions.X: per factorization "<name>_nb" (a multiple of 16 in [16, 4096]) with
 * "<name>_gflops", and "factor_size" when any of them is there (the timing; both optional),
 * each width checked as trsm_nb is. */
static void parse_factor(const cJSON *o, const char *path, chg_tuning_prec_t *p, chg_db_err_t *e)
{
    static const char *const names[CHG_TUNING_FACTOR_KINDS] = CHG_TUNING_FACTOR_NAMES;
    int any = 0;
    for (int k = 0; k < CHG_TUNING_FACTOR_KINDS && !e->failed; k++) {
        char nb_key[32], rate_key[32];
        snprintf(nb_key, sizeof nb_key, "%s_nb", names[k]);
        snprintf(rate_key, sizeof rate_key, "%s_gflops", names[k]);
        if (!chg_db_member(o, nb_key)) continue;
        any = 1;
        int *nb = &p->factor_nb[k];
        chg_db_get_int(o, nb_key, path, 1, INT_MAX, nb, e);
        chg_db_get_num(o, rate_key, path, 0, &p->factor_gflops[k], e);
        if (!e->failed && (*nb < CHG_TUNING_FACTOR_NB_STEP || *nb > CHG_TUNING_FACTOR_NB_MAX ||
                           *nb % CHG_TUNING_FACTOR_NB_STEP))
            chg_db_fail(e, "%s.%s: %d is not a multiple of %d from %d to %d", path, nb_key, *nb,
                        CHG_TUNING_FACTOR_NB_STEP, CHG_TUNING_FACTOR_NB_STEP,
                        CHG_TUNING_FACTOR_NB_MAX);
    }
    if (any) chg_db_get_int(o, "factor_size", path, 0, 1 << 30, &p->factor_size, e);
}

static void parse_prec(const cJSON *o, const char *path, chg_precision_t prec,
                       chg_tuning_prec_t *p, chg_db_err_t *e)
{
    char sub[256];
    memset(p, 0, sizeof *p);
    p->present = 1;
    snprintf(sub, sizeof sub, "%s.gemm", path);
    const cJSON *g = chg_db_get_obj(o, "gemm", path, 1, e);
    if (g) parse_gemm(g, sub, &p->gemm, e);
    chg_db_get_int(o, "size", path, 0, 1 << 30, &p->size, e);
    chg_db_get_num(o, "gflops", path, 0, &p->gflops, e);
    chg_db_get_num(o, "kernel_gflops", path, 0, &p->kernel_gflops, e);
    chg_db_get_num(o, "default_gflops", path, 0, &p->default_gflops, e);
    snprintf(sub, sizeof sub, "%s.search", path);
    const cJSON *s = chg_db_get_obj(o, "search", path, 0, e);
    if (s) {
        chg_db_get_int(s, "candidates", sub, 0, INT_MAX, &p->candidates, e);
        chg_db_get_int(s, "failed", sub, 0, INT_MAX, &p->failed, e);
        chg_db_get_num(s, "seconds", sub, 0, &p->search_seconds, e);
        chg_db_get_num(s, "best_at_seconds", sub, 0, &p->best_at_seconds, e);
    }
    const cJSON *c = chg_db_get_obj(o, "copy", path, 0, e);
    if (c) {
        char cp[256];
        snprintf(sub, sizeof sub, "%s.copy", path);
        p->has_copy = 1;
        chg_copy_params_t *dst[2] = {&p->pack, &p->pack_t};
        double *gbs[2] = {&p->pack_gbs, &p->pack_t_gbs};
        static const char *const names[2] = {"pack", "pack_t"};
        for (int i = 0; i < 2; i++) {
            memset(dst[i], 0, sizeof *dst[i]);
            dst[i]->kind = CHG_COPY_PACK;
            dst[i]->prec = prec;
            dst[i]->src_contig_i = i == 0;
            snprintf(cp, sizeof cp, "%s.%s", sub, names[i]);
            const cJSON *k = chg_db_get_obj(c, names[i], sub, 1, e);
            if (k) parse_copy(k, cp, dst[i], gbs[i], e);
        }
        chg_db_get_num(c, "copy_buffer_gbs", sub, 0, &p->copy_buffer_gbs, e);
    }
    const cJSON *r = chg_db_get_arr(o, "kernel_rate", path, 0, e);
    if (r) {
        const cJSON *row;
        cJSON_ArrayForEach(row, r)
        {
            snprintf(sub, sizeof sub, "%s.kernel_rate[%d]", path, p->nrates);
            if (p->nrates >= CHG_TUNING_MAX_RATES) {
                chg_db_fail(e, "%s: more than %d rows", sub, CHG_TUNING_MAX_RATES);
                break;
            }
            if (!cJSON_IsObject(row)) {
                chg_db_fail(e, "%s: expected an object", sub);
                break;
            }
            chg_tuning_rate_t *t = &p->rates[p->nrates++];
            chg_db_get_int(row, "m", sub, 1, 1 << 30, &t->m, e);
            chg_db_get_int(row, "n", sub, 1, 1 << 30, &t->n, e);
            chg_db_get_int(row, "k", sub, 1, 1 << 30, &t->k, e);
            chg_db_get_num(row, "gflops", sub, 1, &t->gflops, e);
        }
    }
    snprintf(sub, sizeof sub, "%s.route", path);
    const cJSON *rt = chg_db_get_obj(o, "route", path, 0, e);
    if (rt) parse_route(rt, sub, &p->route, e);
    snprintf(sub, sizeof sub, "%s.classes", path);
    const cJSON *cl = chg_db_get_obj(o, "classes", path, 0, e);
    if (cl && !e->failed) parse_classes(cl, sub, p, e);
    if (!e->failed) parse_trsm(o, path, p, e);
    if (!e->failed) parse_factor(o, path, p, e);
}

static void parse_points(const cJSON *arr, const char *path, const char *xkey, const char *vkey,
                         chg_tuning_point_t *pts, int *n, chg_db_err_t *e)
{
    const cJSON *row;
    char sub[256];
    *n = 0;
    cJSON_ArrayForEach(row, arr)
    {
        snprintf(sub, sizeof sub, "%s[%d]", path, *n);
        if (*n >= CHG_TUNING_MAX_POINTS) {
            chg_db_fail(e, "%s: more than %d rows", sub, CHG_TUNING_MAX_POINTS);
            return;
        }
        if (!cJSON_IsObject(row)) {
            chg_db_fail(e, "%s: expected an object", sub);
            return;
        }
        chg_db_get_int(row, xkey, sub, 1, 1 << 20, &pts[*n].x, e);
        chg_db_get_num(row, vkey, sub, 1, &pts[*n].value, e);
        (*n)++;
    }
}

static void parse_pipeline(const cJSON *o, const char *path, chg_tuning_pipeline_t *p,
                           chg_db_err_t *e)
{
    char sub[256];
    memset(p, 0, sizeof *p);
    p->present = 1;
    chg_db_get_num(o, "h2d_pageable_gbs", path, 0, &p->h2d_pageable_gbs, e);
    chg_db_get_num(o, "d2h_pageable_gbs", path, 0, &p->d2h_pageable_gbs, e);
    chg_db_get_num(o, "h2d_pinned_gbs", path, 0, &p->h2d_pinned_gbs, e);
    chg_db_get_num(o, "d2h_pinned_gbs", path, 0, &p->d2h_pinned_gbs, e);
    const cJSON *t = chg_db_get_obj(o, "pack_threads", path, 0, e);
    if (t) {
        snprintf(sub, sizeof sub, "%s.pack_threads", path);
        chg_db_get_int(t, "best", sub, 1, 1 << 20, &p->pack_threads, e);
        const cJSON *a = chg_db_get_arr(t, "gbs", sub, 0, e);
        snprintf(sub, sizeof sub, "%s.pack_threads.gbs", path);
        if (a) parse_points(a, sub, "threads", "gbs", p->pack_gbs, &p->npack, e);
    }
    const cJSON *q = chg_db_get_obj(o, "queues", path, 0, e);
    if (q) {
        snprintf(sub, sizeof sub, "%s.queues", path);
        chg_db_get_int(q, "best", sub, 1, 64, &p->queues, e);
        const cJSON *a = chg_db_get_arr(q, "seconds", sub, 0, e);
        snprintf(sub, sizeof sub, "%s.queues.seconds", path);
        if (a) parse_points(a, sub, "queues", "seconds", p->queue_seconds, &p->nqueue, e);
    }
}

static void parse_tmodel(const cJSON *o, const char *key, const char *path, chg_tmodel_t *t,
                         chg_db_err_t *e)
{
    char sub[256];
    const cJSON *x = chg_db_get_obj(o, key, path, 1, e);
    if (!x) return;
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    chg_db_get_real(x, "k1", sub, 1, &t->k1, e);
    chg_db_get_real(x, "k2", sub, 1, &t->k2, e);
    chg_db_get_real(x, "k3", sub, 1, &t->k3, e);
    if (!e->failed && !(t->k1 > 0)) chg_db_fail(e, "%s.k1: must be > 0 (seconds per m*n*k)", sub);
}

static void parse_link(const cJSON *o, const char *key, const char *path, double *ts, double *tw,
                       chg_db_err_t *e)
{
    char sub[256];
    const cJSON *x = chg_db_get_obj(o, key, path, 1, e);
    if (!x) return;
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    chg_db_get_num(x, "ts", sub, 1, ts, e);
    chg_db_get_num(x, "tw", sub, 1, tw, e);
}

/* model.cpu_share.{s,d}: required coefficients, optional statistics (schema in TUNING.md). */
static void parse_cpumodel(const cJSON *o, const char *path, chg_tuning_cpumodel_t *c,
                           chg_db_err_t *e)
{
    char sub[256];
    memset(c, 0, sizeof *c);
    if (!cJSON_IsObject(o)) {
        chg_db_fail(e, "%s: expected an object", path);
        return;
    }
    c->present = 1;
    parse_tmodel(o, "gpu", path, &c->split.gpu, e);
    parse_tmodel(o, "cpu", path, &c->split.cpu, e);
    const cJSON *cpu = chg_db_member(o, "cpu");
    if (cpu && cJSON_IsObject(cpu)) {
        snprintf(sub, sizeof sub, "%s.cpu", path);
        chg_db_get_int(cpu, "threads", sub, 1, 4096, &c->cpu_threads, e);
        if (!e->failed && c->cpu_threads < 1) chg_db_fail(e, "%s.threads: must be >= 1", sub);
        chg_db_get_str(cpu, "core", sub, 0, c->cpu_core, sizeof c->cpu_core, e);
    }
    parse_link(o, "h2d", path, &c->split.h2d_ts, &c->split.h2d_tw, e);
    parse_link(o, "d2h", path, &c->split.d2h_ts, &c->split.d2h_tw, e);
    chg_db_get_num(o, "gamma", path, 1, &c->split.gamma, e);
    c->gpu_err = c->cpu_err = c->hybrid_err = -1;
    const cJSON *er = chg_db_get_obj(o, "error", path, 0, e);
    if (er) {
        snprintf(sub, sizeof sub, "%s.error", path);
        chg_db_get_num(er, "mean_rel", sub, 1, &c->mean_rel_err, e);
        chg_db_get_num(er, "gpu", sub, 0, &c->gpu_err, e);
        chg_db_get_num(er, "cpu", sub, 0, &c->cpu_err, e);
        chg_db_get_num(er, "hybrid", sub, 0, &c->hybrid_err, e);
        chg_db_get_int(er, "samples", sub, 0, 1 << 20, &c->samples, e);
    }
    const cJSON *ck = chg_db_get_obj(o, "check", path, 0, e);
    if (ck) {
        snprintf(sub, sizeof sub, "%s.check", path);
        chg_db_get_int(ck, "n", sub, 1, 1 << 30, &c->check_n, e);
        chg_db_get_num(ck, "model_share", sub, 1, &c->model_share, e);
        chg_db_get_num(ck, "model_predicted_s", sub, 0, &c->model_pred_s, e);
        chg_db_get_num(ck, "model_s", sub, 0, &c->model_s, e);
        chg_db_get_num(ck, "search_share", sub, 1, &c->search_share, e);
        chg_db_get_num(ck, "search_s", sub, 0, &c->search_s, e);
        chg_db_get_int(ck, "evaluations", sub, 0, 1 << 20, &c->search_evals, e);
        if (!e->failed && (c->model_share > 1 || c->search_share > 1))
            chg_db_fail(e, "%s: shares must be in [0, 1]", sub);
    }
}

/* A precision's key in "precisions" and "model.cpu_share": CHG_F32 ("s"), CHG_F64 ("d"), or -1. */
static int prec_of_key(const char *key)
{
    return key && !strcmp(key, "s") ? CHG_F32 : key && !strcmp(key, "d") ? CHG_F64 : -1;
}

static void parse_model(const cJSON *m, const char *path, chg_tuning_record_t *r, chg_db_err_t *e)
{
    char sub[256];
    const cJSON *cs = chg_db_get_obj(m, "cpu_share", path, 0, e);
    if (!cs) return;
    const cJSON *it;
    cJSON_ArrayForEach(it, cs)
    {
        snprintf(sub, sizeof sub, "%s.cpu_share.%s", path, it->string ? it->string : "?");
        const int prec = prec_of_key(it->string);
        if (prec < 0) {
            chg_db_fail(e, "%s: unknown precision (expected \"s\" or \"d\")", sub);
            return;
        }
        parse_cpumodel(it, sub, &r->cpumodel[prec], e);
    }
}

static void parse_record(const cJSON *o, const char *path, chg_tuning_record_t *r, chg_db_err_t *e)
{
    char sub[256];
    memset(r, 0, sizeof *r);
    if (!cJSON_IsObject(o)) {
        chg_db_fail(e, "%s: expected an object", path);
        return;
    }
    snprintf(sub, sizeof sub, "%s.device", path);
    const cJSON *d = chg_db_get_obj(o, "device", path, 1, e);
    if (d) {
        chg_db_get_str(d, "name", sub, 1, r->name, sizeof r->name, e);
        chg_db_get_str(d, "driver", sub, 1, r->driver, sizeof r->driver, e);
        chg_db_get_str(d, "vendor", sub, 0, r->vendor, sizeof r->vendor, e);
        chg_db_get_str(d, "platform", sub, 0, r->platform, sizeof r->platform, e);
        chg_db_get_str(d, "arch", sub, 1, r->arch, sizeof r->arch, e);
        chg_db_get_str(d, "vendor_key", sub, 1, r->vendor_key, sizeof r->vendor_key, e);
        unsigned long long v = 0;
        chg_db_get_uint(d, "compute_units", sub, 0, 1e9, &v, e);
        r->compute_units = (unsigned)v;
        chg_db_get_uint(d, "local_mem", sub, 0, 9e15, &r->local_mem, e);
        chg_db_get_uint(d, "global_mem", sub, 0, 9e15, &r->global_mem, e);
        chg_db_get_uint(d, "max_work_group", sub, 0, 1e9, &r->max_work_group, e);
        if (!e->failed && !r->name[0]) chg_db_fail(e, "%s.name: empty", sub);
    }
    const cJSON *t = chg_db_get_obj(o, "tuned", path, 0, e);
    if (t) {
        snprintf(sub, sizeof sub, "%s.tuned", path);
        chg_db_get_str(t, "date", sub, 0, r->date, sizeof r->date, e);
        chg_db_get_str(t, "tool", sub, 0, r->tool, sizeof r->tool, e);
        chg_db_get_num(t, "seconds", sub, 0, &r->seconds, e);
    }
    const cJSON *p = chg_db_get_obj(o, "precisions", path, 1, e);
    if (p) {
        const cJSON *it;
        cJSON_ArrayForEach(it, p)
        {
            snprintf(sub, sizeof sub, "%s.precisions.%s", path, it->string ? it->string : "?");
            const int prec = prec_of_key(it->string);
            if (prec < 0) {
                chg_db_fail(e, "%s: unknown precision (expected \"s\" or \"d\")", sub);
                break;
            }
            if (!cJSON_IsObject(it)) {
                chg_db_fail(e, "%s: expected an object", sub);
                break;
            }
            parse_prec(it, sub, (chg_precision_t)prec, &r->prec[prec], e);
        }
    }
    const cJSON *pl = chg_db_get_obj(o, "pipeline", path, 0, e);
    if (pl) {
        snprintf(sub, sizeof sub, "%s.pipeline", path);
        parse_pipeline(pl, sub, &r->pipeline, e);
    }
    const cJSON *m = chg_db_get_obj(o, "model", path, 0, e);
    if (m) {
        snprintf(sub, sizeof sub, "%s.model", path);
        parse_model(m, sub, r, e);
    }
    if (m && !e->failed) r->model = cJSON_PrintUnformatted(m);
}

/* "MAJOR.MINOR.PATCH" -> 0 with the numbers, -1 when malformed. */
static int parse_version(const char *v, int *major, int *minor)
{
    int patch;
    char tail;
    return sscanf(v, "%d.%d.%d%c", major, minor, &patch, &tail) == 3 ? 0 : -1;
}

int chg_tuning_file_parse(const char *text, chg_tuning_file_t *f, char *why, size_t why_len)
{
    chg_db_err_t e = {why, why_len, 0};
    chg_tuning_file_init(f);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        int line = 1;
        for (size_t i = 0; i < off && text[i]; i++) line += text[i] == '\n';
        chg_db_fail(&e, "not valid JSON (syntax error near line %d, byte %zu)", line, off);
        return -1;
    }
    char format[64] = "";
    if (!cJSON_IsObject(root)) chg_db_fail(&e, "top level: expected an object");
    chg_db_get_str(root, "format", "top level", 1, format, sizeof format, &e);
    if (!e.failed && strcmp(format, CHG_TUNING_FORMAT))
        chg_db_fail(&e, "format \"%s\", expected \"%s\"", format, CHG_TUNING_FORMAT);
    int fv = -1;
    chg_db_get_int(root, "format_version", "top level", 1, 1 << 20, &fv, &e);
    if (!e.failed && fv != CHG_TUNING_FORMAT_VERSION)
        chg_db_fail(&e, "format_version %d, this library reads version %d", fv,
                    CHG_TUNING_FORMAT_VERSION);
    chg_db_get_str(root, "library_version", "top level", 1, f->library_version,
                   sizeof f->library_version, &e);
    int major, minor;
    if (!e.failed && parse_version(f->library_version, &major, &minor))
        chg_db_fail(&e, "library_version \"%s\" is not MAJOR.MINOR.PATCH", f->library_version);
    else if (!e.failed && (major != CLHGEMM_VERSION_MAJOR || minor != CLHGEMM_VERSION_MINOR))
        chg_db_fail(&e, "written by clhgemm %s, this is %s (kernel parameters are only kept across "
                 "patch releases; run clhgemm-tune again)",
             f->library_version, CLHGEMM_VERSION_STRING);
    chg_db_get_str(root, "created", "top level", 0, f->created, sizeof f->created, &e);
    const cJSON *entries = chg_db_get_arr(root, "entries", "top level", 1, &e);
    if (entries && !e.failed) {
        int n = cJSON_GetArraySize(entries);
        f->records = calloc(n > 0 ? (size_t)n : 1, sizeof *f->records);
        if (!f->records) chg_db_fail(&e, "out of memory");
        else f->cap = n;
        const cJSON *it;
        cJSON_ArrayForEach(it, entries)
        {
            if (e.failed) break;
            char path[32];
            snprintf(path, sizeof path, "entries[%d]", f->count);
            parse_record(it, path, &f->records[f->count], &e);
            f->count++;
            for (int j = 0; j + 1 < f->count && !e.failed; j++)
                if (!strcmp(f->records[j].name, f->records[f->count - 1].name) &&
                    !strcmp(f->records[j].driver, f->records[f->count - 1].driver))
                    chg_db_fail(&e, "%s: a second entry for the device \"%s\", driver \"%s\"", path,
                         f->records[j].name, f->records[j].driver);
        }
    }
    cJSON_Delete(root);
    if (e.failed) {
        chg_tuning_file_free(f);
        return -1;
    }
    return 0;
}

int chg_tuning_file_read(const char *path, chg_tuning_file_t *f, char *why, size_t why_len)
{
    chg_tuning_file_init(f);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(why, why_len, "cannot open: %s", strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    if (fseek(fp, 0, SEEK_END) == 0) {
        long size = ftell(fp);
        if (size < 0 || (unsigned long)size > MAX_FILE_BYTES) {
            snprintf(why, why_len, "not a tuning database (%ld bytes)", size);
        } else if (fseek(fp, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1))) {
            len = fread(text, 1, (size_t)size, fp);
            text[len] = '\0';
            if (len != (size_t)size) snprintf(why, why_len, "short read");
            else if (memchr(text, '\0', len)) snprintf(why, why_len, "not valid JSON (binary data)");
            else rc = chg_tuning_file_parse(text, f, why, why_len);
        } else {
            snprintf(why, why_len, "cannot read: %s", strerror(errno));
        }
    } else {
        snprintf(why, why_len, "cannot read: %s", strerror(errno));
    }
    free(text);
    fclose(fp);
    return rc;
}
