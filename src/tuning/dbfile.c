/*
 * dbfile.c -- the tuning database's file format: records, and their JSON files parsed and
 * validated with cJSON, written atomically. See dbfile.h for the contract and docs/TUNING.md
 * for the schema.
 *
 * Why whole-file rejection: a file that breaks the schema anywhere was written by something we
 * do not understand (another version, a hand edit gone wrong, a truncated write), so none of it
 * is trusted. Device fitness, on the other hand, is decided per entry at lookup (resolve.c),
 * because one file legitimately holds entries for many devices.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tuning/dbfile.h"

#include <cjson/cJSON.h>
#include <ctype.h>
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

/* JSON paths in error messages are cut at their buffer size on purpose; GCC's warning about
 * possible truncation says nothing useful here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

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
        if (rec->prec[p].present && !rec->prec[p].trsm_nb && prec[p].present) {
            /* a precision without the TRSM figure (a GEMM-only writer) keeps the stored one */
            const chg_tuning_prec_t was = prec[p];
            prec[p] = rec->prec[p];
            prec[p].trsm_nb = was.trsm_nb;
            prec[p].trsm_size = was.trsm_size;
            prec[p].trsm_gflops = was.trsm_gflops;
        } else if (rec->prec[p].present) {
            prec[p] = rec->prec[p];
        }
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
    /* the direct kernel (optional; absent means the packed kernel; a class's only) */
    get_int(o, "DK", path, 0, 1, &g->dk, e);
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

/* precisions.X.route: latency_us > 0 (required); cpu_threads and cpu_gflops (4 rates > 0, at
 * n = 64, 256, 1024, 2048) together or not at all. */
static void parse_route(const cJSON *o, const char *path, chg_tuning_route_t *r, perr_t *e)
{
    char sub[256];
    memset(r, 0, sizeof *r);
    r->present = 1;
    get_real(o, "latency_us", path, 1, &r->latency_us, e);
    if (!e->failed && !(r->latency_us > 0)) fail(e, "%s.latency_us: must be > 0", path);
    get_int(o, "cpu_threads", path, 0, 4096, &r->cpu_threads, e);
    const cJSON *a = get_arr(o, "cpu_gflops", path, 0, e);
    if (e->failed) return;
    if (!a != !member(o, "cpu_threads")) {
        fail(e, "%s: cpu_threads and cpu_gflops go together", path);
        return;
    }
    if (!a) return;
    if (r->cpu_threads < 1) {
        fail(e, "%s.cpu_threads: must be >= 1", path);
        return;
    }
    snprintf(sub, sizeof sub, "%s.cpu_gflops", path);
    if (cJSON_GetArraySize(a) != CHG_TUNING_ROUTE_SIZES) {
        fail(e, "%s: expected %d numbers (n = 64, 256, 1024, 2048), got %d", sub,
             CHG_TUNING_ROUTE_SIZES, cJSON_GetArraySize(a));
        return;
    }
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || !(v->valuedouble > 0)) {
            fail(e, "%s[%d]: expected a number > 0", sub, i);
            return;
        }
        r->cpu_gflops[i++] = v->valuedouble;
    }
}

/* precisions.X.classes: {"<class>": {GEMM keys..., "split_k", "m", "n", "k", "gflops"}}; a
 * name that is no class, or a configuration that breaks the GEMM keys' rules, rejects the
 * file (so does a split_k above CHG_TUNING_MAX_SPLIT_K). */
static void parse_classes(const cJSON *o, const char *path, chg_tuning_prec_t *p, perr_t *e)
{
    char sub[256];
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        const int cls = chg_shape_class_parse(it->string);
        if (cls < 0) {
            fail(e, "%s.%s: not a shape class (large, medium, small, rank_k, large_k, tall, wide)",
                 path, it->string ? it->string : "");
            return;
        }
        snprintf(sub, sizeof sub, "%s.%s", path, it->string);
        if (!cJSON_IsObject(it)) {
            fail(e, "%s: expected an object", sub);
            return;
        }
        chg_tuning_class_t *c = &p->classes[cls];
        memset(c, 0, sizeof *c);
        parse_gemm(it, sub, &c->gemm, e);
        c->split_k = 1;
        get_int(it, "split_k", sub, 0, CHG_TUNING_MAX_SPLIT_K, &c->split_k, e);
        get_int(it, "m", sub, 0, 1 << 30, &c->m, e);
        get_int(it, "n", sub, 0, 1 << 30, &c->n, e);
        get_int(it, "k", sub, 0, 1 << 30, &c->k, e);
        get_num(it, "gflops", sub, 0, &c->gflops, e);
        if (e->failed) return;
        c->present = 1;
    }
}

/* precisions.X: "trsm_nb" (a multiple of 16 in [16, 4096]), with "trsm_size" and
 * "trsm_gflops" (the timing it was chosen on; optional). */
