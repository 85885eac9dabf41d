/*
 * fault.c -- a lost device does not lose the call (fault.h): CLHGEMM_FAULT_INJECT, which
 * errors mean a lost device, the regions it leaves, the warning, a region of C on the CPU, and
 * the lost devices leaving the handle after the call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/route_calls.h"
#include "cpu/share_blas.h"
#include "host/devmem.h"
#include "host/fault.h"

/* ---- CLHGEMM_FAULT_INJECT ------------------------------------------------------------------ */

/* One "key=value" item of the variable into *dev / *after (each at most once). */
static int fault_item(const char *s, size_t len, long *dev, long *after, int *oom)
{
    char buf[64];
    if (len >= sizeof buf) return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *eq = strchr(buf, '=');
    if (!eq) return 0;
    *eq = '\0';
    const char *v = eq + 1;
    long n;
    if (!strcmp(buf, "device") && *dev == -2) {
        if (!strcmp(v, "all")) n = -1;
        else if (!chg_parse_long(v, &n) || n < 0 || n > 1000000) return 0;
        *dev = n;
        return 1;
    }
    if (!strcmp(buf, "kind") && *oom == -1) {
        if (strcmp(v, "lost") && strcmp(v, "oom")) return 0;
        *oom = !strcmp(v, "oom");
        return 1;
    }
    if (!strcmp(buf, "after") && *after == -1) {
        if (!chg_parse_long(v, &n) || n < 0) return 0;
        *after = n;
        return 1;
    }
    return 0;
}

void chg_fault_read(chg_fault_t *f)
{
    *f = (chg_fault_t){.on = 0, .device = 0, .after = 0};
    const char *v = chg_getenv("CLHGEMM_FAULT_INJECT");
    if (!v || !*v) return;
    long dev = -2, after = -1;
    int ok = 1, oom = -1;
    for (const char *s = v; ok;) {
        const char *comma = strchr(s, ',');
        const size_t len = comma ? (size_t)(comma - s) : strlen(s);
        ok = fault_item(s, len, &dev, &after, &oom);
        if (!comma) break;
        s = comma + 1;
    }
    if (!ok || dev == -2 || after < 0) {
        chg_env_warn("CLHGEMM_FAULT_INJECT", v, "is not device=<index>|all,after=<tiles>[,kind=lost|oom]; no fault injected");
        return;
    }
    *f = (chg_fault_t){.on = 1, .device = (int)dev, .oom = oom == 1, .after = (unsigned long long)after};
    const char *what = oom == 1 ? "is out of memory (until its buffers are released once)" : "fails every command";
    if (dev < 0) chg_log(1, "CLHGEMM_FAULT_INJECT: every device %s after %ld tile(s)", what, after);
    else chg_log(1, "CLHGEMM_FAULT_INJECT: device %ld %s after %ld tile(s)", dev, what, after);
}

/* ---- lost devices ------------------------------------------------------------------------------ */

int chg_fault_is_loss(cl_int err, int in_setup)
{
    if (err == CL_SUCCESS || (err <= -2000 && err >= -2999)) return 0; /* the library's own */
    if (in_setup && (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ||
                     err == CL_OUT_OF_RESOURCES || err == CL_BUILD_PROGRAM_FAILURE ||
                     err == CL_COMPILER_NOT_AVAILABLE))
        return 0;
    return 1;
}

int chg_fault_is_memory(cl_int err)
{
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES;
}

size_t chg_memory_release(clhgemm_handle_t h, chg_handle_dev_t *d, int *handles)
{
    const size_t others = chg_handles_release_idle(d->id, h, handles);
    const size_t own = chg_devmem_free_device(d);
    d->releases++;
    chg_log(1, "device %d: out of memory; released its buffers (%.1f MiB) and %.1f MiB that %d idle handle(s) kept "
               "on it", d->index, own / 1048576.0, others / 1048576.0, *handles);
    return others;
}

