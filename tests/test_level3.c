/*
 * test_level3.c -- SYMM, SYRK, SYR2K and TRMM on device buffers against OpenBLAS.
 *
 *   test_level3 table s|d symm|syrk|syr2k|trmm|all   every side x uplo x trans x diag x layout
 *                        combination of the routine(s) on odd sizes (1, 7, 33, 65, 129: none a
 *                        multiple of any tile), each with a rotation of (ld, offset) variants
 *                        and (alpha, beta) pairs, plus alpha = 0 / k = 0 / beta = 1 quick paths
 *   test_level3 blocked  larger shapes, both precisions, every routine and combination, meant
 *                        to run under a small CLHGEMM_WORKSPACE_LIMIT (CTest sets it) so that the
 *                        core splits C and k into many blocks: TRMM in place over several
 *                        blocks each way, SYRK/SYR2K block skipping, SYMM/TRMM sub-block packs
 *                        crossing the diagonal
 *   test_level3 variants one case per combination and precision on shapes of several tiles,
 *                        for the kernel variants that CTest selects through CLHGEMM_*GEMM_PARAMS
 *                        (GPU tiles with local-memory staging, MWG != NWG, odd vector widths)
 *   test_level3 threads  four threads (two on one queue, two on a queue each) calling every
 *                        routine at once, meant to run under a small workspace cap
 *   test_level3 args     invalid arguments (each its own status, *event untouched, the output
 *                        bit-identical), precedence in the reference BLAS order, buffer sizes
 *                        exact to the element, FP64 on devices without it
 *
 * Poisoning: the triangle of A that must not be read (and a unit diagonal) is NaN, every gap of
 * A and B is NaN, C is NaN when beta == 0, and every element of the output buffer that must
 * not change (outside the matrix, and the other triangle of a SYRK/SYR2K C) holds a distinct
 * signalling-NaN sentinel that is compared bit for bit. The reference is OpenBLAS
 * (cblas_dsymm/dsyrk/dsyr2k/dtrmm) in double on the same inputs, with the unreferenced NaNs
 * replaced by zeros; the tolerance scales with the inner dimension (common.c).
 * SYR2K runs fused or in two passes as CLHGEMM_SYR2K says (CTest runs both).
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum { SYMM = TC_L3_SYMM, SYRK = TC_L3_SYRK, SYR2K = TC_L3_SYR2K, TRMM = TC_L3_TRMM, NROUTINES };
static const char *const rname[NROUTINES] = {"symm", "syrk", "syr2k", "trmm"};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* OpenBLAS (threads mode) */

typedef tc_l3case_t l3case_t; /* tests/common.h */

/* ---- geometry ---------------------------------------------------------------------------- */

/* Logical shapes (rows x cols) of A, B and the output of a case; rows/cols 0 when absent. */
static void shapes(const l3case_t *c, int *ar, int *ac, int *br, int *bc, int *cr, int *cc)
{
    *br = *bc = *cr = *cc = 0;
    switch (c->r) {
    case SYMM:
    case TRMM: {
        const int ka = c->side == CLHGEMM_LEFT ? c->m : c->n;
        *ar = *ac = ka;
        *br = c->m;
        *bc = c->n;
        if (c->r == SYMM) *cr = c->m, *cc = c->n;
        break;
    }
    default: { /* A (and B) is n x k for NO_TRANS, k x n otherwise */
        const int t = c->trans != CLHGEMM_NO_TRANS;
        *ar = t ? c->k : c->n;
        *ac = t ? c->n : c->k;
        if (c->r == SYR2K) *br = *ar, *bc = *ac;
        *cr = *cc = c->n;
        break;
    }
    }
}

/* Extent along memory of a rows x cols matrix in the layout, and the number of such lines. */
static void stored(clhgemm_layout_t l, int rows, int cols, int *contig, int *lines)
{
    tc_stored(l, CLHGEMM_NO_TRANS, rows, cols, contig, lines);
}

static size_t idx(clhgemm_layout_t l, int i, int j, int ld) { return tc_index_c(l, i, j, ld); }

static int inner_k(const l3case_t *c)
{
    switch (c->r) {
    case SYMM:
    case TRMM:
        return c->side == CLHGEMM_LEFT ? c->m : c->n;
    case SYRK:
        return c->k;
    default:
        return 2 * c->k;
    }
}

/* ---- one problem ------------------------------------------------------------------------- */

typedef struct prob_s {
    l3case_t c;
    int lda, ldb, ldc;
    size_t esz, na, nb, nc;
    void *a0, *b0, *c0;
    cl_mem a, b, cbuf;
} prob_t;

