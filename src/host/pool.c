/*
 * pool.c -- a small fork-join thread pool for the pipeline's CPU copies (see pool.h).
 *
 * Jobs sit in a FIFO list; every worker, and each caller for its own job, takes the next
 * unclaimed part of the oldest job with parts left. The caller helps with its own job rather
 * than sleeping, so a pool of one thread (the caller) works, and a driver never waits for a
 * worker to wake up to make progress on its copy.
 */
#include "host/pool.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

#include "base/util.h"

/* How long an idle worker, and a caller waiting for its job's last parts, poll before sleeping
 * on the condition variable (CLHGEMM_POOL_SPIN_US, default 100; 0: sleep at once). A driver's
 * copies come a few tens of microseconds apart, and on the H100 machine's virtual CPUs waking a
 * sleeping thread took about as long: traces of host DGEMM n = 2048 had the pack threads all
 * idle 1.8 of 4.4 ms, in 21 gaps between jobs. */
#define SPIN_US_DEFAULT 100

typedef chg_pool_job_t job_t;

struct chg_pool_s {
    pthread_mutex_t mu;
    pthread_cond_t work;  /* a job with unclaimed parts arrived, or shutdown */
    pthread_cond_t done;  /* some job finished a part */
    job_t *head, *tail;
    atomic_uint posted;   /* jobs started so far: what a spinning worker watches */
    atomic_int spin;      /* polling allowed now (chg_pool_spin) */
    unsigned long long spin_ns;
    int stop;
    int nthreads;
    pthread_t *th;
    int started;
};

typedef struct worker_arg_s {
    chg_pool_t *pool;
    int id;
} worker_arg_t;

static void run_part(job_t *j, int part, int worker)
{
    if (j->trace) {
        unsigned long long t0 = chg_now_ns();
        j->fn(j->arg, part, worker);
        char track[32];
        snprintf(track, sizeof track, "pack %d", worker);
        chg_trace_host(j->trace, track, j->name, t0, chg_now_ns());
    } else {
        j->fn(j->arg, part, worker);
    }
}

/* Claims a part of the oldest job with parts left (pool->mu held). */
static job_t *claim(chg_pool_t *p, int *part)
{
    for (job_t *j = p->head; j; j = j->link)
        if (j->next < j->parts) {
            *part = j->next++;
            return j;
        }
    return NULL;
}

static void finish_part(chg_pool_t *p, job_t *j)
{
    if (atomic_fetch_add(&j->done, 1) + 1 == j->parts) pthread_cond_broadcast(&p->done);
}

/* Polls (the pool's lock not held) until cond(p, arg) holds or spin_ns has passed, yielding the
 * core every 64 polls: a thread that has work there (OpenBLAS's threads on a call routed to the
 * CPU, the OpenCL runtime's) gets it within microseconds rather than a scheduler time slice. */
static void spin_until(chg_pool_t *p, int (*cond)(chg_pool_t *, void *), void *arg)
{
    if (!p->spin_ns || !atomic_load_explicit(&p->spin, memory_order_relaxed)) return;
    const unsigned long long t0 = chg_now_ns();
    for (int i = 0; !cond(p, arg); i++) {
        cpu_relax();
        if ((i & 63) == 63) {
            if (chg_now_ns() - t0 >= p->spin_ns) return;
            sched_yield();
        }
    }
}

static int posted_since(chg_pool_t *p, void *seen)
{
    return atomic_load_explicit(&p->posted, memory_order_acquire) != *(unsigned *)seen;
}

static int job_done(chg_pool_t *p, void *job)
{
    (void)p;
    job_t *j = job;
    return atomic_load_explicit(&j->done, memory_order_acquire) == j->parts;
}

