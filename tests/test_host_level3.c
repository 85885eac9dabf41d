/*
 * test_host_level3.c -- SYMM, SYRK, SYR2K and TRMM on host memory (clhgemm_{s,d}{symm,syrk,
 * syr2k,trmm} on a handle: the pipeline of src/host/ with structured staging) against OpenBLAS.
 *
 *   test_host_level3 table s|d   every side x uplo x trans x diag x layout combination of every
 *                                routine on sizes that are multiples of no tile, a rotation of
 *                                (ld, offset) variants and (alpha, beta) pairs, the quick paths
 *                                (alpha = 0 with beta 0 / 1 / other, k = 0), meant to run with
 *                                a small forced tile (CLHGEMM_TILE, CTest sets it) so that every
 *                                routine runs over many tiles, k slices and diagonal blocks;
 *                                checks that SYRK/SYR2K computed only the tiles touching the
 *                                triangle (clhgemm_last_call_info)
 *   test_host_level3 multi       one case per combination and precision on larger shapes, meant
 *                                to run on several devices (POCL_DEVICES) with forced tiles:
 *                                tiles taken by several drivers and stolen, TRMM in place
 *   test_host_level3 args        invalid arguments: each its own status (the device versions'
 *                                in the same order, the handle first), the output bit-identical;
 *                                NULL operands where BLAS does not read them
 *   test_host_level3 fault       CLHGEMM_FAULT_ALLOC=N in child processes: a failed allocation
 *                                gives CL_MEM_OBJECT_ALLOCATION_FAILURE with the output
 *                                untouched (one device), the same handle then succeeds
 *
 * Poisoning as in test_level3: the triangle of A that must not be read (and a unit diagonal) is
 * NaN, the gaps of A and B are NaN, C is NaN when beta == 0, and everything of the output
 * buffer that must not change (outside the matrix, the other triangle of a SYRK/SYR2K C) holds
 * a distinct signalling-NaN sentinel compared bit for bit. The reference is OpenBLAS in double
 * with the unreferenced NaNs replaced by zeros; the tolerance scales with the inner dimension.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

enum { SYMM = TC_L3_SYMM, SYRK = TC_L3_SYRK, SYR2K = TC_L3_SYR2K, TRMM = TC_L3_TRMM, NROUTINES };
static const char *const rname[NROUTINES] = {"symm", "syrk", "syr2k", "trmm"};

typedef tc_l3case_t l3case_t; /* tests/common.h */

/* ---- geometry ---------------------------------------------------------------------------- */

static void shapes(const l3case_t *c, int *ar, int *ac, int *br, int *bc, int *cr, int *cc)
{
    *br = *bc = *cr = *cc = 0;
    if (c->r == SYMM || c->r == TRMM) {
        const int ka = c->side == CLHGEMM_LEFT ? c->m : c->n;
        *ar = *ac = ka;
        *br = c->m;
        *bc = c->n;
        if (c->r == SYMM) *cr = c->m, *cc = c->n;
    } else {
        const int t = c->trans != CLHGEMM_NO_TRANS;
        *ar = t ? c->k : c->n;
        *ac = t ? c->n : c->k;
        if (c->r == SYR2K) *br = *ar, *bc = *ac;
        *cr = *cc = c->n;
    }
}

static void stored(clhgemm_layout_t l, int rows, int cols, int *contig, int *lines)
{
    tc_stored(l, CLHGEMM_NO_TRANS, rows, cols, contig, lines);
}

static size_t idx(clhgemm_layout_t l, int i, int j, int ld) { return tc_index_c(l, i, j, ld); }

static int inner_k(const l3case_t *c)
{
    if (c->r == SYMM || c->r == TRMM) return c->side == CLHGEMM_LEFT ? c->m : c->n;
    return c->r == SYRK ? c->k : 2 * c->k;
}

static void store(int dbl, void *p, size_t i, double v)
{
    if (dbl) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
}

static int in_tri(clhgemm_uplo_t uplo, int i, int j) { return uplo == CLHGEMM_UPPER ? i <= j : i >= j; }

static int a_referenced(const l3case_t *c, int i, int j)
{
    if (!in_tri(c->uplo, i, j)) return 0;
    return !(c->r == TRMM && c->diag == CLHGEMM_UNIT && i == j);
}

/* ---- one problem ------------------------------------------------------------------------- */

typedef struct prob_s {
    l3case_t c;
    int lda, ldb, ldc;
    size_t esz, na, nb, nc;
    void *a0, *b0, *c0; /* initial contents */
    void *b, *cbuf;     /* what the call gets (B is TRMM's output) */
} prob_t;

