/*
 * tile.h -- the steps of one tile on one device (tile.c owns them), which host/driver.c puts
 * in order:
 *   load       an operand slice: the pack threads copy what its stage says (staging.h) from
 *              the user's matrix into a pinned ring slot, in column chunks, each sent to the
 *              device as soon as it is staged (h2d queue); the device pack kernel lays it out
 *              for the GEMM kernel (kernel queue)
 *   launch     the GEMM kernel accumulating into the resident Cp (kernel queue)
 *   C in       (beta != 0) the tile's C, chunk by chunk, into pinned staging and to the device
 *   write-back C tile := alpha*Cp + beta*C on the device
 *   home       the tile's copies home (d2h queue), issued once the write-back has run, and
 *              the pack threads' unpack into the user's C as the chunks arrive
 * chg_drv_t is one device's state for one call: its kernels, queues, slice rings, band buffers,
 * pending tiles and counters.
 *
 * Two rules that the traces on the H100 taught: no copy is enqueued before its dependency has
 * run (NVIDIA's driver feeds copies through in-order hardware channels, so a copy waiting on
 * another queue's event holds up every copy behind it: ring slots are reused after a host-side
 * wait, copies home issued once the write-back is seen complete), and the driver never does
 * long host work while the kernel queue is short (everything the pack threads do is cut into
 * chunks; the unpack budget per step is time).
 */
#ifndef CHG_HOST_TILE_H
#define CHG_HOST_TILE_H

#include "host/event.h"
#include "host/sched.h"

/* A C tile on its way home: its device-to-host copy in column chunks, unpacked chunk by chunk. */
typedef struct chg_pending_s {
    int valid;
    size_t seq;                 /* tile number on this device: unpacked oldest first */
    int cslot;                  /* device C buffer it is copied out of */
    cl_event wb;                /* its write-back; the copies home are issued once it is done */
    int issued;
    size_t i0, j0, mc, nc;
    int nch, done;              /* chunks, chunks already unpacked */
    cl_event d2h[NCHUNK];
} chg_pending_t;

/* A ring of slice slots (staging buffer + raw device buffer): h2d[r] is the copy into raw slot
 * r, pack[r] the device pack kernel reading it. */
typedef struct chg_ring_s {
    cl_event h2d[NSTAGE], pack[NSTAGE];
    size_t next;
} chg_ring_t;

/* A packed A band buffer on the device: which band it holds and how many of its k slices. */
typedef struct chg_aband_s {
    long band;
    size_t loaded;
} chg_aband_t;

/* Everything one device's driver needs for one call. */
typedef struct chg_drv_s {
    chg_call_t *c;
    chg_handle_dev_t *d;
    chg_gemm_params_t gp;       /* the kernel's parameters on this device */
    chg_gemm_kernels_t ks;
    cl_command_queue qh, qk, qd;
    chg_ring_t ra, rb;
    cl_event cin_last;          /* last C-in chunk copy (staging reusable, write-back may run) */
    double copy_bytes, copy_ns; /* pack threads' work for this driver, and its wall time */
    chg_pending_t pend[NOUT];
    cl_event cdev_free[2];      /* last device->host copy out of each device C buffer */
    int cdev_owner[2];          /* pending slot whose copies home read that buffer, or -1 */
    double h2d_bytes, d2h_bytes;
    /* Packed layouts of this call (host/driver.c setup): k rows of a slice padded to KWG (bkp),
     * slices per segment (kts), slices per launch where A is resident (kg), the k extent of a
     * resident band's panels (band_pk: all of its slices) and of the packed B buffer's
     * (group_pk: one group). */
    size_t bkp, kts, kg, band_pk, group_pk;
    /* The band schedule: this device's place in it, its A band buffers (two when the next
     * band is prefetched), and the pacing of the prefetch. */
    chg_sched_t sc;
    int nab;
    chg_aband_t ab[2];
    long pf_band;               /* band whose prefetch pacing was planned */
    size_t pf_step, pf_span;    /* steps since its prefetch began, steps to spread over */
    size_t ntile;               /* tiles (pieces) taken so far */
} chg_drv_t;

/* One piece of a C tile on a device (a whole tile, or a column piece of a device's final
 * tile), with where its buffers are and how far its k loop and C input are. */
