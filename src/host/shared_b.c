/*
 * shared_b.c -- B slices staged once for every device of a call (shared_b.h).
 */
#include <stdlib.h>

#include "host/shared_b.h"

#include "host/devmem.h"

int chg_shared_b_wanted(const chg_handle_dev_t *const *devs, int ndev)
{
    static const char *const names[] = {"auto", "on", "off", NULL};
    const int mode = chg_env_choice("CLHGEMM_SHARE_B", names, 0);
    if (ndev < 2 || mode == 2) return 0;
    if (mode == 1) return 1;
    /* the measured case: devices of one platform (another platform's driver would see this
     * memory as pageable: right, but slower than its own staging) */
    for (int i = 0; i < ndev; i++)
        if (!(devs[i]->dev.features & CHG_FEAT_FOREIGN_PINNED) || devs[i]->dev.info.platform != devs[0]->dev.info.platform)
            return 0;
    return 1;
}

chg_shared_b_t *chg_shared_b_begin(chg_handle_dev_t *const *devs, int ndev, size_t bytes)
{
    if (!chg_shared_b_wanted((const chg_handle_dev_t *const *)devs, ndev)) return NULL;
    chg_handle_dev_t *owner = devs[0];
    if (chg_devmem_reserve_pinned(owner, owner->st_bs, BS_SLOTS, bytes) != CL_SUCCESS) {
        chg_log(1, "B slices: no shared staging (%zu bytes x %d pinned not had): each device stages its own",
                bytes, BS_SLOTS);
        return NULL;
    }
    chg_shared_b_t *bs = calloc(1, sizeof *bs);
    if (!bs) return NULL;
    pthread_mutex_init(&bs->mu, NULL);
    pthread_cond_init(&bs->cv, NULL);
    for (int i = 0; i < BS_SLOTS; i++) bs->slot[i].st = &owner->st_bs[i];
    bs->ndev = ndev;
    for (int i = 0; i < ndev; i++) bs->index[i] = devs[i]->index;
    bs->expected = ndev;
    return bs;
}

int chg_shared_b_pos(const chg_shared_b_t *bs, int index)
{
    for (int i = 0; i < bs->ndev; i++)
        if (bs->index[i] == index) return i;
    return -1;
}

void chg_shared_b_arrive(chg_shared_b_t *bs)
{
    if (!bs) return;
    pthread_mutex_lock(&bs->mu);
    bs->arrived++;
    pthread_cond_broadcast(&bs->cv);
    while (bs->arrived < bs->expected) pthread_cond_wait(&bs->cv, &bs->mu);
    pthread_mutex_unlock(&bs->mu);
}

void chg_shared_b_leave(chg_shared_b_t *bs)
{
    if (!bs) return;
    pthread_mutex_lock(&bs->mu);
    bs->expected--;
    pthread_cond_broadcast(&bs->cv);
    pthread_mutex_unlock(&bs->mu);
}

/* Every copy out of the slot has run (its events waited for and released). Errors are not
 * this module's: a failed copy is its driver's, and the memory is not read any more. */
static void wait_copies(cl_event ev[BS_MAXDEV])
{
    for (int d = 0; d < BS_MAXDEV; d++)
        if (ev[d]) {
            clWaitForEvents(1, &ev[d]);
            clReleaseEvent(ev[d]);
            ev[d] = NULL;
        }
}

void chg_shared_b_end(chg_shared_b_t *bs)
{
    if (!bs) return;
    for (int i = 0; i < BS_SLOTS; i++) wait_copies(bs->slot[i].ev);
    chg_log(1, "B slices: %.0f packed, %.0f copies served from another device's pack, %.0f reused by the same device",
            bs->packed, bs->shared, bs->reused);
    pthread_cond_destroy(&bs->cv);
    pthread_mutex_destroy(&bs->mu);
    free(bs);
}

static int key_eq(const chg_bs_key_t *a, const chg_bs_key_t *b)
{
    return a->s == b->s && a->q0 == b->q0 && a->qk == b->qk && a->j0 == b->j0 && a->nc == b->nc;
}