static void describe(const prob_t *p, char *buf, size_t len)
{
    const l3case_t *c = &p->c;
    snprintf(buf, len,
             "%c%s %s side=%c uplo=%c trans=%s diag=%c m=%d n=%d k=%d alpha=%g beta=%g lda=%d "
             "ldb=%d ldc=%d off=%zu/%zu/%zu",
             c->dbl ? 'd' : 's', rname[c->r], tc_layout_name(c->layout),
             c->side == CLHGEMM_LEFT ? 'L' : 'R', c->uplo == CLHGEMM_UPPER ? 'U' : 'L',
             tc_trans_name(c->trans), c->diag == CLHGEMM_UNIT ? 'U' : 'N', c->m, c->n, c->k,
             c->alpha, c->beta, p->lda, p->ldb, p->ldc, c->offa, c->offb, c->offc);
}

static void prob_free(prob_t *p)
{
    free(p->a0);
    free(p->b0);
    free(p->c0);
    free(p->b);
    free(p->cbuf);
    memset(p, 0, sizeof *p);
}

static int prob_init(prob_t *p, const l3case_t *c, tc_rng_t *rng)
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
    p->b = malloc(p->nb * p->esz);
    p->cbuf = malloc(p->nc * p->esz);
    if (!p->a0 || !p->b0 || !p->c0 || !p->b || !p->cbuf) {
        prob_free(p);
        return 1;
    }
    const int structured = c->r == SYMM || c->r == TRMM;
    for (size_t i = 0; i < p->na; i++) store(dbl, p->a0, i, NAN);
    for (int j = 0; j < ac; j++)
        for (int i = 0; i < ar; i++)
            if (!structured || a_referenced(c, i, j))
                store(dbl, p->a0, c->offa + idx(c->layout, i, j, p->lda), tc_rng_uniform(rng));
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
    memcpy(p->b, p->b0, p->nb * p->esz);
    memcpy(p->cbuf, p->c0, p->nc * p->esz);
    return 0;
}

static clhgemm_status_t prob_call(clhgemm_handle_t h, const prob_t *p)
{
    const l3case_t *c = &p->c;
    const char *A = c->null_a ? NULL : (const char *)p->a0 + c->offa * p->esz;
    char *B = c->null_b ? NULL : (char *)p->b + c->offb * p->esz;
    char *C = c->null_c ? NULL : (char *)p->cbuf + c->offc * p->esz;
    const float fa = (float)c->alpha, fb = (float)c->beta;
    switch (c->r) {
    case SYMM:
        return c->dbl ? clhgemm_dsymm(h, c->layout, c->side, c->uplo, c->m, c->n, c->alpha,
                                      (const double *)A, p->lda, (const double *)B, p->ldb,
                                      c->beta, (double *)C, p->ldc)
                      : clhgemm_ssymm(h, c->layout, c->side, c->uplo, c->m, c->n, fa,
                                      (const float *)A, p->lda, (const float *)B, p->ldb, fb,
                                      (float *)C, p->ldc);
    case SYRK:
        return c->dbl ? clhgemm_dsyrk(h, c->layout, c->uplo, c->trans, c->n, c->k, c->alpha,
                                      (const double *)A, p->lda, c->beta, (double *)C, p->ldc)
                      : clhgemm_ssyrk(h, c->layout, c->uplo, c->trans, c->n, c->k, fa,
                                      (const float *)A, p->lda, fb, (float *)C, p->ldc);
    case SYR2K:
        return c->dbl ? clhgemm_dsyr2k(h, c->layout, c->uplo, c->trans, c->n, c->k, c->alpha,
                                       (const double *)A, p->lda, (const double *)B, p->ldb,
                                       c->beta, (double *)C, p->ldc)
                      : clhgemm_ssyr2k(h, c->layout, c->uplo, c->trans, c->n, c->k, fa,
                                       (const float *)A, p->lda, (const float *)B, p->ldb, fb,
                                       (float *)C, p->ldc);
    default:
        return c->dbl ? clhgemm_dtrmm(h, c->layout, c->side, c->uplo, c->trans, c->diag, c->m,
                                      c->n, c->alpha, (const double *)A, p->lda, (double *)B,
                                      p->ldb)
                      : clhgemm_strmm(h, c->layout, c->side, c->uplo, c->trans, c->diag, c->m,
                                      c->n, fa, (const float *)A, p->lda, (float *)B, p->ldb);
    }
}

/* want/bound over the whole output buffer := alpha*op + beta*C0 and |alpha||op| + |beta||C0|
 * (OpenBLAS in double). */
static void reference(const prob_t *p, double *want, double *bound)
{
    tc_l3_reference(&p->c, p->lda, p->ldb, p->ldc, p->na, p->nb, p->nc, p->a0, p->b0, p->c0,
                    want, bound);
}

