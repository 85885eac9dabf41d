set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"; }
B=build-wt
for r in 1 2; do for w in 2048 4096 8192; do
  CLHGEMM_TRSM_STRIP=$w timeout 100 $B/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision d --reps 2 --warmup 1 --no-xt > $OUT/trsm-w$w-$r.log 2>&1
  echo "round $r strip $w: $(grep -E '^trsm' $OUT/trsm-w$w-$r.log | head -2 | awk '{print $2, $4, $7}' | tr '\n' ' ')"
done; done
echo "elapsed $(( $(date +%s)-T0 ))s"
$B/bench/clhgemm-bench-gemm --shapes sweep --precision both --reps 5 --warmup 1 --csv $OUT/shapes.csv > $OUT/shapes.log 2>&1
grep -E "^[0-9]+x|geomean" $OUT/shapes.log
echo "elapsed $(( $(date +%s)-T0 ))s"
