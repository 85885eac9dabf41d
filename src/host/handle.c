/*
 * handle.c -- what a handle records for its callers (handle.h): the info of the last call,
 * written by every host call and read by clhgemm_last_call_info, and whether every device in
 * use runs FP64. Apart from host/create.c, which makes a handle from the modules below it, so
 * that those modules may use these without a cycle.
 */
#include "host/handle.h"

void chg_handle_set_last(clhgemm_handle_t h, const clhgemm_call_info_t *info)
{
    pthread_mutex_lock(&h->info_lock);
    h->last = *info;
    atomic_store_explicit(&h->last_is_cpu, 0, memory_order_relaxed);
    pthread_mutex_unlock(&h->info_lock);
}

void chg_handle_fp64_update(clhgemm_handle_t h)
{
    int all = 1;
    for (int i = 0; i < h->ndev; i++) all &= (h->devs[i].dev.features & CHG_FEAT_FP64) != 0;
    atomic_store_explicit(&h->fp64_all, all, memory_order_relaxed);
}

void chg_handle_set_last_cpu_slow(clhgemm_handle_t h)
{
    pthread_mutex_lock(&h->info_lock);
    h->last = (clhgemm_call_info_t){.cpu_fraction = 1.0};
    atomic_store_explicit(&h->last_is_cpu, 1, memory_order_relaxed);
    pthread_mutex_unlock(&h->info_lock);
}

CLHGEMM_API clhgemm_status_t clhgemm_last_call_info(clhgemm_handle_t h, clhgemm_call_info_t *info)
{
    if (!h) return CLHGEMM_NULL_HANDLE;
    if (!info) return CLHGEMM_INVALID_ARGUMENT;
    pthread_mutex_lock(&h->info_lock);
    *info = h->last;
    pthread_mutex_unlock(&h->info_lock);
    return CLHGEMM_SUCCESS;
}
