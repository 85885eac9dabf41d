/*
 * common.c -- the shared test harness (see common.h for the contract and the tolerance).
 *
 * Reference results come from OpenBLAS cblas_dgemm in double on the exact (converted) inputs,
 * called with the same layout, transposes, leading dimensions and offsets as the library, so the
 * oracle never re-implements the indexing that is under test. The A/B gaps are NaN, so a kernel
 * that reads an element outside op(A) or op(B) into the product shows up as a NaN result.
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- checks ------------------------------------------------------------------------------ */
static int g_checks, g_failures, g_print_limit;

int tc_pass(void)
{
    __atomic_add_fetch(&g_checks, 1, __ATOMIC_RELAXED);
    return 1;
}

int tc_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    __atomic_add_fetch(&g_checks, 1, __ATOMIC_RELAXED);
    const int nth = __atomic_add_fetch(&g_failures, 1, __ATOMIC_RELAXED);
    const int limit = __atomic_load_n(&g_print_limit, __ATOMIC_RELAXED);
    const char *slash = strrchr(file, '/');
    if (slash) file = slash + 1;
    fflush(stdout);
    flockfile(stderr);
    if (limit > 0 && nth > limit) {
        if (nth == limit + 1)
            fprintf(stderr, "FAIL %s:%d: more failures, counted but not printed\n", file, line);
    } else {
        fprintf(stderr, "FAIL %s:%d: ", file, line);
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        if (strcmp(cond, "0") != 0) fprintf(stderr, " (failed: %s)", cond);
        fputc('\n', stderr);
    }
    fflush(stderr);
    funlockfile(stderr);
    return 0;
}

void tc_tally_n(int checks, int failures)
{
    __atomic_add_fetch(&g_checks, checks, __ATOMIC_RELAXED);
    __atomic_add_fetch(&g_failures, failures, __ATOMIC_RELAXED);
}

void tc_tally(int failed)
{
    tc_tally_n(1, failed != 0);
}

int tc_checks(void)
{
    return __atomic_load_n(&g_checks, __ATOMIC_RELAXED);
}

int tc_failures(void)
{
    return __atomic_load_n(&g_failures, __ATOMIC_RELAXED);
}

void tc_fail_print_limit(int n)
{
    __atomic_store_n(&g_print_limit, n, __ATOMIC_RELAXED);
}

/* ---- device ------------------------------------------------------------------------------ */
static int count_raw_devices(void)
{
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) return 0;
    cl_platform_id *pl = calloc(np, sizeof *pl);
    if (!pl) return 0;
    int total = 0;
    if (clGetPlatformIDs(np, pl, NULL) == CL_SUCCESS) {
        for (cl_uint i = 0; i < np; i++) {
            cl_uint nd = 0;
            if (clGetDeviceIDs(pl[i], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) == CL_SUCCESS) total += nd;
        }
    }
    free(pl);
    return total;
}

/* Tests of a vendor path (e.g. CLHGEMM_TEST_REQUIRE_FEATURE=NV_MMA_F64 for the FP64 tensor-core
 * kernel) skip where the device lacks the feature, instead of passing on the portable path that
 * the library would quietly use there. 1 (and a SKIP line) when the feature is missing. */
static int feature_missing(const clhgemm_device_info_t *info)
{
    const char *need = getenv("CLHGEMM_TEST_REQUIRE_FEATURE");
    if (!need || !*need) return 0;
    char padded[sizeof info->features + 2], key[64];
    snprintf(padded, sizeof padded, " %s ", info->features);
    snprintf(key, sizeof key, " %s ", need);
    if (strstr(padded, key)) return 0;
    printf("SKIP: device %s lacks feature %s (has: %s)\n", info->name, need, info->features);
    return 1;
}

/* Tests of several devices set them up as PoCL CPU devices (POCL_DEVICES="pthread pthread") and
 * say how many they need (CLHGEMM_TEST_REQUIRE_DEVICES=2). Where the machine lists a device that
 * is not a CPU device (a GPU machine, where POCL_DEVICES does not reach the devices), fewer than
 * that is a skip (a SKIP line, 1); where every device is a CPU device (PoCL, as in CI), the test
 * runs and fails on its own if the set-up gave too few. */
static int devices_missing(void)
{
    const char *need = getenv("CLHGEMM_TEST_REQUIRE_DEVICES");
    const long want = need ? strtol(need, NULL, 10) : 0;
    if (want < 2) return 0;
    clhgemm_device_info_t info[8];
    size_t count = 0;
    if (clhgemm_devices_get(NULL, info, 8, &count) != CLHGEMM_SUCCESS || count >= (size_t)want) return 0;
    for (size_t i = 0; i < count && i < 8; i++) {
        char padded[sizeof info[i].features + 2];
        snprintf(padded, sizeof padded, " %s ", info[i].features);
        if (!strstr(padded, " CPU ")) {
            printf("SKIP: this test needs %ld devices (CLHGEMM_TEST_REQUIRE_DEVICES), the machine lists %zu, "
                   "and %s is not a CPU device that POCL_DEVICES could multiply\n",
                   want, count, info[i].name);
            return 1;
        }
    }
    return 0;
}

