#!/usr/bin/env python3
"""lapack_numpy.py -- numpy.linalg on whatever liblapack.so.3 the process loads (the LAPACK
drop-in's benchmark).

Run it once per library in one session (bench/gpu_record.sh stage `lapacknumpy` runs it on
OpenBLAS's own LAPACK, on clhgemm's liblapack.so.3 beside OpenBLAS's libblas.so.3, and on both of
clhgemm's drop-ins) and compare. For each n of --sizes, in float64:

  solve      np.linalg.solve(A, B), B n x n/8             dgesv: 2n^3/3 + 2n^2 (n/8) flops
  cholesky   np.linalg.cholesky(S)                        dpotrf: n^3/3
  qr         np.linalg.qr(A) (reduced: Q and R)           dgeqrf + dorgqr: 4n^3/3 + 4n^3/3
  inv        np.linalg.inv(A)                             dgesv on the identity: 2n^3/3 + 2n^3
  det        np.linalg.det(P U)                           dgetrf: 2n^3/3

Each is timed whole, numpy's own copies included (clhgemm-bench-lapack-dropin times the LAPACK
call alone): the median of at least --reps calls, or fewer once --budget seconds have passed
(at least one), after a warm-up of every routine at the smallest size (kernel builds, pinned
buffers). Prints one line per case, `routine n seconds GFLOP/s`, after a line naming the
liblapack.so.3 and libblas.so.3 the process mapped. Every result is checked at O(n^2) cost (a
few columns, rows or entries of the residual, so that n = 32768 is checked too); a wrong one is
marked WRONG and makes the exit status 1.

The matrices: A uniform in [-1, 1] plus n on the diagonal (nonsingular, pivoting still searched),
S the same made symmetric (positive definite by Gershgorin: no n^3 product to make it), P U a
row permutation of an upper triangular U with diagonal in +-[0.9, 1.1] (its determinant known:
the sign of P times the product of the diagonal, which LU with partial pivoting recovers).
At n = 32768 a matrix is 8 GiB and a case holds up to five: about 45 GiB of host memory.
"""
import argparse
import time

import numpy as np


def mapped():
    with open("/proc/self/maps") as f:
        return sorted({l.split()[-1] for l in f if "liblapack.so" in l or "libblas.so" in l or "libopenblas" in l})


def median_time(fn, reps, budget):
    """Median and count of at least one and at most `reps` timed calls, stopping once `budget`
    seconds have passed."""
    times = []
    t_all = time.perf_counter()
    while len(times) < reps:
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - t_all > budget:
            break
    times.sort()
    return times[len(times) // 2], len(times), out


def sample_idx(rng, n, k=8):
    return np.unique(np.concatenate(([0, n - 1], rng.integers(0, n, k))))


def rel_ok(err, scale, n):
    return bool(np.isfinite(err) and err <= 64.0 * n * np.finfo(np.float64).eps * max(scale, 1e-300))


def make(rng, n, kind):
    if kind == "general":
        a = rng.uniform(-1, 1, (n, n))
        a[np.diag_indices(n)] += n
        return a
    if kind == "spd":
        a = rng.uniform(-1, 1, (n, n))
        a = np.triu(a) + np.triu(a, 1).T
        a[np.diag_indices(n)] = n
        return a
    # P U with a known determinant
    d = rng.uniform(0.9, 1.1, n) * np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)
    u = np.triu(rng.uniform(-0.1, 0.1, (n, n)), 1)
    u[np.diag_indices(n)] = d
    perm = rng.permutation(n)
    # sign of the permutation: (-1)^(n - number of cycles)
    seen, cycles = np.zeros(n, bool), 0
    for i in range(n):
        if not seen[i]:
            cycles += 1
            j = i
            while not seen[j]:
                seen[j] = True
                j = perm[j]
    logdet = float(np.sum(np.log(np.abs(d))))
    sign = (-1.0) ** (n - cycles) * float(np.prod(np.sign(d)))
    return u[perm], logdet, sign


def case(name, n, rng, reps, budget):
    """(seconds, calls, flops, ok) of one routine at one size."""
    if name == "solve":
        a, b = make(rng, n, "general"), rng.uniform(-1, 1, (n, max(1, n // 8)))
        t, k, x = median_time(lambda: np.linalg.solve(a, b), reps, budget)
        cols = sample_idx(rng, b.shape[1], 4)
        err = np.abs(a @ x[:, cols] - b[:, cols]).max()
        ok = rel_ok(err, np.abs(a).sum(axis=1).max() * np.abs(x[:, cols]).max(), n)
        return t, k, 2 * n**3 / 3 + 2 * n * n * b.shape[1], ok
    if name == "cholesky":
        s = make(rng, n, "spd")
        t, k, low = median_time(lambda: np.linalg.cholesky(s), reps, budget)
        rows = sample_idx(rng, n)
        err = np.abs(low[rows] @ low.T - s[rows]).max()
        return t, k, n**3 / 3, rel_ok(err, np.abs(s).max() * 2, n)
    if name == "qr":
        a = make(rng, n, "general")
        t, k, (q, r) = median_time(lambda: np.linalg.qr(a), reps, budget)
        cols = sample_idx(rng, n)
        err = np.abs(q @ r[:, cols] - a[:, cols]).max() + np.abs(q.T @ q[:, cols] - np.eye(n)[:, cols]).max()
        return t, k, 8 * n**3 / 3, rel_ok(err, np.abs(a).max() * 2, n)
    if name == "inv":
        a = make(rng, n, "general")
        t, k, x = median_time(lambda: np.linalg.inv(a), reps, budget)
        cols = sample_idx(rng, n)
        err = np.abs(a @ x[:, cols] - np.eye(n)[:, cols]).max()
        return t, k, 2 * n**3 / 3 + 2 * n**3, rel_ok(err, np.abs(a).sum(axis=1).max() * np.abs(x[:, cols]).max(), n)
    pu, logdet, sign = make(rng, n, "det")
    t, k, det = median_time(lambda: np.linalg.det(pu), reps, budget)
    if det == 0 or not np.isfinite(det):
        return t, k, 2 * n**3 / 3, False
    ok = np.sign(det) == sign and abs(np.log(abs(det)) - logdet) <= 1e-10 * n
    return t, k, 2 * n**3 / 3, bool(ok)


ROUTINES = ("solve", "cholesky", "qr", "inv", "det")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1024,2048,4096,8192,16384,32768")
    ap.add_argument("--routines", default=",".join(ROUTINES))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--budget", type=float, default=20.0, help="seconds of repetitions per case")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    routines = [r for r in args.routines.split(",") if r]
    for r in routines:
        if r not in ROUTINES:
            ap.error("unknown routine %s (%s)" % (r, ",".join(ROUTINES)))
    print("label %s; mapped: %s" % (args.label, ", ".join(mapped())), flush=True)
    rng = np.random.default_rng(11)
    for r in routines:  # warm-up: kernel builds, pinned buffers, the handle
        case(r, min(sizes), rng, 1, 0.0)
    ok = True
    for n in sizes:
        for r in routines:
            t, k, flops, good = case(r, n, rng, args.reps, args.budget)
            ok &= good
            print("%s %d %.4f s %.1f GFLOP/s (%d calls)%s" % (r, n, t, flops / t * 1e-9, k,
                                                              "" if good else " WRONG"), flush=True)
    print("checks: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
