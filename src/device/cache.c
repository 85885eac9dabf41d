/*
 * cache.c -- the compiled-program cache: an in-memory table per (context, device) and a disk
 * level of driver binaries, so that a kernel is compiled once per process and, across
 * processes, once per device and driver.
 *
 * In memory, the key is the full source text plus the build options (compared with strcmp after
 * a hash compare), so two programs can never be confused by a hash collision. One global mutex
 * protects the table and is held during a build as well: builds are rare, and holding it means
 * two threads asking for the same program build it once, not twice.
 *
 * On disk, the key text additionally names the device, the driver version and the platform
 * version, and the whole key text is stored in the file and compared byte for byte on load, so
 * a binary is never handed to a driver it did not come from. A file is written to a mkstemp()
 * name in the same directory and rename()d into place, so concurrent processes see either the
 * old file or the new one, never half of one. Anything wrong with a file (short, bad magic,
 * foreign key, hash mismatch, or a binary the driver refuses) counts as a reject; the program
 * is then built from source and the file replaced. Disk failures are never errors: without a
 * writable directory the cache just works in memory (and says so once per directory on stderr,
 * whatever the verbosity: every process would otherwise compile every kernel again unseen).
 *
 * File layout (integers little-endian): "CLHGEMM\x01", u64 key length, u64 binary length,
 * u64 FNV-1a of (key bytes, binary bytes), key bytes, binary bytes.
 *
 * Bounded memory. The table is grouped by context; a group holds one reference on its context
 * (so that the context cannot die and its address be reused by another while entries name it)
 * and its programs hold theirs. A context the user has let go of would therefore live on for as
 * long as its group does, with all its programs, so a process that keeps creating contexts (or
 * clhgemm handles, each with its own) would grow without end. Two rules keep the table bounded:
 *   - at every miss, before building, groups whose context only the cache still holds are
 *     dropped: their CL_CONTEXT_REFERENCE_COUNT is at most the cache's own references (one for
 *     the group, plus one per program where creating that program was seen to raise the count,
 *     as PoCL does and as is measured around each creation). Where the driver does not count
 *     what the user holds through other objects (a queue or buffer kept after releasing the
 *     context itself), such a context may be dropped while still in use: that only costs a
 *     reload (from the disk level) on its next miss, never a wrong result;
 *   - caps: at most CHG_CACHE_MAX_CONTEXTS groups and CHG_CACHE_MAX_PROGRAMS programs; beyond
 *     them the least recently used group (or program) is dropped.
 * (clSetContextDestructorCallback cannot do this: the programs keep the context alive, so the
 * callback would never come, and it needs OpenCL 3.0 where the project targets 1.2.)
 * A program handed out by chg_program_get() is also held by the calling thread (one reference
 * per thread, moved on by its next chg_program_get() and let go of when the thread ends), so
 * that dropping a group, or chg_cache_release_all() from clhgemm_release_resources() on another
 * thread at any time, never frees a program between its lookup and the creation of its kernel
 * (from then on the kernel keeps its program). Callers need not release anything.
 *
 * Test hook: CLHGEMM_FAULT_BUILD=<text> makes chg_program_get() fail with
 * CLHGEMM_KERNEL_BUILD_FAILED, without building, for every program whose `name` contains
 * <text>; tests use it to prove that a failed build is reported and survived.
 */
/* POSIX file and clock calls (mkstemp, fchmod, O_CLOEXEC, clock_gettime); the
 * build defines this too, but the file should not depend on it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "device/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define DISK_MAGIC "CLHGEMM\x01"
#define DISK_HEADER_BYTES 32
#define DISK_MAX_PART (1ULL << 30) /* longer key or binary: the file is garbage */
#define LOG_MAX_BYTES 4096         /* build logs can be megabytes; the start says enough */

typedef struct entry_s {
    cl_device_id device;
    uint64_t hash;
    char *key;          /* source + "\n//options:" + options */
    cl_program program; /* NULL: the build failed, remembered so it is not retried per call */
    int implicit;       /* creating `program` raised the context's reference count by one */
    unsigned long long used; /* cache_tick of the last lookup */
    struct entry_s *next;
} entry_t;

