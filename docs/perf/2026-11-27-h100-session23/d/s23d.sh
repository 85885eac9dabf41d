set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/d
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=$OUT/d/rec bash bench/gpu_record.sh build > $OUT/d/build.log 2>&1; el "build rc=$?"; }
OUT=$OUT/d/rec NUMPY_BUDGET=2 NUMPY_ROUNDS=2 bash bench/gpu_record.sh blasnumpy > $OUT/d/rec.log 2>&1; el "blasnumpy rc=$?"
(cd $OUT && tar czf d.tgz d)
tail -24 $OUT/d/rec/blasnumpy/rounds.txt
grep -h 'matmul float32 256\|matmul float64 8192' $OUT/d/rec/blasnumpy/*.txt
if [ $(( $(date +%s)-T0 )) -lt 330 ]; then
  OUT=$OUT/d2 SWEEP_REPS=5 SWEEP_TIMEOUT=240 bash bench/gpu_record.sh sweep > $OUT/d-sweep.log 2>&1; el "sweep rc=$?"
  (cd $OUT && tar czf d2.tgz d2 d-sweep.log && rm -rf d2 d-sweep.log)
  tar xzf $OUT/d2.tgz -O d2/sweep/sweep.log | grep -vE "^clhgemm:" | sed -n 2,60p | awk '$3>=512' | cut -c1-150
fi
rm -rf $OUT/d
el done