typedef struct chg_tile_s {
    size_t ti, i0, j0, mc, nc, mpad, npad;
    size_t seq;                 /* v->ntile when taken: out slot seq % NOUT, device C seq % 2 */
    int slot, cslot;
    cl_mem cdev, apack;
    int cur, pf;                /* A band buffer of this tile and the one to prefetch into (-1) */
    size_t s_lo, s_hi;          /* its k slices */
    size_t glen, gs, ge, gp0;   /* launch groups: length, current [gs, ge), its first global k */
    int nci, ci;                /* C-in chunks, and how many went */
    double step_s;              /* kernel time of one step (the unpack budget per step) */
    /* A split final tile (chg_writeback_split): its last slice is launched in `split` column
     * pieces after the k loop, with these arguments of the launch the loop held back. */
    int split;
    size_t last_p0, last_kp, last_aoff, last_apk;
    int last_acc;
} chg_tile_t;

/* Column pieces of a split final tile, at most. */
#define CHG_SPLIT_MAX 4

/* ---- the steps --------------------------------------------------------------------------------- */

/* The trace span of a command on queue q of the driver's device (CLHGEMM_TRACE). */
void chg_tile_trace(chg_drv_t *v, int q, const char *name, cl_event ev);

/* Slice s of the k loop: its segment (SYR2K's second product runs over slices kts..2kts-1 with
 * the operands exchanged), its start within the segment and its length. */
void chg_slice_of(const chg_call_t *c, size_t s, int *seg, size_t *p0, size_t *kc);

/* Slice s of band ti of A into dst at dst_off, in panels of dpk k rows; with qk > 0 only its k
 * rows [q0, q0 + qk) (the ramp of a device's first slice). */
cl_int chg_load_a(chg_drv_t *v, size_t ti, size_t s, size_t q0, size_t qk, cl_mem dst, size_t dst_off,
                  size_t dpk);
/* Slice s of the B panel of columns j0.. into the packed B buffer at dst_off (q0, qk as above). */
cl_int chg_load_b(chg_drv_t *v, size_t j0, size_t nc, size_t s, size_t q0, size_t qk, size_t dst_off,
                  size_t dpk);

/* One GEMM launch of a tile (kp packed k rows from aoff / boff, panels of apk / bpk rows) into
 * the device's Cp, traced. */
cl_int chg_launch_gemm(chg_drv_t *v, size_t i0, size_t j0, size_t p0, size_t mpad, size_t npad, size_t kp,
                       cl_mem apack, size_t aoff, size_t apk, size_t boff, size_t bpk, int accumulate);

/* Chunks of a tile's C copies (at most one per k step, NCHUNK, none below CLHGEMM_C_CHUNK). */
int chg_c_chunks(const chg_call_t *c, size_t mc, size_t nc);
/* Chunk t->ci of the tile's C into pinned staging and on to the device; t->ci advances. */
cl_int chg_cin_chunk(chg_drv_t *v, chg_tile_t *t);
/* Device C buffer cs may be overwritten once the copies home of the tile in it are done: they
 * are issued now if they are not yet, and waited for. */
cl_int chg_free_cdev(chg_drv_t *v, int cs);

/* The write-back of the tile on the device (after its last C-in chunk and after the previous
 * contents of its device C buffer went home), registered as pending for its trip home. */
cl_int chg_writeback_tile(chg_drv_t *v, const chg_tile_t *t);

/* A device's final tile with A streamed (host/driver.c decides): its last k slice is launched
 * in t->split column pieces (Cp sub-buffers, whole work-group tiles each), each followed by its
 * write-back, and every chunk's copy home is enqueued at once, waiting for the write-back of the
 * piece that holds it -- so C starts home while the last pieces compute (the drain of a
 * one-tile plan: 2.8 ms of kernel and write-back before the first copy home at DGEMM n = 8192
 * on the H100). Registered as pending like chg_writeback_tile's. */
cl_int chg_writeback_split(chg_drv_t *v, const chg_tile_t *t);
/* 1 when each of np pieces' Cp sub-buffers would start at the device's
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN (chg_handle_dev_t sub_align), as a sub-buffer must. */
int chg_split_fits(const chg_drv_t *v, const chg_tile_t *t, int np);

/* Unpacks out slot `slot` completely (waiting for its copies home). */
cl_int chg_unpack_slot(chg_drv_t *v, int slot);
/* Pending tiles oldest first: unpacks what has arrived until the deadline (0: everything,
 * waiting for what is still on its way). */
cl_int chg_unpack_pending(chg_drv_t *v, unsigned long long deadline_ns);

/* A lost device: the columns of its pending tiles not yet unpacked (the chunks unpacked hold the
 * result) go on `out`, and the tiles are dropped. Returns 0, or -1 when out of memory. */
int chg_tile_pending_lost(chg_drv_t *v, chg_regions_t *out);

/* Releases every event the driver still holds. */
void chg_tile_events_release(chg_drv_t *v);

#endif
