/*
 * tuning.c -- the choices that the library makes from a device's tuning entry (GEMM parameters
 * under the environment overrides, pack parameters, the kernel-rate estimate) and the cache
 * that makes them once per device and precision. See tuning.h.
 *
 * Why a cache above chg_tuning_lookup, which caches too: a GEMM call needs the parameters
 * every time, and the lookup takes the database mutex, walks its list of resolved entries and
 * copies a whole entry (6 KiB) out of it; select then reads the override variables and parses
 * them again. Here a slot holds the entry and the selected parameters together, keyed by
 *   - the device: the whole chg_device_t compared with memcmp (the library queries a device's
 *     facts once and passes the same record on every call, core/gemm.c),
 *   - the precision,
 *   - chg_tuning_generation(): changed by chg_tuning_reload and chg_tuning_set_bypass,
 *   - the values of the environment variables that the answer depends on: those the lookup
 *     reads (CHG_TUNING_LOOKUP_ENV of resolve.h) and those select reads. They are read at every
 *     call, as before, so a setenv between two calls takes effect at the second one.
 * What select reports (an ignored override, a TF32 request on a device without tensor cores)
 * is kept in the slot and reported again at every chg_tuned_gemm, as select does per call.
 * Out of memory for a slot, a call resolves as select and the lookup do.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tuning/tuning.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TUNED_SLOTS 16   /* devices x precisions of one process, with room to spare */

/* ---- selection --------------------------------------------------------------------------- */