/* The entries of one context. */
typedef struct group_s {
    cl_context context; /* retained once by the group */
    unsigned long long used;
    entry_t *entries;
    struct group_s *next;
} group_t;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static group_t *cache_groups;
static unsigned long cache_ngroups, cache_nentries;
static unsigned long long cache_tick;
static chg_cache_stats_t cache_counters;

/* ---- helpers ---------------------------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* mkdir -p with mode 0755; 0 on success (also when it already exists), else -1 with errno. */
static int make_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof(buf)) {
        errno = n ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        buf[i] = c;
    }
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* The disk level cannot use `dir` (err: why): one line whatever the verbosity, once per
 * directory, naming CLHGEMM_CACHE_DIR, since without it every process compiles every kernel
 * again (seconds each on some drivers) and nothing else would say so. */
static void warn_cache_dir(const char *dir, int err)
{
    const char *v = chg_getenv("CLHGEMM_CACHE_DIR");
    if (v != NULL && strcmp(v, dir) == 0) {
        chg_env_warn("CLHGEMM_CACHE_DIR", v, "cannot be used (%s); compiled kernels are not "
                     "kept on disk", strerror(err));
        return;
    }
    char key[4200];
    snprintf(key, sizeof key, "cache %s", dir);
    chg_warn_once(key, "kernel cache directory %s cannot be used (%s); compiled kernels are not "
                  "kept on disk (CLHGEMM_CACHE_DIR names another directory, or off)", dir,
                  strerror(err));
}

static int read_all(int fd, void *data, size_t len)
{
    char *p = data;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* malloc'ed concatenation of up to five strings (NULL entries are skipped). */
static char *concat(const char *a, const char *b, const char *c, const char *d, const char *e)
{
    const char *parts[5] = {a, b, c, d, e};
    size_t len = 0;
    for (int i = 0; i < 5; i++)
        if (parts[i]) len += strlen(parts[i]);
    char *out = malloc(len + 1);
    if (out == NULL) return NULL;
    char *p = out;
    for (int i = 0; i < 5; i++) {
        if (!parts[i]) continue;
        size_t n = strlen(parts[i]);
        memcpy(p, parts[i], n);
        p += n;
    }
    *p = '\0';
    return out;
}

/* The build log of `program` for `device`, malloc'ed (NULL if unavailable). */
static char *build_log(cl_program program, cl_device_id device)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        size == 0)
        return NULL;
    char *log = malloc(size + 1);
    if (log == NULL) return NULL;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
        CL_SUCCESS) {
        free(log);
        return NULL;
    }
    log[size] = '\0';
    return log;
}

/* CL_CONTEXT_REFERENCE_COUNT (0 when it cannot be read). */
static cl_uint context_refs(cl_context context)
{
    cl_uint refs = 0;
    if (clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL) !=
        CL_SUCCESS)
        return 0;
    return refs;
}

/* Build errors that say "this source/options cannot build here" (as opposed to a transient
 * shortage, which passes through as the OpenCL code and is not remembered). */
static int is_build_error(cl_int err)
{
    return err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS ||
           err == CL_COMPILER_NOT_AVAILABLE || err == CL_INVALID_BINARY;
}

/* Source build shared by the cached and uncached paths. On a build failure *log (when log is
 * not NULL) receives the malloc'ed build log. */
static clhgemm_status_t build_source(cl_context context, cl_device_id device, const char *source,
                                     const char *options, cl_program *out, char **log,
                                     int *implicit)
{
    cl_int err;
    *out = NULL;
    if (log) *log = NULL;
    const cl_uint r0 = implicit ? context_refs(context) : 0;
    cl_program prog = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS) return (clhgemm_status_t)err;
    if (implicit) *implicit = context_refs(context) > r0;
    err = clBuildProgram(prog, 1, &device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        if (log) *log = build_log(prog, device);
        clReleaseProgram(prog);
        return is_build_error(err) ? CLHGEMM_KERNEL_BUILD_FAILED : (clhgemm_status_t)err;
    }
    *out = prog;
    return CLHGEMM_SUCCESS;
}

/* ---- disk level ------------------------------------------------------------------------- */

/* The disk key text, malloc'ed; NULL when it cannot be formed (the disk level is then skipped
 * for this program). */
