# s17i.sh -- session 17, final tree (b68190e): host TRSM n = 16384 both precisions with cublasXt's
# TRSM from the same arrays, two processes.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/m-build.log 2>&1; echo "build rc=$?"
el built
for r in 1 2; do
  timeout 250 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 > /tmp/m-host-$r.log 2>&1
  el "host $r rc=$? $(grep -E '^trsm +[sd] ' /tmp/m-host-$r.log | awk '{printf "%s %s gemm %s %s xt %s x%s %s|", $2, $4, $7, $8, $(NF-3), $(NF-2), $NF}')"
done
tar -C /tmp -czf $OUT/s17i.tgz $(cd /tmp && ls m-host-*.log)
el done
