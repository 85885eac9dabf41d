/*
 * test_lapack_args.c -- the factorization layer's front ends (src/lapack/fact_api.c,
 * fact_api_cl.c, fact_check.c, fact_route.c, fact_solve.c), on PoCL in seconds.
 *
 *   args     a table of {routines, argument(s), value(s), expected status} over every argument
 *            of every routine, host and device-buffer API, both precisions and layouts: each
 *            invalid argument its own status, precedence between two bad ones in LAPACK's
 *            order, and A, B, ipiv, tau, info (poisoned) bit-identical after every rejected call
 *   quick    LAPACK's quick returns (n = 0, m = 0, nrhs = 0, k = 0): nothing read or written
 *            (NULL pointers accepted), info = 0, gels's zero solution
 *   cpu      every routine through the CPU route (a handle made under CLHGEMM_ROUTE=cpu), both
 *            precisions and layouts, every uplo / trans / side, sizes 1, 7, 33 with padded
 *            leading dimensions, against the CPU LAPACK called directly on a copy (row-major:
 *            transposed to column-major and back, as LAPACKE does): bit for bit, except a
 *            row-major Cholesky (the library factors the other triangle of the same storage),
 *            within a few ulps
 *   device   the same through the device route (CLHGEMM_ROUTE=device: the drivers, the host
 *            TRSM's solves, gels's QR path) and the device-buffer routines at offsets, within
 *            a tolerance; pivots and info exactly
 *
 * The reference is OpenBLAS's LAPACK, declared here by its Fortran names.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* ---- the reference: the CPU LAPACK's Fortran routines -------------------------------------- */

#define DECL(p, T)                                                                                 \
    void p##potrf_(const char *, const int *, T *, const int *, int *, size_t);                    \
    void p##getrf_(const int *, const int *, T *, const int *, int *, int *);                      \
    void p##geqrf_(const int *, const int *, T *, const int *, T *, T *, const int *, int *);      \
    void p##potrs_(const char *, const int *, const int *, const T *, const int *, T *,            \
                   const int *, int *, size_t);                                                    \
    void p##posv_(const char *, const int *, const int *, T *, const int *, T *, const int *,      \
                  int *, size_t);                                                                  \
    void p##getrs_(const char *, const int *, const int *, const T *, const int *, const int *,    \
                   T *, const int *, int *, size_t);                                               \
    void p##gesv_(const int *, const int *, T *, const int *, int *, T *, const int *, int *);     \
    void p##ormqr_(const char *, const char *, const int *, const int *, const int *, const T *,   \
                   const int *, const T *, T *, const int *, T *, const int *, int *, size_t,      \
                   size_t);                                                                        \
    void p##orgqr_(const int *, const int *, const int *, T *, const int *, const T *, T *,        \
                   const int *, int *);                                                            \
    void p##gels_(const char *, const int *, const int *, const int *, T *, const int *, T *,      \
                  const int *, T *, const int *, int *, size_t);
DECL(s, float)
DECL(d, double)

enum {
    OP_POTRF,
    OP_GETRF,
    OP_GEQRF,
    OP_POTRS,
    OP_POSV,
    OP_GETRS,
    OP_GESV,
    OP_ORMQR,
    OP_ORGQR,
    OP_GELS,
    NOPS
};
static const char *const g_op[NOPS] = {"potrf", "getrf", "geqrf", "potrs", "posv",
                                       "getrs", "gesv",  "ormqr", "orgqr", "gels"};
#define B_(op) (1u << (op))
#define ALL_OPS (B_(NOPS) - 1)
#define HAS_UPLO (B_(OP_POTRF) | B_(OP_POTRS) | B_(OP_POSV))
#define HAS_TRANS (B_(OP_GETRS) | B_(OP_ORMQR) | B_(OP_GELS))
#define HAS_M (B_(OP_GETRF) | B_(OP_GEQRF) | B_(OP_ORMQR) | B_(OP_ORGQR) | B_(OP_GELS))
#define HAS_K (B_(OP_ORMQR) | B_(OP_ORGQR))
#define HAS_NRHS (B_(OP_POTRS) | B_(OP_POSV) | B_(OP_GETRS) | B_(OP_GESV) | B_(OP_GELS))
#define HAS_B (HAS_NRHS | B_(OP_ORMQR))
#define HAS_IPIV (B_(OP_GETRF) | B_(OP_GETRS) | B_(OP_GESV))
#define HAS_TAU (B_(OP_GEQRF) | B_(OP_ORMQR) | B_(OP_ORGQR))
#define HAS_INFO (B_(OP_POTRF) | B_(OP_GETRF) | B_(OP_POSV) | B_(OP_GESV) | B_(OP_GELS))
#define CL_OPS (B_(OP_POTRF) | B_(OP_GETRF) | B_(OP_GEQRF) | B_(OP_POTRS) | B_(OP_GETRS))
#define HAS(mask, op) (((mask) >> (op)) & 1u)

/* One call: the routine and its scalar arguments (cl: the device-buffer routine). */
typedef struct fc_s {
    int op, dbl, cl;
    int layout, uplo, trans, side;
    int m, n, k, nrhs, lda, ldb;
    size_t offa, offb;
    int sing; /* A made to fail: not positive definite, an exactly zero pivot or diagonal of R */
} fc_t;

static void describe(const fc_t *c, char *buf, size_t len)
{
    snprintf(buf, len, "%c%s%s %s uplo=%d trans=%d side=%d m=%d n=%d k=%d nrhs=%d lda=%d ldb=%d%s",
             c->dbl ? 'd' : 's', g_op[c->op], c->cl ? "_cl" : "", tc_layout_name(c->layout),
             c->uplo, c->trans, c->side, c->m, c->n, c->k, c->nrhs, c->lda, c->ldb,
             c->sing ? " singular" : "");
}

/* A and B as LAPACK declares them (B: ormqr's C; none: 0 x 0). */
static void shapes(const fc_t *c, int *ar, int *ac, int *br, int *bc)
{
    *ar = *ac = *br = *bc = 0;
    switch (c->op) {
    case OP_POTRF: *ar = *ac = c->n; break;
    case OP_GETRF:
    case OP_GEQRF:
    case OP_ORGQR:
        *ar = c->m;
        *ac = c->n;
        break;
    case OP_ORMQR:
        *ar = c->side == CLHGEMM_LEFT ? c->m : c->n;
        *ac = c->k;
        *br = c->m;
        *bc = c->n;
        break;
    case OP_GELS:
        *ar = c->m;
        *ac = c->n;
        *br = c->m > c->n ? c->m : c->n;
        *bc = c->nrhs;
        break;
    default:
        *ar = *ac = *br = c->n;
        *bc = c->nrhs;
        break;
    }
}

static int row(const fc_t *c) { return c->layout == CLHGEMM_ROW_MAJOR; }
static int min_ld(const fc_t *c, int rows, int cols)
{
    const int s = row(c) ? cols : rows;
    return s > 1 ? s : 1;
}
/* Elements a stored rows x cols matrix spans. */
static size_t extent(const fc_t *c, int rows, int cols, int ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    const size_t lines = (size_t)(row(c) ? rows : cols), along = (size_t)(row(c) ? cols : rows);
    return (size_t)ld * (lines - 1) + along;
}
static size_t at(const fc_t *c, int i, int j, int ld)
{
    return row(c) ? (size_t)i * (size_t)ld + (size_t)j : (size_t)i + (size_t)j * (size_t)ld;
}