/* A malloc'ed printf, or NULL. */
static char *message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *message(const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *m = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (m) vsnprintf(m, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return m;
}

/* chg_gemm_params_select on top of the entry's parameters base: the parameters in *p, what it
 * reports in warn[0] (CLHGEMM_SGEMM_MATH) and warn[1] (the override), malloc'ed or NULL. */
static int select_params(const chg_device_t *dev, chg_precision_t prec,
                         const chg_gemm_params_t *base, chg_gemm_params_t *p, char *warn[2])
{
    warn[0] = warn[1] = NULL;
    *p = *base;
    int over = 0; /* TF32 or a valid override replaced the entry's parameters */
    if (prec == CHG_F32) {
        const int math = chg_sgemm_math();
        if (math < 0)
            chg_env_warn("CLHGEMM_SGEMM_MATH", chg_getenv("CLHGEMM_SGEMM_MATH"),
                         "is not ieee, tf32 or 3xtf32; using ieee");
        else if (math && !(dev->features & CHG_FEAT_NV_MMA_F64))
            warn[0] = message("CLHGEMM_SGEMM_MATH asks for TF32, which needs NVIDIA tensor cores "
                              "(compute capability >= 8.0): %s computes in IEEE FP32",
                              dev->info.name);
        else if (math)
            chg_gemm_params_tf32(math, p), over = 1;
    }
    const char *name = prec == CHG_F64 ? "CLHGEMM_DGEMM_PARAMS" : "CLHGEMM_SGEMM_PARAMS";
    const char *text = chg_getenv(name);
    if (!text) text = chg_getenv(name = "CLHGEMM_GEMM_PARAMS");
    if (!text) return over;
    chg_gemm_params_t q = *p;
    char why[160] = "";
    if (chg_gemm_params_parse(text, &q) != 0) {
        /* malformed is reported whatever the verbosity; a set that parses but does not fit
         * this device (another may take it) only with CLHGEMM_VERBOSE=1, below */
        chg_env_warn(name, text, "is malformed (expected KEY=VALUE,... with keys of the GEMM kernel and "
                                 "values 0 to 4096); using the tuned parameters");
        return over;
    }
    if (chg_gemm_params_valid(dev, prec, &q, why, sizeof why)) {
        *p = q;
        return 1;
    }
    warn[1] = message("ignoring GEMM parameter override \"%s\": %s", text, why);
    return over;
}

/* The configuration of every shape class: the entry's class (present) with its split, else
 * its parent's (chg_shape_class_parent: a thin class without its own runs tall's / wide's),
 * else the entry's main parameters unsplit; an override (TF32, CLHGEMM_*GEMM_PARAMS: over set)
 * forces *sel on every class, unsplit, as it forced the one configuration before classes. */
static void select_classes(const chg_tuning_prec_t *e, const chg_gemm_params_t *sel, int over,
                           chg_gemm_choice_t out[CHG_SHAPE_NCLASSES])
{
    for (int c = 0; c < CHG_SHAPE_NCLASSES; c++) {
        const int parent = chg_shape_class_parent(c);
        const chg_tuning_class_t *x = &e->classes[c];
        if (!x->present && parent >= 0) x = &e->classes[parent];
        const int own = !over && x->present;
        out[c].gp = own ? x->gemm : *sel;
        out[c].split_k = own ? x->split_k : 1;
        out[c].cls = (chg_shape_class_t)c;
        out[c].k_max = own && x->k_max > 0 ? (size_t)x->k_max : CHG_SHAPE_RANK_K_MAX;
        out[c].k_min = own ? (size_t)x->k_min : 0;
        /* the occupancy measured for this configuration: the class's own, or large's where the
         * class runs the main parameters that large holds */
        const chg_tuning_class_t *lg = &e->classes[CHG_SHAPE_LARGE];
        out[c].wgs_per_cu = own ? x->wgs_per_cu
                            : !over && lg->present && !memcmp(&lg->gemm, sel, sizeof *sel)
                                ? lg->wgs_per_cu
                                : 0;
    }
}

/* The choice for m x n x k from the classes' configurations: the forced class (>= 0) or the
 * classifier's, the split under CLHGEMM_SPLIT_K (split_env > 0). */
static void choose(const chg_gemm_choice_t cls[CHG_SHAPE_NCLASSES], int forced, int split_env,
                   size_t m, size_t n, size_t k, unsigned flags, chg_gemm_choice_t *out)
{
    /* rank_k's reach only where C is read: its configuration hides the C loads of the store
     * behind other work-groups, while large's one work-group per SM cannot (H100, DGEMM
     * 8192^2 x 384: beta 0.5 rank_k 32.9 TFLOP/s, large 27.3; beta 0 rank_k 37.8, large 43.8) */
    const size_t reach =
        flags & CHG_CALL_BETA_ZERO ? CHG_SHAPE_RANK_K_MAX : cls[CHG_SHAPE_RANK_K].k_max;
    /* large's reach only where the call may split: large beats medium there by its tail split
     * (kernels/shape.h) */
    const size_t kmin = flags & CHG_CALL_UNSPLIT ? 0 : cls[CHG_SHAPE_LARGE].k_min;
    const int c = forced >= 0 ? forced : (int)chg_shape_class_k(m, n, k, reach, kmin);
    *out = cls[c];
    out->forced = forced >= 0;
    if (split_env > 0) out->split_k = split_env;
}

static void report(char *const warn[2])
{
    for (int i = 0; i < 2; i++)
        if (warn[i]) chg_log(1, "%s", warn[i]);
}

void chg_gemm_params_select(const chg_device_t *dev, chg_precision_t prec, chg_gemm_params_t *p)
{
    /* The tuning database's entry for the device (built-in defaults when none applies), then
     * the environment override on top of it. */
    chg_tuning_entry_t entry;
    char *warn[2];
    chg_tuning_lookup(dev, prec, &entry);
    select_params(dev, prec, &entry.prec.gemm, p, warn);
    chg_gemm_params_main(dev, prec, p); /* a DK configuration is a class's only */
    report(warn);
    free(warn[0]);
    free(warn[1]);
}

/* ---- resolved once ----------------------------------------------------------------------- */

extern char **environ;

/* What the answers depend on in the environment: what the lookup reads, then what select
 * reads (chg_sgemm_math included). */
static const char *const env_vars[] = {CHG_TUNING_LOOKUP_ENV, "CLHGEMM_SGEMM_MATH",
                                       "CLHGEMM_SGEMM_PARAMS", "CLHGEMM_DGEMM_PARAMS",
                                       "CLHGEMM_GEMM_PARAMS", "CLHGEMM_SHAPE_CLASS",
                                       "CLHGEMM_SPLIT_K"};
#define NVARS (sizeof env_vars / sizeof env_vars[0])

typedef struct tuned_s {
    int used;
    unsigned long generation;
    chg_precision_t prec;
    chg_device_t dev;          /* memcpy'd: compared with memcmp, padding included */
    char *env[NVARS];          /* the values of env_vars (strdup'ed; NULL: unset) */
    chg_tuning_entry_t entry;  /* chg_tuning_lookup's answer (its level in entry.level) */
    chg_gemm_params_t gemm;    /* chg_gemm_params_select's answer */
    char *warn[2];             /* and what it reports */
    chg_gemm_choice_t cls[CHG_SHAPE_NCLASSES]; /* each shape class's configuration */
    int forced;                /* CLHGEMM_SHAPE_CLASS (-1: classify) */
    int split_env;             /* CLHGEMM_SPLIT_K (0: the class's split) */
} tuned_t;

static pthread_mutex_t g_tuned_lock = PTHREAD_MUTEX_INITIALIZER;
static tuned_t g_tuned[TUNED_SLOTS];
static unsigned g_tuned_next;

/* The values of env_vars in one pass over the environment (a getenv each would scan all of it
 * nine times): the first definition of a name, as getenv; NULL when unset or empty, as
 * chg_getenv. */
static void env_read(const char *v[NVARS])
{
    size_t len[NVARS];
    for (size_t i = 0; i < NVARS; i++) {
        v[i] = NULL;
        len[i] = strlen(env_vars[i]);
    }
    for (char **e = environ; e && *e; e++) {
        const char *s = *e;
        for (size_t i = 0; i < NVARS; i++)
            if (s[0] == env_vars[i][0] && !v[i] && !strncmp(s, env_vars[i], len[i]) &&
                s[len[i]] == '=') {
                v[i] = s + len[i] + 1;
                break;
            }
    }
    for (size_t i = 0; i < NVARS; i++)
        if (v[i] && !*v[i]) v[i] = NULL;
}

static int env_equal(char *const stored[NVARS], const char *const v[NVARS])
{
    for (size_t i = 0; i < NVARS; i++)
        if (stored[i] ? !v[i] || strcmp(stored[i], v[i]) : v[i] != NULL) return 0;
    return 1;
}

static void slot_clear(tuned_t *t)
{
    for (size_t i = 0; i < NVARS; i++) {
        free(t->env[i]);
        t->env[i] = NULL;
    }
    free(t->warn[0]);
    free(t->warn[1]);
    t->warn[0] = t->warn[1] = NULL;
    t->used = 0;
}

/* The slot of (dev, prec) for generation gen and environment v, or NULL (lock held). */
static tuned_t *find_slot(const chg_device_t *dev, chg_precision_t prec, unsigned long gen,
                          const char *const v[NVARS])
{
    for (int i = 0; i < TUNED_SLOTS; i++) {
        tuned_t *t = &g_tuned[i];
        if (t->used && t->generation == gen && t->prec == prec &&
            !memcmp(&t->dev, dev, sizeof *dev) && env_equal(t->env, v))
            return t;
    }
    return NULL;
}

/* Resolves (dev, prec) into a free or outdated slot, else the next one in turn; NULL when out
 * of memory (lock held). */
static tuned_t *fill_slot(const chg_device_t *dev, chg_precision_t prec, unsigned long gen,
                          const char *const v[NVARS])
{
    tuned_t *t = NULL;
    for (int i = 0; i < TUNED_SLOTS && !t; i++)
        if (!g_tuned[i].used || g_tuned[i].generation != gen) t = &g_tuned[i];
    if (!t) t = &g_tuned[g_tuned_next++ % TUNED_SLOTS];
    slot_clear(t);
    for (size_t i = 0; i < NVARS; i++)
        if (v[i] && !(t->env[i] = strdup(v[i]))) {
            slot_clear(t);
            return NULL;
        }
    t->generation = gen;
    t->prec = prec;
    memcpy(&t->dev, dev, sizeof *dev);
    chg_tuning_lookup(dev, prec, &t->entry);
    const int over = select_params(dev, prec, &t->entry.prec.gemm, &t->gemm, t->warn);
    /* an override with DK=1 runs the direct kernel in every class; the main parameters (the
     * level-3 routines, the host pipeline) are the packed kernel's */
    select_classes(&t->entry.prec, &t->gemm, over, t->cls);
    chg_gemm_params_main(dev, prec, &t->gemm);
    t->forced = chg_shape_class_forced();
    t->split_env = chg_env_int("CLHGEMM_SPLIT_K", 0, 0, CHG_TUNING_MAX_SPLIT_K);
    t->used = 1;
    return t;
}

/* Runs take on the slot of (dev, prec), resolved first on a miss; 0 (nothing run) when out of
 * memory. The generation is read before anything is resolved, so that an answer resolved
 * across a reload is filed under the older generation and never used again. */
static int with_tuned(const chg_device_t *dev, chg_precision_t prec,
                      void (*take)(const tuned_t *t, void *arg), void *arg)
{
    const char *v[NVARS];
    const unsigned long gen = chg_tuning_generation();
    env_read(v);
    pthread_mutex_lock(&g_tuned_lock);
    const tuned_t *t = find_slot(dev, prec, gen, v);
    if (!t) t = fill_slot(dev, prec, gen, v);
    if (t) take(t, arg);
    pthread_mutex_unlock(&g_tuned_lock);
    return t != NULL;
}

static void take_gemm(const tuned_t *t, void *arg)
{
    *(chg_gemm_params_t *)arg = t->gemm;
    report(t->warn);
}

void chg_tuned_gemm(const chg_device_t *dev, chg_precision_t prec, chg_gemm_params_t *out)
{
    if (!with_tuned(dev, prec, take_gemm, out)) chg_gemm_params_select(dev, prec, out);
}

/* main: the entry's main parameters (sel), with large's occupancy where large runs them */
static void main_choice(const chg_gemm_params_t *main, const chg_gemm_choice_t *large,
                        chg_gemm_choice_t *out)
{
    memset(out, 0, sizeof *out);
    out->gp = *main;
    out->split_k = 1;
    out->cls = CHG_SHAPE_LARGE;
    out->k_max = CHG_SHAPE_RANK_K_MAX;
    out->wgs_per_cu = !memcmp(&large->gp, main, sizeof *main) ? large->wgs_per_cu : 0;
}

static void take_main(const tuned_t *t, void *arg)
{
    main_choice(&t->gemm, &t->cls[CHG_SHAPE_LARGE], arg);
    report(t->warn);
}

void chg_tuned_gemm_main(const chg_device_t *dev, chg_precision_t prec, chg_gemm_choice_t *out)
{
    if (with_tuned(dev, prec, take_main, out)) return;
    chg_gemm_params_t sel;
    chg_gemm_params_select(dev, prec, &sel);
    const chg_gemm_choice_t none = {.wgs_per_cu = 0};
    main_choice(&sel, &none, out);
}

typedef struct shape_arg_s {
    size_t m, n, k;
    unsigned flags;
    chg_gemm_choice_t *out;
} shape_arg_t;

static void take_shape(const tuned_t *t, void *arg)
{
    const shape_arg_t *a = arg;
    choose(t->cls, t->forced, t->split_env, a->m, a->n, a->k, a->flags, a->out);
    report(t->warn);
}

void chg_tuned_gemm_shape(const chg_device_t *dev, chg_precision_t prec, size_t m, size_t n,
                          size_t k, unsigned flags, chg_gemm_choice_t *out)
{
    const shape_arg_t arg = {m, n, k, flags, out};
    if (with_tuned(dev, prec, take_shape, (void *)&arg)) return;
    /* out of memory for a slot: resolved for this call alone */
    chg_tuning_entry_t e;
    chg_gemm_params_t sel;
    chg_gemm_choice_t cls[CHG_SHAPE_NCLASSES];
    char *warn[2];
    chg_tuning_lookup(dev, prec, &e);
    const int over = select_params(dev, prec, &e.prec.gemm, &sel, warn);
    report(warn);
    free(warn[0]);
    free(warn[1]);
    select_classes(&e.prec, &sel, over, cls);
    choose(cls, chg_shape_class_forced(), chg_env_int("CLHGEMM_SPLIT_K", 0, 0, CHG_TUNING_MAX_SPLIT_K),
           m, n, k, flags, out);
}

static void take_entry(const tuned_t *t, void *arg) { *(chg_tuning_entry_t *)arg = t->entry; }

chg_tuning_level_t chg_tuned_entry(const chg_device_t *dev, chg_precision_t prec,
                                   chg_tuning_entry_t *out)
{
    if (!with_tuned(dev, prec, take_entry, out)) return chg_tuning_lookup(dev, prec, out);
    return out->level;
}

typedef struct trsm_arg_s {
    int nb;
    char *src;
    size_t len;
} trsm_arg_t;

static void take_trsm(const tuned_t *t, void *arg)
{
    trsm_arg_t *a = arg;
    a->nb = t->entry.prec.trsm_nb;
    if (a->src && a->len)
        snprintf(a->src, a->len, "%s entry %s", chg_tuning_level_name(t->entry.level),
                 t->entry.source);
}

int chg_tuned_trsm_nb(const chg_device_t *dev, chg_precision_t prec, char *src, size_t len)
{
    trsm_arg_t a = {0, src, len};
    if (with_tuned(dev, prec, take_trsm, &a)) return a.nb;
    chg_tuning_entry_t e; /* out of memory for a slot: resolved for this call alone */
    chg_tuning_lookup(dev, prec, &e);
    if (src && len)
        snprintf(src, len, "%s entry %s", chg_tuning_level_name(e.level), e.source);
    return e.prec.trsm_nb;
}

typedef struct factor_arg_s {
    int kind, nb;
    char *src;
    size_t len;
} factor_arg_t;

static void take_factor(const tuned_t *t, void *arg)
{
    factor_arg_t *a = arg;
    a->nb = t->entry.prec.factor_nb[a->kind];
    if (a->src && a->len)
        snprintf(a->src, a->len, "%s entry %s", chg_tuning_level_name(t->entry.level),
                 t->entry.source);
}

int chg_tuned_factor_nb(const chg_device_t *dev, chg_precision_t prec, int kind, char *src,
                        size_t len)
{
    if (kind < 0 || kind >= CHG_TUNING_FACTOR_KINDS) return 0;
    factor_arg_t a = {kind, 0, src, len};
    if (with_tuned(dev, prec, take_factor, &a)) return a.nb;
    chg_tuning_entry_t e; /* out of memory for a slot: resolved for this call alone */
    chg_tuning_lookup(dev, prec, &e);
    if (src && len)
        snprintf(src, len, "%s entry %s", chg_tuning_level_name(e.level), e.source);
    return e.prec.factor_nb[kind];
}

typedef struct pack_arg_s {
    int src_contig_i;
    chg_copy_params_t *out;
} pack_arg_t;

static void take_pack(const tuned_t *t, void *arg)
{
    const pack_arg_t *a = arg;
    *a->out = a->src_contig_i ? t->entry.prec.pack : t->entry.prec.pack_t;
}

/* ---- what else the library takes from an entry ------------------------------------------- */

void chg_tuning_copy_params(const chg_device_t *dev, chg_precision_t prec, chg_copy_kind_t kind,
                            int src_contig_i, chg_copy_params_t *out)
{
    if (kind != CHG_COPY_PACK) {
        chg_copy_params_default(dev, kind, prec, out);
        return;
    }
    const pack_arg_t arg = {src_contig_i, out};
    if (!with_tuned(dev, prec, take_pack, (void *)&arg)) {
        chg_tuning_entry_t e;
        chg_tuning_lookup(dev, prec, &e);
        *out = src_contig_i ? e.prec.pack : e.prec.pack_t;
    }
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
