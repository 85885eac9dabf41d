/*
 * util.c -- the small helpers every module shares: verbosity and logging, environment parsing,
 * FNV-1a hashing, a whole write to a file descriptor, and the growable string buffer that kernel
 * generation writes into.
 *
 * The library must never print unless asked, so all output funnels through chg_log(), gated on
 * CLHGEMM_VERBOSE. That variable is read exactly once (pthread_once) so that the level cannot
 * change under a running call and reading it is free on the hot path. The one exception is a
 * malformed or out-of-range environment variable: it must never pass silently, so
 * chg_env_warn() reports it whatever the level, once per (variable, value), and the chg_env_*
 * readers say what they use instead; so does chg_warn_once() for a setting that is well-formed
 * but cannot be used (a directory that cannot be written, a rejected tuning file), once per
 * cause, since the same cause would otherwise repeat at every call. The string buffer never
 * fails loudly: an allocation failure only sets `failed`, so generators can append freely and
 * check once at the end instead of after every line.
 */
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- verbosity and logging -------------------------------------------------------------- */

static pthread_once_t verbose_once = PTHREAD_ONCE_INIT;
static int verbose_level = 0;

static void verbose_init(void)
{
    const char *v = getenv("CLHGEMM_VERBOSE");
    if (v == NULL || *v == '\0') return;
    long n = 1;
    /* A malformed value (e.g. "yes") still means "the user wants output": treat it as 1. */
    if (!chg_parse_long(v, &n)) {
        chg_env_warn("CLHGEMM_VERBOSE", v, "is not an integer; using 1");
        n = 1;
    } else if (n < 0 || n > 2) {
        const long c = n < 0 ? 0 : 2;
        chg_env_warn("CLHGEMM_VERBOSE", v, "is out of range [0, 2]; using %ld", c);
        n = c;
    }
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

/* ---- validated environment ------------------------------------------------------------- */

/* The causes already reported: "NAME=value" for a variable's value, "=key" for a chg_warn_once
 * key (no variable's name is empty, so the two never meet); never freed. */
typedef struct warned_s {
    struct warned_s *next;
    char key[];
} warned_t;
static pthread_mutex_t g_warned_lock = PTHREAD_MUTEX_INITIALIZER;
static warned_t *g_warned;

/* 1 the first time (name, value) is seen (and remembers it), 0 after. Out of memory: 1 every
 * time (a repeated warning is better than a silent one). */
static int first_warning(const char *name, const char *value)
{
    const size_t nl = strlen(name), vl = strlen(value);
    int first = 1;
    pthread_mutex_lock(&g_warned_lock);
    for (const warned_t *w = g_warned; w && first; w = w->next)
        if (!strncmp(w->key, name, nl) && w->key[nl] == '=' && !strcmp(w->key + nl + 1, value)) first = 0;
    warned_t *w = first ? malloc(sizeof *w + nl + vl + 2) : NULL;
    if (w) {
        memcpy(w->key, name, nl);
        w->key[nl] = '=';
        memcpy(w->key + nl + 1, value, vl + 1);
        w->next = g_warned;
        g_warned = w;
    }
    pthread_mutex_unlock(&g_warned_lock);
    return first;
}

void chg_warn_once(const char *key, const char *fmt, ...)
{
    if (!first_warning("", key)) return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "clhgemm: %s\n", text);
}

void chg_env_warn(const char *name, const char *value, const char *fmt, ...)
{
    if (!first_warning(name, value)) return;
    char tail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tail, sizeof tail, fmt, ap);
    va_end(ap);
    /* One call, so that concurrent lines do not interleave (as chg_log). */
    fprintf(stderr, "clhgemm: %s=%s %s\n", name, value, tail);
}

int chg_parse_long(const char *s, long *out)
{
    const char *p = s + (*s == '+' || *s == '-');
    if (!isdigit((unsigned char)*p)) return 0;
    char *end = NULL;
    errno = 0;
    const long n = strtol(s, &end, 10); /* ERANGE: LONG_MIN/LONG_MAX, out of every range */
    if (*end != '\0') return 0;
    *out = n;
    return 1;
}

int chg_parse_double(const char *s, double *out)
{
    /* Only decimal notation: strtod alone would also take hex, "inf", "nan" and leading blanks. */
    if (*s == '\0' || strspn(s, "0123456789+-.eE") != strlen(s)) return 0;
    char *end = NULL;
    const double x = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(x)) return 0;
    *out = x;
    return 1;
}

int chg_parse_size(const char *s, unsigned long long *out)
{
    if (!isdigit((unsigned char)*s)) return 0; /* also rejects blanks and a sign */
    char *end = NULL;
    errno = 0;
    const unsigned long long n = strtoull(s, &end, 10);
    const int range = errno == ERANGE;
    unsigned shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0') return 0;
    if (range || n > (~0ULL >> shift)) return -1;
    *out = n << shift;
    return 1;
}

int chg_env_int(const char *name, int def, int lo, int hi)
{
    const char *v = chg_getenv(name);
    long n = def;
    if (v == NULL) return def;
    if (!chg_parse_long(v, &n)) {
        chg_env_warn(name, v, "is not an integer; using the default %d", def);
        return def;
    }
    if (n < lo || n > hi) {
        const int c = n < lo ? lo : hi;
        chg_env_warn(name, v, "is out of range [%d, %d]; using %d", lo, hi, c);
        return c;
    }
    return (int)n;
}

double chg_env_double(const char *name, double def, double lo, double hi)
{
    const char *v = chg_getenv(name);
    double x = def;
    if (v == NULL) return def;
    if (!chg_parse_double(v, &x)) {
        chg_env_warn(name, v, "is not a finite decimal number; using the default %g", def);
        return def;
    }
    if (x < lo || x > hi) {
        const double c = x < lo ? lo : hi;
        chg_env_warn(name, v, "is out of range [%g, %g]; using %g", lo, hi, c);
        return c;
    }
    return x;
}

unsigned long long chg_env_size(const char *name, unsigned long long def)
{
    const char *v = chg_getenv(name);
    unsigned long long n = 0;
    if (v == NULL) return def;
    const int r = chg_parse_size(v, &n);
    if (r == 1 && n > 0) return n;
    chg_env_warn(name, v, "is %s; using the default",
                 r == 0  ? "not a byte count (digits with an optional K, M or G suffix)"
                 : r < 0 ? "too large"
                         : "zero");
    return def;
}

unsigned long long chg_getenv_size(const char *name, unsigned long long def)
{
    return chg_env_size(name, def);
}

int chg_env_flag(const char *name, int def)
{
    static const char *const on[] = {"1", "on", "yes", "true"}, *const off[] = {"0", "off", "no", "false"};
    const char *v = chg_getenv(name);
    if (v == NULL) return def;
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        if (!strcasecmp(v, on[i])) return 1;
        if (!strcasecmp(v, off[i])) return 0;
    }
    chg_env_warn(name, v, "is not 1 or 0 (on/off, yes/no, true/false); using the default %d", def);
    return def;
}

int chg_env_choice(const char *name, const char *const *choices, int def)
{
    const char *v = chg_getenv(name);
    if (v == NULL) return def;
    int n = 0;
    for (; choices[n]; n++)
        if (!strcmp(v, choices[n])) return n;
    char list[256] = "";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                i == 0 ? "" : i == n - 1 ? " or " : ", ", choices[i]);
    chg_env_warn(name, v, "is not %s; using %s", list, choices[def]);
    return def;
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

int chg_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
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
