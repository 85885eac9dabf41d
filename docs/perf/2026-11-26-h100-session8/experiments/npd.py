# numpy a @ b (fresh C) and matmul(out=c) (reused C), float64, median of 7 after 2 warm-ups
import sys, time
import numpy as np
n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
tag = sys.argv[2] if len(sys.argv) > 2 else ""
dt = np.float64 if (len(sys.argv) <= 3 or sys.argv[3] == "d") else np.float32
rng = np.random.default_rng(1)
a = rng.random((n, n)).astype(dt); b = rng.random((n, n)).astype(dt); c = np.empty((n, n), dt)
fl = 2.0 * n ** 3 / 1e9
def med(f, reps=7):
    f(); f(); ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    ts.sort(); return ts[len(ts) // 2], ts[0], ts[-1]
tf = med(lambda: a @ b); tr = med(lambda: np.matmul(a, b, out=c))
i = np.arange(0, n, n // 7)
ok = np.allclose(c[i], a[i] @ b, rtol=1e-4 if dt == np.float32 else 1e-10)
print(f"{tag:28s} {np.dtype(dt).name} n={n}: fresh {fl/tf[0]:7.0f} (min {fl/tf[2]:6.0f} max {fl/tf[1]:6.0f})  reused {fl/tr[0]:7.0f} (min {fl/tr[2]:6.0f} max {fl/tr[1]:6.0f}) {'ok' if ok else 'WRONG'}", flush=True)
