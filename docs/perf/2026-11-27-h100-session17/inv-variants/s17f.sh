# s17f.sh -- session 17: variants of trsm_invert_panel, device TRSM n = 8192 both precisions:
# v1 the working tree (three barriers a tile, FP32 panels of 16 columns), v2 two barriers a tile
# (the rows beyond tile p updated from the scratch tile), v3 panels of 8 columns in FP32 too;
# alternated, two rounds; clprof of each.
set -u
export JOBS=12
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
(SRC=. BUILD_DIR=build-wt OUT=/tmp/r1 bash bench/gpu_record.sh build > /tmp/b1.log 2>&1; echo "v1 build rc=$?"; cmake --build build-wt --target clprof -j8 > /dev/null 2>&1) &
(SRC=.scratch/ab-v2 BUILD_DIR=build-v2 OUT=/tmp/r2 bash bench/gpu_record.sh build > /tmp/b2.log 2>&1; echo "v2 build rc=$?") &
(SRC=.scratch/ab-v3 BUILD_DIR=build-v3 OUT=/tmp/r3 bash bench/gpu_record.sh build > /tmp/b3.log 2>&1; echo "v3 build rc=$?") &
wait; el built
dev() { # label build
  timeout 90 $2/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/g-$1.log 2>&1
  el "dev $1 rc=$? $(grep -E '^trsm +[sd] ' /tmp/g-$1.log | awk '{printf "%s %s gemm %s %s %s|", $2, $4, $7, $8, $NF}')"
}
for r in 1 2; do dev v1-$r build-wt; dev v2-$r build-v2; dev v3-$r build-v3; done
for v in wt v2 v3; do
  LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_FROM=0 CLPROF_OUT=/tmp/g-prof-$v.txt timeout 90 build-$v/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/g-prof-$v.log 2>&1
  el "prof $v rc=$? $(grep -i 'invert' /tmp/g-prof-$v.txt | awk '{printf "%s %s %s|", $2, $4, $11}')"
done
tar -C /tmp -czf $OUT/s17f.tgz $(cd /tmp && ls g-*.log g-*.txt)
el done
