/*
 * workspace.c -- the per-queue workspaces of the device GEMM core and the kernels each keeps
 * (see workspace.h): their list, lifetime (a queue the user released, chg_gemm_release_all,
 * a call still in flight), buffers, and the kept kernel sets with their statistics; also the
 * workspace budget of a device (CLHGEMM_WORKSPACE_LIMIT).
 */
#include "core/workspace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "device/cache.h"

/* ---- workspaces ------------------------------------------------------------------------- */

#define WS_KSETS 16

struct chg_workspace_s {
    cl_command_queue queue;  /* retained */
    pthread_mutex_t lock;    /* held for a whole call */
    cl_mem buf[CHG_WS_COUNT];
    size_t bytes[CHG_WS_COUNT];
    cl_event last;           /* last command of the previous call (retained), or NULL */
    int busy;                /* a call holds or waits for `lock` (protected by g_ws_lock) */
    int orphan;              /* unlinked by chg_gemm_release_all while busy: the last call
                                to leave frees it (protected by g_ws_lock) */
    int buffers_hold_queue;  /* the driver counts a buffer's last command among the queue's
                                references (buffers_hold_queue()) */
    chg_kset_t kset[WS_KSETS]; /* kernels of recent calls on this queue (least recently used
                                  out), used under `lock` */
    unsigned long long ktick;
    unsigned long long kseen; /* program lookups counted by the cache at the last build */
    struct chg_workspace_s *next;
};

static pthread_mutex_t g_ws_lock = PTHREAD_MUTEX_INITIALIZER;
static chg_workspace_t *g_ws;

static void kset_release(chg_kset_t *k)
{
    if (!k->used) return;
    chg_gemm_kernels_release(&k->ks);
    if (k->extra) clReleaseKernel(k->extra);
    memset(k, 0, sizeof *k);
}

/* Frees a workspace; wait: first let its last call finish (not needed for safety: OpenCL
 * keeps a released buffer until the commands using it are done). */
static void ws_free(chg_workspace_t *w, int wait)
{
    for (int i = 0; i < WS_KSETS; i++) kset_release(&w->kset[i]);
    if (w->last) {
        if (wait) clWaitForEvents(1, &w->last);
        clReleaseEvent(w->last);
    }
    for (int i = 0; i < CHG_WS_COUNT; i++)
        if (w->buf[i]) clReleaseMemObject(w->buf[i]);
    clReleaseCommandQueue(w->queue);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

/* Whether a buffer that a command of a queue used holds a reference on that queue, on the
 * driver of `queue` (PoCL: a buffer keeps the event of its last command, and an event counts
 * among the references of its queue). Probed once per platform, on a private queue and buffer
 * of the queue's context, with g_ws_lock held; 0 (the safe answer: a workspace is then only
 * freed at a reference count of exactly one) when the probe cannot run. */
static int buffers_hold_queue(cl_command_queue queue)
{
    static struct {
        cl_platform_id platform;
        int holds;
    } known[8];
    static int nknown;
    cl_context ctx;
    cl_device_id dev;
    cl_platform_id platform;
    if (clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL) != CL_SUCCESS ||
        clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) != CL_SUCCESS)
        return 0;
    for (int i = 0; i < nknown; i++)
        if (known[i].platform == platform) return known[i].holds;
    int holds = 0;
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_mem m = q ? clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err) : NULL;
    const cl_uint zero = 0;
    cl_uint refs = 0;
    if (m && clEnqueueFillBuffer(q, m, &zero, sizeof zero, 0, 64, 0, NULL, NULL) == CL_SUCCESS &&
        clFinish(q) == CL_SUCCESS &&
        clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL) == CL_SUCCESS)
        holds = refs > 1;
    if (m) clReleaseMemObject(m);
    if (q) clReleaseCommandQueue(q);
    if (nknown < (int)(sizeof known / sizeof known[0])) {
        known[nknown].platform = platform;
        known[nknown++].holds = holds;
    }
    return holds;
}