static char *disk_key(const chg_device_t *dev, const char *source, const char *options)
{
    char platform_version[256] = "";
    size_t size = 0;
    if (clGetPlatformInfo(dev->info.platform, CL_PLATFORM_VERSION, 0, NULL, &size) !=
            CL_SUCCESS ||
        size == 0 || size > sizeof(platform_version) ||
        clGetPlatformInfo(dev->info.platform, CL_PLATFORM_VERSION, size, platform_version,
                          NULL) != CL_SUCCESS)
        return NULL;
    platform_version[sizeof(platform_version) - 1] = '\0';
    chg_str_t s;
    chg_str_init(&s);
    chg_str_printf(&s, "clhgemm-cache-v1\n%s\n%s\n%s\n%s\n", dev->info.name,
                   dev->info.driver_version, platform_version, options);
    chg_str_append(&s, source);
    if (s.failed) {
        chg_str_free(&s);
        return NULL;
    }
    return s.data;
}

/* Reads and validates the file; on success returns the malloc'ed binary and its length.
 * *present tells a missing file (not a reject) from an invalid one. */
static unsigned char *disk_read(const char *path, const char *key, size_t *bin_len, int *present)
{
    *present = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    *present = 1;
    unsigned char *bin = NULL;
    char *stored_key = NULL;
    const char *why = NULL;
    unsigned char hdr[DISK_HEADER_BYTES];
    struct stat st;
    size_t key_len = strlen(key);
    if (fstat(fd, &st) != 0 || read_all(fd, hdr, sizeof(hdr)) != 0) {
        why = "short file";
        goto out;
    }
    if (memcmp(hdr, DISK_MAGIC, 8) != 0) {
        why = "bad magic";
        goto out;
    }
    uint64_t klen = get_u64(hdr + 8), blen = get_u64(hdr + 16), hash = get_u64(hdr + 24);
    if (klen > DISK_MAX_PART || blen > DISK_MAX_PART || blen == 0) {
        why = "absurd lengths";
        goto out;
    }
    if ((uint64_t)st.st_size != DISK_HEADER_BYTES + klen + blen) {
        why = "size does not match header";
        goto out;
    }
    if (klen != key_len) {
        why = "foreign key";
        goto out;
    }
    stored_key = malloc(key_len + 1);
    bin = malloc((size_t)blen);
    if (stored_key == NULL || bin == NULL) {
        why = "out of memory";
        goto out;
    }
    if (read_all(fd, stored_key, key_len) != 0 || read_all(fd, bin, (size_t)blen) != 0) {
        why = "short file";
        goto out;
    }
    if (memcmp(stored_key, key, key_len) != 0) {
        why = "foreign key";
        goto out;
    }
    if (chg_hash(chg_hash(CHG_HASH_INIT, stored_key, key_len), bin, (size_t)blen) != hash) {
        why = "hash mismatch";
        goto out;
    }
    *bin_len = (size_t)blen;
out:
    close(fd);
    free(stored_key);
    if (why != NULL) {
        chg_log(2, "cache file %s rejected: %s", path, why);
        free(bin);
        return NULL;
    }
    return bin;
}