/* The output against the reference (and the bits that must not change), the inputs unchanged. */
static int prob_check(const prob_t *p, const char *tag)
{
    const l3case_t *c = &p->c;
    const int trmm = c->r == TRMM;
    const size_t nout = trmm ? p->nb : p->nc;
    double *want = malloc(nout * 8), *bound = malloc(nout * 8);
    if (!want || !bound) abort();
    int rc = 0;
    if (!trmm && memcmp(p->b, p->b0, p->nb * p->esz)) {
        fprintf(stderr, "FAIL %s: input B was modified\n", tag);
        rc = 1;
    }
    if (trmm && memcmp(p->cbuf, p->c0, p->nc * p->esz)) {
        fprintf(stderr, "FAIL %s: C was modified by TRMM\n", tag);
        rc = 1;
    }
    reference(p, want, bound);
    if (c->r == SYMM)
        rc |= tc_check_c(c->dbl, c->layout, c->m, c->n, inner_k(c), p->cbuf, p->c0, p->nc, c->offc,
                         p->ldc, want, bound, tag);
    else if (trmm)
        rc |= tc_check_c(c->dbl, c->layout, c->m, c->n, inner_k(c), p->b, p->b0, p->nb, c->offb,
                         p->ldb, want, bound, tag);
    else
        rc |= tc_check_c_tri(c->dbl, c->layout, c->uplo, c->n, inner_k(c), p->cbuf, p->c0, p->nc,
                             c->offc, p->ldc, want, bound, tag);
    free(want);
    free(bound);
    return rc;
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* Calls routed to OpenBLAS (CLHGEMM_ROUTE=cpu or auto) have no tiles to check. */
static int routed_to_cpu(void)
{
    const char *r = getenv("CLHGEMM_ROUTE");
    return r && strcmp(r, "device") != 0;
}

/* SYRK/SYR2K compute only the tiles that touch the triangle: fewer than the whole grid once the
 * grid has more than one tile each way. */
static int check_tiles(clhgemm_handle_t h, const l3case_t *c, const char *tag)
{
    if (c->r != SYRK && c->r != SYR2K) return 0;
    if (routed_to_cpu()) return 0;
    if (c->n == 0 || c->k == 0 || c->alpha == 0.0) return 0;
    clhgemm_call_info_t inf;
    if (clhgemm_last_call_info(h, &inf) != CLHGEMM_SUCCESS || inf.tile_m < 1 || inf.tile_n < 1) {
        fprintf(stderr, "FAIL %s: no call info\n", tag);
        return 1;
    }
    const size_t mt = ceil_div((size_t)c->n, (size_t)inf.tile_m), nt = ceil_div((size_t)c->n, (size_t)inf.tile_n);
    if (mt > 1 && nt > 1 && inf.tiles >= (long long)(mt * nt)) {
        fprintf(stderr, "FAIL %s: %lld tiles of a %zux%zu grid: the tiles off the triangle ran\n",
                tag, inf.tiles, mt, nt);
        return 1;
    }
    return 0;
}

/* TRMM stages only the non-zero part of the triangular operand: on side left (in the column-
 * major view) A is loaded once per device, so with one device and several k slices the bytes
 * sent stay well below all of A plus B. */
static int check_trmm_bytes(clhgemm_handle_t h, const l3case_t *c, const char *tag)
{
    if (c->r != TRMM || c->alpha == 0.0 || c->m == 0 || c->n == 0 || routed_to_cpu()) return 0;
    const int left = (c->layout == CLHGEMM_COL_MAJOR) == (c->side == CLHGEMM_LEFT);
    clhgemm_call_info_t inf;
    if (!left || clhgemm_last_call_info(h, &inf) != CLHGEMM_SUCCESS || inf.devices_used != 1 ||
        inf.a_mode == 0)
        return 0;
    const double ka = c->side == CLHGEMM_LEFT ? c->m : c->n, es = c->dbl ? 8 : 4;
    if (ka < 4.0 * inf.tile_k) return 0;
    const double full = es * (ka * ka + (double)c->m * c->n);
    if (inf.bytes_to_device > es * (0.75 * ka * ka + (double)c->m * c->n)) {
        fprintf(stderr, "FAIL %s: %.0f bytes to the device, all of A and B would be %.0f: the zeros "
                        "of the triangle were sent\n", tag, inf.bytes_to_device, full);
        return 1;
    }
    return 0;
}

static int g_multi_tile_calls;

static int run_case(clhgemm_handle_t h, const l3case_t *c, tc_rng_t *rng)
{
    prob_t p;
    if (prob_init(&p, c, rng)) {
        fprintf(stderr, "FAIL: problem setup\n");
        return 1;
    }
    char tag[400];
    describe(&p, tag, sizeof tag);
    int rc = 0;
    const clhgemm_status_t st = prob_call(h, &p);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: status %s (%d)\n", tag, clhgemm_status_string(st), (int)st);
        rc = 1;
    } else {
        rc |= prob_check(&p, tag);
        rc |= check_tiles(h, c, tag);
        rc |= check_trmm_bytes(h, c, tag);
        clhgemm_call_info_t inf;
        if (clhgemm_last_call_info(h, &inf) == CLHGEMM_SUCCESS && inf.tiles > 1) g_multi_tile_calls++;
    }
    prob_free(&p);
    return rc;
}

