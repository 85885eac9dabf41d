# After an offloaded product: which threads burn CPU, and how slow are the next small calls?
import numpy as np, time, os, sys
rng = np.random.default_rng(1)
BIG = int(os.environ.get("BIG", "1024"))
a = rng.uniform(-1, 1, (BIG, BIG)); b = rng.uniform(-1, 1, (BIG, BIG))
xs = rng.uniform(-1, 1, (256, 256)).astype(np.float32); ys = rng.uniform(-1, 1, (256, 256)).astype(np.float32)
xd = rng.uniform(-1, 1, (256, 256)); yd = rng.uniform(-1, 1, (256, 256))

BORN = {}
def label_new(tag):
    for t in os.listdir("/proc/self/task"): BORN.setdefault(t, tag)
label_new("np")  # main + OpenBLAS's workers (loaded with numpy)

def tasks():
    out = {}
    for t in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/schedstat" % t) as f: run = int(f.read().split()[0])
            with open("/proc/self/task/%s/comm" % t) as f: comm = f.read().strip()
            out[t] = (BORN.get(t, "late") + "/" + comm[:6], run)
        except OSError: pass
    return out

def burn(s0, s1):
    d = {}
    for t, (c, r) in s1.items():
        r0 = s0.get(t, (c, 0))[1]
        if r - r0 > 0: d.setdefault(c, [0, 0]); d[c][0] += r - r0; d[c][1] += 1
    return " ".join("%s:%d×%.1fms" % (c, v[1], v[0] / 1e6) for c, v in sorted(d.items(), key=lambda kv: -kv[1][0])[:6])

def trace(x, y, k=400):
    t = []
    for _ in range(k):
        t0 = time.perf_counter(); x @ y; t.append(time.perf_counter() - t0)
    return t

def buckets(t):
    med = lambda v: sorted(v)[len(v) // 2] * 1e6
    return "first %6.0f  1-9 %6.0f  10-49 %6.0f  50-199 %6.0f  200-399 %6.0f  total %6.1f ms" % (
        t[0] * 1e6, med(t[1:10]), med(t[10:50]), med(t[50:200]), med(t[200:400]), sum(t) * 1e3)

xs @ ys; xd @ yd; label_new("cpu1"); a @ b; label_new("big1")  # warm-ups
print("threads:", {k: sum(1 for v in BORN.values() if v == k) for k in set(BORN.values())}, flush=True)
for rnd in range(3):
    for pat in ("sleep", "warm", "big", "bigidle"):
        if pat == "sleep": time.sleep(0.3)
        elif pat == "warm": trace(xs, ys, 300)
        else:
            for _ in range(3): a @ b
        if pat == "bigidle":
            s = [tasks()]
            for dt in (0.02, 0.05, 0.1, 0.2):
                time.sleep(dt); s.append(tasks())
            print("r%d idle after big: 0-20ms %s | 20-70 %s | 70-170 %s | 170-370 %s" % (
                rnd, burn(s[0], s[1]), burn(s[1], s[2]), burn(s[2], s[3]), burn(s[3], s[4])), flush=True)
            continue
        s0 = tasks(); t = trace(xs, ys); s1 = tasks()
        print("r%d %-6s s256: %s | burn %s" % (rnd, pat, buckets(t), burn(s0, s1)), flush=True)
        if pat == "big":
            for _ in range(3): a @ b
            t = trace(xd, yd); print("r%d %-6s d256: %s" % (rnd, pat, buckets(t)), flush=True)
