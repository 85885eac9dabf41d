/*
 * tune_factor.c -- clhgemm-tune's factorization phase: the panel width nb of the library's
 * Cholesky, LU and QR drivers (lapack/fact_driver.c chg_fact_nb), per device and precision.
 *
 * The panel width trades the CPU's share (the panels, factored by the CPU LAPACK while the
 * devices update: a fraction of about nb / n of the flops) against the devices' efficiency
 * (their updates are products of inner dimension nb) and the steps' fixed costs; where the
 * balance lies depends on the device, the bus and the host's cores, so it is measured.
 *
 * What is timed is the library's driver itself on host memory (chg_fact_run_host on a handle of
 * the device alone), with each candidate width passed in the call (chg_fact_call_t.nb), so the
 * caller's CLHGEMM_FACTOR_NB plays no part: n x n at n = 8192 on GPUs, 512 on CPU devices
 * (halved while the matrix would take more than a quarter of the device's memory), for nb in
 * {64, 96, 128, 192, 256, 384, 512, 768, 1024} (those <= n / 4), nearest to the width the
 * library takes now first (the built-in default, or a stored entry's), so that a short budget
 * still compares against it. The matrices: for Cholesky symmetric with entries uniform in
 * [-1, 1] and n + uniform on the diagonal (positive definite by Gershgorin), for LU and QR
 * uniform in [-1, 1]. Per nb: one untimed call (kernel builds), whose result is checked, then 3
 * timed calls (the matrix restored from the input before each), the median kept. The check is
 * cheap, O(n^2): info is 0 and the factors reproduce A x for a random x (L (L^T x), P^T L (U x),
 * Q (R x) with Q applied from the reflectors and tau) within n eps of ||A|| ||x|| in the
 * max norm; a candidate that fails a call or the check is skipped with its reason. A candidate
 * starts only when its four calls, at the rate of the last one timed, fit before its routine's
 * share of the phase. The fastest nb per routine goes into d->rec.prec[prec].factor_nb with
 * its rate, and factor_size, when at least two were timed.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/lapack_link.h"
#include "lapack/fact_driver.h"
#include "tune.h"

static const int nb_cands[] = {64, 96, 128, 192, 256, 384, 512, 768, 1024};
#define NCANDS (int)(sizeof nb_cands / sizeof nb_cands[0])
#define REPS 3 /* timed calls per nb; the median is kept */

static const char *const kind_names[] = {"potrf", "getrf", "geqrf"};

/* One timing problem: the input and the matrix factored in place, on the host. */
typedef struct fprob_s {
    tdev_t *d;
    clhgemm_handle_t h;
    chg_precision_t prec;
    chg_fact_kind_t kind;
    size_t n, es;
    void *a0, *a;        /* the input (the view, column-major, lda n), the factored copy */
    int *ipiv;
    void *tau;
    double *x, *y, *z, *w; /* the check's vectors */
    double anorm;        /* max row sum of |A| (Cholesky: of the symmetric A) */
} fprob_t;

/* n x n at the start size, halved while the matrix exceeds a quarter of the memory. */
static size_t problem_size(const tdev_t *d, chg_precision_t prec)
{
    const int cpu = (d->dev.features & CHG_FEAT_CPU) != 0;
    size_t n = cpu ? 512 : 8192;
    const unsigned long long es = chg_elem_size(prec);
    while (n > 256 && ((unsigned long long)n * n * es > d->dev.info.global_mem_bytes / 4 ||
                       (unsigned long long)n * n * es > d->dev.info.max_alloc_bytes))
        n /= 2;
    return n;
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

static void free_problem(fprob_t *p)
{
    free(p->a0);
    free(p->a);
    free(p->ipiv);
    free(p->tau);
    free(p->x);
    free(p->y);
    free(p->z);
    free(p->w);
}

static int alloc_problem(fprob_t *p)
{
    const size_t n = p->n, bytes = n * n * p->es;
    p->a0 = malloc(bytes);
    p->a = malloc(bytes);
    p->ipiv = malloc(n * sizeof *p->ipiv);
    p->tau = malloc(n * p->es);
    p->x = malloc(n * sizeof *p->x);
    p->y = malloc(n * sizeof *p->y);
    p->z = malloc(n * sizeof *p->z);
    p->w = malloc(n * sizeof *p->w);
    if (!p->a0 || !p->a || !p->ipiv || !p->tau || !p->x || !p->y || !p->z || !p->w) return -1;
    tune_fill(p->x, 1, n, 33);
    return 0;
}

/* The input of p->kind into a0, and its norm. */
static void make_input(fprob_t *p)
{
    const size_t n = p->n;
    const int dbl = p->prec == CHG_F64;
    tune_fill(p->a0, dbl, n * n, 31 + (unsigned long long)p->kind);
    if (p->kind == CHG_FACT_POTRF)
        for (size_t j = 0; j < n; j++) {
            put(p->a0, dbl, j + j * n, (double)n + fabs(get(p->a0, dbl, j + j * n)));
            for (size_t i = j + 1; i < n; i++)
                put(p->a0, dbl, j + i * n, get(p->a0, dbl, i + j * n));
        }
    for (size_t i = 0; i < n; i++) p->w[i] = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) p->w[i] += fabs(get(p->a0, dbl, i + j * n));
    p->anorm = 0;
    for (size_t i = 0; i < n; i++)
        if (p->w[i] > p->anorm) p->anorm = p->w[i];
}

