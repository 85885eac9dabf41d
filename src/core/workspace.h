/*
 * workspace.h -- the per-queue workspaces of the device GEMM core (workspace.c owns them; a
 * header private to src/core: core/gemm.c uses the workspaces, and core/gemm.h includes this
 * header for the last three calls, which TRSM, gemm_api.c and the tests make). A workspace holds a
 * queue's temporaries (packed A, packed B, the block result or split-K's partials; they only
 * grow), the last event of the call that used them, and the kernels of the queue's recent
 * calls, keyed by everything that selects them (chg_kkey_t), so that a repeated call makes no
 * program lookup and creates no kernel. A call acquires the workspace of its queue (locked from
 * its first command to its last enqueue, so calls from several threads on one queue never share
 * temporaries or kernels) and releases it; workspaces of queues that the user released are freed
 * on the way, and chg_gemm_release_all frees them all.
 */
#ifndef CHG_WORKSPACE_H
#define CHG_WORKSPACE_H

#include "core/blocks.h"

/* The temporaries of a workspace: packed A, packed B, the block result (split-K: partials). */
enum { CHG_WS_A, CHG_WS_B, CHG_WS_C, CHG_WS_COUNT };

/* The kernels of one kind of call, kept by the workspace of a queue (see chg_ws_kernels). */
enum { CHG_KS_BLOCKED = 1, CHG_KS_SPLITK, CHG_KS_DIRECT };

typedef struct chg_kkey_s {
    int kind;                   /* CHG_KS_* */
    chg_precision_t prec;
    int trans_a, trans_b, beta_zero, direct;
    chg_gemm_params_t gp;
    chg_struct_t st;
    chg_copy_params_t cpa, cpb; /* the packs' parameters in effect (tuning entry) */
} chg_kkey_t;

typedef struct chg_kset_s {
    chg_kkey_t key;             /* compared with memcmp: built from a zeroed struct */
    unsigned long long used;    /* last use (0: empty) */
    chg_gemm_kernels_t ks;
    cl_kernel extra;            /* CHG_KS_BLOCKED: the direct variant of the GEMM kernel, or NULL */
} chg_kset_t;

/* The workspace of one queue (opaque: workspace.c). */
typedef struct chg_workspace_s chg_workspace_t;

/* Builds the kernels of a key into out (zeroed but for its key); on failure nothing is left to
 * release. */
typedef clhgemm_status_t (*chg_kbuild_fn)(const chg_kkey_t *key, cl_context ctx,
                                          const chg_device_t *dev, chg_kset_t *out);

/* Finds (or creates) the workspace of `queue`, marks it busy and locks it; NULL when out of host
 * memory. Workspaces whose queue only the library still references (the user released it) are
 * freed on the way. */
chg_workspace_t *chg_ws_acquire(cl_command_queue queue);

/* Unlocks a workspace that chg_ws_acquire returned (frees it if chg_gemm_release_all let go of
 * it meanwhile). */
void chg_ws_release(chg_workspace_t *w);

/* Makes buffer `which` (CHG_WS_*) at least `bytes` large. Buffers only grow: a later smaller call
 * reuses them. Releasing an old buffer is safe while commands still use it (OpenCL defers it). */
cl_int chg_ws_reserve(chg_workspace_t *w, cl_context ctx, int which, size_t bytes);

/* Releases every buffer of the workspace (after a refused allocation, before a smaller plan). */
void chg_ws_drop_buffers(chg_workspace_t *w);

/* Buffer `which` (CHG_WS_*), NULL before chg_ws_reserve made it. */
cl_mem chg_ws_buffer(const chg_workspace_t *w, int which);

/* The last command of the previous call on the workspace (NULL if none, or finished and let go
 * of): a call on another thread or an out-of-order queue waits on it. */
cl_event chg_ws_last(const chg_workspace_t *w);

/* Sets the last command of this call (retained; the previous one released). */
void chg_ws_set_last(chg_workspace_t *w, cl_event ev);

/* The kernels for `key`: kept ones when the workspace has them (the least recently used set
 * goes for a new one), else made by `build` and kept. *out stays valid while the workspace is
 * held (chg_ws_acquire .. chg_ws_release) and no other key is looked up. */
clhgemm_status_t chg_ws_kernels(chg_workspace_t *w, const chg_kkey_t *key, cl_context ctx,
                                const chg_device_t *dev, chg_kbuild_fn build,
                                const chg_kset_t **out);

/* Kernel sets that device-buffer calls found kept in their queue's workspace (hits) and that
 * they had to create (builds), since the process started: a repeated call makes no program
 * lookup and creates no kernel (tests, benchmarks). */
void chg_gemm_kernel_cache_stats(unsigned long long *hits, unsigned long long *builds);

/* Frees every workspace (waits for their last use). */
void chg_gemm_release_all(void);

/* Budget in bytes for one queue's workspace on this device (CLHGEMM_WORKSPACE_LIMIT caps it). */
unsigned long long chg_workspace_budget(const chg_device_t *dev);

#endif
