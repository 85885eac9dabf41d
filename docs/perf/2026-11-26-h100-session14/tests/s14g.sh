set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"; }
cmake -B build-wt > /dev/null; cmake --build build-wt -j16 > $OUT/build2.log 2>&1; echo "build2 rc=$?"
cd build-wt
timeout 500 ctest -R "test_host|test_trsm_host|blocked_dev|cpushare" -E "soak" -j4 --timeout 300 --output-on-failure > $OUT/ctest-gpu.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Test +#" $OUT/ctest-gpu.log | tail -80
grep -E "^note: a GPU|auto gave no share" $OUT/ctest-gpu.log | sort | uniq -c
echo "elapsed $(( $(date +%s)-T0 ))s"
