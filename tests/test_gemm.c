/*
 * test_gemm.c -- the GEMM correctness table.
 *
 *   test_gemm s|d [col|row|both [lite]]   sizes x transposes x (ld, offset) variants x
 *                             (alpha, beta) pairs ("lite": 2 variants x 3 pairs, for the
 *                             kernel-variant tests, whose kernels are slow on CPU devices),
 *                             then shapes whose A / B / C the core reads or writes in place
 *   test_gemm blocked [col|row]  large shapes for both precisions, meant to run with a small
 *                             CLHGEMM_WORKSPACE_LIMIT (set by CTest) so the library must split
 *                             the problem into blocks over m, n and k
 *   test_gemm tinyws [col|row]   with a limit below one tile: success (correct) or
 *                             CLHGEMM_WORKSPACE_TOO_SMALL with C untouched
 *
 * Every case poisons C (random matrix part, NaN when beta == 0, sentinel bits outside), waits on
 * the returned event, and checks C against OpenBLAS plus the untouched outside (common.c). Each
 * invocation also checks the event contract: event == NULL followed by clFinish; an event that
 * completes only when C is final (read on a different queue); and several calls queued back to
 * back on one C without waiting in between. It also covers A and B as one buffer, sub-buffer
 * operands, two contexts on one device used alternately, and independent calls in flight
 * together on an in-order and an out-of-order queue (gemm.c promises both work), and object
 * lifetimes (release_resources with work in flight, queues/contexts released by the caller
 * right after a call, 64 calls queued without waiting).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

static int g_lite; /* "lite": 2 (ld, offset) variants x 3 (alpha, beta) pairs on every shape */

static const clhgemm_transpose_t NT[2] = {CLHGEMM_NO_TRANS, CLHGEMM_TRANS};
static const double AB[3] = {0.0, 1.0, -1.5};

/* ---- the table ----------------------------------------------------------------------------- */
static const int sizes[][3] = {
    /* the listed sweep: cubes, then rectangular shapes, then one larger */
    {1, 1, 1},      {7, 7, 7},      {33, 33, 33},    {64, 64, 64},   {129, 129, 129},
    {7, 33, 129},   {129, 64, 1},   {33, 1, 65},     {100, 37, 250}, {1, 129, 7},
    {257, 300, 513},
    /* extra edges: tiny, tile-aligned, long k with a 1x1 result, thin m/n */
    {2, 3, 4},      {128, 96, 160}, {1, 1, 1000},    {513, 2, 3},    {3, 513, 2},
    {70001, 1, 3},  {1, 70001, 3},  {3, 2, 70001},
};

/* (ld, offset) variants: 0 tight ld, no offset; 1 ld = rows as stored + 3 with offsets;
 * 2 tight ld with offsets; 3 ld + 3 without offsets. */
static void set_variant(tc_case_t *c, int variant)
{
    c->pad = (variant == 1 || variant == 3) ? 3 : 0;
    if (variant == 1 || variant == 2) {
        c->offa = 5;
        c->offb = 11;
        c->offc = 3;
    } else {
        c->offa = c->offb = c->offc = 0;
    }
}

/* A case of the tables: tight ld and no offsets until set_variant / the caller says otherwise. */
static tc_case_t table_case(int dbl, clhgemm_layout_t layout, int ta, int tb, int m, int n,
                            int k, double alpha, double beta)
{
    tc_case_t c = {0};
    c.dbl = dbl;
    c.layout = layout;
    c.ta = NT[ta];
    c.tb = NT[tb];
    c.m = m;
    c.n = n;
    c.k = k;
    c.alpha = alpha;
    c.beta = beta;
    return c;
}

