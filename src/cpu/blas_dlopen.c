/*
 * blas_dlopen.c -- a drop-in's private CPU library (blas_dlopen.h).
 */
#include "cpu/blas_dlopen.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>


#ifdef CLHGEMM_DROPIN_LAPACK
#define LIB_VAR "CLHGEMM_LAPACK_CPU_LIB"
#define SAY "clhgemm-lapack"
static const char *const g_refused[] = {"clhgemm_lapack_dropin", NULL};
#else
#define LIB_VAR "CLHGEMM_BLAS_CPU_LIB"
#define SAY "clhgemm-blas"
static const char *const g_refused[] = {"clhgemm_blas_dropin", "clhgemm_lapack_dropin", NULL};
#endif

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void *g_lib;
static char g_name[256] = "", g_error[512] = "";

/* dlopen of one candidate; refuses a drop-in (blas_dlopen.h). dlsym searches the library and
 * what it loaded with it, so a drop-in found under another name is refused too. */
static void *open_one(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(g_error, sizeof g_error, "%s", dlerror());
        return NULL;
    }
    for (int i = 0; g_refused[i]; i++)
        if (dlsym(h, g_refused[i])) {
            snprintf(g_error, sizeof g_error, "%s is (or loads) clhgemm's own drop-in (%s), not a CPU library",
                     name, g_refused[i]);
            dlclose(h);
            return NULL;
        }
    snprintf(g_name, sizeof g_name, "%s", name);
    return h;
}

static void load(void)
{
    const char *want = getenv(LIB_VAR);
    if (want && *want) {
        g_lib = open_one(want);
        if (!g_lib)
            fprintf(stderr, SAY ": " LIB_VAR "=%s cannot be used (%s); trying libopenblas.so.0\n", want, g_error);
    }
    if (!g_lib) g_lib = open_one("libopenblas.so.0");
}

void *chg_cpu_lib_sym(const char *name)
{
    pthread_once(&g_once, load);
    return g_lib ? dlsym(g_lib, name) : NULL;
}

int chg_cpu_lib_ok(void)
{
    pthread_once(&g_once, load);
    return g_lib != NULL;
}

const char *chg_cpu_lib_name(void)
{
    pthread_once(&g_once, load);
    return g_name;
}

const char *chg_cpu_lib_error(void)
{
    pthread_once(&g_once, load);
    return g_error;
}
