#!/bin/bash
# SGEMM n = 32768 on two GPUs: the plan's effect with shared B (same lease), forced tiles
set -u
S=.scratch/head; B=/tmp/b24d
cmake -S $S -B $B -DCMAKE_BUILD_TYPE=Release > $OUT/build.log 2>&1 && cmake --build $B -j32 --target clhgemm-bench-host >> $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
H=$(find $B -name clhgemm-bench-host -type f | head -1)
for t in auto 16384,16384,4096 24576,12288,4096 12288,24576,8192 16384,8192,4096 off; do
  e=(); case $t in auto) ;; off) e=(CLHGEMM_SHARE_B=off) ;; *) e=(CLHGEMM_TILE=$t) ;; esac
  timeout 100 env CLHGEMM_VERBOSE=1 "${e[@]+"${e[@]}"}" $H --sizes 32768 --precision s --reps 4 --warmup 1 --no-naive --no-xt --no-device-only > $OUT/s-$t.log 2>&1
  echo "$t: $(grep -E '^  n=32768 s: ours' $OUT/s-$t.log | cut -c1-150) | $(grep -E 'B slices' $OUT/s-$t.log | tail -1 | cut -c10-60) | $(grep -E 'copy rate' $OUT/s-$t.log | cut -c30-80)"
done
