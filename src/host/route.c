/*
 * route.c -- the routing model of host-memory calls (route.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/plan.h"
#include "host/route.h"


/* chg_verbose() as handle creation read it (it is read once per process): a call's decision
 * then asks no pthread_once. */
atomic_int chg_route_verbose_;

_Static_assert(CHG_TUNING_ROUTE_SIZES == CHG_CPU_RATE_SIZES,
               "the tuning database's OpenBLAS rates are those of chg_cpu_rate_size");

/* The routing figures of d's tuning entry for precision p, or NULL. Only an exact entry's: the
 * figures describe the machine that measured them (its OpenBLAS, its host calls), like the
 * pipeline figures and the split model. */
static const chg_tuning_route_t *tuned_route(const chg_handle_dev_t *d, int p, chg_tuning_entry_t *te)
{
    if (chg_tuned_entry(&d->dev, (chg_precision_t)p, te) != CHG_TUNING_EXACT || !te->prec.route.present)
        return NULL;
    return &te->prec.route;
}

/* Device i's fixed cost of a host call: what clhgemm-tune measured (the larger of the
 * precisions'), else a default by the kind of device (about 1 ms on the H100 machine, 0.2-0.3
 * ms on PoCL: waking the pack threads, events, the first commands). */
static double device_latency(const chg_handle_dev_t *d, int i)
{
    double lat = 0;
    char src[512] = "";
    for (int p = 0; p < 2; p++) {
        chg_tuning_entry_t te;
        const chg_tuning_route_t *rt = tuned_route(d, p, &te);
        if (rt && rt->latency_us * 1e-6 > lat) {
            lat = rt->latency_us * 1e-6;
            snprintf(src, sizeof src, "%s", te.source);
        }
    }
    const int gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
    if (lat > 0)
        chg_log(1, "route: device %d: latency %.3f ms from the tuning entry in %s", i, lat * 1e3, src);
    else
        chg_log(1, "route: device %d: latency %.3f ms (default for a %s device: no tuning figures)", i,
                (gpu ? 1e-3 : 3e-4) * 1e3, gpu ? "GPU" : "CPU");
    return lat > 0 ? lat : gpu ? 1e-3 : 3e-4;
}

/* OpenBLAS's rates from device 0's tuning entry, where they were measured with the thread count
 * that OpenBLAS has now; otherwise cpu_rate measures them when a call first needs them. */
static void tuned_cpu_rates(clhgemm_handle_t h)
{
    chg_route_model_t *r = &h->route;
    const int threads = chg_cpu_blas_threads();
    for (int p = 0; p < 2 && r->cpu_ok; p++) {
        const char pc = p == CHG_F64 ? 'D' : 'S';
        chg_tuning_entry_t te;
        const chg_tuning_route_t *rt = tuned_route(&h->devs[0], p, &te);
        if (!rt || rt->cpu_threads < 1) {
            chg_log(1, "route: OpenBLAS %cGEMM rates: measured when first needed (no tuning figures)", pc);
            continue;
        }
        if (rt->cpu_threads != threads) {
            chg_log(1, "route: OpenBLAS %cGEMM rates: measured when first needed (those of %s are for %d "
                       "threads, OpenBLAS has %d)", pc, te.source, rt->cpu_threads, threads);
            continue;
        }
        for (int i = 0; i < CHG_CPU_RATE_SIZES; i++) atomic_store(&r->cpu_rate[p][i], rt->cpu_gflops[i] * 1e9);
        atomic_store_explicit(&r->cpu_known[p], 1, memory_order_release);
        chg_log(1, "route: OpenBLAS %cGEMM rates from %s (%d threads): %.1f, %.1f, %.1f, %.1f GFLOP/s at n = 64, "
                   "256, 1024, 2048", pc, te.source, threads, rt->cpu_gflops[0], rt->cpu_gflops[1],
                rt->cpu_gflops[2], rt->cpu_gflops[3]);
    }
}

/* OpenBLAS's rates for prec: those of the tuning entry, else measured now (once per process:
 * chg_cpu_blas_rates keeps them), published with cpu_known. */