static double get(int dbl, const void *x, size_t i)
{
    return dbl ? ((const double *)x)[i] : (double)((const float *)x)[i];
}
static void put(int dbl, void *x, size_t i, double v)
{
    if (dbl)
        ((double *)x)[i] = v;
    else
        ((float *)x)[i] = (float)v;
}

/* ---- a problem: inputs made for the routine ----------------------------------------------- */

typedef struct prob_s {
    fc_t c;
    size_t es, na, nb; /* elements of the A and B arrays (offset included), at least 1 */
    void *a0, *b0;
    int *ipiv0;        /* getrs's pivots; poison for the routines that write them */
    void *tau0;        /* ormqr's, orgqr's reflector scalars; poison for geqrf */
    size_t npiv, ntau; /* at least 1 */
} prob_t;

#define POISON_INT 0x5A5A5A5A

/* Fills p for c (lda, ldb 0: the least legal value + pad). Inputs: random in [-1, 1] everywhere
 * (the gaps too); an SPD matrix for potrf / posv (diagonal n + 1), well-conditioned triangles
 * for potrs and getrs (L's strict part scaled by 1/n), valid pivots for getrs, reflectors with
 * the tau that makes each an orthogonal matrix for ormqr and orgqr. */
static int prob_init(prob_t *p, const fc_t *c, int pad, tc_rng_t *rng)
{
    memset(p, 0, sizeof *p);
    p->c = *c;
    fc_t *f = &p->c;
    int ar, ac, br, bc;
    shapes(f, &ar, &ac, &br, &bc);
    if (f->lda == 0) f->lda = min_ld(f, ar, ac) + pad;
    if (f->ldb == 0) f->ldb = min_ld(f, br, bc) + pad;
    p->es = f->dbl ? 8 : 4;
    p->na = f->offa + extent(f, ar, ac, f->lda);
    p->nb = f->offb + extent(f, br, bc, f->ldb);
    if (p->na == 0) p->na = 1;
    if (p->nb == 0) p->nb = 1;
    const int mn = f->m < f->n ? f->m : f->n;
    p->npiv = (size_t)(f->op == OP_GETRF ? mn : f->n);
    p->ntau = (size_t)(f->op == OP_GEQRF ? mn : f->k);
    if ((int)p->npiv < 1) p->npiv = 1;
    if ((int)p->ntau < 1) p->ntau = 1;
    p->a0 = malloc(p->na * p->es);
    p->b0 = malloc(p->nb * p->es);
    p->ipiv0 = malloc(p->npiv * sizeof(int));
    p->tau0 = malloc(p->ntau * p->es);
    if (!p->a0 || !p->b0 || !p->ipiv0 || !p->tau0) return 1;
    for (size_t i = 0; i < p->na; i++)
        put(f->dbl, p->a0, i, tc_rng_uniform(rng));
    for (size_t i = 0; i < p->nb; i++)
        put(f->dbl, p->b0, i, tc_rng_uniform(rng));
    for (size_t i = 0; i < p->ntau; i++)
        put(f->dbl, p->tau0, i, tc_rng_uniform(rng));
    for (size_t i = 0; i < p->npiv; i++)
        p->ipiv0[i] = POISON_INT;
    char *A = (char *)p->a0 + f->offa * p->es;
    const int n = f->n;
    if (f->op == OP_POTRF || f->op == OP_POSV || f->op == OP_POTRS)
        for (int i = 0; i < n; i++)
            put(f->dbl, A, at(f, i, i, f->lda), n + 1.0 + tc_rng_uniform(rng));
    if (f->op == OP_GETRS) {
        for (int j = 0; j < n; j++)
            for (int i = j; i < n; i++) {
                const size_t x = at(f, i, j, f->lda);
                put(f->dbl, A, x, i == j ? n + 1.0 : get(f->dbl, A, x) / n);
            }
        for (int i = 0; i < n; i++)
            p->ipiv0[i] = i + 1 + (int)(tc_rng_next(rng) % (uint64_t)(n - i));
    }
    if (f->sing) { /* LAPACK's info = j + 1 */
        const int j =
            (f->m < f->n && f->op != OP_POTRF && f->op != OP_POSV && f->op != OP_GESV ? f->m
                                                                                      : f->n) /
            2;
        if (f->op == OP_POTRF || f->op == OP_POSV) put(f->dbl, A, at(f, j, j, f->lda), -1.0);
        if (f->op == OP_GETRF || f->op == OP_GESV || (f->op == OP_GELS && f->m >= f->n))
            for (int i = 0; i < ar; i++)
                put(f->dbl, A, at(f, i, j, f->lda), 0.0); /* a zero column */
        if (f->op == OP_GELS && f->m < f->n)
            for (int i = 0; i < ac; i++)
                put(f->dbl, A, at(f, j, i, f->lda), 0.0); /* a zero row */
    }
    if (f->op == OP_ORMQR || f->op == OP_ORGQR) /* H_j = I - tau_j v_j v_j^T, v_j(j) = 1 */
        for (int j = 0; j < f->k; j++) {
            double s = 1.0;
            for (int i = j + 1; i < ar; i++)
                s += get(f->dbl, A, at(f, i, j, f->lda)) * get(f->dbl, A, at(f, i, j, f->lda));
            put(f->dbl, p->tau0, (size_t)j, 2.0 / s);
        }
    return 0;
}

static void prob_free(prob_t *p)
{
    free(p->a0);
    free(p->b0);
    free(p->ipiv0);
    free(p->tau0);
}

/* What a run produced: copies of the inputs, then written by the call. */
typedef struct out_s {
    void *a, *b, *tau;
    int *ipiv;
    int info;
} out_t;

#define POISON_INFO 0x7EADBEEF

static int out_init(out_t *o, const prob_t *p)
{
    o->a = malloc(p->na * p->es);
    o->b = malloc(p->nb * p->es);
    o->tau = malloc(p->ntau * p->es);
    o->ipiv = malloc(p->npiv * sizeof(int));
    if (!o->a || !o->b || !o->tau || !o->ipiv) return 1;
    memcpy(o->a, p->a0, p->na * p->es);
    memcpy(o->b, p->b0, p->nb * p->es);
    memcpy(o->tau, p->tau0, p->ntau * p->es);
    memcpy(o->ipiv, p->ipiv0, p->npiv * sizeof(int));
    o->info = POISON_INFO;
    return 0;
}

static void out_free(out_t *o)
{
    free(o->a);
    free(o->b);
    free(o->tau);
    free(o->ipiv);
}

/* ---- calls -------------------------------------------------------------------------------- */

#define H(name, ...) (c->dbl ? clhgemm_d##name(__VA_ARGS__) : clhgemm_s##name(__VA_ARGS__))

/* The host routine of c on these pointers (NULL where the caller wants NULL). */
static clhgemm_status_t call_host(clhgemm_handle_t h, const fc_t *c, void *A, void *B, int *ipiv,
                                  void *tau, int *info)
{
    const clhgemm_layout_t l = (clhgemm_layout_t)c->layout;
    const clhgemm_uplo_t u = (clhgemm_uplo_t)c->uplo;
    const clhgemm_transpose_t t = (clhgemm_transpose_t)c->trans;
    switch (c->op) {
    case OP_POTRF: return H(potrf, h, l, u, c->n, A, c->lda, info);
    case OP_GETRF: return H(getrf, h, l, c->m, c->n, A, c->lda, ipiv, info);
    case OP_GEQRF: return H(geqrf, h, l, c->m, c->n, A, c->lda, tau);
    case OP_POTRS: return H(potrs, h, l, u, c->n, c->nrhs, A, c->lda, B, c->ldb);
    case OP_POSV: return H(posv, h, l, u, c->n, c->nrhs, A, c->lda, B, c->ldb, info);
    case OP_GETRS: return H(getrs, h, l, t, c->n, c->nrhs, A, c->lda, ipiv, B, c->ldb);
    case OP_GESV: return H(gesv, h, l, c->n, c->nrhs, A, c->lda, ipiv, B, c->ldb, info);
    case OP_ORMQR:
        return H(ormqr, h, l, (clhgemm_side_t)c->side, t, c->m, c->n, c->k, A, c->lda, tau, B,
                 c->ldb);
    case OP_ORGQR: return H(orgqr, h, l, c->m, c->n, c->k, A, c->lda, tau);
    default: return H(gels, h, l, t, c->m, c->n, c->nrhs, A, c->lda, B, c->ldb, info);
    }
}

