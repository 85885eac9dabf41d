/*
 * dropin_session.c -- each drop-in's per-process state (dropin_session.h).
 */
#include "host/dropin_session.h"

#ifdef CLHGEMM_CPU_DLOPEN /* the drop-ins only */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"
#include "cpu/blas_dlopen.h"
#include "host/handle.h"
#include "host/route.h"

int chg_dropin_mode_ = CHG_OFF_AUTO, chg_dropin_stats_;
atomic_int chg_dropin_child_;

static const chg_dropin_conf_t *g_conf;
static atomic_int g_warned;
static pthread_once_t g_handle_once = PTHREAD_ONCE_INIT;
static clhgemm_handle_t g_handle;

static void on_fork_child(void) { atomic_store(&chg_dropin_child_, 1); }

void chg_dropin_init(const chg_dropin_conf_t *conf)
{
    static const char *const modes[] = {"auto", "always", "never", NULL}; /* as CHG_OFF_* */
    g_conf = conf;
    chg_dropin_mode_ = chg_env_choice(conf->mode_var, modes, CHG_OFF_AUTO);
    chg_dropin_stats_ = chg_env_flag(conf->stats_var, 0);
    if (chg_dropin_stats_) atexit(conf->print_stats);
    /* A child of fork() must not touch the parent's OpenCL contexts or threads: CPU only. */
    pthread_atfork(NULL, NULL, on_fork_child);
}

void chg_dropin_warn_once(const char *what, const char *status, const char *instead)
{
    if (atomic_exchange(&g_warned, 1)) return;
    fprintf(stderr, "%s: %s (%s): %s on the %s (%s)\n", g_conf->tag, what, status, instead,
            g_conf->cpu_what, chg_cpu_lib_name());
}

static void make_handle(void)
{
    clhgemm_handle_t h = NULL;
    const clhgemm_status_t st = clhgemm_create(&h, NULL);
    if (st != CLHGEMM_SUCCESS) {
        char instead[64];
        snprintf(instead, sizeof instead, "every %s runs", g_conf->calls);
        chg_dropin_warn_once("no clhgemm device", clhgemm_status_string(st), instead);
        return;
    }
    /* the BLAS drop-in asks the routing model itself; the LAPACK one leaves the library's
     * routing in auto */
    if (g_conf->device_route || chg_dropin_mode_ == CHG_OFF_ALWAYS) h->route.mode = ROUTE_DEVICE;
    g_handle = h;
}

clhgemm_handle_t chg_dropin_handle(void)
{
    pthread_once(&g_handle_once, make_handle);
    return g_handle;
}

#endif
