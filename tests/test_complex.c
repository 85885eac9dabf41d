/*
 * test_complex.c -- the complex level-3 routines (C and Z) on device buffers against OpenBLAS.
 *
 *   test_complex table c|z <routine>|all   every layout x side x uplo x trans x diag combination
 *                        of the routine(s) on odd sizes (none a multiple of any tile), each with
 *                        a rotation of (ld padding, offset) variants and of complex (alpha, beta)
 *                        pairs including 0 and 1, plus the alpha = 0 / k = 0 / beta = 1 quick
 *                        paths; routine: gemm hemm symm herk syrk her2k syr2k trmm trsm
 *   test_complex host c|z <routine>|all   the same table through the host-memory API on a
 *                        handle (the pipeline: CTest sets CLHGEMM_ROUTE=device; and the CPU
 *                        route with CLHGEMM_ROUTE=cpu)
 *   test_complex fault   every routine, a few combinations each, on a fresh handle per case:
 *                        CTest injects a device failure (CLHGEMM_FAULT_INJECT) after a tile or
 *                        three, so the rest of the call runs on the device left or, with none,
 *                        the complex CPU region (host/fault.c); results checked as in the table
 *   test_complex args    invalid arguments: each its own status in the reference BLAS order,
 *                        the output bit-identical (HERK takes no transpose, SYRK no conjugate
 *                        transpose), NULL scalars; the host API's NULL handle and NULL scalars
 *
 * Poisoning, as test_level3.c does for the real routines: every gap of A and B is NaN, the
 * triangle of A that must not be read is NaN, so is a unit diagonal and the imaginary part of a
 * Hermitian A's diagonal (HEMM) and of C's diagonal (HERK, HER2K, where the call must write it
 * as zero), C is NaN when beta = 0; every element of the output buffer that must not change
 * (outside the matrix, the other triangle of a HERK/SYRK/HER2K/SYR2K C) holds a distinct value
 * compared bit for bit, and A and B (but TRMM's and TRSM's B, the output) must come back
 * bit-identical. The reference is OpenBLAS's own routine (cblas_z*, in double, on the same
 * inputs -- single precision ones rounded to float first -- with the unreferenced NaNs replaced
 * by zeros); the tolerance is 4 (kin + 2) eps |alpha| |op(A)| |op(B)| + |beta| |C|, the bound
 * computed by the same routine on the magnitudes (TRSM: 4 (ka + 1) eps (|X| + 1) on a diagonally
 * dominant A).
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum { GEMM, HEMM, SYMM, HERK, SYRK, HER2K, SYR2K, TRMM, TRSM, NR };
static const char *const rname[NR] = {"gemm",  "hemm",  "symm", "herk", "syrk",
                                      "her2k", "syr2k", "trmm", "trsm"};

typedef struct ccase_s {
    int r, z;
    clhgemm_layout_t layout;
    clhgemm_side_t side;
    clhgemm_uplo_t uplo;
    clhgemm_transpose_t ta, tb; /* GEMM: transA, transB; HERK..SYR2K: trans; TRMM, TRSM: transA */
    clhgemm_diag_t diag;
    int m, n, k;
    double alpha[2], beta[2];   /* HERK: both real; HER2K: beta real */
    int pad;
    size_t off;
} ccase_t;

/* ---- operands ------------------------------------------------------------------------------ */

/* A stored matrix of the call: rows x cols as the caller means them (its layout's rows), in a
 * buffer of n complex elements (h: 2n doubles, the values the library sees). */
typedef struct opnd_s {
    int rows, cols, ld;
    size_t off, n;
    int tri;       /* 0: whole; 1 / 2: only the upper / lower triangle is the matrix */
    int herm_diag; /* the diagonal's imaginary part is not read (Hermitian) */
    int unit;      /* the diagonal is not read (unit triangular) */
    double *h;
    void *nat;     /* the buffer in the case's precision (the host API works on it) */
    cl_mem buf;    /* its device copy (the device-buffer API) */
} opnd_t;

static size_t at(const ccase_t *c, const opnd_t *o, int i, int j)
{
    return o->off + (c->layout == CLHGEMM_COL_MAJOR ? (size_t)i + (size_t)j * (size_t)o->ld
                                                    : (size_t)i * (size_t)o->ld + (size_t)j);
}

/* Whether element (i, j) is part of the matrix (what the call may read or write), and whether
 * its real / imaginary part is (herm_diag, unit). */
static void part_of(const opnd_t *o, int i, int j, int *re, int *im)
{
    int in = i < o->rows && j < o->cols;
    if (in && o->tri) in = o->tri == 1 ? i <= j : i >= j;
    if (in && o->unit && i == j) in = 0;
    *re = in;
    *im = in && !(o->herm_diag && i == j);
}

static double rnd(tc_rng_t *rng, int z)
{
    const double v = tc_rng_uniform(rng);
    return z ? v : (double)(float)v;
}

/* Allocates and fills o: the matrix's readable parts random (dominant: a diagonal of 2..3, the
 * rest scaled by 1/rows, for TRSM), the rest NaN, or the output pattern when out (a distinct
 * finite value per element outside, NaN inside when nan_in). */
static int opnd_init(const ccase_t *c, opnd_t *o, int rows, int cols, tc_rng_t *rng, int out,
                     int nan_in, int dominant)
{
    o->rows = rows;
    o->cols = cols;
    const int contig = c->layout == CLHGEMM_COL_MAJOR ? rows : cols;
    const int lines = c->layout == CLHGEMM_COL_MAJOR ? cols : rows;
    o->ld = (contig > 1 ? contig : 1) + c->pad;
    o->off = c->off;
    o->n = o->off + (rows && cols ? (size_t)(lines - 1) * (size_t)o->ld + (size_t)contig : 0) + 3;
    o->h = malloc(2 * o->n * sizeof *o->h);
    if (!o->h) return 1;
    for (size_t e = 0; e < 2 * o->n; e++) o->h[e] = out ? 1000.0 + (double)e : NAN;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) {
            int re, im;
            part_of(o, i, j, &re, &im);
            double *p = o->h + 2 * at(c, o, i, j);
            if (!re) continue; /* outside: NaN (input) or the pattern (output) */
            p[0] = nan_in ? NAN : rnd(rng, c->z);
            p[1] = im && !nan_in ? rnd(rng, c->z) : NAN;
            if (dominant) {
                const double s = 1.0 / (rows + 1);
                if (i == j) p[0] = (double)(float)(2.0 + fabs(p[0]));
                else p[0] *= s, p[1] *= s;
            }
        }
    return 0;
}

