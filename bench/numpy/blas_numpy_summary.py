#!/usr/bin/env python3
"""blas_numpy_summary.py -- numpy on the drop-in and on OpenBLAS over several processes of each.

bench/numpy/blas_numpy.py prints one process's figures; between processes on the GPU machine they
spread widely at small sizes (OpenBLAS float64 n = 256: 28-259 GFLOP/s, the first product of a
process), whichever libblas.so.3 is loaded. Given the outputs of N processes on OpenBLAS and N on
clhgemm (rounds, alternated), this prints per case the median over the processes of each, their
ratio (ours / OpenBLAS: above 1 is faster for matmul, slower for the timed programs), and the
lines

  worst matmul: <dtype> n = <n> at <ratio> of OpenBLAS (median of N processes)
  programs: small <r>, cholesky <r>, solve <r> (ours / OpenBLAS in time, median of N processes)

and, given --reflapack (the reference LAPACK on OpenBLAS's BLAS, the LAPACK the drop-in runs
under), the programs again against that: the same program with only the BLAS swapped, where
OpenBLAS's own LAPACK factors with its own code (its dpotrf and dgetrf make no BLAS calls).

Usage: blas_numpy_summary.py --ours F1,F2,.. --openblas G1,G2,.. [--reflapack H1,..]
"""
import argparse
import re
import statistics

MATMUL = re.compile(r"^matmul (\w+) (\d+) ([\d.]+) GFLOP/s")
PROG = re.compile(r"^(small|cholesky|solve) .* ([\d.]+) s$")


def read(path):
    mm, prog = {}, {}
    with open(path) as f:
        for line in f:
            m = MATMUL.match(line)
            if m:
                mm[(m.group(1), int(m.group(2)))] = float(m.group(3))
                continue
            p = PROG.match(line.strip())
            if p:
                prog[p.group(1)] = float(p.group(2))
    return mm, prog


def medians(paths):
    mm, prog = {}, {}
    for path in paths:
        a, b = read(path)
        for k, v in a.items():
            mm.setdefault(k, []).append(v)
        for k, v in b.items():
            prog.setdefault(k, []).append(v)
    return ({k: statistics.median(v) for k, v in mm.items()}, {k: statistics.median(v) for k, v in prog.items()},
            {k: len(v) for k, v in mm.items()})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True, help="comma-separated outputs of blas_numpy.py on clhgemm")
    ap.add_argument("--openblas", required=True, help="... on OpenBLAS")
    ap.add_argument("--reflapack", help="... on OpenBLAS's BLAS under the reference LAPACK")
    args = ap.parse_args()
    ours_mm, ours_pr, count = medians(args.ours.split(","))
    ob_mm, ob_pr, _ = medians(args.openblas.split(","))
    print("%-8s %6s %12s %12s %7s %s" % ("dtype", "n", "OpenBLAS", "ours", "ratio", "processes"))
    worst = None
    for key in sorted(ours_mm, key=lambda k: (k[0], k[1])):
        if key not in ob_mm:
            continue
        r = ours_mm[key] / ob_mm[key]
        print("%-8s %6d %12.1f %12.1f %7.2f %d" % (key[0], key[1], ob_mm[key], ours_mm[key], r, count[key]))
        if worst is None or r < worst[1]:
            worst = (key, r)
    if worst:
        print("worst matmul: %s n = %d at %.2f of OpenBLAS (median of the processes)" % (worst[0][0], worst[0][1],
                                                                                        worst[1]))
    parts = ["%s %.2f" % (k, ours_pr[k] / ob_pr[k]) for k in ("small", "cholesky", "solve") if k in ours_pr and k in ob_pr]
    if parts:
        print("programs: %s (ours / OpenBLAS in time, median of the processes)" % ", ".join(parts))
    if args.reflapack:
        ref_pr = medians(args.reflapack.split(","))[1]
        parts = ["%s %.2f" % (k, ours_pr[k] / ref_pr[k]) for k in ("cholesky", "solve") if k in ours_pr and k in ref_pr]
        if parts:
            print("programs, same LAPACK: %s (ours / the reference LAPACK on OpenBLAS's BLAS, in time)" % ", ".join(parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