/* One call with panel width nb on a fresh copy of the input: its seconds, negative on an
 * error or a nonzero info (why set). */
static double one_call(fprob_t *p, int nb, char *why, size_t len)
{
    memcpy(p->a, p->a0, p->n * p->n * p->es);
    chg_fact_call_t c = {.kind = p->kind, .prec = p->prec, .m = p->n, .n = p->n, .a = p->a,
                         .lda = p->n, .ipiv = p->ipiv, .tau = p->tau, .nb = (size_t)nb};
    const double t0 = tune_now();
    const clhgemm_status_t st = chg_fact_run_host(p->h, &c);
    const double t = tune_now() - t0;
    if (st != CLHGEMM_SUCCESS) {
        snprintf(why, len, "the call: %s", clhgemm_status_string(st));
        return -1;
    }
    if (c.info != 0) {
        snprintf(why, len, "info %d on a matrix that has none", c.info);
        return -1;
    }
    return t;
}

/* y = U x (U: the upper triangle of a, diagonal included). */
static void upper_times(const fprob_t *p, const double *x, double *y)
{
    const size_t n = p->n;
    const int dbl = p->prec == CHG_F64;
    for (size_t i = 0; i < n; i++) y[i] = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i <= j; i++) y[i] += get(p->a, dbl, i + j * n) * x[j];
}

/* z = the factors applied to x, in p->z: what A x must be. */
static void factors_times_x(fprob_t *p)
{
    const size_t n = p->n;
    const int dbl = p->prec == CHG_F64;
    double *x = p->x, *y = p->y, *z = p->z;
    const void *a = p->a;
    if (p->kind == CHG_FACT_POTRF) { /* L (L^T x) */
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t i = j; i < n; i++) s += get(a, dbl, i + j * n) * x[i];
            y[j] = s;
        }
        for (size_t i = 0; i < n; i++) z[i] = 0;
        for (size_t j = 0; j < n; j++)
            for (size_t i = j; i < n; i++) z[i] += get(a, dbl, i + j * n) * y[j];
        return;
    }
    upper_times(p, x, y);
    if (p->kind == CHG_FACT_GETRF) { /* P^T L (U x): L unit lower, the interchanges undone */
        memcpy(z, y, n * sizeof *z);
        for (size_t j = 0; j < n; j++)
            for (size_t i = j + 1; i < n; i++) z[i] += get(a, dbl, i + j * n) * y[j];
        for (size_t i = n; i-- > 0;) {
            const size_t q = (size_t)p->ipiv[i] - 1;
            const double t = z[i];
            z[i] = z[q];
            z[q] = t;
        }
        return;
    }
    /* Q (R x) = H_1 ... H_n (R x), H_i = I - tau_i v_i v_i^T, v_i = (0, 1, a(i+1.., i)) */
    memcpy(z, y, n * sizeof *z);
    for (size_t i = n; i-- > 0;) {
        double s = z[i];
        for (size_t r = i + 1; r < n; r++) s += get(a, dbl, r + i * n) * z[r];
        s *= get(p->tau, dbl, i);
        z[i] -= s;
        for (size_t r = i + 1; r < n; r++) z[r] -= s * get(a, dbl, r + i * n);
    }
}