/* Loads a validated binary; NULL if the driver refuses it. */
static cl_program disk_load(cl_context context, cl_device_id device, const unsigned char *bin,
                            size_t len, const char *options, int *implicit)
{
    cl_int err, bin_status = CL_SUCCESS;
    const cl_uint r0 = context_refs(context);
    cl_program prog =
        clCreateProgramWithBinary(context, 1, &device, &len, &bin, &bin_status, &err);
    if (err == CL_SUCCESS) *implicit = context_refs(context) > r0;
    if (err != CL_SUCCESS || bin_status != CL_SUCCESS) {
        if (err == CL_SUCCESS) clReleaseProgram(prog);
        chg_log(2, "cache binary refused by the driver (%d/%d)", (int)err, (int)bin_status);
        return NULL;
    }
    if ((err = clBuildProgram(prog, 1, &device, options, NULL, NULL)) != CL_SUCCESS) {
        chg_log(2, "cache binary failed to build (%d)", (int)err);
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

/* Writes the program's binary for `device` under `path` atomically; 0 on success. */
static int disk_write(const char *dir, const char *path, const char *key, cl_program prog,
                      cl_device_id device)
{
    cl_uint ndev = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof(ndev), &ndev, NULL) != CL_SUCCESS ||
        ndev == 0)
        return -1;
    /* The program spans every device of its context; find our device's slot. */
    int rc = -1, fd = -1;
    cl_uint slot = 0;
    char *tmp = NULL;
    cl_device_id *devs = calloc(ndev, sizeof(*devs));
    size_t *sizes = calloc(ndev, sizeof(*sizes));
    unsigned char **bins = calloc(ndev, sizeof(*bins));
    if (devs == NULL || sizes == NULL || bins == NULL) goto out;
    if (clGetProgramInfo(prog, CL_PROGRAM_DEVICES, ndev * sizeof(*devs), devs, NULL) !=
            CL_SUCCESS ||
        clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, ndev * sizeof(*sizes), sizes, NULL) !=
            CL_SUCCESS)
        goto out;
    while (slot < ndev && devs[slot] != device) slot++;
    if (slot == ndev || sizes[slot] == 0 || sizes[slot] > DISK_MAX_PART) goto out;
    /* Entries left NULL tell the driver to skip the other devices' binaries. */
    if ((bins[slot] = malloc(sizes[slot])) == NULL) goto out;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, ndev * sizeof(*bins), bins, NULL) !=
        CL_SUCCESS)
        goto out;

    size_t key_len = strlen(key), bin_len = sizes[slot];
    unsigned char hdr[DISK_HEADER_BYTES];
    memcpy(hdr, DISK_MAGIC, 8);
    put_u64(hdr + 8, key_len);
    put_u64(hdr + 16, bin_len);
    put_u64(hdr + 24, chg_hash(chg_hash(CHG_HASH_INIT, key, key_len), bins[slot], bin_len));

    if ((tmp = concat(dir, "/.tmp-XXXXXX", NULL, NULL, NULL)) == NULL) goto out;
    if ((fd = mkstemp(tmp)) < 0) {
        warn_cache_dir(dir, errno);
        free(tmp);
        tmp = NULL;
        goto out;
    }
    (void)fchmod(fd, 0644); /* mkstemp makes 0600; the directory is 0755, match it */
    if (chg_write_all(fd, hdr, sizeof(hdr)) != 0 || chg_write_all(fd, key, key_len) != 0 ||
        chg_write_all(fd, bins[slot], bin_len) != 0)
        goto out;
    if (close(fd) != 0) {
        fd = -1;
        goto out;
    }
    fd = -1;
    if (rename(tmp, path) != 0) goto out;
    rc = 0;
out:
    if (fd >= 0) close(fd);
    if (tmp != NULL && rc != 0) unlink(tmp);
    if (rc != 0) chg_log(2, "could not write cache file %s", path);
    free(tmp);
    if (bins != NULL)
        for (cl_uint i = 0; i < ndev; i++) free(bins[i]);
    free(bins);
    free(sizes);
    free(devs);
    return rc;
}

/* ---- public (private-API) functions ----------------------------------------------------- */

const char *chg_cache_dir(char *buf, size_t len)
{
    const char *dir = chg_getenv("CLHGEMM_CACHE_DIR");
    int n;
    if (dir != NULL) {
        if (strcmp(dir, "off") == 0) return NULL;
        n = snprintf(buf, len, "%s", dir);
    } else if ((dir = chg_getenv("XDG_CACHE_HOME")) != NULL && dir[0] == '/') {
        /* The XDG spec says relative values are to be ignored. */
        n = snprintf(buf, len, "%s/clhgemm", dir);
    } else if ((dir = chg_getenv("HOME")) != NULL) {
        n = snprintf(buf, len, "%s/.cache/clhgemm", dir);
    } else {
        return NULL;
    }
    if (n < 0 || (size_t)n >= len) return NULL;
    return buf;
}

void chg_dump_kernel(const char *name, const char *source, const char *options)
{
    const char *dir = chg_getenv("CLHGEMM_DUMP_KERNELS");
    if (dir == NULL || source == NULL) return;
    if (options == NULL) options = "";
    if (make_dirs(dir) != 0) {
        chg_log(2, "cannot create kernel dump directory %s", dir);
        return;
    }
    /* The name becomes part of a file name: keep it to safe characters. */
    char safe[64];
    size_t i = 0;
    for (const char *p = name ? name : "kernel"; *p && i + 1 < sizeof(safe); p++, i++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '.';
        safe[i] = ok ? c : '_';
    }
    safe[i] = '\0';
    uint64_t h = chg_hash(chg_hash(CHG_HASH_INIT, source, strlen(source)), options,
                          strlen(options));
    char path[4096];
    int n = snprintf(path, sizeof(path), "%s/%s-%016llx.cl", dir, safe, (unsigned long long)h);
    if (n < 0 || (size_t)n >= sizeof(path)) return;
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        chg_log(2, "cannot write kernel dump %s", path);
        return;
    }
    fprintf(f, "// options: %s\n", options);
    fputs(source, f);
    if (fclose(f) != 0) chg_log(2, "cannot write kernel dump %s", path);
}