static void store(int dbl, void *p, size_t i, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

static void describe(const l3case_t *c, const prob_t *p, char *buf, size_t len)
{
    snprintf(buf, len,
             "%c%s %s side=%c uplo=%c trans=%s diag=%c m=%d n=%d k=%d alpha=%g beta=%g lda=%d "
             "ldb=%d ldc=%d off=%zu/%zu/%zu",
             c->dbl ? 'd' : 's', rname[c->r], tc_layout_name(c->layout),
             c->side == CLHGEMM_LEFT ? 'L' : 'R', c->uplo == CLHGEMM_UPPER ? 'U' : 'L',
             tc_trans_name(c->trans), c->diag == CLHGEMM_UNIT ? 'U' : 'N', c->m, c->n, c->k,
             c->alpha, c->beta, p ? p->lda : 0, p ? p->ldb : 0, p ? p->ldc : 0, c->offa, c->offb,
             c->offc);
}

static void prob_free(prob_t *p)
{
    if (p->a) clReleaseMemObject(p->a);
    if (p->b) clReleaseMemObject(p->b);
    if (p->cbuf) clReleaseMemObject(p->cbuf);
    free(p->a0);
    free(p->b0);
    free(p->c0);
    memset(p, 0, sizeof *p);
}

/* Whether element (i,j) of the symmetric/triangular A is read by the routine. */
static int a_referenced(const l3case_t *c, int i, int j)
{
    if (c->uplo == CLHGEMM_UPPER ? i > j : i < j) return 0;
    if (c->r == TRMM && c->diag == CLHGEMM_UNIT && i == j) return 0;
    return 1;
}

static int in_tri(clhgemm_uplo_t uplo, int i, int j) { return uplo == CLHGEMM_UPPER ? i <= j : i >= j; }

static int prob_init(prob_t *p, cl_context ctx, const l3case_t *c, tc_rng_t *rng)
{
    memset(p, 0, sizeof *p);
    p->c = *c;
    const int dbl = c->dbl;
    p->esz = dbl ? 8 : 4;
    int ar, ac, br, bc, cr, cc, ca, la, cb, lb, ccn, lc;
    shapes(c, &ar, &ac, &br, &bc, &cr, &cc);
    stored(c->layout, ar, ac, &ca, &la);
    stored(c->layout, br, bc, &cb, &lb);
    stored(c->layout, cr, cc, &ccn, &lc);
    p->lda = (ca > 1 ? ca : 1) + c->pad;
    p->ldb = (cb > 1 ? cb : 1) + c->pad;
    p->ldc = (ccn > 1 ? ccn : 1) + c->pad;
    p->na = tc_required(c->offa, ca, la, p->lda) + 5;
    p->nb = tc_required(c->offb, cb, lb, p->ldb) + 7;
    p->nc = tc_required(c->offc, ccn, lc, p->ldc) + 13;
    p->a0 = malloc(p->na * p->esz);
    p->b0 = malloc(p->nb * p->esz);
    p->c0 = malloc(p->nc * p->esz);
    if (!p->a0 || !p->b0 || !p->c0) goto fail;
    const int structured = c->r == SYMM || c->r == TRMM;
    for (size_t i = 0; i < p->na; i++) store(dbl, p->a0, i, NAN);
    for (int j = 0; j < ac; j++)
        for (int i = 0; i < ar; i++)
            if (!structured || a_referenced(c, i, j))
                store(dbl, p->a0, c->offa + idx(c->layout, i, j, p->lda), tc_rng_uniform(rng));
    /* B: an input (NaN gaps), except for TRMM where it is the output (sentinels outside) */
    for (size_t i = 0; i < p->nb; i++) {
        if (c->r == TRMM) tc_sentinel(dbl, i, (char *)p->b0 + i * p->esz);
        else store(dbl, p->b0, i, NAN);
    }
    for (int j = 0; j < bc; j++)
        for (int i = 0; i < br; i++)
            store(dbl, p->b0, c->offb + idx(c->layout, i, j, p->ldb), tc_rng_uniform(rng));
    for (size_t i = 0; i < p->nc; i++) tc_sentinel(dbl, i, (char *)p->c0 + i * p->esz);
    for (int j = 0; j < cc; j++)
        for (int i = 0; i < cr; i++) {
            if (c->r != SYMM && !in_tri(c->uplo, i, j)) continue; /* other triangle: sentinel */
            store(dbl, p->c0, c->offc + idx(c->layout, i, j, p->ldc),
                  c->beta == 0.0 ? NAN : tc_rng_uniform(rng));
        }
    if (!(p->a = tc_buffer_from_host(ctx, p->a0, p->na * p->esz))) goto fail;
    if (!(p->b = tc_buffer_from_host(ctx, p->b0, p->nb * p->esz))) goto fail;
    if (!(p->cbuf = tc_buffer_from_host(ctx, p->c0, p->nc * p->esz))) goto fail;
    return 0;
fail:
    fprintf(stderr, "FAIL: problem setup\n");
    prob_free(p);
    return 1;
}

static clhgemm_status_t prob_call(const prob_t *p, cl_command_queue q, cl_event *ev)
{
    const l3case_t *c = &p->c;
    const float fa = (float)c->alpha, fb = (float)c->beta;
    switch (c->r) {
    case SYMM:
        return c->dbl ? clhgemm_dsymm_cl(c->layout, c->side, c->uplo, c->m, c->n, c->alpha, p->a,
                                         c->offa, p->lda, p->b, c->offb, p->ldb, c->beta, p->cbuf,
                                         c->offc, p->ldc, q, ev)
                      : clhgemm_ssymm_cl(c->layout, c->side, c->uplo, c->m, c->n, fa, p->a,
                                         c->offa, p->lda, p->b, c->offb, p->ldb, fb, p->cbuf,
                                         c->offc, p->ldc, q, ev);
    case SYRK:
        return c->dbl ? clhgemm_dsyrk_cl(c->layout, c->uplo, c->trans, c->n, c->k, c->alpha, p->a,
                                         c->offa, p->lda, c->beta, p->cbuf, c->offc, p->ldc, q, ev)
                      : clhgemm_ssyrk_cl(c->layout, c->uplo, c->trans, c->n, c->k, fa, p->a,
                                         c->offa, p->lda, fb, p->cbuf, c->offc, p->ldc, q, ev);
    case SYR2K:
        return c->dbl ? clhgemm_dsyr2k_cl(c->layout, c->uplo, c->trans, c->n, c->k, c->alpha,
                                          p->a, c->offa, p->lda, p->b, c->offb, p->ldb, c->beta,
                                          p->cbuf, c->offc, p->ldc, q, ev)
                      : clhgemm_ssyr2k_cl(c->layout, c->uplo, c->trans, c->n, c->k, fa, p->a,
                                          c->offa, p->lda, p->b, c->offb, p->ldb, fb, p->cbuf,
                                          c->offc, p->ldc, q, ev);
    default:
        return c->dbl ? clhgemm_dtrmm_cl(c->layout, c->side, c->uplo, c->trans, c->diag, c->m,
                                         c->n, c->alpha, p->a, c->offa, p->lda, p->b, c->offb,
                                         p->ldb, q, ev)
                      : clhgemm_strmm_cl(c->layout, c->side, c->uplo, c->trans, c->diag, c->m,
                                         c->n, fa, p->a, c->offa, p->lda, p->b, c->offb, p->ldb,
                                         q, ev);
    }
}

/* ---- reference --------------------------------------------------------------------------- */

/* want/bound over the whole output buffer (C, or B for TRMM) := alpha*op + beta*C0 and
 * |alpha||op| + |beta||C0| with OpenBLAS in double. */
static void reference(const prob_t *p, double *want, double *bound)
{
    tc_l3_reference(&p->c, p->lda, p->ldb, p->ldc, p->na, p->nb, p->nc, p->a0, p->b0, p->c0,
                    want, bound);
}

static int unchanged_input(const prob_t *p, cl_command_queue q, cl_mem m, const void *h0, size_t n,
                           char name, const char *tag)
{
    void *buf = malloc(n * p->esz);
    if (!buf) return 1;
    int rc = tc_read(q, m, buf, n * p->esz);
    if (!rc && memcmp(buf, h0, n * p->esz) != 0) {
        fprintf(stderr, "FAIL %s: input buffer %c was modified\n", tag, name);
        rc = 1;
    }
    free(buf);
    return rc;
}

static int prob_check(const prob_t *p, cl_command_queue q, const char *tag)
{
    const l3case_t *c = &p->c;
    const int trmm = c->r == TRMM;
    const size_t nout = trmm ? p->nb : p->nc;
    void *got = malloc(nout * p->esz);
    double *want = malloc(nout * 8), *bound = malloc(nout * 8);
    int rc = 0;
    if (!got || !want || !bound || tc_read(q, trmm ? p->b : p->cbuf, got, nout * p->esz)) {
        rc = 1;
        goto out;
    }
    rc |= unchanged_input(p, q, p->a, p->a0, p->na, 'A', tag);
    if (!trmm) rc |= unchanged_input(p, q, p->b, p->b0, p->nb, 'B', tag);
    else rc |= unchanged_input(p, q, p->cbuf, p->c0, p->nc, 'C', tag);
    pthread_mutex_lock(&g_lock);
    reference(p, want, bound);
    pthread_mutex_unlock(&g_lock);
    if (c->r == SYMM)
        rc |= tc_check_c(c->dbl, c->layout, c->m, c->n, inner_k(c), got, p->c0, p->nc, c->offc,
                         p->ldc, want, bound, tag);
    else if (trmm)
        rc |= tc_check_c(c->dbl, c->layout, c->m, c->n, inner_k(c), got, p->b0, p->nb, c->offb,
                         p->ldb, want, bound, tag);
    else
        rc |= tc_check_c_tri(c->dbl, c->layout, c->uplo, c->n, inner_k(c), got, p->c0, p->nc,
                             c->offc, p->ldc, want, bound, tag);
out:
    free(got);
    free(want);
    free(bound);
    return rc;
}

/* Init, call on queue, wait on the event (which must belong to the caller's context), check,
 * free. */
static int run_case_on(cl_context ctx, cl_command_queue queue, const l3case_t *c, tc_rng_t *rng)
{
    char tag[400];
    prob_t p;
    if (prob_init(&p, ctx, c, rng)) return 1;
    describe(c, &p, tag, sizeof tag);
    cl_event ev = NULL;
    const clhgemm_status_t st = prob_call(&p, queue, &ev);
    const int ev_rc = tc_event_contract(ctx, queue, st, ev, tag);
    const int rc = ev_rc < 0 ? 1 : ev_rc | prob_check(&p, queue, tag);
    prob_free(&p);
    return rc;
}

static int run_case(const tc_env_t *env, const l3case_t *c, tc_rng_t *rng)
{
    return run_case_on(env->ctx, env->queue, c, rng);
}

/* ---- the combinations -------------------------------------------------------------------- */

static const clhgemm_layout_t LAYOUTS[2] = {CLHGEMM_COL_MAJOR, CLHGEMM_ROW_MAJOR};
static const clhgemm_side_t SIDES[2] = {CLHGEMM_LEFT, CLHGEMM_RIGHT};
static const clhgemm_uplo_t UPLOS[2] = {CLHGEMM_UPPER, CLHGEMM_LOWER};
static const clhgemm_transpose_t TRANS[3] = {CLHGEMM_NO_TRANS, CLHGEMM_TRANS, CLHGEMM_CONJ_TRANS};
static const clhgemm_diag_t DIAGS[2] = {CLHGEMM_NON_UNIT, CLHGEMM_UNIT};

/* Calls f for every combination of the routine's options (ConjTrans only for a few, it is Trans
 * for real data). */
typedef void (*combo_fn)(const tc_env_t *, l3case_t *, tc_rng_t *, int combo);

static int for_combos(const tc_env_t *env, int r, int dbl, combo_fn f, tc_rng_t *rng)
{
    int combo = 0;
    for (int l = 0; l < 2; l++)
        for (int s = 0; s < 2; s++) {
            if ((r == SYRK || r == SYR2K) && s) continue;
            for (int u = 0; u < 2; u++)
                for (int t = 0; t < 3; t++) {
                    if (r == SYMM && t) continue;
                    /* ConjTrans: one layout/uplo/side per routine */
                    if (t == 2 && (l || s || u)) continue;
                    for (int d = 0; d < 2; d++) {
                        if (r != TRMM && d) continue;
                        l3case_t c = {0};
                        c.r = r;
                        c.dbl = dbl;
                        c.layout = LAYOUTS[l];
                        c.side = SIDES[s];
                        c.uplo = UPLOS[u];
                        c.trans = TRANS[t];
                        c.diag = DIAGS[d];
                        f(env, &c, rng, combo++);
                    }
                }
        }
    return combo;
}

/* (ld, offset) variants: 0 tight; 1 ld + 3 and offsets; 2 tight with offsets; 3 ld + 3. */
static void set_variant(l3case_t *c, int v)
{
    c->pad = (v == 1 || v == 3) ? 3 : 0;
    c->offa = (v == 1 || v == 2) ? 5 : 0;
    c->offb = (v == 1 || v == 2) ? 11 : 0;
    c->offc = (v == 1 || v == 2) ? 3 : 0;
}

static const double PAIRS[][2] = {{1.0, 0.0}, {-1.5, 1.0}, {0.5, -1.5}, {1.0, 1.0}, {-1.5, 0.0}};
#define NPAIRS (int)(sizeof PAIRS / sizeof PAIRS[0])

static void table_combo(const tc_env_t *env, l3case_t *base, tc_rng_t *rng, int combo)
{
    /* SYMM/TRMM: m x n; SYRK/SYR2K: n x k */
    static const int sizes[][2] = {{1, 1},   {7, 7},   {33, 7},   {7, 33},
                                   {129, 33}, {33, 65}, {129, 129}, {1, 40}};
    int rot = combo * 3;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int rep = 0; rep < 3; rep++, rot++) {
            l3case_t c = *base;
            if (c.r == SYMM || c.r == TRMM) {
                c.m = sizes[s][0];
                c.n = sizes[s][1];
            } else {
                c.n = sizes[s][0];
                c.k = sizes[s][1];
            }
            c.alpha = PAIRS[rot % NPAIRS][0];
            c.beta = PAIRS[rot % NPAIRS][1];
            set_variant(&c, (rot / NPAIRS + rep) % 4);
            tc_tally(run_case(env, &c, rng));
        }
    }
    /* quick paths: alpha = 0 (beta 0, 1, other), and k = 0 for SYRK/SYR2K */
    static const double qb[3] = {0.0, 1.0, -1.5};
    for (int i = 0; i < 3; i++) {
        l3case_t c = *base;
        c.m = 7;  /* SYMM/TRMM: 7 x 33 */
        c.n = 33; /* SYRK/SYR2K: 33 x 33, k = 12 */
        c.k = 12;
        c.alpha = 0.0;
        c.beta = qb[i];
        set_variant(&c, i + combo);
        tc_tally(run_case(env, &c, rng));
        if (c.r == SYRK || c.r == SYR2K) {
            c.k = 0;
            c.alpha = -1.5;
            tc_tally(run_case(env, &c, rng));
        }
    }
    /* beta = 1 with alpha = 1 on a size with all of the tiles partial */
    l3case_t c = *base;
    c.m = 65;
    c.n = 31;
    c.k = 17;
    c.alpha = 1.0;
    c.beta = 1.0;
    set_variant(&c, combo % 4);
    tc_tally(run_case(env, &c, rng));
}

