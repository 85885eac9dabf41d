/*
 * tuning.c -- the tuning database: schema, parse/validate/write with cJSON, and the run-time
 * lookup (exact device -> architecture -> vendor -> built-in) over the user and shipped
 * directories. See tuning.h for the contract and docs/TUNING.md for the file format.
 *
 * Why whole-file rejection: a file that breaks the schema anywhere was written by something we
 * do not understand (another version, a hand edit gone wrong, a truncated write), so none of it
 * is trusted. Device fitness, on the other hand, is decided per entry at lookup, because one
 * file legitimately holds entries for many devices.
 *
 * Why the parsed files are cached by directory and not re-read per call: the lookup runs on
 * every GEMM call (params.c), and a directory scan plus JSON parse per call would cost more
 * than a small GEMM. The cache key holds the directories in effect, so a test or a user that
 * changes CLHGEMM_TUNING_DIR sees the new directory at the next call.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tuning/tuning.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clhgemm_version.h"

#define MAX_FILE_BYTES (16u << 20) /* a database is a few KiB; anything huge is not one */

/* JSON paths in error messages and the texts of lookup notes are cut at their buffer size on
 * purpose; GCC's warning about possible truncation says nothing useful here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

const char *chg_tuning_level_name(chg_tuning_level_t level)
{
    switch (level) {
    case CHG_TUNING_EXACT: return "exact";
    case CHG_TUNING_ARCH: return "architecture";
    case CHG_TUNING_VENDOR: return "vendor";
    default: return "built-in";
    }
}

/* ---- copy-parameter text ----------------------------------------------------------------- */

static const struct {
    const char *name;
    size_t off;
} copy_fields[] = {
    {"TILE_I", offsetof(chg_copy_params_t, tile_i)}, {"TILE_P", offsetof(chg_copy_params_t, tile_p)},
    {"WPT_I", offsetof(chg_copy_params_t, wpt_i)},   {"WPT_P", offsetof(chg_copy_params_t, wpt_p)},
    {"UD_I", offsetof(chg_copy_params_t, ud_i)},     {"UD_P", offsetof(chg_copy_params_t, ud_p)},
    {"PAD", offsetof(chg_copy_params_t, pad)},
};
#define NCOPY_FIELDS (sizeof copy_fields / sizeof copy_fields[0])

static const struct {
    const char *name;
    size_t off;
} gemm_fields[] = {
    {"MWG", offsetof(chg_gemm_params_t, mwg)},     {"NWG", offsetof(chg_gemm_params_t, nwg)},
    {"KWG", offsetof(chg_gemm_params_t, kwg)},     {"MDIMC", offsetof(chg_gemm_params_t, mdimc)},
    {"NDIMC", offsetof(chg_gemm_params_t, ndimc)}, {"VWM", offsetof(chg_gemm_params_t, vwm)},
    {"VWN", offsetof(chg_gemm_params_t, vwn)},     {"SA", offsetof(chg_gemm_params_t, sa)},
    {"SB", offsetof(chg_gemm_params_t, sb)},       {"KWI", offsetof(chg_gemm_params_t, kwi)},
};
#define NGEMM_FIELDS (sizeof gemm_fields / sizeof gemm_fields[0])

#define FIELD(p, off) (*(int *)((char *)(p) + (off)))

void chg_copy_params_format(const chg_copy_params_t *p, char *buf, size_t len)
{
    snprintf(buf, len, "TILE_I=%d,TILE_P=%d,WPT_I=%d,WPT_P=%d,UD_I=%d,UD_P=%d,PAD=%d", p->tile_i,
             p->tile_p, p->wpt_i, p->wpt_p, p->ud_i, p->ud_p, p->pad);
}

int chg_copy_params_parse(const char *text, chg_copy_params_t *p)
{
    chg_copy_params_t q = *p;
    const char *s = text;
    while (*s) {
        while (*s == ' ' || *s == ',' || *s == ';') s++;
        if (!*s) break;
        const char *key = s;
        while (isalnum((unsigned char)*s) || *s == '_') s++;
        const size_t klen = (size_t)(s - key);
        if (*s != '=') return -1;
        s++;
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 4096) return -1;
        size_t i = 0;
        while (i < NCOPY_FIELDS && !(strlen(copy_fields[i].name) == klen &&
                                     strncasecmp(copy_fields[i].name, key, klen) == 0))
            i++;
        if (i == NCOPY_FIELDS) return -1;
        FIELD(&q, copy_fields[i].off) = (int)v;
        s = end;
    }
    *p = q;
    return 0;
}

/* ---- records ----------------------------------------------------------------------------- */

void chg_tuning_file_init(chg_tuning_file_t *f) { memset(f, 0, sizeof *f); }

void chg_tuning_record_free(chg_tuning_record_t *rec)
{
    free(rec->model);
    rec->model = NULL;
}

void chg_tuning_file_free(chg_tuning_file_t *f)
{
    for (int i = 0; i < f->count; i++) chg_tuning_record_free(&f->records[i]);
    free(f->records);
    chg_tuning_file_init(f);
}

int chg_tuning_record_copy(chg_tuning_record_t *dst, const chg_tuning_record_t *src)
{
    *dst = *src;
    dst->model = NULL;
    if (src->model && !(dst->model = strdup(src->model))) return -1;
    return 0;
}

void chg_tuning_record_init(chg_tuning_record_t *rec, const chg_device_t *dev)
{
    memset(rec, 0, sizeof *rec);
    const clhgemm_device_info_t *i = &dev->info;
    snprintf(rec->name, sizeof rec->name, "%s", i->name);
    snprintf(rec->driver, sizeof rec->driver, "%s", i->driver_version);
    snprintf(rec->vendor, sizeof rec->vendor, "%s", i->vendor);
    snprintf(rec->platform, sizeof rec->platform, "%s", i->platform_name);
    snprintf(rec->arch, sizeof rec->arch, "%s", dev->arch_key);
    snprintf(rec->vendor_key, sizeof rec->vendor_key, "%s", dev->vendor_key);
    rec->compute_units = i->compute_units;
    rec->local_mem = i->local_mem_bytes;
    rec->global_mem = i->global_mem_bytes;
    rec->max_work_group = i->max_work_group_size;
}

chg_tuning_record_t *chg_tuning_file_find(chg_tuning_file_t *f, const char *name,
                                          const char *driver)
{
    for (int i = 0; i < f->count; i++)
        if (!strcmp(f->records[i].name, name) && !strcmp(f->records[i].driver, driver))
            return &f->records[i];
    return NULL;
}

