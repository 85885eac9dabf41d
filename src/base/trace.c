/*
 * trace.c -- Chrome trace-event JSON of the host pipeline (the contract is in trace.h).
 *
 * A trace collects two kinds of spans while a call runs: host spans (pack/unpack work of the CPU
 * threads, already on the host clock) and device commands, kept as retained cl_events and read
 * only at the end, so that recording costs a retain and an array append under a mutex, never a
 * synchronisation with the device. Device timestamps (CL_PROFILING_COMMAND_START/END, device
 * clock) are moved to the host clock by a per-device offset measured with a marker: the marker
 * ended no later than the host time read right after waiting for it, so host_after - end is an
 * upper bound of the true offset; taking the smallest of a few such measurements tightens it to
 * the wait latency (microseconds), which is what the overlap picture needs.
 *
 * Output: {"traceEvents":[...], "displayTimeUnit":"ms", "otherData":{...}} with complete events
 * ("ph":"X", ts/dur in microseconds from the earliest event, pid 1, one tid per track) and
 * metadata naming and ordering the tracks: per device the h2d, kernel and d2h queues (then any
 * other queue), then other host tracks, then the pack threads. Device events whose times cannot
 * be read (queue without profiling, command failed or not complete, device never aligned) are
 * skipped and counted in the "skipped" argument. The file is written beside the target and
 * renamed over it, so a reader never sees half a trace; the temporary name carries the process
 * id and a counter so that two handles tracing to one path cannot interleave their writes.
 */
#include "base/trace.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

unsigned long long chg_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

typedef struct trace_track_s {
    char *name;
    int device; /* device index of its first device event, -1 for host tracks */
    int sort;   /* thread_sort_index, assigned at the end */
} trace_track_t;

typedef struct trace_event_s {
    char *name;
    int track;
    int device;                /* -1: host span */
    cl_event ev;               /* device command (retained), else NULL */
    cl_event ev0;              /* a span's first marker (retained; its end is the start), or NULL */
    unsigned long long t0, t1; /* host clock ns (device events: filled at the end) */
} trace_event_t;

typedef struct trace_offset_s {
    int device;
    long long offset_ns; /* host_ns = device_ns + offset_ns */
} trace_offset_t;

struct chg_trace_s {
    pthread_mutex_t lock;
    char *path;
    const char *origin; /* what set path (static text), for the warning */
    trace_track_t *tracks;
    size_t ntracks, captracks;
    trace_event_t *events;
    size_t nevents, capevents;
    trace_offset_t *offsets;
    size_t noffsets, capoffsets;
    unsigned long long dropped; /* not recorded: host allocation failed */
    unsigned long long skipped; /* device events whose times could not be read */
    int align_failed;           /* devices whose clock could not be aligned */
};

