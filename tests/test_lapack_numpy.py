#!/usr/bin/env python3
"""test_lapack_numpy.py -- numpy as a real client of clhgemm's liblapack.so.3, the LAPACK drop-in
(alone, or beside the BLAS drop-in libblas.so.3).

Run with LD_LIBRARY_PATH naming the drop-ins' folders, so that numpy's liblapack.so.3 (and
libblas.so.3 when CHG_EXPECT_BLAS_DIR is set) are ours; checks that the process really loaded
them (/proc/self/maps). Then, in both precisions and at several sizes, numpy.linalg's solve
(nrhs = n/8: dgesv), cholesky (dpotrf), qr (reduced: dgeqrf, dorgqr), inv (dgesv on the
identity) and det (dgetrf) are checked by their residuals, computed without BLAS or LAPACK
(broadcast multiply-and-sum in float64): A X - B, L L^T - P, Q R - A and Q^T Q - I, A X - I; det
against the product of the pivots of a matrix built as L U with known U. SciPy's scipy.linalg
too where it is installed (required under CLHGEMM_LAPACK_CLIENTS=require): lu_factor and
lu_solve in both transposes (getrf, getrs), cho_factor and cho_solve with either triangle (potrf,
potrs), qr (geqrf, orgqr) and solve, in both precisions (SciPy keeps single precision) -- SciPy's
_flapack names only liblapack.so.3 and takes the BLAS from what it brings, as the reference
liblapack.so.3 brings libblas.so.3. With the BLAS drop-in also a product a @ b, so that its
stats line has a call to show. The tolerances scale with n
and the precision's epsilon. CLHGEMM_LAPACK_STATS=1 (set by the test) makes the drop-in report
at exit how many calls went to the devices; tests/run_dropin_client.sh checks that line. Exit 77
when numpy is missing.
"""
import os
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: no numpy")
    sys.exit(77)


def loaded(name, want):
    """(the mapped paths of lib<name>.so.3, whether one of them is in the folder want)."""
    with open("/proc/self/maps") as f:
        maps = f.read()
    libs = sorted({line.split()[-1] for line in maps.splitlines() if "/lib%s.so" % name in line})
    ok = bool(want) and any(os.path.realpath(p).startswith(os.path.realpath(want) + "/") for p in libs)
    return libs, ok


