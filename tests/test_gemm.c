/*
 * test_gemm.c -- the GEMM correctness table.
 *
 *   test_gemm s|d [col|row]   sizes x transposes x (ld, offset) variants x (alpha, beta) pairs
 *   test_gemm blocked [col|row]  large shapes for both precisions, meant to run with a small
 *                             CLHGEMM_WORKSPACE_LIMIT (set by CTest) so the library must split
 *                             the problem into blocks over m, n and k
 *
 * Every case poisons C (random matrix part, NaN when beta == 0, sentinel bits outside), waits on
 * the returned event, and checks C against OpenBLAS plus the untouched outside (common.c). Each
 * invocation also checks the event contract: event == NULL followed by clFinish; an event that
 * completes only when C is final (read on a different queue); and several calls queued back to
 * back on one C without waiting in between.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

static int g_cases, g_failures;

static void tally(int rc)
{
    g_cases++;
    if (rc) g_failures++;
}

static const clhgemm_transpose_t NT[2] = {CLHGEMM_NO_TRANS, CLHGEMM_TRANS};
static const double AB[3] = {0.0, 1.0, -1.5};

/* ---- the table ----------------------------------------------------------------------------- */
static const int sizes[][3] = {
    {1, 1, 1},      {7, 7, 7},       {33, 33, 33},   {64, 64, 64},  {129, 129, 129}, {7, 33, 129},
    {129, 64, 1},   {33, 1, 65},     {100, 37, 250}, {1, 129, 7},   {257, 300, 513},
};

static void set_variant(tc_case_t *c, int variant)
{
    if (variant == 0) { /* tight ld, no offset */
        c->pad = 0;
        c->offa = c->offb = c->offc = 0;
    } else { /* ld = rows as stored + 3, nonzero offsets */
        c->pad = 3;
        c->offa = 5;
        c->offb = 11;
        c->offc = 3;
    }
}

static void run_table(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int m = sizes[s][0], n = sizes[s][1], k = sizes[s][2];
        int big = (double)m * n * k > 4e6;
        for (int ta = 0; ta < 2; ta++) {
            for (int tb = 0; tb < 2; tb++) {
                for (int variant = 0; variant < 2; variant++) {
                    for (int ia = 0; ia < 3; ia++) {
                        for (int ib = 0; ib < 3; ib++) {
                            /* The largest shape keeps three pairs (one per alpha class, beta =
                             * 0 among them); every pair runs on all other shapes. */
                            if (big && !((ia == 1 && ib == 0) || (ia == 2 && ib == 2) ||
                                         (ia == 0 && ib == 1)))
                                continue;
                            tc_case_t c = {0};
                            c.dbl = dbl;
                            c.layout = layout;
                            c.ta = NT[ta];
                            c.tb = NT[tb];
                            c.m = m;
                            c.n = n;
                            c.k = k;
                            c.alpha = AB[ia];
                            c.beta = AB[ib];
                            set_variant(&c, variant);
                            tally(tc_run_case(env->ctx, env->queue, &c, rng));
                        }
                    }
                }
            }
        }
    }
    /* ConjTrans is Trans for real data: every pairing with at least one ConjTrans. */
    static const clhgemm_transpose_t NTC[3] = {CLHGEMM_NO_TRANS, CLHGEMM_TRANS,
                                               CLHGEMM_CONJ_TRANS};
    for (int ta = 0; ta < 3; ta++) {
        for (int tb = 0; tb < 3; tb++) {
            if (ta != 2 && tb != 2) continue;
            for (int variant = 0; variant < 2; variant++) {
                tc_case_t c = {0};
                c.dbl = dbl;
                c.layout = layout;
                c.ta = NTC[ta];
                c.tb = NTC[tb];
                c.m = 7;
                c.n = 33;
                c.k = 129;
                c.alpha = variant ? -1.5 : 1.0;
                c.beta = variant ? 1.0 : 0.0;
                set_variant(&c, variant);
                tally(tc_run_case(env->ctx, env->queue, &c, rng));
            }
        }
    }
}

/* ---- blocked: shapes far larger than a small workspace ---------------------------------------- */
static void run_blocked(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    static const int bsizes[][3] = {{300, 257, 700}, {513, 129, 65}, {1000, 8, 1000}};
    static const double pairs[][2] = {{1.0, 0.0}, {-1.5, 1.0}, {1.0, -1.5}, {-1.5, 0.0}};
    int rot = 0;
    for (size_t s = 0; s < sizeof bsizes / sizeof bsizes[0]; s++) {
        for (int ta = 0; ta < 2; ta++) {
            for (int tb = 0; tb < 2; tb++) {
                tc_case_t c = {0};
                c.dbl = dbl;
                c.layout = layout;
                c.ta = NT[ta];
                c.tb = NT[tb];
                c.m = bsizes[s][0];
                c.n = bsizes[s][1];
                c.k = bsizes[s][2];
                c.alpha = pairs[rot % 4][0];
                c.beta = pairs[rot % 4][1];
                set_variant(&c, rot % 2);
                rot++;
                tally(tc_run_case(env->ctx, env->queue, &c, rng));
            }
        }
    }
}