/* The buffer's bytes in the case's precision. */
static void *native(const ccase_t *c, const double *h, size_t n)
{
    const size_t es = c->z ? 8 : 4;
    char *p = malloc(2 * n * es);
    if (!p) return NULL;
    for (size_t e = 0; e < 2 * n; e++) {
        if (c->z) ((double *)p)[e] = h[e];
        else ((float *)p)[e] = (float)h[e];
    }
    return p;
}

/* The native bytes, and the device buffer with them unless env is NULL (the host API). */
static int opnd_buffer(const ccase_t *c, const tc_env_t *env, opnd_t *o)
{
    o->nat = native(c, o->h, o->n);
    if (!o->nat) return 1;
    if (!env) return 0;
    o->buf = tc_buffer_from_host(env->ctx, o->nat, 2 * o->n * (c->z ? 8 : 4));
    return o->buf ? 0 : 1;
}

/* The operand's contents now: read back from the device, or the host array. */
static int opnd_read(const ccase_t *c, cl_command_queue q, const opnd_t *o, void *got)
{
    const size_t bytes = 2 * o->n * (c->z ? 8 : 4);
    if (!o->buf) {
        memcpy(got, o->nat, bytes);
        return 0;
    }
    return tc_read(q, o->buf, got, bytes);
}

static void opnd_free(opnd_t *o)
{
    free(o->h);
    free(o->nat);
    if (o->buf) clReleaseMemObject(o->buf);
    memset(o, 0, sizeof *o);
}

/* ---- the case's operands and calls --------------------------------------------------------- */

typedef struct prob_s {
    ccase_t c;
    opnd_t a, b, o; /* o: C, or B for TRMM / TRSM (then b is unused) */
    int kin;        /* the inner dimension (tolerance) */
} prob_t;

static int triangular(int r) { return r == TRMM || r == TRSM; }
static int rank_k(int r) { return r == HERK || r == SYRK || r == HER2K || r == SYR2K; }
static int herm(int r) { return r == HEMM || r == HERK || r == HER2K; }
static int alpha_zero(const ccase_t *c) { return c->alpha[0] == 0.0 && c->alpha[1] == 0.0; }
static int beta_zero(const ccase_t *c) { return c->beta[0] == 0.0 && c->beta[1] == 0.0; }

static int prob_init(prob_t *p, const ccase_t *c, const tc_env_t *env, tc_rng_t *rng)
{
    memset(p, 0, sizeof *p);
    p->c = *c;
    const int upl = c->uplo == CLHGEMM_UPPER ? 1 : 2, ka = c->side == CLHGEMM_LEFT ? c->m : c->n;
    const int tn = c->ta == CLHGEMM_NO_TRANS;
    int rc = 0;
    switch (c->r) {
    case GEMM:
        rc |= opnd_init(c, &p->a, tn ? c->m : c->k, tn ? c->k : c->m, rng, 0, 0, 0);
        rc |= opnd_init(c, &p->b, c->tb == CLHGEMM_NO_TRANS ? c->k : c->n,
                        c->tb == CLHGEMM_NO_TRANS ? c->n : c->k, rng, 0, 0, 0);
        p->kin = c->k;
        break;
    case HEMM:
    case SYMM:
        p->a.tri = upl;
        p->a.herm_diag = c->r == HEMM;
        rc |= opnd_init(c, &p->a, ka, ka, rng, 0, 0, 0);
        rc |= opnd_init(c, &p->b, c->m, c->n, rng, 0, 0, 0);
        p->kin = ka;
        break;
    case HERK:
    case SYRK:
    case HER2K:
    case SYR2K:
        rc |= opnd_init(c, &p->a, tn ? c->n : c->k, tn ? c->k : c->n, rng, 0, 0, 0);
        if (c->r == HER2K || c->r == SYR2K)
            rc |= opnd_init(c, &p->b, tn ? c->n : c->k, tn ? c->k : c->n, rng, 0, 0, 0);
        p->kin = c->r == HERK || c->r == SYRK ? c->k : 2 * c->k;
        break;
    default: /* TRMM, TRSM */
        p->a.tri = upl;
        p->a.unit = c->diag == CLHGEMM_UNIT;
        rc |= opnd_init(c, &p->a, ka, ka, rng, 0, 0, c->r == TRSM);
        p->kin = ka;
        break;
    }
    /* the output: C (m x n; n x n, one triangle, for the rank-k routines), or TRMM's B */
    if (rank_k(c->r)) {
        p->o.tri = upl;
        /* HERK, HER2K write C's diagonal real without reading its imaginary part -- but for
         * the quick return (alpha = 0 or k = 0 with beta = 1), which leaves C alone */
        const int quick = (alpha_zero(c) || c->k == 0) && c->beta[0] == 1.0 && c->beta[1] == 0.0;
        p->o.herm_diag = herm(c->r) && !quick;
    }
    const int rows = rank_k(c->r) ? c->n : c->m;
    rc |= opnd_init(c, &p->o, rows, c->n, rng, 1, beta_zero(c) && !triangular(c->r), 0);
    if (rc) return 1;
    rc |= opnd_buffer(c, env, &p->a);
    if (p->b.h) rc |= opnd_buffer(c, env, &p->b);
    rc |= opnd_buffer(c, env, &p->o);
    return rc;
}

static void prob_free(prob_t *p)
{
    opnd_free(&p->a);
    opnd_free(&p->b);
    opnd_free(&p->o);
}

