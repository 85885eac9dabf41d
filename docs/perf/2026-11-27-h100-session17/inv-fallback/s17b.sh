# s17b.sh -- session 17: the blocked inversion of TRSM's diagonal blocks (trsm_invert_tiles +
# trsm_invert_panel) against the substitution by columns (CLHGEMM_TRSM_INV=column), same build:
# device TRSM n = 8192 both precisions alternated, two rounds; clprof's kernel times of each;
# then host TRSM n = 16384 with cublasXt beside it; the TRSM tests on the GPU.
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
dev col-1 column; dev blk-1 blocked; dev blk-2 blocked; dev col-2 column
for m in column blocked; do
  LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_FROM=0 CLPROF_OUT=/tmp/p-$m.txt timeout 90 env CLHGEMM_TRSM_INV=$m build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/p-$m.log 2>&1
  el "prof $m rc=$? $(grep -i 'invert' /tmp/p-$m.txt | awk '{printf "%s|", $0}' | cut -c1-400)"
done
timeout 300 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 > /tmp/h-xt.log 2>&1
el "host+xt rc=$? $(grep -E '^trsm +[sd] ' /tmp/h-xt.log | awk '{printf "%s %s xt %s gemm %s %s|", $2, $4, $5, $7, $8}')"
(cd build-wt && timeout 200 ctest -R 'test_trsm_(host|cl)_[sd](_strips|_strips_chunks|_nb100|_invcolumn|_strips_unstaged)?$' -j4 --output-on-failure > /tmp/d-ctest.log 2>&1; echo "ctest rc=$?"; grep -E 'tests passed|Failed|\*\*\*' /tmp/d-ctest.log | head)
tar -C /tmp -czf $OUT/s17b.tgz $(cd /tmp && ls d-*.log p-*.txt p-*.log h-xt.log) newbuild.log
el done
