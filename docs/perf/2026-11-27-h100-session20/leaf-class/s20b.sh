# s20b.sh -- session 20, lease 2: TRMM's class chosen by its tiles' k ranges (working tree)
# against HEAD: the TRSM leaves' kernel time per class (clprof traces; CLHGEMM_SHAPE_CLASS forced
# on HEAD for the others), then TRMM and TRSM whole calls, HEAD and the tree alternated.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/b
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/b-build-wt.log 2>&1; el "build wt rc=$?"
SRC=.scratch/ab-head BUILD_DIR=build-head OUT=/tmp/gr2 bash bench/gpu_record.sh build > /tmp/b-build-head.log 2>&1; el "build head rc=$?"
for t in wt head; do cmake --build build-$t --target clprof -j16 > /dev/null 2>&1; done
tr() { # tree name env...
  local t=$1 n=$2; shift 2
  for p in s d; do
    env "$@" LD_PRELOAD=build-$t/bench/libclprof.so CLPROF_OUT=/tmp/b-prof-$n-$p.txt CLPROF_TRACE=/tmp/b-trace-$n-$p.txt timeout 100 build-$t/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision $p --reps 4 --no-clblast --no-cublas > /tmp/b-tr-$n-$p.log 2>&1
    echo "$n $p rc=$? $(grep -E '^trsm +[sd] ' /tmp/b-tr-$n-$p.log | awk '{print $4, $7}') $(python3 .scratch/leaf.py /tmp/b-trace-$n-$p.txt | cut -d: -f2)"
  done
}
tr head head X=1
tr wt wt X=1
tr head small CLHGEMM_SHAPE_CLASS=small
tr head medium CLHGEMM_SHAPE_CLASS=medium
tr head rank_k CLHGEMM_SHAPE_CLASS=rank_k
el traces
for r in 1 2; do for t in head wt; do
  timeout 100 build-$t/bench/clhgemm-bench-level3 --routines trmm,trsm --sizes 1024,2048,4096,8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/b-l3-$t-$r.log 2>&1
  el "$t $r rc=$? $(sed -n '/^routine/,$p' /tmp/b-l3-$t-$r.log | awk 'NR>1{printf "%s%s%s %d|", $1, $2, $3, $4}')"
done; done
tar -C /tmp -czf $OUT/b/s20b.tgz $(cd /tmp && ls b-*.log b-prof-*.txt)
el done
