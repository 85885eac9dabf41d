# s17a.sh -- session 17: the host strips' first solve in two stages (A's first diagonal half,
# then the rest behind the first strip): host TRSM n = 16384, staged (default) against
# CLHGEMM_TRSM_STAGED=0 in the same build, alternated, two rounds; then DTRSM n = 8192 on device
# buffers, ec4c49b (before c70a93b's rank_k reach) against the working tree, alternated; TRSM
# tests on the GPU.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
(SRC=. BUILD_DIR=build-wt OUT=/tmp/newrec bash bench/gpu_record.sh build > /tmp/newbuild.log 2>&1; echo "new build rc=$?"; tail -3 /tmp/newbuild.log) &
(SRC=.scratch/ab-ec4c49b BUILD_DIR=build-old OUT=/tmp/oldrec bash bench/gpu_record.sh build > /tmp/oldbuild.log 2>&1; echo "old build rc=$?") &
wait; el built
run() { # label staged
  timeout 200 env CLHGEMM_TRSM_STAGED=$2 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 --no-xt > /tmp/t-$1.log 2>&1
  el "$1 rc=$? $(grep -E '^trsm +[sd] ' /tmp/t-$1.log | awk '{printf "%s %s gemm %s %s|", $2, $4, $7, $8}')"
}
run off-1 0; run on-1 1; run on-2 1; run off-2 0
for r in 1 2; do
  for side in old new; do
    bd=build-wt; [ $side = old ] && bd=build-old
    timeout 60 $bd/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision d --reps 5 --no-clblast > /tmp/h-trsm-$side-$r.log 2>&1
    el "dev trsm $side $r rc=$? $(grep -E '^trsm +d ' /tmp/h-trsm-$side-$r.log | awk '{printf "%s gemm %s %s %s", $4, $7, $8, $NF}')"
  done
done
(cd build-wt && timeout 200 ctest -R 'test_trsm_(host|cl)_[sd](_strips|_strips_chunks)?$' -j4 --output-on-failure > /tmp/t-ctest.log 2>&1; echo "ctest rc=$?"; grep -E 'tests passed|Failed|\*\*\*' /tmp/t-ctest.log | head)
tar -C /tmp -czf $OUT/s17a.tgz $(cd /tmp && ls t-*.log h-*.log) newbuild.log
el done
