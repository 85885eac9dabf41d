/*
 * forward.c -- the BLAS drop-in's forwarding (forward.h): where each entry of the table goes, the
 * report of a function that the CPU BLAS lacks, and the 24 functions of the reference
 * libblas.so.3 that OpenBLAS does not export (the reference CBLAS's Fortran wrappers *sub_ and
 * cblas_[sd]cabs1), used only when the CPU BLAS has none of its own.
 */
#include "blas/forward.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/blas_dlopen.h"

/* ---- the functions OpenBLAS lacks ------------------------------------------------------------
 * Each *sub_ stores the result of its function in its last argument (Fortran calling
 * convention: everything by address). They call the drop-in's own exported CBLAS functions
 * (forwarded in turn), whose C return types leave no doubt about the ABI, except the i*amax
 * ones, which return the Fortran function's 1-based index. */
float cblas_sdot(int n, const float *x, int incx, const float *y, int incy);
double cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
double cblas_dsdot(int n, const float *x, int incx, const float *y, int incy);
float cblas_sdsdot(int n, float sb, const float *x, int incx, const float *y, int incy);
void cblas_cdotc_sub(int n, const void *x, int incx, const void *y, int incy, void *dot);
void cblas_cdotu_sub(int n, const void *x, int incx, const void *y, int incy, void *dot);
void cblas_zdotc_sub(int n, const void *x, int incx, const void *y, int incy, void *dot);
void cblas_zdotu_sub(int n, const void *x, int incx, const void *y, int incy, void *dot);
float cblas_snrm2(int n, const float *x, int incx);
double cblas_dnrm2(int n, const double *x, int incx);
float cblas_scnrm2(int n, const void *x, int incx);
double cblas_dznrm2(int n, const void *x, int incx);
float cblas_sasum(int n, const float *x, int incx);
double cblas_dasum(int n, const double *x, int incx);
float cblas_scasum(int n, const void *x, int incx);
double cblas_dzasum(int n, const void *x, int incx);
int isamax_(const int *n, const float *x, const int *incx);
int idamax_(const int *n, const double *x, const int *incx);
int icamax_(const int *n, const void *x, const int *incx);
int izamax_(const int *n, const void *x, const int *incx);

#define DOT_SUB(name, call, T)                                                            \
    static void name(const int *n, const T *x, const int *incx, const T *y, const int *incy, \
                     T *dot)                                                                \
    {                                                                                       \
        *dot = call(*n, x, *incx, y, *incy);                                                \
    }
DOT_SUB(fb_sdotsub, cblas_sdot, float)
DOT_SUB(fb_ddotsub, cblas_ddot, double)
#undef DOT_SUB

static void fb_dsdotsub(const int *n, const float *x, const int *incx, const float *y,
                        const int *incy, double *dot)
{
    *dot = cblas_dsdot(*n, x, *incx, y, *incy);
}

static void fb_sdsdotsub(const int *n, const float *sb, const float *x, const int *incx,
                         const float *y, const int *incy, float *dot)
{
    *dot = cblas_sdsdot(*n, *sb, x, *incx, y, *incy);
}

#define CDOT_SUB(name, call)                                                              \
    static void name(const int *n, const void *x, const int *incx, const void *y,           \
                     const int *incy, void *dot)                                            \
    {                                                                                       \
        call(*n, x, *incx, y, *incy, dot);                                                  \
    }
CDOT_SUB(fb_cdotcsub, cblas_cdotc_sub)
CDOT_SUB(fb_cdotusub, cblas_cdotu_sub)
CDOT_SUB(fb_zdotcsub, cblas_zdotc_sub)
CDOT_SUB(fb_zdotusub, cblas_zdotu_sub)
#undef CDOT_SUB

/* nrm2 and asum: (n, x, incx, result) */
#define VEC_SUB(name, call, TX, TR)                                                       \
    static void name(const int *n, const TX *x, const int *incx, TR *r) { *r = call(*n, x, *incx); }
