#!/bin/bash
set -u
O=$OUT
for r in 1 2 3; do for side in old new; do
  b=build-ab; [ $side = new ] && b=build-wt
  printf "%s%s " $side $r; timeout 60 $b/bench/clhgemm-bench-host --sizes 1024,2048,3072 --precision both --reps 21 --warmup 3 --no-xt --no-naive --no-device-only --no-check 2>&1 | grep -E '^  n=[0-9]+ [sd]: ours' | awk '{printf "%s%s %7.0f  ", $1, $2, $4}'; echo
done; done
