# s18c.sh -- session 18: a clprof timeline (CLPROF_TRACE) of device DTRSM and STRSM n = 8192:
# where the device sits idle inside a call, and the sequence of launches.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/c-build.log 2>&1; echo "build rc=$?"
cmake --build build-wt --target clprof -j16 > /tmp/clprof-build.log 2>&1; echo "clprof rc=$?"
el built
for p in d s; do
  LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_OUT=/tmp/c-prof-$p.txt CLPROF_TRACE=/tmp/c-trace-$p.txt timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision $p --reps 5 --no-clblast > /tmp/c-prof-$p.log 2>&1
  el "prof $p rc=$? $(grep -E '^trsm +[sd] ' /tmp/c-prof-$p.log)"
  python3 .scratch/trace.py /tmp/c-trace-$p.txt > /tmp/c-seg-$p.txt; grep trsm /tmp/c-seg-$p.txt | tail -6
done
python3 .scratch/trace.py /tmp/c-trace-d.txt -v | sed -n '/median/,$p' > /tmp/c-tl-d.txt
python3 .scratch/trace.py /tmp/c-trace-s.txt -v | sed -n '/median/,$p' > /tmp/c-tl-s.txt
tar -C /tmp -czf $OUT/s18c.tgz $(cd /tmp && ls c-*.log c-*.txt)
el done
