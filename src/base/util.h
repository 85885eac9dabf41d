/*
 * util.h -- small private helpers shared by every module: logging behind CLHGEMM_VERBOSE,
 * environment parsing, checked allocation and a portable mutex wrapper.
 * The library never prints unless CLHGEMM_VERBOSE is set (1 = plan/decisions, 2 = also builds
 * and cache traffic) -- except that a malformed or out-of-range environment variable is always
 * reported, once per (variable, value) per process (chg_env_warn), and so is a setting that
 * cannot be used, once per cause (chg_warn_once).
 */
#ifndef CHG_UTIL_H
#define CHG_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define CHG_MIN(a, b) ((a) < (b) ? (a) : (b))
#define CHG_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Verbosity from CLHGEMM_VERBOSE, read once. */
int chg_verbose(void);
/* printf-style message to stderr prefixed with "clhgemm: ", only when chg_verbose() >= level. */
void chg_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Environment variable as a string (NULL when unset or empty). */
const char *chg_getenv(const char *name);

/* ---- validated environment ----
 * Every variable the library reads goes through these, or is parsed with the strict parsers
 * below and reported with chg_env_warn: a malformed or out-of-range value is never silent.
 * chg_env_warn prints one line to stderr whatever CLHGEMM_VERBOSE says,
 *     clhgemm: NAME=<value> <fmt...>          (fmt: "is <what is wrong>; using <what>")
 * once per (name, value) per process (a small mutex-protected set); it never calls chg_log. */
void chg_env_warn(const char *name, const char *value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A setting the library cannot use (a file or directory it names, not the text of its value):
 * one line "clhgemm: <fmt...>" to stderr whatever CLHGEMM_VERBOSE says, once per `key` per
 * process (the key names the cause, e.g. the path and what is wrong with it). The line should
 * name the variable or file and say what the library does instead. */
void chg_warn_once(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Strict parsers, 1 on success, 0 otherwise (*out untouched then). chg_parse_long: an optional
 * sign and decimal digits, nothing else (no blanks, no "0x", no trailing text); overflow gives
 * LONG_MIN/LONG_MAX (out of any range). chg_parse_double: a decimal number ([+-], digits, '.',
 * exponent; no hex, no "inf"/"nan") that is finite. chg_parse_size: decimal digits and at most
 * one suffix K, M or G (either case, powers of 1024), nothing else; -1 when it overflows. */
int chg_parse_long(const char *s, long *out);
int chg_parse_double(const char *s, double *out);
int chg_parse_size(const char *s, unsigned long long *out);
/* An integer in [lo, hi]: `def` when unset; malformed -> `def`, out of range -> the nearest
 * bound, each with a warning saying which. */
int chg_env_int(const char *name, int def, int lo, int hi);
/* The same for a finite number in [lo, hi] (nan, inf, 1e999, hex and trailing text are
 * malformed). */
double chg_env_double(const char *name, double def, double lo, double hi);
/* A byte count (digits with an optional K/M/G suffix, powers of 1024): `def` when unset;
 * malformed, zero or too large -> `def` with a warning. */
unsigned long long chg_env_size(const char *name, unsigned long long def);
/* The older name of chg_env_size. */
unsigned long long chg_getenv_size(const char *name, unsigned long long def);
/* A switch: 1/on/yes/true or 0/off/no/false (case-insensitive); `def` when unset or (with a
 * warning) anything else. */
int chg_env_flag(const char *name, int def);
/* One of the NULL-terminated `choices` (exact match): its index; `def` when unset or (with a
 * warning naming choices[def]) anything else. */
int chg_env_choice(const char *name, const char *const *choices, int def);

/* All len bytes of data to the file descriptor fd, across short writes and EINTR: 0, or -1
 * when a write fails or writes nothing (the kernel cache's files, the tuner's worker pipes). */
int chg_write_all(int fd, const void *data, size_t len);

/* 64-bit FNV-1a over bytes, chained through `h` (start with CHG_HASH_INIT). */
#define CHG_HASH_INIT 0xcbf29ce484222325ULL
uint64_t chg_hash(uint64_t h, const void *data, size_t len);

/* Growable string buffer for kernel generation. On allocation failure the buffer is marked
 * failed (failed = 1) and further appends are ignored; callers check once at the end. */
typedef struct chg_str_s {
    char *data;
    size_t len, cap;
    int failed;
} chg_str_t;
void chg_str_init(chg_str_t *s);
void chg_str_printf(chg_str_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void chg_str_append(chg_str_t *s, const char *text);
void chg_str_free(chg_str_t *s);

/* Round x up to a multiple of m (m > 0). */
static inline size_t chg_round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }
/* a / b rounded up (b > 0). */
static inline size_t chg_ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

#endif
