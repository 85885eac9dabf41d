/*
 * blas_dlopen.c -- the drop-in's private CPU BLAS (blas_dlopen.h).
 */
#include "cpu/blas_dlopen.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>


static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void *g_lib;
static char g_name[256] = "", g_error[512] = "";

/* dlopen of one candidate; refuses the drop-in itself. */
static void *open_one(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(g_error, sizeof g_error, "%s", dlerror());
        return NULL;
    }
    if (dlsym(h, "clhgemm_blas_dropin")) {
        snprintf(g_error, sizeof g_error, "%s is clhgemm's own libblas.so.3, not a CPU BLAS", name);
        dlclose(h);
        return NULL;
    }
    snprintf(g_name, sizeof g_name, "%s", name);
    return h;
}

static void load(void)
{
    const char *want = getenv("CLHGEMM_BLAS_CPU_LIB");
    if (want && *want) {
        g_lib = open_one(want);
        if (!g_lib)
            fprintf(stderr, "clhgemm-blas: CLHGEMM_BLAS_CPU_LIB=%s cannot be used (%s); trying libopenblas.so.0\n",
                    want, g_error);
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