static void run_table(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int m = sizes[s][0], n = sizes[s][1], k = sizes[s][2];
        /* The very thin extras (one dimension 70001) are padded to whole tiles by the library
         * and cost ~40 ms a call on a CPU device: 2 variants x 3 (alpha, beta) pairs there. */
        int very_thin = m > 10000 || n > 10000 || k > 10000;
        int thin = very_thin || g_lite;
        for (int ta = 0; ta < 2; ta++) {
            for (int tb = 0; tb < 2; tb++) {
                for (int variant = 0; variant < (thin ? 2 : 4); variant++) {
                    for (int ia = 0; ia < 3; ia++) {
                        for (int ib = 0; ib < 3; ib++) {
                            if (thin && !((ia == 1 && ib == 0) || (ia == 2 && ib == 2) ||
                                          (ia == 0 && ib == 1)))
                                continue;
                            /* lite and very thin (a single work-group walking k = 70001 takes
                             * seconds with GPU-shaped tiles on a CPU): NN and TT, one pair */
                            if (g_lite && very_thin && (ta != tb || variant != 1 || ia != 2))
                                continue;
                            tc_case_t c = table_case(dbl, layout, ta, tb, m, n, k, AB[ia], AB[ib]);
                            set_variant(&c, variant);
                            tc_tally(tc_run_case(env->ctx, env->queue, &c, rng));
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
                tc_tally(tc_run_case(env->ctx, env->queue, &c, rng));
            }
        }
    }
}

/* ---- direct operands: shapes and layouts that the blocked core reads in place ----------------
 * (gemm.h, CHG_DIRECT_*): k a multiple of every KWG in use, leading dimensions and offsets of A
 * and B multiples of 8 (every vector width), m / n both tile multiples and not (then the padded
 * tile reads rows past the matrix: the NaN gaps and, with `extra`, NaN after it, which must reach
 * only rows of C that are never written). Every transpose pair, so op(A) = A and op(B)^T = B
 * (read in place) and the packed cases alternate; beta = 0 with a NaN C (C never read). */
static void run_direct(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    static const int dsizes[][3] = {
        {64, 64, 64}, {96, 160, 128}, {100, 37, 64}, {37, 100, 48}, {256, 128, 96}, {1, 8, 16},
    };
    static const double pairs[][2] = {{1.0, 0.0}, {-1.5, 1.0}, {0.5, -1.5}};
    for (size_t s = 0; s < sizeof dsizes / sizeof dsizes[0]; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int e = 0; e < 2; e++)
                    for (int ab = 0; ab < 3; ab++) {
                        if (g_lite && ab != (int)((s + (size_t)ta + (size_t)tb + (size_t)e) % 3)) continue;
                        tc_case_t c = table_case(dbl, layout, ta, tb, dsizes[s][0], dsizes[s][1],
                                                 dsizes[s][2], pairs[ab][0], pairs[ab][1]);
                        c.pad = e ? 8 : 0;
                        c.offa = e ? 8 : 0;
                        c.offb = e ? 16 : 0;
                        c.offc = e ? 3 : 0;
                        c.extra = e ? 4096 : 0;
                        tc_tally(tc_run_case(env->ctx, env->queue, &c, rng));
                    }
}

/* ---- blocked: shapes far larger than a small workspace ---------------------------------------- */
static void run_blocked(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    /* the last is aligned for reading A / B in place (direct operands, split into blocks) */
    static const int bsizes[][3] = {{300, 257, 700}, {513, 129, 65}, {1000, 8, 1000},
                                    {256, 200, 512}};
    static const double pairs[][2] = {{1.0, 0.0}, {-1.5, 1.0}, {1.0, -1.5}, {-1.5, 0.0}};
    int rot = 0;
    for (size_t s = 0; s < sizeof bsizes / sizeof bsizes[0]; s++) {
        for (int ta = 0; ta < 2; ta++) {
            for (int tb = 0; tb < 2; tb++) {
                tc_case_t c = table_case(dbl, layout, ta, tb, bsizes[s][0], bsizes[s][1],
                                         bsizes[s][2], pairs[rot % 4][0], pairs[rot % 4][1]);
                set_variant(&c, rot % 2);
                rot++;
                tc_tally(tc_run_case(env->ctx, env->queue, &c, rng));
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
 * never saw the library's commands. With in_wait_list, nothing waits on the host: the read of C
 * on the second queue is enqueued with the event in its wait list. */
static int event_other_queue(const tc_env_t *env, int dbl, clhgemm_layout_t layout, int m, int n,
                             int k, int in_wait_list, tc_rng_t *rng)
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
    strcat(tag, in_wait_list ? " [event in the wait list of a read on queue 2]"
                             : " [wait event, read on queue 2]");
    cl_event ev = NULL;
    clhgemm_status_t st = tc_problem_call(&p, env->queue, &ev);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: status %s\n", tag, clhgemm_status_string(st));
        rc = 1;
    } else if (in_wait_list) {
        /* copy C on queue 2 after the event, into a scratch buffer, then check the copy */
        cl_int err = CL_SUCCESS;
        cl_mem copy = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, p.nc * p.esz, NULL, &err);
        if (!copy || !ev) {
            fprintf(stderr, "FAIL %s: setup (%s)\n", tag, ev ? "buffer" : "no event");
            rc = 1;
        } else {
            err = clEnqueueCopyBuffer(q2, p.cbuf, copy, 0, 0, p.nc * p.esz, 1, &ev, NULL);
            if (err == CL_SUCCESS) err = clFinish(q2);
            if (err != CL_SUCCESS) {
                fprintf(stderr, "FAIL %s: copy after the event -> %s\n", tag,
                        clhgemm_status_string(err));
                rc = 1;
            } else {
                cl_mem orig = p.cbuf;
                p.cbuf = copy;
                rc |= tc_problem_check(&p, q2, tag);
                p.cbuf = orig;
            }
        }
        if (copy) clReleaseMemObject(copy);
        if (ev) clReleaseEvent(ev);
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

/* A and B are one buffer (read-only aliasing is legal): C := alpha*A*A^T + beta*C, and also
 * with op(B) taken from a different offset of the same buffer. */
static int shared_ab(const tc_env_t *env, int dbl, clhgemm_layout_t layout, int n, tc_rng_t *rng)
{
    int rc = 0;
    for (int same_off = 0; same_off < 2; same_off++) {
        tc_case_t c = {0};
        c.dbl = dbl;
        c.layout = layout;
        c.ta = CLHGEMM_NO_TRANS;
        c.tb = CLHGEMM_TRANS;
        c.m = c.n = c.k = n;
        c.alpha = 1.0;
        c.beta = -1.5;
        set_variant(&c, 1);
        c.offb = c.offa;
        c.tb = same_off ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
        tc_problem_t p;
        if (tc_problem_init(&p, env->ctx, &c, rng)) return 1;
        /* B := the A buffer; the host copy follows */
        if (p.nb != p.na) {
            fprintf(stderr, "FAIL shared A/B: geometry mismatch\n");
            tc_problem_free(&p);
            return 1;
        }
        memcpy(p.b0, p.a0, p.na * p.esz);
        clReleaseMemObject(p.b);
        clRetainMemObject(p.a);
        p.b = p.a;
        char tag[300];
        tc_case_describe(&p.c, tag, sizeof tag - 40);
        strcat(tag, " [A and B one buffer]");
        cl_event ev = NULL;
        clhgemm_status_t st = tc_problem_call(&p, env->queue, &ev);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "FAIL %s: status %s\n", tag, clhgemm_status_string(st));
            rc = 1;
        } else {
            rc |= wait_release(ev, tag);
            rc |= tc_problem_check(&p, env->queue, tag);
        }
        tc_problem_free(&p);
    }
    return rc;
}

/* Operands that are sub-buffers of larger buffers (origin at the device's base alignment); the
 * parent bytes before the origin must survive. */
static int sub_buffers(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    cl_uint align_bits = 0;
    clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits,
                    NULL);
    size_t origin = align_bits ? align_bits / 8 : 128;
    if (origin < 128) origin = 128;
    tc_case_t c = {0};
    c.dbl = dbl;
    c.layout = layout;
    c.ta = CLHGEMM_TRANS;
    c.tb = CLHGEMM_TRANS;
    c.m = 77;
    c.n = 45;
    c.k = 61;
    c.alpha = -1.5;
    c.beta = 1.0;
    set_variant(&c, 1);
    tc_problem_t p;
    if (tc_problem_init(&p, env->ctx, &c, rng)) return 1;
    char tag[300];
    tc_case_describe(&p.c, tag, sizeof tag - 40);
    strcat(tag, " [sub-buffers]");
    int rc = 0;
    cl_mem *slots[3] = {&p.a, &p.b, &p.cbuf};
    const void *hosts[3] = {p.a0, p.b0, p.c0};
    size_t bytes[3] = {p.na * p.esz, p.nb * p.esz, p.nc * p.esz};
    cl_mem parents[3] = {0};
    unsigned char *prefix = malloc(origin);
    for (size_t i = 0; i < origin; i++) prefix[i] = (unsigned char)(0xA0 + i % 7);
    for (int i = 0; i < 3 && !rc; i++) {
        unsigned char *h = malloc(origin + bytes[i]);
        memcpy(h, prefix, origin);
        memcpy(h + origin, hosts[i], bytes[i]);
        parents[i] = tc_buffer_from_host(env->ctx, h, origin + bytes[i]);
        free(h);
        cl_buffer_region reg = {origin, bytes[i]};
        cl_int err = CL_SUCCESS;
        cl_mem sub = parents[i] ? clCreateSubBuffer(parents[i], CL_MEM_READ_WRITE,
                                                    CL_BUFFER_CREATE_TYPE_REGION, &reg, &err)
                                : NULL;
        if (!sub) {
            fprintf(stderr, "FAIL %s: clCreateSubBuffer -> %s\n", tag, clhgemm_status_string(err));
            rc = 1;
            break;
        }
        clReleaseMemObject(*slots[i]);
        *slots[i] = sub;
    }
    if (!rc) {
        cl_event ev = NULL;
        clhgemm_status_t st = tc_problem_call(&p, env->queue, &ev);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "FAIL %s: status %s\n", tag, clhgemm_status_string(st));
            rc = 1;
        } else {
            rc |= wait_release(ev, tag);
            rc |= tc_problem_check(&p, env->queue, tag);
            unsigned char *got = malloc(origin);
            for (int i = 0; i < 3; i++) {
                if (!tc_read(env->queue, parents[i], got, origin) && memcmp(got, prefix, origin)) {
                    fprintf(stderr, "FAIL %s: parent of operand %d changed before the origin\n",
                            tag, i);
                    rc = 1;
                }
            }
            free(got);
        }
    }
    tc_problem_free(&p);
    for (int i = 0; i < 3; i++)
        if (parents[i]) clReleaseMemObject(parents[i]);
    free(prefix);
    return rc;
}

