/*
 * pool.c -- a small fork-join thread pool for the pipeline's CPU copies (see pool.h).
 *
 * Jobs sit in a FIFO list; every worker, and each caller for its own job, takes the next
 * unclaimed part of the oldest job with parts left. The caller helps with its own job rather
 * than sleeping, so a pool of one thread (the caller) works, and a driver never waits for a
 * worker to wake up to make progress on its copy.
 */
#include "host/pool.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

typedef chg_pool_job_t job_t;

struct chg_pool_s {
    pthread_mutex_t mu;
    pthread_cond_t work;  /* a job with unclaimed parts arrived, or shutdown */
    pthread_cond_t done;  /* some job finished a part */
    job_t *head, *tail;
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
    j->done++;
    if (j->done == j->parts) pthread_cond_broadcast(&p->done);
}

static void *worker_main(void *arg)
{
    worker_arg_t *wa = arg;
    chg_pool_t *p = wa->pool;
    const int id = wa->id;
    free(wa);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        int part;
        job_t *j = claim(p, &part);
        if (j) {
            pthread_mutex_unlock(&p->mu);
            run_part(j, part, id);
            pthread_mutex_lock(&p->mu);
            finish_part(p, j);
            continue;
        }
        if (p->stop) break;
        pthread_cond_wait(&p->work, &p->mu);
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

void chg_pool_start(chg_pool_t *p, chg_pool_job_t *j, int parts, chg_pool_fn fn, void *arg,
                    chg_trace_t *trace, const char *name)
{
    *j = (job_t){fn, arg, CHG_MAX(parts, 0), 0, 0, trace, name, NULL};
    if (j->parts == 0) return;
    pthread_mutex_lock(&p->mu);
    if (p->tail) p->tail->link = j;
    else p->head = j;
    p->tail = j;
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
    while (j->done < j->parts) pthread_cond_wait(&p->done, &p->mu);
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
