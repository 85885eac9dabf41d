set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
[ -x build-wt/blas/libblas.so.3 ] || { OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$?"; }
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
for r in 1 2 3; do
  env LD_LIBRARY_PATH=$L/openblas-pthread:$LD_LIBRARY_PATH python3-debian .scratch/loop.py openblas-$r
  env LD_LIBRARY_PATH=build-wt/blas:$L/lapack:$L/openblas-pthread:$LD_LIBRARY_PATH python3-debian .scratch/loop.py ours-$r
done 2>&1 | tee $OUT/loop.log
