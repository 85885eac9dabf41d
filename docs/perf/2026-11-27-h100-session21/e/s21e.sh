# s21e.sh -- session 21, lease 4: the tensor-core epilogue in groups of 2 instructions (working
# tree) against HEAD 336ca78 (.scratch/ab-head): DGEMM mid shapes and DTRSM/DTRMM 4096/8192, two
# rounds alternated; direct C at k > 4096 (CLHGEMM_DIRECT=c) against auto; the FP64 sweep with
# cuBLAS and CLBlast; the GPU tests of the tensor-core kernels, level 3 and TRSM.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/e
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/e-build-wt.log 2>&1; el "build wt rc=$?"
SRC=.scratch/ab-head BUILD_DIR=build-head OUT=/tmp/gr2 bash bench/gpu_record.sh build > /tmp/e-build-head.log 2>&1; el "build head rc=$?"
SH=4096x8192x4096,2048x8192x2048,1024x8192x1024,4096x4096x256,8192x8192x256
sumg() { sed -n '/^m x n x k/,$p' $1 | awk 'NR>1 && NF>5{printf "%s%s %d|", $1, $2, $4}'; }
for r in 1 2; do for t in head wt; do
  timeout 100 build-$t/bench/clhgemm-bench-gemm --precision d --sizes 3000,4096 --shapes $SH --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/e-g-$t-$r.log 2>&1
  el "gemm $t r$r rc=$? $(sumg /tmp/e-g-$t-$r.log)"
  timeout 100 build-$t/bench/clhgemm-bench-level3 --routines trmm,trsm --sizes 4096,8192 --precision d --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/e-t-$t-$r.log 2>&1
  el "l3 $t r$r rc=$? $(sed -n '/^routine/,$p' /tmp/e-t-$t-$r.log | awk 'NR>1{printf "%s%s%s %d %s|", $1, $2, $3, $4, $8}')"
done; done
for r in 1 2; do for v in auto c; do
  CLHGEMM_DIRECT=$v timeout 100 build-wt/bench/clhgemm-bench-gemm --precision d --sizes 5000,8192 --shapes 4096x4096x8192,8192x2048x6144 --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/e-dc-$v-$r.log 2>&1
  el "direct=$v r$r rc=$? $(sumg /tmp/e-dc-$v-$r.log)"
done; done
timeout 300 build-wt/bench/clhgemm-bench-gemm --shapes sweep --precision d --reps 3 --warmup 1 --csv /tmp/e-sweep.csv > /tmp/e-sweep.log 2>&1; el "sweep rc=$? $(grep geomean /tmp/e-sweep.log | tr '\n' '|')"
(cd build-wt && timeout 240 ctest -j4 --timeout 200 -R "test_mma|test_gemm_mma|test_level3|test_trsm_cl|test_gemm_gpu|test_shapes_d" > /tmp/e-ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" /tmp/e-ctest.log | head
tar -C /tmp -czf $OUT/e/s21e.tgz $(cd /tmp && ls e-*.log e-*.csv)
el done
