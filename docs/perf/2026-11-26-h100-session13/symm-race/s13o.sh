set -u
export JOBS=16
T0=$(date +%s)
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
mkdir -p /tmp/base && cp -r CMakeLists.txt cmake src cl include tuning tests bench tools examples docs README.md /tmp/base/ && cp .scratch/tile-base.c /tmp/base/src/host/tile.c
SRC=/tmp/base BUILD_DIR=build-base OUT=/tmp/grb bash bench/gpu_record.sh build > $OUT/build-base.log 2>&1; echo "build base rc=$? $(( $(date +%s)-T0 ))s"
for r in 1 2; do for v in base wt; do
  timeout 150 build-$v/bench/clhgemm-bench-level3 --host --routines symm --sizes 8192 --precision both --reps 3 --warmup 1 --no-xt > $OUT/symm-$v-$r.log 2>&1
  grep -E "^symm " $OUT/symm-$v-$r.log | awk -v t="$v-$r" '{print t, $0}'
done; done
echo "elapsed $(( $(date +%s)-T0 ))s"
