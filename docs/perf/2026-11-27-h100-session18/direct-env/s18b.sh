# s18b.sh -- session 18: device TRSM n = 8192 with the GEMM core's operands read in place
# (CLHGEMM_DIRECT) against the automatic choice, alternated; clprof of DTRSM with DIRECT=on.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/b-build.log 2>&1; echo "build rc=$?"
cmake --build build-wt --target clprof -j16 > /tmp/clprof-build.log 2>&1; echo "clprof rc=$?"
el built
sm() { grep -E '^trsm +[sd] ' $1 | awk '{printf "%s %s gemm %s %s %s|", $2, $4, $7, $8, $NF}'; }
i=0
for d in auto on a,c b,c auto on a,c b,c; do
  i=$((i+1))
  CLHGEMM_DIRECT=$d timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/b-dev-$i-$d.log 2>&1
  el "dev direct=$d rc=$? $(sm /tmp/b-dev-$i-$d.log)"
done
for d in auto on; do
  LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_FROM=0 CLPROF_OUT=/tmp/b-prof-$d.txt CLHGEMM_DIRECT=$d timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision d --reps 5 --no-clblast > /tmp/b-prof-$d.log 2>&1
  el "prof direct=$d rc=$?"; head -24 /tmp/b-prof-$d.txt | cut -c1-110
done
tar -C /tmp -czf $OUT/s18b.tgz $(cd /tmp && ls b-*.log b-*.txt)
el done
