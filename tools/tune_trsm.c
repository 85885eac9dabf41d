/*
 * tune_trsm.c -- clhgemm-tune's TRSM phase: the order nb of the diagonal blocks that the library's
 * TRSM inverts (core/trsm_subst.c chg_trsm_nb, core/trsm_dev.h), per device and precision.
 *
 * What is timed is the library itself: clhgemm_{s,d}trsm_cl on device buffers, side left,
 * lower, no transpose, non-unit diagonal, m = n (4096 on GPUs, 512 on CPU devices, halved while
 * A, B and B's copy would take more than a quarter of the device's memory), for nb in
 * {512, 256, 1024, 384, 768, 128} (those <= m; the built-in default first, so that a short
 * budget still compares against it), each set through CLHGEMM_TRSM_NB for its calls (this
 * phase runs alone on the process; the caller's value and CLHGEMM_TRSM_PANEL are restored
 * after). A is diagonally dominant (off-diagonal entries uniform in [-1, 1]/m, diagonal 2 +
 * uniform), so every nb solves the same well-conditioned system. Per nb: one untimed call
 * (kernel builds), then 1 to 10 timed calls within its share of the phase's time (B restored
 * from a device copy before each; the time is the call to its event's end), the best kept. The
 * first result is checked on the host (the residual A*X - alpha*B of 8 columns, in double) and
 * every later one against the first (max |x - x_first| / max |x_first|); a candidate that fails
 * a call or a check is skipped with its reason. The GEMM parameters are those the library
 * resolves when the phase starts (the databases in effect are reloaded first, so a database
 * this run already wrote to the user directory counts). The fastest nb goes into
 * d->rec.prec[prec].trsm_nb with its size and rate, when at least two were timed.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

static const int nb_cands[] = {512, 256, 1024, 384, 768, 128};
#define NCANDS (int)(sizeof nb_cands / sizeof nb_cands[0])
#define REPS 10 /* timed calls per nb at most (at least one) */

/* One timing problem on the device. */
typedef struct tprob_s {
    tdev_t *d;
    chg_precision_t prec;
    size_t m, es;
    cl_mem a, b0, b;     /* A, B's original, B being solved */
    void *ha, *hb, *first, *x; /* host copies: A, B, the first result, the current one */
    int have_first;
} tprob_t;

/* m x m at the start size, halved while A, B and B's copy exceed a quarter of the memory. */
static size_t problem_size(const tdev_t *d, chg_precision_t prec)
{
    const int cpu = (d->dev.features & CHG_FEAT_CPU) != 0;
    size_t m = cpu ? 512 : 4096;
    const unsigned long long es = chg_elem_size(prec);
    while (m > 128 && (3ull * m * m * es > d->dev.info.global_mem_bytes / 4 ||
                       (unsigned long long)m * m * es > d->dev.info.max_alloc_bytes))
        m /= 2;
    return m;
}

