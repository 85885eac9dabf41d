# s18a.sh -- session 18: leaves of 1024 / 2048 with their inverses composed from blocks of 512
# (CLHGEMM_TRSM_NB), device TRSM n = 8192 and host TRSM n = 16384; clprof of DTRSM at 512 and 2048.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/a-build.log 2>&1; echo "build rc=$?"
cmake --build build-wt --target clprof -j16 > /tmp/clprof-build.log 2>&1; echo "clprof rc=$?"
el built
sm() { grep -E '^trsm +[sd] ' $1 | awk '{printf "%s %s gemm %s %s %s|", $2, $4, $7, $8, $NF}'; }
for nb in 512 1024 2048 2048 1024 512; do
  CLHGEMM_TRSM_NB=$nb timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/a-dev-$nb-$RANDOM.log 2>&1
  el "dev nb=$nb rc=$? $(sm $(ls -t /tmp/a-dev-$nb-*.log | head -1))"
done
for nb in 512 2048; do
  LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_FROM=0 CLPROF_OUT=/tmp/a-prof-$nb.txt CLHGEMM_TRSM_NB=$nb timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision d --reps 5 --no-clblast > /tmp/a-prof-$nb.log 2>&1
  el "prof nb=$nb rc=$?"; head -30 /tmp/a-prof-$nb.txt | cut -c1-110
done
for nb in 512 2048 1024; do
  CLHGEMM_TRSM_NB=$nb timeout 150 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 --no-xt > /tmp/a-host-$nb.log 2>&1
  el "host nb=$nb rc=$? $(sm /tmp/a-host-$nb.log)"
done
tar -C /tmp -czf $OUT/s18a.tgz $(cd /tmp && ls a-*.log a-*.txt)
el done