clhgemm_status_t chg_program_build_uncached(cl_context context, cl_device_id device,
                                            const char *source, const char *options,
                                            cl_program *out, char **log)
{
    if (log) *log = NULL;
    if (context == NULL || device == NULL || source == NULL || out == NULL)
        return CLHGEMM_INVALID_ARGUMENT;
    return build_source(context, device, source, options ? options : "", out, log, NULL);
}

/* The disk half of a memory miss: returns a program loaded from a valid file, or NULL (after
 * counting a reject if a file was there). *disk_path / *dkey are set when the disk level is in
 * use for this program, so that the caller can write the file after a source build. Called with
 * cache_lock held. */
static cl_program disk_lookup(cl_context context, const chg_device_t *dev, const char *source,
                              const char *options, char **disk_path, char **dkey,
                              char *dirbuf, size_t dirlen, int *implicit)
{
    *disk_path = NULL;
    *dkey = NULL;
    const char *dir = chg_cache_dir(dirbuf, dirlen);
    if (dir == NULL) return NULL;
    if (make_dirs(dir) != 0) {
        const int err = errno;
        chg_log(2, "cache directory %s cannot be created; disk cache off", dir);
        warn_cache_dir(dir, err);
        return NULL;
    }
    char *key = disk_key(dev, source, options);
    if (key == NULL) return NULL;
    char name[40];
    snprintf(name, sizeof(name), "/%016llx.clbin",
             (unsigned long long)chg_hash(CHG_HASH_INIT, key, strlen(key)));
    char *path = concat(dir, name, NULL, NULL, NULL);
    if (path == NULL) {
        free(key);
        return NULL;
    }
    *disk_path = path;
    *dkey = key;

    int present = 0;
    size_t bin_len = 0;
    unsigned char *bin = disk_read(path, key, &bin_len, &present);
    cl_program prog = NULL;
    if (bin != NULL) prog = disk_load(context, dev->info.device, bin, bin_len, options, implicit);
    free(bin);
    if (prog != NULL)
        cache_counters.disk_hits++;
    else if (present)
        cache_counters.disk_rejects++;
    return prog;
}

/* ---- the calling thread's reference on the program it was handed last ------------------- */

static pthread_once_t pinned_once = PTHREAD_ONCE_INIT;
static pthread_key_t pinned_key;
static int pinned_ok;

static void pinned_free(void *prog)
{
    if (prog != NULL) clReleaseProgram((cl_program)prog);
}

static void pinned_init(void) { pinned_ok = pthread_key_create(&pinned_key, pinned_free) == 0; }

/* The calling thread now holds a reference on `prog` (NULL: on nothing) instead of on the
 * program it was handed before. Called with cache_lock held when prog comes from the table, so
 * that no drop can release it first. */
static void pinned_set(cl_program prog)
{
    pthread_once(&pinned_once, pinned_init);
    if (!pinned_ok) return; /* no key: callers rely on the table alone, as before */
    cl_program old = pthread_getspecific(pinned_key);
    if (old == prog) return;
    if (prog != NULL) clRetainProgram(prog);
    if (pthread_setspecific(pinned_key, prog) != 0) {
        if (prog != NULL) clReleaseProgram(prog);
        return;
    }
    if (old != NULL) clReleaseProgram(old);
}

/* ---- the in-memory table (every function here runs with cache_lock held) --------------- */

static void entry_free(entry_t *e)
{
    if (e->program != NULL) clReleaseProgram(e->program);
    free(e->key);
    free(e);
}

/* Unlinks the group *pp and frees it with its entries and its context reference. */
static void group_drop(group_t **pp)
{
    group_t *g = *pp;
    *pp = g->next;
    while (g->entries != NULL) {
        entry_t *e = g->entries;
        g->entries = e->next;
        entry_free(e);
        cache_nentries--;
    }
    clReleaseContext(g->context);
    free(g);
    cache_ngroups--;
}

