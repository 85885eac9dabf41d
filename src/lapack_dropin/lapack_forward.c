/*
 * lapack_forward.c -- the LAPACK drop-in's forwarding (lapack_forward.h): where each entry of the
 * table goes, and the report of a function that the CPU LAPACK lacks. OpenBLAS exports every
 * function of the reference liblapack.so.3 (Debian 12: 0.3.21 against LAPACK 3.11.0), so unlike
 * the BLAS drop-in there is nothing to stand in for.
 */
#include "lapack_dropin/lapack_forward.h"

#include <stdio.h>
#include <stdlib.h>

#include "cpu/blas_dlopen.h"

void *chg_lapack_fwd_lookup(const char *name)
{
    return chg_cpu_lib_sym(name);
}

void chg_lapack_fwd_missing(unsigned index)
{
    const char *name = index < chg_lapack_fwd_count ? chg_lapack_fwd_names[index] : "(unknown)";
    if (chg_cpu_lib_ok())
        fprintf(stderr, "clhgemm-lapack: %s is missing from the CPU LAPACK %s\n", name,
                chg_cpu_lib_name());
    else
        fprintf(stderr,
                "clhgemm-lapack: %s cannot run: no CPU LAPACK could be loaded (%s); set "
                "CLHGEMM_LAPACK_CPU_LIB to one (a libopenblas.so.0 or reference liblapack.so.3)\n",
                name, chg_cpu_lib_error());
    fflush(stderr);
    abort();
}
