/*
 * bench_host.c -- clhgemm-bench-host: GEMM on matrices in ordinary (pageable, malloc) host
 * memory through the host pipeline (clhgemm_{s,d}gemm on a handle), against what the same
 * device does with the data already on it and against the alternatives, all in the same run.
 *
 * Per size n (square, column-major NN by default; alpha 1, beta 0.5, inputs uniform in [-1, 1]):
 *   ours        clhgemm_{s,d}gemm on one handle created once (CLHGEMM_DEVICES and the other
 *               CLHGEMM_* variables honoured), median wall time of --reps calls after --warmup
 *   device-only clhgemm_{s,d}gemm_cl on n x n buffers already on the handle's first device
 *               (median of enqueue -> event wait), when 3 n^2 s fits in 85% of its memory
 *   efficiency  ours / device-only: how much of the device rate the pipeline keeps
 *   naive       blocking write of A, B, C from the pageable arrays, the device GEMM, blocking
 *               read of C: the copy-compute-copy a user would write, end to end
 *   cublasXt    NVIDIA's host-memory GEMM on the same pageable arrays (--xt-devices, default 1;
 *               default block, plus --xt-block B when given), when built with CUDA and a CUDA
 *               device is present
 * The device-only and naive phases run first and free their buffers, and the device API's
 * cached workspaces (clhgemm_release_resources), before ours runs (the handle keeps its own
 * device buffers between calls; the warm-up absorbs the program-cache reload). Ours is checked once per size: against
 * the device-only result element-wise (max|diff| / max|ref| / (k eps), WARN above 1) and with
 * BLIS's cheap check C t = beta C0 t + alpha A (B t) for a random vector t (per-row error over
 * its bound / (k eps)). The device comparison needs one more n x n host array; the cheap check
 * only vectors, so --oversize (a problem larger than the device: A, B and C together exceed its
 * memory) still gets checked. Big matrices are filled by all cores (a counter-based generator,
 * so the result does not depend on the thread count). A size whose arrays do not fit in the
 * available host memory is skipped with a message. The summary table is printed last; --csv
 * appends one row per size and precision as they finish. Exit status 1 if any check warned or
 * ours failed.
 *
 * --cpu-share runs the CPU-share comparison instead (docs/ARCHITECTURE.md, "CPU share"), per
 * size and precision, in the same run on the same arrays, one handle at a time:
 *   gpu-only      the handle with the CPU share off
 *   auto-slab     CPU share auto (the tuning entry's split model when it has one, else the
 *                 run-time rates), slab scheduler
 *   auto-strips   the same with CLHGEMM_CPU_SCHED=strips
 *   F-slab, F-strips  a forced fraction F (--cpu-fraction F; with strips F only switches the
 *                 share on: the strips size themselves)
 *   cpu-only      OpenBLAS alone (all its threads) on a slab of --cpu-slab rows (default 512) of
 *                 the same problem, column-major NN: the full n=32768 product would take minutes
 * with the share chosen (the call's cpu_fraction), the model's predicted time (call info) next to
 * the measured, each hybrid's result checked once (BLIS's cheap check against the same C0), and a
 * CSV line per case (--cpu-csv FILE).
 *
 * --sweep runs the size sweep instead (is a call of any size dearer than OpenBLAS?): n = 64 ...
 * 16384 (--sizes, times --scale, at most --max-n), each precision, beta 0 and 0.5, pageable arrays;
 * per case OpenBLAS alone (one call on C0 is the reference, then its rate), the device-only rate
 * (clhgemm_?gemm_cl on buffers already on the device, kernels enqueued back to back), ours on the
 * handle as the environment makes it (auto routing unless CLHGEMM_ROUTE says otherwise) and ours
 * on a second handle created with CLHGEMM_ROUTE=device, each way's first call on C0 checked
 * against OpenBLAS's element-wise (max|diff| / max|ref| / (max(k, 16) eps), FAILED above 1), then
 * --warmup calls and --reps samples of >= 20 ms each (small n: many calls, per-call time). The
 * host bound is flops / max(device-only time, (A + B + (beta != 0) C) bytes / the pinned
 * host->device rate measured at the start (a mapped CL_MEM_ALLOC_HOST_PTR buffer of 256 MiB,
 * times --scale when below 1, written to the device, best of 3)); C's way back overlaps on the
 * other direction. The route a call took comes from clhgemm_last_call_info. A header line, a
 * table line per case, --csv FILE (rewritten), --png FILE (gnuplot, when installed) and a last
 * line "worst: ..." (the smallest ours / max(OpenBLAS, device route), and for n <= 256 the
 * largest time ours / OpenBLAS). Exit status 1 if a check failed or a call failed.
 *
 * The program is cut by step, each file with its own comment: bench_host_opts.c (the command
 * line), bench_host_problem.c (the arrays' fill and the cheap check), bench_host_size.c (the
 * default mode's loop over sizes), bench_host_run.c (the competitors), bench_host_output.c
 * (summary, CSV), bench_host_cpushare.c (--cpu-share), bench_host_sweep.c (--sweep);
 * bench_host_priv.h is what they share, host_common.c what the sweep shares with the rest. This
 * file is main: it reads the options and picks the mode.
 */
#include <stdio.h>

#include "bench_host_priv.h"
#include "bench_host_sweep.h"

int main(int argc, char **argv)
{
    opts_t o;
    if (bh_parse_args(argc, argv, &o)) {
        bh_usage(stderr);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (o.sweep) return run_sweep(&o);
    if (o.cpu_share) return bh_run_cpushare(&o);
    return bh_run_sizes(&o);
}