/* The group of `context`, made (with its context reference) when there is none yet; NULL when
 * out of memory. */
static group_t *group_get(cl_context context)
{
    group_t *g = cache_groups;
    while (g != NULL && g->context != context) g = g->next;
    if (g != NULL) return g;
    if ((g = calloc(1, sizeof(*g))) == NULL) return NULL;
    clRetainContext(context);
    g->context = context;
    g->next = cache_groups;
    cache_groups = g;
    cache_ngroups++;
    return g;
}

/* Whether nothing but the cache references g's context: its reference count is at most the
 * group's own reference plus those its programs were seen to add (an unreadable count, 0,
 * counts as unused too: the context is then no use to anyone). */
static int group_unused(const group_t *g)
{
    cl_uint ours = 1;
    for (const entry_t *e = g->entries; e != NULL; e = e->next) ours += e->implicit ? 1u : 0u;
    return context_refs(g->context) <= ours;
}

/* The least recently used group other than `keep` (pointer to its link), or NULL. */
static group_t **group_lru(const group_t *keep)
{
    group_t **best = NULL;
    for (group_t **pp = &cache_groups; *pp != NULL; pp = &(*pp)->next)
        if (*pp != keep && (best == NULL || (*pp)->used < (*best)->used)) best = pp;
    return best;
}

/* Drops the least recently used program of the whole table (and its group, if that is left
 * empty and is not `keep`). */
static void entry_drop_lru(const group_t *keep)
{
    group_t **gbest = NULL;
    entry_t **ebest = NULL;
    for (group_t **gp = &cache_groups; *gp != NULL; gp = &(*gp)->next)
        for (entry_t **ep = &(*gp)->entries; *ep != NULL; ep = &(*ep)->next)
            if (ebest == NULL || (*ep)->used < (*ebest)->used) {
                ebest = ep;
                gbest = gp;
            }
    if (ebest == NULL) return;
    entry_t *e = *ebest;
    *ebest = e->next;
    entry_free(e);
    cache_nentries--;
    if ((*gbest)->entries == NULL && *gbest != keep) group_drop(gbest);
}

/* Before a program is added to `keep`: drops the groups of contexts that only the cache still
 * holds, then the least recently used groups and programs beyond the caps, so that the table
 * stays within them with the new program. */
static void cache_trim(const group_t *keep)
{
    for (group_t **pp = &cache_groups; *pp != NULL;) {
        if (*pp != keep && group_unused(*pp)) {
            chg_log(2, "program cache: context %p is not used any more; dropping its programs",
                    (void *)(*pp)->context);
            group_drop(pp);
        } else {
            pp = &(*pp)->next;
        }
    }
    group_t **lru;
    while (cache_ngroups > CHG_CACHE_MAX_CONTEXTS && (lru = group_lru(keep)) != NULL) {
        chg_log(2, "program cache: over %d contexts; dropping the programs of context %p",
                CHG_CACHE_MAX_CONTEXTS, (void *)(*lru)->context);
        group_drop(lru);
    }
    while (cache_nentries >= CHG_CACHE_MAX_PROGRAMS) entry_drop_lru(keep);
}

/* A memory miss: the program from the disk level, else built from source (and written there).
 * *out is NULL unless the status is CLHGEMM_SUCCESS. */
static clhgemm_status_t program_load(cl_context context, const chg_device_t *dev,
                                     const char *name, const char *source, const char *options,
                                     cl_program *out, int *implicit)
{
    chg_dump_kernel(name, source, options);
    double t0 = now_ms();
    char dirbuf[4096], *disk_path = NULL, *dkey = NULL;
    cl_program prog = disk_lookup(context, dev, source, options, &disk_path, &dkey, dirbuf,
                                  sizeof(dirbuf), implicit);
    clhgemm_status_t st = CLHGEMM_SUCCESS;
    if (prog != NULL) {
        chg_log(2, "%s: loaded from %s (%.1f ms)", name, disk_path, now_ms() - t0);
    } else {
        char *log = NULL;
        st = build_source(context, dev->info.device, source, options, &prog, &log, implicit);
        if (st == CLHGEMM_SUCCESS) {
            cache_counters.builds++;
            chg_log(2, "%s: built from source on %s (%.1f ms)", name, dev->info.name,
                    now_ms() - t0);
            if (disk_path != NULL &&
                disk_write(dirbuf, disk_path, dkey, prog, dev->info.device) == 0)
                cache_counters.disk_writes++;
        } else {
            chg_log(1, "%s: build failed on %s (%s); options: %s", name, dev->info.name,
                    clhgemm_status_string(st), options);
            if (log != NULL)
                chg_log(1, "build log:\n%.*s%s", LOG_MAX_BYTES, log,
                        strlen(log) > LOG_MAX_BYTES ? "\n[... truncated]" : "");
        }
        free(log);
    }
    free(disk_path);
    free(dkey);
    *out = prog;
    return st;
}

