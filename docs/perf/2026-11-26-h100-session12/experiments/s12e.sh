#!/bin/bash
set -u
export JOBS=16
O=$OUT; t0=$(date +%s)
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
H=build-wt/bench/clhgemm-bench-host
for r in 1 2; do
for v in 4 1 2; do
  printf "ramp %s r%s " $v $r; CLHGEMM_RAMP=$v timeout 60 $H --sizes 1024,2048,3072,4096,8192 --precision both --reps 11 --warmup 2 --no-xt --no-naive --no-device-only --no-check 2>&1 | grep -E '^  n=[0-9]+ [sd]: ours' | awk '{printf "%s%s %6.0f ", $1, $2, $4}'; echo
done; done
echo "ramp $(( $(date +%s) - t0 )) s"
for r in 1 2; do
for v in 4 2 8; do
  env LD_LIBRARY_PATH=build-wt/blas:$L/lapack:$L/openblas-pthread:${LD_LIBRARY_PATH:-} CLHGEMM_PREFAULT_THREADS=$v timeout 60 python3-debian .scratch/npd.py 8192 "prefault $v" d 2>&1 | tail -1
done; done
echo "total $(( $(date +%s) - t0 )) s"