#define D(name, ...)                                                                               \
    (c->dbl ? clhgemm_d##name##_cl(__VA_ARGS__) : clhgemm_s##name##_cl(__VA_ARGS__))

static clhgemm_status_t call_cl(cl_command_queue q, const fc_t *c, cl_mem A, cl_mem B, int *ipiv,
                                void *tau, int *info)
{
    const clhgemm_layout_t l = (clhgemm_layout_t)c->layout;
    const clhgemm_uplo_t u = (clhgemm_uplo_t)c->uplo;
    switch (c->op) {
    case OP_POTRF: return D(potrf, l, u, c->n, A, c->offa, c->lda, info, q);
    case OP_GETRF: return D(getrf, l, c->m, c->n, A, c->offa, c->lda, ipiv, info, q);
    case OP_GEQRF: return D(geqrf, l, c->m, c->n, A, c->offa, c->lda, tau, q);
    case OP_POTRS: return D(potrs, l, u, c->n, c->nrhs, A, c->offa, c->lda, B, c->offb, c->ldb, q);
    default:
        return D(getrs, l, (clhgemm_transpose_t)c->trans, c->n, c->nrhs, A, c->offa, c->lda, ipiv,
                 B, c->offb, c->ldb, q);
    }
}

/* The reference: the Fortran routine on column-major copies (row-major transposed in and out,
 * LAPACKE's way), A and B at their offsets. */
#define R(name, ...) (dbl ? d##name##_(__VA_ARGS__) : s##name##_(__VA_ARGS__))

static void to_col(const fc_t *c, int to, size_t es, int rows, int cols, void *x, int ld, void *y,
                   int ldy)
{
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) {
            char *u = (char *)x + at(c, i, j, ld) * es,
                 *v = (char *)y + ((size_t)i + (size_t)j * (size_t)ldy) * es;
            memcpy(to ? v : u, to ? u : v, es);
        }
}

static void ref_fortran(const fc_t *c, void *A, int lda, void *B, int ldb, int *ipiv, void *tau,
                        int *info)
{
    const int dbl = c->dbl, m = c->m, n = c->n, k = c->k, r = c->nrhs;
    const char *u = c->uplo == CLHGEMM_UPPER ? "U" : "L",
               *t = c->trans == CLHGEMM_NO_TRANS ? "N" : "T";
    const char *s = c->side == CLHGEMM_LEFT ? "L" : "R";
    double wq = 0;
    float wqs = 0;
    void *q = dbl ? (void *)&wq : (void *)&wqs;
    int lw = -1;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && c->op != OP_GEQRF && c->op != OP_ORMQR && c->op != OP_ORGQR &&
            c->op != OP_GELS)
            break;
        void *w = pass ? malloc((size_t)(lw > 1 ? lw : 1) * (dbl ? 8 : 4)) : q;
        switch (c->op) {
        case OP_POTRF: R(potrf, u, &n, A, &lda, info, 1); break;
        case OP_GETRF: R(getrf, &m, &n, A, &lda, ipiv, info); break;
        case OP_GEQRF: R(geqrf, &m, &n, A, &lda, tau, w, &lw, info); break;
        case OP_POTRS: R(potrs, u, &n, &r, A, &lda, B, &ldb, info, 1); break;
        case OP_POSV: R(posv, u, &n, &r, A, &lda, B, &ldb, info, 1); break;
        case OP_GETRS: R(getrs, t, &n, &r, A, &lda, ipiv, B, &ldb, info, 1); break;
        case OP_GESV: R(gesv, &n, &r, A, &lda, ipiv, B, &ldb, info); break;
        case OP_ORMQR: R(ormqr, s, t, &m, &n, &k, A, &lda, tau, B, &ldb, w, &lw, info, 1, 1); break;
        case OP_ORGQR: R(orgqr, &m, &n, &k, A, &lda, tau, w, &lw, info); break;
        default: R(gels, t, &m, &n, &r, A, &lda, B, &ldb, w, &lw, info, 1); break;
        }
        if (pass) free(w);
        lw = dbl ? (int)wq : (int)wqs;
    }
}

static void ref_run(const prob_t *p, out_t *o)
{
    const fc_t *c = &p->c;
    int ar, ac, br, bc;
    shapes(c, &ar, &ac, &br, &bc);
    char *A = (char *)o->a + c->offa * p->es, *B = (char *)o->b + c->offb * p->es;
    int info = 0;
    if (!row(c)) {
        ref_fortran(c, A, c->lda, B, c->ldb, o->ipiv, o->tau, &info);
    } else {
        const int lta = ar > 1 ? ar : 1, ltb = br > 1 ? br : 1;
        void *ta = calloc((size_t)lta * (size_t)(ac > 1 ? ac : 1), p->es);
        void *tb = calloc((size_t)ltb * (size_t)(bc > 1 ? bc : 1), p->es);
        to_col(c, 1, p->es, ar, ac, A, c->lda, ta, lta);
        to_col(c, 1, p->es, br, bc, B, c->ldb, tb, ltb);
        ref_fortran(c, ta, lta, tb, ltb, o->ipiv, o->tau, &info);
        to_col(c, 0, p->es, ar, ac, A, c->lda, ta, lta);
        to_col(c, 0, p->es, br, bc, B, c->ldb, tb, ltb);
        free(ta);
        free(tb);
    }
    if (HAS(HAS_INFO, c->op)) o->info = info;
}

/* ---- comparisons -------------------------------------------------------------------------- */

/* got against want, count elements: bit for bit (tolfac 0), or within tolfac * dim * eps *
 * max(1, max |want|). Prints the first difference. 0 on pass. */
static int same(const char *tag, const char *what, int dbl, const void *got, const void *want,
                size_t count, double tolfac, int dim, const unsigned char *skip)
{
    if (tolfac == 0) {
        if (!skip && !memcmp(got, want, count * (dbl ? 8 : 4))) return 0;
        for (size_t i = 0; i < count; i++)
            if ((!skip || !skip[i]) &&
                memcmp((const char *)got + i * (dbl ? 8 : 4),
                       (const char *)want + i * (dbl ? 8 : 4), dbl ? 8 : 4)) {
                fprintf(stderr, "FAIL %s: %s[%zu] = %.17g, want %.17g (bit for bit)\n", tag, what,
                        i, get(dbl, got, i), get(dbl, want, i));
                return 1;
            }
        return skip ? 0 : 1;
    }
    double scale = 1;
    for (size_t i = 0; i < count; i++)
        scale = fmax(scale, fabs(get(dbl, want, i)));
    const double tol = tolfac * (dim > 1 ? dim : 1) * (dbl ? DBL_EPSILON : FLT_EPSILON) * scale;
    for (size_t i = 0; i < count; i++) {
        if (skip && skip[i]) continue;
        const double d = fabs(get(dbl, got, i) - get(dbl, want, i));
        if (!(d <= tol)) {
            fprintf(stderr, "FAIL %s: %s[%zu] = %.17g, want %.17g (|diff| %.3g > tol %.3g)\n", tag,
                    what, i, get(dbl, got, i), get(dbl, want, i), d, tol);
            return 1;
        }
    }
    return 0;
}

