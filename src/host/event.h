/*
 * event.h -- the OpenCL events of the host pipeline (event.c owns them): released, waited for
 * with the failure of the command behind them reported, asked whether they are done. Apart from
 * tile.h so that the modules that only wait for their own commands (host/upload.c,
 * host/trsm_strips.c) need nothing of a tile's steps.
 */
#ifndef CHG_HOST_EVENT_H
#define CHG_HOST_EVENT_H

#include "clhgemm.h"

/* Releases the event, if any, and clears it. */
static inline void chg_ev_release(cl_event *e)
{
    if (*e) clReleaseEvent(*e);
    *e = NULL;
}
/* Waits for an event and releases it; a command that failed gives its (negative) status. */
cl_int chg_ev_wait(cl_event *e);
/* 1 when the command behind e has finished (or failed: the wait then reports it); no event: 1. */
int chg_ev_done(cl_event e);

#endif