void chg_memory_short(clhgemm_handle_t h, chg_handle_dev_t *d, const char *routine, cl_int err, const char *again)
{
    int handles;
    chg_memory_release(h, d, &handles);
    /* One line per device of a handle whatever CLHGEMM_VERBOSE says; later ones with it. */
    const int first = !d->short_warned;
    d->short_warned = 1;
    if (first || chg_verbose() >= 1)
        fprintf(stderr, "clhgemm: device %d (%s) out of memory in %s (%s, %d); its buffers%s were released and it %s\n",
                d->index, d->dev.info.name, routine, clhgemm_status_string((clhgemm_status_t)err), (int)err,
                handles ? " and those of idle handles on it" : "", again);
}

void chg_device_short(chg_call_t *c, chg_handle_dev_t *d, cl_int err)
{
    size_t cols = 0;
    for (size_t i = 0; i < d->redo.n; i++) cols += d->redo.r[i].nc;
    char again[128];
    snprintf(again, sizeof again, "computes its unfinished part of C (%zu region(s), %zu column(s) of tile rows) again",
             d->redo.n, cols);
    chg_memory_short(c->h, d, c->name ? c->name : "a host call", err, again);
    pthread_mutex_lock(&c->mu);
    d->short_in_call = 1;
    c->drivers--;
    pthread_mutex_unlock(&c->mu);
}

int chg_regions_add(chg_regions_t *l, size_t ti, size_t j0, size_t nc)
{
    if (nc == 0) return 0;
    chg_region_t *last = l->n ? &l->r[l->n - 1] : NULL;
    if (last && last->ti == ti && (last->j0 + last->nc == j0 || j0 + nc == last->j0)) {
        last->j0 = CHG_MIN(last->j0, j0);
        last->nc += nc;
        return 0;
    }
    if (l->n == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 8;
        chg_region_t *r = realloc(l->r, cap * sizeof *r);
        if (!r) return -1;
        l->r = r;
        l->cap = cap;
    }
    l->r[l->n++] = (chg_region_t){ti, j0, nc};
    return 0;
}

void chg_device_lost(chg_call_t *c, chg_handle_dev_t *d, cl_int err, const char *where)
{
    clhgemm_handle_t h = c->h;
    pthread_mutex_lock(&c->mu);
    d->lost = 1;
    d->lost_err = err;
    c->drivers--;
    int left = 0;
    for (int i = 0; i < h->ndev; i++) left += !h->devs[i].lost;
    pthread_mutex_unlock(&c->mu);
    size_t cols = 0;
    for (size_t i = 0; i < d->redo.n; i++) cols += d->redo.r[i].nc;
    /* One line whatever CLHGEMM_VERBOSE says (a device is lost once per handle). */
    fprintf(stderr,
            "clhgemm: device %d (%s) lost in %s (%s: %s, %d); this handle does not use it again; "
            "its unfinished part of C (%zu region(s), %zu column(s) of tile rows) is computed on %s\n",
            d->index, d->dev.info.name, c->name ? c->name : "a host call", where, clhgemm_status_string(err),
            (int)err, d->redo.n, cols, left ? "the other device(s)" : "the CPU");
}

/* ---- a region on the CPU ------------------------------------------------------------------------ */

/* A packed operand X in pack coordinates (core/gemm.h): X(r, p) at base[r*ld + p] when `rows`
 * (its rows along memory), else base[r + p*ld]; SYR2K's second product (p >= k) reads the other
 * buffer; symmetric: only the stored triangle is read; triangular: zeros and a unit diagonal
 * are not read. */
typedef struct xop_s {
    const char *base[2];
    size_t ld[2], k, es;
    int rows, upper, unit;
    chg_struct_kind_t kind;
} xop_t;

static double x_elem(const xop_t *x, size_t r, size_t p)
{
    const int seg = p >= x->k;
    if (seg) p -= x->k;
    if (x->kind == CHG_TRIANGULAR) {
        if (x->upper ? r > p : r < p) return 0.0;
        if (x->unit && r == p) return 1.0;
    } else if (x->kind == CHG_SYMMETRIC && (x->upper ? r > p : r < p)) {
        const size_t t = r;
        r = p;
        p = t;
    }
    const size_t idx = x->rows ? r * x->ld[seg] + p : r + p * x->ld[seg];
    return x->es == 8 ? ((const double *)x->base[seg])[idx] : (double)((const float *)x->base[seg])[idx];
}