/* The factored matrix against A x (see the top of the file). */
static int check(fprob_t *p, char *why, size_t len)
{
    const size_t n = p->n;
    const int dbl = p->prec == CHG_F64;
    if (p->kind == CHG_FACT_GETRF)
        for (size_t i = 0; i < n; i++)
            if (p->ipiv[i] < (int)i + 1 || p->ipiv[i] > (int)n) {
                snprintf(why, len, "ipiv[%zu] = %d", i, p->ipiv[i]);
                return -1;
            }
    factors_times_x(p);
    double *w = p->w, xmax = 0, worst = 0;
    for (size_t i = 0; i < n; i++) w[i] = 0;
    for (size_t j = 0; j < n; j++) { /* A x; Cholesky's A from its lower triangle */
        if (fabs(p->x[j]) > xmax) xmax = fabs(p->x[j]);
        const size_t i0 = p->kind == CHG_FACT_POTRF ? j : 0;
        for (size_t i = i0; i < n; i++) {
            const double v = get(p->a0, dbl, i + j * n);
            w[i] += v * p->x[j];
            if (p->kind == CHG_FACT_POTRF && i != j) w[j] += v * p->x[i];
        }
    }
    for (size_t i = 0; i < n; i++) {
        const double d = fabs(w[i] - p->z[i]);
        if (!(d <= worst)) worst = d; /* NaN sticks */
    }
    const double rel = worst / (p->anorm * xmax), tol = (double)n * (dbl ? 2.2e-16 : 1.2e-7);
    if (!(rel <= tol)) {
        snprintf(why, len, "residual %.3g of ||A|| ||x|| (tolerance %.2g)", rel, tol);
        return -1;
    }
    return 0;
}

/* Candidate nb: the median seconds of REPS calls after a checked untimed one, negative when it
 * failed (why set); *last gets the last call's seconds. */
static double time_nb(tune_run_t *r, fprob_t *p, int nb, double *last, char *why, size_t len)
{
    double t[REPS];
    if (one_call(p, nb, why, len) < 0 || check(p, why, len) != 0) return -1;
    for (int rep = 0; rep < REPS; rep++) {
        if (r->stop) {
            snprintf(why, len, "stopped");
            return -1;
        }
        t[rep] = *last = one_call(p, nb, why, len);
        if (t[rep] < 0) return -1;
    }
    return tune_median(t, REPS);
}

/* The candidates <= n / 4 in *cand, nearest (in ratio) to ref first. Returns their count. */
static int order_candidates(size_t n, size_t ref, int *cand)
{
    int c = 0;
    for (int i = 0; i < NCANDS; i++)
        if ((size_t)nb_cands[i] * 4 <= n) cand[c++] = nb_cands[i];
    for (int i = 1; i < c; i++) /* insertion sort by |log(nb / ref)|; the smaller on a tie */
        for (int j = i; j > 0; j--) {
            const double dj = fabs(log((double)cand[j] / (double)ref)),
                         dp = fabs(log((double)cand[j - 1] / (double)ref));
            if (dj > dp || (dj == dp && cand[j] > cand[j - 1])) break;
            const int t = cand[j];
            cand[j] = cand[j - 1];
            cand[j - 1] = t;
        }
    return c;
}

/* p->kind's candidates until deadline; the winner into the record. Returns 1 when one was
 * chosen, 0 when too few could be timed in the time, -1 when every one tried failed. */