/* Two contexts on the same device, calls alternating between them; the second context and its
 * queue are released by the caller while the library may still hold resources for them. */
static int two_contexts(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    int rc = 0;
    for (int round = 0; round < 2; round++) {
        cl_int err = CL_SUCCESS;
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         (cl_context_properties)env->info.platform, 0};
        cl_context ctx2 = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
        cl_command_queue q2 = ctx2 ? clCreateCommandQueue(ctx2, env->device, 0, &err) : NULL;
        if (!q2) {
            fprintf(stderr, "FAIL second context: %s\n", clhgemm_status_string(err));
            if (ctx2) clReleaseContext(ctx2);
            return 1;
        }
        for (int i = 0; i < 4; i++) {
            tc_case_t c = {0};
            c.dbl = dbl;
            c.layout = layout;
            c.ta = NT[i & 1];
            c.tb = NT[(i >> 1) & 1];
            c.m = 50 + 13 * i;
            c.n = 31 + 7 * i;
            c.k = 40 + 21 * i;
            c.alpha = -1.5;
            c.beta = i == 2 ? 0.0 : 1.0;
            set_variant(&c, i & 1);
            int r = (i & 1) ? tc_run_case(env->ctx, env->queue, &c, rng)
                            : tc_run_case(ctx2, q2, &c, rng);
            if (r) fprintf(stderr, "  (call %d of round %d, on %s context)\n", i, round,
                           (i & 1) ? "the first" : "the second");
            rc |= r;
        }
        clReleaseCommandQueue(q2);
        clReleaseContext(ctx2);
    }
    return rc;
}

