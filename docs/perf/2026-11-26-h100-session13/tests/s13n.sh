set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
cd build-wt
timeout 400 ctest -R "^test_host_level3_(s|d)$|^test_host_level3_args$|^test_internal$|^test_host_stream|^test_host_d_col|^test_host_s_col" -j4 --timeout 300 --output-on-failure > $OUT/ctest-final.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Test +#" $OUT/ctest-final.log | tail -20
echo "elapsed $(( $(date +%s)-T0 ))s"
