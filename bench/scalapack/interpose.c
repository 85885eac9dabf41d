/*
 * interpose.c -- where a ScaLAPACK rank's time goes: the local BLAS/LAPACK calls and MPI.
 *
 * ScaLAPACK calls the BLAS, LAPACK and MPI by their symbols, and the program's own exported
 * definitions come first in the lookup (the benchmark links with ENABLE_EXPORTS). So this file
 * defines the routines ScaLAPACK's PDGEMM, PDPOTRF and PDGETRF call locally -- level 3 (the
 * updates a drop-in may offload), levels 1 and 2 and LAPACK's (the panels) -- each timing the
 * real one, found with dlsym(RTLD_NEXT) in whatever libblas.so.3 / liblapack.so.3 the process
 * loaded (the drop-ins or OpenBLAS); and MPI's point-to-point, wait and collective calls that
 * BLACS makes, through the profiling interface (PMPI_*). No header declares the BLAS here: the
 * Fortran routines' arguments are all pointers or hidden string lengths, eight bytes each, so
 * each wrapper takes and passes on that many `void *` (the x86-64 and AArch64 calling
 * conventions pass them alike); the two that return a value are written out.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scalapack/interpose.h"

double bsp_time[BSP_GROUPS];
long bsp_calls[BSP_GROUPS];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bsp_reset(void)
{
    for (int g = 0; g < BSP_GROUPS; g++) {
        bsp_time[g] = 0;
        bsp_calls[g] = 0;
    }
}

static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (f == NULL) {
        fprintf(stderr, "bench_scalapack: %s not found after this program (%s)\n", name, dlerror());
        abort();
    }
    return f;
}

/* Only the outermost call is timed: a LAPACK routine that calls the BLAS by its symbols comes
 * back through these wrappers, and its time is already counted. One thread per rank calls
 * ScaLAPACK, so a plain counter does. */
static int depth;

#define P void *
#define TIMED(group, call)                                                                        \
    do {                                                                                          \
        if (depth++) {                                                                            \
            call;                                                                                 \
            depth--;                                                                              \
            break;                                                                                \
        }                                                                                         \
        const double t0_ = now_s();                                                               \
        call;                                                                                     \
        bsp_time[group] += now_s() - t0_;                                                         \
        bsp_calls[group]++;                                                                       \
        depth--;                                                                                  \
    } while (0)