int chg_tuning_file_upsert(chg_tuning_file_t *f, const chg_tuning_record_t *rec)
{
    chg_tuning_record_t *old = chg_tuning_file_find(f, rec->name, rec->driver);
    if (!old) {
        if (f->count == f->cap) {
            int cap = f->cap ? 2 * f->cap : 4;
            chg_tuning_record_t *r = realloc(f->records, (size_t)cap * sizeof *r);
            if (!r) return -1;
            f->records = r;
            f->cap = cap;
        }
        if (chg_tuning_record_copy(&f->records[f->count], rec)) return -1;
        f->count++;
        return 0;
    }
    char *model = old->model;
    if (rec->model) {
        char *m = strdup(rec->model);
        if (!m) return -1;
        free(model);
        model = m;
    }
    chg_tuning_prec_t prec[2] = {old->prec[0], old->prec[1]};
    chg_tuning_pipeline_t pipe = old->pipeline;
    chg_tuning_cpumodel_t cm[2] = {old->cpumodel[0], old->cpumodel[1]};
    for (int p = 0; p < 2; p++) {
        if (rec->prec[p].present) prec[p] = rec->prec[p];
        if (rec->cpumodel[p].present) cm[p] = rec->cpumodel[p];
    }
    if (rec->pipeline.present) pipe = rec->pipeline;
    char date[32], tool[64];
    double seconds = old->seconds;
    memcpy(date, old->date, sizeof date);
    memcpy(tool, old->tool, sizeof tool);
    *old = *rec;
    old->model = model;
    memcpy(old->prec, prec, sizeof prec);
    memcpy(old->cpumodel, cm, sizeof cm);
    old->pipeline = pipe;
    if (!rec->date[0]) {
        memcpy(old->date, date, sizeof date);
        memcpy(old->tool, tool, sizeof tool);
        old->seconds = seconds;
    }
    return 0;
}

/* ---- parsing ----------------------------------------------------------------------------- */

typedef struct perr_s {
    char *why;
    size_t len;
    int failed;
} perr_t;

static void fail(perr_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(perr_t *e, const char *fmt, ...)
{
    if (e->failed) return;
    e->failed = 1;
    if (!e->why || !e->len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->why, e->len, fmt, ap);
    va_end(ap);
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Required (req = 1) or optional string member into buf. */
static void get_str(const cJSON *obj, const char *key, const char *path, int req, char *buf,
                    size_t len, perr_t *e)
{
    const cJSON *it = member(obj, key);
    if (!it) {
        if (req) fail(e, "%s.%s: missing", path, key);
        return;
    }
    if (!cJSON_IsString(it) || !it->valuestring) {
        fail(e, "%s.%s: expected a string", path, key);
        return;
    }
    if (strlen(it->valuestring) >= len) {
        fail(e, "%s.%s: longer than %zu characters", path, key, len - 1);
        return;
    }
    snprintf(buf, len, "%s", it->valuestring);
}

static void get_num(const cJSON *obj, const char *key, const char *path, int req, double *out,
                    perr_t *e)
{
    const cJSON *it = member(obj, key);
    if (!it) {
        if (req) fail(e, "%s.%s: missing", path, key);
        return;
    }
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0) {
        fail(e, "%s.%s: expected a number >= 0", path, key);
        return;
    }
    *out = it->valuedouble;
}

/* Any finite number (model coefficients may be negative). */
static void get_real(const cJSON *obj, const char *key, const char *path, int req, double *out,
                     perr_t *e)
{
    const cJSON *it = member(obj, key);
    if (!it) {
        if (req) fail(e, "%s.%s: missing", path, key);
        return;
    }
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) {
        fail(e, "%s.%s: expected a finite number", path, key);
        return;
    }
    *out = it->valuedouble;
}

/* Non-negative integer up to max. */
static void get_uint(const cJSON *obj, const char *key, const char *path, int req, double max,
                     unsigned long long *out, perr_t *e)
{
    double v = -1;
    const cJSON *it = member(obj, key);
    if (!it) {
        if (req) fail(e, "%s.%s: missing", path, key);
        return;
    }
    if (cJSON_IsNumber(it)) v = it->valuedouble;
    if (!(v >= 0 && v <= max && v == floor(v))) {
        fail(e, "%s.%s: expected an integer from 0 to %.0f", path, key, max);
        return;
    }
    *out = (unsigned long long)v;
}

static void get_int(const cJSON *obj, const char *key, const char *path, int req, int max, int *out,
                    perr_t *e)
{
    unsigned long long v = 0;
    int before = e->failed;
    get_uint(obj, key, path, req, max, &v, e);
    if (!before && !e->failed && member(obj, key)) *out = (int)v;
}

static const cJSON *get_obj(const cJSON *obj, const char *key, const char *path, int req, perr_t *e)
{
    const cJSON *it = member(obj, key);
    if (!it) {
        if (req) fail(e, "%s.%s: missing", path, key);
        return NULL;
    }
    if (!cJSON_IsObject(it)) {
        fail(e, "%s.%s: expected an object", path, key);
        return NULL;
    }
    return it;
}

static const cJSON *get_arr(const cJSON *obj, const char *key, const char *path, int req, perr_t *e)
{
    const cJSON *it = member(obj, key);
    if (!it) {
        if (req) fail(e, "%s.%s: missing", path, key);
        return NULL;
    }
    if (!cJSON_IsArray(it)) {
        fail(e, "%s.%s: expected an array", path, key);
        return NULL;
    }
    return it;
}

static int is_vw(int v) { return v == 1 || v == 2 || v == 4 || v == 8; }

static void parse_gemm(const cJSON *o, const char *path, chg_gemm_params_t *g, perr_t *e)
{
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < NGEMM_FIELDS; i++)
        get_int(o, gemm_fields[i].name, path, 1, 4096, &FIELD(g, gemm_fields[i].off), e);
    /* the FP64 tensor-core kernel (optional; absent means the FMA kernel) */
    get_int(o, "MMA", path, 0, 4, &g->mma, e);
    get_int(o, "WM", path, 0, 64, &g->wm, e);
    /* work-group rasterisation (optional; absent means none). TF32 is never read from a
     * database: it changes the results' precision, so only CLHGEMM_SGEMM_MATH turns it on. */
    get_int(o, "SWZ", path, 0, 64, &g->swz, e);
    if (e->failed) return;
    if (g->mma && g->wm < 1) fail(e, "%s: MMA needs WM >= 1", path);
    if (g->mwg < 1 || g->nwg < 1 || g->kwg < 1 || g->mdimc < 1 || g->ndimc < 1 || g->kwi < 1)
        fail(e, "%s: sizes must be positive", path);
    else if (!is_vw(g->vwm) || !is_vw(g->vwn))
        fail(e, "%s: VWM and VWN must be 1, 2, 4 or 8", path);
    else if (g->sa > 1 || g->sb > 1)
        fail(e, "%s: SA and SB must be 0 or 1", path);
}

static void parse_copy(const cJSON *o, const char *path, chg_copy_params_t *c, double *gbs,
                       perr_t *e)
{
    for (size_t i = 0; i < NCOPY_FIELDS; i++)
        get_int(o, copy_fields[i].name, path, 1, 4096, &FIELD(c, copy_fields[i].off), e);
    get_num(o, "gbs", path, 0, gbs, e);
    if (!e->failed && (c->tile_i < 1 || c->tile_p < 1 || c->wpt_i < 1 || c->wpt_p < 1))
        fail(e, "%s: sizes must be positive", path);
}