/* The library's call on device buffers. */
static clhgemm_status_t call_cl(const prob_t *p, cl_command_queue q, cl_event *ev)
{
    const ccase_t *c = &p->c;
    const float fa[2] = {(float)c->alpha[0], (float)c->alpha[1]},
                fb[2] = {(float)c->beta[0], (float)c->beta[1]};
    const void *al = c->z ? (const void *)c->alpha : (const void *)fa;
    const void *be = c->z ? (const void *)c->beta : (const void *)fb;
    const opnd_t *A = &p->a, *B = &p->b, *O = &p->o;
#define CALL(fn, ...) (c->z ? clhgemm_z##fn##_cl(__VA_ARGS__) : clhgemm_c##fn##_cl(__VA_ARGS__))
    switch (c->r) {
    case GEMM:
        return CALL(gemm, c->layout, c->ta, c->tb, c->m, c->n, c->k, al, A->buf, A->off, A->ld,
                    B->buf, B->off, B->ld, be, O->buf, O->off, O->ld, q, ev);
    case HEMM:
        return CALL(hemm, c->layout, c->side, c->uplo, c->m, c->n, al, A->buf, A->off, A->ld,
                    B->buf, B->off, B->ld, be, O->buf, O->off, O->ld, q, ev);
    case SYMM:
        return CALL(symm, c->layout, c->side, c->uplo, c->m, c->n, al, A->buf, A->off, A->ld,
                    B->buf, B->off, B->ld, be, O->buf, O->off, O->ld, q, ev);
    case HERK:
        return c->z ? clhgemm_zherk_cl(c->layout, c->uplo, c->ta, c->n, c->k, c->alpha[0], A->buf,
                                       A->off, A->ld, c->beta[0], O->buf, O->off, O->ld, q, ev)
                    : clhgemm_cherk_cl(c->layout, c->uplo, c->ta, c->n, c->k, (float)c->alpha[0],
                                       A->buf, A->off, A->ld, (float)c->beta[0], O->buf, O->off,
                                       O->ld, q, ev);
    case SYRK:
        return CALL(syrk, c->layout, c->uplo, c->ta, c->n, c->k, al, A->buf, A->off, A->ld, be,
                    O->buf, O->off, O->ld, q, ev);
    case HER2K:
        return c->z ? clhgemm_zher2k_cl(c->layout, c->uplo, c->ta, c->n, c->k, al, A->buf, A->off,
                                        A->ld, B->buf, B->off, B->ld, c->beta[0], O->buf, O->off,
                                        O->ld, q, ev)
                    : clhgemm_cher2k_cl(c->layout, c->uplo, c->ta, c->n, c->k, al, A->buf, A->off,
                                        A->ld, B->buf, B->off, B->ld, (float)c->beta[0], O->buf,
                                        O->off, O->ld, q, ev);
    case SYR2K:
        return CALL(syr2k, c->layout, c->uplo, c->ta, c->n, c->k, al, A->buf, A->off, A->ld,
                    B->buf, B->off, B->ld, be, O->buf, O->off, O->ld, q, ev);
    case TRMM:
        return CALL(trmm, c->layout, c->side, c->uplo, c->ta, c->diag, c->m, c->n, al, A->buf,
                    A->off, A->ld, O->buf, O->off, O->ld, q, ev);
    default:
        return CALL(trsm, c->layout, c->side, c->uplo, c->ta, c->diag, c->m, c->n, al, A->buf,
                    A->off, A->ld, O->buf, O->off, O->ld, q, ev);
    }
#undef CALL
}

/* The library's call on host memory (handle h). */
static clhgemm_status_t call_host(const prob_t *p, clhgemm_handle_t h)
{
    const ccase_t *c = &p->c;
    const float fa[2] = {(float)c->alpha[0], (float)c->alpha[1]},
                fb[2] = {(float)c->beta[0], (float)c->beta[1]};
    const void *al = c->z ? (const void *)c->alpha : (const void *)fa;
    const void *be = c->z ? (const void *)c->beta : (const void *)fb;
    const opnd_t *A = &p->a, *B = &p->b, *O = &p->o;
    /* the host API has no offsets: the matrices start where the buffers' offsets say */
    const size_t es = c->z ? 16 : 8;
    const void *AP = (const char *)A->nat + A->off * es;
    const void *BP = B->nat ? (const char *)B->nat + B->off * es : NULL;
    void *OP = (char *)O->nat + O->off * es;
#define CALL(fn, ...) (c->z ? clhgemm_z##fn(h, __VA_ARGS__) : clhgemm_c##fn(h, __VA_ARGS__))
    switch (c->r) {
    case GEMM:
        return CALL(gemm, c->layout, c->ta, c->tb, c->m, c->n, c->k, al, AP, A->ld, BP,
                    B->ld, be, OP, O->ld);
    case HEMM:
        return CALL(hemm, c->layout, c->side, c->uplo, c->m, c->n, al, AP, A->ld, BP, B->ld,
                    be, OP, O->ld);
    case SYMM:
        return CALL(symm, c->layout, c->side, c->uplo, c->m, c->n, al, AP, A->ld, BP, B->ld,
                    be, OP, O->ld);
    case HERK:
        return c->z ? clhgemm_zherk(h, c->layout, c->uplo, c->ta, c->n, c->k, c->alpha[0], AP,
                                    A->ld, c->beta[0], OP, O->ld)
                    : clhgemm_cherk(h, c->layout, c->uplo, c->ta, c->n, c->k, (float)c->alpha[0],
                                    AP, A->ld, (float)c->beta[0], OP, O->ld);
    case SYRK:
        return CALL(syrk, c->layout, c->uplo, c->ta, c->n, c->k, al, AP, A->ld, be, OP,
                    O->ld);
    case HER2K:
        return c->z ? clhgemm_zher2k(h, c->layout, c->uplo, c->ta, c->n, c->k, al, AP, A->ld,
                                     BP, B->ld, c->beta[0], OP, O->ld)
                    : clhgemm_cher2k(h, c->layout, c->uplo, c->ta, c->n, c->k, al, AP, A->ld,
                                     BP, B->ld, (float)c->beta[0], OP, O->ld);
    case SYR2K:
        return CALL(syr2k, c->layout, c->uplo, c->ta, c->n, c->k, al, AP, A->ld, BP, B->ld,
                    be, OP, O->ld);
    case TRMM:
        return CALL(trmm, c->layout, c->side, c->uplo, c->ta, c->diag, c->m, c->n, al, AP,
                    A->ld, OP, O->ld);
    default:
        return CALL(trsm, c->layout, c->side, c->uplo, c->ta, c->diag, c->m, c->n, al, AP,
                    A->ld, OP, O->ld);
    }
#undef CALL
}

