/*
 * sched.c -- bands, tile taking, stealing and the CPU's strips (sched.h).
 */
#include <stdlib.h>

#include "host/fault.h"
#include "host/sched.h"

/* Takes up to w columns of band bi from its front or its back; with align, the columns taken
 * end (front) or start (back) on a multiple of w, so that every tile is a tile of the grid.
 * A band's front is its low end for even bands and its high end for odd ones (snake order),
 * or the low end for every band where the devices share their B slices (host/shared_b.h: devices
 * on different bands then ask for the same B slices at about the same time). */
static void band_take(const chg_call_t *c, chg_band_t *b, size_t bi, int front, size_t w, int align, size_t *j0,
                      size_t *nc)
{
    const int low = (c->bs || bi % 2 == 0) == (front != 0);
    if (align && low) w = (b->lo / w + 1) * w - b->lo;
    else if (align && b->hi > 0) w = b->hi - (b->hi - 1) / w * w;
    w = CHG_MIN(w, chg_band_left(b));
    if (low) {
        *j0 = b->lo;
        b->lo += w;
    } else {
        b->hi -= w;
        *j0 = b->hi;
    }
    *nc = w;
}

/* Columns left in all bands (c->mu held). */
static size_t bands_left(const chg_band_t *B, size_t mt)
{
    size_t left = 0;
    for (size_t i = 0; i < mt; i++) left += chg_band_left(&B[i]);
    return left;
}

int chg_sched_init(chg_call_t *c)
{
    c->bands = malloc(c->pl.mt * sizeof *c->bands);
    if (!c->bands) return -1;
    /* SYRK/SYR2K: a band holds only the columns whose tiles touch C's triangle (upper: from
     * the band's first row on; lower: up to its last row), so no other tile is ever taken. */
    c->ntiles = 0;
    for (size_t b = 0; b < c->pl.mt; b++) {
        const size_t i0 = b * c->pl.bm, i1 = CHG_MIN(c->m, i0 + c->pl.bm);
        c->bands[b] = (chg_band_t){c->st.c_tri == CHG_TRI_UPPER ? CHG_MIN(i0, c->n) : 0,
                               c->st.c_tri == CHG_TRI_LOWER ? CHG_MIN(i1, c->n) : c->n};
        c->ntiles += chg_ceil_div(chg_band_left(&c->bands[b]), c->pl.bn);
    }
    return 0;
}

void chg_sched_regions(chg_call_t *c, chg_regions_t *todo)
{
    for (size_t b = 0; b < c->pl.mt; b++) c->bands[b] = (chg_band_t){0, 0};
    size_t kept = 0;
    for (size_t r = 0; r < todo->n; r++) {
        const chg_region_t g = todo->r[r];
        chg_band_t *b = &c->bands[g.ti];
        if (chg_band_left(b) == 0) *b = (chg_band_t){g.j0, g.j0 + g.nc};
        else todo->r[kept++] = g;  /* the band has one already: the next round */
    }
    todo->n = kept;
}

int chg_sched_leftover(chg_call_t *c, chg_regions_t *todo)
{
    int rc = 0;
    for (size_t b = 0; b < c->pl.mt && rc == 0; b++) {
        chg_band_t *B = &c->bands[b];
        if (chg_band_left(B) > 0) rc = chg_regions_add(todo, b, B->lo, chg_band_left(B));
        if (rc == 0) *B = (chg_band_t){0, 0};
    }
    return rc;
}

void chg_sched_free(chg_call_t *c)
{
    free(c->bands);
    c->bands = NULL;
}

int chg_take_tile(chg_call_t *c, chg_sched_t *sc, size_t *ti, size_t *j0, size_t *nc, int *stolen, int *final)
{
    pthread_mutex_lock(&c->mu);
    chg_band_t *B = c->bands;
    const size_t mt = c->pl.mt, bn = c->pl.bn;
    long b = -1;
    int ok = c->status == CLHGEMM_SUCCESS;
    while (ok && b < 0) {
        if (sc->cur >= 0 && chg_band_left(&B[sc->cur]) > 0) {
            b = sc->cur;
            break;
        }
        long nb = -1;
        if (sc->next >= 0) {
            nb = sc->next;
            sc->next = -1;
        } else if (c->next_band < mt) {
            nb = (long)c->next_band++;
        }
        if (nb < 0) break;
        sc->cur = nb;
        if (!sc->started) {
            sc->started = 1;
            c->drivers_started++;
        }
        if (c->pl.amode == AMODE_PREFETCH && c->next_band < mt &&
            mt - c->next_band > (size_t)(c->drivers - c->drivers_started))
            sc->next = (long)c->next_band++;
    }
    *stolen = 0;
    if (ok && b >= 0) {
        band_take(c, &B[b], (size_t)b, 1, bn, c->align_n, j0, nc);
    } else if (ok) {
        size_t most = 0;
        for (size_t i = 0; i < mt; i++)
            if (chg_band_left(&B[i]) > most) {
                most = chg_band_left(&B[i]);
                b = (long)i;
            }
        if (b >= 0) {
            band_take(c, &B[b], (size_t)b, 0, bn, c->align_n, j0, nc);
            *stolen = 1;
            c->stolen++;
        }
    }
    /* A final tile: less than a tile per device is left, so this device gets no other. Where
     * the devices share their B slices (shared_b.h), also the last of its band (or a stolen
     * one): the second device's first tile of a 2 x 2 grid is not split into pieces while the
     * first device's runs whole beside it, which would leave no slice to share. */
    *final = ok && b >= 0 && bands_left(B, mt) < (size_t)c->drivers * bn &&
             (!c->bs || *stolen || chg_band_left(&B[b]) == 0);
    pthread_mutex_unlock(&c->mu);
    if (!ok || b < 0) return 0;
    *ti = (size_t)b;
    return 1;
}

/* CPU_STRIPS: the CPU takes column strips from the back of the fullest band, each sized for
 * about 0.1 s of OpenBLAS, and stops once a strip would outlast what the devices have left
 * (the CPU must never become the call's tail). */
int chg_take_strip(chg_call_t *c, size_t *ti, size_t *j0, size_t *w)
{
    pthread_mutex_lock(&c->mu);
    int ok = c->status == CLHGEMM_SUCCESS;
    long b = -1;
    size_t most = 0;
    for (size_t i = 0; ok && i < c->pl.mt; i++)
        if (chg_band_left(&c->bands[i]) > most) {
            most = chg_band_left(&c->bands[i]);
            b = (long)i;
        }
    if (ok && b >= 0) {
        const size_t mc = CHG_MIN(c->pl.bm, c->m - (size_t)b * c->pl.bm);
        const double per_col = 2.0 * (double)mc * (double)c->k;
        size_t width = (size_t)(c->cpu_rate * 0.1 / per_col);
        width = CHG_MIN(CHG_MAX(chg_round_up(CHG_MAX(width, (size_t)1), 16), (size_t)64), most);
        const double cpu_s = per_col * (double)width / c->cpu_rate;
        const double dev_s = per_col * (double)(bands_left(c->bands, c->pl.mt) - width) / c->gpu_rate;
        if (cpu_s < 0.8 * dev_s)
            band_take(c, &c->bands[b], (size_t)b, 0, width, 0, j0, w);
        else
            b = -1;
    }
    pthread_mutex_unlock(&c->mu);
    if (!ok || b < 0) return 0;
    *ti = (size_t)b;
    return 1;
}