static void blocked_combo(const tc_env_t *env, l3case_t *base, tc_rng_t *rng, int combo)
{
    /* SYMM/TRMM: m x n; SYRK/SYR2K: n x k. The first is square so that both sides split both
     * ways; the others are oblong. */
    static const int sizes[][2] = {{150, 150}, {203, 70}, {70, 203}};
    const int s = combo % 3;
    l3case_t c = *base;
    if (c.r == SYMM || c.r == TRMM) {
        c.m = sizes[s][0];
        c.n = sizes[s][1];
    } else {
        c.n = sizes[s][0];
        c.k = sizes[s][1];
    }
    c.alpha = PAIRS[combo % NPAIRS][0];
    c.beta = PAIRS[combo % NPAIRS][1];
    set_variant(&c, combo % 4);
    tc_tally(run_case(env, &c, rng));
}

/* Kernel variants (GPU tile shapes, local-memory staging, MWG != NWG) through
 * CLHGEMM_{S,D}GEMM_PARAMS: one case per combination, on shapes spanning several tiles. */
static void variants_combo(const tc_env_t *env, l3case_t *base, tc_rng_t *rng, int combo)
{
    l3case_t c = *base;
    const int a = combo % 2 ? 140 : 200, b = combo % 2 ? 200 : 140;
    if (c.r == SYMM || c.r == TRMM) c.m = a, c.n = b;
    else c.n = a, c.k = b;
    c.alpha = PAIRS[combo % NPAIRS][0];
    c.beta = PAIRS[combo % NPAIRS][1];
    set_variant(&c, combo % 4);
    tc_tally(run_case(env, &c, rng));
}