/* ---- combinations ------------------------------------------------------------------------ */

static const clhgemm_layout_t LAYOUTS[2] = {CLHGEMM_COL_MAJOR, CLHGEMM_ROW_MAJOR};
static const clhgemm_side_t SIDES[2] = {CLHGEMM_LEFT, CLHGEMM_RIGHT};
static const clhgemm_uplo_t UPLOS[2] = {CLHGEMM_UPPER, CLHGEMM_LOWER};
static const clhgemm_transpose_t TRANS[3] = {CLHGEMM_NO_TRANS, CLHGEMM_TRANS, CLHGEMM_CONJ_TRANS};
static const clhgemm_diag_t DIAGS[2] = {CLHGEMM_NON_UNIT, CLHGEMM_UNIT};

typedef void (*combo_fn)(clhgemm_handle_t, l3case_t *, tc_rng_t *, int combo);

static void for_combos(clhgemm_handle_t h, int r, int dbl, combo_fn f, tc_rng_t *rng)
{
    int combo = 0;
    for (int l = 0; l < 2; l++)
        for (int s = 0; s < 2; s++) {
            if ((r == SYRK || r == SYR2K) && s) continue;
            for (int u = 0; u < 2; u++)
                for (int t = 0; t < 3; t++) {
                    if (r == SYMM && t) continue;
                    if (t == 2 && (l || s || u)) continue; /* ConjTrans (= Trans): once */
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
                        f(h, &c, rng, combo++);
                    }
                }
        }
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

static void set_size(l3case_t *c, int a, int b)
{
    if (c->r == SYMM || c->r == TRMM) c->m = a, c->n = b;
    else c->n = a, c->k = b;
}

static void table_combo(clhgemm_handle_t h, l3case_t *base, tc_rng_t *rng, int combo)
{
    /* SYMM/TRMM: m x n; SYRK/SYR2K: n x k */
    static const int sizes[][2] = {{1, 1}, {7, 33}, {33, 7}, {101, 77}, {77, 130}};
    int rot = combo * 2;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++, rot++) {
        l3case_t c = *base;
        set_size(&c, sizes[s][0], sizes[s][1]);
        c.alpha = PAIRS[rot % NPAIRS][0];
        c.beta = PAIRS[rot % NPAIRS][1];
        set_variant(&c, (rot / NPAIRS + (int)s) % 4);
        tc_tally(run_case(h, &c, rng));
    }
    /* quick paths: alpha = 0 with beta 0, 1, other; k = 0 for SYRK/SYR2K */
    static const double qb[3] = {0.0, 1.0, -1.5};
    for (int i = 0; i < 3; i++) {
        l3case_t c = *base;
        set_size(&c, 7, 33);
        if (c.r == SYRK || c.r == SYR2K) c.n = 33, c.k = 12;
        c.alpha = 0.0;
        c.beta = qb[i];
        set_variant(&c, i + combo);
        tc_tally(run_case(h, &c, rng));
        if (c.r == SYRK || c.r == SYR2K) {
            c.k = 0;
            c.alpha = -1.5;
            tc_tally(run_case(h, &c, rng));
        }
    }
}

static void multi_combo(clhgemm_handle_t h, l3case_t *base, tc_rng_t *rng, int combo)
{
    static const int sizes[][2] = {{190, 150}, {150, 230}};
    l3case_t c = *base;
    set_size(&c, sizes[combo % 2][0], sizes[combo % 2][1]);
    c.alpha = PAIRS[combo % NPAIRS][0];
    c.beta = PAIRS[(combo / 2) % NPAIRS][1];
    set_variant(&c, combo % 4);
    tc_tally(run_case(h, &c, rng));
}

static int create(clhgemm_handle_t *h)
{
    clhgemm_status_t st = clhgemm_create(h, NULL);
    if (st == CLHGEMM_NO_DEVICE) return TC_SKIP;
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL: clhgemm_create -> %s\n", clhgemm_status_string(st));
        return 1;
    }
    return 0;
}

static int has_fp64(void)
{
    clhgemm_device_info_t info[16];
    size_t n = 0;
    if (clhgemm_devices_get(NULL, info, 16, &n) != CLHGEMM_SUCCESS || n == 0) return 0;
    for (size_t i = 0; i < n && i < 16; i++)
        if (!info[i].has_fp64) return 0;
    return 1;
}

/* ---- invalid arguments ------------------------------------------------------------------- */

typedef struct acall_s {
    int r, dbl, layout, side, uplo, trans, diag, m, n, k, lda, ldb, ldc;
    double alpha, beta;
    int null_a, null_b, null_c, null_h;
} acall_t;

/* Calls with the arguments of a; the output buffer (C, TRMM's B) must stay bit-identical when
 * the call is rejected. */
