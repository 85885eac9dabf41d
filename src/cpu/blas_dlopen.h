/*
 * blas_dlopen.h -- the CPU BLAS of the BLAS drop-in, loaded privately (blas_dlopen.c owns it):
 * dlopen with RTLD_LOCAL of CLHGEMM_BLAS_CPU_LIB, else libopenblas.so.0, so that neither its
 * symbols nor ours shadow each other; never the drop-in itself (a library that exports
 * clhgemm_blas_dropin is refused: installed as the system libblas.so.3, "libblas.so.3" is us).
 */
#ifndef CHG_CPU_BLAS_DLOPEN_H
#define CHG_CPU_BLAS_DLOPEN_H

/* Address of `name` in the CPU BLAS, NULL when it lacks it or none could be loaded. Loads it
 * on first use (thread-safe). */
void *chg_cpu_lib_sym(const char *name);
/* 1 when a CPU BLAS is loaded; else 0, and chg_cpu_lib_error() says why. */
int chg_cpu_lib_ok(void);
const char *chg_cpu_lib_name(void);
const char *chg_cpu_lib_error(void);

#endif
