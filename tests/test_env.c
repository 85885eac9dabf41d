/*
 * test_env.c -- the validated environment readers of src/base/util.c and a few of the
 * library's variables end to end.
 *
 * Unit part (no device): chg_parse_long/double/size and chg_env_int/double/size/flag/choice on
 * valid values, the documented size suffixes, and garbage ("12x", "", "nan", "inf", "-3",
 * "1e999", "0x10", blanks, undocumented suffixes, overflow); for each the value returned and
 * that exactly one warning line "clhgemm: NAME=<value> ..." reached stderr, once per (variable,
 * value) even when asked again and from 8 threads at once, with CLHGEMM_VERBOSE=0.
 * End to end: clhgemm_create rejects CLHGEMM_QUEUES / CPU_THREADS / CPU_SHARE_THREADS /
 * CPU_SHARE / CPU_SCHED values that are not valid with CLHGEMM_INVALID_OPTION and a line naming
 * the variable (no device needed: the options are read first); then, on a device, a host SGEMM
 * with CLHGEMM_KGROUP=zz, CLHGEMM_RAMP=0, CLHGEMM_TILE=64,64, CLHGEMM_FINAL_PIECES=-2 and
 * CLHGEMM_CPU_GAMMA=inf is right and warns once for each, a valid CLHGEMM_TILE is still obeyed,
 * and CLHGEMM_ROUTE_MODEL=1,inf makes clhgemm_create fail. CLHGEMM_VERBOSE (read once per
 * process) in child processes: yes -> 1, 7 -> 2, -1 -> 0, each with its line. Paths that
 * cannot be used: CLHGEMM_TRACE in a missing directory, CLHGEMM_CACHE_DIR under a regular file
 * and the default cache directory likewise each give one line naming the variable, once over
 * two handles; the same on usable paths (and the default cache directory) give none.
 * Returns 77 only when the unit part passed and the machine has no OpenCL device.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "clhgemm.h"
#include "common.h"

/* ---- stderr capture ------------------------------------------------------------------------ */

static tc_capture_t g_cap; /* tests/common.h: stderr into a temporary file, echoed at the end */

static int count(const char *hay, const char *needle)
{
    int c = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) c++;
    return c;
}

static int lines(const char *s)
{
    int c = 0;
    for (; *s; s++) c += *s == '\n';
    return c;
}

/* ---- the strict parsers -------------------------------------------------------------------- */

static void parsers(void)
{
    static const struct { const char *s; int ok; long v; } L[] = {
        {"0", 1, 0}, {"42", 1, 42}, {"-3", 1, -3}, {"+7", 1, 7}, {"12x", 0, 0}, {"", 0, 0},
        {" 5", 0, 0}, {"5 ", 0, 0}, {"0x10", 0, 0}, {"1.5", 0, 0}, {"1e3", 0, 0}, {"nan", 0, 0},
        {"-", 0, 0}, {"99999999999999999999", 1, 9223372036854775807L}};
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
        long v = -12345;
        const int ok = chg_parse_long(L[i].s, &v);
        EXPECT(ok == L[i].ok && (!ok || v == L[i].v), "chg_parse_long(\"%s\") = %d, %ld", L[i].s, ok, v);
    }
    static const struct { const char *s; int ok; double v; } D[] = {
        {"0.5", 1, 0.5}, {"-2", 1, -2}, {"1e-1", 1, 0.1}, {".25", 1, 0.25}, {"3.", 1, 3},
        {"nan", 0, 0}, {"inf", 0, 0}, {"-inf", 0, 0}, {"1e999", 0, 0}, {"0x1p-1", 0, 0},
        {"12x", 0, 0}, {"", 0, 0}, {" 1", 0, 0}, {"1,5", 0, 0}, {"e", 0, 0}, {"1e", 0, 0}};
    for (size_t i = 0; i < sizeof D / sizeof D[0]; i++) {
        double v = -12345;
        const int ok = chg_parse_double(D[i].s, &v);
        EXPECT(ok == D[i].ok && (!ok || v == D[i].v), "chg_parse_double(\"%s\") = %d, %g", D[i].s, ok, v);
    }
    static const struct { const char *s; int r; unsigned long long v; } S[] = {
        {"123", 1, 123}, {"64K", 1, 65536}, {"64k", 1, 65536}, {"3M", 1, 3ull << 20},
        {"2G", 1, 2ull << 30}, {"0", 1, 0}, {"1T", 0, 0}, {"64KB", 0, 0}, {"64MiB", 0, 0},
        {"1.5G", 0, 0}, {"-1", 0, 0}, {"+5", 0, 0}, {" 64K", 0, 0}, {"64K ", 0, 0},
        {"0x10", 0, 0}, {"K", 0, 0}, {"", 0, 0}, {"18446744073709551616", -1, 0},
        {"17179869184G", -1, 0}, {"17179869183G", 1, 17179869183ull << 30}};
    for (size_t i = 0; i < sizeof S / sizeof S[0]; i++) {
        unsigned long long v = 12345;
        const int r = chg_parse_size(S[i].s, &v);
        EXPECT(r == S[i].r && (r != 1 || v == S[i].v), "chg_parse_size(\"%s\") = %d, %llu", S[i].s, r, v);
    }
}

