#!/bin/bash
# issue 24 on two GPUs: build bench-host, then scaling with shared B (auto) vs off, same lease
set -u
S=.scratch/head; B=/tmp/b24c
nvidia-smi -L > $OUT/gpus.txt 2>&1; cat $S/.gpu_record_rev >> $OUT/gpus.txt
t0=$(date +%s)
cmake -S $S -B $B -DCMAKE_BUILD_TYPE=Release > $OUT/build.log 2>&1 && cmake --build $B -j32 --target clhgemm-bench-host >> $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
H=$(find $B -name clhgemm-bench-host -type f | head -1)
run() { # name timeout env... -- args
  local n=$1 to=$2; shift 2
  local t1=$(date +%s)
  timeout $to env CLHGEMM_VERBOSE=1 "$@" > $OUT/$n.log 2>&1; echo "$n rc=$? $(( $(date +%s) - t1 )) s"
  grep -E "^  n=[0-9]+ [sd]: ours [0-9]|scaling:|B slices|plan [sd]gemm.*on 2|copy rate" $OUT/$n.log | sort | uniq -c | sort -rn | cut -c1-200 | head -14
}
run a-shared-32768 200 $H --sizes 32768 --precision both --reps 3 --warmup 1 --one-device --no-naive --no-xt --no-device-only --csv $OUT/a.csv
run b-shared-49152 280 $H --sizes 49152 --precision both --reps 2 --warmup 1 --one-device --no-naive --no-xt --no-device-only --csv $OUT/b.csv
run c-off-32768 120 CLHGEMM_SHARE_B=off $H --sizes 32768 --precision both --reps 3 --warmup 1 --no-naive --no-xt --no-device-only --csv $OUT/c.csv
