/*
 * shared_b.h -- B slices staged once for every device of a call (shared_b.c owns it).
 *
 * On a row split every device needs every B slice of its tile columns: with a staging ring per
 * device, each slice was copied from the caller's pageable memory into pinned memory once per
 * device, and on two H100s those copies bound the call (16 pack threads 86-90% busy, A + 2B + 2C
 * through them against A + B + 2C on one GPU). Here the drivers of a call share one set of pinned
 * slots, allocated in the first device's context: the first driver to ask for a slice (its key:
 * k slice, ramp part, tile columns) packs it, chunk by chunk, and every driver that asks for the
 * same key while it is held copies it to its own device from there. A device writes from another
 * context's pinned memory at its own pinned rate (bench/probe/probe_pinned_share.c: 55.3 against
 * 55.1 GB/s on two H100s, 1.1x on two PoCL devices). The band schedule walks every band in the
 * same direction while sharing (host/sched.c), so devices on different bands ask for the same
 * slices at about the same time.
 *
 * A slot is taken for a key, packed by its filler, copied by its users, and reused once nobody
 * holds it and every copy out of it has run (host-side waits, the rule of tile.h); the slots
 * every sharing driver has used go first, then the oldest. A filler that fails part way leaves
 * the rest of the slot to the next user, which packs it itself. Nothing here can give a wrong
 * result: a key is the exact geometry of what is staged, and a slice not found is packed again.
 *
 * CLHGEMM_SHARE_B=auto|on|off (validated; auto: on for calls on two or more devices of one
 * platform, NVIDIA's or PoCL's OpenCL, where a foreign context's pinned memory was measured at
 * the own rate).
 */
#ifndef CHG_HOST_SHARED_B_H
#define CHG_HOST_SHARED_B_H

#include "host/handle.h"

#define BS_MAXDEV 16  /* devices of a call that share (more: no sharing) */

/* What a B slice stages: k slice s (global, SYR2K's second product included), the part
 * [q0, q0 + qk) of it (qk = 0: all), tile columns [j0, j0 + nc). */
typedef struct chg_bs_key_s {
    size_t s, q0, qk, j0, nc;
} chg_bs_key_t;

typedef struct chg_bs_slot_s {
    chg_pinned_t *st;          /* the owner device's st_bs[i] */
    int used;                  /* holds `key` */
    chg_bs_key_t key;
    unsigned long long seq;    /* when it was last filled */
    int nch, ready;            /* chunks, and chunks packed so far (in order) */
    int dead;                  /* its filler stopped part way: the next user packs the rest */
    int holds;                 /* drivers between take and release */
    unsigned users;            /* bit per sharing device (chg_shared_b_pos) that took it */
    int filler;                /* position of the device that packed it */
    cl_event ev[BS_MAXDEV];    /* each sharing device's last copy out of it, by position */
} chg_bs_slot_t;

typedef struct chg_shared_b_s {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    chg_bs_slot_t slot[BS_SLOTS];
    int ndev;                  /* sharing devices */
    int index[BS_MAXDEV];      /* their device indices (chg_handle_dev_t.index), by position */
    int expected, arrived;     /* drivers of the call, and those past their setup */
    unsigned long long seq;
    double packed, shared;     /* slices packed here, copies served from another device's pack */
    double reused;             /* and slices a device found that it had packed itself */
} chg_shared_b_t;

/* CLHGEMM_SHARE_B for the devices of a call: 1 when their B slices are staged once. */
int chg_shared_b_wanted(const chg_handle_dev_t *const *devs, int ndev);

/* A call's sharing over devices devs[0..ndev): the owner's (devs[0]) slots reserved for
 * `bytes` each. Returns NULL (no sharing: each device stages its own) when not wanted, with
 * fewer than two devices, or when the slots cannot be had (out of memory). */
chg_shared_b_t *chg_shared_b_begin(chg_handle_dev_t *const *devs, int ndev, size_t bytes);
/* Waits for every copy out of the slots and frees the sharing state (NULL: nothing). */
void chg_shared_b_end(chg_shared_b_t *bs);

/* The start line: a driver past its setup (or failed at it) waits here until every driver of
 * the call is, so that the devices begin in step (a first call's setup differs between devices
 * by up to 2 s on two H100s -- pinned staging of 10 GB each -- and a device that starts that
 * much later never meets the other's slices). NULL: returns at once. */
void chg_shared_b_arrive(chg_shared_b_t *bs);
/* A driver of the call that will not run (its thread could not be started). */
void chg_shared_b_leave(chg_shared_b_t *bs);

/* The position among the sharing devices of the device with index `index`, or -1 (then it
 * stages its own slices). */
int chg_shared_b_pos(const chg_shared_b_t *bs, int index);

/* The slot for key k (nch chunks) for the device at position `pos` (chg_shared_b_pos): *fill = 1
 * when this driver is to pack it (every chunk, chg_shared_b_ready after each), 0 when another did
 * or does (chg_shared_b_wait before copying each chunk). The slot is held until chg_shared_b_release. */
chg_bs_slot_t *chg_shared_b_take(chg_shared_b_t *bs, const chg_bs_key_t *k, int nch, int pos, int *fill);
/* Chunk ch of a slot this driver fills has been packed. */
void chg_shared_b_ready(chg_shared_b_t *bs, chg_bs_slot_t *sl, int ch);
/* Waits until chunk ch is packed; 1 when its filler stopped before it, so this driver packs it
 * (and calls chg_shared_b_ready) itself. */
int chg_shared_b_wait(chg_shared_b_t *bs, chg_bs_slot_t *sl, int ch);
/* Done with the slot (device at `pos`): `last` (retained here; NULL: none) is its last copy out of it;
 * a filler that stops part way passes its failure (the rest goes to the next user). */
void chg_shared_b_release(chg_shared_b_t *bs, chg_bs_slot_t *sl, int pos, cl_event last, int failed);

#endif
