set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
CMAKE_ARGS="-DCLHGEMM_BLAS_REFERENCE_DIR=/tmp/gpuenv/usr/lib/x86_64-linux-gnu/blas" OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
cd build-wt
( export CLHGEMM_ROUTE=device CLHGEMM_CPU_SHARE=off CLHGEMM_TILE=512,1024,128,stream CLHGEMM_C_CHUNK=1 CLHGEMM_FINAL_PIECES=4 CLHGEMM_VERBOSE=2
  timeout 200 ./tests/test_host split > $OUT/split-gpu.log 2>&1; echo "test_host split (stream, 4 pieces forced) rc=$?" )
grep -c "last k slice in" $OUT/split-gpu.log; grep -v "^clhgemm" $OUT/split-gpu.log | tail -3
timeout 420 ctest -R "blas_ref_x|test_internal|test_host_stream" -j4 --timeout 240 --output-on-failure > $OUT/ctest-gpu.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Test +#" $OUT/ctest-gpu.log | tail -40
echo "elapsed $(( $(date +%s)-T0 ))s"