static void parse_prec(const cJSON *o, const char *path, chg_precision_t prec,
                       chg_tuning_prec_t *p, perr_t *e)
{
    char sub[256];
    memset(p, 0, sizeof *p);
    p->present = 1;
    snprintf(sub, sizeof sub, "%s.gemm", path);
    const cJSON *g = get_obj(o, "gemm", path, 1, e);
    if (g) parse_gemm(g, sub, &p->gemm, e);
    get_int(o, "size", path, 0, 1 << 30, &p->size, e);
    get_num(o, "gflops", path, 0, &p->gflops, e);
    get_num(o, "kernel_gflops", path, 0, &p->kernel_gflops, e);
    get_num(o, "default_gflops", path, 0, &p->default_gflops, e);
    snprintf(sub, sizeof sub, "%s.search", path);
    const cJSON *s = get_obj(o, "search", path, 0, e);
    if (s) {
        get_int(s, "candidates", sub, 0, INT_MAX, &p->candidates, e);
        get_int(s, "failed", sub, 0, INT_MAX, &p->failed, e);
        get_num(s, "seconds", sub, 0, &p->search_seconds, e);
        get_num(s, "best_at_seconds", sub, 0, &p->best_at_seconds, e);
    }
    const cJSON *c = get_obj(o, "copy", path, 0, e);
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
            const cJSON *k = get_obj(c, names[i], sub, 1, e);
            if (k) parse_copy(k, cp, dst[i], gbs[i], e);
        }
        get_num(c, "copy_buffer_gbs", sub, 0, &p->copy_buffer_gbs, e);
    }
    const cJSON *r = get_arr(o, "kernel_rate", path, 0, e);
    if (r) {
        const cJSON *row;
        cJSON_ArrayForEach(row, r)
        {
            snprintf(sub, sizeof sub, "%s.kernel_rate[%d]", path, p->nrates);
            if (p->nrates >= CHG_TUNING_MAX_RATES) {
                fail(e, "%s: more than %d rows", sub, CHG_TUNING_MAX_RATES);
                break;
            }
            if (!cJSON_IsObject(row)) {
                fail(e, "%s: expected an object", sub);
                break;
            }
            chg_tuning_rate_t *t = &p->rates[p->nrates++];
            get_int(row, "m", sub, 1, 1 << 30, &t->m, e);
            get_int(row, "n", sub, 1, 1 << 30, &t->n, e);
            get_int(row, "k", sub, 1, 1 << 30, &t->k, e);
            get_num(row, "gflops", sub, 1, &t->gflops, e);
        }
    }
}

static void parse_points(const cJSON *arr, const char *path, const char *xkey, const char *vkey,
                         chg_tuning_point_t *pts, int *n, perr_t *e)
{
    const cJSON *row;
    char sub[256];
    *n = 0;
    cJSON_ArrayForEach(row, arr)
    {
        snprintf(sub, sizeof sub, "%s[%d]", path, *n);
        if (*n >= CHG_TUNING_MAX_POINTS) {
            fail(e, "%s: more than %d rows", sub, CHG_TUNING_MAX_POINTS);
            return;
        }
        if (!cJSON_IsObject(row)) {
            fail(e, "%s: expected an object", sub);
            return;
        }
        get_int(row, xkey, sub, 1, 1 << 20, &pts[*n].x, e);
        get_num(row, vkey, sub, 1, &pts[*n].value, e);
        (*n)++;
    }
}

static void parse_pipeline(const cJSON *o, const char *path, chg_tuning_pipeline_t *p, perr_t *e)
{
    char sub[256];
    memset(p, 0, sizeof *p);
    p->present = 1;
    get_num(o, "h2d_pageable_gbs", path, 0, &p->h2d_pageable_gbs, e);
    get_num(o, "d2h_pageable_gbs", path, 0, &p->d2h_pageable_gbs, e);
    get_num(o, "h2d_pinned_gbs", path, 0, &p->h2d_pinned_gbs, e);
    get_num(o, "d2h_pinned_gbs", path, 0, &p->d2h_pinned_gbs, e);
    const cJSON *t = get_obj(o, "pack_threads", path, 0, e);
    if (t) {
        snprintf(sub, sizeof sub, "%s.pack_threads", path);
        get_int(t, "best", sub, 1, 1 << 20, &p->pack_threads, e);
        const cJSON *a = get_arr(t, "gbs", sub, 0, e);
        snprintf(sub, sizeof sub, "%s.pack_threads.gbs", path);
        if (a) parse_points(a, sub, "threads", "gbs", p->pack_gbs, &p->npack, e);
    }
    const cJSON *q = get_obj(o, "queues", path, 0, e);
    if (q) {
        snprintf(sub, sizeof sub, "%s.queues", path);
        get_int(q, "best", sub, 1, 64, &p->queues, e);
        const cJSON *a = get_arr(q, "seconds", sub, 0, e);
        snprintf(sub, sizeof sub, "%s.queues.seconds", path);
        if (a) parse_points(a, sub, "queues", "seconds", p->queue_seconds, &p->nqueue, e);
    }
}

static void parse_tmodel(const cJSON *o, const char *key, const char *path, chg_tmodel_t *t,
                         perr_t *e)
{
    char sub[256];
    const cJSON *x = get_obj(o, key, path, 1, e);
    if (!x) return;
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    get_real(x, "k1", sub, 1, &t->k1, e);
    get_real(x, "k2", sub, 1, &t->k2, e);
    get_real(x, "k3", sub, 1, &t->k3, e);
    if (!e->failed && !(t->k1 > 0)) fail(e, "%s.k1: must be > 0 (seconds per m*n*k)", sub);
}

static void parse_link(const cJSON *o, const char *key, const char *path, double *ts, double *tw,
                       perr_t *e)
{
    char sub[256];
    const cJSON *x = get_obj(o, key, path, 1, e);
    if (!x) return;
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    get_num(x, "ts", sub, 1, ts, e);
    get_num(x, "tw", sub, 1, tw, e);
}

/* model.cpu_share.{s,d}: required coefficients, optional statistics (schema in TUNING.md). */
static void parse_cpumodel(const cJSON *o, const char *path, chg_tuning_cpumodel_t *c, perr_t *e)
{
    char sub[256];
    memset(c, 0, sizeof *c);
    if (!cJSON_IsObject(o)) {
        fail(e, "%s: expected an object", path);
        return;
    }
    c->present = 1;
    parse_tmodel(o, "gpu", path, &c->split.gpu, e);
    parse_tmodel(o, "cpu", path, &c->split.cpu, e);
    const cJSON *cpu = member(o, "cpu");
    if (cpu && cJSON_IsObject(cpu)) {
        snprintf(sub, sizeof sub, "%s.cpu", path);
        get_int(cpu, "threads", sub, 1, 4096, &c->cpu_threads, e);
        if (!e->failed && c->cpu_threads < 1) fail(e, "%s.threads: must be >= 1", sub);
        get_str(cpu, "core", sub, 0, c->cpu_core, sizeof c->cpu_core, e);
    }
    parse_link(o, "h2d", path, &c->split.h2d_ts, &c->split.h2d_tw, e);
    parse_link(o, "d2h", path, &c->split.d2h_ts, &c->split.d2h_tw, e);
    get_num(o, "gamma", path, 1, &c->split.gamma, e);
    c->gpu_err = c->cpu_err = c->hybrid_err = -1;
    const cJSON *er = get_obj(o, "error", path, 0, e);
    if (er) {
        snprintf(sub, sizeof sub, "%s.error", path);
        get_num(er, "mean_rel", sub, 1, &c->mean_rel_err, e);
        get_num(er, "gpu", sub, 0, &c->gpu_err, e);
        get_num(er, "cpu", sub, 0, &c->cpu_err, e);
        get_num(er, "hybrid", sub, 0, &c->hybrid_err, e);
        get_int(er, "samples", sub, 0, 1 << 20, &c->samples, e);
    }
    const cJSON *ck = get_obj(o, "check", path, 0, e);
    if (ck) {
        snprintf(sub, sizeof sub, "%s.check", path);
        get_int(ck, "n", sub, 1, 1 << 30, &c->check_n, e);
        get_num(ck, "model_share", sub, 1, &c->model_share, e);
        get_num(ck, "model_predicted_s", sub, 0, &c->model_pred_s, e);
        get_num(ck, "model_s", sub, 0, &c->model_s, e);
        get_num(ck, "search_share", sub, 1, &c->search_share, e);
        get_num(ck, "search_s", sub, 0, &c->search_s, e);
        get_int(ck, "evaluations", sub, 0, 1 << 20, &c->search_evals, e);
        if (!e->failed && (c->model_share > 1 || c->search_share > 1))
            fail(e, "%s: shares must be in [0, 1]", sub);
    }
}