/* A slot to fill (bs->mu held), or -1 while every slot is held: one no driver holds, first
 * an empty one, then one every sharing device has used, then the oldest. */
static int pick_victim(const chg_shared_b_t *bs)
{
    const unsigned all = (1u << bs->ndev) - 1; /* every sharing device's bit */
    int best = -1, best_rank = 3;
    for (int i = 0; i < BS_SLOTS; i++) {
        const chg_bs_slot_t *s = &bs->slot[i];
        if (s->holds) continue;
        const int rank = !s->used ? 0 : (s->users & all) == all ? 1 : 2;
        if (rank < best_rank || (rank == best_rank && s->seq < bs->slot[best].seq)) {
            best = i;
            best_rank = rank;
        }
    }
    return best;
}

chg_bs_slot_t *chg_shared_b_take(chg_shared_b_t *bs, const chg_bs_key_t *k, int nch, int pos, int *fill)
{
    const unsigned bit = 1u << pos;
    pthread_mutex_lock(&bs->mu);
    for (int i = 0; i < BS_SLOTS; i++) {
        chg_bs_slot_t *s = &bs->slot[i];
        if (s->used && s->nch == nch && key_eq(&s->key, k)) {
            s->holds++;
            s->users |= bit;
            if (s->filler == pos) bs->reused++;
            else bs->shared++;
            pthread_mutex_unlock(&bs->mu);
            *fill = 0;
            return s;
        }
    }
    int v;
    while ((v = pick_victim(bs)) < 0) pthread_cond_wait(&bs->cv, &bs->mu);
    chg_bs_slot_t *s = &bs->slot[v];
    cl_event old[BS_MAXDEV];
    for (int d = 0; d < BS_MAXDEV; d++) {
        old[d] = s->ev[d];
        s->ev[d] = NULL;
    }
    /* Taken for the new key now (others asking for it wait for its chunks); the copies still
     * reading the old contents are waited for outside the lock, before the first chunk. */
    s->used = 1;
    s->key = *k;
    s->seq = ++bs->seq;
    s->nch = nch;
    s->ready = 0;
    s->dead = 0;
    s->holds = 1;
    s->users = bit;
    s->filler = pos;
    bs->packed++;
    pthread_mutex_unlock(&bs->mu);
    wait_copies(old);
    *fill = 1;
    return s;
}

void chg_shared_b_ready(chg_shared_b_t *bs, chg_bs_slot_t *sl, int ch)
{
    pthread_mutex_lock(&bs->mu);
    if (sl->ready < ch + 1) sl->ready = ch + 1;
    sl->dead = 0;  /* a user that took the rest over fills in order like the filler */
    pthread_cond_broadcast(&bs->cv);
    pthread_mutex_unlock(&bs->mu);
}

int chg_shared_b_wait(chg_shared_b_t *bs, chg_bs_slot_t *sl, int ch)
{
    pthread_mutex_lock(&bs->mu);
    while (sl->ready <= ch && !sl->dead) pthread_cond_wait(&bs->cv, &bs->mu);
    const int mine = sl->ready <= ch;  /* the filler stopped before this chunk */
    if (mine) sl->dead = 0;            /* this driver fills on: the others wait for it */
    pthread_mutex_unlock(&bs->mu);
    return mine;
}

void chg_shared_b_release(chg_shared_b_t *bs, chg_bs_slot_t *sl, int pos, cl_event last, int failed)
{
    const int d = pos;
    pthread_mutex_lock(&bs->mu);
    if (last) {
        clRetainEvent(last);
        if (sl->ev[d]) clReleaseEvent(sl->ev[d]);  /* in-order h2d queue: the newest implies it */
        sl->ev[d] = last;
    }
    if (failed && sl->ready < sl->nch) {
        /* The rest goes to whoever takes it next; with no user left waiting, a later take of
         * the key finds it dead and packs the rest itself. */
        sl->dead = 1;
    }
    sl->holds--;
    pthread_cond_broadcast(&bs->cv);
    pthread_mutex_unlock(&bs->mu);
}
