/*
 * run.c -- one host-memory call through the pipeline (run.h): plan, share, schedule, drivers,
 * call info.
 */
#include <stdlib.h>

#include "cpu/share_blas.h"
#include "host/devmem.h"
#include "host/driver.h"
#include "host/fault.h"
#include "host/prefault.h"
#include "host/run.h"
#include "host/sched.h"
#include "host/share.h"
#include "host/shared_b.h"

/* ---- the plan -------------------------------------------------------------------------------- */

/* The model's inputs and the plan of the call; what the level-3 structure asks of the
 * schedule (docs/ARCHITECTURE.md, host level 3): on the X_B side of a symmetric operand the
 * tiles keep to the bn grid; a structured X_B's final tile is not split into pieces (TRMM
 * right: a piece would re-read the row band another piece wrote). */
static int plan(clhgemm_handle_t h, chg_call_t *c, chg_pctx_t *pc)
{
    chg_plan_context(h, c->prec, c->m, c->n, c->k, chg_call_beta_zero(c), &c->st, c->segs, pc);
    c->align_n = c->st.kind_b == CHG_SYMMETRIC;
    c->no_pieces = c->st.kind_b != CHG_GENERAL;
    return chg_plan_call(h, pc, &c->pl);
}

/* Everything on the CPU (the share took all rows): OpenBLAS on every core, since no pack thread
 * runs beside it (the share's thread budget leaves cores to the pack threads; with it an SGEMM
 * of n = 2048 ran at half OpenBLAS's rate on the H100 machine). */
static void cpu_all(clhgemm_handle_t h, const chg_call_t *c, unsigned long long t0, double predicted)
{
    const unsigned long long t1 = chg_now_ns();
    chg_cpu_gemm(c->prec, c->ta, c->tb, c->m, c->n, c->k, c->alpha, c->a, c->lda, c->b, c->ldb, c->beta,
                 c->c, c->ldc, chg_cpu_cores());
    chg_handle_set_last(h, &(clhgemm_call_info_t){.seconds = chg_seconds_since(t0), .cpu_fraction = 1.0,
                                                  .cpu_threads = chg_cpu_cores(), .predicted_seconds = predicted});
    chg_log(1, "CPU share 1: %.3f s on OpenBLAS", (chg_now_ns() - t1) * 1e-9);
}

/* The plan and the share of the call; 0 when it is done already (all on the CPU) or failed
 * (*st says which). */
static int plan_and_share(clhgemm_handle_t h, chg_call_t *c, chg_share_t *sh, unsigned long long t0,
                          clhgemm_status_t *st)
{
    chg_pctx_t pc;
    *st = CLHGEMM_SUCCESS;
    if (!plan(h, c, &pc)) {
        *st = CLHGEMM_WORKSPACE_TOO_SMALL;
        return 0;
    }
    chg_share_decide(h, c, sh);
    c->cpu_threads = h->cpu_threads;
    if (sh->rows >= c->m) {
        cpu_all(h, c, t0, sh->predicted);
        return 0;
    }
    if (sh->rows) {
        /* The devices take the top rows: plan again for them. */
        c->m -= sh->rows;
        pc.m = c->m;
        if (!chg_plan_call(h, &pc, &c->pl)) {
            *st = CLHGEMM_WORKSPACE_TOO_SMALL;
            return 0;
        }
        if (h->cpu_mode == CPU_FIXED)
            sh->predicted = CHG_MAX(c->pl.predicted, 2.0 * sh->rows * c->n * c->k /
                                                         CHG_MAX(1.0, chg_cpu_rate(c->prec, h->cpu_threads)));
    }
    if (c->cpu_strips) chg_share_strip_rates(c, sh->r_cpu);
    if (sh->rows || c->cpu_strips) c->pack_parts = CHG_MAX(1, chg_cpu_cores() - h->cpu_threads);
    chg_pool_spin(h->pool, !(sh->rows || c->cpu_strips)); /* OpenBLAS beside: no polling */
    if (chg_verbose() >= 1) chg_plan_log(h, &pc, &c->pl, c->name);
    return 1;
}

/* ---- the run ---------------------------------------------------------------------------------- */

typedef struct driver_s {
    chg_call_t *c;
    chg_handle_dev_t *d;
    pthread_t th;
    clhgemm_status_t status;
} driver_t;

static void *driver_main(void *arg)
{
    driver_t *dr = arg;
    dr->status = chg_drive(dr->c, dr->d);
    if (dr->status != CLHGEMM_SUCCESS) chg_call_fail(dr->c, dr->status);
    return NULL;
}

/* One driver thread per device not lost, the first `most` of them (the caller drives the
 * first), beside the CPU share's threads, over the schedule's bands. */