static void expect(clhgemm_handle_t h, const prob_t *p, const acall_t *a, clhgemm_status_t want,
                   const char *what)
{
    const size_t es = p->esz;
    const char *A = a->null_a ? NULL : (const char *)p->a0 + p->c.offa * es;
    char *B = a->null_b ? NULL : (char *)p->b + p->c.offb * es;
    char *C = a->null_c ? NULL : (char *)p->cbuf + p->c.offc * es;
    clhgemm_handle_t hh = a->null_h ? NULL : h;
    clhgemm_status_t st;
    const int l = a->layout, s = a->side, u = a->uplo, t = a->trans, d = a->diag;
    const float fa = (float)a->alpha, fb = (float)a->beta;
    memcpy(p->b, p->b0, p->nb * es);
    memcpy(p->cbuf, p->c0, p->nc * es);
    switch (a->r) {
    case SYMM:
        st = a->dbl ? clhgemm_dsymm(hh, l, s, u, a->m, a->n, a->alpha, (const double *)A, a->lda,
                                    (const double *)B, a->ldb, a->beta, (double *)C, a->ldc)
                    : clhgemm_ssymm(hh, l, s, u, a->m, a->n, fa, (const float *)A, a->lda,
                                    (const float *)B, a->ldb, fb, (float *)C, a->ldc);
        break;
    case SYRK:
        st = a->dbl ? clhgemm_dsyrk(hh, l, u, t, a->n, a->k, a->alpha, (const double *)A, a->lda,
                                    a->beta, (double *)C, a->ldc)
                    : clhgemm_ssyrk(hh, l, u, t, a->n, a->k, fa, (const float *)A, a->lda, fb,
                                    (float *)C, a->ldc);
        break;
    case SYR2K:
        st = a->dbl ? clhgemm_dsyr2k(hh, l, u, t, a->n, a->k, a->alpha, (const double *)A, a->lda,
                                     (const double *)B, a->ldb, a->beta, (double *)C, a->ldc)
                    : clhgemm_ssyr2k(hh, l, u, t, a->n, a->k, fa, (const float *)A, a->lda,
                                     (const float *)B, a->ldb, fb, (float *)C, a->ldc);
        break;
    default:
        st = a->dbl ? clhgemm_dtrmm(hh, l, s, u, t, d, a->m, a->n, a->alpha, (const double *)A,
                                    a->lda, (double *)B, a->ldb)
                    : clhgemm_strmm(hh, l, s, u, t, d, a->m, a->n, fa, (const float *)A, a->lda,
                                    (float *)B, a->ldb);
        break;
    }
    int rc = 0;
    if (st != want) {
        fprintf(stderr, "FAIL %c%s args [%s]: status %s (%d), want %s (%d)\n", a->dbl ? 'd' : 's',
                rname[a->r], what, clhgemm_status_string(st), (int)st, clhgemm_status_string(want),
                (int)want);
        rc = 1;
    }
    if (st != CLHGEMM_SUCCESS &&
        (memcmp(p->b, p->b0, p->nb * es) || memcmp(p->cbuf, p->c0, p->nc * es))) {
        fprintf(stderr, "FAIL %c%s args [%s]: a rejected call wrote its output\n",
                a->dbl ? 'd' : 's', rname[a->r], what);
        rc = 1;
    }
    tc_tally(rc);
}

#define EXPECT_STATUS(mod, want, what)                                                          \
    do {                                                                                        \
        acall_t a_ = base;                                                                      \
        acall_t *a = &a_;                                                                       \
        mod;                                                                                    \
        expect(h, &p, a, want, what);                                                           \
    } while (0)

