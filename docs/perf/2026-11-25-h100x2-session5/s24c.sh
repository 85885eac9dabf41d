#!/bin/bash
# issue 24, mid sizes on two GPUs with B shared: the device-count decision (auto) vs forced, one GPU
set -u
S=.scratch/head; B=/tmp/b24e
cat $S/.gpu_record_rev > $OUT/rev.txt
cmake -S $S -B $B -DCMAKE_BUILD_TYPE=Release > $OUT/build.log 2>&1 && cmake --build $B -j32 --target clhgemm-bench-host >> $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
H=$(find $B -name clhgemm-bench-host -type f | head -1)
run() { local n=$1 to=$2; shift 2
  timeout $to env CLHGEMM_VERBOSE=1 "$@" > $OUT/$n.log 2>&1; echo "$n rc=$?"
  grep -E "^  n=[0-9]+ [sd]: ours [0-9]|scaling:|devices: [0-9] of|B slices|copy rate" $OUT/$n.log | sort | uniq -c | sort -rn | cut -c1-190 | head -16; }
run mid-auto 200 $H --sizes 8192,16384 --precision both --reps 5 --warmup 2 --one-device --no-naive --no-xt --no-device-only --csv $OUT/mid-auto.csv
run mid-all 150 CLHGEMM_PLAN_DEVICES=all $H --sizes 8192,16384 --precision both --reps 5 --warmup 2 --no-naive --no-xt --no-device-only --csv $OUT/mid-all.csv
