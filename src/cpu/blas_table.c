/*
 * blas_table.c -- in the drop-in build, the table through which the CPU layer calls the CPU BLAS
 * that blas_dlopen.c loaded (blas_table.h); nothing in the library's own build.
 */
#include "cpu/blas_table.h"

#if defined(CLHGEMM_HAVE_OPENBLAS) && defined(CLHGEMM_CPU_DLOPEN)
#include <pthread.h>

static pthread_once_t g_table_once = PTHREAD_ONCE_INIT;
static chg_cblas_t g_table;

static void fill_table(void)
{
#define CHG_CBLAS_LOAD_(f) *(void **)&g_table.p_##f = chg_cpu_lib_sym("cblas_" #f);
    CHG_CBLAS_CALLS(CHG_CBLAS_LOAD_)
#undef CHG_CBLAS_LOAD_
    *(void **)&g_table.get_threads = chg_cpu_lib_sym("openblas_get_num_threads");
    *(void **)&g_table.set_threads = chg_cpu_lib_sym("openblas_set_num_threads");
    *(void **)&g_table.get_config = chg_cpu_lib_sym("openblas_get_config");
    *(void **)&g_table.get_corename = chg_cpu_lib_sym("openblas_get_corename");
    *(void **)&g_table.get_parallel = chg_cpu_lib_sym("openblas_get_parallel");
}

const chg_cblas_t *chg_cblas(void)
{
    pthread_once(&g_table_once, fill_table);
    return &g_table;
}
#endif
