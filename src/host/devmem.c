/*
 * devmem.c -- the buffers a device of a handle keeps between calls, and its release; the
 * process's handles, whose idle members give back what they keep (devmem.h).
 */
#include <pthread.h>
#include <stdlib.h>

#include "host/devmem.h"

/* Buffers of a device for this plan; grown (never shrunk) across calls. */
cl_int chg_devmem_reserve(chg_handle_dev_t *d, int which, size_t bytes, int slots)
{
    if (d->buf_bytes[which] >= bytes && d->buf_slots[which] >= slots) return CL_SUCCESS;
    for (int s = 0; s < NSTAGE; s++) {
        if (d->buf[which][s]) clReleaseMemObject(d->buf[which][s]);
        d->buf[which][s] = NULL;
    }
    d->buf_bytes[which] = 0;
    d->buf_slots[which] = 0;
    cl_int err = CL_SUCCESS;
    for (int s = 0; s < slots && err == CL_SUCCESS; s++) d->buf[which][s] = chg_dev_alloc(d->ctx, bytes, &err);
    if (err != CL_SUCCESS) {
        for (int s = 0; s < NSTAGE; s++) {
            if (d->buf[which][s]) clReleaseMemObject(d->buf[which][s]);
            d->buf[which][s] = NULL;
        }
        return err;
    }
    d->buf_bytes[which] = bytes;
    d->buf_slots[which] = slots;
    return CL_SUCCESS;
}

cl_int chg_devmem_reserve_pinned(chg_handle_dev_t *d, chg_pinned_t *st, int slots, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    for (int s = 0; s < slots && err == CL_SUCCESS; s++) {
        if (st[s].buf && st[s].bytes >= bytes) continue;
        chg_pinned_free(d->q[Q_H2D], &st[s]);
        err = chg_pinned_alloc(d->ctx, d->q[Q_H2D], bytes, &st[s]);
    }
    return err;
}

static size_t free_device_buffers(chg_handle_dev_t *d)
{
    size_t bytes = 0;
    for (int b = 0; b < B_COUNT; b++) {
        for (int s = 0; s < NSTAGE; s++) {
            if (d->buf[b][s]) clReleaseMemObject(d->buf[b][s]);
            d->buf[b][s] = NULL;
        }
        bytes += d->buf_bytes[b] * (size_t)d->buf_slots[b];
        d->buf_bytes[b] = 0;
        d->buf_slots[b] = 0;
    }
    return bytes;
}

size_t chg_devmem_free_device(chg_handle_dev_t *d)
{
    for (int i = 0; i < d->nq; i++)
        if (d->q[i]) clFinish(d->q[i]);
    return free_device_buffers(d);
}

static void free_all_buffers(chg_handle_dev_t *d)
{
    free_device_buffers(d);
    for (int s = 0; s < NSTAGE; s++) {
        chg_pinned_free(d->q[Q_H2D], &d->st_a[s]);
        chg_pinned_free(d->q[Q_H2D], &d->st_b[s]);
    }
    chg_pinned_free(d->q[Q_H2D], &d->st_cin);
    for (int s = 0; s < NOUT; s++) chg_pinned_free(d->q[Q_H2D], &d->st_cout[s]);
    for (int s = 0; s < BS_SLOTS; s++) chg_pinned_free(d->q[Q_H2D], &d->st_bs[s]);
}

void chg_devmem_release(chg_handle_dev_t *d)
{
    for (int i = 0; i < d->nq; i++)
        if (d->q[i]) clFinish(d->q[i]);
    free_all_buffers(d);
    for (int i = 0; i < d->nq; i++)
        if (d->q[i]) clReleaseCommandQueue(d->q[i]);
    if (d->ctx) clReleaseContext(d->ctx);
    for (int i = 0; i < d->nq; i++) d->q[i] = NULL;
    d->nq = 0;
    d->ctx = NULL;
}

/* ---- the process's handles -------------------------------------------------------------------- */

static pthread_mutex_t g_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static clhgemm_handle_t g_reg_head;

void chg_handle_register(clhgemm_handle_t h)
{
    pthread_mutex_lock(&g_reg_lock);
    h->reg_next = g_reg_head;
    g_reg_head = h;
    pthread_mutex_unlock(&g_reg_lock);
}

void chg_handle_unregister(clhgemm_handle_t h)
{
    pthread_mutex_lock(&g_reg_lock);
    for (clhgemm_handle_t *p = &g_reg_head; *p; p = &(*p)->reg_next)
        if (*p == h) {
            *p = h->reg_next;
            break;
        }
    h->reg_next = NULL;
    pthread_mutex_unlock(&g_reg_lock);
}

size_t chg_handles_release_idle(cl_device_id id, clhgemm_handle_t self, int *handles)
{
    size_t bytes = 0;
    *handles = 0;
    pthread_mutex_lock(&g_reg_lock);
    for (clhgemm_handle_t o = g_reg_head; o; o = o->reg_next) {
        if (o == self || pthread_mutex_trylock(&o->call_lock) != 0) continue;
        size_t got = 0;
        for (int i = 0; i < o->ndev; i++)
            if (o->devs[i].id == id) got += chg_devmem_free_device(&o->devs[i]);
        pthread_mutex_unlock(&o->call_lock);
        bytes += got;
        *handles += got > 0;
    }
    pthread_mutex_unlock(&g_reg_lock);
    return bytes;
}
