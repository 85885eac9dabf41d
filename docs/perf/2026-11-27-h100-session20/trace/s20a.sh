# s20a.sh -- session 20, lease 1: clprof timeline of device DTRSM / STRSM n = 8192 on the current
# tree (where each level's time goes now), and the GEMMs of the recursion's update shapes.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/a
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/a-build.log 2>&1; el "build rc=$?"
cmake --build build-wt --target clprof -j16 > /tmp/clprof-build.log 2>&1; el "clprof rc=$?"
for p in d s; do
  LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_OUT=/tmp/a-prof-$p.txt CLPROF_TRACE=/tmp/a-trace-$p.txt timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision $p --reps 5 --no-clblast > /tmp/a-prof-$p.log 2>&1
  el "prof $p rc=$? $(grep -E '^trsm +[sd] ' /tmp/a-prof-$p.log)"
  python3 .scratch/trace.py /tmp/a-trace-$p.txt -v | sed -n '/median/,$p' > /tmp/a-tl-$p.txt
done
timeout 200 build-wt/bench/clhgemm-bench-gemm --precision both --sizes 8192 --shapes 4096x8192x4096,2048x8192x2048,1024x8192x1024,512x8192x512 --reps 10 > /tmp/a-gemm.log 2>&1; el "gemm rc=$?"
tar -C /tmp -czf $OUT/a/s20a.tgz $(cd /tmp && ls a-*.log a-*.txt)
echo "=== summary"; sed -n '/^shape\|^ *m /,$p' /tmp/a-gemm.log | head -30
for p in d s; do echo "--- $p timeline"; awk '{printf "%s %s %s\n", $1, $2, $6}' /tmp/a-tl-$p.txt | head -70 | paste -sd' ' | fold -w 3000; done
el done