/* Threads: four threads, two of them on one shared queue and two on a queue each, run every
 * routine in turn (both SYR2K modes, several side/uplo/trans/diag) on shapes that, under the
 * small workspace CTest sets, are split into many blocks -- so concurrent calls on one queue
 * must not share temporaries, and TRMM's in-place order must hold in each. */
typedef struct worker_s {
    const tc_env_t *env;
    cl_command_queue queue;
    int id;
} worker_t;

static void *worker(void *arg)
{
    const worker_t *w = arg;
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x7EAD0ULL + (uint64_t)w->id * 7919);
    for (int i = 0; i < 24; i++) {
        l3case_t c = {0};
        c.r = (i + w->id) % NROUTINES;
        c.dbl = w->env->has_fp64 && (i / 4 + w->id) % 2;
        c.layout = LAYOUTS[(i / 2) % 2];
        c.side = SIDES[(i / 3 + w->id) % 2];
        c.uplo = UPLOS[(i / 5 + w->id) % 2];
        c.trans = TRANS[(i / 7 + w->id) % 2];
        c.diag = DIAGS[(i / 11 + w->id) % 2];
        c.m = 90 + w->id;
        c.n = 70 + 3 * w->id;
        c.k = 50;
        c.alpha = PAIRS[(i + w->id) % NPAIRS][0];
        c.beta = PAIRS[(i + w->id) % NPAIRS][1];
        set_variant(&c, (i + w->id) % 4);
        tc_tally(run_case_on(w->env->ctx, w->queue, &c, &rng));
    }
    return NULL;
}

static void run_threads(const tc_env_t *env)
{
    cl_command_queue own[2] = {tc_queue_new(env), tc_queue_new(env)};
    if (!own[0] || !own[1]) {
        tc_tally(1);
        return;
    }
    worker_t w[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker_t){env, i < 2 ? env->queue : own[i - 2], i};
        if (pthread_create(&th[i], NULL, worker, &w[i]) != 0) {
            fprintf(stderr, "FAIL: pthread_create\n");
            tc_tally(1);
            th[i] = 0;
        }
    }
    for (int i = 0; i < 4; i++)
        if (th[i]) pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        clFinish(own[i]);
        clReleaseCommandQueue(own[i]);
    }
}

/* ---- invalid arguments ------------------------------------------------------------------- */

typedef struct call_s {
    int r, dbl;
    int layout, side, uplo, trans, diag;
    int m, n, k;
    double alpha, beta;
    cl_mem A, B, C;
    size_t offa, offb, offc;
    int lda, ldb, ldc;
    cl_command_queue q;
} call_t;

static clhgemm_status_t do_call(const call_t *c, cl_event *ev)
{
    const clhgemm_layout_t l = (clhgemm_layout_t)c->layout;
    const clhgemm_side_t s = (clhgemm_side_t)c->side;
    const clhgemm_uplo_t u = (clhgemm_uplo_t)c->uplo;
    const clhgemm_transpose_t t = (clhgemm_transpose_t)c->trans;
    const clhgemm_diag_t d = (clhgemm_diag_t)c->diag;
    const float fa = (float)c->alpha, fb = (float)c->beta;
    switch (c->r) {
    case SYMM:
        return c->dbl ? clhgemm_dsymm_cl(l, s, u, c->m, c->n, c->alpha, c->A, c->offa, c->lda, c->B,
                                         c->offb, c->ldb, c->beta, c->C, c->offc, c->ldc, c->q, ev)
                      : clhgemm_ssymm_cl(l, s, u, c->m, c->n, fa, c->A, c->offa, c->lda, c->B,
                                         c->offb, c->ldb, fb, c->C, c->offc, c->ldc, c->q, ev);
    case SYRK:
        return c->dbl ? clhgemm_dsyrk_cl(l, u, t, c->n, c->k, c->alpha, c->A, c->offa, c->lda,
                                         c->beta, c->C, c->offc, c->ldc, c->q, ev)
                      : clhgemm_ssyrk_cl(l, u, t, c->n, c->k, fa, c->A, c->offa, c->lda, fb, c->C,
                                         c->offc, c->ldc, c->q, ev);
    case SYR2K:
        return c->dbl ? clhgemm_dsyr2k_cl(l, u, t, c->n, c->k, c->alpha, c->A, c->offa, c->lda,
                                          c->B, c->offb, c->ldb, c->beta, c->C, c->offc, c->ldc,
                                          c->q, ev)
                      : clhgemm_ssyr2k_cl(l, u, t, c->n, c->k, fa, c->A, c->offa, c->lda, c->B,
                                          c->offb, c->ldb, fb, c->C, c->offc, c->ldc, c->q, ev);
    default:
        return c->dbl ? clhgemm_dtrmm_cl(l, s, u, t, d, c->m, c->n, c->alpha, c->A, c->offa,
                                         c->lda, c->B, c->offb, c->ldb, c->q, ev)
                      : clhgemm_strmm_cl(l, s, u, t, d, c->m, c->n, fa, c->A, c->offa, c->lda,
                                         c->B, c->offb, c->ldb, c->q, ev);
    }
}

static void call_describe(const call_t *c, const char *what, char *buf, size_t len)
{
    snprintf(buf, len,
             "%c%s layout=%d side=%d uplo=%d trans=%d diag=%d m=%d n=%d k=%d alpha=%g A=%s "
             "offA=%zu lda=%d B=%s offB=%zu ldb=%d C=%s offC=%zu ldc=%d q=%s [%s]",
             c->dbl ? 'd' : 's', rname[c->r], c->layout, c->side, c->uplo, c->trans, c->diag, c->m,
             c->n, c->k, c->alpha, c->A ? "buf" : "NULL", c->offa, c->lda, c->B ? "buf" : "NULL",
             c->offb, c->ldb, c->C ? "buf" : "NULL", c->offc, c->ldc, c->q ? "q" : "NULL", what);
}

/* The call gives status want; on success a completed event, else *event untouched (no_event:
 * the call is given no event pointer) and the watched outputs bit-identical. */
static void expect(const call_t *c, clhgemm_status_t want, const tc_watched_t *w1,
                   const tc_watched_t *w2, const char *what, int no_event)
{
    char tag[512];
    call_describe(c, what, tag, sizeof tag);
    int rc = 0;
    cl_event ev = TC_EV_SENTINEL;
    clhgemm_status_t st = do_call(c, no_event ? NULL : &ev);
    if (st != want) {
        fprintf(stderr, "FAIL %s: status %s (%d), want %s (%d)\n", tag, clhgemm_status_string(st),
                (int)st, clhgemm_status_string(want), (int)want);
        rc = 1;
    }
    if (st == CLHGEMM_SUCCESS && no_event) {
        clFinish(c->q);
    } else if (st == CLHGEMM_SUCCESS) {
        if (ev == TC_EV_SENTINEL || !ev) {
            fprintf(stderr, "FAIL %s: success without an event\n", tag);
            rc = 1;
        } else {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
        }
    } else {
        if (ev != TC_EV_SENTINEL) {
            fprintf(stderr, "FAIL %s: *event written on a rejected call\n", tag);
            rc = 1;
        }
        rc |= tc_unchanged(w1, tag);
        rc |= tc_unchanged(w2, tag);
    }
    tc_tally(rc);
}