/* ---- the readers: value and exactly one warning ------------------------------------------- */

typedef struct {
    const char *value;
    double want;
    const char *warn; /* what the one line must say after "NAME=value ", NULL: no line */
} rcase_t;

enum { R_INT, R_DOUBLE, R_SIZE, R_FLAG, R_CHOICE };

static double read_as(int kind, const char *name)
{
    static const char *const modes[] = {"auto", "always", "never", NULL};
    switch (kind) {
    case R_INT: return chg_env_int(name, 7, 1, 100);
    case R_DOUBLE: return chg_env_double(name, 0.5, 0.0, 2.0);
    case R_SIZE: return (double)chg_env_size(name, 777);
    case R_FLAG: return chg_env_flag(name, 1);
    default: return chg_env_choice(name, modes, 0);
    }
}

/* Each case read twice (the second must not warn again), then once more in a second capture. */
static void readers_table(int kind, const char *name, const rcase_t *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        setenv(name, c[i].value, 1);
        tc_capture_begin(&g_cap);
        const double got = read_as(kind, name), again = read_as(kind, name);
        char *text = tc_capture_end(&g_cap);
        EXPECT(got == c[i].want && again == c[i].want, "%s=\"%s\": got %.17g, %.17g, want %.17g", name,
               c[i].value, got, again, c[i].want);
        char line[256];
        snprintf(line, sizeof line, "clhgemm: %s=%s %s", name, c[i].value, c[i].warn ? c[i].warn : "");
        const int want_lines = c[i].warn ? 1 : 0;
        EXPECT(lines(text) == want_lines && count(text, line) == want_lines,
               "%s=\"%s\": %d line(s) on stderr, want %d saying \"%s\": [%s]", name, c[i].value,
               lines(text), want_lines, line, text);
        free(text);
        tc_capture_begin(&g_cap);
        read_as(kind, name);
        text = tc_capture_end(&g_cap);
        EXPECT(lines(text) == 0, "%s=\"%s\": warned a second time: [%s]", name, c[i].value, text);
        free(text);
    }
    unsetenv(name);
    EXPECT(read_as(kind, name) == read_as(kind, "CLHGEMM_TEST_NEVER_SET"), "%s unset: not the default", name);
}