/* OpenBLAS's routine of the case on double copies (a, b, o: whole buffers) with these scalars;
 * HERK's and HER2K's real ones are alpha[0], beta[0]. */
static void ref_call(const ccase_t *c, const double *alpha, const double *beta, const double *a,
                     int lda, const double *b, int ldb, double *o, int ldo)
{
    const CBLAS_LAYOUT L = (CBLAS_LAYOUT)c->layout;
    const CBLAS_SIDE S = (CBLAS_SIDE)c->side;
    const CBLAS_UPLO U = (CBLAS_UPLO)c->uplo;
    const CBLAS_TRANSPOSE TA = (CBLAS_TRANSPOSE)c->ta, TB = (CBLAS_TRANSPOSE)c->tb;
    const CBLAS_DIAG D = (CBLAS_DIAG)c->diag;
    switch (c->r) {
    case GEMM:
        cblas_zgemm(L, TA, TB, c->m, c->n, c->k, alpha, a, lda, b, ldb, beta, o, ldo);
        break;
    case HEMM:
        cblas_zhemm(L, S, U, c->m, c->n, alpha, a, lda, b, ldb, beta, o, ldo);
        break;
    case SYMM:
        cblas_zsymm(L, S, U, c->m, c->n, alpha, a, lda, b, ldb, beta, o, ldo);
        break;
    case HERK:
        cblas_zherk(L, U, TA, c->n, c->k, alpha[0], a, lda, beta[0], o, ldo);
        break;
    case SYRK:
        cblas_zsyrk(L, U, TA, c->n, c->k, alpha, a, lda, beta, o, ldo);
        break;
    case HER2K:
        cblas_zher2k(L, U, TA, c->n, c->k, alpha, a, lda, b, ldb, beta[0], o, ldo);
        break;
    case SYR2K:
        cblas_zsyr2k(L, U, TA, c->n, c->k, alpha, a, lda, b, ldb, beta, o, ldo);
        break;
    case TRMM:
        cblas_ztrmm(L, S, U, TA, D, c->m, c->n, alpha, a, lda, o, ldo);
        break;
    default:
        cblas_ztrsm(L, S, U, TA, D, c->m, c->n, alpha, a, lda, o, ldo);
        break;
    }
}

/* A copy of o's values with NaN as 0 (or each part's magnitude: abs). */
static double *sanitized(const opnd_t *o, int abs)
{
    if (!o->h) return NULL;
    double *d = malloc(2 * o->n * sizeof *d);
    if (!d) return NULL;
    for (size_t e = 0; e < 2 * o->n; e++) d[e] = isnan(o->h[e]) ? 0.0 : o->h[e];
    if (abs)
        for (size_t e = 0; e < o->n; e++) {
            d[2 * e] = hypot(d[2 * e], d[2 * e + 1]);
            d[2 * e + 1] = 0.0;
        }
    return d;
}

static void describe(const ccase_t *c, char *buf, size_t len)
{
    snprintf(buf, len,
             "%c%s %s side=%c uplo=%c ta=%d tb=%d diag=%c m=%d n=%d k=%d alpha=(%g,%g) "
             "beta=(%g,%g) pad=%d off=%zu",
             c->z ? 'z' : 'c', rname[c->r], tc_layout_name(c->layout),
             c->side == CLHGEMM_LEFT ? 'L' : 'R', c->uplo == CLHGEMM_UPPER ? 'U' : 'L', c->ta, c->tb,
             c->diag == CLHGEMM_UNIT ? 'U' : 'N', c->m, c->n, c->k, c->alpha[0], c->alpha[1],
             c->beta[0], c->beta[1], c->pad, c->off);
}

/* Whether buffer contents (native bytes) are bit-identical except at the matrix's parts. */
static size_t changed_outside(const ccase_t *c, const opnd_t *o, const void *got, const void *want,
                              int skip_matrix)
{
    const size_t es = c->z ? 8 : 4;
    size_t bad = 0;
    unsigned char *in = calloc(2 * o->n, 1);
    if (!in) return 1;
    if (skip_matrix)
        for (int j = 0; j < o->cols; j++)
            for (int i = 0; i < o->rows; i++) {
                int re, im;
                part_of(o, i, j, &re, &im);
                const size_t e = at(c, o, i, j);
                /* a Hermitian C's diagonal: its imaginary part is written (zero) too */
                if (re) in[2 * e] = in[2 * e + 1] = 1;
            }
    for (size_t e = 0; e < 2 * o->n; e++)
        if (!in[e] && memcmp((const char *)got + e * es, (const char *)want + e * es, es)) bad++;
    free(in);
    return bad;
}

/* Reads o back and compares it with its initial contents bit for bit (outside the matrix only
 * when skip_matrix). */
static int check_unchanged(const ccase_t *c, cl_command_queue q, const opnd_t *o, int skip_matrix,
                           const char *what, const char *tag)
{
    const size_t bytes = 2 * o->n * (c->z ? 8 : 4);
    void *got = malloc(bytes), *want = native(c, o->h, o->n);
    int rc = !got || !want || opnd_read(c, q, o, got);
    if (!rc) {
        const size_t bad = changed_outside(c, o, got, want, skip_matrix);
        rc = !EXPECT(bad == 0, "%s: %zu parts of %s changed that must not", tag, bad, what);
    }
    free(got);
    free(want);
    return rc;
}

