/*
 * test_threads.c -- concurrent calls: 4 threads, each running several SGEMM/DGEMM calls of
 * different shapes, layouts and transposes, (a) all on one shared queue, (b) each on its own
 * queue of the same context. Every result is checked (common.c). The library promises to be safe
 * from several threads, also on one queue; per-queue workspaces and the program cache are shared
 * state that this exercises.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum { NTHREADS = 4, NCALLS = 10, NSHAPES = 8 };

static tc_env_t env;

typedef struct worker_s {
    int id;
    int own_queue;
    int cases, failures;
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x7E4D5ULL * (uint64_t)(w->id + 1) + (uint64_t)w->own_queue);
    cl_command_queue q = env.queue;
    if (w->own_queue) {
        q = tc_queue_new(&env);
        if (!q) {
            w->failures++;
            return NULL;
        }
    }
    static const int shapes[NSHAPES][3] = {{33, 65, 17},  {129, 7, 64},   {64, 64, 129},
                                           {1, 100, 37},  {200, 33, 90},  {17, 129, 1},
                                           {300, 200, 257}, {96, 128, 160}};
    for (int i = 0; i < NCALLS; i++) {
        int s = (i + 3 * w->id) % NSHAPES;
        tc_case_t c = {0};
        c.dbl = env.has_fp64 ? ((i + w->id) & 1) : 0;
        c.layout = (w->id & 1) ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
        c.ta = (i & 1) ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
        c.tb = (i & 2) ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
        c.m = shapes[s][0];
        c.n = shapes[s][1];
        c.k = shapes[s][2];
        c.alpha = (i % 3 == 2) ? 0.5 : -1.5;
        c.beta = (i % 3 == 0) ? 0.0 : 1.0;
        c.pad = w->id;
        c.offa = (size_t)w->id;
        c.offc = (size_t)i;
        w->cases++;
        if (tc_run_case(env.ctx, q, &c, &rng)) w->failures++;
    }
    if (w->own_queue) {
        clFinish(q);
        clReleaseCommandQueue(q);
    }
    return NULL;
}

static int run(int own_queue, int *cases)
{
    pthread_t th[NTHREADS];
    worker_t w[NTHREADS];
    int failures = 0;
    for (int i = 0; i < NTHREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].id = i;
        w[i].own_queue = own_queue;
        if (pthread_create(&th[i], NULL, worker, &w[i]) != 0) {
            fprintf(stderr, "FAIL: pthread_create\n");
            return 1;
        }
    }
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        failures += w[i].failures;
        *cases += w[i].cases;
    }
    if (failures)
        fprintf(stderr, "FAIL: %d calls failed with %s\n", failures,
                own_queue ? "one queue per thread" : "one shared queue");
    return failures;
}

int main(void)
{
    int rc = tc_open(&env);
    if (rc) return rc;
    printf("device: %s\n", env.info.name);
    int cases = 0, failures = 0;
    for (int round = 0; round < 2; round++) {
        failures += run(0, &cases); /* (a) one shared queue */
        failures += run(1, &cases); /* (b) one queue each */
        /* second round starts cold: programs and workspaces are created under contention */
        clhgemm_release_resources();
    }
    tc_close(&env);
    printf("%d cases, %d failed\n", cases, failures);
    return failures ? 1 : 0;
}