static void readers(void)
{
    static const rcase_t I[] = {
        {"42", 42, NULL}, {"+5", 5, NULL}, {"1", 1, NULL}, {"100", 100, NULL}, {"", 7, NULL},
        {"12x", 7, "is not an integer; using the default 7"}, {"nan", 7, "is not an integer"},
        {"inf", 7, "is not an integer"}, {"0x10", 7, "is not an integer"}, {" 5", 7, "is not an integer"},
        {"1.5", 7, "is not an integer"}, {"1e3", 7, "is not an integer"},
        {"-3", 1, "is out of range [1, 100]; using 1"}, {"0", 1, "is out of range [1, 100]; using 1"},
        {"101", 100, "is out of range [1, 100]; using 100"},
        {"99999999999999999999", 100, "is out of range [1, 100]; using 100"}};
    readers_table(R_INT, "CLHGEMM_TEST_INT", I, sizeof I / sizeof I[0]);
    static const rcase_t D[] = {
        {"1.25", 1.25, NULL}, {"0", 0, NULL}, {"2", 2, NULL}, {"1e-1", 0.1, NULL}, {"", 0.5, NULL},
        {"nan", 0.5, "is not a finite decimal number; using the default 0.5"},
        {"inf", 0.5, "is not a finite decimal number"}, {"-inf", 0.5, "is not a finite decimal number"},
        {"1e999", 0.5, "is not a finite decimal number"}, {"0x1p-1", 0.5, "is not a finite decimal number"},
        {"12x", 0.5, "is not a finite decimal number"}, {"1,5", 0.5, "is not a finite decimal number"},
        {"-3", 0, "is out of range [0, 2]; using 0"}, {"3", 2, "is out of range [0, 2]; using 2"}};
    readers_table(R_DOUBLE, "CLHGEMM_TEST_DOUBLE", D, sizeof D / sizeof D[0]);
    static const rcase_t S[] = {
        {"123", 123, NULL}, {"64K", 65536, NULL}, {"64k", 65536, NULL}, {"3M", 3 << 20, NULL},
        {"2G", 2147483648.0, NULL}, {"", 777, NULL},
        {"1T", 777, "is not a byte count (digits with an optional K, M or G suffix); using the default"},
        {"64KB", 777, "is not a byte count"}, {"64MiB", 777, "is not a byte count"},
        {"1.5G", 777, "is not a byte count"}, {"-1", 777, "is not a byte count"},
        {"12x", 777, "is not a byte count"}, {"0x10", 777, "is not a byte count"},
        {"nan", 777, "is not a byte count"}, {"inf", 777, "is not a byte count"},
        {"1e999", 777, "is not a byte count"}, {" 64K", 777, "is not a byte count"},
        {"0", 777, "is zero; using the default"},
        {"18446744073709551616", 777, "is too large; using the default"},
        {"17179869184G", 777, "is too large; using the default"}};
    readers_table(R_SIZE, "CLHGEMM_TEST_SIZE", S, sizeof S / sizeof S[0]);
    static const rcase_t F[] = {
        {"1", 1, NULL}, {"on", 1, NULL}, {"YES", 1, NULL}, {"true", 1, NULL}, {"0", 0, NULL},
        {"off", 0, NULL}, {"No", 0, NULL}, {"FALSE", 0, NULL}, {"", 1, NULL},
        {"2", 1, "is not 1 or 0 (on/off, yes/no, true/false); using the default 1"},
        {"maybe", 1, "is not 1 or 0"}, {"-3", 1, "is not 1 or 0"}};
    readers_table(R_FLAG, "CLHGEMM_TEST_FLAG", F, sizeof F / sizeof F[0]);
    static const rcase_t C[] = {
        {"auto", 0, NULL}, {"always", 1, NULL}, {"never", 2, NULL}, {"", 0, NULL},
        {"Always", 0, "is not auto, always or never; using auto"}, {"12x", 0, "is not auto, always or never"}};
    readers_table(R_CHOICE, "CLHGEMM_TEST_CHOICE", C, sizeof C / sizeof C[0]);
    /* the old name reads the same way */
    setenv("CLHGEMM_TEST_SIZE", "96K", 1);
    EXPECT(chg_getenv_size("CLHGEMM_TEST_SIZE", 1) == 98304, "chg_getenv_size(96K)");
    unsetenv("CLHGEMM_TEST_SIZE");
}

static void *reader_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++) chg_env_int("CLHGEMM_TEST_THREADS", 3, 1, 8);
    return NULL;
}

