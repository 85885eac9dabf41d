/*
 * util.c -- the small helpers every module shares: verbosity and logging, environment parsing,
 * FNV-1a hashing and the growable string buffer that kernel generation writes into.
 *
 * The library must never print unless asked, so all output funnels through chg_log(), gated on
 * CLHGEMM_VERBOSE. That variable is read exactly once (pthread_once) so that the level cannot
 * change under a running call and reading it is free on the hot path. The string buffer never
 * fails loudly: an allocation failure only sets `failed`, so generators can append freely and
 * check once at the end instead of after every line.
 */
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- verbosity and logging -------------------------------------------------------------- */

static pthread_once_t verbose_once = PTHREAD_ONCE_INIT;
static int verbose_level = 0;

static void verbose_init(void)
{
    const char *v = getenv("CLHGEMM_VERBOSE");
    if (v == NULL || *v == '\0') return;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    /* A malformed value (e.g. "yes") still means "the user wants output": treat it as 1. */
    if (end == v) n = 1;
    if (n < 0) n = 0;
    if (n > 100) n = 100;
    verbose_level = (int)n;
}

int chg_verbose(void)
{
    pthread_once(&verbose_once, verbose_init);
    return verbose_level;
}

void chg_log(int level, const char *fmt, ...)
{
    if (chg_verbose() < level) return;
    /* Format into one buffer and write it with a single call, so that lines from concurrent
     * threads do not interleave mid-line. */
    char small[1024];
    char *buf = small;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    /* Long messages (build logs) get a heap buffer; if that fails, the truncated text will do. */
    if (n >= (int)sizeof(small)) {
        char *big = malloc((size_t)n + 1);
        if (big != NULL) {
            vsnprintf(big, (size_t)n + 1, fmt, ap2);
            buf = big;
        }
    }
    va_end(ap2);
    if (n < 0) return;
    size_t len = strlen(buf);
    int newline = len > 0 && buf[len - 1] == '\n';
    fprintf(stderr, "clhgemm: %s%s", buf, newline ? "" : "\n");
    if (buf != small) free(buf);
}

/* ---- environment ------------------------------------------------------------------------ */

const char *chg_getenv(const char *name)
{
    const char *v = getenv(name);
    return (v != NULL && *v != '\0') ? v : NULL;
}

unsigned long long chg_getenv_size(const char *name, unsigned long long def)
{
    const char *v = chg_getenv(name);
    if (v == NULL) return def;
    while (isspace((unsigned char)*v)) v++;
    if (!isdigit((unsigned char)*v)) return def; /* also rejects a sign: sizes are unsigned */
    errno = 0;
    char *end = NULL;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno != 0) return def;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    /* Accept "64M", "64MB", "64MiB" alike. */
    if (shift != 0 && (*end == 'i' || *end == 'I')) end++;
    if (shift != 0 && (*end == 'b' || *end == 'B')) end++;
    while (isspace((unsigned char)*end)) end++;
    if (*end != '\0') return def;
    if (shift != 0 && n > (~0ULL >> shift)) return def; /* would overflow */
    n <<= shift;
    if (n == 0) return def;
    return n;
}

/* ---- hashing ---------------------------------------------------------------------------- */

uint64_t chg_hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* ---- growable string -------------------------------------------------------------------- */

void chg_str_init(chg_str_t *s)
{
    s->data = NULL;
    s->len = 0;
    s->cap = 0;
    s->failed = 0;
}

/* Makes room for `extra` more bytes plus the terminating NUL; 0 on failure (and marks s). */
static int str_reserve(chg_str_t *s, size_t extra)
{
    if (s->failed) return 0;
    if (extra > (size_t)-1 - s->len - 1) {
        s->failed = 1;
        return 0;
    }
    size_t need = s->len + extra + 1;
    if (need <= s->cap) return 1;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < need) cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
    char *p = realloc(s->data, cap);
    if (p == NULL) {
        s->failed = 1;
        return 0;
    }
    s->data = p;
    s->cap = cap;
    return 1;
}

void chg_str_append(chg_str_t *s, const char *text)
{
    if (text == NULL) return;
    size_t n = strlen(text);
    if (!str_reserve(s, n)) return;
    memcpy(s->data + s->len, text, n + 1);
    s->len += n;
}

void chg_str_printf(chg_str_t *s, const char *fmt, ...)
{
    if (s->failed) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        s->failed = 1;
        return;
    }
    if (!str_reserve(s, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(s->data + s->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

void chg_str_free(chg_str_t *s)
{
    free(s->data);
    chg_str_init(s);
}
