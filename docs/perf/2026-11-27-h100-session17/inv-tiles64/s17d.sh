# s17d.sh -- session 17: the blocked inversion with the panels' groups reordered (a block's first
# columns first): working tree, blocked and CLHGEMM_TRSM_INV=column, against tiles of 64
# (.scratch/ab-ts64: the same tree with t = 64 for nb >= 128), device TRSM n = 8192 both
# precisions, alternated, two rounds; clprof of each blocked variant; host TRSM n = 16384 once.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
(SRC=. BUILD_DIR=build-wt OUT=/tmp/newrec bash bench/gpu_record.sh build > /tmp/newbuild.log 2>&1; echo "new build rc=$?"; cmake --build build-wt --target clprof -j8 > /dev/null 2>&1) &
(SRC=.scratch/ab-ts64 BUILD_DIR=build-old OUT=/tmp/oldrec bash bench/gpu_record.sh build > /tmp/oldbuild.log 2>&1; echo "ts64 build rc=$?") &
wait; el built
dev() { # label build mode
  timeout 90 env CLHGEMM_TRSM_INV=$3 $2/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/e-$1.log 2>&1
  el "dev $1 rc=$? $(grep -E '^trsm +[sd] ' /tmp/e-$1.log | awk '{printf "%s %s gemm %s %s %s|", $2, $4, $7, $8, $NF}')"
}
for r in 1 2; do dev col-$r build-wt column; dev blk-$r build-wt blocked; dev ts64-$r build-old blocked; done
for b in build-wt build-old; do
  LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_FROM=0 CLPROF_OUT=/tmp/q-$b.txt timeout 90 $b/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/q-$b.log 2>&1
  el "prof $b rc=$? $(grep -i 'invert' /tmp/q-$b.txt | awk '{printf "%s|", $0}' | cut -c1-600)"
done
timeout 200 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 --no-xt > /tmp/e-host.log 2>&1
el "host rc=$? $(grep -E '^trsm +[sd] ' /tmp/e-host.log | awk '{printf "%s %s gemm %s %s|", $2, $4, $7, $8}')"
tar -C /tmp -czf $OUT/s17d.tgz $(cd /tmp && ls e-*.log q-*.txt q-*.log) newbuild.log
el done
