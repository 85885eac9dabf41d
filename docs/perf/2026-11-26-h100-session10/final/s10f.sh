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
for r in 1 2; do
timeout 250 $B --shapes sweep --precision both --reps 3 --warmup 1 --csv $O/sweep-$r.csv > $O/sweep-$r.log 2>&1
echo "sweep $r: $(grep -E 'geomean ours/cuBLAS +[sd] ' $O/sweep-$r.log | awk '{printf "%s %s  ", $3, $4}')"
done
timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 > $O/trsm.log 2>&1
grep -A4 "== summary" $O/trsm.log | grep -E '^trsm'
cd $O && tar czf logs.tgz *.log *.csv && rm -f sweep-*.log sweep-*.csv
echo "total $(( $(date +%s) - t0 )) s"
