import sys, time
import numpy as np
if sys.argv[1] == "big":
    a = np.random.default_rng(1).random((8192, 8192)); b = a @ a; del a, b
rng = np.random.default_rng(2)
x = rng.random((32, 32)); y = rng.random((32, 32))
ts = []
for rep in range(6):
    t0 = time.perf_counter()
    for i in range(10000): x @ y
    ts.append(time.perf_counter() - t0)
print(sys.argv[1], sys.argv[2], " ".join("%.4f" % t for t in ts), flush=True)
