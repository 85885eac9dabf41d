# s21j.sh -- session 21, lease 9: the SPLITK kernels without the accumulating Cp loads they never
# use (working tree) against 7ab338c (.scratch/ab-head): ptxas of the split variants, DGEMM/SGEMM
# large_k and tail-split and thin shapes, two rounds alternated; GPU split tests.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/j
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/j-build-wt.log 2>&1; el "build wt rc=$?"
SRC=.scratch/ab-head BUILD_DIR=build-head OUT=/tmp/gr2 bash bench/gpu_record.sh build > /tmp/j-build-head.log 2>&1; el "build head rc=$?"
SH=1024x1024x8192,512x512x32768,8192x64x8192,64x8192x8192,16384x256x16384,256x256x256
sumg() { sed -n '/^m x n x k/,$p' $1 | awk 'NR>1 && NF>5{printf "%s%s %d|", $1, $2, $4}'; }
for t in head wt; do
  rm -rf /tmp/pc-$t; CLHGEMM_CACHE_DIR=/tmp/pc-$t timeout 60 build-$t/bench/clhgemm-bench-gemm --precision d --sizes 3000,5000 --shapes $SH --reps 1 --warmup 0 --no-clblast --no-cublas --no-check > /dev/null 2>&1
  bash .scratch/ptx.sh /tmp/pc-$t /tmp/j-ptx-$t.txt; echo "ptx $t:"; grep SPLITK=[12] /tmp/j-ptx-$t.txt
done
for r in 1 2; do for t in head wt; do
  timeout 100 build-$t/bench/clhgemm-bench-gemm --precision both --sizes 3000,5000 --shapes $SH --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/j-g-$t-$r.log 2>&1
  el "gemm $t r$r rc=$? $(sumg /tmp/j-g-$t-$r.log)"
done; done
(cd build-wt && timeout 200 ctest -j4 --timeout 150 -R "split|tail|test_shapes_d|test_gemm_mma" > /tmp/j-ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" /tmp/j-ctest.log | head
tar -C /tmp -czf $OUT/j/s21j.tgz $(cd /tmp && ls j-*.log j-*.txt)
el done
