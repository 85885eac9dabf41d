#!/bin/bash
set -u
export JOBS=16
O=$OUT; t0=$(date +%s)
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt
H=build-wt/bench/clhgemm-bench-host
for r in 1 2 3; do for v in 0 25 100; do
  printf "spin %3s r%s " $v $r; CLHGEMM_POOL_SPIN_US=$v timeout 100 $H --sizes 1024,2048,3072,4096 --precision both --reps 21 --warmup 3 --no-xt --no-naive --no-device-only --no-check 2>&1 | grep -E '^  n=[0-9]+ [sd]: ours' | awk '{printf "%s%s %6.0f ", $1, $2, $4}'; echo
done; done
echo "beta 0.5 $(( $(date +%s) - t0 )) s"
for r in 1 2; do for v in 0 25 100; do
  CLHGEMM_POOL_SPIN_US=$v timeout 100 $H --sweep --sizes 1024,2048 --precision both --reps 9 --warmup 2 --no-xt --no-device-only --no-check > $O/sw-$v-$r.log 2>&1
  printf "sweep spin %3s r%s " $v $r; awk '$1 ~ /^[sd]$/ && $3 ~ /^[0-9]+$/ {printf "%s b%s n%s %6.0f/%6.0f ", $1, $2, $3, $4, $9}' $O/sw-$v-$r.log; echo
done; done
echo "total $(( $(date +%s) - t0 )) s"
