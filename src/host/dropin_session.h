/*
 * dropin_session.h -- what each drop-in (libblas.so.3, liblapack.so.3) keeps per process
 * (dropin_session.c owns it; compiled into each drop-in, so each has its own): its offload mode
 * and stats switch from the environment, whether this process is a fork() child of one that
 * used the library (then it touches no OpenCL object and runs on the CPU library), its one
 * warning line, and the handle it creates at the first call that may go to the devices. Built
 * only into the drop-ins' objects (CLHGEMM_CPU_DLOPEN), never into libclhgemm.
 */
#ifndef CHG_HOST_DROPIN_SESSION_H
#define CHG_HOST_DROPIN_SESSION_H

#include <stdatomic.h>

#include "clhgemm.h"

enum { CHG_OFF_AUTO, CHG_OFF_ALWAYS, CHG_OFF_NEVER };

typedef struct chg_dropin_conf_s {
    const char *tag;       /* the lines' prefix: "clhgemm-blas" */
    const char *cpu_what;  /* what runs instead: "CPU BLAS" */
    const char *calls;     /* which calls it takes: "level-3 call" */
    const char *mode_var;  /* CLHGEMM_BLAS_OFFLOAD: auto, always, never */
    const char *stats_var; /* CLHGEMM_BLAS_STATS: print_stats at exit */
    void (*print_stats)(void);
    int device_route;      /* the handle's routing set to the devices: 1 always, 0 under always
                            * only (under auto the library's own routing stays) */
} chg_dropin_conf_t;

/* The mode and stats switch (read once, by chg_dropin_init). */
extern int chg_dropin_mode_, chg_dropin_stats_;
extern atomic_int chg_dropin_child_;

/* Reads the environment, registers the stats printer and the fork handler. Call once (under the
 * drop-in's own pthread_once). */
void chg_dropin_init(const chg_dropin_conf_t *conf);

static inline int chg_dropin_child(void)
{
    return atomic_load_explicit(&chg_dropin_child_, memory_order_relaxed);
}

/* One line per process, for every kind of failure: what failed, and what runs instead. */
void chg_dropin_warn_once(const char *what, const char *status, const char *instead);

/* The drop-in's handle, created at the first call (NULL, with the warning line, when there is
 * no device). */
clhgemm_handle_t chg_dropin_handle(void);

#endif
