set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$?"
cd build-wt
( export CLHGEMM_ROUTE=device CLHGEMM_CPU_SHARE=off CLHGEMM_TILE=512,1024,128,stream CLHGEMM_C_CHUNK=1 CLHGEMM_FINAL_PIECES=4 CLHGEMM_VERBOSE=2
  timeout 200 ./tests/test_host split > $OUT/split-gpu.log 2>&1; echo "test_host split (stream, 4 pieces forced) rc=$?" )
echo "splits: $(grep -c 'last k slice in' $OUT/split-gpu.log)"; grep -v "^clhgemm" $OUT/split-gpu.log | tail -1
timeout 300 ctest -R "^test_host_level3_(s|d)$|^test_internal$|^test_host_stream|^test_host_(s|d)_col$" -j4 --timeout 200 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*" $OUT/ctest.log | tail -5