/* All outputs of a run against the reference's. */
static int same_outputs(const char *tag, const prob_t *p, const out_t *got, const out_t *want,
                        double tol_a, double tol_b)
{
    const fc_t *c = &p->c;
    const int dim = c->m > c->n ? (c->m > c->k ? c->m : c->k) : (c->n > c->k ? c->n : c->k);
    /* A Cholesky that stopped at minor j = info: LAPACK defines the factor of the leading
     * (j - 1) x (j - 1) block only; the rest of the triangle is whatever the algorithm left. */
    unsigned char *skip = NULL;
    if ((c->op == OP_POTRF || c->op == OP_POSV) && want->info > 0 &&
        (skip = calloc(p->na, 1)) != NULL)
        for (int j = 0; j < c->n; j++)
            for (int i = 0; i < c->n; i++)
                if ((c->uplo == CLHGEMM_UPPER ? i <= j : i >= j) &&
                    (i >= want->info - 1 || j >= want->info - 1))
                    skip[c->offa + at(c, i, j, c->lda)] = 1;
    int rc = same(tag, "A", c->dbl, got->a, want->a, p->na, tol_a, dim, skip);
    free(skip);
    rc |= same(tag, "B", c->dbl, got->b, want->b, p->nb, tol_b, dim, NULL);
    rc |= same(tag, "tau", c->dbl, got->tau, want->tau, p->ntau, tol_a, dim, NULL);
    if (memcmp(got->ipiv, want->ipiv, p->npiv * sizeof(int))) {
        for (size_t i = 0; i < p->npiv; i++)
            if (got->ipiv[i] != want->ipiv[i]) {
                fprintf(stderr, "FAIL %s: ipiv[%zu] = %d, want %d\n", tag, i, got->ipiv[i],
                        want->ipiv[i]);
                break;
            }
        rc = 1;
    }
    if (got->info != want->info) {
        fprintf(stderr, "FAIL %s: info %d, want %d\n", tag, got->info, want->info);
        rc = 1;
    }
    return rc;
}

/* ---- the argument table ------------------------------------------------------------------- */

enum {
    F_NONE,
    F_LAYOUT,
    F_UPLO,
    F_TRANS,
    F_SIDE,
    F_M,
    F_N,
    F_K,
    F_NRHS,
    F_LDA,
    F_LDB,
    F_LDA_MIN,
    F_LDB_MIN,
    F_K_NQ,
    F_N_M,
    F_K_N,
    F_HUGE,
    F_NULL_H,
    F_NULL_A,
    F_NULL_B,
    F_NULL_IPIV,
    F_NULL_TAU,
    F_NULL_INFO,
    F_NULL_Q,
    F_OFFA,
    F_OFFB,
    F_CTX_A,
    F_CTX_B
};
enum { API_HOST = 1, API_CL = 2, API_BOTH = 3 };

typedef struct mod_s {
    int f, v;
} mod_t;

typedef struct acase_s {
    unsigned ops;
    int api;
    const char *what;
    mod_t m[2];
    clhgemm_status_t want; /* ormqr: _B statuses stand for its C */
} acase_t;