/* Once per (variable, value) holds across threads. */
static void threads_once(void)
{
    setenv("CLHGEMM_TEST_THREADS", "lots", 1);
    tc_capture_begin(&g_cap);
    pthread_t t[8];
    int started = 0;
    for (int i = 0; i < 8; i++) started += pthread_create(&t[i], NULL, reader_thread, NULL) == 0;
    for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
    char *text = tc_capture_end(&g_cap);
    EXPECT(started == 8 && lines(text) == 1 && count(text, "clhgemm: CLHGEMM_TEST_THREADS=lots is not an integer") == 1,
           "8 threads: %d line(s), want 1: [%s]", lines(text), text);
    free(text);
    unsetenv("CLHGEMM_TEST_THREADS");
}

/* ---- end to end ------------------------------------------------------------------------------ */

/* clhgemm_create fails with `want` and one line "clhgemm: NAME=value <say>" under NAME=value. */
static void create_rejects(const char *name, const char *value, clhgemm_status_t want, const char *say)
{
    const char *was = getenv(name);
    char *saved = was ? strdup(was) : NULL;
    setenv(name, value, 1);
    clhgemm_handle_t h = NULL;
    tc_capture_begin(&g_cap);
    const clhgemm_status_t st = clhgemm_create(&h, NULL);
    char *text = tc_capture_end(&g_cap);
    char line[256];
    snprintf(line, sizeof line, "clhgemm: %s=%s %s", name, value, say);
    EXPECT(st == want && h == NULL, "%s=%s: clhgemm_create -> %s, want %s", name, value,
           clhgemm_status_string(st), clhgemm_status_string(want));
    EXPECT(count(text, line) == 1, "%s=%s: want one line \"%s\": [%s]", name, value, line, text);
    free(text);
    if (h) clhgemm_destroy(h);
    if (saved) setenv(name, saved, 1); else unsetenv(name);
    free(saved);
}

static void create_options(void)
{
    static const struct { const char *name, *value, *say; } R[] = {
#define QS "is not an integer in [3, 8]; clhgemm_create returns CLHGEMM_INVALID_OPTION"
#define TS "is not an integer in [1, 1024]; clhgemm_create returns CLHGEMM_INVALID_OPTION"
#define SS "is not off, auto or a number in [0, 1]; clhgemm_create returns CLHGEMM_INVALID_OPTION"
        {"CLHGEMM_QUEUES", "abc", QS},        {"CLHGEMM_QUEUES", "9", QS},
        {"CLHGEMM_QUEUES", "4x", QS},         {"CLHGEMM_QUEUES", "0x4", QS},
        {"CLHGEMM_QUEUES", " 4", QS},         {"CLHGEMM_CPU_THREADS", "0", TS},
        {"CLHGEMM_CPU_THREADS", "12x", TS},   {"CLHGEMM_CPU_SHARE_THREADS", "12x", TS},
        {"CLHGEMM_CPU_SHARE_THREADS", "-1", TS}, {"CLHGEMM_CPU_SHARE", "nan", SS},
        {"CLHGEMM_CPU_SHARE", "inf", SS},     {"CLHGEMM_CPU_SHARE", "0x0.8", SS},
        {"CLHGEMM_CPU_SHARE", "1.5", SS},     {"CLHGEMM_CPU_SHARE", "0.5x", SS},
        {"CLHGEMM_CPU_SCHED", "slabs", "is not slab or strips; clhgemm_create returns CLHGEMM_INVALID_OPTION"},
#undef QS
#undef TS
#undef SS
    };
    for (size_t i = 0; i < sizeof R / sizeof R[0]; i++)
        create_rejects(R[i].name, R[i].value, CLHGEMM_INVALID_OPTION, R[i].say);
}

