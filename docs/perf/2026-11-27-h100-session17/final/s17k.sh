# s17k.sh -- session 17, committed tree (3c406d6): device TRSM n = 8192 both precisions, five
# processes of --reps 10 with CLBlast's TRSM beside it: the spread of STRSM's share of GEMM.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/p-build.log 2>&1; echo "build rc=$?"
el built
for r in 1 2 3 4 5; do
  timeout 90 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 10 > /tmp/p-dev-$r.log 2>&1
  el "dev $r rc=$? $(grep -E '^trsm +[sd] ' /tmp/p-dev-$r.log | awk '{printf "%s %s gemm %s %s clblast %s x%s %s|", $2, $4, $7, $8, $5, $6, $NF}')"
done
tar -C /tmp -czf $OUT/s17k.tgz $(cd /tmp && ls p-dev-*.log)
el done
