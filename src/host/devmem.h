/*
 * devmem.h -- what a device of a handle keeps between calls (devmem.c owns it): its device
 * buffers by role and its pinned staging, grown and never shrunk so that a run of calls of one
 * shape allocates once; their release; and the process's list of handles, through which a
 * handle short of device memory takes back what idle ones keep on the same device.
 */
#ifndef CHG_HOST_DEVMEM_H
#define CHG_HOST_DEVMEM_H

#include "host/handle.h"

/* Device buffer role `which` with at least `slots` buffers of `bytes`: kept when large enough,
 * else reallocated (never shrunk across calls). */
cl_int chg_devmem_reserve(chg_handle_dev_t *d, int which, size_t bytes, int slots);
/* Pinned staging slots st[0..slots) of at least `bytes` each. */
cl_int chg_devmem_reserve_pinned(chg_handle_dev_t *d, chg_pinned_t *st, int slots, size_t bytes);
/* Waits for the device's queues and releases its buffers, queues and context. */
void chg_devmem_release(chg_handle_dev_t *d);
/* Waits for the device's queues and releases its device buffers (not the pinned staging, which
 * is host memory); the next call's setup allocates them again. Returns the bytes released. */
size_t chg_devmem_free_device(chg_handle_dev_t *d);

/* The process's handles, so that one short of device memory can take back what idle ones keep
 * on the same device: clhgemm_create registers a handle once it is made, clhgemm_destroy
 * unregisters it before releasing anything. */
void chg_handle_register(clhgemm_handle_t h);
void chg_handle_unregister(clhgemm_handle_t h);
/* Every other registered handle that is idle (its call lock taken with trylock: never waits,
 * so no lock order arises) releases its device buffers on device `id`. Returns the bytes
 * released; *handles counts the handles that released some. */
size_t chg_handles_release_idle(cl_device_id id, clhgemm_handle_t self, int *handles);

#endif
