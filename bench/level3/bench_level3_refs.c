/*
 * bench_level3_refs.c -- the references of clhgemm-bench-level3, each compiled only where the
 * benchmark is built with it: CLBlast's same routine on the same device buffers and queue,
 * OpenBLAS's cblas_{s,d}trsm (TRSM's reference solution), cublasXt's TRSM on the same pageable
 * arrays (--host, bench/cuda/cublasxt_ref.c), and cuBLAS's TRSM and GEMM of the same size from
 * the same host data on CUDA device 0 (TRSM rows on device buffers, bench/cuda/cublas_ref.c).
 * Apart from ours so that the optional headers stay in one file.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "bench_level3_int.h"

#ifdef CLHGEMM_HAVE_CLBLAST
#include <clblast_c.h>
#endif
#ifdef CLHGEMM_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef CLHGEMM_HAVE_CUBLASXT
#include "cuda/cublasxt_ref.h"
#endif
#ifdef CLHGEMM_HAVE_CUBLAS
#include "cuda/cublas_ref.h"
#endif

#ifdef CLHGEMM_HAVE_CLBLAST
/* CLBlast's complex routine of the job (P C or Z, T2 cl_float2 / cl_double2, R the parts' type):
 * HERK's and HER2K's trans is CLBlast's conjugate transpose. */
#define CLBLAST_CZ(P, T2, R)                                                                       \
    static CLBlastStatusCode clblast_##P(const job_t *j, CLBlastLayout cl, CLBlastSide cs,         \
                                         CLBlastTriangle ct, CLBlastTranspose cT,                  \
                                         CLBlastDiagonal cd, cl_command_queue *q, cl_event *ev)    \
    {                                                                                              \
        const T2 al = {{(R)j->alpha, 0}}, be = {{(R)j->beta, 0}};                                  \
        const size_t m = (size_t)j->m, n = (size_t)j->n, k = (size_t)j->k;                         \
        const size_t lda = (size_t)j->lda, ldb = (size_t)j->ldb, ldc = (size_t)j->ldc;             \
        const CLBlastTranspose cH = j->trans ? CLBlastTransposeConjugate : CLBlastTransposeNo;     \
        switch (j->r) {                                                                            \
        case R_SYMM:                                                                               \
            return CLBlast##P##symm(cl, cs, ct, m, n, al, j->A, 0, lda, j->B, 0, ldb, be, j->C, 0, \
                                    ldc, q, ev);                                                   \
        case R_HEMM:                                                                               \
            return CLBlast##P##hemm(cl, cs, ct, m, n, al, j->A, 0, lda, j->B, 0, ldb, be, j->C, 0, \
                                    ldc, q, ev);                                                   \
        case R_SYRK:                                                                               \
            return CLBlast##P##syrk(cl, ct, cT, n, k, al, j->A, 0, lda, be, j->C, 0, ldc, q, ev);  \
        case R_HERK:                                                                               \
            return CLBlast##P##herk(cl, ct, cH, n, k, (R)j->alpha, j->A, 0, lda, (R)j->beta, j->C, \
                                    0, ldc, q, ev);                                                \
        case R_SYR2K:                                                                              \
            return CLBlast##P##syr2k(cl, ct, cT, n, k, al, j->A, 0, lda, j->B, 0, ldb, be, j->C,   \
                                     0, ldc, q, ev);                                               \
        case R_HER2K:                                                                              \
            return CLBlast##P##her2k(cl, ct, cH, n, k, al, j->A, 0, lda, j->B, 0, ldb, (R)j->beta, \
                                     j->C, 0, ldc, q, ev);                                         \
        case R_TRMM:                                                                               \
            return CLBlast##P##trmm(cl, cs, ct, cT, cd, m, n, al, j->A, 0, lda, j->B, 0, ldb, q,   \
                                    ev);                                                           \
        default:                                                                                   \
            return CLBlast##P##trsm(cl, cs, ct, cT, cd, m, n, al, j->A, 0, lda, j->B, 0, ldb, q,   \
                                    ev);                                                           \
        }                                                                                          \
    }
CLBLAST_CZ(C, cl_float2, float)
CLBLAST_CZ(Z, cl_double2, double)
#undef CLBLAST_CZ
#endif

