import numpy as np, time, sys
rng = np.random.default_rng(1)
n_small, n_big, reps = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
a5 = rng.random((n_small, n_small)); b5 = rng.random((n_small, n_small))
a4 = rng.random((n_big, n_big)); b4 = rng.random((n_big, n_big)); c4 = np.empty((n_big, n_big))
for i in range(3): np.matmul(a4, b4, out=c4)
def run(mix):
    ts = []
    for i in range(reps):
        if mix: a5 @ b5
        t = time.perf_counter(); np.matmul(a4, b4, out=c4); ts.append(time.perf_counter() - t)
    return 2.0 * n_big**3 / np.median(ts) * 1e-9, 2.0 * n_big**3 / max(ts) * 1e-9
for r in range(2):
    for mix in (0, 1):
        g, lo = run(mix)
        print(f"{sys.argv[4]} round {r} {'after a ' + str(n_small) + ' product' if mix else 'alone':24s}: median {g:8.0f} GFLOP/s, slowest {lo:8.0f}")