static void invalid_args(clhgemm_handle_t h, int r, int dbl, clhgemm_layout_t layout, int v,
                         tc_rng_t *rng)
{
    l3case_t lc = {0};
    lc.r = r;
    lc.dbl = dbl;
    lc.layout = layout;
    lc.side = (r == SYMM || r == TRMM) && v ? CLHGEMM_RIGHT : CLHGEMM_LEFT;
    lc.trans = (r == SYRK || r == SYR2K) && v ? CLHGEMM_TRANS : r == TRMM ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    lc.uplo = CLHGEMM_LOWER;
    lc.diag = CLHGEMM_NON_UNIT;
    lc.m = 5;
    lc.n = r == SYRK || r == SYR2K ? 5 : 4;
    lc.k = 3;
    lc.alpha = -1.5;
    lc.beta = 0.5;
    prob_t p;
    if (prob_init(&p, &lc, rng)) {
        tc_tally(1);
        return;
    }
    int ar, ac, br, bc, cr, cc, ca, la, cb, lb, ccn, lcn;
    shapes(&lc, &ar, &ac, &br, &bc, &cr, &cc);
    stored(layout, ar, ac, &ca, &la);
    stored(layout, br, bc, &cb, &lb);
    stored(layout, cr, cc, &ccn, &lcn);
    const int has_b = r != SYRK, has_c = r != TRMM;
    const acall_t base = {r, dbl, layout, lc.side, lc.uplo, lc.trans, lc.diag, lc.m, lc.n, lc.k,
                          p.lda, p.ldb, p.ldc, lc.alpha, lc.beta, 0, 0, 0, 0};
    EXPECT_STATUS((void)a, CLHGEMM_SUCCESS, "valid");
    EXPECT_STATUS(a->null_h = 1, CLHGEMM_NULL_HANDLE, "handle NULL");
    EXPECT_STATUS((a->null_h = 1, a->layout = 0), CLHGEMM_NULL_HANDLE,
                  "precedence: handle before layout");
    static const int bad[] = {0, 100, 103, 110, 114, 120, 123, 130, 133, 140, 143};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT_STATUS(a->layout = bad[i], CLHGEMM_INVALID_LAYOUT, "bad layout");
        if (r == SYMM || r == TRMM) EXPECT_STATUS(a->side = bad[i], CLHGEMM_INVALID_SIDE,
                                                  "bad side");
        EXPECT_STATUS(a->uplo = bad[i], CLHGEMM_INVALID_UPLO, "bad uplo");
        if (r != SYMM)
            EXPECT_STATUS(a->trans = bad[i],
                          r == TRMM ? CLHGEMM_INVALID_TRANS_A : CLHGEMM_INVALID_TRANS,
                          "bad trans");
        if (r == TRMM) EXPECT_STATUS(a->diag = bad[i], CLHGEMM_INVALID_DIAG, "bad diag");
    }
    EXPECT_STATUS((a->layout = 0, a->uplo = 0), CLHGEMM_INVALID_LAYOUT,
                  "precedence: layout before uplo");
    if (r == SYMM || r == TRMM) {
        EXPECT_STATUS((a->side = 0, a->uplo = 0), CLHGEMM_INVALID_SIDE,
                      "precedence: side before uplo");
        EXPECT_STATUS(a->m = -1, CLHGEMM_INVALID_M, "m = -1");
        EXPECT_STATUS((a->m = -1, a->n = -1), CLHGEMM_INVALID_M, "precedence: m before n");
    }
    if (r != SYMM) {
        EXPECT_STATUS((a->uplo = 0, a->trans = 0), CLHGEMM_INVALID_UPLO,
                      "precedence: uplo before trans");
        EXPECT_STATUS((a->trans = 0, a->n = -1),
                      r == TRMM ? CLHGEMM_INVALID_TRANS_A : CLHGEMM_INVALID_TRANS,
                      "precedence: trans before n");
    }
    if (r == TRMM) {
        EXPECT_STATUS((a->trans = 0, a->diag = 0), CLHGEMM_INVALID_TRANS_A,
                      "precedence: transA before diag");
        EXPECT_STATUS((a->diag = 0, a->m = -1), CLHGEMM_INVALID_DIAG, "precedence: diag before m");
    }
    EXPECT_STATUS(a->n = -1, CLHGEMM_INVALID_N, "n = -1");
    if (r == SYRK || r == SYR2K) {
        EXPECT_STATUS(a->k = -1, CLHGEMM_INVALID_K, "k = -1");
        EXPECT_STATUS((a->k = -1, a->alpha = 0.0), CLHGEMM_INVALID_K, "k = -1 with alpha = 0");
        EXPECT_STATUS((a->n = -1, a->k = -1), CLHGEMM_INVALID_N, "precedence: n before k");
        EXPECT_STATUS((a->k = -1, a->lda = 0), CLHGEMM_INVALID_K, "precedence: k before lda");
    }
    EXPECT_STATUS(a->lda = ca - 1, CLHGEMM_INVALID_LDA, "lda = rows as stored - 1");
    EXPECT_STATUS(a->lda = 0, CLHGEMM_INVALID_LDA, "lda = 0");
    EXPECT_STATUS((a->n = -1, a->lda = 0), CLHGEMM_INVALID_N, "precedence: n before lda");
    EXPECT_STATUS((a->lda = 0, a->null_a = 1), CLHGEMM_INVALID_LDA, "precedence: lda before A");
    if (has_b) {
        EXPECT_STATUS(a->ldb = cb - 1, CLHGEMM_INVALID_LDB, "ldb = rows as stored - 1");
        EXPECT_STATUS((a->lda = 0, a->ldb = 0), CLHGEMM_INVALID_LDA, "precedence: lda before ldb");
    }
    if (has_c) {
        EXPECT_STATUS(a->ldc = ccn - 1, CLHGEMM_INVALID_LDC, "ldc = rows as stored - 1");
        EXPECT_STATUS((a->lda = 0, a->ldc = 0), CLHGEMM_INVALID_LDA, "precedence: lda before ldc");
        if (has_b) EXPECT_STATUS((a->ldb = 0, a->ldc = 0), CLHGEMM_INVALID_LDB,
                                 "precedence: ldb before ldc");
    }
    EXPECT_STATUS((a->n = 0, a->m = 0, a->lda = 0), CLHGEMM_INVALID_LDA, "empty, lda = 0");
    EXPECT_STATUS(a->null_a = 1, CLHGEMM_NULL_BUFFER_A, "A NULL");
    EXPECT_STATUS((a->null_a = 1, a->null_b = 1, a->null_c = 1), CLHGEMM_NULL_BUFFER_A,
                  "precedence: A before B and C");
    if (has_b) {
        EXPECT_STATUS(a->null_b = 1, CLHGEMM_NULL_BUFFER_B, "B NULL");
        EXPECT_STATUS((a->null_b = 1, a->null_c = 1), CLHGEMM_NULL_BUFFER_B,
                      "precedence: B before C");
    }
    if (has_c) {
        EXPECT_STATUS(a->null_c = 1, CLHGEMM_NULL_BUFFER_C, "C NULL");
        EXPECT_STATUS((a->null_c = 1, a->alpha = 0.0), CLHGEMM_NULL_BUFFER_C,
                      "C NULL with alpha = 0");
    }
    /* BLAS does not read A (nor SYMM's / SYR2K's B) when alpha == 0: NULL is fine there */
    EXPECT_STATUS((a->alpha = 0.0, a->null_a = 1, a->null_b = r == SYMM || r == SYR2K),
                  CLHGEMM_SUCCESS,
                  "alpha = 0 with A (and B) NULL");
    if (r == TRMM) EXPECT_STATUS((a->alpha = 0.0, a->null_b = 1), CLHGEMM_NULL_BUFFER_B,
                                 "TRMM alpha = 0, B NULL");
    if (r == SYRK || r == SYR2K) EXPECT_STATUS((a->k = 0, a->null_a = 1, a->null_b = 1),
                                               CLHGEMM_SUCCESS,
                                               "k = 0 with A, B NULL");
    EXPECT_STATUS((a->n = 0, a->null_a = 1, a->null_b = 1, a->null_c = 1), CLHGEMM_SUCCESS,
                  "n = 0 with every operand NULL");
    prob_free(&p);
}