/* Workspace limit too small for one tile (mode "tinyws", CTest sets CLHGEMM_WORKSPACE_LIMIT=1K):
 * every call either works (a path that needs no workspace) or reports
 * CLHGEMM_WORKSPACE_TOO_SMALL with C untouched and *event not written. */
static int g_tiny_ok, g_tiny_refused;

static void run_tiny(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    static const int shapes[][3] = {{33, 17, 65}, {300, 257, 64}, {5, 4, 3}, {20, 30, 0}};
    static const double pairs[][2] = {{1.0, 0.0}, {-1.5, 1.0}, {0.0, -1.5}, {1.0, 1.0}};
    for (int s = 0; s < 4; s++) {
        tc_case_t c = {0};
        c.dbl = dbl;
        c.layout = layout;
        c.ta = NT[s & 1];
        c.tb = NT[(s >> 1) & 1];
        c.m = shapes[s][0];
        c.n = shapes[s][1];
        c.k = shapes[s][2];
        c.alpha = pairs[s][0];
        c.beta = pairs[s][1];
        set_variant(&c, s & 1);
        tc_problem_t p;
        if (tc_problem_init(&p, env->ctx, &c, rng)) {
            tc_tally(1);
            continue;
        }
        char tag[300];
        tc_case_describe(&p.c, tag, sizeof tag - 40);
        strcat(tag, " [tiny workspace]");
        cl_event sentinel = (cl_event)(uintptr_t)0x5EB71E10, ev = sentinel;
        clhgemm_status_t st = tc_problem_call(&p, env->queue, &ev);
        int rc = 0;
        if (st == CLHGEMM_SUCCESS) {
            g_tiny_ok++;
            rc |= wait_release(ev == sentinel ? NULL : ev, tag);
            rc |= tc_problem_check(&p, env->queue, tag);
        } else if (st == CLHGEMM_WORKSPACE_TOO_SMALL) {
            g_tiny_refused++;
            if (ev != sentinel) {
                fprintf(stderr, "FAIL %s: *event written on failure\n", tag);
                rc = 1;
            }
            clFinish(env->queue);
            rc |= tc_problem_check_unchanged(&p, env->queue, tag);
            if (c.k == 0 || c.alpha == 0.0) {
                fprintf(stderr, "note %s: quick path also refused for lack of workspace\n", tag);
            }
        } else {
            fprintf(stderr, "FAIL %s: status %s, want success or WORKSPACE_TOO_SMALL\n", tag,
                    clhgemm_status_string(st));
            rc = 1;
        }
        tc_tally(rc);
        tc_problem_free(&p);
    }
}

