/*
 * test_mma.c -- the tensor-core GEMM kernels (cl/gemm.cl with MMA = 1..4 in FP64, and the FP32
 * opt-in MMA = 3 with TF32 = 1 or 3) against a host product, on the one device the test finds;
 * NVIDIA devices of compute capability >= 8.0 only (exit 77, skipped, elsewhere).
 *
 * Each mma shape the kernel can use (m8n8k4, m16n8k4, m16n8k8, m16n8k16) is built straight from
 * its source -- no cache, no fallback to the FMA kernel -- on a few work-group geometries, and run
 * on random packed operands of several work-groups each way and several KWG slices, once writing
 * Cp (poisoned with NaN first) and once accumulating into a random Cp. A fragment mapping that
 * is wrong in any register puts elements in the wrong place, an error of the order of the
 * values themselves; the tolerance is that of k FP64 roundings. A shape the driver's PTX does
 * not accept is reported (the library then falls back to the FMA kernel); the test fails if one
 * builds and computes wrongly, or if none builds at all.
 *
 * TF32 (FP32 inputs rounded to 10 mantissa bits): each product carries up to 2^-10 of |ab|, so
 * the tolerance is 2^-10 |ab| plus k FP32 roundings, and the worst error must also be above
 * 2^-16 of sum|ab| -- an FP32 FMA kernel would be ~1e-7 there, so a TF32 run that is not really
 * on the tensor cores fails. 3xTF32 drops only lo*lo and the low parts' own rounding (~3 x 2^-22
 * of |ab|): its tolerance is 2^-19 |ab| plus k FP32 roundings. Operands are FP32 values (the
 * host reference in FP64 is then exact up to its own rounding).
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cache.h"
#include "common.h"
#include "core/gemm.h"
#include "kernels/params.h"

static const char *const shape_names[] = {"", "m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"};

/* Geometries: 4 warps as 2 x 2, 8 warps as 8 x 1, 8 warps as 2 x 4 on a 128 x 128 tile, and
 * the unstaged variants. */
static const char *const geometries[] = {
    "MWG=64,NWG=64,KWG=16,MDIMC=32,NDIMC=4,VWM=2,VWN=2,SA=1,SB=1,KWI=16,WM=2",
    "MWG=128,NWG=32,KWG=16,MDIMC=16,NDIMC=16,VWM=4,VWN=2,SA=1,SB=1,KWI=16,WM=8",
    "MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,VWM=2,VWN=2,SA=1,SB=1,KWI=8,WM=2",
    /* B, then both, read straight from global memory (SB=0, SA=0) */
    "MWG=128,NWG=128,KWG=16,MDIMC=16,NDIMC=16,VWM=2,VWN=2,SA=1,SB=0,KWI=16,WM=2",
    "MWG=64,NWG=64,KWG=16,MDIMC=32,NDIMC=4,VWM=2,VWN=2,SA=0,SB=0,KWI=16,WM=2",
};

/* the TF32 geometries: the built-in one (chg_gemm_params_tf32: 128 x 128 on 4 warps), 128 x 256
 * on 8 warps, 128 x 128 on 8 warps, and B unstaged on 8 warps as 8 x 1 */
static const char *const tf32_geometries[] = {
    "MWG=128,NWG=128,KWG=16,MDIMC=16,NDIMC=8,VWM=4,VWN=4,SA=1,SB=1,KWI=16,WM=2",
    "MWG=128,NWG=256,KWG=8,MDIMC=16,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWI=8,WM=2",
    "MWG=128,NWG=128,KWG=16,MDIMC=16,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWI=16,WM=2",
    "MWG=128,NWG=32,KWG=16,MDIMC=16,NDIMC=16,VWM=4,VWN=2,SA=1,SB=0,KWI=16,WM=8",
};

static double urand(tc_rng_t *r) { return 2.0 * tc_rng_uniform(r) - 1.0; }

/* The kernel's element type: FP32 data are FP32 values held in doubles on the host. */
static double as_elem(double v, int dbl) { return dbl ? v : (double)(float)v; }

/* 1: correct, 0: wrong, -1: did not build (reported), -2: geometry invalid for the shape.
 * tf32 0: FP64; 1 or 3: FP32 through TF32 (mma must be 3). *worst_out: worst error / sum|ab|. */
