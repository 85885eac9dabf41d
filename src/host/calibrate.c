/*
 * calibrate.c -- the pipeline's measurements of bus, pack threads and kernel (calibrate.h).
 */
#include <stdlib.h>
#include <string.h>

#include "host/calibrate.h"
#include "tuning/tuning.h"

/* Pinned bandwidth each way, from a few 16 MiB copies (the planner's BW). */
cl_int chg_measure_bus(chg_handle_dev_t *d)
{
    const size_t bytes = (d->dev.features & CHG_FEAT_GPU) ? (64u << 20) : (16u << 20);
    chg_pinned_t p;
    cl_int err = chg_pinned_alloc(d->ctx, d->q[Q_H2D], bytes, &p);
    if (err != CL_SUCCESS) return err;
    memset(p.ptr, 1, bytes);
    cl_mem m = chg_dev_alloc(d->ctx, bytes, &err);
    if (err != CL_SUCCESS) {
        chg_pinned_free(d->q[Q_H2D], &p);
        return err;
    }
    double best_h = 0, best_d = 0;
    for (int r = 0; r < 3 && err == CL_SUCCESS; r++) {
        unsigned long long t0 = chg_now_ns();
        err = clEnqueueWriteBuffer(d->q[Q_H2D], m, CL_TRUE, 0, bytes, p.ptr, 0, NULL, NULL);
        double th = chg_seconds_since(t0);
        if (err != CL_SUCCESS) break;
        t0 = chg_now_ns();
        err = clEnqueueReadBuffer(d->q[Q_D2H], m, CL_TRUE, 0, bytes, p.ptr, 0, NULL, NULL);
        double td = chg_seconds_since(t0);
        if (r > 0) {  /* the first round pays for page mapping */
            best_h = CHG_MAX(best_h, bytes / th);
            best_d = CHG_MAX(best_d, bytes / td);
        }
    }
    /* Device memory traffic (the planner's cost of pack kernels and of Cp accumulation). */
    double best_c = 0;
    cl_int err2 = CL_SUCCESS;
    cl_mem m2 = err == CL_SUCCESS ? chg_dev_alloc(d->ctx, bytes, &err2) : NULL;
    for (int r = 0; r < 3 && err == CL_SUCCESS && err2 == CL_SUCCESS; r++) {
        unsigned long long t0 = chg_now_ns();
        cl_event ev;
        err2 = clEnqueueCopyBuffer(d->q[Q_KERNEL], m, m2, 0, 0, bytes, 0, NULL, &ev);
        if (err2 != CL_SUCCESS) break;
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
        const double t = chg_seconds_since(t0);
        if (r > 0) best_c = CHG_MAX(best_c, 2.0 * bytes / t);
    }
    if (m2) clReleaseMemObject(m2);
    clReleaseMemObject(m);
    chg_pinned_free(d->q[Q_H2D], &p);
    d->h2d_bps = best_h > 0 ? best_h : 1e9;
    d->d2h_bps = best_d > 0 ? best_d : 1e9;
    d->dev_bps = best_c > 0 ? best_c : 20.0 * d->h2d_bps;
    return err;
}

/* The pack threads' copy rate from pageable memory into pinned staging (the planner's pack
 * rate), from large copies after a warm-up round (small ones measured mostly the threads'
 * wake-up, and varied by 2x between handles on the H100 machine). */
void chg_measure_pack(clhgemm_handle_t h)
{
    const int gpu = h->ndev > 0 && (h->devs[0].dev.features & CHG_FEAT_GPU);
    const size_t bytes = gpu ? (256u << 20) : (32u << 20);
    h->pack_bps = 10e9;
    char *src = malloc(bytes);
    chg_pinned_t pin = {0};
    char *dst = NULL, *own = NULL;
    if (h->ndev > 0 && chg_pinned_alloc(h->devs[0].ctx, h->devs[0].q[Q_H2D], bytes, &pin) == CL_SUCCESS)
        dst = pin.ptr;
    else
        dst = own = malloc(bytes);
    if (src && dst) {
        memset(src, 3, bytes);
        memset(dst, 0, bytes);
        double best = 0;
        for (int r = 0; r < 4; r++) {
            unsigned long long t0 = chg_now_ns();
            chg_copy2d(h->pool, 0, dst, 4096, src, 4096, 4096, bytes / 4096, 1, NULL, NULL);
            const double t = chg_seconds_since(t0);
            if (r > 0) best = CHG_MAX(best, bytes / t);
        }
        if (best > 0) h->pack_bps = best;
    }
    free(src);
    free(own);
    if (pin.buf) chg_pinned_free(h->devs[0].q[Q_H2D], &pin);
}