static void ensure_cpu_rates(chg_route_model_t *r, chg_precision_t prec)
{
    if (atomic_load_explicit(&r->cpu_known[prec], memory_order_acquire)) return;
    double rates[CHG_CPU_RATE_SIZES];
    chg_cpu_blas_rates(prec, rates);
    for (int i = 0; i < CHG_CPU_RATE_SIZES; i++) atomic_store(&r->cpu_rate[prec][i], rates[i]);
    atomic_store_explicit(&r->cpu_known[prec], 1, memory_order_release);
}

/* "x,y": two finite decimal numbers (chg_parse_double), nothing else. */
static int parse_pair(const char *text, double *x, double *y)
{
    char buf[128];
    const char *comma = strchr(text, ',');
    if (!comma || (size_t)(comma - text) >= sizeof buf) return 0;
    memcpy(buf, text, (size_t)(comma - text));
    buf[comma - text] = '\0';
    return chg_parse_double(buf, x) && chg_parse_double(comma + 1, y);
}

clhgemm_status_t chg_route_init(clhgemm_handle_t h)
{
    chg_route_model_t *r = &h->route;
    atomic_store_explicit(&chg_route_verbose_, chg_verbose(), memory_order_relaxed);
    const char *v = chg_getenv("CLHGEMM_ROUTE");
    r->mode = ROUTE_AUTO;
    if (v && !strcmp(v, "device"))
        r->mode = ROUTE_DEVICE;
    else if (v && !strcmp(v, "cpu"))
        r->mode = ROUTE_CPU;
    else if (v && strcmp(v, "auto")) {
        chg_log(0, "CLHGEMM_ROUTE=%s is not auto, device or cpu; clhgemm_create returns CLHGEMM_INVALID_OPTION", v);
        return CLHGEMM_INVALID_OPTION;
    }
    r->cpu_ok = chg_cpu_available();
    if (r->mode == ROUTE_CPU && !r->cpu_ok) {
        chg_log(0, "CLHGEMM_ROUTE=cpu: this library was built without OpenBLAS");
        return CLHGEMM_INVALID_OPTION;
    }
    r->latency = 0;
    for (int i = 0; i < h->ndev; i++) {
        const chg_handle_dev_t *d = &h->devs[i];
        const int gpu = (d->dev.features & CHG_FEAT_GPU) != 0;
        r->any_gpu |= gpu;
        r->latency = CHG_MAX(r->latency, device_latency(d, i)); /* the devices work in parallel */
        r->h2d += d->h2d_bps;
        r->d2h += d->d2h_bps;
    }
    r->pack = h->pack_bps;
    /* Test hook (and experiments): CLHGEMM_ROUTE_MODEL=latency_ms,device_gflops sets those two
     * figures and counts the devices as GPUs, so that the model's decisions can be checked on
     * PoCL. */
    const char *fm = chg_getenv("CLHGEMM_ROUTE_MODEL");
    double f_lat = 0, f_rate = 0;
    if (fm && (!parse_pair(fm, &f_lat, &f_rate) || !(f_lat >= 0) || !(f_rate > 0 && f_rate <= 1e9))) {
        chg_log(0, "CLHGEMM_ROUTE_MODEL=%s is not latency_ms,device_gflops (latency >= 0, 0 < rate <= 1e9); "
                   "clhgemm_create returns CLHGEMM_INVALID_OPTION", fm);
        return CLHGEMM_INVALID_OPTION;
    }
    for (int p = 0; p < 2; p++) {
        chg_tuning_entry_t te;
        const chg_tuning_level_t lv = chg_tuned_entry(&h->devs[0].dev, (chg_precision_t)p, &te);
        r->have_kr[p] = lv != CHG_TUNING_BUILTIN && chg_tuning_kernel_rate(&te.prec, 8192, 8192, 2048) > 0;
        if (r->have_kr[p]) r->kr[p] = te.prec;
        const double one = r->have_kr[p] ? chg_tuning_kernel_rate(&te.prec, 8192, 8192, 2048)
                         : (h->devs[0].dev.features & CHG_FEAT_GPU) ? 10e12 : 50e9;
        r->dev_rate[p] = one * h->ndev;
        if (fm) {
            r->have_kr[p] = 0;
            r->dev_rate[p] = f_rate * 1e9;
        }
    }
    if (fm) {
        r->latency = f_lat * 1e-3;
        r->any_gpu = 1;
        chg_log(1, "route: latency %.3f ms from CLHGEMM_ROUTE_MODEL", f_lat);
    }
    tuned_cpu_rates(h);
    /* Where the model will be asked (auto, OpenBLAS there, a GPU), rates the tuning entry did not
     * give are measured now, with the handle's other one-time costs, rather than in a first call
     * (tens of milliseconds on a many-core host: more than a small call itself). */
    if (r->mode == ROUTE_AUTO && r->cpu_ok && r->any_gpu && !fm)
        for (int p = 0; p < 2; p++) ensure_cpu_rates(r, (chg_precision_t)p);
    return CLHGEMM_SUCCESS;
}