static void put(void *buf, size_t idx, size_t es, double v)
{
    if (es == 8) ((double *)buf)[idx] = v;
    else ((float *)buf)[idx] = (float)v;
}

static double get(const void *buf, size_t idx, size_t es)
{
    return es == 8 ? ((const double *)buf)[idx] : (double)((const float *)buf)[idx];
}

/* C(i, j) is part of the result (SYRK/SYR2K: only C's triangle). */
static int in_c(const chg_call_t *c, size_t i, size_t j)
{
    return c->st.c_tri == CHG_TRI_UPPER ? i <= j : c->st.c_tri == CHG_TRI_LOWER ? i >= j : 1;
}

/* t := alpha * xa * xb + beta * t (mc x nc, column-major; xa mc x kk, xb kk x nc) on OpenBLAS,
 * else in a plain loop (accumulated in double). */
static void dense_product(const chg_call_t *c, size_t mc, size_t nc, size_t kk, const void *xa, const void *xb,
                          void *t, int threads)
{
    if (chg_cpu_gemm(c->prec, 0, 0, mc, nc, kk, c->alpha, xa, mc, xb, kk, c->beta, t, mc, threads) == 0) return;
    const size_t es = c->es;
    for (size_t j = 0; j < nc; j++)
        for (size_t i = 0; i < mc; i++) {
            double s = 0.0;
            for (size_t p = 0; p < kk; p++) s += get(xa, i + p * mc, es) * get(xb, p + j * kk, es);
            const double old = c->beta == 0.0 ? 0.0 : c->beta * get(t, i + j * mc, es);
            put(t, i + j * mc, es, c->alpha * s + old);
        }
}

/* ---- a complex region: dense copies in the call's precision, then one complex product ------ */

/* The complex X(r, p) (an operand of a complex call) into v: x_elem's structure, then a
 * Hermitian operand's mirror conjugated and diagonal real, the operand's conjugation, and
 * (X_A of a call with alpha in its packs) alpha, conjugated in the second product. */
static void x_elem_c(const xop_t *x, const chg_call_t *c, int herm, int conj, int scaled, size_t r,
                     size_t p, double v[2])
{
    const int seg = p >= x->k;
    if (seg) p -= x->k;
    int mirrored = 0;
    v[0] = v[1] = 0.0;
    if (x->kind == CHG_TRIANGULAR) {
        if (x->upper ? r > p : r < p) return;
        if (x->unit && r == p) {
            v[0] = 1.0;
            return;
        }
    } else if (x->kind == CHG_SYMMETRIC && (x->upper ? r > p : r < p)) {
        const size_t t = r;
        r = p;
        p = t;
        mirrored = 1;
    }
    const size_t idx = x->rows ? r * x->ld[seg] + p : r + p * x->ld[seg], ps = x->es / 2;
    v[0] = get(x->base[seg], 2 * idx, ps);
    v[1] = herm && r == p ? 0.0 : get(x->base[seg], 2 * idx + 1, ps);
    if ((herm && mirrored) != conj) v[1] = -v[1];
    if (scaled) {
        const double sr = c->pack_alpha[0], si = seg ? -c->pack_alpha[1] : c->pack_alpha[1];
        const double re = sr * v[0] - si * v[1];
        v[1] = sr * v[1] + si * v[0];
        v[0] = re;
    }
}