void chg_measure_rate(chg_handle_dev_t *d, chg_precision_t prec)
{
    if (d->rate[prec] > 0) return;
    /* CLHGEMM_KERNEL_RATE (GFLOP/s, for experiments): the planner's kernel rate, every device */
    const char *forced = chg_getenv("CLHGEMM_KERNEL_RATE");
    double gflops = 0;
    if (forced && chg_parse_double(forced, &gflops) && gflops > 0 && gflops <= 1e9) {
        d->rate[prec] = gflops * 1e9;
        chg_log(1, "device %d: kernel rate %.1f GFLOP/s from CLHGEMM_KERNEL_RATE", d->index, gflops);
        return;
    }
    if (forced)
        chg_env_warn("CLHGEMM_KERNEL_RATE", forced, "is not a number of GFLOP/s in (0, 1e9]; using the "
                                                    "tuning entry's or a measured rate");
    /* The tuning entry's kernel-rate table (clhgemm-tune measured the kernel on several tile
     * shapes) gives the rate of a typical pipeline tile without a measurement here. (On the
     * H100 the kernels inside a host-resident DGEMM at n = 32768 ran at 48-49 TFLOP/s against
     * the 53.2 of this entry; the table's 16384 x 16384 x 4096 entry, 49.3, measured no better
     * there and made n = 16384 plan k slices of 384: 27.5 against 32.1 TFLOP/s.) */
    chg_tuning_entry_t te;
    chg_tuned_entry(&d->dev, prec, &te);
    const double tabled = te.level != CHG_TUNING_BUILTIN ? chg_tuning_kernel_rate(&te.prec, 8192, 8192, 2048) : 0;
    if (tabled > 0) {
        d->rate[prec] = tabled;
        chg_log(1, "device %d: kernel rate %.1f GFLOP/s (%s) from the tuning entry %s", d->index,
                tabled * 1e-9, prec == CHG_F64 ? "d" : "s", te.key);
        return;
    }
    const size_t n = (d->dev.features & CHG_FEAT_GPU) ? 4096 : 256, es = chg_elem_size(prec);
    cl_int err;
    d->rate[prec] = (d->dev.features & CHG_FEAT_GPU) ? 10e12 : 50e9; /* fallback guess */
    cl_mem m = chg_dev_alloc(d->ctx, 3 * n * n * es, &err);
    if (err != CL_SUCCESS) return;
    /* Contents do not matter for timing as long as they are not NaN-generating garbage:
     * zero-fill would be faster than real data on some hardware, so fill with ones. */
    if (prec == CHG_F64) {
        const double one = 1.0;
        err = clEnqueueFillBuffer(d->q[Q_KERNEL], m, &one, sizeof one, 0, 3 * n * n * es, 0, NULL, NULL);
    } else {
        const float one = 1.0f;
        err = clEnqueueFillBuffer(d->q[Q_KERNEL], m, &one, sizeof one, 0, 3 * n * n * es, 0, NULL, NULL);
    }
    chg_gemm_args_t a = {.prec = prec, .m = n, .n = n, .k = n, .alpha = 1.0, .beta = 0.0,
                         .a = m, .b = m, .c = m, .off_a = 0, .off_b = n * n, .off_c = 2 * n * n,
                         .lda = n, .ldb = n, .ldc = n};
    double best = 0;
    for (int r = 0; r < 3 && err == CL_SUCCESS; r++) {
        clFinish(d->q[Q_KERNEL]);
        unsigned long long t0 = chg_now_ns();
        cl_event ev;
        if (chg_gemm_enqueue(&a, d->q[Q_KERNEL], 0, NULL, &ev) != CLHGEMM_SUCCESS) break;
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
        double t = chg_seconds_since(t0);
        if (r > 0) best = CHG_MAX(best, 2.0 * n * n * n / t);
    }
    clFinish(d->q[Q_KERNEL]);
    clReleaseMemObject(m);
    if (best > 0) d->rate[prec] = best;
}
