/*
 * snapshot.c -- the drop-in's copy of C while a call runs on the devices (snapshot.h).
 */
#include "blas/snapshot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cpu/cpushare.h"

#define SNAP_PAR_BYTES (16ull << 20) /* below this one thread copies */
#define SNAP_MAX_THREADS 8
#define SNAP_KEEP_DEFAULT (256ull << 20)

static pthread_mutex_t g_kept_mu = PTHREAD_MUTEX_INITIALIZER;
static char *g_kept;          /* the kept buffer (g_kept_mu) */
static size_t g_kept_bytes;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static size_t g_keep_max;
static int g_cores;

/* Read once per process: the limit, and the cores (sysconf reads /sys each time it is asked:
 * ~10 us, more than a small call's whole copy). */
static void read_once(void)
{
    g_keep_max = (size_t)chg_env_size("CLHGEMM_BLAS_SNAPSHOT_KEEP", SNAP_KEEP_DEFAULT);
    g_cores = chg_cpu_cores();
}

int chg_snap_threads_on(size_t bytes, int cores)
{
    if (bytes < SNAP_PAR_BYTES) return 1;
    return CHG_MAX(1, CHG_MIN(SNAP_MAX_THREADS, cores / 2));
}

int chg_snap_threads(size_t bytes)
{
    pthread_once(&g_once, read_once);
    return chg_snap_threads_on(bytes, g_cores);
}

int chg_snap_price_threads_on(size_t bytes, int cores)
{
    pthread_once(&g_once, read_once);
    return bytes > g_keep_max ? 1 : chg_snap_threads_on(bytes, cores);
}

int chg_snap_price_threads(size_t bytes)
{
    pthread_once(&g_once, read_once);
    return chg_snap_price_threads_on(bytes, g_cores);
}

/* Columns [j0, j1) from src (leading dimension lds bytes) to dst (ldd bytes), col bytes each. */
typedef struct {
    const char *src;
    char *dst;
    size_t lds, ldd, col, j0, j1;
} part_t;

static void *copy_part(void *arg)
{
    const part_t *p = arg;
    if (p->lds == p->col && p->ldd == p->col)
        memcpy(p->dst + p->j0 * p->col, p->src + p->j0 * p->col, (p->j1 - p->j0) * p->col);
    else
        for (size_t j = p->j0; j < p->j1; j++) memcpy(p->dst + j * p->ldd, p->src + j * p->lds, p->col);
    return NULL;
}

/* The copy, split by columns over chg_snap_threads(bytes) threads; the caller copies the first
 * part (and any part whose thread could not start). */
static void copy_cols(char *dst, size_t ldd, const char *src, size_t lds, size_t col, size_t cols)
{
    const int nt = (int)CHG_MIN((size_t)chg_snap_threads(col * cols), CHG_MAX(cols, (size_t)1));
    part_t parts[SNAP_MAX_THREADS];
    pthread_t th[SNAP_MAX_THREADS];
    int started[SNAP_MAX_THREADS] = {0};
    for (int t = 0; t < nt; t++)
        parts[t] = (part_t){.src = src, .dst = dst, .lds = lds, .ldd = ldd, .col = col,
                            .j0 = cols * (size_t)t / (size_t)nt, .j1 = cols * (size_t)(t + 1) / (size_t)nt};
    for (int t = 1; t < nt; t++) started[t] = pthread_create(&th[t], NULL, copy_part, &parts[t]) == 0;
    copy_part(&parts[0]);
    for (int t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            copy_part(&parts[t]);
    }
}

/* The kept buffer for `bytes` (grown when needed, within the limit), lock held; else NULL. */
static char *take_kept(size_t bytes)
{
    pthread_once(&g_once, read_once);
    if (bytes > g_keep_max || pthread_mutex_trylock(&g_kept_mu) != 0) return NULL;
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

int chg_snap_take(chg_snap_t *s, const void *c, size_t ldc, size_t rows, size_t cols, size_t es)
{
    *s = (chg_snap_t){.rows = rows, .cols = cols, .es = es};
    size_t bytes;
    if (__builtin_mul_overflow(rows, cols, &bytes) || __builtin_mul_overflow(bytes, es, &bytes)) return -1;
    s->p = take_kept(bytes);
    s->kept = s->p != NULL;
    if (!s->p) s->p = malloc(bytes + 1);
    if (!s->p) return -1;
    copy_cols(s->p, rows * es, c, ldc * es, rows * es, cols);
    return 0;
}

void chg_snap_restore(const chg_snap_t *s, void *c, size_t ldc)
{
    copy_cols(c, ldc * s->es, s->p, s->rows * s->es, s->rows * s->es, s->cols);
}

void chg_snap_release(chg_snap_t *s)
{
    if (s->kept)
        pthread_mutex_unlock(&g_kept_mu);
    else
        free(s->p);
    *s = (chg_snap_t){0};
}
