# cblas_dgemm/sgemm of LAPACK-update shapes (beta 1) through whatever libblas.so.3 loads; then solve/cholesky
import ctypes, ctypes.util, numpy as np, time, os, sys
lib = None
for p in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
    f = os.path.join(p, "libblas.so.3")
    if p and os.path.exists(f): lib = ctypes.CDLL(f); break
print("lib", f)
rng = np.random.default_rng(3)
SH = [(4032, 4032, 64), (2048, 2048, 64), (3008, 3008, 64), (1024, 1024, 64), (4096, 4096, 128), (4096, 4096, 256),
      (4096, 64, 4032), (8192, 8192, 64), (2048, 2048, 256)]
c_int, c_dbl, c_flt = ctypes.c_int, ctypes.c_double, ctypes.c_float
for prec in ("d", "s"):
    dt = np.float64 if prec == "d" else np.float32
    fn = getattr(lib, "cblas_%sgemm" % prec)
    sc = c_dbl if prec == "d" else c_flt
    for (m, n, k) in SH:
        A = np.asfortranarray(rng.uniform(-1, 1, (m, k)).astype(dt)); B = np.asfortranarray(rng.uniform(-1, 1, (k, n)).astype(dt))
        C = np.asfortranarray(rng.uniform(-1, 1, (m, n)).astype(dt))
        args = (c_int(102), c_int(111), c_int(111), c_int(m), c_int(n), c_int(k), sc(-1e-3), A.ctypes.data_as(ctypes.c_void_p), c_int(m),
                B.ctypes.data_as(ctypes.c_void_p), c_int(k), sc(1.0), C.ctypes.data_as(ctypes.c_void_p), c_int(m))
        fn(*args); fn(*args)
        ts = []; t_all = time.perf_counter()
        while len(ts) < 7 or time.perf_counter() - t_all < 0.3:
            t0 = time.perf_counter(); fn(*args); ts.append(time.perf_counter() - t0)
            if len(ts) >= 200: break
        ts.sort(); med = ts[len(ts) // 2]
        print("%s %5d %5d %5d  %8.3f ms  %7.1f GF/s  (min %.3f, %d calls)" % (prec, m, n, k, med * 1e3, 2 * m * n * k / med * 1e-9, ts[0] * 1e3, len(ts)), flush=True)
n = 4096
m_ = rng.uniform(-1, 1, (n, n)); rhs = rng.uniform(-1, 1, (n, 256)); spd = m_ @ m_.T + n * np.eye(n)
l = np.linalg.cholesky(spd); x = np.linalg.solve(m_, rhs)
print("checks: cholesky %.2e solve %.2e" % (np.abs(l @ l.T - spd).max() / np.abs(spd).max(), np.abs(m_ @ x - rhs).max()), flush=True)
for name, f in (("cholesky", lambda: np.linalg.cholesky(spd)), ("solve", lambda: np.linalg.solve(m_, rhs))):
    f(); ts = []
    for _ in range(3):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    print("%s %.4f s (min %.4f)" % (name, sorted(ts)[1], min(ts)), flush=True)