static clhgemm_status_t run_devices(clhgemm_handle_t h, chg_call_t *c, driver_t *drs, size_t cpu_rows, int most)
{
    int nd = 0;
    for (int i = 0; i < h->ndev && nd < most; i++)
        if (!h->devs[i].lost) drs[nd++] = (driver_t){.c = c, .d = &h->devs[i]};
    c->drivers = nd;
    c->drivers_started = 0;
    c->next_band = 0;
    /* B slices staged once for all of them (shared_b.h), before any driver starts */
    chg_handle_dev_t *devs[BS_MAXDEV];
    int nbs = 0;
    for (int i = 0; i < nd && nbs < BS_MAXDEV; i++) devs[nbs++] = drs[i].d;
    c->bs = nd == nbs ? chg_shared_b_begin(devs, nbs, c->pl.bk * c->pl.bn * c->es) : NULL;
    for (int i = 1; i < nd; i++)
        if (pthread_create(&drs[i].th, NULL, driver_main, &drs[i]) != 0) {
            drs[i].d = NULL;  /* the others take its tiles */
            chg_shared_b_leave(c->bs);
            pthread_mutex_lock(&c->mu);
            c->drivers--;
            pthread_mutex_unlock(&c->mu);
        }
    chg_share_run_t sr;
    chg_share_start(c, cpu_rows, &sr);
    if (nd > 0) driver_main(&drs[0]);
    for (int i = 1; i < nd; i++)
        if (drs[i].d) pthread_join(drs[i].th, NULL);
    chg_share_join(&sr);
    chg_shared_b_end(c->bs);
    c->bs = NULL;
    return c->status;
}

/* ---- lost devices (host/fault.h) ------------------------------------------------------------ */

/* The regions the lost devices left, moved onto `todo`. Returns 0, or -1 when out of memory. */
static int collect_regions(clhgemm_handle_t h, chg_regions_t *todo)
{
    int rc = 0;
    for (int i = 0; i < h->ndev; i++) {
        chg_regions_t *l = &h->devs[i].redo;
        for (size_t r = 0; r < l->n && rc == 0; r++) rc = chg_regions_add(todo, l->r[r].ti, l->r[r].j0, l->r[r].nc);
        free(l->r);
        *l = (chg_regions_t){0};
    }
    return rc;
}

static int devices_left(clhgemm_handle_t h)
{
    int n = 0;
    for (int i = 0; i < h->ndev; i++) n += !h->devs[i].lost;
    return n;
}

/* Every region on the CPU (no device left), OpenBLAS on every core. */
static clhgemm_status_t cpu_regions(chg_call_t *c, const chg_regions_t *todo)
{
    clhgemm_status_t st = CLHGEMM_SUCCESS;
    for (size_t r = 0; r < todo->n && st == CLHGEMM_SUCCESS; r++) {
        const chg_region_t *g = &todo->r[r];
        const size_t i0 = g->ti * c->pl.bm;
        st = chg_cpu_region(c, i0, CHG_MIN(c->pl.bm, c->m - i0), g->j0, g->nc, chg_cpu_cores());
        c->cpu_elems += (double)CHG_MIN(c->pl.bm, c->m - i0) * (double)g->nc;
    }
    return st;
}

/* What lost devices (and devices short of memory, fault.h) left, computed again: in rounds on
 * every device left, also those the plan did not choose (each round's bands hold one region per
 * tile row; one that meets a region already there waits for the next round), then on the CPU
 * when none is left. A round either finishes its regions, loses a device, or finds a device
 * short of memory for the first time in the call (a second time loses it), so the rounds end. */
static clhgemm_status_t recover(clhgemm_handle_t h, chg_call_t *c, driver_t *drs, clhgemm_status_t st)
{
    chg_regions_t todo = {0};
    c->cpu_strips = 0;  /* the CPU share took its part in the first round */
    const int used = c->devices_used;
    for (;;) {
        /* what the lost devices had taken, and what nobody took (every device lost) */
        if ((collect_regions(h, &todo) != 0 || chg_sched_leftover(c, &todo) != 0) && st == CLHGEMM_SUCCESS)
            st = CLHGEMM_OUT_OF_HOST_MEMORY;
        if (st != CLHGEMM_SUCCESS || todo.n == 0) break;
        if (devices_left(h) == 0) {
            st = cpu_regions(c, &todo);
            break;
        }
        chg_sched_regions(c, &todo);
        c->devices_used = 0;
        st = run_devices(h, c, drs, 0, h->ndev);
        c->devices_used = CHG_MAX(used, c->devices_used);  /* devices, not rounds */
    }
    free(todo.r);
    return st;
}

