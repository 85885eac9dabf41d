# s21c.sh -- session 21, lease 2: C read first into the accumulators (DIRECT_C 3, CLHGEMM_C_FIRST=1,
# alpha = +-1, beta != 0) against the epilogue's C loads: DGEMM/SGEMM mid shapes (beta 0.5; beta 0
# as the no-C-read reference), DTRSM/STRSM 8192, ptxas of the variants, the GPU tests with it on.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/c
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/c-build-wt.log 2>&1; el "build wt rc=$?"
SH=4096x8192x4096,2048x8192x2048,1024x8192x1024,512x8192x512,4096x4096x256,8192x8192x256
sumg() { sed -n '/^m x n x k/,$p' $1 | awk 'NR>1 && NF>5{printf "%s%s %d|", $1, $2, $4}'; }
for r in 1 2; do for v in 0 1; do
  CLHGEMM_C_FIRST=$v timeout 100 build-wt/bench/clhgemm-bench-gemm --precision both --sizes 2048,3000,4096 --shapes $SH --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/c-g-$v-$r.log 2>&1
  el "cfirst=$v r$r rc=$? $(sumg /tmp/c-g-$v-$r.log)"
done; done
timeout 100 build-wt/bench/clhgemm-bench-gemm --precision both --sizes 2048,3000,4096 --shapes $SH --reps 10 --warmup 2 --no-clblast --no-cublas --beta 0 > /tmp/c-g-beta0.log 2>&1
el "beta0 rc=$? $(sumg /tmp/c-g-beta0.log)"
for r in 1 2; do for v in 0 1; do
  CLHGEMM_C_FIRST=$v timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 4096,8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/c-t-$v-$r.log 2>&1
  el "trsm cfirst=$v r$r rc=$? $(sed -n '/^routine/,$p' /tmp/c-t-$v-$r.log | awk 'NR>1{printf "%s%s%s %d %s|", $1, $2, $3, $4, $8}')"
done; done
for v in 0 1; do
  rm -rf /tmp/pc$v; CLHGEMM_CACHE_DIR=/tmp/pc$v CLHGEMM_C_FIRST=$v timeout 60 build-wt/bench/clhgemm-bench-gemm --precision d --sizes none --shapes 4096x8192x4096 --reps 1 --warmup 0 --no-clblast --no-cublas --no-check > /dev/null 2>&1
  bash .scratch/ptx.sh /tmp/pc$v /tmp/c-ptx-$v.txt; echo "ptx cfirst=$v:"; cat /tmp/c-ptx-$v.txt
done
(cd build-wt && CLHGEMM_C_FIRST=1 timeout 240 ctest -j4 --timeout 200 -R "test_mma|test_gemm_mma|test_level3_mma|test_trsm_cl|test_level3_gpu|test_gemm_gpu" > /tmp/c-ctest.log 2>&1); el "ctest cfirst rc=$?"; grep -E "tests passed|Failed|\*\*\*" /tmp/c-ctest.log | head
tar -C /tmp -czf $OUT/c/s21c.tgz $(cd /tmp && ls c-*.log c-*.txt)
el done
