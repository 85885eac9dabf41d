# s20e.sh -- session 20, lease 5: TRMM's tiles longest k range first on FP32 tiles of 128 x 128
# or more, and an FP32 TRMM's class by the greedy fill of its tiles' k ranges (working tree)
# against HEAD: the GPU's level-3 / TRSM tests, TRMM and TRSM 1024-8192 alternated (two rounds),
# the STRSM leaves (clprof), host STRSM / DTRSM 16384.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/e
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/e-build-wt.log 2>&1; el "build wt rc=$?"
SRC=.scratch/ab-head BUILD_DIR=build-head OUT=/tmp/gr2 bash bench/gpu_record.sh build > /tmp/e-build-head.log 2>&1; el "build head rc=$?"
(cd build-wt && timeout 260 ctest -j4 --timeout 200 -R "test_level3|test_trsm|test_internal" > /tmp/e-ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" /tmp/e-ctest.log | head -12
for r in 1 2; do for t in head wt; do
  timeout 100 build-$t/bench/clhgemm-bench-level3 --routines trmm,trsm --sizes 1024,2048,4096,8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/e-l3-$t-$r.log 2>&1
  el "$t $r rc=$? $(sed -n '/^routine/,$p' /tmp/e-l3-$t-$r.log | awk 'NR>1{printf "%s%s%s %d %s|", $1, $2, $3, $4, $7}')"
done; done
cmake --build build-wt --target clprof -j16 > /dev/null 2>&1
LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_OUT=/tmp/e-prof-s.txt CLPROF_TRACE=/tmp/e-trace-s.txt timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision s --reps 4 --no-clblast --no-cublas > /tmp/e-tr-s.log 2>&1
el "trace s rc=$? $(grep -E '^trsm +s ' /tmp/e-tr-s.log | awk '{print $4, $7}') $(python3 .scratch/leaf.py /tmp/e-trace-s.txt | cut -d: -f2)"
for t in head wt; do
  timeout 120 build-$t/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 --no-cublas > /tmp/e-host-$t.log 2>&1
  el "host $t rc=$? $(sed -n '/^routine/,$p' /tmp/e-host-$t.log | awk 'NR>1{printf "%s%s%s %s %s %s|", $1, $2, $3, $4, $7, $8}')"
done
tar -C /tmp -czf $OUT/e/s20e.tgz $(cd /tmp && ls e-*.log e-prof-*.txt)
el done
