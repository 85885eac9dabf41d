set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/b
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=$OUT/b/rec bash bench/gpu_record.sh build > $OUT/b/build.log 2>&1; el "build rc=$?"; }
OUT=$OUT/b/rec NUMPY_BUDGET=2 NUMPY_ROUNDS=2 bash bench/gpu_record.sh blasnumpy > $OUT/b/rec.log 2>&1; el "blasnumpy rc=$?"
timeout 150 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 > $OUT/b/trsm-dev.log 2>&1; el "trsm dev rc=$?"
if [ $(( $(date +%s)-T0 )) -lt 380 ]; then
  timeout 180 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 > $OUT/b/trsm-host.log 2>&1; el "trsm host rc=$?"
fi
(cd $OUT && tar czf b.tgz b)
tail -45 $OUT/b/rec/blasnumpy/summary.txt 2>/dev/null || tail -30 $OUT/b/rec.log
grep -vE "^clhgemm:" $OUT/b/trsm-dev.log | tail -10 | cut -c1-200
grep -vE "^clhgemm:" $OUT/b/trsm-host.log 2>/dev/null | tail -8 | cut -c1-200
rm -rf $OUT/b
el done
