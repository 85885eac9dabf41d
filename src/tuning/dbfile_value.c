/*
 * dbfile_value.c -- the checked readers of one JSON member that the tuning database's parser
 * (dbfile_parse.c) validates a file with: each checks presence, type and range, and a failure
 * names the member's path in the reason (declared in dbfile_int.h).
 *
 * Why apart from the parser: these are the format's rules for a single value, the same for
 * every key; the parser is the schema (which keys, which bounds), and reads as one.
 */
#include "tuning/dbfile_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void chg_db_fail(chg_db_err_t *e, const char *fmt, ...)
{
    if (e->failed) return;
    e->failed = 1;
    if (!e->why || !e->len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->why, e->len, fmt, ap);
    va_end(ap);
}

/* The member key of obj, or NULL; a required one (req = 1) that is missing fails e. */
static const cJSON *present(const cJSON *obj, const char *key, const char *path, int req,
                            chg_db_err_t *e)
{
    const cJSON *it = chg_db_member(obj, key);
    if (!it && req) chg_db_fail(e, "%s.%s: missing", path, key);
    return it;
}

void chg_db_get_str(const cJSON *obj, const char *key, const char *path, int req, char *buf,
                    size_t len, chg_db_err_t *e)
{
    const cJSON *it = present(obj, key, path, req, e);
    if (!it) return;
    if (!cJSON_IsString(it) || !it->valuestring) {
        chg_db_fail(e, "%s.%s: expected a string", path, key);
        return;
    }
    if (strlen(it->valuestring) >= len) {
        chg_db_fail(e, "%s.%s: longer than %zu characters", path, key, len - 1);
        return;
    }
    snprintf(buf, len, "%s", it->valuestring);
}

/* A finite number, also >= 0 when nonneg. */
static void get_double(const cJSON *obj, const char *key, const char *path, int req, int nonneg,
                       double *out, chg_db_err_t *e)
{
    const cJSON *it = present(obj, key, path, req, e);
    if (!it) return;
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || (nonneg && it->valuedouble < 0)) {
        chg_db_fail(e, nonneg ? "%s.%s: expected a number >= 0" : "%s.%s: expected a finite number",
                    path, key);
        return;
    }
    *out = it->valuedouble;
}

void chg_db_get_num(const cJSON *obj, const char *key, const char *path, int req, double *out,
                    chg_db_err_t *e)
{
    get_double(obj, key, path, req, 1, out, e);
}

void chg_db_get_real(const cJSON *obj, const char *key, const char *path, int req, double *out,
                     chg_db_err_t *e)
{
    get_double(obj, key, path, req, 0, out, e);
}

void chg_db_get_uint(const cJSON *obj, const char *key, const char *path, int req, double max,
                     unsigned long long *out, chg_db_err_t *e)
{
    double v = -1;
    const cJSON *it = present(obj, key, path, req, e);
    if (!it) return;
    if (cJSON_IsNumber(it)) v = it->valuedouble;
    if (!(v >= 0 && v <= max && v == floor(v))) {
        chg_db_fail(e, "%s.%s: expected an integer from 0 to %.0f", path, key, max);
        return;
    }
    *out = (unsigned long long)v;
}

void chg_db_get_int(const cJSON *obj, const char *key, const char *path, int req, int max,
                    int *out, chg_db_err_t *e)
{
    unsigned long long v = 0;
    int before = e->failed;
    chg_db_get_uint(obj, key, path, req, max, &v, e);
    if (!before && !e->failed && chg_db_member(obj, key)) *out = (int)v;
}

/* A member that is_type accepts (what: its name in the reason), or NULL. */
static const cJSON *get_typed(const cJSON *obj, const char *key, const char *path, int req,
                              cJSON_bool (*is_type)(const cJSON *), const char *what,
                              chg_db_err_t *e)
{
    const cJSON *it = present(obj, key, path, req, e);
    if (!it) return NULL;
    if (!is_type(it)) {
        chg_db_fail(e, "%s.%s: expected %s", path, key, what);
        return NULL;
    }
    return it;
}

const cJSON *chg_db_get_obj(const cJSON *obj, const char *key, const char *path, int req,
                            chg_db_err_t *e)
{
    return get_typed(obj, key, path, req, cJSON_IsObject, "an object", e);
}

const cJSON *chg_db_get_arr(const cJSON *obj, const char *key, const char *path, int req,
                            chg_db_err_t *e)
{
    return get_typed(obj, key, path, req, cJSON_IsArray, "an array", e);
}
