#!/usr/bin/env python3
"""trace_summary.py -- numbers (and optionally a picture) from a CLHGEMM_TRACE file.

The host pipeline writes a Chrome trace-event file per call (CLHGEMM_TRACE=file.json): one track
per command queue of every device ("dev0 h2d", "dev0 kernel", "dev0 d2h") and one per pack
thread ("pack 3"). This script answers the question the trace exists for -- do the copies in
both directions overlap the kernels, and where does the kernel queue sit idle -- in numbers:

  per track: busy time (union of its spans) and busy % of the call
  per device: % of the kernel queue's busy time during which a host->device / device->host
              copy was also running (overlap), the longest idle gaps of the kernel queue, and
              its time by command (gemm, pack A, pack B, write-back: count and total)

  usage: trace_summary.py trace.json [--png out.png] [--gaps N]

--png draws the tracks as a timeline (matplotlib; skipped with a note when it is missing).
Only the standard library is needed for the numbers.
"""
import argparse
import json
import sys


def union(spans):
    """Merged, sorted list of (start, end) covering the spans."""
    out = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(iv):
    return sum(e - s for s, e in iv)


def intersect(a, b):
    """Total length of the intersection of two merged interval lists."""
    i = j = 0
    tot = 0.0
    while i < len(a) and j < len(b):
        s = max(a[i][0], b[j][0])
        e = min(a[i][1], b[j][1])
        if e > s:
            tot += e - s
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tot


def load(path):
    with open(path) as f:
        d = json.load(f)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    names = {}
    spans = {}
    for e in ev:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    for e in ev:
        if e.get("ph") == "X":
            key = names.get((e["pid"], e["tid"]), "tid %s" % e["tid"])
            spans.setdefault(key, []).append((float(e["ts"]), float(e["ts"]) + float(e["dur"]), e.get("name", "")))
    return spans


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--png")
    ap.add_argument("--gaps", type=int, default=5)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    spans = load(a.trace)
    if not spans:
        print("no spans in %s" % a.trace)
        return 1
    t0 = min(s for v in spans.values() for s, _, _ in v)
    t1 = max(e for v in spans.values() for _, e, _ in v)
    total = t1 - t0
    print("trace %s: %.1f ms from the first span to the last" % (a.trace, total / 1e3))
    merged = {k: union([(s, e) for s, e, _ in v]) for k, v in spans.items()}
    print("%-16s %8s %10s %7s" % ("track", "spans", "busy ms", "busy %"))
    for k in sorted(merged):
        print("%-16s %8d %10.1f %7.1f" % (k, len(spans[k]), length(merged[k]) / 1e3, 100.0 * length(merged[k]) / total))
    devs = sorted({k.split()[0] for k in merged if k.startswith("dev")})
    for d in devs:
        kern = merged.get(d + " kernel", [])
        kb = length(kern)
        if not kb:
            continue
        h2d = merged.get(d + " h2d", [])
        d2h = merged.get(d + " d2h", [])
        print("%s: kernel queue busy %.1f%% of the call; while it ran, host->device copies ran %.1f%% "
              "and device->host copies %.1f%% of the time (%.1f / %.1f ms of copies overlapped)" % (
                  d, 100.0 * kb / total, 100.0 * intersect(kern, h2d) / kb, 100.0 * intersect(kern, d2h) / kb,
                  intersect(kern, h2d) / 1e3, intersect(kern, d2h) / 1e3))
        ov_h = length(h2d) and 100.0 * intersect(kern, h2d) / length(h2d)
        ov_d = length(d2h) and 100.0 * intersect(kern, d2h) / length(d2h)
        print("%s: %.1f%% of host->device and %.1f%% of device->host copy time was hidden under kernels" % (d, ov_h, ov_d))
        gaps = []
        prev = t0
        for s, e in kern:
            if s > prev:
                gaps.append((s - prev, prev - t0))
            prev = e
        if t1 > prev:
            gaps.append((t1 - prev, prev - t0))
        gaps.sort(reverse=True)
        idle = sum(g for g, _ in gaps)
        print("%s: kernel queue idle %.1f ms in %d gaps; longest: %s" % (
            d, idle / 1e3, len(gaps), ", ".join("%.2f ms at %.1f ms" % (g / 1e3, at / 1e3) for g, at in gaps[: a.gaps])))
        # what the kernel queue's time went to, by command (gemm, pack A, pack B, write-back)
        by = {}
        for s, e, n in spans.get(d + " kernel", []):
            c = by.setdefault(n, [0, 0.0])
            c[0] += 1
            c[1] += e - s
        print("%s: kernel queue by command: %s" % (d, ", ".join(
            "%s %d x, %.1f ms" % (n, c[0], c[1] / 1e3) for n, c in sorted(by.items(), key=lambda x: -x[1][1]))))
    if a.png:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("note: matplotlib missing, no picture")
            return 0
        order = sorted(merged, key=lambda k: (not k.startswith("dev"), k.split()[0],
                                              {"h2d": 0, "kernel": 1, "d2h": 2}.get(k.split()[-1], 3), k))
        colors = {"gemm": "#2a7", "pack A": "#48c", "pack B": "#7ae", "write-back": "#c84",
                  "A slice": "#48c", "B slice": "#7ae", "C in": "#a6c", "C tile": "#e93",
                  "pack C": "#a6c", "unpack C": "#e93"}
        fig, ax = plt.subplots(figsize=(14, 0.35 * len(order) + 1.2))
        for row, k in enumerate(order):
            bars = [((s - t0) / 1e3, (e - s) / 1e3) for s, e, _ in spans[k]]
            cols = [colors.get(n, "#999") for _, _, n in spans[k]]
            ax.broken_barh(bars, (row - 0.4, 0.8), facecolors=cols, linewidth=0)
        ax.set_yticks(range(len(order)))
        ax.set_yticklabels(order, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("ms since the first span")
        ax.set_xlim(0, total / 1e3)
        if a.title:
            ax.set_title(a.title, fontsize=10)
        from matplotlib.patches import Patch
        seen = []
        for n in ["gemm", "pack A", "pack B", "write-back", "C in", "C tile"]:
            seen.append(Patch(color=colors[n], label={"C in": "C in / pack C", "C tile": "C out / unpack C",
                                                       "pack A": "A (copy, pack)", "pack B": "B (copy, pack)"}.get(n, n)))
        ax.legend(handles=seen, loc="upper right", fontsize=7, ncol=6)
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)
        print("picture: %s" % a.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
