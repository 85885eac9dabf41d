# s16c.sh -- session 16: host TRSM n = 16384 with the strips' chunked copies (working tree)
# against cf07518 (whole pieces), alternated, two rounds; then the new one with cublasXt.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
(SRC=. BUILD_DIR=build-wt OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "new build rc=$?") &
(SRC=.scratch/ab-cf07518 BUILD_DIR=build-old OUT=/tmp/oldrec bash bench/gpu_record.sh build > /tmp/oldbuild.log 2>&1; echo "old build rc=$?") &
wait; el built
run() { # label bindir extra...
  lab=$1; bd=$2; shift 2
  timeout 200 $bd/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 "$@" > /tmp/t-$lab.log 2>&1
  el "$lab rc=$? $(grep -E '^trsm +[sd] ' /tmp/t-$lab.log | awk '{printf "%s %s gemm %s %s xt %s|", $2, $4, $7, $8, $5}')"
}
for r in 1 2; do
  if [ $r = 1 ]; then run old-$r build-old --no-xt; run new-$r build-wt --no-xt; else run new-$r build-wt --no-xt; run old-$r build-old --no-xt; fi
done
run newxt build-wt
grep -E "^trsm|check|FAIL" /tmp/t-newxt.log | head
tar -C /tmp -czf $OUT/tlogs.tgz $(cd /tmp && ls t-*.log)
el done