/* ---- invalid arguments: the table ---------------------------------------------------------- */

/* A row changes arguments of the valid call (the rest stay valid) and names the status the call
 * must give, for the routines it names; the loop of invalid_args runs every row of a routine. */
typedef enum {
    F_END = 0, /* the end of a row's changes */
    F_LAYOUT, F_SIDE, F_UPLO, F_TRANS, F_DIAG, F_M, F_N, F_K, F_ALPHA, F_LDA, F_LDB, F_LDC,
    F_OFFA, F_OFFB, F_OFFC, F_QUEUE, F_A, F_B, F_C
} field_t;

/* What the argument becomes. */
typedef enum {
    V_NUM,      /* num */
    V_BAD_ENUM, /* each of BAD_ENUM in turn: a call per value */
    V_ROWS,     /* the matrix's rows as stored (its tightest ld) + num */
    V_LD_K0,    /* the tightest lda of SYRK's / SYR2K's A (and B) when k = 0 */
    V_TOP,      /* SIZE_MAX - num */
    V_NULL,     /* no queue, no buffer */
    V_SHORT,    /* the matrix's buffer one element shorter than the call needs */
    V_OTHER     /* the matrix's buffer, exactly sized, from another context */
} value_t;

/* No valid value of any enum argument (layout 101/102, trans 111-113, uplo 121/122, diag
 * 131/132, side 141/142). */
static const int BAD_ENUM[] = {0, 100, 103, 110, 114, 120, 123, 130, 133, 140, 143};

typedef struct {
    field_t field;
    value_t value;
    long long num;
} change_t;

/* The routines a row is for. */
enum {
    R_SYMM = 1 << SYMM, R_SYRK = 1 << SYRK, R_SYR2K = 1 << SYR2K, R_TRMM = 1 << TRMM,
    R_ALL = R_SYMM | R_SYRK | R_SYR2K | R_TRMM,
    R_SIDE = R_SYMM | R_TRMM,             /* those with side (and m) */
    R_RANKK = R_SYRK | R_SYR2K,           /* those with trans (TRANS) and k */
    R_TRANS = R_SYRK | R_SYR2K | R_TRMM,  /* those with a trans argument */
    R_B = R_SYMM | R_SYR2K | R_TRMM,      /* those with B */
    R_C = R_SYMM | R_SYRK | R_SYR2K       /* those with C */
};

typedef struct {
    unsigned routines;
    const char *what;
    clhgemm_status_t want;
    int watch_2;  /* the other context's output must stay unchanged too */
    int no_event; /* the call is given no event pointer */
    change_t set[7];
} l3_case_t;

#define NUM(f, v) {f, V_NUM, v}
#define BAD(f) {f, V_BAD_ENUM, 0}
#define ROWS(f, d) {f, V_ROWS, d}
#define NUL(f) {f, V_NULL, 0}
#define SHORT(f) {f, V_SHORT, 0}
#define OTHER(f) {f, V_OTHER, 0}

/* The order of the checks is reference BLAS's (layout, side, uplo, trans, diag, m, n, k, lda,
 * ldb, ldc), then the queue, then the buffers: the "precedence" rows give two bad arguments and
 * want the earlier one's status. A row that wants CLHGEMM_SUCCESS checks that a NULL buffer the
 * call must not read is accepted; the output it wrote is restored afterwards. */