int tc_require_feature(void)
{
    if (devices_missing()) return TC_SKIP;
    if (!getenv("CLHGEMM_TEST_REQUIRE_FEATURE")) return 0;
    clhgemm_device_info_t info;
    size_t count = 0;
    if (clhgemm_devices_get(NULL, &info, 1, &count) != CLHGEMM_SUCCESS || count == 0) {
        printf("SKIP: no device to check CLHGEMM_TEST_REQUIRE_FEATURE on\n");
        return TC_SKIP;
    }
    return feature_missing(&info) ? TC_SKIP : 0;
}

int tc_any_gpu(void)
{
    clhgemm_device_info_t info[16];
    size_t count = 0;
    if (clhgemm_devices_get(NULL, info, 16, &count) != CLHGEMM_SUCCESS) return 0;
    for (size_t i = 0; i < count && i < 16; i++)
        if (info[i].kind == CLHGEMM_DEVICE_GPU) return 1;
    return 0;
}

void tc_small_tiles_on_gpu(const char *why)
{
    if (getenv("CLHGEMM_GEMM_PARAMS") || getenv("CLHGEMM_SGEMM_PARAMS") || getenv("CLHGEMM_DGEMM_PARAMS"))
        return;
    if (!tc_any_gpu()) return;
    /* every key named: an override keeps the tuned entry's values of the keys it leaves out
     * (the H100's FP64 MMA=2, PF=2 would then refuse these tiles) */
    static const char small[] = "MWG=32,NWG=32,KWG=16,MDIMC=8,NDIMC=8,VWM=2,VWN=2,SA=0,SB=0,KWI=2,"
                                "MMA=0,WM=0,TF32=0,SWZ=0,DK=0,PF=0";
    setenv("CLHGEMM_GEMM_PARAMS", small, 1);
    printf("note: a GPU device: CLHGEMM_GEMM_PARAMS=%s (the portable kernel on small tiles), so that %s\n", small, why);
}

int tc_open(tc_env_t *env)
{
    memset(env, 0, sizeof *env);
    size_t count = 0;
    clhgemm_status_t st = clhgemm_devices_get(NULL, &env->info, 1, &count);
    if (st == CLHGEMM_NO_DEVICE) {
        if (count_raw_devices() == 0) {
            printf("SKIP: no OpenCL device on this machine\n");
            return TC_SKIP;
        }
        fprintf(stderr, "FAIL: clhgemm_devices_get says NO_DEVICE but OpenCL lists %d device(s)\n",
                count_raw_devices());
        return 1;
    }
    if (st != CLHGEMM_SUCCESS || count == 0) {
        fprintf(stderr, "FAIL: clhgemm_devices_get(NULL) -> %s, count %zu (CLHGEMM_DEVICES=%s)\n",
                clhgemm_status_string(st), count,
                getenv("CLHGEMM_DEVICES") ? getenv("CLHGEMM_DEVICES") : "(unset)");
        return 1;
    }
    if (feature_missing(&env->info)) return TC_SKIP;
    env->device = env->info.device;
    env->has_fp64 = env->info.has_fp64;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env->info.platform,
                                     0};
    cl_int err = CL_SUCCESS;
    env->ctx = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
    if (!env->ctx || err != CL_SUCCESS) {
        fprintf(stderr, "FAIL: clCreateContext -> %s\n", clhgemm_status_string(err));
        return 1;
    }
    env->queue = tc_queue_new(env);
    if (!env->queue) return 1;
    return 0;
}

cl_command_queue tc_queue_new(const tc_env_t *env)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(env->ctx, env->device, 0, &err);
    if (!q || err != CL_SUCCESS) {
        fprintf(stderr, "FAIL: clCreateCommandQueue -> %s\n", clhgemm_status_string(err));
        return NULL;
    }
    return q;
}

void tc_close(tc_env_t *env)
{
    if (env->queue) {
        clFinish(env->queue);
        clReleaseCommandQueue(env->queue);
    }
    if (env->ctx) clReleaseContext(env->ctx);
    env->queue = NULL;
    env->ctx = NULL;
}

/* ---- random numbers ---------------------------------------------------------------------- */
void tc_rng_seed(tc_rng_t *r, uint64_t seed)
{
    r->s = seed ? seed : 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 4; i++) tc_rng_next(r);
}

uint64_t tc_rng_next(tc_rng_t *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

double tc_rng_uniform(tc_rng_t *r)
{
    for (;;) {
        double u = (double)(tc_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
        double v = 2.0 * u - 1.0;
        if (v != 0.0 && (float)v != 0.0f) return v;
    }
}

/* ---- buffers ----------------------------------------------------------------------------- */
cl_mem tc_buffer_from_host(cl_context ctx, const void *host, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)host,
                              &err);
    if (!m || err != CL_SUCCESS) {
        fprintf(stderr, "FAIL: clCreateBuffer(%zu bytes) -> %s\n", bytes,
                clhgemm_status_string(err));
        return NULL;
    }
    return m;
}

