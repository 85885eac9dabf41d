# trace.py FILE -- segments of a clprof trace (split at idle > 1 ms): span, busy, idle; the last
# TRSM segment's timeline (gap before each launch, duration, start - queued).
import sys
rows = []
for l in open(sys.argv[1]):
    f = l.split()
    rows.append((int(f[0]), f[1], f[2], int(f[3]), float(f[4]), float(f[5]), float(f[6])))
rows.sort(key=lambda r: r[5])
segs, cur = [], []
for r in rows:
    if cur and (r[2] == 'trsm_invert_tiles' or r[5] - max(x[6] for x in cur) > 1000):
        segs.append(cur); cur = []
    cur.append(r)
if cur: segs.append(cur)
last_trsm = None
tr = []
for i, s in enumerate(segs):
    span = max(x[6] for x in s) - s[0][5]
    busy = sum(x[6] - x[5] for x in s)
    names = set(x[2] for x in s)
    kind = 'trsm' if any(n.startswith('trsm_') for n in names) else 'other'
    if kind == 'trsm': tr.append((span, s))
    starved = sum(1 for x in s if x[5] - x[4] < 20)
    print(f"seg {i:3d} {kind:5s} n={len(s):4d} span {span:9.1f} us busy {busy:9.1f} idle {span-busy:8.1f} starved(start-queued<20us) {starved}")
if tr and '-v' in sys.argv:
    tr.sort(key=lambda t: t[0]); last_trsm = tr[len(tr) // 2][1]
    print('median trsm segment, span', tr[len(tr) // 2][0])
    prev = None
    for x in last_trsm:
        gap = x[5] - prev if prev is not None else 0
        print(f"  {x[2]:24s} {x[3]:9d} gap {gap:7.1f} dur {x[6]-x[5]:8.1f} lag {x[5]-x[4]:9.1f}")
        prev = x[6] if prev is None else max(prev, x[6])
