/*
 * bench_level3_ours.c -- clhgemm's calls in clhgemm-bench-level3: each routine and the GEMM it
 * stands for (gemm_map) on a job, enqueued on device buffers (clhgemm_{s,d}*_cl, with the SYR2K
 * mode set through CLHGEMM_SYR2K) or as the synchronous host-memory call on a handle (--host).
 * The translation of a job into clhgemm's arguments lives here once for both. A complex job
 * calls clhgemm_{c,z}* with its real alpha and beta in complex form (HERK's and HER2K's beta,
 * and HERK's alpha, real) and trans as the job means it (T, or C for HERK, HER2K).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_level3_int.h"

/* A job's flags as clhgemm's enums. */
typedef struct args_s {
    clhgemm_layout_t lay;
    clhgemm_side_t side;
    clhgemm_uplo_t uplo;
    clhgemm_transpose_t tr;
    clhgemm_diag_t dg;
    float fa, fb;
} args_t;

static args_t args_of(const job_t *j)
{
    args_t a;
    a.lay = j->row ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
    a.side = j->right ? CLHGEMM_RIGHT : CLHGEMM_LEFT;
    a.uplo = j->lower ? CLHGEMM_LOWER : CLHGEMM_UPPER;
    a.tr = j->trans ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
    a.dg = j->unit ? CLHGEMM_UNIT : CLHGEMM_NON_UNIT;
    a.fa = (float)j->alpha;
    a.fb = (float)j->beta;
    return a;
}

static clhgemm_transpose_t tp(int t) { return t ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS; }

/* ---- complex jobs ---------------------------------------------------------------------------- */

/* A complex job's arguments: the scalars as (re, im) pairs of the parts' type (al, be point at
 * them), HERK's and HER2K's trans a conjugate transpose. */
typedef struct cargs_s {
    args_t x;
    double da[2], db[2];
    float fa[2], fb[2];
    const void *al, *be;
} cargs_t;

/* Fills *c (whose al and be point into itself: filled in place, never copied). */
static void cargs_init(const job_t *j, cargs_t *c)
{
    c->x = args_of(j);
    if (j->trans && (j->r == R_HERK || j->r == R_HER2K)) c->x.tr = CLHGEMM_CONJ_TRANS;
    c->da[0] = j->alpha, c->da[1] = 0.0, c->db[0] = j->beta, c->db[1] = 0.0;
    c->fa[0] = (float)j->alpha, c->fa[1] = 0.0f, c->fb[0] = (float)j->beta, c->fb[1] = 0.0f;
    c->al = j->dbl ? (const void *)c->da : (const void *)c->fa;
    c->be = j->dbl ? (const void *)c->db : (const void *)c->fb;
}

/* The complex routine, on device buffers (P c or z, T the parts' type). */
#define ROUTINE_CL_C(P, T)                                                                         \
    static clhgemm_status_t routine_cl_##P(const job_t *j, const cargs_t *c, cl_event *ev)         \
    {                                                                                              \
        const args_t x = c->x;                                                                     \
        switch (j->r) {                                                                            \
        case R_SYMM:                                                                               \
        case R_HEMM:                                                                               \
            return (j->r == R_HEMM ? clhgemm_##P##hemm_cl : clhgemm_##P##symm_cl)(                 \
                x.lay, x.side, x.uplo, j->m, j->n, c->al, j->A, 0, j->lda, j->B, 0, j->ldb, c->be, \
                j->C, 0, j->ldc, j->q, ev);                                                        \
        case R_SYRK:                                                                               \
            return clhgemm_##P##syrk_cl(x.lay, x.uplo, x.tr, j->n, j->k, c->al, j->A, 0, j->lda,   \
                                        c->be, j->C, 0, j->ldc, j->q, ev);                         \
        case R_HERK:                                                                               \
            return clhgemm_##P##herk_cl(x.lay, x.uplo, x.tr, j->n, j->k, (T)j->alpha, j->A, 0,     \
                                        j->lda, (T)j->beta, j->C, 0, j->ldc, j->q, ev);            \
        case R_SYR2K:                                                                              \
            return clhgemm_##P##syr2k_cl(x.lay, x.uplo, x.tr, j->n, j->k, c->al, j->A, 0, j->lda,  \
                                         j->B, 0, j->ldb, c->be, j->C, 0, j->ldc, j->q, ev);       \
        case R_HER2K:                                                                              \
            return clhgemm_##P##her2k_cl(x.lay, x.uplo, x.tr, j->n, j->k, c->al, j->A, 0, j->lda,  \
                                         j->B, 0, j->ldb, (T)j->beta, j->C, 0, j->ldc, j->q, ev);  \
        case R_TRMM:                                                                               \
            return clhgemm_##P##trmm_cl(x.lay, x.side, x.uplo, x.tr, x.dg, j->m, j->n, c->al,      \
                                        j->A, 0, j->lda, j->B, 0, j->ldb, j->q, ev);               \
        default:                                                                                   \
            return clhgemm_##P##trsm_cl(x.lay, x.side, x.uplo, x.tr, x.dg, j->m, j->n, c->al,      \
                                        j->A, 0, j->lda, j->B, 0, j->ldb, j->q, ev);               \
        }                                                                                          \
    }