/* The entry of (device, hash, key) in g, or NULL. */
static entry_t *entry_find(group_t *g, cl_device_id device, uint64_t hash, const char *key)
{
    entry_t *e = g->entries;
    while (e != NULL && !(e->device == device && e->hash == hash && strcmp(e->key, key) == 0))
        e = e->next;
    return e;
}

clhgemm_status_t chg_program_get(cl_context context, const chg_device_t *dev, const char *name,
                                 const char *source, const char *options, cl_program *out)
{
    if (out != NULL) *out = NULL;
    if (context == NULL || dev == NULL || source == NULL || out == NULL)
        return CLHGEMM_INVALID_ARGUMENT;
    if (options == NULL) options = "";
    if (name == NULL) name = "program";
    cl_device_id device = dev->info.device;

    const char *fault = chg_getenv("CLHGEMM_FAULT_BUILD");
    if (fault != NULL && strstr(name, fault) != NULL) {
        chg_log(1, "%s: build failure injected by CLHGEMM_FAULT_BUILD", name);
        return CLHGEMM_KERNEL_BUILD_FAILED;
    }

    char *key = concat(source, "\n//options:", options, NULL, NULL);
    if (key == NULL) return CLHGEMM_OUT_OF_HOST_MEMORY;
    uint64_t hash = chg_hash(CHG_HASH_INIT, key, strlen(key));

    clhgemm_status_t st = CLHGEMM_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&cache_lock);
    group_t *g = group_get(context);
    entry_t *e = g != NULL ? entry_find(g, device, hash, key) : NULL;
    if (g != NULL) g->used = ++cache_tick;
    if (e != NULL) {
        /* a remembered build failure stays one */
        st = CLHGEMM_KERNEL_BUILD_FAILED;
        e->used = cache_tick;
        if (e->program != NULL) {
            cache_counters.memory_hits++;
            st = CLHGEMM_SUCCESS;
        }
    } else if (g != NULL && (e = calloc(1, sizeof(*e))) != NULL) {
        cache_trim(g);
        st = program_load(context, dev, name, source, options, &e->program, &e->implicit);
        /* Remember successes and genuine build failures; a transient error (out of
         * resources) is not remembered, so the next call tries again. */
        if (st == CLHGEMM_SUCCESS || st == CLHGEMM_KERNEL_BUILD_FAILED) {
            e->device = device;
            e->hash = hash;
            e->key = key;
            e->used = cache_tick;
            e->next = g->entries;
            g->entries = e;
            cache_nentries++;
            key = NULL;
        } else {
            free(e);
            e = NULL;
        }
    }
    /* The thread's own reference: the program outlives any drop from the table until this
     * thread asks for another one. */
    if (st == CLHGEMM_SUCCESS) *out = e->program;
    pinned_set(st == CLHGEMM_SUCCESS ? e->program : NULL);
    pthread_mutex_unlock(&cache_lock);
    free(key);
    return st;
}

void chg_cache_stats(chg_cache_stats_t *out)
{
    if (out == NULL) return;
    pthread_mutex_lock(&cache_lock);
    *out = cache_counters;
    out->programs = cache_nentries;
    out->contexts = cache_ngroups;
    pthread_mutex_unlock(&cache_lock);
}

void chg_cache_release_all(void)
{
    pthread_mutex_lock(&cache_lock);
    while (cache_groups != NULL) group_drop(&cache_groups);
    memset(&cache_counters, 0, sizeof(cache_counters));
    pinned_set(NULL); /* the caller's own; other threads' stay until their next lookup */
    pthread_mutex_unlock(&cache_lock);
}
