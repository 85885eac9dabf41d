set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
T0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
cd build-wt
timeout 330 ctest -R "test_host|test_trsm_host|test_internal|test_params" -LE slow -j4 --timeout 150 --output-on-failure > $OUT/host-tests.log 2>&1
echo "ctest rc=$? $(( $(date +%s)-T0 ))s"
grep -E "tests passed|Failed|\*\*\*|Not Run|Skipped" $OUT/host-tests.log | tail -30
cd ..
ls build-wt/bench | head -30 > $OUT/benchlist.txt
if [ $(( $(date +%s)-T0 )) -lt 420 ]; then
  timeout 120 env OUT=/tmp/gr2 SMALL_SIZES=8,16,32 bash bench/gpu_record.sh smallcall > $OUT/smallcall.log 2>&1; echo "smallcall rc=$?"
  tail -40 $OUT/smallcall.log
fi