ROUTINE_CL_C(c, float)
ROUTINE_CL_C(z, double)
#undef ROUTINE_CL_C

/* The complex routine on host arrays (P c or z, T the parts' type). */
#define ROUTINE_HOST_C(P, T)                                                                       \
    static clhgemm_status_t routine_host_##P(clhgemm_handle_t h, const job_t *j, const cargs_t *c, \
                                             const hjob_t *y)                                      \
    {                                                                                              \
        const args_t x = c->x;                                                                     \
        switch (j->r) {                                                                            \
        case R_SYMM:                                                                               \
        case R_HEMM:                                                                               \
            return (j->r == R_HEMM ? clhgemm_##P##hemm : clhgemm_##P##symm)(                       \
                h, x.lay, x.side, x.uplo, j->m, j->n, c->al, y->A, j->lda, y->B, j->ldb, c->be,    \
                y->C, j->ldc);                                                                     \
        case R_SYRK:                                                                               \
            return clhgemm_##P##syrk(h, x.lay, x.uplo, x.tr, j->n, j->k, c->al, y->A, j->lda,      \
                                     c->be, y->C, j->ldc);                                         \
        case R_HERK:                                                                               \
            return clhgemm_##P##herk(h, x.lay, x.uplo, x.tr, j->n, j->k, (T)j->alpha, y->A,        \
                                     j->lda, (T)j->beta, y->C, j->ldc);                            \
        case R_SYR2K:                                                                              \
            return clhgemm_##P##syr2k(h, x.lay, x.uplo, x.tr, j->n, j->k, c->al, y->A, j->lda,     \
                                      y->B, j->ldb, c->be, y->C, j->ldc);                          \
        case R_HER2K:                                                                              \
            return clhgemm_##P##her2k(h, x.lay, x.uplo, x.tr, j->n, j->k, c->al, y->A, j->lda,     \
                                      y->B, j->ldb, (T)j->beta, y->C, j->ldc);                     \
        case R_TRMM:                                                                               \
            return clhgemm_##P##trmm(h, x.lay, x.side, x.uplo, x.tr, x.dg, j->m, j->n, c->al,      \
                                     y->A, j->lda, y->B, j->ldb);                                  \
        default:                                                                                   \
            return clhgemm_##P##trsm(h, x.lay, x.side, x.uplo, x.tr, x.dg, j->m, j->n, c->al,      \
                                     y->A, j->lda, y->B, j->ldb);                                  \
        }                                                                                          \
    }
ROUTINE_HOST_C(c, float)
ROUTINE_HOST_C(z, double)
#undef ROUTINE_HOST_C

/* ---- device buffers ------------------------------------------------------------------------ */

static void set_syr2k_mode(const char *mode)
{
    if (mode) setenv("CLHGEMM_SYR2K", mode, 1);
    else unsetenv("CLHGEMM_SYR2K");
}

/* The GEMM the routine stands for, on the job's buffers (into G for TRMM/TRSM). */
static clhgemm_status_t gemm_cl(const job_t *j, cl_event *ev)
{
    const args_t x = args_of(j);
    gemm_map_t g;
    gemm_map(j, &g);
    const cl_mem op[2] = {j->A, j->B};
    const int ld[2] = {j->lda, j->ldb};
    const cl_mem a = op[g.a_op], b = op[g.b_op], c = g.into_g ? j->G : j->C;
    const int lda = ld[g.a_op], ldb = ld[g.b_op], ldc = g.into_g ? j->ldb : j->ldc;
    if (j->cplx) {
        /* the complex GEMM of the same shape (HERK's, HER2K's conjugate transposes as plain
         * ones: the same work) */
        cargs_t z;
        cargs_init(j, &z);
        return (j->dbl ? clhgemm_zgemm_cl : clhgemm_cgemm_cl)(x.lay, tp(g.ta), tp(g.tb), g.m, g.n,
                                                              g.k, z.al, a, 0, lda, b, 0, ldb, z.be,
                                                              c, 0, ldc, j->q, ev);
    }
    return j->dbl ? clhgemm_dgemm_cl(x.lay, tp(g.ta), tp(g.tb), g.m, g.n, g.k, j->alpha, a, 0,
                                     lda, b, 0, ldb, j->beta, c, 0, ldc, j->q, ev)
                  : clhgemm_sgemm_cl(x.lay, tp(g.ta), tp(g.tb), g.m, g.n, g.k, x.fa, a, 0, lda,
                                     b, 0, ldb, x.fb, c, 0, ldc, j->q, ev);
}