/* C = A B (column-major, m x k times k x n) on the handle, checked against a double loop. */
static int sgemm_ok(clhgemm_handle_t h, int m, int n, int k)
{
    float *a = malloc(sizeof(float) * (size_t)m * k), *b = malloc(sizeof(float) * (size_t)k * n),
          *c = calloc((size_t)m * n, sizeof(float));
    int ok = a && b && c;
    for (int i = 0; ok && i < m * k; i++) a[i] = (float)((i * 7 % 13) - 6) / 8.0f;
    for (int i = 0; ok && i < k * n; i++) b[i] = (float)((i * 5 % 11) - 5) / 4.0f;
    ok = ok && clhgemm_sgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, m, n, k, 1.0f, a, m,
                             b, k, 0.0f, c, m) == CLHGEMM_SUCCESS;
    for (int j = 0; ok && j < n; j++)
        for (int i = 0; ok && i < m; i++) {
            double s = 0;
            for (int p = 0; p < k; p++) s += (double)a[i + (size_t)p * m] * b[p + (size_t)j * k];
            ok = fabs(c[i + (size_t)j * m] - s) <= 1e-4 * (1 + fabs(s));
        }
    free(a);
    free(b);
    free(c);
    return ok;
}

static const char *const g_device_warnings[] = {
    "clhgemm: CLHGEMM_KGROUP=zz is not an integer; using the default 2",
    "clhgemm: CLHGEMM_RAMP=0 is out of range [1, 64]; using 1",
    "clhgemm: CLHGEMM_TILE=64,64 is not bm,bn,bk[,stream|resident|prefetch]; using the planner's tile",
    "clhgemm: CLHGEMM_FINAL_PIECES=-2 is out of range [0, 1048576]; using 0",
    "clhgemm: CLHGEMM_CPU_GAMMA=inf is not a finite decimal number; using the default 0.1",
};
#define NDEVWARN (sizeof g_device_warnings / sizeof g_device_warnings[0])

/* A host SGEMM under malformed pipeline settings: right, one warning each (two calls); a valid
 * CLHGEMM_TILE still obeyed; CLHGEMM_ROUTE_MODEL and CLHGEMM_DEVICES failures named. 77: no
 * device. */
static int device_part(void)
{
    setenv("CLHGEMM_ROUTE", "device", 1);
    setenv("CLHGEMM_KGROUP", "zz", 1);
    setenv("CLHGEMM_RAMP", "0", 1);
    setenv("CLHGEMM_TILE", "64,64", 1);
    setenv("CLHGEMM_FINAL_PIECES", "-2", 1);
    setenv("CLHGEMM_CPU_GAMMA", "inf", 1);
    clhgemm_handle_t h = NULL;
    tc_capture_begin(&g_cap);
    const clhgemm_status_t st = clhgemm_create(&h, NULL);
    int ok1 = st == CLHGEMM_SUCCESS && sgemm_ok(h, 96, 80, 64);
    int ok2 = st == CLHGEMM_SUCCESS && sgemm_ok(h, 96, 80, 64);
    char *text = tc_capture_end(&g_cap);
    if (st == CLHGEMM_NO_DEVICE) {
        printf("no OpenCL device: end-to-end part skipped\n");
        free(text);
        return 77;
    }
    EXPECT(st == CLHGEMM_SUCCESS, "clhgemm_create -> %s", clhgemm_status_string(st));
    EXPECT(ok1 && ok2, "host SGEMM under malformed settings wrong or failed");
    for (size_t i = 0; i < NDEVWARN; i++)
        EXPECT(count(text, g_device_warnings[i]) == 1, "want one \"%s\": [%s]", g_device_warnings[i], text);
    EXPECT(count(text, "clhgemm: ") == (int)NDEVWARN, "%d clhgemm lines on stderr, want %d: [%s]",
           count(text, "clhgemm: "), (int)NDEVWARN, text);
    free(text);
    setenv("CLHGEMM_TILE", "48,32,24", 1);
    clhgemm_call_info_t inf;
    memset(&inf, 0, sizeof inf);
    EXPECT(h && sgemm_ok(h, 96, 80, 64) && clhgemm_last_call_info(h, &inf) == CLHGEMM_SUCCESS &&
               inf.tile_m == 48 && inf.tile_n == 32 && inf.tile_k == 24,
           "CLHGEMM_TILE=48,32,24: tile %d x %d x %d", inf.tile_m, inf.tile_n, inf.tile_k);
    clhgemm_destroy(h);
    const char *vars[] = {"CLHGEMM_KGROUP", "CLHGEMM_RAMP", "CLHGEMM_TILE", "CLHGEMM_FINAL_PIECES",
                          "CLHGEMM_CPU_GAMMA"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
    create_rejects("CLHGEMM_ROUTE_MODEL", "1,inf", CLHGEMM_INVALID_OPTION,
                   "is not latency_ms,device_gflops (latency >= 0, 0 < rate <= 1e9); clhgemm_create "
                   "returns CLHGEMM_INVALID_OPTION");
    create_rejects("CLHGEMM_DEVICES", "no-such-device-env", CLHGEMM_INVALID_DEVICE_SPEC,
                   "matches no device; clhgemm_devices_get returns CLHGEMM_INVALID_DEVICE_SPEC");
    return 0;
}

/* ---- paths that cannot be used ----------------------------------------------------------- */

/* stderr of clhgemm_create and two checked host SGEMMs on the handle (a new handle: a new
 * context, so its kernels miss the in-memory program cache and go to the disk level). */
static char *two_calls_stderr(int *ok)
{
    clhgemm_handle_t h = NULL;
    tc_capture_begin(&g_cap);
    const clhgemm_status_t st = clhgemm_create(&h, NULL);
    *ok = st == CLHGEMM_SUCCESS && sgemm_ok(h, 64, 48, 40) && sgemm_ok(h, 64, 48, 40);
    clhgemm_destroy(h);
    return tc_capture_end(&g_cap);
}

static int has_file(const char *dir, const char *suffix)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -q '%s$'", dir, suffix);
    return system(cmd) == 0;
}

