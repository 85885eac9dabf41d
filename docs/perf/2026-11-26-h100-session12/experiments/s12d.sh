#!/bin/bash
set -u
export JOBS=16
O=$OUT; t0=$(date +%s)
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
H=build-wt/bench/clhgemm-bench-host
for r in 1 2; do
for v in - NICE=10 NICE=19 TILE=8192,2048,1024,resident TILE=8192,4096,1024,resident TILE=8192,2048,1024,prefetch; do
  e=(); [ "$v" != "-" ] && e=(CLHGEMM_${v/NICE/PREFAULT_NICE})
  env LD_LIBRARY_PATH=build-wt/blas:$L/lapack:$L/openblas-pthread:${LD_LIBRARY_PATH:-} "${e[@]+"${e[@]}"}" timeout 60 python3-debian .scratch/npd.py 8192 "$v" d 2>&1 | tail -1
done
echo "numpy round $r $(( $(date +%s) - t0 )) s"
done
for r in 1 2; do
for v in - TILE=8192,2048,1024,resident TILE=8192,4096,1024,resident TILE=8192,2048,1024,prefetch; do
  e=(); [ "$v" != "-" ] && e=(CLHGEMM_$v)
  printf "%-32s " "$v"; env "${e[@]+"${e[@]}"}" timeout 60 $H --sizes 4096,8192 --precision both --reps 7 --warmup 2 --no-xt --no-naive --no-device-only --no-check 2>&1 | grep -E '^  n=[0-9]+ [sd]: ours' | awk '{printf "%s%s %7.0f  ", $1, $2, $4}'; echo
done; done
echo "total $(( $(date +%s) - t0 )) s"
