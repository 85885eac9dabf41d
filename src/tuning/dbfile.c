/*
 * dbfile.c -- the tuning database's records in memory: a file's records (init, free, find) and
 * the merge of a new record into them (upsert), a record's copy and its device identity; plus
 * the parameter keys of the files (shared with the parser and the writer through dbfile_int.h)
 * and the copy-parameter text of clhgemm-tune and clhgemm-info. See dbfile.h for the contract
 * and docs/TUNING.md for the schema.
 *
 * The file format is cut by step: this file (records), dbfile_value.c (checked readers of one
 * JSON member), dbfile_parse.c (the schema: parse, validate, read a file) and dbfile_write.c
 * (records to JSON, written atomically).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tuning/dbfile.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tuning/dbfile_int.h"

/* ---- parameter keys and the copy-parameter text ----------------------------------------- */

const chg_db_field_t chg_db_copy_fields[] = {
    {"TILE_I", offsetof(chg_copy_params_t, tile_i)}, {"TILE_P", offsetof(chg_copy_params_t, tile_p)},
    {"WPT_I", offsetof(chg_copy_params_t, wpt_i)},   {"WPT_P", offsetof(chg_copy_params_t, wpt_p)},
    {"UD_I", offsetof(chg_copy_params_t, ud_i)},     {"UD_P", offsetof(chg_copy_params_t, ud_p)},
    {"PAD", offsetof(chg_copy_params_t, pad)},
};
const size_t chg_db_ncopy_fields = sizeof chg_db_copy_fields / sizeof chg_db_copy_fields[0];

const chg_db_field_t chg_db_gemm_fields[] = {
    {"MWG", offsetof(chg_gemm_params_t, mwg)},     {"NWG", offsetof(chg_gemm_params_t, nwg)},
    {"KWG", offsetof(chg_gemm_params_t, kwg)},     {"MDIMC", offsetof(chg_gemm_params_t, mdimc)},
    {"NDIMC", offsetof(chg_gemm_params_t, ndimc)}, {"VWM", offsetof(chg_gemm_params_t, vwm)},
    {"VWN", offsetof(chg_gemm_params_t, vwn)},     {"SA", offsetof(chg_gemm_params_t, sa)},
    {"SB", offsetof(chg_gemm_params_t, sb)},       {"KWI", offsetof(chg_gemm_params_t, kwi)},
};
const size_t chg_db_ngemm_fields = sizeof chg_db_gemm_fields / sizeof chg_db_gemm_fields[0];

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
        while (i < chg_db_ncopy_fields &&
               !(strlen(chg_db_copy_fields[i].name) == klen &&
                 strncasecmp(chg_db_copy_fields[i].name, key, klen) == 0))
            i++;
        if (i == chg_db_ncopy_fields) return -1;
        CHG_DB_FIELD(&q, chg_db_copy_fields[i].off) = (int)v;
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
        const chg_tuning_prec_t *x = &rec->prec[p];
        if (x->present && prec[p].present) {
            /* a precision without the TRSM or the factorization figures (a GEMM-only writer)
             * keeps the stored ones; the widths go as a set, since they share their size */
            const chg_tuning_prec_t was = prec[p];
            prec[p] = *x;
            if (!x->trsm_nb) {
                prec[p].trsm_nb = was.trsm_nb;
                prec[p].trsm_size = was.trsm_size;
                prec[p].trsm_gflops = was.trsm_gflops;
            }
            if (!x->factor_nb[0] && !x->factor_nb[1] && !x->factor_nb[2]) {
                memcpy(prec[p].factor_nb, was.factor_nb, sizeof was.factor_nb);
                prec[p].factor_size = was.factor_size;
                memcpy(prec[p].factor_gflops, was.factor_gflops, sizeof was.factor_gflops);
            }
        } else if (x->present) {
            prec[p] = *x;
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