/* ---- fault injection --------------------------------------------------------------------- */

enum { FC_CALL_FAULT = 0, FC_FAIL = 1, FC_CREATE_FAULT = 2, FC_NO_FAULT = 3 };

/* One child: CLHGEMM_FAULT_ALLOC=n, a handle, then SYRK, TRMM (left and right) and SYMM over
 * several tiles. A call that fails must fail with CL_MEM_OBJECT_ALLOCATION_FAILURE and leave its
 * output untouched (the allocations come before any tile is written back, one device), and the
 * same handle must then succeed. */
static int fault_child(int n)
{
    alarm(120);
    char v[32];
    snprintf(v, sizeof v, "%d", n);
    setenv("CLHGEMM_FAULT_ALLOC", v, 1);
    tc_rng_t rng;
    tc_rng_seed(&rng, 0xFA013ULL + (uint64_t)n);
    clhgemm_handle_t h = NULL;
    clhgemm_status_t st = clhgemm_create(&h, NULL);
    if (st != CLHGEMM_SUCCESS) return st == CL_MEM_OBJECT_ALLOCATION_FAILURE && !h ? FC_CREATE_FAULT : FC_FAIL;
    static const int routines[4] = {SYRK, TRMM, TRMM, SYMM};
    for (int i = 0; i < 4; i++) {
        l3case_t c = {0};
        c.r = routines[i];
        c.layout = i % 2 ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
        c.side = i == 2 ? CLHGEMM_RIGHT : CLHGEMM_LEFT;
        c.uplo = i % 2 ? CLHGEMM_LOWER : CLHGEMM_UPPER;
        c.trans = i == 1 ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
        c.diag = CLHGEMM_NON_UNIT;
        set_size(&c, 150, 120);
        c.alpha = -1.5;
        c.beta = 0.5;
        prob_t p;
        if (prob_init(&p, &c, &rng)) return FC_FAIL;
        char tag[400];
        describe(&p, tag, sizeof tag);
        st = prob_call(h, &p);
        if (st == CLHGEMM_SUCCESS) {
            const int bad = prob_check(&p, tag);
            prob_free(&p);
            if (bad) return FC_FAIL;
            continue;
        }
        const int same = !memcmp(p.b, p.b0, p.nb * p.esz) && !memcmp(p.cbuf, p.c0, p.nc * p.esz);
        if (st != CL_MEM_OBJECT_ALLOCATION_FAILURE || !same) {
            fprintf(stderr, "FAIL fault %d %s: status %s, output %s\n", n, tag,
                    clhgemm_status_string(st), same ? "untouched" : "CHANGED");
            prob_free(&p);
            return FC_FAIL;
        }
        printf("fault %d: %s failed cleanly\n", n, rname[c.r]);
        unsetenv("CLHGEMM_FAULT_ALLOC");
        memcpy(p.b, p.b0, p.nb * p.esz);
        st = prob_call(h, &p);
        const int bad = st != CLHGEMM_SUCCESS || prob_check(&p, "the same call after the fault");
        if (st != CLHGEMM_SUCCESS) fprintf(stderr, "FAIL fault %d: retry -> %s\n", n, clhgemm_status_string(st));
        prob_free(&p);
        clhgemm_destroy(h);
        return bad ? FC_FAIL : FC_CALL_FAULT;
    }
    clhgemm_destroy(h);
    return FC_NO_FAULT;
}

