/*
 * dbfile_int.h -- what the parts of the tuning database's file format share (private to
 * src/tuning/dbfile*.c; users include dbfile.h): the key tables of the GEMM and copy parameters
 * (dbfile.c: the copy-parameter text; dbfile_parse.c and dbfile_write.c: their JSON objects), and
 * the checked readers of JSON members that the parser validates with (dbfile_value.c).
 *
 * Named apart from dbfile.h so that the parts do not depend on the records' module (and it not
 * on them): this header includes only what its declarations need.
 */
#ifndef CHG_TUNING_DBFILE_INT_H
#define CHG_TUNING_DBFILE_INT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "kernels/codegen.h"

/* JSON paths in error messages are cut at their buffer size on purpose; GCC's warning about
 * possible truncation says nothing useful here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* ---- parameter keys (dbfile.c) -------------------------------------------------------------- */

/* A parameter's key in the files and the offset of its int in the parameter struct. */
typedef struct chg_db_field_s {
    const char *name;
    size_t off;
} chg_db_field_t;

extern const chg_db_field_t chg_db_copy_fields[]; /* chg_copy_params_t: TILE_I .. PAD */
extern const size_t chg_db_ncopy_fields;
extern const chg_db_field_t chg_db_gemm_fields[]; /* chg_gemm_params_t: MWG .. KWI (required) */
extern const size_t chg_db_ngemm_fields;

/* The int at offset off of the struct at p. */
#define CHG_DB_FIELD(p, off) (*(int *)((char *)(p) + (off)))

/* ---- checked readers of JSON members (dbfile_value.c) --------------------------------------- */

/* The first reason a parse fails for, written into why (len bytes); later ones are dropped. */
typedef struct chg_db_err_s {
    char *why;
    size_t len;
    int failed;
} chg_db_err_t;

void chg_db_fail(chg_db_err_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline const cJSON *chg_db_member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Each reads obj's member key, named path.key in a reason: a required one (req = 1) that is
 * missing, or a member of the wrong type or range, fails e; an optional one that is missing
 * leaves *out as it was. */
/* A string shorter than len, into buf. */
void chg_db_get_str(const cJSON *obj, const char *key, const char *path, int req, char *buf,
                    size_t len, chg_db_err_t *e);
/* A finite number >= 0. */
void chg_db_get_num(const cJSON *obj, const char *key, const char *path, int req, double *out,
                    chg_db_err_t *e);
/* Any finite number (model coefficients may be negative). */
void chg_db_get_real(const cJSON *obj, const char *key, const char *path, int req, double *out,
                     chg_db_err_t *e);
/* A non-negative integer up to max. */
void chg_db_get_uint(const cJSON *obj, const char *key, const char *path, int req, double max,
                     unsigned long long *out, chg_db_err_t *e);
void chg_db_get_int(const cJSON *obj, const char *key, const char *path, int req, int max,
                    int *out, chg_db_err_t *e);
/* An object or an array: the member, or NULL (missing or failed). */
const cJSON *chg_db_get_obj(const cJSON *obj, const char *key, const char *path, int req,
                            chg_db_err_t *e);
const cJSON *chg_db_get_arr(const cJSON *obj, const char *key, const char *path, int req,
                            chg_db_err_t *e);

#endif