/* A trace file or kernel cache directory that cannot be written: one line each at verbosity 0,
 * naming the variable (or, for the default cache directory, the directory and the variable),
 * once per process however many calls and handles meet it; the same settings on usable paths,
 * and the default cache directory, stay silent. Needs a device (the previous part found one). */
static void unusable_paths(void)
{
    char tmp[512], file[600], path[700], xdg[600];
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(tmp, sizeof tmp, "%s/clhgemm-test-env-XXXXXX", base);
    EXPECT(mkdtemp(tmp) != NULL && !strchr(tmp, '\''), "mkdtemp %s", tmp);
    snprintf(file, sizeof file, "%s/a-file", tmp);
    FILE *f = fopen(file, "w");
    if (f) fclose(f);
    char *cache = getenv("CLHGEMM_CACHE_DIR") ? strdup(getenv("CLHGEMM_CACHE_DIR")) : NULL;
    int ok = 0;

    /* CLHGEMM_TRACE into a directory that does not exist, over two handles */
    snprintf(path, sizeof path, "%s/no-such-dir/trace.json", tmp);
    setenv("CLHGEMM_TRACE", path, 1);
    for (int round = 0; round < 2; round++) {
        char *text = two_calls_stderr(&ok);
        const int want = round == 0;
        EXPECT(ok &&
                   tc_count_lines(text, "clhgemm: CLHGEMM_TRACE=", path, "cannot be written") ==
                       want &&
                   count(text, "clhgemm: ") == want,
               "CLHGEMM_TRACE=%s, handle %d: want %d line(s) naming it: [%s]", path, round + 1,
               want, text);
        free(text);
    }
    snprintf(path, sizeof path, "%s/trace.json", tmp);
    setenv("CLHGEMM_TRACE", path, 1);
    {
        char *text = two_calls_stderr(&ok);
        EXPECT(ok && count(text, "clhgemm: ") == 0 && access(path, R_OK) == 0,
               "CLHGEMM_TRACE=%s (writable): want the file and no line: [%s]", path, text);
        free(text);
    }
    unsetenv("CLHGEMM_TRACE");

    /* CLHGEMM_CACHE_DIR under a regular file, over two handles */
    snprintf(path, sizeof path, "%s/sub", file);
    setenv("CLHGEMM_CACHE_DIR", path, 1);
    for (int round = 0; round < 2; round++) {
        char *text = two_calls_stderr(&ok);
        const int want = round == 0;
        EXPECT(ok &&
                   tc_count_lines(text, "clhgemm: CLHGEMM_CACHE_DIR=", path, "cannot be used") ==
                       want &&
                   count(text, "clhgemm: ") == want,
               "CLHGEMM_CACHE_DIR=%s, handle %d: want %d line(s) naming it: [%s]", path,
               round + 1, want, text);
        free(text);
    }
    /* the default directory ($XDG_CACHE_HOME/clhgemm), unusable, then usable */
    unsetenv("CLHGEMM_CACHE_DIR");
    char *xdg_was = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    setenv("XDG_CACHE_HOME", file, 1);
    {
        char *text = two_calls_stderr(&ok);
        EXPECT(ok &&
                   tc_count_lines(text, "clhgemm: kernel cache directory ", file,
                                  "CLHGEMM_CACHE_DIR") == 1 &&
                   count(text, "clhgemm: ") == 1,
               "default cache directory under a file: want one line naming it and "
               "CLHGEMM_CACHE_DIR: [%s]", text);
        free(text);
    }
    snprintf(xdg, sizeof xdg, "%s/xdg", tmp);
    setenv("XDG_CACHE_HOME", xdg, 1);
    {
        char *text = two_calls_stderr(&ok);
        snprintf(path, sizeof path, "%s/clhgemm", xdg);
        EXPECT(ok && count(text, "clhgemm: ") == 0 && has_file(path, ".clbin"),
               "default cache directory %s: want it filled and no line: [%s]", path, text);
        free(text);
    }
    if (xdg_was) setenv("XDG_CACHE_HOME", xdg_was, 1);
    else unsetenv("XDG_CACHE_HOME");
    free(xdg_was);
    if (cache) setenv("CLHGEMM_CACHE_DIR", cache, 1);
    free(cache);
    if (!strchr(tmp, '\'')) {
        char cmd[700];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        EXPECT(system(cmd) == 0, "%s", cmd);
    }
}