static const l3_case_t L3_CASES[] = {
    {R_ALL, "valid, exact buffer sizes", CLHGEMM_SUCCESS, 0, 0, {{F_END}}},

    {R_ALL, "bad layout", CLHGEMM_INVALID_LAYOUT, 0, 0, {BAD(F_LAYOUT)}},
    {R_SIDE, "bad side", CLHGEMM_INVALID_SIDE, 0, 0, {BAD(F_SIDE)}},
    {R_ALL, "bad uplo", CLHGEMM_INVALID_UPLO, 0, 0, {BAD(F_UPLO)}},
    {R_RANKK, "bad trans", CLHGEMM_INVALID_TRANS, 0, 0, {BAD(F_TRANS)}},
    {R_TRMM, "bad trans", CLHGEMM_INVALID_TRANS_A, 0, 0, {BAD(F_TRANS)}},
    {R_TRMM, "bad diag", CLHGEMM_INVALID_DIAG, 0, 0, {BAD(F_DIAG)}},
    /* the enum values of the other arguments are no valid value here either */
    {R_ALL, "uplo = CLHGEMM_NO_TRANS", CLHGEMM_INVALID_UPLO, 0, 0,
     {NUM(F_UPLO, CLHGEMM_NO_TRANS)}},
    {R_SIDE, "side = CLHGEMM_UPPER", CLHGEMM_INVALID_SIDE, 0, 0, {NUM(F_SIDE, CLHGEMM_UPPER)}},
    {R_TRMM, "diag = CLHGEMM_LEFT", CLHGEMM_INVALID_DIAG, 0, 0, {NUM(F_DIAG, CLHGEMM_LEFT)}},
    {R_SIDE, "m = -1", CLHGEMM_INVALID_M, 0, 0, {NUM(F_M, -1)}},
    {R_ALL, "n = -1", CLHGEMM_INVALID_N, 0, 0, {NUM(F_N, -1)}},
    {R_RANKK, "k = -1", CLHGEMM_INVALID_K, 0, 0, {NUM(F_K, -1)}},
    {R_RANKK, "k = -1 with alpha = 0", CLHGEMM_INVALID_K, 0, 0, {NUM(F_K, -1), NUM(F_ALPHA, 0)}},
    {R_ALL, "lda = rows as stored - 1", CLHGEMM_INVALID_LDA, 0, 0, {ROWS(F_LDA, -1)}},
    {R_ALL, "lda = 0", CLHGEMM_INVALID_LDA, 0, 0, {NUM(F_LDA, 0)}},
    {R_B, "ldb = rows as stored - 1", CLHGEMM_INVALID_LDB, 0, 0, {ROWS(F_LDB, -1)}},
    {R_B, "ldb = -1", CLHGEMM_INVALID_LDB, 0, 0, {NUM(F_LDB, -1)}},
    {R_C, "ldc = rows as stored - 1", CLHGEMM_INVALID_LDC, 0, 0, {ROWS(F_LDC, -1)}},
    {R_C, "ldc = 0", CLHGEMM_INVALID_LDC, 0, 0, {NUM(F_LDC, 0)}},
    /* ld >= 1 even for an empty matrix */
    {R_ALL, "empty, lda = 0", CLHGEMM_INVALID_LDA, 0, 0,
     {NUM(F_N, 0), NUM(F_M, 0), NUM(F_LDA, 0)}},

    {R_ALL, "precedence: layout before uplo", CLHGEMM_INVALID_LAYOUT, 0, 0,
     {NUM(F_LAYOUT, 0), NUM(F_UPLO, 0)}},
    {R_SIDE, "precedence: side before uplo", CLHGEMM_INVALID_SIDE, 0, 0,
     {NUM(F_SIDE, 0), NUM(F_UPLO, 0)}},
    {R_TRANS, "precedence: uplo before trans", CLHGEMM_INVALID_UPLO, 0, 0,
     {NUM(F_UPLO, 0), NUM(F_TRANS, 0)}},
    {R_RANKK, "precedence: trans before n", CLHGEMM_INVALID_TRANS, 0, 0,
     {NUM(F_TRANS, 0), NUM(F_N, -1)}},
    {R_TRMM, "precedence: trans before n", CLHGEMM_INVALID_TRANS_A, 0, 0,
     {NUM(F_TRANS, 0), NUM(F_N, -1)}},
    {R_TRMM, "precedence: transA before diag", CLHGEMM_INVALID_TRANS_A, 0, 0,
     {NUM(F_TRANS, 0), NUM(F_DIAG, 0)}},
    {R_TRMM, "precedence: diag before m", CLHGEMM_INVALID_DIAG, 0, 0,
     {NUM(F_DIAG, 0), NUM(F_M, -1)}},
    {R_C, "precedence: uplo before n", CLHGEMM_INVALID_UPLO, 0, 0,
     {NUM(F_UPLO, 0), NUM(F_N, -1)}},
    {R_SIDE, "precedence: m before n", CLHGEMM_INVALID_M, 0, 0, {NUM(F_M, -1), NUM(F_N, -1)}},
    {R_RANKK, "precedence: n before k", CLHGEMM_INVALID_N, 0, 0, {NUM(F_N, -1), NUM(F_K, -1)}},
    {R_RANKK, "precedence: k before lda", CLHGEMM_INVALID_K, 0, 0,
     {NUM(F_K, -1), NUM(F_LDA, 0)}},
    {R_ALL, "precedence: n before lda", CLHGEMM_INVALID_N, 0, 0, {NUM(F_N, -1), NUM(F_LDA, 0)}},
    {R_B, "precedence: lda before ldb", CLHGEMM_INVALID_LDA, 0, 0,
     {NUM(F_LDA, 0), NUM(F_LDB, 0)}},
    {R_C, "precedence: lda before ldc", CLHGEMM_INVALID_LDA, 0, 0,
     {NUM(F_LDA, 0), NUM(F_LDC, 0)}},
    {R_B & R_C, "precedence: ldb before ldc", CLHGEMM_INVALID_LDB, 0, 0,
     {NUM(F_LDB, 0), NUM(F_LDC, 0)}},
    {R_ALL, "precedence: lda before queue", CLHGEMM_INVALID_LDA, 0, 0,
     {NUM(F_LDA, 0), NUL(F_QUEUE)}},

    /* queue and buffers */
    {R_ALL, "queue NULL", CLHGEMM_INVALID_QUEUE, 0, 0, {NUL(F_QUEUE)}},
    {R_ALL, "precedence: queue before A", CLHGEMM_INVALID_QUEUE, 0, 0, {NUL(F_QUEUE), NUL(F_A)}},
    {R_ALL, "A NULL", CLHGEMM_NULL_BUFFER_A, 0, 0, {NUL(F_A)}},
    {R_ALL, "A one element short", CLHGEMM_INSUFFICIENT_BUFFER_A, 0, 0, {SHORT(F_A)}},
    {R_ALL, "A exact, offA = 1", CLHGEMM_INSUFFICIENT_BUFFER_A, 0, 0, {NUM(F_OFFA, 1)}},
    {R_ALL, "offA = 2^40", CLHGEMM_INSUFFICIENT_BUFFER_A, 0, 0, {NUM(F_OFFA, 1LL << 40)}},
    {R_ALL, "offA near SIZE_MAX", CLHGEMM_INSUFFICIENT_BUFFER_A, 0, 0, {{F_OFFA, V_TOP, 2}}},
    {R_ALL, "lda = INT_MAX", CLHGEMM_INSUFFICIENT_BUFFER_A, 0, 0, {NUM(F_LDA, INT_MAX)}},
    {R_ALL, "A from another context", CLHGEMM_CONTEXT_MISMATCH, 0, 0, {OTHER(F_A)}},
    {R_ALL, "precedence: A before B", CLHGEMM_NULL_BUFFER_A, 0, 0, {NUL(F_A), NUL(F_B)}},
    {R_B, "B NULL", CLHGEMM_NULL_BUFFER_B, 0, 0, {NUL(F_B)}},
    {R_B, "B one element short", CLHGEMM_INSUFFICIENT_BUFFER_B, 0, 0, {SHORT(F_B)}},
    {R_B, "B exact, offB = 1", CLHGEMM_INSUFFICIENT_BUFFER_B, 0, 0, {NUM(F_OFFB, 1)}},
    {R_B, "ldb = INT_MAX", CLHGEMM_INSUFFICIENT_BUFFER_B, 0, 0, {NUM(F_LDB, INT_MAX)}},
    {R_SYMM | R_SYR2K, "B from another context", CLHGEMM_CONTEXT_MISMATCH, 0, 0, {OTHER(F_B)}},
    {R_TRMM, "B from another context", CLHGEMM_CONTEXT_MISMATCH, 1, 0, {OTHER(F_B)}},
    {R_C, "C NULL", CLHGEMM_NULL_BUFFER_C, 0, 0, {NUL(F_C)}},
    {R_C, "C one element short", CLHGEMM_INSUFFICIENT_BUFFER_C, 0, 0, {SHORT(F_C)}},
    {R_C, "C exact, offC = 1", CLHGEMM_INSUFFICIENT_BUFFER_C, 0, 0, {NUM(F_OFFC, 1)}},
    {R_C, "ldc = INT_MAX", CLHGEMM_INSUFFICIENT_BUFFER_C, 0, 0, {NUM(F_LDC, INT_MAX)}},
    {R_C, "C from another context", CLHGEMM_CONTEXT_MISMATCH, 1, 0, {OTHER(F_C)}},
    {R_C, "C NULL with alpha = 0", CLHGEMM_NULL_BUFFER_C, 0, 0, {NUL(F_C), NUM(F_ALPHA, 0)}},
    /* alpha == 0 reads neither A nor (SYMM, SYR2K) B: NULL is fine there */
    {R_SYMM | R_SYR2K, "alpha = 0 with A (and B) NULL", CLHGEMM_SUCCESS, 0, 0,
     {NUM(F_ALPHA, 0), NUL(F_A), NUL(F_B)}},
    {R_SYRK | R_TRMM, "alpha = 0 with A (and B) NULL", CLHGEMM_SUCCESS, 0, 0,
     {NUM(F_ALPHA, 0), NUL(F_A)}},
    {R_TRMM, "TRMM alpha = 0, B NULL", CLHGEMM_NULL_BUFFER_B, 0, 0,
     {NUM(F_ALPHA, 0), NUL(F_B)}},
    {R_RANKK, "k = 0 with A, B NULL", CLHGEMM_SUCCESS, 0, 0,
     {NUM(F_K, 0), NUL(F_A), NUL(F_B), {F_LDA, V_LD_K0, 0}, {F_LDB, V_LD_K0, 0}}},
    /* empty: nothing touched, no buffer needed */
    {R_ALL, "n = 0 with every buffer NULL", CLHGEMM_SUCCESS, 0, 0,
     {NUM(F_N, 0), NUL(F_A), NUL(F_B), NUL(F_C), NUM(F_LDA, 5), NUM(F_LDB, 5), NUM(F_LDC, 5)}},
    /* a rejected call with event == NULL still gives the status */
    {R_ALL, "n = -1 with event NULL", CLHGEMM_INVALID_N, 0, 1, {NUM(F_N, -1)}},
};

