# numpy a @ b (fresh C each call) and matmul(out=c) (reused C): GFLOP/s per call, checked.
import sys, time
import numpy as np
n = int(sys.argv[1]); tag = sys.argv[2]
dt = np.float64 if sys.argv[3] == 'd' else np.float32
modes = sys.argv[4].split(',') if len(sys.argv) > 4 else ['fresh', 'reused']
reps = int(sys.argv[5]) if len(sys.argv) > 5 else 5
rng = np.random.default_rng(7)
a = rng.standard_normal((n, n)).astype(dt); b = rng.standard_normal((n, n)).astype(dt)
c = np.full((n, n), np.nan, dt)
for _ in range(2):
    x = a @ b
    del x
np.matmul(a, b, out=c)
ref = a[:3].astype(np.float64) @ b.astype(np.float64)
err = np.max(np.abs(c[:3] - ref)) / (np.max(np.abs(ref)) * n * np.finfo(dt).eps)
out = []
for m in modes:
    ts = []
    for _ in range(reps):
        if m == 'fresh':
            t0 = time.perf_counter(); x = a @ b; t1 = time.perf_counter()
            e2 = np.max(np.abs(x[-2:] - a[-2:].astype(np.float64) @ b.astype(np.float64)))
            del x
        else:
            c.fill(np.nan)
            t0 = time.perf_counter(); np.matmul(a, b, out=c); t1 = time.perf_counter()
        ts.append(t1 - t0)
    g = sorted(2.0 * n ** 3 / t / 1e9 for t in ts)
    out.append('%s %s med %.0f [%s]' % (m, sys.argv[3], g[len(g) // 2], ' '.join('%.0f' % v for v in g)))
print('%-22s n=%d %s  err %.3g' % (tag, n, ' | '.join(out), err), flush=True)
