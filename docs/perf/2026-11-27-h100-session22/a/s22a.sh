# s22a.sh -- session 22, lease 1: DTRSM/STRSM n = 8192 with the right-hand sides split over two queues
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/a
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/a-build.log 2>&1; el "build rc=$?"
B=build-wt/bench/clhgemm-bench-level3
sum() { sed -n '/^routine/,$p' $1 | awk 'NR>1{printf "%s%s %d %d %s|", $1, $2, $4, $7, $8}'; }
for r in 1 2; do
  for cfg in 1:50 2:50 2:40 1:50; do
    st=${cfg%%:*}; pc=${cfg#*:}
    CLHGEMM_TRSM_STREAMS=$st CLHGEMM_TRSM_SPLIT_PCT=$pc timeout 60 $B --routines trsm --sizes 8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/a-t-$st-$pc-$r.log 2>&1
    el "streams $st pct $pc r$r rc=$? $(sum /tmp/a-t-$st-$pc-$r.log)"
  done
done
CLHGEMM_TRSM_STREAMS=2 timeout 60 $B --routines trsm --sizes 4096 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/a-t4k-2.log 2>&1; el "4096 s2 $(sum /tmp/a-t4k-2.log)"
CLHGEMM_TRSM_STREAMS=1 timeout 60 $B --routines trsm --sizes 4096 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/a-t4k-1.log 2>&1; el "4096 s1 $(sum /tmp/a-t4k-1.log)"
tar -C /tmp -czf $OUT/a/s22a.tgz $(cd /tmp && ls a-*.log)
el done
