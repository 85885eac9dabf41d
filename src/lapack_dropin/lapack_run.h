/*
 * lapack_run.h -- the LAPACK drop-in's state and dispatch (lapack_run.c owns it): one checked
 * call of a routine the drop-in implements, in the Fortran view (column-major, upper-case
 * Fortran characters), goes to the CPU LAPACK (loaded privately: cpu/blas_dlopen.h, table
 * cpu/lapack_link.h) or through the library's host API to the devices, as
 * CLHGEMM_LAPACK_OFFLOAD=auto|always|never and the library's routing say. A failure on the way
 * to the devices makes that call run on the CPU LAPACK on the caller's data as it was (restored
 * from a copy where the library may have written it), with one warning line per process.
 */
#ifndef CHG_LAPACK_DROPIN_RUN_H
#define CHG_LAPACK_DROPIN_RUN_H

/* The routines, in the order of the stats lines. */
enum { LA_POTRF, LA_POTRS, LA_POSV, LA_GETRF, LA_GETRS, LA_GESV, LA_GEQRF, LA_ORMQR, LA_ORGQR,
       LA_GELS, LA_COUNT };

/* A call whose arguments passed LAPACK's checks (lapack_fortran.c). Each routine uses the
 * fields its Fortran interface has; b is B (C for ormqr), ldb its leading dimension. lwork -1
 * is LAPACK's workspace query: answered by the CPU LAPACK, never counted. */
typedef struct chg_la_call_s {
    void *a, *b, *tau, *work;
    int *ipiv, *info;
    int routine;                /* LA_* */
    int dbl;
    int m, n, k, nrhs, lda, ldb, lwork;
    char uplo, trans, side;
} chg_la_call_t;

/* Runs the call (CPU LAPACK or devices), counting it for CLHGEMM_LAPACK_STATS; *c->info is
 * LAPACK's on return. */
void chg_la_run(const chg_la_call_t *c);

/* The CPU LAPACK's routine with the call's own arguments (the workspace query included). */
void chg_la_cpu(const chg_la_call_t *c);

/* The program's xerbla_ (else the CPU LAPACK's, else a message) with the routine's name as
 * LAPACK spells it ("DPOTRF", "DPOSV ") and the position of the bad argument. */
void chg_la_xerbla(const char *name, int pos);

#endif
