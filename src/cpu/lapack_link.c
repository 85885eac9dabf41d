/*
 * lapack_link.c -- the CPU LAPACK table (lapack_link.h): OpenBLAS's routines linked in the
 * library, looked up in the privately loaded CPU library in the drop-ins.
 */
#include "cpu/lapack_link.h"

#include <pthread.h>
#include <string.h>

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static chg_lapack_t g_table;

#if defined(CLHGEMM_HAVE_OPENBLAS) && defined(CLHGEMM_CPU_DLOPEN)
#include "cpu/blas_dlopen.h"

static void fill(void)
{
#define CHG_LAPACK_LOAD_(name, ret, params) *(void **)&g_table.name = chg_cpu_lib_sym(#name "_");
    CHG_LAPACK_ROUTINES(CHG_LAPACK_LOAD_, s, float)
    CHG_LAPACK_ROUTINES(CHG_LAPACK_LOAD_, d, double)
#undef CHG_LAPACK_LOAD_
}

#elif defined(CLHGEMM_HAVE_OPENBLAS)
/* OpenBLAS's LAPACK, linked (its Fortran names). */
#define CHG_LAPACK_DECL_(name, ret, params) ret name##_ params;
CHG_LAPACK_ROUTINES(CHG_LAPACK_DECL_, s, float)
CHG_LAPACK_ROUTINES(CHG_LAPACK_DECL_, d, double)
#undef CHG_LAPACK_DECL_

static void fill(void)
{
#define CHG_LAPACK_LINK_(name, ret, params) g_table.name = name##_;
    CHG_LAPACK_ROUTINES(CHG_LAPACK_LINK_, s, float)
    CHG_LAPACK_ROUTINES(CHG_LAPACK_LINK_, d, double)
#undef CHG_LAPACK_LINK_
}

#else
static void fill(void) {} /* no CPU LAPACK: every member NULL */
#endif

const chg_lapack_t *chg_lapack(void)
{
    pthread_once(&g_once, fill);
    return &g_table;
}

int chg_lapack_ok(const char **why)
{
    const chg_lapack_t *t = chg_lapack();
    const char *missing = NULL;
/* potrf2 and getrf2 (an experiment's panels) are optional: without them the panels are the
 * CPU LAPACK's potrf and getrf */
#define CHG_LAPACK_CHECK_(name, ret, params) \
    if (!missing && !t->name && !strstr(#name, "rf2")) missing = #name "_";
    CHG_LAPACK_ROUTINES(CHG_LAPACK_CHECK_, s, float)
    CHG_LAPACK_ROUTINES(CHG_LAPACK_CHECK_, d, double)
#undef CHG_LAPACK_CHECK_
    if (why) *why = missing;
    return missing == NULL;
}