int tc_read(cl_command_queue q, cl_mem m, void *host, size_t bytes)
{
    cl_int err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "FAIL: clEnqueueReadBuffer -> %s\n", clhgemm_status_string(err));
        return 1;
    }
    return 0;
}

int tc_write(cl_command_queue q, cl_mem m, const void *host, size_t bytes)
{
    cl_int err = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "FAIL: clEnqueueWriteBuffer -> %s\n", clhgemm_status_string(err));
        return 1;
    }
    return 0;
}

cl_mem tc_random_buffer(cl_context ctx, size_t elems, size_t esz, tc_rng_t *rng, void **host)
{
    if (elems == 0) elems = 1;
    unsigned char *h = malloc(elems * esz);
    if (!h) return NULL;
    for (size_t i = 0; i < elems; i++) {
        const double v = tc_rng_uniform(rng);
        if (esz == 8) {
            memcpy(h + i * 8, &v, 8);
        } else {
            const float f = (float)v;
            memcpy(h + i * 4, &f, 4);
        }
    }
    cl_mem m = tc_buffer_from_host(ctx, h, elems * esz);
    if (host) *host = h;
    else free(h);
    return m;
}

int tc_unchanged(const tc_watched_t *w, const char *tag)
{
    if (!w || !w->buf) return 0;
    clFinish(w->q);
    void *tmp = malloc(w->bytes);
    if (!tmp) return 1;
    int rc = tc_read(w->q, w->buf, tmp, w->bytes);
    if (!rc && memcmp(tmp, w->host, w->bytes) != 0) {
        fprintf(stderr, "FAIL %s: the output changed although the call was rejected\n", tag);
        rc = 1;
    }
    free(tmp);
    return rc;
}

/* ---- geometry ---------------------------------------------------------------------------- */
/* Column-like storage: element (i, j) of op(X) at i + j*ld. True for col-major NoTrans and for
 * row-major Trans; the other two combinations are row-like (i*ld + j). */
static int col_like(clhgemm_layout_t layout, clhgemm_transpose_t t)
{
    return (layout == CLHGEMM_COL_MAJOR) != (t != CLHGEMM_NO_TRANS);
}

void tc_stored(clhgemm_layout_t layout, clhgemm_transpose_t t, int r, int c, int *contig,
               int *lines)
{
    if (col_like(layout, t)) {
        *contig = r;
        *lines = c;
    } else {
        *contig = c;
        *lines = r;
    }
}

size_t tc_index(clhgemm_layout_t layout, clhgemm_transpose_t t, int i, int j, int ld)
{
    return col_like(layout, t) ? (size_t)i + (size_t)j * (size_t)ld
                               : (size_t)i * (size_t)ld + (size_t)j;
}

size_t tc_index_c(clhgemm_layout_t layout, int i, int j, int ld)
{
    return tc_index(layout, CLHGEMM_NO_TRANS, i, j, ld);
}

size_t tc_required(size_t off, int contig, int lines, int ld)
{
    if (contig <= 0 || lines <= 0) return off;
    return off + (size_t)(lines - 1) * (size_t)ld + (size_t)contig;
}

void tc_sentinel(int dbl, size_t idx, void *dst)
{
    if (dbl) {
        uint64_t v = 0x7FF4DEAD00000000ULL | (uint64_t)(idx & 0xFFFFFFFFu); /* signalling NaN */
        memcpy(dst, &v, 8);
    } else {
        uint32_t v = 0x7FBAD000u | (uint32_t)(idx & 0xFFFu); /* signalling NaN */
        memcpy(dst, &v, 4);
    }
}

const char *tc_layout_name(clhgemm_layout_t l)
{
    return l == CLHGEMM_COL_MAJOR ? "col" : l == CLHGEMM_ROW_MAJOR ? "row" : "bad-layout";
}

const char *tc_trans_name(clhgemm_transpose_t t)
{
    return t == CLHGEMM_NO_TRANS ? "N" : t == CLHGEMM_TRANS ? "T" : t == CLHGEMM_CONJ_TRANS ? "C" : "?";
}

/* ---- reference --------------------------------------------------------------------------- */
static pthread_mutex_t ref_lock = PTHREAD_MUTEX_INITIALIZER;

