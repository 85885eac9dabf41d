/*
 * util.h -- small private helpers shared by every module: logging behind CLHGEMM_VERBOSE,
 * environment parsing, checked allocation and a portable mutex wrapper.
 * The library never prints unless CLHGEMM_VERBOSE is set (1 = plan/decisions, 2 = also builds
 * and cache traffic).
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
/* Environment variable parsed as a size with optional K/M/G suffix (powers of 1024);
 * returns `def` when unset, 0 on parse failure is reported as `def` too. */
unsigned long long chg_getenv_size(const char *name, unsigned long long def);

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
