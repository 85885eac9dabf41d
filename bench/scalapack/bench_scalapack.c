/*
 * bench_scalapack.c -- clhgemm-bench-scalapack: PDGEMM, PDPOTRF and PDGETRF of Debian's
 * ScaLAPACK over MPI, on whatever libblas.so.3 and liblapack.so.3 the ranks load (the drop-ins
 * through LD_LIBRARY_PATH, or OpenBLAS), for every grid, block size NB and order n asked.
 *
 *   mpirun -np R clhgemm-bench-scalapack [--routines gemm,potrf,getrf] [--sizes 4096,8192]
 *          [--nb 64,256,1024] [--grids 1x4,2x2] [--reps 1] [--check]
 *
 * Per run one line on rank 0: the time (the slowest rank), GFLOP/s, and where the ranks' time
 * went, the mean over the ranks of the grid: local level-3 calls (what a drop-in may offload),
 * local levels 1-2 and LAPACK (the panels), MPI (BLACS's calls), the rest (ScaLAPACK's own code,
 * copies); interpose.c measures them. At the end the best NB and grid for each routine and n.
 * Grids: every P x Q = R by default (1 x 4, 2 x 2 and 4 x 1 for 4 ranks); a grid of fewer ranks leaves the others idle for its runs.
 * --check: a residual per run (PDGEMM: C x against A (B x); the factorizations: solve A x = A 1
 * and compare x with 1), which needs a copy of A.
 * The matrix is a function of the global indices, the same on any grid: uniform in [-0.5, 0.5],
 * symmetric with n added to the diagonal for PDPOTRF, n on the diagonal for PDGETRF too.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scalapack/interpose.h"

/* BLACS and ScaLAPACK (Fortran interfaces but the BLACS C ones). */
void Cblacs_pinfo(int *me, int *nprocs);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int cont);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ctxt, const int *lld, int *info);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca,
             const double *b, const int *ib, const int *jb, const int *descb, const double *beta,
             double *c, const int *ic, const int *jc, const int *descc);
void pdgemv_(const char *t, const int *m, const int *n, const double *alpha, const double *a,
             const int *ia, const int *ja, const int *desca, const double *x, const int *ix,
             const int *jx, const int *descx, const int *incx, const double *beta, double *y,
             const int *iy, const int *jy, const int *descy, const int *incy);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *info);
void pdpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *ia,
              const int *ja, const int *desca, double *b, const int *ib, const int *jb,
              const int *descb, int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *ipiv, int *info);
void pdgetrs_(const char *t, const int *n, const int *nrhs, const double *a, const int *ia,
              const int *ja, const int *desca, const int *ipiv, double *b, const int *ib,
              const int *jb, const int *descb, int *info);

enum { R_GEMM, R_POTRF, R_GETRF, R_COUNT };
static const char *const rnames[R_COUNT] = {"pdgemm", "pdpotrf", "pdgetrf"};
#define MAXL 32

typedef struct {
    int routines[R_COUNT];
    int sizes[MAXL], nsizes, nbs[MAXL], nnb, grid_p[MAXL], grid_q[MAXL], ngrids, reps, check;
} opts_t;

typedef struct { /* one grid's context and this rank's place in it */
    int ctxt, p, q, row, col;
} grid_t;

typedef struct { /* a distributed n x n matrix (or n x 1 vector), this rank's part */
    int desc[9], mloc, nloc;
    double *a;
} dmat_t;

typedef struct { /* one run's result, rank 0's record */
    int r, n, nb, p, q;
    double secs, gflops, part[BSP_GROUPS], resid;
} result_t;

static int parse_list(const char *s, int *out, int max)
{
    int k = 0;
    for (char *e; *s && k < max; s = *e ? e + 1 : e) out[k++] = (int)strtol(s, &e, 10);
    return k;
}