static int run_one(const tc_env_t *env, const chg_device_t *dev, int mma, int tf32,
                   const char *geo, tc_rng_t *rng, double *worst_out)
{
    const chg_precision_t prec = tf32 ? CHG_F32 : CHG_F64;
    const int dbl = prec == CHG_F64;
    const size_t es = dbl ? sizeof(double) : sizeof(float);
    const char *name = tf32 == 1 ? "tf32" : tf32 == 3 ? "3xtf32" : shape_names[mma];
    chg_gemm_params_t p;
    chg_gemm_params_default(dev, prec, &p);
    char text[256], why[200] = "";
    snprintf(text, sizeof text, "%s,MMA=%d,TF32=%d", geo, mma, tf32);
    if (chg_gemm_params_parse(text, &p) || !chg_gemm_params_valid(dev, prec, &p, why, sizeof why)) {
        printf("  %-9s %s: not a valid geometry for this shape (%s)\n", name, geo, why);
        return -2;
    }
    chg_str_t src;
    chg_str_init(&src);
    if (chg_gemm_source(dev, prec, &p, &src) != 0) {
        chg_str_free(&src);
        return 0;
    }
    cl_program prog = NULL;
    char *log = NULL;
    clhgemm_status_t st = chg_program_build_uncached(env->ctx, env->device, src.data,
                                                     chg_build_options(dev), &prog, &log);
    chg_str_free(&src);
    if (st != CLHGEMM_SUCCESS) {
        char first[300] = "";
        if (log) {
            const char *e = strstr(log, "error");
            snprintf(first, sizeof first, "%.280s", e ? e : log);
            for (char *c = first; *c; c++)
                if (*c == '\n') *c = ' ';
        }
        printf("  %-9s %s: did not build (%s): %s\n", name, geo,
               clhgemm_status_string(st), first);
        free(log);
        return -1;
    }
    free(log);
    cl_int err;
    cl_kernel k = clCreateKernel(prog, "clhgemm_gemm", &err);
    if (err != CL_SUCCESS) {
        printf("  %-9s %s: clCreateKernel -> %d\n", name, geo, (int)err);
        clReleaseProgram(prog);
        return 0;
    }
    const int mp = 2 * p.mwg, np = 3 * p.nwg, kp = 5 * p.kwg;
    const size_t na = (size_t)mp * kp, nb = (size_t)np * kp, nc = (size_t)mp * np;
    double *A = malloc(sizeof(double) * na), *B = malloc(sizeof(double) * nb);
    char *ap = malloc(es * na), *bp = malloc(es * nb), *init = malloc(es * nc), *gotr = malloc(es * nc);
    double *c0 = malloc(sizeof(double) * nc), *got = malloc(sizeof(double) * nc);
    for (size_t x = 0; x < na; x++) A[x] = as_elem(urand(rng), dbl); /* A(i,p) = A[i + p*mp] */
    for (size_t x = 0; x < nb; x++) B[x] = as_elem(urand(rng), dbl); /* B(p,j) = B[p + j*kp] */
    for (size_t x = 0; x < nc; x++) c0[x] = as_elem(urand(rng), dbl);
#define PUT(buf, x, v) (dbl ? (void)(((double *)(buf))[x] = (v)) : (void)(((float *)(buf))[x] = (float)(v)))
    for (int i = 0; i < mp; i++)
        for (int q = 0; q < kp; q++)
            PUT(ap, (size_t)(i / p.mwg) * kp * p.mwg + (size_t)q * p.mwg + i % p.mwg, A[i + (size_t)q * mp]);
    for (int j = 0; j < np; j++)
        for (int q = 0; q < kp; q++)
            PUT(bp, (size_t)(j / p.nwg) * kp * p.nwg + (size_t)q * p.nwg + j % p.nwg, B[q + (size_t)j * kp]);
    cl_mem dap = tc_buffer_from_host(env->ctx, ap, es * na);
    cl_mem dbp = tc_buffer_from_host(env->ctx, bp, es * nb);
    cl_mem dcp = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, es * nc, NULL, &err);
    int ok = dap && dbp && err == CL_SUCCESS;
    /* per product: FP64 none; TF32 2^-10 (+ 2^-21); 3xTF32 ~3 x 2^-22 (2^-19 with margin);
     * plus k roundings of the accumulation in the element type */
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    const double per_product = tf32 == 1 ? ldexp(1.05, -10) : tf32 == 3 ? ldexp(1.0, -19) : 0.0;
    double worst = 0;
    for (int accumulate = 0; ok && accumulate < 2; accumulate++) {
        for (size_t x = 0; x < nc; x++) PUT(init, x, accumulate ? c0[x] : NAN);
        err = clEnqueueWriteBuffer(env->queue, dcp, CL_TRUE, 0, es * nc, init, 0, NULL, NULL);
        const cl_ulong zero = 0;
        const int ldcp = mp;
        err |= clSetKernelArg(k, 0, sizeof(int), &kp);
        err |= clSetKernelArg(k, 1, sizeof(int), &ldcp);
        err |= clSetKernelArg(k, 2, sizeof(cl_mem), &dap);
        err |= clSetKernelArg(k, 3, sizeof(cl_ulong), &zero);
        err |= clSetKernelArg(k, 4, sizeof(cl_mem), &dbp);
        err |= clSetKernelArg(k, 5, sizeof(cl_ulong), &zero);
        err |= clSetKernelArg(k, 6, sizeof(cl_mem), &dcp);
        err |= clSetKernelArg(k, 7, sizeof(int), &accumulate);
        err |= clSetKernelArg(k, 8, sizeof(int), &kp); /* the panels' k extent */
        err |= clSetKernelArg(k, 9, sizeof(int), &kp);
        const size_t g[2] = {(size_t)(mp / p.mwg) * p.mdimc, (size_t)(np / p.nwg) * p.ndimc};
        const size_t l[2] = {(size_t)p.mdimc, (size_t)p.ndimc};
        if (err == CL_SUCCESS) err = clEnqueueNDRangeKernel(env->queue, k, 2, NULL, g, l, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(env->queue, dcp, CL_TRUE, 0, es * nc, gotr, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            printf("  %-9s %s: OpenCL error %d\n", name, geo, (int)err);
            ok = 0;
            break;
        }
        for (size_t x = 0; x < nc; x++) got[x] = dbl ? ((double *)gotr)[x] : ((float *)gotr)[x];
        size_t bad = 0, first = 0;
        for (int j = 0; j < np; j++)
            for (int i = 0; i < mp; i++) {
                double s = accumulate ? c0[i + (size_t)j * mp] : 0.0, mag = fabs(s);
                for (int q = 0; q < kp; q++) {
                    const double t = A[i + (size_t)q * mp] * B[q + (size_t)j * kp];
                    s += t;
                    mag += fabs(t);
                }
                const size_t x = i + (size_t)j * mp;
                const double e = fabs(got[x] - s);
                const double tol = (per_product + 2.0 * kp * eps) * mag + 1e-300;
                if (!(e <= tol) && !bad++) first = x;
                if (e / (mag > 0 ? mag : 1) > worst) worst = e / (mag > 0 ? mag : 1);
            }
        if (bad) {
            printf("  %-9s %s: accumulate=%d: %zu of %zu elements wrong, first (%zu, %zu)\n",
                   name, geo, accumulate, bad, nc, first % mp, first / mp);
            ok = 0;
        }
    }
    if (ok && tf32 == 1 && !(worst > ldexp(1.0, -16))) {
        printf("  %-9s %s: worst error %.2g of sum|ab| is FP32-sized: not computed in TF32\n",
               name, geo, worst);
        ok = 0;
    }
    if (ok)
        printf("  %-9s %s: correct (%d x %d x %d, %d x %d work-groups, worst error %.2g of sum|ab|)\n",
               name, geo, mp, np, kp, mp / p.mwg, np / p.nwg, worst);
    *worst_out = worst;
    if (dap) clReleaseMemObject(dap);
    if (dbp) clReleaseMemObject(dbp);
    if (dcp) clReleaseMemObject(dcp);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    free(A);
    free(B);
    free(ap);
    free(bp);
    free(init);
    free(gotr);
    free(c0);
    free(got);
    return ok;
}

