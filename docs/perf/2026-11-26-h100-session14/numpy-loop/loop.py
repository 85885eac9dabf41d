import numpy as np, time, sys
rng = np.random.default_rng(1)
x = rng.uniform(-1, 1, (32, 32)); y = rng.uniform(-1, 1, (32, 32))
for _ in range(100): x @ y
ts = []
for r in range(7):
    t0 = time.perf_counter()
    for _ in range(10000): x @ y
    ts.append(time.perf_counter() - t0)
print(sys.argv[1], ' '.join('%.4f' % t for t in ts), 'median %.4f' % sorted(ts)[3])
