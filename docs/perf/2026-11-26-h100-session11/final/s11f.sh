#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
B=build-wt/bench/clhgemm-bench-gemm
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
cmake --build build-wt -j16 --target clhgemm-bench-gemm clhgemm-bench-level3 clhgemm-tune >> $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
(cd build-wt && timeout 240 ctest -R "test_shapes|test_gemm_mma|test_mma|test_trsm_cl|tune_run_occ" -j4 > $O/nv.log 2>&1; grep -h "tail split)" Testing/Temporary/LastTest.log | head -4; cp Testing/Temporary/LastTest.log $O/shapes-last.log; timeout 150 ctest -L nvidia -j4 >> $O/nv.log 2>&1)
grep -E "tests passed|Failed|\*\*\*" $O/nv.log | head
echo "tests $(( $(date +%s) - t0 )) s"
for r in 1 2; do
timeout 200 $B --shapes sweep --precision both --reps 3 --warmup 1 --csv $O/sweep-$r.csv > $O/sweep-$r.log 2>&1
echo "sweep $r: $(grep -E 'geomean ours/cuBLAS +[sd] ' $O/sweep-$r.log | awk '{printf "%s %s  ", $3, $4}')"
done
timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 > $O/trsm.log 2>&1
grep -A4 "== summary" $O/trsm.log | grep -E '^trsm'
cd $O && tar czf logs.tgz *.log *.csv 2>/dev/null
echo "total $(( $(date +%s) - t0 )) s"
