#!/bin/bash
# record run 2: polling's effect on CPU-routed calls beside a device-route handle (small sweeps,
# CLHGEMM_POOL_SPIN_US 0 / 100), then issue 19's sweep n = 8 ... 16384 (five repetitions)
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt
H=build-wt/bench/clhgemm-bench-host
for r in 1 2; do for v in 0 100; do
  CLHGEMM_POOL_SPIN_US=$v timeout 100 $H --sweep --sizes 64,128,256,512,1024 --precision both --reps 5 --warmup 1 --no-xt --no-device-only --no-check > $O/small-$v-$r.log 2>&1
  printf "small spin %3s r%s " $v $r; awk '$1 ~ /^[sd]$/ && $3 ~ /^[0-9]+$/ {printf "%s%s/%s %s(%s) ", $1, $2, $3, $4, $5}' $O/small-$v-$r.log; echo
done; done
echo "small $(( $(date +%s) - t0 )) s"
OUT=/tmp/gr SWEEP_REPS=5 SWEEP_TIMEOUT=330 bash bench/gpu_record.sh sweep > $O/sweep-stage.log 2>&1
cp /tmp/gr/sweep/sweep.log /tmp/gr/sweep/sweep.csv $O/ 2>/dev/null
echo "sweep $(( $(date +%s) - t0 )) s"
grep -vE '^clhgemm:' $O/sweep.log | tail -52 | cut -c1-150
