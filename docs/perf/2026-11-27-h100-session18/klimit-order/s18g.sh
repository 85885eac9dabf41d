# s18g.sh -- session 18: TRMM's tiles launched longest k range first (cl/gemm.cl KLIMIT order)
# against the same tree without it (ab-prev), device TRMM / TRSM n = 8192, alternated, and a
# clprof of STRSM / DTRSM's leaves with the new order.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/g-build-wt.log 2>&1 &
SRC=.scratch/ab-prev BUILD_DIR=build-prev OUT=/tmp/grp bash bench/gpu_record.sh build > /tmp/g-build-prev.log 2>&1 &
wait
cmake --build build-wt --target clprof -j16 > /tmp/clprof-build.log 2>&1
el built
sm() { grep -E '^(trsm|trmm) +[sd] ' $1 | awk '{printf "%s%s %s %s|", $1, $2, $4, $8}'; }
for r in 1 2; do for t in prev wt; do
  timeout 120 build-$t/bench/clhgemm-bench-level3 --routines trmm,trsm --sizes 8192 --precision both --reps 5 --no-clblast --no-cublas > /tmp/g-$t-$r.log 2>&1
  el "$t $r rc=$? $(sm /tmp/g-$t-$r.log)"
done; done
for t in prev wt; do
  LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_OUT=/tmp/g-prof-$t.txt timeout 100 build-$t/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast --no-cublas > /tmp/g-prof-$t.log 2>&1
  el "prof $t rc=$? $(sm /tmp/g-prof-$t.log)"; grep -E "global +(32768|44032|65536|176128) " /tmp/g-prof-$t.txt | cut -c9-110
done
tar -C /tmp -czf $OUT/s18g.tgz $(cd /tmp && ls g-*.log g-*.txt)
el done