static void parse_model(const cJSON *m, const char *path, chg_tuning_record_t *r, perr_t *e)
{
    char sub[256];
    const cJSON *cs = get_obj(m, "cpu_share", path, 0, e);
    if (!cs) return;
    const cJSON *it;
    cJSON_ArrayForEach(it, cs)
    {
        snprintf(sub, sizeof sub, "%s.cpu_share.%s", path, it->string ? it->string : "?");
        const int prec = it->string && !strcmp(it->string, "s")   ? CHG_F32
                         : it->string && !strcmp(it->string, "d") ? CHG_F64
                                                                   : -1;
        if (prec < 0) {
            fail(e, "%s: unknown precision (expected \"s\" or \"d\")", sub);
            return;
        }
        parse_cpumodel(it, sub, &r->cpumodel[prec], e);
    }
}

static void parse_record(const cJSON *o, const char *path, chg_tuning_record_t *r, perr_t *e)
{
    char sub[256];
    memset(r, 0, sizeof *r);
    if (!cJSON_IsObject(o)) {
        fail(e, "%s: expected an object", path);
        return;
    }
    snprintf(sub, sizeof sub, "%s.device", path);
    const cJSON *d = get_obj(o, "device", path, 1, e);
    if (d) {
        get_str(d, "name", sub, 1, r->name, sizeof r->name, e);
        get_str(d, "driver", sub, 1, r->driver, sizeof r->driver, e);
        get_str(d, "vendor", sub, 0, r->vendor, sizeof r->vendor, e);
        get_str(d, "platform", sub, 0, r->platform, sizeof r->platform, e);
        get_str(d, "arch", sub, 1, r->arch, sizeof r->arch, e);
        get_str(d, "vendor_key", sub, 1, r->vendor_key, sizeof r->vendor_key, e);
        unsigned long long v = 0;
        get_uint(d, "compute_units", sub, 0, 1e9, &v, e);
        r->compute_units = (unsigned)v;
        get_uint(d, "local_mem", sub, 0, 9e15, &r->local_mem, e);
        get_uint(d, "global_mem", sub, 0, 9e15, &r->global_mem, e);
        get_uint(d, "max_work_group", sub, 0, 1e9, &r->max_work_group, e);
        if (!e->failed && !r->name[0]) fail(e, "%s.name: empty", sub);
    }
    const cJSON *t = get_obj(o, "tuned", path, 0, e);
    if (t) {
        snprintf(sub, sizeof sub, "%s.tuned", path);
        get_str(t, "date", sub, 0, r->date, sizeof r->date, e);
        get_str(t, "tool", sub, 0, r->tool, sizeof r->tool, e);
        get_num(t, "seconds", sub, 0, &r->seconds, e);
    }
    const cJSON *p = get_obj(o, "precisions", path, 1, e);
    if (p) {
        const cJSON *it;
        cJSON_ArrayForEach(it, p)
        {
            snprintf(sub, sizeof sub, "%s.precisions.%s", path, it->string ? it->string : "?");
            int prec = it->string && !strcmp(it->string, "s")   ? CHG_F32
                       : it->string && !strcmp(it->string, "d") ? CHG_F64
                                                                 : -1;
            if (prec < 0) {
                fail(e, "%s: unknown precision (expected \"s\" or \"d\")", sub);
                break;
            }
            if (!cJSON_IsObject(it)) {
                fail(e, "%s: expected an object", sub);
                break;
            }
            parse_prec(it, sub, (chg_precision_t)prec, &r->prec[prec], e);
        }
    }
    const cJSON *pl = get_obj(o, "pipeline", path, 0, e);
    if (pl) {
        snprintf(sub, sizeof sub, "%s.pipeline", path);
        parse_pipeline(pl, sub, &r->pipeline, e);
    }
    const cJSON *m = get_obj(o, "model", path, 0, e);
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
    perr_t e = {why, why_len, 0};
    chg_tuning_file_init(f);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        int line = 1;
        for (size_t i = 0; i < off && text[i]; i++) line += text[i] == '\n';
        fail(&e, "not valid JSON (syntax error near line %d, byte %zu)", line, off);
        return -1;
    }
    char format[64] = "";
    if (!cJSON_IsObject(root)) fail(&e, "top level: expected an object");
    get_str(root, "format", "top level", 1, format, sizeof format, &e);
    if (!e.failed && strcmp(format, CHG_TUNING_FORMAT))
        fail(&e, "format \"%s\", expected \"%s\"", format, CHG_TUNING_FORMAT);
    int fv = -1;
    get_int(root, "format_version", "top level", 1, 1 << 20, &fv, &e);
    if (!e.failed && fv != CHG_TUNING_FORMAT_VERSION)
        fail(&e, "format_version %d, this library reads version %d", fv, CHG_TUNING_FORMAT_VERSION);
    get_str(root, "library_version", "top level", 1, f->library_version, sizeof f->library_version,
            &e);
    int major, minor;
    if (!e.failed && parse_version(f->library_version, &major, &minor))
        fail(&e, "library_version \"%s\" is not MAJOR.MINOR.PATCH", f->library_version);
    else if (!e.failed && (major != CLHGEMM_VERSION_MAJOR || minor != CLHGEMM_VERSION_MINOR))
        fail(&e, "written by clhgemm %s, this is %s (kernel parameters are only kept across "
                 "patch releases; run clhgemm-tune again)",
             f->library_version, CLHGEMM_VERSION_STRING);
    get_str(root, "created", "top level", 0, f->created, sizeof f->created, &e);
    const cJSON *entries = get_arr(root, "entries", "top level", 1, &e);
    if (entries && !e.failed) {
        int n = cJSON_GetArraySize(entries);
        f->records = calloc(n > 0 ? (size_t)n : 1, sizeof *f->records);
        if (!f->records) fail(&e, "out of memory");
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
                    fail(&e, "%s: a second entry for the device \"%s\", driver \"%s\"", path,
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

/* ---- writing ----------------------------------------------------------------------------- */

static void add_gemm(cJSON *o, const chg_gemm_params_t *g)
{
    for (size_t i = 0; i < NGEMM_FIELDS; i++)
        cJSON_AddNumberToObject(o, gemm_fields[i].name, FIELD(g, gemm_fields[i].off));
    if (g->mma) {
        cJSON_AddNumberToObject(o, "MMA", g->mma);
        cJSON_AddNumberToObject(o, "WM", g->wm);
    }
    if (g->swz) cJSON_AddNumberToObject(o, "SWZ", g->swz);
}

static void add_copy(cJSON *o, const chg_copy_params_t *c, double gbs)
{
    for (size_t i = 0; i < NCOPY_FIELDS; i++)
        cJSON_AddNumberToObject(o, copy_fields[i].name, FIELD(c, copy_fields[i].off));
    cJSON_AddNumberToObject(o, "gbs", gbs);
}

static void add_tmodel(cJSON *o, const char *key, const chg_tmodel_t *t)
{
    cJSON *x = cJSON_AddObjectToObject(o, key);
    cJSON_AddNumberToObject(x, "k1", t->k1);
    cJSON_AddNumberToObject(x, "k2", t->k2);
    cJSON_AddNumberToObject(x, "k3", t->k3);
}

static cJSON *cpumodel_json(const chg_tuning_cpumodel_t *c)
{
    cJSON *o = cJSON_CreateObject();
    add_tmodel(o, "gpu", &c->split.gpu);
    add_tmodel(o, "cpu", &c->split.cpu);
    cJSON *cpu = cJSON_GetObjectItemCaseSensitive(o, "cpu");
    cJSON_AddNumberToObject(cpu, "threads", c->cpu_threads);
    if (c->cpu_core[0]) cJSON_AddStringToObject(cpu, "core", c->cpu_core);
    cJSON *h = cJSON_AddObjectToObject(o, "h2d");
    cJSON_AddNumberToObject(h, "ts", c->split.h2d_ts);
    cJSON_AddNumberToObject(h, "tw", c->split.h2d_tw);
    cJSON *d = cJSON_AddObjectToObject(o, "d2h");
    cJSON_AddNumberToObject(d, "ts", c->split.d2h_ts);
    cJSON_AddNumberToObject(d, "tw", c->split.d2h_tw);
    cJSON_AddNumberToObject(o, "gamma", c->split.gamma);
    cJSON *er = cJSON_AddObjectToObject(o, "error");
    cJSON_AddNumberToObject(er, "mean_rel", c->mean_rel_err);
    if (c->gpu_err >= 0) cJSON_AddNumberToObject(er, "gpu", c->gpu_err);
    if (c->cpu_err >= 0) cJSON_AddNumberToObject(er, "cpu", c->cpu_err);
    if (c->hybrid_err >= 0) cJSON_AddNumberToObject(er, "hybrid", c->hybrid_err);
    cJSON_AddNumberToObject(er, "samples", c->samples);
    if (c->check_n > 0) {
        cJSON *ck = cJSON_AddObjectToObject(o, "check");
        cJSON_AddNumberToObject(ck, "n", c->check_n);
        cJSON_AddNumberToObject(ck, "model_share", c->model_share);
        cJSON_AddNumberToObject(ck, "model_predicted_s", c->model_pred_s);
        cJSON_AddNumberToObject(ck, "model_s", c->model_s);
        cJSON_AddNumberToObject(ck, "search_share", c->search_share);
        cJSON_AddNumberToObject(ck, "search_s", c->search_s);
        cJSON_AddNumberToObject(ck, "evaluations", c->search_evals);
    }
    return o;
}

static cJSON *record_json(const chg_tuning_record_t *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *d = cJSON_AddObjectToObject(o, "device");
    cJSON_AddStringToObject(d, "name", r->name);
    cJSON_AddStringToObject(d, "driver", r->driver);
    cJSON_AddStringToObject(d, "vendor", r->vendor);
    cJSON_AddStringToObject(d, "platform", r->platform);
    cJSON_AddStringToObject(d, "arch", r->arch);
    cJSON_AddStringToObject(d, "vendor_key", r->vendor_key);
    cJSON_AddNumberToObject(d, "compute_units", r->compute_units);
    cJSON_AddNumberToObject(d, "local_mem", (double)r->local_mem);
    cJSON_AddNumberToObject(d, "global_mem", (double)r->global_mem);
    cJSON_AddNumberToObject(d, "max_work_group", (double)r->max_work_group);
    cJSON *t = cJSON_AddObjectToObject(o, "tuned");
    cJSON_AddStringToObject(t, "date", r->date);
    cJSON_AddStringToObject(t, "tool", r->tool);
    cJSON_AddNumberToObject(t, "seconds", r->seconds);
    cJSON *ps = cJSON_AddObjectToObject(o, "precisions");
    for (int p = 0; p < 2; p++) {
        const chg_tuning_prec_t *x = &r->prec[p];
        if (!x->present) continue;
        cJSON *po = cJSON_AddObjectToObject(ps, p == CHG_F64 ? "d" : "s");
        add_gemm(cJSON_AddObjectToObject(po, "gemm"), &x->gemm);
        cJSON_AddNumberToObject(po, "size", x->size);
        cJSON_AddNumberToObject(po, "gflops", x->gflops);
        cJSON_AddNumberToObject(po, "kernel_gflops", x->kernel_gflops);
        cJSON_AddNumberToObject(po, "default_gflops", x->default_gflops);
        cJSON *s = cJSON_AddObjectToObject(po, "search");
        cJSON_AddNumberToObject(s, "candidates", x->candidates);
        cJSON_AddNumberToObject(s, "failed", x->failed);
        cJSON_AddNumberToObject(s, "seconds", x->search_seconds);
        cJSON_AddNumberToObject(s, "best_at_seconds", x->best_at_seconds);
        if (x->has_copy) {
            cJSON *c = cJSON_AddObjectToObject(po, "copy");
            add_copy(cJSON_AddObjectToObject(c, "pack"), &x->pack, x->pack_gbs);
            add_copy(cJSON_AddObjectToObject(c, "pack_t"), &x->pack_t, x->pack_t_gbs);
            cJSON_AddNumberToObject(c, "copy_buffer_gbs", x->copy_buffer_gbs);
        }
        if (x->nrates > 0) {
            cJSON *a = cJSON_AddArrayToObject(po, "kernel_rate");
            for (int i = 0; i < x->nrates; i++) {
                cJSON *row = cJSON_CreateObject();
                cJSON_AddNumberToObject(row, "m", x->rates[i].m);
                cJSON_AddNumberToObject(row, "n", x->rates[i].n);
                cJSON_AddNumberToObject(row, "k", x->rates[i].k);
                cJSON_AddNumberToObject(row, "gflops", x->rates[i].gflops);
                cJSON_AddItemToArray(a, row);
            }
        }
    }
    if (r->pipeline.present) {
        const chg_tuning_pipeline_t *pl = &r->pipeline;
        cJSON *po = cJSON_AddObjectToObject(o, "pipeline");
        cJSON_AddNumberToObject(po, "h2d_pageable_gbs", pl->h2d_pageable_gbs);
        cJSON_AddNumberToObject(po, "d2h_pageable_gbs", pl->d2h_pageable_gbs);
        cJSON_AddNumberToObject(po, "h2d_pinned_gbs", pl->h2d_pinned_gbs);
        cJSON_AddNumberToObject(po, "d2h_pinned_gbs", pl->d2h_pinned_gbs);
        if (pl->pack_threads > 0) {
            cJSON *t2 = cJSON_AddObjectToObject(po, "pack_threads");
            cJSON_AddNumberToObject(t2, "best", pl->pack_threads);
            cJSON *a = cJSON_AddArrayToObject(t2, "gbs");
            for (int i = 0; i < pl->npack; i++) {
                cJSON *row = cJSON_CreateObject();
                cJSON_AddNumberToObject(row, "threads", pl->pack_gbs[i].x);
                cJSON_AddNumberToObject(row, "gbs", pl->pack_gbs[i].value);
                cJSON_AddItemToArray(a, row);
            }
        }
        if (pl->queues > 0) {
            cJSON *q = cJSON_AddObjectToObject(po, "queues");
            cJSON_AddNumberToObject(q, "best", pl->queues);
            cJSON *a = cJSON_AddArrayToObject(q, "seconds");
            for (int i = 0; i < pl->nqueue; i++) {
                cJSON *row = cJSON_CreateObject();
                cJSON_AddNumberToObject(row, "queues", pl->queue_seconds[i].x);
                cJSON_AddNumberToObject(row, "seconds", pl->queue_seconds[i].value);
                cJSON_AddItemToArray(a, row);
            }
        }
    }
    cJSON *model = r->model ? cJSON_Parse(r->model) : NULL;
    if (model && !cJSON_IsObject(model)) {
        cJSON_Delete(model);
        model = NULL;
    }
    if (!model) model = cJSON_CreateObject();
    /* cpu_share comes from the parsed models (the text may hold an older one). */
    cJSON_DeleteItemFromObjectCaseSensitive(model, "cpu_share");
    if (r->cpumodel[0].present || r->cpumodel[1].present) {
        cJSON *cs = cJSON_AddObjectToObject(model, "cpu_share");
        for (int p = 0; p < 2; p++)
            if (r->cpumodel[p].present)
                cJSON_AddItemToObject(cs, p == CHG_F64 ? "d" : "s", cpumodel_json(&r->cpumodel[p]));
    }
    cJSON_AddItemToObject(o, "model", model);
    return o;
}

/* mkdir -p for the directory part of path. */
static int make_parent_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf) return -1;
    memcpy(buf, path, n + 1);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf) return 0;
    *slash = '\0';
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
    return 0;
}