static const acase_t g_args[] = {
    {ALL_OPS, API_BOTH, "valid", {{F_NONE, 0}}, CLHGEMM_SUCCESS},
    {HAS_TRANS, API_BOTH, "trans CONJ_TRANS (TRANS for real data)", {{F_TRANS, CLHGEMM_CONJ_TRANS}},
     CLHGEMM_SUCCESS},
    {ALL_OPS, API_HOST, "handle NULL", {{F_NULL_H, 1}}, CLHGEMM_NULL_HANDLE},
    {ALL_OPS, API_HOST, "handle before layout", {{F_NULL_H, 1}, {F_LAYOUT, 0}},
     CLHGEMM_NULL_HANDLE},
    {ALL_OPS, API_BOTH, "layout 0", {{F_LAYOUT, 0}}, CLHGEMM_INVALID_LAYOUT},
    {ALL_OPS, API_BOTH, "layout 100", {{F_LAYOUT, 100}}, CLHGEMM_INVALID_LAYOUT},
    {ALL_OPS, API_BOTH, "layout 103", {{F_LAYOUT, 103}}, CLHGEMM_INVALID_LAYOUT},
    {ALL_OPS, API_BOTH, "layout 122 (an uplo)", {{F_LAYOUT, CLHGEMM_LOWER}},
     CLHGEMM_INVALID_LAYOUT},
    {ALL_OPS, API_BOTH, "layout before n", {{F_LAYOUT, 0}, {F_N, -1}}, CLHGEMM_INVALID_LAYOUT},
    {HAS_UPLO, API_BOTH, "uplo 0", {{F_UPLO, 0}}, CLHGEMM_INVALID_UPLO},
    {HAS_UPLO, API_BOTH, "uplo 120", {{F_UPLO, 120}}, CLHGEMM_INVALID_UPLO},
    {HAS_UPLO, API_BOTH, "uplo 123", {{F_UPLO, 123}}, CLHGEMM_INVALID_UPLO},
    {HAS_UPLO, API_BOTH, "uplo 101 (a layout)", {{F_UPLO, CLHGEMM_ROW_MAJOR}},
     CLHGEMM_INVALID_UPLO},
    {HAS_UPLO, API_BOTH, "layout before uplo", {{F_LAYOUT, 0}, {F_UPLO, 0}},
     CLHGEMM_INVALID_LAYOUT},
    {HAS_UPLO, API_BOTH, "uplo before n", {{F_UPLO, 0}, {F_N, -1}}, CLHGEMM_INVALID_UPLO},
    {HAS_TRANS, API_BOTH, "trans 0", {{F_TRANS, 0}}, CLHGEMM_INVALID_TRANS},
    {HAS_TRANS, API_BOTH, "trans 110", {{F_TRANS, 110}}, CLHGEMM_INVALID_TRANS},
    {HAS_TRANS, API_BOTH, "trans 114", {{F_TRANS, 114}}, CLHGEMM_INVALID_TRANS},
    {HAS_TRANS, API_BOTH, "trans 121 (an uplo)", {{F_TRANS, CLHGEMM_UPPER}}, CLHGEMM_INVALID_TRANS},
    {HAS_TRANS, API_BOTH, "layout before trans", {{F_LAYOUT, 0}, {F_TRANS, 0}},
     CLHGEMM_INVALID_LAYOUT},
    {HAS_TRANS, API_BOTH, "trans before n", {{F_TRANS, 0}, {F_N, -1}}, CLHGEMM_INVALID_TRANS},
    {B_(OP_ORMQR), API_HOST, "side 0", {{F_SIDE, 0}}, CLHGEMM_INVALID_SIDE},
    {B_(OP_ORMQR), API_HOST, "side 140", {{F_SIDE, 140}}, CLHGEMM_INVALID_SIDE},
    {B_(OP_ORMQR), API_HOST, "side 143", {{F_SIDE, 143}}, CLHGEMM_INVALID_SIDE},
    {B_(OP_ORMQR), API_HOST, "side before trans", {{F_SIDE, 0}, {F_TRANS, 0}},
     CLHGEMM_INVALID_SIDE},
    {B_(OP_ORMQR) | B_(OP_GELS), API_HOST, "trans before m", {{F_TRANS, 0}, {F_M, -1}},
     CLHGEMM_INVALID_TRANS},
    {HAS_M, API_BOTH, "m -1", {{F_M, -1}}, CLHGEMM_INVALID_M},
    {HAS_M, API_BOTH, "m INT_MIN", {{F_M, INT_MIN}}, CLHGEMM_INVALID_M},
    {HAS_M, API_BOTH, "m before n", {{F_M, -1}, {F_N, -1}}, CLHGEMM_INVALID_M},
    {ALL_OPS, API_BOTH, "n -1", {{F_N, -1}}, CLHGEMM_INVALID_N},
    {ALL_OPS, API_BOTH, "n INT_MIN", {{F_N, INT_MIN}}, CLHGEMM_INVALID_N},
    {B_(OP_ORGQR), API_HOST, "n > m (orgqr)", {{F_N_M, 1}}, CLHGEMM_INVALID_N},
    {HAS_K, API_HOST, "k -1", {{F_K, -1}}, CLHGEMM_INVALID_K},
    {B_(OP_ORMQR), API_HOST, "k > nq (ormqr)", {{F_K_NQ, 1}}, CLHGEMM_INVALID_K},
    {B_(OP_ORGQR), API_HOST, "k > n (orgqr)", {{F_K_N, 1}}, CLHGEMM_INVALID_K},
    {HAS_K, API_HOST, "n before k", {{F_N, -1}, {F_K, -1}}, CLHGEMM_INVALID_N},
    {HAS_K, API_HOST, "k before lda", {{F_K, -1}, {F_LDA, 0}}, CLHGEMM_INVALID_K},
    {HAS_NRHS, API_BOTH, "nrhs -1", {{F_NRHS, -1}}, CLHGEMM_INVALID_NRHS},
    {HAS_NRHS, API_BOTH, "n before nrhs", {{F_N, -1}, {F_NRHS, -1}}, CLHGEMM_INVALID_N},
    {HAS_NRHS, API_BOTH, "nrhs before lda", {{F_NRHS, -1}, {F_LDA, 0}}, CLHGEMM_INVALID_NRHS},
    {ALL_OPS, API_BOTH, "lda = least - 1", {{F_LDA_MIN, -1}}, CLHGEMM_INVALID_LDA},
    {ALL_OPS, API_BOTH, "lda 0", {{F_LDA, 0}}, CLHGEMM_INVALID_LDA},
    {ALL_OPS, API_BOTH, "lda -1", {{F_LDA, -1}}, CLHGEMM_INVALID_LDA},
    {ALL_OPS, API_BOTH, "n before lda", {{F_N, -1}, {F_LDA, 0}}, CLHGEMM_INVALID_N},
    {HAS_B, API_BOTH, "ldb = least - 1", {{F_LDB_MIN, -1}}, CLHGEMM_INVALID_LDB},
    {HAS_B, API_BOTH, "ldb 0", {{F_LDB, 0}}, CLHGEMM_INVALID_LDB},
    {HAS_B, API_BOTH, "lda before ldb", {{F_LDA, 0}, {F_LDB, 0}}, CLHGEMM_INVALID_LDA},
    {ALL_OPS, API_BOTH, "size overflow", {{F_HUGE, 1}}, CLHGEMM_SIZE_OVERFLOW},
    {ALL_OPS, API_BOTH, "lda before size overflow", {{F_HUGE, 1}, {F_LDA, 0}}, CLHGEMM_INVALID_LDA},
    {ALL_OPS, API_BOTH, "size overflow before A NULL", {{F_HUGE, 1}, {F_NULL_A, 1}},
     CLHGEMM_SIZE_OVERFLOW},
    {ALL_OPS, API_HOST, "handle before size overflow", {{F_HUGE, 1}, {F_NULL_H, 1}},
     CLHGEMM_NULL_HANDLE},
    {ALL_OPS, API_BOTH, "lda before A NULL", {{F_LDA, 0}, {F_NULL_A, 1}}, CLHGEMM_INVALID_LDA},
    {HAS_B, API_BOTH, "ldb before A NULL", {{F_LDB, 0}, {F_NULL_A, 1}}, CLHGEMM_INVALID_LDB},
    {CL_OPS, API_CL, "queue NULL", {{F_NULL_Q, 1}}, CLHGEMM_INVALID_QUEUE},
    {CL_OPS, API_CL, "lda before queue", {{F_LDA, 0}, {F_NULL_Q, 1}}, CLHGEMM_INVALID_LDA},
    {CL_OPS, API_CL, "size overflow before queue", {{F_HUGE, 1}, {F_NULL_Q, 1}},
     CLHGEMM_SIZE_OVERFLOW},
    {CL_OPS, API_CL, "queue before A", {{F_NULL_Q, 1}, {F_NULL_A, 1}}, CLHGEMM_INVALID_QUEUE},
    {ALL_OPS, API_BOTH, "A NULL", {{F_NULL_A, 1}}, CLHGEMM_NULL_BUFFER_A},
    {CL_OPS, API_CL, "A one element short (offset + 1)", {{F_OFFA, 1}},
     CLHGEMM_INSUFFICIENT_BUFFER_A},
    {CL_OPS, API_CL, "A of another context", {{F_CTX_A, 1}}, CLHGEMM_CONTEXT_MISMATCH},
    {HAS_IPIV, API_BOTH, "ipiv NULL", {{F_NULL_IPIV, 1}}, CLHGEMM_NULL_IPIV},
    {HAS_IPIV, API_BOTH, "A before ipiv", {{F_NULL_A, 1}, {F_NULL_IPIV, 1}}, CLHGEMM_NULL_BUFFER_A},
    {HAS_TAU, API_BOTH, "tau NULL", {{F_NULL_TAU, 1}}, CLHGEMM_NULL_TAU},
    {HAS_TAU, API_BOTH, "A before tau", {{F_NULL_A, 1}, {F_NULL_TAU, 1}}, CLHGEMM_NULL_BUFFER_A},
    {HAS_B, API_BOTH, "B NULL", {{F_NULL_B, 1}}, CLHGEMM_NULL_BUFFER_B},
    {CL_OPS & HAS_B, API_CL, "B one element short (offset + 1)", {{F_OFFB, 1}},
     CLHGEMM_INSUFFICIENT_BUFFER_B},
    {CL_OPS & HAS_B, API_CL, "B of another context", {{F_CTX_B, 1}}, CLHGEMM_CONTEXT_MISMATCH},
    {HAS_B, API_BOTH, "A before B", {{F_NULL_A, 1}, {F_NULL_B, 1}}, CLHGEMM_NULL_BUFFER_A},
    {B_(OP_GETRS) | B_(OP_GESV), API_BOTH, "ipiv before B", {{F_NULL_IPIV, 1}, {F_NULL_B, 1}},
     CLHGEMM_NULL_IPIV},
    {B_(OP_ORMQR), API_HOST, "tau before C", {{F_NULL_TAU, 1}, {F_NULL_B, 1}}, CLHGEMM_NULL_TAU},
    {HAS_INFO, API_BOTH, "info NULL", {{F_NULL_INFO, 1}}, CLHGEMM_NULL_INFO},
    {HAS_INFO, API_BOTH, "A before info", {{F_NULL_A, 1}, {F_NULL_INFO, 1}}, CLHGEMM_NULL_BUFFER_A},
    {HAS_INFO & HAS_B, API_BOTH, "B before info", {{F_NULL_B, 1}, {F_NULL_INFO, 1}},
     CLHGEMM_NULL_BUFFER_B},
};