static char *dup_str(const char *s)
{
    if (!s) s = "";
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Grows *arr (elements of size esz) so that one more fits. 0 on success. */
static int grow(void **arr, size_t *cap, size_t n, size_t esz)
{
    if (n < *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    void *p = realloc(*arr, nc * esz);
    if (!p) return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

chg_trace_t *chg_trace_begin(const char *path, const char *origin)
{
    if (!path || !*path) return NULL;
    chg_trace_t *t = calloc(1, sizeof *t);
    if (!t) {
        chg_log(1, "trace: out of host memory, no trace written to %s", path);
        return NULL;
    }
    t->path = dup_str(path);
    t->origin = origin ? origin : "trace file";
    if (!t->path || pthread_mutex_init(&t->lock, NULL) != 0) {
        free(t->path);
        free(t);
        chg_log(1, "trace: cannot start a trace for %s", path);
        return NULL;
    }
    return t;
}

/* Index of the track named `name` (created when new), -1 on allocation failure. Lock held. */
static int track_get(chg_trace_t *t, const char *name, int device)
{
    if (!name) name = "";
    for (size_t i = 0; i < t->ntracks; i++)
        if (strcmp(t->tracks[i].name, name) == 0) {
            if (t->tracks[i].device < 0 && device >= 0) t->tracks[i].device = device;
            return (int)i;
        }
    if (grow((void **)&t->tracks, &t->captracks, t->ntracks, sizeof *t->tracks)) return -1;
    char *d = dup_str(name);
    if (!d) return -1;
    t->tracks[t->ntracks].name = d;
    t->tracks[t->ntracks].device = device;
    t->tracks[t->ntracks].sort = 0;
    return (int)t->ntracks++;
}

/* Appends an event (name copied); 0 on success, lock held. */
static int event_add(chg_trace_t *t, const char *track, int device, const char *name, cl_event ev,
                     unsigned long long t0, unsigned long long t1)
{
    int tr = track_get(t, track, device);
    if (tr < 0) return -1;
    if (grow((void **)&t->events, &t->capevents, t->nevents, sizeof *t->events)) return -1;
    char *d = dup_str(name);
    if (!d) return -1;
    trace_event_t *e = &t->events[t->nevents++];
    e->name = d;
    e->track = tr;
    e->device = device;
    e->ev = ev;
    e->ev0 = NULL;
    e->t0 = t0;
    e->t1 = t1;
    return 0;
}

void chg_trace_align(chg_trace_t *t, int device_index, cl_command_queue queue)
{
    if (!t || !queue) return;
    /* Best (smallest) of a few measurements; each is an upper bound of the true offset. */
    int have = 0;
    long long best = 0;
    for (int rep = 0; rep < 3; rep++) {
        cl_event ev = NULL;
        cl_int err = clEnqueueMarkerWithWaitList(queue, 0, NULL, &ev);
        if (err != CL_SUCCESS || !ev) break;
        err = clWaitForEvents(1, &ev);
        unsigned long long host = chg_now_ns();
        cl_ulong end = 0;
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        clReleaseEvent(ev);
        if (err != CL_SUCCESS || end == 0) break;
        long long off = (long long)(host - (unsigned long long)end);
        if (!have || off < best) best = off;
        have = 1;
    }
    pthread_mutex_lock(&t->lock);
    if (!have) {
        t->align_failed++;
        chg_log(1, "trace: device %d: no profiling on its queue; its commands are left out",
                device_index);
    } else {
        size_t i;
        for (i = 0; i < t->noffsets; i++)
            if (t->offsets[i].device == device_index) break;
        if (i == t->noffsets) {
            if (grow((void **)&t->offsets, &t->capoffsets, t->noffsets, sizeof *t->offsets)) {
                pthread_mutex_unlock(&t->lock);
                return;
            }
            t->noffsets++;
        }
        t->offsets[i].device = device_index;
        t->offsets[i].offset_ns = best;
    }
    pthread_mutex_unlock(&t->lock);
}

void chg_trace_host(chg_trace_t *t, const char *track, const char *name, unsigned long long t0_ns,
                    unsigned long long t1_ns)
{
    if (!t) return;
    if (t1_ns < t0_ns) t1_ns = t0_ns;
    pthread_mutex_lock(&t->lock);
    if (event_add(t, track, -1, name, NULL, t0_ns, t1_ns)) t->dropped++;
    pthread_mutex_unlock(&t->lock);
}

void chg_trace_device(chg_trace_t *t, int device_index, const char *track, const char *name,
                      cl_event ev)
{
    if (!t || !ev) return;
    if (clRetainEvent(ev) != CL_SUCCESS) {
        pthread_mutex_lock(&t->lock);
        t->skipped++;
        pthread_mutex_unlock(&t->lock);
        return;
    }
    pthread_mutex_lock(&t->lock);
    if (event_add(t, track, device_index < 0 ? 0 : device_index, name, ev, 0, 0)) {
        t->dropped++;
        clReleaseEvent(ev);
    }
    pthread_mutex_unlock(&t->lock);
}

void chg_trace_device_span(chg_trace_t *t, int device_index, const char *track,
                           const char *name, cl_event first, cl_event last)
{
    if (!t || !first || !last) return;
    if (clRetainEvent(first) != CL_SUCCESS) return;
    if (clRetainEvent(last) != CL_SUCCESS) {
        clReleaseEvent(first);
        return;
    }
    pthread_mutex_lock(&t->lock);
    if (event_add(t, track, device_index < 0 ? 0 : device_index, name, last, 0, 0)) {
        t->dropped++;
        clReleaseEvent(first);
        clReleaseEvent(last);
    } else {
        t->events[t->nevents - 1].ev0 = first;
    }
    pthread_mutex_unlock(&t->lock);
}

/* ---- output ------------------------------------------------------------------------------ */

static void put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* Role of a device queue track within its device: h2d, kernel/compute, d2h, anything else. */
static int track_role(const char *name)
{
    if (strstr(name, "h2d")) return 0;
    if (strstr(name, "kernel") || strstr(name, "compute")) return 1;
    if (strstr(name, "d2h")) return 2;
    return 3;
}

/* Compares names with embedded numbers by value ("pack 2" < "pack 10"). */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            char *ea, *eb;
            unsigned long long x = strtoull(a, &ea, 10);
            unsigned long long y = strtoull(b, &eb, 10);
            if (x != y) return x < y ? -1 : 1;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

/* Device queues first (by device, then h2d, kernel, d2h, others), then host tracks other than
 * the pack threads, then the pack threads in numeric order. */
static int track_group(const trace_track_t *tr)
{
    if (tr->device >= 0) return 0;
    return strstr(tr->name, "pack") ? 2 : 1;
}

static int track_cmp(const void *pa, const void *pb)
{
    const trace_track_t *a = *(const trace_track_t *const *)pa;
    const trace_track_t *b = *(const trace_track_t *const *)pb;
    int ga = track_group(a), gb = track_group(b);
    if (ga != gb) return ga - gb;
    if (ga == 0) {
        if (a->device != b->device) return a->device - b->device;
        int ra = track_role(a->name), rb = track_role(b->name);
        if (ra != rb) return ra - rb;
    }
    return natural_cmp(a->name, b->name);
}

static int event_cmp(const void *pa, const void *pb)
{
    const trace_event_t *a = pa, *b = pb;
    if (a->t0 != b->t0) return a->t0 < b->t0 ? -1 : 1;
    return a->track - b->track;
}

static const trace_offset_t *offset_of(const chg_trace_t *t, int device)
{
    for (size_t i = 0; i < t->noffsets; i++)
        if (t->offsets[i].device == device) return &t->offsets[i];
    return NULL;
}

/* Device events: host-clock times, or marked skipped (t1 < t0 is impossible otherwise). */
static void resolve_device_times(chg_trace_t *t)
{
    for (size_t i = 0; i < t->nevents; i++) {
        trace_event_t *e = &t->events[i];
        if (!e->ev) continue;
        const trace_offset_t *off = offset_of(t, e->device);
        cl_ulong s = 0, f = 0;
        cl_int err1 = clGetEventProfilingInfo(e->ev0 ? e->ev0 : e->ev,
                                              e->ev0 ? CL_PROFILING_COMMAND_END
                                                     : CL_PROFILING_COMMAND_START,
                                              sizeof s, &s, NULL);
        cl_int err2 = clGetEventProfilingInfo(e->ev, CL_PROFILING_COMMAND_END, sizeof f, &f, NULL);
        clReleaseEvent(e->ev);
        e->ev = NULL;
        if (e->ev0) clReleaseEvent(e->ev0);
        e->ev0 = NULL;
        long long h0 = off ? (long long)s + off->offset_ns : 0;
        long long h1 = off ? (long long)f + off->offset_ns : 0;
        if (!off || err1 != CL_SUCCESS || err2 != CL_SUCCESS || f < s || s == 0 || h0 < 0) {
            e->device = -2; /* skipped */
            t->skipped++;
            continue;
        }
        e->t0 = (unsigned long long)h0;
        e->t1 = (unsigned long long)h1;
    }
}

static int write_json(chg_trace_t *t, FILE *f)
{
    /* Drop skipped events, sort the rest by start time. */
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        if (t->events[i].device == -2) {
            free(t->events[i].name);
            continue;
        }
        t->events[n++] = t->events[i];
    }
    t->nevents = n;
    if (n > 1) qsort(t->events, n, sizeof *t->events, event_cmp);
    unsigned long long base = n ? t->events[0].t0 : 0;

    trace_track_t **order = malloc((t->ntracks ? t->ntracks : 1) * sizeof *order);
    if (!order) return -1;
    for (size_t i = 0; i < t->ntracks; i++) order[i] = &t->tracks[i];
    if (t->ntracks > 1) qsort(order, t->ntracks, sizeof *order, track_cmp);
    for (size_t i = 0; i < t->ntracks; i++) order[i]->sort = (int)i;
    free(order);

    fprintf(f, "{\"traceEvents\":[\n");
    fprintf(f,
            "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":"
            "\"clhgemm\",\"skipped\":%llu,\"dropped\":%llu,\"unaligned_devices\":%d}}",
            t->skipped, t->dropped, t->align_failed);
    for (size_t i = 0; i < t->ntracks; i++) {
        fprintf(f,
                ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%zu,\"name\":\"thread_name\",\"args\":{"
                "\"name\":",
                i + 1);
        put_json_string(f, t->tracks[i].name);
        fprintf(f,
                "}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":%zu,\"name\":\"thread_sort_index\","
                "\"args\":{\"sort_index\":%d}}",
                i + 1, t->tracks[i].sort);
    }
    for (size_t i = 0; i < n; i++) {
        const trace_event_t *e = &t->events[i];
        fprintf(f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"name\":", e->track + 1);
        put_json_string(f, e->name);
        fprintf(f, ",\"cat\":\"%s\",\"ts\":%.3f,\"dur\":%.3f", e->device >= 0 ? "device" : "host",
                (double)(e->t0 - base) / 1e3, (double)(e->t1 - e->t0) / 1e3);
        if (e->device >= 0) fprintf(f, ",\"args\":{\"device\":%d}", e->device);
        fputs("}", f);
    }
    fprintf(f,
            "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"skipped\":%llu,\"dropped\":%llu,"
            "\"events\":%zu}}\n",
            t->skipped, t->dropped, n);
    return ferror(f) ? -1 : 0;
}

static void trace_free(chg_trace_t *t)
{
    for (size_t i = 0; i < t->nevents; i++) {
        if (t->events[i].ev) clReleaseEvent(t->events[i].ev);
        if (t->events[i].ev0) clReleaseEvent(t->events[i].ev0);
        free(t->events[i].name);
    }
    for (size_t i = 0; i < t->ntracks; i++) free(t->tracks[i].name);
    free(t->events);
    free(t->tracks);
    free(t->offsets);
    free(t->path);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

int chg_trace_end(chg_trace_t *t)
{
    if (!t) return 0;
    static unsigned counter;
    pthread_mutex_lock(&t->lock);
    resolve_device_times(t);
    int rc = -1;
    size_t len = strlen(t->path) + 64;
    char *tmp = malloc(len);
    if (tmp) {
        snprintf(tmp, len, "%s.tmp.%ld.%u", t->path, (long)getpid(),
                 __atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED));
        /* A trace asked for and not written is said whatever the verbosity, once per path:
         * every later call would fail the same way. */
        FILE *f = fopen(tmp, "w");
        if (!f) {
            const int err = errno;
            chg_log(1, "trace: cannot open %s: %s", tmp, strerror(err));
            chg_env_warn(t->origin, t->path, "cannot be written (%s: %s); no trace is written",
                         tmp, strerror(err));
        } else {
            int werr = write_json(t, f);
            if (fclose(f) != 0) werr = -1;
            if (werr) {
                const int err = errno;
                chg_log(1, "trace: writing %s failed", tmp);
                chg_env_warn(t->origin, t->path, "cannot be written (%s: %s); no trace is written",
                             tmp, strerror(err));
                remove(tmp);
            } else if (rename(tmp, t->path) != 0) {
                const int err = errno;
                chg_log(1, "trace: cannot rename %s to %s: %s", tmp, t->path, strerror(err));
                chg_env_warn(t->origin, t->path, "cannot be written (rename: %s); no trace is "
                             "written", strerror(err));
                remove(tmp);
            } else {
                rc = 0;
                chg_log(1, "trace: %zu events written to %s (%llu skipped)", t->nevents, t->path,
                        t->skipped);
            }
        }
        free(tmp);
    } else {
        chg_log(1, "trace: out of host memory, no trace written to %s", t->path);
    }
    pthread_mutex_unlock(&t->lock);
    trace_free(t);
    return rc;
}