static int parse_opts(int argc, char **argv, opts_t *o, int nprocs)
{
    memset(o, 0, sizeof *o);
    o->routines[R_GEMM] = o->routines[R_POTRF] = o->routines[R_GETRF] = 1;
    o->nsizes = parse_list("4096", o->sizes, MAXL);
    o->nnb = parse_list("64,256,1024", o->nbs, MAXL);
    o->reps = 1;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--routines")) {
            for (int r = 0; r < R_COUNT; r++) o->routines[r] = strstr(v, rnames[r] + 2) != NULL;
            i++;
        } else if (!strcmp(argv[i], "--sizes")) {
            o->nsizes = parse_list(v, o->sizes, MAXL), i++;
        } else if (!strcmp(argv[i], "--nb")) {
            o->nnb = parse_list(v, o->nbs, MAXL), i++;
        } else if (!strcmp(argv[i], "--grids")) {
            for (const char *s = v; *s && o->ngrids < MAXL; s = strchr(s, ',') ? strchr(s, ',') + 1 : "")
                if (sscanf(s, "%dx%d", &o->grid_p[o->ngrids], &o->grid_q[o->ngrids]) == 2)
                    o->ngrids++;
            i++;
        } else if (!strcmp(argv[i], "--reps")) {
            o->reps = atoi(v), i++;
        } else if (!strcmp(argv[i], "--check")) {
            o->check = 1;
        } else {
            return 0;
        }
    }
    const int given = o->ngrids > 0;
    for (int p = 1; !given && p <= nprocs; p++) /* every P x Q of all ranks */
        for (int q = 1; q <= nprocs; q++)
            if (p * q == nprocs && o->ngrids < MAXL) {
                o->grid_p[o->ngrids] = p;
                o->grid_q[o->ngrids++] = q;
            }
    for (int g = 0; g < o->ngrids; g++)
        if (o->grid_p[g] < 1 || o->grid_q[g] < 1 || o->grid_p[g] * o->grid_q[g] > nprocs) return 0;
    return o->nsizes > 0 && o->nnb > 0 && o->reps > 0;
}

/* Uniform in [-0.5, 0.5] from the global indices (a 64-bit mix, the same on any grid). */
static double entry(long i, long j)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15u ^ ((uint64_t)j + 0x632BE59BD9B4E019u);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9u;
    x ^= x >> 29;
    return (double)(x >> 11) * 0x1p-53 - 0.5;
}

static int dmat_init(dmat_t *m, const grid_t *g, int rows, int cols, int nb)
{
    static const int zero = 0;
    int info;
    m->mloc = numroc_(&rows, &nb, &g->row, &zero, &g->p);
    m->nloc = numroc_(&cols, &nb, &g->col, &zero, &g->q);
    int lld = m->mloc > 1 ? m->mloc : 1;
    descinit_(m->desc, &rows, &cols, &nb, &nb, &zero, &zero, &g->ctxt, &lld, &info);
    m->a = malloc(sizeof(double) * (size_t)lld * (size_t)(m->nloc > 1 ? m->nloc : 1));
    return info == 0 && m->a != NULL;
}

/* Fill with the generator; diag: n added to the diagonal; sym: entry(min, max). */
static void dmat_fill(dmat_t *m, const grid_t *g, int nb, long seed, int diag, int sym)
{
    const int lld = m->desc[8];
    for (int lj = 0; lj < m->nloc; lj++) {
        const long gj = ((long)(lj / nb) * g->q + g->col) * nb + lj % nb;
        for (int li = 0; li < m->mloc; li++) {
            const long gi = ((long)(li / nb) * g->p + g->row) * nb + li % nb;
            const long lo = sym && gj < gi ? gj : gi, hi = sym && gj < gi ? gi : gj;
            double v = entry(lo + seed, hi);
            if (diag && gi == gj) v += m->desc[2];
            m->a[(size_t)lj * lld + li] = v;
        }
    }
}

static void dmat_fill_ones(dmat_t *m)
{
    for (int i = 0; i < m->mloc * (m->nloc > 0); i++) m->a[i] = 1.0;
}

/* max |x - y| (y NULL: 1) over vectors distributed in the grid's first column, and max |y|
 * (*scale), over all ranks (the idle ones add nothing). */