/* What a table row runs with: the call and which pointers are NULL or wrong. */
typedef struct astate_s {
    fc_t c;
    int null_h, null_a, null_b, null_ipiv, null_tau, null_info, null_q, ctx_a, ctx_b;
} astate_t;

static void apply(astate_t *s, const mod_t *m)
{
    fc_t *c = &s->c;
    int ar, ac, br, bc;
    shapes(c, &ar, &ac, &br, &bc);
    switch (m->f) {
    case F_LAYOUT: c->layout = m->v; break;
    case F_UPLO: c->uplo = m->v; break;
    case F_TRANS: c->trans = m->v; break;
    case F_SIDE: c->side = m->v; break;
    case F_M: c->m = m->v; break;
    case F_N: c->n = m->v; break;
    case F_K: c->k = m->v; break;
    case F_NRHS: c->nrhs = m->v; break;
    case F_LDA: c->lda = m->v; break;
    case F_LDB: c->ldb = m->v; break;
    case F_LDA_MIN: c->lda = min_ld(c, ar, ac) + m->v; break;
    case F_LDB_MIN: c->ldb = min_ld(c, br, bc) + m->v; break;
    case F_K_NQ: c->k = (c->side == CLHGEMM_LEFT ? c->m : c->n) + m->v; break;
    case F_N_M: c->n = c->m + m->v; break;
    case F_K_N: c->k = c->n + m->v; break;
    case F_HUGE:
        c->m = c->n = c->k = c->lda = c->ldb = INT_MAX;
        c->nrhs = 1;
        break;
    case F_NULL_H: s->null_h = 1; break;
    case F_NULL_A: s->null_a = 1; break;
    case F_NULL_B: s->null_b = 1; break;
    case F_NULL_IPIV: s->null_ipiv = 1; break;
    case F_NULL_TAU: s->null_tau = 1; break;
    case F_NULL_INFO: s->null_info = 1; break;
    case F_NULL_Q: s->null_q = 1; break;
    case F_OFFA: c->offa += (size_t)m->v; break;
    case F_OFFB: c->offb += (size_t)m->v; break;
    case F_CTX_A: s->ctx_a = 1; break;
    case F_CTX_B: s->ctx_b = 1; break;
    default: break;
    }
}

static clhgemm_status_t for_op(int op, clhgemm_status_t st)
{
    if (op != OP_ORMQR) return st;
    if (st == CLHGEMM_NULL_BUFFER_B) return CLHGEMM_NULL_BUFFER_C;
    if (st == CLHGEMM_INVALID_LDB) return CLHGEMM_INVALID_LDC;
    return st;
}

/* The device side of the argument tests: env's queue, and a second context for the mismatch. */
typedef struct clside_s {
    tc_env_t *env;
    cl_context ctx2;
} clside_t;

/* Runs one table row on the problem p (host: on h; cl: on the buffers made from p) and checks
 * the status and that nothing changed when it is not a success. */
static void run_row(clhgemm_handle_t h, const clside_t *cs, const prob_t *p, const acase_t *row_)
{
    astate_t s = {.c = p->c};
    for (int i = 0; i < 2; i++)
        apply(&s, &row_->m[i]);
    out_t o;
    if (out_init(&o, p)) {
        tc_tally(1);
        return;
    }
    char tag[512], d[256];
    describe(&p->c, d, sizeof d);
    snprintf(tag, sizeof tag, "args %s [%s]", d, row_->what);
    const clhgemm_status_t want = for_op(p->c.op, row_->want);
    clhgemm_status_t st;
    int rc = 0;
    int *info = s.null_info ? NULL : &o.info;
    int *ipiv = s.null_ipiv ? NULL : o.ipiv;
    void *tau = s.null_tau ? NULL : o.tau;
    if (!p->c.cl) {
        st = call_host(s.null_h ? NULL : h, &s.c, s.null_a ? NULL : o.a, s.null_b ? NULL : o.b,
                       ipiv, tau, info);
    } else {
        /* buffers exactly as large as the base call needs */
        const cl_context ctx = cs->env->ctx;
        cl_mem A = tc_buffer_from_host(s.ctx_a ? cs->ctx2 : ctx, p->a0, p->na * p->es);
        cl_mem B = tc_buffer_from_host(s.ctx_b ? cs->ctx2 : ctx, p->b0, p->nb * p->es);
        st = call_cl(s.null_q ? NULL : cs->env->queue, &s.c, s.null_a ? NULL : A,
                     s.null_b ? NULL : B, ipiv, tau, info);
        if (st != CLHGEMM_SUCCESS) { /* the buffers' contents too must be as they were */
            if (!s.ctx_a) rc |= tc_read(cs->env->queue, A, o.a, p->na * p->es);
            if (!s.ctx_b) rc |= tc_read(cs->env->queue, B, o.b, p->nb * p->es);
        }
        clReleaseMemObject(A);
        clReleaseMemObject(B);
    }
    if (st != want) {
        fprintf(stderr, "FAIL %s: status %s (%d), want %s (%d)\n", tag, clhgemm_status_string(st),
                (int)st, clhgemm_status_string(want), (int)want);
        rc = 1;
    }
    if (st != CLHGEMM_SUCCESS &&
        (memcmp(o.a, p->a0, p->na * p->es) || memcmp(o.b, p->b0, p->nb * p->es) ||
         memcmp(o.tau, p->tau0, p->ntau * p->es) ||
         memcmp(o.ipiv, p->ipiv0, p->npiv * sizeof(int)) || o.info != POISON_INFO)) {
        fprintf(stderr, "FAIL %s: a rejected call wrote A, B, tau, ipiv or info\n", tag);
        rc = 1;
    }
    out_free(&o);
    tc_tally(rc);
}

/* The base call of the argument tests: small, every argument valid. */
static fc_t base_call(int op, int dbl, int cl, int layout, int v)
{
    fc_t c = {.op = op, .dbl = dbl, .cl = cl, .layout = layout, .m = 5, .n = 4, .k = 3, .nrhs = 2};
    c.uplo = v ? CLHGEMM_UPPER : CLHGEMM_LOWER;
    c.trans = v ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    c.side = v ? CLHGEMM_RIGHT : CLHGEMM_LEFT;
    if (cl) {
        c.offa = 3;
        c.offb = 2;
    }
    return c;
}

static void mode_args(clhgemm_handle_t h, const clside_t *cs, int fp64, tc_rng_t *rng)
{
    for (int dbl = 0; dbl <= fp64; dbl++)
        for (int cl = 0; cl < 2; cl++)
            for (int op = 0; op < NOPS; op++) {
                if (cl && !HAS(CL_OPS, op)) continue;
                for (int l = 0; l < 2; l++)
                    for (int v = 0; v < 2; v++) {
                        const fc_t c =
                            base_call(op, dbl, cl, l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR, v);
                        prob_t p;
                        if (prob_init(&p, &c, 2, rng)) {
                            tc_tally(1);
                            continue;
                        }
                        for (size_t r = 0; r < sizeof g_args / sizeof g_args[0]; r++)
                            if (HAS(g_args[r].ops, op) &&
                                (g_args[r].api & (cl ? API_CL : API_HOST)))
                                run_row(h, cs, &p, &g_args[r]);
                        prob_free(&p);
                    }
            }
}

/* ---- quick returns ------------------------------------------------------------------------ */

enum { N_A = 1, N_B = 2, N_IPIV = 4, N_TAU = 8 };
typedef struct qcase_s {
    unsigned ops;
    int api;
    const char *what;
    mod_t m[3];
    int nulls;   /* pointers passed NULL */
    int factors; /* A is factored all the same (only the NULL pointer is the point) */
    int zero_b;  /* gels's zero solution: B's max(m, n) x nrhs := 0 */
} qcase_t;

