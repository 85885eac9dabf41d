set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; el "build rc=$?"; }
OUT=$OUT/rec NUMPY_BUDGET=2 NUMPY_ROUNDS=2 bash bench/gpu_record.sh blasnumpy > $OUT/rec.log 2>&1; el "blasnumpy rc=$?"
tail -45 $OUT/rec/blasnumpy/summary.txt 2>/dev/null || tail -30 $OUT/rec.log
if [ $(( $(date +%s)-T0 )) -lt 400 ]; then
  timeout 180 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 > $OUT/trsm-host.log 2>&1; echo "trsm rc=$?"
  grep -vE "^clhgemm:" $OUT/trsm-host.log | tail -6
fi
el done