/* CLBlast's routine of the job, enqueued on the job's queue; *ev its event. 0, or -1 with why
 * (also where the benchmark is built without CLBlast). */
int clblast_enqueue(const job_t *j, cl_event *ev, char *why, size_t wl)
{
#ifdef CLHGEMM_HAVE_CLBLAST
    const float fa = (float)j->alpha, fb = (float)j->beta;
    const CLBlastLayout cl = j->row ? CLBlastLayoutRowMajor : CLBlastLayoutColMajor;
    const CLBlastSide cs = j->right ? CLBlastSideRight : CLBlastSideLeft;
    const CLBlastTriangle ct = j->lower ? CLBlastTriangleLower : CLBlastTriangleUpper;
    const CLBlastTranspose cT = j->trans ? CLBlastTransposeYes : CLBlastTransposeNo;
    const CLBlastDiagonal cd = j->unit ? CLBlastDiagonalUnit : CLBlastDiagonalNonUnit;
    const size_t m = (size_t)j->m, n = (size_t)j->n, k = (size_t)j->k;
    const size_t lda = (size_t)j->lda, ldb = (size_t)j->ldb, ldc = (size_t)j->ldc;
    cl_command_queue q = j->q;
    CLBlastStatusCode s;
    switch (j->cplx ? -1 : j->r) {
    case -1:
        s = (j->dbl ? clblast_Z : clblast_C)(j, cl, cs, ct, cT, cd, &q, ev);
        break;
    case R_SYMM:
        s = j->dbl ? CLBlastDsymm(cl, cs, ct, m, n, j->alpha, j->A, 0, lda, j->B, 0, ldb, j->beta,
                                  j->C, 0, ldc, &q, ev)
                   : CLBlastSsymm(cl, cs, ct, m, n, fa, j->A, 0, lda, j->B, 0, ldb, fb, j->C, 0,
                                  ldc, &q, ev);
        break;
    case R_SYRK:
        s = j->dbl ? CLBlastDsyrk(cl, ct, cT, n, k, j->alpha, j->A, 0, lda, j->beta, j->C, 0, ldc,
                                  &q, ev)
                   : CLBlastSsyrk(cl, ct, cT, n, k, fa, j->A, 0, lda, fb, j->C, 0, ldc, &q, ev);
        break;
    case R_SYR2K:
        s = j->dbl ? CLBlastDsyr2k(cl, ct, cT, n, k, j->alpha, j->A, 0, lda, j->B, 0, ldb, j->beta,
                                   j->C, 0, ldc, &q, ev)
                   : CLBlastSsyr2k(cl, ct, cT, n, k, fa, j->A, 0, lda, j->B, 0, ldb, fb, j->C, 0,
                                   ldc, &q, ev);
        break;
    case R_TRMM:
        s = j->dbl ? CLBlastDtrmm(cl, cs, ct, cT, cd, m, n, j->alpha, j->A, 0, lda, j->B, 0, ldb,
                                  &q, ev)
                   : CLBlastStrmm(cl, cs, ct, cT, cd, m, n, fa, j->A, 0, lda, j->B, 0, ldb, &q,
                                  ev);
        break;
    default:
        s = j->dbl ? CLBlastDtrsm(cl, cs, ct, cT, cd, m, n, j->alpha, j->A, 0, lda, j->B, 0, ldb,
                                  &q, ev)
                   : CLBlastStrsm(cl, cs, ct, cT, cd, m, n, fa, j->A, 0, lda, j->B, 0, ldb, &q,
                                  ev);
        break;
    }
    if (s != CLBlastSuccess) {
        snprintf(why, wl, "CLBlast status %d", (int)s);
        return -1;
    }
    return 0;
#else
    (void)j, (void)ev;
    snprintf(why, wl, "not built with CLBlast");
    return -1;
#endif
}

/* TRSM's reference solution by OpenBLAS: X := B0, then cblas_{s,d}trsm in the job's layout.
 * Returns 0, or -1 where the benchmark is built without OpenBLAS. */