/* One routine's buffers and geometry for its invalid arguments: A, B and the output exactly as
 * large as the contract requires, one element short, and exact in another context (a routine
 * without B or C gets one element for it, passed as NULL). */
typedef struct {
    int rows[3], lines[3]; /* as stored: A, B, C */
    size_t elems[3];
    cl_mem exact[3], shorter[3], other[3];
    void *hout, *hout2;    /* the output's (TRMM: B's, else C's) contents, in both contexts */
    int out;               /* the output matrix: 1 (B) or 2 (C) */
    int ld_k0;             /* see V_LD_K0 */
} l3_fixture_t;

static int l3_fixture_make(l3_fixture_t *fx, const tc_env_t *env, cl_context ctx2,
                           const l3case_t *lc, tc_rng_t *rng)
{
    const size_t esz = lc->dbl ? 8 : 4;
    const int r = lc->r, has[3] = {1, r != SYRK, r != TRMM};
    int dims[6];
    memset(fx, 0, sizeof *fx);
    shapes(lc, &dims[0], &dims[1], &dims[2], &dims[3], &dims[4], &dims[5]);
    for (int i = 0; i < 3; i++) {
        stored(lc->layout, dims[2 * i], dims[2 * i + 1], &fx->rows[i], &fx->lines[i]);
        fx->elems[i] = has[i] ? tc_required(0, fx->rows[i], fx->lines[i], fx->rows[i]) : 1;
    }
    fx->out = r == TRMM ? 1 : 2;
    fx->ld_k0 = lc->trans == CLHGEMM_NO_TRANS ? (lc->layout == CLHGEMM_COL_MAJOR ? lc->n : 1)
                                              : (lc->layout == CLHGEMM_COL_MAJOR ? 1 : lc->n);
    /* in this order, so that the random contents are those of the earlier form of the test */
    for (int i = 0; i < 3; i++) {
        void **host = i == fx->out ? &fx->hout : NULL;
        fx->exact[i] = tc_random_buffer(env->ctx, fx->elems[i], esz, rng, host);
        fx->shorter[i] = tc_random_buffer(env->ctx, fx->elems[i] - (size_t)has[i], esz, rng, NULL);
    }
    for (int i = 0; i < 3; i++) {
        void **host = i == fx->out ? &fx->hout2 : NULL;
        fx->other[i] = tc_random_buffer(ctx2, fx->elems[i], esz, rng, host);
    }
    for (int i = 0; i < 3; i++)
        if (!fx->exact[i] || !fx->shorter[i] || !fx->other[i]) return -1;
    return fx->hout && fx->hout2 ? 0 : -1;
}

static void l3_fixture_free(l3_fixture_t *fx)
{
    free(fx->hout);
    free(fx->hout2);
    for (int i = 0; i < 3; i++) {
        if (fx->exact[i]) clReleaseMemObject(fx->exact[i]);
        if (fx->shorter[i]) clReleaseMemObject(fx->shorter[i]);
        if (fx->other[i]) clReleaseMemObject(fx->other[i]);
    }
}

/* The value a change gives an enum or a dimension (bad: this call's value of V_BAD_ENUM). */
static int int_value(const change_t *x, int bad)
{
    return x->value == V_BAD_ENUM ? bad : (int)x->num;
}

/* The value a change gives the ld of matrix i (0 A, 1 B, 2 C). */
static int ld_value(const l3_fixture_t *fx, const change_t *x, int i)
{
    if (x->value == V_ROWS) return fx->rows[i] + (int)x->num;
    return x->value == V_LD_K0 ? fx->ld_k0 : (int)x->num;
}

/* The value a change gives an offset. */
static size_t offset_value(const change_t *x)
{
    return x->value == V_TOP ? SIZE_MAX - (size_t)x->num : (size_t)x->num;
}

/* The buffer a change gives matrix i. */
static cl_mem buffer_value(const l3_fixture_t *fx, const change_t *x, int i)
{
    return x->value == V_SHORT ? fx->shorter[i] : x->value == V_OTHER ? fx->other[i] : NULL;
}

/* One change of a row (bad: the value of V_BAD_ENUM in this call). */
static void apply(call_t *c, const change_t *x, const l3_fixture_t *fx, int bad)
{
    switch (x->field) {
    case F_LAYOUT: c->layout = int_value(x, bad); break;
    case F_SIDE: c->side = int_value(x, bad); break;
    case F_UPLO: c->uplo = int_value(x, bad); break;
    case F_TRANS: c->trans = int_value(x, bad); break;
    case F_DIAG: c->diag = int_value(x, bad); break;
    case F_M: c->m = int_value(x, bad); break;
    case F_N: c->n = int_value(x, bad); break;
    case F_K: c->k = int_value(x, bad); break;
    case F_ALPHA: c->alpha = (double)x->num; break;
    case F_LDA: c->lda = ld_value(fx, x, 0); break;
    case F_LDB: c->ldb = ld_value(fx, x, 1); break;
    case F_LDC: c->ldc = ld_value(fx, x, 2); break;
    case F_OFFA: c->offa = offset_value(x); break;
    case F_OFFB: c->offb = offset_value(x); break;
    case F_OFFC: c->offc = offset_value(x); break;
    case F_QUEUE: c->q = NULL; break;
    case F_A: c->A = buffer_value(fx, x, 0); break;
    case F_B: c->B = buffer_value(fx, x, 1); break;
    case F_C: c->C = buffer_value(fx, x, 2); break;
    case F_END: break;
    }
}

/* Whether a row takes each of BAD_ENUM in turn. */
static int takes_bad_enum(const l3_case_t *x)
{
    for (int j = 0; j < 7 && x->set[j].field != F_END; j++)
        if (x->set[j].value == V_BAD_ENUM) return 1;
    return 0;
}

/* Every invalid argument of one routine (precision, layout, and the routine's side / trans),
 * on buffers exactly as large as the contract requires: the rows of L3_CASES for the routine,
 * then the output once more (a rejected call wrote nothing). */