/* Whether only the workspace w (not busy; g_ws_lock held) still references its queue, so that
 * the user released it: its reference count is one (ours) plus, where buffers hold their
 * queue, one per workspace buffer. Its last event is let go of first once that has finished
 * (an event holds its queue too). Without this, every workspace of a released queue would keep
 * the queue, its buffers and its context alive for good. A user buffer still alive that the
 * queue used only delays the release; a wrong guess can only free the workspace of a queue in
 * use, which then gets a new one. */
static int ws_orphaned(chg_workspace_t *w)
{
    cl_int status = CL_QUEUED;
    if (w->last &&
        clGetEventInfo(w->last, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                       NULL) == CL_SUCCESS &&
        status <= CL_COMPLETE) {
        clReleaseEvent(w->last);
        w->last = NULL;
    }
    if (w->last) return 0; /* still running */
    cl_uint ours = 1;
    if (w->buffers_hold_queue)
        for (int i = 0; i < CHG_WS_COUNT; i++) ours += w->buf[i] ? 1u : 0u;
    cl_uint refs = 0;
    return clGetCommandQueueInfo(w->queue, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL) ==
               CL_SUCCESS &&
           refs <= ours;
}

/* Finds (or creates) the workspace of `queue`, marks it busy and locks it. Workspaces whose
 * queue only the library still references (the user released it) are freed on the way. */
chg_workspace_t *chg_ws_acquire(cl_command_queue queue)
{
    pthread_mutex_lock(&g_ws_lock);
    chg_workspace_t **pp = &g_ws, *found = NULL;
    while (*pp) {
        chg_workspace_t *w = *pp;
        if (w->queue == queue) {
            found = w;
        } else if (!w->busy && ws_orphaned(w)) {
            *pp = w->next;
            ws_free(w, 1);
            continue;
        }
        pp = &w->next;
    }
    if (!found) {
        found = calloc(1, sizeof *found);
        if (found) {
            pthread_mutex_init(&found->lock, NULL);
            clRetainCommandQueue(queue);
            found->queue = queue;
            found->buffers_hold_queue = buffers_hold_queue(queue);
            found->next = g_ws;
            g_ws = found;
        }
    }
    if (found) found->busy++;
    pthread_mutex_unlock(&g_ws_lock);
    if (found) pthread_mutex_lock(&found->lock);
    return found;
}

void chg_ws_release(chg_workspace_t *w)
{
    pthread_mutex_unlock(&w->lock);
    pthread_mutex_lock(&g_ws_lock);
    const int drop = --w->busy == 0 && w->orphan;
    pthread_mutex_unlock(&g_ws_lock);
    /* released while this call ran: freed now, without making the caller wait */
    if (drop) ws_free(w, 0);
}

void chg_gemm_release_all(void)
{
    pthread_mutex_lock(&g_ws_lock);
    chg_workspace_t *w = g_ws, *idle = NULL;
    g_ws = NULL;
    while (w) {
        chg_workspace_t *next = w->next;
        /* A call in flight keeps its workspace; the last call to leave it frees it. */
        if (w->busy) {
            w->orphan = 1;
        } else {
            w->next = idle;
            idle = w;
        }
        w = next;
    }
    pthread_mutex_unlock(&g_ws_lock);
    while (idle) {
        chg_workspace_t *next = idle->next;
        ws_free(idle, 1);
        idle = next;
    }
}

/* Makes buffer `which` at least `bytes` large. Buffers only grow: a later smaller call reuses
 * them. Releasing an old buffer is safe while commands still use it (OpenCL defers it). */
cl_int chg_ws_reserve(chg_workspace_t *w, cl_context ctx, int which, size_t bytes)
{
    if (w->bytes[which] >= bytes) return CL_SUCCESS;
    if (w->buf[which]) clReleaseMemObject(w->buf[which]);
    w->buf[which] = NULL;
    w->bytes[which] = 0;
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return err;
    w->buf[which] = m;
    w->bytes[which] = bytes;
    return CL_SUCCESS;
}

void chg_ws_drop_buffers(chg_workspace_t *w)
{
    for (int i = 0; i < CHG_WS_COUNT; i++) {
        if (w->buf[i]) clReleaseMemObject(w->buf[i]);
        w->buf[i] = NULL;
        w->bytes[i] = 0;
    }
}