static void *worker_main(void *arg)
{
    worker_arg_t *wa = arg;
    chg_pool_t *p = wa->pool;
    const int id = wa->id;
    free(wa);
    int spun = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        int part;
        job_t *j = claim(p, &part);
        if (j) {
            pthread_mutex_unlock(&p->mu);
            run_part(j, part, id);
            pthread_mutex_lock(&p->mu);
            finish_part(p, j);
            spun = 0;
            continue;
        }
        if (p->stop) break;
        if (!spun) {  /* poll a while for the next job, then look again under the lock */
            unsigned seen = atomic_load(&p->posted);
            pthread_mutex_unlock(&p->mu);
            spin_until(p, posted_since, &seen);
            pthread_mutex_lock(&p->mu);
            spun = 1;
            continue;
        }
        pthread_cond_wait(&p->work, &p->mu);
        spun = 0;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

chg_pool_t *chg_pool_create(int threads)
{
    if (threads < 1) threads = 1;
    chg_pool_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->nthreads = threads;
    p->spin_ns = 1000ull * (unsigned long long)chg_env_int("CLHGEMM_POOL_SPIN_US", SPIN_US_DEFAULT, 0, 100000);
    atomic_store(&p->spin, 1);
    p->th = calloc((size_t)threads, sizeof *p->th);
    if (!p->th) {
        chg_pool_destroy(p);
        return NULL;
    }
    for (int i = 1; i < threads; i++) {
        worker_arg_t *wa = malloc(sizeof *wa);
        if (!wa) break;
        wa->pool = p;
        wa->id = i;
        if (pthread_create(&p->th[p->started], NULL, worker_main, wa) != 0) {
            free(wa);
            break;
        }
        p->started++;
    }
    /* Fewer workers than asked is not an error: the callers still make progress. */
    return p;
}

void chg_pool_destroy(chg_pool_t *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    atomic_fetch_add(&p->posted, 1); /* a spinning worker looks at stop at once */
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->started; i++) pthread_join(p->th[i], NULL);
    free(p->th);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

int chg_pool_threads(const chg_pool_t *p) { return p->started + 1; }

void chg_pool_spin(chg_pool_t *p, int on) { atomic_store(&p->spin, on ? 1 : 0); }

void chg_pool_start(chg_pool_t *p, chg_pool_job_t *j, int parts, chg_pool_fn fn, void *arg,
                    chg_trace_t *trace, const char *name)
{
    *j = (job_t){fn, arg, CHG_MAX(parts, 0), 0, 0, trace, name, NULL};
    if (j->parts == 0) return;
    pthread_mutex_lock(&p->mu);
    if (p->tail) p->tail->link = j;
    else p->head = j;
    p->tail = j;
    atomic_fetch_add_explicit(&p->posted, 1, memory_order_release);
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
}

void chg_pool_finish(chg_pool_t *p, chg_pool_job_t *j)
{
    if (j->parts == 0) return;
    pthread_mutex_lock(&p->mu);
    /* Help with this job until its parts are all claimed, then wait for the rest. */
    while (j->next < j->parts) {
        int part = j->next++;
        pthread_mutex_unlock(&p->mu);
        run_part(j, part, 0);
        pthread_mutex_lock(&p->mu);
        finish_part(p, j);
    }
    if (!job_done(p, j)) {  /* the workers' last parts: poll a while before sleeping */
        pthread_mutex_unlock(&p->mu);
        spin_until(p, job_done, j);
        pthread_mutex_lock(&p->mu);
    }
    while (!job_done(p, j)) pthread_cond_wait(&p->done, &p->mu);
    /* Unlink. */
    job_t **pp = &p->head, *prev = NULL;
    while (*pp != j) {
        prev = *pp;
        pp = &(*pp)->link;
    }
    *pp = j->link;
    if (p->tail == j) p->tail = prev;
    pthread_mutex_unlock(&p->mu);
}

void chg_pool_run(chg_pool_t *p, int parts, chg_pool_fn fn, void *arg, chg_trace_t *trace,
                  const char *name)
{
    job_t j;
    chg_pool_start(p, &j, parts, fn, arg, trace, name);
    chg_pool_finish(p, &j);
}