/* t := alpha * xa * xb + beta * t for complex elements (as dense_product). */
static void dense_product_c(const chg_call_t *c, size_t mc, size_t nc, size_t kk, const void *xa,
                            const void *xb, void *t)
{
    const chg_cpu_cargs_t u = {.routine = CHG_CPU_GEMM, .layout = CLHGEMM_COL_MAJOR,
                               .ta = CLHGEMM_NO_TRANS, .tb = CLHGEMM_NO_TRANS, .m = (int)mc,
                               .n = (int)nc, .k = (int)kk, .alpha = {c->alpha, c->alpha_im},
                               .beta = {c->beta, c->beta_im}, .a = xa, .lda = (int)mc, .b = xb,
                               .ldb = (int)kk, .c = t, .ldc = (int)mc};
    if (chg_cpu_blas_complex(c->prec, &u) == 0) return;
    const size_t ps = c->es / 2;
    for (size_t j = 0; j < nc; j++)
        for (size_t i = 0; i < mc; i++) {
            double sr = 0.0, si = 0.0;
            for (size_t p = 0; p < kk; p++) {
                const size_t a = 2 * (i + p * mc), b = 2 * (p + j * kk);
                const double ar = get(xa, a, ps), ai = get(xa, a + 1, ps);
                const double br = get(xb, b, ps), bi = get(xb, b + 1, ps);
                sr += ar * br - ai * bi;
                si += ar * bi + ai * br;
            }
            const size_t o = 2 * (i + j * mc);
            const double tr = chg_call_beta_zero(c) ? 0.0 : get(t, o, ps);
            const double ti = chg_call_beta_zero(c) ? 0.0 : get(t, o + 1, ps);
            put(t, o, ps, c->alpha * sr - c->alpha_im * si + c->beta * tr - c->beta_im * ti);
            put(t, o + 1, ps, c->alpha * si + c->alpha_im * sr + c->beta * ti + c->beta_im * tr);
        }
}

/* chg_cpu_region for a complex call: always through dense copies (BLAS has no op for a
 * conjugate without a transpose, which the column-major view may hold). */
