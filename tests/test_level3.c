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

#define EV_SENTINEL ((cl_event)(uintptr_t)0x5EB71E10)

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

typedef struct watched_s {
    cl_mem buf;
    cl_command_queue q;
    const void *host;
    size_t bytes;
} watched_t;

static int unchanged(const watched_t *w, const char *tag)
{
    if (!w || !w->buf) return 0;
    clFinish(w->q);
    void *tmp = malloc(w->bytes);
    if (!tmp) return 1;
    int rc = tc_read(w->q, w->buf, tmp, w->bytes);
    if (!rc && memcmp(tmp, w->host, w->bytes) != 0) {
        fprintf(stderr, "FAIL %s: the output changed although the call was rejected\n", tag);
        rc = 1;
    }
    free(tmp);
    return rc;
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

static void expect(const call_t *c, clhgemm_status_t want, const watched_t *w1,
                   const watched_t *w2, const char *what)
{
    char tag[512];
    call_describe(c, what, tag, sizeof tag);
    int rc = 0;
    cl_event ev = EV_SENTINEL;
    clhgemm_status_t st = do_call(c, &ev);
    if (st != want) {
        fprintf(stderr, "FAIL %s: status %s (%d), want %s (%d)\n", tag, clhgemm_status_string(st),
                (int)st, clhgemm_status_string(want), (int)want);
        rc = 1;
    }
    if (st == CLHGEMM_SUCCESS) {
        if (ev == EV_SENTINEL || !ev) {
            fprintf(stderr, "FAIL %s: success without an event\n", tag);
            rc = 1;
        } else {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
        }
    } else {
        if (ev != EV_SENTINEL) {
            fprintf(stderr, "FAIL %s: *event written on a rejected call\n", tag);
            rc = 1;
        }
        rc |= unchanged(w1, tag);
        rc |= unchanged(w2, tag);
    }
    tc_tally(rc);
}

static cl_mem make_buf(cl_context ctx, size_t elems, size_t esz, tc_rng_t *rng, void **host)
{
    if (elems == 0) elems = 1;
    unsigned char *h = malloc(elems * esz);
    if (!h) return NULL;
    for (size_t i = 0; i < elems; i++) {
        double v = tc_rng_uniform(rng);
        if (esz == 8) memcpy(h + i * 8, &v, 8);
        else {
            float f = (float)v;
            memcpy(h + i * 4, &f, 4);
        }
    }
    cl_mem m = tc_buffer_from_host(ctx, h, elems * esz);
    if (host) *host = h;
    else free(h);
    return m;
}

/* Every invalid argument of one routine (precision, layout, and the routine's side / trans),
 * on buffers exactly as large as the contract requires. */
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
    const size_t esz = dbl ? 8 : 4;
    int ar, ac, br, bc, cr, cc, ca, la, cb, lb, ccn, lcn;
    shapes(&lc, &ar, &ac, &br, &bc, &cr, &cc);
    stored(layout, ar, ac, &ca, &la);
    stored(layout, br, bc, &cb, &lb);
    stored(layout, cr, cc, &ccn, &lcn);
    const int has_b = r != SYRK, has_c = r != TRMM;
    const size_t ra = tc_required(0, ca, la, ca), rb = has_b ? tc_required(0, cb, lb, cb) : 1,
                 rc_ = has_c ? tc_required(0, ccn, lcn, ccn) : 1;
    void *hout = NULL, *hout2 = NULL;
    cl_mem A = make_buf(env->ctx, ra, esz, rng, NULL), As = make_buf(env->ctx, ra - 1, esz, rng, NULL);
    cl_mem B = make_buf(env->ctx, rb, esz, rng, r == TRMM ? &hout : NULL),
           Bs = make_buf(env->ctx, rb - (has_b ? 1 : 0), esz, rng, NULL);
    cl_mem C = make_buf(env->ctx, rc_, esz, rng, r == TRMM ? NULL : &hout),
           Cs = make_buf(env->ctx, rc_ - (has_c ? 1 : 0), esz, rng, NULL);
    cl_mem A2 = make_buf(ctx2, ra, esz, rng, NULL), B2 = make_buf(ctx2, rb, esz, rng,
                                                                   r == TRMM ? &hout2 : NULL),
           C2 = make_buf(ctx2, rc_, esz, rng, r == TRMM ? NULL : &hout2);
    if (!A || !As || !B || !Bs || !C || !Cs || !A2 || !B2 || !C2 || !hout || !hout2) {
        fprintf(stderr, "FAIL: buffer setup\n");
        tc_tally(1);
        goto out;
    }
    const size_t outbytes = (r == TRMM ? rb : rc_) * esz;
    const watched_t w = {r == TRMM ? B : C, env->queue, hout, outbytes};
    const watched_t w2 = {r == TRMM ? B2 : C2, q2, hout2, outbytes};
    call_t base = {r, dbl, layout, lc.side, lc.uplo, lc.trans, lc.diag, lc.m, lc.n, lc.k,
                   -1.5, 0.5, A, has_b ? B : NULL, has_c ? C : NULL, 0, 0, 0, ca,
                   has_b ? cb : 1, has_c ? ccn : 1, env->queue};
    if (r == SYR2K || r == SYRK) base.m = 0; /* unused */
    call_t c;

    /* The valid call on exactly sized buffers succeeds; restore the output afterwards. */
    expect(&base, CLHGEMM_SUCCESS, NULL, NULL, "valid, exact buffer sizes");
    tc_write(env->queue, w.buf, hout, outbytes);

    static const int bad_enum[] = {0, 100, 103, 110, 114, 120, 123, 130, 133, 140, 143};
    for (size_t i = 0; i < sizeof bad_enum / sizeof bad_enum[0]; i++) {
        const int v = bad_enum[i];
        c = base;
        c.layout = v;
        expect(&c, CLHGEMM_INVALID_LAYOUT, &w, NULL, "bad layout");
        if (r == SYMM || r == TRMM) {
            c = base;
            c.side = v;
            expect(&c, CLHGEMM_INVALID_SIDE, &w, NULL, "bad side");
        }
        c = base;
        c.uplo = v;
        expect(&c, CLHGEMM_INVALID_UPLO, &w, NULL, "bad uplo");
        if (r != SYMM) {
            c = base;
            c.trans = v;
            expect(&c, r == TRMM ? CLHGEMM_INVALID_TRANS_A : CLHGEMM_INVALID_TRANS, &w, NULL,
                   "bad trans");
        }
        if (r == TRMM) {
            c = base;
            c.diag = v;
            expect(&c, CLHGEMM_INVALID_DIAG, &w, NULL, "bad diag");
        }
    }
    /* the enum values of the other arguments are no valid value here either */
    c = base;
    c.uplo = CLHGEMM_NO_TRANS;
    expect(&c, CLHGEMM_INVALID_UPLO, &w, NULL, "uplo = CLHGEMM_NO_TRANS");
    if (r == SYMM || r == TRMM) {
        c = base;
        c.side = CLHGEMM_UPPER;
        expect(&c, CLHGEMM_INVALID_SIDE, &w, NULL, "side = CLHGEMM_UPPER");
    }
    if (r == TRMM) {
        c = base;
        c.diag = CLHGEMM_LEFT;
        expect(&c, CLHGEMM_INVALID_DIAG, &w, NULL, "diag = CLHGEMM_LEFT");
    }
    if (r == SYMM || r == TRMM) {
        c = base;
        c.m = -1;
        expect(&c, CLHGEMM_INVALID_M, &w, NULL, "m = -1");
    }
    c = base;
    c.n = -1;
    expect(&c, CLHGEMM_INVALID_N, &w, NULL, "n = -1");
    if (r == SYRK || r == SYR2K) {
        c = base;
        c.k = -1;
        expect(&c, CLHGEMM_INVALID_K, &w, NULL, "k = -1");
        c = base;
        c.k = -1;
        c.alpha = 0.0;
        expect(&c, CLHGEMM_INVALID_K, &w, NULL, "k = -1 with alpha = 0");
    }
    c = base;
    c.lda = ca - 1;
    expect(&c, CLHGEMM_INVALID_LDA, &w, NULL, "lda = rows as stored - 1");
    c = base;
    c.lda = 0;
    expect(&c, CLHGEMM_INVALID_LDA, &w, NULL, "lda = 0");
    if (has_b) {
        c = base;
        c.ldb = cb - 1;
        expect(&c, CLHGEMM_INVALID_LDB, &w, NULL, "ldb = rows as stored - 1");
        c = base;
        c.ldb = -1;
        expect(&c, CLHGEMM_INVALID_LDB, &w, NULL, "ldb = -1");
    }
    if (has_c) {
        c = base;
        c.ldc = ccn - 1;
        expect(&c, CLHGEMM_INVALID_LDC, &w, NULL, "ldc = rows as stored - 1");
        c = base;
        c.ldc = 0;
        expect(&c, CLHGEMM_INVALID_LDC, &w, NULL, "ldc = 0");
    }
    /* ld >= 1 even for an empty matrix */
    c = base;
    c.n = 0;
    c.m = 0;
    c.lda = 0;
    expect(&c, CLHGEMM_INVALID_LDA, &w, NULL, "empty, lda = 0");

    /* precedence: the earlier argument in BLAS order wins */
    c = base;
    c.layout = 0;
    c.uplo = 0;
    expect(&c, CLHGEMM_INVALID_LAYOUT, &w, NULL, "precedence: layout before uplo");
    if (r == SYMM || r == TRMM) {
        c = base;
        c.side = 0;
        c.uplo = 0;
        expect(&c, CLHGEMM_INVALID_SIDE, &w, NULL, "precedence: side before uplo");
    }
    if (r != SYMM) {
        c = base;
        c.uplo = 0;
        c.trans = 0;
        expect(&c, CLHGEMM_INVALID_UPLO, &w, NULL, "precedence: uplo before trans");
        c = base;
        c.trans = 0;
        c.n = -1;
        expect(&c, r == TRMM ? CLHGEMM_INVALID_TRANS_A : CLHGEMM_INVALID_TRANS, &w, NULL,
               "precedence: trans before n");
    }
    if (r == TRMM) {
        c = base;
        c.trans = 0;
        c.diag = 0;
        expect(&c, CLHGEMM_INVALID_TRANS_A, &w, NULL, "precedence: transA before diag");
        c = base;
        c.diag = 0;
        c.m = -1;
        expect(&c, CLHGEMM_INVALID_DIAG, &w, NULL, "precedence: diag before m");
    } else {
        c = base;
        c.uplo = 0;
        c.n = -1;
        expect(&c, CLHGEMM_INVALID_UPLO, &w, NULL, "precedence: uplo before n");
    }
    if (r == SYMM || r == TRMM) {
        c = base;
        c.m = -1;
        c.n = -1;
        expect(&c, CLHGEMM_INVALID_M, &w, NULL, "precedence: m before n");
    } else {
        c = base;
        c.n = -1;
        c.k = -1;
        expect(&c, CLHGEMM_INVALID_N, &w, NULL, "precedence: n before k");
        c = base;
        c.k = -1;
        c.lda = 0;
        expect(&c, CLHGEMM_INVALID_K, &w, NULL, "precedence: k before lda");
    }
    c = base;
    c.n = -1;
    c.lda = 0;
    expect(&c, CLHGEMM_INVALID_N, &w, NULL, "precedence: n before lda");
    if (has_b) {
        c = base;
        c.lda = 0;
        c.ldb = 0;
        expect(&c, CLHGEMM_INVALID_LDA, &w, NULL, "precedence: lda before ldb");
    }
    if (has_c) {
        c = base;
        c.lda = 0;
        c.ldc = 0;
        expect(&c, CLHGEMM_INVALID_LDA, &w, NULL, "precedence: lda before ldc");
        if (has_b) {
            c = base;
            c.ldb = 0;
            c.ldc = 0;
            expect(&c, CLHGEMM_INVALID_LDB, &w, NULL, "precedence: ldb before ldc");
        }
    }
    c = base;
    c.lda = 0;
    c.q = NULL;
    expect(&c, CLHGEMM_INVALID_LDA, &w, NULL, "precedence: lda before queue");

    /* queue and buffers */
    c = base;
    c.q = NULL;
    expect(&c, CLHGEMM_INVALID_QUEUE, &w, NULL, "queue NULL");
    c = base;
    c.q = NULL;
    c.A = NULL;
    expect(&c, CLHGEMM_INVALID_QUEUE, &w, NULL, "precedence: queue before A");
    c = base;
    c.A = NULL;
    expect(&c, CLHGEMM_NULL_BUFFER_A, &w, NULL, "A NULL");
    c = base;
    c.A = As;
    expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_A, &w, NULL, "A one element short");
    c = base;
    c.offa = 1;
    expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_A, &w, NULL, "A exact, offA = 1");
    c = base;
    c.offa = (size_t)1 << 40;
    expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_A, &w, NULL, "offA = 2^40");
    c = base;
    c.offa = SIZE_MAX - 2;
    expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_A, &w, NULL, "offA near SIZE_MAX");
    c = base;
    c.lda = INT_MAX;
    expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_A, &w, NULL, "lda = INT_MAX");
    c = base;
    c.A = A2;
    expect(&c, CLHGEMM_CONTEXT_MISMATCH, &w, NULL, "A from another context");
    c = base;
    c.A = NULL;
    c.B = NULL;
    expect(&c, CLHGEMM_NULL_BUFFER_A, &w, NULL, "precedence: A before B");
    if (has_b) {
        c = base;
        c.B = NULL;
        expect(&c, CLHGEMM_NULL_BUFFER_B, &w, NULL, "B NULL");
        c = base;
        c.B = Bs;
        expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_B, &w, NULL, "B one element short");
        c = base;
        c.offb = 1;
        expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_B, &w, NULL, "B exact, offB = 1");
        c = base;
        c.ldb = INT_MAX;
        expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_B, &w, NULL, "ldb = INT_MAX");
        c = base;
        c.B = B2;
        expect(&c, CLHGEMM_CONTEXT_MISMATCH, &w, r == TRMM ? &w2 : NULL, "B from another context");
    }
    if (has_c) {
        c = base;
        c.C = NULL;
        expect(&c, CLHGEMM_NULL_BUFFER_C, &w, NULL, "C NULL");
        c = base;
        c.C = Cs;
        expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_C, &w, NULL, "C one element short");
        c = base;
        c.offc = 1;
        expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_C, &w, NULL, "C exact, offC = 1");
        c = base;
        c.ldc = INT_MAX;
        expect(&c, CLHGEMM_INSUFFICIENT_BUFFER_C, &w, NULL, "ldc = INT_MAX");
        c = base;
        c.C = C2;
        expect(&c, CLHGEMM_CONTEXT_MISMATCH, &w, &w2, "C from another context");
        c = base;
        c.C = NULL;
        c.alpha = 0.0;
        expect(&c, CLHGEMM_NULL_BUFFER_C, &w, NULL, "C NULL with alpha = 0");
    }
    /* alpha == 0 reads neither A nor (SYMM, SYR2K) B: NULL is fine there */
    c = base;
    c.alpha = 0.0;
    c.A = NULL;
    if (r == SYMM || r == SYR2K) c.B = NULL;
    expect(&c, CLHGEMM_SUCCESS, NULL, NULL, "alpha = 0 with A (and B) NULL");
    tc_write(env->queue, w.buf, hout, outbytes); /* it scaled (TRMM: zeroed) the output */
    if (r == TRMM) {
        c = base;
        c.alpha = 0.0;
        c.B = NULL;
        expect(&c, CLHGEMM_NULL_BUFFER_B, &w, NULL, "TRMM alpha = 0, B NULL");
    }
    if (r == SYRK || r == SYR2K) {
        c = base;
        c.k = 0;
        c.A = NULL;
        c.B = NULL;
        c.lda = lc.trans == CLHGEMM_NO_TRANS ? (layout == CLHGEMM_COL_MAJOR ? lc.n : 1)
                                              : (layout == CLHGEMM_COL_MAJOR ? 1 : lc.n);
        c.ldb = c.lda;
        expect(&c, CLHGEMM_SUCCESS, NULL, NULL, "k = 0 with A, B NULL");
        tc_write(env->queue, w.buf, hout, outbytes);
    }
    /* empty: nothing touched, no buffer needed */
    c = base;
    c.n = 0;
    if (r == SYMM || r == TRMM) c.A = c.B = c.C = NULL;
    else c.A = c.B = c.C = NULL;
    c.lda = c.ldb = c.ldc = 5;
    expect(&c, CLHGEMM_SUCCESS, NULL, NULL, "n = 0 with every buffer NULL");
    /* a rejected call with event == NULL still gives the status */
    {
        c = base;
        c.n = -1;
        clhgemm_status_t st = do_call(&c, NULL);
        tc_tally(st != CLHGEMM_INVALID_N);
        if (st != CLHGEMM_INVALID_N)
            fprintf(stderr, "FAIL %s n=-1 with event NULL: %s\n", rname[r], clhgemm_status_string(st));
    }
    /* after all of that the output is still what it was (a rejected call wrote nothing) */
    tc_tally(unchanged(&w, "after the rejections"));
out:
    free(hout);
    free(hout2);
    cl_mem all[] = {A, As, B, Bs, C, Cs, A2, B2, C2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) clReleaseMemObject(all[i]);
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
        cl_mem M = q ? make_buf(ctx, 64, 8, rng, &h) : NULL;
        if (M) {
            watched_t w = {M, q, h, 64 * 8};
            for (int r = 0; r < NROUTINES; r++) {
                call_t c = {r, 1, CLHGEMM_COL_MAJOR, CLHGEMM_LEFT, CLHGEMM_UPPER, CLHGEMM_NO_TRANS,
                            CLHGEMM_NON_UNIT, 4, 4, 4, 1.0, 1.0, M, M, M, 0, 0, 0, 4, 4, 4, q};
                expect(&c, CLHGEMM_FP64_NOT_SUPPORTED, &w, NULL, every[i].name);
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