def mul(a, b):
    """float64 product without BLAS: broadcast, multiply, sum (in blocks of rows)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    out = np.empty((a.shape[0], b.shape[1]))
    step = max(1, 4_000_000 // max(1, a.shape[1] * b.shape[1]))
    for i in range(0, a.shape[0], step):
        out[i:i + step] = (a[i:i + step, :, None] * b[None, :, :]).sum(axis=1)
    return out


class Checks:
    def __init__(self):
        self.failed = 0

    def rel(self, name, dtype, err, scale, n, factor=8.0):
        """err / scale against factor * n * eps (a backward-error bound)."""
        eps = float(np.finfo(dtype).eps)
        ratio = float(err) / (max(float(scale), 1e-300) * factor * max(n, 4) * eps)
        ok = np.isfinite(ratio) and ratio <= 1.0
        self.failed += 0 if ok else 1
        print("%-4s %-36s %-7s err/tol %.3g" % ("ok" if ok else "FAIL", name, np.dtype(dtype).name, ratio))


def norm1(x):
    return float(np.abs(np.asarray(x, dtype=np.float64)).sum(axis=0).max())


def check_size(c, rng, n, dtype):
    nrhs = max(1, n // 8)
    a = (rng.uniform(-1, 1, (n, n)) + n * np.eye(n)).astype(dtype)  # well conditioned
    b = rng.uniform(-1, 1, (n, nrhs)).astype(dtype)
    x = np.linalg.solve(a, b)
    c.rel("solve n=%d nrhs=%d" % (n, nrhs), dtype, norm1(mul(a, x) - b), norm1(a) * norm1(x) + norm1(b), n)

    g = rng.uniform(-1, 1, (n, n)).astype(dtype)
    p = (mul(g.T, g) + n * np.eye(n)).astype(dtype)  # symmetric positive definite
    low = np.linalg.cholesky(p)
    c.rel("cholesky n=%d" % n, dtype, norm1(mul(low, low.T) - p) + norm1(np.triu(low, 1)), norm1(p), n)

    m = n + n // 3  # tall
    t = rng.uniform(-1, 1, (m, n)).astype(dtype)
    q, r = np.linalg.qr(t)
    c.rel("qr %dx%d: Q R - A" % (m, n), dtype, norm1(mul(q, r) - t) + norm1(np.tril(r, -1)), norm1(t), m)
    c.rel("qr %dx%d: Q^T Q - I" % (m, n), dtype, norm1(mul(q.T, q) - np.eye(n)), 1.0, m)

    xi = np.linalg.inv(a)
    c.rel("inv n=%d" % n, dtype, norm1(mul(a, xi) - np.eye(n)), norm1(a) * norm1(xi), n)

    # det of L U: L unit lower (entries small), U upper with a known diagonal near 1
    low = np.tril(rng.uniform(-0.1, 0.1, (n, n)), -1) + np.eye(n)
    d = rng.uniform(0.9, 1.1, n) * np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)
    up = np.triu(rng.uniform(-0.1, 0.1, (n, n)), 1) + np.diag(d)
    lu = mul(low, up).astype(dtype)
    want = float(np.prod(d.astype(np.float64)))
    got = float(np.linalg.det(lu))
    c.rel("det n=%d" % n, dtype, abs(got - want), abs(want), n, factor=64.0)


def check_scipy(c, rng, n, dtype):
    import scipy.linalg as sl
    nrhs = max(1, n // 8)
    a = (rng.uniform(-1, 1, (n, n)) + n * np.eye(n)).astype(dtype)
    b = rng.uniform(-1, 1, (n, nrhs)).astype(dtype)
    lu = sl.lu_factor(a)
    for trans in (0, 1):
        x = sl.lu_solve(lu, b, trans=trans)
        op = a if trans == 0 else a.T
        c.rel("scipy lu_solve trans=%d n=%d" % (trans, n), dtype, norm1(mul(op, x) - b),
              norm1(a) * norm1(x) + norm1(b), n)
    g = rng.uniform(-1, 1, (n, n)).astype(dtype)
    p = (mul(g.T, g) + n * np.eye(n)).astype(dtype)
    for lower in (False, True):
        x = sl.cho_solve(sl.cho_factor(p, lower=lower), b)
        c.rel("scipy cho_solve lower=%d n=%d" % (lower, n), dtype, norm1(mul(p, x) - b),
              norm1(p) * norm1(x) + norm1(b), n)
    t = rng.uniform(-1, 1, (n + n // 3, n)).astype(dtype)
    q, r = sl.qr(t, mode="economic")
    c.rel("scipy qr %dx%d" % t.shape, dtype, norm1(mul(q, r) - t) + norm1(mul(q.T, q) - np.eye(n)),
          norm1(t) + 1.0, t.shape[0])
    x = sl.solve(a, b)
    c.rel("scipy solve n=%d" % n, dtype, norm1(mul(a, x) - b), norm1(a) * norm1(x) + norm1(b), n)


def main():
    lapack_dir, blas_dir = os.environ.get("CHG_EXPECT_LAPACK_DIR", ""), os.environ.get("CHG_EXPECT_BLAS_DIR", "")
    good = True
    for name, want in (("lapack", lapack_dir), ("blas", blas_dir)):
        libs, ok = loaded(name, want)
        print("lib%s mapped: %s" % (name, ", ".join(libs) or "none"))
        if want and not ok:
            print("FAILED: this process did not load lib%s.so.3 from %s" % (name, want))
            good = False
    if not lapack_dir or not good:
        print("FAILED: run with CHG_EXPECT_LAPACK_DIR naming the drop-in's folder")
        return 1
    rng = np.random.default_rng(2024)
    c = Checks()
    for dtype in (np.float64, np.float32):
        for n in (1, 7, 65, 300):
            check_size(c, rng, n, dtype)
    try:
        import scipy.linalg  # noqa: F401 (SciPy's own LAPACK module, linked to liblapack.so.3)
        have_scipy = True
    except ImportError as e:
        have_scipy = False
        print("scipy: not importable (%s): its checks left out" % e)
        if os.environ.get("CLHGEMM_LAPACK_CLIENTS") == "require":
            print("FAILED: SciPy is required (CLHGEMM_LAPACK_CLIENTS=require)")
            return 1
    for dtype in (np.float64, np.float32) if have_scipy else ():
        for n in (7, 65, 300):
            check_scipy(c, rng, n, dtype)
    if blas_dir:  # a product for the BLAS drop-in's stats line
        a = rng.uniform(-1, 1, (200, 150))
        b = rng.uniform(-1, 1, (150, 120))
        c.rel("a @ b beside the LAPACK drop-in", np.float64, np.abs(a @ b - mul(a, b)).max(), 150.0, 150)
    print("numpy.linalg through the drop-in:", "all ok" if c.failed == 0 else "%d FAILED" % c.failed, flush=True)
    return 0 if c.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