static double max_diff(const dmat_t *x, const dmat_t *y, int in, double *scale)
{
    double e[2] = {0, 0};
    for (int i = 0; in && i < x->mloc * (x->nloc > 0); i++) {
        const double w = y ? y->a[i] : 1.0;
        e[0] = fmax(e[0], fabs(x->a[i] - w));
        e[1] = fmax(e[1], fabs(w));
    }
    MPI_Allreduce(MPI_IN_PLACE, e, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (scale) *scale = e[1];
    return e[0];
}

static const int ione = 1;
static const double one = 1.0, zero_d = 0.0;

/* The timed call of routine r on A (and B, C). 0 when a factorization reports a failure. */
static int call_routine(int r, int n, dmat_t *A, dmat_t *B, dmat_t *C, int *ipiv)
{
    int info = 0;
    if (r == R_GEMM)
        pdgemm_("N", "N", &n, &n, &n, &one, A->a, &ione, &ione, A->desc, B->a, &ione, &ione,
                B->desc, &zero_d, C->a, &ione, &ione, C->desc);
    else if (r == R_POTRF)
        pdpotrf_("L", &n, A->a, &ione, &ione, A->desc, &info);
    else
        pdgetrf_(&n, &n, A->a, &ione, &ione, A->desc, ipiv, &info);
    return info == 0;
}

/* The residual after the call (see the file's comment); x, y, z: vectors. */
static double residual(int r, int n, dmat_t *A, dmat_t *A0, dmat_t *B, dmat_t *C, dmat_t *x,
                       dmat_t *y, dmat_t *z, int *ipiv, int in)
{
    int info = 0;
    double scale = 1;
    if (in) {
        dmat_fill_ones(x);
        if (r == R_GEMM) { /* y = B x, z = C x, x = A y: z against x */
            pdgemv_("N", &n, &n, &one, B->a, &ione, &ione, B->desc, x->a, &ione, &ione, x->desc,
                    &ione, &zero_d, y->a, &ione, &ione, y->desc, &ione);
            pdgemv_("N", &n, &n, &one, C->a, &ione, &ione, C->desc, x->a, &ione, &ione, x->desc,
                    &ione, &zero_d, z->a, &ione, &ione, z->desc, &ione);
            pdgemv_("N", &n, &n, &one, A->a, &ione, &ione, A->desc, y->a, &ione, &ione, y->desc,
                    &ione, &zero_d, x->a, &ione, &ione, x->desc, &ione);
        } else { /* y = A0 1, solve with the factors: y against 1 */
            pdgemv_("N", &n, &n, &one, A0->a, &ione, &ione, A0->desc, x->a, &ione, &ione, x->desc,
                    &ione, &zero_d, y->a, &ione, &ione, y->desc, &ione);
            if (r == R_POTRF)
                pdpotrs_("L", &n, &ione, A->a, &ione, &ione, A->desc, y->a, &ione, &ione, y->desc,
                         &info);
            else
                pdgetrs_("N", &n, &ione, A->a, &ione, &ione, A->desc, ipiv, y->a, &ione, &ione,
                         y->desc, &info);
        }
    }
    double e = r == R_GEMM ? max_diff(z, x, in, &scale) : max_diff(y, NULL, in, &scale);
    return info != 0 ? INFINITY : e / (scale > 0 ? scale : 1);
}

static void fill_inputs(int r, dmat_t *A, dmat_t *B, const grid_t *g, int nb)
{
    dmat_fill(A, g, nb, 0, r != R_GEMM, r == R_POTRF);
    if (r == R_GEMM) dmat_fill(B, g, nb, 7919, 0, 0);
}

/* One routine at one n, NB and grid, best of o->reps; every rank of the world takes part (the
 * idle ones in the reductions only). 0: not enough memory somewhere, or the call failed. */
static int run_one(const opts_t *o, const grid_t *g, int r, int n, int nb, result_t *res)
{
    const int in = g->row >= 0, chk = o->check;
    dmat_t A = {0}, B = {0}, C = {0}, A0 = {0}, x = {0}, y = {0}, z = {0};
    int *ipiv = NULL, ok = 1;
    if (in) {
        ok = dmat_init(&A, g, n, n, nb);
        if (r == R_GEMM) ok &= dmat_init(&B, g, n, n, nb) & dmat_init(&C, g, n, n, nb);
        if (chk && r != R_GEMM) ok &= dmat_init(&A0, g, n, n, nb);
        if (chk) ok &= dmat_init(&x, g, n, 1, nb) & dmat_init(&y, g, n, 1, nb) &
                       dmat_init(&z, g, n, 1, nb);
        if (r == R_GETRF) ok &= (ipiv = malloc(sizeof(int) * (size_t)(A.mloc + nb))) != NULL;
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    double best = INFINITY, part[BSP_GROUPS] = {0};
    for (int rep = 0; ok && rep < o->reps; rep++) {
        if (in) fill_inputs(r, &A, &B, g, nb);
        if (in && chk && r != R_GEMM) memcpy(A0.a, A.a, sizeof(double) * (size_t)A.desc[8] * A.nloc);
        MPI_Barrier(MPI_COMM_WORLD);
        bsp_reset();
        const double t0 = MPI_Wtime();
        int good = in ? call_routine(r, n, &A, &B, &C, ipiv) : 1;
        double t = MPI_Wtime() - t0, mine[BSP_GROUPS];
        memcpy(mine, bsp_time, sizeof mine); /* before the reductions below add to them */
        MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, mine, BSP_GROUPS, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        ok = good;
        if (ok && t < best) {
            best = t;
            for (int k = 0; k < BSP_GROUPS; k++) part[k] = mine[k] / (g->p * g->q);
        }
    }
    static const double fl[R_COUNT] = {2.0, 1.0 / 3.0, 2.0 / 3.0};
    *res = (result_t){r, n, nb, g->p, g->q, best, fl[r] * n * (double)n * n / best * 1e-9,
                      {0}, -1};
    memcpy(res->part, part, sizeof part);
    if (ok && chk) res->resid = residual(r, n, &A, &A0, &B, &C, &x, &y, &z, ipiv, in);
    free(A.a), free(B.a), free(C.a), free(A0.a), free(x.a), free(y.a), free(z.a), free(ipiv);
    return ok;
}

static void print_result(const result_t *s, int check)
{
    const double rest = s->secs - s->part[BSP_BLAS3] - s->part[BSP_BLAS12] -
                        s->part[BSP_LAPACK] - s->part[BSP_MPI];
    printf("%-8s %6d %5d %3dx%-3d %9.3f %9.1f %9.3f %9.3f %9.3f %9.3f", rnames[s->r], s->n, s->nb,
           s->p, s->q, s->secs, s->gflops, s->part[BSP_BLAS3],
           s->part[BSP_BLAS12] + s->part[BSP_LAPACK], s->part[BSP_MPI], rest);
    if (check) printf(" %9.1e", s->resid);
    printf("\n");
    fflush(stdout);
}

static void print_best(const result_t *all, int count)
{
    printf("\n== best NB and grid (GFLOP/s)\n%-8s %6s %5s %7s %9s\n", "routine", "n", "NB",
           "grid", "GFLOP/s");
    for (int i = 0; i < count; i++) {
        int best = i, first = 1;
        for (int j = 0; j < count; j++) {
            if (all[j].r != all[i].r || all[j].n != all[i].n) continue;
            if (j < i) first = 0;
            if (all[j].gflops > all[best].gflops) best = j;
        }
        if (first)
            printf("%-8s %6d %5d %3dx%-3d %9.1f\n", rnames[all[i].r], all[i].n, all[best].nb,
                   all[best].p, all[best].q, all[best].gflops);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, nprocs;
    Cblacs_pinfo(&me, &nprocs);
    opts_t o;
    if (!parse_opts(argc, argv, &o, nprocs)) {
        if (me == 0)
            fprintf(stderr, "usage: mpirun -np R clhgemm-bench-scalapack [--routines "
                            "gemm,potrf,getrf] [--sizes N,...] [--nb NB,...] [--grids PxQ,...] "
                            "[--reps K] [--check]   (P x Q <= R)\n");
        MPI_Finalize();
        return 2;
    }
    result_t *all = calloc((size_t)R_COUNT * MAXL * MAXL * MAXL, sizeof *all);
    int count = 0, failed = 0;
    if (me == 0)
        printf("%-8s %6s %5s %7s %9s %9s %9s %9s %9s %9s%s\n", "routine", "n", "NB", "grid", "s",
               "GFLOP/s", "blas3 s", "panel s", "mpi s", "other s", o.check ? "     resid" : "");
    for (int gi = 0; gi < o.ngrids; gi++) {
        grid_t g = {0, o.grid_p[gi], o.grid_q[gi], -1, -1};
        Cblacs_get(-1, 0, &g.ctxt);
        Cblacs_gridinit(&g.ctxt, "Row", g.p, g.q);
        int p, q;
        if (me < g.p * g.q) Cblacs_gridinfo(g.ctxt, &p, &q, &g.row, &g.col);
        for (int si = 0; si < o.nsizes; si++)
            for (int bi = 0; bi < o.nnb; bi++)
                for (int r = 0; r < R_COUNT; r++) {
                    if (!o.routines[r]) continue;
                    result_t res;
                    int ok = run_one(&o, &g, r, o.sizes[si], o.nbs[bi], &res);
                    if (me == 0 && ok) print_result(&res, o.check);
                    if (me == 0 && !ok)
                        printf("%-8s %6d %5d %3dx%-3d FAILED (memory or INFO)\n", rnames[r],
                               o.sizes[si], o.nbs[bi], g.p, g.q);
                    failed |= !ok || (o.check && !(res.resid < 1e-8));
                    if (ok && all) all[count++] = res;
                }
        if (g.row >= 0) Cblacs_gridexit(g.ctxt);
    }
    if (me == 0 && all) print_best(all, count);
    free(all);
    Cblacs_exit(1);
    MPI_Finalize();
    return failed;
}