/* CLHGEMM_VERBOSE is read once per process: each value in a fresh one (this program, run as
 * "test_env verbose-child", prints chg_verbose()). */
static void verbose_values(void)
{
    static const struct { const char *v; int level; const char *warn; } V[] = {
        {"0", 0, NULL}, {"2", 2, NULL}, {"yes", 1, "clhgemm: CLHGEMM_VERBOSE=yes is not an integer; using 1"},
        {"7", 2, "clhgemm: CLHGEMM_VERBOSE=7 is out of range [0, 2]; using 2"},
        {"-1", 0, "clhgemm: CLHGEMM_VERBOSE=-1 is out of range [0, 2]; using 0"}};
    char self[512];
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    EXPECT(len > 0 && !strchr(self, '\''), "cannot name this program for CLHGEMM_VERBOSE's runs");
    for (size_t i = 0; len > 0 && !strchr(self, '\'') && i < sizeof V / sizeof V[0]; i++) {
        char cmd[768], out[1024] = "";
        snprintf(cmd, sizeof cmd, "CLHGEMM_VERBOSE='%s' '%s' verbose-child 2>&1", V[i].v, self);
        FILE *p = popen(cmd, "r");
        const size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
        out[n] = '\0';
        if (p) pclose(p);
        char want[64];
        snprintf(want, sizeof want, "verbose level %d\n", V[i].level);
        EXPECT(strstr(out, want) && count(out, "clhgemm: ") == (V[i].warn ? 1 : 0) &&
                   (!V[i].warn || strstr(out, V[i].warn)),
               "CLHGEMM_VERBOSE=%s: [%s], want %s with %s", V[i].v, out, want, V[i].warn ? V[i].warn : "no line");
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "verbose-child")) {
        printf("verbose level %d\n", chg_verbose());
        return 0;
    }
    verbose_values();
    /* the warnings must not depend on the verbosity */
    setenv("CLHGEMM_VERBOSE", "0", 1);
    parsers();
    readers();
    threads_once();
    create_options();
    const int dev = device_part();
    if (dev == 0) unusable_paths();
    printf("test_env: %d checks, %d failure(s)%s\n", tc_checks(), tc_failures(),
           dev == 77 ? " (no device)" : "");
    return tc_failures() ? 1 : dev == 77 ? 77 : 0;
}