/* The output's matrix against the reference. */
static int check_result(const prob_t *p, cl_command_queue q, const char *tag)
{
    const ccase_t *c = &p->c;
    const opnd_t *o = &p->o;
    const size_t bytes = 2 * o->n * (c->z ? 8 : 4);
    double *a = sanitized(&p->a, 0), *b = sanitized(&p->b, 0), *w = sanitized(o, 0);
    double *aa = sanitized(&p->a, 1), *ab = sanitized(&p->b, 1), *bound = sanitized(o, 1);
    void *got = malloc(bytes);
    int rc = 1;
    if (!a || (p->b.h && (!b || !ab)) || !w || !aa || !bound || !got) goto out;
    if (opnd_read(c, q, o, got)) goto out;
    const int ldb = p->b.h ? p->b.ld : 1;
    ref_call(c, c->alpha, c->beta, a + 2 * p->a.off, p->a.ld, b ? b + 2 * p->b.off : NULL, ldb,
             w + 2 * o->off, o->ld);
    const double ma[2] = {hypot(c->alpha[0], c->alpha[1]), 0.0};
    const double mb[2] = {hypot(c->beta[0], c->beta[1]), 0.0};
    if (c->r == TRSM) {
        for (size_t e = 0; e < o->n; e++) bound[2 * e] = hypot(w[2 * e], w[2 * e + 1]) + 1.0;
    } else {
        ref_call(c, ma, mb, aa + 2 * p->a.off, p->a.ld, ab ? ab + 2 * p->b.off : NULL, ldb,
                 bound + 2 * o->off, o->ld);
    }
    const double eps = c->z ? DBL_EPSILON : FLT_EPSILON, tiny = c->z ? 1e-300 : 1e-30;
    const double fac = c->r == TRSM ? 4.0 * (p->kin + 1) : 4.0 * (p->kin + 2);
    size_t bad = 0;
    double worst = 0;
    int wi = 0, wj = 0;
    for (int j = 0; j < o->cols; j++)
        for (int i = 0; i < o->rows; i++) {
            int re, im;
            part_of(o, i, j, &re, &im);
            if (!re) continue;
            const size_t e = at(c, o, i, j);
            const double gr = c->z ? ((double *)got)[2 * e] : ((float *)got)[2 * e];
            const double gi = c->z ? ((double *)got)[2 * e + 1] : ((float *)got)[2 * e + 1];
            const double err = hypot(gr - w[2 * e], gi - w[2 * e + 1]);
            const double tol = fac * eps * bound[2 * e] + tiny;
            /* a Hermitian C's diagonal is real: exactly zero imaginary parts */
            const int imag_bad = o->herm_diag && i == j && gi != 0.0;
            if (!(err <= tol) || imag_bad) {
                const double ratio = isfinite(err) ? err / tol : INFINITY;
                if (!bad || ratio > worst) worst = ratio, wi = i, wj = j;
                bad++;
            }
        }
    if (bad) {
        const size_t e = at(c, o, wi, wj);
        fprintf(stderr, "FAIL %s: %zu elements out of tolerance; worst (%d,%d) got (%.9g,%.9g) "
                        "want (%.9g,%.9g) err/tol %.3g\n",
                tag, bad, wi, wj, c->z ? ((double *)got)[2 * e] : ((float *)got)[2 * e],
                c->z ? ((double *)got)[2 * e + 1] : ((float *)got)[2 * e + 1], w[2 * e],
                w[2 * e + 1], worst);
    }
    tc_tally(bad != 0);
    rc = bad != 0;
    rc |= check_unchanged(c, q, o, 1, "the output", tag);
out:
    free(a);
    free(b);
    free(w);
    free(aa);
    free(ab);
    free(bound);
    free(got);
    return rc;
}

/* One case on device buffers (h NULL) or through the host API on handle h. */
static int run_case(const tc_env_t *env, clhgemm_handle_t h, const ccase_t *c, tc_rng_t *rng)
{
    char tag[256];
    describe(c, tag, sizeof tag);
    prob_t p;
    if (prob_init(&p, c, h ? NULL : env, rng)) {
        prob_free(&p);
        return !EXPECT(0, "%s: setup failed", tag);
    }
    cl_event ev = NULL;
    const clhgemm_status_t st = h ? call_host(&p, h) : call_cl(&p, env->queue, &ev);
    int rc = h ? 0 : tc_event_contract(env->ctx, env->queue, st, ev, tag) != 0;
    if (st != CLHGEMM_SUCCESS) {
        EXPECT(0, "%s: %s", tag, clhgemm_status_string(st));
        prob_free(&p);
        return 1;
    }
    rc |= check_result(&p, env->queue, tag);
    rc |= check_unchanged(c, env->queue, &p.a, 0, "A", tag);
    if (p.b.h) rc |= check_unchanged(c, env->queue, &p.b, 0, "B", tag);
    prob_free(&p);
    return rc;
}

/* ---- the table ----------------------------------------------------------------------------- */

static const int sizes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {65, 33, 7}, {3, 65, 33},
                               {17, 9, 129}};
static const double scalars[][4] = {
    {1, 0, 0, 0}, {0.5, -1.5, 0, 0}, {1, 0, 1, 0}, {-0.75, 0.25, 0.5, 2}, {0, 1, 1, 0},
    {1.25, 0.5, -0.5, 0}, {0, 0.75, 0.25, -0.5}, {1, -0.5, 0, 1.25},
};
#define NSC (int)(sizeof scalars / sizeof scalars[0])
#define NSZ (int)(sizeof sizes / sizeof sizes[0])

/* The scalars of variant v, made real where the routine takes real ones. */
static void set_scalars(ccase_t *c, int v)
{
    const double *s = scalars[v % NSC];
    c->alpha[0] = s[0], c->alpha[1] = s[1], c->beta[0] = s[2], c->beta[1] = s[3];
    if (c->r == HERK) c->alpha[1] = 0.0;
    if (c->r == HERK || c->r == HER2K) c->beta[1] = 0.0;
}