int main(void)
{
    tc_env_t env;
    int rc = tc_open(&env);
    if (rc) return rc;
    const chg_device_t *dev = NULL;
    cl_context ctx = NULL;
    if (chg_queue_device(env.queue, &dev, &ctx) != CLHGEMM_SUCCESS || !dev) {
        fprintf(stderr, "FAIL: chg_queue_device\n");
        return 1;
    }
    if (!(dev->features & CHG_FEAT_NV_MMA_F64)) {
        printf("SKIP: %s has no FP64 tensor cores reachable from OpenCL (features: %s)\n",
               env.info.name, env.info.features);
        tc_close(&env);
        return TC_SKIP;
    }
    printf("device: %s (%s)\n", env.info.name, env.info.features);
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x3A4AULL);
    int wrong = 0, built = 0;
    double worst;
    for (int mma = 1; mma <= 4; mma++) {
        int shape_ok = 0, shape_built = 0;
        for (size_t gi = 0; gi < sizeof geometries / sizeof geometries[0]; gi++) {
            const int r = run_one(&env, dev, mma, 0, geometries[gi], &rng, &worst);
            if (r == 0) wrong++;
            if (r >= 0) shape_built++;
            if (r == 1) shape_ok++;
        }
        printf("%s: %s\n", shape_names[mma],
               !shape_built ? "not available on this driver (the FMA kernel is used instead)"
               : shape_ok == shape_built ? "fragment mapping proven" : "WRONG RESULTS");
        built += shape_built > 0;
    }
    /* FP32 through TF32 (the CLHGEMM_SGEMM_MATH opt-in): both modes must build here (sm_80+
     * PTX), be within their tolerance, and 3xTF32 must be at least 16x closer than TF32. */
    for (size_t gi = 0; gi < sizeof tf32_geometries / sizeof tf32_geometries[0]; gi++) {
        double w1 = 0, w3 = 0;
        const int r1 = run_one(&env, dev, 3, 1, tf32_geometries[gi], &rng, &w1);
        const int r3 = run_one(&env, dev, 3, 3, tf32_geometries[gi], &rng, &w3);
        if (r1 != 1 || r3 != 1) wrong++;
        else if (!(w3 * 16 < w1)) {
            printf("  3xtf32 worst error %.2g is not 16x below tf32's %.2g\n", w3, w1);
            wrong++;
        } else
            printf("tf32 / 3xtf32 on %s: worst error %.2g / %.2g of sum|ab|\n", tf32_geometries[gi], w1, w3);
    }
    tc_close(&env);
    if (!built) fprintf(stderr, "FAIL: no mma shape builds on a device that reports NV_MMA_F64\n");
    printf("%d shapes available, %d wrong runs\n", built, wrong);
    return wrong || !built ? 1 : 0;
}