/* OpenBLAS's rate at the call's size: the measured rates at the square sizes, interpolated in
 * log-log at the call's size (the cube root of m*n*k, at most 4x the output's narrower side and
 * 16x k: a thin dimension limits the blocking, a thin output more than a short k), proportional
 * to the size below the first. On the H100 machine's host OpenBLAS ran the rank-64 updates of
 * LAPACK's factorizations (m, n of 1024-8192, k = 64) at 340-580 GFLOP/s, about its 1024-cube
 * rate, and 4096 x 4096 x 128 at 600, but 4096 x 64 x 4032 at 200-290, its 256-cube rate
 * (2026-11-27); 4x k had priced the updates at the 256-cube rate, half
 * of what they ran at. */
static double cpu_rate(clhgemm_handle_t h, const chg_route_call_t *rc)
{
    chg_route_model_t *r = &h->route;
    const int p = rc->prec;
    ensure_cpu_rates(r, rc->prec);
    const double s = CHG_MIN(cbrt((double)rc->m * (double)rc->n * (double)rc->k),
                             CHG_MIN(4.0 * (double)CHG_MIN(rc->m, rc->n), 16.0 * (double)rc->k));
    const double r0 = atomic_load(&r->cpu_rate[p][0]);
    if (s <= chg_cpu_rate_size[0]) return r0 * s / chg_cpu_rate_size[0];
    for (int i = 1; i < CHG_CPU_RATE_SIZES; i++) {
        if (s > chg_cpu_rate_size[i]) continue;
        const double a = atomic_load(&r->cpu_rate[p][i - 1]), b = atomic_load(&r->cpu_rate[p][i]);
        if (!(a > 0) || !(b > 0)) return CHG_MAX(a, b);
        const double t = log(s / chg_cpu_rate_size[i - 1]) / log((double)chg_cpu_rate_size[i] / chg_cpu_rate_size[i - 1]);
        return exp(log(a) + t * (log(b) - log(a)));
    }
    return atomic_load(&r->cpu_rate[p][CHG_CPU_RATE_SIZES - 1]);
}

double chg_route_cpu_time(clhgemm_handle_t h, const chg_route_call_t *rc)
{
    const double rate = cpu_rate(h, rc);
    return rate > 0 ? rc->flops / rate : INFINITY;
}

/* A device after the first adds its own start (a driver, its first commands) and its fill and
 * drain through the pack threads all devices share: this share of the per-call latency (an
 * estimate, as the planner's fixed costs are: host/plan.c chg_plan_time's setup term). */
#define EXTRA_DEVICE 0.25

/* The model's time on the first d devices: each computes about 1/d of C (bands of C's rows), so
 * its kernel runs at the rate of an m x n/d output (a mid-size call fills one device better than
 * two: the route's counterpart of the planner's wave quantisation and tail imbalance); the bus
 * rates are those of the d devices, the pack threads are shared. */