static void parse_trsm(const cJSON *o, const char *path, chg_tuning_prec_t *p, perr_t *e)
{
    if (!member(o, "trsm_nb")) return;
    get_int(o, "trsm_nb", path, 1, INT_MAX, &p->trsm_nb, e);
    get_int(o, "trsm_size", path, 0, 1 << 30, &p->trsm_size, e);
    get_num(o, "trsm_gflops", path, 0, &p->trsm_gflops, e);
    if (e->failed) return;
    if (p->trsm_nb < CHG_TUNING_TRSM_NB_STEP || p->trsm_nb > CHG_TUNING_TRSM_NB_MAX ||
        p->trsm_nb % CHG_TUNING_TRSM_NB_STEP)
        fail(e, "%s.trsm_nb: %d is not a multiple of %d from %d to %d", path, p->trsm_nb,
             CHG_TUNING_TRSM_NB_STEP, CHG_TUNING_TRSM_NB_STEP, CHG_TUNING_TRSM_NB_MAX);
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
    snprintf(sub, sizeof sub, "%s.route", path);
    const cJSON *rt = get_obj(o, "route", path, 0, e);
    if (rt) parse_route(rt, sub, &p->route, e);
    snprintf(sub, sizeof sub, "%s.classes", path);
    const cJSON *cl = get_obj(o, "classes", path, 0, e);
    if (cl && !e->failed) parse_classes(cl, sub, p, e);
    if (!e->failed) parse_trsm(o, path, p, e);
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
    if (g->dk) cJSON_AddNumberToObject(o, "DK", g->dk);
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

static void add_route(cJSON *po, const chg_tuning_route_t *r)
{
    cJSON *o = cJSON_AddObjectToObject(po, "route");
    cJSON_AddNumberToObject(o, "latency_us", r->latency_us);
    int rates = r->cpu_threads > 0;
    for (int i = 0; i < CHG_TUNING_ROUTE_SIZES; i++) rates &= r->cpu_gflops[i] > 0;
    if (rates) { /* a reader rejects rates that are not all positive: none rather than those */
        cJSON_AddNumberToObject(o, "cpu_threads", r->cpu_threads);
        cJSON *a = cJSON_AddArrayToObject(o, "cpu_gflops");
        for (int i = 0; i < CHG_TUNING_ROUTE_SIZES; i++)
            cJSON_AddItemToArray(a, cJSON_CreateNumber(r->cpu_gflops[i]));
    }
}

/* precisions.s / precisions.d */
static void add_prec(cJSON *ps, int p, const chg_tuning_prec_t *x)
{
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
    if (x->route.present && x->route.latency_us > 0) add_route(po, &x->route);
    cJSON *cl = NULL;
    for (int i = 0; i < CHG_SHAPE_NCLASSES; i++) {
        const chg_tuning_class_t *c = &x->classes[i];
        if (!c->present) continue;
        if (!cl) cl = cJSON_AddObjectToObject(po, "classes");
        cJSON *co = cJSON_AddObjectToObject(cl, chg_shape_class_name(i));
        add_gemm(co, &c->gemm);
        cJSON_AddNumberToObject(co, "split_k", c->split_k);
        if (c->m > 0 && c->n > 0 && c->k > 0) {
            cJSON_AddNumberToObject(co, "m", c->m);
            cJSON_AddNumberToObject(co, "n", c->n);
            cJSON_AddNumberToObject(co, "k", c->k);
            cJSON_AddNumberToObject(co, "gflops", c->gflops);
        }
    }
    if (x->trsm_nb > 0) {
        cJSON_AddNumberToObject(po, "trsm_nb", x->trsm_nb);
        if (x->trsm_size > 0) {
            cJSON_AddNumberToObject(po, "trsm_size", x->trsm_size);
            cJSON_AddNumberToObject(po, "trsm_gflops", x->trsm_gflops);
        }
    }
}

/* An array of {xkey: x, vkey: value} rows. */
static void add_points(cJSON *o, const char *key, const char *xkey, const char *vkey,
                       const chg_tuning_point_t *pts, int n)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);
    for (int i = 0; i < n; i++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, xkey, pts[i].x);
        cJSON_AddNumberToObject(row, vkey, pts[i].value);
        cJSON_AddItemToArray(a, row);
    }
}

static void add_pipeline(cJSON *o, const chg_tuning_pipeline_t *pl)
{
    cJSON *po = cJSON_AddObjectToObject(o, "pipeline");
    cJSON_AddNumberToObject(po, "h2d_pageable_gbs", pl->h2d_pageable_gbs);
    cJSON_AddNumberToObject(po, "d2h_pageable_gbs", pl->d2h_pageable_gbs);
    cJSON_AddNumberToObject(po, "h2d_pinned_gbs", pl->h2d_pinned_gbs);
    cJSON_AddNumberToObject(po, "d2h_pinned_gbs", pl->d2h_pinned_gbs);
    if (pl->pack_threads > 0) {
        cJSON *t2 = cJSON_AddObjectToObject(po, "pack_threads");
        cJSON_AddNumberToObject(t2, "best", pl->pack_threads);
        add_points(t2, "gbs", "threads", "gbs", pl->pack_gbs, pl->npack);
    }
    if (pl->queues > 0) {
        cJSON *q = cJSON_AddObjectToObject(po, "queues");
        cJSON_AddNumberToObject(q, "best", pl->queues);
        add_points(q, "seconds", "queues", "seconds", pl->queue_seconds, pl->nqueue);
    }
}

/* The model object: the record's other keys kept verbatim, cpu_share from the parsed models. */
static void add_model(cJSON *o, const chg_tuning_record_t *r)
{
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
    for (int p = 0; p < 2; p++)
        if (r->prec[p].present) add_prec(ps, p, &r->prec[p]);
    if (r->pipeline.present) add_pipeline(o, &r->pipeline);
    add_model(o, r);
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