/* ---- event contract ------------------------------------------------------------------------ */
static int wait_release(cl_event ev, const char *tag)
{
    if (!ev) {
        fprintf(stderr, "FAIL %s: success but no event returned\n", tag);
        return 1;
    }
    cl_int err = clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "FAIL %s: clWaitForEvents -> %s\n", tag, clhgemm_status_string(err));
        return 1;
    }
    return 0;
}

/* event == NULL: the call still works; clFinish on the queue makes C final. */
static int event_null(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    tc_case_t c = {0};
    c.dbl = dbl;
    c.layout = layout;
    c.ta = CLHGEMM_TRANS;
    c.tb = CLHGEMM_NO_TRANS;
    c.m = 100;
    c.n = 37;
    c.k = 250;
    c.alpha = -1.5;
    c.beta = 1.0;
    set_variant(&c, 1);
    tc_problem_t p;
    if (tc_problem_init(&p, env->ctx, &c, rng)) return 1;
    char tag[300];
    tc_case_describe(&p.c, tag, sizeof tag - 40);
    strcat(tag, " [event=NULL + clFinish]");
    int rc = 0;
    clhgemm_status_t st = tc_problem_call(&p, env->queue, NULL);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: status %s\n", tag, clhgemm_status_string(st));
        rc = 1;
    } else {
        clFinish(env->queue);
        rc = tc_problem_check(&p, env->queue, tag);
    }
    tc_problem_free(&p);
    return rc;
}

/* The event alone orders the result: wait on it, then read C on a second in-order queue that
 * never saw the library's commands. */
static int event_other_queue(const tc_env_t *env, int dbl, clhgemm_layout_t layout, int m, int n,
                             int k, tc_rng_t *rng)
{
    cl_command_queue q2 = tc_queue_new(env);
    if (!q2) return 1;
    tc_case_t c = {0};
    c.dbl = dbl;
    c.layout = layout;
    c.ta = CLHGEMM_NO_TRANS;
    c.tb = CLHGEMM_TRANS;
    c.m = m;
    c.n = n;
    c.k = k;
    c.alpha = 1.0;
    c.beta = -1.5;
    set_variant(&c, 1);
    tc_problem_t p;
    int rc = 0;
    if (tc_problem_init(&p, env->ctx, &c, rng)) {
        clReleaseCommandQueue(q2);
        return 1;
    }
    char tag[300];
    tc_case_describe(&p.c, tag, sizeof tag - 40);
    strcat(tag, " [wait event, read on queue 2]");
    cl_event ev = NULL;
    clhgemm_status_t st = tc_problem_call(&p, env->queue, &ev);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: status %s\n", tag, clhgemm_status_string(st));
        rc = 1;
    } else {
        rc |= wait_release(ev, tag);
        rc |= tc_problem_check(&p, q2, tag); /* blocking reads on q2, no clFinish(queue) */
    }
    clFinish(env->queue);
    tc_problem_free(&p);
    clReleaseCommandQueue(q2);
    return rc;
}

/* Several calls on one C queued back to back (different A, B, k and transposes, so a reused
 * workspace would be overwritten too early if the library got its ordering wrong); only the last
 * event is waited on. */
