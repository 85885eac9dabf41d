set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
cd build-wt
( export CLHGEMM_ROUTE=device CLHGEMM_CPU_SHARE=off CLHGEMM_TILE=512,1024,128,stream CLHGEMM_C_CHUNK=1 CLHGEMM_FINAL_PIECES=4 CLHGEMM_VERBOSE=2
  timeout 200 ./tests/test_host split > $OUT/split-gpu.log 2>&1; echo "test_host split (stream, 4 pieces forced) rc=$?" )
echo "final tiles split: $(grep -c 'last k slice in' $OUT/split-gpu.log)"; grep -v "^clhgemm" $OUT/split-gpu.log | tail -2
timeout 300 ctest -R "test_host_stream|test_host_s_col|test_host_d_col|test_shapes_unit|test_shapes_d_split|test_internal" -j4 --output-on-failure > $OUT/ctest-gpu.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Test +#" $OUT/ctest-gpu.log | tail -12
./bench/clhgemm-bench-gemm --sizes 256,512 --precision d --reps 50 --warmup 5 --shapes none > $OUT/g.log 2>&1; grep -E "^[0-9]+x" $OUT/g.log
echo "elapsed $(( $(date +%s)-T0 ))s"
