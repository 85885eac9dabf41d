# s17c.sh -- session 17: s17b's device part again after the panel's local-memory check was
# relaxed (s17b ran the substitution by columns in both modes: FP64 nb = 512's panel needs 34 KB,
# the check allowed half of 48).
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/newrec bash bench/gpu_record.sh build > /tmp/newbuild.log 2>&1; echo "build rc=$?"
cmake --build build-wt --target clprof -j16 > /tmp/clprof-build.log 2>&1; echo "clprof rc=$?"
el built
dev() { # label mode
  timeout 90 env CLHGEMM_TRSM_INV=$2 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/d-$1.log 2>&1
  el "dev $1 rc=$? $(grep -E '^trsm +[sd] ' /tmp/d-$1.log | awk '{printf "%s %s gemm %s %s %s|", $2, $4, $7, $8, $NF}')"
}
dev col-1 column; dev blk-1 blocked; dev blk-2 blocked; dev col-2 column; dev blk-3 blocked
for m in column blocked; do
  LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_FROM=0 CLPROF_OUT=/tmp/p-$m.txt timeout 90 env CLHGEMM_TRSM_INV=$m build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/p-$m.log 2>&1
  el "prof $m rc=$? $(grep -i 'invert' /tmp/p-$m.txt | awk '{printf "%s|", $0}' | cut -c1-600)"
done
(cd build-wt && timeout 200 ctest -R 'test_trsm_(host|cl)_[sd](_strips|_nb100|_invcolumn|_big)?$' -j4 --output-on-failure > /tmp/d-ctest.log 2>&1; echo "ctest rc=$?"; grep -E 'tests passed|Failed|\*\*\*' /tmp/d-ctest.log | head)
tar -C /tmp -czf $OUT/s17c.tgz $(cd /tmp && ls d-*.log p-*.txt p-*.log) newbuild.log
el done
