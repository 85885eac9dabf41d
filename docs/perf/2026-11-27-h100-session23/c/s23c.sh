set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/c
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=$OUT/c/rec bash bench/gpu_record.sh build > $OUT/c/build.log 2>&1; el "build rc=$?"; }
cmake --build build-wt -j16 --target clhgemm_blas > $OUT/c/bl.log 2>&1; el "blas rc=$?"
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
OURS="$PWD/build-wt/blas:$L/lapack:$L/openblas-pthread"
run() { local tag=$1; shift; echo "== $tag"; env "$@" timeout 60 python3-debian .scratch/after.py > $OUT/c/$tag.txt 2>&1; echo "rc=$?"; cut -c1-230 $OUT/c/$tag.txt; }
run ours LD_LIBRARY_PATH=$OURS:${LD_LIBRARY_PATH:-}
run openblas LD_LIBRARY_PATH=$L/openblas-pthread:${LD_LIBRARY_PATH:-}
run ours-never LD_LIBRARY_PATH=$OURS:${LD_LIBRARY_PATH:-} CLHGEMM_BLAS_OFFLOAD=never
run ours-nospin LD_LIBRARY_PATH=$OURS:${LD_LIBRARY_PATH:-} CLHGEMM_POOL_SPIN_US=0
run ours-big4096 LD_LIBRARY_PATH=$OURS:${LD_LIBRARY_PATH:-} BIG=4096
(cd $OUT && tar czf c.tgz c && rm -rf c)
el done
