/*
 * sched.h -- the tile schedule of a host-memory call (sched.c owns it): C's tile rows
 * ("bands") are claimed by the devices' drivers, each takes its band's tiles in snake order
 * (HDGEMM's "wriggled" order), one band ahead when prefetching A; a device with nothing left steals
 * tiles from the back of the fullest band, and the CPU share (strips) takes column strips the same
 * way. The drivers are those of the plan's devices (c->drivers: the first c->pl.ndev, host/run.c),
 * and the prefetch claims and the final-tile rule count only them. Every function runs under
 * the call's mutex.
 */
#ifndef CHG_HOST_SCHED_H
#define CHG_HOST_SCHED_H

#include "host/call.h"

/* A driver's place in the band schedule. */
typedef struct chg_sched_s {
    long cur, next;             /* band being worked on, band claimed for prefetch (-1: none) */
    int started;
} chg_sched_t;

/* The call's bands for its plan (SYRK/SYR2K: only the columns whose tiles touch C's triangle)
 * and c->ntiles. Returns 0, or -1 when out of memory. */
int chg_sched_init(chg_call_t *c);
void chg_sched_free(chg_call_t *c);

/* A round of what lost devices left (host/fault.h): every band empty but for one region of
 * `todo` per band, which leaves `todo`; the others stay there for a later round. */
void chg_sched_regions(chg_call_t *c, chg_regions_t *todo);
/* Columns no driver took (every device of a round lost) move from the bands onto `todo`.
 * Returns 0, or -1 when out of memory. */
int chg_sched_leftover(chg_call_t *c, chg_regions_t *todo);

/* The next tile for a device: its own band's next tile, else its claimed next band, else an
 * unclaimed band, else a tile stolen from the back of the band with the most left. With
 * prefetch, a device that opens a band also claims the one after it (while enough bands remain
 * for the devices that have none yet). *final says that the device will get no other tile.
 * Returns 0 when nothing is left or the call failed. */
int chg_take_tile(chg_call_t *c, chg_sched_t *sc, size_t *ti, size_t *j0, size_t *nc, int *stolen, int *final);

/* CPU_STRIPS: a column strip for the CPU from the back of the fullest band, sized for about
 * 0.1 s of OpenBLAS, unless it would outlast what the devices have left (the CPU must never
 * become the call's tail). Returns 0 when the CPU should stop. */
int chg_take_strip(chg_call_t *c, size_t *ti, size_t *j0, size_t *w);

#endif
