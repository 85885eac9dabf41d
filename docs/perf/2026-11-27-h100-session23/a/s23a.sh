set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/a
OUT=$OUT/a/rec bash bench/gpu_record.sh build > $OUT/a/build.log 2>&1; el "build rc=$?"
OUT=$OUT/a/rec SWEEP_REPS=5 SWEEP_TIMEOUT=520 bash bench/gpu_record.sh sweep > $OUT/a/rec.log 2>&1; el "sweep rc=$?"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv > $OUT/a/gpu.txt 2>&1
(cd $OUT && tar czf a.tgz a && rm -rf a)
tar xzf $OUT/a.tgz -O a/rec/sweep/sweep.log 2>/dev/null | grep -vE "^clhgemm:" | sed -n 1,60p | cut -c1-150
el done