/* WRAPn(group, name): void name(n pointer-sized arguments), timed into group. */
#define WRAP(group, name, params, args)                                                           \
    void name params;                                                                             \
    void name params                                                                              \
    {                                                                                             \
        static void(*f) params;                                                                   \
        if (!f) *(void **)&f = real(#name);                                                       \
        TIMED(group, f args);                                                                     \
    }
#define A4 (P a, P b, P c, P d)
#define V4 (a, b, c, d)
#define A5 (P a, P b, P c, P d, P e)
#define V5 (a, b, c, d, e)
#define A6 (P a, P b, P c, P d, P e, P f_)
#define V6 (a, b, c, d, e, f_)
#define A7 (P a, P b, P c, P d, P e, P f_, P g)
#define V7 (a, b, c, d, e, f_, g)
#define A9 (P a, P b, P c, P d, P e, P f_, P g, P h, P i)
#define V9 (a, b, c, d, e, f_, g, h, i)
#define A11 (P a, P b, P c, P d, P e, P f_, P g, P h, P i, P j, P k)
#define V11 (a, b, c, d, e, f_, g, h, i, j, k)
#define A12 (P a, P b, P c, P d, P e, P f_, P g, P h, P i, P j, P k, P l)
#define V12 (a, b, c, d, e, f_, g, h, i, j, k, l)
#define A14 (P a, P b, P c, P d, P e, P f_, P g, P h, P i, P j, P k, P l, P m, P n)
#define V14 (a, b, c, d, e, f_, g, h, i, j, k, l, m, n)
#define A15 (P a, P b, P c, P d, P e, P f_, P g, P h, P i, P j, P k, P l, P m, P n, P o)
#define V15 (a, b, c, d, e, f_, g, h, i, j, k, l, m, n, o)

/* Level 3 (with their hidden character lengths). */
WRAP(BSP_BLAS3, dgemm_, A15, V15)
WRAP(BSP_BLAS3, dsymm_, A14, V14)
WRAP(BSP_BLAS3, dsyrk_, A12, V12)
WRAP(BSP_BLAS3, dtrsm_, A15, V15)
WRAP(BSP_BLAS3, dtrmm_, A15, V15)
/* Levels 1 and 2: the panels (PDGETF2's IDAMAX, DSWAP, DSCAL, DGER; PDPOTF2's DDOT, DGEMV). */
WRAP(BSP_BLAS12, dgemv_, A12, V12)
WRAP(BSP_BLAS12, dger_, A9, V9)
WRAP(BSP_BLAS12, dscal_, A4, V4)
WRAP(BSP_BLAS12, dswap_, A5, V5)
WRAP(BSP_BLAS12, dcopy_, A5, V5)
WRAP(BSP_BLAS12, daxpy_, A6, V6)
WRAP(BSP_BLAS12, dtrsv_, A11, V11)
/* LAPACK: the row interchanges, and the factorizations the band drivers call. */
WRAP(BSP_LAPACK, dlaswp_, A7, V7)
WRAP(BSP_LAPACK, dpotrf_, A6, V6)
WRAP(BSP_LAPACK, dgetrf_, A6, V6)

int idamax_(const int *n, const double *x, const int *incx);
int idamax_(const int *n, const double *x, const int *incx)
{
    static int (*f)(const int *, const double *, const int *);
    if (!f) *(void **)&f = real("idamax_");
    int r;
    TIMED(BSP_BLAS12, r = f(n, x, incx));
    return r;
}

double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy);
double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy)
{
    static double (*f)(const int *, const double *, const int *, const double *, const int *);
    if (!f) *(void **)&f = real("ddot_");
    double r;
    TIMED(BSP_BLAS12, r = f(n, x, incx, y, incy));
    return r;
}

/* ---- MPI, through the profiling interface ----------------------------------------------- */
#define MPI_TIMED(call)                                                                           \
    do {                                                                                          \
        int r_;                                                                                   \
        TIMED(BSP_MPI, r_ = call);                                                                \
        return r_;                                                                                \
    } while (0)

int MPI_Send(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm)
{
    MPI_TIMED(PMPI_Send(b, c, t, d, tag, comm));
}
int MPI_Rsend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm)
{
    MPI_TIMED(PMPI_Rsend(b, c, t, d, tag, comm));
}
int MPI_Recv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Status *st)
{
    MPI_TIMED(PMPI_Recv(b, c, t, s, tag, comm, st));
}
int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int d, int stag, void *rb, int rc,
                 MPI_Datatype rt, int s, int rtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_TIMED(PMPI_Sendrecv(sb, sc, st, d, stag, rb, rc, rt, s, rtag, comm, status));
}
int MPI_Wait(MPI_Request *r, MPI_Status *st) { MPI_TIMED(PMPI_Wait(r, st)); }
int MPI_Waitall(int n, MPI_Request *r, MPI_Status *st) { MPI_TIMED(PMPI_Waitall(n, r, st)); }
int MPI_Waitany(int n, MPI_Request *r, int *i, MPI_Status *st)
{
    MPI_TIMED(PMPI_Waitany(n, r, i, st));
}
int MPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm comm)
{
    MPI_TIMED(PMPI_Bcast(b, c, t, root, comm));
}
int MPI_Reduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm)
{
    MPI_TIMED(PMPI_Reduce(s, r, c, t, op, root, comm));
}
int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    MPI_TIMED(PMPI_Allreduce(s, r, c, t, op, comm));
}
int MPI_Barrier(MPI_Comm comm) { MPI_TIMED(PMPI_Barrier(comm)); }