int blas_trsm_ref(const job_t *jb, const void *A, const void *B0, void *X)
{
#ifdef CLHGEMM_HAVE_OPENBLAS
    memcpy(X, B0, jb->nb * job_es(jb));
    const CBLAS_ORDER lay = jb->row ? CblasRowMajor : CblasColMajor;
    const CBLAS_SIDE side = jb->right ? CblasRight : CblasLeft;
    const CBLAS_UPLO uplo = jb->lower ? CblasLower : CblasUpper;
    const CBLAS_TRANSPOSE tr = jb->trans ? CblasTrans : CblasNoTrans;
    const CBLAS_DIAG dg = jb->unit ? CblasUnit : CblasNonUnit;
    const double za[2] = {jb->alpha, 0.0};
    const float ca[2] = {(float)jb->alpha, 0.0f};
    if (jb->cplx && jb->dbl)
        cblas_ztrsm(lay, side, uplo, tr, dg, jb->m, jb->n, za, A, jb->lda, X, jb->ldb);
    else if (jb->cplx)
        cblas_ctrsm(lay, side, uplo, tr, dg, jb->m, jb->n, ca, A, jb->lda, X, jb->ldb);
    else if (jb->dbl)
        cblas_dtrsm(lay, side, uplo, tr, dg, jb->m, jb->n, jb->alpha, (const double *)A, jb->lda,
                    (double *)X, jb->ldb);
    else
        cblas_strsm(lay, side, uplo, tr, dg, jb->m, jb->n, (float)jb->alpha, (const float *)A,
                    jb->lda, (float *)X, jb->ldb);
    return 0;
#else
    (void)jb, (void)A, (void)B0, (void)X;
    return -1;
#endif
}

/* cublasXt's TRSM on the job's host arrays (x->B overwritten, restored from x->B0 before
 * every call): its timings into *rs, its solution checked like ours. Column-major only, so a
 * row-major job is solved as its transpose: side and uplo swapped, m and n swapped, transA
 * kept. Not counted as a failure of ours when it cannot run or is beyond tolerance. */
void host_xt(ctx_t *c, const job_t *j, const hjob_t *x, void *out, res_t *rs)
{
#ifdef CLHGEMM_HAVE_CUBLASXT
    const opts_t *o = &c->o;
    if (cublasxt_device_count() <= 0) {
        snprintf(rs->note, sizeof rs->note, "%s", cublasxt_last_error());
        return;
    }
    const int reps = o->reps, warmup = o->warmup > 0 ? o->warmup : 1; /* one untimed, as ours */
    const size_t m = (size_t)(j->row ? j->n : j->m), n = (size_t)(j->row ? j->m : j->n);
    int block = 0;
    if (cublasxt_trsm(j->dbl, j->right != j->row, j->lower != j->row, j->trans, j->unit, m, n,
                      j->alpha, x->A, (size_t)j->lda, x->B, x->B0, (size_t)j->ldb, o->xt_devices,
                      0, warmup, reps, &rs->med, &rs->min, &rs->max, &block)) {
        snprintf(rs->note, sizeof rs->note, "%s", cublasxt_last_error());
        printf("    cublasxt      failed: %s\n", rs->note);
        return;
    }
    rs->ran = 1;
    rs->gflops = flops_routine(j) / (rs->med * 1e6);
    snprintf(rs->note, sizeof rs->note, "%d device(s), block %d", o->xt_devices, block);
    if (o->check) {
        memcpy(out, x->B, j->nb * job_es(j));
        rs->err = cheap_check(j, x->A, x->B0, NULL, out);
    }
#else
    (void)c, (void)j, (void)x, (void)out;
    snprintf(rs->note, sizeof rs->note, "built without CUDA");
#endif
}

/* ---- cuBLAS (TRSM rows on device buffers) ---------------------------------------------------- */

#ifdef CLHGEMM_HAVE_CUBLAS
/* cuBLAS's call of column l failed: said in the job's lines (a reference: not a failure of the
 * run, as for CLBlast and cublasXt). */
static void cublas_failed(res_t *rs, int l)
{
    snprintf(rs->note, sizeof rs->note, "%s", cublas_ref_last_error());
    printf("    WARN: %s failed: %s\n", lname[l], rs->note);
}

/* cuBLAS's TRSM of the job from A and B (B's pristine values): timings into *rs, its solution
 * into X, given the cheap check. Column-major only, so a row-major job is solved as its
 * transpose, as host_xt does: side and uplo swapped, m and n swapped, transA kept. One untimed
 * call (X's) and the warm-ups before the reps, as ours has its first call and warm-ups. */
