#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
B=build-wt/bench/clhgemm-bench-gemm
W=64x8192x8192,64x16384x8192,32x16384x8192,256x16384x16384,256x8192x4096,128x8192x8192
bld() { cp .scratch/gemm-$1.cl cl/gemm.cl; cmake --build build-wt -j16 --target clhgemm-bench-gemm >> $O/build.log 2>&1 || echo "build $1 failed"; }
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
(cd build-wt && timeout 200 ctest -R "test_shapes_s|test_gemm_s" -j4 > $O/nv.log 2>&1)
grep -E "tests passed|Failed|\*\*\*" $O/nv.log | head
for r in 1 2; do for v in new head; do
  bld $v
  timeout 100 $B --precision s --sizes none --shapes $W --reps 10 --warmup 2 --no-clblast --no-cublas > $O/w-$v-$r.log 2>&1
  printf "%-5s %s\n" $v "$(grep -E '^[0-9]+x' $O/w-$v-$r.log | awk '{printf "%6.0f(%s) ", $4/10, $3}')"
done; done
bld new
timeout 250 $B --shapes sweep --precision s --reps 3 --warmup 1 --csv $O/sweep-s.csv > $O/sweep-s.log 2>&1
grep -E 'geomean' $O/sweep-s.log | head -3
cd $O && tar czf logs.tgz *.log *.csv && rm -f w-*.log
echo "total $(( $(date +%s) - t0 )) s"