static double get(const void *p, int dbl, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void put(void *p, int dbl, size_t i, double v)
{
    if (dbl) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
}

static void free_problem(tprob_t *p)
{
    if (p->a) clReleaseMemObject(p->a);
    if (p->b0) clReleaseMemObject(p->b0);
    if (p->b) clReleaseMemObject(p->b);
    free(p->ha);
    free(p->hb);
    free(p->first);
    free(p->x);
}

/* A (lower, diagonally dominant; the upper triangle holds garbage the solve must not read) and
 * B, on the host and the device. */
static int make_problem(tprob_t *p)
{
    const size_t m = p->m, bytes = m * m * p->es;
    const int dbl = p->prec == CHG_F64;
    p->ha = malloc(bytes);
    p->hb = malloc(bytes);
    p->first = malloc(bytes);
    p->x = malloc(bytes);
    if (!p->ha || !p->hb || !p->first || !p->x) return -1;
    tune_fill(p->ha, dbl, m * m, 21);
    tune_fill(p->hb, dbl, m * m, 22);
    for (size_t j = 0; j < m; j++)
        for (size_t i = 0; i < m; i++) {
            const double v = get(p->ha, dbl, i + j * m);
            if (i == j) put(p->ha, dbl, i + j * m, 2.0 + fabs(v));
            else if (i > j) put(p->ha, dbl, i + j * m, v / (double)m);
            else put(p->ha, dbl, i + j * m, 1e30 * v); /* not read: would ruin any result */
        }
    cl_int err;
    const cl_mem_flags f = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    p->a = clCreateBuffer(p->d->ctx, f, bytes, p->ha, &err);
    if (err == CL_SUCCESS) p->b0 = clCreateBuffer(p->d->ctx, f, bytes, p->hb, &err);
    if (err == CL_SUCCESS) p->b = clCreateBuffer(p->d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    return err == CL_SUCCESS ? 0 : -1;
}

/* One call with the current CLHGEMM_TRSM_NB on a fresh B: its seconds (to its event's end),
 * negative on an error (why set). */
static double one_call(tprob_t *p, double alpha, char *why, size_t len)
{
    const size_t bytes = p->m * p->m * p->es;
    const int mi = (int)p->m;
    cl_int err = clEnqueueCopyBuffer(p->d->q, p->b0, p->b, 0, 0, bytes, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(p->d->q);
    if (err != CL_SUCCESS) {
        snprintf(why, len, "restoring B: %s", clhgemm_status_string(err));
        return -1;
    }
    cl_event ev = NULL;
    const double t0 = tune_now();
    const clhgemm_status_t st =
        p->prec == CHG_F64
            ? clhgemm_dtrsm_cl(CLHGEMM_COL_MAJOR, CLHGEMM_LEFT, CLHGEMM_LOWER, CLHGEMM_NO_TRANS,
                               CLHGEMM_NON_UNIT, mi, mi, alpha, p->a, 0, mi, p->b, 0, mi,
                               p->d->q, &ev)
            : clhgemm_strsm_cl(CLHGEMM_COL_MAJOR, CLHGEMM_LEFT, CLHGEMM_LOWER, CLHGEMM_NO_TRANS,
                               CLHGEMM_NON_UNIT, mi, mi, (float)alpha, p->a, 0, mi, p->b, 0, mi,
                               p->d->q, &ev);
    if (st != CLHGEMM_SUCCESS) {
        snprintf(why, len, "the call: %s", clhgemm_status_string(st));
        return -1;
    }
    err = clWaitForEvents(1, &ev);
    const double t = tune_now() - t0;
    clReleaseEvent(ev);
    if (err != CL_SUCCESS) {
        snprintf(why, len, "its event: %s", clhgemm_status_string(err));
        return -1;
    }
    return t;
}

/* The solved B against the first result (or, for the first, the residual of 8 columns). */
static int check(tprob_t *p, double alpha, char *why, size_t len)
{
    const size_t m = p->m, bytes = m * m * p->es;
    const int dbl = p->prec == CHG_F64;
    const double tol = dbl ? 1e-10 : 2e-4;
    cl_int err = clEnqueueReadBuffer(p->d->q, p->b, CL_TRUE, 0, bytes, p->x, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(why, len, "reading B: %s", clhgemm_status_string(err));
        return -1;
    }
    if (!p->have_first) {
        double worst = 0;
        for (size_t c = 0; c < 8; c++) {
            const size_t j = c * (m - 1) / 7;
            for (size_t i = 0; i < m; i++) {
                double s = 0, mag = fabs(alpha * get(p->hb, dbl, i + j * m));
                for (size_t q = 0; q <= i; q++) {
                    const double t = get(p->ha, dbl, i + q * m) * get(p->x, dbl, q + j * m);
                    s += t;
                    mag += fabs(t);
                }
                const double r = fabs(s - alpha * get(p->hb, dbl, i + j * m)) / (mag > 0 ? mag : 1);
                if (!(r <= worst)) worst = r; /* NaN sticks */
            }
        }
        if (!(worst <= tol)) {
            snprintf(why, len, "residual %.3g of |A||X| + |B| (tolerance %.1g)", worst, tol);
            return -1;
        }
        memcpy(p->first, p->x, bytes);
        p->have_first = 1;
        return 0;
    }
    double dmax = 0, xmax = 0;
    for (size_t i = 0; i < m * m; i++) {
        const double f = get(p->first, dbl, i), d = fabs(get(p->x, dbl, i) - f);
        if (!(d <= dmax)) dmax = d;
        if (fabs(f) > xmax) xmax = fabs(f);
    }
    if (!(dmax <= tol * (xmax > 0 ? xmax : 1))) {
        snprintf(why, len, "differs from the first result by %.3g (max |x| %.3g)", dmax, xmax);
        return -1;
    }
    return 0;
}

/* Candidate nb until `until`: its best seconds, negative when it failed (why set). */
static double time_nb(tune_run_t *r, tprob_t *p, int nb, double until, char *why, size_t len)
{
    char v[16];
    snprintf(v, sizeof v, "%d", nb);
    setenv("CLHGEMM_TRSM_NB", v, 1);
    const double alpha = 1.5;
    double best = one_call(p, alpha, why, len); /* kernel builds; the check's result */
    if (best < 0 || check(p, alpha, why, len) != 0) return -1;
    for (int rep = 0; rep < REPS && (rep == 0 || tune_now() < until) && !r->stop; rep++) {
        const double t = one_call(p, alpha, why, len);
        if (t < 0) return -1;
        if (rep == 0 || t < best) best = t;
    }
    return best;
}

/* The variable's value to restore (malloc'ed, NULL: unset). */
static char *save_env(const char *name)
{
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

static void restore_env(const char *name, char *saved)
{
    if (saved) setenv(name, saved, 1);
    else unsetenv(name);
    free(saved);
}

/* The candidates on p; the winner into the record. */
static int search(tune_run_t *r, tprob_t *p, double deadline)
{
    const char pc = p->prec == CHG_F64 ? 'd' : 's';
    const tdev_t *d = p->d;
    int cand[NCANDS], n = 0, timed = 0, tried = 0, best = -1;
    double secs[NCANDS], bests = 0;
    for (int i = 0; i < NCANDS; i++)
        if ((size_t)nb_cands[i] <= p->m) cand[n++] = nb_cands[i];
    const double flops = (double)p->m * p->m * p->m; /* m^2 n, n = m */
    for (int i = 0; i < n && !r->stop && tune_now() < deadline; i++) {
        char why[256] = "";
        const double until = tune_now() + (deadline - tune_now()) / (n - i);
        tune_progress(r, "%s %ctrsm nb %d (%d of %d)", d->log_prefix, pc, cand[i], i + 1, n);
        tried++;
        secs[i] = time_nb(r, p, cand[i], until, why, sizeof why);
        if (secs[i] < 0) {
            tune_say(r, "%s %ctrsm nb %d: skipped: %s", d->log_prefix, pc, cand[i], why);
            continue;
        }
        timed++;
        tune_say(r, "%s %ctrsm m = n = %zu, nb %d: %.4f s, %.1f GFLOP/s", d->log_prefix, pc,
                 p->m, cand[i], secs[i], flops / secs[i] * 1e-9);
        if (best < 0 || secs[i] < bests) best = cand[i], bests = secs[i];
    }
    tune_progress_clear(r);
    if (timed < 2) {
        tune_say(r, "%s %ctrsm: %d block order(s) timed, not enough to choose one (budget); "
                    "trsm_nb left as it was",
                 d->log_prefix, pc, timed);
        return timed || !tried ? 0 : -1; /* no time left is not a failure; all failing is */
    }
    chg_tuning_prec_t *x = &p->d->rec.prec[p->prec];
    x->trsm_nb = best;
    x->trsm_size = (int)p->m;
    x->trsm_gflops = flops / bests * 1e-9;
    tune_say(r, "%s %ctrsm chosen: nb %d: %.1f GFLOP/s at m = n = %zu (%d of %d orders timed)",
             d->log_prefix, pc, best, x->trsm_gflops, p->m, timed, n);
    return 0;
}

int tune_trsm(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline)
{
    const char pc = prec == CHG_F64 ? 'd' : 's';
    tprob_t p = {.d = d, .prec = prec, .m = problem_size(d, prec), .es = chg_elem_size(prec)};
    if (make_problem(&p) != 0) {
        tune_say(r, "%s %ctrsm: no memory for m = n = %zu", d->log_prefix, pc, p.m);
        free_problem(&p);
        return -1;
    }
    /* this run's database may already be in the user directory: the library sees it now */
    chg_tuning_reload();
    char *nb_was = save_env("CLHGEMM_TRSM_NB"), *panel_was = save_env("CLHGEMM_TRSM_PANEL");
    unsetenv("CLHGEMM_TRSM_PANEL"); /* the device path, the library's default */
    const int rc = search(r, &p, deadline);
    restore_env("CLHGEMM_TRSM_NB", nb_was);
    restore_env("CLHGEMM_TRSM_PANEL", panel_was);
    clFinish(d->q);
    free_problem(&p);
    return rc;
}