void tc_ref_dgemm(clhgemm_layout_t layout, clhgemm_transpose_t ta, clhgemm_transpose_t tb, int m,
                  int n, int k, double alpha, const double *A, int lda, const double *B, int ldb,
                  double beta, double *C, int ldc)
{
    if (m == 0 || n == 0) return;
    pthread_mutex_lock(&ref_lock);
    cblas_dgemm((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb, m, n,
                k, alpha, A, lda, B, ldb, beta, C, ldc);
    pthread_mutex_unlock(&ref_lock);
}

static double load(int dbl, const void *p, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void store(int dbl, void *p, size_t i, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

static const char *where_in_c(clhgemm_layout_t layout, int m, int n, size_t offc, int ldc,
                              size_t idx)
{
    int contig, lines;
    tc_stored(layout, CLHGEMM_NO_TRANS, m, n, &contig, &lines);
    if (idx < offc) return "offset prefix";
    if (idx >= tc_required(offc, contig, lines, ldc)) return "guard tail";
    return "ld gap";
}

/* tri: 0 the whole m x n matrix is checked against want; 1 (2) only its upper (lower)
 * triangle, the rest must be bit-identical like the outside. */
static int check_c_impl(int dbl, clhgemm_layout_t layout, int m, int n, int k, int tri,
                        const void *got, const void *before, size_t nc, size_t offc, int ldc,
                        const double *want, const double *bound, const char *tag)
{
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    const double tiny = dbl ? 1e-300 : 1e-30;
    const double tolfac = 2.0;
    /* CLHGEMM_TEST_TOL_PRODUCT: an FP32 product's documented relative error on top of the k
     * roundings, for the TF32 opt-in (CLHGEMM_SGEMM_MATH: tf32 2^-10, 3xtf32 2^-19) */
    const char *tp = getenv("CLHGEMM_TEST_TOL_PRODUCT");
    const double per_product = !dbl && tp ? atof(tp) : 0.0;
    const size_t esz = dbl ? 8 : 4;
    int rc = 0;

    unsigned char *inside = calloc(nc ? nc : 1, 1);
    if (!inside) {
        fprintf(stderr, "FAIL %s: out of host memory\n", tag);
        return 1;
    }
    size_t bad = 0, total = 0;
    double worst = -1.0;
    int wi = -1, wj = -1;
    double wgot = 0, wwant = 0, wtol = 0;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) {
            if ((tri == 1 && i > j) || (tri == 2 && i < j)) continue;
            size_t idx = offc + tc_index_c(layout, i, j, ldc);
            inside[idx] = 1;
            total++;
            double g = load(dbl, got, idx);
            double w = want[idx];
            double tol = (tolfac * (double)(k + 2) * eps + per_product) * bound[idx] + tiny;
            double err = fabs(g - w);
            if (!(err <= tol)) {
                double ratio = isfinite(err) ? err / tol : INFINITY;
                bad++;
                if (ratio > worst) {
                    worst = ratio;
                    wi = i;
                    wj = j;
                    wgot = g;
                    wwant = w;
                    wtol = tol;
                }
            }
        }
    }
    if (bad) {
        fprintf(stderr,
                "FAIL %s: %zu/%zu elements out of tolerance; worst C(%d,%d) got %.17g want %.17g "
                "tol %.3g\n",
                tag, bad, total, wi, wj, wgot, wwant, wtol);
        rc = 1;
    }
    size_t changed = 0, first = 0;
    for (size_t idx = 0; idx < nc; idx++) {
        if (inside[idx]) continue;
        if (memcmp((const char *)got + idx * esz, (const char *)before + idx * esz, esz) != 0) {
            if (!changed) first = idx;
            changed++;
        }
    }
    if (changed) {
        const char *where = where_in_c(layout, m, n, offc, ldc, first);
        if (tri) {
            /* inside the m x n extent but not in the triangle: the other triangle */
            const size_t rel = first - offc, ld = (size_t)ldc;
            const size_t a = rel / ld, b = rel % ld; /* (line, position along ld) */
            const int i = layout == CLHGEMM_COL_MAJOR ? (int)b : (int)a;
            const int j = layout == CLHGEMM_COL_MAJOR ? (int)a : (int)b;
            if (first >= offc && i < m && j < n) where = "the other triangle";
        }
        fprintf(stderr,
                "FAIL %s: %zu C-buffer elements outside the %s changed; first at index %zu "
                "(%s) now %.9g\n",
                tag, changed, tri ? "triangle" : "matrix", first, where, load(dbl, got, first));
        rc = 1;
    }
    free(inside);
    return rc;
}

int tc_check_c(int dbl, clhgemm_layout_t layout, int m, int n, int k, const void *got,
               const void *before, size_t nc, size_t offc, int ldc, const double *want,
               const double *bound, const char *tag)
{
    return check_c_impl(dbl, layout, m, n, k, 0, got, before, nc, offc, ldc, want, bound, tag);
}

int tc_check_c_tri(int dbl, clhgemm_layout_t layout, clhgemm_uplo_t uplo, int n, int k,
                   const void *got, const void *before, size_t nc, size_t offc, int ldc,
                   const double *want, const double *bound, const char *tag)
{
    return check_c_impl(dbl, layout, n, n, k, uplo == CLHGEMM_UPPER ? 1 : 2, got, before, nc, offc,
                        ldc, want, bound, tag);
}

/* ---- one problem ------------------------------------------------------------------------- */
void tc_case_describe(const tc_case_t *c, char *buf, size_t len)
{
    snprintf(buf, len,
             "%cgemm %s %s%s m=%d n=%d k=%d alpha=%g beta=%g lda=%d ldb=%d ldc=%d offA=%zu "
             "offB=%zu offC=%zu%s%s%s",
             c->dbl ? 'd' : 's', tc_layout_name(c->layout), tc_trans_name(c->ta),
             tc_trans_name(c->tb), c->m, c->n, c->k, c->alpha, c->beta, c->lda, c->ldb, c->ldc,
             c->offa, c->offb, c->offc, c->null_a ? " A=NULL" : "", c->null_b ? " B=NULL" : "",
             (c->c_nan || c->beta == 0.0) ? " C0=NaN" : "");
}

static int max1(int x) { return x > 1 ? x : 1; }

int tc_problem_init_host(tc_problem_t *p, const tc_case_t *c, tc_rng_t *rng)
{
    memset(p, 0, sizeof *p);
    p->c = *c;
    tc_case_t *q = &p->c;
    int dbl = q->dbl;
    p->esz = dbl ? 8 : 4;
    int ca, la, cb, lb, cc, lc;
    tc_stored(q->layout, q->ta, q->m, q->k, &ca, &la);
    tc_stored(q->layout, q->tb, q->k, q->n, &cb, &lb);
    tc_stored(q->layout, CLHGEMM_NO_TRANS, q->m, q->n, &cc, &lc);
    if (q->lda == 0) q->lda = max1(ca) + q->pad;
    if (q->ldb == 0) q->ldb = max1(cb) + q->pad;
    if (q->ldc == 0) q->ldc = max1(cc) + q->pad;
    if (q->beta == 0.0) q->c_nan = 1;
    p->na = tc_required(q->offa, ca, la, q->lda) + 5 + q->extra;
    p->nb = tc_required(q->offb, cb, lb, q->ldb) + 5 + q->extra;
    p->nc = tc_required(q->offc, cc, lc, q->ldc) + 13;
    p->a0 = malloc(p->na * p->esz);
    p->b0 = malloc(p->nb * p->esz);
    p->c0 = malloc(p->nc * p->esz);
    if (!p->a0 || !p->b0 || !p->c0) {
        fprintf(stderr, "FAIL: out of host memory\n");
        tc_problem_free(p);
        return 1;
    }
    for (size_t i = 0; i < p->na; i++) store(dbl, p->a0, i, NAN);
    for (size_t i = 0; i < p->nb; i++) store(dbl, p->b0, i, NAN);
    for (int j = 0; j < q->k; j++)
        for (int i = 0; i < q->m; i++)
            store(dbl, p->a0, q->offa + tc_index(q->layout, q->ta, i, j, q->lda),
                  tc_rng_uniform(rng));
    for (int j = 0; j < q->n; j++)
        for (int i = 0; i < q->k; i++)
            store(dbl, p->b0, q->offb + tc_index(q->layout, q->tb, i, j, q->ldb),
                  tc_rng_uniform(rng));
    for (size_t i = 0; i < p->nc; i++) tc_sentinel(dbl, i, (char *)p->c0 + i * p->esz);
    for (int j = 0; j < q->n; j++)
        for (int i = 0; i < q->m; i++)
            store(dbl, p->c0, q->offc + tc_index_c(q->layout, i, j, q->ldc),
                  q->c_nan ? NAN : tc_rng_uniform(rng));
    return 0;
}

int tc_problem_init(tc_problem_t *p, cl_context ctx, const tc_case_t *c, tc_rng_t *rng)
{
    if (tc_problem_init_host(p, c, rng)) return 1;
    const tc_case_t *q = &p->c;
    if (!q->null_a && !(p->a = tc_buffer_from_host(ctx, p->a0, p->na * p->esz))) goto fail;
    if (!q->null_b && !(p->b = tc_buffer_from_host(ctx, p->b0, p->nb * p->esz))) goto fail;
    if (!(p->cbuf = tc_buffer_from_host(ctx, p->c0, p->nc * p->esz))) goto fail;
    return 0;
fail:
    tc_problem_free(p);
    return 1;
}

clhgemm_status_t tc_problem_call(const tc_problem_t *p, cl_command_queue queue, cl_event *event)
{
    const tc_case_t *q = &p->c;
    if (q->dbl)
        return clhgemm_dgemm_cl(q->layout, q->ta, q->tb, q->m, q->n, q->k, q->alpha, p->a, q->offa,
                                q->lda, p->b, q->offb, q->ldb, q->beta, p->cbuf, q->offc, q->ldc,
                                queue, event);
    return clhgemm_sgemm_cl(q->layout, q->ta, q->tb, q->m, q->n, q->k, (float)q->alpha, p->a,
                            q->offa, q->lda, p->b, q->offb, q->ldb, (float)q->beta, p->cbuf,
                            q->offc, q->ldc, queue, event);
}

static int check_operand(const tc_problem_t *p, cl_command_queue queue, cl_mem m, const void *h0,
                         size_t n, char name, const char *tag)
{
    if (!m) return 0;
    void *buf = malloc(n * p->esz);
    if (!buf) return 1;
    int rc = tc_read(queue, m, buf, n * p->esz);
    if (!rc && memcmp(buf, h0, n * p->esz) != 0) {
        fprintf(stderr, "FAIL %s: buffer %c was modified by the call\n", tag, name);
        rc = 1;
    }
    free(buf);
    return rc;
}

void tc_problem_ref_init(const tc_problem_t *p, double *want, double *bound)
{
    for (size_t i = 0; i < p->nc; i++) {
        double v = load(p->c.dbl, p->c0, i);
        if (p->c.beta == 0.0 && isnan(v)) v = 0.0; /* beta == 0: C is not read */
        want[i] = v;
        bound[i] = fabs(v);
    }
}

int tc_problem_ref_apply(const tc_problem_t *p, double *want, double *bound)
{
    const tc_case_t *q = &p->c;
    double *da = malloc(p->na * sizeof(double)), *db = malloc(p->nb * sizeof(double));
    double *aa = malloc(p->na * sizeof(double)), *ab = malloc(p->nb * sizeof(double));
    int rc = 0;
    if (!da || !db || !aa || !ab) {
        fprintf(stderr, "FAIL: out of host memory\n");
        rc = 1;
        goto out;
    }
    for (size_t i = 0; i < p->na; i++) {
        da[i] = load(q->dbl, p->a0, i);
        aa[i] = fabs(da[i]);
    }
    for (size_t i = 0; i < p->nb; i++) {
        db[i] = load(q->dbl, p->b0, i);
        ab[i] = fabs(db[i]);
    }
    if (q->alpha == 0.0 || q->k == 0) {
        /* BLAS semantics: A and B are not referenced. Done here rather than by OpenBLAS, whose
         * kernels on some CPUs compute 0 * NaN when A or B hold NaN. */
        for (int j = 0; j < q->n; j++) {
            for (int i = 0; i < q->m; i++) {
                size_t idx = q->offc + tc_index_c(q->layout, i, j, q->ldc);
                want[idx] = q->beta == 0.0 ? 0.0 : q->beta * want[idx];
                bound[idx] = fabs(q->beta) * bound[idx];
            }
        }
        goto out;
    }
    tc_ref_dgemm(q->layout, q->ta, q->tb, q->m, q->n, q->k, q->alpha, da + q->offa, q->lda,
                 db + q->offb, q->ldb, q->beta, want + q->offc, q->ldc);
    tc_ref_dgemm(q->layout, q->ta, q->tb, q->m, q->n, q->k, fabs(q->alpha), aa + q->offa, q->lda,
                 ab + q->offb, q->ldb, fabs(q->beta), bound + q->offc, q->ldc);
out:
    free(da);
    free(db);
    free(aa);
    free(ab);
    return rc;
}

int tc_problem_check(const tc_problem_t *p, cl_command_queue queue, const char *tag)
{
    const tc_case_t *q = &p->c;
    int rc = 0;
    void *got = malloc(p->nc * p->esz);
    double *want = malloc(p->nc * sizeof(double)), *bound = malloc(p->nc * sizeof(double));
    if (!got || !want || !bound) {
        fprintf(stderr, "FAIL %s: out of host memory\n", tag);
        rc = 1;
        goto out;
    }
    if (tc_read(queue, p->cbuf, got, p->nc * p->esz)) {
        rc = 1;
        goto out;
    }
    rc |= check_operand(p, queue, p->a, p->a0, p->na, 'A', tag);
    rc |= check_operand(p, queue, p->b, p->b0, p->nb, 'B', tag);
    tc_problem_ref_init(p, want, bound);
    if (tc_problem_ref_apply(p, want, bound)) {
        rc = 1;
        goto out;
    }
    rc |= tc_check_c(q->dbl, q->layout, q->m, q->n, q->k, got, p->c0, p->nc, q->offc, q->ldc,
                     want, bound, tag);
out:
    free(got);
    free(want);
    free(bound);
    return rc;
}

int tc_problem_check_unchanged(const tc_problem_t *p, cl_command_queue queue, const char *tag)
{
    void *got = malloc(p->nc * p->esz);
    if (!got) return 1;
    int rc = tc_read(queue, p->cbuf, got, p->nc * p->esz);
    if (!rc) {
        for (size_t i = 0; i < p->nc; i++) {
            if (memcmp((char *)got + i * p->esz, (char *)p->c0 + i * p->esz, p->esz) != 0) {
                fprintf(stderr, "FAIL %s: C changed at buffer index %zu (%.9g, was %.9g)\n", tag,
                        i, load(p->c.dbl, got, i), load(p->c.dbl, p->c0, i));
                rc = 1;
                break;
            }
        }
    }
    rc |= check_operand(p, queue, p->a, p->a0, p->na, 'A', tag);
    rc |= check_operand(p, queue, p->b, p->b0, p->nb, 'B', tag);
    free(got);
    return rc;
}

void tc_problem_free(tc_problem_t *p)
{
    if (p->a) clReleaseMemObject(p->a);
    if (p->b) clReleaseMemObject(p->b);
    if (p->cbuf) clReleaseMemObject(p->cbuf);
    free(p->a0);
    free(p->b0);
    free(p->c0);
    memset(p, 0, sizeof *p);
}

/* The asynchronous contract of a call that returned st and ev on queue: success with an event
 * of the caller's context, which completes. Waits for and releases ev. Returns -1 when the call
 * failed or gave no event (nothing to check), else 0 or 1 (the contract broken). */
int tc_event_contract(cl_context ctx, cl_command_queue queue, clhgemm_status_t st, cl_event ev,
                      const char *tag)
{
    if (st != CLHGEMM_SUCCESS) {
        fprintf(stderr, "FAIL %s: status %s (%d)\n", tag, clhgemm_status_string(st), (int)st);
        if (ev) clReleaseEvent(ev);
        return -1;
    }
    if (!ev) {
        fprintf(stderr, "FAIL %s: success but no event returned\n", tag);
        clFinish(queue);
        return -1;
    }
    int rc = 0;
    cl_context ev_ctx = NULL;
    if (clGetEventInfo(ev, CL_EVENT_CONTEXT, sizeof ev_ctx, &ev_ctx, NULL) != CL_SUCCESS ||
        ev_ctx != ctx) {
        /* an event of another context cannot go into the caller's wait lists */
        fprintf(stderr, "FAIL %s: the event belongs to another context\n", tag);
        rc = 1;
    }
    cl_int err = clWaitForEvents(1, &ev);
    cl_int exec = CL_COMPLETE;
    cl_int err2 = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    if (err != CL_SUCCESS || err2 != CL_SUCCESS || exec != CL_COMPLETE) {
        fprintf(stderr, "FAIL %s: event wait %s, status %s, execution status %d\n", tag,
                clhgemm_status_string(err), clhgemm_status_string(err2), (int)exec);
        rc = 1;
    }
    clReleaseEvent(ev);
    return rc;
}

int tc_run_case(cl_context ctx, cl_command_queue queue, const tc_case_t *c, tc_rng_t *rng)
{
    char tag[256];
    tc_problem_t p;
    if (tc_problem_init(&p, ctx, c, rng)) {
        tc_case_describe(c, tag, sizeof tag);
        fprintf(stderr, "FAIL %s: setup failed\n", tag);
        return 1;
    }
    tc_case_describe(&p.c, tag, sizeof tag);
    cl_event ev = NULL;
    const clhgemm_status_t st = tc_problem_call(&p, queue, &ev);
    const int ev_rc = tc_event_contract(ctx, queue, st, ev, tag);
    const int rc = ev_rc < 0 ? 1 : ev_rc | tc_problem_check(&p, queue, tag);
    tc_problem_free(&p);
    return rc;
}

/* ---- level 3 (test_level3.c on device buffers, test_host_level3.c on host memory) -------- */

static double l3_load(int dbl, const void *p, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static int l3_in_tri(clhgemm_uplo_t uplo, int i, int j) { return uplo == CLHGEMM_UPPER ? i <= j : i >= j; }

/* want/bound over the whole output buffer (C, or B for TRMM) := alpha*op + beta*C0 and
 * |alpha||op| + |beta||C0| with OpenBLAS in double. NaN in the inputs marks what the library
 * must not read: zero for the reference; NaN in C0 (beta == 0, sentinels) likewise. */
void tc_l3_reference(const tc_l3case_t *c, int lda, int ldb, int ldc, size_t na, size_t nb,
                     size_t nc, const void *a0, const void *b0, const void *c0, double *want,
                     double *bound)
{
    const int dbl = c->dbl, trmm = c->r == TC_L3_TRMM;
    const void *out0 = trmm ? b0 : c0;
    const size_t nout = trmm ? nb : nc;
    double *da = malloc(na * 8), *aa = malloc(na * 8);
    double *db = malloc(nb * 8), *ab = malloc(nb * 8);
    if (!da || !aa || !db || !ab) abort();
    for (size_t i = 0; i < na; i++) {
        const double v = l3_load(dbl, a0, i);
        da[i] = isnan(v) ? 0.0 : v;
        aa[i] = fabs(da[i]);
    }
    for (size_t i = 0; i < nb; i++) {
        const double v = l3_load(dbl, b0, i);
        db[i] = isnan(v) ? 0.0 : v;
        ab[i] = fabs(db[i]);
    }
    for (size_t i = 0; i < nout; i++) {
        double v = l3_load(dbl, out0, i);
        if (isnan(v)) v = 0.0;
        want[i] = v;
        bound[i] = fabs(v);
    }
    const enum CBLAS_ORDER o = (enum CBLAS_ORDER)c->layout;
    const enum CBLAS_SIDE s = c->side == CLHGEMM_LEFT ? CblasLeft : CblasRight;
    const enum CBLAS_UPLO u = c->uplo == CLHGEMM_UPPER ? CblasUpper : CblasLower;
    const enum CBLAS_TRANSPOSE t = c->trans == CLHGEMM_NO_TRANS ? CblasNoTrans : CblasTrans;
    const enum CBLAS_DIAG d = c->diag == CLHGEMM_UNIT ? CblasUnit : CblasNonUnit;
    const double al = c->alpha, be = c->beta, aal = fabs(al), abe = fabs(be);
    double *A = da + c->offa, *AA = aa + c->offa, *B = db + c->offb, *AB = ab + c->offb;
    double *W = want + (trmm ? c->offb : c->offc), *BD = bound + (trmm ? c->offb : c->offc);
    const int ldw = trmm ? ldb : ldc;
    int rows, cols;
    if (c->r == TC_L3_SYMM || trmm) rows = c->m, cols = c->n;
    else rows = cols = c->n;
    if (rows == 0 || cols == 0) goto out;
    if (al == 0.0 || (c->r != TC_L3_SYMM && !trmm && c->k == 0)) {
        for (int j = 0; j < cols; j++)
            for (int i = 0; i < rows; i++) {
                if ((c->r == TC_L3_SYRK || c->r == TC_L3_SYR2K) && !l3_in_tri(c->uplo, i, j)) continue;
                const size_t x = tc_index_c(c->layout, i, j, ldw);
                W[x] = trmm || be == 0.0 ? 0.0 : be * W[x];
                BD[x] = trmm ? 0.0 : abe * BD[x];
            }
        goto out;
    }
    switch (c->r) {
    case TC_L3_SYMM:
        cblas_dsymm(o, s, u, c->m, c->n, al, A, lda, B, ldb, be, W, ldw);
        cblas_dsymm(o, s, u, c->m, c->n, aal, AA, lda, AB, ldb, abe, BD, ldw);
        break;
    case TC_L3_SYRK:
        cblas_dsyrk(o, u, t, c->n, c->k, al, A, lda, be, W, ldw);
        cblas_dsyrk(o, u, t, c->n, c->k, aal, AA, lda, abe, BD, ldw);
        break;
    case TC_L3_SYR2K:
        cblas_dsyr2k(o, u, t, c->n, c->k, al, A, lda, B, ldb, be, W, ldw);
        cblas_dsyr2k(o, u, t, c->n, c->k, aal, AA, lda, AB, ldb, abe, BD, ldw);
        break;
    default:
        cblas_dtrmm(o, s, u, t, d, c->m, c->n, al, A, lda, W, ldw);
        cblas_dtrmm(o, s, u, t, d, c->m, c->n, aal, AA, lda, BD, ldw);
        break;
    }
out:
    free(da);
    free(aa);
    free(db);
    free(ab);
}

/* ---- process ------------------------------------------------------------------------------ */

void tc_capture_begin(tc_capture_t *k)
{
    fflush(stderr);
    FILE *tmp = tmpfile();
    k->tmp = tmp;
    k->saved = dup(2);
    if (!tmp || k->saved < 0 || dup2(fileno(tmp), 2) < 0) abort();
}

char *tc_capture_end(tc_capture_t *k)
{
    FILE *tmp = k->tmp;
    fflush(stderr);
    dup2(k->saved, 2);
    close(k->saved);
    fseek(tmp, 0, SEEK_END);
    const long len = ftell(tmp);
    rewind(tmp);
    char *text = malloc(len > 0 ? (size_t)len + 1 : 1);
    size_t n = 0;
    if (text && len > 0) n = fread(text, 1, (size_t)len, tmp);
    if (text) text[n] = '\0';
    fclose(tmp);
    k->tmp = NULL;
    if (text) fputs(text, stderr);
    return text ? text : calloc(1, 1);
}

int tc_count_lines(const char *text, const char *prefix, const char *a, const char *b)
{
    int count = 0;
    const size_t np = strlen(prefix);
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        const size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[2048];
        const size_t keep = len < sizeof buf - 1 ? len : sizeof buf - 1;
        memcpy(buf, line, keep);
        buf[keep] = '\0';
        if (!strncmp(buf, prefix, np) && strstr(buf, a) && (!b || strstr(buf, b))) count++;
        line = end ? end + 1 : NULL;
    }
    return count;
}

double tc_vmrss_mib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kib = atof(line + 6);
    if (f) fclose(f);
    return kib / 1024.0;
}
