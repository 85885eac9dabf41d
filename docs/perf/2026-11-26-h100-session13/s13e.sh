set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
OUT=$OUT/rec NUMPY_BUDGET=2 NUMPY_ROUNDS=2 bash bench/gpu_record.sh build blasnumpy pack > $OUT/rec.log 2>&1; echo "rc=$? $(( $(date +%s)-T0 ))s"
cat $OUT/rec/summary.txt | tail -50
if [ $(( $(date +%s)-T0 )) -lt 380 ]; then
  timeout 200 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 > $OUT/trsm-host.log 2>&1; echo "trsm rc=$?"
  grep -vE "^clhgemm:" $OUT/trsm-host.log | tail -12
fi
echo "elapsed $(( $(date +%s)-T0 ))s"
