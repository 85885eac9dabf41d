#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
cmake --build build-wt -j16 --target clhgemm-bench-gemm clhgemm-bench-level3 >> $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
(cd build-wt && timeout 200 ctest -L nvidia -j4 > $O/nv.log 2>&1; timeout 200 ctest -R "test_shapes|test_trsm_cl" -j4 >> $O/nv.log 2>&1)
grep -E "tests passed|Failed|\*\*\*" $O/nv.log | head
B=build-wt/bench/clhgemm-bench-gemm
mkdir -p /tmp/old /tmp/new && cp .scratch/h100-head.json /tmp/old/nvidia-h100.json && cp tuning/nvidia-h100.json /tmp/new/
S=256x256x256,512x512x512,1000x1000x1000,1024x1024x1024
for r in 1 2; do for c in old new src; do
  if [ $c = src ]; then unset CLHGEMM_SHIPPED_TUNING_DIR; else export CLHGEMM_SHIPPED_TUNING_DIR=/tmp/$c; fi
  timeout 60 $B --precision both --sizes none --shapes $S --reps 20 --warmup 3 --no-clblast --no-cublas > $O/small-$c-$r.log 2>&1
  echo "$c: $(grep -E '^[0-9]+x' $O/small-$c-$r.log | awk '{printf "%s%s %6.0f  ", $1, $2, $4}')"
done; done
unset CLHGEMM_SHIPPED_TUNING_DIR
timeout 300 $B --shapes sweep --precision both --reps 3 --warmup 1 --csv $O/sweep.csv --png $O/sweep.png > $O/sweep.log 2>&1
grep -E 'geomean|lowest' $O/sweep.log | head -12
timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 > $O/trsm.log 2>&1
grep -A4 "== summary" $O/trsm.log | grep -E '^trsm'
cd $O && tar czf logs.tgz *.log && rm -f small-*.log
echo "total $(( $(date +%s) - t0 )) s"