static int mode_fault(const char *self)
{
    int seen = 0, clean = 0;
    for (int n = 1; n <= 60; n++) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            tc_tally(1);
            break;
        }
        if (pid == 0) {
            char arg[16];
            snprintf(arg, sizeof arg, "%d", n);
            execl(self, self, "fault-child", arg, (char *)NULL);
            _exit(127);
        }
        int ws = 0;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
        }
        const int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
        if (code == TC_SKIP) return TC_SKIP;
        if (code != FC_CALL_FAULT && code != FC_CREATE_FAULT && code != FC_NO_FAULT) {
            fprintf(stderr, "FAIL fault %d: child %s %d\n", n, WIFSIGNALED(ws) ? "signal" : "exit",
                    WIFSIGNALED(ws) ? WTERMSIG(ws) : code);
            tc_tally(1);
            continue;
        }
        tc_tally(0);
        if (code == FC_CALL_FAULT) seen = 1, clean = 0;
        if (code == FC_NO_FAULT && seen && ++clean == 2) break;
    }
    if (!seen) {
        fprintf(stderr, "FAIL fault: no injected failure reached a level-3 call\n");
        tc_tally(1);
    }
    return 0;
}

/* ---- main -------------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: test_host_level3 table s|d | multi | args | fault\n");
    return 2;
}

int main(int argc, char **argv)
{
    {
        const int skip = tc_require_feature();
        if (skip) return skip;
    }
    if (argc < 2) return usage();
    const char *mode = argv[1];
    if (!strcmp(mode, "fault-child") && argc > 2) return fault_child(atoi(argv[2]));
    if (!strcmp(mode, "fault")) {
        /* before the children start: they inherit the environment */
        if (getenv("CLHGEMM_DEVICE_MEMORY_LIMIT"))
            tc_small_tiles_on_gpu("the device memory cap leaves room for the failing allocations to land mid-call");
        const int rc = mode_fault("/proc/self/exe");
        printf("%d checks, %d failed\n", tc_checks(), tc_failures());
        return rc ? rc : tc_failures() ? 1 : 0;
    }
    int dbl = 0;
    if (!strcmp(mode, "table")) {
        if (argc < 3 || (strcmp(argv[2], "s") && strcmp(argv[2], "d"))) return usage();
        dbl = argv[2][0] == 'd';
    } else if (strcmp(mode, "multi") && strcmp(mode, "args")) {
        return usage();
    }
    clhgemm_handle_t h;
    int rc = create(&h);
    if (rc) return rc;
    const int fp64 = has_fp64();
    printf("CLHGEMM_TILE=%s, POCL_DEVICES=%s\n", getenv("CLHGEMM_TILE") ? getenv("CLHGEMM_TILE") : "(unset)",
           getenv("POCL_DEVICES") ? getenv("POCL_DEVICES") : "(unset)");
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x4057E3ULL + (uint64_t)dbl * 977 + (uint64_t)mode[0]);
    if (!strcmp(mode, "table")) {
        if (dbl && !fp64) {
            printf("SKIP: no fp64\n");
            clhgemm_destroy(h);
            return TC_SKIP;
        }
        for (int r = 0; r < NROUTINES; r++) for_combos(h, r, dbl, table_combo, &rng);
        if (!getenv("CLHGEMM_TILE") || g_multi_tile_calls == 0) {
            if (getenv("CLHGEMM_TILE")) {
                fprintf(stderr, "FAIL: no call ran over more than one tile\n");
                tc_tally(1);
            }
        }
    } else if (!strcmp(mode, "multi")) {
        clhgemm_call_info_t inf;
        int max_dev = 0;
        for (int d = 0; d < 1 + fp64; d++)
            for (int r = 0; r < NROUTINES; r++) {
                for_combos(h, r, d, multi_combo, &rng);
                if (clhgemm_last_call_info(h, &inf) == CLHGEMM_SUCCESS && inf.devices_used > max_dev)
                    max_dev = inf.devices_used;
            }
        printf("most devices used by one call: %d\n", max_dev);
    } else {
        for (int d = 0; d < 1 + fp64; d++)
            for (int r = 0; r < NROUTINES; r++)
                for (int l = 0; l < 2; l++)
                    for (int v = 0; v < 2; v++) invalid_args(h, r, d, LAYOUTS[l], v, &rng);
    }
    clhgemm_destroy(h);
    printf("%d cases, %d failed\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
