# s21d.sh -- session 21, lease 3: the tensor-core kernel's beta*C epilogue (DIRECT_C 1) in smaller
# groups (CLHGEMM_C_GROUP = instructions along n per group of loads; default FN): registers/spills
# by ptxas and DGEMM mid shapes at beta 0.5 (beta 0 as the no-C-read reference), DTRSM 4096/8192.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/d
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/d-build-wt.log 2>&1; el "build wt rc=$?"
SH=4096x8192x4096,2048x8192x2048,1024x8192x1024,512x8192x512,4096x4096x256,8192x8192x256
sumg() { sed -n '/^m x n x k/,$p' $1 | awk 'NR>1 && NF>5{printf "%s%s %d|", $1, $2, $4}'; }
for v in 0 3 2 1; do
  rm -rf /tmp/pc$v; CLHGEMM_CACHE_DIR=/tmp/pc$v CLHGEMM_C_GROUP=$v timeout 60 build-wt/bench/clhgemm-bench-gemm --precision d --sizes none --shapes $SH --reps 1 --warmup 0 --no-clblast --no-cublas --no-check > /dev/null 2>&1
  bash .scratch/ptx.sh /tmp/pc$v /tmp/d-ptx-$v.txt; echo "ptx cgroup=$v:"; grep DIRECT_C=1 /tmp/d-ptx-$v.txt
done
for r in 1 2; do for v in 0 3 2 1; do
  CLHGEMM_C_GROUP=$v timeout 100 build-wt/bench/clhgemm-bench-gemm --precision d --sizes 2048,3000,4096 --shapes $SH --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/d-g-$v-$r.log 2>&1
  el "cgroup=$v r$r rc=$? $(sumg /tmp/d-g-$v-$r.log)"
done; done
timeout 100 build-wt/bench/clhgemm-bench-gemm --precision d --sizes 2048,3000,4096 --shapes $SH --reps 10 --warmup 2 --no-clblast --no-cublas --beta 0 > /tmp/d-g-beta0.log 2>&1
el "beta0 rc=$? $(sumg /tmp/d-g-beta0.log)"
for r in 1 2; do for v in 0 2 1; do
  CLHGEMM_C_GROUP=$v timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 4096,8192 --precision d --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/d-t-$v-$r.log 2>&1
  el "dtrsm cgroup=$v r$r rc=$? $(sed -n '/^routine/,$p' /tmp/d-t-$v-$r.log | awk 'NR>1{printf "%s%s%s %d %s|", $1, $2, $3, $4, $8}')"
done; done
(cd build-wt && CLHGEMM_C_GROUP=1 timeout 200 ctest -j4 --timeout 150 -R "test_mma|test_gemm_mma|test_level3_mma|test_trsm_cl_d" > /tmp/d-ctest.log 2>&1); el "ctest cgroup=1 rc=$?"; grep -E "tests passed|Failed|\*\*\*" /tmp/d-ctest.log | head
tar -C /tmp -czf $OUT/d/s21d.tgz $(cd /tmp && ls d-*.log d-*.txt)
el done