static const clhgemm_transpose_t trans3[3] = {CLHGEMM_NO_TRANS, CLHGEMM_TRANS, CLHGEMM_CONJ_TRANS};

/* The transposes a routine takes (HERK, HER2K: N, C; SYRK, SYR2K: N, T). */
static int trans_ok(int r, clhgemm_transpose_t t)
{
    if (r == HERK || r == HER2K) return t != CLHGEMM_TRANS;
    if (r == SYRK || r == SYR2K) return t != CLHGEMM_CONJ_TRANS;
    return 1;
}

static int run_table(const tc_env_t *env, clhgemm_handle_t h, int z, int r, tc_rng_t *rng)
{
    int cases = 0, failed = 0, v = 0;
    for (int l = 0; l < 2; l++)
        for (int s = 0; s < 2; s++)
            for (int u = 0; u < 2; u++)
                for (int ta = 0; ta < 3; ta++)
                    for (int tb = 0; tb < 3; tb++)
                        for (int d = 0; d < 2; d++) {
                            /* only the arguments the routine has */
                            if ((s || u) && r == GEMM) continue;
                            if (s && rank_k(r)) continue;
                            if (tb && r != GEMM) continue;
                            if (ta && (r == HEMM || r == SYMM)) continue;
                            if (d && !triangular(r)) continue;
                            if (!trans_ok(r, trans3[ta])) continue;
                            for (int zi = 0; zi < NSZ; zi++, v++) {
                                ccase_t c = {.r = r, .z = z};
                                c.layout = l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
                                c.side = s ? CLHGEMM_RIGHT : CLHGEMM_LEFT;
                                c.uplo = u ? CLHGEMM_LOWER : CLHGEMM_UPPER;
                                c.ta = trans3[ta];
                                c.tb = trans3[tb];
                                c.diag = d ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT;
                                c.m = sizes[zi][0], c.n = sizes[zi][1], c.k = sizes[zi][2];
                                if (rank_k(r)) c.n = sizes[zi][0];
                                set_scalars(&c, v);
                                c.pad = v % 3 == 1 ? 3 : 0;
                                c.off = v % 4 == 2 ? 5 : 0;
                                cases++;
                                failed += run_case(env, h, &c, rng) != 0;
                            }
                        }
    /* the quick paths: alpha = 0, k = 0 (beta 0, 1 and other), m or n = 0 */
    static const double qs[][4] = {{0, 0, 0, 0}, {0, 0, 1, 0}, {0, 0, 0.5, -0.25},
                                   {1, 1, 0, 0}, {1, 1, 1, 0}, {0.5, 0.5, 2, 0}};
    for (int l = 0; l < 2; l++)
        for (int qi = 0; qi < 6; qi++) {
            ccase_t c = {.r = r, .z = z, .ta = CLHGEMM_NO_TRANS, .tb = CLHGEMM_NO_TRANS};
            c.layout = l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
            c.side = CLHGEMM_LEFT;
            c.uplo = qi % 2 ? CLHGEMM_LOWER : CLHGEMM_UPPER;
            c.diag = CLHGEMM_NON_UNIT;
            c.m = c.n = 9;
            c.k = qi < 3 ? 5 : 0;
            c.alpha[0] = qs[qi][0], c.alpha[1] = qs[qi][1];
            c.beta[0] = qs[qi][2], c.beta[1] = qs[qi][3];
            if (qi < 3) c.alpha[0] = c.alpha[1] = 0.0;
            if (r == HERK) c.alpha[1] = 0.0;
            if (r == HERK || r == HER2K) c.beta[1] = 0.0;
            cases++;
            failed += run_case(env, h, &c, rng) != 0;
            c.m = 0;
            cases++;
            failed += run_case(env, h, &c, rng) != 0;
        }
    printf("%c%s%s: %d cases, %d failed\n", z ? 'z' : 'c', rname[r], h ? " (host)" : "", cases,
           failed);
    return failed;
}

/* ---- a lost device -------------------------------------------------------------------------- */

static int run_fault(const tc_env_t *env, tc_rng_t *rng)
{
    int cases = 0, failed = 0;
    for (int z = 0; z < 1 + env->has_fp64; z++)
        for (int r = 0; r < NR; r++)
            for (int v = 0; v < 4; v++) {
                ccase_t c = {.r = r, .z = z, .diag = CLHGEMM_NON_UNIT};
                c.layout = v & 1 ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
                c.side = v & 2 ? CLHGEMM_RIGHT : CLHGEMM_LEFT;
                c.uplo = v & 2 ? CLHGEMM_LOWER : CLHGEMM_UPPER;
                c.ta = v < 2 ? CLHGEMM_NO_TRANS : CLHGEMM_CONJ_TRANS;
                if (r == SYRK || r == SYR2K) c.ta = v < 2 ? CLHGEMM_NO_TRANS : CLHGEMM_TRANS;
                if (r == HEMM || r == SYMM) c.ta = CLHGEMM_NO_TRANS;
                c.tb = v == 1 ? CLHGEMM_CONJ_TRANS : CLHGEMM_NO_TRANS;
                c.m = 97, c.n = rank_k(r) ? 97 : 75, c.k = 83;
                set_scalars(&c, v + 3 * r);
                c.pad = v;
                clhgemm_handle_t h = NULL;
                if (clhgemm_create(&h, NULL) != CLHGEMM_SUCCESS) {
                    EXPECT(0, "clhgemm_create failed");
                    return 1;
                }
                cases++;
                failed += run_case(env, h, &c, rng) != 0;
                clhgemm_destroy(h);
            }
    printf("fault: %d cases, %d failed\n", cases, failed);
    return failed;
}

/* ---- argument checks ----------------------------------------------------------------------- */

