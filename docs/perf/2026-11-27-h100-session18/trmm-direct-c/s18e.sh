# s18e.sh -- session 18: C written by the kernel for SYMM and TRMM (the TRSM leaves) against the
# committed tree (ab-old, HEAD), device buffers n = 8192, alternated; then the new tree with
# CLBlast and cuBLAS beside it; then the level-3/TRSM tests on the GPU (the new KLIMIT variant).
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/e-build-wt.log 2>&1 &
SRC=.scratch/ab-old BUILD_DIR=build-old OUT=/tmp/gro bash bench/gpu_record.sh build > /tmp/e-build-old.log 2>&1 &
wait
el built
sm() { grep -E '^(trsm|trmm|symm) +[sd] ' $1 | awk '{printf "%s%s %s %s|", $1, $2, $4, $8}'; }
for r in 1 2; do for t in old wt; do
  timeout 120 build-$t/bench/clhgemm-bench-level3 --routines symm,trmm,trsm --sizes 8192 --precision both --reps 5 --no-clblast $( [ $t = wt ] && echo --no-cublas ) > /tmp/e-$t-$r.log 2>&1
  el "$t $r rc=$? $(sm /tmp/e-$t-$r.log)"
done; done
timeout 150 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 4096,8192 --precision both --reps 5 > /tmp/e-wt-ref.log 2>&1
el "wt ref rc=$?"; sed -n '/^routine/,$p' /tmp/e-wt-ref.log
(cd build-wt && timeout 250 ctest -j4 -R "test_level3|test_trsm_cl|test_trmm|test_trsm_host_[sd]$" > /tmp/e-ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|Not Run" /tmp/e-ctest.log | head
tar -C /tmp -czf $OUT/s18e.tgz $(cd /tmp && ls e-*.log)
el done
