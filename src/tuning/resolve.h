/*
 * resolve.h -- which tuning-database entry applies to a device (resolve.c owns it).
 *
 * Lookup order, most specific first: an entry for the exact device name and driver version,
 * then one for the same architecture key, then one for the same vendor key (device.h derives
 * both keys), then the built-in defaults of params.c / codegen.c. At each level the user
 * database (CLHGEMM_TUNING_DIR, else $XDG_CONFIG_HOME/clhgemm, else ~/.config/clhgemm) is
 * searched before the shipped one (CLHGEMM_SHIPPED_TUNING_DIR, else tuning/ of the source tree
 * for a library in its build tree, else <prefix>/share/clhgemm/tuning next to the installed
 * library). CLHGEMM_TUNING=off (or the benchmark hook chg_tuning_set_bypass) ignores every
 * database.
 *
 * A file that is rejected (dbfile.h), an entry without the requested precision, or one whose
 * parameters do not fit the device, is passed over. Each such decision is logged at
 * CLHGEMM_VERBOSE=1 and kept in the lookup result (chg_tuning_entry_t.note) and the file list
 * (chg_tuning_sources) that clhgemm-info prints. Parsed files and resolved lookups are cached
 * per process (under a mutex); the cache is keyed by the directories in effect, so changing the
 * environment takes effect at the next call, while edits to a file need chg_tuning_reload().
 */
#ifndef CHG_TUNING_RESOLVE_H
#define CHG_TUNING_RESOLVE_H

#include "tuning/dbfile.h"

typedef enum chg_tuning_level_e {
    CHG_TUNING_BUILTIN = 0, /* no entry applies: built-in defaults */
    CHG_TUNING_VENDOR = 1,  /* an entry of another device of the same vendor key */
    CHG_TUNING_ARCH = 2,    /* an entry of another device of the same architecture key */
    CHG_TUNING_EXACT = 3    /* an entry of this device name and driver version */
} chg_tuning_level_t;

/* "built-in", "vendor", "architecture", "exact". */
const char *chg_tuning_level_name(chg_tuning_level_t level);

typedef struct chg_tuning_entry_s {
    chg_tuning_level_t level;
    chg_tuning_prec_t prec;   /* gemm and pack/pack_t always set (defaults at BUILTIN) */
    char source[512];         /* the file, or "built-in" */
    char key[512];            /* the entry used: "name | driver (arch, vendor)" */
    char note[1024];          /* what was passed over on the way, and why ("" when nothing) */
    chg_tuning_pipeline_t pipeline; /* from an exact entry of this device (present = 0 if none) */
    char pipeline_source[512];
    chg_tuning_cpumodel_t cpumodel; /* this precision's split model, from an exact entry */
    char cpumodel_source[512];
} chg_tuning_entry_t;

/* The entry for (dev, prec). Always fills *out (built-in defaults when nothing applies) and
 * returns its level. Thread-safe; cached. CLHGEMM_TUNING=off bypasses every database.
 * The library's per-call paths use tuning.h's chg_tuned_entry: the same answer, kept per
 * device and precision until the generation or the environment changes. */
chg_tuning_level_t chg_tuning_lookup(const chg_device_t *dev, chg_precision_t prec,
                                     chg_tuning_entry_t *out);

/* Directories in effect (resolved from the environment at each call). Both return NULL when
 * there is none ("off", or no home directory / shipped directory). */
const char *chg_tuning_user_dir(char *buf, size_t len);
const char *chg_tuning_shipped_dir(char *buf, size_t len);

/* Every environment variable that a lookup reads (CLHGEMM_TUNING, and those that give the
 * directories in effect), as a list of string literals: with the same values of these, the
 * same generation and the same device, a lookup gives the same answer (tuning.c caches on it). */
#define CHG_TUNING_LOOKUP_ENV                                                                   \
    "CLHGEMM_TUNING", "CLHGEMM_TUNING_DIR", "XDG_CONFIG_HOME", "HOME", "CLHGEMM_SHIPPED_TUNING_DIR"

/* The database files of the directories in effect, user first, as the lookup sees them. */
typedef struct chg_tuning_source_s {
    char path[512];
    int user;                 /* 1: user database, 0: shipped */
    int ok;                   /* parsed and valid */
    int records;
    char library_version[32];
    char reason[512];         /* why it was rejected (ok = 0) */
} chg_tuning_source_t;
/* Writes up to cap sources; returns how many there are. */
int chg_tuning_sources(chg_tuning_source_t *out, int cap);

/* Drops every parsed file and cached lookup (after a database was rewritten). */
void chg_tuning_reload(void);

/* Benchmark hook: while set, lookups ignore every database (as CLHGEMM_TUNING=off), so one
 * process can time the built-in defaults next to the tuned parameters. */
void chg_tuning_set_bypass(int on);

/* A counter that changes whenever what a lookup returns for the same device and environment
 * may change: at every chg_tuning_reload and chg_tuning_set_bypass. Caches of lookup results
 * (tuning.c) key on it, with the device and the values of CHG_TUNING_LOOKUP_ENV. */
unsigned long chg_tuning_generation(void);

#endif