static const qcase_t g_quick[] = {
    {ALL_OPS & ~B_(OP_GELS), API_BOTH, "n = 0", {{F_N, 0}, {F_K, 0}}, N_A | N_B | N_IPIV | N_TAU, 0,
     0},
    {HAS_M & ~B_(OP_GELS) & ~B_(OP_ORGQR), API_BOTH, "m = 0", {{F_M, 0}, {F_K, 0}},
     N_A | N_B | N_IPIV | N_TAU, 0, 0},
    {B_(OP_ORGQR), API_HOST, "m = n = k = 0", {{F_M, 0}, {F_N, 0}, {F_K, 0}}, N_A | N_TAU, 0, 0},
    {B_(OP_POTRS) | B_(OP_GETRS) | B_(OP_GELS), API_BOTH, "nrhs = 0", {{F_NRHS, 0}},
     N_A | N_B | N_IPIV, 0, 0},
    {B_(OP_ORMQR), API_HOST, "k = 0", {{F_K, 0}}, N_A | N_B | N_TAU, 0, 0},
    {B_(OP_POSV) | B_(OP_GESV), API_HOST, "nrhs = 0: B unread", {{F_NRHS, 0}}, N_B, 1, 0},
    {B_(OP_ORGQR), API_HOST, "k = 0: tau unread", {{F_K, 0}}, N_TAU, 1, 0},
    {B_(OP_GELS), API_HOST, "m = 0: B := 0", {{F_M, 0}}, N_A, 0, 1},
    {B_(OP_GELS), API_HOST, "n = 0: B := 0", {{F_N, 0}}, N_A, 0, 1},
    {B_(OP_GELS), API_HOST, "m = n = 0", {{F_M, 0}, {F_N, 0}}, N_A | N_B, 0, 0},
};

static void run_quick(clhgemm_handle_t h, tc_env_t *env, const prob_t *base, const qcase_t *q,
                      tc_rng_t *rng)
{
    fc_t c = base->c;
    astate_t s = {.c = c};
    for (int i = 0; i < 3; i++)
        apply(&s, &q->m[i]);
    s.c.lda = s.c.ldb = 0;
    prob_t p;
    if (prob_init(&p, &s.c, 1, rng)) {
        tc_tally(1);
        return;
    }
    out_t o;
    if (out_init(&o, &p)) {
        tc_tally(1);
        prob_free(&p);
        return;
    }
    char tag[512], d[256];
    describe(&p.c, d, sizeof d);
    snprintf(tag, sizeof tag, "quick %s [%s]", d, q->what);
    int *ipiv = q->nulls & N_IPIV ? NULL : o.ipiv;
    void *tau = q->nulls & N_TAU ? NULL : o.tau;
    clhgemm_status_t st;
    int rc = 0;
    if (!p.c.cl) {
        st = call_host(h, &p.c, q->nulls & N_A ? NULL : o.a, q->nulls & N_B ? NULL : o.b, ipiv, tau,
                       &o.info);
    } else {
        cl_mem A = q->nulls & N_A ? NULL : tc_buffer_from_host(env->ctx, p.a0, p.na * p.es);
        cl_mem B = q->nulls & N_B ? NULL : tc_buffer_from_host(env->ctx, p.b0, p.nb * p.es);
        st = call_cl(env->queue, &p.c, A, B, ipiv, tau, &o.info);
        if (A) rc |= tc_read(env->queue, A, o.a, p.na * p.es);
        if (B) rc |= tc_read(env->queue, B, o.b, p.nb * p.es);
        if (A) clReleaseMemObject(A);
        if (B) clReleaseMemObject(B);
    }
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: status %s, want success\n", tag, clhgemm_status_string(st));
        rc = 1;
    }
    if (HAS(HAS_INFO, p.c.op) && o.info != 0) {
        fprintf(stderr, "FAIL %s: info %d, want 0\n", tag, o.info);
        rc = 1;
    }
    void *want_b = malloc(p.nb * p.es);
    memcpy(want_b, p.b0, p.nb * p.es);
    if (q->zero_b) {
        int ar, ac, br, bc;
        shapes(&p.c, &ar, &ac, &br, &bc);
        for (int j = 0; j < bc; j++)
            for (int i = 0; i < br; i++)
                put(p.c.dbl, want_b, p.c.offb + at(&p.c, i, j, p.c.ldb), 0.0);
    }
    if ((!q->factors && memcmp(o.a, p.a0, p.na * p.es)) || memcmp(o.b, want_b, p.nb * p.es) ||
        memcmp(o.tau, p.tau0, p.ntau * p.es) ||
        (!q->factors && memcmp(o.ipiv, p.ipiv0, p.npiv * sizeof(int)))) {
        fprintf(stderr, "FAIL %s: wrote what it should not have%s\n", tag,
                q->zero_b ? " (or B is not 0)" : "");
        rc = 1;
    }
    free(want_b);
    out_free(&o);
    prob_free(&p);
    tc_tally(rc);
}

static void mode_quick(clhgemm_handle_t h, tc_env_t *env, int fp64, tc_rng_t *rng)
{
    for (int dbl = 0; dbl <= fp64; dbl++)
        for (int cl = 0; cl < 2; cl++)
            for (int op = 0; op < NOPS; op++) {
                if (cl && !HAS(CL_OPS, op)) continue;
                for (int l = 0; l < 2; l++)
                    for (int v = 0; v < 2; v++) {
                        prob_t base = {.c =
                                           base_call(op, dbl, cl,
                                                     l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR, v)};
                        for (size_t r = 0; r < sizeof g_quick / sizeof g_quick[0]; r++)
                            if (HAS(g_quick[r].ops, op) &&
                                (g_quick[r].api & (cl ? API_CL : API_HOST)))
                                run_quick(h, env, &base, &g_quick[r], rng);
                    }
            }
}

/* ---- results against the CPU LAPACK -------------------------------------------------------- */

static int variants(int op) { return op == OP_ORMQR ? 4 : HAS(HAS_UPLO | HAS_TRANS, op) ? 2 : 1; }

/* The routines that report a failing matrix in info, and run once more with one. */
#define CAN_FAIL (B_(OP_POTRF) | B_(OP_POSV) | B_(OP_GETRF) | B_(OP_GESV) | B_(OP_GELS))
/* (gels of 1 x 1: a zero A is LAPACK's zero solution, info 0) */
static int can_fail(int op, int si) { return HAS(CAN_FAIL, op) && !(op == OP_GELS && si == 0); }

/* The v-th variant at size index si (0 .. NSIZES-1) of op: 1, 7, 33 and both shapes of 7 x 33. */
#define NSIZES 5
static fc_t sized_call(int op, int dbl, int cl, int layout, int v, int si)
{
    static const int ms[NSIZES] = {1, 7, 33, 7, 33}, ns[NSIZES] = {1, 7, 7, 33, 33},
                     rs[NSIZES] = {1, 3, 7, 1, 5};
    fc_t c = {
        .op = op, .dbl = dbl, .cl = cl, .layout = layout, .m = ms[si], .n = ns[si], .nrhs = rs[si]};
    c.uplo = v & 1 ? CLHGEMM_UPPER : CLHGEMM_LOWER;
    c.trans = (op == OP_ORMQR ? v & 2 : v & 1) ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    c.side = op == OP_ORMQR && (v & 1) ? CLHGEMM_RIGHT : CLHGEMM_LEFT;
    if (op == OP_ORGQR) { /* m >= n >= k */
        if (c.m < c.n) {
            c.m = ns[si];
            c.n = ms[si];
        }
        c.k = si % 2 ? c.n / 2 : c.n;
    }
    if (op == OP_ORMQR) {
        const int nq = c.side == CLHGEMM_LEFT ? c.m : c.n;
        c.k = si % 2 ? nq / 2 : nq;
    }
    if (cl) {
        c.offa = 5;
        c.offb = 3;
    }
    return c;
}

