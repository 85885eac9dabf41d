set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/f
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=$OUT/f/rec bash bench/gpu_record.sh build > $OUT/f/build.log 2>&1; el "build rc=$?"; }
cmake --build build-wt -j16 --target clhgemm_blas > $OUT/f/bl.log 2>&1; el "blas rc=$?"
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
OURS="$PWD/build-wt/blas:$L/lapack:$L/openblas-pthread:${LD_LIBRARY_PATH:-}"
for mode in never always auto; do
  echo "== $mode"
  env LD_LIBRARY_PATH=$OURS CLHGEMM_BLAS_OFFLOAD=$mode CLHGEMM_BLAS_STATS=1 CLHGEMM_VERBOSE=$([ $mode = auto ] && echo 1 || echo 0) timeout 120 python3-debian .scratch/route.py > $OUT/f/$mode.txt 2> $OUT/f/$mode.err
  echo rc=$?; cat $OUT/f/$mode.txt; grep -E 'rates|clhgemm-blas:' $OUT/f/$mode.err | cut -c1-200 | head -8
  el $mode
done
grep -E "^clhgemm: route [ds]gemm" $OUT/f/auto.err | grep -E "x64:|x128:|x256:" | sort | uniq -c | sort -rn | head -24 | cut -c1-200
(cd $OUT && tar czf f.tgz f && rm -rf f)
el done
