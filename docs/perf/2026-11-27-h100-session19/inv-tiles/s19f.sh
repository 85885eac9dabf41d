# s19f.sh -- session 19, lease 6: the inversion's diagonal tiles by a work-group each, in local
# memory and registers (working tree) against HEAD: GPU TRSM tests, TRSM 1024-8192 alternated
# (two rounds), clprof of DTRSM / STRSM 1024 and 8192 (the tiles kernel's time).
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/f
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/f/build-new.log 2>&1; el "build new rc=$?"
SRC=.scratch/ab-head BUILD_DIR=build-head OUT=/tmp/gr2 bash bench/gpu_record.sh build > $OUT/f/build-head.log 2>&1; el "build head rc=$?"
(cd build-wt && timeout 120 ctest -j4 --timeout 100 -R "test_trsm_cl|test_trsm_host_d$|test_trsm_host_s$|test_level3_d_trmm" > $OUT/f/ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" $OUT/f/ctest.log | head
for r in 1 2; do for t in head wt; do
  timeout 60 build-$t/bench/clhgemm-bench-level3 --routines trsm --sizes 1024,2048,4096,8192 --precision both --reps 10 --warmup 2 --no-clblast --no-cublas > $OUT/f/t-$t-$r.log 2>&1
  el "$t $r rc=$? $(sed -n '/^routine/,$p' $OUT/f/t-$t-$r.log | awk 'NR>1{printf "%s%s %s %s|", $2, $3, $4, $7}')"
done; done
cmake --build build-wt --target clprof -j16 > /dev/null 2>&1
for t in head wt; do
  [ -f build-$t/bench/libclprof.so ] || cmake --build build-$t --target clprof -j16 > /dev/null 2>&1
  LD_PRELOAD=build-$t/bench/libclprof.so CLPROF_OUT=$OUT/f/prof-$t.txt timeout 60 build-$t/bench/clhgemm-bench-level3 --routines trsm --sizes 1024,8192 --precision both --reps 10 --no-clblast --no-cublas > $OUT/f/prof-$t.log 2>&1
  el "prof $t rc=$?"; grep -E "trsm_invert" $OUT/f/prof-$t.txt | head -4
done
el done