/* Several independent problems (own C each, different shapes and transposes) queued without
 * waiting, on the in-order queue and on an out-of-order queue when the device has one; then all
 * events are waited on and every C checked. The library reuses one workspace per queue, so this
 * catches a call that overwrites packed operands a previous call has not consumed yet. */
static int many_in_flight(const tc_env_t *env, int dbl, clhgemm_layout_t layout, int large,
                          tc_rng_t *rng)
{
    enum { N = 6 };
    int rc = 0;
    for (int ooo = 0; ooo < 2; ooo++) {
        cl_command_queue q = env->queue;
        if (ooo) {
            cl_command_queue_properties props = 0;
            clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL);
            if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) continue;
            cl_int err = CL_SUCCESS;
            q = clCreateCommandQueue(env->ctx, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                     &err);
            if (!q) {
                fprintf(stderr, "FAIL out-of-order queue: %s\n", clhgemm_status_string(err));
                return 1;
            }
        }
        tc_problem_t p[N];
        cl_event ev[N] = {0};
        int made = 0;
        for (int i = 0; i < N; i++) {
            tc_case_t c = {0};
            c.dbl = dbl;
            c.layout = layout;
            c.ta = NT[i & 1];
            c.tb = NT[(i >> 1) & 1];
            c.m = large ? 300 - 17 * i : 60 - 7 * i;
            c.n = large ? 200 + 9 * i : 50 + 9 * i;
            c.k = large ? 400 - 31 * i : 70 - 9 * i;
            c.alpha = (i % 3) ? -1.5 : 1.0;
            c.beta = (i % 3 == 1) ? 0.0 : 1.0;
            set_variant(&c, i % 4);
            if (tc_problem_init(&p[i], env->ctx, &c, rng)) {
                rc = 1;
                break;
            }
            made++;
        }
        for (int i = 0; i < made; i++) {
            clhgemm_status_t st = tc_problem_call(&p[i], q, &ev[i]);
            if (st != CLHGEMM_SUCCESS) {
                char tag[300];
                tc_case_describe(&p[i].c, tag, sizeof tag);
                fprintf(stderr, "FAIL %s [%s queue, %d in flight]: status %s\n", tag,
                        ooo ? "out-of-order" : "in-order", N, clhgemm_status_string(st));
                rc = 1;
                ev[i] = NULL;
            }
        }
        for (int i = 0; i < made; i++) {
            char tag[300];
            tc_case_describe(&p[i].c, tag, sizeof tag - 60);
            strcat(tag, ooo ? " [out-of-order queue, 6 in flight]" : " [in-order queue, 6 in flight]");
            if (ev[i]) {
                rc |= wait_release(ev[i], tag);
                rc |= tc_problem_check(&p[i], q, tag);
            }
            tc_problem_free(&p[i]);
        }
        if (ooo) {
            clFinish(q);
            clReleaseCommandQueue(q);
        }
    }
    return rc;
}