/* One rejected call: the status, *event untouched, the output bit-identical. */
static void expect_rejected(const tc_env_t *env, const prob_t *p, clhgemm_status_t want,
                            const char *what)
{
    char tag[320], d[256];
    describe(&p->c, d, sizeof d);
    snprintf(tag, sizeof tag, "%s [%s]", d, what);
    cl_event ev = TC_EV_SENTINEL;
    const clhgemm_status_t st = call_cl(p, env->queue, &ev);
    EXPECT(st == want, "%s: %s, want %s", tag, clhgemm_status_string(st),
           clhgemm_status_string(want));
    EXPECT(ev == TC_EV_SENTINEL, "%s: *event written", tag);
    check_unchanged(&p->c, env->queue, &p->o, 0, "the output", tag);
}

/* Each routine: its invalid arguments one at a time, in the reference order where two are
 * invalid, the transposes a routine does not take, NULL scalars, too small leading dimensions. */
static int run_args(const tc_env_t *env, tc_rng_t *rng)
{
    const int before = tc_failures();
    for (int z = 0; z < 1 + env->has_fp64; z++)
        for (int r = 0; r < NR; r++) {
            ccase_t c = {.r = r, .z = z, .layout = CLHGEMM_COL_MAJOR, .side = CLHGEMM_LEFT,
                         .uplo = CLHGEMM_UPPER, .ta = CLHGEMM_NO_TRANS, .tb = CLHGEMM_NO_TRANS,
                         .diag = CLHGEMM_NON_UNIT, .m = 7, .n = 5, .k = 3};
            if (rank_k(r)) c.m = c.n;
            set_scalars(&c, 3);
            prob_t p;
            if (prob_init(&p, &c, env, rng)) {
                prob_free(&p);
                EXPECT(0, "setup failed");
                continue;
            }
            prob_t q = p;
            q.c.layout = (clhgemm_layout_t)99;
            expect_rejected(env, &q, CLHGEMM_INVALID_LAYOUT, "layout");
            q = p;
            if (r == GEMM) {
                q.c.ta = (clhgemm_transpose_t)99;
                q.c.tb = (clhgemm_transpose_t)98;
                expect_rejected(env, &q, CLHGEMM_INVALID_TRANS_A, "transA before transB");
                q = p;
                q.c.tb = (clhgemm_transpose_t)98;
                expect_rejected(env, &q, CLHGEMM_INVALID_TRANS_B, "transB");
            } else {
                q.c.uplo = (clhgemm_uplo_t)99;
                q.c.ta = (clhgemm_transpose_t)99;
                expect_rejected(env, &q, CLHGEMM_INVALID_UPLO, "uplo before trans");
            }
            q = p;
            if (rank_k(r)) {
                /* HERK / HER2K take no plain transpose, SYRK / SYR2K no conjugate one */
                q.c.ta = herm(r) ? CLHGEMM_TRANS : CLHGEMM_CONJ_TRANS;
                expect_rejected(env, &q, CLHGEMM_INVALID_TRANS, "the transpose it does not take");
                q = p;
                q.c.k = -1;
                expect_rejected(env, &q, CLHGEMM_INVALID_K, "k");
            }
            q = p;
            q.c.n = -1;
            expect_rejected(env, &q, CLHGEMM_INVALID_N, "n");
            q = p;
            q.a.ld = 0;
            expect_rejected(env, &q, CLHGEMM_INVALID_LDA, "lda");
            q = p;
            q.o.ld = 0;
            expect_rejected(env, &q, triangular(r) ? CLHGEMM_INVALID_LDB : CLHGEMM_INVALID_LDC,
                            "ld of the output");
            if (r != HERK) {
                /* NULL alpha (and beta where it is a pointer): checked after the shape */
                cl_event ev = TC_EV_SENTINEL;
                clhgemm_status_t st;
                const ccase_t *cc = &p.c;
                if (r == GEMM)
                    st = cc->z ? clhgemm_zgemm_cl(cc->layout, cc->ta, cc->tb, cc->m, cc->n, cc->k, NULL,
                                                  p.a.buf, p.a.off, p.a.ld, p.b.buf, p.b.off, p.b.ld,
                                                  cc->beta, p.o.buf, p.o.off, p.o.ld, env->queue, &ev)
                               : clhgemm_cgemm_cl(cc->layout, cc->ta, cc->tb, cc->m, cc->n, cc->k, NULL,
                                                  p.a.buf, p.a.off, p.a.ld, p.b.buf, p.b.off, p.b.ld,
                                                  cc->beta, p.o.buf, p.o.off, p.o.ld, env->queue, &ev);
                else if (r == TRMM || r == TRSM)
                    st = r == TRSM ? (cc->z ? clhgemm_ztrsm_cl(cc->layout, cc->side, cc->uplo, cc->ta,
                                                               cc->diag, cc->m, cc->n, NULL, p.a.buf,
                                                               p.a.off, p.a.ld, p.o.buf, p.o.off,
                                                               p.o.ld, env->queue, &ev)
                                            : clhgemm_ctrsm_cl(cc->layout, cc->side, cc->uplo, cc->ta,
                                                               cc->diag, cc->m, cc->n, NULL, p.a.buf,
                                                               p.a.off, p.a.ld, p.o.buf, p.o.off,
                                                               p.o.ld, env->queue, &ev))
                   : cc->z ? clhgemm_ztrmm_cl(cc->layout, cc->side, cc->uplo, cc->ta, cc->diag, cc->m,
                                                  cc->n, NULL, p.a.buf, p.a.off, p.a.ld, p.o.buf,
                                                  p.o.off, p.o.ld, env->queue, &ev)
                               : clhgemm_ctrmm_cl(cc->layout, cc->side, cc->uplo, cc->ta, cc->diag, cc->m,
                                                  cc->n, NULL, p.a.buf, p.a.off, p.a.ld, p.o.buf,
                                                  p.o.off, p.o.ld, env->queue, &ev);
                else if (r == SYRK)
                    st = cc->z ? clhgemm_zsyrk_cl(cc->layout, cc->uplo, cc->ta, cc->n, cc->k, cc->alpha,
                                                  p.a.buf, p.a.off, p.a.ld, NULL, p.o.buf, p.o.off,
                                                  p.o.ld, env->queue, &ev)
                               : clhgemm_csyrk_cl(cc->layout, cc->uplo, cc->ta, cc->n, cc->k, cc->alpha,
                                                  p.a.buf, p.a.off, p.a.ld, NULL, p.o.buf, p.o.off,
                                                  p.o.ld, env->queue, &ev);
                else if (r == HEMM)
                    st = cc->z ? clhgemm_zhemm_cl(cc->layout, cc->side, cc->uplo, cc->m, cc->n, NULL,
                                                  p.a.buf, p.a.off, p.a.ld, p.b.buf, p.b.off, p.b.ld,
                                                  cc->beta, p.o.buf, p.o.off, p.o.ld, env->queue, &ev)
                               : clhgemm_chemm_cl(cc->layout, cc->side, cc->uplo, cc->m, cc->n, NULL,
                                                  p.a.buf, p.a.off, p.a.ld, p.b.buf, p.b.off, p.b.ld,
                                                  cc->beta, p.o.buf, p.o.off, p.o.ld, env->queue, &ev);
                else
                    st = CLHGEMM_INVALID_ARGUMENT, ev = TC_EV_SENTINEL;
                EXPECT(st == CLHGEMM_INVALID_ARGUMENT && ev == TC_EV_SENTINEL,
                       "%c%s NULL scalar: %s", z ? 'z' : 'c', rname[r], clhgemm_status_string(st));
                check_unchanged(cc, env->queue, &p.o, 0, "the output", "NULL scalar");
            }
            prob_free(&p);
        }
    /* the host API: the handle first, then the shape, then NULL scalars */
    clhgemm_handle_t h = NULL;
    if (EXPECT(clhgemm_create(&h, NULL) == CLHGEMM_SUCCESS, "clhgemm_create")) {
        const double one[2] = {1, 0};
        double c2[4] = {0}, a2[4] = {0};
        EXPECT(clhgemm_zgemm(NULL, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, 1, 1, 1,
                             one, a2, 1, a2, 1, one, c2, 1) == CLHGEMM_NULL_HANDLE, "NULL handle");
        EXPECT(clhgemm_zgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, 1, 1, 1,
                             NULL, a2, 1, a2, 1, one, c2, 1) == CLHGEMM_INVALID_ARGUMENT,
               "NULL alpha (host)");
        EXPECT(clhgemm_zgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, (clhgemm_transpose_t)9, 1, 1,
                             1, NULL, a2, 1, a2, 1, one, c2, 1) == CLHGEMM_INVALID_TRANS_B,
               "the shape before the scalars (host)");
        EXPECT(clhgemm_zherk(h, CLHGEMM_COL_MAJOR, CLHGEMM_UPPER, CLHGEMM_TRANS, 1, 1, 1.0, a2, 1,
                             1.0, c2, 1) == CLHGEMM_INVALID_TRANS, "HERK's TRANS (host)");
        EXPECT(clhgemm_zsyrk(h, CLHGEMM_COL_MAJOR, CLHGEMM_UPPER, CLHGEMM_CONJ_TRANS, 1, 1, one,
                             a2, 1, one, c2, 1) == CLHGEMM_INVALID_TRANS, "SYRK's CONJ_TRANS (host)");
        EXPECT(clhgemm_ztrsm(h, CLHGEMM_COL_MAJOR, CLHGEMM_LEFT, CLHGEMM_UPPER, CLHGEMM_NO_TRANS,
                             CLHGEMM_NON_UNIT, 1, 1, NULL, a2, 1, c2, 1) == CLHGEMM_INVALID_ARGUMENT,
               "NULL alpha (host TRSM)");
        EXPECT(c2[0] == 0 && c2[1] == 0, "C written by a rejected call");
        clhgemm_destroy(h);
    }
    printf("args: %d failures\n", tc_failures() - before);
    return tc_failures() != before;
}

