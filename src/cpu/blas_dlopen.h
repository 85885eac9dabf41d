/*
 * blas_dlopen.h -- the CPU library of a drop-in, loaded privately (blas_dlopen.c owns it): dlopen
 * with RTLD_LOCAL of the library the drop-in's variable names, else libopenblas.so.0, so that
 * neither its symbols nor ours shadow each other. The BLAS drop-in (libblas.so.3) reads
 * CLHGEMM_BLAS_CPU_LIB; the LAPACK drop-in (liblapack.so.3, built with CLHGEMM_DROPIN_LAPACK)
 * reads CLHGEMM_LAPACK_CPU_LIB, and the same library is its CPU BLAS too (the library's CPU
 * share, panels and CPU route). Never the drop-in itself: installed as the system's
 * libblas.so.3 or liblapack.so.3, that name is us, so a library in which the drop-in's marker
 * (clhgemm_blas_dropin, clhgemm_lapack_dropin) resolves is refused -- the BLAS drop-in also
 * refuses the LAPACK one (it has no BLAS of its own); the LAPACK drop-in accepts a library whose
 * BLAS underneath is the BLAS drop-in (the reference liblapack.so.3 beside clhgemm's
 * libblas.so.3), which is a CPU LAPACK calling an offloading BLAS, not itself.
 */
#ifndef CHG_CPU_BLAS_DLOPEN_H
#define CHG_CPU_BLAS_DLOPEN_H

/* Address of `name` in the CPU library, NULL when it lacks it or none could be loaded. Loads it
 * on first use (thread-safe). */
void *chg_cpu_lib_sym(const char *name);
/* 1 when a CPU library is loaded; else 0, and chg_cpu_lib_error() says why. */
int chg_cpu_lib_ok(void);
const char *chg_cpu_lib_name(void);
const char *chg_cpu_lib_error(void);

#endif
