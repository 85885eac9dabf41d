# s19a.sh -- session 19, lease 1: the final tree of session 18 on the GPU: the level-3 / TRSM /
# reference-BLAS tests (the FP64 tile order of aa66140 has not run under them), device TRSM
# 4096 / 8192 with CLBlast and cuBLAS, SGEMM NT by default vs direct off (a known weak spot).
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/a
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr CMAKE_ARGS="-DCLHGEMM_BLAS_REFERENCE_DIR=/tmp/gpuenv/usr/lib/x86_64-linux-gnu/blas" bash bench/gpu_record.sh build > $OUT/a/build.log 2>&1; echo "build rc=$?"
el built
(cd build-wt && timeout 300 ctest -j4 --timeout 200 -R "test_level3|test_trsm|test_trmm|blas_ref_x|test_soak" > $OUT/a/ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|Not Run|Timeout" $OUT/a/ctest.log | head
timeout 150 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 1024,4096,8192 --precision both --reps 5 > $OUT/a/dev-1.log 2>&1
el "dev rc=$?"; sed -n '/^routine/,$p' $OUT/a/dev-1.log | cut -c1-200
for v in auto off; do
  CLHGEMM_DIRECT=$v timeout 60 build-wt/bench/clhgemm-bench-gemm --precision s --sizes 8192 --trans NT --reps 10 --no-cublas > $OUT/a/nt-$v.log 2>&1
  el "nt $v rc=$? $(grep -E '^ *8192x' $OUT/a/nt-$v.log)"
done
el done