/* ---- main ---------------------------------------------------------------------------------- */

static int find_routine(const char *s)
{
    for (int r = 0; r < NR; r++)
        if (strcmp(s, rname[r]) == 0) return r;
    return strcmp(s, "all") == 0 ? NR : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s table c|z <routine>|all | args\n", argv[0]);
        return 2;
    }
    tc_env_t env;
    int rc = tc_open(&env);
    if (rc) return rc;
    printf("device: %s\n", env.info.name);
    tc_rng_t rng;
    tc_rng_seed(&rng, 20261201);
    int failed = 0;
    if ((strcmp(argv[1], "table") == 0 || strcmp(argv[1], "host") == 0) && argc == 4) {
        const int z = argv[2][0] == 'z', r = find_routine(argv[3]);
        if (r < 0) {
            fprintf(stderr, "unknown routine %s\n", argv[3]);
            return 2;
        }
        if (z && !env.has_fp64) {
            printf("SKIP: no FP64\n");
            tc_close(&env);
            return TC_SKIP;
        }
        clhgemm_handle_t h = NULL;
        if (argv[1][0] == 'h') {
            const clhgemm_status_t st = clhgemm_create(&h, NULL);
            if (st != CLHGEMM_SUCCESS) {
                fprintf(stderr, "FAIL: clhgemm_create -> %s\n", clhgemm_status_string(st));
                return 1;
            }
        }
        for (int i = r == NR ? 0 : r; i < (r == NR ? NR : r + 1); i++)
            failed += run_table(&env, h, z, i, &rng);
        clhgemm_destroy(h);
    } else if (strcmp(argv[1], "fault") == 0) {
        failed += run_fault(&env, &rng);
    } else if (strcmp(argv[1], "args") == 0) {
        failed += run_args(&env, &rng);
    } else {
        fprintf(stderr, "unknown mode\n");
        return 2;
    }
    tc_close(&env);
    printf("%d checks, %d failures\n", tc_checks(), tc_failures());
    return failed || tc_failures() ? 1 : 0;
}
