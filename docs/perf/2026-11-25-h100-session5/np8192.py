# issue 20: where does numpy's a @ b lose at n = 8192 (fresh C each call)?
import os, sys, time
import numpy as np
from numpy.core import multiarray
def thp(p):
    try: return open(p).read().strip()
    except Exception as e: return str(e)
print("THP enabled:", thp("/sys/kernel/mm/transparent_hugepage/enabled"), "defrag:", thp("/sys/kernel/mm/transparent_hugepage/defrag"))
print("kernel:", os.uname().release, "numpy", np.__version__)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
def med(f, reps=5):
    f(); f(); ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    ts.sort(); return ts[len(ts) // 2]
for dt in (np.float64, np.float32):
    rng = np.random.default_rng(1)
    a = rng.random((n, n)).astype(dt); b = rng.random((n, n)).astype(dt)
    c = np.empty((n, n), dt)
    fl = 2.0 * n ** 3 / 1e9
    def touch():  # a fresh array, its pages faulted in by numpy (one thread) before the product
        x = np.empty((n, n), dt); x.fill(0); return x
    for hp in (True,):
        multiarray._set_madvise_hugepage(hp)
        t_fresh = med(lambda: a @ b)
        t_reuse = med(lambda: np.matmul(a, b, out=c))
        t_alloc = med(lambda: np.empty((n, n), dt).fill(0))
        print(f"{np.dtype(dt).name} n={n} madvise_hugepage={hp}: fresh C {fl/t_fresh:8.0f} GFLOP/s ({t_fresh*1e3:.1f} ms), "
              f"reused C {fl/t_reuse:8.0f} ({t_reuse*1e3:.1f} ms); numpy alloc+fill alone {t_alloc*1e3:.1f} ms", flush=True)
