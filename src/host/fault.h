/*
 * fault.h -- a lost device does not lose the call (fault.c owns it).
 *
 * Any OpenCL error of one device during a host-memory call marks that device lost
 * (chg_device_lost): its driver stops, the parts of C it had taken and not written home go on
 * the device's list of regions (band, columns), the call goes on, and host/run.c gives those
 * regions to the devices left, or to the CPU (chg_cpu_region: OpenBLAS, else a plain loop) when
 * none is left; the call returns success with the right result and one line on stderr per lost
 * device. After the call the handle drops the device (chg_handle_drop_lost): later calls
 * plan without it. A shortage at a driver's setup (allocation, kernel build, the library's own
 * statuses) is not a lost device: the call fails as before (chg_fault_is_loss).
 *
 * What keeps a region computable again: a tile is written into the user's memory only by the
 * unpack of its chunks (host/tile.c), after every device command of the tile. Column chunks
 * already unpacked hold the final result and are left out of the region; the rest of C is as the
 * caller passed it. Where one column of a tile depends on another column's input -- TRMM side
 * right, whose row-band tile reads and writes the same rows of B -- or where a region must stay
 * on the tile grid (SYMM side right), a tile is unpacked all at once after all its copies home
 * arrived (chg_unpack_whole), so it is either written whole or untouched (no copy of B needed).
 *
 * Out of device memory is not a lost device: two handles of one process may each plan for the
 * device's whole budget, and a driver (NVIDIA's) allocates a buffer only at its first use, so a
 * command fails with CL_MEM_OBJECT_ALLOCATION_FAILURE (or CL_OUT_OF_RESOURCES) in the middle of
 * the tiles. The first time in a call, the device's own buffers and those that idle handles keep
 * on it are released (chg_device_short), its regions go back to the schedule as a lost device's
 * do, and it takes them again in the next round; a second shortage in the same call loses it.
 * At a driver's setup, a failed allocation is retried once when idle handles released memory
 * on the device; otherwise the call fails with that status as before. TRSM's strips
 * (trsm_strips.c) do the same with their own buffers and set the device up again.
 *
 * Test hook: CLHGEMM_FAULT_INJECT="device=<i>,after=<t>[,kind=lost|oom]" (or device=all) makes
 * device i of each handle fail every command it is given once it has written back t tiles over
 * the handle's life (t = 0: before its first); with kind=oom the failure is
 * CL_MEM_OBJECT_ALLOCATION_FAILURE and stops once the device's buffers have been released for
 * memory (chg_memory_release). Read at clhgemm_create. The host TRSM's strips count a strip home
 * as a tile; the chunks of a strip's read-back after its first fail already while the t-th
 * strip comes home (host/trsm_strips.c), so that a read-back lost part way is reached.
 */
#ifndef CHG_HOST_FAULT_H
#define CHG_HOST_FAULT_H

#include "host/call.h"

/* CLHGEMM_FAULT_INJECT for a new handle (a malformed value: one warning, no injection). */
void chg_fault_read(chg_fault_t *f);

/* The injected failure of a command on device d once it counts `tiles` tiles written back
 * (CL_SUCCESS when none; cheap when off). */
static inline cl_int chg_fault_at(const chg_fault_t *f, const chg_handle_dev_t *d, unsigned long long tiles)
{
    if (!f->on || (f->device >= 0 && f->device != d->index) || tiles < f->after) return CL_SUCCESS;
    if (f->oom) return d->releases ? CL_SUCCESS : CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return CL_DEVICE_NOT_AVAILABLE;
}

/* The injected failure of a command on device d now. */
static inline cl_int chg_fault_cmd(const chg_fault_t *f, const chg_handle_dev_t *d)
{
    return chg_fault_at(f, d, d->tiles_done);
}

/* 1 when error err of a driver means its device is lost (at setup: not for allocation and
 * build failures, which fail the call as before); never for the library's own statuses. */
int chg_fault_is_loss(cl_int err, int in_setup);

/* 1 when err says the device is short of memory (an allocation failed, also one a driver makes
 * at a command's first use of a buffer, as NVIDIA's does). */
int chg_fault_is_memory(cl_int err);

/* Device d of handle h is short of memory: the device buffers that other idle handles of the
 * process keep on it and its own are released (chg_handles_release_idle,
 * chg_devmem_free_device). Returns the bytes the other handles released (*handles: how
 * many). */
size_t chg_memory_release(clhgemm_handle_t h, chg_handle_dev_t *d, int *handles);

/* Device d of handle h is short of memory in `routine`: chg_memory_release, then one line on
 * stderr (the first time for the device; again with CLHGEMM_VERBOSE) saying what was released
 * and that it `again` (what it does next). */
void chg_memory_short(clhgemm_handle_t h, chg_handle_dev_t *d, const char *routine, cl_int err, const char *again);

/* Device d ran out of memory during call c's tiles (the first time in the call): its buffers
 * and idle handles' on it are released (chg_memory_short), it is marked short for this call
 * (not lost: host/run.c's next round gives it its regions again, and a second shortage in the
 * call loses it), one driver fewer for the schedule, one line on stderr (the first time for the
 * device; again with CLHGEMM_VERBOSE). */
void chg_device_short(chg_call_t *c, chg_handle_dev_t *d, cl_int err);

/* Appends columns [j0, j0 + nc) of band ti (joined with the last region when they touch).
 * Returns 0, or -1 when out of memory. */
int chg_regions_add(chg_regions_t *l, size_t ti, size_t j0, size_t nc);

/* Device d of call c is lost with err at `where`: marked (under c->mu), one driver fewer for
 * the schedule, and one line on stderr naming the device, the error and where its unfinished
 * tiles go. */
void chg_device_lost(chg_call_t *c, chg_handle_dev_t *d, cl_int err, const char *where);

/* After a call (under the call lock): the devices marked lost leave devs[0..ndev) and are
 * released; the others keep their order and state. Returns how many are left. */
int chg_handle_drop_lost(clhgemm_handle_t h);

/* Rows [i0, i0 + mc) x columns [j0, j0 + nc) of the call's C (column-major view) on the CPU,
 * with the call's structure (symmetric / triangular operands, SYR2K's two products, C's
 * triangle), on `threads` OpenBLAS threads (a plain loop without OpenBLAS). In place (TRMM) the
 * region's operands are copied before C is written. Returns CLHGEMM_SUCCESS or
 * CLHGEMM_OUT_OF_HOST_MEMORY (nothing written then). */
clhgemm_status_t chg_cpu_region(const chg_call_t *c, size_t i0, size_t mc, size_t j0, size_t nc, int threads);

#endif
