#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
B=build-wt/bench/clhgemm-bench-gemm
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
cmake --build build-wt -j16 --target clhgemm-bench-gemm >> $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
(cd build-wt && timeout 200 ctest -R "test_shapes_s|test_gemm_s|test_gemm_gpu|test_params|test_internal" -j4 > $O/nv.log 2>&1)
grep -E "tests passed|Failed|\*\*\*" $O/nv.log | head
echo "tests $(( $(date +%s) - t0 )) s"
for r in 1 2; do
timeout 150 $B --shapes sweep --precision s --reps 3 --warmup 1 --csv $O/sweep-s-$r.csv > $O/sweep-s-$r.log 2>&1
echo "sweep s $r: $(grep -E 'geomean ours/' $O/sweep-s-$r.log | awk '{printf "%s %s  ", $2, $4}')"
grep -E '^(256|512|1000|1024)x' $O/sweep-s-$r.log | awk '{printf "%s %s %s %s | ", $1, $4, $6, $7}'; echo
done
echo "total $(( $(date +%s) - t0 )) s"
