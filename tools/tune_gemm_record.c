/*
 * tune_gemm_record.c -- the record clhgemm-tune's GEMM search leaves in --out-dir and reads back:
 * a line of candidates.csv per candidate timed or failed (search seconds, device, driver,
 * precision, size, stage, parameters, status, kernel GFLOP/s, build seconds, check, reason), a
 * line of improvements.csv per new best, and with --resume the earlier run's candidates.csv
 * read back, so that the file's columns are written and parsed in one place. The search's clock
 * (this run's seconds plus the resumed run's) is kept here because both lines carry it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "tune_gemm_int.h"

double tg_search_seconds(const search_t *s) { return s->offset + (tune_now() - s->t_start); }

void tg_csv_candidate(search_t *s, const cand_t *c, const char *status, double build_s,
                      double check, const char *why)
{
    FILE *f = s->r->cands;
    if (!f) return;
    char pbuf[200];
    chg_gemm_params_format(&c->p, pbuf, sizeof pbuf);
    fprintf(f, "%.3f,\"%s\",\"%s\",%c,%d,%d,\"%s\",%s,%.3f,%.3f,%.3g,\"%s\"\n", tg_search_seconds(s),
            s->d->dev.info.name, s->d->dev.info.driver_version, s->pc, s->size,
            c->stage, pbuf, status, c->kgf > 0 ? c->kgf : 0.0, build_s, check, why ? why : "");
    fflush(f);
}

void tg_csv_improvement(search_t *s, const cand_t *c, const char *params)
{
    FILE *f = s->r->improve;
    if (!f) return;
    fprintf(f, "%.3f,\"%s\",%c,%d,%d,%.3f,\"%s\"\n", c->found_at, s->d->dev.info.name, s->pc,
            s->size, s->tried, c->kgf, params);
    fflush(f);
}

/* Marks the candidate of one line of candidates.csv done, if the line is this device's,
 * precision's and size's and its parameters are in the space. 1 if it was, else 0. */
static int resume_line(search_t *s, const char *line, double *offset)
{
    const chg_device_t *dev = &s->d->dev;
    /* elapsed,"name","driver",prec,size,stage,"params",status,kgf,... */
    double el;
    char name[300], driver[200], params[200], status[16];
    char pc;
    int size, stage;
    double kgf;
    if (sscanf(line, "%lf,\"%299[^\"]\",\"%199[^\"]\",%c,%d,%d,\"%199[^\"]\",%15[^,],%lf", &el,
               name, driver, &pc, &size, &stage, params, status, &kgf) != 9)
        return 0;
    if (strcmp(name, dev->info.name) || strcmp(driver, dev->info.driver_version) ||
        pc != s->pc || size != s->size)
        return 0;
    chg_gemm_params_t p;
    memset(&p, 0, sizeof p);
    if (chg_gemm_params_parse(params, &p)) return 0;
    int i = tg_find(s, &p);
    if (i < 0) return 0;
    s->c[i].state = ST_DONE;
    s->c[i].stage = (signed char)stage;
    s->c[i].kgf = strcmp(status, "ok") ? 0 : kgf;
    s->c[i].found_at = el;
    if (el > *offset) *offset = el;
    s->tried++;
    if (s->c[i].kgf <= 0) s->failed++;
    if (s->c[i].kgf > 0 && (s->best < 0 || s->c[i].kgf > s->c[s->best].kgf)) {
        s->best = i;
        s->best_at = el;
    }
    return 1;
}

double tg_resume(search_t *s)
{
    if (!s->r->o.resume || !s->r->o.out_dir) return 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/candidates.csv", s->r->o.out_dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[2048];
    double offset = 0;
    int n = 0;
    while (fgets(line, sizeof line, f)) n += resume_line(s, line, &offset);
    fclose(f);
    if (n)
        tune_say(s->r, "%s %cgemm: resuming after %d candidates (%.0f s of search)",
                 s->d->log_prefix, s->pc, n, offset);
    return offset;
}
