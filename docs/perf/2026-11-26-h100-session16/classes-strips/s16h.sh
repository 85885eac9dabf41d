# s16h.sh -- session 16: rank_k's reach over medium outputs of m*n >= 2^22 (FP64, C read):
# (1) medium against rank_k forced on such shapes (beta 0.5); (2) DTRSM n = 8192 on device
# buffers, ec4c49b against the working tree, alternated, two rounds.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
(SRC=. BUILD_DIR=build-wt OUT=/tmp/newrec bash bench/gpu_record.sh build > /tmp/newbuild.log 2>&1; echo "new build rc=$?") &
(SRC=.scratch/ab-ec4c49b BUILD_DIR=build-old OUT=/tmp/oldrec bash bench/gpu_record.sh build > /tmp/oldbuild.log 2>&1; echo "old build rc=$?") &
wait; el built
SH=4096x4096x512,2048x8192x512,2048x2048x512,4096x4096x768,1024x4096x768,512x8192x768,1024x8192x512,2048x2048x384,512x8192x512
for cls in medium rank_k; do
  env CLHGEMM_SHAPE_CLASS=$cls timeout 60 build-wt/bench/clhgemm-bench-gemm --precision d --sizes none --shapes $SH --reps 10 --warmup 2 --no-clblast > /tmp/h-$cls.log 2>&1
  el "$cls rc=$? $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+ +d ' /tmp/h-$cls.log | awk '{printf "%s %s %s|", $1, $4, $8}')"
done
for r in 1 2; do
  for side in old new; do
    bd=build-wt; [ $side = old ] && bd=build-old
    timeout 60 $bd/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision d --reps 5 --no-clblast > /tmp/h-trsm-$side-$r.log 2>&1
    el "trsm $side $r rc=$? $(grep -E '^trsm +d ' /tmp/h-trsm-$side-$r.log | awk '{printf "%s gemm %s %s %s", $4, $7, $8, $NF}')"
  done
done
tar -C /tmp -czf $OUT/hlogs.tgz $(cd /tmp && ls h-*.log)
el done