/* Object lifetimes. (1) clhgemm_release_resources() while a call is still in flight: it waits
 * for the library's work, the caller's event stays valid and C is right; the next call works.
 * (2) The caller releases its queue (and context) right after the call, keeping only the
 * event: the work still completes correctly. Repeated, so that new queues and contexts are
 * likely to reuse the addresses of released ones, which a per-queue or per-context table keyed
 * by handle would confuse. (3) Many calls queued without waiting. */
static int lifetimes(const tc_env_t *env, int dbl, clhgemm_layout_t layout, tc_rng_t *rng)
{
    int rc = 0;
    char tag[300];
    /* (1) */
    for (int i = 0; i < 2; i++) {
        tc_case_t c = {0};
        c.dbl = dbl;
        c.layout = layout;
        c.ta = NT[i];
        c.tb = CLHGEMM_TRANS;
        c.m = 257;
        c.n = 130;
        c.k = 300;
        c.alpha = -1.5;
        c.beta = 1.0;
        set_variant(&c, 1);
        tc_problem_t p;
        if (tc_problem_init(&p, env->ctx, &c, rng)) return 1;
        tc_case_describe(&p.c, tag, sizeof tag - 60);
        strcat(tag, " [release_resources while in flight]");
        cl_event ev = NULL;
        clhgemm_status_t st = tc_problem_call(&p, env->queue, &ev);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "FAIL %s: status %s\n", tag, clhgemm_status_string(st));
            rc = 1;
        } else {
            clhgemm_release_resources();
            rc |= wait_release(ev, tag);
            rc |= tc_problem_check(&p, env->queue, tag);
        }
        tc_problem_free(&p);
        c.m = 100;
        rc |= tc_run_case(env->ctx, env->queue, &c, rng); /* and afterwards */
    }
    /* (2) */
    for (int round = 0; round < 8; round++) {
        int new_ctx = round & 1;
        cl_int err = CL_SUCCESS;
        cl_context ctx = env->ctx;
        if (new_ctx) {
            cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                             (cl_context_properties)env->info.platform, 0};
            ctx = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
            if (!ctx) {
                fprintf(stderr, "FAIL clCreateContext: %s\n", clhgemm_status_string(err));
                return 1;
            }
        }
        cl_command_queue q = clCreateCommandQueue(ctx, env->device, 0, &err);
        if (!q) {
            fprintf(stderr, "FAIL clCreateCommandQueue: %s\n", clhgemm_status_string(err));
            if (new_ctx) clReleaseContext(ctx);
            return 1;
        }
        tc_case_t c = {0};
        c.dbl = dbl;
        c.layout = layout;
        c.ta = NT[round & 1];
        c.tb = NT[(round >> 1) & 1];
        c.m = 90 + round;
        c.n = 70 - round;
        c.k = 150 + 3 * round;
        c.alpha = 1.0;
        c.beta = (round % 3) ? -1.5 : 0.0;
        set_variant(&c, round % 4);
        tc_problem_t p;
        if (tc_problem_init(&p, ctx, &c, rng)) {
            clReleaseCommandQueue(q);
            if (new_ctx) clReleaseContext(ctx);
            return 1;
        }
        tc_case_describe(&p.c, tag, sizeof tag - 60);
        strcat(tag, new_ctx ? " [caller released queue+context]" : " [caller released queue]");
        cl_event ev = NULL;
        clhgemm_status_t st = tc_problem_call(&p, q, &ev);
        clReleaseCommandQueue(q);
        if (st != CLHGEMM_SUCCESS) {
            fprintf(stderr, "FAIL %s: status %s\n", tag, clhgemm_status_string(st));
            rc = 1;
            tc_problem_free(&p);
            if (new_ctx) clReleaseContext(ctx);
            continue;
        }
        rc |= wait_release(ev, tag);
        /* read back on a fresh queue of the same context */
        cl_command_queue rq = clCreateCommandQueue(ctx, env->device, 0, &err);
        if (rq) {
            rc |= tc_problem_check(&p, rq, tag);
            clReleaseCommandQueue(rq);
        } else {
            rc = 1;
        }
        tc_problem_free(&p);
        if (new_ctx) clReleaseContext(ctx);
    }
    /* (3) */
    {
        enum { N = 64 };
        tc_problem_t *p = calloc(N, sizeof *p);
        cl_event ev[N] = {0};
        int made = 0;
        for (int i = 0; i < N; i++) {
            tc_case_t c = {0};
            c.dbl = dbl;
            c.layout = layout;
            c.ta = NT[i & 1];
            c.tb = NT[(i >> 1) & 1];
            c.m = 1 + (i * 7) % 40;
            c.n = 1 + (i * 11) % 37;
            c.k = 1 + (i * 13) % 50;
            c.alpha = (i & 4) ? -1.5 : 1.0;
            c.beta = (i % 3 == 0) ? 0.0 : 1.0;
            set_variant(&c, i % 4);
            if (tc_problem_init(&p[i], env->ctx, &c, rng)) break;
            made++;
            if (tc_problem_call(&p[i], env->queue, &ev[i]) != CLHGEMM_SUCCESS) {
                tc_case_describe(&p[i].c, tag, sizeof tag);
                fprintf(stderr, "FAIL %s [64 queued]: call failed\n", tag);
                rc = 1;
                ev[i] = NULL;
            }
        }
        for (int i = made - 1; i >= 0; i--) { /* wait in reverse order */
            tc_case_describe(&p[i].c, tag, sizeof tag - 40);
            strcat(tag, " [64 calls queued]");
            if (ev[i]) {
                rc |= wait_release(ev[i], tag);
                rc |= tc_problem_check(&p[i], env->queue, tag);
            }
            tc_problem_free(&p[i]);
        }
        free(p);
    }
    return rc;
}

