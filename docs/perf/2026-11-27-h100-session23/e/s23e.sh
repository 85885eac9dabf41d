set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/e
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=$OUT/e/rec bash bench/gpu_record.sh build > $OUT/e/build.log 2>&1; el "build rc=$?"; }
cmake --build build-wt -j16 --target clhgemm_blas > $OUT/e/bl.log 2>&1; el "blas rc=$?"
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
OURS="$PWD/build-wt/blas:$L/lapack:$L/openblas-pthread:${LD_LIBRARY_PATH:-}"
for mode in never always auto; do
  echo "== $mode"
  env LD_LIBRARY_PATH=$OURS CLHGEMM_BLAS_OFFLOAD=$mode CLHGEMM_BLAS_STATS=1 CLHGEMM_VERBOSE=$([ $mode = auto ] && echo 1 || echo 0) timeout 120 python3-debian .scratch/route.py > $OUT/e/$mode.txt 2> $OUT/e/$mode.err
  echo rc=$?; cat $OUT/e/$mode.txt; grep -E 'rates|clhgemm-blas:' $OUT/e/$mode.err | cut -c1-200 | head -8
  el $mode
done
grep -E '^clhgemm: route [ds]gemm' $OUT/e/auto.err | sort | uniq -c | sort -rn | head -40 | cut -c1-200
(cd $OUT && tar czf e.tgz e && rm -rf e)
el done