static clhgemm_status_t cpu_region_c(const chg_call_t *c, size_t i0, size_t mc, size_t j0, size_t nc,
                                     const xop_t *A, const xop_t *B, size_t kk)
{
    const size_t es = c->es, ps = es / 2;
    char *xa = malloc(mc * kk * es), *xb = malloc(kk * nc * es), *t = malloc(mc * nc * es);
    if (!xa || !xb || !t) {
        free(xa);
        free(xb);
        free(t);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    const chg_struct_t *st = &c->st;
    double v[2];
    for (size_t p = 0; p < kk; p++)
        for (size_t i = 0; i < mc; i++) {
            x_elem_c(A, c, st->herm_a, st->conj_a, c->alpha_in_pack, i0 + i, p, v);
            put(xa, 2 * (i + p * mc), ps, v[0]);
            put(xa, 2 * (i + p * mc) + 1, ps, v[1]);
        }
    for (size_t j = 0; j < nc; j++)
        for (size_t p = 0; p < kk; p++) {
            x_elem_c(B, c, st->herm_b, st->conj_b, 0, j0 + j, p, v);
            put(xb, 2 * (p + j * kk), ps, v[0]);
            put(xb, 2 * (p + j * kk) + 1, ps, v[1]);
        }
    for (size_t j = 0; j < nc; j++)
        for (size_t i = 0; i < mc; i++) {
            const size_t u = 2 * (i0 + i + (j0 + j) * c->ldc), o = 2 * (i + j * mc);
            const int keep = !chg_call_beta_zero(c) && in_c(c, i0 + i, j0 + j);
            const int real_diag = st->herm_c && i0 + i == j0 + j;
            put(t, o, ps, keep ? get(c->c, u, ps) : 0.0);
            put(t, o + 1, ps, keep && !real_diag ? get(c->c, u + 1, ps) : 0.0);
        }
    dense_product_c(c, mc, nc, kk, xa, xb, t);
    for (size_t j = 0; j < nc; j++)
        for (size_t i = 0; i < mc; i++) {
            if (!in_c(c, i0 + i, j0 + j)) continue;
            if (st->herm_c && i0 + i == j0 + j) put(t, 2 * (i + j * mc) + 1, ps, 0.0);
            memcpy(c->c + (i0 + i + (j0 + j) * c->ldc) * es, t + (i + j * mc) * es, es);
        }
    free(xa);
    free(xb);
    free(t);
    return CLHGEMM_SUCCESS;
}

clhgemm_status_t chg_cpu_region(const chg_call_t *c, size_t i0, size_t mc, size_t j0, size_t nc, int threads)
{
    const size_t es = c->es;
    if (mc == 0 || nc == 0) return CLHGEMM_SUCCESS;
    /* A plain GEMM (C apart from A and B): OpenBLAS on the caller's memory. */
    if (!c->l3 && c->segs <= 1 &&
        chg_cpu_gemm(c->prec, c->ta, c->tb, mc, nc, c->k, c->alpha, c->a + (c->ta ? i0 * c->lda : i0) * es, c->lda,
                     c->b + (c->tb ? j0 : j0 * c->ldb) * es, c->ldb, c->beta, c->c + (i0 + j0 * c->ldc) * es,
                     c->ldc, threads) == 0)
        return CLHGEMM_SUCCESS;
    /* Otherwise dense copies of the region's X_A rows and X_B rows (k' = segs * k) and of its C,
     * all taken before C is written (TRMM: C is one of the operands). */
    const size_t kk = (size_t)CHG_MAX(c->segs, 1) * c->k;
    const xop_t XA = {.base = {c->a, c->b}, .ld = {c->lda, c->ldb}, .k = c->k, .es = es, .rows = c->ta,
                      .upper = c->st.upper_a, .unit = c->st.unit_a, .kind = c->st.kind_a};
    const xop_t XB = {.base = {c->b, c->a}, .ld = {c->ldb, c->lda}, .k = c->k, .es = es, .rows = !c->tb,
                      .upper = c->st.upper_b, .unit = c->st.unit_b, .kind = c->st.kind_b};
    if (c->st.cplx) return cpu_region_c(c, i0, mc, j0, nc, &XA, &XB, kk);
    char *xa = malloc(mc * kk * es), *xb = malloc(kk * nc * es), *t = malloc(mc * nc * es);
    if (!xa || !xb || !t) {
        free(xa);
        free(xb);
        free(t);
        return CLHGEMM_OUT_OF_HOST_MEMORY;
    }
    for (size_t p = 0; p < kk; p++)
        for (size_t i = 0; i < mc; i++) put(xa, i + p * mc, es, x_elem(&XA, i0 + i, p));
    for (size_t j = 0; j < nc; j++)
        for (size_t p = 0; p < kk; p++) put(xb, p + j * kk, es, x_elem(&XB, j0 + j, p));
    for (size_t j = 0; j < nc; j++)
        for (size_t i = 0; i < mc; i++) {
            const size_t u = i0 + i + (j0 + j) * c->ldc;
            put(t, i + j * mc, es, !chg_call_beta_zero(c) && in_c(c, i0 + i, j0 + j) ? get(c->c, u, es) : 0.0);
        }
    dense_product(c, mc, nc, kk, xa, xb, t, threads);
    for (size_t j = 0; j < nc; j++)
        for (size_t i = 0; i < mc; i++)
            if (in_c(c, i0 + i, j0 + j))
                memcpy(c->c + (i0 + i + (j0 + j) * c->ldc) * es, t + (i + j * mc) * es, es);
    free(xa);
    free(xb);
    free(t);
    return CLHGEMM_SUCCESS;
}

/* ---- a lost device leaves the handle -------------------------------------------------------- */

/* A new array holds the devices still in use first (in their order), then the lost ones,
 * released. A call routed to the CPU may read the device facts (dev) of an entry of the old or
 * the new array without the call lock: the old array is kept until destroy and no entry's
 * facts are written again. */
int chg_handle_drop_lost(clhgemm_handle_t h)
{
    chg_handle_dev_t *old = h->devs;
    const int n = h->ndev;
    int live = 0;
    for (int i = 0; i < n; i++) live += !old[i].lost;
    if (live == n) return n;
    chg_handle_dev_t *nd = calloc((size_t)h->ndev_all, sizeof *nd);
    if (!nd) return n;  /* kept for now: marked lost, a later call tries again */
    int j = 0;
    for (int i = 0; i < n; i++)
        if (!old[i].lost) nd[j++] = old[i];
    for (int i = 0; i < n; i++)
        if (old[i].lost) {
            chg_devmem_release(&old[i]);
            free(old[i].redo.r);
            old[i].redo = (chg_regions_t){0};
            nd[j++] = old[i];
        }
    for (int i = n; i < h->ndev_all; i++) nd[j++] = old[i];
    h->retired[h->nretired++] = old;
    h->devs = nd;
    h->ndev = live;
    chg_handle_fp64_update(h);
    return live;
}
