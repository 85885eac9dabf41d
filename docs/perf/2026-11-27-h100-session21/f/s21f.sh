# s21f.sh -- session 21, lease 5: the change as it will be committed (tensor-core epilogue in groups
# of 2; C written by the tensor-core kernel at any k) against HEAD 336ca78 (.scratch/ab-head):
# DGEMM device, DSYMM/DTRMM/DTRSM 8192, host DGEMM 8192/16384, two rounds alternated; GPU tests.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/f
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/f-build-wt.log 2>&1; el "build wt rc=$?"
SRC=.scratch/ab-head BUILD_DIR=build-head OUT=/tmp/gr2 bash bench/gpu_record.sh build > /tmp/f-build-head.log 2>&1; el "build head rc=$?"
SH=8192x2048x6144,4096x4096x8192,4096x8192x4096,1024x1024x8192,8192x8192x256
sumg() { sed -n '/^m x n x k/,$p' $1 | awk 'NR>1 && NF>5{printf "%s%s %d|", $1, $2, $4}'; }
for r in 1 2; do for t in head wt; do
  timeout 100 build-$t/bench/clhgemm-bench-gemm --precision d --sizes 3000,5000,6000,8192 --shapes $SH --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/f-g-$t-$r.log 2>&1
  el "gemm $t r$r rc=$? $(sumg /tmp/f-g-$t-$r.log)"
  timeout 100 build-$t/bench/clhgemm-bench-level3 --routines symm,trmm,trsm --sizes 8192 --precision d --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/f-t-$t-$r.log 2>&1
  el "l3 $t r$r rc=$? $(sed -n '/^routine/,$p' /tmp/f-t-$t-$r.log | awk 'NR>1{printf "%s%s%s %d %s|", $1, $2, $3, $4, $8}')"
  timeout 150 build-$t/bench/clhgemm-bench-host --sizes 8192,16384 --precision d --reps 3 --warmup 1 --no-naive --no-xt --no-device-only > /tmp/f-h-$t-$r.log 2>&1
  el "host $t r$r rc=$? $(sed -n "/^ *n prec/,/^eff/p" /tmp/f-h-$t-$r.log | awk "NR>1 && NF>5{printf \"%s%s %s|\", \$1, \$2, \$3}")"
done; done
(cd build-wt && timeout 240 ctest -j4 --timeout 200 -R "test_mma|test_gemm_mma|test_level3|test_trsm_cl|test_gemm_gpu|test_shapes_d|test_internal|test_host_level3_d" > /tmp/f-ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" /tmp/f-ctest.log | head
tar -C /tmp -czf $OUT/f/s21f.tgz $(cd /tmp && ls f-*.log)
el done