static int search(tune_run_t *r, fprob_t *p, double deadline)
{
    const char pc = p->prec == CHG_F64 ? 'd' : 's';
    const char *name = kind_names[p->kind];
    const tdev_t *d = p->d;
    const chg_fact_call_t now = {.kind = p->kind, .prec = p->prec, .m = p->n, .n = p->n};
    int cand[NCANDS], timed = 0, tried = 0, best = -1;
    const int n = order_candidates(p->n, chg_fact_nb(&d->dev, &now), cand);
    static const double coef[] = {1.0 / 3, 2.0 / 3, 4.0 / 3}; /* LAPACK's counts, m = n */
    const double nf = (double)p->n, flops = coef[p->kind] * nf * nf * nf;
    double bests = 0, last = 0;
    for (int i = 0; i < n && !r->stop; i++) {
        if (tune_now() + (REPS + 1) * last > deadline || tune_now() >= deadline) break;
        if (!tried) make_input(p);
        char why[256] = "";
        tune_progress(r, "%s %c%s nb %d (%d of %d)", d->log_prefix, pc, name, cand[i], i + 1, n);
        tried++;
        const double s = time_nb(r, p, cand[i], &last, why, sizeof why);
        if (s < 0) {
            tune_say(r, "%s %c%s nb %d: skipped: %s", d->log_prefix, pc, name, cand[i], why);
            continue;
        }
        timed++;
        tune_say(r, "%s %c%s n = %zu, nb %d: %.4f s, %.1f GFLOP/s", d->log_prefix, pc, name,
                 p->n, cand[i], s, flops / s * 1e-9);
        if (best < 0 || s < bests) best = cand[i], bests = s;
    }
    tune_progress_clear(r);
    if (timed < 2) {
        tune_say(r, "%s %c%s: %d panel width(s) timed, not enough to choose one (budget); "
                    "%s_nb left as it was",
                 d->log_prefix, pc, name, timed, name);
        return timed || !tried ? 0 : -1; /* no time left is not a failure; all failing is */
    }
    chg_tuning_prec_t *x = &p->d->rec.prec[p->prec];
    x->factor_nb[p->kind] = best;
    x->factor_gflops[p->kind] = flops / bests * 1e-9;
    tune_say(r, "%s %c%s chosen: nb %d: %.1f GFLOP/s at n = %zu (%d of %d widths timed)",
             d->log_prefix, pc, name, best, x->factor_gflops[p->kind], p->n, timed, n);
    return 1;
}

/* The size of this run's widths; a width left from a run at another size is dropped, since the
 * entry records one size for the three. */
static void record_size(tdev_t *d, chg_precision_t prec, const int *chosen, size_t n)
{
    chg_tuning_prec_t *x = &d->rec.prec[prec];
    if (x->factor_size != (int)n)
        for (int k = 0; k < CHG_TUNING_FACTOR_KINDS; k++)
            if (!chosen[k]) x->factor_nb[k] = 0, x->factor_gflops[k] = 0;
    x->factor_size = (int)n;
}

/* A handle of device d alone. */
static clhgemm_handle_t device_handle(tune_run_t *r, tdev_t *d)
{
    char spec[32];
    snprintf(spec, sizeof spec, "%d", d->index);
    clhgemm_options_t o;
    clhgemm_options_init(&o);
    o.devices = spec;
    o.cpu_share = "off";
    clhgemm_handle_t h = NULL;
    const clhgemm_status_t st = clhgemm_create(&h, &o);
    if (st != CLHGEMM_SUCCESS) {
        tune_say(r, "%s factor: clhgemm_create: %s", d->log_prefix, clhgemm_status_string(st));
        return NULL;
    }
    return h;
}

int tune_factor(tune_run_t *r, tdev_t *d, chg_precision_t prec, double deadline)
{
    const char pc = prec == CHG_F64 ? 'd' : 's';
    const char *no_lapack = NULL;
    if (!chg_lapack_ok(&no_lapack)) {
        tune_say(r, "%s %c factorizations: skipped: no CPU LAPACK (%s)", d->log_prefix, pc,
                 no_lapack ? no_lapack : "?");
        return 0;
    }
    if (tune_now() >= deadline || r->stop) { /* no handle made, no matrices filled for nothing */
        tune_say(r, "%s %c factorizations: no time left (budget); the panel widths left as they "
                    "were",
                 d->log_prefix, pc);
        return 0;
    }
    fprob_t p = {.d = d, .prec = prec, .n = problem_size(d, prec), .es = chg_elem_size(prec)};
    if (alloc_problem(&p) != 0) {
        tune_say(r, "%s %c factorizations: no host memory for n = %zu", d->log_prefix, pc, p.n);
        free_problem(&p);
        return -1;
    }
    /* this run's database may already be in the user directory: the library sees it now */
    chg_tuning_reload();
    p.h = device_handle(r, d);
    int rc = p.h ? 0 : -1, chosen[CHG_TUNING_FACTOR_KINDS] = {0};
    for (int k = 0; p.h && k < CHG_TUNING_FACTOR_KINDS && !r->stop; k++) {
        const double now = tune_now();
        p.kind = (chg_fact_kind_t)k;
        const int got = search(r, &p, now + (deadline - now) / (CHG_TUNING_FACTOR_KINDS - k));
        if (got < 0) rc = -1;
        chosen[k] = got > 0;
    }
    if (chosen[0] || chosen[1] || chosen[2]) record_size(d, prec, chosen, p.n);
    clhgemm_destroy(p.h);
    free_problem(&p);
    return rc;
}