/* The call info, the log line, and the pack rate the pipeline reached. */
static void record(clhgemm_handle_t h, const chg_call_t *c, size_t m_all, double predicted, unsigned long long t0,
                   unsigned long long t_planned, clhgemm_status_t st)
{
    const clhgemm_call_info_t info = {.devices_used = c->devices_used, .tiles = (long long)c->ntiles,
                                      .tile_m = (int)c->pl.bm, .tile_n = (int)c->pl.bn,
                                      .tile_k = (int)c->pl.bk, .seconds = chg_seconds_since(t0),
                                      .bytes_to_device = c->bytes_h2d, .bytes_from_device = c->bytes_d2h,
                                      .a_mode = c->pl.amode, .tiles_stolen = c->stolen,
                                      .cpu_fraction = c->cpu_elems / ((double)m_all * c->n),
                                      .cpu_threads = c->cpu_elems > 0 ? c->cpu_threads : 0,
                                      .predicted_seconds = predicted,
                                      .setup_seconds = (t_planned - t0) * 1e-9 + c->setup_s};
    chg_handle_set_last(h, &info);
    const double seconds = info.seconds;
    chg_log(1, "done in %.3f s (planning %.1f ms): %.1f GFLOP/s, %.2f GB to devices, %.2f GB back, "
               "%lld tile(s) stolen",
            seconds, (t_planned - t0) * 1e-6, c->flops / seconds * 1e-9, c->bytes_h2d * 1e-9,
            c->bytes_d2h * 1e-9, c->stolen);
    /* The pack rate the pipeline reached (drivers' copies overlap: their wall times are
     * shared) replaces the handle's estimate for the next plan, once a call moved enough to
     * say (small copies are dominated by waking the threads). Kept within 4x of the rate
     * measured alone, against a call disturbed from outside. */
    if (st == CLHGEMM_SUCCESS && c->copy_bytes >= 256e6 && c->copy_ns > 0 && c->devices_used > 0) {
        const double seen = c->copy_bytes / (c->copy_ns * 1e-9 / c->devices_used);
        h->pack_seen_bps = CHG_MIN(CHG_MAX(seen, 0.25 * h->pack_bps), 4.0 * h->pack_bps);
        chg_log(1, "pack threads reached %.1f GB/s in this call (%.2f GB); the next plan uses it",
                seen * 1e-9, c->copy_bytes * 1e-9);
    }
}

/* The planned call on the devices and the CPU share. */
static clhgemm_status_t run_planned(clhgemm_handle_t h, chg_call_t *c, const chg_share_t *sh, size_t m_all,
                                    unsigned long long t0)
{
    const unsigned long long t_planned = chg_now_ns();
    driver_t *drs = calloc((size_t)h->ndev, sizeof *drs);
    if (!drs || chg_sched_init(c) != 0) {
        free(drs);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_init(&c->mu, NULL);
    for (int i = 0; i < h->ndev; i++) h->devs[i].short_in_call = 0;
    c->trace = chg_trace_begin(h->trace_path, h->trace_origin);
    /* C's pages faulted in while the first tiles compute (a fresh C: prefault.h) */
    chg_prefault_t pf;
    chg_prefault_start(&pf, c->c, m_all, c->n, c->ldc, c->es,
                       chg_env_int("CLHGEMM_PREFAULT_THREADS", CHG_MIN(4, CHG_MAX(1, chg_cpu_cores() / 4)), 1,
                                   PF_MAX_THREADS));
    /* The plan's devices only: the first c->pl.ndev (chg_plan_call's choice) */
    const clhgemm_status_t st = recover(h, c, drs, run_devices(h, c, drs, sh->rows, CHG_MAX(1, c->pl.ndev)));
    chg_prefault_join(&pf);
    free(drs);
    if (chg_trace_end(c->trace) != 0) chg_log(1, "could not write the trace %s", h->trace_path);
    record(h, c, m_all, sh->predicted, t0, t_planned, st);
    pthread_mutex_destroy(&c->mu);
    chg_sched_free(c);
    return st;
}

/* No device left (all lost in earlier calls): the whole call on the CPU. */
static clhgemm_status_t run_without_devices(clhgemm_handle_t h, chg_call_t *c, unsigned long long t0)
{
    const clhgemm_status_t st = chg_cpu_region(c, 0, c->m, 0, c->n, chg_cpu_cores());
    chg_handle_set_last(h, &(clhgemm_call_info_t){.seconds = chg_seconds_since(t0), .cpu_fraction = 1.0,
                                                  .cpu_threads = chg_cpu_cores()});
    return st;
}

clhgemm_status_t chg_run_call(clhgemm_handle_t h, const chg_call_t *cp)
{
    chg_call_t c = *cp;
    c.status = CLHGEMM_SUCCESS;
    pthread_mutex_lock(&h->call_lock);
    const unsigned long long t0 = chg_now_ns();
    const size_t m_all = c.m;
    chg_share_t sh;
    clhgemm_status_t st;
    if (h->ndev == 0) {
        st = run_without_devices(h, &c, t0);
    } else if (plan_and_share(h, &c, &sh, t0, &st)) {
        st = run_planned(h, &c, &sh, m_all, t0);
    } else if (st == CLHGEMM_WORKSPACE_TOO_SMALL && h->route.mode == ROUTE_AUTO && h->route.cpu_ok) {
        /* No tile of the devices' kernels fits their memory limit (CLHGEMM_DEVICE_MEMORY_LIMIT
         * or the option below one tile): the automatic route takes the CPU instead of failing;
         * CLHGEMM_ROUTE=device keeps the status (nothing was written). */
        chg_log(1, "%s %zux%zux%zu: no tile fits the devices' memory limit; on the CPU", c.name, c.m, c.n,
                c.k);
        st = run_without_devices(h, &c, t0);
    }
    /* Devices lost in this call leave the handle: later calls plan without them. */
    chg_handle_drop_lost(h);
    pthread_mutex_unlock(&h->call_lock);
    return st;
}