VEC_SUB(fb_snrm2sub, cblas_snrm2, float, float)
VEC_SUB(fb_dnrm2sub, cblas_dnrm2, double, double)
VEC_SUB(fb_scnrm2sub, cblas_scnrm2, void, float)
VEC_SUB(fb_dznrm2sub, cblas_dznrm2, void, double)
VEC_SUB(fb_sasumsub, cblas_sasum, float, float)
VEC_SUB(fb_dasumsub, cblas_dasum, double, double)
VEC_SUB(fb_scasumsub, cblas_scasum, void, float)
VEC_SUB(fb_dzasumsub, cblas_dzasum, void, double)
#undef VEC_SUB

/* i*amax: (n, x, incx, index), the Fortran function's 1-based index (0 when n < 1). */
#define AMAX_SUB(name, call, T)                                                           \
    static void name(const int *n, const T *x, const int *incx, int *r) { *r = call(n, x, incx); }
AMAX_SUB(fb_isamaxsub, isamax_, float)
AMAX_SUB(fb_idamaxsub, idamax_, double)
AMAX_SUB(fb_icamaxsub, icamax_, void)
AMAX_SUB(fb_izamaxsub, izamax_, void)
#undef AMAX_SUB

/* |Re z| + |Im z| */
static float fb_cblas_scabs1(const void *z)
{
    const float *v = z;
    return fabsf(v[0]) + fabsf(v[1]);
}

static double fb_cblas_dcabs1(const void *z)
{
    const double *v = z;
    return fabs(v[0]) + fabs(v[1]);
}

static void fb_scabs1sub(const void *z, float *r) { *r = fb_cblas_scabs1(z); }
static void fb_dcabs1sub(const void *z, double *r) { *r = fb_cblas_dcabs1(z); }

static const struct {
    const char *name;
    void *fn;
} g_fallbacks[] = {
    {"sdotsub_", (void *)fb_sdotsub},       {"ddotsub_", (void *)fb_ddotsub},
    {"dsdotsub_", (void *)fb_dsdotsub},     {"sdsdotsub_", (void *)fb_sdsdotsub},
    {"cdotcsub_", (void *)fb_cdotcsub},     {"cdotusub_", (void *)fb_cdotusub},
    {"zdotcsub_", (void *)fb_zdotcsub},     {"zdotusub_", (void *)fb_zdotusub},
    {"snrm2sub_", (void *)fb_snrm2sub},     {"dnrm2sub_", (void *)fb_dnrm2sub},
    {"scnrm2sub_", (void *)fb_scnrm2sub},   {"dznrm2sub_", (void *)fb_dznrm2sub},
    {"sasumsub_", (void *)fb_sasumsub},     {"dasumsub_", (void *)fb_dasumsub},
    {"scasumsub_", (void *)fb_scasumsub},   {"dzasumsub_", (void *)fb_dzasumsub},
    {"isamaxsub_", (void *)fb_isamaxsub},   {"idamaxsub_", (void *)fb_idamaxsub},
    {"icamaxsub_", (void *)fb_icamaxsub},   {"izamaxsub_", (void *)fb_izamaxsub},
    {"scabs1sub_", (void *)fb_scabs1sub},   {"dcabs1sub_", (void *)fb_dcabs1sub},
    {"cblas_scabs1", (void *)fb_cblas_scabs1}, {"cblas_dcabs1", (void *)fb_cblas_dcabs1},
};

static void *fallback(const char *name)
{
    for (size_t i = 0; i < sizeof g_fallbacks / sizeof g_fallbacks[0]; i++)
        if (!strcmp(g_fallbacks[i].name, name)) return g_fallbacks[i].fn;
    return NULL;
}

/* ---- the table's entries ------------------------------------------------------------------- */

void *chg_blas_fwd_lookup(const char *name)
{
    void *p = chg_cpu_lib_sym(name);
    return p ? p : fallback(name);
}

void chg_blas_fwd_missing(unsigned index)
{
    const char *name = index < chg_blas_fwd_count ? chg_blas_fwd_names[index] : "(unknown)";
    if (chg_cpu_lib_ok())
        fprintf(stderr, "clhgemm-blas: %s is missing from the CPU BLAS %s\n", name,
                chg_cpu_lib_name());
    else
        fprintf(stderr,
                "clhgemm-blas: %s cannot run: no CPU BLAS could be loaded (%s); set "
                "CLHGEMM_BLAS_CPU_LIB to one (a libopenblas.so.0 or reference libblas.so.3)\n",
                name, chg_cpu_lib_error());
    fflush(stderr);
    abort();
}