cl_mem chg_ws_buffer(const chg_workspace_t *w, int which)
{
    return w->buf[which];
}

cl_event chg_ws_last(const chg_workspace_t *w)
{
    return w->last;
}

void chg_ws_set_last(chg_workspace_t *w, cl_event ev)
{
    if (w->last) clReleaseEvent(w->last);
    w->last = ev;
    clRetainEvent(w->last);
}

/* ---- kernels kept per workspace ---------------------------------------------------------
 * Creating a call's kernels is most of a small call's host time: each program lookup generates
 * the specialised source (tens of KiB), hashes and compares it, and clCreateKernel follows (on
 * NVIDIA tens of microseconds each). The workspace of a queue keeps the kernels of its recent
 * calls instead, keyed by everything that selects them (chg_kkey_t): a repeated call sets their
 * arguments and enqueues, nothing else. A cl_kernel is not thread-safe, and the workspace is
 * locked for the whole enqueue sequence of a call, so one thread at a time uses them; they go
 * with the workspace (chg_gemm_release_all, clhgemm_release_resources, a released queue). A
 * change of tuning or environment changes the parameters in the key, hence a new entry. */

static unsigned long long g_kset_hits, g_kset_builds; /* under the workspaces' locks: tests */

/* Program lookups the cache has counted since it was last released (chg_cache_release_all
 * resets its counters and empties it). */
static unsigned long long cache_lookups(unsigned long *programs)
{
    chg_cache_stats_t cs;
    chg_cache_stats(&cs);
    *programs = cs.programs;
    return cs.memory_hits + cs.disk_hits + cs.disk_rejects + cs.builds;
}

clhgemm_status_t chg_ws_kernels(chg_workspace_t *w, const chg_kkey_t *key, cl_context ctx,
                                const chg_device_t *dev, chg_kbuild_fn build,
                                const chg_kset_t **out)
{
    /* The program cache released since this workspace's last build (it is empty, or counts
     * fewer lookups than then): its kept kernels go too, so that the release takes back what
     * they hold, as it did when every call created its kernels. Best effort: a release that
     * many lookups followed goes unnoticed, which costs memory, never a result. */
    unsigned long programs;
    if (w->ktick && (cache_lookups(&programs) < w->kseen || programs == 0))
        for (int i = 0; i < WS_KSETS; i++) kset_release(&w->kset[i]);
    chg_kset_t *victim = &w->kset[0];
    for (int i = 0; i < WS_KSETS; i++) {
        chg_kset_t *k = &w->kset[i];
        if (k->used && !memcmp(&k->key, key, sizeof *key)) {
            k->used = ++w->ktick;
            __atomic_add_fetch(&g_kset_hits, 1, __ATOMIC_RELAXED);
            *out = k;
            return CLHGEMM_SUCCESS;
        }
        if (k->used < victim->used) victim = k;
    }
    chg_kset_t fresh;
    memset(&fresh, 0, sizeof fresh);
    memcpy(&fresh.key, key, sizeof *key);
    const clhgemm_status_t st = build(key, ctx, dev, &fresh);
    if (st != CLHGEMM_SUCCESS) return st; /* nothing kept: a failed build is tried again */
    __atomic_add_fetch(&g_kset_builds, 1, __ATOMIC_RELAXED);
    w->kseen = cache_lookups(&programs);
    kset_release(victim);
    *victim = fresh;
    victim->used = ++w->ktick;
    *out = victim;
    return CLHGEMM_SUCCESS;
}

void chg_gemm_kernel_cache_stats(unsigned long long *hits, unsigned long long *builds)
{
    if (hits) *hits = __atomic_load_n(&g_kset_hits, __ATOMIC_RELAXED);
    if (builds) *builds = __atomic_load_n(&g_kset_builds, __ATOMIC_RELAXED);
}

unsigned long long chg_workspace_budget(const chg_device_t *dev)
{
    unsigned long long def = dev->info.global_mem_bytes / 4;
    return chg_env_size("CLHGEMM_WORKSPACE_LIMIT", def);
}
