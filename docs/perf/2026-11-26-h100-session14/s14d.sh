set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; el "build rc=$?"; }
cmake --build build-wt -j16 > $OUT/build2.log 2>&1; el "build2 rc=$?"
OUT=$OUT/rec SWEEP_REPS=5 SWEEP_TIMEOUT=500 bash bench/gpu_record.sh sweep > $OUT/rec.log 2>&1; el "sweep rc=$?"
grep -vE "^clhgemm:" $OUT/rec/sweep/sweep.log | sed -n 2,60p | cut -c1-150
