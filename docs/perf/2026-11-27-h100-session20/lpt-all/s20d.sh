# s20d.sh -- session 20, lease 4: an experiment:
# TRMM tiles launched longest k range first in FP32 too, and TRMM's class by the greedy fill of
# its tiles' k ranges (working tree) against HEAD: leaf times (clprof), TRMM / TRSM whole calls.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/d
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/d-build-wt.log 2>&1; el "build wt rc=$?"
SRC=.scratch/ab-head BUILD_DIR=build-head OUT=/tmp/gr2 bash bench/gpu_record.sh build > /tmp/d-build-head.log 2>&1; el "build head rc=$?"
for t in wt head; do cmake --build build-$t --target clprof -j16 > /dev/null 2>&1; done
tr() { # tree name env...
  local t=$1 n=$2; shift 2
  for p in s d; do
    env "$@" LD_PRELOAD=build-$t/bench/libclprof.so CLPROF_OUT=/tmp/d-prof-$n-$p.txt CLPROF_TRACE=/tmp/d-trace-$n-$p.txt timeout 100 build-$t/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision $p --reps 4 --no-clblast --no-cublas > /tmp/d-tr-$n-$p.log 2>&1
    echo "$n $p rc=$? $(grep -E '^trsm +[sd] ' /tmp/d-tr-$n-$p.log | awk '{print $4, $7}') $(python3 .scratch/leaf.py /tmp/d-trace-$n-$p.txt | cut -d: -f2)"
  done
}
tr head head X=1
tr wt wt X=1
el traces
for r in 1 2; do for t in head wt; do
  timeout 100 build-$t/bench/clhgemm-bench-level3 --routines trmm,trsm --sizes 1024,2048,4096,8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/d-l3-$t-$r.log 2>&1
  el "$t $r rc=$? $(sed -n '/^routine/,$p' /tmp/d-l3-$t-$r.log | awk 'NR>1{printf "%s%s%s %d|", $1, $2, $3, $4}')"
done; done
tar -C /tmp -czf $OUT/d/s20d.tgz $(cd /tmp && ls d-*.log d-prof-*.txt)
el done
