#!/usr/bin/env python3
"""test_blas_numpy.py -- numpy as a real client of clhgemm's libblas.so.3, the BLAS drop-in.

Run with LD_LIBRARY_PATH naming the folder of the drop-in, so that numpy's libblas.so.3 is
ours. Checks that the process really loaded it (/proc/self/maps), then computes products of
several sizes in the four precisions (a @ b, a.T @ b, b @ a.T, and a rank-k update through the
transposed operand; for complex64 and complex128 also the conjugate transpose a.conj().T @ b
and x @ x.conj().T) and compares each with a product computed without BLAS (broadcast
multiply-and-sum in float64 or complex128), with a tolerance that scales with k. CLHGEMM_BLAS_STATS=1 and
CLHGEMM_BLAS_OFFLOAD=always (set by the test) make the library report, at exit, how many calls
went to the devices; the test's driver checks that line. Exit 77 when numpy is missing.
"""
import os
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: no numpy")
    sys.exit(77)


def ours_loaded():
    want = os.environ.get("CHG_EXPECT_BLAS_DIR", "")
    with open("/proc/self/maps") as f:
        maps = f.read()
    libs = sorted({line.split()[-1] for line in maps.splitlines() if "libblas.so" in line})
    return libs, any(want and os.path.realpath(p).startswith(os.path.realpath(want)) for p in libs)


def wide(x):
    """x in float64, or complex128 for a complex x."""
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def reference(a, b):
    """float64 (complex128) product without BLAS: broadcast, multiply, sum (in blocks of rows)."""
    a = wide(a)
    b = wide(b)
    out = np.empty((a.shape[0], b.shape[1]), dtype=np.result_type(a, b))
    step = max(1, 2_000_000 // max(1, a.shape[1] * b.shape[1]))
    for i in range(0, a.shape[0], step):
        out[i:i + step] = (a[i:i + step, :, None] * b[None, :, :]).sum(axis=1)
    return out


def check(name, got, a, b, dtype):
    want = reference(a, b)
    k = a.shape[1]
    eps = np.finfo(dtype).eps
    bound = (np.abs(wide(a))[:, :, None] * np.abs(wide(b))[None, :, :]).sum(axis=1) \
        if a.shape[0] * a.shape[1] * b.shape[1] <= 8_000_000 else np.full(want.shape, np.abs(want).max() + 1.0)
    err = np.abs(wide(got) - want)
    tol = 4.0 * max(k, 16) * eps * bound + 1e-300
    bad = int((err > tol).sum()) + int(np.isnan(got).sum())
    status = "ok" if bad == 0 else "FAILED"
    print("%-28s %-7s max err/tol %.3g  %s" % (name, np.dtype(dtype).name, float((err / tol).max()), status))
    return bad == 0


def main():
    libs, ok = ours_loaded()
    print("libblas mapped:", ", ".join(libs) or "none")
    if not ok:
        print("FAILED: this process did not load the drop-in from", os.environ.get("CHG_EXPECT_BLAS_DIR"))
        return 1
    rng = np.random.default_rng(2020)
    good = True
    def rand(shape, dtype):
        x = rng.uniform(-1, 1, shape)
        if np.issubdtype(dtype, np.complexfloating):
            x = x + 1j * rng.uniform(-1, 1, shape)
        return x.astype(dtype)

    for dtype in (np.float64, np.float32, np.complex128, np.complex64):
        cplx = np.issubdtype(dtype, np.complexfloating)
        for (m, k, n) in ((1, 1, 1), (7, 5, 3), (64, 64, 64), (100, 37, 129), (257, 200, 130), (300, 300, 300)):
            a = rand((m, k), dtype)
            b = rand((k, n), dtype)
            good &= check("a @ b %dx%dx%d" % (m, k, n), a @ b, a, b, dtype)
            at = np.ascontiguousarray(a.T)
            good &= check("a.T @ b (a stored %dx%d)" % (k, m), at.T @ b, a, b, dtype)
            bt = np.ascontiguousarray(b.T)
            good &= check("a @ b.T (b stored %dx%d)" % (n, k), a @ bt.T, a, b, dtype)
            if cplx:
                ah = np.ascontiguousarray(a.conj().T)
                good &= check("a^H^H @ b (a^H stored %dx%d)" % (k, m), ah.conj().T @ b, a, b, dtype)
        x = rand((200, 48), dtype)
        good &= check("x @ x.T (rank-48 update)", x @ x.T, x, np.ascontiguousarray(x.T), dtype)
        if cplx:
            good &= check("x @ x^H (rank-48 update)", x @ x.conj().T, x, np.ascontiguousarray(x.conj().T), dtype)
    print("numpy through the drop-in:", "all ok" if good else "FAILED")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