/* One call against the reference; tol_a / tol_b: 0 bit for bit, else the tolerance factor. */
static void check_one(clhgemm_handle_t h, tc_env_t *env, const fc_t *c, double tol_a, double tol_b,
                      tc_rng_t *rng)
{
    prob_t p;
    out_t got, want;
    if (prob_init(&p, c, 3, rng) || out_init(&got, &p) || out_init(&want, &p)) {
        tc_tally(1);
        return;
    }
    char tag[512], d[256];
    describe(&p.c, d, sizeof d);
    snprintf(tag, sizeof tag, "%s %s", c->cl ? "device-buffer" : h ? "route" : "?", d);
    clhgemm_status_t st;
    int rc = 0;
    if (!c->cl) {
        st = call_host(h, &p.c, got.a, got.b, got.ipiv, got.tau, &got.info);
    } else {
        cl_mem A = tc_buffer_from_host(env->ctx, p.a0, p.na * p.es);
        cl_mem B = tc_buffer_from_host(env->ctx, p.b0, p.nb * p.es);
        st = call_cl(env->queue, &p.c, A, B, got.ipiv, got.tau, &got.info);
        rc |=
            tc_read(env->queue, A, got.a, p.na * p.es) | tc_read(env->queue, B, got.b, p.nb * p.es);
        clReleaseMemObject(A);
        clReleaseMemObject(B);
    }
    if (!HAS(HAS_INFO, c->op)) got.info = want.info;
    ref_run(&p, &want);
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: status %s\n", tag, clhgemm_status_string(st));
        rc = 1;
    } else {
        rc |= same_outputs(tag, &p, &got, &want, tol_a, tol_b);
        if ((c->sing && !(want.info > 0)) || (!c->sing && want.info != 0 && HAS(HAS_INFO, c->op))) {
            fprintf(
                stderr,
                "FAIL %s: the reference's info is %d: the problem is not what it is meant to be\n",
                tag, want.info);
            rc = 1;
        }
    }
    /* the device route's solves are the host TRSM's on the devices (the last step of these) */
    clhgemm_call_info_t inf;
    if (st == CLHGEMM_SUCCESS && h && !c->cl &&
        (c->op == OP_POTRS || c->op == OP_GETRS ||
         ((c->op == OP_POSV || c->op == OP_GESV) && !c->sing)) &&
        clhgemm_last_call_info(h, &inf) == CLHGEMM_SUCCESS) {
        const int cpu = tol_b == 0.0; /* the CPU route's calls are compared bit for bit */
        if (cpu ? !(inf.cpu_fraction == 1.0 && inf.devices_used == 0) : inf.devices_used < 1) {
            fprintf(stderr, "FAIL %s: last call info: devices_used %d, cpu_fraction %g\n", tag,
                    inf.devices_used, inf.cpu_fraction);
            rc = 1;
        }
    }
    out_free(&got);
    out_free(&want);
    prob_free(&p);
    tc_tally(rc);
}

/* The CPU route: bit for bit, but a row-major Cholesky's factor (the other triangle factored). */
static void mode_cpu(clhgemm_handle_t h, int fp64, tc_rng_t *rng)
{
    for (int dbl = 0; dbl <= fp64; dbl++)
        for (int op = 0; op < NOPS; op++)
            for (int l = 0; l < 2; l++)
                for (int v = 0; v < variants(op); v++)
                    for (int si = 0; si < NSIZES; si++)
                        for (int sing = 0; sing <= can_fail(op, si); sing++) {
                            fc_t c = sized_call(op, dbl, 0,
                                                l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR, v, si);
                            c.sing = sing;
                            const double tol_a = l && op == OP_POTRF ? 4.0 : 0.0;
                            check_one(h, NULL, &c, tol_a, 0.0, rng);
                        }
}

/* The device route and the device-buffer routines: within a tolerance (the drivers and the
 * TRSM's solves round differently from LAPACK), pivots and info exactly. */
#define DEVICE_TOL 256.0
static void mode_device(clhgemm_handle_t h, tc_env_t *env, int fp64, tc_rng_t *rng)
{
    for (int dbl = 0; dbl <= fp64; dbl++)
        for (int cl = 0; cl < 2; cl++)
            for (int op = 0; op < NOPS; op++) {
                if (cl && !HAS(CL_OPS, op)) continue;
                for (int l = 0; l < 2; l++)
                    for (int v = 0; v < variants(op); v++)
                        for (int si = 1; si < NSIZES; si++)
                            for (int sing = 0; sing <= can_fail(op, si); sing++) {
                                fc_t c = sized_call(
                                    op, dbl, cl, l ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR, v, si);
                                c.sing = sing;
                                check_one(h, env, &c, DEVICE_TOL, DEVICE_TOL, rng);
                            }
            }
}

/* ---- main --------------------------------------------------------------------------------- */

static clhgemm_handle_t create(const char *route)
{
    const char *was = getenv("CLHGEMM_ROUTE");
    char *saved = was ? strdup(was) : NULL;
    setenv("CLHGEMM_ROUTE", route, 1);
    clhgemm_handle_t h = NULL;
    const clhgemm_status_t st = clhgemm_create(&h, NULL);
    if (saved) {
        setenv("CLHGEMM_ROUTE", saved, 1);
        free(saved);
    } else {
        unsetenv("CLHGEMM_ROUTE");
    }
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL: clhgemm_create (CLHGEMM_ROUTE=%s): %s\n", route,
                clhgemm_status_string(st));
        return NULL;
    }
    return h;
}

int main(int argc, char **argv)
{
    const int skip = tc_require_feature();
    if (skip) return skip;
    const char *mode = argc > 1 ? argv[1] : "all";
    const int all = !strcmp(mode, "all");
    if (!all && strcmp(mode, "args") && strcmp(mode, "quick") && strcmp(mode, "cpu") &&
        strcmp(mode, "device")) {
        fprintf(stderr, "usage: test_lapack_args [all | args | quick | cpu | device]\n");
        return 2;
    }
    tc_env_t env;
    int rc = tc_open(&env);
    if (rc) return rc;
    tc_fail_print_limit(40);
    const int fp64 = env.has_fp64;
    clhgemm_handle_t hdev = create("device"), hcpu = create("cpu");
    cl_int err;
    const clside_t cs = {&env, clCreateContext(NULL, 1, &env.device, NULL, NULL, &err)};
    if (!hdev || !hcpu || !cs.ctx2) {
        fprintf(stderr, "FAIL: setup\n");
        return 1;
    }
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x1A9ACCULL);
    if (all || !strcmp(mode, "args")) mode_args(hdev, &cs, fp64, &rng);
    if (all || !strcmp(mode, "quick")) mode_quick(hdev, &env, fp64, &rng);
    if (all || !strcmp(mode, "cpu")) mode_cpu(hcpu, fp64, &rng);
    if (all || !strcmp(mode, "device")) mode_device(hdev, &env, fp64, &rng);
    clhgemm_destroy(hdev);
    clhgemm_destroy(hcpu);
    clReleaseContext(cs.ctx2);
    tc_close(&env);
    printf("%d checks, %d failed%s\n", tc_checks(), tc_failures(),
           fp64 ? "" : " (no fp64: single only)");
    return tc_failures() ? 1 : 0;
}
