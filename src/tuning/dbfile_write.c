/*
 * dbfile_write.c -- the tuning database's schema on writing: records turned into the JSON of
 * docs/TUNING.md (what a reader accepts: an optional part is left out rather than written
 * invalid), and the text written atomically -- a temporary file in the same directory renamed
 * over the old one, the directory created. See dbfile.h for the contract.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tuning/dbfile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clhgemm_version.h"
#include "tuning/dbfile_int.h"

/* A precision's key in "precisions" and "model.cpu_share". */
static const char *prec_key(int p) { return p == CHG_F64 ? "d" : "s"; }

static void add_gemm(cJSON *o, const chg_gemm_params_t *g)
{
    for (size_t i = 0; i < chg_db_ngemm_fields; i++) {
        const chg_db_field_t *f = &chg_db_gemm_fields[i];
        cJSON_AddNumberToObject(o, f->name, CHG_DB_FIELD(g, f->off));
    }
    if (g->mma) {
        cJSON_AddNumberToObject(o, "MMA", g->mma);
        cJSON_AddNumberToObject(o, "WM", g->wm);
    }
    if (g->swz) cJSON_AddNumberToObject(o, "SWZ", g->swz);
    if (g->dk) cJSON_AddNumberToObject(o, "DK", g->dk);
    if (g->pf >= 2) cJSON_AddNumberToObject(o, "PF", g->pf);
}

static void add_copy(cJSON *o, const chg_copy_params_t *c, double gbs)
{
    for (size_t i = 0; i < chg_db_ncopy_fields; i++) {
        const chg_db_field_t *f = &chg_db_copy_fields[i];
        cJSON_AddNumberToObject(o, f->name, CHG_DB_FIELD(c, f->off));
    }
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

/* The factorizations' panel widths that x has, each with its rate when the size is known. */
static void add_factor(cJSON *po, const chg_tuning_prec_t *x)
{
    static const char *const names[CHG_TUNING_FACTOR_KINDS] = CHG_TUNING_FACTOR_NAMES;
    int any = 0;
    for (int k = 0; k < CHG_TUNING_FACTOR_KINDS; k++) {
        if (x->factor_nb[k] <= 0) continue;
        char key[32];
        snprintf(key, sizeof key, "%s_nb", names[k]);
        cJSON_AddNumberToObject(po, key, x->factor_nb[k]);
        if (x->factor_size > 0) {
            snprintf(key, sizeof key, "%s_gflops", names[k]);
            cJSON_AddNumberToObject(po, key, x->factor_gflops[k]);
        }
        any = 1;
    }
    if (any && x->factor_size > 0) cJSON_AddNumberToObject(po, "factor_size", x->factor_size);
}

/* precisions.s / precisions.d */
static void add_prec(cJSON *ps, int p, const chg_tuning_prec_t *x)
{
    cJSON *po = cJSON_AddObjectToObject(ps, prec_key(p));
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
        if (i == CHG_SHAPE_RANK_K && c->k_max > CHG_SHAPE_RANK_K_MAX)
            cJSON_AddNumberToObject(co, "k_max", c->k_max);
        if (i == CHG_SHAPE_LARGE && c->k_min >= CHG_SHAPE_LARGE_K_MIN_LOW)
            cJSON_AddNumberToObject(co, "k_min", c->k_min);
        if (c->wgs_per_cu > 0) cJSON_AddNumberToObject(co, "wgs_per_cu", c->wgs_per_cu);
    }
    if (x->trsm_nb > 0) {
        cJSON_AddNumberToObject(po, "trsm_nb", x->trsm_nb);
        if (x->trsm_size > 0) {
            cJSON_AddNumberToObject(po, "trsm_size", x->trsm_size);
            cJSON_AddNumberToObject(po, "trsm_gflops", x->trsm_gflops);
        }
    }
    add_factor(po, x);
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
                cJSON_AddItemToObject(cs, prec_key(p), cpumodel_json(&r->cpumodel[p]));
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

/* text and a newline into path, atomically: a temporary file next to it (the directory created
 * first), synced, then renamed over path. Returns 0, or -1 with the reason in why. */
static int write_atomic(const char *path, const char *text, char *why, size_t why_len)
{
    char tmp[4200];
    const char *slash = strrchr(path, '/');
    const int dlen = slash ? (int)(slash - path + 1) : 0;
    snprintf(tmp, sizeof tmp, "%.*s.%s.XXXXXX", dlen, path, slash ? slash + 1 : path);
    if (make_parent_dirs(path) != 0) {
        snprintf(why, why_len, "cannot create the directory of %s: %s", path, strerror(errno));
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(why, why_len, "cannot create a file next to %s: %s", path, strerror(errno));
        return -1;
    }
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
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(why, why_len, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
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
    const int rc = write_atomic(path, text, why, why_len);
    cJSON_free(text);
    return rc;
}
