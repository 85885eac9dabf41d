/*
 * snapshot.c -- the drop-in's copy of C while a call runs on the devices (snapshot.h).
 */
#include "blas/snapshot.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/util.h"
#include "host/staging.h"

#define SNAP_KEEP_DEFAULT (256ull << 20)

static pthread_mutex_t g_kept_mu = PTHREAD_MUTEX_INITIALIZER;
static char *g_kept;          /* the kept buffer (g_kept_mu) */
static size_t g_kept_bytes;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static size_t g_keep_max;

static void read_keep(void) { g_keep_max = (size_t)chg_env_size("CLHGEMM_BLAS_SNAPSHOT_KEEP", SNAP_KEEP_DEFAULT); }

int chg_snap_fresh(size_t bytes)
{
    pthread_once(&g_once, read_keep);
    return bytes > g_keep_max;
}

/* The kept buffer for `bytes` (grown when needed, within the limit), lock held; else NULL. */
static char *take_kept(size_t bytes)
{
    if (chg_snap_fresh(bytes) || pthread_mutex_trylock(&g_kept_mu) != 0) return NULL;
    if (g_kept_bytes < bytes) {
        free(g_kept);
        g_kept = malloc(bytes);
        g_kept_bytes = g_kept ? bytes : 0;
    }
    if (!g_kept) {
        pthread_mutex_unlock(&g_kept_mu);
        return NULL;
    }
    return g_kept;
}

int chg_snap_take(chg_snap_t *s, chg_pool_t *pool, const void *c, size_t ldc, size_t rows, size_t cols,
                  size_t es)
{
    *s = (chg_snap_t){.rows = rows, .cols = cols, .es = es};
    size_t bytes;
    if (__builtin_mul_overflow(rows, cols, &bytes) || __builtin_mul_overflow(bytes, es, &bytes)) return -1;
    s->p = take_kept(bytes);
    s->kept = s->p != NULL;
    if (!s->p) s->p = malloc(bytes + 1);
    if (!s->p) return -1;
    chg_copy2d(pool, 0, s->p, rows, c, ldc, rows, cols, es, NULL, "snapshot");
    return 0;
}

void chg_snap_restore(const chg_snap_t *s, chg_pool_t *pool, void *c, size_t ldc)
{
    chg_copy2d(pool, 0, c, ldc, s->p, s->rows, s->rows, s->cols, s->es, NULL, "snapshot back");
}

void chg_snap_release(chg_snap_t *s)
{
    if (s->kept)
        pthread_mutex_unlock(&g_kept_mu);
    else
        free(s->p);
    *s = (chg_snap_t){0};
}
