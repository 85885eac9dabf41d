# s18d.sh -- session 18: the leaf-compose patch (GEMM-composed inverses) traced at nb = 1024 and
# 2048, DTRSM and STRSM n = 8192: the leaves' and the composition's own times.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/d-build.log 2>&1; echo "build rc=$?"
cmake --build build-wt --target clprof -j16 > /tmp/clprof-build.log 2>&1; echo "clprof rc=$?"
el built
for nb in 1024 2048; do for p in d s; do
  CLHGEMM_TRSM_NB=$nb LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_FROM=400 CLPROF_OUT=/tmp/d-prof-$p$nb.txt CLPROF_TRACE=/tmp/d-trace-$p$nb.txt timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision $p --reps 3 --warmup 1 --no-clblast > /tmp/d-prof-$p$nb.log 2>&1
  el "prof $p $nb rc=$? $(grep -E '^trsm +[sd] ' /tmp/d-prof-$p$nb.log)"
  head -14 /tmp/d-prof-$p$nb.txt | cut -c9-110
done; done
tar -C /tmp -czf $OUT/s18d.tgz $(cd /tmp && ls d-*.log d-*.txt)
el done
