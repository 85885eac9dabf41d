# leaf.py TRACE... -- per clprof trace (CLPROF_TRACE): TRSM calls (segments starting at
# trsm_invert_tiles), the median over calls of: the leaves' GEMM kernel time (the clhgemm_gemm
# right after each clhgemm_pack_tri, and the packs between), the updates' kernels, everything.
import sys, statistics as S
for fn in sys.argv[1:]:
    rows = []
    for l in open(fn):
        f = l.split()
        rows.append((f[2], int(f[3]), float(f[5]), float(f[6])))
    rows.sort(key=lambda r: r[2])
    calls, cur = [], None
    for r in rows:
        if r[0] == 'trsm_invert_tiles':
            cur = []; calls.append(cur)
        if cur is None: continue
        if r[0] == 'clhgemm_gemm' and r[3] - r[2] > 10000:
            # the bench's GEMM of the same size: it and its packs end the call
            while cur and cur[-1][0] == 'clhgemm_pack' and cur[-1][1] >= 16 << 20: cur.pop()
            cur = None; continue
        cur.append(r)
    res = []
    for c in calls:
        leaf = upd = inv = pk = 0.0; nleaf = 0; after_tri = False
        for name, g, s, e in c:
            d = e - s
            if name == 'clhgemm_pack_tri': after_tri = True; pk += d
            elif name == 'clhgemm_gemm':
                if after_tri: leaf += d; nleaf += 1; after_tri = False
                else: upd += d
            elif name.startswith('trsm_'): inv += d
            else: pk += d
        span = c[-1][3] - c[0][2]
        res.append((leaf, nleaf, upd, inv, pk, span))
    if not res: print(fn, 'no calls'); continue
    med = lambda i: S.median(x[i] for x in res)
    print(f"{fn}: calls {len(res)} leaves {med(1):.0f} x {med(0)/max(med(1),1):.1f} = {med(0):.0f} us, updates {med(2):.0f}, inversion {med(3):.0f}, packs+other {med(4):.0f}, span {med(5):.0f}")