/* The routine itself on the job's buffers. */
static clhgemm_status_t routine_cl(const job_t *j, cl_event *ev)
{
    const args_t x = args_of(j);
    if (j->cplx) {
        cargs_t z;
        cargs_init(j, &z);
        return j->dbl ? routine_cl_z(j, &z, ev) : routine_cl_c(j, &z, ev);
    }
    switch (j->r) {
    case R_SYMM:
        return j->dbl ? clhgemm_dsymm_cl(x.lay, x.side, x.uplo, j->m, j->n, j->alpha, j->A, 0,
                                         j->lda, j->B, 0, j->ldb, j->beta, j->C, 0, j->ldc, j->q,
                                         ev)
                      : clhgemm_ssymm_cl(x.lay, x.side, x.uplo, j->m, j->n, x.fa, j->A, 0, j->lda,
                                         j->B, 0, j->ldb, x.fb, j->C, 0, j->ldc, j->q, ev);
    case R_SYRK:
        return j->dbl ? clhgemm_dsyrk_cl(x.lay, x.uplo, x.tr, j->n, j->k, j->alpha, j->A, 0,
                                         j->lda, j->beta, j->C, 0, j->ldc, j->q, ev)
                      : clhgemm_ssyrk_cl(x.lay, x.uplo, x.tr, j->n, j->k, x.fa, j->A, 0, j->lda,
                                         x.fb, j->C, 0, j->ldc, j->q, ev);
    case R_SYR2K:
        return j->dbl ? clhgemm_dsyr2k_cl(x.lay, x.uplo, x.tr, j->n, j->k, j->alpha, j->A, 0,
                                          j->lda, j->B, 0, j->ldb, j->beta, j->C, 0, j->ldc, j->q,
                                          ev)
                      : clhgemm_ssyr2k_cl(x.lay, x.uplo, x.tr, j->n, j->k, x.fa, j->A, 0, j->lda,
                                          j->B, 0, j->ldb, x.fb, j->C, 0, j->ldc, j->q, ev);
    case R_TRMM:
        return j->dbl ? clhgemm_dtrmm_cl(x.lay, x.side, x.uplo, x.tr, x.dg, j->m, j->n, j->alpha,
                                         j->A, 0, j->lda, j->B, 0, j->ldb, j->q, ev)
                      : clhgemm_strmm_cl(x.lay, x.side, x.uplo, x.tr, x.dg, j->m, j->n, x.fa,
                                         j->A, 0, j->lda, j->B, 0, j->ldb, j->q, ev);
    default:
        return j->dbl ? clhgemm_dtrsm_cl(x.lay, x.side, x.uplo, x.tr, x.dg, j->m, j->n, j->alpha,
                                         j->A, 0, j->lda, j->B, 0, j->ldb, j->q, ev)
                      : clhgemm_strsm_cl(x.lay, x.side, x.uplo, x.tr, x.dg, j->m, j->n, x.fa,
                                         j->A, 0, j->lda, j->B, 0, j->ldb, j->q, ev);
    }
}

/* Enqueues library lib (L_OURS, L_ALT: the routine, SYR2K in the mode --syr2k gives it;
 * L_GEMM: the GEMM) on the job's queue; *ev its event. 0, or -1 with why. */
int ours_enqueue(int lib, const job_t *j, const char *syr2k, cl_event *ev, char *why, size_t wl)
{
    clhgemm_status_t st;
    if (lib == L_GEMM) {
        st = gemm_cl(j, ev);
    } else {
        if (j->r == R_SYR2K && syr2k && !j->cplx)
            set_syr2k_mode(!strcmp(syr2k, "both") ? (lib == L_ALT ? "two" : "fused") : syr2k);
        st = routine_cl(j, ev);
    }
    if (st != CLHGEMM_SUCCESS) {
        snprintf(why, wl, "%s: %s (%d)", lname[lib], clhgemm_status_string(st), (int)st);
        return -1;
    }
    return 0;
}

