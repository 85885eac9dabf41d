/*
 * resolve.c -- the run-time lookup of the tuning database: the directories in effect, their
 * parsed files (cached per directory pair), and the entry for a device and precision (exact
 * device -> architecture -> vendor -> built-in). See resolve.h for the contract.
 *
 * Why the parsed files are cached by directory and not re-read per call: a directory scan plus
 * JSON parse per call would cost more than a small GEMM. The cache key holds the directories
 * in effect, so a test or a user that changes CLHGEMM_TUNING_DIR sees the new directory at the
 * next call. chg_tuning_generation() changes whenever the cache is dropped or the bypass hook
 * set, so that the caches above this one (tuning.c) know when to resolve again.
 *
 * A user database file that is rejected, and a CLHGEMM_TUNING_DIR that names no readable
 * directory, are said on stderr whatever the verbosity, once per cause: the user asked for that
 * database, and without the line its entries would seem to be ignored for no reason. A shipped
 * file's rejection stays a verbose note (it is the project's file, and the tests feed bad ones).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tuning/resolve.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The texts of lookup notes are cut at their buffer size on purpose; GCC's warning about
 * possible truncation says nothing useful here. */
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

/* ---- directories ------------------------------------------------------------------------- */

/* (A variable read by the lookup belongs in CHG_TUNING_LOOKUP_ENV of resolve.h, or the cache of
 * tuning.c would not see it change.) */

