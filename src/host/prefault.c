/*
 * prefault.c -- the caller's C faulted in ahead of the copies home (prefault.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "host/prefault.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/util.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack it, older kernels say EINVAL */
#endif

#define PF_MIN_BYTES (16ull << 20)

#define PF_SAMPLES 64

static atomic_int g_refused; /* the kernel refused once: not tried again in this process */

/* 1 when every one of PF_SAMPLES pages spread evenly over [lo, lo + len) is resident (mincore):
 * a C the caller has used before (a reused output, beta != 0) has nothing to fault in, and
 * populating it would only walk its page tables on helper threads that the pack threads need.
 * A sample that misses a page, or a mincore error, means the helpers run as before. */
static int resident(const char *lo, size_t len, size_t page)
{
    const size_t pages = len / page;
    for (size_t i = 0; i < PF_SAMPLES; i++) {
        const size_t pi = pages <= 1 ? 0 : i * (pages - 1) / (PF_SAMPLES - 1);
        unsigned char v = 0;
        if (mincore((void *)(lo + pi * page), page, &v) != 0 || !(v & 1)) return 0;
    }
    return 1;
}

static void *prefault_main(void *arg)
{
    chg_prefault_t *p = arg;
    while (!atomic_load(&p->stop)) {
        const size_t off = atomic_fetch_add(&p->next, p->chunk);
        if (off >= p->len) break;
        const size_t len = off + p->chunk > p->len ? p->len - off : p->chunk;
        if (madvise(p->lo + off, len, MADV_POPULATE_WRITE) != 0 && (errno == EINVAL || errno == ENOSYS)) {
            atomic_store(&g_refused, 1);
            break;
        }
        /* EFAULT / ENOMEM / EHWPOISON...: that chunk is left to the copies home (they would
         * meet the same), the next ones are tried */
    }
    return NULL;
}

void chg_prefault_start(chg_prefault_t *p, void *c, size_t m, size_t n, size_t ldc, size_t es, int threads)
{
    static const char *const modes[] = {"auto", "off", NULL};
    p->nth = 0;
    if (!c || !m || !n || atomic_load(&g_refused) || chg_env_choice("CLHGEMM_PREFAULT", modes, 0) == 1) return;
    if (ldc * 4 > m * 5 && n > 1) return; /* gaps between the columns are not the call's */
    const size_t bytes = ((n - 1) * ldc + m) * es;
    if (bytes < PF_MIN_BYTES) return;
    const long pg = sysconf(_SC_PAGESIZE);
    const uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096u;
    /* whole pages inside C's range only: a page C shares with the caller's other data is left
     * to the copies home (populating it would not change it either, but it is not C's) */
    const uintptr_t lo = ((uintptr_t)c + page - 1) & ~(page - 1), hi = ((uintptr_t)c + bytes) & ~(page - 1);
    if (hi <= lo || resident((const char *)lo, hi - lo, page)) return;
    p->lo = (char *)lo;
    p->len = hi - lo;
    const int want = CHG_MAX(1, CHG_MIN(threads, PF_MAX_THREADS));
    p->chunk = chg_prefault_chunk(p->len, want);
    atomic_store(&p->next, 0);
    atomic_store(&p->stop, 0);
    for (int i = 0; i < want; i++) {
        if (pthread_create(&p->th[p->nth], NULL, prefault_main, p) != 0) break;
        p->nth++;
    }
}

void chg_prefault_join(chg_prefault_t *p)
{
    atomic_store(&p->stop, 1);
    for (int i = 0; i < p->nth; i++) pthread_join(p->th[i], NULL);
    p->nth = 0;
}