static void invalid_args(const tc_env_t *env, cl_context ctx2, cl_command_queue q2, int r, int dbl,
                         clhgemm_layout_t layout, int side_or_trans, tc_rng_t *rng)
{
    l3case_t lc = {0};
    lc.r = r;
    lc.dbl = dbl;
    lc.layout = layout;
    lc.side = CLHGEMM_LEFT;
    lc.trans = CLHGEMM_NO_TRANS;
    if (r == SYMM || r == TRMM) lc.side = side_or_trans ? CLHGEMM_RIGHT : CLHGEMM_LEFT;
    else lc.trans = side_or_trans ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    if (r == TRMM) lc.trans = CLHGEMM_TRANS;
    lc.uplo = CLHGEMM_LOWER;
    lc.diag = CLHGEMM_NON_UNIT;
    lc.m = 5;
    lc.n = 4;
    lc.k = 3;
    if (r == SYRK || r == SYR2K) lc.n = 5;
    l3_fixture_t fx;
    if (l3_fixture_make(&fx, env, ctx2, &lc, rng) != 0) {
        fprintf(stderr, "FAIL: buffer setup\n");
        tc_tally(1);
        l3_fixture_free(&fx);
        return;
    }
    const int has_b = r != SYRK, has_c = r != TRMM;
    const size_t outbytes = fx.elems[fx.out] * (dbl ? 8 : 4);
    const tc_watched_t w = {fx.exact[fx.out], env->queue, fx.hout, outbytes};
    const tc_watched_t w2 = {fx.other[fx.out], q2, fx.hout2, outbytes};
    call_t base = {r, dbl, layout, lc.side, lc.uplo, lc.trans, lc.diag, lc.m, lc.n, lc.k,
                   -1.5, 0.5, fx.exact[0], has_b ? fx.exact[1] : NULL,
                   has_c ? fx.exact[2] : NULL, 0, 0, 0, fx.rows[0], has_b ? fx.rows[1] : 1,
                   has_c ? fx.rows[2] : 1, env->queue};
    if (r == SYR2K || r == SYRK) base.m = 0; /* unused */

    for (size_t i = 0; i < sizeof L3_CASES / sizeof L3_CASES[0]; i++) {
        const l3_case_t *x = &L3_CASES[i];
        if (!(x->routines & (1u << r))) continue;
        const int nvalues = takes_bad_enum(x) ? (int)(sizeof BAD_ENUM / sizeof BAD_ENUM[0]) : 1;
        for (int v = 0; v < nvalues; v++) {
            call_t c = base;
            for (int j = 0; j < 7 && x->set[j].field != F_END; j++)
                apply(&c, &x->set[j], &fx, BAD_ENUM[v]);
            if (x->want == CLHGEMM_SUCCESS) {
                expect(&c, CLHGEMM_SUCCESS, NULL, NULL, x->what, x->no_event);
                tc_write(env->queue, w.buf, fx.hout, outbytes); /* it scaled or wrote the output */
            } else {
                expect(&c, x->want, &w, x->watch_2 ? &w2 : NULL, x->what, x->no_event);
            }
        }
    }
    /* after all of that the output is still what it was (a rejected call wrote nothing) */
    tc_tally(tc_unchanged(&w, "after the rejections"));
    l3_fixture_free(&fx);
}

/* FP64_NOT_SUPPORTED on devices without fp64 (none on most machines). */
static void fp64_devices(tc_rng_t *rng)
{
    clhgemm_device_info_t every[16];
    size_t n = 0;
    if (clhgemm_devices_get("", every, 16, &n) != CLHGEMM_SUCCESS) return;
    for (size_t i = 0; i < n && i < 16; i++) {
        if (every[i].has_fp64) continue;
        cl_int err;
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         (cl_context_properties)every[i].platform, 0};
        cl_context ctx = clCreateContext(props, 1, &every[i].device, NULL, NULL, &err);
        if (!ctx) continue;
        cl_command_queue q = clCreateCommandQueue(ctx, every[i].device, 0, &err);
        void *h = NULL;
        cl_mem M = q ? tc_random_buffer(ctx, 64, 8, rng, &h) : NULL;
        if (M) {
            tc_watched_t w = {M, q, h, 64 * 8};
            for (int r = 0; r < NROUTINES; r++) {
                call_t c = {r, 1, CLHGEMM_COL_MAJOR, CLHGEMM_LEFT, CLHGEMM_UPPER, CLHGEMM_NO_TRANS,
                            CLHGEMM_NON_UNIT, 4, 4, 4, 1.0, 1.0, M, M, M, 0, 0, 0, 4, 4, 4, q};
                expect(&c, CLHGEMM_FP64_NOT_SUPPORTED, &w, NULL, every[i].name, 0);
            }
            clReleaseMemObject(M);
        }
        free(h);
        if (q) clReleaseCommandQueue(q);
        clReleaseContext(ctx);
    }
}

/* ---- main -------------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr,
            "usage: test_level3 table s|d symm|syrk|syr2k|trmm|all | blocked | variants | args |"
            " threads\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage();
    const char *mode = argv[1];
    int dbl = -1, routine = -1;
    if (!strcmp(mode, "table")) {
        if (argc < 4 || (strcmp(argv[2], "s") && strcmp(argv[2], "d"))) return usage();
        dbl = argv[2][0] == 'd';
        for (int r = 0; r < NROUTINES; r++)
            if (!strcmp(argv[3], rname[r])) routine = r;
        if (routine < 0 && strcmp(argv[3], "all")) return usage();
    } else if (strcmp(mode, "blocked") && strcmp(mode, "variants") && strcmp(mode, "args") &&
               strcmp(mode, "threads")) {
        return usage();
    }

    tc_env_t env;
    int rc = tc_open(&env);
    if (rc) return rc;
    printf("device: %s (%s); CLHGEMM_SYR2K=%s, CLHGEMM_WORKSPACE_LIMIT=%s\n", env.info.name,
           env.info.platform_name, getenv("CLHGEMM_SYR2K") ? getenv("CLHGEMM_SYR2K") : "(unset)",
           getenv("CLHGEMM_WORKSPACE_LIMIT") ? getenv("CLHGEMM_WORKSPACE_LIMIT") : "(unset)");
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x1E7E13ULL + (uint64_t)(dbl + 1) * 977 + (uint64_t)(routine + 1) * 131);

    if (!strcmp(mode, "table")) {
        if (dbl && !env.has_fp64) {
            printf("SKIP: no fp64 on %s\n", env.info.name);
            tc_close(&env);
            return TC_SKIP;
        }
        for (int r = 0; r < NROUTINES; r++)
            if (routine < 0 || r == routine) for_combos(&env, r, dbl, table_combo, &rng);
    } else if (!strcmp(mode, "blocked") || !strcmp(mode, "variants")) {
        const combo_fn f = !strcmp(mode, "blocked") ? blocked_combo : variants_combo;
        for (int d = 0; d < 1 + env.has_fp64; d++)
            for (int r = 0; r < NROUTINES; r++) for_combos(&env, r, d, f, &rng);
    } else if (!strcmp(mode, "threads")) {
        run_threads(&env);
    } else {
        cl_int err;
        cl_context ctx2 = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
        cl_command_queue q2 = ctx2 ? clCreateCommandQueue(ctx2, env.device, 0, &err) : NULL;
        if (!ctx2 || !q2) {
            fprintf(stderr, "FAIL: second context: %s\n", clhgemm_status_string(err));
            return 1;
        }
        for (int d = 0; d < 1 + env.has_fp64; d++)
            for (int r = 0; r < NROUTINES; r++)
                for (int l = 0; l < 2; l++)
                    for (int v = 0; v < 2; v++)
                        invalid_args(&env, ctx2, q2, r, d, LAYOUTS[l], v, &rng);
        fp64_devices(&rng);
        clReleaseCommandQueue(q2);
        clReleaseContext(ctx2);
    }
    tc_close(&env);
    printf("%d cases, %d failed\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
