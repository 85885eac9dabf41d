#!/bin/bash
# record run 1: issue 19's sweep (n = 8 ... 16384, five repetitions) and issue 21's host TRSM n = 16384
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; cp /tmp/gr/build/machine.txt $O/ 2>/dev/null
OUT=/tmp/gr SWEEP_REPS=5 SWEEP_TIMEOUT=400 bash bench/gpu_record.sh sweep > $O/sweep-stage.log 2>&1
cp /tmp/gr/sweep/sweep.log /tmp/gr/sweep/sweep.csv /tmp/gr/sweep/sweep.png $O/ 2>/dev/null
echo "sweep $(( $(date +%s) - t0 )) s"
timeout 170 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 > $O/trsm-host.log 2>&1
echo "trsm $(( $(date +%s) - t0 )) s"
grep -vE '^clhgemm:' $O/sweep.log | tail -34 | cut -c1-170
grep -E 'trsm|gemm' $O/trsm-host.log | tail -8