/* ---- host memory (--host) ------------------------------------------------------------------ */

/* The GEMM the routine stands for, on the job's host arrays (the operands of gemm_cl). */
static clhgemm_status_t gemm_host(clhgemm_handle_t h, const job_t *j, const hjob_t *x)
{
    const args_t s = args_of(j);
    gemm_map_t g;
    gemm_map(j, &g);
    const void *const op[2] = {x->A, x->B};
    const int ld[2] = {j->lda, j->ldb};
    const void *a = op[g.a_op], *b = op[g.b_op];
    void *c = g.into_g ? x->G : x->C;
    const int lda = ld[g.a_op], ldb = ld[g.b_op], ldc = g.into_g ? j->ldb : j->ldc;
    if (j->cplx) {
        cargs_t z;
        cargs_init(j, &z);
        return (j->dbl ? clhgemm_zgemm : clhgemm_cgemm)(h, s.lay, tp(g.ta), tp(g.tb), g.m, g.n, g.k,
                                                        z.al, a, lda, b, ldb, z.be, c, ldc);
    }
    return j->dbl ? clhgemm_dgemm(h, s.lay, tp(g.ta), tp(g.tb), g.m, g.n, g.k, j->alpha, a, lda,
                                  b, ldb, j->beta, c, ldc)
                  : clhgemm_sgemm(h, s.lay, tp(g.ta), tp(g.tb), g.m, g.n, g.k, s.fa, a, lda, b,
                                  ldb, s.fb, c, ldc);
}

/* One synchronous host-memory call: the routine (L_OURS) or the GEMM it stands for (L_GEMM). */
clhgemm_status_t host_once(clhgemm_handle_t h, int lib, const job_t *j, const hjob_t *x)
{
    const args_t s = args_of(j);
    if (lib == L_GEMM) return gemm_host(h, j, x);
    if (j->cplx) {
        cargs_t z;
        cargs_init(j, &z);
        return j->dbl ? routine_host_z(h, j, &z, x) : routine_host_c(h, j, &z, x);
    }
    switch (j->r) {
    case R_SYMM:
        return j->dbl ? clhgemm_dsymm(h, s.lay, s.side, s.uplo, j->m, j->n, j->alpha, x->A, j->lda,
                                      x->B, j->ldb, j->beta, x->C, j->ldc)
                      : clhgemm_ssymm(h, s.lay, s.side, s.uplo, j->m, j->n, s.fa, x->A, j->lda,
                                      x->B, j->ldb, s.fb, x->C, j->ldc);
    case R_SYRK:
        return j->dbl ? clhgemm_dsyrk(h, s.lay, s.uplo, s.tr, j->n, j->k, j->alpha, x->A, j->lda,
                                      j->beta, x->C, j->ldc)
                      : clhgemm_ssyrk(h, s.lay, s.uplo, s.tr, j->n, j->k, s.fa, x->A, j->lda, s.fb,
                                      x->C, j->ldc);
    case R_SYR2K:
        return j->dbl ? clhgemm_dsyr2k(h, s.lay, s.uplo, s.tr, j->n, j->k, j->alpha, x->A, j->lda,
                                       x->B, j->ldb, j->beta, x->C, j->ldc)
                      : clhgemm_ssyr2k(h, s.lay, s.uplo, s.tr, j->n, j->k, s.fa, x->A, j->lda,
                                       x->B, j->ldb, s.fb, x->C, j->ldc);
    case R_TRMM:
        return j->dbl ? clhgemm_dtrmm(h, s.lay, s.side, s.uplo, s.tr, s.dg, j->m, j->n, j->alpha,
                                      x->A, j->lda, x->B, j->ldb)
                      : clhgemm_strmm(h, s.lay, s.side, s.uplo, s.tr, s.dg, j->m, j->n, s.fa,
                                      x->A, j->lda, x->B, j->ldb);
    default:
        return j->dbl ? clhgemm_dtrsm(h, s.lay, s.side, s.uplo, s.tr, s.dg, j->m, j->n, j->alpha,
                                      x->A, j->lda, x->B, j->ldb)
                      : clhgemm_strsm(h, s.lay, s.side, s.uplo, s.tr, s.dg, j->m, j->n, s.fa,
                                      x->A, j->lda, x->B, j->ldb);
    }
}
