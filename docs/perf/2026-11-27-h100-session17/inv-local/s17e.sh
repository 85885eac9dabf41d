# s17e.sh -- session 17: the blocked inversion with the tile's inverse in local memory and the
# loops over a tile unrolled (two barriers a tile): device TRSM n = 8192 both precisions,
# blocked against CLHGEMM_TRSM_INV=column in one build, alternated, three rounds; clprof's kernel
# times; host TRSM n = 16384 with cublasXt beside it; the TRSM tests on the GPU.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/newrec bash bench/gpu_record.sh build > /tmp/newbuild.log 2>&1; echo "build rc=$?"
cmake --build build-wt --target clprof -j16 > /dev/null 2>&1
el built
dev() { # label mode
  timeout 90 env CLHGEMM_TRSM_INV=$2 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 > /tmp/f-$1.log 2>&1
  el "dev $1 rc=$? $(grep -E '^trsm +[sd] ' /tmp/f-$1.log | awk '{printf "%s %s gemm %s %s clblast %s %s|", $2, $4, $7, $8, $5, $NF}')"
}
for r in 1 2 3; do dev col-$r column; dev blk-$r blocked; done
LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_FROM=0 CLPROF_OUT=/tmp/f-prof.txt timeout 90 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/f-prof.log 2>&1
el "prof rc=$? $(grep -i 'invert' /tmp/f-prof.txt | awk '{printf "%s|", $0}' | cut -c1-600)"
timeout 300 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 > /tmp/f-hostxt.log 2>&1
el "host+xt rc=$? $(grep -E '^trsm +[sd] ' /tmp/f-hostxt.log | awk '{printf "%s %s gemm %s %s xt %s %s|", $2, $4, $7, $8, $(NF-3), $(NF-2)}')"
(cd build-wt && timeout 200 ctest -R 'test_trsm_(host|cl)_[sd](_strips|_nb100|_invcolumn|_big|_strips_unstaged|_strips_chunks)?$' -j4 --output-on-failure > /tmp/f-ctest.log 2>&1; echo "ctest rc=$?"; grep -E 'tests passed|Failed|\*\*\*' /tmp/f-ctest.log | head)
tar -C /tmp -czf $OUT/s17e.tgz $(cd /tmp && ls f-*.log f-*.txt) newbuild.log
el done