static void run_events(const tc_env_t *env, int dbl, clhgemm_layout_t layout, int large,
                       tc_rng_t *rng)
{
    tc_tally(event_null(env, dbl, layout, rng));
    tc_tally(event_other_queue(env, dbl, layout, 129, 64, 65, 0, rng));
    tc_tally(event_other_queue(env, dbl, layout, 129, 64, 65, 1, rng));
    if (large) {
        tc_tally(event_other_queue(env, dbl, layout, 300, 257, 700, 0, rng));
        tc_tally(event_other_queue(env, dbl, layout, 300, 257, 700, 1, rng));
    }
    tc_tally(back_to_back(env, dbl, layout, 65, 33, rng));
    if (large) tc_tally(back_to_back(env, dbl, layout, 257, 129, rng));
    tc_tally(shared_ab(env, dbl, layout, large ? 300 : 65, rng));
    tc_tally(sub_buffers(env, dbl, layout, rng));
    tc_tally(two_contexts(env, dbl, layout, rng));
    tc_tally(many_in_flight(env, dbl, layout, large, rng));
    tc_tally(lifetimes(env, dbl, layout, rng));
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "s") && strcmp(argv[1], "d") &&
                      strcmp(argv[1], "blocked") && strcmp(argv[1], "tinyws"))) {
        fprintf(stderr, "usage: %s s|d|blocked|tinyws [col|row|both [lite]]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    int want_col = 1, want_row = 1;
    if (argc > 2 && strcmp(argv[2], "both")) {
        want_col = !strcmp(argv[2], "col");
        want_row = !strcmp(argv[2], "row");
        if (!want_col && !want_row) {
            fprintf(stderr, "layout filter must be col, row or both\n");
            return 2;
        }
    }
    g_lite = argc > 3 && !strcmp(argv[3], "lite");
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
    if ((!strcmp(mode, "blocked") || !strcmp(mode, "tinyws")) && !lim)
        printf("note: CLHGEMM_WORKSPACE_LIMIT is not set; blocks will only split if the device "
               "budget is small\n");

    tc_rng_t rng;
    tc_rng_seed(&rng, 0xC1A6E33ULL + (uint64_t)mode[0] * 131 + (argc > 2 ? argv[2][0] : 0));
    time_t t0 = time(NULL);
    for (int l = 0; l < 2; l++) {
        clhgemm_layout_t layout = l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
        if ((layout == CLHGEMM_COL_MAJOR && !want_col) || (layout == CLHGEMM_ROW_MAJOR && !want_row))
            continue;
        if (!strcmp(mode, "blocked") || !strcmp(mode, "tinyws")) {
            for (int dbl = 0; dbl < 2; dbl++) {
                if (dbl && !env.has_fp64) {
                    printf("note: no fp64 on this device, double part not run\n");
                    continue;
                }
                if (!strcmp(mode, "tinyws")) {
                    run_tiny(&env, dbl, layout, &rng);
                    continue;
                }
                run_blocked(&env, dbl, layout, &rng);
                run_events(&env, dbl, layout, 1, &rng);
            }
        } else {
            int dbl = !strcmp(mode, "d");
            run_table(&env, dbl, layout, &rng);
            run_direct(&env, dbl, layout, &rng);
            run_events(&env, dbl, layout, 0, &rng);
        }
    }
    tc_close(&env);
    if (!strcmp(mode, "tinyws"))
        printf("tiny workspace: %d calls worked, %d refused with WORKSPACE_TOO_SMALL\n",
               g_tiny_ok, g_tiny_refused);
    printf("%d cases, %d failed (%ld s)\n", tc_checks(), tc_failures(), (long)(time(NULL) - t0));
    return tc_failures() ? 1 : 0;
}
