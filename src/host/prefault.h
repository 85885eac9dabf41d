/*
 * prefault.h -- the caller's C faulted in ahead of the copies home (prefault.c owns it).
 *
 * numpy's `a @ b` gives every call a fresh C: its pages are first touched by the pack threads'
 * copies of the result home, so the kernel's page faults and zeroing (512 MB: 120 ms of one
 * thread on the H100 machine, 300 ms without huge pages) sit on the call's drain. DGEMM n = 8192
 * from numpy ran 16.9 TFLOP/s with a fresh C against 21.9 with a reused one on that machine.
 * Here helper threads fault C's pages in while the first tiles compute, with
 * madvise(MADV_POPULATE_WRITE) (Linux 5.14): the page tables are filled as if each page were
 * written, without writing, so C's contents stay what they are (a failed call leaves C as it
 * was, and beta != 0 reads it unchanged). Pages already there cost a page-table walk, which on
 * a 512 MB C keeps the helpers busy for milliseconds beside the pack threads, so nothing is done
 * for a C whose sampled pages are all resident (mincore: a reused C, one the caller wrote), for a
 * C under 16 MB, for a C whose columns leave large gaps (ldc > 1.25 m: the gaps are not the
 * call's), where the kernel or the mapping refuses (remembered for the process), or with
 * CLHGEMM_PREFAULT=off (validated; default auto).
 */
#ifndef CHG_HOST_PREFAULT_H
#define CHG_HOST_PREFAULT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define PF_MAX_THREADS 16

/* The chunk each helper takes in turn (of `len` bytes on `threads` helpers): about four per
 * helper, from 8 MB to 32 MB, whole multiples of 8 MB. On the H100 machine, numpy DGEMM n = 8192
 * with a fresh 512 MB C (one lease, six rounds: two in one order, four in rotating order):
 * chunks of 32 MB ran faster than the fixed 8 MB before in 5 of 6 rounds (23.2 against 22.4
 * TFLOP/s on average over the four), 128 MB 22.7 with a wider spread, 2 MB 19.7 / 22.4 against
 * 20.1 / 23.5.
 * Fewer, longer madvise calls, each taking the mapping's lock once beside the driver and the
 * pack threads. A C of 128 MB or less (four helpers) keeps the 8 MB chunks, not measured
 * against others there. */
#define PF_CHUNK_MIN (8ull << 20)
#define PF_CHUNK_MAX (32ull << 20)
static inline size_t chg_prefault_chunk(size_t len, int threads)
{
    const size_t per = (len / (4u * (size_t)(threads > 0 ? threads : 1))) & ~(PF_CHUNK_MIN - 1);
    return per < PF_CHUNK_MIN ? PF_CHUNK_MIN : per > PF_CHUNK_MAX ? PF_CHUNK_MAX : per;
}

typedef struct chg_prefault_s {
    char *lo;                  /* page-aligned range [lo, hi) */
    size_t len, chunk;
    atomic_size_t next;        /* next chunk offset to take */
    atomic_int stop;           /* the call is over: the helpers take no more chunks */
    int nth;
    pthread_t th[PF_MAX_THREADS];
} chg_prefault_t;

/* Starts faulting in the m x n column-major C (ldc, es bytes per element) on up to `threads`
 * helper threads; p->nth == 0 when nothing was started. */
void chg_prefault_start(chg_prefault_t *p, void *c, size_t m, size_t n, size_t ldc, size_t es, int threads);
/* Stops the helpers (no chunk is started after this) and joins them; before the call returns. */
void chg_prefault_join(chg_prefault_t *p);

#endif
