#!/usr/bin/env python3
"""blas_numpy.py -- numpy on whatever libblas.so.3 the process loads (the drop-in's benchmark).

Run it twice in one session, once with clhgemm's drop-in first in LD_LIBRARY_PATH and once with
OpenBLAS's libblas.so.3 (bench/gpu_record.sh stage `blasnumpy` does both), and compare:

  a @ b              n = --sizes, each of --dtypes (float64, float32, complex128, complex64: numpy
                     -> dgemm, sgemm, zgemm, cgemm), median of the repetitions (GFLOP/s, 2n^3
                     flops, complex 8n^3): at least --reps calls and --min-time seconds of them
  small products     10,000 products of 32 x 32 (numpy -> cblas_dgemm each): seconds
  cholesky / solve   np.linalg.cholesky and np.linalg.solve (LAPACK's blocked dpotrf, dgetrf:
                     many level-3 calls of every size through the library): seconds

Prints one line per measure, `name value unit`, after a line naming the libblas.so.3 the process
mapped; every product is checked against a float64 (complex: complex128) product of a random
slice (the tolerance scales with k).
"""
import argparse
import time

import numpy as np


def mapped_blas():
    with open("/proc/self/maps") as f:
        return sorted({l.split()[-1] for l in f if "libblas.so" in l or "libopenblas" in l})


def median_time(fn, reps, budget, min_time=0.0):
    """Median, min and max of at least `reps` timed calls (and of as many as fill `min_time`
    seconds), after one warm-up; stops early, with at least 2, once `budget` seconds have passed.

    min_time keeps a small product's figure from resting on its first few calls: the first
    OpenBLAS call after its worker threads have slept (more than ~0.1 s without an OpenBLAS
    call, as while larger sizes ran on the GPU) took 0.2-17 ms on the H100 machine's host, and
    at times the next few 5-9 ms each, for either library, against ~0.1 ms for SGEMM n = 256
    once they are awake (docs/PERFORMANCE.md, Known limits)."""
    fn()  # warm-up (builds, pinned buffers, OpenBLAS threads)
    times = []
    t_all = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        spent = time.perf_counter() - t_all
        if len(times) >= 2 and spent > budget:
            break
        if len(times) >= reps and spent >= min_time:
            break
    times.sort()
    return times[len(times) // 2], times[0], times[-1], len(times)


def check_rows(c, a, b, dtype, rows=8):
    wide = np.complex128 if np.issubdtype(dtype, np.complexfloating) else np.float64
    idx = np.linspace(0, a.shape[0] - 1, num=min(rows, a.shape[0])).astype(int)
    want = a[idx].astype(wide) @ b.astype(wide)
    bound = np.abs(a[idx]).astype(np.float64) @ np.abs(b).astype(np.float64)
    err = np.abs(c[idx].astype(wide) - want)
    tol = 4.0 * max(a.shape[1], 16) * np.finfo(dtype).eps * bound + 1e-300
    return bool((err <= tol).all())


def random_matrix(rng, n, dtype):
    """n x n of dtype, entries (and complex: real and imaginary parts) uniform in [-1, 1]."""
    x = rng.uniform(-1, 1, (n, n))
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.uniform(-1, 1, (n, n))
    return x.astype(dtype)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="256,512,1024,2048,4096,8192,16384")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--budget", type=float, default=20.0, help="seconds of repetitions per case")
    ap.add_argument("--min-time", type=float, default=0.2,
                    help="a product is repeated until this many seconds are sampled (and --reps calls)")
    ap.add_argument("--dtypes", default="float64,float32,complex128,complex64")
    ap.add_argument("--label", default="")
    ap.add_argument("--factor-n", type=int, default=4096)
    args = ap.parse_args()
    print("label %s; libblas mapped: %s" % (args.label, ", ".join(mapped_blas())))
    rng = np.random.default_rng(7)
    ok = True
    for dtype in [np.dtype(d).type for d in args.dtypes.split(",")]:
        cplx = np.issubdtype(dtype, np.complexfloating)
        for n in [int(s) for s in args.sizes.split(",")]:
            a = random_matrix(rng, n, dtype)
            b = random_matrix(rng, n, dtype)
            c = a @ b
            good = check_rows(c, a, b, dtype)
            ok &= good
            med, lo, hi, count = median_time(lambda: a @ b, args.reps, args.budget, args.min_time)
            flops = (8.0 if cplx else 2.0) * n**3
            print("matmul %s %d %.1f GFLOP/s (min %.4f s, max %.4f s, %d calls)%s" % (
                np.dtype(dtype).name, n, flops / med * 1e-9, lo, hi, count, "" if good else " WRONG"),
                flush=True)
            del a, b, c
    x = rng.uniform(-1, 1, (32, 32))
    y = rng.uniform(-1, 1, (32, 32))
    t0 = time.perf_counter()
    for _ in range(10000):
        x @ y
    print("small 10000x 32^3 float64 %.4f s" % (time.perf_counter() - t0), flush=True)
    n = args.factor_n
    m = rng.uniform(-1, 1, (n, n))
    spd = m @ m.T + n * np.eye(n)
    med = median_time(lambda: np.linalg.cholesky(spd), 3, args.budget)[0]
    l = np.linalg.cholesky(spd)
    ok &= bool(np.abs(l @ l.T - spd).max() <= 1e-9 * np.abs(spd).max())
    print("cholesky float64 %d %.4f s" % (n, med), flush=True)
    rhs = rng.uniform(-1, 1, (n, 256))
    med = median_time(lambda: np.linalg.solve(m, rhs), 3, args.budget)[0]
    xs = np.linalg.solve(m, rhs)
    ok &= bool(np.abs(m @ xs - rhs).max() <= 1e-6 * max(1.0, np.abs(rhs).max()))
    print("solve float64 %d x 256 %.4f s" % (n, med), flush=True)
    print("checks: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
