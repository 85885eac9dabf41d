set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
CMAKE_ARGS="-DCLHGEMM_BLAS_REFERENCE_DIR=/tmp/gpuenv/usr/lib/x86_64-linux-gnu/blas" OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
cd build-wt
timeout 480 ctest -R "blas_ref_x|test_internal|test_tiny|blas_numpy|blas_threads" -j4 --timeout 240 --output-on-failure > $OUT/ctest-gpu.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Test +#" $OUT/ctest-gpu.log | tail -45
echo "elapsed $(( $(date +%s)-T0 ))s"