static void cublas_trsm_col(ctx_t *c, const job_t *j, const void *A, const void *B, void *X,
                            res_t *rs)
{
    const opts_t *o = &c->o;
    const int m = j->row ? j->n : j->m, n = j->row ? j->m : j->n;
    const int kind = (j->dbl ? CUBLAS_REF_D : CUBLAS_REF_S) + (j->cplx ? 2 : 0);
    if (cublas_ref_trsm_kind(kind, j->right != j->row, j->lower != j->row, j->trans, j->unit, m, n,
                             j->alpha, A, j->lda, B, j->ldb, o->warmup, o->reps, &rs->med,
                             &rs->min, &rs->max, X)) {
        cublas_failed(rs, L_CUBLAS);
        return;
    }
    rs->ran = 1;
    rs->gflops = flops_routine(j) / (rs->med * 1e6);
    if (o->check) rs->err = cheap_check(j, A, B, NULL, X);
}

/* cuBLAS's GEMM of the job's gemm_map on the host data our GEMM's buffers start from (its
 * factors among A and B, its output G from B or C from C0), the same alpha and beta: timings
 * into *rs at 2mnk. Column-major only, so a row-major C = op(a) op(b) is computed as C^T =
 * op(b)^T op(a)^T: the factors, their transposes and m, n swapped. One untimed call more than
 * the warm-ups, as ours has its first call. */
static void cublas_gemm_col(ctx_t *c, const job_t *j, const void *A, const void *B,
                            const void *C0, res_t *rs)
{
    const opts_t *o = &c->o;
    gemm_map_t g;
    gemm_map(j, &g);
    const void *op[2] = {A, B};
    const int ld[2] = {j->lda, j->ldb};
    const void *a = op[g.a_op], *b = op[g.b_op], *c0 = g.into_g ? B : C0;
    const int lda = ld[g.a_op], ldb = ld[g.b_op], ldc = g.into_g ? j->ldb : j->ldc;
    const int kind = (j->dbl ? CUBLAS_REF_D : CUBLAS_REF_S) + (j->cplx ? 2 : 0);
    const double al[2] = {j->alpha, 0.0}, be[2] = {j->beta, 0.0};
    const int rc = j->row ? cublas_ref_gemm_kind(kind, g.tb, g.ta, g.n, g.m, g.k, b, ldb, a, lda,
                                                 c0, ldc, al, be, o->warmup + 1, o->reps,
                                                 &rs->med, &rs->min, &rs->max, NULL)
                          : cublas_ref_gemm_kind(kind, g.ta, g.tb, g.m, g.n, g.k, a, lda, b, ldb,
                                                 c0, ldc, al, be, o->warmup + 1, o->reps,
                                                 &rs->med, &rs->min, &rs->max, NULL);
    if (rc) {
        cublas_failed(rs, L_CUBLAS_GEMM);
        return;
    }
    rs->ran = 1;
    rs->gflops = gemm_flops(j) / (rs->med * 1e6);
}
#endif

/* cuBLAS's columns of a TRSM row on device buffers, after ours (their reps run as one block):
 * cuBLAS's TRSM (its solution into X, given the cheap check here; OpenBLAS's comparison is the
 * caller's) and cuBLAS's GEMM of the same size, each from the job's host data (A, B, C0) on CUDA
 * device 0. Where they do not run, their notes say why (built without CUDA, --no-cublas, no CUDA
 * device); a call that fails, like a check beyond tolerance, is warned about (WARN). */
void dev_cublas(ctx_t *c, row_t *row, const job_t *j, const void *A, const void *B,
                const void *C0, void *X)
{
    res_t *t = &row->x[L_CUBLAS], *g = &row->x[L_CUBLAS_GEMM];
#ifdef CLHGEMM_HAVE_CUBLAS
    const char *why = !c->have_cublas ? "--no-cublas" : NULL;
    if (!why && !cublas_ref_available()) why = cublas_ref_last_error();
    if (!why) {
        cublas_trsm_col(c, j, A, B, X, t);
        cublas_gemm_col(c, j, A, B, C0, g);
        return;
    }
#else
    (void)j, (void)A, (void)B, (void)C0, (void)X;
    const char *why = c->o.cublas ? "built without CUDA" : "--no-cublas";
#endif
    snprintf(t->note, sizeof t->note, "%s", why);
    snprintf(g->note, sizeof g->note, "%s", why);
}