static void utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int chg_tuning_file_write(const char *path, chg_tuning_file_t *f, char *why, size_t why_len)
{
    snprintf(f->library_version, sizeof f->library_version, "%s", CLHGEMM_VERSION_STRING);
    utc_now(f->created, sizeof f->created);
    cJSON *root = cJSON_CreateObject();
    if (!root) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    cJSON_AddStringToObject(root, "format", CHG_TUNING_FORMAT);
    cJSON_AddNumberToObject(root, "format_version", CHG_TUNING_FORMAT_VERSION);
    cJSON_AddStringToObject(root, "library_version", f->library_version);
    cJSON_AddStringToObject(root, "created", f->created);
    cJSON *arr = cJSON_AddArrayToObject(root, "entries");
    for (int i = 0; i < f->count; i++) cJSON_AddItemToArray(arr, record_json(&f->records[i]));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    int rc = -1;
    char tmp[4200];
    const char *slash = strrchr(path, '/');
    const int dlen = slash ? (int)(slash - path + 1) : 0;
    snprintf(tmp, sizeof tmp, "%.*s.%s.XXXXXX", dlen, path, slash ? slash + 1 : path);
    if (make_parent_dirs(path) != 0) {
        snprintf(why, why_len, "cannot create the directory of %s: %s", path, strerror(errno));
    } else {
        int fd = mkstemp(tmp);
        if (fd < 0) {
            snprintf(why, why_len, "cannot create a file next to %s: %s", path, strerror(errno));
        } else {
            size_t len = strlen(text), done = 0;
            while (done < len) {
                ssize_t w = write(fd, text + done, len - done);
                if (w < 0 && errno == EINTR) continue;
                if (w <= 0) break;
                done += (size_t)w;
            }
            const int ok = done == len && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
            fchmod(fd, 0644);
            if (close(fd) != 0 || !ok) {
                snprintf(why, why_len, "cannot write %s: %s", tmp, strerror(errno));
                unlink(tmp);
            } else if (rename(tmp, path) != 0) {
                snprintf(why, why_len, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
                unlink(tmp);
            } else {
                rc = 0;
            }
        }
    }
    cJSON_free(text);
    return rc;
}

/* ---- directories ------------------------------------------------------------------------- */

static int is_dir(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_off(const char *v) { return v && (!strcasecmp(v, "off") || !strcmp(v, "0")); }

const char *chg_tuning_user_dir(char *buf, size_t len)
{
    const char *v = chg_getenv("CLHGEMM_TUNING_DIR");
    if (v) {
        if (is_off(v)) return NULL;
        snprintf(buf, len, "%s", v);
        return buf;
    }
    if ((v = chg_getenv("XDG_CONFIG_HOME"))) {
        snprintf(buf, len, "%s/clhgemm", v);
        return buf;
    }
    if ((v = chg_getenv("HOME"))) {
        snprintf(buf, len, "%s/.config/clhgemm", v);
        return buf;
    }
    return NULL;
}

/* The shipped directory without the environment override, found once: share/clhgemm/tuning
 * relative to the loaded object's lib/ or bin/ directory when that exists (an install, even a
 * moved one), else the source tree's tuning/ for a library or program inside its build tree,
 * else the configured install prefix. */
static pthread_once_t shipped_once = PTHREAD_ONCE_INIT;
static char shipped_path[PATH_MAX];

static void shipped_init(void)
{
    Dl_info info;
    char obj[PATH_MAX] = "", dir[PATH_MAX] = "";
    if (dladdr((void *)&chg_tuning_shipped_dir, &info) && info.dli_fname &&
        realpath(info.dli_fname, obj)) {
        snprintf(dir, sizeof dir, "%s", obj);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
    }
    char cand[PATH_MAX + 64];
#ifdef CLHGEMM_TUNING_FROM_LIBDIR
    if (dir[0]) {
        snprintf(cand, sizeof cand, "%s/%s", dir, CLHGEMM_TUNING_FROM_LIBDIR);
        if (is_dir(cand) && realpath(cand, shipped_path)) return;
    }
#endif
#ifdef CLHGEMM_TUNING_FROM_BINDIR
    if (dir[0]) {
        snprintf(cand, sizeof cand, "%s/%s", dir, CLHGEMM_TUNING_FROM_BINDIR);
        if (is_dir(cand) && realpath(cand, shipped_path)) return;
    }
#endif
#if defined(CLHGEMM_BUILD_TREE_DIR) && defined(CLHGEMM_SOURCE_TUNING_DIR)
    char build[PATH_MAX];
    if (obj[0] && realpath(CLHGEMM_BUILD_TREE_DIR, build)) {
        size_t n = strlen(build);
        if (!strncmp(obj, build, n) && obj[n] == '/') {
            snprintf(shipped_path, sizeof shipped_path, "%s", CLHGEMM_SOURCE_TUNING_DIR);
            return;
        }
    }
#endif
#ifdef CLHGEMM_INSTALL_TUNING_DIR
    snprintf(shipped_path, sizeof shipped_path, "%s", CLHGEMM_INSTALL_TUNING_DIR);
#endif
    (void)cand;
}

const char *chg_tuning_shipped_dir(char *buf, size_t len)
{
    const char *v = chg_getenv("CLHGEMM_SHIPPED_TUNING_DIR");
    if (v) {
        if (is_off(v)) return NULL;
        snprintf(buf, len, "%s", v);
        return buf;
    }
    pthread_once(&shipped_once, shipped_init);
    if (!shipped_path[0]) return NULL;
    snprintf(buf, len, "%s", shipped_path);
    return buf;
}

/* ---- the cache of parsed directories ------------------------------------------------------ */

typedef struct dbfile_s {
    chg_tuning_source_t src;
    chg_tuning_file_t file;
} dbfile_t;

typedef struct dbset_s {
    char *key;          /* user dir "\n" shipped dir */
    int nfiles;
    dbfile_t *files;    /* user files (sorted by name), then shipped files */
    struct dbset_s *next;
} dbset_t;

typedef struct resolved_s {
    const dbset_t *set;
    char name[256], driver[128], platform[256];
    chg_precision_t prec;
    chg_tuning_entry_t entry;
    struct resolved_s *next;
} resolved_t;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static dbset_t *g_sets;
static resolved_t *g_resolved;
static int g_bypass;

void chg_tuning_set_bypass(int on)
{
    pthread_mutex_lock(&g_lock);
    g_bypass = on;
    pthread_mutex_unlock(&g_lock);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the *.json files of dir (sorted) to set. */
static void load_dir(dbset_t *set, const char *dir, int user)
{
    DIR *d = opendir(dir);
    if (!d) {
        chg_log(2, "tuning: no %s database directory %s", user ? "user" : "shipped", dir);
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".json")) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            char **g = realloc(names, cap * sizeof *g);
            if (!g) break;
            names = g;
        }
        if (!(names[n] = strdup(de->d_name))) break;
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    dbfile_t *grown = realloc(set->files, (set->nfiles + n) * sizeof *grown);
    if (grown) set->files = grown;
    for (size_t i = 0; i < n; i++) {
        if (grown) {
            dbfile_t *f = &set->files[set->nfiles++];
            memset(f, 0, sizeof *f);
            snprintf(f->src.path, sizeof f->src.path, "%s/%s", dir, names[i]);
            f->src.user = user;
            if (chg_tuning_file_read(f->src.path, &f->file, f->src.reason,
                                     sizeof f->src.reason) == 0) {
                f->src.ok = 1;
                f->src.records = f->file.count;
                snprintf(f->src.library_version, sizeof f->src.library_version, "%s",
                         f->file.library_version);
                chg_log(2, "tuning: %s database %s: %d entries", user ? "user" : "shipped",
                        f->src.path, f->file.count);
            } else {
                chg_log(1, "tuning: rejected %s: %s", f->src.path, f->src.reason);
            }
        }
        free(names[i]);
    }
    free(names);
}

/* The parsed databases for the directories in effect (g_lock held). */
static const dbset_t *current_set(void)
{
    char user[PATH_MAX], shipped[PATH_MAX];
    const char *u = chg_tuning_user_dir(user, sizeof user);
    const char *s = chg_tuning_shipped_dir(shipped, sizeof shipped);
    char key[2 * PATH_MAX + 8];
    snprintf(key, sizeof key, "%s\n%s", u ? u : "", s ? s : "");
    for (dbset_t *set = g_sets; set; set = set->next)
        if (!strcmp(set->key, key)) return set;
    dbset_t *set = calloc(1, sizeof *set);
    if (!set || !(set->key = strdup(key))) {
        free(set);
        return NULL;
    }
    if (u) load_dir(set, u, 1);
    if (s && (!u || strcmp(u, s))) load_dir(set, s, 0);
    set->next = g_sets;
    g_sets = set;
    return set;
}

int chg_tuning_sources(chg_tuning_source_t *out, int cap)
{
    pthread_mutex_lock(&g_lock);
    const dbset_t *set = current_set();
    int n = set ? set->nfiles : 0;
    for (int i = 0; i < n && i < cap; i++) out[i] = set->files[i].src;
    pthread_mutex_unlock(&g_lock);
    return n;
}

void chg_tuning_reload(void)
{
    pthread_mutex_lock(&g_lock);
    while (g_sets) {
        dbset_t *s = g_sets;
        g_sets = s->next;
        for (int i = 0; i < s->nfiles; i++) chg_tuning_file_free(&s->files[i].file);
        free(s->files);
        free(s->key);
        free(s);
    }
    while (g_resolved) {
        resolved_t *r = g_resolved;
        g_resolved = r->next;
        free(r);
    }
    pthread_mutex_unlock(&g_lock);
}

/* ---- lookup ------------------------------------------------------------------------------ */

static void note_add(chg_tuning_entry_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(chg_tuning_entry_t *e, const char *fmt, ...)
{
    size_t used = strlen(e->note);
    if (used + 8 >= sizeof e->note) return;
    if (used) {
        e->note[used++] = ';';
        e->note[used++] = ' ';
        e->note[used] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->note + used, sizeof e->note - used, fmt, ap);
    va_end(ap);
}

static void builtin_prec(const chg_device_t *dev, chg_precision_t prec, chg_tuning_prec_t *p)
{
    memset(p, 0, sizeof *p);
    chg_gemm_params_default(dev, prec, &p->gemm);
    chg_copy_params_default(dev, CHG_COPY_PACK, prec, &p->pack);
    p->pack.src_contig_i = 1;
    chg_copy_params_default(dev, CHG_COPY_PACK, prec, &p->pack_t);
    p->pack_t.src_contig_i = 0;
}

static int level_match(chg_tuning_level_t level, const chg_tuning_record_t *r,
                       const chg_device_t *dev)
{
    switch (level) {
    case CHG_TUNING_EXACT:
        return !strcmp(r->name, dev->info.name) && !strcmp(r->driver, dev->info.driver_version);
    case CHG_TUNING_ARCH: return !strcmp(r->arch, dev->arch_key);
    case CHG_TUNING_VENDOR: return !strcmp(r->vendor_key, dev->vendor_key);
    default: return 0;
    }
}

static void resolve(const dbset_t *set, const chg_device_t *dev, chg_precision_t prec,
                    chg_tuning_entry_t *e)
{
    const char pc = prec == CHG_F64 ? 'd' : 's';
    memset(e, 0, sizeof *e);
    builtin_prec(dev, prec, &e->prec);
    snprintf(e->source, sizeof e->source, "built-in");
    snprintf(e->key, sizeof e->key, "built-in defaults for the device class");
    for (int i = 0; set && i < set->nfiles; i++)
        if (!set->files[i].src.ok)
            note_add(e, "rejected %s: %s", set->files[i].src.path, set->files[i].src.reason);
    int found = 0;
    /* Levels from exact down to vendor; below the exact level two passes each: first the
     * entries of the same device name (another driver), then the other devices. */
    static const struct {
        int level, same_name_only;
    } order[] = {{CHG_TUNING_EXACT, 0}, {CHG_TUNING_ARCH, 1}, {CHG_TUNING_ARCH, 0},
                 {CHG_TUNING_VENDOR, 1}, {CHG_TUNING_VENDOR, 0}};
    for (size_t oi = 0; set && oi < sizeof order / sizeof order[0] && !found; oi++) {
        const int level = order[oi].level, same_name_only = order[oi].same_name_only;
        for (int fi = 0; fi < set->nfiles && !found; fi++) {
            const dbfile_t *f = &set->files[fi];
            for (int ri = 0; f->src.ok && ri < f->file.count && !found; ri++) {
                const chg_tuning_record_t *r = &f->file.records[ri];
                if (!level_match((chg_tuning_level_t)level, r, dev)) continue;
                if (same_name_only != !strcmp(r->name, dev->info.name) && level < CHG_TUNING_EXACT)
                    continue;
                /* An entry already passed over at a more specific level is not news again. */
                if (level < CHG_TUNING_EXACT && level_match(CHG_TUNING_EXACT, r, dev)) continue;
                if (level < CHG_TUNING_ARCH && level_match(CHG_TUNING_ARCH, r, dev)) continue;
                const chg_tuning_prec_t *p = &r->prec[prec];
                if (!p->present) {
                    note_add(e, "%s entry \"%s\" (%s) in %s has no %cgemm parameters",
                             chg_tuning_level_name((chg_tuning_level_t)level), r->name, r->driver,
                             f->src.path, pc);
                    continue;
                }
                char why[200];
                if (!chg_gemm_params_valid(dev, prec, &p->gemm, why, sizeof why)) {
                    note_add(e, "%s entry \"%s\" (%s) in %s: %cgemm parameters do not fit this "
                                "device: %s",
                             chg_tuning_level_name((chg_tuning_level_t)level), r->name, r->driver,
                             f->src.path, pc, why);
                    continue;
                }
                found = 1;
                const chg_tuning_prec_t builtin = e->prec;
                e->prec = *p;
                e->level = (chg_tuning_level_t)level;
                snprintf(e->source, sizeof e->source, "%s", f->src.path);
                snprintf(e->key, sizeof e->key, "%s | %s (%s, %s)", r->name, r->driver, r->arch,
                         r->vendor_key);
                chg_copy_params_t pk = p->pack, pt = p->pack_t;
                pk.kind = pt.kind = CHG_COPY_PACK;
                pk.prec = pt.prec = prec;
                pk.src_contig_i = 1;
                pt.src_contig_i = 0;
                if (p->has_copy && chg_copy_params_valid(dev, &pk, why, sizeof why) &&
                    chg_copy_params_valid(dev, &pt, why, sizeof why)) {
                    e->prec.pack = pk;
                    e->prec.pack_t = pt;
                } else {
                    if (p->has_copy)
                        note_add(e, "copy parameters of \"%s\" do not fit this device (%s): "
                                    "built-in copy kernels",
                                 r->name, why);
                    e->prec.has_copy = 0;
                    e->prec.pack = builtin.pack;
                    e->prec.pack_t = builtin.pack_t;
                }
            }
        }
    }
    /* Pipeline figures describe one machine's bus and host: only an exact entry gives them. */
    for (int fi = 0; set && fi < set->nfiles && !e->pipeline.present; fi++) {
        const dbfile_t *f = &set->files[fi];
        for (int ri = 0; f->src.ok && ri < f->file.count; ri++) {
            const chg_tuning_record_t *r = &f->file.records[ri];
            if (r->pipeline.present && level_match(CHG_TUNING_EXACT, r, dev)) {
                e->pipeline = r->pipeline;
                snprintf(e->pipeline_source, sizeof e->pipeline_source, "%s", f->src.path);
                break;
            }
        }
    }
    /* The split model likewise (and of this precision). */
    for (int fi = 0; set && fi < set->nfiles && !e->cpumodel.present; fi++) {
        const dbfile_t *f = &set->files[fi];
        for (int ri = 0; f->src.ok && ri < f->file.count; ri++) {
            const chg_tuning_record_t *r = &f->file.records[ri];
            if (r->cpumodel[prec].present && level_match(CHG_TUNING_EXACT, r, dev)) {
                e->cpumodel = r->cpumodel[prec];
                snprintf(e->cpumodel_source, sizeof e->cpumodel_source, "%s", f->src.path);
                break;
            }
        }
    }
    char gp[160];
    chg_gemm_params_format(&e->prec.gemm, gp, sizeof gp);
    chg_log(1, "tuning: %cgemm on %s: %s (%s, %s) %s", pc, dev->info.name,
            chg_tuning_level_name(e->level), e->source, e->key, gp);
    if (e->note[0]) chg_log(1, "tuning: %cgemm on %s: passed over: %s", pc, dev->info.name, e->note);
}

chg_tuning_level_t chg_tuning_lookup(const chg_device_t *dev, chg_precision_t prec,
                                     chg_tuning_entry_t *out)
{
    const char *mode = chg_getenv("CLHGEMM_TUNING");
    pthread_mutex_lock(&g_lock);
    if (g_bypass || is_off(mode)) {
        pthread_mutex_unlock(&g_lock);
        memset(out, 0, sizeof *out);
        builtin_prec(dev, prec, &out->prec);
        snprintf(out->source, sizeof out->source, "built-in");
        snprintf(out->key, sizeof out->key, "tuning databases off (%s)",
                 is_off(mode) ? "CLHGEMM_TUNING=off" : "bypass");
        return CHG_TUNING_BUILTIN;
    }
    const dbset_t *set = current_set();
    resolved_t *r = g_resolved;
    for (; r; r = r->next)
        if (r->set == set && r->prec == prec && !strcmp(r->name, dev->info.name) &&
            !strcmp(r->driver, dev->info.driver_version) &&
            !strcmp(r->platform, dev->info.platform_name))
            break;
    if (!r && (r = calloc(1, sizeof *r))) {
        r->set = set;
        r->prec = prec;
        snprintf(r->name, sizeof r->name, "%s", dev->info.name);
        snprintf(r->driver, sizeof r->driver, "%s", dev->info.driver_version);
        snprintf(r->platform, sizeof r->platform, "%s", dev->info.platform_name);
        resolve(set, dev, prec, &r->entry);
        r->next = g_resolved;
        g_resolved = r;
    }
    if (r) *out = r->entry;
    else resolve(set, dev, prec, out);
    pthread_mutex_unlock(&g_lock);
    return out->level;
}

void chg_tuning_copy_params(const chg_device_t *dev, chg_precision_t prec, chg_copy_kind_t kind,
                            int src_contig_i, chg_copy_params_t *out)
{
    if (kind != CHG_COPY_PACK) {
        chg_copy_params_default(dev, kind, prec, out);
        return;
    }
    chg_tuning_entry_t e;
    chg_tuning_lookup(dev, prec, &e);
    *out = src_contig_i ? e.prec.pack : e.prec.pack_t;
    out->kind = CHG_COPY_PACK;
    out->prec = prec;
    out->src_contig_i = src_contig_i != 0;
}

double chg_tuning_kernel_rate(const chg_tuning_prec_t *p, double m, double n, double k)
{
    if (!p || p->nrates <= 0 || m <= 0 || n <= 0 || k <= 0) return 0;
    int best = 0;
    double bd = INFINITY;
    for (int i = 0; i < p->nrates; i++) {
        const chg_tuning_rate_t *r = &p->rates[i];
        if (r->m <= 0 || r->n <= 0 || r->k <= 0) continue;
        const double dm = log(m / r->m), dn = log(n / r->n), dk = log(k / r->k);
        const double d = dm * dm + dn * dn + dk * dk;
        if (d < bd) {
            bd = d;
            best = i;
        }
    }
    const chg_tuning_rate_t *r = &p->rates[best];
    double rate = r->gflops * 1e9;
    /* A smaller product keeps fewer compute units busy: scale by the area ratio below it. */
    const double area = (m * n) / ((double)r->m * r->n);
    if (area < 1) rate *= area;
    return rate;
}
