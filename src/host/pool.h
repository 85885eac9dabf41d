/*
 * pool.h -- the pack/unpack threads of the host pipeline (pool.c owns them).
 *
 * One primitive: chg_pool_run(pool, parts, fn, arg) runs fn(arg, part, worker) for every part in
 * [0, parts) on the pool's threads and the calling thread, and returns when all parts are done.
 * Several callers (one driver thread per device) may run jobs at once; parts are handed out in
 * job order, so a job never waits behind one submitted later. chg_pool_start / chg_pool_finish
 * split that in two, so that a driver can have its next copy's parts taken by the workers while
 * it enqueues the transfer of the previous one (host/tile.c).
 */
#ifndef CHG_POOL_H
#define CHG_POOL_H

#include <stdatomic.h>

#include "base/trace.h"

typedef struct chg_pool_s chg_pool_t;
typedef void (*chg_pool_fn)(void *arg, int part, int worker);

/* A job in flight: the caller's storage from chg_pool_start to chg_pool_finish (fields are the
 * pool's). */
typedef struct chg_pool_job_s {
    chg_pool_fn fn;
    void *arg;
    int parts, next;
    atomic_int done;
    chg_trace_t *trace;
    const char *name;
    struct chg_pool_job_s *link;
} chg_pool_job_t;

/* Starts `threads - 1` workers (the caller of chg_pool_run is the remaining one). NULL on
 * failure. */
chg_pool_t *chg_pool_create(int threads);
void chg_pool_destroy(chg_pool_t *pool);
int chg_pool_threads(const chg_pool_t *pool);
/* Whether idle workers, and callers waiting for their job, may poll a while before sleeping
 * (CLHGEMM_POOL_SPIN_US, default 100 us; on when the pool is created): off while OpenBLAS runs a
 * CPU share beside the copies, whose cores the polling would take. */
void chg_pool_spin(chg_pool_t *pool, int on);

/* Runs the parts; `trace` (may be NULL) receives one span per part on track "pack <worker>"
 * named `name`. */
void chg_pool_run(chg_pool_t *pool, int parts, chg_pool_fn fn, void *arg, chg_trace_t *trace,
                  const char *name);
/* The same in two steps: start queues the job (the workers take its parts from then on; arg
 * must live until finish), finish helps with the job's parts still unclaimed -- none of another
 * job's -- and returns when all are done. Every started job is finished, in any order. */
void chg_pool_start(chg_pool_t *pool, chg_pool_job_t *job, int parts, chg_pool_fn fn, void *arg,
                    chg_trace_t *trace, const char *name);
void chg_pool_finish(chg_pool_t *pool, chg_pool_job_t *job);

#endif