static double device_time_on(clhgemm_handle_t h, const chg_route_call_t *rc, int d)
{
    const chg_route_model_t *r = &h->route;
    const chg_handle_dev_t *devs = h->devs;
    const double es = (double)chg_elem_size(rc->prec);
    const double m = (double)rc->m, n = (double)rc->n / d, k = (double)rc->k;
    /* the kernels: the tuning entry's rate for this shape, else the large-product rate scaled
     * by how well the output fills the device (1000 x 1000 ran at about a fifth of the rate on
     * the H100); dev_rate is that of the devices the handle opened */
    const double mn = m * n;
    double kr = r->have_kr[rc->prec] ? chg_tuning_kernel_rate(&r->kr[rc->prec], m, n, k) * d : 0;
    if (!(kr > 0)) kr = r->dev_rate[rc->prec] / CHG_MAX(1, h->ndev_all) * d * mn / (mn + 4.0 * 1024 * 1024);
    double h2d = 0, d2h = 0;
    for (int i = 0; i < d; i++) {
        h2d += devs[i].h2d_bps;
        d2h += devs[i].d2h_bps;
    }
    const double t_k = rc->flops / CHG_MAX(kr, 1.0);
    const double c_in = rc->beta_zero ? 0 : rc->c_elems;
    const double t_h2d = (rc->in_elems + c_in) * es / CHG_MAX(h2d, 1.0);
    const double t_d2h = rc->c_elems * es / CHG_MAX(d2h, 1.0);
    const double t_pack = (rc->in_elems + c_in + rc->c_elems) * es / CHG_MAX(r->pack, 1.0);
    const double mx = CHG_MAX(CHG_MAX(t_k, t_h2d), CHG_MAX(t_d2h, t_pack));
    const double sum = t_k + t_h2d + t_d2h + t_pack;
    /* overlap: none below 1 GFLOP (a tile or two: each stage waits for the one before), all of
     * it from 1 TFLOP on, log-linear between */
    const double w = CHG_MIN(1.0, CHG_MAX(0.0, log10(rc->flops / 1e9) / 3.0));
    return r->latency * (1.0 + EXTRA_DEVICE * (d - 1)) + mx + (1.0 - w) * (sum - mx);
}

/* The caller's copy before a device call (chg_route_call_t.snapshot_bytes): at the pack threads'
 * copy rate, an eighth of it into a fresh buffer. */
static double snapshot_time(const chg_route_model_t *r, const chg_route_call_t *rc)
{
    if (!(rc->snapshot_bytes > 0)) return 0;
    return rc->snapshot_bytes * (rc->snapshot_fresh ? 8.0 : 1.0) / CHG_MAX(r->pack, 1.0);
}

/* The model's time on the best number of devices (all of them with CLHGEMM_PLAN_DEVICES=all),
 * as the planner chooses the count (host/plan.c chg_plan_call): never more devices than make
 * the call faster, plus the caller's copy before it. *used gets the count. */
static double device_time(clhgemm_handle_t h, const chg_route_call_t *rc, int *used)
{
    const int nd = h->ndev;
    double best = INFINITY;
    *used = nd;
    for (int d = nd > 1 && chg_plan_all_devices() ? nd : 1; d <= nd; d++) {
        const double t = device_time_on(h, rc, d);
        if (t < best * 0.97 || d == 1) {
            best = t;
            *used = d;
        }
    }
    return best + snapshot_time(&h->route, rc);
}

double chg_route_device_time(clhgemm_handle_t h, const chg_route_call_t *rc)
{
    int used;
    return device_time(h, rc, &used);
}

int chg_route_to_cpu(clhgemm_handle_t h, const chg_route_call_t *rc)
{
    const chg_route_model_t *r = &h->route;
    if (r->mode != ROUTE_AUTO) return r->mode == ROUTE_CPU;
    return chg_route_model_cpu(h, rc);
}

int chg_route_model_cpu(clhgemm_handle_t h, const chg_route_call_t *rc)
{
    const chg_route_model_t *r = &h->route;
    if (!r->cpu_ok) return 0;
    const int verbose = atomic_load_explicit(&chg_route_verbose_, memory_order_relaxed);
    if (!r->any_gpu) {
        if (verbose >= 1)
            chg_log(1, "route %s %zux%zux%zu: cpu (the devices are CPUs themselves)", rc->name, rc->m, rc->n, rc->k);
        return 1;
    }
    if (rc->flops < r->latency * CHG_ROUTE_TINY_RATE) {
        if (verbose >= 1)
            chg_log(1, "route %s %zux%zux%zu: cpu (%.0f flops: less than the devices' latency %.2f ms at 1 GFLOP/s)",
                    rc->name, rc->m, rc->n, rc->k, rc->flops, r->latency * 1e3);
        return 1;
    }
    int used;
    const double t_cpu = chg_route_cpu_time(h, rc), t_dev = device_time(h, rc, &used);
    const int cpu = t_cpu <= t_dev;
    if (verbose >= 1)
        chg_log(1, "route %s %zux%zux%zu: %s (model: OpenBLAS %.3f ms, devices %.3f ms on %d of %d)", rc->name,
                rc->m, rc->n, rc->k, cpu ? "cpu" : "devices", t_cpu * 1e3, t_dev * 1e3, used, (int)h->ndev);
    return cpu;
}