static int back_to_back(const tc_env_t *env, int dbl, clhgemm_layout_t layout, int m, int n,
                        tc_rng_t *rng)
{
    enum { NCALLS = 4 };
    static const int ks[NCALLS] = {300, 17, 129, 64};
    static const double al[NCALLS] = {1.0, -1.5, 1.0, 0.5};
    static const double be[NCALLS] = {0.0, 1.0, -1.5, 1.0};
    tc_problem_t p[NCALLS];
    int rc = 0, made = 0;
    char tag[300];
    snprintf(tag, sizeof tag, "%cgemm %s m=%d n=%d [%d calls back to back on one C]",
             dbl ? 'd' : 's', tc_layout_name(layout), m, n, NCALLS);
    for (int i = 0; i < NCALLS; i++) {
        tc_case_t c = {0};
        c.dbl = dbl;
        c.layout = layout;
        c.ta = NT[i & 1];
        c.tb = NT[(i >> 1) & 1];
        c.m = m;
        c.n = n;
        c.k = ks[i];
        c.alpha = al[i];
        c.beta = be[i];
        set_variant(&c, 1);
        if (tc_problem_init(&p[i], env->ctx, &c, rng)) {
            rc = 1;
            goto out;
        }
        made++;
    }
    size_t nc = p[0].nc;
    double *want = malloc(nc * sizeof(double)), *bound = malloc(nc * sizeof(double));
    void *got = malloc(nc * p[0].esz);
    if (!want || !bound || !got) {
        rc = 1;
        goto out2;
    }
    cl_event ev[NCALLS] = {0};
    int ktot = 0;
    tc_problem_ref_init(&p[0], want, bound);
    for (int i = 0; i < NCALLS; i++) {
        tc_problem_t call = p[i];
        call.cbuf = p[0].cbuf; /* every call updates the first problem's C */
        clhgemm_status_t st = tc_problem_call(&call, env->queue, &ev[i]);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "FAIL %s: call %d status %s\n", tag, i, clhgemm_status_string(st));
            rc = 1;
            break;
        }
        tc_problem_ref_apply(&p[i], want, bound);
        ktot += p[i].c.k;
    }
    if (!rc) rc |= wait_release(ev[NCALLS - 1], tag);
    for (int i = 0; i < NCALLS - 1; i++)
        if (ev[i]) clReleaseEvent(ev[i]);
    if (!rc && !tc_read(env->queue, p[0].cbuf, got, nc * p[0].esz))
        rc |= tc_check_c(dbl, layout, m, n, ktot, got, p[0].c0, nc, p[0].c.offc, p[0].c.ldc, want,
                         bound, tag);
    clFinish(env->queue);
out2:
    free(want);
    free(bound);
    free(got);
out:
    for (int i = 0; i < made; i++) tc_problem_free(&p[i]);
    return rc;
}

static void run_events(const tc_env_t *env, int dbl, clhgemm_layout_t layout, int large,
                       tc_rng_t *rng)
{
    tally(event_null(env, dbl, layout, rng));
    tally(event_other_queue(env, dbl, layout, 129, 64, 65, rng));
    if (large) tally(event_other_queue(env, dbl, layout, 300, 257, 700, rng));
    tally(back_to_back(env, dbl, layout, 65, 33, rng));
    if (large) tally(back_to_back(env, dbl, layout, 257, 129, rng));
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "s") && strcmp(argv[1], "d") && strcmp(argv[1], "blocked"))) {
        fprintf(stderr, "usage: %s s|d|blocked [col|row]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    int want_col = 1, want_row = 1;
    if (argc > 2) {
        want_col = !strcmp(argv[2], "col");
        want_row = !strcmp(argv[2], "row");
        if (!want_col && !want_row) {
            fprintf(stderr, "layout filter must be col or row\n");
            return 2;
        }
    }
    tc_env_t env;
    int rc = tc_open(&env);
    if (rc) return rc;
    if (!strcmp(mode, "d") && !env.has_fp64) {
        printf("SKIP: device %s has no fp64\n", env.info.name);
        tc_close(&env);
        return TC_SKIP;
    }
    const char *lim = getenv("CLHGEMM_WORKSPACE_LIMIT");
    printf("device: %s (%s)%s%s\n", env.info.name, env.info.platform_name,
           lim ? ", CLHGEMM_WORKSPACE_LIMIT=" : "", lim ? lim : "");
    if (!strcmp(mode, "blocked") && !lim)
        printf("note: CLHGEMM_WORKSPACE_LIMIT is not set; blocks will only split if the device "
               "budget is small\n");

    tc_rng_t rng;
    tc_rng_seed(&rng, 0xC1A6E33ULL + (uint64_t)mode[0] * 131 + (argc > 2 ? argv[2][0] : 0));
    time_t t0 = time(NULL);
    for (int l = 0; l < 2; l++) {
        clhgemm_layout_t layout = l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
        if ((layout == CLHGEMM_COL_MAJOR && !want_col) || (layout == CLHGEMM_ROW_MAJOR && !want_row))
            continue;
        if (!strcmp(mode, "blocked")) {
            for (int dbl = 0; dbl < 2; dbl++) {
                if (dbl && !env.has_fp64) {
                    printf("note: no fp64 on this device, double part not run\n");
                    continue;
                }
                run_blocked(&env, dbl, layout, &rng);
                run_events(&env, dbl, layout, 1, &rng);
            }
        } else {
            int dbl = !strcmp(mode, "d");
            run_table(&env, dbl, layout, &rng);
            run_events(&env, dbl, layout, 0, &rng);
        }
    }
    tc_close(&env);
    printf("%d cases, %d failed (%ld s)\n", g_cases, g_failures, (long)(time(NULL) - t0));
    return g_failures ? 1 : 0;
}