static int is_dir(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_off(const char *v) { return v && (!strcasecmp(v, "off") || !strcmp(v, "0")); }

/* CLHGEMM_TUNING: off (or 0) turns the databases off; on, 1 or auto is the default; anything
 * else is reported and leaves them on. */
static const char *tuning_mode(void)
{
    const char *mode = chg_getenv("CLHGEMM_TUNING");
    if (mode && !is_off(mode) && strcasecmp(mode, "on") && strcmp(mode, "1") && strcasecmp(mode, "auto"))
        chg_env_warn("CLHGEMM_TUNING", mode, "is not off or on; using the tuning databases");
    return mode;
}

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

typedef struct loaded_s { /* a database file as parsed */
    chg_tuning_source_t src;
    chg_tuning_file_t file;
} loaded_t;

typedef struct dbset_s {
    char *key;          /* user dir "\n" shipped dir */
    int nfiles;
    loaded_t *files;    /* user files (sorted by name), then shipped files */
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
/* Bumped after every change of what a lookup returns, under g_lock; read without it. */
static atomic_ulong g_generation = 1;

unsigned long chg_tuning_generation(void) { return atomic_load(&g_generation); }

void chg_tuning_set_bypass(int on)
{
    pthread_mutex_lock(&g_lock);
    g_bypass = on;
    atomic_fetch_add(&g_generation, 1);
    pthread_mutex_unlock(&g_lock);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A CLHGEMM_TUNING_DIR that names no readable directory: the user asked for a database that
 * cannot be read, which must not pass silently (the default directory may well not exist). */
static void warn_user_dir(const char *dir, int err)
{
    const char *v = chg_getenv("CLHGEMM_TUNING_DIR");
    if (!v || is_off(v) || strcmp(v, dir)) return;
    struct stat st;
    const char *what = stat(dir, &st) != 0 ? strerror(errno)
                       : !S_ISDIR(st.st_mode) ? "not a directory"
                                              : strerror(err);
    chg_env_warn("CLHGEMM_TUNING_DIR", v, "cannot be read (%s); no user tuning database is used",
                 what);
}

/* Appends the *.json files of dir (sorted) to set. */
static void load_dir(dbset_t *set, const char *dir, int user)
{
    DIR *d = opendir(dir);
    if (!d) {
        const int err = errno;
        chg_log(2, "tuning: no %s database directory %s", user ? "user" : "shipped", dir);
        if (user) warn_user_dir(dir, err);
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
    loaded_t *grown = realloc(set->files, (set->nfiles + n) * sizeof *grown);
    if (grown) set->files = grown;
    for (size_t i = 0; i < n; i++) {
        if (grown) {
            loaded_t *f = &set->files[set->nfiles++];
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
            } else if (user) {
                /* The user's own file (clhgemm-tune's or a hand edit) left out: said once per
                 * file and reason whatever the verbosity, or its entries would seem ignored. */
                char key[sizeof f->src.path + sizeof f->src.reason + 8];
                snprintf(key, sizeof key, "tuning %s: %s", f->src.path, f->src.reason);
                chg_warn_once(key, "user tuning file %s rejected (%s); its entries are not used",
                              f->src.path, f->src.reason);
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
    atomic_fetch_add(&g_generation, 1);
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
    for (int c = 0; c < CHG_SHAPE_NCLASSES; c++) {
        p->classes[c].present = 1;
        chg_gemm_params_class_default(dev, prec, c, &p->classes[c].gemm, &p->classes[c].split_k);
    }
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

/* The built-in start of every lookup, with a note of each rejected file. */
static void resolve_builtin(const dbset_t *set, const chg_device_t *dev, chg_precision_t prec,
                            chg_tuning_entry_t *e)
{
    memset(e, 0, sizeof *e);
    builtin_prec(dev, prec, &e->prec);
    snprintf(e->source, sizeof e->source, "built-in");
    snprintf(e->key, sizeof e->key, "built-in defaults for the device class");
    for (int i = 0; set && i < set->nfiles; i++)
        if (!set->files[i].src.ok)
            note_add(e, "rejected %s: %s", set->files[i].src.path, set->files[i].src.reason);
}

/* Whether r is looked at in the step (level, same_name_only) of the order: below the exact
 * level first the entries of the same device name (another driver), then the other devices;
 * an entry already passed over at a more specific level is not news again. */
static int candidate(const chg_tuning_record_t *r, int level, int same_name_only,
                     const chg_device_t *dev)
{
    if (!level_match((chg_tuning_level_t)level, r, dev)) return 0;
    if (same_name_only != !strcmp(r->name, dev->info.name) && level < CHG_TUNING_EXACT) return 0;
    if (level < CHG_TUNING_EXACT && level_match(CHG_TUNING_EXACT, r, dev)) return 0;
    if (level < CHG_TUNING_ARCH && level_match(CHG_TUNING_ARCH, r, dev)) return 0;
    return 1;
}

/* The pack parameters of the entry p taken into e (whose pack/pack_t are still the built-in
 * ones) when both fit the device; otherwise the built-in copy kernels stay, with a note. */
static void take_copy(const chg_device_t *dev, chg_precision_t prec,
                      const chg_tuning_record_t *r, const chg_tuning_prec_t *p,
                      const chg_tuning_prec_t *builtin, chg_tuning_entry_t *e)
{
    char why[200];
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
        e->prec.pack = builtin->pack;
        e->prec.pack_t = builtin->pack_t;
    }
}

/* The entry's shape classes (already copied into e) that do not fit the device are dropped
 * with a note: those classes run their parent's configuration (a thin class: tall's or wide's,
 * tuning.c select_classes), else the entry's main parameters. */
static void take_classes(const chg_device_t *dev, chg_precision_t prec,
                         const chg_tuning_record_t *r, chg_tuning_entry_t *e)
{
    char why[200];
    for (int c = 0; c < CHG_SHAPE_NCLASSES; c++) {
        chg_tuning_class_t *x = &e->prec.classes[c];
        if (x->present && !chg_gemm_params_valid(dev, prec, &x->gemm, why, sizeof why)) {
            const int parent = chg_shape_class_parent(c);
            note_add(e, "class %s of \"%s\" does not fit this device (%s): %s%s",
                     chg_shape_class_name(c), r->name, why,
                     parent >= 0 ? "the parameters of " : "main parameters",
                     parent >= 0 ? chg_shape_class_name(parent) : "");
            x->present = 0;
        }
    }
}

/* Takes the record r of file f at `level` into e when it has parameters of prec that fit the
 * device (1); otherwise notes why it was passed over (0). */
static int take_entry(const loaded_t *f, const chg_tuning_record_t *r, int level,
                      const chg_device_t *dev, chg_precision_t prec, chg_tuning_entry_t *e)
{
    const char pc = prec == CHG_F64 ? 'd' : 's';
    const chg_tuning_prec_t *p = &r->prec[prec];
    if (!p->present) {
        note_add(e, "%s entry \"%s\" (%s) in %s has no %cgemm parameters",
                 chg_tuning_level_name((chg_tuning_level_t)level), r->name, r->driver,
                 f->src.path, pc);
        return 0;
    }
    char why[200];
    if (!chg_gemm_params_valid(dev, prec, &p->gemm, why, sizeof why)) {
        note_add(e, "%s entry \"%s\" (%s) in %s: %cgemm parameters do not fit this "
                    "device: %s",
                 chg_tuning_level_name((chg_tuning_level_t)level), r->name, r->driver,
                 f->src.path, pc, why);
        return 0;
    }
    const chg_tuning_prec_t builtin = e->prec;
    e->prec = *p;
    take_classes(dev, prec, r, e);
    e->level = (chg_tuning_level_t)level;
    snprintf(e->source, sizeof e->source, "%s", f->src.path);
    snprintf(e->key, sizeof e->key, "%s | %s (%s, %s)", r->name, r->driver, r->arch,
             r->vendor_key);
    take_copy(dev, prec, r, p, &builtin, e);
    return 1;
}

/* The first entry that applies, levels from exact down to vendor, files in order. */
static void find_entry(const dbset_t *set, const chg_device_t *dev, chg_precision_t prec,
                       chg_tuning_entry_t *e)
{
    static const struct {
        int level, same_name_only;
    } order[] = {{CHG_TUNING_EXACT, 0}, {CHG_TUNING_ARCH, 1}, {CHG_TUNING_ARCH, 0},
                 {CHG_TUNING_VENDOR, 1}, {CHG_TUNING_VENDOR, 0}};
    int found = 0;
    for (size_t oi = 0; set && oi < sizeof order / sizeof order[0] && !found; oi++) {
        const int level = order[oi].level, same_name_only = order[oi].same_name_only;
        for (int fi = 0; fi < set->nfiles && !found; fi++) {
            const loaded_t *f = &set->files[fi];
            for (int ri = 0; f->src.ok && ri < f->file.count && !found; ri++) {
                const chg_tuning_record_t *r = &f->file.records[ri];
                if (candidate(r, level, same_name_only, dev))
                    found = take_entry(f, r, level, dev, prec, e);
            }
        }
    }
}

/* Pipeline figures and the split model describe one machine's bus and host: only an exact
 * entry of this device gives them (the split model of this precision), wherever the GEMM
 * parameters came from. */
static void exact_extras(const dbset_t *set, const chg_device_t *dev, chg_precision_t prec,
                         chg_tuning_entry_t *e)
{
    for (int fi = 0; set && fi < set->nfiles && !e->pipeline.present; fi++) {
        const loaded_t *f = &set->files[fi];
        for (int ri = 0; f->src.ok && ri < f->file.count; ri++) {
            const chg_tuning_record_t *r = &f->file.records[ri];
            if (r->pipeline.present && level_match(CHG_TUNING_EXACT, r, dev)) {
                e->pipeline = r->pipeline;
                snprintf(e->pipeline_source, sizeof e->pipeline_source, "%s", f->src.path);
                break;
            }
        }
    }
    for (int fi = 0; set && fi < set->nfiles && !e->cpumodel.present; fi++) {
        const loaded_t *f = &set->files[fi];
        for (int ri = 0; f->src.ok && ri < f->file.count; ri++) {
            const chg_tuning_record_t *r = &f->file.records[ri];
            if (r->cpumodel[prec].present && level_match(CHG_TUNING_EXACT, r, dev)) {
                e->cpumodel = r->cpumodel[prec];
                snprintf(e->cpumodel_source, sizeof e->cpumodel_source, "%s", f->src.path);
                break;
            }
        }
    }
}

/* The entry of (dev, prec) in set: built-in start, the entry that applies, the exact-only
 * figures, then what was chosen and passed over in the log. */
static void resolve(const dbset_t *set, const chg_device_t *dev, chg_precision_t prec,
                    chg_tuning_entry_t *e)
{
    const char pc = prec == CHG_F64 ? 'd' : 's';
    resolve_builtin(set, dev, prec, e);
    find_entry(set, dev, prec, e);
    exact_extras(set, dev, prec, e);
    char gp[160];
    chg_gemm_params_format(&e->prec.gemm, gp, sizeof gp);
    chg_log(1, "tuning: %cgemm on %s: %s (%s, %s) %s", pc, dev->info.name,
            chg_tuning_level_name(e->level), e->source, e->key, gp);
    if (e->prec.trsm_nb > 0)
        chg_log(1, "tuning: %ctrsm on %s: nb = %d from the same entry", pc, dev->info.name,
                e->prec.trsm_nb);
    if (e->prec.factor_nb[0] || e->prec.factor_nb[1] || e->prec.factor_nb[2])
        chg_log(1, "tuning: %cpotrf / getrf / geqrf on %s: nb = %d / %d / %d from the same entry "
                   "(0: the built-in default)",
                pc, dev->info.name, e->prec.factor_nb[0], e->prec.factor_nb[1],
                e->prec.factor_nb[2]);
    if (e->note[0]) chg_log(1, "tuning: %cgemm on %s: passed over: %s", pc, dev->info.name, e->note);
}

chg_tuning_level_t chg_tuning_lookup(const chg_device_t *dev, chg_precision_t prec,
                                     chg_tuning_entry_t *out)
{
    const char *mode = tuning_mode();
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
